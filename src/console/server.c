/* The console's HTTP and WebSocket server (console.h) on libwebsockets:
 * one service thread, one protocol callback for both (a WebSocket without
 * a subprotocol binds to protocols[0]; "trv-console" names it too). Files
 * by console_resolve, 404 otherwise; /ws requests to pace.c. */
#define _POSIX_C_SOURCE 200809L
#include "console_priv.h"

#include <arpa/inet.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* lws's log lines: kept (the last error), never printed (library code). */
static char lws_last[256];
static void lws_keep(int level, const char *line)
{
    (void)level;
    snprintf(lws_last, sizeof lws_last, "%s", line);
    size_t n = strlen(lws_last);
    while (n && (lws_last[n - 1] == '\n' || lws_last[n - 1] == '\r'))
        lws_last[--n] = '\0';
}

/* ---- outgoing messages ------------------------------------------------------------- */

void console_send(console *c, cs_client *to, const char *text, size_t n, int droppable)
{
    (void)c;
    if (droppable && to->queued > CS_QUEUE_MAX)
        return;
    cs_msg *m = malloc(sizeof *m + LWS_PRE + n);
    if (!m)
        return; /* lost to memory exhaustion, as a protocol reply would be */
    m->next = NULL, m->len = n, m->droppable = droppable;
    memcpy(m->buf + LWS_PRE, text, n);
    if (to->tail)
        to->tail->next = m;
    else
        to->head = m;
    to->tail = m;
    to->queued += n;
    lws_callback_on_writable(to->wsi);
}

void console_broadcast(console *c, const char *text, int droppable)
{
    for (cs_client *k = c->clients; k; k = k->next)
        console_send(c, k, text, strlen(text), droppable);
}

static int write_one(cs_client *k)
{
    cs_msg *m = k->head;
    if (!m)
        return 0;
    int w = lws_write(k->wsi, m->buf + LWS_PRE, m->len, LWS_WRITE_TEXT);
    k->head = m->next;
    if (!k->head)
        k->tail = NULL;
    k->queued -= m->len;
    free(m);
    if (w < 0)
        return -1;
    if (k->head)
        lws_callback_on_writable(k->wsi);
    return 0;
}

static void client_drop(console *c, cs_client *k)
{
    for (cs_client **p = &c->clients; *p; p = &(*p)->next)
        if (*p == k) {
            *p = k->next;
            break;
        }
    while (k->head) {
        cs_msg *m = k->head;
        k->head = m->next;
        free(m);
    }
    free(k->in);
}

/* ---- incoming ---------------------------------------------------------------------- */

static void receive(console *c, cs_client *k, struct lws *wsi, const char *in, size_t len)
{
    if (!k->too_long && k->inlen + len <= SIM_LINE_MAX) {
        if (k->inlen + len + 1 > k->incap) {
            size_t cap = (k->inlen + len + 1) * 2;
            char *p = realloc(k->in, cap);
            if (p)
                k->in = p, k->incap = cap;
        }
        if (k->inlen + len + 1 <= k->incap)
            memcpy(k->in + k->inlen, in, len), k->inlen += len;
    } else {
        k->too_long = 1;
    }
    if (!lws_is_final_fragment(wsi) || lws_remaining_packet_payload(wsi))
        return;
    if (k->too_long) {
        char *out = NULL;
        size_t n = 0, cap = 0;
        sim_protocol_error(&c->ss, "too_long", "a request longer than 1 MiB (it is dropped)", &out, &n, &cap);
        if (out)
            console_send(c, k, out, n - 1, 0);
        free(out);
    } else if (k->in) {
        k->in[k->inlen] = '\0';
        console_request(c, k, k->in);
    }
    k->inlen = 0, k->too_long = 0;
}

static int http_file(console *c, struct lws *wsi, const char *url)
{
    char path[4096];
    if (!console_resolve(&c->roots, url, path, sizeof path)) {
        if (lws_return_http_status(wsi, HTTP_STATUS_NOT_FOUND, "not found"))
            return -1;
        return lws_http_transaction_completed(wsi) ? -1 : 0;
    }
    int r = lws_serve_http_file(wsi, path, console_mime(path), NULL, 0);
    if (r < 0 || (r > 0 && lws_http_transaction_completed(wsi)))
        return -1;
    return 0;
}

static int callback(struct lws *wsi, enum lws_callback_reasons reason, void *user, void *in, size_t len)
{
    console *c = lws_context_user(lws_get_context(wsi));
    cs_client *k = user;
    char uri[64];
    switch (reason) {
    case LWS_CALLBACK_HTTP:
        return http_file(c, wsi, in);
    case LWS_CALLBACK_ESTABLISHED:
        if (lws_hdr_copy(wsi, uri, sizeof uri, WSI_TOKEN_GET_URI) <= 0 || strcmp(uri, "/ws"))
            return -1;
        memset(k, 0, sizeof *k);
        k->wsi = wsi, k->next = c->clients, c->clients = k;
        console_greet(c, k);
        return 0;
    case LWS_CALLBACK_RECEIVE:
        receive(c, k, wsi, in, len);
        return 0;
    case LWS_CALLBACK_SERVER_WRITEABLE:
        return write_one(k);
    case LWS_CALLBACK_CLOSED:
        client_drop(c, k);
        return 0;
    default:
        return lws_callback_http_dummy(wsi, reason, user, in, len);
    }
}

static const struct lws_protocols protocols[] = {
    {"http", callback, sizeof(cs_client), 65536, 0, NULL, 0},
    {"trv-console", callback, sizeof(cs_client), 65536, 0, NULL, 0},
    {NULL, NULL, 0, 0, 0, NULL, 0},
};

/* ---- open, close ------------------------------------------------------------------- */

static trv_status parse_addr(trv_ctx *ctx, const char *spec, char host[64], int *port)
{
    const char *colon = strrchr(spec, ':'), *p = colon ? colon + 1 : spec;
    struct in_addr a;
    snprintf(host, 64, "127.0.0.1");
    if (colon && ((size_t)(colon - spec) >= 64 || colon == spec))
        return trv_error(ctx, TRV_ERR_USAGE, "--console '%s': the address before ':' is not an IPv4 address", spec);
    if (colon)
        memcpy(host, spec, colon - spec), host[colon - spec] = '\0';
    char *end;
    long v = strtol(p, &end, 10);
    if (!*p || *end || v < 0 || v > 65535)
        return trv_error(ctx, TRV_ERR_USAGE, "--console '%s': the port must be a number in [0, 65535]", spec);
    if (inet_pton(AF_INET, host, &a) != 1)
        return trv_error(ctx, TRV_ERR_USAGE, "--console '%s': '%s' is not an IPv4 address", spec, host);
    *port = (int)v;
    return TRV_OK;
}

/* The rendered layers' directory, under $TMPDIR. */
static trv_status make_tmp(trv_ctx *ctx, console *c, const char *terrain)
{
    const char *base = getenv("TMPDIR");
    char tmpl[512];
    snprintf(tmpl, sizeof tmpl, "%s/trv-console-XXXXXX", base && *base ? base : "/tmp");
    if (!mkdtemp(tmpl))
        return trv_error(ctx, TRV_ERR_IO, "cannot make a temporary directory in %s", base ? base : "/tmp");
    c->tmp = strdup(tmpl);
    if (!c->tmp)
        return trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
    return console_layers_write(ctx, terrain, c->tmp);
}

static trv_status start_lws(trv_ctx *ctx, console *c, const char *spec)
{
    char host[64];
    int port = 0;
    trv_status st = parse_addr(ctx, spec, host, &port);
    if (st)
        return st;
    struct lws_context_creation_info info;
    memset(&info, 0, sizeof info);
    info.port = port;
    info.iface = host;
    info.protocols = protocols;
    info.options = LWS_SERVER_OPTION_DISABLE_IPV6;
    info.user = c;
    info.gid = (gid_t)-1, info.uid = (uid_t)-1;
    lws_set_log_level(LLL_ERR, lws_keep);
    lws_last[0] = '\0';
    c->lws = lws_create_context(&info);
    struct lws_vhost *vh = c->lws ? lws_get_vhost_by_name(c->lws, "default") : NULL;
    c->port = vh ? lws_get_vhost_listen_port(vh) : -1;
    if (c->port <= 0)
        return trv_error(ctx, TRV_ERR_IO, "--console %s: cannot listen%s%s", spec, lws_last[0] ? ": " : "",
                         lws_last);
    struct in_addr a;
    inet_pton(AF_INET, host, &a);
    c->addr = ntohl(a.s_addr);
    return TRV_OK;
}

trv_status console_open(trv_ctx *ctx, const char *addr, const char *terrain, const char *simdir, console **out)
{
    console *c = calloc(1, sizeof *c);
    if (!c)
        return trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
    c->tcp_fd = -1, c->pace = 1;
    c->web = console_web_dir(ctx);
    trv_status st = c->web ? TRV_OK : TRV_ERR_IO;
    if (!st && (!(c->run_dir = strdup(terrain)) || !(c->sim_dir = strdup(simdir))))
        st = trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
    if (!st)
        st = make_tmp(ctx, c, terrain);
    if (!st)
        st = start_lws(ctx, c, addr);
    if (st) {
        console_free(c);
        return st;
    }
    c->roots = (console_roots){c->web, "/usr/share/javascript/leaflet", "/usr/share/javascript/three", c->run_dir,
                               c->sim_dir, c->tmp};
    *out = c;
    return TRV_OK;
}

int console_port(const console *c) { return c->port; }
int console_loopback(const console *c) { return (c->addr >> 24) == 127; }

static void remove_tmp(const char *dir)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    char path[4096];
    while (d && (e = readdir(d)))
        if (e->d_name[0] != '.' && snprintf(path, sizeof path, "%s/%s", dir, e->d_name) < (int)sizeof path)
            unlink(path);
    if (d)
        closedir(d);
    rmdir(dir);
}

void console_free(console *c)
{
    if (!c)
        return;
    if (c->lws)
        lws_context_destroy(c->lws);
    if (c->tmp)
        remove_tmp(c->tmp);
    free(c->tmp), free(c->web), free(c->run_dir), free(c->sim_dir);
    free(c->path_sig), free(c->scan_t), free(c->scan_wall);
    free(c);
}

/* ---- the loops --------------------------------------------------------------------- */

trv_status console_run(trv_ctx *ctx, console *c, sim_server *tcp, const sim_scenario *sc, const prm_terrain *t,
                       const sim_env *env, sim_run **run, sim_commands **log)
{
    c->ss = (sim_session){sc, t, env, *run, sim_commands_new(), trv_ctx_new(), 0};
    c->ctx = ctx, c->tcp = tcp, c->live = 1, c->st = TRV_OK, c->done = 0;
    c->st = c->ss.quiet && c->ss.log ? sim_ext_scan_enable(ctx, c->ss.run)
                                     : trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
    if (c->ss.quiet)
        trv_ctx_set_verbosity(c->ss.quiet, 0);
    if (!c->st) {
        lws_sul_schedule(c->lws, 0, &c->sul, console_tick, 1);
        while (!c->done && lws_service(c->lws, 0) >= 0)
            ;
        lws_sul_cancel(&c->sul);
    }
    console_tcp_close(c);
    *run = c->ss.run; /* a reset replaced it */
    *log = c->ss.log;
    sim_run_close(c->ss.run);
    trv_ctx_free(c->ss.quiet);
    c->live = 0, c->ss.quiet = NULL;
    return c->st;
}

trv_status console_serve_files(trv_ctx *ctx, console *c)
{
    c->ctx = ctx, c->live = 0, c->st = TRV_OK, c->done = 0;
    c->ss = (sim_session){0};
    if (!(c->ss.quiet = trv_ctx_new()))
        return trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
    trv_ctx_set_verbosity(c->ss.quiet, 0);
    lws_sul_schedule(c->lws, 0, &c->sul, console_tick, 1);
    while (!c->done && lws_service(c->lws, 0) >= 0)
        ;
    lws_sul_cancel(&c->sul);
    trv_ctx_free(c->ss.quiet);
    c->ss.quiet = NULL;
    return c->st == TRV_ERR_CANCEL ? TRV_OK : c->st;
}
