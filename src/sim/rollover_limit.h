/*
 * rollover_limit.h — a speed limit from the rollover margin (docs/method.md
 * §5.11.1): the speed profile and the path follower keep the predicted
 * load-transfer ratio of a rigid vehicle below 1 - rollover_margin.
 *
 * A rigid vehicle of track t and centre-of-mass height h on a side slope
 * (roll) phi and grade theta, driving at v on a curve of curvature kappa,
 * carries on its wheels the specific force g cos(phi) cos(theta) normal to
 * the slope's plane and, in it, g sin(phi) cos(theta) + v^2 kappa
 * sideways. Its load-transfer ratio (the difference of the right and left
 * wheel loads over their sum; 1: the light side lifts) is, with the turn
 * taken as pushing toward the downhill side (conservative),
 *
 *   LTR = (2 h / t) (tan|phi| + v^2 |kappa| / (g cos(phi) cos(theta)))
 *
 * so LTR = 1 on a slope of atan(t / 2 h), the static threshold. Keeping
 * LTR <= L = 1 - margin gives
 *
 *   v_max = sqrt(g cos(phi) cos(theta) (L t / (2 h) - tan|phi|) / |kappa|)
 *
 * (infinite on a straight line; 0 where the slope alone reaches L). The
 * side slope and grade come from the DEM's gradient (gx, gy) across and
 * along the direction u: s_c = gy ux - gx uy, s_g = gx ux + gy uy,
 * tan(phi) = s_c / sqrt(1 + s_g^2), tan(theta) = s_g.
 */
#ifndef SIM_ROLLOVER_LIMIT_H
#define SIM_ROLLOVER_LIMIT_H

#include "sim_priv.h"

/* The predicted load-transfer ratio above (ratio = t / (2 h)). */
double sim_rollover_ltr(double ratio, double phi, double theta, double v, double kappa);

/* v_max above for the allowed ratio lim = (1 - margin) t / (2 h) (m/s;
 * INFINITY when kappa is 0, 0 when tan|phi| >= lim). */
double sim_rollover_vmax(double lim, double phi, double theta, double kappa);

/* The vehicle's allowed ratio (1 - margin) t / (2 h), h its centre of
 * mass's height (dynamic.h's default); 0 when the limit is off (dynamics
 * kinematic and the scenario's rollover_margin not given). */
double sim_rollover_lim(const sim_run *r, const sim_veh *v);

/* v_max at (x, y) moving along the unit direction (ux, uy) on a curve of
 * curvature kappa, the slope from the run's DEM; INFINITY when off. */
double sim_rollover_speed_at(const sim_run *r, const sim_veh *v, double x, double y, double ux, double uy,
                             double kappa);

/* v_max under the vehicle now: its pose, the curvature it steers (the
 * binding limit "rollover" of the console's state). */
double sim_rollover_speed_now(const sim_run *r, const sim_veh *v);

/* The path follower's cap: cmd->v at most max(v_max, 0.3 m/s) under the
 * vehicle (its pose s, the curvature the command steers; skid and Mecanum:
 * the yaw rate scaled with the speed, so the curvature stays). Dynamic
 * Ackermann vehicles at |v| >= 1 m/s (the speed they have, s->v: it
 * cannot be shed at once) also steer at most
 *   |kappa| <= g cos(phi) cos(theta) (lim - tan|phi|) / v^2,
 *   |steer| <= atan(L kappa_max)
 * (nothing where the slope alone reaches lim: the speed cap acts). */
void sim_rollover_cap_cmd(const sim_run *r, const sim_veh *v, const sim_state *s, sim_cmd *cmd);

/* The deceleration the speed profile plans with from arc length s to
 * s + ds (m/s^2): the scenario's decel_ms2; dynamic vehicles (whose
 * brakes hold at most the vehicle file's deceleration_ms2, dynamic.h) on
 * a descent beta at most what is left of their brakes against the slope,
 *   a = deceleration_ms2 + g (f_rr cos(beta) - sin(beta)),
 * f_rr the tyre's rolling_resistance_coeff, and at least 0.1 m/s^2 (the
 * soil's own resistance, not counted, adds to it): the cap is planned
 * from far enough back to be met. */
double sim_profile_decel(const sim_run *r, const sim_veh *v, double s, double ds);

#endif
