/* Route outputs: GeoJSON, GPX, vertex CSV and the statistics table. */
#include "prm_priv.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

void prm_stats_header(FILE *f, int no_timing, int ranked, int mc)
{
    fprintf(f, "route,distance_m,mean_elevation_m,mean_slope_deg,mean_speed_kmh,mean_cost,time_h,max_slope_deg,"
               "nogo_samples,%sobjective,smoothing_max_dev_m%s%s\n",
            no_timing ? "" : "plan_s,", ranked ? ",rank,overlap_best" : "",
            mc ? ",mc_realizations,p_passable,time_p10_h,time_p50_h,time_p90_h" : "");
}

void prm_stats_row(FILE *f, const prm_result *r, int no_timing)
{
    const prm_stats *s = &r->stats;
    fprintf(f, "%s,%.1f,%.1f,%.2f,%.2f,%.3f,%.3f,%.2f,%ld,", r->name, s->distance_m, s->elev_mean_m, s->slope_mean_deg,
            s->speed_mean_kmh, s->cost_mean, s->time_h, s->slope_max_deg, s->nogo_samples);
    if (!no_timing)
        fprintf(f, "%.3f,", s->plan_s);
    fprintf(f, "%.6g,", r->path.objective);
    if (!isnan(r->max_dev_m))
        fprintf(f, "%.1f", r->max_dev_m);
    if (r->rank > 0)
        fprintf(f, ",%d,%.4f", r->rank, r->overlap);
    if (s->mc_n > 0) /* risk.h; no time without a passable realisation */
        fprintf(f, ",%d,%.4f", s->mc_n, s->p_pass);
    for (int q = 0; q < 3 && s->mc_n > 0; q++)
        isnan(s->time_q_h[q]) ? fprintf(f, ",") : fprintf(f, ",%.3f", s->time_q_h[q]);
    fprintf(f, "\n");
}

/* Cell c's value in layer r of t (NAN for c < 0: off the map). */
static double at(const prm_terrain *t, const geo_raster *r, long c)
{
    return c < 0 ? NAN : r->type == GEO_F32 ? r->f32[prm_at(t, c)] : r->u8[prm_at(t, c)];
}

static trv_status write_geo(trv_ctx *ctx, const prm_terrain *t, const prm_result *routes, int n, const char *path,
                            int gpx, int no_timing)
{
    geo_vec *v = NULL;
    trv_status st = geo_vec_create(ctx, path, t->grid->wkt, &v);
    if (st)
        return st;
    int lw = -1, lr;
    if (gpx) {
        geo_field nf[] = {{"name", GEO_FIELD_STRING}};
        if ((st = geo_vec_add_layer(ctx, v, "waypoints", GEO_POINT, nf, 1, &lw)))
            goto fail;
        const prm_path *p = &routes[0].path;
        double z0 = at(t, t->dem, prm_cell_at(t, p->x[0], p->y[0]));
        double z1 = at(t, t->dem, prm_cell_at(t, p->x[p->n - 1], p->y[p->n - 1]));
        geo_value a = {.s = "start"}, b = {.s = "goal"};
        if ((st = geo_vec_add(ctx, v, lw, &p->x[0], &p->y[0], &z0, 1, &a)) ||
            (st = geo_vec_add(ctx, v, lw, &p->x[p->n - 1], &p->y[p->n - 1], &z1, 1, &b)) ||
            (st = geo_vec_add_layer(ctx, v, "tracks", GEO_LINE, nf, 1, &lr)))
            goto fail;
    } else {
        geo_field f[] = {{"route", GEO_FIELD_STRING},       {"distance_m", GEO_FIELD_REAL},
                         {"mean_elevation_m", GEO_FIELD_REAL}, {"mean_slope_deg", GEO_FIELD_REAL},
                         {"max_slope_deg", GEO_FIELD_REAL},    {"mean_speed_kmh", GEO_FIELD_REAL},
                         {"mean_cost", GEO_FIELD_REAL},        {"time_h", GEO_FIELD_REAL},
                         {"nogo_samples", GEO_FIELD_INT},      {"plan_s", GEO_FIELD_REAL},
                         {"rank", GEO_FIELD_INT},              {"objective", GEO_FIELD_REAL},
                         {"overlap_best", GEO_FIELD_REAL}};
        if (no_timing) /* plan_s left out: the alternatives' fields move up */
            memmove(&f[9], &f[10], 3 * sizeof *f);
        int nf = (no_timing ? 9 : 10) + (routes[0].rank > 0 ? 3 : 0);
        if ((st = geo_vec_add_layer(ctx, v, "routes", GEO_LINE, f, nf, &lr)))
            goto fail;
    }
    for (int k = 0; k < n && !st; k++) {
        const prm_path *p = &routes[k].path;
        const prm_stats *s = &routes[k].stats;
        double *z = malloc((size_t)p->n * sizeof *z);
        if (!z) {
            st = trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
            break;
        }
        for (int i = 0; i < p->n; i++)
            z[i] = at(t, t->dem, prm_cell_at(t, p->x[i], p->y[i]));
        if (gpx) {
            geo_value name = {.s = routes[k].name};
            st = geo_vec_add(ctx, v, lr, p->x, p->y, z, p->n, &name);
        } else {
            geo_value val[13] = {{.s = routes[k].name}, {.r = s->distance_m}, {.r = s->elev_mean_m},
                                 {.r = s->slope_mean_deg}, {.r = s->slope_max_deg}, {.r = s->speed_mean_kmh},
                                 {.r = s->cost_mean}, {.r = s->time_h}, {.i = s->nogo_samples}, {.r = s->plan_s},
                                 {.i = routes[k].rank}, {.r = routes[k].path.objective}, {.r = routes[k].overlap}};
            if (no_timing)
                memmove(&val[9], &val[10], 3 * sizeof *val);
            st = geo_vec_add(ctx, v, lr, p->x, p->y, NULL, p->n, val);
        }
        free(z);
    }
    if (st)
        goto fail;
    return geo_vec_close(ctx, v);
fail:
    geo_vec_free(v);
    return st;
}

trv_status prm_route_csv_write(trv_ctx *ctx, const prm_terrain *t, const prm_result *routes, int n,
                               const struct prm_legs *legs, const char *tmp, const char *path)
{
    char *wgs = NULL;
    geo_ct *ct = NULL;
    trv_status st = geo_crs_wkt(ctx, "EPSG:4326", &wgs);
    if (!st)
        st = geo_ct_create(ctx, t->grid->wkt, wgs, &ct);
    free(wgs);
    if (st)
        return st;
    FILE *f = fopen(tmp, "w");
    if (!f) {
        geo_ct_free(ct);
        return trv_error(ctx, TRV_ERR_IO, "cannot create '%s': %s", path, strerror(errno));
    }
    fprintf(f, "route,x,y,lon,lat,z,slope,speed,cost,class,cum_dist_m,cum_time_s%s\n", legs ? ",leg" : "");
    for (int k = 0; k < n; k++) {
        const prm_path *p = &routes[k].path;
        double dist = 0, time = 0;
        for (int i = 0, leg = 0; i < p->n; i++) {
            if (i > 0) {
                prm_piece pc;
                prm_piece_measure(t, p->x[i - 1], p->y[i - 1], p->x[i], p->y[i], &pc);
                dist += pc.d;
                time += pc.time_s;
            }
            double lon = p->x[i], lat = p->y[i];
            geo_ct_points(ct, 1, &lon, &lat, NULL);
            long c = prm_cell_at(t, p->x[i], p->y[i]);
            fprintf(f, "%s,%.2f,%.2f,%.7f,%.7f,%.2f,%.2f,%.2f,%.4f,%d,%.1f,%.1f", routes[k].name, p->x[i], p->y[i], lon,
                    lat, at(t, t->dem, c), at(t, t->slope, c), at(t, t->speed, c), at(t, t->cost, c), (int)at(t, t->cls, c), dist,
                    time);
            while (legs && leg + 1 < legs->nlegs && i >= legs->leg[leg].v1)
                leg++;
            if (legs)
                fprintf(f, ",%d", leg + 1);
            fputc('\n', f);
        }
    }
    geo_ct_free(ct);
    int bad = ferror(f);
    if (fclose(f) != 0 || bad)
        return trv_error(ctx, TRV_ERR_IO, "cannot write '%s': %s", path, strerror(errno));
    return TRV_OK;
}

static trv_status write_stats(trv_ctx *ctx, const prm_result *routes, int n, const char *tmp, const char *path,
                              int no_timing)
{
    FILE *f = fopen(tmp, "w");
    if (!f)
        return trv_error(ctx, TRV_ERR_IO, "cannot create '%s': %s", path, strerror(errno));
    prm_stats_header(f, no_timing, routes[0].rank > 0, routes[0].stats.mc_n > 0);
    for (int k = 0; k < n; k++)
        prm_stats_row(f, &routes[k], no_timing);
    int bad = ferror(f);
    if (fclose(f) != 0 || bad)
        return trv_error(ctx, TRV_ERR_IO, "cannot write '%s': %s", path, strerror(errno));
    return TRV_OK;
}

trv_status prm_outputs_write(trv_ctx *ctx, trv_outset *set, const prm_terrain *t, const prm_result *routes, int n,
                             const prm_outputs *o)
{
    if (n < 1)
        return trv_error(ctx, TRV_ERR_INTERNAL, "no route to write");
    trv_status st = TRV_OK;
    const char *tmp;
    if (!st && o->geojson)
        st = (tmp = trv_outset_add(set, o->geojson)) ? write_geo(ctx, t, routes, n, tmp, 0, o->no_timing)
                                                     : trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
    if (!st && o->gpx)
        st = (tmp = trv_outset_add(set, o->gpx)) ? write_geo(ctx, t, routes, n, tmp, 1, o->no_timing)
                                                 : trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
    if (!st && o->csv)
        st = (tmp = trv_outset_add(set, o->csv)) ? prm_route_csv_write(ctx, t, routes, n, NULL, tmp, o->csv)
                                                 : trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
    if (!st && o->stats)
        st = (tmp = trv_outset_add(set, o->stats)) ? write_stats(ctx, routes, n, tmp, o->stats, o->no_timing)
                                                   : trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
    return st;
}
