/* Per-soil precomputation and the trv-speed stage (the row kernel and the
 * speed are in speed.c and attainable.c, the report in report.c). */
#include "terramech.h"
#include "run_priv.h"
#include "geo/zones.h"
#include "run/run.h"

#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define G 9.80665

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
    if ((st = trv_csv_number(ctx, lu->csv, r, "roughness_gd0_m3", 0, 0, 1, 0, &gd)) ||
        (st = trv_csv_number(ctx, lu->csv, r, "roughness_w", 1.01, 0, 3, 2, &w)) ||
        (st = trv_csv_number(ctx, lu->csv, r, "vmax_kmh", 0.1, 0, 1000, INFINITY, &vmax)) ||
        (st = trv_csv_number(ctx, lu->csv, r, "stem_spacing_m", 0.01, 0, 1e4, INFINITY, &stems)) ||
        (st = trv_csv_number(ctx, lu->csv, r, "visibility_m", 0.1, 0, 1e6, INFINITY, &vis)) ||
        (st = trv_csv_number(ctx, lu->csv, r, "veg_resistance", 0, 0, 1, 0, &veg)))
        return st;
    tm_quarter_car q;
    tm_vehicle_quarter_car(v, &q);
    m->lu_ride_ms[c] = tm_ride_speed_w_ms(&q, gd, w, v->ride_limit_ms2);
    m->lu_veg_ms[c] = fmin(vmax / 3.6, isinf(stems) ? INFINITY : tm_vegetation_speed_ms(stems, v->width_m, v->lat_accel_ms2));
    m->lu_veg_coeff[c] = veg;
    m->lu_visibility_m[c] = vis;
    int name = trv_csv_col(lu->csv, "name");
    snprintf(m->lu_name[c], sizeof m->lu_name[c], "%s", name >= 0 ? trv_csv_cell(lu->csv, r, name) : "");
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
    m->soil_f_measured[c] = s->rolling_coeff;
    if (!isnan(s->rolling_coeff)) { /* the measured coefficient: the whole motion resistance on the flat */
        m->resistance_total_kN[c] = s->rolling_coeff * m->weight_kN;
        m->contact[c].resistance_kN = m->resistance_total_kN[c] / units;
    }
    m->soil_pull_N[c] = isnan(s->rolling_coeff) ? 1000.0 * m->resistance_total_kN[c] : 0;
    m->soil_hold_N[c] = s->has_shear ? 1000.0 * m->thrust_total_kN[c] : m->mass_kg * v->decel_ms2;
    m->soil_k_over_l[c] = s->has_shear ? s->K_m / m->contact[c].contact_length_m : NAN;
}

const char *tm_soil_mode(const tm_model *m, int soil)
{
    static const char *const modes[3] = {"rigid", "elastic", "track"};
    return m->soil_f_measured[soil] > 0 ? "measured" : modes[m->contact[soil].mode];
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
        m->soil_f_measured[c] = NAN;
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

static const geo_class REASONS[7] = {
    {0, "GO", {46, 160, 67}},          {1, "NOGO: slope", {230, 97, 1}},
    {2, "NOGO: soil strength (CI < VCI1)", {140, 81, 10}}, {3, "NOGO: land use", {33, 102, 172}},
    {4, "NOGO: traction", {178, 24, 43}}, {5, "no data", {150, 150, 150}},
    {6, "NOGO: zone", {0, 0, 0}},
};

/* limit.tif's classes (tm_limit codes) */
static const geo_class LIMITS[TM_NLIMIT_CODES] = {
    {0, "NOGO", {90, 90, 90}},      {1, "top speed", {26, 152, 80}},   {2, "power", {254, 224, 139}},
    {3, "traction", {215, 48, 39}}, {4, "ride", {145, 191, 219}},      {5, "vegetation", {102, 66, 40}},
    {6, "visibility/braking", {118, 42, 131}}, {7, "zone", {240, 2, 127}},
};

const char *tm_limit_name(int code)
{
    return code >= 0 && code < TM_NLIMIT_CODES ? LIMITS[code].name : NULL;
}

const geo_class *tm_limit_class(int code)
{
    return code >= 0 && code < TM_NLIMIT_CODES ? &LIMITS[code] : NULL;
}

const char *tm_reason_name(int reason)
{
    return reason >= 0 && reason < 7 ? REASONS[reason].name : NULL;
}

/* zoned: the zone classes named too (without zones the maps' colour
 * tables stay as before them). */
static const geo_classes reasons[2] = {{(geo_class *)REASONS, 6}, {(geo_class *)REASONS, 7}};
static const geo_classes limits[2] = {{(geo_class *)LIMITS, TM_NLIMITS}, {(geo_class *)LIMITS, TM_NLIMIT_CODES}};

const geo_classes *tm_out_classes(int limit, int zoned) { return limit ? &limits[zoned] : &reasons[zoned]; }

trv_status tm_run(trv_ctx *ctx, trv_outset *set, const tm_model *m, const char *dir, const trv_meta *meta,
                  tm_stats *stats)
{
    return tm_run_zoned(ctx, set, m, dir, meta, NULL, stats);
}

trv_status tm_run_zoned(trv_ctx *ctx, trv_outset *set, const tm_model *m, const char *dir, const trv_meta *meta,
                        const tm_zone_opts *zo, tm_stats *stats)
{
    return tm_run_split(ctx, set, m, dir, meta, zo, NULL, stats); /* by row blocks (stream.c) */
}
