/* Speed through vegetation and its override resistance (docs/method.md
 * §2.10.3). A simplification of NRMM's vegetation module (Ahlvin & Haley,
 * NRMM II User's Guide, 1992: the speed of manoeuvring around the stems the
 * vehicle cannot override, and the resistance of those it overrides); the
 * kinematics below are derived in method.md, not NRMM's fitted relations.
 *
 * Stems at density rho (per m^2) are spaced s = 1 / sqrt(rho). A vehicle
 * sweeping a width B meets one every lambda = 1 / (rho B) = s^2 / B metres
 * (the mean free path). Clearing one needs a sidestep of at most y = B / 2;
 * done with lateral acceleration +-a_y (half the time each way) it takes
 * t = 2 sqrt(y / a_y), over the distance lambda: v = lambda / t. When
 * s <= B the vehicle does not fit between two stems: 0.
 * Override: the work E per stem times the stems met per metre, rho B. */
#include "limits.h"

#include <math.h>

double tm_stem_spacing_m(double stems_per_m2)
{
    return stems_per_m2 > 0 ? 1.0 / sqrt(stems_per_m2) : INFINITY;
}

double tm_vegetation_speed_ms(double spacing_m, double width_m, double lat_accel_ms2)
{
    if (!(spacing_m > width_m) || !(lat_accel_ms2 > 0))
        return 0;
    if (isinf(spacing_m))
        return INFINITY;
    double lambda = spacing_m * spacing_m / width_m, y = width_m / 2.0;
    return lambda / (2.0 * sqrt(y / lat_accel_ms2));
}

double tm_vegetation_override_N(double stems_per_m2, double width_m, double work_per_stem_J)
{
    return stems_per_m2 > 0 ? stems_per_m2 * width_m * work_per_stem_J : 0;
}
