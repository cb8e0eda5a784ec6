/* The modified Bessel function of the second kind K_nu(x), scaled by e^x,
 * for the Matern variogram model (variogram.c, docs/method.md §1.2): for
 * |mu| <= 1/2, Temme's series below x = 2 and Steed's continued fraction
 * (CF2) above, then upward recurrence K_(mu+j+1) = K_(mu+j-1) + 2 (mu+j)/x
 * K_(mu+j) to the order asked for. */
#include "krige_priv.h"

#include <float.h>
#include <math.h>

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

/* 1/Gamma(1 + m) = sum_j c[j] m^j, from 1/Gamma(z) = sum_k c_k z^k
 * (Abramowitz & Stegun 6.1.34); accurate to ~1e-16 for |m| <= 1/2. */
static const double rgamma_series[26] = {
    1.0000000000000000,  0.5772156649015329,  -0.6558780715202538, -0.0420026350340952, 0.1665386113822915,
    -0.0421977345555443, -0.0096219715278770, 0.0072189432466630,  -0.0011651675918591, -0.0002152416741149,
    0.0001280502823882,  -0.0000201348547807, -0.0000012504934821, 0.0000011330272320,  -0.0000002056338417,
    0.0000000061160950,  0.0000000050020075,  -0.0000000011812746, 0.0000000001043427,  0.0000000000077823,
    -0.0000000000036968, 0.0000000000005100,  -0.0000000000000206, -0.0000000000000054, 0.0000000000000014,
    0.0000000000000001,
};

/* Temme's series (J. Comp. Phys. 19, 1975) for K_mu(x), K_mu+1(x) with
 * |mu| <= 1/2 and 0 < x < 2, where the power series converges in a few
 * terms. The Gamma-function combinations come from the even and odd parts
 * of the 1/Gamma series, so that mu -> 0 needs no special case. */
static void bessel_k_temme(double mu, double x, double *k_mu, double *k_mu1)
{
    double even = 0.0, odd = 0.0, m2 = mu * mu;
    for (int j = 24; j >= 0; j -= 2) {
        even = even * m2 + rgamma_series[j];
        odd = odd * m2 + rgamma_series[j + 1];
    }
    double rg_plus = even + mu * odd;  /* 1/Gamma(1 + mu) */
    double rg_minus = even - mu * odd; /* 1/Gamma(1 - mu) */
    double gamma1 = -odd;              /* (1/Gamma(1-mu) - 1/Gamma(1+mu)) / (2 mu) */
    double gamma2 = even;              /* (1/Gamma(1-mu) + 1/Gamma(1+mu)) / 2 */

    double ln2x = log(2.0 / x);
    double sigma = mu * ln2x;
    double pimu = M_PI * mu;
    double pimu_over_sin = fabs(pimu) < DBL_EPSILON ? 1.0 : pimu / sin(pimu);
    double sinhc = fabs(sigma) < DBL_EPSILON ? 1.0 : sinh(sigma) / sigma;
    double pow2x = exp(sigma); /* (2/x)^mu */

    double f = pimu_over_sin * (gamma1 * cosh(sigma) + gamma2 * sinhc * ln2x);
    double p = 0.5 * pow2x / rg_plus;   /* (x/2)^-mu Gamma(1 + mu) / 2 */
    double q = 0.5 / (pow2x * rg_minus); /* (x/2)^mu Gamma(1 - mu) / 2 */
    double c = 1.0, quarter_x2 = 0.25 * x * x;
    double sum = f, sum1 = p;
    for (int k = 1; k < 1000; k++) {
        f = (k * f + p + q) / (k * k - m2);
        p /= k - mu;
        q /= k + mu;
        c *= quarter_x2 / k;
        double term = c * f;
        sum += term;
        sum1 += c * (p - k * f);
        if (fabs(term) < 0.5 * DBL_EPSILON * fabs(sum))
            break;
    }
    *k_mu = sum;
    *k_mu1 = 2.0 * sum1 / x;
}

/* Steed's evaluation of Temme's continued fraction CF2 (Thompson & Barnett,
 * J. Comp. Phys. 64, 1986) for e^x K_mu(x), e^x K_mu+1(x), |mu| <= 1/2,
 * x >= 2: the fraction and the normalising sum converge together, faster
 * the larger x is. Scaled by e^x so that large x does not underflow. */
static void bessel_k_steed(double mu, double x, double *k_mu, double *k_mu1)
{
    double a1 = 0.25 - mu * mu;
    double b = 2.0 * (1.0 + x);
    double d = 1.0 / b;
    double delta_h = d, h = d;
    double q_prev = 0.0, q_cur = 1.0; /* the recurrence for the normalisation */
    double c = a1, q_sum = a1;
    double a = -a1;
    double s = 1.0 + q_sum * delta_h;
    for (int i = 2; i < 100000; i++) {
        a -= 2.0 * (i - 1);
        c = -a * c / i;
        double q_next = (q_prev - b * q_cur) / a;
        q_prev = q_cur;
        q_cur = q_next;
        q_sum += c * q_next;
        b += 2.0;
        d = 1.0 / (b + a * d);
        delta_h = (b * d - 1.0) * delta_h;
        h += delta_h;
        double delta_s = q_sum * delta_h;
        s += delta_s;
        if (fabs(delta_s) < 0.5 * DBL_EPSILON * fabs(s))
            break;
    }
    h *= a1;
    *k_mu = sqrt(M_PI / (2.0 * x)) / s;
    *k_mu1 = *k_mu * (mu + x + 0.5 - h) / x;
}

/* e^x K_nu(x) for real nu, x > 0. K_nu is even in nu; orders above 1/2 come
 * from upward recurrence, which is stable for K. Declared in krige_priv.h
 * (the Matern model in variogram.c and the tests call it). */
double krg_bessel_k_scaled(double nu, double x)
{
    if (!(x > 0.0) || isnan(nu))
        return NAN;
    nu = fabs(nu);
    int n = (int)floor(nu + 0.5);
    double mu = nu - n; /* in [-1/2, 1/2) */
    double k_lo, k_hi;
    if (x < 2.0) {
        bessel_k_temme(mu, x, &k_lo, &k_hi);
        double ex = exp(x);
        k_lo *= ex;
        k_hi *= ex;
    } else {
        bessel_k_steed(mu, x, &k_lo, &k_hi);
    }
    for (int j = 1; j <= n; j++) {
        double k_next = k_lo + 2.0 * (mu + j) / x * k_hi;
        k_lo = k_hi;
        k_hi = k_next;
    }
    return k_lo;
}
