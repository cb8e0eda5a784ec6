/*
 * server.h — trv-sim driven from outside (docs/sim-protocol.md): commands
 * that replace the built-in controller (command.c), a commands file that
 * a batch run replays, and the lock-step server (server.c) speaking
 * newline-delimited JSON over TCP (protocol.c).
 *
 * Determinism: a command takes effect at the start of the step after the
 * last one run when it arrives (step index i: time i x step_s); a batch
 * run replaying the same commands at the same steps writes the same bytes.
 */
#ifndef SIM_SERVER_H
#define SIM_SERVER_H

#include "sim.h"

/* ---- commands (command.c) ---------------------------------------------------- */

typedef enum sim_command_kind {
    SIM_CMD_DRIVE = 0,  /* a[0] speed (m/s), a[1] steering (rad; Ackermann) or yaw rate (rad/s; skid,
                         * Mecanum), a[2] lateral speed (m/s; Mecanum, else 0); held until the next */
    SIM_CMD_WHEELS,     /* wheel angular speeds (rad/s): skid a[0] left, a[1] right ->
                         *   v = r (wl + wr) / 2, yaw rate = r (wr - wl) / track;
                         * Mecanum a[0..3] (sim_mecanum_forward) */
    SIM_CMD_FOLLOW,     /* follow the path x, y (n >= 2, map CRS) with the built-in controller and
                         * speed profile; its end becomes the goal */
    /* virtual obstacles (virtual_obstacle.h; vehicle -1): */
    SIM_CMD_ADD_CIRCLE, /* centre x[0], y[0] (n = 1), radius r; a[0] height (m), a[1], a[2] velocity
                         * (m/s, east, north), a[3] 1: known at once, 0: only once sensed */
    SIM_CMD_ADD_POLYGON, /* vertices x, y (n >= 3); a[] as a circle's */
    SIM_CMD_REMOVE_OBSTACLE /* a[0]: the obstacle's number (1, 2, ... in the order added) */
} sim_command_kind;

typedef struct sim_command {
    long step;          /* applied before this step */
    int vehicle;        /* index in the scenario */
    sim_command_kind kind;
    double a[4];
    int n;              /* FOLLOW, ADD_* */
    double *x, *y;      /* FOLLOW, ADD_* (owned by a sim_commands, borrowed otherwise) */
    double r;           /* ADD_CIRCLE: radius (m) */
} sim_command;

const char *sim_command_name(sim_command_kind k);

/* 0 if c is valid for run r, else TRV_ERR_DATA with a message naming the
 * value: finite numbers; |speed| and |lateral speed| <= the top speed;
 * Ackermann |steer| <= max_steer, no wheels; skid/Mecanum |yaw rate| <=
 * 2 x top speed / track; wheel rims (|w| x wheel radius) <= the top speed; a path of
 * >= 2 distinct points on the map. */
trv_status sim_command_check(trv_ctx *ctx, const sim_run *r, const sim_command *c);
/* Check, then apply c now (the next step uses it). */
trv_status sim_command_apply(trv_ctx *ctx, sim_run *r, const sim_command *c);

/* Commands file: CSV with columns step, vehicle (id), command
 * (drive|wheels|follow), a, b, c, d (empty: 0), rows in non-decreasing
 * step. follow: one vertex (a = x, b = y) per row, consecutive follow rows
 * of one step and vehicle make one path. */
typedef struct sim_commands sim_commands;
trv_status sim_commands_read(trv_ctx *ctx, const char *path, const sim_scenario *sc, sim_commands **out);
void sim_commands_free(sim_commands *c);
/* A log of commands as applied (the server's): empty; c appended (its
 * path copied), except that a path following another of the same vehicle
 * at the same step replaces it (as it does in the run: the file would
 * make one path of the two). sim_commands_write: the file above, numbers
 * to 17 digits (the same bits back). */
sim_commands *sim_commands_new(void);
trv_status sim_commands_add(trv_ctx *ctx, sim_commands *c, const sim_command *cmd);
trv_status sim_commands_write(trv_ctx *ctx, const char *path, const sim_scenario *sc, const sim_commands *c);
/* Every command of the file checked against run r (an error names its line). */
trv_status sim_commands_check(trv_ctx *ctx, const sim_run *r, const sim_commands *c);

/* Keep the first LiDAR's ranges of each scan of every vehicle (for scan
 * requests). */
trv_status sim_ext_scan_enable(trv_ctx *ctx, sim_run *r);

/* ---- the server (server.c) ------------------------------------------------------ */

#define SIM_PROTOCOL_VERSION 1
#define SIM_LINE_MAX (1 << 20) /* a request line longer than this is refused (too_long) */

typedef struct sim_server sim_server;

/* Listen on addr "[ADDR:]PORT" (ADDR an IPv4 address, default
 * 127.0.0.1; port 0: one the system picks). */
trv_status sim_server_open(trv_ctx *ctx, const char *addr, sim_server **out);
int sim_server_port(const sim_server *s);
int sim_server_loopback(const sim_server *s); /* 1 when bound to 127.0.0.0/8 */
int sim_server_fd(const sim_server *s);       /* the listening socket (the console polls it) */
/* Serve one client at a time (a second one gets a "busy" error line and
 * is closed) until a client sends close or disconnects; the run is then
 * closed (sim_run_close) and *run is what the caller writes, *log the
 * commands applied to it (sim_commands_free). reset replaces *run by a new
 * run of sc, t, env, and empties the log. A stop signal (trv_progress)
 * seen while waiting for a client or a request: TRV_ERR_CANCEL. */
trv_status sim_server_run(trv_ctx *ctx, sim_server *s, const sim_scenario *sc, const prm_terrain *t,
                          const sim_env *env, sim_run **run, sim_commands **log);
void sim_server_free(sim_server *s);

/* ---- the protocol (protocol.c) -------------------------------------------------- */

/* One request line (NUL-terminated, without its newline) -> one reply
 * (a JSON object, no newline) appended to *out (grown; *cap its size).
 * *closing set to 1 by close. */
typedef struct sim_session {
    const sim_scenario *sc;
    const prm_terrain *t;
    const sim_env *env;
    sim_run *run;
    sim_commands *log;  /* the commands applied (sim_commands_add) */
    trv_ctx *quiet;     /* the run's errors (a command's check): no output */
    int closing;
} sim_session;
trv_status sim_protocol_handle(trv_ctx *ctx, sim_session *ss, const char *line, char **out, size_t *len,
                               size_t *cap);
/* An error reply (name: malformed, unknown_message, unknown_vehicle,
 * out_of_range, missing, too_long, busy, failed), appended likewise. */
void sim_protocol_error(sim_session *ss, const char *name, const char *message, char **out, size_t *len,
                        size_t *cap);

#endif
