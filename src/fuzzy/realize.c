/* The fuzzy cost over terrain realisations (realize.h): a row callback of
 * tm_realize that evaluates the rules on each realisation's row and sums
 * the cost and its square per cell. */
#include "fuzzy/realize.h"
#include "run/run.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

enum { S_SLOPE, S_ELEVATION, S_CI, S_SPEED, NSOURCES };
static const char *const SOURCE_NAME[NSOURCES] = {"slope", "elevation", "ci", "speed"};

typedef struct acc {
    const fz_engine *e;
    const unsigned char *soil;
    double ci_of[256];
    int src[FZ_MAX_INPUTS];
    double *sum, *sum2;
    unsigned char *nod;
    float *ci, *cost;
    unsigned char *valid;
} acc;

static trv_status acc_row(void *arg, int k, int y, const float *dem, const float *slope, const float *speed,
                          const unsigned char *reason, int nx)
{
    (void)k;
    acc *A = arg;
    size_t o = (size_t)y * nx;
    for (int x = 0; x < nx; x++) {
        A->valid[x] = reason[x] == TM_GO;
        A->ci[x] = A->valid[x] ? (float)A->ci_of[A->soil[o + x]] : 0;
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

/* The mean and standard deviation from the sums. */
static trv_status finish(trv_ctx *ctx, const acc *A, const geo_raster *grid_of, int n, fz_real *out)
{
    trv_status st;
    if ((st = geo_raster_new(ctx, &grid_of->grid, GEO_F32, &out->mean)) ||
        (st = geo_raster_new(ctx, &grid_of->grid, GEO_F32, &out->std)) ||
        (st = geo_raster_set_label(ctx, out->mean, "mobility cost, mean over realisations", NULL)) ||
        (st = geo_raster_set_label(ctx, out->std, "mobility cost, standard deviation over realisations", NULL)))
        return st;
    out->mean->has_nodata = out->std->has_nodata = 1;
    out->mean->nodata = out->std->nodata = -9999;
    out->cells = (size_t)grid_of->grid.nx * grid_of->grid.ny;
    double ssum = 0;
    for (size_t i = 0; i < out->cells; i++) {
        if (A->nod[i]) {
            out->mean->f32[i] = out->std->f32[i] = -9999;
            out->nodata++;
            continue;
        }
        double m = A->sum[i] / n, v = A->sum2[i] / n - m * m;
        out->mean->f32[i] = (float)m;
        out->std->f32[i] = (float)sqrt(v > 0 ? v : 0);
        ssum += out->std->f32[i];
        out->std_max = fmax(out->std_max, out->std->f32[i]);
    }
    out->std_mean = out->cells > out->nodata ? ssum / (double)(out->cells - out->nodata) : 0;
    return TRV_OK;
}

trv_status fz_realize(trv_ctx *ctx, const fz_engine *e, const char *dir, const char *soils_path, const char *sims,
                      fz_real *out)
{
    memset(out, 0, sizeof *out);
    acc A = {.e = e};
    tm_run_model rm;
    tm_real tr = {0};
    geo_raster *soil = NULL;
    char *sp = run_path(dir, RUN_SOIL);
    trv_status st = sp ? sources(ctx, e, A.src) : trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
    int have_rm = 0;
    if (!st)
        st = fz_soil_ci_read(ctx, soils_path, A.ci_of);
    if (!st && !(st = tm_run_model_load(ctx, dir, &rm)))
        have_rm = 1;
    if (!st)
        st = geo_raster_read(ctx, sp, GEO_U8, &soil);
    size_t cells = soil ? (size_t)soil->grid.nx * soil->grid.ny : 0;
    int nx = soil ? soil->grid.nx : 0;
    if (!st) {
        A.soil = soil->u8;
        A.sum = calloc(cells, sizeof *A.sum), A.sum2 = calloc(cells, sizeof *A.sum2), A.nod = calloc(cells, 1);
        A.ci = malloc((size_t)nx * sizeof *A.ci), A.cost = malloc((size_t)nx * sizeof *A.cost), A.valid = malloc(nx);
        if (!A.sum || !A.sum2 || !A.nod || !A.ci || !A.cost || !A.valid)
            st = trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
    }
    if (!st)
        st = tm_realize(ctx, &rm.model, dir, sims, acc_row, &A, &tr);
    if (!st)
        st = finish(ctx, &A, soil, out->n = tr.n, out);
    tm_real_clear(&tr);
    if (have_rm)
        tm_run_model_free(&rm);
    geo_raster_free(soil);
    free(sp);
    free(A.sum), free(A.sum2), free(A.nod), free(A.ci), free(A.cost), free(A.valid);
    if (st)
        fz_real_clear(out);
    return st;
}

void fz_real_clear(fz_real *r)
{
    geo_raster_free(r->mean);
    geo_raster_free(r->std);
    memset(r, 0, sizeof *r);
}
