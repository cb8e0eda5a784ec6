/* core/moments.h: exact sums of Float32 values and their squares, against
 * hand-computed cases and an independent exact reference (Shewchuk's
 * partials with the correctly rounded final step, the algorithm of
 * Python's math.fsum: a float and a float's square are doubles exactly). */
#include "test_common.h"

#include <float.h>

#include "core/moments.h"

/* The correctly rounded sum of x[0 .. n-1] (Shewchuk 1997; math.fsum). */
static double fsum(const double *x, size_t n)
{
    double p[128];
    int np = 0;
    for (size_t k = 0; k < n; k++) {
        double v = x[k];
        int i = 0;
        for (int j = 0; j < np; j++) {
            double y = p[j];
            if (fabs(v) < fabs(y)) {
                double t = v;
                v = y, y = t;
            }
            double hi = v + y, lo = y - (hi - v);
            if (lo != 0.0)
                p[i++] = lo;
            v = hi;
        }
        np = i;
        p[np++] = v;
    }
    if (!np)
        return 0.0;
    double hi = p[--np], lo = 0.0;
    while (np > 0) {
        double a = hi, y = p[--np];
        hi = a + y;
        lo = y - (hi - a);
        if (lo != 0.0)
            break;
    }
    if (np > 0 && ((lo < 0 && p[np - 1] < 0) || (lo > 0 && p[np - 1] > 0))) {
        double y = lo * 2, a = hi + y;
        if (y == a - hi)
            hi = a;
    }
    return hi;
}

/* The reference sums of v: fsum of the values and of their squares. */
static void reference(const float *v, size_t n, double *sum, double *sum2)
{
    double *a = malloc(n * sizeof *a), *b = malloc(n * sizeof *b);
    assert_non_null(a);
    assert_non_null(b);
    for (size_t i = 0; i < n; i++)
        a[i] = v[i], b[i] = (double)v[i] * v[i];
    *sum = fsum(a, n), *sum2 = fsum(b, n);
    free(a), free(b);
}

static void sums_of(const float *v, size_t n, double *sum, double *sum2)
{
    trv_moments m;
    trv_moments_init(&m);
    for (size_t i = 0; i < n; i++)
        trv_moments_add(&m, v[i]);
    assert_int_equal(m.count, n);
    *sum = trv_moments_sum(&m), *sum2 = trv_moments_sum2(&m);
}

/* Bits equal (both NaN counts as equal). */
static void assert_same(double a, double b)
{
    if (isnan(a) && isnan(b))
        return;
    if (memcmp(&a, &b, sizeof a) != 0)
        fail_msg("%.17g != %.17g", a, b);
}

static void check_case(const float *v, size_t n, double want_sum, double want_sum2)
{
    double s, s2, rs, rs2;
    sums_of(v, n, &s, &s2);
    reference(v, n, &rs, &rs2);
    assert_same(rs, want_sum); /* the hand value is the reference's too */
    assert_same(rs2, want_sum2);
    assert_same(s, want_sum);
    assert_same(s2, want_sum2);
}

static void test_moments_hand(void **state)
{
    (void)state;
    const double big = 1e30f, mx = FLT_MAX, tiny = FLT_TRUE_MIN;
    /* cancellation: a double sum gives 0 */
    check_case((const float[]){1e30f, 1.0f, -1e30f}, 3, 1.0, 2 * big * big);
    /* subnormals: 3 x 2^-149, squares 3 x 2^-298 */
    check_case((const float[]){FLT_TRUE_MIN, FLT_TRUE_MIN, FLT_TRUE_MIN}, 3, 3 * tiny, 3 * tiny * tiny);
    check_case((const float[]){FLT_TRUE_MIN, -FLT_TRUE_MIN}, 2, 0.0, 2 * tiny * tiny);
    /* the largest floats, both signs */
    check_case((const float[]){FLT_MAX, FLT_MAX, -FLT_MAX}, 3, mx, 3 * mx * mx);
    check_case((const float[]){-FLT_MAX, -FLT_MAX}, 2, -2 * mx, 2 * mx * mx);
    /* ties: 2^53 + 1 rounds to even (2^53); 2^53 + 1 + 2^-20 rounds up (the sticky bit) */
    const double t53 = 9007199254740992.0;
    check_case((const float[]){9007199254740992.0f, 1.0f}, 2, t53, t53 * t53 + 1);
    check_case((const float[]){9007199254740992.0f, 1.0f, 0x1p-20f}, 3, t53 + 2, t53 * t53 + 1);
    check_case((const float[]){-9007199254740992.0f, -1.0f, -0x1p-20f}, 3, -t53 - 2, t53 * t53 + 1);
    check_case((const float[]){-9007199254740992.0f, -1.0f}, 2, -t53, t53 * t53 + 1);
    /* 2^53 + 3: ties away to even, 2^53 + 4 */
    check_case((const float[]){9007199254740992.0f, 3.0f}, 2, t53 + 4, t53 * t53 + 9);
    check_case((const float[]){-9007199254740992.0f, -3.0f}, 2, -t53 - 4, t53 * t53 + 9);
    /* zero and nothing */
    check_case((const float[]){0.0f, -0.0f}, 2, 0.0, 0.0);
    double s, s2;
    sums_of(NULL, 0, &s, &s2);
    assert_same(s, 0.0);
    assert_same(s2, 0.0);
}

/* 200 000 values of mantissa 2^24 - 1 in one bin: the squares' bin would
 * pass 2^64 without the flush every 2^16 values; 10^6 x 0.1f. */
static void test_moments_many_equal(void **state)
{
    (void)state;
    size_t n = 200000;
    float *v = malloc(1000000 * sizeof *v);
    assert_non_null(v);
    for (size_t i = 0; i < n; i++)
        v[i] = 16777215.0f;
    double m = 16777215.0, rs, rs2, s, s2;
    reference(v, n, &rs, &rs2);
    sums_of(v, n, &s, &s2);
    assert_same(s, m * (double)n); /* exact: 24 + 18 bits */
    assert_same(s, rs);
    assert_same(s2, rs2);
    for (size_t i = 0; i < 1000000; i++)
        v[i] = 0.1f;
    sums_of(v, 1000000, &s, &s2);
    reference(v, 1000000, &rs, &rs2);
    assert_same(s, (double)0.1f * 1e6);
    assert_same(s, rs);
    assert_same(s2, rs2);
    for (size_t i = 0; i < 1000000; i++)
        v[i] = i % 2 ? -0.1f : 0.1f;
    sums_of(v, 1000000, &s, &s2);
    assert_same(s, 0.0);
    assert_same(s2, rs2);
    free(v);
}

/* Random floats over the whole exponent range, both signs: the same bits
 * as the reference in any order, and merged from parts. */
static void test_moments_any_order(void **state)
{
    (void)state;
    enum { N = 300000 };
    float *v = malloc(N * sizeof *v);
    assert_non_null(v);
    uint64_t x = 88172645463325252ull;
    for (int i = 0; i < N; i++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        uint32_t u = (uint32_t)(x >> 20);
        if ((u >> 23 & 255) == 255)
            u &= ~(1u << 30); /* no inf or NaN */
        if (i % 3 == 0) /* a third near 1, where cancellation bites */
            u = (u & 0x807fffffu) | (127u << 23);
        memcpy(&v[i], &u, sizeof u);
    }
    double rs, rs2;
    reference(v, N, &rs, &rs2);
    trv_moments whole, parts, part;
    trv_moments_init(&whole);
    trv_moments_add_f32(&whole, v, N, 0, 0);
    assert_same(trv_moments_sum(&whole), rs);
    assert_same(trv_moments_sum2(&whole), rs2);
    /* backwards, in parts of 7 777 merged */
    trv_moments_init(&parts);
    for (int hi = N; hi > 0; hi -= 7777) {
        int lo = hi > 7777 ? hi - 7777 : 0;
        trv_moments_init(&part);
        for (int i = hi - 1; i >= lo; i--)
            trv_moments_add(&part, v[i]);
        trv_moments_merge(&parts, &part);
    }
    assert_int_equal(parts.count, N);
    assert_same(trv_moments_sum(&parts), rs);
    assert_same(trv_moments_sum2(&parts), rs2);
    assert_same(parts.min, whole.min);
    assert_same(parts.max, whole.max);
    free(v);
}

static void test_moments_count_min_max_nodata(void **state)
{
    (void)state;
    trv_moments m;
    trv_moments_init(&m);
    double mean, std;
    trv_moments_mean_std(&m, &mean, &std);
    assert_true(mean == 0 && std == 0);
    const float v[] = {-9999.0f, 2.0f, NAN, 4.0f, -9999.0f, 6.0f};
    trv_moments_add_f32(&m, v, 6, 1, -9999.0f);
    assert_int_equal(m.count, 3);
    assert_true(m.min == 2.0 && m.max == 6.0);
    trv_moments_mean_std(&m, &mean, &std);
    assert_true(mean == 4.0);
    assert_same(std, sqrt(56.0 / 3 - 16)); /* (4 + 16 + 36) / 3 - 4^2 */
    trv_moments_init(&m);
    trv_moments_add_f32(&m, v, 6, 0, -9999.0f); /* no nodata: -9999 is a value, NaN never */
    assert_int_equal(m.count, 5);
    assert_true(m.min == -9999.0 && m.max == 6.0);
    assert_same(trv_moments_sum(&m), -19998.0 + 12);
    /* equal values: var 0, not a negative rounding */
    trv_moments_init(&m);
    for (int i = 0; i < 3; i++)
        trv_moments_add(&m, 0.1f);
    trv_moments_mean_std(&m, &mean, &std);
    assert_true(std >= 0 && std < 1e-8);
}

static void test_moments_infinite(void **state)
{
    (void)state;
    trv_moments m;
    trv_moments_init(&m);
    trv_moments_add(&m, 1.0f);
    trv_moments_add(&m, INFINITY);
    assert_true(trv_moments_sum(&m) == INFINITY && trv_moments_sum2(&m) == INFINITY);
    assert_true(m.max == INFINITY && m.min == 1.0 && m.count == 2);
    trv_moments_init(&m);
    trv_moments_add(&m, -INFINITY);
    assert_true(trv_moments_sum(&m) == -INFINITY && trv_moments_sum2(&m) == INFINITY);
    trv_moments_add(&m, INFINITY);
    assert_true(isnan(trv_moments_sum(&m)));
    trv_moments part;
    trv_moments_init(&part);
    trv_moments_add(&part, -INFINITY);
    trv_moments_init(&m);
    trv_moments_add(&m, 2.0f);
    trv_moments_merge(&m, &part);
    assert_true(trv_moments_sum(&m) == -INFINITY && m.min == -INFINITY && m.max == 2.0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_moments_hand),
        cmocka_unit_test(test_moments_many_equal),
        cmocka_unit_test(test_moments_any_order),
        cmocka_unit_test(test_moments_count_min_max_nodata),
        cmocka_unit_test(test_moments_infinite),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
