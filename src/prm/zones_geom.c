/* The zones on a piece (zones.h): the factor and max_speed zones' spans
 * along it, their time and cost. */
#include "zones.h"

#include "prm_priv.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- factor and max_speed: spans along a piece ---- */

typedef struct span {
    double a, b, f, cap; /* fractions of the piece; the factor; the cap (km/h, INFINITY: none) */
    int zone;            /* the first zone (index) holding it */
} span;

/* The spans of q inside factor or max_speed zones (malloc'ed; *n 0 and
 * NULL when none, or out of memory: then unzoned). */
static span *spans_of(const geo_zones *z, const double q[4], int *n)
{
    *n = 0;
    double bx0 = fmin(q[0], q[2]), bx1 = fmax(q[0], q[2]), by0 = fmin(q[1], q[3]), by1 = fmax(q[1], q[3]);
    double dx = q[2] - q[0], dy = q[3] - q[1], ll = dx * dx + dy * dy;
    int nt = 2, cap = 0;
    for (int k = 0; k < z->n; k++) {
        const geo_zone *zn = &z->z[k];
        if (k != z->skip && zn->effect != GEO_ZONE_NOGO && !(bx1 < zn->box[0] || bx0 > zn->box[2] ||
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
        const geo_zone *zn = &z->z[k];
        if (k == z->skip || zn->effect == GEO_ZONE_NOGO || bx1 < zn->box[0] || bx0 > zn->box[2] ||
            by1 < zn->box[1] || by0 > zn->box[3])
            continue;
        for (int s = zn->s0; s < zn->s1; s++) {
            double px[2], py[2];
            int m = geo_seg_meet(q, z->seg + 4 * (size_t)s, px, py);
            for (int i = 0; i < m; i++)
                ts[nt++] = ((px[i] - q[0]) * dx + (py[i] - q[1]) * dy) / ll;
        }
    }
    qsort(ts, (size_t)nt, sizeof *ts, trv_cmp_double);
    for (int i = 0; i + 1 < nt; i++) {
        double a = fmax(0, ts[i]), b = fmin(1, ts[i + 1]), m = 0.5 * (a + b), f = 1, cp = INFINITY;
        int first = -1;
        if (!(b > a))
            continue;
        for (int k = 0; k < z->n; k++)
            if (k != z->skip && z->z[k].effect != GEO_ZONE_NOGO && geo_zone_contains(z, k, q[0] + m * dx, q[1] + m * dy)) {
                first = first < 0 ? k : first;
                if (z->z[k].effect == GEO_ZONE_FACTOR)
                    f *= z->z[k].value;
                else
                    cp = fmin(cp, z->z[k].value);
            }
        if (f != 1 || cp < INFINITY)
            sp[(*n)++] = (span){a, b, f, cp, first};
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
    prm_zones_cell_fn fn;    /* NULL, or told each cell's forward delta (prm_zones_cells) */
    void *user;
} delta_walk;

static int delta_cell(long i, double len, void *user)
{
    delta_walk *w = user;
    if (!(len > 0))
        return 0;
    double u0 = w->pos / w->len, u1 = (w->pos + len) / w->len, d0 = w->d[0], most = 0;
    int zone = -1;
    w->pos += len;
    if (!prm_cell_go(w->t, i))
        return 0;
    prm_piece c = {0};
    prm_piece_add_cell(w->t, i, len, w->ux, w->uy, 1, &c);
    for (int k = 0; k < w->n; k++) {
        double ov = fmin(u1, w->sp[k].b) - fmax(u0, w->sp[k].a);
        if (!(ov > 0))
            continue;
        if (ov > most)
            most = ov, zone = w->sp[k].zone;
        double part = ov * w->len, share = part / len, tcap = part * 3.6 / w->sp[k].cap;
        double tf = c.time_s * share, tr = c.time_rev_s * share;
        if (isfinite(tf))
            w->d[0] += fmax(tf, tcap) * w->sp[k].f - tf;
        if (isfinite(tr))
            w->d[1] += fmax(tr, tcap) * w->sp[k].f - tr;
        w->d[2] += c.cost_int * share * (w->sp[k].f - 1);
    }
    if (w->fn && zone >= 0)
        w->fn(i, w->d[0] - d0, zone, w->user);
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
    delta_walk w = {t, sp, n, len, 0, (x1 - x0) / len, (y1 - y0) / len, d, NULL, NULL};
    prm_segment_walk(t->grid, x0, y0, x1, y1, delta_cell, &w);
    free(sp);
}

void prm_zones_cells(const prm_terrain *t, double x0, double y0, double x1, double y1, prm_zones_cell_fn fn,
                     void *user)
{
    const double q[4] = {x0, y0, x1, y1};
    int n;
    span *sp = spans_of(t->zones, q, &n);
    if (!sp)
        return;
    double len = hypot(x1 - x0, y1 - y0), d[3] = {0, 0, 0};
    delta_walk w = {t, sp, n, len, 0, (x1 - x0) / len, (y1 - y0) / len, d, fn, user};
    prm_segment_walk(t->grid, x0, y0, x1, y1, delta_cell, &w);
    free(sp);
}

void prm_zones_piece(const prm_terrain *t, double x0, double y0, double x1, double y1, int times, prm_piece *p)
{
    if (geo_zones_blocking(t->zones, x0, y0, x1, y1) >= 0)
        p->blocked = 1;
    if (!times || p->blocked)
        return;
    double d[3];
    prm_zones_delta(t, x0, y0, x1, y1, d);
    p->time_s += d[0], p->time_rev_s += d[1], p->cost_int += d[2];
}
