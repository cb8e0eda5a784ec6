/* The probabilistic roadmap (docs/method.md §4.3-4.4): nodes from Latin
 * hypercube batches (lhs.c), edges to the k nearest (core/bucket.h) where
 * the segment crosses no NOGO, a bridging pass between components, then
 * the raster bridging (bridge.c; tile by tile, tiled_bridge.c, with --tile
 * or above PRM_TILED_CELLS cells) that joins every GO region's components. */
#include "tiled.h"
#include "roadmap_pieces.h"

#include "core/bucket.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void prm_build_opts_init(prm_build_opts *o)
{
    memset(o, 0, sizeof *o);
    o->k = 14;
    o->seed = 1;
    o->detour = PRM_DETOUR_DEFAULT;
}

trv_status prm_build_opts_check(trv_ctx *ctx, const prm_build_opts *o)
{
    if (o->nodes < 0 || o->k < 1 || o->k > 256 || !(o->radius >= 0))
        return trv_error(ctx, TRV_ERR_USAGE, "--nodes must be >= 0, --k in 1..256, --radius > 0");
    if (!(o->detour == 0 || (o->detour >= 1 && o->detour <= 100)))
        return trv_error(ctx, TRV_ERR_USAGE, "--detour must be 0 (off) or a stretch from 1 to 100");
    if (o->tile < 0 || o->tile == 1 || o->tile > PRM_TILED_MAX)
        return trv_error(ctx, TRV_ERR_USAGE, "--tile must be 2..%d cells (0: automatic)", PRM_TILED_MAX);
    if (o->nodes > PRM_MAX_NODES)
        return trv_error(ctx, TRV_ERR_USAGE, "--nodes %d is more than the %d a roadmap can hold", o->nodes,
                         PRM_MAX_NODES);
    return TRV_OK;
}

void prm_roadmap_free(prm_roadmap *r)
{
    if (!r)
        return;
    free(r->x);
    free(r->y);
    if (!r->map) /* else they lie in the cache's mapping */
        free(r->edges);
    free(r->adj);
    prm_roadmap_map_free(r->map);
    free(r->adj_start);
    free(r->comp);
    free(r->wkt);
    free(r);
}

/* ---- neighbours: core's bucket grid over the nodes, ties to the lower index ---- */

/* The k nodes nearest to (px, py) (skip: a node to leave out), nearest
 * first, ties by index; with radius > 0 every node within radius instead
 * (up to cap). Returns the count. */
static int near_nodes(const trv_bucket *ix, double px, double py, int k, double radius, int skip, int cap, long *out,
                      double *d2)
{
    return trv_bucket_nearest(ix, px, py, radius > 0 ? cap : k, radius > 0 ? radius : INFINITY, skip, out, d2);
}

/* ---- build ---- */

/* Measuring candidate edges is pure and independent: split it over the
 * cores (results land in place, so the roadmap does not depend on the
 * number of threads). */
typedef struct measure_job {
    const prm_terrain *t;
    const prm_roadmap *r;
    prm_edge *e;
    size_t n;
} measure_job;

static void *measure_range(void *arg)
{
    measure_job *j = arg;
    for (size_t k = 0; k < j->n; k++) {
        prm_edge *ed = &j->e[k];
        prm_edge_measure(j->t, j->r->x[ed->a], j->r->y[ed->a], j->r->x[ed->b], j->r->y[ed->b], &ed->p);
    }
    return NULL;
}

/* A lazy terrain's measures (one thread) in the order of each edge's first
 * row, the tile rows above it let go as it moves down (prm.h
 * prm_terrain_release_above): each measure is the same in any order. */
typedef struct row_key {
    long row;
    size_t k;
} row_key;

static int row_key_cmp(const void *a, const void *b)
{
    const row_key *x = a, *y = b;
    return x->row != y->row ? (x->row > y->row) - (x->row < y->row) : (x->k > y->k) - (x->k < y->k);
}

static long first_row(const prm_terrain *t, double y)
{
    double v = floor((y - t->grid->gt[3]) / t->grid->gt[5]);
    return v >= 0 ? (v < t->grid->ny ? (long)v : t->grid->ny - 1) : 0; /* NaN: 0 */
}

static int measure_lazy(const prm_terrain *t, const prm_roadmap *r, prm_edge *e, size_t n)
{
    row_key *o = malloc(n * sizeof *o + 1);
    if (!o)
        return 0;
    for (size_t k = 0; k < n; k++)
        o[k] = (row_key){fmin(first_row(t, r->y[e[k].a]), first_row(t, r->y[e[k].b])), k};
    qsort(o, n, sizeof *o, row_key_cmp);
    long band = 0;
    for (size_t q = 0; q < n; q++) {
        if (o[q].row / PRM_TILE > band)
            prm_terrain_release_above(t, (band = o[q].row / PRM_TILE) * PRM_TILE);
        prm_edge *ed = &e[o[q].k];
        prm_edge_measure(t, r->x[ed->a], r->y[ed->a], r->x[ed->b], r->y[ed->b], &ed->p);
    }
    free(o);
    return 1;
}

static void measure_all(const prm_terrain *t, const prm_roadmap *r, prm_edge *e, size_t n)
{
    if (t->ready && measure_lazy(t, r, e, n))
        return;
    int nt = t->ready ? 1 : prm_cores(); /* a lazy terrain reads its tiles on one thread */
    measure_job jobs[PRM_MAX_THREADS];
    for (int i = 0; i < nt; i++)
        jobs[i] = (measure_job){t, r, e + n * i / nt, n * (i + 1) / nt - n * i / nt};
    prm_on_cores(measure_range, jobs, sizeof *jobs, nt);
}

/* Every node's neighbours (near_nodes with k, radius and cap), on every
 * core: nbr[i * cap + q] is node i's q-th, cnt[i] their count. With root
 * (the nodes' components when it was taken), also blocked[i * cap + q]:
 * 1 where the two lie in different components and the straight piece
 * between them (from the lower index, as prm_edge_add measures it) is
 * blocked, else 0. */
typedef struct near_job {
    const prm_terrain *t;
    const trv_bucket *ix;
    const prm_roadmap *r;
    int k, cap, i0, i1;
    double radius;
    int *nbr, *cnt;
    const int *root;
    unsigned char *blocked;
    int nomem;
} near_job;

static void *near_range(void *arg)
{
    near_job *j = arg;
    const prm_roadmap *r = j->r;
    long *nb = malloc((size_t)j->cap * sizeof *nb);
    double *d2 = malloc((size_t)j->cap * sizeof *d2);
    j->nomem = !nb || !d2;
    for (int i = j->i0; i < j->i1 && !j->nomem; i++) {
        int n = j->cnt[i] = near_nodes(j->ix, r->x[i], r->y[i], j->k, j->radius, i, j->cap, nb, d2);
        for (int q = 0; q < n; q++) {
            int o = (int)nb[q], a = i < o ? i : o, b = i < o ? o : i;
            size_t slot = (size_t)i * j->cap + q;
            j->nbr[slot] = o;
            if (j->root)
                j->blocked[slot] =
                    j->root[i] != j->root[o] && prm_piece_blocked(j->t, r->x[a], r->y[a], r->x[b], r->y[b]);
        }
    }
    free(nb);
    free(d2);
    return NULL;
}

static trv_status near_all(trv_ctx *ctx, const prm_terrain *t, const trv_bucket *ix, const prm_roadmap *r, int k,
                           double radius, int cap, const int *root, int *nbr, int *cnt, unsigned char *blocked)
{
    int nt = t->ready ? 1 : prm_cores();
    near_job jobs[PRM_MAX_THREADS];
    for (int i = 0; i < nt; i++)
        jobs[i] = (near_job){t,      ix,  r,   k,    cap,     (int)((long)r->nnodes * i / nt),
                             (int)((long)r->nnodes * (i + 1) / nt), radius, nbr, cnt, root, blocked, 0};
    prm_on_cores(near_range, jobs, sizeof *jobs, nt);
    for (int i = 0; i < nt; i++)
        if (jobs[i].nomem)
            return trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
    return TRV_OK;
}

static int cmp_edge(const void *a, const void *b)
{
    const prm_edge *p = a, *q = b;
    if (p->a != q->a)
        return p->a < q->a ? -1 : 1;
    return (p->b > q->b) - (p->b < q->b);
}

/* r->edges in order of (a, b) (cmp_edge; every pair is there once): the
 * first nsorted already are, the rest (the bridges') are sorted alone and
 * merged in. */
static trv_status sort_edges(trv_ctx *ctx, prm_roadmap *r, int nsorted)
{
    size_t n = (size_t)r->nedges, m = (size_t)nsorted, i = 0, j = m, k = 0;
    qsort(r->edges + m, n - m, sizeof *r->edges, cmp_edge);
    prm_edge *out = malloc((n ? n : 1) * sizeof *out);
    if (!out)
        return trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
    while (i < m && j < n)
        out[k++] = cmp_edge(&r->edges[i], &r->edges[j]) < 0 ? r->edges[i++] : r->edges[j++];
    while (i < m)
        out[k++] = r->edges[i++];
    while (j < n)
        out[k++] = r->edges[j++];
    free(r->edges);
    r->edges = out;
    return TRV_OK;
}

trv_status prm_roadmap_adjacency(trv_ctx *ctx, prm_roadmap *r)
{
    r->adj_start = calloc((size_t)r->nnodes + 1, sizeof *r->adj_start);
    r->adj = malloc((2 * (size_t)r->nedges + 1) * sizeof *r->adj);
    int *fill = malloc(((size_t)r->nnodes + 1) * sizeof *fill);
    if (!r->adj_start || !r->adj || !fill) {
        free(fill);
        return trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
    }
    for (int e = 0; e < r->nedges; e++) {
        r->adj_start[r->edges[e].a + 1]++;
        r->adj_start[r->edges[e].b + 1]++;
    }
    for (int i = 0; i < r->nnodes; i++)
        r->adj_start[i + 1] += r->adj_start[i];
    memcpy(fill, r->adj_start, ((size_t)r->nnodes + 1) * sizeof *fill);
    for (int e = 0; e < r->nedges; e++) {
        r->adj[fill[r->edges[e].a]++] = e;
        r->adj[fill[r->edges[e].b]++] = e;
    }
    free(fill);
    return TRV_OK;
}

/* Nodes: LHS batches sized for the GO fraction, each with its own seed
 * stream, until want GO samples (or 64 batches). */
static trv_status sample_nodes(trv_ctx *ctx, const prm_terrain *t, const prm_build_opts *o, int want, double go_frac,
                               prm_roadmap *r, prm_build_stats *stats)
{
    const geo_grid *g = t->grid;
    double x0 = g->gt[0], x1 = g->gt[0] + g->nx * g->gt[1], y1 = g->gt[3], y0 = g->gt[3] + g->ny * g->gt[5];
    for (int batch = 0; r->nnodes < want && batch < 64; batch++) {
        double pd = ceil((want - r->nnodes) / go_frac * 1.05) + 8;
        int p = pd < PRM_MAX_BATCH ? (int)pd : PRM_MAX_BATCH; /* the next batch draws the rest */
        double *xs = malloc((size_t)p * sizeof *xs), *ys = malloc((size_t)p * sizeof *ys);
        if (!xs || !ys) {
            free(xs);
            free(ys);
            return trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
        }
        prm_lhs(o->seed * 1000003u + (uint64_t)batch, p, x0, y0, x1, y1, xs, ys);
        for (int i = 0; i < p && r->nnodes < want; i++) {
            stats->samples++;
            long c = prm_cell_at(t, xs[i], ys[i]);
            if (c < 0 || !prm_cell_go(t, c)) {
                stats->rejected++;
                continue;
            }
            r->x[r->nnodes] = xs[i];
            r->y[r->nnodes] = ys[i];
            r->nnodes++;
        }
        free(xs);
        free(ys);
    }
    if (r->nnodes < 2)
        return trv_error(ctx, TRV_ERR_DATA, "too few GO samples for a roadmap (%d)", stats->samples);
    return TRV_OK;
}

/* Edges: each node to its k nearest (or all within the radius), both
 * directions merged, measured in parallel, kept where the segment crosses
 * no NOGO cell; parent joins their ends' components. *ecap: the room
 * r->edges was given. */
/* Every node's neighbour pairs (a < b) in order of a, then b, without
 * repeats, into cand (what qsort with cmp_edge and dropping repeats gives):
 * a counting sort by a, then each a's few b by insertion. *nc: the pairs
 * before repeats were dropped. Returns the count, or -1 out of memory. */
static long sorted_pairs(const prm_roadmap *r, const int *nbr, const int *cnt, int cap, prm_edge *cand, size_t *nc)
{
    size_t n = 0, *start = calloc((size_t)r->nnodes + 1, sizeof *start);
    for (int i = 0; i < r->nnodes; i++)
        n += (size_t)cnt[i];
    int *bs = malloc((n ? n : 1) * sizeof *bs);
    if (!start || !bs) {
        free(start);
        free(bs);
        return -1;
    }
    for (int i = 0; i < r->nnodes; i++)
        for (int q = 0; q < cnt[i]; q++) {
            int j = nbr[(size_t)i * cap + q];
            start[(i < j ? i : j) + 1]++;
        }
    for (int a = 0; a < r->nnodes; a++)
        start[a + 1] += start[a];
    for (int i = 0; i < r->nnodes; i++) /* start[a] runs to the end of a's pairs here */
        for (int q = 0; q < cnt[i]; q++) {
            int j = nbr[(size_t)i * cap + q];
            bs[start[i < j ? i : j]++] = i < j ? j : i;
        }
    long nu = 0;
    size_t lo = 0;
    for (int a = 0; a < r->nnodes; lo = start[a++]) {
        for (size_t e = lo + 1; e < start[a]; e++)
            for (size_t f = e; f > lo && bs[f - 1] > bs[f]; f--) {
                int tmp = bs[f];
                bs[f] = bs[f - 1], bs[f - 1] = tmp;
            }
        for (size_t e = lo; e < start[a]; e++)
            if (e == lo || bs[e] != bs[e - 1])
                cand[nu++] = (prm_edge){a, bs[e], {0}};
    }
    *nc = n;
    free(start);
    free(bs);
    return nu;
}

static trv_status connect_nodes(trv_ctx *ctx, const prm_terrain *t, const trv_bucket *ix, prm_roadmap *r,
                                int *parent, size_t *ecap)
{
    int cap = r->radius > 0 ? 256 : r->k;
    int *nbr = malloc((size_t)r->nnodes * cap * sizeof *nbr), *cnt = malloc((size_t)r->nnodes * sizeof *cnt);
    prm_edge *cand = malloc((size_t)r->nnodes * cap * sizeof *cand);
    trv_status st = TRV_OK;
    if (!nbr || !cnt || !cand) {
        st = trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
        goto done;
    }
    if ((st = near_all(ctx, t, ix, r, r->k, r->radius, cap, NULL, nbr, cnt, NULL)))
        goto done;
    size_t nc = 0;
    long sorted = sorted_pairs(r, nbr, cnt, cap, cand, &nc);
    *ecap = nc;
    r->edges = sorted < 0 ? NULL : malloc((nc ? nc : 1) * sizeof *r->edges); /* grown by the bridging pass */
    if (!r->edges) {
        st = trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
        goto done;
    }
    /* unique candidates, measured in parallel, then kept where unblocked */
    size_t nu = (size_t)sorted;
    if ((st = trv_progress(ctx, 0.1, "roadmap")))
        goto done;
    measure_all(t, r, cand, nu);
    for (size_t e = 0; e < nu; e++) {
        if (cand[e].p.blocked)
            continue;
        r->edges[r->nedges++] = cand[e];
        parent[prm_uf_find(parent, cand[e].a)] = prm_uf_find(parent, cand[e].b);
    }
    st = trv_progress(ctx, 0.8, "roadmap");
done:
    free(nbr);
    free(cnt);
    free(cand);
    return st;
}

/* Bridging: straight k-nearest edges miss winding corridors; for each
 * node, try its 4k nearest again, keeping only edges that join two
 * components (a classic PRM connection pass; cheap, since few pass). The
 * neighbours and the blocked test of every pair in different components
 * at the start come first, on every core (components only merge, so every
 * pair the pass tries is among them); the pass itself then runs in order,
 * measuring only the pairs that are not blocked: the same edges as trying
 * each pair in turn. */
static trv_status bridge(trv_ctx *ctx, const prm_terrain *t, const trv_bucket *ix, prm_roadmap *r, int *parent,
                         size_t *ecap)
{
    int cap = 4 * (r->k > 0 ? r->k : 16);
    size_t slots = (size_t)r->nnodes * cap;
    int *nbr = malloc(slots * sizeof *nbr), *cnt = malloc((size_t)r->nnodes * sizeof *cnt);
    int *root = malloc((size_t)r->nnodes * sizeof *root);
    unsigned char *blocked = malloc(slots);
    trv_status st = TRV_OK;
    if (!nbr || !cnt || !root || !blocked)
        st = trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
    for (int i = 0; i < r->nnodes && !st; i++)
        root[i] = prm_uf_find(parent, i);
    if (!st)
        st = near_all(ctx, t, ix, r, cap, 0, cap, root, nbr, cnt, blocked);
    for (int i = 0; i < r->nnodes && !st; i++) {
        for (int q = 0; q < cnt[i]; q++) {
            size_t slot = (size_t)i * cap + q;
            int j = nbr[slot];
            if (prm_uf_find(parent, i) == prm_uf_find(parent, j) || blocked[slot])
                continue;
            int added;
            if ((st = prm_edge_add(ctx, t, r, parent, ecap, i, j, &added)))
                break;
        }
    }
    free(nbr);
    free(cnt);
    free(root);
    free(blocked);
    return st;
}

/* The components' count and the largest one's size (size: nnodes zeros). */
static void components(const prm_roadmap *r, int *parent, int *size, prm_build_stats *stats)
{
    for (int i = 0; i < r->nnodes; i++)
        size[prm_uf_find(parent, i)]++;
    for (int i = 0; i < r->nnodes; i++)
        if (size[i]) {
            stats->components++;
            if (size[i] > stats->largest)
                stats->largest = size[i];
        }
}

/* Coverage: the fraction of GO cells (every 4th row and column) within one
 * node spacing, sqrt(GO area / nodes), of a node; the rows in bands on
 * every core (the counts are exact, so their sum is the same). */
typedef struct cover_job {
    const prm_terrain *t;
    const trv_bucket *ix;
    double spacing;
    int row0, row1;
    long seen, near;
} cover_job;

static void *cover_rows(void *arg)
{
    cover_job *j = arg;
    const prm_terrain *t = j->t;
    const geo_grid *g = t->grid;
    long one;
    double dd;
    for (int row = j->row0; row < j->row1; row += 4)
        for (int col = 0; col < g->nx; col += 4) {
            long c = (long)row * g->nx + col;
            if (!prm_cell_go(t, c))
                continue;
            j->seen++;
            double cx = geo_grid_x(g, col), cy = geo_grid_y(g, row);
            if (near_nodes(j->ix, cx, cy, 1, 0, -1, 1, &one, &dd) == 1 &&
                sqrt(dd) * t->cell_m / g->gt[1] <= j->spacing)
                j->near++;
        }
    return NULL;
}

static double coverage(const prm_terrain *t, const trv_bucket *ix, const prm_roadmap *r, double go_area_km2)
{
    int nt = t->ready ? 1 : prm_cores(), bands = (t->grid->ny + 3) / 4; /* rows 0, 4, 8, ... */
    cover_job jobs[PRM_MAX_THREADS];
    for (int i = 0; i < nt; i++)
        jobs[i] = (cover_job){t, ix, sqrt(go_area_km2 * 1e6 / r->nnodes), (int)(4 * ((long)bands * i / nt)),
                              (int)(4 * ((long)bands * (i + 1) / nt)), 0, 0};
    prm_on_cores(cover_rows, jobs, sizeof *jobs, nt);
    long seen = 0, near = 0;
    for (int i = 0; i < nt; i++)
        seen += jobs[i].seen, near += jobs[i].near;
    return seen ? (double)near / seen : 0;
}

trv_status prm_roadmap_build(trv_ctx *ctx, const prm_terrain *t, const prm_build_opts *o, prm_roadmap **out,
                             prm_build_stats *stats)
{
    *out = NULL;
    memset(stats, 0, sizeof *stats);
    trv_status st = prm_build_opts_check(ctx, o);
    if (st)
        return st;
    const geo_grid *g = t->grid;
    size_t ncell = (size_t)g->nx * g->ny, go = 0;
    int tile = prm_build_tile(o, g);
    const char *bd = tile ? o->blocks_dir : NULL; /* GO area, nodes and coverage by row blocks */
    if (bd && (st = prm_blocks_go_count(ctx, bd, &go)))
        return st;
    for (size_t i = 0; i < ncell && !bd; i++)
        go += prm_cell_go(t, (long)i);
    if (go == 0)
        return trv_error(ctx, TRV_ERR_DATA, "the terrain has no GO cell: nothing to build a roadmap on");
    double cell_km2 = t->cell_m * t->cell_m / 1e6;
    stats->go_area_km2 = go * cell_km2;
    int want = o->nodes > 0 ? o->nodes : (int)fmin(fmax(stats->go_area_km2 / 0.02, 200), 100000);
    prm_roadmap *r = calloc(1, sizeof *r);
    if (!r || !(r->x = malloc((size_t)want * sizeof *r->x)) || !(r->y = malloc((size_t)want * sizeof *r->y)) ||
        (g->wkt && !(r->wkt = strdup(g->wkt)))) {
        prm_roadmap_free(r);
        return trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
    }
    r->seed = o->seed;
    r->k = o->radius > 0 ? 0 : o->k;
    r->radius = o->radius > 0 ? o->radius : 0;
    if ((st = bd ? prm_blocks_sample(ctx, bd, o, want, (double)go / ncell, r, stats)
                 : sample_nodes(ctx, t, o, want, (double)go / ncell, r, stats))) {
        prm_roadmap_free(r);
        return st;
    }
    trv_bucket *ix = trv_bucket_new(r->x, r->y, (size_t)r->nnodes, 0);
    int *parent = malloc((size_t)r->nnodes * sizeof *parent), *size = NULL;
    size_t ecap = 0;
    int nsorted = 0; /* the straight pass's edges, in order */
    if (!ix || !parent) {
        st = trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
        goto done;
    }
    for (int i = 0; i < r->nnodes; i++)
        parent[i] = i;
    if ((st = connect_nodes(ctx, t, ix, r, parent, &ecap)))
        goto done;
    nsorted = r->nedges;
    if ((st = bridge(ctx, t, ix, r, parent, &ecap)))
        goto done;
    for (int i = 0; i < r->nnodes; i++)
        stats->components_straight += prm_uf_find(parent, i) == i;
    trv_bucket_free(ix); /* it points into r->x, which the raster pass grows */
    ix = NULL;
    stats->detour = o->straight_only || tile ? 0 : o->detour;
    if (!o->straight_only &&
        (st = tile ? prm_bridge_raster_tiled(ctx, t, r, &parent, &ecap, (size_t)r->nnodes, tile, stats)
                   : prm_bridge_raster(ctx, t, r, &parent, &ecap, (size_t)r->nnodes, o->detour, stats)))
        goto done;
    if ((st = sort_edges(ctx, r, nsorted)))
        goto done;
    if (!(size = calloc((size_t)r->nnodes, sizeof *size)) ||
        !(ix = trv_bucket_new(r->x, r->y, (size_t)r->nnodes, 0))) {
        st = trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
        goto done;
    }
    components(r, parent, size, stats);
    if (bd && (st = prm_blocks_coverage(ctx, bd, ix, r, t->cell_m, stats->go_area_km2, &stats->coverage)))
        goto done;
    if (!bd)
        stats->coverage = coverage(t, ix, r, stats->go_area_km2);
    if ((st = prm_roadmap_adjacency(ctx, r)))
        goto done;
    st = trv_progress(ctx, 1.0, "roadmap");
done:
    free(parent);
    free(size);
    trv_bucket_free(ix);
    if (st)
        prm_roadmap_free(r);
    else
        *out = r;
    return st;
}

/* ---- GeoPackage ---- */

static const char *const EDGE_FIELDS[] = {"a", "b", "d_m", "low_m", "high_m", "safe_m", "slope_mean_deg",
                                         "slope_max_deg", "time_fwd_s", "time_rev_s", "cost_mean", "slope_int",
                                         "elev_mean_m"};
enum { NEF = sizeof EDGE_FIELDS / sizeof EDGE_FIELDS[0] };

trv_status prm_roadmap_write(trv_ctx *ctx, const prm_roadmap *r, const char *path, const trv_meta *meta)
{
    geo_vec *v = NULL;
    trv_status st = geo_vec_create(ctx, path, r->wkt, &v);
    if (st)
        return st;
    geo_vec_set_meta(v, meta); /* the seed, above all: the roadmap is random */
    geo_field nf[] = {{"id", GEO_FIELD_INT}};
    geo_field ef[NEF];
    for (int k = 0; k < NEF; k++)
        ef[k] = (geo_field){EDGE_FIELDS[k], k < 2 ? GEO_FIELD_INT : GEO_FIELD_REAL};
    int ln, le;
    if ((st = geo_vec_add_layer(ctx, v, "nodes", GEO_POINT, nf, 1, &ln)) ||
        (st = geo_vec_add_layer(ctx, v, "edges", GEO_LINE, ef, NEF, &le)))
        goto fail;
    /* an R-tree over some 200 000 edges would double the build time; trv-route
     * reads the layer whole, and QGIS draws it without one */
    geo_vec_no_index(v, le);
    for (int i = 0; i < r->nnodes && !st; i++) {
        geo_value val = {.i = i};
        st = geo_vec_add(ctx, v, ln, &r->x[i], &r->y[i], NULL, 1, &val);
    }
    for (int e = 0; e < r->nedges && !st; e++) {
        const prm_edge *ed = &r->edges[e];
        const prm_piece *p = &ed->p;
        double d = p->d > 0 ? p->d : 1;
        geo_value val[NEF] = {{.i = ed->a}, {.i = ed->b}, {.r = p->d}, {.r = p->l}, {.r = p->h}, {.r = p->s},
                              {.r = p->slope_int / d}, {.r = p->slope_max}, {.r = p->time_s}, {.r = p->time_rev_s},
                              {.r = p->cost_int / d}, {.r = p->slope_int}, {.r = p->elev_int / d}};
        double xs[2] = {r->x[ed->a], r->x[ed->b]}, ys[2] = {r->y[ed->a], r->y[ed->b]};
        st = geo_vec_add(ctx, v, le, xs, ys, NULL, 2, val);
    }
    if (st)
        goto fail;
    return geo_vec_close(ctx, v);
fail:
    geo_vec_free(v);
    return st;
}

trv_status prm_roadmap_read(trv_ctx *ctx, const char *path, prm_roadmap **out)
{
    *out = NULL;
    static const char *const node_fields[] = {"id"};
    geo_table *nt = NULL, *et = NULL;
    trv_status st;
    if ((st = geo_table_read(ctx, path, "nodes", node_fields, 1, &nt)) ||
        (st = geo_table_read(ctx, path, "edges", EDGE_FIELDS, NEF, &et))) {
        geo_table_free(nt);
        return st;
    }
    prm_roadmap *r = calloc(1, sizeof *r);
    if (!r || !(r->x = malloc((size_t)(nt->n + 1) * sizeof *r->x)) ||
        !(r->y = malloc((size_t)(nt->n + 1) * sizeof *r->y)) ||
        !(r->edges = malloc((size_t)(et->n + 1) * sizeof *r->edges)) || (nt->wkt && !(r->wkt = strdup(nt->wkt)))) {
        st = trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
        goto done;
    }
    r->nnodes = (int)nt->n;
    for (long i = 0; i < nt->n; i++) {
        if (nt->v[i] != (double)i || isnan(nt->x[i])) {
            st = trv_error(ctx, TRV_ERR_FORMAT, "'%s': node %ld is out of order or has no point", path, i);
            goto done;
        }
        r->x[i] = nt->x[i];
        r->y[i] = nt->y[i];
    }
    for (long e = 0; e < et->n; e++) {
        const double *v = et->v + e * NEF;
        prm_edge *ed = &r->edges[r->nedges++];
        memset(ed, 0, sizeof *ed);
        if (!(v[0] >= 0 && v[0] < r->nnodes && v[1] >= 0 && v[1] < r->nnodes && v[0] < v[1])) {
            st = trv_error(ctx, TRV_ERR_FORMAT, "'%s': edge %ld joins nodes that do not exist", path, e);
            goto done;
        }
        ed->a = (int)v[0];
        ed->b = (int)v[1];
        ed->p.d = v[2];
        ed->p.l = v[3];
        ed->p.h = v[4];
        ed->p.s = v[5];
        ed->p.slope_max = v[7];
        ed->p.time_s = v[8];
        ed->p.time_rev_s = v[9];
        ed->p.cost_int = v[10] * v[2];
        ed->p.slope_int = v[11];
        ed->p.elev_int = v[12] * v[2];
    }
    st = prm_roadmap_adjacency(ctx, r);
done:
    geo_table_free(nt);
    geo_table_free(et);
    if (st)
        prm_roadmap_free(r);
    else
        *out = r;
    return st;
}
