/*
 * Contacts of the dynamic model (dynamic.h; docs/method.md §5.11): the
 * collision pass over a vehicle's world and the surface of each contact.
 *
 * Wheel on ground (the soil under the contact point): Coulomb's cone
 * (ODE's friction pyramid, dContactApprox1: force limits mu N) with mu
 * the soil's thrust at full slip over the load, the load taken as the
 * mobility model takes it, the weight W (N = W cos(beta) on a grade beta:
 * mu / cos(beta), beta the contact normal's angle to up, at most 60
 * degrees), and force-dependent slip
 * (FDS: the contact slides at a speed proportional to the force, u = S F)
 * in two directions, the wheel's rolling direction (1) and its axle (2):
 *   longitudinal  Janosi-Hanamoto: F(i) = mu W g(i) / g(1), g(i) = 1 - K
 *                 / (i L) (1 - e^(-i L / K)), i the slip; the sliding
 *                 speed is u = i |v|, |v| the larger of the rim's and
 *                 the centre's speed, so S1 = i |v| g(1) / (mu W g(i)),
 *                 evaluated at the wheel's slip of the step before (the
 *                 secant of the thrust-slip curve through the operating
 *                 point; -> 2 (K / L) g(1) |v| / (mu W) as i -> 0)
 *   lateral       a linear tyre: F = C_alpha alpha, alpha = u / |v|, so
 *                 S2 = |v| / C_alpha
 * with W the wheel's load in the step before over cos(beta) (its nominal
 * load m g / 4 before the first) and, laterally, |v| its centre's speed
 * (0 at rest: no creep). Mecanum: direction 1 is the roller's axis (45 degrees in the
 * wheel's plane, the X layout of sim_mecanum_inverse) with mu = 0 (the
 * roller turns freely), direction 2 across it. The tyre's radial
 * stiffness k_t as the contact's soft ERP / CFM (as for the suspension,
 * damping 0.1 sqrt(k_t m_u)).
 * Chassis on ground: the soil's mu, hard. Chassis or wheel on an
 * obstacle or another vehicle: mu 0.5, restitution e (dContactBounce);
 * a contact that was not there in the step before is a hit, its speed the
 * relative velocity of the two bodies at the contact point along its
 * normal.
 */
#include "dynamic_priv.h"

#include <math.h>
#include <string.h>

double sim_dyn_up_dot(const sim_dyn *d, const double n[3])
{
    const double *g = d->p.gravity;
    double gl = sqrt(g[0] * g[0] + g[1] * g[1] + g[2] * g[2]);
    return gl > 0 ? fabs(g[0] * n[0] + g[1] * n[1] + g[2] * n[2]) / gl : 1;
}

double sim_dyn_jh_shape(double x)
{
    if (x < 1e-3)
        return x / 2 - x * x / 6;
    return 1.0 - -expm1(-x) / x;
}

void sim_dyn_soil_at(const sim_dyn *d, double x, double y, sim_dyn_soil *s)
{
    if (d->p.soil_fn)
        d->p.soil_fn(d->p.soil_user, x, y, s);
    else
        *s = d->p.soil;
    if (d->p.frictionless)
        s->mu = 0, s->f_rr = 0;
}

static void unit(double v[3])
{
    double n = sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
    for (int i = 0; i < 3 && n > 0; i++)
        v[i] /= n;
}

/* The FDS coefficient along the rolling direction at slip i (docs above). */
static double slip1(const sim_dyn_soil *s, double i, double v, double load)
{
    if (!(s->mu > 0) || !(load > 0))
        return 0;
    if (!(s->k_over_l > 0))
        return 0; /* Coulomb: no slip curve */
    i = fmin(fmax(fabs(i), 1e-3), 1);
    return i * v * sim_dyn_jh_shape(1 / s->k_over_l) / (s->mu * load * sim_dyn_jh_shape(i / s->k_over_l));
}

static void wheel_surface(const sim_dyn *d, int w, dContact *c)
{
    const dReal *n = c->geom.normal, *pos = c->geom.pos, *lv = dBodyGetLinearVel(d->wheel[w]);
    sim_dyn_soil s;
    sim_dyn_soil_at(d, pos[0] + d->ox, pos[1] + d->oy, &s);
    dVector3 ax;
    dJointGetHinge2Axis2(d->hinge[w], ax);
    double an = ax[0] * n[0] + ax[1] * n[1] + ax[2] * n[2];
    double ap[3] = {ax[0] - an * n[0], ax[1] - an * n[1], ax[2] - an * n[2]};
    double roll[3] = {n[1] * ax[2] - n[2] * ax[1], n[2] * ax[0] - n[0] * ax[2], n[0] * ax[1] - n[1] * ax[0]};
    unit(ap), unit(roll);
    double v = sqrt(lv[0] * lv[0] + lv[1] * lv[1] + lv[2] * lv[2]);
    double rim = fabs(dJointGetHinge2Angle2Rate(d->hinge[w])) * d->b.wheel_radius_m;
    c->surface.mode = dContactApprox1 | dContactMu2 | dContactFDir1 | dContactSoftERP | dContactSoftCFM;
    c->surface.mu = c->surface.mu2 = s.mu / fmax(sim_dyn_up_dot(d, n), 0.5);
    if (d->b.kind == SIM_MECANUM) {
        /* the axle is body -y: FL and RR roll free along x + y = roll - ap */
        double sg = w == 0 || w == 3 ? -1 : 1;
        for (int i = 0; i < 3; i++)
            c->fdir1[i] = roll[i] + sg * ap[i];
        unit(c->fdir1);
        c->surface.mu = 0;
    } else {
        for (int i = 0; i < 3; i++)
            c->fdir1[i] = roll[i];
        c->surface.mode |= dContactSlip1;
        double load = d->load[w] > 0 ? d->load[w] / fmax(sim_dyn_up_dot(d, n), 0.5) : d->w_nom[w];
        c->surface.slip1 = slip1(&s, d->slip[w], fmax(v, rim), load);
    }
    if (d->p.cornering_N_per_rad > 0 && s.mu > 0) {
        c->surface.mode |= dContactSlip2;
        c->surface.slip2 = v / d->p.cornering_N_per_rad;
    }
    double h = d->dt, kt = d->p.tyre_N_per_m, ct = d->p.frictionless ? 0 : 0.1 * sqrt(kt * d->p.unsprung_kg);
    c->surface.soft_erp = h * kt / (h * kt + ct);
    c->surface.soft_cfm = 1 / (h * kt + ct);
}

/* A contact with an obstacle or a box: its surface, and a hit when it begins. */
static void hit_surface(sim_dyn *d, const dyn_tag *b, dGeomID oa, dGeomID ob, dContact *c)
{
    c->surface.mode = dContactApprox1 | dContactBounce;
    c->surface.mu = d->p.frictionless ? 0 : 0.5;
    c->surface.bounce = d->p.restitution;
    c->surface.bounce_vel = 0.1;
    int idx = b->kind == DYN_OBSTACLE ? b->index : d->nobs + b->index;
    if (d->now[idx])
        return;
    d->now[idx] = 1;
    if (d->was[idx] || !d->out || d->out->nhits >= 4)
        return;
    dVector3 va = {0, 0, 0}, vb = {0, 0, 0};
    const dReal *p = c->geom.pos, *n = c->geom.normal;
    dBodyGetPointVel(dGeomGetBody(oa), p[0], p[1], p[2], va);
    if (dGeomGetBody(ob))
        dBodyGetPointVel(dGeomGetBody(ob), p[0], p[1], p[2], vb);
    double u = (va[0] - vb[0]) * n[0] + (va[1] - vb[1]) * n[1] + (va[2] - vb[2]) * n[2];
    d->out->hit[d->out->nhits++] = (sim_dyn_hit){b->kind == DYN_OBSTACLE ? b->index : -1 - b->index, fabs(u)};
}

static int ours(const dyn_tag *t) { return t && (t->kind == DYN_CHASSIS || t->kind == DYN_WHEEL); }

static void near(void *data, dGeomID o1, dGeomID o2)
{
    sim_dyn *d = data;
    const dyn_tag *a = dGeomGetData(o1), *b = dGeomGetData(o2);
    if (!ours(a)) {
        const dyn_tag *t = a;
        dGeomID g = o1;
        a = b, b = t, o1 = o2, o2 = g;
    }
    if (!ours(a) || !b || ours(b) || (a->kind == DYN_WHEEL && b->kind == DYN_GROUND))
        return; /* not the vehicle, two of its own parts, or a wheel on the ground (wheel_ground) */
    dContactGeom cg[DYN_MAXC];
    int n = dCollide(o1, o2, DYN_MAXC, cg, sizeof *cg);
    for (int k = 0; k < n; k++) {
        dContact c;
        memset(&c, 0, sizeof c);
        c.geom = cg[k];
        if (b->kind == DYN_GROUND) {
            c.surface.mode = dContactApprox1;
            sim_dyn_soil s;
            sim_dyn_soil_at(d, cg[k].pos[0] + d->ox, cg[k].pos[1] + d->oy, &s);
            c.surface.mu = s.mu;
        } else {
            hit_surface(d, b, o1, o2, &c);
        }
        dJointID j = dJointCreateContact(d->world, d->contacts, &c);
        dJointAttach(j, dGeomGetBody(o1), dGeomGetBody(o2));
    }
}

/* Wheel w on the ground: its contact with the heightfield's nearest
 * triangle (sim_dyn_terrain_sphere). Not ODE's heightfield collider:
 * for a sphere under 1.5 cells it tests only the triangles' planes, each
 * contact kept if the sphere's deepest point along that plane's normal
 * lies over its own triangle; within r |sin a - sin b| of a convex edge
 * between faces tilted a and b (across it) neither does, and a wheel
 * rolling along such an edge fell through the ground (docs/method.md
 * 5.11). */
static void wheel_ground(sim_dyn *d, int w)
{
    const dReal *p = dBodyGetPosition(d->wheel[w]);
    double c[3] = {p[0], p[1], p[2]}, pos[3], n[3], depth;
    if (!sim_dyn_terrain_sphere(d->terrain, c, d->b.wheel_radius_m, pos, n, &depth))
        return;
    dContact ct;
    memset(&ct, 0, sizeof ct);
    for (int k = 0; k < 3; k++)
        ct.geom.pos[k] = pos[k], ct.geom.normal[k] = n[k];
    ct.geom.depth = depth;
    ct.geom.g1 = d->wheel_geom[w], ct.geom.g2 = (dGeomID)sim_dyn_terrain_geom(d->terrain);
    ct.geom.side1 = ct.geom.side2 = -1;
    wheel_surface(d, w, &ct);
    dJointID j = dJointCreateContact(d->world, d->contacts, &ct);
    dJointAttach(j, d->wheel[w], 0);
    dJointSetFeedback(j, &d->fb[w][0]);
    memcpy(d->fbn[w][0], n, sizeof d->fbn[w][0]);
    d->nfb[w] = 1;
}

void sim_dyn_collide(sim_dyn *d)
{
    for (int k = 0; k < d->nobs + d->nbox; k++)
        d->was[k] = d->now[k], d->now[k] = 0;
    for (int w = 0; w < 4; w++)
        d->nfb[w] = 0;
    dSpaceCollide(d->space, d, near);
    for (int w = 0; w < 4; w++)
        wheel_ground(d, w);
}
