/* The run's outputs, all or none (trv_outset): per vehicle the trajectory
 * as CSV and GeoJSON (EPSG:4326; the trajectory, the first plan and, after
 * re-planning, the last plan), events.jsonl, metrics.json and, when the
 * scenario has an obstacles file, obstacles.geojson (what was simulated, so
 * that the run directory describes itself). Everything but metrics.json's
 * wall_time_s and realtime_factor is deterministic. */
#include "run/run.h"
#include "dynamic_run.h"
#include "sim_priv.h"
#include "local_planner.h"
#include "lidar_record.h"
#include "core/json.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define RAD2DEG (180 / M_PI)

/* A JSON number: printf(fmt, v), or null when v is not finite (JSON has
 * no inf or nan; json.h writes them the same way). */
static void json_num(FILE *f, const char *fmt, double v)
{
    if (isfinite(v))
        fprintf(f, fmt, v);
    else
        fputs("null", f);
}

/* "key": number on a line of its own, indented for a vehicle's object;
 * last: without the comma. */
static void json_key_num(FILE *f, const char *key, const char *fmt, double v, int last)
{
    fprintf(f, "      \"%s\": ", key);
    json_num(f, fmt, v);
    fputs(last ? "" : ",\n", f);
}

static trv_status write_csv(trv_ctx *ctx, const sim_veh *v, const char *path)
{
    FILE *f = fopen(path, "w");
    if (!f)
        return trv_error(ctx, TRV_ERR_IO, "cannot write '%s'", path);
    fprintf(f, "t,x,y,z,heading_deg,pitch_deg,roll_deg,speed_ms,steering_deg,cross_track_m,class\n");
    for (long i = 0; i < v->nrows; i++) {
        const sim_row *r = &v->rows[i];
        fprintf(f, "%.3f,%.3f,%.3f,%.3f,%.3f,%.3f,%.3f,%.3f,%.3f,%.4f,%d\n", r->t, r->x, r->y, r->z,
                r->heading * RAD2DEG, r->pitch * RAD2DEG, r->roll * RAD2DEG, r->v, r->steer * RAD2DEG, r->cte,
                r->cls);
    }
    return fclose(f) ? trv_error(ctx, TRV_ERR_IO, "cannot write '%s'", path) : TRV_OK;
}

static trv_status write_geojson(trv_ctx *ctx, const sim_run *r, const sim_veh *v, const char *path,
                                const trv_meta *meta)
{
    geo_vec *g = NULL;
    int layer;
    char seed[32];
    snprintf(seed, sizeof seed, "%llu", (unsigned long long)r->env.seed);
    const geo_field fields[] = {{"vehicle", GEO_FIELD_STRING}, {"feature", GEO_FIELD_STRING},
                                {"seed", GEO_FIELD_STRING}, {"tool", GEO_FIELD_STRING},
                                {"reached_goal", GEO_FIELD_INT}};
    trv_status st = geo_vec_create(ctx, path, r->t->grid->wkt, &g);
    if (!st)
        st = geo_vec_add_layer(ctx, g, v->spec->id, GEO_LINE, fields, 5, &layer);
    const char *tool = meta ? meta->tool : "sim";
    if (!st && v->nrows >= 2) {
        double *x = malloc(v->nrows * sizeof *x), *y = malloc(v->nrows * sizeof *y), *z = malloc(v->nrows * sizeof *z);
        if (!x || !y || !z)
            st = trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
        for (long i = 0; i < v->nrows && !st; i++)
            x[i] = v->rows[i].x, y[i] = v->rows[i].y, z[i] = v->rows[i].z;
        geo_value val[5] = {{.s = v->spec->id}, {.s = "trajectory"}, {.s = seed}, {.s = tool}, {.i = v->m.reached_goal}};
        if (!st)
            st = geo_vec_add(ctx, g, layer, x, y, z, (int)v->nrows, val);
        free(x), free(y), free(z);
    }
    if (!st) {
        geo_value val[5] = {{.s = v->spec->id}, {.s = "plan"}, {.s = seed}, {.s = tool}, {.i = v->m.reached_goal}};
        st = geo_vec_add(ctx, g, layer, v->plan0_x, v->plan0_y, NULL, v->plan0_n, val);
    }
    if (!st && v->m.replans > 0) {
        geo_value val[5] = {{.s = v->spec->id}, {.s = "last_plan"}, {.s = seed}, {.s = tool}, {.i = v->m.reached_goal}};
        st = geo_vec_add(ctx, g, layer, v->path.x, v->path.y, NULL, v->path.n, val);
    }
    if (st) {
        geo_vec_free(g);
        return st;
    }
    return geo_vec_close(ctx, g);
}

/* ---- obstacles.geojson ------------------------------------------------------ */

/* The obstacles are polygons and circles (Points with radius_m, as the
 * obstacles file has them) in one layer: circles are written as polygons
 * of CIRCLE_SIDES sides (their centre and radius as properties), so that
 * the file holds one geometry type, which QGIS and OGR take as one layer. */
enum { OF_ID, OF_HEIGHT, OF_RADIUS, OF_CLON, OF_CLAT, OF_APPEAR, OF_DISAPPEAR, OF_VX, OF_VY, OF_N };

#define CIRCLE_SIDES 64

/* One obstacle's outline at t = 0 in lon/lat (ct: map CRS -> EPSG:4326),
 * a circle as a CIRCLE_SIDES-gon in the map CRS: *n vertices in x, y (open
 * ring, malloc'ed, n + 1 long); *clon, *clat its centre (a circle's; for a
 * polygon, its first vertex, unused). */
static trv_status obstacle_outline(trv_ctx *ctx, geo_ct *ct, const sim_obstacle *o, double **xo, double **yo, int *no,
                                   double *clon, double *clat)
{
    int n = o->n > 0 ? o->n : CIRCLE_SIDES;
    double *x = malloc((n + 1) * sizeof *x), *y = malloc((n + 1) * sizeof *y);
    if (!x || !y) {
        free(x), free(y);
        return trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
    }
    if (o->n > 0) {
        memcpy(x, o->px, n * sizeof *x);
        memcpy(y, o->py, n * sizeof *y);
        x[n] = x[0], y[n] = y[0];
    } else {
        for (int i = 0; i < n; i++) {
            double a = 2 * M_PI * i / n;
            x[i] = o->cx + o->r * cos(a), y[i] = o->cy + o->r * sin(a);
        }
        x[n] = o->cx, y[n] = o->cy; /* the centre rides along */
    }
    if (geo_ct_points(ct, n + 1, x, y, NULL)) {
        free(x), free(y);
        return trv_error(ctx, TRV_ERR_CRS, "obstacle '%s' cannot be transformed to EPSG:4326", o->id);
    }
    *clon = x[n], *clat = y[n];
    *xo = x, *yo = y, *no = n;
    return TRV_OK;
}

static trv_status write_obstacle(trv_ctx *ctx, geo_vec *g, int layer, geo_ct *ct, const sim_obstacle *o)
{
    double *x = NULL, *y = NULL, clon = 0, clat = 0;
    int n = 0;
    trv_status st = obstacle_outline(ctx, ct, o, &x, &y, &n, &clon, &clat);
    if (st)
        return st;
    const int circle = o->n == 0;
    geo_value val[OF_N] = {
        [OF_ID] = {.s = o->id},
        [OF_HEIGHT] = {.r = o->height_m},
        [OF_RADIUS] = {.r = o->r, .unset = !circle},
        [OF_CLON] = {.r = round(clon * 1e7) / 1e7, .unset = !circle}, /* the geometry's 7 decimals */
        [OF_CLAT] = {.r = round(clat * 1e7) / 1e7, .unset = !circle},
        [OF_APPEAR] = {.r = o->appear_s},
        [OF_DISAPPEAR] = {.r = o->disappear_s, .unset = !isfinite(o->disappear_s)}, /* never: omitted */
        [OF_VX] = {.r = o->vx},
        [OF_VY] = {.r = o->vy},
    };
    st = geo_vec_add(ctx, g, layer, x, y, NULL, n, val);
    free(x), free(y);
    return st;
}

/* obstacles.geojson: one polygon layer "obstacles" in lon/lat. */
static trv_status write_obstacles(trv_ctx *ctx, const sim_run *r, const char *path)
{
    static const geo_field fields[OF_N] = {
        {"id", GEO_FIELD_STRING},         {"height_m", GEO_FIELD_REAL}, {"radius_m", GEO_FIELD_REAL},
        {"centre_lon", GEO_FIELD_REAL},   {"centre_lat", GEO_FIELD_REAL}, {"appear_s", GEO_FIELD_REAL},
        {"disappear_s", GEO_FIELD_REAL},  {"vx_ms", GEO_FIELD_REAL},    {"vy_ms", GEO_FIELD_REAL}};
    char *wgs84_wkt = NULL;
    geo_ct *ct = NULL;
    geo_vec *g = NULL;
    int layer;
    trv_status st = geo_crs_wkt(ctx, "EPSG:4326", &wgs84_wkt);
    if (!st)
        st = geo_ct_create(ctx, r->t->grid->wkt, wgs84_wkt, &ct);
    if (!st)
        st = geo_vec_create(ctx, path, wgs84_wkt, &g);
    if (!st)
        st = geo_vec_add_layer(ctx, g, "obstacles", GEO_POLYGON, fields, OF_N, &layer);
    for (int k = 0; k < r->nobs && !st; k++)
        st = write_obstacle(ctx, g, layer, ct, &r->obs[k]);
    if (!st) {
        st = geo_vec_close(ctx, g);
        g = NULL;
    }
    geo_vec_free(g);
    geo_ct_free(ct);
    free(wgs84_wkt);
    return st;
}

static trv_status write_events(trv_ctx *ctx, const sim_run *r, const char *path)
{
    FILE *f = fopen(path, "w");
    if (!f)
        return trv_error(ctx, TRV_ERR_IO, "cannot write '%s'", path);
    for (int i = 0; i < r->nev; i++) {
        const sim_event *e = &r->ev[i];
        fputs("{\"t\": ", f);
        json_num(f, "%.3f", e->t);
        fputs(", \"vehicle\": ", f);
        if (e->vehicle >= 0)
            trv_json_fputs(f, r->v[e->vehicle].spec->id);
        else
            fputs("null", f); /* a virtual obstacle's (virtual_obstacle.h) */
        fprintf(f, ", \"type\": \"%s\", \"x\": ", sim_event_name(e->type));
        json_num(f, "%.3f", e->x);
        fputs(", \"y\": ", f);
        json_num(f, "%.3f", e->y);
        if (e->details[0])
            fprintf(f, ", \"details\": {%s}", e->details);
        fputs("}\n", f);
    }
    return fclose(f) ? trv_error(ctx, TRV_ERR_IO, "cannot write '%s'", path) : TRV_OK;
}

/* One key a line, so that the non-deterministic ones can be dropped by line. */
static trv_status write_metrics(trv_ctx *ctx, const sim_run *r, const char *path, const trv_meta *meta, int timing)
{
    FILE *f = fopen(path, "w");
    if (!f)
        return trv_error(ctx, TRV_ERR_IO, "cannot write '%s'", path);
    fprintf(f, "{\n  \"tool\": ");
    trv_json_fputs(f, meta ? meta->tool : "sim");
    fprintf(f, ",\n  \"version\": \"%s\",\n  \"args\": ", TRV_VERSION);
    trv_json_fputs(f, meta ? meta->args : "");
    fprintf(f, ",\n  \"scenario\": ");
    trv_json_fputs(f, r->sc->path);
    fprintf(f, ",\n  \"seed\": %llu,\n  \"step_s\": ", (unsigned long long)r->env.seed);
    json_num(f, "%g", r->sc->step_s);
    fputs(",\n  \"vehicles\": [\n", f);
    for (int k = 0; k < r->nv; k++) {
        const sim_metrics *m = &r->v[k].m;
        fprintf(f, "    {\n      \"id\": ");
        trv_json_fputs(f, m->id);
        fprintf(f, ",\n      \"reached_goal\": %s,\n      \"end\": \"%s\",\n", m->reached_goal ? "true" : "false",
                m->end);
        json_key_num(f, "time_s", "%.3f", m->time_s, 0);
        json_key_num(f, "distance_m", "%.3f", m->distance_m, 0);
        json_key_num(f, "planned_time_s", "%.3f", m->planned_time_s, 0);
        json_key_num(f, "planned_distance_m", "%.3f", m->planned_distance_m, 0);
        json_key_num(f, "cross_track_rms_m", "%.4f", m->cross_track_rms_m, 0);
        json_key_num(f, "cross_track_max_m", "%.4f", m->cross_track_max_m, 0);
        json_key_num(f, "heading_rms_deg", "%.4f", m->heading_rms_deg, 0);
        fprintf(f, "      \"replans\": %d,\n      \"collisions\": %d,\n      \"stops\": %d,\n      \"yields\": %d,\n",
                m->replans, m->collisions, m->stops, m->yields);
        if (r->nv > 1) /* one vehicle has no conflicts: its metrics stay as they were */
            fprintf(f, "      \"conflicts\": %d,\n", m->conflicts);
        json_key_num(f, "energy_kJ", "%.3f", m->energy_kJ, 0);
        json_key_num(f, "ride_rms_ms2", "%.4f", m->ride_rms_ms2, 0);
        json_key_num(f, "ride_max_ms2", "%.4f", m->ride_max_ms2, 0);
        json_key_num(f, "ride_power_W", "%.3f", m->ride_power_W, 0);
        json_key_num(f, "ride_limit_events", "%.0f", m->ride_limit_events, 0);
        sim_local_write_metrics(f, r, k); /* local_planner.c: with local_planner given */
        sim_dynamic_metrics_write(f, &r->v[k]);
        json_key_num(f, "sim_time_s", "%.3f", m->sim_time_s, 1);
        if (timing) {
            fputs(",\n", f);
            json_key_num(f, "wall_time_s", "%.6f", r->wall_s, 0);
            json_key_num(f, "realtime_factor", "%.1f", r->wall_s > 0 ? m->sim_time_s / r->wall_s : 0, 1);
        }
        fprintf(f, "\n    }%s\n", k + 1 < r->nv ? "," : "");
    }
    fprintf(f, "  ]\n}\n");
    return fclose(f) ? trv_error(ctx, TRV_ERR_IO, "cannot write '%s'", path) : TRV_OK;
}

trv_status sim_run_write(trv_ctx *ctx, trv_outset *set, const sim_run *r, const char *outdir, const trv_meta *meta,
                         int timing)
{
    trv_status st = trv_outset_mkdir(ctx, set, outdir);
    char name[96];
    for (int k = 0; k < r->nv && !st; k++) {
        const sim_veh *v = &r->v[k];
        for (int j = 0; j < 2 && !st; j++) {
            snprintf(name, sizeof name, "trajectory_%s.%s", v->spec->id, j ? "geojson" : "csv");
            char *p = trv_path_join(outdir, name);
            const char *tmp = p ? trv_outset_add(set, p) : NULL;
            free(p);
            if (!tmp)
                st = trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
            else
                st = j ? write_geojson(ctx, r, v, tmp, meta) : write_csv(ctx, v, tmp);
        }
    }
    for (int j = 0; j < 2 && !st; j++) {
        char *p = trv_path_join(outdir, run_other_file(j ? RUN_O_SIM_METRICS : RUN_O_SIM_EVENTS));
        const char *tmp = p ? trv_outset_add(set, p) : NULL;
        free(p);
        if (!tmp)
            st = trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
        else
            st = j ? write_metrics(ctx, r, tmp, meta, timing) : write_events(ctx, r, tmp);
    }
    if (!st && (r->sc->obstacles || r->nobs)) { /* nobs: virtual ones too */
        char *p = trv_path_join(outdir, "obstacles.geojson");
        const char *tmp = p ? trv_outset_add(set, p) : NULL;
        free(p);
        st = tmp ? write_obstacles(ctx, r, tmp) : trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
    }
    return st ? st : sim_lidrec_write_run(ctx, set, r, outdir); /* vehicles.json, lidar_ID.ndjson */
}
