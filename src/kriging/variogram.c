/* Variogram models, the sample variogram and its weighted least-squares
 * fit (docs/method.md §1.2–1.4), written to agree with R gstat 2.1.0:
 *
 *  - pairs are binned as gstat's sem.c does: lag k holds the pairs with
 *    k w < d <= (k+1) w, a pair at distance 0 goes to the first lag, a pair
 *    at exactly the cutoff still counts, and the default cutoff is gstat's
 *    0.33333 (not 1/3) of the bounding-box diagonal;
 *  - the fit minimises gstat's weighted SSE; rather than gstat's Gauss-Newton
 *    iteration (which stops once the SSE changes by less than 1e-5
 *    relative), we solve for the nugget and partial sill exactly at each
 *    range (the model is linear in them) and minimise over the range alone,
 *    which reaches the same optimum more tightly and never diverges.
 */
#include "krige.h"
#include "krige_priv.h" /* krg_bessel_k_scaled (bessel.c) */

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif
#ifndef M_LN2
#define M_LN2 0.69314718055994530942
#endif

/* log Gamma(k) for k > 0 without lgamma's global signgam (krg_gamma runs in
 * kriging worker threads). */
static double log_gamma_pos(double k)
{
    if (k < 170.0)
        return log(tgamma(k));
    double k2 = k * k;
    return (k - 0.5) * log(k) - k + 0.5 * log(2.0 * M_PI) + 1.0 / (12.0 * k) - 1.0 / (360.0 * k * k2);
}

/* Matérn unit semivariance 1 - 2^(1-k)/Gamma(k) r^k K_k(r), in logs so that
 * neither r^k nor K_k(r) overflows on its own. At r -> 0 the correlation
 * tends to 1 (semivariance 0); where K_k itself overflows (r tiny, k large)
 * the clamp returns that limit, and at large r the exp underflows to the
 * sill. */
static double matern_unit(double r, double kappa)
{
    /* half-integer orders have closed forms (Abramowitz & Stegun 10.2.15):
     * correlation e^-r, (1 + r) e^-r, (1 + r + r^2/3) e^-r; kriging a DEM
     * evaluates this tens of millions of times */
    if (kappa == 0.5)
        return -expm1(-r);
    if (kappa == 1.5)
        return 1.0 - (1.0 + r) * exp(-r);
    if (kappa == 2.5)
        return 1.0 - (1.0 + r + r * r / 3.0) * exp(-r);
    double ks = krg_bessel_k_scaled(kappa, r);
    double log_corr = (1.0 - kappa) * M_LN2 - log_gamma_pos(kappa) + kappa * log(r) - r + log(ks);
    return fmin(1.0, fmax(0.0, -expm1(log_corr)));
}

/* ---- variogram models ------------------------------------------------------ */

static const char *const model_names[KRG_NMODELS] = {"Sph", "Exp", "Gau", "Mat", "Pow"};

const char *krg_model_name(krg_model_type t)
{
    return (int)t >= 0 && t < KRG_NMODELS ? model_names[t] : "?";
}

int krg_model_parse(const char *name)
{
    if (!name)
        return -1;
    for (int t = 0; t < KRG_NMODELS; t++)
        if (strcasecmp(name, model_names[t]) == 0)
            return t;
    return -1;
}

double krg_gamma(const krg_model *m, double h)
{
    if (!(h > 0.0))
        return 0.0;
    double r = h / m->range, unit;
    switch (m->type) {
    case KRG_SPH:
        r = fmin(r, 1.0); /* r*(1.5 - 0.5 r^2) is exactly 1 at r = 1 */
        unit = r * (1.5 - 0.5 * r * r);
        break;
    case KRG_EXP:
        unit = -expm1(-r);
        break;
    case KRG_GAU:
        unit = -expm1(-r * r);
        break;
    case KRG_MAT:
        unit = matern_unit(r, m->kappa);
        break;
    case KRG_POW:
        unit = pow(h, m->range);
        break;
    default:
        return NAN;
    }
    return m->nugget + m->psill * unit;
}

/* ---- sample variogram ---------------------------------------------------------- */

/* gstat's DEF_fraction: the default cutoff is 0.33333 of the diagonal. */
#define GSTAT_CUTOFF_FRACTION 0.33333
#define GSTAT_DEFAULT_LAGS 15
#define MAX_LAGS 10000000

static int cmp_size(const void *a, const void *b)
{
    size_t x = *(const size_t *)a, y = *(const size_t *)b;
    return (x > y) - (x < y);
}

/* The first k entries of a partial Fisher-Yates shuffle of 0..n-1, sorted
 * so that the pairs are visited in input order whatever the draw. */
static trv_status draw_subsample(trv_ctx *ctx, size_t n, size_t k, uint64_t seed, size_t **out)
{
    size_t *idx = malloc(n * sizeof *idx);
    if (!idx)
        return trv_error(ctx, TRV_ERR_NOMEM, "out of memory for a subsample of %zu points", n);
    for (size_t i = 0; i < n; i++)
        idx[i] = i;
    trv_rng g;
    trv_rng_seed(&g, seed);
    for (size_t i = 0; i < k; i++) {
        size_t j = i + (size_t)trv_rng_below(&g, (uint64_t)(n - i));
        size_t t = idx[i];
        idx[i] = idx[j];
        idx[j] = t;
    }
    qsort(idx, k, sizeof *idx, cmp_size);
    *out = idx;
    return TRV_OK;
}

/* gstat's lag of a pair: classes are (k w, (k+1) w], so a distance that is
 * an exact multiple of the width closes the class below it; distance 0
 * opens the first class. */
static long lag_of(double d, double width)
{
    double frac = d / width;
    double fl = floor(frac);
    return d > 0.0 && frac == fl ? (long)fl - 1 : (long)fl;
}

void krg_vgm_free(krg_vgm *v)
{
    if (!v)
        return;
    free(v->np);
    free(v->dist);
    free(v->gamma);
    free(v);
}

trv_status krg_variogram(trv_ctx *ctx, const krg_points *p, double cutoff, double width, size_t max_points,
                         uint64_t seed, krg_vgm **out)
{
    if (!out)
        return trv_error(ctx, TRV_ERR_USAGE, "krg_variogram: no output given");
    *out = NULL;
    if (!p || (p->n > 0 && (!p->x || !p->y || !p->z)))
        return trv_error(ctx, TRV_ERR_USAGE, "krg_variogram: no points given");
    if (isnan(cutoff) || isinf(cutoff))
        return trv_error(ctx, TRV_ERR_USAGE, "invalid variogram cutoff '%g'", cutoff);
    if (isnan(width) || isinf(width))
        return trv_error(ctx, TRV_ERR_USAGE, "invalid variogram lag width '%g'", width);
    if (max_points == 1)
        return trv_error(ctx, TRV_ERR_USAGE, "invalid variogram subsample size '1': need 0 (all) or at least 2");
    if (p->n < 2)
        return trv_error(ctx, TRV_ERR_DATA, "cannot compute a variogram: %zu point%s, at least 2 needed", p->n,
                         p->n == 1 ? "" : "s");

    /* The cutoff comes from all points, not the subsample, so that the lag
     * classes do not change with the seed. */
    double xmin = INFINITY, xmax = -INFINITY, ymin = INFINITY, ymax = -INFINITY;
    for (size_t i = 0; i < p->n; i++) {
        if (!isfinite(p->x[i]) || !isfinite(p->y[i]) || !isfinite(p->z[i]))
            return trv_error(ctx, TRV_ERR_DATA, "cannot compute a variogram: point %zu has a non-finite %s", i,
                             isfinite(p->z[i]) ? "coordinate" : "value");
        xmin = fmin(xmin, p->x[i]);
        xmax = fmax(xmax, p->x[i]);
        ymin = fmin(ymin, p->y[i]);
        ymax = fmax(ymax, p->y[i]);
    }
    double dx_box = xmax - xmin, dy_box = ymax - ymin;
    double diagonal = sqrt(dx_box * dx_box + dy_box * dy_box);
    if (diagonal == 0.0)
        return trv_error(ctx, TRV_ERR_DATA, "cannot compute a variogram: all %zu points are at the same location",
                         p->n);
    if (cutoff <= 0.0)
        cutoff = diagonal * GSTAT_CUTOFF_FRACTION;
    if (width <= 0.0)
        width = cutoff / GSTAT_DEFAULT_LAGS;
    double nclass = floor(cutoff / width) + 1.0;
    if (!(nclass <= MAX_LAGS))
        return trv_error(ctx, TRV_ERR_USAGE, "variogram lag width '%g' is too small for cutoff '%g'", width, cutoff);
    long nalloc = (long)nclass;

    size_t *sel = NULL, nsel = p->n;
    if (max_points > 0 && p->n > max_points) {
        trv_status st = draw_subsample(ctx, p->n, max_points, seed, &sel);
        if (st != TRV_OK)
            return st;
        nsel = max_points;
    }

    krg_vgm *v = calloc(1, sizeof *v);
    long *np = calloc((size_t)nalloc, sizeof *np);
    double *dsum = calloc((size_t)nalloc, sizeof *dsum);
    double *gsum = calloc((size_t)nalloc, sizeof *gsum);
    if (!v || !np || !dsum || !gsum) {
        free(sel);
        free(v);
        free(np);
        free(dsum);
        free(gsum);
        return trv_error(ctx, TRV_ERR_NOMEM, "out of memory for a variogram of %ld lags", nalloc);
    }

    /* Pairs (i, j < i), each squared difference head minus tail, in gstat's
     * order, so that the sums round the same way. */
    for (size_t a = 0; a < nsel; a++) {
        size_t i = sel ? sel[a] : a;
        double xi = p->x[i], yi = p->y[i], zi = p->z[i];
        for (size_t b = 0; b < a; b++) {
            size_t j = sel ? sel[b] : b;
            double dx = xi - p->x[j], dy = yi - p->y[j];
            if (fabs(dx) > cutoff || fabs(dy) > cutoff)
                continue;
            double d = sqrt(dx * dx + dy * dy);
            if (d > cutoff)
                continue;
            long k = lag_of(d, width);
            if (k >= nalloc)
                k = nalloc - 1; /* cannot happen for d <= cutoff; kept as a guard */
            double dz = zi - p->z[j];
            np[k]++;
            dsum[k] += d;
            gsum[k] += dz * dz;
        }
    }
    free(sel);

    int nlags = 0;
    for (long k = 0; k < nalloc; k++) {
        if (np[k] == 0)
            continue;
        np[nlags] = np[k];
        dsum[nlags] = dsum[k] / (double)np[k];
        gsum[nlags] = gsum[k] / (2.0 * (double)np[k]);
        nlags++;
    }
    v->nlags = nlags;
    v->cutoff = cutoff;
    v->width = width;
    v->np = np;
    v->dist = dsum;
    v->gamma = gsum;
    v->npoints = nsel;
    if (nlags == 0) {
        krg_vgm_free(v);
        return trv_error(ctx, TRV_ERR_DATA, "cannot compute a variogram: no pairs of points within the cutoff '%g'",
                         cutoff);
    }
    *out = v;
    return TRV_OK;
}

/* ---- fitting --------------------------------------------------------------------- */

#define SCAN_POINTS 400
#define POW_MIN_EXPONENT 1e-3
#define POW_MAX_EXPONENT 2.0

/* The lags, their weights and scratch space for the unit structure. */
typedef struct fit_problem {
    int n;
    const double *h, *g;
    double *w, *f;
    krg_model_type type;
    double kappa;
} fit_problem;

static double wsse_of(const fit_problem *fp, double nugget, double psill)
{
    double s = 0.0;
    for (int i = 0; i < fp->n; i++) {
        double r = fp->g[i] - nugget - psill * fp->f[i];
        s += fp->w[i] * r * r;
    }
    return s;
}

/* For a fixed range (Pow: exponent) the model is linear in nugget and
 * psill: solve that 2x2 weighted least-squares problem with both >= 0.
 * The problem is a convex QP, so its optimum is the best of the
 * unconstrained solution (when feasible) and the two one-sided ones. */
static double solve_linear(const fit_problem *fp, double range, double *nugget, double *psill)
{
    krg_model unit = {fp->type, 0.0, 1.0, range, fp->kappa};
    double sw = 0, sf = 0, sff = 0, sg = 0, sfg = 0;
    for (int i = 0; i < fp->n; i++) {
        double f = krg_gamma(&unit, fp->h[i]), w = fp->w[i];
        fp->f[i] = f;
        sw += w;
        sf += w * f;
        sff += w * f * f;
        sg += w * fp->g[i];
        sfg += w * f * fp->g[i];
    }
    double best_n = 0.0, best_s = 0.0, best = INFINITY;
    double det = sw * sff - sf * sf;
    if (det > 1e-12 * sw * sff) {
        double n = (sff * sg - sf * sfg) / det, s = (sw * sfg - sf * sg) / det;
        if (n >= 0.0 && s >= 0.0) {
            best_n = n;
            best_s = s;
            best = wsse_of(fp, n, s);
        }
    }
    double cand[2][2] = {{0.0, sff > 0.0 ? fmax(0.0, sfg / sff) : 0.0}, {sw > 0.0 ? fmax(0.0, sg / sw) : 0.0, 0.0}};
    for (int c = 0; c < 2; c++) {
        double e = wsse_of(fp, cand[c][0], cand[c][1]);
        if (e < best) {
            best = e;
            best_n = cand[c][0];
            best_s = cand[c][1];
        }
    }
    *nugget = best_n;
    *psill = best_s;
    return best;
}

/* The search runs over log(range), or over the exponent itself for Pow. */
static double param_to_range(const fit_problem *fp, double t) { return fp->type == KRG_POW ? t : exp(t); }

static double profile(const fit_problem *fp, double t)
{
    double n, s;
    return solve_linear(fp, param_to_range(fp, t), &n, &s);
}

/* Brent's minimisation (golden section with parabolic steps) of the
 * profile on [lo, hi], to an absolute tolerance tol in the parameter; the
 * achievable precision is about sqrt(DBL_EPSILON) of the parameter since
 * the profile is flat to first order at its minimum. */
static double brent_min(const fit_problem *fp, double lo, double hi, double tol)
{
    const double golden = 0.3819660112501051; /* (3 - sqrt 5) / 2 */
    double x = lo + golden * (hi - lo), w = x, v = x;
    double fx = profile(fp, x), fw = fx, fv = fx;
    double step = 0.0, prev_step = 0.0;
    for (int iter = 0; iter < 200; iter++) {
        double mid = 0.5 * (lo + hi);
        double tol1 = tol + 1e-10 * fabs(x), tol2 = 2.0 * tol1;
        if (fabs(x - mid) <= tol2 - 0.5 * (hi - lo))
            break;
        int parabolic = 0;
        if (fabs(prev_step) > tol1) {
            double r = (x - w) * (fx - fv), q = (x - v) * (fx - fw);
            double pnum = (x - v) * q - (x - w) * r;
            q = 2.0 * (q - r);
            if (q > 0.0)
                pnum = -pnum;
            q = fabs(q);
            if (fabs(pnum) < fabs(0.5 * q * prev_step) && pnum > q * (lo - x) && pnum < q * (hi - x)) {
                prev_step = step;
                step = pnum / q;
                double u = x + step;
                if (u - lo < tol2 || hi - u < tol2)
                    step = x < mid ? tol1 : -tol1;
                parabolic = 1;
            }
        }
        if (!parabolic) {
            prev_step = (x < mid ? hi : lo) - x;
            step = golden * prev_step;
        }
        double u = fabs(step) >= tol1 ? x + step : x + (step > 0.0 ? tol1 : -tol1);
        double fu = profile(fp, u);
        if (fu <= fx) {
            if (u < x)
                hi = x;
            else
                lo = x;
            v = w;
            fv = fw;
            w = x;
            fw = fx;
            x = u;
            fx = fu;
        } else {
            if (u < x)
                lo = u;
            else
                hi = u;
            if (fu <= fw || w == x) {
                v = w;
                fv = fw;
                w = u;
                fw = fu;
            } else if (fu <= fv || v == x || v == w) {
                v = u;
                fv = fu;
            }
        }
    }
    /* The ends are feasible too: a minimum on the boundary is found there. */
    double f_lo = profile(fp, lo), f_hi = profile(fp, hi);
    if (f_lo < fx) {
        x = lo;
        fx = f_lo;
    }
    if (f_hi < fx)
        x = hi;
    return x;
}

static int valid_model_values(double nugget, double psill, double range, krg_model_type type, double kappa)
{
    if (!(nugget >= 0.0) || !(psill >= 0.0) || !isfinite(nugget) || !isfinite(psill))
        return 0;
    if (!(range > 0.0) || !isfinite(range) || (type == KRG_POW && range > POW_MAX_EXPONENT))
        return 0;
    return type != KRG_MAT || (kappa > 0.0 && isfinite(kappa));
}

/* The lags must be usable: at least 3, each with pairs, a finite mean
 * distance and semivariance, no distance 0 under method 7, not all at 0.
 * *hmin: the shortest positive mean distance (INFINITY if none), *hmax the
 * longest. */
static trv_status check_lags(trv_ctx *ctx, const krg_vgm *v, krg_fit_method method, const char *name, double *hmin,
                             double *hmax)
{
    if (v->nlags < 3)
        return trv_error(ctx, TRV_ERR_DATA, "cannot fit a '%s' model: the variogram has %d lag%s, at least 3 needed",
                         name, v->nlags, v->nlags == 1 ? "" : "s");
    *hmin = INFINITY, *hmax = 0.0;
    for (int i = 0; i < v->nlags; i++) {
        if (!(v->np[i] > 0) || !(v->dist[i] >= 0.0) || !isfinite(v->dist[i]) || !isfinite(v->gamma[i]))
            return trv_error(ctx, TRV_ERR_DATA, "cannot fit a '%s' model: lag %d of the variogram is invalid", name,
                             i + 1);
        if (method == KRG_FIT_NH_H2 && v->dist[i] == 0.0)
            return trv_error(ctx, TRV_ERR_DATA,
                             "cannot fit a '%s' model: lag %d has mean distance 0, which fit method 7 (N/h^2) "
                             "cannot weight; use method 2 or 6",
                             name, i + 1);
        if (v->dist[i] > 0.0)
            *hmin = fmin(*hmin, v->dist[i]);
        *hmax = fmax(*hmax, v->dist[i]);
    }
    if (*hmax == 0.0)
        return trv_error(ctx, TRV_ERR_DATA, "cannot fit a '%s' model: every lag has mean distance 0", name);
    return TRV_OK;
}

/* The starting model: init as given, or gstat's automatic starting values
 * (vgm_fill_na): nugget the mean of the first 3 lags, partial sill the
 * mean of the last 5, range a third of the longest lag (Pow: exponent 1).
 * An init with range exactly 0 gives only Mat's kappa (the model choice
 * fits Mat that way) and is otherwise treated as no start at all. */
static trv_status start_model(trv_ctx *ctx, const krg_vgm *v, krg_model_type type, const krg_model *init,
                              const char *name, double hmax, krg_model *start, int *has_start)
{
    *start = (krg_model){type, 0.0, 0.0, type == KRG_POW ? 1.0 : hmax / 3.0, 0.5};
    *has_start = init && init->range != 0.0;
    if (init && !*has_start) {
        start->kappa = init->kappa;
        if (type == KRG_MAT && !(start->kappa > 0.0 && isfinite(start->kappa)))
            return trv_error(ctx, TRV_ERR_USAGE, "invalid 'Mat' kappa %g: need kappa > 0", start->kappa);
    }
    if (*has_start) {
        start->nugget = init->nugget;
        start->psill = init->psill;
        start->range = init->range;
        start->kappa = init->kappa;
        if (!valid_model_values(start->nugget, start->psill, start->range, type, start->kappa))
            return trv_error(ctx, TRV_ERR_USAGE,
                             "invalid initial '%s' model (nugget %g, psill %g, range %g, kappa %g): need nugget, "
                             "psill >= 0, range > 0%s",
                             name, start->nugget, start->psill, start->range, start->kappa,
                             type == KRG_POW ? " and an exponent <= 2" : type == KRG_MAT ? " and kappa > 0" : "");
    } else {
        start->nugget = start->psill = 0.0;
        for (int i = 0; i < 3; i++)
            start->nugget += v->gamma[i] / 3.0;
        int first = v->nlags > 5 ? v->nlags - 5 : 0;
        for (int i = first; i < v->nlags; i++)
            start->psill += v->gamma[i] / (v->nlags - first);
    }
    return TRV_OK;
}

/* The lag weights: 7 N_j / h_j^2, 2 N_j / gamma_start(h_j)^2, 6 one. gstat
 * fills the weights once, from the starting model (fit.c, fill_weights at
 * the first iteration), so method 2 is weighted by the initial model and
 * not re-weighted as the fit moves. */
static trv_status fill_weights(trv_ctx *ctx, const krg_vgm *v, krg_fit_method method, const krg_model *start,
                               const char *name, double *wt)
{
    for (int i = 0; i < v->nlags; i++) {
        double w = (double)v->np[i];
        if (method == KRG_FIT_NH_H2) {
            w /= v->dist[i] * v->dist[i];
        } else if (method == KRG_FIT_CRESSIE) {
            double g0 = krg_gamma(start, v->dist[i]);
            if (!(fabs(g0) > 1e-30))
                return trv_error(ctx, TRV_ERR_DATA,
                                 "cannot fit a '%s' model by method 2: the initial model is 0 at lag %d, which "
                                 "gives it an infinite weight",
                                 name, i + 1);
            w /= g0 * g0;
        } else {
            w = 1.0;
        }
        wt[i] = w;
    }
    return TRV_OK;
}

/* The scan point to refine: gstat iterates from its starting model to the
 * nearest minimum, so walk downhill from the grid point nearest t_init.
 * Without a start, or when the walk stops on a plateau (a start so short
 * or so long that the structure is flat or linear over all lags, where
 * gstat's iteration would be singular), the lowest point of the scan. */
static int scan_minimum(const double scan[SCAN_POINTS], int has_start, double t_init, double t_lo, double dt)
{
    int k = 0, global = !has_start;
    if (has_start) {
        k = (int)lround((t_init - t_lo) / dt);
        k = k < 0 ? 0 : k >= SCAN_POINTS ? SCAN_POINTS - 1 : k;
        for (;;) {
            int next = k;
            if (k > 0 && scan[k - 1] < scan[next])
                next = k - 1;
            if (k < SCAN_POINTS - 1 && scan[k + 1] < scan[next])
                next = k + 1;
            if (next == k)
                break;
            k = next;
        }
        global = (k > 0 && scan[k - 1] == scan[k]) || (k < SCAN_POINTS - 1 && scan[k + 1] == scan[k]);
    }
    if (global) {
        k = 0;
        for (int j = 1; j < SCAN_POINTS; j++)
            if (scan[j] < scan[k])
                k = j;
    }
    return k;
}

trv_status krg_fit(trv_ctx *ctx, const krg_vgm *v, krg_model_type type, krg_fit_method method,
                   const krg_model *init, krg_model *out, double *wsse)
{
    if (!v || !out || (v->nlags > 0 && (!v->np || !v->dist || !v->gamma)))
        return trv_error(ctx, TRV_ERR_USAGE, "krg_fit: no variogram or no output given");
    if ((int)type < 0 || type >= KRG_NMODELS)
        return trv_error(ctx, TRV_ERR_USAGE, "unknown variogram model type %d", (int)type);
    if (method != KRG_FIT_CRESSIE && method != KRG_FIT_OLS && method != KRG_FIT_NH_H2)
        return trv_error(ctx, TRV_ERR_USAGE, "unknown variogram fit method %d (2, 6 or 7)", (int)method);
    const char *name = model_names[type];
    double hmin = INFINITY, hmax = 0.0;
    krg_model start;
    int has_start = 0;
    trv_status st;
    if ((st = check_lags(ctx, v, method, name, &hmin, &hmax)) ||
        (st = start_model(ctx, v, type, init, name, hmax, &start, &has_start)))
        return st;
    fit_problem fp = {v->nlags, v->dist, v->gamma, NULL, NULL, type, start.kappa};
    fp.w = malloc((size_t)v->nlags * sizeof *fp.w);
    fp.f = malloc((size_t)v->nlags * sizeof *fp.f);
    if (!fp.w || !fp.f)
        st = trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
    else
        st = fill_weights(ctx, v, method, &start, name, fp.w);
    if (st) {
        free(fp.w);
        free(fp.f);
        return st;
    }

    /* Search interval: below a tenth of the shortest lag every structure is
     * flat across the lags (a pure nugget); beyond a hundred times the
     * longest it is a straight line (the range no longer identifiable). */
    double t_lo, t_hi, t_init;
    if (type == KRG_POW) {
        t_lo = POW_MIN_EXPONENT;
        t_hi = POW_MAX_EXPONENT;
        t_init = fmin(fmax(start.range, t_lo), t_hi);
    } else {
        if (!isfinite(hmin))
            hmin = hmax;
        t_lo = log(fmin(hmin / 10.0, start.range / 4.0));
        t_hi = log(fmax(hmax * 100.0, start.range * 4.0));
        t_init = log(start.range);
    }
    double scan[SCAN_POINTS];
    double dt = (t_hi - t_lo) / (SCAN_POINTS - 1);
    for (int k = 0; k < SCAN_POINTS; k++)
        scan[k] = profile(&fp, t_lo + k * dt);
    int k = scan_minimum(scan, has_start, t_init, t_lo, dt);
    double lo = t_lo + (k > 0 ? k - 1 : 0) * dt;
    double hi = k < SCAN_POINTS - 1 ? t_lo + (k + 1) * dt : t_hi;
    double t = brent_min(&fp, lo, hi, 1e-10);
    if (type != KRG_POW && (k == 0 || k == SCAN_POINTS - 1))
        trv_info(ctx, 1,
                 "warning: the fitted '%s' range %g is at the end of the searched interval [%g, %g]: the model "
                 "does not describe these lags well",
                 name, exp(t), exp(t_lo), exp(t_hi));

    double range = param_to_range(&fp, t), nugget, psill;
    double e = solve_linear(&fp, range, &nugget, &psill);
    free(fp.w);
    free(fp.f);

    out->type = type;
    out->nugget = nugget;
    out->psill = psill;
    out->range = range;
    out->kappa = type == KRG_MAT ? start.kappa : 0.0;
    if (wsse)
        *wsse = e;
    return TRV_OK;
}
