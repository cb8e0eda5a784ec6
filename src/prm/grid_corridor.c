/* The raster optimum in a corridor (docs/scale.md, "--grid in a
 * corridor"): prm_route_grid's search on the cells within a half-width of
 * a guide route (the roadmap's route), widened until the escape bound
 * (grid.c) proves the corridor's optimum the optimum of the whole grid,
 * or until the corridor covers the grid (then the whole-grid search). */
#include "prm_priv.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The escape bound must exceed the corridor's optimum by this much
 * (relative): the sums are rounded, and a path that merely ties is left to
 * the wider search, which then gives the whole grid's route exactly. */
#define ESCAPE_MARGIN 1e-9

/* One search in the corridor of r cells around guide: the band's bounding
 * box grown by the 2 cells a move reaches (clamped), the band as the
 * mask. *escape: the bound; TRV_ERR_DATA when the goal is not reached. */
static trv_status corridor_once(trv_ctx *ctx, const prm_terrain *t, const prm_path *guide, int r, const double xy[4],
                                prm_strategy s, const prm_weights *w, prm_path *out, double *escape)
{
    const geo_grid *g = t->grid;
    long band[4], win[4];
    prm_path_band(t, guide, r, band, NULL);
    if (band[2] < 1 || band[3] < 1)
        return trv_error(ctx, TRV_ERR_DATA, "the guide route does not cross the grid");
    win[0] = band[0] > 2 ? band[0] - 2 : 0;
    win[1] = band[1] > 2 ? band[1] - 2 : 0;
    win[2] = (band[0] + band[2] + 2 < g->nx ? band[0] + band[2] + 2 : g->nx) - win[0];
    win[3] = (band[1] + band[3] + 2 < g->ny ? band[1] + band[3] + 2 : g->ny) - win[1];
    unsigned char *mask = calloc((size_t)win[2] * win[3], 1);
    if (!mask)
        return trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
    prm_path_band(t, guide, r, win, mask);
    *escape = INFINITY;
    trv_status st = prm_terrain_need(ctx, t, win[0], win[1], win[0] + win[2] - 1, win[1] + win[3] - 1);
    if (!st)
        st = prm_route_grid_escape(ctx, t, win, mask, xy[0], xy[1], xy[2], xy[3], s, w, out, escape);
    free(mask);
    return st;
}

/* The first half-width in cells: halfwidth_m, or with 0 the ellipse's
 * half minor axis (prm.h); rmax (the whole grid) without a guide. */
static long first_cells(const prm_terrain *t, const prm_path *guide, double halfwidth_m, const double xy[4],
                        prm_strategy s, const prm_weights *w, long rmax)
{
    if (!guide || guide->n < 2)
        return rmax;
    double m = halfwidth_m;
    if (m == 0) {
        double k = prm_grid_heuristic_factor(t, s, w), U = guide->objective;
        double D = hypot(xy[2] - xy[0], xy[3] - xy[1]) * t->cell_m / t->grid->gt[1];
        double a = k > 0 ? U / (2 * k) : INFINITY, b2 = a * a - D * D / 4;
        m = b2 > 0 ? sqrt(b2) : 0;
    }
    double rc = ceil(m / t->cell_m);
    return rc < 1 ? 1 : rc < (double)rmax ? (long)rc : rmax;
}

trv_status prm_route_grid_corridor(trv_ctx *ctx, const prm_terrain *t, const prm_path *guide, double halfwidth_m,
                                   const double xy[4], prm_strategy s, const prm_weights *w, prm_path *out,
                                   prm_corridor_info *info)
{
    memset(out, 0, sizeof *out);
    memset(info, 0, sizeof *info);
    const geo_grid *g = t->grid;
    long rmax = g->nx > g->ny ? g->nx : g->ny;
    prm_weights wdef;
    if (!w) {
        prm_weights_default(&wdef);
        w = &wdef;
    }
    long r = first_cells(t, guide, halfwidth_m, xy, s, w, rmax);
    long expanded = 0;
    trv_status st;
    for (; r < rmax; r *= 2, info->widened++) {
        double escape = INFINITY;
        prm_path p = {0};
        st = corridor_once(ctx, t, guide, (int)r, xy, s, w, &p, &escape);
        expanded += p.expanded;
        if (st && st != TRV_ERR_DATA)
            return st;
        info->halfwidth_m = r * t->cell_m;
        info->escape = escape;
        if (!st && escape > p.objective + ESCAPE_MARGIN * fabs(p.objective)) {
            *out = p;
            out->expanded = expanded;
            return TRV_OK;
        }
        prm_path_clear(&p);
    }
    info->whole = 1;
    info->halfwidth_m = INFINITY;
    info->escape = INFINITY;
    if ((st = prm_terrain_need_all(ctx, t)) ||
        (st = prm_route_grid(ctx, t, xy[0], xy[1], xy[2], xy[3], s, w, out)))
        return st;
    out->expanded += expanded;
    return TRV_OK;
}
