/* The roadmap cache's roadmap by pieces (prm.h prm_roadmap_need; the
 * cache's layout: roadmap_cache.c).
 *
 * The nodes' bounding box is cut into square tiles of side `side` (ntx x
 * nty, about a page of edges each); node i lies in tile
 *   t(i) = min(nty - 1, floor((y_i - y0) / side)) ntx + min(ntx - 1, floor((x_i - x0) / side)).
 * The cache's edges are in order of the tile of their first end a, and
 * in the GeoPackage's order within a tile (when the GeoPackage's edges are
 * in order of (a, b), as trv-roadmap writes them: `renumbered`; else in
 * the GeoPackage's order, one tile): piece b is the edges eb[b] ..
 * eb[b+1] - 1 (eb[0] = 0, eb[nb] = nedges, non decreasing), the edges of
 * tile b. Its hash: prm_hash_bytes over those edges' bytes. A piece is
 * sound when its hash is the cache's and its edges join nodes that exist
 * (0 <= a < b < n). The adjacency (each node's edges, in the GeoPackage's
 * order, renumbered) is read whole with the nodes. A piece's pages are
 * asked of the disk at once when it is first needed (the mapping is
 * MADV_RANDOM: else a fault, and a read, a page), every edge's at once for
 * a reader of the whole roadmap. */
#ifndef TRV_PRM_ROADMAP_PIECES_H
#define TRV_PRM_ROADMAP_PIECES_H

#include "prm.h"

typedef struct prm_roadmap_map {
    char *path;                /* the cache's, for the message */
    void *base;                /* the mapping (munmap'ed with the roadmap) */
    size_t len;
    int ntx, nty, nb;          /* the tiles; nb = ntx nty pieces */
    double x0, y0, side;       /* the tiles' corner (least x, least y) and side (map units) */
    int renumbered;            /* 1: the edges in tile order (the GeoPackage's were in order of (a, b)) */
    uint64_t hier_hash;        /* prm_hier_hash of the roadmap in the GeoPackage's order (hier.h) */
    const int64_t *eb;         /* nb + 1 edge starts (into the mapping) */
    const uint64_t *hash;      /* nb hashes (into the mapping) */
    unsigned char *checked;    /* per piece: 0 not yet, 1 sound, 2 damaged */
    long pieces_checked;       /* how many were checked (for the measures) */
    uint64_t ahead_bytes;      /* bytes asked of the disk ahead (MADV_WILLNEED: a piece's pages when first
                                  needed, every edge's for a reader of them all) */
    long ahead_refused;        /* such asks madvise refused (none: their starts are a page's) */
} prm_roadmap_map;

/* The tile of (x, y) on the grid above (clamped into it). */
int prm_roadmap_tile_of(double x, double y, double x0, double y0, double side, int ntx, int nty);
/* The hash of piece b of edges with starts eb. */
uint64_t prm_roadmap_piece_hash(const prm_edge *edges, const int64_t *eb, int b);
/* The piece holding edge e (eb's last start at or before it, past empty
 * pieces). */
int prm_roadmap_piece_of_edge(const prm_roadmap_map *m, int e);
void prm_roadmap_map_free(prm_roadmap_map *m);
#endif
