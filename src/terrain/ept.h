/*
 * ept.h — the terrain's point cloud as an Entwine Point Tile dataset (EPT
 * 1.0.0): DIR/ept.json, DIR/ept-hierarchy/0-0-0-0.json and
 * DIR/ept-data/D-X-Y-Z.bin with the "binary" data type (uncompressed
 * little-endian records, no LASzip needed). QGIS opens it as a point cloud
 * through its "ept" provider (the only point-cloud format Debian 12's QGIS
 * reads: it is built without PDAL), and PDAL through readers.ept.
 *
 * One point per DEM data cell, as the CSV has them, in a 20-byte record:
 *   X, Y, Z   int32, metres = value x 0.001 + offset (X and Y: the grid's
 *             centre to the metre; Z: 0), rounded as the CSV's %.3f
 *             (to the nearest millimetre, ties to even)
 *   Slope     float32, degrees (the slope layer's value)
 *   Soil, LandUse  uint16, the class codes
 *
 * Levels of detail (the octree). The cube has side S, the larger of the
 * grid's width and height and the DEM's relief, from (x0, y0, z0): the
 * grid's west and south edges and the floor of its lowest elevation. Cell
 * (c, r) (column, row) is a point of depth
 *   d(c, r) = D - min(tz(c), tz(r), D),   tz(k): trailing zero bits of k, tz(0) = D,
 * so depth 0 holds every 2^D-th cell both ways and each deeper depth the
 * cells that halve the spacing: a node of depth d, side s_d = S / 2^d,
 * spans S / (2^D cell) points across, the same at every depth (EPT's
 * "span"); D is the least depth with a span of at most 128. The point goes
 * to node (d, floor((x - x0) / s_d), floor((y - y0) / s_d),
 * floor((z - z0) / s_d)), each index within 0 .. 2^d - 1. The hierarchy
 * lists every node with points and, with count 0 (and an empty data
 * file), each ancestor that has none, so that a reader walking down from
 * the root meets every node.
 *
 * Streaming: the points arrive by tiles (ter_ept_tiles; rows of tiles in
 * order, each row of tiles' tiles west to east) and go to one temporary
 * file per depth in row order: each depth's records of a row of tiles are
 * put in row order through a scratch file (core/rowtext.h), so the files
 * hold the bytes whole rows would have given them, whatever the tiles. At
 * the end each depth's file is read back one band of node rows at a time
 * (a band's points are contiguous: rows run north to south), sorted
 * stably by node and written node by node; a band of more than 65 536
 * records (TRV_EPT_BAND from the environment when set) is put in order of
 * groups of node columns through a scratch file first and each group
 * sorted alone (a node is in one group: the same node files). Memory:
 * O(tile) for the tiles, at most about 7 MiB for the sort, whatever the
 * width (docs/scale.md, "trv-terrain --ept by tiles").
 */
#ifndef TER_EPT_H
#define TER_EPT_H

#include <stdint.h>

#include "core/trv.h"
#include "geo/geo.h"

enum { TER_EPT_RECORD = 20, TER_EPT_SPAN = 128 };

typedef struct ter_ept ter_ept;

/* What a dataset directory holds: an existing directory holding nothing
 * else is an earlier dataset, which a new one replaces whole when it is
 * committed (trv_outset_add_dir). */
extern const char *const ter_ept_names[];

/* A writer for grid g's points into the directory dir (its parents
 * created), which the set writes whole (trv_outset_add_dir: committed with
 * the set's other outputs, or not at all; an earlier dataset there
 * replaced, any other content refused). */
trv_status ter_ept_open(trv_ctx *ctx, trv_outset *set, const char *dir, const geo_grid *g, ter_ept **out);
/* The points will come by tiles: ntx across, th rows each (geo_tiling),
 * tiles in order. Without this call they come by whole rows (ntx 1). */
trv_status ter_ept_tiles(trv_ctx *ctx, ter_ept *e, int ntx, int th);
/* Tile tx's points (its x0, y0, nx, ny; the arrays nx x ny, row-major):
 * its cells with z != nodata. A coordinate beyond EPT's 32-bit millimetres
 * (a point more than 2147 km from the offset) is TRV_ERR_DATA after the
 * row of tiles' last tile, naming the row-major first such cell's value:
 * the same message whatever the tiles. */
trv_status ter_ept_tile(trv_ctx *ctx, ter_ept *e, int tx, int x0, int y0, int nx, int ny, const float *z, float nodata,
                        const float *slope, const unsigned char *soil, const unsigned char *landuse);
/* The nodes, the hierarchy and ept.json, into the temporary directory. */
trv_status ter_ept_finish(trv_ctx *ctx, ter_ept *e);
void ter_ept_free(ter_ept *e);

/* ---- the pure parts (tested without files) ------------------------------- */

/* The depth D for a cube of side_cells cells: the least D >= 0 with
 * ceil(side_cells / 2^D) <= TER_EPT_SPAN. */
int ter_ept_depths(double side_cells);
/* d(c, r) above. */
int ter_ept_depth_of(long c, long r, int D);
/* The node index of coordinate v in a cube from v0 of side S at depth d. */
long ter_ept_index(double v, double v0, double S, int d);

#endif
