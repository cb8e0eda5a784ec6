/* The 3D view's export (src/export/web3d.h): the levels' sizes by hand, a
 * tile's heights against the formula that made the DEM (every vertex of
 * every tile of every level: the cell (tx T + i) 2^k, (ty T + j) 2^k, the
 * nodata value off the grid and on a nodata cell), the files of a run
 * (the tile bytes little-endian, the index's grid and tile corners'
 * georeferencing, the textures one pixel per cell, hillshade alpha 0 on
 * nodata, the speed's palette ends at the layer's range), and the refusals (geographic CRS, a layer on another grid:
 * nothing left). */
#include "test_common.h"

#include <math.h>
#include <sys/stat.h>

#include "export/web3d.h"

static void test_levels(void **state)
{
    (void)state;
    exp_w3d_level l = exp_w3d_level_of(129, 129, 0);
    assert_true(l.step == 1 && l.nvx == 129 && l.nvy == 129 && l.ntx == 1 && l.nty == 1);
    assert_int_equal(exp_w3d_levels(129, 129), 1);
    l = exp_w3d_level_of(130, 2, 0);
    assert_true(l.nvx == 130 && l.ntx == 2 && l.nvy == 2 && l.nty == 1);
    assert_int_equal(exp_w3d_levels(130, 2), 2);
    assert_int_equal(exp_w3d_levels(1, 1), 1);
    /* the demo's 1033 x 1090: 9 x 9 tiles at full resolution, one at 16 */
    l = exp_w3d_level_of(1033, 1090, 0);
    assert_true(l.ntx == 9 && l.nty == 9);
    l = exp_w3d_level_of(1033, 1090, 3);
    assert_true(l.step == 8 && l.nvx == 130 && l.nvy == 137 && l.ntx == 2 && l.nty == 2);
    l = exp_w3d_level_of(1033, 1090, 4);
    assert_true(l.step == 16 && l.nvx == 65 && l.nvy == 69 && l.ntx == 1 && l.nty == 1);
    assert_int_equal(exp_w3d_levels(1033, 1090), 5);
}

enum { NX = 300, NY = 200 };
static const int NODATA_C = 130, NODATA_R = 4;

static float height(int c, int r) { return (float)(1000 + c + 1000.0 * r) / 4; }

/* The DEM NX x NY, 10 m cells, north-west corner (500000, 4001000), in
 * srs; one nodata cell. */
static geo_raster *dem_new(trv_ctx *ctx, const char *srs)
{
    geo_grid g = {.nx = NX, .ny = NY, .gt = {500000, 10, 0, 4001000, 0, -10}};
    assert_int_equal(geo_crs_wkt(ctx, srs, &g.wkt), TRV_OK);
    geo_raster *r = NULL;
    assert_int_equal(geo_raster_new(ctx, &g, GEO_F32, &r), TRV_OK);
    geo_grid_clear(&g);
    for (int y = 0; y < NY; y++)
        for (int x = 0; x < NX; x++)
            r->f32[(size_t)y * NX + x] = height(x, y);
    r->has_nodata = 1, r->nodata = -9999;
    r->f32[(size_t)NODATA_R * NX + NODATA_C] = -9999;
    return r;
}

static float want(int k, int tx, int ty, int i, int j)
{
    long c = ((long)tx * 128 + i) << k, r = ((long)ty * 128 + j) << k;
    if (c >= NX || r >= NY || (c == NODATA_C && r == NODATA_R))
        return -9999;
    return height((int)c, (int)r);
}

static void test_tiles(void **state)
{
    (void)state;
    trv_ctx *ctx = trv_ctx_new();
    geo_raster *dem = dem_new(ctx, "EPSG:32616");
    float *h = malloc(sizeof *h * EXP_W3D_V * EXP_W3D_V);
    int levels = exp_w3d_levels(NX, NY), checked = 0;
    assert_int_equal(levels, 3);
    for (int k = 0; k < levels; k++) {
        exp_w3d_level l = exp_w3d_level_of(NX, NY, k);
        for (int ty = 0; ty < l.nty; ty++)
            for (int tx = 0; tx < l.ntx; tx++) {
                exp_w3d_tile(dem, k, tx, ty, h);
                for (int j = 0; j < EXP_W3D_V; j++)
                    for (int i = 0; i < EXP_W3D_V; i++, checked++)
                        if (h[j * EXP_W3D_V + i] != want(k, tx, ty, i, j))
                            fail_msg("level %d tile %d,%d vertex %d,%d: %g, want %g", k, tx, ty, i, j,
                                     h[j * EXP_W3D_V + i], want(k, tx, ty, i, j));
            }
    }
    assert_int_equal(checked, (3 * 2 + 2 * 1 + 1) * EXP_W3D_V * EXP_W3D_V);
    /* the nodata cell (130, 4) at level 1: vertex (65, 2) of tile (0, 0) */
    exp_w3d_tile(dem, 1, 0, 0, h);
    assert_true(h[2 * EXP_W3D_V + 65] == -9999 && h[2 * EXP_W3D_V + 64] == height(128, 4));
    free(h);
    geo_raster_free(dem);
    trv_ctx_free(ctx);
}

/* exp_w3d_rows's reader over a raster in memory: checks every window lies
 * on the grid and within a tile's row (at most min(nx, T 2^k + 1) cells),
 * counts the rows read; fail_at: the row whose read fails. */
typedef struct mem_rows {
    const geo_raster *r;
    int widest, reads, fail_at;
    trv_ctx *ctx;
} mem_rows;

static trv_status mem_row(trv_ctx *ctx, void *user, int r, int c0, int n, float *dst)
{
    mem_rows *m = user;
    const int nx = m->r->grid.nx;
    assert_true(r >= 0 && r < m->r->grid.ny && c0 >= 0 && n >= 1 && c0 + n <= nx);
    m->widest = n > m->widest ? n : m->widest, m->reads++;
    if (r == m->fail_at)
        return trv_error(ctx, TRV_ERR_IO, "row %d unreadable", r);
    memcpy(dst, m->r->f32 + (size_t)r * nx + c0, sizeof *dst * (size_t)n);
    return TRV_OK;
}

/* Every tile of every level by rows equal to the whole-raster rule. */
static void tiles_by_rows(trv_ctx *ctx, const geo_raster *dem, float *h, float *g, float *buf)
{
    const int nx = dem->grid.nx, ny = dem->grid.ny;
    mem_rows m = {dem, 0, 0, -1, ctx};
    exp_w3d_rows src = {nx, ny, dem->has_nodata, dem->nodata, mem_row, &m, NULL};
    for (int k = 0; k < exp_w3d_levels(nx, ny); k++) {
        exp_w3d_level l = exp_w3d_level_of(nx, ny, k);
        for (int ty = 0; ty < l.nty; ty++)
            for (int tx = 0; tx < l.ntx; tx++) {
                m.widest = 0, m.reads = 0;
                exp_w3d_tile(dem, k, tx, ty, g);
                assert_int_equal(exp_w3d_tile_rows(ctx, &src, k, tx, ty, buf, h), TRV_OK);
                for (int q = 0; q < EXP_W3D_V * EXP_W3D_V; q++)
                    if (memcmp(&h[q], &g[q], 4) != 0)
                        fail_msg("%d x %d level %d tile %d,%d vertex %d,%d: %g, want %g", nx, ny, k, tx, ty,
                                 q % EXP_W3D_V, q / EXP_W3D_V, h[q], g[q]);
                long span = 128L * l.step + 1, rows = (ny - 1 - 128L * ty * l.step) / l.step + 1;
                assert_int_equal(m.widest, nx - 128L * tx * l.step < span ? nx - 128L * tx * l.step : span);
                assert_int_equal(m.reads, rows < EXP_W3D_V ? rows : EXP_W3D_V); /* the rows on the grid, once */
            }
    }
}

static void test_tile_rows(void **state)
{
    (void)state;
    trv_ctx *ctx = trv_ctx_new();
    float *h = malloc(sizeof *h * EXP_W3D_V * EXP_W3D_V), *g = malloc(sizeof *g * EXP_W3D_V * EXP_W3D_V);
    float *buf = malloc(sizeof *buf * (128 * 8 + 1));
    geo_raster *dem = dem_new(ctx, "EPSG:32616");
    /* the hand rule (want) on the 300 x 200 DEM: the last partial tiles,
     * the nodata cell, levels 1 and 2 */
    mem_rows m = {dem, 0, 0, -1, ctx};
    exp_w3d_rows src = {NX, NY, 1, -9999, mem_row, &m, NULL};
    for (int k = 0; k < 3; k++) {
        exp_w3d_level l = exp_w3d_level_of(NX, NY, k);
        for (int ty = 0; ty < l.nty; ty++)
            for (int tx = 0; tx < l.ntx; tx++) {
                assert_int_equal(exp_w3d_tile_rows(ctx, &src, k, tx, ty, buf, h), TRV_OK);
                for (int q = 0; q < EXP_W3D_V * EXP_W3D_V; q++)
                    if (h[q] != want(k, tx, ty, q % EXP_W3D_V, q / EXP_W3D_V))
                        fail_msg("level %d tile %d,%d vertex %d: %g, want %g", k, tx, ty, q, h[q],
                                 want(k, tx, ty, q % EXP_W3D_V, q / EXP_W3D_V));
            }
    }
    /* the last tile of level 0: vertex (43, 71) is cell (299, 199), the
     * grid's last; (44, 71) and (43, 72) are off it */
    assert_int_equal(exp_w3d_tile_rows(ctx, &src, 0, 2, 1, buf, h), TRV_OK);
    assert_true(h[71 * EXP_W3D_V + 43] == height(299, 199) && h[71 * EXP_W3D_V + 44] == -9999 &&
                h[72 * EXP_W3D_V + 43] == -9999);
    /* a NaN, a nodata value and an infinite cell's stand-in at tile edges,
     * grids of odd sizes (one cell, one row, one column, a level's last
     * vertex on the grid's last cell) */
    const int sizes[][2] = {{1, 1}, {130, 1}, {1, 130}, {257, 129}, {129, 257}, {515, 300}, {600, 385}};
    for (size_t z = 0; z < sizeof sizes / sizeof *sizes; z++) {
        int nx = sizes[z][0], ny = sizes[z][1];
        geo_grid gr = {.nx = nx, .ny = ny, .gt = {0, 1, 0, 0, 0, -1}};
        geo_raster *r = NULL;
        assert_int_equal(geo_raster_new(ctx, &gr, GEO_F32, &r), TRV_OK);
        r->has_nodata = 1, r->nodata = -32768;
        for (int y = 0; y < ny; y++)
            for (int x = 0; x < nx; x++)
                r->f32[(size_t)y * nx + x] = (x * 7 + y * 3) % 11 == 0 ? -32768.0f
                                             : (x + 2 * y) % 13 == 0 ? NAN : (float)(x - 0.5 * y);
        r->f32[(size_t)nx * ny - 1] = NAN;  /* the last cell, the top level's last vertex where it lands */
        r->f32[nx - 1] = -32768.0f;         /* the first row's last cell */
        tiles_by_rows(ctx, r, h, g, buf);
        geo_raster_free(r);
    }
    /* a value equal to EXP_W3D_NODATA in a DEM whose nodata is another
     * is written as it is (the whole-raster rule's bytes) */
    dem->nodata = -1;
    tiles_by_rows(ctx, dem, h, g, buf);
    /* the reader's error returned */
    m.fail_at = 130;
    assert_int_equal(exp_w3d_tile_rows(ctx, &src, 0, 1, 1, buf, h), TRV_ERR_IO);
    assert_contains(trv_errmsg(ctx), "row 130 unreadable");
    geo_raster_free(dem);
    free(h);
    free(g);
    free(buf);
    trv_ctx_free(ctx);
}

static char *path_in(const char *dir, const char *leaf)
{
    char *p = NULL;
    assert_true(asprintf(&p, "%s/%s", dir, leaf) > 0);
    return p;
}

/* A run directory with dem.tif (srs) and speed.tif on a grid nx wide. */
static char *run_dir(trv_ctx *ctx, const char *name, const char *srs, int speed_nx)
{
    char *dir = path_in(tmpdir, name), *dem_p = path_in(dir, "dem.tif"), *sp_p = path_in(dir, "speed.tif");
    assert_int_equal(mkdir(dir, 0755), 0);
    geo_raster *dem = dem_new(ctx, srs), *sp = NULL;
    assert_int_equal(geo_raster_write(ctx, dem, dem_p, NULL), TRV_OK);
    geo_grid g = dem->grid;
    g.nx = speed_nx;
    assert_int_equal(geo_raster_new(ctx, &g, GEO_F32, &sp), TRV_OK);
    for (size_t i = 0; i < (size_t)g.nx * g.ny; i++)
        sp->f32[i] = (float)(i % 40);
    assert_int_equal(geo_raster_set_label(ctx, sp, "speed", "km/h"), TRV_OK);
    assert_int_equal(geo_raster_write(ctx, sp, sp_p, NULL), TRV_OK);
    geo_raster_free(sp);
    geo_raster_free(dem);
    free(dem_p);
    free(sp_p);
    return dir;
}

static char *slurp(const char *path, size_t *n)
{
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    char *b = malloc(1 << 20);
    *n = fread(b, 1, (1 << 20) - 1, f);
    b[*n] = 0;
    fclose(f);
    return b;
}

static void test_run(void **state)
{
    (void)state;
    trv_ctx *ctx = trv_ctx_new();
    char *dir = run_dir(ctx, "ok", "EPSG:32616", NX);
    trv_outset *set = trv_outset_new();
    exp_w3d_info info;
    assert_int_equal(exp_web3d_run(ctx, dir, set, &info), TRV_OK);
    assert_int_equal(trv_outset_commit(ctx, set), TRV_OK);
    trv_outset_free(set);
    assert_true(info.levels == 3 && info.tiles == 9 && info.nlayers == 2);
    assert_string_equal(info.layers[0], "hillshade");
    assert_string_equal(info.layers[1], "speed");
    assert_true(info.zmin == height(0, 0) && info.zmax == height(NX - 1, NY - 1));
    /* tile (1, 1) of level 0, byte by byte: little-endian Float32 */
    size_t n;
    char *p = path_in(dir, "web3d/tiles/0_1_1.f32");
    unsigned char *b = (unsigned char *)slurp(p, &n);
    assert_int_equal(n, 4 * EXP_W3D_V * EXP_W3D_V);
    for (int j = 0; j < EXP_W3D_V; j++)
        for (int i = 0; i < EXP_W3D_V; i++) {
            const unsigned char *q = b + 4 * (j * EXP_W3D_V + i);
            uint32_t u = q[0] | (uint32_t)q[1] << 8 | (uint32_t)q[2] << 16 | (uint32_t)q[3] << 24;
            float v;
            memcpy(&v, &u, 4);
            assert_true(v == want(0, 1, 1, i, j));
        }
    free(b);
    free(p);
    /* the index: the grid, and tile (2, 1) of level 0's north-west vertex at the
     * centre of cell (256, 128): x = 500000 + 256.5 * 10, y = 4001000 - 128.5 * 10 */
    p = path_in(dir, "web3d/index.json");
    char *js = slurp(p, &n);
    assert_contains(js, "\"nx\": 300,\n  \"ny\": 200,\n  \"geotransform\": [\n    500000,\n    10,\n    0,\n"
                        "    4001000,\n    0,\n    -10\n  ],\n  \"tile_intervals\": 128,");
    assert_contains(js, "{\n      \"level\": 1,\n      \"step\": 2,\n      \"nvx\": 150,\n      \"nvy\": 100,\n"
                        "      \"ntx\": 2,\n      \"nty\": 1\n    }");
    assert_contains(js, "\"name\": \"speed\",\n      \"file\": \"speed.png\",\n      \"from\": \"speed.tif\",\n"
                        "      \"palette\": \"viridis\",\n      \"min\": 0,\n      \"max\": 39");
    double gt[6] = {500000, 10, 0, 4001000, 0, -10};
    assert_true(gt[0] + (2 * 128 + 0.5) * gt[1] == 502565 && gt[3] + (1 * 128 + 0.5) * gt[5] == 3999715);
    free(js);
    free(p);
    /* the textures: one pixel per cell, 4 bands; the hillshade transparent on nodata */
    p = path_in(dir, "web3d/hillshade.png");
    GDALDatasetH ds = GDALOpen(p, GA_ReadOnly);
    assert_non_null(ds);
    assert_true(GDALGetRasterXSize(ds) == NX && GDALGetRasterYSize(ds) == NY && GDALGetRasterCount(ds) == 4);
    unsigned char a[2];
    assert_int_equal(GDALRasterIO(GDALGetRasterBand(ds, 4), GF_Read, NODATA_C, NODATA_R, 2, 1, a, 2, 1, GDT_Byte,
                                  0, 0), CE_None);
    assert_true(a[0] == 0 && a[1] == 255);
    GDALClose(ds);
    free(p);
    /* speed (cell k: k % 40 km/h) over viridis from 0 to 39: cell 0 the first stop, cell 39 the last */
    p = path_in(dir, "web3d/speed.png");
    ds = GDALOpen(p, GA_ReadOnly);
    assert_non_null(ds);
    unsigned char rgb[3][2];
    for (int q = 0; q < 3; q++)
        assert_int_equal(GDALRasterIO(GDALGetRasterBand(ds, q + 1), GF_Read, 0, 0, 1, 1, &rgb[q][0], 1, 1, GDT_Byte,
                                      0, 0), CE_None);
    for (int q = 0; q < 3; q++)
        assert_int_equal(GDALRasterIO(GDALGetRasterBand(ds, q + 1), GF_Read, 39, 0, 1, 1, &rgb[q][1], 1, 1, GDT_Byte,
                                      0, 0), CE_None);
    assert_true(rgb[0][0] == 0x44 && rgb[1][0] == 0x01 && rgb[2][0] == 0x54);
    assert_true(rgb[0][1] == 0xfd && rgb[1][1] == 0xe7 && rgb[2][1] == 0x25);
    GDALClose(ds);
    free(p);
    free(dir);
    trv_ctx_free(ctx);
}

static void test_refusals(void **state)
{
    (void)state;
    trv_ctx *ctx = trv_ctx_new();
    exp_w3d_info info;
    char *dir = run_dir(ctx, "bad_grid", "EPSG:32616", NX - 1), *w = path_in(dir, "web3d");
    trv_outset *set = trv_outset_new();
    assert_int_equal(exp_web3d_run(ctx, dir, set, &info), TRV_ERR_GRID);
    assert_contains(trv_errmsg(ctx), "speed.tif' is not on the grid of dem.tif (300 x 200 cells): 299 x 200");
    trv_outset_free(set);
    struct stat sb;
    assert_true(stat(w, &sb) != 0);
    free(dir);
    free(w);
    dir = run_dir(ctx, "geographic", "EPSG:4326", NX);
    set = trv_outset_new();
    assert_int_equal(exp_web3d_run(ctx, dir, set, &info), TRV_ERR_CRS);
    assert_contains(trv_errmsg(ctx), "dem.tif' is not in a projected CRS in metres");
    trv_outset_free(set);
    free(dir);
    /* a DEM of nodata cells only (its range scanned by windows) */
    dir = run_dir(ctx, "no_data", "EPSG:32616", NX);
    char *dem_p = path_in(dir, "dem.tif");
    geo_raster *dem = dem_new(ctx, "EPSG:32616");
    for (size_t i = 0; i < (size_t)NX * NY; i++)
        dem->f32[i] = i % 2 ? -9999.0f : NAN;
    assert_int_equal(remove(dem_p), 0);
    assert_int_equal(geo_raster_write(ctx, dem, dem_p, NULL), TRV_OK);
    set = trv_outset_new();
    assert_int_equal(exp_web3d_run(ctx, dir, set, &info), TRV_ERR_DATA);
    assert_contains(trv_errmsg(ctx), "dem.tif' holds no data");
    trv_outset_free(set);
    geo_raster_free(dem);
    free(dem_p);
    free(dir);
    trv_ctx_free(ctx);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_levels),
        cmocka_unit_test(test_tiles),
        cmocka_unit_test(test_tile_rows),
        cmocka_unit_test(test_run),
        cmocka_unit_test(test_refusals),
    };
    return cmocka_run_group_tests(tests, tmpdir_setup, tmpdir_teardown);
}
