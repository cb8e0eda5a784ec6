/* The simulator with the speed model (sim_env's soil, land use and tables;
 * docs/method.md §5) on a synthetic hill built in memory: level for the
 * west 200 m, then a plane rising east at 6 degrees (200 x 200 cells of
 * 2 m, UTM 16N, GO everywhere, speed.tif a flat 15 km/h that the model
 * must override), one soil without shear data (so no slip) and one land
 * use. A UGV with 10 kW (the bundled one with its power cut, so that
 * climbing is power-limited) drives from x = 20 to 380 m and back:
 *   uphill its steady speed is eta P / F by hand, F = R_soil + f W cos b
 *   + W sin b (R_soil the model's compaction resistance), reached already
 *   8 m past the foot of the slope (the profile brakes ahead of it, not
 *   only the speed where the vehicle is), and the energy F x distance on
 *   the slope plus (R_soil + f W) x distance on the level; downhill the
 *   pull is negative: the top speed.
 * Then the ride in the run: a rough land use gives finite ride metrics,
 * the same seed byte-identical metrics.json and events.jsonl, another
 * seed another RMS; without the rough class, a smooth ride (0). */
#include "test_common.h"
#include "test_terrain_mem.h"

#include "sim/sim.h"

#include <math.h>

#define NXY 200
#define CELL 2.0
#define X0 500000.0
#define Y0 4000400.0
#define GRADE_DEG 6.0

static prm_terrain T;
static geo_raster *SOIL, *LU;
static char *tmp, *vehicle, *soils_csv, *lu_csv, *lu_rough_csv;

static int setup(void **state)
{
    (void)state;
    geo_init();
    trv_ctx *ctx = trv_ctx_new();
    if (test_terrain_new(&T, NXY, NXY, X0, Y0, CELL) || geo_raster_new(ctx, &T.cls->grid, GEO_U8, &SOIL) ||
        geo_raster_new(ctx, &T.cls->grid, GEO_U8, &LU))
        return -1;
    double tg = tan(GRADE_DEG * M_PI / 180);
    for (long i = 0; i < (long)NXY * NXY; i++) {
        double x = (i % NXY + 0.5) * CELL - 200; /* east of the slope's foot */
        T.cls->u8[i] = 3;
        T.cost->f32[i] = 0.2f;
        T.dem->f32[i] = (float)(100 + tg * fmax(x, 0));
        T.slope->f32[i] = (float)(x > -CELL ? GRADE_DEG : 0);
        T.speed->f32[i] = 15;
        SOIL->u8[i] = 1;
        /* land use 3, with a band of 4 in the south half (the ride test) */
        LU->u8[i] = i / NXY >= NXY / 2 && (i % NXY) / 25 % 2 ? 4 : 3;
    }
    T.top_speed_kmh = 15;
    tmp = make_tmpdir();
    char *ugv = data_path("vehicles/ugv_hua2022.ini");
    FILE *f = ugv ? fopen(ugv, "r") : NULL;
    free(ugv);
    if (!tmp || !f)
        return -1;
    char text[16384];
    size_t n = fread(text, 1, sizeof text - 1, f);
    fclose(f);
    text[n] = '\0';
    char *p = strstr(text, "engine_power_kW = 62");
    if (!p)
        return -1;
    memcpy(p, "engine_power_kW = 10", 20);
    vehicle = write_file(tmp, "ugv10.ini", text);
    soils_csv = write_file(tmp, "soils.csv", "code,name,n,kc,kphi,ci_kPa\n1,lean clay,0.20,16.43,1724.69,1070.50\n");
    lu_csv = write_file(tmp, "lu.csv", "code,name,nogo\n3,open,no\n4,open too,no\n");
    lu_rough_csv = write_file(tmp, "lu_rough.csv",
                              "code,name,nogo,roughness_gd0_m3,roughness_w\n3,open,no,,\n4,ploughed,no,0.004,2\n");
    trv_ctx_free(ctx);
    return vehicle && soils_csv && lu_csv && lu_rough_csv ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    prm_terrain_clear(&T);
    geo_raster_free(SOIL), geo_raster_free(LU);
    rm_rf(tmp);
    free(tmp), free(vehicle), free(soils_csv), free(lu_csv), free(lu_rough_csv);
    return 0;
}

/* One vehicle from (x0, y) to (x1, y) (metres east of the west edge, north
 * of the south edge) with the speed model over landuse. */
static trv_status run(trv_ctx *ctx, double x0, double x1, double y, const char *landuse, uint64_t seed,
                      sim_run **out, sim_scenario **sc)
{
    char *text = NULL;
    assert_true(asprintf(&text,
                         "[scenario]\ntime_limit_s = 300\n[vehicle.h]\nfile = %s\nmodel = ackermann\n"
                         "start = %.2f,%.2f\ngoal = %.2f,%.2f\nsrs = map\n",
                         vehicle, X0 + x0, Y0 - 400 + y, X0 + x1, Y0 - 400 + y) >= 0);
    char *p = write_file(tmp, "hill.ini", text);
    free(text);
    tm_soils *soils = NULL;
    trv_status st = tm_soils_read(ctx, soils_csv, &soils);
    if (!st)
        st = sim_scenario_read(ctx, p, sc);
    sim_env env = {.soil = SOIL, .landuse = LU, .soils = soils, .landuse_csv = landuse, .seed = seed};
    if (!st)
        st = sim_run_new(ctx, *sc, &T, &env, out);
    if (!st)
        st = sim_run_go(ctx, *out);
    tm_soils_free(soils); /* the run's models copied what they need */
    free(p);
    return st;
}

/* The speed (from the trajectory's recorded rows: distance / time) where
 * x (metres east of the west edge) lies in [x0, x1], min and max. */
static void steady_speed(trv_ctx *ctx, const sim_run *r, const char *dir, double x0, double x1, double *lo, double *hi)
{
    char *out = NULL, *path = NULL;
    assert_true(asprintf(&out, "%s/%s", tmp, dir) >= 0);
    trv_outset *set = trv_outset_new();
    assert_int_equal(sim_run_write(ctx, set, r, out, NULL, 0), TRV_OK);
    assert_int_equal(trv_outset_commit(ctx, set), TRV_OK);
    trv_outset_free(set);
    assert_true(asprintf(&path, "%s/trajectory_h.csv", out) >= 0);
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    char line[512];
    double t[4096], x[4096], y[4096];
    int n = 0;
    assert_non_null(fgets(line, sizeof line, f));
    while (n < 4096 && fgets(line, sizeof line, f))
        if (sscanf(line, "%lf,%lf,%lf", &t[n], &x[n], &y[n]) == 3)
            n++;
    fclose(f);
    *lo = INFINITY, *hi = 0;
    for (int i = 1; i < n; i++)
        if (fmin(x[i - 1], x[i]) >= X0 + x0 && fmax(x[i - 1], x[i]) <= X0 + x1 && t[i] > t[i - 1]) {
            double v = hypot(x[i] - x[i - 1], y[i] - y[i - 1]) / (t[i] - t[i - 1]);
            *lo = fmin(*lo, v), *hi = fmax(*hi, v);
        }
    free(out), free(path);
}

static void test_hill_direction(void **state)
{
    (void)state;
    trv_ctx *ctx = trv_ctx_new();
    /* the hand values */
    tm_vehicle *tv = NULL;
    tm_soils *soils = NULL;
    tm_model m;
    assert_int_equal(tm_vehicle_read(ctx, vehicle, &tv), TRV_OK);
    assert_int_equal(tm_soils_read(ctx, soils_csv, &soils), TRV_OK);
    assert_int_equal(tm_model_init(ctx, &m, tv, soils, lu_csv), TRV_OK);
    double b = GRADE_DEG * M_PI / 180, W = tv->gross_mass_kg * 9.80665;
    double F = m.soil_pull_N[1] + tv->rolling_coeff * W * cos(b) + W * sin(b);
    double F0 = m.soil_pull_N[1] + tv->rolling_coeff * W; /* on the level */
    double v_up = 1000 * tv->engine_power_kW * tv->drivetrain_efficiency / F, v_top = tv->top_speed_kmh / 3.6;
    printf("  hand: F uphill %.1f N (soil %.1f), v_up %.3f m/s, top %.3f m/s\n", F, m.soil_pull_N[1], v_up, v_top);
    assert_true(v_up < 0.8 * v_top); /* power-limited uphill */

    sim_run *up = NULL, *down = NULL;
    sim_scenario *scu = NULL, *scd = NULL;
    assert_int_equal(run(ctx, 20, 380, 200, lu_csv, 1, &up, &scu), TRV_OK);
    assert_int_equal(run(ctx, 380, 20, 200, lu_csv, 1, &down, &scd), TRV_OK);
    const sim_metrics *mu = sim_run_metrics(up, 0), *md = sim_run_metrics(down, 0);
    assert_true(mu->reached_goal && md->reached_goal);
    double lo, hi;
    /* the energy: F on the slope (180 m / cos b), F0 on the level (180 m) */
    double e_hand = (F * 180 / cos(b) + F0 * 180) / 1000;
    steady_speed(ctx, up, "up", 208, 350, &lo, &hi);
    printf("  uphill from 8 m past the foot: %.3f .. %.3f m/s, %.1f s, energy %.1f kJ (by hand %.1f kJ)\n", lo, hi,
           mu->time_s, mu->energy_kJ, e_hand);
    assert_true(lo >= 0.98 * v_up && hi <= 1.02 * v_up);
    assert_true(fabs(mu->energy_kJ / e_hand - 1) < 0.03);
    steady_speed(ctx, down, "down", 220, 360, &lo, &hi);
    printf("  downhill: %.3f .. %.3f m/s, %.1f s, energy %.1f kJ\n", lo, hi, md->time_s, md->energy_kJ);
    assert_true(lo >= 0.98 * v_top && hi <= 1.02 * v_top);
    assert_true(mu->time_s > 1.15 * md->time_s); /* half the way is level */
    assert_true(md->energy_kJ < 0.4 * mu->energy_kJ); /* the level part only */
    /* smooth land use: the ride is simulated and feels nothing */
    assert_true(mu->ride_rms_ms2 == 0 && mu->ride_max_ms2 == 0);
    sim_run_free(up), sim_run_free(down);
    sim_scenario_free(scu), sim_scenario_free(scd);
    tm_soils_free(soils);
    tm_vehicle_free(tv);
    trv_ctx_free(ctx);
}

static char *slurp(const char *dir, const char *name)
{
    char *path = NULL;
    assert_true(asprintf(&path, "%s/%s/%s", tmp, dir, name) >= 0);
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    char *buf = calloc(1, 1 << 20);
    assert_non_null(buf);
    assert_true(fread(buf, 1, (1 << 20) - 1, f) > 0);
    fclose(f);
    free(path);
    return buf;
}

static void write_out(trv_ctx *ctx, const sim_run *r, const char *dir)
{
    char *out = NULL;
    assert_true(asprintf(&out, "%s/%s", tmp, dir) >= 0);
    trv_outset *set = trv_outset_new();
    assert_int_equal(sim_run_write(ctx, set, r, out, NULL, 0), TRV_OK);
    assert_int_equal(trv_outset_commit(ctx, set), TRV_OK);
    trv_outset_free(set);
    free(out);
}

/* Across the contour (north-south would be level; this runs east along
 * the south half, over bands of land use 4, G_d(n0) 4e-3 m^3, class E):
 * ride metrics finite and positive, within a factor of the closed form at
 * the mean speed weighted by the rough share; the same seed, the same
 * bytes. */
static void test_run_ride(void **state)
{
    (void)state;
    trv_ctx *ctx = trv_ctx_new();
    sim_run *a = NULL, *b = NULL, *c = NULL;
    sim_scenario *sa = NULL, *sb = NULL, *scc = NULL;
    assert_int_equal(run(ctx, 380, 20, 100, lu_rough_csv, 4, &a, &sa), TRV_OK);
    assert_int_equal(run(ctx, 380, 20, 100, lu_rough_csv, 4, &b, &sb), TRV_OK);
    assert_int_equal(run(ctx, 380, 20, 100, lu_rough_csv, 5, &c, &scc), TRV_OK);
    const sim_metrics *ma = sim_run_metrics(a, 0), *mc = sim_run_metrics(c, 0);
    printf("  ride: rms %.3f max %.3f m/s^2, dampers %.1f W, %d limit events; seed 5: rms %.3f\n", ma->ride_rms_ms2,
           ma->ride_max_ms2, ma->ride_power_W, ma->ride_limit_events, mc->ride_rms_ms2);
    assert_true(ma->reached_goal);
    assert_true(ma->ride_rms_ms2 > 0 && ma->ride_max_ms2 > ma->ride_rms_ms2 && ma->ride_power_W > 0);
    /* half the way on class E at about the top speed: the RMS^2 about half the closed form's */
    tm_vehicle *tv = NULL;
    assert_int_equal(tm_vehicle_read(ctx, vehicle, &tv), TRV_OK);
    tm_quarter_car q;
    tm_vehicle_quarter_car(tv, &q);
    double ref = tm_ride_rms_ms2(&q, 0.004, tv->top_speed_kmh / 3.6) / sqrt(2);
    printf("  ride: closed form over half the way %.3f m/s^2\n", ref);
    assert_true(ma->ride_rms_ms2 > 0.7 * ref && ma->ride_rms_ms2 < 1.3 * ref);
    assert_true(mc->ride_rms_ms2 != ma->ride_rms_ms2);
    write_out(ctx, a, "ride_a");
    write_out(ctx, b, "ride_b");
    static const char *const files[] = {"metrics.json", "events.jsonl", "trajectory_h.csv"};
    for (int k = 0; k < 3; k++) {
        char *x = slurp("ride_a", files[k]), *y = slurp("ride_b", files[k]);
        assert_string_equal(x, y);
        free(x), free(y);
    }
    tm_vehicle_free(tv);
    sim_run_free(a), sim_run_free(b), sim_run_free(c);
    sim_scenario_free(sa), sim_scenario_free(sb), sim_scenario_free(scc);
    trv_ctx_free(ctx);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_hill_direction),
        cmocka_unit_test(test_run_ride),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
