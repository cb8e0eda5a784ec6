/* The ends' K nearest roadmap nodes by rings of cells (src/prm/nearest.c):
 * on seeded random node sets (uniform, clustered, on a lattice where many
 * distances tie exactly, all on one line, one node, duplicates), from
 * points inside, on cell corners and far outside the nodes' box, the
 * answer equals the first K of every node sorted by (hypot distance, id),
 * the reference written here by brute force, for K from 1 to past n. */
#include "test_common.h"

#include "prm/nearest.h"

typedef struct ref {
    double d;
    int id;
} ref;

static int cmp_ref(const void *a, const void *b)
{
    const ref *p = a, *q = b;
    if (p->d != q->d)
        return p->d < q->d ? -1 : 1;
    return (p->id > q->id) - (p->id < q->id);
}

/* The grid's answer against the full sort's, from (px, py), for k. */
static void check_point(const prm_near_grid *g, const double *x, const double *y, int n, double px, double py,
                        int k)
{
    ref *all = malloc(((size_t)n + 1) * sizeof *all);
    int *got = malloc(((size_t)k + 1) * sizeof *got);
    for (int i = 0; i < n; i++)
        all[i] = (ref){hypot(x[i] - px, y[i] - py), i};
    qsort(all, (size_t)n, sizeof *all, cmp_ref);
    int m = prm_near_k(g, x, y, px, py, k, got);
    assert_int_equal(m, k < n ? k : n);
    for (int i = 0; i < m; i++)
        if (got[i] != all[i].id) {
            fprintf(stderr, "n %d k %d p (%.17g, %.17g): #%d got %d want %d\n", n, k, px, py, i, got[i], all[i].id);
            fail();
        }
    free(all);
    free(got);
}

/* Points: random ones in and around the box, the nodes themselves, cell
 * corners, far away in every direction. */
static void check_set(const double *x, const double *y, int n, trv_rng *rng)
{
    trv_ctx *ctx = trv_ctx_new();
    prm_near_grid g;
    assert_int_equal(prm_near_grid_build(ctx, x, y, n, &g), TRV_OK);
    static const int ks[] = {1, 2, 7, 14, 40, 56, 200};
    double w = g.nx * g.cw, h = g.ny * g.cw;
    for (int q = 0; q < 60; q++) {
        double px, py;
        if (q < 30)
            px = g.x0 - 0.2 * w + 1.4 * w * trv_rng_uniform(rng), py = g.y0 - 0.2 * h + 1.4 * h * trv_rng_uniform(rng);
        else if (q < 40 && n > 0)
            px = x[(q * 7919) % n], py = y[(q * 7919) % n];
        else if (q < 50)
            px = g.x0 + (q % 5) * g.cw, py = g.y0 + (q % 3) * g.cw;
        else
            px = g.x0 + (q % 2 ? 50 : -40) * (w + 1), py = g.y0 + (q % 3 - 1) * 30 * (h + 1);
        for (size_t j = 0; j < sizeof ks / sizeof *ks; j++)
            check_point(&g, x, y, n, px, py, ks[j]);
    }
    prm_near_grid_clear(&g);
    trv_ctx_free(ctx);
}

static void test_random_sets(void **state)
{
    (void)state;
    trv_rng rng;
    trv_rng_seed(&rng, 7);
    enum { N = 3000 };
    double *x = malloc(N * sizeof *x), *y = malloc(N * sizeof *y);
    static const int ns[] = {1, 2, 9, 100, 3000};
    for (size_t s = 0; s < sizeof ns / sizeof *ns; s++) {
        int n = ns[s];
        for (int i = 0; i < n; i++) /* uniform over a 30 x 20 km box in UTM */
            x[i] = 730000 + 30000 * trv_rng_uniform(&rng), y[i] = 4060000 + 20000 * trv_rng_uniform(&rng);
        check_set(x, y, n, &rng);
        for (int i = 0; i < n; i++) /* two tight clusters far apart */
            x[i] = (i % 2 ? 0 : 1e5) + trv_rng_uniform(&rng), y[i] = trv_rng_uniform(&rng);
        check_set(x, y, n, &rng);
        for (int i = 0; i < n; i++) /* a lattice: whole rings of exactly equal distances */
            x[i] = 10.0 * (i % 37), y[i] = 10.0 * (i / 37);
        check_set(x, y, n, &rng);
        for (int i = 0; i < n; i++) /* one vertical line, duplicates every third */
            x[i] = 5, y[i] = (double)(i - i % 3);
        check_set(x, y, n, &rng);
    }
    free(x);
    free(y);
}

static void test_empty(void **state)
{
    (void)state;
    trv_ctx *ctx = trv_ctx_new();
    prm_near_grid g;
    int out[4];
    assert_int_equal(prm_near_grid_build(ctx, NULL, NULL, 0, &g), TRV_OK);
    assert_int_equal(prm_near_k(&g, NULL, NULL, 3, 4, 4, out), 0);
    prm_near_grid_clear(&g);
    trv_ctx_free(ctx);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_random_sets),
        cmocka_unit_test(test_empty),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
