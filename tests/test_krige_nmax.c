/* The default neighbourhood (krg_choose_nmax, docs/method.md 1.12): the
 * rule on hand-made RMSEs, and three synthetic fields where leave-one-out
 * picks each candidate for a reason checkable by hand. The model there is
 * a pure nugget (Sph with a range far below the spacing: every
 * semivariance between distinct points is the sill), whose ordinary
 * kriging weights are all 1/k, so the leave-one-out prediction is the
 * mean of the k nearest other points: the reference RMSE is computed here
 * by brute force, without the kriging code.
 *   a plane z = x: the mean of a wider neighbourhood is biased at the
 *     borders (its centroid moves inwards): 16 wins;
 *   white noise (variance s^2): E err^2 = s^2 (1 + 1/k), so 16 and 36 lose
 *     2.3 % and 0.6 % against 64, beyond the 0.1 % tolerance: 64;
 *   white noise at 36 points: 36 and 64 both take all 35 others, the same
 *     RMSE, and the tie goes to the cheaper 36 (16 loses 1.6 % in
 *     expectation, 3.6 % with these points: the brute force says so too).
 * The brute-force RMSEs must match krg_choose_nmax's to 1e-9 and give the
 * same choice by the rule. */
#include "test_common.h"

#include "kriging/krige.h"
#include "kriging/krige_priv.h"

static void test_rule(void **state)
{
    (void)state;
    assert_int_equal(KRG_NMAX_NCAND, 3);
    assert_int_equal(krg_nmax_candidates[0], 16);
    assert_int_equal(krg_nmax_candidates[1], 36);
    assert_int_equal(krg_nmax_candidates[2], 64);
    /* within 0.1 % of the least: the cheapest such */
    assert_int_equal(krg_nmax_pick((double[]){1.0009, 1.0, 1.0}, 3), 0);
    assert_int_equal(krg_nmax_pick((double[]){1.0011, 1.0, 1.0}, 3), 1);
    assert_int_equal(krg_nmax_pick((double[]){1.0011, 1.0011, 1.0}, 3), 2);
    assert_int_equal(krg_nmax_pick((double[]){2.0, 1.5, 1.0}, 3), 2);
    assert_int_equal(krg_nmax_pick((double[]){1.0, 1.5, 0.9995}, 3), 0);
    /* the least need not be the largest: a worse wider one never wins */
    assert_int_equal(krg_nmax_pick((double[]){1.2, 1.0, 1.1}, 3), 1);
    /* not finite: never chosen; none finite: -1 */
    assert_int_equal(krg_nmax_pick((double[]){NAN, 1.0, 1.0005}, 3), 1);
    assert_int_equal(krg_nmax_pick((double[]){0.5, INFINITY, 1.0}, 3), 0);
    assert_int_equal(krg_nmax_pick((double[]){NAN, NAN, NAN}, 3), -1);
}

/* n points on a jittered unit lattice (side columns wide), z by field:
 * 0 the plane z = x, 1 white noise N(0, 1) (Box-Muller). */
static krg_points *field(size_t n, int side, int kind, uint64_t seed)
{
    trv_ctx *ctx = trv_ctx_new();
    krg_points *p = NULL;
    assert_int_equal(krg_points_new(ctx, n, &p), TRV_OK);
    trv_rng r;
    trv_rng_seed(&r, seed);
    for (size_t i = 0; i < n; i++) {
        p->x[i] = (double)(i % (size_t)side) + 0.6 * (trv_rng_uniform(&r) - 0.5);
        p->y[i] = (double)(i / (size_t)side) + 0.6 * (trv_rng_uniform(&r) - 0.5);
        double u = trv_rng_uniform(&r), v = trv_rng_uniform(&r);
        p->z[i] = kind == 0 ? p->x[i] : sqrt(-2 * log(1 - u)) * cos(2 * M_PI * v);
    }
    trv_ctx_free(ctx);
    return p;
}

static int cmp_d(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Leave-one-out RMSE of the mean of the k nearest other points, brute force. */
static double mean_knn_rmse(const krg_points *p, int k)
{
    double *d = malloc(p->n * sizeof *d * 2), se = 0;
    for (size_t i = 0; i < p->n; i++) {
        size_t m = 0;
        for (size_t j = 0; j < p->n; j++)
            if (j != i) {
                d[2 * m] = hypot(p->x[j] - p->x[i], p->y[j] - p->y[i]);
                d[2 * m + 1] = p->z[j];
                m++;
            }
        qsort(d, m, 2 * sizeof *d, cmp_d);
        size_t kk = (size_t)k < m ? (size_t)k : m;
        double s = 0;
        for (size_t q = 0; q < kk; q++)
            s += d[2 * q + 1];
        double e = s / (double)kk - p->z[i];
        se += e * e;
    }
    free(d);
    return sqrt(se / (double)p->n);
}

static void check_field(size_t n, int side, int kind, uint64_t seed, int want)
{
    trv_ctx *ctx = trv_ctx_new();
    krg_points *p = field(n, side, kind, seed);
    krg_index *ix = NULL;
    assert_int_equal(krg_index_new(ctx, p, &ix), TRV_OK);
    krg_model nug = {KRG_SPH, 0, 1, 1e-6, 0};
    krg_opts ko;
    krg_opts_init(&ko);
    ko.threads = 2;
    krg_choice_opts co;
    krg_choice_opts_init(&co);
    co.cv_points = 0; /* every point: the reference's */
    krg_nmax_choice c;
    assert_int_equal(krg_choose_nmax(ctx, p, ix, &nug, &ko, &co, &c), TRV_OK);
    assert_int_equal(c.n, 3);
    double ref[3];
    for (int k = 0; k < 3; k++) {
        ref[k] = mean_knn_rmse(p, krg_nmax_candidates[k]);
        print_message("n %zu field %d: nmax %d rmse %.9g (brute force %.9g)\n", n, kind, c.nmax[k], c.cv_rmse[k],
                      ref[k]);
        assert_int_equal(c.nmax[k], krg_nmax_candidates[k]);
        assert_true(fabs(c.cv_rmse[k] - ref[k]) <= 1e-9 * ref[k]);
    }
    assert_int_equal(krg_nmax_candidates[krg_nmax_pick(ref, 3)], want);
    assert_int_equal(c.chosen, want);
    krg_index_free(ix);
    krg_points_free(p);
    trv_ctx_free(ctx);
}

static void test_plane_picks_16(void **state)
{
    (void)state;
    check_field(24 * 24, 24, 0, 11, 16);
}

static void test_noise_picks_64(void **state)
{
    (void)state;
    check_field(40 * 40, 40, 1, 11, 64);
}

static void test_tie_picks_36(void **state)
{
    (void)state;
    check_field(36, 6, 1, 1, 36);
}

/* No candidate can be cross-validated (fewer than 2 points): refused. */
static void test_none(void **state)
{
    (void)state;
    trv_ctx *ctx = trv_ctx_new();
    krg_points *p = field(1, 1, 1, 3);
    krg_index *ix = NULL;
    assert_int_equal(krg_index_new(ctx, p, &ix), TRV_OK);
    krg_model nug = {KRG_SPH, 0, 1, 1e-6, 0};
    krg_opts ko;
    krg_opts_init(&ko);
    krg_choice_opts co;
    krg_choice_opts_init(&co);
    krg_nmax_choice c;
    assert_int_equal(krg_choose_nmax(ctx, p, ix, &nug, &ko, &co, &c), TRV_ERR_DATA);
    assert_contains(trv_errmsg(ctx), "no neighbourhood of 16, 36 or 64 points could be cross-validated");
    krg_index_free(ix);
    krg_points_free(p);
    trv_ctx_free(ctx);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rule),          cmocka_unit_test(test_plane_picks_16), cmocka_unit_test(test_noise_picks_64),
        cmocka_unit_test(test_tie_picks_36), cmocka_unit_test(test_none),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
