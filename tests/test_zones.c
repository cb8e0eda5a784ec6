/* Zones (prm/zones.h): the reader's errors naming the feature, the exact
 * segment meeting, a piece's time in factor and max_speed zones by hand,
 * a diagonal zero-width barrier that the 16-connected grid search cannot
 * slip through (and crosses only at a crossing, checked by this file's own
 * segment intersection), and a factor polygon that moves the least-time
 * route only when the detour pays (hand-computed times), a bridge whose
 * near bank is a pocket of the masked roadmap joined by its second raster
 * leg, start and goal joined under the zones by the flood as by the grid
 * search, and the zones that cut them apart. Terrains in
 * memory on a UTM 16N grid (test_terrain_mem.h), zones written as GeoJSON. */
#include "test_common.h"
#include "test_terrain_mem.h"

#include <math.h>

#include "prm/prm.h"
#include "prm/prm_priv.h"
#include "prm/zones.h"

#define X0 600000.0
#define Y0 3680000.0
#define CELL 8.0

static char *dir;

static void terrain_make(prm_terrain *t, int nx, int ny)
{
    assert_int_equal(test_terrain_plane(t, nx, ny, X0, Y0, CELL, 5, 36), 0); /* 36 km/h: 10 m/s */
}

static const char *HEAD = "{\"type\":\"FeatureCollection\",\"crs\":{\"type\":\"name\",\"properties\":{\"name\":"
                          "\"urn:ogc:def:crs:EPSG::32616\"}},\"features\":[";

/* A GeoJSON file of the features given (text after HEAD, without the closing). */
static char *gj(const char *name, const char *features)
{
    char *text = NULL;
    assert_true(asprintf(&text, "%s%s]}", HEAD, features) > 0);
    char *p = write_file(dir, name, text);
    free(text);
    return p;
}

static char *feat(long id, const char *props, const char *geom)
{
    char *s = NULL;
    assert_true(asprintf(&s, "{\"type\":\"Feature\",\"id\":%ld,\"properties\":{%s},\"geometry\":%s}", id, props,
                         geom) > 0);
    return s;
}

/* An axis-aligned rectangle polygon in map coordinates. */
static char *rect(double x0, double y0, double x1, double y1)
{
    char *s = NULL;
    assert_true(asprintf(&s, "{\"type\":\"Polygon\",\"coordinates\":[[[%.17g,%.17g],[%.17g,%.17g],[%.17g,%.17g],"
                             "[%.17g,%.17g],[%.17g,%.17g]]]}",
                         x0, y0, x1, y0, x1, y1, x0, y1, x0, y0) > 0);
    return s;
}

static char *line2(double x0, double y0, double x1, double y1)
{
    char *s = NULL;
    assert_true(asprintf(&s, "{\"type\":\"LineString\",\"coordinates\":[[%.17g,%.17g],[%.17g,%.17g]]}", x0, y0, x1,
                         y1) > 0);
    return s;
}

static trv_status read_one(trv_ctx *ctx, const prm_terrain *t, long id, const char *props, const char *geom,
                           const char *cross, geo_zones **z)
{
    char *f = feat(id, props, geom), *p = gj("z.geojson", f), *c = cross ? gj("c.geojson", cross) : NULL;
    trv_status st = geo_zones_read(ctx, p, c, 0, t->grid, z);
    free(f);
    free(p);
    free(c);
    return st;
}

static void expect_error(const prm_terrain *t, long id, const char *props, const char *geom, const char *cross,
                         const char *msg)
{
    trv_ctx *ctx = trv_ctx_new();
    geo_zones *z = NULL;
    trv_status st = read_one(ctx, t, id, props, geom, cross, &z);
    if (st == TRV_OK || !strstr(trv_errmsg(ctx), msg))
        fail_msg("%s: got %d '%s', want '%s'", props, st, trv_errmsg(ctx), msg);
    assert_null(z);
    trv_ctx_free(ctx);
}

static void test_read_errors(void **state)
{
    (void)state;
    prm_terrain t;
    terrain_make(&t, 10, 10);
    char *sq = rect(X0 + 8, Y0 - 40, X0 + 40, Y0 - 8), *ln = line2(X0, Y0 - 40, X0 + 40, Y0);
    const char *bow = "{\"type\":\"Polygon\",\"coordinates\":[[[600008,3679960],[600040,3679992],[600040,3679960],"
                      "[600008,3679992],[600008,3679960]]]}";
    const char *pt = "{\"type\":\"Point\",\"coordinates\":[600010,3679990]}";
    expect_error(&t, 41, "\"effect\":\"nogo\"", bow, NULL, "feature 41 is not a valid polygon: Self-intersection");
    expect_error(&t, 42, "\"effect\":\"swamp\"", sq, NULL, "feature 42 has an unknown effect 'swamp'");
    expect_error(&t, 43, "\"value\":2", sq, NULL, "feature 43 has no effect");
    expect_error(&t, 44, "\"effect\":\"factor\",\"value\":0", sq, NULL, "feature 44: the factor value must be a number > 0");
    expect_error(&t, 45, "\"effect\":\"factor\",\"value\":-2", sq, NULL, "feature 45: the factor value must be");
    expect_error(&t, 46, "\"effect\":\"max_speed\"", sq, NULL, "feature 46: the max_speed value must be");
    expect_error(&t, 47, "\"effect\":\"factor\",\"value\":2", ln, NULL, "feature 47 is a line with effect factor");
    expect_error(&t, 48, "\"effect\":\"nogo\"", pt, NULL, "feature 48 is a point");
    expect_error(&t, 49, "\"effect\":\"nogo\"", "null", NULL, "feature 49 has no geometry");
    char *c1 = feat(5, "\"radius\":-3", pt), *c2 = feat(6, "", ln);
    expect_error(&t, 1, "\"effect\":\"nogo\"", ln, c1, "feature 5: the radius must be a number > 0");
    expect_error(&t, 1, "\"effect\":\"nogo\"", ln, c2, "feature 6 is not a point");
    free(c1);
    free(c2);
    trv_ctx *ctx = trv_ctx_new();
    geo_zones *z = NULL;
    char *empty = gj("e.geojson", "");
    assert_int_equal(geo_zones_read(ctx, empty, NULL, 0, t.grid, &z), TRV_ERR_DATA);
    assert_non_null(strstr(trv_errmsg(ctx), "holds no features"));
    assert_int_equal(geo_zones_read(ctx, "/nonexistent/z.gpkg", NULL, 0, t.grid, &z), TRV_ERR_IO);
    /* a good one: nogo polygon, nogo line, factor */
    assert_int_equal(read_one(ctx, &t, 3, "\"effect\":\"Max_Speed\",\"value\":12.5", sq, NULL, &z), TRV_OK);
    assert_int_equal(z->n, 1);
    assert_int_equal(z->z[0].effect, GEO_ZONE_MAX_SPEED);
    assert_true(z->z[0].value == 12.5 && z->z[0].fid == 3 && z->nseg == 4);
    geo_zones_free(z);
    free(empty);
    free(sq);
    free(ln);
    trv_ctx_free(ctx);
    prm_terrain_clear(&t);
}

static void test_seg_meet(void **state)
{
    (void)state;
    double px[2], py[2];
    const double a[4] = {0, 0, 4, 4};
    assert_int_equal(geo_seg_meet(a, (double[4]){0, 4, 4, 0}, px, py), 1);
    assert_true(px[0] == 2 && py[0] == 2);
    assert_int_equal(geo_seg_meet(a, (double[4]){4, 4, 6, 0}, px, py), 1); /* a touch at an end */
    assert_true(px[0] == 4 && py[0] == 4);
    assert_int_equal(geo_seg_meet(a, (double[4]){0, 1, 3, 4}, px, py), 0); /* parallel, apart */
    assert_int_equal(geo_seg_meet(a, (double[4]){3, 0, 5, -2}, px, py), 0); /* would meet beyond the ends */
    assert_int_equal(geo_seg_meet(a, (double[4]){6, 6, 2, 2}, px, py), 2); /* a collinear overlap */
    assert_true(px[0] == 2 && py[0] == 2 && px[1] == 4 && py[1] == 4);
    assert_int_equal(geo_seg_meet(a, (double[4]){5, 5, 6, 6}, px, py), 0);
}

/* A horizontal piece 80 m long at 10 m/s (8 s), half of it inside a zone. */
static void test_piece_times(void **state)
{
    (void)state;
    prm_terrain t;
    terrain_make(&t, 20, 10);
    trv_ctx *ctx = trv_ctx_new();
    geo_zones *z = NULL;
    double y = Y0 - 40 - 4, x0 = X0 + 20, x1 = X0 + 100;
    char *sq = rect(X0 + 60, Y0 - 72, X0 + 120, Y0 - 8);
    struct { const char *props; double want; } cases[] = {
        {"\"effect\":\"factor\",\"value\":2.5", 4 + 4 * 2.5},
        {"\"effect\":\"max_speed\",\"value\":18", 4 + 8}, /* 40 m at 5 m/s */
        {"\"effect\":\"max_speed\",\"value\":72", 8},     /* a cap above the speed: nothing */
    };
    for (int k = 0; k < 3; k++) {
        assert_int_equal(read_one(ctx, &t, 1, cases[k].props, sq, NULL, &z), TRV_OK);
        t.zones = z;
        prm_piece p;
        prm_piece_measure(&t, x0, y, x1, y, &p);
        assert_false(p.blocked);
        if (fabs(p.time_s - cases[k].want) > 1e-9 || fabs(p.time_rev_s - cases[k].want) > 1e-9)
            fail_msg("%s: %.12g %.12g, want %.12g", cases[k].props, p.time_s, p.time_rev_s, cases[k].want);
        prm_path path = {2, (double[]){x0, x1}, (double[]){y, y}, 0, 0};
        prm_stats s;
        prm_path_stats(&t, &path, CELL, &s);
        assert_true(fabs(s.time_h * 3600 - cases[k].want) < 1e-9);
        t.zones = NULL;
        geo_zones_free(z);
    }
    /* nogo: a piece into the polygon, one wholly inside, one beside it */
    assert_int_equal(read_one(ctx, &t, 1, "\"effect\":\"nogo\"", sq, NULL, &z), TRV_OK);
    t.zones = z;
    prm_piece p;
    prm_piece_measure(&t, x0, y, x1, y, &p);
    assert_true(p.blocked);
    prm_piece_measure(&t, X0 + 70, y, X0 + 110, y, &p);
    assert_true(p.blocked);
    prm_piece_measure(&t, x0, y, X0 + 59.9, y, &p);
    assert_false(p.blocked);
    t.zones = NULL;
    geo_zones_free(z);
    free(sq);
    trv_ctx_free(ctx);
    prm_terrain_clear(&t);
}

/* This file's own test: does segment a meet segment b, and where. */
static int meets(const double *a, const double *b, double *x, double *y)
{
    double d = (a[2] - a[0]) * (b[3] - b[1]) - (a[3] - a[1]) * (b[2] - b[0]);
    if (d == 0)
        return 0;
    double s = ((b[0] - a[0]) * (b[3] - b[1]) - (b[1] - a[1]) * (b[2] - b[0])) / d;
    double u = ((b[0] - a[0]) * (a[3] - a[1]) - (b[1] - a[1]) * (a[2] - a[0])) / d;
    *x = a[0] + s * (a[2] - a[0]), *y = a[1] + s * (a[3] - a[1]);
    return s >= 0 && s <= 1 && u >= 0 && u <= 1;
}

/* A zero-width diagonal barrier across a 24 x 24 all-GO grid, through the
 * cells' corners and then a third of a cell off them: the 16-connected
 * search finds no way (diagonal and knight moves included); with a
 * crossing in the middle it crosses there only. */
static void test_grid_barrier(void **state)
{
    (void)state;
    prm_terrain t;
    terrain_make(&t, 24, 24);
    trv_ctx *ctx = trv_ctx_new();
    double sx = X0 + 3.5 * CELL, sy = Y0 - 3.5 * CELL, gx = X0 + 20.5 * CELL, gy = Y0 - 20.5 * CELL;
    for (int off = 0; off < 2; off++) {
        double o = off * CELL / 3, bar[4] = {X0 - CELL + o, Y0 - 25 * CELL, X0 + 25 * CELL + o, Y0 + CELL};
        char *ln = line2(bar[0], bar[1], bar[2], bar[3]);
        char *cross = NULL, *pt = NULL;
        double bx = X0 + 12 * CELL + o, by = Y0 - 12 * CELL; /* on the barrier */
        assert_true(asprintf(&pt, "{\"type\":\"Point\",\"coordinates\":[%.17g,%.17g]}", bx, by) > 0);
        cross = feat(9, "\"radius\":12", pt);
        for (int withc = 0; withc < 2; withc++) {
            geo_zones *z = NULL;
            assert_int_equal(read_one(ctx, &t, 7, "\"effect\":\"nogo\"", ln, withc ? cross : NULL, &z), TRV_OK);
            t.zones = z;
            for (prm_strategy s = PRM_MMCR; s <= PRM_TIME; s++) {
                prm_path p;
                trv_status st = prm_route_grid(ctx, &t, sx, sy, gx, gy, s, NULL, &p);
                if (!withc) {
                    assert_int_equal(st, TRV_ERR_DATA);
                    continue;
                }
                assert_int_equal(st, TRV_OK);
                int n = 0;
                for (int i = 0; i + 1 < p.n; i++) {
                    double seg[4] = {p.x[i], p.y[i], p.x[i + 1], p.y[i + 1]}, x, y;
                    if (meets(seg, bar, &x, &y)) {
                        n++;
                        assert_true(hypot(x - bx, y - by) <= 12);
                    }
                }
                assert_true(n >= 1);
                prm_path_clear(&p);
            }
            t.zones = NULL;
            geo_zones_free(z);
        }
        free(ln);
        free(pt);
        free(cross);
    }
    /* a shallow barrier, a wide radius (30 m: open cells reach past it), a
     * start and goal whose straight line crosses it 70 m from the bridge:
     * every route crosses within 30 m, as the exact test of each move
     * through an open cell allows (not within the open cells' reach) */
    double bar[4] = {X0 - CELL, Y0 - 5 * CELL, X0 + 25 * CELL, Y0 - 18 * CELL}, bx = X0 + 12 * CELL,
           by = Y0 - 5 * CELL - 13.0 / 26 * 13 * CELL;
    char *ln = line2(bar[0], bar[1], bar[2], bar[3]), *pt = NULL, *cross;
    assert_true(asprintf(&pt, "{\"type\":\"Point\",\"coordinates\":[%.17g,%.17g]}", bx, by) > 0);
    cross = feat(9, "\"radius\":30", pt);
    geo_zones *z = NULL;
    assert_int_equal(read_one(ctx, &t, 7, "\"effect\":\"nogo\"", ln, cross, &z), TRV_OK);
    t.zones = z;
    for (prm_strategy s = PRM_MMCR; s <= PRM_TIME; s++) {
        prm_path q;
        assert_int_equal(prm_route_grid(ctx, &t, X0 + 2.5 * CELL, Y0 - 14.5 * CELL, X0 + 6.5 * CELL, Y0 - 0.5 * CELL, s,
                                        NULL, &q), TRV_OK);
        int n = 0;
        for (int i = 0; i + 1 < q.n; i++) {
            double seg[4] = {q.x[i], q.y[i], q.x[i + 1], q.y[i + 1]}, x, y;
            if (meets(seg, bar, &x, &y)) {
                n++;
                if (hypot(x - bx, y - by) > 30)
                    fail_msg("strategy %d crosses %.2f m from the bridge", (int)s, hypot(x - bx, y - by));
            }
        }
        assert_true(n >= 1);
        prm_path_clear(&q);
    }
    t.zones = NULL;
    geo_zones_free(z);
    free(ln);
    free(pt);
    free(cross);
    /* without zones the way is open */
    prm_path p;
    assert_int_equal(prm_route_grid(ctx, &t, sx, sy, gx, gy, PRM_MDR, NULL, &p), TRV_OK);
    prm_path_clear(&p);
    trv_ctx_free(ctx);
    prm_terrain_clear(&t);
}

/* Least time across a 10 m/s field 960 x 480 m (cells of 8 m), from
 * (4, 30) to (116, 30) (cells): 896 m straight, 89.6 s. A factor f
 * rectangle 200 m along the line (x 400..600 m) and 160 m across (y ±80):
 * straight costs 69.6 + 20 f s; around it the shortest way touches its
 * corners: hypot(364, 80) + 200 + hypot(332, 80) = 914.19 m, 91.42 s
 * (a 16-neighbour path up to 2.7 % more): it pays above f = 1.091.
 * f = 1.05: 90.6 s straight, so straight; f = 3: 129.6 s straight, so
 * around, in 91.42 .. 93.9 s. */
static void test_factor_detour(void **state)
{
    (void)state;
    prm_terrain t;
    terrain_make(&t, 120, 60);
    trv_ctx *ctx = trv_ctx_new();
    double y = Y0 - 30.5 * CELL, sx = X0 + 4.5 * CELL, gx = X0 + 116.5 * CELL;
    char *sq = rect(X0 + 400, y - 80, X0 + 600, y + 80);
    const char *props[2] = {"\"effect\":\"factor\",\"value\":1.05", "\"effect\":\"factor\",\"value\":3"};
    for (int k = 0; k < 2; k++) {
        geo_zones *z = NULL;
        assert_int_equal(read_one(ctx, &t, 1, props[k], sq, NULL, &z), TRV_OK);
        t.zones = z;
        prm_path p;
        assert_int_equal(prm_route_grid(ctx, &t, sx, y, gx, y, PRM_TIME, NULL, &p), TRV_OK);
        int straight = 1;
        for (int i = 0; i < p.n; i++)
            straight &= p.y[i] == y;
        if (k == 0) {
            assert_true(straight);
            assert_true(fabs(p.objective - (69.6 + 20 * 1.05)) < 1e-9);
        } else {
            assert_false(straight);
            if (!(p.objective >= 91.419 && p.objective <= 93.9))
                fail_msg("detour %.6f s", p.objective);
            for (int i = 0; i < p.n; i++) /* no vertex inside */
                assert_false(p.x[i] > X0 + 400 && p.x[i] < X0 + 600 && fabs(p.y[i] - y) < 80);
        }
        prm_path_clear(&p);
        t.zones = NULL;
        geo_zones_free(z);
    }
    free(sq);
    trv_ctx_free(ctx);
    prm_terrain_clear(&t);
}

/* All touched: a line along the edge between rows 9 and 10 from column
 * line 2 to 20 meets the closed squares of rows 9 and 10, columns 1..20
 * (the end points are corners of columns 1 and 20), and no other. */
static void test_burn(void **state)
{
    (void)state;
    prm_terrain t;
    terrain_make(&t, 24, 24);
    trv_ctx *ctx = trv_ctx_new();
    char *ln = line2(X0 + 2 * CELL, Y0 - 10 * CELL, X0 + 20 * CELL, Y0 - 10 * CELL);
    geo_zones *z = NULL;
    assert_int_equal(read_one(ctx, &t, 1, "\"effect\":\"nogo\"", ln, NULL, &z), TRV_OK);
    for (int r = 0; r < 24; r++)
        for (int c = 0; c < 24; c++) {
            int want = (r == 9 || r == 10) && c >= 1 && c <= 20;
            if ((z->burn[r * 24 + c] == GEO_ZB_NOGO) != want)
                fail_msg("cell (%d, %d): burn %d, want %d", c, r, z->burn[r * 24 + c], want);
        }
    geo_zones_free(z);
    free(ln);
    trv_ctx_free(ctx);
    prm_terrain_clear(&t);
}

/* Windows of rows (1, 7 and 10 rows: seams on the line of test_burn and
 * across the others) burned alone (geo_zones_burn_rows) give the bytes of
 * the whole burn's rows: a nogo line along the row edge 10, a diagonal
 * nogo line with a crossing on it, a nogo polygon and a factor polygon. */
static void test_burn_rows(void **state)
{
    (void)state;
    prm_terrain t;
    terrain_make(&t, 24, 31);
    trv_ctx *ctx = trv_ctx_new();
    char *g[4] = {line2(X0 + 2 * CELL, Y0 - 10 * CELL, X0 + 20 * CELL, Y0 - 10 * CELL),
                  line2(X0 + 0.3 * CELL, Y0 - 0.7 * CELL, X0 + 23.1 * CELL, Y0 - 30.2 * CELL),
                  rect(X0 + 3.5 * CELL, Y0 - 27.2 * CELL, X0 + 9.4 * CELL, Y0 - 13.6 * CELL),
                  rect(X0 + 12.5 * CELL, Y0 - 25.5 * CELL, X0 + 21.5 * CELL, Y0 - 6.5 * CELL)};
    const char *props[4] = {"\"effect\":\"nogo\"", "\"effect\":\"nogo\"", "\"effect\":\"nogo\"",
                            "\"effect\":\"factor\",\"value\":2"};
    char *f[4], *all = NULL, *cr = NULL;
    for (int k = 0; k < 4; k++)
        f[k] = feat(k + 1, props[k], g[k]);
    assert_true(asprintf(&all, "%s,%s,%s,%s", f[0], f[1], f[2], f[3]) > 0);
    assert_true(asprintf(&cr, "{\"type\":\"Feature\",\"id\":1,\"properties\":{\"radius\":20},\"geometry\":"
                              "{\"type\":\"Point\",\"coordinates\":[%.17g,%.17g]}}",
                         X0 + 11.7 * CELL, Y0 - 15.4 * CELL) > 0);
    char *p = gj("zr.geojson", all), *c = gj("cr.geojson", cr);
    geo_zones *z = NULL;
    assert_int_equal(geo_zones_read(ctx, p, c, 0, t.grid, &z), TRV_OK);
    int kinds[8] = {0};
    for (int i = 0; i < 24 * 31; i++)
        kinds[z->burn[i] & 7]++;
    assert_true(kinds[GEO_ZB_NOGO] > 0 && kinds[GEO_ZB_CROSS] > 0 && kinds[GEO_ZB_FACTOR] > 0);
    unsigned char w[24 * 10];
    const int heights[3] = {1, 7, 10};
    for (int h = 0; h < 3; h++)
        for (int y0 = 0; y0 < 31; y0 += heights[h]) {
            int y1 = y0 + heights[h] < 31 ? y0 + heights[h] : 31;
            memset(w, 0xee, sizeof w);
            assert_int_equal(geo_zones_burn_rows(ctx, t.grid, z, y0, y1, w), TRV_OK);
            for (int i = 0; i < (y1 - y0) * 24; i++)
                if (w[i] != z->burn[y0 * 24 + i])
                    fail_msg("rows of %d from %d: cell (%d, %d) %d, whole burn %d", heights[h], y0, i % 24,
                             y0 + i / 24, w[i], z->burn[y0 * 24 + i]);
        }
    geo_zones_free(z);
    for (int k = 0; k < 4; k++)
        free(g[k]), free(f[k]);
    free(all), free(cr), free(p), free(c);
    trv_ctx_free(ctx);
    prm_terrain_clear(&t);
}

/* A node at cell (c, r)'s centre. */
static int node_at(trv_ctx *ctx, prm_roadmap *r, int c, int rr, int *ncap)
{
    assert_int_equal(prm_zones_add_node(ctx, r, X0 + (c + 0.5) * CELL, Y0 - (rr + 0.5) * CELL, ncap), TRV_OK);
    return r->nnodes - 1;
}

static void edge(trv_ctx *ctx, const prm_terrain *t, prm_roadmap *r, int a, int b, int *ecap)
{
    prm_piece p;
    prm_piece_measure(t, r->x[a], r->y[a], r->x[b], r->y[b], &p);
    assert_int_equal(prm_zones_add_edge(ctx, r, a, b, &p, ecap), TRV_OK);
}

/* A 10 x 7 grid of nodes (columns 3, 9 .. 57; rows first, first + 3 ..),
 * neighbours joined; the index of its first node. */
static int node_grid(trv_ctx *ctx, const prm_terrain *t, prm_roadmap *r, const int *rows, int *ncap, int *ecap)
{
    int n0 = r->nnodes;
    for (int j = 0; j < 7; j++)
        for (int i = 0; i < 10; i++) {
            int v = node_at(ctx, r, 3 + 6 * i, rows[j], ncap);
            if (i > 0)
                edge(ctx, t, r, v - 1, v, ecap);
            if (j > 0)
                edge(ctx, t, r, v - 10, v, ecap);
        }
    return n0;
}

/* A pocket (docs/zones.md): 60 x 60 cells; a river along the edge between
 * rows 29 and 30 with a bridge at column 5.5; NOGO rows 20..24 over
 * columns 0..49, so that north of the river a corridor (rows 25..28) joins
 * the north only east of column 49. Roadmap: 70 nodes north (rows 1..18),
 * 70 south (rows 35..53), and P in the corridor by the bridge, joined only
 * across the river (masked). The bridge's near leg north ends at P (a
 * pocket of one node): the second leg must run along the corridor to the
 * north's nodes, so that start (north) and goal (south) are joined on the
 * roadmap, crossing the river only at the bridge. */
static void test_pocket_leg(void **state)
{
    (void)state;
    prm_terrain t;
    terrain_make(&t, 60, 60);
    trv_ctx *ctx = trv_ctx_new();
    for (int rr = 20; rr <= 24; rr++)
        for (int c = 0; c <= 49; c++)
            t.gonogo->u8[rr * 60 + c] = 1;
    prm_roadmap *r = calloc(1, sizeof *r);
    assert_non_null(r);
    int ncap = 0, ecap = 0;
    static const int north[7] = {1, 4, 7, 10, 13, 16, 18}, south[7] = {35, 38, 41, 44, 47, 50, 53};
    int n = node_grid(ctx, &t, r, north, &ncap, &ecap), s = node_grid(ctx, &t, r, south, &ncap, &ecap);
    int P = node_at(ctx, r, 8, 26, &ncap);
    edge(ctx, &t, r, P, s + 1, &ecap);          /* across the river 26 m off the bridge */
    edge(ctx, &t, r, n + 69, s + 9, &ecap);     /* column 57 straight across */
    assert_int_equal(prm_roadmap_adjacency(ctx, r), TRV_OK);
    double yr = Y0 - 30 * CELL, bx = X0 + 5.5 * CELL;
    char *ln = line2(X0 - 10, yr, X0 + 61 * CELL, yr), *pt = NULL, *cr = NULL;
    assert_true(asprintf(&pt, "{\"type\":\"Point\",\"coordinates\":[%.17g,%.17g]}", bx, yr) > 0);
    cr = feat(1, "\"name\":\"bridge\"", pt);
    geo_zones *z = NULL;
    assert_int_equal(read_one(ctx, &t, 7, "\"effect\":\"nogo\"", ln, cr, &z), TRV_OK);
    t.zones = z;
    prm_zone_edges ze;
    assert_int_equal(prm_zone_edges_make(ctx, &t, r, 0, &ze), TRV_OK);
    assert_true(ze.off[r->nedges - 1] && ze.off[r->nedges - 2]); /* both river edges masked */
    assert_int_equal(prm_zones_roadmap(ctx, &t, r, &ze), TRV_OK);
    t.zone_edges = &ze;
    prm_path p;
    double sx = X0 + 4.5 * CELL, sy = Y0 - 2.5 * CELL, gx = X0 + 4.5 * CELL, gy = Y0 - 50.5 * CELL;
    trv_status st = prm_route(ctx, &t, r, sx, sy, gx, gy, PRM_MDR, NULL, 0, &p);
    if (st)
        fail_msg("no route on the roadmap: %s", trv_errmsg(ctx));
    int cross = 0;
    for (int i = 0; i + 1 < p.n; i++) {
        double a[4] = {p.x[i], p.y[i], p.x[i + 1], p.y[i + 1]}, b[4] = {X0 - 10, yr, X0 + 61 * CELL, yr}, px[2], py[2];
        int m = geo_seg_meet(a, b, px, py);
        for (int k = 0; k < m; k++, cross++)
            if (fabs(px[k] - bx) > CELL)
                fail_msg("crosses the river at x %.2f, %.2f m from the bridge", px[k], px[k] - bx);
    }
    assert_true(cross >= 1);
    prm_path_clear(&p);
    prm_zone_edges_clear(&ze);
    t.zones = NULL, t.zone_edges = NULL;
    geo_zones_free(z);
    prm_roadmap_free(r);
    free(ln), free(pt), free(cr);
    trv_ctx_free(ctx);
    prm_terrain_clear(&t);
}

/* Start and goal joined on the raster under the zones (zones_reach.c): on
 * 40 x 40 cells with a quarter NOGO at random, a nogo line from edge to
 * edge down column 20 and a nogo band over columns 30..32, the flood says
 * joined exactly when the 16-connected grid search finds a route (no
 * crossing: the two agree), for 300 random GO pairs; then on the open
 * map the cutting zones by hand: the line alone, the band alone, both
 * together (no zone alone), none (joined under the zones). */
static void test_cutting(void **state)
{
    (void)state;
    prm_terrain t;
    terrain_make(&t, 40, 40);
    trv_ctx *ctx = trv_ctx_new();
    char *ln = line2(X0 + 20.5 * CELL, Y0 + CELL, X0 + 20.5 * CELL, Y0 - 41 * CELL), *band = rect(
        X0 + 30.2 * CELL, Y0 + CELL, X0 + 32.8 * CELL, Y0 - 41 * CELL), *f1 = feat(3, "\"effect\":\"nogo\"", ln),
         *f2 = feat(5, "\"effect\":\"nogo\"", band), *all = NULL;
    assert_true(asprintf(&all, "%s,%s", f1, f2) > 0);
    char *path = gj("cut.geojson", all);
    geo_zones *z = NULL;
    assert_int_equal(geo_zones_read(ctx, path, NULL, 0, t.grid, &z), TRV_OK);
    uint64_t seed = 12345;
    for (long i = 0; i < 40 * 40; i++)
        t.gonogo->u8[i] = (seed = seed * 6364136223846793005ULL + 1442695040888963407ULL) >> 62 == 0;
    t.zones = z;
    unsigned char *codes = prm_class_codes(&t);
    int agree = 0, joined_n = 0;
    for (int k = 0; k < 300; k++) {
        long a, b;
        do
            a = (long)((seed = seed * 6364136223846793005ULL + 1442695040888963407ULL) >> 33) % 1600;
        while (!prm_cell_go(&t, a) || (z->burn[a] & GEO_ZB_NOGO));
        do
            b = (long)((seed = seed * 6364136223846793005ULL + 1442695040888963407ULL) >> 33) % 1600;
        while (!prm_cell_go(&t, b) || (z->burn[b] & GEO_ZB_NOGO));
        double xy[4] = {X0 + (a % 40 + 0.5) * CELL, Y0 - (a / 40 + 0.5) * CELL, X0 + (b % 40 + 0.5) * CELL,
                        Y0 - (b / 40 + 0.5) * CELL};
        int joined = -1;
        prm_path p;
        assert_int_equal(prm_zones_joined(ctx, &t, codes, z, xy, &joined), TRV_OK);
        trv_status st = prm_route_grid(ctx, &t, xy[0], xy[1], xy[2], xy[3], PRM_MDR, NULL, &p);
        prm_path_clear(&p);
        agree += joined == (st == TRV_OK);
        joined_n += joined;
    }
    printf("  flood and grid search agree on %d of 300 pairs (%d joined)\n", agree, joined_n);
    assert_int_equal(agree, 300);
    assert_true(joined_n > 20 && joined_n < 280);
    free(codes);
    memset(t.gonogo->u8, 0, 40 * 40);
    struct {
        int c0, r0, c1, r1, result, ncut;
        long fid;
    } want[] = {{5, 5, 25, 25, PRM_CUT_ZONES, 1, 3}, {25, 5, 36, 30, PRM_CUT_ZONES, 1, 5},
                {5, 5, 36, 30, PRM_CUT_ZONES, 0, 0}, {22, 5, 26, 30, PRM_CUT_JOINED, 0, 0}};
    for (int k = 0; k < 4; k++) {
        double xy[4] = {X0 + (want[k].c0 + 0.5) * CELL, Y0 - (want[k].r0 + 0.5) * CELL, X0 + (want[k].c1 + 0.5) * CELL,
                        Y0 - (want[k].r1 + 0.5) * CELL};
        int cut[4], ncut = -1, nogo = -1, result = -1;
        assert_int_equal(prm_zones_cutting(ctx, &t, xy, 4, cut, &ncut, &nogo, &result), TRV_OK);
        assert_int_equal(result, want[k].result);
        assert_int_equal(ncut, want[k].ncut);
        assert_int_equal(nogo, 2);
        if (ncut)
            assert_int_equal(z->z[cut[0]].fid, want[k].fid);
    }
    t.zones = NULL;
    geo_zones_free(z);
    free(ln), free(band), free(f1), free(f2), free(all), free(path);
    prm_terrain_clear(&t);
    trv_ctx_free(ctx);
}

int main(void)
{
    geo_init();
    dir = make_tmpdir();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_read_errors), cmocka_unit_test(test_seg_meet),     cmocka_unit_test(test_piece_times),
        cmocka_unit_test(test_grid_barrier), cmocka_unit_test(test_factor_detour), cmocka_unit_test(test_burn), cmocka_unit_test(test_burn_rows),
        cmocka_unit_test(test_pocket_leg),        cmocka_unit_test(test_cutting),
    };
    int r = cmocka_run_group_tests(tests, NULL, NULL);
    rm_rf(dir);
    free(dir);
    return r;
}
