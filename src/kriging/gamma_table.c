/* The semivariance tabulated for the right-hand sides of block kriging
 * (krige_priv.h krg_gtab; docs/method.md §1.7): piecewise cubic Hermite
 * through gamma and its derivative at knots every range / KNOTS. */
#include "krige_priv.h"

#include <math.h>
#include <stdlib.h>

enum { KNOTS = 256, MAX_INTERVALS = 8192 };

/* d f / d r of the unit model f (krg_gamma = nugget + psill f(h / range));
 * 1 and *df set for the models with a closed form, else 0. */
static int unit_slope(const krg_model *m, double r, double *df)
{
    switch (m->type) {
    case KRG_SPH:
        *df = r < 1 ? 1.5 * (1 - r * r) : 0;
        return 1;
    case KRG_EXP:
        *df = exp(-r);
        return 1;
    case KRG_GAU:
        *df = 2 * r * exp(-r * r);
        return 1;
    case KRG_MAT:
        if (m->kappa == 0.5)
            *df = exp(-r);
        else if (m->kappa == 1.5)
            *df = r * exp(-r);
        else if (m->kappa == 2.5)
            *df = r * (1 + r) / 3 * exp(-r);
        else
            return 0;
        return 1;
    default:
        return 0;
    }
}

void krg_gtab_free(krg_gtab *t)
{
    free(t->c);
    t->c = NULL;
    t->n = 0;
}

trv_status krg_gtab_init(trv_ctx *ctx, krg_gtab *t, const krg_model *m, double hmax)
{
    *t = (krg_gtab){.m = m};
    double df;
    if (!(m->range > 0) || !(hmax > 0) || !unit_slope(m, 0, &df))
        return TRV_OK; /* no table: krg_gamma itself */
    double n = ceil(hmax / m->range * KNOTS);
    t->n = n < 1 ? 1 : n > MAX_INTERVALS ? MAX_INTERVALS : (int)n;
    t->c = malloc((size_t)t->n * 4 * sizeof *t->c);
    if (!t->c)
        return trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
    t->inv_d = KNOTS / m->range;
    /* value and slope (per interval: d gamma / d u, u in [0, 1]) at each knot;
     * knot 0 is the limit h -> 0+, the nugget */
    double p0 = m->nugget, s0;
    unit_slope(m, 0, &s0);
    s0 *= m->psill / KNOTS;
    for (int k = 0; k < t->n; k++) {
        double r1 = (double)(k + 1) / KNOTS, s1;
        double p1 = krg_gamma(m, r1 * m->range);
        unit_slope(m, r1, &s1);
        s1 *= m->psill / KNOTS;
        double *c = t->c + 4 * (size_t)k;
        c[0] = p0;
        c[1] = s0;
        c[2] = 3 * (p1 - p0) - 2 * s0 - s1;
        c[3] = 2 * (p0 - p1) + s0 + s1;
        p0 = p1;
        s0 = s1;
    }
    return TRV_OK;
}
