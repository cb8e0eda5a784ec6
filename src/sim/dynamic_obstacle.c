/*
 * Obstacles and other vehicles in a vehicle's ODE world (dynamic.h): a
 * polygon as the prism over its convex hull (Andrew's monotone chain,
 * counter-clockwise), a circle as a cylinder, both from 1 m below the
 * obstacle's base to its top; a moving obstacle and each kinematic box
 * as a kinematic body (moved by its velocity, pushing without being
 * pushed). Several vehicles in one world (the world shared, counted;
 * each vehicle's own space, terrain and obstacles): the contacts between
 * them as joints between their bodies, two-sided (docs/method.md 5.11,
 * Collisions).
 */
#include "dynamic_priv.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static double cross(const double *o, const double *a, const double *b)
{
    return (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0]);
}

static int cmp_xy(const void *a, const void *b)
{
    const double *p = a, *q = b;
    return p[0] < q[0] ? -1 : p[0] > q[0] ? 1 : p[1] < q[1] ? -1 : p[1] > q[1];
}

/* The convex hull of n points (xy pairs, sorted in place) into h (4 n + 2
 * doubles), counter-clockwise; returns its size. */
static int hull2(double *p, int n, double *h)
{
    qsort(p, n, 2 * sizeof *p, cmp_xy);
    int k = 0;
    for (int i = 0; i < n; i++) {
        while (k >= 2 && cross(&h[2 * (k - 2)], &h[2 * (k - 1)], &p[2 * i]) <= 0)
            k--;
        h[2 * k] = p[2 * i], h[2 * k + 1] = p[2 * i + 1], k++;
    }
    for (int i = n - 2, lo = k + 1; i >= 0; i--) {
        while (k >= lo && cross(&h[2 * (k - 2)], &h[2 * (k - 1)], &p[2 * i]) <= 0)
            k--;
        h[2 * k] = p[2 * i], h[2 * k + 1] = p[2 * i + 1], k++;
    }
    return k - 1;
}

/* The prism over hull h (m points, relative to the geom's position) from
 * z0 to z1 as ODE's convex: planes, points, faces. */
static dGeomID prism(sim_dyn *d, int k, const double *h, int m, double z0, double z1)
{
    dReal *pl = d->obs_planes[k] = malloc((m + 2) * 4 * sizeof *pl);
    dReal *pt = d->obs_points[k] = malloc(2 * m * 3 * sizeof *pt);
    unsigned *fc = d->obs_faces[k] = malloc((5 * m + 2 * (m + 1)) * sizeof *fc);
    if (!pl || !pt || !fc)
        return 0;
    unsigned *f = fc;
    for (int i = 0; i < m; i++) {
        int j = (i + 1) % m;
        double ex = h[2 * j] - h[2 * i], ey = h[2 * j + 1] - h[2 * i + 1], len = hypot(ex, ey);
        double nx = ey / len, ny = -ex / len;
        pl[4 * i] = nx, pl[4 * i + 1] = ny, pl[4 * i + 2] = 0, pl[4 * i + 3] = nx * h[2 * i] + ny * h[2 * i + 1];
        pt[3 * i] = pt[3 * (m + i)] = h[2 * i];
        pt[3 * i + 1] = pt[3 * (m + i) + 1] = h[2 * i + 1];
        pt[3 * i + 2] = z0, pt[3 * (m + i) + 2] = z1;
        *f++ = 4, *f++ = i, *f++ = j, *f++ = m + j, *f++ = m + i;
    }
    dReal *top = &pl[4 * m], *bot = &pl[4 * (m + 1)];
    top[0] = top[1] = 0, top[2] = 1, top[3] = z1;
    bot[0] = bot[1] = 0, bot[2] = -1, bot[3] = -z0;
    *f++ = m;
    for (int i = 0; i < m; i++)
        *f++ = m + i;
    *f++ = m;
    for (int i = m - 1; i >= 0; i--)
        *f++ = i;
    return dCreateConvex(d->space, pl, m + 2, pt, 2 * m, fc);
}

/* One obstacle's geom (and body when it moves), disabled until present. */
static int make_obstacle(sim_dyn *d, int k, const sim_obstacle *o)
{
    double z0 = o->base_z - 1, z1 = o->base_z + o->height_m, cx = o->cx, cy = o->cy, gz = 0.5 * (z0 + z1);
    dGeomID g;
    if (o->n > 0) {
        double *p = malloc(2 * o->n * sizeof *p), *h = malloc((4 * o->n + 2) * sizeof *h);
        cx = cy = 0;
        for (int i = 0; i < o->n; i++)
            cx += o->px[i] / o->n, cy += o->py[i] / o->n;
        for (int i = 0; p && i < o->n; i++)
            p[2 * i] = o->px[i] - cx, p[2 * i + 1] = o->py[i] - cy;
        int m = p && h ? hull2(p, o->n, h) : 0;
        g = m >= 3 ? prism(d, k, h, m, z0 - gz, z1 - gz) : 0; /* around the geom's origin */
        free(p), free(h);
    } else {
        g = dCreateCylinder(d->space, o->r, z1 - z0);
    }
    if (!g)
        return -1;
    d->obs_geom[k] = g;
    d->obs_tag[k] = (dyn_tag){DYN_OBSTACLE, k};
    dGeomSetData(g, &d->obs_tag[k]);
    if (o->vx != 0 || o->vy != 0) {
        d->obs_body[k] = dBodyCreate(d->world);
        dBodySetKinematic(d->obs_body[k]);
        dGeomSetBody(g, d->obs_body[k]);
        dBodySetLinearVel(d->obs_body[k], o->vx, o->vy, 0);
    }
    dGeomSetPosition(g, cx - d->ox, cy - d->oy, gz);
    d->obs_c[k][0] = cx - d->ox, d->obs_c[k][1] = cy - d->oy, d->obs_c[k][2] = gz;
    dGeomDisable(g);
    return 0;
}

trv_status sim_dyn_set_obstacles(trv_ctx *ctx, sim_dyn *d, const sim_obstacle *o, int n)
{
    if (d->nobs || n <= 0)
        return n <= 0 ? TRV_OK : trv_error(ctx, TRV_ERR_INTERNAL, "dynamics: obstacles set twice");
    d->obs = calloc(n, sizeof *d->obs), d->obs_geom = calloc(n, sizeof *d->obs_geom);
    d->obs_body = calloc(n, sizeof *d->obs_body), d->obs_tag = calloc(n, sizeof *d->obs_tag);
    d->obs_planes = calloc(n, sizeof *d->obs_planes), d->obs_points = calloc(n, sizeof *d->obs_points);
    d->obs_faces = calloc(n, sizeof *d->obs_faces), d->obs_c = calloc(n, sizeof *d->obs_c);
    unsigned char *was = realloc(d->was, n + d->nbox), *now = realloc(d->now, n + d->nbox);
    d->was = was ? was : d->was, d->now = now ? now : d->now;
    if (!d->obs || !d->obs_geom || !d->obs_body || !d->obs_tag || !d->obs_planes || !d->obs_points ||
        !d->obs_faces || !d->obs_c || !was || !now)
        return trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
    for (int k = 0; k < n; k++) {
        d->nobs = k + 1; /* what sim_dyn_free releases */
        d->obs[k] = &o[k];
        if (make_obstacle(d, k, &o[k]))
            return trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
    }
    for (int k = 0; k < n + d->nbox; k++)
        d->was[k] = d->now[k] = 0;
    return TRV_OK;
}

trv_status sim_dyn_set_boxes(trv_ctx *ctx, sim_dyn *d, int n)
{
    if (d->nbox || n <= 0)
        return n <= 0 ? TRV_OK : trv_error(ctx, TRV_ERR_INTERNAL, "dynamics: boxes set twice");
    d->box_geom = calloc(n, sizeof *d->box_geom), d->box_body = calloc(n, sizeof *d->box_body);
    d->box_tag = calloc(n, sizeof *d->box_tag);
    unsigned char *was = realloc(d->was, d->nobs + n), *now = realloc(d->now, d->nobs + n);
    d->was = was ? was : d->was, d->now = now ? now : d->now;
    if (!d->box_geom || !d->box_body || !d->box_tag || !was || !now)
        return trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
    for (int k = 0; k < n; k++) {
        d->box_body[k] = dBodyCreate(d->world);
        dBodySetKinematic(d->box_body[k]);
        d->box_geom[k] = dCreateBox(d->space, 1, 1, 1);
        dGeomSetBody(d->box_geom[k], d->box_body[k]);
        d->box_tag[k] = (dyn_tag){DYN_BOX, k};
        dGeomSetData(d->box_geom[k], &d->box_tag[k]);
        dGeomDisable(d->box_geom[k]);
    }
    d->nbox = n;
    for (int k = 0; k < d->nobs + n; k++)
        d->was[k] = d->now[k] = 0;
    return TRV_OK;
}

void sim_dyn_set_box(sim_dyn *d, int i, const sim_obb *box, double z, double height, double vx, double vy,
                     int present)
{
    dGeomID g = d->box_geom[i];
    if (!present) {
        dGeomDisable(g);
        return;
    }
    dGeomBoxSetLengths(g, 2 * box->half_len, 2 * box->half_wid, height);
    dBodySetPosition(d->box_body[i], box->cx - d->ox, box->cy - d->oy, z + height / 2);
    dMatrix3 R;
    dRFromAxisAndAngle(R, 0, 0, 1, box->heading);
    dBodySetRotation(d->box_body[i], R);
    dBodySetLinearVel(d->box_body[i], vx, vy, 0);
    dGeomEnable(g);
}

void sim_dyn_obstacles_at(sim_dyn *d, double t)
{
    for (int k = 0; k < d->nobs; k++) {
        const sim_obstacle *o = d->obs[k];
        if (!sim_obstacle_active(o, t)) {
            dGeomDisable(d->obs_geom[k]);
            continue;
        }
        if (d->obs_body[k]) {
            double ox, oy;
            sim_obstacle_offset(o, t, &ox, &oy);
            dBodySetPosition(d->obs_body[k], d->obs_c[k][0] + ox, d->obs_c[k][1] + oy, d->obs_c[k][2]);
        }
        dGeomEnable(d->obs_geom[k]);
    }
}

/* ---- several vehicles in one world --------------------------------------------- */

trv_status sim_dyn_world_join(trv_ctx *ctx, sim_dyn *d, sim_dyn *with)
{
    if (with) {
        d->w = with->w;
    } else {
        d->w = calloc(1, sizeof *d->w);
        if (!d->w)
            return trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
        d->w->id = dWorldCreate();
        d->w->pairs = dJointGroupCreate(0);
    }
    d->w->refs++;
    d->world = d->w->id;
    return TRV_OK;
}

/* The vehicle's bodies: chassis, wheels, moving obstacles, boxes. */
static void destroy_bodies(sim_dyn *d)
{
    for (int k = 0; k < 4; k++)
        if (d->hinge[k])
            dJointDestroy(d->hinge[k]);
    dBodyID b[5] = {d->chassis, d->wheel[0], d->wheel[1], d->wheel[2], d->wheel[3]};
    for (int k = 0; k < 5; k++)
        if (b[k])
            dBodyDestroy(b[k]);
    for (int k = 0; d->obs_body && k < d->nobs; k++)
        if (d->obs_body[k])
            dBodyDestroy(d->obs_body[k]);
    for (int k = 0; d->box_body && k < d->nbox; k++)
        if (d->box_body[k])
            dBodyDestroy(d->box_body[k]);
}

void sim_dyn_world_leave(sim_dyn *d)
{
    dyn_world *w = d->w;
    if (!w)
        return;
    if (--w->refs > 0) {
        destroy_bodies(d); /* the others go on in the world */
    } else {
        dJointGroupDestroy(w->pairs);
        dWorldDestroy(w->id); /* and every body and joint in it */
        free(w);
    }
    d->w = NULL, d->world = 0;
}

void sim_dyn_world_step(sim_dyn *d, double dt)
{
    dWorldStep(d->w->id, dt);
    dJointGroupEmpty(d->w->pairs);
}

void sim_dyn_set_mode(sim_dyn *d, int mode)
{
    if (mode == d->mode || d->mode == SIM_DYN_PARKED)
        return; /* parked for good */
    dBodyID b[5] = {d->chassis, d->wheel[0], d->wheel[1], d->wheel[2], d->wheel[3]};
    dGeomID g[5] = {d->chassis_geom, d->wheel_geom[0], d->wheel_geom[1], d->wheel_geom[2], d->wheel_geom[3]};
    for (int k = 0; k < 5; k++) {
        if (mode == SIM_DYN_ABSENT) {
            dBodyDisable(b[k]), dGeomDisable(g[k]);
            continue;
        }
        dBodyEnable(b[k]), dGeomEnable(g[k]);
        if (mode == SIM_DYN_PARKED) {
            dBodySetKinematic(b[k]); /* infinite mass, moved by its velocity: none */
            dBodySetLinearVel(b[k], 0, 0, 0);
            dBodySetAngularVel(b[k], 0, 0, 0);
            if (k < 4)
                dJointDisable(d->hinge[k]);
        }
    }
    d->mode = mode;
}

/* The box around the chassis and wheels (ODE's AABB: min x, max x, min y, ...). */
static void vehicle_aabb(const sim_dyn *d, double a[6])
{
    dGeomID g[5] = {d->chassis_geom, d->wheel_geom[0], d->wheel_geom[1], d->wheel_geom[2], d->wheel_geom[3]};
    for (int k = 0; k < 5; k++) {
        dReal b[6];
        dGeomGetAABB(g[k], b);
        for (int i = 0; i < 6; i++)
            a[i] = k == 0 ? b[i] : i % 2 ? fmax(a[i], b[i]) : fmin(a[i], b[i]);
    }
}

static int apart(const sim_dyn *a, const sim_dyn *b)
{
    double p[6], q[6];
    vehicle_aabb(a, p), vehicle_aabb(b, q);
    for (int i = 0; i < 3; i++)
        if (p[2 * i] > q[2 * i + 1] || q[2 * i] > p[2 * i + 1])
            return 1;
    return 0;
}

/* A hit in out (room for it) with the other vehicle q. */
static void vehicle_hit(sim_dyn_out *out, int q, double speed)
{
    if (out && out->nhits < 4)
        out->hit[out->nhits++] = (sim_dyn_hit){-1 - q, speed};
}

/* Vehicles i and j (one world, both there): the contact joints between
 * their geoms; the hits when the pair's contact begins. */
static void touch(sim_dyn *const *d, int i, int j, sim_dyn_out *const *out)
{
    sim_dyn *a = d[i], *b = d[j];
    dGeomID ga[5] = {a->chassis_geom, a->wheel_geom[0], a->wheel_geom[1], a->wheel_geom[2], a->wheel_geom[3]};
    dGeomID gb[5] = {b->chassis_geom, b->wheel_geom[0], b->wheel_geom[1], b->wheel_geom[2], b->wheel_geom[3]};
    for (int u = 0; u < 5; u++)
        for (int v = 0; v < 5; v++) {
            dContactGeom cg[DYN_MAXC];
            int n = dCollide(ga[u], gb[v], DYN_MAXC, cg, sizeof *cg);
            for (int k = 0; k < n; k++) {
                dContact c;
                memset(&c, 0, sizeof c);
                c.geom = cg[k];
                c.surface.mode = dContactApprox1 | dContactBounce;
                c.surface.mu = a->p.frictionless || b->p.frictionless ? 0 : 0.5;
                c.surface.bounce = 0.5 * (a->p.restitution + b->p.restitution);
                c.surface.bounce_vel = 0.1;
                dBodyID ba = dGeomGetBody(ga[u]), bb = dGeomGetBody(gb[v]);
                dJointID jt = dJointCreateContact(a->world, a->w->pairs, &c);
                dJointAttach(jt, ba, bb);
                if (a->vnow[j])
                    continue;
                a->vnow[j] = b->vnow[i] = 1;
                if (a->vwas[j])
                    continue; /* the same contact as in the step before */
                dVector3 va, vb;
                const dReal *p = cg[k].pos, *nm = cg[k].normal;
                dBodyGetPointVel(ba, p[0], p[1], p[2], va);
                dBodyGetPointVel(bb, p[0], p[1], p[2], vb);
                double s = fabs((va[0] - vb[0]) * nm[0] + (va[1] - vb[1]) * nm[1] + (va[2] - vb[2]) * nm[2]);
                vehicle_hit(out ? out[i] : NULL, j, s);
                vehicle_hit(out ? out[j] : NULL, i, s);
            }
        }
}

/* Room for n vehicles' contact flags (the last step's kept when n is the same). */
static int flags_for(sim_dyn *d, int n)
{
    if (d->nveh == n)
        return 0;
    free(d->vwas), free(d->vnow);
    d->vwas = calloc(n, 1), d->vnow = calloc(n, 1);
    d->nveh = d->vwas && d->vnow ? n : 0;
    return d->nveh == n ? 0 : -1;
}

trv_status sim_dyn_collide_vehicles(trv_ctx *ctx, sim_dyn *const *d, int n, sim_dyn_out *const *out)
{
    for (int i = 0; i < n; i++) {
        if (!d[i])
            continue;
        if (flags_for(d[i], n))
            return trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
        memcpy(d[i]->vwas, d[i]->vnow, n);
        memset(d[i]->vnow, 0, n);
    }
    for (int i = 0; i < n; i++)
        for (int j = i + 1; j < n && d[i] && d[i]->mode != SIM_DYN_ABSENT; j++) {
            if (!d[j] || d[j]->mode == SIM_DYN_ABSENT || d[j]->w != d[i]->w ||
                (d[i]->mode == SIM_DYN_PARKED && d[j]->mode == SIM_DYN_PARKED) || apart(d[i], d[j]))
                continue;
            touch(d, i, j, out);
        }
    return TRV_OK;
}

void sim_dyn_momentum(const sim_dyn *d, double p[3])
{
    dBodyID b[5] = {d->chassis, d->wheel[0], d->wheel[1], d->wheel[2], d->wheel[3]};
    p[0] = p[1] = p[2] = 0;
    for (int k = 0; k < 5; k++) {
        dMass m;
        dBodyGetMass(b[k], &m);
        const dReal *v = dBodyGetLinearVel(b[k]);
        for (int i = 0; i < 3; i++)
            p[i] += m.mass * v[i];
    }
}
