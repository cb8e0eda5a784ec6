/* The fuzzy cost over terrain realisations (realize.h): a row callback of
 * tm_realize_zoned that evaluates the rules on each realisation's row of a
 * tile and sums the cost and its square per cell of the tile; the tile's
 * mean and standard deviation from them when its last band is done, sent to
 * process 0 (core/split.h), which folds (exact sums: core/moments.h) and
 * writes them in tile order. */
#include "fuzzy/realize.h"
#include "core/moments.h"
#include "core/split.h"
#include "run/run.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

enum { S_SLOPE, S_ELEVATION, S_CI, S_SPEED, NSOURCES };
static const char *const SOURCE_NAME[NSOURCES] = {"slope", "elevation", "ci", "speed"};

typedef struct acc {
    const fz_engine *e;
    double ci_of[256];
    int src[FZ_MAX_INPUTS];
    int rows;                 /* tm_real's (a tile starts at a multiple of it) */
    double *sum, *sum2;       /* the tile's cells, rows of the tile's width */
    unsigned char *nod;
    float *ci, *cost;         /* one row */
    unsigned char *valid;
    float *ms;                /* the tile's cells of the outputs: mean, then std (ms_place) */
    float *mean, *std;        /* in ms */
    trv_outset *set;
    const char *dir;
    const trv_meta *meta;
    geo_block_writer *w[2];   /* cost_mean.tif, cost_std.tif (NULL: not open) */
    trv_moments ssum;         /* the std over the cells with data (exact: any order) */
    fz_real *out;
} acc;

static trv_status acc_row(trv_ctx *ctx, void *arg, int k, int y, const float *dem, const float *slope,
                          const unsigned char *soil, const float *speed, const unsigned char *reason, int nx)
{
    (void)ctx, (void)k;
    acc *A = arg;
    size_t o = (size_t)(y % A->rows) * nx;
    for (int x = 0; x < nx; x++) {
        A->valid[x] = reason[x] == TM_GO;
        A->ci[x] = A->valid[x] ? (float)A->ci_of[soil[x]] : 0;
        A->nod[o + x] |= reason[x] == TM_NOGO_NODATA;
    }
    const float *in[FZ_MAX_INPUTS];
    for (int i = 0; i < fz_ninputs(A->e); i++)
        in[i] = A->src[i] == S_SLOPE ? slope : A->src[i] == S_ELEVATION ? dem : A->src[i] == S_SPEED ? speed : A->ci;
    fz_eval_row(A->e, nx, in, A->valid, A->cost, NULL);
    for (int x = 0; x < nx; x++) {
        A->sum[o + x] += A->cost[x];
        A->sum2[o + x] += (double)A->cost[x] * A->cost[x];
    }
    return TRV_OK;
}

const char *fz_real_desc(int k)
{
    return k ? "mobility cost, standard deviation over realisations" : "mobility cost, mean over realisations";
}

/* The buffers for r's tiles, and the two writers. */
static trv_status acc_start(trv_ctx *ctx, void *arg, const tm_real *r)
{
    static const char *const files[2] = {FZ_REAL_MEAN_TIF, FZ_REAL_STD_TIF};
    acc *A = arg;
    size_t nx = (size_t)r->cols, cells = (size_t)(A->rows = r->rows) * nx;
    A->out->cells = r->cells;
    A->out->n = r->n;
    if (!(A->sum = calloc(cells, sizeof *A->sum)) || !(A->sum2 = calloc(cells, sizeof *A->sum2)) ||
        !(A->nod = calloc(cells, 1)) || !(A->ci = malloc(nx * sizeof *A->ci)) ||
        !(A->cost = malloc(nx * sizeof *A->cost)) || !(A->valid = malloc(nx)) ||
        !(A->ms = malloc(2 * cells * sizeof *A->ms)))
        return trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
    trv_status st = TRV_OK;
    for (int k = 0; k < 2 && !st && A->set; k++) { /* process 0 alone writes */
        geo_raster like = {.grid = *r->grid, .type = GEO_F32, .has_nodata = 1, .nodata = -9999, .desc = (char *)fz_real_desc(k)};
        char *p = trv_path_join(A->dir, files[k]);
        st = geo_block_writer_open_set(ctx, A->set, &like, p, A->meta, &A->w[k]);
        free(p);
    }
    return st;
}

/* mean and std for a tile of `cells` cells: ms, then ms + cells (one part). */
static void ms_place(acc *A, size_t cells)
{
    A->mean = A->ms;
    A->std = A->ms + cells;
}

/* The tile done (the process that computed it): its mean and standard
 * deviation from the sums; the sums cleared for the next tile. */
static trv_status acc_block(trv_ctx *ctx, void *arg, int x0, int y0, int nx, int ny)
{
    (void)ctx, (void)x0, (void)y0;
    acc *A = arg;
    const fz_real *out = A->out;
    size_t cells = (size_t)nx * ny;
    ms_place(A, cells);
    for (size_t i = 0; i < cells; i++) {
        if (A->nod[i]) {
            A->mean[i] = A->std[i] = -9999;
            continue;
        }
        double m = A->sum[i] / out->n, v = A->sum2[i] / out->n - m * m;
        A->mean[i] = (float)m;
        A->std[i] = (float)sqrt(v > 0 ? v : 0);
    }
    memset(A->sum, 0, cells * sizeof *A->sum);
    memset(A->sum2, 0, cells * sizeof *A->sum2);
    memset(A->nod, 0, cells);
    return TRV_OK;
}

static int acc_parts(void *arg, int x0, int y0, int nx, int ny, trv_part *p)
{
    acc *A = arg;
    size_t cells = (size_t)nx * ny;
    (void)x0, (void)y0;
    ms_place(A, cells); /* process 0 receives into them */
    p[0] = (trv_part){A->ms, 2 * cells * sizeof *A->ms};
    return 1;
}

/* Process 0, in tile order: the std's exact sum and its max (both the
 * same in any order), the nodata cells counted, the tile written. */
static trv_status acc_write(trv_ctx *ctx, void *arg, int x0, int y0, int nx, int ny)
{
    acc *A = arg;
    fz_real *out = A->out;
    size_t cells = (size_t)nx * ny;
    for (size_t i = 0; i < cells; i++) {
        if (A->std[i] == -9999) {
            out->nodata++;
            continue;
        }
        trv_moments_add(&A->ssum, A->std[i]);
        out->std_max = fmax(out->std_max, A->std[i]);
    }
    trv_status st = geo_block_write_tile(ctx, A->w[0], x0, y0, nx, ny, A->mean);
    if (!st)
        st = geo_block_write_tile(ctx, A->w[1], x0, y0, nx, ny, A->std);
    return st;
}

/* Each input's source, or the error naming the one the map cannot give. */
static trv_status sources(trv_ctx *ctx, const fz_engine *e, int src[FZ_MAX_INPUTS])
{
    for (int i = 0; i < fz_ninputs(e); i++) {
        src[i] = -1;
        for (int s = 0; s < NSOURCES; s++)
            if (!strcmp(fz_var_name(e, i), SOURCE_NAME[s]))
                src[i] = s;
        if (src[i] < 0)
            return trv_error(ctx, TRV_ERR_DATA, "'%s': input '%s' is not a terrain layer (the map stage gives slope, "
                             "elevation, ci and speed)", fz_engine_path(e), fz_var_name(e, i));
    }
    return TRV_OK;
}

static void acc_free(acc *A)
{
    free(A->sum), free(A->sum2), free(A->nod), free(A->ci), free(A->cost), free(A->valid);
    free(A->ms);
}

trv_status fz_realize(trv_ctx *ctx, trv_outset *set, const fz_engine *e, const char *dir, const char *soils_path,
                      const char *sims, const trv_meta *meta, const trv_split *sp, fz_real *out)
{
    memset(out, 0, sizeof *out);
    acc A = {.e = e, .set = set, .dir = dir, .meta = meta, .out = out};
    trv_moments_init(&A.ssum);
    tm_run_model rm;
    tm_real tr;
    const tm_real_sink sink = {acc_start, acc_row, acc_block, acc_parts, acc_write, &A};
    trv_status st = sources(ctx, e, A.src);
    int have_rm = 0;
    if (!st)
        st = fz_soil_ci_read(ctx, soils_path, A.ci_of);
    if (!st && !(st = tm_run_model_load(ctx, dir, &rm)))
        have_rm = 1;
    if (!st)
        st = tm_realize_zoned(ctx, NULL, &rm.model, dir, sims, NULL, NULL, &sink, sp, &tr);
    st = geo_block_writers_close(ctx, A.w, 2, st, out->stats);
    out->std_mean = out->cells > out->nodata ? trv_moments_sum(&A.ssum) / (double)(out->cells - out->nodata) : 0;
    if (have_rm)
        tm_run_model_free(&rm);
    acc_free(&A);
    if (st)
        memset(out, 0, sizeof *out);
    return st;
}
