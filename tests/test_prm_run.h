/* A run directory for the roadmap's lazy-terrain and tiled-build tests
 * (test_prm_lazy.c, test_prm_tiled.c): PRM_RUN_NX x PRM_RUN_NY cells of 30 m
 * (3 x 3 lazy tiles of 256, partial ones at the east and south edges) as
 * trv-speed and trv-cost leave it, written to files; and the comparison of
 * a lazy terrain's cell with the eager read's. Include after
 * test_common.h (tmpdir, data_path). */
#ifndef TEST_PRM_RUN_H
#define TEST_PRM_RUN_H

#include "geo/geo.h"
#include "prm/prm_priv.h"
#include "run/run.h"
#include "terramech/terramech.h"

#include <math.h>
#include <sys/stat.h>

enum { PRM_RUN_NX = 600, PRM_RUN_NY = 530 };

static void copy_file(const char *from, const char *to)
{
    char *cmd = NULL;
    assert_true(asprintf(&cmd, "cp '%s' '%s'", from, to) > 0);
    assert_int_equal(system(cmd), 0);
    free(cmd);
}

static void write_layer(trv_ctx *ctx, const char *dir, run_id id, geo_raster *r)
{
    char *p = run_path(dir, id);
    assert_int_equal(geo_raster_write(ctx, r, p, NULL), TRV_OK);
    free(p);
}

/* A run directory as trv-speed and trv-cost leave it: rolling dem, its
 * slope, soils 1..4 and land uses 3, 4 and a water lake (NOGO), speed and
 * gonogo by the model's own tm_row from the copies, class 1..3 where GO. */
static void make_run(trv_ctx *ctx, const char *dir)
{
    assert_int_equal(mkdir(dir, 0755), 0);
    static const char *const copies[3][2] = {{"vehicles/ugv_hua2022.ini", "speed_vehicle.ini"},
                                             {"classes/soils.csv", "speed_soils.csv"},
                                             {"classes/landuse.csv", "speed_landuse.csv"}};
    for (int k = 0; k < 3; k++) {
        char *from = data_path(copies[k][0]), *to = NULL;
        assert_true(asprintf(&to, "%s/%s", dir, copies[k][1]) > 0);
        copy_file(from, to);
        free(from);
        free(to);
    }
    char *wkt = NULL;
    assert_int_equal(geo_crs_wkt(ctx, "EPSG:32616", &wkt), TRV_OK);
    geo_grid g = {PRM_RUN_NX, PRM_RUN_NY, {500000, 30, 0, 4000000, 0, -30}, wkt};
    geo_raster *dem, *slope, *soil, *lu, *speed, *gonogo, *cost, *cls;
    assert_int_equal(geo_raster_new(ctx, &g, GEO_F32, &dem), TRV_OK);
    dem->has_nodata = 1;
    dem->nodata = -9999;
    for (int r = 0; r < PRM_RUN_NY; r++)
        for (int c = 0; c < PRM_RUN_NX; c++)
            dem->f32[(size_t)r * PRM_RUN_NX + c] = (float)(300 + 60 * sin(c / 23.0) * cos(r / 31.0) + 0.2 * c);
    assert_int_equal(geo_slope(ctx, dem, &slope), TRV_OK);
    assert_int_equal(geo_raster_new(ctx, &g, GEO_U8, &soil), TRV_OK);
    assert_int_equal(geo_raster_new(ctx, &g, GEO_U8, &lu), TRV_OK);
    assert_int_equal(geo_raster_new(ctx, &g, GEO_F32, &speed), TRV_OK);
    assert_int_equal(geo_raster_new(ctx, &g, GEO_U8, &gonogo), TRV_OK);
    assert_int_equal(geo_raster_new(ctx, &g, GEO_F32, &cost), TRV_OK);
    assert_int_equal(geo_raster_new(ctx, &g, GEO_U8, &cls), TRV_OK);
    soil->has_nodata = lu->has_nodata = 1;
    for (int r = 0; r < PRM_RUN_NY; r++)
        for (int c = 0; c < PRM_RUN_NX; c++) {
            size_t i = (size_t)r * PRM_RUN_NX + c;
            soil->u8[i] = (unsigned char)(1 + (c / 40 + r / 50) % 4);
            lu->u8[i] = hypot(c - 420, r - 380) < 45 ? 1 : (unsigned char)(3 + (c / 70 + r / 90) % 2);
            cost->f32[i] = (float)((c * 7 + r * 13) % 100) / 100;
        }
    tm_run_model rm;
    assert_int_equal(tm_run_model_load(ctx, dir, &rm), TRV_OK);
    for (int r = 0; r < PRM_RUN_NY; r++) {
        size_t i = (size_t)r * PRM_RUN_NX;
        tm_row(&rm.model, slope->f32 + i, (float)slope->nodata, soil->u8 + i, lu->u8 + i, PRM_RUN_NX, speed->f32 + i,
               gonogo->u8 + i, NULL);
        for (int c = 0; c < PRM_RUN_NX; c++)
            cls->u8[i + c] = gonogo->u8[i + c] ? 0 : (unsigned char)(1 + (c * 3 + r) % 3);
    }
    tm_run_model_free(&rm);
    write_layer(ctx, dir, RUN_DEM, dem);
    write_layer(ctx, dir, RUN_SLOPE, slope);
    write_layer(ctx, dir, RUN_SOIL, soil);
    write_layer(ctx, dir, RUN_LANDUSE, lu);
    write_layer(ctx, dir, RUN_SPEED, speed);
    write_layer(ctx, dir, RUN_GONOGO, gonogo);
    write_layer(ctx, dir, RUN_COST, cost);
    write_layer(ctx, dir, RUN_CLASS, cls);
    geo_raster *all[8] = {dem, slope, soil, lu, speed, gonogo, cost, cls};
    for (int k = 0; k < 8; k++)
        geo_raster_free(all[k]);
    free(wkt);
}

static char *run_dir(const char *name)
{
    char *d = NULL;
    assert_true(asprintf(&d, "%s/%s", tmpdir, name) > 0);
    return d;
}

/* Cell i of lazy as the eager read has it: the six layers, and for a GO
 * cell its gradient and pair. */
static int cell_same(const prm_terrain *e, const prm_terrain *l, size_t i)
{
    long a = prm_at(e, (long)i), b = prm_at(l, (long)i); /* each terrain's layout (prm.h tile_ntx) */
    int same = e->cls->u8[a] == l->cls->u8[b] && e->gonogo->u8[a] == l->gonogo->u8[b] &&
               e->dem->f32[a] == l->dem->f32[b] && e->slope->f32[a] == l->slope->f32[b] &&
               e->speed->f32[a] == l->speed->f32[b] && e->cost->f32[a] == l->cost->f32[b];
    if (same && prm_cell_go(e, (long)i))
        same = e->aniso->grad[2 * a] == l->aniso->grad[2 * b] &&
               e->aniso->grad[2 * a + 1] == l->aniso->grad[2 * b + 1] &&
               !memcmp(&e->aniso->codes[2 * e->aniso->pair[a]], &l->aniso->codes[2 * l->aniso->pair[b]], 2);
    return same;
}

#endif
