/*
 * Route smoothing (docs/method.md §4.9): a clamped uniform cubic B-spline with
 * the route's vertices as control points, evaluated by de Boor's
 * algorithm, that must not enter NOGO.
 *
 * Knots: for m control points and degree p = min(3, m - 1), the m + p + 1
 * knots are p + 1 zeros, the interior knots i / (m - p), i = 1 .. m - p - 1,
 * and p + 1 ones. The clamped ends make the curve start and end on the
 * first and last control points, tangent to the first and last legs.
 * Knot span j, [j / (m - p), (j + 1) / (m - p)], depends on the control
 * points j .. j + p only.
 *
 * Keeping out of NOGO: the curve is sampled about `step` apart along its
 * arc (never more than step: pieces are bisected until they are not) and
 * the straight piece between consecutive samples is walked cell by cell
 * (prm_piece_measure), so nothing slips between samples. Where a piece is
 * blocked, every route vertex that controls its knot spans is repeated
 * once more (up to three times) and the curve is rebuilt and checked
 * again. A vertex repeated three times is interpolated (at the knot where
 * the three copies alone blend) and the curve runs along the legs around
 * it; once all the vertices controlling a span are repeated three times,
 * that span lies on the polyline. Such knots are always samples, so a
 * piece never cuts across a vertex the curve passes through. A piece
 * still blocked then (only when the polyline itself is, against the
 * contract, or through rounding at a corner) is replaced by the polyline's
 * own vertices between its ends.
 *
 * The path's objective and expanded count are left as the search set
 * them; prm_path_stats measures the smoothed path.
 */
#include "prm.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

enum { MAX_MULT = 3, MAX_BISECT = 40, TABLE_STEPS = 8 };

/* Knot i of the clamped uniform vector for m control points, degree p. */
static double knot(int i, int m, int p)
{
    if (i <= p)
        return 0;
    if (i >= m)
        return 1;
    return (double)(i - p) / (m - p);
}

/* de Boor in knot span k (p <= k <= m - 1): control points k - p .. k. */
static void deboor(const double *cx, const double *cy, int m, int p, int k, double u, double *x, double *y)
{
    double dx[4], dy[4];
    for (int j = 0; j <= p; j++) {
        dx[j] = cx[j + k - p];
        dy[j] = cy[j + k - p];
    }
    for (int r = 1; r <= p; r++)
        for (int j = p; j >= r; j--) {
            double t0 = knot(j + k - p, m, p), t1 = knot(j + 1 + k - r, m, p);
            double a = t1 > t0 ? (u - t0) / (t1 - t0) : 0;
            dx[j] = (1 - a) * dx[j - 1] + a * dx[j];
            dy[j] = (1 - a) * dy[j - 1] + a * dy[j];
        }
    *x = dx[p];
    *y = dy[p];
}

void prm_bspline_point(const double *cx, const double *cy, int n, double u, double *x, double *y)
{
    if (n <= 0) {
        *x = *y = NAN;
        return;
    }
    int p = n - 1 < 3 ? n - 1 : 3;
    if (p == 0) {
        *x = cx[0];
        *y = cy[0];
        return;
    }
    if (!(u > 0))
        u = 0; /* NaN too */
    if (u > 1)
        u = 1;
    int k = p + (int)(u * (n - p));
    /* u == 1 belongs to the last span; correct any rounding in the guess */
    if (k > n - 1)
        k = n - 1;
    while (k > p && u < knot(k, n, p))
        k--;
    while (k < n - 1 && u >= knot(k + 1, n, p))
        k++;
    deboor(cx, cy, n, p, k, u, x, y);
}

/* ---- smoothing ---------------------------------------------------------------------- */

typedef struct curve {
    int m, p;               /* control points (vertices repeated), degree */
    double *qx, *qy;
    int *owner;             /* route vertex of each control point */
} curve;

/* Span j of the curve runs from knot j / nspan to (j + 1) / nspan. */
static int nspans(const curve *c) { return c->m - c->p; }

/* 1 if the curve passes exactly through a route vertex at the start of
 * span j: the point there blends control points j .. j + p - 1 only. */
static int pinned(const curve *c, int j) { return c->owner[j] == c->owner[j + c->p - 1]; }

typedef struct samples {
    double *x, *y, *u;
    /* the piece from sample i to i + 1 lies in knot spans first[i] .. last[i + 1] */
    int *first, *last;
    size_t n, cap;
} samples;

static int samples_push(samples *s, double x, double y, double u, int first, int last)
{
    if (s->n == s->cap) {
        size_t cap = s->cap ? 2 * s->cap : 256;
        double *nx = realloc(s->x, cap * sizeof *nx);
        if (nx)
            s->x = nx;
        double *ny = realloc(s->y, cap * sizeof *ny);
        if (ny)
            s->y = ny;
        double *nu = realloc(s->u, cap * sizeof *nu);
        if (nu)
            s->u = nu;
        int *nf = realloc(s->first, cap * sizeof *nf);
        if (nf)
            s->first = nf;
        int *nl = realloc(s->last, cap * sizeof *nl);
        if (nl)
            s->last = nl;
        if (!nx || !ny || !nu || !nf || !nl)
            return -1;
        s->cap = cap;
    }
    s->x[s->n] = x;
    s->y[s->n] = y;
    s->u[s->n] = u;
    s->first[s->n] = first;
    s->last[s->n] = last;
    s->n++;
    return 0;
}

/* Push samples strictly between the last one pushed and (ub, bx, by),
 * which ends in span hi, until consecutive samples are at most step apart
 * (the arc-length table below may underestimate an arc). */
static int bisect(const curve *c, double step, samples *s, double ub, double bx, double by, int hi, int depth)
{
    size_t a = s->n - 1;
    if (hypot(bx - s->x[a], by - s->y[a]) <= step || depth >= MAX_BISECT)
        return 0;
    double um = 0.5 * (s->u[a] + ub), mx, my;
    int j = hi, nspan = nspans(c);
    while (j > s->first[a] && um < (double)j / nspan)
        j--;
    deboor(c->qx, c->qy, c->m, c->p, j + c->p, um, &mx, &my);
    if (bisect(c, step, s, um, mx, my, j, depth + 1) || samples_push(s, mx, my, um, j, j))
        return -1;
    return bisect(c, step, s, ub, bx, by, hi, depth + 1);
}

typedef struct arc_table {
    double *x, *y, *len;    /* nodes TABLE_STEPS to a span; cumulative chord length */
    int cap;
} arc_table;

/* Sample the curve about `step` apart along its arc: an arc-length table
 * (TABLE_STEPS chords a span) is cut evenly between consecutive pinned
 * knots, where the curve passes through a route vertex; those knots are
 * samples themselves (exactly the vertex), so that no piece cuts across a
 * vertex the curve was pulled onto. */
static int sample_curve(const curve *c, double step, samples *s, arc_table *t)
{
    const int nspan = nspans(c), K = TABLE_STEPS, nodes = nspan * K + 1;
    const double du = 1.0 / ((double)nspan * K);
    if (nodes > t->cap) {
        double *nx = realloc(t->x, (size_t)nodes * sizeof *nx);
        if (nx)
            t->x = nx;
        double *ny = realloc(t->y, (size_t)nodes * sizeof *ny);
        if (ny)
            t->y = ny;
        double *nl = realloc(t->len, (size_t)nodes * sizeof *nl);
        if (nl)
            t->len = nl;
        if (!nx || !ny || !nl)
            return -1;
        t->cap = nodes;
    }
    for (int k = 0; k < nodes; k++) {
        int j = k / K < nspan ? k / K : nspan - 1;
        if (k == 0 || k == nodes - 1 || (k % K == 0 && pinned(c, j))) {
            int q = k == 0 ? 0 : k == nodes - 1 ? c->m - 1 : j;
            t->x[k] = c->qx[q];
            t->y[k] = c->qy[q];
        } else
            deboor(c->qx, c->qy, c->m, c->p, j + c->p, k * du, &t->x[k], &t->y[k]);
        t->len[k] = k ? t->len[k - 1] + hypot(t->x[k] - t->x[k - 1], t->y[k] - t->y[k - 1]) : 0;
    }
    s->n = 0;
    if (samples_push(s, t->x[0], t->y[0], 0, 0, 0))
        return -1;
    int a = 0; /* the node where the current run started */
    for (int jb = 1; jb <= nspan; jb++) {
        if (jb < nspan && !pinned(c, jb))
            continue;
        int b = jb * K, k = a;
        double run = t->len[b] - t->len[a];
        long pieces = (long)ceil(run / step);
        for (long i = 1; i < pieces; i++) {
            double at = t->len[a] + run * (double)i / pieces;
            while (k + 1 < b && t->len[k + 1] <= at)
                k++;
            double chord = t->len[k + 1] - t->len[k], f = chord > 0 ? (at - t->len[k]) / chord : 0, x, y;
            double u = (k + f) * du;
            int j = k / K;
            deboor(c->qx, c->qy, c->m, c->p, j + c->p, u, &x, &y);
            if (bisect(c, step, s, u, x, y, j, 0) || samples_push(s, x, y, u, j, j))
                return -1;
        }
        double ub = jb == nspan ? 1 : b * du;
        if (bisect(c, step, s, ub, t->x[b], t->y[b], jb - 1, 0) ||
            samples_push(s, t->x[b], t->y[b], ub, jb < nspan ? jb : nspan - 1, jb - 1))
            return -1;
        a = b;
    }
    return 0;
}

static int curve_build(curve *c, const double *vx, const double *vy, const int *mult, int nv)
{
    int m = 0;
    for (int i = 0; i < nv; i++)
        m += mult[i];
    double *qx = realloc(c->qx, (size_t)m * sizeof *qx);
    if (qx)
        c->qx = qx;
    double *qy = realloc(c->qy, (size_t)m * sizeof *qy);
    if (qy)
        c->qy = qy;
    int *ow = realloc(c->owner, (size_t)m * sizeof *ow);
    if (ow)
        c->owner = ow;
    if (!qx || !qy || !ow)
        return -1;
    int q = 0;
    for (int i = 0; i < nv; i++)
        for (int r = 0; r < mult[i]; r++, q++) {
            c->qx[q] = vx[i];
            c->qy[q] = vy[i];
            c->owner[q] = i;
        }
    c->m = m;
    c->p = m - 1 < 3 ? m - 1 : 3;
    return 0;
}

/* Squared distance from (x, y) to segment a-b, and the position along it. */
static double seg_dist2(double x, double y, double ax, double ay, double bx, double by)
{
    double dx = bx - ax, dy = by - ay, l2 = dx * dx + dy * dy;
    double f = l2 > 0 ? ((x - ax) * dx + (y - ay) * dy) / l2 : 0;
    if (f < 0)
        f = 0;
    if (f > 1)
        f = 1;
    double ex = ax + f * dx - x, ey = ay + f * dy - y;
    return ex * ex + ey * ey;
}

/* The leg of vertices lo .. hi nearest to (x, y) (lowest index on ties). */
static int nearest_leg(const double *vx, const double *vy, int lo, int hi, double x, double y)
{
    int best = lo;
    double bd = INFINITY;
    for (int i = lo; i < hi; i++) {
        double d = seg_dist2(x, y, vx[i], vy[i], vx[i + 1], vy[i + 1]);
        if (d < bd) {
            bd = d;
            best = i;
        }
    }
    return best;
}

/* Distance from (x, y) to the whole polyline. */
static double polyline_dist(const double *vx, const double *vy, int nv, double x, double y)
{
    double bd = INFINITY;
    for (int i = 0; i + 1 < nv; i++) {
        /* a leg whose bounding box is farther than the best so far cannot
         * be nearer (plain comparisons: libm's fmin/fmax are calls, and
         * the coordinates are finite, so they give the same values) */
        double ax = vx[i], bx = vx[i + 1], ay = vy[i], by = vy[i + 1];
        double lx = (ax < bx ? ax : bx) - x, hx = x - (ax > bx ? ax : bx);
        double ly = (ay < by ? ay : by) - y, hy = y - (ay > by ? ay : by);
        double ox = lx > hx ? lx : hx, oy = ly > hy ? ly : hy;
        ox = ox > 0 ? ox : 0, oy = oy > 0 ? oy : 0;
        if (ox * ox + oy * oy >= bd)
            continue;
        double d = seg_dist2(x, y, vx[i], vy[i], vx[i + 1], vy[i + 1]);
        if (d < bd)
            bd = d;
    }
    return sqrt(bd);
}

/* The route's distinct vertices into vx, vy (a repeated vertex would act
 * as a raised multiplicity), each with multiplicity 1; *total their
 * polyline's length in map units. */
static trv_status distinct_vertices(trv_ctx *ctx, const prm_path *path, double *vx, double *vy, int *mult, int *nv,
                                    double *total)
{
    *nv = 0;
    *total = 0;
    for (int i = 0; i < path->n; i++) {
        if (!isfinite(path->x[i]) || !isfinite(path->y[i]))
            return trv_error(ctx, TRV_ERR_USAGE, "vertex %d of the path is not a finite point", i);
        if (*nv > 0 && path->x[i] == vx[*nv - 1] && path->y[i] == vy[*nv - 1])
            continue;
        if (*nv > 0)
            *total += hypot(path->x[i] - vx[*nv - 1], path->y[i] - vy[*nv - 1]);
        vx[*nv] = path->x[i];
        vy[*nv] = path->y[i];
        mult[(*nv)++] = 1;
    }
    return TRV_OK;
}

/* The smoothing's state: the vertices with their multiplicities, the
 * curve through them, its samples, and which sample pieces stay blocked. */
typedef struct smoothing {
    double *vx, *vy;
    int *mult, *raise;
    int nv;
    curve c;
    samples s;
    arc_table tab;
    unsigned char *stuck;   /* per sample piece: blocked and nothing left to raise */
} smoothing;

/* Raise multiplicities until no piece is blocked or none can be raised.
 * Each round raises at least one of 2 nv possible steps, so this ends.
 * -1 when out of memory. */
static int raise_until_free(const prm_terrain *t, smoothing *S, double step_map)
{
    curve *c = &S->c;
    samples *s = &S->s;
    for (;;) {
        if (curve_build(c, S->vx, S->vy, S->mult, S->nv) || sample_curve(c, step_map, s, &S->tab))
            return -1;
        unsigned char *ns = realloc(S->stuck, s->n);
        if (!ns)
            return -1;
        S->stuck = ns;
        memset(S->stuck, 0, s->n);
        memset(S->raise, 0, (size_t)S->nv * sizeof *S->raise);
        int raised = 0;
        for (size_t i = 0; i + 1 < s->n; i++) {
            prm_piece pc;
            prm_piece_measure(t, s->x[i], s->y[i], s->x[i + 1], s->y[i + 1], &pc);
            if (!pc.blocked)
                continue;
            int any = 0;
            for (int q = s->first[i]; q <= s->last[i + 1] + c->p; q++)
                if (S->mult[c->owner[q]] < MAX_MULT) {
                    S->raise[c->owner[q]] = 1;
                    any = 1;
                }
            S->stuck[i] = !any;
            raised |= any;
        }
        if (!raised)
            return 0;
        for (int i = 0; i < S->nv; i++)
            S->mult[i] += S->raise[i];
    }
}

/* The new vertices: the samples, with the polyline spliced into stuck
 * pieces, repeats dropped; *ox, *oy malloc'ed (n of them). -1 when out of
 * memory. */
static int splice(const smoothing *S, double **pox, double **poy, size_t *pn)
{
    const samples *s = &S->s;
    const double *vx = S->vx, *vy = S->vy;
    int nv = S->nv;
    size_t cap = s->n, n = 0;
    for (size_t i = 0; i + 1 < s->n; i++)
        if (S->stuck[i])
            cap += (size_t)nv;
    double *ox = *pox = malloc(cap * sizeof *ox), *oy = *poy = malloc(cap * sizeof *oy);
    if (!ox || !oy)
        return -1;
    for (size_t i = 0; i < s->n; i++) {
        double x = i == 0 ? vx[0] : i + 1 == s->n ? vx[nv - 1] : s->x[i];
        double y = i == 0 ? vy[0] : i + 1 == s->n ? vy[nv - 1] : s->y[i];
        if (n == 0 || x != ox[n - 1] || y != oy[n - 1]) {
            ox[n] = x;
            oy[n++] = y;
        }
        if (i + 1 < s->n && S->stuck[i]) {
            /* every control point of this span is a vertex repeated three
             * times: the span lies on the legs of vertices lo .. hi */
            int lo = S->c.owner[s->first[i]], hi = S->c.owner[s->last[i + 1] + S->c.p];
            int a = nearest_leg(vx, vy, lo, hi, s->x[i], s->y[i]);
            int b = nearest_leg(vx, vy, lo, hi, s->x[i + 1], s->y[i + 1]);
            for (int v = a + 1; v <= b; v++)
                if (vx[v] != ox[n - 1] || vy[v] != oy[n - 1]) {
                    ox[n] = vx[v];
                    oy[n++] = vy[v];
                }
        }
    }
    *pn = n;
    return 0;
}

trv_status prm_smooth(trv_ctx *ctx, const prm_terrain *t, prm_path *path, double step, double *max_dev)
{
    *max_dev = 0;
    if (!(step > 0) || !isfinite(step))
        return trv_error(ctx, TRV_ERR_USAGE, "the smoothing step must be a positive number of metres, not %g", step);
    if (path->n < 2)
        return TRV_OK;
    double m_per_unit = t->cell_m / t->grid->gt[1];
    double step_map = step / m_per_unit;

    trv_status st = TRV_OK;
    smoothing S = {0};
    S.vx = malloc((size_t)path->n * sizeof *S.vx), S.vy = malloc((size_t)path->n * sizeof *S.vy);
    S.mult = malloc((size_t)path->n * sizeof *S.mult), S.raise = malloc((size_t)path->n * sizeof *S.raise);
    double *ox = NULL, *oy = NULL, total;
    size_t n = 0;
    if (!S.vx || !S.vy || !S.mult || !S.raise)
        goto nomem;
    if ((st = distinct_vertices(ctx, path, S.vx, S.vy, S.mult, &S.nv, &total)) || S.nv < 2)
        goto done; /* a single point: nothing to smooth */
    if (total / step_map > 1e8) {
        st = trv_error(ctx, TRV_ERR_USAGE, "the smoothing step %g m is too small for a path of %.0f m", step,
                       total * m_per_unit);
        goto done;
    }
    if (raise_until_free(t, &S, step_map) || splice(&S, &ox, &oy, &n))
        goto nomem;
    /* the joins between curve samples and spliced polyline vertices were
     * never measured: check every output piece, and if one is blocked (a
     * sliver through a NOGO corner) keep the polyline, which is NOGO-free */
    for (size_t i = 0; i + 1 < n; i++) {
        prm_piece pc;
        prm_piece_measure(t, ox[i], oy[i], ox[i + 1], oy[i + 1], &pc);
        if (pc.blocked) {
            *max_dev = 0;
            goto done;
        }
    }
    double dev = 0;
    for (size_t i = 0; i < n; i++) {
        double d = polyline_dist(S.vx, S.vy, S.nv, ox[i], oy[i]);
        if (d > dev)
            dev = d;
    }
    *max_dev = dev * m_per_unit;
    free(path->x);
    free(path->y);
    path->x = ox;
    path->y = oy;
    path->n = (int)n;
    ox = oy = NULL;
    goto done;
nomem:
    st = trv_error(ctx, TRV_ERR_NOMEM, "out of memory while smoothing a path of %d vertices", path->n);
done:
    free(S.vx);
    free(S.vy);
    free(S.mult);
    free(S.raise);
    free(S.c.qx);
    free(S.c.qy);
    free(S.c.owner);
    free(S.s.x);
    free(S.s.y);
    free(S.s.u);
    free(S.s.first);
    free(S.s.last);
    free(S.tab.x);
    free(S.tab.y);
    free(S.tab.len);
    free(S.stuck);
    free(ox);
    free(oy);
    return st;
}
