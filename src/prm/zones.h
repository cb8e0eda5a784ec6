/*
 * zones.h — no-go and preference zones with exact barriers, applied at
 * query time (trv-route --zones, --crossings; docs/zones.md).
 *
 * The file, its reader (geo_zones_read), the exact rule a straight piece
 * obeys (geo_zones_blocking) and the "all touched" burn: geo/zones.h.
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

#include "geo/zones.h"
#include "prm.h"

/* TRV_ERR_DATA "the start (x, y) lies in the nogo zone (feature N) of
 * 'path'" (or the goal) for an end (xy: start x, y, goal x, y) inside a
 * nogo polygon. */
trv_status prm_zones_ends(trv_ctx *ctx, const geo_zones *z, const double xy[4]);
/* What factor and max_speed zones change on the piece (map units, as
 * prm_segment_walk gives lengths): the time forward and back and cost_int
 * (adjusted minus unzoned; 0 where the piece meets none). times 0: the
 * cost alone. */
void prm_zones_delta(const prm_terrain *t, double x0, double y0, double x1, double y1, double d[3]);

/* The zones on a piece being measured (prm_piece_measure; lengths and
 * times still in map units): blocked by a nogo zone, else with times the
 * factor and max_speed zones' deltas added. */
void prm_zones_piece(const prm_terrain *t, double x0, double y0, double x1, double y1, int times, prm_piece *p);

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
