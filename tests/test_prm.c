/* Roadmap and routes: the Latin-hypercube property, the exact segment walk
 * against brute-force clipping, A* on a hand-built roadmap with a known
 * optimum, endpoint errors, and the route outputs read back through OGR. */
#include "test_common.h"

#include <math.h>

#include <gdal.h>
#include <ogr_api.h>

#include "prm/prm.h"


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

/* brute force: the length of the segment inside each cell by clipping */
static double clip_len(double x0, double y0, double x1, double y1, double cx0, double cy0, double cx1, double cy1)
{
    double t0 = 0, t1 = 1, dx = x1 - x0, dy = y1 - y0;
    double p[4] = {-dx, dx, -dy, dy}, q[4] = {x0 - cx0, cx1 - x0, y0 - cy0, cy1 - y0};
    for (int k = 0; k < 4; k++) {
        if (p[k] == 0) {
            if (q[k] < 0)
                return 0;
            continue;
        }
        double r = q[k] / p[k];
        if (p[k] < 0)
            t0 = fmax(t0, r);
        else
            t1 = fmin(t1, r);
    }
    return t1 > t0 ? (t1 - t0) * hypot(dx, dy) : 0;
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

/* A terrain of 10 x 10 cells of 100 m in EPSG:32616, all GO and safe at
 * 36 km/h unless painted otherwise. */
static void make_terrain(prm_terrain *t)
{
    trv_ctx *ctx = trv_ctx_new();
    char *wkt = NULL;
    assert_int_equal(geo_crs_wkt(ctx, "EPSG:32616", &wkt), TRV_OK);
    geo_grid g = {10, 10, {500000, 100, 0, 4000000, 0, -100}, wkt};
    memset(t, 0, sizeof *t);
    assert_int_equal(geo_raster_new(ctx, &g, GEO_U8, &t->cls), TRV_OK);
    assert_int_equal(geo_raster_new(ctx, &g, GEO_U8, &t->gonogo), TRV_OK);
    assert_int_equal(geo_raster_new(ctx, &g, GEO_F32, &t->cost), TRV_OK);
    assert_int_equal(geo_raster_new(ctx, &g, GEO_F32, &t->dem), TRV_OK);
    assert_int_equal(geo_raster_new(ctx, &g, GEO_F32, &t->slope), TRV_OK);
    assert_int_equal(geo_raster_new(ctx, &g, GEO_F32, &t->speed), TRV_OK);
    for (int i = 0; i < 100; i++) {
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

/* Corridor refinement never raises the objective and never enters NOGO. */
static void test_refine(void **state)
{
    (void)state;
    prm_terrain t;
    make_terrain(&t);
    for (int r = 0; r < 8; r++) /* a wall with a gap at the bottom */
        t.gonogo->u8[r * 10 + 5] = 1;
    for (int i = 0; i < 100; i++) /* slow cells on the left half: a faster way exists */
        if (i % 10 < 5)
            t.speed->f32[i] = 12 + (i % 7);
    prm_build_opts o;
    prm_build_opts_init(&o);
    o.nodes = 30;
    prm_roadmap *rm = NULL;
    prm_build_stats bs;
    trv_ctx *ctx = trv_ctx_new();
    assert_int_equal(prm_roadmap_build(ctx, &t, &o, &rm, &bs), TRV_OK);
    prm_path p;
    trv_status st = prm_route(ctx, &t, rm, 500150, 3999950, 500850, 3999950, PRM_TIME, NULL, 0, &p);
    if (st)
        fail_msg("%s", trv_errmsg(ctx));
    double before = p.objective;
    assert_int_equal(prm_refine(ctx, &t, &p, PRM_TIME, NULL, 200), TRV_OK);
    double sum = 0;
    for (int i = 0; i + 1 < p.n; i++) {
        prm_piece pc;
        prm_piece_measure(&t, p.x[i], p.y[i], p.x[i + 1], p.y[i + 1], &pc);
        assert_false(pc.blocked);
        sum += pc.time_s;
    }
    printf("  refine: %.1f s -> %.1f s\n", before, p.objective);
    assert_true(p.objective <= before + 1e-9);
    assert_float_equal(sum, p.objective, 1e-6 * sum); /* the objective is the path's own time */
    prm_path_clear(&p);
    prm_roadmap_free(rm);
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
    assert_int_equal(prm_outputs_write(ctx, &t, &r, 1, &o), TRV_OK);
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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_lhs), cmocka_unit_test(test_segment_walk), cmocka_unit_test(test_astar_hand),
        cmocka_unit_test(test_unreachable), cmocka_unit_test(test_refine), cmocka_unit_test(test_outputs),
    };
    return cmocka_run_group_tests(tests, tmpdir_setup, tmpdir_teardown);
}
