/* project_priv.h — what the QGIS project writer (project.c) and its layer
 * reader (layers.c) share: the layers of a run directory as the project
 * lists them. Private to src/qgis. */
#ifndef QGIS_PROJECT_PRIV_H
#define QGIS_PROJECT_PRIV_H

#include "qgis/qgis.h"

#include <limits.h>
#include <stdio.h>

typedef enum kind { K_ROUTES, K_TRAJECTORY, K_OBSTACLES, K_NODES, K_EDGES, K_POINTCLOUD, K_RASTER, K_HILLSHADE } kind;

typedef struct layer {
    kind kind;
    char name[64], id[80];
    char path[PATH_MAX];    /* to open */
    char source[PATH_MAX];  /* as written: relative to the project */
    char ogr_layer[64];     /* GeoPackage layer name, "" for single-layer files */
    char qml[PATH_MAX];     /* the style sidecar to look for */
    geo_crs_desc crs;       /* its CRS, described */
    char *wkt;              /* its CRS as WKT */
    double ext[4];
    int visible;
    double opacity;
    /* rasters */
    int categorical;
    /* vectors */
    const char *geom;       /* "Point", "Line", "Polygon" */
    const char *wkb;        /* "LineString", ... */
    char *renderer_xml;     /* malloc'ed: <rasterrenderer>, <renderer-v2> or a point cloud's <renderer> */
    char renderer[32];
    char style[16];
} layer;

typedef struct layers {
    layer *l;
    int n, cap;
} layers;

/* layers.c: the layers of run directory dir, in the project's order, each
 * opened (CRS, extent, geometry), its renderer taken from its style
 * sidecar or a default, its id made. An error when there is none. */
trv_status qgis__layers_read(trv_ctx *ctx, layers *L, const char *dir);
void qgis__layers_clear(layers *L);

/* view3d.c: a route or trajectory layer's 3D line symbol (<renderer-3d>,
 * nothing for other layers), and the project's 3D map view
 * (<mapViewDocks3D>: terrain from dem.tif; nothing without dem.tif or in a
 * geographic CRS); write_srs writes a <spatialrefsys>. */
void qgis__renderer3d_write(FILE *f, const layer *y);
void qgis__view3d_write(FILE *f, const layers *L, const layer *crs_of, const double ext[4],
                        void (*write_srs)(FILE *, const geo_crs_desc *, const char *));

#endif
