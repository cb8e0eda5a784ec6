/* Virtual obstacles (virtual_obstacle.h): checked, appended to the run's
 * obstacles, written into the seen maps when known, removed. */
#include "virtual_obstacle.h"
#include "sim_priv.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>


int sim_vobs_count(const sim_run *r) { return r->nvobs; }

const sim_obstacle *sim_vobs_get(const sim_run *r, int n)
{
    return n >= 1 && n <= r->nvobs ? &r->obs[r->nobs - r->nvobs + n - 1] : NULL;
}

/* ---- the polygon's check ---------------------------------------------------------- */

static double orient(double ax, double ay, double bx, double by, double cx, double cy)
{
    return (bx - ax) * (cy - ay) - (by - ay) * (cx - ax);
}

/* c, collinear with a-b, lies within the segment's box. */
static int within(double ax, double ay, double bx, double by, double cx, double cy)
{
    return fmin(ax, bx) <= cx && cx <= fmax(ax, bx) && fmin(ay, by) <= cy && cy <= fmax(ay, by);
}

/* Segments a-b and c-d share a point (crossing or touching). */
static int segments_meet(const double *x, const double *y, int a, int b, int c, int d)
{
    double o1 = orient(x[a], y[a], x[b], y[b], x[c], y[c]), o2 = orient(x[a], y[a], x[b], y[b], x[d], y[d]);
    double o3 = orient(x[c], y[c], x[d], y[d], x[a], y[a]), o4 = orient(x[c], y[c], x[d], y[d], x[b], y[b]);
    if (((o1 > 0 && o2 < 0) || (o1 < 0 && o2 > 0)) && ((o3 > 0 && o4 < 0) || (o3 < 0 && o4 > 0)))
        return 1;
    return (o1 == 0 && within(x[a], y[a], x[b], y[b], x[c], y[c])) ||
           (o2 == 0 && within(x[a], y[a], x[b], y[b], x[d], y[d])) ||
           (o3 == 0 && within(x[c], y[c], x[d], y[d], x[a], y[a])) ||
           (o4 == 0 && within(x[c], y[c], x[d], y[d], x[b], y[b]));
}

int sim_polygon_simple(const double *x, const double *y, int n)
{
    double area = 0;
    for (int i = 0; i < n; i++) {
        int j = (i + 1) % n, k = (i + 2) % n;
        area += x[i] * y[j] - x[j] * y[i];
        if (x[i] == x[j] && y[i] == y[j])
            return 0; /* an edge of length 0 */
        /* the next edge folds back along this one */
        if (orient(x[i], y[i], x[j], y[j], x[k], y[k]) == 0 &&
            (x[i] - x[j]) * (x[k] - x[j]) + (y[i] - y[j]) * (y[k] - y[j]) > 0)
            return 0;
        for (int m = i + 2; m < n; m++) /* the edges not adjacent to edge i */
            if ((m + 1) % n != i && segments_meet(x, y, i, j, m, (m + 1) % n))
                return 0;
    }
    return area != 0;
}

/* ---- the check ------------------------------------------------------------------- */

static trv_status bad(trv_ctx *ctx, const char **name, const char *what, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static trv_status bad(trv_ctx *ctx, const char **name, const char *what, const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (name)
        *name = what;
    return trv_error(ctx, TRV_ERR_DATA, "%s", msg);
}

/* On the terrain, with a height there. */
static int on_map(const sim_run *r, double x, double y)
{
    return prm_cell_at(r->t, x, y) >= 0 && isfinite(sim_height(&r->field, x, y));
}

static trv_status check_remove(trv_ctx *ctx, const sim_run *r, const sim_command *c, const char **name)
{
    double n = c->a[0];
    if (!(n >= 1 && n <= r->nvobs && n == floor(n)))
        return bad(ctx, name, "unknown_obstacle", "no virtual obstacle %g (%d added so far)", n, r->nvobs);
    if (isfinite(sim_vobs_get(r, (int)n)->disappear_s))
        return bad(ctx, name, "already_removed", "virtual obstacle %g was removed before", n);
    return TRV_OK;
}

static trv_status check_shape(trv_ctx *ctx, const sim_run *r, const sim_command *c, const char **name)
{
    int circle = c->kind == SIM_CMD_ADD_CIRCLE;
    if (circle ? c->n != 1 : c->n < 3)
        return circle ? bad(ctx, name, "too_few_vertices", "a circle has one centre")
                      : bad(ctx, name, "too_few_vertices", "a polygon needs 3 vertices or more, not %d", c->n);
    if (c->n > SIM_VOBS_MAX_VERTICES)
        return bad(ctx, name, "out_of_range", "%d vertices, more than %d", c->n, SIM_VOBS_MAX_VERTICES);
    for (int i = 0; i < c->n; i++)
        if (!isfinite(c->x[i]) || !isfinite(c->y[i]))
            return circle ? bad(ctx, name, "not_finite", "the centre is not a pair of finite numbers")
                          : bad(ctx, name, "not_finite", "vertex %d is not a pair of finite numbers", i + 1);
    if (circle && !isfinite(c->r))
        return bad(ctx, name, "not_finite", "the radius is not a finite number");
    if (circle && !(c->r > 0))
        return bad(ctx, name, "out_of_range", "radius %g m: it must be > 0", c->r);
    for (int i = 0; i < c->n; i++)
        if (!on_map(r, c->x[i], c->y[i]))
            return bad(ctx, name, "outside_map", "%s (%.17g, %.17g) is outside the terrain",
                       circle ? "the centre" : "a vertex", c->x[i], c->y[i]);
    if (!circle && !sim_polygon_simple(c->x, c->y, c->n))
        return bad(ctx, name, "self_intersecting", "the polygon's edges meet or fold back (or it has no area)");
    return TRV_OK;
}

trv_status sim_vobs_check(trv_ctx *ctx, const sim_run *r, const sim_command *c, const char **name)
{
    if (r->over)
        return bad(ctx, name, "over", "the run is over");
    if (c->kind == SIM_CMD_REMOVE_OBSTACLE)
        return check_remove(ctx, r, c, name);
    for (int i = 0; i < 3; i++)
        if (!isfinite(c->a[i]))
            return bad(ctx, name, "not_finite", "the %s is not a finite number", i ? "velocity" : "height");
    if (!(c->a[0] > 0))
        return bad(ctx, name, "out_of_range", "height %g m: it must be > 0", c->a[0]);
    if (c->a[3] != 0 && c->a[3] != 1)
        return bad(ctx, name, "out_of_range", "known is %g: 1 (known at once) or 0 (once sensed)", c->a[3]);
    return check_shape(ctx, r, c, name);
}

/* ---- known at once: the seen maps -------------------------------------------------- */

/* Block every cell of v's seen map whose square overlaps o (at time t). */
static void inject(sim_veh *v, const sim_obstacle *o, double t, double rad)
{
    const geo_grid *g = v->t->grid;
    double ox, oy, cw = fabs(g->gt[1]), ch = fabs(g->gt[5]);
    sim_obstacle_offset(o, t, &ox, &oy);
    double x = o->cx + ox, y = o->cy + oy;
    int c0 = (int)floor((x - rad - g->gt[0]) / g->gt[1]), c1 = (int)floor((x + rad - g->gt[0]) / g->gt[1]);
    int r0 = (int)floor((y + rad - g->gt[3]) / g->gt[5]), r1 = (int)floor((y - rad - g->gt[3]) / g->gt[5]);
    for (int row = r0 < 0 ? 0 : r0; row <= r1 && row < g->ny; row++)
        for (int col = c0 < 0 ? 0 : c0; col <= c1 && col < g->nx; col++) {
            sim_obb cell = {g->gt[0] + (col + 0.5) * g->gt[1], g->gt[3] + (row + 0.5) * g->gt[5], 0, cw / 2, ch / 2};
            if (sim_obstacle_hits(o, t, &cell))
                sim_seen_block(&v->seen, (long)row * g->nx + col);
        }
}

static trv_status make_known(trv_ctx *ctx, sim_run *r, const sim_obstacle *o, double rad)
{
    for (int k = 0; k < r->nv; k++) {
        sim_veh *v = &r->v[k];
        if (v->phase == 2)
            continue;
        if (!v->has_seen) {
            trv_status st = sim_seen_init(ctx, &v->seen, v->t,
                                          hypot(v->body.length_m / 2, v->body.width_m / 2) + r->sc->margin_m);
            if (st)
                return st;
            v->has_seen = 1;
        }
        inject(v, o, r->t_now, rad);
        sim_veh_replan_blocked(r->quiet, r, k, "known_obstacle");
    }
    return TRV_OK;
}

/* ---- add, remove ---------------------------------------------------------------- */

/* An event of no vehicle at (x, y). */
static void note(sim_run *r, sim_event_type type, double x, double y, const char *details)
{
    int n0 = r->nev;
    sim_run_note(r, 0, type, details);
    if (r->nev > n0) {
        sim_event *e = &r->ev[r->nev - 1];
        e->vehicle = -1, e->x = x, e->y = y;
    }
}

/* Room for one more obstacle (zeroed) at r->obs[r->nobs]. */
static trv_status grow(trv_ctx *ctx, sim_run *r)
{
    sim_obstacle *o = realloc(r->obs, (r->nobs + 1) * sizeof *o);
    if (o)
        r->obs = o;
    double *rad = o ? realloc(r->obs_rad, (r->nobs + 1) * sizeof *rad) : NULL;
    if (!rad)
        return trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
    r->obs_rad = rad;
    memset(&r->obs[r->nobs], 0, sizeof *r->obs);
    return TRV_OK;
}

/* o from c at time t: the footprint moved back to t = 0; its bounding
 * radius about (cx, cy). */
static trv_status shape(trv_ctx *ctx, const sim_command *c, double t, sim_obstacle *o, double *rad)
{
    double ox = c->a[1] * t, oy = c->a[2] * t;
    if (c->kind == SIM_CMD_ADD_CIRCLE) {
        o->cx = c->x[0] - ox, o->cy = c->y[0] - oy, o->r = *rad = c->r;
        return TRV_OK;
    }
    if (!(o->px = malloc(c->n * sizeof *o->px)) || !(o->py = malloc(c->n * sizeof *o->py))) {
        free(o->px);
        o->px = NULL;
        return trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
    }
    double sx = 0, sy = 0;
    for (int i = 0; i < c->n; i++)
        sx += c->x[i], sy += c->y[i];
    o->n = c->n, o->cx = sx / c->n - ox, o->cy = sy / c->n - oy, *rad = 0;
    for (int i = 0; i < c->n; i++) {
        o->px[i] = c->x[i] - ox, o->py[i] = c->y[i] - oy;
        *rad = fmax(*rad, hypot(o->px[i] - o->cx, o->py[i] - o->cy));
    }
    return TRV_OK;
}

static trv_status add(trv_ctx *ctx, sim_run *r, const sim_command *c, int *num)
{
    double t = r->t_now, rad = 0;
    trv_status st = grow(ctx, r);
    sim_obstacle *o = &r->obs[r->nobs];
    if (st || (st = shape(ctx, c, t, o, &rad)))
        return st;
    int n = ++r->nvobs;
    snprintf(o->id, sizeof o->id, "virtual-%d", n);
    o->height_m = c->a[0], o->vx = c->a[1], o->vy = c->a[2];
    o->appear_s = t, o->disappear_s = INFINITY;
    double x = o->cx + o->vx * t, y = o->cy + o->vy * t;
    o->base_z = sim_height(&r->field, x, y);
    r->obs_rad[r->nobs++] = rad;
    char d[192];
    int circle = c->kind == SIM_CMD_ADD_CIRCLE;
    snprintf(d, sizeof d, "\"obstacle\": %d, \"shape\": \"%s\", \"%s\": %.*f, \"height_m\": %.3f, \"vx_ms\": %.3f, "
             "\"vy_ms\": %.3f, \"known\": %s", n, circle ? "circle" : "polygon", circle ? "radius_m" : "vertices",
             circle ? 3 : 0, circle ? c->r : c->n, o->height_m, o->vx, o->vy, c->a[3] ? "true" : "false");
    note(r, SIM_EV_OBSTACLE_ADDED, x, y, d);
    if (num)
        *num = n;
    return c->a[3] ? make_known(ctx, r, &r->obs[r->nobs - 1], rad) : TRV_OK;
}

trv_status sim_vobs_apply(trv_ctx *ctx, sim_run *r, const sim_command *c, int *num)
{
    trv_status st = sim_vobs_check(ctx, r, c, NULL);
    if (st || c->kind != SIM_CMD_REMOVE_OBSTACLE)
        return st ? st : add(ctx, r, c, num);
    int n = (int)c->a[0];
    sim_obstacle *o = &r->obs[r->nobs - r->nvobs + n - 1];
    o->disappear_s = r->t_now;
    char d[64];
    snprintf(d, sizeof d, "\"obstacle\": %d", n);
    note(r, SIM_EV_OBSTACLE_REMOVED, o->cx + o->vx * r->t_now, o->cy + o->vy * r->t_now, d);
    if (num)
        *num = n;
    return TRV_OK;
}
