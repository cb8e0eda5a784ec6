/* The route files of a mission through waypoints (prm.h, prm_legs_write):
 * the whole route and its legs. */
#include "prm_priv.h"

#include "core/json.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Cell c's value in layer r of t (NAN for c < 0: off the map). */
static double at(const prm_terrain *t, const geo_raster *r, long c)
{
    return c < 0 ? NAN : r->type == GEO_F32 ? r->f32[prm_at(t, c)] : r->u8[prm_at(t, c)];
}

/* The end stop of the whole route: the goal, or the start again. */
static const char *last_stop(const prm_legs *L) { return L->name[L->leg[L->nlegs - 1].to]; }

/* One GeoJSON feature: plain mission's fields, then leg, from, to. */
static trv_status leg_feature(trv_ctx *ctx, geo_vec *v, int layer, const prm_result *R, int leg, const char *from,
                              const char *to)
{
    const prm_stats *s = &R->stats;
    geo_value val[13] = {{.s = R->name}, {.r = s->distance_m}, {.r = s->elev_mean_m}, {.r = s->slope_mean_deg},
                         {.r = s->slope_max_deg}, {.r = s->speed_mean_kmh}, {.r = s->cost_mean}, {.r = s->time_h},
                         {.i = s->nogo_samples}, {.i = leg}, {.s = from}, {.s = to}, {.r = s->plan_s}};
    return geo_vec_add(ctx, v, layer, R->path.x, R->path.y, NULL, R->path.n, val); /* plan_s: when a field */
}

static trv_status write_geojson(trv_ctx *ctx, const prm_terrain *t, const prm_mission *m, const char *path,
                                int no_timing)
{
    const prm_legs *L = m->legs;
    geo_vec *v = NULL;
    trv_status st = geo_vec_create(ctx, path, t->grid->wkt, &v);
    if (st)
        return st;
    geo_field f[] = {{"route", GEO_FIELD_STRING},       {"distance_m", GEO_FIELD_REAL},
                     {"mean_elevation_m", GEO_FIELD_REAL}, {"mean_slope_deg", GEO_FIELD_REAL},
                     {"max_slope_deg", GEO_FIELD_REAL},    {"mean_speed_kmh", GEO_FIELD_REAL},
                     {"mean_cost", GEO_FIELD_REAL},        {"time_h", GEO_FIELD_REAL},
                     {"nogo_samples", GEO_FIELD_INT},      {"leg", GEO_FIELD_INT},
                     {"from", GEO_FIELD_STRING},           {"to", GEO_FIELD_STRING},
                     {"plan_s", GEO_FIELD_REAL}};
    int lr;
    st = geo_vec_add_layer(ctx, v, "routes", GEO_LINE, f, no_timing ? 12 : 13, &lr);
    if (!st)
        st = leg_feature(ctx, v, lr, &m->routes[0], 0, L->name[0], last_stop(L));
    for (int k = 0; k < L->nlegs && !st; k++)
        st = leg_feature(ctx, v, lr, &L->leg[k].r, k + 1, L->name[L->leg[k].from], L->name[L->leg[k].to]);
    if (st) {
        geo_vec_free(v);
        return st;
    }
    return geo_vec_close(ctx, v);
}

/* GPX: the stops as named waypoints in travel order, one track. */
static trv_status write_gpx(trv_ctx *ctx, const prm_terrain *t, const prm_mission *m, const char *path)
{
    const prm_legs *L = m->legs;
    const prm_path *p = &m->routes[0].path;
    geo_vec *v = NULL;
    trv_status st = geo_vec_create(ctx, path, t->grid->wkt, &v);
    geo_field nf[] = {{"name", GEO_FIELD_STRING}};
    int lw, lr;
    if (!st)
        st = geo_vec_add_layer(ctx, v, "waypoints", GEO_POINT, nf, 1, &lw);
    for (int k = 0; k <= L->nlegs && !st; k++) {
        int s = k < L->nlegs ? L->leg[k].from : L->leg[k - 1].to;
        if (k == L->nlegs && L->closed)
            break; /* the start once */
        double z = at(t, t->dem, prm_cell_at(t, L->x[s], L->y[s]));
        geo_value name = {.s = L->name[s]};
        st = geo_vec_add(ctx, v, lw, &L->x[s], &L->y[s], &z, 1, &name);
    }
    double *z = st ? NULL : malloc((size_t)p->n * sizeof *z);
    if (!st && !z)
        st = trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
    for (int i = 0; !st && i < p->n; i++)
        z[i] = at(t, t->dem, prm_cell_at(t, p->x[i], p->y[i]));
    geo_value name = {.s = m->routes[0].name};
    if (!st && !(st = geo_vec_add_layer(ctx, v, "tracks", GEO_LINE, nf, 1, &lr)))
        st = geo_vec_add(ctx, v, lr, p->x, p->y, z, p->n, &name);
    free(z);
    if (st) {
        geo_vec_free(v);
        return st;
    }
    return geo_vec_close(ctx, v);
}

/* The statistics CSV: a row per leg, then the whole route. */
static trv_status write_stats(trv_ctx *ctx, const prm_mission *m, const char *tmp, const char *path, int no_timing)
{
    FILE *f = fopen(tmp, "w");
    if (!f)
        return trv_error(ctx, TRV_ERR_IO, "cannot create '%s': %s", path, strerror(errno));
    prm_stats_header(f, no_timing, 0, 0);
    for (int k = 0; k < m->legs->nlegs; k++)
        prm_stats_row(f, &m->legs->leg[k].r, no_timing);
    prm_stats_row(f, &m->routes[0], no_timing);
    int bad = ferror(f);
    if (fclose(f) != 0 || bad)
        return trv_error(ctx, TRV_ERR_IO, "cannot write '%s': %s", path, strerror(errno));
    return TRV_OK;
}

trv_status prm_legs_write(trv_ctx *ctx, trv_outset *set, const prm_terrain *t, const prm_mission *m,
                          const prm_outputs *o)
{
    if (!m->legs || m->legs->nlegs < 1 || m->n < 1)
        return trv_error(ctx, TRV_ERR_INTERNAL, "no legs to write");
    trv_status st = TRV_OK;
    const char *tmp;
    if (!st && o->geojson)
        st = (tmp = trv_outset_add(set, o->geojson)) ? write_geojson(ctx, t, m, tmp, o->no_timing)
                                                     : trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
    if (!st && o->gpx)
        st = (tmp = trv_outset_add(set, o->gpx)) ? write_gpx(ctx, t, m, tmp)
                                                 : trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
    if (!st && o->csv)
        st = (tmp = trv_outset_add(set, o->csv)) ? prm_route_csv_write(ctx, t, m->routes, 1, m->legs, tmp, o->csv)
                                                 : trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
    if (!st && o->stats)
        st = (tmp = trv_outset_add(set, o->stats)) ? write_stats(ctx, m, tmp, o->stats, o->no_timing)
                                                   : trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
    return st;
}

void prm_legs_json(trv_json *js, const prm_legs *L, int timing)
{
    trv_json_obj(js, "legs");
    trv_json_str(js, "order", L->visit ? (L->exact ? "held-karp" : "heuristic") : "given");
    trv_json_bool(js, "closed", L->closed);
    trv_json_arr(js, "stops");
    for (int k = 0; k < L->nlegs; k++)
        trv_json_str(js, NULL, L->name[L->leg[k].from]);
    if (!L->closed)
        trv_json_str(js, NULL, L->name[L->leg[L->nlegs - 1].to]);
    trv_json_end(js);
    if (L->visit) {
        trv_json_num(js, "order_objective", "%.10g", L->order_cost);
        trv_json_int(js, "matrix_searches", L->searches);
        if (timing) {
            trv_json_num(js, "matrix_s", "%.3f", L->matrix_s);
            trv_json_num(js, "order_s", "%.6f", L->order_s);
        }
    }
    trv_json_arr(js, "legs");
    for (int k = 0; k < L->nlegs; k++) {
        const prm_result *R = &L->leg[k].r;
        trv_json_obj(js, NULL);
        trv_json_int(js, "leg", k + 1);
        trv_json_str(js, "from", L->name[L->leg[k].from]);
        trv_json_str(js, "to", L->name[L->leg[k].to]);
        trv_json_num(js, "distance_m", "%.10g", R->stats.distance_m);
        trv_json_num(js, "time_h", "%.10g", R->stats.time_h);
        trv_json_num(js, "objective", "%.10g", R->path.objective);
        trv_json_int(js, "nogo_samples", R->stats.nogo_samples);
        if (timing)
            trv_json_num(js, "plan_s", "%.3f", R->stats.plan_s);
        trv_json_end(js);
    }
    trv_json_end(js);
    trv_json_end(js);
}
