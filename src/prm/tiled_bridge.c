/* The raster bridging tile by tile (tiled.h; docs/scale.md): bridge.c's
 * flood, candidates and Kruskal with the flood's arrays one tile in size.
 * Per tile, in row-major tile order: the flood from the nodes inside it,
 * then from a new node in each GO fragment it left unreached; the
 * candidates inside it and across its seams with the tile to the west
 * (its last column, kept) and the one to the north (its last row, kept);
 * its owners and distances appended to a temporary file. Kruskal then
 * takes the candidates shortest first and traces each bridge's two cell
 * paths back to their nodes through the file (mapped). Memory: 3 tile
 * arrays, a row of the grid, the candidates and O(nodes). */
#include "core/tempfile.h"
#include "tiled.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

int prm_build_tile(const prm_build_opts *o, const geo_grid *g)
{
    if (o->tile > 0)
        return o->tile;
    return (double)g->nx * g->ny > PRM_TILED_CELLS ? PRM_TILED_DEFAULT : 0;
}

typedef struct tiling {
    int nx, ny, side, ntx, nty;
} tiling;

typedef struct tbox {
    int x0, y0, w, h;
} tbox;

static tbox box_of(const tiling *T, long k)
{
    tbox b = {(int)(k % T->ntx) * T->side, (int)(k / T->ntx) * T->side, T->side, T->side};
    if (b.x0 + b.w > T->nx)
        b.w = T->nx - b.x0;
    if (b.y0 + b.h > T->ny)
        b.h = T->ny - b.y0;
    return b;
}

static long tile_of(const tiling *T, long c)
{
    return (c / T->nx) / T->side * T->ntx + (c % T->nx) / T->side;
}

/* ---- the nodes, the regions and the candidates ---- */

enum { PRM_TILED_FORGET = 32 }; /* bridges traced between two releases of the file's pages */

typedef struct tstate {
    prm_grow G;
    tiling T;
    int n0;                 /* nodes before the bridging: the seeds */
    long *first;            /* per tile: its seeds tlist[first[k] .. first[k + 1]) */
    int *tlist;
    int *reg;               /* union-find of the owners of 4-neighbour GO pairs */
    unsigned char *owns;    /* per node: it owns its own cell (a region's roots are among them) */
    size_t room;            /* of reg and owns */
    long *ca, *cb;          /* candidates: two 4-neighbour cells (global) of different components */
    int *cw;                /* the bridge's length in cells */
    int *coa, *cob;         /* their owners (Kruskal's test reads no file page) */
    long nc, ccap;
} tstate;

static trv_status nomem(trv_ctx *ctx) { return trv_error(ctx, TRV_ERR_NOMEM, "out of memory"); }

/* reg and owns grown to the roadmap's nodes, the new ones their own roots. */
static int room_for_nodes(tstate *S)
{
    size_t n = (size_t)S->G.r->nnodes;
    if (n <= S->room)
        return 0;
    size_t cap = 2 * n + 16;
    int *reg = realloc(S->reg, cap * sizeof *reg);
    if (reg)
        S->reg = reg;
    unsigned char *owns = reg ? realloc(S->owns, cap) : NULL;
    if (!owns)
        return -1;
    S->owns = owns;
    for (size_t i = S->room; i < cap; i++)
        S->reg[i] = (int)i, S->owns[i] = 0;
    S->room = cap;
    return 0;
}

/* A 4-neighbour pair of GO cells ca, cb owned by oa, ob: one region; a
 * candidate when their components differ. */
static int pair(tstate *S, long ca, long cb, int oa, int da, int ob, int db)
{
    if (oa < 0 || ob < 0 || oa == ob)
        return 0;
    S->reg[prm_uf_find(S->reg, oa)] = prm_uf_find(S->reg, ob);
    int *parent = *S->G.parent;
    if (prm_uf_find(parent, oa) == prm_uf_find(parent, ob))
        return 0;
    if (S->nc == S->ccap) {
        long cap = 2 * S->ccap + 1024;
        long *na = realloc(S->ca, (size_t)cap * sizeof *na);
        if (na)
            S->ca = na;
        long *nb = na ? realloc(S->cb, (size_t)cap * sizeof *nb) : NULL;
        if (nb)
            S->cb = nb;
        int *nw = nb ? realloc(S->cw, (size_t)cap * sizeof *nw) : NULL;
        if (nw)
            S->cw = nw;
        int *noa = nw ? realloc(S->coa, (size_t)cap * sizeof *noa) : NULL;
        if (noa)
            S->coa = noa;
        int *nob = noa ? realloc(S->cob, (size_t)cap * sizeof *nob) : NULL;
        if (!nob)
            return -1;
        S->cob = nob;
        S->ccap = cap;
    }
    S->ca[S->nc] = ca, S->cb[S->nc] = cb, S->coa[S->nc] = oa, S->cob[S->nc] = ob;
    S->cw[S->nc++] = da + db + 1;
    return 0;
}

/* ---- one tile's flood ---- */

typedef struct tflood {
    tbox b;
    int *owner, *dist, *queue; /* tile-local cells; owner -1 GO unreached, -2 NOGO */
    long tail;
} tflood;

static long global_of(const tiling *T, tbox b, int l)
{
    return (long)(b.y0 + l / b.w) * T->nx + b.x0 + l % b.w;
}

static void spread(tflood *F, long head)
{
    int w = F->b.w, h = F->b.h;
    while (head < F->tail) {
        int l = F->queue[head++], col = l % w, row = l / w;
        const int nb[4] = {col > 0 ? l - 1 : -1, col + 1 < w ? l + 1 : -1, row > 0 ? l - w : -1,
                           row + 1 < h ? l + w : -1};
        for (int k = 0; k < 4; k++)
            if (nb[k] >= 0 && F->owner[nb[k]] == -1) {
                F->owner[nb[k]] = F->owner[l];
                F->dist[nb[k]] = F->dist[l] + 1;
                F->queue[F->tail++] = nb[k];
            }
    }
}

static void own(tflood *F, int l, int node)
{
    F->owner[l] = node;
    F->dist[l] = 0;
    F->queue[F->tail++] = l;
}

/* Tile k flooded: its seeds as bridge.c's seed (a second node in an owned
 * cell joined to the owner by the piece inside it), then a node in the
 * first unreached cell of every fragment, flooded from in turn. */
static trv_status flood_tile(trv_ctx *ctx, tstate *S, long k, tflood *F, prm_build_stats *stats)
{
    const prm_terrain *t = S->G.t;
    const tiling *T = &S->T;
    F->b = box_of(T, k);
    int n = F->b.w * F->b.h;
    for (int l = 0; l < n; l++) { /* dist 0 where no node owns the cell: no stale bytes in the file */
        F->owner[l] = prm_cell_go(t, global_of(T, F->b, l)) ? -1 : -2;
        F->dist[l] = 0;
    }
    F->tail = 0;
    trv_status st = TRV_OK;
    for (long q = S->first[k]; q < S->first[k + 1] && !st; q++) {
        int i = S->tlist[q], added;
        long c = prm_cell_at(t, S->G.r->x[i], S->G.r->y[i]);
        int l = (int)((c / T->nx - F->b.y0) * F->b.w + c % T->nx - F->b.x0);
        if (F->owner[l] == -1) {
            own(F, l, i);
            S->owns[i] = 1;
        } else if (F->owner[l] >= 0 &&
                   prm_uf_find(*S->G.parent, F->owner[l]) != prm_uf_find(*S->G.parent, i))
            st = prm_grow_edge(ctx, &S->G, F->owner[l], i, &added);
    }
    spread(F, 0);
    for (int l = 0; l < n && !st; l++) {
        if (F->owner[l] != -1)
            continue;
        double x, y;
        prm_cell_point(t->grid, global_of(T, F->b, l), &x, &y);
        if ((st = prm_grow_node(ctx, &S->G, x, y)))
            break;
        if (room_for_nodes(S))
            return nomem(ctx);
        stats->region_nodes++;
        S->owns[S->G.r->nnodes - 1] = 1;
        long head = F->tail;
        own(F, l, S->G.r->nnodes - 1);
        spread(F, head);
    }
    return st;
}

/* The tile's pairs: inside it (east and south of each cell), then across
 * its west seam (wo, wd: the last column of the tile to the west) and its
 * north seam (no, nd: the grid's row above it, indexed by column). */
static int tile_pairs(tstate *S, const tflood *F, const int *wo, const int *wd, const int *no, const int *nd)
{
    const tiling *T = &S->T;
    tbox b = F->b;
    for (int l = 0; l < b.w * b.h; l++) {
        int col = l % b.w, row = l / b.w;
        long c = global_of(T, b, l);
        if (col + 1 < b.w && pair(S, c, c + 1, F->owner[l], F->dist[l], F->owner[l + 1], F->dist[l + 1]))
            return -1;
        if (row + 1 < b.h &&
            pair(S, c, c + T->nx, F->owner[l], F->dist[l], F->owner[l + b.w], F->dist[l + b.w]))
            return -1;
    }
    for (int row = 0; row < b.h && b.x0 > 0; row++) {
        long c = (long)(b.y0 + row) * T->nx + b.x0;
        if (pair(S, c - 1, c, wo[row], wd[row], F->owner[row * b.w], F->dist[row * b.w]))
            return -1;
    }
    for (int col = 0; col < b.w && b.y0 > 0; col++) {
        long c = (long)b.y0 * T->nx + b.x0 + col;
        if (pair(S, c - T->nx, c, no[b.x0 + col], nd[b.x0 + col], F->owner[col], F->dist[col]))
            return -1;
    }
    return 0;
}

/* ---- the tiles' owners and distances, kept for the paths ---- */

typedef struct tfile {
    FILE *fp;
    int *map;               /* mapped: per tile (row-major order) its owners, then its distances */
    size_t len;
    long *off;              /* per tile: its owners' place in map (ints) */
} tfile;

/* Cell c's owner and *dist from the file. */
static int owner_at(const tstate *S, const tfile *M, long c, int *dist)
{
    long k = tile_of(&S->T, c);
    tbox b = box_of(&S->T, k);
    long l = (c / S->T.nx - b.y0) * b.w + c % S->T.nx - b.x0;
    *dist = M->map[M->off[k] + (long)b.w * b.h + l];
    return M->map[M->off[k] + l];
}

/* The 4-neighbour of c one step nearer its owner's cell (bridge.c's
 * step_back, the first in west, east, north, south order); -1 at the
 * owner's cell. */
static long step_back(const tstate *S, const tfile *M, long c)
{
    int nx = S->T.nx, ny = S->T.ny, col = (int)(c % nx), row = (int)(c / nx), d, dn;
    int o = owner_at(S, M, c, &d);
    const long nb[4] = {col > 0 ? c - 1 : -1, col + 1 < nx ? c + 1 : -1, row > 0 ? c - nx : -1,
                        row + 1 < ny ? c + nx : -1};
    for (int k = 0; k < 4; k++)
        if (nb[k] >= 0 && owner_at(S, M, nb[k], &dn) == o && dn == d - 1)
            return nb[k];
    return -1;
}

/* bridge.c's build_bridge, the paths traced through the file. */
static trv_status tbridge(trv_ctx *ctx, tstate *S, const tfile *M, long ca, long cb, prm_build_stats *stats,
                          int *made)
{
    int da, db, a = owner_at(S, M, ca, &da), b = owner_at(S, M, cb, &db);
    int la = da + 1, lb = db + 1, n = la + lb + 2;
    double *x = malloc((size_t)n * sizeof *x), *y = malloc((size_t)n * sizeof *y);
    trv_status st;
    *made = 0;
    if (!x || !y)
        st = nomem(ctx);
    else {
        const geo_grid *g = S->G.t->grid;
        prm_roadmap *r = S->G.r;
        x[0] = r->x[a], y[0] = r->y[a];
        x[n - 1] = r->x[b], y[n - 1] = r->y[b];
        long c = ca;
        for (int k = la; k >= 1; k--, c = step_back(S, M, c))
            prm_cell_point(g, c, &x[k], &y[k]);
        c = cb;
        for (int k = la + 1; k <= la + lb; k++, c = step_back(S, M, c))
            prm_cell_point(g, c, &x[k], &y[k]);
        st = prm_grow_bridge(ctx, &S->G, x, y, n, a, b, stats, made);
    }
    free(x);
    free(y);
    return st;
}

/* Kruskal over the candidates, shortest first (prm_order_by_length). */
static trv_status kruskal(trv_ctx *ctx, tstate *S, const tfile *M, prm_build_stats *stats)
{
    long *order = prm_order_by_length(S->cw, S->nc);
    if (!order)
        return nomem(ctx);
    trv_status st = TRV_OK;
    long traced = 0;
    for (long q = 0; q < S->nc && !st; q++) {
        long i = order[q];
        int ra = prm_uf_find(*S->G.parent, S->coa[i]), rb = prm_uf_find(*S->G.parent, S->cob[i]), made;
        if (ra == rb)
            continue;
        if (!(st = tbridge(ctx, S, M, S->ca[i], S->cb[i], stats, &made)) && !made)
            stats->bridge_failed++;
        if (++traced % PRM_TILED_FORGET == 0) /* the paths' pages let go: the file is their copy */
            madvise(M->map, M->len, MADV_DONTNEED);
    }
    free(order);
    return st;
}

/* ---- the pass ---- */

/* The seeds of every tile, in index order (a counting sort). */
static int seeds_by_tile(tstate *S)
{
    long ntiles = (long)S->T.ntx * S->T.nty;
    S->first = calloc((size_t)ntiles + 1, sizeof *S->first);
    S->tlist = malloc(((size_t)S->n0 + 1) * sizeof *S->tlist);
    long *at = malloc(((size_t)ntiles + 1) * sizeof *at);
    if (!S->first || !S->tlist || !at) {
        free(at);
        return -1;
    }
    const prm_roadmap *r = S->G.r;
    for (int i = 0; i < S->n0; i++) {
        long c = prm_cell_at(S->G.t, r->x[i], r->y[i]);
        if (c >= 0)
            S->first[tile_of(&S->T, c) + 1]++;
    }
    for (long k = 0; k < ntiles; k++)
        S->first[k + 1] += S->first[k];
    memcpy(at, S->first, ((size_t)ntiles + 1) * sizeof *at);
    for (int i = 0; i < S->n0; i++) {
        long c = prm_cell_at(S->G.t, r->x[i], r->y[i]);
        if (c >= 0)
            S->tlist[at[tile_of(&S->T, c)]++] = i;
    }
    free(at);
    return 0;
}

/* Every tile flooded, its pairs taken and its arrays appended to M. */
static trv_status all_tiles(trv_ctx *ctx, tstate *S, tfile *M, prm_build_stats *stats)
{
    const tiling *T = &S->T;
    size_t side = (size_t)T->side, area = side * side;
    tflood F = {{0}, malloc(area * sizeof *F.owner), malloc(area * sizeof *F.dist), malloc(area * sizeof *F.queue), 0};
    int *wo = malloc(side * sizeof *wo), *wd = malloc(side * sizeof *wd);
    int *no = malloc((size_t)T->nx * sizeof *no), *nd = malloc((size_t)T->nx * sizeof *nd);
    long ntiles = (long)T->ntx * T->nty, at = 0;
    trv_status st = TRV_OK;
    if (!F.owner || !F.dist || !F.queue || !wo || !wd || !no || !nd || !(M->off = malloc((size_t)ntiles * sizeof *M->off)))
        st = nomem(ctx);
    for (long k = 0; k < ntiles && !st; k++) {
        if ((st = flood_tile(ctx, S, k, &F, stats)))
            break;
        if (tile_pairs(S, &F, wo, wd, no, nd)) {
            st = nomem(ctx);
            break;
        }
        tbox b = F.b;
        for (int row = 0; row < b.h; row++) /* the west seam of the next tile */
            wo[row] = F.owner[row * b.w + b.w - 1], wd[row] = F.dist[row * b.w + b.w - 1];
        memcpy(no + b.x0, F.owner + (size_t)(b.h - 1) * b.w, (size_t)b.w * sizeof *no);
        memcpy(nd + b.x0, F.dist + (size_t)(b.h - 1) * b.w, (size_t)b.w * sizeof *nd);
        size_t n = (size_t)b.w * b.h;
        M->off[k] = at;
        at += 2 * (long)n;
        if (fwrite(F.owner, sizeof *F.owner, n, M->fp) != n || fwrite(F.dist, sizeof *F.dist, n, M->fp) != n)
            st = trv_error(ctx, TRV_ERR_IO, "the tiled bridging's temporary file: write failed (disk full?)");
        if (!st && (st = trv_progress(ctx, 0.8 + 0.1 * (double)(k + 1) / ntiles, "roadmap")))
            break;
    }
    if (!st && fflush(M->fp))
        st = trv_error(ctx, TRV_ERR_IO, "the tiled bridging's temporary file: write failed (disk full?)");
    M->len = (size_t)at * sizeof(int);
    free(F.owner);
    free(F.dist);
    free(F.queue);
    free(wo);
    free(wd);
    free(no);
    free(nd);
    return st;
}

/* The regions (one root among the nodes owning their cells per region)
 * and those holding a seed. */
static void count_regions(tstate *S, prm_build_stats *stats)
{
    int n = S->G.r->nnodes;
    unsigned char *seeded = calloc((size_t)n + 1, 1);
    for (int i = 0; i < n; i++)
        if (S->owns[i]) {
            int root = prm_uf_find(S->reg, i);
            stats->regions += root == i;
            if (i < S->n0 && seeded && !seeded[root])
                seeded[root] = 1, stats->regions_with_nodes++;
        }
    free(seeded);
}

/* An unnamed temporary file in $TMPDIR, else /tmp (tempfile.h; tmpfile()
 * ignores TMPDIR: at 10^9 cells the file is 8 GB, which a tmpfs /tmp would
 * hold in memory), or NULL. */
static FILE *temp_file(void)
{
    int fd = trv_temp_fd(NULL, "trv-bridge");
    FILE *fp = fd >= 0 ? fdopen(fd, "w+b") : NULL;
    if (fd >= 0 && !fp)
        close(fd);
    return fp;
}

trv_status prm_bridge_raster_tiled(trv_ctx *ctx, const prm_terrain *t, prm_roadmap *r, int **parent, size_t *ecap,
                                   size_t ncap, int tile, prm_build_stats *stats)
{
    const geo_grid *g = t->grid;
    if (tile < 2 || tile > PRM_TILED_MAX)
        return trv_error(ctx, TRV_ERR_USAGE, "a tile of %d cells: it must be 2..%d", tile, PRM_TILED_MAX);
    tstate S = {{t, r, parent, ecap, ncap}, {g->nx, g->ny, tile, (g->nx + tile - 1) / tile, (g->ny + tile - 1) / tile},
                r->nnodes, NULL, NULL, NULL, NULL, 0, NULL, NULL, NULL, NULL, NULL, 0, 0};
    tfile M = {temp_file(), NULL, 0, NULL};
    trv_status st = TRV_OK;
    if (!M.fp)
        st = trv_error(ctx, TRV_ERR_IO, "the tiled bridging cannot make a temporary file in '%s'", trv_temp_dir(NULL));
    else if (seeds_by_tile(&S) || room_for_nodes(&S))
        st = nomem(ctx);
    if (!st)
        st = all_tiles(ctx, &S, &M, stats);
    if (!st && M.len && (M.map = mmap(NULL, M.len, PROT_READ, MAP_PRIVATE, fileno(M.fp), 0)) == MAP_FAILED) {
        M.map = NULL;
        st = trv_error(ctx, TRV_ERR_IO, "the tiled bridging cannot map its temporary file");
    }
    if (!st) {
        count_regions(&S, stats);
        st = kruskal(ctx, &S, &M, stats);
    }
    if (M.map)
        munmap(M.map, M.len);
    if (M.fp)
        fclose(M.fp);
    free(M.off);
    free(S.first);
    free(S.tlist);
    free(S.reg);
    free(S.owns);
    free(S.ca);
    free(S.cb);
    free(S.cw);
    free(S.coa);
    free(S.cob);
    return st;
}
