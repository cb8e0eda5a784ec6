/*
 * blocks.h — the run directory's layers read by row blocks or windows (geo/block.h),
 * for the streamed stages: run_load's checks (every layer on one grid,
 * the first one's; a layer holding only nodata is an error) and messages,
 * the nodata check made as the blocks go by (run_blocks_finish, after the
 * last block, in which[]'s order).
 */
#ifndef RUN_BLOCKS_H
#define RUN_BLOCKS_H

#include "geo/block.h"
#include "run.h"

typedef struct run_blocks {
    geo_block_reader *r[RUN_NLAYERS];
    char *path[RUN_NLAYERS];
    const geo_rows *rows[RUN_NLAYERS]; /* the last block read of each layer */
    const geo_window *win[RUN_NLAYERS]; /* the last window read of each layer */
    size_t data[RUN_NLAYERS];          /* data cells of the blocks added (run_blocks_add) */
    size_t block[RUN_NLAYERS];         /* data cells of the last block or window read (halo not counted) */
    run_id which[RUN_NLAYERS];
    int n;
    const geo_grid *grid;              /* the first layer's */
} run_blocks;

/* Open the n layers which[] of dir with halo rows (run_load's open errors
 * and grid comparison, in which[]'s order). */
trv_status run_blocks_open(trv_ctx *ctx, const char *dir, const run_id *which, int n, int halo, run_blocks *out);
/* Rows y0 .. y1 - 1 (and the halo) of every layer into b->rows, their data
 * cells into b->block. */
trv_status run_blocks_read(trv_ctx *ctx, run_blocks *b, int y0, int y1);
/* The window x0 .. x1 - 1, y0 .. y1 - 1 (and the halo on all four sides)
 * of every layer into b->win, its data cells into b->block. */
trv_status run_blocks_read_window(trv_ctx *ctx, run_blocks *b, int x0, int x1, int y0, int y1);
/* A block's data cells (b->block of the process that read it: core/split.h)
 * added to b->data, which run_blocks_finish checks. */
void run_blocks_add(run_blocks *b, const size_t block[RUN_NLAYERS]);
/* After the last block: "'<path>' holds only nodata" for the first layer
 * without a data cell. */
trv_status run_blocks_finish(trv_ctx *ctx, const run_blocks *b);
void run_blocks_close(run_blocks *b);

#endif
