/* The moisture options of trv-speed: the soils replaced by their values at
 * a moisture, in a named condition or at a raster's moisture, and the soil
 * table written back as used (speed_soils.csv) (moisture.h). */
#include "terramech/moisture.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The soil table's own moisture_pct per code (NAN: none or empty). */
static trv_status base_moistures(trv_ctx *ctx, const char *path, double pct[256])
{
    for (int c = 0; c < 256; c++)
        pct[c] = NAN;
    trv_csv *csv = NULL;
    trv_status st = trv_csv_read(ctx, path, &csv);
    int cc = st ? -1 : trv_csv_col(csv, "code");
    for (size_t r = 0; !st && cc >= 0 && r < trv_csv_nrows(csv); r++) {
        int code = atoi(trv_csv_cell(csv, r, cc));
        if (code >= 0 && code < 256)
            st = trv_csv_number(ctx, csv, r, "moisture_pct", 0, 0, 100, NAN, &pct[code]);
    }
    trv_csv_free(csv);
    return st;
}

static unsigned cond_bit(const char *c)
{
    return strcmp(c, "dry") == 0 ? TM_COND_DRY : strcmp(c, "wet") == 0 ? TM_COND_WET : TM_COND_NORMAL;
}

/* Every soil at one moisture (pct) or in one condition (cond != 0). */
static trv_status soils_set(trv_ctx *ctx, const tm_moisture *t, tm_soils *soils, const double base[256],
                            double pct, unsigned cond, int clamp, tm_moisture_used *u)
{
    trv_status st = TRV_OK;
    for (int i = 0; i < soils->n && !st; i++) {
        tm_soil *s = &soils->s[i], v;
        if (cond)
            st = tm_moisture_soil_condition(ctx, t, s, base[s->code], cond, &v, &u->soil_pct[s->code]);
        else
            st = tm_moisture_soil_at(ctx, t, s, base[s->code], pct, clamp, &v, &u->soil_pct[s->code],
                                     &u->clamped[s->code]);
        if (!st)
            *s = v;
    }
    return st;
}

/* Every soil at its median moisture over its cells of the raster. */
static trv_status soils_raster(trv_ctx *ctx, const tm_moisture *t, tm_soils *soils, const double base[256],
                               const char *dir, int clamp, tm_moisture_used *u)
{
    double med[256];
    size_t present[256];
    trv_status st = tm_moisture_raster(ctx, u->opts.raster, dir, &u->map, med, u->raster_cells, present);
    for (int i = 0; i < soils->n && !st; i++) {
        tm_soil *s = &soils->s[i], v;
        if (!present[s->code])
            continue; /* not on the map: its values do not matter */
        if (isnan(med[s->code]))
            return trv_error(ctx, TRV_ERR_DATA, "the moisture raster '%s' covers none of the %zu cells of soil '%s' "
                             "(code %d)", u->opts.raster, present[s->code], s->name, s->code);
        st = tm_moisture_soil_at(ctx, t, s, base[s->code], med[s->code], clamp, &v, &u->soil_pct[s->code],
                                 &u->clamped[s->code]);
        if (!st)
            *s = v;
    }
    return st;
}

trv_status tm_moisture_apply(trv_ctx *ctx, const tm_moisture_opts *o, const char *dir, tm_soils *soils,
                             tm_moisture_used *u)
{
    memset(u, 0, sizeof *u);
    for (int c = 0; c < 256; c++)
        u->soil_pct[c] = NAN;
    u->opts = *o;
    if (isnan(o->pct) && !o->condition && !o->raster)
        return TRV_OK;
    u->active = 1;
    snprintf(u->mode, sizeof u->mode, "%s", o->condition ? "condition" : o->raster ? "raster" : "moisture");
    tm_moisture *t = NULL;
    double base[256];
    trv_status st = o->table ? ((u->table = strdup(o->table)) ? TRV_OK : trv_error(ctx, TRV_ERR_NOMEM, "out of memory"))
                             : (u->table = trv_data_path(ctx, TM_MOISTURE_TABLE)) ? TRV_OK : TRV_ERR_IO;
    if (!st && !(st = tm_moisture_read(ctx, u->table, &t)) && !(st = base_moistures(ctx, soils->path, base))) {
        if (o->raster)
            st = soils_raster(ctx, t, soils, base, dir, o->clamp, u);
        else
            st = soils_set(ctx, t, soils, base, o->pct, o->condition ? cond_bit(o->condition) : 0, o->clamp, u);
    }
    tm_moisture_free(t);
    return st;
}

void tm_moisture_used_clear(tm_moisture_used *u)
{
    free(u->table);
    u->table = NULL;
    geo_raster_free(u->map);
    u->map = NULL;
}

/* One CSV cell after a comma unless first (trv_csv_put). */
static void cell_put(FILE *f, const char *c, int first)
{
    if (!first)
        fputc(',', f);
    trv_csv_put(f, c);
}

/* The value in force for column name of soil s as text: the table's own
 * cell when it reads back to the same number, else 17 digits (exact). */
static void value_put(FILE *f, const char *cell, double v)
{
    char *end;
    double was = strtod(cell, &end);
    if (*cell && !*end && was == v)
        cell_put(f, cell, 0);
    else if (isnan(v))
        fputc(',', f);
    else
        fprintf(f, ",%.17g", v);
}

static const tm_soil *soil_of(const tm_soils *soils, int code)
{
    for (int i = 0; i < soils->n; i++)
        if (soils->s[i].code == code)
            return &soils->s[i];
    return NULL;
}

/* One data row: the table's cells, the values in force in their columns. */
static void row_put(FILE *f, const trv_csv *csv, size_t r, const tm_soil *s, const tm_moisture_used *u, int mcol)
{
    static const char *const cols[8] = {"n", "kc", "kphi", "ci_kPa", "c_kPa", "phi_deg", "K_m", "moisture_pct"};
    const double v[8] = {s->n, s->kc, s->kphi, s->ci_kPa, s->c_kPa, s->phi_deg, s->K_m, u->soil_pct[s->code]};
    int nc = trv_csv_ncols(csv);
    for (int c = 0; c < nc; c++) {
        const char *h = trv_csv_header(csv, c);
        int k = 0;
        while (k < 8 && (strcmp(h, cols[k]) != 0 || (k >= 4 && k < 7 && !s->has_shear)))
            k++;
        if (k < 8)
            value_put(f, trv_csv_cell(csv, r, c), v[k]);
        else
            cell_put(f, trv_csv_cell(csv, r, c), c == 0);
    }
    if (mcol < 0)
        value_put(f, "", v[7]);
    fputc('\n', f);
}

trv_status tm_moisture_soils_write(trv_ctx *ctx, trv_outset *set, const tm_soils *soils, const tm_moisture_used *u,
                                   const char *path)
{
    trv_csv *csv = NULL;
    trv_status st = trv_csv_read(ctx, soils->path, &csv);
    const char *tmp = st ? NULL : trv_outset_add(set, path);
    FILE *f = tmp ? fopen(tmp, "w") : NULL;
    if (!st && !tmp)
        st = trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
    else if (!st && !f)
        st = trv_error(ctx, TRV_ERR_IO, "cannot write '%s'", path);
    int mcol = st ? 0 : trv_csv_col(csv, "moisture_pct"), cc = st ? 0 : trv_csv_col(csv, "code");
    for (int c = 0; !st && c < trv_csv_ncols(csv); c++)
        cell_put(f, trv_csv_header(csv, c), c == 0);
    if (!st)
        fputs(mcol < 0 ? ",moisture_pct\n" : "\n", f);
    for (size_t r = 0; !st && r < trv_csv_nrows(csv); r++) {
        const tm_soil *s = soil_of(soils, atoi(trv_csv_cell(csv, r, cc)));
        if (s)
            row_put(f, csv, r, s, u, mcol);
    }
    if (f && fclose(f) != 0 && !st)
        st = trv_error(ctx, TRV_ERR_IO, "cannot write '%s'", path);
    trv_csv_free(csv);
    return st;
}
