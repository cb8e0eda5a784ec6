/* What every trv-* tool shares beyond core's option parser: the libraries
 * that --version names, the start (options, context, GDAL) and the end
 * (error message, exit code). Linked into every tool, not into the library. */
#include "tool.h"

#include "geo/geo.h"
#include "kriging/krige.h"

#include <stdio.h>
#include <stdlib.h>

void tool_libraries(char *buf, size_t n)
{
    char lapack[64];
    snprintf(buf, n, "GDAL %s\nPROJ %s\nLAPACK %s\n%s\n", geo_gdal_version(), geo_proj_version(),
             krg_lapack_version(lapack, sizeof lapack), krg_blas_version());
}

/* The progress printer's state: one run per process. */
static trv_term_progress_state progress;

trv_ctx *tool_start(const trv_cli *cli, int argc, char **argv, trv_cli_result *res)
{
    int rc = trv_cli_parse(cli, argc, argv, res);
    if (rc != TRV_CLI_CONTINUE)
        exit(rc);
    trv_ctx *ctx = trv_tool_ctx(cli, res, &progress);
    if (!ctx)
        exit(1);
    geo_init();
    return ctx;
}

void tool_usage(const trv_cli *cli, trv_ctx *ctx, const char *msg)
{
    fprintf(stderr, "%s: %s\nTry '%s --help' for more information.\n", cli->tool, msg, cli->tool);
    trv_ctx_free(ctx);
    exit(2);
}

void tool_usage_check(const trv_cli *cli, trv_ctx *ctx, trv_status st)
{
    if (st == TRV_ERR_USAGE)
        tool_usage(cli, ctx, trv_errmsg(ctx));
}

int tool_end(const trv_cli *cli, trv_ctx *ctx, trv_status st)
{
    if (st)
        fprintf(stderr, "%s: %s\n", cli->tool, trv_errmsg(ctx));
    trv_ctx_free(ctx);
    return st ? 1 : 0;
}

trv_status tool_out_open(trv_ctx *ctx, tool_out *o, char *sum_path)
{
    o->set = trv_outset_new();
    o->js = trv_json_new();
    o->sum = sum_path;
    return o->set && o->js && o->sum ? TRV_OK : trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
}

trv_status tool_out_close(trv_ctx *ctx, tool_out *o, trv_status st)
{
    if (!st)
        st = trv_json_stage(ctx, o->set, o->js, o->sum);
    if (!st)
        st = trv_outset_commit(ctx, o->set);
    trv_outset_free(o->set);
    trv_json_free(o->js);
    free(o->sum);
    return st;
}

void tool_json_grid(trv_json *js, const geo_grid *g)
{
    char crs[64];
    trv_json_obj(js, "grid");
    trv_json_int(js, "nx", g->nx);
    trv_json_int(js, "ny", g->ny);
    trv_json_num(js, "cell_m", "%.10g", g->gt[1]);
    trv_json_str(js, "crs", geo_crs_label(g->wkt, crs, sizeof crs));
}
