/* The slip a pull needs (docs/method.md §2.10.7): Janosi-Hanamoto's thrust
 * over a contact of length L at slip i is
 *   H(i) = H_max g(i),  g(i) = 1 - K / (i L) (1 - e^(-i L / K)),
 * increasing from g(0+) = 0 to g(1) at full slip (Janosi & Hanamoto 1961;
 * Wong, Theory of Ground Vehicles, 4th ed. 2008, §2.4). Given the pull as a
 * fraction r of the thrust at full slip, the slip solves g(i) = r g(1). */
#include "limits.h"

#include <math.h>

/* g(i) for i L / K = x: 1 - (1 - e^-x) / x, its series near 0 (x/2 - x^2/6
 * + x^3/24; the next term, x^4/120, is below 2e-14 of g there) */
static double jh_shape(double x)
{
    if (x < 1e-4)
        return x / 2.0 - x * x / 6.0 + x * x * x / 24.0;
    return 1.0 - -expm1(-x) / x;
}

double tm_slip_for_pull(double ratio, double k_over_l)
{
    if (!(ratio >= 0) || ratio > 1 || !(k_over_l > 0))
        return NAN;
    if (ratio == 0)
        return 0;
    if (ratio == 1)
        return 1;
    double want = ratio * jh_shape(1.0 / k_over_l), lo = 0, hi = 1;
    for (int it = 0; it < 1100; it++) { /* g is increasing: bisection to rounding, relative to i */
        double mid = 0.5 * (lo + hi);
        if (mid <= lo || mid >= hi) /* lo and hi adjacent doubles */
            break;
        if (jh_shape(mid / k_over_l) < want)
            lo = mid;
        else
            hi = mid;
    }
    return 0.5 * (lo + hi);
}
