/* trv-speed's run by row blocks (terramech.h, tm_run_split): slope, soil
 * and land use read block by block, tm_row on every core within a block,
 * the zones burned and baked into the block, speed.tif, gonogo.tif and
 * limit.tif written as they go; the blocks split over processes
 * (core/split.h) when asked. */
#include "run_priv.h"
#include "geo/block.h"
#include "run/blocks.h"
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
    tally b;                /* the block's */
    char seen[2][256];      /* the soil and land-use codes met */
    double sum;             /* speed over the GO cells, in row order */
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

/* Rows y0 .. y1 - 1: read, computed (tm_row), the codes met and data cells tallied. */
static trv_status compute_block(trv_ctx *ctx, void *arg, int y0, int y1)
{
    stream *s = arg;
    trv_status st = run_blocks_read(ctx, &s->in, y0, y1);
    if (st)
        return st;
    const geo_rows *slope = s->in.rows[RUN_SLOPE];
    block_job j = {s->m, geo_rows_f32(slope, y0), (float)slope->nodata, geo_rows_u8(s->in.rows[RUN_SOIL], y0),
                   geo_rows_u8(s->in.rows[RUN_LANDUSE], y0), s->speed, s->go, s->lim, slope->nx, y1 - y0, 0};
    block_rows(&j);
    if (s->z && !(st = geo_zones_burn_rows(ctx, s->in.grid, s->z, y0, y1, s->burn)))
        tm_zones_bake_rows(s->z, s->in.grid, y0, y1, s->burn, s->speed, s->go, s->lim);
    if (st)
        return st;
    memset(&s->b, 0, sizeof s->b);
    memcpy(s->b.data, s->in.block, sizeof s->b.data);
    for (size_t i = 0, n = (size_t)(y1 - y0) * j.nx; i < n; i++)
        s->b.seen[0][j.soil[i]] = s->b.seen[1][j.lu[i]] = 1;
    return TRV_OK;
}

static int block_parts(void *arg, int y0, int y1, trv_part p[])
{
    stream *s = arg;
    size_t n = (size_t)(y1 - y0) * s->in.grid->nx;
    p[0] = (trv_part){s->speed, n * sizeof *s->speed};
    p[1] = (trv_part){s->go, n};
    p[2] = (trv_part){s->lim, n};
    p[3] = (trv_part){&s->b, sizeof s->b};
    return 4;
}

/* The computed rows y0 .. y1 - 1: tallied, counted in row order, written. */
static trv_status write_block(trv_ctx *ctx, void *arg, int y0, int y1)
{
    stream *s = arg;
    tm_stats *stats = s->stats;
    run_blocks_add(&s->in, s->b.data);
    for (int m = 0; m < 2; m++)
        for (int c = 0; c < 256; c++)
            s->seen[m][c] |= s->b.seen[m][c];
    size_t n = (size_t)(y1 - y0) * s->in.grid->nx;
    for (size_t i = 0; i < n; i++) {
        stats->reason[s->go[i]]++;
        stats->limit[s->lim[i]]++;
        if (s->go[i] == TM_GO) {
            s->sum += s->speed[i];
            stats->speed_max_kmh = fmax(stats->speed_max_kmh, s->speed[i]);
        }
    }
    const void *rows[3] = {s->speed, s->go, s->lim};
    trv_status st = TRV_OK;
    for (int k = 0; k < 3 && !st; k++)
        st = geo_block_write(ctx, s->w[k], y0, y1 - y0, rows[k]);
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
    stats->speed_mean_kmh = stats->go ? s->sum / stats->go : 0;
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
    const int rows = geo_block_rows(), ny = s->in.grid->ny;
    size_t n = (size_t)s->in.grid->nx * (rows < ny ? rows : ny);
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
    const int writes = !sp || sp->rank == 0;
    trv_status st = setup(ctx, &s, set, dir, meta, zo, writes);
    const trv_block_ops ops = {&s, compute_block, block_parts, write_block, "speed"};
    st = trv_split_blocks(ctx, sp, st, st ? 0 : s.in.grid->ny, geo_block_rows(), &ops);
    if (!st && writes)
        st = finish(ctx, &s, m, stats);
    for (int k = 0; k < 3; k++)
        if (s.w[k]) {
            trv_status k_st = geo_block_writer_close(ctx, s.w[k], st, NULL);
            st = st ? st : k_st;
        }
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
