/* The zones' exact segment tests (zones.h): segment meeting, the point in
 * a polygon, the pieces a nogo zone blocks. */
#include "zones.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static double cross2(double ax, double ay, double bx, double by) { return ax * by - ay * bx; }

int geo_seg_meet(const double a[4], const double b[4], double px[2], double py[2])
{
    double rx = a[2] - a[0], ry = a[3] - a[1], sx = b[2] - b[0], sy = b[3] - b[1];
    double qx = b[0] - a[0], qy = b[1] - a[1], d = cross2(rx, ry, sx, sy);
    if (d != 0) {
        double t = cross2(qx, qy, sx, sy) / d, u = cross2(qx, qy, rx, ry) / d;
        if (t < 0 || t > 1 || u < 0 || u > 1)
            return 0;
        px[0] = a[0] + t * rx, py[0] = a[1] + t * ry;
        return 1;
    }
    if (cross2(qx, qy, rx, ry) != 0) /* parallel, apart */
        return 0;
    double rr = rx * rx + ry * ry;
    if (rr == 0) { /* a is a point: on b? */
        double ss = sx * sx + sy * sy, u = ss > 0 ? (-qx * sx - qy * sy) / ss : 0;
        if (u < 0 || u > 1 || (ss == 0 && (qx != 0 || qy != 0)))
            return 0;
        px[0] = a[0], py[0] = a[1];
        return 1;
    }
    double t0 = (qx * rx + qy * ry) / rr, t1 = ((b[2] - a[0]) * rx + (b[3] - a[1]) * ry) / rr;
    double lo = fmax(0, fmin(t0, t1)), hi = fmin(1, fmax(t0, t1));
    if (lo > hi)
        return 0;
    px[0] = a[0] + lo * rx, py[0] = a[1] + lo * ry, px[1] = a[0] + hi * rx, py[1] = a[1] + hi * ry;
    return 2;
}

int geo_zone_contains(const geo_zones *z, int k, double x, double y)
{
    const geo_zone *zn = &z->z[k];
    if (zn->line || x < zn->box[0] || x > zn->box[2] || y < zn->box[1] || y > zn->box[3])
        return 0;
    int in = 0;
    for (int s = zn->s0; s < zn->s1; s++) {
        const double *q = z->seg + 4 * (size_t)s;
        if ((q[1] > y) != (q[3] > y) && x < q[0] + (y - q[1]) * (q[2] - q[0]) / (q[3] - q[1]))
            in = !in;
    }
    return in;
}

int geo_zones_at(const geo_zones *z, double x, double y)
{
    /* a point inside a nogo polygon lies in a cell the polygon touches or
     * covers, which the burn marks NOGO: elsewhere no polygon holds it */
    int burnt = z->burn || z->cell;
    double c = burnt ? floor((x - z->burn_gt[0]) / z->burn_gt[1]) : -1;
    double r = burnt ? floor((y - z->burn_gt[3]) / z->burn_gt[5]) : -1;
    if (c >= 0 && r >= 0 && c < z->burn_nx && r < z->burn_ny && !(geo_zones_cell(z, (long)c, (long)r) & GEO_ZB_NOGO))
        return -1;
    for (int k = 0; k < z->n; k++)
        if (k != z->skip && z->z[k].effect == GEO_ZONE_NOGO && geo_zone_contains(z, k, x, y))
            return k;
    return -1;
}

static int near_crossing(const geo_zones *z, double x, double y)
{
    for (int i = 0; i < z->nc; i++)
        if (hypot(x - z->c[i].x, y - z->c[i].y) <= z->c[i].r)
            return 1;
    return 0;
}

/* The buckets the box of q covers (clamped), into b[4]: c0 r0 c1 r1; 0 if none. */
static int buckets_of(const geo_zones *z, const double q[4], int b[4])
{
    double c0 = floor((fmin(q[0], q[2]) - z->bx0) / z->bsize), c1 = floor((fmax(q[0], q[2]) - z->bx0) / z->bsize);
    double r0 = floor((fmin(q[1], q[3]) - z->by0) / z->bsize), r1 = floor((fmax(q[1], q[3]) - z->by0) / z->bsize);
    if (c1 < 0 || r1 < 0 || c0 >= z->bnx || r0 >= z->bny || z->nseg == 0)
        return 0;
    b[0] = c0 < 0 ? 0 : (int)c0, b[1] = r0 < 0 ? 0 : (int)r0;
    b[2] = c1 >= z->bnx ? z->bnx - 1 : (int)c1, b[3] = r1 >= z->bny ? z->bny - 1 : (int)r1;
    return 1;
}

int geo_zones_blocking(const geo_zones *z, double x0, double y0, double x1, double y1)
{
    const double q[4] = {x0, y0, x1, y1};
    int b[4];
    if (buckets_of(z, q, b))
        for (int r = b[1]; r <= b[3]; r++)
            for (int c = b[0]; c <= b[2]; c++) {
                int k0 = r * z->bnx + c;
                for (int j = z->bstart[k0]; j < z->bstart[k0 + 1]; j++) {
                    int s = z->bseg[j], k = z->seg_zone[s];
                    double px[2], py[2];
                    if (k == z->skip || z->z[k].effect != GEO_ZONE_NOGO)
                        continue;
                    int n = geo_seg_meet(q, z->seg + 4 * (size_t)s, px, py);
                    if (n && !z->z[k].line)
                        return k;
                    for (int i = 0; i < n; i++)
                        if (!near_crossing(z, px[i], py[i]))
                            return k;
                }
            }
    return geo_zones_at(z, x0, y0); /* wholly inside a polygon */
}

