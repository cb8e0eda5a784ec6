/* The NRMM mobility index and vehicle cone index (docs/method.md §2.1–2.3):
 * MI from the vehicle's contact, weight, clearance and engine factors, and
 * the one-pass / fifty-pass VCI curves of the MI (terramech.h). */
#include "terramech.h"

#include <math.h>
#include <string.h>

#define LB_PER_KG 2.2046226218
#define IN_PER_M (1.0 / 0.0254)
#define HP_PER_KW (1.0 / 0.745699872)

double tm_vci1_wheeled(double mi) { return mi <= 115 ? 11.48 + 0.2 * mi - 39.2 / (mi + 3.74) : 4.1 * pow(mi, 0.446); }
double tm_vci50_wheeled(double mi) { return 28.23 + 0.43 * mi - 92.67 / (mi + 3.67); }
double tm_vci1_tracked(double mi) { return 7.0 + 0.2 * mi - 39.2 / (mi + 5.6); }
double tm_vci50_tracked(double mi) { return 19.27 + 0.43 * mi - 125.79 / (mi + 7.08); }

/* NRMM's weight factor for wheeled vehicles, X = axle load in kips. Wong
 * prints 0.553 for the first branch (some reproductions say 0.533; 0.553
 * makes the branches meet at 2 kips: 1.106 vs 1.116). */
static double weight_factor_wheeled(double x)
{
    if (x < 2.0)
        return 0.553 * x;
    if (x <= 13.5)
        return 0.033 * x + 1.050;
    if (x <= 20.0)
        return 0.142 * x - 0.420;
    return 0.278 * x - 3.115;
}

void tm_vci_compute(const tm_vehicle *v, tm_vci *o)
{
    memset(o, 0, sizeof *o);
    double w_lb = v->gross_mass_kg * LB_PER_KG, w_kips = w_lb / 1000.0;
    double hp_per_ton = v->engine_power_kW * HP_PER_KW / (w_lb / 2000.0);
    double ef = hp_per_ton >= 10.0 ? 1.00 : 1.05, xf = v->manual ? 1.05 : 1.00;
    double cf = v->ground_clearance_m * IN_PER_M / 10.0;
    if (v->kind == TM_WHEELED) {
        double b = v->tyre_width_m * IN_PER_M, d = v->tyre_diameter_m * IN_PER_M;
        double cpf = w_lb / (v->tyres * b * (d / 2.0));
        double wf = weight_factor_wheeled(w_kips / v->axles);
        double tf = (10.0 + b) / 100.0, gf = v->chains ? 1.05 : 1.00;
        double wlf = w_kips / (2.0 * v->axles);
        o->mi = (cpf * wf / (tf * gf) + wlf - cf) * ef * xf;
        o->vci1_rci = tm_vci1_wheeled(o->mi);
        o->vci50_rci = tm_vci50_wheeled(o->mi);
    } else {
        double b = v->track_width_m * IN_PER_M, l = v->track_length_m * IN_PER_M;
        double cpf = w_lb / (2.0 * l * b);
        double wf = w_lb < 50000 ? 1.0 : w_lb < 70000 ? 1.2 : w_lb < 100000 ? 1.4 : 1.8;
        double trf = b / 100.0, gf = v->grouser_height_m * IN_PER_M >= 1.5 ? 1.1 : 1.0;
        double shoe_in2 = v->track_shoe_area_m2 * IN_PER_M * IN_PER_M;
        double bf = (w_lb / 10.0) / (v->road_wheels * shoe_in2);
        o->mi = (cpf * wf / (trf * gf) + bf - cf) * ef * xf;
        o->vci1_rci = tm_vci1_tracked(o->mi);
        o->vci50_rci = tm_vci50_tracked(o->mi);
    }
    o->vci1_overridden = !isnan(v->vci1_kPa);
    o->vci50_overridden = !isnan(v->vci50_kPa);
    o->vci1_kPa = o->vci1_overridden ? v->vci1_kPa : o->vci1_rci * TM_KPA_PER_RCI;
    o->vci50_kPa = o->vci50_overridden ? v->vci50_kPa : o->vci50_rci * TM_KPA_PER_RCI;
}
