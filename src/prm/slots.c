/* The slot cache (slots.h). */
#include "slots.h"

#include <stdlib.h>
#include <string.h>

int prm_slots_open(prm_slots *c, long ntiles, int cap, size_t bytes, prm_slots_give_up give_up, void *user)
{
    memset(c, 0, sizeof *c);
    c->cap = cap, c->bytes = bytes, c->give_up = give_up, c->user = user;
    c->lru.head = c->lru.tail = -1;
    c->slot = malloc((size_t)ntiles * sizeof *c->slot);
    c->owner = malloc((size_t)cap * sizeof *c->owner);
    c->lru.prev = malloc((size_t)cap * sizeof *c->lru.prev);
    c->lru.next = malloc((size_t)cap * sizeof *c->lru.next);
    c->mem = malloc((size_t)cap * bytes);
    if (!c->slot || !c->owner || !c->lru.prev || !c->lru.next || !c->mem) {
        prm_slots_close(c);
        return -1;
    }
    for (long k = 0; k < ntiles; k++)
        c->slot[k] = PRM_SLOT_FREE;
    return 0;
}

void prm_slots_close(prm_slots *c)
{
    free(c->slot), free(c->owner), free(c->lru.prev), free(c->lru.next), free(c->mem);
    c->slot = c->owner = c->lru.prev = c->lru.next = NULL, c->mem = NULL;
}

int32_t prm_slots_take(prm_slots *c, long tile)
{
    int32_t s;
    if (c->held < c->cap)
        s = c->held++;
    else {
        s = c->lru.tail;
        long old = c->owner[s];
        if (c->give_up && c->give_up(c->user, old, prm_slots_mem(c, s)))
            return -1;
        c->slot[old] = PRM_SLOT_FREE;
        prm_lru_unlink(&c->lru, s);
    }
    c->slot[tile] = s;
    c->owner[s] = (int32_t)tile;
    prm_lru_front(&c->lru, s);
    return s;
}
