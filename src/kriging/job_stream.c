/* trv-krige's rasters by row blocks (krg_job_stream, krige_priv.h;
 * docs/scale.md): the kriged DEM, its standard deviation and the point
 * cloud, block by block. The rows are kriged as they go (krg_refiner for a
 * raster source, krg_grid_points_rows for points) or, when the job holds
 * whole layers (realisations asked), copied from them; the layers are
 * written as Cloud-Optimized GeoTIFFs (geo/block.h). Peak memory beside
 * the samples: two blocks of rows and the writers' strips. */
#include "krige_priv.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NODATA (-9999.0f)
/* The COGs' DEFLATE level (docs/scale.md): at 10 m about 0.35 s of CPU less
 * than GDAL's 6 for a file 1.1 % larger; level 1 saves no more */
enum { COG_LEVEL = 4 };

typedef struct kstream {
    krg_job *j;
    krg_refiner *R;         /* raster source, rows kriged here */
    geo_ct *ct;             /* points source: target -> working CRS */
    geo_block_writer *w[2]; /* dem, std */
    float *P, *D;           /* the block's rows */
    FILE *points;
} kstream;

static trv_status open_sources(trv_ctx *ctx, kstream *s)
{
    krg_job *j = s->j;
    if (j->pred)
        return TRV_OK;
    if (j->src)
        return krg_refiner_new(ctx, j->src, j->ix, &j->model, &j->krige, &j->grid, j->allow_fast, &s->R);
    return geo_ct_create(ctx, j->grid.wkt, j->work_wkt, &s->ct);
}

static trv_status open_writers(trv_ctx *ctx, kstream *s, trv_outset *set, const krg_job_paths *paths,
                               const trv_meta *meta)
{
    static char *const desc[2] = {"elevation", "kriging standard deviation"};
    const char *path[2] = {paths->dem, paths->std};
    trv_status st = TRV_OK;
    for (int k = 0; k < 2 && !st; k++) {
        if (!path[k])
            continue;
        geo_raster like = {.grid = s->j->grid, .type = GEO_F32, .has_nodata = 1, .nodata = NODATA,
                           .desc = desc[k], .unit = "m"};
        st = geo_block_writer_open_set(ctx, set, &like, path[k], meta, &s->w[k]);
        if (!st)
            geo_block_writer_set_level(s->w[k], COG_LEVEL);
    }
    if (!st && paths->points) {
        const char *tmp = trv_outset_add(set, paths->points);
        if (!tmp)
            return trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
        if (!(s->points = fopen(tmp, "w")))
            return trv_error(ctx, TRV_ERR_IO, "cannot create '%s': %s", paths->points, strerror(errno));
        fputs("x,y,z,std\n", s->points);
    }
    return st;
}

/* Rows y0 .. y1 - 1 into s->P and s->D. */
static trv_status block_rows(trv_ctx *ctx, kstream *s, int y0, int y1)
{
    krg_job *j = s->j;
    size_t at = (size_t)y0 * j->grid.nx, n = (size_t)(y1 - y0) * j->grid.nx;
    if (j->pred) {
        memcpy(s->P, j->pred->f32 + at, n * sizeof *s->P);
        if (s->D)
            memcpy(s->D, j->std->f32 + at, n * sizeof *s->D);
        return TRV_OK;
    }
    if (s->R)
        return krg_refiner_rows(ctx, s->R, y0, y1, s->P, s->D);
    return krg_grid_points_rows(ctx, j->pts, j->ix, &j->model, &j->krige, s->ct, &j->grid, y0, y1, s->P, s->D);
}

/* The point cloud's lines of rows y0 .. y1 - 1: every cell with data. */
static void points_rows(FILE *f, const geo_grid *g, int y0, int y1, const float *P, const float *D)
{
    for (int r = y0; r < y1; r++)
        for (int c = 0; c < g->nx; c++) {
            size_t i = (size_t)(r - y0) * g->nx + c;
            if (P[i] != NODATA)
                fprintf(f, "%.3f,%.3f,%.3f,%.4f\n", geo_grid_x(g, c), geo_grid_y(g, r), P[i], D[i]);
        }
}

static trv_status run_blocks(trv_ctx *ctx, kstream *s)
{
    const geo_grid *g = &s->j->grid;
    const int ny = g->ny, rows = geo_block_rows() < ny ? geo_block_rows() : ny;
    trv_status st = TRV_OK;
    if (!(s->P = malloc((size_t)g->nx * rows * sizeof *s->P)) ||
        (s->j->want_std && !(s->D = malloc((size_t)g->nx * rows * sizeof *s->D))))
        return trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
    for (int y0 = 0; y0 < ny && !st; y0 += rows) {
        int y1 = y0 + rows < ny ? y0 + rows : ny;
        st = block_rows(ctx, s, y0, y1);
        const float *cells[2] = {s->P, s->D};
        for (int k = 0; k < 2 && !st; k++)
            if (s->w[k])
                st = geo_block_write(ctx, s->w[k], y0, y1 - y0, cells[k]);
        if (!st && s->points)
            points_rows(s->points, g, y0, y1, s->P, s->D);
    }
    return st ? st : s->j->pred ? TRV_OK : trv_progress(ctx, 1.0, "krige");
}

static trv_status close_all(trv_ctx *ctx, kstream *s, trv_status st, const krg_job_paths *paths)
{
    geo_block_stats *stats[2] = {&s->j->dem_stats, &s->j->std_stats};
    /* the COG copies compress their tiles on as many threads as kriging
     * used (GDAL's GDAL_NUM_THREADS, this thread only, unless the user set
     * it): the same file, tile by tile, in less wall time */
    int own = geo_block_threads_begin(s->j->threads);
    for (int k = 0; k < 2; k++)
        if (s->w[k]) {
            trv_status k_st = geo_block_writer_close(ctx, s->w[k], st, stats[k]);
            st = st ? st : k_st;
        }
    geo_block_threads_end(own);
    if (s->points) {
        int bad = ferror(s->points);
        if ((fclose(s->points) != 0 || bad) && !st)
            st = trv_error(ctx, TRV_ERR_IO, "cannot write '%s': %s", paths->points, strerror(errno));
    }
    if (s->R)
        krg_refiner_stats(s->R, &s->j->stats);
    krg_refiner_free(s->R);
    geo_ct_free(s->ct);
    free(s->P);
    free(s->D);
    return st;
}

trv_status krg_job_stream(trv_ctx *ctx, trv_outset *set, krg_job *j, const krg_job_paths *paths,
                          const trv_meta *meta)
{
    kstream s = {.j = j};
    memset(&j->dem_stats, 0, sizeof j->dem_stats);
    memset(&j->std_stats, 0, sizeof j->std_stats);
    trv_status st = open_sources(ctx, &s);
    if (!st)
        st = open_writers(ctx, &s, set, paths, meta);
    if (!st)
        st = run_blocks(ctx, &s);
    return close_all(ctx, &s, st, paths);
}
