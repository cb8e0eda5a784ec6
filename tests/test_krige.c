/* Ordinary kriging against R gstat 2.1.0 on the Meuse data
 * (tests/data/gstat): predictions and variances at every node of
 * the 40 m grid with all points and with the 20 nearest, within 1e-6
 * relative; leave-one-out predictions, and RMSE within 1e-4. The model is
 * gstat's own fit (the *_fit.csv rows), so only the kriging is compared.
 * Also: the regular-grid stencil against per-block systems (1e-9), block
 * kriging of a DEM against per-target kriging with the same sets, the
 * neighbour index against brute force, and error paths. The model choice
 * on 1 thread and on 2 (its full variogram then on a thread of its own
 * beside the leave-one-out sets): the same variogram (and that of
 * krg_variogram called directly), candidates and model, bit for bit; its
 * errors the same. */
#include "test_common.h"

#include <math.h>

#include "geo/block.h"
#include "kriging/krige.h"
#include "kriging/krige_priv.h"

/* Meuse points with z = elev or log(zinc). */
static krg_points *meuse(int logzinc)
{
    trv_ctx *ctx = trv_ctx_new();
    trv_csv *c = test_csv_load(data_path("meuse/meuse_points.csv"));
    krg_points *p = NULL;
    assert_int_equal(krg_points_new(ctx, trv_csv_nrows(c), &p), TRV_OK);
    for (size_t i = 0; i < p->n; i++) {
        p->x[i] = test_csv_num(c, i, "x");
        p->y[i] = test_csv_num(c, i, "y");
        p->z[i] = logzinc ? log(test_csv_num(c, i, "zinc")) : test_csv_num(c, i, "elev");
    }
    trv_csv_free(c);
    trv_ctx_free(ctx);
    return p;
}

/* gstat's fitted Nug + Sph model. */
static krg_model fitted(const char *name)
{
    char rel[128];
    snprintf(rel, sizeof rel, "gstat/meuse_%s_fit.csv", name);
    trv_csv *c = test_csv_load(testdata_path(rel));
    krg_model m = {KRG_SPH, 0, 0, 0, 0};
    int cm = trv_csv_col(c, "model");
    for (size_t r = 0; r < trv_csv_nrows(c); r++) {
        if (!strcmp(trv_csv_cell(c, r, cm), "Nug"))
            m.nugget = test_csv_num(c, r, "psill");
        else {
            assert_string_equal(trv_csv_cell(c, r, cm), "Sph");
            m.psill = test_csv_num(c, r, "psill");
            m.range = test_csv_num(c, r, "range");
        }
    }
    trv_csv_free(c);
    return m;
}

static double rel(double a, double b) { return fabs(a - b) / fmax(fabs(b), 1e-300); }

static void check_grid(const char *name, int logzinc, int nmax)
{
    trv_ctx *ctx = trv_ctx_new();
    krg_points *p = meuse(logzinc);
    krg_model m = fitted(name);
    krg_index *ix = NULL;
    assert_int_equal(krg_index_new(ctx, p, &ix), TRV_OK);
    char r[128];
    snprintf(r, sizeof r, "gstat/meuse_%s_ok_nmax%s.csv", name, nmax ? "20" : "all");
    trv_csv *ref = test_csv_load(testdata_path(r));
    size_t n = trv_csv_nrows(ref);
    double *tx = malloc(n * sizeof *tx), *ty = malloc(n * sizeof *ty), *pr = malloc(n * sizeof *pr),
           *va = malloc(n * sizeof *va);
    for (size_t i = 0; i < n; i++) {
        tx[i] = test_csv_num(ref, i, "x");
        ty[i] = test_csv_num(ref, i, "y");
    }
    krg_opts o;
    krg_opts_init(&o);
    o.nmax = nmax;
    assert_int_equal(krg_predict(ctx, p, ix, &m, &o, n, tx, ty, pr, va), TRV_OK);
    double worst_p = 0, worst_v = 0;
    for (size_t i = 0; i < n; i++) {
        worst_p = fmax(worst_p, rel(pr[i], test_csv_num(ref, i, "pred")));
        worst_v = fmax(worst_v, rel(va[i], test_csv_num(ref, i, "var")));
        if (rel(pr[i], test_csv_num(ref, i, "pred")) > 1e-6)
            printf("  node %zu (%g, %g): %.10g vs %.10g\n", i, tx[i], ty[i], pr[i], test_csv_num(ref, i, "pred"));
    }
    printf("  %s nmax %s: %zu nodes, max relative difference pred %.2e, var %.2e\n", name, nmax ? "20" : "all", n,
           worst_p, worst_v);
    assert_true(worst_p <= 1e-6);
    assert_true(worst_v <= 1e-6);
    free(tx);
    free(ty);
    free(pr);
    free(va);
    trv_csv_free(ref);
    krg_index_free(ix);
    krg_points_free(p);
    trv_ctx_free(ctx);
}

static void test_ok_logzinc(void **state)
{
    (void)state;
    check_grid("logzinc", 1, 0);
    check_grid("logzinc", 1, 20);
}

static void test_ok_elev(void **state)
{
    (void)state;
    check_grid("elev", 0, 0);
    check_grid("elev", 0, 20);
}

static void check_loocv(const char *name, int logzinc, double want_rmse)
{
    trv_ctx *ctx = trv_ctx_new();
    krg_points *p = meuse(logzinc);
    krg_model m = fitted(name);
    krg_index *ix = NULL;
    assert_int_equal(krg_index_new(ctx, p, &ix), TRV_OK);
    char r[128];
    snprintf(r, sizeof r, "gstat/meuse_%s_loocv.csv", name);
    trv_csv *ref = test_csv_load(testdata_path(r));
    assert_int_equal(trv_csv_nrows(ref), p->n);
    double *pr = malloc(p->n * sizeof *pr), *va = malloc(p->n * sizeof *va);
    krg_opts o;
    krg_opts_init(&o);
    o.nmax = 0; /* krge.cv's default: the global neighbourhood */
    assert_int_equal(krg_cv(ctx, p, ix, &m, &o, p->n, NULL, pr, va), TRV_OK);
    double worst = 0;
    for (size_t i = 0; i < p->n; i++) {
        worst = fmax(worst, rel(pr[i], test_csv_num(ref, i, "pred")));
        worst = fmax(worst, rel(va[i], test_csv_num(ref, i, "var")));
    }
    krg_cv_stats cs;
    krg_cv_summary(p->z, pr, va, p->n, &cs);
    printf("  %s LOOCV: RMSE %.6f (gstat %.4f), max relative difference %.2e\n", name, cs.rmse, want_rmse, worst);
    assert_true(fabs(cs.rmse - want_rmse) <= 1e-4);
    assert_true(worst <= 1e-6);
    free(pr);
    free(va);
    trv_csv_free(ref);
    krg_index_free(ix);
    krg_points_free(p);
    trv_ctx_free(ctx);
}

static void test_loocv(void **state)
{
    (void)state;
    check_loocv("logzinc", 1, 0.3918);
    check_loocv("elev", 0, 0.7934);
}

/* The index against brute force, ties broken by index. */
static void test_index(void **state)
{
    (void)state;
    trv_ctx *ctx = trv_ctx_new();
    krg_points *p = NULL;
    assert_int_equal(krg_points_new(ctx, 2000, &p), TRV_OK);
    uint64_t s = 7;
    for (size_t i = 0; i < p->n; i++) { /* a lattice with ties, and random points */
        s = s * 6364136223846793005ull + 1442695040888963407ull;
        if (i < 400) {
            p->x[i] = (double)(i % 20);
            p->y[i] = (double)(i / 20);
        } else {
            p->x[i] = 20.0 * (double)(s >> 11) / 9007199254740992.0;
            s = s * 6364136223846793005ull + 1442695040888963407ull;
            p->y[i] = 20.0 * (double)(s >> 11) / 9007199254740992.0 + 0.5;
        }
        p->z[i] = 0;
    }
    krg_index *ix = NULL;
    assert_int_equal(krg_index_new(ctx, p, &ix), TRV_OK);
    long idx[40], bidx[40];
    double d2[40], bd2[40];
    for (int q = 0; q < 300; q++) {
        double x = -3 + 26.0 * (q % 17) / 16.0, y = -3 + 26.0 * (q / 17) / 17.0;
        double maxd = q % 3 == 0 ? 1.3 : INFINITY;
        int k = 1 + q % 40;
        long skip = q % 5 == 0 ? q : -1;
        int n = krg_index_nearest(ix, x, y, k, maxd, skip, idx, d2);
        int m = 0; /* brute force: every candidate, sorted by (distance, later index first) */
        static double cd[2000];
        static long ci[2000];
        for (size_t i = 0; i < p->n; i++) {
            double dd = (p->x[i] - x) * (p->x[i] - x) + (p->y[i] - y) * (p->y[i] - y);
            if ((long)i == skip || dd > maxd * maxd)
                continue;
            int j = m++;
            while (j > 0 && (dd < cd[j - 1] || (dd == cd[j - 1] && (long)i > ci[j - 1]))) {
                cd[j] = cd[j - 1];
                ci[j] = ci[j - 1];
                j--;
            }
            cd[j] = dd;
            ci[j] = (long)i;
        }
        if (m > k)
            m = k;
        memcpy(bidx, ci, (size_t)m * sizeof *bidx);
        memcpy(bd2, cd, (size_t)m * sizeof *bd2);
        assert_int_equal(n, m);
        for (int i = 0; i < n; i++)
            assert_int_equal(idx[i], bidx[i]);
    }
    /* duplicates are refused */
    p->x[1500] = p->x[1501];
    p->y[1500] = p->y[1501];
    krg_index *dup = NULL;
    assert_int_equal(krg_index_new(ctx, p, &dup), TRV_ERR_DATA);
    assert_contains(trv_errmsg(ctx), "duplicate points 1500 and 1501");
    krg_index_free(ix);
    krg_points_free(p);
    trv_ctx_free(ctx);
}

/* A DEM on a projected grid with holes: the stencil against per-block
 * systems (1e-9), and block kriging against krg_predict with the block's
 * own neighbour set at targets that sit on block centres (where the
 * block's set is the target's own nearest set). */
static void test_refine_paths(void **state)
{
    (void)state;
    trv_ctx *ctx = trv_ctx_new();
    char *utm = NULL;
    assert_int_equal(geo_crs_wkt(ctx, "EPSG:32616", &utm), TRV_OK);
    geo_grid g = {60, 45, {740000, 90, 0, 4060000, 0, -90}, utm};
    geo_raster *dem = NULL;
    assert_int_equal(geo_raster_new(ctx, &g, GEO_F32, &dem), TRV_OK);
    dem->has_nodata = 1;
    dem->nodata = -9999;
    for (int r = 0; r < g.ny; r++)
        for (int c = 0; c < g.nx; c++)
            dem->f32[r * g.nx + c] = (float)(300 + 40 * sin(c / 5.0) * cos(r / 7.0) + 0.5 * c + ((r * 31 + c * 17) % 11));
    for (int r = 20; r < 24; r++) /* a hole */
        for (int c = 30; c < 33; c++)
            dem->f32[r * g.nx + c] = -9999;
    krg_source *src = NULL;
    assert_int_equal(krg_source_new(ctx, dem, utm, 0, &src), TRV_OK);
    assert_true(src->regular);
    krg_index *ix = NULL;
    assert_int_equal(krg_index_new(ctx, src->pts, &ix), TRV_OK);
    krg_model m = {KRG_GAU, 1.0, 900.0, 400.0, 0};
    krg_opts o;
    krg_opts_init(&o);
    o.threads = 2;
    geo_grid t = {180, 135, {740000, 30, 0, 4060000, 0, -30}, utm}; /* 90 m -> 30 m */
    geo_raster *fast = NULL, *fs = NULL, *slow = NULL, *ss = NULL;
    krg_refine_stats a, b;
    assert_int_equal(krg_refine(ctx, src, ix, &m, &o, &t, 1, &fast, &fs, &a), TRV_OK);
    assert_int_equal(krg_refine(ctx, src, ix, &m, &o, &t, 0, &slow, &ss, &b), TRV_OK);
    printf("  stencil %zu + block %zu targets; without the stencil %zu blocks (%zu systems)\n", a.stencil, a.block,
           b.block, b.systems);
    assert_true(a.stencil > 15000);
    assert_true(a.block > 0); /* borders and the hole fell back */
    assert_int_equal(b.stencil, 0);
    double worst = 0, worst_v = 0, sill = m.nugget + m.psill;
    for (int i = 0; i < t.nx * t.ny; i++) {
        assert_int_equal(geo_raster_is_nodata(fast, i), geo_raster_is_nodata(slow, i));
        worst = fmax(worst, fabs((double)fast->f32[i] - slow->f32[i]) / fabs(slow->f32[i]));
        /* variance, not std: where a target sits on a sample the variance is 0
         * up to rounding, and a square root magnifies that noise */
        double vf = (double)fs->f32[i] * fs->f32[i], vs = (double)ss->f32[i] * ss->f32[i];
        worst_v = fmax(worst_v, fabs(vf - vs) / sill);
    }
    printf("  stencil vs per-block: max relative difference %.2e (elevation), %.2e of the sill (variance)\n", worst,
           worst_v);
    /* the outputs are Float32: equal to its resolution (the double-precision
     * weights agree to ~1e-12; see the block-centre check below) */
    assert_true(worst <= 1e-7);
    assert_true(worst_v <= 1e-6);

    /* A target at a block centre: the block's set (the 4 x 4 around it) is
     * also the target's own nearest 16, so the dual-form block path must give
     * what krg_predict's direct solve gives. Block (7, 10): centre at
     * sample coordinates (10.5, 7.5) -> x = 740000 + 11 * 90, y = 4060000 - 8 * 90. */
    double cx = 740000 + 11 * 90, cy = 4060000 - 8 * 90, px, pv;
    o.nmax = 16;
    assert_int_equal(krg_predict(ctx, src->pts, ix, &m, &o, 1, &cx, &cy, &px, &pv), TRV_OK);
    geo_grid t2 = {1, 1, {cx - 5, 10, 0, cy + 5, 0, -10}, utm};
    geo_raster *one = NULL, *one_s = NULL;
    assert_int_equal(krg_refine(ctx, src, ix, &m, &o, &t2, 0, &one, &one_s, NULL), TRV_OK);
    printf("  block centre: block path %.6f (std %.6f), direct %.6f (std %.6f)\n", one->f32[0], one_s->f32[0], px,
           sqrt(pv));
    assert_float_equal(one->f32[0], px, 1e-4);
    assert_float_equal(one_s->f32[0], sqrt(pv), 1e-5);
    geo_raster_free(one);
    geo_raster_free(one_s);
    geo_raster_free(fast);
    geo_raster_free(fs);
    geo_raster_free(slow);
    geo_raster_free(ss);
    krg_index_free(ix);
    krg_source_free(src);
    geo_raster_free(dem);
    free(utm);
    trv_ctx_free(ctx);
}

/* The OK system of n points at (x, y), solved from scratch (Gaussian
 * elimination with partial pivoting in long double on the bordered
 * variogram matrix): the prediction, and the variance w'g0 + mu. */
static double ok_direct(const krg_points *p, const krg_model *m, const long *idx, int n, double x, double y,
                        double *var)
{
    enum { MAXN = 40 };
    long double A[MAXN + 1][MAXN + 2];
    int N = n + 1;
    for (int i = 0; i < n; i++) {
        for (int j = 0; j < n; j++)
            A[i][j] = krg_gamma(m, hypot(p->x[idx[i]] - p->x[idx[j]], p->y[idx[i]] - p->y[idx[j]]));
        A[i][n] = A[n][i] = 1;
        A[i][N] = krg_gamma(m, hypot(p->x[idx[i]] - x, p->y[idx[i]] - y));
    }
    A[n][n] = 0;
    A[n][N] = 1;
    long double g0[MAXN + 1];
    for (int i = 0; i < N; i++)
        g0[i] = A[i][N];
    for (int k = 0; k < N; k++) {
        int piv = k;
        for (int i = k + 1; i < N; i++)
            if (fabsl(A[i][k]) > fabsl(A[piv][k]))
                piv = i;
        for (int j = 0; j <= N; j++) {
            long double tmp = A[k][j];
            A[k][j] = A[piv][j];
            A[piv][j] = tmp;
        }
        for (int i = k + 1; i < N; i++) {
            long double f = A[i][k] / A[k][k];
            for (int j = k; j <= N; j++)
                A[i][j] -= f * A[k][j];
        }
    }
    long double w[MAXN + 1], z = 0, v = 0;
    for (int i = N - 1; i >= 0; i--) {
        long double acc = A[i][N];
        for (int j = i + 1; j < N; j++)
            acc -= A[i][j] * w[j];
        w[i] = acc / A[i][i];
    }
    for (int i = 0; i < n; i++)
        z += w[i] * p->z[idx[i]];
    for (int i = 0; i < N; i++)
        v += w[i] * g0[i];
    *var = (double)v;
    return (double)z;
}

/* A lon/lat DEM at 60 N (3" cells: 46 m east-west, 93 m north-south), kriged
 * onto a 20 m UTM grid: no stencil applies, every target goes through its
 * block's system (covariance form for Mat, Sph and Gau; the inverse form
 * for Pow, which has no sill). Each target against ok_direct over the same
 * neighbour set (the nmax samples nearest to the block's centre, the block
 * found as grid.c does): elevation within 2e-7 relative and variance
 * within 1e-6 of the largest variance, i.e. Float32's resolution (the double results
 * agree to ~1e-12). Targets within 1e-3 cell of a block edge are skipped:
 * the row transform is interpolated to 1e-4 cell, so the block could be
 * either. */
static void check_lonlat(trv_ctx *ctx, const krg_model *m, int nmax)
{
    char *ll = NULL, *utm = NULL;
    assert_int_equal(geo_crs_wkt(ctx, "EPSG:4326", &ll), TRV_OK);
    assert_int_equal(geo_crs_wkt(ctx, "EPSG:32635", &utm), TRV_OK);
    const double d = 3.0 / 3600;
    geo_grid g = {36, 24, {24.5, d, 0, 60.02, 0, -d}, ll};
    geo_raster *dem = NULL;
    assert_int_equal(geo_raster_new(ctx, &g, GEO_F32, &dem), TRV_OK);
    dem->has_nodata = 1;
    dem->nodata = -9999;
    for (int r = 0; r < g.ny; r++)
        for (int c = 0; c < g.nx; c++)
            dem->f32[r * g.nx + c] = (float)(120 + 25 * sin(c / 4.0) * cos(r / 3.0) + 0.7 * r + ((r * 13 + c * 7) % 5));
    dem->f32[10 * g.nx + 20] = -9999; /* a hole: neighbour sets around it change */
    krg_source *src = NULL;
    assert_int_equal(krg_source_new(ctx, dem, utm, 0, &src), TRV_OK);
    assert_false(src->regular);
    krg_index *ix = NULL;
    assert_int_equal(krg_index_new(ctx, src->pts, &ix), TRV_OK);
    krg_opts o;
    krg_opts_init(&o);
    o.nmax = nmax;
    o.threads = 2;
    /* the DEM spans about 360 580..362 330 E, 6 653 980..6 656 270 N (turned
     * by 2.2 degrees: the zone's meridian is 27 E); the grid overlaps it */
    geo_grid t = {90, 120, {360560, 20, 0, 6656300, 0, -20}, utm};
    geo_raster *P = NULL, *D = NULL;
    krg_refine_stats st;
    assert_int_equal(krg_refine(ctx, src, ix, m, &o, &t, 1, &P, &D, &st), TRV_OK);
    assert_int_equal(st.stencil, 0);
    geo_ct *to_ll = NULL;
    assert_int_equal(geo_ct_create(ctx, utm, ll, &to_ll), TRV_OK);
    double worst = 0, worst_dv = 0, vmax = 0;
    long idx[64];
    double d2[64];
    size_t checked = 0;
    for (int row = 0; row < t.ny; row++)
        for (int col = 0; col < t.nx; col++) {
            double x = geo_grid_x(&t, col), y = geo_grid_y(&t, row), lon = x, lat = y;
            int ok = 0;
            geo_ct_points(to_ll, 1, &lon, &lat, &ok);
            double u = (lon - g.gt[0]) / g.gt[1] - 0.5, v = (lat - g.gt[3]) / g.gt[5] - 0.5;
            size_t i = (size_t)row * t.nx + col;
            if (!ok || u < -0.5 || v < -0.5 || u > g.nx - 0.5 || v > g.ny - 0.5) {
                assert_true(geo_raster_is_nodata(P, i));
                continue;
            }
            if (fabs(u - floor(u + 0.5)) < 1e-3 || fabs(v - floor(v + 0.5)) < 1e-3)
                continue;
            int qc = (int)floor(u), qr = (int)floor(v);
            qc = qc < 0 ? 0 : qc > g.nx - 2 ? g.nx - 2 : qc;
            qr = qr < 0 ? 0 : qr > g.ny - 2 ? g.ny - 2 : qr;
            double ax = 0, ay = 0;
            for (int k = 0; k < 4; k++) {
                size_t cell = (size_t)(qr + k / 2) * g.nx + qc + k % 2;
                ax += 0.25 * src->wx[cell];
                ay += 0.25 * src->wy[cell];
            }
            int n = krg_index_nearest(ix, ax, ay, nmax, INFINITY, -1, idx, d2);
            double var, z = ok_direct(src->pts, m, idx, n, x, y, &var);
            assert_false(geo_raster_is_nodata(P, i));
            worst = fmax(worst, fabs(P->f32[i] - z) / fabs(z));
            worst_dv = fmax(worst_dv, fabs((double)D->f32[i] * D->f32[i] - var));
            vmax = fmax(vmax, var);
            checked++;
        }
    printf("  %s, nmax %d: %zu targets by %zu block systems; %zu checked: max relative difference %.2e "
           "(elevation), %.2e of the largest (variance)\n",
           krg_model_name(m->type), nmax, st.block, st.systems, checked, worst, worst_dv / vmax);
    assert_true(checked > 5000);
    /* every block in the covariance form but Pow's (no sill): a wrong
     * Cholesky factor would hide behind the inverse form's fallback */
    assert_int_equal(st.cov, m->type == KRG_POW ? 0 : st.systems);
    assert_true(worst <= 2e-7);
    assert_true(worst_dv <= 1e-6 * vmax);
    geo_ct_free(to_ll);
    geo_raster_free(P);
    geo_raster_free(D);
    krg_index_free(ix);
    krg_source_free(src);
    geo_raster_free(dem);
    free(ll);
    free(utm);
}

static void test_refine_lonlat(void **state)
{
    (void)state;
    trv_ctx *ctx = trv_ctx_new();
    const krg_model mat = {KRG_MAT, 0, 600, 60, 2.5}, sph = {KRG_SPH, 4, 500, 400, 0},
                    gau = {KRG_GAU, 0.5, 500, 150, 0}, pow_ = {KRG_POW, 0, 0.8, 1.5, 0};
    check_lonlat(ctx, &mat, 16);
    check_lonlat(ctx, &mat, 25);
    check_lonlat(ctx, &sph, 16);
    check_lonlat(ctx, &gau, 14); /* 14 = 4 + 4 + 4 + 2: block_dist's AVX and SSE2 parts; 25 its tail */
    check_lonlat(ctx, &pow_, 16);
    trv_ctx_free(ctx);
}

/* krg_srcline (docs/method.md 1.7) against geo_ct_line on rows of 10 to
 * 30 m UTM targets (EPSG:32616) taken to lon/lat with 1/16 to 8 times the
 * DEM's tolerance (1e-4 of 3"), for a lon/lat grid of 1e-8 degree cells, so
 * fine that the quadratic's error is a sizeable part of a cell and many
 * targets lie near a cell edge: every target's coordinates are
 * geo_ct_line's to the bit, or (where geo_ct_line transformed exactly)
 * within 1e-3 cells of them; and every target's source cell (floor of u
 * and v) is the same. Some targets must have been approximated, some near
 * an edge transformed exactly, and there must be targets whose bare
 * approximation (a run on 1-degree cells, where no target is near an
 * edge) lies in another cell: what the margin is there for. */
static void test_srcline(void **state)
{
    (void)state;
    trv_ctx *ctx = trv_ctx_new();
    char *utm = NULL, *ll = NULL;
    assert_int_equal(geo_crs_wkt(ctx, "EPSG:32616", &utm), TRV_OK);
    assert_int_equal(geo_crs_wkt(ctx, "EPSG:4326", &ll), TRV_OK);
    geo_ct *a = NULL, *b = NULL;
    assert_int_equal(geo_ct_create(ctx, utm, ll, &a), TRV_OK);
    assert_int_equal(geo_ct_create(ctx, utm, ll, &b), TRV_OK);
    enum { N = 1033 };
    const double cell = 1e-8, tol = 1e-4 * 3.0 / 3600;
    geo_grid g = {1000000000, 1000000000, {-84.4, cell, 0, 36.8, 0, -cell}, ll};
    geo_grid coarse = {1000, 1000, {-100, 1, 0, 50, 0, -1}, ll};
    krg_srcline s, s2, sp;
    assert_int_equal(krg_srcline_init(ctx, &s, N), TRV_OK);
    assert_int_equal(krg_srcline_init(ctx, &s2, N), TRV_OK);
    assert_int_equal(krg_srcline_init(ctx, &sp, 1), TRV_OK); /* grows */
    static double xs[N], ys[N], gx[N], gy[N], bx[N], by[N], px[N], py[N];
    static int ok[N], gok[N], bok[N], pok[N];
    /* parts of the row (krg_srcline_part): starts on and beside the 32-point
     * anchors, one point, the first and last points, the whole row */
    static const int part[][2] = {{0, 1},     {0, N},     {31, 32},   {32, 33},  {64, 65},   {64, 320},
                                  {63, 97},   {96, 353},  {517, 518}, {500, N},  {1024, N},  {N - 1, N},
                                  {320, 330}, {33, 1000}, {993, 1025}, {128, 129}};
    size_t parts = 0;
    size_t same = 0, close = 0, flips = 0;
    double worst = 0;
#define U(x) (((x) - g.gt[0]) / g.gt[1] - 0.5)
#define V(y) (((y) - g.gt[3]) / g.gt[5] - 0.5)
    for (int r = 0; r < 200; r++) {
        double dx = 10 + 2 * (r % 11), x0 = 740015 + 7.3 * r, y = 4060015 - 123.7 * r;
        double tl = ldexp(tol, r % 8 - 4); /* 1/16 to 8 times: some intervals just either side of it */
        assert_int_equal(krg_srcline_run(ctx, &s, a, &g, x0, dx, y, N, tl, xs, ys, ok), TRV_OK);
        assert_int_equal(krg_srcline_run(ctx, &s2, a, &coarse, x0, dx, y, N, tl, bx, by, bok), TRV_OK);
        assert_int_equal(geo_ct_line(ctx, b, x0, dx, y, N, tl, gx, gy, gok), TRV_OK);
        for (size_t w = 0; w < sizeof part / sizeof *part; w++) {
            int k0 = part[w][0], k1 = part[w][1];
            assert_int_equal(krg_srcline_part(ctx, &sp, a, &g, x0, dx, y, N, tl, k0, k1, px, py, pok), TRV_OK);
            for (int k = k0; k < k1; k++)
                if (memcmp(&px[k - k0], &xs[k], sizeof *px) || memcmp(&py[k - k0], &ys[k], sizeof *py) ||
                    pok[k - k0] != ok[k])
                    fail_msg("row %d, part %d .. %d: target %d at (%.17g, %.17g), the whole row's (%.17g, %.17g)",
                             r, k0, k1 - 1, k, px[k - k0], py[k - k0], xs[k], ys[k]);
            parts += (size_t)(k1 - k0);
        }
        for (int k = 0; k < N; k++) {
            assert_true(ok[k] && gok[k]);
            double u = U(xs[k]), v = V(ys[k]), gu = U(gx[k]), gv = V(gy[k]);
            assert_true(u > 0 && v > 0 && u < g.nx - 1 && v < g.ny - 1);
            assert_true(floor(u) == floor(gu) && floor(v) == floor(gv));
            flips += floor(U(bx[k])) != floor(gu) || floor(V(by[k])) != floor(gv);
            if (xs[k] == gx[k] && ys[k] == gy[k]) {
                same++;
                continue;
            }
            worst = fmax(worst, fmax(fabs(u - gu), fabs(v - gv)));
            close++;
        }
    }
#undef U
#undef V
    printf("  srcline: %zu targets as geo_ct_line to the bit, %zu approximated (at most %.2e cells off), %zu "
           "near an edge transformed exactly; %zu bare approximations in another cell\n",
           same, close, worst, s.exact, flips);
    printf("  srcline by parts: %zu targets, each the whole row's bits\n", parts);
    assert_true(worst <= 1e-3);
    assert_true(close > 10000 && s.approx >= close && s.exact > 100 && flips > 0);
    assert_true(sp.approx > 10000 && sp.exact > 100); /* the parts took both paths too */
    assert_int_equal(krg_srcline_part(ctx, &sp, a, &g, 0, 1, 0, N, tol, 5, N + 1, px, py, pok), TRV_ERR_INTERNAL);
    assert_int_equal(krg_srcline_part(ctx, &sp, a, &g, 0, 1, 0, N, tol, 6, 5, px, py, pok), TRV_ERR_INTERNAL);
    krg_srcline_free(&sp);
    /* on cells of 1e-9 degrees the quadratic is more than 1e-3 cells off:
     * never trusted, every such target transformed exactly */
    krg_srcline s3;
    assert_int_equal(krg_srcline_init(ctx, &s3, N), TRV_OK);
    g.gt[1] = 1e-9;
    g.gt[5] = -1e-9;
    for (int r = 0; r < 4; r++) {
        double x0 = 740015 + 7.3 * r, y = 4060015 - 123.7 * r;
        assert_int_equal(krg_srcline_run(ctx, &s3, a, &g, x0, 30, y, N, tol, xs, ys, ok), TRV_OK);
        assert_int_equal(geo_ct_line(ctx, b, x0, 30, y, N, tol, gx, gy, gok), TRV_OK);
        for (int k = 0; k < N; k++)
            assert_true(xs[k] == gx[k] && ys[k] == gy[k]);
    }
    printf("  srcline on 1e-9 degree cells: %zu approximated, %zu exact\n", s3.approx, s3.exact);
    assert_true(s3.approx == 0 && s3.exact > 1000);
    krg_srcline_free(&s3);
    krg_srcline_free(&s);
    krg_srcline_free(&s2);
    geo_ct_free(a);
    geo_ct_free(b);
    free(utm);
    free(ll);
    trv_ctx_free(ctx);
}

/* krg_refiner_window against krg_refine's whole raster: the target cut
 * into tiles of 1 x 64, 7 x 7, 64 x 1, 13 x ny, 256 x 256 and the whole
 * (tiles taken last first: a refiner's caches carry nothing a cell's value
 * depends on), then a few stray windows (odd offsets, one cell, the right
 * and bottom edges) on the same refiner: every cell the same bits,
 * elevation and standard deviation, and the same counts of cells by
 * stencil, frame, block and nodata. Returns the whole raster's counts. */
static krg_refine_stats check_windows(const krg_source *src, const krg_model *m, const krg_opts *o,
                                      const geo_grid *t, int allow_fast)
{
    trv_ctx *ctx = trv_ctx_new();
    krg_index *ix = NULL;
    assert_int_equal(krg_index_new(ctx, src->pts, &ix), TRV_OK);
    geo_raster *P = NULL, *D = NULL;
    krg_refine_stats whole, st;
    assert_int_equal(krg_refine(ctx, src, ix, m, o, t, allow_fast, &P, &D, &whole), TRV_OK);
    const size_t n = (size_t)t->nx * t->ny;
    float *WP = malloc(n * sizeof *WP), *WD = malloc(n * sizeof *WD), *bp = malloc(n * sizeof *bp),
          *bd = malloc(n * sizeof *bd);
    const int shape[][2] = {{1, 64}, {7, 7}, {64, 1}, {13, t->ny}, {256, 256}, {t->nx, t->ny}};
    krg_refiner *R = NULL;
    for (size_t s = 0; s < sizeof shape / sizeof *shape; s++) {
        krg_refiner_free(R);
        assert_int_equal(krg_refiner_new(ctx, src, ix, m, o, t, allow_fast, &R), TRV_OK);
        geo_tiling T = geo_tiling_make(t->nx, t->ny, shape[s][0], shape[s][1]);
        for (size_t i = 0; i < n; i++)
            WP[i] = WD[i] = 12345.0f; /* a cell no window wrote */
        for (int i = geo_tiling_count(&T) - 1; i >= 0; i--) {
            geo_tile b = geo_tiling_tile(&T, i);
            assert_int_equal(krg_refiner_window(ctx, R, b.x0, b.y0, b.nx, b.ny, bp, bd), TRV_OK);
            for (int r = 0; r < b.ny; r++) {
                memcpy(WP + (size_t)(b.y0 + r) * t->nx + b.x0, bp + (size_t)r * b.nx, (size_t)b.nx * sizeof *bp);
                memcpy(WD + (size_t)(b.y0 + r) * t->nx + b.x0, bd + (size_t)r * b.nx, (size_t)b.nx * sizeof *bd);
            }
        }
        for (size_t i = 0; i < n; i++)
            if (memcmp(&WP[i], &P->f32[i], sizeof *WP) || memcmp(&WD[i], &D->f32[i], sizeof *WD))
                fail_msg("tiles %d x %d: column %zu, row %zu: %.9g (std %.9g), the whole raster's %.9g (%.9g)",
                         shape[s][0], shape[s][1], i % t->nx, i / t->nx, WP[i], WD[i], P->f32[i], D->f32[i]);
        krg_refiner_stats(R, &st);
        assert_true(st.stencil == whole.stencil && st.frame == whole.frame && st.block == whole.block &&
                    st.nodata == whole.nodata);
    }
    const int stray[][4] = {{37, 11, 29, 23}, {t->nx - 1, t->ny - 1, 1, 1}, {t->nx - 45, t->ny - 13, 45, 13},
                            {0, t->ny - 3, t->nx, 3}, {33, 0, 1, t->ny}, {65, 5, t->nx - 65, 2}};
    for (size_t s = 0; s < sizeof stray / sizeof *stray; s++) {
        const int *w = stray[s];
        assert_int_equal(krg_refiner_window(ctx, R, w[0], w[1], w[2], w[3], bp, bd), TRV_OK);
        for (int r = 0; r < w[3]; r++)
            for (int c = 0; c < w[2]; c++) {
                size_t i = (size_t)(w[1] + r) * t->nx + w[0] + c, k = (size_t)r * w[2] + c;
                if (memcmp(&bp[k], &P->f32[i], sizeof *bp) || memcmp(&bd[k], &D->f32[i], sizeof *bd))
                    fail_msg("window %d x %d at (%d, %d): column %d, row %d differs", w[2], w[3], w[0], w[1],
                             w[0] + c, w[1] + r);
            }
    }
    /* windows off the target */
    assert_int_equal(krg_refiner_window(ctx, R, t->nx - 3, 0, 4, 1, bp, bd), TRV_ERR_INTERNAL);
    assert_int_equal(krg_refiner_window(ctx, R, 0, t->ny, 1, 1, bp, bd), TRV_ERR_INTERNAL);
    assert_int_equal(krg_refiner_window(ctx, R, -1, 0, 1, 1, bp, bd), TRV_ERR_INTERNAL);
    krg_refiner_free(R);
    free(WP);
    free(WD);
    free(bp);
    free(bd);
    geo_raster_free(P);
    geo_raster_free(D);
    krg_index_free(ix);
    trv_ctx_free(ctx);
    return whole;
}

/* check_windows on the three paths: a lon/lat DEM at 60 N (check_lonlat's,
 * with its hole) onto a 20 m UTM 35 grid (the line transforms curved:
 * rows of 150 targets, more than the 64 the line transforms take
 * exactly), by block systems (et 0) and by lattice frames (the default
 * et), and onto an ETRS-TM35FIN grid kriged in UTM 35 (a working line
 * transform that interpolates); a regular 90 m UTM DEM
 * (test_refine_paths') onto 30 m by the regular-grid stencil. */
static void test_refiner_windows(void **state)
{
    (void)state;
    trv_ctx *ctx = trv_ctx_new();
    char *ll = NULL, *utm35 = NULL, *utm16 = NULL;
    assert_int_equal(geo_crs_wkt(ctx, "EPSG:4326", &ll), TRV_OK);
    assert_int_equal(geo_crs_wkt(ctx, "EPSG:32635", &utm35), TRV_OK);
    assert_int_equal(geo_crs_wkt(ctx, "EPSG:32616", &utm16), TRV_OK);
    const double d = 3.0 / 3600;
    geo_grid g = {60, 40, {24.5, d, 0, 60.03, 0, -d}, ll};
    geo_raster *dem = NULL;
    assert_int_equal(geo_raster_new(ctx, &g, GEO_F32, &dem), TRV_OK);
    dem->has_nodata = 1;
    dem->nodata = -9999;
    for (int r = 0; r < g.ny; r++)
        for (int c = 0; c < g.nx; c++)
            dem->f32[r * g.nx + c] = (float)(120 + 25 * sin(c / 4.0) * cos(r / 3.0) + 0.7 * r + ((r * 13 + c * 7) % 5));
    dem->f32[10 * g.nx + 20] = -9999;
    krg_source *src = NULL;
    assert_int_equal(krg_source_new(ctx, dem, utm35, 0, &src), TRV_OK);
    const krg_model mat = {KRG_MAT, 0.3, 600, 60, 2.5};
    krg_opts o;
    krg_opts_init(&o);
    o.threads = 2;
    /* the DEM spans about 360 580 .. 363 500 E, 6 653 450 .. 6 657 400 N; the
     * grid overlaps it on every side (nodata around) */
    geo_grid t = {150, 130, {360400, 20, 0, 6657500, 0, -20}, utm35};
    krg_refine_stats a = check_windows(src, &mat, &o, &t, 1);
    o.et = KRG_ET_DEFAULT;
    krg_refine_stats f = check_windows(src, &mat, &o, &t, 1);
    printf("  windows, lon/lat onto UTM: %zu targets by blocks (%zu systems for the DEM's %d blocks), %zu nodata; "
           "with frames %zu by frames, %zu by blocks: the same bits\n",
           a.block, a.systems, (g.nx - 1) * (g.ny - 1), a.nodata, f.frame, f.block);
    assert_true(a.block > 10000 && a.nodata > 1000 && a.stencil == 0 && a.frame == 0);
    /* the block cache keeps a system while the rows need it: each block
     * solved about once (plus a row of them where the threads' rows meet),
     * not once per target row it serves (about 4.6) */
    assert_true(a.systems <= (size_t)(g.nx - 1) * (g.ny + 1));
    assert_true(f.frame > 10000 && f.block > 0);
    /* the target in ETRS-TM35FIN (EPSG:3067: UTM 35's projection on
     * ETRS89), kriged in UTM 35: a working line transform that is not the
     * identity but nearly affine, so interpolated between its anchors */
    char *fin = NULL;
    assert_int_equal(geo_crs_wkt(ctx, "EPSG:3067", &fin), TRV_OK);
    geo_grid tf = {150, 130, {360400, 20, 0, 6657500, 0, -20}, fin};
    o.et = 0;
    krg_refine_stats l = check_windows(src, &mat, &o, &tf, 1);
    printf("  windows, onto ETRS-TM35FIN kriged in UTM 35: %zu targets by blocks, %zu nodata: the same bits\n",
           l.block, l.nodata);
    assert_true(l.block > 10000 && l.nodata > 100 && l.stencil == 0);
    free(fin);
    krg_source_free(src);
    geo_raster_free(dem);

    geo_grid u = {60, 45, {740000, 90, 0, 4060000, 0, -90}, utm16};
    assert_int_equal(geo_raster_new(ctx, &u, GEO_F32, &dem), TRV_OK);
    dem->has_nodata = 1;
    dem->nodata = -9999;
    for (int r = 0; r < u.ny; r++)
        for (int c = 0; c < u.nx; c++)
            dem->f32[r * u.nx + c] = (float)(300 + 40 * sin(c / 5.0) * cos(r / 7.0) + 0.5 * c + ((r * 31 + c * 17) % 11));
    for (int r = 20; r < 24; r++)
        for (int c = 30; c < 33; c++)
            dem->f32[r * u.nx + c] = -9999;
    assert_int_equal(krg_source_new(ctx, dem, utm16, 0, &src), TRV_OK);
    const krg_model gau = {KRG_GAU, 1.0, 900.0, 400.0, 0};
    krg_opts_init(&o);
    o.threads = 2;
    geo_grid t2 = {181, 137, {739990, 30, 0, 4060010, 0, -30}, utm16}; /* beyond the DEM by a cell or so */
    krg_refine_stats sa = check_windows(src, &gau, &o, &t2, 1);
    printf("  windows, UTM 90 m onto 30 m: %zu targets by the stencil, %zu by blocks, %zu nodata: the same bits\n",
           sa.stencil, sa.block, sa.nodata);
    assert_true(sa.stencil > 15000 && sa.block > 0);
    krg_source_free(src);
    geo_raster_free(dem);
    free(ll);
    free(utm35);
    free(utm16);
    trv_ctx_free(ctx);
}

/* krg_grid_points_window (trv-krige's CSV input by tiles) against
 * krg_grid_points' whole raster: the Meuse elevations onto a 40 m grid cut
 * into 7 x 7 tiles, then 1 x 64: every cell the same bits; with a sill of
 * 1e78 the standard deviation overflows Float32 and the error names the
 * window's first cell in the target's columns and rows. */
static void test_points_windows(void **state)
{
    (void)state;
    trv_ctx *ctx = trv_ctx_new();
    krg_points *p = meuse(0);
    krg_model m = fitted("elev");
    krg_index *ix = NULL;
    assert_int_equal(krg_index_new(ctx, p, &ix), TRV_OK);
    char *rd = NULL;
    assert_int_equal(geo_crs_wkt(ctx, "EPSG:28992", &rd), TRV_OK);
    geo_grid t = {73, 101, {178560, 40, 0, 333640, 0, -40}, rd};
    krg_opts o;
    krg_opts_init(&o);
    o.nmax = 20;
    geo_raster *P = NULL, *D = NULL;
    assert_int_equal(krg_grid_points(ctx, p, ix, &m, &o, rd, &t, &P, &D), TRV_OK);
    geo_ct *ct = NULL;
    assert_int_equal(geo_ct_create(ctx, rd, rd, &ct), TRV_OK);
    float bp[64], bd[64];
    const int shape[][2] = {{7, 7}, {1, 64}};
    for (int s = 0; s < 2; s++) {
        geo_tiling T = geo_tiling_make(t.nx, t.ny, shape[s][0], shape[s][1]);
        for (int i = 0; i < geo_tiling_count(&T); i++) {
            geo_tile b = geo_tiling_tile(&T, i);
            assert_int_equal(krg_grid_points_window(ctx, p, ix, &m, &o, ct, &t, b.x0, b.y0, b.nx, b.ny, bp, bd),
                             TRV_OK);
            for (int k = 0; k < b.nx * b.ny; k++) {
                size_t c = (size_t)(b.y0 + k / b.nx) * t.nx + b.x0 + k % b.nx;
                if (memcmp(&bp[k], &P->f32[c], sizeof *bp) || memcmp(&bd[k], &D->f32[c], sizeof *bd))
                    fail_msg("tiles %d x %d: cell %zu: %.9g, the whole raster's %.9g", shape[s][0], shape[s][1], c,
                             bp[k], P->f32[c]);
            }
        }
    }
    assert_int_equal(krg_grid_points_window(ctx, p, ix, &m, &o, ct, &t, 70, 0, 4, 1, bp, bd), TRV_ERR_INTERNAL);
    m.psill = 1e78;
    assert_int_equal(krg_grid_points_window(ctx, p, ix, &m, &o, ct, &t, 5, 9, 3, 2, bp, bd), TRV_ERR_DATA);
    assert_contains(trv_errmsg(ctx), "kriging standard deviation at column 5, row 9 is beyond Float32's range");
    geo_ct_free(ct);
    geo_raster_free(P);
    geo_raster_free(D);
    free(rd);
    krg_index_free(ix);
    krg_points_free(p);
    trv_ctx_free(ctx);
}

/* geo_raster_write_threads, as krg_job_write uses it: a 700 x 600 Float32
 * layer (smooth, with nodata and noise, so that DEFLATE has work) written
 * with 1, 2 and 3 compressing threads gives the same file, byte for byte. */
static void test_write_threads(void **state)
{
    (void)state;
    trv_ctx *ctx = trv_ctx_new();
    char *utm = NULL, *dir = make_tmpdir();
    assert_int_equal(geo_crs_wkt(ctx, "EPSG:32616", &utm), TRV_OK);
    geo_grid g = {700, 600, {740000, 10, 0, 4060000, 0, -10}, utm};
    geo_raster *r = NULL;
    assert_int_equal(geo_raster_new(ctx, &g, GEO_F32, &r), TRV_OK);
    r->has_nodata = 1;
    r->nodata = -9999;
    trv_rng rng;
    trv_rng_seed(&rng, 7);
    for (size_t i = 0; i < (size_t)g.nx * g.ny; i++)
        r->f32[i] = i % 977 == 0 ? -9999.0f
                                 : (float)(300 + 50 * sin(i % 700 * 0.01) * cos(i / 700 * 0.013) +
                                           trv_rng_uniform(&rng));
    char *data[3] = {NULL, NULL, NULL};
    size_t len[3] = {0, 0, 0};
    for (int t = 1; t <= 3; t++) {
        char path[512];
        snprintf(path, sizeof path, "%s/w%d.tif", dir, t);
        assert_int_equal(geo_raster_write_threads(ctx, r, path, NULL, t), TRV_OK);
        FILE *f = fopen(path, "rb");
        assert_non_null(f);
        fseek(f, 0, SEEK_END);
        len[t - 1] = (size_t)ftell(f);
        rewind(f);
        data[t - 1] = malloc(len[t - 1]);
        assert_int_equal(fread(data[t - 1], 1, len[t - 1], f), len[t - 1]);
        fclose(f);
    }
    printf("  %zu bytes with 1, 2 and 3 threads\n", len[0]);
    assert_true(len[0] > 100000);
    for (int t = 1; t < 3; t++) {
        assert_int_equal(len[t], len[0]);
        assert_memory_equal(data[t], data[0], len[0]);
    }
    for (int t = 0; t < 3; t++)
        free(data[t]);
    geo_raster_free(r);
    free(utm);
    rm_rf(dir);
    free(dir);
    trv_ctx_free(ctx);
}

/* The tabulated semivariance (krg_gtab) against krg_gamma at 200 001
 * distances over the table and beyond it: within the Hermite bound
 * d^4/384 max|f''''| psill (d = 1/256; max|f''''| 12 for Gau, 3 for the
 * rest, which bounds Exp's 1 and Mat 1.5's and 2.5's), and exact at 0 and
 * past the table; Pow and Mat 1.2 have no table. */
static void test_gamma_table(void **state)
{
    (void)state;
    trv_ctx *ctx = trv_ctx_new();
    const krg_model ms[] = {{KRG_SPH, 2, 900, 300, 0}, {KRG_EXP, 0, 900, 120, 0},  {KRG_GAU, 1, 900, 200, 0},
                            {KRG_MAT, 0, 900, 90, 0.5}, {KRG_MAT, 3, 900, 90, 1.5}, {KRG_MAT, 0, 6000, 106, 2.5},
                            {KRG_POW, 0, 2, 1.5, 0},   {KRG_MAT, 0, 900, 90, 1.2}};
    for (size_t k = 0; k < sizeof ms / sizeof ms[0]; k++) {
        const krg_model *m = &ms[k];
        krg_gtab t;
        double hmax = 700;
        assert_int_equal(krg_gtab_init(ctx, &t, m, hmax), TRV_OK);
        int want = m->type != KRG_POW && !(m->type == KRG_MAT && m->kappa == 1.2);
        assert_int_equal(t.n > 0, want);
        double worst = 0, m4 = m->type == KRG_GAU ? 12 : 3, bound = pow(1.0 / 256, 4) / 384 * m4 * m->psill;
        for (int i = 0; i <= 200000; i++) {
            double h = 1.2 * hmax * i / 200000;
            double e = fabs(krg_gtab_eval(&t, h) - krg_gamma(m, h));
            if (h > hmax + m->range / 256) /* past the table: krg_gamma itself */
                assert_true(e == 0);
            worst = fmax(worst, e);
        }
        assert_true(krg_gtab_eval(&t, 0) == 0);
        printf("  %s (kappa %g): %d intervals, max |table - gamma| %.2e (bound %.2e)\n", krg_model_name(m->type),
               m->kappa, t.n, worst, bound);
        assert_true(worst <= (want ? 1.001 * bound : 0)); /* Gau and Mat 1.5 reach it at h -> 0 */
        krg_gtab_free(&t);
    }
    trv_ctx_free(ctx);
}

/* The cross-validation summary (docs/method.md 1.5) on four hand-made
 * predictions (added for make mutants: docs/testing.md). Errors e = pred -
 * obs = 0.5, -1, 0, 1 (a fifth point has no prediction and is left out):
 * RMSE = sqrt((0.25 + 1 + 0 + 1) / 4) = 0.75, MAE = 2.5 / 4 = 0.625, ME =
 * 0.5 / 4 = 0.125; MSSE over the points with a variance > 0 (the fourth has
 * none): (0.25 / 0.25 + 1 / 4 + 0 / 1) / 3 = 1.25 / 3. */
static void test_cv_summary_hand(void **state)
{
    (void)state;
    const double obs[5] = {1, 2, 3, 4, 5}, pred[5] = {1.5, 1, 3, 5, NAN}, var[5] = {0.25, 4, 1, 0, 1};
    krg_cv_stats cs;
    krg_cv_summary(obs, pred, var, 5, &cs);
    assert_int_equal(cs.n, 4);
    assert_float_equal(cs.rmse, 0.75, 1e-15);
    assert_float_equal(cs.mae, 0.625, 1e-15);
    assert_float_equal(cs.me, 0.125, 1e-15);
    assert_float_equal(cs.msse, 1.25 / 3, 1e-15);
}

static int setup(void **state)
{
    (void)state;
    geo_init();
    return 0;
}

/* The option checks the library shares with trv-krige: its messages, in
 * its order, and krg_job_run refusing before it opens the input. */
static void test_job_opts_check(void **state)
{
    (void)state;
    trv_ctx *ctx = trv_ctx_new();
    krg_job_opts o;
    krg_job_opts_init(&o);
    assert_int_equal(krg_job_opts_check(ctx, &o), TRV_OK);
    static const struct {
        int what;
        const char *msg;
    } cases[] = {
        {0, "--tr and --like exclude each other"},
        {1, "--like sets the CRS and extent: drop --t_srs and --te"},
        {2, "--tr must be positive"},
        {3, "a fixed model needs --nugget, --psill and --range together"},
        {4, "a fixed model needs its type: --model sph|exp|gau|mat|pow"},
        {5, "a fixed model needs nugget >= 0, psill > 0, range > 0 (Pow: exponent in (0, 2])"},
        {6, "--kappa > 0 goes with --model mat"},
        {7, "--kappa > 0 goes with --model mat"},
        {8, "--nmax must be 0 (all points) or positive"},
        {9, "--maxdist must be positive"},
        {10, "--threads must be positive"},
        {11, "--cutoff and --width must be positive"},
        {12, "CSV input needs --x, --y, --z and --s_srs"},
        {13, "--et must be a finite number of source pixels >= 0 (0: exact per block)"},
        {14, "--et must be a finite number of source pixels >= 0 (0: exact per block)"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        krg_job_opts_init(&o);
        o.input = "/nonexistent/dem.tif";
        switch (cases[i].what) {
        case 0: o.tr = 10, o.like = "like.tif"; break;
        case 1: o.like = "like.tif", o.has_te = 1; break;
        case 2: o.tr = -1; break;
        case 3: o.fixed = 1, o.model = (krg_model){KRG_SPH, 0, NAN, 100, 1.5}; break;
        case 4: o.fixed = 1, o.model = (krg_model){(krg_model_type)-1, 0, 1, 100, 1.5}; break;
        case 5: o.fixed = 1, o.model = (krg_model){KRG_POW, 0, 1, 2.5, 1.5}; break;
        case 6: o.choice.only = KRG_SPH, o.choice.kappa = 2; break;
        case 7: o.choice.only = KRG_MAT, o.choice.kappa = 0; break;
        case 8: o.krige.nmax = -1; break;
        case 9: o.krige.maxdist = 0; break;
        case 10: o.krige.threads = -2; break;
        case 11: o.choice.width = -1; break;
        case 12: o.x_col = "x", o.y_col = "y", o.z_col = "z"; break;
        case 13: o.krige.et = -1e-9; break;
        case 14: o.krige.et = NAN; break;
        }
        assert_int_equal(krg_job_opts_check(ctx, &o), TRV_ERR_USAGE);
        assert_string_equal(trv_errmsg(ctx), cases[i].msg);
        krg_job j;
        assert_int_equal(krg_job_run(ctx, &o, &j), TRV_ERR_USAGE);
        assert_string_equal(trv_errmsg(ctx), cases[i].msg);
    }
    /* the first conflict in the tool's order wins */
    krg_job_opts_init(&o);
    o.krige.nmax = -1, o.tr = -1;
    assert_int_equal(krg_job_opts_check(ctx, &o), TRV_ERR_USAGE);
    assert_string_equal(trv_errmsg(ctx), "--tr must be positive");
    /* a complete fixed Matern model with its kappa passes */
    krg_job_opts_init(&o);
    o.fixed = 1, o.choice.only = KRG_MAT, o.choice.kappa = 2.5, o.model = (krg_model){KRG_MAT, 0, 1, 100, 2.5};
    assert_int_equal(krg_job_opts_check(ctx, &o), TRV_OK);
    trv_ctx_free(ctx);
}

/* Large values (issue 15): elevations times 1e30 (as large as Float32
 * allows) give a model whose LOOCV RMSE is finite and 1e30 times the
 * elevations' one within 1e-6 relative (kriging is linear in z, and the
 * fit scales the sill by 1e60); times 1e100 no fit is possible: refused,
 * no model chosen on inf. */
static void check_scaled(double scale, trv_status want, double *rmse)
{
    trv_ctx *ctx = trv_ctx_new();
    krg_points *p = meuse(0);
    for (size_t i = 0; i < p->n; i++)
        p->z[i] *= scale;
    krg_index *ix = NULL;
    assert_int_equal(krg_index_new(ctx, p, &ix), TRV_OK);
    krg_opts ko;
    krg_opts_init(&ko);
    krg_choice_opts co;
    krg_choice_opts_init(&co);
    krg_model best;
    krg_vgm *vgm = NULL;
    krg_candidate *cands = NULL;
    int n = 0;
    assert_int_equal(krg_choose_model(ctx, p, ix, &ko, &co, &best, &vgm, &cands, &n), want);
    *rmse = INFINITY;
    for (int k = 0; k < n; k++)
        if (cands[k].ok && cands[k].cv_rmse < *rmse)
            *rmse = cands[k].cv_rmse;
    if (want)
        assert_contains(trv_errmsg(ctx), "no variogram model could be fitted");
    krg_vgm_free(vgm);
    free(cands);
    krg_index_free(ix);
    krg_points_free(p);
    trv_ctx_free(ctx);
}

static void test_large_values(void **state)
{
    (void)state;
    double r1, r30, r100;
    check_scaled(1, TRV_OK, &r1);
    check_scaled(1e30, TRV_OK, &r30);
    assert_true(isfinite(r30) && fabs(r30 / 1e30 - r1) <= 1e-6 * r1);
    check_scaled(1e100, TRV_ERR_DATA, &r100);
}

/* krg_choose_model on 100 x 100 points 10 m apart, a smooth surface (the
 * full variogram's lags 31 m wide: a short-lag variogram too), with
 * threads. */
static trv_status choose_on(int threads, const krg_choice_opts *co, krg_model *best, krg_vgm **vgm,
                            krg_candidate **cands, int *n, char *msg)
{
    trv_ctx *ctx = trv_ctx_new();
    krg_points *p = NULL;
    assert_int_equal(krg_points_new(ctx, 10000, &p), TRV_OK);
    for (int i = 0; i < 10000; i++) {
        p->x[i] = 10.0 * (i % 100) + sin(i);
        p->y[i] = 10.0 * (i / 100) + cos(i);
        p->z[i] = 200 + 40 * sin(p->x[i] / 170) * cos(p->y[i] / 230) + 0.01 * p->x[i];
    }
    krg_index *ix = NULL;
    assert_int_equal(krg_index_new(ctx, p, &ix), TRV_OK);
    krg_opts ko;
    krg_opts_init(&ko);
    ko.threads = threads;
    trv_status st = krg_choose_model(ctx, p, ix, &ko, co, best, vgm, cands, n);
    snprintf(msg, 256, "%s", st ? trv_errmsg(ctx) : "");
    if (!st) { /* the variogram as krg_variogram computes it */
        krg_vgm *v = NULL;
        assert_int_equal(krg_variogram(ctx, p, co->cutoff, co->width, co->vgm_points, co->seed, &v), TRV_OK);
        assert_int_equal(v->nlags, (*vgm)->nlags);
        assert_memory_equal(v->np, (*vgm)->np, (size_t)v->nlags * sizeof *v->np);
        assert_memory_equal(v->dist, (*vgm)->dist, (size_t)v->nlags * sizeof *v->dist);
        assert_memory_equal(v->gamma, (*vgm)->gamma, (size_t)v->nlags * sizeof *v->gamma);
        krg_vgm_free(v);
    }
    krg_index_free(ix);
    krg_points_free(p);
    trv_ctx_free(ctx);
    return st;
}

static void test_choice_threads(void **state)
{
    (void)state;
    krg_choice_opts co;
    krg_choice_opts_init(&co);
    co.vgm_points = 700;
    co.cv_points = 300;
    krg_model b1, b2;
    krg_vgm *v1 = NULL, *v2 = NULL;
    krg_candidate *c1 = NULL, *c2 = NULL;
    int n1 = 0, n2 = 0;
    char m1[256], m2[256];
    assert_int_equal(choose_on(1, &co, &b1, &v1, &c1, &n1, m1), TRV_OK);
    assert_int_equal(choose_on(2, &co, &b2, &v2, &c2, &n2, m2), TRV_OK);
    assert_true(v1->npoints == 700 && v2->npoints == 700);
    int shrt = 0;
    for (int k = 0; k < n1; k++)
        shrt += c1[k].short_lags;
    assert_true(n1 == n2 && shrt > 0);
    assert_memory_equal(c1, c2, (size_t)n1 * sizeof *c1);
    assert_memory_equal(&b1, &b2, sizeof b1);
    krg_vgm_free(v1);
    krg_vgm_free(v2);
    free(c1);
    free(c2);
    /* errors of the variogram: the same, nothing returned */
    co.vgm_points = 1;
    assert_int_equal(choose_on(1, &co, &b1, &v1, &c1, &n1, m1), TRV_ERR_USAGE);
    assert_int_equal(choose_on(2, &co, &b2, &v2, &c2, &n2, m2), TRV_ERR_USAGE);
    assert_string_equal(m1, m2);
    assert_contains(m2, "invalid variogram subsample size '1'");
    assert_true(!v2 && !c2 && n2 == 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ok_logzinc), cmocka_unit_test(test_ok_elev),       cmocka_unit_test(test_loocv),
        cmocka_unit_test(test_index),      cmocka_unit_test(test_refine_paths), cmocka_unit_test(test_refine_lonlat), cmocka_unit_test(test_srcline), cmocka_unit_test(test_refiner_windows), cmocka_unit_test(test_points_windows), cmocka_unit_test(test_write_threads), cmocka_unit_test(test_gamma_table),
        cmocka_unit_test(test_cv_summary_hand), cmocka_unit_test(test_job_opts_check), cmocka_unit_test(test_large_values),
        cmocka_unit_test(test_choice_threads),
    };
    return cmocka_run_group_tests(tests, setup, NULL);
}
