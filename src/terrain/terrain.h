/*
 * terrain.h — terrain fusion (docs/method.md §1.8–1.10): the soil and land-use
 * maps are aligned onto the DEM's grid (categorical: majority or nearest,
 * never interpolated) and slope is computed by Horn's method, giving per
 * cell x, y, z, slope, soil, land use.
 *
 * The DEM must be on a projected grid (metres): a geographic DEM is
 * refused with the UTM zone to reproject it to. Soil and land use may be
 * in any CRS and cell size. Soil and land use are masked to the DEM's
 * data cells, so every layer has the same footprint.
 *
 * Ownership: ter_build fills a ter_layers the caller releases with
 * ter_layers_clear; the class tables named in the options are read into it.
 */
#ifndef TERRAIN_H
#define TERRAIN_H

#include "geo/geo.h"

typedef struct ter_opts {
    const char *dem_path, *soil_path, *landuse_path;
    const char *soil_classes_path, *landuse_classes_path; /* CSV: code, name, color, ... */
    geo_resample resample;                                 /* GEO_MODE (default) or GEO_NEAREST */
} ter_opts;

typedef struct ter_layers {
    geo_raster *dem, *slope, *soil, *landuse;
    geo_classes *soil_classes, *landuse_classes;
    size_t valid;               /* DEM cells with data */
    double soil_cover, landuse_cover; /* fraction of DEM data cells with a class */
} ter_layers;

void ter_opts_init(ter_opts *o);
void ter_layers_clear(ter_layers *t);

/* Read, align and compute all layers in memory. Errors name the file. */
trv_status ter_build(trv_ctx *ctx, const ter_opts *opts, ter_layers *out);

/* Write dem.tif, slope.tif, soil.tif and landuse.tif into dir (created if
 * missing) and, if points_path is not NULL, the point cloud CSV
 * (x, y, z, slope, soil, landuse: one row per DEM data cell, centre
 * coordinates, soil/landuse 0 where unknown), in the caller's output set:
 * the caller's commit makes them appear with the rest of its run, all or
 * none. */
trv_status ter_write(trv_ctx *ctx, trv_outset *set, const ter_layers *t, const char *dir, const char *points_path,
                     const trv_meta *meta);

/* Write the point-cloud CSV lines of grid row y (its DEM data cells). */
void ter_points_rows(FILE *f, const ter_layers *t, int y);

#endif
