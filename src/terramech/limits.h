/*
 * limits.h — the per-cell speed limits of the NRMM-class mobility model
 * (issue 14; docs/method.md §2.10) as pure functions: SI inputs and outputs
 * (N, m, s, kg, radians, m/s), no state, no I/O; tm_speed_at (terramech.h) takes their minimum.
 * A speed limit that does not bind returns INFINITY; one that cannot be
 * met at any speed (NOGO-equivalent) returns 0.
 *
 * Resistances (tyre.c; Wong, Theory of Ground Vehicles, 4th ed. 2008, §1.2,
 * Table 1.1, ch. 3):
 *   rolling  R_r = f W cos(beta)   f the tyre's (track's) own coefficient on
 *                                  firm ground: car tyres on asphalt 0.013,
 *                                  truck tyres 0.006-0.01, unpaved road
 *                                  0.025-0.05 (Wong Table 1.1)
 *   grade    R_g = W sin(beta)     beta > 0 uphill
 *
 * Ride (ride.c; ISO 8608:2016 road classes; quarter car as in Wong ch. 7):
 *   G_d(n) = G_d(n0) (n / n0)^-w, n0 = 0.1 cycles/m, w = 2 (one-sided, m^3).
 *   Class k = 0..7 (A..H): geometric mean G_d(n0) = 16e-6 * 4^k m^3, bounds
 *   8e-6 * 4^k .. 32e-6 * 4^k (A has no lower bound, H no upper); a value on
 *   a bound belongs to the rougher class.
 *   Quarter car per corner: sprung ms, unsprung mu (kg), spring k, tyre kt
 *   (N/m), damper c (N s/m). Over a w = 2 profile at speed v the velocity
 *   input is white with one-sided PSD G_u = 4 pi^2 n0^2 G_d(n0) v, and the
 *   sprung mass's vertical acceleration has the variance
 *     sigma^2 = pi^2 n0^2 G_d(n0) v (c^2 kt + k^2 (ms + mu)) / (c ms^2)
 *   (derived in docs/method.md §2.10.2). The ride-limited speed reaches
 *   the RMS limit a_lim: v_ride = a_lim^2 / (sigma^2 / v).
 *   Departs from NRMM (6 W absorbed power at the driver's seat, a weighted
 *   response) and ISO 2631-1 (frequency-weighted Wk RMS at the seat): this
 *   is the UNWEIGHTED RMS acceleration of the sprung mass, no seat, no
 *   pitch (one corner), a linear suspension that never tops out.
 *
 * Vegetation (vegetation.c; a simplification of NRMM's vegetation
 * avoidance, Ahlvin & Haley 1992, derived in docs/method.md §2.10.3):
 *   spacing       s = 1 / sqrt(rho)           rho stems (not overridable) per m^2
 *   manoeuvring   v = (lambda / 2) sqrt(a_y / y),  lambda = s^2 / B the mean free
 *                 path of a swept width B, y = B / 2 the worst sidestep, a_y
 *                 the lateral acceleration allowed; 0 when s <= B
 *   override      R_v = rho B E                E the work to override one stem (J)
 *
 * Visibility and braking (braking.c; stopping distance = reaction distance
 * + braking distance, e.g. AASHTO Green Book 2018 §3.2.2):
 *   visibility    v = a (-t_r + sqrt(t_r^2 + 2 d / a))  (t_r v + v^2 / (2a) = d)
 *   downhill      the same with a - g sin(beta) (beta > 0 downhill); 0 when
 *                 a <= g sin(beta): braking cannot hold the grade
 *
 * The binding limit (limits.c): the smallest, its index returned.
 */
#ifndef TERRAMECH_LIMITS_H
#define TERRAMECH_LIMITS_H

#define TM_G_MS2 9.80665         /* standard gravity */
#define TM_ISO8608_N0 0.1        /* reference spatial frequency, cycles/m */
#define TM_ISO8608_CLASSES 8     /* A..H */

/* ---- tyre.c: resistances on firm ground ----------------------------------- */

/* The tyre's (or track's) own rolling resistance f W cos(beta), N. */
double tm_rolling_resistance_N(double coeff, double weight_N, double beta_rad);
/* Grade resistance W sin(beta), N (negative downhill). */
double tm_grade_resistance_N(double weight_N, double beta_rad);

/* ---- ride.c: ISO 8608 roughness and the quarter car ------------------------ */

typedef struct tm_quarter_car {
    double sprung_kg, unsprung_kg;   /* per corner */
    double spring_N_per_m, damper_Ns_per_m, tyre_N_per_m;
} tm_quarter_car;

/* G_d(n0) of ISO 8608 class cls (0..7 = A..H), m^3: its geometric mean,
 * lower and upper bound (lower of A 0, upper of H INFINITY); NAN outside. */
double tm_iso8608_gd(int cls);
double tm_iso8608_lower(int cls);
double tm_iso8608_upper(int cls);
/* The class (0..7) of a G_d(n0) in m^3 (lower <= gd < upper); -1 when gd < 0
 * or NAN. */
int tm_iso8608_class(double gd_n0_m3);
/* Variance of the sprung mass's vertical acceleration per unit speed,
 * (m/s^2)^2 per m/s, over a w = 2 profile of G_d(n0) (m^3). */
double tm_ride_variance_per_speed(const tm_quarter_car *q, double gd_n0_m3);
/* RMS vertical acceleration of the sprung mass at speed v, m/s^2. */
double tm_ride_rms_ms2(const tm_quarter_car *q, double gd_n0_m3, double v_ms);
/* The speed at which that RMS reaches a_limit (m/s); INFINITY on a smooth
 * surface (gd <= 0); 0 without damping (c = 0: the variance is infinite,
 * the undamped resonance is excited by the white input). */
double tm_ride_speed_ms(const tm_quarter_car *q, double gd_n0_m3, double a_limit_ms2);

/* The ride-limited speed over a profile of any waviness w (1 < w <= 3):
 * sigma^2 = G_d(n0) n0^w v^(w-1) I_w, I_w = integral over f of
 * |H_a(2 pi f)|^2 f^-w df (H_a from road displacement to sprung
 * acceleration), so v = (a_limit^2 / (G_d(n0) n0^w I_w))^(1/(w-1)). At w = 2
 * the closed form above; elsewhere I_w by Simpson's rule in log f over
 * 1e-4..1e4 Hz (docs/method.md §2.10.2). INFINITY when gd <= 0; NAN when w
 * is outside (1, 3]. */
double tm_ride_speed_w_ms(const tm_quarter_car *q, double gd_n0_m3, double w, double a_limit_ms2);
/* |H_a(2 pi f)|^2, road displacement to sprung acceleration, (1/s^2)^2. */
double tm_ride_gain2(const tm_quarter_car *q, double f_hz);

/* ---- janosi.c: the slip a pull needs ------------------------------------------- */

/* The slip i in [0, 1] at which Janosi-Hanamoto's thrust over a contact of
 * length L with shear deformation modulus K reaches ratio times the thrust
 * at full slip: g(i) = ratio g(1), g(i) = 1 - K/(iL) (1 - e^(-iL/K)).
 * NAN when ratio is outside [0, 1] (the pull exceeds the thrust) or
 * k_over_l <= 0. */
double tm_slip_for_pull(double ratio, double k_over_l);

/* ---- vegetation.c: stems ------------------------------------------------------ */

/* Mean spacing 1 / sqrt(rho) of rho stems per m^2 (INFINITY when rho <= 0). */
double tm_stem_spacing_m(double stems_per_m2);
/* Manoeuvring speed between stems spaced s for a vehicle of width B with
 * lateral acceleration a_y: (s^2 / B / 2) sqrt(2 a_y / B); 0 when s <= B. */
double tm_vegetation_speed_ms(double spacing_m, double width_m, double lat_accel_ms2);
/* Override resistance rho B E (N): stems met per metre times work per stem. */
double tm_vegetation_override_N(double stems_per_m2, double width_m, double work_per_stem_J);

/* ---- braking.c: visibility and downhill braking -------------------------------- */

/* The speed from which the vehicle stops within d: reaction time t_r, then
 * constant deceleration a. 0 when d <= 0 or a <= 0. */
double tm_visibility_speed_ms(double d_m, double reaction_s, double decel_ms2);
/* The same on a downhill grade beta (> 0 downhill): deceleration a - g sin(beta);
 * 0 when braking cannot hold the grade. */
double tm_braking_speed_ms(double d_m, double reaction_s, double decel_ms2, double downhill_rad);

/* ---- limits.c: the binding limit ------------------------------------------------ */

/* The smallest of v[0..n-1] (NAN entries are limits that do not apply and
 * are skipped); *which (may be NULL) receives its index. Ties go to the
 * LOWEST index, so the caller orders v by limit.tif's codes (1 top speed,
 * 2 power, 3 traction, 4 ride, 5 vegetation, 6 visibility/braking): on a
 * tie the smaller code is reported. No entry: NAN and *which = -1. */
double tm_limits_min(const double *v, int n, int *which);

#endif
