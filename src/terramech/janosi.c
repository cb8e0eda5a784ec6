/* The slip a pull needs (docs/method.md §2.10.7): Janosi-Hanamoto's thrust
 * over a contact of length L at slip i is
 *   H(i) = H_max g(i),  g(i) = 1 - K / (i L) (1 - e^(-i L / K)),
 * increasing from g(0+) = 0 to g(1) at full slip (Janosi & Hanamoto 1961;
 * Wong, Theory of Ground Vehicles, 4th ed. 2008, §2.4). Given the pull as a
 * fraction r of the thrust at full slip, the slip solves g(i) = r g(1). */
#include "limits.h"

#include <math.h>

/* g(i) for i L / K = x: 1 - (1 - e^-x) / x; below x = 0.1 its series
 * sum (-1)^(k+1) x^k / (k+1)!, 9 terms (the closed form cancels there) */
static double jh_shape(double x)
{
    if (x < 0.1) {
        double sum = 0, term = 1;
        for (int k = 1; k <= 9; k++) {
            term *= -x / (k + 1);
            sum -= term;
        }
        return sum;
    }
    return 1.0 - -expm1(-x) / x;
}

/* dg/dx = (1 - e^-x - x e^-x) / x^2, its series near 0 */
static double jh_slope(double x)
{
    if (x < 1e-4)
        return 0.5 - x / 3.0;
    return (-expm1(-x) - x * exp(-x)) / (x * x);
}

double tm_slip_for_pull(double ratio, double k_over_l)
{
    if (!(ratio >= 0) || ratio > 1 || !(k_over_l > 0))
        return NAN;
    if (ratio == 0)
        return 0;
    if (ratio == 1)
        return 1;
    /* g is increasing: Newton in x = i L / K kept inside a shrinking
     * bracket (bisection where a step leaves it), to rounding */
    double want = ratio * jh_shape(1.0 / k_over_l), lo = 0, hi = 1.0 / k_over_l;
    double x = fmin(2.0 * want / (1.0 - want), hi); /* g ~ x / 2 near 0, 1 - 1 / x far */
    for (int it = 0; it < 100; it++) {
        double r = jh_shape(x) - want;
        if (fabs(r) <= 4e-16 * want)
            break;
        if (r < 0)
            lo = x;
        else
            hi = x;
        double nx = x - r / jh_slope(x);
        if (!(nx > lo && nx < hi))
            nx = 0.5 * (lo + hi);
        if (nx == x)
            break;
        x = nx;
    }
    return x * k_over_l;
}
