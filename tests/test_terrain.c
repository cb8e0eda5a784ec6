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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_classes_masked_to_dem),
    };
    return cmocka_run_group_tests(tests, tmpdir_setup, tmpdir_teardown);
}
