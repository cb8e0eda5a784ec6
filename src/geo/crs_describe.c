/* A CRS described for project files, and bounding boxes transformed
 * between CRSs (geo.h, "CRS description"). */
#include "geo_priv.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cpl_conv.h>

static void copy_to(char *dst, size_t n, const char *src) { snprintf(dst, n, "%s", src ? src : ""); }

int geo_crs_describe_srs(OGRSpatialReferenceH srs, geo_crs_desc *d)
{
    memset(d, 0, sizeof *d);
    char *w = NULL, *p4 = NULL;
    const char *wkt_opts[] = {"FORMAT=WKT2_2019", "MULTILINE=NO", NULL};
    OSRExportToWktEx(srs, &w, wkt_opts);
    OSRExportToProj4(srs, &p4);
    d->wkt2 = strdup(w ? w : "");
    d->proj4 = strdup(p4 ? p4 : "");
    CPLFree(w);
    CPLFree(p4);
    const char *auth = OSRGetAuthorityName(srs, NULL), *code = OSRGetAuthorityCode(srs, NULL);
    if (auth && code) {
        copy_to(d->auth, sizeof d->auth, auth);
        copy_to(d->code, sizeof d->code, code);
    }
    const char *eauth = OSRGetAuthorityName(srs, "GEOGCS|DATUM|SPHEROID");
    const char *ecode = OSRGetAuthorityCode(srs, "GEOGCS|DATUM|SPHEROID");
    if (eauth && ecode)
        snprintf(d->ellps, sizeof d->ellps, "%s:%s", eauth, ecode);
    copy_to(d->name, sizeof d->name, OSRGetName(srs));
    d->geographic = OSRIsGeographic(srs) ? 1 : 0;
    if (!d->wkt2 || !d->proj4) {
        geo_crs_desc_clear(d);
        return -1;
    }
    return 0;
}

trv_status geo_crs_describe(trv_ctx *ctx, const char *def, geo_crs_desc *d)
{
    memset(d, 0, sizeof *d);
    OGRSpatialReferenceH srs = def ? geo_srs_new(def) : NULL;
    if (!srs)
        return trv_error(ctx, TRV_ERR_CRS, "cannot understand the CRS '%.40s'", def ? def : "");
    int failed = geo_crs_describe_srs(srs, d);
    OSRDestroySpatialReference(srs);
    return failed ? trv_error(ctx, TRV_ERR_NOMEM, "out of memory") : TRV_OK;
}

void geo_crs_desc_clear(geo_crs_desc *d)
{
    free(d->wkt2);
    free(d->proj4);
    memset(d, 0, sizeof *d);
}

int geo_crs_bounds(const char *from_wkt, const char *to_wkt, const double in[4], int densify, double out[4])
{
    memcpy(out, in, 4 * sizeof *out);
    if (geo_crs_same(from_wkt, to_wkt))
        return 0;
    OGRSpatialReferenceH a = from_wkt ? geo_srs_new(from_wkt) : NULL, b = to_wkt ? geo_srs_new(to_wkt) : NULL;
    OGRCoordinateTransformationH ct = a && b ? OCTNewCoordinateTransformation(a, b) : NULL;
    int ok = ct && OCTTransformBounds(ct, in[0], in[1], in[2], in[3], &out[0], &out[1], &out[2], &out[3], densify);
    if (ct)
        OCTDestroyCoordinateTransformation(ct);
    OSRDestroySpatialReference(a);
    OSRDestroySpatialReference(b);
    return ok ? 0 : -1;
}
