/*
 * moments.h — a layer's statistics (count, min, max, sum, sum of squares)
 * of Float32 values, the sums exact, so the same values come out in any
 * order of the cells (row blocks, square tiles, processes merged).
 *
 * Method. A finite float is v = m 2^(E-150), m a 24-bit integer (with its
 * sign), E = max(biased exponent, 1); v^2 = m^2 2^(2E-300) exactly, m^2 <
 * 2^48. A cell adds m into a 64-bit signed bin per E and m^2 into an
 * unsigned one; every 2^16 cells (before a bin can overflow) the bins go
 * into two fixed-point integers of TRV_MOMENTS_LIMBS 64-bit limbs (two's
 * complement, the lowest bit 2^-320: every float, every float^2, and 2^64
 * times the largest of either fit). Integer additions commute, so the
 * totals are exact whatever the order; they are rounded to the nearest
 * double once (trv_moments_sum, trv_moments_sum2). Infinite values make
 * the sums what a double sum would be (+inf, -inf, or NaN for both signs;
 * the sum of squares +inf). NaN is never a value (callers skip it).
 *
 * mean = sum / count, var = sum2 / count - mean^2, std = sqrt(var) when
 * var > 0, else 0 (geo_raster_write's formulas since version 1, now on
 * exact sums).
 */
#ifndef TRV_MOMENTS_H
#define TRV_MOMENTS_H

#include <stddef.h>
#include <stdint.h>

#define TRV_MOMENTS_LIMBS 11

typedef struct trv_moments {
    size_t count;                       /* values added */
    double min, max;                    /* +inf / -inf while count == 0 */
    unsigned pending;                   /* values in the bins */
    int inf_pos, inf_neg;               /* +inf or -inf seen */
    int64_t bin[256];                   /* sum of m per E */
    uint64_t bin2[256];                 /* sum of m^2 per E */
    uint64_t sum[TRV_MOMENTS_LIMBS];    /* the flushed sums, fixed point, lowest bit 2^-320 */
    uint64_t sum2[TRV_MOMENTS_LIMBS];
} trv_moments;

void trv_moments_init(trv_moments *m);
/* One value (not NaN). */
void trv_moments_add(trv_moments *m, float v);
/* The data cells of v[0 .. n-1]: not NaN and, when has_nodata, not nodata. */
void trv_moments_add_f32(trv_moments *m, const float *v, size_t n, int has_nodata, float nodata);
/* a += b (b unchanged): the statistics of both sets of values. */
void trv_moments_merge(trv_moments *a, const trv_moments *b);
/* The exact sums rounded to the nearest double (ties to even). */
double trv_moments_sum(const trv_moments *m);
double trv_moments_sum2(const trv_moments *m);
/* mean and std by the formulas above (0 and 0 when count == 0). */
void trv_moments_mean_std(const trv_moments *m, double *mean, double *std);

#endif
