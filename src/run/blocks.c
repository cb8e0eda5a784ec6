/* The run directory's layers read by row blocks or windows (blocks.h). */
#include "blocks.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

trv_status run_blocks_open(trv_ctx *ctx, const char *dir, const run_id *which, int n, int halo, run_blocks *out)
{
    memset(out, 0, sizeof *out);
    trv_status st = TRV_OK;
    for (int k = 0; k < n && !st; k++) {
        const run_layer *l = run_layer_of(which[k]);
        if (!l)
            return trv_error(ctx, TRV_ERR_USAGE, "run_blocks_open: %d is not a layer", (int)which[k]);
        out->which[out->n++] = l->id;
        if (!(out->path[l->id] = trv_path_join(dir, l->file)))
            st = trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
        else if (!(st = geo_block_reader_open(ctx, out->path[l->id], l->type, halo, &out->r[l->id])) && k > 0)
            st = geo_grid_compare(ctx, out->grid, out->path[which[0]], geo_block_reader_grid(out->r[l->id]),
                                  out->path[l->id]);
        if (!st && k == 0)
            out->grid = geo_block_reader_grid(out->r[l->id]);
    }
    return st;
}

/* Data cells of rows y0 .. y1 - 1 (geo_raster_is_nodata's rule). */
static size_t count_data(const geo_rows *b, int y0, int y1)
{
    size_t n = 0, cells = (size_t)(y1 - y0) * b->nx;
    if (b->type == GEO_F32) {
        const float *v = geo_rows_f32(b, y0);
        for (size_t i = 0; i < cells; i++)
            n += !geo_f32_is_nodata(v[i], b->has_nodata, b->nodata);
    } else {
        const unsigned char *v = geo_rows_u8(b, y0), nd = (unsigned char)b->nodata;
        for (size_t i = 0; i < cells; i++)
            n += !(b->has_nodata && v[i] == nd);
    }
    return n;
}

trv_status run_blocks_read(trv_ctx *ctx, run_blocks *b, int y0, int y1)
{
    for (int k = 0; k < b->n; k++) {
        run_id id = b->which[k];
        trv_status st = geo_block_read(ctx, b->r[id], y0, y1, &b->rows[id]);
        if (st)
            return st;
        b->block[id] = count_data(b->rows[id], y0, y1);
    }
    return TRV_OK;
}

/* Data cells of the window's columns x0 .. x1 - 1, rows y0 .. y1 - 1
 * (geo_raster_is_nodata's rule). */
static size_t count_window(const geo_window *w, int x0, int x1, int y0, int y1)
{
    size_t n = 0;
    for (int y = y0; y < y1; y++)
        if (w->type == GEO_F32) {
            const float *v = geo_window_f32(w, x0, y);
            for (int i = 0; i < x1 - x0; i++)
                n += !geo_f32_is_nodata(v[i], w->has_nodata, w->nodata);
        } else {
            const unsigned char *v = geo_window_u8(w, x0, y), nd = (unsigned char)w->nodata;
            for (int i = 0; i < x1 - x0; i++)
                n += !(w->has_nodata && v[i] == nd);
        }
    return n;
}

trv_status run_blocks_read_window(trv_ctx *ctx, run_blocks *b, int x0, int x1, int y0, int y1)
{
    for (int k = 0; k < b->n; k++) {
        run_id id = b->which[k];
        trv_status st = geo_block_read_window(ctx, b->r[id], x0, x1, y0, y1, &b->win[id]);
        if (st)
            return st;
        b->block[id] = count_window(b->win[id], x0, x1, y0, y1);
    }
    return TRV_OK;
}

void run_blocks_add(run_blocks *b, const size_t block[RUN_NLAYERS])
{
    for (int k = 0; k < RUN_NLAYERS; k++)
        b->data[k] += block[k];
}

trv_status run_blocks_finish(trv_ctx *ctx, const run_blocks *b)
{
    for (int k = 0; k < b->n; k++)
        if (b->data[b->which[k]] == 0)
            return trv_error(ctx, TRV_ERR_DATA, "'%s' holds only nodata", b->path[b->which[k]]);
    return TRV_OK;
}

void run_blocks_close(run_blocks *b)
{
    for (int k = 0; k < RUN_NLAYERS; k++) {
        geo_block_reader_close(b->r[k]);
        free(b->path[k]);
    }
    memset(b, 0, sizeof *b);
}
