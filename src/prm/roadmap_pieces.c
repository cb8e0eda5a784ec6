/* The roadmap cache's roadmap by pieces, checked when first needed
 * (roadmap_pieces.h). */
#include "roadmap_pieces.h"
#include "prm_priv.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

int prm_roadmap_tile_of(double x, double y, double x0, double y0, double side, int ntx, int nty)
{
    double c = floor((x - x0) / side), r = floor((y - y0) / side);
    int tc = c < 0 ? 0 : c >= ntx ? ntx - 1 : (int)c, tr = r < 0 ? 0 : r >= nty ? nty - 1 : (int)r;
    return tr * ntx + tc;
}

uint64_t prm_roadmap_piece_hash(const prm_edge *edges, const int64_t *eb, int b)
{
    return prm_hash_bytes(PRM_FNV_SEED, edges + eb[b], (size_t)(eb[b + 1] - eb[b]) * sizeof *edges);
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

/* Piece b against its hash and its edges' ends. */
static int sound(const prm_roadmap *r, const prm_roadmap_map *m, int b)
{
    if (prm_roadmap_piece_hash(r->edges, m->eb, b) != m->hash[b])
        return 0;
    for (int64_t e = m->eb[b]; e < m->eb[b + 1]; e++)
        if (!(r->edges[e].a >= 0 && r->edges[e].a < r->edges[e].b && r->edges[e].b < r->nnodes))
            return 0;
    return 1;
}

/* Edges e0 .. e1 - 1 of the mapping asked of the disk at once
 * (MADV_WILLNEED from the page holding edge e0 to edge e1 - 1's end: one
 * read for their pages, which the mapping's MADV_RANDOM would fetch a
 * fault at a time); the bytes asked and the calls refused counted in the
 * map. Performance only: nothing read differs. */
static void ahead(const prm_roadmap *r, int64_t e0, int64_t e1)
{
    prm_roadmap_map *m = r->map;
    long pg = sysconf(_SC_PAGESIZE);
    uintptr_t a = (uintptr_t)(r->edges + e0), z = (uintptr_t)(r->edges + e1);
    if (e1 <= e0 || pg <= 0)
        return;
    uintptr_t from = a - a % (uintptr_t)pg;
    if (madvise((void *)from, z - from, MADV_WILLNEED) == 0)
        m->ahead_bytes += z - from;
    else
        m->ahead_refused++;
}

/* Piece b checked when first needed (its pages asked ahead when `one`:
 * not when a reader of every piece asked for them all at once). */
static trv_status need_piece(trv_ctx *ctx, const prm_roadmap *r, int b, int one)
{
    prm_roadmap_map *m = r->map;
    if (!m->checked[b]) {
        if (one)
            ahead(r, m->eb[b], m->eb[b + 1]);
        m->checked[b] = sound(r, m, b) ? 1 : 2;
        m->pieces_checked++;
    }
    if (m->checked[b] == 2)
        return trv_error(ctx, TRV_ERR_DATA,
                         "the roadmap cache '%s' is damaged (its edges %ld to %ld, tile %d of %d): run trv-roadmap "
                         "again",
                         m->path, (long)m->eb[b], (long)m->eb[b + 1] - 1, b, m->nb);
    return TRV_OK;
}

trv_status prm_roadmap_need(trv_ctx *ctx, const prm_roadmap *r, int u)
{
    if (!r->map)
        return TRV_OK;
    trv_status st = TRV_OK;
    for (int j = r->adj_start[u]; !st && j < r->adj_start[u + 1]; j++)
        st = need_piece(ctx, r, prm_roadmap_piece_of_edge(r->map, r->adj[j]), 1);
    return st;
}

trv_status prm_roadmap_need_all(trv_ctx *ctx, const prm_roadmap *r)
{
    trv_status st = TRV_OK;
    if (r->map && r->map->pieces_checked < r->map->nb) /* every edge: asked for at once */
        ahead(r, 0, r->nedges);
    for (int b = 0; r->map && !st && b < r->map->nb; b++)
        st = need_piece(ctx, r, b, 0);
    return st;
}

static int cmp_ab(const void *p, const void *q)
{
    const prm_edge *e = p, *f = q;
    if (e->a != f->a)
        return e->a < f->a ? -1 : 1;
    return (e->b > f->b) - (e->b < f->b);
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
    if (!e)
        return trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
    memcpy(e, r->edges, ne * sizeof *e);
    int back = r->map->renumbered;
    r->edges = e;
    prm_roadmap_map_free(r->map);
    r->map = NULL;
    if (!back)
        return TRV_OK;
    /* the GeoPackage's numbering again (its edges were in order of (a, b)), and its adjacency */
    qsort(r->edges, ne, sizeof *r->edges, cmp_ab);
    free(r->adj_start);
    free(r->adj);
    r->adj_start = r->adj = NULL;
    return prm_roadmap_adjacency(ctx, r);
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
