/* The roadmap cache's roadmap by pieces, checked when first needed
 * (roadmap_pieces.h). */
#include "roadmap_pieces.h"
#include "prm_priv.h"

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

static int piece_end(const prm_roadmap *r, int B, int b)
{
    long e = ((long)b + 1) * B;
    return e < r->nnodes ? (int)e : r->nnodes;
}

uint64_t prm_roadmap_piece_hash(const prm_roadmap *r, const int64_t *eb, int B, int b)
{
    uint64_t h = prm_hash_bytes(PRM_FNV_SEED, r->edges + eb[b], (size_t)(eb[b + 1] - eb[b]) * sizeof *r->edges);
    int a0 = r->adj_start[b * B], a1 = r->adj_start[piece_end(r, B, b)];
    return prm_hash_bytes(h, r->adj + a0, (size_t)(a1 - a0) * sizeof *r->adj);
}

void prm_roadmap_piece_starts(const prm_roadmap *r, int B, int nb, int64_t *eb)
{
    int sorted = 1;
    for (int e = 1; e < r->nedges && sorted; e++)
        sorted = r->edges[e - 1].a <= r->edges[e].a;
    long e = 0;
    for (int b = 0; b < nb; b++) {
        if (sorted)
            while (e < r->nedges && r->edges[e].a < (long)b * B)
                e++;
        eb[b] = sorted ? e : (int64_t)r->nedges * b / nb;
    }
    eb[nb] = r->nedges;
}

int prm_roadmap_piece_of_edge(const prm_roadmap_map *m, int e)
{
    int lo = 0, hi = m->nb; /* eb[lo] <= e < eb[hi] */
    while (hi - lo > 1) {
        int mid = lo + (hi - lo) / 2;
        if (m->eb[mid] <= e)
            lo = mid;
        else
            hi = mid;
    }
    return lo;
}

/* Piece b against its hash, its edges' ends and its adjacency's edges. */
static int sound(const prm_roadmap *r, const prm_roadmap_map *m, int b)
{
    if (prm_roadmap_piece_hash(r, m->eb, m->B, b) != m->hash[b])
        return 0;
    for (int64_t e = m->eb[b]; e < m->eb[b + 1]; e++)
        if (!(r->edges[e].a >= 0 && r->edges[e].a < r->edges[e].b && r->edges[e].b < r->nnodes))
            return 0;
    for (int j = r->adj_start[b * m->B]; j < r->adj_start[piece_end(r, m->B, b)]; j++)
        if (r->adj[j] < 0 || r->adj[j] >= r->nedges)
            return 0;
    return 1;
}

static trv_status need_piece(trv_ctx *ctx, const prm_roadmap *r, int b)
{
    prm_roadmap_map *m = r->map;
    if (!m->checked[b]) {
        m->checked[b] = sound(r, m, b) ? 1 : 2;
        m->pieces_checked++;
    }
    if (m->checked[b] == 2)
        return trv_error(ctx, TRV_ERR_DATA,
                         "the roadmap cache '%s' is damaged (the edges of its nodes %d to %d): run trv-roadmap again",
                         m->path, b * m->B, piece_end(r, m->B, b) - 1);
    return TRV_OK;
}

trv_status prm_roadmap_need(trv_ctx *ctx, const prm_roadmap *r, int u)
{
    if (!r->map)
        return TRV_OK;
    trv_status st = need_piece(ctx, r, u / r->map->B);
    for (int j = r->adj_start[u]; !st && j < r->adj_start[u + 1]; j++)
        st = need_piece(ctx, r, prm_roadmap_piece_of_edge(r->map, r->adj[j]));
    return st;
}

trv_status prm_roadmap_need_all(trv_ctx *ctx, const prm_roadmap *r)
{
    trv_status st = TRV_OK;
    for (int b = 0; r->map && !st && b < r->map->nb; b++)
        st = need_piece(ctx, r, b);
    return st;
}

trv_status prm_roadmap_own(trv_ctx *ctx, prm_roadmap *r)
{
    trv_status st = prm_roadmap_need_all(ctx, r);
    free(r->comp); /* the caller changes the roadmap: its components may change */
    r->comp = NULL;
    if (st || !r->map)
        return st;
    size_t ne = (size_t)r->nedges;
    prm_edge *e = malloc(ne * sizeof *e + 1);
    int *adj = malloc(2 * ne * sizeof *adj + 1);
    if (!e || !adj) {
        free(e);
        free(adj);
        return trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
    }
    memcpy(e, r->edges, ne * sizeof *e);
    memcpy(adj, r->adj, 2 * ne * sizeof *adj);
    r->edges = e, r->adj = adj;
    prm_roadmap_map_free(r->map);
    r->map = NULL;
    return TRV_OK;
}

void prm_roadmap_map_free(prm_roadmap_map *m)
{
    if (!m)
        return;
    if (m->base)
        munmap(m->base, m->len);
    free(m->checked);
    free(m->path);
    free(m);
}
