/* The zones' burn made lazy and bounded (zones.h, prm_zones_tiles): the
 * grid cut into the lazy terrain's tiles (PRM_TILE x PRM_TILE cells from
 * the origin); a tile no zone's cells meet (geo_zone_cells) reads 0 and
 * holds nothing; any other is burned (geo_zones_burn_window: the whole
 * burn's bytes) when one of its cells is first read, and at most cap of
 * them are held, the least recently read given up first and never
 * written back (slots.h), burned again if read again. Read a cell at a time (tiles_cell) or a
 * window at a time (tiles_block: per tile it meets one look-up, and
 * nothing copied from a tile whose bytes are all 0). */
#include "slots.h"
#include "zones.h"

#include <stdlib.h>
#include <string.h>

enum { ZT_SHIFT = 8, ZT_SIDE = 1 << ZT_SHIFT, ZT_MASK = ZT_SIDE - 1, ZT_BYTES = ZT_SIDE * ZT_SIDE };
_Static_assert((int)ZT_SIDE == (int)PRM_TILE, "the burn's tiles are the lazy terrain's");

enum { ZT_UNBURNT = PRM_SLOT_FREE, ZT_EMPTY = -3 }; /* a tile's slot when not held (else >= 0) */

typedef struct zone_tiles {
    geo_grid g;             /* the grid (its geotransform and size; the CRS not kept) */
    const geo_zones *z;     /* the zones, whose tiles these are */
    long ntx, nty;
    prm_slots c;            /* slots of ZT_BYTES, never written back; per tile its slot, ZT_UNBURNT or ZT_EMPTY */
    unsigned char *any;     /* per slot: the OR of its tile's bytes */
    double *xs;             /* geo_zones_burn_window's room */
    long burnt, meets;      /* windows burned; tiles some zone's cells meet */
} zone_tiles;

static void tiles_free(void *user)
{
    zone_tiles *T = user;
    if (!T)
        return;
    prm_slots_close(&T->c);
    free(T->any), free(T->xs);
    free(T);
}

/* Tile `tile` burned into a slot (prm_slots_take: a new one while fewer
 * than cap are held, else the least recently read tile's). */
static int32_t tile_burn(zone_tiles *T, long tile)
{
    int32_t s = prm_slots_take(&T->c, tile); /* (nothing written back: no failure) */
    long tx = tile % T->ntx, ty = tile / T->ntx, c0 = tx << ZT_SHIFT, r0 = ty << ZT_SHIFT;
    const long w[5] = {c0, r0, T->g.nx - c0 < ZT_SIDE ? T->g.nx - c0 : ZT_SIDE,
                       T->g.ny - r0 < ZT_SIDE ? T->g.ny - r0 : ZT_SIDE, ZT_SIDE};
    unsigned char *b = prm_slots_mem(&T->c, s);
    (void)geo_zones_burn_window(NULL, &T->g, T->z, w, T->xs, b); /* (xs: no failure) */
    unsigned any = 0;
    for (long r = 0; r < w[3]; r++)
        for (long c = 0; c < w[2]; c++)
            any |= b[(r << ZT_SHIFT) + c];
    T->any[s] = (unsigned char)any;
    T->burnt++;
    return s;
}

/* The slot of tile `tile` (burned if not held; made the most recent), or
 * ZT_EMPTY. */
static int32_t tile_slot(zone_tiles *T, long tile)
{
    int32_t s = T->c.slot[tile];
    if (s == ZT_EMPTY)
        return s;
    if (s < 0)
        return tile_burn(T, tile);
    prm_lru_touch(&T->c.lru, s);
    return s;
}

static unsigned char tiles_cell(void *user, long c, long r)
{
    zone_tiles *T = user;
    int32_t s = tile_slot(T, (r >> ZT_SHIFT) * T->ntx + (c >> ZT_SHIFT));
    if (s == ZT_EMPTY)
        return 0;
    return prm_slots_mem(&T->c, s)[(size_t)((r & ZT_MASK) << ZT_SHIFT) + (size_t)(c & ZT_MASK)];
}

/* Window w's cells in tile (tx, ty) into out (rows of stride, w[0], w[1]
 * its first cell; left as they are, zeros, where the tile is EMPTY or all
 * 0); the OR of them. */
static unsigned tile_copy(zone_tiles *T, long tx, long ty, const long w[4], long stride, unsigned char *out)
{
    int32_t s = tile_slot(T, ty * T->ntx + tx);
    if (s == ZT_EMPTY || !T->any[s])
        return 0;
    const long ca = w[0] > tx << ZT_SHIFT ? w[0] : tx << ZT_SHIFT, ra = w[1] > ty << ZT_SHIFT ? w[1] : ty << ZT_SHIFT;
    const long cb = w[0] + w[2] < (tx + 1) << ZT_SHIFT ? w[0] + w[2] : (tx + 1) << ZT_SHIFT;
    const long rb = w[1] + w[3] < (ty + 1) << ZT_SHIFT ? w[1] + w[3] : (ty + 1) << ZT_SHIFT;
    const unsigned char *b = prm_slots_mem(&T->c, s);
    unsigned any = 0;
    for (long r = ra; r < rb; r++) {
        const unsigned char *src = b + ((r & ZT_MASK) << ZT_SHIFT) + (ca & ZT_MASK);
        unsigned char *dst = out + (r - w[1]) * stride + (ca - w[0]);
        for (long k = 0; k < cb - ca; k++)
            any |= dst[k] = src[k];
    }
    return any;
}

/* geo_zones_block's window w (inside the grid; out zeroed): tile by tile. */
static unsigned tiles_block(void *user, const long w[4], long stride, unsigned char *out)
{
    zone_tiles *T = user;
    unsigned any = 0;
    for (long ty = w[1] >> ZT_SHIFT; ty <= (w[1] + w[3] - 1) >> ZT_SHIFT; ty++)
        for (long tx = w[0] >> ZT_SHIFT; tx <= (w[0] + w[2] - 1) >> ZT_SHIFT; tx++)
            any |= tile_copy(T, tx, ty, w, stride, out);
    return any;
}

/* Every tile some zone's cells meet marked ZT_UNBURNT in slot (the rest
 * ZT_EMPTY), counted in T->meets; the most segments a zone has into *most. */
static void tiles_mark(zone_tiles *T, int32_t *slot, int *most)
{
    long n = T->ntx * T->nty;
    for (long k = 0; k < n; k++)
        slot[k] = ZT_EMPTY;
    *most = 0;
    for (int k = 0; k < T->z->n; k++) {
        long b[4];
        geo_zone_cells(T->z, k, &T->g, b);
        if (T->z->z[k].s1 - T->z->z[k].s0 > *most)
            *most = T->z->z[k].s1 - T->z->z[k].s0;
        if (b[2] < 0 || b[3] < 0 || b[0] >= T->g.nx || b[1] >= T->g.ny)
            continue;
        long tx0 = b[0] < 0 ? 0 : b[0] >> ZT_SHIFT, ty0 = b[1] < 0 ? 0 : b[1] >> ZT_SHIFT;
        long tx1 = (b[2] >= T->g.nx ? T->g.nx - 1 : b[2]) >> ZT_SHIFT;
        long ty1 = (b[3] >= T->g.ny ? T->g.ny - 1 : b[3]) >> ZT_SHIFT;
        for (long ty = ty0; ty <= ty1; ty++)
            for (long tx = tx0; tx <= tx1; tx++)
                slot[ty * T->ntx + tx] = ZT_UNBURNT;
    }
    for (long k = 0; k < n; k++)
        T->meets += slot[k] == ZT_UNBURNT;
}

trv_status prm_zones_tiles(trv_ctx *ctx, geo_zones *z, const geo_grid *g, int cap)
{
    if (cap < 1)
        return trv_error(ctx, TRV_ERR_INTERNAL, "the zones' tiled burn needs at least one tile (%d)", cap);
    zone_tiles *T = calloc(1, sizeof *T);
    if (!T)
        return trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
    T->g = *g, T->g.wkt = NULL, T->z = z;
    T->ntx = (g->nx + ZT_SIDE - 1) >> ZT_SHIFT, T->nty = (g->ny + ZT_SIDE - 1) >> ZT_SHIFT;
    int most = 0;
    const long ntiles = T->ntx * T->nty;
    int32_t *mark = malloc((size_t)ntiles * sizeof *mark); /* (counted first: the slots held at most the tiles met) */
    if (mark)
        tiles_mark(T, mark, &most);
    const int nslot = T->meets < cap ? (T->meets > 0 ? (int)T->meets : 1) : cap;
    int ok = mark && !prm_slots_open(&T->c, ntiles, nslot, ZT_BYTES, NULL, NULL);
    if (ok)
        memcpy(T->c.slot, mark, (size_t)ntiles * sizeof *mark);
    free(mark);
    T->any = malloc((size_t)nslot);
    T->xs = malloc(((size_t)most + 1) * sizeof *T->xs);
    if (!ok || !T->any || !T->xs) {
        tiles_free(T);
        return trv_error(ctx, TRV_ERR_NOMEM, "out of memory for the zones' burn");
    }
    free(z->burn);
    if (z->tiles_free)
        z->tiles_free(z->tiles);
    z->burn = NULL;
    z->cell = tiles_cell, z->block = tiles_block, z->tiles = T, z->tiles_free = tiles_free;
    memcpy(z->burn_gt, g->gt, sizeof z->burn_gt);
    z->burn_nx = g->nx, z->burn_ny = g->ny;
    return TRV_OK;
}

void prm_zones_tiles_count(const geo_zones *z, long *burnt, long *meets, int *held)
{
    const zone_tiles *T = z->cell == tiles_cell ? z->tiles : NULL;
    *burnt = T ? T->burnt : 0, *meets = T ? T->meets : 0, *held = T ? T->c.held : 0;
}
