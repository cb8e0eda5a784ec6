/* trv-cost --terrain by tiles (fuzzy.h, fz_map_run): the five layers read
 * a window at a time (geo_block_cols x geo_block_rows cells, no halo: the
 * cost of a cell reads only that cell), the per-row kernel of map.c on
 * every core over the tile's rows, cost.tif and class.tif written tile by
 * tile, the mean cost of the GO cells an exact sum (core/moments.h): the
 * same bytes for every tile size, and memory O(tile) whatever the width. */
#include "map_priv.h"
#include "geo/block.h"
#include "run/blocks.h"
#include "core/moments.h"
#include "core/split.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const run_id READ[5] = {RUN_DEM, RUN_SLOPE, RUN_SOIL, RUN_SPEED, RUN_GONOGO};

/* What a block's process counts from its inputs (core/split.h: it travels
 * with the block's rows to process 0). */
typedef struct tally {
    size_t data[RUN_NLAYERS];              /* data cells per layer (run_blocks_add) */
    size_t count[FZ_MAX_OUT_TERMS + 1], nodata, cells; /* fz_map_count's */
} tally;

typedef struct stream {
    run_blocks in;
    fz_job J;
    const fz_map_opts *o;
    fz_map *m;
    geo_block_writer *w[2];
    float *cost;
    unsigned char *cls;
    tally b; /* the block's */
    geo_tiling tl;           /* the tiles */
    trv_moments sum;         /* the cost of the GO cells */
    size_t go;
    double t_read, t_infer, t_write;
} stream;

static trv_status open_writers(trv_ctx *ctx, stream *s, trv_outset *set, const char *dir, const fz_map *m,
                               const trv_meta *meta)
{
    static const run_id outs[2] = {RUN_COST, RUN_CLASS};
    static char *const desc[2] = {FZ_COST_DESC, FZ_CLASS_DESC};
    trv_status st = trv_outset_mkdir(ctx, set, dir);
    for (int k = 0; k < 2 && !st; k++) { /* no nodata value: cost 1 and class 0 are data */
        geo_raster like = {.grid = *s->in.grid, .type = k ? GEO_U8 : GEO_F32, .desc = desc[k],
                           .classes = k ? m->classes : NULL};
        char *p = run_path(dir, outs[k]);
        st = geo_block_writer_open_set(ctx, set, &like, p, meta, &s->w[k]);
        free(p);
    }
    return st;
}

/* Tile i (the block i .. i + 1 of core/split.h): read, soil codes checked,
 * computed, tallied. */
static trv_status compute_block(trv_ctx *ctx, void *arg, int i, int i1)
{
    stream *s = arg;
    (void)i1;
    const geo_tile t = geo_tiling_tile(&s->tl, i);
    const int x0 = t.x0, y0 = t.y0, nx = t.nx, ny = t.ny;
    double t0 = trv_now_s();
    trv_status st = run_blocks_read_window(ctx, &s->in, x0, x0 + nx, y0, y0 + ny);
    if (st)
        return st;
    fz_rows L = {0};
    for (int k = 0; k < 5; k++) {
        const geo_window *w = s->in.win[READ[k]];
        fz_rows_layer(&L, READ[k],
                      w->type == GEO_F32 ? (const void *)geo_window_f32(w, x0, y0) : (const void *)geo_window_u8(w, x0, y0),
                      w->has_nodata, w->nodata);
    }
    const size_t n = (size_t)nx * ny;
    double t1 = trv_now_s();
    if ((st = fz_map_check_soil(ctx, &s->J, &L, n, s->in.path[RUN_SOIL], s->o->soils_path)) ||
        (st = fz_map_rows(ctx, &s->J, &L, nx, 0, ny, s->o->threads, s->cost, s->cls)))
        return st;
    fz_map bm = {0};
    double sum = 0; /* not used: process 0 sums the cost exactly */
    size_t go = 0;
    fz_map_count(&bm, &L, s->cost, s->cls, n, &sum, &go);
    memcpy(s->b.data, s->in.block, sizeof s->b.data);
    memcpy(s->b.count, bm.count, sizeof s->b.count);
    s->b.nodata = bm.nodata, s->b.cells = bm.cells;
    s->t_read += t1 - t0, s->t_infer += trv_now_s() - t1;
    return TRV_OK;
}

static int block_parts(void *arg, int i, int i1, trv_part p[])
{
    stream *s = arg;
    (void)i1;
    const geo_tile t = geo_tiling_tile(&s->tl, i);
    size_t n = (size_t)t.nx * t.ny;
    p[0] = (trv_part){s->cost, n * sizeof *s->cost};
    p[1] = (trv_part){s->cls, n};
    p[2] = (trv_part){&s->b, sizeof s->b};
    return 3;
}

/* The computed tile i: tallied, the GO cells' cost summed, written. */
static trv_status write_block(trv_ctx *ctx, void *arg, int i, int i1)
{
    stream *s = arg;
    (void)i1;
    const geo_tile t = geo_tiling_tile(&s->tl, i);
    const int x0 = t.x0, y0 = t.y0, nx = t.nx, ny = t.ny;
    double t0 = trv_now_s();
    run_blocks_add(&s->in, s->b.data);
    for (int c = 0; c <= FZ_MAX_OUT_TERMS; c++)
        s->m->count[c] += s->b.count[c];
    s->m->nodata += s->b.nodata, s->m->cells += s->b.cells;
    for (size_t k = 0, n = (size_t)nx * ny; k < n; k++)
        if (s->cls[k] > 0) /* fz_map_count's sum */
            trv_moments_add(&s->sum, s->cost[k]), s->go++;
    trv_status st = geo_block_write_tile(ctx, s->w[0], x0, y0, nx, ny, s->cost);
    if (!st)
        st = geo_block_write_tile(ctx, s->w[1], x0, y0, nx, ny, s->cls);
    s->t_write += trv_now_s() - t0;
    return st;
}

/* The engine, the inputs opened, the block buffers, the writers (process 0). */
static trv_status setup(trv_ctx *ctx, stream *s, trv_outset *set, const fz_engine *e, const trv_meta *meta, int writes)
{
    fz_map *m = s->m;
    trv_status st = fz_map_prepare(ctx, e, s->o->soils_path, &s->J);
    if (st || (st = run_blocks_open(ctx, s->o->dir, READ, 5, 0, &s->in)) || (st = fz_map_classes(ctx, e, &m->classes)) ||
        (st = geo_grid_copy(ctx, &m->grid, s->in.grid)))
        return st;
    s->tl = geo_tiling_make(s->in.grid->nx, s->in.grid->ny, geo_block_cols(), geo_block_rows());
    const size_t n = (size_t)s->tl.tw * s->tl.th;
    if (!(s->cost = malloc(n * sizeof *s->cost)) || !(s->cls = malloc(n)))
        return trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
    return writes ? open_writers(ctx, s, set, s->o->dir, m, meta) : TRV_OK;
}

trv_status fz_map_run(trv_ctx *ctx, trv_outset *set, const fz_engine *e, const fz_map_opts *o, const trv_meta *meta,
                      fz_map *m)
{
    memset(m, 0, sizeof *m);
    stream s;
    memset(&s, 0, sizeof s);
    s.o = o, s.m = m;
    trv_moments_init(&s.sum);
    const int writes = !o->split || o->split->rank == 0;
    trv_status st = setup(ctx, &s, set, e, meta, writes);
    const trv_block_ops ops = {&s, compute_block, block_parts, write_block, "cost"};
    int tiles = st ? 0 : geo_tiling_count(&s.tl);
    st = trv_split_blocks(ctx, o->split, st, tiles, 1, &ops);
    if (!st && writes)
        st = run_blocks_finish(ctx, &s.in);
    geo_block_stats cs[2] = {{0}}; /* cost's range, class's */
    double t0 = trv_now_s();
    st = geo_block_writers_close(ctx, s.w, 2, st, cs);
    m->cost_mean_go = s.go ? trv_moments_sum(&s.sum) / (double)s.go : NAN;
    m->cost_min = cs[0].count ? cs[0].min : INFINITY, m->cost_max = cs[0].count ? cs[0].max : -INFINITY;
    m->seconds_read = s.t_read, m->seconds_infer = s.t_infer, m->seconds_write = s.t_write + trv_now_s() - t0;
    run_blocks_close(&s.in);
    free(s.cost);
    free(s.cls);
    if (st)
        fz_map_clear(m);
    return st;
}
