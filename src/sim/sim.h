/*
 * sim.h — the vehicle simulator (METHOD.md §5): routes executed on the
 * reconstructed terrain by kinematic vehicle models with actuator lag,
 * terrain contact, a path-following controller, ray-cast sensors, static,
 * appearing and moving obstacles, collisions, a per-vehicle map of what
 * its sensors saw, re-planning, several vehicles. Headless, deterministic
 * (one seeded generator per vehicle), explicit time stepping.
 *
 * Frames: map CRS metres (the terrain grid's), x east, y north, z up.
 * heading: radians counter-clockwise from east (x axis). pitch > 0: nose
 * up; roll > 0: left side up. Speeds m/s, angles radians inside the
 * library (degrees only in files).
 *
 * Two parts, each with its own section below:
 *   physics  pure functions: models, lag, terrain contact, controllers,
 *            geometry (rays, boxes, polygons), sensors
 *   runner   scenario file, obstacles file, seen map, re-planning, the
 *            run loop and its outputs
 *
 * Ownership: _new/_read return objects freed by the matching _free (NULL
 * accepted). Functions taking a field, path or obstacle borrow it.
 */
#ifndef SIM_H
#define SIM_H

#include "prm/prm.h"
#include "terramech/terramech.h"

/* ======================= physics ================================================= */

typedef enum sim_kind { SIM_ACKERMANN = 0, SIM_SKID = 1, SIM_MECANUM = 2 } sim_kind;

/* What the simulator needs of a vehicle: the vehicle file's [vehicle]
 * limits plus its [body] section (tm_vehicle's body fields). */
typedef struct sim_body {
    sim_kind kind;
    double wheelbase_m;     /* L (axle to axle); Mecanum: L1 + L2 = wheelbase / 2 + ... see sim_mecanum_* */
    double track_m;         /* lateral wheel spacing (centre to centre) */
    double length_m, width_m, height_m; /* footprint box (centred on the vehicle's reference point) */
    double wheel_radius_m;
    double max_steer_rad;   /* Ackermann steering limit */
    double tau_speed_s;     /* first-order lag time constants */
    double tau_steer_s;     /* Ackermann: steering angle; skid/Mecanum: yaw rate */
    double slip;            /* skid-steer: effective fraction of the commanded yaw rate, (0, 1] */
    double top_speed_ms;
    double max_pitch_rad, max_roll_rad; /* tip-over limits */
    double step_m;          /* the highest step it climbs (seen-map obstacles above this block it) */
    double mass_kg;
} sim_body;

/* From a vehicle file already read (tm_vehicle_read) and the model the
 * scenario asks for. */
void sim_body_from_vehicle(const tm_vehicle *v, sim_kind kind, sim_body *out);

typedef struct sim_state {
    double x, y, z;         /* reference point (between the axles), on the ground */
    double heading, pitch, roll;
    double v;               /* forward speed (body x), actual (after lag) */
    double vy;              /* lateral speed (body y), Mecanum only */
    double steer;           /* Ackermann: steering angle, actual (after lag) */
    double yaw_rate;        /* actual yaw rate */
} sim_state;

typedef struct sim_cmd {
    double v;               /* forward speed wanted */
    double vy;              /* lateral speed wanted (Mecanum) */
    double steer;           /* Ackermann: steering angle wanted (clamped to max_steer) */
    double yaw_rate;        /* skid/Mecanum: yaw rate wanted */
} sim_cmd;

/* Exact first-order lag over dt: cur + (target - cur)(1 - exp(-dt / tau));
 * tau <= 0 returns target. */
double sim_lag(double cur, double target, double tau, double dt);

/* Advance the planar state by dt: lag the actual speed / steering / yaw
 * rate toward cmd, then integrate the kinematics over dt exactly for
 * constant inputs (arc of radius v / yaw_rate, or a straight line):
 *   Ackermann  yaw_rate = v tan(steer) / L          (bicycle model)
 *   skid       yaw_rate = slip x commanded yaw rate (lagged)
 *   Mecanum    body velocity (v, vy), yaw rate as commanded (lagged)
 * z, pitch and roll are left to sim_contact. */
void sim_step(const sim_body *b, sim_state *s, const sim_cmd *cmd, double dt);

/* Mecanum inverse kinematics (METHOD.md §5): wheel angular speeds
 * w[0..3] (front-left, front-right, rear-left, rear-right; rad/s) for body
 * velocity (vx, vy) and yaw rate omega, with L1 = wheelbase / 2 and
 * L2 = track / 2:  w = (1/r)[vx -+ vy -+ (L1 + L2) omega] (the usual X
 * roller layout); and its forward (least-squares) inverse. */
void sim_mecanum_inverse(const sim_body *b, double vx, double vy, double omega, double w[4]);
void sim_mecanum_forward(const sim_body *b, const double w[4], double *vx, double *vy, double *omega);

/* ---- the ground --------------------------------------------------------- */

/* A heightfield sampled at cell centres (a borrowed Float32 grid). */
typedef struct sim_field {
    const float *z;
    int nx, ny;
    double x0, y0;          /* map coordinates of the centre of cell (0, 0) (north-west) */
    double dx, dy;          /* cell size, both > 0 (rows run south) */
    int has_nodata;
    float nodata;
} sim_field;

void sim_field_from_raster(const geo_raster *dem, sim_field *out);
/* Bilinear height between the four surrounding cell centres (clamped to
 * the edge cells); NAN on nodata or off the grid. */
double sim_height(const sim_field *f, double x, double y);
/* Gradient (dz/dx, dz/dy) of the bilinear surface at (x, y). */
void sim_gradient(const sim_field *f, double x, double y, double *gx, double *gy);

/* Height, pitch and roll of a vehicle at (x, y, heading): the ground
 * height under the four wheel contact points (+-wheelbase/2 along,
 * +-track/2 across); z the mean, pitch from front vs rear mean, roll from
 * left vs right mean. 0 on success, -1 if a wheel is off the field. */
int sim_contact(const sim_field *f, const sim_body *b, double x, double y, double heading, double *z,
                double *pitch, double *roll);

/* ---- the path and the controllers --------------------------------------- */

typedef struct sim_path {
    int n;
    double *x, *y;          /* vertices (owned) */
    double *s;              /* cumulative length at each vertex (owned) */
} sim_path;

trv_status sim_path_set(trv_ctx *ctx, sim_path *p, const double *x, const double *y, int n);
void sim_path_clear(sim_path *p);
/* Closest point of the path to (x, y), searching segments from *hint
 * forward (a window of the next 64 segments, so a path that comes back
 * near itself is not skipped ahead; *hint updated): signed cross-track
 * error (> 0 left of the path), the arc length there. */
double sim_path_project(const sim_path *p, double x, double y, int *hint, double *s_along);
/* The point at arc length s (clamped to the ends). */
void sim_path_point(const sim_path *p, double s, double *x, double *y);

typedef enum sim_ctrl_kind { SIM_PURE_PURSUIT = 0, SIM_STANLEY = 1 } sim_ctrl_kind;

typedef struct sim_ctrl {
    sim_ctrl_kind kind;
    double lookahead_s;     /* pure pursuit: lookahead = clamp(lookahead_s x v, min, max) */
    double lookahead_min_m, lookahead_max_m;
    double stanley_k;       /* Stanley gain (1/s) */
} sim_ctrl;

void sim_ctrl_default(sim_ctrl *c); /* pure pursuit, 0.8 s, 2 m, 20 m; Stanley k 1.5 */

/* Steering (Ackermann) or yaw-rate (skid, Mecanum) command toward the
 * path for the state s, at the speed v_want; cmd->v is set to v_want.
 * *hint as for sim_path_project. */
void sim_ctrl_command(const sim_ctrl *c, const sim_body *b, const sim_path *p, const sim_state *s, double v_want,
                      int *hint, sim_cmd *cmd);

/* ---- geometry ------------------------------------------------------------- */

/* An oriented box in the plane (vehicle footprint). */
typedef struct sim_obb {
    double cx, cy, heading, half_len, half_wid;
} sim_obb;

int sim_obb_overlap(const sim_obb *a, const sim_obb *b);               /* separating axes */
int sim_obb_circle(const sim_obb *a, double cx, double cy, double r);
int sim_obb_polygon(const sim_obb *a, const double *px, const double *py, int n); /* simple polygon */

/* Ray o + t d (|d| = 1) against a vertical prism: polygon (px, py, n) or
 * circle (cx, cy, r when n == 0) extruded from zmin to zmax. Smallest
 * t in [0, tmax], or INFINITY. */
double sim_ray_prism(const double o[3], const double d[3], const double *px, const double *py, int n, double cx,
                     double cy, double r, double zmin, double zmax, double tmax);
/* Ray against the bilinear heightfield: marched cell by cell (each cell's
 * bilinear patch solved exactly along the ray: a quadratic in t). Smallest
 * t in [0, tmax] where the ray goes below the surface, or INFINITY. */
double sim_ray_field(const sim_field *f, const double o[3], const double d[3], double tmax);

/* ---- obstacles --------------------------------------------------------------- */

typedef struct sim_obstacle {
    char id[32];
    int n;                  /* polygon vertices (0: a circle) */
    double *px, *py;        /* polygon at t = 0 (owned) */
    double cx, cy, r;       /* circle at t = 0 */
    double height_m;        /* above the ground (the terrain at its centre: base_z) */
    double base_z;
    double appear_s, disappear_s; /* present in [appear_s, disappear_s) */
    double vx, vy;          /* m/s (moving obstacles) */
} sim_obstacle;

/* 1 if present at time t. */
int sim_obstacle_active(const sim_obstacle *o, double t);
/* Displacement of the obstacle at time t (vx t, vy t). */
void sim_obstacle_offset(const sim_obstacle *o, double t, double *ox, double *oy);
/* Footprint box vs obstacle at time t (0 when not present). */
int sim_obstacle_hits(const sim_obstacle *o, double t, const sim_obb *box);
/* Ray vs obstacle at time t (INFINITY when not present). */
double sim_obstacle_ray(const sim_obstacle *o, double t, const double org[3], const double d[3], double tmax);

/* ---- sensors ------------------------------------------------------------------- */

typedef enum sim_sensor_kind { SIM_GNSS = 0, SIM_IMU, SIM_LIDAR2D, SIM_LIDAR3D } sim_sensor_kind;

typedef struct sim_sensor {
    sim_sensor_kind kind;
    double rate_hz;
    double noise;           /* GNSS: position sd (m); IMU: angle sd (rad); LiDAR: range sd (m) */
    /* LiDAR */
    int lines;              /* 2D: 1 */
    double hfov_rad, vfov_rad; /* horizontal field (2 pi: all round), vertical field (centred on level) */
    double hres_rad;        /* horizontal angular step */
    double range_m;
    double mount_h_m;       /* above the reference point */
} sim_sensor;

/* Everything a ray can hit at time t: the ground and the obstacles (and
 * other vehicles' boxes as prisms of their height). */
typedef struct sim_world {
    const sim_field *field;
    const sim_obstacle *obs;
    int nobs;
    const sim_obb *boxes;   /* other vehicles (may be NULL) */
    const double *box_z, *box_h; /* their base height and height */
    int nboxes;
    double t;
} sim_world;

/* One LiDAR scan from state s: rays over the field of view (lines evenly
 * over vfov, hres steps over hfov, yaw relative to the heading), the
 * nearest hit per ray with range noise from rng; hit points (map frame)
 * appended to xyz (3 per hit), returns the number of hits (at most cap). */
int sim_lidar_scan(const sim_sensor *ls, const sim_world *w, const sim_state *s, trv_rng *rng, double *xyz,
                   int cap);
/* Rays in one scan of this sensor. */
int sim_lidar_rays(const sim_sensor *ls);

/* ======================= runner ================================================== */
/* (declared by the runner's author below this line) */

#endif
