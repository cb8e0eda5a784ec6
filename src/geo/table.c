/* Reading a vector layer back through OGR: geometry and numeric fields. */
#include "geo_priv.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <cpl_conv.h>
#include <cpl_error.h>
#include <gdal.h>
#include <ogr_api.h>

void geo_table_free(geo_table *t)
{
    if (!t)
        return;
    free(t->x);
    free(t->y);
    free(t->v);
    free(t->wkt);
    free(t);
}

trv_status geo_table_read(trv_ctx *ctx, const char *path, const char *layer, const char *const *fields, int nfields,
                          geo_table **out)
{
    *out = NULL;
    CPLErrorReset();
    GDALDatasetH ds = GDALOpenEx(path, GDAL_OF_VECTOR | GDAL_OF_READONLY, NULL, NULL, NULL);
    if (!ds)
        return trv_error(ctx, TRV_ERR_IO, "cannot open '%s': %s", path, geo_open_msg(path));
    trv_status st = TRV_OK;
    geo_table *t = NULL;
    int *idx = NULL;
    OGRLayerH lyr = GDALDatasetGetLayerByName(ds, layer);
    if (!lyr) {
        st = trv_error(ctx, TRV_ERR_FORMAT, "'%s' has no layer '%s'", path, layer);
        goto done;
    }
    OGRFeatureDefnH defn = OGR_L_GetLayerDefn(lyr);
    idx = malloc((size_t)(nfields > 0 ? nfields : 1) * sizeof *idx);
    t = calloc(1, sizeof *t);
    GIntBig count = OGR_L_GetFeatureCount(lyr, 1);
    if (!idx || !t || count < 0) {
        st = trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
        goto done;
    }
    for (int k = 0; k < nfields; k++)
        if ((idx[k] = OGR_FD_GetFieldIndex(defn, fields[k])) < 0) {
            st = trv_error(ctx, TRV_ERR_FORMAT, "'%s', layer '%s': no field '%s'", path, layer, fields[k]);
            goto done;
        }
    t->nfields = nfields;
    size_t m = count > 0 ? (size_t)count : 1;
    t->x = malloc(m * sizeof *t->x);
    t->y = malloc(m * sizeof *t->y);
    t->v = malloc(m * (size_t)(nfields > 0 ? nfields : 1) * sizeof *t->v);
    if (!t->x || !t->y || !t->v) {
        st = trv_error(ctx, TRV_ERR_NOMEM, "out of memory for %lld features", (long long)count);
        goto done;
    }
    OGRSpatialReferenceH srs = OGR_L_GetSpatialRef(lyr);
    if (srs) {
        t->wkt = geo_srs_wkt(srs);
    }
    OGR_L_ResetReading(lyr);
    OGRFeatureH f;
    while ((f = OGR_L_GetNextFeature(lyr)) != NULL) {
        if (t->n >= (long)m) {
            OGR_F_Destroy(f);
            st = trv_error(ctx, TRV_ERR_FORMAT, "'%s', layer '%s': more features than it declares", path, layer);
            goto done;
        }
        OGRGeometryH g = OGR_F_GetGeometryRef(f);
        t->x[t->n] = t->y[t->n] = NAN;
        if (g && OGR_G_GetPointCount(g) > 0) {
            t->x[t->n] = OGR_G_GetX(g, 0);
            t->y[t->n] = OGR_G_GetY(g, 0);
        }
        for (int k = 0; k < nfields; k++)
            t->v[t->n * nfields + k] = OGR_F_IsFieldSetAndNotNull(f, idx[k]) ? OGR_F_GetFieldAsDouble(f, idx[k]) : NAN;
        t->n++;
        OGR_F_Destroy(f);
    }
done:
    free(idx);
    GDALClose(ds);
    if (st)
        geo_table_free(t);
    else
        *out = t;
    return st;
}
