/* Geo: UTM choice, grid comparison, class tables, GeoTIFF round trip,
 * categorical alignment (hand-built cases with known answers, and class
 * areas on Jacksboro), Horn slope (hand-computed cells, planes in metres
 * and in US survey feet, and gdaldem on Jacksboro), Float32 GeoTIFFs with
 * the floating-point predictor and Byte ones with the horizontal one read
 * through libtiff (tiff_read.c) against GDAL's own read. */
#include "test_common.h"

#include <math.h>

#include <cpl_conv.h>
#include <gdal.h>
#include <ogr_srs_api.h>
#include <proj.h>

#include "geo/geo.h"
#include "geo/geo_priv.h"


static char *wkt_of(const char *def)
{
    trv_ctx *ctx = trv_ctx_new();
    char *wkt = NULL;
    geo_grid g = {0};
    assert_int_equal(geo_crs_choose(ctx, &g, def, &wkt), TRV_OK);
    trv_ctx_free(ctx);
    return wkt;
}

static char *geographic_wkt(void)
{
    OGRSpatialReferenceH s = OSRNewSpatialReference(NULL);
    OSRImportFromEPSG(s, 4326);
    char *w = NULL, *copy;
    OSRExportToWkt(s, &w);
    copy = strdup(w);
    CPLFree(w);
    OSRDestroySpatialReference(s);
    return copy;
}

/* A grid of nx x ny cells of size cell with its north-west corner at (x0, y0). */
static geo_grid grid(int nx, int ny, double x0, double y0, double cell, char *wkt)
{
    geo_grid g = {nx, ny, {x0, cell, 0, y0, 0, -cell}, wkt};
    return g;
}

/* ---- CRS ---- */

static void test_utm_zone(void **state)
{
    (void)state;
    assert_int_equal(geo_utm_epsg(-84.246, 36.59), 32616);  /* Jacksboro */
    assert_int_equal(geo_utm_epsg(-83.9, 36.59), 32617);    /* just east of -84 */
    assert_int_equal(geo_utm_epsg(151.21, -33.87), 32756);  /* Sydney */
    assert_int_equal(geo_utm_epsg(-70.65, -33.45), 32719);  /* Santiago */
    assert_int_equal(geo_utm_epsg(97.25, 31.45), 32647);    /* the paper's area */
    assert_int_equal(geo_utm_epsg(5.3, 60.4), 32632);       /* Bergen: Norway exception */
    assert_int_equal(geo_utm_epsg(15.6, 78.2), 32633);      /* Svalbard */
    assert_int_equal(geo_utm_epsg(180.0, 10), 32601);       /* 180 wraps to -180 */
    assert_int_equal(geo_utm_epsg(179.9, 10), 32660);
}

static void test_crs_choose(void **state)
{
    (void)state;
    trv_ctx *ctx = trv_ctx_new();
    char label[64], *wkt = NULL;
    /* geographic input, northern: the Jacksboro DEM */
    char *dem = data_path("jacksboro/dem_3arcsec.tif");
    geo_raster *r = NULL;
    assert_int_equal(geo_raster_read(ctx, dem, GEO_F32, &r), TRV_OK);
    assert_int_equal(geo_crs_is_geographic(r->grid.wkt), 1);
    assert_int_equal(geo_crs_choose(ctx, &r->grid, NULL, &wkt), TRV_OK);
    assert_string_equal(geo_crs_label(wkt, label, sizeof label), "EPSG:32616");
    free(wkt);
    /* --t_srs wins */
    assert_int_equal(geo_crs_choose(ctx, &r->grid, "EPSG:32617", &wkt), TRV_OK);
    assert_string_equal(geo_crs_label(wkt, label, sizeof label), "EPSG:32617");
    free(wkt);
    assert_int_equal(geo_crs_choose(ctx, &r->grid, "EPSG:4326", &wkt), TRV_ERR_CRS);
    assert_contains(trv_errmsg(ctx), "not a projected CRS");
    assert_int_equal(geo_crs_choose(ctx, &r->grid, "EPSG:999999", &wkt), TRV_ERR_CRS);
    assert_contains(trv_errmsg(ctx), "cannot understand the CRS 'EPSG:999999'");
    geo_raster_free(r);
    free(dem);
    /* geographic input, southern: a grid around Sydney */
    geo_grid south = grid(100, 100, 151.0, -33.5, 0.005, geographic_wkt());
    assert_int_equal(geo_crs_choose(ctx, &south, NULL, &wkt), TRV_OK);
    assert_string_equal(geo_crs_label(wkt, label, sizeof label), "EPSG:32756");
    free(wkt);
    geo_grid_clear(&south);
    /* projected input keeps its CRS */
    char *lu = data_path("jacksboro/landuse_30m_utm16n.tif");
    assert_int_equal(geo_raster_read(ctx, lu, GEO_U8, &r), TRV_OK);
    assert_int_equal(geo_crs_choose(ctx, &r->grid, NULL, &wkt), TRV_OK);
    assert_string_equal(wkt, r->grid.wkt);
    assert_float_equal(geo_crs_metres_per_unit(wkt), 1.0, 0);
    free(wkt);
    geo_raster_free(r);
    free(lu);
    /* no CRS */
    geo_grid none = grid(10, 10, 0, 0, 1, NULL);
    assert_int_equal(geo_crs_choose(ctx, &none, NULL, &wkt), TRV_ERR_CRS);
    assert_contains(trv_errmsg(ctx), "has no CRS");
    /* US survey feet */
    char *ft = wkt_of("EPSG:2274");
    assert_float_equal(geo_crs_metres_per_unit(ft), 1200.0 / 3937.0, 1e-12);
    free(ft);
    trv_ctx_free(ctx);
}

/* The approximate line transform against exact per-point transforms, on
 * lines where the linear test fails in places (tiny tolerance) and where it
 * holds (loose tolerance): every point valid and within the tolerance. */
static void test_ct_line(void **state)
{
    (void)state;
    trv_ctx *ctx = trv_ctx_new();
    char *geo = geographic_wkt(), *utm = wkt_of("EPSG:32616");
    geo_ct *ct = NULL, *ident = NULL;
    assert_int_equal(geo_ct_create(ctx, geo, utm, &ct), TRV_OK);
    assert_int_equal(geo_ct_create(ctx, utm, utm, &ident), TRV_OK);
    assert_true(geo_ct_is_identity(ident));
    assert_false(geo_ct_is_identity(ct));
    enum { N = 403 };
    static double xs[N], ys[N], ex[N], ey[N];
    static int ok[N];
    const double tols[3] = {1e-9, 3e-3, 1.0};
    for (int t = 0; t < 3; t++) {
        assert_int_equal(geo_ct_line(ctx, ct, -84.4133, 0.00083333, 36.7325, N, tols[t], xs, ys, ok), TRV_OK);
        for (int k = 0; k < N; k++) {
            ex[k] = -84.4133 + k * 0.00083333;
            ey[k] = 36.7325;
        }
        assert_int_equal(geo_ct_points(ct, N, ex, ey, NULL), 0);
        double worst = 0;
        for (int k = 0; k < N; k++) {
            assert_int_equal(ok[k], 1);
            worst = fmax(worst, fmax(fabs(xs[k] - ex[k]), fabs(ys[k] - ey[k])));
        }
        printf("  line transform, tolerance %g m: max error %.2e m\n", tols[t], worst);
        assert_true(worst <= tols[t] + 1e-9);
    }
    assert_int_equal(geo_ct_line(ctx, ident, 5, 2, 7, 3, 0, xs, ys, ok), TRV_OK);
    assert_float_equal(xs[2], 9, 0);
    assert_float_equal(ys[2], 7, 0);
    double bb[4];
    assert_int_equal(geo_ct_bounds(ct, -84.41375, 36.44625, -84.07792, 36.73292, bb), 0);
    assert_true(bb[0] > 730000 && bb[0] < 731000 && bb[3] > 4069000 && bb[3] < 4070000);
    geo_ct_free(ct);
    geo_ct_free(ident);
    geo_ct_free(NULL);
    free(geo);
    free(utm);
    trv_ctx_free(ctx);
}

/* geo_ct_line_part against geo_ct_line, bit for bit: every point of
 * windows [k0, k1) that start and end on, beside and between the anchors
 * (0, 31, 32, 33, ...), on lines of 1 to 1000 points (short lines are
 * transformed exactly; long ones by 32-point intervals, the last one
 * shorter), at tolerances where every, some and no interval is linear,
 * and through the identity; a window outside the line is an error. */
static void test_ct_line_part(void **state)
{
    (void)state;
    trv_ctx *ctx = trv_ctx_new();
    char *geo = geographic_wkt(), *utm = wkt_of("EPSG:32616");
    geo_ct *ct = NULL, *ident = NULL;
    assert_int_equal(geo_ct_create(ctx, geo, utm, &ct), TRV_OK);
    assert_int_equal(geo_ct_create(ctx, utm, utm, &ident), TRV_OK);
    enum { N = 1000 };
    static double xs[N], ys[N], px[N], py[N];
    static int ok[N], pok[N];
    const int ns[6] = {1, 64, 65, 97, 403, N}, cuts[] = {0, 1, 31, 32, 33, 63, 64, 65, 95, 96, 100, 127, 128, 129,
                                                         200, 255, 256, 300, 383, 384, 385, 402, 403, 700, 999, 1000};
    const double tols[3] = {1e-9, 3e-3, 1.0};
    size_t windows = 0, differs = 0;
    for (int c = 0; c < 2; c++)
        for (int t = 0; t < 3; t++)
            for (int ni = 0; ni < 6; ni++) {
                const int n = ns[ni];
                geo_ct *use = c ? ident : ct;
                const double x0 = c ? 730000.5 : -84.4133, dx = c ? 10 : 0.00083333, y = c ? 4060000 : 36.7325;
                assert_int_equal(geo_ct_line(ctx, use, x0, dx, y, n, tols[t], xs, ys, ok), TRV_OK);
                for (size_t i = 0; i < sizeof cuts / sizeof *cuts; i++)
                    for (size_t j = i; j < sizeof cuts / sizeof *cuts; j++) {
                        int k0 = cuts[i], k1 = cuts[j];
                        if (k1 > n)
                            continue;
                        assert_int_equal(geo_ct_line_part(ctx, use, x0, dx, y, n, tols[t], k0, k1, px, py, pok), TRV_OK);
                        assert_memory_equal(px, xs + k0, (size_t)(k1 - k0) * sizeof *px);
                        assert_memory_equal(py, ys + k0, (size_t)(k1 - k0) * sizeof *py);
                        assert_memory_equal(pok, ok + k0, (size_t)(k1 - k0) * sizeof *pok);
                        windows++;
                    }
                for (int k = 0; k < n; k++) /* the line differs from x0 + k dx: it was transformed */
                    differs += xs[k] != x0 + k * dx;
            }
    printf("  line parts: %zu windows equal to the whole line's points to the bit\n", windows);
    assert_true(windows > 1000 && differs > 0);
    assert_int_equal(geo_ct_line_part(ctx, ct, 0, 1, 0, 10, 0, 5, 11, px, py, pok), TRV_ERR_INTERNAL);
    assert_int_equal(geo_ct_line_part(ctx, ct, 0, 1, 0, 10, 0, -1, 3, px, py, pok), TRV_ERR_INTERNAL);
    assert_int_equal(geo_ct_line_part(ctx, ct, 0, 1, 0, 10, 0, 4, 3, px, py, pok), TRV_ERR_INTERNAL);
    geo_ct_free(ct);
    geo_ct_free(ident);
    free(geo);
    free(utm);
    trv_ctx_free(ctx);
}

static void test_grid_compare(void **state)
{
    (void)state;
    trv_ctx *ctx = trv_ctx_new();
    char *utm = wkt_of("EPSG:32616"), *utm17 = wkt_of("EPSG:32617");
    geo_grid a = grid(100, 80, 730000, 4069000, 30, utm);
    geo_grid b = a;
    assert_int_equal(geo_grid_compare(ctx, &a, "a.tif", &b, "b.tif"), TRV_OK);
    b.wkt = utm17;
    assert_int_equal(geo_grid_compare(ctx, &a, "a.tif", &b, "b.tif"), TRV_ERR_GRID);
    assert_string_equal(trv_errmsg(ctx), "'b.tif' does not match 'a.tif': CRS EPSG:32617 vs EPSG:32616");
    b = a;
    b.gt[1] = 10;
    b.gt[5] = -10;
    assert_int_equal(geo_grid_compare(ctx, &a, "a.tif", &b, "b.tif"), TRV_ERR_GRID);
    assert_string_equal(trv_errmsg(ctx), "'b.tif' does not match 'a.tif': cell size 10 x 10 vs 30 x 30");
    b = a;
    b.gt[0] += 15;
    assert_int_equal(geo_grid_compare(ctx, &a, "a.tif", &b, "b.tif"), TRV_ERR_GRID);
    assert_string_equal(trv_errmsg(ctx), "'b.tif' does not match 'a.tif': origin (730015.000000, 4069000.000000) vs "
                                         "(730000.000000, 4069000.000000)");
    b = a;
    b.ny = 81;
    assert_int_equal(geo_grid_compare(ctx, &a, "a.tif", &b, "b.tif"), TRV_ERR_GRID);
    assert_string_equal(trv_errmsg(ctx), "'b.tif' does not match 'a.tif': size 100 x 81 vs 100 x 80");
    b = a;
    b.wkt = NULL;
    assert_int_equal(geo_grid_compare(ctx, &a, "a.tif", &b, "b.tif"), TRV_ERR_GRID);
    assert_contains(trv_errmsg(ctx), "CRS none vs EPSG:32616");
    free(utm);
    free(utm17);
    trv_ctx_free(ctx);
}

/* ---- class tables and GeoTIFF I/O ---- */

static void test_classes(void **state)
{
    (void)state;
    trv_ctx *ctx = trv_ctx_new();
    geo_classes *cl = NULL;
    char *p = write_file(tmpdir, "c.csv", "code,name,color\n1,water,#0000ff\n3,forest,\n");
    assert_int_equal(geo_classes_read(ctx, p, &cl), TRV_ERR_FORMAT);
    assert_contains(trv_errmsg(ctx), "c.csv:3: colour '' is not #rrggbb");
    free(p);
    p = write_file(tmpdir, "c.csv", "code,name\n1,water\n1,forest\n");
    assert_int_equal(geo_classes_read(ctx, p, &cl), TRV_ERR_FORMAT);
    assert_contains(trv_errmsg(ctx), "c.csv:3: class code 1 repeated");
    free(p);
    p = write_file(tmpdir, "c.csv", "code,name\n0,none\n");
    assert_int_equal(geo_classes_read(ctx, p, &cl), TRV_ERR_FORMAT);
    assert_contains(trv_errmsg(ctx), "class code 0 must be an integer in 1..254");
    free(p);
    p = write_file(tmpdir, "c.csv", "code,name,color\n2,water,#0a0B0c\n7,forest,#00ff00\n");
    assert_int_equal(geo_classes_read(ctx, p, &cl), TRV_OK);
    assert_int_equal(cl->n, 2);
    assert_int_equal(geo_classes_find(cl, 7), 1);
    assert_int_equal(geo_classes_find(cl, 3), -1);
    assert_int_equal(cl->c[0].rgb[0], 10);
    assert_int_equal(cl->c[0].rgb[1], 11);
    assert_int_equal(cl->c[0].rgb[2], 12);
    assert_string_equal(cl->c[1].name, "forest");
    geo_classes_free(cl);
    geo_classes_free(NULL);
    free(p);
    trv_ctx_free(ctx);
}

static void test_geotiff_roundtrip(void **state)
{
    (void)state;
    trv_ctx *ctx = trv_ctx_new();
    char *utm = wkt_of("EPSG:32616");
    geo_grid g = grid(300, 200, 730000, 4069000, 30, utm);
    geo_classes *cl = NULL;
    char *csv = write_file(tmpdir, "lu.csv", "code,name,color\n1,water,#3a7bd5\n2,forest,#2e7d32\n");
    assert_int_equal(geo_classes_read(ctx, csv, &cl), TRV_OK);
    geo_raster *r = NULL;
    assert_int_equal(geo_raster_new(ctx, &g, GEO_U8, &r), TRV_OK);
    for (int i = 0; i < g.nx * g.ny; i++)
        r->u8[i] = (unsigned char)(i % 3);
    r->has_nodata = 1;
    r->nodata = 0;
    r->classes = cl;
    assert_int_equal(geo_raster_set_label(ctx, r, "land use", NULL), TRV_OK);
    trv_meta meta;
    const char *argv[] = {"trv-x", "--seed", "9"};
    trv_meta_init(&meta, "trv-x", 3, (char **)argv);
    meta.has_seed = 1;
    meta.seed = 9;
    char path[600];
    snprintf(path, sizeof path, "%s/lu.tif", tmpdir);
    assert_int_equal(geo_raster_write(ctx, r, path, &meta), TRV_OK);

    GDALDatasetH ds = GDALOpen(path, GA_ReadOnly);
    assert_non_null(ds);
    GDALRasterBandH b = GDALGetRasterBand(ds, 1);
    int bx, by, has;
    GDALGetBlockSize(b, &bx, &by);
    assert_int_equal(bx, 256);
    assert_int_equal(by, 256);
    assert_string_equal(GDALGetMetadataItem(ds, "COMPRESSION", "IMAGE_STRUCTURE"), "DEFLATE");
    assert_string_equal(GDALGetMetadataItem(ds, "TRV_TOOL", NULL), "trv-x");
    assert_string_equal(GDALGetMetadataItem(ds, "TRV_ARGS", NULL), "trv-x --seed 9");
    assert_string_equal(GDALGetMetadataItem(ds, "TRV_SEED", NULL), "9");
    assert_string_equal(GDALGetMetadataItem(ds, "TRV_VERSION", NULL), TRV_VERSION);
    assert_float_equal(GDALGetRasterNoDataValue(b, &has), 0, 0);
    assert_true(has);
    assert_string_equal(GDALGetDescription(b), "land use");
    GDALColorTableH ct = GDALGetRasterColorTable(b);
    assert_non_null(ct);
    const GDALColorEntry *e = GDALGetColorEntry(ct, 2);
    assert_int_equal(e->c1, 0x2e);
    assert_int_equal(e->c2, 0x7d);
    assert_int_equal(e->c3, 0x32);
    assert_int_equal(e->c4, 255);
    assert_int_equal(GDALGetColorEntry(ct, 0)->c4, 0); /* nodata transparent */
    char **names = GDALGetRasterCategoryNames(b);
    assert_non_null(names);
    assert_string_equal(names[1], "water");
    assert_string_equal(names[2], "forest");
    char *wkt_back = NULL;
    OSRExportToWkt(GDALGetSpatialRef(ds), &wkt_back);
    char label[64];
    assert_string_equal(geo_crs_label(wkt_back, label, sizeof label), "EPSG:32616");
    CPLFree(wkt_back);
    GDALClose(ds);

    geo_raster *back = NULL;
    assert_int_equal(geo_raster_read(ctx, path, GEO_U8, &back), TRV_OK);
    assert_int_equal(geo_grid_compare(ctx, &g, "a", &back->grid, "b"), TRV_OK);
    assert_memory_equal(back->u8, r->u8, (size_t)g.nx * g.ny);
    geo_raster_free(back);

    /* Float32 with a unit; reading as Float32 keeps values and nodata */
    geo_raster *f = NULL;
    assert_int_equal(geo_raster_new(ctx, &g, GEO_F32, &f), TRV_OK);
    for (int i = 0; i < g.nx * g.ny; i++)
        f->f32[i] = i % 7 == 0 ? -9999.0f : (float)i * 0.25f;
    f->has_nodata = 1;
    f->nodata = -9999;
    assert_int_equal(geo_raster_set_label(ctx, f, "slope", "degree"), TRV_OK);
    snprintf(path, sizeof path, "%s/f.tif", tmpdir);
    assert_int_equal(geo_raster_write(ctx, f, path, NULL), TRV_OK);
    assert_int_equal(geo_raster_read(ctx, path, GEO_F32, &back), TRV_OK);
    assert_memory_equal(back->f32, f->f32, sizeof(float) * g.nx * g.ny);
    assert_string_equal(back->unit, "degree");
    assert_string_equal(back->desc, "slope");
    assert_int_equal(geo_raster_count_valid(back), g.nx * g.ny - (g.nx * g.ny + 6) / 7);
    /* any valid: cell 0 is nodata; then every cell nodata but the last, then none */
    assert_int_equal(geo_raster_any_valid(back), 1);
    for (int i = 0; i < g.nx * g.ny - 1; i++)
        back->f32[i] = -9999.0f;
    assert_int_equal(geo_raster_any_valid(back), 1);
    back->f32[g.nx * g.ny - 1] = -9999.0f;
    assert_int_equal(geo_raster_any_valid(back), 0);
    geo_raster_free(back);

    /* errors name the file */
    assert_int_equal(geo_raster_read(ctx, "/nonexistent/x.tif", GEO_F32, &back), TRV_ERR_IO);
    assert_contains(trv_errmsg(ctx), "cannot open '/nonexistent/x.tif'");
    char *junk = write_file(tmpdir, "junk.tif", "this is not a GeoTIFF\n");
    assert_int_equal(geo_raster_read(ctx, junk, GEO_F32, &back), TRV_ERR_IO);
    assert_contains(trv_errmsg(ctx), "junk.tif");
    free(junk);
    assert_int_equal(geo_raster_write(ctx, f, "/nonexistent/dir/f.tif", NULL), TRV_ERR_IO);
    assert_contains(trv_errmsg(ctx), "cannot create '/nonexistent/dir/f.tif'");
    geo_raster_free(f);
    geo_raster_free(r);
    geo_raster_free(NULL);
    geo_classes_free(cl);
    free(csv);
    free(utm);
    trv_ctx_free(ctx);
}

/* ---- categorical alignment, hand-built ---- */

/* A 3 x 3 source of 10 m cells at (1000, 2000), codes row by row. */
static geo_raster *src3x3(trv_ctx *ctx, char *wkt, const unsigned char codes[9])
{
    geo_grid g = grid(3, 3, 1000, 2000, 10, wkt);
    geo_raster *r = NULL;
    assert_int_equal(geo_raster_new(ctx, &g, GEO_U8, &r), TRV_OK);
    memcpy(r->u8, codes, 9);
    r->has_nodata = 1;
    r->nodata = 0;
    return r;
}

static int mode_of(trv_ctx *ctx, char *wkt, const unsigned char codes[9])
{
    geo_raster *s = src3x3(ctx, wkt, codes), *out = NULL;
    geo_grid one = grid(1, 1, 1000, 2000, 30, wkt); /* one cell over all nine */
    assert_int_equal(geo_align_categorical(ctx, s, &one, GEO_MODE, &out), TRV_OK);
    int v = out->u8[0];
    geo_raster_free(s);
    geo_raster_free(out);
    return v;
}

/* Windows of a tiled GeoTIFF (blocks of 256, partial at the east and south
 * edges): a window that is one whole block (read past GDAL's block cache)
 * and windows that are not (GDALRasterIO) give the values written, a
 * non-finite cell as nodata, and leave the other cells as they were. */
static void test_read_window(void **state)
{
    (void)state;
    trv_ctx *ctx = trv_ctx_new();
    char *utm = wkt_of("EPSG:32616");
    geo_grid g = grid(600, 530, 730000, 4069000, 30, utm);
    geo_raster *w = NULL, *r = NULL;
    assert_int_equal(geo_raster_new(ctx, &g, GEO_F32, &w), TRV_OK);
    w->has_nodata = 1;
    w->nodata = -9999;
    for (int i = 0; i < g.nx * g.ny; i++)
        w->f32[i] = (float)(i % 977) * 0.25f - 7;
    w->f32[3] = NAN, w->f32[256 * 600 + 300] = INFINITY, w->f32[599 * 1 + 529 * 600] = -INFINITY;
    char path[600];
    snprintf(path, sizeof path, "%s/win.tif", tmpdir);
    assert_int_equal(geo_raster_write(ctx, w, path, NULL), TRV_OK);
    w->f32[3] = w->f32[256 * 600 + 300] = w->f32[599 * 1 + 529 * 600] = -9999;
    geo_raster_src *s = NULL;
    assert_int_equal(geo_raster_open(ctx, path, GEO_F32, &s), TRV_OK);
    assert_int_equal(geo_raster_src_alloc(ctx, s, &r), TRV_OK);
    /* the blocks (0, 1) and (2, 2) (partial: 88 x 18), then windows across blocks */
    static const int win[][4] = {{0, 256, 256, 256}, {512, 512, 88, 18}, {250, 10, 20, 300}, {0, 0, 256, 255}};
    for (int k = 0; k < 4; k++) {
        const int *b = win[k];
        for (int i = 0; i < g.nx * g.ny; i++)
            r->f32[i] = 12345;
        assert_int_equal(geo_raster_read_window(ctx, s, r, b[0], b[1], b[2], b[3]), TRV_OK);
        long bad = 0;
        for (int y = 0; y < g.ny; y++)
            for (int x = 0; x < g.nx; x++) {
                int in = x >= b[0] && x < b[0] + b[2] && y >= b[1] && y < b[1] + b[3];
                float want = in ? w->f32[y * g.nx + x] : 12345;
                bad += memcmp(&r->f32[y * g.nx + x], &want, sizeof want) != 0;
            }
        if (bad)
            fail_msg("window %d, %d, %d x %d: %ld cells differ", b[0], b[1], b[2], b[3], bad);
    }
    assert_int_equal(geo_raster_read_window(ctx, s, r, 512, 512, 89, 18), TRV_ERR_INTERNAL);
    geo_raster_close(s);
    geo_raster_free(r);
    geo_raster_free(w);
    free(utm);
    trv_ctx_free(ctx);
}

static void test_align_hand(void **state)
{
    (void)state;
    trv_ctx *ctx = trv_ctx_new();
    char *utm = wkt_of("EPSG:32616");
    /* majority: five 1s of nine */
    assert_int_equal(mode_of(ctx, utm, (const unsigned char[9]){1, 1, 2, 1, 3, 2, 4, 1, 1}), 1);
    /* three-way tie 1/3/2, the centre (3) is among them: centre wins */
    assert_int_equal(mode_of(ctx, utm, (const unsigned char[9]){1, 1, 1, 3, 3, 3, 2, 2, 2}), 3);
    /* tie 1/2, the centre (3) is not: the smaller code wins */
    assert_int_equal(mode_of(ctx, utm, (const unsigned char[9]){1, 1, 1, 2, 3, 4, 2, 2, 5}), 1);
    /* nodata counts like a class: five nodata cells give nodata */
    assert_int_equal(mode_of(ctx, utm, (const unsigned char[9]){0, 0, 2, 0, 0, 2, 0, 3, 3}), 0);

    /* nearest onto a finer, shifted grid: each 4 m target cell takes the
     * source cell under its centre; cells off the source are nodata */
    const unsigned char codes[9] = {1, 2, 3, 4, 5, 6, 7, 8, 9};
    geo_raster *s = src3x3(ctx, utm, codes), *out = NULL;
    geo_grid fine = grid(9, 1, 994, 1985, 4, utm); /* centres x = 996, 1000, ..., 1028; y = 1983 */
    assert_int_equal(geo_align_categorical(ctx, s, &fine, GEO_NEAREST, &out), TRV_OK);
    /* y = 1983 is in source row 1 (1990..1980): codes 4 5 6; x = 996 is off */
    const unsigned char want[9] = {0, 4, 4, 4, 5, 5, 6, 6, 6};
    assert_memory_equal(out->u8, want, 9);
    geo_raster_free(out);
    /* mode on the same fine grid equals nearest (cells are < 1/3 source cell) */
    assert_int_equal(geo_align_categorical(ctx, s, &fine, GEO_MODE, &out), TRV_OK);
    assert_memory_equal(out->u8, want, 9);
    geo_raster_free(out);
    /* a target entirely off the source is all nodata */
    geo_grid far = grid(2, 2, 5000, 5000, 10, utm);
    assert_int_equal(geo_align_categorical(ctx, s, &far, GEO_MODE, &out), TRV_OK);
    assert_int_equal(geo_raster_count_valid(out), 0);
    geo_raster_free(out);
    geo_raster_free(s);

    /* across CRSs: a geographic source of 0.01 degree cells, read by UTM
     * target cells far smaller than a source cell: each takes the source
     * cell its centre falls in, computed independently through OSR */
    char *geo = geographic_wkt();
    geo_grid gg = grid(3, 3, -84.30, 36.60, 0.01, geo);
    geo_raster *gs = NULL;
    assert_int_equal(geo_raster_new(ctx, &gg, GEO_U8, &gs), TRV_OK);
    memcpy(gs->u8, codes, 9);
    geo_grid t = grid(20, 20, 743000, 4054000, 50, utm);
    assert_int_equal(geo_align_categorical(ctx, gs, &t, GEO_NEAREST, &out), TRV_OK);
    OGRSpatialReferenceH a = OSRNewSpatialReference(utm), b = OSRNewSpatialReference(geo);
    OSRSetAxisMappingStrategy(a, OAMS_TRADITIONAL_GIS_ORDER);
    OSRSetAxisMappingStrategy(b, OAMS_TRADITIONAL_GIS_ORDER);
    OGRCoordinateTransformationH ct = OCTNewCoordinateTransformation(a, b);
    int checked = 0;
    for (int r = 0; r < 20; r++)
        for (int c = 0; c < 20; c++) {
            double x = geo_grid_x(&t, c), y = geo_grid_y(&t, r);
            assert_true(OCTTransform(ct, 1, &x, &y, NULL));
            int col = (int)floor((x + 84.30) / 0.01), row = (int)floor((36.60 - y) / 0.01);
            int expect = (col >= 0 && col < 3 && row >= 0 && row < 3) ? codes[row * 3 + col] : 0;
            assert_int_equal(out->u8[r * 20 + c], expect);
            checked += expect != 0;
        }
    assert_true(checked > 100); /* the case is not vacuous */
    OCTDestroyCoordinateTransformation(ct);
    OSRDestroySpatialReference(a);
    OSRDestroySpatialReference(b);
    geo_raster_free(out);
    geo_raster_free(gs);
    free(geo);
    free(utm);
    trv_ctx_free(ctx);
}

/* ---- categorical alignment on Jacksboro: class areas preserved ---- */

/* Area fraction of each class of the source file over the part of the
 * target grid that the source covers, computed from the source cells
 * themselves (each weighted by its true area: cos(latitude) for
 * geographic cells), against the aligned layer's cell counts over the
 * same part (target cells whose centre lies on the source). */
static void check_fractions(const char *rel, const geo_grid *target)
{
    trv_ctx *ctx = trv_ctx_new();
    char *path = data_path(rel);
    geo_raster *src = NULL, *out = NULL;
    assert_int_equal(geo_raster_read(ctx, path, GEO_U8, &src), TRV_OK);
    assert_int_equal(geo_align_categorical(ctx, src, target, GEO_MODE, &out), TRV_OK);
    int geographic = geo_crs_is_geographic(src->grid.wkt);
    OGRSpatialReferenceH a = OSRNewSpatialReference(src->grid.wkt), b = OSRNewSpatialReference(target->wkt);
    OSRSetAxisMappingStrategy(a, OAMS_TRADITIONAL_GIS_ORDER);
    OSRSetAxisMappingStrategy(b, OAMS_TRADITIONAL_GIS_ORDER);
    OGRCoordinateTransformationH ct = OCTNewCoordinateTransformation(a, b);
    double area[256] = {0}, total = 0;
    double xmin = target->gt[0], xmax = xmin + target->nx * target->gt[1];
    double ymax = target->gt[3], ymin = ymax + target->ny * target->gt[5];
    for (int r = 0; r < src->grid.ny; r++)
        for (int c = 0; c < src->grid.nx; c++) {
            double x = geo_grid_x(&src->grid, c), y = geo_grid_y(&src->grid, r);
            double w = geographic ? cos(y * M_PI / 180) : 1;
            assert_true(OCTTransform(ct, 1, &x, &y, NULL));
            if (x < xmin || x >= xmax || y < ymin || y >= ymax)
                continue;
            area[src->u8[(size_t)r * src->grid.nx + c]] += w;
            total += w;
        }
    OGRCoordinateTransformationH back = OCTNewCoordinateTransformation(b, a);
    const double *sg = src->grid.gt;
    size_t count[256] = {0}, n = 0;
    for (int r = 0; r < target->ny; r++)
        for (int c = 0; c < target->nx; c++) {
            double x = geo_grid_x(target, c), y = geo_grid_y(target, r);
            assert_true(OCTTransform(back, 1, &x, &y, NULL));
            double fc = (x - sg[0]) / sg[1], fr = (y - sg[3]) / sg[5];
            if (fc < 0 || fr < 0 || fc >= src->grid.nx || fr >= src->grid.ny)
                continue;
            count[out->u8[(size_t)r * target->nx + c]]++;
            n++;
        }
    OCTDestroyCoordinateTransformation(back);
    for (int k = 0; k < 256; k++) {
        double fs = area[k] / total, fa = (double)count[k] / (double)n;
        if (fs > 0 || fa > 0)
            printf("  %s class %d: source %.4f aligned %.4f\n", rel, k, fs, fa);
        assert_true(fabs(fs - fa) <= 0.01);
    }
    OCTDestroyCoordinateTransformation(ct);
    OSRDestroySpatialReference(a);
    OSRDestroySpatialReference(b);
    geo_raster_free(src);
    geo_raster_free(out);
    free(path);
    trv_ctx_free(ctx);
}

static void test_align_jacksboro(void **state)
{
    (void)state;
    char *utm = wkt_of("EPSG:32616");
    /* the 30 m UTM grid of the demo */
    geo_grid g30 = grid(1034, 1088, 730920, 4069290, 30, utm);
    check_fractions("jacksboro/soil_7p5arcsec.tif", &g30);
    check_fractions("jacksboro/landuse_30m_utm16n.tif", &g30);

    /* On a coarser 90 m grid a majority filter is not area-preserving by
     * nature (the dominant class grows); there the reference is gdalwarp
     * -r mode on the same grid. The two differ by definition where partly
     * covered source cells decide: gdalwarp counts every source cell in a
     * target cell's window once, we weight by the area covered (the grids
     * here are offset by 19.2 m, so every target cell cuts source cells).
     * Measured agreement: 95.9 %. */
    geo_grid g90 = grid(344, 362, 730920, 4069290, 90, utm);
    char *lu = data_path("jacksboro/landuse_30m_utm16n.tif");
    char cmd[2048], p[600];
    snprintf(p, sizeof p, "%s/lu90.tif", tmpdir);
    snprintf(cmd, sizeof cmd, "gdalwarp -q -overwrite -r mode -te 730920 4036710 761880 4069290 -tr 90 90 '%s' %s", lu, p);
    assert_int_equal(system(cmd), 0);
    trv_ctx *ctx = trv_ctx_new();
    geo_raster *src = NULL, *ours = NULL, *ref = NULL;
    assert_int_equal(geo_raster_read(ctx, lu, GEO_U8, &src), TRV_OK);
    assert_int_equal(geo_align_categorical(ctx, src, &g90, GEO_MODE, &ours), TRV_OK);
    assert_int_equal(geo_raster_read(ctx, p, GEO_U8, &ref), TRV_OK);
    assert_int_equal(geo_grid_compare(ctx, &g90, "ours", &ref->grid, "gdalwarp"), TRV_OK);
    size_t n = (size_t)g90.nx * g90.ny, same = 0, both = 0;
    for (size_t i = 0; i < n; i++)
        if (ours->u8[i] && ref->u8[i]) {
            both++;
            same += ours->u8[i] == ref->u8[i];
        }
    printf("  90 m majority vs gdalwarp -r mode: %.2f %% of %zu cells equal\n", 100.0 * same / both, both);
    assert_true(both > 100000);
    assert_true((double)same / both >= 0.95);
    geo_raster_free(src);
    geo_raster_free(ours);
    geo_raster_free(ref);
    trv_ctx_free(ctx);
    free(lu);
    free(utm);
}

static void test_read_categorical_errors(void **state)
{
    (void)state;
    trv_ctx *ctx = trv_ctx_new();
    char *utm = wkt_of("EPSG:32616");
    char *lu = data_path("jacksboro/landuse_30m_utm16n.tif");
    geo_raster *r = NULL;
    geo_grid far = grid(10, 10, 100000, 1000000, 30, utm);
    assert_int_equal(geo_raster_read_categorical_for(ctx, lu, &far, &r), TRV_ERR_GRID);
    assert_contains(trv_errmsg(ctx), "does not overlap the target grid");
    /* a window: only the part of the source that covers the target */
    geo_grid small = grid(10, 10, 740000, 4060000, 30, utm);
    assert_int_equal(geo_raster_read_categorical_for(ctx, lu, &small, &r), TRV_OK);
    assert_true(r->grid.nx <= 16 && r->grid.ny <= 16);
    geo_raster_free(r);
    /* class code 0 that is not nodata */
    geo_raster *z = NULL;
    geo_grid zg = grid(10, 10, 740000, 4060000, 30, utm);
    assert_int_equal(geo_raster_new(ctx, &zg, GEO_U8, &z), TRV_OK);
    char path[600];
    snprintf(path, sizeof path, "%s/zero.tif", tmpdir);
    assert_int_equal(geo_raster_write(ctx, z, path, NULL), TRV_OK);
    assert_int_equal(geo_raster_read_categorical_for(ctx, path, &small, &r), TRV_ERR_DATA);
    assert_contains(trv_errmsg(ctx), "class code 0 at column 0, row 0, but 0 is reserved for nodata");
    geo_raster_free(z);
    free(lu);
    free(utm);
    trv_ctx_free(ctx);
}

/* ---- slope ---- */

static void test_slope_hand(void **state)
{
    (void)state;
    /* 3x3 block, 1 m cells: dz/dx = ((3+12+9)-(1+8+7))/8 = 1,
     * dz/dy = ((7+16+9)-(1+4+3))/8 = 3, slope = atan(sqrt(10)) = 72.4516 deg */
    const float above[3] = {1, 2, 3}, row[3] = {4, 5, 6}, below[3] = {7, 8, 9};
    float out[3];
    geo_slope_row(above, row, below, 3, 1, -9999, 1, 1, -9999, out);
    assert_float_equal(out[1], 72.45163, 1e-4);
    /* this block is a plane, so linear extrapolation makes the edge cells exact too */
    assert_float_equal(out[0], 72.45163, 1e-4);
    assert_float_equal(out[2], 72.45163, 1e-4);
    /* 2 m by 4 m cells: dz/dx = 8/(8*2) = 0.5, dz/dy = 24/(8*4) = 0.75,
     * slope = atan(sqrt(0.8125)) = 42.0311 deg */
    geo_slope_row(above, row, below, 3, 1, -9999, 2, 4, -9999, out);
    assert_float_equal(out[1], 42.03111, 1e-4);
    /* a nodata neighbour takes the centre value: NE = 5 instead of 3:
     * dz/dx = ((5+12+9)-(1+8+7))/8 = 1.25, dz/dy = ((7+16+9)-(1+4+5))/8 = 2.75,
     * slope = atan(sqrt(1.5625+7.5625)) = atan(3.020761) = 71.6833 deg */
    const float above_nd[3] = {1, 2, -9999};
    geo_slope_row(above_nd, row, below, 3, 1, -9999, 1, 1, -9999, out);
    assert_float_equal(out[1], 71.68327, 1e-4);
    /* nodata centre gives nodata */
    const float row_nd[3] = {4, -9999, 6};
    geo_slope_row(above, row_nd, below, 3, 1, -9999, 1, 1, -9999, out);
    assert_float_equal(out[1], -9999, 0);
    /* flat */
    const float flat[3] = {7, 7, 7};
    geo_slope_row(flat, flat, flat, 3, 0, 0, 30, 30, -9999, out);
    assert_float_equal(out[1], 0, 0);
}

static void test_slope_plane(void **state)
{
    (void)state;
    /* z = 0.3 x - 0.4 y on 25 m cells: slope atan(0.5) = 26.5651 deg at
     * every cell, edges and corners included */
    trv_ctx *ctx = trv_ctx_new();
    char *utm = wkt_of("EPSG:32616");
    geo_grid g = grid(17, 11, 500000, 4000000, 25, utm);
    geo_raster *dem = NULL, *s = NULL;
    assert_int_equal(geo_raster_new(ctx, &g, GEO_F32, &dem), TRV_OK);
    dem->has_nodata = 1;
    dem->nodata = -9999;
    for (int r = 0; r < g.ny; r++)
        for (int c = 0; c < g.nx; c++)
            dem->f32[r * g.nx + c] = (float)(0.3 * 25 * c + 0.4 * 25 * r + 100);
    assert_int_equal(geo_slope(ctx, dem, &s), TRV_OK);
    for (int i = 0; i < g.nx * g.ny; i++)
        assert_float_equal(s->f32[i], atan(0.5) * 180 / M_PI, 1e-3);
    geo_raster_free(s);
    /* the same plane on a grid in US survey feet (1 ftUS = 1200/3937 m):
     * 25 m cells are 82.0208 ftUS and elevations stay in metres, so the
     * slope is atan(0.5) again; read as metres (1 unit = 1 m) the cells would
     * be 82 m long and the slope atan(0.5 * 0.3048006) = 8.67 deg */
    char *ftus = wkt_of("EPSG:2274");
    free(dem->grid.wkt);
    dem->grid = grid(17, 11, 2000000, 700000, 25 / (1200.0 / 3937.0), ftus);
    assert_int_equal(geo_slope(ctx, dem, &s), TRV_OK);
    for (int i = 0; i < g.nx * g.ny; i++)
        assert_float_equal(s->f32[i], atan(0.5) * 180 / M_PI, 1e-3);
    geo_raster_free(s);
    /* a geographic DEM is refused */
    free(dem->grid.wkt);
    dem->grid.wkt = geographic_wkt();
    assert_int_equal(geo_slope(ctx, dem, &s), TRV_ERR_CRS);
    assert_contains(trv_errmsg(ctx), "not a geographic one");
    geo_raster_free(dem);
    free(utm);
    trv_ctx_free(ctx);
}

/* Our slope against gdaldem on the Jacksboro DEM warped to 30 m UTM:
 * within 0.01 degree on the interior (gdaldem's default, which leaves the
 * edges nodata), and on every cell against gdaldem -compute_edges. */
static void test_slope_vs_gdaldem(void **state)
{
    (void)state;
    char *dem = data_path("jacksboro/dem_3arcsec.tif");
    char cmd[4096];
    snprintf(cmd, sizeof cmd,
             "gdalwarp -q -t_srs EPSG:32616 -tr 30 30 -tap -r bilinear -ot Float32 -dstnodata -32768 '%s' %s/d.tif && "
             "gdaldem slope -q %s/d.tif %s/g.tif && gdaldem slope -q -compute_edges %s/d.tif %s/ge.tif",
             dem, tmpdir, tmpdir, tmpdir, tmpdir, tmpdir);
    assert_int_equal(system(cmd), 0);
    trv_ctx *ctx = trv_ctx_new();
    geo_raster *d = NULL, *ours = NULL, *ref = NULL, *refe = NULL;
    char p[600];
    snprintf(p, sizeof p, "%s/d.tif", tmpdir);
    assert_int_equal(geo_raster_read(ctx, p, GEO_F32, &d), TRV_OK);
    assert_int_equal(geo_slope(ctx, d, &ours), TRV_OK);
    snprintf(p, sizeof p, "%s/g.tif", tmpdir);
    assert_int_equal(geo_raster_read(ctx, p, GEO_F32, &ref), TRV_OK);
    snprintf(p, sizeof p, "%s/ge.tif", tmpdir);
    assert_int_equal(geo_raster_read(ctx, p, GEO_F32, &refe), TRV_OK);
    size_t n = (size_t)d->grid.nx * d->grid.ny, compared = 0, compared_e = 0;
    double maxd = 0, maxe = 0;
    for (size_t i = 0; i < n; i++) {
        int on = geo_raster_is_nodata(ours, i);
        if (!geo_raster_is_nodata(ref, i)) {
            assert_false(on);
            maxd = fmax(maxd, fabs(ours->f32[i] - ref->f32[i]));
            compared++;
        }
        assert_int_equal(on, geo_raster_is_nodata(refe, i));
        if (!on) {
            maxe = fmax(maxe, fabs(ours->f32[i] - refe->f32[i]));
            compared_e++;
        }
    }
    printf("  slope vs gdaldem: %zu interior cells, max |diff| %.6f deg; %zu cells with edges, max %.6f deg\n",
           compared, maxd, compared_e, maxe);
    assert_true(compared > 1000000);
    assert_true(maxd <= 0.01);
    assert_true(maxe <= 0.01);
    geo_raster_free(d);
    geo_raster_free(ours);
    geo_raster_free(ref);
    geo_raster_free(refe);
    free(dem);
    trv_ctx_free(ctx);
}

/* ---- boundary cases that `make mutants` found untested (docs/testing.md):
 * the UTM hemisphere on the equator, grids that differ in one origin
 * coordinate only, the majority of a cell that covers source cells
 * unequally (the mode lattice's density); worked by hand ---- */

/* UTM's northern zones (EPSG 326zz, false northing 0) start at the
 * equator itself; the southern ones (327zz, false northing 10 000 km) are
 * for latitudes below it. 10 E is in zone floor(190 / 6) + 1 = 32;
 * -78.5 (Quito's longitude) in floor(101.5 / 6) + 1 = 17. */
static void test_utm_equator(void **state)
{
    (void)state;
    assert_int_equal(geo_utm_epsg(10.0, 0.0), 32632);
    assert_int_equal(geo_utm_epsg(10.0, -1e-9), 32732);
    assert_int_equal(geo_utm_epsg(-78.5, 0.0), 32617);
    assert_int_equal(geo_utm_epsg(-78.5, -0.2), 32717);
}

/* Two grids equal but for the northing of their origin are different
 * grids, as are two equal but for the easting (each coordinate alone). */
static void test_grid_compare_one_origin_coordinate(void **state)
{
    (void)state;
    trv_ctx *ctx = trv_ctx_new();
    char *utm = wkt_of("EPSG:32616");
    geo_grid a = grid(100, 80, 730000, 4069000, 30, utm), b = a;
    b.gt[3] -= 15;
    assert_int_equal(geo_grid_compare(ctx, &a, "a.tif", &b, "b.tif"), TRV_ERR_GRID);
    assert_string_equal(trv_errmsg(ctx), "'b.tif' does not match 'a.tif': origin (730000.000000, 4068985.000000) vs "
                                         "(730000.000000, 4069000.000000)");
    b = a;
    b.gt[0] += 15;
    assert_int_equal(geo_grid_compare(ctx, &a, "a.tif", &b, "b.tif"), TRV_ERR_GRID);
    assert_contains(trv_errmsg(ctx), "origin (730015.000000, 4069000.000000)");
    free(utm);
    trv_ctx_free(ctx);
}

/* One 16 m target cell over 10 m source cells, covering them unequally.
 * Source (3 x 3 at (1000, 2000), rows north to south):
 *     2 2 1
 *     1 3 3
 *     1 2 3
 * The target cell spans x 1002..1018 and y 1981..1997: 8 m of column 0
 * and 8 m of column 1, 7 m of row 0 (1990..1997) and 9 m of row 1
 * (1981..1990). Areas (m^2): code 2 (row 0, both columns) 56 + 56 = 112,
 * code 1 (row 1, column 0) 72, code 3 (row 1, column 1) 72, of 256. By
 * covered area the cell is code 2 (43.75 %, against 28.1 % each).
 * method.md 1.9 samples about three points per source cell across it:
 * span 1.6 source cells, s = ceil(4.8) = 5, a 5 x 5 lattice 3.2 m apart;
 * one point per source cell (s = 3) would give 3 or 1, not 2. */
static void test_mode_by_area(void **state)
{
    (void)state;
    trv_ctx *ctx = trv_ctx_new();
    char *utm = wkt_of("EPSG:32616");
    geo_grid sg = grid(3, 3, 1000, 2000, 10, utm);
    geo_raster *src = NULL, *out = NULL;
    assert_int_equal(geo_raster_new(ctx, &sg, GEO_U8, &src), TRV_OK);
    memcpy(src->u8, (const unsigned char[9]){2, 2, 1, 1, 3, 3, 1, 2, 3}, 9);
    src->has_nodata = 1;
    src->nodata = 0;
    geo_grid one = grid(1, 1, 1002, 1997, 16, utm);
    assert_int_equal(geo_align_categorical(ctx, src, &one, GEO_MODE, &out), TRV_OK);
    assert_int_equal(out->u8[0], 2);
    geo_raster_free(out);
    geo_raster_free(src);
    free(utm);
    trv_ctx_free(ctx);
}

/* ---- raster information, CRS description, Horn window ---- */

/* What geo_raster_write records, read back through geo_raster_info_read;
 * and a raster made by the gdal_translate CLI from a hand-written grid. */
static void test_raster_info(void **state)
{
    (void)state;
    trv_ctx *ctx = trv_ctx_new();
    char *utm = wkt_of("EPSG:32616");
    geo_grid g = grid(4, 3, 730000, 4069000, 30, utm);
    geo_classes *cl = NULL;
    char *csv = write_file(tmpdir, "info.csv", "code,name,color\n1,water,#3a7bd5\n3,forest,#2e7d32\n");
    assert_int_equal(geo_classes_read(ctx, csv, &cl), TRV_OK);
    geo_raster *r = NULL;
    assert_int_equal(geo_raster_new(ctx, &g, GEO_U8, &r), TRV_OK);
    const unsigned char codes[12] = {1, 1, 3, 0, 3, 3, 1, 0, 0, 1, 1, 1};
    memcpy(r->u8, codes, sizeof codes);
    r->has_nodata = 1;
    r->classes = cl;
    assert_int_equal(geo_raster_set_label(ctx, r, "land use", "class"), TRV_OK);
    trv_meta meta;
    const char *argv[] = {"trv-x", "--seed", "9"};
    trv_meta_init(&meta, "trv-x", 3, (char **)argv);
    trv_meta_add(&meta, "TRV_INPUT_DEM", "dem.tif");
    char path[600];
    snprintf(path, sizeof path, "%s/info.tif", tmpdir);
    assert_int_equal(geo_raster_write(ctx, r, path, &meta), TRV_OK);

    geo_raster_info info;
    assert_int_equal(geo_raster_info_read(ctx, path, &info), TRV_OK);
    assert_int_equal(info.grid.nx, 4);
    assert_int_equal(info.grid.ny, 3);
    assert_int_equal(info.has_gt, 1);
    assert_float_equal(info.grid.gt[0], 730000, 0);
    assert_float_equal(info.grid.gt[5], -30, 0);
    char label[64];
    assert_string_equal(geo_crs_label(info.grid.wkt, label, sizeof label), "EPSG:32616");
    assert_string_equal(info.crs.code, "32616"); /* described from the file's own CRS */
    assert_string_equal(info.crs.ellps, "EPSG:7030");
    assert_int_equal(info.crs.geographic, 0);
    assert_int_equal(info.nbands, 1);
    assert_int_equal(info.type, GEO_BAND_BYTE);
    assert_string_equal(info.type_name, "Byte");
    assert_string_equal(info.desc, "land use");
    assert_string_equal(info.unit, "class");
    assert_int_equal(info.has_nodata, 1);
    assert_float_equal(info.nodata, 0, 0);
    assert_true(info.ncolours >= 4);
    assert_int_equal(info.rgba[3][0], 0x2e);
    assert_int_equal(info.rgba[3][1], 0x7d);
    assert_int_equal(info.rgba[3][2], 0x32);
    assert_int_equal(info.rgba[3][3], 255);
    assert_int_equal(info.rgba[0][3], 0); /* nodata transparent */
    assert_true(info.ncategories >= 4);
    assert_string_equal(info.categories[1], "water");
    assert_string_equal(info.categories[2], "");
    assert_string_equal(info.categories[3], "forest");
    assert_string_equal(geo_raster_info_meta(&info, "TRV_TOOL"), "trv-x");
    assert_string_equal(geo_raster_info_meta(&info, "TRV_ARGS"), "trv-x --seed 9");
    assert_string_equal(geo_raster_info_meta(&info, "TRV_INPUT_DEM"), "dem.tif");
    assert_null(geo_raster_info_meta(&info, "TRV_TOO"));
    geo_raster_info_clear(&info);
    unsigned char present[256];
    assert_int_equal(geo_raster_codes(ctx, path, present), TRV_OK);
    for (int v = 0; v < 256; v++)
        assert_int_equal(present[v], v == 0 || v == 1 || v == 3);

    /* Float32 from gdal_translate: nodata, metadata and the range of the
     * cells that hold data */
    char *asc = write_file(tmpdir, "h.asc",
                           "ncols 3\nnrows 2\nxllcorner 500000\nyllcorner 4000000\ncellsize 10\n"
                           "NODATA_value -9999\n7.5 -9999 2.25\n-3 4 -9999\n");
    char cmd[1400];
    snprintf(cmd, sizeof cmd,
             "gdal_translate -q -ot Float32 -a_srs EPSG:32616 -mo TRV_TOOL=hand '%s' '%s/h.tif' > /dev/null 2>&1",
             asc, tmpdir);
    if (system(cmd) == 0) {
        snprintf(path, sizeof path, "%s/h.tif", tmpdir);
        assert_int_equal(geo_raster_info_read(ctx, path, &info), TRV_OK);
        assert_int_equal(info.type, GEO_BAND_OTHER);
        assert_string_equal(info.type_name, "Float32");
        assert_int_equal(info.has_nodata, 1);
        assert_float_equal(info.nodata, -9999, 0);
        assert_float_equal(info.grid.gt[3], 4000020, 0);
        assert_int_equal(info.ncolours, 0);
        assert_int_equal(info.ncategories, 0);
        assert_string_equal(info.desc, "");
        assert_string_equal(geo_raster_info_meta(&info, "TRV_TOOL"), "hand");
        geo_raster_info_clear(&info);
        double mm[2];
        int any;
        assert_int_equal(geo_raster_minmax(ctx, path, mm, &any), TRV_OK);
        assert_int_equal(any, 1);
        assert_float_equal(mm[0], -3, 0);
        assert_float_equal(mm[1], 7.5, 0);
    }
    free(asc);
    assert_int_equal(geo_raster_info_read(ctx, "/nonexistent/x.tif", &info), TRV_ERR_IO);
    assert_contains(trv_errmsg(ctx), "cannot open '/nonexistent/x.tif'");
    geo_raster_free(r);
    geo_classes_free(cl);
    free(csv);
    free(utm);
    trv_ctx_free(ctx);
}

/* The metadata a GeoPackage records (geo_vec_set_meta), read back by
 * geo_vector_meta_read; an item it lacks, and a file that is not there. */
static void test_vector_meta(void **state)
{
    (void)state;
    trv_ctx *ctx = trv_ctx_new();
    char *utm = wkt_of("EPSG:32616");
    char path[600];
    snprintf(path, sizeof path, "%s/meta.gpkg", tmpdir);
    geo_vec *v = NULL;
    assert_int_equal(geo_vec_create(ctx, path, utm, &v), TRV_OK);
    trv_meta meta;
    const char *argv[] = {"trv-y", "--seed", "4", "a b"};
    trv_meta_init(&meta, "trv-y", 4, (char **)argv);
    geo_vec_set_meta(v, &meta);
    int layer = -1;
    assert_int_equal(geo_vec_add_layer(ctx, v, "nodes", GEO_POINT, NULL, 0, &layer), TRV_OK);
    const double x = 730000, y = 4069000;
    assert_int_equal(geo_vec_add(ctx, v, layer, &x, &y, NULL, 1, NULL), TRV_OK);
    assert_int_equal(geo_vec_close(ctx, v), TRV_OK);
    char *value = NULL;
    assert_int_equal(geo_vector_meta_read(ctx, path, "TRV_ARGS", &value), TRV_OK);
    assert_string_equal(value, "trv-y --seed 4 'a b'");
    free(value);
    assert_int_equal(geo_vector_meta_read(ctx, path, "TRV_TOOL", &value), TRV_OK);
    assert_string_equal(value, "trv-y");
    free(value);
    value = (char *)1;
    assert_int_equal(geo_vector_meta_read(ctx, path, "TRV_NOTHING", &value), TRV_OK);
    assert_null(value);
    assert_int_equal(geo_vector_meta_read(ctx, "/nonexistent/x.gpkg", "TRV_ARGS", &value), TRV_ERR_IO);
    assert_null(value);
    assert_contains(trv_errmsg(ctx), "cannot open '/nonexistent/x.gpkg'");
    free(utm);
    trv_ctx_free(ctx);
}

static void test_crs_describe(void **state)
{
    (void)state;
    trv_ctx *ctx = trv_ctx_new();
    char *utm = wkt_of("EPSG:32616");
    geo_crs_desc d;
    assert_int_equal(geo_crs_describe(ctx, "EPSG:32616", &d), TRV_OK);
    assert_string_equal(d.auth, "EPSG");
    assert_string_equal(d.code, "32616");
    assert_string_equal(d.ellps, "EPSG:7030"); /* WGS 84 */
    geo_crs_desc_clear(&d);
    /* from WKT2: the same CRS, but WKT2 names only the CRS's authority */
    assert_int_equal(geo_crs_describe(ctx, utm, &d), TRV_OK);
    assert_string_equal(d.code, "32616");
    assert_string_equal(d.ellps, "");
    assert_string_equal(d.name, "WGS 84 / UTM zone 16N");
    assert_int_equal(d.geographic, 0);
    assert_contains(d.proj4, "+proj=utm +zone=16");
    assert_true(!strncmp(d.wkt2, "PROJCRS[\"WGS 84 / UTM zone 16N\"", 31));
    assert_null(strchr(d.wkt2, '\n'));
    geo_crs_desc_clear(&d);
    char *ll = geographic_wkt();
    assert_int_equal(geo_crs_describe(ctx, ll, &d), TRV_OK);
    assert_int_equal(d.geographic, 1);
    assert_string_equal(d.code, "4326");
    geo_crs_desc_clear(&d);
    assert_int_equal(geo_crs_describe(ctx, "not a crs", &d), TRV_ERR_CRS);

    /* bounds: the identity gives the box back; UTM -> lon/lat matches
     * PROJ's own proj_trans_bounds, and contains the corners */
    const double box[4] = {730000, 4050000, 740000, 4060000};
    double out[4];
    assert_int_equal(geo_crs_bounds(utm, utm, box, 21, out), 0);
    assert_memory_equal(out, box, sizeof box);
    assert_int_equal(geo_crs_bounds(utm, ll, box, 21, out), 0);
    PJ *p = proj_create_crs_to_crs(PJ_DEFAULT_CTX, "EPSG:32616", "EPSG:4326", NULL);
    PJ *pn = proj_normalize_for_visualization(PJ_DEFAULT_CTX, p);
    double ref[4];
    assert_true(proj_trans_bounds(PJ_DEFAULT_CTX, pn, PJ_FWD, box[0], box[1], box[2], box[3], &ref[0], &ref[1],
                                  &ref[2], &ref[3], 21));
    for (int k = 0; k < 4; k++)
        assert_float_equal(out[k], ref[k], 1e-9);
    PJ_COORD c = proj_trans(pn, PJ_FWD, proj_coord(box[2], box[3], 0, 0));
    assert_true(c.v[0] <= out[2] && c.v[1] <= out[3] && c.v[0] > out[0] && c.v[1] > out[1]);
    proj_destroy(pn);
    proj_destroy(p);
    free(ll);
    free(utm);
    trv_ctx_free(ctx);
}

/* Horn's differences on a plane z = 2 x - 3 y (x east, y north; cells 10 m,
 * rows from the north): every window, edges and corners included, sees
 * the plane, so gx = 8 * 2 * 10 and gy = 8 * 3 * 10 (south minus north).
 * A nodata neighbour takes the centre's value. */
static void test_horn_diff(void **state)
{
    (void)state;
    enum { NX = 4, NY = 3 };
    float z[NY][NX];
    for (int r = 0; r < NY; r++)
        for (int c = 0; c < NX; c++)
            z[r][c] = (float)(2 * 10 * c - 3 * 10 * (NY - 1 - r));
    for (int r = 0; r < NY; r++)
        for (int c = 0; c < NX; c++) {
            double gx, gy;
            geo_horn_diff(r > 0 ? z[r - 1] : NULL, z[r], r + 1 < NY ? z[r + 1] : NULL, NX, c, 0, 0, &gx, &gy);
            assert_float_equal(gx, 160, 1e-9);
            assert_float_equal(gy, 240, 1e-9);
        }
    /* the east neighbour of cell (1, 1) is nodata: it takes z[1][1] */
    float hole[NX];
    memcpy(hole, z[1], sizeof hole);
    hole[2] = -9999;
    double gx, gy;
    geo_horn_diff(z[0], hole, z[2], NX, 1, 1, -9999, &gx, &gy);
    /* east column sum: NE + 2 C + SE instead of NE + 2 E + SE: less by 2 * 20 */
    assert_float_equal(gx, 160 - 2 * 20, 1e-9);
    assert_float_equal(gy, 240, 1e-9);
}

/* The rule of method 1.8 written out for the test: the value at column c
 * of row r (off the grid extrapolated 2 z0 - z1 from the two nearest, in
 * rows first when the row itself is off), NAN when unknown or nodata. */
static double horn_ref_at(const float *z, int nx, int ny, int r, int c, float nd)
{
    if (r < 0 || r >= ny) {
        int r0 = r < 0 ? 0 : ny - 1, r1 = r < 0 ? 1 : ny - 2;
        return 2 * horn_ref_at(z, nx, ny, r0, c, nd) - horn_ref_at(z, nx, ny, r1, c, nd);
    }
    int a = c, b = c;
    if (c < 0)
        a = 0, b = 1;
    else if (c >= nx)
        a = nx - 1, b = nx - 2;
    float fa = z[(size_t)r * nx + a], fb = z[(size_t)r * nx + b];
    if (fa == nd || fb == nd)
        return NAN;
    return a == c ? fa : 2.0 * fa - fb;
}

/* geo_horn_diff on every cell of a random DEM with nodata and NaN cells,
 * edges and corners, against the rule above, bit for bit (elevations
 * 2^-30 .. 2^30 apart, so that a sum in another order would show); and
 * four windows whose sums round differently in another order (2^53 + 1 + 1
 * = 2^53 with ties to even, 1 + 1 + 2^53 = 2^53 + 2), one per sum. */
static void test_horn_diff_random(void **state)
{
    (void)state;
    enum { NX = 37, NY = 29 };
    static float z[NX * NY];
    trv_rng rng;
    trv_rng_seed(&rng, 7);
    for (int i = 0; i < NX * NY; i++) {
        z[i] = (float)ldexp(100 + 50 * trv_rng_uniform(&rng), (int)trv_rng_below(&rng, 61) - 30);
        double u = trv_rng_uniform(&rng);
        z[i] = u < 0.03 ? -9999.0f : u < 0.06 ? NAN : z[i];
    }
    long bad = 0, inner = 0;
    for (int r = 0; r < NY; r++)
        for (int c = 0; c < NX; c++) {
            double w[9], gx, gy;
            for (int k = 0; k < 9; k++) {
                w[k] = horn_ref_at(z, NX, NY, r + k / 3 - 1, c + k % 3 - 1, -9999);
                w[k] = isnan(w[k]) ? z[r * NX + c] : w[k];
            }
            double wx = (w[2] + 2 * w[5] + w[8]) - (w[0] + 2 * w[3] + w[6]);
            double wy = (w[6] + 2 * w[7] + w[8]) - (w[0] + 2 * w[1] + w[2]);
            geo_horn_diff(r > 0 ? z + (r - 1) * NX : NULL, z + r * NX, r + 1 < NY ? z + (r + 1) * NX : NULL, NX, c, 1,
                          -9999, &gx, &gy);
            bad += !(isnan(wx) && isnan(gx)) && memcmp(&wx, &gx, sizeof gx);
            bad += !(isnan(wy) && isnan(gy)) && memcmp(&wy, &gy, sizeof gy);
            inner += r > 0 && c > 0 && r + 1 < NY && c + 1 < NX && isfinite(wx);
        }
    assert_int_equal(bad, 0);
    assert_true(inner > 500);
    const float e53 = 9007199254740992.0f;
    const float win[4][9] = {{e53, 0, e53, 0, 0, 0.5f, 0, 0, 1},
                             {e53, 0, 0, 0, 0, 0, e53, 0.5f, 1},
                             {1, 0, 0, 0.5f, 0, 0, e53, 0, e53},
                             {1, 0.5f, e53, 0, 0, 0, 0, 0, e53}};
    const double want[4] = {0, 0, -2, -2};
    for (int k = 0; k < 4; k++) {
        double gx, gy;
        geo_horn_diff(win[k], win[k] + 3, win[k] + 6, 3, 1, 0, 0, &gx, &gy);
        assert_true((k % 2 ? gy : gx) == want[k]);
    }
}

/* ---- GeoTIFFs with a predictor read through libtiff (tiff_read.c) ---- */

/* A single-band GeoTIFF of nx x ny cells of type t from data, with GTiff
 * creation options opts; tiles whose index is in skip[0 .. nskip) are not
 * written (with SPARSE_OK, they stay absent from the file). */
static void write_tif(const char *path, int nx, int ny, GDALDataType t, const void *data, const char *const *opts,
                      const int *skip, int nskip)
{
    GDALDatasetH ds = GDALCreate(GDALGetDriverByName("GTiff"), path, nx, ny, 1, t, (char **)opts);
    assert_non_null(ds);
    double gt[6] = {730000, 10, 0, 4069000, 0, -10};
    char *utm = wkt_of("EPSG:32616");
    GDALSetGeoTransform(ds, gt);
    GDALSetProjection(ds, utm);
    free(utm);
    GDALRasterBandH b = GDALGetRasterBand(ds, 1);
    int size = GDALGetDataTypeSizeBytes(t), bx, by;
    GDALGetBlockSize(b, &bx, &by);
    for (int y = 0; y < ny; y += by)
        for (int x = 0; x < nx; x += bx) {
            int k = (y / by) * ((nx + bx - 1) / bx) + x / bx, skipped = 0;
            for (int j = 0; j < nskip; j++)
                skipped |= skip[j] == k;
            int w = nx - x < bx ? nx - x : bx, h = ny - y < by ? ny - y : by;
            if (!skipped)
                assert_int_equal(GDALRasterIO(b, GF_Write, x, y, w, h, (char *)data + ((size_t)y * nx + x) * size, w,
                                              h, t, size, (GSpacing)size * nx),
                                 CE_None);
        }
    GDALClose(ds);
}

/* ---- the class map's first scan by tiles (geo_cat_scan) ---- */

#define SCAN_NX 600
#define SCAN_NY 520

/* A 600 x 520 Byte class map (codes 1..3, nodata 200 on every 7th cell
 * of every 5th row), 16 x 16 DEFLATE blocks (striped: strips of 3 rows),
 * with the cells set[k] = {x, y, value}; block (cbx, cby) damaged (its
 * bytes overwritten) when cbx >= 0. */
static void write_scan_map(const char *path, const int (*set)[3], int nset, int cbx, int cby, int striped)
{
    static unsigned char c[SCAN_NX * SCAN_NY];
    for (int y = 0; y < SCAN_NY; y++)
        for (int x = 0; x < SCAN_NX; x++)
            c[y * SCAN_NX + x] = y % 5 == 0 && x % 7 == 0 ? 200 : (unsigned char)(1 + (x / 3 + y) % 3);
    for (int k = 0; k < nset; k++)
        c[set[k][1] * SCAN_NX + set[k][0]] = (unsigned char)set[k][2];
    const char *tiled[] = {"TILED=YES", "BLOCKXSIZE=16", "BLOCKYSIZE=16", "COMPRESS=DEFLATE", NULL};
    const char *strips[] = {"BLOCKYSIZE=3", "COMPRESS=DEFLATE", NULL};
    write_tif(path, SCAN_NX, SCAN_NY, GDT_Byte, c, striped ? strips : tiled, NULL, 0);
    GDALDatasetH ds = GDALOpen(path, GA_Update);
    assert_non_null(ds);
    GDALSetRasterNoDataValue(GDALGetRasterBand(ds, 1), 200);
    char key[64];
    snprintf(key, sizeof key, "BLOCK_OFFSET_%d_%d", cbx, cby);
    const char *off = cbx >= 0 ? GDALGetMetadataItem(GDALGetRasterBand(ds, 1), key, "TIFF") : NULL;
    long at = off ? atol(off) : 0;
    GDALClose(ds);
    if (cbx >= 0) {
        assert_true(at > 0);
        FILE *f = fopen(path, "r+b");
        assert_non_null(f);
        assert_int_equal(fseek(f, at, SEEK_SET), 0);
        for (int k = 0; k < 8; k++)
            fputc(0xff, f);
        fclose(f);
    }
}

/* The scan's tiles by hand: whole blocks within the size asked; a block
 * larger than asked whole; strips across the width as few rows as fit. */
static void test_cat_scan_tile(void **state)
{
    (void)state;
    static const int c[][6] = {
        {256, 256, 256, 256, 256, 256}, {256, 256, 16, 16, 256, 256}, {256, 256, 100, 100, 200, 200},
        {7, 5, 16, 16, 16, 16},         {256, 256, 512, 512, 512, 512}, {256, 256, 200002, 1, 200002, 1},
        {256, 256, 300, 1, 300, 218},   {256, 256, 300, 8, 300, 216},   {256, 256, 1, 1000, 65, 1000},
        {256, 256, 0, 0, 256, 256},     {0, 0, 16, 16, 16, 16},
    };
    for (size_t k = 0; k < sizeof c / sizeof *c; k++) {
        int tw = -1, th = -1;
        geo_cat_scan_tile(c[k][0], c[k][1], c[k][2], c[k][3], &tw, &th);
        if (tw != c[k][4] || th != c[k][5])
            fail_msg("case %zu: %d x %d, want %d x %d", k, tw, th, c[k][4], c[k][5]);
    }
}

/* The map's scan by tiles of cols x rows: its status and message (into
 * msg), and the cells with a class in *valid. */
static trv_status scan_map(const char *path, int cols, int rows, char *msg, size_t *valid)
{
    trv_ctx *ctx = trv_ctx_new();
    char *utm = wkt_of("EPSG:32616");
    geo_grid t = grid(SCAN_NX, SCAN_NY, 730000, 4069000, 10, utm);
    geo_cat_src *s = NULL;
    assert_int_equal(geo_cat_open(ctx, path, &t, &s), TRV_OK);
    assert_int_equal(geo_cat_grid(s)->nx, SCAN_NX);
    trv_status st = geo_cat_scan(ctx, s, cols, rows, valid);
    snprintf(msg, 600, "%s", st ? trv_errmsg(ctx) : "");
    geo_cat_close(s);
    free(utm);
    trv_ctx_free(ctx);
    return st;
}

/* The reference: the whole map read row by row (geo_raster_read_categorical_for). */
static trv_status read_by_rows(const char *path, char *msg)
{
    trv_ctx *ctx = trv_ctx_new();
    char *utm = wkt_of("EPSG:32616");
    geo_grid t = grid(SCAN_NX, SCAN_NY, 730000, 4069000, 10, utm);
    geo_raster *r = NULL;
    trv_status st = geo_raster_read_categorical_for(ctx, path, &t, &r);
    snprintf(msg, 600, "%s", st ? trv_errmsg(ctx) : "");
    geo_raster_free(r);
    free(utm);
    trv_ctx_free(ctx);
    return st;
}

/* Bad cells in windows other than the first, and in two windows at once:
 * the error names the row-major first bad cell (a row whose read fails
 * before any cell of that row), the one the rows' read names, at tiles of
 * 256 x 256 and four other sizes, in a tiled file and a striped one; a
 * clean map's data cells counted. */
static void test_cat_scan(void **state)
{
    (void)state;
    static const struct {
        int set[3][3], nset, cbx, cby;
        const char *want;
    } cases[] = {
        {{{0}}, 0, -1, 0, ""},
        /* the second window of the first row of tiles */
        {{{400, 10, 0}}, 1, -1, 0, "class code 0 at column 400, row 10, but"},
        /* the second window of the second row of tiles */
        {{{300, 300, 255}}, 1, -1, 0, "value 255 at column 300, row 300 is not a class code"},
        /* two windows: the first window's is lower, the second's named */
        {{{10, 100, 0}, {500, 40, 255}}, 2, -1, 0, "value 255 at column 500, row 40 is"},
        /* three windows, two on the same row: the leftmost of that row */
        {{{20, 60, 0}, {520, 50, 0}, {270, 50, 255}}, 3, -1, 0, "value 255 at column 270, row 50 is"},
        /* a damaged block (columns 480..495, rows 48..63) in the second
         * window: its first row before a bad cell lower in the first window,
         * and before one on that row */
        {{{10, 50, 0}}, 1, 30, 3, "cannot read '"},
        {{{10, 48, 0}}, 1, 30, 3, "cannot read '"},
        /* ... and after one above it */
        {{{10, 47, 0}}, 1, 30, 3, "class code 0 at column 10, row 47, but"},
    };
    static const int sizes[][2] = {{256, 256}, {7, 5}, {64, 1}, {1, 64}, {SCAN_NX, SCAN_NY}, {1000000, 1000000}};
    char path[600], msg[600], ref[600];
    snprintf(path, sizeof path, "%s/scan.tif", tmpdir);
    for (size_t c = 0; c < 2 * sizeof cases / sizeof *cases; c++) {
        /* the second time striped: strip 16 (rows 48..50) damaged */
        size_t k = c % (sizeof cases / sizeof *cases);
        int striped = c >= sizeof cases / sizeof *cases;
        write_scan_map(path, cases[k].set, cases[k].nset, striped && cases[k].cbx >= 0 ? 0 : cases[k].cbx,
                       striped ? 16 : cases[k].cby, striped);
        trv_status want_st = read_by_rows(path, ref);
        assert_int_equal(want_st, cases[k].want[0] ? (cases[k].want[0] == 'c' && cases[k].want[1] == 'a' ? TRV_ERR_FORMAT : TRV_ERR_DATA) : TRV_OK);
        assert_contains(ref, cases[k].want);
        for (size_t z = 0; z < sizeof sizes / sizeof *sizes; z++) {
            size_t valid = 0;
            assert_int_equal(scan_map(path, sizes[z][0], sizes[z][1], msg, &valid), want_st);
            assert_string_equal(msg, ref);
            if (!want_st) /* 86 columns x 104 rows hold nodata */
                assert_int_equal(valid, (size_t)SCAN_NX * SCAN_NY - 86 * 104);
        }
    }
}

/* One tile row by hand: 1.0f = 3f 80 00 00, -2.5f = c0 20 00 00; the planes
 * (most significant first) 3f c0 | 80 20 | 00 00 | 00 00, coded as the
 * differences of consecutive bytes (mod 256). */
static void test_fp_row_hand(void **state)
{
    (void)state;
    const unsigned char d[8] = {0x3f, 0x81, 0xc0, 0xa0, 0xe0, 0, 0, 0};
    float out[2] = {7, 7};
    geo_fp_row(d, 2, 2, out);
    assert_true(out[0] == 1.0f && out[1] == -2.5f);
    out[0] = out[1] = 7;
    geo_fp_row(d, 2, 1, out); /* n < w: the second sample not written */
    assert_true(out[0] == 1.0f && out[1] == 7);
    /* the third plane's start is the sum of the first two: 0x3f + 0x81 +
     * 0xc0 + 0xa0 (mod 256) = 0x20; p2 = 0x01 0x01 -> 0x21 0x22, p3 =
     * 0x5e 0 -> 0x80 0x80 */
    const unsigned char e[8] = {0x3f, 0x81, 0xc0, 0xa0, 0x01, 0x01, 0x5e, 0};
    uint32_t bits[2];
    geo_fp_row(e, 2, 2, (float *)bits);
    assert_int_equal(bits[0], 0x3f802180u);
    assert_int_equal(bits[1], 0xc0202280u);
    /* Byte: 5, 5 + 250 = 255, 255 + 3 = 2 (mod 256); n = 2 writes two */
    const unsigned char b[3] = {5, 250, 3};
    unsigned char o[3] = {9, 9, 9};
    geo_u8_row(b, 3, o);
    assert_true(o[0] == 5 && o[1] == 255 && o[2] == 2);
    o[2] = 9;
    geo_u8_row(b, 2, o);
    assert_true(o[2] == 9);
}

/* geo_tiff_read gives every bit GDAL gives (random bit patterns: every
 * byte value, NaNs with payloads, infinities, denormals), partial tiles at
 * the right and bottom; files it must leave to GDAL it refuses (0): another
 * predictor, Byte, Float64, two bands pixel-interleaved, big-endian,
 * strips, a sparse tile, another size, no file; two bands band-interleaved
 * give band 1. */
static void test_read_fp(void **state)
{
    (void)state;
    enum { NX = 600, NY = 530 };
    uint32_t *bits = malloc(NX * NY * sizeof *bits);
    float *got = malloc(NX * NY * sizeof *got), *ref = malloc(NX * NY * sizeof *ref);
    assert_true(bits && got && ref);
    uint64_t x = 88172645463325252ull;
    for (int i = 0; i < NX * NY; i++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        bits[i] = i % 3 ? (uint32_t)x : (uint32_t)(x >> 40) + 0x43000000u; /* smooth and wild */
    }
    char path[600];
    snprintf(path, sizeof path, "%s/fp.tif", tmpdir);
    const char *fp3[] = {"TILED=YES", "BLOCKXSIZE=256", "BLOCKYSIZE=256", "COMPRESS=DEFLATE", "PREDICTOR=3", NULL};
    write_tif(path, NX, NY, GDT_Float32, bits, fp3, NULL, 0);
    GDALDatasetH ds = GDALOpen(path, GA_ReadOnly);
    assert_int_equal(GDALRasterIO(GDALGetRasterBand(ds, 1), GF_Read, 0, 0, NX, NY, ref, NX, NY, GDT_Float32, 0, 0),
                     CE_None);
    GDALClose(ds);
    assert_memory_equal(ref, bits, NX * NY * sizeof *ref); /* lossless */
    memset(got, 0, NX * NY * sizeof *got);
    assert_int_equal(geo_tiff_read(path, NX, NY, GEO_F32, got), 1);
    assert_memory_equal(got, ref, NX * NY * sizeof *got);
    /* tiles 128 wide and 64 high (the last column 88 wide, the last row 18 high) */
    snprintf(path, sizeof path, "%s/fp_rect.tif", tmpdir);
    const char *rect[] = {"TILED=YES", "BLOCKXSIZE=128", "BLOCKYSIZE=64", "COMPRESS=DEFLATE", "PREDICTOR=3", NULL};
    write_tif(path, NX, NY, GDT_Float32, bits, rect, NULL, 0);
    memset(got, 0, NX * NY * sizeof *got);
    assert_int_equal(geo_tiff_read(path, NX, NY, GEO_F32, got), 1);
    assert_memory_equal(got, ref, NX * NY * sizeof *got);
    snprintf(path, sizeof path, "%s/fp.tif", tmpdir);
    assert_int_equal(geo_tiff_read(path, NX - 1, NY, GEO_F32, got), 0);
    assert_int_equal(geo_tiff_read(path, NX, NY + 1, GEO_F32, got), 0);
    /* geo_raster_read: the same, a non-finite cell as nodata */
    trv_ctx *ctx = trv_ctx_new();
    geo_raster *r = NULL;
    if (geo_raster_read(ctx, path, GEO_F32, &r))
        fail_msg("%s", trv_errmsg(ctx));
    long bad = 0;
    for (int i = 0; i < NX * NY; i++) {
        float want = isfinite(ref[i]) ? ref[i] : (float)r->nodata;
        bad += memcmp(&r->f32[i], &want, sizeof want) != 0;
    }
    assert_int_equal(bad, 0);
    geo_raster_free(r);
    /* left to GDAL */
    const char *fp2[] = {"TILED=YES", "COMPRESS=DEFLATE", "PREDICTOR=2", NULL};
    const char *big[] = {"TILED=YES", "COMPRESS=DEFLATE", "PREDICTOR=3", "ENDIANNESS=BIG", NULL};
    const char *strips[] = {"COMPRESS=DEFLATE", "PREDICTOR=3", NULL};
    const char *sparse[] = {"TILED=YES", "COMPRESS=DEFLATE", "PREDICTOR=3", "SPARSE_OK=TRUE", NULL};
    const char *const *refused[] = {fp2, big, strips, sparse};
    int skip = 4; /* sparse: the tile at (256, 256) */
    for (int k = 0; k < 4; k++) {
        snprintf(path, sizeof path, "%s/fp_no%d.tif", tmpdir, k);
        write_tif(path, NX, NY, GDT_Float32, bits, refused[k], &skip, k == 3);
        assert_int_equal(geo_tiff_read(path, NX, NY, GEO_F32, got), 0);
        assert_int_equal(geo_raster_read(ctx, path, GEO_F32, &r), TRV_OK); /* GDAL's values */
        /* values: not for big-endian (GDAL 3.6.2 with libtiff 4.5 reads
         * such a file with PREDICTOR=3 wrongly itself, 2026-11-27) nor
         * sparse (the skipped tile reads as 0) */
        for (int i = 0; i < NX * NY && (k == 0 || k == 2); i++)
            if (!(r->f32[i] == ref[i] || (!isfinite(ref[i]) && r->f32[i] == (float)r->nodata)))
                fail_msg("file %d, cell %d: %g, not %g", k, i, r->f32[i], ref[i]);
        geo_raster_free(r);
    }
    /* Byte with the horizontal predictor: read (random bytes), the same
     * file asked as Float32 refused; without a predictor, refused */
    snprintf(path, sizeof path, "%s/fp_byte.tif", tmpdir);
    const char *byte[] = {"TILED=YES", "COMPRESS=DEFLATE", "PREDICTOR=2", NULL};
    write_tif(path, NX, NY, GDT_Byte, bits, byte, NULL, 0);
    assert_int_equal(geo_tiff_read(path, NX, NY, GEO_F32, got), 0);
    unsigned char *bytes = malloc(NX * NY);
    assert_non_null(bytes);
    assert_int_equal(geo_tiff_read(path, NX, NY, GEO_U8, bytes), 1);
    assert_memory_equal(bytes, bits, NX * NY);
    assert_int_equal(geo_raster_read(ctx, path, GEO_U8, &r), TRV_OK);
    assert_memory_equal(r->u8, bits, NX * NY);
    geo_raster_free(r);
    assert_int_equal(geo_tiff_read(path, NX, NY, GEO_F32, got), 0);
    const char *byte1[] = {"TILED=YES", "COMPRESS=DEFLATE", NULL};
    write_tif(path, NX, NY, GDT_Byte, bits, byte1, NULL, 0);
    assert_int_equal(geo_tiff_read(path, NX, NY, GEO_U8, bytes), 0);
    free(bytes);
    snprintf(path, sizeof path, "%s/fp_f64.tif", tmpdir); /* Float64, predictor 3: 8 bytes a sample */
    write_tif(path, NX / 2, NY / 2, GDT_Float64, bits, fp3, NULL, 0);
    assert_int_equal(geo_tiff_read(path, NX / 2, NY / 2, GEO_F32, got), 0);
    /* two bands: pixel-interleaved (two samples a pixel), refused; band-
     * interleaved (a plane each), band 1 read (the second band zeros) */
    const char *pixel[] = {"TILED=YES", "COMPRESS=DEFLATE", "PREDICTOR=3", "INTERLEAVE=PIXEL", NULL};
    const char *band[] = {"TILED=YES", "COMPRESS=DEFLATE", "PREDICTOR=3", "INTERLEAVE=BAND", NULL};
    const char *const *inter[] = {pixel, band};
    for (int k = 0; k < 2; k++) {
        snprintf(path, sizeof path, "%s/fp_2band%d.tif", tmpdir, k);
        GDALDatasetH two = GDALCreate(GDALGetDriverByName("GTiff"), path, NX, NY, 2, GDT_Float32, (char **)inter[k]);
        assert_non_null(two);
        assert_int_equal(GDALRasterIO(GDALGetRasterBand(two, 1), GF_Write, 0, 0, NX, NY, bits, NX, NY, GDT_Float32, 0, 0),
                         CE_None);
        GDALClose(two);
        memset(got, 0, NX * NY * sizeof *got);
        assert_int_equal(geo_tiff_read(path, NX, NY, GEO_F32, got), k);
        if (k)
            assert_memory_equal(got, ref, NX * NY * sizeof *got);
    }
    snprintf(path, sizeof path, "%s/none.tif", tmpdir);
    assert_int_equal(geo_tiff_read(path, NX, NY, GEO_F32, got), 0);
    trv_ctx_free(ctx);
    free(bits);
    free(got);
    free(ref);
}

/* The Float32 nodata rule by hand: NaN always, the nodata value only
 * when the layer has one, compared as a float (-9999.0001 is -9999 in
 * Float32); other values, infinities included, are data. */
static void test_f32_nodata(void **state)
{
    (void)state;
    assert_true(geo_f32_is_nodata(NAN, 0, -9999) && geo_f32_is_nodata(NAN, 1, -9999));
    assert_true(geo_f32_is_nodata(-9999.0f, 1, -9999) && !geo_f32_is_nodata(-9999.0f, 0, -9999));
    assert_true(geo_f32_is_nodata(-9999.0f, 1, -9999.0001));
    assert_false(geo_f32_is_nodata(0.0f, 1, -9999) || geo_f32_is_nodata(INFINITY, 1, -9999) ||
                 geo_f32_is_nodata(-9998.0f, 1, -9999));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_f32_nodata),
        cmocka_unit_test(test_utm_zone),         cmocka_unit_test(test_crs_choose),
        cmocka_unit_test(test_ct_line),          cmocka_unit_test(test_ct_line_part),
        cmocka_unit_test(test_grid_compare),     cmocka_unit_test(test_classes),
        cmocka_unit_test(test_geotiff_roundtrip), cmocka_unit_test(test_align_hand),
        cmocka_unit_test(test_align_jacksboro),  cmocka_unit_test(test_read_categorical_errors),
        cmocka_unit_test(test_cat_scan),
        cmocka_unit_test(test_cat_scan_tile),
        cmocka_unit_test(test_slope_hand),       cmocka_unit_test(test_slope_plane),
        cmocka_unit_test(test_slope_vs_gdaldem),
        cmocka_unit_test(test_utm_equator),      cmocka_unit_test(test_grid_compare_one_origin_coordinate),
        cmocka_unit_test(test_mode_by_area),
        cmocka_unit_test(test_raster_info),      cmocka_unit_test(test_crs_describe),
        cmocka_unit_test(test_vector_meta),
        cmocka_unit_test(test_horn_diff),
        cmocka_unit_test(test_horn_diff_random),
        cmocka_unit_test(test_read_window),
        cmocka_unit_test(test_fp_row_hand),      cmocka_unit_test(test_read_fp),
    };
    return cmocka_run_group_tests(tests, tmpdir_setup, tmpdir_teardown);
}
