/* The simulator's ride (src/sim/ride.c, docs/method.md §5.10) against
 * independent references: the synthesised profile's variance and
 * structure function against integrals of the ISO 8608 PSD it was built
 * from (Simpson's rule here, not the code's sums), its class; the
 * quarter car driven at a fixed speed over a long profile against the
 * closed form tm_ride_rms_ms2 (w = 2) and the integral form behind
 * tm_ride_speed_w_ms (w = 1.6); the same seed, the same bits. */
#include "test_common.h"

#include <complex.h>
#include <math.h>

#include "sim/sim.h"

/* The bundled UGV's quarter car (data/vehicles/ugv_hua2022.ini: the
 * [suspension] defaults of docs/method.md §2.10.6 for 1242 kg on 4
 * corners). */
static const tm_quarter_car UGV_Q = {279.45, 31.05, 15886.4, 1264.2, 158864.0};

/* integral over n in [a, b] of G_d(n) g(n) dn, Simpson in ln n */
static double psd_integral(double gd0, double w, double a, double b, double lag)
{
    const int n = 20000;
    double la = log(a), h = (log(b) - la) / n, sum = 0;
    for (int i = 0; i <= n; i++) {
        double x = exp(la + i * h);
        double g = gd0 * pow(x / TM_ISO8608_N0, -w) * x; /* dn = n d(ln n) */
        if (lag > 0)
            g *= 2 * (1 - cos(2 * M_PI * x * lag));
        sum += (i == 0 || i == n ? 1 : i % 2 ? 4 : 2) * g;
    }
    return sum * h / 3;
}

/* Class D (3) at its geometric mean, w = 2, seed 11: 20 km sampled every
 * 0.05 m. Variance within 3 % of the band's integral; the structure
 * function E[(z(s + d) - z(s))^2] at 0.3, 1, 3 and 10 m within 5 % of
 * 2 int G (1 - cos 2 pi n d) dn (the PSD's shape, not only its sum); the
 * G_d(n0) the variance implies falls in class D. */
static void test_profile_psd(void **state)
{
    (void)state;
    const double gd0 = tm_iso8608_gd(3), w = 2, L = 20000, dx = 0.05;
    double amp[SIM_RIDE_HARMONICS], ph[SIM_RIDE_HARMONICS];
    sim_ride_amplitudes(gd0, w, amp);
    sim_ride_phases(11, ph);
    long n = (long)(L / dx);
    double *z = malloc(n * sizeof *z), mean = 0, var = 0;
    assert_non_null(z);
    for (long i = 0; i < n; i++)
        mean += (z[i] = sim_ride_height(amp, ph, i * dx)) / n;
    for (long i = 0; i < n; i++)
        var += (z[i] - mean) * (z[i] - mean) / n;
    double ref = psd_integral(gd0, w, SIM_RIDE_N_LO, SIM_RIDE_N_HI, 0);
    printf("profile variance %.6g m^2, band integral %.6g (ratio %.4f)\n", var, ref, var / ref);
    assert_true(fabs(var / ref - 1) < 0.03);
    static const double lags[] = {0.3, 1, 3, 10};
    for (int k = 0; k < 4; k++) {
        long lag = lround(lags[k] / dx);
        double d2 = 0;
        for (long i = 0; i + lag < n; i++)
            d2 += (z[i + lag] - z[i]) * (z[i + lag] - z[i]) / (n - lag);
        double dref = psd_integral(gd0, w, SIM_RIDE_N_LO, SIM_RIDE_N_HI, lags[k]);
        printf("structure function at %.1f m: %.6g, PSD %.6g (ratio %.4f)\n", lags[k], d2, dref, d2 / dref);
        assert_true(fabs(d2 / dref - 1) < 0.05);
    }
    /* the variance over the band is G_d(n0) n0^2 (1 / n_lo - 1 / n_hi) at w = 2 */
    double gd_est = var / (TM_ISO8608_N0 * TM_ISO8608_N0 * (1 / SIM_RIDE_N_LO - 1 / SIM_RIDE_N_HI));
    printf("G_d(n0) from the variance %.4g m^3 (class %c), built from %.4g\n", gd_est,
           'A' + tm_iso8608_class(gd_est), gd0);
    assert_int_equal(tm_iso8608_class(gd_est), 3);
    free(z);
}

/* The integrator alone: a road sin(2 pi f t) sampled every h, held
 * linearly between samples (the step's first-order hold), f = 8 Hz and
 * h = 0.02 s (6.25 samples a period). The sprung acceleration's Fourier
 * coefficient at f over the last 10 s (80 periods; the start's transient
 * gone) is the transfer function's gain times that of linear
 * interpolation, sinc^2(f h) = 0.918 (a zero-order hold would give
 * sinc(f h) = 0.958 and a lag of h / 2, 29 degrees), within 1 % (measured
 * +0.6 %: the acceleration, sampled every h too, picks up the held road's
 * image at 1 / h - f); the phase within 0.5 degrees of H_a's (measured
 * 0.2). The acceleration from the states by hand. */
static void test_integrator(void **state)
{
    (void)state;
    const tm_quarter_car *q = &UGV_Q;
    const double f = 8, h = 0.02, w = 2 * M_PI * f;
    double phi[4][4], ga[4], gb[4], x[4] = {0}, re = 0, im = 0;
    sim_quarter_car_discretise(q, h, phi, ga, gb);
    const int n = 1500, from = 1000; /* 30 s, the last 10 */
    for (int k = 0; k < n; k++) {
        double u0 = sin(w * k * h), u1 = sin(w * (k + 1) * h), y[4];
        for (int i = 0; i < 4; i++)
            y[i] = phi[i][0] * x[0] + phi[i][1] * x[1] + phi[i][2] * x[2] + phi[i][3] * x[3] + ga[i] * u0 +
                   gb[i] * (u1 - u0);
        memcpy(x, y, sizeof x);
        double a = (-q->spring_N_per_m * (x[0] - x[2]) - q->damper_Ns_per_m * (x[1] - x[3])) / q->sprung_kg;
        if (k + 1 > from) {
            double t = (k + 1) * h;
            re += a * sin(w * t) * 2 / (n - from), im += a * cos(w * t) * 2 / (n - from);
        }
    }
    double sc = sin(M_PI * f * h) / (M_PI * f * h), want = sqrt(tm_ride_gain2(q, f)) * sc * sc;
    /* H_a(s) = s^2 kt (c s + k) / d(s), its phase by hand */
    double complex s = I * w;
    double complex d = q->sprung_kg * q->unsprung_kg * s * s * s * s +
                       q->damper_Ns_per_m * (q->sprung_kg + q->unsprung_kg) * s * s * s +
                       (q->spring_N_per_m * (q->sprung_kg + q->unsprung_kg) + q->tyre_N_per_m * q->sprung_kg) * s * s +
                       q->damper_Ns_per_m * q->tyre_N_per_m * s + q->spring_N_per_m * q->tyre_N_per_m;
    double complex hs = s * s * q->tyre_N_per_m * (q->damper_Ns_per_m * s + q->spring_N_per_m) / d;
    double got = hypot(re, im), ph = atan2(im, re), ph_want = carg(hs);
    printf("integrator at %g Hz: gain %.5f, |H_a| sinc^2 %.5f (ratio %.5f); phase %.3f deg, H_a %.3f deg\n", f, got,
           want, got / want, ph * 180 / M_PI, ph_want * 180 / M_PI);
    assert_true(fabs(got / want - 1) < 0.01);
    assert_true(fabs(remainder(ph - ph_want, 2 * M_PI)) < 0.5 * M_PI / 180);
}

/* Drive the ride at v over L of one class under every wheel. */
static void drive(double gd0, double w, double v, double L, uint64_t seed, sim_ride_stats *st)
{
    const double dt = 0.02;
    trv_ctx *ctx = trv_ctx_new();
    sim_ride *r = NULL;
    assert_int_equal(sim_ride_new(ctx, &UGV_Q, dt, 40 / 3.6, 1.9, seed, &r), TRV_OK);
    assert_int_equal(sim_ride_set_class(ctx, r, 2, gd0, w), TRV_OK);
    const int codes[4] = {2, 2, 2, 2};
    long steps = lround(L / (v * dt));
    for (long i = 0; i < steps; i++)
        sim_ride_step(r, v * dt, codes);
    sim_ride_get(r, st);
    sim_ride_free(r);
    trv_ctx_free(ctx);
}

/* w = 2, class E (4) at its geometric mean, 10 m/s over 20 km (2000 s),
 * seed 3: the RMS within 10 % of the closed form (measured 1-2 % below:
 * the band leaves out 0.02 % and the sums are Riemann sums). */
static void test_ride_rms_w2(void **state)
{
    (void)state;
    const double gd0 = tm_iso8608_gd(4), v = 10;
    sim_ride_stats st;
    drive(gd0, 2, v, 20000, 3, &st);
    double ref = tm_ride_rms_ms2(&UGV_Q, gd0, v);
    printf("w = 2: simulated RMS %.4f m/s^2, closed form %.4f (ratio %.4f); max %.3f, damper %.2f W per corner\n",
           st.rms_ms2, ref, st.rms_ms2 / ref, st.max_ms2, st.power_corner_W);
    assert_true(fabs(st.rms_ms2 / ref - 1) < 0.10);
    assert_true(st.max_ms2 > 2 * st.rms_ms2 && st.max_ms2 < 8 * st.rms_ms2);
    assert_true(st.power_corner_W > 0);
}

/* w = 1.6 (the bundled grassland, G_d(n0) 0.01194 m^3), 10 m/s over
 * 20 km, seed 5: the RMS within 10 % of the integral form,
 * sigma = a (v / v_a)^((w - 1) / 2) with v_a = tm_ride_speed_w_ms(.., a). */
static void test_ride_rms_w16(void **state)
{
    (void)state;
    const double gd0 = 0.01194, w = 1.6, v = 10;
    sim_ride_stats st;
    drive(gd0, w, v, 20000, 5, &st);
    double va = tm_ride_speed_w_ms(&UGV_Q, gd0, w, 1.0);
    double ref = pow(v / va, (w - 1) / 2);
    printf("w = 1.6: simulated RMS %.4f m/s^2, integral form %.4f (ratio %.4f)\n", st.rms_ms2, ref, st.rms_ms2 / ref);
    assert_true(fabs(st.rms_ms2 / ref - 1) < 0.10);
}

/* The same seed gives the same bits; another seed another profile. */
static void test_ride_seed(void **state)
{
    (void)state;
    sim_ride_stats a, b, c;
    drive(tm_iso8608_gd(4), 2, 8, 2000, 9, &a);
    drive(tm_iso8608_gd(4), 2, 8, 2000, 9, &b);
    drive(tm_iso8608_gd(4), 2, 8, 2000, 10, &c);
    assert_memory_equal(&a, &b, sizeof a);
    assert_true(a.max_ms2 != c.max_ms2);
}

/* A smooth class then a rough one: the road ramps over SIM_RIDE_BLEND_M,
 * and a wheel crossing back and forth on smooth ground feels nothing. */
static void test_ride_classes(void **state)
{
    (void)state;
    trv_ctx *ctx = trv_ctx_new();
    sim_ride *r = NULL;
    assert_int_equal(sim_ride_new(ctx, &UGV_Q, 0.02, 11, 1.9, 1, &r), TRV_OK);
    assert_int_equal(sim_ride_set_class(ctx, r, 3, tm_iso8608_gd(5), 2), TRV_OK);
    const int smooth[4] = {1, 1, 1, 1}, other[4] = {7, 7, 7, 7}, rough[4] = {3, 3, 3, 3};
    sim_ride_stats st;
    for (int i = 0; i < 500; i++)
        sim_ride_step(r, 0.2, i % 50 < 25 ? smooth : other);
    sim_ride_get(r, &st);
    assert_true(st.max_ms2 == 0);
    for (int i = 0; i < 5000; i++)
        sim_ride_step(r, 0.2, rough);
    sim_ride_get(r, &st);
    assert_true(st.rms_ms2 > 0);
    double ref = tm_ride_rms_ms2(&UGV_Q, tm_iso8608_gd(5), 10);
    /* no spike where the class changed: the largest acceleration within a
     * few RMS of the rough class's */
    assert_true(st.max_ms2 < 6 * ref);
    sim_ride_free(r);
    trv_ctx_free(ctx);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_integrator),  cmocka_unit_test(test_profile_psd), cmocka_unit_test(test_ride_rms_w2), cmocka_unit_test(test_ride_rms_w16),
        cmocka_unit_test(test_ride_seed),   cmocka_unit_test(test_ride_classes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
