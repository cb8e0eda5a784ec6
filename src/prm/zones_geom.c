/* The zones' geometry (zones.h): exact segment tests against the barriers,
 * the factor zones' spans along a piece, the burn raster. */
#include "zones.h"

#include "core/clip.h"
#include "prm_priv.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static double cross2(double ax, double ay, double bx, double by) { return ax * by - ay * bx; }

int prm_seg_meet(const double a[4], const double b[4], double px[2], double py[2])
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

int prm_zone_contains(const prm_zones *z, int k, double x, double y)
{
    const prm_zone *zn = &z->z[k];
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

int prm_zones_at(const prm_zones *z, double x, double y)
{
    /* a point inside a nogo polygon lies in a cell the polygon touches or
     * covers, which the burn marks NOGO: elsewhere no polygon holds it */
    double c = z->burn ? floor((x - z->burn_gt[0]) / z->burn_gt[1]) : -1;
    double r = z->burn ? floor((y - z->burn_gt[3]) / z->burn_gt[5]) : -1;
    if (c >= 0 && r >= 0 && c < z->burn_nx && r < z->burn_ny &&
        !(z->burn[(size_t)r * z->burn_nx + (size_t)c] & PRM_ZB_NOGO))
        return -1;
    for (int k = 0; k < z->n; k++)
        if (k != z->skip && z->z[k].effect == PRM_ZONE_NOGO && prm_zone_contains(z, k, x, y))
            return k;
    return -1;
}

static int near_crossing(const prm_zones *z, double x, double y)
{
    for (int i = 0; i < z->nc; i++)
        if (hypot(x - z->c[i].x, y - z->c[i].y) <= z->c[i].r)
            return 1;
    return 0;
}

/* The buckets the box of q covers (clamped), into b[4]: c0 r0 c1 r1; 0 if none. */
static int buckets_of(const prm_zones *z, const double q[4], int b[4])
{
    double c0 = floor((fmin(q[0], q[2]) - z->bx0) / z->bsize), c1 = floor((fmax(q[0], q[2]) - z->bx0) / z->bsize);
    double r0 = floor((fmin(q[1], q[3]) - z->by0) / z->bsize), r1 = floor((fmax(q[1], q[3]) - z->by0) / z->bsize);
    if (c1 < 0 || r1 < 0 || c0 >= z->bnx || r0 >= z->bny || z->nseg == 0)
        return 0;
    b[0] = c0 < 0 ? 0 : (int)c0, b[1] = r0 < 0 ? 0 : (int)r0;
    b[2] = c1 >= z->bnx ? z->bnx - 1 : (int)c1, b[3] = r1 >= z->bny ? z->bny - 1 : (int)r1;
    return 1;
}

int prm_zones_blocking(const prm_zones *z, double x0, double y0, double x1, double y1)
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
                    if (k == z->skip || z->z[k].effect != PRM_ZONE_NOGO)
                        continue;
                    int n = prm_seg_meet(q, z->seg + 4 * (size_t)s, px, py);
                    if (n && !z->z[k].line)
                        return k;
                    for (int i = 0; i < n; i++)
                        if (!near_crossing(z, px[i], py[i]))
                            return k;
                }
            }
    return prm_zones_at(z, x0, y0); /* wholly inside a polygon */
}

/* ---- factor and max_speed: spans along a piece ---- */

typedef struct span {
    double a, b, f, cap; /* fractions of the piece; the factor; the cap (km/h, INFINITY: none) */
} span;

static int cmp_dbl(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The spans of q inside factor or max_speed zones (malloc'ed; *n 0 and
 * NULL when none, or out of memory: then unzoned). */
static span *spans_of(const prm_zones *z, const double q[4], int *n)
{
    *n = 0;
    double bx0 = fmin(q[0], q[2]), bx1 = fmax(q[0], q[2]), by0 = fmin(q[1], q[3]), by1 = fmax(q[1], q[3]);
    double dx = q[2] - q[0], dy = q[3] - q[1], ll = dx * dx + dy * dy;
    int nt = 2, cap = 0;
    for (int k = 0; k < z->n; k++) {
        const prm_zone *zn = &z->z[k];
        if (k != z->skip && zn->effect != PRM_ZONE_NOGO && !(bx1 < zn->box[0] || bx0 > zn->box[2] ||
                                                             by1 < zn->box[1] || by0 > zn->box[3]))
            cap += 2 * (zn->s1 - zn->s0);
    }
    if (cap == 0 || ll == 0)
        return NULL;
    double *ts = malloc((size_t)(cap + 2) * sizeof *ts);
    span *sp = malloc((size_t)(cap + 1) * sizeof *sp);
    if (!ts || !sp) {
        free(ts);
        free(sp);
        return NULL;
    }
    ts[0] = 0, ts[1] = 1;
    for (int k = 0; k < z->n; k++) {
        const prm_zone *zn = &z->z[k];
        if (k == z->skip || zn->effect == PRM_ZONE_NOGO || bx1 < zn->box[0] || bx0 > zn->box[2] ||
            by1 < zn->box[1] || by0 > zn->box[3])
            continue;
        for (int s = zn->s0; s < zn->s1; s++) {
            double px[2], py[2];
            int m = prm_seg_meet(q, z->seg + 4 * (size_t)s, px, py);
            for (int i = 0; i < m; i++)
                ts[nt++] = ((px[i] - q[0]) * dx + (py[i] - q[1]) * dy) / ll;
        }
    }
    qsort(ts, (size_t)nt, sizeof *ts, cmp_dbl);
    for (int i = 0; i + 1 < nt; i++) {
        double a = fmax(0, ts[i]), b = fmin(1, ts[i + 1]), m = 0.5 * (a + b), f = 1, cp = INFINITY;
        if (!(b > a))
            continue;
        for (int k = 0; k < z->n; k++)
            if (k != z->skip && z->z[k].effect != PRM_ZONE_NOGO && prm_zone_contains(z, k, q[0] + m * dx, q[1] + m * dy)) {
                if (z->z[k].effect == PRM_ZONE_FACTOR)
                    f *= z->z[k].value;
                else
                    cp = fmin(cp, z->z[k].value);
            }
        if (f != 1 || cp < INFINITY)
            sp[(*n)++] = (span){a, b, f, cp};
    }
    free(ts);
    if (*n == 0) {
        free(sp);
        return NULL;
    }
    return sp;
}

typedef struct delta_walk {
    const prm_terrain *t;
    const span *sp;
    int n;
    double len, pos, ux, uy; /* the piece's length and the walk's position (map units) */
    double *d;
} delta_walk;

static int delta_cell(long i, double len, void *user)
{
    delta_walk *w = user;
    if (!(len > 0))
        return 0;
    double u0 = w->pos / w->len, u1 = (w->pos + len) / w->len;
    w->pos += len;
    if (!prm_cell_go(w->t, i))
        return 0;
    prm_piece c = {0};
    prm_piece_add_cell(w->t, i, len, w->ux, w->uy, 1, &c);
    for (int k = 0; k < w->n; k++) {
        double ov = fmin(u1, w->sp[k].b) - fmax(u0, w->sp[k].a);
        if (!(ov > 0))
            continue;
        double part = ov * w->len, share = part / len, tcap = part * 3.6 / w->sp[k].cap;
        double tf = c.time_s * share, tr = c.time_rev_s * share;
        if (isfinite(tf))
            w->d[0] += fmax(tf, tcap) * w->sp[k].f - tf;
        if (isfinite(tr))
            w->d[1] += fmax(tr, tcap) * w->sp[k].f - tr;
        w->d[2] += c.cost_int * share * (w->sp[k].f - 1);
    }
    return 0;
}

void prm_zones_delta(const prm_terrain *t, double x0, double y0, double x1, double y1, double d[3])
{
    d[0] = d[1] = d[2] = 0;
    const double q[4] = {x0, y0, x1, y1};
    int n;
    span *sp = spans_of(t->zones, q, &n);
    if (!sp)
        return;
    double len = hypot(x1 - x0, y1 - y0);
    delta_walk w = {t, sp, n, len, 0, (x1 - x0) / len, (y1 - y0) / len, d};
    prm_segment_walk(t->grid, x0, y0, x1, y1, delta_cell, &w);
    free(sp);
}

void prm_zones_piece(const prm_terrain *t, double x0, double y0, double x1, double y1, int times, prm_piece *p)
{
    if (prm_zones_blocking(t->zones, x0, y0, x1, y1) >= 0)
        p->blocked = 1;
    if (!times || p->blocked)
        return;
    double d[3];
    prm_zones_delta(t, x0, y0, x1, y1, d);
    p->time_s += d[0], p->time_rev_s += d[1], p->cost_int += d[2];
}
