/* Detour bridges (docs/method.md §4.4): the raster bridging's candidates
 * deduplicated to one per pair of neighbouring nodes (prm_pairs: the
 * nodes whose flood areas touch across a 4-neighbour pair of GO cells,
 * the shortest such bridge, the first in scan order on ties) and the
 * roadmap's own distance between two nodes, a Dijkstra bounded by the
 * length that matters (prm_net), on a graph that grows as bridges are
 * added. */
#include "detour.h"

#include <stdlib.h>
#include <string.h>

/* ---- one candidate per pair of owners ---- */

static size_t hash_key(uint64_t k, size_t mask)
{
    k ^= k >> 33;
    k *= 0xff51afd7ed558ccdULL;
    k ^= k >> 33;
    return (size_t)k & mask;
}

static int pairs_grow(prm_pairs *P)
{
    if (P->n == P->cap) {
        long cap = 2 * P->cap + 1024;
        int *ca = realloc(P->ca, (size_t)cap * sizeof *ca);
        if (ca)
            P->ca = ca;
        int *cb = ca ? realloc(P->cb, (size_t)cap * sizeof *cb) : NULL;
        if (cb)
            P->cb = cb;
        int *w = cb ? realloc(P->w, (size_t)cap * sizeof *w) : NULL;
        if (w)
            P->w = w;
        long *pos = w ? realloc(P->pos, (size_t)cap * sizeof *pos) : NULL;
        if (!pos)
            return -1;
        P->pos = pos;
        P->cap = cap;
    }
    if (2 * (size_t)(P->n + 1) > P->hsize) { /* load at most 1/2: rehash into twice the slots */
        size_t hs = P->hsize ? 2 * P->hsize : 4096;
        long *slot = malloc(hs * sizeof *slot);
        uint64_t *key = malloc(hs * sizeof *key);
        if (!slot || !key) {
            free(slot);
            free(key);
            return -1;
        }
        for (size_t h = 0; h < hs; h++)
            slot[h] = -1;
        for (size_t h = 0; h < P->hsize; h++)
            if (P->slot[h] >= 0) {
                size_t q = hash_key(P->key[h], hs - 1);
                while (slot[q] >= 0)
                    q = (q + 1) & (hs - 1);
                slot[q] = P->slot[h], key[q] = P->key[h];
            }
        free(P->slot);
        free(P->key);
        P->slot = slot, P->key = key, P->hsize = hs;
    }
    return 0;
}

int prm_pairs_add(prm_pairs *P, int oa, int ob, int ca, int cb, int w, long pos)
{
    if (pairs_grow(P))
        return -1;
    uint64_t k = oa < ob ? (uint64_t)oa << 32 | (uint32_t)ob : (uint64_t)ob << 32 | (uint32_t)oa;
    size_t q = hash_key(k, P->hsize - 1);
    while (P->slot[q] >= 0 && P->key[q] != k)
        q = (q + 1) & (P->hsize - 1);
    long i = P->slot[q];
    if (i < 0) { /* a new pair */
        i = P->slot[q] = P->n++;
        P->key[q] = k;
    } else if (w >= P->w[i]) { /* not shorter: the first stays */
        return 0;
    }
    P->ca[i] = ca, P->cb[i] = cb, P->w[i] = w, P->pos[i] = pos;
    return 0;
}

static const prm_pairs *sort_by; /* qsort has no context argument in C11 */

static int cmp_pair(const void *x, const void *y)
{
    long i = *(const long *)x, j = *(const long *)y;
    const prm_pairs *P = sort_by;
    if (P->w[i] != P->w[j])
        return P->w[i] < P->w[j] ? -1 : 1;
    return (P->pos[i] > P->pos[j]) - (P->pos[i] < P->pos[j]);
}

long *prm_pairs_order(const prm_pairs *P)
{
    long *order = malloc(((size_t)P->n + 1) * sizeof *order);
    if (!order)
        return NULL;
    for (long i = 0; i < P->n; i++)
        order[i] = i;
    sort_by = P;
    qsort(order, (size_t)P->n, sizeof *order, cmp_pair);
    sort_by = NULL;
    return order;
}

void prm_pairs_free(prm_pairs *P)
{
    free(P->ca);
    free(P->cb);
    free(P->w);
    free(P->pos);
    free(P->slot);
    free(P->key);
    memset(P, 0, sizeof *P);
}

/* ---- the roadmap's distance between two nodes ---- */

/* Room for n nodes in head, dist (new ones: no edge, not reached). */
static int net_nodes(prm_net *N, int n)
{
    if ((size_t)n > N->ncap) {
        size_t cap = 2 * (size_t)n + 64;
        int *head = realloc(N->head, cap * sizeof *head);
        if (head)
            N->head = head;
        double *dist = head ? realloc(N->dist, cap * sizeof *dist) : NULL;
        if (dist)
            N->dist = dist;
        int *seen = dist ? realloc(N->seen, cap * sizeof *seen) : NULL;
        if (!seen)
            return -1;
        N->seen = seen;
        N->ncap = cap;
    }
    for (int i = N->nn; i < n; i++)
        N->head[i] = -1, N->dist[i] = INFINITY;
    N->nn = n;
    return 0;
}

trv_status prm_net_sync(trv_ctx *ctx, prm_net *N, const prm_roadmap *r)
{
    if (net_nodes(N, r->nnodes))
        return trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
    if (2 * (size_t)r->nedges > N->ecap) {
        size_t cap = 4 * (size_t)r->nedges + 64;
        int *next = realloc(N->next, cap * sizeof *next);
        if (!next)
            return trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
        N->next = next;
        N->ecap = cap;
    }
    for (; N->ne < r->nedges; N->ne++) { /* edge end 2e at a, 2e + 1 at b */
        int e = N->ne, a = r->edges[e].a, b = r->edges[e].b;
        N->next[2 * e] = N->head[a], N->head[a] = 2 * e;
        N->next[2 * e + 1] = N->head[b], N->head[b] = 2 * e + 1;
    }
    return TRV_OK;
}

double prm_net_dist(prm_net *N, const prm_roadmap *r, int a, int b, double bound)
{
    double out = INFINITY;
    int nseen = 0;
    N->heap.n = 0;
    N->dist[a] = 0;
    N->seen[nseen++] = a;
    if (trv_heap_push(&N->heap, a, 0, 0))
        out = NAN;
    while (N->heap.n > 0 && !isnan(out)) {
        trv_heap_item it = trv_heap_pop(&N->heap);
        int u = it.id;
        if (it.key > N->dist[u]) /* stale */
            continue;
        if (u == b) {
            out = it.key;
            break;
        }
        for (int q = N->head[u]; q >= 0; q = N->next[q]) {
            const prm_edge *e = &r->edges[q / 2];
            int v = q & 1 ? e->a : e->b;
            double dv = it.key + e->p.d;
            if (dv > bound || dv >= N->dist[v])
                continue;
            if (N->dist[v] == INFINITY)
                N->seen[nseen++] = v;
            N->dist[v] = dv;
            if (trv_heap_push(&N->heap, v, dv, 0)) {
                out = NAN;
                break;
            }
        }
    }
    for (int k = 0; k < nseen; k++)
        N->dist[N->seen[k]] = INFINITY;
    return out;
}

void prm_net_free(prm_net *N)
{
    free(N->head);
    free(N->next);
    free(N->dist);
    free(N->seen);
    trv_heap_free(&N->heap);
    memset(N, 0, sizeof *N);
}
