/* The speed model over terrain realisations (realize.h): block by block of
 * rows, every band through Horn slope and tm_row, per-cell counts and the
 * N speeds sorted in place. */
#include "terramech/realize.h"
#include "geo/zones.h"
#include "run/run.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define NODATA -9999.0f

static const char *const FILES[TM_REAL_NOUT] = {"p_nogo.tif",    "p_nogo_slope.tif", "speed_mean.tif",
                                                "speed_p10.tif", "speed_p50.tif",    "speed_p90.tif"};
static const char *const DESCS[TM_REAL_NOUT] = {
    "probability of NOGO",           "probability of NOGO by slope",  "attainable speed, mean over realisations",
    "attainable speed, 10th percentile", "attainable speed, median", "attainable speed, 90th percentile"};

const char *tm_real_file(int k) { return k >= 0 && k < TM_REAL_NOUT ? FILES[k] : NULL; }

double tm_quantile_sorted(const float *v, int n, double p)
{
    double h = (n - 1) * p;
    int i = (int)floor(h);
    if (i >= n - 1)
        return v[n - 1];
    return v[i] + (h - i) * ((double)v[i + 1] - v[i]);
}

void tm_real_cell(const tm_model *m, const geo_raster *dem, double ew, double ns, const unsigned char *soil,
                  const unsigned char *lu, size_t i, float *speed, unsigned char *reason)
{
    int nx = dem->grid.nx, ny = dem->grid.ny, x = (int)(i % (size_t)nx), y = (int)(i / (size_t)nx);
    const float *row = dem->f32 + (size_t)y * nx;
    float slope = geo_slope_at(y > 0 ? row - nx : NULL, row, y + 1 < ny ? row + nx : NULL, nx, x, dem->has_nodata,
                               (float)dem->nodata, ew, ns, NODATA);
    tm_row(m, &slope, NODATA, soil + i, lu + i, 1, speed, reason, NULL);
}

void tm_real_clear(tm_real *r)
{
    for (int k = 0; k < TM_REAL_NOUT; k++)
        geo_raster_free(r->out[k]);
    memset(r, 0, sizeof *r);
}

static void sort_floats(float *v, int n)
{
    if (n > 32) {
        qsort(v, (size_t)n, sizeof *v, trv_cmp_float);
        return;
    }
    for (int i = 1; i < n; i++) { /* insertion sort: the usual N are small */
        float t = v[i];
        int j = i - 1;
        for (; j >= 0 && v[j] > t; j--)
            v[j + 1] = v[j];
        v[j + 1] = t;
    }
}

/* The work of one run: inputs, the block's buffers and the outputs. */
typedef struct realize_job {
    const tm_model *m;
    const geo_raster *soil, *lu;
    geo_raster_src *src;
    geo_raster *dem;          /* the band being read (its rows of the block) */
    int nx, ny, n, rows;      /* rows: a block's */
    double ew, ns;            /* cell size in metres */
    float *v;                 /* the block's speeds, cell-major: v[cell * n + k] */
    int *cnt, *cnt_slope;     /* the block's NOGO counts */
    unsigned char *nod;       /* 1: no data in some realisation */
    float *slope, *speed;     /* one row */
    unsigned char *reason, *limit;
    tm_real_row_fn fn;
    void *arg;
    geo_zones *zones;         /* NULL: none */
    const geo_grid *grid;     /* the run's */
} realize_job;

/* Band k (0-based) over rows [y0, y1): read with a row of margin, slope,
 * speed, the counts and the speeds kept. */
static trv_status block_band(trv_ctx *ctx, realize_job *J, int k, int y0, int y1)
{
    int nx = J->nx, ya = y0 > 0 ? y0 - 1 : 0, yb = y1 < J->ny ? y1 + 1 : J->ny;
    trv_status st = geo_raster_src_band(ctx, J->src, k + 1);
    if (!st)
        st = geo_raster_read_window(ctx, J->src, J->dem, 0, ya, nx, yb - ya);
    for (int y = y0; y < y1 && !st; y++) {
        const float *row = J->dem->f32 + (size_t)y * nx;
        size_t r = (size_t)y * nx, b = (size_t)(y - y0) * nx;
        geo_slope_row(y > 0 ? row - nx : NULL, row, y + 1 < J->ny ? row + nx : NULL, nx, J->dem->has_nodata,
                      (float)J->dem->nodata, J->ew, J->ns, NODATA, J->slope);
        tm_row(J->m, J->slope, NODATA, J->soil->u8 + r, J->lu->u8 + r, nx, J->speed, J->reason, J->limit);
        if (J->zones)
            tm_zones_bake_row(J->zones, J->grid, y, J->speed, J->reason, J->limit);
        for (int x = 0; x < nx; x++) {
            unsigned char why = J->reason[x];
            J->nod[b + x] |= why == TM_NOGO_NODATA;
            J->cnt[b + x] += why != TM_GO && why != TM_NOGO_NODATA;
            J->cnt_slope[b + x] += why == TM_NOGO_SLOPE;
            J->v[(b + x) * J->n + k] = J->speed[x];
        }
        if (J->fn)
            st = J->fn(J->arg, k, y, row, J->slope, J->speed, J->reason, nx);
    }
    return st;
}

/* The block's cells into the outputs, and the counts of out. */
static void block_finish(realize_job *J, int y0, int y1, tm_real *out)
{
    size_t cells = (size_t)(y1 - y0) * J->nx, at = (size_t)y0 * J->nx;
    for (size_t c = 0; c < cells; c++) {
        float *v = J->v + c * J->n;
        if (J->nod[c]) {
            for (int k = 0; k < TM_REAL_NOUT; k++)
                out->out[k]->f32[at + c] = NODATA;
            out->nodata++;
            continue;
        }
        double sum = 0;
        for (int k = 0; k < J->n; k++)
            sum += v[k];
        sort_floats(v, J->n);
        float p = (float)((double)J->cnt[c] / J->n);
        out->out[TM_REAL_P_NOGO]->f32[at + c] = p;
        out->out[TM_REAL_P_NOGO_SLOPE]->f32[at + c] = (float)((double)J->cnt_slope[c] / J->n);
        out->out[TM_REAL_SPEED_MEAN]->f32[at + c] = (float)(sum / J->n);
        out->out[TM_REAL_SPEED_P10]->f32[at + c] = (float)tm_quantile_sorted(v, J->n, 0.1);
        out->out[TM_REAL_SPEED_P50]->f32[at + c] = (float)tm_quantile_sorted(v, J->n, 0.5);
        out->out[TM_REAL_SPEED_P90]->f32[at + c] = (float)tm_quantile_sorted(v, J->n, 0.9);
        out->always_go += J->cnt[c] == 0;
        out->always_nogo += J->cnt[c] == J->n;
        out->p_nogo_mean += p;
    }
}

/* The buffers of J for its block size. */
static trv_status job_alloc(trv_ctx *ctx, realize_job *J)
{
    size_t per_row = (size_t)J->nx * (size_t)J->n;
    size_t rows = TM_REAL_BLOCK_FLOATS / (per_row ? per_row : 1);
    J->rows = rows < 1 ? 1 : rows > (size_t)J->ny ? J->ny : (int)rows;
    size_t cells = (size_t)J->rows * J->nx;
    J->v = malloc(cells * J->n * sizeof *J->v);
    J->cnt = malloc(cells * sizeof *J->cnt);
    J->cnt_slope = malloc(cells * sizeof *J->cnt_slope);
    J->nod = malloc(cells);
    J->slope = malloc((size_t)J->nx * sizeof *J->slope);
    J->speed = malloc((size_t)J->nx * sizeof *J->speed);
    J->reason = malloc((size_t)J->nx);
    J->limit = malloc((size_t)J->nx);
    if (!J->v || !J->cnt || !J->cnt_slope || !J->nod || !J->slope || !J->speed || !J->reason || !J->limit)
        return trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
    return TRV_OK;
}

static void job_free(realize_job *J)
{
    free(J->v);
    free(J->cnt);
    free(J->cnt_slope);
    free(J->nod);
    free(J->slope);
    free(J->speed);
    free(J->reason);
    free(J->limit);
    geo_raster_free(J->dem);
    if (J->src)
        geo_raster_close(J->src);
    geo_zones_free(J->zones);
}

/* The outputs on the grid, labelled, nodata -9999. */
static trv_status outputs_new(trv_ctx *ctx, const geo_grid *g, tm_real *out)
{
    trv_status st = TRV_OK;
    for (int k = 0; k < TM_REAL_NOUT && !st; k++)
        if (!(st = geo_raster_new(ctx, g, GEO_F32, &out->out[k]))) {
            out->out[k]->has_nodata = 1;
            out->out[k]->nodata = NODATA;
            st = geo_raster_set_label(ctx, out->out[k], DESCS[k], k < TM_REAL_SPEED_MEAN ? NULL : TM_SPEED_UNIT);
        }
    return st;
}

/* Open sims on the run's grid and size the job. */
static trv_status job_open(trv_ctx *ctx, realize_job *J, const run_stack *in, const char *sims, tm_real *out)
{
    trv_status st = geo_raster_open(ctx, sims, GEO_F32, &J->src);
    if (!st)
        st = geo_grid_compare(ctx, geo_raster_src_grid(J->src), sims, in->grid, in->path[RUN_SOIL]);
    if (st)
        return st;
    const geo_grid *g = in->grid;
    if (geo_crs_is_geographic(g->wkt) != 0)
        return trv_error(ctx, TRV_ERR_CRS, "'%s': slope needs a projected CRS in metres", sims);
    double mpu = geo_crs_metres_per_unit(g->wkt);
    J->ew = g->gt[1] * mpu;
    J->ns = fabs(g->gt[5]) * mpu;
    J->nx = g->nx;
    J->ny = g->ny;
    J->n = out->n = geo_raster_src_bands(J->src);
    out->cells = (size_t)g->nx * g->ny;
    if ((st = geo_raster_src_alloc(ctx, J->src, &J->dem)) || (st = job_alloc(ctx, J)))
        return st;
    return outputs_new(ctx, g, out);
}

trv_status tm_realize(trv_ctx *ctx, const tm_model *m, const char *dir, const char *sims, tm_real_row_fn fn,
                      void *arg, tm_real *out)
{
    return tm_realize_zoned(ctx, m, dir, sims, NULL, fn, arg, out);
}

trv_status tm_realize_zoned(trv_ctx *ctx, const tm_model *m, const char *dir, const char *sims,
                            const tm_zone_opts *zo, tm_real_row_fn fn, void *arg, tm_real *out)
{
    memset(out, 0, sizeof *out);
    static const run_id which[2] = {RUN_SOIL, RUN_LANDUSE};
    run_stack in;
    realize_job J = {.m = m, .fn = fn, .arg = arg};
    trv_status st = run_load(ctx, dir, which, 2, NULL, &in);
    if (!st) {
        J.soil = in.layer[RUN_SOIL];
        J.lu = in.layer[RUN_LANDUSE];
        J.grid = in.grid;
        if (zo && zo->path)
            st = geo_zones_read(ctx, zo->path, zo->crossings, zo->radius_m, in.grid, &J.zones);
    }
    if (!st)
        st = job_open(ctx, &J, &in, sims, out);
    for (int y0 = 0; !st && y0 < J.ny; y0 += J.rows) {
        int y1 = y0 + J.rows < J.ny ? y0 + J.rows : J.ny;
        size_t cells = (size_t)(y1 - y0) * J.nx;
        memset(J.cnt, 0, cells * sizeof *J.cnt);
        memset(J.cnt_slope, 0, cells * sizeof *J.cnt_slope);
        memset(J.nod, 0, cells);
        for (int k = 0; k < J.n && !st; k++)
            if (!(st = block_band(ctx, &J, k, y0, y1)))
                st = trv_progress(ctx, ((double)y0 * J.n + (double)(y1 - y0) * (k + 1)) / ((double)J.ny * J.n),
                                  "realizations");
        if (!st)
            block_finish(&J, y0, y1, out);
    }
    size_t data = out->cells - out->nodata;
    out->uncertain = data - out->always_go - out->always_nogo;
    out->p_nogo_mean = data ? out->p_nogo_mean / data : 0;
    job_free(&J);
    run_stack_clear(&in);
    if (st)
        tm_real_clear(out);
    return st;
}

trv_status tm_real_write(trv_ctx *ctx, trv_outset *set, const tm_real *r, const char *dir, const trv_meta *meta)
{
    trv_status st = TRV_OK;
    for (int k = 0; k < TM_REAL_NOUT && !st; k++) {
        char *p = trv_path_join(dir, FILES[k]);
        const char *tmp = p ? trv_outset_add(set, p) : NULL;
        st = !tmp ? trv_error(ctx, TRV_ERR_NOMEM, "out of memory") : geo_raster_write(ctx, r->out[k], tmp, meta);
        free(p);
    }
    return st;
}
