/*
 * The path and the path-following controllers (docs/method.md §5): a polyline
 * with its arc length, the closest-point projection with a forward search
 * window, pure pursuit with a speed-adaptive lookahead and Stanley.
 *
 * Pure pursuit (Coulter 1992): the arc through the vehicle, tangent to its
 * heading, that reaches the lookahead point (x, y) in the body frame has
 * curvature kappa = 2 y / (x^2 + y^2); Ackermann steers atan(kappa L).
 * On a circle of radius R with the vehicle on it, that arc is the circle,
 * so the steady-state error is zero up to the polyline's chords.
 * Stanley (Thrun et al. 2006): steer = psi_e - atan(k e / v), psi_e the
 * path heading minus the vehicle's, e the front axle's signed cross-track
 * error (> 0 left of the path).
 */
#include "sim.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define WINDOW 64
#define SPAN_M 30.0 /* the window's arc length past the next segment's start */

void sim_path_clear(sim_path *p)
{
    if (!p)
        return;
    free(p->x);
    free(p->y);
    free(p->s);
    memset(p, 0, sizeof *p);
}

trv_status sim_path_set(trv_ctx *ctx, sim_path *p, const double *x, const double *y, int n)
{
    sim_path_clear(p);
    if (n < 1)
        return trv_error(ctx, TRV_ERR_USAGE, "a path needs at least one vertex (got %d)", n);
    p->x = malloc((size_t)n * sizeof *p->x);
    p->y = malloc((size_t)n * sizeof *p->y);
    p->s = malloc((size_t)n * sizeof *p->s);
    if (!p->x || !p->y || !p->s) {
        sim_path_clear(p);
        return trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
    }
    memcpy(p->x, x, (size_t)n * sizeof *x);
    memcpy(p->y, y, (size_t)n * sizeof *y);
    p->s[0] = 0;
    for (int i = 1; i < n; i++)
        p->s[i] = p->s[i - 1] + hypot(x[i] - x[i - 1], y[i] - y[i - 1]);
    p->n = n;
    return TRV_OK;
}

double sim_path_project(const sim_path *p, double x, double y, int *hint, double *s_along)
{
    if (p->n == 1) {
        *hint = 0;
        *s_along = 0;
        return hypot(x - p->x[0], y - p->y[0]);
    }
    int first = *hint < 0 ? 0 : *hint > p->n - 2 ? p->n - 2 : *hint;
    int last = first + WINDOW < p->n - 2 ? first + WINDOW : p->n - 2;
    double best_d2 = INFINITY, best_e = 0, best_s = 0;
    int best = first;
    for (int i = first; i <= last && (i <= first + 1 || p->s[i] <= p->s[first + 1] + SPAN_M); i++) {
        double ax = p->x[i], ay = p->y[i], sx = p->x[i + 1] - ax, sy = p->y[i + 1] - ay;
        double len2 = sx * sx + sy * sy, px = x - ax, py = y - ay;
        double t = len2 > 0 ? (px * sx + py * sy) / len2 : 0;
        t = t < 0 ? 0 : t > 1 ? 1 : t;
        double qx = px - t * sx, qy = py - t * sy, d2 = qx * qx + qy * qy;
        if (d2 < best_d2) {
            best_d2 = d2;
            best = i;
            best_s = p->s[i] + t * (p->s[i + 1] - p->s[i]);
            /* the sign from the segment's side; a zero-length segment has none */
            double cross = sx * py - sy * px;
            best_e = cross < 0 ? -sqrt(d2) : sqrt(d2);
        }
    }
    *hint = best;
    *s_along = best_s;
    return best_e;
}

void sim_path_point(const sim_path *p, double s, double *x, double *y)
{
    if (s <= 0 || p->n == 1) {
        *x = p->x[0];
        *y = p->y[0];
        return;
    }
    if (s >= p->s[p->n - 1]) {
        *x = p->x[p->n - 1];
        *y = p->y[p->n - 1];
        return;
    }
    int lo = 0, hi = p->n - 1; /* s[lo] <= s < s[hi] */
    while (hi - lo > 1) {
        int mid = (lo + hi) / 2;
        if (p->s[mid] <= s)
            lo = mid;
        else
            hi = mid;
    }
    double len = p->s[hi] - p->s[lo], t = len > 0 ? (s - p->s[lo]) / len : 0;
    *x = p->x[lo] + t * (p->x[hi] - p->x[lo]);
    *y = p->y[lo] + t * (p->y[hi] - p->y[lo]);
}

void sim_ctrl_default(sim_ctrl *c)
{
    c->kind = SIM_PURE_PURSUIT;
    c->lookahead_s = 0.8;
    c->lookahead_min_m = 2.0;
    c->lookahead_max_m = 20.0;
    c->stanley_k = 1.5;
}

/* Heading of the path at arc length s (of the segment holding s). */
static double path_heading(const sim_path *p, double s)
{
    if (p->n < 2)
        return 0;
    int lo = 0, hi = p->n - 1;
    while (hi - lo > 1) {
        int mid = (lo + hi) / 2;
        if (p->s[mid] <= s)
            lo = mid;
        else
            hi = mid;
    }
    /* skip zero-length segments back and forth */
    while (hi < p->n - 1 && p->s[hi] == p->s[lo])
        hi++;
    while (lo > 0 && p->s[hi] == p->s[lo])
        lo--;
    return atan2(p->y[hi] - p->y[lo], p->x[hi] - p->x[lo]);
}

/* Turn a curvature (1/m) into the command of the vehicle's kind. */
static void apply_curvature(const sim_body *b, double kappa, double v_want, sim_cmd *cmd)
{
    if (b->kind == SIM_ACKERMANN) {
        cmd->steer = atan(kappa * b->wheelbase_m);
        cmd->yaw_rate = 0;
    } else {
        double slip = b->kind == SIM_SKID && b->slip > 0 ? b->slip : 1.0;
        cmd->steer = 0;
        cmd->yaw_rate = kappa * v_want / slip;
    }
}

void sim_ctrl_command(const sim_ctrl *c, const sim_body *b, const sim_path *p, const sim_state *s, double v_want,
                      int *hint, sim_cmd *cmd)
{
    cmd->v = v_want;
    cmd->vy = 0;
    cmd->steer = 0;
    cmd->yaw_rate = 0;
    if (p->n < 1)
        return;
    double ch = cos(s->heading), sh = sin(s->heading);
    if (c->kind == SIM_STANLEY) {
        double half = 0.5 * b->wheelbase_m, fx = s->x + half * ch, fy = s->y + half * sh, s_along;
        double e = sim_path_project(p, fx, fy, hint, &s_along);
        double psi_e = remainder(path_heading(p, s_along) - s->heading, 2.0 * M_PI);
        /* the softening speed keeps the gain finite when standing */
        double steer = psi_e - atan2(c->stanley_k * e, fabs(s->v) + 0.5);
        if (b->kind == SIM_ACKERMANN) {
            cmd->steer = steer;
        } else {
            double L = b->wheelbase_m > 0 ? b->wheelbase_m : 1.0;
            apply_curvature(b, tan(fmax(-1.2, fmin(1.2, steer))) / L, v_want, cmd);
        }
        return;
    }
    double s_along;
    sim_path_project(p, s->x, s->y, hint, &s_along);
    double look = c->lookahead_s * fabs(s->v);
    look = look < c->lookahead_min_m ? c->lookahead_min_m : look > c->lookahead_max_m ? c->lookahead_max_m : look;
    double tx, ty;
    sim_path_point(p, s_along + look, &tx, &ty);
    double dx = tx - s->x, dy = ty - s->y;
    double xl = dx * ch + dy * sh, yl = -dx * sh + dy * ch, d2 = xl * xl + yl * yl;
    if (d2 < 1e-12)
        return; /* at the end of the path */
    apply_curvature(b, 2.0 * yl / d2, v_want, cmd);
}
