/* Per-soil precomputation, the trv-speed stage, the report (the row kernel
 * and the speed are in speed.c). */
#include "terramech.h"
#include "run/run.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define G 9.80665

trv_status tm_model_init(trv_ctx *ctx, tm_model *m, const tm_vehicle *v, const tm_soils *soils,
                         const char *landuse_csv)
{
    memset(m, 0, sizeof *m);
    m->v = v;
    tm_vci_compute(v, &m->vci);
    m->weight_kN = v->gross_mass_kg * G / 1000.0;
    m->max_slope_deg = fmin(v->max_pitch_deg, v->max_roll_deg);
    m->traction = soils->n > 0;
    for (int c = 0; c < 256; c++) {
        m->soil_index[c] = -1;
        m->landuse_nogo[c] = 2;
    }
    for (int i = 0; i < soils->n; i++) {
        const tm_soil *s = &soils->s[i];
        int c = s->code;
        m->soil_index[c] = i;
        m->ci_kPa[c] = s->ci_kPa;
        double load = v->kind == TM_WHEELED ? v->tyre_load_N / 1000.0 : m->weight_kN;
        tm_contact_compute(v, s, load, &m->contact[c]);
        int units = v->kind == TM_WHEELED ? v->tyres : 1; /* tracks: the contact is both tracks */
        m->resistance_total_kN[c] = units * m->contact[c].resistance_kN;
        m->thrust_total_kN[c] = units * m->contact[c].thrust_kN;
        m->traction &= s->has_shear;
    }
    static const char *const cols[] = {"nogo", NULL};
    geo_class_csv *lu = NULL;
    trv_status st = geo_class_csv_read(ctx, landuse_csv, "land-use class", cols, &lu);
    for (size_t r = 0; !st && r < lu->n; r++) {
        const char *ng = trv_csv_cell(lu->csv, r, lu->col[0]);
        if (strcmp(ng, "yes") && strcmp(ng, "no"))
            st = trv_error(ctx, TRV_ERR_FORMAT, "%s:%ld: nogo must be yes or no, not '%s'", landuse_csv,
                           trv_csv_line(lu->csv, r), ng);
        else
            m->landuse_nogo[lu->code[r]] = !strcmp(ng, "yes");
    }
    geo_class_csv_free(lu);
    return st;
}

/* ---- the stage -------------------------------------------------------------- */

static const geo_class REASONS[6] = {
    {0, "GO", {46, 160, 67}},          {1, "NOGO: slope", {230, 97, 1}},
    {2, "NOGO: soil strength (CI < VCI1)", {140, 81, 10}}, {3, "NOGO: land use", {33, 102, 172}},
    {4, "NOGO: traction", {178, 24, 43}}, {5, "no data", {150, 150, 150}},
};

/* Codes present in a class layer that a table does not know. */
static trv_status check_codes(trv_ctx *ctx, const geo_raster *r, const char *file, const char *what,
                              const char *table, const int *known_soil, const unsigned char *known_lu)
{
    char seen[256] = {0};
    size_t n = (size_t)r->grid.nx * r->grid.ny;
    for (size_t i = 0; i < n; i++)
        seen[r->u8[i]] = 1;
    for (int c = 1; c < 256; c++) {
        if (!seen[c])
            continue;
        int unknown = known_soil ? known_soil[c] < 0 : known_lu[c] == 2;
        if (unknown)
            return trv_error(ctx, TRV_ERR_DATA, "'%s': %s class %d is not in the table '%s'", file, what, c, table);
    }
    return TRV_OK;
}

trv_status tm_run(trv_ctx *ctx, trv_outset *set, const tm_model *m, const char *dir, const trv_meta *meta,
                  tm_stats *stats)
{
    memset(stats, 0, sizeof *stats);
    static const run_id which[3] = {RUN_SLOPE, RUN_SOIL, RUN_LANDUSE};
    run_stack in;
    char *pv = run_path(dir, RUN_SPEED), *pg = run_path(dir, RUN_GONOGO);
    geo_raster *speed = NULL, *go = NULL;
    trv_status st = TRV_OK;
    memset(&in, 0, sizeof in);
    if (!pv || !pg) {
        st = trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
        goto done;
    }
    if ((st = run_load(ctx, dir, which, 3, NULL, &in)))
        goto done;
    const geo_raster *slope = in.layer[RUN_SLOPE], *soil = in.layer[RUN_SOIL], *lu = in.layer[RUN_LANDUSE];
    if ((st = check_codes(ctx, soil, in.path[RUN_SOIL], "soil", "the soil table", m->soil_index, NULL)) ||
        (st = check_codes(ctx, lu, in.path[RUN_LANDUSE], "land-use", "the land-use table", NULL, m->landuse_nogo)))
        goto done;
    if ((st = geo_raster_new(ctx, &slope->grid, GEO_F32, &speed)) || (st = geo_raster_new(ctx, &slope->grid, GEO_U8, &go)) ||
        (st = geo_raster_set_label(ctx, speed, TM_SPEED_DESC, TM_SPEED_UNIT)) ||
        (st = geo_raster_set_label(ctx, go, "GO/NOGO reason", NULL)))
        goto done;
    static const geo_classes reasons = {(geo_class *)REASONS, 6};
    go->classes = &reasons; /* no nodata value: 0 is GO and must show */
    int nx = slope->grid.nx, ny = slope->grid.ny;
    double sum = 0;
    for (int y = 0; y < ny; y++) {
        size_t o = (size_t)y * nx;
        tm_row(m, slope->f32 + o, (float)slope->nodata, soil->u8 + o, lu->u8 + o, nx, speed->f32 + o, go->u8 + o);
        for (int x = 0; x < nx; x++) {
            stats->reason[go->u8[o + x]]++;
            if (go->u8[o + x] == TM_GO) {
                sum += speed->f32[o + x];
                stats->speed_max_kmh = fmax(stats->speed_max_kmh, speed->f32[o + x]);
            }
        }
        if ((y & 127) == 0 && (st = trv_progress(ctx, (double)y / ny, "speed")))
            goto done;
    }
    stats->cells = (size_t)nx * ny;
    stats->go = stats->reason[TM_GO];
    stats->nodata = stats->reason[TM_NOGO_NODATA];
    stats->speed_mean_kmh = stats->go ? sum / stats->go : 0;
    const char *t1 = trv_outset_add(set, pv), *t2 = trv_outset_add(set, pg);
    if (!t1 || !t2)
        st = trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
    if (!st && !(st = geo_raster_write(ctx, speed, t1, meta)))
        st = geo_raster_write(ctx, go, t2, meta);
    if (!st)
        st = trv_progress(ctx, 1.0, "speed");
done:
    run_stack_clear(&in);
    geo_raster_free(speed);
    geo_raster_free(go);
    free(pv);
    free(pg);
    return st;
}

trv_status tm_report_write(trv_ctx *ctx, trv_outset *set, const tm_model *m, const tm_soils *soils, const char *path)
{
    const char *tmp = trv_outset_add(set, path);
    if (!tmp)
        return trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
    FILE *f = fopen(tmp, "w");
    if (!f)
        return trv_error(ctx, TRV_ERR_IO, "cannot create '%s': %s", path, strerror(errno));
    static const char *const modes[3] = {"rigid", "elastic", "track"};
    fprintf(f, "code,name,ci_kPa,mode,sinkage_m,resistance_per_tyre_kN,resistance_total_kN,thrust_kN,speed_flat_kmh,"
               "speed_10deg_kmh,pass\n");
    for (int i = 0; i < soils->n; i++) {
        const tm_soil *s = &soils->s[i];
        int c = s->code;
        const tm_contact *k = &m->contact[c];
        const char *pass = s->ci_kPa >= m->vci.vci50_kPa ? "easy" : s->ci_kPa >= m->vci.vci1_kPa ? "difficult" : "no";
        char name[256];
        snprintf(name, sizeof name, "%s", s->name);
        for (char *q = name; *q; q++)
            if (*q == ',' || *q == '"')
                *q = ' ';
        fprintf(f, "%d,%s,%.2f,%s,%.6f,%.6f,%.6f,", c, name, s->ci_kPa, modes[k->mode], k->sinkage_m,
                m->v->kind == TM_WHEELED ? k->resistance_kN : m->resistance_total_kN[c], m->resistance_total_kN[c]);
        if (isnan(m->thrust_total_kN[c]))
            fprintf(f, ",");
        else
            fprintf(f, "%.6f,", m->thrust_total_kN[c]);
        fprintf(f, "%.3f,%.3f,%s\n", tm_speed_kmh(m, m->resistance_total_kN[c], 0),
                tm_speed_kmh(m, m->resistance_total_kN[c], 10), pass);
    }
    int bad = ferror(f);
    trv_status st = TRV_OK;
    if (fclose(f) != 0 || bad)
        st = trv_error(ctx, TRV_ERR_IO, "cannot write '%s': %s", path, strerror(errno));
    return st;
}
