/* The terrain and the roadmap a plan reads (prm.h prm_plan_load). */
#include "prm.h"

#include <stdio.h>

/* From the roadmap's cache when it is there
 * and fits the GeoPackage, and then the terrain lazily when its files are
 * still those the roadmap was built from; else the GeoPackage and the
 * whole terrain, note saying why. */
trv_status prm_plan_load(trv_ctx *ctx, const char *roadmap, const char *terrain, prm_terrain *t, prm_roadmap **r,
                         char *note, size_t note_len)
{
    prm_terrain_facts f;
    int same = 0;
    trv_status st = prm_roadmap_cache_read(ctx, roadmap, terrain, r, &f, &same, note, note_len);
    if (!st && *r && !same)
        snprintf(note, note_len,
                 "the terrain '%s' is not the one the roadmap was built from (its files changed since): reading it "
                 "whole",
                 terrain);
    if (!st)
        st = *r && same ? prm_terrain_open(ctx, terrain, &f, t) : prm_terrain_load(ctx, terrain, t);
    prm_terrain_facts_clear(&f);
    if (!st && !*r && (st = prm_roadmap_read(ctx, roadmap, r)))
        prm_terrain_clear(t);
    if (st) {
        prm_roadmap_free(*r);
        *r = NULL;
    }
    return st;
}

