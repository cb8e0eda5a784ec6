/* The zones' tiled burn (prm/zones_tiles.c, prm_zones_tiles) against the
 * whole burn (geo_zones_burn), cell for cell: random star polygons (some
 * with a hole, some as two-part multipolygons), random polylines and
 * lines along the tiles' seams and through a tile corner, a crossing on a
 * line (CROSS cells) and factor polygons, on 900 x 610 cells (4 x 3 tiles
 * of 256, the last column and row ragged), read with 1, 3 and 9 tiles held
 * in row (1 tile), column (3 and 9) and random order (tiles given up and burned again); the
 * tiles no zone's cells meet (the last column's) are never burned; the
 * least recently read tile given up first. Windows of any size and
 * place (geo_zones_burn_window) give the whole burn's bytes; so do
 * geo_zones_block's windows (any place, partly or wholly off the grid:
 * 0 there; 5 x 5 around seam cells; their OR), whole and tiled under 1
 * and 3 tiles. Then the
 * --grid search under the zones on a random 420 x 400 terrain: every
 * objective, in memory and paged, gives the same vertices, objective and
 * expanded count, to the bit, with the burn whole and tiled (4 tiles;
 * and 2 for the time, tiles given up and burned again as it goes), and
 * in a corridor off the grid's origin (window ids: the zones read at grid
 * cells) the whole grid's route, in memory and paged; a factor band and
 * a crossing the routes must take, each route's objective its pieces'
 * measured again (prm_piece_measure). The
 * zones' floods' memory check at its boundary. Terrains in memory
 * (test_terrain_mem.h), zones as GeoJSON. */
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

static const char *HEAD = "{\"type\":\"FeatureCollection\",\"crs\":{\"type\":\"name\",\"properties\":{\"name\":"
                          "\"urn:ogc:def:crs:EPSG::32616\"}},\"features\":[";

/* fmt (of two numbers) appended to *s (grown). */
static void cat(char **s, const char *fmt, double a, double b)
{
    char *m = NULL, *n = NULL;
    assert_true(asprintf(&m, fmt, a, b) >= 0);
    assert_true(asprintf(&n, "%s%s", *s ? *s : "", m) >= 0);
    free(*s), free(m);
    *s = n;
}

/* A closed star ring around (cx, cy) (cells) of n vertices at radii in
 * [r0, r1] (cells), angles in order: a simple ring. */
static void star(char **s, trv_rng *rng, double cx, double cy, double r0, double r1, int n)
{
    cat(s, "[", 0, 0);
    double x0 = 0, y0 = 0;
    for (int k = 0; k < n; k++) {
        double a = 2 * M_PI * (k + 0.8 * trv_rng_uniform(rng)) / n, r = r0 + (r1 - r0) * trv_rng_uniform(rng);
        double x = X0 + (cx + r * cos(a)) * CELL, y = Y0 - (cy + r * sin(a)) * CELL;
        if (k == 0)
            x0 = x, y0 = y;
        cat(s, "[%.17g,%.17g],", x, y);
    }
    cat(s, "[%.17g,%.17g]]", x0, y0);
}

/* A feature of effect props (JSON members) and geometry text g into *all. */
static void feature(char **all, long id, const char *props, const char *g)
{
    char *f = NULL;
    assert_true(asprintf(&f, "%s{\"type\":\"Feature\",\"id\":%ld,\"properties\":{%s},\"geometry\":%s}",
                         *all ? "," : "", id, props, g) > 0);
    char *n = NULL;
    assert_true(asprintf(&n, "%s%s", *all ? *all : "", f) > 0);
    free(*all), free(f);
    *all = n;
}

/* Zones on a grid of ny rows: k random stars near the seams' corners
 * (cells 256, and 512 with nc 2, across and down; every third with a hole, every fourth a
 * two-part multipolygon, every fifth a factor zone), k random polylines
 * of 4 vertices, a line along row seam 256, one along column seam 256,
 * one through the corner (256, 256); a max_speed star in tile (1, 0); a
 * crossing on the row seam's line. */
static void zones_file(trv_rng *rng, int k, int nc, int ny, char **zpath, char **cpath)
{
    char *all = NULL;
    long id = 1;
    for (int i = 0; i < k; i++) {
        double cx = 256.0 * (1 + (int)trv_rng_below(rng, (uint64_t)nc)) + 30 * (trv_rng_uniform(rng) - 0.5);
        double cy = 256.0 * (1 + (int)trv_rng_below(rng, (uint64_t)nc)) + 30 * (trv_rng_uniform(rng) - 0.5);
        double r1 = 3 + 25 * trv_rng_uniform(rng), r0 = r1 * (0.5 + 0.4 * trv_rng_uniform(rng));
        char *g = NULL;
        if (i % 4 == 3) { /* two parts */
            cat(&g, "{\"type\":\"MultiPolygon\",\"coordinates\":[[", 0, 0);
            star(&g, rng, cx, cy, r0, r1, 9);
            cat(&g, "],[", 0, 0);
            star(&g, rng, cx + 2.5 * r1 + 3, cy, r0, r1, 7);
            cat(&g, "]]}", 0, 0);
        } else {
            cat(&g, "{\"type\":\"Polygon\",\"coordinates\":[", 0, 0);
            star(&g, rng, cx, cy, r0, r1, 11);
            if (i % 3 == 2) { /* a hole inside the smallest radius */
                cat(&g, ",", 0, 0);
                star(&g, rng, cx, cy, 0.2 * r0, 0.45 * r0, 6);
            }
            cat(&g, "]}", 0, 0);
        }
        feature(&all, id++, i % 5 == 4 ? "\"effect\":\"factor\",\"value\":2.5" : "\"effect\":\"nogo\"", g);
        free(g);
    }
    for (int i = 0; i < k; i++) {
        char *g = NULL;
        cat(&g, "{\"type\":\"LineString\",\"coordinates\":[", 0, 0);
        for (int v = 0; v < 4; v++) {
            double x = 256.0 * (1 + (int)trv_rng_below(rng, (uint64_t)nc)) + 60 * (trv_rng_uniform(rng) - 0.5);
            double y = 256.0 * (1 + (int)trv_rng_below(rng, (uint64_t)nc)) + 60 * (trv_rng_uniform(rng) - 0.5);
            cat(&g, v ? ",[%.17g,%.17g]" : "[%.17g,%.17g]", X0 + x * CELL, Y0 - y * CELL);
        }
        cat(&g, "]}", 0, 0);
        feature(&all, id++, "\"effect\":\"nogo\"", g);
        free(g);
    }
    char *fz = NULL; /* a factor zone of its own, in tile (1, 0) */
    cat(&fz, "{\"type\":\"Polygon\",\"coordinates\":[", 0, 0);
    star(&fz, rng, 400, 120, 12, 20, 8);
    cat(&fz, "]}", 0, 0);
    feature(&all, id++, "\"effect\":\"max_speed\",\"value\":4", fz);
    free(fz);
    const double seams[3][4] = {{20, 256, 300, 256}, {256, 280, 256, ny - 3.0}, {200, 200, 320, 320}};
    for (int i = 0; i < 3; i++) {
        char *g = NULL;
        cat(&g, "{\"type\":\"LineString\",\"coordinates\":[[%.17g,%.17g],", X0 + seams[i][0] * CELL,
            Y0 - seams[i][1] * CELL);
        cat(&g, "[%.17g,%.17g]]}", X0 + seams[i][2] * CELL, Y0 - seams[i][3] * CELL);
        feature(&all, id++, "\"effect\":\"nogo\"", g);
        free(g);
    }
    char *text = NULL, *cr = NULL;
    assert_true(asprintf(&text, "%s%s]}", HEAD, all) > 0);
    *zpath = write_file(dir, "tz.geojson", text);
    assert_true(asprintf(&cr, "%s{\"type\":\"Feature\",\"id\":1,\"properties\":{\"radius\":30},\"geometry\":"
                              "{\"type\":\"Point\",\"coordinates\":[%.17g,%.17g]}}]}",
                         HEAD, X0 + 100.3 * CELL, Y0 - 256 * CELL) > 0);
    *cpath = write_file(dir, "tc.geojson", cr);
    free(all), free(text), free(cr);
}

/* The zones read twice: whole burn into *whole, tiled (cap tiles) into *tiled. */
static void read_both(trv_ctx *ctx, const prm_terrain *t, const char *zp, const char *cp, int cap, geo_zones **whole,
                      geo_zones **tiled)
{
    assert_int_equal(geo_zones_read(ctx, zp, cp, 0, t->grid, whole), TRV_OK);
    assert_int_equal(geo_zones_read_unburnt(ctx, zp, cp, 0, t->grid, tiled), TRV_OK);
    assert_null((*tiled)->burn);
    assert_int_equal(prm_zones_tiles(ctx, *tiled, t->grid, cap), TRV_OK);
    assert_null((*tiled)->burn);
}

static void test_burn_cells(void **state)
{
    (void)state;
    const int nx = 900, ny = 610;
    prm_terrain t;
    assert_int_equal(test_terrain_plane(&t, nx, ny, X0, Y0, CELL, 5, 36), 0);
    trv_ctx *ctx = trv_ctx_new();
    trv_rng rng;
    trv_rng_seed(&rng, 2026);
    for (int round = 0; round < 3; round++) {
        char *zp, *cp;
        zones_file(&rng, 6 + 2 * round, 2, ny, &zp, &cp);
        const int caps[3] = {1, 3, 9};
        for (int ci = 0; ci < 3; ci++) {
            geo_zones *w = NULL, *z = NULL;
            read_both(ctx, &t, zp, cp, caps[ci], &w, &z);
            long kinds[8] = {0};
            for (long i = 0; i < (long)nx * ny; i++)
                kinds[w->burn[i] & 7]++;
            if (!(kinds[GEO_ZB_NOGO] > 1000 && kinds[GEO_ZB_CROSS] > 0 && kinds[GEO_ZB_FACTOR] > 0))
                fail_msg("round %d: %ld NOGO, %ld CROSS, %ld FACTOR cells", round, kinds[GEO_ZB_NOGO],
                         kinds[GEO_ZB_CROSS], kinds[GEO_ZB_FACTOR]);
            for (int order = caps[ci] == 1 ? 0 : 1; order < 3; order++) /* (1 tile: rows, 4 burns a row) */
                for (long k = 0; k < (order == 2 ? 4000 : (long)nx * ny); k++) {
                    long c = order == 1 ? k / ny : k % nx, r = order == 1 ? k % ny : k / nx;
                    if (order == 2)
                        c = (long)trv_rng_below(&rng, nx), r = (long)trv_rng_below(&rng, ny);
                    unsigned char a = geo_zones_cell(z, c, r), b = w->burn[r * nx + c];
                    if (a != b)
                        fail_msg("round %d, %d tiles, order %d: cell (%ld, %ld) tiled %d, whole %d", round,
                                 caps[ci], order, c, r, a, b);
                }
            long burnt, meets;
            int held;
            prm_zones_tiles_count(z, &burnt, &meets, &held);
            /* the zones lie around the seams' 4 corners, within columns 0 .. 700: the
             * ragged last tile column (768 .. 899) meets none of them */
            assert_true(meets >= 4 && meets <= 9);
            assert_int_equal(held, caps[ci] < meets ? caps[ci] : meets);
            if (caps[ci] >= meets)
                assert_int_equal(burnt, meets); /* every tile held: each burned once */
            else
                assert_true(burnt > 3 * meets); /* given up and burned again */
            geo_zones_free(w);
            geo_zones_free(z);
        }
        free(zp), free(cp);
    }
    trv_ctx_free(ctx);
    prm_terrain_clear(&t);
}

/* The least recently read tile is given up first: with 2 held, tiles A,
 * B, A, C, A (all met by the row seam's line) burn A, B and C once each
 * (B given up for C); the first burned given up first would burn A twice. */
static void test_lru_order(void **state)
{
    (void)state;
    prm_terrain t;
    assert_int_equal(test_terrain_plane(&t, 900, 610, X0, Y0, CELL, 5, 36), 0);
    trv_ctx *ctx = trv_ctx_new();
    trv_rng rng;
    trv_rng_seed(&rng, 5);
    char *zp, *cp;
    zones_file(&rng, 2, 2, 610, &zp, &cp);
    geo_zones *w = NULL, *z = NULL;
    read_both(ctx, &t, zp, cp, 2, &w, &z);
    const long cells[5][2] = {{10, 10}, {300, 10}, {10, 10}, {10, 300}, {10, 10}};
    for (int k = 0; k < 5; k++)
        assert_int_equal(geo_zones_cell(z, cells[k][0], cells[k][1]), w->burn[cells[k][1] * 900 + cells[k][0]]);
    long burnt, meets;
    int held;
    prm_zones_tiles_count(z, &burnt, &meets, &held);
    assert_int_equal(burnt, 3);
    assert_int_equal(held, 2);
    geo_zones_free(w), geo_zones_free(z);
    free(zp), free(cp);
    trv_ctx_free(ctx);
    prm_terrain_clear(&t);
}

/* Random windows (sizes 1 .. 300, any place, rows padded) against the whole burn. */
static void test_burn_windows(void **state)
{
    (void)state;
    const int nx = 700, ny = 610;
    prm_terrain t;
    assert_int_equal(test_terrain_plane(&t, nx, ny, X0, Y0, CELL, 5, 36), 0);
    trv_ctx *ctx = trv_ctx_new();
    trv_rng rng;
    trv_rng_seed(&rng, 7);
    char *zp, *cp;
    zones_file(&rng, 8, 2, ny, &zp, &cp);
    geo_zones *w = NULL;
    assert_int_equal(geo_zones_read(ctx, zp, cp, 0, t.grid, &w), TRV_OK);
    unsigned char *b = malloc(310 * 300);
    int most = 0;
    for (int k = 0; k < w->n; k++)
        most = w->z[k].s1 - w->z[k].s0 > most ? w->z[k].s1 - w->z[k].s0 : most;
    double *xs = malloc(((size_t)most + 1) * sizeof *xs); /* the room, or none (allocated inside) */
    for (int k = 0; k < 200; k++) {
        long win[5];
        win[2] = 1 + (long)trv_rng_below(&rng, 300), win[3] = 1 + (long)trv_rng_below(&rng, 300);
        win[0] = (long)trv_rng_below(&rng, (uint64_t)(nx - win[2] + 1));
        win[1] = (long)trv_rng_below(&rng, (uint64_t)(ny - win[3] + 1));
        win[4] = win[2] + (long)trv_rng_below(&rng, 10);
        memset(b, 0xee, 310 * 300);
        assert_int_equal(geo_zones_burn_window(ctx, t.grid, w, win, k % 2 ? xs : NULL, b), TRV_OK);
        for (long r = 0; r < win[3]; r++)
            for (long c = 0; c < win[4]; c++) {
                unsigned char want = c < win[2] ? w->burn[(r + win[1]) * nx + c + win[0]] : 0xee;
                if (b[r * win[4] + c] != want)
                    fail_msg("window %ld %ld %ld %ld: cell (%ld, %ld) %d, want %d", win[0], win[1], win[2], win[3],
                             c, r, b[r * win[4] + c], want);
            }
    }
    free(b), free(xs);
    geo_zones_free(w);
    free(zp), free(cp);
    trv_ctx_free(ctx);
    prm_terrain_clear(&t);
}

/* geo_zones_block of window w (stride: w[2] + pad) on z against the
 * whole burn wb (nx x ny; 0 off the grid), the pad untouched, the OR
 * returned. */
static void block_check(const geo_zones *z, const unsigned char *wb, long nx, long ny, const long w[4], long pad)
{
    const long stride = w[2] + pad;
    unsigned char *b = malloc((size_t)(stride * w[3]));
    memset(b, 0xee, (size_t)(stride * w[3]));
    unsigned any = geo_zones_block(z, w, stride, b), want_any = 0;
    for (long r = 0; r < w[3]; r++)
        for (long c = 0; c < stride; c++) {
            long gc = w[0] + c, gr = w[1] + r;
            unsigned char want = c >= w[2] ? 0xee : gc < 0 || gr < 0 || gc >= nx || gr >= ny ? 0 : wb[gr * nx + gc];
            want_any |= c < w[2] ? want : 0;
            if (b[r * stride + c] != want)
                fail_msg("block %ld %ld %ld %ld: cell (%ld, %ld) %d, want %d", w[0], w[1], w[2], w[3], c, r,
                         b[r * stride + c], want);
        }
    if (any != want_any)
        fail_msg("block %ld %ld %ld %ld: OR %u, want %u", w[0], w[1], w[2], w[3], any, want_any);
    free(b);
}

/* geo_zones_block against the whole burn: random windows of 1 .. 300
 * cells anywhere (some off the grid), and 5 x 5 windows around random
 * cells within 4 of the seams (the grid search's reads around a cell);
 * the whole burn itself read as blocks, and tiled under 1 and 3 tiles. */
static void test_burn_blocks(void **state)
{
    (void)state;
    const int nx = 610, ny = 700; /* (taller than wide: a window clipped at the row count reads past the east edge) */
    prm_terrain t;
    assert_int_equal(test_terrain_plane(&t, nx, ny, X0, Y0, CELL, 5, 36), 0);
    trv_ctx *ctx = trv_ctx_new();
    trv_rng rng;
    trv_rng_seed(&rng, 11);
    char *zp, *cp;
    zones_file(&rng, 8, 2, ny, &zp, &cp);
    const int caps[3] = {0, 1, 3}; /* (0: the whole burn) */
    for (int ci = 0; ci < 3; ci++) {
        geo_zones *w = NULL, *z = NULL;
        read_both(ctx, &t, zp, cp, caps[ci] ? caps[ci] : 1, &w, &z);
        const geo_zones *read = caps[ci] ? z : w;
        long nonzero = 0;
        for (int k = 0; k < 300; k++) {
            long win[4] = {0, 0, 1 + (long)trv_rng_below(&rng, 300), 1 + (long)trv_rng_below(&rng, 300)};
            win[0] = (long)trv_rng_below(&rng, (uint64_t)(nx + 2 * win[2])) - win[2] - 10;
            win[1] = (long)trv_rng_below(&rng, (uint64_t)(ny + 2 * win[3])) - win[3] - 10;
            block_check(read, w->burn, nx, ny, win, (long)trv_rng_below(&rng, 4));
        }
        for (int k = 0; k < 20000; k++) {
            long c = 256 * (long)trv_rng_below(&rng, 3) - 4 + (long)trv_rng_below(&rng, 9);
            long r = 256 * (long)trv_rng_below(&rng, 3) - 4 + (long)trv_rng_below(&rng, 9);
            c = k % 2 ? (long)trv_rng_below(&rng, nx) : c, r = k % 3 ? r : (long)trv_rng_below(&rng, ny);
            const long win[4] = {c - 2, r - 2, 5, 5};
            unsigned char b[25];
            nonzero += geo_zones_block(read, win, 5, b) != 0;
            block_check(read, w->burn, nx, ny, win, 0);
        }
        assert_true(nonzero > 1000); /* (the seams' lines meet many) */
        geo_zones_free(w);
        geo_zones_free(z);
    }
    free(zp), free(cp);
    trv_ctx_free(ctx);
    prm_terrain_clear(&t);
}

static void terrain_random(prm_terrain *t, int nx, int ny, trv_rng *rng)
{
    assert_int_equal(test_terrain_plane(t, nx, ny, X0, Y0, CELL, 5, 20), 0);
    for (long i = 0; i < (long)nx * ny; i++) {
        t->cls->u8[i] = trv_rng_uniform(rng) < 0.05 ? 0 : (unsigned char)(1 + trv_rng_below(rng, 3));
        t->speed->f32[i] = (float)(2 + 38 * trv_rng_uniform(rng));
        t->slope->f32[i] = (float)(30 * trv_rng_uniform(rng));
        t->cost->f32[i] = (float)trv_rng_uniform(rng);
        t->dem->f32[i] = (float)(100 + 100 * trv_rng_uniform(rng));
    }
    t->top_speed_kmh = 40;
}

/* p and q the same to the bit. */
static void same_path(const char *what, const prm_path *p, const prm_path *q)
{
    if (p->objective != q->objective || p->expanded != q->expanded || p->n != q->n)
        fail_msg("%s: objective %.17g / %.17g, expanded %ld / %ld, vertices %d / %d", what, p->objective,
                 q->objective, p->expanded, q->expanded, p->n, q->n);
    assert_memory_equal(p->x, q->x, (size_t)p->n * sizeof *p->x);
    assert_memory_equal(p->y, q->y, (size_t)p->n * sizeof *p->y);
}

/* The corridor of 24 cells around the whole grid's route ref (its
 * window off the grid's origin: the zones read at window cell + origin),
 * in memory and (paged 1) paged (3 MB: the box does not fit), gives ref's
 * objective and vertices, proven there (not the whole grid's search). */
static void corridor_check(trv_ctx *ctx, const prm_terrain *t, const prm_path *ref, const double xy[4],
                           prm_strategy s, int paged)
{
    const size_t caps[2] = {0, 3000000};
    for (int k = 0; k <= paged; k++) {
        prm_path p;
        prm_corridor_info info;
        assert_int_equal(prm_route_grid_corridor(ctx, t, ref, 24 * CELL, caps[k], xy, s, NULL, &p, &info), TRV_OK);
        if (info.whole || info.paging.paged != k || p.objective != ref->objective || p.n != ref->n)
            fail_msg("%s corridor (%zu B): whole %d, paged %d, widened %d, objective %.17g / %.17g",
                     prm_strategy_name(s), caps[k], info.whole, info.paging.paged, info.widened, p.objective,
                     ref->objective);
        assert_memory_equal(p.x, ref->x, (size_t)p.n * sizeof *p.x);
        assert_memory_equal(p.y, ref->y, (size_t)p.n * sizeof *p.y);
        prm_path_clear(&p);
    }
}

static void test_grid_routes(void **state)
{
    (void)state;
    const int nx = 420, ny = 400;
    prm_terrain t;
    trv_rng rng;
    trv_rng_seed(&rng, 99);
    terrain_random(&t, nx, ny, &rng);
    trv_ctx *ctx = trv_ctx_new();
    char *zp, *cp;
    zones_file(&rng, 8, 1, ny, &zp, &cp);
    geo_zones *w = NULL, *z2 = NULL, *z4 = NULL;
    read_both(ctx, &t, zp, cp, 2, &w, &z2);
    assert_int_equal(geo_zones_read_unburnt(ctx, zp, cp, 0, t.grid, &z4), TRV_OK);
    assert_int_equal(prm_zones_tiles(ctx, z4, t.grid, 4), TRV_OK);
    t.top_speed_kmh /= w->min_factor;
    /* across the seams' corner (256, 256), where the zones lie */
    const double xy[4] = {X0 + 60.5 * CELL, Y0 - 50.5 * CELL, X0 + 400.5 * CELL, Y0 - 380.5 * CELL};
    char *tmp = make_tmpdir();
    for (int s = PRM_MMCR; s <= PRM_TIME; s++) {
        prm_path ref, p;
        t.zones = w;
        assert_int_equal(prm_route_grid(ctx, &t, xy[0], xy[1], xy[2], xy[3], (prm_strategy)s, NULL, &ref), TRV_OK);
        /* the zones change the route: without them it differs */
        t.zones = NULL;
        assert_int_equal(prm_route_grid(ctx, &t, xy[0], xy[1], xy[2], xy[3], (prm_strategy)s, NULL, &p), TRV_OK);
        assert_true(p.objective < ref.objective);
        prm_path_clear(&p);
        const geo_zones *tiled[2] = {z4, z2};
        for (int k = 0; k < (s == PRM_TIME ? 2 : 1); k++) { /* (2 tiles: given up and burned again, slowly) */
            t.zones = tiled[k];
            assert_int_equal(prm_route_grid(ctx, &t, xy[0], xy[1], xy[2], xy[3], (prm_strategy)s, NULL, &p), TRV_OK);
            same_path(prm_strategy_name((prm_strategy)s), &ref, &p);
            prm_path_clear(&p);
            prm_grid_paging pg = {.shift = 6, .tiles = 8, .terrain_tiles = 4, .dir = tmp};
            assert_int_equal(prm_route_grid_paged(ctx, &t, &pg, xy[0], xy[1], xy[2], xy[3], (prm_strategy)s, NULL, &p),
                             TRV_OK);
            assert_true(pg.paged && pg.written > 0);
            same_path("paged", &ref, &p);
            prm_path_clear(&p);
        }
        t.zones = z4;
        corridor_check(ctx, &t, &ref, xy, (prm_strategy)s, 1);
        prm_path_clear(&ref);
    }
    long burnt, meets;
    int held;
    prm_zones_tiles_count(z2, &burnt, &meets, &held);
    printf("  2 tiles held: %ld burns of the %ld tiles the zones meet\n", burnt, meets);
    assert_true(held == 2 && burnt > meets);
    t.zones = NULL;
    geo_zones_free(w), geo_zones_free(z2), geo_zones_free(z4);
    rm_rf(tmp);
    free(tmp), free(zp), free(cp);
    trv_ctx_free(ctx);
    prm_terrain_clear(&t);
}

/* The route's objective measured again piece by piece (prm_piece_measure
 * with the zones: factor deltas, nogo blocks) between its vertices: the
 * search's weights must be those of the pieces it took. */
static void remeasured(const prm_terrain *t, const prm_path *p, prm_strategy s)
{
    prm_weights wd;
    prm_weights_default(&wd);
    double sum = 0;
    for (int i = 0; i + 1 < p->n; i++) {
        prm_piece pc;
        prm_piece_measure(t, p->x[i], p->y[i], p->x[i + 1], p->y[i + 1], &pc);
        assert_false(pc.blocked);
        sum += prm_piece_weight(&pc, s, &wd);
    }
    if (!(fabs(sum - p->objective) <= 1e-9 * p->objective))
        fail_msg("%s: objective %.17g, its pieces %.17g", prm_strategy_name(s), p->objective, sum);
}

/* Factor and crossing moves: a factor 3 band with sloped edges across a
 * 300 x 300 random terrain and a sloped nogo line across it all, open at
 * one crossing (radius 30 m) 14 cells off the straight way between the ends. The
 * --grid routes (mdr, time) cross both; in memory and paged, the burn
 * whole and tiled (2 tiles), the same to the bit, other than without the
 * zones, and each objective (and a search's on a window 60 columns off
 * the origin) the sum of its pieces measured again (a move
 * weighed without its factor or its crossing's exact test would not be). */
static void test_grid_factor(void **state)
{
    (void)state;
    const int nx = 300, ny = 300;
    prm_terrain t;
    trv_rng rng;
    trv_rng_seed(&rng, 31);
    terrain_random(&t, nx, ny, &rng);
    const double xy[4] = {X0 + 125.5 * CELL, Y0 - 20.5 * CELL, X0 + 175.5 * CELL, Y0 - 280.5 * CELL};
    for (int e = 0; e < 2; e++) {
        long i = prm_cell_at(&t, xy[2 * e], xy[2 * e + 1]);
        t.cls->u8[i] = 1, t.gonogo->u8[i] = 0;
    }
    char *all = NULL, *g = NULL, *text = NULL, *cr = NULL;
    const double band[5][2] = {{-10, 110}, {310, 140}, {310, 170}, {-10, 135}, {-10, 110}};
    cat(&g, "{\"type\":\"Polygon\",\"coordinates\":[[", 0, 0);
    for (int k = 0; k < 5; k++)
        cat(&g, k ? ",[%.17g,%.17g]" : "[%.17g,%.17g]", X0 + band[k][0] * CELL, Y0 - band[k][1] * CELL);
    cat(&g, "]]}", 0, 0);
    feature(&all, 1, "\"effect\":\"factor\",\"value\":3", g);
    free(g), g = NULL;
    cat(&g, "{\"type\":\"LineString\",\"coordinates\":[[%.17g,%.17g],", X0 - 10 * CELL, Y0 - 215 * CELL);
    cat(&g, "[%.17g,%.17g]]}", X0 + 310 * CELL, Y0 - 228 * CELL);
    feature(&all, 2, "\"effect\":\"nogo\"", g);
    assert_true(asprintf(&text, "%s%s]}", HEAD, all) > 0);
    assert_true(asprintf(&cr, "%s{\"type\":\"Feature\",\"id\":1,\"properties\":{\"radius\":30},\"geometry\":"
                              "{\"type\":\"Point\",\"coordinates\":[%.17g,%.17g]}}]}",
                         HEAD, X0 + 150.3 * CELL, Y0 - (215 + 13 * 160.3 / 320) * CELL) > 0);
    char *zp = write_file(dir, "fz.geojson", text), *cp = write_file(dir, "fc.geojson", cr);
    trv_ctx *ctx = trv_ctx_new();
    geo_zones *w = NULL, *z = NULL;
    read_both(ctx, &t, zp, cp, 2, &w, &z);
    char *tmp = make_tmpdir();
    const prm_strategy ss[2] = {PRM_MDR, PRM_TIME};
    for (int k = 0; k < 2; k++) {
        prm_path ref, p;
        t.zones = NULL;
        assert_int_equal(prm_route_grid(ctx, &t, xy[0], xy[1], xy[2], xy[3], ss[k], NULL, &p), TRV_OK);
        t.zones = w;
        assert_int_equal(prm_route_grid(ctx, &t, xy[0], xy[1], xy[2], xy[3], ss[k], NULL, &ref), TRV_OK);
        assert_true(ref.objective > p.objective);
        prm_path_clear(&p);
        remeasured(&t, &ref, ss[k]);
        t.zones = z;
        const long win[4] = {60, 0, 180, ny}; /* (the zones read at window cell + origin) */
        assert_int_equal(prm_route_grid_window(ctx, &t, win, NULL, xy[0], xy[1], xy[2], xy[3], ss[k], NULL, &p), TRV_OK);
        remeasured(&t, &p, ss[k]);
        prm_path_clear(&p);
        assert_int_equal(prm_route_grid(ctx, &t, xy[0], xy[1], xy[2], xy[3], ss[k], NULL, &p), TRV_OK);
        same_path("tiled", &ref, &p);
        prm_path_clear(&p);
        prm_grid_paging pg = {.shift = 6, .tiles = 8, .terrain_tiles = 4, .dir = tmp};
        assert_int_equal(prm_route_grid_paged(ctx, &t, &pg, xy[0], xy[1], xy[2], xy[3], ss[k], NULL, &p), TRV_OK);
        same_path("tiled, paged", &ref, &p);
        prm_path_clear(&p), prm_path_clear(&ref);
    }
    t.zones = NULL;
    geo_zones_free(w), geo_zones_free(z);
    rm_rf(tmp);
    free(tmp), free(all), free(g), free(text), free(cr), free(zp), free(cp);
    trv_ctx_free(ctx);
    prm_terrain_clear(&t);
}

/* The zones' floods run only when they fit in the paged search's budget
 * (prm_grid_pass_fits, zones.h): 420 x 400 cells at 10 bytes are 1.68 MB,
 * within --grid-memory 1.68 MB and not a byte below; the default budget
 * (1.5 GB, or three quarters of a smaller machine) holds them; --grid-memory
 * in bytes (a positive value below a byte: 1). */
static void test_flood_fits(void **state)
{
    (void)state;
    prm_terrain t;
    assert_int_equal(test_terrain_plane(&t, 420, 400, X0, Y0, CELL, 5, 36), 0);
    assert_true(prm_grid_pass_fits(&t, PRM_ZONES_FLOOD_BYTES, 1680000));
    assert_false(prm_grid_pass_fits(&t, PRM_ZONES_FLOOD_BYTES, 1679999));
    assert_true(prm_grid_pass_fits(&t, PRM_ZONES_FLOOD_BYTES, 0));
    assert_int_equal(prm_grid_max_bytes(1.68), 1680000);
    assert_int_equal(prm_grid_max_bytes(0), 0);
    assert_int_equal(prm_grid_max_bytes(1e-9), 1);
    prm_terrain_clear(&t);
}

int main(void)
{
    geo_init();
    dir = make_tmpdir();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_burn_cells),
        cmocka_unit_test(test_burn_windows),
        cmocka_unit_test(test_burn_blocks),
        cmocka_unit_test(test_lru_order),
        cmocka_unit_test(test_grid_routes),
        cmocka_unit_test(test_grid_factor),
        cmocka_unit_test(test_flood_fits),
    };
    int r = cmocka_run_group_tests(tests, NULL, NULL);
    rm_rf(dir);
    free(dir);
    return r;
}
