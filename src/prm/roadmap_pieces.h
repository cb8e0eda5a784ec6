/* The roadmap cache's roadmap by pieces (prm.h prm_roadmap_need; the
 * cache's layout: roadmap_cache.c).
 *
 * Piece b of a roadmap of n nodes, pieces of B nodes (nb = ceil(n / B)):
 * its nodes bB .. min(n, (b + 1) B) - 1, the edges eb[b] .. eb[b+1] - 1
 * (the edges are in order of their first end a, so that these are the
 * edges whose a lies in the piece; eb[0] = 0, eb[nb] = nedges, non
 * decreasing) and its nodes' adjacency adj[adj_start[bB] ..
 * adj_start[min(n, (b + 1) B)]). Its hash: prm_hash_bytes over those edges'
 * bytes, then that adjacency's. A piece is sound when its hash is the
 * cache's and its edges join nodes that exist (0 <= a < b < n), its
 * adjacency lists edges that exist (whole-roadmap form of the check: the
 * reader's valid() before version 6). */
#ifndef TRV_PRM_ROADMAP_PIECES_H
#define TRV_PRM_ROADMAP_PIECES_H

#include "prm.h"

typedef struct prm_roadmap_map {
    char *path;                /* the cache's, for the message */
    void *base;                /* the mapping (munmap'ed with the roadmap) */
    size_t len;
    int B, nb;                 /* nodes a piece, pieces */
    uint64_t hier_hash;        /* prm_hier_hash of the roadmap, taken at the cache's writing (hier.h) */
    const int64_t *eb;         /* nb + 1 edge starts (into the mapping) */
    const uint64_t *hash;      /* nb hashes (into the mapping) */
    unsigned char *checked;    /* per piece: 0 not yet, 1 sound, 2 damaged */
    long pieces_checked;       /* how many were checked (for the measures) */
} prm_roadmap_map;

/* The hash of piece b of r's edges and adjacency with eb (see above). */
uint64_t prm_roadmap_piece_hash(const prm_roadmap *r, const int64_t *eb, int B, int b);
/* Edge starts of pieces of B nodes: the first edge whose a is at least bB
 * when r's edges are in order of a, else nedges b / nb (pieces still
 * cover every edge once). eb: nb + 1 entries. */
void prm_roadmap_piece_starts(const prm_roadmap *r, int B, int nb, int64_t *eb);
/* The piece holding edge e (eb's last start at or before it, past empty
 * pieces). */
int prm_roadmap_piece_of_edge(const prm_roadmap_map *m, int e);
void prm_roadmap_map_free(prm_roadmap_map *m);
#endif
