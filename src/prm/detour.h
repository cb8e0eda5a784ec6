/* Detour bridges (detour.c; docs/method.md §4.4, "Detour bridges"):
 * private to src/prm.
 *
 * The raster bridging joins the roadmap's components with a spanning
 * forest of bridges: one bridge between two components however long the
 * seam along which their nodes' flood areas touch. A passage the straight
 * edges missed between two parts of one component is not bridged at all.
 * A route through such a passage goes round by the one bridge or the
 * straight edges instead (on 10 m Jacksboro 40.7 km against the raster
 * optimum's 23.4 km for a pair 7.9 km apart). So every pair of nodes (a, b)
 * whose flood areas touch is a candidate, the shortest bridge of the pair
 * (L cells of 4-steps, its cell path simplified into pieces of length
 * l_ab m), taken shortest first, and the bridge is built when a and b are
 * in different components (the spanning forest: the same bridges as
 * before) or when the roadmap's own distance, edges weighed by their
 * length d,
 *
 *     D(a, b) > rho * l_ab,                          rho the stretch,
 *
 * a greedy rho-spanner of the flood's node adjacency (Althoefer et al.,
 * "On sparse spanners of weighted graphs", 1993): afterwards every pair
 * of neighbouring nodes is joined within rho times its bridge. D is a
 * Dijkstra from a bounded by rho (L + 1) cells (the cell path's length is
 * at most L + 1 cells, so nothing longer can matter); when it finds
 * D <= rho |ab| (|ab| <= l_ab) the cell path is not traced at all. */
#ifndef PRM_DETOUR_H
#define PRM_DETOUR_H

#include "core/heap.h"
#include "prm_priv.h"

/* The candidates, one per pair of owners: cells ca, cb (4-neighbours, of
 * owners a and b), the bridge's length w (cells of 4-steps) and the scan
 * position pos of ca-cb (the order of ties). */
typedef struct prm_pairs {
    int *ca, *cb, *w;
    long *pos;
    long n, cap;
    long *slot;             /* hash of the owner pairs: index into the arrays, -1 empty */
    uint64_t *key;          /* (lower owner << 32) | higher owner */
    size_t hsize;
} prm_pairs;
/* The pair of owners oa, ob (either order) across ca-cb: a new pair, or
 * the shorter of the two (on equal w the one added first stays). -1 when
 * out of memory. */
int prm_pairs_add(prm_pairs *P, int oa, int ob, int ca, int cb, int w, long pos);
/* The candidates' indices by w, then pos (malloc'ed; NULL out of memory):
 * the order Kruskal took the cell pairs in, the first of each pair. */
long *prm_pairs_order(const prm_pairs *P);
void prm_pairs_free(prm_pairs *P);

/* The roadmap as a growing graph: each edge's ends in linked lists per
 * node (end 2e at edge e's a, 2e + 1 at its b). */
typedef struct prm_net {
    int *head, *next, *seen;
    double *dist;           /* per node: INFINITY between searches */
    int nn, ne;             /* the nodes and edges linked so far */
    size_t ncap, ecap;
    trv_heap heap;          /* lazy deletion */
} prm_net;
/* Link the nodes and edges r gained since the last call. */
trv_status prm_net_sync(trv_ctx *ctx, prm_net *N, const prm_roadmap *r);
/* The least sum of edge lengths d (m) from node a to node b, INFINITY if
 * more than bound; NAN out of memory. */
double prm_net_dist(prm_net *N, const prm_roadmap *r, int a, int b, double bound);
void prm_net_free(prm_net *N);

#endif
