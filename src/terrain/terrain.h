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
 * Ownership: ter_stream fills a ter_result the caller releases with
 * ter_result_clear; the class tables named in the options are read into it.
 */
#ifndef TERRAIN_H
#define TERRAIN_H

#include "geo/geo.h"

typedef struct ter_opts {
    const char *dem_path, *soil_path, *landuse_path;
    const char *soil_classes_path, *landuse_classes_path; /* CSV: code, name, color, ... */
    geo_resample resample;                                 /* GEO_MODE (default) or GEO_NEAREST */
    const char *ept_dir;    /* also the point cloud as an EPT dataset there (terrain/ept.h); NULL: none */
    const struct trv_split *split; /* NULL: one process; else ter_stream's blocks over processes (core/split.h):
                                      process 0 writes, set unused on the others; points_path and
                                      ept_dir the same on every process (they set the tiles' shape) */
} ter_opts;

/* What ter_stream reports: the grid, the DEM's data cells (its source
 * nodata rule), the ranges over them (elevation, slope), the class
 * tables, the cells per soil and land-use code among them and the share
 * each class map covers. */
typedef struct ter_result {
    geo_grid grid;
    geo_classes *soil_classes, *landuse_classes;
    size_t valid;                      /* DEM cells with data */
    double soil_cover, landuse_cover;  /* fraction of DEM data cells with a class */
    double zmin, zmax, smean, smax;    /* over the DEM's data cells */
    double slope_min, slope_max;       /* slope.tif's data range (its style) */
    size_t count[2][256];              /* cells per soil [0] and land-use [1] code */
} ter_result;

void ter_opts_init(ter_opts *o);
void ter_result_clear(ter_result *r);

/* Read, align, compute and write dem.tif, slope.tif, soil.tif and
 * landuse.tif (Cloud-Optimized GeoTIFFs, geo/block.h) into dir (created if
 * missing) and, if points_path is not NULL, the point cloud CSV (x, y, z,
 * slope, soil, landuse: one row per DEM data cell, centre coordinates,
 * soil/landuse 0 where unknown) and, if opts->ept_dir is set, the same
 * points as an Entwine Point Tile dataset (terrain/ept.h), in the caller's output set (its commit
 * makes them appear with the rest of its run, all or none), streamed by
 * tiles of geo_block_cols() x geo_block_rows() cells (as wide as the grid
 * when points_path or opts->ept_dir is set: the points go out in row
 * order): the DEM read with a one-cell halo (Horn's window), the class
 * maps aligned onto the DEM tile by tile (geo_aligner_window; their
 * windows over the DEM read by windows as the aligner samples them:
 * geo_aligner_new_lazy). The bytes and the figures are the same whatever
 * the tile. Errors name the file. */
trv_status ter_stream(trv_ctx *ctx, trv_outset *set, const ter_opts *opts, const char *dir, const char *points_path,
                      const trv_meta *meta, ter_result *out);

#endif
