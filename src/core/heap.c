/* The shared binary min-heap (heap.h): sift-up on push, sift-down on pop,
 * with positions tracked per id when the caller asks for decrease-key. */
#include "heap.h"

#include <stdlib.h>

/* Lower key first; among equal keys the larger tie (a search's g: the
 * deeper node, nearer the goal), then the lower id. */
static int before(const trv_heap_item *a, const trv_heap_item *b)
{
    if (a->key != b->key)
        return a->key < b->key;
    if (a->tie != b->tie)
        return a->tie > b->tie;
    return a->id < b->id;
}

static void place(trv_heap *h, size_t i, trv_heap_item e)
{
    h->e[i] = e;
    if (h->pos)
        h->pos[e.id] = (int32_t)i;
}

static void sift_up(trv_heap *h, size_t i)
{
    trv_heap_item e = h->e[i];
    while (i > 0) {
        size_t parent = (i - 1) / 2;
        if (!before(&e, &h->e[parent]))
            break;
        place(h, i, h->e[parent]);
        i = parent;
    }
    place(h, i, e);
}

static void sift_down(trv_heap *h, size_t i)
{
    trv_heap_item e = h->e[i];
    for (;;) {
        size_t c = 2 * i + 1;
        if (c >= h->n)
            break;
        if (c + 1 < h->n && before(&h->e[c + 1], &h->e[c]))
            c++;
        if (!before(&h->e[c], &e))
            break;
        place(h, i, h->e[c]);
        i = c;
    }
    place(h, i, e);
}

int trv_heap_push(trv_heap *h, int32_t id, double key, double tie)
{
    trv_heap_item e = {key, tie, id};
    if (h->pos && h->pos[id] >= 0) {
        size_t p = (size_t)h->pos[id];
        h->e[p] = e;
        sift_up(h, p);
        return 0;
    }
    if (h->n == h->cap) {
        size_t cap = h->cap ? 2 * h->cap : 4096;
        trv_heap_item *ne = realloc(h->e, cap * sizeof *ne);
        if (!ne)
            return -1;
        h->e = ne;
        h->cap = cap;
    }
    h->n++;
    h->e[h->n - 1] = e;
    sift_up(h, h->n - 1);
    return 0;
}

trv_heap_item trv_heap_pop(trv_heap *h)
{
    trv_heap_item top = h->e[0];
    if (h->pos)
        h->pos[top.id] = TRV_HEAP_POPPED;
    if (--h->n > 0) {
        h->e[0] = h->e[h->n];
        sift_down(h, 0);
    }
    return top;
}

void trv_heap_free(trv_heap *h)
{
    free(h->e);
    h->e = NULL;
    h->n = h->cap = 0;
}
