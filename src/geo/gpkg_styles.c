/* GeoPackage layer styles: the layer_styles table QGIS reads a layer's
 * default style from (geo.h, "vector input"). */
#define _POSIX_C_SOURCE 200809L
#include "geo_priv.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cpl_conv.h>
#include <cpl_error.h>
#include <gdal.h>
#include <ogr_api.h>

char *geo_gpkg_style_read(const char *path, const char *layer)
{
    if (strchr(layer, '\''))
        return NULL;
    CPLPushErrorHandler(CPLQuietErrorHandler);
    GDALDatasetH ds = GDALOpenEx(path, GDAL_OF_VECTOR | GDAL_OF_READONLY, NULL, NULL, NULL);
    char *out = NULL;
    if (ds) {
        char sql[256];
        snprintf(sql, sizeof sql,
                 "SELECT styleQML FROM layer_styles WHERE f_table_name = '%s' ORDER BY useAsDefault DESC, id LIMIT 1",
                 layer);
        OGRLayerH res = GDALDatasetExecuteSQL(ds, sql, NULL, NULL);
        OGRFeatureH feat = res ? OGR_L_GetNextFeature(res) : NULL;
        if (feat && OGR_F_IsFieldSetAndNotNull(feat, 0))
            out = strdup(OGR_F_GetFieldAsString(feat, 0));
        if (feat)
            OGR_F_Destroy(feat);
        if (res)
            GDALDatasetReleaseResultSet(ds, res);
        GDALClose(ds);
    }
    CPLPopErrorHandler();
    CPLErrorReset();
    return out;
}

/* The layer_styles table with QGIS's columns, in the order
 * add_style fills them. NULL (and a GDAL error) when it cannot be made. */
static OGRLayerH create_styles_table(GDALDatasetH ds)
{
    OGRLayerH ls = GDALDatasetCreateLayer(ds, "layer_styles", NULL, wkbNone, NULL);
    static const struct {
        const char *name;
        OGRFieldType type;
        int width;
    } cols[] = {{"f_table_catalog", OFTString, 256}, {"f_table_schema", OFTString, 256},
                {"f_table_name", OFTString, 256},    {"f_geometry_column", OFTString, 256},
                {"styleName", OFTString, 30},        {"styleQML", OFTString, 0},
                {"styleSLD", OFTString, 0},          {"useAsDefault", OFTInteger, 0},
                {"description", OFTString, 0},       {"owner", OFTString, 30},
                {"ui", OFTString, 30},               {"update_time", OFTDateTime, 0}};
    for (size_t k = 0; ls && k < sizeof cols / sizeof cols[0]; k++) {
        OGRFieldDefnH fd = OGR_Fld_Create(cols[k].name, cols[k].type);
        if (cols[k].width)
            OGR_Fld_SetWidth(fd, cols[k].width);
        if (!strcmp(cols[k].name, "useAsDefault"))
            OGR_Fld_SetSubType(fd, OFSTBoolean);
        if (OGR_L_CreateField(ls, fd, TRUE) != OGRERR_NONE)
            ls = NULL;
        OGR_Fld_Destroy(fd);
    }
    return ls;
}

static trv_status add_style(trv_ctx *ctx, const char *path, GDALDatasetH ds, OGRLayerH ls, const char *layer,
                            const char *doc)
{
    OGRLayerH target = GDALDatasetGetLayerByName(ds, layer);
    if (!target)
        return trv_error(ctx, TRV_ERR_INTERNAL, "'%s' has no layer '%s' to style", path, layer);
    const char *geom = OGR_L_GetGeometryColumn(target);
    OGRFeatureH f = OGR_F_Create(OGR_L_GetLayerDefn(ls));
    if (!f)
        return trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
    OGR_F_SetFieldString(f, 0, "");
    OGR_F_SetFieldString(f, 1, "");
    OGR_F_SetFieldString(f, 2, layer);
    OGR_F_SetFieldString(f, 3, geom && *geom ? geom : "geom");
    OGR_F_SetFieldString(f, 4, layer);
    OGR_F_SetFieldString(f, 5, doc);
    OGR_F_SetFieldString(f, 6, "");
    OGR_F_SetFieldInteger(f, 7, 1);
    OGR_F_SetFieldString(f, 8, "traverse default style");
    OGR_F_SetFieldString(f, 9, "");
    OGR_F_SetFieldString(f, 10, "");
    OGR_F_SetFieldDateTimeEx(f, 11, 2000, 1, 1, 0, 0, 0.0f, 100);
    trv_status st = TRV_OK;
    if (OGR_L_CreateFeature(ls, f) != OGRERR_NONE)
        st = trv_error(ctx, TRV_ERR_IO, "cannot write a style into '%s': %s", path, CPLGetLastErrorMsg());
    OGR_F_Destroy(f);
    return st;
}

trv_status geo_gpkg_styles_write(trv_ctx *ctx, const char *path, const char *const *layers,
                                 const char *const *docs, int n)
{
    /* GDAL stamps gpkg_contents.last_change unless OGR_CURRENT_DATE is set:
     * pin it (as geo_vec does) so the file stays reproducible; and, as
     * geo_vec's writes, no rollback journal and no syncs (the same bytes;
     * each style's own transaction otherwise syncs the file, 0.1-0.3 s on a
     * busy disk for the roadmap's) */
    static const char *const held[3][2] = {{"OGR_CURRENT_DATE", "2000-01-01T00:00:00.000Z"},
                                           {"OGR_SQLITE_JOURNAL", "OFF"},
                                           {"OGR_SQLITE_SYNCHRONOUS", "OFF"}};
    char *saved[3] = {NULL, NULL, NULL};
    for (int k = 0; k < 3; k++) {
        const char *old = CPLGetConfigOption(held[k][0], NULL);
        if (old && !(saved[k] = strdup(old))) {
            while (k-- > 0)
                free(saved[k]);
            return trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
        }
    }
    for (int k = 0; k < 3; k++)
        CPLSetConfigOption(held[k][0], held[k][1]);
    trv_status st = TRV_OK;
    CPLErrorReset();
    GDALDatasetH ds = GDALOpenEx(path, GDAL_OF_VECTOR | GDAL_OF_UPDATE, NULL, NULL, NULL);
    OGRLayerH ls = NULL;
    if (!ds)
        st = trv_error(ctx, TRV_ERR_IO, "cannot open '%s' for update: %s", path, CPLGetLastErrorMsg());
    if (!st && !(ls = GDALDatasetGetLayerByName(ds, "layer_styles")) && !(ls = create_styles_table(ds)))
        st = trv_error(ctx, TRV_ERR_IO, "cannot add the layer_styles table to '%s': %s", path, CPLGetLastErrorMsg());
    for (int i = 0; i < n && !st; i++)
        st = add_style(ctx, path, ds, ls, layers[i], docs[i]);
    if (ds) {
        CPLErrorReset();
        GDALClose(ds); /* void before GDAL 3.7: look at the error state */
        if (!st && CPLGetLastErrorType() >= CE_Failure)
            st = trv_error(ctx, TRV_ERR_IO, "cannot write '%s': %s", path, CPLGetLastErrorMsg());
    }
    for (int k = 0; k < 3; k++) {
        CPLSetConfigOption(held[k][0], saved[k]);
        free(saved[k]);
    }
    return st;
}
