/* Alternative routes on the roadmap (prm.h prm_alt_roadmap): the graph
 * prm_route searches as a prm_digraph, the via-node routes back into
 * paths with the ends' exact points and raster legs. */
#include "prm_priv.h"
#include "zones.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The weight of a piece travelled from its second end to its first (as
 * astar.c's: only the time differs). */
static double weight_back(const prm_piece *p, prm_strategy s, const prm_weights *w)
{
    return s == PRM_TIME ? p->time_rev_s : prm_piece_weight(p, s, w);
}

typedef struct ends {
    const prm_link *ls, *lg;
    int ns, ng;
    prm_piece direct;       /* the straight start-goal piece: an arc when unblocked */
    const prm_zone_edges *ze; /* the zones' edge mask (zones.h), NULL without zones */
} ends;

static void put_arc(prm_digraph *g, int *q, int v, double w, double len)
{
    g->to[*q] = v, g->w[*q] = w, g->len[*q] = len;
    (*q)++;
}

/* The arcs of roadmap node u: its edges, then its goal link (if any). */
static void node_arcs(prm_digraph *g, int *q, const prm_roadmap *r, const ends *e, int u, prm_strategy s,
                      const prm_weights *w)
{
    for (int j = r->adj_start[u]; j < r->adj_start[u + 1]; j++) {
        const prm_edge *ed = &r->edges[r->adj[j]];
        if (e->ze && e->ze->off[r->adj[j]]) /* blocked by the zones */
            continue;
        const prm_piece *p = e->ze ? prm_zone_edge_piece(e->ze, r, r->adj[j], s) : &ed->p;
        int fwd = ed->a == u; /* measured a to b */
        put_arc(g, q, fwd ? ed->b : ed->a, fwd ? prm_piece_weight(p, s, w) : weight_back(p, s, w), p->d);
    }
    for (int k = 0; k < e->ng; k++) /* measured from the goal: travelled backwards */
        if (e->lg[k].node == u)
            put_arc(g, q, r->nnodes + 1, weight_back(&e->lg[k].p, s, w), e->lg[k].p.d);
}

static int build_graph(prm_digraph *g, const prm_roadmap *r, const ends *e, prm_strategy s, const prm_weights *w)
{
    int n = r->nnodes + 2, m = 2 * r->nedges + e->ns + e->ng + 1;
    g->n = n;
    g->start = malloc(((size_t)n + 1) * sizeof *g->start);
    g->to = malloc((size_t)m * sizeof *g->to);
    g->w = malloc((size_t)m * sizeof *g->w);
    g->len = malloc((size_t)m * sizeof *g->len);
    if (!g->start || !g->to || !g->w || !g->len)
        return -1;
    int q = 0;
    for (int u = 0; u < r->nnodes; u++) {
        g->start[u] = q;
        node_arcs(g, &q, r, e, u, s, w);
    }
    g->start[r->nnodes] = q; /* S */
    for (int k = 0; k < e->ns; k++)
        put_arc(g, &q, e->ls[k].node, prm_piece_weight(&e->ls[k].p, s, w), e->ls[k].p.d);
    if (!e->direct.blocked)
        put_arc(g, &q, r->nnodes + 1, prm_piece_weight(&e->direct, s, w), e->direct.d);
    g->start[n - 1] = g->start[n] = q; /* G: none out */
    return 0;
}

static const prm_link *link_to(const prm_link *l, int n, int v)
{
    for (int q = 0; q < n; q++)
        if (l[q].node == v)
            return &l[q];
    return NULL;
}

/* Route R (S .. G) as a path: the ends at their exact points, a raster
 * leg's vertices between an end and its node. */
static int to_path(const prm_roadmap *r, const ends *e, const double xy[4], const prm_alt_route *R, prm_path *p)
{
    const int S = r->nnodes, G = r->nnodes + 1;
    const prm_link *la = R->n > 2 ? link_to(e->ls, e->ns, R->node[1]) : NULL;
    const prm_link *lb = R->n > 2 ? link_to(e->lg, e->ng, R->node[R->n - 2]) : NULL;
    int extra = (la && la->lx ? la->ln - 2 : 0) + (lb && lb->lx ? lb->ln - 2 : 0), n = 0;
    memset(p, 0, sizeof *p);
    p->x = malloc((size_t)(R->n + extra) * sizeof *p->x);
    p->y = malloc((size_t)(R->n + extra) * sizeof *p->y);
    if (!p->x || !p->y)
        return -1;
    for (int i = 0; i < R->n; i++) {
        int v = R->node[i];
        if (v == G && lb && lb->lx) /* the goal's leg runs from the goal: backwards */
            for (int q = lb->ln - 2; q >= 1; q--)
                p->x[n] = lb->lx[q], p->y[n++] = lb->ly[q];
        p->x[n] = v == S ? xy[0] : v == G ? xy[2] : r->x[v];
        p->y[n++] = v == S ? xy[1] : v == G ? xy[3] : r->y[v];
        if (v == S && la && la->lx)
            for (int q = 1; q <= la->ln - 2; q++)
                p->x[n] = la->lx[q], p->y[n++] = la->ly[q];
    }
    p->n = n;
    p->objective = R->objective;
    return 0;
}

trv_status prm_alt_roadmap(trv_ctx *ctx, const prm_terrain *t, const prm_roadmap *r, const double xy[4],
                           prm_strategy s, const prm_weights *w, const prm_alt_opts *o, prm_path paths[PRM_ALT_MAX],
                           prm_alt_set *a)
{
    prm_weights wdef;
    if (!w) { /* NULL: the default weights, as prm_route */
        prm_weights_default(&wdef);
        w = &wdef;
    }
    memset(a, 0, sizeof *a);
    memset(paths, 0, PRM_ALT_MAX * sizeof *paths);
    trv_status need = prm_roadmap_need_all(ctx, r); /* its graph is the whole roadmap */
    if (need)
        return need;
    prm_link *ls = NULL, *lg = NULL;
    ends e = {NULL, NULL, 0, 0, {0}, NULL};
    prm_digraph g = {0};
    prm_zone_edges own = {0}; /* the query's mask when it fits, else built here (zones.h) */
    trv_status st = prm_route_ends(ctx, t, r, xy, &ls, &e.ns, &lg, &e.ng);
    if (!st && t->zones && (st = prm_zone_edges_get(ctx, t, r, s, &own, &e.ze)))
        prm_links_free(ls, e.ns), prm_links_free(lg, e.ng);
    if (st)
        return st;
    e.ls = ls, e.lg = lg;
    prm_piece_measure_classes(t, xy[0], xy[1], xy[2], xy[3], &e.direct); /* as prm_route: whole only when free */
    if (!e.direct.blocked)
        prm_piece_measure(t, xy[0], xy[1], xy[2], xy[3], &e.direct);
    if (build_graph(&g, r, &e, s, w))
        st = trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
    if (!st && (st = prm_alternatives(ctx, &g, r->nnodes, r->nnodes + 1, o, a)) == TRV_ERR_DATA)
        trv_error(ctx, st, "the goal is not reachable from the start on the roadmap");
    for (int k = 0; k < a->n && !st; k++)
        if (to_path(r, &e, xy, &a->r[k], &paths[k]))
            st = trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
    if (st) {
        for (int k = 0; k < a->n; k++)
            prm_path_clear(&paths[k]);
        prm_alt_set_clear(a);
    }
    prm_digraph_clear(&g);
    prm_zone_edges_clear(&own);
    prm_links_free(ls, e.ns);
    prm_links_free(lg, e.ng);
    return st;
}
