/* Conditional simulation (src/kriging/sim*.c, docs/method.md §1.11):
 * - the mixed-radix FFT against the plain DFT sum, the torus sizes;
 * - the ziggurat's deviates against the standard normal (moments, bins);
 * - unconditional fields: the experimental variogram over K fields at
 *   lags 1, 2, 4 and 8 within 4 standard deviations of the model, the
 *   standard deviation computed exactly for a Gaussian field
 *   (Var(sum d_i^2) = 2 sum_ij Cov(d_i, d_j)^2 over the lattice's pairs);
 * - the out-of-core torus (TRV_SIM_MEM below its bytes) against the
 *   in-memory one bit for bit: the eigenvalues' lost share, the torus, the
 *   rows of two pairs at several chunk widths (test_out_of_core); the
 *   TRV_SIM_MEM parser;
 * - conditional realisations of a DEM (samples on target nodes): samples
 *   honoured, per node the mean over N realisations within 5 sigma_K /
 *   sqrt(N) of the kriging prediction and the variance within 5 sqrt(2 /
 *   (N - 1)) of the kriging variance (relative); the kept-weights and the
 *   kriging paths agree; the same bits for any number of threads;
 * - Meuse log(zinc) against the moments of gstat's krige(nsim = 1000,
 *   nmax = 20) (tests/data/gstat/meuse_logzinc_sim*): our moments against
 *   the ordinary kriging as above, and against gstat's node by node on
 *   average: variance ratio within 5 %, RMS difference of the means below
 *   0.2 sigma_K (of which sqrt(2 / N) = 0.045 is sampling; the rest is
 *   sequential simulation's approximation: gstat's neighbourhood mixes data
 *   and simulated nodes);
 * - points off the lattice with a short range: the same per-node checks. */
#include "test_common.h"

#include <math.h>

#include "kriging/krige.h"
#include "kriging/sim.h"

/* The mixed-radix FFT against the plain DFT sum, for sizes of each radix
 * and their mixes; the torus sizes krg_fft_size picks. */
static void test_fft(void **state)
{
    (void)state;
    const int sizes[] = {1, 2, 4, 8, 64, 3, 9, 243, 5, 125, 6, 60, 100, 360, 384};
    double *z = malloc(2 * 384 * sizeof *z), *ref = malloc(2 * 384 * sizeof *ref);
    for (size_t t = 0; t < sizeof sizes / sizeof *sizes; t++) {
        int N = sizes[t];
        trv_rng r;
        trv_rng_seed(&r, 3 + t);
        for (int i = 0; i < 2 * N; i++)
            z[i] = trv_rng_uniform(&r) - 0.5;
        for (int k = 0; k < N; k++) {
            double re = 0, im = 0;
            for (int j = 0; j < N; j++) {
                double a = -2 * M_PI * (double)((long)j * k % N) / N;
                re += z[2 * j] * cos(a) - z[2 * j + 1] * sin(a);
                im += z[2 * j] * sin(a) + z[2 * j + 1] * cos(a);
            }
            ref[2 * k] = re;
            ref[2 * k + 1] = im;
        }
        krg_fftp p;
        assert_int_equal(krg_fftp_init(&p, N), 0);
        krg_fft(&p, z);
        krg_fftp_free(&p);
        double worst = 0;
        for (int i = 0; i < 2 * N; i++)
            worst = fmax(worst, fabs(z[i] - ref[i]));
        printf("  FFT of %d values against the DFT sum: max difference %.2e\n", N, worst);
        assert_true(worst < 1e-12 * N);
    }
    free(z);
    free(ref);
    krg_fftp p;
    assert_int_equal(krg_fftp_init(&p, 7 * 64), -1); /* 7: no radix for it */
    const long want[][2] = {{1, 1}, {7, 8}, {11, 12}, {13, 15}, {336, 360}, {361, 375}, {513, 540}, {1025, 1080}};
    for (size_t t = 0; t < sizeof want / sizeof *want; t++)
        assert_int_equal(krg_fft_size(want[t][0]), want[t][1]);
}

/* The ziggurat: 2 million deviates against the standard normal: mean,
 * variance and the share in each of 16 bins (edges 0, +-0.5, ..., +-3.5,
 * the tails beyond), each within 5 binomial standard errors; and the
 * same stream gives the same deviates. */
static void test_ziggurat(void **state)
{
    (void)state;
    enum { N = 2000000, NB = 16 };
    krg_zig zg;
    krg_zig_init(&zg);
    trv_rng r;
    trv_rng_seed(&r, 11);
    double sum = 0, sum2 = 0, first = 0;
    long cnt[NB] = {0};
    for (int i = 0; i < N; i++) {
        double x = krg_zig_normal(&zg, &r);
        if (i == 0)
            first = x;
        sum += x, sum2 += x * x;
        int b = (int)floor(x / 0.5) + NB / 2;
        cnt[b < 0 ? 0 : b >= NB ? NB - 1 : b]++;
    }
    double mean = sum / N, var = sum2 / N - mean * mean;
    printf("  ziggurat: mean %.5f, variance %.5f over %d deviates\n", mean, var, N);
    assert_true(fabs(mean) < 5 / sqrt(N));
    assert_true(fabs(var - 1) < 5 * sqrt(2.0 / N));
    for (int b = 0; b < NB; b++) {
        double lo = b == 0 ? -INFINITY : (b - NB / 2) * 0.5, hi = b == NB - 1 ? INFINITY : (b - NB / 2 + 1) * 0.5;
        double p = 0.5 * (erfc(-hi / sqrt(2)) - erfc(-lo / sqrt(2))), se = sqrt(p * (1 - p) / N);
        printf("  bin [%g, %g): %.6f, normal %.6f (%.1f se)\n", lo, hi, (double)cnt[b] / N, p,
               ((double)cnt[b] / N - p) / se);
        assert_true(fabs((double)cnt[b] / N - p) < 5 * se);
    }
    trv_rng_seed(&r, 11);
    assert_true(krg_zig_normal(&zg, &r) == first);
}

/* Cov(d_i, d_j) summed squared over the lattice's ordered pairs of lag h
 * (along x) increments: Var(ghat) = that / (2 N^2). */
static double vgm_sd(const krg_model *m, int n, int h, double dx)
{
    double s = 0, C0 = m->psill;
    for (int dr = -(n - 1); dr <= n - 1; dr++)
        for (int dc = -(n - h - 1); dc <= n - h - 1; dc++) {
            double c = 2 * (C0 - krg_gamma(m, hypot(dr * dx, dc * dx))) -
                       (C0 - krg_gamma(m, hypot(dr * dx, (dc + h) * dx))) -
                       (C0 - krg_gamma(m, hypot(dr * dx, (dc - h) * dx)));
            s += (double)(n - abs(dr)) * (n - h - abs(dc)) * c * c;
        }
    double N = (double)n * (n - h);
    return sqrt(s / (2 * N * N));
}

static void test_unconditional_variogram(void **state)
{
    (void)state;
    enum { n = 48, PAIRS = 100 };
    const double dx = 10;
    krg_model m = {KRG_EXP, 0, 2.0, 30.0, 0};
    trv_ctx *ctx = trv_ctx_new();
    krg_ce ce;
    assert_int_equal(krg_ce_init(ctx, &ce, &m, n, n, dx, dx, KRG_CE_MEM), TRV_OK);
    assert_true(ce.lost == 0);
    double *a = malloc(n * n * sizeof *a), *b = malloc(n * n * sizeof *b);
    const int lags[4] = {1, 2, 4, 8};
    double g[4] = {0};
    for (int p = 0; p < PAIRS; p++) {
        assert_int_equal(krg_ce_draw(ctx, &ce, 1000 + p), TRV_OK);
        assert_int_equal(krg_ce_window(ctx, &ce, 0, n, 0, ce.n1, a, b), TRV_OK);
        for (int l = 0; l < 4; l++) {
            int h = lags[l];
            double s = 0;
            for (int r = 0; r < n; r++)
                for (int c = 0; c + h < n; c++) {
                    double da = a[r * n + c + h] - a[r * n + c], db = b[r * n + c + h] - b[r * n + c];
                    s += da * da + db * db;
                }
            g[l] += s / (2.0 * n * (n - h));
        }
    }
    for (int l = 0; l < 4; l++) {
        double got = g[l] / (2 * PAIRS), want = krg_gamma(&m, lags[l] * dx);
        double sd = vgm_sd(&m, n, lags[l], dx) / sqrt(2 * PAIRS);
        printf("  lag %g: variogram %.4f, model %.4f, sd %.4f (%.1f sd)\n", lags[l] * dx, got, want, sd,
               (got - want) / sd);
        assert_true(fabs(got - want) <= 4 * sd);
    }
    free(a);
    free(b);
    krg_ce_free(&ce);
    trv_ctx_free(ctx);
}

/* The budget that makes chunks of c columns on an m1 x m2 torus (sim_fft.c's
 * chunk_cols: a row's 24 m1 bytes and the plans' 32 (m1 + m2) beside). */
static size_t budget_cols(int m1, int m2, int c)
{
    return (size_t)24 * m1 + (size_t)32 * (m1 + m2) + (size_t)16 * m2 * c;
}

/* Rows of a pair drawn from ce against want (n1 * n2 of each field, the
 * in-memory path's): the same bits, whole and for a range of rows. */
static void same_rows(trv_ctx *ctx, const krg_ce *ce, const double *wa, const double *wb)
{
    int n1 = ce->n1, n2 = ce->n2;
    size_t nn = (size_t)n1 * n2;
    double *a = malloc(nn * sizeof *a), *b = malloc(nn * sizeof *b);
    assert_int_equal(krg_ce_window(ctx, ce, 0, n2, 0, ce->n1, a, b), TRV_OK);
    assert_memory_equal(a, wa, nn * sizeof *a);
    assert_memory_equal(b, wb, nn * sizeof *b);
    assert_int_equal(krg_ce_window(ctx, ce, 5, 9, 0, ce->n1, a, b), TRV_OK);
    assert_memory_equal(a, wa + 5 * n1, 9 * n1 * sizeof *a);
    assert_memory_equal(b, wb + 5 * n1, 9 * n1 * sizeof *b);
    assert_int_equal(krg_ce_window(ctx, ce, n2 - 1, 1, 0, ce->n1, a, b), TRV_OK);
    assert_memory_equal(a, wa + (size_t)(n2 - 1) * n1, n1 * sizeof *a);
    assert_int_equal(krg_ce_window(ctx, ce, n2 - 1, 2, 0, ce->n1, a, b), TRV_ERR_INTERNAL);
    /* windows: rows 3 .. 6 by columns 2 .. 6, and the last column alone */
    const int wr[2][4] = {{3, 4, 2, 5}, {1, n2 - 1, n1 - 1, 1}};
    for (int w = 0; w < 2; w++) {
        const int *q = wr[w];
        assert_int_equal(krg_ce_window(ctx, ce, q[0], q[1], q[2], q[3], a, b), TRV_OK);
        for (int r = 0; r < q[1]; r++)
            for (int c = 0; c < q[3]; c++) {
                size_t i = (size_t)(q[0] + r) * n1 + q[2] + c;
                assert_memory_equal(a + (size_t)r * q[3] + c, wa + i, sizeof *a);
                assert_memory_equal(b + (size_t)r * q[3] + c, wb + i, sizeof *b);
            }
    }
    assert_int_equal(krg_ce_window(ctx, ce, 0, 1, n1 - 2, 3, a, b), TRV_ERR_INTERNAL);
    assert_int_equal(krg_ce_window(ctx, ce, 0, 1, -1, 2, a, b), TRV_ERR_INTERNAL);
    assert_int_equal(krg_ce_window(ctx, ce, 0, 1, 0, 0, a, b), TRV_ERR_INTERNAL);
    free(a);
    free(b);
}

/* One model on an n1 x n2 lattice: in memory, then out of core with chunks
 * of 1, 3, 7 and all m1 columns (budget 0 and budget_cols): the same torus,
 * the same lost share (bits) and the same two pairs of fields (bits). */
static void out_of_core_case(trv_ctx *ctx, const krg_model *m, int n1, int n2, double dx, double dy)
{
    krg_ce mem;
    assert_int_equal(krg_ce_init(ctx, &mem, m, n1, n2, dx, dy, KRG_CE_MEM), TRV_OK);
    assert_int_equal(mem.disk, 0);
    size_t nn = (size_t)n1 * n2;
    double *wa = malloc(4 * nn * sizeof *wa);
    for (int p = 0; p < 2; p++) {
        assert_int_equal(krg_ce_draw(ctx, &mem, 77 + p), TRV_OK);
        assert_int_equal(krg_ce_window(ctx, &mem, 0, n2, 0, mem.n1, wa + 2 * p * nn, wa + (2 * p + 1) * nn), TRV_OK);
    }
    same_rows(ctx, &mem, wa + 2 * nn, wa + 3 * nn); /* the pair drawn last */
    const int cols[5] = {1, 1, 3, 7, mem.m1};
    for (int k = 0; k < 5; k++) {
        krg_ce ce;
        size_t budget = k == 0 ? 0 : budget_cols(mem.m1, mem.m2, cols[k]);
        assert_int_equal(krg_ce_init(ctx, &ce, m, n1, n2, dx, dy, budget), TRV_OK);
        assert_int_equal(ce.disk, 1);
        assert_int_equal(ce.cols, cols[k]);
        assert_int_equal(ce.m1, mem.m1);
        assert_int_equal(ce.m2, mem.m2);
        assert_memory_equal(&ce.lost, &mem.lost, sizeof ce.lost);
        for (int p = 0; p < 2; p++) {
            assert_int_equal(krg_ce_draw(ctx, &ce, 77 + p), TRV_OK);
            same_rows(ctx, &ce, wa + 2 * p * nn, wa + (2 * p + 1) * nn);
        }
        krg_ce_free(&ce);
    }
    free(wa);
    krg_ce_free(&mem);
}

/* TRV_SIM_MEM: unset, empty, not a number or negative: KRG_CE_MEM; else
 * its bytes (0 included). */
static void test_sim_mem_env(void **state)
{
    (void)state;
    const char *junk[4] = {"", "lots", "-5", "12k"};
    unsetenv("TRV_SIM_MEM");
    assert_true(krg_ce_mem() == KRG_CE_MEM);
    for (int i = 0; i < 4; i++) {
        setenv("TRV_SIM_MEM", junk[i], 1);
        assert_true(krg_ce_mem() == KRG_CE_MEM);
    }
    setenv("TRV_SIM_MEM", "0", 1);
    assert_true(krg_ce_mem() == 0);
    setenv("TRV_SIM_MEM", "123456789012", 1);
    assert_true(krg_ce_mem() == (size_t)123456789012ULL);
    unsetenv("TRV_SIM_MEM");
}

/* The out-of-core torus (sim.h) against the in-memory one, bit for bit: an
 * exponential model on a 37 x 23 lattice (dx 10, dy 7) and a Gaussian one
 * on 40 x 31 (range 300 m: its first torus, 80 x 64, is not positive
 * definite and is doubled three times to 640 x 512, the same in both), which
 * keeps eigenvalues that rounding makes slightly negative, so the lost
 * share compared bit for bit is not 0. A budget of the in-memory torus's bytes
 * keeps it in memory, one byte less sends it to disk. */
static void test_out_of_core(void **state)
{
    (void)state;
    trv_ctx *ctx = trv_ctx_new();
    trv_ctx_set_verbosity(ctx, 0);
    krg_model e = {KRG_EXP, 0.3, 2.0, 30.0, 0}, g = {KRG_GAU, 0, 1.0, 300.0, 0};
    out_of_core_case(ctx, &e, 37, 23, 10, 7);
    out_of_core_case(ctx, &g, 40, 31, 10, 10);
    krg_ce ce;
    assert_int_equal(krg_ce_init(ctx, &ce, &e, 37, 23, 10, 7, KRG_CE_MEM), TRV_OK);
    size_t need = (size_t)24 * ce.m1 * ce.m2 + (size_t)16 * 4 * ce.m2 + (size_t)32 * (ce.m1 + ce.m2);
    printf("  Exp: torus %d x %d, lost %.3g\n", ce.m1, ce.m2, ce.lost);
    krg_ce_free(&ce);
    assert_int_equal(krg_ce_init(ctx, &ce, &e, 37, 23, 10, 7, need), TRV_OK);
    assert_int_equal(ce.disk, 0);
    krg_ce_free(&ce);
    assert_int_equal(krg_ce_init(ctx, &ce, &e, 37, 23, 10, 7, need - 1), TRV_OK);
    assert_int_equal(ce.disk, 1);
    krg_ce_free(&ce);
    assert_int_equal(krg_ce_init(ctx, &ce, &g, 40, 31, 10, 10, 0), TRV_OK);
    printf("  Gau: torus %d x %d, lost %.3g\n", ce.m1, ce.m2, ce.lost);
    assert_true(ce.m1 == 640 && ce.m2 == 512 && ce.lost > 0);
    krg_ce_free(&ce);
    krg_ce_free(&ce);
    trv_ctx_free(ctx);
}

/* A 10 x 10 DEM of 30 m cells in UTM, refined to 10 m: every sample is
 * the centre of a target cell. */
typedef struct dem_case {
    krg_points *pts;
    krg_source *src;
    krg_index *ix;
    geo_raster *pred, *std;
    krg_model m;
    krg_opts o;
    char *wkt;
    geo_grid t;
} dem_case;

static void dem_case_init(trv_ctx *ctx, dem_case *d, int threads)
{
    memset(d, 0, sizeof *d);
    assert_int_equal(geo_crs_wkt(ctx, "EPSG:32616", &d->wkt), TRV_OK);
    geo_grid g = {10, 10, {500000, 30, 0, 3700000, 0, -30}, d->wkt};
    geo_raster *dem = NULL;
    assert_int_equal(geo_raster_new(ctx, &g, GEO_F32, &dem), TRV_OK);
    for (int r = 0; r < 10; r++)
        for (int c = 0; c < 10; c++)
            dem->f32[r * 10 + c] = (float)(100 + 2 * c - r + 3 * sin(0.7 * c) * cos(0.5 * r));
    assert_int_equal(krg_source_new(ctx, dem, d->wkt, 0, &d->src), TRV_OK);
    geo_raster_free(dem);
    d->pts = d->src->pts;
    assert_int_equal(krg_index_new(ctx, d->pts, &d->ix), TRV_OK);
    d->m = (krg_model){KRG_EXP, 0, 4.0, 60.0, 0};
    krg_opts_init(&d->o);
    d->o.threads = threads;
    d->t = (geo_grid){30, 30, {500000, 10, 0, 3700000, 0, -10}, d->wkt};
    assert_int_equal(krg_refine(ctx, d->src, d->ix, &d->m, &d->o, &d->t, 1, &d->pred, &d->std, NULL), TRV_OK);
    d->src->pts = NULL; /* the simulation borrows the points */
}

static void dem_case_free(dem_case *d)
{
    krg_points_free(d->pts);
    krg_source_free(d->src);
    krg_index_free(d->ix);
    geo_raster_free(d->pred);
    geo_raster_free(d->std);
    free(d->wkt);
}

static krg_sim *dem_sim(trv_ctx *ctx, dem_case *d, double max_weights)
{
    krg_sim *s = NULL;
    assert_int_equal(krg_sim_new(ctx, d->pts, d->src, d->ix, &d->m, &d->o, 1, d->wkt, &d->t, 11, max_weights, &s),
                     TRV_OK);
    assert_null(d->src->pts); /* restored after each use */
    return s;
}

static void test_conditional_moments(void **state)
{
    (void)state;
    enum { N = 4000, NC = 900 };
    trv_ctx *ctx = trv_ctx_new();
    dem_case d;
    dem_case_init(ctx, &d, 1);
    krg_sim *s = dem_sim(ctx, &d, 0);
    double *sum = calloc(NC, sizeof *sum), *sum2 = calloc(NC, sizeof *sum2);
    float out[NC];
    for (int k = 0; k < N; k++) {
        assert_int_equal(krg_sim_get(ctx, s, k, d.pred->f32, out), TRV_OK);
        for (int i = 0; i < NC; i++) {
            double e = out[i] - d.pred->f32[i];
            sum[i] += e;
            sum2[i] += e * e;
        }
        for (int r = 0; r < 10; r++) /* the samples, honoured */
            for (int c = 0; c < 10; c++)
                assert_true(fabs(out[(3 * r + 1) * 30 + 3 * c + 1] - d.pts->z[r * 10 + c]) <= 1e-4);
    }
    double worst_m = 0, worst_v = 0, tol_v = 5 * sqrt(2.0 / (N - 1));
    int checked = 0;
    for (int i = 0; i < NC; i++) {
        double sk = d.std->f32[i];
        if (sk < 0.05)
            continue;
        double mean = sum[i] / N, var = (sum2[i] - N * mean * mean) / (N - 1);
        worst_m = fmax(worst_m, fabs(mean) / (sk / sqrt(N)));
        worst_v = fmax(worst_v, fabs(var / (sk * sk) - 1));
        checked++;
    }
    printf("  %d realisations, %d nodes: mean - prediction up to %.2f sigma_K/sqrt(N) (limit 5), variance / kriging "
           "variance - 1 up to %.3f (limit %.3f)\n",
           N, checked, worst_m, worst_v, tol_v);
    assert_true(checked > 700);
    assert_true(worst_m <= 5);
    assert_true(worst_v <= tol_v);
    free(sum);
    free(sum2);
    krg_sim_free(s);
    dem_case_free(&d);
    trv_ctx_free(ctx);
}

/* The kept-weights and the kriging paths agree; threads change no bit. */
static void test_paths_threads(void **state)
{
    (void)state;
    enum { NC = 900 };
    trv_ctx *ctx = trv_ctx_new();
    dem_case d1, d3, dk;
    dem_case_init(ctx, &d1, 1);
    dem_case_init(ctx, &d3, 3);
    dem_case_init(ctx, &dk, 2);
    krg_sim *s1 = dem_sim(ctx, &d1, 0), *s3 = dem_sim(ctx, &d3, 0), *sk = dem_sim(ctx, &dk, 1);
    float a[NC], b[NC], c[NC];
    double worst = 0;
    for (int k = 0; k < 5; k++) {
        assert_int_equal(krg_sim_get(ctx, s1, k, d1.pred->f32, a), TRV_OK);
        assert_int_equal(krg_sim_get(ctx, s3, k, d3.pred->f32, b), TRV_OK);
        assert_int_equal(krg_sim_get(ctx, sk, k, dk.pred->f32, c), TRV_OK);
        assert_memory_equal(a, b, sizeof a);
        for (int i = 0; i < NC; i++)
            worst = fmax(worst, fabs(a[i] - c[i]));
    }
    printf("  kept weights against kriging each realisation: max difference %.2e m\n", worst);
    assert_true(worst <= 1e-4);
    krg_sim_free(s1);
    krg_sim_free(s3);
    krg_sim_free(sk);
    dem_case_free(&d1);
    dem_case_free(&d3);
    dem_case_free(&dk);
    trv_ctx_free(ctx);
}

static void test_meuse_gstat(void **state)
{
    (void)state;
    enum { N = 1000, NX = 78, NY = 104 };
    trv_ctx *ctx = trv_ctx_new();
    trv_csv *c = test_csv_load(data_path("meuse/meuse_points.csv"));
    krg_points *p = NULL;
    assert_int_equal(krg_points_new(ctx, trv_csv_nrows(c), &p), TRV_OK);
    for (size_t i = 0; i < p->n; i++) {
        p->x[i] = test_csv_num(c, i, "x");
        p->y[i] = test_csv_num(c, i, "y");
        p->z[i] = log(test_csv_num(c, i, "zinc"));
    }
    trv_csv_free(c);
    krg_model m = {KRG_SPH, 0.0506652166361623, 0.590610542350093, 897.041171303281, 0}; /* meuse_logzinc_fit.csv */
    krg_opts o;
    krg_opts_init(&o);
    o.nmax = 20;
    krg_index *ix = NULL;
    char *wkt = NULL;
    assert_int_equal(krg_index_new(ctx, p, &ix), TRV_OK);
    assert_int_equal(geo_crs_wkt(ctx, "EPSG:28992", &wkt), TRV_OK);
    geo_grid t = {NX, NY, {178440, 40, 0, 333760, 0, -40}, wkt};
    geo_raster *pred = NULL, *std = NULL;
    assert_int_equal(krg_grid_points(ctx, p, ix, &m, &o, wkt, &t, &pred, &std), TRV_OK);
    krg_sim *s = NULL;
    assert_int_equal(krg_sim_new(ctx, p, NULL, ix, &m, &o, 1, wkt, &t, 5, 0, &s), TRV_OK);
    double *sum = calloc(NX * NY, sizeof *sum), *sum2 = calloc(NX * NY, sizeof *sum2);
    float *out = malloc(NX * NY * sizeof *out);
    for (int k = 0; k < N; k++) {
        assert_int_equal(krg_sim_get(ctx, s, k, pred->f32, out), TRV_OK);
        for (int i = 0; i < NX * NY; i++) {
            sum[i] += out[i];
            sum2[i] += (double)out[i] * out[i];
        }
    }
    trv_csv *ref = test_csv_load(testdata_path("gstat/meuse_logzinc_sim_nmax20.csv"));
    size_t n = trv_csv_nrows(ref);
    double worst_m = 0, worst_v = 0, ratio = 0, d2 = 0;
    for (size_t r = 0; r < n; r++) {
        int col = (int)lround((test_csv_num(ref, r, "x") - 178440) / 40 - 0.5), row = (int)lround((333760 - test_csv_num(ref, r, "y")) / 40 - 0.5);
        assert_true(col >= 0 && col < NX && row >= 0 && row < NY);
        int i = row * NX + col;
        double mean = sum[i] / N, var = (sum2[i] - N * mean * mean) / (N - 1), vk = (double)std->f32[i] * std->f32[i];
        worst_m = fmax(worst_m, fabs(mean - pred->f32[i]) / sqrt(vk / N));
        worst_v = fmax(worst_v, fabs(var / vk - 1));
        ratio += var / test_csv_num(ref, r, "var");
        d2 += pow(mean - test_csv_num(ref, r, "mean"), 2) / vk;
    }
    ratio /= n;
    double rms = sqrt(d2 / n), tol_v = 5 * sqrt(2.0 / (N - 1));
    printf("  Meuse, %d realisations at %zu nodes: mean - OK prediction up to %.2f sigma_K/sqrt(N), variance / OK "
           "variance - 1 up to %.3f (limit %.3f); against gstat: variance ratio %.4f, RMS of the mean difference "
           "%.3f sigma_K\n",
           N, n, worst_m, worst_v, tol_v, ratio, rms);
    assert_true(worst_m <= 5);
    assert_true(worst_v <= tol_v);
    assert_true(fabs(ratio - 1) <= 0.05);
    assert_true(rms <= 0.2);
    trv_csv_free(ref);
    free(sum);
    free(sum2);
    free(out);
    krg_sim_free(s);
    krg_index_free(ix);
    geo_raster_free(pred);
    geo_raster_free(std);
    krg_points_free(p);
    free(wkt);
    trv_ctx_free(ctx);
}

/* Points off the lattice with a range short against the cell: their U is
 * mostly the simple-kriging error drawn for them, so the per-node variance
 * checks (as above, N = 2000) fail without it. */
static void test_points_off_lattice(void **state)
{
    (void)state;
    enum { N = 2000, NX = 12, NP = 40 };
    trv_ctx *ctx = trv_ctx_new();
    krg_points *p = NULL;
    assert_int_equal(krg_points_new(ctx, NP, &p), TRV_OK);
    trv_rng r;
    trv_rng_seed(&r, 9);
    for (int i = 0; i < NP; i++) {
        p->x[i] = 500000 + 120 * trv_rng_uniform(&r);
        p->y[i] = 3700000 - 120 * trv_rng_uniform(&r);
        p->z[i] = 10 * trv_rng_uniform(&r);
    }
    krg_model m = {KRG_EXP, 0, 3.0, 6.0, 0};
    krg_opts o;
    krg_opts_init(&o);
    krg_index *ix = NULL;
    char *wkt = NULL;
    assert_int_equal(krg_index_new(ctx, p, &ix), TRV_OK);
    assert_int_equal(geo_crs_wkt(ctx, "EPSG:32616", &wkt), TRV_OK);
    geo_grid t = {NX, NX, {500000, 10, 0, 3700000, 0, -10}, wkt};
    geo_raster *pred = NULL, *std = NULL;
    assert_int_equal(krg_grid_points(ctx, p, ix, &m, &o, wkt, &t, &pred, &std), TRV_OK);
    krg_sim *s = NULL;
    assert_int_equal(krg_sim_new(ctx, p, NULL, ix, &m, &o, 1, wkt, &t, 8, 0, &s), TRV_OK);
    double sum[NX * NX] = {0}, sum2[NX * NX] = {0};
    float out[NX * NX];
    for (int k = 0; k < N; k++) {
        assert_int_equal(krg_sim_get(ctx, s, k, pred->f32, out), TRV_OK);
        for (int i = 0; i < NX * NX; i++) {
            double e = out[i] - pred->f32[i];
            sum[i] += e;
            sum2[i] += e * e;
        }
    }
    double worst_m = 0, worst_v = 0, tol_v = 5 * sqrt(2.0 / (N - 1));
    for (int i = 0; i < NX * NX; i++) {
        double sk = std->f32[i], mean = sum[i] / N, var = (sum2[i] - N * mean * mean) / (N - 1);
        worst_m = fmax(worst_m, fabs(mean) / (sk / sqrt(N)));
        worst_v = fmax(worst_v, fabs(var / (sk * sk) - 1));
    }
    printf("  %d points off the lattice, %d realisations: mean up to %.2f sigma_K/sqrt(N), variance / kriging "
           "variance - 1 up to %.3f (limit %.3f)\n",
           NP, N, worst_m, worst_v, tol_v);
    assert_true(worst_m <= 5);
    assert_true(worst_v <= tol_v);
    krg_sim_free(s);
    krg_index_free(ix);
    geo_raster_free(pred);
    geo_raster_free(std);
    krg_points_free(p);
    free(wkt);
    trv_ctx_free(ctx);
}

/* Window (x0, y0, w, h) of the nx-wide array src into dst (w h values), or
 * dst back into it (back). */
static void window_copy(float *src, int nx, int x0, int y0, int w, int h, float *dst, int back)
{
    for (int r = 0; r < h; r++) {
        float *a = src + (size_t)(y0 + r) * nx + x0, *b = dst + (size_t)r * w;
        memcpy(back ? a : b, back ? b : a, (size_t)w * sizeof *a);
    }
}

/* The pair's realisations (into a and b, whole) by the tiles of tw x th in
 * the order `order` asks: 0 row-major, 1 reversed, 2 the even tiles then
 * the odd ones; pred the whole kriged DEM, or with kept (not NULL) each
 * tile's kriged cells taken back from the scratch file into kept. */
static void by_tiles(trv_ctx *ctx, krg_sim *s, int nx, int ny, int tw, int th, int order, const float *pred,
                     float *kept, float *a, float *b)
{
    geo_tiling tl = geo_tiling_make(nx, ny, tw, th);
    int n = geo_tiling_count(&tl);
    float *pw = malloc((size_t)tw * th * sizeof *pw), *aw = malloc((size_t)tw * th * sizeof *aw),
          *bw = malloc((size_t)tw * th * sizeof *bw);
    for (int k = 0; k < n; k++) {
        int ev = (n + 1) / 2; /* the even tiles */
        int i = order == 0 ? k : order == 1 ? n - 1 - k : k < ev ? 2 * k : 2 * (k - ev) + 1;
        geo_tile t = geo_tiling_tile(&tl, i);
        if (kept) {
            assert_int_equal(krg_sim_pred_tile(ctx, s, t.x0, t.y0, t.nx, t.ny, pw), TRV_OK);
            window_copy(kept, nx, t.x0, t.y0, t.nx, t.ny, pw, 1);
        } else
            window_copy((float *)pred, nx, t.x0, t.y0, t.nx, t.ny, pw, 0);
        float *o2[2] = {aw, b ? bw : NULL};
        assert_int_equal(krg_sim_tile(ctx, s, t.x0, t.y0, t.nx, t.ny, pw, o2), TRV_OK);
        window_copy(a, nx, t.x0, t.y0, t.nx, t.ny, aw, 1);
        if (b)
            window_copy(b, nx, t.x0, t.y0, t.nx, t.ny, bw, 1);
    }
    free(pw);
    free(aw);
    free(bw);
}

/* Realisations by tiles (krg_sim_pair, krg_sim_tile): full-width blocks of
 * 1, 4 and 7 rows, tiles of 7 x 4, 4 x 7, 1 x ny and 5 x 5 (the last ones
 * clipped), asked in row-major order, reversed and the even ones first (the
 * nugget's stream drawn on, skipped ahead and skipped back), give the bits
 * of the whole target (krg_sim_get), both of a pair and the first alone,
 * and so do the later pairs from the first pass's tiles (krg_sim_cache, 7 x
 * 4: tiles of three widths and two heights); bad calls are usage errors. */
static void blocks_equal_whole(trv_ctx *ctx, krg_sim *s, int nx, int ny, const float *pred)
{
    size_t nc = (size_t)nx * ny;
    float *whole = malloc(2 * nc * sizeof *whole), *a = malloc(nc * sizeof *a), *b = malloc(nc * sizeof *b);
    const int tiles[7][3] = {{nx, 1, 0}, {nx, 4, 1}, {nx, 7, 2}, {7, 4, 0}, {4, 7, 2}, {1, ny, 1}, {5, 5, 2}};
    for (long p = 0; p < 2; p++) {
        assert_int_equal(krg_sim_get(ctx, s, (int)(2 * p), pred, whole), TRV_OK);
        assert_int_equal(krg_sim_get(ctx, s, (int)(2 * p + 1), pred, whole + nc), TRV_OK);
        assert_memory_not_equal(whole, whole + nc, nc * sizeof *whole);
        for (int t = 0; t < 7; t++) {
            assert_int_equal(krg_sim_pair(ctx, s, p, 2), TRV_OK);
            memset(a, 0, nc * sizeof *a);
            memset(b, 0, nc * sizeof *b);
            by_tiles(ctx, s, nx, ny, tiles[t][0], tiles[t][1], tiles[t][2], pred, NULL, a, b);
            assert_memory_equal(a, whole, nc * sizeof *a);
            assert_memory_equal(b, whole + nc, nc * sizeof *b);
        }
        assert_int_equal(krg_sim_pair(ctx, s, p, 1), TRV_OK); /* the first of the pair alone */
        memset(b, 0, nc * sizeof *b);
        float *o2[2] = {a, b};
        assert_int_equal(krg_sim_tile(ctx, s, 0, 0, nx, ny, pred, o2), TRV_OK);
        assert_memory_equal(a, whole, nc * sizeof *a);
        for (size_t i = 0; i < nc; i++)
            assert_true(b[i] == 0);
    }
    /* the first pass's tiles kept (krg_sim_cache): the later pairs' weights
     * and kriged cells from the scratch file, the same bits; nothing left in
     * the directory */
    char *dir = make_tmpdir();
    float *kept = malloc(nc * sizeof *kept), *ref = malloc(3 * nc * sizeof *ref);
    for (int p = 0; p < 3; p++)
        assert_int_equal(krg_sim_get(ctx, s, 2 * p + 1, pred, ref + p * nc), TRV_OK);
    assert_int_equal(krg_sim_pred_tile(ctx, s, 0, 0, 7, 4, kept), TRV_ERR_USAGE); /* no scratch file */
    geo_tiling tl = geo_tiling_make(nx, ny, 7, 4);
    assert_int_equal(krg_sim_cache(ctx, s, dir, &tl), TRV_OK);
    for (long p = 0; p < 3; p++) {
        assert_int_equal(krg_sim_pair(ctx, s, p, 2), TRV_OK);
        memset(kept, 0, nc * sizeof *kept);
        by_tiles(ctx, s, nx, ny, 7, 4, 0, pred, p > 0 ? kept : NULL, a, b);
        if (p > 0)
            assert_memory_equal(kept, pred, nc * sizeof *kept);
        assert_memory_equal(b, ref + p * nc, nc * sizeof *b);
    }
    geo_tile t = geo_tiling_tile(&tl, tl.ntx + 1);
    assert_int_equal(krg_sim_pred_tile(ctx, s, t.x0, t.y0, t.nx, t.ny, kept), TRV_OK);
    assert_int_equal(krg_sim_pred_tile(ctx, s, 1, 0, 7, 4, kept), TRV_ERR_USAGE); /* not a tile */
    assert_int_equal(krg_sim_pred_tile(ctx, s, t.x0, t.y0, t.nx, t.ny + 1, kept), TRV_ERR_USAGE);
    assert_int_equal(krg_sim_pred_tile(ctx, s, 0, 0, nx, 4, kept), TRV_ERR_USAGE);
    char *cmd = NULL;
    assert_true(asprintf(&cmd, "test -z \"$(ls -A '%s')\"", dir) > 0);
    assert_int_equal(system(cmd), 0);
    free(cmd);
    assert_int_equal(krg_sim_cache(ctx, s, "/nonexistent/dir", &tl), TRV_ERR_IO);
    rm_rf(dir);
    free(dir);
    free(kept);
    free(ref);
    float *o2[2] = {a, b};
    assert_int_equal(krg_sim_tile(ctx, s, 0, 3, nx, 0, pred, o2), TRV_ERR_USAGE);
    assert_int_equal(krg_sim_tile(ctx, s, 0, 0, nx, ny + 1, pred, o2), TRV_ERR_USAGE);
    assert_int_equal(krg_sim_tile(ctx, s, 1, 0, nx, 1, pred, o2), TRV_ERR_USAGE);
    assert_int_equal(krg_sim_tile(ctx, s, -1, 0, 2, 1, pred, o2), TRV_ERR_USAGE);
    assert_int_equal(krg_sim_pair(ctx, s, 0, 3), TRV_ERR_USAGE);
    assert_int_equal(krg_sim_get(ctx, s, -1, pred, a), TRV_ERR_USAGE);
    free(whole);
    free(a);
    free(b);
}

/* The lattice's tiles for pass A, which krg_sim_new reads from the
 * environment (geo_block_cols, geo_block_rows): combination i of 4 (0:
 * the defaults). */
static void lattice_tiles(int i)
{
    static const char *const cols[4] = {NULL, "5", "1", "3"}, *const rows[4] = {NULL, "4", "3", "1"};
    if (!cols[i]) {
        unsetenv("TRV_BLOCK_COLS");
        unsetenv("TRV_BLOCK_ROWS");
        return;
    }
    setenv("TRV_BLOCK_COLS", cols[i], 1);
    setenv("TRV_BLOCK_ROWS", rows[i], 1);
}

/* Realisations 0 .. 3 of s into out (nc cells each). */
static void four(trv_ctx *ctx, krg_sim *s, const float *pred, size_t nc, float *out)
{
    for (int k = 0; k < 4; k++)
        assert_int_equal(krg_sim_get(ctx, s, k, pred, out + k * nc), TRV_OK);
}

static void test_blocks_raster(void **state)
{
    (void)state;
    trv_ctx *ctx = trv_ctx_new();
    dem_case d;
    dem_case_init(ctx, &d, 2);
    /* kept weights; kriging each realisation; kept weights with a budget
     * they just fit, held a run of 30 * 30 / 16 cells (one row) at a time */
    const double budget[3] = {0, 1, 30.0 * 30 * krg_simw_k(d.pts, &d.o) * 8};
    float first[3][900];
    for (int path = 0; path < 3; path++) {
        krg_sim *s = dem_sim(ctx, &d, budget[path]);
        assert_int_equal(krg_sim_keeps_weights(s), path != 1);
        blocks_equal_whole(ctx, s, 30, 30, d.pred->f32);
        assert_int_equal(krg_sim_get(ctx, s, 3, d.pred->f32, first[path]), TRV_OK);
        krg_sim_free(s);
    }
    assert_memory_equal(first[0], first[2], sizeof first[0]); /* by runs of one row: the same bits */
    /* pass A by lattice tiles of 5 x 4, 1 x 3 and 3 x 1 nodes: the same bits */
    float *want = malloc(4 * 900 * sizeof *want), *got = malloc(4 * 900 * sizeof *got);
    for (int i = 0; i < 4; i++) {
        lattice_tiles(i);
        krg_sim *s = dem_sim(ctx, &d, 0);
        lattice_tiles(0);
        four(ctx, s, d.pred->f32, 900, i ? got : want);
        if (i)
            assert_memory_equal(got, want, 4 * 900 * sizeof *got);
        krg_sim_free(s);
    }
    free(want);
    free(got);
    dem_case_free(&d);
    trv_ctx_free(ctx);
}

/* Points off the lattice with a nugget (its noise per node and per sample). */
static void test_blocks_points(void **state)
{
    (void)state;
    enum { NX = 13, NY = 11, NP = 60 };
    trv_ctx *ctx = trv_ctx_new();
    krg_points *p = NULL;
    assert_int_equal(krg_points_new(ctx, NP, &p), TRV_OK);
    trv_rng r;
    trv_rng_seed(&r, 4);
    for (int i = 0; i < NP; i++) {
        p->x[i] = 500000 + 130 * trv_rng_uniform(&r);
        p->y[i] = 3700000 - 110 * trv_rng_uniform(&r);
        p->z[i] = 20 + 0.05 * (p->x[i] - 500000) + 2 * trv_rng_uniform(&r);
    }
    krg_model m = {KRG_SPH, 0.3, 2.0, 60.0, 0};
    krg_opts o;
    krg_opts_init(&o);
    o.nmax = 12;
    krg_index *ix = NULL;
    char *wkt = NULL;
    assert_int_equal(krg_index_new(ctx, p, &ix), TRV_OK);
    assert_int_equal(geo_crs_wkt(ctx, "EPSG:32616", &wkt), TRV_OK);
    geo_grid t = {NX, NY, {500000, 10, 0, 3700000, 0, -10}, wkt};
    geo_raster *pred = NULL;
    assert_int_equal(krg_grid_points(ctx, p, ix, &m, &o, wkt, &t, &pred, NULL), TRV_OK);
    const double budget[3] = {0, 1, (double)NX * NY * krg_simw_k(p, &o) * 8};
    for (int path = 0; path < 3; path++) {
        krg_sim *s = NULL;
        assert_int_equal(krg_sim_new(ctx, p, NULL, ix, &m, &o, 1, wkt, &t, 21, budget[path], &s), TRV_OK);
        assert_int_equal(krg_sim_keeps_weights(s), path != 1);
        blocks_equal_whole(ctx, s, NX, NY, pred->f32);
        krg_sim_free(s);
    }
    /* pass A by lattice tiles of 5 x 4, 1 x 3 and 3 x 1 nodes: the same bits */
    float want[4 * NX * NY], got[4 * NX * NY];
    for (int i = 0; i < 4; i++) {
        krg_sim *s = NULL;
        lattice_tiles(i);
        assert_int_equal(krg_sim_new(ctx, p, NULL, ix, &m, &o, 1, wkt, &t, 21, 0, &s), TRV_OK);
        lattice_tiles(0);
        four(ctx, s, pred->f32, NX * NY, i ? got : want);
        if (i)
            assert_memory_equal(got, want, sizeof got);
        krg_sim_free(s);
    }
    krg_index_free(ix);
    geo_raster_free(pred);
    krg_points_free(p);
    free(wkt);
    trv_ctx_free(ctx);
}

static int setup(void **state)
{
    (void)state;
    geo_init();
    return 0;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fft),                 cmocka_unit_test(test_ziggurat),
        cmocka_unit_test(test_unconditional_variogram), cmocka_unit_test(test_out_of_core),
        cmocka_unit_test(test_sim_mem_env),
        cmocka_unit_test(test_conditional_moments), cmocka_unit_test(test_paths_threads),
        cmocka_unit_test(test_meuse_gstat), cmocka_unit_test(test_points_off_lattice),
        cmocka_unit_test(test_blocks_raster), cmocka_unit_test(test_blocks_points),
    };
    return cmocka_run_group_tests(tests, setup, NULL);
}
