/* Visibility- and braking-limited speed (docs/method.md §2.10.4): the speed
 * from which the vehicle stops within the visible distance d after a
 * reaction time t_r at constant deceleration a, i.e. the positive root of
 * t_r v + v^2 / (2 a) = d (the stopping sight distance of AASHTO, A Policy
 * on Geometric Design of Highways and Streets, 7th ed. 2018, §3.2.2),
 *   v = a (-t_r + sqrt(t_r^2 + 2 d / a)).
 * Downhill (grade beta > 0) gravity takes g sin(beta) off the deceleration
 * (Wong, Theory of Ground Vehicles, 4th ed. 2008, ch. 3, braking performance;
 * the cos(beta) on the normal load neglected); when a <= g sin(beta) the
 * vehicle cannot stop at all: 0, NOGO-equivalent. */
#include "limits.h"

#include <math.h>

double tm_visibility_speed_ms(double d_m, double reaction_s, double decel_ms2)
{
    if (!(d_m > 0) || !(decel_ms2 > 0))
        return 0;
    if (isinf(d_m))
        return INFINITY;
    double t = reaction_s;
    return decel_ms2 * (-t + sqrt(t * t + 2.0 * d_m / decel_ms2));
}

double tm_braking_speed_ms(double d_m, double reaction_s, double decel_ms2, double downhill_rad)
{
    double a = decel_ms2 - TM_G_MS2 * sin(downhill_rad);
    if (!(a > 0))
        return 0;
    return tm_visibility_speed_ms(d_m, reaction_s, a);
}
