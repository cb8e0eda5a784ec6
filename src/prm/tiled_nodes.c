/* The roadmap's GO area, LHS acceptance and coverage read by row blocks
 * (tiled.h, docs/scale.md): class and gonogo of the run directory streamed
 * through run_blocks (geo/block.h), the same numbers and the same nodes,
 * in the same order, as roadmap.c's whole-terrain loops. */
#include "tiled.h"

#include "core/bucket.h"
#include "run/blocks.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static trv_status open_go(trv_ctx *ctx, const char *dir, run_blocks *b)
{
    static const run_id which[2] = {RUN_CLASS, RUN_GONOGO};
    trv_status st = run_blocks_open(ctx, dir, which, 2, 0, b);
    if (st)
        run_blocks_close(b);
    return st;
}

/* prm_cell_go's rule on a block's row y, column x. */
static int go_at(const run_blocks *b, int y, int x)
{
    return geo_rows_u8(b->rows[RUN_GONOGO], y)[x] == 0 && geo_rows_u8(b->rows[RUN_CLASS], y)[x] != 0;
}

trv_status prm_blocks_go_count(trv_ctx *ctx, const char *dir, size_t *go)
{
    run_blocks b;
    trv_status st = open_go(ctx, dir, &b);
    if (st)
        return st;
    const geo_grid *g = b.grid;
    int h = geo_block_rows();
    *go = 0;
    for (int y0 = 0; y0 < g->ny && !st; y0 += h) {
        int y1 = y0 + h < g->ny ? y0 + h : g->ny;
        if ((st = run_blocks_read(ctx, &b, y0, y1)))
            break;
        for (int y = y0; y < y1; y++)
            for (int x = 0; x < g->nx; x++)
                *go += (size_t)go_at(&b, y, x);
    }
    run_blocks_close(&b);
    return st;
}

/* go[i] = 1 where sample i (its cell row[i], col[i]; row -1 off the grid)
 * is on a GO cell: only the blocks holding a sample are read. */
static trv_status accept_blocks(trv_ctx *ctx, run_blocks *b, int p, const int *row, const int *col,
                                unsigned char *go)
{
    const geo_grid *g = b->grid;
    int h = geo_block_rows(), nb = (g->ny + h - 1) / h;
    unsigned char *need = calloc((size_t)nb, 1);
    if (!need)
        return trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
    for (int i = 0; i < p; i++)
        if (row[i] >= 0)
            need[row[i] / h] = 1;
    trv_status st = TRV_OK;
    for (int k = 0; k < nb && !st; k++) {
        int y0 = k * h, y1 = y0 + h < g->ny ? y0 + h : g->ny;
        if (!need[k] || (st = run_blocks_read(ctx, b, y0, y1)))
            continue;
        for (int i = 0; i < p; i++)
            if (row[i] >= y0 && row[i] < y1)
                go[i] = (unsigned char)go_at(b, row[i], col[i]);
    }
    free(need);
    return st;
}

/* One LHS batch of p samples: their cells (prm_cell_at's arithmetic), the
 * GO test by blocks, then roadmap.c's acceptance in sample order. */
static trv_status sample_batch(trv_ctx *ctx, run_blocks *b, const double *xs, const double *ys, int p, int want,
                               prm_roadmap *r, prm_build_stats *stats)
{
    const geo_grid *g = b->grid;
    int *row = malloc((size_t)p * sizeof *row), *col = malloc((size_t)p * sizeof *col);
    unsigned char *go = calloc((size_t)p, 1);
    trv_status st = TRV_OK;
    if (!row || !col || !go)
        st = trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
    for (int i = 0; i < p && !st; i++) {
        double c = (xs[i] - g->gt[0]) / g->gt[1], rr = (ys[i] - g->gt[3]) / g->gt[5];
        int in = c >= 0 && rr >= 0 && c < g->nx && rr < g->ny;
        row[i] = in ? (int)rr : -1;
        col[i] = in ? (int)c : -1;
    }
    if (!st)
        st = accept_blocks(ctx, b, p, row, col, go);
    for (int i = 0; i < p && r->nnodes < want && !st; i++) {
        stats->samples++;
        if (!go[i]) {
            stats->rejected++;
            continue;
        }
        r->x[r->nnodes] = xs[i];
        r->y[r->nnodes] = ys[i];
        r->nnodes++;
    }
    free(row);
    free(col);
    free(go);
    return st;
}

trv_status prm_blocks_sample(trv_ctx *ctx, const char *dir, const prm_build_opts *o, int want, double go_frac,
                             prm_roadmap *r, prm_build_stats *stats)
{
    run_blocks b;
    trv_status st = open_go(ctx, dir, &b);
    if (st)
        return st;
    const geo_grid *g = b.grid;
    double x0 = g->gt[0], x1 = g->gt[0] + g->nx * g->gt[1], y1 = g->gt[3], y0 = g->gt[3] + g->ny * g->gt[5];
    for (int batch = 0; r->nnodes < want && batch < 64 && !st; batch++) {
        double pd = ceil((want - r->nnodes) / go_frac * 1.05) + 8;
        int p = pd < PRM_MAX_BATCH ? (int)pd : PRM_MAX_BATCH;
        double *xs = malloc((size_t)p * sizeof *xs), *ys = malloc((size_t)p * sizeof *ys);
        if (!xs || !ys)
            st = trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
        else {
            prm_lhs(o->seed * 1000003u + (uint64_t)batch, p, x0, y0, x1, y1, xs, ys);
            st = sample_batch(ctx, &b, xs, ys, p, want, r, stats);
        }
        free(xs);
        free(ys);
    }
    run_blocks_close(&b);
    if (!st && r->nnodes < 2)
        return trv_error(ctx, TRV_ERR_DATA, "too few GO samples for a roadmap (%d)", stats->samples);
    return st;
}

trv_status prm_blocks_coverage(trv_ctx *ctx, const char *dir, const trv_bucket *ix, const prm_roadmap *r,
                               double cell_m, double go_area_km2, double *cov)
{
    run_blocks b;
    trv_status st = open_go(ctx, dir, &b);
    if (st)
        return st;
    const geo_grid *g = b.grid;
    double spacing = sqrt(go_area_km2 * 1e6 / r->nnodes), dd;
    long seen = 0, near = 0, one;
    int h = geo_block_rows();
    for (int y0 = 0; y0 < g->ny && !st; y0 += h) {
        int y1 = y0 + h < g->ny ? y0 + h : g->ny, first = (y0 + 3) / 4 * 4; /* rows 0, 4, 8, ... */
        if (first >= y1 || (st = run_blocks_read(ctx, &b, y0, y1)))
            continue;
        for (int row = first; row < y1; row += 4)
            for (int col = 0; col < g->nx; col += 4) {
                if (!go_at(&b, row, col))
                    continue;
                seen++;
                if (trv_bucket_nearest(ix, geo_grid_x(g, col), geo_grid_y(g, row), 1, INFINITY, -1, &one, &dd) ==
                        1 &&
                    sqrt(dd) * cell_m / g->gt[1] <= spacing)
                    near++;
            }
    }
    run_blocks_close(&b);
    *cov = seen ? (double)near / seen : 0;
    return st;
}
