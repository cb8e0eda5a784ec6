/* The map's GO regions: the cells a route can join at all. A move never
 * touches NOGO, corners included (prm.h), so two GO cells meeting only at
 * a corner are not joined: regions are 4-connected. Labelled by a
 * breadth-first flood, one pass over the grid (prm.h). */
#include "prm.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void prm_regions_clear(prm_regions *r)
{
    free(r->label);
    free(r->size);
    memset(r, 0, sizeof *r);
}

/* Flood region id from cell seed over GO cells not yet labelled; queue
 * has room for every cell. Returns the region's size. */
static long flood(const prm_terrain *t, int *label, long *queue, long seed, int id)
{
    int nx = t->grid->nx, ny = t->grid->ny;
    long head = 0, tail = 0;
    label[seed] = id;
    queue[tail++] = seed;
    while (head < tail) {
        long i = queue[head++];
        int c = (int)(i % nx), r = (int)(i / nx);
        const long next[4] = {c > 0 ? i - 1 : -1, c + 1 < nx ? i + 1 : -1, r > 0 ? i - nx : -1,
                              r + 1 < ny ? i + nx : -1};
        for (int k = 0; k < 4; k++)
            if (next[k] >= 0 && !label[next[k]] && prm_cell_go(t, next[k])) {
                label[next[k]] = id;
                queue[tail++] = next[k];
            }
    }
    return tail;
}

trv_status prm_regions_label(trv_ctx *ctx, const prm_terrain *t, prm_regions *out)
{
    memset(out, 0, sizeof *out);
    long n = (long)t->grid->nx * t->grid->ny, cap = 16;
    long *queue = malloc((size_t)n * sizeof *queue);
    out->label = calloc((size_t)n, sizeof *out->label);
    out->size = malloc((size_t)cap * sizeof *out->size);
    if (!queue || !out->label || !out->size) {
        free(queue);
        prm_regions_clear(out);
        return trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
    }
    out->size[0] = 0; /* region 0: NOGO */
    for (long i = 0; i < n; i++) {
        if (out->label[i] || !prm_cell_go(t, i))
            continue;
        if (out->n + 2 > cap) {
            long *s = realloc(out->size, (size_t)(cap *= 2) * sizeof *s);
            if (!s) {
                free(queue);
                prm_regions_clear(out);
                return trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
            }
            out->size = s;
        }
        out->n++;
        out->size[out->n] = flood(t, out->label, queue, i, out->n);
    }
    free(queue);
    return TRV_OK;
}

int prm_regions_at(const prm_terrain *t, const prm_regions *r, double x, double y)
{
    long i = prm_cell_at(t, x, y);
    return i < 0 ? 0 : r->label[i];
}

int prm_regions_nearest(const prm_terrain *t, const prm_regions *r, int region, double x, double y, double *nx,
                        double *ny)
{
    const geo_grid *g = t->grid;
    double best = INFINITY;
    long at = -1, n = (long)g->nx * g->ny;
    for (long i = 0; i < n; i++) {
        if (r->label[i] != region)
            continue;
        double dx = geo_grid_x(g, (int)(i % g->nx)) - x, dy = geo_grid_y(g, (int)(i / g->nx)) - y;
        double d = dx * dx + dy * dy;
        if (d < best) {
            best = d;
            at = i;
        }
    }
    if (at < 0)
        return 0;
    *nx = geo_grid_x(g, (int)(at % g->nx));
    *ny = geo_grid_y(g, (int)(at / g->nx));
    return 1;
}
