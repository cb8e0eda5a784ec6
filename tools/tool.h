/* tool.h — what every trv-* tool shares beyond core's option parser: the
 * libraries --version names, and the one start and end of a tool run. */
#ifndef TOOL_H
#define TOOL_H

#include "core/trv.h"

#include "core/json.h"
#include "geo/geo.h"

#include <stddef.h>

/* The trv_cli libraries hook: the libraries a tool runs with, as they
 * report themselves at run time, one "NAME VERSION" line each:
 *   GDAL 3.6.2
 *   PROJ 9.1.1
 *   LAPACK 3.11.0
 *   OpenBLAS 0.3.21 DYNAMIC_ARCH ... */
void tool_libraries(char *buf, size_t n);

/* The start of every tool: parse argv (trv_cli_parse: the tool's values
 * through cli's table, -q and positionals into *res); after --help or
 * --version exit 0, after a usage error (already printed) exit 2. Then the
 * run's context (trv_tool_ctx: verbosity from -q, the terminal progress
 * printer unless quiet, SIGTERM/SIGINT/SIGHUP stop the run at its next
 * progress report), exit 1 if out of memory; and GDAL registered
 * (geo_init). Returns the context. */
trv_ctx *tool_start(const trv_cli *cli, int argc, char **argv, trv_cli_result *res);

/* A usage error found after the start: print
 *   trv-x: MSG
 *   Try 'trv-x --help' for more information.
 * on stderr, free ctx (may be NULL; msg may be its trv_errmsg) and exit 2. */
void tool_usage(const trv_cli *cli, trv_ctx *ctx, const char *msg) __attribute__((noreturn));

/* tool_usage with ctx's message when st is TRV_ERR_USAGE (a library's
 * *_opts_check); otherwise returns. */
void tool_usage_check(const trv_cli *cli, trv_ctx *ctx, trv_status st);
/* A failed check ends the tool: exit 2 for a usage error, else 1 (TRV_OK returns). */
void tool_check_end(const trv_cli *cli, trv_ctx *ctx, trv_status st);

/* trv_outputs_check (core): two outputs that are one file, or an output
 * that is an input, is a usage error (exit 2); out of memory exits 1.
 * Called right after the options are parsed, before any work. */
void tool_outputs_check(const trv_cli *cli, trv_ctx *ctx, const char *const *outputs, size_t n,
                        const char *const *inputs, size_t m);

/* trv_output_folders_check (core): files[0..n) the tool writes without
 * making their folder; a missing folder exits 1 before any work. */
void tool_folders_check(const trv_cli *cli, trv_ctx *ctx, const char *const *files, size_t n);

/* tool_outputs_check of outputs[0..n) and dir/names[k] for k < nnames
 * (the files a tool writes into a directory). */
void tool_outputs_check_dir(const trv_cli *cli, trv_ctx *ctx, const char *dir, const char *const *names,
                            size_t nnames, const char *const *outputs, size_t n, const char *const *inputs,
                            size_t m);

/* tool_outputs_check with inputs[0..m) and the inputs a run directory's
 * readers take: DIR's layers (run.h), and when others is 1 its other
 * files and those of DIR/sim. */
void tool_outputs_run_dir(const trv_cli *cli, trv_ctx *ctx, const char *const *outputs, size_t n, const char *dir,
                          int others, const char *const *inputs, size_t m);

/* The end of every tool: on failure print "trv-x: <ctx's message>" on
 * stderr; free ctx; the exit code: 0 when st is TRV_OK, else 1. */
int tool_end(const trv_cli *cli, trv_ctx *ctx, trv_status st);

/* One tool run's outputs: the set its layers, styles and summary go into
 * (all of them or none), and the summary. tool_out_open takes sum_path
 * (malloc'ed; NULL means out of memory) and frees it; TRV_ERR_NOMEM when
 * anything is missing. tool_out_close: when st is TRV_OK, stages the
 * summary at sum_path and commits the set; always frees; returns the
 * status. */
/* Opens the summary's "grid" object with nx, ny, cell_m and crs (the
 * label geo gives); the caller adds its cell counts and ends it. */
void tool_json_grid(trv_json *js, const geo_grid *g);

typedef struct tool_out {
    trv_outset *set;
    trv_json *js;
    char *sum;
    /* when the caller sets it (NULL after open): the summary as written,
     * for the tool's printed lines (run/lines.h); the caller releases it
     * with json_object_put */
    struct json_object **doc;
} tool_out;
trv_status tool_out_open(trv_ctx *ctx, tool_out *o, char *sum_path);
trv_status tool_out_close(trv_ctx *ctx, tool_out *o, trv_status st);
/* run/lines.h's line function for stdout: the line and a newline. */
void tool_print_line(void *arg, const char *line);

#endif
