/* Vector output through OGR, the features: coordinates transformed to
 * EPSG:4326 where the format wants it, points, lines and one-ring polygons
 * built, geo_vec_add (geo.h). */
#include "vector_priv.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cpl_error.h>

/* ---- features --------------------------------------------------------- */

static trv_status transform(trv_ctx *ctx, geo_vec *v, const vec_layer *l, const double *x, const double *y, int n,
                            const double **tx, const double **ty)
{
    if (n > v->bufcap) {
        if ((size_t)n > SIZE_MAX / (2 * sizeof(double)))
            return trv_error(ctx, TRV_ERR_NOMEM, "feature of %d vertices is too large for '%s'", n, v->path);
        double *nb = realloc(v->buf, 2 * (size_t)n * sizeof *nb);
        if (!nb)
            return trv_error(ctx, TRV_ERR_NOMEM, "cannot write to '%s': out of memory", v->path);
        v->buf = nb;
        v->bufcap = n;
    }
    double *bx = v->buf, *by = v->buf + v->bufcap;
    memcpy(bx, x, (size_t)n * sizeof *bx);
    memcpy(by, y, (size_t)n * sizeof *by);
    CPLErrorReset();
    /* z is a height above the DEM's datum; a datum shift must not touch it */
    int ok = OCTTransform(v->ct, n, bx, by, NULL);
    for (int i = 0; ok && i < n; i++)
        ok = isfinite(bx[i]) && isfinite(by[i]);
    if (!ok)
        return geo__vec_gdal_error(ctx, TRV_ERR_CRS, "point outside the coordinate system's domain",
                          "cannot transform a feature of layer '%s' in '%s' to EPSG:4326", l->name, v->path);
    *tx = bx;
    *ty = by;
    return TRV_OK;
}

/* A polygon of one ring: the n vertices and the first again. */
static OGRGeometryH make_polygon(const double *x, const double *y, const double *z, int n)
{
    OGRGeometryH ring = OGR_G_CreateGeometry(wkbLinearRing), poly = OGR_G_CreateGeometry(wkbPolygon);
    if (!ring || !poly) {
        if (ring)
            OGR_G_DestroyGeometry(ring);
        if (poly)
            OGR_G_DestroyGeometry(poly);
        return NULL;
    }
    for (int i = 0; i <= n; i++)
        if (z)
            OGR_G_AddPoint(ring, x[i % n], y[i % n], z[i % n]);
        else
            OGR_G_AddPoint_2D(ring, x[i % n], y[i % n]);
    if (OGR_G_AddGeometryDirectly(poly, ring) != OGRERR_NONE) {
        OGR_G_DestroyGeometry(ring);
        OGR_G_DestroyGeometry(poly);
        return NULL;
    }
    return poly;
}

static OGRGeometryH make_geometry(const vec_layer *l, const double *x, const double *y, const double *z, int n)
{
    if (l->geom == GEO_POINT) {
        OGRGeometryH g = OGR_G_CreateGeometry(wkbPoint);
        if (g) {
            if (z)
                OGR_G_SetPoint(g, 0, x[0], y[0], z[0]);
            else
                OGR_G_SetPoint_2D(g, 0, x[0], y[0]);
        }
        return g;
    }
    if (l->geom == GEO_POLYGON)
        return make_polygon(x, y, z, n);
    OGRGeometryH line = OGR_G_CreateGeometry(wkbLineString);
    if (!line)
        return NULL;
    OGR_G_SetPoints(line, n, x, (int)sizeof *x, y, (int)sizeof *y, z, z ? (int)sizeof *z : 0);
    if (!l->multi)
        return line;
    OGRGeometryH multi = OGR_G_CreateGeometry(wkbMultiLineString);
    if (!multi || OGR_G_AddGeometryDirectly(multi, line) != OGRERR_NONE) {
        OGR_G_DestroyGeometry(line);
        if (multi)
            OGR_G_DestroyGeometry(multi);
        return NULL;
    }
    return multi;
}

trv_status geo_vec_add(trv_ctx *ctx, geo_vec *v, int layer, const double *x, const double *y, const double *z,
                       int n, const geo_value *values)
{
    if (layer < 0 || layer >= v->nlayers)
        return trv_error(ctx, TRV_ERR_USAGE, "'%s' has no layer %d", v->path, layer);
    vec_layer *l = &v->layers[layer];
    if (l->geom == GEO_POINT && n != 1)
        return trv_error(ctx, TRV_ERR_USAGE,
                         "cannot add a feature to layer '%s' of '%s': a point needs 1 vertex, not %d", l->name,
                         v->path, n);
    if (l->geom == GEO_POLYGON && n < 3)
        return trv_error(ctx, TRV_ERR_USAGE,
                         "cannot add a feature to layer '%s' of '%s': a polygon needs at least 3 vertices, not %d",
                         l->name, v->path, n);
    if (l->geom == GEO_LINE && n < 2)
        return trv_error(ctx, TRV_ERR_USAGE,
                         "cannot add a feature to layer '%s' of '%s': a line needs at least 2 vertices, not %d",
                         l->name, v->path, n);
    if (!x || !y || (l->nfields > 0 && !values))
        return trv_error(ctx, TRV_ERR_USAGE, "cannot add a feature to layer '%s' of '%s': %s missing", l->name,
                         v->path, !x || !y ? "coordinates" : "field values");
    for (int i = 0; i < n; i++)
        if (!isfinite(x[i]) || !isfinite(y[i]) || (z && !isfinite(z[i])))
            return trv_error(ctx, TRV_ERR_DATA,
                             "cannot add a feature to layer '%s' of '%s': vertex %d is not a finite number",
                             l->name, v->path, i + 1);
    if (v->fmt == VEC_GPX && l->gpx_rank < v->gpx_last)
        return trv_error(ctx, TRV_ERR_USAGE,
                         "cannot add a %s to '%s' after a %s: GPX lists waypoints, then routes, then tracks",
                         gpx_kind[l->gpx_rank], v->path, gpx_kind[v->gpx_last]);

    if (!l->created) {
        trv_status st = geo__vec_create_layer(ctx, v, l, z != NULL);
        if (st != TRV_OK)
            return st;
    }
    if (!l->h)
        return trv_error(ctx, TRV_ERR_IO, "cannot write to layer '%s' of '%s': the layer could not be created",
                         l->name, v->path);
    if (v->fmt == VEC_GPKG && (z != NULL) != l->has_z)
        return trv_error(ctx, TRV_ERR_USAGE,
                         "cannot add a %s feature to layer '%s' of '%s': the layer is %s (GeoPackage layers "
                         "cannot mix)",
                         z ? "3D" : "2D", l->name, v->path, l->has_z ? "3D" : "2D");

    const double *tx = x, *ty = y;
    if (v->ct) {
        trv_status st = transform(ctx, v, l, x, y, n, &tx, &ty);
        if (st != TRV_OK)
            return st;
    }

    OGRFeatureH f = OGR_F_Create(OGR_L_GetLayerDefn(l->h));
    OGRGeometryH g = f ? make_geometry(l, tx, ty, z, n) : NULL;
    if (!g) {
        if (f)
            OGR_F_Destroy(f);
        return trv_error(ctx, TRV_ERR_NOMEM, "cannot write to '%s': out of memory", v->path);
    }
    OGR_F_SetGeometryDirectly(f, g);
    if (z && l->ele_field >= 0)
        OGR_F_SetFieldDouble(f, l->ele_field, z[0]);
    for (int i = 0; i < l->nfields; i++) {
        int k = l->ogr_field[i];
        if (values[i].unset)
            continue;
        switch (l->types[i]) {
        case GEO_FIELD_INT: OGR_F_SetFieldInteger64(f, k, (GIntBig)values[i].i); break;
        case GEO_FIELD_REAL: OGR_F_SetFieldDouble(f, k, values[i].r); break;
        case GEO_FIELD_STRING:
            if (values[i].s)
                OGR_F_SetFieldString(f, k, values[i].s);
            else
                OGR_F_SetFieldNull(f, k);
            break;
        }
    }

    /* one GeoPackage transaction for many features, not one per insert */
    if (v->fmt == VEC_GPKG && !v->in_txn) {
        CPLErrorReset();
        if (GDALDatasetStartTransaction(v->ds, FALSE) != OGRERR_NONE) {
            OGR_F_Destroy(f);
            return geo__vec_remember(ctx, v,
                            geo__vec_gdal_error(ctx, TRV_ERR_IO, "cannot start a transaction", "cannot write '%s'",
                                       v->path));
        }
        v->in_txn = 1;
    }
    CPLErrorReset();
    OGRErr err = OGR_L_CreateFeature(l->h, f);
    OGR_F_Destroy(f);
    if (err != OGRERR_NONE)
        return geo__vec_remember(ctx, v,
                        geo__vec_gdal_error(ctx, TRV_ERR_IO, "GDAL gave no reason",
                                   "cannot write a feature to layer '%s' of '%s'", l->name, v->path));
    if (v->fmt == VEC_GPX)
        v->gpx_last = l->gpx_rank;
    return TRV_OK;
}

