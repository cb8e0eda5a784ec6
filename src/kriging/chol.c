/* Cholesky of the small covariance matrices of block kriging, the entries
 * of a column computed together (SIMD across rows), each with the bits of
 * the scalar form. */
#include "krige_priv.h"

#include <math.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif
#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define HAVE_AVX_CHOL 1
#endif

/* Rows i = *i .. of column j, eight then four at a time with AVX; the rest
 * left to the caller. Separate multiply and subtract in k order. */
#ifdef HAVE_AVX_CHOL
__attribute__((target("avx"))) static void col_avx(double *W, int n, int j, double rj, int *i)
{
    const __m256d r = _mm256_set1_pd(rj);
    for (; *i + 8 <= n; *i += 8) {
        double *w = W + (size_t)j * n + *i;
        __m256d a0 = _mm256_loadu_pd(w), a1 = _mm256_loadu_pd(w + 4);
        for (int k = 0; k < j; k++) {
            const double *wk = W + (size_t)k * n + *i;
            __m256d s = _mm256_set1_pd(W[(size_t)k * n + j]);
            a0 = _mm256_sub_pd(a0, _mm256_mul_pd(_mm256_loadu_pd(wk), s));
            a1 = _mm256_sub_pd(a1, _mm256_mul_pd(_mm256_loadu_pd(wk + 4), s));
        }
        _mm256_storeu_pd(w, _mm256_mul_pd(a0, r));
        _mm256_storeu_pd(w + 4, _mm256_mul_pd(a1, r));
    }
    for (; *i + 4 <= n; *i += 4) {
        double *w = W + (size_t)j * n + *i;
        __m256d a0 = _mm256_loadu_pd(w);
        for (int k = 0; k < j; k++)
            a0 = _mm256_sub_pd(a0, _mm256_mul_pd(_mm256_loadu_pd(W + (size_t)k * n + *i),
                                                  _mm256_set1_pd(W[(size_t)k * n + j])));
        _mm256_storeu_pd(w, _mm256_mul_pd(a0, r));
    }
}
#endif

/* Rows i > j of column j: L_ij = (C_ij - sum_{k<j} L_ik L_jk) r_j. */
static void column(double *W, int n, int j, double rj, int avx)
{
    int i = j + 1;
#ifdef HAVE_AVX_CHOL
    if (avx)
        col_avx(W, n, j, rj, &i);
#else
    (void)avx;
#endif
#ifdef __SSE2__
    const __m128d r = _mm_set1_pd(rj);
    for (; i + 2 <= n; i += 2) {
        double *w = W + (size_t)j * n + i;
        __m128d a = _mm_loadu_pd(w);
        for (int k = 0; k < j; k++)
            a = _mm_sub_pd(a, _mm_mul_pd(_mm_loadu_pd(W + (size_t)k * n + i), _mm_set1_pd(W[(size_t)k * n + j])));
        _mm_storeu_pd(w, _mm_mul_pd(a, r));
    }
#endif
    for (; i < n; i++) {
        double acc = W[(size_t)j * n + i];
        for (int k = 0; k < j; k++)
            acc -= W[(size_t)k * n + i] * W[(size_t)k * n + j];
        W[(size_t)j * n + i] = acc * rj;
    }
}

int krg_chol_avx(void)
{
#ifdef HAVE_AVX_CHOL
    return __builtin_cpu_supports("avx");
#else
    return 0;
#endif
}

int krg_chol(double *W, int n, double tiny, double *r, int avx)
{
    /* r[i], i > j, holds C_ii - sum_{k<j} L_ik^2 until column i: the
     * pivots' sums in k order, one column at a time (as the rows) */
    for (int i = 0; i < n; i++)
        r[i] = W[(size_t)i * n + i];
    for (int j = 0; j < n; j++) {
        double acc = r[j];
        if (!(acc > tiny))
            return -1;
        double *wj = W + (size_t)j * n;
        wj[j] = sqrt(acc);
        r[j] = 1 / wj[j];
        column(W, n, j, r[j], avx);
        for (int i = j + 1; i < n; i++)
            r[i] -= wj[i] * wj[i];
    }
    return 0;
}

#ifdef HAVE_AVX_CHOL
/* x[i] -= w[i] s for i = *i .. four at a time; the rest left to the caller. */
__attribute__((target("avx"))) static void axpy_avx(double *x, const double *w, double s, int n, int *i)
{
    const __m256d vs = _mm256_set1_pd(s);
    for (; *i + 4 <= n; *i += 4)
        _mm256_storeu_pd(x + *i, _mm256_sub_pd(_mm256_loadu_pd(x + *i), _mm256_mul_pd(_mm256_loadu_pd(w + *i), vs)));
}
#endif

void krg_chol_fwd(const double *L, int n, const double *r, double *x, int avx)
{
    for (int k = 0; k < n; k++) {
        double s = x[k] *= r[k];
        const double *lk = L + (size_t)k * n;
        int i = k + 1;
#ifdef HAVE_AVX_CHOL
        if (avx)
            axpy_avx(x, lk, s, n, &i);
#else
        (void)avx;
#endif
        for (; i < n; i++)
            x[i] -= lk[i] * s;
    }
}
