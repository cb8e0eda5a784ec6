/* Lattice frames of the DEM refinement (src/kriging/frame.c, krige_priv.h
 * krg_frames; docs/method.md 1.7), against the exact per-block path
 * (et 0) and against independent geometry:
 *   - every frame a block gets: its samples within et source pixels of the
 *     frame's affine map o + Jc j + Jr i (recomputed here from the raw
 *     projected positions), its pattern the nmax offsets nearest to the
 *     block's centre under J by brute force, with a gap at the cut above
 *     the 4 e margin;
 *   - a lon/lat raster at 60 N straddling the UTM zone edge at 24 E,
 *     kriged in zone 35 (3 degrees from its meridian), and the Jacksboro
 *     3" DEM kriged in its UTM zone: frame path against et 0 within the
 *     first-order bound derived at frame_bound();
 *   - a regular UTM source at 90 m onto 7 m (no periodic stencil): the
 *     affine map is exact, one frame per tile, and the frame path equals the
 *     exact path to Float32's resolution (values near 1: 1.2e-7);
 *   - a cell's value does not depend on the window it is kriged in nor on
 *     the threads: the 60 N raster (with its hole) and the Jacksboro DEM
 *     refined on a grid and on the same grid without its first 64 columns
 *     (a multiple of the transforms' 32-point anchors, integer
 *     coordinates: the same target positions to the bit), on 2 threads
 *     and on 1, give the same bits in every common cell; the framed
 *     blocks are solved four at a time along a row from the first one a
 *     row misses, so the two windows group them differently;
 *   - the source's cell centres (krg_source_new) transformed on 1, 2, 3
 *     and all threads: the same bits, each the point OGR transforms alone
 *     (the threads' parts split the raster mid-row); with its last rows
 *     beyond the pole, the failure counted on every thread count. */
#include "test_common.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "geo/geo.h"

#include <ogr_srs_api.h>
#include "kriging/krige.h"
#include "kriging/krige_priv.h"

/* The frames' geometry, checked block by block from the raw positions. */
static size_t check_frames(const krg_source *src, const krg_model *m, int nmax, double et, size_t *blocks)
{
    trv_ctx *ctx = trv_ctx_new();
    krg_frames F;
    assert_int_equal(krg_frames_init(ctx, &F, src, m, nmax, INFINITY, et, 1), TRV_OK);
    assert_true(F.on);
    const geo_grid *g = &src->grid;
    size_t framed = 0;
    *blocks = 0;
    for (int qr = 0; qr < g->ny - 1; qr++)
        for (int qc = 0; qc < g->nx - 1; qc++) {
            (*blocks)++;
            const krg_frame *f = krg_frame_of(&F, qr, qc);
            if (!f)
                continue;
            framed++;
            assert_true(qr >= f->r0 && qr < f->r0 + f->size && qc >= f->c0 && qc < f->c0 + f->size);
            const double *J = f->J;
            double e = et * fmin(hypot(J[0], J[1]), hypot(J[2], J[3]));
            /* every sample of the block's pattern on the raster, and its corners */
            for (int k = -4; k < f->n; k++) {
                int i = k < 0 ? qr + (-k - 1) / 2 : qr + f->di[k], j = k < 0 ? qc + (-k - 1) % 2 : qc + f->dj[k];
                if (i < 0 || j < 0 || i >= g->ny || j >= g->nx)
                    continue;
                size_t c = (size_t)i * g->nx + j;
                double dx = src->wx[c] - (f->o[0] + J[0] * j + J[2] * i);
                double dy = src->wy[c] - (f->o[1] + J[1] * j + J[3] * i);
                assert_true(hypot(dx, dy) <= e);
            }
            /* the pattern: the nmax nearest offsets to (0.5, 0.5), by brute force */
            enum { W = 12 };
            double d[(2 * W + 2) * (2 * W + 2)];
            int nd = 0;
            for (int di = -W; di <= W + 1; di++)
                for (int dj = -W; dj <= W + 1; dj++)
                    d[nd++] = hypot(J[0] * (dj - 0.5) + J[2] * (di - 0.5), J[1] * (dj - 0.5) + J[3] * (di - 0.5));
            double in_max = 0, out_min = INFINITY;
            for (int k = 0; k < f->n; k++) {
                int di = f->di[k], dj = f->dj[k];
                assert_true(k == 0 || di > f->di[k - 1] || (di == f->di[k - 1] && dj > f->dj[k - 1])); /* row-major */
                in_max = fmax(in_max, hypot(J[0] * (dj - 0.5) + J[2] * (di - 0.5), J[1] * (dj - 0.5) + J[3] * (di - 0.5)));
            }
            int inside = 0;
            for (int k = 0; k < nd; k++) {
                int di = k / (2 * W + 2) - W, dj = k % (2 * W + 2) - W, mine = 0;
                for (int l = 0; l < f->n; l++)
                    mine |= f->di[l] == di && f->dj[l] == dj;
                inside += mine;
                if (!mine)
                    out_min = fmin(out_min, d[k]);
            }
            assert_int_equal(inside, f->n);
            assert_true(out_min - in_max > 4 * e);
        }
    krg_frames_free(&F);
    trv_ctx_free(ctx);
    return framed;
}

/* How far the frame path may be from the exact one. Every position the
 * frame path uses (samples, the block's centre, the target) is within
 * e = et p of the exact one (p the shorter pixel side in metres; the
 * target's two approximations, krg_srcline's and geo_ct_line's, add at
 * most 2e-4 px), so every distance kriging sees moves by at most 2 e' and
 * the neighbour set is the same (the pattern's gap exceeds 4 e). To first
 * order this is the exact kriging of the target displaced by at most 2 e'
 * relative to its samples (a common shift changes nothing), so z* moves by
 * at most |grad z*| 2 e', and |grad z*| <= 2 S, S the DEM's steepest
 * sample-to-sample slope (an interpolator's slope stays within twice the
 * data's); both outputs are Float32: 2 ulps of the largest value. */
static double frame_bound(const krg_source *src, double et, double zmax)
{
    const geo_grid *g = &src->grid;
    double S = 0, p = INFINITY;
    for (int i = 0; i + 1 < g->ny; i++)
        for (int j = 0; j + 1 < g->nx; j++) {
            size_t c = (size_t)i * g->nx + j, n2[2] = {c + 1, c + g->nx};
            for (int k = 0; k < 2; k++) {
                double h = hypot(src->wx[n2[k]] - src->wx[c], src->wy[n2[k]] - src->wy[c]);
                p = fmin(p, h);
                long a = src->point_of_cell[c], b = src->point_of_cell[n2[k]];
                if (a >= 0 && b >= 0)
                    S = fmax(S, fabs(src->pts->z[a] - src->pts->z[b]) / h);
            }
        }
    double e1 = et * p + 2e-4 * p;
    return 2 * S * 2 * e1 + 2 * zmax * 0x1p-23;
}

typedef struct diff {
    double dz, dv;           /* max |elevation diff|, max |variance diff| */
    size_t n;
} diff;

static diff compare(const geo_raster *a, const geo_raster *as, const geo_raster *b, const geo_raster *bs)
{
    diff d = {0, 0, 0};
    size_t n = (size_t)a->grid.nx * a->grid.ny;
    for (size_t i = 0; i < n; i++) {
        assert_int_equal(geo_raster_is_nodata(a, i), geo_raster_is_nodata(b, i));
        if (geo_raster_is_nodata(a, i))
            continue;
        d.dz = fmax(d.dz, fabs((double)a->f32[i] - b->f32[i]));
        d.dv = fmax(d.dv, fabs((double)as->f32[i] * as->f32[i] - (double)bs->f32[i] * bs->f32[i]));
        d.n++;
    }
    return d;
}

/* Refine src onto t with et and with 0; returns the difference, stats in st. */
static diff refine_both(const krg_source *src, const krg_model *m, int nmax, double et, const geo_grid *t,
                        krg_refine_stats *st)
{
    trv_ctx *ctx = trv_ctx_new();
    krg_index *ix = NULL;
    assert_int_equal(krg_index_new(ctx, src->pts, &ix), TRV_OK);
    krg_opts o;
    krg_opts_init(&o);
    o.nmax = nmax;
    o.threads = 2;
    geo_raster *P0 = NULL, *D0 = NULL, *P1 = NULL, *D1 = NULL;
    krg_refine_stats s0;
    assert_int_equal(krg_refine(ctx, src, ix, m, &o, t, 1, &P0, &D0, &s0), TRV_OK);
    assert_int_equal(s0.frame + s0.frames, 0);
    o.et = et;
    assert_int_equal(krg_refine(ctx, src, ix, m, &o, t, 1, &P1, &D1, st), TRV_OK);
    diff d = compare(P1, D1, P0, D0);
    geo_raster_free(P0);
    geo_raster_free(D0);
    geo_raster_free(P1);
    geo_raster_free(D1);
    krg_index_free(ix);
    trv_ctx_free(ctx);
    return d;
}

/* Refine src onto t and onto t without its first 64 columns (1 thread):
 * every common cell the same bits, elevation and standard deviation. */
static void check_windows(const krg_source *src, const krg_model *m, int nmax, const geo_grid *t)
{
    trv_ctx *ctx = trv_ctx_new();
    krg_index *ix = NULL;
    assert_int_equal(krg_index_new(ctx, src->pts, &ix), TRV_OK);
    krg_opts o;
    krg_opts_init(&o);
    o.nmax = nmax;
    o.et = KRG_ET_DEFAULT;
    o.threads = 2;
    geo_grid t2 = *t;
    t2.nx -= 64;
    t2.gt[0] += 64 * t->gt[1];
    geo_raster *P = NULL, *D = NULL, *P2 = NULL, *D2 = NULL;
    krg_refine_stats st, st2;
    assert_int_equal(krg_refine(ctx, src, ix, m, &o, t, 1, &P, &D, &st), TRV_OK);
    o.threads = 1;
    assert_int_equal(krg_refine(ctx, src, ix, m, &o, &t2, 1, &P2, &D2, &st2), TRV_OK);
    size_t framed = 0;
    for (int r = 0; r < t->ny; r++)
        for (int c = 64; c < t->nx; c++) {
            size_t i = (size_t)r * t->nx + c, j = (size_t)r * t2.nx + c - 64;
            if (memcmp(&P->f32[i], &P2->f32[j], sizeof(float)) != 0 || memcmp(&D->f32[i], &D2->f32[j], sizeof(float)))
                fail_msg("row %d column %d: %.9g (std %.9g), in the narrower window %.9g (std %.9g)", r, c, P->f32[i],
                         D->f32[i], P2->f32[j], D2->f32[j]);
            framed += P->f32[i] != -9999.0f;
        }
    printf("  windows: %zu common cells with data, the same bits; %zu and %zu targets by frames\n", framed, st.frame,
           st2.frame);
    assert_true(st2.frame > framed * 8 / 10);
    geo_raster_free(P);
    geo_raster_free(D);
    geo_raster_free(P2);
    geo_raster_free(D2);
    krg_index_free(ix);
    trv_ctx_free(ctx);
}

static void test_frames_60n(void **state)
{
    (void)state;
    trv_ctx *ctx = trv_ctx_new();
    char *ll = NULL, *utm = NULL;
    assert_int_equal(geo_crs_wkt(ctx, "EPSG:4326", &ll), TRV_OK);
    assert_int_equal(geo_crs_wkt(ctx, "EPSG:32635", &utm), TRV_OK);
    const double d = 3.0 / 3600;
    geo_grid g = {160, 90, {23.94, d, 0, 60.05, 0, -d}, ll}; /* 23.94 .. 24.07 E: across zone 34/35's edge */
    geo_raster *dem = NULL;
    assert_int_equal(geo_raster_new(ctx, &g, GEO_F32, &dem), TRV_OK);
    dem->has_nodata = 1;
    dem->nodata = -9999;
    for (int r = 0; r < g.ny; r++)
        for (int c = 0; c < g.nx; c++)
            dem->f32[r * g.nx + c] = (float)(150 + 30 * sin(c / 6.0) * cos(r / 5.0) + 0.4 * r + ((r * 13 + c * 7) % 5));
    for (int r = 40; r < 43; r++) /* a hole: its blocks take the exact path */
        for (int c = 70; c < 72; c++)
            dem->f32[r * g.nx + c] = -9999;
    krg_source *src = NULL;
    assert_int_equal(krg_source_new(ctx, dem, utm, 0, &src), TRV_OK);
    const krg_model mat = {KRG_MAT, 0.5, 600, 300, 1.5}, sph = {KRG_SPH, 2, 500, 800, 0};
    for (int k = 0; k < 4; k++) {
        const krg_model *m = k < 2 ? &mat : &sph;
        int nmax = k % 2 ? 36 : 64;
        double et = k < 3 ? 1e-3 : 1e-2;
        size_t blocks, framed = check_frames(src, m, nmax, et, &blocks);
        /* the DEM's extent in zone 35: about 331 900 .. 339 400 E, 6 651 700 .. 6 660 000 N */
        geo_grid t = {390, 430, {331700, 20, 0, 6660200, 0, -20}, utm};
        krg_refine_stats st;
        diff df = refine_both(src, m, nmax, et, &t, &st);
        double bound = frame_bound(src, et, 300);
        printf("  60 N, %s nmax %d et %g: %zu of %zu blocks framed; %zu targets by %zu frames (%zu fell back), "
               "%zu by blocks; max |dz| %.3g m (bound %.3g), max |dvar| %.3g\n",
               krg_model_name(m->type), nmax, et, framed, blocks, st.frame, st.frames, st.frame_fail, st.block,
               df.dz, bound, df.dv);
        assert_true(framed > blocks * 8 / 10);
        assert_true(st.frame > df.n * 8 / 10 && st.block > 0 && st.frames > 0);
        if (et < 1e-2) /* the curvature splits tiles */
            assert_true(st.frames > (size_t)((g.nx + 31) / 32 * ((g.ny + 31) / 32)));
        assert_true(df.dz <= bound);
        assert_true(df.dv <= 1e-3 * (m->nugget + m->psill));
    }
    /* a tolerance no frame meets (1e-7 px: 5 um): every frame fails, every
     * block takes its own system, the same bytes as et 0 */
    geo_grid t = {390, 430, {331700, 20, 0, 6660200, 0, -20}, utm};
    check_windows(src, &mat, 64, &t);
    krg_refine_stats st;
    diff df = refine_both(src, &mat, 36, 1e-7, &t, &st);
    printf("  60 N, et 1e-7: %zu targets by frames, %zu frames, %zu fell back; max |dz| %g\n", st.frame, st.frames,
           st.frame_fail, df.dz);
    assert_true(st.frame == 0 && st.frames == 0 && st.frame_fail > 0);
    assert_true(df.dz == 0 && df.dv == 0);
    krg_source_free(src);
    geo_raster_free(dem);
    free(ll);
    free(utm);
    trv_ctx_free(ctx);
}

static void test_frames_jacksboro(void **state)
{
    (void)state;
    geo_init();
    trv_ctx *ctx = trv_ctx_new();
    char *path = data_path("jacksboro/dem_3arcsec.tif"), *utm = NULL;
    geo_raster *dem = NULL;
    assert_int_equal(geo_raster_read(ctx, path, GEO_F32, &dem), TRV_OK);
    free(path);
    assert_int_equal(geo_crs_wkt(ctx, "EPSG:32616", &utm), TRV_OK);
    krg_source *src = NULL;
    assert_int_equal(krg_source_new(ctx, dem, utm, 0, &src), TRV_OK);
    const krg_model m = {KRG_MAT, 0.8, 900, 450, 1.5};
    size_t blocks, framed = check_frames(src, &m, 64, KRG_ET_DEFAULT, &blocks);
    /* a 60 m window over the middle of the DEM */
    double cx = src->wx[(size_t)172 * dem->grid.nx + 201], cy = src->wy[(size_t)172 * dem->grid.nx + 201];
    geo_grid t = {300, 260, {floor(cx / 60) * 60 - 9000, 60, 0, floor(cy / 60) * 60 + 7800, 0, -60}, utm};
    krg_refine_stats st;
    diff df = refine_both(src, &m, 64, KRG_ET_DEFAULT, &t, &st);
    double zmax = 0;
    for (size_t i = 0; i < src->pts->n; i++)
        zmax = fmax(zmax, fabs(src->pts->z[i]));
    double bound = frame_bound(src, KRG_ET_DEFAULT, zmax);
    printf("  Jacksboro 3\", nmax 64, et %g: %zu of %zu blocks framed; %zu targets by %zu frames (%zu fell back), "
           "%zu by blocks; max |dz| %.3g m (bound %.3g), max |dvar| %.3g\n",
           KRG_ET_DEFAULT, framed, blocks, st.frame, st.frames, st.frame_fail, st.block, df.dz, bound, df.dv);
    assert_true(framed > blocks * 9 / 10);
    assert_true(st.frame > df.n * 9 / 10);
    assert_true(df.dz <= bound);
    assert_true(df.dv <= 1e-4 * (m.nugget + m.psill));
    check_windows(src, &m, 64, &t);
    krg_source_free(src);
    geo_raster_free(dem);
    free(utm);
    trv_ctx_free(ctx);
}

static void test_frames_affine(void **state)
{
    (void)state;
    trv_ctx *ctx = trv_ctx_new();
    char *utm = NULL;
    assert_int_equal(geo_crs_wkt(ctx, "EPSG:32616", &utm), TRV_OK);
    geo_grid g = {70, 50, {740000, 90, 0, 4060000, 0, -90}, utm};
    geo_raster *dem = NULL;
    assert_int_equal(geo_raster_new(ctx, &g, GEO_F32, &dem), TRV_OK);
    dem->has_nodata = 1;
    dem->nodata = -9999;
    for (int r = 0; r < g.ny; r++)
        for (int c = 0; c < g.nx; c++)
            dem->f32[r * g.nx + c] = (float)(0.5 + 0.3 * sin(c / 5.0) * cos(r / 7.0) + 0.01 * ((r * 31 + c * 17) % 11));
    dem->f32[20 * g.nx + 30] = -9999;
    krg_source *src = NULL;
    assert_int_equal(krg_source_new(ctx, dem, utm, 0, &src), TRV_OK);
    assert_true(src->regular);
    const krg_model m = {KRG_GAU, 0.0001, 0.09, 400, 0};
    geo_grid t = {880, 630, {740010, 7, 0, 4059990, 0, -7}, utm}; /* 90 m -> 7 m: 90 offsets, no stencil */
    /* nmax 36 ties at the cut on this square lattice (offsets at 12.5 cells^2
     * from the centre: (3.5, 0.5) and (2.5, 2.5)): every frame refuses it */
    krg_refine_stats tie;
    diff dt = refine_both(src, &m, 36, 1e-9, &t, &tie);
    assert_true(tie.frame == 0 && tie.frames == 0 && tie.frame_fail > 0 && dt.dz == 0 && dt.dv == 0);
    for (int nmax = 16; nmax <= 32; nmax += 16) {
        size_t blocks, framed = check_frames(src, &m, nmax, 1e-9, &blocks);
        krg_refine_stats st;
        diff df = refine_both(src, &m, nmax, 1e-9, &t, &st);
        printf("  90 m -> 7 m, nmax %d: %zu of %zu blocks framed; %zu targets by %zu frames (%zu fell back), "
               "%zu by blocks, %zu by stencil; max |dz| %.3g, max |dvar| %.3g\n",
               nmax, framed, blocks, st.frame, st.frames, st.frame_fail, st.block, st.stencil, df.dz, df.dv);
        assert_int_equal(st.stencil, 0);
        assert_int_equal(framed, blocks);
        assert_int_equal(st.frames, 3 * 2); /* one per 32 x 32 tile: 69 x 49 blocks */
        assert_int_equal(st.frame_fail, 0);
        assert_true(st.frame > df.n * 8 / 10 && st.block > 0); /* borders and the hole: exact */
        assert_true(df.dz <= 1.2e-7);
        assert_true(df.dv <= 1e-9);
    }
    krg_source_free(src);
    /* rows 90.01 m apart: nmax 36 cuts the 12 offsets near 12.5 cells^2
     * (which tie on a square lattice) where the next one is ~0.034 m
     * farther: a pattern for et 1e-5 (4 e = 0.0036 m), none for et 1e-3
     * (4 e = 0.36 m: the exact neighbour sets could differ) */
    dem->grid.gt[5] = -90.01;
    assert_int_equal(krg_source_new(ctx, dem, utm, 0, &src), TRV_OK);
    size_t blocks, near = check_frames(src, &m, 36, 1e-5, &blocks), far = check_frames(src, &m, 36, 1e-3, &blocks);
    printf("  rows 90.01 m apart, nmax 36: %zu of %zu blocks framed at et 1e-5, %zu at et 1e-3\n", near, blocks, far);
    assert_int_equal(near, blocks);
    assert_int_equal(far, 0);
    krg_source_free(src);
    geo_raster_free(dem);
    free(utm);
    trv_ctx_free(ctx);
}

/* The centres of a 131 x 113 lon/lat raster (14 803 cells: three parts of
 * at least 4096) on 1, 2, 3 and all threads against OGR one point at a time. */
static void test_source_threads(void **state)
{
    (void)state;
    trv_ctx *ctx = trv_ctx_new();
    char *ll = NULL, *utm = NULL;
    assert_int_equal(geo_crs_wkt(ctx, "EPSG:4326", &ll), TRV_OK);
    assert_int_equal(geo_crs_wkt(ctx, "EPSG:32635", &utm), TRV_OK);
    const double d = 3.0 / 3600;
    geo_grid g = {131, 113, {23.94, d, 0, 60.05, 0, -d}, ll};
    geo_raster *dem = NULL;
    assert_int_equal(geo_raster_new(ctx, &g, GEO_F32, &dem), TRV_OK);
    dem->has_nodata = 1;
    dem->nodata = -9999;
    for (size_t i = 0; i < (size_t)g.nx * g.ny; i++)
        dem->f32[i] = i % 97 == 5 ? -9999.0f : (float)(100 + i % 13);
    OGRSpatialReferenceH a = OSRNewSpatialReference(ll), b = OSRNewSpatialReference(utm);
    OSRSetAxisMappingStrategy(a, OAMS_TRADITIONAL_GIS_ORDER);
    OSRSetAxisMappingStrategy(b, OAMS_TRADITIONAL_GIS_ORDER);
    OGRCoordinateTransformationH ct = OCTNewCoordinateTransformation(a, b);
    assert_non_null(ct);
    krg_source *s1 = NULL;
    assert_int_equal(krg_source_new(ctx, dem, utm, 1, &s1), TRV_OK);
    assert_false(s1->regular);
    for (int r = 0; r < g.ny; r++)
        for (int c = 0; c < g.nx; c++) {
            double x = g.gt[0] + (c + 0.5) * d, y = g.gt[3] - (r + 0.5) * d;
            assert_true(OCTTransform(ct, 1, &x, &y, NULL));
            size_t i = (size_t)r * g.nx + c;
            assert_true(fabs(s1->wx[i] - x) < 1e-6 && fabs(s1->wy[i] - y) < 1e-6);
        }
    static const int threads[] = {2, 3, 0};
    for (int k = 0; k < 3; k++) {
        krg_source *s = NULL;
        assert_int_equal(krg_source_new(ctx, dem, utm, threads[k], &s), TRV_OK);
        size_t n = (size_t)g.nx * g.ny;
        assert_memory_equal(s->wx, s1->wx, n * sizeof *s->wx);
        assert_memory_equal(s->wy, s1->wy, n * sizeof *s->wy);
        assert_int_equal(s->pts->n, s1->pts->n);
        assert_memory_equal(s->pts->x, s1->pts->x, s1->pts->n * sizeof *s->pts->x);
        assert_memory_equal(s->point_of_cell, s1->point_of_cell, n * sizeof *s->point_of_cell);
        krg_source_free(s);
    }
    krg_source_free(s1);
    /* the last rows beyond the south pole: failed points in the threads'
     * parts are counted like this thread's */
    dem->grid.gt[3] = -89.95;
    for (int k = 0; k < 4; k++) {
        krg_source *s = NULL;
        assert_int_equal(krg_source_new(ctx, dem, utm, k ? k : 1, &s), TRV_ERR_CRS);
        assert_null(s);
    }
    OCTDestroyCoordinateTransformation(ct);
    OSRDestroySpatialReference(a);
    OSRDestroySpatialReference(b);
    geo_raster_free(dem);
    free(ll);
    free(utm);
    trv_ctx_free(ctx);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_frames_affine),
        cmocka_unit_test(test_frames_60n),
        cmocka_unit_test(test_frames_jacksboro),
        cmocka_unit_test(test_source_threads),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
