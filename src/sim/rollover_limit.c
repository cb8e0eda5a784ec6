/* A speed limit from the rollover margin (rollover_limit.h; docs/method.md
 * §5.11.1). */
#include "rollover_limit.h"
#include "dynamic.h"

#include <math.h>

#define G 9.80665
#define CREEP_MS 0.3 /* run.c's */
#define DECEL_MIN_MS2 0.1

double sim_rollover_ltr(double ratio, double phi, double theta, double v, double kappa)
{
    return (tan(fabs(phi)) + v * v * fabs(kappa) / (G * cos(phi) * cos(theta))) / ratio;
}

double sim_rollover_vmax(double lim, double phi, double theta, double kappa)
{
    double room = lim - tan(fabs(phi));
    if (room <= 0)
        return 0;
    if (fabs(kappa) < 1e-12)
        return INFINITY;
    return sqrt(G * cos(phi) * cos(theta) * room / fabs(kappa));
}

double sim_rollover_lim(const sim_run *r, const sim_veh *v)
{
    const sim_scenario *sc = r->sc;
    if (!sc->rollover_given && !sc->dynamics)
        return 0;
    sim_dyn_params p;
    sim_dyn_params_default(v->tv, &v->body, &p);
    return (1 - sc->rollover_margin) * v->body.track_m / (2 * p.cg_h_m);
}

/* The roll and pitch of a vehicle at (x, y) heading along (ux, uy) on the
 * DEM's plane there. */
static void slope_at(const sim_run *r, double x, double y, double ux, double uy, double *phi, double *theta)
{
    double gx, gy;
    sim_gradient(&r->field, x, y, &gx, &gy);
    if (!isfinite(gx) || !isfinite(gy))
        gx = gy = 0;
    double sc = gy * ux - gx * uy, sg = gx * ux + gy * uy;
    *phi = atan(sc / sqrt(1 + sg * sg));
    *theta = atan(sg);
}

double sim_rollover_speed_at(const sim_run *r, const sim_veh *v, double x, double y, double ux, double uy,
                             double kappa)
{
    double lim = sim_rollover_lim(r, v), phi, theta;
    if (!(lim > 0))
        return INFINITY;
    slope_at(r, x, y, ux, uy, &phi, &theta);
    return sim_rollover_vmax(lim, phi, theta, kappa);
}

/* The curvature of a steering angle (Ackermann) or of a yaw rate at a speed. */
static double curvature(const sim_body *b, double steer, double yaw_rate, double v)
{
    if (b->kind == SIM_ACKERMANN)
        return b->wheelbase_m > 0 ? tan(steer) / b->wheelbase_m : 0;
    return fabs(v) > 1e-6 ? yaw_rate / v : 0;
}

double sim_rollover_speed_now(const sim_run *r, const sim_veh *v)
{
    const sim_state *s = &v->s;
    double kappa = curvature(&v->body, s->steer, s->yaw_rate, s->v);
    return sim_rollover_speed_at(r, v, s->x, s->y, cos(s->heading), sin(s->heading), kappa);
}

/* Dynamic, Ackermann: the steering at most what keeps LTR <= lim at the
 * speed the vehicle has now (it cannot shed it at once):
 * |kappa| <= g cos(phi) cos(theta) (lim - tan|phi|) / v^2. */
static void steer_cap(const sim_run *r, const sim_veh *v, const sim_state *s, sim_cmd *cmd)
{
    double lim = sim_rollover_lim(r, v), phi, theta, vs = fabs(s->v);
    if (!r->sc->dynamics || v->body.kind != SIM_ACKERMANN || !(lim > 0) || vs < 1)
        return;
    slope_at(r, s->x, s->y, cos(s->heading), sin(s->heading), &phi, &theta);
    double room = lim - fabs(tan(phi));
    if (!(room > 0))
        return;
    double kmax = G * cos(phi) * cos(theta) * room / (vs * vs), smax = atan(kmax * v->body.wheelbase_m);
    if (fabs(cmd->steer) > smax)
        cmd->steer = copysign(smax, cmd->steer);
}

void sim_rollover_cap_cmd(const sim_run *r, const sim_veh *v, const sim_state *s, sim_cmd *cmd)
{
    double kappa = curvature(&v->body, cmd->steer, cmd->yaw_rate, cmd->v);
    /* never below creep speed: the slope's own share does not depend on it */
    double vmax = fmax(sim_rollover_speed_at(r, v, s->x, s->y, cos(s->heading), sin(s->heading), kappa), CREEP_MS);
    if (cmd->v > vmax) {
        if (v->body.kind != SIM_ACKERMANN)
            cmd->yaw_rate *= vmax / cmd->v; /* the same curvature */
        cmd->v = vmax;
    }
    steer_cap(r, v, s, cmd);
}

double sim_profile_decel(const sim_run *r, const sim_veh *v, double s, double ds)
{
    double a = r->sc->decel_ms2;
    if (!r->sc->dynamics || !v->tv || !(ds > 0))
        return a;
    double x0, y0, x1, y1;
    sim_path_point(&v->path, s, &x0, &y0);
    sim_path_point(&v->path, s + ds, &x1, &y1);
    double dz = sim_height(&r->field, x1, y1) - sim_height(&r->field, x0, y0), run = hypot(x1 - x0, y1 - y0);
    if (!isfinite(dz) || !(run > 0) || dz >= 0)
        return a;
    double beta = atan(-dz / run); /* the descent */
    double room = v->tv->decel_ms2 + G * (v->tv->rolling_coeff * cos(beta) - sin(beta));
    return fmin(a, fmax(room, DECEL_MIN_MS2));
}
