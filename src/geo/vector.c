/* Vector output through OGR: GeoJSON (RFC 7946), GPX and GeoPackage;
 * points, lines and one-ring polygons. */
#include "vector_priv.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <cpl_conv.h>
#include <cpl_error.h>
#include <gdal.h>
#include <ogr_api.h>
#include <ogr_srs_api.h>

/* ---- errors ----------------------------------------------------------- */

trv_status geo__vec_gdal_error(trv_ctx *ctx, trv_status st, const char *fallback, const char *fmt, ...)
{
    char prefix[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(prefix, sizeof prefix, fmt, ap);
    va_end(ap);
    return trv_error(ctx, st, "%s: %s", prefix, geo_gdal_msg(fallback));
}

static char *dupstr(const char *s)
{
    size_t n = strlen(s) + 1;
    char *d = malloc(n);
    if (d)
        memcpy(d, s, n);
    return d;
}

/* Remember the first failure that left the file incomplete, so that close
 * cannot report success for it. */
trv_status geo__vec_remember(trv_ctx *ctx, geo_vec *v, trv_status st)
{
    if (v->failed == TRV_OK) {
        v->failed = st;
        v->failmsg = dupstr(trv_errmsg(ctx));
    }
    return st;
}

/* ---- the GeoPackage writer's options --------------------------------- */

/* GDAL stamps gpkg_contents.last_change with the current time unless
 * OGR_CURRENT_DATE is set; and SQLite's rollback journal and syncs buy
 * nothing for a file geo_vec_create makes new (a crash leaves no usable
 * file either way; the tools write to a temporary name and rename), so
 * they are off (the same bytes; the 10 m roadmap's write 0.84 -> 0.80 s).
 * The options are process-wide, so open writers share them: the first
 * sets them, the last restores the previous values. Not safe against
 * concurrent geo_vec_create/close in several threads. */
#define FIXED_DATE "2000-01-01T00:00:00.000Z"
static const char *const HELD[][2] = {
    {"OGR_CURRENT_DATE", FIXED_DATE}, {"OGR_SQLITE_JOURNAL", "OFF"}, {"OGR_SQLITE_SYNCHRONOUS", "OFF"}};
enum { NHELD = sizeof HELD / sizeof HELD[0] };
static int held_users;
static char *held_saved[NHELD];

static int opts_hold(void)
{
    if (held_users == 0) {
        for (int k = 0; k < NHELD; k++) {
            const char *old = CPLGetConfigOption(HELD[k][0], NULL);
            held_saved[k] = NULL;
            if (old && !(held_saved[k] = dupstr(old))) {
                while (k-- > 0) {
                    free(held_saved[k]);
                    held_saved[k] = NULL;
                }
                return -1;
            }
        }
        for (int k = 0; k < NHELD; k++)
            CPLSetConfigOption(HELD[k][0], HELD[k][1]);
    }
    held_users++;
    return 0;
}

static void opts_release(void)
{
    if (held_users > 0 && --held_users == 0)
        for (int k = 0; k < NHELD; k++) {
            CPLSetConfigOption(HELD[k][0], held_saved[k]);
            free(held_saved[k]);
            held_saved[k] = NULL;
        }
}

/* ---- create ----------------------------------------------------------- */

static int format_of(const char *path, vec_format *fmt)
{
    const char *base = strrchr(path, '/');
    const char *dot = strrchr(base ? base + 1 : path, '.');
    if (!dot)
        return 0;
    dot++;
    if (strcasecmp(dot, "geojson") == 0 || strcasecmp(dot, "json") == 0)
        *fmt = VEC_GEOJSON;
    else if (strcasecmp(dot, "gpx") == 0)
        *fmt = VEC_GPX;
    else if (strcasecmp(dot, "gpkg") == 0)
        *fmt = VEC_GPKG;
    else
        return 0;
    return 1;
}

/* Coordinates are always x = easting/longitude, y = northing/latitude,
 * whatever axis order the CRS definition has. */
static OGRSpatialReferenceH srs_new(void)
{
    OGRSpatialReferenceH h = OSRNewSpatialReference(NULL);
    if (h)
        OSRSetAxisMappingStrategy(h, OAMS_TRADITIONAL_GIS_ORDER);
    return h;
}

static trv_status setup_crs(trv_ctx *ctx, geo_vec *v, const char *src_wkt)
{
    if (src_wkt && *src_wkt) {
        if (!(v->src_srs = srs_new()))
            return trv_error(ctx, TRV_ERR_NOMEM, "cannot create '%s': out of memory", v->path);
        char *p = (char *)src_wkt; /* OSRImportFromWkt only advances p */
        CPLErrorReset();
        if (OSRImportFromWkt(v->src_srs, &p) != OGRERR_NONE)
            return geo__vec_gdal_error(ctx, TRV_ERR_CRS, "not a WKT coordinate system",
                              "cannot read the coordinate system for '%s'", v->path);
    }
    if (v->fmt == VEC_GPKG)
        return TRV_OK;
    if (!v->src_srs)
        return trv_error(ctx, TRV_ERR_CRS, "cannot create '%s': no coordinate system given for its coordinates",
                         v->path);
    if (!(v->wgs84 = srs_new()))
        return trv_error(ctx, TRV_ERR_NOMEM, "cannot create '%s': out of memory", v->path);
    CPLErrorReset();
    if (OSRImportFromEPSG(v->wgs84, 4326) != OGRERR_NONE)
        return geo__vec_gdal_error(ctx, TRV_ERR_CRS, "EPSG:4326 is unknown to PROJ",
                          "cannot create '%s': no EPSG:4326 definition", v->path);
    if (OSRIsSame(v->src_srs, v->wgs84))
        return TRV_OK; /* already lon/lat: written as given */
    CPLErrorReset();
    if (!(v->ct = OCTNewCoordinateTransformation(v->src_srs, v->wgs84)))
        return geo__vec_gdal_error(ctx, TRV_ERR_CRS, "no transformation found",
                          "cannot create '%s': cannot transform its coordinates to EPSG:4326", v->path);
    return TRV_OK;
}

trv_status geo_vec_create(trv_ctx *ctx, const char *path, const char *src_wkt, geo_vec **out)
{
    *out = NULL;
    if (!path || !*path)
        return trv_error(ctx, TRV_ERR_USAGE, "no vector output file given");
    vec_format fmt;
    if (!format_of(path, &fmt))
        return trv_error(ctx, TRV_ERR_USAGE, "cannot tell the vector format of '%s' (use .geojson, .gpx or .gpkg)",
                         path);
    GDALDriverH drv = GDALGetDriverByName(driver_name[fmt]);
    if (!drv)
        return trv_error(ctx, TRV_ERR_INTERNAL, "cannot create '%s': GDAL driver %s is not registered", path,
                         driver_name[fmt]);

    geo_vec *v = calloc(1, sizeof *v);
    if (!v)
        return trv_error(ctx, TRV_ERR_NOMEM, "cannot create '%s': out of memory", path);
    v->fmt = fmt;
    v->gpx_last = -1;
    if (!(v->path = dupstr(path))) {
        free(v);
        return trv_error(ctx, TRV_ERR_NOMEM, "cannot create '%s': out of memory", path);
    }
    trv_status st = setup_crs(ctx, v, src_wkt);
    if (st != TRV_OK) {
        geo_vec_free(v);
        return st;
    }
    if (fmt == VEC_GPKG) {
        if (opts_hold() != 0) {
            geo_vec_free(v);
            return trv_error(ctx, TRV_ERR_NOMEM, "cannot create '%s': out of memory", path);
        }
        v->holds_opts = 1;
    }
    CPLErrorReset();
    v->ds = GDALCreate(drv, path, 0, 0, 0, GDT_Unknown, NULL);
    if (!v->ds) {
        st = geo__vec_gdal_error(ctx, TRV_ERR_IO, "GDAL gave no reason", "cannot create '%s'", path);
        geo_vec_free(v);
        return st;
    }
    *out = v;
    return TRV_OK;
}

/* ---- layers ----------------------------------------------------------- */

static void layer_clear(vec_layer *l)
{
    for (int i = 0; l->fnames && i < l->nfields; i++)
        free(l->fnames[i]);
    free(l->fnames);
    free(l->name);
    free(l->types);
    free(l->ogr_field);
}

static trv_status check_layer(trv_ctx *ctx, const geo_vec *v, const char *name, geo_geom geom,
                              const geo_field *fields, int nfields, int *gpx_rank)
{
    if (!name || !*name)
        return trv_error(ctx, TRV_ERR_USAGE, "cannot add a layer without a name to '%s'", v->path);
    if (geom != GEO_POINT && geom != GEO_LINE && geom != GEO_POLYGON)
        return trv_error(ctx, TRV_ERR_USAGE, "cannot add layer '%s' to '%s': unknown geometry type %d", name,
                         v->path, (int)geom);
    if (nfields < 0 || (nfields > 0 && !fields))
        return trv_error(ctx, TRV_ERR_USAGE, "cannot add layer '%s' to '%s': bad field list", name, v->path);
    for (int i = 0; i < v->nlayers; i++)
        if (strcasecmp(v->layers[i].name, name) == 0)
            return trv_error(ctx, TRV_ERR_USAGE, "'%s' already has a layer '%s'", v->path, name);
    for (int i = 0; i < nfields; i++) {
        const geo_field *f = &fields[i];
        if (!f->name || !*f->name)
            return trv_error(ctx, TRV_ERR_USAGE, "cannot add layer '%s' to '%s': field %d has no name", name,
                             v->path, i + 1);
        if (f->type != GEO_FIELD_INT && f->type != GEO_FIELD_REAL && f->type != GEO_FIELD_STRING)
            return trv_error(ctx, TRV_ERR_USAGE, "cannot add layer '%s' to '%s': field '%s' has unknown type %d",
                             name, v->path, f->name, (int)f->type);
        for (int j = 0; j < i; j++)
            if (strcasecmp(fields[j].name, f->name) == 0)
                return trv_error(ctx, TRV_ERR_USAGE, "cannot add layer '%s' to '%s': field '%s' given twice", name,
                                 v->path, f->name);
    }

    if (v->fmt == VEC_GEOJSON && v->nlayers > 0)
        return trv_error(ctx, TRV_ERR_USAGE,
                         "cannot add layer '%s' to '%s': GeoJSON holds one layer (use .gpkg for several)", name,
                         v->path);
    if (v->fmt == VEC_GPX) {
        int rank = -1;
        for (int k = GPX_WPT; k <= GPX_TRK; k++)
            if (strcmp(name, gpx_kinds[k]) == 0)
                rank = k;
        if (rank < 0)
            return trv_error(ctx, TRV_ERR_USAGE,
                             "cannot add layer '%s' to '%s': GPX layers are 'waypoints', 'routes' or 'tracks'",
                             name, v->path);
        if (geom == GEO_POLYGON)
            return trv_error(ctx, TRV_ERR_USAGE, "cannot add layer '%s' to '%s': GPX has no polygons", name,
                             v->path);
        if ((rank == GPX_WPT) != (geom == GEO_POINT))
            return trv_error(ctx, TRV_ERR_USAGE, "cannot add layer '%s' to '%s': GPX %s are %s", name, v->path,
                             name, rank == GPX_WPT ? "points" : "lines");
        /* GPX has a fixed schema; only its own <name> can be filled */
        for (int i = 0; i < nfields; i++)
            if (strcmp(fields[i].name, "name") != 0 || fields[i].type != GEO_FIELD_STRING)
                return trv_error(ctx, TRV_ERR_USAGE,
                                 "cannot add layer '%s' to '%s': field '%s' does not exist in GPX (only a string "
                                 "'name' does)",
                                 name, v->path, fields[i].name);
        *gpx_rank = rank;
    }
    return TRV_OK;
}

trv_status geo__vec_create_layer(trv_ctx *ctx, geo_vec *v, vec_layer *l, int has_z)
{
    l->created = 1;
    l->has_z = has_z;
    /* a GeoPackage layer is created outside the feature transaction */
    if (v->in_txn) {
        v->in_txn = 0;
        CPLErrorReset();
        if (GDALDatasetCommitTransaction(v->ds) != OGRERR_NONE)
            return geo__vec_remember(ctx, v,
                            geo__vec_gdal_error(ctx, TRV_ERR_IO, "commit failed", "cannot write '%s'", v->path));
    }

    OGRwkbGeometryType gt = l->geom == GEO_POINT     ? wkbPoint
                            : l->geom == GEO_POLYGON ? wkbPolygon
                            : l->multi               ? wkbMultiLineString
                                                     : wkbLineString;
    if (has_z)
        gt = OGR_GT_SetZ(gt);
    /* CSLConstList is char ** in C */
    static char rfc7946[] = "RFC7946=YES", precision[] = "COORDINATE_PRECISION=7";
    char *geojson_opts[] = {rfc7946, precision, NULL};
    CPLErrorReset();
    /* a GeoPackage's R-tree maintained insert by insert costs several times
     * the writing itself: build it once, in geo_vec_close */
    static char no_index[] = "SPATIAL_INDEX=NO";
    char *gpkg_opts[] = {no_index, NULL};
    OGRLayerH h = GDALDatasetCreateLayer(v->ds, l->name, v->fmt == VEC_GPKG ? v->src_srs : v->wgs84, gt,
                                         v->fmt == VEC_GEOJSON ? geojson_opts : v->fmt == VEC_GPKG ? gpkg_opts : NULL);
    if (!h)
        return geo__vec_remember(ctx, v,
                        geo__vec_gdal_error(ctx, TRV_ERR_IO, "GDAL gave no reason", "cannot create layer '%s' in '%s'",
                                   l->name, v->path));

    OGRFeatureDefnH defn = OGR_L_GetLayerDefn(h);
    /* GDAL writes <ele> of route and track points from z, but that of a
     * waypoint only from the field */
    if (l->gpx_rank == GPX_WPT && (l->ele_field = OGR_FD_GetFieldIndex(defn, "ele")) < 0)
        return trv_error(ctx, TRV_ERR_INTERNAL, "GPX layer '%s' of '%s' has no field 'ele'", l->name, v->path);
    for (int i = 0; i < l->nfields; i++) {
        if (v->fmt == VEC_GPX) {
            if ((l->ogr_field[i] = OGR_FD_GetFieldIndex(defn, l->fnames[i])) < 0)
                return trv_error(ctx, TRV_ERR_INTERNAL, "GPX layer '%s' of '%s' has no field '%s'", l->name,
                                 v->path, l->fnames[i]);
            continue;
        }
        OGRFieldType ft = l->types[i] == GEO_FIELD_INT    ? OFTInteger64
                          : l->types[i] == GEO_FIELD_REAL ? OFTReal
                                                          : OFTString;
        OGRFieldDefnH fd = OGR_Fld_Create(l->fnames[i], ft);
        if (!fd)
            return trv_error(ctx, TRV_ERR_NOMEM, "cannot create layer '%s' in '%s': out of memory", l->name,
                             v->path);
        CPLErrorReset();
        /* approx_ok = FALSE: the field keeps the name asked for, or fails */
        OGRErr err = OGR_L_CreateField(h, fd, FALSE);
        OGR_Fld_Destroy(fd);
        if (err != OGRERR_NONE)
            return geo__vec_remember(ctx, v,
                            geo__vec_gdal_error(ctx, TRV_ERR_IO, "GDAL gave no reason",
                                       "cannot create field '%s' of layer '%s' in '%s'", l->fnames[i], l->name,
                                       v->path));
        l->ogr_field[i] = OGR_FD_GetFieldCount(defn) - 1;
    }
    l->h = h;
    return TRV_OK;
}

trv_status geo_vec_add_layer(trv_ctx *ctx, geo_vec *v, const char *name, geo_geom geom, const geo_field *fields,
                             int nfields, int *layer)
{
    int gpx_rank = -1;
    trv_status st = check_layer(ctx, v, name, geom, fields, nfields, &gpx_rank);
    if (st != TRV_OK)
        return st;

    if (v->nlayers == v->cap) {
        int cap = v->cap ? 2 * v->cap : 4;
        vec_layer *nl = realloc(v->layers, (size_t)cap * sizeof *nl);
        if (!nl)
            return trv_error(ctx, TRV_ERR_NOMEM, "cannot add layer '%s' to '%s': out of memory", name, v->path);
        v->layers = nl;
        v->cap = cap;
    }
    vec_layer *l = &v->layers[v->nlayers];
    memset(l, 0, sizeof *l);
    l->geom = geom;
    l->gpx_rank = gpx_rank;
    l->multi = gpx_rank == GPX_TRK;
    l->ele_field = -1;
    l->name = dupstr(name);
    int ok = l->name != NULL;
    if (ok && nfields > 0) {
        l->fnames = calloc((size_t)nfields, sizeof *l->fnames);
        l->types = malloc((size_t)nfields * sizeof *l->types);
        l->ogr_field = malloc((size_t)nfields * sizeof *l->ogr_field);
        ok = l->fnames && l->types && l->ogr_field;
        for (int i = 0; ok && i < nfields; i++) {
            l->nfields = i + 1; /* so that layer_clear frees what was copied */
            l->types[i] = fields[i].type;
            ok = (l->fnames[i] = dupstr(fields[i].name)) != NULL;
        }
    }
    if (!ok) {
        layer_clear(l);
        return trv_error(ctx, TRV_ERR_NOMEM, "cannot add layer '%s' to '%s': out of memory", name, v->path);
    }
    if (v->fmt != VEC_GPKG && (st = geo__vec_create_layer(ctx, v, l, 0)) != TRV_OK) {
        layer_clear(l);
        return st;
    }
    *layer = v->nlayers++;
    return TRV_OK;
}

/* ---- close ------------------------------------------------------------ */

static void release(geo_vec *v)
{
    if (v->ds)
        GDALClose(v->ds);
    if (v->holds_opts)
        opts_release();
    if (v->ct)
        OCTDestroyCoordinateTransformation(v->ct);
    if (v->wgs84)
        OSRRelease(v->wgs84);
    if (v->src_srs)
        OSRRelease(v->src_srs);
    for (int i = 0; i < v->nlayers; i++)
        layer_clear(&v->layers[i]);
    free(v->layers);
    free(v->buf);
    free(v->failmsg);
    free(v->path);
    free(v);
}

void geo_vec_set_meta(geo_vec *v, const trv_meta *meta)
{
    if (v && meta) {
        v->meta = *meta;
        v->has_meta = 1;
    }
}

void geo_vec_no_index(geo_vec *v, int layer)
{
    if (v && layer >= 0 && layer < v->nlayers)
        v->layers[layer].no_index = 1;
}

trv_status geo_vec_close(trv_ctx *ctx, geo_vec *v)
{
    if (!v)
        return trv_error(ctx, TRV_ERR_USAGE, "no vector output to close");
    trv_status st = TRV_OK;
    if (v->failed != TRV_OK)
        st = v->failmsg ? trv_error(ctx, v->failed, "%s", v->failmsg)
                        : trv_error(ctx, v->failed, "cannot write '%s': an earlier write failed", v->path);
    for (int i = 0; i < v->nlayers && st == TRV_OK; i++)
        if (!v->layers[i].created)
            st = geo__vec_create_layer(ctx, v, &v->layers[i], 0);
    if (v->in_txn) {
        v->in_txn = 0;
        CPLErrorReset();
        if (GDALDatasetCommitTransaction(v->ds) != OGRERR_NONE && st == TRV_OK)
            st = geo__vec_gdal_error(ctx, TRV_ERR_IO, "commit failed", "cannot write '%s'", v->path);
    }
    /* the spatial indexes, in bulk (the GeoPackage extension's own function) */
    for (int i = 0; i < v->nlayers && st == TRV_OK && v->fmt == VEC_GPKG; i++) {
        if (!v->layers[i].h || v->layers[i].no_index)
            continue;
        char sql[512];
        snprintf(sql, sizeof sql, "SELECT CreateSpatialIndex('%s', '%s')", v->layers[i].name,
                 OGR_L_GetGeometryColumn(v->layers[i].h));
        CPLErrorReset();
        OGRLayerH res = GDALDatasetExecuteSQL(v->ds, sql, NULL, NULL);
        if (res)
            GDALDatasetReleaseResultSet(v->ds, res);
        if (CPLGetLastErrorType() >= CE_Failure)
            st = geo__vec_gdal_error(ctx, TRV_ERR_IO, "GDAL gave no reason", "cannot index layer '%s' of '%s'",
                            v->layers[i].name, v->path);
    }
    /* what made the file, as in every GeoTIFF traverse writes (the
     * GeoPackage keeps it in gpkg_metadata; GeoJSON and GPX have no place) */
    if (st == TRV_OK && v->has_meta && v->fmt == VEC_GPKG)
        geo_meta_apply(v->ds, &v->meta);
    /* GDALClose returns nothing before GDAL 3.7: a failure shows only as
     * an error GDAL raised while closing */
    CPLErrorReset();
    GDALClose(v->ds);
    v->ds = NULL;
    CPLErr e = CPLGetLastErrorType();
    if ((e == CE_Failure || e == CE_Fatal) && st == TRV_OK)
        st = geo__vec_gdal_error(ctx, TRV_ERR_IO, "GDAL gave no reason", "cannot write '%s'", v->path);
    release(v);
    return st;
}

void geo_vec_free(geo_vec *v)
{
    if (!v)
        return;
    if (v->in_txn)
        GDALDatasetRollbackTransaction(v->ds);
    release(v);
}
