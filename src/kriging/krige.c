/* Points, the neighbour index (core/bucket.h), per-target ordinary kriging and
 * leave-one-out cross-validation (docs/method.md §1.5–1.6). */
#define _GNU_SOURCE /* qsort_r */
#include "krige.h"
#include "krige_priv.h"

#include "core/bucket.h"

#include <cblas.h> /* OpenBLAS's: openblas_get_config */
#include <lapacke.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---- points ------------------------------------------------------------ */

trv_status krg_points_new(trv_ctx *ctx, size_t n, krg_points **out)
{
    *out = NULL;
    krg_points *p = calloc(1, sizeof *p);
    if (!p)
        return trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
    p->n = n;
    size_t m = n ? n : 1;
    p->x = malloc(m * sizeof *p->x);
    p->y = malloc(m * sizeof *p->y);
    p->z = malloc(m * sizeof *p->z);
    if (!p->x || !p->y || !p->z) {
        krg_points_free(p);
        return trv_error(ctx, TRV_ERR_NOMEM, "out of memory for %zu points", n);
    }
    *out = p;
    return TRV_OK;
}

void krg_points_free(krg_points *p)
{
    if (!p)
        return;
    free(p->x);
    free(p->y);
    free(p->z);
    free(p);
}

/* ---- neighbour index: core's bucket grid, gstat's tie order --------------- */

struct krg_index {
    const krg_points *p;
    trv_bucket *b;
};

static int cmp_xy(const void *a, const void *b, void *pts)
{
    const krg_points *p = pts;
    long i = *(const long *)a, j = *(const long *)b;
    if (p->x[i] != p->x[j])
        return p->x[i] < p->x[j] ? -1 : 1;
    if (p->y[i] != p->y[j])
        return p->y[i] < p->y[j] ? -1 : 1;
    return (i > j) - (i < j);
}

/* Duplicates share a bucket: sort each bucket by (x, y) and compare neighbours. */
static trv_status check_duplicates(trv_ctx *ctx, const krg_index *ix)
{
    const krg_points *p = ix->p;
    long *o = malloc(p->n * sizeof *o);
    if (!o)
        return trv_error(ctx, TRV_ERR_NOMEM, "out of memory for the neighbour index");
    trv_status st = TRV_OK;
    for (size_t b = 0, nb = trv_bucket_count(ix->b); b < nb && !st; b++) {
        size_t m;
        const long *items = trv_bucket_items(ix->b, b, &m);
        if (m < 2)
            continue;
        memcpy(o, items, m * sizeof *o);
        qsort_r(o, m, sizeof *o, cmp_xy, (void *)p);
        for (size_t k = 1; k < m && !st; k++)
            if (p->x[o[k]] == p->x[o[k - 1]] && p->y[o[k]] == p->y[o[k - 1]])
                st = trv_error(ctx, TRV_ERR_DATA,
                               "duplicate points %ld and %ld at (%.3f, %.3f): the kriging system would "
                               "be singular; remove or average them",
                               o[k - 1], o[k], p->x[o[k]], p->y[o[k]]);
    }
    free(o);
    return st;
}

trv_status krg_index_new(trv_ctx *ctx, const krg_points *p, krg_index **out)
{
    *out = NULL;
    if (p->n == 0)
        return trv_error(ctx, TRV_ERR_DATA, "no points to krige from");
    for (size_t i = 0; i < p->n; i++)
        if (!isfinite(p->x[i]) || !isfinite(p->y[i]) || !isfinite(p->z[i]))
            return trv_error(ctx, TRV_ERR_DATA, "point %zu is not finite (%g, %g, %g)", i, p->x[i], p->y[i], p->z[i]);
    krg_index *ix = calloc(1, sizeof *ix);
    if (!ix || !(ix->b = trv_bucket_new(p->x, p->y, p->n, 1))) {
        free(ix);
        return trv_error(ctx, TRV_ERR_NOMEM, "out of memory for the neighbour index");
    }
    ix->p = p;
    trv_status st = check_duplicates(ctx, ix);
    if (st) {
        krg_index_free(ix);
        return st;
    }
    *out = ix;
    return TRV_OK;
}

void krg_index_free(krg_index *ix)
{
    if (!ix)
        return;
    trv_bucket_free(ix->b);
    free(ix);
}

int krg_index_nearest(const krg_index *ix, double x, double y, int k, double maxdist, long skip, long *idx,
                      double *d2)
{
    return trv_bucket_nearest(ix->b, x, y, k, maxdist, skip, idx, d2);
}

/* ---- kriging systems ---------------------------------------------------- */

void krg_opts_init(krg_opts *o)
{
    o->nmax = 16;
    o->maxdist = INFINITY;
    o->threads = 0;
    o->et = 0;
}

int krg_threads(int requested)
{
    if (requested > 0)
        return requested;
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? (int)n : 1;
}

void krg_sys_free(krg_sys *s)
{
    if (!s)
        return;
    free(s->idx);
    free(s->a);
    free(s->ipiv);
    free(s->rhs);
    free(s->g);
    free(s->work);
    memset(s, 0, sizeof *s);
}

trv_status krg_sys_init(trv_ctx *ctx, krg_sys *s, int cap)
{
    memset(s, 0, sizeof *s);
    s->cap = cap;
    size_t m = (size_t)cap + 1;
    s->idx = malloc(m * sizeof *s->idx);
    s->a = malloc(m * m * sizeof *s->a);
    s->ipiv = malloc(m * sizeof *s->ipiv);
    s->rhs = malloc(m * sizeof *s->rhs);
    s->g = malloc(m * sizeof *s->g);
    s->n = -1;
    /* dsytrf's optimal workspace for the largest system: with at least that
     * much it takes the same (blocked or not) path as the per-call query
     * LAPACKE_dsytrf makes, so the factors are the same to the bit */
    double q = 0;
    lapack_int info = s->a ? LAPACKE_dsytrf_work(LAPACK_COL_MAJOR, 'L', (lapack_int)m, s->a, (lapack_int)m,
                                                 s->ipiv, &q, -1)
                           : -1;
    s->lwork = info == 0 && q >= 1 ? (lapack_int)q : (lapack_int)m * 64;
    s->work = malloc((size_t)s->lwork * sizeof *s->work);
    if (!s->idx || !s->a || !s->ipiv || !s->rhs || !s->g || !s->work) {
        krg_sys_free(s);
        return trv_error(ctx, TRV_ERR_NOMEM, "out of memory for a %d-point kriging system", cap);
    }
    return TRV_OK;
}

/* Factorise the (n+1) x (n+1) ordinary-kriging matrix of the points
 * idx[0..n-1] (column-major, symmetric indefinite: LDL' with pivoting).
 * Returns 0, or -1 if it is singular. */
int krg_sys_factor(krg_sys *s, const krg_points *p, const krg_model *m, const long *idx, int n)
{
    int N = n + 1;
    memcpy(s->idx, idx, (size_t)n * sizeof *idx);
    for (int j = 0; j < n; j++) {
        double xj = p->x[idx[j]], yj = p->y[idx[j]];
        for (int i = j; i < n; i++) {
            double dx = p->x[idx[i]] - xj, dy = p->y[idx[i]] - yj;
            double gij = i == j ? 0 : krg_gamma(m, sqrt(dx * dx + dy * dy));
            if (isnan(gij)) /* what LAPACKE's NaN check refused */
                return s->n = -1, -1;
            s->a[(size_t)j * N + i] = gij;
        }
        s->a[(size_t)j * N + n] = 1;
    }
    s->a[(size_t)n * N + n] = 0;
    s->n = n;
    /* the _work entry points: no workspace query, no allocation and no NaN
     * scan per call (the scan is done above while filling) */
    lapack_int info = LAPACKE_dsytrf_work(LAPACK_COL_MAJOR, 'L', N, s->a, N, s->ipiv, s->work, s->lwork);
    if (info != 0) {
        s->n = -1;
        return -1;
    }
    return 0;
}

/* Weights for target (x, y) from the factorised system into s->rhs
 * (w[0..n-1], mu); returns the kriging variance. */
double krg_sys_solve(krg_sys *s, const krg_points *p, const krg_model *m, double x, double y)
{
    int n = s->n, N = n + 1;
    for (int i = 0; i < n; i++) {
        double dx = p->x[s->idx[i]] - x, dy = p->y[s->idx[i]] - y;
        s->rhs[i] = krg_gamma(m, sqrt(dx * dx + dy * dy));
    }
    s->rhs[n] = 1;
    memcpy(s->g, s->rhs, (size_t)N * sizeof *s->g);
    LAPACKE_dsytrs_work(LAPACK_COL_MAJOR, 'L', N, 1, s->a, N, s->ipiv, s->rhs, N);
    double var = 0;
    for (int i = 0; i < N; i++)
        var += s->rhs[i] * s->g[i];
    return var;
}

static int cmp_long(const void *a, const void *b)
{
    long x = *(const long *)a, y = *(const long *)b;
    return (x > y) - (x < y);
}

/* ---- per-target kriging, threaded ---------------------------------------- */

typedef struct job {
    const krg_points *p;
    const krg_index *ix;
    const krg_model *m;
    const krg_opts *o;
    size_t n;
    const double *tx, *ty;  /* targets (predict) */
    const long *which;      /* points to leave out (cv); NULL with tx: predict */
    const krg_cv_sets *sets; /* cv: the neighbour sets, searched once (NULL: search) */
    int cv;
    double *pred, *var;
    int nmax;
    int cov;                /* sets given and a model with a sill: loo_cov() first */
    int avx;                /* krg_chol_avx() */
    size_t next;            /* next chunk, shared */
    pthread_mutex_t lock;
    int singular;           /* first failure */
    size_t bad_target;
} job;

enum { CHUNK = 64 }; /* targets a thread takes at a time: small, so that threads finish together */

/* Leave-one-out prediction at (x, y) from the n points idx in the
 * covariance form (docs/method.md §1.5, §1.7), sill s: C = s 11' - G
 * (C_ii = s) = L L' (krg_chol), u = L^-1 1, v = L^-1 z, y = L^-1 (s - g0),
 * s11 = u'u, beta = u'v / s11, z* = beta + y'(v - beta u),
 * sigma^2 = s - y'y + (1 - u'y)^2 / s11. W holds n (n + 4) doubles.
 * Returns 0, or -1 when a pivot is <= 1e-8 s (the caller then pivots):
 * C's entries carry rounding of about 1e-16 s, so a smaller pivot would
 * leave its column only a few digits (a Gau range of many sample
 * spacings), where the variogram form's LDL' keeps them. */
static int loo_cov(const krg_points *p, const krg_model *m, double s, const long *idx, int n, double x, double y,
                   const double *h, int avx, double *W, double *pred, double *var)
{
    double *r = W + (size_t)n * n, *u = r + n, *v = u + n, *c = v + n;
    if (h) { /* krg_cv_sets_dist's distances */
        const double *hp = h + n;
        for (int j = 0; j < n; j++) {
            double *wj = W + (size_t)j * n;
            wj[j] = s;
            for (int i = j + 1; i < n; i++)
                wj[i] = s - krg_gamma(m, *hp++);
            u[j] = 1;
            v[j] = p->z[idx[j]];
            c[j] = s - krg_gamma(m, h[j]);
        }
    } else {
        for (int j = 0; j < n; j++) {
            double xj = p->x[idx[j]], yj = p->y[idx[j]], *wj = W + (size_t)j * n;
            wj[j] = s;
            for (int i = j + 1; i < n; i++) {
                double dx = p->x[idx[i]] - xj, dy = p->y[idx[i]] - yj;
                wj[i] = s - krg_gamma(m, sqrt(dx * dx + dy * dy));
            }
            double dx = xj - x, dy = yj - y;
            u[j] = 1;
            v[j] = p->z[idx[j]];
            c[j] = s - krg_gamma(m, sqrt(dx * dx + dy * dy));
        }
    }
    if (krg_chol(W, n, 1e-8 * s, r, avx) != 0)
        return -1;
    krg_chol_fwd(W, n, r, u, avx);
    krg_chol_fwd(W, n, r, v, avx);
    krg_chol_fwd(W, n, r, c, avx);
    double s11 = 0, s1z = 0;
    for (int i = 0; i < n; i++) {
        s11 += u[i] * u[i];
        s1z += u[i] * v[i];
    }
    double beta = s1z / s11, z = beta, q = 0, t = 0;
    for (int i = 0; i < n; i++) {
        z += c[i] * (v[i] - beta * u[i]);
        q += c[i] * c[i];
        t += u[i] * c[i];
    }
    if (!isfinite(z))
        return -1;
    *pred = z;
    *var = s - q + (1 - t) * (1 - t) / s11;
    return 0;
}

/* krg_cv_sets_dist's doubles per set. */
static size_t sets_stride(int k)
{
    return (size_t)k + (size_t)k * (k - 1) / 2;
}

static void *worker(void *arg)
{
    job *J = arg;
    krg_sys s;
    trv_ctx *scratch = trv_ctx_new();
    int k = J->nmax;
    long *idx = malloc((size_t)k * sizeof *idx);
    double *d2 = malloc((size_t)k * sizeof *d2);
    double *W = J->cov ? malloc((size_t)k * (k + 4) * sizeof *W) : NULL;
    if (!scratch || !idx || !d2 || (J->cov && !W) || krg_sys_init(scratch, &s, k) != TRV_OK) {
        pthread_mutex_lock(&J->lock);
        J->singular = 2;
        pthread_mutex_unlock(&J->lock);
        free(idx);
        free(d2);
        free(W);
        trv_ctx_free(scratch);
        return NULL;
    }
    for (;;) {
        pthread_mutex_lock(&J->lock);
        size_t a = J->next;
        J->next += CHUNK;
        int stop = J->singular;
        pthread_mutex_unlock(&J->lock);
        if (a >= J->n || stop)
            break;
        size_t b = a + CHUNK < J->n ? a + CHUNK : J->n;
        for (size_t t = a; t < b; t++) {
            double x, y;
            long skip = -1;
            if (J->cv) {
                skip = J->which ? J->which[t] : (long)t;
                x = J->p->x[skip];
                y = J->p->y[skip];
            } else {
                x = J->tx[t];
                y = J->ty[t];
            }
            int n;
            if (J->sets) { /* already searched and sorted */
                n = J->sets->cnt[t];
                memcpy(idx, J->sets->idx + t * (size_t)J->sets->k, (size_t)n * sizeof *idx);
            } else {
                n = krg_index_nearest(J->ix, x, y, k, J->o->maxdist, skip, idx, d2);
            }
            if (n == 0) {
                J->pred[t] = NAN;
                if (J->var)
                    J->var[t] = NAN;
                continue;
            }
            double zc, vc;
            const double *h = J->sets && J->sets->h ? J->sets->h + t * sets_stride(J->sets->k) : NULL;
            if (J->cov && loo_cov(J->p, J->m, J->m->nugget + J->m->psill, idx, n, x, y, h, J->avx, W, &zc, &vc) == 0) {
                J->pred[t] = zc;
                if (J->var)
                    J->var[t] = vc;
                continue;
            }
            /* a canonical order, so that the same set reuses its factorisation */
            if (!J->sets)
                qsort(idx, (size_t)n, sizeof *idx, cmp_long);
            if (n != s.n || memcmp(idx, s.idx, (size_t)n * sizeof *idx) != 0) {
                if (krg_sys_factor(&s, J->p, J->m, idx, n) != 0) {
                    pthread_mutex_lock(&J->lock);
                    if (!J->singular) {
                        J->singular = 1;
                        J->bad_target = t;
                    }
                    pthread_mutex_unlock(&J->lock);
                    break;
                }
            }
            double v = krg_sys_solve(&s, J->p, J->m, x, y), z = 0;
            for (int i = 0; i < n; i++)
                z += s.rhs[i] * J->p->z[s.idx[i]];
            J->pred[t] = z;
            if (J->var)
                J->var[t] = v;
        }
    }
    krg_sys_free(&s);
    free(idx);
    free(d2);
    free(W);
    trv_ctx_free(scratch);
    return NULL;
}

static trv_status run(trv_ctx *ctx, job *J)
{
    long np = (long)J->p->n - (J->cv ? 1 : 0);
    J->nmax = J->o->nmax <= 0 || J->o->nmax > np ? (int)np : J->o->nmax;
    if (J->nmax <= 0)
        return trv_error(ctx, TRV_ERR_DATA, "kriging needs at least %d points", J->cv ? 2 : 1);
    if (J->nmax > 20000)
        return trv_error(ctx, TRV_ERR_USAGE, "a kriging system of %d points is too large; limit --nmax", J->nmax);
    pthread_mutex_init(&J->lock, NULL);
    int nt = krg_threads(J->o->threads);
    if ((size_t)nt > J->n / CHUNK + 1)
        nt = (int)(J->n / CHUNK + 1);
    pthread_t th[256];
    if (nt > 256)
        nt = 256;
    int started = 0;
    for (int i = 1; i < nt; i++)
        if (pthread_create(&th[i], NULL, worker, J) == 0)
            started = i;
        else
            break;
    worker(J);
    for (int i = 1; i <= started; i++)
        pthread_join(th[i], NULL);
    pthread_mutex_destroy(&J->lock);
    if (J->singular == 2)
        return trv_error(ctx, TRV_ERR_NOMEM, "out of memory for kriging systems");
    if (J->singular) {
        double x = J->cv ? J->p->x[J->which ? J->which[J->bad_target] : (long)J->bad_target] : J->tx[J->bad_target];
        double y = J->cv ? J->p->y[J->which ? J->which[J->bad_target] : (long)J->bad_target] : J->ty[J->bad_target];
        return trv_error(ctx, TRV_ERR_DATA,
                         "singular kriging system near (%.3f, %.3f): coincident points, or a model without "
                         "structure (psill 0)",
                         x, y);
    }
    return TRV_OK;
}

trv_status krg_predict(trv_ctx *ctx, const krg_points *p, const krg_index *ix, const krg_model *m,
                       const krg_opts *o, size_t n, const double *tx, const double *ty, double *pred, double *var)
{
    job J = {.p = p, .ix = ix, .m = m, .o = o, .n = n, .tx = tx, .ty = ty, .pred = pred, .var = var};
    return run(ctx, &J);
}

trv_status krg_cv(trv_ctx *ctx, const krg_points *p, const krg_index *ix, const krg_model *m, const krg_opts *o,
                  size_t n, const long *which, double *pred, double *var)
{
    job J = {.p = p, .ix = ix, .m = m, .o = o, .n = which ? n : p->n, .which = which, .cv = 1, .pred = pred,
             .var = var};
    return run(ctx, &J);
}

void krg_cv_sets_free(krg_cv_sets *s)
{
    if (!s)
        return;
    free(s->idx);
    free(s->cnt);
    free(s->h);
    free(s);
}

trv_status krg_cv_sets_new(trv_ctx *ctx, const krg_points *p, const krg_index *ix, const krg_opts *o, size_t n,
                           const long *which, krg_cv_sets **out)
{
    *out = NULL;
    long np = (long)p->n - 1;
    int k = o->nmax <= 0 || o->nmax > np ? (int)np : o->nmax;
    if (k <= 0 || k > 64)
        return TRV_OK; /* too few points (krg_cv says so), or sets too large to keep */
    krg_cv_sets *s = calloc(1, sizeof *s);
    double *d2 = malloc((size_t)k * sizeof *d2);
    if (!s || !d2 || !(s->idx = malloc(n * (size_t)k * sizeof *s->idx)) || !(s->cnt = malloc(n * sizeof *s->cnt))) {
        free(d2);
        krg_cv_sets_free(s);
        return trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
    }
    s->k = k;
    s->n = n;
    for (size_t t = 0; t < n; t++) {
        long *idx = s->idx + t * (size_t)k, skip = which ? which[t] : (long)t;
        s->cnt[t] = krg_index_nearest(ix, p->x[skip], p->y[skip], k, o->maxdist, skip, idx, d2);
        qsort(idx, (size_t)s->cnt[t], sizeof *idx, cmp_long);
    }
    free(d2);
    *out = s;
    return TRV_OK;
}

trv_status krg_cv_sets_dist(trv_ctx *ctx, const krg_points *p, krg_cv_sets *s, const long *which)
{
    size_t stride = sets_stride(s->k);
    free(s->h);
    if (!(s->h = malloc(s->n * stride * sizeof *s->h)))
        return trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
    for (size_t t = 0; t < s->n; t++) {
        const long *idx = s->idx + t * (size_t)s->k, pt = which ? which[t] : (long)t;
        double *h = s->h + t * stride, *hp = h + s->cnt[t];
        for (int j = 0; j < s->cnt[t]; j++) {
            double xj = p->x[idx[j]], yj = p->y[idx[j]];
            for (int i = j + 1; i < s->cnt[t]; i++) {
                double dx = p->x[idx[i]] - xj, dy = p->y[idx[i]] - yj;
                *hp++ = sqrt(dx * dx + dy * dy);
            }
            double dx = xj - p->x[pt], dy = yj - p->y[pt];
            h[j] = sqrt(dx * dx + dy * dy);
        }
    }
    return TRV_OK;
}

trv_status krg_cv_with(trv_ctx *ctx, const krg_points *p, const krg_index *ix, const krg_model *m,
                       const krg_opts *o, size_t n, const long *which, const krg_cv_sets *sets, double *pred,
                       double *var)
{
    double sill = m->nugget + m->psill;
    job J = {.p = p, .ix = ix, .m = m, .o = o, .n = which ? n : p->n, .which = which, .sets = sets, .cv = 1,
             .pred = pred, .var = var, .cov = sets && m->type != KRG_POW && isfinite(sill) && sill > 0,
             .avx = krg_chol_avx()};
    return run(ctx, &J);
}

const char *krg_lapack_version(char *buf, size_t n)
{
    lapack_int major = 0, minor = 0, patch = 0;
    LAPACKE_ilaver(&major, &minor, &patch);
    snprintf(buf, n, "%d.%d.%d", (int)major, (int)minor, (int)patch);
    return buf;
}

const char *krg_blas_version(void)
{
    return openblas_get_config();
}
