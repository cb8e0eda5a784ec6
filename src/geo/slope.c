/* Horn's 3x3 slope (docs/method.md §1.8), as gdaldem slope computes it. */
#include "geo_priv.h"

#include <math.h>
#include <stdlib.h>

/* Elevation at column xx of a row (NULL: off the grid), extrapolated
 * linearly across the left/right edge; NAN when nodata or unknown. */
static double at(const float *r, int xx, int nx, int has_nodata, float nodata)
{
    if (!r)
        return NAN;
    int a = xx, b = xx; /* value = 2 r[a] - r[b] off the grid, r[a] on it */
    if (xx < 0)
        a = 0, b = 1;
    else if (xx >= nx)
        a = nx - 1, b = nx - 2;
    if (b < 0 || b >= nx)
        return NAN;
    float fa = r[a], fb = r[b];
    if (has_nodata && (fa == nodata || fb == nodata))
        return NAN;
    return a == xx ? fa : 2.0 * fa - fb;
}

void geo_slope_row(const float *above, const float *row, const float *below, int nx, int has_nodata,
                   float nodata, double ew_m, double ns_m, float out_nodata, float *out)
{
    const double rad2deg = 180.0 / M_PI;
    for (int x = 0; x < nx; x++) {
        float c = row[x];
        if (has_nodata && c == nodata) {
            out[x] = out_nodata;
            continue;
        }
        /* w[0..8]: NW N NE / W C E / SW S SE. Off the grid, rows and
         * columns are extrapolated linearly from the two nearest; a
         * neighbour that is nodata (or cannot be extrapolated) takes c. */
        double w[9];
        for (int j = 0; j < 3; j++) {
            double m = at(row, x + j - 1, nx, has_nodata, nodata);
            double up = above ? at(above, x + j - 1, nx, has_nodata, nodata) : 2 * m - at(below, x + j - 1, nx, has_nodata, nodata);
            double dn = below ? at(below, x + j - 1, nx, has_nodata, nodata) : 2 * m - at(above, x + j - 1, nx, has_nodata, nodata);
            w[j] = up;
            w[3 + j] = m;
            w[6 + j] = dn;
        }
        for (int k = 0; k < 9; k++)
            if (isnan(w[k]))
                w[k] = c;
        double dzdx = ((w[2] + 2 * w[5] + w[8]) - (w[0] + 2 * w[3] + w[6])) / (8 * ew_m);
        double dzdy = ((w[6] + 2 * w[7] + w[8]) - (w[0] + 2 * w[1] + w[2])) / (8 * ns_m);
        out[x] = (float)(atan(sqrt(dzdx * dzdx + dzdy * dzdy)) * rad2deg);
    }
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
