/* Model choice: fit every candidate, keep the best by leave-one-out RMSE. */
#include "krige_priv.h"

#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

void krg_choice_opts_init(krg_choice_opts *o)
{
    memset(o, 0, sizeof *o);
    o->method = KRG_FIT_NH_H2;
    o->vgm_points = 3000;
    o->cv_points = 1000;
    o->seed = 1;
    o->only = -1;
    o->kappa = NAN; /* Matern: 1.5 */
}

void krg_cv_summary(const double *obs, const double *pred, const double *var, size_t n, krg_cv_stats *out)
{
    memset(out, 0, sizeof *out);
    double se = 0, ae = 0, e = 0, sse = 0;
    size_t k = 0, kv = 0;
    for (size_t i = 0; i < n; i++) {
        if (!isfinite(pred[i]))
            continue;
        double d = pred[i] - obs[i];
        se += d * d;
        ae += fabs(d);
        e += d;
        k++;
        if (var && var[i] > 0) {
            sse += d * d / var[i];
            kv++;
        }
    }
    out->n = k;
    if (k) {
        out->rmse = sqrt(se / k);
        out->mae = ae / k;
        out->me = e / k;
    }
    out->msse = kv ? sse / kv : NAN;
}

/* m distinct indices of 0..n-1 (all when m == 0 or m >= n), sorted. */
static long *subsample(size_t n, size_t m, uint64_t seed, size_t *count)
{
    if (m == 0 || m > n)
        m = n;
    long *all = malloc(n * sizeof *all);
    if (!all)
        return NULL;
    for (size_t i = 0; i < n; i++)
        all[i] = (long)i;
    trv_rng s;
    trv_rng_seed(&s, seed ^ 0x6B72696765ull); /* "krige": keep this stream apart from others using the seed */
    for (size_t i = 0; i < m && m < n; i++) {
        size_t j = i + (size_t)trv_rng_below(&s, n - i);
        long t = all[i];
        all[i] = all[j];
        all[j] = t;
    }
    for (size_t i = 1; i < m; i++) /* sorted: deterministic and cache-friendly CV order */
        for (size_t j = i; j > 0 && all[j] < all[j - 1]; j--) {
            long t = all[j];
            all[j] = all[j - 1];
            all[j - 1] = t;
        }
    *count = m;
    return all;
}

/* Median distance to the nearest other point, over a subsample. */
static double median_spacing(const krg_points *p, const krg_index *ix, const long *which, size_t n)
{
    double *d = malloc(n * sizeof *d);
    if (!d)
        return NAN;
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        long idx;
        double d2;
        if (krg_index_nearest(ix, p->x[which[i]], p->y[which[i]], 1, INFINITY, which[i], &idx, &d2) == 1)
            d[k++] = sqrt(d2);
    }
    double med = NAN;
    if (k) {
        qsort(d, k, sizeof *d, trv_cmp_double);
        med = d[k / 2];
    }
    free(d);
    return med;
}

/* A short-lag sample variogram of dense data: every pair between a seeded
 * subsample of anchor points and all points within the cutoff, found
 * through the index (gstat's lag assignment: floor(d / width), d <= cutoff).
 * A plain point subsample would leave almost no pairs this short. */
static trv_status short_variogram(trv_ctx *ctx, const krg_points *p, const krg_index *ix, double cutoff,
                                  const long *anchors, size_t nanchors, krg_vgm **out)
{
    enum { NLAGS = 15 };
    *out = NULL;
    double width = cutoff / NLAGS;
    long np[NLAGS] = {0};
    double sd[NLAGS] = {0}, sg[NLAGS] = {0};
    int k = 64;
    long *idx = NULL;
    double *d2 = NULL;
    for (size_t a = 0; a < nanchors; a++) {
        long i = anchors[a];
        int n;
        for (;;) { /* grow k until every point within the cutoff is in */
            if (!idx) {
                idx = malloc((size_t)k * sizeof *idx);
                d2 = malloc((size_t)k * sizeof *d2);
                if (!idx || !d2) {
                    free(idx);
                    free(d2);
                    return trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
                }
            }
            n = krg_index_nearest(ix, p->x[i], p->y[i], k, cutoff, i, idx, d2);
            if (n < k || (size_t)k >= p->n)
                break;
            free(idx);
            free(d2);
            idx = NULL;
            d2 = NULL;
            k *= 2;
        }
        for (int q = 0; q < n; q++) {
            double d = sqrt(d2[q]);
            int lag = d > 0 ? (int)ceil(d / width) - 1 : 0; /* gstat's (k w, (k+1) w] */
            if (lag >= NLAGS)
                lag = NLAGS - 1;
            double dz = p->z[i] - p->z[idx[q]];
            np[lag]++;
            sd[lag] += d;
            sg[lag] += 0.5 * dz * dz;
        }
    }
    free(idx);
    free(d2);
    krg_vgm *v = calloc(1, sizeof *v);
    if (!v || !(v->np = malloc(NLAGS * sizeof *v->np)) || !(v->dist = malloc(NLAGS * sizeof *v->dist)) ||
        !(v->gamma = malloc(NLAGS * sizeof *v->gamma))) {
        krg_vgm_free(v);
        return trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
    }
    v->cutoff = cutoff;
    v->width = width;
    v->npoints = nanchors;
    for (int l = 0; l < NLAGS; l++)
        if (np[l]) {
            v->np[v->nlags] = np[l];
            v->dist[v->nlags] = sd[l] / np[l];
            v->gamma[v->nlags] = sg[l] / np[l];
            v->nlags++;
        }
    if (v->nlags < 3) {
        krg_vgm_free(v);
        return trv_error(ctx, TRV_ERR_DATA, "too few short pairs for a short-lag variogram");
    }
    *out = v;
    return TRV_OK;
}

/* Leave-one-out RMSE of model m on the points `which`; NAN if a system
 * could not be solved. Only allocation failure and cancel are errors. */
static trv_status cv_rmse(trv_ctx *ctx, const krg_points *p, const krg_index *ix, const krg_model *m,
                          const krg_opts *ko, const long *which, size_t n, const krg_cv_sets *sets,
                          const double *obs, double *pred, double *rmse)
{
    *rmse = NAN;
    trv_status st = krg_cv_with(ctx, p, ix, m, ko, n, which, sets, pred, NULL);
    if (st == TRV_ERR_NOMEM || st == TRV_ERR_CANCEL)
        return st;
    if (st == TRV_OK) {
        krg_cv_stats cs;
        krg_cv_summary(obs, pred, NULL, n, &cs);
        if (cs.n > 0)
            *rmse = cs.rmse;
    }
    return TRV_OK;
}

/* The exact-interpolator variant of a fitted model: nugget 0 (the sill
 * kept), and its one shape parameter (range; for Pow the exponent) tuned
 * by golden-section search on the leave-one-out RMSE. Without a nugget the
 * kriging weights do not depend on the sill, so the shape parameter is all
 * that matters, and LOOCV is the criterion the choice uses anyway. */
static trv_status tune_exact(trv_ctx *ctx, const krg_points *p, const krg_index *ix, const krg_opts *ko,
                             const long *which, size_t n, const krg_cv_sets *sets, const double *obs, double *pred,
                             krg_candidate *c)
{
    krg_model m = c->model;
    m.psill += m.nugget;
    m.nugget = 0;
    int pow = m.type == KRG_POW;
    /* search log(range) over a decade each way, or the exponent over (0.05, 1.99] */
    double lo = pow ? 0.05 : log(m.range / 10), hi = pow ? 1.99 : log(m.range * 10);
    const double g = 0.6180339887498949;
    double a = lo, b = hi, x1 = b - g * (b - a), x2 = a + g * (b - a), f1, f2;
    trv_status st;
#define EVAL(x, f)                                                                         \
    do {                                                                                   \
        m.range = pow ? (x) : exp(x);                                                      \
        if ((st = cv_rmse(ctx, p, ix, &m, ko, which, n, sets, obs, pred, &(f))))           \
            return st;                                                                     \
        if (isnan(f))                                                                      \
            (f) = INFINITY;                                                                \
    } while (0)
    EVAL(x1, f1);
    EVAL(x2, f2);
    for (int it = 0; it < 10; it++) { /* the bracket shrinks to 0.8% of its width */
        if (f1 <= f2) {
            b = x2;
            x2 = x1;
            f2 = f1;
            x1 = b - g * (b - a);
            EVAL(x1, f1);
        } else {
            a = x1;
            x1 = x2;
            f1 = f2;
            x2 = a + g * (b - a);
            EVAL(x2, f2);
        }
    }
    double x = f1 <= f2 ? x1 : x2, f = f1 <= f2 ? f1 : f2;
#undef EVAL
    m.range = pow ? x : exp(x);
    c->model = m;
    c->cv_rmse = f;
    c->ok = isfinite(f);
    c->exact = 1;
    return TRV_OK;
}

/* The full sample variogram on a thread of its own (it reads the points
 * only) while krg_choose_model prepares its leave-one-out sets: one run,
 * the same result, earlier. Without a second thread it runs in
 * vgm_task_finish. */
typedef struct vgm_task {
    const krg_points *p;
    const krg_choice_opts *co;
    trv_ctx *scratch;       /* the thread's errors */
    krg_vgm *out;
    trv_status st;
    pthread_t th;
    int started;
} vgm_task;

static void *vgm_task_run(void *arg)
{
    vgm_task *T = arg;
    T->st = krg_variogram(T->scratch, T->p, T->co->cutoff, T->co->width, T->co->vgm_points, T->co->seed, &T->out);
    return NULL;
}

static void vgm_task_start(vgm_task *T, const krg_points *p, const krg_choice_opts *co, int threads)
{
    *T = (vgm_task){.p = p, .co = co};
    T->started = threads > 1 && (T->scratch = trv_ctx_new()) && pthread_create(&T->th, NULL, vgm_task_run, T) == 0;
}

static trv_status vgm_task_finish(trv_ctx *ctx, vgm_task *T, krg_vgm **out)
{
    *out = NULL;
    if (!T->started) {
        trv_ctx_free(T->scratch);
        return krg_variogram(ctx, T->p, T->co->cutoff, T->co->width, T->co->vgm_points, T->co->seed, out);
    }
    pthread_join(T->th, NULL);
    trv_status st = T->st ? trv_error(ctx, T->st, "%s", trv_errmsg(T->scratch)) : TRV_OK;
    trv_ctx_free(T->scratch);
    *out = T->out;
    return st;
}

/* The subsample's neighbour sets and their distances (krg_cv_sets_dist: the
 * ~84 runs of the choice share them), and its median spacing. */
static trv_status cv_prepare(trv_ctx *ctx, const krg_points *p, const krg_index *ix, const krg_opts *ko,
                             const long *cvw, size_t ncv, krg_cv_sets **sets, double *h)
{
    trv_status st = krg_cv_sets_new(ctx, p, ix, ko, ncv, cvw, sets);
    if (!st && *sets)
        st = krg_cv_sets_dist(ctx, p, *sets, cvw);
    *h = st ? NAN : median_spacing(p, ix, cvw, ncv);
    return st;
}

trv_status krg_choose_model(trv_ctx *ctx, const krg_points *p, const krg_index *ix, const krg_opts *ko,
                            const krg_choice_opts *co, krg_model *best, krg_vgm **vgm, krg_candidate **cands,
                            int *ncand)
{
    *vgm = NULL;
    *cands = NULL;
    *ncand = 0;
    if (p->n < 4)
        return trv_error(ctx, TRV_ERR_DATA, "%zu points are too few to fit a variogram (at least 4)", p->n);
    krg_vgm *full = NULL, *shrt = NULL;
    krg_candidate *c = NULL;
    krg_cv_sets *sets = NULL;
    long *cvw = NULL;
    double *obs = NULL, *pred = NULL;
    size_t ncv = 0;
    int n = 0, best_k = -1;
    double h = NAN;
    vgm_task vt;
    vgm_task_start(&vt, p, co, krg_threads(ko->threads));
    trv_status st = (cvw = subsample(p->n, co->cv_points, co->seed + 1, &ncv))
                        ? cv_prepare(ctx, p, ix, ko, cvw, ncv, &sets, &h)
                        : trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
    trv_status vs = vgm_task_finish(ctx, &vt, &full);
    if (vs)
        st = vs; /* the variogram's error first, as when it ran first */
    if (st)
        goto done;
    /* the short-lag variogram matters only when the full one's first lag
     * spans several sample spacings (dense data such as a DEM) */
    int want_short = isfinite(h) && h > 0 && full->width > 2 * h;
    if (want_short) {
        trv_status s2 = short_variogram(ctx, p, ix, 8 * h, cvw, ncv, &shrt);
        if (s2 == TRV_ERR_NOMEM) {
            st = s2;
            goto done;
        }
        if (s2)
            shrt = NULL; /* not enough short pairs: full fits only */
    }
    /* candidate list */
    static const struct { krg_model_type t; double kappa; } models[] = {
        {KRG_SPH, 0}, {KRG_EXP, 0}, {KRG_GAU, 0}, {KRG_MAT, 1.5}, {KRG_MAT, 2.5}, {KRG_POW, 0}};
    int nm = (int)(sizeof models / sizeof models[0]);
    c = calloc((size_t)nm * 3, sizeof *c);
    obs = malloc(ncv * sizeof *obs);
    pred = malloc(ncv * sizeof *pred);
    if (!c || !obs || !pred) {
        st = trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
        goto done;
    }
    for (size_t i = 0; i < ncv; i++)
        obs[i] = p->z[cvw[i]];
    for (int k = 0; k < nm; k++) {
        if (co->only >= 0 && (int)models[k].t != co->only)
            continue;
        if (co->only == KRG_MAT && models[k].kappa != 1.5)
            continue; /* an explicit Mat: one candidate, with the kappa asked for */
        double kappa = co->only == KRG_MAT && !isnan(co->kappa) ? co->kappa : models[k].kappa;
        for (int s = 0; s < 2; s++) {
            const krg_vgm *v = s ? shrt : full;
            if (!v)
                continue;
            krg_candidate *cand = &c[n++];
            krg_model init = {models[k].t, 0, 0, 0, kappa};
            cand->short_lags = s;
            cand->cv_rmse = NAN;
            cand->model = init;
            /* in auto mode a poor fit is just a losing candidate: no warning */
            int verbosity = trv_ctx_verbosity(ctx);
            if (co->only < 0)
                trv_ctx_set_verbosity(ctx, 0);
            trv_status fs = krg_fit(ctx, v, models[k].t, co->method, kappa > 0 ? &init : NULL, &cand->model,
                                    &cand->wsse);
            trv_ctx_set_verbosity(ctx, verbosity);
            if (fs == TRV_ERR_NOMEM) {
                st = fs;
                goto done;
            }
            if (fs || !(cand->model.psill > 0))
                continue;
            cand->model.kappa = kappa;
            /* LOOCV decides; a system that cannot be solved disqualifies */
            if ((st = cv_rmse(ctx, p, ix, &cand->model, ko, cvw, ncv, sets, obs, pred, &cand->cv_rmse)))
                goto done;
            cand->ok = isfinite(cand->cv_rmse);
            if (cand->ok && (best_k < 0 || cand->cv_rmse < c[best_k].cv_rmse))
                best_k = n - 1;
            /* and the exact-interpolator variant of the fit that describes
             * the short lags (the full one when there is no short-lag fit) */
            if (s == 1 || !shrt) {
                krg_candidate *ex = &c[n++];
                *ex = *cand;
                if ((st = tune_exact(ctx, p, ix, ko, cvw, ncv, sets, obs, pred, ex)))
                    goto done;
                if (ex->ok && (best_k < 0 || ex->cv_rmse < c[best_k].cv_rmse))
                    best_k = n - 1;
            }
            if ((st = trv_progress(ctx, (double)n / (3 * nm), "fit")))
                goto done;
        }
    }
    if (best_k < 0) {
        st = trv_error(ctx, TRV_ERR_DATA, "no variogram model could be fitted to these data");
        goto done;
    }
    *best = c[best_k].model;
    st = trv_progress(ctx, 1.0, "fit");
done:
    krg_vgm_free(shrt);
    krg_cv_sets_free(sets);
    free(cvw);
    free(obs);
    free(pred);
    if (st) {
        krg_vgm_free(full);
        free(c);
        return st;
    }
    *vgm = full;
    *cands = c;
    *ncand = n;
    return TRV_OK;
}

const int krg_nmax_candidates[KRG_NMAX_NCAND] = {16, 36, 64};

int krg_nmax_pick(const double *rmse, int n)
{
    double best = INFINITY;
    for (int k = 0; k < n; k++)
        if (isfinite(rmse[k]) && rmse[k] < best)
            best = rmse[k];
    for (int k = 0; k < n; k++)
        if (isfinite(rmse[k]) && rmse[k] <= (1 + KRG_NMAX_TOL) * best)
            return k;
    return -1;
}

trv_status krg_choose_nmax(trv_ctx *ctx, const krg_points *p, const krg_index *ix, const krg_model *m,
                           const krg_opts *ko, const krg_choice_opts *co, krg_nmax_choice *out)
{
    memset(out, 0, sizeof *out);
    size_t ncv = 0;
    long *cvw = subsample(p->n, co->cv_points, co->seed + 1, &ncv); /* krg_choose_model's subsample */
    double *obs = cvw ? malloc(ncv * sizeof *obs) : NULL, *pred = obs ? malloc(ncv * sizeof *pred) : NULL;
    trv_status st = pred ? TRV_OK : trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
    for (size_t i = 0; !st && i < ncv; i++)
        obs[i] = p->z[cvw[i]];
    for (int k = 0; !st && k < KRG_NMAX_NCAND; k++) {
        krg_opts o = *ko;
        o.nmax = krg_nmax_candidates[k];
        krg_cv_sets *sets = NULL;
        if (!(st = krg_cv_sets_new(ctx, p, ix, &o, ncv, cvw, &sets)))
            st = cv_rmse(ctx, p, ix, m, &o, cvw, ncv, sets, obs, pred, &out->cv_rmse[k]);
        krg_cv_sets_free(sets);
        out->nmax[k] = o.nmax;
        out->n = k + 1;
        if (!st)
            st = trv_progress(ctx, (k + 1.0) / KRG_NMAX_NCAND, "neighbourhood");
    }
    free(cvw);
    free(obs);
    free(pred);
    if (st)
        return st;
    int k = krg_nmax_pick(out->cv_rmse, out->n);
    if (k < 0)
        return trv_error(ctx, TRV_ERR_DATA, "no neighbourhood of %d, %d or %d points could be cross-validated",
                         krg_nmax_candidates[0], krg_nmax_candidates[1], krg_nmax_candidates[2]);
    out->chosen = out->nmax[k];
    return TRV_OK;
}
