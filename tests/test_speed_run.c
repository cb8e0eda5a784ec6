/* tm_run_model_load against trv-speed: the tool writes the maps and the
 * copies of its inputs (speed_vehicle.ini, speed_soils.csv,
 * speed_landuse.csv) into a run directory; the model rebuilt from the
 * copies gives the same speed.tif, gonogo.tif and limit.tif, bit for bit,
 * over every soil x land use of the bundled tables at slopes 0..31 deg. A
 * changed copy changes the rebuilt speeds (the loader reads the copies);
 * a missing copy is an error that says to rerun trv-speed. */
#include "test_common.h"

#include "core/trv.h"
#include "run/run.h"
#include "terramech/terramech.h"

#include <math.h>

#define NX 64 /* slopes 0, 0.49, ... 30.87 deg */
#define NY 16 /* 4 land uses x 4 soils */

static char *run_dir(const char *name)
{
    char *p = NULL;
    assert_true(asprintf(&p, "%s/%s", tmpdir, name) > 0);
    return p;
}

static void write_layer(trv_ctx *ctx, const char *dir, run_id id, const geo_grid *g)
{
    geo_raster *r = NULL;
    assert_int_equal(geo_raster_new(ctx, g, run_layer_of(id)->type, &r), TRV_OK);
    for (int y = 0; y < NY; y++)
        for (int x = 0; x < NX; x++) {
            size_t i = (size_t)y * NX + x;
            if (id == RUN_SLOPE)
                r->f32[i] = (float)(x * 0.49);
            else
                r->u8[i] = (unsigned char)(id == RUN_SOIL ? 1 + y % 4 : 1 + y / 4);
        }
    r->has_nodata = 1;
    r->nodata = run_layer_of(id)->nodata;
    char *p = run_path(dir, id);
    assert_int_equal(geo_raster_write(ctx, r, p, NULL), TRV_OK);
    free(p);
    geo_raster_free(r);
}

/* A run directory with slope, soil and land use, and trv-speed run on it. */
static char *make_run(trv_ctx *ctx)
{
    char *dir = run_dir("run"), *wkt = NULL;
    assert_int_equal(mkdir(dir, 0777), 0);
    assert_int_equal(geo_crs_wkt(ctx, "EPSG:32616", &wkt), TRV_OK);
    geo_grid g = {NX, NY, {730000, 30, 0, 4069000, 0, -30}, wkt};
    static const run_id in[3] = {RUN_SLOPE, RUN_SOIL, RUN_LANDUSE};
    for (int k = 0; k < 3; k++)
        write_layer(ctx, dir, in[k], &g);
    free(wkt);
    char *bin = env_path("TRV_BIN", "bin", "trv-speed"), *veh = data_path("vehicles/ugv_hua2022.ini");
    char *soils = data_path("classes/soils.csv"), *lu = data_path("classes/landuse.csv"), *cmd = NULL;
    assert_true(asprintf(&cmd, "'%s' -q --terrain '%s' --vehicle '%s' --soils '%s' --landuse-classes '%s'", bin, dir,
                         veh, soils, lu) > 0);
    assert_int_equal(system(cmd), 0);
    free(cmd);
    free(bin);
    free(veh);
    free(soils);
    free(lu);
    return dir;
}

/* Cells where the model rebuilt from dir's copies differs from the maps. */
static int differences(trv_ctx *ctx, const char *dir)
{
    tm_run_model rm;
    assert_int_equal(tm_run_model_load(ctx, dir, &rm), TRV_OK);
    static const run_id which[6] = {RUN_SLOPE, RUN_SOIL, RUN_LANDUSE, RUN_SPEED, RUN_GONOGO, RUN_LIMIT};
    run_stack s;
    assert_int_equal(run_load(ctx, dir, which, 6, NULL, &s), TRV_OK);
    const geo_raster *slope = s.layer[RUN_SLOPE];
    float speed[NX];
    unsigned char why[NX], lim[NX];
    int diff = 0;
    for (int y = 0; y < NY; y++) {
        size_t o = (size_t)y * NX;
        tm_row(&rm.model, slope->f32 + o, (float)slope->nodata, s.layer[RUN_SOIL]->u8 + o, s.layer[RUN_LANDUSE]->u8 + o,
               NX, speed, why, lim);
        for (int x = 0; x < NX; x++)
            diff += memcmp(&speed[x], &s.layer[RUN_SPEED]->f32[o + x], sizeof(float)) != 0 ||
                    why[x] != s.layer[RUN_GONOGO]->u8[o + x] || lim[x] != s.layer[RUN_LIMIT]->u8[o + x];
    }
    run_stack_clear(&s);
    tm_run_model_free(&rm);
    return diff;
}

static void test_rebuilt_model(void **state)
{
    (void)state;
    trv_ctx *ctx = trv_ctx_new();
    char *dir = make_run(ctx);
    assert_int_equal(differences(ctx, dir), 0);

    /* the maps hold every kind of cell, or the comparison shows little */
    geo_raster *g = NULL, *l = NULL;
    char *pg = run_path(dir, RUN_GONOGO), *pl = run_path(dir, RUN_LIMIT);
    assert_int_equal(geo_raster_read(ctx, pg, GEO_U8, &g), TRV_OK);
    assert_int_equal(geo_raster_read(ctx, pl, GEO_U8, &l), TRV_OK);
    int seen[8] = {0}, lseen[TM_NLIMITS] = {0};
    for (int i = 0; i < NX * NY; i++) {
        seen[g->u8[i]]++;
        lseen[l->u8[i]]++;
    }
    for (int k = 0; k < 5; k++)
        if (!seen[k])
            fail_msg("no cell of reason %d in gonogo.tif", k);
    for (int k = 1; k < TM_NLIMITS - 2; k++) /* top speed, power, traction, ride */
        if (!lseen[k])
            fail_msg("no cell bound by %s in limit.tif", tm_limit_name(k));
    geo_raster_free(g);
    geo_raster_free(l);
    free(pg);
    free(pl);

    /* half the engine in the vehicle's copy: the rebuilt power-bound speeds differ */
    char *pv = run_other_path(dir, RUN_O_SPEED_VEHICLE);
    size_t len = 0;
    char *text = trv_file_read(ctx, pv, &len);
    assert_non_null(text);
    char *at = strstr(text, "engine_power_kW = 62");
    assert_non_null(at);
    memcpy(at, "engine_power_kW = 31", 20);
    FILE *f = fopen(pv, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
    int n = differences(ctx, dir);
    if (n < 10)
        fail_msg("half the power changed only %d cells", n);

    /* a missing copy */
    char *pl2 = run_other_path(dir, RUN_O_SPEED_LANDUSE);
    assert_int_equal(unlink(pl2), 0);
    tm_run_model rm;
    assert_int_equal(tm_run_model_load(ctx, dir, &rm), TRV_ERR_IO);
    assert_contains(trv_errmsg(ctx), "run trv-speed --terrain");
    assert_null(rm.vehicle);
    free(pl2);
    free(text);
    free(pv);
    free(dir);
    trv_ctx_free(ctx);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rebuilt_model),
    };
    return cmocka_run_group_tests(tests, tmpdir_setup, tmpdir_teardown);
}
