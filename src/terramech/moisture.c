/* Soil strength as a function of moisture: the moisture table read and
 * checked, the interpolation between its rows and the soils replaced by
 * their values at a moisture or a named condition (moisture.h). */
#include "terramech/moisture.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char *const COLS[TM_MP_COUNT] = {"n", "kc", "kphi", "ci_kPa", "c_kPa", "phi_deg", "K_m"};
/* the parameters interpolated in log space (moisture.h) */
static int is_log(int k)
{
    return k == TM_MP_KC || k == TM_MP_KPHI || k == TM_MP_CI;
}

void tm_moisture_free(tm_moisture *t)
{
    if (!t)
        return;
    for (int i = 0; i < t->n; i++)
        free(t->r[i].name);
    free(t->r);
    free(t->path);
    free(t);
}

static int row_cmp(const void *a, const void *b)
{
    const tm_moist_row *x = a, *y = b;
    if (x->code != y->code)
        return x->code < y->code ? -1 : 1;
    return x->pct < y->pct ? -1 : x->pct > y->pct;
}

/* "dry;normal" -> TM_COND_* bits; 0 with an unknown name. */
static int cond_parse(const char *s, unsigned *bits)
{
    static const char *const names[3] = {"dry", "normal", "wet"};
    *bits = 0;
    while (*s) {
        size_t len = strcspn(s, ";");
        int k = 0;
        while (k < 3 && !(strlen(names[k]) == len && strncmp(s, names[k], len) == 0))
            k++;
        if (k == 3)
            return 0;
        *bits |= 1u << k;
        s += len + (s[len] == ';');
    }
    return 1;
}

/* One row: its cells parsed and range-checked. */
static trv_status row_read(trv_ctx *ctx, const trv_csv *csv, size_t r, const int *col, tm_moist_row *out)
{
    const char *path = trv_csv_path(csv);
    long line = trv_csv_line(csv, r);
    double code;
    trv_status st;
    if ((st = trv_csv_double(ctx, csv, r, col[0], &code)) || (st = trv_csv_double(ctx, csv, r, col[2], &out->pct)))
        return st;
    for (int k = 0; k < TM_MP_COUNT; k++)
        if ((st = trv_csv_double(ctx, csv, r, col[4 + k], &out->v[k])))
            return st;
    const double *v = out->v;
    if (code != floor(code) || code < 1 || code > 254)
        return trv_error(ctx, TRV_ERR_DATA, "%s:%ld: code must be an integer from 1 to 254", path, line);
    out->code = (int)code;
    if (!(out->pct >= 0 && out->pct <= 100))
        return trv_error(ctx, TRV_ERR_DATA, "%s:%ld: moisture_pct must be from 0 to 100", path, line);
    if (!cond_parse(trv_csv_cell(csv, r, col[3]), &out->cond))
        return trv_error(ctx, TRV_ERR_DATA, "%s:%ld: condition '%s': names are dry, normal, wet joined by ';'", path,
                         line, trv_csv_cell(csv, r, col[3]));
    if (!(v[TM_MP_N] > 0 && v[TM_MP_N] <= 3) || !(v[TM_MP_KC] > 0) || !(v[TM_MP_KPHI] > 0) || !(v[TM_MP_CI] > 0) ||
        !(v[TM_MP_C] >= 0) || !(v[TM_MP_PHI] >= 0 && v[TM_MP_PHI] < 90) || !(v[TM_MP_K] > 0))
        return trv_error(ctx, TRV_ERR_DATA,
                         "%s:%ld: needs 0 < n <= 3, kc, kphi, ci_kPa > 0 (interpolated in log space), c_kPa >= 0, "
                         "0 <= phi_deg < 90, K_m > 0", path, line);
    if (!(out->name = strdup(trv_csv_cell(csv, r, col[1]))))
        return trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
    return TRV_OK;
}

/* A soil's rows: one name, distinct moistures, each condition once. */
static trv_status rows_check(trv_ctx *ctx, const tm_moisture *t, int a, int b)
{
    unsigned seen = 0;
    for (int i = a; i < b; i++) {
        if (strcmp(t->r[i].name, t->r[a].name) != 0)
            return trv_error(ctx, TRV_ERR_DATA, "%s: soil code %d is named both '%s' and '%s'", t->path, t->r[a].code,
                             t->r[a].name, t->r[i].name);
        if (i > a && t->r[i].pct == t->r[i - 1].pct)
            return trv_error(ctx, TRV_ERR_DATA, "%s: soil '%s' (code %d) has %g %% moisture twice", t->path,
                             t->r[a].name, t->r[a].code, t->r[i].pct);
        if (seen & t->r[i].cond)
            return trv_error(ctx, TRV_ERR_DATA, "%s: soil '%s' (code %d) names a condition twice", t->path,
                             t->r[a].name, t->r[a].code);
        seen |= t->r[i].cond;
    }
    if (seen != (TM_COND_DRY | TM_COND_NORMAL | TM_COND_WET))
        return trv_error(ctx, TRV_ERR_DATA, "%s: soil '%s' (code %d) needs one row each named dry, normal and wet",
                         t->path, t->r[a].name, t->r[a].code);
    return TRV_OK;
}

trv_status tm_moisture_read(trv_ctx *ctx, const char *path, tm_moisture **out)
{
    static const char *const head[4] = {"code", "name", "moisture_pct", "condition"};
    *out = NULL;
    trv_csv *csv = NULL;
    trv_status st = trv_csv_read(ctx, path, &csv);
    int col[4 + TM_MP_COUNT];
    for (int k = 0; k < 4 + TM_MP_COUNT && !st; k++)
        st = trv_csv_require(ctx, csv, k < 4 ? head[k] : COLS[k - 4], &col[k]);
    tm_moisture *t = st ? NULL : calloc(1, sizeof *t);
    size_t nr = st ? 0 : trv_csv_nrows(csv);
    if (!st && (!t || !(t->path = strdup(path)) || !(t->r = calloc(nr ? nr : 1, sizeof *t->r))))
        st = trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
    if (!st && nr == 0)
        st = trv_error(ctx, TRV_ERR_DATA, "%s: no rows", path);
    for (size_t r = 0; r < nr && !st; r++, t->n++)
        st = row_read(ctx, csv, r, col, &t->r[r]);
    if (!st)
        qsort(t->r, (size_t)t->n, sizeof *t->r, row_cmp);
    for (int a = 0, b; !st && a < t->n; a = b) {
        for (b = a; b < t->n && t->r[b].code == t->r[a].code; b++)
            ;
        st = rows_check(ctx, t, a, b);
    }
    trv_csv_free(csv);
    if (st)
        tm_moisture_free(t);
    else
        *out = t;
    return st;
}

/* The rows of code: [*a, *b). */
static void rows_of(const tm_moisture *t, int code, int *a, int *b)
{
    for (*a = 0; *a < t->n && t->r[*a].code != code; (*a)++)
        ;
    for (*b = *a; *b < t->n && t->r[*b].code == code; (*b)++)
        ;
}

static void soil_get(const tm_soil *s, double v[TM_MP_COUNT])
{
    const double x[TM_MP_COUNT] = {s->n, s->kc, s->kphi, s->ci_kPa, s->c_kPa, s->phi_deg, s->K_m};
    memcpy(v, x, sizeof x);
}

static void soil_set(tm_soil *s, const double v[TM_MP_COUNT])
{
    s->n = v[TM_MP_N];
    s->kc = v[TM_MP_KC];
    s->kphi = v[TM_MP_KPHI];
    s->ci_kPa = v[TM_MP_CI];
    if (s->has_shear) {
        s->c_kPa = v[TM_MP_C];
        s->phi_deg = v[TM_MP_PHI];
        s->K_m = v[TM_MP_K];
    }
}

/* The soil table's row of s and the moisture table's rows [a, b) agree:
 * one name; the row named normal holds the soil table's values. */
static trv_status rows_match(trv_ctx *ctx, const tm_moisture *t, const tm_soil *s, double base_pct, int a, int b)
{
    if (strcmp(t->r[a].name, s->name) != 0)
        return trv_error(ctx, TRV_ERR_DATA, "%s: code %d is '%s', the soil table's '%s': a moisture table for another "
                         "soil table? (--moisture-table)", t->path, s->code, t->r[a].name, s->name);
    int i = a;
    while (i + 1 < b && !(t->r[i].cond & TM_COND_NORMAL))
        i++;
    double v[TM_MP_COUNT];
    soil_get(s, v);
    for (int k = 0; k < (s->has_shear ? TM_MP_COUNT : TM_MP_C); k++)
        if (fabs(v[k] - t->r[i].v[k]) > 1e-9 * fabs(v[k]))
            return trv_error(ctx, TRV_ERR_DATA, "%s: soil '%s' (code %d): the row named normal has %s = %g, the soil "
                             "table %g", t->path, s->name, s->code, COLS[k], t->r[i].v[k], v[k]);
    if (!isnan(base_pct) && base_pct != t->r[i].pct)
        return trv_error(ctx, TRV_ERR_DATA, "%s: soil '%s' (code %d): the row named normal is at %g %% moisture, the "
                         "soil table at %g %%", t->path, s->name, s->code, t->r[i].pct, base_pct);
    return TRV_OK;
}

/* The values between rows x (t = 0) and y (t = 1). */
static void interpolate(const tm_moist_row *x, const tm_moist_row *y, double t, double v[TM_MP_COUNT])
{
    for (int k = 0; k < TM_MP_COUNT; k++)
        v[k] = is_log(k) ? exp(log(x->v[k]) + t * (log(y->v[k]) - log(x->v[k]))) : x->v[k] + t * (y->v[k] - x->v[k]);
}

/* pct outside [lo, hi] without clamp: the error naming the soil's range. */
static trv_status out_of_range(trv_ctx *ctx, const tm_soil *s, double lo, double hi, double pct, const char *path)
{
    if (isnan(lo))
        return trv_error(ctx, TRV_ERR_DATA, "moisture %g %%: soil '%s' (code %d) has no tabulated moisture (no rows in "
                         "%s, no moisture_pct in the soil table); --clamp-moisture keeps its values", pct, s->name,
                         s->code, path);
    if (lo == hi)
        return trv_error(ctx, TRV_ERR_DATA, "moisture %g %%: soil '%s' (code %d) is tabulated at %g %% only (%s); "
                         "--clamp-moisture uses that", pct, s->name, s->code, lo, path);
    return trv_error(ctx, TRV_ERR_DATA, "moisture %g %%: soil '%s' (code %d) is tabulated from %g to %g %% (%s); "
                     "--clamp-moisture uses the nearest end", pct, s->name, s->code, lo, hi, path);
}

trv_status tm_moisture_soil_at(trv_ctx *ctx, const tm_moisture *t, const tm_soil *s, double base_pct, double pct,
                               int clamp, tm_soil *out, double *used, int *clamped)
{
    int a, b;
    rows_of(t, s->code, &a, &b);
    *out = *s;
    *clamped = 0;
    trv_status st = a < b ? rows_match(ctx, t, s, base_pct, a, b) : TRV_OK;
    double lo = a < b ? t->r[a].pct : base_pct, hi = a < b ? t->r[b - 1].pct : base_pct;
    if (st)
        return st;
    if (!(pct >= lo && pct <= hi)) {
        if (!clamp)
            return out_of_range(ctx, s, lo, hi, pct, t->path);
        *clamped = 1;
        pct = isnan(lo) ? NAN : pct < lo ? lo : hi;
    }
    *used = pct;
    if (a == b)
        return TRV_OK; /* one moisture: the soil table's values */
    int i = a;
    while (i + 1 < b && t->r[i + 1].pct <= pct)
        i++;
    double v[TM_MP_COUNT];
    if (i + 1 == b || pct == t->r[i].pct) /* a tabulated moisture: its values exactly */
        memcpy(v, t->r[i].v, sizeof v);
    else
        interpolate(&t->r[i], &t->r[i + 1], (pct - t->r[i].pct) / (t->r[i + 1].pct - t->r[i].pct), v);
    soil_set(out, v);
    return TRV_OK;
}

trv_status tm_moisture_soil_condition(trv_ctx *ctx, const tm_moisture *t, const tm_soil *s, double base_pct,
                                      unsigned cond, tm_soil *out, double *pct)
{
    int a, b;
    rows_of(t, s->code, &a, &b);
    *out = *s;
    *pct = base_pct;
    trv_status st = a < b ? rows_match(ctx, t, s, base_pct, a, b) : TRV_OK;
    for (int i = a; i < b && !st; i++)
        if (t->r[i].cond & cond) {
            soil_set(out, t->r[i].v);
            *pct = t->r[i].pct;
        }
    return st;
}
