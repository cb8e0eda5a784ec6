/* Streamed raster I/O by row blocks: the reader with a halo, the writer
 * to a Cloud-Optimized GeoTIFF (block.h). */
#include "block.h"
#include "geo_priv.h"
#include "core/moments.h"

#include <gdal.h>
#include <cpl_conv.h>
#include <cpl_error.h>
#include <errno.h>
#include <stddef.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define STRIP 256 /* the tiles' height: the writer's strip */

/* The integer >= 1 in the environment variable name, else dflt. */
static int env_count(const char *name, int dflt)
{
    const char *e = getenv(name);
    char *end;
    long v = e && *e ? strtol(e, &end, 10) : 0;
    return e && *e && !*end && v >= 1 && v <= 1 << 20 ? (int)v : dflt;
}

int geo_block_rows(void) { return env_count("TRV_BLOCK_ROWS", GEO_BLOCK_ROWS); }

int geo_block_cols(void) { return env_count("TRV_BLOCK_COLS", GEO_BLOCK_COLS); }

static int clamp_size(int v, int n) { return v < 1 ? 1 : v > n ? n : v; }

geo_tiling geo_tiling_make(int nx, int ny, int cols, int rows)
{
    geo_tiling t = {.nx = nx, .ny = ny, .tw = clamp_size(cols, nx), .th = clamp_size(rows, ny)};
    t.ntx = (nx + t.tw - 1) / t.tw;
    t.nty = (ny + t.th - 1) / t.th;
    return t;
}

int geo_tiling_count(const geo_tiling *t) { return t->ntx * t->nty; }

geo_tile geo_tiling_tile(const geo_tiling *t, int i)
{
    geo_tile k = {.x0 = i % t->ntx * t->tw, .y0 = i / t->ntx * t->th};
    k.nx = t->nx - k.x0 < t->tw ? t->nx - k.x0 : t->tw;
    k.ny = t->ny - k.y0 < t->th ? t->ny - k.y0 : t->th;
    return k;
}

size_t geo_block_mem(void) { return trv_env_bytes("TRV_BLOCK_MEM", GEO_BLOCK_MEM); }

size_t geo_strip_mem(void) { return trv_env_bytes("TRV_STRIP_MEM", GEO_STRIP_MEM); }

int geo_strip_rows(int width, int bytes)
{
    size_t row = (size_t)(width > 1 ? width : 1) * (size_t)(bytes > 1 ? bytes : 1), n = geo_strip_mem() / row;
    int most = geo_block_rows();
    return n < 1 ? 1 : n > (size_t)most ? most : (int)n;
}

const float *geo_rows_f32(const geo_rows *b, int y)
{
    return y >= b->y0 && y < b->y1 && b->f32 ? b->f32 + (size_t)(y - b->y0) * b->nx : NULL;
}

const unsigned char *geo_rows_u8(const geo_rows *b, int y)
{
    return y >= b->y0 && y < b->y1 && b->u8 ? b->u8 + (size_t)(y - b->y0) * b->nx : NULL;
}

/* GDAL's block cache bounded: 4 MiB plus the strips reserved (two
 * 256-row Float32 strips per reader opened), never above GDAL's own default. */
void geo_block_cache_reserve(int nx, int strips)
{
    static GIntBig dflt = -1, budget = 4 << 20;
    if (dflt < 0)
        dflt = GDALGetCacheMax64();
    budget += strips * (GIntBig)nx * STRIP * 4;
    GDALSetCacheMax64(budget < dflt ? budget : dflt);
}

static void bound_cache(int nx) { geo_block_cache_reserve(nx, 2); }

/* A reader's share of the cache, reserved at its first read of a kind:
 * by rows two 256-row strips of the grid's width; by windows three
 * 256-row strips of the window's width plus two tiles (the 3 x 3 tiles
 * a window with its halo can touch), whatever the grid's width. */
static void reserve_rows(geo_block_reader *r);
static void reserve_window(geo_block_reader *r, int width);

/* ---- reader ------------------------------------------------------------ */

struct geo_block_reader {
    geo_raster_src *src;
    int halo;
    size_t cap;             /* cells allocated in rows */
    geo_rows rows;
    size_t wcap;            /* cells allocated in win */
    geo_window win;
    int rows_reserved;      /* the cache's share for rows reserved */
    int win_reserved;       /* the width reserved for windows (0: none) */
};

static void reserve_rows(geo_block_reader *r)
{
    if (!r->rows_reserved)
        bound_cache(r->rows.nx);
    r->rows_reserved = 1;
}

static void reserve_window(geo_block_reader *r, int width)
{
    if (width > r->win_reserved)
        geo_block_cache_reserve(width + 2 * STRIP - r->win_reserved, 3);
    r->win_reserved = width > r->win_reserved ? width + 2 * STRIP : r->win_reserved;
}

trv_status geo_block_reader_open(trv_ctx *ctx, const char *path, geo_type type, int halo, geo_block_reader **out)
{
    *out = NULL;
    geo_block_reader *r = calloc(1, sizeof *r);
    if (!r)
        return trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
    trv_status st = geo_raster_open(ctx, path, type, &r->src);
    if (st) {
        free(r);
        return st;
    }
    r->halo = halo > 0 ? halo : 0;
    r->rows.nx = geo_raster_src_grid(r->src)->nx;
    r->rows.type = type;
    r->rows.nodata = geo_raster_src_nodata(r->src, &r->rows.has_nodata);
    r->win = (geo_window){.type = type, .has_nodata = r->rows.has_nodata, .nodata = r->rows.nodata};
    *out = r;
    return TRV_OK;
}

void geo_block_reader_close(geo_block_reader *r)
{
    if (!r)
        return;
    geo_raster_close(r->src);
    free(r->rows.f32);
    free(r->rows.u8);
    free(r->win.f32);
    free(r->win.u8);
    free(r);
}

const geo_grid *geo_block_reader_grid(const geo_block_reader *r) { return geo_raster_src_grid(r->src); }

trv_status geo_block_read(trv_ctx *ctx, geo_block_reader *r, int y0, int y1, const geo_rows **rows)
{
    *rows = NULL;
    int ny = geo_block_reader_grid(r)->ny;
    int a = y0 - r->halo > 0 ? y0 - r->halo : 0, b = y1 + r->halo < ny ? y1 + r->halo : ny;
    if (y0 < 0 || y1 > ny || y1 <= y0)
        return trv_error(ctx, TRV_ERR_INTERNAL, "block rows %d to %d outside the %d rows", y0, y1 - 1, ny);
    reserve_rows(r);
    size_t n = (size_t)(b - a) * r->rows.nx;
    if (n > r->cap) {
        size_t size = r->rows.type == GEO_F32 ? 4 : 1;
        void *p = realloc(r->rows.type == GEO_F32 ? (void *)r->rows.f32 : (void *)r->rows.u8, n * size);
        if (!p)
            return trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
        if (r->rows.type == GEO_F32)
            r->rows.f32 = p;
        else
            r->rows.u8 = p;
        r->cap = n;
    }
    r->rows.y0 = a;
    r->rows.y1 = b;
    trv_status st = geo_raster_read_rows(ctx, r->src, a, b - a,
                                         r->rows.type == GEO_F32 ? (void *)r->rows.f32 : (void *)r->rows.u8);
    if (!st)
        *rows = &r->rows;
    return st;
}

/* Cell (x, y)'s index in w's cells, or -1 off the window. */
static ptrdiff_t window_cell(const geo_window *w, int x, int y)
{
    if (x < w->x0 || x >= w->x1 || y < w->y0 || y >= w->y1)
        return -1;
    return (ptrdiff_t)(y - w->y0) * (w->x1 - w->x0) + (x - w->x0);
}

const float *geo_window_f32(const geo_window *w, int x, int y)
{
    ptrdiff_t i = window_cell(w, x, y);
    return i >= 0 && w->f32 ? w->f32 + i : NULL;
}

const unsigned char *geo_window_u8(const geo_window *w, int x, int y)
{
    ptrdiff_t i = window_cell(w, x, y);
    return i >= 0 && w->u8 ? w->u8 + i : NULL;
}

/* [a, b) widened by h and clipped to [0, n). */
static void widen(int a, int b, int h, int n, int *lo, int *hi)
{
    *lo = a - h > 0 ? a - h : 0;
    *hi = b + h < n ? b + h : n;
}

trv_status geo_block_read_window(trv_ctx *ctx, geo_block_reader *r, int x0, int x1, int y0, int y1,
                                 const geo_window **win)
{
    *win = NULL;
    const geo_grid *g = geo_block_reader_grid(r);
    if (x0 < 0 || x1 > g->nx || x1 <= x0 || y0 < 0 || y1 > g->ny || y1 <= y0)
        return trv_error(ctx, TRV_ERR_INTERNAL, "window columns %d to %d, rows %d to %d outside the %d x %d cells", x0,
                         x1 - 1, y0, y1 - 1, g->nx, g->ny);
    geo_window *w = &r->win;
    int a, b, c, d;
    widen(x0, x1, r->halo, g->nx, &a, &b);
    widen(y0, y1, r->halo, g->ny, &c, &d);
    reserve_window(r, b - a);
    size_t n = (size_t)(b - a) * (size_t)(d - c);
    if (n > r->wcap) {
        void *p = realloc(w->type == GEO_F32 ? (void *)w->f32 : (void *)w->u8, n * (w->type == GEO_F32 ? 4 : 1));
        if (!p)
            return trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
        if (w->type == GEO_F32)
            w->f32 = p;
        else
            w->u8 = p;
        r->wcap = n;
    }
    w->x0 = a, w->x1 = b, w->y0 = c, w->y1 = d;
    trv_status st = geo_raster_read_window_to(ctx, r->src, a, c, b - a, d - c,
                                              w->type == GEO_F32 ? (void *)w->f32 : (void *)w->u8, (size_t)(b - a),
                                              (float)w->nodata);
    if (!st)
        *win = w;
    return st;
}

/* ---- writer ------------------------------------------------------------ */

#define MAXLEVEL 24

/* One level of the pyramid (0: the layer, k: its overview of factor 2^k). */
typedef struct level {
    int nx, ny;
} level;

struct geo_block_writer {
    GDALDatasetH ds;        /* the temporary tiled GTiff, with its empty overviews */
    char *path, *part;      /* the COG to make, the temporary */
    geo_type type;
    size_t size;            /* bytes per cell */
    int has_nodata;
    float nodata;
    int nlev;               /* levels: 1 + overviews */
    int zlevel;             /* the COG's DEFLATE level, 0: GDAL's */
    int in_mem;             /* the temporary in GDAL's memory files, uncompressed (geo_block_mem) */
    level lev[MAXLEVEL];
    int by_tiles;           /* -1: nothing written yet, 0: rows (geo_block_write), 1: tiles */
    unsigned char *strip;   /* rows: the level's STRIP rows not yet written */
    int next, held;         /* rows: the rows given so far, those in the strip (next - held .. next - 1) */
    size_t cells;           /* tiles: the cells given so far */
    trv_moments stats;      /* the data cells' (Float32 layers) */
};

/* The overviews the COG driver would make: halving until the level fits
 * one 256 x 256 tile. */
static int count_levels(int nx, int ny)
{
    int n = 1;
    while (n < MAXLEVEL && (nx > 256 || ny > 256)) {
        nx = (nx + 1) / 2, ny = (ny + 1) / 2;
        n++;
    }
    return n;
}

static void size_levels(geo_block_writer *w, int nx, int ny)
{
    w->nlev = count_levels(nx, ny);
    for (int k = 0; k < w->nlev; k++) {
        w->lev[k] = (level){nx, ny};
        nx = (nx + 1) / 2, ny = (ny + 1) / 2;
    }
}

/* A write failed (errno set to 0 before it): the error names the output
 * (w->path, which its output set maps to the final name) and the cause,
 * the system's first when there is one (a full disk: libtiff's message
 * does not say so). */
static trv_status write_error(trv_ctx *ctx, const geo_block_writer *w)
{
    int err = errno;
    const char *gdal = geo_gdal_msg(NULL);
    return err ? trv_error(ctx, TRV_ERR_IO, "cannot write '%s': %s (%s)", w->path, strerror(err), gdal)
               : trv_error(ctx, TRV_ERR_IO, "cannot write '%s': %s", w->path, gdal);
}

/* The temporary GTiff with geo_raster_write's header and the overview
 * levels (empty: the writer fills them): uncompressed in GDAL's memory
 * files when w->in_mem, else on disk beside the output. */
static trv_status create_part(trv_ctx *ctx, geo_block_writer *w, const geo_raster *like, const trv_meta *meta)
{
    /* on disk, written once and read once: the fastest codec that still
     * saves disk (ZSTD level 1; DEFLATE level 1 where GDAL's libtiff lacks
     * ZSTD); in memory none (the COG copy then only compresses) */
    GDALDriverH gtiff = GDALGetDriverByName("GTiff");
    const char *list = gtiff ? GDALGetMetadataItem(gtiff, GDAL_DMD_CREATIONOPTIONLIST, NULL) : NULL;
    int zstd = list && strstr(list, "ZSTD");
    const char *opts[] = {"TILED=YES",
                          "BLOCKXSIZE=256",
                          "BLOCKYSIZE=256",
                          "BIGTIFF=IF_SAFER",
                          w->in_mem ? NULL : zstd ? "COMPRESS=ZSTD" : "COMPRESS=DEFLATE",
                          zstd ? "ZSTD_LEVEL=1" : "ZLEVEL=1",
                          NULL};
    trv_status st;
    if (w->in_mem) { /* an unwritable output fails now, as the temporary beside it would, not after the rows */
        FILE *f = fopen(w->path, "wb");
        if (!f || fclose(f) != 0)
            return trv_error(ctx, TRV_ERR_IO, "cannot create '%s': %s", w->path, strerror(errno));
    }
    w->ds = geo_tiff_create(ctx, like, w->part, meta, opts, &st);
    if (!w->ds || st)
        return st ? st : TRV_ERR_IO;
    int factors[MAXLEVEL];
    for (int k = 1; k < w->nlev; k++)
        factors[k - 1] = 1 << k;
    CPLErrorReset();
    errno = 0;
    if (w->nlev > 1 && GDALBuildOverviews(w->ds, "NONE", w->nlev - 1, factors, 0, NULL, NULL, NULL) != CE_None)
        return write_error(ctx, w);
    return TRV_OK;
}

trv_status geo_block_writer_open_set(trv_ctx *ctx, trv_outset *set, const geo_raster *like, const char *final,
                                     const trv_meta *meta, geo_block_writer **out)
{
    const char *tmp = final ? trv_outset_add(set, final) : NULL;
    if (!tmp) {
        *out = NULL;
        return trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
    }
    return geo_block_writer_open(ctx, like, tmp, meta, out);
}

trv_status geo_block_writer_open(trv_ctx *ctx, const geo_raster *like, const char *path, const trv_meta *meta,
                                 geo_block_writer **out)
{
    *out = NULL;
    geo_block_writer *w = calloc(1, sizeof *w);
    size_t n = strlen(path) + 24;
    if (!w || !(w->path = strdup(path)) || !(w->part = malloc(n))) {
        if (w) {
            free(w->path);
            free(w);
        }
        return trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
    }
    bound_cache(0); /* bounded also when no reader is open (trv-krige) */
    w->type = like->type;
    w->size = like->type == GEO_F32 ? 4 : 1;
    w->has_nodata = like->has_nodata;
    w->nodata = (float)like->nodata;
    trv_moments_init(&w->stats);
    w->by_tiles = -1;
    size_levels(w, like->grid.nx, like->grid.ny);
    trv_status st = TRV_OK;
    size_t bytes = 0;
    for (int k = 0; k < w->nlev; k++)
        bytes += (size_t)w->lev[k].nx * w->lev[k].ny * w->size;
    w->in_mem = bytes <= geo_block_mem();
    snprintf(w->part, n, "%s%s.part.tif", w->in_mem ? "/vsimem/" : "", path);
    if (!st)
        st = create_part(ctx, w, like, meta);
    if (st)
        return geo_block_writer_close(ctx, w, st, NULL);
    *out = w;
    return TRV_OK;
}

static int is_data(const geo_block_writer *w, float v) { return !geo_f32_is_nodata(v, w->has_nodata, w->nodata); }

/* The band of level k (0: the layer) of the temporary. */
static GDALRasterBandH level_band(const geo_block_writer *w, int k)
{
    GDALRasterBandH band = GDALGetRasterBand(w->ds, 1);
    return band && k > 0 ? GDALGetOverview(band, k - 1) : band;
}

/* The window x0, y0, nx x ny of level k's band from or into cells (rows of nx). */
static trv_status level_io(trv_ctx *ctx, geo_block_writer *w, int k, GDALRWFlag rw, int x0, int y0, int nx, int ny,
                           void *cells)
{
    GDALRasterBandH band = level_band(w, k);
    CPLErrorReset();
    errno = 0;
    if (!band || GDALRasterIO(band, rw, x0, y0, nx, ny, cells, nx, ny, w->type == GEO_F32 ? GDT_Float32 : GDT_Byte, 0,
                              0) != CE_None)
        return write_error(ctx, w);
    return TRV_OK;
}

/* The rows' strip to the layer's band, and GDAL's cache of it freed. */
static trv_status flush_strip(trv_ctx *ctx, geo_block_writer *w)
{
    trv_status st = level_io(ctx, w, 0, GF_Write, 0, w->next - w->held, w->lev[0].nx, w->held, w->strip);
    if (st)
        return st;
    errno = 0; /* the flush's own error, if any, not the write's */
    if (GDALFlushRasterCache(level_band(w, 0)) != CE_None)
        return write_error(ctx, w);
    w->held = 0;
    return TRV_OK;
}

/* One row of the level below's pair (b NULL: the last row of an odd
 * count), of nx cells: Float32 the mean of the 2 x 2 cells' data cells
 * (nodata where none), Byte the top-left cell. */
static void halve(const geo_block_writer *w, const unsigned char *a, const unsigned char *b, int nx, unsigned char *o)
{
    int onx = (nx + 1) / 2;
    if (w->type == GEO_U8) {
        for (int x = 0; x < onx; x++)
            o[x] = a[2 * x];
        return;
    }
    const float *fa = (const float *)a, *fb = (const float *)b;
    float *fo = (float *)o;
    for (int x = 0; x < onx; x++) {
        double sum = 0;
        int n = 0;
        for (int i = 2 * x; i < 2 * x + 2 && i < nx; i++) {
            if (is_data(w, fa[i]))
                sum += fa[i], n++;
            if (fb && is_data(w, fb[i]))
                sum += fb[i], n++;
        }
        fo[x] = n ? (float)(sum / n) : (w->has_nodata ? w->nodata : NAN);
    }
}

/* Level k's 256 x 256 tile (tx, ty) from level k - 1's 512 x 512 window
 * (clipped at its edges: the pairs of its last odd row or column are
 * single), src and dst buffers of those sizes. Windows start at even
 * rows and columns, so the pairs are the whole level's. */
static trv_status overview_tile(trv_ctx *ctx, geo_block_writer *w, int k, int tx, int ty, unsigned char *src,
                                unsigned char *dst)
{
    const level *s = &w->lev[k - 1], *d = &w->lev[k];
    int ox = tx * 256, oy = ty * 256, ow = d->nx - ox < 256 ? d->nx - ox : 256, oh = d->ny - oy < 256 ? d->ny - oy : 256;
    int sw = s->nx - 2 * ox < 512 ? s->nx - 2 * ox : 512, sh = s->ny - 2 * oy < 512 ? s->ny - 2 * oy : 512;
    trv_status st = level_io(ctx, w, k - 1, GF_Read, 2 * ox, 2 * oy, sw, sh, src);
    for (int r = 0; r < oh && !st; r++)
        halve(w, src + (size_t)2 * r * sw * w->size, 2 * r + 1 < sh ? src + (size_t)(2 * r + 1) * sw * w->size : NULL,
              sw, dst + (size_t)r * ow * w->size);
    return st ? st : level_io(ctx, w, k, GF_Write, ox, oy, ow, oh, dst);
}

/* The overviews, level by level, tile by tile in row order (each tile of
 * the level below read once): memory two tiles' cells and GDAL's cache. */
static trv_status make_overviews(trv_ctx *ctx, geo_block_writer *w)
{
    unsigned char *src = malloc((size_t)512 * 512 * w->size), *dst = malloc((size_t)256 * 256 * w->size);
    trv_status st = src && dst ? TRV_OK : trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
    for (int k = 1; k < w->nlev && !st; k++)
        for (int ty = 0; ty * 256 < w->lev[k].ny && !st; ty++)
            for (int tx = 0; tx * 256 < w->lev[k].nx && !st; tx++)
                st = overview_tile(ctx, w, k, tx, ty, src, dst);
    free(src);
    free(dst);
    return st;
}

void geo_block_writer_set_level(geo_block_writer *w, int zlevel)
{
    w->zlevel = zlevel >= 1 && zlevel <= 12 ? zlevel : 0;
}

/* The writer's first call fixes its way (rows or tiles); mixing them is an error. */
static trv_status set_way(trv_ctx *ctx, geo_block_writer *w, int tiles)
{
    if (w->by_tiles < 0)
        w->by_tiles = tiles;
    if (w->by_tiles != tiles)
        return trv_error(ctx, TRV_ERR_INTERNAL, "'%s': rows and tiles written to the same layer", w->path);
    if (!tiles && !w->strip && !(w->strip = malloc((size_t)w->lev[0].nx * STRIP * w->size)))
        return trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
    return TRV_OK;
}

trv_status geo_block_write(trv_ctx *ctx, geo_block_writer *w, int y0, int ny, const void *cells)
{
    const level *l = &w->lev[0];
    if (y0 != w->next || ny < 0 || y0 + ny > l->ny)
        return trv_error(ctx, TRV_ERR_INTERNAL, "'%s': rows %d to %d written out of order (next %d)", w->path, y0,
                         y0 + ny - 1, w->next);
    size_t bytes = (size_t)l->nx * w->size;
    trv_status st = set_way(ctx, w, 0);
    for (int k = 0; k < ny && !st; k++) {
        const unsigned char *row = (const unsigned char *)cells + (size_t)k * bytes;
        if (w->type == GEO_F32)
            trv_moments_add_f32(&w->stats, (const float *)row, (size_t)l->nx, w->has_nodata, w->nodata);
        memcpy(w->strip + (size_t)w->held * bytes, row, bytes);
        w->held++;
        w->next++;
        if (w->held == STRIP || w->next == l->ny)
            st = flush_strip(ctx, w);
    }
    return st;
}

trv_status geo_block_write_tile(trv_ctx *ctx, geo_block_writer *w, int x0, int y0, int nx, int ny, const void *cells)
{
    const level *l = &w->lev[0];
    size_t n = (size_t)nx * ny;
    if (x0 < 0 || y0 < 0 || nx < 1 || ny < 1 || x0 > l->nx - nx || y0 > l->ny - ny || w->cells + n > (size_t)l->nx * l->ny)
        return trv_error(ctx, TRV_ERR_INTERNAL, "'%s': tile %d x %d at (%d, %d) outside the %d x %d cells or written twice",
                         w->path, nx, ny, x0, y0, l->nx, l->ny);
    trv_status st = set_way(ctx, w, 1);
    if (!st && w->type == GEO_F32)
        trv_moments_add_f32(&w->stats, cells, n, w->has_nodata, w->nodata);
    if (!st)
        st = level_io(ctx, w, 0, GF_Write, x0, y0, nx, ny, (void *)cells);
    w->cells += st ? 0 : n;
    return st;
}

/* The temporary, finished, copied by the COG driver (with its overviews)
 * into w->path. */
static trv_status make_cog(trv_ctx *ctx, geo_block_writer *w)
{
    GDALRasterBandH band = GDALGetRasterBand(w->ds, 1);
    if (w->stats.count) {
        double mean, std;
        trv_moments_mean_std(&w->stats, &mean, &std);
        GDALSetRasterStatistics(band, w->stats.min, w->stats.max, mean, std);
    }
    GDALDriverH cog = GDALGetDriverByName("COG");
    if (!cog)
        return trv_error(ctx, TRV_ERR_INTERNAL, "GDAL has no COG driver (GDAL >= 3.1 needed)");
    char zl[16];
    snprintf(zl, sizeof zl, "LEVEL=%d", w->zlevel);
    const char *opts[] = {"BLOCKSIZE=256", "COMPRESS=DEFLATE", "PREDICTOR=YES", "BIGTIFF=IF_SAFER",
                          w->nlev > 1 ? "OVERVIEWS=FORCE_USE_EXISTING" : "OVERVIEWS=NONE", w->zlevel ? zl : NULL,
                          NULL};
    CPLErrorReset();
    errno = 0;
    GDALDatasetH out = GDALCreateCopy(cog, w->path, w->ds, FALSE, (char **)opts, NULL, NULL);
    if (!out)
        return write_error(ctx, w);
    CPLErrorReset();
    errno = 0;
    GDALClose(out);
    if (CPLGetLastErrorType() >= CE_Failure)
        return write_error(ctx, w);
    return TRV_OK;
}

trv_status geo_block_writer_close(trv_ctx *ctx, geo_block_writer *w, trv_status st, geo_block_stats *stats)
{
    const level *l = &w->lev[0];
    if (!st && w->by_tiles > 0 && w->cells != (size_t)l->nx * l->ny)
        st = trv_error(ctx, TRV_ERR_INTERNAL, "'%s': %zu of %zu cells written", w->path, w->cells, (size_t)l->nx * l->ny);
    else if (!st && w->by_tiles <= 0 && w->next != l->ny)
        st = trv_error(ctx, TRV_ERR_INTERNAL, "'%s': %d of %d rows written", w->path, w->next, l->ny);
    if (!st && w->ds)
        st = make_overviews(ctx, w);
    if (!st && w->ds)
        st = make_cog(ctx, w);
    if (stats && !st) {
        const trv_moments *m = &w->stats;
        double mean, std;
        trv_moments_mean_std(m, &mean, &std);
        *stats = (geo_block_stats){m->count, m->count ? m->min : 0, m->count ? m->max : 0, mean, std};
    }
    if (w->ds) {
        CPLErrorReset();
        GDALClose(w->ds);
    }
    VSIUnlink(w->part);
    char aux[4096];
    snprintf(aux, sizeof aux, "%s.aux.xml", w->part);
    VSIUnlink(aux);
    free(w->strip);
    free(w->path);
    free(w->part);
    free(w);
    return st;
}

int geo_block_threads_begin(int n)
{
    if (n <= 1 || CPLGetConfigOption("GDAL_NUM_THREADS", NULL) != NULL)
        return 0;
    char v[16];
    snprintf(v, sizeof v, "%d", n);
    CPLSetThreadLocalConfigOption("GDAL_NUM_THREADS", v);
    return 1;
}

void geo_block_threads_end(int set)
{
    if (set)
        CPLSetThreadLocalConfigOption("GDAL_NUM_THREADS", NULL);
}

trv_status geo_block_writers_close(trv_ctx *ctx, geo_block_writer *const *w, int n, trv_status st,
                                   geo_block_stats *stats)
{
    for (int k = 0; k < n; k++)
        if (w[k]) /* it returns st when st is an error: the first error stays */
            st = geo_block_writer_close(ctx, w[k], st, stats ? &stats[k] : NULL);
    return st;
}
