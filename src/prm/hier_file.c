/* The hierarchical index's file (hier.h): ROADMAP.hier beside the
 * roadmap, written by trv-roadmap for a tiled build, read by trv-route.
 *
 * Layout (native byte order, read by the build that wrote it):
 *   magic "TRVHIER\0", version, byte-order mark 0x01020304
 *   tile, ntx, nty, nnodes, nedges (int32); x0, y0, tw, th (double);
 *   the roadmap's prm_hier_hash (uint64)
 *   node_tile, comp, border_pos (nnodes int32 each); border_start
 *   (ntiles + 1 int32), border (its last start int32); mat_start (ntiles + 1 int64); version 2: zeros to a
 *   multiple of 8 bytes; the four matrices (mdr's ... in prm_strategy order, mat_start[ntiles] doubles each)
 * A file must be exactly as long as its counts say and its indices in
 * range, else it is damaged (one of version 1 is refused the same way:
 * a note, the flat search). The matrices are mapped, not read: a query
 * reads the rows of the border nodes it closes (hier_search.c), a few
 * pages of them. */
#include "prm/hier.h"
#include "roadmap_pieces.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

static const char MAGIC[8] = "TRVHIER";
enum { VERSION = 2, BOM = 0x01020304 };

char *prm_hier_path(const char *gpkg)
{
    char *bin = prm_roadmap_cache_path(gpkg); /* STEM.bin */
    if (!bin)
        return NULL;
    size_t n = strlen(bin) - 4;
    char *p = realloc(bin, n + 6);
    if (p)
        memcpy(p + n, ".hier", 6);
    else
        free(bin);
    return p;
}

static int put(FILE *f, const void *p, size_t size, size_t n) { return n == 0 || fwrite(p, size, n, f) == n; }

trv_status prm_hier_write(trv_ctx *ctx, const prm_hier *h, const char *path)
{
    FILE *f = fopen(path, "wb");
    if (!f)
        return trv_error(ctx, TRV_ERR_IO, "cannot write %s", path);
    int32_t head[7] = {VERSION, BOM, h->tile, h->ntx, h->nty, h->nnodes, h->nedges};
    double geo[4] = {h->x0, h->y0, h->tw, h->th};
    size_t nn = (size_t)h->nnodes, nt = (size_t)h->ntiles;
    size_t nb = (size_t)h->border_start[nt], nm = (size_t)h->mat_start[nt];
    int ok = put(f, MAGIC, 1, 8) && put(f, head, sizeof *head, 7) && put(f, geo, sizeof *geo, 4) &&
             put(f, &h->hash, sizeof h->hash, 1) && put(f, h->node_tile, sizeof(int), nn) &&
             put(f, h->comp, sizeof(int), nn) && put(f, h->border_pos, sizeof(int), nn) &&
             put(f, h->border_start, sizeof(int), nt + 1) && put(f, h->border, sizeof(int), nb) &&
             put(f, h->mat_start, sizeof(long), nt + 1);
    static const char zeros[8];
    long at = ok ? ftell(f) : -1;
    ok = ok && at >= 0 && put(f, zeros, 1, (size_t)(8 - at % 8) % 8);
    for (int s = 0; ok && s < PRM_HIER_NSTRAT; s++)
        ok = put(f, h->mat[s], sizeof(double), nm);
    if (fclose(f) != 0 || !ok)
        return trv_error(ctx, TRV_ERR_IO, "cannot write %s", path);
    return TRV_OK;
}

static int get(FILE *f, void **dst, size_t size, size_t n)
{
    if (!(*dst = malloc(size * n + 1)))
        return 0;
    return n == 0 || fread(*dst, size, n, f) == n;
}

/* CSR starts rising from 0 to at most max; values below lim. */
static int csr_ok(const int *start, int n, long max, const int *v, int lim)
{
    if (start[0] != 0)
        return 0;
    for (int k = 0; k < n; k++)
        if (start[k + 1] < start[k])
            return 0;
    if (start[n] > max)
        return 0;
    for (int k = 0; k < start[n]; k++)
        if (v[k] < 0 || v[k] >= lim)
            return 0;
    return 1;
}

static int valid(const prm_hier *h)
{
    for (int i = 0; i < h->nnodes; i++)
        if (h->node_tile[i] < 0 || h->node_tile[i] >= h->ntiles || h->comp[i] < 0 || h->comp[i] >= h->nnodes ||
            h->border_pos[i] < -1)
            return 0;
    for (int i = 0; i < h->nnodes; i++) { /* a border node's row: its own */
        int T = h->node_tile[i], p = h->border_pos[i];
        if (p >= 0 && (p >= h->border_start[T + 1] - h->border_start[T] || h->border[h->border_start[T] + p] != i))
            return 0;
    }
    if (h->mat_start[0] != 0)
        return 0;
    for (int T = 0; T < h->ntiles; T++) {
        long nb = h->border_start[T + 1] - h->border_start[T];
        if (h->mat_start[T + 1] != h->mat_start[T] + nb * nb)
            return 0;
    }
    return 1;
}

/* The matrices, from the next multiple of 8 bytes to the file's end
 * exactly, mapped into h (a query reads a few rows: no read-ahead): 1, or
 * 0 when the file is not that long or they cannot be mapped. */
static int map_matrices(FILE *f, prm_hier *h, size_t nm)
{
    struct stat sb;
    long at = ftell(f), pg = sysconf(_SC_PAGESIZE);
    if (at < 0 || fstat(fileno(f), &sb) != 0)
        return 0;
    uint64_t from = (uint64_t)at + (uint64_t)(8 - at % 8) % 8, n = (uint64_t)PRM_HIER_NSTRAT * nm * sizeof(double);
    if ((uint64_t)sb.st_size != from + n)
        return 0;
    uint64_t base = from - from % (uint64_t)(pg > 0 ? pg : 4096);
    size_t len = (size_t)(from - base + n);
    void *p = mmap(NULL, len ? len : 1, PROT_READ, MAP_PRIVATE, fileno(f), (off_t)base);
    if (p == MAP_FAILED)
        return 0;
    madvise(p, len ? len : 1, MADV_RANDOM);
    h->mat_map = p, h->mat_map_len = len ? len : 1;
    for (int s = 0; s < PRM_HIER_NSTRAT; s++)
        h->mat[s] = (double *)(void *)((unsigned char *)p + (from - base) + (size_t)s * nm * sizeof(double));
    return 1;
}

/* The header; 0 when it is not an index of r. */
static int get_head(FILE *f, prm_hier *h, const prm_roadmap *r)
{
    char magic[8];
    int32_t head[7];
    double geo[4];
    if (fread(magic, 1, 8, f) != 8 || memcmp(magic, MAGIC, 8) || fread(head, sizeof *head, 7, f) != 7 ||
        head[0] != VERSION || head[1] != BOM || fread(geo, sizeof *geo, 4, f) != 4 ||
        fread(&h->hash, sizeof h->hash, 1, f) != 1)
        return 0;
    h->tile = head[2], h->ntx = head[3], h->nty = head[4], h->nnodes = head[5], h->nedges = head[6];
    h->x0 = geo[0], h->y0 = geo[1], h->tw = geo[2], h->th = geo[3];
    if (h->tile < 1 || h->ntx < 1 || h->nty < 1 || (long)h->ntx * h->nty > 1L << 30)
        return 0;
    h->ntiles = h->ntx * h->nty;
    /* a cache's roadmap: the hash its writer took (its pieces are checked when the search needs them) */
    uint64_t want = r->map ? r->map->hier_hash : prm_hier_hash(r);
    return h->nnodes == r->nnodes && h->nedges == r->nedges && h->hash == want;
}

trv_status prm_hier_read(trv_ctx *ctx, const char *path, const prm_roadmap *r, prm_hier **out)
{
    *out = NULL;
    FILE *f = fopen(path, "rb");
    if (!f)
        return trv_error(ctx, TRV_ERR_IO, "cannot open %s", path);
    setvbuf(f, NULL, _IOFBF, 1 << 16); /* no read-ahead into the matrices, which are mapped */
    posix_fadvise(fileno(f), 0, 0, POSIX_FADV_RANDOM);
    prm_hier *h = calloc(1, sizeof *h);
    size_t nn = (size_t)r->nnodes;
    int ok = h && get_head(f, h, r);
    size_t nt = ok ? (size_t)h->ntiles : 0;
    ok = ok && get(f, (void **)&h->node_tile, sizeof(int), nn) && get(f, (void **)&h->comp, sizeof(int), nn) &&
         get(f, (void **)&h->border_pos, sizeof(int), nn) && get(f, (void **)&h->border_start, sizeof(int), nt + 1) &&
         h->border_start[0] == 0 && h->border_start[nt] >= 0 && h->border_start[nt] <= r->nnodes &&
         get(f, (void **)&h->border, sizeof(int), (size_t)h->border_start[nt]) &&
         csr_ok(h->border_start, h->ntiles, r->nnodes, h->border, r->nnodes) &&
         get(f, (void **)&h->mat_start, sizeof(long), nt + 1) && valid(h);
    ok = ok && map_matrices(f, h, (size_t)h->mat_start[nt]);
    fclose(f);
    if (!ok) {
        int nomem = !h;
        prm_hier_free(h);
        return nomem ? trv_error(ctx, TRV_ERR_NOMEM, "out of memory")
                     : trv_error(ctx, TRV_ERR_DATA, "%s is not the hierarchical index of this roadmap (damaged, or "
                                                    "from another build: build the roadmap again)",
                                 path);
    }
    *out = h;
    return TRV_OK;
}
