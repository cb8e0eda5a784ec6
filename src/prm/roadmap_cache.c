/* The roadmap cache (prm.h): the roadmap exactly as prm_roadmap_read gives
 * it from the GeoPackage, with its adjacency, and the facts of the terrain
 * it was built from, in one binary file that trv-route reads in a few
 * milliseconds instead of the GeoPackage's second.
 *
 * Layout (native byte order and struct layout: a cache is read by the build
 * that wrote it, and the header says which):
 *   header      magic "TRVRMAP\0", version, byte-order mark 0x01020304,
 *               sizeof(prm_edge), the GeoPackage's identity
 *   terrain     per file of the run directory a route reads (the six layers,
 *               soil, land use, the speed model's three copies): its
 *               identity, size UINT64_MAX when absent
 *   facts       top speed, tmax, direction-aware, npairs, codes, and when
 *               direction-aware the pace table (pace, ok) and dem's seams
 *               (the grid's nx, ny, zeros to a multiple of 8 bytes, the
 *               hash of each piece, prm_seams_pieces, then the cells,
 *               prm_seams_count; version 5: not read but mapped, each piece
 *               checked when a lazy tile reads it, seams.c); the class code
 *               runs (ncells, nruns, their hash, the lengths, the codes;
 *               version 5: not read but
 *               mapped, checked when first expanded, prm_lazy_codes)
 *   roadmap     nnodes, nedges, k, radius, seed, the CRS, zeros to 8;
 *               read whole: x, y, adj_start, per node a label of its
 *               component over every edge (the flat search's components
 *               pass, done once here), adj (the edges renumbered as
 *               below, in their order), zeros to 8, their hash; then,
 *               version 6, not read but mapped: the pieces' table (tiles
 *               across and down, renumbered, 0, the tiles' corner and
 *               side, the roadmap's prm_hier_hash, nb + 1 edge starts, nb
 *               hashes) and the edges (prm_edge) in order of the tile of
 *               their first end: a tile's piece (roadmap_pieces.h) checked
 *               when a search first needs one of its edges
 *               (prm_roadmap_need)
 *   layers      the terrain's arrays as prm_terrain_load has them in memory
 *               (cache_layers.c, prm_priv.h), mapped when read; none (their
 *               header's count 0) above PRM_TILED_CELLS cells (tiled.h: 28
 *               bytes a cell, 28 GB at 10^9 cells), the reader then reading
 *               the GeoTIFFs' tiles as a lazy terrain does
 * A cache must be exactly as long as its counts say, its nodes' hash
 * and its pieces' edge starts right (else it is damaged); one of an older
 * version (4: the seams and the runs read whole; 5: the roadmap read and
 * checked whole)
 * or another build is not used, as a stale one (a note, the GeoPackage
 * and the whole terrain read instead; trv-roadmap writes a new one). A
 * damaged seam piece is found when a tile reads it, damaged runs when
 * the codes are expanded: the query fails with a message naming the cache
 * (prm_terrain_status); a damaged roadmap piece when the search first
 * needs it (an edge's ends or an adjacency entry out of range, or its
 * hash: the query fails naming the cache).
 * A file's identity is its size and a hash of its first and last 64 KiB
 * (a GeoPackage's first page holds SQLite's change counter; a GeoTIFF's
 * head and tail its tile offsets and sizes). */
#include "tiled.h"
#include "hier.h"
#include "roadmap_pieces.h"
#include "run/run.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

static const char MAGIC[8] = "TRVRMAP";
enum { VERSION = 6, BOM = 0x01020304, ENDS = 65536 };

typedef struct ident {
    uint64_t size, hash;
} ident;

static uint64_t hash_bytes(uint64_t h, const unsigned char *p, size_t n)
{
    return prm_hash_bytes(h, p, n);
}

static ident identify(const char *path)
{
    ident id = {UINT64_MAX, 0};
    FILE *f = fopen(path, "rb");
    struct stat sb;
    if (!f)
        return id;
    unsigned char *buf = malloc(ENDS);
    if (buf && fstat(fileno(f), &sb) == 0) {
        id.size = (uint64_t)sb.st_size;
        id.hash = 0xcbf29ce484222325ULL;
        size_t n = fread(buf, 1, ENDS, f);
        id.hash = hash_bytes(id.hash, buf, n);
        if (id.size > ENDS && fseeko(f, (off_t)(id.size > 2 * ENDS ? id.size - ENDS : ENDS), SEEK_SET) == 0) {
            n = fread(buf, 1, ENDS, f);
            id.hash = hash_bytes(id.hash, buf, n);
        }
    }
    free(buf);
    fclose(f);
    return id;
}

/* The run directory's files a route reads. */
enum { NFILES = 11 };
static trv_status terrain_idents(trv_ctx *ctx, const char *dir, ident out[NFILES])
{
    static const run_id layers[8] = {RUN_CLASS, RUN_COST, RUN_GONOGO, RUN_DEM, RUN_SLOPE, RUN_SPEED, RUN_SOIL,
                                     RUN_LANDUSE};
    static const run_oid others[3] = {RUN_O_SPEED_VEHICLE, RUN_O_SPEED_SOILS, RUN_O_SPEED_LANDUSE};
    for (int k = 0; k < NFILES; k++) {
        char *p = k < 8 ? run_path(dir, layers[k]) : run_other_path(dir, others[k - 8]);
        if (!p)
            return trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
        out[k] = identify(p);
        free(p);
    }
    return TRV_OK;
}

char *prm_roadmap_cache_path(const char *gpkg)
{
    size_t n = strlen(gpkg);
    const char *slash = strrchr(gpkg, '/'), *dot = strrchr(gpkg, '.');
    if (dot && (!slash || dot > slash + 1))
        n = (size_t)(dot - gpkg);
    char *p = malloc(n + 5);
    if (p) {
        memcpy(p, gpkg, n);
        memcpy(p + n, ".bin", 5);
    }
    return p;
}

/* ---- writing ---------------------------------------------------------------------- */

/* The file is made in memory, then written at once. */
typedef struct sink {
    unsigned char *p;
    size_t n, cap;
    int bad;
} sink;

static void put(sink *o, const void *p, size_t n)
{
    if (n == 0 || o->bad)
        return;
    if (o->n + n > o->cap) {
        size_t cap = o->cap ? o->cap : 1 << 20;
        while (cap < o->n + n)
            cap *= 2;
        unsigned char *q = realloc(o->p, cap);
        if (!q) {
            o->bad = 1;
            return;
        }
        o->p = q;
        o->cap = cap;
    }
    memcpy(o->p + o->n, p, n);
    o->n += n;
}

/* An edge as prm_roadmap_read gives it back from the GeoPackage, which
 * stores the means cost_int / d and elev_int / d (d 1 when 0). */
static void as_read(const prm_edge *e, prm_edge *o)
{
    memset(o, 0, sizeof *o);
    const prm_piece *p = &e->p;
    double d = p->d > 0 ? p->d : 1;
    o->a = e->a;
    o->b = e->b;
    o->p.d = p->d;
    o->p.l = p->l;
    o->p.h = p->h;
    o->p.s = p->s;
    o->p.slope_max = p->slope_max;
    o->p.time_s = p->time_s;
    o->p.time_rev_s = p->time_rev_s;
    o->p.cost_int = p->cost_int / d * p->d;
    o->p.slope_int = p->slope_int;
    o->p.elev_int = p->elev_int / d * p->d;
}

static void pad8(sink *o)
{
    static const unsigned char zeros[8];
    size_t k = (8 - o->n % 8) % 8;
    put(o, zeros, k);
}

/* The tiles (roadmap_pieces.h): square, about a page (4 KiB) of edges
 * each, at most 4096 a side; one tile when the edges are not in order of
 * (a, b) (they are then not renumbered). */
static void tiles_of(const prm_roadmap *r, int sorted, prm_roadmap_map *m)
{
    double x0 = r->nnodes ? r->x[0] : 0, x1 = x0, y0 = r->nnodes ? r->y[0] : 0, y1 = y0;
    for (int i = 1; i < r->nnodes; i++) {
        x0 = r->x[i] < x0 ? r->x[i] : x0, x1 = r->x[i] > x1 ? r->x[i] : x1;
        y0 = r->y[i] < y0 ? r->y[i] : y0, y1 = r->y[i] > y1 ? r->y[i] : y1;
    }
    double w = x1 - x0, h = y1 - y0, per_node = r->nnodes ? (double)r->nedges * sizeof(prm_edge) / r->nnodes : 1;
    double nodes = 4096 / (per_node > 1 ? per_node : 1), side = sqrt(w * h * nodes / (r->nnodes ? r->nnodes : 1));
    if (!(side > 0))
        side = (w > h ? w : h) > 0 ? (w > h ? w : h) : 1;
    while (w / side >= 4096 || h / side >= 4096)
        side *= 2;
    m->x0 = x0, m->y0 = y0, m->side = side, m->renumbered = sorted;
    m->ntx = sorted ? (int)floor(w / side) + 1 : 1, m->nty = sorted ? (int)floor(h / side) + 1 : 1;
    m->nb = m->ntx * m->nty;
}

/* The new number of each edge (tile order, the old order within a tile:
 * a counting sort) and the tiles' starts eb; 0, or -1 out of memory. */
static int tile_order(const prm_roadmap *r, const prm_roadmap_map *m, int *renum, int64_t *eb)
{
    int *tile = malloc(((size_t)r->nnodes + 1) * sizeof *tile);
    if (!tile)
        return -1;
    for (int i = 0; i < r->nnodes; i++)
        tile[i] = m->nb == 1 ? 0 : prm_roadmap_tile_of(r->x[i], r->y[i], m->x0, m->y0, m->side, m->ntx, m->nty);
    memset(eb, 0, ((size_t)m->nb + 1) * sizeof *eb);
    for (int e = 0; e < r->nedges; e++)
        eb[tile[r->edges[e].a] + 1]++;
    for (int b = 0; b < m->nb; b++)
        eb[b + 1] += eb[b];
    int64_t *fill = malloc(((size_t)m->nb + 1) * sizeof *fill);
    if (!fill) {
        free(tile);
        return -1;
    }
    memcpy(fill, eb, ((size_t)m->nb + 1) * sizeof *fill);
    for (int e = 0; e < r->nedges; e++)
        renum[e] = (int)fill[tile[r->edges[e].a]]++;
    free(fill);
    free(tile);
    return 0;
}

/* 1 when r's edges are in strictly increasing order of (a, b) (as built). */
static int edges_sorted(const prm_roadmap *r)
{
    for (int e = 1; e < r->nedges; e++)
        if (r->edges[e - 1].a > r->edges[e].a ||
            (r->edges[e - 1].a == r->edges[e].a && r->edges[e - 1].b >= r->edges[e].b))
            return 0;
    return 1;
}

/* The pieces' table and the edges (as_read's, in e, put in tile order):
 * ntx, nty, renumbered, 0 (int32), x0, y0, side, the roadmap's
 * prm_hier_hash, the edge starts, the hashes (roadmap_pieces.h). */
static void put_pieces(sink *o, const prm_roadmap *r, const prm_edge *e, const int *renum, const prm_roadmap_map *m,
                       const int64_t *eb)
{
    prm_roadmap v = *r;
    v.edges = (prm_edge *)e;
    size_t ne = (size_t)r->nedges;
    prm_edge *te = malloc(ne * sizeof *te + 1);
    uint64_t *h = malloc(((size_t)m->nb + 1) * sizeof *h);
    if (!te || !h) {
        free(te);
        free(h);
        o->bad = 1;
        return;
    }
    for (size_t q = 0; q < ne; q++)
        te[renum[q]] = e[q];
    for (int b = 0; b < m->nb; b++)
        h[b] = prm_roadmap_piece_hash(te, eb, b);
    uint64_t hh = prm_hier_hash(&v); /* so that an index is matched without reading every edge */
    int32_t head[4] = {m->ntx, m->nty, m->renumbered, 0};
    double grid[3] = {m->x0, m->y0, m->side};
    put(o, head, sizeof head);
    put(o, grid, sizeof grid);
    put(o, &hh, sizeof hh);
    put(o, eb, ((size_t)m->nb + 1) * sizeof *eb);
    put(o, h, (size_t)m->nb * sizeof *h);
    put(o, te, ne * sizeof *te);
    free(te);
    free(h);
}

/* Version 6: the counts, the CRS, zeros to 8; the nodes (x, y, adj_start,
 * their components' labels) and the adjacency (its edges renumbered, in
 * their order), zeros to 8, their hash, read whole; the pieces' table and
 * the edges, mapped (roadmap_pieces.h). */
static void put_roadmap(sink *o, const prm_roadmap *r)
{
    /* as prm_roadmap_read: no seed, k or radius (the GeoPackage keeps them as metadata only) */
    int32_t counts[3] = {r->nnodes, r->nedges, 0};
    double radius = 0;
    uint64_t seed = 0;
    uint32_t lw = r->wkt ? (uint32_t)strlen(r->wkt) : 0;
    size_t nn = (size_t)r->nnodes, ne = (size_t)r->nedges;
    prm_roadmap_map m = {0};
    tiles_of(r, edges_sorted(r), &m);
    prm_edge *e = malloc(ne * sizeof *e + 1);
    int *comp = prm_components(r, NULL), *renum = malloc(ne * sizeof *renum + 1),
        *adj = malloc(2 * ne * sizeof *adj + 1);
    int64_t *eb = malloc(((size_t)m.nb + 1) * sizeof *eb);
    if (!e || !comp || !renum || !adj || !eb || tile_order(r, &m, renum, eb)) {
        o->bad = 1;
    } else {
        for (size_t q = 0; q < ne; q++)
            as_read(&r->edges[q], &e[q]);
        for (size_t j = 0; j < 2 * ne; j++)
            adj[j] = renum[r->adj[j]];
        put(o, counts, sizeof counts);
        put(o, &radius, sizeof radius);
        put(o, &seed, sizeof seed);
        put(o, &lw, sizeof lw);
        put(o, r->wkt, lw);
        pad8(o);
        size_t at = o->n;
        put(o, r->x, nn * sizeof *r->x);
        put(o, r->y, nn * sizeof *r->y);
        put(o, r->adj_start, (nn + 1) * sizeof *r->adj_start);
        put(o, comp, nn * sizeof *comp);
        put(o, adj, 2 * ne * sizeof *adj);
        pad8(o);
        uint64_t h = o->bad ? 0 : prm_hash_bytes(PRM_FNV_SEED, o->p + at, o->n - at);
        put(o, &h, sizeof h);
        put_pieces(o, r, e, renum, &m, eb);
    }
    free(e);
    free(comp);
    free(renum);
    free(adj);
    free(eb);
}

/* The class code runs: ncells, nruns, their hash, the lengths (from an
 * even byte: everything before is whole 2-, 4- and 8-byte values or the
 * pairs' 2 bytes each), the codes. */
static void put_runs(sink *o, const prm_terrain_facts *f)
{
    uint64_t n[2] = {f->ncells, f->nruns}, h = prm_class_runs_hash(f->run_code, f->run_len, f->nruns);
    put(o, n, sizeof n);
    put(o, &h, sizeof h);
    put(o, f->run_len, f->nruns * sizeof *f->run_len);
    put(o, f->run_code, f->nruns);
}

/* dem's seams: the grid, zeros to a multiple of 8 bytes, each piece's hash
 * (seams.c), the cells. */
static void put_seams(sink *o, const prm_terrain_facts *f)
{
    int32_t sg[2] = {f->seam_nx, f->seam_ny};
    size_t np = prm_seams_pieces(f->seam_nx, f->seam_ny);
    uint64_t *h = malloc(np * sizeof *h + 1);
    static const unsigned char zeros[8];
    if (!h) {
        o->bad = 1;
        return;
    }
    prm_seams_hash(f->seams, f->seam_nx, f->seam_ny, h);
    put(o, sg, sizeof sg);
    put(o, zeros, (8 - o->n % 8) % 8);
    put(o, h, np * sizeof *h);
    put(o, f->seams, prm_seams_count(f->seam_nx, f->seam_ny) * sizeof *f->seams);
    free(h);
}

trv_status prm_roadmap_cache_write(trv_ctx *ctx, const prm_roadmap *r, const prm_terrain *t, const char *dir,
                                   const char *gpkg, const char *path)
{
    int layers = (double)t->grid->nx * t->grid->ny <= PRM_TILED_CELLS;
    return prm_roadmap_cache_write_layers(ctx, r, t, dir, gpkg, path, layers);
}

trv_status prm_roadmap_cache_write_layers(trv_ctx *ctx, const prm_roadmap *r, const prm_terrain *t, const char *dir,
                                          const char *gpkg, const char *path, int layers)
{
    prm_terrain_facts f;
    trv_status st = prm_terrain_facts_of(ctx, t, &f);
    if (!st)
        st = prm_roadmap_cache_write_facts(ctx, r, t, &f, dir, gpkg, path, layers);
    prm_terrain_facts_clear(&f);
    return st;
}

trv_status prm_roadmap_cache_write_facts(trv_ctx *ctx, const prm_roadmap *r, const prm_terrain *t,
                                         const prm_terrain_facts *fp_, const char *dir, const char *gpkg,
                                         const char *path, int layers)
{
    ident files[NFILES], g = identify(gpkg);
    const prm_terrain_facts f = *fp_;
    trv_status st = terrain_idents(ctx, dir, files);
    if (st)
        return st;
    if (g.size == UINT64_MAX)
        return trv_error(ctx, TRV_ERR_IO, "cannot read '%s' back", gpkg);
    sink o = {0};
    uint32_t head[4] = {VERSION, BOM, (uint32_t)sizeof(prm_edge), NFILES};
    put(&o, MAGIC, sizeof MAGIC);
    put(&o, head, sizeof head);
    put(&o, &g, sizeof g);
    put(&o, files, sizeof files);
    int32_t fi[2] = {f.direction_aware, f.npairs};
    put(&o, &f.top_speed_kmh, sizeof f.top_speed_kmh);
    put(&o, &f.tmax, sizeof f.tmax);
    put(&o, fi, sizeof fi);
    put(&o, f.codes, 2 * (size_t)f.npairs);
    if (f.direction_aware) {
        put(&o, f.pace, (size_t)f.npairs * (PRM_PACE_NODES + 1) * sizeof *f.pace);
        put(&o, f.ok, (size_t)f.npairs * PRM_PACE_NODES);
        put_seams(&o, &f);
    }
    put_runs(&o, &f);
    put_roadmap(&o, r);
    FILE *fp = o.bad ? NULL : fopen(path, "wb");
    if (o.bad) {
        st = trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
    } else if (!fp) {
        st = trv_error(ctx, TRV_ERR_IO, "cannot create '%s': %s", path, strerror(errno));
    } else {
        int bad = fwrite(o.p, 1, o.n, fp) != o.n;
        if (!bad)
            st = prm_cache_layers_write(ctx, fp, o.n, t, path, layers);
        if ((fclose(fp) != 0 || bad) && !st)
            st = trv_error(ctx, TRV_ERR_IO, "cannot write '%s': %s", path, strerror(errno));
    }
    free(o.p);
    return st;
}

/* ---- reading ---------------------------------------------------------------------- */

typedef struct bytes {
    FILE *f;
    uint64_t left;          /* bytes not read yet */
    uint64_t size;          /* the file's */
    uint64_t seam_at, seam_len; /* dem's seams' hashes and cells, skipped (map_seams maps them) */
    uint64_t runs_at;       /* the class code runs' lengths, then codes, skipped (map_runs) */
    uint64_t road_at, road_len; /* the roadmap's pieces' table, edges and adjacency, skipped (map_roadmap) */
} bytes;

static int get(bytes *b, void *dst, size_t n)
{
    if (n > b->left || fread(dst, 1, n, b->f) != n)
        return -1;
    b->left -= n;
    return 0;
}

static int skip(bytes *b, uint64_t n)
{
    if (n > b->left || n > INT64_MAX || fseeko(b->f, (off_t)n, SEEK_CUR) != 0)
        return -1;
    b->left -= n;
    return 0;
}

/* An adjacency whose starts run from 0 to 2 nedges, never down, and whose
 * entries are edges that exist (each piece's edges are checked when first
 * needed: roadmap_pieces.c). */
static int adjacency_valid(const prm_roadmap *r)
{
    if (r->adj_start[0] != 0 || r->adj_start[r->nnodes] != 2 * r->nedges)
        return 0;
    for (int i = 0; i < r->nnodes; i++)
        if (r->adj_start[i + 1] < r->adj_start[i])
            return 0;
    for (long k = 0; k < 2L * r->nedges; k++)
        if (r->adj[k] < 0 || r->adj[k] >= r->nedges)
            return 0;
    return 1;
}

static int skip_pad8(bytes *b)
{
    uint64_t at = b->size - b->left;
    return skip(b, (8 - at % 8) % 8);
}

/* The nodes' arrays and the adjacency read whole, against their hash. */
static int get_nodes(bytes *b, prm_roadmap *r)
{
    uint64_t nn = (uint64_t)r->nnodes, ne = (uint64_t)r->nedges, h;
    size_t n = 2 * nn * sizeof(double) + (2 * nn + 1) * sizeof(int) + 2 * ne * sizeof(int);
    if (b->left < n)
        return -1;
    unsigned char *p = malloc(n + 8);
    if (!p)
        return -2;
    int bad = get(b, p, n) || skip_pad8(b) || get(b, &h, sizeof h);
    memset(p + n, 0, 8); /* hashed with the zeros after them, as put_roadmap */
    uint64_t hn = prm_hash_bytes(PRM_FNV_SEED, p, n + (8 - n % 8) % 8);
    size_t os = 2 * nn * sizeof(double), oc = os + (nn + 1) * sizeof(int), oa = oc + nn * sizeof(int);
    if (!bad && hn == h && (r->x = malloc(nn * sizeof *r->x + 1)) && (r->y = malloc(nn * sizeof *r->y + 1)) &&
        (r->adj_start = malloc((nn + 1) * sizeof *r->adj_start)) && (r->comp = malloc(nn * sizeof *r->comp + 1)) &&
        (r->adj = malloc(2 * ne * sizeof *r->adj + 1))) {
        memcpy(r->x, p, nn * sizeof *r->x);
        memcpy(r->y, p + nn * sizeof(double), nn * sizeof *r->y);
        memcpy(r->adj_start, p + os, (nn + 1) * sizeof *r->adj_start);
        memcpy(r->comp, p + oc, nn * sizeof *r->comp);
        memcpy(r->adj, p + oa, 2 * ne * sizeof *r->adj);
        free(p);
        return adjacency_valid(r) ? 0 : -1;
    }
    free(p);
    return bad || hn != h ? -1 : -2;
}

/* Version 6's roadmap (put_roadmap): the nodes and adjacency read, the
 * pieces' table and edges skipped (map_roadmap maps them). */
static int get_roadmap(bytes *b, prm_roadmap *r)
{
    int32_t counts[3], head[4];
    uint32_t lw;
    if (get(b, counts, sizeof counts) || get(b, &r->radius, sizeof r->radius) ||
        get(b, &r->seed, sizeof r->seed) || get(b, &lw, sizeof lw) || counts[0] < 0 || counts[1] < 0 ||
        lw > b->left)
        return -1;
    r->nnodes = counts[0];
    r->nedges = counts[1];
    r->k = counts[2];
    if (!(r->wkt = malloc(lw + 1)))
        return -2;
    if (get(b, r->wkt, lw) || skip_pad8(b))
        return -1;
    r->wkt[lw] = 0;
    if (lw == 0) {
        free(r->wkt);
        r->wkt = NULL;
    }
    int st = get_nodes(b, r);
    if (st)
        return st;
    b->road_at = b->size - b->left;
    if (get(b, head, sizeof head) || head[0] < 1 || head[1] < 1 || head[0] > 4096 || head[1] > 4096)
        return -1;
    uint64_t nb = (uint64_t)head[0] * (uint64_t)head[1], ne = (uint64_t)r->nedges;
    uint64_t n = 24 + 8 + (nb + 1) * 8 + nb * 8 + ne * sizeof(prm_edge);
    if (skip(b, n))
        return -1;
    b->road_len = n + sizeof head;
    return 0;
}

/* Bytes from..from + n of the file mapped read-only (advice: how they are
 * read); *in: where from lies in the mapping. NULL when it fails. */
static void *map_part(int fd, uint64_t from, uint64_t n, int advice, size_t *len, uint64_t *in)
{
    long pg = sysconf(_SC_PAGESIZE);
    uint64_t at = from - from % (uint64_t)(pg > 0 ? pg : 4096);
    *in = from - at, *len = (size_t)(*in + n);
    void *p = mmap(NULL, *len, PROT_READ, MAP_PRIVATE, fd, (off_t)at);
    if (p == MAP_FAILED)
        return NULL;
    madvise(p, *len, advice);
    return p;
}

/* The pieces' table and the edges mapped into r (a search reads its
 * pieces alone: no read-ahead around them); the table's edge starts
 * checked whole (0 .. nedges, never down): 0, -1 damaged or not mapped,
 * -2 out of memory. */
static int map_roadmap(int fd, const bytes *b, const char *path, prm_roadmap *r)
{
    uint64_t in;
    size_t len;
    unsigned char *p = map_part(fd, b->road_at, b->road_len, MADV_RANDOM, &len, &in);
    if (!p)
        return -1;
    prm_roadmap_map *m = calloc(1, sizeof *m);
    if (!m) {
        munmap(p, len);
        return -2;
    }
    m->base = p, m->len = len;
    int32_t head[4];
    double grid[3];
    memcpy(head, p + in, sizeof head);
    memcpy(grid, p + in + sizeof head, sizeof grid);
    memcpy(&m->hier_hash, p + in + sizeof head + sizeof grid, sizeof m->hier_hash);
    m->ntx = head[0], m->nty = head[1], m->nb = head[0] * head[1], m->renumbered = head[2] != 0;
    m->x0 = grid[0], m->y0 = grid[1], m->side = grid[2];
    m->eb = (const int64_t *)(const void *)(p + in + sizeof head + sizeof grid + sizeof m->hier_hash);
    m->hash = (const uint64_t *)(const void *)(m->eb + m->nb + 1);
    r->edges = (prm_edge *)(void *)(m->hash + m->nb);
    r->map = m;
    if (!(m->checked = calloc((size_t)m->nb + 1, 1)) || !(m->path = strdup(path)))
        return -2;
    int ok = m->eb[0] == 0 && m->eb[m->nb] == r->nedges && m->side > 0;
    for (int q = 0; ok && q < m->nb; q++)
        ok = m->eb[q] <= m->eb[q + 1];
    return ok ? 0 : -1;
}

/* The layers' header: the rest of the file exactly the padding and the
 * layers it says, of the facts' grid. */
static int get_layers(bytes *b, prm_terrain_facts *f)
{
    uint32_t h[4];
    if (get(b, h, sizeof h) || h[0] == 0 || h[1] == 0 || h[0] > INT32_MAX || h[1] > INT32_MAX ||
        (uint64_t)h[0] * h[1] != f->ncells ||
        (h[2] != 0 && h[2] != (uint32_t)(f->direction_aware ? PRM_LY_N : PRM_LY_GRAD)) ||
        h[3] != 0)
        return -1;
    size_t pad = prm_cache_layers_pad((size_t)(b->size - b->left));
    if (b->left != pad + prm_cache_layers_bytes((int)h[0], (int)h[1], (int)h[2]))
        return -1;
    f->layers_nx = (int)h[0], f->layers_ny = (int)h[1], f->layers_n = (int)h[2];
    return 0;
}

/* dem's seams' grid; their pieces' hashes and cells skipped, not read
 * (map_seams maps them, a lazy tile checks its pieces): -1 truncated. */
static int get_seams(bytes *b, prm_terrain_facts *f)
{
    int32_t sg[2];
    if (get(b, sg, sizeof sg) || sg[0] <= 0 || sg[1] <= 0)
        return -1;
    uint64_t at = b->size - b->left, pad = (8 - at % 8) % 8;
    uint64_t n = prm_seams_pieces(sg[0], sg[1]) * sizeof(uint64_t) + prm_seams_count(sg[0], sg[1]) * sizeof(float);
    if (skip(b, pad) || skip(b, n))
        return -1;
    f->seam_nx = sg[0], f->seam_ny = sg[1];
    b->seam_at = at + pad, b->seam_len = n;
    return 0;
}

/* The seams' hashes and cells, mapped into f (a tile reads a few KiB here
 * and there: no read-ahead around them): 0, or -1. */
static int map_seams(int fd, const bytes *b, prm_terrain_facts *f)
{
    uint64_t in;
    if (!b->seam_len)
        return 0;
    unsigned char *p = map_part(fd, b->seam_at, b->seam_len, MADV_RANDOM, &f->seam_map_len, &in);
    if (!p)
        return -1;
    f->seam_map = p;
    f->seam_hash = (const uint64_t *)(const void *)(p + in);
    f->seams = (float *)(void *)(p + in + prm_seams_pieces(f->seam_nx, f->seam_ny) * sizeof(uint64_t));
    return 0;
}

/* The class code runs' lengths and codes, mapped into f (read in order
 * when they are): 0, or -1. */
static int map_runs(int fd, const bytes *b, prm_terrain_facts *f)
{
    uint64_t in;
    if (!f->nruns)
        return 0;
    unsigned char *p = map_part(fd, b->runs_at, 3 * (uint64_t)f->nruns, MADV_SEQUENTIAL, &f->runs_map_len, &in);
    if (!p)
        return -1;
    f->runs_map = p;
    f->run_len = (unsigned short *)(void *)(p + in);
    f->run_code = p + in + 2 * f->nruns;
    return 0;
}

/* The class code runs' counts and hash; the lengths and codes skipped, not
 * read (map_runs maps them; prm_lazy_codes checks them when it first
 * expands them): -1 truncated. */
static int get_runs(bytes *b, prm_terrain_facts *f)
{
    uint64_t n[2];
    if (get(b, n, sizeof n) || get(b, &f->runs_hash, sizeof f->runs_hash) || n[1] > b->left / 3)
        return -1;
    b->runs_at = b->size - b->left; /* even (put_runs) */
    if (skip(b, 3 * n[1]))
        return -1;
    f->ncells = (size_t)n[0], f->nruns = (size_t)n[1];
    return 0;
}

/* The cache's parts; why it cannot be used into why. */
static trv_status parse(trv_ctx *ctx, bytes *b, const char *gpkg, const char *dir, prm_roadmap **out,
                        prm_terrain_facts *f, int *terrain_same, const char **why)
{
    char magic[8] = {0};
    uint32_t head[4] = {0};
    ident g, files[NFILES], now[NFILES];
    if (get(b, magic, sizeof magic) || memcmp(magic, MAGIC, sizeof magic) || get(b, head, sizeof head) ||
        head[0] != VERSION || head[1] != BOM || head[2] != sizeof(prm_edge) || head[3] != NFILES) {
        *why = !memcmp(magic, MAGIC, sizeof magic) && head[1] == BOM && head[0] < VERSION
                   ? "is of an older version (a roadmap of an older trv-roadmap)"
                   : "is not a roadmap cache of this build of traverse";
        return TRV_OK;
    }
    ident gn = identify(gpkg);
    if (get(b, &g, sizeof g) || g.size != gn.size || g.hash != gn.hash) {
        *why = "is stale: it was not made with the GeoPackage as it is now";
        return TRV_OK;
    }
    int32_t fi[2];
    prm_roadmap *r = calloc(1, sizeof *r);
    if (!r)
        return trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
    int bad = get(b, files, sizeof files) || get(b, &f->top_speed_kmh, sizeof f->top_speed_kmh) ||
              get(b, &f->tmax, sizeof f->tmax) || get(b, fi, sizeof fi) || fi[1] < 0 || fi[1] > 256 * 256;
    if (!bad) {
        f->direction_aware = fi[0];
        f->npairs = fi[1];
        bad = !(f->codes = malloc(2 * (size_t)f->npairs + 1)) ? -2 : get(b, f->codes, 2 * (size_t)f->npairs);
    }
    if (!bad && f->direction_aware) {
        size_t np = (size_t)f->npairs, tn = np * (PRM_PACE_NODES + 1) * sizeof *f->pace;
        if (tn + np * PRM_PACE_NODES > b->left)
            bad = 1;
        else if (!(f->pace = malloc(tn + 1)) || !(f->ok = malloc(np * PRM_PACE_NODES + 1)))
            bad = -2;
        else
            bad = get(b, f->pace, tn) || get(b, f->ok, np * PRM_PACE_NODES);
    }
    if (!bad && f->direction_aware)
        bad = get_seams(b, f);
    if (!bad)
        bad = get_runs(b, f);
    if (!bad)
        bad = get_roadmap(b, r);
    if (!bad)
        bad = get_layers(b, f);
    if (bad) {
        prm_roadmap_free(r);
        prm_terrain_facts_clear(f);
        if (bad == -2)
            return trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
        *why = "is truncated or damaged";
        return TRV_OK;
    }
    trv_status st = terrain_idents(ctx, dir, now);
    if (st) {
        prm_roadmap_free(r);
        prm_terrain_facts_clear(f);
        return st;
    }
    *terrain_same = !memcmp(files, now, sizeof files);
    *out = r;
    return TRV_OK;
}

/* The layers, the file's last bytes, mapped into f (copy on write: a
 * write stays the process's): 0, or -1. */
static int map_layers(int fd, size_t size, prm_terrain_facts *f)
{
    if (!f->layers_n) /* a cache without them: the GeoTIFFs' tiles are read instead */
        return 0;
    void *p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
    if (p == MAP_FAILED)
        return -1;
    f->map = p, f->map_len = size;
    f->layers = (const unsigned char *)p + size - prm_cache_layers_bytes(f->layers_nx, f->layers_ny, f->layers_n);
    return 0;
}

trv_status prm_roadmap_cache_read(trv_ctx *ctx, const char *gpkg, const char *dir, prm_roadmap **out,
                                  prm_terrain_facts *facts, int *terrain_same, char *note, size_t note_len)
{
    *out = NULL;
    *terrain_same = 0;
    memset(facts, 0, sizeof *facts);
    note[0] = 0;
    char *path = prm_roadmap_cache_path(gpkg);
    if (!path)
        return trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
    FILE *fp = fopen(path, "rb");
    struct stat sb;
    const char *why = NULL;
    trv_status st = TRV_OK;
    if (!fp || fstat(fileno(fp), &sb) != 0) {
        why = errno == ENOENT ? "does not exist (a roadmap of an older trv-roadmap)" : strerror(errno);
    } else {
        /* what is read is read in 64 KiB blocks, and no more: the kernel's read-ahead (MBs on some disks)
         * would bring in the mapped parts behind them, which a query reads by pieces */
        setvbuf(fp, NULL, _IOFBF, 1 << 16);
        posix_fadvise(fileno(fp), 0, 0, POSIX_FADV_RANDOM);
        bytes b = {fp, (uint64_t)sb.st_size, (uint64_t)sb.st_size, 0, 0, 0, 0, 0};
        st = parse(ctx, &b, gpkg, dir, out, facts, terrain_same, &why);
        posix_fadvise(fileno(fp), 0, 0, POSIX_FADV_NORMAL); /* the mappings' own advice from here on */
        int m = !st && *out ? map_roadmap(fileno(fp), &b, path, *out) : 0;
        if (!st && *out && (m || map_layers(fileno(fp), (size_t)sb.st_size, facts) ||
                            map_seams(fileno(fp), &b, facts) || map_runs(fileno(fp), &b, facts))) {
            why = m == -1 ? "is truncated or damaged" : "cannot be mapped";
            if (m == -2)
                st = trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
            prm_roadmap_free(*out);
            *out = NULL;
            prm_terrain_facts_clear(facts);
        }
    }
    if (fp)
        fclose(fp);
    if (!st && why)
        snprintf(note, note_len,
                 "the roadmap cache '%s' %s: reading the GeoPackage and the terrain instead (trv-roadmap "
                 "writes a new one)",
                 path, why);
    free(path);
    return st;
}
