/*
 * Obstacles in time (docs/method.md §5): present over [appear_s, disappear_s),
 * moving at a constant velocity from their t = 0 footprint. Rather than
 * moving the footprint, the box or ray is moved the other way, so nothing
 * is copied per query.
 */
#include "sim.h"

#include <math.h>

int sim_obstacle_active(const sim_obstacle *o, double t) { return t >= o->appear_s && t < o->disappear_s; }

void sim_obstacle_offset(const sim_obstacle *o, double t, double *ox, double *oy)
{
    *ox = o->vx * t;
    *oy = o->vy * t;
}

int sim_obstacle_hits(const sim_obstacle *o, double t, const sim_obb *box)
{
    if (!sim_obstacle_active(o, t))
        return 0;
    double ox, oy;
    sim_obstacle_offset(o, t, &ox, &oy);
    sim_obb b = *box;
    b.cx -= ox;
    b.cy -= oy;
    return o->n > 0 ? sim_obb_polygon(&b, o->px, o->py, o->n) : sim_obb_circle(&b, o->cx, o->cy, o->r);
}

double sim_obstacle_ray(const sim_obstacle *o, double t, const double org[3], const double d[3], double tmax)
{
    if (!sim_obstacle_active(o, t))
        return INFINITY;
    double ox, oy;
    sim_obstacle_offset(o, t, &ox, &oy);
    double p[3] = {org[0] - ox, org[1] - oy, org[2]};
    return sim_ray_prism(p, d, o->px, o->py, o->n, o->cx, o->cy, o->r, o->base_z, o->base_z + o->height_m, tmax);
}
