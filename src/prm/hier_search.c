/* The query on the hierarchical index (hier.h): Dijkstra on the abstract
 * graph, then each matrix hop refined inside its tile. */
#include "prm/hier.h"

#include "core/heap.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct query {
    const prm_hier *h;
    const prm_roadmap *r;
    prm_strategy s;
    const prm_weights *w;
    const char *full;      /* per tile: 1 for the tiles the ends link into */
    prm_hier_stats *hs;
    const double *goal;    /* x, y, the heuristic's weight per map unit */
    trv_ctx *ctx;
    trv_status *need;      /* a damaged piece of a cache's roadmap (prm_roadmap_need): its status */
} query;

/* Node u's edges, checked when a cache's roadmap is mapped: 0, or -1 with
 * *q->need set. */
static int need(const query *q, int u)
{
    return (*q->need = prm_roadmap_need(q->ctx, q->r, u)) ? -1 : 0;
}

/* The A* key's estimate: the straight line to the goal times the least
 * weight per map unit (consistent for edges and matrix hops alike: a
 * hop's cost is a sum of edges', each at least its ends' difference). */
static double est(const query *q, int v)
{
    if (v >= q->r->nnodes)
        return 0;
    return q->goal[2] * hypot(q->goal[0] - q->r->x[v], q->goal[1] - q->r->y[v]);
}

static double edge_w(const prm_edge *e, int u, prm_strategy s, const prm_weights *w)
{
    if (s == PRM_TIME && e->b == u)
        return e->p.time_rev_s;
    return prm_piece_weight(&e->p, s, w);
}

static int relax(const query *q, trv_heap *hp, double *g, int *parent, char *hop, const char *closed, int u, int v,
                 double wt, int via)
{
    if (closed[v] || !(g[u] + wt < g[v]))
        return 0;
    g[v] = g[u] + wt;
    parent[v] = u;
    hop[v] = (char)via;
    return trv_heap_push(hp, v, g[v] + est(q, v), 0);
}

/* Roadmap node u's arcs: all its edges in a full tile; else the matrix row
 * to its tile's other border nodes and its crossing edges. */
static int expand(const query *q, trv_heap *hp, double *g, int *parent, char *hop, const char *closed, int u)
{
    const prm_hier *h = q->h;
    const prm_roadmap *r = q->r;
    int T = h->node_tile[u], full = q->full[T];
    if (need(q, u))
        return -1;
    for (int j = r->adj_start[u]; j < r->adj_start[u + 1]; j++) {
        const prm_edge *e = &r->edges[r->adj[j]];
        int v = e->a == u ? e->b : e->a;
        q->hs->edges_read++;
        if ((full || h->node_tile[v] != T) && relax(q, hp, g, parent, hop, closed, u, v, edge_w(e, u, q->s, q->w), 0))
            return -1;
    }
    if (full || h->border_pos[u] < 0)
        return 0;
    int b0 = h->border_start[T], nb = h->border_start[T + 1] - b0;
    const double *m = h->mat[q->s] + h->mat_start[T] + (long)h->border_pos[u] * nb;
    q->hs->matrix_read += nb;
    for (int k = 0; k < nb; k++)
        if (isfinite(m[k]) && h->border[b0 + k] != u &&
            relax(q, hp, g, parent, hop, closed, u, h->border[b0 + k], m[k], 1))
            return -1;
    return 0;
}

/* Dijkstra from a to b inside tile T (its own edges): the path's inner
 * nodes, b first, appended to out (back to front); -1 out of memory or
 * none (the matrix said there is one). stamp/dist/par: per node, stamp
 * calloc'd (only the tile's entries are touched). */
static int refine(const query *q, int T, int a, int b, int *stamp, int cur, double *dist, int *par, int **out, int *n,
                  int *cap)
{
    const prm_roadmap *r = q->r;
    trv_heap hp = {0};
    stamp[a] = cur, dist[a] = 0, par[a] = -1;
    if (trv_heap_push(&hp, a, 0, 0))
        return -1;
    while (hp.n > 0) {
        trv_heap_item it = trv_heap_pop(&hp);
        int u = it.id;
        if (it.key > dist[u])
            continue;
        if (u == b)
            break;
        if (need(q, u)) {
            trv_heap_free(&hp);
            return -1;
        }
        for (int j = r->adj_start[u]; j < r->adj_start[u + 1]; j++) {
            const prm_edge *e = &r->edges[r->adj[j]];
            int v = e->a == u ? e->b : e->a;
            q->hs->edges_read++;
            if (q->h->node_tile[v] != T)
                continue;
            double nd = dist[u] + edge_w(e, u, q->s, q->w);
            if (stamp[v] == cur && !(nd < dist[v]))
                continue;
            stamp[v] = cur, dist[v] = nd, par[v] = u;
            if (trv_heap_push(&hp, v, nd, 0)) {
                trv_heap_free(&hp);
                return -1;
            }
        }
    }
    trv_heap_free(&hp);
    if (stamp[b] != cur)
        return -1;
    for (int v = b; v != a; v = par[v]) {
        if (*n == *cap) {
            int *p = realloc(*out, (size_t)(*cap = 2 * *cap + 16) * sizeof *p);
            if (!p)
                return -1;
            *out = p;
        }
        (*out)[(*n)++] = v;
    }
    return 0;
}

/* The abstract path from G back to S with every hop refined, as the
 * parent chain; a node met twice (a zero-weight loop) cuts the loop. */
static trv_status unfold(trv_ctx *ctx, const query *q, int S, int G, int *parent, const char *hop)
{
    int n = 0, cap = 0, *rev = NULL, nn = q->r->nnodes, cur = 0, st = 0;
    int *stamp = calloc((size_t)nn + 1, sizeof *stamp), *par = malloc(((size_t)nn + 1) * sizeof *par);
    double *dist = malloc(((size_t)nn + 1) * sizeof *dist);
    char *seen = calloc((size_t)nn + 2, 1);
    if (!stamp || !par || !dist || !seen)
        st = -1;
    for (int v = G; !st && v != S; v = parent[v]) {
        int u = parent[v];
        if (hop[v]) {
            q->hs->tiles_refined++;
            st = refine(q, q->h->node_tile[v], u, v, stamp, ++cur, dist, par, &rev, &n, &cap);
        } else if (n == cap) {
            int *p = realloc(rev, (size_t)(cap = 2 * cap + 16) * sizeof *p);
            if (!p)
                st = -1;
            else
                rev = p, rev[n++] = v;
        } else {
            rev[n++] = v;
        }
    }
    if (!st) { /* rev: G ... first node; the chain S -> rev[n-1] -> ... -> G */
        int prev = S, *seq = par, m = 0;
        for (int k = n - 1; k >= 0; k--) {
            int v = rev[k];
            if (seen[v]) /* back to v's first visit */
                while (m > 0 && seq[m - 1] != v)
                    seen[seq[--m]] = 0;
            else
                seen[v] = 1, seq[m++] = v;
        }
        for (int k = 0; k < m; k++)
            parent[seq[k]] = prev, prev = seq[k];
    }
    free(stamp);
    free(par);
    free(dist);
    free(seen);
    free(rev);
    if (st && *q->need)
        return *q->need; /* prm_roadmap_need said which piece */
    return st ? trv_error(ctx, TRV_ERR_NOMEM, "out of memory (or an index that does not match the roadmap)")
              : TRV_OK;
}

trv_status prm_hier_search(trv_ctx *ctx, const prm_hier *h, const prm_roadmap *r, prm_strategy s,
                           const prm_weights *w, const int *snode, const double *sw, int ns, const int *gnode, int ng,
                           const double *to_goal, double direct, const double goal[3], double *g, int *parent,
                           char *closed, long *expanded, prm_hier_stats *hs)
{
    prm_hier_stats dummy;
    if (!hs)
        hs = &dummy;
    memset(hs, 0, sizeof *hs);
    hs->used = 1;
    const int S = r->nnodes, G = r->nnodes + 1;
    char *full = calloc((size_t)h->ntiles + 1, 1), *hop = calloc((size_t)r->nnodes + 2, 1);
    trv_heap hp = {0};
    trv_status need_st = TRV_OK;
    query q = {h, r, s, w, full, hs, goal, ctx, &need_st};
    int bad = !full || !hop;
    for (int k = 0; !bad && k < ns; k++)
        full[h->node_tile[snode[k]]] = 1;
    for (int k = 0; !bad && k < ng; k++)
        full[h->node_tile[gnode[k]]] = 1;
    for (int T = 0; !bad && T < h->ntiles; T++)
        hs->tiles_full += full[T];
    g[S] = 0;
    bad = bad || trv_heap_push(&hp, S, 0, 0);
    while (!bad && hp.n > 0) {
        int u = trv_heap_pop(&hp).id;
        if (closed[u])
            continue;
        closed[u] = 1;
        (*expanded)++;
        hs->abstract_expanded++;
        if (u == G)
            break;
        if (u == S) {
            for (int k = 0; !bad && k < ns; k++)
                bad = relax(&q, &hp, g, parent, hop, closed, S, snode[k], sw[k], 0);
            if (!bad && isfinite(direct))
                bad = relax(&q, &hp, g, parent, hop, closed, S, G, direct, 0);
            continue;
        }
        bad = expand(&q, &hp, g, parent, hop, closed, u) ||
              (!isnan(to_goal[u]) && relax(&q, &hp, g, parent, hop, closed, u, G, to_goal[u], 0));
    }
    trv_heap_free(&hp);
    trv_status st = bad ? need_st ? need_st : trv_error(ctx, TRV_ERR_NOMEM, "out of memory") : TRV_OK;
    if (!st && closed[G])
        st = unfold(ctx, &q, S, G, parent, hop);
    free(full);
    free(hop);
    return st;
}
