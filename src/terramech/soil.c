/* Soil tables: the soil CSV read into tm_soils (the tyre-soil contact that
 * uses them is in bekker.c). */
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
        if (!st && (st = trv_csv_number(ctx, csv->csv, r, "rolling_resistance_coeff", 0, 1, 1, NAN, &s->rolling_coeff)))
            break;
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
