/* What a raster file says about itself (geo.h, "raster information"):
 * grid, band 1's type, description, unit, nodata, colour table, category
 * names, the dataset's metadata, its value range and the codes it holds. */
#define _POSIX_C_SOURCE 200809L
#include "geo_priv.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cpl_conv.h>
#include <cpl_error.h>
#include <cpl_string.h>
#include <gdal.h>

static GDALDatasetH open_ds(trv_ctx *ctx, const char *path, trv_status *st)
{
    CPLErrorReset();
    GDALDatasetH ds = GDALOpenEx(path, GDAL_OF_RASTER | GDAL_OF_READONLY, NULL, NULL, NULL);
    *st = ds ? TRV_OK
             : trv_error(ctx, TRV_ERR_IO, "cannot open '%s': %s", path, geo_open_msg(path));
    return ds;
}

/* A malloc'ed copy of a CSL list (NULL-terminated), its length in *n. */
static char **copy_list(char **src, int *n, int *failed)
{
    *n = src ? CSLCount(src) : 0;
    if (*n == 0)
        return NULL;
    char **out = calloc((size_t)*n + 1, sizeof *out);
    for (int i = 0; out && i < *n; i++)
        if (!(out[i] = strdup(src[i]))) {
            *failed = 1;
            return out;
        }
    if (!out)
        *failed = 1, *n = 0;
    return out;
}

static void band_info(GDALRasterBandH b, geo_raster_info *info, int *failed)
{
    info->type = GDALGetRasterDataType(b) == GDT_Byte ? GEO_BAND_BYTE : GEO_BAND_OTHER;
    snprintf(info->type_name, sizeof info->type_name, "%s", GDALGetDataTypeName(GDALGetRasterDataType(b)));
    info->desc = strdup(GDALGetDescription(b));
    const char *unit = GDALGetRasterUnitType(b);
    info->unit = strdup(unit ? unit : "");
    *failed |= !info->desc || !info->unit;
    info->nodata = GDALGetRasterNoDataValue(b, &info->has_nodata);
    GDALColorTableH ct = GDALGetRasterColorTable(b);
    info->ncolours = ct ? GDALGetColorEntryCount(ct) : 0;
    for (int i = 0; i < info->ncolours && i < 256; i++) {
        const GDALColorEntry *e = GDALGetColorEntry(ct, i);
        info->rgba[i][0] = (unsigned char)e->c1, info->rgba[i][1] = (unsigned char)e->c2;
        info->rgba[i][2] = (unsigned char)e->c3, info->rgba[i][3] = (unsigned char)e->c4;
    }
    info->categories = copy_list(GDALGetRasterCategoryNames(b), &info->ncategories, failed);
}

trv_status geo_raster_info_read(trv_ctx *ctx, const char *path, geo_raster_info *info)
{
    memset(info, 0, sizeof *info);
    trv_status st;
    GDALDatasetH ds = open_ds(ctx, path, &st);
    if (!ds)
        return st;
    int failed = 0;
    geo_grid *g = &info->grid;
    g->nx = GDALGetRasterXSize(ds);
    g->ny = GDALGetRasterYSize(ds);
    info->has_gt = GDALGetGeoTransform(ds, g->gt) == CE_None;
    OGRSpatialReferenceH srs = GDALGetSpatialRef(ds);
    if (srs) {
        g->wkt = geo_srs_wkt(srs);
        if (!g->wkt)
            st = trv_error(ctx, TRV_ERR_CRS, "cannot read the CRS of '%s'", path);
        else if (geo_crs_describe_srs(srs, &info->crs))
            failed = 1;
    }
    info->nbands = GDALGetRasterCount(ds);
    if (!st && info->nbands >= 1)
        band_info(GDALGetRasterBand(ds, 1), info, &failed);
    if (!st)
        info->meta = copy_list(GDALGetMetadata(ds, NULL), &info->nmeta, &failed);
    GDALClose(ds);
    if (!st && failed)
        st = trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
    if (st)
        geo_raster_info_clear(info);
    return st;
}

void geo_raster_info_clear(geo_raster_info *info)
{
    geo_grid_clear(&info->grid);
    geo_crs_desc_clear(&info->crs);
    free(info->desc);
    free(info->unit);
    for (int i = 0; info->categories && info->categories[i]; i++)
        free(info->categories[i]);
    free(info->categories);
    for (int i = 0; info->meta && info->meta[i]; i++)
        free(info->meta[i]);
    free(info->meta);
    memset(info, 0, sizeof *info);
}

const char *geo_raster_info_meta(const geo_raster_info *info, const char *key)
{
    size_t n = strlen(key);
    for (int i = 0; i < info->nmeta; i++)
        if (!strncmp(info->meta[i], key, n) && info->meta[i][n] == '=')
            return info->meta[i] + n + 1;
    return NULL;
}

trv_status geo_raster_minmax(trv_ctx *ctx, const char *path, double mm[2], int *any)
{
    trv_status st;
    GDALDatasetH ds = open_ds(ctx, path, &st);
    if (!ds)
        return st;
    *any = 0;
    GDALRasterBandH b = GDALGetRasterCount(ds) >= 1 ? GDALGetRasterBand(ds, 1) : NULL;
    CPLErrorReset();
    if (!b)
        st = trv_error(ctx, TRV_ERR_FORMAT, "'%s' has no raster band", path);
    else if (GDALComputeRasterMinMax(b, FALSE, mm) == CE_None)
        *any = 1;
    else if (!strstr(CPLGetLastErrorMsg(), "no valid pixels"))
        st = trv_error(ctx, TRV_ERR_FORMAT, "cannot read '%s': %s", path, geo_gdal_msg("not a format GDAL recognises"));
    GDALClose(ds);
    return st;
}

trv_status geo_raster_codes(trv_ctx *ctx, const char *path, unsigned char present[256])
{
    memset(present, 0, 256);
    trv_status st;
    GDALDatasetH ds = open_ds(ctx, path, &st);
    if (!ds)
        return st;
    GDALRasterBandH b = GDALGetRasterCount(ds) >= 1 ? GDALGetRasterBand(ds, 1) : NULL;
    int nx = GDALGetRasterXSize(ds), ny = GDALGetRasterYSize(ds);
    unsigned char *row = b ? malloc((size_t)nx) : NULL;
    if (!b)
        st = trv_error(ctx, TRV_ERR_FORMAT, "'%s' has no raster band", path);
    else if (!row)
        st = trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
    for (int y = 0; y < ny && !st; y++) {
        if (GDALRasterIO(b, GF_Read, 0, y, nx, 1, row, nx, 1, GDT_Byte, 0, 0) != CE_None) {
            st = trv_error(ctx, TRV_ERR_FORMAT, "cannot read '%s': %s", path,
                           geo_gdal_msg("not a format GDAL recognises"));
            break;
        }
        for (int x = 0; x < nx; x++)
            present[row[x]] = 1;
    }
    free(row);
    GDALClose(ds);
    return st;
}
