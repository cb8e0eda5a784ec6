/* Vehicle files: the [body], [wheels] / [tracks] keys and their defaults
 * (the mobility index and cone index are in vci.c). */
#include "terramech.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void tm_vehicle_free(tm_vehicle *v)
{
    if (!v)
        return;
    free(v->name);
    free(v->path);
    free(v);
}

/* The [body] keys the file leaves out (defaults documented in
 * terramech.h: a mid-size vehicle of the kind, the footprint from the
 * running gear where the file describes it), then the cross-checks the
 * ranges alone cannot make. */
static trv_status body_defaults(trv_ctx *ctx, tm_vehicle *v, int g_len, int g_wid, int g_hgt, int g_wb, int g_trk,
                                int g_wr, int g_steer, int g_taus, int g_taud, int g_slip, int g_step)
{
    int tracked = v->kind == TM_TRACKED;
    if (!g_len)
        v->length_m = tracked ? v->track_length_m + 1.5 : 4.0;
    if (!g_wid)
        v->width_m = tracked ? 2.5 : 2.0;
    if (!g_hgt)
        v->height_m = 2.0;
    if (!g_wb)
        v->wheelbase_m = tracked ? v->track_length_m : 0.6 * v->length_m;
    if (!g_trk)
        v->track_m = v->width_m - (tracked ? v->track_width_m : v->tyre_width_m);
    if (!g_wr)
        v->wheel_radius_m = tracked ? 0.3 : v->tyre_diameter_m / 2.0;
    if (!g_steer)
        v->max_steer_deg = 30.0;
    if (!g_taus)
        v->tau_speed_s = 0.5;
    if (!g_taud)
        v->tau_steer_s = 0.2;
    if (!g_slip)
        v->skid_slip = tracked ? 0.7 : 0.8; /* tracks scrub more when turning on the spot */
    if (!g_step)
        v->step_m = v->ground_clearance_m / 2.0;
    if (v->wheelbase_m > v->length_m)
        return trv_error(ctx, TRV_ERR_DATA, "%s: [body] wheelbase_m (%g) exceeds length_m (%g)", v->path,
                         v->wheelbase_m, v->length_m);
    if (!(v->track_m > 0) || v->track_m > v->width_m)
        return trv_error(ctx, TRV_ERR_DATA, "%s: [body] track_m (%g) must be in (0, width_m (%g)]", v->path,
                         v->track_m, v->width_m);
    return TRV_OK;
}

/* Which of the speed limits' keys the file gives (the rest default). */
typedef struct limit_given {
    int roll, react, decel, lat, sprung, unsprung, spring, damper, tyre, ride;
} limit_given;

/* The speed limits' keys the file leaves out (defaults in terramech.h and
 * docs/method.md §2.10.6), then the corner's mass against the gross. */
static trv_status limit_defaults(trv_ctx *ctx, tm_vehicle *v, const limit_given *g)
{
    int tracked = v->kind == TM_TRACKED;
    if (!g->roll) /* tracked: the internal resistance (222 + 3 V) N per tonne at V = 25 km/h */
        v->rolling_coeff = tracked ? 0.03 : 0.015;
    if (!g->react)
        v->reaction_s = 2.5;
    if (!g->decel)
        v->decel_ms2 = 3.4;
    if (!g->lat)
        v->lat_accel_ms2 = 2.0;
    double corner = v->gross_mass_kg / tm_vehicle_corners(v);
    if (!g->unsprung)
        v->unsprung_kg = 0.1 * corner;
    if (!g->sprung)
        v->sprung_kg = corner - v->unsprung_kg;
    if (!(v->sprung_kg > 0))
        return trv_error(ctx, TRV_ERR_DATA, "%s: [suspension] unsprung_mass_kg (%g) leaves no sprung mass of the "
                         "corner's %g kg", v->path, v->unsprung_kg, corner);
    double f = (v->sprung_kg + v->unsprung_kg) / corner;
    if (fabs(f - 1) > TM_TYRE_LOAD_TOL)
        return trv_error(ctx, TRV_ERR_DATA, "%s: [suspension] sprung + unsprung mass %g kg is %.2f times the corner's "
                         "share of the gross mass, %g kg; they must agree within %g %%", v->path,
                         v->sprung_kg + v->unsprung_kg, f, corner, TM_TYRE_LOAD_TOL * 100);
    if (!g->spring)
        v->spring_N_per_m = v->sprung_kg * pow(2.0 * M_PI * 1.2, 2.0);
    if (!g->damper)
        v->damper_Ns_per_m = 2.0 * 0.3 * sqrt(v->spring_N_per_m * v->sprung_kg);
    if (!g->tyre)
        v->tyre_N_per_m = 10.0 * v->spring_N_per_m;
    if (!g->ride)
        v->ride_limit_ms2 = 2.0;
    return TRV_OK;
}

int tm_vehicle_corners(const tm_vehicle *v)
{
    return v->kind == TM_TRACKED ? v->road_wheels : v->tyres;
}

void tm_vehicle_quarter_car(const tm_vehicle *v, tm_quarter_car *q)
{
    q->sprung_kg = v->sprung_kg;
    q->unsprung_kg = v->unsprung_kg;
    q->spring_N_per_m = v->spring_N_per_m;
    q->damper_Ns_per_m = v->damper_Ns_per_m;
    q->tyre_N_per_m = v->tyre_N_per_m;
}

trv_status tm_vehicle_read(trv_ctx *ctx, const char *path, tm_vehicle **out)
{
    *out = NULL;
    tm_vehicle *v = calloc(1, sizeof *v);
    if (!v || !(v->path = strdup(path))) {
        free(v);
        return trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
    }
    int kind = 0, transmission = 0;
    int g_load = 0, g_eta = 0, g_vci1 = 0, g_vci50 = 0;
    int g_axles = 0, g_tyres = 0, g_tw = 0, g_td = 0, g_th = 0, g_pi = 0, g_pc = 0;
    int g_trw = 0, g_trl = 0, g_shoe = 0, g_wheels = 0;
    int g_len = 0, g_wid = 0, g_hgt = 0, g_wb = 0, g_trk = 0, g_wr = 0, g_steer = 0, g_taus = 0, g_taud = 0;
    int g_slip = 0, g_step = 0;
    limit_given lg = {0};
    v->drivetrain_efficiency = 1.0; /* as the paper: the whole engine power reaches the ground */
    const char *S = "vehicle", *B = "body", *Q = "suspension";
    const trv_ini_key schema[] = {
        {S, "name", TRV_INI_STRING, &v->name, 0, 0, NULL, 1, NULL},
        {S, "type", TRV_INI_CHOICE, &kind, 0, 0, "wheeled|tracked", 0, NULL},
        {S, "gross_mass_kg", TRV_INI_DOUBLE, &v->gross_mass_kg, 1, 1e6, NULL, 1, NULL},
        {S, "axles", TRV_INI_INT, &v->axles, 1, 20, NULL, 0, &g_axles},
        {S, "tyres", TRV_INI_INT, &v->tyres, 1, 64, NULL, 0, &g_tyres},
        {S, "tyre_load_N", TRV_INI_DOUBLE, &v->tyre_load_N, 1, 1e7, NULL, 0, &g_load},
        {S, "tyre_width_m", TRV_INI_DOUBLE, &v->tyre_width_m, 0.02, 3, NULL, 0, &g_tw},
        {S, "tyre_diameter_m", TRV_INI_DOUBLE, &v->tyre_diameter_m, 0.1, 5, NULL, 0, &g_td},
        {S, "tyre_section_height_m", TRV_INI_DOUBLE, &v->tyre_section_height_m, 0.01, 2, NULL, 0, &g_th},
        {S, "inflation_pressure_kPa", TRV_INI_DOUBLE, &v->inflation_pressure_kPa, 1, 2000, NULL, 0, &g_pi},
        {S, "carcass_pressure_kPa", TRV_INI_DOUBLE, &v->carcass_pressure_kPa, 0, 1000, NULL, 0, &g_pc},
        {S, "track_width_m", TRV_INI_DOUBLE, &v->track_width_m, 0.05, 2, NULL, 0, &g_trw},
        {S, "track_length_m", TRV_INI_DOUBLE, &v->track_length_m, 0.2, 20, NULL, 0, &g_trl},
        {S, "track_shoe_area_m2", TRV_INI_DOUBLE, &v->track_shoe_area_m2, 0.001, 2, NULL, 0, &g_shoe},
        {S, "grouser_height_m", TRV_INI_DOUBLE, &v->grouser_height_m, 0, 0.5, NULL, 0, NULL},
        {S, "road_wheels", TRV_INI_INT, &v->road_wheels, 2, 40, NULL, 0, &g_wheels},
        {S, "engine_power_kW", TRV_INI_DOUBLE, &v->engine_power_kW, 0.1, 5000, NULL, 1, NULL},
        {S, "drivetrain_efficiency", TRV_INI_DOUBLE, &v->drivetrain_efficiency, 0.05, 1, NULL, 0, &g_eta},
        {S, "top_speed_kmh", TRV_INI_DOUBLE, &v->top_speed_kmh, 1, 300, NULL, 1, NULL},
        {S, "ground_clearance_m", TRV_INI_DOUBLE, &v->ground_clearance_m, 0, 3, NULL, 1, NULL},
        {S, "chains", TRV_INI_BOOL, &v->chains, 0, 0, NULL, 0, NULL},
        {S, "transmission", TRV_INI_CHOICE, &transmission, 0, 0, "automatic|manual", 0, NULL},
        {S, "max_pitch_deg", TRV_INI_DOUBLE, &v->max_pitch_deg, 1, 89, NULL, 1, NULL},
        {S, "max_roll_deg", TRV_INI_DOUBLE, &v->max_roll_deg, 1, 89, NULL, 1, NULL},
        {S, "vci1_kPa", TRV_INI_DOUBLE, &v->vci1_kPa, 1, 10000, NULL, 0, &g_vci1},
        {S, "vci50_kPa", TRV_INI_DOUBLE, &v->vci50_kPa, 1, 10000, NULL, 0, &g_vci50},
        {S, "rolling_resistance_coeff", TRV_INI_DOUBLE, &v->rolling_coeff, 0, 0.5, NULL, 0, &lg.roll},
        {S, "reaction_time_s", TRV_INI_DOUBLE, &v->reaction_s, 0, 10, NULL, 0, &lg.react},
        {S, "deceleration_ms2", TRV_INI_DOUBLE, &v->decel_ms2, 0.1, 15, NULL, 0, &lg.decel},
        {S, "lateral_accel_ms2", TRV_INI_DOUBLE, &v->lat_accel_ms2, 0.1, 15, NULL, 0, &lg.lat},
        {Q, "sprung_mass_kg", TRV_INI_DOUBLE, &v->sprung_kg, 0.1, 1e6, NULL, 0, &lg.sprung},
        {Q, "unsprung_mass_kg", TRV_INI_DOUBLE, &v->unsprung_kg, 0.1, 1e6, NULL, 0, &lg.unsprung},
        {Q, "spring_N_per_m", TRV_INI_DOUBLE, &v->spring_N_per_m, 1, 1e9, NULL, 0, &lg.spring},
        {Q, "damper_Ns_per_m", TRV_INI_DOUBLE, &v->damper_Ns_per_m, 1, 1e8, NULL, 0, &lg.damper},
        {Q, "tyre_stiffness_N_per_m", TRV_INI_DOUBLE, &v->tyre_N_per_m, 1, 1e10, NULL, 0, &lg.tyre},
        {Q, "ride_limit_rms_ms2", TRV_INI_DOUBLE, &v->ride_limit_ms2, 0.05, 50, NULL, 0, &lg.ride},
        {B, "length_m", TRV_INI_DOUBLE, &v->length_m, 0.2, 30, NULL, 0, &g_len},
        {B, "width_m", TRV_INI_DOUBLE, &v->width_m, 0.1, 10, NULL, 0, &g_wid},
        {B, "height_m", TRV_INI_DOUBLE, &v->height_m, 0.1, 10, NULL, 0, &g_hgt},
        {B, "wheelbase_m", TRV_INI_DOUBLE, &v->wheelbase_m, 0.1, 30, NULL, 0, &g_wb},
        {B, "track_m", TRV_INI_DOUBLE, &v->track_m, 0.1, 10, NULL, 0, &g_trk},
        {B, "wheel_radius_m", TRV_INI_DOUBLE, &v->wheel_radius_m, 0.02, 3, NULL, 0, &g_wr},
        {B, "max_steer_deg", TRV_INI_DOUBLE, &v->max_steer_deg, 1, 60, NULL, 0, &g_steer},
        {B, "tau_speed_s", TRV_INI_DOUBLE, &v->tau_speed_s, 0, 30, NULL, 0, &g_taus},
        {B, "tau_steer_s", TRV_INI_DOUBLE, &v->tau_steer_s, 0, 10, NULL, 0, &g_taud},
        {B, "skid_slip", TRV_INI_DOUBLE, &v->skid_slip, 0.05, 1, NULL, 0, &g_slip},
        {B, "step_m", TRV_INI_DOUBLE, &v->step_m, 0, 3, NULL, 0, &g_step},
    };
    trv_ini *ini = NULL;
    trv_status st = trv_ini_read(ctx, path, &ini);
    if (!st)
        st = trv_ini_bind(ctx, ini, schema, sizeof schema / sizeof schema[0]);
    trv_ini_free(ini);
    if (st) {
        tm_vehicle_free(v);
        return st;
    }
    v->kind = kind ? TM_TRACKED : TM_WHEELED;
    v->manual = transmission == 1;
    if (!g_vci1)
        v->vci1_kPa = NAN;
    if (!g_vci50)
        v->vci50_kPa = NAN;
    /* each kind needs its running gear described */
    const char *missing = NULL;
    if (v->kind == TM_WHEELED) {
        missing = !g_axles ? "axles" : !g_tyres ? "tyres" : !g_tw ? "tyre_width_m" : !g_td ? "tyre_diameter_m"
                : !g_th ? "tyre_section_height_m" : !g_pi ? "inflation_pressure_kPa" : !g_pc ? "carcass_pressure_kPa"
                : NULL;
        if (!missing && !g_load)
            v->tyre_load_N = v->gross_mass_kg * 9.80665 / v->tyres;
        if (!missing && v->tyres < v->axles)
            st = trv_error(ctx, TRV_ERR_DATA, "%s: %d tyres on %d axles", path, v->tyres, v->axles);
        double w = v->gross_mass_kg * 9.80665, f = v->tyres * v->tyre_load_N / w;
        if (!missing && !st && fabs(f - 1) > TM_TYRE_LOAD_TOL)
            st = trv_error(ctx, TRV_ERR_DATA,
                           "%s: tyres x tyre_load_N = %d x %g N = %g N is %.2f times the gross weight %g N "
                           "(gross_mass_kg x 9.80665); they must agree within %g %%",
                           path, v->tyres, v->tyre_load_N, v->tyres * v->tyre_load_N, f, w, TM_TYRE_LOAD_TOL * 100);
    } else {
        missing = !g_trw ? "track_width_m" : !g_trl ? "track_length_m" : !g_shoe ? "track_shoe_area_m2"
                : !g_wheels ? "road_wheels" : NULL;
    }
    if (missing)
        st = trv_error(ctx, TRV_ERR_FORMAT, "%s: missing key '%s' in [vehicle] (needed by a %s vehicle)", path,
                       missing, v->kind == TM_WHEELED ? "wheeled" : "tracked");
    if (!st)
        st = body_defaults(ctx, v, g_len, g_wid, g_hgt, g_wb, g_trk, g_wr, g_steer, g_taus, g_taud, g_slip, g_step);
    if (!st)
        st = limit_defaults(ctx, v, &lg);
    if (!st && (g_vci1 || g_vci50)) { /* the values in force: an override against the other's formula too */
        tm_vci vci;
        tm_vci_compute(v, &vci);
        if (vci.vci50_kPa < vci.vci1_kPa)
            st = trv_error(ctx, TRV_ERR_DATA, "%s: vci50_kPa (%g%s) is below vci1_kPa (%g%s)", path, vci.vci50_kPa,
                           g_vci50 ? "" : ", from the NRMM formula", vci.vci1_kPa, g_vci1 ? "" : ", from the NRMM formula");
    }
    if (st) {
        tm_vehicle_free(v);
        return st;
    }
    *out = v;
    return TRV_OK;
}

