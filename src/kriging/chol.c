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

/* Rows i = *i .. of column j and their pivot sums d_i, eight then four at
 * a time with AVX; the rest left to the caller. Separate multiply and
 * subtract in k order. */
#ifdef HAVE_AVX_CHOL
__attribute__((target("avx"))) static void col_avx(double *W, int n, int j, double rj, double *d, int *i)
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
        a0 = _mm256_mul_pd(a0, r);
        a1 = _mm256_mul_pd(a1, r);
        _mm256_storeu_pd(w, a0);
        _mm256_storeu_pd(w + 4, a1);
        _mm256_storeu_pd(d + *i, _mm256_sub_pd(_mm256_loadu_pd(d + *i), _mm256_mul_pd(a0, a0)));
        _mm256_storeu_pd(d + *i + 4, _mm256_sub_pd(_mm256_loadu_pd(d + *i + 4), _mm256_mul_pd(a1, a1)));
    }
    for (; *i + 4 <= n; *i += 4) {
        double *w = W + (size_t)j * n + *i;
        __m256d a0 = _mm256_loadu_pd(w);
        for (int k = 0; k < j; k++)
            a0 = _mm256_sub_pd(a0, _mm256_mul_pd(_mm256_loadu_pd(W + (size_t)k * n + *i),
                                                  _mm256_set1_pd(W[(size_t)k * n + j])));
        a0 = _mm256_mul_pd(a0, r);
        _mm256_storeu_pd(w, a0);
        _mm256_storeu_pd(d + *i, _mm256_sub_pd(_mm256_loadu_pd(d + *i), _mm256_mul_pd(a0, a0)));
    }
}
#endif

/* Rows i > j of column j: L_ij = (C_ij - sum_{k<j} L_ik L_jk) r_j, and
 * the pivots' sums d_i -= L_ij^2. */
static void column(double *W, int n, int j, double rj, double *d, int avx)
{
    int i = j + 1;
#ifdef HAVE_AVX_CHOL
    if (avx)
        col_avx(W, n, j, rj, d, &i);
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
        a = _mm_mul_pd(a, r);
        _mm_storeu_pd(w, a);
        _mm_storeu_pd(d + i, _mm_sub_pd(_mm_loadu_pd(d + i), _mm_mul_pd(a, a)));
    }
#endif
    for (; i < n; i++) {
        double acc = W[(size_t)j * n + i];
        for (int k = 0; k < j; k++)
            acc -= W[(size_t)k * n + i] * W[(size_t)k * n + j];
        W[(size_t)j * n + i] = acc * rj;
        d[i] -= W[(size_t)j * n + i] * W[(size_t)j * n + i];
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
        column(W, n, j, r[j], r, avx);
    }
    return 0;
}

#ifdef HAVE_AVX_CHOL
/* krg_chol_fwd with AVX: four columns at a time, their 4 x 4 triangle in
 * scalars, then each group of four rows below loaded once and updated by
 * the four columns in order (same operations per entry, so same bits). */
__attribute__((target("avx"))) static void fwd_avx(const double *L, int n, const double *r, double *x)
{
    int k = 0;
    for (; k + 4 <= n; k += 4) {
        const double *l0 = L + (size_t)k * n, *l1 = l0 + n, *l2 = l1 + n, *l3 = l2 + n;
        double s0 = x[k] *= r[k];
        x[k + 1] -= l0[k + 1] * s0;
        x[k + 2] -= l0[k + 2] * s0;
        x[k + 3] -= l0[k + 3] * s0;
        double s1 = x[k + 1] *= r[k + 1];
        x[k + 2] -= l1[k + 2] * s1;
        x[k + 3] -= l1[k + 3] * s1;
        double s2 = x[k + 2] *= r[k + 2];
        x[k + 3] -= l2[k + 3] * s2;
        double s3 = x[k + 3] *= r[k + 3];
        const __m256d v0 = _mm256_set1_pd(s0), v1 = _mm256_set1_pd(s1), v2 = _mm256_set1_pd(s2),
                      v3 = _mm256_set1_pd(s3);
        int i = k + 4;
        for (; i + 4 <= n; i += 4) {
            __m256d v = _mm256_loadu_pd(x + i);
            v = _mm256_sub_pd(v, _mm256_mul_pd(_mm256_loadu_pd(l0 + i), v0));
            v = _mm256_sub_pd(v, _mm256_mul_pd(_mm256_loadu_pd(l1 + i), v1));
            v = _mm256_sub_pd(v, _mm256_mul_pd(_mm256_loadu_pd(l2 + i), v2));
            v = _mm256_sub_pd(v, _mm256_mul_pd(_mm256_loadu_pd(l3 + i), v3));
            _mm256_storeu_pd(x + i, v);
        }
        for (; i < n; i++) {
            x[i] -= l0[i] * s0;
            x[i] -= l1[i] * s1;
            x[i] -= l2[i] * s2;
            x[i] -= l3[i] * s3;
        }
    }
    for (; k < n; k++) {
        double s = x[k] *= r[k];
        for (int i = k + 1; i < n; i++)
            x[i] -= L[(size_t)k * n + i] * s;
    }
}
#endif

void krg_chol_fwd(const double *L, int n, const double *r, double *x, int avx)
{
#ifdef HAVE_AVX_CHOL
    if (avx) {
        fwd_avx(L, n, r, x);
        return;
    }
#else
    (void)avx;
#endif
    for (int k = 0; k < n; k++) {
        double s = x[k] *= r[k];
        const double *lk = L + (size_t)k * n;
        for (int i = k + 1; i < n; i++)
            x[i] -= lk[i] * s;
    }
}

#ifdef HAVE_AVX_CHOL
/* krg_dot4 with AVX: lane l of one accumulator is s_l (the same products
 * and sums in the same order), the tail into s_0 in scalars. */
__attribute__((target("avx"))) static double dot4_avx(const double *a, const double *b, int n)
{
    __m256d acc = _mm256_setzero_pd();
    int k = 0;
    for (; k + 4 <= n; k += 4)
        acc = _mm256_add_pd(acc, _mm256_mul_pd(_mm256_loadu_pd(a + k), _mm256_loadu_pd(b + k)));
    double s[4];
    _mm256_storeu_pd(s, acc);
    for (; k < n; k++)
        s[0] += a[k] * b[k];
    return (s[0] + s[1]) + (s[2] + s[3]);
}
#endif

double krg_dot4(const double *a, const double *b, int n, int avx)
{
#ifdef HAVE_AVX_CHOL
    if (avx)
        return dot4_avx(a, b, n);
#else
    (void)avx;
#endif
    double s0 = 0, s1 = 0, s2 = 0, s3 = 0;
    int k = 0;
    for (; k + 4 <= n; k += 4) {
        s0 += a[k] * b[k];
        s1 += a[k + 1] * b[k + 1];
        s2 += a[k + 2] * b[k + 2];
        s3 += a[k + 3] * b[k + 3];
    }
    for (; k < n; k++)
        s0 += a[k] * b[k];
    return (s0 + s1) + (s2 + s3);
}

double krg_frame_alpha(const double *L, const double *u, const double *r, double s11, int n, double *a, int avx)
{
    krg_chol_fwd(L, n, r, a, avx);
    double s1z = 0;
    for (int i = 0; i < n; i++)
        s1z += u[i] * a[i];
    double beta = s1z / s11;
    for (int i = 0; i < n; i++)
        a[i] -= beta * u[i];
    for (int i = n - 1; i >= 0; i--) /* four partial sums: independent chains */
        a[i] = (a[i] - krg_dot4(L + (size_t)i * n + i + 1, a + i + 1, n - i - 1, avx)) * r[i];
    return beta;
}

#ifdef HAVE_AVX_CHOL
/* krg_frame_alpha4's forward substitution, lane l = block l: four columns
 * at a time (their triangle first), then each row below updated by the
 * four in order, as fwd_avx does for one block. */
__attribute__((target("avx"))) static void fwd4_avx(const double *L, int n, const double *r, double *X)
{
    int k = 0;
    for (; k + 4 <= n; k += 4) {
        const double *l0 = L + (size_t)k * n, *l1 = l0 + n, *l2 = l1 + n, *l3 = l2 + n;
        __m256d x0 = _mm256_mul_pd(_mm256_loadu_pd(X + 4 * k), _mm256_set1_pd(r[k]));
        __m256d x1 = _mm256_loadu_pd(X + 4 * (k + 1)), x2 = _mm256_loadu_pd(X + 4 * (k + 2));
        __m256d x3 = _mm256_loadu_pd(X + 4 * (k + 3));
        x1 = _mm256_sub_pd(x1, _mm256_mul_pd(_mm256_set1_pd(l0[k + 1]), x0));
        x2 = _mm256_sub_pd(x2, _mm256_mul_pd(_mm256_set1_pd(l0[k + 2]), x0));
        x3 = _mm256_sub_pd(x3, _mm256_mul_pd(_mm256_set1_pd(l0[k + 3]), x0));
        x1 = _mm256_mul_pd(x1, _mm256_set1_pd(r[k + 1]));
        x2 = _mm256_sub_pd(x2, _mm256_mul_pd(_mm256_set1_pd(l1[k + 2]), x1));
        x3 = _mm256_sub_pd(x3, _mm256_mul_pd(_mm256_set1_pd(l1[k + 3]), x1));
        x2 = _mm256_mul_pd(x2, _mm256_set1_pd(r[k + 2]));
        x3 = _mm256_sub_pd(x3, _mm256_mul_pd(_mm256_set1_pd(l2[k + 3]), x2));
        x3 = _mm256_mul_pd(x3, _mm256_set1_pd(r[k + 3]));
        _mm256_storeu_pd(X + 4 * k, x0);
        _mm256_storeu_pd(X + 4 * (k + 1), x1);
        _mm256_storeu_pd(X + 4 * (k + 2), x2);
        _mm256_storeu_pd(X + 4 * (k + 3), x3);
        for (int i = k + 4; i < n; i++) {
            __m256d v = _mm256_loadu_pd(X + 4 * i);
            v = _mm256_sub_pd(v, _mm256_mul_pd(_mm256_set1_pd(l0[i]), x0));
            v = _mm256_sub_pd(v, _mm256_mul_pd(_mm256_set1_pd(l1[i]), x1));
            v = _mm256_sub_pd(v, _mm256_mul_pd(_mm256_set1_pd(l2[i]), x2));
            v = _mm256_sub_pd(v, _mm256_mul_pd(_mm256_set1_pd(l3[i]), x3));
            _mm256_storeu_pd(X + 4 * i, v);
        }
    }
    for (; k < n; k++) {
        const double *lk = L + (size_t)k * n;
        __m256d xk = _mm256_mul_pd(_mm256_loadu_pd(X + 4 * k), _mm256_set1_pd(r[k]));
        _mm256_storeu_pd(X + 4 * k, xk);
        for (int i = k + 1; i < n; i++)
            _mm256_storeu_pd(X + 4 * i,
                             _mm256_sub_pd(_mm256_loadu_pd(X + 4 * i), _mm256_mul_pd(_mm256_set1_pd(lk[i]), xk)));
    }
}

/* krg_frame_alpha4 with AVX: every step of krg_frame_alpha on the four
 * lanes at once (the same operations per lane, so the same bits). */
__attribute__((target("avx"))) static void alpha4_avx(const double *L, const double *u, const double *r, double s11,
                                                      int n, double *X, double *beta)
{
    fwd4_avx(L, n, r, X);
    __m256d s1z = _mm256_setzero_pd();
    for (int i = 0; i < n; i++)
        s1z = _mm256_add_pd(s1z, _mm256_mul_pd(_mm256_set1_pd(u[i]), _mm256_loadu_pd(X + 4 * i)));
    __m256d b = _mm256_div_pd(s1z, _mm256_set1_pd(s11));
    _mm256_storeu_pd(beta, b);
    for (int i = 0; i < n; i++)
        _mm256_storeu_pd(X + 4 * i, _mm256_sub_pd(_mm256_loadu_pd(X + 4 * i), _mm256_mul_pd(b, _mm256_set1_pd(u[i]))));
    for (int i = n - 1; i >= 0; i--) {
        const double *li = L + (size_t)i * n;
        __m256d s0 = _mm256_setzero_pd(), s1 = s0, s2 = s0, s3 = s0;
        int k = i + 1;
        for (; k + 4 <= n; k += 4) {
            s0 = _mm256_add_pd(s0, _mm256_mul_pd(_mm256_set1_pd(li[k]), _mm256_loadu_pd(X + 4 * k)));
            s1 = _mm256_add_pd(s1, _mm256_mul_pd(_mm256_set1_pd(li[k + 1]), _mm256_loadu_pd(X + 4 * (k + 1))));
            s2 = _mm256_add_pd(s2, _mm256_mul_pd(_mm256_set1_pd(li[k + 2]), _mm256_loadu_pd(X + 4 * (k + 2))));
            s3 = _mm256_add_pd(s3, _mm256_mul_pd(_mm256_set1_pd(li[k + 3]), _mm256_loadu_pd(X + 4 * (k + 3))));
        }
        for (; k < n; k++)
            s0 = _mm256_add_pd(s0, _mm256_mul_pd(_mm256_set1_pd(li[k]), _mm256_loadu_pd(X + 4 * k)));
        __m256d s = _mm256_add_pd(_mm256_add_pd(s0, s1), _mm256_add_pd(s2, s3));
        _mm256_storeu_pd(X + 4 * i, _mm256_mul_pd(_mm256_sub_pd(_mm256_loadu_pd(X + 4 * i), s), _mm256_set1_pd(r[i])));
    }
}
#endif

void krg_frame_alpha4(const double *L, const double *u, const double *r, double s11, int n, double *X, double *beta,
                      int avx)
{
#ifdef HAVE_AVX_CHOL
    if (avx) {
        alpha4_avx(L, u, r, s11, n, X, beta);
        return;
    }
#else
    (void)avx;
#endif
    double a[n > 0 ? n : 1];
    for (int l = 0; l < 4; l++) {
        for (int i = 0; i < n; i++)
            a[i] = X[4 * i + l];
        beta[l] = krg_frame_alpha(L, u, r, s11, n, a, 0);
        for (int i = 0; i < n; i++)
            X[4 * i + l] = a[i];
    }
}
