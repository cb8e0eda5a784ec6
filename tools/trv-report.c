/* trv-report: the mission report of a run directory, Markdown and HTML.
 * Thin: options -> rnd_report_write -> exit status. */
#include "geo/geo.h"
#include "render/project.h"
#include "tool.h"

#include <stdio.h>

int main(int argc, char **argv)
{
    const char *out = NULL, *html = NULL;
    const trv_opt opts[] = {
        {"output", 'o', TRV_ARG_STRING, &out, "REPORT.md", "the Markdown report (images linked relative to it)"},
        {"html", 0, TRV_ARG_STRING, &html, "REPORT.html", "also a self-contained HTML page (images embedded)"},
        {NULL, 0, 0, NULL, NULL, NULL},
    };
    static const char *const required[] = {"output", NULL};
    const trv_cli cli = {
        .tool = "trv-report",
        .usage = "DIR -o DIR/report.md [--html DIR/report.html] [-q]",
        .summary =
            "Mission report of a run directory, as GitHub-flavoured Markdown and, with --html, one self-contained\n"
            "HTML page (images as data: URIs, no external resource), both built from the same data: the inputs\n"
            "and their provenance (the TRV_TOOL, TRV_ARGS, TRV_SEED metadata of every layer), the terrain, the\n"
            "variogram and the kriging cross-validation (krige.txt, variogram.csv), the vehicle, MI/VCI and the\n"
            "per-soil table (speed.txt, speed_report.csv), the class and GO/NOGO fractions counted in class.tif\n"
            "and gonogo.tif, the routes (route_stats.csv, route.txt), the simulation (sim/metrics.json,\n"
            "sim/events.jsonl) and the maps png/{dem,slope,speed,gonogo,cost,class,routes,sim}.png.\n"
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
    int rc = trv_cli_parse(&cli, argc, argv, &res);
    if (rc != TRV_CLI_CONTINUE)
        return rc;
    trv_term_progress_state progress;
    trv_ctx *ctx = trv_tool_ctx(&cli, &res, &progress);
    if (!ctx)
        return 1;
    trv_ctx_set_progress(ctx, NULL, NULL); /* one quick pass: no progress bar */
    geo_init();
    rnd_report_opts o = {.dir = res.pos[0], .md_path = out, .html_path = html};
    trv_status st = rnd_report_write(ctx, &o);
    if (st)
        fprintf(stderr, "trv-report: %s\n", trv_errmsg(ctx));
    else if (!res.quiet)
        printf("wrote '%s'%s%s%s\n", out, html ? " and '" : "", html ? html : "", html ? "'" : "");
    trv_ctx_free(ctx);
    return st ? 1 : 0;
}
