/* overlay_priv.h — vector overlays for rnd_render (private to src/render). */
#ifndef RENDER_OVERLAY_H
#define RENDER_OVERLAY_H

#include "render.h"

typedef enum ovl_kind {
    OVL_POLYGON = 1,    /* obstacles and other areas: outlined */
    OVL_CIRCLE,         /* a point with a radius (radius_m): an outlined circle */
    OVL_EDGE,           /* roadmap edges: faint, thin */
    OVL_NODE,           /* roadmap nodes: tiny dots */
    OVL_ROUTE,          /* lines: coloured by name (route strategy) */
    OVL_TRAJECTORY,     /* a driven trajectory */
    OVL_POINT,          /* markers: start, goal, others */
    OVL_OBSTACLE_LAYER  /* (a layer hint: lines in an obstacles layer) */
} ovl_kind;

typedef struct ovl_shape {
    ovl_kind kind;
    int n;              /* vertices */
    double *x;          /* 2n: x, y pairs in the map CRS, later in pixels */
    int nrings;         /* polygons */
    int *start;         /* polygons: nrings + 1 ring starts */
    char *name;         /* route/feature name or NULL */
    double radius;      /* OVL_CIRCLE: map units */
} ovl_shape;

typedef struct ovl_set {
    ovl_shape *shape;
    int n, cap;
} ovl_set;

trv_status ovl_read(trv_ctx *ctx, const char *path, const char *map_wkt, ovl_set *s);
void ovl_clear(ovl_set *s);
/* Drop the shapes that do not reach into bb = {xmin, ymin, xmax, ymax}
 * (map CRS): a map window draws, and its legend lists, only what it shows.
 * A circle reaches radius * units_per_m beyond its centre (as drawn).
 * Keeps the order of the others. */
void ovl_keep_within(ovl_set *s, const double bb[4], double units_per_m);
/* Drop the route lines not named NAME (other strategies, raster optima);
 * everything else stays. Returns how many route lines are left. */
int ovl_keep_route(ovl_set *s, const char *name);

#endif
