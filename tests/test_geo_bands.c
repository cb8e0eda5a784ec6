/* Multi-band Float32 GeoTIFFs written by windows (geo_bands_put_tile,
 * geo.h): the cells read back (GDAL) are those written, every band with
 * its description, nodata and unit; the same file, byte for byte, whatever
 * the windows (full-width rows of 1, 7, 100 and all rows, 7 x 7, 64 x 1,
 * 1 x 64, 13 x all rows, 256 x 256, 300 x 300, one window) and their order
 * (row-major, reversed, column-major), on a raster 70 wide (one unit per
 * strip) and one 5000 wide (a strip in two units of 16 and 4 tiles); the
 * file's tiles in the canonical order (their offsets: group by group, unit
 * by unit, within a unit band by band); a window outside the raster, a
 * band outside the file, cells put twice and a group started while another
 * is incomplete refused, taking nothing. */
#include "test_common.h"

#include <gdal.h>

#include "geo/block.h"
#include "geo/geo.h"

enum { NX = 70, NY = 300, NB = 3 }; /* 300 rows: a whole 256-row strip and a part */
enum { WX = 5000, WY = 300 };       /* wider than a unit (16 tiles, 4096 columns) */

static float cell(int b, int x, int y)
{
    return (x + y + b) % 17 == 0 ? -9999.0f : (float)(b * 1000 + 0.5 * x - 0.25 * y);
}

static const char *const DESC[NB] = {"one", "two", "three"};

/* Window (x0, y0, nx, ny) of bands k .. k + nk - 1 (nk <= 2) put, its
 * cells cell() + add. */
static trv_status put_add(trv_ctx *ctx, geo_bands *b, int k, int nk, int x0, int y0, int nx, int ny, float add)
{
    float *buf = malloc((size_t)2 * nx * ny * sizeof *buf);
    const float *c[2] = {buf, buf + (size_t)nx * ny};
    for (int i = 0; i < nk && i < 2; i++)
        for (int y = 0; y < ny; y++)
            for (int x = 0; x < nx; x++)
                buf[(size_t)i * nx * ny + (size_t)y * nx + x] = cell(k + i, x0 + x, y0 + y) + add;
    trv_status st = geo_bands_put_tile(ctx, b, k, nk, x0, y0, nx, ny, c, k >= 1 && k <= NB ? DESC + k - 1 : NULL);
    free(buf);
    return st;
}

static trv_status put(trv_ctx *ctx, geo_bands *b, int k, int nk, int x0, int y0, int nx, int ny)
{
    return put_add(ctx, b, k, nk, x0, y0, nx, ny, 0);
}

/* The same with other cells (cell() + 1): a put that must be refused. */
static trv_status put_bad(trv_ctx *ctx, geo_bands *b, int k, int nk, int x0, int y0, int nx, int ny)
{
    return put_add(ctx, b, k, nk, x0, y0, nx, ny, 1);
}

enum order { ROW_MAJOR, REVERSED, COLUMN_MAJOR };

/* The file of NB bands nx x ny written by tw x th windows in `order`: bands
 * 1 and 2 together (a pair), then band 3 alone. */
static void write_bands(const char *path, int nx, int ny, int tw, int th, enum order order)
{
    trv_ctx *ctx = trv_ctx_new();
    geo_grid g = {nx, ny, {500000, 10, 0, 3700000, 0, -10}, NULL};
    geo_bands *b = NULL;
    assert_int_equal(geo_bands_open(ctx, path, &g, NB, -9999, "m", NULL, 1, &b), TRV_OK);
    geo_tiling T = geo_tiling_make(nx, ny, tw, th);
    const int n = geo_tiling_count(&T);
    for (int k = 1; k <= NB; k += 2)
        for (int j = 0; j < n; j++) {
            int i = order == ROW_MAJOR ? j : order == REVERSED ? n - 1 - j : j % T.nty * T.ntx + j / T.nty;
            geo_tile t = geo_tiling_tile(&T, i);
            assert_int_equal(put(ctx, b, k, k + 1 <= NB ? 2 : 1, t.x0, t.y0, t.nx, t.ny), TRV_OK);
        }
    assert_int_equal(geo_bands_close(ctx, b), TRV_OK);
    trv_ctx_free(ctx);
}

static char *slurp(const char *path, size_t *n)
{
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    fseek(f, 0, SEEK_END);
    *n = (size_t)ftell(f);
    rewind(f);
    char *d = malloc(*n);
    assert_int_equal(fread(d, 1, *n, f), *n);
    fclose(f);
    return d;
}

/* path read back: NB bands of cell(), their descriptions, nodata, unit. */
static void check_cells(const char *path, int nx, int ny)
{
    GDALDatasetH ds = GDALOpen(path, GA_ReadOnly);
    assert_non_null(ds);
    assert_int_equal(GDALGetRasterCount(ds), NB);
    assert_true(GDALGetRasterXSize(ds) == nx && GDALGetRasterYSize(ds) == ny);
    float *row = malloc((size_t)nx * sizeof *row);
    for (int k = 1; k <= NB; k++) {
        GDALRasterBandH band = GDALGetRasterBand(ds, k);
        assert_string_equal(GDALGetDescription(band), DESC[k - 1]);
        assert_string_equal(GDALGetRasterUnitType(band), "m");
        int has = 0;
        assert_true(GDALGetRasterNoDataValue(band, &has) == -9999 && has);
        for (int y = 0; y < ny; y++) {
            assert_int_equal(GDALRasterIO(band, GF_Read, 0, y, nx, 1, row, nx, 1, GDT_Float32, 0, 0), CE_None);
            for (int x = 0; x < nx; x++)
                if (row[x] != cell(k, x, y))
                    fail_msg("band %d cell (%d, %d): %g, not %g", k, x, y, row[x], cell(k, x, y));
        }
    }
    free(row);
    GDALClose(ds);
}

/* The file's tiles in the canonical order (geo.h): sorted by their offsets
 * in the file, their ranks (band group, strip, unit of 16 tiles, band)
 * never decrease. */
static void check_tile_order(const char *path)
{
    GDALDatasetH ds = GDALOpen(path, GA_ReadOnly);
    assert_non_null(ds);
    const int ntx = (GDALGetRasterXSize(ds) + 255) / 256, nty = (GDALGetRasterYSize(ds) + 255) / 256;
    const int n = NB * ntx * nty;
    long long *off = malloc((size_t)n * sizeof *off), *rank = malloc((size_t)n * sizeof *rank);
    for (int k = 1, i = 0; k <= NB; k++)
        for (int ty = 0; ty < nty; ty++)
            for (int tx = 0; tx < ntx; tx++, i++) {
                char item[64];
                snprintf(item, sizeof item, "BLOCK_OFFSET_%d_%d", tx, ty);
                const char *v = GDALGetMetadataItem(GDALGetRasterBand(ds, k), item, "TIFF");
                assert_non_null(v);
                off[i] = atoll(v);
                rank[i] = (((long long)(k - 1) / 2 * nty + ty) * ntx + tx / 16) * NB + (k - 1);
            }
    for (int i = 0; i < n; i++) /* every pair: the lower offset has the lower or the same rank */
        for (int j = 0; j < n; j++)
            if (off[i] < off[j] && rank[i] > rank[j])
                fail_msg("tile %d (offset %lld) before tile %d (offset %lld)", i, off[i], j, off[j]);
    free(off);
    free(rank);
    GDALClose(ds);
}

/* Every file of `count` tilings the same bytes as the first, its cells right,
 * its tiles in order. */
static void check_tilings(int nx, int ny, const int (*tiling)[3], int count)
{
    char *dir = make_tmpdir(), path[2][256];
    size_t n0, n;
    char *ref = NULL;
    for (int t = 0; t < count; t++) {
        snprintf(path[t > 0], sizeof path[0], "%s/b%d.tif", dir, t);
        write_bands(path[t > 0], nx, ny, tiling[t][0], tiling[t][1], (enum order)tiling[t][2]);
        check_cells(path[t > 0], nx, ny);
        if (t == 0) {
            check_tile_order(path[0]);
            ref = slurp(path[0], &n0);
            continue;
        }
        char *d = slurp(path[1], &n);
        if (n != n0 || memcmp(d, ref, n) != 0)
            fail_msg("%d x %d windows (order %d): not the bytes of %d x %d", tiling[t][0], tiling[t][1],
                     tiling[t][2], tiling[0][0], tiling[0][1]);
        free(d);
    }
    free(ref);
    rm_rf(dir);
    free(dir);
}

static void test_tilings(void **state)
{
    (void)state;
    const int tiling[][3] = {
        {NX, NY, ROW_MAJOR},  {NX, 1, ROW_MAJOR},       {NX, 7, ROW_MAJOR},      {NX, 100, ROW_MAJOR},
        {7, 7, ROW_MAJOR},    {64, 1, ROW_MAJOR},       {1, 64, ROW_MAJOR},      {13, NY, ROW_MAJOR},
        {256, 256, ROW_MAJOR}, {300, 300, ROW_MAJOR},   {NX, 7, REVERSED},       {7, 7, REVERSED},
        {7, 7, COLUMN_MAJOR}, {64, 1, COLUMN_MAJOR},    {1, 64, REVERSED},       {13, NY, COLUMN_MAJOR},
    };
    check_tilings(NX, NY, tiling, (int)(sizeof tiling / sizeof *tiling));
}

static void test_wide(void **state)
{
    (void)state;
    const int tiling[][3] = {
        {WX, WY, ROW_MAJOR},     {WX, 7, ROW_MAJOR},        {256, 256, ROW_MAJOR}, {256, 256, COLUMN_MAJOR},
        {300, 300, REVERSED},    {13, WY, COLUMN_MAJOR},    {4097, 13, REVERSED},  {1000, 64, ROW_MAJOR},
    };
    check_tilings(WX, WY, tiling, (int)(sizeof tiling / sizeof *tiling));
}

static void test_refused(void **state)
{
    (void)state;
    trv_ctx *ctx = trv_ctx_new();
    char *dir = make_tmpdir(), path[256];
    snprintf(path, sizeof path, "%s/r.tif", dir);
    geo_grid g = {NX, NY, {500000, 10, 0, 3700000, 0, -10}, NULL};
    geo_bands *b = NULL;
    assert_int_equal(geo_bands_open(ctx, path, &g, NB, -9999, "m", NULL, 1, &b), TRV_OK);
    /* outside the raster */
    assert_int_equal(put_bad(ctx, b, 1, 2, -1, 0, 10, 10), TRV_ERR_INTERNAL);
    assert_int_equal(put_bad(ctx, b, 1, 2, 0, -1, 10, 10), TRV_ERR_INTERNAL);
    assert_int_equal(put_bad(ctx, b, 1, 2, NX - 9, 0, 10, 10), TRV_ERR_INTERNAL);
    assert_non_null(strstr(trv_errmsg(ctx), "window (61, 0) 10 x 10 outside the 70 x 300 raster"));
    assert_int_equal(put_bad(ctx, b, 1, 2, 0, NY - 9, 10, 10), TRV_ERR_INTERNAL);
    assert_int_equal(put_bad(ctx, b, 1, 2, 0, 0, 0, 10), TRV_ERR_INTERNAL);
    /* outside the file */
    assert_int_equal(put_bad(ctx, b, 0, 1, 0, 0, 10, 10), TRV_ERR_INTERNAL);
    assert_int_equal(put_bad(ctx, b, 3, 2, 0, 0, 10, 10), TRV_ERR_INTERNAL);
    assert_non_null(strstr(trv_errmsg(ctx), "bands 3 .. 4 of a 3-band raster"));
    assert_int_equal(put_bad(ctx, b, 1, 0, 0, 0, 10, 10), TRV_ERR_INTERNAL);
    /* bands 1, 2: the first strip but a 10 x 10 window, then cells put twice */
    assert_int_equal(put(ctx, b, 1, 2, 10, 0, NX - 10, 256), TRV_OK);
    assert_int_equal(put(ctx, b, 1, 2, 0, 10, 10, 246), TRV_OK);
    assert_int_equal(put_bad(ctx, b, 1, 2, 0, 0, NX, 1), TRV_ERR_INTERNAL);  /* overlaps both */
    assert_int_equal(put_bad(ctx, b, 1, 2, 9, 10, 1, 1), TRV_ERR_INTERNAL);   /* one cell, the second window's */
    assert_non_null(strstr(trv_errmsg(ctx), "window (9, 10) 1 x 1 of bands 1 .. 2 put again"));
    assert_int_equal(put_bad(ctx, b, 1, 2, 5, 0, 6, 10), TRV_ERR_INTERNAL);  /* overlaps the first by a column */
    /* another group while bands 1, 2 are incomplete */
    assert_int_equal(put_bad(ctx, b, 3, 1, 0, 256, NX, NY - 256), TRV_ERR_INTERNAL);
    assert_non_null(strstr(trv_errmsg(ctx), "bands 3 .. 3 put while bands 1 .. 2 are incomplete"));
    assert_int_equal(put_bad(ctx, b, 1, 1, 0, 0, 10, 10), TRV_ERR_INTERNAL);
    assert_int_equal(put_bad(ctx, b, 2, 1, 0, 0, 10, 10), TRV_ERR_INTERNAL);
    /* the strip's last cells: the strip is written; then the last strip */
    assert_int_equal(put(ctx, b, 1, 2, 0, 0, 10, 10), TRV_OK);
    assert_int_equal(put_bad(ctx, b, 1, 2, 3, 200, 1, 1), TRV_ERR_INTERNAL); /* in the written strip */
    assert_int_equal(put_bad(ctx, b, 1, 2, 0, 255, NX, 2), TRV_ERR_INTERNAL); /* a row of it and one after */
    assert_int_equal(put(ctx, b, 1, 2, 0, 256, NX, NY - 256), TRV_OK);
    /* bands 1, 2 are done: put again, refused; band 3 */
    assert_int_equal(put_bad(ctx, b, 1, 1, 0, 0, 10, 10), TRV_ERR_INTERNAL);
    assert_int_equal(put_bad(ctx, b, 2, 2, 0, 0, 10, 10), TRV_ERR_INTERNAL);
    assert_int_equal(put(ctx, b, 3, 1, 0, 0, NX, NY), TRV_OK);
    assert_int_equal(put_bad(ctx, b, 3, 1, 0, 0, 1, 1), TRV_ERR_INTERNAL);
    assert_int_equal(geo_bands_close(ctx, b), TRV_OK);
    check_cells(path, NX, NY); /* the refused windows took nothing */
    rm_rf(dir);
    free(dir);
    trv_ctx_free(ctx);
}

static int setup(void **state)
{
    (void)state;
    geo_init();
    return 0;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_tilings),
        cmocka_unit_test(test_wide),
        cmocka_unit_test(test_refused),
    };
    return cmocka_run_group_tests(tests, setup, NULL);
}
