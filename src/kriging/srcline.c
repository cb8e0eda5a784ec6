/* A row of targets in the DEM's CRS, for the choice of each target's
 * source cell (krg_srcline, krige_priv.h; docs/method.md §1.7): the
 * decisions geo_ct_line's coordinates give, with a fraction of its exact
 * transforms. */
#include "krige_priv.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

enum { STRIDE = 32 };       /* geo_ct_line's interval */

void krg_srcline_free(krg_srcline *s)
{
    free(s->ax);
    free(s->ay);
    free(s->aok);
    free(s->todo);
    free(s->ex);
    free(s->ey);
    free(s->eok);
    free(s->linear);
    free(s->px);
    free(s->py);
    free(s->pok);
    memset(s, 0, sizeof *s);
}

/* Room for a stretch of n points (the intervals that cover it): its
 * anchors, middles and quarter points, its exact list, and the stretch
 * itself when it is not the caller's (kept between calls, grown). */
static int room(krg_srcline *s, int n)
{
    if (n <= s->cap)
        return 0;
    size_t approx = s->approx, exact = s->exact;
    krg_srcline_free(s);
    s->approx = approx;
    s->exact = exact;
    size_t na = (size_t)4 * ((n + STRIDE - 1) / STRIDE) + 5, m = (size_t)n;
    s->ax = malloc(na * sizeof *s->ax);
    s->ay = malloc(na * sizeof *s->ay);
    s->aok = malloc(na * sizeof *s->aok);
    s->todo = malloc(m * sizeof *s->todo);
    s->ex = malloc(m * sizeof *s->ex);
    s->ey = malloc(m * sizeof *s->ey);
    s->eok = malloc(m * sizeof *s->eok);
    s->linear = malloc(na);
    s->px = malloc(m * sizeof *s->px);
    s->py = malloc(m * sizeof *s->py);
    s->pok = malloc(m * sizeof *s->pok);
    if (!s->ax || !s->ay || !s->aok || !s->todo || !s->ex || !s->ey || !s->eok || !s->linear || !s->px || !s->py ||
        !s->pok) {
        krg_srcline_free(s);
        return -1;
    }
    s->cap = n;
    return 0;
}

trv_status krg_srcline_init(trv_ctx *ctx, krg_srcline *s, int n)
{
    memset(s, 0, sizeof *s);
    return room(s, n > 0 ? n : 1) ? trv_error(ctx, TRV_ERR_NOMEM, "out of memory") : TRV_OK;
}

/* 1 when u lies within margin of a value where the source cell changes:
 * an integer (floor), or the footprint's edges -0.5 and size - 0.5. */
static int near_edge(double u, int size, double margin)
{
    return fabs(u - nearbyint(u)) <= margin || fabs(u + 0.5) <= margin || fabs(u - (size - 0.5)) <= margin;
}

/* Interval [a, b] with middle m that geo_ct_line transforms point by point:
 * points from..b by the quadratic through the exact a, m, b (in p[0], p[1],
 * p[2]), when its error at the two quarter points (exact in q[0], q[1]) is
 * at most 1e-3 cells; the points within 4 times that error (+ 1e-7 cells)
 * of an edge, or all when the check fails, go to the exact list. Point k
 * is xs[k - lo] (the stretch from lo). */
static void quad_interval(krg_srcline *s, const geo_grid *g, int a, int m, int b, int from, const double *px,
                          const double *py, const int *pok, const double *qx, const double *qy, const int *qok,
                          const int *qk, int lo, double *xs, double *ys, int *ok)
{
    double da = (double)a, dm = (double)m, db = (double)b;
    double wa = 1 / ((da - dm) * (da - db)), wm = 1 / ((dm - da) * (dm - db)), wb = 1 / ((db - da) * (db - dm));
#define QUAD(f, k) ((f)[0] * wa * ((k) - dm) * ((k) - db) + (f)[1] * wm * ((k) - da) * ((k) - db) + \
                    (f)[2] * wb * ((k) - da) * ((k) - dm))
    double sx = fabs(g->gt[1]), sy = fabs(g->gt[5]), err = 0;
    int good = pok[0] && pok[1] && pok[2] && qok[0] && qok[1];
    for (int i = 0; good && i < 2; i++) {
        double k = (double)qk[i];
        err = fmax(err, fmax(fabs(QUAD(px, k) - qx[i]) / sx, fabs(QUAD(py, k) - qy[i]) / sy));
    }
    good = good && err <= 1e-3;
    double margin = 4 * err + 1e-7;
    for (int k = from; k <= b; k++) {
        if (good) {
            double dk = (double)k;
            double *x = xs + (k - lo), *y = ys + (k - lo);
            *x = QUAD(px, dk);
            *y = QUAD(py, dk);
            ok[k - lo] = 1;
            double u = (*x - g->gt[0]) / g->gt[1] - 0.5, v = (*y - g->gt[3]) / g->gt[5] - 0.5;
            if (!near_edge(u, g->nx, margin) && !near_edge(v, g->ny, margin)) {
                s->approx++;
                continue;
            }
        }
        s->todo[s->ntodo++] = k;
    }
#undef QUAD
}

/* The whole line's intervals ilo .. ihi (of n points): their points
 * lo = ilo STRIDE .. hi (the end of ihi) into xs, ys, ok at k - lo, each
 * as krg_srcline_run over the whole line sets it: the same anchors and
 * middles, the same linear test, quadratics and exact list; the interval
 * before ilo is taken as done (its end, lo, is not set here but for
 * ilo = 0). */
static void line_intervals(krg_srcline *s, geo_ct *ct, const geo_grid *g, double x0, double dx, double y, int n,
                           double tol, int ilo, int ihi, double *xs, double *ys, int *ok)
{
    const int lo = ilo * STRIDE, hi = ihi * STRIDE + STRIDE < n - 1 ? ihi * STRIDE + STRIDE : n - 1;
    for (int k = lo; k <= hi; k++) {
        xs[k - lo] = x0 + k * dx;
        ys[k - lo] = y;
        ok[k - lo] = 1;
    }
    /* geo_ct_line's anchors (even slots) and middles (odd), in one call;
     * then the quarter points of its intervals that are not linear */
    int nint = ihi - ilo + 1, np = 2 * nint + 1, nq = 0;
    double *ax = s->ax, *ay = s->ay;
    int *aok = s->aok, qk[2];
    for (int i = 0; i <= nint; i++) {
        int a = (ilo + i) * STRIDE < n - 1 ? (ilo + i) * STRIDE : n - 1;
        ax[2 * i] = xs[a - lo];
        if (i < nint)
            ax[2 * i + 1] = xs[(a + (a + STRIDE < n - 1 ? a + STRIDE : n - 1)) / 2 - lo];
    }
    for (int p = 0; p < np; p++)
        ay[p] = y;
    geo_ct_points(ct, (size_t)np, ax, ay, aok);
    char *linear = s->linear;
    for (int i = 0; i < nint; i++) {
        int a = (ilo + i) * STRIDE, b = a + STRIDE < n - 1 ? a + STRIDE : n - 1, m = (a + b) / 2;
        const double *px = ax + 2 * i, *py = ay + 2 * i;
        double t = (double)(m - a) / (b - a);
        linear[i] = aok[2 * i] && aok[2 * i + 1] && aok[2 * i + 2] &&
                    fabs(px[0] + t * (px[2] - px[0]) - px[1]) <= tol &&
                    fabs(py[0] + t * (py[2] - py[0]) - py[1]) <= tol;
        if (!linear[i]) {
            ax[np + nq] = xs[(a + m) / 2 - lo];
            ax[np + nq + 1] = xs[(m + b) / 2 - lo];
            ay[np + nq] = ay[np + nq + 1] = y;
            nq += 2;
        }
    }
    geo_ct_points(ct, (size_t)nq, ax + np, ay + np, aok + np);
    s->ntodo = 0;
    nq = 0;
    int exact_to = ilo > 0 ? lo : -1; /* as geo_ct_line: points 0..exact_to are done */
    for (int i = 0; i < nint; i++) {
        int a = (ilo + i) * STRIDE, b = a + STRIDE < n - 1 ? a + STRIDE : n - 1, m = (a + b) / 2;
        const double *px = ax + 2 * i, *py = ay + 2 * i;
        if (!linear[i]) {
            int from = a > exact_to ? a : exact_to + 1;
            qk[0] = (a + m) / 2;
            qk[1] = (m + b) / 2;
            quad_interval(s, g, a, m, b, from, px, py, aok + 2 * i, ax + np + nq, ay + np + nq, aok + np + nq, qk,
                          lo, xs, ys, ok);
            nq += 2;
            exact_to = b;
            continue;
        }
        for (int k = a; k <= b; k++) { /* geo_ct_line's interpolation, to the bit */
            double f = (double)(k - a) / (b - a);
            xs[k - lo] = px[0] + f * (px[2] - px[0]);
            ys[k - lo] = py[0] + f * (py[2] - py[0]);
            ok[k - lo] = 1;
        }
        exact_to = b;
    }
    /* the exact transforms, in one call; a point a later linear interval
     * took as its anchor gets the same exact value again */
    for (int j = 0; j < s->ntodo; j++) {
        s->ex[j] = x0 + s->todo[j] * dx;
        s->ey[j] = y;
    }
    geo_ct_points(ct, (size_t)s->ntodo, s->ex, s->ey, s->eok);
    for (int j = 0; j < s->ntodo; j++) {
        int k = s->todo[j] - lo;
        xs[k] = s->ex[j];
        ys[k] = s->ey[j];
        ok[k] = s->eok[j];
    }
    s->exact += (size_t)s->ntodo;
}

trv_status krg_srcline_run(trv_ctx *ctx, krg_srcline *s, geo_ct *ct, const geo_grid *g, double x0, double dx,
                           double y, int n, double tol, double *xs, double *ys, int *ok)
{
    return krg_srcline_part(ctx, s, ct, g, x0, dx, y, n, tol, 0, n, xs, ys, ok);
}

trv_status krg_srcline_part(trv_ctx *ctx, krg_srcline *s, geo_ct *ct, const geo_grid *g, double x0, double dx,
                            double y, int n, double tol, int k0, int k1, double *xs, double *ys, int *ok)
{
    if (k0 < 0 || k1 > n || k0 > k1)
        return trv_error(ctx, TRV_ERR_INTERNAL, "line points %d to %d outside 0 to %d", k0, k1 - 1, n - 1);
    if (geo_ct_is_identity(ct) || n <= 2 * STRIDE || k1 == k0)
        return geo_ct_line_part(ctx, ct, x0, dx, y, n, tol, k0, k1, xs, ys, ok);
    /* the intervals that set points k0 .. k1 - 1 (an interval's first
     * point is set by the one before it, unless this one is linear) */
    const int last = (n - 1 + STRIDE - 1) / STRIDE - 1;
    const int ilo = k0 / STRIDE - 1 > 0 ? k0 / STRIDE - 1 : 0;
    const int ihi = (k1 - 1) / STRIDE < last ? (k1 - 1) / STRIDE : last;
    const int lo = ilo * STRIDE, hi = ihi * STRIDE + STRIDE < n - 1 ? ihi * STRIDE + STRIDE : n - 1;
    if (room(s, hi - lo + 1))
        return trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
    if (lo == k0 && hi == k1 - 1) { /* the caller's arrays hold the stretch */
        line_intervals(s, ct, g, x0, dx, y, n, tol, ilo, ihi, xs, ys, ok);
        return TRV_OK;
    }
    line_intervals(s, ct, g, x0, dx, y, n, tol, ilo, ihi, s->px, s->py, s->pok);
    memcpy(xs, s->px + (k0 - lo), (size_t)(k1 - k0) * sizeof *xs);
    memcpy(ys, s->py + (k0 - lo), (size_t)(k1 - k0) * sizeof *ys);
    memcpy(ok, s->pok + (k0 - lo), (size_t)(k1 - k0) * sizeof *ok);
    return TRV_OK;
}
