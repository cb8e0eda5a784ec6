/* The leg matrix between many points over the roadmap (prm.h
 * prm_route_matrix): the graph prm_route searches with every point linked
 * as an end, one Dijkstra per source point (on the cores), no route through
 * a third point. */
#include "prm_priv.h"
#include "roadmap_pieces.h"

#include "core/heap.h"

#include <stdlib.h>
#include <string.h>

typedef struct graph {
    int n, npts, nodes;     /* n = nodes + npts */
    int *start, *to;
    double *w;
} graph;

static double weight_back(const prm_piece *p, prm_strategy s, const prm_weights *w)
{
    return s == PRM_TIME ? p->time_rev_s : prm_piece_weight(p, s, w);
}

typedef struct arcs {
    int *from, *to;
    double *w;
    size_t n, cap;
} arcs;

static int arc(arcs *A, int u, int v, double w)
{
    if (!isfinite(w))
        return 0;
    if (A->n == A->cap) {
        size_t c = A->cap ? 2 * A->cap : 4096;
        int *f = realloc(A->from, c * sizeof *f), *t = f ? realloc(A->to, c * sizeof *t) : NULL;
        double *ww = t ? realloc(A->w, c * sizeof *ww) : NULL;
        if (f)
            A->from = f;
        if (t)
            A->to = t;
        if (!ww)
            return -1;
        A->w = ww, A->cap = c;
    }
    A->from[A->n] = u, A->to[A->n] = v, A->w[A->n++] = w;
    return 0;
}

/* Every arc: the roadmap's edges both ways, each point's links (to its
 * nodes and back), the direct pieces between points when unblocked. */
static trv_status collect(trv_ctx *ctx, const prm_terrain *t, const prm_roadmap *r, int n, const double *xy,
                          prm_strategy s, const prm_weights *w, arcs *A, int *bad)
{
    int e = 0;
    trv_status need = prm_roadmap_need_all(ctx, r); /* every edge */
    if (need)
        return need;
    /* in the GeoPackage's order: a cache's renumbered edges by their first ends' adjacency (it lists
     * them in that order; the GeoPackage's are in order of (a, b): roadmap_pieces.h) */
    int walk = r->map && r->map->renumbered;
    for (int u = 0, j = 0, q = 0; walk ? u < r->nnodes : q < r->nedges;) {
        if (walk && j == r->adj_start[u + 1]) {
            u++;
            continue;
        }
        const prm_edge *ed = &r->edges[walk ? r->adj[j++] : q++];
        if (walk && ed->a != u)
            continue;
        e |= arc(A, ed->a, ed->b, prm_piece_weight(&ed->p, s, w));
        e |= arc(A, ed->b, ed->a, weight_back(&ed->p, s, w));
    }
    trv_status st = TRV_OK;
    for (int i = 0; i < n && !st && !e; i++) {
        const double p4[4] = {xy[2 * i], xy[2 * i + 1], xy[2 * i], xy[2 * i + 1]};
        prm_link *ls = NULL, *lg = NULL;
        int ns = 0, ng = 0;
        if ((st = prm_route_ends(ctx, t, r, p4, &ls, &ns, &lg, &ng))) {
            *bad = i;
            break;
        }
        for (int q = 0; q < ns; q++) { /* measured from the point to the node */
            e |= arc(A, r->nnodes + i, ls[q].node, prm_piece_weight(&ls[q].p, s, w));
            e |= arc(A, ls[q].node, r->nnodes + i, weight_back(&ls[q].p, s, w));
        }
        prm_links_free(ls, ns);
        prm_links_free(lg, ng);
        for (int j = 0; j < n && !e; j++) {
            prm_piece p;
            if (j == i)
                continue;
            prm_piece_measure_classes(t, xy[2 * i], xy[2 * i + 1], xy[2 * j], xy[2 * j + 1], &p);
            if (p.blocked)
                continue;
            prm_piece_measure(t, xy[2 * i], xy[2 * i + 1], xy[2 * j], xy[2 * j + 1], &p);
            if (!p.blocked)
                e |= arc(A, r->nnodes + i, r->nnodes + j, prm_piece_weight(&p, s, w));
        }
    }
    return !st && e ? trv_error(ctx, TRV_ERR_NOMEM, "out of memory") : st;
}

/* CSR of the arcs (counting sort by tail). */
static int to_csr(const arcs *A, graph *g)
{
    g->start = calloc((size_t)g->n + 1, sizeof *g->start);
    g->to = malloc((A->n ? A->n : 1) * sizeof *g->to);
    g->w = malloc((A->n ? A->n : 1) * sizeof *g->w);
    if (!g->start || !g->to || !g->w)
        return -1;
    for (size_t q = 0; q < A->n; q++)
        g->start[A->from[q] + 1]++;
    for (int u = 0; u < g->n; u++)
        g->start[u + 1] += g->start[u];
    int *fill = malloc(((size_t)g->n + 1) * sizeof *fill);
    if (!fill)
        return -1;
    memcpy(fill, g->start, ((size_t)g->n + 1) * sizeof *fill);
    for (size_t q = 0; q < A->n; q++) {
        int k = fill[A->from[q]]++;
        g->to[k] = A->to[q], g->w[k] = A->w[q];
    }
    free(fill);
    return 0;
}

typedef struct job {
    const graph *g;
    int first, step;        /* sources first, first + step, ... */
    double *c;              /* the matrix (rows of this job's sources) */
    int fail;
} job;

/* Dijkstra from point src; row src of c. Other points are ends only. */
static int dijkstra(const graph *g, int src, double *dist, double *row)
{
    trv_heap h = {0};
    for (int u = 0; u < g->n; u++)
        dist[u] = INFINITY;
    int s = g->nodes + src;
    dist[s] = 0;
    if (trv_heap_push(&h, s, 0, 0))
        return -1;
    while (h.n) {
        trv_heap_item it = trv_heap_pop(&h);
        int u = it.id;
        if (it.key > dist[u] || (u >= g->nodes && u != s))
            continue;
        for (int q = g->start[u]; q < g->start[u + 1]; q++) {
            double d = dist[u] + g->w[q];
            if (d < dist[g->to[q]]) {
                dist[g->to[q]] = d;
                if (trv_heap_push(&h, g->to[q], d, 0)) {
                    trv_heap_free(&h);
                    return -1;
                }
            }
        }
    }
    trv_heap_free(&h);
    for (int j = 0; j < g->npts; j++)
        row[j] = j == src ? 0 : dist[g->nodes + j];
    return 0;
}

static void *run_job(void *arg)
{
    job *J = arg;
    double *dist = malloc((size_t)J->g->n * sizeof *dist);
    J->fail = !dist;
    for (int i = J->first; i < J->g->npts && !J->fail; i += J->step)
        J->fail = dijkstra(J->g, i, dist, J->c + (size_t)i * J->g->npts) != 0;
    free(dist);
    return NULL;
}

trv_status prm_route_matrix(trv_ctx *ctx, const prm_terrain *t, const prm_roadmap *r, int n, const double *xy,
                            prm_strategy s, const prm_weights *w, double *c, int *bad)
{
    prm_weights wdef;
    if (!w) {
        prm_weights_default(&wdef);
        w = &wdef;
    }
    *bad = -1;
    arcs A = {0};
    graph g = {r->nnodes + n, n, r->nnodes, NULL, NULL, NULL};
    trv_status st = collect(ctx, t, r, n, xy, s, w, &A, bad);
    if (!st && to_csr(&A, &g))
        st = trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
    free(A.from), free(A.to), free(A.w);
    if (!st) {
        job jobs[PRM_MAX_THREADS];
        int nt = prm_cores() < n ? prm_cores() : n > 0 ? n : 1;
        for (int k = 0; k < nt; k++)
            jobs[k] = (job){&g, k, nt, c, 0};
        prm_on_cores(run_job, jobs, sizeof *jobs, nt);
        for (int k = 0; k < nt; k++)
            if (jobs[k].fail)
                st = trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
    }
    free(g.start), free(g.to), free(g.w);
    return st ? st : prm_terrain_status(ctx, t);
}
