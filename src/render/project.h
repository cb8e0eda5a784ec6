/*
 * project.h — traverse render: the QGIS project of a run directory and
 * the mission report. (Kept apart from render.h, the map renderer's
 * header, so that the two can grow independently; same rnd_ prefix.)
 *
 * rnd_project_write gathers every layer a run leaves in a directory
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
 * strategy) or single-symbol default. The same directory gives the same
 * bytes: nothing depends on time, the host or absolute paths.
 *
 * rnd_report_write builds the mission report of a run directory once, as
 * a structure, and writes it both as GitHub-flavoured Markdown and as a
 * self-contained HTML page (images embedded as data: URIs).
 *
 * Ownership: info structures are filled by the library and released with
 * their _clear function; options are borrowed.
 */
#ifndef RND_PROJECT_H
#define RND_PROJECT_H

#include "core/trv.h"

/* ---- project --------------------------------------------------------- */

typedef struct rnd_project_opts {
    const char *dir;        /* the run directory (out/<area>) */
    const char *out_path;   /* the .qgs to write (atomically); data sources are relative to its directory */
    const char *title;      /* project title; NULL: the directory's name */
} rnd_project_opts;

typedef struct rnd_project_layer {
    char name[64];          /* layer name in the project ("routes", "slope") */
    char source[512];       /* data source as written (relative) */
    char renderer[32];      /* "singlebandpseudocolor", "paletted", "hillshade", "categorizedSymbol", ... */
    char style[16];         /* where the style came from: "qml", "colour table" or "default" */
    int visible;
} rnd_project_layer;

typedef struct rnd_project_info {
    char crs[64];           /* the project CRS, "EPSG:32616" */
    double extent[4];       /* xmin ymin xmax ymax in the project CRS */
    int nlayers;
    rnd_project_layer *layer; /* top to bottom; owned */
} rnd_project_info;

/* Write the project. Errors: opts->dir missing or holding no layer
 * (TRV_ERR_IO), a layer GDAL/OGR cannot read (TRV_ERR_IO, "cannot open
 * 'x': ..."), a layer without CRS (TRV_ERR_CRS). Nothing is written on
 * failure. info may be NULL. */
trv_status rnd_project_write(trv_ctx *ctx, const rnd_project_opts *opts, rnd_project_info *info);
void rnd_project_info_clear(rnd_project_info *info);

/* ---- report ---------------------------------------------------------- */

typedef struct rnd_report_opts {
    const char *dir;        /* the run directory */
    const char *md_path;    /* Markdown output; NULL: none */
    const char *html_path;  /* HTML output; NULL: none */
} rnd_report_opts;

/* Read the run directory and write the report(s), atomically (both or
 * neither). Required: route_stats.csv, class.tif, gonogo.tif and the
 * terrain layers dem.tif and slope.tif; every other input is reported
 * as absent when missing, and is an error (naming the file) when present
 * but unreadable. */
trv_status rnd_report_write(trv_ctx *ctx, const rnd_report_opts *opts);

#endif
