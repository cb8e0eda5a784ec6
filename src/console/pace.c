/* The run at a pace and the frames the console pushes (docs/console.md):
 * every CS_TICK_US the tick answers the TCP client, advances the run by
 * the wall time elapsed x the pace (or for most of the tick at "max"),
 * and pushes to every WebSocket client what changed: state (at most
 * 25 a second), new events, new scans (at most 5 a second a vehicle),
 * changed routes. The frames are the protocol's replies (protocol.c), so
 * a page reads one format. */
#define _POSIX_C_SOURCE 200809L
#include "console_priv.h"
#include "sim/live.h"

#include <json-c/json.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double wall(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

char *console_ask(console *c, const char *request)
{
    char *out = NULL;
    size_t n = 0, cap = 0;
    sim_protocol_handle(c->ctx, &c->ss, request, &out, &n, &cap);
    if (out && n && out[n - 1] == '\n')
        out[n - 1] = '\0';
    return out;
}

/* ---- frames ------------------------------------------------------------------------ */

/* state: the protocol's state reply of all vehicles, with the pace. */
static void push_state(console *c, cs_client *to)
{
    char *s = console_ask(c, "{\"type\":\"state\"}");
    size_t n = s ? strlen(s) : 0;
    if (n < 2)
        return free(s);
    char tail[160];
    snprintf(tail, sizeof tail, ",\"over\":%s,\"paused\":%s,\"pace\":%.17g}", c->over ? "true" : "false",
             c->paused ? "true" : "false", c->pace);
    char *f = malloc(n + sizeof tail);
    if (f) {
        memcpy(f, s, n - 1), strcpy(f + n - 1, tail);
        if (to)
            console_send(c, to, f, strlen(f), 1);
        else
            console_broadcast(c, f, 1);
    }
    free(s), free(f);
}

/* route: {"type":"route","t","vehicle","kind":"plan"|"current","path":[[x,y],...]} */
static void push_route(console *c, cs_client *to, int k, int which)
{
    const double *x, *y;
    int n = sim_live_path(c->ss.run, k, which, &x, &y);
    json_object *o = json_object_new_object(), *pts = json_object_new_array();
    json_object_object_add(o, "type", json_object_new_string("route"));
    json_object_object_add(o, "t", json_object_new_double(sim_run_time(c->ss.run)));
    json_object_object_add(o, "vehicle", json_object_new_string(c->ss.sc->veh[k].id));
    json_object_object_add(o, "kind", json_object_new_string(which ? "current" : "plan"));
    for (int i = 0; i < n; i++) {
        json_object *p = json_object_new_array();
        json_object_array_add(p, json_object_new_double(x[i]));
        json_object_array_add(p, json_object_new_double(y[i]));
        json_object_array_add(pts, p);
    }
    json_object_object_add(o, "path", pts);
    const char *s = json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN);
    if (to)
        console_send(c, to, s, strlen(s), 0);
    else
        console_broadcast(c, s, 0);
    json_object_put(o);
}

/* FNV-1a over the path's vertices: a new path, a new signature. */
static unsigned long long path_sig(const sim_run *r, int k)
{
    const double *x, *y;
    int n = sim_live_path(r, k, 1, &x, &y);
    unsigned long long h = 1469598103934665603ull ^ (unsigned)n;
    for (int i = 0; i < n; i++) {
        const unsigned char *b[2] = {(const unsigned char *)&x[i], (const unsigned char *)&y[i]};
        for (int j = 0; j < 16; j++)
            h = (h ^ b[j / 8][j % 8]) * 1099511628211ull;
    }
    return h;
}

static void push_events(console *c, cs_client *to, int since)
{
    char req[64];
    snprintf(req, sizeof req, "{\"type\":\"events\",\"since\":%d}", since);
    char *s = console_ask(c, req);
    if (s && to)
        console_send(c, to, s, strlen(s), 0);
    else if (s)
        console_broadcast(c, s, 0);
    free(s);
}

static void push_scan(console *c, int k)
{
    char req[128];
    snprintf(req, sizeof req, "{\"type\":\"scan\",\"vehicle\":\"%s\"}", c->ss.sc->veh[k].id);
    char *s = console_ask(c, req);
    if (s)
        console_broadcast(c, s, 1);
    free(s);
}

/* A new run (the first, or after a reset): its cursors. */
static void track_run(console *c)
{
    int nv = c->ss.sc->nveh;
    free(c->path_sig), free(c->scan_t), free(c->scan_wall);
    c->path_sig = calloc(nv, sizeof *c->path_sig);
    c->scan_t = malloc(nv * sizeof *c->scan_t), c->scan_wall = calloc(nv, sizeof *c->scan_wall);
    for (int k = 0; c->path_sig && c->scan_t && k < nv; k++)
        c->path_sig[k] = path_sig(c->ss.run, k), c->scan_t[k] = -1;
    c->ev_next = 0, c->over = 0, c->dirty = 1;
    c->seen_run = c->ss.run;
}

void console_greet(console *c, cs_client *to)
{
    if (!c->live) {
        const char *hello = "{\"type\":\"hello\",\"t\":0.0,\"replay\":true}";
        console_send(c, to, hello, strlen(hello), 0);
        return;
    }
    char *s = console_ask(c, "{\"type\":\"hello\"}");
    if (s)
        console_send(c, to, s, strlen(s), 0);
    free(s);
    for (int k = 0; k < c->ss.sc->nveh; k++)
        push_route(c, to, k, 0), push_route(c, to, k, 1);
    push_events(c, to, 0);
    push_state(c, to);
}

/* What changed since the last tick, to every client. */
static void push_frames(console *c, double now, int stepped)
{
    const sim_run *r = c->ss.run;
    if (!c->path_sig || !c->scan_t)
        return;
    for (int k = 0; k < c->ss.sc->nveh; k++) {
        unsigned long long sg = path_sig(r, k);
        if (sg != c->path_sig[k])
            c->path_sig[k] = sg, push_route(c, NULL, k, 1);
        double st = sim_live_scan_t(r, k);
        if (st >= 0 && st != c->scan_t[k] && now - c->scan_wall[k] >= 0.2)
            c->scan_t[k] = st, c->scan_wall[k] = now, push_scan(c, k);
    }
    int nev = sim_run_nevents(r);
    if (nev > c->ev_next)
        push_events(c, NULL, c->ev_next), c->ev_next = nev;
    if ((stepped || c->dirty) && now - c->push_wall >= 0.04) {
        push_state(c, NULL);
        c->push_wall = now, c->dirty = 0;
    }
}

/* ---- the pace ---------------------------------------------------------------------- */

/* Steps to run: wall time x pace (the debt of sim time capped at a
 * quarter second of wall, so a stall is not caught up in a burst), or at
 * "max" as many as fit in 3/4 of a tick. Returns the steps run. */
static long advance(console *c, double now)
{
    double dt = now - c->wall_last, step = c->ss.sc->step_s;
    c->wall_last = now;
    if (c->paused || c->over)
        return c->debt_s = 0, 0;
    long total = 0;
    int over = 0;
    if (c->pace > 0) {
        c->debt_s = fmin(c->debt_s + dt * c->pace, 0.25 * c->pace + step);
        long n = (long)floor(c->debt_s / step + 1e-9);
        c->debt_s -= n * step;
        if (n > 0 && (over = sim_run_advance(c->ss.quiet, c->ss.run, n)) >= 0)
            total = n;
    } else {
        long chunk = (long)fmax(1, 0.01 / step);
        while (!over && wall() - now < 0.75e-6 * CS_TICK_US)
            if ((over = sim_run_advance(c->ss.quiet, c->ss.run, chunk)) >= 0)
                total += chunk;
    }
    if (over < 0) {
        c->st = trv_error(c->ctx, TRV_ERR_INTERNAL, "the run failed: %s", trv_errmsg(c->ss.quiet));
        c->done = 1;
    }
    c->over = over > 0;
    return total;
}

void console_tick(lws_sorted_usec_list_t *sul)
{
    console *c = lws_container_of(sul, console, sul);
    double now = wall();
    if (trv_progress(c->ss.quiet, 0, "console")) {
        c->st = trv_error(c->ctx, TRV_ERR_CANCEL, "%s", trv_errmsg(c->ss.quiet));
        c->done = 1;
        lws_cancel_service(c->lws);
        return;
    }
    if (c->live) {
        console_tcp_poll(c);
        if (c->ss.run != c->seen_run) {
            if (c->seen_run)
                console_broadcast(c, "{\"type\":\"reset\"}", 0);
            track_run(c);
            for (int k = 0; k < c->ss.sc->nveh; k++)
                push_route(c, NULL, k, 0), push_route(c, NULL, k, 1);
        }
        long n = c->ss.closing || c->done ? 0 : advance(c, now);
        push_frames(c, now, n > 0);
        if (c->ss.closing)
            c->done = 1;
    }
    if (!c->done)
        lws_sul_schedule(c->lws, 0, &c->sul, console_tick, CS_TICK_US);
    else
        lws_cancel_service(c->lws); /* lws_service returns at once, not at its next event */
}

/* ---- requests ---------------------------------------------------------------------- */

/* pace: {"factor": 1..100} or {"factor": "max"}; pause; resume. The
 * reply: {"type", "t", "id"?, "pace", "paused"} (pace 0: max). NULL when
 * type is not one of them. */
static char *console_only(console *c, const char *text)
{
    json_object *req = json_tokener_parse(text), *f, *id = NULL;
    const char *type = NULL, *err = NULL;
    if (req && json_object_is_type(req, json_type_object) && json_object_object_get_ex(req, "type", &f))
        type = json_object_get_string(f);
    int which = !type ? 0 : !strcmp(type, "pace") ? 1 : !strcmp(type, "pause") ? 2 : !strcmp(type, "resume") ? 3 : 0;
    if (!which)
        return json_object_put(req), NULL;
    json_object_object_get_ex(req, "id", &id);
    if (which == 1) {
        double v = 0;
        if (!json_object_object_get_ex(req, "factor", &f))
            err = "missing";
        else if (json_object_is_type(f, json_type_string) && !strcmp(json_object_get_string(f), "max"))
            v = 0;
        else if (!json_object_is_type(f, json_type_double) && !json_object_is_type(f, json_type_int))
            err = "bad_type";
        else if (!((v = json_object_get_double(f)) >= 1 && v <= 100))
            err = "out_of_range";
        if (!err)
            c->pace = v, c->debt_s = 0;
    } else {
        c->paused = which == 2;
    }
    c->dirty = 1;
    json_object *o = json_object_new_object();
    json_object_object_add(o, "type", json_object_new_string(err ? "error" : type));
    json_object_object_add(o, "t", json_object_new_double(c->live ? sim_run_time(c->ss.run) : 0));
    if (id)
        json_object_object_add(o, "id", json_object_get(id));
    if (err) {
        json_object_object_add(o, "error", json_object_new_string(err));
        json_object_object_add(o, "message", json_object_new_string("'factor' must be a number in [1, 100] or \"max\""));
    } else {
        json_object_object_add(o, "pace", json_object_new_double(c->pace));
        json_object_object_add(o, "paused", json_object_new_boolean(c->paused));
    }
    char *s = strdup(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN));
    json_object_put(o), json_object_put(req);
    return s;
}

char *console_reply(console *c, const char *text)
{
    char *s = console_only(c, text);
    if (!s && c->live) {
        s = console_ask(c, text);
    } else if (!s) {
        char *out = NULL;
        size_t n = 0, cap = 0;
        sim_protocol_error(&c->ss, "no_run", "the console replays a finished run: no requests", &out, &n, &cap);
        if (out && n)
            out[n - 1] = '\0';
        s = out;
    }
    c->dirty = 1;
    return s;
}

void console_request(console *c, cs_client *from, const char *text)
{
    char *s = console_reply(c, text);
    if (s)
        console_send(c, from, s, strlen(s), 0);
    free(s);
}
