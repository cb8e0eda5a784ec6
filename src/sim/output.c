/* The run's outputs, all or none (trv_outset): per vehicle the trajectory
 * as CSV and GeoJSON (EPSG:4326; the trajectory, the first plan and, after
 * re-planning, the last plan), events.jsonl, metrics.json and, when the
 * scenario has an obstacles file, obstacles.geojson (what was simulated, so
 * that the run directory describes itself). Everything but metrics.json's
 * wall_time_s and realtime_factor is deterministic. */
#include "sim_priv.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <cpl_error.h>
#include <gdal.h>
#include <ogr_api.h>
#include <ogr_srs_api.h>

#define RAD2DEG (180 / M_PI)

/* A JSON string body: quotes, backslashes and control characters escaped. */
static void json_str(FILE *f, const char *s)
{
    fputc('"', f);
    for (; s && *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\')
            fprintf(f, "\\%c", c);
        else if (c < 0x20)
            fprintf(f, "\\u%04x", c);
        else
            fputc(c, f);
    }
    fputc('"', f);
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

/* geo_vec writes points and lines only, and one geometry type a layer;
 * the obstacles are polygons and circles (Points with radius_m, as the
 * obstacles file has them) in one layer, so they go through OGR here, with
 * the options geo_vec gives the trajectories (RFC 7946, 7 decimals). */
enum { OF_ID, OF_HEIGHT, OF_RADIUS, OF_CLON, OF_CLAT, OF_APPEAR, OF_DISAPPEAR, OF_VX, OF_VY, OF_N };

/* Circles are written as polygons of this many sides (their centre and
 * radius as properties), so that the file holds one geometry type, which
 * QGIS and OGR take as one layer. */
#define CIRCLE_SIDES 64

static trv_status ogr_failed(trv_ctx *ctx, const char *what, const char *path)
{
    const char *why = CPLGetLastErrorType() >= CE_Failure ? CPLGetLastErrorMsg() : "";
    return trv_error(ctx, TRV_ERR_IO, "cannot %s '%s'%s%s", what, path, *why ? ": " : "", why);
}

/* One obstacle's outline at t = 0 in lon/lat (ct: map CRS -> EPSG:4326),
 * a circle as a CIRCLE_SIDES-gon in the map CRS; *clon, *clat its centre
 * (a circle's; for a polygon, its first vertex, unused). */
static trv_status obstacle_geometry(trv_ctx *ctx, geo_ct *ct, const sim_obstacle *o, OGRGeometryH *out, double *clon,
                                    double *clat)
{
    *out = NULL;
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
    trv_status st = TRV_OK;
    if (geo_ct_points(ct, n + 1, x, y, NULL))
        st = trv_error(ctx, TRV_ERR_CRS, "obstacle '%s' cannot be transformed to EPSG:4326", o->id);
    *clon = x[n], *clat = y[n];
    OGRGeometryH g = NULL;
    if (!st) {
        /* the ring is copied into the polygon (OGR_G_AddGeometry), so who
         * frees it does not depend on whether adding it failed */
        OGRGeometryH ring = OGR_G_CreateGeometry(wkbLinearRing);
        if (ring) {
            for (int i = 0; i <= n; i++) /* closed: the first vertex again */
                OGR_G_AddPoint_2D(ring, x[i % n], y[i % n]);
            if ((g = OGR_G_CreateGeometry(wkbPolygon)) && OGR_G_AddGeometry(g, ring) != OGRERR_NONE) {
                OGR_G_DestroyGeometry(g);
                g = NULL;
            }
            OGR_G_DestroyGeometry(ring);
        }
    }
    free(x), free(y);
    if (!st && !g)
        st = trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
    *out = g;
    return st;
}

static trv_status write_obstacles(trv_ctx *ctx, const sim_run *r, const char *path)
{
    static const char *const names[OF_N] = {"id",       "height_m",    "radius_m", "centre_lon", "centre_lat",
                                            "appear_s", "disappear_s", "vx_ms",    "vy_ms"};
    char *wgs84_wkt = NULL;
    geo_ct *ct = NULL;
    OGRSpatialReferenceH wgs84 = NULL;
    GDALDatasetH ds = NULL;
    trv_status st = geo_crs_wkt(ctx, "EPSG:4326", &wgs84_wkt);
    if (!st)
        st = geo_ct_create(ctx, r->t->grid->wkt, wgs84_wkt, &ct);
    if (!st) {
        wgs84 = OSRNewSpatialReference(NULL);
        if (!wgs84 || OSRImportFromEPSG(wgs84, 4326) != OGRERR_NONE)
            st = trv_error(ctx, TRV_ERR_CRS, "cannot create '%s': no EPSG:4326 definition", path);
        else
            OSRSetAxisMappingStrategy(wgs84, OAMS_TRADITIONAL_GIS_ORDER);
    }
    GDALDriverH drv = st ? NULL : GDALGetDriverByName("GeoJSON");
    if (!st && !drv)
        st = trv_error(ctx, TRV_ERR_INTERNAL, "cannot create '%s': GDAL driver GeoJSON is not registered", path);
    CPLErrorReset();
    if (!st && !(ds = GDALCreate(drv, path, 0, 0, 0, GDT_Unknown, NULL)))
        st = ogr_failed(ctx, "create", path);
    /* CSLConstList is char ** in C */
    static char rfc7946[] = "RFC7946=YES", precision[] = "COORDINATE_PRECISION=7";
    char *opts[] = {rfc7946, precision, NULL};
    OGRLayerH lay = NULL;
    CPLErrorReset();
    if (!st && !(lay = GDALDatasetCreateLayer(ds, "obstacles", wgs84, wkbPolygon, opts)))
        st = ogr_failed(ctx, "create layer 'obstacles' in", path);
    for (int i = 0; i < OF_N && !st; i++) {
        OGRFieldDefnH fd = OGR_Fld_Create(names[i], i == OF_ID ? OFTString : OFTReal);
        if (!fd) {
            st = trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
            break;
        }
        CPLErrorReset();
        if (OGR_L_CreateField(lay, fd, FALSE) != OGRERR_NONE)
            st = ogr_failed(ctx, "create the fields of", path);
        OGR_Fld_Destroy(fd);
    }
    for (int k = 0; k < r->nobs && !st; k++) {
        const sim_obstacle *o = &r->obs[k];
        OGRGeometryH g;
        double clon = 0, clat = 0;
        st = obstacle_geometry(ctx, ct, o, &g, &clon, &clat);
        OGRFeatureH f = st ? NULL : OGR_F_Create(OGR_L_GetLayerDefn(lay));
        if (!st && !f) {
            OGR_G_DestroyGeometry(g);
            st = trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
        }
        if (st)
            break;
        OGR_F_SetGeometryDirectly(f, g);
        /* the field indexes are the enum's: created in that order */
        OGR_F_SetFieldString(f, OF_ID, o->id);
        OGR_F_SetFieldDouble(f, OF_HEIGHT, o->height_m);
        if (o->n == 0) {
            OGR_F_SetFieldDouble(f, OF_RADIUS, o->r);
            OGR_F_SetFieldDouble(f, OF_CLON, round(clon * 1e7) / 1e7); /* the geometry's 7 decimals */
            OGR_F_SetFieldDouble(f, OF_CLAT, round(clat * 1e7) / 1e7);
        }
        OGR_F_SetFieldDouble(f, OF_APPEAR, o->appear_s);
        if (isfinite(o->disappear_s)) /* never: left unset, so the property is omitted */
            OGR_F_SetFieldDouble(f, OF_DISAPPEAR, o->disappear_s);
        OGR_F_SetFieldDouble(f, OF_VX, o->vx);
        OGR_F_SetFieldDouble(f, OF_VY, o->vy);
        CPLErrorReset();
        if (OGR_L_CreateFeature(lay, f) != OGRERR_NONE)
            st = ogr_failed(ctx, "write a feature to", path);
        OGR_F_Destroy(f);
    }
    if (ds) {
        /* GDALClose returns nothing before GDAL 3.7: a failure shows only as
         * an error GDAL raised while closing */
        CPLErrorReset();
        GDALClose(ds);
        if (!st && CPLGetLastErrorType() >= CE_Failure)
            st = ogr_failed(ctx, "write", path);
    }
    if (wgs84)
        OSRRelease(wgs84);
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
        fprintf(f, "{\"t\": %.3f, \"vehicle\": ", e->t);
        json_str(f, r->v[e->vehicle].spec->id);
        fprintf(f, ", \"type\": \"%s\", \"x\": %.3f, \"y\": %.3f", sim_event_name(e->type), e->x, e->y);
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
    json_str(f, meta ? meta->tool : "sim");
    fprintf(f, ",\n  \"version\": \"%s\",\n  \"args\": ", TRV_VERSION);
    json_str(f, meta ? meta->args : "");
    fprintf(f, ",\n  \"scenario\": ");
    json_str(f, r->sc->path);
    fprintf(f, ",\n  \"seed\": %llu,\n  \"step_s\": %g,\n  \"vehicles\": [\n", (unsigned long long)r->env.seed,
            r->sc->step_s);
    for (int k = 0; k < r->nv; k++) {
        const sim_metrics *m = &r->v[k].m;
        fprintf(f, "    {\n      \"id\": ");
        json_str(f, m->id);
        fprintf(f, ",\n      \"reached_goal\": %s,\n      \"end\": \"%s\",\n", m->reached_goal ? "true" : "false",
                m->end);
        fprintf(f, "      \"time_s\": %.3f,\n      \"distance_m\": %.3f,\n      \"planned_time_s\": %.3f,\n",
                m->time_s, m->distance_m, m->planned_time_s);
        fprintf(f, "      \"planned_distance_m\": %.3f,\n      \"cross_track_rms_m\": %.4f,\n", m->planned_distance_m,
                m->cross_track_rms_m);
        fprintf(f, "      \"cross_track_max_m\": %.4f,\n      \"heading_rms_deg\": %.4f,\n", m->cross_track_max_m,
                m->heading_rms_deg);
        fprintf(f, "      \"replans\": %d,\n      \"collisions\": %d,\n      \"stops\": %d,\n      \"yields\": %d,\n",
                m->replans, m->collisions, m->stops, m->yields);
        fprintf(f, "      \"energy_kJ\": %.3f,\n      \"sim_time_s\": %.3f", m->energy_kJ, m->sim_time_s);
        if (timing)
            fprintf(f, ",\n      \"wall_time_s\": %.6f,\n      \"realtime_factor\": %.1f", r->wall_s,
                    r->wall_s > 0 ? m->sim_time_s / r->wall_s : 0);
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
        char *p = trv_path_join(outdir, j ? "metrics.json" : "events.jsonl");
        const char *tmp = p ? trv_outset_add(set, p) : NULL;
        free(p);
        if (!tmp)
            st = trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
        else
            st = j ? write_metrics(ctx, r, tmp, meta, timing) : write_events(ctx, r, tmp);
    }
    if (!st && r->sc->obstacles) {
        char *p = trv_path_join(outdir, "obstacles.geojson");
        const char *tmp = p ? trv_outset_add(set, p) : NULL;
        free(p);
        st = tmp ? write_obstacles(ctx, r, tmp) : trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
    }
    return st;
}
