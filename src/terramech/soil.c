/* Soil tables and the Bekker/Bakker tyre-soil contact (docs/method.md §2.4). */
#include "terramech.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void tm_soils_free(tm_soils *s)
{
    if (!s)
        return;
    for (int i = 0; i < s->n; i++)
        free(s->s[i].name);
    free(s->s);
    free(s->path);
    free(s);
}

trv_status tm_soils_read(trv_ctx *ctx, const char *path, tm_soils **out)
{
    *out = NULL;
    static const char *const need[] = {"name", "n", "kc", "kphi", "ci_kPa", NULL};
    static const char *const opt[3] = {"c_kPa", "phi_deg", "K_m"};
    geo_class_csv *csv = NULL;
    trv_status st = geo_class_csv_read(ctx, path, "soil", need, &csv);
    if (st)
        return st;
    const int *col = csv->col; /* name, n, kc, kphi, ci_kPa */
    tm_soils *t = calloc(1, sizeof *t);
    int shear[3], nshear = 0;
    if (!t || !(t->path = strdup(path)) || !(t->s = calloc(csv->n, sizeof *t->s))) {
        st = trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
        goto done;
    }
    for (int k = 0; k < 3; k++)
        nshear += (shear[k] = trv_csv_col(csv->csv, opt[k])) >= 0;
    if (nshear != 0 && nshear != 3)
        st = trv_error(ctx, TRV_ERR_FORMAT, "%s: the traction columns c_kPa, phi_deg and K_m go together", path);
    for (size_t r = 0; r < csv->n && !st; r++) {
        tm_soil *s = &t->s[t->n];
        long line = trv_csv_line(csv->csv, r);
        if ((st = trv_csv_double(ctx, csv->csv, r, col[1], &s->n)) ||
            (st = trv_csv_double(ctx, csv->csv, r, col[2], &s->kc)) ||
            (st = trv_csv_double(ctx, csv->csv, r, col[3], &s->kphi)) ||
            (st = trv_csv_double(ctx, csv->csv, r, col[4], &s->ci_kPa)))
            break;
        if (!(s->n > 0 && s->n <= 3) || s->kc < 0 || s->kphi < 0 || s->kc + s->kphi <= 0 || s->ci_kPa < 0)
            st = trv_error(ctx, TRV_ERR_DATA, "%s:%ld: soil '%s' needs 0 < n <= 3, kc, kphi >= 0 (not both 0), ci_kPa >= 0",
                           path, line, trv_csv_cell(csv->csv, r, col[0]));
        if (!st && nshear == 3) {
            if ((st = trv_csv_double(ctx, csv->csv, r, shear[0], &s->c_kPa)) ||
                (st = trv_csv_double(ctx, csv->csv, r, shear[1], &s->phi_deg)) ||
                (st = trv_csv_double(ctx, csv->csv, r, shear[2], &s->K_m)))
                break;
            if (s->c_kPa < 0 || s->phi_deg < 0 || s->phi_deg >= 90 || s->K_m <= 0)
                st = trv_error(ctx, TRV_ERR_DATA, "%s:%ld: needs c_kPa >= 0, 0 <= phi_deg < 90, K_m > 0", path, line);
            s->has_shear = 1;
        }
        if (st)
            break;
        s->code = csv->code[r];
        if (!(s->name = strdup(trv_csv_cell(csv->csv, r, col[0])))) {
            st = trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
            break;
        }
        t->n++;
    }
done:
    geo_class_csv_free(csv);
    if (st)
        tm_soils_free(t);
    else
        *out = t;
    return st;
}

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
