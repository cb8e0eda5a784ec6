/*
 * Vehicle dynamics on ODE (dynamic.h; docs/method.md §5.11): the world,
 * the chassis and its wheels on hinge-2 joints, steering, drive and
 * brakes, rolling resistance, one step, the pose read back.
 */
#include "dynamic_priv.h"

#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#define G 9.80665

static double clampd(double v, double lo, double hi) { return v < lo ? lo : v > hi ? hi : v; }

static void quiet(int num, const char *msg, va_list ap)
{
    (void)num, (void)msg, (void)ap; /* the library prints nothing (house rule) */
}

static void ode_once(void)
{
    dInitODE2(0);
    dSetMessageHandler(quiet);
}

/* dInitODE2 once per process; the collision data of the calling thread
 * (a run may step in another thread than the one that started the
 * process: the server) */
static void ode_init(void)
{
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, ode_once);
    dAllocateODEDataForThread(dAllocateMaskAll);
    dRandSetSeed(0);
}

void sim_dyn_params_default(const tm_vehicle *tv, const sim_body *b, sim_dyn_params *p)
{
    memset(p, 0, sizeof *p);
    double m = b->mass_kg > 0 ? b->mass_kg : 1000;
    p->mass_kg = m;
    p->cg_h_m = fmax(b->wheel_radius_m, 0.45 * b->height_m);
    p->clearance_m = tv ? tv->ground_clearance_m : 0.3;
    if (tv) {
        tm_quarter_car q;
        tm_vehicle_quarter_car(tv, &q);
        p->unsprung_kg = q.unsprung_kg, p->spring_N_per_m = q.spring_N_per_m, p->damper_Ns_per_m = q.damper_Ns_per_m;
        p->tyre_N_per_m = q.tyre_N_per_m;
        p->power_W = tv->engine_power_kW * 1000 * tv->drivetrain_efficiency;
        p->brake_ms2 = tv->decel_ms2;
        p->soil.f_rr = tv->rolling_coeff;
    } else {
        double ms = 0.9 * m / 4, w = 2 * M_PI * 1.2;
        p->unsprung_kg = 0.1 * m / 4, p->spring_N_per_m = ms * w * w;
        p->damper_Ns_per_m = 2 * 0.3 * sqrt(p->spring_N_per_m * ms);
        p->tyre_N_per_m = 10 * p->spring_N_per_m;
        p->power_W = 50e3, p->brake_ms2 = 3.4, p->soil.f_rr = 0.015;
    }
    p->cornering_N_per_rad = 10 * m * G / 4;
    p->restitution = 0.3;
    p->airborne_s = 1.0;
    p->gravity[2] = -G;
    p->soil.mu = 0.8, p->soil.k_over_l = 0.1;
}

double sim_dyn_rollover_threshold(const sim_body *b, const sim_dyn_params *p)
{
    return atan(b->track_m / (2 * p->cg_h_m));
}

/* Rotation of a body at heading, pitch (nose up), roll (left up):
 * Rz(heading) Ry(-pitch) Rx(roll). */
static void attitude(double heading, double pitch, double roll, dMatrix3 R)
{
    dMatrix3 a, b, c, ab;
    dRFromAxisAndAngle(a, 0, 0, 1, heading);
    dRFromAxisAndAngle(b, 0, 1, 0, -pitch);
    dRFromAxisAndAngle(c, 1, 0, 0, roll);
    dMultiply0(ab, a, b, 3, 3, 3);
    dMultiply0(R, ab, c, 3, 3, 3);
}

/* R (ODE's 3 x 4 rows) times a body-frame vector */
static void rot(const dReal *R, const double v[3], double out[3])
{
    for (int i = 0; i < 3; i++)
        out[i] = R[4 * i] * v[0] + R[4 * i + 1] * v[1] + R[4 * i + 2] * v[2];
}

static void wheel_offset(const sim_dyn *d, int w, double o[3])
{
    o[0] = (w < 2 ? 0.5 : -0.5) * d->b.wheelbase_m;
    o[1] = (w % 2 ? -0.5 : 0.5) * d->b.track_m;
    o[2] = d->b.wheel_radius_m;
}

static void make_chassis(sim_dyn *d, const double ref[3], const dMatrix3 R, double sag)
{
    const sim_dyn_params *p = &d->p;
    double ms = p->mass_kg - 4 * p->unsprung_kg;
    d->hs = (p->mass_kg * p->cg_h_m - 4 * p->unsprung_kg * d->b.wheel_radius_m) / ms;
    double bh = fmax(d->b.height_m - p->clearance_m, 0.1);
    d->chassis = dBodyCreate(d->world);
    dMass m;
    dMassSetBoxTotal(&m, ms, d->b.length_m, d->b.width_m, bh);
    dBodySetMass(d->chassis, &m);
    double off[3] = {p->cg_x_m, 0, d->hs + sag}, w[3];
    rot(R, off, w);
    dBodySetPosition(d->chassis, ref[0] + w[0], ref[1] + w[1], ref[2] + w[2]);
    dBodySetRotation(d->chassis, R);
    d->chassis_geom = dCreateBox(d->space, d->b.length_m, d->b.width_m, bh);
    dGeomSetBody(d->chassis_geom, d->chassis);
    /* the box from the clearance to the top, centred on the reference point's vertical */
    dGeomSetOffsetPosition(d->chassis_geom, -p->cg_x_m, 0, p->clearance_m + bh / 2 - d->hs);
    d->tag_chassis = (dyn_tag){DYN_CHASSIS, 0};
    dGeomSetData(d->chassis_geom, &d->tag_chassis);
}

/* ERP = h k / (h k + c), CFM = 1 / (h k + c): ODE's implicit spring-damper. */
static void make_wheel(sim_dyn *d, int w, const double ref[3], const dMatrix3 R)
{
    const sim_dyn_params *p = &d->p;
    double o[3], c[3], r = d->b.wheel_radius_m;
    wheel_offset(d, w, o);
    rot(R, o, c);
    d->wheel[w] = dBodyCreate(d->world);
    dMass m;
    dMassSetSphereTotal(&m, p->unsprung_kg, r);
    dBodySetMass(d->wheel[w], &m);
    dBodySetPosition(d->wheel[w], ref[0] + c[0], ref[1] + c[1], ref[2] + c[2]);
    dBodySetRotation(d->wheel[w], R);
    d->wheel_geom[w] = dCreateSphere(d->space, r);
    dGeomSetBody(d->wheel_geom[w], d->wheel[w]);
    d->tag_wheel[w] = (dyn_tag){DYN_WHEEL, w};
    dGeomSetData(d->wheel_geom[w], &d->tag_wheel[w]);
    dJointID j = d->hinge[w] = dJointCreateHinge2(d->world, 0);
    dJointAttach(j, d->chassis, d->wheel[w]);
    dJointSetHinge2Anchor(j, ref[0] + c[0], ref[1] + c[1], ref[2] + c[2]);
    double zb[3] = {0, 0, 1}, yb[3] = {0, -1, 0}, a1[3], a2[3]; /* axle -y: forward spin > 0 */
    rot(R, zb, a1), rot(R, yb, a2);
    dReal A1[4] = {a1[0], a1[1], a1[2], 0}, A2[4] = {a2[0], a2[1], a2[2], 0};
    dJointSetHinge2Axes(j, A1, A2);
    double h = d->dt, k = p->spring_N_per_m, cd = p->frictionless ? 0 : p->damper_Ns_per_m;
    dJointSetHinge2Param(j, dParamSuspensionERP, h * k / (h * k + cd));
    dJointSetHinge2Param(j, dParamSuspensionCFM, 1 / (h * k + cd));
    dJointSetHinge2Param(j, dParamLoStop, 0);
    dJointSetHinge2Param(j, dParamHiStop, 0);
    dJointSetHinge2Param(j, dParamStopERP, 0.9);
    dJointSetHinge2Param(j, dParamStopCFM, 1e-8);
}

static trv_status make_world(trv_ctx *ctx, sim_dyn *d, sim_dyn *with, const sim_state *s0)
{
    ode_init();
    trv_status st = sim_dyn_world_join(ctx, d, with);
    if (st)
        return st;
    d->space = dSimpleSpaceCreate(0);
    d->contacts = dJointGroupCreate(0);
    dWorldSetGravity(d->world, d->p.gravity[0], d->p.gravity[1], d->p.gravity[2]);
    dWorldSetERP(d->world, 0.2);
    dWorldSetCFM(d->world, 1e-9);
    dWorldSetContactSurfaceLayer(d->world, 0.001);
    d->ox = with ? with->ox : s0->x, d->oy = with ? with->oy : s0->y; /* a shared world's frame: the first's */
    d->tag_ground = (dyn_tag){DYN_GROUND, 0};
    st = sim_dyn_terrain_new(ctx, d->space, d->f, d->ox, d->oy, s0->x, s0->y, &d->tag_ground, &d->terrain);
    if (st)
        return st;
    double z, pitch, roll;
    if (sim_contact(d->f, &d->b, s0->x, s0->y, s0->heading, &z, &pitch, &roll))
        return trv_error(ctx, TRV_ERR_DATA, "dynamics: the vehicle's start is off the DEM");
    dMatrix3 R;
    attitude(s0->heading, pitch, roll, R);
    double ms = d->p.mass_kg - 4 * d->p.unsprung_kg, sag = ms * G / (4 * d->p.spring_N_per_m);
    double ref[3] = {s0->x - d->ox, s0->y - d->oy, z};
    make_chassis(d, ref, R, sag);
    for (int w = 0; w < 4; w++) {
        make_wheel(d, w, ref, R);
        d->w_nom[w] = d->p.mass_kg * G / 4;
    }
    d->v = s0->v, d->steer = s0->steer, d->yaw = s0->yaw_rate, d->vy = s0->vy;
    return TRV_OK;
}

trv_status sim_dyn_new(trv_ctx *ctx, const sim_body *b, const sim_dyn_params *p, const sim_field *f,
                       const sim_state *s0, double dt, sim_dyn **out)
{
    return sim_dyn_new_in(ctx, NULL, b, p, f, s0, dt, out);
}

trv_status sim_dyn_new_in(trv_ctx *ctx, sim_dyn *with, const sim_body *b, const sim_dyn_params *p,
                          const sim_field *f, const sim_state *s0, double dt, sim_dyn **out)
{
    *out = NULL;
    if (!(p->mass_kg > 4 * p->unsprung_kg) || !(p->spring_N_per_m > 0) || !(p->tyre_N_per_m > 0) || !(b->wheel_radius_m > 0) ||
        !(dt > 0) || !(p->cg_h_m > 0))
        return trv_error(ctx, TRV_ERR_DATA, "dynamics: the vehicle needs a mass above its wheels', a spring, "
                                            "a tyre stiffness, a wheel radius and a centre of mass height > 0");
    sim_dyn *d = calloc(1, sizeof *d);
    if (!d)
        return trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
    d->b = *b, d->p = *p, d->f = f, d->dt = dt;
    trv_status st = make_world(ctx, d, with, s0);
    if (st) {
        sim_dyn_free(d);
        return st;
    }
    *out = d;
    return TRV_OK;
}

void sim_dyn_free(sim_dyn *d)
{
    if (!d)
        return;
    sim_dyn_terrain_free(d->terrain);
    if (d->contacts)
        dJointGroupDestroy(d->contacts);
    if (d->space)
        dSpaceDestroy(d->space); /* destroys the geoms left in it */
    sim_dyn_world_leave(d);      /* and the bodies and joints */
    free(d->vwas), free(d->vnow);
    for (int k = 0; k < d->nobs; k++)
        free(d->obs_planes[k]), free(d->obs_points[k]), free(d->obs_faces[k]);
    free(d->obs_planes), free(d->obs_points), free(d->obs_faces), free(d->obs_c);
    free(d->obs), free(d->obs_geom), free(d->obs_body), free(d->obs_tag);
    free(d->box_geom), free(d->box_body), free(d->box_tag);
    free(d->was), free(d->now);
    free(d);
}

static double body_speed(const sim_dyn *d)
{
    const dReal *R = dBodyGetRotation(d->chassis), *lv = dBodyGetLinearVel(d->chassis);
    return lv[0] * R[0] + lv[1] * R[4] + lv[2] * R[8];
}

/* The commands lagged as sim_step lags them (the speed kept within 1 m/s
 * of the vehicle's: the wheels spin no faster than that). */
static void lag_commands(sim_dyn *d, const sim_cmd *cmd, double dt)
{
    const sim_body *b = &d->b;
    double v_want = b->top_speed_ms > 0 ? clampd(cmd->v, -b->top_speed_ms, b->top_speed_ms) : cmd->v;
    double vs = body_speed(d);
    /* traction control: the lagged speed at most 1 m/s from the actual one */
    d->v = clampd(sim_lag(d->v, v_want, b->tau_speed_s, dt), vs - 1, vs + 1);
    if (b->kind == SIM_ACKERMANN) {
        double st = b->max_steer_rad > 0 ? clampd(cmd->steer, -b->max_steer_rad, b->max_steer_rad) : cmd->steer;
        d->steer = sim_lag(d->steer, st, b->tau_steer_s, dt);
    } else {
        d->yaw = sim_lag(d->yaw, cmd->yaw_rate, b->tau_steer_s, dt);
        if (b->kind == SIM_MECANUM)
            d->vy = sim_lag(d->vy, cmd->vy, b->tau_speed_s, dt);
    }
}

/* Wheel speeds (rad/s) the commands ask for, and the front wheels'
 * steering angles (Ackermann: an ideal differential, each wheel at the
 * speed of its own circle about the turn's centre on the rear axle; v
 * the reference point's speed). */
static void wheel_targets(const sim_dyn *d, double w[4], double steer[2])
{
    const sim_body *b = &d->b;
    double r = b->wheel_radius_m, L = b->wheelbase_m, t = b->track_m, v = d->v;
    steer[0] = steer[1] = 0;
    if (b->kind == SIM_MECANUM) {
        sim_mecanum_inverse(b, v, d->vy, d->yaw, w);
    } else if (b->kind == SIM_SKID) {
        w[0] = w[2] = (v - d->yaw * t / 2) / r;
        w[1] = w[3] = (v + d->yaw * t / 2) / r;
    } else if (fabs(d->steer) < 1e-9) {
        for (int k = 0; k < 4; k++)
            w[k] = v / r;
    } else {
        /* the bicycle: the rear axle's centre on a circle of radius L / tan(delta) */
        double R = L / tan(d->steer), Rref = copysign(hypot(R, L / 2), R); /* > 0: a left turn */
        double Rl = R - t / 2, Rr = R + t / 2;
        steer[0] = atan(L / Rl), steer[1] = atan(L / Rr);
        w[0] = v * copysign(hypot(Rl, L), Rl) / Rref / r;
        w[1] = v * copysign(hypot(Rr, L), Rr) / Rref / r;
        w[2] = v * Rl / Rref / r;
        w[3] = v * Rr / Rref / r;
    }
}

/* Up: against gravity. */
static void up_dir(const sim_dyn *d, double up[3])
{
    double g = sqrt(d->p.gravity[0] * d->p.gravity[0] + d->p.gravity[1] * d->p.gravity[1] +
                    d->p.gravity[2] * d->p.gravity[2]);
    for (int i = 0; i < 3; i++)
        up[i] = g > 0 ? -d->p.gravity[i] / g : i == 2;
}

/* Ackermann, moving the way it wants to go: the force the speed asks
 * for, a PI control F = m ((v_lagged - v) / 0.25 s + I / 1 s),
 * I = the integral of v_lagged - v (within +-2 m/s; while within 0.5
 * m/s of it), plus m g (sin(pitch)
 * + f_rr cos(pitch)) sign(v_lagged) (the grade and rolling resistance fed
 * forward), at most eta P / max(|v|, 1 m/s) driving and m a_brake
 * braking; NAN standing, stopping or reversing, or with a wheel slipping
 * more than TM_SLIP_TRACTION (traction-limited: the differentials locked,
 * as an off-road vehicle's are) (the speed-locked motors then). */
static double drive_force(sim_dyn *d, double v, double fmax_w) /* fmax_w: a quarter of the drive's limit */
{
    if (d->b.kind != SIM_ACKERMANN)
        return NAN;
    double sg = d->v > 0 ? 1 : d->v < 0 ? -1 : 0;
    int spin = 0;
    for (int k = 0; k < 4; k++)
        spin |= fabs(d->slip[k]) > TM_SLIP_TRACTION;
    if (fabs(d->v) < 0.05 || v * sg < 0 || spin) {
        d->vi = 0;
        return NAN;
    }
    const dReal *R = dBodyGetRotation(d->chassis);
    double up[3], g = sqrt(dDOT(d->p.gravity, d->p.gravity));
    up_dir(d, up);
    double xu = R[0] * up[0] + R[4] * up[1] + R[8] * up[2];
    double ff = d->p.mass_kg * g * (xu + d->p.soil.f_rr * sqrt(fmax(1 - xu * xu, 0))) * sg;
    if (fabs(d->v - v) < 0.5) /* no wind-up while the speed is far off */
        d->vi = clampd(d->vi + (d->v - v) * d->dt, -2, 2);
    double F = d->p.mass_kg * ((d->v - v) / 0.25 + d->vi / 1.0) + ff, fb = d->p.mass_kg * d->p.brake_ms2;
    return F * sg > 0 ? clampd(F, -4 * fmax_w, 4 * fmax_w) : clampd(F, -fb, fb);
}

/* F shared equally by the four wheels as torques F r / 4: an open
 * differential, each wheel's speed its own (speed-locked wheels would
 * fight in a turn: a yaw moment the single-track model does not have);
 * none on a wheel spinning faster than 1.5 |v| + 1 m/s (off the ground),
 * no brake on one standing or turning against the motion. */
static void open_diff(const sim_dyn *d, dJointID j, double now, double v, double F)
{
    double sg = d->v > 0 ? 1 : -1, r = d->b.wheel_radius_m;
    if (fabs(now * r) > 1.5 * fabs(v) + 1 || (F * sg < 0 && now * sg <= 0))
        F = 0;
    dJointAddHinge2Torques(j, 0, F * r / 4);
}

/* Motors (drive limited by power and by the soil's thrust at full slip
 * under the wheel's load of the step before, brakes by the deceleration),
 * steering stops, rolling resistance f_rr W cos(grade) at the wheel's
 * centre. */
static void actuate(sim_dyn *d)
{
    double w[4], steer[2], r = d->b.wheel_radius_m, vs = body_speed(d), v = fabs(vs);
    const dReal *R = dBodyGetRotation(d->chassis);
    double zb[3] = {R[2], R[6], R[10]}, cz = sim_dyn_up_dot(d, zb); /* the load: W cos(grade) */
    sim_dyn_soil soil[4];
    double trac[4], fd[4], trac_all = 0;
    for (int k = 0; k < 4; k++) {
        const dReal *pos = dBodyGetPosition(d->wheel[k]);
        sim_dyn_soil_at(d, pos[0] + d->ox, pos[1] + d->oy, &soil[k]);
        /* the soil's thrust at full slip (5 % over: the contact binds, not the drive) */
        trac[k] = 1.05 * soil[k].mu * fmax(d->load[k], 0.25 * d->w_nom[k]) / fmax(cz, 0.5);
        fd[k] = fmin(d->p.power_W / (4 * fmax(v, 1.0)), trac[k]);
        trac_all += trac[k];
    }
    double F = d->p.frictionless ? NAN : drive_force(d, vs, fmin(d->p.power_W / fmax(v, 1.0), trac_all) / 4);
    wheel_targets(d, w, steer);
    for (int k = 0; k < 4; k++) {
        dJointID j = d->hinge[k];
        double a = k < 2 ? steer[k] : 0;
        dJointSetHinge2Param(j, dParamLoStop, -a); /* ODE's angle 1 turns clockwise about axis 1 */
        dJointSetHinge2Param(j, dParamHiStop, -a);
        double now = dJointGetHinge2Angle2Rate(j);
        /* slowing the wheel toward a target of its own sign: the brakes; speeding
         * it up: the engine; reversing it: both */
        double fb = d->p.mass_kg * d->p.brake_ms2 / 4;
        double f = w[k] * now < 0 ? fmax(fd[k], fb) : fabs(w[k]) < fabs(now) ? fb : fd[k];
        if (d->p.frictionless)
            f = 0;
        else if (!isnan(F))
            f = 0, open_diff(d, j, now, vs, F);
        dJointSetHinge2Param(j, dParamVel2, w[k]);
        dJointSetHinge2Param(j, dParamFMax2, f * r);
        if (d->p.frictionless)
            continue;
        /* rolling resistance: along the wheel's rolling direction (its
         * axle's horizontal normal), against its centre's motion */
        dVector3 ax;
        dJointGetHinge2Axis2(j, ax);
        double fw[3] = {ax[1] * zb[2] - ax[2] * zb[1], ax[2] * zb[0] - ax[0] * zb[2], ax[0] * zb[1] - ax[1] * zb[0]};
        const dReal *lv = dBodyGetLinearVel(d->wheel[k]);
        double u = lv[0] * fw[0] + lv[1] * fw[1] + lv[2] * fw[2];
        double fr = -soil[k].f_rr * d->w_nom[k] * cz * clampd(u / 0.05, -1, 1);
        if (d->nfb[k] > 0) /* on the ground in the step before */
            dBodyAddForce(d->wheel[k], fr * fw[0], fr * fw[1], fr * fw[2]);
    }
}

/* Slip, loads and the time each pair of wheels spent off the ground. */
static void wheels_out(sim_dyn *d, sim_dyn_out *out, double dt)
{
    const dReal *R = dBodyGetRotation(d->chassis);
    for (int k = 0; k < 4; k++) {
        double load = 0;
        for (int c = 0; c < d->nfb[k]; c++) {
            const dReal *f = d->fb[k][c].f1;
            load += fabs(f[0] * d->fbn[k][c][0] + f[1] * d->fbn[k][c][1] + f[2] * d->fbn[k][c][2]);
        }
        out->load_N[k] = d->load[k] = load;
        double rim = dJointGetHinge2Angle2Rate(d->hinge[k]) * d->b.wheel_radius_m;
        double a = k < 2 ? -dJointGetHinge2Angle1(d->hinge[k]) : 0;
        const dReal *lv = dBodyGetLinearVel(d->wheel[k]);
        double fx = cos(a) * R[0] + sin(a) * R[1], fy = cos(a) * R[4] + sin(a) * R[5], fz = cos(a) * R[8] + sin(a) * R[9];
        double vw = lv[0] * fx + lv[1] * fy + lv[2] * fz, m = fmax(fabs(rim), fabs(vw));
        out->slip[k] = d->slip[k] = m > 0.05 ? (rim - vw) / m : 0;
    }
    static const int pair[4][2] = {{0, 2}, {1, 3}, {0, 1}, {2, 3}};
    for (int g = 0; g < 4; g++) {
        int off = d->nfb[pair[g][0]] == 0 && d->nfb[pair[g][1]] == 0;
        d->off_s[g] = off ? d->off_s[g] + dt : 0;
        if (d->off_s[g] > d->p.airborne_s)
            out->rollover = 2;
    }
}

/* The pose of the reference point, velocities, and the rollover check. */
static void read_back(sim_dyn *d, sim_state *s, sim_dyn_out *out)
{
    const dReal *R = dBodyGetRotation(d->chassis), *p = dBodyGetPosition(d->chassis);
    const dReal *lv = dBodyGetLinearVel(d->chassis), *av = dBodyGetAngularVel(d->chassis);
    double off[3] = {d->p.cg_x_m, 0, d->hs}, w[3], up[3];
    rot(R, off, w);
    s->x = p[0] - w[0] + d->ox, s->y = p[1] - w[1] + d->oy, s->z = p[2] - w[2];
    s->heading = atan2(R[4], R[0]);
    up_dir(d, up);
    double xu = R[0] * up[0] + R[4] * up[1] + R[8] * up[2], yu = R[1] * up[0] + R[5] * up[1] + R[9] * up[2];
    s->pitch = asin(clampd(xu, -1, 1)), s->roll = asin(clampd(yu, -1, 1));
    s->v = lv[0] * R[0] + lv[1] * R[4] + lv[2] * R[8];
    s->vy = lv[0] * R[1] + lv[1] * R[5] + lv[2] * R[9];
    s->yaw_rate = av[0] * up[0] + av[1] * up[1] + av[2] * up[2];
    s->steer = d->b.kind == SIM_ACKERMANN ? d->steer : 0;
    double h = d->p.cg_h_m;
    if (fabs(s->roll) > atan(d->b.track_m / (2 * h)) || fabs(s->pitch) > atan(d->b.wheelbase_m / (2 * h)))
        out->rollover = 1;
}

void sim_dyn_begin(sim_dyn *d, const sim_cmd *cmd, double t, double dt, sim_dyn_out *out)
{
    memset(out, 0, sizeof *out);
    lag_commands(d, cmd, dt);
    actuate(d);
    sim_dyn_obstacles_at(d, t);
    d->out = out;
    sim_dyn_collide(d);
    d->out = NULL;
}

trv_status sim_dyn_end(trv_ctx *ctx, sim_dyn *d, double dt, sim_state *s, sim_dyn_out *out)
{
    dJointGroupEmpty(d->contacts);
    wheels_out(d, out, dt);
    read_back(d, s, out);
    return sim_dyn_terrain_follow(ctx, d->terrain, s->x, s->y);
}

trv_status sim_dyn_step(trv_ctx *ctx, sim_dyn *d, const sim_cmd *cmd, double t, double dt, sim_state *s,
                        sim_dyn_out *out)
{
    sim_dyn_begin(d, cmd, t, dt, out);
    sim_dyn_world_step(d, dt);
    return sim_dyn_end(ctx, d, dt, s, out);
}

static double body_energy(dBodyID b, const double g[3])
{
    dMass m;
    dBodyGetMass(b, &m);
    const dReal *v = dBodyGetLinearVel(b), *w = dBodyGetAngularVel(b), *p = dBodyGetPosition(b);
    const dReal *R = dBodyGetRotation(b);
    double wb[3], e = 0;
    for (int i = 0; i < 3; i++) /* body-frame angular velocity: R^T w */
        wb[i] = R[i] * w[0] + R[4 + i] * w[1] + R[8 + i] * w[2];
    for (int i = 0; i < 3; i++) {
        e += 0.5 * m.mass * v[i] * v[i] - m.mass * g[i] * p[i];
        for (int j = 0; j < 3; j++)
            e += 0.5 * wb[i] * m.I[4 * i + j] * wb[j];
    }
    return e;
}

void sim_dyn_set_gravity(sim_dyn *d, const double g[3])
{
    for (int i = 0; i < 3; i++)
        d->p.gravity[i] = g[i];
    dWorldSetGravity(d->world, g[0], g[1], g[2]);
}

double sim_dyn_energy(const sim_dyn *d)
{
    double e = body_energy(d->chassis, d->p.gravity);
    for (int k = 0; k < 4; k++)
        e += body_energy(d->wheel[k], d->p.gravity);
    return e;
}

void sim_dyn_wheels(const sim_dyn *d, double xyz[4][3], double spin[4])
{
    for (int k = 0; k < 4; k++) {
        const dReal *p = dBodyGetPosition(d->wheel[k]);
        xyz[k][0] = p[0] + d->ox, xyz[k][1] = p[1] + d->oy, xyz[k][2] = p[2];
        spin[k] = dJointGetHinge2Angle2Rate(d->hinge[k]);
    }
}
