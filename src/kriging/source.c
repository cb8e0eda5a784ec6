/* The samples of a raster DEM (krg_source, krige.h; docs/method.md §1.1):
 * every cell centre transformed into the metric working CRS, the data
 * cells as kriging points in row-major order, and the map from cells to
 * points (-1 for nodata). */
#include "krige.h"

#include <stdlib.h>
#include <string.h>

void krg_source_free(krg_source *s)
{
    if (!s)
        return;
    krg_points_free(s->pts);
    free(s->point_of_cell);
    free(s->wx);
    free(s->wy);
    geo_grid_clear(&s->grid);
    free(s->work_wkt);
    free(s);
}

trv_status krg_source_new(trv_ctx *ctx, const geo_raster *dem, const char *work_wkt, krg_source **out)
{
    *out = NULL;
    krg_source *s = calloc(1, sizeof *s);
    if (!s)
        return trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
    trv_status st = geo_grid_copy(ctx, &s->grid, &dem->grid);
    geo_ct *ct = NULL;
    size_t ncell = (size_t)dem->grid.nx * dem->grid.ny, nvalid = geo_raster_count_valid(dem);
    if (!st && !(s->work_wkt = strdup(work_wkt)))
        st = trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
    if (!st)
        st = geo_ct_create(ctx, dem->grid.wkt, work_wkt, &ct);
    if (!st) {
        s->regular = geo_ct_is_identity(ct);
        s->point_of_cell = malloc(ncell * sizeof *s->point_of_cell);
        s->wx = malloc(ncell * sizeof *s->wx);
        s->wy = malloc(ncell * sizeof *s->wy);
        if (!s->point_of_cell || !s->wx || !s->wy)
            st = trv_error(ctx, TRV_ERR_NOMEM, "out of memory for %zu samples", ncell);
    }
    if (!st)
        st = krg_points_new(ctx, nvalid, &s->pts);
    if (!st) {
        int nx = dem->grid.nx;
        for (size_t i = 0; i < ncell; i++) {
            s->wx[i] = geo_grid_x(&dem->grid, (double)(i % nx));
            s->wy[i] = geo_grid_y(&dem->grid, (double)(i / nx));
        }
        /* every cell centre, data or not: blocks need their corners */
        size_t bad = geo_ct_points(ct, ncell, s->wx, s->wy, NULL);
        if (bad)
            st = trv_error(ctx, TRV_ERR_CRS, "%zu cell centres of the DEM cannot be transformed into the working CRS",
                           bad);
    }
    if (!st) {
        size_t k = 0;
        for (size_t i = 0; i < ncell; i++) {
            if (geo_raster_is_nodata(dem, i)) {
                s->point_of_cell[i] = -1;
                continue;
            }
            s->pts->x[k] = s->wx[i];
            s->pts->y[k] = s->wy[i];
            s->pts->z[k] = dem->f32[i];
            s->point_of_cell[i] = (long)k++;
        }
    }
    geo_ct_free(ct);
    if (st)
        krg_source_free(s);
    else
        *out = s;
    return st;
}
