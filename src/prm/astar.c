/* The improved A* on the roadmap (docs/method.md §4.5-4.7, §4.10) and route statistics. */
#include "prm_priv.h"
#include "nearest.h"
#include "hier.h"
#include "zones.h"

#include "core/heap.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void prm_path_clear(prm_path *p)
{
    free(p->x);
    free(p->y);
    memset(p, 0, sizeof *p);
}

/* ---- endpoints ---- */

static const char *nogo_reason(const prm_terrain *t, long c)
{
    static const char *const why[6] = {"GO", "slope", "soil strength", "land use", "traction", "no data"};
    int g = t->gonogo->u8[prm_at(t, c)];
    return g < 6 ? why[g] : "class NOGO";
}

static trv_status check_end(trv_ctx *ctx, const prm_terrain *t, const char *which, double x, double y)
{
    long c = prm_cell_at(t, x, y);
    if (c < 0)
        return trv_error(ctx, TRV_ERR_DATA, "the %s (%.1f, %.1f) is outside the map", which, x, y);
    if (!prm_cell_go(t, c))
        return trv_error(ctx, TRV_ERR_DATA, "the %s (%.1f, %.1f) is in NOGO (%s)", which, x, y,
                         t->gonogo->u8[prm_at(t, c)] ? nogo_reason(t, c) : "class NOGO");
    return TRV_OK;
}

/* An extra node's edges: to every roadmap node among the k nearest (a
 * wider circle if none can be reached in a straight line); when none of
 * the 4 k is, one leg along the raster (prm_raster_leg) to the nearest
 * node of the end's GO region, its vertices in lx, ly (from the end to
 * the node) and its pieces summed in p. */
typedef prm_link link; /* prm_priv.h */

static void free_links(link *l, int n)
{
    for (int q = 0; l && q < n; q++) {
        free(l[q].lx);
        free(l[q].ly);
    }
    free(l);
}

/* The pieces of a polyline measured one by one and summed (the objectives
 * are sums over the cells crossed; slope_max the largest). */
static void measure_polyline(const prm_terrain *t, const double *x, const double *y, int n, prm_piece *sum)
{
    memset(sum, 0, sizeof *sum);
    for (int i = 0; i + 1 < n; i++) {
        prm_piece p;
        prm_piece_measure(t, x[i], y[i], x[i + 1], y[i + 1], &p);
        sum->d += p.d, sum->l += p.l, sum->h += p.h, sum->s += p.s, sum->nogo += p.nogo;
        sum->blocked |= p.blocked;
        sum->slope_int += p.slope_int, sum->time_s += p.time_s, sum->time_rev_s += p.time_rev_s;
        sum->cost_int += p.cost_int, sum->elev_int += p.elev_int;
        if (p.slope_max > sum->slope_max)
            sum->slope_max = p.slope_max;
    }
}

static trv_status raster_link(trv_ctx *ctx, const prm_terrain *t, const prm_roadmap *r, const char *which, double x,
                              double y, int k, link *l)
{
    int node;
    trv_status st = prm_raster_leg(ctx, t, r, x, y, &node, &l->lx, &l->ly, &l->ln);
    if (st)
        return st;
    if (node < 0)
        return trv_error(ctx, TRV_ERR_DATA,
                         "the %s (%.1f, %.1f) has no connection to the roadmap: no straight line to its %d nearest "
                         "nodes avoids NOGO and its GO region holds no node (a roadmap built before every region got "
                         "one: build it again)",
                         which, x, y, 4 * k);
    l->node = node;
    measure_polyline(t, l->lx, l->ly, l->ln, &l->p);
    if (l->p.blocked) /* only the zones block a raster leg */
        return trv_error(ctx, TRV_ERR_DATA, "the %s (%.1f, %.1f) has no connection to the roadmap across the zones",
                         which, x, y);
    return TRV_OK;
}

static trv_status connect_end(trv_ctx *ctx, const prm_terrain *t, const prm_roadmap *r, const char *which, double x,
                              double y, int k, link **out, int *nout)
{
    *out = NULL;
    *nout = 0;
    prm_near_grid ng;
    int *order = malloc(((size_t)4 * k + 1) * sizeof *order), m = -1;
    link *l = calloc((size_t)(4 * k + 1), sizeof *l);
    /* the 4 k nearest in order of (distance, id): as sorting every node (nearest.h) */
    if (order && l && !prm_near_grid_build(ctx, r->x, r->y, r->nnodes, &ng)) {
        m = prm_near_k(&ng, r->x, r->y, x, y, 4 * k, order);
        prm_near_grid_clear(&ng);
    }
    if (m < 0) {
        free(order);
        free(l);
        return trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
    }
    int n = 0;
    /* the k nearest, then up to 4 k if none of those is visible */
    for (int q = 0; q < m; q++) {
        if (q >= k && n > 0)
            break;
        prm_piece p;
        prm_piece_measure(t, x, y, r->x[order[q]], r->y[order[q]], &p);
        if (!p.blocked)
            l[n++] = (link){order[q], p, NULL, NULL, 0};
    }
    free(order);
    trv_status st = TRV_OK;
    if (n == 0 && !(st = raster_link(ctx, t, r, which, x, y, k, &l[0])))
        n = 1;
    if (st) {
        free_links(l, 1);
        return st;
    }
    *out = l;
    *nout = n;
    return TRV_OK;
}

int *prm_components(const prm_roadmap *r, const unsigned char *off)
{
    int *root = malloc(((size_t)r->nnodes + 1) * sizeof *root);
    if (!root)
        return NULL;
    for (int i = 0; i < r->nnodes; i++)
        root[i] = i;
    for (int e = 0; e < r->nedges; e++)
        if (!off || !off[e])
            root[prm_uf_find(root, r->edges[e].a)] = prm_uf_find(root, r->edges[e].b);
    for (int i = 0; i < r->nnodes; i++)
        root[i] = prm_uf_find(root, i);
    return root;
}

/* 1 if some start link and some goal link reach nodes of one component. */
static int ends_joined(const int *root, const link *ls, int ns, const link *lg, int ng)
{
    for (int i = 0; i < ns; i++)
        for (int j = 0; j < ng; j++)
            if (root[ls[i].node] == root[lg[j].node])
                return 1;
    return 0;
}

/* ---- path shortcutting ---- */

/* Greedy shortcutting, a classic PRM post-process: from each vertex, jump
 * to the farthest of the next SHORTCUT_AHEAD vertices whose straight piece
 * avoids NOGO and weighs no more than the path it replaces, under the
 * route's own objective. The objective can only fall; the route stays
 * NOGO-free. The look-ahead bound keeps it O(n) pieces (a corridor route
 * has thousands of vertices). */
enum { SHORTCUT_AHEAD = 32 };
static trv_status shortcut(trv_ctx *ctx, const prm_terrain *t, prm_path *p, prm_strategy s, const prm_weights *w)
{
    int n = p->n;
    if (n < 3)
        return TRV_OK;
    double *cum = malloc((size_t)n * sizeof *cum); /* the objective along the path */
    int *keep = malloc((size_t)n * sizeof *keep);
    if (!cum || !keep) {
        free(cum);
        free(keep);
        return trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
    }
    cum[0] = 0;
    for (int i = 1; i < n; i++) {
        prm_piece pc;
        prm_piece_measure(t, p->x[i - 1], p->y[i - 1], p->x[i], p->y[i], &pc);
        cum[i] = cum[i - 1] + prm_piece_weight(&pc, s, w);
    }
    int m = 0;
    double total = 0;
    for (int i = 0; i < n - 1;) {
        keep[m++] = i;
        int next = i + 1;
        double wnext = cum[i + 1] - cum[i];
        for (int j = i + SHORTCUT_AHEAD < n - 1 ? i + SHORTCUT_AHEAD : n - 1; j > i + 1; j--) {
            prm_piece pc; /* a blocked one (most of the far ones) walked only to its first NOGO cell */
            prm_edge_measure(t, p->x[i], p->y[i], p->x[j], p->y[j], &pc);
            double wd = prm_piece_weight(&pc, s, w);
            if (!pc.blocked && wd <= cum[j] - cum[i]) {
                next = j;
                wnext = wd;
                break;
            }
        }
        total += wnext;
        i = next;
    }
    keep[m++] = n - 1;
    for (int k = 0; k < m; k++) {
        p->x[k] = p->x[keep[k]];
        p->y[k] = p->y[keep[k]];
    }
    p->n = m;
    p->objective = total;
    free(cum);
    free(keep);
    return TRV_OK;
}

/* ---- A* ---- */

typedef struct astar {
    const prm_terrain *t;
    const prm_roadmap *r;
    prm_strategy s;
    const prm_weights *w;
    int admissible;
    double gx, gy;
    double *hcache;         /* NAN until computed */
    unsigned char *codes;   /* prm_class_codes, for the inadmissible mmcr heuristic only */
} astar;

/* The straight-line distance (m) from (x, y) to the goal. */
static double to_goal_m(const astar *A, double x, double y)
{
    return hypot(A->gx - x, A->gy - y) * A->t->cell_m / A->t->grid->gt[1];
}

/* The paper's mmcr heuristic: barrier (NOGO, low- and high-risk length),
 * distance and safe length along the straight piece to the goal, from its
 * class lengths c (prm_piece_classes) and its length dm. */
static double mmcr_paper(const astar *A, const double c[PRM_CLASS_LEN], double dm)
{
    return A->w->kb * (c[PRM_CL_NOGO] + c[PRM_CL_LOW] + c[PRM_CL_HIGH]) + A->w->kd * dm + A->w->ks * c[PRM_CL_SAFE];
}

static double heuristic(astar *A, int node, double x, double y)
{
    if (!isnan(A->hcache[node]))
        return A->hcache[node];
    double dm = to_goal_m(A, x, y), h = 0;
    switch (A->s) {
    case PRM_MMCR:
        if (A->admissible) {
            h = A->w->kd * dm;
        } else {
            double c[PRM_CLASS_LEN];
            prm_piece_classes(A->t, A->codes, x, y, A->gx, A->gy, c);
            h = mmcr_paper(A, c, dm);
        }
        break;
    case PRM_MDR: h = dm; break;
    case PRM_MSR: h = 1e-3 * dm; break; /* the tie-breaking distance term: admissible */
    case PRM_TIME: h = A->t->top_speed_kmh > 0 ? dm / (A->t->top_speed_kmh / 3.6) : 0; break;
    }
    return A->hcache[node] = h;
}

/* The weight of a piece travelled backwards (from its second end to its
 * first): only the time differs. */
static double weight_back(const prm_piece *p, prm_strategy s, const prm_weights *w)
{
    return s == PRM_TIME ? p->time_rev_s : prm_piece_weight(p, s, w);
}

/* The searched graph: the roadmap, with the start S and the goal G as
 * extra nodes. */
typedef struct graph {
    const prm_roadmap *r;
    prm_strategy s;
    const prm_weights *w;
    int S, G;
    const link *ls;         /* the start's links (ns of them) */
    int ns;
    double *to_goal;        /* per roadmap node: its link's weight into G, NAN for none */
    prm_piece direct;       /* the straight start-goal piece, an edge when unblocked */
    const prm_zone_edges *ze; /* the zones' edge mask and weights (zones.h), NULL without zones */
} graph;

/* u's neighbours: the start's links and the direct line; a roadmap node's
 * edges and its goal link. */
static int degree(const graph *gr, int u)
{
    return u == gr->S ? gr->ns + 1 : gr->r->adj_start[u + 1] - gr->r->adj_start[u] + 1;
}

/* The q-th of the nn neighbours of u, and the edge's weight; 0 when that
 * edge does not exist (a blocked direct line, no goal link). */
static int neighbour(const graph *gr, int u, int q, int nn, int *v, double *wt)
{
    const prm_roadmap *r = gr->r;
    if (u == gr->S) {
        if (q == gr->ns) {
            if (gr->direct.blocked)
                return 0;
            *v = gr->G;
            *wt = prm_piece_weight(&gr->direct, gr->s, gr->w);
        } else {
            *v = gr->ls[q].node;
            *wt = prm_piece_weight(&gr->ls[q].p, gr->s, gr->w);
        }
        return 1;
    }
    if (q == nn - 1) {
        if (isnan(gr->to_goal[u]))
            return 0;
        *v = gr->G;
        *wt = gr->to_goal[u];
        return 1;
    }
    int ei = r->adj[r->adj_start[u] + q];
    const prm_edge *e = &r->edges[ei];
    if (gr->ze && gr->ze->off[ei])
        return 0;
    const prm_piece *p = gr->ze ? prm_zone_edge_piece(gr->ze, r, ei, gr->s) : &e->p;
    *v = e->a == u ? e->b : e->a;
    *wt = e->a == u ? prm_piece_weight(p, gr->s, gr->w) : weight_back(p, gr->s, gr->w); /* measured a to b */
    return 1;
}

/* A* from S until G is closed or the heap is empty: g, parent and closed
 * (N = nnodes + 2 each) receive the search; *expanded counts closed nodes. */
static trv_status search(trv_ctx *ctx, const graph *gr, astar *A, double sx, double sy, double *g, int *parent,
                         char *closed, long *expanded)
{
    const prm_roadmap *r = gr->r;
    const int S = gr->S, G = gr->G;
    trv_heap h = {0}; /* lazy deletion: (f, node), ties to the lower node */
    trv_status st = TRV_OK;
    g[S] = 0;
    if (trv_heap_push(&h, S, heuristic(A, S, sx, sy), 0))
        return trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
    while (h.n > 0 && !st) {
        int u = trv_heap_pop(&h).id;
        if (closed[u])
            continue;
        closed[u] = 1;
        (*expanded)++;
        if (u == G)
            break;
        if (u != S && (st = prm_roadmap_need(ctx, r, u))) /* its piece of a cache's roadmap, checked */
            break;
        int nn = degree(gr, u);
        for (int q = 0; q < nn; q++) {
            int v;
            double wt;
            if (!neighbour(gr, u, q, nn, &v, &wt) || closed[v] || !(g[u] + wt < g[v]))
                continue;
            g[v] = g[u] + wt;
            parent[v] = u;
            double vx = v == G ? A->gx : r->x[v], vy = v == G ? A->gy : r->y[v];
            if (trv_heap_push(&h, v, g[v] + (v == G ? 0 : heuristic(A, v, vx, vy)), 0)) {
                st = trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
                break;
            }
        }
    }
    trv_heap_free(&h);
    return st;
}

/* The link of an end to node v (its raster leg, if any). */
static const link *link_to(const link *l, int n, int v)
{
    for (int q = 0; q < n; q++)
        if (l[q].node == v)
            return &l[q];
    return NULL;
}

/* The path from S to G through parent, the ends at their exact points, a
 * raster leg's vertices between an end and its node. */
static trv_status trace(trv_ctx *ctx, const graph *gr, const link *lg, int ng, const int *parent, double sx, double sy,
                        double gx, double gy, prm_path *out)
{
    const prm_roadmap *r = gr->r;
    const int S = gr->S, G = gr->G;
    int nv = 0;
    for (int v = G; v >= 0; v = parent[v])
        nv++;
    int first = nv > 2 ? parent[G] : -1, *seq = malloc((size_t)nv * sizeof *seq); /* S, nodes..., G */
    const link *la = NULL, *lb = NULL;
    if (!seq)
        return trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
    for (int v = G, i = nv - 1; v >= 0; v = parent[v], i--)
        seq[i] = v;
    if (nv > 2) {
        la = link_to(gr->ls, gr->ns, seq[1]);
        lb = link_to(lg, ng, first);
    }
    int extra = (la && la->lx ? la->ln - 2 : 0) + (lb && lb->lx ? lb->ln - 2 : 0);
    out->x = malloc((size_t)(nv + extra) * sizeof *out->x);
    out->y = malloc((size_t)(nv + extra) * sizeof *out->y);
    if (!out->x || !out->y) {
        free(seq);
        return trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
    }
    int n = 0;
    for (int i = 0; i < nv; i++) {
        int v = seq[i];
        if (v == G && lb && lb->lx) /* the goal's leg runs from the goal: backwards */
            for (int q = lb->ln - 2; q >= 1; q--)
                out->x[n] = lb->lx[q], out->y[n++] = lb->ly[q];
        out->x[n] = v == S ? sx : v == G ? gx : r->x[v];
        out->y[n++] = v == S ? sy : v == G ? gy : r->y[v];
        if (v == S && la && la->lx)
            for (int q = 1; q <= la->ln - 2; q++)
                out->x[n] = la->lx[q], out->y[n++] = la->ly[q];
    }
    out->n = n;
    free(seq);
    return TRV_OK;
}

/* No search can succeed when the nodes the ends link to lie in different
 * components of the roadmap (off: edges the zones take out, NULL: none):
 * TRV_ERR_DATA saying so, at once. */
static trv_status check_joined(trv_ctx *ctx, const prm_roadmap *r, const int *known, const unsigned char *off,
                               const link *ls, int ns, const link *lg, int ng, double sx, double sy, double gx,
                               double gy)
{
    if (!known && !off)
        known = r->comp; /* the cache's labels */
    trv_status st = known ? TRV_OK : prm_roadmap_need_all(ctx, r);
    if (st)
        return st;
    int *root = known ? NULL : prm_components(r, off); /* known: the index's or the cache's, without zones */
    if (!known && !root)
        return trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
    int joined = ends_joined(known ? known : root, ls, ns, lg, ng);
    free(root);
    if (!joined)
        return trv_error(ctx, TRV_ERR_DATA,
                         "the goal (%.1f, %.1f) is not reachable from the start (%.1f, %.1f) on the roadmap: the "
                         "nodes they join lie in different components of it",
                         gx, gy, sx, sy);
    return TRV_OK;
}

trv_status prm_route(trv_ctx *ctx, const prm_terrain *t, const prm_roadmap *r, double sx, double sy, double gx,
                     double gy, prm_strategy s, const prm_weights *w, int admissible, prm_path *out)
{
    return prm_route_hier(ctx, t, r, NULL, NULL, sx, sy, gx, gy, s, w, admissible, out);
}

/* The search on the hierarchical index (hier.h): the ends' links as
 * arrays. */
static trv_status search_hier(trv_ctx *ctx, const prm_hier *h, const graph *gr, const astar *A, const link *lg, int ng,
                              double *g, int *parent, char *closed, long *expanded, prm_hier_stats *hs)
{
    int *sn = malloc(((size_t)gr->ns + 1) * sizeof *sn), *gn = malloc(((size_t)ng + 1) * sizeof *gn);
    double *sw = malloc(((size_t)gr->ns + 1) * sizeof *sw);
    trv_status st = TRV_OK;
    if (!sn || !gn || !sw)
        st = trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
    for (int q = 0; !st && q < gr->ns; q++)
        sn[q] = gr->ls[q].node, sw[q] = prm_piece_weight(&gr->ls[q].p, gr->s, gr->w);
    for (int q = 0; !st && q < ng; q++)
        gn[q] = lg[q].node;
    double direct = gr->direct.blocked ? INFINITY : prm_piece_weight(&gr->direct, gr->s, gr->w);
    /* heuristic(): the weight per metre of the straight line, times metres per map unit */
    const prm_terrain *t = A->t;
    double per_m = gr->s == PRM_MMCR ? gr->w->kd : gr->s == PRM_MDR ? 1 : gr->s == PRM_MSR ? 1e-3
                 : t->top_speed_kmh > 0 ? 1 / (t->top_speed_kmh / 3.6) : 0;
    const double goal[3] = {A->gx, A->gy, per_m * t->cell_m / t->grid->gt[1]};
    if (!st)
        st = prm_hier_search(ctx, h, gr->r, gr->s, gr->w, sn, sw, gr->ns, gn, ng, gr->to_goal, direct, goal, g,
                             parent, closed, expanded, hs);
    free(sn);
    free(gn);
    free(sw);
    return st;
}

static void flat_reads(const prm_roadmap *r, const char *closed, int components, prm_hier_stats *hs)
{
    hs->edges_read = components ? r->nedges : 0;
    for (int i = 0; i < r->nnodes; i++)
        if (closed[i])
            hs->edges_read += r->adj_start[i + 1] - r->adj_start[i];
}

trv_status prm_route_hier(trv_ctx *ctx, const prm_terrain *t, const prm_roadmap *r, const prm_hier *h,
                          prm_hier_stats *hs, double sx, double sy, double gx, double gy, prm_strategy s,
                          const prm_weights *w, int admissible, prm_path *out)
{
    if (hs)
        memset(hs, 0, sizeof *hs);
    memset(out, 0, sizeof *out);
    prm_weights wdef;
    if (!w) { /* NULL: the default weights */
        prm_weights_default(&wdef);
        w = &wdef;
    }
    trv_status st;
    if ((st = check_end(ctx, t, "start", sx, sy)) || (st = check_end(ctx, t, "goal", gx, gy)))
        return st;
    int k = r->k > 0 ? r->k : 10;
    link *ls = NULL, *lg = NULL;
    int ns = 0, ng = 0;
    if ((st = connect_end(ctx, t, r, "start", sx, sy, k, &ls, &ns)) ||
        (st = connect_end(ctx, t, r, "goal", gx, gy, k, &lg, &ng))) {
        free_links(ls, ns);
        return st;
    }
    int N = r->nnodes + 2;
    graph gr = {r, s, w, r->nnodes, r->nnodes + 1, ls, ns, NULL, {0}, NULL};
    prm_zone_edges ze = {0}; /* built here only when the query has none that fits (zones.h) */
    if (t->zones && (st = prm_zone_edges_get(ctx, t, r, s, &ze, &gr.ze))) {
        free_links(ls, ns);
        free_links(lg, ng);
        return st;
    }
    double *g = malloc((size_t)N * sizeof *g), *hc = malloc((size_t)N * sizeof *hc);
    astar A = {t, r, s, w, admissible, gx, gy, hc, NULL};
    int *parent = malloc((size_t)N * sizeof *parent);
    char *closed = calloc((size_t)N, 1);
    gr.to_goal = malloc((size_t)r->nnodes * sizeof *gr.to_goal);
    if (!g || !hc || !parent || !closed || !gr.to_goal) {
        st = trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
        goto done;
    }
    for (int i = 0; i < N; i++) {
        g[i] = INFINITY;
        hc[i] = NAN;
        parent[i] = -1;
    }
    /* goal links by roadmap node, for relaxing into G */
    for (int i = 0; i < r->nnodes; i++)
        gr.to_goal[i] = NAN;
    for (int q = 0; q < ng; q++) /* measured from the goal: travelled backwards */
        gr.to_goal[lg[q].node] = weight_back(&lg[q].p, s, w);
    /* a direct line from start to goal, when it avoids NOGO (measured whole only then) */
    prm_piece_measure_classes(t, sx, sy, gx, gy, &gr.direct);
    if (!gr.direct.blocked)
        prm_piece_measure(t, sx, sy, gx, gy, &gr.direct);
    int hier = h && prm_hier_applies(s, w, admissible, gr.ze != NULL);
    if (hs)
        hs->used = hier;
    if (gr.direct.blocked && (st = check_joined(ctx, r, hier ? h->comp : NULL, gr.ze ? gr.ze->off : NULL, ls, ns, lg,
                                                ng, sx, sy, gx, gy)))
        goto done;
    if (s == PRM_MMCR && !admissible && !(A.codes = prm_class_codes(t))) {
        st = trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
        goto done;
    }
    if (hier ? (st = search_hier(ctx, h, &gr, &A, lg, ng, g, parent, closed, &out->expanded, hs))
             : (st = search(ctx, &gr, &A, sx, sy, g, parent, closed, &out->expanded)))
        goto done;
    free(A.codes); /* (at 1 m half a GB) given back before the shortcut reads its tiles */
    A.codes = NULL;
    if (hs && !hier) /* the flat search's reads: the components' pass, every closed node's edges */
        flat_reads(r, closed, gr.direct.blocked && !(r->comp && !gr.ze), hs); /* the cache's labels: no pass */
    if (!closed[gr.G]) {
        st = trv_error(ctx, TRV_ERR_DATA,
                       "the goal (%.1f, %.1f) is not reachable from the start (%.1f, %.1f) on the roadmap (%ld nodes "
                       "reached; try more --nodes)",
                       gx, gy, sx, sy, out->expanded);
        goto done;
    }
    if ((st = trace(ctx, &gr, lg, ng, parent, sx, sy, gx, gy, out)))
        goto done;
    out->objective = out->searched = g[gr.G];
    st = shortcut(ctx, t, out, s, w);
done:
    prm_zone_edges_clear(&ze);
    free(A.codes);
    free_links(ls, ns);
    free_links(lg, ng);
    free(g);
    free(hc);
    free(parent);
    free(closed);
    free(gr.to_goal);
    if (st)
        prm_path_clear(out);
    return st;
}

/* ---- corridor refinement ---- */

/* The corridor: every cell within r cells of samples half a cell apart
 * along the path (a square window around each: a band at least
 * halfwidth wide). With mask NULL, its bounding box into win (c0, r0, nx,
 * ny); else set mask's bytes (row-major on win) to 1 on it. */
void prm_path_band(const prm_terrain *t, const prm_path *path, int r, long win[4], unsigned char *mask)
{
    const geo_grid *g = t->grid;
    int nx = g->nx, ny = g->ny;
    long cmin = nx, cmax = -1, rmin = ny, rmax = -1;
    double mpu = t->cell_m / g->gt[1];
    for (int i = 0; i + 1 < path->n; i++) {
        double x0 = path->x[i], y0 = path->y[i], x1 = path->x[i + 1], y1 = path->y[i + 1];
        int ns = (int)ceil(hypot(x1 - x0, y1 - y0) * mpu / (0.5 * t->cell_m)) + 1;
        for (int k = 0; k <= ns; k++) {
            double f = (double)k / ns;
            int c = (int)floor((x0 + f * (x1 - x0) - g->gt[0]) / g->gt[1]);
            int rr = (int)floor((y0 + f * (y1 - y0) - g->gt[3]) / g->gt[5]);
            int r0 = rr - r < 0 ? 0 : rr - r, r1 = rr + r >= ny ? ny - 1 : rr + r;
            int c0 = c - r < 0 ? 0 : c - r, c1 = c + r >= nx ? nx - 1 : c + r;
            if (c0 > c1 || r0 > r1)
                continue;
            if (!mask) {
                cmin = c0 < cmin ? c0 : cmin, cmax = c1 > cmax ? c1 : cmax;
                rmin = r0 < rmin ? r0 : rmin, rmax = r1 > rmax ? r1 : rmax;
                continue;
            }
            for (int row = r0; row <= r1; row++)
                memset(mask + (size_t)(row - win[1]) * win[2] + (c0 - win[0]), 1, (size_t)(c1 - c0 + 1));
        }
    }
    if (!mask) {
        win[0] = cmin, win[1] = rmin, win[2] = cmax - cmin + 1, win[3] = rmax - rmin + 1;
    }
}

trv_status prm_refine(trv_ctx *ctx, const prm_terrain *t, prm_path *path, prm_strategy s, const prm_weights *w,
                      double halfwidth_m)
{
    prm_weights wdef;
    if (!w) {
        prm_weights_default(&wdef);
        w = &wdef;
    }
    const geo_grid *g = t->grid;
    int nx = g->nx, ny = g->ny;
    double rc = ceil(halfwidth_m / t->cell_m), rmax = nx > ny ? nx : ny; /* wider covers the grid: the same */
    int r = rc < rmax ? (int)rc : (int)rmax;
    /* the search on the corridor's bounding box alone: memory and set-up
     * for it, not for the grid (the same route: outside the mask is NOGO) */
    long win[4];
    prm_path_band(t, path, r, win, NULL);
    if (win[2] < 1 || win[3] < 1) /* no sample on the grid (degenerate input): nothing to refine */
        return TRV_OK;
    unsigned char *mask = calloc((size_t)win[2] * win[3], 1);
    if (!mask)
        return trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
    prm_path_band(t, path, r, win, mask);
    prm_path q;
    /* a lazy terrain: the corridor's tiles read first (the search reads the arrays itself) */
    trv_status st = prm_terrain_need_line(ctx, t, path->x, path->y, path->n, r + 1);
    if (st)
        free(mask);
    else /* the search's to free, once it has marked its cells */
        st = prm_route_grid_taking(ctx, t, win, mask, path->x[0], path->y[0], path->x[path->n - 1],
                                   path->y[path->n - 1], s, w, &q);
    if (st == TRV_ERR_NOMEM || st == TRV_ERR_CANCEL)
        return st;
    if (st) /* the corridor search failed: keep the roadmap route as it is */
        return TRV_OK;
    if ((st = shortcut(ctx, t, &q, s, w))) {
        prm_path_clear(&q);
        return st;
    }
    if (q.objective < path->objective) {
        q.expanded += path->expanded;
        prm_path_clear(path);
        *path = q;
    } else {
        prm_path_clear(&q);
    }
    return TRV_OK;
}

/* ---- statistics ---- */

typedef struct walk {
    const prm_terrain *t;
    double mpu; /* metres per map unit */
    prm_path_piece pc;
    prm_path_piece_fn fn;
    void *user;
} walk;

static int walk_cell(long i, double len, void *user)
{
    walk *w = user;
    const prm_terrain *t = w->t;
    if (len <= 0)
        return 0;
    prm_need(t, i, PRM_HAVE_ALL); /* a lazy terrain's tile */
    /* the speed in the direction of travel (isotropic: speed.tif's) */
    double v = t->aniso ? 3.6 / prm_pace(t, i, w->pc.ux, w->pc.uy) : t->speed->f32[prm_at(t, i)];
    w->pc.cell = i;
    w->pc.len = len;
    w->pc.speed_kmh = v;
    /* a speed-0 cell only grazed (a route file's rounding): no time */
    w->pc.time = v > 0 ? len / (v / 3.6) : len * w->mpu <= PRM_GRAZE_M ? 0 : INFINITY;
    w->fn(&w->pc, w->user);
    return 0;
}

void prm_path_pieces(const prm_terrain *t, const prm_path *p, prm_path_piece_fn fn, void *user)
{
    walk w = {t, t->cell_m / t->grid->gt[1], {0}, fn, user};
    for (int i = 0; i + 1 < p->n; i++) {
        double x0 = p->x[i], y0 = p->y[i], x1 = p->x[i + 1], y1 = p->y[i + 1];
        double dl = hypot(x1 - x0, y1 - y0);
        w.pc.seg = i;
        w.pc.ux = dl > 0 ? (x1 - x0) / dl : 0;
        w.pc.uy = dl > 0 ? (y1 - y0) / dl : 0;
        prm_segment_walk(t->grid, x0, y0, x1, y1, walk_cell, &w);
    }
}

typedef struct acc {
    const prm_terrain *t;
    double len, elev, slope, slope_max, speed, cost, time;
} acc;

static void acc_piece(const prm_path_piece *pc, void *user)
{
    acc *a = user;
    const prm_terrain *t = a->t;
    long i = prm_at(t, pc->cell);
    double len = pc->len;
    a->len += len;
    a->elev += len * t->dem->f32[i];
    a->slope += len * t->slope->f32[i];
    if (t->slope->f32[i] > a->slope_max)
        a->slope_max = t->slope->f32[i];
    a->speed += len * pc->speed_kmh;
    a->cost += len * t->cost->f32[i];
    a->time += pc->time;
}

void prm_path_stats(const prm_terrain *t, const prm_path *p, double step, prm_stats *out)
{
    memset(out, 0, sizeof *out);
    double mpu = t->cell_m / t->grid->gt[1];
    acc a = {t, 0, 0, 0, 0, 0, 0, 0};
    prm_path_pieces(t, p, acc_piece, &a);
    for (int i = 0; i + 1 < p->n; i++) {
        double x0 = p->x[i], y0 = p->y[i], x1 = p->x[i + 1], y1 = p->y[i + 1];
        if (t->zones) { /* factor and max_speed zones: time and cost (zones.h) */
            double dz[3];
            prm_zones_delta(t, x0, y0, x1, y1, dz);
            a.time += dz[0], a.cost += dz[2];
        }
        /* NOGO check on samples every `step` along the segment, ends included */
        double len = hypot(x1 - x0, y1 - y0) * mpu;
        int ns = (int)ceil(len / step);
        for (int k = 0; k <= ns; k++) {
            double f = ns ? (double)k / ns : 0;
            long c = prm_cell_at(t, x0 + f * (x1 - x0), y0 + f * (y1 - y0));
            if (c < 0 || !prm_cell_go(t, c))
                out->nogo_samples++;
        }
        out->distance_m += len;
    }
    if (a.len > 0) {
        out->elev_mean_m = a.elev / a.len;
        out->slope_mean_deg = a.slope / a.len;
        out->speed_mean_kmh = a.speed / a.len;
        out->cost_mean = a.cost / a.len;
    }
    out->slope_max_deg = a.slope_max;
    /* lengths from the walk are in map units */
    out->time_h = a.time * mpu / 3600.0;
}

/* ---- the ends' links, for the alternatives' graph (prm_priv.h) ---- */

trv_status prm_route_ends(trv_ctx *ctx, const prm_terrain *t, const prm_roadmap *r, const double xy[4], prm_link **ls,
                          int *ns, prm_link **lg, int *ng)
{
    *ls = *lg = NULL;
    *ns = *ng = 0;
    int k = r->k > 0 ? r->k : 10;
    trv_status st;
    if ((st = check_end(ctx, t, "start", xy[0], xy[1])) || (st = check_end(ctx, t, "goal", xy[2], xy[3])) ||
        (st = connect_end(ctx, t, r, "start", xy[0], xy[1], k, ls, ns)) ||
        (st = connect_end(ctx, t, r, "goal", xy[2], xy[3], k, lg, ng))) {
        free_links(*ls, *ns);
        *ls = NULL, *ns = 0;
    }
    return st;
}

void prm_links_free(prm_link *l, int n) { free_links(l, n); }
