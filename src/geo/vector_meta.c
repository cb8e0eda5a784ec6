/* Dataset metadata of a vector file (geo.h, "vector input"): what a
 * GeoPackage records of the run that made it (geo_vec_set_meta). */
#define _POSIX_C_SOURCE 200809L
#include "geo_priv.h"

#include <stdlib.h>
#include <string.h>

#include <cpl_error.h>
#include <gdal.h>

trv_status geo_vector_meta_read(trv_ctx *ctx, const char *path, const char *key, char **value)
{
    *value = NULL;
    CPLErrorReset();
    GDALDatasetH ds = GDALOpenEx(path, GDAL_OF_VECTOR | GDAL_OF_READONLY, NULL, NULL, NULL);
    if (!ds)
        return trv_error(ctx, TRV_ERR_IO, "cannot open '%s': %s", path, geo_open_msg(path));
    const char *v = GDALGetMetadataItem(ds, key, NULL);
    trv_status st = TRV_OK;
    if (v && !(*value = strdup(v)))
        st = trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
    GDALClose(ds);
    return st;
}
