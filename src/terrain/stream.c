/* Terrain fusion streamed by tiles (terrain.h, ter_stream): geo_block_cols
 * x geo_block_rows cells, the DEM read a window at a time with a one-cell
 * halo on all four sides for Horn's window, the class maps aligned window
 * by window (geo_aligner_window: the same codes as by rows), every layer
 * written tile by tile, the mean slope an exact sum (core/moments.h): the
 * same bytes for every tile size, memory O(tile) whatever the width. The
 * point cloud (--points) goes out in row order by square tiles too: each
 * tile's lines go to a scratch file, the byte offset of each of its rows
 * kept, and a complete row of tiles is copied out row by row, each row's
 * tiles' pieces in column order (memory O(tiles across x rows)); the EPT
 * dataset's records likewise (terrain/ept.h; its nodes sorted at the end,
 * a band of node rows at a time, a large band by groups of node columns).
 * Under MPI block b of
 * core/split.h is tile b. */
#include "terrain.h"
#include "terrain/ept.h"
#include "core/fixed.h"
#include "core/moments.h"
#include "core/split.h"
#include "core/rowtext.h"
#include "geo/block.h"
#include "run/run.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define NODATA (-9999.0f)

/* A block's counts (integers: summed per block, the same totals in any grouping). */
typedef struct block_counts {
    size_t valid;                    /* the DEM's data cells (its source rule) */
    size_t covered[2], with_dem[2];  /* per class map: the DEM's data cells (-9999 rule) it covers, and all */
} block_counts;

/* The state of one run: inputs, writers, the block buffers. */
typedef struct stream {
    const ter_opts *o;
    ter_result *res;
    geo_block_reader *dem;
    geo_cat_src *src[2];     /* the class maps' windows over the DEM, read by rows as the aligners need them */
    geo_aligner *al[2];
    geo_block_writer *w[4];  /* dem, slope, soil, landuse */
    float *z;                /* the tile's DEM window (halo included, nodata -9999) */
    float *zt, *slope;       /* the tile's DEM cells and slope */
    unsigned char *cls[2];
    block_counts b, total;   /* the tile's and the tiles' so far */
    geo_tiling tl;           /* the tiles */
    double ew, ns;
    trv_moments ssum;        /* the slope over the DEM's data cells */
    FILE *points;
    const char *points_path;
    trv_rowtext *rt;         /* the CSV's lines in row order (core/rowtext.h) */
    ter_ept *ept;
} stream;

void ter_result_clear(ter_result *r)
{
    geo_grid_clear(&r->grid);
    geo_classes_free(r->soil_classes);
    geo_classes_free(r->landuse_classes);
    memset(r, 0, sizeof *r);
}

/* The DEM's CRS: projected, in metres (the DEM's cells are checked as they stream). */
static trv_status check_crs(trv_ctx *ctx, const char *path, const geo_grid *g)
{
    if (!g->wkt)
        return trv_error(ctx, TRV_ERR_CRS, "'%s' has no CRS (assign one, e.g. gdal_edit.py -a_srs EPSG:...)", path);
    int geographic = geo_crs_is_geographic(g->wkt);
    if (geographic < 0)
        return trv_error(ctx, TRV_ERR_CRS, "cannot read the CRS of '%s'", path);
    if (geographic) {
        char *utm = NULL, label[64] = "its UTM zone";
        if (geo_crs_choose(ctx, g, NULL, &utm) == TRV_OK)
            geo_crs_label(utm, label, sizeof label);
        free(utm);
        return trv_error(ctx, TRV_ERR_CRS,
                         "'%s' is in a geographic CRS (degrees) and slope needs metres: reproject it first "
                         "(trv-krige, or gdalwarp -t_srs %s)",
                         path, label);
    }
    return TRV_OK;
}

static trv_status fetch_cells(trv_ctx *ctx, void *src, int x0, int y0, int nx, int ny, unsigned char *dst)
{
    return geo_cat_window(ctx, src, x0, y0, nx, ny, dst);
}

/* A class map's window over the DEM grid, and its aligner. The window is
 * scanned once, by tiles (geo_cat_scan: O(tile) whatever the width), for
 * geo_raster_read_categorical_for's errors (the row-major first, as by
 * rows) and for its data cells; the aligner then reads the cells it
 * samples. */
static trv_status open_classes(trv_ctx *ctx, stream *s, int m, const char *path)
{
    trv_status st = geo_cat_open(ctx, path, &s->res->grid, &s->src[m]);
    if (st == TRV_ERR_GRID)
        return trv_error(ctx, st, "'%s' does not overlap the DEM '%s'", path, s->o->dem_path);
    if (st)
        return st;
    const geo_grid *w = geo_cat_grid(s->src[m]);
    size_t valid;
    if ((st = geo_cat_scan(ctx, s->src[m], geo_block_cols(), geo_block_rows(), &valid)))
        return st;
    if (valid == 0)
        return trv_error(ctx, TRV_ERR_DATA, "'%s' holds only nodata over the DEM '%s'", path, s->o->dem_path);
    return geo_aligner_new_lazy(ctx, w, fetch_cells, s->src[m], &s->res->grid, s->o->resample, &s->al[m]);
}

/* The four writers, headers as ter_build's layers had them. */
static trv_status open_writers(trv_ctx *ctx, stream *s, trv_outset *set, const char *dir, const trv_meta *meta)
{
    static const run_id ids[4] = {RUN_DEM, RUN_SLOPE, RUN_SOIL, RUN_LANDUSE};
    static char *const desc[4] = {"elevation", "slope", "soil type", "land use"}, *const unit[4] = {"m", "degree"};
    const geo_classes *cl[4] = {NULL, NULL, s->res->soil_classes, s->res->landuse_classes};
    trv_status st = trv_outset_mkdir(ctx, set, dir);
    for (int k = 0; k < 4 && !st; k++) {
        geo_raster like = {.grid = s->res->grid, .type = k < 2 ? GEO_F32 : GEO_U8, .has_nodata = 1,
                           .nodata = k < 2 ? NODATA : 0, .desc = desc[k], .unit = unit[k], .classes = cl[k]};
        char *final = trv_path_join(dir, run_file(ids[k]));
        st = geo_block_writer_open_set(ctx, set, &like, final, meta, &s->w[k]);
        free(final);
    }
    return st;
}

/* The tiles and their buffers. */
static trv_status alloc_buffers(trv_ctx *ctx, stream *s)
{
    s->tl = geo_tiling_make(s->res->grid.nx, s->res->grid.ny, geo_block_cols(), geo_block_rows());
    size_t n = (size_t)s->tl.tw * s->tl.th;
    if (!(s->z = malloc((size_t)(s->tl.tw + 2) * (s->tl.th + 2) * sizeof *s->z)) || !(s->zt = malloc(n * sizeof *s->zt)) ||
        !(s->slope = malloc(n * sizeof *s->slope)) || !(s->cls[0] = malloc(n)) || !(s->cls[1] = malloc(n)))
        return trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
    return TRV_OK;
}

/* The point-cloud lines of row y's columns x0 .. x0 + n - 1 (z[i] .. lu[i]
 * column x0 + i; "%.3f,%.3f,%.3f,%.4f,%d,%d\n" in core/fixed.h's bytes):
 * its DEM data cells. */
static void points_row(FILE *f, const geo_grid *g, int y, int x0, int n, const float *z, const float *slope,
                       const unsigned char *soil, const unsigned char *lu)
{
    char line[160];
    char ys[40], *ye = trv_fixed(ys, geo_grid_y(g, y), 3);
    for (int x = 0; x < n; x++) {
        if (z[x] == NODATA)
            continue;
        char *p = trv_fixed(line, geo_grid_x(g, x0 + x), 3);
        *p++ = ',';
        for (const char *q = ys; q < ye;)
            *p++ = *q++;
        *p++ = ',';
        p = trv_fixed(p, z[x], 3);
        *p++ = ',';
        p = trv_fixed(p, slope[x], 4);
        *p++ = ',';
        p = trv_uint(p, soil[x]);
        *p++ = ',';
        p = trv_uint(p, lu[x]);
        *p++ = '\n';
        fwrite(line, 1, (size_t)(p - line), f);
    }
}

/* A class map's rows: masked to the DEM's data cells, codes checked
 * against the table. */
static trv_status mask_classes(trv_ctx *ctx, stream *s, int m, const float *z, size_t n)
{
    const geo_classes *cl = m ? s->res->landuse_classes : s->res->soil_classes;
    unsigned char *c = s->cls[m];
    for (size_t i = 0; i < n; i++) {
        if (z[i] == NODATA) {
            c[i] = 0;
            continue;
        }
        s->b.with_dem[m]++;
        if (c[i] == 0)
            continue;
        s->b.covered[m]++;
        if (geo_classes_find(cl, c[i]) < 0)
            return trv_error(ctx, TRV_ERR_DATA, "'%s': class %d is not in the class table '%s'",
                             m ? s->o->landuse_path : s->o->soil_path, c[i],
                             m ? s->o->landuse_classes_path : s->o->soil_classes_path);
    }
    return TRV_OK;
}

/* The figures of the tile's n cells (any order: minima, maxima, counts,
 * the exact sum). */
static void measure(stream *s, const float *z, size_t n)
{
    ter_result *r = s->res;
    for (size_t i = 0; i < n; i++) {
        if (z[i] == NODATA)
            continue;
        double v = z[i], sl = s->slope[i];
        r->zmin = v < r->zmin ? v : r->zmin;
        r->zmax = v > r->zmax ? v : r->zmax;
        r->smax = sl > r->smax ? sl : r->smax;
        trv_moments_add(&s->ssum, s->slope[i]);
        r->count[0][s->cls[0][i]]++;
        r->count[1][s->cls[1][i]]++;
    }
}

/* The tile's window (halo 1) read, DEM nodata made -9999 (the source's
 * rule counts the tile's cells with data). */
static trv_status read_dem(trv_ctx *ctx, stream *s, int x0, int y0, int nx, int ny, const geo_window **w)
{
    trv_status st = geo_block_read_window(ctx, s->dem, x0, x0 + nx, y0, y0 + ny, w);
    if (st)
        return st;
    const geo_window *b = *w;
    const int wnx = b->x1 - b->x0;
    for (size_t i = 0; i < (size_t)(b->y1 - b->y0) * wnx; i++) {
        float v = b->f32[i];
        int nd = geo_f32_is_nodata(v, b->has_nodata, b->nodata), x = b->x0 + (int)(i % wnx), y = b->y0 + (int)(i / wnx);
        s->z[i] = nd ? NODATA : v;
        if (!nd && x >= x0 && x < x0 + nx && y >= y0 && y < y0 + ny)
            s->b.valid++;
    }
    return TRV_OK;
}

/* Tile i (the block i .. i + 1 of core/split.h): read, its cells and
 * slope (Horn's window on the window's rows: at the grid's edges the
 * window's edges, so the same rules), the class maps aligned and masked,
 * into s->zt, s->slope, s->cls and s->b. */
static trv_status compute_block(trv_ctx *ctx, void *v, int i, int i1)
{
    stream *s = v;
    const geo_grid *g = &s->res->grid;
    const geo_window *w;
    (void)i1;
    const geo_tile t = geo_tiling_tile(&s->tl, i);
    const int x0 = t.x0, y0 = t.y0, nx = t.nx, ny = t.ny;
    memset(&s->b, 0, sizeof s->b);
    trv_status st = read_dem(ctx, s, x0, y0, nx, ny, &w);
    if (st)
        return st;
    const int wnx = w->x1 - w->x0;
    for (int y = y0; y < y0 + ny; y++) {
        const float *row = s->z + (size_t)(y - w->y0) * wnx;
        const float *above = y > 0 ? row - wnx : NULL, *below = y + 1 < g->ny ? row + wnx : NULL;
        for (int x = x0; x < x0 + nx; x++) {
            size_t k = (size_t)(y - y0) * nx + (size_t)(x - x0);
            s->zt[k] = row[x - w->x0];
            s->slope[k] = geo_slope_at(above, row, below, wnx, x - w->x0, 1, NODATA, s->ew, s->ns, NODATA);
        }
    }
    size_t n = (size_t)nx * ny;
    for (int m = 0; m < 2 && !st; m++)
        if (!(st = geo_aligner_window(ctx, s->al[m], x0, x0 + nx, y0, y0 + ny, s->cls[m])))
            st = mask_classes(ctx, s, m, s->zt, n);
    return st;
}

/* Tile t's points, its rows' lines in row order (core/rowtext.h: straight
 * into the CSV when the tiles span the width). */
static trv_status points_tile(trv_ctx *ctx, stream *s, geo_tile t)
{
    const geo_grid *g = &s->res->grid;
    const int tx = t.x0 / s->tl.tw;
    for (int y = t.y0; y < t.y0 + t.ny; y++) {
        size_t at = (size_t)(y - t.y0) * t.nx;
        points_row(trv_rowtext_row(s->rt, tx, y - t.y0), g, y, t.x0, t.nx, s->zt + at, s->slope + at, s->cls[0] + at,
                   s->cls[1] + at);
    }
    return trv_rowtext_tile_end(ctx, s->rt, tx, t.ny);
}

/* The computed tile i: counts added, the figures, the tile written, and
 * its points (CSV and EPT). */
static trv_status write_block(trv_ctx *ctx, void *v, int i, int i1)
{
    stream *s = v;
    (void)i1;
    const geo_tile t = geo_tiling_tile(&s->tl, i);
    const int x0 = t.x0, y0 = t.y0, nx = t.nx, ny = t.ny;
    size_t n = (size_t)nx * ny;
    trv_status st = TRV_OK;
    s->res->valid += s->b.valid;
    for (int m = 0; m < 2; m++)
        s->total.covered[m] += s->b.covered[m], s->total.with_dem[m] += s->b.with_dem[m];
    measure(s, s->zt, n);
    const void *cells[4] = {s->zt, s->slope, s->cls[0], s->cls[1]};
    for (int k = 0; k < 4 && !st; k++)
        st = geo_block_write_tile(ctx, s->w[k], x0, y0, nx, ny, cells[k]);
    if (s->points && !st)
        st = points_tile(ctx, s, t);
    if (s->ept && !st)
        st = ter_ept_tile(ctx, s->ept, x0 / s->tl.tw, x0, y0, nx, ny, s->zt, NODATA, s->slope, s->cls[0], s->cls[1]);
    return st;
}

/* After the last row: the checks ter_build made on whole layers, in its order. */
static trv_status finish(trv_ctx *ctx, stream *s)
{
    ter_result *r = s->res;
    if (r->valid == 0)
        return trv_error(ctx, TRV_ERR_DATA, "'%s' holds only nodata", s->o->dem_path);
    const char *path[2] = {s->o->soil_path, s->o->landuse_path};
    double *cover[2] = {&r->soil_cover, &r->landuse_cover};
    for (int m = 0; m < 2; m++) {
        if (s->total.covered[m] == 0)
            return trv_error(ctx, TRV_ERR_GRID, "'%s' does not overlap the data of the DEM '%s'", path[m],
                             s->o->dem_path);
        *cover[m] = (double)s->total.covered[m] / (double)s->total.with_dem[m];
        if (s->total.covered[m] < s->total.with_dem[m])
            trv_info(ctx, 1, "warning: '%s' covers %.2f %% of the DEM's data cells; the other %zu cells have no class",
                     path[m], 100.0 * *cover[m], s->total.with_dem[m] - s->total.covered[m]);
    }
    r->smean = trv_moments_sum(&s->ssum) / r->valid;
    return TRV_OK;
}

static trv_status open_points(trv_ctx *ctx, stream *s, trv_outset *set, const char *points_path)
{
    const char *tmp = trv_outset_add(set, points_path);
    s->points_path = points_path;
    if (!tmp)
        return trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
    if (!(s->points = fopen(tmp, "w")))
        return trv_error(ctx, TRV_ERR_IO, "cannot create '%s': %s", points_path, strerror(errno));
    fputs("x,y,z,slope,soil,landuse\n", s->points);
    return TRV_OK;
}

/* The process that writes: the layers, the CSV and the EPT dataset asked for. */
static trv_status open_outputs(trv_ctx *ctx, stream *s, trv_outset *set, const char *dir, const trv_meta *meta,
                               const char *points_path)
{
    trv_status st = open_writers(ctx, s, set, dir, meta);
    if (!st && points_path)
        st = open_points(ctx, s, set, points_path);
    if (!st && s->o->ept_dir)
        st = ter_ept_open(ctx, set, s->o->ept_dir, &s->res->grid, &s->ept);
    return st;
}

static trv_status close_all(trv_ctx *ctx, stream *s, trv_status st, const char *points_path)
{
    geo_block_stats stats[4];
    st = geo_block_writers_close(ctx, s->w, 4, st, stats);
    if (!st) {
        s->res->slope_min = stats[1].count ? stats[1].min : 0;
        s->res->slope_max = stats[1].count ? stats[1].max : 0;
    }
    if (s->points) {
        int bad = ferror(s->points);
        if ((fclose(s->points) != 0 || bad) && !st)
            st = trv_error(ctx, TRV_ERR_IO, "cannot write '%s': %s", points_path, strerror(errno));
    }
    trv_rowtext_close(s->rt);
    if (s->ept && !st)
        st = ter_ept_finish(ctx, s->ept);
    ter_ept_free(s->ept);
    geo_block_reader_close(s->dem);
    for (int m = 0; m < 2; m++) {
        geo_aligner_free(s->al[m]);
        geo_cat_close(s->src[m]);
        free(s->cls[m]);
    }
    free(s->z);
    free(s->zt);
    free(s->slope);
    return st;
}

/* Tile i's parts as they travel between processes (core/split.h). */
static int op_parts(void *v, int i, int i1, trv_part *p)
{
    stream *s = v;
    (void)i1;
    const geo_tile t = geo_tiling_tile(&s->tl, i);
    size_t n = (size_t)t.nx * t.ny;
    p[0] = (trv_part){s->zt, n * sizeof *s->zt};
    p[1] = (trv_part){s->slope, n * sizeof *s->slope};
    p[2] = (trv_part){s->cls[0], n};
    p[3] = (trv_part){s->cls[1], n};
    p[4] = (trv_part){&s->b, sizeof s->b};
    return 5;
}

/* The tiles (core/split.h's loop, one tile a block, on one process or
 * over several; "slope", the label trv-terrain always showed), then the
 * whole-layer checks on the process that writes. */
static trv_status run_tiles(trv_ctx *ctx, stream *s, const trv_split *sp, trv_status setup)
{
    const trv_block_ops ops = {s, compute_block, op_parts, write_block, "slope"};
    trv_status st = setup ? setup : alloc_buffers(ctx, s);
    if (!st && s->points)
        st = trv_rowtext_open(ctx, s->points, s->points_path, s->tl.ntx, s->tl.th, &s->rt);
    if (!st && s->ept)
        st = ter_ept_tiles(ctx, s->ept, s->tl.ntx, s->tl.th);
    int tiles = st ? 0 : geo_tiling_count(&s->tl);
    st = trv_split_blocks(ctx, sp, st, tiles, 1, &ops);
    return st || (sp && sp->rank != 0) ? st : finish(ctx, s);
}

trv_status ter_stream(trv_ctx *ctx, trv_outset *set, const ter_opts *o, const char *dir, const char *points_path,
                      const trv_meta *meta, ter_result *r)
{
    memset(r, 0, sizeof *r);
    r->zmin = 1e300, r->zmax = -1e300;
    stream s = {.o = o, .res = r};
    trv_moments_init(&s.ssum);
    const trv_split *sp = o->split;
    const int writes = !sp || sp->rank == 0;
    trv_status st;
    if (!(st = geo_classes_read(ctx, o->soil_classes_path, &r->soil_classes)) &&
        !(st = geo_classes_read(ctx, o->landuse_classes_path, &r->landuse_classes)) &&
        !(st = geo_block_reader_open(ctx, o->dem_path, GEO_F32, 1, &s.dem)) &&
        !(st = geo_grid_copy(ctx, &r->grid, geo_block_reader_grid(s.dem))) &&
        !(st = check_crs(ctx, o->dem_path, &r->grid))) {
        double mpu = geo_crs_metres_per_unit(r->grid.wkt);
        s.ew = r->grid.gt[1] * mpu;
        s.ns = fabs(r->grid.gt[5]) * mpu;
        if (!(st = open_classes(ctx, &s, 0, o->soil_path)) && !(st = open_classes(ctx, &s, 1, o->landuse_path)) &&
            writes)
            st = open_outputs(ctx, &s, set, dir, meta, points_path);
    }
    st = run_tiles(ctx, &s, sp, st);
    return close_all(ctx, &s, st, points_path);
}
