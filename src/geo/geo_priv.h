/* Private to src/geo: helpers shared between its files. */
#ifndef GEO_PRIV_H
#define GEO_PRIV_H

#include "geo.h"

#include <ogr_srs_api.h>

/* Spatial reference from WKT (or any user input) with lon/lat axis order. */
OGRSpatialReferenceH geo_srs_new(const char *def);
/* Transformation between two CRSs (lon/lat order for geographic ones). */
trv_status geo_ct_new(trv_ctx *ctx, const char *from_wkt, const char *to_wkt, OGRCoordinateTransformationH *ct);

/* srs as WKT2 (2019), malloc'ed; NULL when it cannot be exported, is empty
 * or out of memory. */
char *geo_srs_wkt(OGRSpatialReferenceH srs);

/* Describe srs (geo_crs_desc); -1 when out of memory. */
int geo_crs_describe_srs(OGRSpatialReferenceH srs, geo_crs_desc *d);

/* Set the TRV_* metadata items of meta on a GDAL dataset or band:
 * TRV_TOOL, TRV_VERSION, TRV_ARGS, TRV_SEED (when seeded), the extras. */
void geo_meta_apply(void *gdal_object, const trv_meta *meta);

#endif
