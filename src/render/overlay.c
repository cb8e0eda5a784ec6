/* Vector overlays read through OGR, reprojected into the map's CRS and
 * sorted into drawing passes by what they are (see render.h). */
#include "overlay_priv.h"

#include <gdal.h>
#include <ogr_api.h>
#include <ogr_srs_api.h>
#include <cpl_error.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

void rnd_ovl_clear(rnd_ovl_set *s)
{
    for (int i = 0; i < s->n; i++) {
        free(s->shape[i].x);
        free(s->shape[i].start);
        free(s->shape[i].name);
    }
    free(s->shape);
    memset(s, 0, sizeof *s);
}

/* Keep the shapes keep() accepts, in order; free the others. */
static void keep_if(rnd_ovl_set *s, int (*keep)(const rnd_ovl_shape *, const void *), const void *arg)
{
    int kept = 0;
    for (int k = 0; k < s->n; k++) {
        rnd_ovl_shape *sh = &s->shape[k];
        if (keep(sh, arg)) {
            s->shape[kept++] = *sh;
        } else {
            free(sh->x);
            free(sh->start);
            free(sh->name);
        }
    }
    s->n = kept;
}

typedef struct window {
    const double *bb;
    double units_per_m;
} window;

static int within(const rnd_ovl_shape *sh, const void *arg)
{
    const window *w = arg;
    double x0 = INFINITY, y0 = INFINITY, x1 = -INFINITY, y1 = -INFINITY;
    for (int i = 0; i < sh->n; i++) {
        x0 = fmin(x0, sh->x[2 * i]), x1 = fmax(x1, sh->x[2 * i]);
        y0 = fmin(y0, sh->x[2 * i + 1]), y1 = fmax(y1, sh->x[2 * i + 1]);
    }
    double grow = sh->kind == RND_OVL_CIRCLE ? sh->radius * w->units_per_m : 0;
    /* a bounding box test: a line passing near a corner may be kept
     * without showing, which only costs a few pixels of clipping */
    return x1 + grow >= w->bb[0] && x0 - grow <= w->bb[2] && y1 + grow >= w->bb[1] && y0 - grow <= w->bb[3];
}

void rnd_ovl_keep_within(rnd_ovl_set *s, const double bb[4], double units_per_m)
{
    const window w = {bb, units_per_m};
    keep_if(s, within, &w);
}

static int other_route(const rnd_ovl_shape *sh, const void *name)
{
    return sh->kind == RND_OVL_ROUTE && (!sh->name || strcmp(sh->name, name));
}

static int not_other_route(const rnd_ovl_shape *sh, const void *name) { return !other_route(sh, name); }

int rnd_ovl_keep_route(rnd_ovl_set *s, const char *name)
{
    keep_if(s, not_other_route, name);
    int n = 0;
    for (int k = 0; k < s->n; k++)
        n += s->shape[k].kind == RND_OVL_ROUTE;
    return n;
}

static int push(rnd_ovl_set *s, const rnd_ovl_shape *sh)
{
    if (s->n == s->cap) {
        int cap = s->cap ? 2 * s->cap : 256;
        rnd_ovl_shape *p = realloc(s->shape, sizeof *p * (size_t)cap);
        if (!p)
            return -1;
        s->shape = p, s->cap = cap;
    }
    s->shape[s->n++] = *sh;
    return 0;
}

static int has_ci(const char *s, const char *w)
{
    size_t n = strlen(w);
    for (; s && *s; s++)
        if (!strncasecmp(s, w, n))
            return 1;
    return 0;
}

/* Add the vertices of geometry g (already in the map CRS) as shapes. */
static int add_geom(rnd_ovl_set *s, OGRGeometryH g, rnd_ovl_kind layer_kind, const char *name, double radius)
{
    OGRwkbGeometryType t = wkbFlatten(OGR_G_GetGeometryType(g));
    if (t == wkbMultiPoint || t == wkbMultiLineString || t == wkbMultiPolygon || t == wkbGeometryCollection) {
        for (int i = 0; i < OGR_G_GetGeometryCount(g); i++)
            if (add_geom(s, OGR_G_GetGeometryRef(g, i), layer_kind, name, radius))
                return -1;
        return 0;
    }
    rnd_ovl_shape sh = {0};
    sh.radius = radius;
    if (t == wkbPolygon) {
        int nr = OGR_G_GetGeometryCount(g), total = 0;
        for (int r = 0; r < nr; r++)
            total += OGR_G_GetPointCount(OGR_G_GetGeometryRef(g, r));
        sh.kind = RND_OVL_POLYGON;
        sh.nrings = nr;
        sh.n = total;
        sh.x = malloc(sizeof(double) * 2 * (size_t)(total ? total : 1));
        sh.start = malloc(sizeof(int) * (size_t)(nr + 1));
        if (!sh.x || !sh.start)
            goto fail;
        int k = 0;
        for (int r = 0; r < nr; r++) {
            OGRGeometryH ring = OGR_G_GetGeometryRef(g, r);
            sh.start[r] = k;
            for (int i = 0; i < OGR_G_GetPointCount(ring); i++, k++)
                sh.x[2 * k] = OGR_G_GetX(ring, i), sh.x[2 * k + 1] = OGR_G_GetY(ring, i);
        }
        sh.start[nr] = k;
    } else if (t == wkbLineString || t == wkbPoint) {
        int n = OGR_G_GetPointCount(g);
        if (n < 1)
            return 0;
        sh.kind = t == wkbPoint ? (layer_kind == RND_OVL_NODE ? RND_OVL_NODE : radius > 0 ? RND_OVL_CIRCLE : RND_OVL_POINT)
                                : layer_kind == RND_OVL_EDGE ? RND_OVL_EDGE : layer_kind;
        sh.n = n;
        sh.x = malloc(sizeof(double) * 2 * (size_t)n);
        if (!sh.x)
            goto fail;
        for (int i = 0; i < n; i++)
            sh.x[2 * i] = OGR_G_GetX(g, i), sh.x[2 * i + 1] = OGR_G_GetY(g, i);
    } else {
        return 0; /* curves and the like: not drawn */
    }
    if (name && !(sh.name = strdup(name)))
        goto fail;
    if (push(s, &sh))
        goto fail;
    return 0;
fail:
    free(sh.x);
    free(sh.start);
    free(sh.name);
    return -1;
}

trv_status rnd_ovl_read(trv_ctx *ctx, const char *path, const char *map_wkt, rnd_ovl_set *s)
{
    CPLErrorReset();
    GDALDatasetH ds = GDALOpenEx(path, GDAL_OF_VECTOR | GDAL_OF_READONLY, NULL, NULL, NULL);
    if (!ds) {
        return trv_error(ctx, TRV_ERR_IO, "cannot read overlay '%s': %s", path,
                         geo_gdal_msg("not a vector file OGR can read"));
    }
    OGRSpatialReferenceH dst = OSRNewSpatialReference(NULL);
    trv_status st = TRV_OK;
    if (!map_wkt || OSRSetFromUserInput(dst, map_wkt) != OGRERR_NONE)
        st = trv_error(ctx, TRV_ERR_CRS, "the layer has no usable CRS to draw '%s' in", path);
    else
        OSRSetAxisMappingStrategy(dst, OAMS_TRADITIONAL_GIS_ORDER);
    const int nl = GDALDatasetGetLayerCount(ds);
    for (int l = 0; l < nl && !st; l++) {
        OGRLayerH lay = GDALDatasetGetLayer(ds, l);
        const char *lname = OGR_L_GetName(lay);
        if (!strcmp(lname, "layer_styles") || !strcmp(lname, "route_points") || !strcmp(lname, "track_points"))
            continue;
        if (OGR_L_GetGeomType(lay) == wkbNone)
            continue;
        rnd_ovl_kind kind = RND_OVL_ROUTE;
        if (has_ci(lname, "edges"))
            kind = RND_OVL_EDGE;
        else if (has_ci(lname, "nodes"))
            kind = RND_OVL_NODE;
        else if (has_ci(lname, "traj"))
            kind = RND_OVL_TRAJECTORY;
        else if (has_ci(lname, "obstacle"))
            kind = RND_OVL_OBSTACLE_LAYER;
        OGRCoordinateTransformationH ct = NULL;
        OGRSpatialReferenceH src = OGR_L_GetSpatialRef(lay);
        if (src) {
            OGRSpatialReferenceH s2 = OSRClone(src);
            OSRSetAxisMappingStrategy(s2, OAMS_TRADITIONAL_GIS_ORDER);
            if (!OSRIsSame(s2, dst) && !(ct = OCTNewCoordinateTransformation(s2, dst)))
                st = trv_error(ctx, TRV_ERR_CRS, "cannot transform overlay '%s' (layer %s) into the map's CRS", path,
                               lname);
            OSRDestroySpatialReference(s2);
        }
        OGRFeatureDefnH defn = OGR_L_GetLayerDefn(lay);
        int fname = OGR_FD_GetFieldIndex(defn, "name"), froute = OGR_FD_GetFieldIndex(defn, "route");
        /* trv-sim's trajectory files name their features (trajectory, plan, last_plan) in `feature` */
        if (fname < 0)
            fname = OGR_FD_GetFieldIndex(defn, "feature");
        int frad = OGR_FD_GetFieldIndex(defn, "radius_m");
        if (frad < 0)
            frad = OGR_FD_GetFieldIndex(defn, "radius");
        OGR_L_ResetReading(lay);
        OGRFeatureH f;
        while (!st && (f = OGR_L_GetNextFeature(lay))) {
            OGRGeometryH g = OGR_F_GetGeometryRef(f);
            const char *name = NULL;
            if (froute >= 0 && OGR_F_IsFieldSetAndNotNull(f, froute))
                name = OGR_F_GetFieldAsString(f, froute);
            else if (fname >= 0 && OGR_F_IsFieldSetAndNotNull(f, fname))
                name = OGR_F_GetFieldAsString(f, fname);
            if (name && !*name)
                name = NULL;
            double radius = frad >= 0 && OGR_F_IsFieldSetAndNotNull(f, frad) ? OGR_F_GetFieldAsDouble(f, frad) : 0;
            rnd_ovl_kind k = kind;
            if (k == RND_OVL_ROUTE && name && has_ci(name, "traj"))
                k = RND_OVL_TRAJECTORY;
            if (g && !OGR_G_IsEmpty(g)) {
                if (ct && OGR_G_Transform(g, ct) != OGRERR_NONE)
                    st = trv_error(ctx, TRV_ERR_CRS, "cannot transform a feature of overlay '%s' (layer %s)", path,
                                   lname);
                else if (add_geom(s, g, k, name, radius))
                    st = trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
            }
            OGR_F_Destroy(f);
        }
        if (ct)
            OCTDestroyCoordinateTransformation(ct);
    }
    OSRDestroySpatialReference(dst);
    GDALClose(ds);
    return st;
}
