/* Terrain fusion streamed by row blocks (terrain.h, ter_stream): the DEM
 * read with a one-row halo for Horn's window, the class maps aligned row
 * range by row range, every layer written as it goes. */
#include "terrain.h"
#include "terrain/ept.h"
#include "core/fixed.h"
#include "core/split.h"
#include "geo/block.h"
#include "run/run.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

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
    float *z, *slope;        /* the block's DEM rows (halo included, nodata -9999) and slope rows */
    const float *z0;         /* the block's first row in z */
    unsigned char *cls[2];
    block_counts b, total;   /* the block's and the rows' so far */
    double ew, ns, ssum;
    FILE *points;
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
 * scanned once, row by row, for geo_raster_read_categorical_for's errors
 * and for its data cells; the aligner then reads the rows it samples. */
static trv_status open_classes(trv_ctx *ctx, stream *s, int m, const char *path)
{
    trv_status st = geo_cat_open(ctx, path, &s->res->grid, &s->src[m]);
    if (st == TRV_ERR_GRID)
        return trv_error(ctx, st, "'%s' does not overlap the DEM '%s'", path, s->o->dem_path);
    if (st)
        return st;
    const geo_grid *w = geo_cat_grid(s->src[m]);
    unsigned char *row = malloc((size_t)w->nx);
    size_t valid = 0;
    if (!row)
        return trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
    for (int y = 0; y < w->ny && !st; y++)
        if (!(st = geo_cat_rows(ctx, s->src[m], y, 1, row)))
            for (int x = 0; x < w->nx; x++)
                valid += row[x] != 0;
    free(row);
    if (st)
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

static trv_status alloc_buffers(trv_ctx *ctx, stream *s, int rows)
{
    size_t n = (size_t)s->res->grid.nx * rows;
    if (!(s->z = malloc((n + 2 * (size_t)s->res->grid.nx) * sizeof *s->z)) || !(s->slope = malloc(n * sizeof *s->slope)) ||
        !(s->cls[0] = malloc(n)) || !(s->cls[1] = malloc(n)))
        return trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
    return TRV_OK;
}

/* The point-cloud lines of row y ("%.3f,%.3f,%.3f,%.4f,%d,%d\n" in
 * core/fixed.h's bytes): its DEM data cells. */
static void points_row(FILE *f, const geo_grid *g, int y, const float *z, const float *slope,
                       const unsigned char *soil, const unsigned char *lu)
{
    char line[160];
    char ys[40], *ye = trv_fixed(ys, geo_grid_y(g, y), 3);
    for (int x = 0; x < g->nx; x++) {
        if (z[x] == NODATA)
            continue;
        char *p = trv_fixed(line, geo_grid_x(g, x), 3);
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

/* The figures of the block's rows y0 .. y1 - 1 (z: row y0), in row order. */
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
        s->ssum += sl;
        r->count[0][s->cls[0][i]]++;
        r->count[1][s->cls[1][i]]++;
    }
}

/* Rows y0 .. y1 - 1: read (halo 1), DEM nodata made -9999, slope, the
 * class maps aligned and masked, into s->z0, s->slope, s->cls and s->b. */
static trv_status compute_block(trv_ctx *ctx, stream *s, int y0, int y1)
{
    const geo_grid *g = &s->res->grid;
    const int nx = g->nx;
    const geo_rows *b;
    memset(&s->b, 0, sizeof s->b);
    trv_status st = geo_block_read(ctx, s->dem, y0, y1, &b);
    if (st)
        return st;
    for (size_t i = 0; i < (size_t)(b->y1 - b->y0) * nx; i++) {
        float v = b->f32[i];
        int nd = isnan(v) || v == (float)b->nodata; /* the source's rule counts the cells with data */
        s->z[i] = nd ? NODATA : v;
        if (!nd && b->y0 + (int)(i / nx) >= y0 && b->y0 + (int)(i / nx) < y1)
            s->b.valid++;
    }
    const float *z0 = s->z0 = s->z + (size_t)(y0 - b->y0) * nx;
    for (int y = y0; y < y1; y++) {
        const float *row = z0 + (size_t)(y - y0) * nx;
        geo_slope_row(y > 0 ? row - nx : NULL, row, y + 1 < g->ny ? row + nx : NULL, nx, 1, NODATA, s->ew, s->ns,
                      NODATA, s->slope + (size_t)(y - y0) * nx);
    }
    size_t n = (size_t)(y1 - y0) * nx;
    for (int m = 0; m < 2 && !st; m++)
        if (!(st = geo_aligner_rows(ctx, s->al[m], y0, y1, s->cls[m])))
            st = mask_classes(ctx, s, m, z0, n);
    return st;
}

/* The computed rows y0 .. y1 - 1 (s->z0 ...): counts added, the figures, the rows written. */
static trv_status write_block(trv_ctx *ctx, stream *s, int y0, int y1)
{
    const geo_grid *g = &s->res->grid;
    const int nx = g->nx;
    const float *z0 = s->z0;
    size_t n = (size_t)(y1 - y0) * nx;
    trv_status st = TRV_OK;
    s->res->valid += s->b.valid;
    for (int m = 0; m < 2; m++)
        s->total.covered[m] += s->b.covered[m], s->total.with_dem[m] += s->b.with_dem[m];
    measure(s, z0, n);
    const void *rows[4] = {z0, s->slope, s->cls[0], s->cls[1]};
    for (int k = 0; k < 4 && !st; k++)
        st = geo_block_write(ctx, s->w[k], y0, y1 - y0, rows[k]);
    for (int y = y0; y < y1 && s->points; y++) {
        size_t at = (size_t)(y - y0) * nx;
        points_row(s->points, g, y, z0 + at, s->slope + at, s->cls[0] + at, s->cls[1] + at);
    }
    for (int y = y0; y < y1 && s->ept && !st; y++) {
        size_t at = (size_t)(y - y0) * nx;
        st = ter_ept_row(ctx, s->ept, y, z0 + at, NODATA, s->slope + at, s->cls[0] + at, s->cls[1] + at);
    }
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
    r->smean = s->ssum / r->valid;
    return TRV_OK;
}

static trv_status open_points(trv_ctx *ctx, stream *s, trv_outset *set, const char *points_path)
{
    const char *tmp = trv_outset_add(set, points_path);
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
    for (int k = 0; k < 4; k++)
        if (s->w[k]) {
            trv_status k_st = geo_block_writer_close(ctx, s->w[k], st, &stats[k]);
            st = st ? st : k_st;
        }
    if (!st) {
        s->res->slope_min = stats[1].count ? stats[1].min : 0;
        s->res->slope_max = stats[1].count ? stats[1].max : 0;
    }
    if (s->points) {
        int bad = ferror(s->points);
        if ((fclose(s->points) != 0 || bad) && !st)
            st = trv_error(ctx, TRV_ERR_IO, "cannot write '%s': %s", points_path, strerror(errno));
    }
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
    free(s->slope);
    return st;
}

static trv_status op_compute(trv_ctx *ctx, void *s, int y0, int y1) { return compute_block(ctx, s, y0, y1); }
static trv_status op_write(trv_ctx *ctx, void *s, int y0, int y1) { return write_block(ctx, s, y0, y1); }

/* The block's parts as they travel between processes (core/split.h): the
 * DEM rows at z0, where compute_block put them on the process that computed
 * the block and where write_block reads them on process 0, which receives
 * them there (at the start of z before any block of its own was read). */
static int op_parts(void *v, int y0, int y1, trv_part *p)
{
    stream *s = v;
    size_t n = (size_t)(y1 - y0) * s->res->grid.nx;
    if (!s->z0)
        s->z0 = s->z;
    p[0] = (trv_part){(float *)s->z0, n * sizeof *s->z0};
    p[1] = (trv_part){s->slope, n * sizeof *s->slope};
    p[2] = (trv_part){s->cls[0], n};
    p[3] = (trv_part){s->cls[1], n};
    p[4] = (trv_part){&s->b, sizeof s->b};
    return 5;
}

/* The rows by blocks (core/split.h's loop, on one process or over several;
 * "slope", the label trv-terrain always showed), then the whole-layer
 * checks on the process that writes. */
static trv_status run_blocks(trv_ctx *ctx, stream *s, const trv_split *sp, trv_status setup)
{
    const int ny = s->res->grid.ny, rows = geo_block_rows();
    const trv_block_ops ops = {s, op_compute, op_parts, op_write, "slope"};
    trv_status st = trv_split_blocks(ctx, sp, setup ? setup : alloc_buffers(ctx, s, rows < ny ? rows : ny), ny,
                                     rows, &ops);
    return st || (sp && sp->rank != 0) ? st : finish(ctx, s);
}

trv_status ter_stream(trv_ctx *ctx, trv_outset *set, const ter_opts *o, const char *dir, const char *points_path,
                      const trv_meta *meta, ter_result *r)
{
    memset(r, 0, sizeof *r);
    r->zmin = 1e300, r->zmax = -1e300;
    stream s = {.o = o, .res = r};
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
    st = run_blocks(ctx, &s, sp, st);
    return close_all(ctx, &s, st, points_path);
}
