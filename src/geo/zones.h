/*
 * zones.h — no-go and preference zones with exact barriers: the file read
 * into the map's CRS, the exact segment tests, the "all touched" burn on a
 * grid. Shared by trv-route (applied at query time, prm/zones.h) and
 * trv-speed (baked into the maps); docs/zones.md.
 *
 * A zones file (any OGR vector, reprojected into the grid's CRS) holds
 * polygons and lines with the attributes `effect` and `value`:
 *   nogo       polygon: nothing enters it (its closed area, boundary
 *              included); line: a barrier of zero width nothing crosses
 *              or touches; value ignored;
 *   factor     polygon only: time and mobility cost inside multiplied by
 *              value (> 0);
 *   max_speed  polygon only: the speed inside capped at value km/h (> 0).
 * A line has no inside: factor and max_speed on a line are rejected.
 * Crossings (bridges, fords, gates): points, each with a radius r (its
 * `radius` attribute in m, else the default, one cell). A straight piece
 * crosses a nogo line where it meets it (a proper crossing, a touch, or
 * the shared part of a collinear overlap: each end of it); the piece may
 * cross there when every such meeting point lies within r of a crossing
 * (distance <= r, map units x metres per unit). Crossings do not open nogo
 * polygons.
 * The burn, per cell of the grid: NOGO when a nogo line or polygon touches
 * the cell (its closed square meets the line or the polygon's boundary, or
 * its centre lies inside the polygon: "all touched"), except a cell touched
 * by nogo lines alone whose centre lies within a crossing's radius: CROSS
 * (open, for the exact test); FACTOR when a factor or max_speed zone
 * touches it the same way.
 */
#ifndef GEO_ZONES_H
#define GEO_ZONES_H

#include "geo.h"

typedef enum geo_zone_effect { GEO_ZONE_NOGO = 1, GEO_ZONE_FACTOR = 2, GEO_ZONE_MAX_SPEED = 3 } geo_zone_effect;

typedef struct geo_zone {
    long fid;               /* the feature id in the file */
    geo_zone_effect effect;
    double value;           /* the factor, or km/h; 0 for nogo */
    int line;               /* 1: a line (a nogo barrier); 0: a polygon */
    int s0, s1;             /* its segments: seg[s0 .. s1) (a polygon: every ring's edges) */
    double box[4];          /* xmin ymin xmax ymax (map units) */
} geo_zone;

typedef struct geo_crossing {
    long fid;
    double x, y, r;         /* map units */
} geo_crossing;

/* burn: per grid cell */
enum { GEO_ZB_NOGO = 1, GEO_ZB_CROSS = 2, GEO_ZB_FACTOR = 4 };

typedef struct geo_zones {
    char *path, *crossings_path;
    int n;
    geo_zone *z;
    int nseg;
    double *seg;            /* 4 per segment: x0 y0 x1 y1 */
    int *seg_zone;
    int nc;
    geo_crossing *c;
    double bx0, by0, bsize; /* the segments' bucket grid: bnx x bny buckets of bsize */
    int bnx, bny;
    int *bstart, *bseg;     /* CSR: segments of bucket k are bseg[bstart[k] .. bstart[k+1]) */
    unsigned char *burn;    /* per grid cell: GEO_ZB_* bits (NOGO, or CROSS, and FACTOR) */
    /* else, non-NULL: the same bytes a cell at a time, burned by windows
     * when first read (prm's tiled burn, prm/zones.h prm_zones_tiles) */
    unsigned char (*cell)(void *tiles, long c, long r);
    /* and a window's bytes at once (geo_zones_block's, w inside the grid,
     * out zeroed by the caller) */
    unsigned (*block)(void *tiles, const long w[4], long stride, unsigned char *out);
    void *tiles;            /* cell's state, freed by tiles_free (geo_zones_free) */
    void (*tiles_free)(void *tiles);
    double burn_gt[6];      /* burn's (or cell's) grid: geotransform and size, so that */
    int burn_nx, burn_ny;   /* geo_zones_at skips the polygons where no cell is burned NOGO */
    double min_factor;      /* the smallest factor (1 when none below 1) */
    int skip;               /* a zone left out (prm_zones_explain), -1: none */
    char *added_name;       /* non-NULL: zones [added_from, n) were added after the read (prm's risk.c) */
    int added_from;         /* and are named so in messages (geo_zone_source) */
} geo_zones;

/* The name of zone k's source in messages: path, or added_name for a zone
 * added after the read. */
const char *geo_zone_source(const geo_zones *z, int k);

/* Read path (and crossings, NULL: none) into g's CRS; radius_m the
 * crossings' default radius (<= 0: one cell). Errors name the file and
 * feature id: unreadable (TRV_ERR_IO), no CRS (TRV_ERR_CRS), no features,
 * a feature without geometry or of the wrong kind, a polygon OGR finds
 * invalid (self-intersecting ...), no `effect` field or an unknown effect,
 * a factor or max_speed value missing, not finite or <= 0, factor or
 * max_speed on a line, a crossing radius <= 0 (TRV_ERR_DATA). Builds the
 * segment index and the burn raster on g. */
trv_status geo_zones_read(trv_ctx *ctx, const char *path, const char *crossings, double radius_m, const geo_grid *g,
                          geo_zones **out);
/* geo_zones_read without the burn raster (z->burn NULL: the caller burns
 * windows with geo_zones_burn_rows, or tiles it: prm_zones_tiles;
 * geo_zones_at tests every polygon until then). */
trv_status geo_zones_read_unburnt(trv_ctx *ctx, const char *path, const char *crossings, double radius_m,
                                  const geo_grid *g, geo_zones **out);
void geo_zones_free(geo_zones *z);
/* Append the segment (x0, y0)-(x1, y1) of zone `zone` to z->seg and
 * z->seg_zone, growing both (cap: their room, kept by the caller). -1 out
 * of memory (z unchanged but for the room). */
int geo_zones_push_seg(geo_zones *z, int *cap, int zone, double x0, double y0, double x1, double y1);
/* The segments' bucket index of z (at least one zone; geo_zones_read
 * calls it, and prm's risk.c for the zones it makes or adds: an index
 * built before is replaced). */
trv_status geo_zones_index(trv_ctx *ctx, geo_zones *z);
/* z->burn on g's grid (zones_burn.c; geo_zones_read calls it; a burn
 * made before is replaced). */
trv_status geo_zones_burn(trv_ctx *ctx, const geo_grid *g, geo_zones *z);
/* Rows y0 .. y1 - 1 of that burn into burn ((y1 - y0) x g->nx bytes, row
 * y0 first): the same bytes as those rows of z->burn, whatever the window
 * (every test is made on g's own cell coordinates; trv-speed's row blocks). */
trv_status geo_zones_burn_rows(trv_ctx *ctx, const geo_grid *g, const geo_zones *z, int y0, int y1,
                               unsigned char *burn);

/* The burn's byte of cell (c, r) of its grid (burn_nx x burn_ny; z->burn
 * or z->cell, one of them set). */
static inline unsigned char geo_zones_cell(const geo_zones *z, long c, long r)
{
    return z->burn ? z->burn[(size_t)r * (size_t)z->burn_nx + (size_t)c] : z->cell(z->tiles, c, r);
}
/* The burn's bytes of window w (columns w[0] .. w[0] + w[2] - 1, rows
 * w[1] .. w[1] + w[3] - 1, anywhere: cells outside its grid read 0) into
 * out, row-major with rows of stride bytes; returns the OR of them. One
 * call for a window (the grid search's 5 x 5 cells around a cell, a row,
 * a tile) where geo_zones_cell is one a cell, z->block's with a tiled
 * burn. */
unsigned geo_zones_block(const geo_zones *z, const long w[4], long stride, unsigned char *out);
/* The cells zone k may mark in g's burn: columns cells[0] .. cells[2] and
 * rows cells[1] .. cells[3] (inclusive), its box's cells and two more on
 * each side (the burn's tests round; clamped far outside the grid). A
 * window no zone's cells meet burns to zeros. */
void geo_zone_cells(const geo_zones *z, int k, const geo_grid *g, long cells[4]);
/* The burn's window w (columns w[0] .. w[0] + w[2] - 1, rows w[1] ..
 * w[1] + w[3] - 1, inside g) into burn, row-major with rows of w[4] bytes:
 * the same bytes as those cells of z->burn, whatever the window (every
 * test is made on g's own cell coordinates; zones whose cells miss the
 * window are skipped). xs: NULL, or room for the most segments a zone
 * has plus one (then nothing is allocated and it cannot fail). */
trv_status geo_zones_burn_window(trv_ctx *ctx, const geo_grid *g, const geo_zones *z, const long w[5],
                                 double *xs, unsigned char *burn);

/* The nogo zone (index) the straight piece (x0, y0)-(x1, y1) may not take
 * (it meets a nogo line away from every crossing, or meets a nogo
 * polygon), -1 if none. */
int geo_zones_blocking(const geo_zones *z, double x0, double y0, double x1, double y1);
/* The nogo polygon (index) holding the point, -1 if none. */
int geo_zones_at(const geo_zones *z, double x, double y);
/* Segment-segment meeting (closed): 0 none, 1 one point (*px, *py), 2 a
 * collinear overlap from (px[0], py[0]) to (px[1], py[1]). Pure. */
int geo_seg_meet(const double a[4], const double b[4], double px[2], double py[2]);
/* Even-odd point in the polygon of zone k. */
int geo_zone_contains(const geo_zones *z, int k, double x, double y);

#endif
