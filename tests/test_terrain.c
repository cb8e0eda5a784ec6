/* Terrain fusion (src/terrain, docs/method.md 1.9-1.10) on hand-built
 * GeoTIFFs written here with GDAL: soil and land use are masked to the
 * DEM's data cells (added for make mutants: docs/testing.md). */
#include "test_common.h"

#include <math.h>

#include <cpl_conv.h>
#include <gdal.h>
#include <ogr_srs_api.h>

#include "terrain/terrain.h"

enum { N = 4 };

/* An N x N GeoTIFF of 30 m cells in EPSG:32616 at (730000, 4069000). */
static char *write_tif(const char *name, GDALDataType type, const double *v, int has_nodata, double nodata)
{
    char *path = trv_path_join(tmpdir, name);
    GDALDriverH drv = GDALGetDriverByName("GTiff");
    GDALDatasetH ds = GDALCreate(drv, path, N, N, 1, type, NULL);
    assert_non_null(ds);
    double gt[6] = {730000, 30, 0, 4069000, 0, -30};
    GDALSetGeoTransform(ds, gt);
    OGRSpatialReferenceH s = OSRNewSpatialReference(NULL);
    OSRImportFromEPSG(s, 32616);
    char *wkt = NULL;
    OSRExportToWkt(s, &wkt);
    GDALSetProjection(ds, wkt);
    CPLFree(wkt);
    OSRDestroySpatialReference(s);
    GDALRasterBandH b = GDALGetRasterBand(ds, 1);
    if (has_nodata)
        GDALSetRasterNoDataValue(b, nodata);
    assert_int_equal(GDALRasterIO(b, GF_Write, 0, 0, N, N, (void *)v, N, N, GDT_Float64, 0, 0), CE_None);
    GDALClose(ds);
    return path;
}

/* A DEM with three no-data cells (-9999) over soil and land-use maps that
 * cover every cell (soil 1 "sandy loam", land use 3 "grassland" of the
 * bundled tables): after fusion both maps are 0 (no class) exactly where
 * the DEM has no data and keep their code elsewhere; every DEM data cell
 * has a class, so both covers are 1. */
static void test_classes_masked_to_dem(void **state)
{
    (void)state;
    double dem[N * N], soil[N * N], lu[N * N];
    const int hole[N * N] = {1, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 1};
    for (int i = 0; i < N * N; i++) {
        dem[i] = hole[i] ? -9999 : 300 + i;
        soil[i] = 1;
        lu[i] = 3;
    }
    char *pd = write_tif("dem.tif", GDT_Float32, dem, 1, -9999), *ps = write_tif("soil.tif", GDT_Byte, soil, 1, 0),
         *pl = write_tif("landuse.tif", GDT_Byte, lu, 1, 0);
    char *sc = data_path("classes/soils.csv"), *lc = data_path("classes/landuse.csv");
    ter_opts o;
    ter_opts_init(&o);
    o.dem_path = pd, o.soil_path = ps, o.landuse_path = pl, o.soil_classes_path = sc, o.landuse_classes_path = lc;
    trv_ctx *ctx = trv_ctx_new();
    trv_ctx_set_verbosity(ctx, 0);
    char *dir = trv_path_join(tmpdir, "run");
    trv_outset *set = trv_outset_new();
    ter_result t;
    trv_status st = ter_stream(ctx, set, &o, dir, NULL, NULL, &t);
    if (st || (st = trv_outset_commit(ctx, set)))
        fail_msg("ter_stream: %s", trv_errmsg(ctx));
    trv_outset_free(set);
    assert_int_equal(t.valid, N * N - 3);
    geo_raster *rs = NULL, *rl = NULL;
    char *fs = trv_path_join(dir, "soil.tif"), *fl = trv_path_join(dir, "landuse.tif");
    assert_int_equal(geo_raster_read(ctx, fs, GEO_U8, &rs), TRV_OK);
    assert_int_equal(geo_raster_read(ctx, fl, GEO_U8, &rl), TRV_OK);
    for (int i = 0; i < N * N; i++) {
        assert_int_equal(rs->u8[i], hole[i] ? 0 : 1);
        assert_int_equal(rl->u8[i], hole[i] ? 0 : 3);
    }
    assert_true(t.soil_cover == 1.0 && t.landuse_cover == 1.0);
    geo_raster_free(rs), geo_raster_free(rl);
    free(fs), free(fl), free(dir);
    ter_result_clear(&t);
    trv_ctx_free(ctx);
    free(pd), free(ps), free(pl), free(sc), free(lc);
}

/* geo_aligner_new_lazy's fetch: the class map's window rows, counted. */
typedef struct fetch_count {
    geo_cat_src *src;
    long rows, cells;
} fetch_count;

static trv_status count_fetch(trv_ctx *ctx, void *user, int x0, int y0, int nx, int ny, unsigned char *dst)
{
    fetch_count *f = user;
    f->rows += ny;
    f->cells += (long)nx * ny;
    return geo_cat_window(ctx, f->src, x0, y0, nx, ny, dst);
}

/* The class maps read by rows (trv-terrain streamed, docs/scale.md): the
 * lazy aligner over geo_cat_rows gives the same codes as the aligner over
 * the whole window geo_raster_read_categorical_for reads, for every row
 * range (1, 7, 64 rows and whole), for a map coarser than the target
 * (the 7.5" soil, geographic; the 30 m land use) and finer (both on a
 * 150 m target), in another CRS (the target in UTM 17N, the maps in
 * lon/lat and UTM 16N), with majority and nearest; and each window cell
 * is read about once (at most twice in all), not once per target row. */
static void test_classes_lazy_rows(void **state)
{
    (void)state;
    trv_ctx *ctx = trv_ctx_new();
    char *wkt = NULL;
    assert_int_equal(geo_crs_wkt(ctx, "EPSG:32617", &wkt), TRV_OK);
    const char *maps[2] = {"jacksboro/soil_7p5arcsec.tif", "jacksboro/landuse_30m_utm16n.tif"};
    const double cells[2] = {10, 150};
    for (int m = 0; m < 2; m++)
        for (int c = 0; c < 2; c++)
            for (int method = 0; method < 2; method++) {
                const double cell = cells[c];
                geo_grid t = {(int)(18000 / cell), (int)(20000 / cell), {199000, cell, 0, 4064000, 0, -cell}, wkt};
                char *path = data_path(maps[m]);
                geo_raster *whole = NULL;
                geo_aligner *a = NULL, *lz = NULL;
                fetch_count f = {0};
                const geo_resample rs = method ? GEO_NEAREST : GEO_MODE;
                assert_int_equal(geo_raster_read_categorical_for(ctx, path, &t, &whole), TRV_OK);
                assert_int_equal(geo_aligner_new(ctx, whole, &t, rs, &a), TRV_OK);
                size_t n = (size_t)t.nx * t.ny;
                unsigned char *ref = malloc(n), *got = malloc(n);
                assert_int_equal(geo_aligner_rows(ctx, a, 0, t.ny, ref), TRV_OK);
                size_t coded = 0;
                for (size_t i = 0; i < n; i++)
                    coded += ref[i] != 0;
                assert_true(coded > n / 2); /* the maps cover most of the target */
                const int heights[4] = {1, 7, 64, t.ny};
                for (int h = 0; h < 4; h++) {
                    assert_int_equal(geo_cat_open(ctx, path, &t, &f.src), TRV_OK);
                    f.rows = f.cells = 0;
                    assert_int_equal(geo_grid_compare(ctx, geo_cat_grid(f.src), "lazy", &whole->grid, "whole"), TRV_OK);
                    assert_int_equal(geo_aligner_new_lazy(ctx, geo_cat_grid(f.src), count_fetch, &f, &t, rs, &lz), TRV_OK);
                    memset(got, 0xff, n);
                    for (int y0 = 0; y0 < t.ny; y0 += heights[h]) {
                        int y1 = y0 + heights[h] < t.ny ? y0 + heights[h] : t.ny;
                        assert_int_equal(geo_aligner_rows(ctx, lz, y0, y1, got + (size_t)y0 * t.nx), TRV_OK);
                    }
                    assert_memory_equal(got, ref, n);
                    assert_true(f.cells > 0 && f.cells <= 2L * whole->grid.nx * whole->grid.ny);
                    geo_aligner_free(lz);
                    geo_cat_close(f.src);
                }
                free(ref);
                free(got);
                geo_aligner_free(a);
                geo_raster_free(whole);
                free(path);
            }
    free(wkt);
    trv_ctx_free(ctx);
}

/* The class maps aligned by windows (trv-terrain by tiles): the cells of
 * every window of a tiling (1 x 64, 7 x 7, 64 x 1, 13 x the height,
 * 256 x 256 and the whole target), tiles taken in row-major order, are
 * the same codes as geo_aligner_rows gives the whole target, for the
 * maps, target cell sizes and methods of test_classes_lazy_rows (the
 * lattice of 15 x 15 points a cell on the 150 m target, 1 on the 10 m
 * one), from the whole source and (13 x the height, 256 x 256) from the
 * lazy one, which reads the source by windows, each source cell about
 * once (at most 3 times in all); a window outside the target is an
 * error. */
static void test_classes_windows(void **state)
{
    (void)state;
    trv_ctx *ctx = trv_ctx_new();
    /* UTM 17 (west of its meridian) and UTM 16 (east of its): the source's
     * columns drift one way going down the target in the first, the other
     * way in the second, so the columns held grow on both sides */
    const char *crs[2] = {"EPSG:32617", "EPSG:32616"};
    const double x_org[2] = {199000, 735000};
    const char *maps[2] = {"jacksboro/soil_7p5arcsec.tif", "jacksboro/landuse_30m_utm16n.tif"};
    const double cells[2] = {30, 150};
    for (int z = 0; z < 2; z++) {
        char *wkt = NULL;
        assert_int_equal(geo_crs_wkt(ctx, crs[z], &wkt), TRV_OK);
        for (int m = 0; m < 2; m++)
            for (int c = 0; c < 2; c++)
                for (int method = 0; method < 2; method++) {
                    const double cell = cells[c];
                    geo_grid t = {(int)(18000 / cell), (int)(20000 / cell), {x_org[z], cell, 0, 4064000, 0, -cell}, wkt};
                    char *path = data_path(maps[m]);
                    geo_raster *whole = NULL;
                    geo_aligner *a = NULL, *lz = NULL;
                    fetch_count f = {0};
                    const geo_resample rs = method ? GEO_NEAREST : GEO_MODE;
                    assert_int_equal(geo_raster_read_categorical_for(ctx, path, &t, &whole), TRV_OK);
                    assert_int_equal(geo_aligner_new(ctx, whole, &t, rs, &a), TRV_OK);
                    size_t n = (size_t)t.nx * t.ny;
                    unsigned char *ref = malloc(n), *got = malloc(n), *tile = malloc(n);
                    assert_int_equal(geo_aligner_rows(ctx, a, 0, t.ny, ref), TRV_OK);
                    assert_int_equal(geo_cat_open(ctx, path, &t, &f.src), TRV_OK);
                    assert_int_equal(geo_aligner_new_lazy(ctx, geo_cat_grid(f.src), count_fetch, &f, &t, rs, &lz), TRV_OK);
                    const int tw[6] = {1, 7, 64, 13, 256, t.nx}, th[6] = {64, 7, 1, t.ny, 256, t.ny};
                    for (int k = 0; k < 6; k++) {
                        geo_aligner *use = k == 3 || k == 4 ? lz : a;
                        f.rows = f.cells = 0;
                        memset(got, 0xff, n);
                        for (int y0 = 0; y0 < t.ny; y0 += th[k])
                            for (int x0 = 0; x0 < t.nx; x0 += tw[k]) {
                                int y1 = y0 + th[k] < t.ny ? y0 + th[k] : t.ny, x1 = x0 + tw[k] < t.nx ? x0 + tw[k] : t.nx;
                                assert_int_equal(geo_aligner_window(ctx, use, x0, x1, y0, y1, tile), TRV_OK);
                                for (int y = y0; y < y1; y++)
                                    memcpy(got + (size_t)y * t.nx + x0, tile + (size_t)(y - y0) * (x1 - x0),
                                           (size_t)(x1 - x0));
                            }
                        assert_memory_equal(got, ref, n);
                        if (use == lz) { /* by windows: each source cell read about once, not once per tile */
                            long src = (long)whole->grid.nx * whole->grid.ny;
                            printf("  windows %d x %d: %ld source cells read of %ld\n", tw[k], th[k], f.cells, src);
                            assert_true(f.cells > 0 && f.cells <= 3 * src);
                        }
                    }
                    assert_int_equal(geo_aligner_window(ctx, a, 5, t.nx + 1, 0, 1, tile), TRV_ERR_INTERNAL);
                    assert_int_equal(geo_aligner_window(ctx, a, -1, 3, 0, 1, tile), TRV_ERR_INTERNAL);
                    assert_int_equal(geo_aligner_window(ctx, a, 3, 3, 0, 1, tile), TRV_ERR_INTERNAL);
                    geo_aligner_free(lz);
                    geo_cat_close(f.src);
                    free(ref);
                    free(got);
                    free(tile);
                    geo_aligner_free(a);
                    geo_raster_free(whole);
                    free(path);
                }
        free(wkt);
    }
    trv_ctx_free(ctx);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_classes_masked_to_dem),
        cmocka_unit_test(test_classes_lazy_rows),
        cmocka_unit_test(test_classes_windows),
    };
    return cmocka_run_group_tests(tests, tmpdir_setup, tmpdir_teardown);
}
