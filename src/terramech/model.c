/* Per-soil precomputation, the trv-speed stage, the report (the row kernel
 * and the speed are in speed.c). */
#include "terramech.h"
#include "run/run.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define G 9.80665

/* A cell of an optional column as a number: empty (or no column) gives
 * dflt; otherwise a number within [lo, hi]. */
static trv_status lu_number(trv_ctx *ctx, const geo_class_csv *lu, size_t r, const char *name, double lo, double hi,
                            double dflt, double *out)
{
    int col = trv_csv_col(lu->csv, name);
    *out = dflt;
    if (col < 0 || !*trv_csv_cell(lu->csv, r, col))
        return TRV_OK;
    trv_status st = trv_csv_double(ctx, lu->csv, r, col, out);
    if (!st && !(*out >= lo && *out <= hi))
        st = trv_error(ctx, TRV_ERR_DATA, "%s:%ld: %s %g is outside %g..%g", trv_csv_path(lu->csv), trv_csv_line(lu->csv, r),
                       name, *out, lo, hi);
    return st;
}

/* Whether kind is in the ';'-separated list. */
static int in_list(const char *list, const char *kind)
{
    size_t n = strlen(kind);
    for (const char *p = list; *p;) {
        const char *e = strchr(p, ';');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        if (len == n && !strncmp(p, kind, n))
            return 1;
        p += len + (e != NULL);
    }
    return 0;
}

/* One land-use row: NOGO (nogo_types by the vehicle's kind where the
 * column exists, else nogo) and its limits. */
static trv_status lu_row(trv_ctx *ctx, tm_model *m, const geo_class_csv *lu, size_t r, const char *path)
{
    const tm_vehicle *v = m->v;
    int c = lu->code[r], types = trv_csv_col(lu->csv, "nogo_types");
    const char *ng = trv_csv_cell(lu->csv, r, lu->col[0]);
    if (strcmp(ng, "yes") && strcmp(ng, "no"))
        return trv_error(ctx, TRV_ERR_FORMAT, "%s:%ld: nogo must be yes or no, not '%s'", path,
                         trv_csv_line(lu->csv, r), ng);
    m->landuse_nogo[c] = types >= 0 ? in_list(trv_csv_cell(lu->csv, r, types), v->kind == TM_WHEELED ? "wheeled" : "tracked")
                                    : !strcmp(ng, "yes");
    double gd, w, vmax, stems, vis, veg;
    trv_status st;
    if ((st = lu_number(ctx, lu, r, "roughness_gd0_m3", 0, 1, 0, &gd)) ||
        (st = lu_number(ctx, lu, r, "roughness_w", 1.01, 3, 2, &w)) ||
        (st = lu_number(ctx, lu, r, "vmax_kmh", 0.1, 1000, INFINITY, &vmax)) ||
        (st = lu_number(ctx, lu, r, "stem_spacing_m", 0.01, 1e4, INFINITY, &stems)) ||
        (st = lu_number(ctx, lu, r, "visibility_m", 0.1, 1e6, INFINITY, &vis)) ||
        (st = lu_number(ctx, lu, r, "veg_resistance", 0, 1, 0, &veg)))
        return st;
    tm_quarter_car q;
    tm_vehicle_quarter_car(v, &q);
    m->lu_ride_ms[c] = tm_ride_speed_w_ms(&q, gd, w, v->ride_limit_ms2);
    m->lu_veg_ms[c] = fmin(vmax / 3.6, isinf(stems) ? INFINITY : tm_vegetation_speed_ms(stems, v->width_m, v->lat_accel_ms2));
    m->lu_veg_coeff[c] = veg;
    m->lu_visibility_m[c] = vis;
    return TRV_OK;
}

/* Per soil: the contact, resistance and thrust (kN, as §2.4-2.6) and their
 * SI forms for the speed limits. */
static void soil_row(tm_model *m, const tm_soil *s)
{
    const tm_vehicle *v = m->v;
    int c = s->code;
    m->ci_kPa[c] = s->ci_kPa;
    double load = v->kind == TM_WHEELED ? v->tyre_load_N / 1000.0 : m->weight_kN;
    tm_contact_compute(v, s, load, &m->contact[c]);
    int units = v->kind == TM_WHEELED ? v->tyres : 1; /* tracks: the contact is both tracks */
    m->resistance_total_kN[c] = units * m->contact[c].resistance_kN;
    m->thrust_total_kN[c] = units * m->contact[c].thrust_kN;
    m->soil_pull_N[c] = 1000.0 * m->resistance_total_kN[c];
    m->soil_hold_N[c] = s->has_shear ? 1000.0 * m->thrust_total_kN[c] : m->mass_kg * v->decel_ms2;
    m->soil_k_over_l[c] = s->has_shear ? s->K_m / m->contact[c].contact_length_m : NAN;
}

trv_status tm_model_init(trv_ctx *ctx, tm_model *m, const tm_vehicle *v, const tm_soils *soils,
                         const char *landuse_csv)
{
    memset(m, 0, sizeof *m);
    m->v = v;
    tm_vci_compute(v, &m->vci);
    m->weight_kN = v->gross_mass_kg * G / 1000.0;
    m->mass_kg = v->gross_mass_kg;
    m->weight_N = v->gross_mass_kg * G;
    m->power_W = 1000.0 * v->drivetrain_efficiency * v->engine_power_kW;
    m->max_slope_deg = fmin(v->max_pitch_deg, v->max_roll_deg);
    m->traction = soils->n > 0;
    for (int c = 0; c < 256; c++) {
        m->soil_index[c] = -1;
        m->landuse_nogo[c] = 2;
    }
    for (int i = 0; i < soils->n; i++) {
        m->soil_index[soils->s[i].code] = i;
        soil_row(m, &soils->s[i]);
        m->traction &= soils->s[i].has_shear;
    }
    static const char *const cols[] = {"nogo", NULL};
    geo_class_csv *lu = NULL;
    trv_status st = geo_class_csv_read(ctx, landuse_csv, "land-use class", cols, &lu);
    for (size_t r = 0; !st && r < lu->n; r++)
        st = lu_row(ctx, m, lu, r, landuse_csv);
    geo_class_csv_free(lu);
    return st;
}

trv_status tm_run_model_load(trv_ctx *ctx, const char *dir, tm_run_model *out)
{
    memset(out, 0, sizeof *out);
    static const run_oid which[3] = {RUN_O_SPEED_VEHICLE, RUN_O_SPEED_SOILS, RUN_O_SPEED_LANDUSE};
    char *p[3] = {NULL, NULL, NULL};
    trv_status st = TRV_OK;
    for (int k = 0; k < 3 && !st; k++) {
        if (!(p[k] = run_other_path(dir, which[k])))
            st = trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
        else if (!trv_file_exists(p[k]))
            st = trv_error(ctx, TRV_ERR_IO, "'%s' is missing: the run directory's speed maps were made by an older "
                           "trv-speed, or not at all; run trv-speed --terrain %s again", p[k], dir);
    }
    if (!st && !(st = tm_vehicle_read(ctx, p[0], &out->vehicle)) && !(st = tm_soils_read(ctx, p[1], &out->soils)))
        st = tm_model_init(ctx, &out->model, out->vehicle, out->soils, p[2]);
    for (int k = 0; k < 3; k++)
        free(p[k]);
    if (st)
        tm_run_model_free(out);
    return st;
}

void tm_run_model_free(tm_run_model *rm)
{
    tm_vehicle_free(rm->vehicle);
    tm_soils_free(rm->soils);
    memset(rm, 0, sizeof *rm);
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
        tm_row(m, slope->f32 + o, (float)slope->nodata, soil->u8 + o, lu->u8 + o, nx, speed->f32 + o, go->u8 + o, NULL);
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
