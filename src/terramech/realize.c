/* The speed model over terrain realisations (realize.h): tile by tile
 * (core/split.h: block b is tile b, on one process or split over several),
 * the soil and land use read by windows, every band's window with a
 * 1-cell halo through Horn slope and tm_row, per-cell counts and the N
 * speeds sorted in place into the tile's cells of the outputs; process 0
 * folds the figures (exact sums: core/moments.h) and writes the tiles in
 * tile order. */
#include "terramech/realize.h"
#include "core/moments.h"
#include "core/split.h"
#include "geo/block.h"
#include "geo/zones.h"
#include "run/blocks.h"
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
const char *tm_real_desc(int k) { return k >= 0 && k < TM_REAL_NOUT ? DESCS[k] : NULL; }

int tm_real_block_rows(int nx, int n)
{
    size_t per_row = (size_t)nx * (size_t)n, cap = TM_REAL_BLOCK_FLOATS / (per_row ? per_row : 1);
    int rows = geo_block_rows();
    return cap < 1 ? 1 : cap < (size_t)rows ? (int)cap : rows;
}

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

/* A block's integer tallies: they travel with its rows (core/split.h). */
typedef struct real_tally {
    size_t nodata, always_go, always_nogo; /* cells */
    size_t data[RUN_NLAYERS];              /* run_blocks' data cells of the block */
} real_tally;

/* The work of one run: inputs, the tile's buffers and the outputs. */
typedef struct realize_job {
    const tm_model *m;
    run_blocks in;            /* soil and land use */
    geo_raster_src *src;      /* SIM.tif */
    float nodata;             /* SIM.tif's (band 1's, as geo_raster_src_alloc gives it) */
    float *dem;               /* one band's window: the tile and its 1-cell halo (clipped) */
    int nx, ny, n;            /* the grid's columns and rows, the realisations */
    geo_tiling tl;            /* the tiles */
    geo_tile tile;            /* the tile computed */
    int xa, ya, ww;           /* the window's first column and row, its width */
    double ew, ns;            /* cell size in metres */
    float *v;                 /* the tile's speeds, cell-major: v[cell * n + k] */
    int *cnt, *cnt_slope;     /* the block's NOGO counts */
    unsigned char *nod;       /* 1: no data in some realisation */
    float *slope, *speed;     /* one row */
    unsigned char *reason, *limit, *burn;
    float *resbuf;            /* the block's rows of the outputs, output after output */
    float *res[TM_REAL_NOUT]; /* in resbuf (res_place) */
    real_tally t;             /* the block's */
    geo_block_writer *w[TM_REAL_NOUT]; /* NULL: not written */
    const tm_real_sink *sink;
    geo_zones *zones;         /* NULL: none; else burned tile by tile into burn */
    const geo_grid *grid;     /* the run's */
    trv_moments p_nogo;       /* P(NOGO) over the cells with data (process 0) */
    tm_real *out;
} realize_job;


/* res[k] for a block of `cells` cells: resbuf + k cells, one part to send. */
static void res_place(realize_job *J, size_t cells)
{
    for (int k = 0; k < TM_REAL_NOUT; k++)
        J->res[k] = J->resbuf + (size_t)k * cells;
}

/* Row y of band k over the tile's columns through slope (the window's
 * columns x - 1 .. x + 1 around each: geo_slope_at on the window's rows,
 * whose edges are the grid's where it is clipped, so the whole row's
 * values), speed and the zones, into the tile's counts and speeds. */
static trv_status band_row(trv_ctx *ctx, realize_job *J, int k, int y)
{
    int nx = J->tile.nx, ww = J->ww, xo = J->tile.x0 - J->xa;
    const float *row = J->dem + (size_t)(y - J->ya) * ww;
    const float *above = y > 0 ? row - ww : NULL, *below = y + 1 < J->ny ? row + ww : NULL;
    const unsigned char *soil = geo_window_u8(J->in.win[RUN_SOIL], J->tile.x0, y);
    const unsigned char *lu = geo_window_u8(J->in.win[RUN_LANDUSE], J->tile.x0, y);
    size_t b = (size_t)(y - J->tile.y0) * nx;
    for (int x = 0; x < nx; x++)
        J->slope[x] = geo_slope_at(above, row, below, ww, xo + x, 1, J->nodata, J->ew, J->ns, NODATA);
    tm_row(J->m, J->slope, NODATA, soil, lu, nx, J->speed, J->reason, J->limit);
    if (J->zones)
        tm_zones_bake_window(J->zones, J->grid, J->tile.x0, y, nx, 1, J->burn + b, J->speed, J->reason, J->limit);
    for (int x = 0; x < nx; x++) {
        unsigned char why = J->reason[x];
        J->nod[b + x] |= why == TM_NOGO_NODATA;
        J->cnt[b + x] += why != TM_GO && why != TM_NOGO_NODATA;
        J->cnt_slope[b + x] += why == TM_NOGO_SLOPE;
        J->v[(b + x) * J->n + k] = J->speed[x];
    }
    const tm_real_sink *S = J->sink;
    return S && S->row ? S->row(ctx, S->arg, k, y, row + xo, J->slope, soil, J->speed, J->reason, nx) : TRV_OK;
}

/* Band k (0-based) over the tile: its window with a cell of margin all
 * round (clipped at the grid's edges), then row by row. */
static trv_status tile_band(trv_ctx *ctx, realize_job *J, int k)
{
    const geo_tile *t = &J->tile;
    int x1 = t->x0 + t->nx, y1 = t->y0 + t->ny, xb = x1 < J->nx ? x1 + 1 : J->nx, yb = y1 < J->ny ? y1 + 1 : J->ny;
    J->xa = t->x0 > 0 ? t->x0 - 1 : 0, J->ya = t->y0 > 0 ? t->y0 - 1 : 0, J->ww = xb - J->xa;
    trv_status st = geo_raster_src_band(ctx, J->src, k + 1);
    if (!st)
        st = geo_raster_read_window_to(ctx, J->src, J->xa, J->ya, J->ww, yb - J->ya, J->dem, (size_t)J->ww, J->nodata);
    for (int y = t->y0; y < y1 && !st; y++)
        st = band_row(ctx, J, k, y);
    return st;
}

/* Cell c of the tile: nodata, or its statistics into the tile's cells and tallies. */
static void cell_finish(realize_job *J, size_t c)
{
    float *v = J->v + c * J->n;
    if (J->nod[c]) {
        for (int k = 0; k < TM_REAL_NOUT; k++)
            J->res[k][c] = NODATA;
        J->t.nodata++;
        return;
    }
    double sum = 0;
    for (int k = 0; k < J->n; k++)
        sum += v[k];
    sort_floats(v, J->n);
    J->res[TM_REAL_P_NOGO][c] = (float)((double)J->cnt[c] / J->n);
    J->res[TM_REAL_P_NOGO_SLOPE][c] = (float)((double)J->cnt_slope[c] / J->n);
    J->res[TM_REAL_SPEED_MEAN][c] = (float)(sum / J->n);
    J->res[TM_REAL_SPEED_P10][c] = (float)tm_quantile_sorted(v, J->n, 0.1);
    J->res[TM_REAL_SPEED_P50][c] = (float)tm_quantile_sorted(v, J->n, 0.5);
    J->res[TM_REAL_SPEED_P90][c] = (float)tm_quantile_sorted(v, J->n, 0.9);
    J->t.always_go += J->cnt[c] == 0;
    J->t.always_nogo += J->cnt[c] == J->n;
}

/* Block ops' compute: tile i: soil, land use and the zones' burn, every
 * band, the cells' statistics into the tile's cells and tallies, the
 * sink's block. */
static trv_status compute_block(trv_ctx *ctx, void *arg, int i, int i1)
{
    realize_job *J = arg;
    (void)i1;
    J->tile = geo_tiling_tile(&J->tl, i);
    const geo_tile *t = &J->tile;
    size_t cells = (size_t)t->nx * t->ny;
    const long w[5] = {t->x0, t->y0, t->nx, t->ny, t->nx};
    trv_status st = run_blocks_read_window(ctx, &J->in, t->x0, t->x0 + t->nx, t->y0, t->y0 + t->ny);
    if (!st && J->zones)
        st = geo_zones_burn_window(ctx, J->grid, J->zones, w, NULL, J->burn);
    if (st)
        return st;
    memset(&J->t, 0, sizeof J->t);
    memcpy(J->t.data, J->in.block, sizeof J->t.data);
    memset(J->cnt, 0, cells * sizeof *J->cnt);
    memset(J->cnt_slope, 0, cells * sizeof *J->cnt_slope);
    memset(J->nod, 0, cells);
    res_place(J, cells);
    for (int k = 0; k < J->n && !st; k++)
        st = tile_band(ctx, J, k);
    for (size_t c = 0; c < cells && !st; c++)
        cell_finish(J, c);
    const tm_real_sink *S = J->sink;
    return !st && S && S->block ? S->block(ctx, S->arg, t->x0, t->y0, t->nx, t->ny) : st;
}

/* Tile i's parts: its six outputs' cells, its tallies, the sink's. */
static int block_parts(void *arg, int i, int i1, trv_part p[])
{
    realize_job *J = arg;
    (void)i1;
    J->tile = geo_tiling_tile(&J->tl, i);
    size_t cells = (size_t)J->tile.nx * J->tile.ny;
    res_place(J, cells); /* process 0 receives into them */
    p[0] = (trv_part){J->resbuf, TM_REAL_NOUT * cells * sizeof *J->resbuf};
    p[1] = (trv_part){&J->t, sizeof J->t};
    const tm_real_sink *S = J->sink;
    return 2 + (S && S->parts ? S->parts(S->arg, J->tile.x0, J->tile.y0, J->tile.nx, J->tile.ny, p + 2) : 0);
}

/* Process 0, in tile order: the tallies and P(NOGO)'s exact sum (the same
 * in any order), the tile written, the sink's write. */
static trv_status write_block(trv_ctx *ctx, void *arg, int i, int i1)
{
    realize_job *J = arg;
    tm_real *out = J->out;
    (void)i1;
    J->tile = geo_tiling_tile(&J->tl, i);
    size_t cells = (size_t)J->tile.nx * J->tile.ny;
    run_blocks_add(&J->in, J->t.data);
    out->nodata += J->t.nodata;
    out->always_go += J->t.always_go;
    out->always_nogo += J->t.always_nogo;
    for (size_t c = 0; c < cells; c++)
        if (J->res[TM_REAL_P_NOGO][c] != NODATA)
            trv_moments_add(&J->p_nogo, J->res[TM_REAL_P_NOGO][c]);
    trv_status st = TRV_OK;
    for (int k = 0; k < TM_REAL_NOUT && !st && J->w[k]; k++)
        st = geo_block_write_tile(ctx, J->w[k], J->tile.x0, J->tile.y0, J->tile.nx, J->tile.ny, J->res[k]);
    const tm_real_sink *S = J->sink;
    return !st && S && S->write ? S->write(ctx, S->arg, J->tile.x0, J->tile.y0, J->tile.nx, J->tile.ny) : st;
}

/* The buffers of J for its tile size. */
static trv_status job_alloc(trv_ctx *ctx, realize_job *J)
{
    size_t cells = (size_t)J->tl.th * J->tl.tw, nx = (size_t)J->tl.tw, win = (size_t)(J->tl.th + 2) * (J->tl.tw + 2);
    int ok = (J->v = malloc(cells * J->n * sizeof *J->v)) && (J->cnt = malloc(cells * sizeof *J->cnt)) &&
             (J->cnt_slope = malloc(cells * sizeof *J->cnt_slope)) && (J->nod = malloc(cells)) &&
             (J->dem = malloc(win * sizeof *J->dem)) && (J->slope = malloc(nx * sizeof *J->slope)) &&
             (J->speed = malloc(nx * sizeof *J->speed)) && (J->reason = malloc(nx)) && (J->limit = malloc(nx)) &&
             (!J->zones || (J->burn = malloc(cells))) && (J->resbuf = malloc(TM_REAL_NOUT * cells * sizeof *J->resbuf));
    return ok ? TRV_OK : trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
}

static void job_free(realize_job *J)
{
    free(J->v);
    free(J->cnt);
    free(J->cnt_slope);
    free(J->nod);
    free(J->dem);
    free(J->slope);
    free(J->speed);
    free(J->reason);
    free(J->limit);
    free(J->burn);
    free(J->resbuf);
    if (J->src)
        geo_raster_close(J->src);
    geo_zones_free(J->zones);
    run_blocks_close(&J->in);
}

/* The outputs' writers in set: Float32, labelled, nodata -9999. */
static trv_status writers_open(trv_ctx *ctx, realize_job *J, trv_outset *set, const char *dir, const trv_meta *meta)
{
    trv_status st = TRV_OK;
    for (int k = 0; k < TM_REAL_NOUT && !st; k++) {
        geo_raster like = {.grid = *J->grid, .type = GEO_F32, .has_nodata = 1, .nodata = NODATA,
                           .desc = (char *)DESCS[k], .unit = k < TM_REAL_SPEED_MEAN ? NULL : TM_SPEED_UNIT};
        char *p = trv_path_join(dir, FILES[k]);
        st = geo_block_writer_open_set(ctx, set, &like, p, meta, &J->w[k]);
        free(p);
    }
    return st;
}

/* Open sims on the run's grid and size the job. */
static trv_status job_open(trv_ctx *ctx, realize_job *J, const char *sims, tm_real *out)
{
    const geo_grid *g = J->grid;
    trv_status st = geo_raster_open(ctx, sims, GEO_F32, &J->src);
    if (!st)
        st = geo_grid_compare(ctx, geo_raster_src_grid(J->src), sims, g, J->in.path[RUN_SOIL]);
    if (st)
        return st;
    if (geo_crs_is_geographic(g->wkt) != 0)
        return trv_error(ctx, TRV_ERR_CRS, "'%s': slope needs a projected CRS in metres", sims);
    double mpu = geo_crs_metres_per_unit(g->wkt);
    int has;
    J->ew = g->gt[1] * mpu;
    J->ns = fabs(g->gt[5]) * mpu;
    J->nx = g->nx;
    J->ny = g->ny;
    J->nodata = (float)geo_raster_src_nodata(J->src, &has);
    J->n = out->n = geo_raster_src_bands(J->src);
    int cols = geo_block_cols() < J->nx ? geo_block_cols() : J->nx;
    J->tl = geo_tiling_make(J->nx, J->ny, cols, tm_real_block_rows(cols, J->n));
    out->cols = J->tl.tw, out->rows = J->tl.th;
    out->grid = g;
    out->cells = (size_t)g->nx * g->ny;
    geo_block_cache_reserve(J->tl.tw + 2 + 512, 3 * J->n); /* per band, the 3 x 3 tiles of SIM.tif a window meets */
    return job_alloc(ctx, J);
}

/* The inputs opened, the zones read, the job sized, the writers (set not NULL), the sink started. */
static trv_status setup(trv_ctx *ctx, realize_job *J, trv_outset *set, const char *dir, const char *sims,
                        const tm_zone_opts *zo, const trv_meta *meta, tm_real *out)
{
    static const run_id which[2] = {RUN_SOIL, RUN_LANDUSE};
    trv_status st = run_blocks_open(ctx, dir, which, 2, 0, &J->in);
    if (st)
        return st;
    J->grid = J->in.grid;
    if (zo && zo->path && (st = geo_zones_read_unburnt(ctx, zo->path, zo->crossings, zo->radius_m, J->grid, &J->zones)))
        return st;
    if ((st = job_open(ctx, J, sims, out)) || (set && (st = writers_open(ctx, J, set, dir, meta))))
        return st;
    return J->sink && J->sink->start ? J->sink->start(ctx, J->sink->arg, out) : TRV_OK;
}

trv_status tm_realize_zoned(trv_ctx *ctx, trv_outset *set, const tm_model *m, const char *dir, const char *sims,
                            const tm_zone_opts *zo, const trv_meta *meta, const tm_real_sink *sink,
                            const trv_split *sp, tm_real *out)
{
    memset(out, 0, sizeof *out);
    realize_job J;
    memset(&J, 0, sizeof J);
    J.m = m, J.sink = sink, J.out = out;
    trv_moments_init(&J.p_nogo);
    const int writes = !sp || sp->rank == 0;
    trv_status st = setup(ctx, &J, set, dir, sims, zo, meta, out);
    const trv_block_ops ops = {&J, compute_block, block_parts, write_block, "realizations"};
    int tiles = st ? 0 : geo_tiling_count(&J.tl);
    st = trv_split_blocks(ctx, sp, st, tiles, 1, &ops);
    if (!st && writes)
        st = run_blocks_finish(ctx, &J.in);
    st = geo_block_writers_close(ctx, J.w, TM_REAL_NOUT, st, NULL);
    size_t data = out->cells - out->nodata;
    out->uncertain = data - out->always_go - out->always_nogo;
    out->p_nogo_mean = data ? trv_moments_sum(&J.p_nogo) / data : 0;
    job_free(&J);
    out->grid = NULL;
    return st;
}
