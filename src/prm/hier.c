/* The hierarchical roadmap index: build, file (hier.h). */
#include "prm/hier.h"
#include "tiled.h"

#include "core/heap.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <string.h>

void prm_hier_free(prm_hier *h)
{
    if (!h)
        return;
    free(h->node_tile);
    free(h->comp);
    free(h->border_start);
    free(h->border);
    free(h->border_pos);
    free(h->mat_start);
    for (int s = 0; !h->mat_map && s < PRM_HIER_NSTRAT; s++)
        free(h->mat[s]);
    if (h->mat_map)
        munmap(h->mat_map, h->mat_map_len);
    free(h);
}

int prm_hier_tile(const prm_build_opts *o, const geo_grid *g) { return prm_build_tile(o, g); }

int prm_hier_tile_at(const prm_hier *h, double x, double y)
{
    double fx = floor((x - h->x0) / h->tw), fy = floor((y - h->y0) / h->th);
    int tx = fx < 0 ? 0 : fx >= h->ntx ? h->ntx - 1 : (int)fx;
    int ty = fy < 0 ? 0 : fy >= h->nty ? h->nty - 1 : (int)fy;
    return ty * h->ntx + tx;
}

uint64_t prm_hier_hash(const prm_roadmap *r)
{
    uint64_t hsh = 0xcbf29ce484222325ULL;
    for (int i = 0; i < r->nnodes; i++) {
        uint64_t a, b;
        memcpy(&a, &r->x[i], 8);
        memcpy(&b, &r->y[i], 8);
        hsh = ((hsh ^ a) * 0x100000001b3ULL ^ b) * 0x100000001b3ULL;
    }
    for (int e = 0; e < r->nedges; e++) {
        const prm_piece *p = &r->edges[e].p;
        const double wv[7] = {p->d, p->l, p->h, p->s, p->slope_int, p->time_s, p->time_rev_s}; /* the weights' */
        hsh = (hsh ^ ((uint64_t)(uint32_t)r->edges[e].a << 32 | (uint32_t)r->edges[e].b)) * 0x100000001b3ULL;
        for (int k = 0; k < 7; k++) {
            uint64_t v;
            memcpy(&v, &wv[k], 8);
            hsh = (hsh ^ v) * 0x100000001b3ULL;
        }
    }
    return hsh;
}

int prm_hier_applies(prm_strategy s, const prm_weights *w, int admissible, int zones)
{
    if (zones)
        return 0;
    if (s != PRM_MMCR)
        return 1;
    prm_weights d;
    prm_weights_default(&d);
    return admissible && (!w || (w->kb == d.kb && w->kh == d.kh && w->ks == d.ks && w->kd == d.kd));
}

/* The weight of edge e travelled from node u. */
static double edge_w(const prm_edge *e, int u, prm_strategy s, const prm_weights *w)
{
    if (s == PRM_TIME && e->b == u)
        return e->p.time_rev_s;
    return prm_piece_weight(&e->p, s, w);
}

/* Dijkstra from border node b of tile T through T's own edges: its matrix
 * row per strategy. dist: per node, INFINITY on entry and again on return. */
static trv_status row(trv_ctx *ctx, const prm_hier *h, const prm_roadmap *r, int T, int bi, prm_strategy s,
                      const prm_weights *w, double *dist, int *touched)
{
    int nb = h->border_start[T + 1] - h->border_start[T], b = h->border[h->border_start[T] + bi], nt = 0;
    trv_heap hp = {0};
    dist[b] = 0;
    touched[nt++] = b;
    if (trv_heap_push(&hp, b, 0, 0))
        return trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
    while (hp.n > 0) {
        trv_heap_item it = trv_heap_pop(&hp);
        int u = it.id;
        if (it.key > dist[u])
            continue;
        for (int j = r->adj_start[u]; j < r->adj_start[u + 1]; j++) {
            const prm_edge *e = &r->edges[r->adj[j]];
            int v = e->a == u ? e->b : e->a;
            if (h->node_tile[v] != T)
                continue;
            double nd = dist[u] + edge_w(e, u, s, w);
            if (!(nd < dist[v]))
                continue;
            if (isinf(dist[v]))
                touched[nt++] = v;
            dist[v] = nd;
            if (trv_heap_push(&hp, v, nd, 0)) {
                trv_heap_free(&hp);
                return trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
            }
        }
    }
    trv_heap_free(&hp);
    double *m = h->mat[s] + h->mat_start[T] + (long)bi * nb;
    for (int k = 0; k < nb; k++)
        m[k] = dist[h->border[h->border_start[T] + k]];
    for (int k = 0; k < nt; k++)
        dist[touched[k]] = INFINITY;
    return TRV_OK;
}

static trv_status matrices(trv_ctx *ctx, prm_hier *h, const prm_roadmap *r)
{
    prm_weights w;
    prm_weights_default(&w);
    double *dist = malloc(((size_t)r->nnodes + 1) * sizeof *dist);
    int *touched = malloc(((size_t)r->nnodes + 1) * sizeof *touched);
    trv_status st = TRV_OK;
    if (!dist || !touched)
        st = trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
    for (int i = 0; !st && i < r->nnodes; i++)
        dist[i] = INFINITY;
    for (int s = 0; !st && s < PRM_HIER_NSTRAT; s++) {
        if (!(h->mat[s] = malloc(((size_t)h->mat_start[h->ntiles] + 1) * sizeof *h->mat[s]))) {
            st = trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
            break;
        }
        for (int T = 0; !st && T < h->ntiles; T++)
            for (int bi = 0; !st && bi < h->border_start[T + 1] - h->border_start[T]; bi++)
                st = row(ctx, h, r, T, bi, (prm_strategy)s, &w, dist, touched);
    }
    free(dist);
    free(touched);
    return st;
}

/* Counts into CSR starts: start[k] = sum of count[< k]. */
static void starts(int *start, int n)
{
    int acc = 0;
    for (int k = 0; k <= n; k++) {
        int c = start[k];
        start[k] = acc;
        acc += c;
    }
}

static trv_status groups(trv_ctx *ctx, prm_hier *h, const prm_roadmap *r)
{
    int nt = h->ntiles;
    char *isb = calloc((size_t)r->nnodes + 1, 1);
    h->border_start = calloc((size_t)nt + 1, sizeof *h->border_start);
    h->border_pos = malloc(((size_t)r->nnodes + 1) * sizeof *h->border_pos);
    h->mat_start = calloc((size_t)nt + 1, sizeof *h->mat_start);
    if (!isb || !h->border_start || !h->border_pos || !h->mat_start) {
        free(isb);
        return trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
    }
    for (int e = 0; e < r->nedges; e++) {
        if (h->node_tile[r->edges[e].a] != h->node_tile[r->edges[e].b])
            isb[r->edges[e].a] = isb[r->edges[e].b] = 1;
    }
    for (int i = 0; i < r->nnodes; i++)
        h->border_start[h->node_tile[i]] += isb[i];
    starts(h->border_start, nt);
    h->border = malloc(((size_t)h->border_start[nt] + 1) * sizeof *h->border);
    int *fill = calloc((size_t)nt + 1, sizeof *fill);
    if (!h->border || !fill) {
        free(isb);
        free(fill);
        return trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
    }
    for (int i = 0; i < r->nnodes; i++) { /* ascending per tile */
        int T = h->node_tile[i];
        h->border_pos[i] = isb[i] ? fill[T] : -1;
        if (isb[i])
            h->border[h->border_start[T] + fill[T]++] = i;
    }
    for (int T = 0; T < nt; T++) {
        long nb = h->border_start[T + 1] - h->border_start[T];
        h->mat_start[T + 1] = h->mat_start[T] + nb * nb;
    }
    free(isb);
    free(fill);
    return TRV_OK;
}

trv_status prm_hier_build(trv_ctx *ctx, const prm_roadmap *r, const geo_grid *g, int tile, prm_hier **out)
{
    *out = NULL;
    if (tile < 1)
        return trv_error(ctx, TRV_ERR_USAGE, "the hierarchical index's tile must be at least 1 cell (got %d)", tile);
    trv_status need = prm_roadmap_need_all(ctx, r); /* every edge */
    if (need)
        return need;
    prm_hier *h = calloc(1, sizeof *h);
    if (!h)
        return trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
    h->tile = tile;
    h->x0 = g->gt[0], h->y0 = g->gt[3], h->tw = g->gt[1] * tile, h->th = g->gt[5] * tile;
    h->ntx = (g->nx + tile - 1) / tile, h->nty = (g->ny + tile - 1) / tile, h->ntiles = h->ntx * h->nty;
    h->nnodes = r->nnodes, h->nedges = r->nedges, h->hash = prm_hier_hash(r);
    h->node_tile = malloc(((size_t)r->nnodes + 1) * sizeof *h->node_tile);
    h->comp = malloc(((size_t)r->nnodes + 1) * sizeof *h->comp);
    trv_status st = TRV_OK;
    if (!h->node_tile || !h->comp)
        st = trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
    for (int i = 0; !st && i < r->nnodes; i++) {
        h->node_tile[i] = prm_hier_tile_at(h, r->x[i], r->y[i]);
        h->comp[i] = i;
    }
    for (int e = 0; !st && e < r->nedges; e++)
        h->comp[prm_uf_find(h->comp, r->edges[e].a)] = prm_uf_find(h->comp, r->edges[e].b);
    for (int i = 0; !st && i < r->nnodes; i++)
        h->comp[i] = prm_uf_find(h->comp, i);
    if (!st && !(st = groups(ctx, h, r)))
        st = matrices(ctx, h, r);
    if (st) {
        prm_hier_free(h);
        return st;
    }
    *out = h;
    return TRV_OK;
}
