/*
 * qgis.h — traverse qgis: the QGIS styles of the layers (.qml sidecars,
 * GeoPackage layer_styles) and the QGIS project of a run directory.
 *
 * Layering: qgis takes its palettes from render (so that a layer looks
 * alike in its PNG and in QGIS) and depends on geo and core.
 *
 * qgis_project_write gathers every layer a run leaves in a directory
 * (routes, trajectories, obstacles, the roadmap, class, cost, GO/NOGO,
 * speed, slope, land use, soil, kriging standard deviation, elevation and
 * its hillshade), styles each one and writes a QGIS 3 project (.qgs XML,
 * read by QGIS 3.22 and later): relative data sources, the layers' own
 * CRS as the project CRS, one <maplayer> per layer with its renderer
 * embedded. Continuous rasters take the renderer of the .qml sidecar
 * beside them (slope.qml beside slope.tif) when there is one, else a
 * single-band pseudocolour ramp over the layer's exact minimum and
 * maximum; categorical (Byte, colour-table) rasters a paletted renderer
 * from their colour table and category names; vector layers the
 * <renderer-v2> of their sidecar, else a categorised (routes, by
 * strategy) or single-symbol default. With dem.tif in a projected CRS
 * the project also holds a 3D map view (QGIS 3.22's <mapViewDocks3D>, one
 * floating view): terrain from dem.tif (the DEM terrain generator, origin
 * at its centre) draped with the visible layers, and each route and
 * trajectory layer a <renderer-3d> line clamped to the terrain, 2 m above
 * it (view3d.c). The same directory gives the same bytes: nothing depends
 * on time, the host or absolute paths.
 *
 * Ownership: info structures are filled by the library and released with
 * their _clear function; options are borrowed.
 */
#ifndef TRV_QGIS_H
#define TRV_QGIS_H

#include "render/render.h"

/* ---- project --------------------------------------------------------- */

typedef struct qgis_project_opts {
    const char *dir;        /* the run directory (out/<area>) */
    const char *out_path;   /* the .qgs to write (atomically); data sources are relative to its directory */
    const char *title;      /* project title; NULL: the directory's name */
} qgis_project_opts;

typedef struct qgis_project_layer {
    char name[64];          /* layer name in the project ("routes", "slope") */
    char source[512];       /* data source as written (relative) */
    char renderer[32];      /* "singlebandpseudocolor", "paletted", "hillshade", "categorizedSymbol", ... */
    char style[16];         /* where the style came from: "qml", "colour table" or "default" */
    int visible;
} qgis_project_layer;

typedef struct qgis_project_info {
    char crs[64];           /* the project CRS, "EPSG:32616" */
    double extent[4];       /* xmin ymin xmax ymax in the project CRS */
    int nlayers;
    qgis_project_layer *layer; /* top to bottom; owned */
} qgis_project_info;

/* Write the project. Errors: opts->dir missing or holding no layer
 * (TRV_ERR_IO), a layer GDAL/OGR cannot read (TRV_ERR_IO, "cannot open
 * 'x': ..."), a layer without CRS (TRV_ERR_CRS). Nothing is written on
 * failure. info may be NULL. */
trv_status qgis_project_write(trv_ctx *ctx, const qgis_project_opts *opts, qgis_project_info *info);
void qgis_project_info_clear(qgis_project_info *info);

/* ---- QGIS styles --------------------------------------------------------
 * A style is a QGIS 3 document: <!DOCTYPE qgis ...><qgis version="3.22.0"
 * styleCategories="AllStyleCategories"> around inner elements. The *_xml
 * functions return that INNER XML only: the children of <qgis> (for a
 * raster: <pipe>…</pipe><blendMode>; for a vector: <renderer-v2>…
 * </renderer-v2><blendMode><featureBlendMode><layerOpacity>), so that a
 * QGIS project writer can put them straight into a <maplayer> element.
 * qgis_qml_document wraps inner XML into a complete .qml document; the
 * *_write functions write such a document to a path as given (pass a
 * trv_outset temporary).
 */

/* Wrap inner XML into a full QGIS style document (malloc'ed). */
char *qgis_qml_document(const char *inner);
/* Single-band pseudocolour over [min, max] with palette p (interpolated,
 * the palette's stops as items), nodata transparent. unit and desc label
 * the items (may be NULL). */
char *qgis_qml_raster_xml(const rnd_palette *p, double min, double max, const char *unit, const char *desc);
/* Routes: categorized on field (NULL: "route") with mmcr, mdr, msr, time,
 * grid-mmcr, grid-mdr, grid-msr, grid-time and trajectory, in the PNG's
 * colours, 0.8 mm wide, grid-* dashed. */
char *qgis_qml_route_xml(const char *field);
/* Roadmap edges (faint thin grey lines) and nodes (small dark dots). */
char *qgis_qml_roadmap_edges_xml(void);
char *qgis_qml_roadmap_nodes_xml(void);
/* Simulated trajectories: a dark line on a white casing. */
char *qgis_qml_trajectory_xml(void);
/* Obstacles: polygons outlined dark red on a translucent red fill; with
 * radius_field (e.g. "radius_m") set, points drawn as circles of that
 * radius in map units (a marker whose diameter is data-defined). */
char *qgis_qml_obstacles_xml(const char *radius_field);

trv_status qgis_qml_write(trv_ctx *ctx, const char *path, const char *inner);
trv_status qgis_qml_raster_write(trv_ctx *ctx, const char *path, const rnd_palette *p, double min, double max,
                                const char *unit, const char *desc);
trv_status qgis_qml_route_write(trv_ctx *ctx, const char *path, const char *field);
trv_status qgis_qml_roadmap_edges_write(trv_ctx *ctx, const char *path);
trv_status qgis_qml_roadmap_nodes_write(trv_ctx *ctx, const char *path);
trv_status qgis_qml_trajectory_write(trv_ctx *ctx, const char *path);
trv_status qgis_qml_obstacles_write(trv_ctx *ctx, const char *path, const char *radius_field);

/* The sidecar path of a layer: "out/x/slope.tif" -> "out/x/slope.qml"
 * (malloc'ed; NULL when out of memory). */
char *qgis_qml_path(const char *layer_path);
/* Style of a continuous raster held in memory (a Float32 layer a stage is
 * about to write): the palette from its description and unit
 * (rnd_palette_auto), the range from its data (rnd_layer_range); the
 * document written to qml_path as given. */
trv_status qgis_qml_raster_mem(trv_ctx *ctx, const geo_raster *r, const char *qml_path);
/* The same from a layer's description, unit and data range (dmin > dmax:
 * no data), for a layer streamed to its file (geo/block.h). */
trv_status qgis_qml_raster_range(trv_ctx *ctx, const char *desc, const char *unit, double dmin, double dmax,
                                 const char *qml_path);
/* Add layer_path's sidecar (qgis_qml_path) to set; the temporary path to
 * write it to, or NULL (out of memory, said in ctx). Tools write their
 * layers' styles this way before the stage commits its layers and commit
 * the set right after, so that a failed style leaves no layer behind. */
const char *qgis_qml_add(trv_ctx *ctx, trv_outset *set, const char *layer_path);
/* Both: the style of r for the layer dir/name (dir NULL: name is the
 * path) written into set. */
trv_status qgis_qml_stage(trv_ctx *ctx, trv_outset *set, const char *dir, const char *name, const geo_raster *r);
/* qgis_qml_stage from a streamed layer's description, unit and range. */
trv_status qgis_qml_stage_range(trv_ctx *ctx, trv_outset *set, const char *dir, const char *name, const char *desc,
                                const char *unit, double dmin, double dmax);
/* Store default styles for GeoPackage layers in its layer_styles table (as
 * QGIS does: f_table_catalog/schema '', styleName = the layer, useAsDefault
 * 1, update_time fixed, so the file stays reproducible). layers[i] gets
 * inner[i]. The file is updated in place (pass a trv_outset temporary). */
trv_status qgis_gpkg_styles_write(trv_ctx *ctx, const char *gpkg_path, const char *const *layers,
                                 const char *const *inner, int n);


#endif
