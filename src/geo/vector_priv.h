/* Private to geo's vector writer (vector.c: create, layers, close;
 * vector_add.c: features): the writer's state and the helpers both use. */
#ifndef GEO_VECTOR_PRIV_H
#define GEO_VECTOR_PRIV_H

#include "geo_priv.h"

#include <gdal.h>
#include <ogr_api.h>
#include <ogr_srs_api.h>

typedef enum vec_format { VEC_GEOJSON, VEC_GPX, VEC_GPKG } vec_format;

static const char *const driver_name[] = {"GeoJSON", "GPX", "GPKG"};

/* GPX (the XSD) lists every wpt before any rte, every rte before any trk,
 * and GDAL writes elements as they come, so the order is enforced. */
enum { GPX_WPT, GPX_RTE, GPX_TRK };
static const char *const gpx_kind[] = {"waypoint", "route", "track"};
static const char *const gpx_kinds[] = {"waypoints", "routes", "tracks"};

/* A GeoPackage declares per layer whether geometries have z (GDAL 3.6
 * cannot change it later) and geo_vec_add_layer does not say, so a GPKG
 * layer is created in OGR with its first feature, or at close if empty. */
typedef struct vec_layer {
    OGRLayerH h;            /* owned by the dataset; NULL until created */
    int created;            /* creation was tried (h NULL: it failed) */
    int has_z;
    char *name;
    geo_geom geom;
    int multi;              /* write lines as one-part MultiLineString (GPX tracks) */
    int gpx_rank;           /* GPX_WPT, GPX_RTE or GPX_TRK */
    int ele_field;          /* GPX waypoints: OGR index of "ele", else -1 */
    int nfields;
    char **fnames;
    geo_field_type *types;
    int *ogr_field;         /* OGR field index of each of our fields */
    int no_index;           /* GeoPackage: skip the spatial index */
} vec_layer;

struct geo_vec {
    char *path;
    vec_format fmt;
    GDALDatasetH ds;
    OGRSpatialReferenceH src_srs;   /* NULL when no src_wkt (GPKG only) */
    OGRSpatialReferenceH wgs84;     /* GeoJSON and GPX layer CRS */
    OGRCoordinateTransformationH ct; /* src -> EPSG:4326; NULL for GPKG */
    vec_layer *layers;
    int nlayers, cap;
    int in_txn;
    int gpx_last;           /* rank of the last GPX element written, -1 none */
    int holds_opts;
    trv_status failed;      /* first write error, reported again by close */
    char *failmsg;
    double *buf;            /* transformed x then y, 2 * bufcap doubles */
    int bufcap;
    int has_meta;           /* GeoPackage: TRV_* items to record at close */
    trv_meta meta;
};

/* The message of GDAL's last error (fallback when it has none) after
 * fmt, as trv_error does. */
trv_status geo__vec_gdal_error(trv_ctx *ctx, trv_status st, const char *fallback, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* Remember the first write error of v (close reports it again); st. */
trv_status geo__vec_remember(trv_ctx *ctx, geo_vec *v, trv_status st);
/* Create layer l in OGR (GeoPackage: with its first feature, once z is known). */
trv_status geo__vec_create_layer(trv_ctx *ctx, geo_vec *v, vec_layer *l, int has_z);

#endif
