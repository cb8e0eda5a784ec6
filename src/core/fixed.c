/* Fixed-decimal text, byte-identical to printf's "%.*f" (fixed.h). */
#include "fixed.h"

#include <math.h>
#include <stdio.h>

static char *trv_uint_ll(char *p, unsigned long long v)
{
    char tmp[24];
    int n = 0;
    do {
        tmp[n++] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    while (n)
        *p++ = tmp[--n];
    return p;
}

char *trv_uint(char *p, unsigned v) { return trv_uint_ll(p, v); }

char *trv_fixed(char *p, double v, int d)
{
    static const double scale[10] = {1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9};
    if (!isfinite(v) || d < 0 || d > 9)
        return p + snprintf(p, 32, "%.*f", d, v);
    /* the exact product v 10^d = s + e (10^d and the fma are exact) */
    double s = v * scale[d], e = fma(v, scale[d], -s), r = nearbyint(s);
    double frac = (s - r) + e; /* s - r is exact: r is s's nearest integer */
    if (!(fabs(s) < 1e15) || fabs(fabs(frac) - 0.5) < 1e-6)
        return p + snprintf(p, 32, "%.*f", d, v);
    if (frac > 0.5) /* e moved the product past a half-way point */
        r += 1;
    else if (frac < -0.5)
        r -= 1;
    if (signbit(v)) /* printf keeps the sign of a negative that rounds to 0 ("-0.000") */
        *p++ = '-';
    unsigned long long n = (unsigned long long)fabs(r), ip = n / (unsigned long long)scale[d];
    unsigned long long fp = n - ip * (unsigned long long)scale[d];
    p = trv_uint_ll(p, ip);
    if (d > 0) {
        *p++ = '.';
        for (int k = d - 1; k >= 0; k--) {
            p[k] = (char)('0' + fp % 10);
            fp /= 10;
        }
        p += d;
    }
    return p;
}
