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

/* prm_zones_delta cell by cell: for each cell of the piece's walk
 * (prm_segment_walk, cells of positive length, in order) that a factor or
 * max_speed zone meets, fn(cell, dt, zone, user): dt the forward time the
 * zones add in it (map units, as d[0], which is the sum of the dt), zone
 * the index of the first zone holding the span covering most of it. */
typedef void (*prm_zones_cell_fn)(long cell, double dt, int zone, void *user);
void prm_zones_cells(const prm_terrain *t, double x0, double y0, double x1, double y1, prm_zones_cell_fn fn,
                     void *user);

/* The zones on a piece being measured (prm_piece_measure; lengths and
 * times still in map units): blocked by a nogo zone, else with times the
 * factor and max_speed zones' deltas added. */
void prm_zones_piece(const prm_terrain *t, double x0, double y0, double x1, double y1, int times, prm_piece *p);

/* ---- the tiled burn (zones_tiles.c) ---- */

/* The tiled burn's tiles held at most in trv-route: 256 x 64 KB, 16.8 MB,
 * whatever the grid (docs/scale.md, "The zones' burn, tiled"). */
enum { PRM_ZONE_TILES = 256 };

/* z's burn on g made lazy and bounded (z->cell, geo/zones.h; a z->burn
 * made before is freed): per tile of the lazy terrain (PRM_TILE x
 * PRM_TILE cells from the origin), 0 without reading anything where no
 * zone's cells meet it (geo_zone_cells), else burned as a window
 * (geo_zones_burn_window: the whole burn's bytes) when a cell of it is
 * first read; at most cap tiles held (>= 1), the least recently read
 * given up first and burned again when read again. z's zones must not
 * change after. Not safe to read from two threads at once. */
trv_status prm_zones_tiles(trv_ctx *ctx, geo_zones *z, const geo_grid *g, int cap);
/* The tiled burn's counts: windows burned, tiles some zone's cells meet,
 * tiles held now (0s when z's burn is not tiled). */
void prm_zones_tiles_count(const geo_zones *z, long *burnt, long *meets, int *held);

/* ---- the roadmap search (zones_route.c) ---- */

/* Per roadmap edge under the zones: blocked, or re-measured (factor,
 * max_speed zones near it; only when built with times). Built once per
 * query (mission.c: before prm_zones_roadmap adds the crossings' nodes
 * and edges) and set as t->zone_edges; every search on that roadmap (each
 * strategy, the alternatives' graph, every leg and the --visit leg
 * matrix) reads it through prm_zone_edges_get. */
typedef struct prm_zone_edges {
    int nedges;             /* the roadmap's edge count it was built for */
    int times;              /* 1: the re-measured pieces are there (the time objective needs them) */
    unsigned char *off;     /* 1: blocked */
    int *alt;               /* -1, or an index into pc */
    prm_piece *pc;          /* the re-measured pieces (measured a to b, as the edge's own) */
    int nalt;
} prm_zone_edges;

/* Build the mask of r under t->zones (times: re-measure the edges near a
 * factor or max_speed zone). */
trv_status prm_zone_edges_make(trv_ctx *ctx, const prm_terrain *t, const prm_roadmap *r, int times,
                               prm_zone_edges *out);
/* The mask for a search of s on r: t->zone_edges when it was built for
 * r (same edge count) and, for the time objective, with times; else one
 * built into own (the caller clears own). */
trv_status prm_zone_edges_get(trv_ctx *ctx, const prm_terrain *t, const prm_roadmap *r, prm_strategy s,
                              prm_zone_edges *own, const prm_zone_edges **out);
/* Edge e's piece as the search of s sees it: the re-measured one for the
 * time objective when there is one, else the roadmap's. */
const prm_piece *prm_zone_edge_piece(const prm_zone_edges *ze, const prm_roadmap *r, int e, prm_strategy s);
void prm_zone_edges_clear(prm_zone_edges *e);

/* The crossings as roadmap nodes (r is the caller's and grows): each
 * joined to every one of its 4 k nearest nodes that a straight piece
 * obeying the terrain and its zones (t->zones) reaches, and by its raster
 * legs (below), so that the roadmap can cross a barrier where it may.
 * ze: r's mask (prm_zone_edges_make), grown to the new edges (allowed,
 * measured under the zones); the adjacency is rebuilt. */
trv_status prm_zones_roadmap(trv_ctx *ctx, const prm_terrain *t, prm_roadmap *r, prm_zone_edges *ze);
/* zones_legs.c: a node or an edge appended to r (ncap, ecap: the room of
 * r's arrays, grown here); crossing node q's raster legs: on each side of
 * the nogo line nearest to it, a breadth-first way through GO cells no
 * nogo zone touches (within 96 cells) to the nearest of the roadmap's
 * first n0 nodes, shortened to the straight pieces the zones allow, as
 * nodes and edges (none on a side without such a way); when that node lies
 * in a pocket (main[node] 0: a component under the mask that the masking
 * cut off, main from prm_zones_roadmap), a second leg on that side to the
 * nearest node with main[] 1 within 320 cells, so that a corridor between
 * the barrier and NOGO that only the masked edges crossed stays joined. */
trv_status prm_zones_add_node(trv_ctx *ctx, prm_roadmap *r, double x, double y, int *ncap);
trv_status prm_zones_add_edge(trv_ctx *ctx, prm_roadmap *r, int a, int b, const prm_piece *p, int *ecap);
trv_status prm_zones_legs(trv_ctx *ctx, const prm_terrain *t, prm_roadmap *r, int n0, int q, const unsigned char *main,
                          int *ncap, int *ecap);

/* After prm_route failed (TRV_ERR_DATA) under the zones: the same
 * objective on the raster with the zones burned (prm_route_grid_bounded:
 * the whole grid within max_bytes as --grid-whole, paged when it does
 * not fit), since masking can cut a roadmap where the raster
 * still joins start and goal (a corridor between a barrier and NOGO that
 * the roadmap's edges only crossed); not searched when prm_zones_joined
 * says the raster does not join them (asked only when its flood fits in
 * the paged search's budget, prm_grid_pass_fits at PRM_ZONES_FLOOD_BYTES
 * a cell; else the search tells). On success note says so (appended);
 * else TRV_ERR_DATA with prm_route's message kept. */
trv_status prm_zones_raster(trv_ctx *ctx, const prm_terrain *t, const double xy[4], prm_strategy s,
                            const prm_weights *w, size_t max_bytes, prm_path *out, char *note, size_t note_len);
/* The flood's bytes a cell (zones_reach.c): the class codes' half byte,
 * the marks' byte and two queues of int32, rounded up. */
#define PRM_ZONES_FLOOD_BYTES 10.0

/* After prm_route failed (TRV_ERR_DATA) with t->zones: when the route
 * exists without the zones, replace the message by one that says so and
 * names the nogo zones whose removal alone reconnects start and goal
 * (tried for each nogo zone, at most 16), or says that none alone does.
 * Else keep st and its message. Decided on the raster (prm_zones_cutting:
 * floods, no search); only when the raster joins start and goal under the
 * zones as well, on the roadmap (one search without the zones, then one
 * per nogo zone left out); on the roadmap at once when the floods do not
 * fit in max_bytes' paged budget (prm_grid_pass_fits). */
trv_status prm_zones_explain(trv_ctx *ctx, const prm_terrain *t, const prm_roadmap *r, const double xy[4],
                             prm_strategy s, const prm_weights *w, int admissible, size_t max_bytes, trv_status st,
                             int *explained);

/* ---- raster connectivity (zones_reach.c) ---- */

/* *joined 1 when start and goal (xy) are joined by 4-connected cells that
 * are GO in codes (prm_class_codes) and that burn (zones burned on t's
 * grid, whole or tiled: geo_zones_cell; NULL: none) does not mark NOGO,
 * else 0. A --grid move touches
 * only such cells and the cells it touches are 4-connected, so 0 means
 * that prm_route_grid finds no way (a roadmap edge, tested exactly
 * against the lines, may pass a burned cell); 1 does not promise one (a crossing's cells count
 * as open). A flood from both ends, one cell of each in turn: it stops
 * where they meet or when one side is exhausted, its work at most twice
 * the smaller side's region. */
trv_status prm_zones_joined(trv_ctx *ctx, const prm_terrain *t, const unsigned char *codes, const geo_zones *burn,
                            const double xy[4], int *joined);
/* Which nogo zones cut start and goal apart on the raster (prm_zones_joined
 * on t->zones' burn): *result PRM_CUT_NONE when they are not joined without
 * the zones either, PRM_CUT_JOINED when they are joined under the zones
 * too (the flood cannot tell), else PRM_CUT_ZONES and cut[0 .. *ncut) the
 * nogo zones (indices) whose removal alone joins them, of the first max
 * tried (one burn without the zone and one flood each; none with a single
 * nogo zone). *nogo: the nogo zones in all. */
enum { PRM_CUT_NONE, PRM_CUT_JOINED, PRM_CUT_ZONES };
trv_status prm_zones_cutting(trv_ctx *ctx, const prm_terrain *t, const double xy[4], int max, int *cut, int *ncut,
                             int *nogo, int *result);

#endif
