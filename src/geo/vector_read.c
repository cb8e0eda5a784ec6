/* Vector input through OGR: layers, fields, geometries (points, lines,
 * polygons, their multi-part forms), CRS and extent, optionally
 * transformed into a target CRS (geo.h, "vector input"). */
#define _POSIX_C_SOURCE 200809L
#include "geo_priv.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <cpl_conv.h>
#include <cpl_error.h>
#include <gdal.h>
#include <ogr_api.h>

static void shape_clear(geo_shape *s)
{
    free(s->xy);
    free(s->start);
}

static void feature_clear(geo_feature *f, int nfields)
{
    for (int i = 0; i < f->nshapes; i++)
        shape_clear(&f->shapes[i]);
    free(f->shapes);
    for (int i = 0; f->str && i < nfields; i++)
        free(f->str[i]);
    free(f->str);
    free(f->num);
}

static void vlayer_clear(geo_vlayer *l)
{
    for (long k = 0; k < l->n; k++)
        feature_clear(&l->f[k], l->nfields);
    free(l->f);
    for (int i = 0; l->fields && i < l->nfields; i++)
        free(l->fields[i]);
    free(l->fields);
    free(l->name);
    free(l->wkt);
    geo_crs_desc_clear(&l->crs);
}

void geo_vfile_free(geo_vfile *v)
{
    if (!v)
        return;
    for (int i = 0; i < v->nlayers; i++)
        vlayer_clear(&v->layers[i]);
    free(v->layers);
    free(v);
}

int geo_vlayer_field(const geo_vlayer *l, const char *name)
{
    for (int i = 0; i < l->nfields; i++)
        if (!strcasecmp(l->fields[i], name))
            return i;
    return -1;
}

/* ---- geometries ------------------------------------------------------ */

static int push_shape(geo_feature *f, const geo_shape *s)
{
    geo_shape *p = realloc(f->shapes, (size_t)(f->nshapes + 1) * sizeof *p);
    if (!p)
        return -1;
    f->shapes = p;
    f->shapes[f->nshapes++] = *s;
    return 0;
}

/* Append the simple parts of g to f->shapes; -1 when out of memory. */
static int add_parts(geo_feature *f, OGRGeometryH g)
{
    OGRwkbGeometryType t = wkbFlatten(OGR_G_GetGeometryType(g));
    if (t == wkbMultiPoint || t == wkbMultiLineString || t == wkbMultiPolygon || t == wkbGeometryCollection) {
        for (int i = 0; i < OGR_G_GetGeometryCount(g); i++)
            if (add_parts(f, OGR_G_GetGeometryRef(g, i)))
                return -1;
        return 0;
    }
    if (OGR_G_IsEmpty(g))
        return 0;
    geo_shape s = {0};
    if (t == wkbPolygon) {
        int nr = OGR_G_GetGeometryCount(g), total = 0;
        for (int r = 0; r < nr; r++)
            total += OGR_G_GetPointCount(OGR_G_GetGeometryRef(g, r));
        s.kind = GEO_POLYGON;
        s.nrings = nr;
        s.n = total;
        s.xy = malloc(sizeof(double) * 2 * (size_t)(total ? total : 1));
        s.start = malloc(sizeof(int) * (size_t)(nr + 1));
        if (!s.xy || !s.start) {
            shape_clear(&s);
            return -1;
        }
        int k = 0;
        for (int r = 0; r < nr; r++) {
            OGRGeometryH ring = OGR_G_GetGeometryRef(g, r);
            s.start[r] = k;
            for (int i = 0; i < OGR_G_GetPointCount(ring); i++, k++)
                s.xy[2 * k] = OGR_G_GetX(ring, i), s.xy[2 * k + 1] = OGR_G_GetY(ring, i);
        }
        s.start[nr] = k;
    } else if (t == wkbLineString || t == wkbPoint) {
        int n = OGR_G_GetPointCount(g);
        if (n < 1)
            return 0;
        s.kind = t == wkbPoint ? GEO_POINT : GEO_LINE;
        s.n = n;
        if (!(s.xy = malloc(sizeof(double) * 2 * (size_t)n)))
            return -1;
        for (int i = 0; i < n; i++)
            s.xy[2 * i] = OGR_G_GetX(g, i), s.xy[2 * i + 1] = OGR_G_GetY(g, i);
    } else {
        return 0; /* curves and the like */
    }
    if (push_shape(f, &s)) {
        shape_clear(&s);
        return -1;
    }
    return 0;
}

static geo_geom single_type(OGRwkbGeometryType t, int *multi)
{
    *multi = t == wkbMultiPoint || t == wkbMultiLineString || t == wkbMultiPolygon;
    switch (t) {
    case wkbPoint: case wkbMultiPoint: return GEO_POINT;
    case wkbLineString: case wkbMultiLineString: return GEO_LINE;
    case wkbPolygon: case wkbMultiPolygon: return GEO_POLYGON;
    default: return 0;
    }
}

/* ---- features -------------------------------------------------------- */

static trv_status read_feature(trv_ctx *ctx, const char *path, geo_vlayer *l, OGRFeatureH h,
                               OGRCoordinateTransformationH ct, geo_feature *f)
{
    f->fid = (long)OGR_F_GetFID(h);
    if (l->nfields > 0) {
        f->str = calloc((size_t)l->nfields, sizeof *f->str);
        f->num = malloc((size_t)l->nfields * sizeof *f->num);
        if (!f->str || !f->num)
            return trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
    }
    for (int i = 0; i < l->nfields; i++) {
        f->num[i] = NAN;
        if (!OGR_F_IsFieldSetAndNotNull(h, i))
            continue;
        if (!(f->str[i] = strdup(OGR_F_GetFieldAsString(h, i))))
            return trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
        f->num[i] = OGR_F_GetFieldAsDouble(h, i);
    }
    OGRGeometryH g = OGR_F_GetGeometryRef(h);
    if (!g)
        return TRV_OK;
    f->has_geom = 1;
    int multi;
    f->geom = single_type(wkbFlatten(OGR_G_GetGeometryType(g)), &multi);
    if (multi || OGR_G_IsEmpty(g))
        f->geom = 0;
    if (OGR_G_IsEmpty(g))
        return TRV_OK;
    if (ct && OGR_G_Transform(g, ct) != OGRERR_NONE)
        return trv_error(ctx, TRV_ERR_CRS, "cannot transform feature %ld of '%s' (layer %s)", f->fid, path, l->name);
    if (add_parts(f, g))
        return trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
    return TRV_OK;
}

static trv_status read_features(trv_ctx *ctx, const char *path, OGRLayerH lay, OGRCoordinateTransformationH ct,
                                geo_vlayer *l)
{
    long cap = 0;
    OGR_L_ResetReading(lay);
    OGRFeatureH h;
    trv_status st = TRV_OK;
    while (!st && (h = OGR_L_GetNextFeature(lay))) {
        if (l->n == cap) {
            cap = cap ? 2 * cap : 64;
            geo_feature *p = realloc(l->f, (size_t)cap * sizeof *p);
            if (!p) {
                OGR_F_Destroy(h);
                return trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
            }
            l->f = p;
        }
        geo_feature *f = &l->f[l->n++];
        memset(f, 0, sizeof *f);
        st = read_feature(ctx, path, l, h, ct, f);
        OGR_F_Destroy(h);
    }
    return st;
}

/* ---- layers ---------------------------------------------------------- */

/* The transformation from the layer's CRS into dst, NULL when the layer
 * has none or it is dst. */
static trv_status layer_ct(trv_ctx *ctx, const char *path, OGRLayerH lay, OGRSpatialReferenceH dst,
                           OGRCoordinateTransformationH *ct)
{
    *ct = NULL;
    OGRSpatialReferenceH src = OGR_L_GetSpatialRef(lay);
    if (!dst || !src)
        return TRV_OK;
    OGRSpatialReferenceH s2 = OSRClone(src);
    OSRSetAxisMappingStrategy(s2, OAMS_TRADITIONAL_GIS_ORDER);
    trv_status st = TRV_OK;
    if (!OSRIsSame(s2, dst) && !(*ct = OCTNewCoordinateTransformation(s2, dst)))
        st = trv_error(ctx, TRV_ERR_CRS, "cannot transform '%s' (layer %s) into the target CRS", path,
                       OGR_L_GetName(lay));
    OSRDestroySpatialReference(s2);
    return st;
}

static trv_status layer_info(trv_ctx *ctx, OGRLayerH lay, geo_vlayer *l)
{
    OGRFeatureDefnH defn = OGR_L_GetLayerDefn(lay);
    if (!(l->name = strdup(OGR_L_GetName(lay))))
        return trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
    OGRwkbGeometryType t = wkbFlatten(OGR_L_GetGeomType(lay));
    l->has_geom = t != wkbNone;
    l->geom = single_type(t, &l->multi);
    OGRSpatialReferenceH srs = OGR_L_GetSpatialRef(lay);
    if (srs) {
        l->wkt = geo_srs_wkt(srs);
        if (!l->wkt)
            return trv_error(ctx, TRV_ERR_CRS, "cannot export the CRS of layer %s: %s", l->name, geo_gdal_msg(NULL));
        if (geo_crs_describe_srs(srs, &l->crs))
            return trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
    }
    OGREnvelope env;
    if (l->has_geom && OGR_L_GetExtent(lay, &env, TRUE) == OGRERR_NONE) {
        l->has_extent = 1;
        l->extent[0] = env.MinX, l->extent[1] = env.MinY, l->extent[2] = env.MaxX, l->extent[3] = env.MaxY;
    }
    CPLErrorReset();
    l->nfields = OGR_FD_GetFieldCount(defn);
    if (l->nfields > 0 && !(l->fields = calloc((size_t)l->nfields, sizeof *l->fields)))
        return trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
    for (int i = 0; i < l->nfields; i++)
        if (!(l->fields[i] = strdup(OGR_Fld_GetNameRef(OGR_FD_GetFieldDefn(defn, i)))))
            return trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
    return TRV_OK;
}

static trv_status read_layers(trv_ctx *ctx, const char *path, GDALDatasetH ds, const char *layer,
                              OGRSpatialReferenceH dst, int what, geo_vfile *v)
{
    int nl = layer ? 1 : GDALDatasetGetLayerCount(ds);
    if (nl > 0 && !(v->layers = calloc((size_t)nl, sizeof *v->layers)))
        return trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
    trv_status st = TRV_OK;
    for (int i = 0; i < nl && !st; i++) {
        OGRLayerH lay = layer ? GDALDatasetGetLayerByName(ds, layer) : GDALDatasetGetLayer(ds, i);
        if (!lay)
            return trv_error(ctx, TRV_ERR_FORMAT, "cannot open '%s': no layer '%s'", path, layer ? layer : "?");
        geo_vlayer *l = &v->layers[v->nlayers++];
        if ((st = layer_info(ctx, lay, l)) || what != GEO_VREAD_FEATURES)
            continue;
        OGRCoordinateTransformationH ct;
        if ((st = layer_ct(ctx, path, lay, dst, &ct)))
            break;
        st = read_features(ctx, path, lay, ct, l);
        if (ct)
            OCTDestroyCoordinateTransformation(ct);
    }
    return st;
}

trv_status geo_vector_read(trv_ctx *ctx, const char *path, const char *layer, const char *to_wkt, int what,
                           geo_vfile **out)
{
    *out = NULL;
    OGRSpatialReferenceH dst = NULL;
    if (to_wkt && !(dst = geo_srs_new(to_wkt)))
        return trv_error(ctx, TRV_ERR_CRS, "cannot understand the target CRS for '%s'", path);
    CPLErrorReset();
    GDALDatasetH ds = GDALOpenEx(path, GDAL_OF_VECTOR | GDAL_OF_READONLY, NULL, NULL, NULL);
    geo_vfile *v = ds ? calloc(1, sizeof *v) : NULL;
    trv_status st = TRV_OK;
    if (!ds)
        st = trv_error(ctx, TRV_ERR_IO, "cannot open '%s': %s", path, geo_gdal_msg("not a vector file OGR can read"));
    else if (!v)
        st = trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
    else
        st = read_layers(ctx, path, ds, layer, dst, what, v);
    if (ds)
        GDALClose(ds);
    if (dst)
        OSRDestroySpatialReference(dst);
    if (st) {
        geo_vfile_free(v);
        return st;
    }
    *out = v;
    return TRV_OK;
}
