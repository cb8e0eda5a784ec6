/* Context, status codes, error messages and progress reporting. */
#include "trv.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

struct trv_ctx {
    int verbosity;
    trv_progress_fn progress;
    void *progress_user;
    int has_seed;
    uint64_t seed;
    char msg[2048];
};

const char *trv_status_str(trv_status st)
{
    switch (st) {
    case TRV_OK: return "success";
    case TRV_ERR_USAGE: return "invalid argument";
    case TRV_ERR_IO: return "i/o error";
    case TRV_ERR_FORMAT: return "bad file format";
    case TRV_ERR_CRS: return "coordinate system error";
    case TRV_ERR_GRID: return "grid mismatch";
    case TRV_ERR_DATA: return "unusable data";
    case TRV_ERR_NOMEM: return "out of memory";
    case TRV_ERR_CANCEL: return "cancelled";
    case TRV_ERR_INTERNAL: return "internal error";
    }
    return "unknown status";
}

trv_ctx *trv_ctx_new(void)
{
    trv_ctx *ctx = calloc(1, sizeof *ctx);
    if (ctx)
        ctx->verbosity = 1;
    return ctx;
}

void trv_ctx_free(trv_ctx *ctx) { free(ctx); }

void trv_ctx_set_verbosity(trv_ctx *ctx, int level) { ctx->verbosity = level; }
int trv_ctx_verbosity(const trv_ctx *ctx) { return ctx->verbosity; }

void trv_ctx_set_progress(trv_ctx *ctx, trv_progress_fn fn, void *user)
{
    ctx->progress = fn;
    ctx->progress_user = user;
}

void trv_ctx_progress(const trv_ctx *ctx, trv_progress_fn *fn, void **user)
{
    *fn = ctx->progress;
    *user = ctx->progress_user;
}

void trv_ctx_set_seed(trv_ctx *ctx, uint64_t seed)
{
    ctx->has_seed = 1;
    ctx->seed = seed;
}
int trv_ctx_has_seed(const trv_ctx *ctx) { return ctx->has_seed; }
uint64_t trv_ctx_seed(const trv_ctx *ctx) { return ctx->seed; }

trv_status trv_error(trv_ctx *ctx, trv_status st, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(ctx->msg, sizeof ctx->msg, fmt, ap);
    va_end(ap);
    return st;
}

trv_status trv_error_prefix(trv_ctx *ctx, trv_status st, const char *fmt, ...)
{
    char prefix[1024], old[sizeof ctx->msg];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(prefix, sizeof prefix, fmt, ap);
    va_end(ap);
    memcpy(old, ctx->msg, sizeof old);
    if (snprintf(ctx->msg, sizeof ctx->msg, "%s: %s", prefix, old) >= (int)sizeof ctx->msg)
        memcpy(ctx->msg + sizeof ctx->msg - 4, "...", 4); /* truncated: say so */
    return st;
}

const char *trv_errmsg(const trv_ctx *ctx) { return ctx->msg; }

/* Set by the tools' signal handler (trv_tool_ctx); read at every progress
 * report, so that a terminated run ends through its normal error path. */
static volatile sig_atomic_t stop_signal;

void trv_stop_request(int sig) { stop_signal = sig; }

trv_status trv_progress(trv_ctx *ctx, double fraction, const char *label)
{
    if (stop_signal)
        return trv_error(ctx, TRV_ERR_CANCEL, "interrupted by signal %d (%s)%s%s", (int)stop_signal,
                         strsignal(stop_signal), label ? " during " : "", label ? label : "");
    if (!ctx->progress)
        return TRV_OK;
    if (fraction < 0) fraction = 0;
    if (fraction > 1) fraction = 1;
    if (ctx->progress(fraction, label, ctx->progress_user) != 0)
        return trv_error(ctx, TRV_ERR_CANCEL, "interrupted%s%s", label ? " during " : "", label ? label : "");
    return TRV_OK;
}

void trv_info(const trv_ctx *ctx, int level, const char *fmt, ...)
{
    if (ctx->verbosity < level)
        return;
    va_list ap;
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
}

/* Prints "label: 0...10...20...30...40...50...60...70...80...90...100 - done."
 * as GDALTermProgress does: 40 ticks, a number every fourth. A new label
 * starts a new line. */
int trv_term_progress(double fraction, const char *label, void *user)
{
    trv_term_progress_state *st = user;
    const char *lab = label ? label : "";
    if (!st->started || strncmp(st->label, lab, sizeof st->label - 1) != 0) {
        if (st->started && st->last_tick < 40)
            fputc('\n', stderr);
        st->started = 1;
        snprintf(st->label, sizeof st->label, "%s", lab);
        fprintf(stderr, "%s%s", lab, *lab ? ": " : "");
        st->last_tick = -1;
    }
    int tick = (int)(fraction * 40.0 + 1e-9);
    if (tick > 40) tick = 40;
    while (st->last_tick < tick) {
        st->last_tick++;
        if (st->last_tick % 4 == 0)
            fprintf(stderr, "%d", st->last_tick * 10 / 4);
        else
            fputc('.', stderr);
        if (st->last_tick == 40)
            fputs(" - done.\n", stderr);
    }
    fflush(stderr);
    return 0;
}

double trv_now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}
