/*
 * export.h — a run directory for other software: the ROS 2 nav2 map_server
 * map of its mobility cost, and a route's waypoints in the map's frame
 * (trv-export --nav2; docs/nav2.md is the user's page, this header the
 * contract).
 *
 * The map is the pair map_server loads: map.pgm (binary PGM, P5, 8 bits,
 * one pixel per cell of the run's grid, the first row the northernmost,
 * the first column the westernmost) and map.yaml, in mode raw with
 * negate 0, where nav2 takes each pixel value v as the cell's occupancy:
 * v in 0..100 as is, v > 100 unknown (-1). A cell's pixel, from gonogo.tif
 * (g: 0 GO, 1..4 a NOGO reason, 5 no data) and cost.tif (c: 0 best,
 * 1 worst):
 *
 *   g == 5 (no data)            255         unknown
 *   g in 1..4 (NOGO)            100         occupied (lethal in the costmap)
 *   g == 0, c nodata            255         unknown
 *   g == 0, c in [0, 1]         round(98 c) 0..98: graded, never lethal
 *
 * (round: half away from zero). A GO cell of cost 1 is 98: nav2's static
 * layer reads 100 and above as lethal and 99 (its default
 * inscribed_obstacle_cost_value) as inscribed, both collisions. A finite cost outside [0, 1] or a gonogo code
 * above 5 is TRV_ERR_DATA naming the file, cell and value.
 *
 * The frame: the grid's CRS, which must be projected with a metre unit
 * (else TRV_ERR_CRS), cells square (|gt[1]| == |gt[5]| to 1e-9 relative,
 * else TRV_ERR_GRID; geo refuses a rotated grid). resolution = gt[1];
 * origin = (gt[0], gt[3] + ny gt[5], 0): the lower-left corner of the
 * lower-left pixel, yaw 0, in the CRS's own coordinates (no offset): map
 * x = easting, y = northing. The CRS goes beside the map as map.prj (the
 * grid's WKT) and as its label (EPSG:n) in a comment of map.yaml.
 *
 * Waypoints: the vertices of one LineString of a route file (any OGR
 * vector file, reprojected into the map's CRS), in order, each a pose
 * (x, y, yaw) with yaw = atan2(dy, dx) of the segment to the next vertex
 * that has moved (the last vertex: of the segment from the last one
 * before it that differs; a route of one repeated point: 0), in radians,
 * counter-clockwise from +x (east). Every vertex must lie within the map
 * (the outer edges of its cells), else TRV_ERR_DATA naming the vertex.
 */
#ifndef EXPORT_H
#define EXPORT_H

#include "core/trv.h"
#include "geo/geo.h"

/* The pixel values. */
enum { EXP_NAV2_OCCUPIED = 100, EXP_NAV2_UNKNOWN = 255, EXP_NAV2_GRADED_MAX = 98 };

/* The pixel of one cell (the table above): 0..100 or 255; -1 when cost or
 * gonogo is out of range. Pure. */
int exp_nav2_pixel(double cost, int cost_nodata, int gonogo);

/* The map's frame: the grid checked (the rules above). */
typedef struct exp_nav2_frame {
    int nx, ny;
    double resolution;      /* metres per pixel */
    double origin[2];       /* lower-left corner: x, y */
    double extent[4];       /* xmin ymin xmax ymax */
    char crs[64];           /* the label: "EPSG:32616" */
} exp_nav2_frame;

/* name: the grid's file, for messages. */
trv_status exp_nav2_frame_of(trv_ctx *ctx, const geo_grid *g, const char *name, exp_nav2_frame *f);

/* How many cells of each kind a map has. */
typedef struct exp_nav2_counts {
    long graded, occupied, unknown;
} exp_nav2_counts;

/* A piece of the map: rows y0 .. y0 + rows - 1 and columns x0 .. x0 +
 * nx - 1 of the grid, nx cells a row, row-major from the north-west, of
 * cost (Float32; a cell is nodata by geo_raster_is_nodata's rule: NaN, or
 * == (float)nodata with has_nodata) and gonogo (Byte). */
typedef struct exp_nav2_strip {
    int nx, y0, rows;
    const float *cost;
    const unsigned char *gonogo;
    int has_nodata;
    double nodata;          /* the cost's */
    int x0;
} exp_nav2_strip;

/* A bad cell: where in the grid (row -1: none), and what it holds. */
typedef struct exp_nav2_bad {
    long col, row;
    int in_gonogo;          /* 1: gonogo's code above 5; 0: the cost outside 0..1 */
    double v;
} exp_nav2_bad;

/* The piece's pixels into pix (row r at pix + r pstride), its cells added
 * to *n; returns its first bad cell in row-major order (row -1: none; else
 * pix holds garbage and *n is unchanged). Pure. The map by pieces of any
 * shape is the map in one piece: the same pixels, the same counts, the
 * same first bad cell (the earliest of the pieces' by exp_nav2_bad_first). */
exp_nav2_bad exp_nav2_piece(const exp_nav2_strip *s, unsigned char *pix, size_t pstride, exp_nav2_counts *n);
/* 1 when a is a bad cell before b in row-major order (or b is none). Pure. */
int exp_nav2_bad_first(const exp_nav2_bad *a, const exp_nav2_bad *b);
/* TRV_ERR_DATA for b: "'<name>': cell (column C, row R) holds V, ...", the
 * gonogo named when its code is above 5, else the cost. */
trv_status exp_nav2_bad_error(trv_ctx *ctx, const exp_nav2_bad *b, const char *cost_name, const char *gonogo_name);

/* One waypoint. */
typedef struct exp_pose {
    double x, y, yaw;
} exp_pose;

/* The yaws of n points (the rule above) into p[k].yaw; p[k].x, .y given. */
void exp_poses_yaw(exp_pose *p, int n);

/* A route read for export. */
typedef struct exp_route {
    char name[64];          /* its "route" (else "name") attribute, else "" */
    int n;
    exp_pose *p;            /* n poses in the map's CRS (malloc'ed) */
} exp_route;

/* The LineString named name (its "route" or "name" attribute; NULL: the
 * one named "mmcr", else the first) of path, in to_wkt, with its yaws, its
 * vertices checked against f's extent. Errors: the file's
 * (geo_vector_read), "'f' holds no LineString", "'f' has no route 'x'
 * (its routes: a, b)", the vertex outside the map. */
trv_status exp_route_read(trv_ctx *ctx, const char *path, const char *name, const char *to_wkt,
                          const exp_nav2_frame *f, exp_route *r);
void exp_route_clear(exp_route *r);

/* trv-export --nav2. */
typedef struct exp_nav2_opts {
    const char *terrain;    /* the run directory: cost.tif, gonogo.tif */
    const char *dir;        /* the output directory (created if missing) */
    const char *route;      /* a route file, or NULL */
    const char *route_name; /* NULL: mmcr, else the first */
} exp_nav2_opts;

typedef struct exp_nav2_info {
    exp_nav2_frame frame;
    exp_nav2_counts counts;
    int nposes;             /* 0 without a route */
    char route[64];         /* the route's name */
} exp_nav2_info;

/* The files of the export, in the order they are written: map.pgm,
 * map.yaml, map.prj, and waypoints.yaml with a route (k < 4); NULL after. */
const char *exp_nav2_file(int k);

/* Read the run's cost and gonogo by tiles of geo_block_cols() x
 * geo_strip_rows(nx, 1) cells (geo/block.h: geo_block_rows(), fewer when
 * a strip would pass geo_strip_mem() bytes; run/blocks.h: run_load's open
 * errors and grid comparison), and stage into set, under o->dir: the map
 * pair, map.pgm written a row of tiles at a time (its pixels: 1 byte a
 * cell, a tile high), map.prj and, with o->route, waypoints.yaml. info
 * gets what was written. Memory: O(tile + max(geo_strip_mem(), nx))
 * (docs/scale.md); the files are the same bytes whatever the tiles.
 *
 * The errors in run_load's order: cost's, then gonogo's open error; the
 * grids' mismatch; a layer holding only nodata (cost first); then the
 * output directory's, the frame's, the first bad cell's (row-major over
 * the row of tiles where the first is found); then the route's. The
 * nodata check needs every cell, so an error found before the last tile
 * (the directory, the frame, a bad cell) gives way to it: the tiles are
 * read on, without pixels, until each layer has shown a data cell
 * (usually at once) or to the last tile, then run_blocks_finish. */
trv_status exp_nav2_run(trv_ctx *ctx, const exp_nav2_opts *o, trv_outset *set, exp_nav2_info *info);

#endif
