/* Exact sums of Float32 values and their squares (moments.h). */
#include "moments.h"

#include <math.h>
#include <string.h>

#define L TRV_MOMENTS_LIMBS
#define FLUSH_EVERY 65536u /* 2^16 m^2 < 2^64: the unsigned bins cannot overflow */

void trv_moments_init(trv_moments *m)
{
    memset(m, 0, sizeof *m);
    m->min = INFINITY, m->max = -INFINITY;
}

/* acc += sign * mag * 2^bit (two's complement over L limbs). */
static void add_shifted(uint64_t *acc, uint64_t mag, int neg, int bit)
{
    int i = bit / 64, s = bit % 64;
    uint64_t part[2] = {mag << s, s ? mag >> (64 - s) : 0};
    uint64_t carry = 0;
    for (int k = 0; i + k < L; k++) {
        uint64_t p = k < 2 ? part[k] : 0, a = acc[i + k], r;
        if (neg) {
            r = a - p - carry;
            carry = a < p || (a == p && carry) ? 1 : 0;
        } else {
            r = a + p + carry;
            carry = r < a || (r == a && carry) ? 1 : 0;
        }
        acc[i + k] = r;
        if (k >= 1 && !carry)
            break;
    }
}

/* sum += bins (bins of m: E + 170 = the bit of 2^(E-150); of m^2: 2E + 20). */
static void flush_into(const trv_moments *m, uint64_t *sum, uint64_t *sum2)
{
    for (int e = 0; e < 256; e++) {
        int64_t b = m->bin[e];
        if (b)
            add_shifted(sum, b < 0 ? 0 - (uint64_t)b : (uint64_t)b, b < 0, e + 170);
        if (m->bin2[e])
            add_shifted(sum2, m->bin2[e], 0, 2 * e + 20);
    }
}

static void flush(trv_moments *m)
{
    flush_into(m, m->sum, m->sum2);
    memset(m->bin, 0, sizeof m->bin);
    memset(m->bin2, 0, sizeof m->bin2);
    m->pending = 0;
}

void trv_moments_add(trv_moments *m, float v)
{
    double d = v;
    m->min = d < m->min ? d : m->min;
    m->max = d > m->max ? d : m->max;
    m->count++;
    uint32_t u;
    memcpy(&u, &v, sizeof u);
    int e = (int)(u >> 23 & 255);
    uint64_t mant = u & 0x7fffffu;
    if (e == 255) { /* infinite (NaN is never added) */
        m->inf_pos |= !(u >> 31);
        m->inf_neg |= (int)(u >> 31);
        return;
    }
    if (e)
        mant |= 1u << 23;
    else
        e = 1; /* subnormal: m 2^(1-150) */
    m->bin[e] += u >> 31 ? -(int64_t)mant : (int64_t)mant;
    m->bin2[e] += mant * mant;
    if (++m->pending == FLUSH_EVERY)
        flush(m);
}

void trv_moments_add_f32(trv_moments *m, const float *v, size_t n, int has_nodata, float nodata)
{
    for (size_t i = 0; i < n; i++)
        if (!isnan(v[i]) && !(has_nodata && v[i] == nodata))
            trv_moments_add(m, v[i]);
}

void trv_moments_merge(trv_moments *a, const trv_moments *b)
{
    uint64_t s[L], s2[L];
    memcpy(s, b->sum, sizeof s);
    memcpy(s2, b->sum2, sizeof s2);
    flush_into(b, s, s2);
    for (int k = 0; k < L; k++) { /* whole limbs: add_shifted at bit 64k */
        add_shifted(a->sum, s[k], 0, 64 * k);
        add_shifted(a->sum2, s2[k], 0, 64 * k);
    }
    a->count += b->count;
    a->min = b->min < a->min ? b->min : a->min;
    a->max = b->max > a->max ? b->max : a->max;
    a->inf_pos |= b->inf_pos;
    a->inf_neg |= b->inf_neg;
}

/* The fixed-point integer x (L limbs, two's complement, lowest bit
 * 2^-320) rounded to the nearest double: its top 64 bits with a sticky
 * bit for the rest (below the rounding bit, so ties break right), then
 * one conversion. */
static double to_double(const uint64_t *x)
{
    uint64_t v[L];
    memcpy(v, x, sizeof v);
    int neg = (int)(v[L - 1] >> 63);
    if (neg) {
        uint64_t carry = 1;
        for (int k = 0; k < L; k++) {
            v[k] = ~v[k] + carry;
            carry = carry && v[k] == 0;
        }
    }
    int top = L - 1;
    while (top >= 0 && !v[top])
        top--;
    if (top < 0)
        return 0.0;
    int p = 64 * top + 63;
    while (!(v[top] >> (p % 64)))
        p--;
    int lo = p < 63 ? 0 : p - 63, i = lo / 64, s = lo % 64;
    uint64_t w = v[i] >> s | (s && i + 1 < L ? v[i + 1] << (64 - s) : 0);
    uint64_t sticky = s ? (v[i] & (((uint64_t)1 << s) - 1)) != 0 : 0;
    for (int k = 0; k < i; k++)
        sticky |= v[k] != 0;
    double d = ldexp((double)(w | sticky), lo - 320);
    return neg ? -d : d;
}

double trv_moments_sum(const trv_moments *m)
{
    if (m->inf_pos || m->inf_neg)
        return m->inf_pos && m->inf_neg ? NAN : m->inf_pos ? INFINITY : -INFINITY;
    uint64_t s[L], s2[L];
    memcpy(s, m->sum, sizeof s);
    memset(s2, 0, sizeof s2);
    flush_into(m, s, s2);
    return to_double(s);
}

double trv_moments_sum2(const trv_moments *m)
{
    if (m->inf_pos || m->inf_neg)
        return INFINITY;
    uint64_t s[L], s2[L];
    memset(s, 0, sizeof s);
    memcpy(s2, m->sum2, sizeof s2);
    flush_into(m, s, s2);
    return to_double(s2);
}

void trv_moments_mean_std(const trv_moments *m, double *mean, double *std)
{
    *mean = *std = 0;
    if (!m->count)
        return;
    *mean = trv_moments_sum(m) / (double)m->count;
    double var = trv_moments_sum2(m) / (double)m->count - *mean * *mean;
    *std = var > 0 ? sqrt(var) : 0;
}
