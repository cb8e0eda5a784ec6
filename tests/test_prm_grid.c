/* prm_route_grid (16-neighbour A*) against hand-computed optima and a brute
 * force over the same graph; prm_bspline_point's end conditions and a
 * Bezier case; prm_smooth keeping a curve out of NOGO. Terrains are built
 * in memory on a small UTM grid whose coordinates are exact in binary
 * (origin and cell size multiples of 8 m), so the brute force's
 * prm_piece_measure sees the same corners as the grid search's stencil. */
#include "test_common.h"
#include "test_terrain_mem.h"

#include <malloc.h> /* mallopt, M_PERTURB: glibc */
#include <math.h>

#include "prm/prm.h"
#include "prm/prm_priv.h"

#define X0 600000.0
#define Y0 3680000.0
#define CELL 8.0

/* An all-GO terrain of nx x ny cells: safe class, speed 20 km/h, slope 5 deg. */
static void terrain_make(prm_terrain *t, int nx, int ny)
{
    assert_int_equal(test_terrain_new(t, nx, ny, X0, Y0, CELL), 0);
    for (long i = 0; i < (long)nx * ny; i++) {
        t->cls->u8[i] = 3;
        t->cost->f32[i] = 0.2f;
        t->dem->f32[i] = 100;
        t->slope->f32[i] = 5;
        t->speed->f32[i] = 20;
    }
}

/* What prm_terrain_load derives, after the cells were edited. */
static void terrain_finish(prm_terrain *t)
{
    t->top_speed_kmh = 0;
    for (long i = 0; i < (long)t->grid->nx * t->grid->ny; i++)
        if (prm_cell_go(t, i) && t->speed->f32[i] > t->top_speed_kmh)
            t->top_speed_kmh = t->speed->f32[i];
}

static long cell_of(const prm_terrain *t, int c, int r) { return (long)r * t->grid->nx + c; }
static double cx_of(int c) { return X0 + (c + 0.5) * CELL; }
static double cy_of(int r) { return Y0 - (r + 0.5) * CELL; }

/* NOGO either way the header allows: by GO/NOGO or by class 0. */
static void set_nogo(prm_terrain *t, int c, int r)
{
    long i = cell_of(t, c, r);
    if ((c + r) % 2)
        t->gonogo->u8[i] = 2;
    else
        t->cls->u8[i] = 0;
}

static void path_free(prm_path *p)
{
    free(p->x);
    free(p->y);
    memset(p, 0, sizeof *p);
}

static trv_status route_cells(trv_ctx *ctx, const prm_terrain *t, int c0, int r0, int c1, int r1, prm_strategy s,
                              prm_path *out)
{
    prm_weights w;
    prm_weights_default(&w);
    return prm_route_grid(ctx, t, cx_of(c0), cy_of(r0), cx_of(c1), cy_of(r1), s, &w, out);
}

/* Sum of the strategy's weights over the path's pieces; fails on a blocked piece. */
static double path_weight(const prm_terrain *t, const prm_path *p, prm_strategy s)
{
    prm_weights w;
    prm_weights_default(&w);
    double sum = 0;
    for (int i = 0; i + 1 < p->n; i++) {
        prm_piece pc;
        prm_piece_measure(t, p->x[i], p->y[i], p->x[i + 1], p->y[i + 1], &pc);
        if (pc.blocked)
            fail_msg("piece %d of the path is blocked", i);
        sum += prm_piece_weight(&pc, s, &w);
    }
    return sum;
}

#define assert_close(a, b, rel)                                                                              \
    do {                                                                                                     \
        double a_ = (a), b_ = (b);                                                                           \
        if (!(fabs(a_ - b_) <= (rel) * fmax(1, fmax(fabs(a_), fabs(b_)))))                                   \
            fail_msg("%s = %.15g, want %.15g", #a, a_, b_);                                                  \
    } while (0)

/* ---- brute force over the same graph ------------------------------------------------ */

/* Dijkstra by linear scan over the 16-neighbour graph, every move measured
 * by prm_piece_measure on the real coordinates. */
typedef struct mask_walk {
    const unsigned char *mask;
    int out;                /* the walk touched a cell outside the mask */
} mask_walk;

static int mask_cell(long cell, double len, void *user)
{
    (void)len;
    mask_walk *m = user;
    m->out |= !m->mask[cell];
    return 0;
}

static double brute_force_masked(const prm_terrain *t, const unsigned char *mask, long start, long goal,
                                 prm_strategy s);

static double brute_force(const prm_terrain *t, long start, long goal, prm_strategy s)
{
    return brute_force_masked(t, NULL, start, goal, s);
}

/* The same, a move also blocked where any cell its segment visits (the
 * length-0 corner cells included) is 0 in mask (one byte a cell; NULL:
 * none), found by its own prm_segment_walk. */
static double brute_force_masked(const prm_terrain *t, const unsigned char *mask, long start, long goal,
                                 prm_strategy s)
{
    static const int d[16][2] = {{1, 0},  {0, 1},  {-1, 0}, {0, -1}, {1, 1},   {-1, 1},  {-1, -1}, {1, -1},
                                 {2, 1},  {1, 2},  {-1, 2}, {-2, 1}, {-2, -1}, {-1, -2}, {1, -2},  {2, -1}};
    prm_weights w;
    prm_weights_default(&w);
    int nx = t->grid->nx, ny = t->grid->ny;
    long n = (long)nx * ny;
    double *dist = malloc((size_t)n * sizeof *dist);
    char *done = calloc((size_t)n, 1);
    for (long i = 0; i < n; i++)
        dist[i] = INFINITY;
    dist[start] = 0;
    for (;;) {
        long u = -1;
        for (long i = 0; i < n; i++)
            if (!done[i] && isfinite(dist[i]) && (u < 0 || dist[i] < dist[u]))
                u = i;
        if (u < 0)
            break;
        done[u] = 1;
        int c = (int)(u % nx), r = (int)(u / nx);
        for (int k = 0; k < 16; k++) {
            int nc = c + d[k][0], nr = r + d[k][1];
            if (nc < 0 || nr < 0 || nc >= nx || nr >= ny)
                continue;
            prm_piece pc;
            prm_piece_measure(t, cx_of(c), cy_of(r), cx_of(nc), cy_of(nr), &pc);
            if (pc.blocked)
                continue;
            mask_walk mw = {mask, 0};
            if (mask && (prm_segment_walk(t->grid, cx_of(c), cy_of(r), cx_of(nc), cy_of(nr), mask_cell, &mw), mw.out))
                continue;
            double nd = dist[u] + prm_piece_weight(&pc, s, &w);
            if (nd < dist[(long)nr * nx + nc])
                dist[(long)nr * nx + nc] = nd;
        }
    }
    double res = dist[goal];
    free(dist);
    free(done);
    return res;
}

typedef struct wall_walk {
    const prm_terrain *t;
    int gap, wall;          /* length > 0 in the gap cell / in other cells of column 4 */
} wall_walk;

static int wall_cell(long cell, double len, void *user)
{
    wall_walk *w = user;
    if (cell % w->t->grid->nx == 4 && len > 0) {
        if (cell / w->t->grid->nx == 6)
            w->gap++;
        else
            w->wall++;
    }
    return 0;
}

/* ---- (a) hand-built optima ---------------------------------------------------------- */

static void test_open_field(void **state)
{
    (void)state;
    prm_terrain t;
    terrain_make(&t, 10, 8);
    terrain_finish(&t);
    trv_ctx *ctx = trv_ctx_new();
    prm_path p;
    /* (5, 2) cells: two knight moves and one straight step, 2 sqrt 5 + 1 cells */
    assert_int_equal(route_cells(ctx, &t, 1, 1, 6, 3, PRM_MDR, &p), TRV_OK);
    assert_close(p.objective, (2 * sqrt(5) + 1) * CELL, 1e-12);
    assert_int_equal(p.n, 4); /* ends at cell centres are not repeated */
    assert_true(p.x[0] == cx_of(1) && p.y[0] == cy_of(1));
    assert_true(p.x[3] == cx_of(6) && p.y[3] == cy_of(3));
    assert_true(p.expanded >= 3);
    assert_close(path_weight(&t, &p, PRM_MDR), p.objective, 1e-12);
    path_free(&p);
    /* time at a uniform 20 km/h: the same chain */
    assert_int_equal(route_cells(ctx, &t, 1, 1, 6, 3, PRM_TIME, &p), TRV_OK);
    assert_close(p.objective, (2 * sqrt(5) + 1) * CELL / (20 / 3.6), 1e-12);
    path_free(&p);
    /* exact ends off the centres: legs to and from the centres are added */
    prm_weights w;
    prm_weights_default(&w);
    double sx = cx_of(1) - 3, sy = cy_of(1) + 2, gx = cx_of(6) + 1, gy = cy_of(3) - 3.5;
    assert_int_equal(prm_route_grid(ctx, &t, sx, sy, gx, gy, PRM_MDR, &w, &p), TRV_OK);
    assert_int_equal(p.n, 6);
    assert_true(p.x[0] == sx && p.y[0] == sy && p.x[5] == gx && p.y[5] == gy);
    assert_close(p.objective, (2 * sqrt(5) + 1) * CELL + hypot(3, 2) + hypot(1, 3.5), 1e-12);
    path_free(&p);
    /* both ends in one cell: the straight piece */
    assert_int_equal(prm_route_grid(ctx, &t, sx, sy, cx_of(1) + 2, cy_of(1), PRM_MDR, &w, &p), TRV_OK);
    assert_int_equal(p.n, 2);
    assert_close(p.objective, hypot(5, 2), 1e-12);
    path_free(&p);
    trv_ctx_free(ctx);
    prm_terrain_clear(&t);
}

static void test_wall_gap(void **state)
{
    (void)state;
    prm_terrain t;
    terrain_make(&t, 9, 9);
    for (int r = 0; r < 9; r++)
        if (r != 6)
            set_nogo(&t, 4, r);
    terrain_finish(&t);
    trv_ctx *ctx = trv_ctx_new();
    prm_path p;
    assert_int_equal(route_cells(ctx, &t, 1, 1, 7, 1, PRM_MDR, &p), TRV_OK);
    /* the path crosses the wall's column only through the gap (4, 6) */
    wall_walk ww = {&t, 0, 0};
    for (int i = 0; i + 1 < p.n; i++) {
        prm_piece pc;
        prm_piece_measure(&t, p.x[i], p.y[i], p.x[i + 1], p.y[i + 1], &pc);
        assert_false(pc.blocked);
        prm_segment_walk(t.grid, p.x[i], p.y[i], p.x[i + 1], p.y[i + 1], wall_cell, &ww);
    }
    assert_true(ww.gap > 0);
    assert_int_equal(ww.wall, 0);
    assert_close(path_weight(&t, &p, PRM_MDR), p.objective, 1e-12);
    assert_close(p.objective, brute_force(&t, cell_of(&t, 1, 1), cell_of(&t, 7, 1), PRM_MDR), 1e-12);
    path_free(&p);
    /* closing the gap: unreachable */
    set_nogo(&t, 4, 6);
    terrain_finish(&t);
    assert_int_equal(route_cells(ctx, &t, 1, 1, 7, 1, PRM_MDR, &p), TRV_ERR_DATA);
    assert_string_equal(trv_errmsg(ctx), "the goal is not reachable from the start");
    assert_null(p.x);
    trv_ctx_free(ctx);
    prm_terrain_clear(&t);
}

static void test_corner(void **state)
{
    (void)state;
    prm_terrain t;
    terrain_make(&t, 4, 4);
    set_nogo(&t, 1, 0);
    terrain_finish(&t);
    trv_ctx *ctx = trv_ctx_new();
    prm_path p;
    /* the diagonal (0,0) -> (1,1) touches the NOGO cell (1,0) at its corner: round by (0,1) */
    assert_int_equal(route_cells(ctx, &t, 0, 0, 1, 1, PRM_MDR, &p), TRV_OK);
    assert_close(p.objective, 2 * CELL, 1e-12);
    assert_int_equal(p.n, 3);
    assert_true(p.x[1] == cx_of(0) && p.y[1] == cy_of(1));
    path_free(&p);
    /* with (0,1) NOGO too, only the corner joins them: forbidden */
    set_nogo(&t, 0, 1);
    terrain_finish(&t);
    assert_int_equal(route_cells(ctx, &t, 0, 0, 1, 1, PRM_MDR, &p), TRV_ERR_DATA);
    assert_string_equal(trv_errmsg(ctx), "the goal is not reachable from the start");
    trv_ctx_free(ctx);
    prm_terrain_clear(&t);
}

/* ---- (b) against the brute force on random terrains ---------------------------------------------- */

static void test_brute_force(void **state)
{
    (void)state;
    trv_ctx *ctx = trv_ctx_new();
    int compared = 0, unreachable = 0;
    for (uint64_t seed = 1; seed <= 6; seed++) {
        prm_terrain t;
        terrain_make(&t, 12, 12);
        trv_rng rng;
        trv_rng_seed(&rng, seed);
        for (long i = 0; i < 144; i++) {
            double u = trv_rng_uniform(&rng);
            t.cls->u8[i] = u < 0.18 ? 0 : (unsigned char)(1 + trv_rng_below(&rng, 3));
            t.gonogo->u8[i] = trv_rng_uniform(&rng) < 0.05 ? 1 : 0;
            t.speed->f32[i] = (float)(2 + 38 * trv_rng_uniform(&rng));
            t.slope->f32[i] = (float)(30 * trv_rng_uniform(&rng));
            t.cost->f32[i] = (float)trv_rng_uniform(&rng);
            t.dem->f32[i] = (float)(100 + 100 * trv_rng_uniform(&rng));
        }
        terrain_finish(&t);
        for (int pair = 0; pair < 4; pair++) {
            long a, b;
            do
                a = (long)trv_rng_below(&rng, 144);
            while (!prm_cell_go(&t, a));
            do
                b = (long)trv_rng_below(&rng, 144);
            while (!prm_cell_go(&t, b) || b == a);
            /* exact ends off the centres, inside their cells */
            double sx = cx_of((int)(a % 12)) + CELL * (trv_rng_uniform(&rng) - 0.5);
            double sy = cy_of((int)(a / 12)) + CELL * (trv_rng_uniform(&rng) - 0.5);
            double gx = cx_of((int)(b % 12)) + CELL * (trv_rng_uniform(&rng) - 0.5);
            double gy = cy_of((int)(b / 12)) + CELL * (trv_rng_uniform(&rng) - 0.5);
            static const prm_strategy strategies[4] = {PRM_TIME, PRM_MMCR, PRM_MDR, PRM_MSR};
            for (int k = 0; k < 4; k++) {
                prm_strategy s = strategies[k];
                prm_weights w;
                prm_weights_default(&w);
                double want = brute_force(&t, a, b, s);
                prm_path p;
                trv_status st = prm_route_grid(ctx, &t, sx, sy, gx, gy, s, &w, &p);
                if (!isfinite(want)) {
                    assert_int_equal(st, TRV_ERR_DATA);
                    assert_string_equal(trv_errmsg(ctx), "the goal is not reachable from the start");
                    unreachable++;
                    continue;
                }
                if (st)
                    fail_msg("seed %d pair %d %s: %s", (int)seed, pair, prm_strategy_name(s), trv_errmsg(ctx));
                prm_piece l0, l1;
                prm_piece_measure(&t, sx, sy, cx_of((int)(a % 12)), cy_of((int)(a / 12)), &l0);
                prm_piece_measure(&t, cx_of((int)(b % 12)), cy_of((int)(b / 12)), gx, gy, &l1);
                want += prm_piece_weight(&l0, s, &w) + prm_piece_weight(&l1, s, &w);
                assert_close(p.objective, want, 1e-9);
                /* the path it returns has that weight and is not blocked anywhere */
                assert_close(path_weight(&t, &p, s), p.objective, 1e-9);
                assert_true(p.x[0] == sx && p.y[0] == sy && p.x[p.n - 1] == gx && p.y[p.n - 1] == gy);
                /* deterministic */
                prm_path q;
                assert_int_equal(prm_route_grid(ctx, &t, sx, sy, gx, gy, s, &w, &q), TRV_OK);
                assert_int_equal(q.n, p.n);
                assert_memory_equal(q.x, p.x, (size_t)p.n * sizeof *p.x);
                assert_memory_equal(q.y, p.y, (size_t)p.n * sizeof *p.y);
                assert_true(q.expanded == p.expanded);
                path_free(&q);
                path_free(&p);
                compared++;
            }
        }
        prm_terrain_clear(&t);
    }
    print_message("%d searches matched the brute force, %d agreed the goal was unreachable\n", compared,
                  unreachable);
    assert_true(compared >= 60);
    trv_ctx_free(ctx);
}

/* A random terrain of nx x ny cells for the comparisons: 18 % class 0,
 * the rest classes 1-3, 5 % NOGO by GO/NOGO, random speeds, slopes,
 * costs and heights. */
static void terrain_random(prm_terrain *t, int nx, int ny, trv_rng *rng)
{
    terrain_make(t, nx, ny);
    for (long i = 0; i < (long)nx * ny; i++) {
        double u = trv_rng_uniform(rng);
        t->cls->u8[i] = u < 0.18 ? 0 : (unsigned char)(1 + trv_rng_below(rng, 3));
        t->gonogo->u8[i] = trv_rng_uniform(rng) < 0.05 ? 1 : 0;
        t->speed->f32[i] = (float)(2 + 38 * trv_rng_uniform(rng));
        t->slope->f32[i] = (float)(30 * trv_rng_uniform(rng));
        t->cost->f32[i] = (float)trv_rng_uniform(rng);
        t->dem->f32[i] = (float)(100 + 100 * trv_rng_uniform(rng));
    }
    terrain_finish(t);
}

/* A corridor search reads only the window cells near its mask (grid.c's
 * mask_rows: the mask's rows two either way, widened by two; the others
 * are never written). A thin zig-zag band, down-right then down-left, in
 * a window of the whole grid, against the brute force with the same mask,
 * with glibc's malloc filling new blocks with 0xa5 bytes (M_PERTURB): a
 * cell left unwritten reads as a negative id the heap takes for unseen, so
 * a NOGO cell of the band left unwritten lets the route through it, and
 * the route comes out cheaper than the brute force. (A cell two beyond the
 * band is read only as a move's end, behind a NOGO cell the same move
 * crosses first, so the margin of two is not seen here: it keeps every
 * read on a written cell.) */
static void test_window_band(void **state)
{
    (void)state;
    trv_ctx *ctx = trv_ctx_new();
    trv_rng rng;
    trv_rng_seed(&rng, 23);
    const int nx = 40, ny = 36;
    int compared = 0;
#ifdef M_PERTURB
    mallopt(M_PERTURB, 0x5a);
#endif
    for (int map = 0; map < 6; map++) {
        prm_terrain t;
        terrain_make(&t, nx, ny);
        for (long i = 0; i < (long)nx * ny; i++) {
            t.cls->u8[i] = (unsigned char)(1 + trv_rng_below(&rng, 3));
            t.gonogo->u8[i] = trv_rng_uniform(&rng) < 0.04;
            t.speed->f32[i] = (float)(2 + 38 * trv_rng_uniform(&rng));
            t.slope->f32[i] = (float)(30 * trv_rng_uniform(&rng));
            t.cost->f32[i] = (float)trv_rng_uniform(&rng);
            t.dem->f32[i] = (float)(100 + 100 * trv_rng_uniform(&rng));
        }
        terrain_finish(&t);
        unsigned char *mask = calloc((size_t)nx * ny, 1);
        assert_non_null(mask);
        long cells[2 * 36], n = 0;
        for (int r = 0; r < ny; r++) { /* column of the band's centre: right to 30, then back left */
            int c = r < ny / 2 ? 2 + 28 * r / (ny / 2) : 30 - 28 * (r - ny / 2) / (ny / 2);
            for (int d = -1; d <= 1 + map % 2; d++)
                if (c + d >= 0 && c + d < nx)
                    mask[(long)r * nx + c + d] = 1;
            cells[n++] = (long)r * nx + c;
        }
        long win[4] = {0, 0, nx, ny};
        for (int pair = 0; pair < 6; pair++) {
            long a = cells[trv_rng_below(&rng, (uint64_t)n)], b;
            do
                b = cells[trv_rng_below(&rng, (uint64_t)n)];
            while (b == a);
            double sx = cx_of((int)(a % nx)), sy = cy_of((int)(a / nx)), gx = cx_of((int)(b % nx)),
                   gy = cy_of((int)(b / nx));
            for (int s = PRM_MMCR; s <= PRM_TIME; s++) {
                prm_path p;
                trv_status sw = prm_route_grid_window(ctx, &t, win, mask, sx, sy, gx, gy, (prm_strategy)s, NULL, &p);
                double want = brute_force_masked(&t, mask, a, b, (prm_strategy)s);
                if (!isfinite(want)) {
                    assert_int_equal(sw, TRV_ERR_DATA);
                    continue;
                }
                if (sw)
                    fail_msg("band map %d pair %d %s: %s", map, pair, prm_strategy_name(s), trv_errmsg(ctx));
                assert_close(p.objective, want, 1e-9);
                prm_path_clear(&p);
                compared++;
            }
        }
        free(mask);
        prm_terrain_clear(&t);
    }
#ifdef M_PERTURB
    mallopt(M_PERTURB, 0);
#endif
    print_message("%d band searches matched the brute force\n", compared);
    assert_true(compared >= 60);
    trv_ctx_free(ctx);
}

/* prm_route_grid_window (the corridor search on a window) against the
 * whole-grid search with the same mask and against a Dijkstra that blocks
 * masked-out cells by its own walk: the same route to the bit, the same
 * objective and expansions; on random terrains, masks and windows, every
 * strategy. */
static void test_window(void **state)
{
    (void)state;
    trv_ctx *ctx = trv_ctx_new();
    trv_rng rng;
    trv_rng_seed(&rng, 11);
    int compared = 0, unreachable = 0;
    for (int map = 0; map < 8; map++) {
        const int nx = 14, ny = 12;
        prm_terrain t;
        terrain_random(&t, nx, ny, &rng);
        /* the mask: a random rectangle with holes; the window: a box round it */
        long win[4];
        win[0] = (long)trv_rng_below(&rng, 4), win[1] = (long)trv_rng_below(&rng, 3);
        win[2] = nx - win[0] - (long)trv_rng_below(&rng, 4), win[3] = ny - win[1] - (long)trv_rng_below(&rng, 3);
        unsigned char *full = calloc((size_t)nx * ny, 1), *local = calloc((size_t)(win[2] * win[3]), 1);
        assert_non_null(full);
        assert_non_null(local);
        for (long r = 0; r < win[3]; r++)
            for (long c = 0; c < win[2]; c++) {
                int in = trv_rng_uniform(&rng) < 0.9 && r > 0 + (map % 2) && c + 1 < win[2] - (map % 3 == 0);
                local[r * win[2] + c] = (unsigned char)in;
                full[(r + win[1]) * nx + c + win[0]] = (unsigned char)in;
            }
        for (int pair = 0; pair < 4; pair++) {
            long a, b;
            do
                a = (long)trv_rng_below(&rng, (uint64_t)nx * ny);
            while (!prm_cell_go(&t, a) || !full[a]);
            do
                b = (long)trv_rng_below(&rng, (uint64_t)nx * ny);
            while (!prm_cell_go(&t, b) || b == a || (pair < 3 && !full[b]));
            double sx = cx_of((int)(a % nx)), sy = cy_of((int)(a / nx)), gx = cx_of((int)(b % nx)),
                   gy = cy_of((int)(b / nx));
            for (int s = PRM_MMCR; s <= PRM_TIME; s++) {
                prm_weights w;
                prm_weights_default(&w);
                prm_path p, q;
                trv_status sw = prm_route_grid_window(ctx, &t, win, local, sx, sy, gx, gy, (prm_strategy)s, &w, &p);
                trv_status sf = prm_route_grid_masked(ctx, &t, full, sx, sy, gx, gy, (prm_strategy)s, &w, &q);
                double want = full[b] ? brute_force_masked(&t, full, a, b, (prm_strategy)s) : INFINITY;
                assert_int_equal(sw, sf);
                if (!isfinite(want)) {
                    assert_int_equal(sw, TRV_ERR_DATA);
                    assert_string_equal(trv_errmsg(ctx), "the goal is not reachable from the start");
                    unreachable++;
                    continue;
                }
                if (sw)
                    fail_msg("map %d pair %d %s: %s", map, pair, prm_strategy_name(s), trv_errmsg(ctx));
                assert_close(p.objective, want, 1e-9);
                assert_true(p.objective == q.objective && p.expanded == q.expanded);
                assert_int_equal(p.n, q.n);
                assert_memory_equal(p.x, q.x, (size_t)p.n * sizeof *p.x);
                assert_memory_equal(p.y, q.y, (size_t)p.n * sizeof *p.y);
                path_free(&p);
                path_free(&q);
                compared++;
            }
        }
        /* a window that leaves the grid is refused */
        long bad[4] = {win[0], win[1], nx, win[3]};
        prm_path p;
        if (win[0] > 0) {
            assert_int_equal(prm_route_grid_window(ctx, &t, bad, NULL, cx_of(0), cy_of(0), cx_of(1), cy_of(1),
                                                   PRM_MDR, NULL, &p),
                             TRV_ERR_INTERNAL);
            assert_null(p.x);
        }
        free(full);
        free(local);
        prm_terrain_clear(&t);
    }
    print_message("%d window searches matched, %d agreed the goal was unreachable\n", compared, unreachable);
    assert_true(compared >= 80 && unreachable >= 4);
    trv_ctx_free(ctx);
}

/* prm_refine's corridor reaches halfwidth each side of the route: a
 * straight route along row 5 at 5 km/h, a 40 km/h highway two rows north,
 * then two rows south of it. A 3-cell band finds the highway either way
 * (a route inside the band, well under half the straight time); a 1-cell
 * band cannot reach it and keeps the straight route as it was. */
static void test_refine_band(void **state)
{
    (void)state;
    trv_ctx *ctx = trv_ctx_new();
    for (int side = -1; side <= 1; side += 2) {
        for (int cells = 1; cells <= 3; cells += 2) {
            prm_terrain t;
            terrain_make(&t, 30, 11);
            for (int c = 0; c < 30; c++)
                for (int r = 0; r < 11; r++)
                    t.speed->f32[cell_of(&t, c, r)] = r == 5 + 2 * side ? 40 : 5;
            terrain_finish(&t);
            prm_path p = {0};
            p.n = 2;
            p.x = malloc(2 * sizeof *p.x);
            p.y = malloc(2 * sizeof *p.y);
            p.x[0] = cx_of(0), p.y[0] = cy_of(5), p.x[1] = cx_of(29), p.y[1] = cy_of(5);
            p.objective = path_weight(&t, &p, PRM_TIME);
            double straight = p.objective;
            assert_close(straight, 29 * CELL / (5 / 3.6), 1e-12);
            assert_int_equal(prm_refine(ctx, &t, &p, PRM_TIME, NULL, cells * CELL), TRV_OK);
            if (cells == 1) {
                assert_int_equal(p.n, 2);
                assert_true(p.objective == straight);
            } else {
                assert_true(p.objective < 0.5 * straight);
                assert_close(path_weight(&t, &p, PRM_TIME), p.objective, 1e-9);
                for (int i = 0; i < p.n; i++)
                    assert_true(fabs(p.y[i] - cy_of(5)) <= 3 * CELL);
            }
            path_free(&p);
            prm_terrain_clear(&t);
        }
    }
    trv_ctx_free(ctx);
}

/* prm_piece_classes (the roadmap A*'s mmcr heuristic) against
 * prm_piece_measure: the NOGO and class lengths equal to the bit, on
 * random segments (inside, partly off the grid, through corners, along
 * grid lines, of length 0, both ways), classes 0-5 (4 and 5: GO with no
 * risk class), on a grid whose coordinates are exact in binary and on one
 * whose are not, and with map units of 2 m. */
static void test_piece_classes(void **state)
{
    (void)state;
    trv_rng rng;
    trv_rng_seed(&rng, 3);
    long checked = 0, corners = 0;
    for (int g = 0; g < 3; g++) {
        prm_terrain t;
        const int nx = 17, ny = 13;
        double cell = g == 1 ? 7.3 : CELL, x0 = g == 1 ? X0 + 0.37 : X0, y0 = g == 1 ? Y0 - 0.11 : Y0;
        assert_int_equal(test_terrain_new(&t, nx, ny, x0, y0, cell), 0);
        if (g == 2)
            t.cell_m = 2 * cell; /* map units of 2 m */
        for (long i = 0; i < (long)nx * ny; i++) {
            t.cls->u8[i] = (unsigned char)trv_rng_below(&rng, 6);
            t.gonogo->u8[i] = trv_rng_uniform(&rng) < 0.15 ? (unsigned char)(1 + trv_rng_below(&rng, 5)) : 0;
        }
        unsigned char *codes = prm_class_codes(&t);
        assert_non_null(codes);
        for (int k = 0; k < 3000; k++) {
            double ax, ay, bx, by;
            int kind = k % 4;
            if (kind == 0) { /* anywhere, ends up to 3 cells off the grid */
                ax = x0 + (trv_rng_uniform(&rng) * (nx + 6) - 3) * cell;
                ay = y0 - (trv_rng_uniform(&rng) * (ny + 6) - 3) * cell;
                bx = x0 + (trv_rng_uniform(&rng) * (nx + 6) - 3) * cell;
                by = y0 - (trv_rng_uniform(&rng) * (ny + 6) - 3) * cell;
            } else { /* cell centre to cell centre: diagonals through corners, rows, columns, one cell */
                int c0 = (int)trv_rng_below(&rng, nx), r0 = (int)trv_rng_below(&rng, ny);
                int d = (int)trv_rng_below(&rng, 9) - 4, e = kind == 1 ? d : kind == 2 ? 0 : (int)trv_rng_below(&rng, 9) - 4;
                int c1 = c0 + d, r1 = r0 + e;
                if (c1 < 0 || c1 >= nx || r1 < 0 || r1 >= ny)
                    continue;
                ax = x0 + (c0 + 0.5) * cell, ay = y0 - (r0 + 0.5) * cell;
                bx = x0 + (c1 + 0.5) * cell, by = y0 - (r1 + 0.5) * cell;
                corners += kind == 1 && d != 0;
            }
            for (int dir = 0; dir < 2; dir++) {
                prm_piece p;
                double c[PRM_CLASS_LEN];
                if (dir == 0) {
                    prm_piece_measure(&t, ax, ay, bx, by, &p);
                    prm_piece_classes(&t, codes, ax, ay, bx, by, c);
                } else {
                    prm_piece_measure(&t, bx, by, ax, ay, &p);
                    prm_piece_classes(&t, codes, bx, by, ax, ay, c);
                }
                if (!(c[PRM_CL_NOGO] == p.nogo && c[PRM_CL_HIGH] == p.h && c[PRM_CL_LOW] == p.l &&
                      c[PRM_CL_SAFE] == p.s))
                    fail_msg("grid %d segment %d way %d: nogo %.17g h %.17g l %.17g s %.17g, measured %.17g %.17g "
                             "%.17g %.17g",
                             g, k, dir, c[0], c[1], c[2], c[3], p.nogo, p.h, p.l, p.s);
                checked++;
            }
        }
        free(codes);
        prm_terrain_clear(&t);
    }
    print_message("%ld pieces, %ld of them diagonals through corners: equal to the bit\n", checked, corners);
    assert_true(checked > 14000 && corners > 500);
}

/* prm_edge_measure (the roadmap build's candidate measure) against
 * prm_piece_measure: the same blocked flag on every piece, the same piece
 * byte for byte where it is not blocked, and nothing but the flag where it
 * is; random segments inside, partly off the grid and from cell centre to
 * cell centre (diagonals through corners), NOGO by GO/NOGO and by class 0. */
static void test_edge_measure(void **state)
{
    (void)state;
    trv_rng rng;
    trv_rng_seed(&rng, 11);
    const int nx = 19, ny = 14;
    prm_terrain t;
    assert_int_equal(test_terrain_new(&t, nx, ny, X0, Y0, CELL), 0);
    for (long i = 0; i < (long)nx * ny; i++) {
        t.cls->u8[i] = (unsigned char)trv_rng_below(&rng, 4);
        t.gonogo->u8[i] = trv_rng_uniform(&rng) < 0.03 ? 2 : 0;
        t.cost->f32[i] = (float)trv_rng_uniform(&rng);
        t.dem->f32[i] = (float)(100 + 10 * trv_rng_uniform(&rng));
        t.slope->f32[i] = (float)(30 * trv_rng_uniform(&rng));
        t.speed->f32[i] = (float)(40 * trv_rng_uniform(&rng));
    }
    long open = 0, blocked = 0, off = 0;
    for (int k = 0; k < 4000; k++) {
        double ax, ay, bx, by;
        if (k % 2) { /* anywhere, ends up to 2 cells off the grid */
            ax = X0 + (trv_rng_uniform(&rng) * (nx + 4) - 2) * CELL;
            ay = Y0 - (trv_rng_uniform(&rng) * (ny + 4) - 2) * CELL;
            bx = ax + (trv_rng_uniform(&rng) * 6 - 3) * CELL;
            by = ay + (trv_rng_uniform(&rng) * 6 - 3) * CELL;
        } else { /* cell centre to cell centre, a third of them diagonals */
            int c0 = (int)trv_rng_below(&rng, nx), r0 = (int)trv_rng_below(&rng, ny);
            int d = (int)trv_rng_below(&rng, 7) - 3, e = k % 3 ? (int)trv_rng_below(&rng, 7) - 3 : d;
            ax = X0 + (c0 + 0.5) * CELL, ay = Y0 - (r0 + 0.5) * CELL;
            bx = X0 + (c0 + d + 0.5) * CELL, by = Y0 - (r0 + e + 0.5) * CELL;
        }
        prm_piece p, q, none;
        prm_piece_measure(&t, ax, ay, bx, by, &p);
        prm_edge_measure(&t, ax, ay, bx, by, &q);
        assert_int_equal(q.blocked, p.blocked);
        memset(&none, 0, sizeof none);
        none.blocked = 1;
        if (p.blocked) {
            assert_memory_equal(&q, &none, sizeof q);
            blocked++;
            off += prm_cell_at(&t, ax, ay) < 0 || prm_cell_at(&t, bx, by) < 0;
        } else {
            assert_memory_equal(&q, &p, sizeof q);
            open++;
        }
    }
    print_message("%ld open pieces equal, %ld blocked (%ld with an end off the grid)\n", open, blocked, off);
    assert_true(open > 800 && blocked - off > 800 && off > 300);
    prm_terrain_clear(&t);
}

/* ---- (c) errors ----------------------------------------------------------------------------- */

static void test_errors(void **state)
{
    (void)state;
    prm_terrain t;
    terrain_make(&t, 8, 8);
    set_nogo(&t, 2, 2);
    set_nogo(&t, 5, 5);
    /* a ring round (6, 1) */
    for (int c = 5; c <= 7; c++)
        for (int r = 0; r <= 2; r++)
            if (!(c == 6 && r == 1))
                set_nogo(&t, c, r);
    terrain_finish(&t);
    trv_ctx *ctx = trv_ctx_new();
    prm_weights w;
    prm_weights_default(&w);
    prm_path p;
    assert_int_equal(prm_route_grid(ctx, &t, X0 - 5, cy_of(1), cx_of(3), cy_of(3), PRM_MDR, &w, &p), TRV_ERR_USAGE);
    assert_string_equal(trv_errmsg(ctx), "the start (599995.00, 3679988.00) is outside the map");
    assert_int_equal(prm_route_grid(ctx, &t, cx_of(1), cy_of(1), cx_of(3), Y0 + 1, PRM_MDR, &w, &p), TRV_ERR_USAGE);
    assert_contains(trv_errmsg(ctx), "the goal (");
    assert_contains(trv_errmsg(ctx), "is outside the map");
    assert_int_equal(route_cells(ctx, &t, 2, 2, 3, 3, PRM_MDR, &p), TRV_ERR_DATA);
    assert_string_equal(trv_errmsg(ctx), "the start (600020.00, 3679980.00) is in NOGO");
    assert_int_equal(route_cells(ctx, &t, 1, 1, 5, 5, PRM_TIME, &p), TRV_ERR_DATA);
    assert_string_equal(trv_errmsg(ctx), "the goal (600044.00, 3679956.00) is in NOGO");
    assert_int_equal(route_cells(ctx, &t, 1, 1, 6, 1, PRM_MMCR, &p), TRV_ERR_DATA);
    assert_string_equal(trv_errmsg(ctx), "the goal is not reachable from the start");
    assert_int_equal(route_cells(ctx, &t, 6, 1, 1, 1, PRM_MSR, &p), TRV_ERR_DATA);
    assert_string_equal(trv_errmsg(ctx), "the goal is not reachable from the start");
    assert_null(p.x);
    assert_int_equal(p.n, 0);
    prm_weights bad = w;
    bad.kh = -1;
    assert_int_equal(prm_route_grid(ctx, &t, cx_of(1), cy_of(1), cx_of(3), cy_of(3), PRM_MMCR, &bad, &p),
                     TRV_ERR_USAGE);
    assert_contains(trv_errmsg(ctx), "must be >= 0");
    trv_ctx_free(ctx);
    prm_terrain_clear(&t);
}

/* ---- (d) the B-spline ------------------------------------------------------------------------- */

static double angle_between(double ax, double ay, double bx, double by)
{
    return fabs(atan2(ax * by - ay * bx, ax * bx + ay * by));
}

static void check_ends(const double *cx, const double *cy, int n)
{
    double x, y, x1, y1;
    prm_bspline_point(cx, cy, n, 0, &x, &y);
    assert_true(x == cx[0] && y == cy[0]);
    prm_bspline_point(cx, cy, n, 1, &x1, &y1);
    assert_close(x1, cx[n - 1], 1e-14);
    assert_close(y1, cy[n - 1], 1e-14);
    const double h = 1e-8;
    prm_bspline_point(cx, cy, n, h, &x1, &y1);
    double a0 = angle_between(x1 - x, y1 - y, cx[1] - cx[0], cy[1] - cy[0]);
    if (!(a0 < 1e-6))
        fail_msg("n = %d: start tangent off the first leg by %g rad", n, a0);
    prm_bspline_point(cx, cy, n, 1, &x, &y);
    prm_bspline_point(cx, cy, n, 1 - h, &x1, &y1);
    double a1 = angle_between(x - x1, y - y1, cx[n - 1] - cx[n - 2], cy[n - 1] - cy[n - 2]);
    if (!(a1 < 1e-6))
        fail_msg("n = %d: end tangent off the last leg by %g rad", n, a1);
}

static void test_bspline(void **state)
{
    (void)state;
    const double cx[7] = {0, 10, 30, 40, 35, 60, 80}, cy[7] = {0, 20, 25, 5, -20, -10, 0};
    for (int n = 2; n <= 7; n++)
        check_ends(cx, cy, n);
    double x, y;
    /* 4 control points: the cubic Bezier, B(1/2) = (P0 + 3 P1 + 3 P2 + P3) / 8 */
    prm_bspline_point(cx, cy, 4, 0.5, &x, &y);
    assert_close(x, (cx[0] + 3 * cx[1] + 3 * cx[2] + cx[3]) / 8, 1e-14);
    assert_close(y, (cy[0] + 3 * cy[1] + 3 * cy[2] + cy[3]) / 8, 1e-14);
    /* B(1/4) = (27 P0 + 27 P1 + 9 P2 + P3) / 64 */
    prm_bspline_point(cx, cy, 4, 0.25, &x, &y);
    assert_close(x, (27 * cx[0] + 27 * cx[1] + 9 * cx[2] + cx[3]) / 64, 1e-14);
    assert_close(y, (27 * cy[0] + 27 * cy[1] + 9 * cy[2] + cy[3]) / 64, 1e-14);
    /* 3: the quadratic Bezier; 2: the segment */
    prm_bspline_point(cx, cy, 3, 0.5, &x, &y);
    assert_close(x, (cx[0] + 2 * cx[1] + cx[2]) / 4, 1e-14);
    assert_close(y, (cy[0] + 2 * cy[1] + cy[2]) / 4, 1e-14);
    prm_bspline_point(cx, cy, 2, 0.3, &x, &y);
    assert_close(x, 0.3 * cx[1], 1e-14);
    assert_close(y, 0.3 * cy[1], 1e-14);
    /* 5 points, knots 0 0 0 0 1/2 1 1 1 1: at the interior knot the basis
     * values are 0, 1/4, 1/2, 1/4, 0 (Cox-de Boor by hand, in fractions) */
    prm_bspline_point(cx, cy, 5, 0.5, &x, &y);
    assert_close(x, cx[1] / 4 + cx[2] / 2 + cx[3] / 4, 1e-13);
    assert_close(y, cy[1] / 4 + cy[2] / 2 + cy[3] / 4, 1e-13);
    /* a vertex repeated three times is on the curve */
    const double tx[7] = {0, 10, 30, 30, 30, 40, 80}, ty[7] = {0, 20, 25, 25, 25, 5, 0};
    double best = INFINITY;
    for (int i = 0; i <= 100000; i++) {
        prm_bspline_point(tx, ty, 7, i / 100000.0, &x, &y);
        best = fmin(best, hypot(x - 30, y - 25));
    }
    assert_true(best < 1e-9);
    /* a single point and u out of range */
    prm_bspline_point(cx, cy, 1, 0.7, &x, &y);
    assert_true(x == cx[0] && y == cy[0]);
    prm_bspline_point(cx, cy, 6, 1.5, &x, &y);
    assert_close(x, cx[5], 1e-14);
}

/* ---- (e) smoothing ------------------------------------------------------------------------------ */

/* map point of (u, v) in cell units from the grid's corner */
static double mx(double u) { return X0 + u * CELL; }
static double my(double v) { return Y0 - v * CELL; }

static void test_smooth(void **state)
{
    (void)state;
    prm_terrain t;
    terrain_make(&t, 24, 24);
    /* a NOGO block u, v in [5, 10), and another in [14, 18) x [0, 4) */
    for (int c = 5; c < 10; c++)
        for (int r = 5; r < 10; r++)
            set_nogo(&t, c, r);
    for (int c = 14; c < 18; c++)
        for (int r = 0; r < 4; r++)
            set_nogo(&t, c, r);
    terrain_finish(&t);
    /* a zig-zag hugging the first block's corner and round the second */
    const double u[7] = {1.5, 4.5, 4.5, 12.5, 13.5, 18.5, 22.5};
    const double v[7] = {18.5, 14.5, 4.5, 4.5, 4.5, 4.5, 1.5};
    enum { N = 7 };
    double vx[N], vy[N];
    for (int i = 0; i < N; i++) {
        vx[i] = mx(u[i]);
        vy[i] = my(v[i]);
    }
    /* the polyline is clear; the raw spline cuts the corner into NOGO */
    int raw_blocked = 0;
    double px = vx[0], py = vy[0];
    for (int i = 0; i + 1 < N; i++) {
        prm_piece pc;
        prm_piece_measure(&t, vx[i], vy[i], vx[i + 1], vy[i + 1], &pc);
        assert_false(pc.blocked);
    }
    for (int i = 1; i <= 4000; i++) {
        double x, y;
        prm_bspline_point(vx, vy, N, i / 4000.0, &x, &y);
        prm_piece pc;
        prm_piece_measure(&t, px, py, x, y, &pc);
        raw_blocked += pc.blocked;
        px = x, py = y;
    }
    assert_true(raw_blocked > 0);

    prm_path p = {0};
    p.n = N;
    p.x = malloc(N * sizeof *p.x);
    p.y = malloc(N * sizeof *p.y);
    memcpy(p.x, vx, sizeof vx);
    memcpy(p.y, vy, sizeof vy);
    p.objective = 42;
    trv_ctx *ctx = trv_ctx_new();
    double dev = -1;
    assert_int_equal(prm_smooth(ctx, &t, &p, CELL, &dev), TRV_OK);
    assert_true(p.n > N);
    assert_true(p.x[0] == vx[0] && p.y[0] == vy[0]);
    assert_true(p.x[p.n - 1] == vx[N - 1] && p.y[p.n - 1] == vy[N - 1]);
    double longest = 0;
    for (int i = 0; i + 1 < p.n; i++) {
        prm_piece pc;
        prm_piece_measure(&t, p.x[i], p.y[i], p.x[i + 1], p.y[i + 1], &pc);
        if (pc.blocked)
            fail_msg("smoothed piece %d (%.2f, %.2f)-(%.2f, %.2f) is blocked", i, p.x[i], p.y[i], p.x[i + 1],
                     p.y[i + 1]);
        longest = fmax(longest, pc.d);
    }
    assert_true(longest <= CELL + 1e-9);
    /* it is a curve, not the polyline, and stays near it */
    assert_true(dev > 0.5 && dev < 10 * CELL);
    assert_true(p.objective == 42);
    /* smoothing again changes nothing that matters: still clear */
    double dev2;
    assert_int_equal(prm_smooth(ctx, &t, &p, CELL, &dev2), TRV_OK);
    for (int i = 0; i + 1 < p.n; i++) {
        prm_piece pc;
        prm_piece_measure(&t, p.x[i], p.y[i], p.x[i + 1], p.y[i + 1], &pc);
        assert_false(pc.blocked);
    }
    path_free(&p);

    /* two vertices: the segment, sampled; a bad step */
    p.n = 2;
    p.x = malloc(2 * sizeof *p.x);
    p.y = malloc(2 * sizeof *p.y);
    p.x[0] = mx(1.5), p.y[0] = my(20.5), p.x[1] = mx(20.5), p.y[1] = my(20.5);
    assert_int_equal(prm_smooth(ctx, &t, &p, CELL, &dev), TRV_OK);
    assert_int_equal(p.n, 20);
    assert_true(dev < 1e-9);
    assert_int_equal(prm_smooth(ctx, &t, &p, 0, &dev), TRV_ERR_USAGE);
    assert_contains(trv_errmsg(ctx), "smoothing step");
    path_free(&p);
    trv_ctx_free(ctx);
    prm_terrain_clear(&t);
}

/* A path along a one-cell channel with a bend: the curve may only round
 * the bend inside the corner cell. */
static void test_smooth_channel(void **state)
{
    (void)state;
    prm_terrain t;
    terrain_make(&t, 16, 16);
    for (int c = 0; c < 16; c++)
        for (int r = 0; r < 16; r++) {
            int in_channel = (r == 8 && c <= 8) || (c == 8 && r >= 8);
            if (!in_channel)
                set_nogo(&t, c, r);
        }
    terrain_finish(&t);
    prm_path p = {0};
    p.n = 3;
    p.x = malloc(3 * sizeof *p.x);
    p.y = malloc(3 * sizeof *p.y);
    p.x[0] = mx(0.5), p.y[0] = my(8.5), p.x[1] = mx(8.5), p.y[1] = my(8.5), p.x[2] = mx(8.5), p.y[2] = my(15.5);
    trv_ctx *ctx = trv_ctx_new();
    double dev;
    assert_int_equal(prm_smooth(ctx, &t, &p, CELL / 2, &dev), TRV_OK);
    for (int i = 0; i + 1 < p.n; i++) {
        prm_piece pc;
        prm_piece_measure(&t, p.x[i], p.y[i], p.x[i + 1], p.y[i + 1], &pc);
        assert_false(pc.blocked);
    }
    /* it may round the corner inside the corner cell, no further */
    assert_true(dev > 0 && dev < CELL / 2 * sqrt(2));
    path_free(&p);

    /* last resort: a polyline that itself crosses NOGO (against the
     * contract) cannot be cleared; the curve falls back onto it */
    set_nogo(&t, 3, 8);
    terrain_finish(&t);
    p.n = 3;
    p.x = malloc(3 * sizeof *p.x);
    p.y = malloc(3 * sizeof *p.y);
    p.x[0] = mx(0.5), p.y[0] = my(8.5), p.x[1] = mx(8.5), p.y[1] = my(8.5), p.x[2] = mx(8.5), p.y[2] = my(15.5);
    assert_int_equal(prm_smooth(ctx, &t, &p, CELL / 2, &dev), TRV_OK);
    assert_true(dev < 1e-9);
    int corner = 0;
    for (int i = 0; i < p.n; i++)
        corner |= p.x[i] == mx(8.5) && p.y[i] == my(8.5);
    assert_true(corner);
    path_free(&p);
    trv_ctx_free(ctx);
    prm_terrain_clear(&t);
}

/* Union-find over 4-neighbour GO pairs, written here: the reference
 * partition for prm_regions_label. */
static long uf_find(long *par, long i)
{
    while (par[i] != i)
        i = par[i] = par[par[i]];
    return i;
}

/* GO regions: a wall splits the map in two (sizes by hand), cells that
 * meet only at a corner stay apart, the nearest reachable cell to a point
 * beyond the wall is by hand; on 20 random maps the labels partition the
 * GO cells exactly as a union-find over 4-neighbour pairs does. */
static void test_regions(void **state)
{
    (void)state;
    trv_ctx *ctx = trv_ctx_new();
    prm_terrain t;
    prm_regions rg;
    terrain_make(&t, 10, 8);
    for (int r = 0; r < 8; r++)
        set_nogo(&t, 4, r);
    set_nogo(&t, 0, 0); /* (1, 1) then meets (0, 0)'s neighbours only by edges: still one region */
    assert_int_equal(prm_regions_label(ctx, &t, &rg), TRV_OK);
    assert_int_equal(rg.n, 2);
    assert_int_equal(rg.size[1], 4 * 8 - 1);
    assert_int_equal(rg.size[2], 5 * 8);
    assert_int_equal(prm_regions_at(&t, &rg, cx_of(0), cy_of(0)), 0);
    assert_int_equal(prm_regions_at(&t, &rg, cx_of(1), cy_of(5)), 1);
    assert_int_equal(prm_regions_at(&t, &rg, cx_of(9), cy_of(5)), 2);
    double nx, ny;
    assert_true(prm_regions_nearest(&t, &rg, 1, cx_of(8) + 1, cy_of(5) + 2, &nx, &ny));
    assert_float_equal(nx, cx_of(3), 0);
    assert_float_equal(ny, cy_of(5), 0);
    assert_false(prm_regions_nearest(&t, &rg, 3, 0, 0, &nx, &ny));
    prm_regions_clear(&rg);
    prm_terrain_clear(&t);
    /* a diagonal pair: (0, 0) and (1, 1) GO, (1, 0) and (0, 1) NOGO */
    terrain_make(&t, 2, 2);
    set_nogo(&t, 1, 0);
    set_nogo(&t, 0, 1);
    assert_int_equal(prm_regions_label(ctx, &t, &rg), TRV_OK);
    assert_int_equal(rg.n, 2);
    assert_int_not_equal(rg.label[0], rg.label[3]);
    prm_regions_clear(&rg);
    prm_terrain_clear(&t);
    trv_rng rng;
    trv_rng_seed(&rng, 5);
    for (int k = 0; k < 20; k++) {
        int nxc = 7 + (int)trv_rng_below(&rng, 20), nyc = 5 + (int)trv_rng_below(&rng, 15);
        terrain_make(&t, nxc, nyc);
        for (int r = 0; r < nyc; r++)
            for (int c = 0; c < nxc; c++)
                if (trv_rng_uniform(&rng) < 0.4)
                    set_nogo(&t, c, r);
        long n = (long)nxc * nyc, *par = malloc((size_t)n * sizeof *par);
        for (long i = 0; i < n; i++)
            par[i] = i;
        for (int r = 0; r < nyc; r++)
            for (int c = 0; c < nxc; c++) {
                long i = cell_of(&t, c, r);
                if (!prm_cell_go(&t, i))
                    continue;
                if (c + 1 < nxc && prm_cell_go(&t, i + 1))
                    par[uf_find(par, i)] = uf_find(par, i + 1);
                if (r + 1 < nyc && prm_cell_go(&t, i + nxc))
                    par[uf_find(par, i)] = uf_find(par, i + nxc);
            }
        assert_int_equal(prm_regions_label(ctx, &t, &rg), TRV_OK);
        long sum = 0;
        for (int q = 1; q <= rg.n; q++)
            sum += rg.size[q];
        long go = 0;
        for (long i = 0; i < n; i++) {
            go += prm_cell_go(&t, i);
            assert_int_equal(rg.label[i] != 0, prm_cell_go(&t, i));
            for (long j = 0; j < i; j += 1 + (j % 3)) /* a sample of pairs: same root <=> same label */
                if (rg.label[i] && rg.label[j])
                    assert_int_equal(uf_find(par, i) == uf_find(par, j), rg.label[i] == rg.label[j]);
        }
        assert_int_equal(sum, go);
        free(par);
        prm_regions_clear(&rg);
        prm_terrain_clear(&t);
    }
    trv_ctx_free(ctx);
}

/* prm_aniso_grad_rect (its rows, scales and signs) against
 * geo_horn_diff on every cell: a random DEM with nodata and NaN cells,
 * NOGO cells (gradient 0), the grid's edges and corners; bit for bit
 * (elevations of very different magnitudes, so that a sum taken in another
 * order would show). */
static void test_grad_rect(void **state)
{
    (void)state;
    enum { NX = 37, NY = 29 };
    prm_terrain t;
    terrain_make(&t, NX, NY);
    t.dem->has_nodata = 1;
    t.dem->nodata = -9999;
    trv_rng rng, *r = &rng;
    trv_rng_seed(r, 7);
    for (int i = 0; i < NX * NY; i++) {
        /* magnitudes 2^-30 .. 2^30 apart: the sums' order shows in the doubles */
        t.dem->f32[i] = (float)ldexp(100 + 50 * trv_rng_uniform(r), (int)trv_rng_below(r, 61) - 30);
        double u = trv_rng_uniform(r);
        if (u < 0.03)
            t.dem->f32[i] = -9999;
        else if (u < 0.06)
            t.dem->f32[i] = NAN;
        else if (u < 0.1)
            t.cls->u8[i] = 0;
    }
    float *grad = malloc(2 * NX * NY * sizeof *grad);
    assert_non_null(grad);
    prm_aniso_grad_rect(&t, grad, 0, 0, NX, NY);
    double ew = CELL, ns = CELL;
    long bad = 0, inner = 0;
    for (int y = 0; y < NY; y++)
        for (int x = 0; x < NX; x++) {
            int i = y * NX + x;
            const float *row = t.dem->f32 + (size_t)y * NX;
            double gx = 0, gy = 0;
            if (prm_cell_go(&t, i))
                geo_horn_diff(y > 0 ? row - NX : NULL, row, y + 1 < NY ? row + NX : NULL, NX, x, 1, -9999, &gx, &gy);
            float want[2] = {(float)(gx / (8 * ew)), (float)(-gy / (8 * ns))};
            for (int k = 0; k < 2; k++) /* a NaN centre: NaN, its sign the compiler's */
                bad += !(isnan(want[k]) && isnan(grad[2 * i + k])) && memcmp(&grad[2 * i + k], &want[k], sizeof *want);
            inner += x > 0 && y > 0 && x + 1 < NX && y + 1 < NY && isfinite(want[0]) && gx != 0;
        }
    assert_int_equal(bad, 0);
    assert_true(inner > 500); /* most cells: the inner path */
    free(grad);
    prm_terrain_clear(&t);
    /* 3 x 3 windows whose sums round differently in another order:
     * 2^53 + 1 + 1 = 2^53 (ties to even, twice), 1 + 1 + 2^53 = 2^53 + 2;
     * one for each of the four sums (gx's east, gy's south, gx's west,
     * gy's north): the centre's gx or gy is 0, 0, -2, -2 (CELL 8: the
     * gradient east 0, north 0, east -2 / 64, north +2 / 64) */
    const float e53 = 9007199254740992.0f;
    const float win[4][9] = {{e53, 0, e53, 0, 0, 0.5f, 0, 0, 1},
                             {e53, 0, 0, 0, 0, 0, e53, 0.5f, 1},
                             {1, 0, 0, 0.5f, 0, 0, e53, 0, e53},
                             {1, 0.5f, e53, 0, 0, 0, 0, 0, e53}};
    const double want_g[4] = {0, 0, -2, -2};
    const float want_grad[4] = {0, 0, -2.0f / 64, 2.0f / 64};
    for (int k = 0; k < 4; k++) {
        terrain_make(&t, 3, 3);
        memcpy(t.dem->f32, win[k], sizeof win[k]);
        float g[18];
        prm_aniso_grad_rect(&t, g, 0, 0, 3, 3);
        double gx, gy;
        geo_horn_diff(t.dem->f32, t.dem->f32 + 3, t.dem->f32 + 6, 3, 1, 0, 0, &gx, &gy);
        assert_true((k % 2 ? gy : gx) == want_g[k]);
        assert_true(g[8 + k % 2] == want_grad[k]); /* the centre's gradient east (k even), north (odd) */
        prm_terrain_clear(&t);
    }
}

int main(void)
{
    geo_init();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_open_field),  cmocka_unit_test(test_wall_gap), cmocka_unit_test(test_corner),
        cmocka_unit_test(test_brute_force), cmocka_unit_test(test_errors),   cmocka_unit_test(test_bspline),
        cmocka_unit_test(test_smooth),      cmocka_unit_test(test_smooth_channel), cmocka_unit_test(test_regions),
        cmocka_unit_test(test_window), cmocka_unit_test(test_window_band),      cmocka_unit_test(test_piece_classes), cmocka_unit_test(test_refine_band),
        cmocka_unit_test(test_edge_measure), cmocka_unit_test(test_grad_rect),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
