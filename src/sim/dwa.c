/* The dynamic window approach (Fox, Burgard & Thrun, IEEE RAM 1997):
 * circular arcs (v, w) in the window the accelerations reach within one
 * period, admissible when the vehicle can stop before the first obstacle
 * on the arc, scored by heading, clearance and velocity (local_planner.h;
 * docs/method.md §5.12). */
#include "local_planner.h"

#include <math.h>

#define ARC_DS 0.1

void sim_dwa_window(const sim_dwa_cfg *c, double v, double w, double win[4])
{
    win[0] = fmax(0, v - c->dec * c->dt);
    win[1] = fmin(c->v_max, v + c->acc * c->dt);
    win[2] = fmax(-c->w_max, w - c->w_acc * c->dt);
    win[3] = fmin(c->w_max, w + c->w_acc * c->dt);
    if (win[0] > win[1]) /* faster than allowed: brake as hard as it can */
        win[1] = win[0];
    if (win[2] > win[3])
        win[3] = win[2];
}

/* The pose after arc length s on the arc of curvature kappa. */
static void arc_pose(double x, double y, double theta, double kappa, double s, double *px, double *py, double *pt)
{
    if (fabs(kappa) < 1e-9) {
        *px = x + s * cos(theta), *py = y + s * sin(theta), *pt = theta;
        return;
    }
    double th = theta + kappa * s;
    *px = x + (sin(th) - sin(theta)) / kappa;
    *py = y - (cos(th) - cos(theta)) / kappa;
    *pt = th;
}

double sim_dwa_dist(const sim_dwa_cfg *c, double x, double y, double theta, double v, double w, const double *pts,
                    int npts)
{
    double kappa = v > 1e-6 ? w / v : 0;
    if (v <= 1e-9)
        return 0; /* standing: no way made */
    double len = kappa != 0 ? fmin(c->dist_max, 2 * M_PI / fabs(kappa)) : c->dist_max;
    for (int k = 1; k * ARC_DS <= len + 1e-9; k++) {
        double px, py, pt, s = k * ARC_DS;
        arc_pose(x, y, theta, kappa, s, &px, &py, &pt);
        for (int i = 0; i < npts; i++) {
            double d = hypot(pts[2 * i] - px, pts[2 * i + 1] - py);
            /* a point already within r_rs blocks an arc that comes closer */
            double lim = fmin(c->r_rs, hypot(pts[2 * i] - x, pts[2 * i + 1] - y) - 1e-3);
            if (d < lim)
                return s - ARC_DS;
        }
    }
    return c->dist_max;
}

double sim_dwa_heading(const sim_dwa_cfg *c, double x, double y, double theta, double v, double w, double tx,
                       double ty)
{
    double px, py, pt, s = fmax(v, 0) * c->horizon_s;
    double kappa = v > 1e-6 ? w / v : 0;
    arc_pose(x, y, theta, kappa, s, &px, &py, &pt);
    if (v <= 1e-6)
        pt = theta + w * c->horizon_s; /* turning on the spot */
    double e = atan2(ty - py, tx - px) - pt;
    e = atan2(sin(e), cos(e));
    return M_PI - fabs(e);
}

int sim_dwa(const sim_dwa_cfg *c, double x, double y, double theta, double v, double w, double tx, double ty,
            const double *pts, int npts, double *v_out, double *w_out)
{
    double win[4];
    sim_dwa_window(c, v, w, win);
    enum { MAXS = 32 * 32 };
    double sv[MAXS], sw[MAXS], sh[MAXS], sd[MAXS];
    int ns = 0, nv = c->nv < 32 ? c->nv : 32, nw = c->nw < 32 ? c->nw : 32;
    double mh = 0, md = 0, mv = 0;
    for (int i = 0; i < nv; i++)
        for (int j = 0; j < nw; j++) {
            double vi = nv > 1 ? win[0] + (win[1] - win[0]) * i / (nv - 1) : win[1];
            double w0 = win[2], w1 = win[3];
            if (c->kappa_max > 0) /* the steering limit: |w| <= kappa_max v */
                w0 = fmax(w0, -c->kappa_max * vi), w1 = fmin(w1, c->kappa_max * vi);
            if (w0 > w1)
                continue;
            double wj = nw > 1 ? w0 + (w1 - w0) * j / (nw - 1) : 0.5 * (w0 + w1);
            double d = sim_dwa_dist(c, x, y, theta, vi, wj, pts, npts);
            if (vi * vi / (2 * c->dec) + vi * c->lag_s > d + 1e-9)
                continue; /* cannot stop before the obstacle */
            sv[ns] = vi, sw[ns] = wj, sd[ns] = d;
            sh[ns] = sim_dwa_heading(c, x, y, theta, vi, wj, tx, ty);
            mh = fmax(mh, sh[ns]), md = fmax(md, d), mv = fmax(mv, vi);
            ns++;
        }
    int best = -1;
    double gbest = -INFINITY;
    for (int i = 0; i < ns; i++) {
        double g = (mh > 0 ? c->w_heading * sh[i] / mh : 0) + (md > 0 ? c->w_dist * sd[i] / md : 0) +
                   (mv > 0 ? c->w_vel * sv[i] / mv : 0);
        if (g > gbest)
            gbest = g, best = i;
    }
    if (best < 0 || (sv[best] <= 1e-9 && fabs(sw[best]) <= 1e-9))
        return -1; /* nothing admissible, or standing is best: no way forward */
    *v_out = sv[best], *w_out = sw[best];
    return 0;
}
