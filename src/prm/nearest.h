/* The roadmap nodes nearest a point, found cell by cell (issue 20: a
 * route's ends link to their K nearest nodes, docs/method.md §4.6, without
 * sorting every node by distance).
 *
 * The nodes are bucketed in square cells of side cw over their bounding
 * box (cell (c, r) holds the nodes with floor((x - x0) / cw) = c, floor((y
 * - y0) / cw) = r, clamped into the grid; ids ascending in a cell). A
 * query from p takes the cells in rings around p's cell (ring q: the cells
 * at Chebyshev distance q), keeps every node seen with its distance
 *
 *   d_i = hypot(x_i - px, y_i - py)            (as prm_route computes it)
 *
 * and stops once it holds K nodes and the K-th least (d, id) is below the
 * distance from p to the outside of the square of rings searched (less a
 * margin of 1e-7 cw for rounding): every node not seen lies at least that
 * far, so strictly farther than the K-th. The answer is then the first K
 * of all nodes in order of (d, id), exactly as the full sort's, ties
 * included. A point outside the grid starts at the first ring that
 * reaches it. */
#ifndef TRV_PRM_NEAREST_H
#define TRV_PRM_NEAREST_H

#include "core/trv.h"

typedef struct prm_near_grid {
    double x0, y0, cw;         /* the grid's corner (least x, least y) and a cell's side (map units) */
    int nx, ny;
    int *start, *id;           /* per cell (row-major, nx * ny + 1 starts): its nodes' ids, ascending */
} prm_near_grid;

/* The cells of the n nodes (x[i], y[i]), about 8 nodes a cell.
 * TRV_ERR_NOMEM. */
trv_status prm_near_grid_build(trv_ctx *ctx, const double *x, const double *y, int n, prm_near_grid *g);
void prm_near_grid_clear(prm_near_grid *g);
/* The min(k, n) nodes nearest (px, py) in order of (d, id) into out;
 * their number, or -1 when out of memory. */
int prm_near_k(const prm_near_grid *g, const double *x, const double *y, double px, double py, int k, int *out);
#endif
