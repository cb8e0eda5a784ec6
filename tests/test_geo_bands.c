/* Multi-band Float32 GeoTIFFs written by rows (geo_bands_put_rows, geo.h):
 * the cells read back (GDAL) are those written, every band with its
 * description, nodata and unit; the same file, byte for byte, whatever the
 * rows per call (1, 7, 100, all); rows out of order, a band beyond the
 * file's or rows past its end are refused. */
#include "test_common.h"

#include <gdal.h>

#include "geo/geo.h"

enum { NX = 70, NY = 300, NB = 3 }; /* 300 rows: a whole 256-row strip and a part */

static float cell(int b, int x, int y)
{
    return (x + y + b) % 17 == 0 ? -9999.0f : (float)(b * 1000 + 0.5 * x - 0.25 * y);
}

/* The file of NB bands written `rows` rows per call: bands 1 and 2 together
 * (a pair), then band 3 alone. */
static void write_file_rows(const char *path, int rows)
{
    trv_ctx *ctx = trv_ctx_new();
    geo_grid g = {NX, NY, {500000, 10, 0, 3700000, 0, -10}, NULL};
    geo_bands *b = NULL;
    assert_int_equal(geo_bands_open(ctx, path, &g, NB, -9999, "m", NULL, 1, &b), TRV_OK);
    float *buf = malloc((size_t)2 * NX * rows * sizeof *buf);
    const char *desc[NB] = {"one", "two", "three"};
    for (int k = 1; k <= NB; k += 2) {
        int nk = k + 1 <= NB ? 2 : 1;
        for (int y0 = 0; y0 < NY; y0 += rows) {
            int n = y0 + rows < NY ? rows : NY - y0;
            const float *r[2] = {buf, buf + (size_t)NX * rows};
            for (int i = 0; i < nk; i++)
                for (int y = 0; y < n; y++)
                    for (int x = 0; x < NX; x++)
                        buf[(size_t)i * NX * rows + (size_t)y * NX + x] = cell(k + i, x, y0 + y);
            assert_int_equal(geo_bands_put_rows(ctx, b, k, nk, y0, n, r, desc + k - 1), TRV_OK);
        }
    }
    assert_int_equal(geo_bands_close(ctx, b), TRV_OK);
    free(buf);
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

static void test_rows_any_height(void **state)
{
    (void)state;
    char *dir = make_tmpdir(), path[4][256];
    const int heights[4] = {NY, 1, 7, 100};
    for (int h = 0; h < 4; h++) {
        snprintf(path[h], sizeof path[h], "%s/b%d.tif", dir, heights[h]);
        write_file_rows(path[h], heights[h]);
    }
    GDALDatasetH ds = GDALOpen(path[1], GA_ReadOnly);
    assert_non_null(ds);
    assert_int_equal(GDALGetRasterCount(ds), NB);
    float *row = malloc(NX * sizeof *row);
    const char *want[NB] = {"one", "two", "three"};
    for (int k = 1; k <= NB; k++) {
        GDALRasterBandH band = GDALGetRasterBand(ds, k);
        assert_string_equal(GDALGetDescription(band), want[k - 1]);
        assert_string_equal(GDALGetRasterUnitType(band), "m");
        int has = 0;
        assert_true(GDALGetRasterNoDataValue(band, &has) == -9999 && has);
        for (int y = 0; y < NY; y++) {
            assert_int_equal(GDALRasterIO(band, GF_Read, 0, y, NX, 1, row, NX, 1, GDT_Float32, 0, 0), CE_None);
            for (int x = 0; x < NX; x++)
                assert_true(row[x] == cell(k, x, y));
        }
    }
    GDALClose(ds);
    size_t n0, n;
    char *ref = slurp(path[0], &n0);
    for (int h = 1; h < 4; h++) {
        char *d = slurp(path[h], &n);
        assert_true(n == n0 && memcmp(d, ref, n) == 0);
        free(d);
    }
    free(ref);
    free(row);
    rm_rf(dir);
    free(dir);
}

static void test_refused(void **state)
{
    (void)state;
    trv_ctx *ctx = trv_ctx_new();
    char *dir = make_tmpdir(), path[256];
    snprintf(path, sizeof path, "%s/r.tif", dir);
    geo_grid g = {NX, NY, {500000, 10, 0, 3700000, 0, -10}, NULL};
    geo_bands *b = NULL;
    assert_int_equal(geo_bands_open(ctx, path, &g, 2, -9999, NULL, NULL, 1, &b), TRV_OK);
    float *buf = calloc((size_t)NX * 10, sizeof *buf);
    const float *r[2] = {buf, buf};
    assert_int_equal(geo_bands_put_rows(ctx, b, 1, 1, 5, 5, r, NULL), TRV_ERR_INTERNAL); /* row 0 expected */
    assert_int_equal(geo_bands_put_rows(ctx, b, 2, 2, 0, 5, r, NULL), TRV_ERR_INTERNAL); /* band 3 */
    assert_int_equal(geo_bands_put_rows(ctx, b, 0, 1, 0, 5, r, NULL), TRV_ERR_INTERNAL);
    assert_int_equal(geo_bands_put_rows(ctx, b, 1, 2, 0, 5, r, NULL), TRV_OK);
    assert_int_equal(geo_bands_put_rows(ctx, b, 1, 1, 0, 5, r, NULL), TRV_ERR_INTERNAL); /* row 5 expected */
    assert_int_equal(geo_bands_put_rows(ctx, b, 1, 1, 5, NY, r, NULL), TRV_ERR_INTERNAL); /* past the end */
    assert_int_equal(geo_bands_close(ctx, b), TRV_OK);
    free(buf);
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
        cmocka_unit_test(test_rows_any_height),
        cmocka_unit_test(test_refused),
    };
    return cmocka_run_group_tests(tests, setup, NULL);
}
