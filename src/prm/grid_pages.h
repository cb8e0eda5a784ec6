/* The paged raster search's memory (grid_pages.c; docs/scale.md "A
 * bounded-memory --grid"): what grid.c's search keeps per cell and per
 * open cell when the whole grid's state does not fit in memory.
 *
 * prm_pages: one byte per cell of an nx x ny grid, in square tiles of
 * 2^shift cells a side (the last column's and row's ragged), at most cap
 * tiles in memory, least recently used first out (slots.h). A tile let go is
 * written to an unlinked temporary file at its own place (tile index x
 * tile bytes: the file is sparse, at most nx ny bytes) and read back when
 * wanted again; a tile never seen is made by init (user, tile x, tile y,
 * its cells row-major with 2^shift bytes a row). Paging changes no byte:
 * every read gives what was last written. Like the segment library of
 * GRASS's r.cost (memory=), without its fixed segment files.
 *
 * prm_open_set: the open cells' g (a cell id -> double), open addressing
 * with linear probing, grown at 1/2 load; the frontier alone (O(perimeter)
 * of the searched region), never the grid. */
#ifndef PRM_GRID_PAGES_H
#define PRM_GRID_PAGES_H

#include "core/trv.h"
#include "slots.h"

#include <stddef.h>
#include <stdint.h>

typedef void (*prm_pages_init)(void *user, long tx, long ty, unsigned char *cells);

typedef struct prm_pages {
    long nx, ny, ntx, nty;      /* cells; tiles across and down */
    int shift;                  /* a tile is 2^shift cells a side */
    size_t tile_bytes;
    prm_slots c;                /* at most cap tiles in memory, each written to the file when let go */
    unsigned char *saved;       /* per tile: 1 once written to the file */
    int fd;                     /* the temporary file, -1 until the first write */
    char dir[512];              /* where it is made */
    prm_pages_init init;
    void *user;
    long long written, read;    /* bytes written to and read from the file */
    long made;                  /* tiles made by init: the distinct tiles held */
    long long file_bytes;       /* the file's extent (the highest tile written, its end) */
    trv_status st;              /* the first I/O error (sticky) */
    char msg[640];
} prm_pages;

/* The store for nx x ny cells, tiles of 2^shift (2 .. 15) a side, cap
 * (>= 4) tiles in memory, the file made in dir (NULL: $TMPDIR, else /tmp)
 * on the first write. */
trv_status prm_pages_open(trv_ctx *ctx, prm_pages *p, long nx, long ny, int shift, int cap, const char *dir,
                          prm_pages_init init, void *user);
void prm_pages_close(prm_pages *p);
/* Tile (tx, ty) in memory and the most recent; its cells, or NULL on an
 * I/O error (p->st, p->msg). */
unsigned char *prm_pages_hold(prm_pages *p, long tx, long ty);
/* Cell (c, r), whose tile is in memory (held since the last hold of more
 * than cap - 1 other tiles). */
static inline unsigned char *prm_pages_cell(const prm_pages *p, long c, long r)
{
    long tile = (r >> p->shift) * p->ntx + (c >> p->shift);
    size_t m = ((size_t)1 << p->shift) - 1;
    return prm_slots_mem(&p->c, p->c.slot[tile]) + (((size_t)r & m) << p->shift) + ((size_t)c & m);
}

typedef struct prm_open_set {
    int32_t *id;                /* -1: empty */
    double *g;
    size_t cap, n;              /* cap a power of two */
} prm_open_set;

/* The g of id, or -1 (g >= 0 always) when id is not open. */
double prm_open_get(const prm_open_set *o, int32_t id);
/* id open with g (set, or lowered); -1 when out of memory. */
int prm_open_put(prm_open_set *o, int32_t id, double g);
/* id no longer open (it may not be). */
void prm_open_del(prm_open_set *o, int32_t id);
void prm_open_free(prm_open_set *o);

#endif
