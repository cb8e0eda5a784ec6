/* Conditional simulation by conditioning unconditional fields by kriging
 * (sim.h; docs/method.md §1.11). */
#include "sim.h"
#include "core/tempfile.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define NODATA (-9999.0f)

enum { NSK = 16 }; /* a sample's structured value: simple kriging from 4 x 4 nodes */

/* Where the nugget's stream of a realisation stands in lattice row L:
 * before node (L, c). */
typedef struct noise_at {
    long L, c;
    trv_rng r;
} noise_at;

struct krg_sim {
    const krg_points *pts;  /* borrowed */
    krg_source *src;        /* borrowed (NULL: points input); its pts set only while kriging */
    const krg_index *ix;    /* borrowed */
    krg_model m;
    krg_opts o;
    int allow_fast;
    geo_grid target;
    uint64_t seed;
    /* the lattice: the target's, from column c0 and row r0 (<= 0), n1 x n2 nodes */
    int c0, r0;
    krg_ce ce;
    long *base;             /* per sample: its node (on_node) or the top-left of its 4 x 4 nodes */
    char *on_node;
    double *w, *rsd;        /* per sample: NSK weights, the residual's standard deviation */
    long *order;            /* the samples by their nodes' lattice tile, then node (then index) */
    geo_tiling lt;          /* the lattice's tiles (pass A) */
    int keep;               /* condition by kept weights (krg_simw_fits), else by kriging */
    krg_simw W;             /* keep: the weights of a window (W.x0, W.nx, W.y0 .. W.y1 - 1) */
    long pair;              /* the pair drawn (-1: none) */
    int nk;                 /* its realisations taken: 1 or 2 */
    double *ud[2];          /* per sample: U of the pair's realisations */
    krg_points zp[2];       /* the residuals z - U at the samples (z owned; x, y the samples') */
    krg_refiner *R[2];      /* not keep, raster source: the residuals' kriging */
    geo_ct *ct;             /* not keep, points: target -> working CRS */
    noise_at *ns[2];        /* the nugget's stream of each realisation where rows were left (noise_row) */
    int ncap;               /* their entries: rows L at L mod ncap */
    double *fa, *fb;        /* a window of the pair's lattice */
    size_t fcap;            /* their room, in values */
    double *nz, *urow;      /* a window row of nugget noise; of U */
    size_t rcap;            /* their room, in values */
    float *P;               /* not keep: a window of kriged residuals */
    size_t pcap;
    int kw;                 /* weights per cell (krg_simw_k) */
    double run_bytes;       /* kept weights in memory at a time: a sixteenth of max_weights */
    int cfd;                /* krg_sim_cache's scratch file (-1: none) */
    geo_tiling kept;        /* the tiling whose tiles it keeps, */
    int stored;             /* tiles 0 .. stored - 1 of them */
    size_t ccell;           /* bytes a cell there */
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

typedef struct okey {
    long tile, node, i;
} okey;

static int cmp_okey(const void *a, const void *b)
{
    const okey *x = a, *y = b;
    if (x->tile != y->tile)
        return (x->tile > y->tile) - (x->tile < y->tile);
    if (x->node != y->node)
        return (x->node > y->node) - (x->node < y->node);
    return (x->i > y->i) - (x->i < y->i);
}

/* The lattice tile (of s->lt) of node `node`. */
static long node_tile(const krg_sim *s, long node)
{
    long row = node / s->ce.n1, col = node % s->ce.n1;
    return row / s->lt.th * s->lt.ntx + col / s->lt.tw;
}

/* s->order: the samples by the lattice tile of their (top-left) node,
 * then that node, then index: pass A meets them tile by tile. */
static trv_status sample_order(trv_ctx *ctx, krg_sim *s)
{
    size_t np = s->pts->n;
    okey *key = malloc((np ? np : 1) * sizeof *key);
    if (!key)
        return trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
    for (size_t i = 0; i < np; i++)
        key[i] = (okey){node_tile(s, s->base[i]), s->base[i], (long)i};
    qsort(key, np, sizeof *key, cmp_okey);
    for (size_t i = 0; i < np; i++)
        s->order[i] = key[i].i;
    free(key);
    return TRV_OK;
}

static trv_status sim_alloc(trv_ctx *ctx, krg_sim *s)
{
    size_t np = s->pts->n;
    if (np > 0xFFFFFFFFu)
        return trv_error(ctx, TRV_ERR_USAGE, "%zu samples: too many to simulate", np);
    s->base = malloc(np * sizeof *s->base);
    s->on_node = calloc(np, 1);
    s->w = malloc(np * NSK * sizeof *s->w);
    s->rsd = malloc(np * sizeof *s->rsd);
    s->order = malloc(np * sizeof *s->order);
    trv_status st = s->base && s->on_node && s->w && s->rsd && s->order
                        ? TRV_OK
                        : trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
    for (int j = 0; j < 2 && !st; j++) { /* the kriging reads the residuals' x and y, never writes them */
        s->zp[j] = (krg_points){.n = np, .x = s->pts->x, .y = s->pts->y,
                                .z = malloc((np ? np : 1) * sizeof *s->zp[j].z)};
        if (!(s->ud[j] = malloc(np * sizeof *s->ud[j])) || !s->zp[j].z)
            st = trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
    }
    return st;
}

trv_status krg_sim_new(trv_ctx *ctx, const krg_points *pts, krg_source *src, const krg_index *ix, const krg_model *m,
                       const krg_opts *o, int allow_fast, const char *work_wkt, const geo_grid *target,
                       uint64_t seed, double max_weights, krg_sim **out)
{
    *out = NULL;
    const double *gt = target->gt;
    if (!geo_crs_same(target->wkt, work_wkt) || gt[2] != 0 || gt[4] != 0)
        return trv_error(ctx, TRV_ERR_USAGE,
                         "simulation needs a north-up target grid in the working (projected) CRS: give a projected "
                         "--t_srs");
    krg_sim *s = calloc(1, sizeof *s);
    if (!s)
        return trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
    const double budget = max_weights > 0 ? max_weights : KRG_SIMW_MAX_BYTES;
    *s = (krg_sim){.pts = pts, .src = src, .ix = ix, .m = *m, .o = *o, .allow_fast = allow_fast, .seed = seed,
                   .pair = -1, .cfd = -1, .kw = krg_simw_k(pts, o), .run_bytes = budget / 16,
                   .keep = krg_simw_fits(pts, o, target, budget)};
    int n1 = 0, n2 = 0;
    trv_status st = geo_grid_copy(ctx, &s->target, target);
    if (!st)
        st = lattice(ctx, s, &n1, &n2);
    if (!st)
        st = krg_ce_init(ctx, &s->ce, m, n1, n2, gt[1], fabs(gt[5]), krg_ce_mem());
    if (!st)
        st = sim_alloc(ctx, s);
    if (!st)
        st = sample_weights(ctx, s);
    if (!st) {
        s->lt = geo_tiling_make(n1, n2, geo_block_cols(), geo_block_rows());
        st = sample_order(ctx, s);
    }
    if (!st && !s->keep && !src)
        st = geo_ct_create(ctx, target->wkt, work_wkt, &s->ct);
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
    geo_grid_clear(&s->target);
    krg_ce_free(&s->ce);
    free(s->base);
    free(s->on_node);
    free(s->w);
    free(s->rsd);
    free(s->order);
    krg_simw_clear(&s->W);
    for (int j = 0; j < 2; j++) {
        free(s->ud[j]);
        free(s->zp[j].z);
        krg_refiner_free(s->R[j]);
    }
    geo_ct_free(s->ct);
    free(s->fa);
    free(s->fb);
    free(s->nz);
    free(s->urow);
    free(s->ns[0]);
    free(s->ns[1]);
    free(s->P);
    if (s->cfd >= 0)
        close(s->cfd);
    free(s);
}

double krg_sim_lost(const krg_sim *s)
{
    return s->ce.lost;
}

void krg_sim_torus(const krg_sim *s, int *m1, int *m2)
{
    *m1 = s->ce.m1;
    *m2 = s->ce.m2;
}

int krg_sim_keeps_weights(const krg_sim *s)
{
    return s->keep;
}

/* A stream's seed: (seed, k, tag) mixed (trv_rng_seed then splitmixes it). */
static uint64_t stream(uint64_t seed, uint64_t k, uint64_t tag)
{
    return seed ^ (0x9E3779B97F4A7C15ULL * (4 * k + tag + 1));
}

/* Room for n values of both fields' windows. */
static trv_status field_room(trv_ctx *ctx, krg_sim *s, size_t n)
{
    if (n <= s->fcap)
        return TRV_OK;
    free(s->fa);
    free(s->fb);
    s->fa = malloc(n * sizeof *s->fa);
    s->fb = malloc(n * sizeof *s->fb);
    s->fcap = s->fa && s->fb ? n : 0;
    return s->fcap ? TRV_OK : trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
}

/* Room for a window row of n cells (noise and U) and for the nugget's
 * streams of `rows` lattice rows (their places forgotten when it grows). */
static trv_status row_room(trv_ctx *ctx, krg_sim *s, size_t n, int rows)
{
    if (n > s->rcap) {
        free(s->nz);
        free(s->urow);
        s->nz = malloc(n * sizeof *s->nz);
        s->urow = malloc(n * sizeof *s->urow);
        s->rcap = s->nz && s->urow ? n : 0;
        if (!s->rcap)
            return trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
    }
    if (rows <= s->ncap)
        return TRV_OK;
    for (int j = 0; j < 2; j++) {
        free(s->ns[j]);
        s->ns[j] = malloc((size_t)rows * sizeof *s->ns[j]);
    }
    s->ncap = s->ns[0] && s->ns[1] ? rows : 0;
    for (int j = 0; j < 2 && s->ncap; j++)
        for (int i = 0; i < rows; i++)
            s->ns[j][i].L = -1;
    return s->ncap ? TRV_OK : trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
}

/* Nodes whose noise is drawn and dropped to reach a node ahead; a node
 * farther ahead, or behind, is reached by trv_rng_skip (64 products of a
 * 256-bit matrix and vector at most: about 16 000 nodes' draws). */
#define NOISE_DRAW_AHEAD 16384

/* The nugget's noise of nodes (L, c) .. (L, c + n - 1) of the pair's
 * realisation j into out: node by node in row-major order from the stream
 * (seed, k, 1), two draws a node (krg_normal), so node (L, c) starts at
 * draw 2 (L n1 + c). Where the stream was left in row L (else at the end
 * of row L - 1) is kept: a node a little ahead is drawn on to, any other
 * reached by trv_rng_skip from the stream's seed (the same deviates as
 * drawing the nodes before it). */
static void noise_row(krg_sim *s, int j, long L, long c, int n, double *out)
{
    const long n1 = s->ce.n1;
    noise_at *e = &s->ns[j][L % s->ncap], *up = &s->ns[j][(L + s->ncap - 1) % s->ncap];
    if ((e->L != L || e->c > c || c - e->c > NOISE_DRAW_AHEAD) && L > 0 && up->L == L - 1 &&
        n1 - up->c + c <= NOISE_DRAW_AHEAD) /* from the row above's place */
        *e = (noise_at){L, up->c - n1, up->r};
    if (e->L != L || e->c > c || c - e->c > NOISE_DRAW_AHEAD) {
        trv_rng_seed(&e->r, stream(s->seed, (uint64_t)(2 * s->pair + j), 1));
        trv_rng_skip(&e->r, 2 * ((uint64_t)L * (uint64_t)n1 + (uint64_t)c));
        e->L = L;
        e->c = c;
    }
    for (; e->c < c; e->c++) {
        trv_rng_next(&e->r);
        trv_rng_next(&e->r);
    }
    for (int i = 0; i < n; i++)
        out[i] = krg_normal(&e->r);
    e->c = c + n;
}

/* The off-node samples' deviates of the pair's realisation j, in sample
 * order from the stream (seed, k, 2): the residual's into ud[j], the
 * nugget's (sn > 0) into zp[j].z, where pass_a takes them. */
static void deviates(krg_sim *s, int j, double sn)
{
    trv_rng r;
    trv_rng_seed(&r, stream(s->seed, (uint64_t)(2 * s->pair + j), 2));
    for (size_t i = 0; i < s->pts->n; i++)
        if (!s->on_node[i]) {
            s->ud[j][i] = krg_normal(&r);
            if (sn > 0)
                s->zp[j].z[i] = krg_normal(&r);
        }
}

/* U at sample i of the pair's realisation j: f its field's window of the
 * lattice (b's first node, wd nodes a row: the sample's 4 x 4 nodes in
 * it), nz the nugget's noise of the sample's node when on one. */
static double sample_u(const krg_sim *s, size_t i, int j, const double *f, const geo_tile *b, int wd, double nz,
                       double sn)
{
    const long n1 = s->ce.n1;
    long at = (s->base[i] / n1 - b->y0) * wd + s->base[i] % n1 - b->x0;
    if (s->on_node[i])
        return f[at] + sn * nz;
    const double *w = s->w + i * NSK;
    double ui = 0;
    for (int a = 0; a < NSK; a++)
        ui += w[a] * f[at + (long)(a / 4) * wd + a % 4];
    ui += s->rsd[i] * s->ud[j][i];
    if (sn > 0)
        ui += sn * s->zp[j].z[i];
    return ui;
}

/* Pass A: U and the residuals z - U at every sample, the lattice read by
 * tiles (s->lt; each with the next 3 rows and columns: the 4 x 4 stencils'
 * reach), the samples met in s->order; tiles without samples not read. */
static trv_status pass_a(trv_ctx *ctx, krg_sim *s)
{
    const int n1 = s->ce.n1, n2 = s->ce.n2;
    const double sn = sqrt(s->m.nugget);
    const size_t np = s->pts->n;
    trv_status st = field_room(ctx, s, (size_t)(s->lt.tw + 3) * (s->lt.th + 3));
    if (!st)
        st = row_room(ctx, s, 1, s->lt.th);
    for (size_t at = 0; at < np && !st;) {
        long t = node_tile(s, s->base[s->order[at]]);
        geo_tile b = geo_tiling_tile(&s->lt, (int)t);
        int h = b.ny + 3 < n2 - b.y0 ? b.ny + 3 : n2 - b.y0, wd = b.nx + 3 < n1 - b.x0 ? b.nx + 3 : n1 - b.x0;
        if ((st = krg_ce_window(ctx, &s->ce, b.y0, h, b.x0, wd, s->fa, s->fb)))
            break;
        for (; at < np && node_tile(s, s->base[s->order[at]]) == t; at++) {
            size_t i = (size_t)s->order[at];
            for (int j = 0; j < s->nk; j++) {
                double nz = 0;
                if (sn > 0 && s->on_node[i])
                    noise_row(s, j, s->base[i] / n1, s->base[i] % n1, 1, &nz);
                double ui = sample_u(s, i, j, j ? s->fb : s->fa, &b, wd, nz, sn);
                s->ud[j][i] = ui;
                s->zp[j].z[i] = s->pts->z[i] - ui;
            }
        }
    }
    return st;
}

/* Not keep, raster source: the residuals' refiners of the pair. */
static trv_status residual_refiners(trv_ctx *ctx, krg_sim *s)
{
    trv_status st = TRV_OK;
    krg_points *held = s->src->pts;
    for (int j = 0; j < 2; j++) {
        krg_refiner_free(s->R[j]);
        s->R[j] = NULL;
        s->src->pts = &s->zp[j];
        if (j < s->nk && !st)
            st = krg_refiner_new(ctx, s->src, s->ix, &s->m, &s->o, &s->target, s->allow_fast, &s->R[j]);
    }
    s->src->pts = held;
    return st;
}

trv_status krg_sim_pair(trv_ctx *ctx, krg_sim *s, long p, int n)
{
    if (p < 0 || n < 1 || n > 2)
        return trv_error(ctx, TRV_ERR_USAGE, "pair %ld of %d realisations: the first is pair 0, of 1 or 2", p, n);
    s->pair = -1;
    trv_status st = krg_ce_draw(ctx, &s->ce, stream(s->seed, (uint64_t)p, 0));
    if (st)
        return st;
    s->pair = p;
    s->nk = n;
    for (int j = 0; j < n; j++) {
        deviates(s, j, sqrt(s->m.nugget));
        for (int i = 0; i < s->ncap; i++)
            s->ns[j][i].L = -1; /* the streams restarted at first use */
    }
    st = pass_a(ctx, s);
    if (!st && !s->keep && s->src)
        st = residual_refiners(ctx, s);
    if (st)
        s->pair = -1;
    return st;
}

/* U of the pair's realisation j on row `row` of window b into s->urow (f:
 * its lattice window, b's cells): the structured field plus the nugget's
 * noise of the node. */
static void target_u(krg_sim *s, int j, int row, const geo_tile *b, const double *f)
{
    const double sn = sqrt(s->m.nugget);
    const double *fr = f + (size_t)(row - b->y0) * b->nx;
    if (sn > 0)
        noise_row(s, j, row - s->r0, b->x0 - s->c0, b->nx, s->nz);
    for (int c = 0; c < b->nx; c++)
        s->urow[c] = fr[c] + (sn > 0 ? sn * s->nz[c] : 0);
}

/* Kept weights: Z_s = Z* + (U - K[U]) on rows y0 .. y1 - 1 of window b of
 * the pair's realisation j (pred, f and out: those rows of the window;
 * s->W holds their weights). */
static void rows_from_weights(krg_sim *s, int j, const geo_tile *b, int y0, int y1, const float *pred,
                              const double *f, float *out)
{
    const krg_simw *W = &s->W;
    const int nx = b->nx, k = W->k;
    geo_tile rows = {b->x0, y0, nx, y1 - y0};
    for (int row = y0; row < y1; row++) {
        target_u(s, j, row, &rows, f);
        for (int c = 0; c < nx; c++) {
            size_t i = (size_t)(row - y0) * nx + c;
            double u = s->urow[c];
            if (pred[i] == NODATA) {
                out[i] = NODATA;
                continue;
            }
            const int32_t *ci = W->idx + i * k;
            const float *cw = W->w + i * k;
            double ku = 0;
            for (int a = 0; a < k; a++)
                ku += cw[a] * s->ud[j][ci[a]];
            out[i] = (float)(pred[i] + (u - ku));
        }
    }
}

/* The residuals z - U of the pair's realisation j kriged on window b into
 * s->P (krg_refiner_window for a raster source, krg_grid_points_window). */
static trv_status residual_window(trv_ctx *ctx, krg_sim *s, int j, const geo_tile *b)
{
    size_t n = (size_t)b->nx * b->ny;
    if (n > s->pcap) {
        free(s->P);
        s->pcap = (s->P = malloc(n * sizeof *s->P)) ? n : 0;
        if (!s->P)
            return trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
    }
    if (!s->src)
        return krg_grid_points_window(ctx, &s->zp[j], s->ix, &s->m, &s->o, s->ct, &s->target, b->x0, b->y0, b->nx,
                                      b->ny, s->P, NULL);
    krg_points *held = s->src->pts;
    s->src->pts = &s->zp[j];
    trv_status st = krg_refiner_window(ctx, s->R[j], b->x0, b->y0, b->nx, b->ny, s->P, NULL);
    s->src->pts = held;
    return st;
}

/* No weights kept: Z_s = U + K[z - U] on window b of the pair's
 * realisation j. */
static trv_status window_by_kriging(trv_ctx *ctx, krg_sim *s, int j, const geo_tile *b, const float *pred,
                                    const double *f, float *out)
{
    trv_status st = residual_window(ctx, s, j, b);
    for (int row = b->y0; row < b->y0 + b->ny && !st; row++) {
        target_u(s, j, row, b, f);
        for (int c = 0; c < b->nx; c++) {
            size_t i = (size_t)(row - b->y0) * b->nx + c;
            double u = s->urow[c];
            out[i] = s->P[i] == NODATA || pred[i] == NODATA ? NODATA : (float)(u + s->P[i]);
        }
    }
    return st;
}

/* ---- the tiles kept for the later pairs (krg_sim_cache) ----------------- */

trv_status krg_sim_cache(trv_ctx *ctx, krg_sim *s, const char *dir, const geo_tiling *tl)
{
    int fd = trv_temp_fd(dir, ".trv-sim-cache"); /* unlinked: gone when closed, whatever happens */
    if (fd < 0)
        return trv_error(ctx, TRV_ERR_IO, "cannot create a scratch file in '%s': %s", dir, strerror(errno));
    if (s->cfd >= 0)
        close(s->cfd);
    s->cfd = fd;
    s->kept = *tl;
    s->stored = 0;
    s->ccell = (s->keep ? 8 * (size_t)s->kw : 0) + sizeof(float);
    return TRV_OK;
}

/* n bytes at offset at of the scratch file from (out) or into b. */
static trv_status cache_move(trv_ctx *ctx, const krg_sim *s, void *b, size_t n, off_t at, int out)
{
    errno = 0;
    if (trv_fd_move(s->cfd, b, n, at, out))
        return TRV_OK;
    return trv_error(ctx, TRV_ERR_IO, "cannot %s the realisations' scratch file: %s", out ? "write" : "read",
                     errno ? strerror(errno) : "it is shorter than written");
}

/* Window b's index among the kept tiling's tiles, -1 when it is none of
 * them (or nothing is kept). */
static int kept_tile(const krg_sim *s, const geo_tile *b)
{
    const geo_tiling *t = &s->kept;
    if (s->cfd < 0 || b->x0 % t->tw || b->y0 % t->th)
        return -1;
    int i = b->y0 / t->th * t->ntx + b->x0 / t->tw;
    geo_tile k = i < geo_tiling_count(t) ? geo_tiling_tile(t, i) : (geo_tile){-1, -1, -1, -1};
    return k.x0 == b->x0 && k.y0 == b->y0 && k.nx == b->nx && k.ny == b->ny ? i : -1;
}

enum { CACHE_W = 1, CACHE_PRED = 2 };

/* Rows y0 .. y1 - 1 of kept tile b to (out) or from the scratch file, row
 * by row: its weights (what & CACHE_W: s->W's, which holds these rows),
 * then its kriged values (what & CACHE_PRED: pred). The tiles of a
 * row-major tiling are laid out one after the other, each row by row: tile
 * b starts at cell y0 nx + x0 ny of the target's (nx its width; ny b's
 * height), its row r at r b.nx cells further. */
static trv_status cache_rows(trv_ctx *ctx, krg_sim *s, const geo_tile *b, int y0, int y1, int what, float *pred,
                             int out)
{
    const size_t nx = (size_t)b->nx, kn = s->keep ? nx * s->kw : 0;
    const off_t base = ((off_t)b->y0 * s->target.nx + (off_t)b->x0 * b->ny) * (off_t)s->ccell;
    trv_status st = TRV_OK;
    for (int r = y0; r < y1 && !st; r++) {
        off_t at = base + (off_t)(r - b->y0) * (off_t)(nx * s->ccell);
        size_t i = (size_t)(r - y0);
        if (what & CACHE_W) {
            st = cache_move(ctx, s, s->W.idx + i * kn, kn * sizeof *s->W.idx, at, out);
            if (!st)
                st = cache_move(ctx, s, s->W.w + i * kn, kn * sizeof *s->W.w, at + (off_t)(kn * 4), out);
        }
        if (!st && (what & CACHE_PRED))
            st = cache_move(ctx, s, pred + i * nx, nx * sizeof *pred, at + (off_t)(kn * 8), out);
    }
    return st;
}

trv_status krg_sim_pred_tile(trv_ctx *ctx, krg_sim *s, int x0, int y0, int nx, int ny, float *pred)
{
    geo_tile b = {x0, y0, nx, ny};
    int i = kept_tile(s, &b);
    if (i < 0 || i >= s->stored)
        return trv_error(ctx, TRV_ERR_USAGE, "kriged cells %d .. %d by %d .. %d are not a kept tile (%d are kept)",
                         x0, x0 + nx - 1, y0, y0 + ny - 1, s->stored);
    return cache_rows(ctx, s, &b, y0, y0 + ny, CACHE_PRED, pred, 0);
}

/* s->W for rows y0 .. y1 - 1 of window b: kept in the scratch file
 * (stored: b is a tile stored), else solved. */
static trv_status block_weights(trv_ctx *ctx, krg_sim *s, const geo_tile *b, int stored, int y0, int y1,
                                const float *pred)
{
    if (s->W.x0 == b->x0 && s->W.nx == b->nx && s->W.y0 == y0 && s->W.y1 == y1)
        return TRV_OK;
    if (!stored)
        return krg_simw_window(ctx, s->pts, s->src, s->ix, &s->m, &s->o, &s->target, b->x0, b->nx, y0, y1, pred,
                               &s->W);
    trv_status st = krg_simw_room(ctx, &s->W, s->kw, b->x0, b->nx, y0, y1);
    if (!st && !(st = cache_rows(ctx, s, b, y0, y1, CACHE_W, NULL, 0)))
        s->W.y1 = y1;
    return st;
}

/* Kept weights: window b by runs of rows whose weights take at most
 * s->run_bytes (or one row; the same bits: a cell's weights are its own),
 * each run's weights solved (or read back: ti < s->stored) once for the
 * pair and, when b is the next tile to keep (ti == s->stored), stored with
 * its kriged values. */
static trv_status window_kept(trv_ctx *ctx, krg_sim *s, const geo_tile *b, int ti, const float *pred, float *out[2])
{
    const size_t nx = (size_t)b->nx;
    const double per_row = (double)nx * s->kw * 8;
    const int run = per_row >= s->run_bytes ? 1 : s->run_bytes / per_row >= INT_MAX ? INT_MAX : (int)(s->run_bytes / per_row);
    const int y1 = b->y0 + b->ny, store = ti >= 0 && ti == s->stored;
    trv_status st = TRV_OK;
    for (int a = b->y0; a < y1 && !st; a += run) {
        int e = a + run < y1 ? a + run : y1;
        size_t o = (size_t)(a - b->y0) * nx;
        if (!(st = block_weights(ctx, s, b, ti >= 0 && ti < s->stored, a, e, pred + o)) && store)
            st = cache_rows(ctx, s, b, a, e, CACHE_W | CACHE_PRED, (float *)pred + o, 1);
        for (int j = 0; j < s->nk && !st; j++)
            if (out[j])
                rows_from_weights(s, j, b, a, e, pred + o, (j ? s->fb : s->fa) + o, out[j] + o);
    }
    if (!st && store)
        s->stored++;
    return st;
}

trv_status krg_sim_tile(trv_ctx *ctx, krg_sim *s, int x0, int y0, int nx, int ny, const float *pred, float *out[2])
{
    const geo_grid *t = &s->target;
    if (s->pair < 0 || x0 < 0 || y0 < 0 || nx < 1 || ny < 1 || x0 + nx > t->nx || y0 + ny > t->ny)
        return trv_error(ctx, TRV_ERR_USAGE, "realisation cells %d .. %d by %d .. %d of %d x %d (pair drawn: %ld)",
                         x0, x0 + nx - 1, y0, y0 + ny - 1, t->nx, t->ny, s->pair);
    geo_tile b = {x0, y0, nx, ny};
    const int ti = kept_tile(s, &b);
    trv_status st = field_room(ctx, s, (size_t)nx * ny);
    if (!st)
        st = row_room(ctx, s, (size_t)nx, ny);
    if (!st)
        st = krg_ce_window(ctx, &s->ce, y0 - s->r0, ny, x0 - s->c0, nx, s->fa, s->fb);
    if (!st && s->keep)
        return window_kept(ctx, s, &b, ti, pred, out);
    if (!st && ti >= 0 && ti == s->stored && !(st = cache_rows(ctx, s, &b, y0, y0 + ny, CACHE_PRED, (float *)pred, 1)))
        s->stored++;
    for (int j = 0; j < s->nk && !st; j++)
        if (out[j])
            st = window_by_kriging(ctx, s, j, &b, pred, j ? s->fb : s->fa, out[j]);
    return st;
}

trv_status krg_sim_get(trv_ctx *ctx, krg_sim *s, int k, const float *pred, float *out)
{
    if (k < 0)
        return trv_error(ctx, TRV_ERR_USAGE, "realisation %d: the first is 0", k);
    trv_status st = s->pair == k / 2 && s->nk == 2 ? TRV_OK : krg_sim_pair(ctx, s, k / 2, 2);
    float *o2[2] = {k % 2 ? NULL : out, k % 2 ? out : NULL};
    return st ? st : krg_sim_tile(ctx, s, 0, 0, s->target.nx, s->target.ny, pred, o2);
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
