/* The zones burned into a raster on a grid (zones.h): every cell a nogo
 * line or polygon touches ("all touched": the closed cell meets the
 * geometry), crossings' cells left for the exact test, and the cells
 * factor and max_speed zones touch. */
#include "zones.h"

#include "core/clip.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

enum { ZB_LINE = 8, ZB_POLY = 16 }; /* while burning */

/* A window of the grid: columns w[0] .. w[0] + w[2] - 1, rows w[1] ..
 * w[1] + w[3] - 1, its bytes row-major with rows of w[4] bytes. */

/* Every cell of the window whose closed square the segment q (map units)
 * meets: per row band the segment crosses, the columns of its part in the
 * band, one more on each side, each tested against the closed square (the
 * tests made on the grid's own cell coordinates, whatever the window). */
static void burn_segment(const geo_grid *g, const long *w, unsigned char *burn, const double *q, unsigned char bit)
{
    double u0 = (q[0] - g->gt[0]) / g->gt[1], v0 = (q[1] - g->gt[3]) / g->gt[5];
    double u1 = (q[2] - g->gt[0]) / g->gt[1], v1 = (q[3] - g->gt[3]) / g->gt[5];
    double ra = floor(fmin(v0, v1)) - 1, rb = floor(fmax(v0, v1)) + 1;
    const long y1 = w[1] + w[3], x1 = w[0] + w[2];
    for (long r = ra < w[1] ? w[1] : (long)ra; r <= rb && r < y1; r++) {
        double t0, t1;
        if (!trv_clip_segment(u0, v0, u1, v1, -1.0, (double)r, g->nx + 1.0, r + 1.0, &t0, &t1))
            continue;
        double ua = u0 + t0 * (u1 - u0), ub = u0 + t1 * (u1 - u0);
        double ca = floor(fmin(ua, ub)) - 1, cb = floor(fmax(ua, ub)) + 1;
        for (long c = ca < w[0] ? w[0] : (long)ca; c <= cb && c < x1; c++)
            if (trv_clip_segment(u0, v0, u1, v1, (double)c, (double)r, c + 1.0, r + 1.0, &t0, &t1))
                burn[(r - w[1]) * w[4] + (c - w[0])] |= bit;
    }
}

/* The cells of polygon k whose centres lie inside it (even-odd, by rows). */
static int burn_inside(const geo_zones *z, int k, const geo_grid *g, const long *w, double *room,
                       unsigned char *burn, unsigned char bit)
{
    const geo_zone *zn = &z->z[k];
    double *xs = room ? room : malloc((size_t)(zn->s1 - zn->s0 + 1) * sizeof *xs);
    if (!xs)
        return -1;
    for (long r = w[1]; r < w[1] + w[3]; r++) {
        double y = geo_grid_y(g, (double)r);
        if (y < zn->box[1] || y > zn->box[3])
            continue;
        int n = 0;
        for (int s = zn->s0; s < zn->s1; s++) {
            const double *q = z->seg + 4 * (size_t)s;
            if ((q[1] > y) != (q[3] > y))
                xs[n++] = q[0] + (y - q[1]) * (q[2] - q[0]) / (q[3] - q[1]);
        }
        qsort(xs, (size_t)n, sizeof *xs, trv_cmp_double);
        for (int p = 0; p + 1 < n; p += 2) { /* centres with xs[p] < x < xs[p + 1]... as geo_zone_contains */
            double c0 = ceil((xs[p] - g->gt[0]) / g->gt[1] - 0.5), c1 = floor((xs[p + 1] - g->gt[0]) / g->gt[1] - 0.5);
            for (long c = c0 < w[0] ? w[0] : (long)c0; c <= c1 && c < w[0] + w[2]; c++)
                if (geo_zone_contains(z, k, geo_grid_x(g, (double)c), y))
                    burn[(r - w[1]) * w[4] + (c - w[0])] |= bit;
        }
    }
    if (!room)
        free(xs);
    return 0;
}

/* A line-touched cell whose centre is within a crossing's radius. */
static int cell_near_crossing(const geo_zones *z, const geo_grid *g, long c, long r)
{
    double x = geo_grid_x(g, (double)c), y = geo_grid_y(g, (double)r);
    for (int k = 0; k < z->nc; k++)
        if (hypot(x - z->c[k].x, y - z->c[k].y) <= z->c[k].r)
            return 1;
    return 0;
}

void geo_zone_cells(const geo_zones *z, int k, const geo_grid *g, long cells[4])
{
    const double *b = z->z[k].box;
    double u0 = (b[0] - g->gt[0]) / g->gt[1], u1 = (b[2] - g->gt[0]) / g->gt[1];
    double v0 = (b[1] - g->gt[3]) / g->gt[5], v1 = (b[3] - g->gt[3]) / g->gt[5];
    double lim = 4.0 * ((double)g->nx + g->ny) + 8; /* far outside: clamped (no overflow) */
    double c0 = fmax(floor(fmin(u0, u1)) - 2, -lim), c1 = fmin(floor(fmax(u0, u1)) + 2, lim);
    double r0 = fmax(floor(fmin(v0, v1)) - 2, -lim), r1 = fmin(floor(fmax(v0, v1)) + 2, lim);
    cells[0] = (long)c0, cells[1] = (long)r0, cells[2] = (long)c1, cells[3] = (long)r1;
}

/* Does zone k's cell box (geo_zone_cells) meet window w? */
static int zone_meets(const geo_zones *z, int k, const geo_grid *g, const long *w)
{
    long b[4];
    geo_zone_cells(z, k, g, b);
    return b[0] < w[0] + w[2] && b[2] >= w[0] && b[1] < w[1] + w[3] && b[3] >= w[1];
}

trv_status geo_zones_burn_window(trv_ctx *ctx, const geo_grid *g, const geo_zones *z, const long win[5],
                                 double *xs, unsigned char *burn)
{
    for (long r = 0; r < win[3]; r++)
        memset(burn + r * win[4], 0, (size_t)win[2]);
    for (int k = 0; k < z->n; k++) {
        const geo_zone *zn = &z->z[k];
        if (!zone_meets(z, k, g, win))
            continue; /* it marks no cell of the window */
        unsigned char bit = zn->effect != GEO_ZONE_NOGO ? GEO_ZB_FACTOR : zn->line ? ZB_LINE : ZB_POLY;
        for (int s = zn->s0; s < zn->s1; s++)
            burn_segment(g, win, burn, z->seg + 4 * (size_t)s, bit);
        if (!zn->line && burn_inside(z, k, g, win, xs, burn, bit))
            return trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
    }
    for (long r = 0; r < win[3]; r++)
        for (long c = 0; c < win[2]; c++) {
            unsigned char *p = burn + r * win[4] + c, b = *p;
            if (!(b & (ZB_LINE | ZB_POLY)))
                continue;
            int open = !(b & ZB_POLY) && cell_near_crossing(z, g, c + win[0], r + win[1]);
            *p = (unsigned char)((b & GEO_ZB_FACTOR) | (open ? GEO_ZB_CROSS : GEO_ZB_NOGO));
        }
    return TRV_OK;
}

trv_status geo_zones_burn_rows(trv_ctx *ctx, const geo_grid *g, const geo_zones *z, int y0, int y1,
                               unsigned char *burn)
{
    const long win[5] = {0, y0, g->nx, y1 - y0, g->nx};
    return geo_zones_burn_window(ctx, g, z, win, NULL, burn);
}

trv_status geo_zones_burn(trv_ctx *ctx, const geo_grid *g, geo_zones *z)
{
    memcpy(z->burn_gt, g->gt, sizeof z->burn_gt);
    z->burn_nx = g->nx, z->burn_ny = g->ny;
    free(z->burn);
    if (!(z->burn = malloc((size_t)g->nx * g->ny)))
        return trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
    return geo_zones_burn_rows(ctx, g, z, 0, g->ny, z->burn);
}

unsigned geo_zones_block(const geo_zones *z, const long w[4], long stride, unsigned char *out)
{
    for (long r = 0; r < w[3]; r++)
        memset(out + r * stride, 0, (size_t)w[2]);
    const long c0 = w[0] < 0 ? 0 : w[0], r0 = w[1] < 0 ? 0 : w[1];
    const long c1 = w[0] + w[2] < z->burn_nx ? w[0] + w[2] : z->burn_nx;
    const long r1 = w[1] + w[3] < z->burn_ny ? w[1] + w[3] : z->burn_ny;
    if (c0 >= c1 || r0 >= r1)
        return 0;
    const long in[4] = {c0, r0, c1 - c0, r1 - r0};
    unsigned char *o = out + (r0 - w[1]) * stride + (c0 - w[0]);
    if (!z->burn)
        return z->block(z->tiles, in, stride, o);
    unsigned any = 0;
    for (long r = 0; r < in[3]; r++) {
        const unsigned char *src = z->burn + (size_t)(r0 + r) * (size_t)z->burn_nx + (size_t)c0;
        for (long c = 0; c < in[2]; c++)
            any |= o[r * stride + c] = src[c];
    }
    return any;
}
