/* Raster-aware bridging (docs/method.md §4.4): the raster knows which GO
 * cells are joined, straight k-nearest edges do not. A multi-source
 * breadth-first flood over 4-connected GO cells from every node's cell
 * labels each cell with its nearest node (in 4-steps); where two labels of
 * different roadmap components meet across a 4-neighbour pair lies a
 * candidate bridge of length dist + dist + 1 cells; Kruskal over the
 * candidates, shortest first, joins every component inside each GO
 * region. A chosen bridge is the cell path back to both nodes, simplified
 * into straight NOGO-free pieces (prm_polyline_simplify), its interior
 * vertices new nodes, its pieces ordinary measured edges. A GO region the
 * flood never reached (no node) gets a node in its first cell in row
 * order. Cell paths put their vertices near the cells' centres
 * (cell_point). O(cells). With a stretch rho > 0 every pair of nodes
 * whose flood areas touch is a candidate, and a pair already in one
 * component is bridged too when the roadmap's distance between them is
 * more than rho times the bridge (detour.h). */
#include "detour.h"
#include "tiled.h"

#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- straight pieces ---- */

/* The vertex a cell path puts in cell c: its centre shifted by
 * (sqrt 2 - 1, 2 - sqrt 3) / 10 of a cell, east and south. Every vertex
 * sits at the same place in its cell, so a 4-neighbour step stays in its
 * two cells, but a straight piece between two such vertices never runs
 * exactly through a cell corner, as pieces between exact centres do (one
 * cell right per cell up hits every corner on the way): a corner crossed
 * exactly is where a walk in floating point may miss the diagonal cells. */
void prm_cell_point(const geo_grid *g, long c, double *x, double *y)
{
    *x = g->gt[0] + ((double)(c % g->nx) + 0.5 + 0.0414213562373095) * g->gt[1];
    *y = g->gt[3] + ((double)(c / g->nx) + 0.5 + 0.0267949192431123) * g->gt[5];
}

static int stop_nogo(long i, double len, void *user)
{
    (void)len;
    return !prm_cell_go(user, i);
}

int prm_piece_free(const prm_terrain *t, double x0, double y0, double x1, double y1)
{
    if (prm_cell_at(t, x0, y0) < 0 || prm_cell_at(t, x1, y1) < 0)
        return 0;
    double len = hypot(x1 - x0, y1 - y0), e = PRM_FREE_MARGIN * fabs(t->grid->gt[1]);
    double ox = len > 0 ? -(y1 - y0) / len * e : 0, oy = len > 0 ? (x1 - x0) / len * e : 0;
    /* the segment and its two copies shifted sideways: through a corner
     * (cell centres line up with corners), one of them takes either side */
    for (int k = -1; k <= 1; k++)
        if (prm_segment_walk(t->grid, x0 + k * ox, y0 + k * oy, x1 + k * ox, y1 + k * oy, stop_nogo, (void *)t))
            return 0;
    return 1;
}

int prm_polyline_simplify(const prm_terrain *t, const double *x, const double *y, int n, int *keep)
{
    int m = 0;
    for (int i = 0; i < n - 1;) {
        keep[m++] = i;
        if (!prm_piece_free(t, x[i], y[i], x[i + 1], y[i + 1]))
            return -1;
        int j = i + 1;
        while (j + 1 < n && j + 1 - i <= PRM_SIMPLIFY_AHEAD && prm_piece_free(t, x[i], y[i], x[j + 1], y[j + 1]))
            j++;
        i = j;
    }
    keep[m++] = n - 1;
    return m;
}

/* The 4-neighbour of c one step nearer its owner's cell (the first in
 * west, east, north, south order); -1 at the owner's cell. */
static long step_back(const prm_terrain *t, const int *owner, const int *dist, long c)
{
    int nx = t->grid->nx, ny = t->grid->ny, col = (int)(c % nx), row = (int)(c / nx);
    const long nb[4] = {col > 0 ? c - 1 : -1, col + 1 < nx ? c + 1 : -1, row > 0 ? c - nx : -1,
                        row + 1 < ny ? c + nx : -1};
    for (int k = 0; k < 4; k++)
        if (nb[k] >= 0 && owner[nb[k]] == owner[c] && dist[nb[k]] == dist[c] - 1)
            return nb[k];
    return -1;
}

/* ---- the roadmap's growth ---- */

typedef prm_grow grow;

trv_status prm_grow_node(trv_ctx *ctx, grow *G, double x, double y)
{
    prm_roadmap *r = G->r;
    if ((size_t)r->nnodes == G->ncap) {
        size_t cap = 2 * G->ncap + 16;
        double *nx = realloc(r->x, cap * sizeof *nx);
        if (nx)
            r->x = nx;
        double *ny = nx ? realloc(r->y, cap * sizeof *ny) : NULL;
        if (ny)
            r->y = ny;
        int *np = ny ? realloc(*G->parent, cap * sizeof *np) : NULL;
        if (!np)
            return trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
        *G->parent = np;
        G->ncap = cap;
    }
    if (r->nnodes >= PRM_MAX_NODES)
        return trv_error(ctx, TRV_ERR_DATA, "bridging needs more than %d nodes", PRM_MAX_NODES);
    r->x[r->nnodes] = x;
    r->y[r->nnodes] = y;
    (*G->parent)[r->nnodes] = r->nnodes;
    r->nnodes++;
    return TRV_OK;
}

trv_status prm_edge_add(trv_ctx *ctx, const prm_terrain *t, prm_roadmap *r, int *parent, size_t *ecap, int a, int b,
                        int *added)
{
    prm_edge ed = {a < b ? a : b, a < b ? b : a, {0}};
    prm_edge_measure(t, r->x[ed.a], r->y[ed.a], r->x[ed.b], r->y[ed.b], &ed.p);
    *added = !ed.p.blocked;
    if (!*added)
        return TRV_OK;
    if ((size_t)r->nedges == *ecap) {
        size_t cap = 2 * *ecap + 16;
        prm_edge *e = realloc(r->edges, cap * sizeof *e);
        if (!e)
            return trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
        r->edges = e;
        *ecap = cap;
    }
    r->edges[r->nedges++] = ed;
    parent[prm_uf_find(parent, ed.a)] = prm_uf_find(parent, ed.b);
    return TRV_OK;
}

trv_status prm_grow_edge(trv_ctx *ctx, grow *G, int a, int b, int *added)
{
    return prm_edge_add(ctx, G->t, G->r, *G->parent, G->ecap, a, b, added);
}

/* ---- the flood ---- */

typedef struct flood {
    int *owner;             /* per cell: its nearest node (4-steps); -1 GO not reached yet, -2 NOGO */
    int *dist;              /* per cell: the 4-steps to that node's cell */
    int *queue;
    long head, tail;
} flood;

/* Node i's cell: the first node in a cell owns it; a later one of another
 * component is joined to the owner by the straight piece inside the cell. */
static trv_status seed(trv_ctx *ctx, grow *G, flood *F, int i)
{
    long c = prm_cell_at(G->t, G->r->x[i], G->r->y[i]);
    if (c < 0 || F->owner[c] == -2) /* not on a GO cell (a roadmap's nodes are) */
        return TRV_OK;
    if (F->owner[c] == -1) {
        F->owner[c] = i;
        F->dist[c] = 0;
        F->queue[F->tail++] = (int)c;
        return TRV_OK;
    }
    int added;
    if (prm_uf_find(*G->parent, F->owner[c]) == prm_uf_find(*G->parent, i))
        return TRV_OK;
    return prm_grow_edge(ctx, G, F->owner[c], i, &added);
}

/* Breadth-first from the queued cells over 4-connected GO cells (owner
 * -1). */
static void spread(const prm_terrain *t, flood *F)
{
    int nx = t->grid->nx, ny = t->grid->ny;
    while (F->head < F->tail) {
        int c = F->queue[F->head++], col = c % nx, row = c / nx;
        const int nb[4] = {col > 0 ? c - 1 : -1, col + 1 < nx ? c + 1 : -1, row > 0 ? c - nx : -1,
                           row + 1 < ny ? c + nx : -1};
        for (int k = 0; k < 4; k++)
            if (nb[k] >= 0 && F->owner[nb[k]] == -1) {
                F->owner[nb[k]] = F->owner[c];
                F->dist[nb[k]] = F->dist[c] + 1;
                F->queue[F->tail++] = nb[k];
            }
    }
}

/* Every GO cell the flood did not reach lies in a region without a node:
 * a node at the centre of its first cell (row order), flooded from. */
static trv_status orphan_regions(trv_ctx *ctx, grow *G, flood *F, prm_build_stats *stats)
{
    const geo_grid *g = G->t->grid;
    long ncell = (long)g->nx * g->ny;
    for (long c = 0; c < ncell; c++) {
        if (F->owner[c] != -1)
            continue;
        double x, y;
        prm_cell_point(g, c, &x, &y);
        trv_status st = prm_grow_node(ctx, G, x, y);
        if (st)
            return st;
        stats->region_nodes++;
        F->owner[c] = G->r->nnodes - 1;
        F->dist[c] = 0;
        F->queue[F->tail++] = (int)c;
        spread(G->t, F);
    }
    return TRV_OK;
}

/* ---- candidates and Kruskal ---- */

/* Scan the 4-neighbour pairs (east and south of each cell): reg joins the
 * owners of every pair (the GO regions over the nodes), P receives the
 * shortest pair of cells of each pair of owners that lie in different
 * roadmap components, or (all: detours wanted) of every pair of owners. */
static trv_status collect(trv_ctx *ctx, const grow *G, const flood *F, int *reg, int all, prm_pairs *P)
{
    int nx = G->t->grid->nx, ny = G->t->grid->ny;
    int *parent = *G->parent;
    for (int row = 0; row < ny; row++)
        for (int col = 0; col < nx; col++) {
            int c = row * nx + col;
            if (F->owner[c] < 0)
                continue;
            const int nb[2] = {col + 1 < nx ? c + 1 : -1, row + 1 < ny ? c + nx : -1};
            for (int k = 0; k < 2; k++) {
                int oa = F->owner[c], ob = nb[k] >= 0 ? F->owner[nb[k]] : -1;
                if (ob < 0 || oa == ob)
                    continue;
                reg[prm_uf_find(reg, oa)] = prm_uf_find(reg, ob);
                if ((all || prm_uf_find(parent, oa) != prm_uf_find(parent, ob)) &&
                    prm_pairs_add(P, oa, ob, c, nb[k], F->dist[c] + F->dist[nb[k]] + 1, 2L * c + k))
                    return trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
            }
        }
    return TRV_OK;
}

/* The bridge across cells ca-cb: node, its cell centre and the cells back
 * to ca, then cb and the cells on to the other node, simplified into
 * straight pieces; the interior vertices become nodes. *made: 0 if a step
 * was blocked (not expected: 4-neighbour steps are free). */
/* The simplified bridge (x, y at keep[0 .. m - 1], from node a to node b):
 * its interior vertices nodes, its pieces edges; *made when every piece
 * was added. */
static trv_status grow_kept(trv_ctx *ctx, prm_grow *G, const double *x, const double *y, const int *keep, int m,
                            int a, int b, int *made)
{
    int *id = malloc((size_t)m * sizeof *id);
    trv_status st = TRV_OK;
    *made = 0;
    if (!id)
        return trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
    id[0] = a;
    id[m - 1] = b;
    for (int k = 1; k < m - 1 && !st; k++) {
        st = prm_grow_node(ctx, G, x[keep[k]], y[keep[k]]);
        id[k] = G->r->nnodes - 1;
    }
    int added = 1;
    for (int k = 0; k + 1 < m && !st && added; k++)
        st = prm_grow_edge(ctx, G, id[k], id[k + 1], &added);
    *made = !st && added;
    free(id);
    return st;
}

trv_status prm_grow_bridge(trv_ctx *ctx, prm_grow *G, const double *x, const double *y, int n, int a, int b,
                           prm_build_stats *stats, int *made)
{
    int *keep = malloc((size_t)n * sizeof *keep);
    trv_status st = TRV_OK;
    *made = 0;
    if (!keep)
        return trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
    int m = prm_polyline_simplify(G->t, x, y, n, keep);
    if (m >= 2)
        st = grow_kept(ctx, G, x, y, keep, m, a, b, made);
    if (!st && *made) {
        stats->bridges++;
        stats->bridge_nodes += m - 2;
        stats->bridge_edges += m - 1;
    }
    free(keep);
    return st;
}

long *prm_order_by_length(const int *w, long n)
{
    int wmax = 0;
    for (long i = 0; i < n; i++)
        if (w[i] > wmax)
            wmax = w[i];
    long *start = calloc((size_t)wmax + 2, sizeof *start), *order = malloc(((size_t)n + 1) * sizeof *order);
    if (start && order) {
        for (long i = 0; i < n; i++)
            start[w[i] + 1]++;
        for (int v = 0; v <= wmax; v++)
            start[v + 1] += start[v];
        for (long i = 0; i < n; i++)
            order[start[w[i]]++] = i;
    } else {
        free(order);
        order = NULL;
    }
    free(start);
    return order;
}

/* The cell path of the bridge across the cells ca-cb: owner a's point,
 * the cells' vertices from a's cell to ca, then from cb to b's cell, b's
 * point (*n points, malloc'ed). */
static trv_status cell_path(trv_ctx *ctx, const grow *G, const flood *F, int ca, int cb, double **xs, double **ys,
                            int *n)
{
    int la = F->dist[ca] + 1, lb = F->dist[cb] + 1;
    *n = la + lb + 2;
    double *x = *xs = malloc((size_t)*n * sizeof *x), *y = *ys = malloc((size_t)*n * sizeof *y);
    if (!x || !y)
        return trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
    const geo_grid *g = G->t->grid;
    int a = F->owner[ca], b = F->owner[cb];
    x[0] = G->r->x[a], y[0] = G->r->y[a];
    x[*n - 1] = G->r->x[b], y[*n - 1] = G->r->y[b];
    long c = ca;
    for (int k = la; k >= 1; k--, c = step_back(G->t, F->owner, F->dist, c))
        prm_cell_point(g, c, &x[k], &y[k]);
    c = cb;
    for (int k = la + 1; k <= la + lb; k++, c = step_back(G->t, F->owner, F->dist, c))
        prm_cell_point(g, c, &x[k], &y[k]);
    return TRV_OK;
}

/* The bridge between the cells ca and cb: each one's path back to its
 * owner through the flood, then prm_grow_bridge. */
static trv_status build_bridge(trv_ctx *ctx, grow *G, const flood *F, int ca, int cb, prm_build_stats *stats,
                               int *made)
{
    double *x = NULL, *y = NULL;
    int n;
    trv_status st = cell_path(ctx, G, F, ca, cb, &x, &y, &n);
    *made = 0;
    if (!st)
        st = prm_grow_bridge(ctx, G, x, y, n, F->owner[ca], F->owner[cb], stats, made);
    free(x);
    free(y);
    return st;
}

/* A detour bridge across ca-cb when the roadmap's distance between its
 * owners a and b is more than rho times its simplified length (detour.h):
 * D bounded by rho (w + 2) cells, w + 2 cells above the cell path's
 * length (w 4-steps, and each node within 0.76 of a cell of its cell's
 * vertex). */
static trv_status detour(trv_ctx *ctx, grow *G, const flood *F, prm_net *N, int ca, int cb, double rho,
                         prm_build_stats *stats)
{
    const prm_roadmap *r = G->r;
    int a = F->owner[ca], b = F->owner[cb], w = F->dist[ca] + F->dist[cb] + 1;
    double mpu = G->t->cell_m / fabs(G->t->grid->gt[1]);
    trv_status st = prm_net_sync(ctx, N, r);
    double D = st ? 0 : prm_net_dist(N, r, a, b, rho * (w + 2) * G->t->cell_m);
    if (st || isnan(D))
        return st ? st : trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
    if (D <= rho * hypot(r->x[b] - r->x[a], r->y[b] - r->y[a]) * mpu) /* the bridge is no shorter than |ab| */
        return TRV_OK;
    double *x = NULL, *y = NULL, len = 0;
    int n, *keep = NULL, m = 0, made = 0;
    if (!(st = cell_path(ctx, G, F, ca, cb, &x, &y, &n)) && !(keep = malloc((size_t)n * sizeof *keep)))
        st = trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
    if (!st && (m = prm_polyline_simplify(G->t, x, y, n, keep)) >= 2) {
        for (int k = 0; k + 1 < m; k++)
            len += hypot(x[keep[k + 1]] - x[keep[k]], y[keep[k + 1]] - y[keep[k]]) * mpu;
        if (D > rho * len && !(st = grow_kept(ctx, G, x, y, keep, m, a, b, &made)) && made) {
            stats->detours++;
            stats->detour_nodes += m - 2;
            stats->detour_edges += m - 1;
        }
    }
    free(x);
    free(y);
    free(keep);
    return st;
}

/* Kruskal: the candidates shortest first (ties in scan order), a bridge
 * wherever its ends' components still differ; with rho > 0 a detour
 * bridge where they do not (a detour joins nodes of one component: the
 * components, so the Kruskal bridges, are those without detours). */
static trv_status kruskal(trv_ctx *ctx, grow *G, const flood *F, const prm_pairs *P, double rho,
                          prm_build_stats *stats)
{
    long *order = prm_pairs_order(P);
    if (!order)
        return trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
    prm_net N = {0};
    trv_status st = TRV_OK;
    for (long q = 0; q < P->n && !st; q++) {
        long i = order[q];
        int ra = prm_uf_find(*G->parent, F->owner[P->ca[i]]), rb = prm_uf_find(*G->parent, F->owner[P->cb[i]]), made;
        if (ra != rb && !(st = build_bridge(ctx, G, F, P->ca[i], P->cb[i], stats, &made)) && !made)
            stats->bridge_failed++;
        else if (ra == rb && rho > 0)
            st = detour(ctx, G, F, &N, P->ca[i], P->cb[i], rho, stats);
    }
    prm_net_free(&N);
    free(order);
    return st;
}

/* The flood's start: owner -1 on GO cells, -2 on NOGO ones, in bands of
 * cells on every core (a lazy terrain, which reads its tiles on demand,
 * on the calling thread). */
typedef struct mark_job {
    const prm_terrain *t;
    int *owner;
    long c0, c1;
} mark_job;

static void *mark_cells(void *arg)
{
    mark_job *j = arg;
    for (long c = j->c0; c < j->c1; c++)
        j->owner[c] = prm_cell_go(j->t, c) ? -1 : -2;
    return NULL;
}

static void mark_all(const prm_terrain *t, int *owner, long ncell)
{
    int nt = t->ready ? 1 : prm_cores();
    mark_job jobs[PRM_MAX_THREADS];
    for (int i = 0; i < nt; i++)
        jobs[i] = (mark_job){t, owner, ncell * i / nt, ncell * (i + 1) / nt};
    prm_on_cores(mark_cells, jobs, sizeof *jobs, nt);
}

trv_status prm_bridge_raster(trv_ctx *ctx, const prm_terrain *t, prm_roadmap *r, int **parent, size_t *ecap,
                             size_t ncap, double rho, prm_build_stats *stats)
{
    long ncell = (long)t->grid->nx * t->grid->ny;
    if (ncell > INT_MAX)
        return trv_error(ctx, TRV_ERR_DATA, "raster bridging handles at most %d cells (the grid has %ld)", INT_MAX,
                         ncell);
    grow G = {t, r, parent, ecap, ncap};
    flood F = {malloc((size_t)ncell * sizeof *F.owner), malloc((size_t)ncell * sizeof *F.dist),
               malloc((size_t)ncell * sizeof *F.queue), 0, 0};
    prm_pairs P = {0};
    int *reg = NULL;
    trv_status st = TRV_OK;
    if (!F.owner || !F.dist || !F.queue) {
        st = trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
        goto done;
    }
    mark_all(t, F.owner, ncell);
    int nseed = r->nnodes;
    for (int i = 0; i < nseed && !st; i++)
        st = seed(ctx, &G, &F, i);
    if (st)
        goto done;
    spread(t, &F);
    if ((st = orphan_regions(ctx, &G, &F, stats)))
        goto done;
    if (!(reg = malloc((size_t)r->nnodes * sizeof *reg))) {
        st = trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
        goto done;
    }
    for (int i = 0; i < r->nnodes; i++)
        reg[i] = i;
    if ((st = collect(ctx, &G, &F, reg, rho > 0, &P)))
        goto done;
    for (int i = 0; i < r->nnodes; i++) { /* the owners of a region's cells share one root */
        long c = prm_cell_at(t, r->x[i], r->y[i]);
        if (c >= 0 && F.owner[c] == i && prm_uf_find(reg, i) == i)
            stats->regions++;
    }
    stats->regions_with_nodes = stats->regions - stats->region_nodes;
    st = kruskal(ctx, &G, &F, &P, rho, stats);
done:
    free(F.owner);
    free(F.dist);
    free(F.queue);
    prm_pairs_free(&P);
    free(reg);
    return st;
}

/* ---- an end's leg to the roadmap ---- */

typedef struct node_cell {
    long cell;
    int node;
} node_cell;

static int cmp_node_cell(const void *a, const void *b)
{
    const node_cell *p = a, *q = b;
    if (p->cell != q->cell)
        return p->cell < q->cell ? -1 : 1;
    return (p->node > q->node) - (p->node < q->node);
}

/* The lowest node in cell c (cells sorted), -1 for none. */
static int node_in(const node_cell *nc, int n, long c)
{
    int lo = 0, hi = n;
    while (lo < hi) {
        int mid = lo + (hi - lo) / 2;
        if (nc[mid].cell < c)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < n && nc[lo].cell == c ? nc[lo].node : -1;
}

/* Breadth-first from cell s to the first cell holding a node: from[c] is
 * the cell c was reached from, plus 1 (0: not reached; calloc'd, so only
 * the pages the search touches are ever written). Returns the cell, -1. */
static long bfs_to_node(const prm_terrain *t, const node_cell *nc, int nn, long s, long *from, long *queue, int *node)
{
    int nx = t->grid->nx, ny = t->grid->ny;
    long head = 0, tail = 0;
    from[s] = s + 1;
    queue[tail++] = s;
    while (head < tail) {
        long c = queue[head++];
        if ((*node = node_in(nc, nn, c)) >= 0)
            return c;
        int col = (int)(c % nx), row = (int)(c / nx);
        const long nb[4] = {col > 0 ? c - 1 : -1, col + 1 < nx ? c + 1 : -1, row > 0 ? c - nx : -1,
                            row + 1 < ny ? c + nx : -1};
        for (int k = 0; k < 4; k++)
            if (nb[k] >= 0 && !from[nb[k]] && prm_cell_go(t, nb[k])) {
                from[nb[k]] = c + 1;
                queue[tail++] = nb[k];
            }
    }
    return -1;
}

/* The leg's vertices: (x, y), the centres of the cells from s to c, the
 * node's point; simplified. */
static trv_status leg_path(trv_ctx *ctx, const prm_terrain *t, const prm_roadmap *r, double x, double y, long s,
                           long c, const long *from, int node, double **xs, double **ys, int *n)
{
    const geo_grid *g = t->grid;
    int len = 1;
    for (long q = c; q != s; q = from[q] - 1)
        len++;
    int nv = len + 2;
    double *vx = malloc((size_t)nv * sizeof *vx), *vy = malloc((size_t)nv * sizeof *vy);
    int *keep = malloc((size_t)nv * sizeof *keep);
    if (!vx || !vy || !keep) {
        free(vx);
        free(vy);
        free(keep);
        return trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
    }
    vx[0] = x, vy[0] = y, vx[nv - 1] = r->x[node], vy[nv - 1] = r->y[node];
    int k = len;
    for (long q = c;; q = from[q] - 1, k--) {
        prm_cell_point(g, q, &vx[k], &vy[k]);
        if (q == s)
            break;
    }
    int m = prm_polyline_simplify(t, vx, vy, nv, keep);
    if (m < 2) {
        free(vx);
        free(vy);
        free(keep);
        return trv_error(ctx, TRV_ERR_DATA, "the raster leg from (%.1f, %.1f) crosses NOGO", x, y);
    }
    for (int q = 0; q < m; q++)
        vx[q] = vx[keep[q]], vy[q] = vy[keep[q]];
    free(keep);
    *xs = vx, *ys = vy, *n = m;
    return TRV_OK;
}

trv_status prm_raster_leg(trv_ctx *ctx, const prm_terrain *t, const prm_roadmap *r, double x, double y, int *node,
                          double **xs, double **ys, int *n)
{
    *node = -1, *xs = *ys = NULL, *n = 0;
    long s = prm_cell_at(t, x, y), ncell = (long)t->grid->nx * t->grid->ny;
    if (s < 0 || !prm_cell_go(t, s))
        return TRV_OK;
    node_cell *nc = malloc(((size_t)r->nnodes + 1) * sizeof *nc);
    long *from = calloc((size_t)ncell, sizeof *from), *queue = malloc((size_t)ncell * sizeof *queue);
    trv_status st = TRV_OK;
    if (!nc || !from || !queue) {
        st = trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
        goto done;
    }
    int nn = 0;
    for (int i = 0; i < r->nnodes; i++) {
        long c = prm_cell_at(t, r->x[i], r->y[i]);
        if (c >= 0)
            nc[nn++] = (node_cell){c, i};
    }
    qsort(nc, (size_t)nn, sizeof *nc, cmp_node_cell);
    long c = bfs_to_node(t, nc, nn, s, from, queue, node);
    if (c >= 0)
        st = leg_path(ctx, t, r, x, y, s, c, from, *node, xs, ys, n);
    if (st)
        *node = -1;
done:
    free(nc);
    free(from);
    free(queue);
    return st;
}
