/* trv-report: the mission report of a run directory, Markdown and HTML.
 * Thin: options -> rpt_write -> exit status. */
#include "geo/geo.h"
#include "report/report.h"
#include "tool.h"

#include <stdio.h>

int main(int argc, char **argv)
{
    const char *out = NULL, *html = NULL;
    const trv_opt opts[] = {
        {"output", 'o', TRV_ARG_STRING, &out, "REPORT.md", "the Markdown report (images linked relative to it)"},
        {"html", 0, TRV_ARG_STRING, &html, "REPORT.html", "also a self-contained HTML page (images embedded, the route files linked relative to it)"},
        {NULL, 0, 0, NULL, NULL, NULL},
    };
    static const char *const required[] = {"output", NULL};
    const trv_cli cli = {
        .tool = "trv-report",
        .usage = "DIR -o DIR/report.md [--html DIR/report.html] [-q]",
        .summary =
            "Mission report of a run directory, as GitHub-flavoured Markdown and, with --html, one self-contained\n"
            "HTML page (images as data: URIs, no external resource), both built from the same data. In the order a\n"
            "mission planner reads: first the answer, the recommended route (MMCR, the method's answer; without\n"
            "one, the first roadmap route) on the routes map (png/routes.png) beside its distance, travel time,\n"
            "cost, NOGO exposure and maximum slope (route_stats.csv), its length by mobility class, share at top\n"
            "speed and slowest kilometre (route.csv, the vehicle's limits in speed.json), the simulated drives of it\n"
            "(sim*/metrics.json, matched by planned distance), what limits it, and relative links to route.gpx,\n"
            "route.geojson and route.csv. Then the strategies compared (route_stats.csv, roadmap.json,\n"
            "route.json), the simulation (sim*/metrics.json, events.jsonl), the maps\n"
            "png/{dem,slope,speed,limit,gonogo,cost,class,sim}.png; then the method: terrain, variogram and\n"
            "kriging cross-validation (krige.json, variogram.csv), vehicle, MI/VCI, the share of the GO cells\n"
            "each speed limit binds and the speeds per land use and soil (speed.json, speed_report.csv), the class and GO/NOGO fractions counted in class.tif and gonogo.tif (cost.json);\n"
            "last the inputs and their provenance (the TRV_INPUT_* items and the TRV_TOOL, TRV_ARGS, TRV_SEED\n"
            "metadata of every layer). The *.json files are the stages' summaries (docs/summaries.md); no\n"
            "printed output is read.\n"
            "Required in DIR: route_stats.csv, class.tif, gonogo.tif, dem.tif, slope.tif; every other input\n"
            "is reported as absent when missing. A missing required input, or any input that is present but\n"
            "unreadable or corrupt, is an error (exit 1) and nothing is written. No dates: the same DIR gives\n"
            "the same bytes.",
        .opts = opts,
        .libraries = tool_libraries,
        .required = required,
        .min_pos = 1,
        .max_pos = 1,
    };
    trv_cli_result res;
    trv_ctx *ctx = tool_start(&cli, argc, argv, &res);
    trv_ctx_set_progress(ctx, NULL, NULL); /* one quick pass: no progress bar */
    rpt_opts o = {.dir = res.pos[0], .md_path = out, .html_path = html};
    const char *const outs[2] = {out, html};
    tool_outputs_run_dir(&cli, ctx, outs, 2, o.dir, 1, NULL, 0);
    trv_status st = rpt_write(ctx, &o);
    if (!st && !res.quiet)
        printf("wrote '%s'%s%s%s\n", out, html ? " and '" : "", html ? html : "", html ? "'" : "");
    return tool_end(&cli, ctx, st);
}
