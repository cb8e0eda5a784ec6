/* Streamed raster I/O by row blocks: the reader with a halo, the writer
 * to a Cloud-Optimized GeoTIFF (block.h). */
#include "block.h"
#include "geo_priv.h"

#include <gdal.h>
#include <cpl_conv.h>
#include <cpl_error.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define STRIP 256 /* the tiles' height: the writer's strip */

int geo_block_rows(void)
{
    const char *e = getenv("TRV_BLOCK_ROWS");
    char *end;
    long v = e && *e ? strtol(e, &end, 10) : 0;
    return e && *e && !*end && v >= 1 && v <= 1 << 20 ? (int)v : GEO_BLOCK_ROWS;
}

const float *geo_rows_f32(const geo_rows *b, int y)
{
    return y >= b->y0 && y < b->y1 && b->f32 ? b->f32 + (size_t)(y - b->y0) * b->nx : NULL;
}

const unsigned char *geo_rows_u8(const geo_rows *b, int y)
{
    return y >= b->y0 && y < b->y1 && b->u8 ? b->u8 + (size_t)(y - b->y0) * b->nx : NULL;
}

/* GDAL's block cache bounded: 16 MiB plus two 256-row Float32 strips per
 * reader opened, never above GDAL's own default. */
static void bound_cache(int nx)
{
    static GIntBig dflt = -1, budget = 16 << 20;
    if (dflt < 0)
        dflt = GDALGetCacheMax64();
    budget += 2 * (GIntBig)nx * STRIP * 4;
    GDALSetCacheMax64(budget < dflt ? budget : dflt);
}

/* ---- reader ------------------------------------------------------------ */

struct geo_block_reader {
    geo_raster_src *src;
    int halo;
    size_t cap;             /* cells allocated in rows */
    geo_rows rows;
};

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
    bound_cache(r->rows.nx);
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

/* ---- writer ------------------------------------------------------------ */

struct geo_block_writer {
    GDALDatasetH ds;        /* the temporary tiled GTiff */
    char *path, *part;      /* the COG to make, the temporary */
    geo_type type;
    int nx, ny, next;       /* next: the first row not yet written */
    int has_nodata;
    float nodata;
    unsigned char *strip;   /* STRIP rows of the layer */
    int held;               /* rows of the strip filled (from row next - held) */
    size_t cnt;             /* statistics, geo_raster_write's sums */
    double mn, mx, sum, sum2;
};

trv_status geo_block_writer_open(trv_ctx *ctx, const geo_raster *like, const char *path, const trv_meta *meta,
                                 geo_block_writer **out)
{
    *out = NULL;
    geo_block_writer *w = calloc(1, sizeof *w);
    size_t size = like->type == GEO_F32 ? 4 : 1, n = strlen(path) + 16;
    if (!w || !(w->path = strdup(path)) || !(w->part = malloc(n)) ||
        !(w->strip = malloc((size_t)like->grid.nx * STRIP * size))) {
        if (w) {
            free(w->path);
            free(w->part);
        }
        free(w);
        return trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
    }
    snprintf(w->part, n, "%s.part.tif", path);
    w->type = like->type;
    w->nx = like->grid.nx;
    w->ny = like->grid.ny;
    w->has_nodata = like->has_nodata;
    w->nodata = (float)like->nodata;
    w->mn = INFINITY, w->mx = -INFINITY;
    const char *opts[] = {"TILED=YES", "BLOCKXSIZE=256", "BLOCKYSIZE=256", "COMPRESS=DEFLATE", "ZLEVEL=1",
                          "BIGTIFF=IF_SAFER", NULL};
    trv_status st;
    w->ds = geo_tiff_create(ctx, like, w->part, meta, opts, &st);
    if (!st && !w->ds)
        st = TRV_ERR_IO;
    if (st)
        return geo_block_writer_close(ctx, w, st, NULL);
    *out = w;
    return TRV_OK;
}

static void add_stats(geo_block_writer *w, const float *v, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (isnan(v[i]) || (w->has_nodata && v[i] == w->nodata))
            continue;
        double x = v[i];
        w->mn = x < w->mn ? x : w->mn;
        w->mx = x > w->mx ? x : w->mx;
        w->sum += x;
        w->sum2 += x * x;
        w->cnt++;
    }
}

/* The strip's rows to the temporary, and GDAL's cache of them freed. */
static trv_status flush_strip(trv_ctx *ctx, geo_block_writer *w)
{
    if (!w->held)
        return TRV_OK;
    GDALRasterBandH band = GDALGetRasterBand(w->ds, 1);
    int y = w->next - w->held;
    if (GDALRasterIO(band, GF_Write, 0, y, w->nx, w->held, w->strip, w->nx, w->held,
                     w->type == GEO_F32 ? GDT_Float32 : GDT_Byte, 0, 0) != CE_None ||
        GDALFlushRasterCache(band) != CE_None)
        return trv_error(ctx, TRV_ERR_IO, "cannot write '%s': %s", w->part, geo_gdal_msg(NULL));
    w->held = 0;
    return TRV_OK;
}

trv_status geo_block_write(trv_ctx *ctx, geo_block_writer *w, int y0, int ny, const void *cells)
{
    if (y0 != w->next || ny < 0 || y0 + ny > w->ny)
        return trv_error(ctx, TRV_ERR_INTERNAL, "'%s': rows %d to %d written out of order (next %d)", w->path, y0,
                         y0 + ny - 1, w->next);
    size_t size = w->type == GEO_F32 ? 4 : 1, row = (size_t)w->nx * size;
    const unsigned char *src = cells;
    trv_status st = TRV_OK;
    for (int k = 0; k < ny && !st; k++) {
        memcpy(w->strip + (size_t)w->held * row, src + (size_t)k * row, row);
        if (w->type == GEO_F32)
            add_stats(w, (const float *)(src + (size_t)k * row), (size_t)w->nx);
        w->held++;
        w->next++;
        if (w->held == STRIP || w->next == w->ny)
            st = flush_strip(ctx, w);
    }
    return st;
}

/* The temporary, finished, copied by the COG driver into w->path. */
static trv_status make_cog(trv_ctx *ctx, geo_block_writer *w)
{
    GDALRasterBandH band = GDALGetRasterBand(w->ds, 1);
    if (w->cnt) {
        double mean = w->sum / (double)w->cnt, var = w->sum2 / (double)w->cnt - mean * mean;
        GDALSetRasterStatistics(band, w->mn, w->mx, mean, var > 0 ? sqrt(var) : 0);
    }
    GDALDriverH cog = GDALGetDriverByName("COG");
    if (!cog)
        return trv_error(ctx, TRV_ERR_INTERNAL, "GDAL has no COG driver (GDAL >= 3.1 needed)");
    const char *opts[] = {"BLOCKSIZE=256", "COMPRESS=DEFLATE", "PREDICTOR=YES", "BIGTIFF=IF_SAFER",
                          w->type == GEO_F32 ? "RESAMPLING=AVERAGE" : "RESAMPLING=NEAREST", NULL};
    CPLErrorReset();
    GDALDatasetH out = GDALCreateCopy(cog, w->path, w->ds, FALSE, (char **)opts, NULL, NULL);
    if (!out)
        return trv_error(ctx, TRV_ERR_IO, "cannot write '%s': %s", w->path, geo_gdal_msg(NULL));
    CPLErrorReset();
    GDALClose(out);
    if (CPLGetLastErrorType() >= CE_Failure)
        return trv_error(ctx, TRV_ERR_IO, "cannot write '%s': %s", w->path, geo_gdal_msg(NULL));
    return TRV_OK;
}

trv_status geo_block_writer_close(trv_ctx *ctx, geo_block_writer *w, trv_status st, geo_block_stats *stats)
{
    if (!st && w->next != w->ny)
        st = trv_error(ctx, TRV_ERR_INTERNAL, "'%s': %d of %d rows written", w->path, w->next, w->ny);
    if (!st && w->ds)
        st = make_cog(ctx, w);
    if (stats && !st) {
        double mean = w->cnt ? w->sum / (double)w->cnt : 0, var = w->cnt ? w->sum2 / (double)w->cnt - mean * mean : 0;
        *stats = (geo_block_stats){w->cnt, w->cnt ? w->mn : 0, w->cnt ? w->mx : 0, mean, var > 0 ? sqrt(var) : 0};
    }
    if (w->ds) {
        CPLErrorReset();
        GDALClose(w->ds);
    }
    unlink(w->part);
    char aux[4096];
    snprintf(aux, sizeof aux, "%s.aux.xml", w->part);
    unlink(aux);
    free(w->strip);
    free(w->path);
    free(w->part);
    free(w);
    return st;
}
