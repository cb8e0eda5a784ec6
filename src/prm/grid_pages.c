/* The paged raster search's tiles and open set (grid_pages.h). */
#define _GNU_SOURCE
#include "grid_pages.h"
#include "core/tempfile.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int tile_out(void *user, long old, unsigned char *mem);

trv_status prm_pages_open(trv_ctx *ctx, prm_pages *p, long nx, long ny, int shift, int cap, const char *dir,
                          prm_pages_init init, void *user)
{
    memset(p, 0, sizeof *p);
    p->fd = -1;
    if (shift < 2 || shift > 15 || cap < 4 || nx < 1 || ny < 1)
        return trv_error(ctx, TRV_ERR_INTERNAL, "paged search: tiles of 2^%d cells, %d in memory", shift, cap);
    p->nx = nx, p->ny = ny, p->shift = shift;
    p->ntx = (nx + (1L << shift) - 1) >> shift;
    p->nty = (ny + (1L << shift) - 1) >> shift;
    p->tile_bytes = (size_t)1 << (2 * shift);
    long ntiles = p->ntx * p->nty;
    p->init = init, p->user = user;
    snprintf(p->dir, sizeof p->dir, "%s", trv_temp_dir(dir));
    p->saved = calloc((size_t)ntiles, 1);
    if (!p->saved || prm_slots_open(&p->c, ntiles, cap < ntiles ? cap : (int)ntiles, p->tile_bytes, tile_out, p)) {
        prm_pages_close(p);
        return trv_error(ctx, TRV_ERR_NOMEM, "out of memory for the paged grid search");
    }
    return TRV_OK;
}

void prm_pages_close(prm_pages *p)
{
    prm_slots_close(&p->c);
    free(p->saved);
    if (p->fd >= 0)
        close(p->fd);
    p->saved = NULL, p->fd = -1;
}

static unsigned char *io_fail(prm_pages *p, const char *what)
{
    if (!p->st) {
        p->st = TRV_ERR_IO;
        snprintf(p->msg, sizeof p->msg, "the paged grid search cannot %s its temporary file in '%s': %s", what,
                 p->dir, strerror(errno ? errno : EIO));
    }
    return NULL;
}

/* The temporary file, made at the first tile let go (tempfile.h). */
static int file_open(prm_pages *p)
{
    if (p->fd < 0)
        p->fd = trv_temp_fd(p->dir, "trv-grid");
    return p->fd < 0 ? -1 : 0;
}

/* Tile `old` let go from its slot's bytes mem: written to the file at
 * its own place (prm_slots' give_up). -1 on an I/O error. */
static int tile_out(void *user, long old, unsigned char *mem)
{
    prm_pages *p = user;
    errno = 0;
    if (file_open(p))
        return io_fail(p, "make"), -1;
    off_t off = (off_t)old * (off_t)p->tile_bytes;
    if (!trv_fd_move(p->fd, mem, p->tile_bytes, off, 1))
        return io_fail(p, "write"), -1;
    p->written += (long long)p->tile_bytes;
    if (off + (long long)p->tile_bytes > p->file_bytes)
        p->file_bytes = off + (long long)p->tile_bytes;
    p->saved[old] = 1;
    return 0;
}

unsigned char *prm_pages_hold(prm_pages *p, long tx, long ty)
{
    if (p->st)
        return NULL;
    long tile = ty * p->ntx + tx;
    int32_t s = p->c.slot[tile];
    if (s >= 0) {
        prm_lru_touch(&p->c.lru, s);
        return prm_slots_mem(&p->c, s);
    }
    if ((s = prm_slots_take(&p->c, tile)) < 0)
        return NULL;
    unsigned char *cells = prm_slots_mem(&p->c, s);
    if (p->saved[tile]) {
        errno = 0;
        if (!trv_fd_move(p->fd, cells, p->tile_bytes, (off_t)tile * (off_t)p->tile_bytes, 0))
            return io_fail(p, "read");
        p->read += (long long)p->tile_bytes;
    } else {
        p->init(p->user, tx, ty, cells);
        p->made++;
    }
    return cells;
}

/* ---- the open set ---------------------------------------------------------------- */

static size_t hash_of(int32_t id, size_t cap)
{
    return ((uint32_t)id * 2654435761u) & (cap - 1);
}

double prm_open_get(const prm_open_set *o, int32_t id)
{
    if (!o->cap)
        return -1;
    for (size_t k = hash_of(id, o->cap);; k = (k + 1) & (o->cap - 1)) {
        if (o->id[k] == id)
            return o->g[k];
        if (o->id[k] < 0)
            return -1;
    }
}

static int grow(prm_open_set *o)
{
    size_t cap = o->cap ? 2 * o->cap : 4096;
    int32_t *id = malloc(cap * sizeof *id);
    double *g = malloc(cap * sizeof *g);
    if (!id || !g) {
        free(id);
        free(g);
        return -1;
    }
    for (size_t k = 0; k < cap; k++)
        id[k] = -1;
    for (size_t j = 0; j < o->cap; j++) {
        if (o->id[j] < 0)
            continue;
        size_t k = hash_of(o->id[j], cap);
        while (id[k] >= 0)
            k = (k + 1) & (cap - 1);
        id[k] = o->id[j], g[k] = o->g[j];
    }
    free(o->id);
    free(o->g);
    o->id = id, o->g = g, o->cap = cap;
    return 0;
}

int prm_open_put(prm_open_set *o, int32_t id, double g)
{
    if (2 * (o->n + 1) > o->cap && grow(o))
        return -1;
    size_t k = hash_of(id, o->cap);
    while (o->id[k] >= 0 && o->id[k] != id)
        k = (k + 1) & (o->cap - 1);
    if (o->id[k] < 0)
        o->n++;
    o->id[k] = id, o->g[k] = g;
    return 0;
}

/* Removal with backward shift: the entries after the hole that hash at
 * or before it move into it, so that no probe sequence is cut. */
void prm_open_del(prm_open_set *o, int32_t id)
{
    if (!o->cap)
        return;
    size_t m = o->cap - 1, k = hash_of(id, o->cap);
    while (o->id[k] != id) {
        if (o->id[k] < 0)
            return;
        k = (k + 1) & m;
    }
    o->n--;
    for (size_t j = (k + 1) & m;; j = (j + 1) & m) {
        if (o->id[j] < 0)
            break;
        size_t h = hash_of(o->id[j], o->cap);
        /* j's entry may fill the hole k when its home h is not in (k, j] */
        if (((j - h) & m) >= ((j - k) & m)) {
            o->id[k] = o->id[j], o->g[k] = o->g[j];
            k = j;
        }
    }
    o->id[k] = -1;
}

void prm_open_free(prm_open_set *o)
{
    free(o->id);
    free(o->g);
    memset(o, 0, sizeof *o);
}
