/* The TCP protocol client beside the console (console_run): the
 * server's listening socket polled at each tick without blocking; one
 * client at a time (a second gets "busy"), newline-delimited requests of
 * at most SIM_LINE_MAX bytes answered in order, as server.c does. Its
 * disconnect ends nothing: the console's run goes on. */
#define _POSIX_C_SOURCE 200809L
#include "console_priv.h"

#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#define TCP_BUF (SIM_LINE_MAX + 65536)

static void send_all(int fd, const char *p, size_t n)
{
    while (n > 0) {
        ssize_t w = send(fd, p, n, MSG_NOSIGNAL);
        if (w < 0 && errno == EINTR)
            continue;
        if (w < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
            struct pollfd p1 = {fd, POLLOUT, 0};
            poll(&p1, 1, 1000);
            continue;
        }
        if (w <= 0)
            return;
        p += w, n -= (size_t)w;
    }
}

static void reply_error(console *c, int fd, const char *name, const char *msg)
{
    char *out = NULL;
    size_t n = 0, cap = 0;
    sim_protocol_error(&c->ss, name, msg, &out, &n, &cap);
    if (out)
        send_all(fd, out, n);
    free(out);
}

void console_tcp_close(console *c)
{
    if (c->tcp_fd >= 0)
        close(c->tcp_fd);
    c->tcp_fd = -1;
    free(c->tcp_buf);
    c->tcp_buf = NULL, c->tcp_n = 0, c->tcp_skipping = 0;
}

static void accept_one(console *c)
{
    int fd = accept(sim_server_fd(c->tcp), NULL, NULL), one = 1;
    if (fd < 0)
        return;
    if (c->tcp_fd >= 0) {
        reply_error(c, fd, "busy", "another client is connected: one client at a time");
        close(fd);
        return;
    }
    if (!(c->tcp_buf = malloc(TCP_BUF))) {
        close(fd);
        return;
    }
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    c->tcp_fd = fd, c->tcp_n = 0, c->tcp_skipping = 0;
}

/* s (freed) and a newline appended to *out. */
static void append_reply(char *s, char **out, size_t *len, size_t *cap)
{
    size_t n = s ? strlen(s) : 0;
    if (s && *len + n + 2 > *cap) {
        size_t c2 = (*len + n + 2) * 2;
        char *p = realloc(*out, c2);
        if (p)
            *out = p, *cap = c2;
    }
    if (s && *len + n + 2 <= *cap) {
        memcpy(*out + *len, s, n);
        (*out)[*len + n] = '\n';
        *len += n + 1;
        (*out)[*len] = '\0';
    }
    free(s);
}

/* The complete lines of the buffer answered (console_reply); the rest kept. */
static void lines(console *c)
{
    char *b = c->tcp_buf, *out = NULL;
    size_t start = 0, olen = 0, ocap = 0;
    for (size_t i = 0; i < c->tcp_n && !c->ss.closing; i++) {
        if (b[i] != '\n')
            continue;
        b[i] = '\0';
        if (i > start && b[i - 1] == '\r')
            b[i - 1] = '\0';
        if (c->tcp_skipping)
            c->tcp_skipping = 0;
        else if (i - start > SIM_LINE_MAX)
            sim_protocol_error(&c->ss, "too_long", "a request line is longer than 1 MiB (it is dropped)", &out,
                               &olen, &ocap);
        else if (b[start])
            append_reply(console_reply(c, b + start), &out, &olen, &ocap);
        start = i + 1;
    }
    memmove(b, b + start, c->tcp_n - start);
    c->tcp_n -= start;
    if (c->tcp_n >= SIM_LINE_MAX) {
        if (!c->tcp_skipping)
            sim_protocol_error(&c->ss, "too_long", "a request line is longer than 1 MiB (it is dropped)", &out,
                               &olen, &ocap);
        c->tcp_skipping = 1, c->tcp_n = 0;
    }
    if (olen)
        send_all(c->tcp_fd, out, olen);
    free(out);
}

/* The client's bytes (or its hang-up) first, then a new connection: a
 * client that reconnects at once is not told busy by its own old one. */
void console_tcp_poll(console *c)
{
    if (!c->tcp)
        return;
    struct pollfd p[2] = {{sim_server_fd(c->tcp), POLLIN, 0}, {c->tcp_fd, POLLIN, 0}};
    if (poll(p, c->tcp_fd >= 0 ? 2 : 1, 0) <= 0)
        return;
    if (c->tcp_fd >= 0 && (p[1].revents & (POLLIN | POLLHUP | POLLERR))) {
        ssize_t got = recv(c->tcp_fd, c->tcp_buf + c->tcp_n, TCP_BUF - c->tcp_n, MSG_DONTWAIT);
        if (got == 0 || (got < 0 && errno != EINTR && errno != EAGAIN && errno != EWOULDBLOCK)) {
            console_tcp_close(c);
        } else if (got > 0) {
            c->tcp_n += (size_t)got;
            lines(c);
        }
    }
    if (p[0].revents & POLLIN)
        accept_one(c);
}
