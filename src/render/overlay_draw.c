/* The overlays drawn over a map (rnd_render): obstacles and other areas,
 * the roadmap, routes and trajectories with their white casings, start,
 * goal and other markers; each line's look (map_priv.h, line_style), and
 * the route names the legend lists. */
#include "map_priv.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

line_style rnd_line_style(int trajectory, const char *name, int with_trajectory)
{
    line_style ls = {{0, 0, 0}, 3.0, 5.6, 0.85, 0, 0, 1};
    if (trajectory) {
        rnd_route_rgb("trajectory", ls.rgb);
        ls.width = 2.0, ls.casing = 3.2, ls.pass = 3;
    } else if (name && !strcmp(name, "plan")) {
        rnd_route_rgb("plan", ls.rgb);
        ls.width = 11.0, ls.casing = 13.0, ls.casing_alpha = 0.6, ls.pass = 0;
    } else if (name && !strcmp(name, "last_plan")) {
        rnd_route_rgb("last_plan", ls.rgb);
        ls.width = 6.5, ls.casing = 0, ls.dash_on = 12, ls.dash_off = 6, ls.pass = 2;
    } else {
        if (rnd_route_rgb(name, ls.rgb))
            ls.dash_on = 9, ls.dash_off = 5, ls.casing_alpha = 0.6;
        if (with_trajectory)
            ls.width = 6.0, ls.casing = 8.0;
    }
    return ls;
}

/* The pass a shape is drawn in: roadmap; plans and routes; areas
 * (obstacles), translucent over the plans that run through them and under
 * the trajectory that went round them; trajectories; points. */
static int shape_pass(const rnd_ovl_shape *sh, int with_trajectory)
{
    int lp = rnd_line_style(sh->kind == RND_OVL_TRAJECTORY, sh->name, with_trajectory).pass;
    int p = sh->kind == RND_OVL_EDGE || sh->kind == RND_OVL_NODE      ? 0
          : sh->kind == RND_OVL_POLYGON || sh->kind == RND_OVL_CIRCLE ? 4
          : sh->kind == RND_OVL_POINT                             ? 6
          : lp < 3                                            ? 1 + lp
                                                              : 5;
    return p;
}

/* One shape in canvas pixels (xs, ys), in its look. */
static void draw_shape(rnd_canvas *c, rnd_font *font, const rnd_ovl_shape *sh, const double *xs, const double *ys,
                       const layout *L, double m_per_unit, int with_trajectory)
{
    const double s = L->s;
    switch (sh->kind) {
    case RND_OVL_POLYGON: {
        rnd_cv_add_polygon(c, xs, ys, sh->start, sh->nrings);
        rnd_cv_paint(c, OBSTACLE_FILL, OBSTACLE_ALPHA);
        for (int r = 0; r < sh->nrings; r++)
            rnd_cv_add_stroke(c, xs + sh->start[r], ys + sh->start[r], sh->start[r + 1] - sh->start[r], 1,
                          OBSTACLE_LINE_W * s, 0, 0);
        rnd_cv_paint(c, OBSTACLE_LINE, 1);
        break;
    }
    case RND_OVL_CIRCLE: {
        /* radius_m in metres; never smaller than a few pixels, so a
         * small obstacle stays visible on a map of the whole area */
        double r = fmax(sh->radius / m_per_unit / L->upx, 3 * s);
        rnd_cv_add_disc(c, xs[0], ys[0], r);
        rnd_cv_paint(c, OBSTACLE_FILL, OBSTACLE_ALPHA);
        rnd_cv_add_ring(c, xs[0], ys[0], r, OBSTACLE_LINE_W * s);
        rnd_cv_paint(c, OBSTACLE_LINE, 1);
        break;
    }
    case RND_OVL_EDGE: {
        static const unsigned char grey[3] = {70, 70, 70};
        rnd_cv_add_stroke(c, xs, ys, sh->n, 0, 0.7 * s, 0, 0);
        rnd_cv_paint(c, grey, 0.16);
        break;
    }
    case RND_OVL_NODE: {
        static const unsigned char grey[3] = {40, 40, 40};
        rnd_cv_add_disc(c, xs[0], ys[0], 0.9 * s);
        rnd_cv_paint(c, grey, 0.55);
        break;
    }
    case RND_OVL_ROUTE:
    case RND_OVL_OBSTACLE_LAYER:
    case RND_OVL_TRAJECTORY: {
        line_style ls = rnd_line_style(sh->kind == RND_OVL_TRAJECTORY, sh->name, with_trajectory);
        if (sh->colour >= 0) {
            rnd_cycle_rgb(sh->colour, ls.rgb);
            ls.dash_on = ls.dash_off = 0;
        }
        if (ls.casing > 0) {
            rnd_cv_add_stroke(c, xs, ys, sh->n, 0, ls.casing * s, 0, 0);
            rnd_cv_paint(c, WHITE, ls.casing_alpha);
        }
        rnd_cv_add_stroke(c, xs, ys, sh->n, 0, ls.width * s, ls.dash_on * s, ls.dash_off * s);
        rnd_cv_paint(c, ls.rgb, 1);
        break;
    }
    case RND_OVL_POINT: {
        int start = sh->name && !strcasecmp(sh->name, "start"), goal = sh->name && !strcasecmp(sh->name, "goal");
        static const unsigned char green[3] = {26, 152, 80}, red[3] = {215, 48, 39};
        double r = (start || goal ? 6.5 : 4) * s;
        rnd_cv_add_disc(c, xs[0], ys[0], r + 2 * s);
        rnd_cv_paint(c, WHITE, 1);
        rnd_cv_add_disc(c, xs[0], ys[0], r);
        rnd_cv_paint(c, start ? green : goal ? red : INK, 1);
        if (goal) {
            rnd_cv_add_disc(c, xs[0], ys[0], r * 0.4);
            rnd_cv_paint(c, WHITE, 1);
        }
        if (sh->name)
            rnd_cv_text(c, font, 1, 13 * s, xs[0] + r + 5 * s, ys[0] + 4.5 * s, sh->name, INK, 2 * s);
        break;
    }
    }
}

/* Draw the overlays in passes: areas, roadmap, routes, trajectories, points. */
void rnd_map_overlays(rnd_canvas *c, rnd_font *font, rnd_ovl_set *ov, const layout *L, const geo_grid *g,
                      double m_per_unit)
{
    /* map CRS -> canvas pixels */
    for (int k = 0; k < ov->n; k++) {
        rnd_ovl_shape *sh = &ov->shape[k];
        for (int i = 0; i < sh->n; i++) {
            sh->x[2 * i] = L->mx + (sh->x[2 * i] - g->gt[0]) / L->upx;
            sh->x[2 * i + 1] = L->my + (g->gt[3] - sh->x[2 * i + 1]) / L->upy;
        }
    }
    int with_trajectory = 0;
    for (int k = 0; k < ov->n; k++)
        with_trajectory |= ov->shape[k].kind == RND_OVL_TRAJECTORY;
    double *xs = NULL, *ys = NULL;
    int cap = 0;
    for (int pass = 0; pass < 7; pass++)
        for (int k = 0; k < ov->n; k++) {
            rnd_ovl_shape *sh = &ov->shape[k];
            if (shape_pass(sh, with_trajectory) != pass)
                continue;
            if (sh->n > cap) {
                cap = sh->n;
                double *nx = realloc(xs, sizeof(double) * cap), *ny = realloc(ys, sizeof(double) * cap);
                if (nx)
                    xs = nx;
                if (ny)
                    ys = ny;
                if (!nx || !ny) {
                    cap = 0;
                    continue;
                }
            }
            for (int i = 0; i < sh->n; i++)
                xs[i] = sh->x[2 * i], ys[i] = sh->x[2 * i + 1];
            draw_shape(c, font, sh, xs, ys, L, m_per_unit, with_trajectory);
        }
    free(xs);
    free(ys);
}

/* Unique route names (in drawing order) for the legend; *markers: bit 0 a
 * point named "start", bit 1 one named "goal" (the legend's marker rows). */
int rnd_map_route_names(const rnd_ovl_set *ov, const char **names, int max, int *edges, int *nodes, int *markers,
                        int *areas)
{
    int n = 0;
    *edges = *nodes = *markers = *areas = 0;
    for (int k = 0; k < ov->n; k++) {
        const rnd_ovl_shape *sh = &ov->shape[k];
        *edges |= sh->kind == RND_OVL_EDGE;
        *nodes |= sh->kind == RND_OVL_NODE;
        if (sh->kind == RND_OVL_POINT && sh->name)
            *markers |= (!strcasecmp(sh->name, "start")) | (!strcasecmp(sh->name, "goal")) << 1;
        *areas |= sh->kind == RND_OVL_POLYGON || sh->kind == RND_OVL_CIRCLE;
        if (sh->kind != RND_OVL_ROUTE && sh->kind != RND_OVL_TRAJECTORY)
            continue;
        const char *nm = sh->kind == RND_OVL_TRAJECTORY ? "trajectory" : sh->name ? sh->name : "route";
        int seen = 0;
        for (int i = 0; i < n; i++)
            seen |= !strcmp(names[i], nm);
        if (!seen && n < max)
            names[n++] = nm;
    }
    return n;
}
