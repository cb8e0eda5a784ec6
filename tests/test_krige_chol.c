/* The covariance form's Cholesky and forward substitution (krg_chol,
 * krg_chol_fwd; docs/method.md 1.7) on seeded random SPD matrices
 * C = A A' / n + I of every size 1..70:
 *   - the same bits as the scalar row-by-row forms written out here (each
 *     sum in k order, separate multiply and subtract), with and without
 *     AVX (the SSE2 pairs, the AVX groups of eight and four and every
 *     tail are met by these sizes);
 *   - closed forms: L L' = C and L y = b to 1e-12 relative;
 *   - a pivot not above the threshold refused: a matrix with two equal
 *     rows (a zero pivot), and the 1 x 1 matrix [t] with threshold t. */
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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_bits_and_closed_forms),
        cmocka_unit_test(test_pivots_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
