/* What every trv-* tool shares beyond core's option parser: the libraries
 * that --version names, the start (options, context, GDAL) and the end
 * (error message, exit code). Linked into every tool, not into the library. */
#include "tool.h"

#include "geo/geo.h"
#include "kriging/krige.h"
#include "run/run.h"

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
    krg_blas_rest(); /* a tool that needs BLAS threads gets them back on its first such call */
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

/* A failed check ends the tool: exit 2 for a usage error, else 1. */
void tool_check_end(const trv_cli *cli, trv_ctx *ctx, trv_status st)
{
    tool_usage_check(cli, ctx, st);
    if (st)
        exit(tool_end(cli, ctx, st));
}

void tool_outputs_check(const trv_cli *cli, trv_ctx *ctx, const char *const *outputs, size_t n,
                        const char *const *inputs, size_t m)
{
    tool_check_end(cli, ctx, trv_outputs_check(ctx, outputs, n, inputs, m));
}

void tool_folders_check(const trv_cli *cli, trv_ctx *ctx, const char *const *files, size_t n)
{
    tool_check_end(cli, ctx, trv_output_folders_check(ctx, files, n));
}

void tool_outputs_check_dir(const trv_cli *cli, trv_ctx *ctx, const char *dir, const char *const *names,
                            size_t nnames, const char *const *outputs, size_t n, const char *const *inputs,
                            size_t m)
{
    char **all = calloc(nnames + n + 1, sizeof *all);
    size_t k = 0;
    for (; all && k < nnames && (all[k] = trv_path_join(dir, names[k])); k++)
        ;
    trv_status st = all && k == nnames ? TRV_OK : trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
    for (size_t i = 0; all && i < n; i++)
        all[nnames + i] = (char *)outputs[i];
    if (!st)
        st = trv_outputs_check(ctx, (const char *const *)all, nnames + n, inputs, m);
    for (size_t i = 0; all && i < k; i++)
        free(all[i]);
    free(all);
    tool_check_end(cli, ctx, st);
}

void tool_outputs_run_dir(const trv_cli *cli, trv_ctx *ctx, const char *const *outputs, size_t n, const char *dir,
                          int others, const char *const *inputs, size_t m)
{
    /* the run directory's files (allocated here) and then the caller's inputs */
    char **ins = calloc(RUN_NLAYERS + RUN_NOTHERS + m + 1, sizeof *ins), *sim = trv_path_join(dir, RUN_SIM_PREFIX);
    size_t nin = 0;
    for (int k = 0; k < RUN_NLAYERS && ins && sim; k++)
        ins[nin++] = run_path(dir, (run_id)k);
    for (int k = 0; k < RUN_NOTHERS && ins && sim && others; k++)
        if (!run_other_of((run_oid)k)->folder)
            ins[nin++] = run_other_path(run_other_of((run_oid)k)->in_sim ? sim : dir, (run_oid)k);
    trv_status st = ins && sim ? TRV_OK : trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
    for (size_t k = 0; k < nin && !st; k++)
        if (!ins[k])
            st = trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
    size_t nfixed = nin;
    for (size_t k = 0; ins && k < m; k++)
        ins[nin++] = (char *)inputs[k];
    if (!st)
        st = trv_outputs_check(ctx, outputs, n, (const char *const *)ins, nin);
    for (size_t k = 0; k < nfixed; k++)
        free(ins[k]);
    free(ins);
    free(sim);
    tool_check_end(cli, ctx, st);
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
    o->doc = NULL;
    return o->set && o->js && o->sum ? TRV_OK : trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
}

trv_status tool_out_close(trv_ctx *ctx, tool_out *o, trv_status st)
{
    if (!st && o->doc && !(*o->doc = trv_json_doc(o->js)))
        st = trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
    if (!st)
        st = trv_json_stage(ctx, o->set, o->js, o->sum);
    if (!st)
        st = trv_outset_commit(ctx, o->set);
    if (st)
        trv_outset_explain(ctx, o->set);
    trv_outset_free(o->set);
    trv_json_free(o->js);
    free(o->sum);
    return st;
}

void tool_print_line(void *arg, const char *line)
{
    (void)arg;
    puts(line);
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
