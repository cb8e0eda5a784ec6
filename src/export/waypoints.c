/* A route's waypoints for nav2 (export.h): one LineString of a route file
 * in the map's CRS, each vertex a pose with the yaw of the track. */
#include "export/export.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int same(const exp_pose *a, const exp_pose *b) { return a->x == b->x && a->y == b->y; }

void exp_poses_yaw(exp_pose *p, int n)
{
    for (int k = 0; k < n; k++) {
        int j = k + 1, b = k - 1;
        while (j < n && same(&p[j], &p[k]))
            j++;
        while (j == n && b >= 0 && same(&p[b], &p[k]))
            b--;
        p[k].yaw = j < n    ? atan2(p[j].y - p[k].y, p[j].x - p[k].x)
                 : b >= 0 ? atan2(p[k].y - p[b].y, p[k].x - p[b].x)
                          : 0;
    }
}

/* A feature's name: its "route" attribute, else "name", else "". */
static const char *feature_name(const geo_vlayer *l, const geo_feature *f)
{
    int c = geo_vlayer_field(l, "route");
    if (c < 0 || !f->str[c])
        c = geo_vlayer_field(l, "name");
    return c >= 0 && f->str[c] ? f->str[c] : "";
}

static int is_line(const geo_feature *f) { return f->has_geom && f->geom == GEO_LINE && f->nshapes == 1; }

/* The chosen LineString (export.h's rule) of v; the names of its
 * LineStrings listed in names (for the message when none matches). */
static const geo_feature *choose(const geo_vfile *v, const char *name, const geo_vlayer **fl, char *names, size_t nn)
{
    const geo_feature *match = NULL, *first = NULL;
    const geo_vlayer *match_l = NULL, *first_l = NULL;
    names[0] = '\0';
    for (int i = 0; i < v->nlayers; i++)
        for (long k = 0; k < v->layers[i].n; k++) {
            const geo_vlayer *l = &v->layers[i];
            const geo_feature *f = &l->f[k];
            if (!is_line(f))
                continue;
            const char *nm = feature_name(l, f);
            size_t len = strlen(names);
            snprintf(names + len, nn - len, "%s%s", len ? ", " : "", *nm ? nm : "(unnamed)");
            if (!match && !strcmp(nm, name ? name : "mmcr")) {
                match = f;
                match_l = l;
            }
            if (!first) {
                first = f;
                first_l = l;
            }
        }
    *fl = match ? match_l : first_l;
    return match ? match : name ? NULL : first;
}

/* The poses of the line's vertices, each checked against the map. */
static trv_status poses(trv_ctx *ctx, const char *path, const geo_shape *s, const exp_nav2_frame *fr, exp_route *r)
{
    if (!(r->p = malloc(sizeof *r->p * (size_t)s->n)))
        return trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
    r->n = s->n;
    for (int k = 0; k < s->n; k++) {
        double x = s->xy[2 * k], y = s->xy[2 * k + 1];
        const double *e = fr->extent;
        if (!(x >= e[0] && x <= e[2] && y >= e[1] && y <= e[3]))
            return trv_error(ctx, TRV_ERR_DATA, "route '%s' of '%s': vertex %d (%.3f, %.3f in %s) is outside the "
                             "map (x %.3f..%.3f, y %.3f..%.3f)", r->name, path, k + 1, x, y, fr->crs, e[0], e[2],
                             e[1], e[3]);
        r->p[k] = (exp_pose){x, y, 0};
    }
    exp_poses_yaw(r->p, r->n);
    return TRV_OK;
}

trv_status exp_route_read(trv_ctx *ctx, const char *path, const char *name, const char *to_wkt,
                          const exp_nav2_frame *f, exp_route *r)
{
    *r = (exp_route){0};
    geo_vfile *v = NULL;
    trv_status st = geo_vector_read(ctx, path, NULL, to_wkt, GEO_VREAD_FEATURES, &v);
    if (st)
        return st;
    const geo_vlayer *fl;
    char names[512];
    const geo_feature *ff = choose(v, name, &fl, names, sizeof names);
    if (!ff && !names[0])
        st = trv_error(ctx, TRV_ERR_FORMAT, "'%s' holds no LineString: a route file has one per route "
                       "(trv-route -o)", path);
    else if (!ff)
        st = trv_error(ctx, TRV_ERR_DATA, "'%s' has no route '%s' (its routes: %s)", path, name, names);
    if (!st) {
        snprintf(r->name, sizeof r->name, "%s", feature_name(fl, ff));
        st = poses(ctx, path, &ff->shapes[0], f, r);
    }
    geo_vfile_free(v);
    if (st)
        exp_route_clear(r);
    return st;
}

void exp_route_clear(exp_route *r)
{
    free(r->p);
    *r = (exp_route){0};
}
