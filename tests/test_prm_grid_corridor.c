/* prm_route_grid_corridor (grid_corridor.c) against the whole-grid search
 * prm_route_grid: the same objective and the same vertices, to the bit,
 * whether the first corridor holds the optimum (proven by the escape
 * bound, no widening), holds only a worse route (widened until the
 * optimum is inside), or is widened to the whole grid. Terrains are built
 * in memory (test_terrain_mem.h) on a grid with exact binary coordinates. */
#include "test_common.h"
#include "test_terrain_mem.h"

#include <math.h>

#include "prm/prm.h"
#include "prm/prm_priv.h"

#define X0 600000.0
#define Y0 3680000.0
#define CELL 8.0

static double cx_of(int c) { return X0 + (c + 0.5) * CELL; }
static double cy_of(int r) { return Y0 - (r + 0.5) * CELL; }

/* An all-GO terrain: safe class, cost 0.2, flat, slope 5 deg, speed v km/h. */
static void terrain_make(prm_terrain *t, int nx, int ny, float v)
{
    assert_int_equal(test_terrain_plane(t, nx, ny, X0, Y0, CELL, 5, v), 0);
}

/* What prm_terrain_load derives, after the cells were edited. */
static void terrain_finish(prm_terrain *t)
{
    t->top_speed_kmh = 0;
    for (long i = 0; i < (long)t->grid->nx * t->grid->ny; i++)
        if (prm_cell_go(t, i) && t->speed->f32[i] > t->top_speed_kmh)
            t->top_speed_kmh = t->speed->f32[i];
}

/* Random cells: 12 % class 0, 4 % NOGO, random speeds, slopes, costs. */
static void terrain_random(prm_terrain *t, int nx, int ny, trv_rng *rng)
{
    terrain_make(t, nx, ny, 20);
    for (long i = 0; i < (long)nx * ny; i++) {
        t->cls->u8[i] = trv_rng_uniform(rng) < 0.12 ? 0 : (unsigned char)(1 + trv_rng_below(rng, 3));
        t->gonogo->u8[i] = trv_rng_uniform(rng) < 0.04 ? 1 : 0;
        t->speed->f32[i] = (float)(2 + 38 * trv_rng_uniform(rng));
        t->slope->f32[i] = (float)(30 * trv_rng_uniform(rng));
        t->cost->f32[i] = (float)trv_rng_uniform(rng);
        t->dem->f32[i] = (float)(100 + 100 * trv_rng_uniform(rng));
    }
    terrain_finish(t);
}

static void path_free(prm_path *p)
{
    free(p->x);
    free(p->y);
    memset(p, 0, sizeof *p);
}

/* The corridor's route equals the whole grid's: status, objective and
 * vertices to the bit. Returns the corridor's status. */
static trv_status same_as_whole(trv_ctx *ctx, const prm_terrain *t, const prm_path *guide, double halfwidth_m,
                                const double xy[4], prm_strategy s, prm_corridor_info *info)
{
    prm_weights w;
    prm_weights_default(&w);
    prm_path p, q;
    trv_status sc = prm_route_grid_corridor(ctx, t, guide, halfwidth_m, 0, xy, s, &w, &p, info);
    trv_status sw = prm_route_grid(ctx, t, xy[0], xy[1], xy[2], xy[3], s, &w, &q);
    assert_int_equal(sc, sw);
    if (!sc) {
        if (p.objective != q.objective)
            fail_msg("%s: corridor objective %.17g, whole grid %.17g", prm_strategy_name(s), p.objective, q.objective);
        assert_int_equal(p.n, q.n);
        assert_memory_equal(p.x, q.x, (size_t)p.n * sizeof *p.x);
        assert_memory_equal(p.y, q.y, (size_t)p.n * sizeof *p.y);
        if (!info->whole) /* the proof: every path leaving the corridor costs more */
            assert_true(info->escape > p.objective);
    }
    path_free(&p);
    path_free(&q);
    return sc;
}

/* An open field at 20 km/h: the straight route is the optimum; for
 * distance and time (whose heuristics are exact here) a corridor of 3
 * cells round it holds it, proven without widening; the weaker heuristics
 * of msr and mmcr widen it; no guide: the whole grid. */
static void test_open_field(void **state)
{
    (void)state;
    trv_ctx *ctx = trv_ctx_new();
    prm_terrain t;
    terrain_make(&t, 60, 40, 20);
    terrain_finish(&t);
    double xy[4] = {cx_of(5), cy_of(20), cx_of(55), cy_of(20)};
    double gx[2] = {xy[0], xy[2]}, gy[2] = {xy[1], xy[3]};
    prm_path guide = {.x = gx, .y = gy, .n = 2};
    prm_corridor_info ci;
    for (int s = PRM_MMCR; s <= PRM_TIME; s++) {
        assert_int_equal(same_as_whole(ctx, &t, &guide, 3 * CELL, xy, (prm_strategy)s, &ci), TRV_OK);
        if (s == PRM_MDR || s == PRM_TIME) { /* heuristics that are exact here: nothing outside can compete */
            assert_int_equal(ci.whole, 0);
            assert_int_equal(ci.widened, 0);
            assert_true(ci.halfwidth_m == 3 * CELL);
        }
    }
    assert_int_equal(same_as_whole(ctx, &t, NULL, 3 * CELL, xy, PRM_TIME, &ci), TRV_OK);
    assert_int_equal(ci.whole, 1);
    prm_terrain_clear(&t);
    trv_ctx_free(ctx);
}

/* A slow field (5 km/h) with a 40 km/h highway 12 rows north of the guide:
 * the 1-cell corridor holds only the slow straight route; the escape bound
 * widens it (1, 2, 4, 8, 16 cells) until the highway is inside, and the
 * route is the whole grid's. */
static void test_highway_outside(void **state)
{
    (void)state;
    trv_ctx *ctx = trv_ctx_new();
    prm_terrain t;
    terrain_make(&t, 80, 40, 5);
    for (int c = 0; c < 80; c++)
        t.speed->f32[(long)8 * 80 + c] = 40;
    terrain_finish(&t);
    double xy[4] = {cx_of(3), cy_of(20), cx_of(76), cy_of(20)};
    double gx[2] = {xy[0], xy[2]}, gy[2] = {xy[1], xy[3]};
    prm_path guide = {.x = gx, .y = gy, .n = 2};
    prm_corridor_info ci;
    assert_int_equal(same_as_whole(ctx, &t, &guide, CELL, xy, PRM_TIME, &ci), TRV_OK);
    assert_int_equal(ci.whole, 0);
    assert_true(ci.widened >= 3 && ci.halfwidth_m >= 12 * CELL);
    /* the route takes the highway */
    prm_weights w;
    prm_weights_default(&w);
    prm_path p;
    assert_int_equal(prm_route_grid_corridor(ctx, &t, &guide, CELL, 0, xy, PRM_TIME, &w, &p, &ci), TRV_OK);
    int on = 0;
    for (int i = 0; i < p.n; i++)
        on += fabs(p.y[i] - cy_of(8)) < 0.5 * CELL;
    assert_true(on >= 2);
    path_free(&p);
    prm_terrain_clear(&t);
    trv_ctx_free(ctx);
}

/* A wall across the grid with one gap far off the guide: the corridor
 * widens until the gap is inside (or reaches the whole grid); a wall
 * without a gap: "not reachable", as the whole grid says. */
static void test_wall(void **state)
{
    (void)state;
    trv_ctx *ctx = trv_ctx_new();
    prm_terrain t;
    terrain_make(&t, 50, 50, 20);
    for (int r = 0; r < 50; r++)
        if (r != 46)
            t.gonogo->u8[(long)r * 50 + 25] = 2;
    terrain_finish(&t);
    double xy[4] = {cx_of(5), cy_of(10), cx_of(45), cy_of(10)};
    double gx[2] = {xy[0], xy[2]}, gy[2] = {xy[1], xy[3]};
    prm_path guide = {.x = gx, .y = gy, .n = 2};
    prm_corridor_info ci;
    assert_int_equal(same_as_whole(ctx, &t, &guide, 2 * CELL, xy, PRM_MDR, &ci), TRV_OK);
    assert_true(ci.widened >= 4);
    t.gonogo->u8[(long)46 * 50 + 25] = 2;
    assert_int_equal(same_as_whole(ctx, &t, &guide, 2 * CELL, xy, PRM_MDR, &ci), TRV_ERR_DATA);
    assert_string_equal(trv_errmsg(ctx), "the goal is not reachable from the start");
    prm_terrain_clear(&t);
    trv_ctx_free(ctx);
}

/* Random terrains, ends and guides (the straight line, or a polyline
 * through a random cell), every strategy, half-widths of 1 and 4 cells and
 * the default (0: from the guide's objective): always the whole grid's
 * route; the three outcomes (proven at once, widened, whole grid) each
 * occur. */
static void test_random(void **state)
{
    (void)state;
    trv_ctx *ctx = trv_ctx_new();
    trv_rng rng;
    trv_rng_seed(&rng, 7);
    int at_once = 0, widened = 0, whole = 0, unreachable = 0;
    for (int map = 0; map < 6; map++) {
        const int nx = 48, ny = 40;
        prm_terrain t;
        terrain_random(&t, nx, ny, &rng);
        for (int pair = 0; pair < 3; pair++) {
            long a, b, v;
            do
                a = (long)trv_rng_below(&rng, (uint64_t)nx * ny);
            while (!prm_cell_go(&t, a));
            do
                b = (long)trv_rng_below(&rng, (uint64_t)nx * ny);
            while (!prm_cell_go(&t, b) || b == a);
            v = (long)trv_rng_below(&rng, (uint64_t)nx * ny);
            double xy[4] = {cx_of((int)(a % nx)), cy_of((int)(a / nx)), cx_of((int)(b % nx)), cy_of((int)(b / nx))};
            double gx[3] = {xy[0], cx_of((int)(v % nx)), xy[2]}, gy[3] = {xy[1], cy_of((int)(v / nx)), xy[3]};
            prm_path guide = {.x = gx, .y = gy, .n = pair == 0 ? 2 : 3, .objective = 0};
            if (pair == 0)
                gx[1] = xy[2], gy[1] = xy[3];
            for (int s = PRM_MMCR; s <= PRM_TIME; s++) {
                prm_weights w;
                prm_weights_default(&w);
                prm_path g;
                if (prm_route_grid(ctx, &t, xy[0], xy[1], xy[2], xy[3], (prm_strategy)s, &w, &g) == TRV_OK)
                    guide.objective = g.objective * (pair == 2 ? 0.5 : 1); /* the default's U, low once */
                path_free(&g);
                const double hw[3] = {CELL, 4 * CELL, 0};
                for (int k = 0; k < 3; k++) {
                    prm_corridor_info ci;
                    if (same_as_whole(ctx, &t, &guide, hw[k], xy, (prm_strategy)s, &ci)) {
                        unreachable++;
                        continue;
                    }
                    at_once += !ci.whole && !ci.widened;
                    widened += !ci.whole && ci.widened;
                    whole += ci.whole;
                }
            }
        }
        prm_terrain_clear(&t);
    }
    print_message("corridor = whole grid: %d proven at once, %d after widening, %d on the whole grid, %d "
                  "unreachable\n", at_once, widened, whole, unreachable);
    assert_true(at_once >= 10 && widened >= 10 && whole >= 1);
    trv_ctx_free(ctx);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_open_field),
        cmocka_unit_test(test_highway_outside),
        cmocka_unit_test(test_wall),
        cmocka_unit_test(test_random),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
