/* Internals of the runner shared by setup.c, run.c and output.c. */
#ifndef SIM_PRIV_H
#define SIM_PRIV_H

#include "sim.h"

#include <math.h>

typedef struct sim_row {
    double t, x, y, z, heading, pitch, roll, v, steer, cte;
    unsigned char cls;
} sim_row;

/* What a client (server.c) or a commands file (command.c) set: a direct
 * command held until the next, and the first LiDAR's last scan. */
typedef struct sim_ext {
    int direct;                 /* 1: drive by cmd, not the built-in controller */
    sim_cmd cmd;
    float *ranges;              /* NULL until a client asks (sim_ext_scan_enable) */
    int nranges;
    int scanned;                /* a scan was taken */
    double scan_t;              /* its time and the pose it was taken from */
    sim_state scan_pose;
} sim_ext;

/* A vehicle giving way in a head-on conflict (conflict.c). */
typedef struct sim_giveway {
    int state;                  /* SIM_GW_* */
    int other;                  /* the vehicle it gives way to */
    double t0;                  /* when the conflict was found */
    double px, py;              /* the passing place */
    double s_end;               /* detour: where it rejoins its path (arc length of the new path);
                                 * passing place: where it left its path (arc length on orig) */
    double d_place;             /* passing place: the length of the way to it */
    sim_path orig;              /* passing place: the path it left, to rejoin */
    sim_path ret;               /* at the place: the way back to it */
    int hold;                   /* command 0 this step (waiting, or the stretch ahead reserved) */
} sim_giveway;

enum { SIM_GW_NONE = 0, SIM_GW_WAIT, SIM_GW_TO_PLACE, SIM_GW_AT_PLACE, SIM_GW_DETOUR };

typedef struct sim_veh {
    const sim_vehicle_spec *spec;
    const prm_terrain *t;       /* its map: the run's, or own (spec->terrain) */
    prm_terrain *own;
    tm_vehicle *tv;
    tm_model tm;                /* the speed model (has_tm) */
    int has_tm;
    sim_ride *ride;             /* with the speed model */
    int ride_armed;             /* a ride_limit event may fire */
    sim_body body;
    sim_state s;
    sim_path path;              /* the plan followed now */
    double *plan0_x, *plan0_y;  /* the first plan (outputs) */
    int plan0_n;
    double *prof;               /* speed profile (m/s) every prof_ds along path */
    int prof_n;
    double prof_ds;
    double goal_x, goal_y;
    sim_seen seen;
    int has_seen;
    const sim_sensor *lidar[2];
    int nlidar;
    double next_scan[2];
    const sim_sensor *gnss, *imu;
    double next_gnss, next_imu, gnss_ex, gnss_ey, imu_eh;
    trv_rng rng;
    double *scan;               /* hit buffer, 3 per ray */
    int scan_cap;
    int hint_ctrl, hint_true;
    int phase;                  /* 0 waiting for its start time, 1 driving, 2 done */
    int yielding, standing, moved;
    double s_along;
    double t_done;
    /* accumulators */
    double cte2, he2, cte_max;
    long nsamp;
    double next_record;
    sim_row *rows;
    long nrows, caprows;
    sim_metrics m;
    sim_ext ext;
    sim_giveway gw;             /* head-on conflicts (conflict.c) */
    struct sim_local *local;    /* local planner state (local_planner.c; NULL: none) */
    struct sim_vdyn *dyn;       /* dynamics = dynamic (dynamic_run.c), else NULL */
    struct sim_lidrec *lidrec;  /* the LiDAR scans recorded (lidar_record.h), or NULL */
} sim_veh;

struct sim_run {
    const sim_scenario *sc;
    const prm_terrain *t;
    sim_env env;
    sim_field field;
    sim_hmax *hmax;             /* the field's max-height pyramid (LiDAR rays) */
    sim_pool *pool;             /* the LiDAR rays' threads (NULL: one thread) */
    sim_obstacle *obs;
    double *obs_rad;            /* bounding radius about (cx, cy) */
    int nobs;
    sim_veh *v;
    int nv;
    sim_event *ev;
    int nev, capev;
    double t_now, wall_s;
    trv_ctx *quiet;             /* re-planning: no progress printed, errors not passed on */
    /* scratch for the world of one scan */
    sim_obb *boxes;
    double *box_z, *box_h;
    /* lock-step (sim_run_advance) and the commands replayed */
    long step_i;
    int over;
    int cmd_next;
    int nvobs;                  /* virtual obstacles: the last nvobs of obs (virtual_obstacle.c) */
};

/* A vehicle's path through x, y (n vertices; repeats dropped), replacing
 * the one it had (setup.c). */
trv_status sim_veh_path(trv_ctx *ctx, sim_veh *v, const double *x, const double *y, int n);
/* Its speed profile along that path: the terrain's speed, the top speed,
 * lat_acc / curvature, then braking at decel back from the end (run.c). */
trv_status sim_veh_profile(trv_ctx *ctx, const sim_run *r, sim_veh *v);

/* The speed the vehicle's model allows at (x, y) at the grade beta (run.c:
 * what the run drives by); *limit the tm_limit that binds, -1 when it is
 * speed.tif's value (no model, NOGO, a code the tables do not know). */
double sim_veh_speed(const sim_run *r, const sim_veh *v, double x, double y, double beta, double *pull, int *limit);
/* The commands of env.commands due at step i, applied (command.c). */
void sim_commands_due(trv_ctx *ctx, sim_run *r, long i);
/* Before the first LiDAR's scan at time t: w->ranges to the vehicle's
 * range buffer, when a client asked for scans (command.c). */
void sim_ext_scan_begin(sim_veh *v, sim_world *w, double t);

/* Head-on conflicts (conflict.c; sim.h): once per step i before the
 * vehicles drive; sets each vehicle's gw.hold. */
trv_status sim_conflicts_step(trv_ctx *ctx, sim_run *r, long i);
/* An angle brought into [-pi, pi] by whole turns (the same bits as the
 * angle when it is already there). */
static inline double sim_wrap_pi(double a)
{
    while (a > M_PI)
        a -= 2 * M_PI;
    while (a < -M_PI)
        a += 2 * M_PI;
    return a;
}

/* After vehicle k's seen map grew: re-plan when the rest of its path
 * crosses a blocked cell (not with a local planner: it steers round what
 * the seen map holds; nor with re-planning off), a "replan" event (with
 * "cause": cause unless NULL); "stuck" and the vehicle stopped when there
 * is no way round. run.c; scans (sense) and known virtual obstacles. */
void sim_veh_replan_blocked(trv_ctx *ctx, sim_run *r, int k, const char *cause);
void sim_giveway_clear(sim_giveway *g);
/* For conflict.c: an event on vehicle k with details (JSON members), a
 * vehicle stopped for good (why: its end), an id as a JSON string body. */
void sim_run_note(sim_run *r, int k, sim_event_type type, const char *details);
void sim_run_stop(sim_run *r, int k, const char *why);
const char *sim_json_esc(const char *s, char buf[64]);

#endif
