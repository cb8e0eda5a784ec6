/* An intrusive least-recently-used list over the indices 0 .. n - 1 of a
 * table the caller owns: prev and next arrays of n, head the most recent,
 * tail the least, -1 past either end, PRM_LRU_OUT in both of an index not
 * on the list. Shared by the slot cache (slots.h: the paged search's
 * tiles and the zones' burnt tiles) and the lazy terrain's held tiles
 * (terrain_lazy.c). Private to src/prm. */
#ifndef PRM_LRU_H
#define PRM_LRU_H

#include <stdint.h>

#define PRM_LRU_OUT (-2)

typedef struct prm_lru {
    int32_t *prev, *next;
    int32_t head, tail;
} prm_lru;

/* k taken off the list (it must be on it). */
static inline void prm_lru_unlink(prm_lru *l, int32_t k)
{
    if (l->prev[k] >= 0)
        l->next[l->prev[k]] = l->next[k];
    else
        l->head = l->next[k];
    if (l->next[k] >= 0)
        l->prev[l->next[k]] = l->prev[k];
    else
        l->tail = l->prev[k];
    l->prev[k] = l->next[k] = PRM_LRU_OUT;
}

/* k (not on the list) put at its head: the most recent. */
static inline void prm_lru_front(prm_lru *l, int32_t k)
{
    l->prev[k] = -1;
    l->next[k] = l->head;
    if (l->head >= 0)
        l->prev[l->head] = k;
    l->head = k;
    if (l->tail < 0)
        l->tail = k;
}

/* k (on the list) made the most recent. */
static inline void prm_lru_touch(prm_lru *l, int32_t k)
{
    if (l->head != k) {
        prm_lru_unlink(l, k);
        prm_lru_front(l, k);
    }
}

#endif
