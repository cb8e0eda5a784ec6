/* Roadmap and routes: the Latin-hypercube property, the exact segment walk
 * against brute-force clipping, A* on a hand-built roadmap with a known
 * optimum, route costs and statistics by hand on a painted row, A* on
 * random roadmaps against a brute-force Dijkstra and route statistics
 * against a brute force (both measuring pieces by clipping every cell in
 * the test, not through prm_piece_measure / prm_piece_weight), corridor
 * refinement within hand bounds, endpoint errors, the route outputs
 * read back through OGR, and a whole mission (prm_mission_run) on files. */
#include "test_common.h"

#include <limits.h>
#include <math.h>

#include <gdal.h>
#include <ogr_api.h>

#include "core/clip.h"
#include "prm/prm.h"
#include "run/run.h"

#include <sys/stat.h>


static void test_lhs(void **state)
{
    (void)state;
    enum { N = 97 };
    double xs[N], ys[N], xs2[N], ys2[N];
    prm_lhs(5, N, 100, 200, 197, 394, xs, ys); /* strata 1 x 2 */
    int row[N] = {0}, col[N] = {0};
    for (int i = 0; i < N; i++) {
        int c = (int)floor((xs[i] - 100) / 1.0), r = (int)floor((ys[i] - 200) / 2.0);
        assert_true(c >= 0 && c < N && r >= 0 && r < N);
        col[c]++;
        row[r]++;
    }
    for (int i = 0; i < N; i++) {
        assert_int_equal(col[i], 1);
        assert_int_equal(row[i], 1);
    }
    prm_lhs(5, N, 100, 200, 197, 394, xs2, ys2);
    assert_memory_equal(xs, xs2, sizeof xs); /* seeded */
    prm_lhs(6, N, 100, 200, 197, 394, xs2, ys2);
    assert_memory_not_equal(xs, xs2, sizeof xs);
}

/* brute force: the length of the segment inside each cell by clipping
 * (core's Liang-Barsky clip, checked against dense sampling in test_core) */
static double clip_len(double x0, double y0, double x1, double y1, double cx0, double cy0, double cx1, double cy1)
{
    double t0, t1;
    if (!trv_clip_segment(x0, y0, x1, y1, cx0, cy0, cx1, cy1, &t0, &t1) || !(t1 > t0))
        return 0;
    return (t1 - t0) * hypot(x1 - x0, y1 - y0);
}

typedef struct seen {
    double len[64];
    int visits[64];
} seen;

static int record(long cell, double len, void *user)
{
    seen *s = user;
    s->len[cell] += len;
    s->visits[cell]++;
    return 0;
}

static void test_segment_walk(void **state)
{
    (void)state;
    /* 8 x 8 cells of 10 m, north-up, origin (1000, 2000) */
    geo_grid g = {8, 8, {1000, 10, 0, 2000, 0, -10}, NULL};
    trv_rng r;
    trv_rng_seed(&r, 3);
    for (int k = 0; k < 2000; k++) {
        double x0, y0, x1, y1;
        if (k < 40) { /* diagonals through cell corners exactly */
            x0 = 1000 + 10 * (k % 5), y0 = 2000 - 10 * (k % 3);
            x1 = x0 + 10 * (1 + k % 4), y1 = y0 - 10 * (1 + k % 4) * (k % 2 ? 1 : -1);
        } else {
            x0 = 990 + 100 * trv_rng_uniform(&r), y0 = 1910 + 100 * trv_rng_uniform(&r);
            x1 = 990 + 100 * trv_rng_uniform(&r), y1 = 1910 + 100 * trv_rng_uniform(&r);
        }
        seen s = {{0}, {0}};
        prm_segment_walk(&g, x0, y0, x1, y1, record, &s);
        for (int cell = 0; cell < 64; cell++) {
            double cx0 = 1000 + 10 * (cell % 8), cy1 = 2000 - 10 * (cell / 8);
            double want = clip_len(x0, y0, x1, y1, cx0, cy1 - 10, cx0 + 10, cy1);
            if (want > 1e-9) {
                if (s.visits[cell] != 1)
                    fail_msg("segment %d: cell %d (%.6f m inside) visited %d times", k, cell, want, s.visits[cell]);
                assert_float_equal(s.len[cell], want, 1e-9);
            } else {
                assert_float_equal(s.len[cell], 0, 1e-9);
            }
        }
    }
    /* along a grid line the length goes to one of the two rows, all of it */
    seen gl = {{0}, {0}};
    prm_segment_walk(&g, 1020, 1980, 1050, 1980, record, &gl);
    double sum = 0;
    for (int cell = 0; cell < 64; cell++) {
        sum += gl.len[cell];
        if (gl.len[cell] > 0)
            assert_true(cell / 8 == 1 || cell / 8 == 2);
    }
    assert_float_equal(sum, 30, 1e-9);
    /* a diagonal through a corner also reports the two corner cells, at length 0 */
    seen s = {{0}, {0}};
    prm_segment_walk(&g, 1005, 1995, 1015, 1985, record, &s); /* cell 0 -> cell 9 through (1010, 1990) */
    assert_int_equal(s.visits[0], 1);
    assert_int_equal(s.visits[9], 1);
    assert_int_equal(s.visits[1], 1);
    assert_int_equal(s.visits[8], 1);
    assert_float_equal(s.len[1], 0, 0);
    assert_float_equal(s.len[8], 0, 0);
}

/* A terrain of nx x ny cells of 100 m in EPSG:32616 (origin 500000,
 * 4000000: exact in binary), all GO and safe at 36 km/h unless painted
 * otherwise. */
static void make_terrain_n(prm_terrain *t, int nx, int ny)
{
    trv_ctx *ctx = trv_ctx_new();
    char *wkt = NULL;
    assert_int_equal(geo_crs_wkt(ctx, "EPSG:32616", &wkt), TRV_OK);
    geo_grid g = {nx, ny, {500000, 100, 0, 4000000, 0, -100}, wkt};
    memset(t, 0, sizeof *t);
    assert_int_equal(geo_raster_new(ctx, &g, GEO_U8, &t->cls), TRV_OK);
    assert_int_equal(geo_raster_new(ctx, &g, GEO_U8, &t->gonogo), TRV_OK);
    assert_int_equal(geo_raster_new(ctx, &g, GEO_F32, &t->cost), TRV_OK);
    assert_int_equal(geo_raster_new(ctx, &g, GEO_F32, &t->dem), TRV_OK);
    assert_int_equal(geo_raster_new(ctx, &g, GEO_F32, &t->slope), TRV_OK);
    assert_int_equal(geo_raster_new(ctx, &g, GEO_F32, &t->speed), TRV_OK);
    for (int i = 0; i < nx * ny; i++) {
        t->cls->u8[i] = 3;
        t->speed->f32[i] = 36;
        t->dem->f32[i] = 300;
        t->slope->f32[i] = 2;
        t->cost->f32[i] = 0.2f;
    }
    t->grid = &t->cls->grid;
    t->cell_m = 100;
    t->top_speed_kmh = 36;
    free(wkt);
    trv_ctx_free(ctx);
}

static void make_terrain(prm_terrain *t) { make_terrain_n(t, 10, 10); }

/* ---- independent references: no prm_* measuring, weighing or statistics code ---- */

/* docs/method.md §4.1: GO when the GO/NOGO reason is 0 and the class is not 0 */
static int ref_go(const prm_terrain *t, long i) { return t->gonogo->u8[i] == 0 && t->cls->u8[i] != 0; }

/* 1 if the closed segment meets the closed rectangle (a touch at a corner or an edge included) */
static int touches(double x0, double y0, double x1, double y1, double cx0, double cy0, double cx1, double cy1)
{
    double t0, t1;
    return trv_clip_segment(x0, y0, x1, y1, cx0, cy0, cx1, cy1, &t0, &t1);
}

/* docs/method.md §4.3 by brute force: every cell of the grid clipped
 * against the segment (clip_len), so no cell walk is involved. Blocked:
 * the segment touches a non-GO cell (a corner or an edge is enough) or an
 * end is off the grid. slope_max: over the cells with length > 0. */
typedef struct ref_piece {
    double d, l, h, s, nogo, slope_int, time_s, cost_int, elev_int, slope_max, speed_int, len;
    int blocked;
} ref_piece;

static void ref_measure(const prm_terrain *t, double x0, double y0, double x1, double y1, ref_piece *p)
{
    memset(p, 0, sizeof *p);
    const geo_grid *g = t->grid;
    double ox = g->gt[0], oy = g->gt[3], cs = g->gt[1]; /* north-up, square cells, metres */
    p->d = hypot(x1 - x0, y1 - y0);
    if (!(x0 >= ox && x0 < ox + g->nx * cs && y0 <= oy && y0 > oy - g->ny * cs) ||
        !(x1 >= ox && x1 < ox + g->nx * cs && y1 <= oy && y1 > oy - g->ny * cs))
        p->blocked = 1;
    for (long i = 0; i < (long)g->nx * g->ny; i++) {
        double cx0 = ox + cs * (double)(i % g->nx), cy1 = oy - cs * (double)(i / g->nx);
        double len = clip_len(x0, y0, x1, y1, cx0, cy1 - cs, cx0 + cs, cy1);
        if (!ref_go(t, i)) {
            if (touches(x0, y0, x1, y1, cx0, cy1 - cs, cx0 + cs, cy1))
                p->blocked = 1;
            p->nogo += len;
            continue;
        }
        if (len <= 0)
            continue;
        int c = t->cls->u8[i];
        if (c == 1)
            p->h += len;
        else if (c == 2)
            p->l += len;
        else if (c == 3)
            p->s += len;
        double v = t->speed->f32[i];
        p->len += len;
        p->slope_int += len * t->slope->f32[i];
        p->slope_max = fmax(p->slope_max, t->slope->f32[i]);
        p->time_s += v > 0 ? len / (v / 3.6) : INFINITY;
        p->cost_int += len * t->cost->f32[i];
        p->elev_int += len * t->dem->f32[i];
        p->speed_int += len * v;
    }
}

/* docs/method.md §4.5, with the default weights written out: kb 3
 * (low-risk), kh 10 (high-risk), ks 1 (safe), kd 0.2 (distance) */
#define REF_KB 3.0
#define REF_KH 10.0
#define REF_KS 1.0
#define REF_KD 0.2

static double ref_weight(const ref_piece *p, prm_strategy s)
{
    switch (s) {
    case PRM_MMCR: return REF_KB * p->l + REF_KH * p->h + REF_KS * p->s + REF_KD * p->d;
    case PRM_MDR: return p->d;
    case PRM_MSR: return p->slope_int + 1e-3 * p->d;
    case PRM_TIME: return p->time_s;
    }
    return NAN;
}

/* The weight of a polyline, piece by piece; *blocked set if any piece is. */
static double ref_path_weight(const prm_terrain *t, const prm_path *p, prm_strategy s, int *blocked)
{
    double sum = 0;
    *blocked = 0;
    for (int i = 0; i + 1 < p->n; i++) {
        ref_piece rp;
        ref_measure(t, p->x[i], p->y[i], p->x[i + 1], p->y[i + 1], &rp);
        *blocked |= rp.blocked;
        sum += ref_weight(&rp, s);
    }
    return sum;
}

#define assert_rel(a, b, rel)                                                                                \
    do {                                                                                                     \
        double a_ = (a), b_ = (b);                                                                           \
        if (!(fabs(a_ - b_) <= (rel) * fmax(1, fmax(fabs(a_), fabs(b_)))))                                   \
            fail_msg("%s = %.15g, want %.15g (%s:%d)", #a, a_, b_, __FILE__, __LINE__);                      \
    } while (0)

/* A hand-built roadmap: A (0) to D (3) either through B (1) along the
 * bottom, 2 x 500 m of safe cells, or straight through C (2) over the
 * middle, 2 x 400 m but through high-risk cells. Known optima: mdr goes
 * over C (800 m < 1000 m); mmcr with kh = 10, ks = 1, kd = 0 goes by B
 * (1000 < 8000). */
static void test_astar_hand(void **state)
{
    (void)state;
    prm_terrain t;
    make_terrain(&t);
    for (int r = 2; r <= 7; r++) /* a high-risk band in the middle rows, x 300..700 */
        for (int c = 3; c <= 6; c++)
            t.cls->u8[r * 10 + c] = 1;
    prm_roadmap rm = {0};
    double x[4] = {500050, 500550, 500450, 500850}, y[4] = {3999150, 3999150, 3999450, 3999150};
    /* B at (550, -850) joins A and D by the bottom row (y = -850: row 8, safe) */
    rm.nnodes = 4;
    rm.x = x;
    rm.y = y;
    prm_edge e[4];
    int pairs[4][2] = {{0, 1}, {1, 3}, {0, 2}, {2, 3}};
    for (int k = 0; k < 4; k++) {
        e[k].a = pairs[k][0];
        e[k].b = pairs[k][1];
        prm_piece_measure(&t, x[e[k].a], y[e[k].a], x[e[k].b], y[e[k].b], &e[k].p);
        assert_false(e[k].p.blocked);
    }
    rm.edges = e;
    rm.nedges = 4;
    int start[5] = {0, 2, 4, 6, 8}, adj[8] = {0, 2, 0, 1, 2, 3, 1, 3};
    rm.adj_start = start;
    rm.adj = adj;
    rm.k = 10;
    trv_ctx *ctx = trv_ctx_new();
    prm_weights w = {3, 10, 1, 0};
    prm_path p;
    /* start and goal exactly on A and D: they connect to the nearest nodes */
    trv_status rs = prm_route(ctx, &t, &rm, x[0], y[0], x[3], y[3], PRM_MDR, &w, 0, &p);
    if (rs)
        fail_msg("%s", trv_errmsg(ctx));
    /* the direct line A-D runs along the bottom row too: 800 m, all safe */
    assert_float_equal(p.objective, 800, 1e-6);
    prm_path_clear(&p);
    /* block the bottom row between A and D: now A-B-D or A-C-D */
    for (int c = 1; c <= 7; c++)
        if (c != 5)
            t.gonogo->u8[8 * 10 + c] = 1; /* NOGO, except B's cell (column 5) */
    for (int k = 0; k < 4; k++)
        prm_piece_measure(&t, x[e[k].a], y[e[k].a], x[e[k].b], y[e[k].b], &e[k].p);
    assert_true(e[0].p.blocked && e[1].p.blocked); /* the bottom is closed */
    for (int c = 1; c <= 7; c++) /* reopen it: the two-route case */
        t.gonogo->u8[8 * 10 + c] = 0;
    for (int k = 0; k < 4; k++)
        prm_piece_measure(&t, x[e[k].a], y[e[k].a], x[e[k].b], y[e[k].b], &e[k].p);
    /* a goal off the bottom row, so that no direct line competes: D' = (850, -450) */
    double gx = 500850, gy = 3999550;
    x[3] = gx;
    y[3] = gy;
    for (int k = 0; k < 4; k++)
        prm_piece_measure(&t, x[e[k].a], y[e[k].a], x[e[k].b], y[e[k].b], &e[k].p);
    assert_int_equal(prm_route(ctx, &t, &rm, x[0], y[0], gx, gy, PRM_MDR, &w, 0, &p), TRV_OK);
    double direct = hypot(gx - x[0], gy - y[0]);
    printf("  mdr: %d vertices, %.1f m (straight line %.1f m)\n", p.n, p.objective, direct);
    assert_float_equal(p.objective, direct, 1e-6); /* A to D' directly: shortest possible */
    prm_path_clear(&p);
    /* mmcr: the straight line crosses 4 high-risk cells; via B it is all safe */
    assert_int_equal(prm_route(ctx, &t, &rm, x[0], y[0], gx, gy, PRM_MMCR, &w, 1, &p), TRV_OK);
    prm_piece via1, via2, straight;
    prm_piece_measure(&t, x[0], y[0], x[1], y[1], &via1);
    prm_piece_measure(&t, x[1], y[1], gx, gy, &via2);
    prm_piece_measure(&t, x[0], y[0], gx, gy, &straight);
    double cost_b = prm_piece_weight(&via1, PRM_MMCR, &w) + prm_piece_weight(&via2, PRM_MMCR, &w);
    double cost_s = prm_piece_weight(&straight, PRM_MMCR, &w);
    printf("  mmcr: via B %.1f, straight %.1f, found %.1f through %d vertices\n", cost_b, cost_s, p.objective, p.n);
    assert_true(cost_b < cost_s);
    assert_float_equal(p.objective, cost_b, 1e-6);
    assert_int_equal(p.n, 3);
    assert_float_equal(p.x[1], x[1], 0);
    prm_path_clear(&p);

    /* endpoint errors name the end */
    assert_int_equal(prm_route(ctx, &t, &rm, 400000, y[0], gx, gy, PRM_MDR, &w, 0, &p), TRV_ERR_DATA);
    assert_contains(trv_errmsg(ctx), "the start (400000.0, 3999150.0) is outside the map");
    t.gonogo->u8[4 * 10 + 8] = 2; /* D' in NOGO (soil strength) */
    assert_int_equal(prm_route(ctx, &t, &rm, x[0], y[0], gx, gy, PRM_MDR, &w, 0, &p), TRV_ERR_DATA);
    assert_contains(trv_errmsg(ctx), "the goal (500850.0, 3999550.0) is in NOGO (soil strength)");
    t.gonogo->u8[4 * 10 + 8] = 0;
    /* a goal walled in by NOGO, away from every node: no connection */
    for (int r = 0; r <= 2; r++)
        for (int c = 0; c <= 2; c++)
            if (!(r == 1 && c == 1))
                t.gonogo->u8[r * 10 + c] = 1;
    assert_int_equal(prm_route(ctx, &t, &rm, x[0], y[0], 500150, 3999850, PRM_MDR, &w, 0, &p), TRV_ERR_DATA);
    assert_contains(trv_errmsg(ctx), "the goal (500150.0, 3999850.0) has no connection to the roadmap");
    trv_ctx_free(ctx);
    prm_terrain_clear(&t);
}

/* The paper's MMCR heuristic is not admissible (docs/method.md §4.5): its
 * barrier term charges kb per metre of NOGO on the straight line to the goal,
 * though no route crosses NOGO. Worked by hand on a 10 x 10 terrain of 100 m
 * safe cells with a NOGO wall in column 5, rows 3..7 (x 500..600 m,
 * y -800..-300 m from the top-left corner), weights kb = 3, kh = 10, ks = 1,
 * kd = 0 (so a clear piece weighs its length):
 *
 *   start S (250, -550), goal G (850, -550); nodes P (450, -250) left of the
 *   wall's top, U (650, -250) right of it, Q (550, -950) below it; one
 *   roadmap edge P-U. S sees P and Q; G sees U and Q.
 *
 *   over the top  S-P-U-G = 360.56 + 200 + 360.56 = 921.11 (the optimum)
 *   underneath    S-Q-G   = 500 + 500            = 1000
 *
 * P's straight line to G crosses the wall's row 3 from x = 516.67 to 600:
 * 83.33 x 1.25 = 104.17 m of NOGO, 395.83 m safe. The paper's h(P) =
 * 3 x 104.17 + 395.83 = 708.33, f(P) = 360.56 + 708.33 = 1068.89 > 1000 =
 * f(Q) = f(G via Q): A* pops G via Q first and returns the 1000 route. With
 * the NOGO term dropped, h(P) = 395.83, f(P) = 756.39, then f(U) = 921.11
 * < 1000 and the search finds the optimum; the admissible heuristic
 * (kd x distance = 0 here) finds it too. */
static void test_astar_paper_heuristic(void **state)
{
    (void)state;
    prm_terrain t;
    make_terrain(&t);
    for (int r = 3; r <= 7; r++)
        t.gonogo->u8[r * 10 + 5] = 1;
    double x[3] = {500450, 500650, 500550}, y[3] = {3999750, 3999750, 3999050}; /* P, U, Q */
    double sx = 500250, sy = 3999450, gx = 500850, gy = 3999450;
    prm_edge e = {.a = 0, .b = 1};
    prm_piece_measure(&t, x[0], y[0], x[1], y[1], &e.p);
    assert_false(e.p.blocked);
    int start[4] = {0, 1, 2, 2}, adj[2] = {0, 0};
    prm_roadmap rm = {.nnodes = 3, .nedges = 1, .x = x, .y = y, .edges = &e, .adj_start = start, .adj = adj, .k = 10};
    prm_piece pg;
    prm_piece_measure(&t, x[0], y[0], gx, gy, &pg);
    assert_float_equal(pg.nogo, 250.0 / 3 * 1.25, 1e-6); /* the hand-worked 104.17 m */
    prm_weights w = {3, 10, 1, 0};
    trv_ctx *ctx = trv_ctx_new();
    prm_path p;
    const double over = 2 * hypot(200, 300) + 200, under = 1000;
    assert_int_equal(prm_route(ctx, &t, &rm, sx, sy, gx, gy, PRM_MMCR, &w, 0, &p), TRV_OK);
    assert_float_equal(p.objective, under, 1e-6); /* the paper's heuristic: underneath */
    assert_int_equal(p.n, 3);
    assert_float_equal(p.x[1], x[2], 0);
    assert_float_equal(p.y[1], y[2], 0);
    prm_path_clear(&p);
    assert_int_equal(prm_route(ctx, &t, &rm, sx, sy, gx, gy, PRM_MMCR, &w, 1, &p), TRV_OK);
    assert_float_equal(p.objective, over, 1e-6); /* admissible: the optimum over the top */
    assert_int_equal(p.n, 4);
    prm_path_clear(&p);
    trv_ctx_free(ctx);
    prm_terrain_clear(&t);
}

/* Route costs by hand (docs/method.md §4.3-4.5, §4.10) on a painted row:
 * row 4 of a 10 x 10 terrain of 100 m cells is the only GO row, painted
 *
 *   column   0     1     2     3     4     5     6     7     8     9
 *   class    3     3     1     1     2     2     2     3     3     3     (1 high-, 2 low-risk, 3 safe)
 *   speed   36    36    12    12    18    18    18    36    36    36     km/h
 *   slope    2     2    20    20    10    10    10     2     2     2     deg
 *   cost  .125  .125  .875  .875    .5    .5    .5  .125  .125  .125
 *   dem    100   110   120   130   140   150   160   170   180   190     m
 *
 * From the centre of column 0 to that of column 9 along the row's centre
 * line: 50 m in columns 0 and 9, 100 m in each other one, d = 900 m;
 *   high-risk h = 200 (2, 3), low-risk l = 300 (4..6), safe s = 400;
 *   mmcr = 3 l + 10 h + 1 s + 0.2 d = 900 + 2000 + 400 + 180 = 3480
 *     (with h and l swapped it would be 600 + 3000 + 400 + 180 = 4180);
 *   slope integral B = 2 (50 + 100) + 20 (200) + 10 (300) + 2 (200 + 50) = 7800 deg m,
 *     msr = B + 1e-3 d = 7800.9;
 *   time = 400 m / 10 m/s + 200 m / (12 / 3.6) m/s + 300 m / 5 m/s = 40 + 60 + 60 = 160 s;
 *   statistics: mean elevation (50*100 + 100*(110+...+180) + 50*190) / 900 = 130500 / 900 = 145 m,
 *     mean slope 7800 / 900 = 8.6667 deg, max slope 20, mean speed
 *     (400*36 + 200*12 + 300*18) / 900 = 22200 / 900 = 24.667 km/h, mean cost
 *     (400*.125 + 200*.875 + 300*.5) / 900 = 375 / 900 = 0.41667, time 160 / 3600 h, 0 NOGO samples. */
static void paint_row(prm_terrain *t)
{
    static const unsigned char cls[10] = {3, 3, 1, 1, 2, 2, 2, 3, 3, 3};
    static const float speed[10] = {36, 36, 12, 12, 18, 18, 18, 36, 36, 36};
    static const float slope[10] = {2, 2, 20, 20, 10, 10, 10, 2, 2, 2};
    static const float cost[10] = {.125f, .125f, .875f, .875f, .5f, .5f, .5f, .125f, .125f, .125f};
    make_terrain(t);
    for (int i = 0; i < 100; i++) {
        int r = i / 10, c = i % 10;
        t->cost->f32[i] = 0.25f;
        if (r != 4) {
            t->gonogo->u8[i] = 1;
            continue;
        }
        t->cls->u8[i] = cls[c];
        t->speed->f32[i] = speed[c];
        t->slope->f32[i] = slope[c];
        t->cost->f32[i] = cost[c];
        t->dem->f32[i] = (float)(100 + 10 * c);
    }
}

static void test_route_cost_hand(void **state)
{
    (void)state;
    prm_terrain t;
    paint_row(&t);
    const double sx = 500050, gx = 500950, y = 3999550; /* centres of columns 0 and 9, row 4 */
    /* the measured piece, field by field */
    prm_piece pc;
    prm_piece_measure(&t, sx, y, gx, y, &pc);
    assert_false(pc.blocked);
    assert_float_equal(pc.d, 900, 1e-9);
    assert_float_equal(pc.h, 200, 1e-9);
    assert_float_equal(pc.l, 300, 1e-9);
    assert_float_equal(pc.s, 400, 1e-9);
    assert_float_equal(pc.nogo, 0, 0);
    assert_float_equal(pc.slope_int, 7800, 1e-9);
    assert_float_equal(pc.slope_max, 20, 0);
    assert_float_equal(pc.time_s, 160, 1e-9);
    assert_float_equal(pc.cost_int, 375, 1e-9);
    assert_float_equal(pc.elev_int, 130500, 1e-7);
    /* a roadmap of two nodes on the row; every route runs along it */
    double x[2] = {500250, 500650}, yy[2] = {y, y};
    prm_edge e = {0, 1, {0}};
    prm_piece_measure(&t, x[0], y, x[1], y, &e.p);
    int start[3] = {0, 1, 2}, adj[2] = {0, 0};
    prm_roadmap rm = {.nnodes = 2, .nedges = 1, .x = x, .y = yy, .edges = &e, .adj_start = start, .adj = adj, .k = 10};
    prm_weights w = {REF_KB, REF_KH, REF_KS, REF_KD};
    const prm_strategy strategies[4] = {PRM_MMCR, PRM_MDR, PRM_MSR, PRM_TIME};
    const double hand[4] = {3480, 900, 7800.9, 160};
    trv_ctx *ctx = trv_ctx_new();
    for (int k = 0; k < 4; k++) {
        assert_float_equal(prm_piece_weight(&pc, strategies[k], &w), hand[k], 1e-9);
        prm_path p;
        trv_status st = prm_route(ctx, &t, &rm, sx, y, gx, y, strategies[k], &w, 1, &p);
        if (st)
            fail_msg("%s: %s", prm_strategy_name(strategies[k]), trv_errmsg(ctx));
        assert_rel(p.objective, hand[k], 1e-12);
        assert_true(p.x[0] == sx && p.x[p.n - 1] == gx);
        prm_path_clear(&p);
    }
    /* the route's statistics (hand values above) */
    double px[3] = {sx, 500430, gx}, py[3] = {y, y, y};
    prm_path path = {.n = 3, .x = px, .y = py};
    prm_stats st;
    prm_path_stats(&t, &path, 100, &st);
    assert_float_equal(st.distance_m, 900, 1e-9);
    assert_float_equal(st.elev_mean_m, 145, 1e-9);
    assert_float_equal(st.slope_mean_deg, 7800.0 / 900, 1e-12);
    assert_float_equal(st.slope_max_deg, 20, 0);
    assert_float_equal(st.speed_mean_kmh, 22200.0 / 900, 1e-12);
    assert_float_equal(st.cost_mean, 375.0 / 900, 1e-12);
    assert_float_equal(st.time_h, 160.0 / 3600, 1e-14);
    assert_int_equal(st.nogo_samples, 0);
    /* down column 4 from the row's centre into the NOGO rows 5 and 6 (by
     * GO/NOGO; they keep class 3, 36 km/h, slope 2, cost .25, dem 300):
     * 50 m in (4, 4) and 150 m in NOGO; samples every 100 m at the
     * centres of rows 4, 5, 6: two in NOGO. Mean elevation (50*140 +
     * 150*300) / 200 = 260, slope (50*10 + 150*2) / 200 = 4, max 10, speed
     * (50*18 + 150*36) / 200 = 31.5, cost (50*.5 + 150*.25) / 200 = .3125,
     * time 50/5 + 150/10 = 25 s. */
    double vx[2] = {500450, 500450}, vy[2] = {y, y - 200};
    path = (prm_path){.n = 2, .x = vx, .y = vy};
    prm_path_stats(&t, &path, 100, &st);
    assert_float_equal(st.distance_m, 200, 1e-9);
    assert_float_equal(st.elev_mean_m, 260, 1e-9);
    assert_float_equal(st.slope_mean_deg, 4, 1e-12);
    assert_float_equal(st.slope_max_deg, 10, 0);
    assert_float_equal(st.speed_mean_kmh, 31.5, 1e-12);
    assert_float_equal(st.cost_mean, 0.3125, 1e-12);
    assert_float_equal(st.time_h, 25.0 / 3600, 1e-14);
    assert_int_equal(st.nogo_samples, 2);
    trv_ctx_free(ctx);
    prm_terrain_clear(&t);
}

/* issue 15, defect 13: a route vertex on the border of a speed-0 cell, as
 * trv-route plans it and as trv-sim reads it back from route.csv (x 4 mm
 * into the cell: the file's centimetres), measures the same finite time:
 * the length over 10 m/s (36 km/h) everywhere else. 1 m into the cell is
 * a real crossing: +inf. */
static void test_stats_graze(void **state)
{
    (void)state;
    prm_terrain t;
    make_terrain(&t);
    long nogo = 4 * 10 + 5; /* column 5, row 4: x 500500..500600, y 3999500..3999600 */
    t.speed->f32[nogo] = 0, t.gonogo->u8[nogo] = 1, t.cls->u8[nogo] = 0;
    const double bx[3] = {500500, 500500.004, 500501};
    for (int k = 0; k < 3; k++) {
        double px[3] = {500350, bx[k], 500400}, py[3] = {3999550, 3999520, 3999350};
        prm_path path = {.n = 3, .x = px, .y = py};
        prm_stats st;
        prm_path_stats(&t, &path, 100, &st);
        double len = hypot(bx[k] - 500350, 30) + hypot(bx[k] - 500400, 170);
        if (k < 2) {
            assert_true(isfinite(st.time_h));
            /* the grazed piece (< 12 mm) takes no time: 1.2e-3 s at most */
            assert_float_equal(st.time_h * 3600, len / 10, 1.2e-3);
        } else {
            assert_true(isinf(st.time_h));
        }
    }
    /* the case of `make demo RES=5` (segment 2097 of its mmcr route, moved
     * here): route.csv's rounded vertices cut the NOGO cell's corner 1.4 mm
     * deep, over 5.7 mm */
    double cx[3] = {500499.39, 500504.16, 500510}, cy[3] = {3999500.16, 3999498.92, 3999450};
    prm_path corner = {.n = 3, .x = cx, .y = cy};
    prm_stats st;
    prm_path_stats(&t, &corner, 100, &st);
    assert_true(isfinite(st.time_h));
    assert_float_equal(st.time_h * 3600, (hypot(4.77, 1.24) + hypot(5.84, 48.92)) / 10, 1e-3);
    prm_terrain_clear(&t);
}

/* A random terrain of nx x ny cells: classes 1..3, speed 4..60 km/h,
 * slope 0..35 deg, cost 0..1, elevation 200..400 m, and nblocks NOGO
 * rectangles of 1..4 cells a side (by GO/NOGO reason or by class 0). */
static void paint_random(prm_terrain *t, trv_rng *r, int nblocks)
{
    int nx = t->grid->nx, ny = t->grid->ny;
    for (int i = 0; i < nx * ny; i++) {
        t->cls->u8[i] = (unsigned char)(1 + trv_rng_below(r, 3));
        t->gonogo->u8[i] = 0;
        t->speed->f32[i] = (float)(4 + 56 * trv_rng_uniform(r));
        t->slope->f32[i] = (float)(35 * trv_rng_uniform(r));
        t->cost->f32[i] = (float)trv_rng_uniform(r);
        t->dem->f32[i] = (float)(200 + 200 * trv_rng_uniform(r));
    }
    for (int b = 0; b < nblocks; b++) {
        int w = 1 + (int)trv_rng_below(r, 4), h = 1 + (int)trv_rng_below(r, 4);
        int c0 = (int)trv_rng_below(r, (uint64_t)(nx - w + 1)), r0 = (int)trv_rng_below(r, (uint64_t)(ny - h + 1));
        for (int rr = r0; rr < r0 + h; rr++)
            for (int c = c0; c < c0 + w; c++) {
                if (b % 2)
                    t->gonogo->u8[rr * nx + c] = (unsigned char)(1 + trv_rng_below(r, 5));
                else
                    t->cls->u8[rr * nx + c] = 0;
            }
    }
    t->top_speed_kmh = 0;
    for (int i = 0; i < nx * ny; i++)
        if (ref_go(t, i) && t->speed->f32[i] > t->top_speed_kmh)
            t->top_speed_kmh = t->speed->f32[i];
}

/* A point drawn uniformly in a random GO cell. */
static void random_go_point(const prm_terrain *t, trv_rng *r, double *x, double *y)
{
    long n = (long)t->grid->nx * t->grid->ny, i;
    do
        i = (long)trv_rng_below(r, (uint64_t)n);
    while (!ref_go(t, i));
    *x = 500000 + 100 * ((double)(i % t->grid->nx) + trv_rng_uniform(r));
    *y = 4000000 - 100 * ((double)(i / t->grid->nx) + trv_rng_uniform(r));
}

/* A 12 x 12 random terrain (paint_random, rng seeded base + seed, left in
 * *rng for the caller's further draws) and its roadmap of NODES nodes with
 * k neighbours, built with the seed. */
static prm_roadmap *random_roadmap(trv_ctx *ctx, prm_terrain *t, trv_rng *rng, uint64_t base, uint64_t seed,
                                   int nodes, int k)
{
    make_terrain_n(t, 12, 12);
    trv_rng_seed(rng, base + seed);
    paint_random(t, rng, 4 + (int)(seed % 4));
    prm_build_opts o;
    prm_build_opts_init(&o);
    o.nodes = nodes;
    o.k = k;
    o.seed = seed;
    o.straight_only = 1; /* the straight edges: tested against visibility */
    prm_roadmap *rm = NULL;
    prm_build_stats bs;
    if (prm_roadmap_build(ctx, t, &o, &rm, &bs))
        fail_msg("seed %d: %s", (int)seed, trv_errmsg(ctx));
    return rm;
}

/* Dijkstra by linear scan over a dense weight matrix (INFINITY: no edge). */
static double dijkstra(const double *W, int n, int s, int g)
{
    double dist[512];
    char done[512] = {0};
    assert_true(n <= 512);
    for (int i = 0; i < n; i++)
        dist[i] = INFINITY;
    dist[s] = 0;
    for (;;) {
        int u = -1;
        for (int i = 0; i < n; i++)
            if (!done[i] && isfinite(dist[i]) && (u < 0 || dist[i] < dist[u]))
                u = i;
        if (u < 0 || u == g)
            break;
        done[u] = 1;
        for (int v = 0; v < n; v++)
            if (isfinite(W[u * n + v]) && dist[u] + W[u * n + v] < dist[v])
                dist[v] = dist[u] + W[u * n + v];
    }
    return dist[g];
}

/* The roadmap search against a brute force over the same graph. Random
 * painted terrains with NOGO blocks; the library's builder with k = the
 * node count, so that every pair of nodes that sees each other is joined
 * (checked against the independent visibility test) and the start and
 * goal link to every node they see (connect_end's k nearest): the graph
 * is then closed under the shortcut pass (a shortcut is a graph edge), so
 * the route's objective is the graph optimum itself. The brute force is a
 * Dijkstra over that graph with every edge measured and weighed by
 * ref_measure / ref_weight. Admissible heuristics (mdr, msr, time, mmcr
 * --admissible) must find the optimum; the paper's mmcr heuristic may not,
 * but never beats it. */
static void test_astar_brute_force(void **state)
{
    (void)state;
    enum { NODES = 22, N = NODES + 2, S = NODES, G = NODES + 1 };
    trv_ctx *ctx = trv_ctx_new();
    prm_weights w = {REF_KB, REF_KH, REF_KS, REF_KD};
    int compared = 0, unreachable = 0, paper_above = 0, legged = 0;
    double worst = 0;
    for (uint64_t seed = 1; seed <= 24; seed++) {
        prm_terrain t;
        trv_rng rng;
        prm_roadmap *rm = random_roadmap(ctx, &t, &rng, 1000, seed, NODES, NODES);
        assert_int_equal(rm->nnodes, NODES);
        /* the edge set is exactly the pairs that see each other */
        char has[NODES][NODES] = {{0}};
        for (int e = 0; e < rm->nedges; e++)
            has[rm->edges[e].a][rm->edges[e].b] = 1;
        ref_piece pieces[NODES][NODES];
        for (int a = 0; a < NODES; a++)
            for (int b = a + 1; b < NODES; b++) {
                ref_measure(&t, rm->x[a], rm->y[a], rm->x[b], rm->y[b], &pieces[a][b]);
                if (has[a][b] != !pieces[a][b].blocked)
                    fail_msg("seed %d: edge %d-%d %s, but it is %sblocked", (int)seed, a, b,
                             has[a][b] ? "kept" : "missing", pieces[a][b].blocked ? "" : "not ");
            }
        for (int pair = 0; pair < 3; pair++) {
            double sx, sy, gx, gy;
            random_go_point(&t, &rng, &sx, &sy);
            random_go_point(&t, &rng, &gx, &gy);
            ref_piece ls[NODES], lg[NODES], direct;
            int nls = 0, nlg = 0;
            for (int i = 0; i < NODES; i++) {
                ref_measure(&t, sx, sy, rm->x[i], rm->y[i], &ls[i]);
                ref_measure(&t, rm->x[i], rm->y[i], gx, gy, &lg[i]);
                nls += !ls[i].blocked;
                nlg += !lg[i].blocked;
            }
            ref_measure(&t, sx, sy, gx, gy, &direct);
            static const prm_strategy strategies[4] = {PRM_MDR, PRM_MSR, PRM_TIME, PRM_MMCR};
            for (int k = 0; k < 5; k++) {
                prm_strategy s = strategies[k < 4 ? k : 3];
                int admissible = k < 4; /* k = 4: mmcr with the paper's heuristic */
                double W[N * N];
                for (int i = 0; i < N * N; i++)
                    W[i] = INFINITY;
                for (int a = 0; a < NODES; a++)
                    for (int b = a + 1; b < NODES; b++)
                        if (has[a][b])
                            W[a * N + b] = W[b * N + a] = ref_weight(&pieces[a][b], s);
                for (int i = 0; i < NODES; i++) {
                    if (!ls[i].blocked)
                        W[S * N + i] = ref_weight(&ls[i], s);
                    if (!lg[i].blocked)
                        W[i * N + G] = ref_weight(&lg[i], s);
                }
                if (!direct.blocked)
                    W[S * N + G] = ref_weight(&direct, s);
                prm_path p;
                trv_status st = prm_route(ctx, &t, rm, sx, sy, gx, gy, s, &w, admissible, &p);
                if (nls == 0 || nlg == 0) {
                    /* an end seeing no node: a raster leg to its region's nearest node (no brute force
                     * here, test_end_leg has one), else no connection or no route */
                    if (st == TRV_OK) {
                        int blocked;
                        assert_true(p.x[0] == sx && p.y[0] == sy && p.x[p.n - 1] == gx && p.y[p.n - 1] == gy);
                        assert_rel(p.objective, ref_path_weight(&t, &p, s, &blocked), 1e-9);
                        assert_false(blocked);
                        legged++;
                        prm_path_clear(&p);
                    } else {
                        assert_int_equal(st, TRV_ERR_DATA);
                        assert_true(strstr(trv_errmsg(ctx), "has no connection to the roadmap") ||
                                    strstr(trv_errmsg(ctx), "is not reachable from the start"));
                        unreachable++;
                    }
                    continue;
                }
                double want = dijkstra(W, N, S, G);
                if (!isfinite(want)) {
                    assert_int_equal(st, TRV_ERR_DATA);
                    assert_contains(trv_errmsg(ctx), "is not reachable from the start");
                    unreachable++;
                    continue;
                }
                if (st)
                    fail_msg("seed %d pair %d %s: %s", (int)seed, pair, prm_strategy_name(s), trv_errmsg(ctx));
                /* the route: from the start to the goal, no piece blocked, its objective its own weight */
                assert_true(p.x[0] == sx && p.y[0] == sy && p.x[p.n - 1] == gx && p.y[p.n - 1] == gy);
                int blocked;
                double own = ref_path_weight(&t, &p, s, &blocked);
                assert_false(blocked);
                assert_rel(p.objective, own, 1e-9);
                if (admissible) {
                    double rel = fabs(p.objective - want) / want;
                    worst = fmax(worst, rel);
                    if (!(rel <= 1e-9))
                        fail_msg("seed %d pair %d %s: A* found %.9g, the optimum is %.9g", (int)seed, pair,
                                 prm_strategy_name(s), p.objective, want);
                    compared++;
                } else {
                    assert_true(p.objective >= want * (1 - 1e-9));
                    paper_above += p.objective > want * (1 + 1e-9);
                }
                prm_path_clear(&p);
            }
        }
        prm_roadmap_free(rm);
        prm_terrain_clear(&t);
    }
    /* measured: 268 searches, worst relative difference 4.3e-15 (1e-9 allowed) */
    printf("  %d searches at the brute-force optimum (worst relative difference %.2g), %d without a route, "
           "%d through a raster leg, %d paper-heuristic mmcr routes above it\n",
           compared, worst, unreachable, legged, paper_above);
    assert_true(compared >= 200);
    trv_ctx_free(ctx);
}

/* union-find for the component counts below */
static int uf_find(int *p, int i)
{
    while (p[i] != i)
        i = p[i] = p[p[i]];
    return i;
}

/* The roadmap's components (docs/method.md §4.4): with k nearest
 * neighbours and the bridging pass over the 4k nearest, two nodes end in
 * one component exactly when a chain of visible pairs, each pair among one
 * node's 4k nearest, joins them. Counted here by brute force (distances by
 * hand, visibility by ref_measure) on random terrains with k = 2, against
 * the roadmap's own edges; the k-nearest pairs alone leave more
 * components on some of them, so the bridging pass is what is tested. */
static void test_bridging(void **state)
{
    (void)state;
    enum { NODES = 40, K = 2 };
    trv_ctx *ctx = trv_ctx_new();
    int bridged = 0;
    for (uint64_t seed = 1; seed <= 12; seed++) {
        prm_terrain t;
        trv_rng rng;
        prm_roadmap *rm = random_roadmap(ctx, &t, &rng, 2000, seed, NODES, K);
        int pr[NODES], pk[NODES], pm[NODES];
        for (int i = 0; i < NODES; i++)
            pr[i] = pk[i] = pm[i] = i;
        for (int i = 0; i < NODES; i++) {
            /* node i's neighbours by distance (selection sort of the others) */
            int ord[NODES - 1], n = 0;
            for (int j = 0; j < NODES; j++)
                if (j != i)
                    ord[n++] = j;
            for (int a = 0; a < 4 * K; a++)
                for (int b = a + 1; b < n; b++)
                    if (hypot(rm->x[ord[b]] - rm->x[i], rm->y[ord[b]] - rm->y[i]) <
                        hypot(rm->x[ord[a]] - rm->x[i], rm->y[ord[a]] - rm->y[i])) {
                        int tmpi = ord[a];
                        ord[a] = ord[b], ord[b] = tmpi;
                    }
            for (int a = 0; a < 4 * K; a++) {
                int j = ord[a];
                ref_piece pc;
                ref_measure(&t, rm->x[i], rm->y[i], rm->x[j], rm->y[j], &pc);
                if (pc.blocked)
                    continue;
                pr[uf_find(pr, i)] = uf_find(pr, j);
                if (a < K)
                    pk[uf_find(pk, i)] = uf_find(pk, j);
            }
        }
        for (int e = 0; e < rm->nedges; e++)
            pm[uf_find(pm, rm->edges[e].a)] = uf_find(pm, rm->edges[e].b);
        int cr = 0, ck = 0, cm = 0;
        for (int i = 0; i < NODES; i++)
            cr += uf_find(pr, i) == i, ck += uf_find(pk, i) == i, cm += uf_find(pm, i) == i;
        if (cm != cr)
            fail_msg("seed %d: the roadmap has %d components, the 4k-nearest visible pairs %d", (int)seed, cm, cr);
        bridged += ck > cr;
        prm_roadmap_free(rm);
        prm_terrain_clear(&t);
    }
    printf("  bridging: on %d of 12 terrains the k nearest alone leave more components\n", bridged);
    assert_true(bridged > 0);
    trv_ctx_free(ctx);
}

/* ---- raster bridging (docs/method.md §4.4) ---- */

/* The test's own 4-connected GO regions: label (nx ny) 1.., 0 NOGO, by
 * depth-first flood with an explicit stack; returns the count. */
static int ref_regions(const prm_terrain *t, int *label)
{
    long n = (long)t->grid->nx * t->grid->ny, nx = t->grid->nx;
    long *stack = malloc((size_t)n * sizeof *stack);
    int count = 0;
    assert_non_null(stack);
    memset(label, 0, (size_t)n * sizeof *label);
    for (long i = 0; i < n; i++) {
        if (label[i] || !ref_go(t, i))
            continue;
        long top = 0;
        label[i] = ++count;
        stack[top++] = i;
        while (top > 0) {
            long c = stack[--top];
            long nb[4] = {c % nx ? c - 1 : -1, (c + 1) % nx ? c + 1 : -1, c - nx, c + nx < n ? c + nx : -1};
            for (int k = 0; k < 4; k++)
                if (nb[k] >= 0 && !label[nb[k]] && ref_go(t, nb[k])) {
                    label[nb[k]] = count;
                    stack[top++] = nb[k];
                }
        }
    }
    free(stack);
    return count;
}

/* The roadmap's components by union-find over its edges (pr: nnodes). */
static int ref_components(const prm_roadmap *rm, int *pr)
{
    for (int i = 0; i < rm->nnodes; i++)
        pr[i] = i;
    for (int e = 0; e < rm->nedges; e++)
        pr[uf_find(pr, rm->edges[e].a)] = uf_find(pr, rm->edges[e].b);
    int n = 0;
    for (int i = 0; i < rm->nnodes; i++)
        n += uf_find(pr, i) == i;
    return n;
}

/* Every edge crosses no NOGO cell (ref_measure: every cell clipped). */
static void assert_edges_free(const prm_terrain *t, const prm_roadmap *rm)
{
    for (int e = 0; e < rm->nedges; e++) {
        ref_piece pc;
        const prm_edge *ed = &rm->edges[e];
        ref_measure(t, rm->x[ed->a], rm->y[ed->a], rm->x[ed->b], rm->y[ed->b], &pc);
        if (pc.blocked)
            fail_msg("edge %d (%d-%d) touches NOGO", e, ed->a, ed->b);
        assert_rel(ed->p.d, pc.d, 1e-9);
        assert_rel(ed->p.time_s, pc.time_s, 1e-9);
    }
}

/* Two open areas (columns 0-7 and 32-39 of 40 x 21 cells) joined only by a
 * winding corridor one cell wide with ten right-angle turns: no straight
 * segment runs through it, so the straight pass leaves the two sides
 * apart; the raster bridges join them into one component, every edge
 * free of NOGO, and a route crosses. */
static void paint_corridor(prm_terrain *t)
{
    enum { NX = 40 };
    for (int i = 0; i < NX * 21; i++)
        t->gonogo->u8[i] = (i % NX < 8 || i % NX >= 32) ? 0 : 1;
    /* the corridor: (row, col) corners joined by straight runs */
    static const int corner[][2] = {{10, 8},  {10, 11}, {3, 11},  {3, 15},  {17, 15}, {17, 19},
                                    {3, 19},  {3, 23},  {17, 23}, {17, 27}, {10, 27}, {10, 31}};
    for (int k = 0; k + 1 < (int)(sizeof corner / sizeof corner[0]); k++) {
        int r0 = corner[k][0], c0 = corner[k][1], r1 = corner[k + 1][0], c1 = corner[k + 1][1];
        for (int r = r0 < r1 ? r0 : r1; r <= (r0 > r1 ? r0 : r1); r++)
            for (int c = c0 < c1 ? c0 : c1; c <= (c0 > c1 ? c0 : c1); c++)
                t->gonogo->u8[r * NX + c] = 0;
    }
}

static void test_raster_bridge_corridor(void **state)
{
    (void)state;
    prm_terrain t;
    make_terrain_n(&t, 40, 21);
    paint_corridor(&t);
    int label[40 * 21], pr[4096];
    assert_int_equal(ref_regions(&t, label), 1);
    trv_ctx *ctx = trv_ctx_new();
    prm_build_opts o;
    prm_build_opts_init(&o);
    o.nodes = 40;
    o.k = 6;
    prm_roadmap *rm = NULL;
    prm_build_stats bs;
    /* the straight pass alone: a left node and a right node in different components */
    o.straight_only = 1;
    assert_int_equal(prm_roadmap_build(ctx, &t, &o, &rm, &bs), TRV_OK);
    int nstraight = ref_components(rm, pr), apart = 0;
    for (int a = 0; a < rm->nnodes; a++)
        for (int b = 0; b < rm->nnodes; b++)
            apart += rm->x[a] < 500800 && rm->x[b] >= 503200 && uf_find(pr, a) != uf_find(pr, b);
    assert_true(nstraight >= 2 && apart > 0);
    prm_roadmap_free(rm);
    /* with the raster bridges: one component */
    o.straight_only = 0;
    assert_int_equal(prm_roadmap_build(ctx, &t, &o, &rm, &bs), TRV_OK);
    assert_true(rm->nnodes < 4096);
    assert_int_equal(ref_components(rm, pr), 1);
    assert_int_equal(bs.components, 1);
    assert_int_equal(bs.regions, 1);
    assert_int_equal(bs.components_straight, nstraight);
    assert_true(bs.bridges >= 1 && bs.bridge_edges >= 11); /* ten turns: at least eleven straight pieces */
    assert_int_equal(rm->nnodes, 40 + bs.bridge_nodes + bs.region_nodes);
    assert_edges_free(&t, rm);
    for (int e = 1; e < rm->nedges; e++) /* the bridges' edges merged into the straight ones' order */
        assert_true(rm->edges[e - 1].a < rm->edges[e].a ||
                    (rm->edges[e - 1].a == rm->edges[e].a && rm->edges[e - 1].b < rm->edges[e].b));
    printf("  corridor: %d components after the straight pass, %d bridges (%d nodes, %d edges) made one\n",
           nstraight, bs.bridges, bs.bridge_nodes, bs.bridge_edges);
    /* a route from the left area to the right one, through the corridor */
    prm_path p;
    trv_status st = prm_route(ctx, &t, rm, 500250, 3999050, 503750, 3997950, PRM_MDR, NULL, 0, &p);
    if (st)
        fail_msg("%s", trv_errmsg(ctx));
    int blocked;
    assert_rel(p.objective, ref_path_weight(&t, &p, PRM_MDR, &blocked), 1e-9);
    assert_false(blocked);
    /* the corridor's centre line from (10, 8) on is 79 cells long: no shorter way */
    assert_true(p.objective > 7900);
    prm_path_clear(&p);
    prm_roadmap_free(rm);
    trv_ctx_free(ctx);
    prm_terrain_clear(&t);
}

/* Seeded speckle (each cell NOGO with probability 0.4, near the
 * percolation threshold: many regions of every size, many without a
 * sampled node): the components equal the test's own region count, each
 * component lies in one region, every region holds a node, no edge
 * touches NOGO; pairs in one region route, pairs in two are told at once. */
/* The build's coverage (counted in bands of rows on every core) against
 * the test's own count: GO cells of every 4th row and column whose nearest
 * node (over all nodes) lies within sqrt(GO area / nodes); heights whose
 * 4-row bands split unevenly among threads. */
static void test_coverage(void **state)
{
    (void)state;
    trv_ctx *ctx = trv_ctx_new();
    static const int heights[] = {21, 25, 26, 27, 38};
    for (int h = 0; h < 5; h++) {
        int nx = 30, ny = heights[h];
        prm_terrain t;
        make_terrain_n(&t, nx, ny);
        trv_rng rng;
        trv_rng_seed(&rng, 900 + h);
        long go = 0;
        for (int i = 0; i < nx * ny; i++) {
            t.gonogo->u8[i] = trv_rng_uniform(&rng) < 0.3;
            go += ref_go(&t, i);
        }
        prm_build_opts o;
        prm_build_opts_init(&o);
        o.nodes = 12; /* few nodes: many GO cells farther than the spacing */
        prm_roadmap *rm = NULL;
        prm_build_stats bs;
        assert_int_equal(prm_roadmap_build(ctx, &t, &o, &rm, &bs), TRV_OK);
        double spacing = sqrt(go * 0.01 * 1e6 / rm->nnodes); /* 100 m cells: 0.01 km2 */
        long cells = 0, near = 0;
        for (int row = 0; row < ny; row += 4)
            for (int col = 0; col < nx; col += 4) {
                if (!ref_go(&t, (long)row * nx + col))
                    continue;
                double cx = 500000 + (col + 0.5) * 100, cy = 4000000 - (row + 0.5) * 100, best = INFINITY;
                for (int i = 0; i < rm->nnodes; i++)
                    best = fmin(best, hypot(rm->x[i] - cx, rm->y[i] - cy));
                cells++;
                near += best <= spacing;
            }
        assert_true(near > 0 && near < cells);
        assert_rel(bs.coverage, (double)near / cells, 1e-12);
        prm_roadmap_free(rm);
        prm_terrain_clear(&t);
    }
    trv_ctx_free(ctx);
}

static void test_raster_bridge_speckle(void **state)
{
    (void)state;
    enum { NX = 48, NY = 40 };
    trv_ctx *ctx = trv_ctx_new();
    int routed = 0, told = 0;
    for (uint64_t seed = 1; seed <= 3; seed++) {
        prm_terrain t;
        make_terrain_n(&t, NX, NY);
        trv_rng rng;
        trv_rng_seed(&rng, 7000 + seed);
        for (int i = 0; i < NX * NY; i++)
            t.gonogo->u8[i] = trv_rng_uniform(&rng) < 0.4;
        int label[NX * NY], nreg = ref_regions(&t, label);
        prm_build_opts o;
        prm_build_opts_init(&o);
        o.nodes = 120;
        o.k = 6;
        o.seed = seed;
        prm_roadmap *rm = NULL;
        prm_build_stats bs;
        assert_int_equal(prm_roadmap_build(ctx, &t, &o, &rm, &bs), TRV_OK);
        int *pr = malloc((size_t)rm->nnodes * sizeof *pr), *held = calloc((size_t)nreg + 1, sizeof *held);
        assert_true(pr && held);
        int ncomp = ref_components(rm, pr);
        for (int i = 0; i < rm->nnodes; i++) {
            int c = (int)((4000000 - rm->y[i]) / 100) * NX + (int)((rm->x[i] - 500000) / 100), root = uf_find(pr, i);
            assert_true(label[c] > 0);
            held[label[c]] = 1;
            /* a component's nodes share the region of its root */
            int rc = (int)((4000000 - rm->y[root]) / 100) * NX + (int)((rm->x[root] - 500000) / 100);
            assert_int_equal(label[c], label[rc]);
        }
        for (int k = 1; k <= nreg; k++)
            assert_true(held[k]);
        assert_int_equal(ncomp, nreg);
        assert_int_equal(bs.components, nreg);
        assert_int_equal(bs.regions, nreg);
        assert_int_equal(bs.regions_with_nodes + bs.region_nodes, nreg);
        assert_true(bs.region_nodes > 0);
        assert_edges_free(&t, rm);
        printf("  speckle %d: %d regions (%d without a sampled node), %d components after the straight pass, %d "
               "bridges\n",
               (int)seed, nreg, bs.region_nodes, bs.components_straight, bs.bridges);
        /* a region of one cell: two points in it route (its node, or the direct line) */
        int size[NX * NY + 1] = {0}, ones = 0;
        for (int i = 0; i < NX * NY; i++)
            size[label[i]]++;
        for (int i = 0; i < NX * NY; i++)
            if (label[i] && size[label[i]] == 1) {
                double cx = 500000 + 100 * (i % NX), cy = 4000000 - 100 * (i / NX);
                prm_path p;
                trv_status st = prm_route(ctx, &t, rm, cx + 20, cy - 30, cx + 70, cy - 90, PRM_TIME, NULL, 0, &p);
                if (st)
                    fail_msg("seed %d: a one-cell region: %s", (int)seed, trv_errmsg(ctx));
                int blocked;
                ref_path_weight(&t, &p, PRM_TIME, &blocked);
                assert_false(blocked);
                prm_path_clear(&p);
                ones++;
            }
        assert_true(ones > 0);
        for (int q = 0; q < 40; q++) {
            double sx, sy, gx, gy;
            random_go_point(&t, &rng, &sx, &sy);
            random_go_point(&t, &rng, &gx, &gy);
            int ls = label[(int)((4000000 - sy) / 100) * NX + (int)((sx - 500000) / 100)];
            int lg = label[(int)((4000000 - gy) / 100) * NX + (int)((gx - 500000) / 100)];
            prm_path p;
            trv_status st = prm_route(ctx, &t, rm, sx, sy, gx, gy, PRM_MDR, NULL, 0, &p);
            if (ls == lg) {
                if (st)
                    fail_msg("seed %d pair %d in region %d: %s", (int)seed, q, ls, trv_errmsg(ctx));
                for (int i = 0; i + 1 < p.n; i++) {
                    ref_piece rp;
                    prm_piece pp;
                    ref_measure(&t, p.x[i], p.y[i], p.x[i + 1], p.y[i + 1], &rp);
                    prm_piece_measure(&t, p.x[i], p.y[i], p.x[i + 1], p.y[i + 1], &pp);
                    if (rp.blocked)
                        fail_msg("seed %d pair %d: piece %d of %d (%.3f, %.3f)-(%.3f, %.3f) touches NOGO (prm: %d)",
                                 (int)seed, q, i, p.n, p.x[i], p.y[i], p.x[i + 1], p.y[i + 1], pp.blocked);
                }
                prm_path_clear(&p);
                routed++;
            } else {
                assert_int_equal(st, TRV_ERR_DATA);
                assert_contains(trv_errmsg(ctx), "lie in different components");
                told++;
            }
        }
        free(pr);
        free(held);
        prm_roadmap_free(rm);
        prm_terrain_clear(&t);
    }
    printf("  speckle pairs: %d in one region routed, %d in two told so\n", routed, told);
    assert_true(routed >= 10 && told >= 10);
    trv_ctx_free(ctx);
}

/* Detour bridges (docs/method.md §4.4): paint_corridor's two sides and
 * winding corridor on top of 40 x 121 cells, the sides running down to an
 * open band across rows 100-120 that the straight edges cross, so that
 * the sides are one component without the corridor. From row 10 of the
 * left side to row 10 of the right one a path that avoids the corridor
 * reaches row 100 and comes back: at least 2 x 89.5 cells = 17 900 m.
 * Without detour bridges the spanning forest leaves the corridor
 * unbridged and the route goes round; with them it takes the corridor
 * (its centre line alone 79 cells). */
static void test_detour_passage(void **state)
{
    (void)state;
    enum { NX = 40, NY = 121 };
    prm_terrain t;
    make_terrain_n(&t, NX, NY);
    paint_corridor(&t);
    for (int r = 21; r < NY; r++)
        for (int c = 0; c < NX; c++)
            t.gonogo->u8[r * NX + c] = (c < 8 || c >= 32 || r >= 100) ? 0 : 1;
    static int label[NX * NY];
    assert_int_equal(ref_regions(&t, label), 1);
    trv_ctx *ctx = trv_ctx_new();
    for (int on = 0; on < 2; on++) {
        prm_build_opts o;
        prm_build_opts_init(&o);
        assert_true(o.detour == 1.5); /* the default */
        o.nodes = 150;
        o.k = 6;
        o.detour = on ? 1.5 : 0;
        prm_roadmap *rm = NULL;
        prm_build_stats bs;
        assert_int_equal(prm_roadmap_build(ctx, &t, &o, &rm, &bs), TRV_OK);
        assert_int_equal(bs.components, 1);
        assert_int_equal(rm->nnodes, 150 + bs.region_nodes + bs.bridge_nodes + bs.detour_nodes);
        assert_edges_free(&t, rm);
        prm_path p;
        trv_status st = prm_route(ctx, &t, rm, 500250, 3998950, 503750, 3998950, PRM_MDR, NULL, 0, &p);
        if (st)
            fail_msg("%s", trv_errmsg(ctx));
        int blocked;
        assert_rel(p.objective, ref_path_weight(&t, &p, PRM_MDR, &blocked), 1e-9);
        assert_false(blocked);
        int deep = 0; /* the route's lowest vertex (row) */
        for (int i = 0; i < p.n; i++)
            deep = fmax(deep, (4000000 - p.y[i]) / 100);
        printf("  passage, detours %s: %d bridges (%d edges), %d detour bridges (%d edges), route %.0f m, down to "
               "row %d\n",
               on ? "on" : "off", bs.bridges, bs.bridge_edges, bs.detours, bs.detour_edges, p.objective, deep);
        if (on) /* the corridor's ten turns: at least eleven pieces of bridges */
            assert_true(bs.detours >= 1 && bs.detour_edges + bs.bridge_edges >= 11);
        else
            assert_true(bs.detours == 0 && bs.detour_nodes == 0 && bs.detour_edges == 0);
        if (on)
            assert_true(p.objective > 7900 && p.objective < 17900 && deep < 21);
        else
            assert_true(p.objective >= 17900 && deep >= 100);
        prm_path_clear(&p);
        prm_roadmap_free(rm);
    }
    trv_ctx_free(ctx);
    prm_terrain_clear(&t);
}

/* The build's flood, redone here: each GO cell's nearest node in 4-steps,
 * breadth-first from nodes 0 .. n - 1 at once in index order (the first
 * node in a cell owns it), neighbours west, east, north, south. */
static void ref_flood(const prm_terrain *t, const prm_roadmap *rm, int n, int *owner, int *dist)
{
    int nx = t->grid->nx, ny = t->grid->ny, head = 0, tail = 0, *queue = malloc((size_t)nx * ny * sizeof *queue);
    assert_non_null(queue);
    for (int c = 0; c < nx * ny; c++)
        owner[c] = ref_go(t, c) ? -1 : -2;
    for (int i = 0; i < n; i++) {
        int c = (int)((4000000 - rm->y[i]) / 100) * nx + (int)((rm->x[i] - 500000) / 100);
        if (owner[c] == -1)
            owner[c] = i, dist[c] = 0, queue[tail++] = c;
    }
    while (head < tail) {
        int c = queue[head++], col = c % nx, row = c / nx;
        int nb[4] = {col > 0 ? c - 1 : -1, col + 1 < nx ? c + 1 : -1, row > 0 ? c - nx : -1,
                     row + 1 < ny ? c + nx : -1};
        for (int k = 0; k < 4; k++)
            if (nb[k] >= 0 && owner[nb[k]] == -1)
                owner[nb[k]] = owner[c], dist[nb[k]] = dist[c] + 1, queue[tail++] = nb[k];
    }
    free(queue);
}

/* The spanner's promise (detour.h) by brute force on seeded speckle: for
 * every two nodes whose flood areas touch (the test's own flood), the
 * roadmap's shortest path between them (a Dijkstra here, edges weighed by
 * their length from the nodes' coordinates) is at most rho times their
 * bridge, so at most rho (w + 2) cells, w the 4-steps of their shortest
 * bridge; without detour bridges some pair breaks it (so the check can
 * fail), and the build is the old one: the same Kruskal bridges. */
static double ref_node_dist(const prm_roadmap *rm, int a, int b, double *d, char *done)
{
    for (int i = 0; i < rm->nnodes; i++)
        d[i] = INFINITY, done[i] = 0;
    d[a] = 0;
    for (;;) {
        int u = -1;
        for (int i = 0; i < rm->nnodes; i++)
            if (!done[i] && d[i] < INFINITY && (u < 0 || d[i] < d[u]))
                u = i;
        if (u < 0 || u == b)
            return d[b];
        done[u] = 1;
        for (int e = 0; e < rm->nedges; e++) {
            const prm_edge *ed = &rm->edges[e];
            int v = ed->a == u ? ed->b : ed->b == u ? ed->a : -1;
            if (v >= 0)
                d[v] = fmin(d[v], d[u] + hypot(rm->x[ed->b] - rm->x[ed->a], rm->y[ed->b] - rm->y[ed->a]));
        }
    }
}

static void test_detour_spanner(void **state)
{
    (void)state;
    enum { NX = 48, NY = 40 };
    trv_ctx *ctx = trv_ctx_new();
    static int owner[NX * NY], dist[NX * NY];
    { /* open ground: the default 14 nearest join neighbours within the stretch, so no detour is needed */
        prm_terrain t;
        make_terrain_n(&t, NX, NY);
        prm_build_opts o;
        prm_build_opts_init(&o);
        o.nodes = 120;
        o.k = 14;
        prm_roadmap *rm = NULL;
        prm_build_stats bs;
        assert_int_equal(prm_roadmap_build(ctx, &t, &o, &rm, &bs), TRV_OK);
        assert_int_equal(bs.detours, 0);
        assert_int_equal(rm->nnodes, 120);
        prm_roadmap_free(rm);
        prm_terrain_clear(&t);
    }
    for (uint64_t seed = 1; seed <= 3; seed++) {
        prm_terrain t;
        make_terrain_n(&t, NX, NY);
        trv_rng rng;
        trv_rng_seed(&rng, 7100 + seed);
        for (int i = 0; i < NX * NY; i++)
            t.gonogo->u8[i] = trv_rng_uniform(&rng) < 0.3;
        int broken[2] = {0, 0}, pairs = 0, bridges[2], nodes[2];
        for (int on = 0; on < 2; on++) {
            prm_build_opts o;
            prm_build_opts_init(&o);
            o.nodes = 120;
            o.k = 6;
            o.seed = seed;
            o.detour = on ? 1.5 : 0;
            prm_roadmap *rm = NULL;
            prm_build_stats bs;
            assert_int_equal(prm_roadmap_build(ctx, &t, &o, &rm, &bs), TRV_OK);
            assert_edges_free(&t, rm);
            bridges[on] = bs.bridges, nodes[on] = bs.bridge_nodes;
            int n = rm->nnodes - bs.bridge_nodes - bs.detour_nodes; /* the flood's nodes */
            ref_flood(&t, rm, n, owner, dist);
            int *w = malloc((size_t)n * n * sizeof *w);
            double *d = malloc((size_t)rm->nnodes * sizeof *d);
            char *done = malloc((size_t)rm->nnodes);
            assert_true(w && d && done);
            for (int i = 0; i < n * n; i++)
                w[i] = INT_MAX;
            for (int c = 0; c < NX * NY; c++) {
                int nb[2] = {c % NX + 1 < NX ? c + 1 : -1, c / NX + 1 < NY ? c + NX : -1};
                for (int k = 0; k < 2; k++) {
                    if (owner[c] < 0 || nb[k] < 0 || owner[nb[k]] < 0 || owner[c] == owner[nb[k]])
                        continue;
                    int a = owner[c] < owner[nb[k]] ? owner[c] : owner[nb[k]], b = owner[c] ^ owner[nb[k]] ^ a;
                    if (dist[c] + dist[nb[k]] + 1 < w[a * n + b])
                        w[a * n + b] = dist[c] + dist[nb[k]] + 1;
                }
            }
            pairs = 0;
            for (int a = 0; a < n; a++)
                for (int b = a + 1; b < n; b++)
                    if (w[a * n + b] < INT_MAX) {
                        pairs++;
                        broken[on] += ref_node_dist(rm, a, b, d, done) > 1.5 * (w[a * n + b] + 2) * 100 + 1e-6;
                    }
            free(w);
            free(d);
            free(done);
            prm_roadmap_free(rm);
        }
        int count[3]; /* detour bridges at stretches 1.1, 1.5, 3: fewer as it grows */
        static const double rho[3] = {1.1, 1.5, 3};
        for (int k = 0; k < 3; k++) {
            prm_build_opts o;
            prm_build_opts_init(&o);
            o.nodes = 120;
            o.k = 6;
            o.seed = seed;
            o.detour = rho[k];
            prm_roadmap *rm = NULL;
            prm_build_stats bs;
            assert_int_equal(prm_roadmap_build(ctx, &t, &o, &rm, &bs), TRV_OK);
            count[k] = bs.detours;
            prm_roadmap_free(rm);
        }
        printf("  spanner %d: %d neighbouring pairs, %d farther than 1.5 bridges without detours, %d with; "
               "%d, %d, %d detour bridges at stretch 1.1, 1.5, 3\n",
               (int)seed, pairs, broken[0], broken[1], count[0], count[1], count[2]);
        assert_true(count[0] > count[1] && count[1] > count[2] && count[2] > 0);
        assert_int_equal(broken[1], 0);
        assert_true(broken[0] > 0);
        assert_int_equal(bridges[0], bridges[1]); /* the Kruskal bridges are the same */
        assert_int_equal(nodes[0], nodes[1]);
        prm_terrain_clear(&t);
    }
    trv_ctx_free(ctx);
}

/* An end that sees no node: the start at the blind end of a winding
 * corridor (a 20 x 10 map, NOGO in columns 0-9 but the corridor), the
 * two hand-placed nodes in the open part; the route takes a raster leg
 * through the corridor, NOGO-free piece by piece. With the corridor's
 * exit closed, the start's region holds no node: said so. */
static void test_end_leg(void **state)
{
    (void)state;
    enum { NX = 20 };
    prm_terrain t;
    make_terrain_n(&t, NX, 10);
    for (int i = 0; i < NX * 10; i++)
        t.gonogo->u8[i] = i % NX < 10;
    static const int run[][4] = {{1, 1, 1, 8}, {1, 8, 5, 8}, {5, 3, 5, 8}, {5, 3, 8, 3}, {8, 3, 8, 9}};
    for (int k = 0; k < 5; k++)
        for (int r = run[k][0]; r <= run[k][2]; r++)
            for (int c = run[k][1]; c <= run[k][3]; c++)
                t.gonogo->u8[r * NX + c] = 0;
    double x[2] = {501550, 501550}, y[2] = {3999750, 3999250};
    prm_edge e = {0, 1, {0}};
    prm_piece_measure(&t, x[0], y[0], x[1], y[1], &e.p);
    int start[3] = {0, 1, 2}, adj[2] = {0, 0};
    prm_roadmap rm = {.nnodes = 2, .nedges = 1, .x = x, .y = y, .edges = &e, .adj_start = start, .adj = adj, .k = 10};
    trv_ctx *ctx = trv_ctx_new();
    double sx = 500130, sy = 3999870, gx = 501850, gy = 3999550;
    for (int i = 0; i < 2; i++) { /* no straight line from the start to a node */
        ref_piece pc;
        ref_measure(&t, sx, sy, x[i], y[i], &pc);
        assert_true(pc.blocked);
    }
    prm_path p;
    for (int s = 0; s <= PRM_TIME; s++) {
        trv_status st = prm_route(ctx, &t, &rm, sx, sy, gx, gy, (prm_strategy)s, NULL, 0, &p);
        if (st)
            fail_msg("%s: %s", prm_strategy_name((prm_strategy)s), trv_errmsg(ctx));
        int blocked;
        assert_true(p.x[0] == sx && p.y[0] == sy && p.x[p.n - 1] == gx && p.y[p.n - 1] == gy);
        assert_rel(p.objective, ref_path_weight(&t, &p, (prm_strategy)s, &blocked), 1e-9);
        assert_false(blocked);
        assert_true(p.n >= 7); /* the corridor's four turns and its exit need corners */
        prm_path_clear(&p);
    }
    /* the goal side works the same way: the route reversed */
    assert_int_equal(prm_route(ctx, &t, &rm, gx, gy, sx, sy, PRM_MDR, NULL, 0, &p), TRV_OK);
    int blocked;
    ref_path_weight(&t, &p, PRM_MDR, &blocked);
    assert_false(blocked);
    assert_true(p.x[p.n - 1] == sx && p.y[p.n - 1] == sy);
    prm_path_clear(&p);
    t.gonogo->u8[8 * NX + 9] = 1; /* close the exit */
    assert_int_equal(prm_route(ctx, &t, &rm, sx, sy, gx, gy, PRM_MDR, NULL, 0, &p), TRV_ERR_DATA);
    assert_contains(trv_errmsg(ctx), "has no connection to the roadmap");
    assert_contains(trv_errmsg(ctx), "its GO region holds no node");
    trv_ctx_free(ctx);
    prm_terrain_clear(&t);
}

/* The statistics of random polylines (through NOGO too: the statistics do
 * not care) against the brute force of docs/method.md §4.10: every cell
 * clipped against every segment, length-weighted means over the cells
 * with length > 0, time sum len / (v / 3.6), NOGO samples counted on the
 * points k/n of each segment (n = ceil(length / step), ends included). */
static void test_stats_brute_force(void **state)
{
    (void)state;
    double worst = 0;
    long nogo_total = 0;
    for (uint64_t seed = 1; seed <= 40; seed++) {
        prm_terrain t;
        make_terrain_n(&t, 12, 9);
        trv_rng rng;
        trv_rng_seed(&rng, 7000 + seed);
        paint_random(&t, &rng, 3);
        int n = 2 + (int)trv_rng_below(&rng, 7);
        double x[8], y[8];
        for (int i = 0; i < n; i++) {
            x[i] = 500000 + 1200 * trv_rng_uniform(&rng);
            y[i] = 4000000 - 900 * trv_rng_uniform(&rng);
        }
        prm_path p = {.n = n, .x = x, .y = y};
        double step = seed % 2 ? 100 : 37.5;
        prm_stats st;
        prm_path_stats(&t, &p, step, &st);
        double dist = 0, len = 0, elev = 0, slope = 0, smax = 0, speed = 0, cost = 0, time = 0;
        long nogo = 0;
        for (int i = 0; i + 1 < n; i++) {
            double seg = hypot(x[i + 1] - x[i], y[i + 1] - y[i]);
            dist += seg;
            for (long c = 0; c < 108; c++) {
                double cx0 = 500000 + 100.0 * (double)(c % 12), cy1 = 4000000 - 100.0 * (double)(c / 12);
                double l = clip_len(x[i], y[i], x[i + 1], y[i + 1], cx0, cy1 - 100, cx0 + 100, cy1);
                if (l <= 0)
                    continue;
                double v = t.speed->f32[c];
                len += l;
                elev += l * t.dem->f32[c];
                slope += l * t.slope->f32[c];
                smax = fmax(smax, t.slope->f32[c]);
                speed += l * v;
                cost += l * t.cost->f32[c];
                time += l / (v / 3.6);
            }
            int ns = (int)ceil(seg / step);
            for (int k = 0; k <= ns; k++) {
                double f = ns ? (double)k / ns : 0;
                double px = x[i] + f * (x[i + 1] - x[i]), py = y[i] + f * (y[i + 1] - y[i]);
                int col = (int)floor((px - 500000) / 100), row = (int)floor((4000000 - py) / 100);
                if (col < 0 || row < 0 || col >= 12 || row >= 9 || !ref_go(&t, row * 12 + col))
                    nogo++;
            }
        }
        const double got[7] = {st.distance_m, st.elev_mean_m, st.slope_mean_deg, st.slope_max_deg,
                               st.speed_mean_kmh, st.cost_mean, st.time_h};
        const double want[7] = {dist, elev / len, slope / len, smax, speed / len, cost / len, time / 3600};
        static const char *const names[7] = {"distance_m", "elev_mean_m", "slope_mean_deg", "slope_max_deg",
                                             "speed_mean_kmh", "cost_mean", "time_h"};
        for (int k = 0; k < 7; k++) {
            double rel = fabs(got[k] - want[k]) / fmax(fabs(want[k]), 1e-300);
            worst = fmax(worst, rel);
            if (!(rel <= 1e-9))
                fail_msg("seed %d: %s = %.12g, brute force %.12g", (int)seed, names[k], got[k], want[k]);
        }
        assert_int_equal(st.nogo_samples, nogo);
        nogo_total += nogo;
        prm_terrain_clear(&t);
    }
    /* measured: worst relative difference 7.7e-16 (1e-9 allowed) */
    printf("  40 routes: statistics at the brute force (worst relative difference %.2g), %ld NOGO samples\n", worst,
           nogo_total);
    assert_true(nogo_total > 0);
}

/* Unreachable: two islands, each with its own nodes. */
static void test_unreachable(void **state)
{
    (void)state;
    prm_terrain t;
    make_terrain(&t);
    for (int r = 0; r < 10; r++)
        t.gonogo->u8[r * 10 + 5] = 1; /* a NOGO column */
    prm_build_opts o;
    prm_build_opts_init(&o);
    o.nodes = 40;
    prm_roadmap *rm = NULL;
    prm_build_stats bs;
    trv_ctx *ctx = trv_ctx_new();
    assert_int_equal(prm_roadmap_build(ctx, &t, &o, &rm, &bs), TRV_OK);
    assert_true(bs.components >= 2);
    for (int e = 0; e < rm->nedges; e++) /* no edge crosses the column */
        assert_true((rm->x[rm->edges[e].a] < 500500) == (rm->x[rm->edges[e].b] < 500500));
    prm_path p;
    assert_int_equal(prm_route(ctx, &t, rm, 500150, 3999150, 500850, 3999150, PRM_MDR, NULL, 0, &p), TRV_ERR_DATA);
    assert_contains(trv_errmsg(ctx), "is not reachable from the start");
    prm_roadmap_free(rm);
    trv_ctx_free(ctx);
    prm_terrain_clear(&t);
}

/* Corridor refinement must find the way round a slow stretch, inside the
 * corridor only. 10 x 10 cells of 100 m at 36 km/h (10 m/s); row 5,
 * columns 2..7, at 3.6 km/h (1 m/s); row 2 a highway at 200 km/h. The
 * roadmap route is the straight line along row 5 from the centre of
 * column 0 to that of column 9: 300 m fast + 600 m slow = 30 + 600 = 630 s.
 * A 200 m corridor (2 cells each side: rows 3..7) holds a way round:
 * knight move (0,5)->(2,4) (crosses (0,5), (1,5), (1,4), (2,4): all fast),
 * row 4 to (7,4), knight move to (9,5): 2 sqrt(200^2 + 100^2) + 500 =
 * 947.2 m at 10 m/s = 94.72 s, an upper bound of the corridor's optimum
 * (the shortcut pass can only lower it). A lower bound: 900 m at the
 * fastest speed inside rows 3..7, 10 m/s: 90 s. The highway lies outside
 * the corridor; the unrestricted raster optimum uses it and is below 90 s,
 * so a refinement that ignored the corridor would fall below the bound.
 * Measured: 93.25 s (4 vertices: the shortcut pass cuts the knight moves
 * to (0,5)->(3,4) and (6,4)->(9,5), through cell corners), the
 * unrestricted optimum 68 s. */
static void test_refine(void **state)
{
    (void)state;
    prm_terrain t;
    make_terrain(&t);
    for (int c = 2; c <= 7; c++)
        t.speed->f32[5 * 10 + c] = 3.6f;
    for (int c = 0; c < 10; c++)
        t.speed->f32[2 * 10 + c] = 200;
    t.top_speed_kmh = 200;
    const double sx = 500050, gx = 500950, y = 3999450; /* centres of (0, 5) and (9, 5) */
    trv_ctx *ctx = trv_ctx_new();
    prm_weights w = {REF_KB, REF_KH, REF_KS, REF_KD};
    prm_path free_p;
    assert_int_equal(prm_route_grid(ctx, &t, sx, y, gx, y, PRM_TIME, &w, &free_p), TRV_OK);
    printf("  refine: the unrestricted raster optimum, by the highway: %.2f s\n", free_p.objective);
    assert_true(free_p.objective < 90); /* the design of the test: the highway pays */
    prm_path_clear(&free_p);
    prm_path p = {0};
    p.n = 2;
    p.x = malloc(2 * sizeof *p.x);
    p.y = malloc(2 * sizeof *p.y);
    p.x[0] = sx, p.y[0] = y, p.x[1] = gx, p.y[1] = y;
    int blocked;
    p.objective = ref_path_weight(&t, &p, PRM_TIME, &blocked);
    assert_float_equal(p.objective, 630, 1e-9);
    assert_int_equal(prm_refine(ctx, &t, &p, PRM_TIME, &w, 200), TRV_OK);
    double own = ref_path_weight(&t, &p, PRM_TIME, &blocked);
    printf("  refine: 630 s -> %.2f s through %d vertices (bounds 90 .. 94.72 s)\n", p.objective, p.n);
    assert_false(blocked);
    assert_true(p.x[0] == sx && p.y[0] == y && p.x[p.n - 1] == gx && p.y[p.n - 1] == y);
    assert_rel(p.objective, own, 1e-9); /* the objective is the path's own time */
    assert_true(p.objective >= 90 - 1e-9);
    assert_true(p.objective <= (2 * hypot(200, 100) + 500) / 10 + 1e-9);
    for (int i = 0; i < p.n; i++) /* inside the corridor: rows 3..7 */
        assert_true(p.y[i] <= 4000000 - 300 && p.y[i] >= 4000000 - 800);
    /* a route already better than anything in its corridor is kept as it is */
    prm_path q = {0};
    q.n = 2;
    q.x = malloc(2 * sizeof *q.x);
    q.y = malloc(2 * sizeof *q.y);
    q.x[0] = sx, q.y[0] = y, q.x[1] = gx, q.y[1] = y;
    q.objective = 1; /* claimed: nothing in the corridor beats it */
    q.expanded = 7;
    assert_int_equal(prm_refine(ctx, &t, &q, PRM_TIME, &w, 200), TRV_OK);
    assert_int_equal(q.n, 2);
    assert_true(q.objective == 1 && q.expanded == 7 && q.x[1] == gx);
    prm_path_clear(&q);
    prm_path_clear(&p);
    trv_ctx_free(ctx);
    prm_terrain_clear(&t);
}

/* Outputs read back with OGR: GeoJSON lon/lat and properties, GPX waypoints and track. */
static void test_outputs(void **state)
{
    (void)state;
    prm_terrain t;
    make_terrain(&t);
    prm_result r = {.name = "mmcr"};
    double x[3] = {500050, 500450, 500950}, y[3] = {3999950, 3999550, 3999050};
    r.path.n = 3;
    r.path.x = x;
    r.path.y = y;
    r.max_dev_m = NAN;
    prm_path_stats(&t, &r.path, 100, &r.stats);
    /* hand: 2 legs, sqrt(400^2 + 400^2) + sqrt(500^2 + 500^2) = 1272.79 m at 36 km/h = 10 m/s */
    assert_float_equal(r.stats.distance_m, 1272.792, 1e-3);
    assert_float_equal(r.stats.time_h, 1272.792 / 10 / 3600, 1e-6);
    assert_float_equal(r.stats.speed_mean_kmh, 36, 1e-9);
    assert_int_equal(r.stats.nogo_samples, 0);
    char gj[600], gpx[600], csv[600], st[600];
    snprintf(gj, sizeof gj, "%s/r.geojson", tmpdir);
    snprintf(gpx, sizeof gpx, "%s/r.gpx", tmpdir);
    snprintf(csv, sizeof csv, "%s/r.csv", tmpdir);
    snprintf(st, sizeof st, "%s/s.csv", tmpdir);
    prm_outputs o = {gj, gpx, csv, st, 0};
    trv_ctx *ctx = trv_ctx_new();
    trv_outset *set = trv_outset_new();
    assert_int_equal(prm_outputs_write(ctx, set, &t, &r, 1, &o), TRV_OK);
    assert_int_equal(trv_outset_commit(ctx, set), TRV_OK);
    trv_outset_free(set);
    GDALDatasetH ds = GDALOpenEx(gj, GDAL_OF_VECTOR, NULL, NULL, NULL);
    assert_non_null(ds);
    OGRLayerH l = GDALDatasetGetLayer(ds, 0);
    OGRFeatureH f = OGR_L_GetNextFeature(l);
    assert_non_null(f);
    assert_string_equal(OGR_F_GetFieldAsString(f, OGR_F_GetFieldIndex(f, "route")), "mmcr");
    assert_float_equal(OGR_F_GetFieldAsDouble(f, OGR_F_GetFieldIndex(f, "distance_m")), 1272.792, 1e-3);
    OGRGeometryH geom = OGR_F_GetGeometryRef(f);
    assert_int_equal(OGR_G_GetPointCount(geom), 3);
    /* (500050, 3999950) in UTM 16N is lon -86.9994, lat 36.1374 or so: check the frame */
    double lon = OGR_G_GetX(geom, 0), lat = OGR_G_GetY(geom, 0);
    assert_true(lon > -87.01 && lon < -86.99 && lat > 36.13 && lat < 36.15);
    OGR_F_Destroy(f);
    GDALClose(ds);
    ds = GDALOpenEx(gpx, GDAL_OF_VECTOR, NULL, NULL, NULL);
    assert_non_null(ds);
    l = GDALDatasetGetLayerByName(ds, "waypoints");
    assert_int_equal(OGR_L_GetFeatureCount(l, 1), 2);
    l = GDALDatasetGetLayerByName(ds, "tracks");
    assert_int_equal(OGR_L_GetFeatureCount(l, 1), 1);
    f = OGR_L_GetNextFeature(l);
    assert_string_equal(OGR_F_GetFieldAsString(f, OGR_F_GetFieldIndex(f, "name")), "mmcr");
    OGR_F_Destroy(f);
    GDALClose(ds);
    trv_ctx_free(ctx);
    prm_terrain_clear(&t);
}

/* The option checks the library shares with trv-roadmap: each bound
 * refused with the tool's message, the bounds themselves accepted; --nodes
 * above PRM_MAX_NODES (2e9 overflowed an int sample count) refused. */
static void test_build_opts_check(void **state)
{
    (void)state;
    trv_ctx *ctx = trv_ctx_new();
    prm_build_opts o;
    prm_build_opts_init(&o);
    assert_int_equal(prm_build_opts_check(ctx, &o), TRV_OK);
    o.k = 1, o.nodes = 0, o.radius = 0;
    assert_int_equal(prm_build_opts_check(ctx, &o), TRV_OK);
    o.k = 256;
    assert_int_equal(prm_build_opts_check(ctx, &o), TRV_OK);
    for (int c = 0; c < 4; c++) {
        prm_build_opts_init(&o);
        if (c == 0)
            o.k = 0;
        else if (c == 1)
            o.k = 257;
        else if (c == 2)
            o.nodes = -1;
        else
            o.radius = -1;
        assert_int_equal(prm_build_opts_check(ctx, &o), TRV_ERR_USAGE);
        assert_string_equal(trv_errmsg(ctx), "--nodes must be >= 0, --k in 1..256, --radius > 0");
    }
    /* the node bound (issue 15: 2e9 overflowed the sample count) */
    prm_build_opts_init(&o);
    o.nodes = PRM_MAX_NODES;
    assert_int_equal(prm_build_opts_check(ctx, &o), TRV_OK);
    o.nodes = PRM_MAX_NODES + 1;
    assert_int_equal(prm_build_opts_check(ctx, &o), TRV_ERR_USAGE);
    assert_string_equal(trv_errmsg(ctx), "--nodes 1000001 is more than the 1000000 a roadmap can hold");
    o.nodes = 2000000000;
    assert_int_equal(prm_build_opts_check(ctx, &o), TRV_ERR_USAGE);
    trv_ctx_free(ctx);
}

/* prm_mission_run end to end on files: the painted terrain of
 * test_astar_hand written as a run directory (run_path), its hand-built
 * roadmap as a GeoPackage, the mission in the terrain's CRS from A to
 * D' = (850, -450) with --compare --grid --no-smooth --corridor 0 and the
 * default weights. References by brute force (ref_measure): the mdr
 * route is the straight line, 894.43 m; each roadmap route's objective
 * and length are its polyline's measured by the test; the mmcr route is
 * the cheapest of the three the roadmap offers (straight, via B, via C);
 * no raster route is shorter than the straight line; the statistics CSV
 * has a row per route. */
static void write_mission(trv_ctx *ctx, prm_terrain *t, const char *dir, const char *gpkg)
{
    assert_int_equal(mkdir(dir, 0755), 0);
    geo_raster *const layer[6] = {t->cls, t->cost, t->gonogo, t->dem, t->slope, t->speed};
    static const run_id id[6] = {RUN_CLASS, RUN_COST, RUN_GONOGO, RUN_DEM, RUN_SLOPE, RUN_SPEED};
    for (int k = 0; k < 6; k++) {
        char *path = run_path(dir, id[k]);
        assert_int_equal(geo_raster_write(ctx, layer[k], path, NULL), TRV_OK);
        free(path);
    }
    prm_roadmap rm = {0};
    double x[4] = {500050, 500550, 500450, 500850}, y[4] = {3999150, 3999150, 3999450, 3999550};
    prm_edge e[4];
    int pairs[4][2] = {{0, 1}, {1, 3}, {0, 2}, {2, 3}};
    for (int k = 0; k < 4; k++) {
        e[k].a = pairs[k][0];
        e[k].b = pairs[k][1];
        prm_piece_measure(t, x[e[k].a], y[e[k].a], x[e[k].b], y[e[k].b], &e[k].p);
    }
    int start[5] = {0, 2, 4, 6, 8}, adj[8] = {0, 2, 0, 1, 2, 3, 1, 3};
    rm = (prm_roadmap){.nnodes = 4, .x = x, .y = y, .edges = e, .nedges = 4, .adj_start = start, .adj = adj,
                       .k = 10, .seed = 1, .wkt = t->grid->wkt};
    assert_int_equal(prm_roadmap_write(ctx, &rm, gpkg, NULL), TRV_OK);
}

static void test_mission(void **state)
{
    (void)state;
    prm_terrain t;
    make_terrain(&t);
    for (int r = 2; r <= 7; r++) /* test_astar_hand's high-risk band */
        for (int c = 3; c <= 6; c++)
            t.cls->u8[r * 10 + c] = 1;
    trv_ctx *ctx = trv_ctx_new();
    char dir[600], gpkg[600], stats[600];
    snprintf(dir, sizeof dir, "%s/mission", tmpdir);
    snprintf(gpkg, sizeof gpkg, "%s/roadmap.gpkg", tmpdir);
    snprintf(stats, sizeof stats, "%s/mission_stats.csv", tmpdir);
    write_mission(ctx, &t, dir, gpkg);
    prm_mission_opts o;
    prm_mission_opts_init(&o);
    o.roadmap = gpkg, o.terrain = dir, o.srs = "EPSG:32616";
    o.from[0] = 500050, o.from[1] = 3999150, o.to[0] = 500850, o.to[1] = 3999550;
    o.compare = o.grid = o.no_smooth = o.admissible = 1;
    o.corridor = 0;
    o.out.stats = stats;
    o.out.no_timing = 1;
    prm_mission m;
    trv_outset *set = trv_outset_new();
    if (prm_mission_run(ctx, &o, set, &m))
        fail_msg("%s", trv_errmsg(ctx));
    assert_int_equal(trv_outset_commit(ctx, set), TRV_OK);
    trv_outset_free(set);
    static const char *const names[8] = {"mdr", "msr", "mmcr", "time", "grid-mdr", "grid-msr", "grid-mmcr", "grid-time"};
    static const prm_strategy strat[4] = {PRM_MDR, PRM_MSR, PRM_MMCR, PRM_TIME};
    assert_int_equal(m.n, 8);
    double straight = hypot(800, 400);
    for (int k = 0; k < 8; k++) {
        const prm_result *R = &m.routes[k];
        assert_string_equal(R->name, names[k]);
        assert_true(isnan(R->max_dev_m));
        assert_true(R->stats.distance_m >= straight - 1e-6);
        if (k >= 4)
            continue;
        int blocked;
        assert_rel(R->path.objective, ref_path_weight(&t, &R->path, strat[k], &blocked), 1e-9);
        assert_false(blocked);
        double len = 0;
        for (int i = 0; i + 1 < R->path.n; i++)
            len += hypot(R->path.x[i + 1] - R->path.x[i], R->path.y[i + 1] - R->path.y[i]);
        assert_rel(R->stats.distance_m, len, 1e-9);
    }
    assert_rel(m.routes[0].path.objective, straight, 1e-9);
    double cand[3][3][2] = {{{500050, 3999150}, {500850, 3999550}, {500850, 3999550}},
                            {{500050, 3999150}, {500550, 3999150}, {500850, 3999550}},
                            {{500050, 3999150}, {500450, 3999450}, {500850, 3999550}}};
    double best = INFINITY;
    for (int c = 0; c < 3; c++) {
        ref_piece a, b;
        ref_measure(&t, cand[c][0][0], cand[c][0][1], cand[c][1][0], cand[c][1][1], &a);
        ref_measure(&t, cand[c][1][0], cand[c][1][1], cand[c][2][0], cand[c][2][1], &b);
        best = fmin(best, ref_weight(&a, PRM_MMCR) + ref_weight(&b, PRM_MMCR));
    }
    printf("  mission mmcr %.2f (best of the roadmap's three: %.2f), grid-mmcr %.2f\n", m.routes[2].path.objective,
           best, m.routes[6].path.objective);
    assert_rel(m.routes[2].path.objective, best, 1e-9);
    FILE *f = fopen(stats, "r");
    assert_non_null(f);
    int lines = 0;
    for (int c; (c = fgetc(f)) != EOF;)
        lines += c == '\n';
    fclose(f);
    assert_int_equal(lines, 9);
    prm_mission_clear(&m);
    /* a terrain directory that does not exist: an error, nothing kept */
    o.terrain = "/nonexistent-dir";
    assert_int_not_equal(prm_mission_run(ctx, &o, NULL, &m), TRV_OK);
    assert_int_equal(m.n, 0);
    trv_ctx_free(ctx);
    prm_terrain_clear(&t);
}

/* The mission's option checks: trv-route's messages, the bounds accepted. */
static void test_mission_opts_check(void **state)
{
    (void)state;
    trv_ctx *ctx = trv_ctx_new();
    prm_mission_opts o;
    prm_mission_opts_init(&o);
    assert_int_equal(prm_mission_opts_check(ctx, &o), TRV_OK);
    o.corridor = 0;
    o.weights = (prm_weights){0, 0, 0, 0};
    assert_int_equal(prm_mission_opts_check(ctx, &o), TRV_OK);
    o.corridor = -0.5;
    assert_int_equal(prm_mission_opts_check(ctx, &o), TRV_ERR_USAGE);
    assert_string_equal(trv_errmsg(ctx), "--corridor must be >= 0");
    /* prm_mission_run checks first: nothing is opened */
    prm_mission m;
    assert_int_equal(prm_mission_run(ctx, &o, NULL, &m), TRV_ERR_USAGE);
    o.corridor = -1;
    o.weights.ks = -1;
    assert_int_equal(prm_mission_opts_check(ctx, &o), TRV_ERR_USAGE);
    assert_string_equal(trv_errmsg(ctx), "--weights expects four numbers >= 0: kb,kh,ks,kd");
    o.weights.ks = NAN;
    assert_int_equal(prm_mission_opts_check(ctx, &o), TRV_ERR_USAGE);
    trv_ctx_free(ctx);
}

/* ---- direction-aware time (docs/method.md §4.3) ---- */

/* A model with one soil without shear data (no slip) and one land use with
 * no ride, vegetation or visibility limit, so that tm_speed_at reduces to
 * v(b) = min(top, eta P / F) for F > 0, top for F <= 0, NOGO for -F > m a
 * (the brakes hold), with F = R + f W cos b + W sin b. Power is lowered to
 * power_W so that uphill is power-limited and downhill at the top speed. */
typedef struct plane_model {
    tm_vehicle *v;
    tm_soils *soils;
    tm_model m;
} plane_model;

static void plane_model_init(trv_ctx *ctx, plane_model *pm, double power_W)
{
    char *vp = data_path("vehicles/ugv_hua2022.ini");
    char *sp = write_file(tmpdir, "plane_soils.csv", "code,name,n,kc,kphi,ci_kPa\n1,firm,1.0,1000,50000,2000\n");
    char *lp = write_file(tmpdir, "plane_landuse.csv", "code,name,nogo\n1,open,no\n");
    assert_int_equal(tm_vehicle_read(ctx, vp, &pm->v), TRV_OK);
    assert_int_equal(tm_soils_read(ctx, sp, &pm->soils), TRV_OK);
    assert_int_equal(tm_model_init(ctx, &pm->m, pm->v, pm->soils, lp), TRV_OK);
    pm->m.power_W = power_W;
    free(vp);
    free(sp);
    free(lp);
}

static void plane_model_free(plane_model *pm)
{
    tm_vehicle_free(pm->v);
    tm_soils_free(pm->soils);
}

/* tm_speed_at's formula written out for this model (m/s; 0: NOGO). */
static double hand_speed(const plane_model *pm, double tan_b)
{
    const tm_model *m = &pm->m;
    double b = atan(tan_b), W = m->weight_N, top = pm->v->top_speed_kmh / 3.6;
    double F = m->soil_pull_N[1] + pm->v->rolling_coeff * W * cos(b) + W * sin(b);
    if (-F > m->mass_kg * pm->v->decel_ms2)
        return 0;
    return F > 0 ? fmin(top, m->power_W / F) : top;
}

/* The plane z = 500 + gE (E - E0) + gN (N - N0) over nx x ny cells of 100 m
 * (make_terrain_n), soil and land use 1 everywhere, the model set. */
static void make_plane(trv_ctx *ctx, prm_terrain *t, int nx, int ny, double gE, double gN, const plane_model *pm)
{
    make_terrain_n(t, nx, ny);
    geo_raster *soil, *lu;
    assert_int_equal(geo_raster_new(ctx, t->grid, GEO_U8, &soil), TRV_OK);
    assert_int_equal(geo_raster_new(ctx, t->grid, GEO_U8, &lu), TRV_OK);
    for (int r = 0; r < ny; r++)
        for (int c = 0; c < nx; c++) {
            long i = (long)r * nx + c;
            t->dem->f32[i] = (float)(500 + gE * 100 * c - gN * 100 * r);
            t->slope->f32[i] = (float)(atan(hypot(gE, gN)) * 180 / M_PI);
            soil->u8[i] = lu->u8[i] = 1;
        }
    assert_int_equal(prm_terrain_set_model(ctx, t, &pm->m, soil, lu), TRV_OK);
    geo_raster_free(soil);
    geo_raster_free(lu);
}

static void test_time_tilted_plane(void **state)
{
    (void)state;
    trv_ctx *ctx = trv_ctx_new();
    plane_model pm;
    plane_model_init(ctx, &pm, 6000);
    /* gradients exact in binary: the DEM's floats are exact, Horn's too */
    const double gE = 0.0625, gN = 0.03125;
    prm_terrain t;
    make_plane(ctx, &t, 40, 12, gE, gN, &pm);
    double up = hand_speed(&pm, gE), down = hand_speed(&pm, -gE);
    /* the hand values are what the test is about: uphill power-limited, downhill at the top speed */
    assert_true(up > 4 && up < 7 && fabs(down - 40 / 3.6) < 1e-12);
    /* the highest speed any cell allows: the top speed */
    assert_float_equal(t.top_speed_kmh, 40, 1e-9);
    /* one straight segment east (uphill) along row 5, 3000 m, both ways */
    double y = 4000000 - 550, x0 = 500450, x1 = 503450;
    prm_piece p;
    prm_piece_measure(&t, x0, y, x1, y, &p);
    assert_float_equal(p.time_s, 3000 / up, 1e-6 * 3000 / up);
    assert_float_equal(p.time_rev_s, 3000 / down, 1e-6 * 3000 / down);
    /* north (the N gradient's sign) and a heading of 30 degrees: grade = grad . u */
    prm_piece_measure(&t, x0, y - 500, x0, y + 300, &p); /* row 10 to row 2 */
    assert_float_equal(p.time_s, 800 / hand_speed(&pm, gN), 1e-6 * p.time_s);
    assert_float_equal(p.time_rev_s, 800 / hand_speed(&pm, -gN), 1e-6 * p.time_rev_s);
    double ux = cos(M_PI / 6), uy = sin(M_PI / 6), L = 1000;
    prm_piece_measure(&t, x0, y - 300, x0 + L * ux, y - 300 + L * uy, &p);
    assert_float_equal(p.time_s, L / hand_speed(&pm, gE * ux + gN * uy), 1e-6 * p.time_s);
    assert_float_equal(p.time_rev_s, L / hand_speed(&pm, -gE * ux - gN * uy), 1e-6 * p.time_rev_s);
    /* the raster optimum east and west along the row (cell centres: no legs), and its statistics */
    prm_path g;
    assert_int_equal(prm_route_grid(ctx, &t, x0, y, x1, y, PRM_TIME, NULL, &g), TRV_OK);
    assert_float_equal(g.objective, 3000 / up, 1e-6 * g.objective);
    prm_stats st;
    prm_path_stats(&t, &g, 100, &st);
    assert_float_equal(st.time_h * 3600, 3000 / up, 1e-6 * 3000 / up);
    assert_float_equal(st.speed_mean_kmh, up * 3.6, 1e-6 * up * 3.6);
    prm_path_clear(&g);
    assert_int_equal(prm_route_grid(ctx, &t, x1, y, x0, y, PRM_TIME, NULL, &g), TRV_OK);
    assert_float_equal(g.objective, 3000 / down, 1e-6 * g.objective);
    prm_path_stats(&t, &g, 100, &st);
    assert_float_equal(st.time_h * 3600, 3000 / down, 1e-6 * 3000 / down);
    prm_path_clear(&g);
    /* the roadmap both ways: the straight line is the optimum on a plane
     * (the time of a displacement d, max(|d| / top, (R + f W) |d| / P +
     * W grad . d / P) to first order, is convex); a goal link is travelled
     * backwards and must weigh its reverse time */
    prm_build_opts o;
    prm_build_opts_init(&o);
    o.nodes = 150;
    prm_roadmap *r = NULL;
    prm_build_stats bs;
    assert_int_equal(prm_roadmap_build(ctx, &t, &o, &r, &bs), TRV_OK);
    for (int e = 0; e < r->nedges; e++) { /* every edge both ways by hand */
        const prm_edge *ed = &r->edges[e];
        double dx = r->x[ed->b] - r->x[ed->a], dy = r->y[ed->b] - r->y[ed->a], d = hypot(dx, dy);
        double tb = (gE * dx + gN * dy) / d;
        assert_float_equal(ed->p.time_s, d / hand_speed(&pm, tb), 1e-6 * ed->p.time_s);
        assert_float_equal(ed->p.time_rev_s, d / hand_speed(&pm, -tb), 1e-6 * ed->p.time_rev_s);
    }
    /* both times through the GeoPackage and back */
    char gpkg[512];
    snprintf(gpkg, sizeof gpkg, "%s/plane.gpkg", tmpdir);
    prm_roadmap *back = NULL;
    assert_int_equal(prm_roadmap_write(ctx, r, gpkg, NULL), TRV_OK);
    assert_int_equal(prm_roadmap_read(ctx, gpkg, &back), TRV_OK);
    assert_int_equal(back->nedges, r->nedges);
    for (int e = 0; e < r->nedges; e++) {
        assert_float_equal(back->edges[e].p.time_s, r->edges[e].p.time_s, 0);
        assert_float_equal(back->edges[e].p.time_rev_s, r->edges[e].p.time_rev_s, 0);
    }
    prm_roadmap_free(back);
    prm_path q;
    assert_int_equal(prm_route(ctx, &t, r, x0, y, x1, y, PRM_TIME, NULL, 0, &q), TRV_OK);
    assert_float_equal(q.objective, 3000 / up, 1e-6 * q.objective);
    prm_path_clear(&q);
    assert_int_equal(prm_route(ctx, &t, r, x1, y, x0, y, PRM_TIME, NULL, 0, &q), TRV_OK);
    assert_float_equal(q.objective, 3000 / down, 1e-6 * q.objective);
    prm_path_clear(&q);
    prm_roadmap_free(r);
    /* an L-shaped corridor (row 10, then column 30 up to row 1), passable
     * both ways on this gentle plane, its roadmap built with k = the node
     * count (every pair that sees each other joined, the ends linked to
     * every node they see: the graph is closed under the shortcut pass, so
     * the route's objective is the graph's optimum): both ways, against a
     * Dijkstra written here over the edges' stored times in the direction
     * each is travelled (time_s a to b, time_rev_s b to a; checked by hand
     * above) and the end links measured in theirs */
    for (int i = 0; i < 40 * 12; i++) {
        int rr = i / 40, c = i % 40;
        t.gonogo->u8[i] = !((rr == 10 && c >= 1 && c <= 30) || (c == 30 && rr >= 1 && rr <= 10));
    }
    enum { LN = 250 };
    prm_build_opts lo;
    prm_build_opts_init(&lo);
    lo.nodes = LN;
    lo.k = LN;
    prm_build_stats lbs;
    assert_int_equal(prm_roadmap_build(ctx, &t, &lo, &r, &lbs), TRV_OK);
    const double lx[2] = {500150, 503050}, ly[2] = {4000000 - 1050, 4000000 - 150};
    for (int dir = 0; dir < 2; dir++) {
        int n = r->nnodes, N = n + 2, S = n, G = n + 1;
        double *W = malloc((size_t)N * N * sizeof *W);
        for (int i = 0; i < N * N; i++)
            W[i] = INFINITY;
        for (int e = 0; e < r->nedges; e++) {
            W[r->edges[e].a * N + r->edges[e].b] = r->edges[e].p.time_s;
            W[r->edges[e].b * N + r->edges[e].a] = r->edges[e].p.time_rev_s;
        }
        double sx = lx[dir], sy = ly[dir], gx = lx[!dir], gy = ly[!dir];
        for (int i = 0; i < n; i++) {
            prm_piece_measure(&t, sx, sy, r->x[i], r->y[i], &p);
            if (!p.blocked)
                W[S * N + i] = p.time_s;
            prm_piece_measure(&t, r->x[i], r->y[i], gx, gy, &p);
            if (!p.blocked)
                W[i * N + G] = p.time_s;
        }
        prm_piece_measure(&t, sx, sy, gx, gy, &p);
        if (!p.blocked)
            W[S * N + G] = p.time_s;
        double want = dijkstra(W, N, S, G);
        trv_status rst = prm_route(ctx, &t, r, sx, sy, gx, gy, PRM_TIME, NULL, 0, &q);
        if (rst)
            fail_msg("L corridor: %s (the graph's optimum %g)", trv_errmsg(ctx), want);
        printf("  L corridor, %s: %d nodes, objective %.6f s, the graph's optimum %.6f s\n", dir ? "down" : "up", n,
               q.objective, want);
        assert_float_equal(q.objective, want, 1e-9 * want);
        prm_path_clear(&q);
        free(W);
    }
    prm_roadmap_free(r);
    prm_terrain_clear(&t);
    plane_model_free(&pm);
    trv_ctx_free(ctx);
}

/* NOGO this way: on a plane steep enough that the brakes cannot hold the
 * vehicle downhill (-F > m a), a piece is passable uphill only. An L of GO
 * cells one cell wide (east along row 10 from column 1, then north up
 * column 15 to row 1; every other cell NOGO, though still in Horn's
 * window) leaves no way round and no straight line from end to end: the
 * searches must take every edge, move and end link in its own direction. */
static void test_time_nogo_one_way(void **state)
{
    (void)state;
    trv_ctx *ctx = trv_ctx_new();
    plane_model pm;
    plane_model_init(ctx, &pm, 6000);
    const double gE = 0.5, gN = 0.5;
    double up = hand_speed(&pm, 0.5);
    assert_true(hand_speed(&pm, -0.5) == 0 && up > 0);
    prm_terrain t;
    make_plane(ctx, &t, 20, 12, gE, gN, &pm);
    for (int i = 0; i < 20 * 12; i++) {
        int r = i / 20, c = i % 20;
        t.gonogo->u8[i] = !((r == 10 && c >= 1 && c <= 15) || (c == 15 && r >= 1 && r <= 10));
    }
    double sx = 500150, sy = 4000000 - 1050, gx = 501550, gy = 4000000 - 150;
    prm_piece p;
    prm_piece_measure(&t, sx, sy, gx - 100, sy, &p);
    assert_float_equal(p.time_s, 1300 / up, 1e-6 * p.time_s);
    assert_true(isinf(p.time_rev_s));
    prm_path g;
    assert_int_equal(prm_route_grid(ctx, &t, sx, sy, gx, gy, PRM_TIME, NULL, &g), TRV_OK);
    assert_float_equal(g.objective, 2300 / up, 1e-6 * g.objective);
    prm_path_clear(&g);
    assert_int_equal(prm_route_grid(ctx, &t, gx, gy, sx, sy, PRM_TIME, NULL, &g), TRV_ERR_DATA);
    /* the other objectives do not care */
    assert_int_equal(prm_route_grid(ctx, &t, gx, gy, sx, sy, PRM_MDR, NULL, &g), TRV_OK);
    prm_path_clear(&g);
    prm_build_opts o;
    prm_build_opts_init(&o);
    o.nodes = 40;
    o.k = 6;
    prm_roadmap *r = NULL;
    prm_build_stats bs;
    assert_int_equal(prm_roadmap_build(ctx, &t, &o, &r, &bs), TRV_OK);
    prm_path q;
    assert_int_equal(prm_route(ctx, &t, r, sx, sy, gx, gy, PRM_TIME, NULL, 0, &q), TRV_OK);
    assert_true(isfinite(q.objective) && q.objective > 1000 / up);
    prm_path_clear(&q);
    assert_int_equal(prm_route(ctx, &t, r, gx, gy, sx, sy, PRM_TIME, NULL, 0, &q), TRV_ERR_DATA);
    assert_int_equal(prm_route(ctx, &t, r, gx, gy, sx, sy, PRM_MDR, NULL, 0, &q), TRV_OK);
    prm_path_clear(&q);
    prm_roadmap_free(r);
    prm_terrain_clear(&t);
    plane_model_free(&pm);
    trv_ctx_free(ctx);
}

/* A roadmap edge travelled from its second end to its first weighs its
 * reverse time. Two corridors (3 and 10, one cell wide) run west from the
 * start's column 35 to the goal's column 5 on a plane that rises east, so
 * going west is downhill at the top speed; a NOGO block between them
 * leaves no straight line across (the shortcut pass cannot move the route
 * from one to the other). The northern corridor's edge is stored west to
 * east, so the route travels it backwards; the southern one is longer
 * (10 cells of flat connectors against 4) and stored east to west. Priced
 * right, the northern corridor wins by (1000 - 400) / v0; priced by its
 * uphill time it would lose by 3000 / up - 3000 / top - 600 / v0. The
 * expected times are written out from hand_speed. */
static void test_time_reverse_edge(void **state)
{
    (void)state;
    trv_ctx *ctx = trv_ctx_new();
    plane_model pm;
    plane_model_init(ctx, &pm, 6000);
    const double gE = 0.0625;
    prm_terrain t;
    make_plane(ctx, &t, 40, 12, gE, 0, &pm);
    for (int i = 0; i < 40 * 12; i++) {
        int r = i / 40, c = i % 40;
        int corridor = (r == 3 || r == 10) && c >= 5 && c <= 35, link = (c == 5 || c == 35) && r >= 3 && r <= 10;
        t.gonogo->u8[i] = !(corridor || link);
    }
    double up = hand_speed(&pm, gE), top = hand_speed(&pm, -gE), v0 = hand_speed(&pm, 0);
    /* the premise: the mispriced northern corridor would lose */
    assert_true(3000 / up + 400 / v0 > 3000 / top + 1000 / v0);
    double X[2] = {500550, 503550}, Y[2] = {4000000 - 350, 4000000 - 1050}; /* columns 5, 35; rows 3, 10 */
    double x[4] = {X[0], X[1], X[1], X[0]}, y[4] = {Y[0], Y[0], Y[1], Y[1]};
    prm_roadmap rm = {0};
    rm.nnodes = 4;
    rm.x = x;
    rm.y = y;
    rm.k = 10;
    prm_edge e[2] = {{0, 1, {0}}, {2, 3, {0}}}; /* north: west to east; south: east to west */
    for (int k = 0; k < 2; k++) {
        prm_piece_measure(&t, x[e[k].a], y[e[k].a], x[e[k].b], y[e[k].b], &e[k].p);
        assert_false(e[k].p.blocked);
    }
    assert_float_equal(e[0].p.time_s, 3000 / up, 1e-6 * e[0].p.time_s);
    assert_float_equal(e[0].p.time_rev_s, 3000 / top, 1e-6 * e[0].p.time_rev_s);
    int start[5] = {0, 1, 2, 3, 4}, adj[4] = {0, 0, 1, 1};
    rm.edges = e;
    rm.nedges = 2;
    rm.adj_start = start;
    rm.adj = adj;
    double sx = X[1], sy = 4000000 - 550, gx = X[0], gy = sy; /* row 5 of the connectors */
    prm_path q;
    trv_status rs = prm_route(ctx, &t, &rm, sx, sy, gx, gy, PRM_TIME, NULL, 0, &q);
    if (rs)
        fail_msg("%s", trv_errmsg(ctx));
    double want = 400 / v0 + 3000 / top;
    assert_float_equal(q.objective, want, 1e-6 * want);
    for (int i = 0; i < q.n; i++) /* never in the southern corridor */
        assert_true(q.y[i] > Y[1] + 50);
    prm_path_clear(&q);
    prm_terrain_clear(&t);
    plane_model_free(&pm);
    trv_ctx_free(ctx);
}

/* The pace table against tm_speed_at itself with the bundled UGV and
 * tables (traction with slip, ride, vegetation, braking): a rough DEM,
 * every GO soil and land-use pair, 16 headings per cell, the grade from
 * Horn's window recomputed here. */
static void test_pace_table(void **state)
{
    (void)state;
    trv_ctx *ctx = trv_ctx_new();
    char *vp = data_path("vehicles/ugv_hua2022.ini"), *sp = data_path("classes/soils.csv");
    char *lp = data_path("classes/landuse.csv");
    tm_vehicle *v;
    tm_soils *soils;
    tm_model m;
    assert_int_equal(tm_vehicle_read(ctx, vp, &v), TRV_OK);
    assert_int_equal(tm_soils_read(ctx, sp, &soils), TRV_OK);
    assert_int_equal(tm_model_init(ctx, &m, v, soils, lp), TRV_OK);
    enum { NX = 30, NY = 30 };
    prm_terrain t;
    make_terrain_n(&t, NX, NY);
    geo_raster *soil, *lu;
    assert_int_equal(geo_raster_new(ctx, t.grid, GEO_U8, &soil), TRV_OK);
    assert_int_equal(geo_raster_new(ctx, t.grid, GEO_U8, &lu), TRV_OK);
    trv_rng rng;
    trv_rng_seed(&rng, 11);
    static const int lus[3] = {3, 4, 2};
    for (int i = 0; i < NX * NY; i++) {
        t.dem->f32[i] = (float)(500 + 40 * trv_rng_uniform(&rng)); /* grades up to ~0.4 */
        soil->u8[i] = (unsigned char)(1 + i % 4);
        lu->u8[i] = (unsigned char)lus[(i / 4) % 3];
    }
    const long nogo = 7L * NX + 9; /* one NOGO cell: no pair, no pace */
    t.gonogo->u8[nogo] = 1;
    assert_int_equal(prm_terrain_set_model(ctx, &t, &m, soil, lu), TRV_OK);
    double worst = 0, vseen = 0;
    long n = 0;
    for (int r = 1; r + 1 < NY; r++)
        for (int c = 1; c + 1 < NX; c++) {
            long i = (long)r * NX + c;
            const float *z = t.dem->f32;
#define Z(dr, dc) ((double)z[(r + (dr)) * NX + c + (dc)])
            double dzdE = ((Z(-1, 1) + 2 * Z(0, 1) + Z(1, 1)) - (Z(-1, -1) + 2 * Z(0, -1) + Z(1, -1))) / 800;
            double dzdN = ((Z(-1, -1) + 2 * Z(-1, 0) + Z(-1, 1)) - (Z(1, -1) + 2 * Z(1, 0) + Z(1, 1))) / 800;
#undef Z
            for (int k = 0; k < 16; k++) {
                double a = k * M_PI / 8 + 0.1, ux = cos(a), uy = sin(a);
                if (i == nogo) {
                    assert_true(isinf(prm_pace(&t, i, ux, uy)));
                    continue;
                }
                double want = tm_speed_at(&m, soil->u8[i], lu->u8[i], atan(dzdE * ux + dzdN * uy), NULL);
                double got = prm_pace(&t, i, ux, uy);
                if (want == 0) {
                    assert_true(isinf(got));
                    continue;
                }
                double rel = fabs(got * want - 1);
                worst = fmax(worst, rel);
                vseen = fmax(vseen, want);
                n++;
            }
        }
    printf("pace table: %ld headings, worst relative error %.2g; fastest %.3f km/h, the bound %.3f km/h\n", n, worst,
           vseen * 3.6, t.top_speed_kmh);
    assert_true(n > 10000 && worst < 1e-4);
    /* the heuristics' bound: above every speed met, at most the top speed */
    assert_true(vseen * 3.6 <= t.top_speed_kmh * (1 + 1e-12) && t.top_speed_kmh <= v->top_speed_kmh * (1 + 1e-12));
    /* a route through the NOGO cell (another vehicle's route): the NOGO
     * samples counted, an infinite time, no reading past the table */
    const geo_grid *g = t.grid;
    double px[2] = {g->gt[0] + 3.5 * g->gt[1], g->gt[0] + 15.5 * g->gt[1]};
    double py[2] = {g->gt[3] + 7.5 * g->gt[5], g->gt[3] + 7.5 * g->gt[5]};
    prm_path pp = {.n = 2, .x = px, .y = py};
    prm_stats ps;
    prm_path_stats(&t, &pp, t.cell_m, &ps);
    assert_true(ps.nogo_samples >= 1 && isinf(ps.time_h));
    assert_float_equal(ps.distance_m, 1200, 1e-6);
    pp.y = (double[2]){py[0] + 2 * g->gt[5], py[1] + 2 * g->gt[5]}; /* two rows south: all GO */
    prm_path_stats(&t, &pp, t.cell_m, &ps);
    assert_true(ps.nogo_samples == 0 && isfinite(ps.time_h) && ps.time_h > 0);
    prm_terrain_clear(&t);
    geo_raster_free(soil);
    geo_raster_free(lu);
    tm_soils_free(soils);
    tm_vehicle_free(v);
    free(vp);
    free(sp);
    free(lp);
    trv_ctx_free(ctx);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_lhs),           cmocka_unit_test(test_segment_walk),
        cmocka_unit_test(test_astar_hand),    cmocka_unit_test(test_astar_paper_heuristic),
        cmocka_unit_test(test_route_cost_hand),
        cmocka_unit_test(test_astar_brute_force),
        cmocka_unit_test(test_bridging), cmocka_unit_test(test_raster_bridge_corridor),
        cmocka_unit_test(test_raster_bridge_speckle), cmocka_unit_test(test_detour_passage),
        cmocka_unit_test(test_detour_spanner), cmocka_unit_test(test_coverage), cmocka_unit_test(test_end_leg), cmocka_unit_test(test_stats_brute_force),
        cmocka_unit_test(test_stats_graze),
        cmocka_unit_test(test_unreachable),   cmocka_unit_test(test_refine),
        cmocka_unit_test(test_outputs),       cmocka_unit_test(test_build_opts_check),
        cmocka_unit_test(test_mission),       cmocka_unit_test(test_mission_opts_check),
        cmocka_unit_test(test_time_tilted_plane), cmocka_unit_test(test_time_nogo_one_way), cmocka_unit_test(test_time_reverse_edge),
        cmocka_unit_test(test_pace_table),
    };
    return cmocka_run_group_tests(tests, tmpdir_setup, tmpdir_teardown);
}
