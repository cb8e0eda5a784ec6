/* Kriging, variogram part: model functions at hand-computed points, the
 * Bessel function K_nu behind the Matérn model (closed forms, published
 * values, an independent quadrature), gstat's lag assignment on a
 * hand-built case, the Meuse sample variograms and Sph fits against R gstat
 * 2.1.0 (tests/data/gstat, tests/data/README.md), local-minimum checks of
 * the fits gstat has no reference for, error paths and subsampling. */
#include "test_common.h"

#include <float.h>
#include <math.h>

#include "kriging/krige.h"

/* e^x K_nu(x), defined in bessel.c (declared in krige_priv.h, not in krige.h). */
double krg_bessel_k_scaled(double nu, double x);

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

static double rel_diff(double got, double want) { return want == 0.0 ? fabs(got) : fabs(got - want) / fabs(want); }

#define assert_rel(got, want, tol)                                                                              \
    do {                                                                                                         \
        double g_ = (got), w_ = (want);                                                                          \
        if (!(rel_diff(g_, w_) <= (tol)))                                                                        \
            fail_msg("%s = %.17g, expected %.17g (relative difference %.3g > %.3g)", #got, g_, w_,               \
                     rel_diff(g_, w_), (double)(tol));                                                           \
    } while (0)

/* Points owned by the test: krg_points_new lives in krige.c, which this
 * program does not need. */
static krg_points *pts_make(size_t n)
{
    krg_points *p = calloc(1, sizeof *p);
    assert_non_null(p);
    p->n = n;
    p->x = calloc(n ? n : 1, sizeof *p->x);
    p->y = calloc(n ? n : 1, sizeof *p->y);
    p->z = calloc(n ? n : 1, sizeof *p->z);
    assert_true(p->x && p->y && p->z);
    return p;
}

static void pts_free(krg_points *p)
{
    if (!p)
        return;
    free(p->x);
    free(p->y);
    free(p->z);
    free(p);
}

/* ---- Meuse data and gstat references -------------------------------------- */

/* PATH: from data_path or testdata_path (freed here). */
static trv_csv *read_csv_at(trv_ctx *ctx, char *path)
{
    assert_non_null(path);
    trv_csv *csv = NULL;
    if (trv_csv_read(ctx, path, &csv) != TRV_OK)
        fail_msg("%s", trv_errmsg(ctx));
    free(path);
    return csv;
}

static double cell_double(trv_ctx *ctx, const trv_csv *csv, size_t row, const char *col)
{
    int c;
    double v;
    if (trv_csv_require(ctx, csv, col, &c) != TRV_OK || trv_csv_double(ctx, csv, row, c, &v) != TRV_OK)
        fail_msg("%s", trv_errmsg(ctx));
    return v;
}

/* Meuse points with z = log(zinc) or elev. */
static krg_points *meuse_points(int log_zinc)
{
    trv_ctx *ctx = trv_ctx_new();
    trv_csv *csv = read_csv_at(ctx, data_path("meuse/meuse_points.csv"));
    size_t n = trv_csv_nrows(csv);
    assert_int_equal(n, 155);
    krg_points *p = pts_make(n);
    for (size_t i = 0; i < n; i++) {
        p->x[i] = cell_double(ctx, csv, i, "x");
        p->y[i] = cell_double(ctx, csv, i, "y");
        p->z[i] = log_zinc ? log(cell_double(ctx, csv, i, "zinc")) : cell_double(ctx, csv, i, "elev");
    }
    trv_csv_free(csv);
    trv_ctx_free(ctx);
    return p;
}

static const char *var_name(int log_zinc) { return log_zinc ? "logzinc" : "elev"; }

/* gstat's initial models for the two variables (reference/README.md). */
static krg_model meuse_init(int log_zinc)
{
    krg_model m = {KRG_SPH, log_zinc ? 0.05 : 0.2, log_zinc ? 0.6 : 1.0, log_zinc ? 900.0 : 1000.0, 0.5};
    return m;
}

static krg_vgm *meuse_variogram(int log_zinc)
{
    trv_ctx *ctx = trv_ctx_new();
    krg_points *p = meuse_points(log_zinc);
    krg_vgm *v = NULL;
    if (krg_variogram(ctx, p, 0.0, 0.0, 0, 0, &v) != TRV_OK)
        fail_msg("%s", trv_errmsg(ctx));
    pts_free(p);
    trv_ctx_free(ctx);
    return v;
}

/* ---- model names and hand-computed semivariances -------------------------- */

static void test_model_names(void **state)
{
    (void)state;
    const char *names[] = {"Sph", "Exp", "Gau", "Mat", "Pow"};
    for (int t = 0; t < KRG_NMODELS; t++) {
        assert_string_equal(krg_model_name((krg_model_type)t), names[t]);
        assert_int_equal(krg_model_parse(names[t]), t);
    }
    assert_int_equal(krg_model_parse("sph"), KRG_SPH);
    assert_int_equal(krg_model_parse("GAU"), KRG_GAU);
    assert_int_equal(krg_model_parse("mAt"), KRG_MAT);
    assert_int_equal(krg_model_parse("Nug"), -1);
    assert_int_equal(krg_model_parse("Sphx"), -1);
    assert_int_equal(krg_model_parse(""), -1);
    assert_int_equal(krg_model_parse(NULL), -1);
    assert_non_null(krg_model_name(KRG_NMODELS));
}

static void test_gamma_hand_values(void **state)
{
    (void)state;
    /* Sph, nugget 0.1, psill 1, range 100 */
    krg_model sph = {KRG_SPH, 0.1, 1.0, 100.0, 0.0};
    assert_true(krg_gamma(&sph, 0.0) == 0.0);            /* gamma(0) = 0, nugget or not */
    assert_rel(krg_gamma(&sph, 50.0), 0.7875, 1e-15);     /* r = .5: 1.5*.5 - .5*.125 = .6875; + .1 */
    assert_rel(krg_gamma(&sph, 20.0), 0.396, 1e-15);      /* r = .2: .3 - .5*.008 = .296; + .1 */
    assert_rel(krg_gamma(&sph, 100.0), 1.1, 1e-15);       /* at the range: the sill 1 + .1 */
    assert_rel(krg_gamma(&sph, 250.0), 1.1, 1e-15);       /* beyond: still the sill */
    assert_rel(krg_gamma(&sph, 1e-9), 0.1 + 1.5e-11, 1e-12); /* just off 0: the nugget */

    /* Exp, psill 2, range 10 */
    krg_model expo = {KRG_EXP, 0.0, 2.0, 10.0, 0.0};
    assert_rel(krg_gamma(&expo, 10.0), 1.2642411176571153, 1e-15); /* 2 (1 - e^-1) = 2 * .63212055882855767 */
    assert_rel(krg_gamma(&expo, 30.0), 1.9004258632642721, 1e-15); /* 2 (1 - e^-3) = 2 * .95021293163213605 */
    assert_true(krg_gamma(&expo, 0.0) == 0.0);

    /* Gau, nugget 0.5, psill 1, range 10 */
    krg_model gau = {KRG_GAU, 0.5, 1.0, 10.0, 0.0};
    assert_rel(krg_gamma(&gau, 10.0), 1.1321205588285577, 1e-15); /* .5 + (1 - e^-1) */
    assert_rel(krg_gamma(&gau, 5.0), 0.72119921692859512, 1e-15); /* .5 + (1 - e^-.25) = .5 + .22119921692859512 */
    assert_true(krg_gamma(&gau, 0.0) == 0.0);

    /* Mat, psill 1, range 1 */
    krg_model mat = {KRG_MAT, 0.0, 1.0, 1.0, 1.5};
    assert_rel(krg_gamma(&mat, 1.0), 0.26424111765711533, 1e-13); /* kappa 1.5: 1 - (1 + r) e^-r = 1 - 2/e */
    mat.kappa = 2.5;
    /* kappa 2.5: 1 - (1 + r + r^2/3) e^-r at r = 2: 1 - (1 + 2 + 4/3) e^-2 = 1 - 13/3 * .1353352832366127 */
    assert_rel(krg_gamma(&mat, 2.0), 1.0 - 13.0 / 3.0 * 0.1353352832366127, 1e-13);
    mat.kappa = 1.0;
    /* kappa 1: 1 - r K_1(r); K_1(1) = .60190723019723457 */
    assert_rel(krg_gamma(&mat, 1.0), 1.0 - 0.60190723019723457, 1e-13);
    mat.kappa = 0.5;
    mat.nugget = 0.25;
    mat.range = 10.0;
    /* kappa .5 is Exp: .25 + 1 - e^-(20/10) = 1.25 - .1353352832366127 */
    assert_rel(krg_gamma(&mat, 20.0), 1.25 - 0.1353352832366127, 1e-13);
    assert_true(krg_gamma(&mat, 0.0) == 0.0);

    /* Pow, nugget .2, psill .5, exponent 1.5 */
    krg_model pw = {KRG_POW, 0.2, 0.5, 1.5, 0.0};
    assert_rel(krg_gamma(&pw, 4.0), 4.2, 1e-15);          /* .2 + .5 * 4^1.5 = .2 + .5 * 8 */
    assert_rel(krg_gamma(&pw, 0.25), 0.2625, 1e-15);      /* .2 + .5 * .125 */
    assert_true(krg_gamma(&pw, 0.0) == 0.0);
}

/* ---- Bessel K_nu and the Matérn model ------------------------------------------ */

/* Independent reference: K_nu(x) e^x = int_0^inf exp(-x (cosh t - 1)) cosh(nu t) dt
 * by the trapezoid rule in long double, which converges exponentially for
 * this analytic, doubly exponentially decaying integrand. */
static long double bessel_k_quadrature(long double nu, long double x)
{
    const long double h = 0.005L;
    long double sum = 0.5L;
    for (int i = 1; i < 10000000; i++) {
        long double t = i * h;
        long double term = expl(-x * (coshl(t) - 1.0L)) * coshl(nu * t);
        sum += term;
        if (term < 1e-30L * sum && t > 1.0L)
            break;
    }
    return sum * h;
}

static void test_bessel(void **state)
{
    (void)state;
    const double xs[] = {1e-6, 1e-3, 0.01, 0.1, 0.5, 1.0, 1.5, 1.9999, 2.0, 2.0001, 2.5, 3.0, 5.0, 10.0, 30.0, 100.0,
                         700.0, 2000.0};
    const size_t nx = sizeof xs / sizeof *xs;
    double max_closed = 0.0, max_quad = 0.0;

    /* Half-integer orders in closed form (times e^x):
     * K_1/2 = sqrt(pi/2x), K_3/2 = K_1/2 (1 + 1/x), K_5/2 = K_1/2 (1 + 3/x + 3/x^2). */
    for (size_t i = 0; i < nx; i++) {
        double x = xs[i], k12 = sqrt(M_PI / (2.0 * x));
        double want[3] = {k12, k12 * (1.0 + 1.0 / x), k12 * (1.0 + 3.0 / x + 3.0 / (x * x))};
        for (int j = 0; j < 3; j++) {
            double got = krg_bessel_k_scaled(0.5 + j, x);
            max_closed = fmax(max_closed, rel_diff(got, want[j]));
            assert_rel(got, want[j], 1e-12);
        }
    }

    /* Published values (Abramowitz & Stegun table 9.8; DLMF 10.25). */
    assert_rel(krg_bessel_k_scaled(0.0, 1.0) * exp(-1.0), 0.42102443824070834, 1e-13);
    assert_rel(krg_bessel_k_scaled(1.0, 1.0) * exp(-1.0), 0.60190723019723457, 1e-13);
    assert_rel(krg_bessel_k_scaled(0.0, 0.1) * exp(-0.1), 2.4270690247020166, 1e-13);
    assert_rel(krg_bessel_k_scaled(1.0, 2.5) * exp(-2.5), 0.07389081634774707, 1e-13);
    /* K is even in its order */
    assert_rel(krg_bessel_k_scaled(-0.3, 0.7), krg_bessel_k_scaled(0.3, 0.7), 1e-15);

    /* Orders that exercise both branches (x < 2: Temme's series; x >= 2:
     * Steed's continued fraction) and the upward recurrence. */
    const double nus[] = {0.0, 0.1, 0.3, 0.49, 0.7, 1.0, 1.5, 2.2, 3.7, 4.6, 7.25};
    for (size_t a = 0; a < sizeof nus / sizeof *nus; a++) {
        for (size_t i = 0; i < nx; i++) {
            double got = krg_bessel_k_scaled(nus[a], xs[i]);
            double want = (double)bessel_k_quadrature(nus[a], xs[i]);
            max_quad = fmax(max_quad, rel_diff(got, want));
            if (rel_diff(got, want) > 1e-10)
                fail_msg("K_%g(%g) e^x = %.17g, quadrature %.17g", nus[a], xs[i], got, want);
        }
    }
    /* Continuity where the method changes. */
    assert_rel(krg_bessel_k_scaled(0.37, 2.0 - 1e-12), krg_bessel_k_scaled(0.37, 2.0), 1e-11);
    printf("bessel: max relative error %.2g against closed forms, %.2g against quadrature\n", max_closed, max_quad);
}

static void test_matern(void **state)
{
    (void)state;
    /* gstat's Mat with kappa 0.5 is Exp with the same range */
    krg_model mat = {KRG_MAT, 0.1, 2.0, 300.0, 0.5}, expo = {KRG_EXP, 0.1, 2.0, 300.0, 0.0};
    for (double h = 1e-3; h < 1e5; h *= 1.7)
        assert_rel(krg_gamma(&mat, h), krg_gamma(&expo, h), 1e-12);

    /* kappa 1.5 and 2.5 against their closed forms, r from 1e-4 to 50 (the
     * model takes those closed forms directly for speed; the Bessel route
     * for the same orders is checked against them in the Bessel test) */
    krg_model m15 = {KRG_MAT, 0.0, 1.0, 1.0, 1.5}, m25 = {KRG_MAT, 0.0, 1.0, 1.0, 2.5};
    for (double r = 1e-4; r < 50.0; r *= 1.3) {
        double want15 = 1.0 - (1.0 + r) * exp(-r);
        double want25 = 1.0 - (1.0 + r + r * r / 3.0) * exp(-r);
        /* absolute tolerance: near r = 0 the value is a small difference of O(1) terms */
        assert_true(fabs(krg_gamma(&m15, r) - want15) < 1e-14);
        assert_true(fabs(krg_gamma(&m25, r) - want25) < 1e-14);
    }

    /* h -> 0: tends to 0 (not to the nugget), never negative, increasing;
     * large h: the sill, for smooth and rough kappas alike. */
    const double kappas[] = {0.05, 0.3, 1.0, 2.7, 12.0, 60.0};
    for (size_t k = 0; k < sizeof kappas / sizeof *kappas; k++) {
        krg_model m = {KRG_MAT, 0.0, 1.0, 100.0, kappas[k]};
        double prev = 0.0;
        for (double h = 1e-12; h < 1e7; h *= 2.0) {
            double g = krg_gamma(&m, h);
            assert_true(g >= 0.0 && g <= 1.0);
            /* the log-space evaluation leaves ~kappa |ln r| eps of absolute noise */
            assert_true(g >= prev - 1e-12);
            prev = g;
        }
        assert_true(krg_gamma(&m, 1e-300) < 1e-20);
        assert_true(krg_gamma(&m, 1e-12) < krg_gamma(&m, 1.0));
        assert_rel(krg_gamma(&m, 1e7), 1.0, 1e-15);
        assert_true(krg_gamma(&m, 0.0) == 0.0);
    }
    /* Small r: for kappa > 1, 1 - rho(r) ~ r^2 / (4 (kappa - 1)); for
     * kappa < 1, ~ Gamma(1 - kappa) / Gamma(1 + kappa) (r/2)^(2 kappa), which
     * is far from 0 even at r = 1e-14 when kappa is small. */
    krg_model m3 = {KRG_MAT, 0.0, 1.0, 1.0, 3.0};
    assert_rel(krg_gamma(&m3, 1e-3), 1e-6 / 8.0, 1e-3);
    krg_model m03 = {KRG_MAT, 0.0, 1.0, 1.0, 0.3};
    assert_rel(krg_gamma(&m03, 1e-6), tgamma(0.7) / tgamma(1.3) * pow(5e-7, 0.6), 1e-3);
    krg_model m005 = {KRG_MAT, 0.0, 1.0, 1.0, 0.05};
    assert_rel(krg_gamma(&m005, 1e-14), tgamma(0.95) / tgamma(1.05) * pow(5e-15, 0.1), 1e-3);
}

/* ---- sample variogram ---------------------------------------------------------- */

/* Five points on a line, x = 0, 0, 1, 2, 3, z = 0, 1, 3, 6, 10; cutoff 3,
 * width 1. gstat's classes are (0, 1], (1, 2], (2, 3] with distance 0 in
 * the first and a pair at the cutoff counted:
 *   d = 0: (0,0')                       dz 1
 *   d = 1: (0,1) (0',1) (1,2) (2,3)     dz 3 2 3 4   -> lag 0 (d = 1 closes it)
 *   d = 2: (0,2) (0',2) (1,3)           dz 6 5 7     -> lag 1
 *   d = 3: (0,3) (0',3)                 dz 10 9      -> lag 2
 * lag 0: np 5, dist 4/5, gamma (1+9+4+9+16)/10 = 3.9
 * lag 1: np 3, dist 2, gamma (36+25+49)/6 = 110/6
 * lag 2: np 2, dist 3, gamma (100+81)/4 = 45.25 */
static krg_points *line_points(void)
{
    krg_points *p = pts_make(5);
    const double x[] = {0, 0, 1, 2, 3}, z[] = {0, 1, 3, 6, 10};
    for (int i = 0; i < 5; i++) {
        p->x[i] = x[i];
        p->y[i] = 0.0;
        p->z[i] = z[i];
    }
    return p;
}

static void test_lag_assignment(void **state)
{
    (void)state;
    trv_ctx *ctx = trv_ctx_new();
    krg_points *p = line_points();
    krg_vgm *v = NULL;
    assert_int_equal(krg_variogram(ctx, p, 3.0, 1.0, 0, 0, &v), TRV_OK);
    assert_int_equal(v->nlags, 3);
    assert_int_equal(v->npoints, 5);
    const long np[] = {5, 3, 2};
    const double dist[] = {0.8, 2.0, 3.0}, gamma[] = {3.9, 110.0 / 6.0, 45.25};
    for (int k = 0; k < 3; k++) {
        assert_int_equal(v->np[k], np[k]);
        assert_rel(v->dist[k], dist[k], 1e-15);
        assert_rel(v->gamma[k], gamma[k], 1e-15);
    }
    assert_true(v->cutoff == 3.0 && v->width == 1.0);
    krg_vgm_free(v);

    /* Cutoff 2.5: the pairs at 3 fall outside; width 0 means cutoff/15. */
    assert_int_equal(krg_variogram(ctx, p, 2.5, 1.0, 0, 0, &v), TRV_OK);
    assert_int_equal(v->nlags, 2);
    assert_int_equal(v->np[1], 3);
    krg_vgm_free(v);
    assert_int_equal(krg_variogram(ctx, p, 3.0, 0.0, 0, 0, &v), TRV_OK);
    assert_rel(v->width, 0.2, 1e-15);
    /* classes of .2: d = 1 closes class 4, d = 2 class 9, d = 3 class 14;
     * d = 0 opens class 0; empty classes are dropped */
    assert_int_equal(v->nlags, 4);
    const long np2[] = {1, 4, 3, 2};
    for (int k = 0; k < 4; k++)
        assert_int_equal(v->np[k], np2[k]);
    assert_true(v->dist[0] == 0.0);
    krg_vgm_free(v);

    /* Default cutoff: gstat's 0.33333 of the diagonal 3, i.e. 0.99999, so
     * the pairs at distance 1 are out (with exactly 1/3 they would be in). */
    assert_int_equal(krg_variogram(ctx, p, 0.0, 0.0, 0, 0, &v), TRV_OK);
    assert_rel(v->cutoff, 0.99999, 1e-15);
    assert_int_equal(v->nlags, 1);
    assert_int_equal(v->np[0], 1);
    assert_true(v->dist[0] == 0.0);
    assert_rel(v->gamma[0], 0.5, 1e-15);
    krg_vgm_free(v);
    pts_free(p);
    trv_ctx_free(ctx);
}

static void check_meuse_variogram(int log_zinc)
{
    trv_ctx *ctx = trv_ctx_new();
    char rel[128];
    snprintf(rel, sizeof rel, "gstat/meuse_%s_variogram.csv", var_name(log_zinc));
    trv_csv *ref = read_csv_at(ctx, testdata_path(rel));
    krg_vgm *v = meuse_variogram(log_zinc);
    assert_int_equal((size_t)v->nlags, trv_csv_nrows(ref));
    assert_int_equal(v->npoints, 155);
    double max_np = 0.0, max_dist = 0.0, max_gamma = 0.0;
    for (int k = 0; k < v->nlags; k++) {
        double np = cell_double(ctx, ref, (size_t)k, "np");
        double dist = cell_double(ctx, ref, (size_t)k, "dist");
        double gamma = cell_double(ctx, ref, (size_t)k, "gamma");
        assert_int_equal(v->np[k], (long)np);
        assert_rel(v->dist[k], dist, 1e-6);
        assert_rel(v->gamma[k], gamma, 1e-6);
        max_np = fmax(max_np, fabs((double)v->np[k] - np));
        max_dist = fmax(max_dist, rel_diff(v->dist[k], dist));
        max_gamma = fmax(max_gamma, rel_diff(v->gamma[k], gamma));
    }
    printf("variogram %s vs gstat: %d lags, max |np diff| %g, max rel diff dist %.2g, gamma %.2g\n",
           var_name(log_zinc), v->nlags, max_np, max_dist, max_gamma);
    krg_vgm_free(v);
    trv_csv_free(ref);
    trv_ctx_free(ctx);
}

static void test_meuse_variogram(void **state)
{
    (void)state;
    check_meuse_variogram(1);
    check_meuse_variogram(0);
}

/* ---- fits against gstat --------------------------------------------------------- */

static void check_meuse_sph_fit(int log_zinc)
{
    trv_ctx *ctx = trv_ctx_new();
    char rel[128];
    snprintf(rel, sizeof rel, "gstat/meuse_%s_fit.csv", var_name(log_zinc));
    trv_csv *ref = read_csv_at(ctx, testdata_path(rel));
    int cmodel;
    assert_int_equal(trv_csv_require(ctx, ref, "model", &cmodel), TRV_OK);
    double nugget = NAN, psill = NAN, range = NAN;
    for (size_t r = 0; r < trv_csv_nrows(ref); r++) {
        const char *m = trv_csv_cell(ref, r, cmodel);
        if (strcmp(m, "Nug") == 0)
            nugget = cell_double(ctx, ref, r, "psill");
        else if (strcmp(m, "Sph") == 0) {
            psill = cell_double(ctx, ref, r, "psill");
            range = cell_double(ctx, ref, r, "range");
        }
    }
    assert_true(isfinite(nugget) && isfinite(psill) && isfinite(range));

    krg_vgm *v = meuse_variogram(log_zinc);
    krg_model init = meuse_init(log_zinc), fit;
    double wsse = NAN;
    /* (its speed is measured by make bench: bench/krige.sh, "meuse Sph fit") */
    assert_int_equal(krg_fit(ctx, v, KRG_SPH, KRG_FIT_NH_H2, &init, &fit, &wsse), TRV_OK);
    assert_int_equal(fit.type, KRG_SPH);
    assert_rel(fit.nugget, nugget, 0.01);
    assert_rel(fit.psill, psill, 0.01);
    assert_rel(fit.range, range, 0.01);
    assert_true(isfinite(wsse) && wsse > 0.0);
    printf("fit %s Sph vs gstat: nugget %.6g (%.6g, %.2g), psill %.6g (%.6g, %.2g), range %.6g (%.6g, %.2g); "
           "WSSE %.6g\n",
           var_name(log_zinc), fit.nugget, nugget, rel_diff(fit.nugget, nugget), fit.psill, psill,
           rel_diff(fit.psill, psill), fit.range, range, rel_diff(fit.range, range), wsse);

    /* Without starting values the scan's lowest point is the same optimum. */
    krg_model fit_auto;
    assert_int_equal(krg_fit(ctx, v, KRG_SPH, KRG_FIT_NH_H2, NULL, &fit_auto, NULL), TRV_OK);
    assert_rel(fit_auto.range, fit.range, 1e-6);
    /* A start far below the first lag sees a flat profile (Sph is a pure
     * nugget there); the fit then falls back to the scan's lowest point. */
    krg_model tiny = init, fit_tiny;
    tiny.range = 5.0;
    assert_int_equal(krg_fit(ctx, v, KRG_SPH, KRG_FIT_NH_H2, &tiny, &fit_tiny, NULL), TRV_OK);
    assert_rel(fit_tiny.range, fit.range, 1e-6);
    krg_vgm_free(v);
    trv_csv_free(ref);
    trv_ctx_free(ctx);
}

static void test_meuse_sph_fit(void **state)
{
    (void)state;
    check_meuse_sph_fit(1);
    check_meuse_sph_fit(0);
}

/* ---- local-minimum checks --------------------------------------------------------- */

/* Weights as gstat's fit.c defines them; method 2 uses the starting model. */
static void fit_weights(const krg_vgm *v, krg_fit_method method, const krg_model *init, double *w)
{
    for (int i = 0; i < v->nlags; i++) {
        if (method == KRG_FIT_OLS)
            w[i] = 1.0;
        else if (method == KRG_FIT_NH_H2)
            w[i] = v->np[i] / (v->dist[i] * v->dist[i]);
        else {
            double g = krg_gamma(init, v->dist[i]);
            w[i] = v->np[i] / (g * g);
        }
    }
}

static double test_wsse(const krg_vgm *v, const double *w, const krg_model *m)
{
    double s = 0.0;
    for (int i = 0; i < v->nlags; i++) {
        double r = v->gamma[i] - krg_gamma(m, v->dist[i]);
        s += w[i] * r * r;
    }
    return s;
}

/* The best nugget, psill >= 0 for a fixed range: minimise the quadratic on
 * the interior (normal equations) and on each edge, keep the lowest. */
static double best_linear_wsse(const krg_vgm *v, const double *w, krg_model m)
{
    double a11 = 0, a12 = 0, a22 = 0, b1 = 0, b2 = 0;
    krg_model unit = m;
    unit.nugget = 0.0;
    unit.psill = 1.0;
    for (int i = 0; i < v->nlags; i++) {
        double f = krg_gamma(&unit, v->dist[i]);
        a11 += w[i];
        a12 += w[i] * f;
        a22 += w[i] * f * f;
        b1 += w[i] * v->gamma[i];
        b2 += w[i] * f * v->gamma[i];
    }
    double cands[3][2] = {{0.0, fmax(0.0, b2 / a22)}, {fmax(0.0, b1 / a11), 0.0}, {-1.0, -1.0}};
    double det = a11 * a22 - a12 * a12;
    if (det > 0.0) {
        cands[2][0] = (a22 * b1 - a12 * b2) / det;
        cands[2][1] = (a11 * b2 - a12 * b1) / det;
    }
    double best = INFINITY;
    for (int c = 0; c < 3; c++) {
        if (cands[c][0] < 0.0 || cands[c][1] < 0.0)
            continue;
        m.nugget = cands[c][0];
        m.psill = cands[c][1];
        best = fmin(best, test_wsse(v, w, &m));
    }
    return best;
}

static void check_local_minimum(const krg_vgm *v, krg_model_type type, krg_fit_method method, const krg_model *init,
                                const char *label)
{
    trv_ctx *ctx = trv_ctx_new();
    krg_model fit;
    double wsse;
    if (krg_fit(ctx, v, type, method, init, &fit, &wsse) != TRV_OK)
        fail_msg("%s: %s", label, trv_errmsg(ctx));
    assert_int_equal(fit.type, type);
    assert_true(fit.nugget >= 0.0 && fit.psill > 0.0 && fit.range > 0.0);
    if (type == KRG_POW)
        assert_true(fit.range <= 2.0);
    if (type == KRG_MAT)
        assert_true(fit.kappa == init->kappa);

    double *w = malloc((size_t)v->nlags * sizeof *w);
    assert_non_null(w);
    fit_weights(v, method, init, w);
    /* the reported WSSE is that of the returned model */
    assert_rel(test_wsse(v, w, &fit), wsse, 1e-9);
    /* and the linear part is optimal for the returned range */
    assert_true(best_linear_wsse(v, w, fit) >= wsse * (1.0 - 1e-12));
    for (int s = -1; s <= 1; s += 2) {
        krg_model m = fit;
        m.range *= 1.0 + 0.01 * s;
        if (type == KRG_POW && m.range > 2.0)
            continue;
        double e = best_linear_wsse(v, w, m);
        if (e < wsse * (1.0 - 1e-12))
            fail_msg("%s: range %.10g -> %.10g lowers the WSSE %.10g -> %.10g", label, fit.range, m.range, wsse,
                     e);
    }
    printf("fit %-28s nugget %-11.6g psill %-11.6g range %-11.6g WSSE %.6g\n", label, fit.nugget, fit.psill,
           fit.range, wsse);
    free(w);
    trv_ctx_free(ctx);
}

static void test_local_minima(void **state)
{
    (void)state;
    const krg_model_type types[] = {KRG_SPH, KRG_EXP, KRG_GAU, KRG_MAT, KRG_POW};
    const krg_fit_method methods[] = {KRG_FIT_NH_H2, KRG_FIT_OLS, KRG_FIT_CRESSIE};
    for (int lz = 1; lz >= 0; lz--) {
        krg_vgm *v = meuse_variogram(lz);
        for (size_t t = 0; t < sizeof types / sizeof *types; t++) {
            for (size_t k = 0; k < sizeof methods / sizeof *methods; k++) {
                krg_model init = meuse_init(lz);
                init.type = types[t];
                init.kappa = 1.5;
                if (types[t] == KRG_EXP)
                    init.range /= 3.0; /* gstat's Exp range is a third of the practical range */
                if (types[t] == KRG_POW) {
                    init.range = 0.5;
                    init.psill = 0.02;
                }
                char label[64];
                snprintf(label, sizeof label, "%s %s%s method %d", var_name(lz), krg_model_name(types[t]),
                         types[t] == KRG_MAT ? "(1.5)" : "", (int)methods[k]);
                check_local_minimum(v, types[t], methods[k], &init, label);
            }
        }
        /* as the model choice calls it: no start, Mat's kappa only */
        krg_model kappa_only = {KRG_MAT, 0.0, 0.0, 0.0, 2.5};
        char label[64];
        snprintf(label, sizeof label, "%s Mat(2.5) auto method 7", var_name(lz));
        check_local_minimum(v, KRG_MAT, KRG_FIT_NH_H2, &kappa_only, label);
        krg_vgm_free(v);
    }
}

/* ---- error paths -------------------------------------------------------------------- */

static void expect_vgm_error(trv_ctx *ctx, const krg_points *p, double cutoff, double width, size_t max_points,
                             trv_status want, const char *msg)
{
    static krg_vgm sentinel;
    krg_vgm *v = &sentinel; /* must come back NULL */
    assert_int_equal(krg_variogram(ctx, p, cutoff, width, max_points, 0, &v), want);
    assert_null(v);
    assert_contains(trv_errmsg(ctx), msg);
}

static void test_variogram_errors(void **state)
{
    (void)state;
    trv_ctx *ctx = trv_ctx_new();
    krg_points *none = pts_make(0), *one = pts_make(1), *same = pts_make(4), *far = pts_make(3);
    expect_vgm_error(ctx, none, 0, 0, 0, TRV_ERR_DATA, "cannot compute a variogram: 0 points, at least 2 needed");
    expect_vgm_error(ctx, one, 0, 0, 0, TRV_ERR_DATA, "cannot compute a variogram: 1 point, at least 2 needed");
    for (int i = 0; i < 4; i++) {
        same->x[i] = 10.0;
        same->y[i] = -5.0;
        same->z[i] = i;
    }
    expect_vgm_error(ctx, same, 0, 0, 0, TRV_ERR_DATA, "cannot compute a variogram: all 4 points are at the same");
    expect_vgm_error(ctx, same, 5, 1, 0, TRV_ERR_DATA, "same location");
    for (int i = 0; i < 3; i++) {
        far->x[i] = 100.0 * i;
        far->z[i] = i;
    }
    expect_vgm_error(ctx, far, 50, 0, 0, TRV_ERR_DATA, "cannot compute a variogram: no pairs of points within the cutoff");
    expect_vgm_error(ctx, far, NAN, 0, 0, TRV_ERR_USAGE, "invalid variogram cutoff");
    expect_vgm_error(ctx, far, INFINITY, 0, 0, TRV_ERR_USAGE, "invalid variogram cutoff");
    expect_vgm_error(ctx, far, 0, NAN, 0, TRV_ERR_USAGE, "invalid variogram lag width");
    expect_vgm_error(ctx, far, 1e9, 1e-3, 0, TRV_ERR_USAGE, "too small");
    expect_vgm_error(ctx, far, 0, 0, 1, TRV_ERR_USAGE, "subsample");
    expect_vgm_error(ctx, NULL, 0, 0, 0, TRV_ERR_USAGE, "no points");
    far->z[1] = NAN;
    expect_vgm_error(ctx, far, 0, 0, 0, TRV_ERR_DATA, "point 1 has a non-finite value");
    far->z[1] = 1.0;
    far->x[2] = INFINITY;
    expect_vgm_error(ctx, far, 0, 0, 0, TRV_ERR_DATA, "point 2 has a non-finite coordinate");
    assert_int_equal(krg_variogram(ctx, one, 0, 0, 0, 0, NULL), TRV_ERR_USAGE);
    pts_free(none);
    pts_free(one);
    pts_free(same);
    pts_free(far);
    krg_vgm_free(NULL);
    trv_ctx_free(ctx);
}

static void test_fit_errors(void **state)
{
    (void)state;
    trv_ctx *ctx = trv_ctx_new();
    long np[4] = {10, 20, 30, 40};
    double dist[4] = {1, 2, 3, 4}, gamma[4] = {0.2, 0.4, 0.5, 0.55};
    krg_vgm v = {2, 5.0, 1.0, np, dist, gamma, 10};
    krg_model init = {KRG_SPH, 0.1, 0.5, 3.0, 0.5}, out;
    double wsse;

    assert_int_equal(krg_fit(ctx, &v, KRG_SPH, KRG_FIT_NH_H2, &init, &out, &wsse), TRV_ERR_DATA);
    assert_contains(trv_errmsg(ctx), "cannot fit a 'Sph' model: the variogram has 2 lags, at least 3 needed");
    v.nlags = 4;
    assert_int_equal(krg_fit(ctx, &v, KRG_SPH, KRG_FIT_NH_H2, &init, &out, &wsse), TRV_OK);
    assert_int_equal(krg_fit(ctx, &v, KRG_NMODELS, KRG_FIT_NH_H2, &init, &out, &wsse), TRV_ERR_USAGE);
    assert_contains(trv_errmsg(ctx), "unknown variogram model type");
    assert_int_equal(krg_fit(ctx, &v, KRG_SPH, (krg_fit_method)3, &init, &out, &wsse), TRV_ERR_USAGE);
    assert_contains(trv_errmsg(ctx), "unknown variogram fit method 3");
    assert_int_equal(krg_fit(ctx, NULL, KRG_SPH, KRG_FIT_NH_H2, &init, &out, &wsse), TRV_ERR_USAGE);
    assert_int_equal(krg_fit(ctx, &v, KRG_SPH, KRG_FIT_NH_H2, &init, NULL, &wsse), TRV_ERR_USAGE);
    krg_model bad = init;
    bad.range = -1.0;
    assert_int_equal(krg_fit(ctx, &v, KRG_SPH, KRG_FIT_NH_H2, &bad, &out, &wsse), TRV_ERR_USAGE);
    assert_contains(trv_errmsg(ctx), "invalid initial 'Sph' model");
    bad = init;
    bad.nugget = -0.1;
    assert_int_equal(krg_fit(ctx, &v, KRG_EXP, KRG_FIT_NH_H2, &bad, &out, &wsse), TRV_ERR_USAGE);
    bad = init;
    bad.range = 2.5;
    assert_int_equal(krg_fit(ctx, &v, KRG_POW, KRG_FIT_NH_H2, &bad, &out, &wsse), TRV_ERR_USAGE);
    assert_contains(trv_errmsg(ctx), "exponent <= 2");
    bad = init;
    bad.kappa = 0.0;
    assert_int_equal(krg_fit(ctx, &v, KRG_MAT, KRG_FIT_NH_H2, &bad, &out, &wsse), TRV_ERR_USAGE);
    assert_contains(trv_errmsg(ctx), "kappa > 0");

    /* An init with range 0 carries only Mat's kappa: automatic start. */
    krg_model kappa_only = {KRG_MAT, 0.0, 0.0, 0.0, 2.5};
    assert_int_equal(krg_fit(ctx, &v, KRG_MAT, KRG_FIT_NH_H2, &kappa_only, &out, &wsse), TRV_OK);
    assert_true(out.kappa == 2.5 && out.range > 0.0);
    kappa_only.kappa = -1.0;
    assert_int_equal(krg_fit(ctx, &v, KRG_MAT, KRG_FIT_NH_H2, &kappa_only, &out, &wsse), TRV_ERR_USAGE);
    assert_contains(trv_errmsg(ctx), "invalid 'Mat' kappa -1: need kappa > 0");

    /* A first lag of coincident points only: gstat refuses method 7 too. */
    dist[0] = 0.0;
    assert_int_equal(krg_fit(ctx, &v, KRG_SPH, KRG_FIT_NH_H2, &init, &out, &wsse), TRV_ERR_DATA);
    assert_contains(trv_errmsg(ctx), "lag 1 has mean distance 0");
    assert_int_equal(krg_fit(ctx, &v, KRG_SPH, KRG_FIT_OLS, &init, &out, &wsse), TRV_OK);
    dist[0] = 1.0;

    /* Method 2 divides by the starting model, which must not vanish. */
    krg_model zero = {KRG_SPH, 0.0, 0.0, 3.0, 0.5};
    assert_int_equal(krg_fit(ctx, &v, KRG_SPH, KRG_FIT_CRESSIE, &zero, &out, &wsse), TRV_ERR_DATA);
    assert_contains(trv_errmsg(ctx), "infinite weight");
    trv_ctx_free(ctx);
}

/* ---- subsampling --------------------------------------------------------------------- */

static int same_vgm(const krg_vgm *a, const krg_vgm *b)
{
    if (a->nlags != b->nlags || a->npoints != b->npoints || a->cutoff != b->cutoff || a->width != b->width)
        return 0;
    size_t n = (size_t)a->nlags;
    return memcmp(a->np, b->np, n * sizeof *a->np) == 0 && memcmp(a->dist, b->dist, n * sizeof *a->dist) == 0 &&
           memcmp(a->gamma, b->gamma, n * sizeof *a->gamma) == 0;
}

static void test_subsampling(void **state)
{
    (void)state;
    trv_ctx *ctx = trv_ctx_new();
    /* 3000 points of a smooth field plus noise, from a fixed LCG */
    krg_points *p = pts_make(3000);
    uint64_t lcg = 12345;
    for (size_t i = 0; i < p->n; i++) {
        lcg = lcg * 6364136223846793005ULL + 1442695040888963407ULL;
        p->x[i] = (double)(lcg >> 11) / 9007199254740992.0 * 5000.0;
        lcg = lcg * 6364136223846793005ULL + 1442695040888963407ULL;
        p->y[i] = (double)(lcg >> 11) / 9007199254740992.0 * 3000.0;
        lcg = lcg * 6364136223846793005ULL + 1442695040888963407ULL;
        p->z[i] = sin(p->x[i] / 150.0) + cos(p->y[i] / 100.0) + 0.1 * (double)(lcg >> 11) / 9007199254740992.0;
    }
    krg_vgm *a = NULL, *b = NULL, *c = NULL, *all = NULL, *all2 = NULL;
    assert_int_equal(krg_variogram(ctx, p, 0, 0, 400, 7, &a), TRV_OK);
    assert_int_equal(krg_variogram(ctx, p, 0, 0, 400, 7, &b), TRV_OK);
    assert_int_equal(krg_variogram(ctx, p, 0, 0, 400, 8, &c), TRV_OK);
    assert_int_equal(a->npoints, 400);
    assert_true(same_vgm(a, b));
    assert_false(same_vgm(a, c));
    /* the lag classes come from all the points, whatever the draw */
    assert_true(a->cutoff == c->cutoff && a->width == c->width);

    /* a subsample as large as the input is the input */
    assert_int_equal(krg_variogram(ctx, p, 0, 0, 3000, 7, &all), TRV_OK);
    assert_int_equal(krg_variogram(ctx, p, 0, 0, 0, 99, &all2), TRV_OK);
    assert_int_equal(all->npoints, 3000);
    assert_true(same_vgm(all, all2));
    long pairs = 0;
    for (int k = 0; k < all->nlags; k++)
        pairs += all->np[k];
    assert_true(pairs > 0 && pairs <= 3000L * 2999L / 2);

    /* and a subsample still describes the same field */
    krg_model fa, fall;
    assert_int_equal(krg_fit(ctx, a, KRG_SPH, KRG_FIT_NH_H2, NULL, &fa, NULL), TRV_OK);
    assert_int_equal(krg_fit(ctx, all, KRG_SPH, KRG_FIT_NH_H2, NULL, &fall, NULL), TRV_OK);
    printf("subsample fit: range %g from 400 points, %g from all 3000\n", fa.range, fall.range);
    assert_true(fabs(fa.range - fall.range) < 0.25 * fall.range);
    krg_vgm_free(a);
    krg_vgm_free(b);
    krg_vgm_free(c);
    krg_vgm_free(all);
    krg_vgm_free(all2);
    pts_free(p);
    trv_ctx_free(ctx);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_model_names),     cmocka_unit_test(test_gamma_hand_values),
        cmocka_unit_test(test_bessel),          cmocka_unit_test(test_matern),
        cmocka_unit_test(test_lag_assignment),  cmocka_unit_test(test_meuse_variogram),
        cmocka_unit_test(test_meuse_sph_fit),   cmocka_unit_test(test_local_minima),
        cmocka_unit_test(test_variogram_errors), cmocka_unit_test(test_fit_errors),
        cmocka_unit_test(test_subsampling),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
