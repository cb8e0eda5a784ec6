/* Multi-band Float32 GeoTIFFs written by rows (geo.h). */
#include "block.h"
#include "geo_priv.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <cpl_error.h>
#include <gdal.h>

enum { STRIP = 256 }; /* the tiles' height: geo_bands_put_rows' strips */

struct geo_bands {
    GDALDatasetH ds;
    char *path;
    int nx, ny, nbands;
    float **strip;          /* per band: STRIP rows being filled (NULL: none) */
    int *next;              /* per band: the next row geo_bands_put_rows takes */
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
    if (!b || !(b->path = strdup(path)) || !(b->strip = calloc((size_t)nbands, sizeof *b->strip)) ||
        !(b->next = calloc((size_t)nbands, sizeof *b->next))) {
        if (b) {
            free(b->path);
            free(b->strip);
        }
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
        free(b->strip);
        free(b->next);
        free(b);
        return st;
    }
    geo_block_cache_reserve(grid->nx, 2); /* geo_bands_put_rows: two bands' strips in the cache */
    *out = b;
    return TRV_OK;
}

/* A write failed (errno set to 0 before it): the cause, the system's first
 * when there is one (a full disk: libtiff's message does not say so). */
static trv_status write_error(trv_ctx *ctx, const geo_bands *b)
{
    int err = errno;
    const char *gdal = geo_gdal_msg(NULL);
    return err ? trv_error(ctx, TRV_ERR_IO, "cannot write '%s': %s (%s)", b->path, strerror(err), gdal)
               : trv_error(ctx, TRV_ERR_IO, "cannot write '%s': %s", b->path, gdal);
}

/* Band k's strip (rows y0 .. y0 + n - 1) to the file (its description
 * with the first), its tiles flushed. */
static trv_status put_strip(trv_ctx *ctx, geo_bands *b, int k, int y0, int n, const char *desc)
{
    GDALRasterBandH band = GDALGetRasterBand(b->ds, k);
    if (y0 == 0 && desc)
        GDALSetDescription(band, desc);
    CPLErrorReset();
    errno = 0;
    if (GDALRasterIO(band, GF_Write, 0, y0, b->nx, n, b->strip[k - 1], b->nx, n, GDT_Float32, 0, 0) != CE_None ||
        GDALFlushRasterCache(band) != CE_None || CPLGetLastErrorType() >= CE_Failure) /* a tile's write failed */
        return write_error(ctx, b);
    return TRV_OK;
}

trv_status geo_bands_put_rows(trv_ctx *ctx, geo_bands *b, int k, int nk, int y0, int n, const float *const *rows,
                              const char *const *desc)
{
    for (int i = 0; i < nk; i++) {
        int kb = k + i;
        if (kb < 1 || kb > b->nbands || y0 != b->next[kb - 1] || n < 1 || y0 + n > b->ny)
            return trv_error(ctx, TRV_ERR_INTERNAL, "rows %d .. %d of band %d of a %d-band raster (row %d expected)",
                             y0, y0 + n - 1, kb, b->nbands, kb >= 1 && kb <= b->nbands ? b->next[kb - 1] : -1);
        if (!b->strip[kb - 1] && !(b->strip[kb - 1] = malloc((size_t)b->nx * STRIP * sizeof **b->strip)))
            return trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
    }
    trv_status st = TRV_OK;
    for (int y = y0; y < y0 + n && !st; y++) {
        for (int i = 0; i < nk; i++)
            memcpy(b->strip[k + i - 1] + (size_t)(y % STRIP) * b->nx, rows[i] + (size_t)(y - y0) * b->nx,
                   (size_t)b->nx * sizeof **b->strip);
        if (y % STRIP == STRIP - 1 || y == b->ny - 1) /* strip by strip, band by band: any rows, one order */
            for (int i = 0; i < nk && !st; i++)
                st = put_strip(ctx, b, k + i, y - y % STRIP, y % STRIP + 1, desc ? desc[i] : NULL);
    }
    for (int i = 0; i < nk; i++)
        if ((b->next[k + i - 1] = y0 + n) == b->ny) { /* the band is done */
            free(b->strip[k + i - 1]);
            b->strip[k + i - 1] = NULL;
        }
    return st;
}

trv_status geo_bands_close(trv_ctx *ctx, geo_bands *b)
{
    if (!b)
        return TRV_OK;
    for (int k = 0; k < b->nbands; k++)
        free(b->strip[k]);
    free(b->strip);
    free(b->next);
    CPLErrorReset();
    errno = 0;
    GDALClose(b->ds);
    trv_status st = CPLGetLastErrorType() >= CE_Failure ? write_error(ctx, b) : TRV_OK;
    free(b->path);
    free(b);
    return st;
}
