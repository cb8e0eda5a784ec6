/* Unconditional Gaussian fields on a lattice by circulant embedding (sim.h). */
#include "sim.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

enum { MAX_TORUS_LOG2 = 25 };

void krg_fft_twiddles(int n, double *tw)
{
    for (int k = 0; k < n / 2; k++) {
        tw[2 * k] = cos(-2 * M_PI * k / n);
        tw[2 * k + 1] = sin(-2 * M_PI * k / n);
    }
}

void krg_fft(double *z, int n, const double *tw)
{
    for (int i = 1, j = 0; i < n; i++) { /* bit reversal */
        int bit = n >> 1;
        for (; j & bit; bit >>= 1)
            j ^= bit;
        j ^= bit;
        if (i < j) {
            double t0 = z[2 * i], t1 = z[2 * i + 1];
            z[2 * i] = z[2 * j];
            z[2 * i + 1] = z[2 * j + 1];
            z[2 * j] = t0;
            z[2 * j + 1] = t1;
        }
    }
    for (int len = 2, step = n / 2; len <= n; len <<= 1, step >>= 1) { /* butterflies */
        int h = len / 2;
        for (int i = 0; i < n; i += len)
            for (int k = 0; k < h; k++) {
                double wr = tw[2 * k * step], wi = tw[2 * k * step + 1];
                double *a = z + 2 * (i + k), *b = a + 2 * h;
                double tr = wr * b[0] - wi * b[1], ti = wr * b[1] + wi * b[0];
                b[0] = a[0] - tr;
                b[1] = a[1] - ti;
                a[0] += tr;
                a[1] += ti;
            }
    }
}

double krg_normal(trv_rng *r)
{
    double u1 = 1.0 - trv_rng_uniform(r), u2 = trv_rng_uniform(r); /* u1 in (0, 1] */
    return sqrt(-2 * log(u1)) * cos(2 * M_PI * u2);
}

enum { COLS = 4 }; /* columns transformed together: one cache line of each row */

/* The 2-D transform of the m1 x m2 complex array (rows of m1): every row,
 * then the columns 0..ncols-1 (the others are not wanted). */
static void fft2(krg_ce *ce, double *z, int ncols)
{
    int m1 = ce->m1, m2 = ce->m2;
    for (int r = 0; r < m2; r++)
        krg_fft(z + 2 * (size_t)r * m1, m1, ce->tw1);
    double *buf = ce->colbuf;
    for (int c0 = 0; c0 < ncols; c0 += COLS) {
        int nc = ncols - c0 < COLS ? ncols - c0 : COLS;
        for (int r = 0; r < m2; r++)
            for (int j = 0; j < nc; j++) {
                buf[2 * ((size_t)j * m2 + r)] = z[2 * ((size_t)r * m1 + c0 + j)];
                buf[2 * ((size_t)j * m2 + r) + 1] = z[2 * ((size_t)r * m1 + c0 + j) + 1];
            }
        for (int j = 0; j < nc; j++)
            krg_fft(buf + 2 * (size_t)j * m2, m2, ce->tw2);
        for (int r = 0; r < m2; r++)
            for (int j = 0; j < nc; j++) {
                z[2 * ((size_t)r * m1 + c0 + j)] = buf[2 * ((size_t)j * m2 + r)];
                z[2 * ((size_t)r * m1 + c0 + j) + 1] = buf[2 * ((size_t)j * m2 + r) + 1];
            }
    }
}

static int pow2_at_least(long n)
{
    int p = 0;
    while ((1L << p) < n)
        p++;
    return p;
}

/* The distance beyond which the structured covariance stays below 1e-6
 * psill (for Sph: its range). */
static double reach(const krg_model *m0)
{
    if (m0->type == KRG_SPH)
        return m0->range;
    double h = m0->range;
    while (h < 1e6 * m0->range && m0->psill - krg_gamma(m0, h) > 1e-6 * m0->psill)
        h *= 1.25;
    return h;
}

/* sq = FFT of the covariance on the torus; returns the least eigenvalue
 * relative to the largest, and the variance share of the negative ones. */
static double eigen(krg_ce *ce, const krg_model *m0, double dx, double dy, double *neg_share)
{
    int m1 = ce->m1, m2 = ce->m2;
    double *z = ce->work;
    for (int r = 0; r < m2; r++)
        for (int c = 0; c < m1; c++) {
            double hx = (c <= m1 / 2 ? c : m1 - c) * dx, hy = (r <= m2 / 2 ? r : m2 - r) * dy;
            size_t i = (size_t)r * m1 + c;
            z[2 * i] = m0->psill - krg_gamma(m0, sqrt(hx * hx + hy * hy));
            z[2 * i + 1] = 0;
        }
    fft2(ce, z, m1);
    double lo = INFINITY, hi = -INFINITY, neg = 0, all = 0;
    for (size_t i = 0; i < (size_t)m1 * m2; i++) {
        double l = z[2 * i];
        lo = fmin(lo, l);
        hi = fmax(hi, l);
        all += fabs(l);
        if (l < 0)
            neg -= l;
        ce->sq[i] = sqrt(fmax(l, 0) / ((double)m1 * m2));
    }
    *neg_share = all > 0 ? neg / all : 0;
    return hi > 0 ? lo / hi : -1;
}

trv_status krg_ce_init(trv_ctx *ctx, krg_ce *ce, const krg_model *m, int n1, int n2, double dx, double dy)
{
    memset(ce, 0, sizeof *ce);
    if (m->type == KRG_POW || !(m->psill > 0))
        return trv_error(ctx, TRV_ERR_USAGE,
                         "conditional simulation needs a model with a sill (Sph, Exp, Gau or Mat), not %s",
                         krg_model_name(m->type));
    krg_model m0 = *m;
    m0.nugget = 0;
    double R = reach(&m0);
    int p1 = pow2_at_least(fmin(2.0 * n1, n1 + ceil(R / dx) + 1));
    int p2 = pow2_at_least(fmin(2.0 * n2, n2 + ceil(R / dy) + 1));
    ce->n1 = n1;
    ce->n2 = n2;
    for (;;) {
        if (p1 + p2 > MAX_TORUS_LOG2)
            return trv_error(ctx, TRV_ERR_USAGE,
                             "the simulation lattice of %d x %d nodes needs a torus of 2^%d nodes (at most 2^%d): "
                             "use a coarser --tr or a smaller --te",
                             n1, n2, p1 + p2, MAX_TORUS_LOG2);
        ce->m1 = 1 << p1;
        ce->m2 = 1 << p2;
        size_t mm = (size_t)ce->m1 * ce->m2;
        free(ce->sq);
        free(ce->work);
        free(ce->tw1);
        free(ce->tw2);
        free(ce->colbuf);
        ce->sq = malloc(mm * sizeof *ce->sq);
        ce->work = malloc(2 * mm * sizeof *ce->work);
        ce->tw1 = malloc((size_t)ce->m1 * sizeof *ce->tw1);
        ce->tw2 = malloc((size_t)ce->m2 * sizeof *ce->tw2);
        ce->colbuf = malloc(2 * COLS * (size_t)ce->m2 * sizeof *ce->colbuf);
        if (!ce->sq || !ce->work || !ce->tw1 || !ce->tw2 || !ce->colbuf) {
            krg_ce_free(ce);
            return trv_error(ctx, TRV_ERR_NOMEM, "out of memory (a simulation torus of %zu nodes)", mm);
        }
        krg_fft_twiddles(ce->m1, ce->tw1);
        krg_fft_twiddles(ce->m2, ce->tw2);
        double share, rel = eigen(ce, &m0, dx, dy, &share);
        ce->lost = share;
        if (rel >= -1e-10)
            break;
        if (p1 + p2 + 2 > MAX_TORUS_LOG2) { /* the largest torus: clip */
            trv_info(ctx, 1,
                     "note: circulant embedding not positive definite; %.3g%% of the variance dropped with the "
                     "negative eigenvalues",
                     100 * share);
            break;
        }
        p1++;
        p2++;
    }
    return TRV_OK;
}

void krg_ce_free(krg_ce *ce)
{
    free(ce->sq);
    free(ce->work);
    free(ce->tw1);
    free(ce->tw2);
    free(ce->colbuf);
    memset(ce, 0, sizeof *ce);
}

void krg_ce_draw(krg_ce *ce, uint64_t seed, double *a, double *b)
{
    trv_rng r;
    trv_rng_seed(&r, seed);
    size_t mm = (size_t)ce->m1 * ce->m2;
    double *z = ce->work;
    for (size_t i = 0; i < mm; i++) { /* Marsaglia's polar method: both deviates of a pair */
        double a1, a2, q;
        do {
            a1 = 2 * trv_rng_uniform(&r) - 1;
            a2 = 2 * trv_rng_uniform(&r) - 1;
            q = a1 * a1 + a2 * a2;
        } while (q >= 1 || q == 0);
        double f = ce->sq[i] * sqrt(-2 * log(q) / q);
        z[2 * i] = f * a1;
        z[2 * i + 1] = f * a2;
    }
    fft2(ce, z, ce->n1);
    for (int row = 0; row < ce->n2; row++)
        for (int c = 0; c < ce->n1; c++) {
            size_t i = (size_t)row * ce->m1 + c, o = (size_t)row * ce->n1 + c;
            a[o] = z[2 * i];
            b[o] = z[2 * i + 1];
        }
}
