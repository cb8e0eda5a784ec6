/* trv-cost --terrain by row blocks (fuzzy.h, fz_map_run): the five layers
 * read block by block, the per-row kernel of map.c on every core,
 * cost.tif and class.tif written as they go. */
#include "map_priv.h"
#include "geo/block.h"
#include "run/blocks.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const run_id READ[5] = {RUN_DEM, RUN_SLOPE, RUN_SOIL, RUN_SPEED, RUN_GONOGO};

typedef struct stream {
    run_blocks in;
    fz_job J;
    geo_block_writer *w[2];
    float *cost;
    unsigned char *cls;
    double sum;
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
        const char *tmp = p ? trv_outset_add(set, p) : NULL;
        st = tmp ? geo_block_writer_open(ctx, &like, tmp, meta, &s->w[k]) : trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
        free(p);
    }
    return st;
}

/* Rows y0 .. y1 - 1: read, soil codes checked, computed, counted, written. */
static trv_status do_block(trv_ctx *ctx, stream *s, const fz_map_opts *o, fz_map *m, int y0, int y1)
{
    double t0 = trv_now_s();
    trv_status st = run_blocks_read(ctx, &s->in, y0, y1);
    if (st)
        return st;
    fz_rows L = {0};
    for (int k = 0; k < 5; k++) {
        const geo_rows *r = s->in.rows[READ[k]];
        fz_rows_layer(&L, READ[k], r->type == GEO_F32 ? (const void *)geo_rows_f32(r, y0) : (const void *)geo_rows_u8(r, y0),
                      r->has_nodata, r->nodata);
    }
    const int nx = s->in.grid->nx;
    const size_t n = (size_t)(y1 - y0) * nx;
    double t1 = trv_now_s();
    if ((st = fz_map_check_soil(ctx, &s->J, &L, n, s->in.path[RUN_SOIL], o->soils_path)) ||
        (st = fz_map_rows(ctx, &s->J, &L, nx, 0, y1 - y0, o->threads, s->cost, s->cls)))
        return st;
    fz_map_count(m, &L, s->cost, s->cls, n, &s->sum, &s->go);
    double t2 = trv_now_s();
    if (!(st = geo_block_write(ctx, s->w[0], y0, y1 - y0, s->cost)))
        st = geo_block_write(ctx, s->w[1], y0, y1 - y0, s->cls);
    s->t_read += t1 - t0, s->t_infer += t2 - t1, s->t_write += trv_now_s() - t2;
    return st;
}

static trv_status run_blocks_all(trv_ctx *ctx, stream *s, const fz_map_opts *o, fz_map *m)
{
    const int ny = s->in.grid->ny, rows = geo_block_rows();
    const size_t n = (size_t)s->in.grid->nx * (rows < ny ? rows : ny);
    if (!(s->cost = malloc(n * sizeof *s->cost)) || !(s->cls = malloc(n)))
        return trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
    trv_status st = TRV_OK;
    for (int y0 = 0; y0 < ny && !st; y0 += rows) {
        int y1 = y0 + rows < ny ? y0 + rows : ny;
        if (!(st = do_block(ctx, s, o, m, y0, y1)))
            st = trv_progress(ctx, (double)y1 / ny, "cost");
    }
    return st ? st : run_blocks_finish(ctx, &s->in);
}

trv_status fz_map_run(trv_ctx *ctx, trv_outset *set, const fz_engine *e, const fz_map_opts *o, const trv_meta *meta,
                      fz_map *m)
{
    memset(m, 0, sizeof *m);
    stream s;
    memset(&s, 0, sizeof s);
    trv_status st = fz_map_prepare(ctx, e, o->soils_path, &s.J);
    if (!st && !(st = run_blocks_open(ctx, o->dir, READ, 5, 0, &s.in)) && !(st = fz_map_classes(ctx, e, &m->classes)) &&
        !(st = geo_grid_copy(ctx, &m->grid, s.in.grid)) && !(st = open_writers(ctx, &s, set, o->dir, m, meta)))
        st = run_blocks_all(ctx, &s, o, m);
    geo_block_stats cs = {0};
    double t0 = trv_now_s();
    for (int k = 0; k < 2; k++)
        if (s.w[k]) {
            trv_status k_st = geo_block_writer_close(ctx, s.w[k], st, k ? NULL : &cs);
            st = st ? st : k_st;
        }
    m->cost_mean_go = s.go ? s.sum / (double)s.go : NAN;
    m->cost_min = cs.count ? cs.min : INFINITY, m->cost_max = cs.count ? cs.max : -INFINITY;
    m->seconds_read = s.t_read, m->seconds_infer = s.t_infer, m->seconds_write = s.t_write + trv_now_s() - t0;
    run_blocks_close(&s.in);
    free(s.cost);
    free(s.cls);
    if (st)
        fz_map_clear(m);
    return st;
}
