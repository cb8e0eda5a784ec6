/* The covariance form's Cholesky and forward substitution (krg_chol,
 * krg_chol_fwd; docs/method.md 1.7) on seeded random SPD matrices
 * C = A A' / n + I of every size 1..70:
 *   - the same bits as the scalar row-by-row forms written out here (each
 *     sum in k order, separate multiply and subtract), with and without
 *     AVX (the SSE2 pairs, the AVX groups of eight and four and every
 *     tail are met by these sizes);
 *   - closed forms: L L' = C and L y = b to 1e-12 relative;
 *   - a pivot not above the threshold refused: a matrix with two equal
 *     rows (a zero pivot), and the 1 x 1 matrix [t] with threshold t;
 *   - krg_dot4: the bits of its four partial sums written out here, with
 *     and without AVX, and exact sums of small integers;
 *   - a framed block's weights (krg_frame_alpha, krg_frame_alpha4): the
 *     bits of the step-by-step form written out here, every lane of the
 *     four-block form the bits of the one-block form, with and without
 *     AVX; and the kriging system itself: C alpha + beta 1 = z and
 *     1'alpha = 0 to 1e-10 (these determine alpha and beta). */
#include "test_common.h"

#include <math.h>
#include <string.h>

#include "kriging/krige.h"
#include "kriging/krige_priv.h"

enum { NMAX = 70 };

/* C = A A' / n + I (column-major, full), A uniform on [-1, 1). */
static void spd(trv_rng *g, int n, double *C)
{
    double A[NMAX * NMAX];
    for (int i = 0; i < n * n; i++)
        A[i] = 2 * trv_rng_uniform(g) - 1;
    for (int j = 0; j < n; j++)
        for (int i = 0; i < n; i++) {
            double s = 0;
            for (int k = 0; k < n; k++)
                s += A[i * n + k] * A[j * n + k];
            C[j * n + i] = s / n + (i == j);
        }
}

/* The row-by-row form (row-major L), as grid.c had it. */
static int chol_rows(const double *C, int n, double tiny, double *L, double *r)
{
    for (int i = 0; i < n; i++)
        for (int j = 0; j <= i; j++)
            L[i * n + j] = C[j * n + i];
    for (int j = 0; j < n; j++) {
        const double *lj = L + j * n;
        double acc = lj[j];
        for (int k = 0; k < j; k++)
            acc -= lj[k] * lj[k];
        if (!(acc > tiny))
            return -1;
        L[j * n + j] = sqrt(acc);
        r[j] = 1 / L[j * n + j];
        for (int i = j + 1; i < n; i++) {
            double *li = L + i * n;
            acc = li[j];
            for (int k = 0; k < j; k++)
                acc -= li[k] * lj[k];
            li[j] = acc * r[j];
        }
    }
    return 0;
}

static void fwd_rows(const double *L, int n, const double *r, double *x)
{
    for (int i = 0; i < n; i++) {
        double acc = x[i];
        for (int k = 0; k < i; k++)
            acc -= L[i * n + k] * x[k];
        x[i] = acc * r[i];
    }
}

static void test_bits_and_closed_forms(void **state)
{
    (void)state;
    trv_rng g;
    trv_rng_seed(&g, 42);
    static double C[NMAX * NMAX], W[NMAX * NMAX], Lr[NMAX * NMAX];
    double r[NMAX], rr[NMAX], b[NMAX], x[NMAX], xr[NMAX];
    int avx_on = krg_chol_avx();
    if (!avx_on)
        print_message("SKIPPED: AVX paths (no AVX on this processor)\n");
    for (int n = 1; n <= NMAX; n++) {
        spd(&g, n, C);
        assert_int_equal(chol_rows(C, n, 1e-12, Lr, rr), 0);
        for (int i = 0; i < n; i++)
            b[i] = 2 * trv_rng_uniform(&g) - 1;
        for (int avx = 0; avx <= avx_on; avx++) {
            memcpy(W, C, sizeof(double) * n * n);
            assert_int_equal(krg_chol(W, n, 1e-12, r, avx), 0);
            for (int i = 0; i < n; i++) {
                assert_true(memcmp(&r[i], &rr[i], sizeof r[i]) == 0);
                for (int k = 0; k <= i; k++)
                    if (memcmp(&W[k * n + i], &Lr[i * n + k], sizeof(double)) != 0)
                        fail_msg("n %d avx %d: L[%d][%d] %.17g, row form %.17g", n, avx, i, k, W[k * n + i],
                                 Lr[i * n + k]);
            }
            /* L L' = C */
            for (int i = 0; i < n; i++)
                for (int j = 0; j <= i; j++) {
                    double s = 0;
                    for (int k = 0; k <= j; k++)
                        s += W[k * n + i] * W[k * n + j];
                    assert_true(fabs(s - C[j * n + i]) <= 1e-12 * C[i * n + i]);
                }
            /* L y = b */
            memcpy(x, b, sizeof(double) * n);
            memcpy(xr, b, sizeof(double) * n);
            krg_chol_fwd(W, n, r, x, avx);
            fwd_rows(Lr, n, rr, xr);
            assert_true(memcmp(x, xr, sizeof(double) * n) == 0);
            for (int i = 0; i < n; i++) {
                double s = 0;
                for (int k = 0; k <= i; k++)
                    s += W[k * n + i] * x[k];
                assert_true(fabs(s - b[i]) <= 1e-12 * (1 + fabs(b[i])));
            }
        }
    }
}

static void test_pivots_refused(void **state)
{
    (void)state;
    trv_rng g;
    trv_rng_seed(&g, 7);
    static double C[NMAX * NMAX], W[NMAX * NMAX];
    double r[NMAX];
    for (int avx = 0; avx <= krg_chol_avx(); avx++) {
        for (int n = 2; n <= 40; n += 19) { /* rows/columns 0 and n-1 equal: a zero pivot */
            spd(&g, n, C);
            for (int i = 0; i < n; i++) {
                C[(n - 1) * n + i] = C[i];
                C[i * n + n - 1] = C[i];
            }
            C[(n - 1) * n + n - 1] = C[0];
            memcpy(W, C, sizeof(double) * n * n);
            assert_int_equal(krg_chol(W, n, 1e-9, r, avx), -1);
        }
        double t = 0.25;
        W[0] = t;
        assert_int_equal(krg_chol(W, 1, t, r, avx), -1); /* not above */
        W[0] = t;
        assert_int_equal(krg_chol(W, 1, nextafter(t, 0), r, avx), 0);
        assert_true(W[0] == 0.5 && r[0] == 2);
        W[0] = NAN;
        assert_int_equal(krg_chol(W, 1, 0, r, avx), -1);
    }
}

/* krg_dot4's definition, written out: four partial sums over the whole
 * groups, the tail into the first, then (s0 + s1) + (s2 + s3). */
static double dot4_ref(const double *a, const double *b, int n)
{
    double s[4] = {0, 0, 0, 0};
    int q = 0;
    for (; q < n / 4; q++)
        for (int l = 0; l < 4; l++)
            s[l] = s[l] + a[4 * q + l] * b[4 * q + l];
    for (int k = 4 * q; k < n; k++)
        s[0] = s[0] + a[k] * b[k];
    return (s[0] + s[1]) + (s[2] + s[3]);
}

static void test_dot4(void **state)
{
    (void)state;
    trv_rng g;
    trv_rng_seed(&g, 11);
    double a[NMAX], b[NMAX];
    int differs = 0; /* the order matters: some sums differ from a plain loop's */
    for (int n = 0; n <= NMAX; n++) {
        for (int k = 0; k < n; k++) {
            a[k] = (2 * trv_rng_uniform(&g) - 1) * exp(8 * trv_rng_uniform(&g));
            b[k] = 2 * trv_rng_uniform(&g) - 1;
        }
        double ref = dot4_ref(a, b, n), plain = 0;
        for (int k = 0; k < n; k++)
            plain += a[k] * b[k];
        differs += plain != ref;
        for (int avx = 0; avx <= krg_chol_avx(); avx++) {
            double d = krg_dot4(a, b, n, avx);
            if (memcmp(&d, &ref, sizeof d) != 0)
                fail_msg("n %d avx %d: %.17g, the four sums %.17g", n, avx, d, ref);
        }
        /* integers: every order is exact */
        long sum = 0;
        for (int k = 0; k < n; k++) {
            a[k] = (double)(k % 7 - 3);
            b[k] = (double)(k % 5 + 1);
            sum += (long)(k % 7 - 3) * (k % 5 + 1);
        }
        for (int avx = 0; avx <= krg_chol_avx(); avx++)
            assert_true(krg_dot4(a, b, n, avx) == (double)sum);
    }
    assert_true(differs > 10);
}

/* frame_block's steps as grid.c had them for one block: v = L^-1 z by
 * rows, beta = u'v / s11, alpha = L'^-1 (v - beta u) with four partial
 * sums per row. */
static double alpha_ref(const double *Lr, const double *u, const double *r, double s11, int n, double *a)
{
    fwd_rows(Lr, n, r, a);
    double s1z = 0;
    for (int i = 0; i < n; i++)
        s1z += u[i] * a[i];
    double beta = s1z / s11;
    for (int i = 0; i < n; i++)
        a[i] -= beta * u[i];
    for (int i = n - 1; i >= 0; i--) {
        double s[4] = {0, 0, 0, 0};
        int k = i + 1;
        for (; k + 4 <= n; k += 4)
            for (int l = 0; l < 4; l++)
                s[l] += Lr[(k + l) * n + i] * a[k + l];
        for (; k < n; k++)
            s[0] += Lr[k * n + i] * a[k];
        a[i] = (a[i] - ((s[0] + s[1]) + (s[2] + s[3]))) * r[i];
    }
    return beta;
}

static void test_frame_alpha(void **state)
{
    (void)state;
    trv_rng g;
    trv_rng_seed(&g, 5);
    static double C[NMAX * NMAX], W[NMAX * NMAX], Lr[NMAX * NMAX];
    double r[NMAX], rr[NMAX], u[NMAX], z[4][NMAX], a[NMAX], ar[NMAX], X[4 * NMAX];
    for (int n = 1; n <= NMAX; n++) {
        spd(&g, n, C);
        memcpy(W, C, sizeof(double) * n * n);
        assert_int_equal(krg_chol(W, n, 1e-12, r, 0), 0);
        assert_int_equal(chol_rows(C, n, 1e-12, Lr, rr), 0);
        for (int i = 0; i < n; i++)
            u[i] = 1;
        krg_chol_fwd(W, n, r, u, 0);
        double s11 = 0;
        for (int i = 0; i < n; i++)
            s11 += u[i] * u[i];
        for (int l = 0; l < 4; l++)
            for (int i = 0; i < n; i++)
                z[l][i] = 100 + 50 * (2 * trv_rng_uniform(&g) - 1);
        double beta[4], br[4];
        for (int l = 0; l < 4; l++) {
            memcpy(ar, z[l], sizeof(double) * n);
            br[l] = alpha_ref(Lr, u, rr, s11, n, ar);
            for (int avx = 0; avx <= krg_chol_avx(); avx++) {
                memcpy(a, z[l], sizeof(double) * n);
                double b = krg_frame_alpha(W, u, r, s11, n, a, avx);
                assert_true(memcmp(&b, &br[l], sizeof b) == 0 && memcmp(a, ar, sizeof(double) * n) == 0);
            }
            /* the system: C alpha + beta 1 = z, 1'alpha = 0 */
            double sa = 0, scale = 0;
            for (int i = 0; i < n; i++) {
                double s = br[l];
                for (int k = 0; k < n; k++)
                    s += C[k * n + i] * ar[k];
                assert_true(fabs(s - z[l][i]) <= 1e-10 * 150);
                sa += ar[i];
                scale += fabs(ar[i]);
            }
            assert_true(fabs(sa) <= 1e-12 * (1 + scale));
        }
        for (int avx = 0; avx <= krg_chol_avx(); avx++) {
            for (int l = 0; l < 4; l++)
                for (int i = 0; i < n; i++)
                    X[4 * i + l] = z[l][i];
            krg_frame_alpha4(W, u, r, s11, n, X, beta, avx);
            for (int l = 0; l < 4; l++) {
                if (memcmp(&beta[l], &br[l], sizeof beta[l]) != 0)
                    fail_msg("n %d avx %d lane %d: beta %.17g, one block %.17g", n, avx, l, beta[l], br[l]);
                memcpy(ar, z[l], sizeof(double) * n);
                alpha_ref(Lr, u, rr, s11, n, ar);
                for (int i = 0; i < n; i++)
                    if (memcmp(&X[4 * i + l], &ar[i], sizeof ar[i]) != 0)
                        fail_msg("n %d avx %d lane %d: alpha_%d %.17g, one block %.17g", n, avx, l, i,
                                 X[4 * i + l], ar[i]);
            }
        }
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_bits_and_closed_forms),
        cmocka_unit_test(test_pivots_refused),
        cmocka_unit_test(test_dot4),
        cmocka_unit_test(test_frame_alpha),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
