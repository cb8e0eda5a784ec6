/* The block writer's temporary (geo/block.h): kept in GDAL's memory files,
 * uncompressed, when the layer and its overviews hold at most
 * geo_block_mem() bytes, else on disk beside the output — the same COG
 * either way (byte for byte), its cells the ones written and its first
 * overview the 2 x 2 means computed here by hand; nothing left behind. */
#include "test_common.h"

#include <cpl_vsi.h>
#include <gdal.h>
#include <math.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>

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

/* geo_strip_rows: clamp(budget / (width bytes), 1, geo_block_rows()),
 * hand-computed against the 64 MiB = 67 108 864 default and TRV_STRIP_MEM. */
static void test_strip_rows(void **state)
{
    (void)state;
    unsetenv("TRV_STRIP_MEM");
    unsetenv("TRV_BLOCK_ROWS");
    assert_true(geo_strip_mem() == GEO_STRIP_MEM && GEO_STRIP_MEM == 67108864);
    static const struct {
        int width, bytes, want;
    } c[] = {{1, 1, 256},          /* narrow: geo_block_rows() */
             {1000, 4, 256},       /* 16777 rows fit */
             {262144, 1, 256},     /* exactly 256 rows */
             {262145, 1, 255},     /* 256.0 - : 255 */
             {280000, 1, 239},     /* 67108864 / 280000 = 239.67 */
             {65536, 4, 256},      /* exactly 256 rows of RGBA */
             {65537, 4, 255},      /* 67108864 / 262148 = 255.99 */
             {200000, 4, 83},      /* 67108864 / 800000 = 83.89 */
             {200000, 1, 256},     /* 335.5 rows fit */
             {800000, 4, 20},      /* 67108864 / 3200000 = 20.97 */
             {16777216, 4, 1},     /* one row is the budget */
             {20000000, 4, 1}};    /* very wide: one row, over the budget */
    for (size_t i = 0; i < sizeof c / sizeof *c; i++)
        assert_int_equal(geo_strip_rows(c[i].width, c[i].bytes), c[i].want);
    setenv("TRV_BLOCK_ROWS", "7", 1);
    assert_int_equal(geo_strip_rows(1000, 4), 7);          /* never above geo_block_rows() */
    assert_int_equal(geo_strip_rows(4793490, 2), 7);       /* 67108864 / 9586980 = 7.0000004 */
    assert_int_equal(geo_strip_rows(4793490, 3), 4);       /* 4.67 */
    assert_int_equal(geo_strip_rows(4793491, 2), 6);       /* 6.9999990 */
    unsetenv("TRV_BLOCK_ROWS");
    setenv("TRV_STRIP_MEM", "1000", 1);
    assert_true(geo_strip_mem() == 1000);
    assert_int_equal(geo_strip_rows(10, 4), 25);           /* 1000 / 40 */
    assert_int_equal(geo_strip_rows(300, 1), 3);           /* 1000 / 300 = 3.33 */
    assert_int_equal(geo_strip_rows(251, 4), 1);           /* 1000 / 1004 = 0.996: one row */
    assert_int_equal(geo_strip_rows(3, 1), 256);           /* 333: geo_block_rows() */
    static const char *const junk[] = {"-5", "12x", "", "abc"};
    for (int i = 0; i < 4; i++) {
        setenv("TRV_STRIP_MEM", junk[i], 1);
        assert_true(geo_strip_mem() == GEO_STRIP_MEM);
    }
    setenv("TRV_STRIP_MEM", "0", 1);
    assert_int_equal(geo_strip_rows(1, 1), 1);             /* budget 0: one row at a time */
    unsetenv("TRV_STRIP_MEM");
}

/* TRV_BLOCK_ROWS and TRV_BLOCK_COLS: integers >= 1, each its own. */
static void test_block_size_env(void **state)
{
    (void)state;
    unsetenv("TRV_BLOCK_ROWS");
    unsetenv("TRV_BLOCK_COLS");
    assert_int_equal(geo_block_rows(), GEO_BLOCK_ROWS);
    assert_int_equal(geo_block_cols(), GEO_BLOCK_COLS);
    setenv("TRV_BLOCK_COLS", "7", 1);
    assert_int_equal(geo_block_cols(), 7);
    assert_int_equal(geo_block_rows(), GEO_BLOCK_ROWS);
    setenv("TRV_BLOCK_ROWS", "13", 1);
    assert_int_equal(geo_block_rows(), 13);
    assert_int_equal(geo_block_cols(), 7);
    static const char *const junk[] = {"0", "-3", "12x", "", "abc"};
    for (int i = 0; i < 5; i++) {
        setenv("TRV_BLOCK_COLS", junk[i], 1);
        assert_int_equal(geo_block_cols(), GEO_BLOCK_COLS);
    }
    setenv("TRV_BLOCK_COLS", "1", 1);
    assert_int_equal(geo_block_cols(), 1);
    unsetenv("TRV_BLOCK_ROWS");
    unsetenv("TRV_BLOCK_COLS");
}

/* The tiling: every cell in exactly one tile, tiles row-major, the last
 * column and row clipped, sizes clamped to [1, the raster]. Hand cases. */
static void test_tiling(void **state)
{
    (void)state;
    geo_tiling t = geo_tiling_make(10, 7, 4, 3);
    assert_int_equal(t.tw, 4);
    assert_int_equal(t.th, 3);
    assert_int_equal(t.ntx, 3);
    assert_int_equal(t.nty, 3);
    assert_int_equal(geo_tiling_count(&t), 9);
    static const int want[9][4] = {{0, 0, 4, 3}, {4, 0, 4, 3}, {8, 0, 2, 3}, {0, 3, 4, 3}, {4, 3, 4, 3},
                                   {8, 3, 2, 3}, {0, 6, 4, 1}, {4, 6, 4, 1}, {8, 6, 2, 1}};
    for (int i = 0; i < 9; i++) {
        geo_tile k = geo_tiling_tile(&t, i);
        int got[4] = {k.x0, k.y0, k.nx, k.ny};
        assert_memory_equal(got, want[i], sizeof got);
    }
    t = geo_tiling_make(5, 2, 256, 0); /* clamped: one tile wide, rows of 1 */
    assert_int_equal(t.tw, 5);
    assert_int_equal(t.th, 1);
    assert_int_equal(geo_tiling_count(&t), 2);
    geo_tile k = geo_tiling_tile(&t, 1);
    assert_int_equal(k.x0, 0);
    assert_int_equal(k.y0, 1);
    assert_int_equal(k.nx, 5);
    assert_int_equal(k.ny, 1);
    t = geo_tiling_make(3, 2, 5, 3); /* a little wider and taller than the raster */
    assert_int_equal(t.tw, 3);
    assert_int_equal(t.th, 2);
    t = geo_tiling_make(6, 6, 3, 6); /* exact fit: no clipped tile */
    assert_int_equal(geo_tiling_count(&t), 2);
    k = geo_tiling_tile(&t, 1);
    assert_int_equal(k.x0, 3);
    assert_int_equal(k.nx, 3);
    assert_int_equal(k.ny, 6);
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

/* ---- tiles ---- */

enum { WX = 600, WY = 1100 };

/* A layer of nx x ny (Float32 or Byte) like the one above. */
static geo_raster like_layer(char *wkt, int nx, int ny, geo_type type)
{
    return (geo_raster){.grid = {nx, ny, {500000, 10, 0, 4000000, 0, -10}, wkt}, .type = type, .has_nodata = 1,
                        .nodata = type == GEO_F32 ? -9999 : 0, .desc = "elevation", .unit = "m"};
}

static float wcell(int x, int y)
{
    return (x + 2 * y) % 31 == 0 || cell(x, y) == -9999.0f ? -9999.0f : cell(x, y) + 0.5f * (float)(x % 5);
}

/* name written with tiles of tw x th cells in a shuffled order (tw 0: by
 * rows, blocks of th rows), the Float32 cells wcell or Byte cells
 * wcell mod 200; returns the path. */
static char *write_tiles(const char *name, geo_type type, int tw, int th)
{
    trv_ctx *ctx = trv_ctx_new();
    char *path = malloc(strlen(tmpdir) + strlen(name) + 2), *wkt = NULL;
    sprintf(path, "%s/%s", tmpdir, name);
    geo_grid g0 = {0};
    assert_int_equal(geo_crs_choose(ctx, &g0, "EPSG:32616", &wkt), TRV_OK);
    geo_raster like = like_layer(wkt, WX, WY, type);
    geo_block_writer *w = NULL;
    assert_int_equal(geo_block_writer_open(ctx, &like, path, NULL, &w), TRV_OK);
    int bw = tw ? tw : WX, ntx = (WX + bw - 1) / bw, nty = (WY + th - 1) / th, nt = ntx * nty;
    int *order = malloc(sizeof(int) * nt);
    unsigned char *buf = malloc((size_t)bw * th * 4);
    for (int i = 0; i < nt; i++)
        order[i] = i;
    for (int i = nt - 1; i > 0 && tw; i--) { /* a fixed shuffle */
        int j = (int)((i * 7919u + 13u) % (unsigned)(i + 1)), t = order[i];
        order[i] = order[j], order[j] = t;
    }
    for (int i = 0; i < nt; i++) {
        int x0 = order[i] % ntx * bw, y0 = order[i] / ntx * th;
        int nx = x0 + bw <= WX ? bw : WX - x0, ny = y0 + th <= WY ? th : WY - y0;
        for (int y = 0; y < ny; y++)
            for (int x = 0; x < nx; x++) {
                float v = wcell(x0 + x, y0 + y);
                if (type == GEO_F32)
                    ((float *)buf)[y * nx + x] = v;
                else
                    buf[y * nx + x] = v == -9999.0f ? 0 : (unsigned char)(1 + (x0 + x + y0 + y) % 200);
            }
        assert_int_equal(tw ? geo_block_write_tile(ctx, w, x0, y0, nx, ny, buf) : geo_block_write(ctx, w, y0, ny, buf),
                         TRV_OK);
    }
    assert_int_equal(geo_block_writer_close(ctx, w, TRV_OK, NULL), TRV_OK);
    free(order), free(buf), free(wkt);
    trv_ctx_free(ctx);
    return path;
}

/* Every level of path against the level below it read back: Float32 the
 * mean of the 2 x 2 data cells (nodata where none; the last odd row or
 * column pairs single), Byte the top-left cell; level 0 against wcell.
 * Returns the count of levels. */
static int check_pyramid(const char *path, geo_type type)
{
    GDALDatasetH ds = GDALOpen(path, GA_ReadOnly);
    assert_non_null(ds);
    GDALRasterBandH b = GDALGetRasterBand(ds, 1);
    int nov = GDALGetOverviewCount(b), nx = WX, ny = WY;
    float *lo = malloc(sizeof(float) * WX * WY), *up = malloc(sizeof(float) * WX * WY);
    assert_int_equal(GDALRasterIO(b, GF_Read, 0, 0, nx, ny, lo, nx, ny, GDT_Float32, 0, 0), CE_None);
    for (int i = 0; i < nx * ny; i++) {
        float v = wcell(i % nx, i / nx);
        assert_true(lo[i] == (type == GEO_F32 ? v : v == -9999.0f ? 0 : (float)(1 + (i % nx + i / nx) % 200)));
    }
    for (int k = 0; k < nov; k++) {
        int ux = (nx + 1) / 2, uy = (ny + 1) / 2;
        GDALRasterBandH o = GDALGetOverview(b, k);
        assert_int_equal(GDALGetRasterBandXSize(o), ux);
        assert_int_equal(GDALGetRasterBandYSize(o), uy);
        assert_int_equal(GDALRasterIO(o, GF_Read, 0, 0, ux, uy, up, ux, uy, GDT_Float32, 0, 0), CE_None);
        for (int y = 0; y < uy; y++)
            for (int x = 0; x < ux; x++) {
                double sum = 0;
                int n = 0;
                for (int j = 0; j < 4; j++) {
                    int cx = 2 * x + j % 2, cy = 2 * y + j / 2;
                    if (cx < nx && cy < ny && lo[cy * nx + cx] != -9999.0f)
                        sum += lo[cy * nx + cx], n++;
                }
                float want = type == GEO_U8 ? lo[2 * y * nx + 2 * x] : n ? (float)(sum / n) : -9999.0f;
                if (up[y * ux + x] != want)
                    fail_msg("level %d (%d, %d): %g != %g", k + 1, x, y, up[y * ux + x], want);
            }
        float *t = lo;
        lo = up, up = t, nx = ux, ny = uy;
    }
    free(lo), free(up);
    GDALClose(ds);
    return nov + 1;
}

/* The header's statistics against sums of the cells in long double. */
static void check_stats(const char *path)
{
    long double s = 0, s2 = 0;
    size_t n = 0;
    for (int y = 0; y < WY; y++)
        for (int x = 0; x < WX; x++)
            if (wcell(x, y) != -9999.0f)
                s += wcell(x, y), s2 += (long double)wcell(x, y) * wcell(x, y), n++;
    long double mean = s / n, std = sqrtl(s2 / n - mean * mean);
    GDALDatasetH ds = GDALOpen(path, GA_ReadOnly);
    GDALRasterBandH b = GDALGetRasterBand(ds, 1);
    double m = atof(GDALGetMetadataItem(b, "STATISTICS_MEAN", NULL)),
           sd = atof(GDALGetMetadataItem(b, "STATISTICS_STDDEV", NULL));
    if (!(n > 600000 && fabsl(m - mean) < 1e-12L * fabsl(mean) && fabsl(sd - std) < 1e-9L * std))
        fail_msg("mean %.17g std %.17g, want %.17Lg %.17Lg", m, sd, mean, std);
    GDALClose(ds);
}

static int same_file(const char *a, const char *b)
{
    size_t na, nb;
    char *x = slurp(a, &na), *y = slurp(b, &nb);
    int same = na == nb && memcmp(x, y, na) == 0;
    free(x), free(y);
    return same;
}

/* Tiles of any size in any order give the COG rows give (the overviews
 * made by tiles from the level below; the statistics summed exactly),
 * in memory and on disk; the pyramid checked cell by cell. */
static void test_tiles_same_cog(void **state)
{
    (void)state;
    static const int size[][2] = {{0, 7}, {256, 256}, {37, 53}, {1, 300}, {600, 1}, {512, 1100}};
    for (int t = 0; t < 2; t++) {
        geo_type type = t ? GEO_U8 : GEO_F32;
        char *p[6];
        for (int k = 0; k < 6; k++) {
            char name[64];
            snprintf(name, sizeof name, "tiles%d_%d.tif", t, k);
            if (k == 3) /* this one with its temporary on disk */
                setenv("TRV_BLOCK_MEM", "0", 1);
            p[k] = write_tiles(name, type, size[k][0], size[k][1]);
            unsetenv("TRV_BLOCK_MEM");
        }
        assert_int_equal(check_pyramid(p[2], type), 4); /* 600 x 1100 down to 75 x 138 */
        for (int k = 1; k < 6; k++)
            if (!same_file(p[0], p[k]))
                fail_msg("%s differs from %s", p[k], p[0]);
        if (type == GEO_F32)
            check_stats(p[2]);
        for (int k = 0; k < 6; k++)
            free(p[k]);
    }
}

/* A tile off the grid, a cell written twice, a missing tile, rows after
 * tiles: errors, nothing made. */
static void test_tiles_errors(void **state)
{
    (void)state;
    trv_ctx *ctx = trv_ctx_new();
    char *wkt = NULL, path[4200];
    geo_grid g0 = {0};
    assert_int_equal(geo_crs_choose(ctx, &g0, "EPSG:32616", &wkt), TRV_OK);
    geo_raster like = like_layer(wkt, 20, 10, GEO_F32);
    float cells[200] = {0};
    snprintf(path, sizeof path, "%s/bad.tif", tmpdir);
    geo_block_writer *w = NULL;
    assert_int_equal(geo_block_writer_open(ctx, &like, path, NULL, &w), TRV_OK);
    assert_int_equal(geo_block_write_tile(ctx, w, 11, 0, 10, 10, cells), TRV_ERR_INTERNAL); /* past the right edge */
    assert_int_equal(geo_block_write_tile(ctx, w, 0, 1, 10, 10, cells), TRV_ERR_INTERNAL);  /* past the bottom */
    assert_int_equal(geo_block_write_tile(ctx, w, -1, 0, 5, 5, cells), TRV_ERR_INTERNAL);
    assert_int_equal(geo_block_write_tile(ctx, w, 0, -1, 5, 5, cells), TRV_ERR_INTERNAL);
    assert_int_equal(geo_block_write_tile(ctx, w, 0, 0, 0, 5, cells), TRV_ERR_INTERNAL);
    assert_int_equal(geo_block_write_tile(ctx, w, 0, 0, 20, 5, cells), TRV_OK);
    assert_int_equal(geo_block_write(ctx, w, 0, 1, cells), TRV_ERR_INTERNAL); /* rows after tiles */
    assert_int_equal(geo_block_write_tile(ctx, w, 10, 5, 10, 5, cells), TRV_OK);
    assert_int_equal(geo_block_write_tile(ctx, w, 0, 0, 20, 5, cells), TRV_ERR_INTERNAL); /* 250 of 200 cells */
    assert_int_equal(geo_block_writer_close(ctx, w, TRV_OK, NULL), TRV_ERR_INTERNAL);     /* 150 of 200 */
    assert_non_null(strstr(trv_errmsg(ctx), "150 of 200 cells written"));
    assert_int_equal(geo_block_writer_open(ctx, &like, path, NULL, &w), TRV_OK);
    assert_int_equal(geo_block_write(ctx, w, 0, 10, cells), TRV_OK);
    assert_int_equal(geo_block_write_tile(ctx, w, 0, 0, 1, 1, cells), TRV_ERR_INTERNAL); /* tiles after rows */
    geo_block_stats st;
    assert_int_equal(geo_block_writer_close(ctx, w, TRV_OK, &st), TRV_OK);
    assert_true(st.count == 200 && st.mean == 0 && st.std == 0);
    free(wkt);
    trv_ctx_free(ctx);
}

/* geo_block_writers_close: NULL entries skipped, each writer's statistics
 * in its own entry; an error before (st) or in an earlier writer (one
 * short of its cells) abandons every later one: nothing committed, the
 * first error returned (nothing but the in-memory writer's empty
 * placeholder left at the path). */
static void test_writers_close(void **state)
{
    (void)state;
    trv_ctx *ctx = trv_ctx_new();
    char *wkt = NULL, path[3][4200];
    geo_grid g0 = {0};
    assert_int_equal(geo_crs_choose(ctx, &g0, "EPSG:32616", &wkt), TRV_OK);
    geo_raster like = like_layer(wkt, 20, 10, GEO_F32);
    float cells[200];
    for (int round = 0; round < 3; round++) {
        geo_block_writer *w[3] = {NULL, NULL, NULL};
        for (int k = 0; k < 3; k += 2) { /* w[1] stays NULL */
            snprintf(path[k], sizeof path[k], "%s/many%d_%d.tif", tmpdir, round, k);
            assert_int_equal(geo_block_writer_open(ctx, &like, path[k], NULL, &w[k]), TRV_OK);
            for (int i = 0; i < 200; i++)
                cells[i] = (float)(k + 1) * (i % 20 + 1);
            /* round 2: the first writer one row short */
            assert_int_equal(geo_block_write(ctx, w[k], 0, round == 2 && k == 0 ? 9 : 10, cells), TRV_OK);
        }
        geo_block_stats st[3];
        memset(st, 0, sizeof st);
        trv_status want = round == 0 ? TRV_OK : round == 1 ? TRV_ERR_IO : TRV_ERR_INTERNAL;
        trv_status got = geo_block_writers_close(ctx, w, 3, round == 1 ? TRV_ERR_IO : TRV_OK, st);
        assert_int_equal(got, want);
        for (int k = 0; k < 3; k += 2) { /* abandoned: the in-memory writer's empty placeholder at most */
            struct stat sb;
            assert_int_equal(stat(path[k], &sb) == 0 && sb.st_size > 0, round == 0);
        }
        if (round == 0) { /* cells 1..20 (mean 10.5) and twice them */
            assert_true(st[0].count == 200 && st[0].min == 1 && st[0].max == 20 && st[0].mean == 10.5);
            assert_true(st[2].count == 200 && st[2].min == 3 && st[2].max == 60 && st[2].mean == 31.5);
            assert_true(st[1].count == 0);
        }
    }
    free(wkt);
    trv_ctx_free(ctx);
}

/* Peak RSS (KiB) of a child that writes a Float32 layer of nx x ny to
 * wide<nx>_<tiles><reads>.tif by 256 x 256 tiles (tiles 1) or by rows in
 * blocks of 256 (tiles 0); reads (1): each tile's cells are read first,
 * with a halo of 1, from wide<nx>_10.tif (by windows or by rows). */
static long write_peak_kib(int nx, int ny, int tiles, int reads)
{
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        trv_ctx *ctx = trv_ctx_new();
        char *wkt = NULL, path[4200], src[4200];
        geo_grid g0 = {0};
        snprintf(path, sizeof path, "%s/wide%d_%d%d.tif", tmpdir, nx, tiles, reads);
        snprintf(src, sizeof src, "%s/wide%d_10.tif", tmpdir, nx);
        geo_raster like;
        geo_block_writer *w = NULL;
        geo_block_reader *r = NULL;
        float *buf = malloc(sizeof(float) * (size_t)(tiles ? 256 : nx) * 256);
        int bad = !buf || geo_crs_choose(ctx, &g0, "EPSG:32616", &wkt) != TRV_OK ||
                  (reads && geo_block_reader_open(ctx, src, GEO_F32, 1, &r) != TRV_OK);
        like = like_layer(wkt, nx, ny, GEO_F32);
        bad = bad || geo_block_writer_open(ctx, &like, path, NULL, &w) != TRV_OK;
        for (int y0 = 0; y0 < ny && !bad; y0 += 256)
            for (int x0 = 0; x0 < nx && !bad; x0 += tiles ? 256 : nx) {
                int tw = tiles ? (nx - x0 < 256 ? nx - x0 : 256) : nx, th = ny - y0 < 256 ? ny - y0 : 256;
                const geo_window *win = NULL;
                const geo_rows *rows = NULL;
                if (reads)
                    bad = tiles ? geo_block_read_window(ctx, r, x0, x0 + tw, y0, y0 + th, &win) != TRV_OK
                                : geo_block_read(ctx, r, y0, y0 + th, &rows) != TRV_OK;
                for (int k = 0; k < tw * th && !bad; k++) {
                    int x = x0 + k % tw, y = y0 + k / tw;
                    buf[k] = !reads ? (float)(x % 1000) + 0.25f * (float)y
                                    : 1 + (tiles ? *geo_window_f32(win, x, y) : geo_rows_f32(rows, y)[x]);
                }
                bad = bad || (tiles ? geo_block_write_tile(ctx, w, x0, y0, tw, th, buf) != TRV_OK
                                    : geo_block_write(ctx, w, y0, th, buf) != TRV_OK);
            }
        bad = (w && geo_block_writer_close(ctx, w, bad ? TRV_ERR_INTERNAL : TRV_OK, NULL) != TRV_OK) || bad;
        geo_block_reader_close(r);
        _exit(bad);
    }
    int status;
    struct rusage ru;
    assert_int_equal(wait4(pid, &status, 0, &ru), pid);
    assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    return ru.ru_maxrss;
}

/* By tiles the writer's memory does not grow with the width: a 40 000 x
 * 300 layer by tiles within 16 MiB of a 2 000 x 300 one (measured: 49.6
 * and 43.0 MiB; 160 000 x 300: 51.0 MiB), while by rows its 256-row strip
 * and the caller's rows (40 000 x 256 Float32 cells each, 39 MiB) show
 * (measured: 125 MiB). Nor does it with a reader by windows open (GDAL's
 * cache grown by the windows' width, not the grid's; measured 44.9 and
 * 51.3 MiB: reserved as for rows, two strips of 40 000 columns, the
 * writer's tiles stay cached, 147.6 MiB). */
static void test_tiles_memory(void **state)
{
    (void)state;
#if defined(__SANITIZE_ADDRESS__)
    print_message("SKIPPED: peak RSS under AddressSanitizer (its quarantine keeps freed blocks)\n");
    return;
#endif
    long narrow = write_peak_kib(2000, 300, 1, 0), wide = write_peak_kib(40000, 300, 1, 0),
         rows = write_peak_kib(40000, 300, 0, 0);
    if (!(wide < narrow + 16 * 1024 && rows > wide + 30 * 1024))
        fail_msg("peak RSS by tiles %ld KiB (2 000 wide), %ld KiB (40 000 wide); by rows %ld KiB", narrow, wide, rows);
    long rnarrow = write_peak_kib(2000, 300, 1, 1), rwide = write_peak_kib(40000, 300, 1, 1);
    if (!(rwide < rnarrow + 16 * 1024))
        fail_msg("peak RSS reading and writing by tiles %ld KiB (2 000 wide), %ld KiB (40 000 wide)", rnarrow, rwide);
    /* the cells read are the cells written: the copy is the source plus 1 */
    char path[4200];
    snprintf(path, sizeof path, "%s/wide40000_11.tif", tmpdir);
    GDALDatasetH ds = GDALOpen(path, GA_ReadOnly);
    assert_non_null(ds);
    float v[3];
    assert_int_equal(GDALRasterIO(GDALGetRasterBand(ds, 1), GF_Read, 39997, 299, 3, 1, v, 3, 1, GDT_Float32, 0, 0),
                     CE_None);
    for (int k = 0; k < 3; k++)
        assert_true(v[k] == 1 + (float)((39997 + k) % 1000) + 0.25f * 299);
    GDALClose(ds);
}

/* ---- windows ---- */

enum { RX = 50, RY = 40 };

static float rcell(int x, int y)
{
    if (x == 7 && y == 3)
        return INFINITY; /* non-finite: read as nodata */
    if (x == 20 && y == 39)
        return NAN;
    return (float)(x * 100 + y) + 0.5f;
}

/* A Float32 GTiff of RX x RY cells rcell, nodata -9999 (tiled 16 x 16, so
 * windows cross blocks); returns its path. */
static char *write_source(const char *name, double scale)
{
    char *path = malloc(strlen(tmpdir) + strlen(name) + 2);
    sprintf(path, "%s/%s", tmpdir, name);
    const char *opts[] = {"TILED=YES", "BLOCKXSIZE=16", "BLOCKYSIZE=16", NULL};
    GDALDatasetH ds = GDALCreate(GDALGetDriverByName("GTiff"), path, RX, RY, 1, GDT_Float32, (char **)opts);
    assert_non_null(ds);
    double gt[6] = {500000, 10, 0, 4000000, 0, -10};
    GDALSetGeoTransform(ds, gt);
    GDALRasterBandH b = GDALGetRasterBand(ds, 1);
    GDALSetRasterNoDataValue(b, -9999);
    float v[RX * RY];
    for (int i = 0; i < RX * RY; i++)
        v[i] = scale == 1 ? rcell(i % RX, i / RX) : (float)((i % 7) * scale);
    assert_int_equal(GDALRasterIO(b, GF_Write, 0, 0, RX, RY, v, RX, RY, GDT_Float32, 0, 0), CE_None);
    GDALClose(ds);
    return path;
}

/* Every window (a grid of origins and sizes, halo 0, 1 and 2) against the
 * cells written and against geo_block_read's rows: the bounds clipped at
 * the grid's edges, the values the same (a non-finite cell nodata). */
static void test_window_reader(void **state)
{
    (void)state;
    trv_ctx *ctx = trv_ctx_new();
    char *path = write_source("src.tif", 1);
    for (int halo = 0; halo <= 2; halo++) {
        geo_block_reader *r = NULL, *rows_r = NULL;
        assert_int_equal(geo_block_reader_open(ctx, path, GEO_F32, halo, &r), TRV_OK);
        assert_int_equal(geo_block_reader_open(ctx, path, GEO_F32, 0, &rows_r), TRV_OK);
        const geo_rows *all;
        assert_int_equal(geo_block_read(ctx, rows_r, 0, RY, &all), TRV_OK);
        for (int x0 = 0; x0 < RX; x0 += 7)
            for (int y0 = 0; y0 < RY; y0 += 9)
                for (int w = 1; w <= 33 && x0 + w <= RX; w += 16)
                    for (int h = 1; h <= 20 && y0 + h <= RY; h += 19) {
                        const geo_window *win;
                        assert_int_equal(geo_block_read_window(ctx, r, x0, x0 + w, y0, y0 + h, &win), TRV_OK);
                        assert_int_equal(win->x0, x0 - halo > 0 ? x0 - halo : 0);
                        assert_int_equal(win->x1, x0 + w + halo < RX ? x0 + w + halo : RX);
                        assert_int_equal(win->y0, y0 - halo > 0 ? y0 - halo : 0);
                        assert_int_equal(win->y1, y0 + h + halo < RY ? y0 + h + halo : RY);
                        assert_true(win->has_nodata && win->nodata == -9999);
                        for (int y = win->y0; y < win->y1; y++)
                            for (int x = win->x0; x < win->x1; x++) {
                                float v = *geo_window_f32(win, x, y), want = rcell(x, y);
                                assert_true(v == geo_rows_f32(all, y)[x]);
                                assert_true(isfinite(want) ? v == want : v == -9999.0f);
                            }
                        assert_null(geo_window_f32(win, win->x0 - 1, win->y0));
                        assert_null(geo_window_f32(win, win->x1, win->y0));
                        assert_null(geo_window_f32(win, win->x0, win->y0 - 1));
                        assert_null(geo_window_f32(win, win->x0, win->y1));
                        assert_null(geo_window_u8(win, win->x0, win->y0));
                    }
        const geo_window *win;
        assert_int_equal(geo_block_read_window(ctx, r, 0, RX + 1, 0, 1, &win), TRV_ERR_INTERNAL);
        assert_null(win);
        assert_int_equal(geo_block_read_window(ctx, r, 0, 1, 5, 5, &win), TRV_ERR_INTERNAL);
        assert_int_equal(geo_block_read_window(ctx, r, -1, 1, 0, 1, &win), TRV_ERR_INTERNAL);
        assert_int_equal(geo_block_read_window(ctx, r, 0, 1, 0, RY + 1, &win), TRV_ERR_INTERNAL);
        geo_block_reader_close(r);
        geo_block_reader_close(rows_r);
    }
    /* a Byte layer from Float32 cells: integers 0..255 read, 1.5 an error */
    char *halves = write_source("halves.tif", 1.5);
    geo_block_reader *r = NULL;
    const geo_window *win;
    assert_int_equal(geo_block_reader_open(ctx, halves, GEO_U8, 1, &r), TRV_OK);
    assert_int_equal(geo_block_read_window(ctx, r, 0, 2, 0, 1, &win), TRV_ERR_DATA); /* 1.5 at column 1 */
    assert_int_equal(geo_block_read_window(ctx, r, 0, 1, 0, 1, &win), TRV_ERR_DATA); /* 0 there, 1.5 in its halo */
    geo_block_reader_close(r);
    char *sevens = write_source("sevens.tif", 2);
    assert_int_equal(geo_block_reader_open(ctx, sevens, GEO_U8, 1, &r), TRV_OK);
    assert_int_equal(geo_block_read_window(ctx, r, 10, 12, 3, 4, &win), TRV_OK);
    assert_int_equal(win->x1 - win->x0, 4);
    for (int y = win->y0; y < win->y1; y++)
        for (int x = win->x0; x < win->x1; x++)
            assert_int_equal(*geo_window_u8(win, x, y), ((y * RX + x) % 7) * 2);
    assert_null(geo_window_f32(win, 10, 3));
    geo_block_reader_close(r);
    free(sevens), free(halves), free(path);
    trv_ctx_free(ctx);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_mem_limit_env),
        cmocka_unit_test(test_block_size_env),
        cmocka_unit_test(test_strip_rows),
        cmocka_unit_test(test_tiling),
        cmocka_unit_test(test_mem_and_disk_same_cog),
        cmocka_unit_test(test_tiles_same_cog),
        cmocka_unit_test(test_tiles_errors),
        cmocka_unit_test(test_writers_close),
        cmocka_unit_test(test_tiles_memory), /* before any reader: GDAL's cache as a stage has it */
        cmocka_unit_test(test_window_reader),
    };
    return cmocka_run_group_tests(tests, tmpdir_setup, tmpdir_teardown);
}
