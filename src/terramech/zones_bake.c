/* The zones baked into trv-speed's maps by tiles (terramech.h, tm_run_split) and
 * into each realisation's rows (realize.h; docs/zones.md): nogo burned all
 * touched, factor and max_speed by cell centre. */
#include "terramech.h"

#include "geo/zones.h"

#include <math.h>

/* The product of the factors and the smallest cap (km/h, INFINITY: none)
 * of the factor and max_speed zones holding the point. */
static void zone_effects(const geo_zones *z, double x, double y, double *f, double *cap)
{
    *f = 1, *cap = INFINITY;
    for (int k = 0; k < z->n; k++) {
        if (z->z[k].effect == GEO_ZONE_NOGO || !geo_zone_contains(z, k, x, y))
            continue;
        if (z->z[k].effect == GEO_ZONE_FACTOR)
            *f *= z->z[k].value;
        else
            *cap = fmin(*cap, z->z[k].value);
    }
}

/* Cell i of g, burned b, its values at speed, reason, limit. */
static void bake_cell(const geo_zones *z, const geo_grid *g, size_t i, unsigned char b, float *speed,
                      unsigned char *reason, unsigned char *limit)
{
    if (!b || *reason == TM_NOGO_NODATA)
        return;
    if (b & GEO_ZB_NOGO) {
        *speed = 0, *reason = TM_NOGO_ZONE, *limit = TM_LIMIT_NOGO;
        return;
    }
    if (!(b & GEO_ZB_FACTOR) || *reason != TM_GO)
        return;
    double f, cap;
    zone_effects(z, geo_grid_x(g, (double)(i % g->nx)), geo_grid_y(g, (double)(i / g->nx)), &f, &cap);
    float v = (float)fmin(*speed / f, cap);
    if (v != *speed)
        *speed = v, *limit = TM_LIMIT_ZONE;
}

void tm_zones_bake_rows(const geo_zones *z, const geo_grid *g, int y0, int y1, const unsigned char *burn, float *speed,
                        unsigned char *reason, unsigned char *limit)
{
    for (size_t j = 0, n = (size_t)(y1 - y0) * g->nx; j < n; j++)
        bake_cell(z, g, (size_t)y0 * g->nx + j, burn[j], speed + j, reason + j, limit + j);
}

void tm_zones_bake_window(const geo_zones *z, const geo_grid *g, int x0, int y0, int nx, int ny,
                          const unsigned char *burn, float *speed, unsigned char *reason, unsigned char *limit)
{
    for (int y = 0; y < ny; y++)
        for (int x = 0; x < nx; x++) {
            size_t j = (size_t)y * nx + x;
            bake_cell(z, g, (size_t)(y0 + y) * g->nx + (size_t)(x0 + x), burn[j], speed + j, reason + j, limit + j);
        }
}
