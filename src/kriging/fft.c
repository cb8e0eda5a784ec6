/* The mixed-radix complex FFT of the simulation torus (sim.h): Stockham
 * passes of radix 4, 2, 3 and 5, natural order in and out. */
#include "sim.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

int krg_fft_size(long n)
{
    long best = -1;
    for (long a = 1; a < 2 * n && a < (1L << 30); a *= 2)
        for (long b = a; b < 2 * n; b *= 3)
            for (long c = b; c < 2 * n; c *= 5)
                if (c >= n && (best < 0 || c < best))
                    best = c;
    return best > 0 && best < (1L << 30) ? (int)best : -1;
}

int krg_fftp_init(krg_fftp *p, int n)
{
    memset(p, 0, sizeof *p);
    p->n = n;
    for (int m = n; m > 1;) { /* radix 4 first, then 2, 3, 5 */
        int r = m % 4 == 0 ? 4 : m % 2 == 0 ? 2 : m % 3 == 0 ? 3 : m % 5 == 0 ? 5 : 0;
        if (!r || p->nf == KRG_FFT_MAXF)
            return -1;
        p->f[p->nf++] = r;
        m /= r;
    }
    p->tw = malloc(2 * (size_t)n * sizeof *p->tw);
    p->buf = malloc(2 * (size_t)n * sizeof *p->buf);
    if (!p->tw || !p->buf) {
        krg_fftp_free(p);
        return -1;
    }
    for (int t = 0; t < n; t++) {
        p->tw[2 * t] = cos(-2 * M_PI * t / n);
        p->tw[2 * t + 1] = sin(-2 * M_PI * t / n);
    }
    return 0;
}

void krg_fftp_free(krg_fftp *p)
{
    free(p->tw);
    free(p->buf);
    memset(p, 0, sizeof *p);
}

/* y = w * (re, im) stored at o. */
static inline void put(double *o, double re, double im, const double *w)
{
    o[0] = re * w[0] - im * w[1];
    o[1] = re * w[1] + im * w[0];
}

/* One Stockham pass of radix r on a transform of n = r m points at
 * stride s: for p < m, q < s, with a_j = x[q + s (p + j m)],
 *   y[q + s (r p + k)] = w^(p k) sum_j a_j W_r^(j k),
 * w = e^{-2 pi i / n} = tw[tstep] (tw: the plan's n0 twiddles, n0 = n tstep). */
static void pass(int r, int m, int s, const double *x, double *y, const double *tw, int tstep)
{
    /* cos and sin of 2 pi / 3, 2 pi / 5, 4 pi / 5 */
    const double c3 = -0.5, s3 = 0.86602540378443865, c51 = 0.30901699437494742, s51 = 0.95105651629515357;
    const double c52 = -0.80901699437494742, s52 = 0.58778525229247313;
    for (int p = 0; p < m; p++)
        for (int q = 0; q < s; q++) {
            const double *a = x + 2 * ((size_t)q + (size_t)s * p);
            size_t js = 2 * (size_t)s * m, ks = 2 * (size_t)s;
            double *b = y + 2 * ((size_t)q + (size_t)s * r * p);
            const double *w1 = tw + 2 * (size_t)p * tstep;
            if (r == 2) {
                double a0r = a[0], a0i = a[1], a1r = a[js], a1i = a[js + 1];
                b[0] = a0r + a1r, b[1] = a0i + a1i;
                put(b + ks, a0r - a1r, a0i - a1i, w1);
            } else if (r == 4) {
                double a0r = a[0], a0i = a[1], a1r = a[js], a1i = a[js + 1];
                double a2r = a[2 * js], a2i = a[2 * js + 1], a3r = a[3 * js], a3i = a[3 * js + 1];
                double sr = a0r + a2r, si = a0i + a2i, dr = a0r - a2r, di = a0i - a2i;
                double tr = a1r + a3r, ti = a1i + a3i, ur = a1r - a3r, ui = a1i - a3i;
                b[0] = sr + tr, b[1] = si + ti;
                put(b + ks, dr + ui, di - ur, w1);                    /* d - i u */
                put(b + 2 * ks, sr - tr, si - ti, tw + 4 * (size_t)p * tstep);
                put(b + 3 * ks, dr - ui, di + ur, tw + 6 * (size_t)p * tstep); /* d + i u */
            } else if (r == 3) {
                double a0r = a[0], a0i = a[1], a1r = a[js], a1i = a[js + 1], a2r = a[2 * js], a2i = a[2 * js + 1];
                double tr = a1r + a2r, ti = a1i + a2i, ur = s3 * (a1r - a2r), ui = s3 * (a1i - a2i);
                double mr = a0r + c3 * tr, mi = a0i + c3 * ti;
                b[0] = a0r + tr, b[1] = a0i + ti;
                put(b + ks, mr + ui, mi - ur, w1);                     /* m - i u */
                put(b + 2 * ks, mr - ui, mi + ur, tw + 4 * (size_t)p * tstep);
            } else { /* 5 */
                double a0r = a[0], a0i = a[1];
                double t1r = a[js] + a[4 * js], t1i = a[js + 1] + a[4 * js + 1];
                double u1r = a[js] - a[4 * js], u1i = a[js + 1] - a[4 * js + 1];
                double t2r = a[2 * js] + a[3 * js], t2i = a[2 * js + 1] + a[3 * js + 1];
                double u2r = a[2 * js] - a[3 * js], u2i = a[2 * js + 1] - a[3 * js + 1];
                double m1r = a0r + c51 * t1r + c52 * t2r, m1i = a0i + c51 * t1i + c52 * t2i;
                double m2r = a0r + c52 * t1r + c51 * t2r, m2i = a0i + c52 * t1i + c51 * t2i;
                double v1r = s51 * u1r + s52 * u2r, v1i = s51 * u1i + s52 * u2i;
                double v2r = s52 * u1r - s51 * u2r, v2i = s52 * u1i - s51 * u2i;
                b[0] = a0r + t1r + t2r, b[1] = a0i + t1i + t2i;
                put(b + ks, m1r + v1i, m1i - v1r, w1);                 /* m1 - i v1 */
                put(b + 2 * ks, m2r + v2i, m2i - v2r, tw + 4 * (size_t)p * tstep);
                put(b + 3 * ks, m2r - v2i, m2i + v2r, tw + 6 * (size_t)p * tstep);
                put(b + 4 * ks, m1r - v1i, m1i + v1r, tw + 8 * (size_t)p * tstep);
            }
        }
}

void krg_fft(const krg_fftp *p, double *z)
{
    double *x = z, *y = p->buf;
    int n = p->n, s = 1;
    for (int f = 0; f < p->nf; f++) {
        int r = p->f[f], m = n / r;
        pass(r, m, s, x, y, p->tw, p->n / n);
        double *t = x;
        x = y, y = t;
        n = m, s *= r;
    }
    if (x != z)
        memcpy(z, x, 2 * (size_t)p->n * sizeof *z);
}
