/* The speed limit from the rollover margin (src/sim/rollover_limit.h;
 * docs/method.md §5.11.1):
 *   - the closed form: the load-transfer ratio and v_max on a given side
 *     slope and curvature against values computed by hand, and LTR at
 *     v_max equal to 1 - margin;
 *   - the planned deceleration of a dynamic vehicle on a descent against
 *     its brakes left over the slope (hand-computed);
 *   - the runner: the bundled UGV (dynamics = dynamic) at 40 km/h along a
 *     22 degree side slope into a bend of 40 degrees uphill (radius 40 m,
 *     bends planned at 6 m/s^2): with rollover_margin = 0 (the predicted
 *     ratio allowed up to 1) it rolls over; with the default 0.5 it
 *     reaches the goal, its largest roll 10 degrees inside the threshold;
 *     a kinematic vehicle takes the bend faster without the key than with
 *     rollover_margin = 0.5 (the limit is the key's only there), and with
 *     it has slowed before the bend (the profile's share of the limit). */
#include "test_common.h"
#include "test_sim_drive.h"
#include "test_terrain_mem.h"

#include "sim/rollover_limit.h"

#include <math.h>

#define G 9.80665

static void test_closed_form(void **state)
{
    (void)state;
    /* the UGV: t 1.6 m, h = 0.45 x 1.5 m = 0.675 m: t / 2h = 1.185185 */
    double ratio = 1.6 / (2 * 0.675), phi = 15 * M_PI / 180, kappa = 0.05;
    /* margin 0.5: L = 0.592593; tan 15 = 0.267949, room 0.324643;
     * v^2 = 9.80665 x 0.965926 x 0.324643 / 0.05 = 61.5037, v = 7.84243 m/s */
    double v = sim_rollover_vmax(0.5 * ratio, phi, 0, kappa);
    assert_true(fabs(v - 7.84243) < 1e-5);
    assert_true(fabs(sim_rollover_ltr(ratio, phi, 0, v, kappa) - 0.5) < 1e-9);
    /* a grade of 10 degrees: cos 10 = 0.984808, v^2 = 60.5693, v = 7.78263 */
    assert_true(fabs(sim_rollover_vmax(0.5 * ratio, phi, 10 * M_PI / 180, kappa) - 7.78263) < 1e-5);
    /* the side of the slope does not matter; the curvature's sign neither */
    assert_true(fabs(sim_rollover_vmax(0.5 * ratio, -phi, 0, -kappa) - v) < 1e-12);
    /* LTR at 10 m/s on the flat, kappa 0.05: (100 x 0.05 / 9.80665) / 1.185185 = 0.430193 */
    assert_true(fabs(sim_rollover_ltr(ratio, 0, 0, 10, kappa) - 0.430193) < 1e-6);
    assert_true(isinf(sim_rollover_vmax(0.5 * ratio, phi, 0, 0)));
    /* the slope alone past the allowed ratio: 31 degrees, tan 0.600861 > 0.592593 */
    assert_true(sim_rollover_vmax(0.5 * ratio, 31 * M_PI / 180, 0, kappa) == 0);
}

/* ---- the runner ----------------------------------------------------------------- */

#define NXY 300
#define CELL 2.0
#define X0 500000.0
#define Y0 4000600.0
#define SIDE_DEG 22.0

static prm_terrain T;
static char *tmp;

/* GO everywhere at 40 km/h; rising southward at tan(SIDE_DEG): driving
 * east, the left side is downhill. */
static void terrain(void)
{
    assert_int_equal(test_terrain_flat(&T, NXY, NXY, X0, Y0, CELL), 0);
    double g = tan(SIDE_DEG * M_PI / 180);
    for (int j = 0; j < NXY; j++)
        for (int i = 0; i < NXY; i++) {
            long c = (long)j * NXY + i;
            T.dem->f32[c] = (float)(100 + g * (j + 0.5) * CELL);
            T.slope->f32[c] = (float)SIDE_DEG;
            T.speed->f32[c] = 40;
        }
    T.top_speed_kmh = 40;
}

/* The route: 250 m east along the slope, then a bend of BEND_DEG to the
 * right (uphill) of radius R_M, then straight on. */
#define BEND_DEG 40.0
#define R_M 40.0
static char *route_csv(void)
{
    char *s = NULL, *p;
    size_t n;
    FILE *f = open_memstream(&s, &n);
    fprintf(f, "x,y\n");
    double x = X0 + 30, y = Y0 - 300, h = 0;
    for (int i = 0; i <= 50; i++)
        fprintf(f, "%.3f,%.3f\n", x + 5 * i, y);
    x += 250;
    for (int i = 1; i <= 20; i++) {
        double a = -BEND_DEG * M_PI / 180 * i / 20;
        fprintf(f, "%.3f,%.3f\n", x + R_M * sin(-a) * 1, y - R_M * (1 - cos(a)));
        h = a;
    }
    double ex = x + R_M * sin(-h), ey = y - R_M * (1 - cos(h));
    for (int i = 1; i <= 20; i++)
        fprintf(f, "%.3f,%.3f\n", ex + 5 * i * cos(h), ey + 5 * i * sin(h));
    fclose(f);
    p = write_file(tmp, "route.csv", s);
    free(s);
    return p;
}

static char *scenario_text(const char *veh, const char *route, const char *extra)
{
    char *s = NULL;
    assert_true(asprintf(&s,
                         "[scenario]\ntime_limit_s = 120\nrecord_s = 0.5\n%s\n"
                         "[vehicle.a]\nfile = %s\nmodel = ackermann\nroute = %s\n",
                         extra, veh, route) >= 0);
    return s;
}

static const sim_metrics *run_once(const char *name, const char *text, sim_run **run, sim_scenario **sc)
{
    test_sim_drive(tmp, name, text, &T, run, sc);
    const sim_metrics *m = sim_run_metrics(*run, 0);
    printf("  %s: %s in %.1f s, %.1f m\n", name, m->end, m->time_s, m->distance_m);
    return m;
}

/* The largest |roll| of the recorded rows (degrees), the least speed in
 * the bend and the speed of the last row before it (m/s). */
static void rows_max(const sim_run *run, double *roll_deg, double *v_bend, double *v_before)
{
    const sim_veh *v = &run->v[0];
    *roll_deg = 0, *v_bend = INFINITY, *v_before = NAN;
    for (long i = 0; i < v->nrows; i++) {
        *roll_deg = fmax(*roll_deg, fabs(v->rows[i].roll) * 180 / M_PI);
        if (v->rows[i].x <= X0 + 280)
            *v_before = v->rows[i].v;
        if (v->rows[i].x > X0 + 280 && v->rows[i].x < X0 + 280 + R_M * sin(BEND_DEG * M_PI / 180))
            *v_bend = fmin(*v_bend, v->rows[i].v);
    }
}

/* The planned deceleration on the run's DEM along a path heading at az
 * (radians from east) from the middle of the map. */
static double decel_along(sim_run *run, double az)
{
    trv_ctx *ctx = trv_ctx_new();
    double x[2] = {X0 + 300, X0 + 300 + 100 * cos(az)}, y[2] = {Y0 - 300, Y0 - 300 + 100 * sin(az)};
    assert_int_equal(sim_path_set(ctx, &run->v[0].path, x, y, 2), TRV_OK);
    trv_ctx_free(ctx);
    return sim_profile_decel(run, &run->v[0], 20, 5);
}

/* The follower's steering cap (dynamic, Ackermann) at 10 m/s heading east
 * on the 22 degree side slope: |kappa| <= g cos 22 (lim - tan 22) / v^2,
 * lim = 0.5 x 1.6 / (2 x 0.675) = 0.5925926: g cos 22 (lim - tan 22) =
 * 9.092621 x 0.1885664 = 1.714566, so the steering at most
 * atan(1.9 x 0.01714566) = 0.0325653 rad (the DEM's float heights: within
 * 1e-6); 0.02 rad
 * passes; below 1 m/s nothing. The steering it returns (NAN: kinematic,
 * where nothing may change). */
static double steer_capped(const sim_run *run, double v, double steer)
{
    sim_state s = {.x = X0 + 300, .y = Y0 - 300, .heading = 0, .v = v};
    sim_cmd c = {.v = v, .steer = steer};
    sim_rollover_cap_cmd(run, &run->v[0], &s, &c);
    return c.steer;
}

static void test_side_slope_bend(void **state)
{
    (void)state;
    terrain();
    tmp = make_tmpdir();
    char *rel = data_path("vehicles/ugv_hua2022.ini"), *veh = realpath(rel, NULL);
    free(rel);
    char *route = route_csv();
    /* bends taken at 6 m/s^2 (the profile's lateral_acc_ms2): fast */
    static const char *extra[4] = {"dynamics = dynamic\nrollover_margin = 0\nlateral_acc_ms2 = 6",
                                   "dynamics = dynamic\nlateral_acc_ms2 = 6", "lateral_acc_ms2 = 6",
                                   "lateral_acc_ms2 = 6\nrollover_margin = 0.5"};
    double roll[4], vb[4], v0[4];
    const char *end[4];
    for (int k = 0; k < 4; k++) {
        char *text = scenario_text(veh, route, extra[k]), name[32];
        snprintf(name, sizeof name, "s%d.ini", k);
        sim_run *run;
        sim_scenario *sc;
        const sim_metrics *m = run_once(name, text, &run, &sc);
        end[k] = m->end;
        rows_max(run, &roll[k], &vb[k], &v0[k]);
        printf("    largest roll %.2f deg, speed in the bend %.2f m/s, before it %.2f m/s\n", roll[k], vb[k], v0[k]);
        if (k == 1) {
            /* on the contour: the scenario's 2 m/s^2; straight down the
             * 22 degree slope (north): 3.4 + g (0.015 cos 22 - sin 22) =
             * -0.137, so the floor 0.1; north-east, a 15.944 degree descent:
             * 3.4 + g (0.015 cos b - sin b) = 0.847561 */
            assert_true(fabs(decel_along(run, 0) - 2) < 1e-12);
            assert_true(fabs(decel_along(run, M_PI / 2) - 0.1) < 1e-12);
            assert_true(fabs(decel_along(run, M_PI / 4) - 0.847561) < 1e-5);
            printf("    steering cap at 10 m/s: %.7f rad (0.0325653)\n", steer_capped(run, 10, 0.3));
            assert_true(fabs(steer_capped(run, 10, 0.3) - 0.0325653) < 1e-6);
            assert_true(fabs(steer_capped(run, 10, -0.3) + 0.0325653) < 1e-6);
            assert_true(steer_capped(run, 10, 0.02) == 0.02 && steer_capped(run, 0.9, 0.3) == 0.3);
        }
        if (k == 2) /* kinematic: the scenario's, whatever the grade; no steering cap */
            assert_true(decel_along(run, M_PI / 2) == 2 && steer_capped(run, 10, 0.3) == 0.3);
        if (k == 3) /* kinematic with the key: the speed cap only */
            assert_true(steer_capped(run, 10, 0.3) == 0.3);
        sim_run_free(run), sim_scenario_free(sc);
        free(text);
    }
    assert_string_equal(end[0], "rollover");
    assert_string_equal(end[1], "goal");
    assert_true(roll[1] < 49.844 - 10); /* atan(t / 2h) = 49.844 degrees */
    /* kinematic: the key asks for the limit, which slows the bend */
    assert_string_equal(end[2], "goal");
    assert_string_equal(end[3], "goal");
    assert_true(vb[3] < vb[2] - 1);
    /* ... to v_max at the bend's start (22 degrees across, kappa 1 / 40):
     * 9.80665 cos 22 (0.592593 - tan 22) x 40 = 68.574, 8.281 m/s */
    assert_true(fabs(vb[3] - 8.281) < 0.3);
    /* the profile slows it before the bend (the follower's cap alone acts
     * only once it steers): measured 8.89 against 11.11 m/s */
    assert_true(v0[3] < v0[2] - 1.5);
    free(route), free(veh);
    rm_rf(tmp);
    free(tmp);
    prm_terrain_clear(&T);
}

int main(void)
{
    geo_init();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_closed_form),
        cmocka_unit_test(test_side_slope_bend),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
