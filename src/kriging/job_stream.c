/* trv-krige's rasters by tiles (krg_job_stream, krige_priv.h;
 * docs/scale.md): the kriged DEM, its standard deviation and the point
 * cloud by geo_block_cols() x geo_block_rows() tiles, kriged as they go
 * (krg_refiner_window for a raster source, krg_grid_points_window for
 * points) and written with geo_block_write_tile, the point cloud's lines
 * put in row order through a scratch file (core/rowtext.h): memory O(tile)
 * whatever the width. The layers are Cloud-Optimized GeoTIFFs
 * (geo/block.h), the same bytes whatever the tiles. With realisations the
 * tiles are run once per pair of them (sim.h): the pair drawn and
 * conditioned at the samples, then each tile's kriged cells (the first
 * pair's kriged, and written into the DEM, std and points; the later
 * pairs' taken back from the simulation's scratch file, krg_sim_cache) and
 * the pair's window of realisations made from them, into their bands
 * (geo_bands_put_tile). Peak memory beside the samples and the
 * simulation's torus: four tiles, a tile's kriging weights (or a run of its
 * rows: sim.h) and the writers' units (geo.h). */
#include "krige_priv.h"
#include "sim.h"
#include "core/rowtext.h"

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
    geo_tiling tl;          /* the tiles (not --nsim) */
    trv_rowtext *rt;        /* the point cloud's lines in row order */
    geo_bands *bands;       /* the realisations (NULL: none) */
    float *S[2];            /* the block's rows of a pair's realisations */
} kstream;

static trv_status open_sources(trv_ctx *ctx, kstream *s)
{
    krg_job *j = s->j;
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
    if (!st && paths->sim) {
        const char *tmp = trv_outset_add(set, paths->sim);
        st = tmp ? geo_bands_open(ctx, tmp, &s->j->grid, s->j->nsim, NODATA, "m", meta, s->j->threads, &s->bands)
                 : trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
    }
    return st;
}

/* The point cloud's lines of row y's cells x0 .. x0 + n - 1 (P and D
 * hold those cells): every cell with data. */
static void points_row(FILE *f, const geo_grid *g, int y, int x0, int n, const float *P, const float *D)
{
    for (int c = 0; c < n; c++)
        if (P[c] != NODATA)
            fprintf(f, "%.3f,%.3f,%.3f,%.4f\n", geo_grid_x(g, x0 + c), geo_grid_y(g, y), P[c], D[c]);
}

/* Tile b's cells into s->P and s->D (NULL: no std). */
static trv_status tile_cells(trv_ctx *ctx, kstream *s, const geo_tile *b)
{
    krg_job *j = s->j;
    if (s->R)
        return krg_refiner_window(ctx, s->R, b->x0, b->y0, b->nx, b->ny, s->P, s->D);
    return krg_grid_points_window(ctx, j->pts, j->ix, &j->model, &j->krige, s->ct, &j->grid, b->x0, b->y0, b->nx,
                                  b->ny, s->P, s->D);
}

/* Tile b of the DEM, std and point cloud (its lines in row order through
 * core/rowtext.h) from s->P and s->D. */
static trv_status write_tile(kstream *s, trv_ctx *ctx, const geo_tile *b)
{
    const float *cells[2] = {s->P, s->D};
    trv_status st = TRV_OK;
    for (int k = 0; k < 2 && !st; k++)
        if (s->w[k])
            st = geo_block_write_tile(ctx, s->w[k], b->x0, b->y0, b->nx, b->ny, cells[k]);
    if (st || !s->points)
        return st;
    const int tx = b->x0 / s->tl.tw;
    for (int r = 0; r < b->ny; r++) {
        size_t i = (size_t)r * b->nx;
        points_row(trv_rowtext_row(s->rt, tx, r), &s->j->grid, b->y0 + r, b->x0, b->nx, s->P + i, s->D + i);
    }
    return trv_rowtext_tile_end(ctx, s->rt, tx, b->ny);
}

static trv_status alloc_rows(trv_ctx *ctx, kstream *s, size_t n)
{
    if (!(s->P = malloc(n * sizeof *s->P)) || (s->j->want_std && !(s->D = malloc(n * sizeof *s->D))))
        return trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
    for (int k = 0; k < 2 && s->bands; k++)
        if (!(s->S[k] = malloc(n * sizeof *s->S[k])))
            return trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
    return TRV_OK;
}

/* s->tl, the tiles (geo_block_cols() x geo_block_rows()), and the room
 * for one of them and its point cloud's lines. */
static trv_status tiles_open(trv_ctx *ctx, kstream *s, const char *points_path)
{
    const geo_grid *g = &s->j->grid;
    s->tl = geo_tiling_make(g->nx, g->ny, geo_block_cols(), geo_block_rows());
    trv_status st = alloc_rows(ctx, s, (size_t)s->tl.tw * s->tl.th);
    if (!st && s->points)
        st = trv_rowtext_open(ctx, s->points, points_path, s->tl.ntx, s->tl.th, &s->rt);
    return st;
}

/* The DEM, std and point cloud tile by tile, in the tiling's order (the
 * point cloud's lines put in row order by core/rowtext.h). */
static trv_status run_tiles(trv_ctx *ctx, kstream *s, const char *points_path)
{
    trv_status st = tiles_open(ctx, s, points_path);
    for (int i = 0; i < geo_tiling_count(&s->tl) && !st; i++) {
        geo_tile b = geo_tiling_tile(&s->tl, i);
        if (!(st = tile_cells(ctx, s, &b)))
            st = write_tile(s, ctx, &b);
    }
    return st ? st : trv_progress(ctx, 1.0, "krige");
}

/* Tile b of pair p's realisations (n: 1 or 2) into their bands: for the
 * first pair the tile kriged (and written into the DEM, std and point
 * cloud), for the later ones taken back from the simulation's scratch
 * file. */
static trv_status pair_tile(trv_ctx *ctx, kstream *s, long p, int n, const geo_tile *b)
{
    krg_sim *sim = s->j->sim;
    float *out[2] = {s->S[0], n > 1 ? s->S[1] : NULL};
    char d0[48], d1[48], *desc[2] = {d0, d1};
    snprintf(d0, sizeof d0, "realisation %ld", 2 * p + 1);
    snprintf(d1, sizeof d1, "realisation %ld", 2 * p + 2);
    trv_status st = p ? krg_sim_pred_tile(ctx, sim, b->x0, b->y0, b->nx, b->ny, s->P) : tile_cells(ctx, s, b);
    if (!st && p == 0)
        st = write_tile(s, ctx, b);
    if (!st)
        st = krg_sim_tile(ctx, sim, b->x0, b->y0, b->nx, b->ny, s->P, out);
    if (!st)
        st = geo_bands_put_tile(ctx, s->bands, (int)(2 * p + 1), n, b->x0, b->y0, b->nx, b->ny,
                                (const float *const *)out, (const char *const *)desc);
    return st;
}

/* The pairs one after the other, tile by tile (the scratch file first). */
static trv_status run_pairs_quiet(trv_ctx *ctx, kstream *s, const char *sim_path, const char *points_path)
{
    const long cells = (long)s->j->grid.nx * s->j->grid.ny;
    char *dir = trv_path_folder(sim_path);
    trv_status st = dir ? tiles_open(ctx, s, points_path) : trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
    if (!st) /* the later pairs' kriged tiles and weights: beside the realisations */
        st = krg_sim_cache(ctx, s->j->sim, dir, &s->tl);
    free(dir);
    for (long p = 0; 2 * p < s->j->nsim && !st; p++) {
        int n = s->j->nsim - 2 * p < 2 ? 1 : 2;
        if (!(st = krg_sim_pair(ctx, s->j->sim, p, n)))
            for (int i = 0; i < geo_tiling_count(&s->tl) && !st; i++) {
                geo_tile b = geo_tiling_tile(&s->tl, i);
                long done = (long)b.y0 * s->tl.nx + (long)(b.x0 + b.nx) * b.ny;
                if (!(st = pair_tile(ctx, s, p, n, &b)))
                    st = trv_progress(ctx, (2.0 * p * cells + (double)n * done) / ((double)s->j->nsim * cells),
                                      "realisations");
            }
    }
    return st;
}

/* While the realisations run, their own progress ("realisations") is the
 * only one shown: the kriging's inside them ("krige", from 0 again for
 * each refiner) would interleave with it line by line. A stop request
 * still ends the kriging: trv_progress checks it before the callback. */
typedef struct one_label {
    trv_progress_fn fn;
    void *user;
} one_label;

static int realisations_only(double fraction, const char *label, void *user)
{
    const one_label *o = user;
    return label && strcmp(label, "realisations") == 0 ? o->fn(fraction, label, o->user) : 0;
}

static trv_status run_pairs(trv_ctx *ctx, kstream *s, const char *sim_path, const char *points_path)
{
    one_label o;
    trv_ctx_progress(ctx, &o.fn, &o.user);
    if (o.fn)
        trv_ctx_set_progress(ctx, realisations_only, &o);
    trv_status st = run_pairs_quiet(ctx, s, sim_path, points_path);
    trv_ctx_set_progress(ctx, o.fn, o.user);
    return st;
}

static trv_status close_all(trv_ctx *ctx, kstream *s, trv_status st, const krg_job_paths *paths)
{
    geo_block_stats stats[2] = {{0}};
    /* the COG copies compress their tiles on as many threads as kriging
     * used (GDAL's GDAL_NUM_THREADS, this thread only, unless the user set
     * it): the same file, tile by tile, in less wall time */
    int own = geo_block_threads_begin(s->j->threads);
    st = geo_block_writers_close(ctx, s->w, 2, st, stats);
    geo_block_threads_end(own);
    s->j->dem_stats = stats[0], s->j->std_stats = stats[1];
    trv_status b_st = geo_bands_close(ctx, s->bands);
    st = st ? st : b_st;
    if (s->points) {
        int bad = ferror(s->points);
        if ((fclose(s->points) != 0 || bad) && !st)
            st = trv_error(ctx, TRV_ERR_IO, "cannot write '%s': %s", paths->points, strerror(errno));
    }
    trv_rowtext_close(s->rt);
    if (s->R)
        krg_refiner_stats(s->R, &s->j->stats);
    krg_refiner_free(s->R);
    geo_ct_free(s->ct);
    free(s->P);
    free(s->D);
    free(s->S[0]);
    free(s->S[1]);
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
        st = s.bands ? run_pairs(ctx, &s, paths->sim, paths->points) : run_tiles(ctx, &s, paths->points);
    return close_all(ctx, &s, st, paths);
}
