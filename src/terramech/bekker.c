/* The Bekker/Bakker tyre-soil contact (docs/method.md §2.4–2.6): rigid-wheel
 * and elastic-tyre sinkage, track sinkage, the compaction resistance, and the
 * Janosi–Hanamoto thrust at 100 % slip (terramech.h). */
#include "terramech.h"

#include <math.h>
#include <string.h>

/* B(a, 1/2) through log-gamma: exact to rounding */
static double beta_half(double a) { return exp(lgamma(a) + lgamma(0.5) - lgamma(a + 0.5)); }

double tm_rigid_load(double b, double k, double n, double D, double z0)
{
    return b * k * sqrt(D) * pow(z0, n + 0.5) * beta_half(n + 1.0) / 2.0;
}

/* Janosi-Hanamoto thrust at 100 % slip over a contact of area A and length L. */
static double thrust(const tm_soil *s, double area, double length, double load)
{
    double hmax = area * s->c_kPa + load * tan(s->phi_deg * M_PI / 180.0);
    double r = s->K_m / length;
    return hmax * (1.0 - r * (1.0 - exp(-1.0 / r)));
}

void tm_contact_compute(const tm_vehicle *v, const tm_soil *s, double load_kN, tm_contact *o)
{
    memset(o, 0, sizeof *o);
    o->thrust_kN = NAN;
    double n = s->n;
    if (v->kind == TM_TRACKED) {
        double b = v->track_width_m, l = v->track_length_m, k = s->kc / b + s->kphi;
        double p = load_kN / (2.0 * b * l);
        o->mode = TM_TRACK;
        o->sinkage_m = pow(p / k, 1.0 / n);
        o->resistance_kN = 2.0 * b * k * pow(o->sinkage_m, n + 1.0) / (n + 1.0);
        o->contact_length_m = l;
        o->p_gcr_kPa = p;
        if (s->has_shear)
            o->thrust_kN = thrust(s, 2.0 * b * l, l, load_kN);
        return;
    }
    double b = v->tyre_width_m, D = v->tyre_diameter_m, k = s->kc / b + s->kphi;
    double pt = v->inflation_pressure_kPa + v->carcass_pressure_kPa;
    /* rigid-wheel sinkage: invert W = b k sqrt(D) z0^(n+1/2) B(n+1, 1/2) / 2 */
    double z_rigid = pow(2.0 * load_kN / (b * k * sqrt(D) * beta_half(n + 1.0)), 2.0 / (2.0 * n + 1.0));
    o->p_gcr_kPa = k * pow(z_rigid, n);
    if (pt > o->p_gcr_kPa) {
        o->mode = TM_RIGID;
        o->sinkage_m = z_rigid;
        o->contact_length_m = sqrt(D * z_rigid); /* the arc's horizontal extent */
    } else {
        o->mode = TM_ELASTIC;
        o->sinkage_m = pow(pt / k, 1.0 / n);
        o->contact_length_m = load_kN / (b * pt); /* the flat part carries the load at p_i + p_c */
        double half = o->contact_length_m / 2.0, r = D / 2.0;
        o->deflection_m = half < r ? r - sqrt(r * r - half * half) : r;
    }
    o->resistance_kN = b * k * pow(o->sinkage_m, n + 1.0) / (n + 1.0);
    if (s->has_shear)
        o->thrust_kN = thrust(s, b * o->contact_length_m, o->contact_length_m, load_kN);
}
