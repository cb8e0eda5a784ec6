/* The tiled raster bridging (tiled_bridge.c; docs/scale.md, docs/method.md
 * §4.4): the multi-source flood of bridge.c run tile by tile instead of
 * over the whole grid, its regions merged across the tile seams. Private
 * to src/prm. */
#ifndef PRM_TILED_H
#define PRM_TILED_H

#include "prm_priv.h"

/* Above this many cells trv-roadmap builds tiled (prm_build_tile): the
 * whole build's ~40 bytes a cell would pass 2 GB. */
#define PRM_TILED_CELLS 50000000L
/* The automatic tile side (cells): 4096^2 x 8 bytes of flood per tile. */
enum { PRM_TILED_DEFAULT = 4096, PRM_TILED_MAX = 32768 };

/* The tile side the build uses for grid g: o->tile when > 0; with 0, the
 * default above PRM_TILED_CELLS cells, else 0 (the whole flood). */
int prm_build_tile(const prm_build_opts *o, const geo_grid *g);

/* The roadmap's growth that both bridgings share (bridge.c): nodes
 * appended (parent grown with them), edges measured and appended. */
typedef struct prm_grow {
    const prm_terrain *t;
    prm_roadmap *r;
    int **parent;
    size_t *ecap, ncap;
} prm_grow;
trv_status prm_grow_node(trv_ctx *ctx, prm_grow *G, double x, double y);
trv_status prm_grow_edge(trv_ctx *ctx, prm_grow *G, int a, int b, int *added);
/* A bridge from its cell path x, y (n points: node a's position, the
 * cells' vertices, node b's): simplified into straight NOGO-free pieces
 * (prm_polyline_simplify), its interior vertices new nodes, its pieces
 * edges; *made and stats' bridge counts when every piece was added. */
trv_status prm_grow_bridge(trv_ctx *ctx, prm_grow *G, const double *x, const double *y, int n, int a, int b,
                           prm_build_stats *stats, int *made);
/* Kruskal's order of n candidates of lengths w: shortest first, ties in
 * index order (a stable counting sort); malloc'ed, NULL when out of
 * memory. */
long *prm_order_by_length(const int *w, long n);
/* The vertex a cell path puts in cell c (bridge.c's cell_point). */
void prm_cell_point(const geo_grid *g, long c, double *x, double *y);

/* prm_bridge_raster's contract (prm_priv.h) with the flood run per tile of
 * side tile cells: each tile floods from the nodes inside it (in index
 * order), then from a new node in the first cell (row order) of each of
 * its GO fragments left unreached; candidates are the 4-neighbour pairs of
 * different components inside a tile and across its seams (length: the
 * two tile-local distances + 1); the regions are the union-find of the
 * owners of every 4-neighbour GO pair, seams included, so they are the
 * grid's 4-connected GO regions exactly. Kruskal and the bridges' paths as
 * bridge.c, the paths traced in a temporary file holding every tile's
 * owners and distances (8 bytes a cell, mapped: only the pages the paths
 * touch are read). region_nodes counts the fragments' nodes (a region cut
 * by seams may get more than one). */
trv_status prm_bridge_raster_tiled(trv_ctx *ctx, const prm_terrain *t, prm_roadmap *r, int **parent, size_t *ecap,
                                   size_t ncap, int tile, prm_build_stats *stats);

/* The GO area, the LHS acceptance and the coverage read by row blocks of
 * the run directory dir's class and gonogo (tiled_nodes.c; run/blocks.h,
 * geo_block_rows() rows a block): the same numbers, nodes and order as
 * roadmap.c's loops over a whole terrain of the same files, in
 * O(block x nx + batch) memory. prm_blocks_go_count: the GO cells
 * (prm_cell_go's rule). prm_blocks_sample: roadmap.c's LHS batches (same
 * seeds and sizes), each sample's cell found in the blocks holding one
 * (the others are not read), accepted in sample order. prm_blocks_coverage:
 * the fraction of GO cells of every 4th row and column within one node
 * spacing, sqrt(GO area / nodes), of a node of ix (r's nodes); cell_m as
 * the terrain's. */
struct trv_bucket;
trv_status prm_blocks_go_count(trv_ctx *ctx, const char *dir, size_t *go);
trv_status prm_blocks_sample(trv_ctx *ctx, const char *dir, const prm_build_opts *o, int want, double go_frac,
                             prm_roadmap *r, prm_build_stats *stats);
trv_status prm_blocks_coverage(trv_ctx *ctx, const char *dir, const struct trv_bucket *ix, const prm_roadmap *r,
                               double cell_m, double go_area_km2, double *cov);

/* The facts prm_terrain_facts_of takes from prm_terrain_load of dir (top
 * speed, the pace table's pairs and range, dem's seams, the class runs:
 * the same values) in one pass over dir's layers by row blocks with a halo
 * of one row (geo_block_rows() rows a block), with prm_terrain_load's
 * checks (a layer of another grid or only nodata, a geographic CRS, a GO
 * cell's codes the model does not know, speed.tif of another model). */
trv_status prm_blocks_facts(trv_ctx *ctx, const char *dir, prm_terrain_facts *f);

#endif
