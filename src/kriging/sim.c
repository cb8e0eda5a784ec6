/* Conditional simulation by conditioning unconditional fields by kriging
 * (sim.h; docs/method.md §1.11). */
#include "sim.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define NODATA (-9999.0f)

enum { NSK = 16 }; /* a sample's structured value: simple kriging from 4 x 4 nodes */

struct krg_sim {
    const krg_points *pts;  /* borrowed */
    krg_source *src;        /* owned (NULL: points input); its pts set only while kriging */
    krg_index *ix;          /* owned */
    krg_model m;
    krg_opts o;
    int allow_fast;
    char *work_wkt;
    geo_grid target;
    uint64_t seed;
    /* the lattice: the target's, from column c0 and row r0 (<= 0), n1 x n2 nodes */
    int c0, r0;
    krg_ce ce;
    long *base;             /* per sample: its node (on_node) or the top-left of its 4 x 4 nodes */
    char *on_node;
    double *w, *rsd;        /* per sample: NSK weights, the residual's standard deviation */
    const float *pred;      /* the kriged DEM on the target (borrowed) */
    krg_simw *W;            /* the targets' weights (NULL: too many; krige each realisation) */
    double *ud;             /* per sample: U of the realisation */
    krg_points *zp;         /* the residuals z - U at the samples */
    long pair;              /* the FFT pair held in fa, fb (-1: none) */
    double *fa, *fb, *u;    /* n1 * n2: the pair's structured fields; U of the realisation */
};

/* Lattice coordinates (column, row) of a point in the working CRS. */
static void lattice_uv(const krg_sim *s, double x, double y, double *u, double *v)
{
    const double *gt = s->target.gt;
    *u = (x - gt[0]) / gt[1] - 0.5 - s->c0;
    *v = (y - gt[3]) / gt[5] - 0.5 - s->r0;
}

/* The lattice: the target's nodes extended to hold every sample with two
 * nodes to spare (the 4 x 4 stencils). */
static trv_status lattice(trv_ctx *ctx, krg_sim *s, int *n1, int *n2)
{
    const geo_grid *t = &s->target;
    double ulo = 0, uhi = t->nx - 1, vlo = 0, vhi = t->ny - 1;
    for (size_t i = 0; i < s->pts->n; i++) {
        double u, v;
        lattice_uv(s, s->pts->x[i], s->pts->y[i], &u, &v);
        ulo = fmin(ulo, u);
        uhi = fmax(uhi, u);
        vlo = fmin(vlo, v);
        vhi = fmax(vhi, v);
    }
    double c0 = floor(ulo) - 2, r0 = floor(vlo) - 2, c1 = ceil(uhi) + 2, r1 = ceil(vhi) + 2;
    if (c1 - c0 + 1 > 1 << 20 || r1 - r0 + 1 > 1 << 20)
        return trv_error(ctx, TRV_ERR_USAGE, "the samples spread over %.0f x %.0f target cells: too many to simulate",
                         c1 - c0 + 1, r1 - r0 + 1);
    s->c0 = (int)c0;
    s->r0 = (int)r0;
    *n1 = (int)(c1 - c0 + 1);
    *n2 = (int)(r1 - r0 + 1);
    return TRV_OK;
}

/* Cholesky of the n x n matrix a (lower, in place); -1 if not positive definite. */
static int cholesky(double *a, int n)
{
    for (int j = 0; j < n; j++) {
        double d = a[j * n + j];
        for (int k = 0; k < j; k++)
            d -= a[j * n + k] * a[j * n + k];
        if (!(d > 0))
            return -1;
        a[j * n + j] = sqrt(d);
        for (int i = j + 1; i < n; i++) {
            double acc = a[i * n + j];
            for (int k = 0; k < j; k++)
                acc -= a[i * n + k] * a[j * n + k];
            a[i * n + j] = acc / a[j * n + j];
        }
    }
    return 0;
}

/* Per sample: on a node, or the simple-kriging weights of the structured
 * part from its 4 x 4 nodes and the residual's standard deviation. The
 * nodes' covariance matrix is the same for every sample: one Cholesky
 * (with a 1e-10 psill ridge against Gau's near-singular matrices). */
static trv_status sample_weights(trv_ctx *ctx, krg_sim *s)
{
    const double dx = s->target.gt[1], dy = fabs(s->target.gt[5]);
    krg_model m0 = s->m;
    m0.nugget = 0;
    double L[NSK * NSK], c0[NSK];
    for (int a = 0; a < NSK; a++)
        for (int b = 0; b < NSK; b++)
            L[a * NSK + b] = m0.psill - krg_gamma(&m0, hypot((a % 4 - b % 4) * dx, (a / 4 - b / 4) * dy)) +
                             (a == b ? 1e-10 * m0.psill : 0);
    if (cholesky(L, NSK))
        return trv_error(ctx, TRV_ERR_DATA, "the model's covariance of 4 x 4 nodes is not positive definite");
    for (size_t i = 0; i < s->pts->n; i++) {
        double u, v;
        lattice_uv(s, s->pts->x[i], s->pts->y[i], &u, &v);
        double ru = round(u), rv = round(v);
        if (fabs(u - ru) < 1e-6 && fabs(v - rv) < 1e-6) {
            s->on_node[i] = 1;
            s->base[i] = (long)rv * s->ce.n1 + (long)ru;
            continue;
        }
        int cu = (int)floor(u) - 1, cv = (int)floor(v) - 1;
        s->base[i] = (long)cv * s->ce.n1 + cu;
        for (int a = 0; a < NSK; a++)
            c0[a] = m0.psill - krg_gamma(&m0, hypot((cu + a % 4 - u) * dx, (cv + a / 4 - v) * dy));
        double *w = s->w + i * NSK, y[NSK];
        for (int a = 0; a < NSK; a++) { /* L y = c0 */
            double acc = c0[a];
            for (int b = 0; b < a; b++)
                acc -= L[a * NSK + b] * y[b];
            y[a] = acc / L[a * NSK + a];
        }
        double r2 = m0.psill;
        for (int a = 0; a < NSK; a++)
            r2 -= y[a] * y[a];
        for (int a = NSK - 1; a >= 0; a--) { /* L' w = y */
            double acc = y[a];
            for (int b = a + 1; b < NSK; b++)
                acc -= L[b * NSK + a] * w[b];
            w[a] = acc / L[a * NSK + a];
        }
        s->rsd[i] = sqrt(fmax(r2, 0));
    }
    return TRV_OK;
}

trv_status krg_sim_new(trv_ctx *ctx, const krg_points *pts, krg_source **src, krg_index **ix, const krg_model *m,
                       const krg_opts *o, int allow_fast, const char *work_wkt, const geo_raster *pred,
                       uint64_t seed, double max_weights, krg_sim **out)
{
    const geo_grid *target = &pred->grid;
    *out = NULL;
    const double *gt = target->gt;
    if (!geo_crs_same(target->wkt, work_wkt) || gt[2] != 0 || gt[4] != 0)
        return trv_error(ctx, TRV_ERR_USAGE,
                         "simulation needs a north-up target grid in the working (projected) CRS: give a projected "
                         "--t_srs");
    krg_sim *s = calloc(1, sizeof *s);
    if (!s)
        return trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
    s->pts = pts;
    s->m = *m;
    s->o = *o;
    s->allow_fast = allow_fast;
    s->seed = seed;
    s->pair = -1;
    s->pred = pred->f32;
    if (src) {
        s->src = *src;
        *src = NULL;
    }
    s->ix = *ix;
    *ix = NULL;
    int n1 = 0, n2 = 0;
    trv_status st = geo_grid_copy(ctx, &s->target, target);
    if (!st && !(s->work_wkt = strdup(work_wkt)))
        st = trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
    if (!st)
        st = lattice(ctx, s, &n1, &n2);
    if (!st)
        st = krg_ce_init(ctx, &s->ce, m, n1, n2, gt[1], fabs(gt[5]), krg_ce_mem());
    size_t nn = (size_t)n1 * n2, np = pts->n;
    if (!st) {
        s->base = malloc(np * sizeof *s->base);
        s->on_node = calloc(np, 1);
        s->w = malloc(np * NSK * sizeof *s->w);
        s->rsd = malloc(np * sizeof *s->rsd);
        s->ud = malloc(np * sizeof *s->ud);
        s->fa = malloc(nn * sizeof *s->fa);
        s->fb = malloc(nn * sizeof *s->fb);
        s->u = malloc(nn * sizeof *s->u);
        if (!s->base || !s->on_node || !s->w || !s->rsd || !s->ud || !s->fa || !s->fb || !s->u)
            st = trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
    }
    if (!st && !(st = krg_points_new(ctx, np, &s->zp))) {
        memcpy(s->zp->x, pts->x, np * sizeof *pts->x);
        memcpy(s->zp->y, pts->y, np * sizeof *pts->y);
    }
    if (!st)
        st = sample_weights(ctx, s);
    if (!st)
        st = krg_simw_new(ctx, pts, s->src, s->ix, m, o, target, pred,
                          max_weights > 0 ? max_weights : KRG_SIMW_MAX_BYTES, &s->W);
    if (st) {
        krg_sim_free(s);
        return st;
    }
    *out = s;
    return TRV_OK;
}

void krg_sim_free(krg_sim *s)
{
    if (!s)
        return;
    if (s->src)
        s->src->pts = NULL;
    krg_source_free(s->src);
    krg_index_free(s->ix);
    free(s->work_wkt);
    geo_grid_clear(&s->target);
    krg_ce_free(&s->ce);
    free(s->base);
    free(s->on_node);
    free(s->w);
    free(s->rsd);
    free(s->ud);
    krg_simw_free(s->W);
    krg_points_free(s->zp);
    free(s->fa);
    free(s->fb);
    free(s->u);
    free(s);
}

double krg_sim_lost(const krg_sim *s)
{
    return s->ce.lost;
}

/* A stream's seed: (seed, k, tag) mixed (trv_rng_seed then splitmixes it). */
static uint64_t stream(uint64_t seed, uint64_t k, uint64_t tag)
{
    return seed ^ (0x9E3779B97F4A7C15ULL * (4 * k + tag + 1));
}

/* U of realisation k at the nodes (s->u) and the residuals z - U at the
 * samples (s->zp->z). */
static trv_status unconditional(trv_ctx *ctx, krg_sim *s, int k)
{
    long pair = k / 2;
    if (s->pair != pair) {
        trv_status st = krg_ce_draw(ctx, &s->ce, stream(s->seed, (uint64_t)pair, 0));
        if (!st)
            st = krg_ce_rows(ctx, &s->ce, 0, s->ce.n2, s->fa, s->fb);
        if (st)
            return st;
        s->pair = pair;
    }
    const double *f = k % 2 ? s->fb : s->fa;
    size_t nn = (size_t)s->ce.n1 * s->ce.n2;
    double sn = sqrt(s->m.nugget);
    trv_rng r;
    trv_rng_seed(&r, stream(s->seed, (uint64_t)k, 1));
    for (size_t i = 0; i < nn; i++)
        s->u[i] = f[i] + (sn > 0 ? sn * krg_normal(&r) : 0);
    trv_rng_seed(&r, stream(s->seed, (uint64_t)k, 2));
    for (size_t i = 0; i < s->pts->n; i++) {
        double ui;
        if (s->on_node[i]) {
            ui = s->u[s->base[i]];
        } else {
            const double *w = s->w + i * NSK;
            ui = 0;
            for (int a = 0; a < NSK; a++)
                ui += w[a] * f[s->base[i] + (long)(a / 4) * s->ce.n1 + a % 4];
            ui += s->rsd[i] * krg_normal(&r);
            if (sn > 0)
                ui += sn * krg_normal(&r);
        }
        s->ud[i] = ui;
        s->zp->z[i] = s->pts->z[i] - ui;
    }
    return TRV_OK;
}

/* Kept weights: Z_s = Z* + U - K[U] at every data cell of the DEM. */
static void from_weights(const krg_sim *s, float *out, double *field)
{
    const krg_simw *W = s->W;
    int nx = s->target.nx, ny = s->target.ny, k = W->k;
    for (int row = 0; row < ny; row++)
        for (int c = 0; c < nx; c++) {
            size_t i = (size_t)row * nx + c;
            double u = s->u[(size_t)(row - s->r0) * s->ce.n1 + (c - s->c0)];
            if (field)
                field[i] = u;
            if (s->pred[i] == NODATA) {
                out[i] = NODATA;
                continue;
            }
            const int32_t *ci = W->idx + i * k;
            const float *cw = W->w + i * k;
            double ku = 0;
            for (int a = 0; a < k; a++)
                ku += cw[a] * s->ud[ci[a]];
            out[i] = (float)(s->pred[i] + (u - ku));
        }
}

/* No weights kept: Z_s = U + K[z - U], kriged by krg_refine (raster
 * source) or krg_grid_points. */
static trv_status by_kriging(trv_ctx *ctx, krg_sim *s, float *out, double *field)
{
    geo_raster *P = NULL;
    trv_status st;
    if (s->src) {
        s->src->pts = s->zp;
        st = krg_refine(ctx, s->src, s->ix, &s->m, &s->o, &s->target, s->allow_fast, &P, NULL, NULL);
        s->src->pts = NULL;
    } else {
        st = krg_grid_points(ctx, s->zp, s->ix, &s->m, &s->o, s->work_wkt, &s->target, &P, NULL);
    }
    if (st)
        return st;
    int nx = s->target.nx, ny = s->target.ny;
    for (int row = 0; row < ny; row++)
        for (int c = 0; c < nx; c++) {
            size_t i = (size_t)row * nx + c;
            double u = s->u[(size_t)(row - s->r0) * s->ce.n1 + (c - s->c0)];
            if (field)
                field[i] = u;
            out[i] = geo_raster_is_nodata(P, i) || s->pred[i] == NODATA ? NODATA : (float)(u + P->f32[i]);
        }
    geo_raster_free(P);
    return TRV_OK;
}

trv_status krg_sim_get(trv_ctx *ctx, krg_sim *s, int k, float *out, double *field)
{
    if (k < 0)
        return trv_error(ctx, TRV_ERR_USAGE, "realisation %d: the first is 0", k);
    trv_status st = unconditional(ctx, s, k);
    if (st)
        return st;
    if (!s->W)
        return by_kriging(ctx, s, out, field);
    from_weights(s, out, field);
    return TRV_OK;
}

trv_status krg_sim_write(trv_ctx *ctx, krg_sim *s, int n, const char *path, const trv_meta *meta, int threads)
{
    size_t nc = (size_t)s->target.nx * s->target.ny;
    float *buf = malloc(nc * sizeof *buf);
    if (!buf)
        return trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
    geo_bands *b = NULL;
    trv_status st = geo_bands_open(ctx, path, &s->target, n, NODATA, "m", meta, threads, &b);
    for (int k = 0; k < n && !st; k++) {
        char desc[32];
        snprintf(desc, sizeof desc, "realisation %d", k + 1);
        if (!(st = krg_sim_get(ctx, s, k, buf, NULL)))
            st = geo_bands_put(ctx, b, k + 1, buf, desc);
    }
    trv_status st2 = geo_bands_close(ctx, b);
    free(buf);
    return st ? st : st2;
}

trv_status krg_sim_scale(trv_ctx *ctx, const krg_points *p, const krg_index *ix, const krg_model *m,
                         const krg_opts *o, double *scale)
{
    *scale = 1;
    size_t n = p->n < KRG_SIM_CV_POINTS ? p->n : KRG_SIM_CV_POINTS, stride = p->n / n;
    long *which = malloc(n * sizeof *which);
    double *pred = malloc(n * sizeof *pred), *var = malloc(n * sizeof *var), *obs = malloc(n * sizeof *obs);
    trv_status st = which && pred && var && obs ? TRV_OK : trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
    for (size_t i = 0; !st && i < n; i++) {
        which[i] = (long)(i * stride);
        obs[i] = p->z[which[i]];
    }
    if (!st && n >= 2 && !(st = krg_cv(ctx, p, ix, m, o, n, which, pred, var))) {
        krg_cv_stats cs;
        krg_cv_summary(obs, pred, var, n, &cs);
        if (isfinite(cs.msse) && cs.msse > 0)
            *scale = cs.msse;
    }
    free(which);
    free(pred);
    free(var);
    free(obs);
    return st;
}
