/* Leave-one-out kriging with searched-once neighbour sets (krg_cv_with,
 * the model choice's path; docs/method.md 1.5): models with a sill go
 * through the covariance form's Cholesky (krige.c loo_cov), Pow and
 * systems with a pivot below 1e-8 s through LAPACK's LDL' (krg_cv's).
 * On 400 seeded scattered points (a smooth surface plus noise):
 *   - every prediction and kriging variance against a long-double
 *     Gaussian elimination with partial pivoting of the bordered system
 *     of section 1.6 over the same neighbours, written out here (brute
 *     force, no LAPACK), to 1e-9 relative to the data's spread and the
 *     sill: Sph, Exp, Gau, Mat 1.5 and 2.5, with and without a nugget,
 *     nmax 16, 36 and 64 (and not krg_cv's bits everywhere: the
 *     covariance form was taken);
 *   - Pow and a Gau whose range is 40 sample spacings (every system's
 *     covariance matrix nearly singular: pivots far below 1e-8 s) give
 *     krg_cv's bits, i.e. they go the LDL' way;
 *   - the sets' distance tables (krg_cv_sets_dist, what a model choice's
 *     runs share): every table entry against the distance computed here
 *     from the points, and krg_cv_with's predictions and variances with
 *     the tables the same bits as without, on 1 and 2 threads, for every
 *     model above. */
#include "test_common.h"

#include <string.h>

#include "kriging/krige.h"
#include "kriging/krige_priv.h"

enum { NP = 400, KMAX = 64 };

static krg_points *points(void)
{
    krg_points *p = NULL;
    assert_int_equal(krg_points_new(NULL, NP, &p), TRV_OK);
    trv_rng g;
    trv_rng_seed(&g, 11);
    for (int i = 0; i < NP; i++) {
        p->x[i] = 2000 * trv_rng_uniform(&g);
        p->y[i] = 2000 * trv_rng_uniform(&g);
        p->z[i] = 100 + 30 * sin(p->x[i] / 300) * cos(p->y[i] / 450) + 0.02 * p->x[i] + 2 * trv_rng_uniform(&g);
    }
    return p;
}

/* z* and sigma^2 at (x, y) from the n points idx: the bordered system
 * [G 1; 1' 0] [l; mu] = [g0; 1] by Gaussian elimination with partial
 * pivoting in long double; z* = l'z, sigma^2 = l'g0 + mu. */
static void brute(const krg_points *p, const krg_model *m, const long *idx, int n, double x, double y,
                  double *pred, double *var)
{
    static long double A[KMAX + 1][KMAX + 2];
    int N = n + 1;
    for (int i = 0; i < n; i++) {
        for (int j = 0; j < n; j++) {
            double dx = p->x[idx[i]] - p->x[idx[j]], dy = p->y[idx[i]] - p->y[idx[j]];
            A[i][j] = i == j ? 0 : krg_gamma(m, sqrt(dx * dx + dy * dy));
        }
        A[i][n] = 1;
        double dx = p->x[idx[i]] - x, dy = p->y[idx[i]] - y;
        A[i][N] = krg_gamma(m, sqrt(dx * dx + dy * dy));
        A[n][i] = 1;
    }
    A[n][n] = 0;
    A[n][N] = 1;
    long double g0[KMAX];
    for (int i = 0; i < n; i++)
        g0[i] = A[i][N];
    for (int c = 0; c < N; c++) {
        int piv = c;
        for (int r = c + 1; r < N; r++)
            if (fabsl(A[r][c]) > fabsl(A[piv][c]))
                piv = r;
        for (int k = 0; k <= N; k++) {
            long double t = A[c][k];
            A[c][k] = A[piv][k];
            A[piv][k] = t;
        }
        for (int r = c + 1; r < N; r++) {
            long double f = A[r][c] / A[c][c];
            for (int k = c; k <= N; k++)
                A[r][k] -= f * A[c][k];
        }
    }
    long double sol[KMAX + 1] = {0};
    for (int r = N - 1; r >= 0; r--) {
        long double s = A[r][N];
        for (int k = r + 1; k < N; k++)
            s -= A[r][k] * sol[k];
        sol[r] = s / A[r][r];
    }
    long double z = 0, v = sol[n];
    for (int i = 0; i < n; i++) {
        z += sol[i] * p->z[idx[i]];
        v += sol[i] * g0[i];
    }
    *pred = (double)z;
    *var = (double)v;
}

/* The sets' distance tables for the points which (n of them; NULL: all):
 * each entry |s_i - s_t| (i < cnt), then |s_i - s_j| (j < cnt, i > j,
 * column by column) against hypot() from the points; with them, on 1 and
 * 2 threads, the bits of the run without. */
static void check_tables_of(trv_ctx *ctx, const krg_points *p, const krg_index *ix, const krg_model *m,
                            const krg_opts *o, size_t n, const long *which)
{
    krg_cv_sets *sets = NULL;
    assert_int_equal(krg_cv_sets_new(ctx, p, ix, o, n, which, &sets), TRV_OK);
    static double pr[NP], va[NP], pt[NP], vt[NP];
    assert_int_equal(krg_cv_with(ctx, p, ix, m, o, n, which, sets, pr, va), TRV_OK);
    assert_null(sets->h);
    assert_int_equal(krg_cv_sets_dist(ctx, p, sets, which), TRV_OK);
    int k = sets->k;
    size_t stride = (size_t)k + (size_t)k * (k - 1) / 2;
    for (size_t t = 0; t < n; t++) {
        const long *idx = sets->idx + t * k;
        const double *h = sets->h + t * stride;
        long w = which ? which[t] : (long)t;
        int c = sets->cnt[t], q = c;
        for (int i = 0; i < c; i++) {
            double d = hypot(p->x[idx[i]] - p->x[w], p->y[idx[i]] - p->y[w]);
            assert_true(fabs(h[i] - d) <= 1e-12 * d);
        }
        for (int j = 0; j < c; j++)
            for (int i = j + 1; i < c; i++, q++) {
                double d = hypot(p->x[idx[i]] - p->x[idx[j]], p->y[idx[i]] - p->y[idx[j]]);
                assert_true(fabs(h[q] - d) <= 1e-12 * d);
            }
    }
    for (int threads = 1; threads <= 2; threads++) {
        krg_opts ot = *o;
        ot.threads = threads;
        assert_int_equal(krg_cv_with(ctx, p, ix, m, &ot, n, which, sets, pt, vt), TRV_OK);
        assert_memory_equal(pt, pr, n * sizeof *pt);
        assert_memory_equal(vt, va, n * sizeof *vt);
    }
    krg_cv_sets_free(sets);
}

/* check_tables_of on all points and on every third one. */
static void check_tables(trv_ctx *ctx, const krg_points *p, const krg_index *ix, const krg_model *m,
                         const krg_opts *o)
{
    long which[NP / 3 + 1];
    size_t n = 0;
    for (long i = 1; i < NP; i += 3)
        which[n++] = i;
    check_tables_of(ctx, p, ix, m, o, NP, NULL);
    check_tables_of(ctx, p, ix, m, o, n, which);
}

static void test_against_brute_force(void **state)
{
    (void)state;
    trv_ctx *ctx = trv_ctx_new();
    krg_points *p = points();
    krg_index *ix = NULL;
    assert_int_equal(krg_index_new(ctx, p, &ix), TRV_OK);
    static const krg_model models[] = {
        {KRG_SPH, 0, 900, 700, 0},   {KRG_EXP, 0, 900, 400, 0},  {KRG_GAU, 0, 900, 150, 0},
        {KRG_MAT, 0, 900, 120, 1.5}, {KRG_MAT, 0, 900, 90, 2.5}, {KRG_SPH, 4, 900, 700, 0},
        {KRG_EXP, 4, 900, 400, 0},   {KRG_GAU, 4, 900, 300, 0},  {KRG_MAT, 4, 900, 150, 2.5},
    };
    static const int nmaxes[] = {16, 36, 64};
    double pr[NP], va[NP], pr2[NP], va2[NP], spread = 0;
    for (int i = 0; i < NP; i++)
        spread = fmax(spread, fabs(p->z[i] - p->z[0]));
    for (size_t mi = 0; mi < sizeof models / sizeof models[0]; mi++)
        for (int ni = 0; ni < 3; ni++) {
            const krg_model *m = &models[mi];
            krg_opts o;
            krg_opts_init(&o);
            o.nmax = nmaxes[ni];
            o.threads = 1 + ni % 2;
            krg_cv_sets *sets = NULL;
            assert_int_equal(krg_cv_sets_new(ctx, p, ix, &o, NP, NULL, &sets), TRV_OK);
            assert_non_null(sets);
            assert_int_equal(krg_cv_with(ctx, p, ix, m, &o, NP, NULL, sets, pr, va), TRV_OK);
            /* the covariance form was taken: not LDL''s bits everywhere */
            assert_int_equal(krg_cv(ctx, p, ix, m, &o, NP, NULL, pr2, va2), TRV_OK);
            assert_true(memcmp(pr, pr2, sizeof pr) != 0);
            double wz = 0, wv = 0, s = m->nugget + m->psill;
            for (int t = 0; t < NP; t++) {
                double bz, bv;
                brute(p, m, sets->idx + (size_t)t * sets->k, sets->cnt[t], p->x[t], p->y[t], &bz, &bv);
                wz = fmax(wz, fabs(pr[t] - bz) / spread);
                wv = fmax(wv, fabs(va[t] - bv) / s);
            }
            printf("  %s kappa %.1f nugget %g nmax %d: max |z - brute| %.2e of the spread, |var - brute| "
                   "%.2e of the sill\n",
                   krg_model_name(m->type), m->kappa, m->nugget, o.nmax, wz, wv);
            assert_true(wz <= 1e-9);
            assert_true(wv <= 1e-9);
            check_tables(ctx, p, ix, m, &o);
            krg_cv_sets_free(sets);
        }
    krg_index_free(ix);
    krg_points_free(p);
    trv_ctx_free(ctx);
}

static void test_ldl_cases(void **state)
{
    (void)state;
    trv_ctx *ctx = trv_ctx_new();
    krg_points *p = points();
    krg_index *ix = NULL;
    assert_int_equal(krg_index_new(ctx, p, &ix), TRV_OK);
    /* spacing about 2000 / sqrt(400) = 100 m */
    static const krg_model models[] = {{KRG_POW, 0, 3, 1.5, 0}, {KRG_POW, 2, 3, 1.2, 0}, {KRG_GAU, 0, 900, 4000, 0}};
    double pr[NP], va[NP], pr2[NP], va2[NP];
    for (size_t mi = 0; mi < sizeof models / sizeof models[0]; mi++) {
        krg_opts o;
        krg_opts_init(&o);
        o.nmax = 16;
        krg_cv_sets *sets = NULL;
        assert_int_equal(krg_cv_sets_new(ctx, p, ix, &o, NP, NULL, &sets), TRV_OK);
        trv_status a = krg_cv_with(ctx, p, ix, &models[mi], &o, NP, NULL, sets, pr, va);
        trv_status b = krg_cv(ctx, p, ix, &models[mi], &o, NP, NULL, pr2, va2);
        assert_int_equal(a, b);
        if (a == TRV_OK) {
            assert_memory_equal(pr, pr2, sizeof pr);
            assert_memory_equal(va, va2, sizeof va);
        }
        printf("  %s range %g: krg_cv's bits (%s)\n", krg_model_name(models[mi].type), models[mi].range,
               a == TRV_OK ? "solved" : "singular in both");
        if (a == TRV_OK)
            check_tables(ctx, p, ix, &models[mi], &o);
        krg_cv_sets_free(sets);
    }
    krg_index_free(ix);
    krg_points_free(p);
    trv_ctx_free(ctx);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_against_brute_force),
        cmocka_unit_test(test_ldl_cases),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
