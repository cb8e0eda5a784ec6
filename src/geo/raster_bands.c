/* Multi-band Float32 GeoTIFFs written band by band (geo.h). */
#include "geo_priv.h"

#include <stdlib.h>
#include <string.h>

#include <cpl_error.h>
#include <gdal.h>

struct geo_bands {
    GDALDatasetH ds;
    char *path;
    int nx, ny, nbands;
};

trv_status geo_bands_open(trv_ctx *ctx, const char *path, const geo_grid *grid, int nbands, double nodata,
                          const char *unit, const trv_meta *meta, int threads, geo_bands **out)
{
    *out = NULL;
    GDALDriverH drv = GDALGetDriverByName("GTiff");
    if (!drv)
        return trv_error(ctx, TRV_ERR_INTERNAL, "GDAL has no GTiff driver (call geo_init first)");
    if (nbands < 1)
        return trv_error(ctx, TRV_ERR_USAGE, "a multi-band raster needs at least one band");
    char nthreads[32];
    snprintf(nthreads, sizeof nthreads, "NUM_THREADS=%d", threads);
    /* DEFLATE level 1: realisations are noisy to their last bits, and level 6
     * (the default) takes twice the CPU to save 2 % of the bytes */
    const char *opts[] = {"TILED=YES",   "BLOCKXSIZE=256",    "BLOCKYSIZE=256",
                          "COMPRESS=DEFLATE", "ZLEVEL=1", "PREDICTOR=3", "INTERLEAVE=BAND",
                          "BIGTIFF=IF_SAFER", threads > 1 ? nthreads : NULL, NULL};
    geo_bands *b = calloc(1, sizeof *b);
    if (!b || !(b->path = strdup(path))) {
        free(b);
        return trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
    }
    CPLErrorReset();
    b->ds = GDALCreate(drv, path, grid->nx, grid->ny, nbands, GDT_Float32, (char **)opts);
    if (!b->ds) {
        trv_status st = trv_error(ctx, TRV_ERR_IO, "cannot create '%s': %s", path, geo_gdal_msg(NULL));
        free(b->path);
        free(b);
        return st;
    }
    b->nx = grid->nx;
    b->ny = grid->ny;
    b->nbands = nbands;
    GDALSetGeoTransform(b->ds, (double *)grid->gt);
    trv_status st = TRV_OK;
    if (grid->wkt && GDALSetProjection(b->ds, grid->wkt) != CE_None)
        st = trv_error(ctx, TRV_ERR_CRS, "cannot write the CRS of '%s': %s", path, geo_gdal_msg(NULL));
    for (int k = 1; k <= nbands && !st; k++) {
        GDALRasterBandH band = GDALGetRasterBand(b->ds, k);
        GDALSetRasterNoDataValue(band, nodata);
        if (unit)
            GDALSetRasterUnitType(band, unit);
    }
    if (!st && meta)
        geo_meta_apply(b->ds, meta);
    if (st) {
        GDALClose(b->ds);
        free(b->path);
        free(b);
        return st;
    }
    *out = b;
    return TRV_OK;
}

trv_status geo_bands_put(trv_ctx *ctx, geo_bands *b, int k, const float *data, const char *desc)
{
    if (k < 1 || k > b->nbands)
        return trv_error(ctx, TRV_ERR_INTERNAL, "band %d of a %d-band raster", k, b->nbands);
    GDALRasterBandH band = GDALGetRasterBand(b->ds, k);
    if (desc)
        GDALSetDescription(band, desc);
    if (GDALRasterIO(band, GF_Write, 0, 0, b->nx, b->ny, (void *)data, b->nx, b->ny, GDT_Float32, 0, 0) !=
        CE_None)
        return trv_error(ctx, TRV_ERR_IO, "cannot write '%s': %s", b->path, geo_gdal_msg(NULL));
    return TRV_OK;
}

trv_status geo_bands_close(trv_ctx *ctx, geo_bands *b)
{
    if (!b)
        return TRV_OK;
    CPLErrorReset();
    GDALClose(b->ds);
    trv_status st = TRV_OK;
    if (CPLGetLastErrorType() >= CE_Failure)
        st = trv_error(ctx, TRV_ERR_IO, "cannot write '%s': %s", b->path, geo_gdal_msg(NULL));
    free(b->path);
    free(b);
    return st;
}
