/* The speed limits of terramech/limits.h (docs/method.md §2.10): each
 * against values worked by hand in the comments, the quarter car's closed
 * form against a numeric integration of |H(f)|^2 times the road's PSD
 * computed here from the equations of motion, the ride-limited speed
 * recovering its limit, the braking speed against the stopping distance,
 * and monotonicity in roughness and grade. */
#include "test_common.h"

#include <complex.h>
#include <math.h>

#include "terramech/terramech.h"

static double rel(double a, double b) { return fabs(a - b) / fabs(b); }
static double rad(double deg) { return deg * M_PI / 180.0; }

static void test_resistances(void **state)
{
    (void)state;
    /* f = 0.015, W = 12 000 N: flat 0.015 x 12 000 = 180 N; on 10 degrees
     * 180 cos 10 = 180 x 0.98480775301 = 177.265395542 N */
    assert_true(rel(tm_rolling_resistance_N(0.015, 12000, 0), 180.0) < 1e-12);
    assert_true(rel(tm_rolling_resistance_N(0.015, 12000, rad(10)), 177.265395542) < 1e-10);
    /* grade: 12 000 sin 10 = 12 000 x 0.17364817767 = 2083.77813200 N;
     * downhill 5 degrees: -12 000 x 0.08715574275 = -1045.86891297 N */
    assert_true(rel(tm_grade_resistance_N(12000, rad(10)), 2083.77813200) < 1e-10);
    assert_true(rel(tm_grade_resistance_N(12000, rad(-5)), -1045.86891297) < 1e-10);
}

static void test_iso8608(void **state)
{
    (void)state;
    /* ISO 8608 Gd(n0) in 1e-6 m^3: A 16 (< 32), B 64 (32..128), C 256
     * (128..512), D 1024, ..., H 262 144 (>= 131 072) */
    assert_true(rel(tm_iso8608_gd(0), 16e-6) < 1e-12);
    assert_true(rel(tm_iso8608_gd(2), 256e-6) < 1e-12);
    assert_true(rel(tm_iso8608_gd(7), 262144e-6) < 1e-12);
    assert_true(tm_iso8608_lower(0) == 0);
    assert_true(rel(tm_iso8608_lower(1), 32e-6) < 1e-12);
    assert_true(rel(tm_iso8608_upper(1), 128e-6) < 1e-12);
    assert_true(rel(tm_iso8608_lower(7), 131072e-6) < 1e-12);
    assert_true(isinf(tm_iso8608_upper(7)));
    assert_true(isnan(tm_iso8608_gd(8)) && isnan(tm_iso8608_gd(-1)));
    /* a value on a bound belongs to the rougher class */
    assert_int_equal(tm_iso8608_class(0), 0);
    assert_int_equal(tm_iso8608_class(31.9e-6), 0);
    assert_int_equal(tm_iso8608_class(32e-6), 1);
    assert_int_equal(tm_iso8608_class(127.9e-6), 1);
    assert_int_equal(tm_iso8608_class(512e-6), 3);
    assert_int_equal(tm_iso8608_class(200000e-6), 7);
    assert_int_equal(tm_iso8608_class(-1e-6), -1);
    for (int k = 0; k < TM_ISO8608_CLASSES; k++)
        assert_int_equal(tm_iso8608_class(tm_iso8608_gd(k)), k);
}

/* Sprung-mass acceleration per road displacement, |zs'' / zr|^2 at omega,
 * solved from the two equations of motion (Cramer's rule):
 *   (k + j w c - ms w^2) Zs - (k + j w c) Zu = 0
 *   -(k + j w c) Zs + (k + kt + j w c - mu w^2) Zu = kt Zr */
static double accel_gain2(const tm_quarter_car *q, double w)
{
    double complex kc = q->spring_N_per_m + I * w * q->damper_Ns_per_m;
    double complex a11 = kc - q->sprung_kg * w * w, a12 = -kc, a21 = -kc;
    double complex a22 = kc + q->tyre_N_per_m - q->unsprung_kg * w * w;
    double complex zs = -a12 * q->tyre_N_per_m / (a11 * a22 - a12 * a21);
    double complex acc = -w * w * zs;
    return creal(acc * conj(acc));
}

/* sigma^2 = integral over f > 0 of |H_a(2 pi f)|^2 G_zr(f) df, with the
 * road's temporal PSD G_zr(f) = Gd(n0) (n/n0)^-2 / v at n = f / v, i.e.
 * Gd n0^2 v / f^2. Composite Simpson in x = ln f over 1e-5..1e5 Hz
 * (df = f dx), 400 000 intervals; the tails beyond are below 1e-9 of the
 * total (integrand ~ f^3 below, ~ f^-3 above the 1-12 Hz modes). */
static double ride_variance_numeric(const tm_quarter_car *q, double gd, double v)
{
    const int n = 400000;
    double x0 = log(1e-5), x1 = log(1e5), h = (x1 - x0) / n, s = 0;
    for (int i = 0; i <= n; i++) {
        double f = exp(x0 + i * h);
        double g = accel_gain2(q, 2 * M_PI * f) * gd * 0.01 * v / (f * f) * f;
        s += (i == 0 || i == n ? 1 : i % 2 ? 4 : 2) * g;
    }
    return s * h / 3;
}

static const tm_quarter_car corner = {280, 30, 16000, 1300, 160000};

static void test_ride_closed_form(void **state)
{
    (void)state;
    /* by hand: c^2 kt = 1300^2 x 160 000 = 2.704e11, k^2 (ms + mu) =
     * 16 000^2 x 310 = 7.936e10, c ms^2 = 1300 x 280^2 = 1.0192e8, so
     * (2.704e11 + 7.936e10) / 1.0192e8 = 3431.71114600 s^-3; times
     * pi^2 n0^2 Gd = 9.8696044011 x 0.01 x 256e-6 = 2.52661872668e-5:
     * 0.0867062564603 (m/s^2)^2 per m/s; at 10 m/s RMS sqrt(0.867062564603)
     * = 0.931161943275 m/s^2 */
    assert_true(rel(tm_ride_variance_per_speed(&corner, 256e-6), 0.0867062564603) < 1e-10);
    assert_true(rel(tm_ride_rms_ms2(&corner, 256e-6, 10), 0.931161943275) < 1e-10);
    /* the closed form against numeric integration of the transfer function,
     * for this corner, a lightly damped one and a heavy unsprung mass */
    const tm_quarter_car cars[3] = {corner, {280, 30, 16000, 300, 160000}, {400, 120, 30000, 2500, 250000}};
    const double gds[3] = {256e-6, 16e-6, 4096e-6}, vs[3] = {10, 3, 25};
    for (int i = 0; i < 3; i++) {
        double closed = tm_ride_rms_ms2(&cars[i], gds[i], vs[i]);
        double num = sqrt(ride_variance_numeric(&cars[i], gds[i], vs[i]));
        assert_true(rel(closed, num) < 1e-6);
    }
}

static void test_ride_speed(void **state)
{
    (void)state;
    /* 2^2 / 0.0867062564603 = 46.1327724584 m/s on class C */
    assert_true(rel(tm_ride_speed_ms(&corner, 256e-6, 2.0), 46.1327724584) < 1e-10);
    /* the RMS at the ride-limited speed is the limit */
    for (int k = 0; k < TM_ISO8608_CLASSES; k++) {
        double gd = tm_iso8608_gd(k), v = tm_ride_speed_ms(&corner, gd, 1.5);
        assert_true(rel(tm_ride_rms_ms2(&corner, gd, v), 1.5) < 1e-12);
        /* rougher class, lower speed: Gd x 4, speed / 4 */
        if (k > 0)
            assert_true(rel(tm_ride_speed_ms(&corner, tm_iso8608_gd(k - 1), 1.5) / v, 4.0) < 1e-12);
    }
    assert_true(isinf(tm_ride_speed_ms(&corner, 0, 1.5)));
    /* undamped: c^2 kt + k^2 (ms + mu) over c ms^2 = 0 is infinite, speed 0 */
    const tm_quarter_car undamped = {280, 30, 16000, 0, 160000};
    assert_true(tm_ride_speed_ms(&undamped, 256e-6, 1.5) == 0);
}

/* ---- the slip a pull needs (janosi.c) ---- */

/* Janosi-Hanamoto's g(x) = 1 - (1 - e^-x) / x, x = i L / K, written here
 * independently of janosi.c: below x = 0.01 its Taylor series
 * x/2 - x^2/6 + x^3/24 - x^4/120 + x^5/720 (the next term is below 1e-17
 * of g there), else the formula with expm1; and g'(x) = (1 - e^-x (1 + x)) / x^2. */
static double jh_g(double x)
{
    if (x < 0.01)
        return x / 2 - x * x / 6 + x * x * x / 24 - x * x * x * x / 120 + x * x * x * x * x / 720;
    return 1 + expm1(-x) / x;
}

static double jh_dg(double x)
{
    if (x < 0.01)
        return 0.5 - x / 3 + x * x / 8 - x * x * x / 30;
    return (1 - exp(-x) * (1 + x)) / (x * x);
}

/* Newton on g(x) = r g(1/kl) from x = 2 r g(1/kl), left of the root (g(x) <=
 * x / 2); g is increasing and concave, so each tangent lies above g and the
 * iterates rise monotonically onto the root */
static double slip_newton(double r, double kl)
{
    double want = r * jh_g(1 / kl), x = 2 * want;
    for (int it = 0; it < 200; it++) {
        double dx = (jh_g(x) - want) / jh_dg(x);
        x -= dx;
        if (fabs(dx) <= 1e-16 * x)
            break;
    }
    return x * kl;
}

static void test_slip_for_pull(void **state)
{
    (void)state;
    /* by hand: K/L = 0.1, i = 0.1 gives x = 1, g = e^-1 = 0.367879441171;
     * g(10) = 1 - (1 - e^-10) / 10 = 0.900004539993; so the ratio
     * 0.367879441171 / 0.900004539993 = 0.408752872707 needs i = 0.1 */
    assert_true(fabs(tm_slip_for_pull(0.408752872707, 0.1) - 0.1) < 1e-11);
    /* against Newton: ratios over (0, 1), K/L from 0.005 (long tracks) to 5 */
    const double kls[6] = {0.005, 0.03, 0.084, 0.3, 1, 5};
    const double rs[9] = {1e-9, 1e-4, 0.01, 0.1, 0.3, 0.5, 0.8, 0.99, 0.999999};
    double worst = 0;
    for (int a = 0; a < 6; a++)
        for (int b = 0; b < 9; b++) {
            double i = tm_slip_for_pull(rs[b], kls[a]), want = slip_newton(rs[b], kls[a]);
            /* and it solves the equation */
            double back = jh_g(i / kls[a]) / jh_g(1 / kls[a]);
            worst = fmax(worst, rel(i, want));
            if (!(rel(i, want) < 1e-9) || !(rel(back, rs[b]) < 1e-9))
                fail_msg("ratio %g, K/L %g: slip %.15g, Newton %.15g, g(i)/g(1) %.15g", rs[b], kls[a], i, want, back);
        }
    printf("  slip: worst relative difference from Newton %.2e\n", worst);
    /* monotone in the ratio; a longer contact (smaller K/L) slips less */
    assert_true(tm_slip_for_pull(0.5, 0.1) < tm_slip_for_pull(0.6, 0.1));
    assert_true(tm_slip_for_pull(0.5, 0.05) < tm_slip_for_pull(0.5, 0.1));
    /* edges: none, full, beyond, undefined */
    assert_true(tm_slip_for_pull(0, 0.1) == 0);
    assert_true(tm_slip_for_pull(1, 0.1) == 1);
    assert_true(isnan(tm_slip_for_pull(nextafter(1, 2), 0.1)));
    assert_true(isnan(tm_slip_for_pull(-1e-12, 0.1)));
    assert_true(isnan(tm_slip_for_pull(NAN, 0.1)));
    assert_true(isnan(tm_slip_for_pull(0.5, 0)));
    assert_true(isnan(tm_slip_for_pull(0.5, -1)));
    assert_true(isnan(tm_slip_for_pull(0.5, NAN)));
    /* a tiny pull: g(x) ~ x / 2, so i ~ 2 r g(1/kl) kl = 2e-9 * 0.900004539993 * 0.1 */
    assert_true(rel(tm_slip_for_pull(1e-9, 0.1), 2e-9 * 0.900004539993 * 0.1) < 1e-6);
}

/* ---- the quarter car at any waviness (ride.c) ---- */

static void test_ride_gain2(void **state)
{
    (void)state;
    /* |H_a(2 pi f)|^2 against the two equations of motion solved here */
    const tm_quarter_car cars[2] = {corner, {400, 120, 30000, 2500, 250000}};
    const double fs[7] = {1e-3, 0.3, 1.2, 3, 11.9, 40, 1e3};
    for (int c = 0; c < 2; c++)
        for (int i = 0; i < 7; i++) {
            double want = accel_gain2(&cars[c], 2 * M_PI * fs[i]);
            if (!(rel(tm_ride_gain2(&cars[c], fs[i]), want) < 1e-12))
                fail_msg("car %d, %g Hz: %.15g, want %.15g", c, fs[i], tm_ride_gain2(&cars[c], fs[i]), want);
        }
    /* the static limit: below the modes the body follows the road,
     * |a / z_r| = (2 pi f)^2: at 1e-3 Hz 1.5585e-9 (to 1e-5) */
    assert_true(rel(tm_ride_gain2(&corner, 1e-3), pow(2 * M_PI * 1e-3, 4)) < 1e-5);
}

/* I_w = integral over f > 0 of |H_a(2 pi f)|^2 f^-w df, integrated here
 * another way than ride.c (Simpson in ln f over 1e-4..1e4 Hz): the whole
 * half-line mapped onto [0, 1) by f = F t / (1 - t), F = 2 Hz, df = F / (1 -
 * t)^2 dt, composite Simpson on 2e6 intervals with the test's own gain
 * (accel_gain2). At t = 1 the integrand is 0 (it falls as (1 - t)^w). */
static double ride_iw_numeric(const tm_quarter_car *q, double w)
{
    const int n = 2000000;
    const double F = 2.0, h = 1.0 / n;
    double s = 0;
    for (int i = 1; i < n; i++) {
        double t = i * h, f = F * t / (1 - t);
        double y = accel_gain2(q, 2 * M_PI * f) * pow(f, -w) * F / ((1 - t) * (1 - t));
        s += (i % 2 ? 4 : 2) * y;
    }
    return s * h / 3;
}

static void test_ride_waviness(void **state)
{
    (void)state;
    const double gd = 256e-6, a = 2.0, n0 = TM_ISO8608_N0;
    /* w = 2: the closed form, exactly (the same function) */
    assert_true(tm_ride_speed_w_ms(&corner, gd, 2.0, a) == tm_ride_speed_ms(&corner, gd, a));
    /* and the integral agrees with it: at w = 2, sigma^2 / v = G_d n0^2 I_2 */
    double i2 = ride_iw_numeric(&corner, 2.0);
    assert_true(rel(gd * n0 * n0 * i2, tm_ride_variance_per_speed(&corner, gd)) < 1e-6);
    /* continuity at w = 2: the numeric path at 2 -+ 1e-6 against the
     * closed form (measured 1.8e-7 on both sides: the numeric path's own
     * error, the integral's tail beyond 1e4 Hz, not the slope in w) */
    double vc = tm_ride_speed_ms(&corner, gd, a);
    double lo = tm_ride_speed_w_ms(&corner, gd, 2 - 1e-6, a), hi = tm_ride_speed_w_ms(&corner, gd, 2 + 1e-6, a);
    printf("  ride, w = 2 -+ 1e-6: %.3e, %.3e relative to the closed form\n", rel(lo, vc), rel(hi, vc));
    assert_true(rel(lo, vc) < 1e-6 && rel(hi, vc) < 1e-6);
    /* w = 1.6 and 2.5 against the integral here: v = (a^2 / (G_d n0^w I_w))^(1 / (w - 1)) */
    const double ws[2] = {1.6, 2.5};
    for (int k = 0; k < 2; k++) {
        double iw = ride_iw_numeric(&corner, ws[k]);
        double want = pow(a * a / (gd * pow(n0, ws[k]) * iw), 1 / (ws[k] - 1));
        double got = tm_ride_speed_w_ms(&corner, gd, ws[k], a);
        printf("  ride, w = %.1f: %.9g m/s, integrated here %.9g (%.2e)\n", ws[k], got, want, rel(got, want));
        assert_true(rel(got, want) < 1e-6);
    }
    /* w < 2: v goes as a^(2 / (w - 1)), a^3.33 at w = 1.6 */
    assert_true(rel(tm_ride_speed_w_ms(&corner, gd, 1.6, 2 * a) / tm_ride_speed_w_ms(&corner, gd, 1.6, a),
                    pow(2, 2 / 0.6)) < 1e-12);
    /* edges: outside (1, 3] NAN; a smooth surface no limit */
    assert_true(isnan(tm_ride_speed_w_ms(&corner, gd, 1.0, a)) && isnan(tm_ride_speed_w_ms(&corner, gd, 3.01, a)));
    assert_true(isnan(tm_ride_speed_w_ms(&corner, gd, NAN, a)));
    assert_false(isnan(tm_ride_speed_w_ms(&corner, gd, 3.0, a)));
    assert_true(isinf(tm_ride_speed_w_ms(&corner, 0, 1.6, a)));
}

static void test_vegetation(void **state)
{
    (void)state;
    /* 0.04 stems/m^2: spacing 1/sqrt(0.04) = 5 m. Width 2 m, a_y 2 m/s^2:
     * free path 25 / 2 = 12.5 m, sidestep 1 m in 2 sqrt(1/2) = 1.41421356 s,
     * v = 12.5 / 1.41421356 = 8.83883476483 m/s */
    assert_true(rel(tm_stem_spacing_m(0.04), 5.0) < 1e-12);
    assert_true(isinf(tm_stem_spacing_m(0)));
    assert_true(rel(tm_vegetation_speed_ms(5.0, 2.0, 2.0), 8.83883476483) < 1e-10);
    /* spacing 3 m: free path 4.5 m, 4.5 / 1.41421356 = 3.18198051534 m/s */
    assert_true(rel(tm_vegetation_speed_ms(3.0, 2.0, 2.0), 3.18198051534) < 1e-10);
    /* no gap wider than the vehicle: 0; no stems: no limit */
    assert_true(tm_vegetation_speed_ms(2.0, 2.0, 2.0) == 0);
    assert_true(tm_vegetation_speed_ms(1.5, 2.0, 2.0) == 0);
    assert_true(isinf(tm_vegetation_speed_ms(tm_stem_spacing_m(0), 2.0, 2.0)));
    /* denser, slower */
    double prev = INFINITY;
    for (double rho = 0.01; rho < 0.2; rho += 0.01) {
        double v = tm_vegetation_speed_ms(tm_stem_spacing_m(rho), 2.0, 2.0);
        assert_true(v < prev);
        prev = v;
    }
    /* override: 0.04 stems/m^2 x 2 m x 5000 J = 400 N */
    assert_true(rel(tm_vegetation_override_N(0.04, 2.0, 5000), 400.0) < 1e-12);
    assert_true(tm_vegetation_override_N(0, 2.0, 5000) == 0);
}

static void test_braking(void **state)
{
    (void)state;
    /* d = 50 m, t_r = 1.5 s, a = 4 m/s^2: 4 (-1.5 + sqrt(2.25 + 25)) =
     * 4 (-1.5 + 5.22015325446) = 14.8806130178 m/s; check 1.5 v + v^2/8
     * = 22.3209195267 + 27.6790804733 = 50 */
    assert_true(rel(tm_visibility_speed_ms(50, 1.5, 4), 14.8806130178) < 1e-10);
    /* downhill 10 degrees: a = 4 - 9.80665 x 0.17364817767 = 2.29709309848,
     * v = 2.29709309848 (-1.5 + sqrt(2.25 + 100 / 2.29709309848)) =
     * 12.0972604173 m/s */
    assert_true(rel(tm_braking_speed_ms(50, 1.5, 4, rad(10)), 12.0972604173) < 1e-10);
    /* braking cannot hold sin(beta) >= 4 / 9.80665, beyond 24.0721 degrees */
    assert_true(tm_braking_speed_ms(50, 1.5, 4, rad(24.08)) == 0);
    assert_true(tm_braking_speed_ms(50, 1.5, 4, rad(24.06)) > 0);
    assert_true(tm_visibility_speed_ms(0, 1.5, 4) == 0);
    /* the stopping distance: reaction distance + v^2 / 2a = d */
    const double ds[] = {5, 30, 200, 1000}, trs[] = {0, 0.7, 2.5}, as[] = {1.5, 3.4, 7};
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 3; j++)
            for (int k = 0; k < 3; k++) {
                double v = tm_visibility_speed_ms(ds[i], trs[j], as[k]);
                assert_true(rel(trs[j] * v + v * v / (2 * as[k]), ds[i]) < 1e-12);
                double ae = as[k] - TM_G_MS2 * sin(rad(5));
                v = tm_braking_speed_ms(ds[i], trs[j], as[k], rad(5));
                assert_true(rel(trs[j] * v + v * v / (2 * ae), ds[i]) < 1e-12);
            }
    /* steeper downhill, slower; uphill faster than level */
    double prev = tm_braking_speed_ms(50, 1.5, 4, rad(-5));
    for (double deg = 0; deg <= 24; deg += 2) {
        double v = tm_braking_speed_ms(50, 1.5, 4, rad(deg));
        assert_true(v < prev);
        prev = v;
    }
}

static void test_limits_min(void **state)
{
    (void)state;
    int which = 99;
    /* smallest 5 at indices 1 and 3: the lower index binds; NAN skipped */
    const double v[] = {11.1, 5, NAN, 5, 8};
    assert_true(tm_limits_min(v, 5, &which) == 5);
    assert_int_equal(which, 1);
    const double w[] = {NAN, INFINITY, 3, 7};
    assert_true(tm_limits_min(w, 4, &which) == 3);
    assert_int_equal(which, 2);
    const double none[] = {NAN, NAN};
    assert_true(isnan(tm_limits_min(none, 2, &which)));
    assert_int_equal(which, -1);
    assert_true(isnan(tm_limits_min(v, 0, NULL)));
    const double first[] = {0.5, 4, 2};
    assert_true(tm_limits_min(first, 3, &which) == 0.5);
    assert_int_equal(which, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_resistances),      cmocka_unit_test(test_iso8608),
        cmocka_unit_test(test_ride_closed_form), cmocka_unit_test(test_ride_speed),
        cmocka_unit_test(test_vegetation),       cmocka_unit_test(test_braking),
        cmocka_unit_test(test_limits_min),       cmocka_unit_test(test_slip_for_pull),
        cmocka_unit_test(test_ride_gain2),       cmocka_unit_test(test_ride_waviness),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
