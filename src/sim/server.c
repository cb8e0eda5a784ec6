/* The lock-step server (server.h): a TCP socket (POSIX), one client at a
 * time, newline-delimited requests of at most SIM_LINE_MAX bytes, each
 * answered by protocol.c before the next is read. The run only advances
 * on a step request, so a slow client slows nothing but itself. */
#define _POSIX_C_SOURCE 200809L
#include "server.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

struct sim_server {
    int fd;
    int port;
    unsigned long addr; /* host order */
};

static trv_status parse_addr(trv_ctx *ctx, const char *spec, struct sockaddr_in *sa)
{
    char host[64] = "127.0.0.1";
    const char *colon = strrchr(spec, ':'), *p = colon ? colon + 1 : spec;
    if (colon && ((size_t)(colon - spec) >= sizeof host || colon == spec))
        return trv_error(ctx, TRV_ERR_USAGE, "--serve '%s': the address before ':' is not an IPv4 address", spec);
    if (colon)
        memcpy(host, spec, colon - spec), host[colon - spec] = '\0';
    char *end;
    long port = strtol(p, &end, 10);
    if (!*p || *end || port < 0 || port > 65535)
        return trv_error(ctx, TRV_ERR_USAGE, "--serve '%s': the port must be a number in [0, 65535]", spec);
    memset(sa, 0, sizeof *sa);
    sa->sin_family = AF_INET;
    sa->sin_port = htons((unsigned short)port);
    if (inet_pton(AF_INET, host, &sa->sin_addr) != 1)
        return trv_error(ctx, TRV_ERR_USAGE, "--serve '%s': '%s' is not an IPv4 address", spec, host);
    return TRV_OK;
}

trv_status sim_server_open(trv_ctx *ctx, const char *spec, sim_server **out)
{
    struct sockaddr_in sa;
    trv_status st = parse_addr(ctx, spec, &sa);
    if (st)
        return st;
    int fd = socket(AF_INET, SOCK_STREAM, 0), one = 1;
    socklen_t sl = sizeof sa;
    if (fd < 0 || setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one) ||
        bind(fd, (struct sockaddr *)&sa, sizeof sa) || listen(fd, 4) ||
        getsockname(fd, (struct sockaddr *)&sa, &sl)) {
        st = trv_error(ctx, TRV_ERR_IO, "--serve %s: %s", spec, strerror(errno));
        if (fd >= 0)
            close(fd);
        return st;
    }
    sim_server *s = malloc(sizeof *s);
    if (!s) {
        close(fd);
        return trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
    }
    s->fd = fd, s->port = ntohs(sa.sin_port), s->addr = ntohl(sa.sin_addr.s_addr);
    *out = s;
    return TRV_OK;
}

int sim_server_port(const sim_server *s) { return s->port; }
int sim_server_loopback(const sim_server *s) { return (s->addr >> 24) == 127; }
int sim_server_fd(const sim_server *s) { return s->fd; }

void sim_server_free(sim_server *s)
{
    if (!s)
        return;
    close(s->fd);
    free(s);
}

/* Write all n bytes; -1 when the client is gone. */
static int send_all(int fd, const char *p, size_t n)
{
    while (n > 0) {
        ssize_t w = send(fd, p, n, MSG_NOSIGNAL);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return -1;
        p += w, n -= (size_t)w;
    }
    return 0;
}

/* A second client while one is served: told so, closed. */
static void refuse(sim_server *s, sim_session *ss)
{
    int fd = accept(s->fd, NULL, NULL);
    if (fd < 0)
        return;
    char *out = NULL;
    size_t len = 0, cap = 0;
    sim_protocol_error(ss, "busy", "another client is connected: one client at a time", &out, &len, &cap);
    if (out)
        send_all(fd, out, len);
    free(out);
    close(fd);
}

typedef struct conn {
    char *buf;          /* bytes of the request being read */
    size_t n;
    int skipping;       /* over SIM_LINE_MAX: dropping bytes up to the newline */
    char *out;          /* replies to send */
    size_t olen, ocap;
} conn;

static void too_long(sim_session *ss, conn *c)
{
    sim_protocol_error(ss, "too_long", "a request line is longer than 1 MiB (it is dropped)", &c->out, &c->olen,
                       &c->ocap);
}

/* The complete lines in c->buf[0..n) answered; the rest kept. */
static void lines(trv_ctx *ctx, sim_session *ss, conn *c)
{
    size_t start = 0;
    for (size_t i = 0; i < c->n && !ss->closing; i++) {
        if (c->buf[i] != '\n')
            continue;
        c->buf[i] = '\0';
        if (i > start && c->buf[i - 1] == '\r')
            c->buf[i - 1] = '\0';
        if (c->skipping)
            c->skipping = 0;
        else if (i - start > SIM_LINE_MAX)
            too_long(ss, c);
        else if (c->buf[start])
            sim_protocol_handle(ctx, ss, c->buf + start, &c->out, &c->olen, &c->ocap);
        start = i + 1;
    }
    memmove(c->buf, c->buf + start, c->n - start);
    c->n -= start;
    if (c->n >= SIM_LINE_MAX) {
        if (!c->skipping)
            too_long(ss, c);
        c->skipping = 1;
        c->n = 0;
    }
}

/* After EINTR: TRV_ERR_CANCEL (into ctx) when the tool was asked to stop
 * (SIGTERM, SIGINT, SIGHUP: trv_progress), else TRV_OK. */
static trv_status stopped(trv_ctx *ctx, sim_session *ss)
{
    if (!trv_progress(ss->quiet, 0, "serve"))
        return TRV_OK;
    return trv_error(ctx, TRV_ERR_CANCEL, "%s", trv_errmsg(ss->quiet));
}

/* Serve the client fd until it closes or sends close (TRV_OK), or a stop
 * signal. */
static trv_status serve_client(trv_ctx *ctx, sim_server *s, sim_session *ss, int fd)
{
    trv_status st = TRV_OK;
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    conn c = {malloc(SIM_LINE_MAX + 65536), 0, 0, NULL, 0, 0};
    if (!c.buf)
        return trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
    while (!ss->closing && !st) {
        struct pollfd p[2] = {{fd, POLLIN, 0}, {s->fd, POLLIN, 0}};
        if (poll(p, 2, -1) < 0) {
            if (errno == EINTR && !(st = stopped(ctx, ss)))
                continue;
            break;
        }
        if (p[1].revents & POLLIN)
            refuse(s, ss);
        if (!(p[0].revents & (POLLIN | POLLHUP | POLLERR)))
            continue;
        ssize_t got = recv(fd, c.buf + c.n, SIM_LINE_MAX + 65536 - c.n, 0);
        if (got < 0 && errno == EINTR && !(st = stopped(ctx, ss)))
            continue;
        if (st)
            break;
        if (got <= 0)
            break; /* the client is gone: the run ends as at close */
        c.n += (size_t)got;
        c.olen = 0;
        lines(ctx, ss, &c);
        if (c.olen && send_all(fd, c.out, c.olen))
            break;
    }
    free(c.buf), free(c.out);
    return st;
}

trv_status sim_server_run(trv_ctx *ctx, sim_server *s, const sim_scenario *sc, const prm_terrain *t,
                          const sim_env *env, sim_run **run, sim_commands **log)
{
    sim_session ss = {sc, t, env, *run, sim_commands_new(), trv_ctx_new(), 0};
    trv_status st = ss.quiet && ss.log ? sim_ext_scan_enable(ctx, ss.run)
                                       : trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
    if (ss.quiet)
        trv_ctx_set_verbosity(ss.quiet, 0);
    int fd = -1;
    while (!st && fd < 0) {
        fd = accept(s->fd, NULL, NULL);
        if (fd < 0)
            st = errno == EINTR ? stopped(ctx, &ss) : trv_error(ctx, TRV_ERR_IO, "accept: %s", strerror(errno));
    }
    if (!st) {
        st = serve_client(ctx, s, &ss, fd);
        close(fd);
    }
    *run = ss.run; /* a reset replaced it */
    *log = ss.log;
    sim_run_close(ss.run);
    trv_ctx_free(ss.quiet);
    return st;
}
