/*
 * sim.h — the vehicle simulator (docs/method.md §5): routes executed on the
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
/* The scenario's name of a model (its `model` key): "ackermann", "skid",
 * "mecanum". */
const char *sim_kind_name(sim_kind k);

/* What the simulator needs of a vehicle: the vehicle file's [vehicle]
 * limits plus its [body] section (tm_vehicle's body fields). */
typedef struct sim_body {
    sim_kind kind;
    double wheelbase_m;     /* L (axle to axle); Mecanum: L1 = wheelbase / 2 (see sim_mecanum_*) */
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
 * rate toward cmd (speed clamped to +-top_speed when > 0), then hold the
 * lagged values over dt and integrate the kinematics exactly for constant
 * inputs (arc of radius v / yaw_rate, or a straight line):
 *   Ackermann  yaw_rate = v tan(steer) / L          (bicycle model)
 *   skid       yaw_rate = slip x commanded yaw rate (lagged)
 *   Mecanum    body velocity (v, vy), yaw rate as commanded (lagged)
 * z, pitch and roll are left to sim_contact. */
void sim_step(const sim_body *b, sim_state *s, const sim_cmd *cmd, double dt);

/* Mecanum inverse kinematics (docs/method.md §5): wheel angular speeds
 * w[0..3] (front-left, front-right, rear-left, rear-right; rad/s) for body
 * velocity (vx, vy) and yaw rate omega, with L1 = wheelbase / 2 and
 * L2 = track / 2, k = L1 + L2 (the usual X roller layout):
 *   w[0] = (vx - vy - k omega) / r     w[1] = (vx + vy + k omega) / r
 *   w[2] = (vx + vy - k omega) / r     w[3] = (vx - vy + k omega) / r
 * and its forward (least-squares) inverse:
 *   vx = r (w0 + w1 + w2 + w3) / 4,  vy = r (-w0 + w1 + w2 - w3) / 4,
 *   omega = r (-w0 + w1 - w2 + w3) / (4 k). */
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
 * the edge cells in the half cell beyond the outer centres); NAN on
 * nodata or off the grid's extent. */
double sim_height(const sim_field *f, double x, double y);
/* Gradient (dz/dx, dz/dy) of the bilinear surface at (x, y) (0 across a
 * clamped edge; NAN where sim_height is NAN). */
void sim_gradient(const sim_field *f, double x, double y, double *gx, double *gy);

/* Height, pitch and roll of a vehicle at (x, y, heading): the ground
 * height under the four wheel contact points (+-wheelbase/2 along,
 * +-track/2 across); z the mean, pitch = atan((front mean - rear mean) /
 * wheelbase), roll = atan((left mean - right mean) / track). 0 on
 * success, -1 if a wheel is off the field or on nodata. */
int sim_contact(const sim_field *f, const sim_body *b, double x, double y, double heading, double *z,
                double *pitch, double *roll);

/* ---- the path and the controllers --------------------------------------- */

typedef struct sim_path {
    int n;
    double *x, *y;          /* vertices (owned) */
    double *s;              /* cumulative length at each vertex (owned) */
} sim_path;

/* p zeroed ({0}) or set before (its old vertices are freed); n >= 1. */
trv_status sim_path_set(trv_ctx *ctx, sim_path *p, const double *x, const double *y, int n);
void sim_path_clear(sim_path *p);
/* Closest point of the path to (x, y), searching segments from *hint
 * forward (a window of the next 64 segments, and of those the ones that
 * start at most 30 m past the next segment's start, so that a path that
 * comes back near itself, or along itself out and back to a task, is
 * not skipped ahead; *hint updated): signed cross-track error (> 0 left
 * of the path), the arc length there. */
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
 * path for the state s, at the speed v_want; cmd->v is set to v_want,
 * cmd->vy to 0. Pure pursuit: curvature 2 y / (x^2 + y^2) to the path
 * point a lookahead (from the actual speed) beyond the projection, (x, y)
 * in the body frame. Stanley: steer = heading error - atan(k e / v) with e
 * the cross-track error of the front axle. Yaw-rate vehicles get
 * curvature x v_want (skid: / slip, the controller knowing the nominal
 * slip). *hint as for sim_path_project. */
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
 * t in [0, tmax] where the ray goes below the surface (0 if it starts
 * below), or INFINITY. Patches touching nodata, and the world beyond the
 * grid's extent, are transparent. */
double sim_ray_field(const sim_field *f, const double o[3], const double d[3], double tmax);

/* The max-height pyramid of a field (heightmax.c): level 0 the top corner
 * of each bilinear patch (-inf where transparent), level k + 1 the maximum
 * of 2 x 2 blocks of level k, up to one block. Built once (4/3 of the
 * grid's floats); borrows the field's grid, which must outlive it. */
typedef struct sim_hmax sim_hmax;
trv_status sim_hmax_new(trv_ctx *ctx, const sim_field *f, sim_hmax **out);
void sim_hmax_free(sim_hmax *m);
int sim_hmax_levels(const sim_hmax *m);
/* sim_ray_field on m's field, bit-identical, skipping the blocks the ray
 * passes above. */
double sim_hmax_ray(const sim_hmax *m, const double o[3], const double d[3], double tmax);
/* hit[k] = sim_ray_field(m's field, o[k], d[k], tmax[k]) for k < n, bit
 * for bit: eight rays at a time in vector lanes where sim_hmax_lanes()
 * (ray_lanes.c), else sim_hmax_ray ray by ray. */
void sim_hmax_rays(const sim_hmax *m, int n, const double (*o)[3], const double (*d)[3], const double *tmax,
                   double *hit);
/* 1 if this CPU marches rays in vector lanes (AVX-512 F, DQ and VL). */
int sim_hmax_lanes(void);

/* The run's worker threads for the LiDAR's rays (ray_pool.c): T - 1
 * workers beside the calling thread, created once. A job is n chunks,
 * fn(job, c, NULL) for c < n, each chunk cast by whichever thread claims
 * it next (one atomic ticket), writing only chunk c's own results into
 * the job's memory (the pool's: a worker may still be in a chunk after
 * the caller moved on). The caller waits at most SIM_POOL_WAIT_US for a
 * chunk a worker holds, then casts it again, fn(job, c, out), into its own
 * out: fn must be a pure function of the job, so that both give the same
 * bits. The pool must be freed before what the jobs read. */
typedef struct sim_pool sim_pool;
typedef void (*sim_pool_fn)(void *job, int c, void *out);
#define SIM_POOL_CHUNK 512      /* rays in a chunk of a LiDAR scan (about: whole azimuths) */
#define SIM_POOL_WAIT_US 100    /* the caller's wait for a chunk a worker holds, then cast again */
/* Threads for a request: requested (at most 64), 0: the cores online. */
int sim_pool_cores(int requested);
/* sim_pool_cores(threads) threads in all (fewer if some cannot start). */
trv_status sim_pool_new(trv_ctx *ctx, int threads, sim_pool **out);
void sim_pool_free(sim_pool *p);
int sim_pool_threads(const sim_pool *p); /* 1 for NULL */
/* The next job's memory (size bytes, n chunks), or NULL (no memory);
 * filled by the caller, then posted (the workers start claiming). */
void *sim_pool_job(sim_pool *p, size_t size, int n);
void sim_pool_post(sim_pool *p, sim_pool_fn fn, int n);
/* The caller's side: the next unclaimed chunk (-1: none left); cast
 * chunk c here (out NULL: into the job, and marked cast); whether chunk c
 * is cast; the same after a short wait for it. */
int sim_pool_claim(sim_pool *p);
void sim_pool_cast(sim_pool *p, int c, void *out);
int sim_pool_done(sim_pool *p, int c);
int sim_pool_wait(sim_pool *p, int c);
/* The caller's wait for a chunk a worker holds (default SIM_POOL_WAIT_US =
 * 100 us; 0: none; for tests, -1: none, and the caller claims no chunk,
 * casting again each one not cast when it needs it). */
void sim_pool_set_wait(sim_pool *p, int us);
/* Chunks cast so far by the workers (in time), by the caller, and again
 * by the caller (a worker late). */
void sim_pool_counts(sim_pool *p, long *by_workers, long *by_caller, long *again);

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
    const sim_hmax *hmax;   /* field's pyramid, built from it (NULL: the plain march) */
    float *ranges;          /* NULL, or sim_lidar_rays floats: each ray's range as returned
                             * (with noise; NAN: no hit), index a x lines + l (azimuth a, line l) */
    sim_pool *pool;         /* NULL, or the threads casting the rays (the same bytes for any number) */
} sim_world;

/* One LiDAR scan from state s: rays over the field of view (lines evenly
 * over vfov, one level line when lines == 1; floor(hfov / hres) + 1
 * rays hres apart centred on the heading, or round(2 pi / hres) evenly
 * all round from -pi; the sensor turns with the body's heading, pitch and
 * roll), the
 * nearest hit per ray with range noise from rng; hit points (map frame)
 * appended to xyz (3 per hit), returns the number of hits (at most cap). */
int sim_lidar_scan(const sim_sensor *ls, const sim_world *w, const sim_state *s, trv_rng *rng, double *xyz,
                   int cap);
/* Rays in one scan of this sensor. */
int sim_lidar_rays(const sim_sensor *ls);

/* ---- ride (ride.c; docs/method.md §5.10) ------------------------------------------ */

/* A road profile under each wheel path by harmonic superposition of the
 * ISO 8608 displacement PSD G_d(n) = G_d(n0) (n / n0)^-w of the land use
 * under the wheel (n0 = 0.1 cycles/m):
 *   z(s) = sum_i A_i cos(2 pi n_i s + phi_i),  A_i = sqrt(2 G_d(n_i) dn_i)
 * over SIM_RIDE_HARMONICS bands equal in log n from SIM_RIDE_N_LO to
 * SIM_RIDE_N_HI cycles/m (wavelengths 100 m to 0.1 m), n_i the geometric
 * centre of band i and dn_i its width; phi_i uniform in [0, 2 pi) from a
 * seeded generator, one set per wheel path (left, right: independent
 * paths), the rear wheel running wheelbase_m behind the front one on the
 * same path. All classes share the phases, so where the class under a
 * wheel changes, its amplitudes move from the old class's to the new
 * over SIM_RIDE_BLEND_M on a cosine ramp (no step in the road).
 * The variance of the profile is sum A_i^2 / 2 ~ the integral of G_d over
 * the band. The band holds >= 98 % of the sprung-mass acceleration
 * variance of the closed form (tm_ride_rms_ms2) for speeds >= 3 m/s
 * (measured for the bundled UGV; w 1.6 and 2).
 *
 * The quarter car (tm_quarter_car; states zs, zs', zu, zu', road zr):
 *   ms zs'' = -k (zs - zu) - c (zs' - zu')
 *   mu zu'' =  k (zs - zu) + c (zs' - zu') - kt (zu - zr)
 * linear (the tyre never leaves the ground), about the static
 * equilibrium, one at each of four corners (front/rear x left/right).
 * Integrated exactly for a road height linear in time over each sub-step
 * (the matrix exponential of the system augmented with the road, first-
 * order hold): unconditionally stable at any step, so the sub-steps (the
 * sim step split so that a wheel travels at most SIM_RIDE_SUBSTEP_M per
 * sub-step: 2.5 samples on the shortest wavelength) only sample the road.
 * Starts at rest on the road. Statistics over the corners and sub-steps:
 *   RMS  sqrt(mean of zs''^2)   (unweighted, as the map's ride limit)
 *   max  max |zs''|
 *   power_corner  mean of c (zs' - zu')^2: the damper's dissipation, W per
 *        corner (the power the suspension absorbs from the road; not
 *        NRMM's absorbed power at the driver, which weights the seat's
 *        acceleration)
 *   window_rms  the mean square with exponential forgetting, time
 *        constant SIM_RIDE_WINDOW_S (the ride limit events). */
#define SIM_RIDE_HARMONICS 96
#define SIM_RIDE_N_LO 0.01
#define SIM_RIDE_N_HI 10.0
#define SIM_RIDE_SUBSTEP_M 0.04
#define SIM_RIDE_BLEND_M 5.0
#define SIM_RIDE_WINDOW_S 4.0

/* The band: centres n[] and widths dn[] (dn may be NULL). */
void sim_ride_band(double n[], double dn[]);
/* A_i of a class (0 everywhere when gd0 <= 0). */
void sim_ride_amplitudes(double gd0_m3, double w, double amp[]);
/* The phases a seed gives (the generator trv_rng). */
void sim_ride_phases(uint64_t seed, double phase[]);
/* z(s) summed directly (the tests; the runner rotates phasors). */
double sim_ride_height(const double amp[], const double phase[], double s);

/* The quarter car's exact step of h seconds with the road height linear
 * over it: x1 = phi x0 + ga u0 + gb (u1 - u0), x = (zs, zs', zu, zu'). */
void sim_quarter_car_discretise(const tm_quarter_car *q, double h, double phi[4][4], double ga[4], double gb[4]);

typedef struct sim_ride sim_ride;
typedef struct sim_ride_stats {
    double time_s, rms_ms2, max_ms2, power_corner_W, window_rms_ms2;
} sim_ride_stats;

/* A vehicle's ride: its quarter car, the sim step dt, the highest speed
 * (the sub-steps precomputed), the wheelbase, the seed of the phases (the
 * left path seed ^ a constant, the right another). */
trv_status sim_ride_new(trv_ctx *ctx, const tm_quarter_car *q, double dt, double v_max_ms, double wheelbase_m,
                        uint64_t seed, sim_ride **out);
void sim_ride_free(sim_ride *r);
/* The roughness of land-use code 0..255 (gd0 <= 0: smooth; unset codes
 * are smooth). */
trv_status sim_ride_set_class(trv_ctx *ctx, sim_ride *r, int code, double gd0_m3, double w);
/* One sim step: the wheels travelled ds (m, >= 0) along their paths;
 * codes[4] the land use under each corner (front left, front right, rear
 * left, rear right) at the step's end. */
void sim_ride_step(sim_ride *r, double ds, const int codes[4]);
void sim_ride_get(const sim_ride *r, sim_ride_stats *out);

/* ======================= runner ================================================== */
/* (declared by the runner's author below this line) */
/*
 * The runner: a scenario file (INI) names the vehicles, their sensors, the
 * obstacles file and the stepping; sim_run_new loads the vehicles and their
 * routes (a route file, or a plan from start to goal on the raster, the
 * time strategy, smoothed), sim_run_go steps every vehicle with the same
 * dt until each has reached its goal or stopped, or the time limit; then
 * sim_run_write writes OUTDIR in the caller's output set (all or none).
 *
 * OUTDIR: trajectory_<id>.csv and trajectory_<id>.geojson per vehicle,
 * events.jsonl, metrics.json and, when the scenario has an obstacles file,
 * obstacles.geojson: the obstacles simulated, so that a run directory
 * describes itself (the QGIS project and the PNG renderer show them);
 * vehicles.json (each vehicle's dimensions) and, with lidar_record_s,
 * lidar_<id>.ndjson per vehicle with a LiDAR (lidar_record.h).
 * obstacles.geojson is RFC 7946 GeoJSON, EPSG:4326 lon/lat to 7 decimals like the
 * trajectories, one feature per obstacle in file order: a polygon at its
 * t = 0 position, a circle as a 64-sided polygon with properties
 * radius_m, centre_lon, centre_lat (one geometry type, so QGIS and OGR read
 * the file as one layer); properties id, height_m, appear_s, disappear_s
 * (omitted when it never disappears), vx_ms, vy_ms, as in the obstacles
 * file.
 *
 * Scenario file (paths relative to the scenario file's directory):
 *   [scenario]  step_s (0.02), time_limit_s (3600), record_s (0.2: the
 *               trajectory rows), obstacles (GeoJSON), controller
 *               (pure_pursuit|stanley), lookahead_s, lookahead_min_m,
 *               lookahead_max_m, stanley_k, goal_tolerance_m (2),
 *               decel_ms2 (2: planned braking), lateral_acc_ms2 (2: speed
 *               in bends), safety_margin_m (1: yield and inflation),
 *               replan (yes), dynamics (kinematic|dynamic: sim_step, or
 *               every vehicle on ODE, dynamic.h and docs/method.md §5.11;
 *               the issue's `model = dynamic` is this key, since `model`
 *               names the drive), rollover_margin (0.5: the speed keeps
 *               the predicted load-transfer ratio at most 1 - it;
 *               rollover_limit.h; dynamic vehicles always, kinematic ones
 *               only when the key is given), lidar_record_s (0: off; > 0
 *               every vehicle's first LiDAR's scans recorded this often,
 *               lidar_record.h), lidar_record_points (1000: the points
 *               kept of a recorded scan, evenly spread)
 *   [vehicle.ID] file (vehicle INI), model (ackermann|skid|mecanum),
 *               route (CSV with x, y in the map CRS, as trv-route --csv
 *               writes; route_name selects rows of its `route` column,
 *               default mmcr when the column exists) or start and goal
 *               ("X,Y" in srs: EPSG:4326 lon,lat by default, "map" for the
 *               terrain's CRS) planned on the raster with strategy
 *               (time|mmcr|mdr|msr, default time); start_time_s (0);
 *               terrain (a directory as trv-sim's --terrain, on the same
 *               grid: the vehicle's own speed, GO/NOGO and speed model
 *               copies, for its route, speed profile and re-planning, so a
 *               fleet of several types drives each on its own map; default
 *               the run's terrain, whose DEM every vehicle touches);
 *               local_planner (none|vfh+|vfh*|vfh*-wu2020|dwa) and its
 *               keys: local_planner.h, docs/method.md §5.12
 *   [gnss.ID]   rate_hz (10), noise_m (position sd)
 *   [imu.ID]    rate_hz (100), noise_deg (heading sd)
 *   [lidar2d.ID], [lidar3d.ID]  rate_hz (10), lines (3D, 16), hfov_deg
 *               (360), vfov_deg (3D, 30), hres_deg (1), range_m (50),
 *               noise_m (0.02), mount_h_m (1.5)
 * The route file may be overridden for every vehicle (sim_env.route_path,
 * trv-sim --route), since routes are made under out/<area>/.
 *
 * Obstacles file: GeoJSON (EPSG:4326 lon/lat, RFC 7946, unless the file
 * names another CRS; converted to the map CRS): Polygon features, or
 * Point features with radius_m (circles); properties height_m (required,
 * > 0), id, appear_s (0), disappear_s (never), vx_ms, vy_ms (east and north
 * velocity in the map CRS, m/s). The obstacle's base is the terrain
 * height at its centre.
 * Route-relative obstacles ("a virtual obstacle across my route 10 km
 * in", whatever the route): a feature with "geometry": null and either
 * at_route_m (distance along the route from its start, m, 0 to its
 * length) or at_route_fraction (0 to 1 of its length), on the route of
 * vehicle (an id of the scenario; default its first vehicle): the
 * vehicle's first plan (its route file, --route, or its start-to-goal
 * plan; map CRS arc length, so the obstacles are placed once the routes
 * are loaded). Its shape: radius_m (a circle centred on the route there)
 * or across_m and along_m (a rectangle centred there, across_m wide
 * across the route and along_m deep along it, its along side parallel to
 * the route's direction there: the chord from the route's point 5 m
 * before to the one 5 m after, clipped to its ends, so that a corner
 * gets the bisector). The other properties as above; velocities move it
 * from that position at t = 0. Errors (naming the file and the feature's
 * id, or its 1-based index): a geometry as well as at_route_*, both
 * at_route_m and at_route_fraction, a distance outside the route or a
 * fraction outside [0, 1], an unknown vehicle, no shape or both shapes.
 * obstacles.geojson in OUTDIR holds them as placed (polygons and circles).
 *
 * Speed: the path is sampled every min(cell / 2, 5 m) into a speed profile
 * v(s) = min(top speed, max(v_cell(s), 0.5 m/s), sqrt(lateral_acc /
 * curvature)), then braked backward (v_i <= sqrt(v_(i+1)^2 + 2 decel ds))
 * so that the vehicle slows down ahead of slow cells and to 0 at the goal;
 * the command is the smaller of the profile's minimum over [s, s + v
 * tau_speed + 1 m] (the lag) and v_cell where the vehicle is (at least
 * 0.5 m/s). v_cell, with the speed model (sim_env.model_*: the terrain has
 * soil.tif and landuse.tif): tm_speed_at of the vehicle's own tm_model
 * (its vehicle file over the run's class tables) on the cell's soil and
 * land use at the grade along the direction of travel (the profile: the
 * DEM's bilinear gradient along the path; where the vehicle is: its pitch;
 * either within +-slope.tif, the grade the map was made with and found GO
 * both ways), so uphill and downhill differ (docs/method.md §2.10); on NOGO cells
 * (gonogo.tif), on a code the tables do not know, and without the model,
 * speed.tif's value. The goal
 * is reached within goal_tolerance_m of the path's end.
 *
 * Localisation: with a GNSS sensor the controller sees the true position
 * plus an error redrawn at each fix (normal, sd noise_m), with an IMU the
 * heading plus an error redrawn at each sample; without them, the truth.
 *
 * Seen map (docs/method.md §5): on the terrain grid, per cell the lowest and
 * highest LiDAR hit ABOVE the terrain model (hit z minus the bilinear DEM
 * height; on a 30 m DEM the raw span of a sloping cell is metres, while
 * the terrain's own slope is already in GO/NOGO). A cell is impassable when
 * its highest hit is more than step_m above the ground or its lowest more
 * than step_m below (a step or a ditch it cannot climb). Hits on other
 * vehicles are left out of the map (vehicles yield to each other, below);
 * the map only accumulates, so a moving obstacle leaves a trail of blocked
 * cells (conservative). Impassable cells are inflated by ceil((half
 * diagonal of the footprint + safety_margin) / cell) cells for planning.
 *
 * Re-planning: when a scan blocks new cells and the rest of the path
 * crosses a blocked (inflated) cell, A* on the terrain grid
 * (prm_route_grid_masked, strategy time) with the blocked cells masked
 * out (its start and goal cells kept open), then prm_smooth (kept only if
 * it stays out of the blocked cells): first a local detour that rejoins
 * the path past the blocked stretch, searched in a window (so the
 * mission's route, e.g. MMCR, is kept elsewhere); if none, from the
 * current position to the goal on the whole grid. If no path exists
 * with the inflation, once more without it; still none: a "stuck" event
 * and the vehicle stops. Re-planning from the current position is what
 * escapes a dead end: the plan leads back out. Such a plan may start
 * behind the vehicle: while the path point two lengths ahead lies behind
 * it, an Ackermann vehicle turns at its steering limit at 1 m/s toward
 * that point's side (skid and Mecanum turn on the spot). Unseen cells
 * count as free (optimistic), so a plan may lead into what is not seen
 * yet, and re-planning goes on as more is seen.
 * Without any LiDAR a vehicle sees nothing and drives into obstacles (a
 * collision), by design.
 *
 * Vehicles: each is a footprint box (length x width) for the others; a
 * vehicle yields (commands 0) while another vehicle's box inflated by
 * safety_margin_m lies in its corridor ahead (its width plus margin, from
 * its front to the braking distance v^2 / (2 decel) + margin + 2 m), unless
 * that vehicle also has it ahead, is still driving and comes later in the
 * file (right of way by order; a vehicle that has finished has none). A
 * "yield" event marks each start of yielding.
 *
 * Head-on conflicts (conflict.c; docs/method.md §5.9): with two vehicles
 * or more, every 1 s of simulated time each pair of driving vehicles not
 * already giving way is checked: their paths ahead over the horizon H =
 * max(30 m, T x top speed), T = 20 s, meet head-on when a point of one
 * stretch lies within c of the other (c = the two half diagonals of the
 * footprints + 2 safety_margin_m) with the directions there more than
 * 120 degrees apart. Priority: the one earlier in the file keeps its
 * path; the later gives way, by the first of
 *   wait           it is already at least c from the rest of the other's
 *                  path: it stands where it is;
 *   detour         an A* (prm_route_grid_masked, time) from where it is to
 *                  its own path c + 2 cells past the other's position, in
 *                  a window around both (padded 2 c + 20 m), on its cells
 *                  (the seen map's mask, or GO) that lie at least c from
 *                  the other's reserved stretch, its path from its rear
 *                  (half diagonal behind) over H (the space the other
 *                  occupies in the next T seconds), a disk of c + 1 cell
 *                  around both ends kept open; taken if at most 1.5 x the
 *                  stretch it replaces + 4 c long;
 *   passing_place  the nearest cell (breadth first over its cells in the
 *                  window around both, not through the other's footprint)
 *                  that is at least c + goal_tolerance_m from the rest of
 *                  the other's path, beside it (its nearest point between
 *                  the other and the other's goal less c), whose
 *                  footprint's cells (half diagonal) are all usable and
 *                  which keeps half diagonals + margin from every other
 *                  vehicle and their places: it drives there (A*) and
 *                  stands once within goal_tolerance_m. Until then every
 *                  driving vehicle within 3 c + its braking distance + 2 m
 *                  of it or of the place stands (the stretch is reserved);
 * and none of them when the other's goal lies within c of its own way
 * (the other would stand there for good). If the later vehicle finds none,
 * the earlier one gives way likewise; if neither, both stop (end
 * "deadlock"). A vehicle waiting or parked goes on when no driving
 * vehicle's path ahead (from its rear, over its H) meets head-on the path
 * it would take over its own H (its path; from a place, the way back: A*
 * to its old path c + 2 cells past the point nearest the place, then that
 * path); after a detour it counts as free once past the rejoining point.
 * The guard: giving way (waiting, to or at a place) for more than 300 s
 * stops both (end "deadlock"). Each conflict is a "conflict" event on both
 * vehicles: "with" (the other's id), "role" ("gives_way" or "priority"),
 * "resolution" ("wait", "detour", "passing_place" with "place": [x, y],
 * "none"; or "deadlock" from the guard); metrics "conflicts" counts them
 * per vehicle (either role).
 *
 * Events: start, goal, collision (obstacle or vehicle; stops; dynamic:
 * the engine's contact answers it, the run goes on, details
 * impact_speed_ms), tip_over (|roll| or |pitch| over the vehicle's
 * limits; stops; kinematic only), rollover (dynamic: past the static
 * threshold or wheels off the ground, dynamic.h; stops), off_map (stops),
 * obstacle_seen (a scan blocked new cells), replan, stuck, yield,
 * time_limit, ride_limit (below), closed (a server's client ended the run
 * early: sim_run_close), conflict (above), obstacle_added and
 * obstacle_removed (a virtual obstacle, virtual_obstacle.h: no vehicle,
 * -1; "vehicle": null in events.jsonl). "stops" counts the times a
 * started vehicle came to a
 * standstill (< 0.1 m/s) before its goal (yielding, or stopped for good).
 * ride_limit: the ride's windowed RMS (sim_ride, SIM_RIDE_WINDOW_S) rose
 * above the vehicle's ride_limit_rms_ms2 (again only after it fell below
 * 0.8 of it).
 * energy_kJ = integral of (the pull tm_speed_at finds at the vehicle's
 * pitch: soil compaction + tyre rolling + vegetation + grade resistance,
 * with the speed model; else m g sin(pitch); at least 0) x speed dt.
 * Ride (with the speed model): the land use's roughness (its table's
 * roughness_gd0_m3 and roughness_w) under each corner, sim_ride on the
 * vehicle's quarter car (tm_vehicle_quarter_car), the phases from the
 * run's seed and the vehicle's rank; metrics ride_rms_ms2, ride_max_ms2,
 * ride_power_W = corners (tm_vehicle_corners) x the mean damper
 * dissipation per corner (null without the model).
 */

typedef enum sim_event_type {
    SIM_EV_START = 0, SIM_EV_GOAL, SIM_EV_COLLISION, SIM_EV_TIP_OVER, SIM_EV_OFF_MAP, SIM_EV_OBSTACLE_SEEN,
    SIM_EV_REPLAN, SIM_EV_STUCK, SIM_EV_YIELD, SIM_EV_TIME_LIMIT, SIM_EV_RIDE_LIMIT, SIM_EV_CLOSED,
    SIM_EV_CONFLICT, SIM_EV_OBSTACLE_ADDED, SIM_EV_OBSTACLE_REMOVED, SIM_EV_ROLLOVER
} sim_event_type;

const char *sim_event_name(sim_event_type t);

/* A vehicle's local planner (local_planner.h; docs/method.md §5.12). */
typedef enum sim_local_kind {
    SIM_LOCAL_NONE = 0, SIM_LOCAL_VFH_PLUS, SIM_LOCAL_VFH_STAR, SIM_LOCAL_WU2020, SIM_LOCAL_DWA
} sim_local_kind;
typedef struct sim_local_spec {
    sim_local_kind kind;
    int given;              /* the key was in the file (clearance metrics written) */
    double window_m, lookahead_m, safety_m;
    int depth;              /* VFH*, wu2020: the tree's depth n_g */
    double lambda[5];       /* wu2020 */
    double dwa_weights[3];  /* DWA: heading, clearance, velocity (0.5, 1, 0.5) */
} sim_local_spec;

typedef struct sim_vehicle_spec {
    char id[32];
    char *file;             /* vehicle INI, resolved against the scenario's directory */
    sim_kind kind;
    char *route;            /* route CSV (resolved), or NULL: plan from start to goal */
    char *route_name;       /* rows of the route column to keep (NULL: mmcr if present, else all) */
    int has_start, has_goal;
    double start[2], goal[2];
    char *srs;              /* CRS of start / goal ("map": the terrain's) */
    prm_strategy strategy;
    double start_time_s;
    char *terrain;          /* its own terrain directory (resolved), or NULL: the run's */
    int nsensors;
    sim_sensor sensors[4];  /* at most one of each kind */
    long line;              /* the section's line (messages) */
    sim_local_spec local;   /* local planner (local_planner.h) */
} sim_vehicle_spec;

typedef struct sim_scenario {
    char *path;
    double step_s, time_limit_s, record_s, goal_tol_m, decel_ms2, lat_acc_ms2, margin_m;
    int replan;
    int dynamics;           /* 0 kinematic (sim_step), 1 dynamic (ODE: dynamic.h) */
    double rollover_margin; /* 1 - the load-transfer ratio allowed (rollover_limit.h) */
    int rollover_given;     /* the key given: the limit applies to kinematic vehicles too */
    double lidar_record_s;  /* > 0: the LiDAR scans recorded this often (lidar_record.h); 0 off */
    int lidar_record_points; /* the points kept of a recorded scan, at most */
    sim_ctrl ctrl;
    char *obstacles;        /* resolved path or NULL */
    int nveh;
    sim_vehicle_spec *veh;
} sim_scenario;

trv_status sim_scenario_read(trv_ctx *ctx, const char *path, sim_scenario **out);
void sim_scenario_free(sim_scenario *sc);

/* A vehicle's route, for the obstacles placed along it (both borrowed). */
typedef struct sim_route_ref {
    const char *vehicle;    /* its id */
    const sim_path *path;   /* map CRS */
} sim_route_ref;

/* Obstacles file (above) into the terrain's CRS; *n may be 0. routes[0]
 * is the default for route-relative obstacles (nroutes 0: none allowed). */
trv_status sim_obstacles_read(trv_ctx *ctx, const char *path, const prm_terrain *t, const sim_route_ref *routes,
                              int nroutes, sim_obstacle **out, int *n);
void sim_obstacles_free(sim_obstacle *o, int n);

/* ---- seen map and re-planning ------------------------------------------------- */

typedef struct sim_seen {
    int nx, ny;
    float *hmin, *hmax;     /* above-ground extremes of the hits per cell (NAN: never hit) */
    unsigned char *blocked; /* 1: impassable */
    unsigned char *mask;    /* planning mask: 1 allowed (GO and not within the inflation of a blocked cell) */
    int inflate;            /* cells */
    long nblocked;
} sim_seen;

trv_status sim_seen_init(trv_ctx *ctx, sim_seen *m, const prm_terrain *t, double inflate_m);
void sim_seen_clear(sim_seen *m);
/* Add n hit points (xyz, map frame): returns how many cells became
 * impassable (step_m: the vehicle's). */
long sim_seen_add(sim_seen *m, const prm_terrain *t, const sim_field *f, const double *xyz, int n, double step_m);
/* Mark cell i impassable (an obstacle known without a hit); 1 if it was not. */
int sim_seen_block(sim_seen *m, long i);
/* 1 if the path from arc length s0 on crosses a cell the mask forbids
 * that the terrain allows (a seen obstacle). */
int sim_seen_path_blocked(const sim_seen *m, const prm_terrain *t, const sim_path *p, double s0);
/* Plan from (x, y), on path p at arc length s0, around what was seen:
 * first locally (*local = 1), from (x, y) to the first open point of p 3
 * cells past its first blocked stretch, inside a window around both
 * (padded by their distance, at least 20 cells), followed by the rest of
 * p; failing that, globally to p's end. *wall_s: the time it took. */
trv_status sim_replan(trv_ctx *ctx, const sim_seen *m, const prm_terrain *t, const sim_path *p, double s0, double x,
                      double y, prm_path *out, double *wall_s, int *local);

/* ---- the run ---------------------------------------------------------------------- */

typedef struct sim_metrics {
    char id[32];
    int reached_goal;
    double time_s;          /* from start to goal (or to the stop / time limit) */
    double distance_m, planned_time_s, planned_distance_m;
    double cross_track_rms_m, cross_track_max_m, heading_rms_deg;
    int replans, collisions, stops, yields;
    int conflicts;          /* head-on conflicts it was in (either side) */
    double energy_kJ;
    double ride_rms_ms2, ride_max_ms2, ride_power_W; /* NAN without the speed model */
    int ride_limit_events;
    double sim_time_s;
    double replan_wall_s;   /* total wall time spent re-planning (not written: not deterministic) */
    const char *end;        /* why it ended: goal, collision, tip_over, off_map, stuck, time_limit,
                             * closed, deadlock, rollover */
} sim_metrics;

typedef struct sim_event {
    double t, x, y;
    int vehicle;
    sim_event_type type;
    char details[192];      /* JSON object members, without braces ("\"cells\": 3") */
} sim_event;

/* What the run may use besides the terrain: all optional (zeroed: none). */
typedef struct sim_env {
    const char *route_path;     /* overrides every vehicle's route file */
    /* The speed model (all four, or none: speed.tif): soil and land-use
     * codes on the terrain grid, the soil table, the land-use table's path
     * (tm_model_init; its roughness columns for the ride). */
    const geo_raster *soil, *landuse;
    const tm_soils *soils;
    const char *landuse_csv;
    uint64_t seed;
    int realtime;               /* pace the run to the wall clock */
    int threads;                /* the LiDAR's threads (sim_pool_cores: 0 all cores; the same bytes for any) */
    const struct sim_commands *commands; /* NULL, or commands to replay (command.c, below) */
} sim_env;

typedef struct sim_run sim_run;

/* Read the vehicles, routes (or plan them) and the obstacles. Borrows sc,
 * t and env (they must outlive the run). */
trv_status sim_run_new(trv_ctx *ctx, const sim_scenario *sc, const prm_terrain *t, const sim_env *env,
                       sim_run **out);
void sim_run_free(sim_run *r);
/* Step until every vehicle has finished or the time limit. */
trv_status sim_run_go(trv_ctx *ctx, sim_run *r);
int sim_run_nvehicles(const sim_run *r);
const sim_metrics *sim_run_metrics(const sim_run *r, int k);
int sim_run_nevents(const sim_run *r);
const sim_event *sim_run_event(const sim_run *r, int i);
/* Wall time of the run (s). */
double sim_run_wall_s(const sim_run *r);
/* Number of events of type t for vehicle k (-1: any). */
int sim_run_count(const sim_run *r, int k, sim_event_type t);

/* Lock-step (the server, server.c): advance up to n steps as sim_run_go
 * would (the same steps, the same bytes), ending the run as it does when
 * no vehicle is left or at the time limit; returns 1 once the run is over,
 * -1 on a failure (out of memory resolving a conflict; message in ctx).
 * sim_run_close ends a run that is not over with a "closed" event for each
 * vehicle still going, as the time limit does. sim_run_time: i x step_s
 * after i steps. */
int sim_run_advance(trv_ctx *ctx, sim_run *r, long n);
void sim_run_close(sim_run *r);
double sim_run_time(const sim_run *r);

/* OUTDIR/trajectory_<id>.csv and .geojson, events.jsonl, metrics.json and
 * (with an obstacles file or virtual obstacles) obstacles.geojson, vehicles.json and
 * (lidar_record_s) lidar_<id>.ndjson, atomically (created if
 * missing). timing 0 leaves wall_time_s and
 * realtime_factor out of metrics.json; "conflicts" is in it only with
 * several vehicles. */
trv_status sim_run_write(trv_ctx *ctx, trv_outset *set, const sim_run *r, const char *outdir, const trv_meta *meta,
                         int timing);

#endif
