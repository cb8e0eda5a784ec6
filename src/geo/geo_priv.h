/* Private to src/geo: helpers shared between its files. */
#ifndef GEO_PRIV_H
#define GEO_PRIV_H

#include "geo.h"

#include <ogr_srs_api.h>

/* GDAL's last error text, or a fixed fallback; never NULL. */
const char *geo_gdal_msg(void);
/* Spatial reference from WKT (or any user input) with lon/lat axis order. */
OGRSpatialReferenceH geo_srs_new(const char *def);
/* 1 if both WKTs name the same CRS (both NULL counts as same). */
int geo_crs_same(const char *a, const char *b);
/* Transformation between two CRSs (lon/lat order for geographic ones). */
trv_status geo_ct_new(trv_ctx *ctx, const char *from_wkt, const char *to_wkt, OGRCoordinateTransformationH *ct);

#endif
