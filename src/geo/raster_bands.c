/* Multi-band Float32 GeoTIFFs written by windows, in a canonical order (geo.h). */
#include "block.h"
#include "geo_priv.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <cpl_error.h>
#include <gdal.h>

/* The file's tiles are 256 x 256; a unit is UNIT_TILES of them across one
 * 256-row strip (geo.h: the order the file is written in) */
enum { STRIP = 256, UNIT_TILES = 16, UNIT_COLS = UNIT_TILES * STRIP };

struct geo_bands {
    GDALDatasetH ds;
    char *path;
    int nx, ny, nbands;
    geo_tiling units;       /* the units, row-major: the order they are written in */
    int k, nk;              /* the band group being put (nk 0: none) */
    int next;               /* the group's next unit to write */
    float **unit;           /* per unit: its nk bands' cells, then a bit per cell put (NULL: none or written) */
    int *filled;            /* per unit: the group's cells put */
    unsigned char *done;    /* per band: written */
    char **desc;            /* per band: its description until its first write (NULL: none) */
};

/* b's memory (not its dataset). NULL accepted. */
static void free_bands(geo_bands *b)
{
    if (!b)
        return;
    for (int u = 0; b->unit && u < geo_tiling_count(&b->units); u++)
        free(b->unit[u]);
    free(b->unit);
    free(b->filled);
    free(b->done);
    for (int k = 0; b->desc && k < b->nbands; k++)
        free(b->desc[k]);
    free(b->desc);
    free(b->path);
    free(b);
}

trv_status geo_bands_open(trv_ctx *ctx, const char *path, const geo_grid *grid, int nbands, double nodata,
                          const char *unit, const trv_meta *meta, int threads, geo_bands **out)
{
    *out = NULL;
    GDALDriverH drv = GDALGetDriverByName("GTiff");
    if (!drv)
        return trv_error(ctx, TRV_ERR_INTERNAL, "GDAL has no GTiff driver (call geo_init first)");
    if (nbands < 1 || grid->nx < 1 || grid->ny < 1)
        return trv_error(ctx, TRV_ERR_USAGE, "a multi-band raster needs at least one band and one cell");
    char nthreads[32];
    snprintf(nthreads, sizeof nthreads, "NUM_THREADS=%d", threads);
    /* DEFLATE level 1: realisations are noisy to their last bits, and level 6
     * (the default) takes twice the CPU to save 2 % of the bytes */
    const char *opts[] = {"TILED=YES",   "BLOCKXSIZE=256",    "BLOCKYSIZE=256",
                          "COMPRESS=DEFLATE", "ZLEVEL=1", "PREDICTOR=3", "INTERLEAVE=BAND",
                          "BIGTIFF=IF_SAFER", threads > 1 ? nthreads : NULL, NULL};
    geo_bands *b = calloc(1, sizeof *b);
    if (b) {
        b->units = geo_tiling_make(grid->nx, grid->ny, UNIT_COLS, STRIP);
        b->path = strdup(path);
        b->unit = calloc((size_t)geo_tiling_count(&b->units), sizeof *b->unit);
        b->filled = calloc((size_t)geo_tiling_count(&b->units), sizeof *b->filled);
        b->done = calloc((size_t)nbands, 1);
        b->desc = calloc((size_t)nbands, sizeof *b->desc);
        b->nbands = nbands;
    }
    if (!b || !b->path || !b->unit || !b->filled || !b->done || !b->desc) {
        free_bands(b);
        return trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
    }
    CPLErrorReset();
    b->ds = GDALCreate(drv, path, grid->nx, grid->ny, nbands, GDT_Float32, (char **)opts);
    if (!b->ds) {
        trv_status st = trv_error(ctx, TRV_ERR_IO, "cannot create '%s': %s", path, geo_gdal_msg(NULL));
        free_bands(b);
        return st;
    }
    b->nx = grid->nx;
    b->ny = grid->ny;
    GDALSetGeoTransform(b->ds, (double *)grid->gt);
    trv_status st = TRV_OK;
    if (grid->wkt && GDALSetProjection(b->ds, grid->wkt) != CE_None)
        st = trv_error(ctx, TRV_ERR_CRS, "cannot write the CRS of '%s': %s", path, geo_gdal_msg(NULL));
    for (int k = 1; k <= nbands && !st; k++) {
        GDALRasterBandH band = GDALGetRasterBand(b->ds, k);
        GDALSetRasterNoDataValue(band, nodata);
        if (unit)
            GDALSetRasterUnitType(band, unit);
    }
    if (!st && meta)
        geo_meta_apply(b->ds, meta);
    if (st) {
        GDALClose(b->ds);
        free_bands(b);
        return st;
    }
    geo_block_cache_reserve(b->units.tw, 2); /* two bands' units in the cache */
    *out = b;
    return TRV_OK;
}

/* A write failed (errno set to 0 before it): the cause, the system's first
 * when there is one (a full disk: libtiff's message does not say so). */
static trv_status write_error(trv_ctx *ctx, const geo_bands *b)
{
    int err = errno;
    const char *gdal = geo_gdal_msg(NULL);
    return err ? trv_error(ctx, TRV_ERR_IO, "cannot write '%s': %s (%s)", b->path, strerror(err), gdal)
               : trv_error(ctx, TRV_ERR_IO, "cannot write '%s': %s", b->path, gdal);
}

/* Unit u's window in the raster. */
static geo_tile unit_tile(const geo_bands *b, int u) { return geo_tiling_tile(&b->units, u); }

/* Unit u's bits, one a cell, set when put (after its nk bands' cells). */
static unsigned char *seen_bits(const geo_bands *b, int u)
{
    geo_tile t = unit_tile(b, u);
    return (unsigned char *)(b->unit[u] + (size_t)b->nk * t.nx * t.ny);
}

/* The cells of unit tile t in the window (x0, y0, nx, ny), which meets it. */
static geo_tile meet(geo_tile t, int x0, int y0, int nx, int ny)
{
    int xa = x0 > t.x0 ? x0 : t.x0, xb = x0 + nx < t.x0 + t.nx ? x0 + nx : t.x0 + t.nx;
    int ya = y0 > t.y0 ? y0 : t.y0, yb = y0 + ny < t.y0 + t.ny ? y0 + ny : t.y0 + t.ny;
    return (geo_tile){xa, ya, xb - xa, yb - ya};
}

/* Whether any cell of the window (x0, y0, nx, ny) has been put to the
 * group: in a written unit, or its bit set. */
static int overlaps(const geo_bands *b, int x0, int y0, int nx, int ny)
{
    const geo_tiling *T = &b->units;
    for (int uy = y0 / T->th; uy <= (y0 + ny - 1) / T->th; uy++)
        for (int ux = x0 / T->tw; ux <= (x0 + nx - 1) / T->tw; ux++) {
            int u = uy * T->ntx + ux;
            if (u < b->next)
                return 1;
            if (!b->unit[u])
                continue;
            geo_tile t = unit_tile(b, u), m = meet(t, x0, y0, nx, ny);
            const unsigned char *bits = seen_bits(b, u);
            for (int y = m.y0; y < m.y0 + m.ny; y++)
                for (int x = m.x0; x < m.x0 + m.nx; x++) {
                    size_t i = (size_t)(y - t.y0) * t.nx + (size_t)(x - t.x0);
                    if (bits[i / 8] >> (i % 8) & 1)
                        return 1;
                }
        }
    return 0;
}

/* The call's refusals (geo.h), before anything is taken. */
static trv_status check_put(trv_ctx *ctx, const geo_bands *b, int k, int nk, int x0, int y0, int nx, int ny)
{
    if (k < 1 || nk < 1 || k + nk - 1 > b->nbands)
        return trv_error(ctx, TRV_ERR_INTERNAL, "bands %d .. %d of a %d-band raster", k, k + nk - 1, b->nbands);
    if (x0 < 0 || y0 < 0 || nx < 1 || ny < 1 || x0 + nx > b->nx || y0 + ny > b->ny)
        return trv_error(ctx, TRV_ERR_INTERNAL, "window (%d, %d) %d x %d outside the %d x %d raster", x0, y0, nx,
                         ny, b->nx, b->ny);
    if (b->nk && (k != b->k || nk != b->nk))
        return trv_error(ctx, TRV_ERR_INTERNAL, "bands %d .. %d put while bands %d .. %d are incomplete", k,
                         k + nk - 1, b->k, b->k + b->nk - 1);
    for (int i = 0; i < nk; i++)
        if (b->done[k + i - 1])
            return trv_error(ctx, TRV_ERR_INTERNAL, "band %d put again", k + i);
    if (b->nk && overlaps(b, x0, y0, nx, ny))
        return trv_error(ctx, TRV_ERR_INTERNAL, "window (%d, %d) %d x %d of bands %d .. %d put again", x0, y0, nx,
                         ny, k, k + nk - 1);
    return TRV_OK;
}

/* The window's cells into the units it meets (each unit's buffer made at
 * its first cells), their bits set, the units' counts grown. */
static trv_status take(trv_ctx *ctx, geo_bands *b, int x0, int y0, int nx, int ny, const float *const *cells)
{
    const geo_tiling *T = &b->units;
    for (int uy = y0 / T->th; uy <= (y0 + ny - 1) / T->th; uy++)
        for (int ux = x0 / T->tw; ux <= (x0 + nx - 1) / T->tw; ux++) {
            int u = uy * T->ntx + ux;
            geo_tile t = unit_tile(b, u), m = meet(t, x0, y0, nx, ny);
            size_t area = (size_t)t.nx * t.ny, bytes = (area + 7) / 8;
            if (!b->unit[u]) {
                if (!(b->unit[u] = malloc(b->nk * area * sizeof **b->unit + bytes)))
                    return trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
                memset(seen_bits(b, u), 0, bytes);
            }
            unsigned char *bits = seen_bits(b, u);
            for (int y = m.y0; y < m.y0 + m.ny; y++) {
                size_t at = (size_t)(y - t.y0) * t.nx + (size_t)(m.x0 - t.x0);
                for (int i = 0; i < b->nk; i++)
                    memcpy(b->unit[u] + i * area + at, cells[i] + (size_t)(y - y0) * nx + (m.x0 - x0),
                           (size_t)m.nx * sizeof **b->unit);
                for (size_t c = at; c < at + (size_t)m.nx; c++)
                    bits[c / 8] |= (unsigned char)(1u << (c % 8));
            }
            b->filled[u] += m.nx * m.ny;
        }
    return TRV_OK;
}

/* Unit u of the group's bands to the file, band by band (a band's
 * description set with its first write, as the file's header is written
 * with the first tile: the same header as rows gave), each band's tiles
 * flushed at once; its buffer freed. */
static trv_status write_unit(trv_ctx *ctx, geo_bands *b, int u)
{
    geo_tile t = unit_tile(b, u);
    trv_status st = TRV_OK;
    for (int i = 0; i < b->nk && !st; i++) {
        GDALRasterBandH band = GDALGetRasterBand(b->ds, b->k + i);
        char **desc = b->desc + b->k + i - 1;
        if (*desc)
            GDALSetDescription(band, *desc);
        free(*desc);
        *desc = NULL;
        CPLErrorReset();
        errno = 0;
        if (GDALRasterIO(band, GF_Write, t.x0, t.y0, t.nx, t.ny, b->unit[u] + (size_t)i * t.nx * t.ny, t.nx, t.ny,
                         GDT_Float32, 0, 0) != CE_None ||
            GDALFlushRasterCache(band) != CE_None || CPLGetLastErrorType() >= CE_Failure) /* a tile's write failed */
            st = write_error(ctx, b);
    }
    free(b->unit[u]);
    b->unit[u] = NULL;
    b->filled[u] = 0;
    return st;
}

trv_status geo_bands_put_tile(trv_ctx *ctx, geo_bands *b, int k, int nk, int x0, int y0, int nx, int ny,
                              const float *const *cells, const char *const *desc)
{
    trv_status st = check_put(ctx, b, k, nk, x0, y0, nx, ny);
    if (st)
        return st;
    if (!b->nk) { /* a new group */
        b->k = k, b->nk = nk, b->next = 0;
        for (int i = 0; i < nk && desc; i++)
            if (desc[i] && !(b->desc[k + i - 1] = strdup(desc[i])))
                return trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
    }
    st = take(ctx, b, x0, y0, nx, ny, cells);
    const int count = geo_tiling_count(&b->units);
    for (; !st && b->next < count; b->next++) { /* the complete units in order, up to the first that is not */
        geo_tile t = unit_tile(b, b->next);
        if (b->filled[b->next] < t.nx * t.ny)
            break;
        st = write_unit(ctx, b, b->next);
    }
    if (!st && b->next == count) { /* the group is done */
        memset(b->done + k - 1, 1, (size_t)nk);
        b->nk = 0;
    }
    return st;
}

trv_status geo_bands_close(trv_ctx *ctx, geo_bands *b)
{
    if (!b)
        return TRV_OK;
    CPLErrorReset();
    errno = 0;
    GDALClose(b->ds);
    trv_status st = CPLGetLastErrorType() >= CE_Failure ? write_error(ctx, b) : TRV_OK;
    free_bands(b);
    return st;
}
