/* Horn's 3x3 slope (docs/method.md §1.8), as gdaldem slope computes it. */
#include "geo_priv.h"

#include <math.h>
#include <stdlib.h>

float geo_slope_at(const float *above, const float *row, const float *below, int nx, int x, int has_nodata,
                   float nodata, double ew_m, double ns_m, float out_nodata)
{
    if (has_nodata && row[x] == nodata)
        return out_nodata;
    double gx, gy;
    geo_horn_diff(above, row, below, nx, x, has_nodata, nodata, &gx, &gy);
    double dzdx = gx / (8 * ew_m);
    double dzdy = gy / (8 * ns_m);
    return (float)(atan(sqrt(dzdx * dzdx + dzdy * dzdy)) * (180.0 / M_PI));
}

void geo_slope_row(const float *above, const float *row, const float *below, int nx, int has_nodata,
                   float nodata, double ew_m, double ns_m, float out_nodata, float *out)
{
    for (int x = 0; x < nx; x++)
        out[x] = geo_slope_at(above, row, below, nx, x, has_nodata, nodata, ew_m, ns_m, out_nodata);
}

trv_status geo_slope(trv_ctx *ctx, const geo_raster *dem, geo_raster **out)
{
    *out = NULL;
    if (dem->type != GEO_F32)
        return trv_error(ctx, TRV_ERR_INTERNAL, "slope needs a Float32 DEM");
    int geographic = geo_crs_is_geographic(dem->grid.wkt);
    if (geographic != 0)
        return trv_error(ctx, TRV_ERR_CRS, geographic > 0 ? "slope needs a projected CRS in metres, not a geographic one"
                                                          : "slope needs a projected CRS, and the DEM has none");
    double m = geo_crs_metres_per_unit(dem->grid.wkt);
    double ew = dem->grid.gt[1] * m, ns = fabs(dem->grid.gt[5]) * m;
    geo_raster *r;
    trv_status st = geo_raster_new(ctx, &dem->grid, GEO_F32, &r);
    if (st)
        return st;
    r->has_nodata = 1;
    r->nodata = -9999.0;
    int nx = dem->grid.nx, ny = dem->grid.ny;
    for (int y = 0; y < ny; y++) {
        const float *row = dem->f32 + (size_t)y * nx;
        geo_slope_row(y > 0 ? row - nx : NULL, row, y + 1 < ny ? row + nx : NULL, nx, dem->has_nodata,
                      (float)dem->nodata, ew, ns, (float)r->nodata, r->f32 + (size_t)y * nx);
        if ((y & 127) == 0 && (st = trv_progress(ctx, (double)y / ny, "slope"))) {
            geo_raster_free(r);
            return st;
        }
    }
    if ((st = trv_progress(ctx, 1.0, "slope"))) {
        geo_raster_free(r);
        return st;
    }
    *out = r;
    return TRV_OK;
}
