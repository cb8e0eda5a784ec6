/* An in-memory planner terrain for the tests (prm_terrain, prm/prm.h): the
 * six layers allocated on a UTM 16N grid (EPSG:32616) of nx x ny cells of
 * `cell` metres whose north-west corner is (x0, y0), zero-filled; the
 * caller paints them. 0 on success. Freed with prm_terrain_clear. */
#ifndef TEST_TERRAIN_MEM_H
#define TEST_TERRAIN_MEM_H

#include "prm/prm.h"

#include <stdlib.h>
#include <string.h>

static inline int test_terrain_new(prm_terrain *t, int nx, int ny, double x0, double y0, double cell)
{
    trv_ctx *ctx = trv_ctx_new();
    char *wkt = NULL;
    memset(t, 0, sizeof *t);
    int bad = !ctx || geo_crs_wkt(ctx, "EPSG:32616", &wkt) != TRV_OK;
    if (!bad) {
        geo_grid g = {nx, ny, {x0, cell, 0, y0, 0, -cell}, wkt};
        bad = geo_raster_new(ctx, &g, GEO_U8, &t->cls) || geo_raster_new(ctx, &g, GEO_F32, &t->cost) ||
              geo_raster_new(ctx, &g, GEO_U8, &t->gonogo) || geo_raster_new(ctx, &g, GEO_F32, &t->dem) ||
              geo_raster_new(ctx, &g, GEO_F32, &t->slope) || geo_raster_new(ctx, &g, GEO_F32, &t->speed);
    }
    free(wkt);
    trv_ctx_free(ctx);
    if (bad)
        return -1;
    t->grid = &t->cls->grid;
    t->cell_m = cell;
    return 0;
}

/* test_terrain_new painted as one GO plane: class 3 (safe), cost 0.2,
 * elevation 100 m, SLOPE degrees (the layer only: the DEM stays flat) and
 * SPEED km/h everywhere, which is also the top speed. 0 on success. */
static inline int test_terrain_plane(prm_terrain *t, int nx, int ny, double x0, double y0, double cell, float slope,
                                     float speed)
{
    if (test_terrain_new(t, nx, ny, x0, y0, cell))
        return -1;
    for (long i = 0; i < (long)nx * ny; i++) {
        t->cls->u8[i] = 3;
        t->cost->f32[i] = 0.2f;
        t->dem->f32[i] = 100;
        t->slope->f32[i] = slope;
        t->speed->f32[i] = speed;
    }
    t->top_speed_kmh = speed;
    return 0;
}

/* The simulator tests' flat GO plane: slope 0, 15 km/h. */
static inline int test_terrain_flat(prm_terrain *t, int nx, int ny, double x0, double y0, double cell)
{
    return test_terrain_plane(t, nx, ny, x0, y0, cell, 0, 15);
}

#endif
