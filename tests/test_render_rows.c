/* trv-render's map streamed by windows (src/render/map_rows.c,
 * docs/scale.md) against brute force on whole arrays: the pixels'
 * footprint sums and counts, the categories' middle cells, the first
 * pass (the layer's range, the window's category counts), and the
 * hillshade's shade (the footprints' mean on the layer's grid, a window
 * with its one-cell margin, and the nearest cell through another CRS),
 * for tiles of 1 x 64, 7 x 7, 64 x 1, 13 x all, 256 x 256, 2 x 3 and the
 * whole layer (columns x rows; the sums bit for bit those of brute force's
 * order), downsampling (footprints that overlap) and enlarging. */
#include "test_common.h"

#include <math.h>
#include <stdlib.h>

#include "geo/block.h"
#include "render/map_priv.h"

enum { NX = 53, NY = 71 };

/* A NX x NY Float32 GeoTIFF of 30 m cells in EPSG:32616: a rough surface
 * (an LCG's values on a slope) with nodata -9999 at every 13th cell. */
static char *write_surface(trv_ctx *ctx, const char *name, int byte)
{
    char *wkt = NULL;
    assert_int_equal(geo_crs_wkt(ctx, "EPSG:32616", &wkt), TRV_OK);
    geo_grid g = {NX, NY, {700000, 30, 0, 4000000, 0, -30}, wkt};
    geo_raster *r = NULL;
    assert_int_equal(geo_raster_new(ctx, &g, byte ? GEO_U8 : GEO_F32, &r), TRV_OK);
    unsigned s = 12345;
    for (int i = 0; i < NX * NY; i++) {
        s = s * 1103515245u + 12345u;
        if (byte)
            r->u8[i] = i % 13 == 0 ? 0 : (unsigned char)(1 + (s >> 16) % 5);
        else
            r->f32[i] = i % 13 == 0 ? -9999.0f : (float)(100 + 0.5 * (i / NX) + (s >> 16) % 1000 / 100.0);
    }
    r->has_nodata = 1;
    r->nodata = byte ? 0 : -9999;
    char *path = trv_path_join(tmpdir, name);
    assert_int_equal(geo_raster_write(ctx, r, path, NULL), TRV_OK);
    geo_raster_free(r);
    free(wkt);
    return path;
}

/* render.c's footprints: pixel i covers cells lo[i] .. hi[i]. */
static void foot(int n_out, int n_cells, int *lo, int *hi)
{
    double k = (double)n_cells / n_out;
    for (int i = 0; i < n_out; i++) {
        int l = (int)floor(i * k + 1e-9), h = (int)ceil((i + 1) * k - 1e-9) - 1;
        if (k < 1)
            l = h = (int)floor((i + 0.5) * k);
        if (h < l)
            h = l;
        lo[i] = l < 0 ? 0 : l >= n_cells ? n_cells - 1 : l;
        hi[i] = h < 0 ? 0 : h >= n_cells ? n_cells - 1 : h;
    }
}

typedef struct map_case {
    int mw, mh;
    int cx0[200], cx1[200], cy0[200], cy1[200];
    rnd_foot f;
} map_case;

static void make_case(map_case *m, int mw, int mh, const geo_grid *map, const geo_grid *dem)
{
    m->mw = mw, m->mh = mh;
    foot(mw, map->nx, m->cx0, m->cx1);
    foot(mh, map->ny, m->cy0, m->cy1);
    m->f = (rnd_foot){mw, mh, m->cx0, m->cx1, m->cy0, m->cy1, map->nx * map->gt[1] / mw,
                      map->ny * fabs(map->gt[5]) / mh, map, dem};
}

/* Tiles of TILES[t][0] columns x TILES[t][1] rows (TRV_BLOCK_COLS, TRV_BLOCK_ROWS). */
static const int TILES[7][2] = {{1, 64}, {7, 7}, {64, 1}, {13, 100000}, {256, 256}, {100000, 100000}, {2, 3}};
enum { NTILES = 7 };

static void set_tile(int t)
{
    char v[16];
    snprintf(v, sizeof v, "%d", TILES[t][0]);
    setenv("TRV_BLOCK_COLS", v, 1);
    snprintf(v, sizeof v, "%d", TILES[t][1]);
    setenv("TRV_BLOCK_ROWS", v, 1);
}

/* Continuous and categorical cells of a window, against brute force. */
static void test_map_cells(void **state)
{
    (void)state;
    trv_ctx *ctx = trv_ctx_new();
    char *fpath = write_surface(ctx, "surf.tif", 0), *bpath = write_surface(ctx, "cats.tif", 1);
    geo_raster *whole = NULL, *cats = NULL;
    assert_int_equal(geo_raster_read(ctx, fpath, GEO_F32, &whole), TRV_OK);
    assert_int_equal(geo_raster_read(ctx, bpath, GEO_U8, &cats), TRV_OK);
    const int wins[2][4] = {{0, 0, NX, NY}, {5, 9, 40, 60}};
    const int sizes[3][2] = {{17, 23}, {35, 51}, {120, 160}}; /* overlapping footprints, and enlarging */
    for (int w = 0; w < 2; w++)
        for (int z = 0; z < 3; z++)
            for (int h = 0; h < NTILES; h++) {
                const int *win = wins[w];
                geo_grid map = {win[2] - win[0], win[3] - win[1], {0, 30, 0, 0, 0, -30}, NULL};
                map_case m;
                make_case(&m, sizes[z][0], sizes[z][1], &map, NULL);
                set_tile(h);
                geo_block_reader *rf = NULL, *rb = NULL;
                assert_int_equal(geo_block_reader_open(ctx, fpath, GEO_F32, 0, &rf), TRV_OK);
                assert_int_equal(geo_block_reader_open(ctx, bpath, GEO_U8, 0, &rb), TRV_OK);
                rnd_cells c = {0}, k = {.categorical = 1};
                assert_int_equal(rnd_map_cells(ctx, rf, win, &m.f, &c), TRV_OK);
                assert_int_equal(rnd_map_cells(ctx, rb, win, &m.f, &k), TRV_OK);
                for (int j = 0; j < m.mh; j++)
                    for (int i = 0; i < m.mw; i++) {
                        double sum = 0;
                        int n = 0;
                        for (int y = m.cy0[j]; y <= m.cy1[j]; y++)
                            for (int x = m.cx0[i]; x <= m.cx1[i]; x++) {
                                size_t q = (size_t)(win[1] + y) * NX + win[0] + x;
                                if (!geo_raster_is_nodata(whole, q))
                                    sum += whole->f32[q], n++;
                            }
                        size_t p = (size_t)j * m.mw + i;
                        assert_int_equal(c.n[p], n);
                        assert_true(c.sum[p] == sum);
                        size_t q = (size_t)(win[1] + (m.cy0[j] + m.cy1[j]) / 2) * NX + win[0] + (m.cx0[i] + m.cx1[i]) / 2;
                        assert_int_equal(k.code[p], cats->u8[q]);
                        assert_int_equal(k.nodata[p], geo_raster_is_nodata(cats, q));
                    }
                /* the first pass: the whole layer's range, the window's categories */
                double dmin, dmax, bmin = INFINITY, bmax = -INFINITY;
                size_t nvalid, bvalid = 0, count[256] = {0}, want[256] = {0};
                assert_int_equal(rnd_layer_minmax(ctx, rf, &dmin, &dmax, &nvalid), TRV_OK);
                for (size_t q = 0; q < (size_t)NX * NY; q++)
                    if (!geo_raster_is_nodata(whole, q))
                        bmin = fmin(bmin, whole->f32[q]), bmax = fmax(bmax, whole->f32[q]), bvalid++;
                assert_true(dmin == bmin && dmax == bmax);
                assert_int_equal(nvalid, bvalid);
                assert_int_equal(rnd_layer_counts(ctx, rb, win, count), TRV_OK);
                for (int y = win[1]; y < win[3]; y++)
                    for (int x = win[0]; x < win[2]; x++)
                        want[cats->u8[(size_t)y * NX + x]] += !geo_raster_is_nodata(cats, (size_t)y * NX + x);
                assert_memory_equal(count, want, sizeof count);
                rnd_cells_clear(&c);
                rnd_cells_clear(&k);
                geo_block_reader_close(rf);
                geo_block_reader_close(rb);
            }
    unsetenv("TRV_BLOCK_ROWS");
    unsetenv("TRV_BLOCK_COLS");
    geo_raster_free(whole);
    geo_raster_free(cats);
    free(fpath);
    free(bpath);
    trv_ctx_free(ctx);
}

/* The shade: on the DEM's own grid (whole and a window with its margin)
 * the footprints' mean of the whole DEM's hillshade cells > 0; on a map in
 * another CRS each pixel centre's nearest cell of it. */
static void test_map_shade(void **state)
{
    (void)state;
    trv_ctx *ctx = trv_ctx_new();
    char *path = write_surface(ctx, "dem.tif", 0);
    geo_raster *dem = NULL, *hs = NULL;
    rnd_light light;
    rnd_light_default(&light);
    assert_int_equal(geo_raster_read(ctx, path, GEO_F32, &dem), TRV_OK);
    assert_int_equal(rnd_hillshade(ctx, dem, &light, &hs), TRV_OK);
    const geo_grid *d = &dem->grid;
    const int wins[2][4] = {{0, 0, NX, NY}, {5, 9, 40, 60}};
    for (int w = 0; w < 2; w++)
        for (int h = 0; h < NTILES; h++) {
            const int *win = wins[w];
            geo_grid hg = {win[2] - win[0], win[3] - win[1],
                           {d->gt[0] + win[0] * d->gt[1], d->gt[1], 0, d->gt[3] + win[1] * d->gt[5], 0, d->gt[5]},
                           d->wkt};
            map_case m;
            make_case(&m, 19, 27, &hg, d);
            set_tile(h);
            geo_block_reader *rd = NULL;
            assert_int_equal(geo_block_reader_open(ctx, path, GEO_F32, 1, &rd), TRV_OK);
            float *shade = calloc((size_t)m.mw * m.mh, sizeof *shade);
            assert_int_equal(rnd_map_shade(ctx, rd, &m.f, win, &hg, shade), TRV_OK);
            size_t shaded = 0;
            for (int j = 0; j < m.mh; j++)
                for (int i = 0; i < m.mw; i++) {
                    double sum = 0;
                    int n = 0;
                    for (int y = m.cy0[j]; y <= m.cy1[j]; y++)
                        for (int x = m.cx0[i]; x <= m.cx1[i]; x++) {
                            float v = hs->f32[(size_t)(win[1] + y) * NX + win[0] + x];
                            if (v > 0)
                                sum += v, n++;
                        }
                    float want = n ? (float)(sum / n) : 0;
                    assert_true(shade[(size_t)j * m.mw + i] == want);
                    shaded += want > 0;
                }
            assert_true(shaded > (size_t)m.mw * m.mh / 2);
            free(shade);
            geo_block_reader_close(rd);
        }
    /* a map in UTM 17N over the DEM: the nearest hillshade cell of each pixel centre */
    char *wkt17 = NULL;
    assert_int_equal(geo_crs_wkt(ctx, "EPSG:32617", &wkt17), TRV_OK);
    geo_ct *ct = NULL;
    assert_int_equal(geo_ct_create(ctx, d->wkt, wkt17, &ct), TRV_OK);
    double cx = d->gt[0] + NX * 15, cy = d->gt[3] - NY * 15;
    assert_int_equal(geo_ct_points(ct, 1, &cx, &cy, NULL), TRV_OK);
    geo_ct_free(ct);
    geo_grid map = {40, 50, {cx - 600, 30, 0, cy + 750, 0, -30}, wkt17};
    assert_int_equal(geo_ct_create(ctx, wkt17, d->wkt, &ct), TRV_OK);
    for (int h = 0; h < NTILES; h++) {
        map_case m;
        make_case(&m, 33, 41, &map, d);
        set_tile(h);
        geo_block_reader *rd = NULL;
        assert_int_equal(geo_block_reader_open(ctx, path, GEO_F32, 1, &rd), TRV_OK);
        float *shade = calloc((size_t)m.mw * m.mh, sizeof *shade);
        int whole[4] = {0, 0, NX, NY};
        assert_int_equal(rnd_map_shade(ctx, rd, &m.f, whole, d, shade), TRV_OK);
        size_t shaded = 0;
        for (int j = 0; j < m.mh; j++)
            for (int i = 0; i < m.mw; i++) {
                double x = map.gt[0] + (i + 0.5) * m.f.upx, y = map.gt[3] - (j + 0.5) * m.f.upy;
                assert_int_equal(geo_ct_points(ct, 1, &x, &y, NULL), TRV_OK);
                double c = (x - d->gt[0]) / d->gt[1], r = (y - d->gt[3]) / d->gt[5];
                float want = c >= 0 && r >= 0 && c < NX && r < NY ? hs->f32[(size_t)r * NX + (size_t)c] : 0;
                float got = shade[(size_t)j * m.mw + i];
                /* geo_ct_line interpolates within a quarter cell: the cell
                 * may differ only where the centre lies that near an edge */
                double fc = c - floor(c), fr = r - floor(r);
                if (fc > 0.26 && fc < 0.74 && fr > 0.26 && fr < 0.74)
                    assert_true(got == want);
                shaded += got > 0;
            }
        assert_true(shaded > (size_t)m.mw * m.mh / 2);
        free(shade);
        geo_block_reader_close(rd);
    }
    geo_ct_free(ct);
    unsetenv("TRV_BLOCK_ROWS");
    unsetenv("TRV_BLOCK_COLS");
    free(wkt17);
    geo_raster_free(dem);
    geo_raster_free(hs);
    free(path);
    trv_ctx_free(ctx);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_map_cells),
        cmocka_unit_test(test_map_shade),
    };
    return cmocka_run_group_tests(tests, tmpdir_setup, tmpdir_teardown);
}
