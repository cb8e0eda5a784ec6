/*
 * Obstacles and other vehicles in a vehicle's ODE world (dynamic.h): a
 * polygon as the prism over its convex hull (Andrew's monotone chain,
 * counter-clockwise), a circle as a cylinder, both from 1 m below the
 * obstacle's base to its top; a moving obstacle and each other vehicle
 * as a kinematic body (moved by its velocity, pushing without being
 * pushed).
 */
#include "dynamic_priv.h"

#include <math.h>
#include <stdlib.h>

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
