/* The scenario file (INI, its [vehicle.ID] sections taken from the parsed
 * file and bound through one schema built for them, so that every unknown
 * key or section is an error naming file:line) and the obstacles file (GeoJSON, read through geo). */
#include "sim.h"
#include "local_planner.h"

#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>


#define DEG (M_PI / 180)
#define MAX_VEH 64

void sim_scenario_free(sim_scenario *sc)
{
    if (!sc)
        return;
    for (int k = 0; k < sc->nveh; k++) {
        free(sc->veh[k].file);
        free(sc->veh[k].route);
        free(sc->veh[k].terrain);
        free(sc->veh[k].route_name);
        free(sc->veh[k].srs);
    }
    free(sc->veh);
    free(sc->obstacles);
    free(sc->path);
    free(sc);
}

/* The ids of the [vehicle.ID] sections, in file order, from the headers
 * the INI reader parsed (one parser: trimmed, long lines refused). */
static trv_status scan_sections(trv_ctx *ctx, const trv_ini *ini, const char *path, char ids[][32], long *lines,
                                int *n)
{
    *n = 0;
    trv_status st = TRV_OK;
    long line;
    const char *sec;
    for (size_t i = 0; !st && (sec = trv_ini_section(ini, i, &line)); i++) {
        if (strncmp(sec, "vehicle.", 8))
            continue;
        const char *id = sec + 8;
        if (!*id || strlen(id) >= 32)
            st = trv_error(ctx, TRV_ERR_FORMAT, "%s:%ld: vehicle id '%s' must have 1 to 31 characters", path, line, id);
        else if (*n >= MAX_VEH)
            st = trv_error(ctx, TRV_ERR_FORMAT, "%s:%ld: more than %d vehicles", path, line, MAX_VEH);
        else {
            for (int k = 0; k < *n; k++)
                if (!strcmp(ids[k], id))
                    st = trv_error(ctx, TRV_ERR_FORMAT, "%s:%ld: vehicle '%s' given twice", path, line, id);
            if (!st) {
                snprintf(ids[*n], 32, "%s", id);
                lines[(*n)++] = line;
            }
        }
    }
    return st;
}

static char *resolve(const char *base_dir, const char *p)
{
    if (!p)
        return NULL;
    if (p[0] == '/' || !base_dir[0])
        return strdup(p);
    return trv_path_join(base_dir, p);
}

static int parse_pair(const char *s, double v[2])
{
    char *end;
    v[0] = strtod(s, &end);
    if (end == s || *end != ',')
        return -1;
    const char *t = end + 1;
    v[1] = strtod(t, &end);
    while (isspace((unsigned char)*end))
        end++;
    return end == t || *end || !isfinite(v[0]) || !isfinite(v[1]) ? -1 : 0;
}

/* Per-vehicle values bound by the schema before they are checked. */
typedef struct veh_raw {
    char *file, *route, *route_name, *start, *goal, *srs, *terrain;
    int model, strategy;
    double start_time;
    int has_gnss, has_imu, has_l2, has_l3;
    double gnss_rate, gnss_noise, imu_rate, imu_noise_deg;
    double l2[6], l3[8]; /* rate, hfov, hres, range, noise, mount; 3D: + vfov, lines */
    int given_l2[6], given_l3[8];
    int local_kind, local_given;  /* local_planner.h */
    double local[4];              /* window_m, lookahead_m, safety_m, depth */
    char *local_lambda;
    double local_dwa[3];          /* DWA's weights: heading, clearance, velocity */
    int local_dwa_given;
} veh_raw;

/* The INI schema under construction: one key after another, the array
 * grown as they come (failed: out of memory, the keys since then lost). */
typedef struct schema_list {
    trv_ini_key *k;
    size_t n, cap;
    int failed;
} schema_list;

static void key_add(schema_list *L, trv_ini_key key)
{
    if (L->n == L->cap) {
        size_t nc = L->cap ? 2 * L->cap : 64;
        trv_ini_key *k = realloc(L->k, nc * sizeof *k);
        if (!k) {
            L->failed = 1;
            return;
        }
        L->k = k, L->cap = nc;
    }
    L->k[L->n++] = key;
}

#define KEY(sec, name, type, dest, lo, hi, ch, req, given) \
    key_add(L, (trv_ini_key){sec, name, type, dest, lo, hi, ch, req, given})

/* The [scenario] section: its defaults and its 18 keys. */
static void scenario_keys(schema_list *L, sim_scenario *sc, int *ctrl_kind, char **obstacles)
{
    sc->step_s = 0.02, sc->time_limit_s = 3600, sc->record_s = 0.2, sc->goal_tol_m = 2, sc->decel_ms2 = 2;
    sc->lat_acc_ms2 = 2, sc->margin_m = 1, sc->replan = 1, sc->rollover_margin = 0.5;
    sc->lidar_record_points = 1000;
    sim_ctrl_default(&sc->ctrl);
    KEY("scenario", "step_s", TRV_INI_DOUBLE, &sc->step_s, 1e-4, 1, NULL, 0, NULL);
    KEY("scenario", "time_limit_s", TRV_INI_DOUBLE, &sc->time_limit_s, 0.01, 1e7, NULL, 0, NULL);
    KEY("scenario", "record_s", TRV_INI_DOUBLE, &sc->record_s, 0, 3600, NULL, 0, NULL);
    KEY("scenario", "obstacles", TRV_INI_STRING, obstacles, 0, 0, NULL, 0, NULL);
    KEY("scenario", "controller", TRV_INI_CHOICE, ctrl_kind, 0, 0, "pure_pursuit|stanley", 0, NULL);
    KEY("scenario", "lookahead_s", TRV_INI_DOUBLE, &sc->ctrl.lookahead_s, 0, 100, NULL, 0, NULL);
    KEY("scenario", "lookahead_min_m", TRV_INI_DOUBLE, &sc->ctrl.lookahead_min_m, 0.1, 1000, NULL, 0, NULL);
    KEY("scenario", "lookahead_max_m", TRV_INI_DOUBLE, &sc->ctrl.lookahead_max_m, 0.1, 1000, NULL, 0, NULL);
    KEY("scenario", "stanley_k", TRV_INI_DOUBLE, &sc->ctrl.stanley_k, 0, 100, NULL, 0, NULL);
    KEY("scenario", "goal_tolerance_m", TRV_INI_DOUBLE, &sc->goal_tol_m, 0.01, 1000, NULL, 0, NULL);
    KEY("scenario", "decel_ms2", TRV_INI_DOUBLE, &sc->decel_ms2, 0.05, 20, NULL, 0, NULL);
    KEY("scenario", "lateral_acc_ms2", TRV_INI_DOUBLE, &sc->lat_acc_ms2, 0.05, 20, NULL, 0, NULL);
    KEY("scenario", "safety_margin_m", TRV_INI_DOUBLE, &sc->margin_m, 0, 100, NULL, 0, NULL);
    KEY("scenario", "replan", TRV_INI_BOOL, &sc->replan, 0, 0, NULL, 0, NULL);
    KEY("scenario", "dynamics", TRV_INI_CHOICE, &sc->dynamics, 0, 0, "kinematic|dynamic", 0, NULL);
    KEY("scenario", "rollover_margin", TRV_INI_DOUBLE, &sc->rollover_margin, 0, 0.99, NULL, 0, &sc->rollover_given);
    KEY("scenario", "lidar_record_s", TRV_INI_DOUBLE, &sc->lidar_record_s, 0, 1e7, NULL, 0, NULL); /* lidar_record.h */
    KEY("scenario", "lidar_record_points", TRV_INI_INT, &sc->lidar_record_points, 1, 1e7, NULL, 0, NULL);
}

/* One vehicle's sections [vehicle.ID], [gnss.ID], [imu.ID], [lidar2d.ID],
 * [lidar3d.ID] (names into secs): the defaults and the 37 keys. */
static void vehicle_keys(schema_list *L, veh_raw *v, const char *id, char secs[5][48])
{
    static const char *const sensor_sec[4] = {"gnss", "imu", "lidar2d", "lidar3d"};
    snprintf(secs[0], 48, "vehicle.%.31s", id);
    for (int j = 0; j < 4; j++)
        snprintf(secs[j + 1], 48, "%s.%.31s", sensor_sec[j], id);
    const char *vs = secs[0];
    v->strategy = 3; /* time */
    v->gnss_rate = 10, v->gnss_noise = 0.05, v->imu_rate = 100, v->imu_noise_deg = 0.1;
    double l2d[6] = {10, 360, 1, 50, 0.02, 1.5};
    memcpy(v->l2, l2d, sizeof l2d);
    double l3d[8] = {10, 360, 1, 50, 0.02, 1.5, 30, 16};
    memcpy(v->l3, l3d, sizeof l3d);
    KEY(vs, "file", TRV_INI_STRING, &v->file, 0, 0, NULL, 1, NULL);
    KEY(vs, "model", TRV_INI_CHOICE, &v->model, 0, 0, "ackermann|skid|mecanum", 0, NULL);
    KEY(vs, "route", TRV_INI_STRING, &v->route, 0, 0, NULL, 0, NULL);
    KEY(vs, "route_name", TRV_INI_STRING, &v->route_name, 0, 0, NULL, 0, NULL);
    KEY(vs, "start", TRV_INI_STRING, &v->start, 0, 0, NULL, 0, NULL);
    KEY(vs, "goal", TRV_INI_STRING, &v->goal, 0, 0, NULL, 0, NULL);
    KEY(vs, "srs", TRV_INI_STRING, &v->srs, 0, 0, NULL, 0, NULL);
    KEY(vs, "strategy", TRV_INI_CHOICE, &v->strategy, 0, 0, "mmcr|mdr|msr|time", 0, NULL);
    KEY(vs, "start_time_s", TRV_INI_DOUBLE, &v->start_time, 0, 1e7, NULL, 0, NULL);
    KEY(vs, "terrain", TRV_INI_STRING, &v->terrain, 0, 0, NULL, 0, NULL);
    v->local[0] = 0, v->local[1] = 0, v->local[2] = 0.5, v->local[3] = 3; /* local_planner.h (0: by the grid) */
    KEY(vs, "local_planner", TRV_INI_CHOICE, &v->local_kind, 0, 0, "none|vfh+|vfh*|vfh*-wu2020|dwa", 0,
        &v->local_given);
    KEY(vs, "local_window_m", TRV_INI_DOUBLE, &v->local[0], 1, 200, NULL, 0, NULL);
    KEY(vs, "local_lookahead_m", TRV_INI_DOUBLE, &v->local[1], 0.5, 200, NULL, 0, NULL);
    KEY(vs, "local_safety_m", TRV_INI_DOUBLE, &v->local[2], 0, 20, NULL, 0, NULL);
    KEY(vs, "local_depth", TRV_INI_DOUBLE, &v->local[3], 1, 8, NULL, 0, NULL);
    KEY(vs, "local_lambda", TRV_INI_STRING, &v->local_lambda, 0, 0, NULL, 0, NULL);
    v->local_dwa[0] = 0.5, v->local_dwa[1] = 1, v->local_dwa[2] = 0.5;
    KEY(vs, "local_dwa_heading", TRV_INI_DOUBLE, &v->local_dwa[0], 0, 100, NULL, 0, &v->local_dwa_given);
    KEY(vs, "local_dwa_clearance", TRV_INI_DOUBLE, &v->local_dwa[1], 0, 100, NULL, 0, &v->local_dwa_given);
    KEY(vs, "local_dwa_velocity", TRV_INI_DOUBLE, &v->local_dwa[2], 0, 100, NULL, 0, &v->local_dwa_given);
    KEY(secs[1], "rate_hz", TRV_INI_DOUBLE, &v->gnss_rate, 0.01, 1000, NULL, 0, &v->has_gnss);
    KEY(secs[1], "noise_m", TRV_INI_DOUBLE, &v->gnss_noise, 0, 100, NULL, 0, &v->has_gnss);
    KEY(secs[2], "rate_hz", TRV_INI_DOUBLE, &v->imu_rate, 0.01, 10000, NULL, 0, &v->has_imu);
    KEY(secs[2], "noise_deg", TRV_INI_DOUBLE, &v->imu_noise_deg, 0, 90, NULL, 0, &v->has_imu);
    static const char *const lk[8] = {"rate_hz", "hfov_deg", "hres_deg", "range_m", "noise_m", "mount_h_m",
                                      "vfov_deg", "lines"};
    static const double lo[8] = {0.01, 0.1, 0.01, 0.5, 0, 0, 0, 1}, hi[8] = {1000, 360, 90, 2000, 10, 50, 180, 256};
    for (int j = 0; j < 6; j++)
        KEY(secs[3], lk[j], TRV_INI_DOUBLE, &v->l2[j], lo[j], hi[j], NULL, 0, &v->given_l2[j]);
    for (int j = 0; j < 8; j++)
        KEY(secs[4], lk[j], TRV_INI_DOUBLE, &v->l3[j], lo[j], hi[j], NULL, 0, &v->given_l3[j]);
}

#undef KEY

/* The sensors a vehicle's sections gave (a LiDAR with any key given). */
static void vehicle_sensors(const veh_raw *v, sim_vehicle_spec *s)
{
    if (v->has_gnss)
        s->sensors[s->nsensors++] = (sim_sensor){.kind = SIM_GNSS, .rate_hz = v->gnss_rate, .noise = v->gnss_noise};
    if (v->has_imu)
        s->sensors[s->nsensors++] = (sim_sensor){.kind = SIM_IMU, .rate_hz = v->imu_rate,
                                                 .noise = v->imu_noise_deg * DEG};
    int any2 = 0, any3 = 0;
    for (int j = 0; j < 6; j++)
        any2 |= v->given_l2[j];
    for (int j = 0; j < 8; j++)
        any3 |= v->given_l3[j];
    if (any2)
        s->sensors[s->nsensors++] = (sim_sensor){.kind = SIM_LIDAR2D, .rate_hz = v->l2[0], .lines = 1,
                                                 .hfov_rad = v->l2[1] * DEG, .vfov_rad = 0,
                                                 .hres_rad = v->l2[2] * DEG, .range_m = v->l2[3],
                                                 .noise = v->l2[4], .mount_h_m = v->l2[5]};
    if (any3)
        s->sensors[s->nsensors++] = (sim_sensor){.kind = SIM_LIDAR3D, .rate_hz = v->l3[0],
                                                 .lines = (int)v->l3[7], .hfov_rad = v->l3[1] * DEG,
                                                 .vfov_rad = v->l3[6] * DEG, .hres_rad = v->l3[2] * DEG,
                                                 .range_m = v->l3[3], .noise = v->l3[4],
                                                 .mount_h_m = v->l3[5]};
}

/* A vehicle's spec from its bound keys: files resolved against dir (the
 * scenario's directory), start and goal parsed, its sensors. */
static trv_status vehicle_spec(trv_ctx *ctx, const char *path, const char *dir, const veh_raw *v, const char *id,
                               long line, sim_vehicle_spec *s)
{
    trv_status st = TRV_OK;
    snprintf(s->id, sizeof s->id, "%s", id);
    s->line = line;
    s->kind = (sim_kind)v->model;
    s->strategy = (prm_strategy)v->strategy;
    s->start_time_s = v->start_time;
    s->file = resolve(dir, v->file);
    s->route = resolve(dir, v->route);
    s->terrain = resolve(dir, v->terrain);
    s->route_name = v->route_name ? strdup(v->route_name) : NULL;
    s->srs = strdup(v->srs ? v->srs : "EPSG:4326");
    if (v->start) {
        s->has_start = 1;
        if (parse_pair(v->start, s->start))
            st = trv_error(ctx, TRV_ERR_FORMAT, "%s:%ld: vehicle '%s': start expects X,Y", path, line, s->id);
    }
    if (!st && v->goal) {
        s->has_goal = 1;
        if (parse_pair(v->goal, s->goal))
            st = trv_error(ctx, TRV_ERR_FORMAT, "%s:%ld: vehicle '%s': goal expects X,Y", path, line, s->id);
    }
    if (!st && !v->route && (!v->start != !v->goal))
        st = trv_error(ctx, TRV_ERR_FORMAT, "%s:%ld: vehicle '%s' needs both a start and a goal", path, line,
                       s->id);
    vehicle_sensors(v, s);
    s->local = (sim_local_spec){(sim_local_kind)v->local_kind, v->local_given, v->local[0], v->local[1],
                                v->local[2], (int)v->local[3], {5, 3, 0.5, 3, 2}};
    if (!st && v->local_lambda)
        st = sim_local_lambda_parse(ctx, path, line, s->id, v->local_lambda, &s->local);
    memcpy(s->local.dwa_weights, v->local_dwa, sizeof v->local_dwa);
    if (!st && v->local_dwa_given)
        st = sim_local_dwa_check(ctx, path, line, s->id, &s->local);
    return st;
}

trv_status sim_scenario_read(trv_ctx *ctx, const char *path, sim_scenario **out)
{
    *out = NULL;
    char ids[MAX_VEH][32];
    long lines[MAX_VEH];
    int nveh = 0;
    trv_ini *ini = NULL;
    trv_status st = trv_ini_read(ctx, path, &ini);
    if (!st)
        st = scan_sections(ctx, ini, path, ids, lines, &nveh);
    if (st) {
        trv_ini_free(ini);
        return st;
    }
    if (nveh == 0) {
        trv_ini_free(ini);
        return trv_error(ctx, TRV_ERR_FORMAT, "'%s' names no vehicle (a [vehicle.ID] section)", path);
    }
    sim_scenario *sc = calloc(1, sizeof *sc);
    veh_raw *raw = calloc(nveh, sizeof *raw);
    schema_list L = {0};
    char (*secs)[5][48] = calloc(nveh, sizeof *secs);
    if (!sc || !raw || !secs) {
        free(sc), free(raw), free(secs);
        trv_ini_free(ini);
        return trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
    }
    sc->path = strdup(path);
    int ctrl_kind = 0;
    char *obstacles = NULL;
    scenario_keys(&L, sc, &ctrl_kind, &obstacles);
    for (int k = 0; k < nveh; k++)
        vehicle_keys(&L, &raw[k], ids[k], secs[k]);
    st = L.failed ? trv_error(ctx, TRV_ERR_NOMEM, "out of memory") : trv_ini_bind(ctx, ini, L.k, L.n);
    /* a sensor section given with no keys still counts: look for it */
    sc->ctrl.kind = ctrl_kind ? SIM_STANLEY : SIM_PURE_PURSUIT;
    char dir[4096];
    snprintf(dir, sizeof dir, "%s", path);
    char *slash = strrchr(dir, '/');
    if (slash)
        *slash = '\0';
    else
        dir[0] = '\0';
    if (!st && obstacles)
        sc->obstacles = resolve(dir, obstacles);
    if (!st && !(sc->veh = calloc(nveh, sizeof *sc->veh)))
        st = trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
    if (!st && sc->ctrl.lookahead_min_m > sc->ctrl.lookahead_max_m)
        st = trv_error(ctx, TRV_ERR_FORMAT, "%s: lookahead_min_m is above lookahead_max_m", path);
    for (int k = 0; k < nveh && !st; k++) {
        sc->nveh++;
        st = vehicle_spec(ctx, path, dir, &raw[k], ids[k], lines[k], &sc->veh[k]);
    }
    for (int k = 0; k < nveh; k++) {
        free(raw[k].file), free(raw[k].route), free(raw[k].route_name), free(raw[k].terrain);
        free(raw[k].start), free(raw[k].goal), free(raw[k].srs), free(raw[k].local_lambda);
    }
    free(obstacles);
    free(raw);
    free(L.k);
    free(secs);
    trv_ini_free(ini);
    if (st) {
        sim_scenario_free(sc);
        return st;
    }
    *out = sc;
    return TRV_OK;
}

/* ---- obstacles ------------------------------------------------------------------ */

void sim_obstacles_free(sim_obstacle *o, int n)
{
    if (!o)
        return;
    for (int k = 0; k < n; k++) {
        free(o[k].px);
        free(o[k].py);
    }
    free(o);
}

/* A feature's field as a number, dflt where the layer has no such field
 * or the feature leaves it unset; *present says which. */
static double field_or(const geo_vlayer *l, const geo_feature *f, const char *name, double dflt, int *present)
{
    int i = geo_vlayer_field(l, name);
    if (present)
        *present = i >= 0 && f->str[i];
    if (i < 0 || !f->str[i])
        return dflt;
    return f->num[i];
}

/* Half the chord that gives the route's direction at a point: long enough
 * to step over the small kinks a smoothed grid route keeps, short enough
 * to follow its bends. */
#define ROUTE_DIR_HALF_M 5.0

/* A route-relative obstacle (geometry null, at_route_m or
 * at_route_fraction): its circle or rectangle in the map CRS, centred on
 * the route there. */
static trv_status place_on_route(trv_ctx *ctx, const char *path, const geo_vlayer *l, const geo_feature *f,
                                 const sim_route_ref *routes, int nroutes, sim_obstacle *o)
{
    int has_m, has_f, has_r, has_across, has_along;
    double at_m = field_or(l, f, "at_route_m", NAN, &has_m);
    double at_f = field_or(l, f, "at_route_fraction", NAN, &has_f);
    double r = field_or(l, f, "radius_m", NAN, &has_r);
    double across = field_or(l, f, "across_m", NAN, &has_across);
    double along = field_or(l, f, "along_m", NAN, &has_along);
    int iv = geo_vlayer_field(l, "vehicle");
    const char *want = iv >= 0 ? f->str[iv] : NULL;
    if (has_m && has_f)
        return trv_error(ctx, TRV_ERR_FORMAT, "'%s': obstacle '%s' has both at_route_m and at_route_fraction", path,
                         o->id);
    if (has_r && (has_across || has_along))
        return trv_error(ctx, TRV_ERR_FORMAT, "'%s': obstacle '%s' has two shapes: radius_m and across_m / along_m",
                         path, o->id);
    if (!has_r && !has_across && !has_along)
        return trv_error(ctx, TRV_ERR_FORMAT,
                         "'%s': obstacle '%s' on the route needs a shape: radius_m, or across_m and along_m", path,
                         o->id);
    if (has_r && !(r > 0 && isfinite(r)))
        return trv_error(ctx, TRV_ERR_FORMAT, "'%s': obstacle '%s' needs a radius_m > 0", path, o->id);
    if (!has_r && !(has_across && has_along && across > 0 && along > 0 && isfinite(across) && isfinite(along)))
        return trv_error(ctx, TRV_ERR_FORMAT, "'%s': obstacle '%s' needs both across_m > 0 and along_m > 0", path,
                         o->id);
    const sim_route_ref *rt = NULL;
    for (int k = 0; k < nroutes && !rt; k++)
        if (!want || !strcmp(routes[k].vehicle, want))
            rt = &routes[k];
    if (!rt)
        return want ? trv_error(ctx, TRV_ERR_FORMAT, "'%s': obstacle '%s': no vehicle '%s' in the scenario", path,
                                o->id, want)
                    : trv_error(ctx, TRV_ERR_FORMAT, "'%s': obstacle '%s' is placed on a route, but there is none",
                                path, o->id);
    const sim_path *p = rt->path;
    double len = p->s[p->n - 1];
    if (has_f && !(at_f >= 0 && at_f <= 1))
        return trv_error(ctx, TRV_ERR_FORMAT, "'%s': obstacle '%s': at_route_fraction %g is outside [0, 1]", path,
                         o->id, at_f);
    if (has_m && !(at_m >= 0 && at_m <= len))
        return trv_error(ctx, TRV_ERR_FORMAT,
                         "'%s': obstacle '%s': at_route_m %g is outside the route of vehicle '%s' (0 to %.1f m)",
                         path, o->id, at_m, rt->vehicle, len);
    double s = has_m ? at_m : at_f * len;
    double xa, ya, xb, yb;
    sim_path_point(p, s, &o->cx, &o->cy);
    sim_path_point(p, s - ROUTE_DIR_HALF_M, &xa, &ya);
    sim_path_point(p, s + ROUTE_DIR_HALF_M, &xb, &yb);
    if (has_r) {
        o->r = r;
        return TRV_OK;
    }
    double d = hypot(xb - xa, yb - ya);
    double ux = d > 0 ? (xb - xa) / d : 1, uy = d > 0 ? (yb - ya) / d : 0; /* along */
    double nx = -uy, ny = ux;                                             /* across, to the left */
    if (!(o->px = malloc(4 * sizeof *o->px)) || !(o->py = malloc(4 * sizeof *o->py)))
        return trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
    /* counter-clockwise from the back right corner */
    static const double sa[4] = {-1, 1, 1, -1}, sn[4] = {-1, -1, 1, 1};
    for (int i = 0; i < 4; i++) {
        o->px[i] = o->cx + sa[i] * along / 2 * ux + sn[i] * across / 2 * nx;
        o->py[i] = o->cy + sa[i] * along / 2 * uy + sn[i] * across / 2 * ny;
    }
    o->n = 4;
    return TRV_OK;
}

/* The outline of obstacle o from its point (with radius_m) or polygon
 * geometry g, in the map CRS (ct: file CRS -> map CRS). */
static trv_status obstacle_shape(trv_ctx *ctx, const char *path, const geo_vlayer *l, const geo_feature *f,
                                 geo_ct *ct, sim_obstacle *o)
{
    const geo_shape *g = f->nshapes > 0 ? &f->shapes[0] : NULL;
    if (f->geom == GEO_POINT && g) {
        int has_r;
        o->r = field_or(l, f, "radius_m", NAN, &has_r);
        o->cx = g->xy[0], o->cy = g->xy[1];
        if (!has_r || !(o->r > 0))
            return trv_error(ctx, TRV_ERR_FORMAT, "'%s': obstacle '%s' is a point without a radius_m > 0", path,
                             o->id);
        if (geo_ct_points(ct, 1, &o->cx, &o->cy, NULL))
            return trv_error(ctx, TRV_ERR_CRS, "'%s': obstacle '%s' cannot be transformed", path, o->id);
        return TRV_OK;
    }
    if (f->geom != GEO_POLYGON || !g)
        return trv_error(ctx, TRV_ERR_FORMAT, "'%s': obstacle '%s' is neither a Polygon nor a Point", path, o->id);
    const double *ring = g->xy; /* the outer ring */
    int m = g->start[1];
    if (m >= 2 && ring[0] == ring[2 * (m - 1)] && ring[1] == ring[2 * (m - 1) + 1])
        m--; /* the closing vertex */
    if (m < 3)
        return trv_error(ctx, TRV_ERR_FORMAT, "'%s': obstacle '%s': a polygon needs 3 vertices", path, o->id);
    if (!(o->px = malloc(m * sizeof *o->px)) || !(o->py = malloc(m * sizeof *o->py)))
        return trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
    o->n = m;
    for (int i = 0; i < m; i++)
        o->px[i] = ring[2 * i], o->py[i] = ring[2 * i + 1];
    trv_status st = TRV_OK;
    if (geo_ct_points(ct, m, o->px, o->py, NULL))
        st = trv_error(ctx, TRV_ERR_CRS, "'%s': obstacle '%s' cannot be transformed", path, o->id);
    double sx = 0, sy = 0;
    for (int i = 0; i < m; i++)
        sx += o->px[i], sy += o->py[i];
    o->cx = sx / m, o->cy = sy / m;
    return st;
}

/* One obstacle from feature f: its fields, then its shape (from the
 * geometry, or placed on a route). */
static trv_status obstacle_read(trv_ctx *ctx, const char *path, const geo_vlayer *l, const geo_feature *f, int cnt,
                                geo_ct *ct, const sim_route_ref *routes, int nroutes, sim_obstacle *o)
{
    int ih = geo_vlayer_field(l, "id");
    if (ih >= 0 && f->str[ih])
        snprintf(o->id, sizeof o->id, "%s", f->str[ih]);
    else
        snprintf(o->id, sizeof o->id, "%d", cnt + 1);
    int has_h;
    o->height_m = field_or(l, f, "height_m", NAN, &has_h);
    o->appear_s = field_or(l, f, "appear_s", 0, NULL);
    o->disappear_s = field_or(l, f, "disappear_s", INFINITY, NULL);
    o->vx = field_or(l, f, "vx_ms", 0, NULL);
    o->vy = field_or(l, f, "vy_ms", 0, NULL);
    int on_m, on_f;
    field_or(l, f, "at_route_m", 0, &on_m);
    field_or(l, f, "at_route_fraction", 0, &on_f);
    if (!has_h || !(o->height_m > 0) || !isfinite(o->height_m))
        return trv_error(ctx, TRV_ERR_FORMAT, "'%s': obstacle %ld (feature %ld) needs a height_m > 0", path,
                         (long)cnt + 1, f->fid);
    if (!(o->disappear_s > o->appear_s) || !isfinite(o->vx) || !isfinite(o->vy))
        return trv_error(ctx, TRV_ERR_FORMAT, "'%s': obstacle '%s': bad appear_s / disappear_s / velocity", path,
                         o->id);
    if ((on_m || on_f) && f->has_geom)
        return trv_error(ctx, TRV_ERR_FORMAT,
                         "'%s': obstacle '%s' has both a geometry and %s (a route-relative obstacle has "
                         "\"geometry\": null)",
                         path, o->id, on_m ? "at_route_m" : "at_route_fraction");
    if (on_m || on_f)
        return place_on_route(ctx, path, l, f, routes, nroutes, o);
    if (!f->has_geom)
        return trv_error(ctx, TRV_ERR_FORMAT, "'%s': obstacle '%s' has no geometry (nor at_route_m / at_route_fraction)",
                         path, o->id);
    return obstacle_shape(ctx, path, l, f, ct, o);
}

trv_status sim_obstacles_read(trv_ctx *ctx, const char *path, const prm_terrain *t, const sim_route_ref *routes,
                              int nroutes, sim_obstacle **out, int *n)
{
    *out = NULL;
    *n = 0;
    geo_vfile *v = NULL;
    if (geo_vector_read(ctx, path, NULL, NULL, GEO_VREAD_FEATURES, &v)) {
        FILE *f = fopen(path, "r");
        if (!f)
            return trv_error(ctx, TRV_ERR_IO, "cannot open '%s'", path);
        fclose(f);
        return trv_error(ctx, TRV_ERR_FORMAT, "'%s' is not a readable GeoJSON (or other vector) file", path);
    }
    if (v->nlayers < 1) {
        geo_vfile_free(v);
        return trv_error(ctx, TRV_ERR_FORMAT, "'%s' has no layer", path);
    }
    const geo_vlayer *l = &v->layers[0];
    /* the file's CRS (GeoJSON: EPSG:4326 unless it names one) into the map's */
    char *src = NULL;
    geo_ct *ct = NULL;
    trv_status st = l->wkt ? ((src = strdup(l->wkt)) ? TRV_OK : trv_error(ctx, TRV_ERR_NOMEM, "out of memory"))
                           : geo_crs_wkt(ctx, "EPSG:4326", &src);
    if (!st)
        st = geo_ct_create(ctx, src, t->grid->wkt, &ct);
    free(src);
    sim_obstacle *obs = l->n > 0 ? calloc(l->n, sizeof *obs) : NULL;
    if (!st && l->n > 0 && !obs)
        st = trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
    int cnt = 0;
    sim_field fld;
    sim_field_from_raster(t->dem, &fld);
    for (; !st && cnt < l->n; cnt++) {
        sim_obstacle *o = &obs[cnt];
        st = obstacle_read(ctx, path, l, &l->f[cnt], cnt, ct, routes, nroutes, o);
        if (!st) {
            o->base_z = sim_height(&fld, o->cx, o->cy);
            if (!isfinite(o->base_z))
                st = trv_error(ctx, TRV_ERR_DATA, "'%s': obstacle '%s' is outside the map", path, o->id);
        }
    }
    geo_ct_free(ct);
    geo_vfile_free(v);
    if (st) {
        sim_obstacles_free(obs, cnt);
        return st;
    }
    *out = obs;
    *n = cnt;
    return TRV_OK;
}
