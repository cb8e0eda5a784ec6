/* The block writer's temporary (geo/block.h): kept in GDAL's memory files,
 * uncompressed, when the layer and its overviews hold at most
 * geo_block_mem() bytes, else on disk beside the output — the same COG
 * either way (byte for byte), its cells the ones written and its first
 * overview the 2 x 2 means computed here by hand; nothing left behind. */
#include "test_common.h"

#include <cpl_vsi.h>
#include <gdal.h>
#include <math.h>
#include <sys/stat.h>

#include "geo/block.h"
#include "geo/geo.h"

enum { NX = 300, NY = 520 };
/* the layer and its overviews (300 x 520, 150 x 260, 75 x 130), Float32 */
#define PYRAMID_BYTES ((size_t)4 * (NX * NY + 150 * 260 + 75 * 130))

static float cell(int x, int y)
{
    if ((x * 7 + y * 3) % 23 == 0)
        return -9999.0f; /* nodata */
    return (float)(100.0 + 0.25 * x - 0.125 * y + 0.001 * ((x * y) % 97));
}

static void test_mem_limit_env(void **state)
{
    (void)state;
    unsetenv("TRV_BLOCK_MEM");
    assert_true(geo_block_mem() == GEO_BLOCK_MEM);
    static const struct {
        const char *v;
        size_t want;
    } c[] = {{"0", 0}, {"123", 123}, {"819000", 819000}, {"-5", GEO_BLOCK_MEM}, {"12x", GEO_BLOCK_MEM},
             {"abc", GEO_BLOCK_MEM}, {"", GEO_BLOCK_MEM}};
    for (size_t i = 0; i < sizeof c / sizeof *c; i++) {
        setenv("TRV_BLOCK_MEM", c[i].v, 1);
        assert_true(geo_block_mem() == c[i].want);
    }
    unsetenv("TRV_BLOCK_MEM");
}

static int on_disk(const char *path)
{
    struct stat sb;
    return stat(path, &sb) == 0;
}

static int in_vsimem(const char *path)
{
    char p[4200];
    VSIStatBufL sb;
    snprintf(p, sizeof p, "/vsimem/%s", path);
    return VSIStatL(p, &sb) == 0;
}

/* The layer written in blocks of 7 rows with TRV_BLOCK_MEM = limit (NULL:
 * unset) into name; *mem: the temporary was in memory. */
static char *write_layer(const char *name, const char *limit, int *mem)
{
    trv_ctx *ctx = trv_ctx_new();
    if (limit)
        setenv("TRV_BLOCK_MEM", limit, 1);
    else
        unsetenv("TRV_BLOCK_MEM");
    char *path = malloc(strlen(tmpdir) + strlen(name) + 2), part[4096];
    sprintf(path, "%s/%s", tmpdir, name);
    snprintf(part, sizeof part, "%s.part.tif", path);
    char *wkt = NULL;
    geo_grid g0 = {0};
    assert_int_equal(geo_crs_choose(ctx, &g0, "EPSG:32616", &wkt), TRV_OK);
    geo_raster like = {.grid = {NX, NY, {500000, 10, 0, 4000000, 0, -10}, wkt}, .type = GEO_F32, .has_nodata = 1,
                       .nodata = -9999, .desc = "elevation", .unit = "m"};
    geo_block_writer *w = NULL;
    assert_int_equal(geo_block_writer_open(ctx, &like, path, NULL, &w), TRV_OK);
    float rows[7 * NX];
    for (int y0 = 0; y0 < NY; y0 += 7) {
        int n = y0 + 7 <= NY ? 7 : NY - y0;
        for (int i = 0; i < n * NX; i++)
            rows[i] = cell(i % NX, y0 + i / NX);
        assert_int_equal(geo_block_write(ctx, w, y0, n, rows), TRV_OK);
        if (y0 == 0) {
            *mem = in_vsimem(part);
            assert_int_equal(on_disk(part), !*mem); /* exactly one of the two */
        }
    }
    geo_block_stats s;
    assert_int_equal(geo_block_writer_close(ctx, w, TRV_OK, &s), TRV_OK);
    assert_false(on_disk(part));
    assert_false(in_vsimem(part));
    unsetenv("TRV_BLOCK_MEM");
    free(wkt);
    trv_ctx_free(ctx);
    return path;
}

static char *slurp(const char *path, size_t *n)
{
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    fseek(f, 0, SEEK_END);
    *n = (size_t)ftell(f);
    fseek(f, 0, SEEK_SET);
    char *b = malloc(*n);
    assert_int_equal(fread(b, 1, *n, f), *n);
    fclose(f);
    return b;
}

/* The COG's cells and its first overview's against the layer. */
static void check_cells(const char *path)
{
    GDALDatasetH ds = GDALOpen(path, GA_ReadOnly);
    assert_non_null(ds);
    GDALRasterBandH b = GDALGetRasterBand(ds, 1);
    assert_int_equal(GDALGetOverviewCount(b), 2);
    float *v = malloc(sizeof(float) * NX * NY);
    assert_int_equal(GDALRasterIO(b, GF_Read, 0, 0, NX, NY, v, NX, NY, GDT_Float32, 0, 0), CE_None);
    for (int i = 0; i < NX * NY; i++)
        assert_true(v[i] == cell(i % NX, i / NX));
    GDALRasterBandH o = GDALGetOverview(b, 0);
    assert_int_equal(GDALRasterIO(o, GF_Read, 0, 0, NX / 2, NY / 2, v, NX / 2, NY / 2, GDT_Float32, 0, 0), CE_None);
    for (int y = 0; y < NY / 2; y += 13)
        for (int x = 0; x < NX / 2; x += 11) {
            double sum = 0;
            int n = 0;
            for (int k = 0; k < 4; k++) {
                float c = cell(2 * x + k % 2, 2 * y + k / 2);
                if (c != -9999.0f)
                    sum += c, n++;
            }
            assert_true(v[y * (NX / 2) + x] == (n ? (float)(sum / n) : -9999.0f));
        }
    free(v);
    GDALClose(ds);
}

static void test_mem_and_disk_same_cog(void **state)
{
    (void)state;
    char limit[32], below[32];
    snprintf(limit, sizeof limit, "%zu", PYRAMID_BYTES);
    snprintf(below, sizeof below, "%zu", PYRAMID_BYTES - 1);
    int mem[4];
    char *p[4] = {write_layer("dflt.tif", NULL, &mem[0]), write_layer("at.tif", limit, &mem[1]),
                  write_layer("below.tif", below, &mem[2]), write_layer("zero.tif", "0", &mem[3])};
    assert_int_equal(mem[0], 1);
    assert_int_equal(mem[1], 1); /* at the limit: in memory */
    assert_int_equal(mem[2], 0);
    assert_int_equal(mem[3], 0);
    size_t n0, n;
    char *b0 = slurp(p[0], &n0);
    for (int k = 1; k < 4; k++) {
        char *b = slurp(p[k], &n);
        assert_true(n == n0 && memcmp(b, b0, n) == 0);
        free(b);
    }
    check_cells(p[0]);
    free(b0);
    for (int k = 0; k < 4; k++)
        free(p[k]);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_mem_limit_env),
        cmocka_unit_test(test_mem_and_disk_same_cog),
    };
    return cmocka_run_group_tests(tests, tmpdir_setup, tmpdir_teardown);
}
