/* Fleet assignment and routing (src/fleet): the Hungarian method and the
 * bottleneck assignment against brute force over every partial
 * assignment on seeded random matrices with forbidden entries; the route
 * time with windows, waiting and capacity by hand; the MILP (GLPK) on
 * hand-solved cases and against a brute force over every plan; the
 * insertion + local search heuristic's gap to that optimum
 * (docs/tests.md reports it). */
#include "test_common.h"

#include <math.h>

#include "fleet/fleet.h"

/* ---- assignment ---- */

typedef struct best {
    int pairs;
    double sum, max;
} best;

/* lexicographic: more pairs, then (bottleneck: a lower max, then) a lower sum */
static int better(const best *a, const best *b, int bottleneck)
{
    if (a->pairs != b->pairs)
        return a->pairs > b->pairs;
    if (bottleneck && fabs(a->max - b->max) > 1e-12)
        return a->max < b->max;
    return a->sum < b->sum - 1e-9;
}

/* every partial injective assignment of rows i.. to unused columns */
static void brute(int n, int m, const double *c, int i, int *used, best cur, best *b, int bottleneck)
{
    if (i == n) {
        if (better(&cur, b, bottleneck))
            *b = cur;
        return;
    }
    brute(n, m, c, i + 1, used, cur, b, bottleneck); /* row i unassigned */
    for (int j = 0; j < m; j++)
        if (!used[j] && isfinite(c[i * m + j])) {
            used[j] = 1;
            best nx = {cur.pairs + 1, cur.sum + c[i * m + j], fmax(cur.max, c[i * m + j])};
            brute(n, m, c, i + 1, used, nx, b, bottleneck);
            used[j] = 0;
        }
}

static best of(int n, int m, const double *c, const int *col)
{
    best r = {0, 0, 0};
    int seen[16] = {0};
    for (int i = 0; i < n; i++)
        if (col[i] >= 0) {
            assert_true(col[i] < m);
            assert_int_equal(seen[col[i]]++, 0);
            assert_true(isfinite(c[i * m + col[i]]));
            r.pairs++, r.sum += c[i * m + col[i]], r.max = fmax(r.max, c[i * m + col[i]]);
        }
    return r;
}

static void random_matrix(trv_rng *g, int n, int m, double *c, double forbid)
{
    for (int q = 0; q < n * m; q++)
        c[q] = trv_rng_uniform(g) < forbid ? INFINITY : (double)(int)(1 + 50 * trv_rng_uniform(g));
}

static void test_hungarian_brute_force(void **state)
{
    (void)state;
    trv_rng g;
    trv_rng_seed(&g, 18);
    for (int rep = 0; rep < 400; rep++) {
        int n = 1 + (int)(6 * trv_rng_uniform(&g)), m = 1 + (int)(6 * trv_rng_uniform(&g));
        double c[64];
        int col[8], used[8] = {0};
        random_matrix(&g, n, m, c, rep % 3 ? 0.25 : 0);
        best b = {-1, INFINITY, INFINITY};
        brute(n, m, c, 0, used, (best){0, 0, 0}, &b, 0);
        int pairs = fleet_hungarian(n, m, c, col);
        best h = of(n, m, c, col);
        assert_int_equal(pairs, h.pairs);
        assert_int_equal(h.pairs, b.pairs);
        assert_float_equal(h.sum, b.sum, 1e-9);
    }
}

/* by hand: c_ij = (i + 1)(j + 1) pairs the largest with the smallest: 3 + 4 + 3 = 10 */
static void test_hungarian_hand(void **state)
{
    (void)state;
    const double c[9] = {1, 2, 3, 2, 4, 6, 3, 6, 9};
    int col[3];
    assert_int_equal(fleet_hungarian(3, 3, c, col), 3);
    assert_float_equal(c[col[0]] + c[3 + col[1]] + c[6 + col[2]], 10, 1e-12);
    const double d[6] = {4, 1, INFINITY, 2, 8, 5}; /* 2 x 3: 1 + 2 = 3 */
    assert_int_equal(fleet_hungarian(2, 3, d, col), 2);
    assert_int_equal(col[0], 1);
    assert_int_equal(col[1], 0);
}

static void test_bottleneck_brute_force(void **state)
{
    (void)state;
    trv_rng g;
    trv_rng_seed(&g, 1955);
    for (int rep = 0; rep < 400; rep++) {
        int n = 1 + (int)(6 * trv_rng_uniform(&g)), m = 1 + (int)(6 * trv_rng_uniform(&g));
        double c[64], bn;
        int col[8], used[8] = {0};
        random_matrix(&g, n, m, c, rep % 3 ? 0.25 : 0);
        best b = {-1, INFINITY, INFINITY};
        brute(n, m, c, 0, used, (best){0, 0, 0}, &b, 1);
        int pairs = fleet_bottleneck(n, m, c, col, &bn);
        best h = of(n, m, c, col);
        assert_int_equal(pairs, b.pairs);
        assert_int_equal(h.pairs, b.pairs);
        if (b.pairs) {
            assert_float_equal(h.max, b.max, 1e-12);
            assert_float_equal(bn, b.max, 1e-12);
            assert_float_equal(h.sum, b.sum, 1e-9);
        }
    }
}

/* ---- routes ---- */

enum { NVMAX = 3, NTMAX = 7, W = NTMAX + 1 };

typedef struct inst {
    int nv, nt;
    double travel[NVMAX * W * W], avail[NVMAX], service[NTMAX], open[NTMAX], close[NTMAX];
    int cap[NVMAX];
    fleet_problem P;
} inst;

/* points on a plane, each vehicle its own speed; windows and capacity
 * on some instances */
static void random_inst(trv_rng *g, inst *I, int nv, int nt, int windows)
{
    double px[NVMAX + NTMAX], py[NVMAX + NTMAX];
    I->nv = nv, I->nt = nt;
    for (int q = 0; q < nv + nt; q++)
        px[q] = 100 * trv_rng_uniform(g), py[q] = 100 * trv_rng_uniform(g);
    int w = nt + 1;
    for (int k = 0; k < nv; k++) {
        double pace = 1 + trv_rng_uniform(g);
        I->avail[k] = windows ? 20 * trv_rng_uniform(g) : 0;
        I->cap[k] = windows ? 2 + (int)(3 * trv_rng_uniform(g)) : 0;
        for (int i = 0; i < w; i++)
            for (int j = 0; j < w; j++) {
                int a = i ? nv + i - 1 : k, b = j ? nv + j - 1 : k;
                I->travel[k * w * w + i * w + j] = pace * hypot(px[a] - px[b], py[a] - py[b]);
            }
    }
    for (int j = 0; j < nt; j++) {
        I->service[j] = 10 * trv_rng_uniform(g);
        I->open[j] = windows && j % 2 ? 100 * trv_rng_uniform(g) : 0;
        I->close[j] = windows && j % 3 == 1 ? I->open[j] + 150 + 100 * trv_rng_uniform(g) : INFINITY;
    }
    I->P = (fleet_problem){nv, nt, I->travel, I->avail, I->cap, I->service, I->open, I->close};
}

/* every plan: task j put at any position of any vehicle's route */
static void brute_routes(const inst *I, int j, int *len, int (*seq)[NTMAX], best *b)
{
    if (j == I->nt) {
        best cur = {0, 0, 0};
        for (int k = 0; k < I->nv; k++) {
            double t = fleet_route_time(&I->P, k, seq[k], len[k], NULL);
            if (!isfinite(t))
                return;
            cur.pairs += len[k], cur.sum += t;
        }
        if (better(&cur, b, 0))
            *b = cur;
        return;
    }
    brute_routes(I, j + 1, len, seq, b); /* unserved */
    for (int k = 0; k < I->nv; k++)
        for (int p = 0; p <= len[k]; p++) {
            for (int q = len[k]; q > p; q--)
                seq[k][q] = seq[k][q - 1];
            seq[k][p] = j, len[k]++;
            brute_routes(I, j + 1, len, seq, b);
            len[k]--;
            for (int q = p; q < len[k]; q++)
                seq[k][q] = seq[k][q + 1];
        }
}

/* a vehicle's time by hand: windows, waiting, capacity */
static void test_route_time_hand(void **state)
{
    (void)state;
    /* one vehicle, tasks 0 and 1; start->0: 10 s, 0->1: 5 s */
    double travel[9] = {0, 10, 20, 10, 0, 5, 20, 5, 0}, avail = 100, service[2] = {3, 4};
    double open[2] = {130, 0}, close[2] = {INFINITY, 137};
    int cap = 0;
    fleet_problem P = {1, 2, travel, &avail, &cap, service, open, close};
    int seq[2] = {0, 1}, rev[2] = {1, 0};
    double end;
    /* arrive 110, wait to 130, end 133; arrive 138 > 137: missed */
    assert_true(isinf(fleet_route_time(&P, 0, seq, 2, NULL)));
    close[1] = 138; /* arrive at 138: on time; end 142 */
    assert_float_equal(fleet_route_time(&P, 0, seq, 2, &end), 42, 1e-12);
    assert_float_equal(end, 142, 1e-12);
    /* 1 first: arrive 120, end 124; arrive 129, wait to 130, end 133 */
    assert_float_equal(fleet_route_time(&P, 0, rev, 2, NULL), 33, 1e-12);
    cap = 1;
    assert_true(isinf(fleet_route_time(&P, 0, rev, 2, NULL)));
    assert_float_equal(fleet_route_time(&P, 0, rev, 1, NULL), 24, 1e-12);
}

/* vehicles A at 0 and B at 10 on a line, tasks at 1, 2, 9, |dx| s apart */
static void line_inst(inst *I)
{
    const double pos[3] = {1, 2, 9}, start[2] = {0, 10};
    memset(I, 0, sizeof *I);
    I->nv = 2, I->nt = 3;
    for (int k = 0; k < 2; k++)
        for (int i = 0; i < 4; i++)
            for (int j = 0; j < 4; j++)
                I->travel[k * 16 + i * 4 + j] = fabs((i ? pos[i - 1] : start[k]) - (j ? pos[j - 1] : start[k]));
    for (int j = 0; j < 3; j++)
        I->close[j] = INFINITY;
    I->P = (fleet_problem){2, 3, I->travel, I->avail, I->cap, I->service, I->open, I->close};
}

static double milp_total(const inst *I, int *served)
{
    fleet_plan p;
    fleet_milp_result r;
    trv_ctx *ctx = trv_ctx_new();
    assert_int_equal(fleet_milp(ctx, &I->P, 30, &p, &r), TRV_OK);
    assert_true(r.optimal);
    double t = p.total_s;
    *served = p.served;
    fleet_plan_clear(&p);
    trv_ctx_free(ctx);
    return t;
}

/* hand-solved: A 0->1->2 (2 s), B 10->9 (1 s): 3; A capacity 1: A->1,
 * B->9->2 (1 + 7): 9; then task 9 opening at 5: B waits there to 5,
 * ends 5, then 2 at 12: 1 + 12 = 13 (B->2 first: 1 + 15); task 2
 * closing at 1.5: nobody reaches it: unserved, A->1, B->9 (5): 6 */
static void test_milp_hand(void **state)
{
    (void)state;
    inst I;
    int served;
    line_inst(&I);
    assert_float_equal(milp_total(&I, &served), 3, 1e-9);
    assert_int_equal(served, 3);
    I.cap[0] = 1;
    assert_float_equal(milp_total(&I, &served), 9, 1e-9);
    I.open[2] = 5;
    assert_float_equal(milp_total(&I, &served), 13, 1e-9);
    I.close[1] = 1.5;
    assert_float_equal(milp_total(&I, &served), 6, 1e-9);
    assert_int_equal(served, 2);
}

/* the MILP equals the brute force; the heuristic serves as many and its
 * gap to that optimum stays small */
static void test_vrp_gap(void **state)
{
    (void)state;
    trv_rng g;
    trv_rng_seed(&g, 1977);
    double gap_sum = 0, gap_max = 0, milp_s = 0;
    int reps = 60, optimal = 0;
    trv_ctx *ctx = trv_ctx_new();
    for (int rep = 0; rep < reps; rep++) {
        inst I;
        int nv = 2 + rep % 2, nt = 4 + rep % 3;
        random_inst(&g, &I, nv, nt, rep % 2);
        int len[NVMAX] = {0}, seq[NVMAX][NTMAX];
        best b = {-1, INFINITY, 0};
        brute_routes(&I, 0, len, seq, &b);
        fleet_plan h, x;
        fleet_milp_result r;
        assert_int_equal(fleet_vrp(ctx, &I.P, &h), TRV_OK);
        assert_int_equal(fleet_milp(ctx, &I.P, 30, &x, &r), TRV_OK);
        assert_true(r.optimal);
        milp_s += r.solve_s;
        assert_int_equal(x.served, b.pairs);
        assert_float_equal(x.total_s, b.sum, 1e-6 * b.sum + 1e-9);
        assert_int_equal(h.served, b.pairs);
        assert_true(h.total_s >= b.sum - 1e-9);
        double gap = b.sum > 0 ? h.total_s / b.sum - 1 : 0;
        gap_sum += gap, gap_max = fmax(gap_max, gap);
        optimal += gap < 1e-9;
        fleet_plan_clear(&h), fleet_plan_clear(&x);
    }
    trv_ctx_free(ctx);
    print_message("vrp heuristic vs optimum on %d instances: %d optimal, mean gap %.2f %%, max %.2f %% (MILP %.1f s)\n",
                  reps, optimal, 100 * gap_sum / reps, 100 * gap_max, milp_s);
    assert_true(gap_sum / reps < 0.02);
    assert_true(gap_max < 0.10);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_hungarian_brute_force),
        cmocka_unit_test(test_hungarian_hand),
        cmocka_unit_test(test_bottleneck_brute_force),
        cmocka_unit_test(test_route_time_hand),
        cmocka_unit_test(test_milp_hand),
        cmocka_unit_test(test_vrp_gap),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
