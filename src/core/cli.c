/* Command-line parsing: a declarative option table over getopt_long, with
 * --help, --version and -q/--quiet built in. */
#include "trv.h"

#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

enum { MAX_OPTS = 64, LONG_ONLY_BASE = 256 };
enum { BUILTIN_HELP = LONG_ONLY_BASE + MAX_OPTS, BUILTIN_VERSION, BUILTIN_QUIET };

static int choice_ok(const char *choices, const char *value)
{
    size_t len = strlen(value);
    const char *p = choices;
    while (*p) {
        const char *bar = strchr(p, '|');
        size_t n = bar ? (size_t)(bar - p) : strlen(p);
        if (n == len && strncmp(p, value, n) == 0)
            return 1;
        if (!bar)
            break;
        p = bar + 1;
    }
    return 0;
}

static void print_opt(FILE *out, const char *shortpart, const char *name, const char *metavar, const char *help)
{
    char left[96];
    snprintf(left, sizeof left, "%s--%s%s%s", shortpart, name, metavar ? " " : "", metavar ? metavar : "");
    if (strlen(left) > 28)
        fprintf(out, "  %s\n  %-28s  %s\n", left, "", help);
    else
        fprintf(out, "  %-28s  %s\n", left, help);
}

void trv_cli_print_help(const trv_cli *cli, FILE *out)
{
    fprintf(out, "Usage: %s %s\n\n%s\n\nOptions:\n", cli->tool, cli->usage, cli->summary);
    for (const trv_opt *o = cli->opts; o && o->name; o++) {
        char sp[8] = "    ";
        if (o->short_name)
            snprintf(sp, sizeof sp, "-%c, ", o->short_name);
        const char *mv = o->type == TRV_ARG_FLAG ? NULL : (o->metavar ? o->metavar : "VALUE");
        print_opt(out, sp, o->name, mv, o->help);
    }
    print_opt(out, "-q, ", "quiet", NULL, "print only errors (no progress, no report)");
    print_opt(out, "-h, ", "help", NULL, "print this help and exit");
    print_opt(out, "    ", "version", NULL,
              cli->libraries ? "print the versions of traverse and of the libraries it runs with, and exit"
                             : "print the version and exit");
    fprintf(out, "\nExit status: 0 success, 1 failure, 2 usage error.\n");
}

static void print_version(const trv_cli *cli)
{
    printf("%s (traverse) %s\n", cli->tool, TRV_VERSION);
    if (cli->libraries) {
        char buf[1024] = "";
        cli->libraries(buf, sizeof buf);
        fputs(buf, stdout);
    }
}

static int usage_error(const trv_cli *cli, const char *fmt, const char *a, const char *b)
{
    fprintf(stderr, "%s: ", cli->tool);
    fprintf(stderr, fmt, a, b);
    fprintf(stderr, "\nTry '%s --help' for more information.\n", cli->tool);
    return 2;
}

static int parse_double(const char *arg, double *v)
{
    char *end;
    errno = 0;
    *v = strtod(arg, &end);
    return end != arg && !*end && !errno && isfinite(*v);
}

static int store(const trv_cli *cli, const trv_opt *o, const char *arg, int argc, char **argv)
{
    char *end = NULL;
    errno = 0;
    switch (o->type) {
    case TRV_ARG_FLAG:
        *(int *)o->dest = 1;
        return 0;
    case TRV_ARG_STRING:
        *(const char **)o->dest = arg;
        return 0;
    case TRV_ARG_CHOICE:
        if (!choice_ok(o->metavar, arg))
            return usage_error(cli, "--%s must be one of %s", o->name, o->metavar);
        *(const char **)o->dest = arg;
        return 0;
    case TRV_ARG_INT: {
        long v = strtol(arg, &end, 10);
        if (end == arg || *end || errno || v < -2147483647L || v > 2147483647L)
            return usage_error(cli, "--%s expects an integer, not '%s'", o->name, arg);
        *(int *)o->dest = (int)v;
        return 0;
    }
    case TRV_ARG_U64: {
        if (*arg == '-')
            return usage_error(cli, "--%s expects a non-negative integer, not '%s'", o->name, arg);
        unsigned long long v = strtoull(arg, &end, 10);
        if (end == arg || *end || errno)
            return usage_error(cli, "--%s expects a non-negative integer, not '%s'", o->name, arg);
        *(uint64_t *)o->dest = (uint64_t)v;
        return 0;
    }
    case TRV_ARG_DOUBLE: {
        double v;
        if (!parse_double(arg, &v))
            return usage_error(cli, "--%s expects a number, not '%s'", o->name, arg);
        *(double *)o->dest = v;
        return 0;
    }
    case TRV_ARG_DOUBLES: {
        /* the first number is optarg, the others follow it: consume them */
        double *d = o->dest;
        for (int k = 0; k < o->count; k++) {
            const char *a = k == 0 ? arg : (optind < argc ? argv[optind++] : NULL);
            if (!a || !parse_double(a, &d[k]))
                return usage_error(cli, "--%s expects %s numbers", o->name, o->metavar ? o->metavar : "more");
        }
        return 0;
    }
    }
    return 2;
}

int trv_cli_parse(const trv_cli *cli, int argc, char **argv, trv_cli_result *res)
{
    struct option lo[MAX_OPTS + 4];
    char shorts[3 * MAX_OPTS + 16] = ":hq";
    int seen[MAX_OPTS] = {0};
    int n = 0;
    memset(res, 0, sizeof *res);
    for (const trv_opt *o = cli->opts; o && o->name; o++, n++) {
        if (n >= MAX_OPTS)
            return usage_error(cli, "%s%s", "too many options in the option table", "");
        int has_arg = o->type == TRV_ARG_FLAG ? no_argument : required_argument;
        lo[n] = (struct option){o->name, has_arg, NULL, LONG_ONLY_BASE + n};
        if (o->short_name) {
            size_t l = strlen(shorts);
            shorts[l] = o->short_name;
            shorts[l + 1] = has_arg ? ':' : '\0';
            shorts[l + 2] = '\0';
        }
    }
    lo[n] = (struct option){"help", no_argument, NULL, BUILTIN_HELP};
    lo[n + 1] = (struct option){"version", no_argument, NULL, BUILTIN_VERSION};
    lo[n + 2] = (struct option){"quiet", no_argument, NULL, BUILTIN_QUIET};
    lo[n + 3] = (struct option){NULL, 0, NULL, 0};

    optind = 0; /* full reset of GNU getopt, so parse can be called again */
    opterr = 0;
    int c, idx;
    while ((c = getopt_long(argc, argv, shorts, lo, &idx)) != -1) {
        int k = -1;
        if (c == 'h' || c == BUILTIN_HELP) {
            trv_cli_print_help(cli, stdout);
            return 0;
        } else if (c == BUILTIN_VERSION) {
            print_version(cli);
            return 0;
        } else if (c == 'q' || c == BUILTIN_QUIET) {
            res->quiet = 1;
            continue;
        } else if (c == ':') {
            return usage_error(cli, "option '%s' needs a value%s", argv[optind - 1], "");
        } else if (c == '?') {
            if (optopt && optopt < LONG_ONLY_BASE) {
                char s[3] = {'-', (char)optopt, 0};
                return usage_error(cli, "unknown option '%s'%s", s, "");
            }
            return usage_error(cli, "unknown option '%s'%s", argv[optind - 1], "");
        } else if (c >= LONG_ONLY_BASE && c < LONG_ONLY_BASE + n) {
            k = c - LONG_ONLY_BASE;
        } else {
            for (int i = 0; i < n; i++)
                if (cli->opts[i].short_name == c)
                    k = i;
        }
        if (k < 0)
            return usage_error(cli, "unknown option '%s'%s", argv[optind - 1], "");
        if (seen[k] && cli->opts[k].type != TRV_ARG_FLAG)
            return usage_error(cli, "option --%s given twice%s", cli->opts[k].name, "");
        seen[k] = 1;
        int r = store(cli, &cli->opts[k], optarg, argc, argv);
        if (r)
            return r;
    }
    for (const char *const *req = cli->required; req && *req; req++) {
        for (int i = 0; i < n; i++)
            if (strcmp(cli->opts[i].name, *req) == 0 && !seen[i])
                return usage_error(cli, "missing required option --%s%s", *req, "");
    }
    res->npos = argc - optind;
    res->pos = argv + optind;
    if (res->npos < cli->min_pos)
        return usage_error(cli, "missing %s%s", cli->min_pos - res->npos == 1 ? "an argument" : "arguments", "");
    if (res->npos > cli->max_pos)
        return usage_error(cli, "unexpected argument '%s'%s", res->pos[cli->max_pos], "");
    return TRV_CLI_CONTINUE;
}

static void on_stop_signal(int sig) { trv_stop_request(sig); }

trv_ctx *trv_tool_ctx(const trv_cli *cli, const trv_cli_result *res, trv_term_progress_state *progress)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_stop_signal;
    sa.sa_flags = SA_RESETHAND; /* the second signal takes the default action */
    sigemptyset(&sa.sa_mask);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGHUP, &sa, NULL);
    trv_ctx *ctx = trv_ctx_new();
    if (!ctx) {
        fprintf(stderr, "%s: out of memory\n", cli->tool);
        return NULL;
    }
    trv_ctx_set_verbosity(ctx, res->quiet ? 0 : 1);
    memset(progress, 0, sizeof *progress);
    if (!res->quiet)
        trv_ctx_set_progress(ctx, trv_term_progress, progress);
    return ctx;
}
