/* The dynamic model on ODE (src/sim/dynamic.h; docs/method.md §5.11)
 * against closed forms, with the bundled UGV (1242 kg, 1.9 m wheelbase,
 * 1.6 m track, r 0.51 m) on synthetic fields of 1 m cells:
 *   - flat ground, 2 m/s, a slow sinusoidal steering: the rear axle's path
 *     lies on the kinematic bicycle's (sim_step, its reference point the
 *     rear axle, driven at the rear axle's speed) within 1 % of the
 *     distance driven;
 *   - steady circles at a fixed steering angle and rising speed: the
 *     steering the turn needs beyond L / R grows with the lateral
 *     acceleration at the linear single-track model's understeer gradient
 *     K = m x_cg / (L C_alpha) (equal axles' stiffness, the centre of
 *     mass x_cg ahead of the midpoint) within 10 %;
 *   - a tilt table (gravity turned slowly about the vehicle's long axis,
 *     stiff suspension): the uphill wheels leave the ground at
 *     atan(track / 2 h) within 1 degree;
 *   - ramps: the climb succeeds at 0.95 and fails at 1.05 of the
 *     traction limit sin b + f cos b = mu (the mobility model's: pull =
 *     the thrust at full slip);
 *   - power-limited on flat ground: the steady speed eta P / (f m g)
 *     within 3 %;
 *   - frictionless and undamped, sliding down a tilted plane for 60 s
 *     (after 30 s to settle on its springs): the energy stays within 0.1 %
 *     of the kinetic energy gained, and the speed gained straight down the
 *     tilt is g sin(tilt) t within 1 % (heading 0.5 rad off it);
 *   - two runs from the same start give the same bytes;
 *   - a head-on obstacle at 8 m/s: one hit at the impact speed (within 5 %)
 *     and the chassis never beyond the obstacle's near face;
 *   - the runner: an obstacle that appears across the route (the blocked
 *     scenario's situation) with a LiDAR: re-plan, goal, no collision; and
 *     the same scenario twice gives byte-identical outputs. */
#include "test_common.h"
#include "test_sim_drive.h"
#include "test_terrain_mem.h"

#include "sim/dynamic.h"

#include <math.h>
#include <ode/ode.h>

#define N 400
#define G 9.80665

static tm_vehicle *TV;
static float *Z;
static sim_field F;

static int setup(void **state)
{
    (void)state;
    geo_init();
    char *p = data_path("vehicles/ugv_hua2022.ini");
    trv_ctx *ctx = trv_ctx_new();
    int bad = !p || tm_vehicle_read(ctx, p, &TV);
    free(p);
    trv_ctx_free(ctx);
    Z = malloc(N * N * sizeof *Z);
    F = (sim_field){Z, N, N, 0.5, N - 0.5, 1, 1, 0, 0};
    return bad || !Z ? -1 : 0;
}

static int teardown(void **state)
{
    (void)state;
    tm_vehicle_free(TV);
    free(Z);
    return 0;
}

/* The field rising at grade g eastward (0: flat), 100 m at x = 0. */
static void field_grade(double g)
{
    for (int j = 0; j < N; j++)
        for (int i = 0; i < N; i++)
            Z[j * N + i] = (float)(100 + g * (i + 0.5));
}

static void vehicle(sim_kind kind, sim_body *b, sim_dyn_params *p)
{
    sim_body_from_vehicle(TV, kind, b);
    sim_dyn_params_default(TV, b, p);
}

static sim_dyn *start(const sim_body *b, const sim_dyn_params *p, double x, double y, double heading, double dt)
{
    trv_ctx *ctx = trv_ctx_new();
    sim_state s0 = {x, y, 0, heading, 0, 0, 0, 0, 0, 0};
    sim_dyn *d = NULL;
    assert_int_equal(sim_dyn_new(ctx, b, p, &F, &s0, dt, &d), TRV_OK);
    trv_ctx_free(ctx);
    return d;
}

static void step(sim_dyn *d, const sim_cmd *c, double t, double dt, sim_state *s, sim_dyn_out *o)
{
    trv_ctx *ctx = trv_ctx_new();
    assert_int_equal(sim_dyn_step(ctx, d, c, t, dt, s, o), TRV_OK);
    trv_ctx_free(ctx);
}

/* Distance from (x, y) to the polyline px, py (n points). */
static double to_polyline(const double *px, const double *py, int n, double x, double y)
{
    double best = INFINITY;
    for (int i = 0; i + 1 < n; i++) {
        double ex = px[i + 1] - px[i], ey = py[i + 1] - py[i], l2 = ex * ex + ey * ey;
        double u = l2 > 0 ? ((x - px[i]) * ex + (y - py[i]) * ey) / l2 : 0;
        u = u < 0 ? 0 : u > 1 ? 1 : u;
        best = fmin(best, hypot(x - px[i] - u * ex, y - py[i] - u * ey));
    }
    return best;
}

static void test_low_speed_bicycle(void **state)
{
    (void)state;
    field_grade(0);
    sim_body b;
    sim_dyn_params p;
    vehicle(SIM_ACKERMANN, &b, &p);
    const double dt = 0.01, V = 2, L = b.wheelbase_m;
    const int n = 6000;
    sim_dyn *d = start(&b, &p, 200, 200, 0, dt);
    double *kx = malloc(n * sizeof *kx), *ky = malloc(n * sizeof *ky), *dx = malloc(n * sizeof *dx),
           *dy = malloc(n * sizeof *dy);
    sim_state sk = {200 - L / 2, 200, 0, 0, 0, 0, 0, 0, 0, 0}, sd = sk;
    sim_body bk = b; /* the bicycle at the rear axle's speed, steered as the vehicle is */
    bk.tau_speed_s = 0;
    double dist = 0;
    for (int i = 0; i < n; i++) {
        sim_cmd c = {V, 0, 0.3 * sin(i * dt / 5), 0}, ck = c;
        sim_dyn_out o;
        ck.v = i ? hypot(sd.v, sd.vy - sd.yaw_rate * L / 2) : 0;
        sim_step(&bk, &sk, &ck, dt);
        step(d, &c, i * dt, dt, &sd, &o);
        kx[i] = sk.x, ky[i] = sk.y;
        dx[i] = sd.x - cos(sd.heading) * L / 2, dy[i] = sd.y - sin(sd.heading) * L / 2;
        dist += fabs(sd.v) * dt;
    }
    double worst = 0;
    for (int i = 0; i < n; i++)
        worst = fmax(worst, to_polyline(kx, ky, n, dx[i], dy[i]));
    printf("  low speed: %.1f m driven, the rear axle at most %.3f m (%.2f %%) off the bicycle's path\n", dist, worst,
           100 * worst / dist);
    assert_true(dist > 100);
    assert_true(worst < 0.01 * dist);
    free(kx), free(ky), free(dx), free(dy);
    sim_dyn_free(d);
}

/* Steady turn at steering delta and speed V: the yaw rate after 30 s
 * (mean over the last 5 s) and the rear axle's speed *vr then. */
static double steady_yaw(const sim_body *b, const sim_dyn_params *p, double delta, double V, double *vr)
{
    const double dt = 0.01;
    sim_dyn *d = start(b, p, 200, 200, 0, dt);
    sim_state s;
    double w = 0;
    *vr = 0;
    for (int i = 0; i < 3000; i++) {
        sim_cmd c = {V, 0, delta, 0};
        sim_dyn_out o;
        step(d, &c, i * dt, dt, &s, &o);
        if (i >= 2500) { /* the reference point's velocity less yaw x L / 2 sideways: the rear axle's */
            w += s.yaw_rate / 500;
            *vr += hypot(s.v, s.vy - s.yaw_rate * b->wheelbase_m / 2) / 500;
        }
    }
    sim_dyn_free(d);
    return w;
}

static void test_understeer_gradient(void **state)
{
    (void)state;
    field_grade(0);
    sim_body b;
    sim_dyn_params p;
    vehicle(SIM_ACKERMANN, &b, &p);
    p.cg_x_m = 0.3;
    double m = p.mass_kg, L = b.wheelbase_m, x_cg = (m - 4 * p.unsprung_kg) * p.cg_x_m / m;
    double K = m * x_cg / (L * p.cornering_N_per_rad); /* rad per m/s^2: (m / L)(b / C_f - a / C_r), C = 2 C_alpha */
    const double delta = 0.1, speeds[] = {2, 3, 4, 5, 6};
    double sx = 0, sy = 0, sxx = 0, sxy = 0;
    for (int k = 0; k < 5; k++) {
        double vr, w = steady_yaw(&b, &p, delta, speeds[k], &vr), R = vr / w, ay = vr * w;
        double extra = delta - atan(L / R); /* beyond the kinematic angle (R: the rear axle's) */
        sx += ay, sy += extra, sxx += ay * ay, sxy += ay * extra;
        printf("  circle: V %.1f m/s R %.2f m a_y %.3f m/s^2 delta - L/R %.5f rad\n", vr, R, ay, extra);
    }
    double slope = (5 * sxy - sx * sy) / (5 * sxx - sx * sx);
    printf("  understeer gradient %.6f rad/(m/s^2), single-track model %.6f (%.1f %%)\n", slope, K,
           100 * (slope / K - 1));
    assert_true(fabs(slope / K - 1) < 0.10);
}

static void test_static_rollover(void **state)
{
    (void)state;
    field_grade(0);
    sim_body b;
    sim_dyn_params p;
    vehicle(SIM_ACKERMANN, &b, &p);
    p.spring_N_per_m *= 100, p.tyre_N_per_m *= 100; /* a rigid vehicle: the closed form's */
    p.soil.mu = 3;
    double want = sim_dyn_rollover_threshold(&b, &p);
    const double dt = 0.005;
    sim_dyn *d = start(&b, &p, 200, 200, 0, dt);
    sim_state s;
    sim_dyn_out o;
    sim_cmd c = {0, 0, 0, 0};
    double lift = NAN;
    for (int i = 0; i < 40000 && isnan(lift); i++) {
        double th = i < 400 ? 0 : (i - 400) * dt * 1.0 * M_PI / 180; /* 1 degree a second */
        double g[3] = {0, -G * sin(th), -G * cos(th)};             /* downhill: -y, the right side */
        sim_dyn_set_gravity(d, g);
        step(d, &c, i * dt, dt, &s, &o);
        if (i > 400 && o.load_N[0] < 1 && o.load_N[2] < 1)
            lift = th;
    }
    printf("  tilt table: the uphill wheels lift at %.3f deg, atan(t / 2h) = %.3f deg\n", lift * 180 / M_PI,
           want * 180 / M_PI);
    assert_true(fabs(lift - want) < M_PI / 180);
    sim_dyn_free(d);
}

/* Metres climbed in 30 s at 1 m/s wanted on the grade beta. */
static double climb(const sim_body *b, const sim_dyn_params *p, double beta)
{
    field_grade(tan(beta));
    const double dt = 0.01;
    sim_dyn *d = start(b, p, 100, 200, 0, dt);
    sim_state s;
    sim_dyn_out o;
    double x0 = NAN;
    for (int i = 0; i < 3000; i++) {
        sim_cmd c = {1, 0, 0, 0};
        step(d, &c, i * dt, dt, &s, &o);
        if (i == 0)
            x0 = s.x;
    }
    sim_dyn_free(d);
    return (s.x - x0) / cos(beta);
}

static void test_climbing_limit(void **state)
{
    (void)state;
    sim_body b;
    sim_dyn_params p;
    vehicle(SIM_ACKERMANN, &b, &p);
    p.soil = (sim_dyn_soil){0.6, 0.1, 0.05};
    /* sin b + f cos b = mu: b = asin(mu / sqrt(1 + f^2)) - atan(f) */
    double f = p.soil.f_rr, lim = asin(p.soil.mu / sqrt(1 + f * f)) - atan(f);
    double below = climb(&b, &p, 0.95 * lim), above = climb(&b, &p, 1.05 * lim);
    printf("  ramp: limit %.2f deg; at 0.95 of it %.2f m climbed in 30 s, at 1.05 %.2f m\n", lim * 180 / M_PI, below,
           above);
    assert_true(below > 3);
    assert_true(above < 0.5);
}

static void test_energy(void **state)
{
    (void)state;
    field_grade(0);
    sim_body b;
    sim_dyn_params p;
    vehicle(SIM_ACKERMANN, &b, &p);
    p.frictionless = 1;
    const double dt = 0.01, th = 0.3 * M_PI / 180;
    p.gravity[0] = G * sin(th), p.gravity[2] = -G * cos(th);
    sim_dyn *d = start(&b, &p, 100, 200, 0.5, dt);
    sim_state s;
    sim_dyn_out o;
    sim_cmd c = {0, 0, 0, 0};
    /* settle on the springs: undamped, their bounce dies only through
     * ODE's implicit (backward Euler) spring, whose energy is not counted */
    for (int i = 0; i < 3000; i++)
        step(d, &c, i * dt, dt, &s, &o);
    double e0 = sim_dyn_energy(d), x0 = s.x, emax = 0, e = e0;
    double u0 = s.v * cos(s.heading) - s.vy * sin(s.heading); /* eastward speed */
    for (int i = 0; i < 6000; i++) {
        step(d, &c, i * dt, dt, &s, &o);
        e = sim_dyn_energy(d);
        emax = fmax(emax, fabs(e - e0));
    }
    /* frictionless: it slides straight down the tilt, whatever its heading (0.5 rad) */
    double du = s.v * cos(s.heading) - s.vy * sin(s.heading) - u0, want = G * sin(th) * 60;
    printf("  frictionless: eastward speed gained %.4f m/s, g sin(tilt) x 60 s = %.4f m/s\n", du, want);
    assert_true(fabs(du / want - 1) < 0.01);
    double gained = p.mass_kg * G * sin(th) * (s.x - x0); /* the potential energy given up */
    printf("  frictionless: slid %.1f m in 60 s, energy drift at most %.3f J of %.0f J gained (%.4f %%)\n", s.x - x0,
           emax, gained, 100 * emax / gained);
    assert_true(s.x - x0 > 50);
    assert_true(emax < 1e-3 * gained);
    sim_dyn_free(d);
}

/* Power-limited on flat ground: eta P / max(v, 1 m/s) against the rolling
 * resistance f m g: the steady speed eta P / (f m g) (2 m/s here, 5 m/s
 * wanted). */
static void test_power_limit(void **state)
{
    (void)state;
    field_grade(0);
    sim_body b;
    sim_dyn_params p;
    vehicle(SIM_ACKERMANN, &b, &p);
    p.soil = (sim_dyn_soil){0.8, 0.1, 0.02};
    double want = 2.0;
    p.power_W = want * p.soil.f_rr * p.mass_kg * G;
    const double dt = 0.02;
    sim_dyn *d = start(&b, &p, 100, 200, 0, dt);
    sim_state s;
    sim_dyn_out o;
    double v = 0;
    for (int i = 0; i < 6000; i++) {
        sim_cmd c = {5, 0, 0, 0};
        step(d, &c, i * dt, dt, &s, &o);
        if (i >= 5500)
            v += s.v / 500;
    }
    printf("  power limit: steady %.4f m/s, eta P / (f m g) = %.4f m/s\n", v, want);
    assert_true(fabs(v / want - 1) < 0.03);
    sim_dyn_free(d);
}

static void test_same_bytes(void **state)
{
    (void)state;
    field_grade(0.05);
    sim_body b;
    sim_dyn_params p;
    vehicle(SIM_SKID, &b, &p);
    sim_state s[2][200];
    for (int run = 0; run < 2; run++) {
        sim_dyn *d = start(&b, &p, 150, 200, 0.3, 0.02);
        sim_dyn_out o;
        for (int i = 0; i < 200 * 10; i++) {
            sim_cmd c = {3, 0, 0, 0.2 * sin(i * 0.01)};
            sim_state st;
            step(d, &c, i * 0.02, 0.02, &st, &o);
            if (i % 10 == 0)
                s[run][i / 10] = st;
        }
        sim_dyn_free(d);
    }
    assert_memory_equal(s[0], s[1], sizeof s[0]);
    assert_true(fabs(s[0][199].x - s[0][0].x) > 10);
}

static void test_head_on_obstacle(void **state)
{
    (void)state;
    field_grade(0);
    sim_body b;
    sim_dyn_params p;
    vehicle(SIM_ACKERMANN, &b, &p);
    sim_obstacle ob = {.id = "rock", .cx = 240, .cy = 200, .r = 1, .height_m = 2, .base_z = 100,
                       .disappear_s = INFINITY};
    const double dt = 0.02, V = 8;
    sim_dyn *d = start(&b, &p, 200, 200, 0, dt);
    trv_ctx *ctx = trv_ctx_new();
    assert_int_equal(sim_dyn_set_obstacles(ctx, d, &ob, 1), TRV_OK);
    trv_ctx_free(ctx);
    sim_state s;
    sim_dyn_out o;
    int hits = 0;
    double speed = NAN, v_before = 0, v_hit = NAN, front_max = 0;
    for (int i = 0; i < 1000; i++) {
        sim_cmd c = {V, 0, 0, 0};
        v_before = i ? s.v : 0;
        step(d, &c, i * dt, dt, &s, &o);
        front_max = fmax(front_max, s.x + b.length_m / 2 * cos(s.heading));
        for (int k = 0; k < o.nhits; k++) {
            hits++;
            if (hits == 1)
                speed = o.hit[k].speed, v_hit = v_before;
        }
    }
    printf("  head-on: hit at %.3f m/s (speed before %.3f), %d hit(s) in all (bounces), the front at most %.3f m "
           "past the rock's face\n", speed, v_hit, hits, front_max - 239);
    assert_true(hits >= 1);
    assert_true(fabs(speed - v_hit) < 0.05 * v_hit);
    assert_true(v_hit > 0.9 * V);
    assert_true(front_max < 239 + 0.35); /* one step's travel at most */
    sim_dyn_free(d);
}

/* ---- the runner ----------------------------------------------------------------- */

#define NXY 200
#define X0 500000.0
#define Y0 4000400.0

static prm_terrain T;
static int dyn_test_tag; /* the test heightfield's geom data */
static char *tmp;

static void terrain(void)
{
    assert_int_equal(test_terrain_flat(&T, NXY, NXY, X0, Y0, 2.0), 0);
}

static char *scenario_text(const char *veh, const char *obs)
{
    char *s = NULL;
    assert_true(asprintf(&s,
                         "[scenario]\ntime_limit_s = 300\ndynamics = dynamic\nobstacles = %s\n"
                         "[vehicle.a]\nfile = %s\nmodel = ackermann\nstart = %.2f,%.2f\ngoal = %.2f,%.2f\nsrs = map\n"
                         "[lidar2d.a]\nrate_hz = 10\nhres_deg = 1\nrange_m = 30\nmount_h_m = 0.8\n",
                         obs, veh, X0 + 20, Y0 - 200, X0 + 380, Y0 - 200) >= 0);
    return s;
}

static void run_once(const char *name, const char *text, sim_run **run, sim_scenario **sc)
{
    test_sim_drive(tmp, name, text, &T, run, sc);
    trv_ctx *ctx = trv_ctx_new();
    trv_outset *set = trv_outset_new();
    char *out = NULL;
    assert_true(asprintf(&out, "%s/%s_out", tmp, name) >= 0);
    assert_int_equal(sim_run_write(ctx, set, *run, out, NULL, 0), TRV_OK);
    assert_int_equal(trv_outset_commit(ctx, set), TRV_OK);
    trv_outset_free(set);
    free(out);
    trv_ctx_free(ctx);
}

static char *slurp_out(const char *name, const char *file)
{
    char *p = NULL;
    assert_true(asprintf(&p, "%s/%s_out/%s", tmp, name, file) >= 0);
    FILE *f = fopen(p, "rb");
    assert_non_null(f);
    char *buf = calloc(1, 1 << 22);
    size_t n = fread(buf, 1, (1 << 22) - 1, f);
    buf[n] = 0;
    fclose(f);
    free(p);
    return buf;
}

static void test_run_blocked(void **state)
{
    (void)state;
    terrain();
    tmp = make_tmpdir();
    char *rel = data_path("vehicles/ugv_hua2022.ini"), *veh = realpath(rel, NULL), *obs = NULL;
    free(rel);
    assert_true(asprintf(&obs,
                         "{\"type\": \"FeatureCollection\", \"crs\": {\"type\": \"name\", \"properties\": {\"name\": "
                         "\"urn:ogc:def:crs:EPSG::32616\"}}, \"features\": [{\"type\": \"Feature\", \"properties\": "
                         "{\"id\": \"wall\", \"height_m\": 2, \"appear_s\": 5}, \"geometry\": {\"type\": \"Polygon\", "
                         "\"coordinates\": [[[%.1f, %.1f], [%.1f, %.1f], [%.1f, %.1f], [%.1f, %.1f], [%.1f, %.1f]]]}}]}\n",
                         X0 + 150, Y0 - 210, X0 + 154, Y0 - 210, X0 + 154, Y0 - 190, X0 + 150, Y0 - 190, X0 + 150,
                         Y0 - 210) >= 0);
    char *obs_path = write_file(tmp, "wall.geojson", obs);
    char *text = scenario_text(veh, obs_path);
    sim_run *run[2];
    sim_scenario *sc[2];
    run_once("a", text, &run[0], &sc[0]);
    run_once("b", text, &run[1], &sc[1]);
    const sim_metrics *m = sim_run_metrics(run[0], 0);
    printf("  blocked, dynamic: goal %d (%s) in %.1f s, %d replans, %d collisions, xte max %.3f m\n", m->reached_goal,
           m->end, m->time_s, m->replans, m->collisions, m->cross_track_max_m);
    assert_int_equal(m->reached_goal, 1);
    assert_int_equal(m->collisions, 0);
    assert_true(m->replans >= 1);
    static const char *files[] = {"trajectory_a.csv", "events.jsonl", "metrics.json"};
    for (int i = 0; i < 3; i++) {
        char *x = slurp_out("a", files[i]), *y = slurp_out("b", files[i]);
        if (i == 2) { /* the same but the scenario's name */
            assert_non_null(strstr(x, "\"rollover_margin_deg\""));
            assert_string_equal(strstr(x, "\"seed\""), strstr(y, "\"seed\""));
        } else {
            assert_string_equal(x, y);
        }
        free(x), free(y);
    }
    for (int k = 0; k < 2; k++)
        sim_run_free(run[k]), sim_scenario_free(sc[k]);
    free(text), free(obs), free(obs_path), free(veh);
    rm_rf(tmp);
    free(tmp);
    prm_terrain_clear(&T);
}

/* ---- vehicles against vehicles (one world; method 5.11, Collisions) ------------- */

/* Vehicle b in with's world (NULL: its own). */
static sim_dyn *start_in(sim_dyn *with, const sim_body *b, const sim_dyn_params *p, double x, double y,
                         double heading, double dt)
{
    trv_ctx *ctx = trv_ctx_new();
    sim_state s0 = {x, y, 0, heading, 0, 0, 0, 0, 0, 0};
    sim_dyn *d = NULL;
    assert_int_equal(sim_dyn_new_in(ctx, with, b, p, &F, &s0, dt, &d), TRV_OK);
    trv_ctx_free(ctx);
    return d;
}

/* One step of the n (<= 4) vehicles of one world toward their commands;
 * the first nd driven, the others parked (no out). */
static void step_all(sim_dyn **d, int n, int nd, const sim_cmd *c, double t, double dt, sim_state *s,
                     sim_dyn_out *o)
{
    trv_ctx *ctx = trv_ctx_new();
    sim_dyn_out *po[4] = {NULL};
    for (int i = 0; i < nd; i++)
        sim_dyn_begin(d[i], &c[i], t, dt, &o[i]), po[i] = &o[i];
    assert_int_equal(sim_dyn_collide_vehicles(ctx, d, n, po), TRV_OK);
    sim_dyn_world_step(d[0], dt);
    for (int i = 0; i < nd; i++)
        assert_int_equal(sim_dyn_end(ctx, d[i], dt, &s[i], &o[i]), TRV_OK);
    trv_ctx_free(ctx);
}

/* The first hit with vehicle q in o, its speed (NAN: none). */
static double vehicle_hit(const sim_dyn_out *o, int q)
{
    for (int k = 0; k < o->nhits; k++)
        if (o->hit[k].tag == -1 - q)
            return o->hit[k].speed;
    return NAN;
}

typedef struct pair_run {
    double closing;         /* v_a - v_b along x in the step before the first touch */
    double hit[2];          /* the hit speed each vehicle got */
    double dp, bound;       /* |change of the pair's x momentum| across the impact; its bound */
    double exchanged;       /* |change of a's x momentum| across the impact */
    double sep;             /* v_b - v_a after it (separating: > 0) */
    double gap_min;         /* least x_b - x_a */
    double b_moved;         /* b's travel from its start to the end (its wheels' centres) */
    int nhits[2];           /* hits each vehicle got with the other */
    sim_state last[2];
} pair_run;

/* Where d's wheels' centres are, on average (x). */
static double wheels_x(const sim_dyn *d)
{
    double xyz[4][3], spin[4];
    sim_dyn_wheels(d, xyz, spin);
    return (xyz[0][0] + xyz[1][0] + xyz[2][0] + xyz[3][0]) / 4;
}

/* Two equal Ackermann vehicles on flat ground, a at x = 190 heading east
 * at va, b at 210 heading west at vb (its own forward speed; parked: a
 * parked body, sim_dyn_set_mode); the commands 0 (the drive off: brakes)
 * from the first touch on. The impact window: the step of the first
 * touch and W - 1 more. */
#define W 3
static void pair(double va, double vb, int parked, pair_run *pr)
{
    field_grade(0);
    sim_body b;
    sim_dyn_params p;
    vehicle(SIM_ACKERMANN, &b, &p);
    p.soil = (sim_dyn_soil){0.8, 0.1, 0.02};
    const double dt = 0.01;
    sim_dyn *d[2];
    d[0] = start_in(NULL, &b, &p, 190, 200, 0, dt);
    d[1] = start_in(d[0], &b, &p, 210, 200, M_PI, dt);
    if (parked)
        sim_dyn_set_mode(d[1], SIM_DYN_PARKED);
    sim_state s[2] = {{0}};
    sim_dyn_out o[2];
    int touch = -1;
    double p0 = 0, pa0 = 0, va0 = 0, vb0 = 0, x_b0 = wheels_x(d[1]);
    memset(pr, 0, sizeof *pr);
    pr->gap_min = INFINITY, pr->hit[0] = pr->hit[1] = NAN;
    for (int i = 0; i < 600; i++) {
        sim_cmd c[2] = {{touch < 0 ? va : 0, 0, 0, 0}, {touch < 0 ? vb : 0, 0, 0, 0}};
        double pa[3], pb[3];
        sim_dyn_momentum(d[0], pa), sim_dyn_momentum(d[1], pb);
        double vxa = s[0].v * cos(s[0].heading), vxb = s[1].v * cos(s[1].heading);
        step_all(d, 2, parked ? 1 : 2, c, i * dt, dt, s, o);
        if (parked)
            s[1].x = wheels_x(d[1]), s[1].v = 0, s[1].heading = M_PI, o[1].nhits = 0;
        pr->gap_min = fmin(pr->gap_min, s[1].x - s[0].x);
        for (int v = 0; v < 2; v++)
            pr->nhits[v] += !isnan(vehicle_hit(&o[v], 1 - v));
        if (touch < 0 && (!isnan(vehicle_hit(&o[0], 1)) || !isnan(vehicle_hit(&o[1], 0)))) {
            touch = i, p0 = pa[0] + pb[0], pa0 = pa[0], va0 = vxa, vb0 = vxb;
            pr->closing = vxa - vxb, pr->hit[0] = vehicle_hit(&o[0], 1), pr->hit[1] = vehicle_hit(&o[1], 0);
        }
        if (touch >= 0 && i < touch + W) { /* the ground's horizontal force: at most mu N + f_rr W a wheel */
            for (int v = 0; v < 2; v++)
                for (int w = 0; w < 4; w++)
                    pr->bound += (p.soil.mu * o[v].load_N[w] + p.soil.f_rr * p.mass_kg * G / 4) * dt;
        }
        if (touch >= 0 && i == touch + W - 1) {
            sim_dyn_momentum(d[0], pa), sim_dyn_momentum(d[1], pb);
            pr->dp = fabs(pa[0] + pb[0] - p0), pr->exchanged = fabs(pa[0] - pa0);
            pr->sep = s[1].v * cos(s[1].heading) - s[0].v * cos(s[0].heading);
        }
    }
    (void)va0, (void)vb0;
    pr->b_moved = fabs(wheels_x(d[1]) - x_b0);
    pr->last[0] = s[0], pr->last[1] = s[1];
    sim_dyn_free(d[1]), sim_dyn_free(d[0]);
}

static void test_vehicles_head_on(void **state)
{
    (void)state;
    pair_run pr, again;
    pair(6, 2, 0, &pr);
    const double e = 0.3;
    printf("  head-on, 6 and 2 m/s: closing %.3f m/s, hits %.3f and %.3f m/s; x momentum changed %.1f kg m/s "
           "across the impact (%d steps), bound %.1f, exchanged %.1f (%.2f %%); separating at %.3f m/s "
           "(e x closing %.3f); gap at least %.3f m\n",
           pr.closing, pr.hit[0], pr.hit[1], pr.dp, W, pr.bound, pr.exchanged, 100 * pr.dp / pr.exchanged, pr.sep,
           e * pr.closing, pr.gap_min);
    assert_true(pr.closing > 7);
    assert_int_equal(pr.nhits[0], 1); /* one contact, not one a step */
    assert_int_equal(pr.nhits[1], 1);
    assert_true(pr.hit[0] == pr.hit[1]);
    assert_true(fabs(pr.hit[0] / pr.closing - 1) < 0.05);
    assert_true(pr.dp <= pr.bound);
    assert_true(pr.dp < 0.03 * pr.exchanged);
    /* equal masses: each velocity changes by (1 + e) closing / 2 */
    assert_true(fabs(pr.exchanged / (1242 * (1 + e) * pr.closing / 2) - 1) < 0.1);
    assert_true(pr.sep > 0);
    assert_true(pr.gap_min > 3.0 - 0.1); /* the chassis 3 m long: never more than a step's travel into each other */
    pair(6, 2, 0, &again);
    assert_memory_equal(pr.last, again.last, sizeof pr.last);
}

/* A vehicle at 6 m/s into one standing (braked): the one hit moves off at
 * (1 + e) / 2 of the speed (equal masses) and is pushed on. */
static void test_vehicle_hits_parked(void **state)
{
    (void)state;
    pair_run pr;
    pair(6, 0, 0, &pr);
    double want = (1 + 0.3) / 2 * pr.closing, got = pr.exchanged / 1242;
    printf("  into a standing one at %.3f m/s: hits %.3f and %.3f m/s, its speed change %.3f m/s ((1 + e) / 2 x "
           "closing %.3f); it moved %.2f m\n", pr.closing, pr.hit[0], pr.hit[1], got, want, pr.b_moved);
    assert_true(pr.hit[0] == pr.hit[1]);
    assert_true(fabs(pr.hit[1] / pr.closing - 1) < 0.05);
    assert_true(fabs(got / want - 1) < 0.1);
    assert_true(pr.b_moved > 1);
    /* parked for good (a run that ended): a fixed body, a bounces back at e x closing */
    pair(6, 0, 1, &pr);
    printf("  into a parked one at %.3f m/s: hit %.3f m/s, back at %.3f m/s (e x closing %.3f), it moved %.4f m\n",
           pr.closing, pr.hit[0], pr.sep, 0.3 * pr.closing, pr.b_moved);
    assert_int_equal(pr.nhits[0], 1);
    assert_true(fabs(pr.hit[0] / pr.closing - 1) < 0.05);
    assert_true(fabs(pr.sep / (0.3 * pr.closing) - 1) < 0.15);
    assert_true(pr.b_moved < 1e-9);
}

/* ---- skid-steer and Mecanum on ODE against closed forms (method 5.11) ------------ */

/* An angle into (-pi, pi]. */
static double wrap(double a) { return atan2(sin(a), cos(a)); }

/* Janosi-Hanamoto's g(i) with x = i L / K, written out again. */
static double jh_g(double x) { return 1 - (1 - exp(-x)) / x; }

/* Skid-steer turning on the spot (track speeds -+ Omega t / 2): the
 * lateral force of each wheel saturates (C_alpha alpha >> mu W at the
 * slip angle atan(L / t)) at mu W, a moment 2 mu W L about the centre,
 * the rolling resistance 2 f_rr W t; the tracks' thrust F a wheel, 2 F t.
 * Steady: F = W (mu L / t + f_rr), and with Janosi-Hanamoto's
 * F = mu W g(i) / g(1): g(i) = g(1) (L / t + f_rr / mu), the yaw rate
 * Omega (1 - i) = (v_r - v_l) / B_eff, B_eff = t / (1 - i). A wheelbase
 * below the track (1 m, 1.6 m): with L > t the lateral resistance beats
 * the thrust and a four-wheeled skid-steer cannot turn on the spot. */
static void test_skid_on_the_spot(void **state)
{
    (void)state;
    field_grade(0);
    sim_body b;
    sim_dyn_params p;
    vehicle(SIM_SKID, &b, &p);
    b.wheelbase_m = 1.0;
    p.soil = (sim_dyn_soil){0.8, 0.1, 0.02};
    double L = b.wheelbase_m, t = b.track_m, kl = p.soil.k_over_l, Om = 0.5;
    double want_g = jh_g(1 / kl) * (L / t + p.soil.f_rr / p.soil.mu), lo = 1e-6, hi = 1;
    for (int k = 0; k < 60; k++) { /* g rises with i */
        double mid = 0.5 * (lo + hi);
        if (jh_g(mid / kl) < want_g)
            lo = mid;
        else
            hi = mid;
    }
    double i = 0.5 * (lo + hi), want = Om * (1 - i);
    const double dt = 0.01;
    sim_dyn *d = start(&b, &p, 200, 200, 0, dt);
    sim_state s;
    sim_dyn_out o;
    double w = 0, drift = 0;
    for (int k = 0; k < 2000; k++) {
        sim_cmd c = {0, 0, 0, Om};
        step(d, &c, k * dt, dt, &s, &o);
        if (k >= 1500)
            w += s.yaw_rate / 500;
        drift = fmax(drift, hypot(s.x - 200, s.y - 200));
    }
    printf("  skid on the spot: yaw rate %.4f rad/s for (v_r - v_l) / t = %.4f; slip model: i %.4f, B_eff %.3f m, "
           "%.4f rad/s (%.2f %%); the centre within %.3f m\n", w, Om, i, t / (1 - i), want, 100 * (w / want - 1),
           drift);
    assert_true(fabs(w / want - 1) < 0.02);
    assert_true(drift < 0.2);
    sim_dyn_free(d);
}

/* Skid-steer at equal track speeds: straight, the heading within 0.5
 * degree a 100 m. */
static void test_skid_straight(void **state)
{
    (void)state;
    field_grade(0);
    sim_body b;
    sim_dyn_params p;
    vehicle(SIM_SKID, &b, &p);
    const double dt = 0.01;
    sim_dyn *d = start(&b, &p, 100, 200, 0.4, dt);
    sim_state s, s0 = {0};
    sim_dyn_out o;
    for (int k = 0; k < 4000; k++) {
        sim_cmd c = {3, 0, 0, 0};
        step(d, &c, k * dt, dt, &s, &o);
        if (k == 500)
            s0 = s;
    }
    double dist = hypot(s.x - s0.x, s.y - s0.y), drift = fabs(wrap(s.heading - s0.heading)) * 180 / M_PI;
    printf("  skid straight: %.1f m, heading drift %.4f deg (%.4f deg / 100 m)\n", dist, drift, drift * 100 / dist);
    assert_true(dist > 90);
    assert_true(drift * 100 / dist < 0.5);
    sim_dyn_free(d);
}

/* Mecanum at a velocity (vx, vy) wanted (body frame) for 20 s: the
 * velocity over the last 5 s (body frame), the heading's change and the
 * wheels' mean |spin| then. */
static void mecanum(double vx, double vy, double *ux, double *uy, double *yaw_deg, double *spin)
{
    field_grade(0);
    sim_body b;
    sim_dyn_params p;
    vehicle(SIM_MECANUM, &b, &p);
    const double dt = 0.01, h = 0.3;
    sim_dyn *d = start(&b, &p, 200, 200, h, dt);
    sim_state s;
    sim_dyn_out o;
    double x0 = 0, y0 = 0, h0 = 0;
    *spin = 0;
    for (int k = 0; k < 2000; k++) {
        sim_cmd c = {vx, vy, 0, 0};
        step(d, &c, k * dt, dt, &s, &o);
        if (k == 1499)
            x0 = s.x, y0 = s.y, h0 = s.heading;
        if (k >= 1500) {
            double xyz[4][3], w[4];
            sim_dyn_wheels(d, xyz, w);
            for (int q = 0; q < 4; q++)
                *spin += fabs(w[q]) / (4 * 500);
        }
    }
    double dx = (s.x - x0) / 5, dy = (s.y - y0) / 5;
    *ux = dx * cos(h0) + dy * sin(h0), *uy = -dx * sin(h0) + dy * cos(h0);
    *yaw_deg = wrap(s.heading - h) * 180 / M_PI;
    sim_dyn_free(d);
}

static void test_mecanum_sideways_diagonal(void **state)
{
    (void)state;
    sim_body b;
    sim_body_from_vehicle(TV, SIM_MECANUM, &b);
    double r = b.wheel_radius_m, ux, uy, yaw, spin;
    mecanum(0, 1, &ux, &uy, &yaw, &spin);
    printf("  Mecanum sideways: %.4f m/s across, %.4f along, r w %.4f m/s (%.2f %%), yaw drift %.3f deg in 20 s\n", uy,
           ux, r * spin, 100 * (uy / (r * spin) - 1), yaw);
    assert_true(fabs(uy / (r * spin) - 1) < 0.05);
    assert_true(fabs(uy - 1) < 0.05);
    assert_true(fabs(ux) < 0.05);
    assert_true(fabs(yaw) < 1);
    mecanum(M_SQRT1_2, M_SQRT1_2, &ux, &uy, &yaw, &spin);
    double dir = atan2(uy, ux) * 180 / M_PI, sp = hypot(ux, uy);
    printf("  Mecanum diagonal: along %.2f deg at %.4f m/s (1 wanted), yaw drift %.3f deg in 20 s\n", dir, sp, yaw);
    assert_true(fabs(dir - 45) < 2);
    assert_true(fabs(sp - 1) < 0.05);
    assert_true(fabs(yaw) < 1);
}

/* ---- vehicle against vehicle in the runner ---------------------------------------- */

/* The first collision line of vehicle id in events (NULL: none), its
 * impact speed's text into speed (the rest of the line). */
static const char *first_collision(const char *events, const char *id, char *speed, size_t n)
{
    char key[64];
    snprintf(key, sizeof key, "\"vehicle\": \"%s\", \"type\": \"collision\"", id);
    const char *l = strstr(events, key), *sp = l ? strstr(l, "\"impact_speed_ms\": ") : NULL;
    if (!sp)
        return NULL;
    snprintf(speed, n, "%.*s", (int)strcspn(sp, "}\n"), sp);
    while (l > events && l[-1] != '\n')
        l--; /* the line's start: {"t": ... */
    return l;
}

/* Two vehicles on one straight route, b starting 1 s after a from the
 * same place (a a couple of metres on: they touch as b appears; before,
 * b is not in the world): both get a collision with the other at the
 * same impact speed, not before b starts; the same bytes twice. */
static void test_run_vehicles_touch(void **state)
{
    (void)state;
    terrain();
    tmp = make_tmpdir();
    char *rel = data_path("vehicles/ugv_hua2022.ini"), *veh = realpath(rel, NULL), *text = NULL;
    free(rel);
    assert_true(asprintf(&text,
                         "[scenario]\ntime_limit_s = 30\ndynamics = dynamic\n"
                         "[vehicle.a]\nfile = %s\nmodel = ackermann\nstart = %.2f,%.2f\ngoal = %.2f,%.2f\nsrs = map\n"
                         "[vehicle.b]\nfile = %s\nmodel = ackermann\nstart = %.2f,%.2f\ngoal = %.2f,%.2f\nsrs = map\n"
                         "start_time_s = 1\n",
                         veh, X0 + 20, Y0 - 200, X0 + 380, Y0 - 200, veh, X0 + 20, Y0 - 200, X0 + 380, Y0 - 200) >= 0);
    sim_run *run[2];
    sim_scenario *sc[2];
    run_once("a", text, &run[0], &sc[0]);
    run_once("b", text, &run[1], &sc[1]);
    char *ev = slurp_out("a", "events.jsonl"), *ev2 = slurp_out("b", "events.jsonl"), sa[64], sb[64];
    const char *la = first_collision(ev, "a", sa, sizeof sa), *lb = first_collision(ev, "b", sb, sizeof sb);
    printf("  runner, b appears 1 s after a at its start:\n    %.*s\n    %.*s\n", la ? (int)strcspn(la, "\n") : 4,
           la ? la : "none", lb ? (int)strcspn(lb, "\n") : 4, lb ? lb : "none");
    assert_non_null(la);
    assert_non_null(lb);
    assert_non_null(strstr(la, "\"id\": \"b\""));
    assert_non_null(strstr(lb, "\"id\": \"a\""));
    assert_string_equal(sa, sb);
    assert_true(atof(la + 6) >= 1.0 - 1e-9); /* {"t": ... */
    assert_string_equal(ev, ev2);
    free(ev), free(ev2);
    for (int k = 0; k < 2; k++)
        sim_run_free(run[k]), sim_scenario_free(sc[k]);
    free(text), free(veh);
    rm_rf(tmp);
    free(tmp);
    prm_terrain_clear(&T);
}

/* ---- wheels on a convex edge of the ground (docs/method.md 5.11) ---------- */

/* A roof: faces falling at slope s = tan(a) both ways from a ridge along
 * the sample column ir (x = ir + 0.5, height 100 m). */
static void field_roof(double s, int ir)
{
    for (int j = 0; j < N; j++)
        for (int i = 0; i < N; i++)
            Z[j * N + i] = (float)(100 - s * abs(i - ir));
}

/* The distance from (u, H) (across the ridge, above its height) to the
 * roof of slope angle a: within the ridge's Voronoi wedge |u| <= H tan a
 * the distance to the ridge line, else to the nearer face's plane. */
static double roof_distance(double u, double H, double a)
{
    return fabs(u) <= H * tan(a) ? hypot(u, H) : (H + tan(a) * fabs(u)) * cos(a);
}

/* sim_dyn_terrain_sphere against the roof's closed form: a sphere of
 * r = 0.51 m at H = 0.45 m above the ridge, across it (u from -0.6 to
 * 0.6 m): in contact exactly where the distance is below r, the depth
 * r - distance, the normal from the nearest point (the ridge's: along
 * (u, H); a face's: the face's); under a face: the face's normal, depth
 * r + the distance below it. ODE's heightfield collider, for the record
 * (its plane pass only: a sphere under 1.5 cells): how many of these
 * contacts it misses. */
static void test_ridge_contact(void **state)
{
    (void)state;
    const double a = 20 * M_PI / 180, r = 0.51, H = 0.45, xr = N / 2 + 0.5, y = 200;
    field_roof(tan(a), N / 2);
    sim_body b;
    sim_dyn_params p;
    vehicle(SIM_ACKERMANN, &b, &p);
    sim_dyn_free(start(&b, &p, 100, 200, 0, 0.02)); /* ODE initialised */
    trv_ctx *ctx = trv_ctx_new();
    sim_dyn_terrain *t = NULL;
    dyn_test_tag = 0;
    assert_int_equal(sim_dyn_terrain_new(ctx, NULL, &F, 0, 0, xr, y, &dyn_test_tag, &t), TRV_OK);
    dGeomID hf = sim_dyn_terrain_geom(t), sphere = dCreateSphere(0, r);
    int inside = 0, ode_missed = 0;
    double worst = 0;
    for (int k = -30; k <= 30; k++) {
        double u = k * 0.02, c[3] = {xr + u, y + 0.3, 100 + H}, pos[3], n[3], depth;
        double dist = roof_distance(u, H, a);
        int hit = sim_dyn_terrain_sphere(t, c, r, pos, n, &depth);
        assert_int_equal(hit, dist < r);
        if (!hit)
            continue;
        inside++;
        double nu = fabs(u) <= H * tan(a) ? u / hypot(u, H) : copysign(sin(a), u);
        double nz = fabs(u) <= H * tan(a) ? H / hypot(u, H) : cos(a);
        worst = fmax(worst, fabs(depth - (r - dist)));
        assert_true(fabs(depth - (r - dist)) < 1e-5); /* heights are floats */
        assert_true(fabs(n[0] - nu) < 1e-5 && fabs(n[1]) < 1e-5 && fabs(n[2] - nz) < 1e-5);
        assert_true(fabs(pos[0] - (c[0] - r * n[0])) < 1e-12 && fabs(pos[2] - (c[2] - r * n[2])) < 1e-12);
        dGeomSetPosition(sphere, c[0], c[1], c[2]);
        dContactGeom cg[4];
        ode_missed += dCollide(sphere, hf, 4, cg, sizeof *cg) == 0;
    }
    /* under the east face, 5 m out, 0.1 m below it */
    double c[3] = {xr + 5, y, 100 - 5 * tan(a) - 0.1}, pos[3], n[3], depth;
    assert_int_equal(sim_dyn_terrain_sphere(t, c, r, pos, n, &depth), 1);
    assert_true(fabs(depth - (r + 0.1 * cos(a))) < 1e-5);
    assert_true(fabs(n[0] - sin(a)) < 1e-5 && fabs(n[2] - cos(a)) < 1e-5);
    printf("  ridge of 2 x 20 deg: %d of 61 positions in contact, depth within %.1e m of r - distance; "
           "ODE's heightfield collider misses %d of them\n",
           inside, worst, ode_missed);
    assert_true(inside > 20);
    dGeomDestroy(sphere);
    sim_dyn_terrain_free(t);
    /* the same roof with its ridge along the cells' diagonals B-C
     * (i + j = 400: x - y = 1 here), its faces at a again: across it */
    for (int j = 0; j < N; j++)
        for (int i = 0; i < N; i++)
            Z[j * N + i] = (float)(100 - tan(a) / sqrt(2) * abs(i + j - 400));
    assert_int_equal(sim_dyn_terrain_new(ctx, NULL, &F, 0, 0, 200.5, 199.5, &dyn_test_tag, &t), TRV_OK);
    for (int k = -5; k <= 5; k++) {
        double u = k * 0.03, w = 0.35, q = sqrt(0.5);
        double cd[3] = {200.5 + (u + w) * q, 199.5 + (w - u) * q, 100 + H};
        assert_int_equal(sim_dyn_terrain_sphere(t, cd, r, pos, n, &depth), 1);
        assert_true(fabs(depth - (r - roof_distance(u, H, a))) < 1e-5);
    }
    sim_dyn_terrain_free(t);
    /* flat at 100 m but sample (ia, ja) 1 m up: its cell's triangle A B C
     * (u + w <= 1, u east, w south) is z = 101 - u - w, up normal
     * (1, -1, 1) / sqrt 3; D B C stays flat. Centres 0.1 m under each. */
    const int ia = 150, ja = 150;
    for (int k = 0; k < N * N; k++)
        Z[k] = 100;
    Z[ja * N + ia] = 101;
    assert_int_equal(sim_dyn_terrain_new(ctx, NULL, &F, 0, 0, ia + 0.5, N - 0.5 - ja, &dyn_test_tag, &t), TRV_OK);
    double xa = F.x0 + ia, ya = F.y0 - ja, s3 = sqrt(3);
    double c1[3] = {xa + 0.2, ya - 0.2, 101 - 0.4 - 0.1}, c2[3] = {xa + 0.8, ya - 0.8, 100 - 0.1};
    assert_int_equal(sim_dyn_terrain_sphere(t, c1, r, pos, n, &depth), 1);
    assert_true(fabs(depth - (r + 0.1 / s3)) < 1e-5);
    assert_true(fabs(n[0] - 1 / s3) < 1e-5 && fabs(n[1] + 1 / s3) < 1e-5 && fabs(n[2] - 1 / s3) < 1e-5);
    assert_int_equal(sim_dyn_terrain_sphere(t, c2, r, pos, n, &depth), 1);
    assert_true(fabs(depth - (r + 0.1)) < 1e-5 && fabs(n[2] - 1) < 1e-9);
    sim_dyn_terrain_free(t);
    trv_ctx_free(ctx);
}

/* The UGV driven at 3 m/s along a 2 x 10 degree ridge (the demo's
 * failure: its right wheels rolled along a cell edge on a 25 degree
 * climb), its right wheels' centres about 0.1 m east of the ridge line
 * and drifting onto it: every wheel stays on the ground for 10 s (with
 * ODE's collider the front right lost it 6.6 s in, in the band
 * |u| < r sin 10 deg = 0.089 m), its centre r - the tyre's deflection
 * from the roof (the closed form above: never 5 cm nearer). */
static void test_ridge_drive(void **state)
{
    (void)state;
    const double a = 10 * M_PI / 180, xr = N / 2 + 0.5, dt = 0.02;
    field_roof(tan(a), N / 2);
    sim_body b;
    sim_dyn_params p;
    vehicle(SIM_ACKERMANN, &b, &p);
    double r = b.wheel_radius_m, x = xr + 0.2 - b.track_m / 2;
    sim_dyn *d = start(&b, &p, x, 150, M_PI / 2, dt);
    sim_state s;
    sim_dyn_out o;
    double near = INFINITY, lmin = INFINITY;
    int off = 0;
    for (int i = 0; i < 500; i++) {
        sim_cmd c = {3, 0, 0, 0};
        step(d, &c, i * dt, dt, &s, &o);
        double xyz[4][3], spin[4];
        sim_dyn_wheels(d, xyz, spin);
        for (int w = 0; w < 4 && i >= 50; w++) {
            off |= o.rollover != 0;
            lmin = fmin(lmin, o.load_N[w]);
            near = fmin(near, roof_distance(xyz[w][0] - xr, xyz[w][2] - 100, a));
        }
    }
    printf("  along a ridge: least wheel load %.0f N, a wheel's centre at least %.3f m from the roof (r %.2f m), "
           "%.1f m driven\n", lmin, near, r, s.y - 150);
    assert_false(off);
    assert_true(lmin > 0);
    assert_true(near > r - 0.05);
    assert_true(s.y - 150 > 20);
    sim_dyn_free(d);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_low_speed_bicycle), cmocka_unit_test(test_understeer_gradient),
        cmocka_unit_test(test_static_rollover),   cmocka_unit_test(test_climbing_limit),
        cmocka_unit_test(test_energy),            cmocka_unit_test(test_power_limit),
        cmocka_unit_test(test_same_bytes),
        cmocka_unit_test(test_head_on_obstacle),  cmocka_unit_test(test_run_blocked),
        cmocka_unit_test(test_vehicles_head_on),  cmocka_unit_test(test_vehicle_hits_parked),
        cmocka_unit_test(test_skid_on_the_spot),  cmocka_unit_test(test_skid_straight),
        cmocka_unit_test(test_mecanum_sideways_diagonal), cmocka_unit_test(test_run_vehicles_touch),
        cmocka_unit_test(test_ridge_contact),     cmocka_unit_test(test_ridge_drive),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
