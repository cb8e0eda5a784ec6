/* Internals of the console shared by server.c (libwebsockets: files and
 * the WebSocket clients), pace.c (the run advanced at a pace, the pushed
 * frames) and tcp.c (the lock-step TCP client alongside). */
#ifndef CONSOLE_PRIV_H
#define CONSOLE_PRIV_H

#include "console.h"

#include <libwebsockets.h>

/* One message waiting to be sent to a WebSocket client (LWS_PRE bytes of
 * room before the text, as lws_write wants). */
typedef struct cs_msg {
    struct cs_msg *next;
    size_t len;
    int droppable;              /* a frame the next one replaces (state, scan) */
    unsigned char buf[];        /* LWS_PRE + len */
} cs_msg;

/* A WebSocket client (lws's per-session data). */
typedef struct cs_client {
    struct lws *wsi;
    struct cs_client *next;
    cs_msg *head, *tail;
    size_t queued;              /* bytes waiting */
    char *in;                   /* the request being received */
    size_t inlen, incap;
    int too_long;
} cs_client;

/* Past this many bytes waiting for a client, droppable frames are not
 * queued for it (a slow page loses frames, never replies or events). */
#define CS_QUEUE_MAX (8u << 20)
#define CS_TICK_US 20000        /* the pace's tick: 50 Hz */

struct console {
    struct lws_context *lws;
    int port;
    unsigned long addr;         /* host order */
    console_roots roots;
    char *web, *tmp, *run_dir, *sim_dir;
    cs_client *clients;
    /* the run (console_run) */
    sim_session ss;
    int live;                   /* ss holds a run */
    trv_ctx *ctx;               /* the caller's: the outcome's message */
    trv_status st;
    int done;
    lws_sorted_usec_list_t sul;
    /* pace.c */
    double pace;                /* real-time factor; 0: as fast as possible */
    int paused, over;
    double wall_last, debt_s, push_wall;
    int ev_next;
    const sim_run *seen_run;    /* a reset replaces the run: frames start again */
    unsigned long long *path_sig;
    double *scan_t, *scan_wall;
    int dirty;                  /* pace or pause changed: push a state frame */
    /* tcp.c */
    sim_server *tcp;
    int tcp_fd;
    char *tcp_buf;
    size_t tcp_n;
    int tcp_skipping;
};

/* server.c: queue text (n bytes) for one client, or for all (to NULL). */
void console_send(console *c, cs_client *to, const char *text, size_t n, int droppable);
void console_broadcast(console *c, const char *text, int droppable);

/* pace.c: the tick (advance, TCP, frames; re-schedules itself), a
 * WebSocket request handled (its reply to from), the messages a new
 * client gets first (hello, routes, events, state). */
void console_tick(lws_sorted_usec_list_t *sul);
void console_request(console *c, cs_client *from, const char *text);
void console_greet(console *c, cs_client *to);
/* A protocol request's reply (malloc'ed, no newline), NULL out of memory. */
char *console_ask(console *c, const char *request);
/* The reply to a client's request (WebSocket or TCP): the console's own
 * (pace, pause, resume), else the protocol's; malloc'ed, no newline. */
char *console_reply(console *c, const char *text);

/* tcp.c: accept, read and answer the TCP client without blocking. */
void console_tcp_poll(console *c);
void console_tcp_close(console *c);


#endif
