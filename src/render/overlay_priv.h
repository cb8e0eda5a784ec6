/* overlay_priv.h — vector overlays for rnd_render (private to src/render). */
#ifndef RENDER_OVERLAY_H
#define RENDER_OVERLAY_H

#include "render.h"

typedef enum rnd_ovl_kind {
    RND_OVL_POLYGON = 1,    /* obstacles and other areas: outlined */
    RND_OVL_CIRCLE,         /* a point with a radius (radius_m): an outlined circle */
    RND_OVL_EDGE,           /* roadmap edges: faint, thin */
    RND_OVL_NODE,           /* roadmap nodes: tiny dots */
    RND_OVL_ROUTE,          /* lines: coloured by name (route strategy) */
    RND_OVL_TRAJECTORY,     /* a driven trajectory */
    RND_OVL_POINT,          /* markers: start, goal, others */
    RND_OVL_OBSTACLE_LAYER  /* (a layer hint: lines in an obstacles layer) */
} rnd_ovl_kind;

typedef struct rnd_ovl_shape {
    rnd_ovl_kind kind;
    int n;              /* vertices */
    double *x;          /* 2n: x, y pairs in the map CRS, later in pixels */
    int nrings;         /* polygons */
    int *start;         /* polygons: nrings + 1 ring starts */
    char *name;         /* route/feature name or NULL */
    int colour;         /* lines: -1 by name, else rnd_cycle_rgb's k (route_by_file) */
    double radius;      /* RND_OVL_CIRCLE: map units */
} rnd_ovl_shape;

typedef struct rnd_ovl_set {
    rnd_ovl_shape *shape;
    int n, cap;
} rnd_ovl_set;

trv_status rnd_ovl_read(trv_ctx *ctx, const char *path, const char *map_wkt, rnd_ovl_set *s);
void rnd_ovl_clear(rnd_ovl_set *s);
/* Drop the shapes that do not reach into bb = {xmin, ymin, xmax, ymax}
 * (map CRS): a map window draws, and its legend lists, only what it shows.
 * A circle reaches radius * units_per_m beyond its centre (as drawn).
 * Keeps the order of the others. */
void rnd_ovl_keep_within(rnd_ovl_set *s, const double bb[4], double units_per_m);
/* Drop the route lines not named NAME (other strategies, raster optima);
 * everything else stays. Returns how many route lines are left. */
int rnd_ovl_keep_route(rnd_ovl_set *s, const char *name);

#endif
