/* Vector overlays read through geo (geo_vector_read), reprojected into the map's CRS and
 * sorted into drawing passes by what they are (see render.h). */
#include "overlay_priv.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

void rnd_ovl_clear(rnd_ovl_set *s)
{
    for (int i = 0; i < s->n; i++) {
        free(s->shape[i].x);
        free(s->shape[i].start);
        free(s->shape[i].name);
    }
    free(s->shape);
    memset(s, 0, sizeof *s);
}

/* Keep the shapes keep() accepts, in order; free the others. */
static void keep_if(rnd_ovl_set *s, int (*keep)(const rnd_ovl_shape *, const void *), const void *arg)
{
    int kept = 0;
    for (int k = 0; k < s->n; k++) {
        rnd_ovl_shape *sh = &s->shape[k];
        if (keep(sh, arg)) {
            s->shape[kept++] = *sh;
        } else {
            free(sh->x);
            free(sh->start);
            free(sh->name);
        }
    }
    s->n = kept;
}

typedef struct window {
    const double *bb;
    double units_per_m;
} window;

static int within(const rnd_ovl_shape *sh, const void *arg)
{
    const window *w = arg;
    double x0 = INFINITY, y0 = INFINITY, x1 = -INFINITY, y1 = -INFINITY;
    for (int i = 0; i < sh->n; i++) {
        x0 = fmin(x0, sh->x[2 * i]), x1 = fmax(x1, sh->x[2 * i]);
        y0 = fmin(y0, sh->x[2 * i + 1]), y1 = fmax(y1, sh->x[2 * i + 1]);
    }
    double grow = sh->kind == RND_OVL_CIRCLE ? sh->radius * w->units_per_m : 0;
    /* a bounding box test: a line passing near a corner may be kept
     * without showing, which only costs a few pixels of clipping */
    return x1 + grow >= w->bb[0] && x0 - grow <= w->bb[2] && y1 + grow >= w->bb[1] && y0 - grow <= w->bb[3];
}

void rnd_ovl_keep_within(rnd_ovl_set *s, const double bb[4], double units_per_m)
{
    const window w = {bb, units_per_m};
    keep_if(s, within, &w);
}

static int other_route(const rnd_ovl_shape *sh, const void *name)
{
    return sh->kind == RND_OVL_ROUTE && (!sh->name || strcmp(sh->name, name));
}

static int not_other_route(const rnd_ovl_shape *sh, const void *name) { return !other_route(sh, name); }

int rnd_ovl_keep_route(rnd_ovl_set *s, const char *name)
{
    keep_if(s, not_other_route, name);
    int n = 0;
    for (int k = 0; k < s->n; k++)
        n += s->shape[k].kind == RND_OVL_ROUTE;
    return n;
}

static int push(rnd_ovl_set *s, const rnd_ovl_shape *sh)
{
    if (s->n == s->cap) {
        int cap = s->cap ? 2 * s->cap : 256;
        rnd_ovl_shape *p = realloc(s->shape, sizeof *p * (size_t)cap);
        if (!p)
            return -1;
        s->shape = p, s->cap = cap;
    }
    s->shape[s->n++] = *sh;
    return 0;
}

static int has_ci(const char *s, const char *w)
{
    size_t n = strlen(w);
    for (; s && *s; s++)
        if (!strncasecmp(s, w, n))
            return 1;
    return 0;
}

/* Add one simple part of a feature (already in the map CRS) as a shape. */
static int add_shape(rnd_ovl_set *s, const geo_shape *g, rnd_ovl_kind layer_kind, const char *name, double radius)
{
    rnd_ovl_shape sh = {0};
    sh.colour = -1;
    sh.radius = radius;
    sh.n = g->n;
    if (g->kind == GEO_POLYGON) {
        sh.kind = RND_OVL_POLYGON;
        sh.nrings = g->nrings;
        sh.start = malloc(sizeof(int) * (size_t)(g->nrings + 1));
        if (!sh.start)
            return -1;
        memcpy(sh.start, g->start, sizeof(int) * (size_t)(g->nrings + 1));
    } else {
        sh.kind = g->kind == GEO_POINT
                      ? (layer_kind == RND_OVL_NODE ? RND_OVL_NODE : radius > 0 ? RND_OVL_CIRCLE : RND_OVL_POINT)
                      : layer_kind;
    }
    sh.x = malloc(sizeof(double) * 2 * (size_t)(g->n ? g->n : 1));
    if (!sh.x)
        goto fail;
    memcpy(sh.x, g->xy, sizeof(double) * 2 * (size_t)g->n);
    if (name && !(sh.name = strdup(name)))
        goto fail;
    if (push(s, &sh))
        goto fail;
    return 0;
fail:
    free(sh.x);
    free(sh.start);
    free(sh.name);
    return -1;
}

static rnd_ovl_kind layer_kind(const char *lname)
{
    if (has_ci(lname, "edges"))
        return RND_OVL_EDGE;
    if (has_ci(lname, "nodes"))
        return RND_OVL_NODE;
    if (has_ci(lname, "traj"))
        return RND_OVL_TRAJECTORY;
    if (has_ci(lname, "obstacle"))
        return RND_OVL_OBSTACLE_LAYER;
    return RND_OVL_ROUTE;
}

static int add_layer(rnd_ovl_set *s, const geo_vlayer *l)
{
    const rnd_ovl_kind kind = layer_kind(l->name);
    int fname = geo_vlayer_field(l, "name"), froute = geo_vlayer_field(l, "route");
    /* trv-sim's trajectory files name their features (trajectory, plan, last_plan) in `feature` */
    if (fname < 0)
        fname = geo_vlayer_field(l, "feature");
    int frad = geo_vlayer_field(l, "radius_m");
    if (frad < 0)
        frad = geo_vlayer_field(l, "radius");
    for (long k = 0; k < l->n; k++) {
        const geo_feature *f = &l->f[k];
        const char *name = NULL;
        if (froute >= 0 && f->str[froute])
            name = f->str[froute];
        else if (fname >= 0 && f->str[fname])
            name = f->str[fname];
        if (name && !*name)
            name = NULL;
        double radius = frad >= 0 && f->str[frad] ? f->num[frad] : 0;
        rnd_ovl_kind kk = kind;
        if (kk == RND_OVL_ROUTE && name && has_ci(name, "traj"))
            kk = RND_OVL_TRAJECTORY;
        for (int i = 0; i < f->nshapes; i++)
            if (add_shape(s, &f->shapes[i], kk, name, radius))
                return -1;
    }
    return 0;
}

trv_status rnd_ovl_read(trv_ctx *ctx, const char *path, const char *map_wkt, rnd_ovl_set *s)
{
    if (!map_wkt || geo_crs_is_geographic(map_wkt) < 0)
        return trv_error(ctx, TRV_ERR_CRS, "the layer has no usable CRS to draw '%s' in", path);
    geo_vfile *v;
    trv_status st = geo_vector_read(ctx, path, NULL, map_wkt, GEO_VREAD_FEATURES, &v);
    if (st)
        return trv_error_prefix(ctx, st, "cannot read overlay '%s'", path);
    for (int i = 0; i < v->nlayers && !st; i++) {
        const geo_vlayer *l = &v->layers[i];
        if (!strcmp(l->name, "layer_styles") || !strcmp(l->name, "route_points") || !strcmp(l->name, "track_points"))
            continue;
        if (l->has_geom && add_layer(s, l))
            st = trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
    }
    geo_vfile_free(v);
    return st;
}
