/* The console's files (src/console/files.c) and layers (layers.c): the
 * URL layout against a directory tree made here (what is served, what is
 * refused), the Content-Types, and the layers' PNGs read back through
 * GDAL's PNG driver against the rasters' own cells and colour table (one
 * pixel a cell, nodata and code 0 transparent) with index.json's extent
 * against the geotransform. */
#include "test_common.h"

#include <json-c/json.h>
#include <sys/stat.h>

#include "console/console.h"
#include "run/run.h"

static char root[64];

static void touch(const char *rel)
{
    char p[256];
    snprintf(p, sizeof p, "%s/%s", root, rel);
    FILE *f = fopen(p, "w");
    assert_non_null(f);
    fputs("x", f);
    fclose(f);
}

static int setup(void **state)
{
    (void)state;
    snprintf(root, sizeof root, "/tmp/trv-test-console-XXXXXX");
    if (!mkdtemp(root))
        return -1;
    static const char *const dirs[] = {"web", "web/js", "run", "run/sub", "lay"};
    char p[256];
    for (size_t i = 0; i < sizeof dirs / sizeof *dirs; i++) {
        snprintf(p, sizeof p, "%s/%s", root, dirs[i]);
        mkdir(p, 0755);
    }
    touch("web/console.html"), touch("web/js/a.js"), touch("run/dem.tif"), touch("lay/dem.png");
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", root);
    return system(cmd);
}

static void test_resolve(void **state)
{
    (void)state;
    char web[128], run[128], lay[128], out[512];
    snprintf(web, sizeof web, "%s/web", root), snprintf(run, sizeof run, "%s/run", root);
    snprintf(lay, sizeof lay, "%s/lay", root);
    const console_roots r = {web, NULL, NULL, run, NULL, lay};
    const struct {
        const char *url, *file; /* file NULL: refused */
    } cases[] = {
        {"/", "web/console.html"},      {"/web/console.html", "web/console.html"}, {"/web/js/a.js", "web/js/a.js"},
        {"/run/dem.tif", "run/dem.tif"}, {"/layers/dem.png", "lay/dem.png"},
        {"/web/../run/dem.tif", NULL},  {"/run/./dem.tif", NULL},  {"/run//dem.tif", NULL},
        {"/run/..", NULL},              {"/run/sub", NULL},        {"/run/sub/", NULL},
        {"/run/", NULL},                {"/run/missing.tif", NULL}, {"/sim/metrics.json", NULL},
        {"/lib/leaflet/leaflet.js", NULL}, {"/unknown/x", NULL},   {"/webx/console.html", NULL},
        {"/web", NULL},                 {"/run/dem.tif\\", NULL},  {"", NULL},
        {"/run/.hidden/../dem.tif", NULL},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        int got = console_resolve(&r, cases[i].url, out, sizeof out);
        if (got != (cases[i].file != NULL))
            fail_msg("%s: resolve gave %d", cases[i].url, got);
        if (cases[i].file) {
            char want[512];
            snprintf(want, sizeof want, "%s/%s", root, cases[i].file);
            assert_string_equal(out, want);
        }
    }
    /* a path that does not fit the buffer is refused, not cut */
    assert_int_equal(console_resolve(&r, "/run/dem.tif", out, strlen(run) + 5), 0);
}

static void test_mime(void **state)
{
    (void)state;
    const char *const cases[][2] = {
        {"a/console.html", "text/html; charset=utf-8"}, {"x.js", "application/javascript"}, {"x.css", "text/css"},
        {"p/dem.png", "image/png"},  {"index.json", "application/json"}, {"dem.tif", "image/tiff"},
        {"t.csv", "text/csv"},       {"r.geojson", "application/geo+json"}, {"e.jsonl", "application/x-ndjson"},
        {"i.svg", "image/svg+xml"},  {"README.md", "text/markdown"},
        {"tiles/0_0_0.f32", "application/octet-stream"}, {"dir.d/noext", "application/octet-stream"},
        {"x.JS", "application/octet-stream"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++)
        assert_string_equal(console_mime(cases[i][0]), cases[i][1]);
}

/* A 5 x 4 Byte class.tif with a colour table (codes 0..4) and a Float32
 * dem.tif with a nodata cell, 30 m cells from (400000, 3000120). */
static void make_run(const char *dir)
{
    GDALAllRegister();
    GDALDriverH drv = GDALGetDriverByName("GTiff");
    double gt[6] = {400000, 30, 0, 3000120, 0, -30};
    char *cp = run_path(dir, RUN_CLASS), *dp = run_path(dir, RUN_DEM);
    GDALDatasetH c = GDALCreate(drv, cp, 5, 4, 1, GDT_Byte, NULL), d = GDALCreate(drv, dp, 5, 4, 1, GDT_Float32, NULL);
    GDALSetGeoTransform(c, gt), GDALSetGeoTransform(d, gt);
    GDALColorTableH ct = GDALCreateColorTable(GPI_RGB);
    for (int k = 0; k < 5; k++) {
        GDALColorEntry e = {(short)(40 * k), (short)(200 - 30 * k), (short)(7 * k + 1), 255};
        GDALSetColorEntry(ct, k, &e);
    }
    GDALSetRasterColorTable(GDALGetRasterBand(c, 1), ct);
    GDALDestroyColorTable(ct);
    unsigned char codes[20];
    float z[20];
    for (int i = 0; i < 20; i++)
        codes[i] = (unsigned char)(i % 5), z[i] = 100.0f + i;
    z[7] = -9999;
    GDALSetRasterNoDataValue(GDALGetRasterBand(d, 1), -9999);
    GDALSetDescription(GDALGetRasterBand(d, 1), "elevation");
    GDALSetRasterUnitType(GDALGetRasterBand(d, 1), "m");
    assert_int_equal(GDALRasterIO(GDALGetRasterBand(c, 1), GF_Write, 0, 0, 5, 4, codes, 5, 4, GDT_Byte, 0, 0), CE_None);
    assert_int_equal(GDALRasterIO(GDALGetRasterBand(d, 1), GF_Write, 0, 0, 5, 4, z, 5, 4, GDT_Float32, 0, 0), CE_None);
    GDALClose(c), GDALClose(d);
    free(cp), free(dp);
}

/* The PNG's bands (RGBA) read through GDAL. */
static void read_png(const char *path, int nx, int ny, unsigned char *px)
{
    GDALDatasetH ds = GDALOpen(path, GA_ReadOnly);
    assert_non_null(ds);
    assert_int_equal(GDALGetRasterXSize(ds), nx);
    assert_int_equal(GDALGetRasterYSize(ds), ny);
    assert_int_equal(GDALGetRasterCount(ds), 4);
    for (int b = 0; b < 4; b++)
        assert_int_equal(GDALRasterIO(GDALGetRasterBand(ds, b + 1), GF_Read, 0, 0, nx, ny, px + b * nx * ny, nx, ny,
                                      GDT_Byte, 0, 0), CE_None);
    GDALClose(ds);
}

static void test_layers(void **state)
{
    (void)state;
    char dir[128], out[128], p[256];
    snprintf(dir, sizeof dir, "%s/terrain", root), snprintf(out, sizeof out, "%s/layers", root);
    mkdir(dir, 0755), mkdir(out, 0755);
    make_run(dir);
    trv_ctx *ctx = trv_ctx_new();
    assert_int_equal(console_layers_write(ctx, dir, out), TRV_OK);
    unsigned char px[4 * 20];
    snprintf(p, sizeof p, "%s/class.png", out);
    read_png(p, 5, 4, px);
    for (int i = 0; i < 20; i++) {
        int k = i % 5;
        unsigned char want[4] = {(unsigned char)(40 * k), (unsigned char)(200 - 30 * k), (unsigned char)(7 * k + 1), 255};
        for (int b = 0; b < 4; b++)
            if (k == 0 ? b == 3 && px[b * 20 + i] != 0 : px[b * 20 + i] != want[b])
                fail_msg("class.png cell %d band %d: %d", i, b, px[b * 20 + i]);
    }
    snprintf(p, sizeof p, "%s/dem.png", out);
    read_png(p, 5, 4, px);
    for (int i = 0; i < 20; i++)
        assert_int_equal(px[3 * 20 + i], i == 7 ? 0 : 255);
    /* the elevation palette runs from its first colour at the lowest cell
     * to its last at the highest: the two differ */
    assert_true(memcmp((unsigned char[]){px[0], px[20], px[40]}, (unsigned char[]){px[19], px[39], px[59]}, 3));
    snprintf(p, sizeof p, "%s/index.json", out);
    json_object *idx = json_object_from_file(p), *layers, *ext;
    assert_non_null(idx);
    assert_true(json_object_object_get_ex(idx, "layers", &layers));
    assert_int_equal(json_object_array_length(layers), 2); /* dem, class: the ones present, in that order */
    for (int k = 0; k < 2; k++) {
        json_object *l = json_object_array_get_idx(layers, k), *name;
        json_object_object_get_ex(l, "name", &name);
        assert_string_equal(json_object_get_string(name), k ? "class" : "dem");
        assert_true(json_object_object_get_ex(l, "extent", &ext));
        const double want[4] = {400000, 3000000, 400150, 3000120};
        for (int i = 0; i < 4; i++)
            assert_true(json_object_get_double(json_object_array_get_idx(ext, i)) == want[i]);
    }
    json_object_put(idx);
    trv_ctx_free(ctx);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_resolve),
        cmocka_unit_test(test_mime),
        cmocka_unit_test(test_layers),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
