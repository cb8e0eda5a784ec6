/* trv-route: plan a mission on the roadmap (improved A* and baselines),
 * optionally on the raster as the optimality reference, smooth, and write
 * GeoJSON / GPX / CSV with route statistics. Thin: options -> prm -> status. */
#include "core/json.h"
#include "prm/prm.h"
#include "qgis/qgis.h"
#include "tool.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int parse_pair(const char *s, double *a, double *b)
{
    char *end;
    *a = strtod(s, &end);
    if (end == s || *end != ',')
        return -1;
    const char *t = end + 1;
    *b = strtod(t, &end);
    return end == t || *end || !isfinite(*a) || !isfinite(*b) ? -1 : 0;
}

static int parse_weights(const char *s, prm_weights *w)
{
    double v[4];
    const char *p = s;
    for (int k = 0; k < 4; k++) {
        char *end;
        v[k] = strtod(p, &end);
        if (end == p || !isfinite(v[k]) || v[k] < 0 || (k < 3 && *end != ',') || (k == 3 && *end))
            return -1;
        p = end + 1;
    }
    *w = (prm_weights){v[0], v[1], v[2], v[3]};
    return 0;
}

/* route.json (docs/summaries.md): the mission and, per route, the figures
 * of route_stats.csv at full precision and the smoothing's deviation; the
 * wall-clock times only without --no-timing. */
static void summary(trv_json *js, const prm_result *routes, const double *smooth_s, int n, const char *const in[4],
                    const trv_meta *meta, int timing)
{
    static const char *const keys[4] = {"roadmap", "terrain", "from", "to"};
    trv_json_meta(js, meta);
    trv_json_obj(js, "inputs");
    for (int k = 0; k < 4; k++)
        trv_json_str(js, keys[k], in[k]);
    trv_json_end(js);
    trv_json_arr(js, "routes");
    for (int k = 0; k < n; k++) {
        const prm_result *R = &routes[k];
        const prm_stats *s = &R->stats;
        trv_json_obj(js, NULL);
        trv_json_str(js, "route", R->name);
        trv_json_num(js, "distance_m", "%.10g", s->distance_m);
        trv_json_num(js, "mean_elevation_m", "%.10g", s->elev_mean_m);
        trv_json_num(js, "mean_slope_deg", "%.10g", s->slope_mean_deg);
        trv_json_num(js, "max_slope_deg", "%.10g", s->slope_max_deg);
        trv_json_num(js, "mean_speed_kmh", "%.10g", s->speed_mean_kmh);
        trv_json_num(js, "mean_cost", "%.10g", s->cost_mean);
        trv_json_num(js, "time_h", "%.10g", s->time_h);
        trv_json_int(js, "nogo_samples", s->nogo_samples);
        trv_json_num(js, "objective", "%.10g", R->path.objective);
        trv_json_num(js, "max_deviation_m", "%.10g", R->max_dev_m);
        if (timing) {
            trv_json_num(js, "plan_s", "%.3f", s->plan_s);
            trv_json_num(js, "smooth_s", "%.3f", isnan(R->max_dev_m) ? NAN : smooth_s[k]);
        }
        trv_json_end(js);
    }
    trv_json_end(js);
}

/* The route files, the GeoJSON's QGIS style and route.json beside the
 * GeoJSON in one set: all or none. */
static trv_status write_all(trv_ctx *ctx, const prm_terrain *t, const prm_result *routes, const double *smooth_s,
                            int n, const prm_outputs *out, const char *const in[4], const trv_meta *meta)
{
    trv_outset *set = trv_outset_new();
    trv_json *js = trv_json_new();
    char *qml = qgis_qml_path(out->geojson), *sum = trv_path_beside(out->geojson, "route.json");
    const char *tmp = NULL;
    trv_status st = set && js && qml && sum ? TRV_OK : trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
    if (!st)
        st = prm_outputs_write(ctx, set, t, routes, n, out);
    if (!st)
        st = (tmp = trv_outset_add(set, qml)) ? qgis_qml_route_write(ctx, tmp, "route")
                                              : trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
    if (!st) {
        summary(js, routes, smooth_s, n, in, meta, !out->no_timing);
        st = trv_json_stage(ctx, set, js, sum);
    }
    if (!st)
        st = trv_outset_commit(ctx, set);
    trv_outset_free(set);
    trv_json_free(js);
    free(qml);
    free(sum);
    return st;
}

int main(int argc, char **argv)
{
    const char *roadmap = NULL, *dir = NULL, *from = NULL, *to = NULL, *srs = "EPSG:4326", *strategy = "mmcr",
               *weights = NULL;
    int admissible = 0, grid = 0, compare = 0, no_smooth = 0;
    double corridor = -1; /* default: three cells */
    prm_outputs out = {0};
    const trv_opt opts[] = {
        {"roadmap", 0, TRV_ARG_STRING, &roadmap, "ROADMAP.gpkg", "the roadmap made by trv-roadmap"},
        {"terrain", 0, TRV_ARG_STRING, &dir, "DIR", "the terrain directory the roadmap was made from"},
        {"from", 0, TRV_ARG_STRING, &from, "X,Y", "start (lon,lat unless --srs)"},
        {"to", 0, TRV_ARG_STRING, &to, "X,Y", "goal (lon,lat unless --srs)"},
        {"srs", 0, TRV_ARG_STRING, &srs, "CRS", "CRS of --from and --to (default EPSG:4326)"},
        {"strategy", 0, TRV_ARG_CHOICE, &strategy, "mmcr|mdr|msr|time", "objective (default mmcr, the paper's)"},
        {"weights", 0, TRV_ARG_STRING, &weights, "kb,kh,ks,kd", "mmcr weights: low-risk, high-risk, safe, distance (default 3,10,1,0.2)"},
        {"admissible", 0, TRV_ARG_FLAG, &admissible, NULL, "mmcr with the admissible heuristic kd d instead of the paper's"},
        {"no-timing", 0, TRV_ARG_FLAG, &out.no_timing, NULL, "leave the planning time (wall clock) out of the GeoJSON and --stats, so that reruns give the same bytes"},
        {"grid", 0, TRV_ARG_FLAG, &grid, NULL, "also solve the same objective(s) on the raster, 16-connected (the optimum)"},
        {"compare", 0, TRV_ARG_FLAG, &compare, NULL, "plan mdr, msr, mmcr and time and print them as one table"},
        {"no-smooth", 0, TRV_ARG_FLAG, &no_smooth, NULL, "keep the node polyline (no B-spline)"},
        {"corridor", 0, TRV_ARG_DOUBLE, &corridor, "M", "refine on the raster within M metres of the roadmap route (default: 3 cells; 0: off)"},
        {"output", 'o', TRV_ARG_STRING, &out.geojson, "ROUTE.geojson", "routes as GeoJSON LineStrings (EPSG:4326); route.json, the run's summary, beside it"},
        {"gpx", 0, TRV_ARG_STRING, &out.gpx, "ROUTE.gpx", "GPX 1.1: start/goal waypoints and a track per route"},
        {"csv", 0, TRV_ARG_STRING, &out.csv, "ROUTE.csv", "the routes' vertices with terrain values"},
        {"stats", 0, TRV_ARG_STRING, &out.stats, "STATS.csv", "one row of statistics per route"},
        {NULL, 0, 0, NULL, NULL, NULL},
    };
    static const char *const required[] = {"roadmap", "terrain", "from", "to", "output", NULL};
    const trv_cli cli = {
        .tool = "trv-route",
        .usage = "--roadmap ROADMAP.gpkg --terrain DIR --from X,Y --to X,Y -o ROUTE.geojson [options]",
        .summary = "Plan a route on the roadmap with the paper's improved A* (mmcr) or a baseline (mdr: shortest,\n"
                   "msr: least slope, time: least traversal time), smooth it with a clamped cubic B-spline that\n"
                   "never enters NOGO, and write it for the field (GeoJSON, GPX, CSV) with its statistics.",
        .opts = opts,
        .libraries = tool_libraries,
        .required = required,
    };
    trv_cli_result res;
    int rc = trv_cli_parse(&cli, argc, argv, &res);
    if (rc != TRV_CLI_CONTINUE)
        return rc;
    double fx, fy, tx, ty;
    prm_weights w;
    prm_weights_default(&w);
    const char *usage = NULL;
    if (parse_pair(from, &fx, &fy))
        usage = "--from expects X,Y";
    else if (parse_pair(to, &tx, &ty))
        usage = "--to expects X,Y";
    else if (weights && parse_weights(weights, &w))
        usage = "--weights expects four numbers >= 0: kb,kh,ks,kd";
    else if (corridor < 0 && corridor != -1)
        usage = "--corridor must be >= 0";
    if (usage) {
        fprintf(stderr, "trv-route: %s\nTry 'trv-route --help' for more information.\n", usage);
        return 2;
    }
    prm_strategy main_s = !strcmp(strategy, "mdr") ? PRM_MDR : !strcmp(strategy, "msr") ? PRM_MSR
                        : !strcmp(strategy, "time") ? PRM_TIME : PRM_MMCR;
    trv_term_progress_state progress;
    trv_ctx *ctx = trv_tool_ctx(&cli, &res, &progress);
    if (!ctx)
        return 1;
    geo_init();
    prm_terrain t;
    prm_roadmap *r = NULL;
    prm_result routes[8];
    double smooth_s[8] = {0};
    int nr = 0;
    memset(routes, 0, sizeof routes);
    trv_status st = prm_terrain_load(ctx, dir, &t);
    int loaded = st == TRV_OK;
    if (!st)
        st = prm_roadmap_read(ctx, roadmap, &r);
    if (!st && !geo_crs_same(r->wkt, t.grid->wkt))
        st = trv_error(ctx, TRV_ERR_CRS, "'%s' is not in the CRS of the terrain '%s'", roadmap, dir);
    if (!st) { /* the mission in the terrain's CRS */
        char *wkt = NULL;
        geo_ct *ct = NULL;
        if (!(st = geo_crs_wkt(ctx, srs, &wkt)) && !(st = geo_ct_create(ctx, wkt, t.grid->wkt, &ct))) {
            int ok[2];
            double xs[2] = {fx, tx}, ys[2] = {fy, ty};
            geo_ct_points(ct, 2, xs, ys, ok);
            if (!ok[0] || !ok[1])
                st = trv_error(ctx, TRV_ERR_CRS, "the %s cannot be transformed into the terrain's CRS",
                               ok[0] ? "goal" : "start");
            fx = xs[0], fy = ys[0], tx = xs[1], ty = ys[1];
        }
        free(wkt);
        geo_ct_free(ct);
    }
    prm_strategy plan[4] = {main_s};
    int nplan = 1;
    if (compare) {
        plan[0] = PRM_MDR, plan[1] = PRM_MSR, plan[2] = PRM_MMCR, plan[3] = PRM_TIME;
        nplan = 4;
    }
    for (int k = 0; k < nplan && !st; k++) {
        prm_result *R = &routes[nr];
        snprintf(R->name, sizeof R->name, "%s", prm_strategy_name(plan[k]));
        double t0 = trv_now_s();
        if ((st = prm_route(ctx, &t, r, fx, fy, tx, ty, plan[k], &w, admissible, &R->path)))
            break;
        double band = corridor < 0 ? 3 * t.cell_m : corridor;
        if (band > 0 && (st = prm_refine(ctx, &t, &R->path, plan[k], &w, band)))
            break;
        double t1 = trv_now_s(); /* planning: the search, shortcuts and corridor; smoothing is timed apart */
        R->max_dev_m = NAN;
        if (!no_smooth && (st = prm_smooth(ctx, &t, &R->path, t.cell_m, &R->max_dev_m)))
            break;
        smooth_s[nr] = trv_now_s() - t1;
        prm_path_stats(&t, &R->path, t.cell_m, &R->stats);
        R->stats.plan_s = t1 - t0;
        nr++;
    }
    for (int k = 0; k < nplan && grid && !st; k++) {
        prm_result *R = &routes[nr];
        snprintf(R->name, sizeof R->name, "grid-%s", prm_strategy_name(plan[k]));
        double t0 = trv_now_s();
        if ((st = prm_route_grid(ctx, &t, fx, fy, tx, ty, plan[k], &w, &R->path)))
            break;
        R->max_dev_m = NAN;
        prm_path_stats(&t, &R->path, t.cell_m, &R->stats);
        R->stats.plan_s = trv_now_s() - t0;
        nr++;
    }
    if (!st) {
        trv_meta meta;
        trv_meta_init(&meta, cli.tool, argc, argv);
        const char *const in[4] = {roadmap, dir, from, to};
        st = write_all(ctx, &t, routes, smooth_s, nr, &out, in, &meta);
    }
    if (!st && !res.quiet) {
        printf("%-10s %10s %9s %9s %9s %9s %8s %8s %6s %8s\n", "route", "distance", "mean elev", "mean slope",
               "max slope", "speed", "cost", "time h", "NOGO", "plan s");
        for (int k = 0; k < nr; k++) {
            const prm_stats *s = &routes[k].stats;
            printf("%-10s %8.0f m %7.1f m %8.2f° %8.2f° %5.1f km/h %8.3f %8.3f %6ld %8.3f\n", routes[k].name,
                   s->distance_m, s->elev_mean_m, s->slope_mean_deg, s->slope_max_deg, s->speed_mean_kmh, s->cost_mean,
                   s->time_h, s->nogo_samples, s->plan_s);
        }
        for (int k = 0; k < nr; k++)
            if (!isnan(routes[k].max_dev_m))
                printf("%s: smoothed in %.3f s, at most %.1f m from the unsmoothed route\n", routes[k].name, smooth_s[k],
                       routes[k].max_dev_m);
    }
    if (st)
        fprintf(stderr, "trv-route: %s\n", trv_errmsg(ctx));
    for (int k = 0; k < nr; k++)
        prm_path_clear(&routes[k].path);
    prm_roadmap_free(r);
    if (loaded)
        prm_terrain_clear(&t);
    trv_ctx_free(ctx);
    return st ? 1 : 0;
}
