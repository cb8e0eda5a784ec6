/* Render: palettes (exact stops and interpolation), the automatic choice,
 * Horn hillshade (a plane against the closed form n.L, edges included, and
 * gdaldem hillshade -compute_edges on a 90 m Jacksboro DEM), PNG maps read
 * back with libpng (size, categorical colours equal to the colour table,
 * continuous colours equal to the palette, shaded ones to the palette
 * times the closed-form shade), determinism, errors, QML
 * documents (well-formed, ramp items), GeoPackage layer_styles. */
#include "test_common.h"

#include <math.h>
#include <png.h>
#include <sys/stat.h>

#include <gdal.h>
#include <ogr_api.h>
#include <ogr_srs_api.h>
#include <cpl_conv.h>

#include "qgis/qgis.h"
#include "render/render.h"
#include "report/report.h"


#define assert_near(a, b, eps)                                                                              \
    do {                                                                                                     \
        double a_ = (a), b_ = (b);                                                                           \
        if (!(fabs(a_ - b_) <= (eps)))                                                                       \
            fail_msg("%.9g is not within %g of %.9g", a_, (double)(eps), b_);                                \
    } while (0)

static char *utm_wkt(void)
{
    trv_ctx *ctx = trv_ctx_new();
    char *wkt = NULL;
    assert_int_equal(geo_crs_wkt(ctx, "EPSG:32616", &wkt), TRV_OK);
    trv_ctx_free(ctx);
    return wkt;
}

static char *tmp_path(const char *name)
{
    char *p = NULL;
    assert_true(asprintf(&p, "%s/%s", tmpdir, name) > 0);
    return p;
}

static int exists(const char *p)
{
    struct stat sb;
    return stat(p, &sb) == 0;
}

/* ---- palettes ---- */

static void expect_rgb(const unsigned char *got, unsigned hex)
{
    assert_int_equal(got[0], hex >> 16 & 255);
    assert_int_equal(got[1], hex >> 8 & 255);
    assert_int_equal(got[2], hex & 255);
}

static void test_palette_stops(void **state)
{
    (void)state;
    unsigned char c[3];
    const rnd_palette *v = rnd_palette_find("viridis");
    assert_non_null(v);
    rnd_palette_rgb(v, 0, c);
    expect_rgb(c, 0x440154);
    rnd_palette_rgb(v, 1, c);
    expect_rgb(c, 0xfde725);
    rnd_palette_rgb(v, 0.5, c);
    expect_rgb(c, 0x21908c);
    /* halfway between the first two stops: (0x44+0x47)/2 = 69.5 -> 70, (0x01+0x2d)/2 = 23, (0x54+0x7b)/2 = 103.5 -> 104 */
    rnd_palette_rgb(v, 0.0625, c);
    assert_int_equal(c[0], 70);
    assert_int_equal(c[1], 23);
    assert_int_equal(c[2], 104);
    /* clamped outside [0, 1]; NaN takes the first stop */
    rnd_palette_rgb(v, -3, c);
    expect_rgb(c, 0x440154);
    rnd_palette_rgb(v, 7, c);
    expect_rgb(c, 0xfde725);
    rnd_palette_rgb(v, NAN, c);
    expect_rgb(c, 0x440154);
    /* cost: RdYlGn reversed, 0 green, 1 red, 0.5 the yellow middle */
    const rnd_palette *k = rnd_palette_find("cost");
    rnd_palette_rgb(k, 0, c);
    expect_rgb(c, 0x006837);
    rnd_palette_rgb(k, 1, c);
    expect_rgb(c, 0xa50026);
    rnd_palette_rgb(k, 0.5, c);
    expect_rgb(c, 0xffffbf);
    /* greys: two stops, exact linear steps */
    rnd_palette_rgb(rnd_palette_find("greys"), 0.25, c);
    assert_int_equal(c[0], 64); /* 63.75 -> 64 */
    assert_null(rnd_palette_find("nope"));
    int n = 0;
    while (rnd_palette_at(n))
        n++;
    assert_int_equal(n, 8);
}

static void test_palette_auto(void **state)
{
    (void)state;
    assert_string_equal(rnd_palette_auto("elevation", "m")->name, "terrain");
    assert_string_equal(rnd_palette_auto("slope", "degree")->name, "ylorrd");
    assert_string_equal(rnd_palette_auto("attainable speed", "km/h")->name, "viridis");
    assert_string_equal(rnd_palette_auto("mobility cost (0 best, 1 worst; NOGO 1)", NULL)->name, "cost");
    assert_string_equal(rnd_palette_auto("kriging standard deviation", "m")->name, "purples");
    assert_string_equal(rnd_palette_auto("something", NULL)->name, "viridis");
    assert_string_equal(rnd_palette_auto(NULL, NULL)->name, "viridis");
    double lo, hi;
    rnd_layer_range("mobility cost", NULL, 0.2, 0.9, &lo, &hi);
    assert_true(lo == 0 && hi == 1);
    rnd_layer_range("slope", "degree", 0.5, 40, &lo, &hi);
    assert_true(lo == 0 && hi == 40);
    rnd_layer_range("elevation", "m", 234, 1076, &lo, &hi);
    assert_true(lo == 234 && hi == 1076);
    rnd_layer_range("elevation", "m", 5, 5, &lo, &hi);
    assert_true(lo == 5 && hi == 6);
    unsigned char a[3], b[3];
    assert_int_equal(rnd_route_rgb("mmcr", a), 0);
    assert_int_equal(rnd_route_rgb("grid-mmcr", b), 1);
    assert_memory_equal(a, b, 3);
    rnd_route_rgb("mdr", b);
    assert_memory_not_equal(a, b, 3);
}

/* ---- hillshade ---- */

static void test_hillshade_plane(void **state)
{
    (void)state;
    /* z = p col + q row on 30 m cells: dz/dE = p/30, dz/dN = -q/30 */
    const int nx = 7, ny = 6;
    const double cell = 30;
    const double planes[][2] = {{3, -2}, {0, 0}, {-10, 4}, {40, 40}, {0.5, 12}};
    rnd_light L;
    rnd_light_default(&L);
    assert_true(L.azimuth_deg == 315 && L.altitude_deg == 45 && L.z_factor == 1);
    for (size_t k = 0; k < sizeof planes / sizeof planes[0]; k++) {
        double p = planes[k][0], q = planes[k][1];
        float z[6][7], out[7];
        for (int r = 0; r < ny; r++)
            for (int c = 0; c < nx; c++)
                z[r][c] = (float)(500 + p * c + q * r);
        double dzde = p / cell, dzdn = -q / cell, az = L.azimuth_deg * M_PI / 180, alt = L.altitude_deg * M_PI / 180;
        /* unit normal . unit light vector (light from azimuth az, altitude alt) */
        double ndotl = (-dzde * sin(az) * cos(alt) - dzdn * cos(az) * cos(alt) + sin(alt)) /
                       sqrt(1 + dzde * dzde + dzdn * dzdn);
        double want = ndotl <= 0 ? 1 : 1 + 254 * ndotl;
        for (int r = 1; r < ny - 1; r++) {
            rnd_hillshade_row(z[r - 1], z[r], z[r + 1], nx, 0, 0, cell, -cell, &L, out);
            for (int c = 0; c < nx; c++) /* the west and east edge cells too */
                assert_near(out[c], want, 1e-3);
        }
        /* the north and south edge rows, corners included: gdaldem
         * -compute_edges extrapolates the missing neighbours linearly (2 a -
         * b), which continues a plane exactly, so the closed form holds there
         * too (measured: within 5e-6, float rounding) */
        rnd_hillshade_row(NULL, z[0], z[1], nx, 0, 0, cell, -cell, &L, out);
        for (int c = 0; c < nx; c++)
            assert_near(out[c], want, 1e-3);
        rnd_hillshade_row(z[ny - 2], z[ny - 1], NULL, nx, 0, 0, cell, -cell, &L, out);
        for (int c = 0; c < nx; c++)
            assert_near(out[c], want, 1e-3);
    }
    /* flat ground: 1 + 254 sin(45 deg) */
    float flat[3] = {100, 100, 100}, o[3];
    rnd_hillshade_row(flat, flat, flat, 3, 0, 0, 30, -30, &L, o);
    assert_near(o[1], 1 + 254 * sin(M_PI / 4), 1e-4);
    /* nodata centre */
    float nd[3] = {-9999, -9999, -9999};
    rnd_hillshade_row(flat, nd, flat, 3, 1, -9999, 30, -30, &L, o);
    assert_true(o[1] == 0);
}

static void test_hillshade_gdaldem(void **state)
{
    (void)state;
    if (!have_command("gdaldem") || !have_command("gdalwarp"))
        skip_test("gdal-bin", "gdaldem or gdalwarp (gdal-bin) not installed: hillshade not compared with gdaldem");
    char *src = data_path("jacksboro/dem_3arcsec.tif");
    char *dem = tmp_path("dem90.tif"), *ref = tmp_path("hs_gdal.tif"), *cmd = NULL;
    assert_true(asprintf(&cmd,
                         "gdalwarp -q -overwrite -t_srs EPSG:32616 -tr 90 90 -tap -r bilinear -ot Float32 "
                         "-dstnodata -9999 '%s' '%s' && gdaldem hillshade -q -compute_edges '%s' '%s'",
                         src, dem, dem, ref) > 0);
    assert_int_equal(system(cmd), 0);
    trv_ctx *ctx = trv_ctx_new();
    geo_raster *z = NULL, *g = NULL, *h = NULL;
    assert_int_equal(geo_raster_read(ctx, dem, GEO_F32, &z), TRV_OK);
    assert_int_equal(geo_raster_read(ctx, ref, GEO_F32, &g), TRV_OK);
    rnd_light L;
    rnd_light_default(&L);
    assert_int_equal(rnd_hillshade(ctx, z, &L, &h), TRV_OK);
    double maxdiff = 0;
    size_t n = 0, nz = (size_t)z->grid.nx * z->grid.ny;
    for (size_t i = 0; i < nz; i++) {
        if (geo_raster_is_nodata(z, i) || g->f32[i] == 0)
            continue;
        double d = fabs(h->f32[i] - g->f32[i]);
        maxdiff = d > maxdiff ? d : maxdiff;
        n++;
    }
    fprintf(stderr, "hillshade vs gdaldem -compute_edges: %zu cells, max |difference| %.3f (gdaldem rounds to Byte)\n",
            n, maxdiff);
    assert_true(n > 100000);
    assert_true(maxdiff <= 0.5 + 1e-3); /* 0.5: gdaldem's rounding to Byte */
    geo_raster_free(z);
    geo_raster_free(g);
    geo_raster_free(h);
    trv_ctx_free(ctx);
    free(cmd);
    free(src);
    free(dem);
    free(ref);
}

/* ---- PNG maps ---- */

typedef struct image {
    int w, h;
    unsigned char *rgb;
} image;

static void read_png(const char *path, image *im)
{
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    png_structp png = png_create_read_struct(PNG_LIBPNG_VER_STRING, NULL, NULL, NULL);
    png_infop info = png_create_info_struct(png);
    assert_false(setjmp(png_jmpbuf(png)));
    png_init_io(png, f);
    png_read_info(png, info);
    im->w = (int)png_get_image_width(png, info);
    im->h = (int)png_get_image_height(png, info);
    assert_int_equal(png_get_color_type(png, info), PNG_COLOR_TYPE_RGB);
    assert_int_equal(png_get_bit_depth(png, info), 8);
    png_timep t;
    assert_int_equal(png_get_tIME(png, info, &t), 0);
    im->rgb = malloc((size_t)im->w * im->h * 3);
    for (int y = 0; y < im->h; y++)
        png_read_row(png, im->rgb + (size_t)y * im->w * 3, NULL);
    png_read_end(png, NULL);
    png_destroy_read_struct(&png, &info, NULL);
    fclose(f);
}

static const unsigned char *px(const image *im, int x, int y) { return im->rgb + ((size_t)y * im->w + x) * 3; }

/* A 40 x 30 Byte layer: code 1 west of column 20, code 2 east of it. */
static char *write_categorical(void)
{
    trv_ctx *ctx = trv_ctx_new();
    char *wkt = utm_wkt();
    geo_grid g = {40, 30, {700000, 30, 0, 4000000, 0, -30}, wkt};
    geo_raster *r = NULL;
    assert_int_equal(geo_raster_new(ctx, &g, GEO_U8, &r), TRV_OK);
    for (int y = 0; y < 30; y++)
        for (int x = 0; x < 40; x++)
            r->u8[y * 40 + x] = x < 20 ? 1 : 2;
    r->has_nodata = 1;
    r->nodata = 0;
    char *csv = write_file(tmpdir, "cl.csv", "code,name,color\n1,dry sand,#c81e1e\n2,wet clay,#1e1ec8\n");
    geo_classes *cl = NULL;
    assert_int_equal(geo_classes_read(ctx, csv, &cl), TRV_OK);
    r->classes = cl;
    assert_int_equal(geo_raster_set_label(ctx, r, "soil type", NULL), TRV_OK);
    char *path = tmp_path("cat.tif");
    assert_int_equal(geo_raster_write(ctx, r, path, NULL), TRV_OK);
    geo_raster_free(r);
    geo_classes_free(cl);
    free(csv);
    free(wkt);
    trv_ctx_free(ctx);
    return path;
}

/* A 50 x 25 Float32 layer whose value is the column number. */
static char *write_continuous(void)
{
    trv_ctx *ctx = trv_ctx_new();
    char *wkt = utm_wkt();
    geo_grid g = {50, 25, {700000, 30, 0, 4000000, 0, -30}, wkt};
    geo_raster *r = NULL;
    assert_int_equal(geo_raster_new(ctx, &g, GEO_F32, &r), TRV_OK);
    for (int y = 0; y < 25; y++)
        for (int x = 0; x < 50; x++)
            r->f32[y * 50 + x] = y == 12 && x == 25 ? -9999.0f : (float)x;
    r->has_nodata = 1;
    r->nodata = -9999;
    assert_int_equal(geo_raster_set_label(ctx, r, "attainable speed", "km/h"), TRV_OK);
    char *path = tmp_path("cont.tif");
    assert_int_equal(geo_raster_write(ctx, r, path, NULL), TRV_OK);
    geo_raster_free(r);
    free(wkt);
    trv_ctx_free(ctx);
    return path;
}

/* ---- textures (rnd_texture_png) by tiles ---- */

enum { TX_NX = 300, TX_NY = 200 };

/* The RGBA PNG at path into px (TX_NX * TX_NY * 4). */
static void read_rgba(const char *path, unsigned char *out)
{
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    png_structp png = png_create_read_struct(PNG_LIBPNG_VER_STRING, NULL, NULL, NULL);
    png_infop info = png_create_info_struct(png);
    assert_false(setjmp(png_jmpbuf(png)));
    png_init_io(png, f);
    png_read_info(png, info);
    assert_true(png_get_image_width(png, info) == TX_NX && png_get_image_height(png, info) == TX_NY);
    assert_int_equal(png_get_color_type(png, info), PNG_COLOR_TYPE_RGBA);
    for (int y = 0; y < TX_NY; y++)
        png_read_row(png, out + (size_t)y * TX_NX * 4, NULL);
    png_read_end(png, NULL);
    png_destroy_read_struct(&png, &info, NULL);
    fclose(f);
}

/* The three layers: a DEM (a surface with nodata cells, one NaN, at tile
 * edges and the grid's), a speed layer with nodata, a Byte layer with a
 * colour table (codes 0 nodata, 1, 2, and 3 beyond the table). */
static void write_texture_layers(char *paths[3])
{
    trv_ctx *ctx = trv_ctx_new();
    char *wkt = utm_wkt();
    geo_grid g = {TX_NX, TX_NY, {700000, 30, 0, 4000000, 0, -30}, wkt};
    geo_raster *r[3] = {NULL, NULL, NULL};
    assert_int_equal(geo_raster_new(ctx, &g, GEO_F32, &r[0]), TRV_OK);
    assert_int_equal(geo_raster_new(ctx, &g, GEO_F32, &r[1]), TRV_OK);
    assert_int_equal(geo_raster_new(ctx, &g, GEO_U8, &r[2]), TRV_OK);
    for (int y = 0; y < TX_NY; y++)
        for (int x = 0; x < TX_NX; x++) {
            size_t i = (size_t)y * TX_NX + x;
            r[0]->f32[i] = (float)(100 + 30 * sin(x / 9.0) * cos(y / 7.0) + 0.2 * x + 0.01 * x * y);
            r[1]->f32[i] = (x * 7 + y * 3) % 11 == 0 ? -9999.0f : (float)((x * y) % 50) / 2;
            r[2]->u8[i] = (unsigned char)((x / 5 + y / 3) % 4);
        }
    static const int nd[][2] = {{6, 4}, {7, 5}, {255, 0}, {256, 130}, {0, 199}, {299, 100}, {12, 64}};
    for (size_t k = 0; k < sizeof nd / sizeof *nd; k++)
        r[0]->f32[(size_t)nd[k][1] * TX_NX + nd[k][0]] = -9999.0f;
    r[0]->f32[(size_t)64 * TX_NX + 128] = NAN;
    for (int k = 0; k < 3; k++)
        r[k]->has_nodata = 1, r[k]->nodata = k < 2 ? -9999 : 0;
    char *csv = write_file(tmpdir, "tex.csv", "code,name,color\n1,dry sand,#c81e1e\n2,wet clay,#1e1ec8\n");
    geo_classes *cl = NULL;
    assert_int_equal(geo_classes_read(ctx, csv, &cl), TRV_OK);
    r[2]->classes = cl;
    assert_int_equal(geo_raster_set_label(ctx, r[0], "elevation", "m"), TRV_OK);
    assert_int_equal(geo_raster_set_label(ctx, r[1], "attainable speed", "km/h"), TRV_OK);
    assert_int_equal(geo_raster_set_label(ctx, r[2], "soil type", NULL), TRV_OK);
    static const char *const names[3] = {"tex_dem.tif", "tex_speed.tif", "tex_class.tif"};
    for (int k = 0; k < 3; k++) {
        paths[k] = tmp_path(names[k]);
        assert_int_equal(geo_raster_write(ctx, r[k], paths[k], NULL), TRV_OK);
        geo_raster_free(r[k]);
    }
    geo_classes_free(cl);
    free(csv);
    free(wkt);
    trv_ctx_free(ctx);
}

/* The whole-layer reference of layer k's texture: the DEM's hillshade of
 * the whole grid, the speed's palette over the whole layer's range, the
 * classes' table. */
static void texture_reference(const char *path, int k, unsigned char *px)
{
    trv_ctx *ctx = trv_ctx_new();
    geo_raster *r = NULL, *hs = NULL;
    geo_raster_info gi;
    assert_int_equal(geo_raster_info_read(ctx, path, &gi), TRV_OK);
    assert_int_equal(geo_raster_read(ctx, path, k == 2 ? GEO_U8 : GEO_F32, &r), TRV_OK);
    rnd_light light;
    rnd_light_default(&light);
    if (k == 0)
        assert_int_equal(rnd_hillshade(ctx, r, &light, &hs), TRV_OK);
    double lo = INFINITY, hi = -INFINITY;
    for (size_t i = 0; k == 1 && i < (size_t)TX_NX * TX_NY; i++)
        if (!geo_raster_is_nodata(r, i))
            lo = fmin(lo, r->f32[i]), hi = fmax(hi, r->f32[i]);
    rnd_layer_range("attainable speed", "km/h", lo, hi, &lo, &hi);
    assert_true(k != 1 || (lo == 0 && hi == 24.5));
    for (size_t i = 0; i < (size_t)TX_NX * TX_NY; i++) {
        unsigned char *p = px + 4 * i;
        if (k == 0) {
            float v = hs->f32[i];
            p[0] = p[1] = p[2] = (unsigned char)(v > 0 ? lround(v) : 0);
            p[3] = v > 0 ? 255 : 0;
        } else if (k == 1) {
            int ok = !geo_raster_is_nodata(r, i);
            memset(p, 0, 4);
            if (ok)
                rnd_palette_rgb(rnd_palette_find("viridis"), (r->f32[i] - lo) / (hi - lo), p), p[3] = 255;
        } else {
            int c = r->u8[i], ok = c != 0 && c < gi.ncolours && gi.rgba[c][3] > 0;
            for (int q = 0; q < 3; q++)
                p[q] = ok ? gi.rgba[c][q] : 0;
            p[3] = ok ? 255 : 0;
        }
    }
    geo_raster_info_clear(&gi);
    geo_raster_free(hs);
    geo_raster_free(r);
    trv_ctx_free(ctx);
}

/* rnd_texture_png by tiles of 1 x 64, 7 x 5, 64 x 1, 13 x the height,
 * 256 x 256 and the whole grid, and strips cut by TRV_STRIP_MEM to 5,
 * 83 and 1 rows (geo_strip_rows): every pixel of the three textures equal to
 * the whole-layer reference (the hillshade across the tiles' edges and at
 * the grid's, nodata and NaN cells among them; the palette's range; the
 * colour table, a code beyond it transparent), and the same bytes at every
 * tile size; rnd_png_write and rnd_png_rows in groups the same bytes. */
static void test_texture_by_tiles(void **state)
{
    (void)state;
    char *paths[3];
    write_texture_layers(paths);
    /* columns, rows, and TRV_STRIP_MEM (300 pixels of 4 bytes a row: 6000
     * gives strips of 5 rows, 100000 of 83, 83 and 34, 0 of one) */
    static const char *const sizes[][3] = {{"1", "64", NULL},   {"7", "5", NULL},     {"64", "1", NULL},
                                           {"13", "200", NULL}, {NULL, NULL, NULL},   {"300", "200", NULL},
                                           {"7", "64", "6000"}, {NULL, NULL, "100000"}, {"300", "200", "0"}};
    unsigned char *want = malloc((size_t)TX_NX * TX_NY * 4), *got = malloc((size_t)TX_NX * TX_NY * 4);
    char *out = tmp_path("tex.png"), *first = tmp_path("tex_first.png"), *cmd = NULL;
    trv_ctx *ctx = trv_ctx_new();
    for (int k = 0; k < 3; k++) {
        texture_reference(paths[k], k, want);
        for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++) {
            if (sizes[s][0])
                setenv("TRV_BLOCK_COLS", sizes[s][0], 1), setenv("TRV_BLOCK_ROWS", sizes[s][1], 1);
            else
                unsetenv("TRV_BLOCK_COLS"), unsetenv("TRV_BLOCK_ROWS");
            if (sizes[s][2])
                setenv("TRV_STRIP_MEM", sizes[s][2], 1);
            else
                unsetenv("TRV_STRIP_MEM");
            rnd_texture_info ti;
            assert_int_equal(rnd_texture_png(ctx, paths[k], k == 0, s ? out : first, "tex.png", &ti), TRV_OK);
            assert_int_equal(ti.categorical, k == 2);
            read_rgba(s ? out : first, got);
            for (size_t i = 0; i < (size_t)TX_NX * TX_NY * 4; i++)
                if (got[i] != want[i])
                    fail_msg("layer %d, tiles %s x %s: pixel %zu, %zu channel %zu: %d, want %d", k, sizes[s][0],
                             sizes[s][1], i / 4 % TX_NX, i / 4 / TX_NX, i % 4, got[i], want[i]);
            free(cmd);
            assert_true(asprintf(&cmd, "cmp -s '%s' '%s'", out, first) > 0);
            assert_true(s == 0 || system(cmd) == 0);
        }
    }
    unsetenv("TRV_BLOCK_COLS"), unsetenv("TRV_BLOCK_ROWS"), unsetenv("TRV_STRIP_MEM");
    /* the rows in groups of 1, 7 and the rest: rnd_png_write's bytes */
    assert_int_equal(rnd_png_write(ctx, first, "t", want, TX_NX, TX_NY, 4, 6, NULL), TRV_OK);
    rnd_png *png = NULL;
    assert_int_equal(rnd_png_open(ctx, out, "t", TX_NX, TX_NY, 4, 6, NULL, &png), TRV_OK);
    assert_int_equal(rnd_png_rows(ctx, png, want, 1), TRV_OK);
    assert_int_equal(rnd_png_rows(ctx, png, want + (size_t)TX_NX * 4, 7), TRV_OK);
    assert_int_equal(rnd_png_rows(ctx, png, want + (size_t)8 * TX_NX * 4, TX_NY - 8), TRV_OK);
    assert_int_equal(rnd_png_close(ctx, png, TRV_OK), TRV_OK);
    assert_int_equal(system(cmd), 0);
    trv_ctx_free(ctx);
    for (int k = 0; k < 3; k++)
        free(paths[k]);
    free(want);
    free(got);
    free(out);
    free(first);
    free(cmd);
}

static void test_png_categorical(void **state)
{
    (void)state;
    char *layer = write_categorical(), *out = tmp_path("cat.png"), *out2 = tmp_path("cat2.png");
    trv_ctx *ctx = trv_ctx_new();
    rnd_opts o;
    rnd_opts_init(&o);
    o.layer = layer, o.output = out, o.width = 600;
    assert_int_equal(rnd_render(ctx, &o), TRV_OK);
    image im;
    read_png(out, &im);
    /* layout at width 600 (scale 0.5): margin 12, title 26, no panel (no
     * --legend), so the map is 576 x 432 at (12, 26), footer 29 */
    assert_int_equal(im.w, 600);
    assert_int_equal(im.h, 26 + 432 + 29);
    const unsigned char *w = px(&im, 12 + 576 / 4, 26 + 432 / 2), *e = px(&im, 12 + 3 * 576 / 4, 26 + 432 / 2);
    assert_int_equal(w[0], 0xc8), assert_int_equal(w[1], 0x1e), assert_int_equal(w[2], 0x1e);
    assert_int_equal(e[0], 0x1e), assert_int_equal(e[1], 0x1e), assert_int_equal(e[2], 0xc8);
    /* outside the map: white paper */
    const unsigned char *m = px(&im, 599, 100);
    assert_true(m[0] == 255 && m[1] == 255 && m[2] == 255);
    free(im.rgb);
    /* the same inputs give the same bytes */
    o.output = out2;
    assert_int_equal(rnd_render(ctx, &o), TRV_OK);
    char *cmd = NULL;
    assert_true(asprintf(&cmd, "cmp -s '%s' '%s'", out, out2) > 0);
    assert_int_equal(system(cmd), 0);
    free(cmd);
    /* with a legend the panel appears and the image keeps its width */
    o.legend = 1;
    assert_int_equal(rnd_render(ctx, &o), TRV_OK);
    read_png(out2, &im);
    assert_int_equal(im.w, 600);
    free(im.rgb);
    trv_ctx_free(ctx);
    free(layer);
    free(out);
    free(out2);
}

static void test_png_continuous(void **state)
{
    (void)state;
    char *layer = write_continuous(), *out = tmp_path("cont.png");
    trv_ctx *ctx = trv_ctx_new();
    rnd_opts o;
    rnd_opts_init(&o);
    o.layer = layer, o.output = out, o.width = 1200, o.palette = "greys";
    assert_int_equal(rnd_render(ctx, &o), TRV_OK);
    image im;
    read_png(out, &im);
    /* scale 1: margin 24, title 52, panel 260: map 868 wide at (24, 52), 434 high */
    assert_int_equal(im.w, 1200);
    const int mx = 24, my = 52, mw = 868, mh = 434;
    /* pixel i shows the mean of the columns its footprint covers; the
     * range is 0 (speed starts at 0) to 49 */
    for (int i = 10; i < mw; i += 97) {
        int c0 = (int)floor(i * 50.0 / mw + 1e-9), c1 = (int)ceil((i + 1) * 50.0 / mw - 1e-9) - 1;
        if (c1 < c0)
            c1 = c0;
        double v = 0.5 * (c0 + c1);
        unsigned char want[3];
        rnd_palette_rgb(rnd_palette_find("greys"), v / 49.0, want);
        const unsigned char *got = px(&im, mx + i, my + 3);
        assert_memory_equal(got, want, 3);
    }
    /* the nodata cell (row 12, column 25) is neutral grey */
    const unsigned char *nd = px(&im, mx + (int)(25.5 * mw / 50), my + (int)(12.5 * mh / 25));
    assert_int_equal(nd[0], 214), assert_int_equal(nd[1], 214), assert_int_equal(nd[2], 214);
    free(im.rgb);
    /* automatic palette (viridis for speed) and a hillshade from the layer
     * itself: z = column number (m) on 30 m cells, a plane rising east,
     * dz/dE = 1/30, dz/dN = 0. Its shade, the closed form n.L (as in
     * test_hillshade_plane; Horn's window and its linear extrapolation at
     * the edges reproduce a plane exactly), with the light from azimuth
     * 315, altitude 45: cos i = (dz/dE sin 45 cos 45 + sin 45) /
     * sqrt(1 + (1/30)^2) = 0.723372, shade = 1 + 254 cos i = 184.74; the
     * colour is multiplied by f = 1 - s (1 - shade / 255), s = 0.6 the
     * shading strength (render.h, render.c): f = 0.83467. Row 0 (an edge
     * row) and every column, far from the nodata cell of row 12. */
    o.palette = NULL, o.hillshade = layer;
    assert_int_equal(rnd_render(ctx, &o), TRV_OK);
    read_png(out, &im);
    assert_int_equal(im.w, 1200);
    const double az = 315 * M_PI / 180, alt = 45 * M_PI / 180, dzde = 1 / 30.0;
    const double cosi = (-dzde * sin(az) * cos(alt) + sin(alt)) / sqrt(1 + dzde * dzde);
    const double f = 1 - 0.6 * (1 - (1 + 254 * cosi) / 255);
    int worst = 0, checked = 0;
    for (int i = 1; i < mw - 1; i++) {
        /* pixels well inside one column (17.4 pixels each): their neighbours
         * on both sides in the same column, so the footprint is that column */
        int c = (int)floor((i + 0.5) * 50.0 / mw);
        if ((int)floor((i - 1) * 50.0 / mw) != c || (int)floor((i + 2) * 50.0 / mw - 1e-9) != c)
            continue;
        unsigned char base[3];
        rnd_palette_rgb(rnd_palette_find("viridis"), c / 49.0, base);
        const unsigned char *got = px(&im, mx + i, my + 3);
        for (int q = 0; q < 3; q++) {
            int d = abs((int)got[q] - (int)lround(base[q] * f));
            worst = d > worst ? d : worst;
        }
        checked++;
    }
    printf("  shaded viridis: %d pixels of row 0 (each inside a column), largest |difference| from the closed form %d\n",
           checked, worst);
    assert_true(checked > 600);
    assert_int_equal(worst, 0);
    /* the nodata cell stays neutral grey, unshaded */
    nd = px(&im, mx + (int)(25.5 * mw / 50), my + (int)(12.5 * mh / 25));
    assert_int_equal(nd[0], 214), assert_int_equal(nd[1], 214), assert_int_equal(nd[2], 214);
    free(im.rgb);
    trv_ctx_free(ctx);
    free(layer);
    free(out);
}

static void test_render_errors(void **state)
{
    (void)state;
    char *layer = write_categorical(), *out = tmp_path("err.png");
    trv_ctx *ctx = trv_ctx_new();
    rnd_opts o;
    rnd_opts_init(&o);
    o.layer = layer, o.output = out, o.palette = "rainbow";
    assert_int_equal(rnd_render(ctx, &o), TRV_ERR_USAGE);
    assert_contains(trv_errmsg(ctx), "unknown palette 'rainbow'");
    o.palette = NULL, o.width = 100;
    assert_int_equal(rnd_render(ctx, &o), TRV_ERR_USAGE);
    assert_contains(trv_errmsg(ctx), "width 100 is out of range");
    o.width = 800, o.layer = "/nonexistent/x.tif";
    assert_int_not_equal(rnd_render(ctx, &o), TRV_OK);
    assert_contains(trv_errmsg(ctx), "cannot open '/nonexistent/x.tif'");
    char *bad = write_file(tmpdir, "bad.geojson", "{ not json");
    o.layer = layer, o.overlays[0] = bad, o.noverlays = 1;
    assert_int_equal(rnd_render(ctx, &o), TRV_ERR_IO);
    assert_contains(trv_errmsg(ctx), "cannot read overlay '");
    o.noverlays = 0, o.font = "/nonexistent/font.ttf";
    assert_int_equal(rnd_render(ctx, &o), TRV_ERR_IO);
    assert_contains(trv_errmsg(ctx), "cannot open font");
    assert_false(exists(out));
    trv_ctx_free(ctx);
    free(bad);
    free(layer);
    free(out);
}

static void test_overlays(void **state)
{
    (void)state;
    char *layer = write_categorical(), *out = tmp_path("ovl.png");
    /* a route in lon/lat through the layer (reprojected), a start point, an obstacle polygon in UTM */
    trv_ctx *ctx = trv_ctx_new();
    char *wkt = utm_wkt();
    char *route = tmp_path("r.geojson");
    geo_vec *v = NULL;
    int lay;
    const geo_field f[1] = {{"route", GEO_FIELD_STRING}};
    assert_int_equal(geo_vec_create(ctx, route, wkt, &v), TRV_OK);
    assert_int_equal(geo_vec_add_layer(ctx, v, "routes", GEO_LINE, f, 1, &lay), TRV_OK);
    double x[2] = {700100, 701100}, y[2] = {3999500, 3999500};
    geo_value val = {.s = "mmcr"};
    assert_int_equal(geo_vec_add(ctx, v, lay, x, y, NULL, 2, &val), TRV_OK);
    assert_int_equal(geo_vec_close(ctx, v), TRV_OK);
    char *obst = write_file(tmpdir, "obst.geojson",
                            "{\"type\":\"FeatureCollection\",\"features\":[{\"type\":\"Feature\",\"properties\":{},"
                            "\"geometry\":{\"type\":\"Polygon\",\"coordinates\":[[[-81.7985,36.1126],[-81.797,36.1126],"
                            "[-81.797,36.1135],[-81.7985,36.1126]]]}},{\"type\":\"Feature\",\"properties\":{\"name\":"
                            "\"start\"},\"geometry\":{\"type\":\"Point\",\"coordinates\":[-81.79,36.11]}}]}");
    rnd_opts o;
    rnd_opts_init(&o);
    o.layer = layer, o.output = out, o.width = 1200, o.legend = 1;
    o.overlays[0] = route, o.overlays[1] = obst, o.noverlays = 2;
    assert_int_equal(rnd_render(ctx, &o), TRV_OK);
    image im;
    read_png(out, &im);
    /* the route runs along y = 3999500 (row 500/30 = 16.7 of 30) from x 100 m to 1100 m */
    const int mx = 24, my = 52, mw = 868; /* width 1200: margin 24, title 52, panel 260 */
    double ppm = mw / 1200.0; /* pixels per metre */
    int rx = mx + (int)(600 * ppm), ry = my + (int)(500 * ppm);
    unsigned char mmcr[3];
    rnd_route_rgb("mmcr", mmcr);
    int found = 0;
    for (int dy = -2; dy <= 2; dy++)
        found |= !memcmp(px(&im, rx, ry + dy), mmcr, 3);
    assert_true(found);
    free(im.rgb);
    trv_ctx_free(ctx);
    free(wkt);
    free(route);
    free(obst);
    free(layer);
    free(out);
}

/* ---- map windows (--te, --te_srs) ---- */

static void test_window_cells(void **state)
{
    (void)state;
    geo_grid g = {50, 25, {700000, 30, 0, 4000000, 0, -30}, NULL};
    int w[4];
    /* inside cells 10..19 x 5..19: snapped outward */
    double te[4] = {700000 + 305, 4000000 - 599, 700000 + 595, 4000000 - 151};
    assert_int_equal(rnd_window_cells(&g, te, w), 1);
    assert_int_equal(w[0], 10), assert_int_equal(w[1], 5), assert_int_equal(w[2], 20), assert_int_equal(w[3], 20);
    /* on cell edges (and a hair inside them): exactly those cells */
    double edges[4] = {700000 + 300 - 1e-9, 4000000 - 600, 700000 + 600 + 1e-9, 4000000 - 150};
    assert_int_equal(rnd_window_cells(&g, edges, w), 1);
    assert_int_equal(w[0], 10), assert_int_equal(w[1], 5), assert_int_equal(w[2], 20), assert_int_equal(w[3], 20);
    /* clipped to the grid */
    double big[4] = {690000, 3990000, 710000, 4010000};
    assert_int_equal(rnd_window_cells(&g, big, w), 1);
    assert_int_equal(w[0], 0), assert_int_equal(w[1], 0), assert_int_equal(w[2], 50), assert_int_equal(w[3], 25);
    /* outside, or only touching the edge: no cells */
    double east[4] = {701500, 3999000, 702000, 3999500}, touch[4] = {699000, 3999000, 700000, 3999500};
    assert_int_equal(rnd_window_cells(&g, east, w), 0);
    assert_int_equal(rnd_window_cells(&g, touch, w), 0);
}

static void test_window_render(void **state)
{
    (void)state;
    char *layer = write_continuous(), *out = tmp_path("win.png"), *out2 = tmp_path("win2.png");
    char *out3 = tmp_path("win3.png");
    trv_ctx *ctx = trv_ctx_new();
    rnd_opts o;
    rnd_opts_init(&o);
    /* columns 10..19, rows 5..19 of the 50 x 25 layer (value = column) */
    o.layer = layer, o.output = out, o.width = 1200, o.palette = "greys";
    o.has_te = 1;
    const double te[4] = {700000 + 305, 4000000 - 599, 700000 + 595, 4000000 - 151};
    memcpy(o.te, te, sizeof te);
    assert_int_equal(rnd_render(ctx, &o), TRV_OK);
    image im;
    read_png(out, &im);
    /* scale 1: map 868 wide at (24, 52); 10 x 15 cells -> 1302 high */
    const int mx = 24, my = 52, mw = 868, mh = 1302;
    assert_int_equal(im.w, 1200);
    assert_true(im.h >= my + mh);
    /* enlarging: each pixel shows the cell under its centre; the colours
     * keep the whole layer's range 0..49, not the window's 10..19 */
    for (int i = 3; i < mw; i += 61)
        for (int j = 5; j < mh; j += 211) {
            int col = 10 + (int)floor((i + 0.5) * 10 / mw);
            unsigned char want[3];
            rnd_palette_rgb(rnd_palette_find("greys"), col / 49.0, want);
            assert_memory_equal(px(&im, mx + i, my + j), want, 3);
        }
    free(im.rgb);
    /* deterministic */
    o.output = out2;
    assert_int_equal(rnd_render(ctx, &o), TRV_OK);
    char *cmd = NULL;
    assert_true(asprintf(&cmd, "cmp -s '%s' '%s'", out, out2) > 0);
    assert_int_equal(system(cmd), 0);
    free(cmd);
    /* the same window in lon/lat (--te_srs EPSG:4326): the bounding box of
     * an inset window's lon/lat corners, brought back, still falls in the
     * same cells, so the map is byte for byte the same */
    char *utm = utm_wkt(), *geo = NULL;
    assert_int_equal(geo_crs_wkt(ctx, "EPSG:4326", &geo), TRV_OK);
    geo_ct *ct = NULL;
    assert_int_equal(geo_ct_create(ctx, utm, geo, &ct), TRV_OK);
    double ll[4];
    assert_int_equal(geo_ct_bounds(ct, 700000 + 315, 4000000 - 585, 700000 + 585, 4000000 - 165, ll), 0);
    geo_ct_free(ct);
    memcpy(o.te, ll, sizeof ll);
    o.te_srs = "EPSG:4326", o.output = out3;
    assert_int_equal(rnd_render(ctx, &o), TRV_OK);
    assert_true(asprintf(&cmd, "cmp -s '%s' '%s'", out, out3) > 0);
    assert_int_equal(system(cmd), 0);
    free(cmd);
    unlink(out3);
    /* a window on a hillshaded map shades its edge cells with their outside
     * neighbours: the pixel of cell (10, 5) equals the full hillshade's
     * value there applied to the cell's colour */
    geo_grid dg = {50, 25, {700000, 30, 0, 4000000, 0, -30}, utm};
    geo_raster *dem = NULL, *hs = NULL;
    assert_int_equal(geo_raster_new(ctx, &dg, GEO_F32, &dem), TRV_OK);
    for (int y = 0; y < 25; y++) /* curved, so that extrapolating at the window's edge would differ */
        for (int x = 0; x < 50; x++)
            dem->f32[y * 50 + x] = (float)(0.8 * x * x + 3.0 * y * y);
    char *dem_path = tmp_path("windem.tif");
    assert_int_equal(geo_raster_write(ctx, dem, dem_path, NULL), TRV_OK);
    o.te_srs = NULL, o.hillshade = dem_path;
    memcpy(o.te, te, sizeof te);
    assert_int_equal(rnd_render(ctx, &o), TRV_OK);
    rnd_light light;
    rnd_light_default(&light);
    assert_int_equal(rnd_hillshade(ctx, dem, &light, &hs), TRV_OK);
    read_png(out3, &im);
    unsigned char want[3];
    rnd_palette_rgb(rnd_palette_find("greys"), 10 / 49.0, want);
    double f = 1 - 0.6 * (1 - hs->f32[5 * 50 + 10] / 255.0);
    for (int q = 0; q < 3; q++)
        want[q] = (unsigned char)lround(want[q] * f);
    assert_memory_equal(px(&im, mx + 2, my + 2), want, 3);
    free(im.rgb);
    geo_raster_free(dem);
    geo_raster_free(hs);
    free(dem_path);
    free(utm);
    free(geo);
    trv_ctx_free(ctx);
    free(layer);
    free(out);
    free(out2);
    free(out3);
}

static void test_window_errors(void **state)
{
    (void)state;
    char *layer = write_continuous(), *out = tmp_path("winerr.png");
    trv_ctx *ctx = trv_ctx_new();
    rnd_opts o;
    rnd_opts_init(&o);
    o.layer = layer, o.output = out, o.has_te = 1;
    const double outside[4] = {710000, 3990000, 711000, 3991000}, flipped[4] = {700600, 3999400, 700300, 3999800},
                 flat[4] = {700300, 3999800, 700600, 3999800};
    memcpy(o.te, outside, sizeof outside);
    assert_int_equal(rnd_render(ctx, &o), TRV_ERR_DATA);
    assert_contains(trv_errmsg(ctx), "the window 710000 3990000 711000 3991000 does not overlap '");
    memcpy(o.te, flipped, sizeof flipped);
    assert_int_equal(rnd_render(ctx, &o), TRV_ERR_USAGE);
    assert_contains(trv_errmsg(ctx), "invalid window: xmin 700600 is not less than xmax 700300");
    memcpy(o.te, flat, sizeof flat);
    assert_int_equal(rnd_render(ctx, &o), TRV_ERR_USAGE);
    assert_contains(trv_errmsg(ctx), "ymin 3999800 is not less than ymax 3999800");
    const double lonlat[4] = {-10, 40, -9, 41};
    memcpy(o.te, lonlat, sizeof lonlat);
    o.te_srs = "EPSG:999999";
    assert_int_equal(rnd_render(ctx, &o), TRV_ERR_CRS);
    assert_contains(trv_errmsg(ctx), "cannot understand the CRS 'EPSG:999999'");
    o.te_srs = "EPSG:4326"; /* Portugal, far from the layer in Kentucky's UTM zone */
    assert_int_not_equal(rnd_render(ctx, &o), TRV_OK);
    assert_false(exists(out));
    trv_ctx_free(ctx);
    free(layer);
    free(out);
}

/* ---- QML ---- */

/* A small well-formedness check: tags nest and close, attributes are quoted. */
static int xml_well_formed(const char *s)
{
    char stack[64][64];
    int depth = 0;
    while ((s = strchr(s, '<'))) {
        if (!strncmp(s, "<!DOCTYPE", 9) || !strncmp(s, "<?", 2)) {
            s = strchr(s, '>');
            if (!s)
                return 0;
            continue;
        }
        const char *end = strchr(s, '>');
        if (!end)
            return 0;
        int closing = s[1] == '/', empty = end[-1] == '/';
        const char *n = s + 1 + closing;
        size_t len = strcspn(n, " />");
        if (len == 0 || len >= 64)
            return 0;
        int quotes = 0;
        for (const char *q = s; q < end; q++)
            quotes += *q == '"';
        if (quotes % 2)
            return 0;
        if (closing) {
            if (depth == 0 || strncmp(stack[depth - 1], n, len) || stack[depth - 1][len])
                return 0;
            depth--;
        } else if (!empty) {
            if (depth == 64)
                return 0;
            memcpy(stack[depth], n, len);
            stack[depth++][len] = 0;
        }
        s = end + 1;
    }
    return depth == 0;
}

static int count(const char *s, const char *what)
{
    int n = 0;
    for (; (s = strstr(s, what)); s++)
        n++;
    return n;
}

static void xmllint(const char *path)
{
    if (!have_command("xmllint")) {
        skip_check("libxml2-utils", "xmllint (libxml2-utils) not installed: a QML file not validated");
        return;
    }
    char *cmd = NULL;
    assert_true(asprintf(&cmd, "xmllint --noout '%s'", path) > 0);
    assert_int_equal(system(cmd), 0);
    free(cmd);
}

static void test_qml_raster(void **state)
{
    (void)state;
    const rnd_palette *p = rnd_palette_find("cost");
    char *inner = qgis_qml_raster_xml(p, 0, 1, NULL, "mobility cost");
    assert_non_null(inner);
    assert_true(xml_well_formed(inner));
    assert_contains(inner, "<rasterrenderer type=\"singlebandpseudocolor\" band=\"1\"");
    assert_contains(inner, "classificationMin=\"0\" classificationMax=\"1\"");
    assert_contains(inner, "colorRampType=\"INTERPOLATED\"");
    assert_int_equal(count(inner, "<item "), p->nstops);
    assert_contains(inner, "<item alpha=\"255\" value=\"0\" label=\"0.00\" color=\"#006837\"/>");
    assert_contains(inner, "<item alpha=\"255\" value=\"1\" label=\"1.00\" color=\"#a50026\"/>");
    assert_contains(inner, "<brightnesscontrast");
    assert_contains(inner, "<huesaturation");
    assert_contains(inner, "<rasterresampler");
    assert_null(strstr(inner, "<qgis")); /* inner XML only */
    char *doc = qgis_qml_document(inner);
    assert_true(xml_well_formed(doc));
    assert_contains(doc, "<qgis version=\"3.22.0\" styleCategories=\"AllStyleCategories\"");
    free(doc);
    free(inner);
    /* a unit with XML characters is escaped */
    inner = qgis_qml_raster_xml(rnd_palette_find("viridis"), 0, 40, "<km/h>", "speed & more");
    assert_true(xml_well_formed(inner));
    assert_contains(inner, "&lt;km/h&gt;");
    assert_contains(inner, "speed &amp; more");
    free(inner);
    /* written through a raster's description: slope gets ylorrd over 0..max */
    trv_ctx *ctx = trv_ctx_new();
    char *wkt = utm_wkt();
    geo_grid g = {4, 3, {700000, 30, 0, 4000000, 0, -30}, wkt};
    geo_raster *r = NULL;
    assert_int_equal(geo_raster_new(ctx, &g, GEO_F32, &r), TRV_OK);
    for (int i = 0; i < 12; i++)
        r->f32[i] = 2.5f + i;
    assert_int_equal(geo_raster_set_label(ctx, r, "slope", "degree"), TRV_OK);
    char *tif = tmp_path("slope.tif"), *qml = qgis_qml_path(tif);
    assert_string_equal(strrchr(qml, '/'), "/slope.qml");
    /* as the tools do: the style staged in a set, nothing in place before the commit */
    trv_outset *set = trv_outset_new();
    assert_int_equal(qgis_qml_stage(ctx, set, NULL, tif, r), TRV_OK);
    assert_int_not_equal(access(qml, F_OK), 0);
    assert_int_equal(trv_outset_commit(ctx, set), TRV_OK);
    trv_outset_free(set);
    char *text = NULL;
    FILE *f = fopen(qml, "r");
    assert_non_null(f);
    size_t cap = 0;
    assert_true(getdelim(&text, &cap, 0, f) > 0);
    fclose(f);
    assert_true(xml_well_formed(text));
    assert_contains(text, "classificationMin=\"0\" classificationMax=\"13.5\"");
    assert_contains(text, "color=\"#ffffcc\"");
    assert_contains(text, "label=\"13.5 degree\"");
    xmllint(qml);
    free(text);
    free(tif);
    free(qml);
    geo_raster_free(r);
    free(wkt);
    trv_ctx_free(ctx);
    char *a = qgis_qml_path("out/x.y/dem"), *b = qgis_qml_path("route.geojson");
    assert_string_equal(a, "out/x.y/dem.qml");
    assert_string_equal(b, "route.qml");
    free(a);
    free(b);
}

static void test_qml_vector(void **state)
{
    (void)state;
    trv_ctx *ctx = trv_ctx_new();
    char *inner[6] = {qgis_qml_route_xml(NULL), qgis_qml_roadmap_edges_xml(), qgis_qml_roadmap_nodes_xml(),
                      qgis_qml_trajectory_xml(), qgis_qml_obstacles_xml(NULL), qgis_qml_obstacles_xml("radius_m")};
    for (int k = 0; k < 6; k++) {
        assert_non_null(inner[k]);
        assert_true(xml_well_formed(inner[k]));
        assert_contains(inner[k], "<renderer-v2 type=\"");
        char name[32];
        snprintf(name, sizeof name, "v%d.qml", k);
        char *p = tmp_path(name);
        assert_int_equal(qgis_qml_write(ctx, p, inner[k]), TRV_OK);
        xmllint(p);
        free(p);
    }
    assert_contains(inner[0], "type=\"categorizedSymbol\" attr=\"route\"");
    assert_contains(inner[0], "value=\"mmcr\"");
    assert_contains(inner[0], "value=\"grid-time\"");
    assert_contains(inner[0], "name=\"line_color\" value=\"208,28,139,255\""); /* mmcr magenta, as the PNG */
    assert_contains(inner[0], "name=\"line_width\" value=\"0.8\"");
    assert_contains(inner[0], "name=\"use_custom_dash\" value=\"1\""); /* grid-* dashed */
    assert_contains(inner[1], "<layerGeometryType>1</layerGeometryType>");
    assert_contains(inner[2], "class=\"SimpleMarker\"");
    assert_contains(inner[4], "class=\"SimpleFill\"");
    assert_contains(inner[5], "2 * &quot;radius_m&quot;");
    for (int k = 0; k < 6; k++)
        free(inner[k]);
    /* GeoPackage layer_styles */
    char *gpkg = tmp_path("rm.gpkg"), *wkt = utm_wkt();
    geo_vec *v = NULL;
    int le, ln;
    assert_int_equal(geo_vec_create(ctx, gpkg, wkt, &v), TRV_OK);
    const geo_field fid[1] = {{"id", GEO_FIELD_INT}};
    assert_int_equal(geo_vec_add_layer(ctx, v, "nodes", GEO_POINT, fid, 1, &ln), TRV_OK);
    assert_int_equal(geo_vec_add_layer(ctx, v, "edges", GEO_LINE, fid, 1, &le), TRV_OK);
    double x[2] = {700000, 700100}, y[2] = {4000000, 4000100};
    geo_value val = {.i = 1};
    assert_int_equal(geo_vec_add(ctx, v, ln, x, y, NULL, 1, &val), TRV_OK);
    assert_int_equal(geo_vec_add(ctx, v, le, x, y, NULL, 2, &val), TRV_OK);
    assert_int_equal(geo_vec_close(ctx, v), TRV_OK);
    const char *names[2] = {"edges", "nodes"};
    char *st[2] = {qgis_qml_roadmap_edges_xml(), qgis_qml_roadmap_nodes_xml()};
    assert_int_equal(qgis_gpkg_styles_write(ctx, gpkg, names, (const char *const *)st, 2), TRV_OK);
    GDALDatasetH ds = GDALOpenEx(gpkg, GDAL_OF_VECTOR, NULL, NULL, NULL);
    assert_non_null(ds);
    OGRLayerH ls = GDALDatasetGetLayerByName(ds, "layer_styles");
    assert_non_null(ls);
    assert_int_equal(OGR_L_GetFeatureCount(ls, 1), 2);
    OGRFeatureH f = OGR_L_GetNextFeature(ls);
    assert_string_equal(OGR_F_GetFieldAsString(f, OGR_F_GetFieldIndex(f, "f_table_name")), "edges");
    assert_string_equal(OGR_F_GetFieldAsString(f, OGR_F_GetFieldIndex(f, "f_geometry_column")), "geom");
    assert_string_equal(OGR_F_GetFieldAsString(f, OGR_F_GetFieldIndex(f, "f_table_schema")), "");
    assert_int_equal(OGR_F_GetFieldAsInteger(f, OGR_F_GetFieldIndex(f, "useAsDefault")), 1);
    const char *qml = OGR_F_GetFieldAsString(f, OGR_F_GetFieldIndex(f, "styleQML"));
    assert_true(xml_well_formed(qml));
    assert_contains(qml, "<!DOCTYPE qgis");
    OGR_F_Destroy(f);
    GDALClose(ds);
    free(st[0]);
    free(st[1]);
    free(gpkg);
    free(wkt);
    trv_ctx_free(ctx);
}

/* The profile picture (rnd_profile_png): its size, the band's colours at
 * known distances (either side of a class boundary), white between the
 * axis and the band, the curves drawn, and its errors. */
static void test_profile_png(void **state)
{
    (void)state;
    static const double dist[4] = {100, 200, 300, 400}, len[4] = {100, 100, 100, 100};
    static const double elev[4] = {500, 520, 510, 530}, speed[4] = {20, 5, 20, 40};
    static const int band[4] = {1, 2, 1, 3};
    static const geo_class cls[3] = {{1, "one", {200, 30, 30}}, {2, "two", {30, 200, 30}}, {3, "three", {30, 30, 200}}};
    rnd_profile p = {4, dist, len, elev, speed, band, cls, 3, "binding limit", "test", NULL, 800, 400};
    char *out = tmp_path("profile.png");
    trv_ctx *ctx = trv_ctx_new();
    assert_int_equal(rnd_profile_png(ctx, &p, out, out), TRV_OK);
    image im;
    read_png(out, &im);
    assert_int_equal(im.w, 800);
    assert_int_equal(im.h, 400);
    int yb = 400 - (RND_PROF_BAND0 + RND_PROF_BAND1) / 2, pw = 800 - RND_PROF_LEFT - RND_PROF_RIGHT;
#define BAND_AT(d) px(&im, (int)floor(RND_PROF_LEFT + (d) / 400.0 * pw), yb)
    static const double at[6] = {5, 95, 105, 250, 310, 395};
    static const int want[6] = {0, 0, 1, 0, 2, 2};
    for (int k = 0; k < 6; k++) {
        const unsigned char *q = BAND_AT(at[k]);
        assert_memory_equal(q, cls[want[k]].rgb, 3);
    }
#undef BAND_AT
    const unsigned char *w = px(&im, RND_PROF_LEFT + pw / 8, 400 - RND_PROF_AXIS + 7);
    assert_true(w[0] == 255 && w[1] == 255 && w[2] == 255);
    /* the elevation is filled down to the axis under the curve (not white) */
    const unsigned char *e = px(&im, RND_PROF_LEFT + pw / 2, 400 - RND_PROF_AXIS - 3);
    assert_false(e[0] == 255 && e[1] == 255 && e[2] == 255);
    free(im.rgb);
    p.width = RND_PROF_W_MIN - 1;
    assert_int_equal(rnd_profile_png(ctx, &p, out, out), TRV_ERR_USAGE);
    trv_ctx_free(ctx);
    free(out);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_palette_stops),  cmocka_unit_test(test_palette_auto),
        cmocka_unit_test(test_hillshade_plane), cmocka_unit_test(test_hillshade_gdaldem),
        cmocka_unit_test(test_texture_by_tiles),
        cmocka_unit_test(test_png_categorical), cmocka_unit_test(test_png_continuous),
        cmocka_unit_test(test_render_errors),   cmocka_unit_test(test_overlays),
        cmocka_unit_test(test_qml_raster),      cmocka_unit_test(test_qml_vector),
        cmocka_unit_test(test_window_cells),    cmocka_unit_test(test_window_render),
        cmocka_unit_test(test_window_errors),     cmocka_unit_test(test_profile_png),
    };
    return cmocka_run_group_tests(tests, tmpdir_setup, tmpdir_teardown);
}
