/* The tyre's (or track's) own rolling resistance on firm ground and the
 * grade resistance (docs/method.md §2.10.1). Source: Wong, Theory of Ground
 * Vehicles, 4th ed. (2008), §1.2 (R_r = f_r W cos(theta_s) on a slope) and
 * Table 1.1 (typical f_r: car tyres on concrete or
 * asphalt 0.013, rolled gravel 0.02, unpaved road 0.05; truck tyres 0.006-0.01,
 * 0.014, 0.025), ch. 3 (grade resistance W sin(theta_s)). */
#include "limits.h"

#include <math.h>

double tm_rolling_resistance_N(double coeff, double weight_N, double beta_rad)
{
    return coeff * weight_N * cos(beta_rad);
}

double tm_grade_resistance_N(double weight_N, double beta_rad)
{
    return weight_N * sin(beta_rad);
}
