/* The tip-over check against the map's slope (docs/method.md §5.3): a
 * hillside on 4 m cells (UTM 16N) rising north, its centre rows 10 degrees
 * apart up to row J - 1 and 35 degrees apart above (a concave break).
 * Horn's slope of row J - 1 is then atan((tan 10 + tan 35) / 2) = 23.7
 * degrees (GO for the bundled UGV, max_roll_deg 25), rows J and above 35
 * (NOGO); the bilinear facet between the centres of rows J - 1 and J is
 * the 35-degree one. The UGV (1.6 m track) drives east along the contour
 * 1.4 m north of row J - 1's centre: inside that GO cell, both its wheel
 * tracks on the steep facet, its contact roll 35 degrees.
 *   The map's slope (23.7) bounds what the check judges: the UGV reaches
 *   its goal, its recorded roll is still the contact's 35 degrees.
 *   Painting row J - 1's slope 35 (the map admits the steep facet) the
 *   same drive tips over. */
#include "test_common.h"
#include "test_terrain_mem.h"

#include "sim/sim.h"

#include <math.h>

#define NX 60
#define NY 30
#define CELL 4.0
#define X0 500000.0
#define Y0 4000120.0
#define J 15 /* the first steep row, counted from the south */

static prm_terrain T;
static char *tmp, *route, *scenario;

static double deg(double a) { return a * 180 / M_PI; }

static int setup(void **state)
{
    (void)state;
    geo_init();
    if (test_terrain_new(&T, NX, NY, X0, Y0, CELL))
        return -1;
    double g1 = tan(10 * M_PI / 180), g2 = tan(35 * M_PI / 180), z = 100;
    for (int j = 0; j < NY; j++) { /* j: the row from the south */
        if (j > 0)
            z += (j >= J ? g2 : g1) * CELL;
        double horn = j == J - 1 ? atan((g1 + g2) / 2) : atan(j >= J ? g2 : g1);
        for (int c = 0; c < NX; c++) {
            long i = (long)(NY - 1 - j) * NX + c;
            T.cls->u8[i] = 3;
            T.cost->f32[i] = 0.2f;
            T.dem->f32[i] = (float)z;
            T.slope->f32[i] = (float)deg(horn);
            T.gonogo->u8[i] = deg(horn) > 25;
            T.speed->f32[i] = T.gonogo->u8[i] ? 0 : 10;
        }
    }
    T.top_speed_kmh = 10;
    tmp = make_tmpdir();
    char *rel = data_path("vehicles/ugv_hua2022.ini"), *ugv = rel ? realpath(rel, NULL) : NULL;
    free(rel);
    double y = Y0 - (NY - J + 0.5) * CELL + 1.4; /* 1.4 m north of row J - 1's centre */
    char text[256], *sc = NULL;
    snprintf(text, sizeof text, "x,y\n%.3f,%.3f\n%.3f,%.3f\n", X0 + 20, y, X0 + 200, y);
    route = tmp ? write_file(tmp, "route.csv", text) : NULL;
    if (!ugv || !route || asprintf(&sc, "[scenario]\ntime_limit_s = 300\n[vehicle.u]\nfile = %s\nroute = %s\n",
                                   ugv, route) < 0)
        return -1;
    scenario = write_file(tmp, "tip.ini", sc);
    free(sc), free(ugv);
    return scenario ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    prm_terrain_clear(&T);
    rm_rf(tmp);
    free(tmp), free(route), free(scenario);
    return 0;
}

/* The drive's end and the largest |roll| of its recorded rows (degrees). */
static const char *drive(double *roll_max)
{
    trv_ctx *ctx = trv_ctx_new();
    sim_scenario *sc = NULL;
    sim_run *r = NULL;
    assert_int_equal(sim_scenario_read(ctx, scenario, &sc), TRV_OK);
    assert_int_equal(sim_run_new(ctx, sc, &T, NULL, &r), TRV_OK);
    assert_int_equal(sim_run_go(ctx, r), TRV_OK);
    const char *end = sim_run_metrics(r, 0)->end;
    char *out = NULL, *path = NULL;
    assert_true(asprintf(&out, "%s/out", tmp) >= 0 && asprintf(&path, "%s/trajectory_u.csv", out) >= 0);
    trv_outset *set = trv_outset_new();
    assert_int_equal(sim_run_write(ctx, set, r, out, NULL, 0), TRV_OK);
    assert_int_equal(trv_outset_commit(ctx, set), TRV_OK);
    trv_outset_free(set);
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    char line[512];
    double v[7];
    *roll_max = 0;
    assert_non_null(fgets(line, sizeof line, f));
    while (fgets(line, sizeof line, f))
        if (sscanf(line, "%lf,%lf,%lf,%lf,%lf,%lf,%lf", &v[0], &v[1], &v[2], &v[3], &v[4], &v[5], &v[6]) == 7)
            *roll_max = fmax(*roll_max, fabs(v[6]));
    fclose(f);
    rm_rf(out);
    free(out), free(path);
    sim_run_free(r);
    sim_scenario_free(sc);
    trv_ctx_free(ctx);
    return end;
}

static void test_tip_map_slope(void **state)
{
    (void)state;
    double roll;
    const char *end = drive(&roll);
    printf("GO cell at 23.7 degrees, contact roll up to %.2f degrees: %s\n", roll, end);
    assert_string_equal(end, "goal");
    assert_true(fabs(roll - 35) < 0.5);
    /* the map admits the steep facet: the check judges 35 degrees */
    for (int c = 0; c < NX; c++)
        T.slope->f32[(long)(NY - J) * NX + c] = 35;
    end = drive(&roll);
    printf("the same cell at 35 degrees on the map: %s at %.2f degrees\n", end, roll);
    assert_string_equal(end, "tip_over");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_tip_map_slope),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
