/* Model choice: fit every candidate, keep the best by leave-one-out RMSE. */
#include "krige_priv.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void krg_choice_opts_init(krg_choice_opts *o)
{
    memset(o, 0, sizeof *o);
    o->method = KRG_FIT_NH_H2;
    o->vgm_points = 3000;
    o->cv_points = 2000;
    o->seed = 1;
    o->only = -1;
    o->kappa = 1.5;
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

/* splitmix64: a small, well-known generator; enough for subsampling */
static uint64_t next_u64(uint64_t *s)
{
    uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
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
    uint64_t s = seed ^ 0x6B72696765ull; /* "krige": keep this stream apart from others using the seed */
    for (size_t i = 0; i < m && m < n; i++) {
        size_t j = i + (size_t)(next_u64(&s) % (n - i));
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

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
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
        qsort(d, k, sizeof *d, cmp_double);
        med = d[k / 2];
    }
    free(d);
    return med;
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
    long *cvw = NULL;
    double *obs = NULL, *pred = NULL;
    size_t ncv = 0;
    int n = 0, best_k = -1;
    trv_status st = krg_variogram(ctx, p, co->cutoff, co->width, co->vgm_points, co->seed, &full);
    if (st)
        return st;
    if (!(cvw = subsample(p->n, co->cv_points, co->seed + 1, &ncv))) {
        st = trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
        goto done;
    }
    double h = median_spacing(p, ix, cvw, ncv);
    /* the short-lag variogram matters only when the full one's first lag
     * spans several sample spacings (dense data such as a DEM) */
    int want_short = isfinite(h) && h > 0 && full->width > 2 * h;
    if (want_short) {
        trv_status s2 = krg_variogram(ctx, p, 8 * h, 8 * h / 15, co->vgm_points, co->seed, &shrt);
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
    c = calloc((size_t)nm * 2, sizeof *c);
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
        double kappa = co->only == KRG_MAT ? co->kappa : models[k].kappa;
        for (int s = 0; s < 2; s++) {
            const krg_vgm *v = s ? shrt : full;
            if (!v)
                continue;
            krg_candidate *cand = &c[n++];
            krg_model init = {models[k].t, 0, 0, 0, kappa};
            cand->short_lags = s;
            cand->cv_rmse = NAN;
            cand->model = init;
            trv_status fs = krg_fit(ctx, v, models[k].t, co->method, kappa > 0 ? &init : NULL, &cand->model,
                                    &cand->wsse);
            if (fs == TRV_ERR_NOMEM) {
                st = fs;
                goto done;
            }
            if (fs || !(cand->model.psill > 0))
                continue;
            cand->model.kappa = kappa;
            /* LOOCV decides; a system that cannot be solved disqualifies */
            fs = krg_cv(ctx, p, ix, &cand->model, ko, ncv, cvw, pred, NULL);
            if (fs == TRV_ERR_NOMEM || fs == TRV_ERR_CANCEL) {
                st = fs;
                goto done;
            }
            if (fs)
                continue;
            krg_cv_stats cs;
            krg_cv_summary(obs, pred, NULL, ncv, &cs);
            cand->cv_rmse = cs.rmse;
            cand->ok = cs.n > 0;
            if (cand->ok && (best_k < 0 || cand->cv_rmse < c[best_k].cv_rmse))
                best_k = n - 1;
            if ((st = trv_progress(ctx, (double)n / (2 * nm), "fit")))
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
