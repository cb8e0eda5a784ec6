/*
 * zones.h — no-go and preference zones with exact barriers, applied at
 * query time (trv-route --zones, --crossings; docs/zones.md).
 *
 * A zones file (any OGR vector, reprojected into the terrain's CRS) holds
 * polygons and lines with the attributes `effect` and `value`:
 *   nogo       polygon: no route enters it (its closed area, boundary
 *              included); line: a barrier of zero width no route crosses
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
 *
 * What sees what (the objectives of prm.h):
 *   nogo: every objective, every piece (roadmap edges, end links, raster
 *         legs, shortcuts, the corridor, the smoothed curve, --grid moves);
 *   factor, max_speed: the travel times (time_s, time_rev_s: the time
 *         objective and the statistics' time) and cost_int; per cell c
 *         crossed over the length L inside the zones, the time
 *         max(L pace_c, L 3.6 / min cap) x product of factors; mmcr, mdr
 *         and msr are geometric and risk objectives and do not see them.
 *   the time heuristics (top_speed_kmh) are divided by the smallest
 *   factor below 1, so that they stay admissible.
 * On the raster (--grid and the corridor), a cell a nogo line or polygon
 * touches (its closed square meets the line, the polygon's boundary, or
 * its centre lies inside) is NOGO ("all touched"), except a cell touched
 * by nogo lines alone whose centre lies within a crossing's radius: a move
 * through such a cell is tested exactly against the lines (the rule
 * above), so that a move crosses only there; a move through a cell a
 * factor or max_speed zone touches has its time measured exactly.
 */
#ifndef PRM_ZONES_H
#define PRM_ZONES_H

#include "prm.h"

typedef enum prm_zone_effect { PRM_ZONE_NOGO = 1, PRM_ZONE_FACTOR = 2, PRM_ZONE_MAX_SPEED = 3 } prm_zone_effect;

typedef struct prm_zone {
    long fid;               /* the feature id in the file */
    prm_zone_effect effect;
    double value;           /* the factor, or km/h; 0 for nogo */
    int line;               /* 1: a line (a nogo barrier); 0: a polygon */
    int s0, s1;             /* its segments: seg[s0 .. s1) (a polygon: every ring's edges) */
    double box[4];          /* xmin ymin xmax ymax (map units) */
} prm_zone;

typedef struct prm_crossing {
    long fid;
    double x, y, r;         /* map units */
} prm_crossing;

/* burn: per terrain cell */
enum { PRM_ZB_NOGO = 1, PRM_ZB_CROSS = 2, PRM_ZB_FACTOR = 4 };

typedef struct prm_zones {
    char *path, *crossings_path;
    int n;
    prm_zone *z;
    int nseg;
    double *seg;            /* 4 per segment: x0 y0 x1 y1 */
    int *seg_zone;
    int nc;
    prm_crossing *c;
    double bx0, by0, bsize; /* the segments' bucket grid: bnx x bny buckets of bsize */
    int bnx, bny;
    int *bstart, *bseg;     /* CSR: segments of bucket k are bseg[bstart[k] .. bstart[k+1]) */
    unsigned char *burn;    /* per terrain cell: PRM_ZB_* bits (NOGO, or CROSS, and FACTOR) */
    double burn_gt[6];      /* burn's grid (prm_zones_burn): geotransform and size, so that */
    int burn_nx, burn_ny;   /* prm_zones_at skips the polygons where no cell is burned NOGO */
    double min_factor;      /* the smallest factor (1 when none below 1) */
    int skip;               /* a zone left out (prm_zones_explain), -1: none */
} prm_zones;

/* Read path (and crossings, NULL: none) into the terrain's CRS; radius_m
 * the crossings' default radius (<= 0: one cell). Errors name the file and
 * feature id: unreadable (TRV_ERR_IO), no CRS (TRV_ERR_CRS), no features,
 * a feature without geometry or of the wrong kind, a polygon OGR finds
 * invalid (self-intersecting ...), no `effect` field or an unknown effect,
 * a factor or max_speed value missing, not finite or <= 0, factor or
 * max_speed on a line, a crossing radius <= 0 (TRV_ERR_DATA). Builds the
 * segment index and the burn raster on t's grid. */
trv_status prm_zones_read(trv_ctx *ctx, const char *path, const char *crossings, double radius_m,
                          const prm_terrain *t, prm_zones **out);
void prm_zones_free(prm_zones *z);
/* The segments' bucket index of z (at least one zone; prm_zones_read
 * calls it, and risk.c for the zones it makes). */
trv_status prm_zones_index(trv_ctx *ctx, prm_zones *z);
/* z->burn on t's grid (zones_burn.c; prm_zones_read calls it). */
trv_status prm_zones_burn(trv_ctx *ctx, const prm_terrain *t, prm_zones *z);

/* The nogo zone (index) the straight piece (x0, y0)-(x1, y1) may not take
 * (it meets a nogo line away from every crossing, or meets a nogo
 * polygon), -1 if none. */
int prm_zones_blocking(const prm_zones *z, double x0, double y0, double x1, double y1);
/* TRV_ERR_DATA "the start (x, y) lies in the nogo zone (feature N) of
 * 'path'" (or the goal) for an end (xy: start x, y, goal x, y) inside a
 * nogo polygon. */
trv_status prm_zones_ends(trv_ctx *ctx, const prm_zones *z, const double xy[4]);
/* The nogo polygon (index) holding the point, -1 if none. */
int prm_zones_at(const prm_zones *z, double x, double y);
/* What factor and max_speed zones change on the piece (map units, as
 * prm_segment_walk gives lengths): the time forward and back and cost_int
 * (adjusted minus unzoned; 0 where the piece meets none). times 0: the
 * cost alone. */
void prm_zones_delta(const prm_terrain *t, double x0, double y0, double x1, double y1, double d[3]);

/* The zones on a piece being measured (prm_piece_measure; lengths and
 * times still in map units): blocked by a nogo zone, else with times the
 * factor and max_speed zones' deltas added. */
void prm_zones_piece(const prm_terrain *t, double x0, double y0, double x1, double y1, int times, prm_piece *p);
/* Segment-segment meeting (closed): 0 none, 1 one point (*px, *py), 2 a
 * collinear overlap from (px[0], py[0]) to (px[1], py[1]). Pure. */
int prm_seg_meet(const double a[4], const double b[4], double px[2], double py[2]);
/* Even-odd point in the polygon of zone k. */
int prm_zone_contains(const prm_zones *z, int k, double x, double y);

/* ---- the roadmap search (zones_route.c) ---- */

/* Per roadmap edge under the zones, for one strategy: blocked, or its
 * weights forward and back re-measured (factor, max_speed). */
typedef struct prm_zone_edges {
    unsigned char *off;     /* 1: blocked */
    int *alt;               /* -1, or an index into w (2 per edge: forward, back) */
    double *w;
    int nalt;
} prm_zone_edges;

trv_status prm_zone_edges_make(trv_ctx *ctx, const prm_terrain *t, const prm_roadmap *r, prm_strategy s,
                               const prm_weights *w, prm_zone_edges *out);
void prm_zone_edges_clear(prm_zone_edges *e);

/* The crossings as roadmap nodes (r is the caller's and grows): each
 * joined to every one of its 4 k nearest nodes that a straight piece
 * obeying the terrain and its zones (t->zones) reaches, and by its raster
 * legs (below), so that the roadmap can cross a barrier where it may.
 * The adjacency is rebuilt. */
trv_status prm_zones_roadmap(trv_ctx *ctx, const prm_terrain *t, prm_roadmap *r);
/* zones_legs.c: a node or an edge appended to r (ncap, ecap: the room of
 * r's arrays, grown here); crossing node q's raster legs: on each side of
 * the nogo line nearest to it, a breadth-first way through GO cells no
 * nogo zone touches (within 96 cells) to the nearest of the roadmap's
 * first n0 nodes, shortened to the straight pieces the zones allow, as
 * nodes and edges (none on a side without such a way). */
trv_status prm_zones_add_node(trv_ctx *ctx, prm_roadmap *r, double x, double y, int *ncap);
trv_status prm_zones_add_edge(trv_ctx *ctx, prm_roadmap *r, int a, int b, const prm_piece *p, int *ecap);
trv_status prm_zones_legs(trv_ctx *ctx, const prm_terrain *t, prm_roadmap *r, int n0, int q, int *ncap, int *ecap);

/* After prm_route failed (TRV_ERR_DATA) under the zones: the same
 * objective on the raster with the zones burned (prm_route_grid, the
 * whole terrain read), since masking can cut a roadmap where the raster
 * still joins start and goal (a corridor between a barrier and NOGO that
 * the roadmap's edges only crossed). On success note says so (appended);
 * else TRV_ERR_DATA with prm_route's message kept. */
trv_status prm_zones_raster(trv_ctx *ctx, const prm_terrain *t, const double xy[4], prm_strategy s,
                            const prm_weights *w, prm_path *out, char *note, size_t note_len);

/* After prm_route failed (TRV_ERR_DATA) with t->zones: when the route
 * exists without the zones, replace the message by one that says so and
 * names the nogo zones whose removal alone reconnects start and goal
 * (tried for each nogo zone, at most 16: one roadmap search each), or says
 * that none alone does. Else keep st and its message. */
trv_status prm_zones_explain(trv_ctx *ctx, const prm_terrain *t, const prm_roadmap *r, const double xy[4],
                             prm_strategy s, const prm_weights *w, int admissible, trv_status st, int *explained);

#endif
