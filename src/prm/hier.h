/* The hierarchical roadmap index (HPA*-style, docs/method.md §4.13,
 * issue 20): the roadmap's nodes grouped by square tiles of `tile` cells,
 * the border nodes (ends of the edges whose two ends lie in different
 * tiles: the crossing edges) and, per tile and per strategy whose cost is
 * a sum over edges, the least cost between each ordered pair of its
 * border nodes through the tile's own edges (those with both ends inside):
 *
 *   M_T,s(b, b') = min over paths b -> b' inside T of sum w_s(e)
 *
 * by one Dijkstra per border node (directed: time differs both ways).
 * w_s is prm_piece_weight: mdr d, msr slope_int + 1e-3 d, time time_s
 * (time_rev_s backwards), mmcr kb l + kh h + ks s + kd d with the default
 * weights only (a least-cost matrix is not linear in the weights).
 *
 * The query (prm_route_hier, below) is then exact: every start-goal path
 * splits into pieces inside tiles; a piece inside a tile the ends do not
 * link into enters and leaves by border nodes and costs at least the
 * matrix entry, which a real path inside the tile attains. The abstract
 * graph is the ends, the tiles the ends link into in full (their edges),
 * the other tiles' border nodes joined by the matrix, and the crossing
 * edges; A* on it with the flat search's (consistent) heuristic, then
 * each matrix hop refined by Dijkstra inside its tile alone. Edges read: those of the end tiles, the crossing edges
 * of the border nodes reached and the refined tiles'. */
#ifndef TRV_PRM_HIER_H
#define TRV_PRM_HIER_H

#include "prm/prm.h"

enum { PRM_HIER_NSTRAT = 4 }; /* indexed by prm_strategy */

typedef struct prm_hier {
    int tile;                  /* cells a side */
    double x0, y0, tw, th;     /* the grid's origin and a tile's size (map units; th < 0 north-up) */
    int ntx, nty, ntiles;
    int nnodes, nedges;
    uint64_t hash;             /* of the roadmap's nodes and edges' ends (prm_hier_hash) */
    int *node_tile;            /* per node */
    int *comp;                 /* per node: its component's root (all edges) */
    int *border_start, *border; /* per tile: its border nodes, ascending (CSR, ntiles + 1 starts) */
    int *border_pos;           /* per node: its index among its tile's border nodes, -1 if none */
    long *mat_start;           /* per tile: offset of its nb x nb block (ntiles + 1) */
    double *mat[PRM_HIER_NSTRAT]; /* row from, column to; INFINITY unreachable */
    void *mat_map;             /* read from a file: the matrices' mapping (mat points into it), else NULL */
    size_t mat_map_len;
} prm_hier;

/* What one query read (prm_route_hier). */
typedef struct prm_hier_stats {
    int used;                  /* 1: the hierarchical search ran, 0: the flat one */
    long edges_read;           /* roadmap edges looked at (the flat search: every edge of a closed node, and
                                  every edge once more for its components' pass when the ends do not see each
                                  other) */
    long matrix_read;          /* the index's matrix entries looked at */
    long tiles_full, tiles_refined;
    long abstract_expanded;
} prm_hier_stats;

/* The index of roadmap r on terrain grid g with tiles of `tile` cells
 * (>= 1). TRV_ERR_NOMEM. */
trv_status prm_hier_build(trv_ctx *ctx, const prm_roadmap *r, const geo_grid *g, int tile, prm_hier **out);
void prm_hier_free(prm_hier *h);
/* The index's tile for a build with options o on grid g: the tiled
 * build's tile (prm_build_tile), 0 for a whole build (no index). */
int prm_hier_tile(const prm_build_opts *o, const geo_grid *g);
/* The tile of map point (x, y) (clamped to the tile grid). */
int prm_hier_tile_at(const prm_hier *h, double x, double y);
/* FNV-1a over the nodes' coordinates and the edges' ends and the pieces'
 * terms the weights use (d, l, h, s, slope_int, time_s, time_rev_s): an
 * index is used only with the roadmap it was built from. */
uint64_t prm_hier_hash(const prm_roadmap *r);
/* Whether a query under (s, w, admissible, zones) can use the index: mdr,
 * msr, time; mmcr only with the admissible heuristic and the default
 * weights (the paper's heuristic is not admissible: the flat A* is then not
 * a least-cost search, and the hierarchical one would differ); never with
 * zones (they change the edges' weights per query). */
int prm_hier_applies(prm_strategy s, const prm_weights *w, int admissible, int zones);
/* The index to path (all-or-nothing) and back; read checks it belongs to
 * r (counts and prm_hier_hash), TRV_ERR_DATA if not or damaged. */
trv_status prm_hier_write(trv_ctx *ctx, const prm_hier *h, const char *path);
trv_status prm_hier_read(trv_ctx *ctx, const char *path, const prm_roadmap *r, prm_hier **out);
/* The index's path beside a roadmap GeoPackage: ROADMAP.gpkg.hier. */
char *prm_hier_path(const char *gpkg);

/* The search on the index (hier_search.c): A* from S = r->nnodes to
 * G = r->nnodes + 1 over the abstract graph (hier.h's header), S's arcs
 * to snode[q] weighing sw[q] and direct (INFINITY: none) to G, the goal's
 * arcs from gnode[q] weighing to_goal[gnode[q]] (to_goal: per node);
 * the estimate goal[2] times the straight line to (goal[0], goal[1]),
 * which must be consistent (prm_route's admissible heuristics are). g,
 * parent, closed: N = nnodes + 2 each, initialised (INFINITY, -1, 0) by
 * the caller; on return, when closed[G], the parent chain from G to S is
 * a whole roadmap path (each matrix hop refined inside its tile) and g[G]
 * its cost. hs (may be NULL) receives what was read. */
trv_status prm_hier_search(trv_ctx *ctx, const prm_hier *h, const prm_roadmap *r, prm_strategy s,
                           const prm_weights *w, const int *snode, const double *sw, int ns, const int *gnode, int ng,
                           const double *to_goal, double direct, const double goal[3], double *g, int *parent,
                           char *closed, long *expanded, prm_hier_stats *hs);

/* prm_route (prm.h) with the index h (NULL: the flat search), when
 * prm_hier_applies: the same links, checks, errors, tracing and
 * shortcutting, the search alone on the index; the same least cost (the
 * path may differ between ties). hs (may be NULL): what was read. */
trv_status prm_route_hier(trv_ctx *ctx, const prm_terrain *t, const prm_roadmap *r, const prm_hier *h,
                          prm_hier_stats *hs, double sx, double sy, double gx, double gy, prm_strategy s,
                          const prm_weights *w, int admissible, prm_path *out);
#endif
