/* Validity of a polygon read back (geo.h, geo_shape_valid): OGR's
 * OGR_G_IsValid (GEOS), with its reason. */
#include "geo_priv.h"

#include <stdio.h>
#include <string.h>

#include <cpl_error.h>
#include <ogr_api.h>

int geo_shape_valid(const geo_shape *s, char *why, size_t why_len)
{
    if (why_len)
        why[0] = '\0';
    if (s->kind != GEO_POLYGON)
        return 1;
    OGRGeometryH poly = OGR_G_CreateGeometry(wkbPolygon);
    if (!poly)
        return -1;
    for (int r = 0; r < s->nrings; r++) {
        OGRGeometryH ring = OGR_G_CreateGeometry(wkbLinearRing);
        if (!ring) {
            OGR_G_DestroyGeometry(poly);
            return -1;
        }
        for (int k = s->start[r]; k < s->start[r + 1]; k++)
            OGR_G_AddPoint_2D(ring, s->xy[2 * k], s->xy[2 * k + 1]);
        OGR_G_AddGeometryDirectly(poly, ring);
    }
    CPLPushErrorHandler(CPLQuietErrorHandler);
    CPLErrorReset();
    int ok = OGR_G_IsValid(poly) ? 1 : 0;
    if (!ok && why_len)
        snprintf(why, why_len, "%s", geo_gdal_msg("not a valid polygon"));
    CPLPopErrorHandler();
    CPLErrorReset();
    OGR_G_DestroyGeometry(poly);
    return ok;
}
