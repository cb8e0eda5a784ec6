/* The polar histograms of VFH+ (Ulrich & Borenstein, ICRA 1998, §2.1-2.3):
 * primary (magnitudes a - b d^2 of enlarged obstacle cells), binary (two
 * thresholds, hysteresis), masked (turning limits). Equations in
 * local_planner.h; units and choices in docs/method.md §5.12. */
#include "local_planner.h"

#include <math.h>
#include <string.h>

int sim_polar_sector(int n, double a)
{
    double alpha = 2 * M_PI / n;
    int k = (int)lround(a / alpha) % n;
    return k < 0 ? k + n : k;
}

int sim_polar_delta(int n, int c1, int c2)
{
    int d = c1 - c2;
    if (d < 0)
        d = -d;
    d %= n;
    return d < n - d ? d : n - d;
}

void sim_polar_primary(const sim_polar_cfg *c, double x, double y, const double *pts, int npts, double *h)
{
    const double b = 1.0, a = 1 + b * c->R * c->R, alpha = 2 * M_PI / c->n;
    memset(h, 0, c->n * sizeof *h);
    for (int i = 0; i < npts; i++) {
        double dx = pts[2 * i] - x, dy = pts[2 * i + 1] - y, d = hypot(dx, dy);
        if (d > c->R)
            continue;
        double m = a - b * d * d;
        double beta = atan2(dy, dx);
        double gamma = d <= c->r_rs ? M_PI / 2 : asin(c->r_rs / d);
        for (int k = 0; k < c->n; k++)
            if (fabs(sim_wrap_pi(k * alpha - beta)) <= gamma + 1e-12)
                h[k] += m;
    }
}

void sim_polar_binary(const double *h, int n, double t_low, double t_high, unsigned char *bin)
{
    for (int k = 0; k < n; k++) {
        if (h[k] > t_high)
            bin[k] = 1;
        else if (h[k] < t_low)
            bin[k] = 0;
    }
}

void sim_polar_masked(const sim_polar_cfg *c, const unsigned char *bin, double x, double y, double theta,
                      double r_turn, const double *pts, int npts, unsigned char *mask)
{
    double alpha = 2 * M_PI / c->n;
    /* the limits as offsets from theta: right in [-pi, 0], left in [0, pi] */
    double lim_r = -M_PI, lim_l = M_PI;
    if (r_turn > 0) {
        double s = sin(theta), co = cos(theta);
        double xr = x + r_turn * s, yr = y - r_turn * co; /* right circle's centre */
        double xl = x - r_turn * s, yl = y + r_turn * co; /* left */
        for (int i = 0; i < npts; i++) {
            double px = pts[2 * i], py = pts[2 * i + 1];
            if (hypot(px - x, py - y) > c->R)
                continue;
            double off = sim_wrap_pi(atan2(py - y, px - x) - theta);
            if (off < 0 && hypot(px - xr, py - yr) < r_turn + c->r_rs)
                lim_r = fmax(lim_r, off);
            else if (off >= 0 && hypot(px - xl, py - yl) < r_turn + c->r_rs)
                lim_l = fmin(lim_l, off);
        }
    }
    for (int k = 0; k < c->n; k++) {
        double off = sim_wrap_pi(k * alpha - theta);
        int reach = r_turn <= 0 || (off >= lim_r && off <= lim_l);
        mask[k] = bin[k] || !reach;
    }
}

int sim_polar_valleys(const unsigned char *mask, int n, int *start, int *len, int cap)
{
    int k0 = -1;
    for (int k = 0; k < n && k0 < 0; k++)
        if (mask[k])
            k0 = k;
    if (k0 < 0) {
        if (cap > 0)
            start[0] = 0, len[0] = n;
        return cap > 0;
    }
    int nv = 0;
    /* walk once round from the first blocked sector */
    for (int i = 1; i <= n && nv < cap; i++) {
        int k = (k0 + i) % n;
        if (mask[k])
            continue;
        int l = 0;
        while (l < n && !mask[(k + l) % n])
            l++;
        start[nv] = k, len[nv] = l, nv++;
        i += l - 1;
    }
    return nv;
}
