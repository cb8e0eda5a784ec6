/* The run, stepping (setup.c sets the vehicles up from the scenario: route
 * file or a plan): the vehicles are stepped together with one dt: sensing (GNSS / IMU errors, LiDAR into the
 * seen map, re-planning), the yield rule, speed from the profile, the
 * controller, the model, terrain contact, and the checks (tip-over,
 * collisions, goal). See sim.h, runner section. */
#include "dynamic_run.h"
#include "sim_priv.h"
#include "local_planner.h"
#include "rollover_limit.h"
#include "lidar_record.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define G 9.80665
#define STAND_MS 0.1
#define CREEP_MS 0.3
#define MAX_REPLANS 500

const char *sim_event_name(sim_event_type t)
{
    static const char *const names[] = {"start", "goal", "collision", "tip_over", "off_map", "obstacle_seen",
                                        "replan", "stuck", "yield", "time_limit", "ride_limit", "closed",
                                        "conflict", "obstacle_added", "obstacle_removed", "rollover"};
    return (unsigned)t < sizeof names / sizeof *names ? names[t] : "unknown";
}

static void event(sim_run *r, int k, sim_event_type type, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* s as the body of a JSON string for an event's details: quotes,
 * backslashes and control characters escaped, cut before a whole
 * character (escape or UTF-8 sequence) to fit buf[64], so that the
 * details stay JSON. */
static const char *json_esc(const char *s, char buf[64])
{
    size_t n = 0;
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        int w = c == '"' || c == '\\' ? 2 : c < 0x20 ? 6 : 1;
        if (n + w >= 64) {
            /* not inside a UTF-8 sequence: drop its lead and continuation bytes */
            while (n > 0 && ((unsigned char)buf[n - 1] & 0xC0) == 0x80)
                n--;
            if (n > 0 && ((unsigned char)buf[n - 1] & 0xC0) == 0xC0)
                n--;
            break;
        }
        if (w == 2)
            buf[n++] = '\\', buf[n++] = (char)c;
        else if (w == 6)
            n += (size_t)snprintf(buf + n, 64 - n, "\\u%04x", c);
        else
            buf[n++] = (char)c;
    }
    buf[n] = '\0';
    return buf;
}

static void event(sim_run *r, int k, sim_event_type type, const char *fmt, ...)
{
    if (r->nev == r->capev) {
        int cap = r->capev ? 2 * r->capev : 64;
        sim_event *e = realloc(r->ev, cap * sizeof *e);
        if (!e)
            return; /* an event lost to memory exhaustion: the run goes on */
        r->ev = e, r->capev = cap;
    }
    sim_event *e = &r->ev[r->nev++];
    memset(e, 0, sizeof *e);
    e->t = r->t_now, e->vehicle = k, e->type = type;
    e->x = r->v[k].s.x, e->y = r->v[k].s.y;
    if (fmt) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(e->details, sizeof e->details, fmt, ap);
        va_end(ap);
    }
}

void sim_run_note(sim_run *r, int k, sim_event_type type, const char *details) { event(r, k, type, "%s", details); }
const char *sim_json_esc(const char *s, char buf[64]) { return json_esc(s, buf); }

static double normal(trv_rng *g)
{
    double u1 = trv_rng_uniform(g), u2 = trv_rng_uniform(g);
    return sqrt(-2 * log(1 - u1)) * cos(2 * M_PI * u2);
}

/* ---- the speed profile ---------------------------------------------------------- */

static double cell_speed_ms(const prm_terrain *t, double x, double y)
{
    long i = prm_cell_at(t, x, y);
    if (i < 0)
        return 0;
    float v = t->speed->f32[i];
    return isfinite(v) && v > 0 ? v / 3.6 : 0;
}

/* The vehicle's speed model on the cell at (x, y) at the grade beta along
 * the direction of travel (> 0 uphill), m/s; speed.tif's value without
 * the model, on NOGO cells (gonogo.tif) or on codes its tables do not
 * know. pull (may be NULL): the
 * pull the model finds (N; NAN without it). */
static double speed_at(const sim_run *r, const sim_veh *v, double x, double y, double beta, double *pull)
{
    int limit;
    return sim_veh_speed(r, v, x, y, beta, pull, &limit);
}

double sim_veh_speed(const sim_run *r, const sim_veh *v, double x, double y, double beta, double *pull, int *limit)
{
    if (pull)
        *pull = NAN;
    *limit = -1;
    long c = prm_cell_at(v->t, x, y);
    if (!v->has_tm || c < 0 || !prm_cell_go(v->t, c))
        return cell_speed_ms(v->t, x, y); /* NOGO: speed.tif's 0, as without the model */
    int s = r->env.soil->u8[c], l = r->env.landuse->u8[c];
    if (s == 0 || l == 0 || v->tm.soil_index[s] < 0 || v->tm.landuse_nogo[l] == 2)
        return cell_speed_ms(v->t, x, y);
    /* the map's steepest grade bounds the grade along the path: the
     * bilinear surface between cell centres may be locally steeper than
     * the slope the map was made with, and the map's GO promises both
     * directions up to that slope */
    double sl = v->t->slope->f32[c] * M_PI / 180;
    if (isfinite(sl) && sl >= 0)
        beta = fmax(-sl, fmin(sl, beta));
    tm_speed_at_t o;
    tm_speed_at(&v->tm, s, l, beta, &o);
    if (pull)
        *pull = o.pull_N;
    *limit = (int)o.limit;
    return o.v_ms;
}

trv_status sim_veh_profile(trv_ctx *ctx, const sim_run *r, sim_veh *v)
{
    const sim_path *p = &v->path;
    double len = p->s[p->n - 1];
    double ds = fmin(v->t->cell_m / 2, 5);
    int n = (int)ceil(len / ds) + 1;
    if (n < 2)
        n = 2;
    double *prof = malloc(n * sizeof *prof);
    if (!prof)
        return trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
    ds = len / (n - 1);
    double h = fmax(2.5, fmin(15, v->t->cell_m / 2));
    for (int i = 0; i < n; i++) {
        double s = i * ds, x, y, xa, ya, xb, yb, gx = 0, gy = 0;
        sim_path_point(p, s, &x, &y);
        sim_path_point(p, s - h, &xa, &ya);
        sim_path_point(p, s + h, &xb, &yb);
        /* the grade along the path: the DEM's gradient on the chord's direction */
        double ux = xb - xa, uy = yb - ya, ul = hypot(ux, uy);
        if (v->has_tm)
            sim_gradient(&r->field, x, y, &gx, &gy);
        double beta = ul > 0 && isfinite(gx) && isfinite(gy) ? atan((gx * ux + gy * uy) / ul) : 0;
        double vmax = fmin(v->body.top_speed_ms, fmax(speed_at(r, v, x, y, beta, NULL), 0.5));
        if (s - h > 0 && s + h < len) {
            double turn = fabs(sim_wrap_pi(atan2(yb - y, xb - x) - atan2(y - ya, x - xa)));
            double kappa = turn / h; /* the two chords' midpoints are h apart along the path */
            if (kappa > 1e-9)
                vmax = fmin(vmax, sqrt(r->sc->lat_acc_ms2 / kappa));
            if (ul > 0) /* rollover_limit.h; INFINITY when off */
                vmax = fmin(vmax, fmax(sim_rollover_speed_at(r, v, x, y, ux / ul, uy / ul, kappa), 0.5));
        }
        prof[i] = vmax;
    }
    prof[n - 1] = 0;
    for (int i = n - 2; i >= 0; i--)
        prof[i] = fmin(prof[i], sqrt(prof[i + 1] * prof[i + 1] + 2 * sim_profile_decel(r, v, i * ds, ds) * ds));
    free(v->prof);
    v->prof = prof, v->prof_n = n, v->prof_ds = ds;
    return TRV_OK;
}

static double profile_min(const sim_veh *v, double s0, double s1)
{
    int i0 = (int)floor(s0 / v->prof_ds), i1 = (int)ceil(s1 / v->prof_ds);
    if (i0 < 0)
        i0 = 0;
    if (i1 > v->prof_n - 1)
        i1 = v->prof_n - 1;
    if (i0 > i1)
        i0 = i1;
    double m = INFINITY;
    for (int i = i0; i <= i1; i++)
        m = fmin(m, v->prof[i]);
    return m;
}

/* ---- one step ---------------------------------------------------------------------- */

static sim_obb box_of(const sim_veh *v)
{
    return (sim_obb){v->s.x, v->s.y, v->s.heading, v->body.length_m / 2, v->body.width_m / 2};
}

/* present: started (driving or done) */
static int present(const sim_veh *v) { return v->phase > 0; }

static void finish(sim_run *r, int k, const char *why, int reached)
{
    sim_veh *v = &r->v[k];
    v->phase = 2;
    v->t_done = r->t_now;
    v->m.end = why;
    v->m.reached_goal = reached;
    if (!reached && !v->standing)
        v->m.stops++;
    v->s.v = v->s.vy = v->s.yaw_rate = 0;
}

void sim_run_stop(sim_run *r, int k, const char *why) { finish(r, k, why, 0); }

static void record(sim_run *r, sim_veh *v, double cte)
{
    if (v->nrows == v->caprows) {
        long cap = v->caprows ? 2 * v->caprows : 1024;
        sim_row *rows = realloc(v->rows, cap * sizeof *rows);
        if (!rows)
            return;
        v->rows = rows, v->caprows = cap;
    }
    long c = prm_cell_at(v->t, v->s.x, v->s.y);
    v->rows[v->nrows++] = (sim_row){r->t_now, v->s.x, v->s.y, v->s.z, v->s.heading, v->s.pitch, v->s.roll,
                                    v->s.v, v->s.steer, cte, c >= 0 ? v->t->cls->u8[c] : 0};
}

/* The corridor ahead of a vehicle (its braking distance) holds b? */
static int ahead(const sim_run *r, const sim_veh *a, const sim_veh *b)
{
    double m = r->sc->margin_m;
    double len = a->s.v * a->s.v / (2 * r->sc->decel_ms2) + m + 2;
    double c = cos(a->s.heading), s = sin(a->s.heading), off = a->body.length_m / 2 + len / 2;
    sim_obb cor = {a->s.x + c * off, a->s.y + s * off, a->s.heading, len / 2, a->body.width_m / 2 + m};
    sim_obb bb = box_of(b);
    bb.half_len += m, bb.half_wid += m;
    return sim_obb_overlap(&cor, &bb);
}

void sim_veh_replan_blocked(trv_ctx *ctx, sim_run *r, int k, const char *cause)
{
    sim_veh *v = &r->v[k];
    if (!r->sc->replan || v->spec->local.kind || !sim_seen_path_blocked(&v->seen, v->t, &v->path, v->s_along))
        return;
    prm_path np = {0};
    double wall = 0;
    int local = 0;
    trv_status st = v->m.replans >= MAX_REPLANS ? TRV_ERR_DATA
                                                : sim_replan(r->quiet, &v->seen, v->t, &v->path, v->s_along, v->s.x,
                                                             v->s.y, &np, &wall, &local);
    v->m.replan_wall_s += wall;
    if (!st && !(st = sim_veh_path(ctx, v, np.x, np.y, np.n)) && !(st = sim_veh_profile(ctx, r, v))) {
        v->m.replans++;
        v->hint_ctrl = v->hint_true = 0;
        v->s_along = 0;
        event(r, k, SIM_EV_REPLAN, "\"n\": %d, \"scope\": \"%s\", \"length_m\": %.1f, \"expanded\": %ld%s%s%s",
              v->m.replans, local ? "local" : "global", v->path.s[v->path.n - 1], np.expanded,
              cause ? ", \"cause\": \"" : "", cause ? cause : "", cause ? "\"" : "");
    } else {
        event(r, k, SIM_EV_STUCK, "\"reason\": \"no path around what was seen\"");
        finish(r, k, "stuck", 0);
    }
    prm_path_clear(&np);
}

static void sense(trv_ctx *ctx, sim_run *r, int k)
{
    sim_veh *v = &r->v[k];
    double t = r->t_now;
    if (v->gnss && t >= v->next_gnss) {
        v->gnss_ex = v->gnss->noise * normal(&v->rng);
        v->gnss_ey = v->gnss->noise * normal(&v->rng);
        v->next_gnss = t + 1 / v->gnss->rate_hz;
    }
    if (v->imu && t >= v->next_imu) {
        v->imu_eh = v->imu->noise * normal(&v->rng);
        v->next_imu = t + 1 / v->imu->rate_hz;
    }
    for (int j = 0; j < v->nlidar; j++) {
        if (t < v->next_scan[j])
            continue;
        v->next_scan[j] = t + 1 / v->lidar[j]->rate_hz;
        int nb = 0;
        for (int q = 0; q < r->nv; q++)
            if (q != k && present(&r->v[q])) {
                r->boxes[nb] = box_of(&r->v[q]);
                r->box_z[nb] = r->v[q].s.z;
                r->box_h[nb] = r->v[q].body.height_m;
                nb++;
            }
        sim_world w = {&r->field, r->obs, r->nobs, r->boxes, r->box_z, r->box_h, nb, t, r->hmax, NULL, r->pool};
        if (j == 0)
            sim_ext_scan_begin(v, &w, t);
        int n = sim_lidar_scan(v->lidar[j], &w, &v->s, &v->rng, v->scan, v->scan_cap);
        if (j == 0)
            sim_lidrec_scan(&v->lidrec, r->sc, t, &v->s, v->scan, n); /* lidar_record.h: when recording */
        /* returns from other vehicles stay out of the map (they yield instead) */
        int m = 0;
        for (int i = 0; i < n; i++) {
            const double *h = &v->scan[3 * i];
            int on_vehicle = 0;
            for (int q = 0; q < nb && !on_vehicle; q++) {
                sim_obb b = r->boxes[q];
                b.half_len += 0.3, b.half_wid += 0.3;
                on_vehicle = sim_obb_circle(&b, h[0], h[1], 1e-3);
            }
            if (!on_vehicle) {
                if (m != i)
                    memmove(&v->scan[3 * m], h, 3 * sizeof *h);
                m++;
            }
        }
        long fresh = sim_seen_add(&v->seen, v->t, &r->field, v->scan, m, v->body.step_m);
        if (!fresh)
            continue;
        event(r, k, SIM_EV_OBSTACLE_SEEN, "\"cells\": %ld, \"blocked_total\": %ld", fresh, v->seen.nblocked);
        sim_veh_replan_blocked(ctx, r, k, NULL);
        if (v->phase == 2)
            return;
    }
}

/* Pure pursuit steers straight on when its target lies behind (a plan
 * that leads back, after a dead end): turn at the steering limit (skid,
 * Mecanum: on the spot) toward the side of the target, at creep speed,
 * until it is ahead again. */
static void turn_around(const sim_run *r, const sim_veh *v, const sim_state *est, sim_cmd *cmd)
{
    double s_along, tx, ty;
    int hint = v->hint_ctrl;
    sim_path_project(&v->path, est->x, est->y, &hint, &s_along);
    double look = fmax(r->sc->ctrl.lookahead_min_m, 2 * v->body.length_m);
    sim_path_point(&v->path, s_along + look, &tx, &ty);
    double dx = tx - est->x, dy = ty - est->y, c = cos(est->heading), s = sin(est->heading);
    double xl = dx * c + dy * s, yl = -dx * s + dy * c;
    if (xl > 0 || hypot(dx, dy) < 0.5 * look)
        return;
    double side = yl >= 0 ? 1 : -1;
    if (v->body.kind == SIM_ACKERMANN) {
        cmd->v = fmin(cmd->v, 1.0);
        cmd->steer = side * v->body.max_steer_rad;
    } else {
        cmd->v = 0;
        cmd->vy = 0;
        cmd->yaw_rate = side * 0.5;
    }
}

static void drive(trv_ctx *ctx, sim_run *r, int k, double dt)
{
    sim_veh *v = &r->v[k];
    sense(ctx, r, k);
    if (v->phase != 2 && v->ext.direct) {
        if (v->dyn)
            sim_dynamic_step(ctx, r, k, &v->ext.cmd, dt);
        else
            sim_step(&v->body, &v->s, &v->ext.cmd, dt); /* a client's command (command.c) */
    } else if (v->phase != 2) {
        /* the yield rule */
        int yield_to = -1;
        for (int q = 0; q < r->nv && yield_to < 0; q++) {
            if (q == k || !present(&r->v[q]) || !ahead(r, v, &r->v[q]))
                continue;
            if (q > k && r->v[q].phase == 1 && ahead(r, &r->v[q], v))
                continue; /* both have the other ahead: the earlier one goes */
            yield_to = q;
        }
        if (yield_to >= 0 && !v->yielding)
            event(r, k, SIM_EV_YIELD, "\"to\": \"%s\"", json_esc(r->v[yield_to].spec->id, (char[64]){0}));
        v->yielding = yield_to >= 0;
        double la = fmax(v->s.v, 0) * v->body.tau_speed_s + 1;
        double want = profile_min(v, v->s_along, v->s_along + la);
        double here = speed_at(r, v, v->s.x, v->s.y, v->s.pitch, NULL);
        want = fmin(want, fmax(here, 0.5));
        want = v->yielding || v->gw.hold ? 0 : fmax(want, CREEP_MS);
        sim_state est = v->s;
        est.x += v->gnss_ex, est.y += v->gnss_ey, est.heading += v->imu_eh;
        sim_cmd cmd;
        sim_ctrl_command(&r->sc->ctrl, &v->body, &v->path, &est, want, &v->hint_ctrl, &cmd);
        sim_rollover_cap_cmd(r, v, &est, &cmd); /* rollover_limit.h: nothing when off */
        turn_around(r, v, &est, &cmd);
        sim_local_command(ctx, r, k, &est, want, &cmd); /* local_planner.c */
        if (v->dyn)
            sim_dynamic_step(ctx, r, k, &cmd, dt);
        else
            sim_step(&v->body, &v->s, &cmd, dt);
    }
}

/* One step of the ride: the land use under each corner, the limit's
 * events. */
static void ride(sim_run *r, int k, double ds)
{
    sim_veh *v = &r->v[k];
    double c = cos(v->s.heading), s = sin(v->s.heading), hl = v->body.wheelbase_m / 2, hw = v->body.track_m / 2;
    int codes[4];
    for (int q = 0; q < 4; q++) {
        double along = q < 2 ? hl : -hl, left = q % 2 ? -hw : hw;
        long cell = prm_cell_at(r->t, v->s.x + c * along - s * left, v->s.y + s * along + c * left);
        codes[q] = cell >= 0 ? r->env.landuse->u8[cell] : 0;
    }
    sim_ride_step(v->ride, ds, codes);
    sim_ride_stats st;
    sim_ride_get(v->ride, &st);
    double lim = v->tv->ride_limit_ms2;
    if (v->ride_armed && st.window_rms_ms2 > lim) {
        event(r, k, SIM_EV_RIDE_LIMIT, "\"rms_ms2\": %.3f, \"limit_ms2\": %.3f", st.window_rms_ms2, lim);
        v->m.ride_limit_events++;
        v->ride_armed = 0;
    } else if (!v->ride_armed && st.window_rms_ms2 < 0.8 * lim) {
        v->ride_armed = 1;
    }
}

/* The angle the tip-over check judges: |a| bounded by the slope of the
 * vehicle's cell on its map (slope.tif, Horn's gradient, the one its GO
 * map was made with; method 5.3): the bilinear facets between cell
 * centres take a steeper neighbour's grade half a cell into a GO cell. */
static double tip_angle(const sim_veh *v, double a)
{
    long c = prm_cell_at(v->t, v->s.x, v->s.y);
    double sl = c >= 0 ? v->t->slope->f32[c] * M_PI / 180 : NAN;
    return isfinite(sl) && sl >= 0 ? fmin(fabs(a), sl) : fabs(a);
}

static void check(sim_run *r, int k, double dt)
{
    sim_veh *v = &r->v[k];
    double t = r->t_now;
    double z, pitch, roll;
    if (v->dyn ? sim_dynamic_pose(v, &z, &pitch, &roll)
               : sim_contact(&r->field, &v->body, v->s.x, v->s.y, v->s.heading, &z, &pitch, &roll)) {
        event(r, k, SIM_EV_OFF_MAP, NULL);
        finish(r, k, "off_map", 0);
        return;
    }
    double dz = z - v->s.z;
    v->s.z = z, v->s.pitch = pitch, v->s.roll = roll;
    /* metrics */
    double s_along;
    double cte = sim_path_project(&v->path, v->s.x, v->s.y, &v->hint_true, &s_along);
    v->s_along = s_along;
    double xa, ya, xb, yb;
    sim_path_point(&v->path, s_along - 0.5, &xa, &ya);
    sim_path_point(&v->path, s_along + 0.5, &xb, &yb);
    double he = v->body.kind == SIM_MECANUM ? 0 : sim_wrap_pi(v->s.heading - atan2(yb - ya, xb - xa));
    v->cte2 += cte * cte, v->he2 += he * he, v->nsamp++;
    v->cte_max = fmax(v->cte_max, fabs(cte));
    double speed = hypot(v->s.v, v->s.vy);
    double step_len = sqrt(speed * dt * speed * dt + dz * dz);
    v->m.distance_m += step_len;
    double pull;
    speed_at(r, v, v->s.x, v->s.y, pitch, &pull);
    if (isnan(pull))
        pull = v->tv->gross_mass_kg * G * sin(pitch);
    v->m.energy_kJ += fmax(pull, 0) / 1000 * speed * dt;
    if (v->ride)
        ride(r, k, speed * dt);
    /* standstills */
    if (speed < STAND_MS) {
        if (v->moved && !v->standing)
            v->m.stops++;
        v->standing = 1;
    } else {
        v->standing = 0;
        v->moved = 1;
    }
    if (t >= v->next_record) {
        record(r, v, cte);
        v->next_record = t + r->sc->record_s;
    }
    /* tip-over, collisions, goal */
    if (!v->dyn && (tip_angle(v, roll) > v->body.max_roll_rad || tip_angle(v, pitch) > v->body.max_pitch_rad)) {
        event(r, k, SIM_EV_TIP_OVER, "\"pitch_deg\": %.2f, \"roll_deg\": %.2f", pitch * 180 / M_PI,
              roll * 180 / M_PI);
        finish(r, k, "tip_over", 0);
        return;
    }
    sim_obb box = box_of(v);
    double vr = hypot(box.half_len, box.half_wid);
    for (int j = 0; j < r->nobs && !v->dyn; j++) { /* dynamic: the engine's contacts */
        const sim_obstacle *o = &r->obs[j];
        if (!sim_obstacle_active(o, t))
            continue;
        double ox, oy;
        sim_obstacle_offset(o, t, &ox, &oy);
        if (hypot(o->cx + ox - v->s.x, o->cy + oy - v->s.y) > r->obs_rad[j] + vr)
            continue;
        if (sim_obstacle_hits(o, t, &box)) {
            v->m.collisions++;
            event(r, k, SIM_EV_COLLISION, "\"with\": \"obstacle\", \"id\": \"%s\"", json_esc(o->id, (char[64]){0}));
            finish(r, k, "collision", 0);
            return;
        }
    }
    for (int q = 0; q < r->nv && !v->dyn; q++) {
        if (q == k || !present(&r->v[q]))
            continue;
        sim_obb b = box_of(&r->v[q]);
        if (sim_obb_overlap(&box, &b)) {
            v->m.collisions++;
            event(r, k, SIM_EV_COLLISION, "\"with\": \"vehicle\", \"id\": \"%s\"", json_esc(r->v[q].spec->id, (char[64]){0}));
            finish(r, k, "collision", 0);
            return;
        }
    }
    double len = v->path.s[v->path.n - 1];
    if (hypot(v->s.x - v->goal_x, v->s.y - v->goal_y) <= r->sc->goal_tol_m &&
        s_along >= len - r->sc->goal_tol_m - 1) {
        event(r, k, SIM_EV_GOAL, "\"time_s\": %.3f", t - v->spec->start_time_s);
        finish(r, k, "goal", 1);
    }
}

/* Step i of the loop (t from i dt to (i + 1) dt): the commands due
 * (command.c), starts, the head-on conflicts, driving, checks. 0 when no
 * vehicle was active (the run is over; nothing done) or the conflicts
 * failed (*st). */
static int step(trv_ctx *ctx, sim_run *r, long i, double dt, trv_status *st)
{
    r->t_now = i * dt;
    if (r->env.commands)
        sim_commands_due(ctx, r, i);
    int active = 0;
    for (int k = 0; k < r->nv; k++) {
        sim_veh *v = &r->v[k];
        if (v->phase == 0 && r->t_now >= v->spec->start_time_s - 1e-9) {
            v->phase = 1;
            v->next_record = r->t_now;
            event(r, k, SIM_EV_START, NULL);
            record(r, v, 0);
            v->next_record = r->t_now + r->sc->record_s;
        }
        active += v->phase < 2;
    }
    if (!active || (*st = sim_conflicts_step(ctx, r, i)))
        return 0;
    for (int k = 0; k < r->nv; k++)
        if (r->v[k].phase == 1)
            drive(ctx, r, k, dt);
    if ((*st = sim_dynamic_flush(ctx, r, dt))) /* dynamics: the one world's step */
        return 0;
    r->t_now = (i + 1) * dt;
    for (int k = 0; k < r->nv; k++)
        if (r->v[k].phase == 1) {
            sim_local_clearance(r, k);
            check(r, k, dt);
            if (r->v[k].phase == 2)
                record(r, &r->v[k], r->v[k].nrows ? r->v[k].rows[r->v[k].nrows - 1].cte : 0);
        }
    return 1;
}

/* The end of the run after i steps: the vehicles still going end with
 * the event why (time_limit, or closed: the server's client left), the
 * metrics. */
static void end_run(sim_run *r, long i, long steps, double dt, sim_event_type why)
{
    r->t_now = fmin(i, steps) * dt;
    for (int k = 0; k < r->nv; k++)
        if (r->v[k].phase < 2) {
            event(r, k, why, NULL);
            if (r->v[k].phase == 1)
                record(r, &r->v[k], 0);
            finish(r, k, sim_event_name(why), 0);
        }
    for (int k = 0; k < r->nv; k++) {
        sim_veh *v = &r->v[k];
        sim_metrics *m = &v->m;
        m->time_s = v->t_done - v->spec->start_time_s;
        if (m->time_s < 0)
            m->time_s = 0;
        m->cross_track_rms_m = v->nsamp ? sqrt(v->cte2 / v->nsamp) : 0;
        m->cross_track_max_m = v->cte_max;
        m->heading_rms_deg = v->nsamp ? sqrt(v->he2 / v->nsamp) * 180 / M_PI : 0;
        m->sim_time_s = r->t_now;
        m->yields = sim_run_count(r, k, SIM_EV_YIELD);
        if (v->ride) {
            sim_ride_stats rs;
            sim_ride_get(v->ride, &rs);
            m->ride_rms_ms2 = rs.rms_ms2, m->ride_max_ms2 = rs.max_ms2;
            m->ride_power_W = tm_vehicle_corners(v->tv) * rs.power_corner_W;
        }
    }
}

static long nsteps(const sim_run *r) { return (long)ceil(r->sc->time_limit_s / r->sc->step_s - 1e-9); }

trv_status sim_run_go(trv_ctx *ctx, sim_run *r)
{
    double w0 = trv_now_s();
    const double dt = r->sc->step_s;
    long steps = nsteps(r);
    trv_status st = TRV_OK;
    long i;
    for (i = 0; i < steps; i++) {
        if (!step(ctx, r, i, dt, &st))
            break;
        int report = i % 20000 == 0;
        if (r->env.realtime && i % 5 == 0) {
            double ahead_s = r->t_now - (trv_now_s() - w0);
            if (ahead_s > 0) {
                struct timespec ts = {(time_t)ahead_s, (long)((ahead_s - floor(ahead_s)) * 1e9)};
                nanosleep(&ts, NULL);
            }
            report = 1; /* paced to the wall clock: a stop request is seen within a few steps */
        }
        if (report) {
            double done = 0;
            for (int k = 0; k < r->nv; k++) {
                const sim_veh *v = &r->v[k];
                done += v->phase == 2 ? 1 : v->s_along / v->path.s[v->path.n - 1];
            }
            if ((st = trv_progress(ctx, fmin(done / r->nv, 0.999), "sim")))
                break;
        }
    }
    if (!st) {
        end_run(r, i, steps, dt, SIM_EV_TIME_LIMIT);
        st = trv_progress(ctx, 1, "sim");
    }
    r->wall_s = trv_now_s() - w0;
    return st;
}

int sim_run_advance(trv_ctx *ctx, sim_run *r, long n)
{
    long steps = nsteps(r);
    double w0 = trv_now_s();
    trv_status st = TRV_OK;
    for (; n > 0 && !r->over; n--) {
        if (r->step_i >= steps || !step(ctx, r, r->step_i, r->sc->step_s, &st)) {
            if (st)
                break; /* the run stays where it is: the caller reports the failure */
            end_run(r, r->step_i, steps, r->sc->step_s, SIM_EV_TIME_LIMIT);
            r->over = 1;
        } else {
            r->step_i++;
        }
    }
    r->wall_s += trv_now_s() - w0;
    return st ? -1 : r->over;
}

void sim_run_close(sim_run *r)
{
    if (!r->over)
        end_run(r, r->step_i, nsteps(r), r->sc->step_s, SIM_EV_CLOSED);
    r->over = 1;
}

double sim_run_time(const sim_run *r) { return r->step_i * r->sc->step_s; }

int sim_run_nvehicles(const sim_run *r) { return r->nv; }
const sim_metrics *sim_run_metrics(const sim_run *r, int k) { return &r->v[k].m; }
int sim_run_nevents(const sim_run *r) { return r->nev; }
const sim_event *sim_run_event(const sim_run *r, int i) { return &r->ev[i]; }
double sim_run_wall_s(const sim_run *r) { return r->wall_s; }

int sim_run_count(const sim_run *r, int k, sim_event_type t)
{
    int n = 0;
    for (int i = 0; i < r->nev; i++)
        n += r->ev[i].type == t && (k < 0 || r->ev[i].vehicle == k);
    return n;
}
