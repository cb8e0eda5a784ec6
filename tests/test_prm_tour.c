/* The order of a mission's stops (src/prm/tour.c): Held-Karp against a
 * brute force over every permutation on seeded random asymmetric matrices
 * (n = 2..9, open and closed), a hand-solved case, and the heuristic's gap
 * against Held-Karp on random instances of up to 12 stops to order
 * (docs/tests.md reports it). */
#include "test_common.h"

#include <math.h>

#include "prm/prm.h"

/* random asymmetric costs in [1, 100) with a zero diagonal */
static void random_matrix(trv_rng *g, int n, double *c)
{
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++)
            c[i * n + j] = i == j ? 0 : 1 + 99 * trv_rng_uniform(g);
}

/* the brute force: every permutation of the stops to order (Heap's
 * algorithm), each path summed here */
static double brute(int n, const double *c, int closed)
{
    int m = closed ? n - 1 : n - 2, a[16], cnt[16] = {0};
    for (int k = 0; k < m; k++)
        a[k] = 1 + k;
    double best = INFINITY;
    for (int i = 0;;) {
        double sum = 0;
        int prev = 0;
        for (int k = 0; k < m; k++)
            sum += c[prev * n + a[k]], prev = a[k];
        sum += c[prev * n + (closed ? 0 : n - 1)];
        if (sum < best)
            best = sum;
        while (i < m && cnt[i] >= i)
            cnt[i++] = 0;
        if (i >= m)
            break;
        int j = i % 2 ? cnt[i] : 0, t = a[j];
        a[j] = a[i], a[i] = t;
        cnt[i]++, i = 1;
    }
    return best;
}

/* order is a permutation with the fixed ends where they belong */
static void assert_order(int n, const int *order, int closed)
{
    int seen[32] = {0};
    assert_int_equal(order[0], 0);
    if (!closed)
        assert_int_equal(order[n - 1], n - 1);
    for (int k = 0; k < n; k++) {
        assert_true(order[k] >= 0 && order[k] < n);
        assert_int_equal(seen[order[k]]++, 0);
    }
}

static void test_exact_brute_force(void **state)
{
    (void)state;
    trv_ctx *ctx = trv_ctx_new();
    trv_rng g;
    trv_rng_seed(&g, 18);
    int cases = 0;
    for (int n = 2; n <= 9; n++)
        for (int closed = 0; closed <= 1; closed++)
            for (int rep = 0; rep < 6; rep++) {
                double c[81], total;
                int order[9];
                random_matrix(&g, n, c);
                assert_int_equal(prm_tour_exact(ctx, n, c, closed, order, &total), TRV_OK);
                assert_order(n, order, closed);
                double b = brute(n, c, closed);
                assert_float_equal(total, b, 1e-9 * b);
                assert_float_equal(prm_tour_cost(n, c, closed, order), total, 1e-9 * b);
                cases++;
            }
    printf("  Held-Karp = brute force on %d random asymmetric instances (n = 2..9, open and closed)\n", cases);
    trv_ctx_free(ctx);
}

/* by hand: 4 stops open, 0 -> {1, 2} -> 3; going 2 before 1 is cheap one
 * way only (asymmetric): 0-2 1, 2-1 1, 1-3 1 = 3; the other order 0-1 5,
 * 1-2 5, 2-3 5 = 15. Closed on 3 stops: 0-1-2-0 = 1+1+1 = 3 vs 0-2-1-0 =
 * 9+9+9 = 27. An unreachable leg is an error. */
static void test_exact_hand(void **state)
{
    (void)state;
    trv_ctx *ctx = trv_ctx_new();
    double c[16] = {0, 5, 1, 9, 9, 0, 5, 1, 9, 1, 0, 5, 9, 9, 9, 0};
    int order[4];
    double total;
    assert_int_equal(prm_tour_exact(ctx, 4, c, 0, order, &total), TRV_OK);
    assert_int_equal(order[1], 2);
    assert_int_equal(order[2], 1);
    assert_float_equal(total, 3, 1e-12);
    double d[9] = {0, 1, 9, 9, 0, 1, 1, 9, 0};
    assert_int_equal(prm_tour_exact(ctx, 3, d, 1, order, &total), TRV_OK);
    assert_int_equal(order[1], 1);
    assert_int_equal(order[2], 2);
    assert_float_equal(total, 3, 1e-12);
    assert_int_equal(prm_tour_heuristic(ctx, 3, d, 1, order, &total), TRV_OK);
    assert_float_equal(total, 3, 1e-12);
    d[1 * 3 + 2] = d[1 * 3 + 0] = INFINITY; /* stop 1 leads nowhere */
    assert_int_equal(prm_tour_exact(ctx, 3, d, 1, order, &total), TRV_ERR_DATA);
    assert_contains(trv_errmsg(ctx), "unreachable");
    assert_int_equal(prm_tour_heuristic(ctx, 3, d, 1, order, &total), TRV_ERR_DATA);
    /* more than PRM_TOUR_EXACT_MAX to order: prm_tour_order takes the heuristic */
    enum { N = PRM_TOUR_EXACT_MAX + 3 };
    double e[N * N];
    int o2[N], exact = -1;
    trv_rng g;
    trv_rng_seed(&g, 3);
    random_matrix(&g, N, e);
    assert_int_not_equal(prm_tour_exact(ctx, N, e, 0, o2, &total), TRV_OK);
    assert_int_equal(prm_tour_order(ctx, N, e, 0, o2, &total, &exact), TRV_OK);
    assert_int_equal(exact, 0);
    assert_order(N, o2, 0);
    assert_int_equal(prm_tour_order(ctx, N - 1, e, 0, o2, &total, &exact), TRV_OK);
    assert_int_equal(exact, 1);
    trv_ctx_free(ctx);
}

/* The heuristic's gap against Held-Karp: random asymmetric instances and
 * random points in the plane with a direction-dependent factor (uphill
 * slower), 3..12 stops to order, open and closed. Asserted: never below
 * the optimum; mean gap under 1 % and worst under 20 % (random matrices),
 * under 0.2 % and 5 % (points: costs like a terrain's). */
static void test_heuristic_gap(void **state)
{
    (void)state;
    trv_ctx *ctx = trv_ctx_new();
    trv_rng g;
    trv_rng_seed(&g, 1962);
    for (int kind = 0; kind < 2; kind++) {
    double sum = 0, worst = 0;
    int cases = 0, optimal = 0;
        for (int n = 5; n <= 14; n++)
            for (int closed = 0; closed <= 1; closed++)
                for (int rep = 0; rep < 10; rep++) {
                    int nn = closed ? n - 1 : n;
                    double c[14 * 14], x[14], y[14], z[14], h, e;
                    int o1[14], o2[14];
                    if (kind == 0)
                        random_matrix(&g, nn, c);
                    else {
                        for (int i = 0; i < nn; i++)
                            x[i] = 1000 * trv_rng_uniform(&g), y[i] = 1000 * trv_rng_uniform(&g),
                            z[i] = 100 * trv_rng_uniform(&g);
                        for (int i = 0; i < nn; i++)
                            for (int j = 0; j < nn; j++)
                                c[i * nn + j] = hypot(x[j] - x[i], y[j] - y[i]) * (1 + 0.02 * fmax(0, z[j] - z[i]));
                    }
                    assert_int_equal(prm_tour_exact(ctx, nn, c, closed, o1, &e), TRV_OK);
                    assert_int_equal(prm_tour_heuristic(ctx, nn, c, closed, o2, &h), TRV_OK);
                    assert_order(nn, o2, closed);
                    assert_float_equal(prm_tour_cost(nn, c, closed, o2), h, 1e-9 * h);
                    double gap = h / e - 1;
                    assert_true(gap > -1e-12);
                    sum += gap, cases++, optimal += gap < 1e-12;
                    worst = fmax(worst, gap);
                }
    printf("  heuristic vs Held-Karp, %s, %d instances (3..12 stops to order): mean gap %.3f %%, worst %.2f %%, "
           "optimal in %d\n", kind ? "points with uphill factor" : "random asymmetric", cases, 100 * sum / cases, 100 * worst, optimal);
    assert_true(sum / cases < (kind ? 0.002 : 0.01));
    assert_true(worst < (kind ? 0.05 : 0.20));
    }
    trv_ctx_free(ctx);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_exact_brute_force),
        cmocka_unit_test(test_exact_hand),
        cmocka_unit_test(test_heuristic_gap),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
