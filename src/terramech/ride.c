/* Ride-limited speed (docs/method.md §2.10.2): ISO 8608:2016 road classes
 * (G_d(n) = G_d(n0) (n/n0)^-2, n0 = 0.1 cycles/m; class k = 0..7, A..H,
 * geometric mean 16e-6 4^k m^3, bounds 8e-6 4^k and 32e-6 4^k) and the
 * quarter car (Wong, Theory of Ground Vehicles, 4th ed. 2008, ch. 7, vehicle ride models):
 *   ms zs'' = -k (zs - zu) - c (zs' - zu')
 *   mu zu'' =  k (zs - zu) + c (zs' - zu') - kt (zu - zr)
 * With w = 2 the road's velocity zr' at speed v is white noise of one-sided
 * PSD G_u = 4 pi^2 n0^2 G_d(n0) v; from u = zr' to a = zs'' the transfer
 * function is kt s (c s + k) / D(s), D = ms mu s^4 + c (ms + mu) s^3
 * + (k (ms + mu) + kt ms) s^2 + c kt s + k kt, and the table integral of
 * order 4 (Newland, An Introduction to Random Vibrations, 3rd ed. 1993,
 * Appendix 1) gives the variance
 *   sigma^2 = pi^2 n0^2 G_d(n0) v (c^2 kt + k^2 (ms + mu)) / (c ms^2),
 * which the solution of the Lyapunov equation confirms. It is linear in v, so
 * the speed at which the RMS reaches a_lim is a_lim^2 / (sigma^2 / v).
 * Unweighted RMS of the sprung mass: not NRMM's 6 W absorbed power, not
 * ISO 2631-1's weighted seat acceleration (limits.h). */
#include "limits.h"

#include <complex.h>
#include <math.h>

double tm_iso8608_gd(int cls)
{
    return cls >= 0 && cls < TM_ISO8608_CLASSES ? 16e-6 * pow(4.0, cls) : NAN;
}

double tm_iso8608_lower(int cls)
{
    if (cls < 0 || cls >= TM_ISO8608_CLASSES)
        return NAN;
    return cls == 0 ? 0 : 8e-6 * pow(4.0, cls);
}

double tm_iso8608_upper(int cls)
{
    if (cls < 0 || cls >= TM_ISO8608_CLASSES)
        return NAN;
    return cls == TM_ISO8608_CLASSES - 1 ? INFINITY : 32e-6 * pow(4.0, cls);
}

int tm_iso8608_class(double gd_n0_m3)
{
    if (!(gd_n0_m3 >= 0))
        return -1;
    int cls = 0;
    while (cls < TM_ISO8608_CLASSES - 1 && gd_n0_m3 >= tm_iso8608_upper(cls))
        cls++;
    return cls;
}

double tm_ride_variance_per_speed(const tm_quarter_car *q, double gd_n0_m3)
{
    double ms = q->sprung_kg, mu = q->unsprung_kg, k = q->spring_N_per_m;
    double c = q->damper_Ns_per_m, kt = q->tyre_N_per_m, n0 = TM_ISO8608_N0;
    double body = (c * c * kt + k * k * (ms + mu)) / (c * ms * ms);
    return M_PI * M_PI * n0 * n0 * gd_n0_m3 * body;
}

double tm_ride_rms_ms2(const tm_quarter_car *q, double gd_n0_m3, double v_ms)
{
    return sqrt(tm_ride_variance_per_speed(q, gd_n0_m3) * v_ms);
}

double tm_ride_speed_ms(const tm_quarter_car *q, double gd_n0_m3, double a_limit_ms2)
{
    if (!(gd_n0_m3 > 0))
        return INFINITY;
    return a_limit_ms2 * a_limit_ms2 / tm_ride_variance_per_speed(q, gd_n0_m3);
}

double tm_ride_gain2(const tm_quarter_car *q, double f_hz)
{
    double ms = q->sprung_kg, mu = q->unsprung_kg, k = q->spring_N_per_m;
    double c = q->damper_Ns_per_m, kt = q->tyre_N_per_m;
    double complex s = I * 2.0 * M_PI * f_hz;
    double complex d = ms * mu * s * s * s * s + c * (ms + mu) * s * s * s + (k * (ms + mu) + kt * ms) * s * s +
                       c * kt * s + k * kt;
    double complex h = s * s * kt * (c * s + k) / d;
    return creal(h) * creal(h) + cimag(h) * cimag(h);
}

/* I_w: the integral of |H_a|^2 f^-w df as one over u = ln f of
 * |H_a|^2 f^(1-w), Simpson's rule on 8000 intervals over 1e-4..1e4 Hz. */
static double ride_integral(const tm_quarter_car *q, double w)
{
    const int n = 8000;
    double a = log(1e-4), b = log(1e4), h = (b - a) / n, sum = 0;
    for (int i = 0; i <= n; i++) {
        double f = exp(a + i * h), y = tm_ride_gain2(q, f) * pow(f, 1.0 - w);
        sum += (i == 0 || i == n ? 1 : i % 2 ? 4 : 2) * y;
    }
    return sum * h / 3.0;
}

double tm_ride_speed_w_ms(const tm_quarter_car *q, double gd_n0_m3, double w, double a_limit_ms2)
{
    if (!(w > 1 && w <= 3))
        return NAN;
    if (!(gd_n0_m3 > 0))
        return INFINITY;
    if (w == 2)
        return tm_ride_speed_ms(q, gd_n0_m3, a_limit_ms2);
    double per = gd_n0_m3 * pow(TM_ISO8608_N0, w) * ride_integral(q, w); /* sigma^2 / v^(w-1) */
    return pow(a_limit_ms2 * a_limit_ms2 / per, 1.0 / (w - 1.0));
}
