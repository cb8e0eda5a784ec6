/*
 * console.h — the operator's console (docs/console.md): an HTTP and
 * WebSocket server (libwebsockets) in front of trv-sim's lock-step run.
 *
 * URL layout (every path: regular files only, no "..", else 404):
 *   /             web/console.html
 *   /web/P        web/P                      (the repository's web/ or $TRV_WEBDIR)
 *   /lib/leaflet/P /usr/share/javascript/leaflet/P   (Debian libjs-leaflet)
 *   /lib/three/P  /usr/share/javascript/three/P      (Debian libjs-three)
 *   /run/P        the terrain run directory (trv-sim --terrain)
 *   /sim/P        the simulation's output directory (once written)
 *   /layers/P     the run's layers as PNGs, one pixel per cell, and
 *                 index.json (console_layers_write)
 *   /ws           WebSocket: each text message one request of the control
 *                 protocol (docs/sim-protocol.md), answered to its sender;
 *                 the server pushes state, events, scans and routes
 *                 (docs/sim-protocol.md: the console's WebSocket).
 *
 * Pace: the server advances the run by itself, x1 to x100 real time or
 * as fast as it can ("max"), and can be paused; a client's step requests
 * advance it further. The same commands at the same steps still give the
 * same outputs (commands.csv), as with the TCP server.
 */
#ifndef CONSOLE_H
#define CONSOLE_H

#include "sim/server.h"

/* ---- files (files.c, pure) -------------------------------------------------------- */

/* The directories the URL layout maps to (NULL: that prefix is 404). */
typedef struct console_roots {
    const char *web, *leaflet, *three, *run, *sim, *layers;
} console_roots;

/* The file that url (its path, without query or fragment) names under
 * roots, into out (size n): 1 when it is a regular file, 0 otherwise
 * (an unknown prefix, "..", "//", a backslash or NUL in the path, a
 * directory, a missing file, a path longer than n). "/" is web's
 * console.html. Pure but for stat(2). */
int console_resolve(const console_roots *roots, const char *url, char *out, size_t n);
/* The Content-Type of a file by its extension ("text/html; charset=utf-8",
 * "application/javascript", "text/css", "image/png", "application/json",
 * "image/tiff", "text/csv", "application/geo+json", "image/svg+xml",
 * "application/x-ndjson", "text/markdown"; else
 * "application/octet-stream"). */
const char *console_mime(const char *path);
/* The web directory: $TRV_WEBDIR, else the data directory's web/ (the
 * installed share/traverse/web), else web/ beside it (the repository's
 * data/ and web/); malloc'ed, NULL with an error when none has a
 * console.html. */
char *console_web_dir(trv_ctx *ctx);

/* ---- layers (layers.c) ------------------------------------------------------------- */

/* The terrain directory's layers (dem hillshaded, slope, speed, cost,
 * gonogo, class: those present) as RGBA PNGs of one pixel per cell,
 * nodata transparent, written into outdir as NAME.png, and index.json:
 * {"layers": [{"name", "file", "title", "extent": [xmin, ymin, xmax, ymax],
 * "nx", "ny"}, ...]} in the layers' CRS. Continuous layers take
 * render's palette for their band (rnd_palette_auto) over rnd_layer_range;
 * Byte layers their colour table. */
trv_status console_layers_write(trv_ctx *ctx, const char *terrain, const char *outdir);

/* ---- the server (server.c, pace.c, tcp.c) ------------------------------------------ */

typedef struct console console;

/* Listen on "[ADDR:]PORT" (IPv4, default 127.0.0.1; port 0: one the
 * system picks) serving terrain (its layers rendered into a temporary
 * directory, removed by console_free) and, once written, simdir. */
trv_status console_open(trv_ctx *ctx, const char *addr, const char *terrain, const char *simdir, console **out);
int console_port(const console *c);
int console_loopback(const console *c); /* 1 when bound to 127.0.0.0/8 */
void console_free(console *c);

/* Drive the run sim_server_run's way (its arguments and outcome), paced
 * by the console: WebSocket clients send protocol requests and the
 * console's pace, pause, resume; tcp (may be NULL) keeps serving one TCP
 * client alongside with the same requests (read at each tick; its
 * disconnect does not end the run). Ends on a close request (TRV_OK) or
 * a stop signal (TRV_ERR_CANCEL). */
trv_status console_run(trv_ctx *ctx, console *c, sim_server *tcp, const sim_scenario *sc, const prm_terrain *t,
                       const sim_env *env, sim_run **run, sim_commands **log);
/* Serve the files only (a finished run: /sim/ replays it; a WebSocket
 * gets {"type":"hello","replay":true} and no_run errors) until a stop
 * signal, which is its end: TRV_OK. */
trv_status console_serve_files(trv_ctx *ctx, console *c);

#endif
