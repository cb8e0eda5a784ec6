/* The attainable speed of one cell in one direction of travel: the
 * smallest of the speed limits (NRMM's rule, Ahlvin & Haley, NRMM II
 * User's Guide, 1992; docs/method.md §2.10.7), and the row kernel that
 * keeps the worst direction for speed.tif (terramech.h). */
#include "terramech.h"

#include <math.h>

/* The power limit eta P (1 - i) / F and the slip i the pull F needs; the
 * limit is called traction when i > TM_SLIP_TRACTION. */
static double power_limit(const tm_model *m, int s, double pull, double *slip, tm_limit *code)
{
    *slip = 0;
    *code = TM_LIMIT_POWER;
    if (!(pull > 0))
        return INFINITY;
    if (!isnan(m->soil_k_over_l[s]))
        *slip = tm_slip_for_pull(pull / m->soil_hold_N[s], m->soil_k_over_l[s]);
    if (*slip > TM_SLIP_TRACTION)
        *code = TM_LIMIT_TRACTION;
    return m->power_W * (1.0 - *slip) / pull;
}

double tm_speed_at(const tm_model *m, int s, int l, double beta, tm_speed_at_t *out)
{
    return tm_speed_at_sc(m, s, l, sin(beta), cos(beta), out);
}

double tm_speed_at_sc(const tm_model *m, int s, int l, double sin_b, double cos_b, tm_speed_at_t *out)
{
    const tm_vehicle *v = m->v;
    tm_speed_at_t o;
    double w = m->weight_N, hold = m->soil_hold_N[s];
    double f = m->soil_f_measured[s];
    o.pull_N = (f > 0 ? f * w * cos_b : m->soil_pull_N[s] + v->rolling_coeff * w * cos_b) + m->lu_veg_coeff[l] * w +
               w * sin_b;
    o.slip = 0;
    for (int k = 0; k < TM_NLIMITS; k++)
        o.lim_ms[k] = INFINITY;
    int nogo = o.pull_N > 0 ? o.pull_N > hold && !isnan(m->soil_k_over_l[s]) : -o.pull_N > hold;
    if (nogo) {
        o.v_ms = 0;
        o.limit = TM_LIMIT_NOGO;
    } else {
        tm_limit pcode;
        double vp = power_limit(m, s, o.pull_N, &o.slip, &pcode);
        o.lim_ms[TM_LIMIT_TOP] = v->top_speed_kmh / 3.6;
        o.lim_ms[pcode] = vp;
        o.lim_ms[TM_LIMIT_RIDE] = m->lu_ride_ms[l];
        o.lim_ms[TM_LIMIT_VEGETATION] = m->lu_veg_ms[l];
        double decel = fmin(v->decel_ms2, (hold + o.pull_N) / m->mass_kg);
        o.lim_ms[TM_LIMIT_BRAKING] = tm_visibility_speed_ms(m->lu_visibility_m[l], v->reaction_s, decel);
        int which;
        o.v_ms = tm_limits_min(o.lim_ms + 1, TM_NLIMITS - 1, &which);
        o.limit = (tm_limit)(which + 1);
    }
    if (out)
        *out = o;
    return o.v_ms;
}
