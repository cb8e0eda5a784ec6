/* Unconditional Gaussian fields on a lattice by circulant embedding (sim.h). */
#include "sim.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

enum { MAX_TORUS_LOG2 = 25 };

double krg_normal(trv_rng *r)
{
    double u1 = 1.0 - trv_rng_uniform(r), u2 = trv_rng_uniform(r); /* u1 in (0, 1] */
    return sqrt(-2 * log(u1)) * cos(2 * M_PI * u2);
}

/* Doornik's ZIGNOR constants: the base strip's right edge and area. */
#define ZIG_R 3.442619855899
#define ZIG_V 9.91256303526217e-3

void krg_zig_init(krg_zig *z)
{
    double f = exp(-0.5 * ZIG_R * ZIG_R);
    z->x[0] = ZIG_V / f; /* the base strip as a box of the same area */
    z->x[1] = ZIG_R;
    z->x[128] = 0;
    for (int i = 2; i < 128; i++) {
        z->x[i] = sqrt(-2 * log(ZIG_V / z->x[i - 1] + f));
        f = exp(-0.5 * z->x[i] * z->x[i]);
    }
    for (int i = 0; i < 128; i++)
        z->r[i] = z->x[i + 1] / z->x[i];
}

/* The tail beyond ZIG_R (Marsaglia 1964), on the side of u's sign. */
static double zig_tail(trv_rng *r, int negative)
{
    double x, y;
    do {
        x = log(1.0 - trv_rng_uniform(r)) / ZIG_R;
        y = log(1.0 - trv_rng_uniform(r));
    } while (-2 * y < x * x);
    return negative ? x - ZIG_R : ZIG_R - x;
}

double krg_zig_normal(const krg_zig *z, trv_rng *r)
{
    for (;;) {
        uint64_t b = trv_rng_next(r);
        double u = 2 * ((double)(b >> 11) * 0x1.0p-53) - 1;
        int i = (int)(b & 0x7f);
        if (fabs(u) < z->r[i]) /* inside the layer's box */
            return u * z->x[i];
        if (i == 0)
            return zig_tail(r, u < 0);
        double x = u * z->x[i], f0 = exp(-0.5 * (z->x[i] * z->x[i] - x * x));
        double f1 = exp(-0.5 * (z->x[i + 1] * z->x[i + 1] - x * x));
        if (f1 + trv_rng_uniform(r) * (f0 - f1) < 1.0) /* under the density in the wedge */
            return x;
    }
}

enum { COLS = 4 }; /* columns transformed together: one cache line of each row */

/* The 2-D transform of the m1 x m2 complex array (rows of m1): every row,
 * then the columns 0..ncols-1 (the others are not wanted). */
static void fft2(krg_ce *ce, double *z, int ncols)
{
    int m1 = ce->m1, m2 = ce->m2;
    for (int r = 0; r < m2; r++)
        krg_fft(&ce->f1, z + 2 * (size_t)r * m1);
    double *buf = ce->colbuf;
    for (int c0 = 0; c0 < ncols; c0 += COLS) {
        int nc = ncols - c0 < COLS ? ncols - c0 : COLS;
        for (int r = 0; r < m2; r++)
            for (int j = 0; j < nc; j++) {
                buf[2 * ((size_t)j * m2 + r)] = z[2 * ((size_t)r * m1 + c0 + j)];
                buf[2 * ((size_t)j * m2 + r) + 1] = z[2 * ((size_t)r * m1 + c0 + j) + 1];
            }
        for (int j = 0; j < nc; j++)
            krg_fft(&ce->f2, buf + 2 * (size_t)j * m2);
        for (int r = 0; r < m2; r++)
            for (int j = 0; j < nc; j++) {
                z[2 * ((size_t)r * m1 + c0 + j)] = buf[2 * ((size_t)j * m2 + r)];
                z[2 * ((size_t)r * m1 + c0 + j) + 1] = buf[2 * ((size_t)j * m2 + r) + 1];
            }
    }
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

/* The torus for m1 x m2 (sizes of krg_fft_size): its arrays, plans and
 * eigenvalues; *rel the least eigenvalue relative to the largest. */
static trv_status torus(trv_ctx *ctx, krg_ce *ce, const krg_model *m0, double dx, double dy, double *rel)
{
    size_t mm = (size_t)ce->m1 * ce->m2;
    free(ce->sq);
    free(ce->work);
    free(ce->colbuf);
    krg_fftp_free(&ce->f1);
    krg_fftp_free(&ce->f2);
    ce->sq = malloc(mm * sizeof *ce->sq);
    ce->work = malloc(2 * mm * sizeof *ce->work);
    ce->colbuf = malloc(2 * COLS * (size_t)ce->m2 * sizeof *ce->colbuf);
    if (!ce->sq || !ce->work || !ce->colbuf || krg_fftp_init(&ce->f1, ce->m1) || krg_fftp_init(&ce->f2, ce->m2)) {
        krg_ce_free(ce);
        return trv_error(ctx, TRV_ERR_NOMEM, "out of memory (a simulation torus of %zu nodes)", mm);
    }
    *rel = eigen(ce, m0, dx, dy, &ce->lost);
    return TRV_OK;
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
    krg_zig_init(&ce->zig);
    double R = reach(&m0);
    long want1 = (long)fmin(2.0 * n1, n1 + ceil(R / dx) + 1), want2 = (long)fmin(2.0 * n2, n2 + ceil(R / dy) + 1);
    ce->n1 = n1;
    ce->n2 = n2;
    for (;;) {
        ce->m1 = krg_fft_size(want1), ce->m2 = krg_fft_size(want2);
        if (ce->m1 < 0 || ce->m2 < 0 || (double)ce->m1 * ce->m2 > (double)(1L << MAX_TORUS_LOG2))
            return trv_error(ctx, TRV_ERR_USAGE,
                             "the simulation lattice of %d x %d nodes needs a torus of %ld x %ld nodes (at most "
                             "2^%d): use a coarser --tr or a smaller --te",
                             n1, n2, want1, want2, MAX_TORUS_LOG2);
        double rel = -1;
        trv_status st = torus(ctx, ce, &m0, dx, dy, &rel);
        if (st || rel >= -1e-10)
            return st;
        if ((double)ce->m1 * ce->m2 * 4 > (double)(1L << MAX_TORUS_LOG2)) { /* the largest torus: clip */
            trv_info(ctx, 1,
                     "note: circulant embedding not positive definite; %.3g%% of the variance dropped with the "
                     "negative eigenvalues",
                     100 * ce->lost);
            return TRV_OK;
        }
        want1 = 2L * ce->m1, want2 = 2L * ce->m2;
    }
}

void krg_ce_free(krg_ce *ce)
{
    free(ce->sq);
    free(ce->work);
    krg_fftp_free(&ce->f1);
    krg_fftp_free(&ce->f2);
    free(ce->colbuf);
    memset(ce, 0, sizeof *ce);
}

trv_status krg_ce_draw(trv_ctx *ctx, krg_ce *ce, uint64_t seed)
{
    (void)ctx;
    trv_rng r;
    trv_rng_seed(&r, seed);
    size_t mm = (size_t)ce->m1 * ce->m2;
    double *z = ce->work;
    for (size_t i = 0; i < mm; i++) {
        z[2 * i] = ce->sq[i] * krg_zig_normal(&ce->zig, &r);
        z[2 * i + 1] = ce->sq[i] * krg_zig_normal(&ce->zig, &r);
    }
    fft2(ce, z, ce->n1);
    return TRV_OK;
}

trv_status krg_ce_rows(trv_ctx *ctx, const krg_ce *ce, int r0, int n, double *a, double *b)
{
    if (r0 < 0 || n < 0 || r0 + n > ce->n2)
        return trv_error(ctx, TRV_ERR_INTERNAL, "lattice rows %d to %d of %d asked for", r0, r0 + n - 1, ce->n2);
    for (int row = r0; row < r0 + n; row++)
        for (int c = 0; c < ce->n1; c++) {
            size_t i = (size_t)row * ce->m1 + c, o = (size_t)(row - r0) * ce->n1 + c;
            a[o] = ce->work[2 * i];
            b[o] = ce->work[2 * i + 1];
        }
    return TRV_OK;
}
