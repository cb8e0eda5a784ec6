/*
 * Geometry for collisions and ray casting (docs/method.md §5): oriented boxes
 * by separating axes, box against circle and simple polygon, rays against
 * vertical prisms, and rays against the bilinear heightfield.
 *
 * The heightfield ray is marched patch by patch in cell coordinates
 * (Amanatides & Woo 1987, "A fast voxel traversal algorithm"); a patch is
 * solved only where the ray's z range over it reaches below the patch's
 * highest corner (a bilinear patch lies within its corners' range). Along
 * the ray, u and w are linear in t, so ray z - h(u, w) is a quadratic in t
 * (A t^2 + B t + C), solved exactly with the cancellation-free form
 * q = -(B + sign(B) sqrt(B^2 - 4AC)) / 2, roots q / A and C / q.
 * Touching counts as overlap everywhere (closed sets).
 */
#include "sim.h"

#include "core/clip.h"

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

static inline int clampi(int v, int lo, int hi) { return v < lo ? lo : v > hi ? hi : v; }
/* plain comparisons: libm's fmin/fmax are calls, and no NaN reaches these */
static inline double dmin(double a, double b) { return a < b ? a : b; }
static inline double dmax(double a, double b) { return a > b ? a : b; }

/* Smallest s in [0, len] with A s^2 + B s + C = 0, C > 0 (the ray starts
 * above the patch); INFINITY if none. */
static double first_root(double A, double B, double C, double len)
{
    if (A == 0) {
        if (B >= 0)
            return INFINITY;
        double s = -C / B;
        return s <= len ? s : INFINITY;
    }
    double disc = B * B - 4.0 * A * C;
    if (disc < 0)
        return INFINITY;
    double q = -0.5 * (B + copysign(sqrt(disc), B));
    double r1 = q / A, r2 = q != 0 ? C / q : INFINITY, best = INFINITY;
    if (r1 >= 0 && r1 <= len)
        best = r1;
    if (r2 >= 0 && r2 <= len && r2 < best)
        best = r2;
    return best;
}

double sim_ray_field(const sim_field *f, const double o[3], const double d[3], double tmax)
{
    const int nx = f->nx, ny = f->ny;
    if (!f->z || nx < 1 || ny < 1 || !(tmax >= 0))
        return INFINITY;
    /* cell coordinates along the ray: col = c0 + dc t, row = r0 + dr t */
    const double c0 = (o[0] - f->x0) / f->dx, r0 = (f->y0 - o[1]) / f->dy;
    const double dc = d[0] / f->dx, dr = -d[1] / f->dy;
    double ta = 0, tb = tmax;
    /* clip to the grid's extent [-0.5, n - 0.5] */
    if (dc == 0) {
        if (c0 < -0.5 || c0 > nx - 0.5)
            return INFINITY;
    } else {
        double t1 = (-0.5 - c0) / dc, t2 = (nx - 0.5 - c0) / dc;
        ta = dmax(ta, dmin(t1, t2));
        tb = dmin(tb, dmax(t1, t2));
    }
    if (dr == 0) {
        if (r0 < -0.5 || r0 > ny - 0.5)
            return INFINITY;
    } else {
        double t1 = (-0.5 - r0) / dr, t2 = (ny - 0.5 - r0) / dr;
        ta = dmax(ta, dmin(t1, t2));
        tb = dmin(tb, dmax(t1, t2));
    }
    if (!(ta <= tb))
        return INFINITY;
    /* patch (i, j) spans col [i, i+1], row [j, j+1], i in -1 .. nx-1: the
     * border patches clamp their outer corners to the edge cells */
    int i = clampi((int)floor(c0 + dc * ta), -1, nx - 1), j = clampi((int)floor(r0 + dr * ta), -1, ny - 1);
    const int si = dc > 0 ? 1 : -1, sj = dr > 0 ? 1 : -1;
    const double di = dc != 0 ? 1.0 / fabs(dc) : INFINITY, dj = dr != 0 ? 1.0 / fabs(dr) : INFINITY;
    double ti = dc > 0 ? (i + 1 - c0) / dc : dc < 0 ? (i - c0) / dc : INFINITY;
    double tj = dr > 0 ? (j + 1 - r0) / dr : dr < 0 ? (j - r0) / dr : INFINITY;
    const float *z = f->z;
    const int nod = f->has_nodata;
    const float nodv = f->nodata;
    double t = ta;
    for (;;) {
        double tn = dmin(dmin(ti, tj), tb);
        int ia = clampi(i, 0, nx - 1), ib = clampi(i + 1, 0, nx - 1);
        int ja = clampi(j, 0, ny - 1), jb = clampi(j + 1, 0, ny - 1);
        const float *ra = z + (size_t)ja * nx, *rb = z + (size_t)jb * nx;
        float f00 = ra[ia], f10 = ra[ib], f01 = rb[ia], f11 = rb[ib];
        double zhi = dmax(dmax(f00, f10), dmax(f01, f11)); /* NaN corners: see below */
        double rz = o[2] + d[2] * (d[2] < 0 ? tn : t);     /* the ray's lowest z over the patch */
        if (rz <= zhi && !(nod && (f00 == nodv || f10 == nodv || f01 == nodv || f11 == nodv)) &&
            !isnan(f00 + f10 + f01 + f11)) {
            double z00 = f00, bx = (double)f10 - z00, by = (double)f01 - z00, e = z00 - f10 - f01 + (double)f11;
            double u0 = c0 + dc * t - i, w0 = r0 + dr * t - j;
            /* clamped border patches: the clamped corner makes the patch flat
             * across the border, so u0/w0 beyond [0, 1] are harmless */
            double C = o[2] + d[2] * t - (z00 + bx * u0 + by * w0 + e * u0 * w0);
            if (C <= 0)
                return t;
            double B = d[2] - (bx * dc + by * dr + e * (u0 * dr + w0 * dc));
            double A = -e * dc * dr;
            double s = first_root(A, B, C, tn - t);
            if (s < INFINITY)
                return t + s;
        }
        if (tn >= tb)
            return INFINITY;
        if (ti < tj) {
            i += si;
            t = ti;
            ti += di;
        } else {
            j += sj;
            t = tj;
            tj += dj;
        }
        if (i < -1 || i > nx - 1 || j < -1 || j > ny - 1)
            return INFINITY;
    }
}
