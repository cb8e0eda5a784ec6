/* The zones baked into trv-speed's maps (terramech.h, tm_run_zoned;
 * docs/zones.md): nogo burned all touched, factor and max_speed by cell
 * centre. */
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

void tm_zones_bake(const geo_zones *z, const geo_grid *g, float *speed, unsigned char *reason, unsigned char *limit)
{
    size_t n = (size_t)g->nx * g->ny;
    for (size_t i = 0; i < n; i++) {
        unsigned char b = z->burn[i];
        if (!b || reason[i] == TM_NOGO_NODATA)
            continue;
        if (b & GEO_ZB_NOGO) {
            speed[i] = 0, reason[i] = TM_NOGO_ZONE, limit[i] = TM_LIMIT_NOGO;
            continue;
        }
        if (!(b & GEO_ZB_FACTOR) || reason[i] != TM_GO)
            continue;
        double f, cap;
        zone_effects(z, geo_grid_x(g, (double)(i % g->nx)), geo_grid_y(g, (double)(i / g->nx)), &f, &cap);
        float v = (float)fmin(speed[i] / f, cap);
        if (v != speed[i])
            speed[i] = v, limit[i] = TM_LIMIT_ZONE;
    }
}
