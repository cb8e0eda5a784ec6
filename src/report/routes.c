/* The report's strategies compared and maps (report_priv.h): every route
 * of route_stats.csv, each roadmap route against the raster optimum of
 * its objective, the roadmap (roadmap.json) and the smoothing
 * (route.json); then the run's maps (png/). */
#define _POSIX_C_SOURCE 200809L
#include "report/report_priv.h"

#include <stdlib.h>
#include <string.h>

/* Each roadmap route against the raster optimum of the same objective. */
static void routes_vs_grid(doc *d, const rstats *rs)
{
    block *g = NULL;
    int cobj = trv_csv_col(rs->csv, "objective");
    for (size_t i = 0; i < rs->n; i++) {
        const char *name = rs_name(rs, i);
        for (size_t j = 0; j < rs->n; j++) {
            const char *gname = rs_name(rs, j);
            if (strncmp(gname, "grid-", 5) || strcmp(gname + 5, name))
                continue;
            if (!g) {
                rpt_p(d, "Each roadmap route against the raster optimum of the same objective (relative "
                         "difference; the objective is what both minimise):");
                g = rpt_table(d, "lrrrr", "route vs raster optimum", "objective", "distance", "time", "mean cost");
            }
            double oa = NAN, ob = NAN;
            if (cobj >= 0) {
                char *e1, *e2;
                oa = strtod(trv_csv_cell(rs->csv, i, cobj), &e1);
                ob = strtod(trv_csv_cell(rs->csv, j, cobj), &e2);
                if (*e1 || *e2)
                    oa = ob = NAN;
            }
#define REL(x, y) ((y) > 0 ? rpt_fmt("%+.1f %%", 100.0 * ((x) / (y) - 1)) : strdup("-"))
            rpt_row(d, g, rpt_fmt("%s / %s", name, gname), REL(oa, ob), REL(rs_val(rs, i, RS_DIST), rs_val(rs, j, RS_DIST)),
                    REL(rs_val(rs, i, RS_TIME), rs_val(rs, j, RS_TIME)), REL(rs_val(rs, i, RS_COST), rs_val(rs, j, RS_COST)));
#undef REL
        }
    }
}

trv_status rpt_sec_routes(trv_ctx *ctx, doc *d, run *r, const rstats *rs)
{
    rpt_h(d, 2, "Strategies compared");
    rpt_p(d, "From `%s`: MDR (shortest distance), MSR (smallest slope), MMCR (smallest mobility "
             "cost) and time on the roadmap; `grid-*` are the same objectives solved exactly on the raster "
             "(16-connected), the optimum each roadmap route is measured against.",
          OTHER(RUN_O_ROUTE_STATS));
    block *t = rpt_table(d, "lrrrrrrrr", "route", "distance (km)", "time (h)", "time (min)", "mean slope (°)",
                         "max slope (°)", "mean speed (km/h)", "mean cost", "NOGO samples");
    for (size_t i = 0; i < rs->n; i++)
        rpt_row(d, t, rpt_fmt("%s", rs_name(rs, i)), rpt_fmt("%.2f", rs_val(rs, i, RS_DIST) / 1000),
                rpt_fmt("%.3f", rs_val(rs, i, RS_TIME)), rpt_fmt("%.1f", rs_val(rs, i, RS_TIME) * 60),
                rpt_fmt("%.2f", rs_val(rs, i, RS_MSLOPE)), rpt_fmt("%.2f", rs_val(rs, i, RS_XSLOPE)),
                rpt_fmt("%.2f", rs_val(rs, i, RS_SPEED)), rpt_fmt("%.3f", rs_val(rs, i, RS_COST)),
                rpt_fmt("%.0f", rs_val(rs, i, RS_NOGO)));
    routes_vs_grid(d, rs);
    char rel[256], all[64];
    int shown = 0;
    trv_sfmt(all, sizeof all, "%s/%s", OTHER(RUN_O_PNG), ROUTES_PNG);
    trv_status st = rpt_route_map(r, rs, rel, sizeof rel) /* the top shows one route: every route here */
                        ? rpt_image(ctx, d, r, all, "Every route over the mobility cost", NULL, &shown)
                        : TRV_OK;
    struct json_object *o = NULL;
    if (!st)
        st = rpt_summary(ctx, r, RUN_O_ROADMAP_JSON, &o);
    if (!st && o) {
        rpt_p(d, "The roadmap (`%s`):", OTHER(RUN_O_ROADMAP_JSON));
        run_lines_roadmap(o, rpt_li_line, d); /* as trv-roadmap prints them */
        rpt_end_list(d);
    }
    json_object_put(o);
    o = NULL;
    if (!st)
        st = rpt_summary(ctx, r, RUN_O_ROUTE_JSON, &o);
    struct json_object *routes = jget(o, "routes");
    if (!st && json_object_is_type(routes, json_type_array)) {
        /* the smoothing's deviation only (its time is the wall clock's) */
        for (size_t k = 0; k < json_object_array_length(routes); k++) {
            struct json_object *x = json_object_array_get_idx(routes, k);
            if (!isnan(jnum(x, "max_deviation_m")))
                rpt_li(d, "%s: at most %.1f m from the unsmoothed route", jstr(x, "route"), jnum(x, "max_deviation_m"));
        }
        rpt_end_list(d);
    }
    json_object_put(o);
    if (!st)
        st = rpt_alternatives(ctx, d, r);
    return st ? st : rpt_visit_legs(ctx, d, r);
}

trv_status rpt_sec_maps(trv_ctx *ctx, doc *d, run *r, const rstats *rs)
{
    rpt_h(d, 2, "Maps");
    /* a layer's map is named after the layer (png/<name>.png) */
    static const struct {
        run_id layer;           /* RUN_NLAYERS: not a layer's map, name says */
        const char *name, *caption;
    } M[] = {{RUN_DEM, NULL, "Terrain: elevation with hillshade"},
             {RUN_SLOPE, NULL, "Slope (degrees)"},
             {RUN_SPEED, NULL, "Attainable speed (km/h, the worse direction of travel)"},
             {RUN_LIMIT, NULL, "The speed limit that binds"},
             {RUN_GONOGO, NULL, "GO/NOGO and the NOGO reasons"},
             {RUN_COST, NULL, "Fuzzy mobility cost"},
             {RUN_CLASS, NULL, "Mobility classes"},
             {RUN_NLAYERS, "sim", "Simulated drives against the plan"},
             {RUN_NLAYERS, "sim_replan", "The first re-plan up close: the obstacle, the plan and the drive around it"}};
    char top[256], all[64];
    trv_sfmt(all, sizeof all, "%s/%s", OTHER(RUN_O_PNG), ROUTES_PNG);
    if (rs && rpt_route_map(r, rs, top, sizeof top)) /* rs NULL: no route (route.json) */
        rpt_p(d, "The recommended route (`%s`) is the map at the top; every route (`%s`) is under "
                 "Strategies compared.", top, all);
    else if (trv_file_exists(P(r, all)))
        rpt_p(d, "The routes by strategy (`%s`) are the map at the top.", all);
    char absent[512] = "";
    for (size_t k = 0; k < sizeof M / sizeof M[0]; k++) {
        char rel[64];
        trv_sfmt(rel, sizeof rel, "%s/%s.png", OTHER(RUN_O_PNG),
                 M[k].layer < RUN_NLAYERS ? run_layer_of(M[k].layer)->name : M[k].name);
        int added;
        trv_status st = rpt_image(ctx, d, r, rel, M[k].caption, NULL, &added);
        if (st)
            return st;
        if (!added) {
            size_t len = strlen(absent);
            trv_sfmt(absent + len, sizeof absent - len, "%s`%s`", len ? ", " : "", rel);
        }
    }
    if (*absent)
        rpt_p(d, "Absent: %s.", absent);
    return TRV_OK;
}

