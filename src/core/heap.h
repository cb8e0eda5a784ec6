/*
 * heap.h — the binary min-heap the searches share (prm's roadmap A* and
 * its raster A*; core, because core is the only module below both, and
 * public, because no stage includes another's private header).
 *
 * An item is (key, tie, id). Order: the lower key first; among equal keys
 * the larger tie first; then the lower id. The order is total on distinct
 * items, so the pop sequence depends only on the pushes, never on the
 * heap's layout: a search is deterministic.
 *
 * Two uses:
 *  - lazy deletion (pos == NULL): an id may be pushed many times; the
 *    caller skips stale pops itself (tie = 0 gives key-then-id order);
 *  - decrease-key (pos set by the caller to an array with one int32 per
 *    id, every entry TRV_HEAP_UNSEEN at the start): pushing an id that is
 *    in the heap replaces its item, which must not order after the old one
 *    (a lower key, as a search's relaxation gives), and a pop marks its id
 *    TRV_HEAP_POPPED. pos[id] >= 0 is the item's index in e.
 *
 * The heap owns e (trv_heap_free); the caller owns pos.
 */
#ifndef TRV_HEAP_H
#define TRV_HEAP_H

#include <stddef.h>
#include <stdint.h>

enum { TRV_HEAP_UNSEEN = -1, TRV_HEAP_POPPED = -2 };

typedef struct trv_heap_item {
    double key, tie;
    int32_t id;
} trv_heap_item;

typedef struct trv_heap {
    trv_heap_item *e;
    size_t n, cap;
    int32_t *pos; /* NULL: lazy deletion; else per id: index in e, TRV_HEAP_UNSEEN or TRV_HEAP_POPPED */
} trv_heap;

/* Insert (key, tie, id), or with pos lower the key of an id already in
 * the heap; returns -1 when out of memory (the heap is unchanged). */
int trv_heap_push(trv_heap *h, int32_t id, double key, double tie);
/* The first item, removed; h->n must be > 0. */
trv_heap_item trv_heap_pop(trv_heap *h);
/* Frees e (not pos) and empties the heap. */
void trv_heap_free(trv_heap *h);

#endif
