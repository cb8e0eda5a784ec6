/* The run, set-up (docs/method.md §5; sim.h, runner section): each
 * vehicle's body, terramechanics and sensors from the scenario, its path
 * (the route file, or a plan on the terrain's roadmap) and speed profile,
 * then the obstacles, placed along the first plans. run.c steps the run. */
#include "dynamic_run.h"
#include "sim_priv.h"
#include "local_planner.h"
#include "lidar_record.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

trv_status sim_veh_path(trv_ctx *ctx, sim_veh *v, const double *x, const double *y, int n)
{
    /* drop repeated vertices: they make zero-length segments */
    double *px = malloc(n * sizeof *px), *py = malloc(n * sizeof *py);
    if (!px || !py) {
        free(px), free(py);
        return trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
    }
    int m = 0;
    for (int i = 0; i < n; i++)
        if (m == 0 || hypot(x[i] - px[m - 1], y[i] - py[m - 1]) > 1e-6)
            px[m] = x[i], py[m] = y[i], m++;
    trv_status st = m < 2 ? trv_error(ctx, TRV_ERR_DATA, "the route has fewer than two distinct points")
                          : sim_path_set(ctx, &v->path, px, py, m);
    free(px), free(py);
    return st;
}

static trv_status read_route(trv_ctx *ctx, const prm_terrain *t, sim_veh *v, const char *path)
{
    trv_csv *csv = NULL;
    trv_status st = trv_csv_read(ctx, path, &csv);
    int cx = -1, cy = -1;
    if (!st)
        st = trv_csv_require(ctx, csv, "x", &cx);
    if (!st)
        st = trv_csv_require(ctx, csv, "y", &cy);
    if (st) {
        trv_csv_free(csv);
        return st;
    }
    int cr = trv_csv_col(csv, "route");
    const char *want = v->spec->route_name ? v->spec->route_name : cr >= 0 ? "mmcr" : NULL;
    size_t nr = trv_csv_nrows(csv);
    double *x = malloc((nr + 1) * sizeof *x), *y = malloc((nr + 1) * sizeof *y);
    int n = 0;
    if (!x || !y)
        st = trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
    for (size_t i = 0; i < nr && !st; i++) {
        if (want && (cr < 0 || strcmp(trv_csv_cell(csv, i, cr), want)))
            continue;
        if (!(st = trv_csv_double(ctx, csv, i, cx, &x[n])))
            st = trv_csv_double(ctx, csv, i, cy, &y[n]);
        n++;
    }
    if (!st && n < 2)
        st = want ? trv_error(ctx, TRV_ERR_DATA, "'%s' has no route '%s' (of two points or more)", path, want)
                  : trv_error(ctx, TRV_ERR_DATA, "'%s' has fewer than two points", path);
    for (int e = 0; e < 2 && !st; e++) {
        double px = e ? x[n - 1] : x[0], py = e ? y[n - 1] : y[0];
        long c = prm_cell_at(t, px, py);
        const char *which = e ? "end" : "start";
        if (c < 0)
            st = trv_error(ctx, TRV_ERR_DATA, "the %s of the route in '%s' (%.2f, %.2f) is outside the map", which,
                           path, px, py);
        else if (!prm_cell_go(t, c))
            st = trv_error(ctx, TRV_ERR_DATA, "the %s of the route in '%s' (%.2f, %.2f) is in NOGO", which, path,
                           px, py);
    }
    /* the map is a rectangle: with every point on it, so is the route (a
     * point far off would make the speed profile's samples without end) */
    for (int i = 1; i + 1 < n && !st; i++)
        if (prm_cell_at(t, x[i], y[i]) < 0)
            st = trv_error(ctx, TRV_ERR_DATA, "point %d of the route in '%s' (%.2f, %.2f) is outside the map", i + 1,
                           path, x[i], y[i]);
    if (!st)
        st = sim_veh_path(ctx, v, x, y, n);
    free(x), free(y);
    trv_csv_free(csv);
    return st;
}

static trv_status plan_route(trv_ctx *ctx, const prm_terrain *t, sim_veh *v)
{
    const sim_vehicle_spec *sp = v->spec;
    double xs[2] = {sp->start[0], sp->goal[0]}, ys[2] = {sp->start[1], sp->goal[1]};
    trv_status st = TRV_OK;
    if (strcmp(sp->srs, "map")) {
        char *wkt = NULL;
        geo_ct *ct = NULL;
        int ok[2] = {1, 1};
        if (!(st = geo_crs_wkt(ctx, sp->srs, &wkt)) && !(st = geo_ct_create(ctx, wkt, t->grid->wkt, &ct)))
            geo_ct_points(ct, 2, xs, ys, ok);
        if (!st && (!ok[0] || !ok[1]))
            st = trv_error(ctx, TRV_ERR_CRS, "the %s cannot be transformed into the terrain's CRS",
                           ok[0] ? "goal" : "start");
        free(wkt);
        geo_ct_free(ct);
    }
    prm_path pp = {0};
    prm_weights w;
    prm_weights_default(&w);
    double dev;
    if (!st)
        st = prm_route_grid(ctx, t, xs[0], ys[0], xs[1], ys[1], sp->strategy, &w, &pp);
    if (!st)
        st = prm_smooth(ctx, t, &pp, t->cell_m, &dev);
    if (!st)
        st = sim_veh_path(ctx, v, pp.x, pp.y, pp.n);
    prm_path_clear(&pp);
    return st;
}

/* A cell of an optional numeric column; empty (or no column): dflt.
 * tm_model_init has checked the values. */
static double lu_value(const geo_class_csv *lu, size_t row, const char *name, double dflt)
{
    int col = trv_csv_col(lu->csv, name);
    const char *cell = col >= 0 ? trv_csv_cell(lu->csv, row, col) : "";
    return *cell ? strtod(cell, NULL) : dflt;
}

/* The vehicle's ride: its quarter car, the land-use table's roughness
 * (roughness_gd0_m3, roughness_w: the columns tm_model_init reads, with
 * its defaults: smooth, w = 2), the phases from the run's seed and the
 * vehicle's rank. */
static trv_status ride_setup(trv_ctx *ctx, sim_run *r, sim_veh *v, int k)
{
    tm_quarter_car q;
    tm_vehicle_quarter_car(v->tv, &q);
    uint64_t seed = r->env.seed ^ (0xA0761D6478BD642Full * (uint64_t)(k + 1));
    trv_status st = sim_ride_new(ctx, &q, r->sc->step_s, v->body.top_speed_ms, v->body.wheelbase_m, seed, &v->ride);
    geo_class_csv *lu = NULL;
    if (!st)
        st = geo_class_csv_read(ctx, r->env.landuse_csv, "land-use class", NULL, &lu);
    for (size_t i = 0; !st && i < lu->n; i++)
        st = sim_ride_set_class(ctx, v->ride, lu->code[i], lu_value(lu, i, "roughness_gd0_m3", 0),
                                lu_value(lu, i, "roughness_w", 2));
    geo_class_csv_free(lu);
    v->ride_armed = 1;
    return st;
}

/* The vehicle's map: the run's terrain, or its own directory's, which
 * must be on the same grid (the DEM and the other vehicles are the run's). */
static trv_status own_terrain(trv_ctx *ctx, const sim_run *r, sim_veh *v)
{
    v->t = r->t;
    if (!v->spec->terrain)
        return TRV_OK;
    if (!(v->own = calloc(1, sizeof *v->own)))
        return trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
    trv_status st = prm_terrain_load(ctx, v->spec->terrain, v->own);
    if (st) {
        free(v->own);
        v->own = NULL;
        return st;
    }
    const geo_grid *a = v->own->grid, *b = r->t->grid;
    if (a->nx != b->nx || a->ny != b->ny || memcmp(a->gt, b->gt, sizeof a->gt))
        return trv_error(ctx, TRV_ERR_DATA, "the terrain '%s' is not on the run's grid (%dx%d, the run's %dx%d, or another origin or cell)",
                         v->spec->terrain, a->nx, a->ny, b->nx, b->ny);
    v->t = v->own;
    return TRV_OK;
}

static trv_status vehicle_setup(trv_ctx *ctx, sim_run *r, int k)
{
    sim_veh *v = &r->v[k];
    const sim_vehicle_spec *sp = v->spec;
    trv_status st = own_terrain(ctx, r, v);
    if (st)
        return trv_error_prefix(ctx, st, "vehicle '%s'", sp->id);
    const prm_terrain *t = v->t;
    st = tm_vehicle_read(ctx, sp->file, &v->tv);
    if (st)
        return trv_error_prefix(ctx, st, "vehicle '%s'", sp->id);
    sim_body_from_vehicle(v->tv, sp->kind, &v->body);
    if (r->env.soil && r->env.landuse && r->env.soils && r->env.landuse_csv) {
        if ((st = tm_model_init(ctx, &v->tm, v->tv, r->env.soils, r->env.landuse_csv)) ||
            (st = ride_setup(ctx, r, v, k)))
            return trv_error_prefix(ctx, st, "vehicle '%s'", sp->id);
        v->has_tm = 1;
    }
    const char *route = r->env.route_path ? r->env.route_path : sp->route;
    if (!route && !(sp->has_start && sp->has_goal))
        return trv_error(ctx, TRV_ERR_USAGE, "%s:%ld: vehicle '%s' needs a route (or --route), or a start and a goal",
                         r->sc->path, sp->line, sp->id);
    st = route ? read_route(ctx, t, v, route) : plan_route(ctx, t, v);
    if (st)
        return trv_error_prefix(ctx, st, "vehicle '%s'", sp->id);
    /* the first plan, for the outputs, and its planned time from speed.tif */
    const sim_path *p = &v->path;
    v->plan0_n = p->n;
    v->plan0_x = malloc(p->n * sizeof *v->plan0_x);
    v->plan0_y = malloc(p->n * sizeof *v->plan0_y);
    if (!v->plan0_x || !v->plan0_y)
        return trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
    memcpy(v->plan0_x, p->x, p->n * sizeof *p->x);
    memcpy(v->plan0_y, p->y, p->n * sizeof *p->y);
    prm_path pp = {.n = p->n, .x = v->plan0_x, .y = v->plan0_y};
    prm_stats ps;
    prm_path_stats(t, &pp, t->cell_m, &ps);
    v->m.planned_time_s = ps.time_h * 3600;
    v->m.planned_distance_m = ps.distance_m;
    v->goal_x = p->x[p->n - 1], v->goal_y = p->y[p->n - 1];
    if ((st = sim_veh_profile(ctx, r, v)))
        return st;
    /* sensors */
    int rays = 0;
    for (int j = 0; j < sp->nsensors; j++) {
        const sim_sensor *ss = &sp->sensors[j];
        if (ss->kind == SIM_GNSS)
            v->gnss = ss;
        else if (ss->kind == SIM_IMU)
            v->imu = ss;
        else if (v->nlidar < 2) {
            v->lidar[v->nlidar++] = ss;
            int n = sim_lidar_rays(ss);
            rays = n > rays ? n : rays;
        }
    }
    if (v->nlidar) {
        v->scan_cap = rays;
        if (!(v->scan = malloc((size_t)rays * 3 * sizeof *v->scan)))
            return trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
        if ((st = sim_seen_init(ctx, &v->seen, t,
                                hypot(v->body.length_m / 2, v->body.width_m / 2) + r->sc->margin_m)))
            return st;
        v->has_seen = 1;
    }
    /* one generator per vehicle, from the run's seed and the vehicle's rank */
    trv_rng_seed(&v->rng, r->env.seed ^ (0x9E3779B97F4A7C15ull * (uint64_t)(k + 1)));
    /* the initial state: at the route's start, heading along it */
    double x1, y1;
    sim_path_point(p, fmin(2.0, p->s[p->n - 1]), &x1, &y1);
    v->s.x = p->x[0], v->s.y = p->y[0];
    v->s.heading = atan2(y1 - p->y[0], x1 - p->x[0]);
    if (sim_contact(&r->field, &v->body, v->s.x, v->s.y, v->s.heading, &v->s.z, &v->s.pitch, &v->s.roll))
        return trv_error(ctx, TRV_ERR_DATA, "vehicle '%s': the start (%.2f, %.2f) is too close to the edge of the map",
                         sp->id, v->s.x, v->s.y);
    snprintf(v->m.id, sizeof v->m.id, "%s", sp->id);
    v->m.ride_rms_ms2 = v->m.ride_max_ms2 = v->m.ride_power_W = NAN;
    v->m.end = "time_limit";
    return sim_local_init(ctx, v); /* local_planner.c */
}

trv_status sim_run_new(trv_ctx *ctx, const sim_scenario *sc, const prm_terrain *t, const sim_env *env,
                       sim_run **out)
{
    *out = NULL;
    sim_run *r = calloc(1, sizeof *r);
    if (!r)
        return trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
    r->sc = sc, r->t = t;
    if (!(r->quiet = trv_ctx_new())) {
        free(r);
        return trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
    }
    trv_ctx_set_verbosity(r->quiet, 0);
    if (env)
        r->env = *env;
    sim_field_from_raster(t->dem, &r->field);
    trv_status st = TRV_OK;
    r->nv = sc->nveh;
    r->v = calloc(sc->nveh, sizeof *r->v);
    r->boxes = calloc(sc->nveh, sizeof *r->boxes);
    r->box_z = calloc(sc->nveh, sizeof *r->box_z);
    r->box_h = calloc(sc->nveh, sizeof *r->box_h);
    if (!r->v || !r->boxes || !r->box_z || !r->box_h)
        st = trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
    int lidars = 0;
    for (int k = 0; k < r->nv && !st; k++) {
        r->v[k].spec = &sc->veh[k];
        st = vehicle_setup(ctx, r, k);
        lidars += r->v[k].nlidar;
    }
    if (!st && lidars && r->field.z) /* the LiDARs' rays only */
        st = sim_hmax_new(ctx, &r->field, &r->hmax);
    if (!st && lidars && sim_pool_cores(r->env.threads) > 1) /* the scans' threads, created once */
        st = sim_pool_new(ctx, r->env.threads, &r->pool);
    /* after the routes: obstacles may be placed along them (the first
     * plans; nothing has re-planned yet) */
    sim_route_ref *routes = st || !sc->obstacles ? NULL : calloc(r->nv, sizeof *routes);
    if (!st && sc->obstacles && !routes)
        st = trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
    for (int k = 0; k < r->nv && routes; k++)
        routes[k] = (sim_route_ref){r->v[k].spec->id, &r->v[k].path};
    if (!st && sc->obstacles)
        st = sim_obstacles_read(ctx, sc->obstacles, t, routes, r->nv, &r->obs, &r->nobs);
    free(routes);
    if (!st && r->nobs && !(r->obs_rad = calloc(r->nobs, sizeof *r->obs_rad)))
        st = trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
    for (int k = 0; k < r->nobs && !st; k++) {
        const sim_obstacle *o = &r->obs[k];
        double rad = o->r;
        for (int i = 0; i < o->n; i++)
            rad = fmax(rad, hypot(o->px[i] - o->cx, o->py[i] - o->cy));
        r->obs_rad[k] = rad;
    }
    for (int k = 0; k < r->nv && !st && sc->dynamics; k++)
        st = sim_dynamic_new(ctx, r, k);
    if (st) {
        r->nv = r->v ? sc->nveh : 0;
        sim_run_free(r);
        return st;
    }
    *out = r;
    return TRV_OK;
}

void sim_run_free(sim_run *r)
{
    if (!r)
        return;
    sim_pool_free(r->pool); /* first: its workers read the field, pyramid and obstacles */
    for (int k = 0; k < r->nv; k++) {
        sim_veh *v = &r->v[k];
        sim_dynamic_free(v->dyn);
        tm_vehicle_free(v->tv);
        sim_ride_free(v->ride);
        sim_path_clear(&v->path);
        sim_giveway_clear(&v->gw);
        sim_local_free(v);
        free(v->plan0_x), free(v->plan0_y), free(v->prof), free(v->scan), free(v->rows);
        free(v->ext.ranges);
        sim_lidrec_free(v->lidrec);
        if (v->has_seen)
            sim_seen_clear(&v->seen);
        if (v->own)
            prm_terrain_clear(v->own);
        free(v->own);
    }
    free(r->v);
    sim_obstacles_free(r->obs, r->nobs);
    free(r->obs_rad);
    free(r->ev);
    free(r->boxes), free(r->box_z), free(r->box_h);
    sim_hmax_free(r->hmax);
    trv_ctx_free(r->quiet);
    free(r);
}
