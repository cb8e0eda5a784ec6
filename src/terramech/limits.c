/* The binding speed limit: the smallest of the limits that apply (NRMM takes
 * the minimum of its speed limits per terrain unit; Ahlvin & Haley, NRMM II
 * User's Guide, 1992). Ties go to the lowest index (limits.h). */
#include "limits.h"

#include <math.h>

double tm_limits_min(const double *v, int n, int *which)
{
    double best = NAN;
    int at = -1;
    for (int i = 0; i < n; i++) {
        if (isnan(v[i]))
            continue;
        if (at < 0 || v[i] < best) {
            best = v[i];
            at = i;
        }
    }
    if (which)
        *which = at;
    return best;
}
