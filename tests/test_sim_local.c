/* The local planners (src/sim/local_planner.h, docs/method.md §5.12)
 * against hand-computed values: the primary polar histogram of one
 * obstacle point (magnitude a - b d^2 over the sectors of its enlargement
 * angle), the binary histogram's hysteresis, the masked histogram's
 * turning limits, VFH+ candidates and cost, wu2020's dynamic thresholds,
 * each sieving case, the path-tree costs and the lambda conditions, the
 * dynamic window, DWA's dist / heading and its choice on a hand case; the
 * trap of the VFH* paper (VFH+ turns into a pocket that VFH* sees to be
 * closed); and on a flat in-memory terrain (as test_sim_run.c) each
 * planner drives past an obstacle that appears on its route, without a
 * collision, to the goal, with its clearance metrics. */
#include "test_common.h"
#include "test_terrain_mem.h"

#include "sim/local_planner.h"

#include <math.h>

#define DEG (M_PI / 180)

/* ---- histograms ----------------------------------------------------------------- */

static void test_primary(void **state)
{
    (void)state;
    sim_polar_cfg c = {72, 10, 2};
    double h[72];
    /* one point 5 m north: m = (1 + 10^2) - 5^2 = 76, gamma = asin(2 / 5) = 23.58 deg:
     * sectors 70..110 deg (k = 14..22) */
    double p[2] = {3, 9};
    sim_polar_primary(&c, 3, 4, p, 1, h);
    for (int k = 0; k < 72; k++)
        assert_float_equal(h[k], k >= 14 && k <= 22 ? 76 : 0, 1e-9);
    /* 1.5 m east, inside r_rs: the half plane |k alpha| <= 90 deg, m = 101 - 2.25 */
    double q[2] = {4.5, 4};
    sim_polar_primary(&c, 3, 4, q, 1, h);
    for (int k = 0; k < 72; k++)
        assert_float_equal(h[k], (k <= 18 || k >= 54) ? 98.75 : 0, 1e-9);
    /* both: they add; a point beyond R adds nothing */
    double pq[6] = {3, 9, 4.5, 4, 3, 14.5};
    sim_polar_primary(&c, 3, 4, pq, 3, h);
    assert_float_equal(h[18], 76 + 98.75, 1e-9);
    assert_float_equal(h[20], 76, 1e-9);
    assert_float_equal(h[36], 0, 1e-9);
}

static void test_binary(void **state)
{
    (void)state;
    double h[3] = {0.5, 1.5, 3};
    unsigned char bin[3] = {0, 0, 0};
    sim_polar_binary(h, 3, 1, 2, bin);
    assert_int_equal(bin[0], 0), assert_int_equal(bin[1], 0), assert_int_equal(bin[2], 1);
    unsigned char was[3] = {1, 1, 0};
    sim_polar_binary(h, 3, 1, 2, was); /* between the thresholds the old value stays */
    assert_int_equal(was[0], 0), assert_int_equal(was[1], 1), assert_int_equal(was[2], 1);
}

static void test_masked(void **state)
{
    (void)state;
    sim_polar_cfg c = {72, 10, 1};
    unsigned char bin[72] = {0}, mask[72];
    /* heading east, turning radius 5: the right circle's centre (0, -5);
     * the point (3, -2) is 4.24 m from it (< 5 + 1) at bearing -33.69 deg:
     * directions right of it are out of reach */
    double p[2] = {3, -2};
    sim_polar_masked(&c, bin, 0, 0, 0, 5, p, 1, mask);
    assert_int_equal(mask[65], 1); /* -35 deg */
    assert_int_equal(mask[66], 0); /* -30 deg */
    assert_int_equal(mask[36], 0); /* back, round the left */
    assert_int_equal(mask[0], 0);
    /* a point outside both circles' reach limits nothing */
    double far[2] = {3, -9};
    sim_polar_masked(&c, bin, 0, 0, 0, 5, far, 1, mask);
    assert_int_equal(mask[60], 0);
    /* no turning limit (Mecanum): only the binary histogram */
    bin[10] = 1;
    sim_polar_masked(&c, bin, 0, 0, 0, 0, p, 1, mask);
    for (int k = 0; k < 72; k++)
        assert_int_equal(mask[k], k == 10);
}

static void test_vfh_candidates_cost(void **state)
{
    (void)state;
    unsigned char m[72] = {0};
    for (int k = 10; k <= 20; k++)
        m[k] = 1;
    int cand[8];
    /* one wide valley 21..9 (61 sectors > 16): 21 + 8, 9 - 8 and the target 0 */
    int nc = sim_vfh_candidates(m, 72, 0, 16, cand, 8);
    assert_int_equal(nc, 3);
    assert_int_equal(cand[0], 29), assert_int_equal(cand[1], 1), assert_int_equal(cand[2], 0);
    /* the target in the blocked part: the two edges only */
    assert_int_equal(sim_vfh_candidates(m, 72, 15, 16, cand, 8), 2);
    /* a narrow valley 30..35: its middle */
    memset(m, 1, sizeof m);
    for (int k = 30; k <= 35; k++)
        m[k] = 0;
    assert_int_equal(sim_vfh_candidates(m, 72, 0, 16, cand, 8), 1);
    assert_int_equal(cand[0], 32);
    /* g = 5 Delta(10, 0) + 2 Delta(10, 5) + 2 Delta(10, 70) = 50 + 10 + 24 */
    const double mu[3] = {5, 2, 2};
    assert_float_equal(sim_vfh_cost(72, 10, 0, 5, 70, mu), 84, 1e-12);
    assert_int_equal(sim_polar_delta(72, 70, 2), 4);
    assert_int_equal(sim_polar_sector(72, -5 * DEG), 71);
}

/* ---- wu2020 -------------------------------------------------------------------------- */

static void test_wu_thresholds(void **state)
{
    (void)state;
    double h[4] = {1, 1, 1, 1}, t1, t2;
    sim_wu_thresholds(h, 4, 1, &t1, &t2); /* mean 1 <= 1.6: T1 = 1.2; 0.5 x 1 < T1 */
    assert_float_equal(t1, 1.2, 1e-12), assert_float_equal(t2, 1.2, 1e-12);
    sim_wu_thresholds(h, 4, 3, &t1, &t2); /* T2 = 0.5 x 9 */
    assert_float_equal(t2, 4.5, 1e-12);
    double g[4] = {0, 0, 4, 4.4}; /* mean 2.1 > 1.6 */
    sim_wu_thresholds(g, 4, 1, &t1, &t2);
    assert_float_equal(t1, 2, 1e-12), assert_float_equal(t2, 2, 1e-12);
}

/* A mask of 180 sectors free only in [s, s + len). */
static void only_free(unsigned char *m, int s, int len)
{
    memset(m, 1, 180);
    for (int k = s; k < s + len; k++)
        m[k % 180] = 0;
}

static void test_wu_sieving(void **state)
{
    (void)state;
    unsigned char m[180] = {0};
    int c[16];
    /* passable all round: the target and +-20 deg (10 sectors) */
    assert_int_equal(sim_wu_candidates(m, 180, 0, c, 16), 3);
    assert_int_equal(c[0], 0), assert_int_equal(c[1], 10), assert_int_equal(c[2], 170);
    /* wider than 80 deg (90..179: 180 deg): 15 deg (8 sectors, rounded) in from each edge, and the target */
    only_free(m, 90, 90);
    assert_int_equal(sim_wu_candidates(m, 180, 135, c, 16), 3);
    assert_int_equal(c[0], 98), assert_int_equal(c[1], 171), assert_int_equal(c[2], 135);
    assert_int_equal(sim_wu_candidates(m, 180, 20, c, 16), 2);
    /* 20 to 80 deg (30..44: 30 deg): the middle 37, and the target 10 deg or more inside */
    only_free(m, 30, 15);
    assert_int_equal(sim_wu_candidates(m, 180, 40, c, 16), 1);
    assert_int_equal(c[0], 37);
    assert_int_equal(sim_wu_candidates(m, 180, 38, c, 16), 2);
    assert_int_equal(c[1], 38);
    /* 10 to 20 deg (50..56: 14 deg): the middle */
    only_free(m, 50, 7);
    assert_int_equal(sim_wu_candidates(m, 180, 0, c, 16), 1);
    assert_int_equal(c[0], 53);
    /* under 10 deg: none */
    only_free(m, 60, 4);
    assert_int_equal(sim_wu_candidates(m, 180, 61, c, 16), 0);
}

static void test_wu_costs(void **state)
{
    (void)state;
    const double l[5] = {5, 3, 0.5, 3, 2};
    /* g(c_n) = 5 x 10 + 3 x 6 */
    assert_float_equal(sim_wu_cost_first(l, 180, 10, 0, 4), 68, 1e-12);
    /* g(c_n+1) = 0.5 x 68 + 3 x 12 + 2 x 2 */
    assert_float_equal(sim_wu_cost_next(l, 180, 68, 12, 0, 10), 74, 1e-12);
    assert_int_equal(sim_wu_lambda_check(l), 0);
    const double b1[5] = {3, 5, 0.5, 3, 2}, b2[5] = {5, 3, 0.5, 2, 3}, b3[5] = {5, 3, 0.7, 3, 2},
                 b4[5] = {5, 3, 0.5, 3, 1.4}, b5[5] = {5, 3, 0, 3, 2};
    assert_int_equal(sim_wu_lambda_check(b1), 1);
    assert_int_equal(sim_wu_lambda_check(b2), 2);
    assert_int_equal(sim_wu_lambda_check(b3), 3);
    assert_int_equal(sim_wu_lambda_check(b4), 4);
    assert_int_equal(sim_wu_lambda_check(b5), 5);
}

/* ---- DWA ---------------------------------------------------------------------------- */

static sim_dwa_cfg dwa_cfg(void)
{
    return (sim_dwa_cfg){.v_max = 3, .acc = 2, .dec = 2, .w_max = 1, .w_acc = 1, .kappa_max = 0, .dt = 0.5,
                         .horizon_s = 3, .r_rs = 1, .dist_max = 10, .nv = 3, .nw = 1, .w_heading = 2,
                         .w_dist = 0.2, .w_vel = 0.2};
}

static void test_dwa(void **state)
{
    (void)state;
    sim_dwa_cfg c = dwa_cfg();
    double win[4];
    sim_dwa_window(&c, 1, 0.2, win); /* [1 - 1, 1 + 1] x [0.2 - 0.5, 0.2 + 0.5] */
    assert_float_equal(win[0], 0, 1e-12), assert_float_equal(win[1], 2, 1e-12);
    assert_float_equal(win[2], -0.3, 1e-12), assert_float_equal(win[3], 0.7, 1e-12);
    sim_dwa_window(&c, 3, 0.9, win); /* cut at v_max and w_max */
    assert_float_equal(win[0], 2, 1e-12), assert_float_equal(win[1], 3, 1e-12);
    assert_float_equal(win[3], 1, 1e-12);
    /* a point 5 m ahead: the arc enters its 1 m disk after 4 m (the last sample before: 4.0) */
    double p[2] = {5, 0};
    assert_float_equal(sim_dwa_dist(&c, 0, 0, 0, 2, 0, p, 1), 4.0, 1e-6);
    /* the arc of radius 2 (v 1, w 0.5 over 3 s: 3 m, 1.5 rad) toward the point at its end: within 1 m
     * where the chord 4 sin((1.5 - phi) / 2) < 1, phi > 0.9946 rad, s > 1.989 m: 1.9 */
    double e[2] = {2 * sin(1.5), 2 - 2 * cos(1.5)};
    assert_float_equal(sim_dwa_dist(&c, 0, 0, 0, 1, 0.5, e, 1), 1.9, 1e-6);
    /* standing makes no way */
    assert_float_equal(sim_dwa_dist(&c, 0, 0, 0, 0, 0.5, e, 1), 0, 1e-12);
    /* heading after 3 m east, the target 10 m north of there: pi - pi / 2 */
    assert_float_equal(sim_dwa_heading(&c, 0, 0, 0, 1, 0, 3, 10), M_PI / 2, 1e-12);
    /* the choice among v = 0, 1, 2 (w = 0), target ahead, obstacle 1.5 m ahead: dist 0.5 for v > 0,
     * 0 standing; v = 2 > sqrt(2 x 0.5 x 2) inadmissible; G(0) = 2, G(1) = 2 + 0.2 + 0.2: v = 1 */
    double near[2] = {1.5, 0}, v, w;
    assert_int_equal(sim_dwa(&c, 0, 0, 0, 1, 0, 20, 0, near, 1, &v, &w), 0);
    assert_float_equal(v, 1, 1e-12);
    /* obstacle 3 m ahead: dist 2 for v > 0, all admissible, G(2) = 2 + 0.2 + 0.2 > G(1) = 2 + 0.2 + 0.1 */
    double mid[2] = {3, 0};
    assert_int_equal(sim_dwa(&c, 0, 0, 0, 1, 0, 20, 0, mid, 1, &v, &w), 0);
    assert_float_equal(v, 2, 1e-12);
    /* already on the obstacle at full speed: nothing admissible */
    c.nv = 2;
    double on[2] = {0.5, 0};
    assert_int_equal(sim_dwa(&c, 0, 0, 0, 3, 0, 20, 0, on, 1, &v, &w), -1);
}

/* ---- the trap ------------------------------------------------------------------------ */

/* Points every 0.5 m along the segment (x0, y0)-(x1, y1), appended. */
static int seg(double *p, int n, double x0, double y0, double x1, double y1)
{
    int k = (int)ceil(hypot(x1 - x0, y1 - y0) / 0.5);
    for (int i = 0; i <= k; i++, n++)
        p[2 * n] = x0 + (x1 - x0) * i / k, p[2 * n + 1] = y0 + (y1 - y0) * i / k;
    return n;
}

/* A wall 6 m north of the vehicle (heading north, target ahead) with a
 * gap near the target's direction, x in [-4, 0], that opens into a closed
 * pocket 6 m deep (beyond the 10 m window from where it stands), and an
 * open side beyond x = 8 (the wall ends there). */
static int trap(double *p)
{
    int n = 0;
    n = seg(p, n, -8, 6, -4, 6);
    n = seg(p, n, 0, 6, 8, 6);
    n = seg(p, n, -5, 6, -5, 12.5);
    n = seg(p, n, 1, 6, 1, 12.5);
    n = seg(p, n, -5, 12.5, 1, 12.5);
    return n;
}

static void test_trap(void **state)
{
    (void)state;
    double p[2 * 400];
    int n = trap(p);
    sim_vfh_cfg c;
    sim_vfh_cfg_default(&c, 72, 10, 1);
    c.depth = 4, c.step_m = 3;
    sim_vfh_query q = {0, 0, M_PI / 2, -2, 30, M_PI / 2, 3, p, n};
    unsigned char bin[72] = {0};
    double d_plus, d_star, d_wu;
    assert_int_equal(sim_vfh_plus(&c, &q, bin, &d_plus), 0);
    memset(bin, 0, sizeof bin);
    assert_int_equal(sim_vfh_star(&c, &q, bin, &d_star), 0);
    sim_vfh_cfg cw;
    sim_vfh_cfg_default(&cw, 180, 10, 1);
    cw.depth = 4, cw.step_m = 3;
    unsigned char bw[180] = {0};
    assert_int_equal(sim_vfh_star_wu2020(&cw, &q, bw, &d_wu), 0);
    printf("  trap: VFH+ %.0f deg, VFH* %.0f deg, wu2020 %.0f deg\n", d_plus / DEG, d_star / DEG, d_wu / DEG);
    /* the gap seen from the vehicle: bearings 90..124 deg */
    assert_true(d_plus > 90 * DEG && d_plus < 124 * DEG);
    assert_true(!(d_star > 90 * DEG && d_star < 124 * DEG));
    assert_true(!(d_wu > 90 * DEG && d_wu < 124 * DEG));
    /* with the pocket open at the back (its far wall gone) VFH* takes the gap too */
    int m = 0;
    m = seg(p, m, -8, 6, -4, 6);
    m = seg(p, m, 0, 6, 8, 6);
    q.npts = m;
    memset(bin, 0, sizeof bin);
    assert_int_equal(sim_vfh_star(&c, &q, bin, &d_star), 0);
    assert_true(d_star > 90 * DEG && d_star < 124 * DEG);
}

/* Hemmed in by a ring of points 3 m round: no VFH finds a way. */
static void test_hemmed_in(void **state)
{
    (void)state;
    double p[2 * 64];
    for (int i = 0; i < 64; i++)
        p[2 * i] = 3 * cos(i * 2 * M_PI / 64), p[2 * i + 1] = 3 * sin(i * 2 * M_PI / 64);
    sim_vfh_cfg c, cw;
    sim_vfh_cfg_default(&c, 72, 10, 1);
    sim_vfh_cfg_default(&cw, 180, 10, 1);
    sim_vfh_query q = {0, 0, 0, 20, 0, 0, 0, p, 64};
    unsigned char bin[180] = {0};
    double d = 99;
    assert_int_equal(sim_vfh_plus(&c, &q, bin, &d), -1);
    memset(bin, 0, sizeof bin);
    assert_int_equal(sim_vfh_star(&c, &q, bin, &d), -1);
    memset(bin, 0, sizeof bin);
    assert_int_equal(sim_vfh_star_wu2020(&cw, &q, bin, &d), -1);
    assert_float_equal(d, 99, 0); /* untouched */
    /* DWA may drive inside a 3 m ring; within r_rs of a ring of 0.9 m every
     * arc comes closer to a point: standing, or turning on the spot */
    for (int i = 0; i < 64; i++)
        p[2 * i] *= 0.3, p[2 * i + 1] *= 0.3;
    sim_dwa_cfg dc = dwa_cfg();
    dc.nw = 5;
    double v, w;
    int ok = sim_dwa(&dc, 0, 0, 0, 0, 0, 20, 0, p, 64, &v, &w);
    assert_true(ok == -1 || v == 0);
}

/* ---- in the simulator ------------------------------------------------------------------ */

#define NXY 150
#define CELL 1.0
#define X0 500000.0
#define Y0 4000150.0

static prm_terrain T;
static char *tmp, *vehicle;

static int setup(void **state)
{
    (void)state;
    geo_init();
    if (test_terrain_flat(&T, NXY, NXY, X0, Y0, CELL))
        return -1;
    tmp = make_tmpdir();
    vehicle = data_path("vehicles/ugv_hua2022.ini");
    return tmp && vehicle ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    prm_terrain_clear(&T);
    rm_rf(tmp);
    free(tmp);
    free(vehicle);
    return 0;
}

static double mx(double x) { return X0 + x; }
static double my(double y) { return Y0 - NXY * CELL + y; }

/* A circle of radius 1.5 m, 2 m high, on the route at (70, 75), appearing at t = 3 s. */
static char *obstacle_file(void)
{
    char *text = NULL;
    assert_true(asprintf(&text,
                         "{\"type\": \"FeatureCollection\", \"crs\": {\"type\": \"name\", \"properties\": {\"name\": "
                         "\"urn:ogc:def:crs:EPSG::32616\"}},\n\"features\": [{\"type\": \"Feature\", \"properties\": "
                         "{\"id\": \"rock\", \"height_m\": 2, \"radius_m\": 1.5, \"appear_s\": 3}, \"geometry\": "
                         "{\"type\": \"Point\", \"coordinates\": [%.2f, %.2f]}}]}\n",
                         mx(70), my(75)) >= 0);
    char *p = write_file(tmp, "rock.geojson", text);
    free(text);
    return p;
}

typedef struct scene {
    sim_scenario *sc;
    sim_run *run;
} scene;

static trv_status run_scene_obs(const char *planner, const char *model, const char *extra, char *obs, scene *s,
                                trv_ctx *ctx)
{
    char *text = NULL;
    assert_true(asprintf(&text,
                         "[scenario]\ntime_limit_s = 120\nrecord_s = 0.01\nobstacles = %s\n[vehicle.a]\nfile = %s\nmodel = %s\n"
                         "start = %.2f,%.2f\ngoal = %.2f,%.2f\nsrs = map\nlocal_planner = %s\n%s"
                         "[lidar2d.a]\nrate_hz = 10\nhres_deg = 1\nrange_m = 25\nmount_h_m = 0.8\n",
                         obs, vehicle, model, mx(10), my(75), mx(140), my(75), planner, extra) >= 0);
    char *p = write_file(tmp, "local.ini", text);
    memset(s, 0, sizeof *s);
    trv_status st = sim_scenario_read(ctx, p, &s->sc);
    sim_env env = {.seed = 7};
    if (!st)
        st = sim_run_new(ctx, s->sc, &T, &env, &s->run);
    if (!st)
        st = sim_run_go(ctx, s->run);
    free(p), free(text), free(obs);
    return st;
}

static void scene_free(scene *s);
static char *metrics_text(trv_ctx *ctx, const sim_run *run, const char *dir);

static trv_status run_scene(const char *planner, const char *model, const char *extra, scene *s, trv_ctx *ctx)
{
    return run_scene_obs(planner, model, extra, obstacle_file(), s, ctx);
}

/* With TRV_SIM_DEBUG set: the run's events, in the scene's own coordinates. */
static void debug_events(const sim_run *run)
{
    for (int e = 0; getenv("TRV_SIM_DEBUG") && e < sim_run_nevents(run); e++) {
        const sim_event *ev = sim_run_event(run, e);
        printf("    %.2f %s (%.1f, %.1f) %s\n", ev->t, sim_event_name(ev->type), ev->x - X0, ev->y - Y0 + NXY * CELL,
               ev->details);
    }
}

/* The scene with these keys must be refused with a message containing msg. */
static void expect_refused(const char *planner, const char *extra, const char *msg, trv_ctx *ctx)
{
    scene s;
    assert_int_not_equal(run_scene(planner, "ackermann", extra, &s, ctx), TRV_OK);
    assert_non_null(strstr(trv_errmsg(ctx), msg));
    scene_free(&s);
}

/* Boxes (x0, y0, x1, y1), 2 m high, there from the start, as a GeoJSON. */
static char *boxes_file(const char *name, int n, const double (*b)[4])
{
    char *feats = calloc(1, 1), *text = NULL;
    for (int k = 0; k < n; k++) {
        char *f = NULL;
        double x0 = mx(b[k][0]), y0 = my(b[k][1]), x1 = mx(b[k][2]), y1 = my(b[k][3]);
        assert_true(asprintf(&f,
                             "%s%s{\"type\": \"Feature\", \"properties\": {\"id\": \"w%d\", \"height_m\": 2}, "
                             "\"geometry\": {\"type\": \"Polygon\", \"coordinates\": [[[%.2f, %.2f], [%.2f, %.2f], "
                             "[%.2f, %.2f], [%.2f, %.2f], [%.2f, %.2f]]]}}\n",
                             feats, k ? "," : "", k, x0, y0, x1, y0, x1, y1, x0, y1, x0, y0) >= 0);
        free(feats);
        feats = f;
    }
    assert_true(asprintf(&text,
                         "{\"type\": \"FeatureCollection\", \"crs\": {\"type\": \"name\", \"properties\": {\"name\": "
                         "\"urn:ogc:def:crs:EPSG::32616\"}},\n\"features\": [\n%s]}\n",
                         feats) >= 0);
    char *p = write_file(tmp, name, text);
    free(text), free(feats);
    return p;
}

/* The trap driven: a wall across the route at x = 60 (y 50..100) with a
 * 12 m gap on the route (y 69..81) that opens into a pocket closed 10 m
 * behind it (x 70), which the LiDAR (25 m) sees only from 45 m on and the
 * window (15 m) only at the mouth: every planner stalls there (no way on
 * along the route for 10 s, or no direction) and the seen map's
 * re-planning leads it round the wall's end, without a collision. */
static void test_trap_driven(void **state)
{
    (void)state;
    static const double b[5][4] = {{60, 50, 61, 69}, {60, 81, 61, 100}, {60, 68, 71, 69}, {60, 81, 71, 82},
                                   {70, 68, 71, 82}};
    static const char *const planners[] = {"vfh+", "vfh*", "vfh*-wu2020", "dwa"};
    trv_ctx *ctx = trv_ctx_new();
    for (int i = 0; i < 4; i++) {
        scene s;
        trv_status st = run_scene_obs(planners[i], "skid", "", boxes_file("trap.geojson", 5, b), &s, ctx);
        if (st)
            printf("  %s\n", trv_errmsg(ctx));
        assert_int_equal(st, TRV_OK);
        const sim_metrics *m = sim_run_metrics(s.run, 0);
        printf("  trap %-12s goal %d (%s) time %.1f s dist %.1f m replans %d collisions %d\n", planners[i],
               m->reached_goal, m->end, m->time_s, m->distance_m, m->replans, m->collisions);
        debug_events(s.run);
        assert_int_equal(m->collisions, 0);
        assert_int_equal(m->reached_goal, 1);
        assert_true(m->replans >= 1 && m->replans <= 3);
        assert_true(sim_run_count(s.run, 0, SIM_EV_REPLAN) == m->replans);
        scene_free(&s);
    }
    trv_ctx_free(ctx);
}

/* The deepest x the vehicle reached inside the box (x0, y0)-(x1, y1) in
 * the trajectory written by metrics_text into dir (-INFINITY: never). */
static double deepest_in(const char *dir, double x0, double y0, double x1, double y1)
{
    char *path = NULL;
    assert_true(asprintf(&path, "%s/%s/trajectory_a.csv", tmp, dir) >= 0);
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    char line[512];
    assert_non_null(fgets(line, sizeof line, f));
    double best = -INFINITY, t, x, y;
    while (fgets(line, sizeof line, f)) {
        assert_int_equal(sscanf(line, "%lf,%lf,%lf", &t, &x, &y), 3);
        x -= X0, y -= Y0 - NXY * CELL;
        if (x >= x0 && x <= x1 && y >= y0 && y <= y1)
            best = fmax(best, x);
    }
    fclose(f);
    free(path);
    return best;
}

/* The trap of the VFH* paper, driven (Ackermann UGV, 2D LiDAR 25 m): a
 * wall across the route at x = 60 (y 55..100) with a 10 m gap left of the
 * route (y 77..87) that opens into a pocket closed 15 m behind it (x 75);
 * the way on is round the wall's south end, 20 m right of the route. The
 * look-ahead is 25 m (local_lookahead_m; 5 steps of 5 m): VFH+ sees only
 * its 15 m window, where the gap is the valley nearest the goal's
 * direction and the pocket's end lies beyond, so it turns into the gap;
 * VFH*'s projected positions reach into the pocket, where the turning
 * circles and the end wall leave no direction, so it goes round the
 * wall's end and never enters. */
static void test_trap_vfh_driven(void **state)
{
    (void)state;
    static const double b[5][4] = {{60, 55, 61, 77}, {60, 87, 61, 100}, {61, 76, 76, 77}, {61, 87, 76, 88},
                                   {75, 77, 76, 87}};
    static const char *const planners[] = {"vfh+", "vfh*", "vfh*-wu2020"};
    trv_ctx *ctx = trv_ctx_new();
    double deep[3];
    for (int i = 0; i < 3; i++) {
        scene s;
        trv_status st = run_scene_obs(planners[i], "ackermann", "local_lookahead_m = 25\nlocal_depth = 5\n",
                                      boxes_file("trap2.geojson", 5, b), &s, ctx);
        if (st)
            printf("  %s\n", trv_errmsg(ctx));
        assert_int_equal(st, TRV_OK);
        const sim_metrics *m = sim_run_metrics(s.run, 0);
        char *mt = metrics_text(ctx, s.run, "trap2_out");
        free(mt);
        deep[i] = deepest_in("trap2_out", 60, 77, 76, 87);
        printf("  trap2 %-12s goal %d (%s) time %.1f s dist %.1f m replans %d collisions %d; deepest in the "
               "pocket x %.1f\n",
               planners[i], m->reached_goal, m->end, m->time_s, m->distance_m, m->replans, m->collisions, deep[i]);
        debug_events(s.run);
        assert_int_equal(m->collisions, 0);
        if (i == 0) { /* VFH+ into the pocket (its mouth at x 60, the end wall at 75), there a dead end */
            assert_true(deep[i] > 62);
            assert_int_equal(m->reached_goal, 0);
            assert_true(sim_run_count(s.run, 0, SIM_EV_REPLAN) >= 1);
        } else { /* VFH*, wu2020: never in it, round the wall's end to the goal */
            assert_true(isinf(deep[i]));
            assert_int_equal(m->reached_goal, 1);
        }
        scene_free(&s);
    }
    trv_ctx_free(ctx);
}

static void scene_free(scene *s)
{
    sim_run_free(s->run);
    sim_scenario_free(s->sc);
}

/* metrics.json of the run, as text */
static char *metrics_text(trv_ctx *ctx, const sim_run *run, const char *dir)
{
    char *out = trv_path_join(tmp, dir);
    trv_outset *set = trv_outset_new();
    assert_int_equal(sim_run_write(ctx, set, run, out, NULL, 0), TRV_OK);
    assert_int_equal(trv_outset_commit(ctx, set), TRV_OK);
    trv_outset_free(set);
    char *path = trv_path_join(out, "metrics.json");
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    char *buf = calloc(1, 1 << 16);
    size_t n = fread(buf, 1, (1 << 16) - 1, f);
    buf[n] = 0;
    fclose(f);
    free(path), free(out);
    return buf;
}

/* The clearance by hand from the trajectory written with metrics_text
 * (every step: record_s below the step): the UGV's 3 m x 2 m box against
 * the rock (circle (70, 75), r 1.5) once it is there (t >= 3 s). */
static double clearance_from_trajectory(const char *dir)
{
    char *path = NULL;
    assert_true(asprintf(&path, "%s/%s/trajectory_a.csv", tmp, dir) >= 0);
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    char line[512];
    assert_non_null(fgets(line, sizeof line, f));
    double best = INFINITY, t, x, y, z, hd;
    while (fgets(line, sizeof line, f)) {
        assert_int_equal(sscanf(line, "%lf,%lf,%lf,%lf,%lf", &t, &x, &y, &z, &hd), 5);
        if (t < 3)
            continue;
        double h = hd * DEG, dx = mx(70) - x, dy = my(75) - y;
        double lx = fabs(dx * cos(h) + dy * sin(h)) - 1.5, ly = fabs(-dx * sin(h) + dy * cos(h)) - 1.0;
        best = fmin(best, fmax(0, hypot(fmax(lx, 0), fmax(ly, 0)) - 1.5));
    }
    fclose(f);
    free(path);
    return best;
}

static double json_number(const char *text, const char *key)
{
    char k[64];
    snprintf(k, sizeof k, "\"%s\": ", key);
    const char *p = strstr(text, k);
    assert_non_null(p);
    return strtod(p + strlen(k), NULL);
}

static void test_planners_pass_obstacle(void **state)
{
    (void)state;
    static const char *const planners[] = {"vfh+", "vfh*", "vfh*-wu2020", "dwa"};
    static const char *const models[] = {"ackermann", "skid", "mecanum"};
    trv_ctx *ctx = trv_ctx_new();
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 3; j++) {
            scene s;
            trv_status st = run_scene(planners[i], models[j], "", &s, ctx);
            if (st)
                printf("  %s\n", trv_errmsg(ctx));
            assert_int_equal(st, TRV_OK);
            const sim_metrics *m = sim_run_metrics(s.run, 0);
            char *mt = metrics_text(ctx, s.run, "pass_out");
            double cmin = json_number(mt, "clearance_min_m"), csum = json_number(mt, "clearance_sum_m");
            double cpu;
            long nd, np;
            sim_local_cpu(s.run, 0, &cpu, &nd, &np);
            printf("  %-12s %-9s goal %d (%s) time %.1f s dist %.1f m replans %d collisions %d clearance "
                   "min %.3f sum %.3f; %ld decisions, %ld by the planner, %.1f us CPU each\n",
                   planners[i], models[j], m->reached_goal, m->end, m->time_s, m->distance_m, m->replans,
                   m->collisions, cmin, csum, nd, np, 1e6 * cpu / fmax(nd, 1));
            assert_true(np > 0 && np < nd); /* the planner took over, and gave control back */
            debug_events(s.run);
            assert_int_equal(m->collisions, 0);
            assert_int_equal(m->reached_goal, 1);
            assert_int_equal(m->replans, 0); /* the planner went round, not the seen map's re-planning */
            assert_true(cmin > 0);
            assert_float_equal(csum, cmin, 1e-9); /* one obstacle */
            assert_float_equal(cmin, clearance_from_trajectory("pass_out"), 2e-3);
            assert_non_null(strstr(mt, planners[i]));
            free(mt);
            scene_free(&s);
        }
    trv_ctx_free(ctx);
}

static void test_none_and_errors(void **state)
{
    (void)state;
    trv_ctx *ctx = trv_ctx_new();
    scene s;
    /* none given: the follower and the seen map's re-planning, with the clearance metrics */
    assert_int_equal(run_scene("none", "ackermann", "", &s, ctx), TRV_OK);
    assert_true(sim_run_metrics(s.run, 0)->replans >= 1);
    char *mt = metrics_text(ctx, s.run, "none_out");
    assert_non_null(strstr(mt, "\"local_planner\": \"none\""));
    free(mt);
    scene_free(&s);
    /* a lambda breaking the third condition */
    expect_refused("vfh*-wu2020", "local_lambda = 5,3,0.7,3,2\n",
                   "local_lambda breaks the condition lambda3 lambda1 < lambda4", ctx);
    expect_refused("vfh*-wu2020", "local_lambda = 5,3,0.5\n", "local_lambda expects 5 numbers", ctx);
    /* a window not wider than r_rs (1.8 + 0.5 + 0.71 m: half the 1 m cell's diagonal) and a cell */
    expect_refused("vfh+", "local_window_m = 3\n", "local_window_m 3 must exceed r_rs + one cell (4.01 m", ctx);
    expect_refused("vfh", "", "'local_planner' must be one of none|vfh+|vfh*|vfh*-wu2020|dwa, not 'vfh'",
                   ctx);
    trv_ctx_free(ctx);
}

/* DWA's weights as scenario keys: the defaults 0.5, 1, 0.5 (the same run
 * with the keys written out or left out), a run with 1, 1, 0.5 that goes
 * round the rock another way, and the named errors. */
static void test_dwa_weights(void **state)
{
    (void)state;
    trv_ctx *ctx = trv_ctx_new();
    scene s;
    assert_int_equal(run_scene("dwa", "ackermann", "", &s, ctx), TRV_OK);
    const double *w = s.sc->veh[0].local.dwa_weights;
    assert_float_equal(w[0], 0.5, 0), assert_float_equal(w[1], 1, 0), assert_float_equal(w[2], 0.5, 0);
    sim_metrics m0 = *sim_run_metrics(s.run, 0);
    scene_free(&s);
    assert_int_equal(run_scene("dwa", "ackermann",
                               "local_dwa_heading = 0.5\nlocal_dwa_clearance = 1\nlocal_dwa_velocity = 0.5\n", &s, ctx),
                     TRV_OK);
    const sim_metrics *m = sim_run_metrics(s.run, 0);
    assert_float_equal(m->distance_m, m0.distance_m, 0);
    assert_float_equal(m->time_s, m0.time_s, 0);
    scene_free(&s);
    static const double alt[3] = {1, 1, 0.5};
    char keys[128];
    snprintf(keys, sizeof keys, "local_dwa_heading = %g\nlocal_dwa_clearance = %g\nlocal_dwa_velocity = %g\n", alt[0],
             alt[1], alt[2]);
    assert_int_equal(run_scene("dwa", "ackermann", keys, &s, ctx), TRV_OK);
    w = s.sc->veh[0].local.dwa_weights;
    assert_float_equal(w[0], alt[0], 0), assert_float_equal(w[1], alt[1], 0), assert_float_equal(w[2], alt[2], 0);
    m = sim_run_metrics(s.run, 0);
    printf("  dwa weights 0.5,1,0.5: %.1f m %.1f s; %g,%g,%g: %.1f m %.1f s (%s)\n", m0.distance_m, m0.time_s,
           alt[0], alt[1], alt[2], m->distance_m, m->time_s, m->end);
    debug_events(s.run);
    assert_int_equal(m->reached_goal, 1);
    assert_int_equal(m->collisions, 0);
    assert_true(fabs(m->distance_m - m0.distance_m) > 0.5); /* 171.7 against 173.3 m: another way round */
    scene_free(&s);
    expect_refused("dwa", "local_dwa_heading = 0\n", "vehicle 'a': local_dwa_heading must be > 0", ctx);
    expect_refused("dwa", "local_dwa_clearance = -1\n", "'local_dwa_clearance' = -1 is out of range [0, 100]",
                   ctx);
    expect_refused("vfh+", "local_dwa_velocity = 1\n", "local_dwa_velocity are for local_planner = dwa", ctx);
    trv_ctx_free(ctx);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_primary),
        cmocka_unit_test(test_binary),
        cmocka_unit_test(test_masked),
        cmocka_unit_test(test_vfh_candidates_cost),
        cmocka_unit_test(test_wu_thresholds),
        cmocka_unit_test(test_wu_sieving),
        cmocka_unit_test(test_wu_costs),
        cmocka_unit_test(test_dwa),
        cmocka_unit_test(test_trap),
        cmocka_unit_test(test_hemmed_in),
        cmocka_unit_test(test_planners_pass_obstacle),
        cmocka_unit_test(test_none_and_errors),
        cmocka_unit_test(test_trap_driven),
        cmocka_unit_test(test_dwa_weights),
        cmocka_unit_test(test_trap_vfh_driven),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
