/*
 * Vehicle kinematics (docs/method.md §5): first-order actuator lag, the kinematic
 * Ackermann (bicycle), skid-steer and Mecanum platforms integrated exactly
 * over a step for inputs held constant, and the Mecanum wheel kinematics.
 *
 * The lag is solved exactly (cur + (target - cur)(1 - e^(-dt/tau))), so a
 * step response does not depend on the step size. The planar motion with
 * body velocity (v, vy) and yaw rate w held over dt is the exact integral
 *   dx = dt sinc(w dt / 2) (v cos(th_mid) - vy sin(th_mid))
 *   dy = dt sinc(w dt / 2) (v sin(th_mid) + vy cos(th_mid)),
 *   th_mid = th + w dt / 2,
 * (the chord of the arc of radius v / w), which stays accurate as w -> 0.
 */
#include "sim.h"

#include <math.h>

#define DEG (M_PI / 180.0)

double sim_lag(double cur, double target, double tau, double dt)
{
    if (!(tau > 0))
        return target;
    /* -expm1 keeps 1 - e^(-x) accurate for the small dt / tau of fine steps */
    return cur + (target - cur) * -expm1(-dt / tau);
}

static double clampd(double v, double lo, double hi) { return v < lo ? lo : v > hi ? hi : v; }

/* sin(h) / h, with its series where the division loses digits */
static double sinc(double h) { return fabs(h) < 1e-4 ? 1.0 - h * h / 6.0 : sin(h) / h; }

void sim_step(const sim_body *b, sim_state *s, const sim_cmd *cmd, double dt)
{
    double v_want = cmd->v;
    if (b->top_speed_ms > 0)
        v_want = clampd(v_want, -b->top_speed_ms, b->top_speed_ms);
    s->v = sim_lag(s->v, v_want, b->tau_speed_s, dt);
    switch (b->kind) {
    case SIM_ACKERMANN: {
        double steer_want = b->max_steer_rad > 0 ? clampd(cmd->steer, -b->max_steer_rad, b->max_steer_rad) : cmd->steer;
        s->steer = sim_lag(s->steer, steer_want, b->tau_steer_s, dt);
        s->vy = 0;
        s->yaw_rate = b->wheelbase_m > 0 ? s->v * tan(s->steer) / b->wheelbase_m : 0;
        break;
    }
    case SIM_SKID:
        s->steer = 0;
        s->vy = 0;
        s->yaw_rate = sim_lag(s->yaw_rate, b->slip * cmd->yaw_rate, b->tau_steer_s, dt);
        break;
    case SIM_MECANUM:
        s->steer = 0;
        s->vy = sim_lag(s->vy, cmd->vy, b->tau_speed_s, dt);
        s->yaw_rate = sim_lag(s->yaw_rate, cmd->yaw_rate, b->tau_steer_s, dt);
        break;
    }
    double half = 0.5 * s->yaw_rate * dt, mid = s->heading + half, k = dt * sinc(half);
    double c = cos(mid), sn = sin(mid);
    s->x += k * (s->v * c - s->vy * sn);
    s->y += k * (s->v * sn + s->vy * c);
    /* keep the heading in (-pi, pi] so that long runs do not lose digits */
    s->heading = remainder(s->heading + 2.0 * half, 2.0 * M_PI);
}

static double mecanum_k(const sim_body *b) { return 0.5 * b->wheelbase_m + 0.5 * b->track_m; }

void sim_mecanum_inverse(const sim_body *b, double vx, double vy, double omega, double w[4])
{
    double k = mecanum_k(b) * omega, r = b->wheel_radius_m;
    w[0] = (vx - vy - k) / r;
    w[1] = (vx + vy + k) / r;
    w[2] = (vx + vy - k) / r;
    w[3] = (vx - vy + k) / r;
}

void sim_mecanum_forward(const sim_body *b, const double w[4], double *vx, double *vy, double *omega)
{
    /* the columns of the inverse map are orthogonal, so the least-squares
     * solution is each column's projection */
    double r = b->wheel_radius_m;
    *vx = r * (w[0] + w[1] + w[2] + w[3]) / 4.0;
    *vy = r * (-w[0] + w[1] + w[2] - w[3]) / 4.0;
    *omega = r * (-w[0] + w[1] - w[2] + w[3]) / (4.0 * mecanum_k(b));
}

void sim_body_from_vehicle(const tm_vehicle *v, sim_kind kind, sim_body *out)
{
    out->kind = kind;
    out->wheelbase_m = v->wheelbase_m;
    out->track_m = v->track_m;
    out->length_m = v->length_m;
    out->width_m = v->width_m;
    out->height_m = v->height_m;
    out->wheel_radius_m = v->wheel_radius_m;
    out->max_steer_rad = v->max_steer_deg * DEG;
    out->tau_speed_s = v->tau_speed_s;
    out->tau_steer_s = v->tau_steer_s;
    out->slip = v->skid_slip;
    out->top_speed_ms = v->top_speed_kmh / 3.6;
    out->max_pitch_rad = v->max_pitch_deg * DEG;
    out->max_roll_rad = v->max_roll_deg * DEG;
    out->step_m = v->step_m;
    out->mass_kg = v->gross_mass_kg;
}

const char *sim_kind_name(sim_kind k)
{
    return k == SIM_SKID ? "skid" : k == SIM_MECANUM ? "mecanum" : "ackermann";
}
