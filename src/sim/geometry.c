/*
 * Geometry for collisions and ray casting (docs/method.md §5): oriented boxes
 * by separating axes, box against circle and simple polygon, rays against
 * vertical prisms, and rays against the bilinear heightfield.
 *
 * The heightfield ray is marched patch by patch in cell coordinates
 * (Amanatides & Woo 1987, "A fast voxel traversal algorithm"; the start,
 * the step and the patch solve are in ray_patch.h, shared with the
 * max-height pyramid's march in heightmax.c, for which this one is the
 * reference); a patch is solved only where the ray's z range over it
 * reaches below the patch's highest corner (a bilinear patch lies within
 * its corners' range). Along
 * the ray, u and w are linear in t, so ray z - h(u, w) is a quadratic in t
 * (A t^2 + B t + C), solved exactly with the cancellation-free form
 * q = -(B + sign(B) sqrt(B^2 - 4AC)) / 2, roots q / A and C / q.
 * Touching counts as overlap everywhere (closed sets).
 */
#include "sim.h"

#include "core/clip.h"
#include "ray_patch.h"

#include <math.h>

/* ---- oriented boxes ---------------------------------------------------------- */

/* Half-extent of box b projected on the unit axis (ax, ay). */
static double obb_radius(const sim_obb *b, double c, double s, double ax, double ay)
{
    return b->half_len * fabs(c * ax + s * ay) + b->half_wid * fabs(-s * ax + c * ay);
}

int sim_obb_overlap(const sim_obb *a, const sim_obb *b)
{
    double ca = cos(a->heading), sa = sin(a->heading), cb = cos(b->heading), sb = sin(b->heading);
    double axes[4][2] = {{ca, sa}, {-sa, ca}, {cb, sb}, {-sb, cb}};
    double dx = b->cx - a->cx, dy = b->cy - a->cy;
    for (int k = 0; k < 4; k++) {
        double ax = axes[k][0], ay = axes[k][1];
        double dist = fabs(dx * ax + dy * ay);
        if (dist > obb_radius(a, ca, sa, ax, ay) + obb_radius(b, cb, sb, ax, ay))
            return 0;
    }
    return 1;
}

/* (x, y) in box a's frame (x along its heading). */
static void to_box(const sim_obb *a, double x, double y, double *bx, double *by)
{
    double c = cos(a->heading), s = sin(a->heading), dx = x - a->cx, dy = y - a->cy;
    *bx = dx * c + dy * s;
    *by = -dx * s + dy * c;
}

int sim_obb_circle(const sim_obb *a, double cx, double cy, double r)
{
    double bx, by;
    to_box(a, cx, cy, &bx, &by);
    double qx = fmax(-a->half_len, fmin(a->half_len, bx)), qy = fmax(-a->half_wid, fmin(a->half_wid, by));
    return (bx - qx) * (bx - qx) + (by - qy) * (by - qy) <= r * r;
}

/* Even-odd rule; points on the boundary may go either way (the edge test
 * catches them). */
static int point_in_polygon(const double *px, const double *py, int n, double x, double y)
{
    int in = 0;
    for (int i = 0, j = n - 1; i < n; j = i++) {
        if ((py[i] > y) != (py[j] > y) && x < px[j] + (y - py[j]) * (px[i] - px[j]) / (py[i] - py[j]))
            in = !in;
    }
    return in;
}

/* Segment p0 -> p1 (box frame) against the box [-hl, hl] x [-hw, hw]
 * (Liang-Barsky clipping). */
static int segment_hits_box(double x0, double y0, double x1, double y1, double hl, double hw)
{
    double t0, t1;
    return trv_clip_segment(x0, y0, x1, y1, -hl, -hw, hl, hw, &t0, &t1);
}

int sim_obb_polygon(const sim_obb *a, const double *px, const double *py, int n)
{
    if (n < 1)
        return 0;
    /* an edge crossing the box or a vertex inside it (the edge test also
     * covers degenerate polygons of one or two vertices) */
    double c = cos(a->heading), s = sin(a->heading);
    double lx = (px[n - 1] - a->cx) * c + (py[n - 1] - a->cy) * s;
    double ly = -(px[n - 1] - a->cx) * s + (py[n - 1] - a->cy) * c;
    for (int i = 0; i < n; i++) {
        double x = (px[i] - a->cx) * c + (py[i] - a->cy) * s, y = -(px[i] - a->cx) * s + (py[i] - a->cy) * c;
        if (segment_hits_box(lx, ly, x, y, a->half_len, a->half_wid))
            return 1;
        lx = x;
        ly = y;
    }
    /* otherwise either the box lies wholly inside the polygon or apart */
    return n >= 3 && point_in_polygon(px, py, n, a->cx, a->cy);
}

/* ---- rays against prisms --------------------------------------------------------- */

double sim_ray_prism(const double o[3], const double d[3], const double *px, const double *py, int n, double cx,
                     double cy, double r, double zmin, double zmax, double tmax)
{
    /* the slab zmin <= z <= zmax along the ray, within [0, tmax] */
    double ta = 0, tb = tmax;
    if (d[2] == 0) {
        if (o[2] < zmin || o[2] > zmax)
            return INFINITY;
    } else {
        double t1 = (zmin - o[2]) / d[2], t2 = (zmax - o[2]) / d[2];
        if (t1 > t2) {
            double tt = t1;
            t1 = t2;
            t2 = tt;
        }
        ta = fmax(ta, t1);
        tb = fmin(tb, t2);
    }
    if (!(ta <= tb))
        return INFINITY;
    if (n == 0) {
        /* circle: |o + t d - c|^2 = r^2 in the plane */
        double ox = o[0] - cx, oy = o[1] - cy, a = d[0] * d[0] + d[1] * d[1];
        double cc = ox * ox + oy * oy - r * r;
        if (a == 0)
            return cc <= 0 ? ta : INFINITY;
        double bh = ox * d[0] + oy * d[1], disc = bh * bh - a * cc;
        if (disc < 0)
            return INFINITY;
        double sq = sqrt(disc), t1 = (-bh - sq) / a, t2 = (-bh + sq) / a;
        double t = fmax(ta, t1);
        return t <= fmin(tb, t2) ? t : INFINITY;
    }
    /* polygon: inside at the slab's entry (top, bottom or the start), or
     * the first wall crossed within the slab */
    double xa = o[0] + ta * d[0], ya = o[1] + ta * d[1];
    if (point_in_polygon(px, py, n, xa, ya))
        return ta;
    double best = INFINITY;
    for (int i = 0, j = n - 1; i < n; j = i++) {
        double ex = px[i] - px[j], ey = py[i] - py[j];
        double den = d[0] * ey - d[1] * ex;
        if (den == 0)
            continue; /* parallel: a grazing ray meets the wall's ends on the neighbours */
        double wx = px[j] - o[0], wy = py[j] - o[1];
        double t = (wx * ey - wy * ex) / den, u = (wx * d[1] - wy * d[0]) / den;
        if (u >= 0 && u <= 1 && t >= ta && t <= tb && t < best)
            best = t;
    }
    return best;
}

/* ---- rays against the heightfield --------------------------------------------------- */

double sim_ray_field(const sim_field *f, const double o[3], const double d[3], double tmax)
{
    sim_march m;
    if (!sim_march_start(f, o, d, tmax, &m))
        return INFINITY;
    double t = m.ta;
    for (;;) {
        double tn = sim_dmin(sim_dmin(m.ti, m.tj), m.tb);
        float c[4];
        sim_patch_corners(f, &m, c);
        double rz = o[2] + d[2] * (d[2] < 0 ? tn : t); /* the ray's lowest z over the patch */
        if (rz <= sim_patch_top(c) && !sim_patch_transparent(f, c)) {
            double hit = sim_patch_hit(&m, o, d, c[0], c[1], c[2], c[3], t, tn);
            if (hit < INFINITY)
                return hit;
        }
        if (tn >= m.tb || !sim_march_step(f, &m, &t))
            return INFINITY;
    }
}
