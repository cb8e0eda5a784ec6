/* Internals of the dynamic model shared by dynamic.c and dynamic_contact.c. */
#ifndef SIM_DYNAMIC_PRIV_H
#define SIM_DYNAMIC_PRIV_H

#include "dynamic.h"

#include <ode/ode.h>

#define DYN_MAXC 4 /* contacts per geom pair */

enum { DYN_GROUND = 1, DYN_CHASSIS, DYN_WHEEL, DYN_OBSTACLE, DYN_BOX };

/* What a geom is (its dGeomSetData). */
typedef struct dyn_tag {
    int kind, index;
} dyn_tag;

/* A world several vehicles share (sim_dyn_new_in; dynamic_obstacle.c):
 * destroyed with the last of them. */
typedef struct dyn_world {
    dWorldID id;
    int refs;
    dJointGroupID pairs;        /* the vehicle-vehicle contacts of a step */
} dyn_world;

struct sim_dyn {
    sim_body b;
    sim_dyn_params p;
    const sim_field *f;
    double ox, oy, dt;
    dWorldID world;
    dyn_world *w;               /* the world's owner (shared or not) */
    int mode;                   /* SIM_DYN_DRIVEN, _ABSENT, _PARKED (sim_dyn_set_mode) */
    int nveh;                   /* the vehicles of sim_dyn_collide_vehicles' last list */
    unsigned char *vwas, *vnow; /* in contact with vehicle q in the last step, this step */
    dSpaceID space;
    dJointGroupID contacts;
    sim_dyn_terrain *terrain;
    dBodyID chassis;
    dGeomID chassis_geom;
    dBodyID wheel[4];           /* FL, FR, RL, RR */
    dGeomID wheel_geom[4];
    dJointID hinge[4];
    double hs;                  /* the chassis' centre of mass above the ground at rest */
    double w_nom[4];            /* nominal wheel loads (N) */
    double v, vy, steer, yaw;   /* the lagged commands */
    double vi;                  /* the speed control's integral (Ackermann) */
    double slip[4];             /* last longitudinal slip of each wheel */
    double load[4];             /* and its normal force (N) */
    int nfb[4];                 /* wheel-ground contact joints' feedback this step */
    dJointFeedback fb[4][DYN_MAXC];
    double fbn[4][DYN_MAXC][3];  /* their normals */
    double off_s[4];            /* time off the ground: left pair, right pair, front pair, rear pair */
    int nobs;
    const sim_obstacle **obs;
    dReal **obs_planes, **obs_points;  /* convex prisms' data (ODE borrows it) */
    unsigned **obs_faces;
    double (*obs_c)[3];         /* geom positions at t = 0 (world frame) */
    dGeomID *obs_geom;
    dBodyID *obs_body;          /* moving obstacles: kinematic bodies (else 0) */
    dyn_tag *obs_tag;
    int nbox;
    dGeomID *box_geom;
    dBodyID *box_body;
    dyn_tag *box_tag;
    unsigned char *was, *now;   /* nobs + nbox: in contact in the last step, this step */
    sim_dyn_out *out;           /* during the collision pass */
    dyn_tag tag_ground, tag_chassis, tag_wheel[4];
};

/* The world: d's own (with NULL) or with's (dynamic_obstacle.c); its
 * release, the bodies and joints of d first when others still use it. */
trv_status sim_dyn_world_join(trv_ctx *ctx, sim_dyn *d, sim_dyn *with);
void sim_dyn_world_leave(sim_dyn *d);
/* The collision pass (dynamic_contact.c): contact joints for this step
 * into d->contacts, hits into d->out. */
void sim_dyn_collide(sim_dyn *d);
/* Obstacles present at time t enabled, moving ones placed (dynamic_obstacle.c). */
void sim_dyn_obstacles_at(sim_dyn *d, double t);
/* The soil at map (x, y). */
void sim_dyn_soil_at(const sim_dyn *d, double x, double y, sim_dyn_soil *s);
/* |n . up| (up: against gravity). */
double sim_dyn_up_dot(const sim_dyn *d, const double n[3]);
/* Janosi-Hanamoto's g(i) for x = i L / K: 1 - (1 - e^-x) / x. */
double sim_dyn_jh_shape(double x);

#endif
