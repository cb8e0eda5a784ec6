/*
 * dynamic.h — vehicle dynamics on the Open Dynamics Engine (docs/method.md
 * §5.11): the scenario's `dynamics = dynamic` drives each vehicle as a
 * rigid chassis on four wheels instead of the kinematic model (sim_step).
 *
 * An ODE world per vehicle or one for several (dynamic.c; sim_dyn_new_in
 * below), stepped with dWorldStep (the
 * exact LCP, no random reordering) at the run's fixed step, single
 * threaded, dInitODE2 once per process: the same inputs give the same
 * bytes. World frame: map metres minus an origin (the start position),
 * z up; the ground an ODE heightfield through the DEM's cell centres
 * (dynamic_terrain.c: a window of cells around the vehicle, moved when
 * it nears the window's edge).
 *
 * The vehicle: a chassis box (length x width, from the ground clearance
 * to height_m) whose body carries the sprung mass m_s = m - 4 m_u with
 * its centre of mass at cg_x_m ahead of the reference point (between the
 * axles) and at the height that puts the whole vehicle's centre of mass
 * cg_h_m above the ground; box inertia of the body's dimensions. Four
 * wheels (spheres of wheel_radius_m, mass m_u) on hinge-2 joints at
 * (+-wheelbase/2, +-track/2): axis 1 the chassis' z (steering and
 * suspension), axis 2 the wheel's axle. The suspension is the quarter
 * car's spring k and damper c as the joint's ERP and CFM at step h:
 *   ERP = h k / (h k + c),  CFM = 1 / (h k + c)
 * (ODE's implicit spring-damper; static sag m_s g / (4 k)).
 * Steering (Ackermann): axis 1 held at the inner and outer Ackermann
 * angles of the lagged bicycle angle delta (tan d_in,out = L / (L /
 * tan delta -+ t / 2)); the rear wheels held straight. Drive: each
 * wheel's axis-2 motor at the lagged wheel speed (Ackermann: an ideal
 * differential about the turn's centre on the rear axle; skid: (v -+
 * omega t / 2) / r; Mecanum: sim_mecanum_inverse), its torque limited by
 * r min(eta P / (4 max(|v|, 1 m/s)), 1.05 x the soil's thrust at full
 * slip under its load of the step before) when driving, by r m a_brake / 4 when
 * slowing down, by the larger when reversing; Ackermann moving the way it
 * wants to go, and no wheel slipping past TM_SLIP_TRACTION, an open
 * differential instead (dynamic.c drive_force: equal torques from a PI
 * speed control). Traction is the contact's (its friction, below). Rolling resistance: the moment
 * f_rr W cos(grade) r of the tyre's offset pressure about the wheel's
 * centre, applied as the equivalent force f_rr W cos(grade) at the
 * wheel's centre against its motion along the rolling direction (W its
 * nominal load m g / 4, the grade the chassis' tilt): a torque on the
 * wheel alone would be taken up by the drive's speed control and never
 * slow the vehicle.
 * Contacts (dynamic_contact.c): wheel-ground with friction coefficient
 * the soil's full-slip thrust over load and force-dependent slip
 * (docs/method.md §5.11); chassis-ground, chassis and wheels against
 * obstacles (static prisms; moving ones kinematic), other vehicles in
 * the same world (sim_dyn_collide_vehicles: both feel the contact) and
 * kinematic boxes set to a pose each step, with restitution.
 */
#ifndef SIM_DYNAMIC_H
#define SIM_DYNAMIC_H

#include "sim.h"

/* The soil under a wheel (dynamic_contact.c maps it to the contact). */
typedef struct sim_dyn_soil {
    double mu;              /* thrust at full slip / load: (A c + W tan phi) g(1) / W */
    double k_over_l;        /* Janosi-Hanamoto K / contact length (<= 0: Coulomb, no slip curve) */
    double f_rr;            /* rolling resistance coefficient (soil + tyre) */
} sim_dyn_soil;

typedef void sim_dyn_soil_fn(void *user, double x, double y, sim_dyn_soil *out); /* x, y map CRS */

typedef struct sim_dyn_params {
    double mass_kg, unsprung_kg;    /* whole vehicle; one wheel */
    double cg_h_m, cg_x_m;          /* centre of mass height above ground, ahead of the reference point */
    double clearance_m;
    double spring_N_per_m, damper_Ns_per_m; /* one corner */
    double tyre_N_per_m;            /* one tyre's radial stiffness */
    double cornering_N_per_rad;     /* one tyre's cornering stiffness */
    double power_W;                 /* eta P */
    double brake_ms2;
    double restitution;             /* obstacles and vehicles */
    double airborne_s;              /* one side's or axle's wheels off the ground this long: rollover */
    double gravity[3];              /* world frame, m/s^2 */
    int frictionless;               /* tests: no friction, rolling resistance or damping */
    sim_dyn_soil soil;              /* used when no soil function is given */
    sim_dyn_soil_fn *soil_fn;
    void *soil_user;
} sim_dyn_params;

/* Defaults from a vehicle file (tv may be NULL: the body alone, 1.2 Hz
 * and 0.3 damping on m / 4): cg_h = max(wheel radius, 0.45 height), cg_x 0,
 * unsprung, suspension and tyre from tm_vehicle_quarter_car (10 x the
 * spring without a vehicle file), cornering stiffness
 * 10 x the nominal tyre load per radian, power eta P, brakes the
 * vehicle's deceleration, restitution 0.3, airborne 1 s, gravity (0, 0,
 * -9.80665), soil mu 0.8, K/L 0.1, f_rr the tyre's (0.015). */
void sim_dyn_params_default(const tm_vehicle *tv, const sim_body *b, sim_dyn_params *p);

/* Static rollover threshold atan(track / (2 cg_h)) (radians). */
double sim_dyn_rollover_threshold(const sim_body *b, const sim_dyn_params *p);

typedef struct sim_dyn sim_dyn;

/* A vehicle at rest on the field at s0 (x, y, heading; its wheels' centres
 * a radius above the ground, springs at rest length), for steps of dt.
 * Borrows b, f (must outlive it); copies p. */
trv_status sim_dyn_new(trv_ctx *ctx, const sim_body *b, const sim_dyn_params *p, const sim_field *f,
                       const sim_state *s0, double dt, sim_dyn **out);
void sim_dyn_free(sim_dyn *d);

/* The obstacles (o borrowed for the vehicle's life): each a vertical prism (the
 * convex hull of a polygon; a circle as a cylinder) from 1 m below
 * base_z to base_z + height_m, present while sim_obstacle_active,
 * moving at (vx, vy). Other vehicles: nboxes kinematic boxes whose pose
 * sim_dyn_set_box sets each step (once; present 0: not there). */
trv_status sim_dyn_set_obstacles(trv_ctx *ctx, sim_dyn *d, const sim_obstacle *o, int n); /* once; tag k = o[k] */
trv_status sim_dyn_set_boxes(trv_ctx *ctx, sim_dyn *d, int nboxes);
void sim_dyn_set_box(sim_dyn *d, int i, const sim_obb *box, double z, double height, double vx, double vy,
                     int present);

/* What a step found. */
typedef struct sim_dyn_hit {
    int tag;                /* obstacle tag, or -1 - box index or vehicle index (another vehicle) */
    double speed;           /* closing speed along the contact normal at first touch (m/s) */
} sim_dyn_hit;

typedef struct sim_dyn_out {
    int nhits;
    sim_dyn_hit hit[4];     /* contacts that began this step */
    int rollover;           /* 1: roll or pitch past its threshold; 2: wheels off the ground too long */
    double slip[4];         /* longitudinal slip of each wheel (FL, FR, RL, RR): (r w - v) / max(|r w|, |v|) */
    double load_N[4];       /* normal force on each wheel */
} sim_dyn_out;

/* Step dt at time t toward cmd: the lagged commands as sim_step lags them
 * (speed, steering or yaw rate, lateral speed), the motors and brakes,
 * rolling resistance, contacts, one dWorldStep; then s gets the pose
 * (reference point: x, y, z, heading, pitch, roll) and the body
 * velocities (v, vy, yaw_rate) and steer; pitch and roll against
 * gravity. Fails only when the terrain window cannot move (memory). */
trv_status sim_dyn_step(trv_ctx *ctx, sim_dyn *d, const sim_cmd *cmd, double t, double dt, sim_state *s,
                        sim_dyn_out *out);

/* ---- several vehicles in one world (dynamic_obstacle.c; method 5.11, Collisions) ----
 * Vehicles that may touch share one ODE world, so that a contact between
 * them is a joint between their bodies (both feel it: momentum is
 * exchanged) solved with the rest of the step. sim_dyn_new_in makes a
 * vehicle in with's world (with NULL: a world of its own, sim_dyn_new);
 * the world goes with the last vehicle in it. A shared world is stepped
 * once for all: sim_dyn_begin for each vehicle (in a fixed order),
 * sim_dyn_collide_vehicles, sim_dyn_world_step, sim_dyn_end for each;
 * sim_dyn_step is the three for a vehicle alone. */
trv_status sim_dyn_new_in(trv_ctx *ctx, sim_dyn *with, const sim_body *b, const sim_dyn_params *p,
                          const sim_field *f, const sim_state *s0, double dt, sim_dyn **out);
/* sim_dyn_step's first part: the commands, motors, obstacles and the
 * vehicle's own contacts (ground, obstacles, boxes) for the next world
 * step; out cleared, and its hits with obstacles. */
void sim_dyn_begin(sim_dyn *d, const sim_cmd *cmd, double t, double dt, sim_dyn_out *out);
/* One dWorldStep of the world d is in (every vehicle in it); the
 * vehicle-vehicle contacts emptied. */
void sim_dyn_world_step(sim_dyn *d, double dt);
/* sim_dyn_step's last part: s and the rest of out, the terrain window. */
trv_status sim_dyn_end(trv_ctx *ctx, sim_dyn *d, double dt, sim_state *s, sim_dyn_out *out);
/* Contacts between the vehicles d[0 .. n-1] of one world (NULL: none)
 * for the next world step, between their sim_dyn_begin and the step:
 * joints between the two vehicles' chassis and wheels (friction 0.5,
 * restitution the mean of the two); a contact that begins is a hit in
 * both vehicles' out (out[i] for d[i]; out or out[i] NULL: none), the same speed for both (their
 * relative velocity at the contact point along its normal), tag -1 - the
 * other's index (as a box's: a caller with both numbers them apart).
 * Fails only without memory. */
trv_status sim_dyn_collide_vehicles(trv_ctx *ctx, sim_dyn *const *d, int n, sim_dyn_out *const *out);
/* A vehicle in a shared world that is not stepped: absent (bodies and
 * geoms off: not there yet) or parked for good (bodies kinematic and
 * still: a vehicle whose run ended, which others meet as a fixed body);
 * driven (the default) again from absent. */
enum { SIM_DYN_DRIVEN = 0, SIM_DYN_ABSENT, SIM_DYN_PARKED };
void sim_dyn_set_mode(sim_dyn *d, int mode);

/* Whole-vehicle energy: kinetic (translation and rotation of every body)
 * + potential (-m g . position) + the springs' m_s g sag / 2 stored energy
 * is left out (constant at rest). Tests. */
double sim_dyn_energy(const sim_dyn *d);
/* Linear momentum of the chassis and wheels (kg m/s, world = map axes). Tests. */
void sim_dyn_momentum(const sim_dyn *d, double p[3]);
/* Change gravity (a tilt table; tests): the world's, every vehicle's in it. */
void sim_dyn_set_gravity(sim_dyn *d, const double g[3]);
/* The wheels' centres (map CRS) and spin (rad/s), FL, FR, RL, RR. */
void sim_dyn_wheels(const sim_dyn *d, double xyz[4][3], double spin[4]);

/* ---- the terrain window (dynamic_terrain.c) ---------------------------------- */

typedef struct sim_dyn_terrain sim_dyn_terrain;
/* The field's cell centres as an ODE heightfield in space (void *: a
 * dSpaceID) around (x, y) (map CRS): the whole grid when it has at most
 * SIM_DYN_WINDOW cells a side, else a window of that many; nodata takes
 * the window's lowest valid height. ox, oy: the world origin; tag the
 * geom's data. */
#define SIM_DYN_WINDOW 256
trv_status sim_dyn_terrain_new(trv_ctx *ctx, void *space, const sim_field *f, double ox, double oy, double x,
                               double y, void *tag, sim_dyn_terrain **out);
/* Move the window when (x, y) is within a quarter window of its edge. */
trv_status sim_dyn_terrain_follow(trv_ctx *ctx, sim_dyn_terrain *t, double x, double y);
void *sim_dyn_terrain_geom(const sim_dyn_terrain *t); /* dGeomID */
/* A wheel (sphere of radius r, centre c in the world frame: map minus
 * the origin) on the heightfield's triangles: the contact with the
 * triangle nearest c, normal n from its nearest point to c, depth r - the
 * distance (with c under the surface: the face's normal, depth r + the
 * distance below it), pos = c - r n (the sphere's deepest point, as ODE's
 * sphere-plane contact). 1 when some triangle is nearer than r, else 0. */
int sim_dyn_terrain_sphere(const sim_dyn_terrain *t, const double c[3], double r, double pos[3], double n[3],
                           double *depth);
void sim_dyn_terrain_free(sim_dyn_terrain *t);

#endif
