/* trv-speed's run by tiles (terramech.h, tm_run_split): slope, soil and
 * land use read a window at a time (geo_block_cols x geo_block_rows cells,
 * no halo), tm_row on every core over the tile's rows, the zones burned
 * and baked into the tile, speed.tif, gonogo.tif and limit.tif written
 * tile by tile, the GO cells' mean speed an exact sum (core/moments.h):
 * the same bytes for every tile size, memory O(tile) whatever the width;
 * the tiles split over processes (core/split.h: block b is tile b) when
 * asked. */
#include "run_priv.h"
#include "geo/block.h"
#include "run/blocks.h"
#include "core/moments.h"
#include "core/split.h"
#include "geo/zones.h"

#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* One block's rows, shared by the threads: each takes the next row. */
typedef struct block_job {
    const tm_model *m;
    const float *slope;
    float nodata;
    const unsigned char *soil, *lu;
    float *speed;
    unsigned char *go, *lim;
    int nx, ny;
    atomic_int next;
} block_job;

static void *block_work(void *arg)
{
    block_job *j = arg;
    int y;
    while ((y = atomic_fetch_add(&j->next, 1)) < j->ny) {
        size_t r = (size_t)y * j->nx;
        tm_row(j->m, j->slope + r, j->nodata, j->soil + r, j->lu + r, j->nx, j->speed + r, j->go + r, j->lim + r);
    }
    return NULL;
}

static void block_rows(block_job *j)
{
    long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
    int nthreads = ncpu < 1 ? 1 : ncpu > 16 ? 16 : (int)ncpu, started = 0;
    pthread_t th[16];
    for (int k = 1; k < nthreads && j->ny > 1; k++)
        started += pthread_create(&th[started], NULL, block_work, j) == 0;
    block_work(j);
    for (int k = 0; k < started; k++)
        pthread_join(th[k], NULL);
}

/* What a block's process counts from its inputs (core/split.h: it travels
 * with the block's rows to process 0). */
typedef struct tally {
    size_t data[RUN_NLAYERS]; /* data cells per layer (run_blocks_add) */
    char seen[2][256];        /* the soil and land-use codes met */
} tally;

/* The state of one run. */
typedef struct stream {
    run_blocks in;
    const tm_model *m;
    tm_stats *stats;
    geo_zones *z;           /* NULL: none; else burned block by block into burn */
    geo_block_writer *w[3];
    float *speed;
    unsigned char *go, *lim, *burn;
    tally b;                /* the tile's */
    char seen[2][256];      /* the soil and land-use codes met */
    geo_tiling tl;          /* the tiles */
    trv_moments sum;        /* speed over the GO cells */
} stream;

static trv_status open_writers(trv_ctx *ctx, stream *s, trv_outset *set, const char *dir, const trv_meta *meta)
{
    static const run_id outs[3] = {RUN_SPEED, RUN_GONOGO, RUN_LIMIT};
    static char *const desc[3] = {TM_SPEED_DESC, "GO/NOGO reason", TM_LIMIT_DESC}, *const unit[3] = {TM_SPEED_UNIT};
    /* no nodata value: 0 is GO in gonogo.tif, NOGO in limit.tif, and must show */
    const geo_classes *cl[3] = {NULL, tm_out_classes(0, s->z != NULL), tm_out_classes(1, s->z != NULL)};
    trv_status st = TRV_OK;
    for (int k = 0; k < 3 && !st; k++) {
        geo_raster like = {.grid = *s->in.grid, .type = k ? GEO_U8 : GEO_F32, .desc = desc[k], .unit = unit[k],
                           .classes = cl[k]};
        char *p = run_path(dir, outs[k]);
        st = geo_block_writer_open_set(ctx, set, &like, p, meta, &s->w[k]);
        free(p);
    }
    return st;
}

/* Tile i (the block i .. i + 1 of core/split.h): read, computed (tm_row),
 * the zones baked, the codes met and data cells tallied. */
static trv_status compute_block(trv_ctx *ctx, void *arg, int i, int i1)
{
    stream *s = arg;
    (void)i1;
    const geo_tile t = geo_tiling_tile(&s->tl, i);
    const int x0 = t.x0, y0 = t.y0, nx = t.nx, ny = t.ny;
    trv_status st = run_blocks_read_window(ctx, &s->in, x0, x0 + nx, y0, y0 + ny);
    if (st)
        return st;
    const geo_window *slope = s->in.win[RUN_SLOPE];
    block_job j = {s->m, geo_window_f32(slope, x0, y0), (float)slope->nodata, geo_window_u8(s->in.win[RUN_SOIL], x0, y0),
                   geo_window_u8(s->in.win[RUN_LANDUSE], x0, y0), s->speed, s->go, s->lim, nx, ny, 0};
    block_rows(&j);
    const long w[5] = {x0, y0, nx, ny, nx};
    if (s->z && !(st = geo_zones_burn_window(ctx, s->in.grid, s->z, w, NULL, s->burn)))
        tm_zones_bake_window(s->z, s->in.grid, x0, y0, nx, ny, s->burn, s->speed, s->go, s->lim);
    if (st)
        return st;
    memset(&s->b, 0, sizeof s->b);
    memcpy(s->b.data, s->in.block, sizeof s->b.data);
    for (size_t k = 0, n = (size_t)nx * ny; k < n; k++)
        s->b.seen[0][j.soil[k]] = s->b.seen[1][j.lu[k]] = 1;
    return TRV_OK;
}

static int block_parts(void *arg, int i, int i1, trv_part p[])
{
    stream *s = arg;
    (void)i1;
    const geo_tile t = geo_tiling_tile(&s->tl, i);
    size_t n = (size_t)t.nx * t.ny;
    p[0] = (trv_part){s->speed, n * sizeof *s->speed};
    p[1] = (trv_part){s->go, n};
    p[2] = (trv_part){s->lim, n};
    p[3] = (trv_part){&s->b, sizeof s->b};
    return 4;
}

/* The computed tile i: tallied, counted, written. */
static trv_status write_block(trv_ctx *ctx, void *arg, int i, int i1)
{
    stream *s = arg;
    tm_stats *stats = s->stats;
    (void)i1;
    const geo_tile t = geo_tiling_tile(&s->tl, i);
    const int x0 = t.x0, y0 = t.y0, nx = t.nx, ny = t.ny;
    run_blocks_add(&s->in, s->b.data);
    for (int m = 0; m < 2; m++)
        for (int c = 0; c < 256; c++)
            s->seen[m][c] |= s->b.seen[m][c];
    size_t n = (size_t)nx * ny;
    for (size_t k = 0; k < n; k++) {
        stats->reason[s->go[k]]++;
        stats->limit[s->lim[k]]++;
        if (s->go[k] == TM_GO) {
            trv_moments_add(&s->sum, s->speed[k]);
            stats->speed_max_kmh = fmax(stats->speed_max_kmh, s->speed[k]);
        }
    }
    const void *cells[3] = {s->speed, s->go, s->lim};
    trv_status st = TRV_OK;
    for (int k = 0; k < 3 && !st; k++)
        st = geo_block_write_tile(ctx, s->w[k], x0, y0, nx, ny, cells[k]);
    return st;
}

/* After the last block: run_load's nodata check, then the codes the
 * tables do not know (the smallest, soil first: model.c's check_codes). */
static trv_status finish(trv_ctx *ctx, stream *s, const tm_model *m, tm_stats *stats)
{
    trv_status st = run_blocks_finish(ctx, &s->in);
    for (int c = 1; c < 256 && !st; c++)
        if (s->seen[0][c] && m->soil_index[c] < 0)
            st = trv_error(ctx, TRV_ERR_DATA, "'%s': soil class %d is not in the table '%s'", s->in.path[RUN_SOIL], c,
                           "the soil table");
    for (int c = 1; c < 256 && !st; c++)
        if (s->seen[1][c] && m->landuse_nogo[c] == 2)
            st = trv_error(ctx, TRV_ERR_DATA, "'%s': land-use class %d is not in the table '%s'",
                           s->in.path[RUN_LANDUSE], c, "the land-use table");
    stats->cells = (size_t)s->in.grid->nx * s->in.grid->ny;
    stats->go = stats->reason[TM_GO];
    stats->nodata = stats->reason[TM_NOGO_NODATA];
    stats->speed_mean_kmh = stats->go ? trv_moments_sum(&s->sum) / stats->go : 0;
    return st;
}

/* The inputs opened, the zones read (zo NULL or no path: none), the block
 * buffers, the writers (process 0). */
static trv_status setup(trv_ctx *ctx, stream *s, trv_outset *set, const char *dir, const trv_meta *meta,
                        const tm_zone_opts *zo, int writes)
{
    static const run_id which[3] = {RUN_SLOPE, RUN_SOIL, RUN_LANDUSE};
    trv_status st = run_blocks_open(ctx, dir, which, 3, 0, &s->in);
    if (!st && zo && zo->path)
        st = geo_zones_read_unburnt(ctx, zo->path, zo->crossings, zo->radius_m, s->in.grid, &s->z);
    if (st)
        return st;
    s->tl = geo_tiling_make(s->in.grid->nx, s->in.grid->ny, geo_block_cols(), geo_block_rows());
    size_t n = (size_t)s->tl.tw * s->tl.th;
    if (!(s->speed = malloc(n * sizeof *s->speed)) || !(s->go = malloc(n)) || !(s->lim = malloc(n)) ||
        (s->z && !(s->burn = malloc(n))))
        return trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
    return writes ? open_writers(ctx, s, set, dir, meta) : TRV_OK;
}

trv_status tm_run_split(trv_ctx *ctx, trv_outset *set, const tm_model *m, const char *dir, const trv_meta *meta,
                        const tm_zone_opts *zo, const trv_split *sp, tm_stats *stats)
{
    memset(stats, 0, sizeof *stats);
    stream s;
    memset(&s, 0, sizeof s);
    s.m = m, s.stats = stats;
    trv_moments_init(&s.sum);
    const int writes = !sp || sp->rank == 0;
    trv_status st = setup(ctx, &s, set, dir, meta, zo, writes);
    const trv_block_ops ops = {&s, compute_block, block_parts, write_block, "speed"};
    int tiles = st ? 0 : geo_tiling_count(&s.tl);
    st = trv_split_blocks(ctx, sp, st, tiles, 1, &ops);
    if (!st && writes)
        st = finish(ctx, &s, m, stats);
    st = geo_block_writers_close(ctx, s.w, 3, st, NULL);
    if (!st && writes)
        st = trv_progress(ctx, 1.0, "speed");
    run_blocks_close(&s.in);
    geo_zones_free(s.z);
    free(s.speed);
    free(s.go);
    free(s.lim);
    free(s.burn);
    return st;
}
