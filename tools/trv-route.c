/* trv-route: plan a mission on the roadmap (improved A* and baselines),
 * optionally on the raster as the optimality reference, smooth, and write
 * GeoJSON / GPX / CSV with route statistics. Thin: options -> prm_mission_run
 * -> table, with the QGIS style and route.json in the same output set. */
#include "core/json.h"
#include "prm/no_route.h"
#include "prm/hier.h"
#include "prm/prm.h"
#include "prm/profile.h"
#include "prm/risk.h"
#include "qgis/qgis.h"
#include "render/render.h"
#include "run/run.h"
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

/* Four numbers kb,kh,ks,kd; their range is prm_mission_opts_check's. */
static int parse_weights(const char *s, prm_weights *w)
{
    double v[4];
    const char *p = s;
    for (int k = 0; k < 4; k++) {
        char *end;
        v[k] = strtod(p, &end);
        if (end == p || (k < 3 && *end != ',') || (k == 3 && *end))
            return -1;
        p = end + 1;
    }
    *w = (prm_weights){v[0], v[1], v[2], v[3]};
    return 0;
}

/* route.json's "alternatives": what was asked and found. */
static void alternatives_summary(trv_json *js, const prm_mission *m, const prm_alt_opts *alt)
{
    trv_json_obj(js, "alternatives");
    trv_json_int(js, "asked", alt->k);
    trv_json_int(js, "found", m->n);
    trv_json_num(js, "max_stretch", "%.10g", alt->max_stretch);
    trv_json_num(js, "max_overlap", "%.10g", alt->max_overlap);
    trv_json_num(js, "alpha", "%.10g", alt->alpha);
    trv_json_str(js, "method", "via-node (Abraham, Delling, Goldberg & Werneck 2013)");
    trv_json_str(js, "note", m->alt_note);
    trv_json_end(js);
}

/* route.json (docs/summaries.md): the mission and, per route, the figures
 * of route_stats.csv at full precision and the smoothing's deviation; the
 * wall-clock times only without --no-timing. */
static void summary(trv_json *js, const prm_mission_opts *o, const prm_mission *m, const char *const in[4],
                    const trv_meta *meta, int timing)
{
    static const char *const keys[4] = {"roadmap", "terrain", "from", "to"};
    trv_json_meta(js, meta);
    trv_json_obj(js, "inputs");
    for (int k = 0; k < 4; k++)
        trv_json_str(js, keys[k], in[k]);
    if (o->zones) { /* the zones and crossings used (docs/zones.md) */
        trv_json_str(js, "zones", o->zones);
        trv_json_str(js, "crossings", o->crossings);
        trv_json_num(js, "crossing_radius_m", "%.10g", o->crossing_radius);
    }
    trv_json_end(js);
    if (!isnan(o->risk))
        trv_json_num(js, "risk_alpha", "%.10g", o->risk);
    trv_json_str(js, "travel_time", m->direction_aware ? "direction-aware" : "isotropic");
    if (!m->direction_aware)
        trv_json_str(js, "travel_time_note", m->time_note);
    trv_json_arr(js, "routes");
    for (int k = 0; k < m->n; k++) {
        const prm_result *R = &m->routes[k];
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
        if (R->rank > 0) {
            trv_json_int(js, "rank", R->rank);
            trv_json_num(js, "overlap_best", "%.10g", R->overlap);
        }
        prm_risk_json(js, s);
        prm_time_shares_json(js, m->profiles, k);
        if (timing) {
            trv_json_num(js, "plan_s", "%.3f", s->plan_s);
            trv_json_num(js, "smooth_s", "%.3f", isnan(R->max_dev_m) ? NAN : m->smooth_s[k]);
        }
        trv_json_end(js);
    }
    trv_json_end(js);
    if (m->legs)
        prm_legs_json(js, m->legs, timing);
    if (m->routes[0].rank > 0)
        alternatives_summary(js, m, &o->alt);
}

/* The route explained (--profile, --profile-png, --time-shares): NULL when not asked for. */
static struct {
    const char *csv, *png, *shares;
} explain;

/* The profile picture of the strategy's route (the first when there is none of that name). */
static trv_status profile_png(trv_ctx *ctx, const prm_mission *m, prm_strategy s, const char *tmp)
{
    int k = m->n - 1;
    while (k > 0 && strcmp(m->routes[k].name, prm_strategy_name(s)))
        k--;
    const prm_profile *p = &m->profiles->route[k];
    const prm_stats *st = &m->routes[k].stats;
    char title[128];
    snprintf(title, sizeof title, "Profile of route %s: %.2f km, %.2f h", p->name, st->distance_m / 1000, st->time_h);
    rnd_profile rp = {p->n, p->dist_m, p->len_m, p->elev_m, p->speed_kmh, p->limit, tm_limit_class(0), TM_NLIMITS,
                      "binding limit", title, NULL, 1200, 560};
    return rnd_profile_png(ctx, &rp, tmp, explain.png);
}

/* The explaining files into set. */
static trv_status explain_write(trv_ctx *ctx, trv_outset *set, const prm_mission *m, prm_strategy s)
{
    const char *tmp;
    trv_status st = TRV_OK;
    if (!st && explain.csv)
        st = (tmp = trv_outset_add(set, explain.csv)) ? prm_profiles_write_csv(ctx, m->profiles, tmp, explain.csv)
                                                      : trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
    if (!st && explain.shares)
        st = (tmp = trv_outset_add(set, explain.shares))
                 ? prm_time_shares_write_csv(ctx, m->profiles, tmp, explain.shares)
                 : trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
    if (!st && explain.png)
        st = (tmp = trv_outset_add(set, explain.png)) ? profile_png(ctx, m, s, tmp)
                                                      : trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
    return st;
}

/* The mission's route files, the GeoJSON's QGIS style and route.json beside
 * the GeoJSON in one set: all or none. */
static trv_status run_all(trv_ctx *ctx, const prm_mission_opts *o, prm_mission *m, const char *const in[4],
                          const trv_meta *meta)
{
    tool_out out;
    trv_status st = tool_out_open(ctx, &out, trv_path_beside(o->out.geojson, run_other_file(RUN_O_ROUTE_JSON)));
    char *qml = qgis_qml_path(o->out.geojson);
    const char *tmp = NULL;
    if (!st && !qml)
        st = trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
    if (!st)
        st = prm_mission_run(ctx, o, out.set, m);
    if (!st)
        st = explain_write(ctx, out.set, m, o->strategy);
    if (!st)
        st = (tmp = trv_outset_add(out.set, qml)) ? qgis_qml_route_write(ctx, tmp, "route")
                                                  : trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
    if (!st)
        summary(out.js, o, m, in, meta, !o->out.no_timing);
    free(qml);
    return tool_out_close(ctx, &out, st);
}

/* --allow-no-route, after the mission failed with TRV_ERR_DATA: when an
 * end is off the map or NOGO (prm_no_route_find), route.json alone says so
 * ("status": "no route") and the run succeeds; else the failure stands. */
static trv_status no_route(trv_ctx *ctx, const prm_mission_opts *o, const char *const in[4], const trv_meta *meta,
                           trv_status failed)
{
    char msg[1024];
    snprintf(msg, sizeof msg, "%s", trv_errmsg(ctx));
    prm_no_route nr;
    int found = 0;
    if (prm_no_route_find(ctx, o, &nr, &found) || !found) /* the failure stands, with its message */
        return trv_error(ctx, failed, "%s", msg);
    tool_out out;
    trv_status st = tool_out_open(ctx, &out, trv_path_beside(o->out.geojson, run_other_file(RUN_O_ROUTE_JSON)));
    if (!st) {
        trv_json_meta(out.js, meta);
        trv_json_obj(out.js, "inputs");
        static const char *const keys[4] = {"roadmap", "terrain", "from", "to"};
        for (int k = 0; k < 4; k++)
            trv_json_str(out.js, keys[k], in[k]);
        trv_json_end(out.js);
        prm_no_route_json(out.js, &nr, msg);
        fprintf(stderr, "trv-route: no route: the %s lies %s%s (%s); route.json says so\n", nr.end,
                nr.reason ? "on a cell " : "", nr.why, msg);
    }
    return tool_out_close(ctx, &out, st);
}

/* The table on stdout, and each smoothing's deviation. */
static void print_mission(const prm_mission *m)
{
    printf("%-10s %10s %9s %9s %9s %9s %8s %8s %6s %8s\n", "route", "distance", "mean elev", "mean slope",
           "max slope", "speed", "cost", "time h", "NOGO", "plan s");
    for (int k = 0; k < m->n; k++) {
        const prm_stats *s = &m->routes[k].stats;
        printf("%-10s %8.0f m %7.1f m %8.2f° %8.2f° %5.1f km/h %8.3f %8.3f %6ld %8.3f\n", m->routes[k].name,
               s->distance_m, s->elev_mean_m, s->slope_mean_deg, s->slope_max_deg, s->speed_mean_kmh, s->cost_mean,
               s->time_h, s->nogo_samples, s->plan_s);
    }
    for (int k = 0; k < m->n && m->routes[0].rank > 0; k++)
        printf("%s: rank %d, objective %.6g, %.0f %% of its roadmap route on the best's\n", m->routes[k].name,
               m->routes[k].rank, m->routes[k].path.objective, 100 * m->routes[k].overlap);
    for (int k = 0; m->legs && k < m->legs->nlegs; k++) {
        const prm_leg *g = &m->legs->leg[k];
        printf("  leg %-3d %-9s -> %-9s %8.0f m %8.3f h\n", k + 1, m->legs->name[g->from], m->legs->name[g->to],
               g->r.stats.distance_m, g->r.stats.time_h);
    }
    for (int k = 0; k < m->n && m->routes[0].stats.mc_n > 0; k++) {
        const prm_stats *s = &m->routes[k].stats;
        printf("%s: passable in %.0f %% of %d realisations; time p10 %.3f, p50 %.3f, p90 %.3f h\n",
               m->routes[k].name, 100 * s->p_pass, s->mc_n, s->time_q_h[0], s->time_q_h[1], s->time_q_h[2]);
    }
    for (int k = 0; k < m->n; k++)
        if (!isnan(m->routes[k].max_dev_m))
            printf("%s: smoothed in %.3f s, at most %.1f m from the unsmoothed route\n", m->routes[k].name,
                   m->smooth_s[k], m->routes[k].max_dev_m);
    for (int k = 0; k < m->n; k++) {
        const prm_corridor_info *c = &m->routes[k].corridor;
        const prm_grid_paging *pg = &c->paging;
        if (pg->paged)
            printf("%s: the %s searched paged: at most %d tiles of %d x %d cells in memory, %.1f MB written "
                   "to a temporary file and %.1f MB read back, %ld terrain tiles read (%ld more read back from a "
                   "spill file), %ld tiles reached\n",
                   m->routes[k].name, c->halfwidth_m > 0 && !c->whole ? "last corridor" : "whole grid", pg->tiles, 1 << pg->shift, 1 << pg->shift, pg->written / 1e6, pg->read / 1e6,
                   pg->terrain_reads, pg->terrain_spilled, pg->reached);
        if (c->whole)
            printf("%s: searched on the whole grid after %d widenings of the corridor\n", m->routes[k].name,
                   c->widened);
        else if (c->halfwidth_m > 0 && isinf(c->escape))
            printf("%s: the optimum within %.0f m of the roadmap route (%d widenings); the search closed the goal "
                   "before any move out of that corridor\n",
                   m->routes[k].name, c->halfwidth_m, c->widened);
        else if (c->halfwidth_m > 0)
            printf("%s: the optimum within %.0f m of the roadmap route (%d widenings); every path leaving that "
                   "corridor costs at least %.6g\n",
                   m->routes[k].name, c->halfwidth_m, c->widened, c->escape);
    }
    for (int k = 0; k < m->n; k++) {
        char line[1024];
        prm_time_shares_line(m->profiles, k, line, sizeof line);
        printf("%s: time by %s\n", m->routes[k].name, line);
    }
}

int main(int argc, char **argv)
{
    const char *from = NULL, *to = NULL, *strategy = NULL, *weights = NULL, *via = NULL, *visit = NULL;
    int allow_no_route = 0;
    prm_mission_opts o;
    prm_mission_opts_init(&o);
    const trv_opt opts[] = {
        {"roadmap", 0, TRV_ARG_STRING, &o.roadmap, "ROADMAP.gpkg", "the roadmap made by trv-roadmap"},
        {"terrain", 0, TRV_ARG_STRING, &o.terrain, "DIR", "the terrain directory the roadmap was made from"},
        {"from", 0, TRV_ARG_STRING, &from, "X,Y", "start (lon,lat unless --srs)"},
        {"to", 0, TRV_ARG_STRING, &to, "X,Y", "goal (lon,lat unless --srs)"},
        {"srs", 0, TRV_ARG_STRING, &o.srs, "CRS", "CRS of --from and --to (default EPSG:4326)"},
        {"strategy", 0, TRV_ARG_CHOICE, &strategy, "mmcr|mdr|msr|time", "objective (default mmcr, the paper's; time with --visit)"},
        {"via", 0, TRV_ARG_STRING, &via, "X,Y[;X,Y...]", "waypoints to pass in this order, in --srs (one route, its legs recorded)"},
        {"visit", 0, TRV_ARG_STRING, &visit, "X,Y[;X,Y...]", "waypoints to pass in the order of least total objective (exact up to 12)"},
        {"return", 0, TRV_ARG_FLAG, &o.wp.closed, NULL, "with --via/--visit: end back at the start (no --to)"},
        {"weights", 0, TRV_ARG_STRING, &weights, "kb,kh,ks,kd", "mmcr weights: low-risk, high-risk, safe, distance (default 3,10,1,0.2)"},
        {"admissible", 0, TRV_ARG_FLAG, &o.admissible, NULL, "mmcr with the admissible heuristic kd d instead of the paper's"},
        {"flat", 0, TRV_ARG_FLAG, &o.flat, NULL, "search the whole roadmap even when a tiled build's hierarchical index (ROADMAP.hier) is beside it (the same least cost; docs/method.md §4.13)"},
        {"allow-no-route", 0, TRV_ARG_FLAG, &allow_no_route, NULL, "when the start or the goal is off the map or NOGO, write route.json alone with \"status\": \"no route\", the end and its NOGO reason, and succeed (the demo's wet condition)"},
        {"no-timing", 0, TRV_ARG_FLAG, &o.out.no_timing, NULL, "leave the planning time (wall clock) out of the GeoJSON and --stats, so that reruns give the same bytes"},
        {"grid", 0, TRV_ARG_FLAG, &o.grid, NULL, "also solve the same objective(s) on the raster, 16-connected (the optimum)"},
        {"grid-corridor", 0, TRV_ARG_DOUBLE, &o.grid_corridor, "M", "--grid searches within M metres of the roadmap route first, doubled until the optimum found there is proven the whole grid's (default: the half minor axis of the ellipse around the ends outside which a path costs more than the roadmap route)"},
        {"grid-whole", 0, TRV_ARG_FLAG, &o.grid_whole, NULL, "--grid searches the whole grid at once instead (the same optimum; memory for every cell)"},
        {"grid-memory", 0, TRV_ARG_DOUBLE, &o.grid_memory, "MB", "the most memory --grid's searches may take, at about 40 bytes a cell of a corridor's box or of the grid: a corridor (its box) or the whole grid that would need more is searched paged (its state and the terrain's tiles, holding only the layers the objective reads, within three quarters of the cap with a paged corridor's guide cells and tile mask, the rest in temporary files in $TMPDIR; the same route), refused only below 16 tiles (2.8 MB when the roadmap cache maps the terrain, up to 19.6 MB for the direction-aware time at 1 m; a paged corridor's own bytes, 0.1 to 2 MB, come off the three quarters) or when that disk is too small (default: three quarters of the machine's memory, also asked by 0, and for a paged search at most 1500 MB; like r.cost's memory=)"},
        {"compare", 0, TRV_ARG_FLAG, &o.compare, NULL, "plan mdr, msr, mmcr and time and print them as one table"},
        {"no-smooth", 0, TRV_ARG_FLAG, &o.no_smooth, NULL, "keep the node polyline (no B-spline)"},
        {"alternatives", 0, TRV_ARG_INT, &o.alt.k, "K", "up to K routes of the strategy, the best and its alternatives (1..8, default 1; not with --compare or --grid)"},
        {"max-stretch", 0, TRV_ARG_DOUBLE, &o.alt.max_stretch, "F", "alternatives: objective at most F x the best's (default 1.25)"},
        {"max-overlap", 0, TRV_ARG_DOUBLE, &o.alt.max_overlap, "F", "alternatives: at most this share of each one's length on any other route (default 0.5)"},
        {"local-opt", 0, TRV_ARG_DOUBLE, &o.alt.alpha, "F", "alternatives: every piece up to F x the best's objective is a shortest path (the T-test; default 0.25)"},
        {"corridor", 0, TRV_ARG_DOUBLE, &o.corridor, "M", "refine on the raster within M metres of the roadmap route (default: 3 cells; 0: off)"},
        {"zones", 0, TRV_ARG_STRING, &o.zones, "ZONES", "nogo, factor and max_speed zones (any OGR vector; effect, value): applied to the roadmap at query time, barriers exact"},
        {"crossings", 0, TRV_ARG_STRING, &o.crossings, "POINTS", "where a nogo line may be crossed (bridges, fords, gates): points, optional radius (m)"},
        {"risk", 0, TRV_ARG_DOUBLE, &o.risk, "ALPHA", "only cells whose P(NOGO) (DIR/p_nogo.tif, trv-speed --realizations) is at most ALPHA, 0 to below 1 (the stops' cells exempt; with --zones both apply, to every strategy, alternative and leg)"},
        {"mc", 0, TRV_ARG_INT, &o.mc, "N", "each route on the first N realisations of DIR/dem_sim.tif: P(passable), time p10/p50/p90 (--stats columns, route.json)"},
        {"crossing-radius", 0, TRV_ARG_DOUBLE, &o.crossing_radius, "M", "the crossings' radius without a radius attribute (default: one cell)"},
        {"output", 'o', TRV_ARG_STRING, &o.out.geojson, "ROUTE.geojson", "routes as GeoJSON LineStrings (EPSG:4326); route.json, the run's summary, beside it"},
        {"gpx", 0, TRV_ARG_STRING, &o.out.gpx, "ROUTE.gpx", "GPX 1.1: start/goal waypoints and a track per route"},
        {"csv", 0, TRV_ARG_STRING, &o.out.csv, "ROUTE.csv", "the routes' vertices with terrain values"},
        {"stats", 0, TRV_ARG_STRING, &o.out.stats, "STATS.csv", "one row of statistics per route"},
        {"profile", 0, TRV_ARG_STRING, &explain.csv, "PROFILE.csv", "per route, one row per cell crossed: distance, elevation, grades along and across, soil, land use, speed, binding limit, time, cost"},
        {"profile-png", 0, TRV_ARG_STRING, &explain.png, "PROFILE.png", "the --strategy route's elevation and speed against distance, its binding limit as a band"},
        {"time-shares", 0, TRV_ARG_STRING, &explain.shares, "SHARES.csv", "per route, the share of its time per land use and per binding limit"},
        {NULL, 0, 0, NULL, NULL, NULL},
    };
    static const char *const required[] = {"roadmap", "terrain", "from", "output", NULL};
    const trv_cli cli = {
        .tool = "trv-route",
        .usage = "--roadmap ROADMAP.gpkg --terrain DIR --from X,Y (--to X,Y | --return) -o ROUTE.geojson [options]",
        .summary = "Plan a route on the roadmap with the paper's improved A* (mmcr) or a baseline (mdr: shortest,\n"
                   "msr: least slope, time: least traversal time), smooth it with a clamped cubic B-spline that\n"
                   "never enters NOGO, and write it for the field (GeoJSON, GPX, CSV) with its statistics.",
        .opts = opts,
        .libraries = tool_libraries,
        .required = required,
    };
    trv_cli_result res;
    trv_ctx *ctx = tool_start(&cli, argc, argv, &res);
    if (parse_pair(from, &o.from[0], &o.from[1]))
        tool_usage(&cli, ctx, "--from expects X,Y");
    if (via && visit)
        tool_usage(&cli, ctx, "--via and --visit exclude each other");
    if ((via || visit) && prm_waypoints_parse(ctx, via ? "--via" : "--visit", via ? via : visit, &o.wp))
        tool_usage(&cli, ctx, trv_errmsg(ctx));
    o.wp.visit = visit != NULL;
    if (o.wp.closed && to)
        tool_usage(&cli, ctx, "--return ends at the start: no --to");
    if (!o.wp.closed && !to)
        tool_usage(&cli, ctx, "--to is required (or --return with --via/--visit)");
    if (o.wp.closed)
        o.to[0] = o.from[0], o.to[1] = o.from[1];
    else if (parse_pair(to, &o.to[0], &o.to[1]))
        tool_usage(&cli, ctx, "--to expects X,Y");
    if (weights && parse_weights(weights, &o.weights))
        tool_usage(&cli, ctx, "--weights expects four numbers >= 0: kb,kh,ks,kd");
    tool_usage_check(&cli, ctx, prm_mission_opts_check(ctx, &o));
    const char *const outs[7] = {o.out.geojson, o.out.gpx, o.out.csv, o.out.stats, explain.csv, explain.png,
                                 explain.shares};
    char *cache = prm_roadmap_cache_path(o.roadmap), *hier = prm_hier_path(o.roadmap);
    const char *const ins[3] = {o.roadmap, cache ? cache : o.roadmap, hier ? hier : o.roadmap};
    tool_outputs_run_dir(&cli, ctx, outs, 7, o.terrain, 0, ins, 3);
    tool_folders_check(&cli, ctx, outs, 7);
    free(cache);
    free(hier);
    if (!strategy)
        strategy = o.wp.visit ? "time" : "mmcr";
    o.strategy = !strcmp(strategy, "mdr") ? PRM_MDR : !strcmp(strategy, "msr") ? PRM_MSR
               : !strcmp(strategy, "time") ? PRM_TIME : PRM_MMCR;
    trv_meta meta;
    trv_meta_init(&meta, cli.tool, argc, argv);
    const char *const in[4] = {o.roadmap, o.terrain, from, to ? to : from};
    prm_mission m;
    trv_status st = run_all(ctx, &o, &m, in, &meta);
    int planned = !st; /* else no notes, no table (--allow-no-route may still succeed) */
    if (st == TRV_ERR_DATA && allow_no_route)
        st = no_route(ctx, &o, in, &meta, st);
    if (planned && m.cache_note[0])
        fprintf(stderr, "%s: note: %s\n", cli.tool, m.cache_note);
    if (planned && m.hier_note[0])
        fprintf(stderr, "%s: note: %s\n", cli.tool, m.hier_note);
    if (planned && m.alt_note[0])
        fprintf(stderr, "%s: note: %s\n", cli.tool, m.alt_note);
    if (planned && m.zones_note[0])
        fprintf(stderr, "%s: note: %s\n", cli.tool, m.zones_note);
    if (planned && !m.direction_aware)
        fprintf(stderr, "%s: note: %s\n", cli.tool, m.time_note);
    if (planned && !res.quiet)
        print_mission(&m);
    prm_mission_clear(&m);
    return tool_end(&cli, ctx, st);
}
