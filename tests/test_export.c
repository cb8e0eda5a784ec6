/* The nav2 export (src/export/export.h): the pixel rule against its table,
 * a 3 x 3 map computed by hand (pixels, counts, the PGM and YAML bytes, the
 * frame), the same map by strips of 1, 2, 3 rows (a bad cell in a later
 * strip named by the grid's row), the frame's refusals (geographic, feet,
 * non-square cells, no CRS), the waypoints' yaws on a hand-made track, and the route's choice and
 * errors from a GeoPackage written here. */
#include "test_common.h"

#include <math.h>

#include "export/export.h"

static void test_pixel(void **state)
{
    (void)state;
    /* cost, cost is nodata, gonogo -> pixel */
    static const struct {
        double c;
        int nd, g, want;
    } T[] = {
        {0, 0, 0, 0},       {1, 0, 0, 98},       {0.5, 0, 0, 49},   {0.25, 0, 0, 25}, {0.004, 0, 0, 0},
        {0.006, 0, 0, 1},   {0.995, 0, 0, 98},   {-9999, 1, 0, 255}, {NAN, 0, 0, 255}, {0.2, 0, 1, 100},
        {1, 0, 4, 100},     {-9999, 1, 3, 100},  {1, 0, 5, 255},    {0.1, 0, 6, -1},  {1.01, 0, 0, -1},
        {-0.01, 0, 0, -1},  {0.3, 0, -1, -1},
    };
    for (size_t k = 0; k < sizeof T / sizeof T[0]; k++)
        if (exp_nav2_pixel(T[k].c, T[k].nd, T[k].g) != T[k].want)
            fail_msg("pixel(%g, %d, %d) = %d, want %d", T[k].c, T[k].nd, T[k].g,
                     exp_nav2_pixel(T[k].c, T[k].nd, T[k].g), T[k].want);
}

/* A 3 x 3 grid of 10 m cells, north-west corner (1000, 2000), in UTM 16N. */
static void grid3(geo_grid *g, double dy)
{
    trv_ctx *ctx = trv_ctx_new();
    *g = (geo_grid){.nx = 3, .ny = 3, .gt = {1000, 10, 0, 2000, 0, -dy}};
    assert_int_equal(geo_crs_wkt(ctx, "EPSG:32616", &g->wkt), TRV_OK);
    trv_ctx_free(ctx);
}

/* cost and gonogo: north row first; the pixels by hand from export.h's
 * table: round(98 c) = 0, 24.5 -> 25, 49 / 73.5 -> 74, 98, nodata -> 255 /
 * NOGO -> 100, no data -> 255, 88.2 -> 88 */
static const float COST[9] = {0, 0.25f, 0.5f, 0.75f, 1, -9999, 0.1f, 0.3f, 0.9f};
static const unsigned char GONOGO[9] = {0, 0, 0, 0, 0, 0, 1, 5, 0};
static const unsigned char WANT[9] = {0, 25, 49, 74, 98, 255, 100, 255, 88};

static void make3(trv_ctx *ctx, geo_raster **cost, geo_raster **gonogo)
{
    geo_grid g;
    grid3(&g, 10);
    assert_int_equal(geo_raster_new(ctx, &g, GEO_F32, cost), TRV_OK);
    assert_int_equal(geo_raster_new(ctx, &g, GEO_U8, gonogo), TRV_OK);
    geo_grid_clear(&g);
    (*cost)->has_nodata = 1;
    (*cost)->nodata = -9999;
    memcpy((*cost)->f32, COST, sizeof COST);
    memcpy((*gonogo)->u8, GONOGO, sizeof GONOGO);
}

/* The map's pixels from pieces, as the tests want them (trv-export goes
 * by tiles, nav2.c): a piece's pixels at its own width, its first bad cell
 * TRV_ERR_DATA; and the whole map of two rasters on one grid as one piece
 * (the pixels malloc'ed into *pix, the counts from zero). */
static trv_status strip_pixels(trv_ctx *ctx, const exp_nav2_strip *s, const char *cost_name, const char *gonogo_name,
                               unsigned char *pix, exp_nav2_counts *n)
{
    exp_nav2_bad b = exp_nav2_piece(s, pix, (size_t)s->nx, n);
    return b.row >= 0 ? exp_nav2_bad_error(ctx, &b, cost_name, gonogo_name) : TRV_OK;
}

static trv_status map_pixels(trv_ctx *ctx, const geo_raster *cost, const char *cost_name, const geo_raster *gonogo,
                             const char *gonogo_name, unsigned char **pix, exp_nav2_counts *n)
{
    assert_true(cost->type == GEO_F32 && gonogo->type == GEO_U8 && gonogo->grid.nx == cost->grid.nx &&
                gonogo->grid.ny == cost->grid.ny);
    const exp_nav2_strip s = {.nx = cost->grid.nx, .y0 = 0, .rows = cost->grid.ny, .cost = cost->f32,
                              .gonogo = gonogo->u8, .has_nodata = cost->has_nodata, .nodata = cost->nodata};
    unsigned char *p = malloc((size_t)s.nx * (size_t)s.rows);
    assert_non_null(p);
    *n = (exp_nav2_counts){0};
    trv_status st = strip_pixels(ctx, &s, cost_name, gonogo_name, p, n);
    if (st)
        free(p);
    else
        *pix = p;
    return st;
}

static void test_pixels_3x3(void **state)
{
    (void)state;
    trv_ctx *ctx = trv_ctx_new();
    geo_raster *cost, *gonogo;
    make3(ctx, &cost, &gonogo);
    unsigned char *pix = NULL;
    exp_nav2_counts n;
    assert_int_equal(map_pixels(ctx, cost, "c.tif", gonogo, "g.tif", &pix, &n), TRV_OK);
    assert_memory_equal(pix, WANT, 9);
    assert_int_equal(n.graded, 6);
    assert_int_equal(n.occupied, 1);
    assert_int_equal(n.unknown, 2);
    free(pix);
    /* a cost out of range, then a gonogo code out of range, named */
    cost->f32[7] = 1.5f;
    gonogo->u8[7] = 0;
    assert_int_equal(map_pixels(ctx, cost, "c.tif", gonogo, "g.tif", &pix, &n), TRV_ERR_DATA);
    assert_contains(trv_errmsg(ctx), "'c.tif': cell (column 1, row 2) holds 1.5, outside the cost's range 0..1");
    cost->f32[7] = 0.5f;
    gonogo->u8[2] = 7;
    assert_int_equal(map_pixels(ctx, cost, "c.tif", gonogo, "g.tif", &pix, &n), TRV_ERR_DATA);
    assert_contains(trv_errmsg(ctx), "'g.tif': cell (column 2, row 0) holds 7, not a GO/NOGO code");
    geo_raster_free(cost);
    geo_raster_free(gonogo);
    trv_ctx_free(ctx);
}

/* The 3 x 3 map by strips of 1, 2 and 3 rows (the last one short): the
 * same pixels and counts as in one; a bad cell in the last strip named by
 * the grid's row, the counts of that strip not added. */
static void test_strips(void **state)
{
    (void)state;
    trv_ctx *ctx = trv_ctx_new();
    float cost[9];
    unsigned char gonogo[9], pix[9];
    memcpy(cost, COST, sizeof cost);
    memcpy(gonogo, GONOGO, sizeof gonogo);
    cost[8] = NAN; /* not finite: unknown like nodata (88 -> 255) */
    static const unsigned char want[9] = {0, 25, 49, 74, 98, 255, 100, 255, 255};
    for (int h = 1; h <= 3; h++) {
        exp_nav2_counts n = {0};
        memset(pix, 0xaa, sizeof pix);
        for (int y0 = 0; y0 < 3; y0 += h) {
            int rows = y0 + h < 3 ? h : 3 - y0;
            exp_nav2_strip s = {.nx = 3, .y0 = y0, .rows = rows, .cost = cost + 3 * y0, .gonogo = gonogo + 3 * y0,
                                .has_nodata = 1, .nodata = -9999};
            assert_int_equal(strip_pixels(ctx, &s, "c.tif", "g.tif", pix + 3 * y0, &n), TRV_OK);
        }
        assert_memory_equal(pix, want, 9);
        assert_true(n.graded == 5 && n.occupied == 1 && n.unknown == 3);
    }
    /* rows 1 and 2 as one strip after row 0: a cost of 1.5 at (0, 2) and a
     * code 6 at (2, 2): the first in row-major order named, row 2 */
    exp_nav2_counts n = {0};
    exp_nav2_strip s0 = {.nx = 3, .y0 = 0, .rows = 1, .cost = cost, .gonogo = gonogo, .has_nodata = 1,
                         .nodata = -9999};
    assert_int_equal(strip_pixels(ctx, &s0, "c.tif", "g.tif", pix, &n), TRV_OK);
    cost[6] = 1.5f;
    gonogo[6] = 0;
    gonogo[8] = 6;
    exp_nav2_strip s1 = {.nx = 3, .y0 = 1, .rows = 2, .cost = cost + 3, .gonogo = gonogo + 3, .has_nodata = 1,
                         .nodata = -9999};
    assert_int_equal(strip_pixels(ctx, &s1, "c.tif", "g.tif", pix + 3, &n), TRV_ERR_DATA);
    assert_contains(trv_errmsg(ctx), "'c.tif': cell (column 0, row 2) holds 1.5, outside the cost's range 0..1");
    assert_true(n.graded == 3 && n.occupied == 0 && n.unknown == 0);
    cost[6] = 0.5f;
    assert_int_equal(strip_pixels(ctx, &s1, "c.tif", "g.tif", pix + 3, &n), TRV_ERR_DATA);
    assert_contains(trv_errmsg(ctx), "'g.tif': cell (column 2, row 2) holds 6, not a GO/NOGO code (0..5)");
    /* without has_nodata, -9999 is a cost out of range */
    s1.cost = COST + 3;
    s1.gonogo = GONOGO + 3;
    s1.has_nodata = 0;
    assert_int_equal(strip_pixels(ctx, &s1, "c.tif", "g.tif", pix + 3, &n), TRV_ERR_DATA);
    assert_contains(trv_errmsg(ctx), "'c.tif': cell (column 2, row 1) holds -9999, outside");
    assert_true(n.graded == 3 && n.occupied == 0 && n.unknown == 0);
    trv_ctx_free(ctx);
}

static void test_frame(void **state)
{
    (void)state;
    trv_ctx *ctx = trv_ctx_new();
    geo_grid g;
    exp_nav2_frame f;
    grid3(&g, 10);
    assert_int_equal(exp_nav2_frame_of(ctx, &g, "c.tif", &f), TRV_OK);
    assert_int_equal(f.nx, 3);
    assert_int_equal(f.ny, 3);
    assert_true(f.resolution == 10 && f.origin[0] == 1000 && f.origin[1] == 1970);
    assert_true(f.extent[0] == 1000 && f.extent[1] == 1970 && f.extent[2] == 1030 && f.extent[3] == 2000);
    assert_string_equal(f.crs, "EPSG:32616");
    geo_grid_clear(&g);
    grid3(&g, 20);
    assert_int_equal(exp_nav2_frame_of(ctx, &g, "c.tif", &f), TRV_ERR_GRID);
    assert_contains(trv_errmsg(ctx), "'c.tif' has cells of 10 x 20 m: a nav2 map needs square cells");
    static const char *const bad[] = {"EPSG:4326", "EPSG:2264", NULL};
    for (int k = 0; k < 3; k++) {
        free(g.wkt);
        g.wkt = NULL;
        g.gt[5] = -10;
        if (bad[k])
            assert_int_equal(geo_crs_wkt(ctx, bad[k], &g.wkt), TRV_OK);
        assert_int_equal(exp_nav2_frame_of(ctx, &g, "c.tif", &f), TRV_ERR_CRS);
        assert_contains(trv_errmsg(ctx), bad[k] ? "not a projected CRS in metres" : "'c.tif' has no CRS");
    }
    geo_grid_clear(&g);
    trv_ctx_free(ctx);
}

static void test_yaw(void **state)
{
    (void)state;
    /* a track with a repeated vertex inside and at the end */
    exp_pose p[6] = {{0, 0, 9}, {1, 1, 9}, {1, 1, 9}, {1, 2, 9}, {0, 2, 9}, {0, 2, 9}};
    const double pi = 3.14159265358979323846, want[6] = {pi / 4, pi / 2, pi / 2, pi, pi, pi};
    exp_poses_yaw(p, 6);
    for (int k = 0; k < 6; k++)
        assert_true(fabs(p[k].yaw - want[k]) < 1e-15);
    exp_pose q[2] = {{5, 5, 9}, {5, 5, 9}};
    exp_poses_yaw(q, 2);
    assert_true(q[0].yaw == 0 && q[1].yaw == 0);
    exp_pose r[2] = {{5, 5, 9}, {5, 4, 9}};
    exp_poses_yaw(r, 2);
    assert_true(fabs(r[0].yaw + pi / 2) < 1e-15 && fabs(r[1].yaw + pi / 2) < 1e-15);
}

/* A GeoPackage in UTM 16N with the lines named names[k] (x, y per line). */
static char *routes_gpkg(const char *name, const char *const *names, int n, const double (*xy)[6])
{
    trv_ctx *ctx = trv_ctx_new();
    char *path = NULL, *wkt = NULL;
    assert_true(asprintf(&path, "%s/%s", tmpdir, name) > 0);
    geo_vec *v;
    int layer;
    const geo_field f[] = {{"route", GEO_FIELD_STRING}};
    assert_int_equal(geo_crs_wkt(ctx, "EPSG:32616", &wkt), TRV_OK);
    assert_int_equal(geo_vec_create(ctx, path, wkt, &v), TRV_OK);
    assert_int_equal(geo_vec_add_layer(ctx, v, "routes", GEO_LINE, f, 1, &layer), TRV_OK);
    for (int k = 0; k < n; k++) {
        double x[3] = {xy[k][0], xy[k][2], xy[k][4]}, y[3] = {xy[k][1], xy[k][3], xy[k][5]};
        geo_value val = {.s = names[k]};
        assert_int_equal(geo_vec_add(ctx, v, layer, x, y, NULL, 3, &val), TRV_OK);
    }
    assert_int_equal(geo_vec_close(ctx, v), TRV_OK);
    free(wkt);
    trv_ctx_free(ctx);
    return path;
}

static void test_route(void **state)
{
    (void)state;
    trv_ctx *ctx = trv_ctx_new();
    geo_grid g;
    exp_nav2_frame f;
    grid3(&g, 10);
    assert_int_equal(exp_nav2_frame_of(ctx, &g, "c.tif", &f), TRV_OK);
    static const char *const names[] = {"mdr", "mmcr", "far"};
    static const double xy[3][6] = {
        {1000, 1970, 1015, 1985, 1030, 2000}, {1005, 1975, 1005, 1995, 1025, 1995}, {1005, 1975, 1031, 1990, 1010, 1990}};
    char *path = routes_gpkg("r.gpkg", names, 3, xy);
    exp_route r;
    /* the default: mmcr, not the first */
    assert_int_equal(exp_route_read(ctx, path, NULL, g.wkt, &f, &r), TRV_OK);
    assert_string_equal(r.name, "mmcr");
    assert_int_equal(r.n, 3);
    assert_true(r.p[0].x == 1005 && r.p[0].y == 1975 && r.p[2].x == 1025 && r.p[2].y == 1995);
    assert_true(fabs(r.p[0].yaw - M_PI / 2) < 1e-15 && r.p[1].yaw == 0 && r.p[2].yaw == 0);
    exp_route_clear(&r);
    /* by name; on the map's edge is in */
    assert_int_equal(exp_route_read(ctx, path, "mdr", g.wkt, &f, &r), TRV_OK);
    assert_true(r.n == 3 && r.p[2].x == 1030 && fabs(r.p[0].yaw - M_PI / 4) < 1e-15);
    exp_route_clear(&r);
    assert_int_equal(exp_route_read(ctx, path, "far", g.wkt, &f, &r), TRV_ERR_DATA);
    assert_contains(trv_errmsg(ctx), "route 'far' of '");
    assert_contains(trv_errmsg(ctx), "vertex 2 (1031.000, 1990.000 in EPSG:32616) is outside the map "
                                     "(x 1000.000..1030.000, y 1970.000..2000.000)");
    assert_int_equal(exp_route_read(ctx, path, "msr", g.wkt, &f, &r), TRV_ERR_DATA);
    assert_contains(trv_errmsg(ctx), "has no route 'msr' (its routes: mdr, mmcr, far)");
    assert_null(r.p);
    /* without mmcr: the first */
    char *path2 = routes_gpkg("r2.gpkg", names, 1, xy);
    assert_int_equal(exp_route_read(ctx, path2, NULL, g.wkt, &f, &r), TRV_OK);
    assert_string_equal(r.name, "mdr");
    exp_route_clear(&r);
    free(path);
    free(path2);
    geo_grid_clear(&g);
    trv_ctx_free(ctx);
}

/* The earlier of two bad cells in row-major order (the row first, then
 * the column; none never earlier, always later), and a piece's cell named
 * by the grid's column and row (x0, y0 added). */
static void test_bad_first(void **state)
{
    (void)state;
    const exp_nav2_bad none = {.row = -1}, r1c5 = {5, 1, 0, 2}, r1c3 = {3, 1, 1, 7}, r0c9 = {9, 0, 0, 3};
    assert_true(exp_nav2_bad_first(&r1c3, &r1c5) && !exp_nav2_bad_first(&r1c5, &r1c3));
    assert_true(exp_nav2_bad_first(&r0c9, &r1c3) && !exp_nav2_bad_first(&r1c3, &r0c9));
    assert_true(exp_nav2_bad_first(&r1c5, &none) && !exp_nav2_bad_first(&none, &r1c5));
    assert_false(exp_nav2_bad_first(&none, &none) || exp_nav2_bad_first(&r1c5, &r1c5));
    const float cost[4] = {0.5f, 0.25f, 1.5f, 0};
    const unsigned char gonogo[4] = {0, 0, 0, 0};
    unsigned char pix[8];
    exp_nav2_counts n = {0};
    const exp_nav2_strip s = {.nx = 2, .y0 = 40, .rows = 2, .cost = cost, .gonogo = gonogo, .x0 = 300};
    exp_nav2_bad b = exp_nav2_piece(&s, pix, 4, &n);
    assert_true(b.col == 300 && b.row == 41 && b.in_gonogo == 0 && b.v == 1.5);
    assert_true(n.graded == 0 && n.occupied == 0 && n.unknown == 0);
    trv_ctx *ctx = trv_ctx_new();
    assert_int_equal(exp_nav2_bad_error(ctx, &r1c3, "c.tif", "g.tif"), TRV_ERR_DATA);
    assert_contains(trv_errmsg(ctx), "'g.tif': cell (column 3, row 1) holds 7, not a GO/NOGO code (0..5)");
    trv_ctx_free(ctx);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pixel),  cmocka_unit_test(test_pixels_3x3), cmocka_unit_test(test_strips), cmocka_unit_test(test_bad_first),
        cmocka_unit_test(test_frame),
        cmocka_unit_test(test_yaw),    cmocka_unit_test(test_route),
    };
    return cmocka_run_group_tests(tests, tmpdir_setup, tmpdir_teardown);
}
