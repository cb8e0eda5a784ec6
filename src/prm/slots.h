/* One cache of equal slots over the tiles 0 .. n - 1 of a grid: at most
 * cap slots of `bytes` each in memory, the least recently used given up
 * first (lru.h). What becomes of a tile given up is the caller's choice:
 * written back first (give_up: the paged search's tiles, grid_pages.c, to
 * its temporary file; a failure keeps the slot and its tile), or, with
 * give_up NULL, never written back (the zones' burnt tiles,
 * zones_tiles.c, burned again when read again). Per tile its slot, or a
 * negative code: PRM_SLOT_FREE (not in memory), or the caller's own
 * (below -1: set and read by the caller alone). Private to src/prm. */
#ifndef PRM_SLOTS_H
#define PRM_SLOTS_H

#include "lru.h"

#include <stddef.h>
#include <stdint.h>

enum { PRM_SLOT_FREE = -1 };

typedef int (*prm_slots_give_up)(void *user, long tile, unsigned char *mem);

typedef struct prm_slots {
    int32_t *slot;              /* per tile: its slot, or < 0 */
    int32_t *owner;             /* per slot: its tile */
    prm_lru lru;                /* the slots in use, head the most recent */
    unsigned char *mem;         /* cap slots of bytes */
    size_t bytes;
    int cap, held;              /* slots at most, and in use */
    prm_slots_give_up give_up;  /* tile let go, mem its slot's bytes: 0, or -1 (kept); NULL: never written back */
    void *user;
} prm_slots;

/* Room for ntiles tiles (each PRM_SLOT_FREE) and cap (>= 1) slots of
 * bytes; -1 when out of memory (c closed). */
int prm_slots_open(prm_slots *c, long ntiles, int cap, size_t bytes, prm_slots_give_up give_up, void *user);
void prm_slots_close(prm_slots *c);
/* A slot for tile (not in memory): a new one while fewer than cap are in
 * use, else the least recently used, its tile given up (give_up first;
 * that tile's slot PRM_SLOT_FREE); tile's slot set, the most recent. -1
 * when give_up fails. */
int32_t prm_slots_take(prm_slots *c, long tile);
/* Slot s's bytes. */
static inline unsigned char *prm_slots_mem(const prm_slots *c, int32_t s) { return c->mem + (size_t)s * c->bytes; }

#endif
