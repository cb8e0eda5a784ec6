/* The terrain and the roadmap a plan reads (prm.h prm_plan_load). */
#include "prm.h"

#include <stdio.h>

/* From the roadmap's cache when it is there
 * and fits the GeoPackage, and then the terrain lazily when its files are
 * still those the roadmap was built from; else the GeoPackage and the
 * terrain (whole, or above 5e7 cells its facts by row blocks and the
 * tiles lazily: prm_terrain_read), note saying why. */
static trv_status terrain_fallback(trv_ctx *ctx, const char *terrain, prm_terrain *t)
{
    prm_build_opts o;
    prm_build_opts_init(&o);
    prm_terrain_facts f;
    trv_status st = prm_terrain_read(ctx, terrain, &o, t, &f);
    prm_terrain_facts_clear(&f);
    return st;
}

trv_status prm_plan_load(trv_ctx *ctx, const char *roadmap, const char *terrain, prm_terrain *t, prm_roadmap **r,
                         char *note, size_t note_len)
{
    prm_terrain_facts f;
    int same = 0;
    trv_status st = prm_roadmap_cache_read(ctx, roadmap, terrain, r, &f, &same, note, note_len);
    if (!st && *r && !same)
        snprintf(note, note_len,
                 "the terrain '%s' is not the one the roadmap was built from (its files changed since): reading it "
                 "again",
                 terrain);
    if (!st)
        st = *r && same ? prm_terrain_open(ctx, terrain, &f, t) : terrain_fallback(ctx, terrain, t);
    prm_terrain_facts_clear(&f);
    if (!st && !*r && (st = prm_roadmap_read(ctx, roadmap, r)))
        prm_terrain_clear(t);
    if (st) {
        prm_roadmap_free(*r);
        *r = NULL;
    }
    return st;
}

