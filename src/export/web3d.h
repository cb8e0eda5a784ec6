/*
 * web3d.h — a run directory for the 3D view in the browser (trv-export
 * --web3d; web/view3d.html reads it; docs/formats.md "web3d/" and
 * docs/view3d.md): the DEM as square height tiles with levels of detail,
 * and the run's layers as textures, all in <run>/web3d/.
 *
 * Tiles: T = EXP_W3D_T intervals, V = T + 1 vertices a side. Level k
 * (0 = full resolution) is the 2^k decimation of the DEM: it samples the
 * cells (c, r) whose column and row are multiples of s = 2^k. Along x it
 * has nvx(k) = floor((nx - 1) / s) + 1 vertices (likewise y), in
 * ntx(k) = max(1, ceil((nvx(k) - 1) / T)) tiles. Vertex (i, j), i, j in
 * 0..T, of tile (tx, ty) of level k is the cell
 *
 *   c = (tx T + i) s,   r = (ty T + j) s
 *
 * whose centre is at x = gt[0] + (c + 0.5) gt[1], y = gt[3] + (r + 0.5) gt[5]
 * (the run's projected CRS, metres). Neighbouring tiles share their edge
 * vertices. A vertex off the grid (c >= nx or r >= ny) or on a nodata cell
 * holds EXP_W3D_NODATA. The levels run from 0 up to the first whose
 * single tile covers the grid: levels(nx, ny) = 1 + the least k >= 0 with
 * nvx(k) - 1 <= T and nvy(k) - 1 <= T.
 *
 * Files (all or none, committed with the caller's set):
 *   web3d/index.json            the grid (size, geotransform, CRS label and
 *                               WKT), T, the nodata value, the height range,
 *                               the levels (s, nvx, nvy, ntx, nty), the
 *                               tile path pattern, the textures
 *   web3d/tiles/K_TX_TY.f32     one tile: V x V Float32 little-endian
 *                               heights, row j = 0 (the north) first
 *   web3d/NAME.png              one texture per layer present: hillshade
 *                               (from dem.tif, rnd_hillshade), speed,
 *                               cost, gonogo; RGBA, one pixel per DEM cell,
 *                               row 0 the north, coloured as trv-render
 *                               colours the layer (without shading),
 *                               alpha 0 on nodata; a layer whose grid is
 *                               not dem.tif's is TRV_ERR_GRID
 *
 * The same run gives the same bytes (fixed order, no time stamps).
 */
#ifndef EXPORT_WEB3D_H
#define EXPORT_WEB3D_H

#include "core/trv.h"
#include "geo/geo.h"

enum { EXP_W3D_T = 128, EXP_W3D_V = EXP_W3D_T + 1, EXP_W3D_MAX_LAYERS = 4 };
#define EXP_W3D_NODATA (-9999.0f)

/* One level's sizes (the rule above). */
typedef struct exp_w3d_level {
    int step;               /* s = 2^k */
    int nvx, nvy;           /* vertices along x and y */
    int ntx, nty;           /* tiles along x and y */
} exp_w3d_level;

/* Level k of an nx x ny grid. Pure. */
exp_w3d_level exp_w3d_level_of(int nx, int ny, int k);
/* The number of levels of an nx x ny grid (>= 1). Pure. */
int exp_w3d_levels(int nx, int ny);
/* The V x V heights of tile (tx, ty) of level k of dem (Float32) into h:
 * the rule above on the whole raster (the reference exp_w3d_tile_rows is
 * tested against). */
void exp_w3d_tile(const geo_raster *dem, int k, int tx, int ty, float *h);

/* An nx x ny Float32 grid read by rows: row(ctx, user, r, c0, n, dst) puts
 * the cells c0 .. c0 + n - 1 of row r (0 <= c0, c0 + n <= nx, r < ny) in
 * dst[0 .. n - 1] as read (a nodata cell as it is in the grid). */
typedef struct exp_w3d_rows {
    int nx, ny;
    int has_nodata;
    double nodata;
    trv_status (*row)(trv_ctx *ctx, void *user, int r, int c0, int n, float *dst);
    void *user;
    geo_raster_src *src;    /* exp_web3d_run's: the DEM's file */
} exp_w3d_rows;

/* exp_w3d_tile's heights from src without the whole grid: for each vertex
 * row j whose row r = (ty T + j) s is on the grid, the one-row window of
 * columns c0 = tx T s .. min(nx, c0 + T s + 1) - 1 (into buf, at least
 * min(nx, T s + 1) floats), of which vertex i is cell c0 + i s: memory
 * O(T s) per row, at most O(nx), never the grid. The same heights as
 * exp_w3d_tile on the whole grid; the reader's errors returned. */
trv_status exp_w3d_tile_rows(trv_ctx *ctx, const exp_w3d_rows *src, int k, int tx, int ty, float *buf, float *h);

/* trv-export --web3d. */
typedef struct exp_w3d_info {
    int nx, ny, levels, tiles;
    int nlayers;
    const char *layers[EXP_W3D_MAX_LAYERS]; /* the textures written, in order */
    double zmin, zmax;      /* the DEM's range */
    char crs[64];
} exp_w3d_info;

/* Read terrain/dem.tif (and speed.tif, cost.tif, gonogo.tif where present)
 * and stage terrain/web3d/ into set (the files above). The DEM is never
 * held whole: its range by windows, each tile by exp_w3d_tile_rows, level
 * 0's from the file, the others' from the half grid (the even rows' even
 * cells, written to a scratch file in $TMPDIR by the range's scan: a
 * quarter of the cells; docs/scale.md, "The 3D view's height tiles by row
 * windows"). TRV_ERR_CRS when the DEM is not in a projected CRS in metres;
 * TRV_ERR_GRID for non-square cells or a layer on another grid; TRV_ERR_IO
 * when the scratch file cannot be made or written. */
trv_status exp_web3d_run(trv_ctx *ctx, const char *terrain, trv_outset *set, exp_w3d_info *info);

#endif
