/* Grids, class tables, raster layers and their GeoTIFF I/O through GDAL. */
#include "geo_priv.h"
#include "geo/block.h"
#include "core/moments.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cpl_conv.h>
#include <cpl_error.h>
#include <cpl_string.h>
#include <gdal.h>
#include <ogr_srs_api.h>

void geo_init(void)
{
    GDALAllRegister();
    /* errors come back to callers through trv_ctx; GDAL must not print */
    CPLSetErrorHandler(CPLQuietErrorHandler);
}

const char *geo_gdal_version(void)
{
    return GDALVersionInfo("RELEASE_NAME");
}

const char *geo_gdal_msg(const char *fallback)
{
    _Thread_local static char buf[1024]; /* GDAL's message is per thread too */
    const char *m = CPLGetLastErrorType() != CE_None ? CPLGetLastErrorMsg() : "";
    snprintf(buf, sizeof buf, "%s", m && *m ? m : fallback ? fallback : "unknown GDAL error");
    for (char *p = buf; *p; p++)
        if (*p == '\n' || *p == '\r' || *p == '\t')
            *p = ' ';
    size_t len = strlen(buf);
    while (len > 0 && (buf[len - 1] == ' ' || buf[len - 1] == '.'))
        buf[--len] = '\0';
    return buf;
}

const char *geo_open_msg(const char *path)
{
    struct stat sb;
    if (stat(path, &sb) != 0)
        return errno == ENOENT ? "no such file" : strerror(errno);
    if (S_ISDIR(sb.st_mode))
        return "is a directory";
    if (access(path, R_OK) != 0)
        return strerror(errno);
    if (S_ISREG(sb.st_mode) && sb.st_size == 0)
        return "empty file";
    return geo_gdal_msg("not a format GDAL recognises");
}

void geo_meta_apply(void *obj, const trv_meta *meta)
{
    char seed[32];
    GDALSetMetadataItem(obj, "TRV_TOOL", meta->tool, NULL);
    GDALSetMetadataItem(obj, "TRV_VERSION", TRV_VERSION, NULL);
    GDALSetMetadataItem(obj, "TRV_ARGS", meta->args, NULL);
    if (meta->has_seed) {
        snprintf(seed, sizeof seed, "%llu", (unsigned long long)meta->seed);
        GDALSetMetadataItem(obj, "TRV_SEED", seed, NULL);
    }
    for (int i = 0; i < meta->nextra; i++)
        GDALSetMetadataItem(obj, meta->extra_key[i], meta->extra_value[i], NULL);
}

/* ---- grids ------------------------------------------------------------ */

trv_status geo_grid_copy(trv_ctx *ctx, geo_grid *dst, const geo_grid *src)
{
    *dst = *src;
    dst->wkt = NULL;
    if (src->wkt && !(dst->wkt = strdup(src->wkt)))
        return trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
    return TRV_OK;
}

void geo_grid_clear(geo_grid *g)
{
    free(g->wkt);
    g->wkt = NULL;
}

double geo_grid_x(const geo_grid *g, double col) { return g->gt[0] + (col + 0.5) * g->gt[1]; }
double geo_grid_y(const geo_grid *g, double row) { return g->gt[3] + (row + 0.5) * g->gt[5]; }

trv_status geo_grid_compare(trv_ctx *ctx, const geo_grid *a, const char *name_a, const geo_grid *b,
                            const char *name_b)
{
    char la[128], lb[128];
    if (!geo_crs_same(a->wkt, b->wkt))
        return trv_error(ctx, TRV_ERR_GRID, "'%s' does not match '%s': CRS %s vs %s", name_b, name_a,
                         b->wkt ? geo_crs_label(b->wkt, lb, sizeof lb) : "none",
                         a->wkt ? geo_crs_label(a->wkt, la, sizeof la) : "none");
    double tol = 1e-6 * fabs(a->gt[1]);
    if (fabs(a->gt[1] - b->gt[1]) > tol || fabs(a->gt[5] - b->gt[5]) > tol)
        return trv_error(ctx, TRV_ERR_GRID, "'%s' does not match '%s': cell size %g x %g vs %g x %g", name_b, name_a,
                         b->gt[1], -b->gt[5], a->gt[1], -a->gt[5]);
    if (fabs(a->gt[0] - b->gt[0]) > tol || fabs(a->gt[3] - b->gt[3]) > tol)
        return trv_error(ctx, TRV_ERR_GRID, "'%s' does not match '%s': origin (%.6f, %.6f) vs (%.6f, %.6f)", name_b,
                         name_a, b->gt[0], b->gt[3], a->gt[0], a->gt[3]);
    if (a->nx != b->nx || a->ny != b->ny)
        return trv_error(ctx, TRV_ERR_GRID, "'%s' does not match '%s': size %d x %d vs %d x %d", name_b, name_a,
                         b->nx, b->ny, a->nx, a->ny);
    return TRV_OK;
}

/* ---- class tables ------------------------------------------------------ */

void geo_classes_free(geo_classes *cl)
{
    if (!cl)
        return;
    for (int i = 0; i < cl->n; i++)
        free(cl->c[i].name);
    free(cl->c);
    free(cl);
}

int geo_classes_find(const geo_classes *cl, int code)
{
    for (int i = 0; cl && i < cl->n; i++)
        if (cl->c[i].code == code)
            return i;
    return -1;
}

static int parse_hex_colour(const char *s, unsigned char rgb[3])
{
    if (strlen(s) != 7 || s[0] != '#')
        return -1;
    for (int i = 0; i < 3; i++) {
        char two[3] = {s[1 + 2 * i], s[2 + 2 * i], 0};
        char *end;
        long v = strtol(two, &end, 16);
        if (*end)
            return -1;
        rgb[i] = (unsigned char)v;
    }
    return 0;
}

trv_status geo_classes_read(trv_ctx *ctx, const char *path, geo_classes **out)
{
    /* distinct, colour-blind-safe defaults (Okabe-Ito) */
    static const unsigned char palette[8][3] = {{230, 159, 0}, {86, 180, 233}, {0, 158, 115}, {240, 228, 66},
                                                {0, 114, 178}, {213, 94, 0},   {204, 121, 167}, {0, 0, 0}};
    static const char *const cols[] = {"name", NULL};
    *out = NULL;
    geo_class_csv *t = NULL;
    trv_status st = geo_class_csv_read(ctx, path, "class", cols, &t);
    if (st)
        return st;
    int ccolor = trv_csv_col(t->csv, "color");
    geo_classes *cl = calloc(1, sizeof *cl);
    if (!cl || !(cl->c = calloc(t->n, sizeof *cl->c))) {
        st = trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
        goto done;
    }
    for (size_t i = 0; i < t->n; i++) {
        geo_class *c = &cl->c[cl->n];
        c->code = t->code[i];
        memcpy(c->rgb, palette[i % 8], 3);
        if (ccolor >= 0 && parse_hex_colour(trv_csv_cell(t->csv, i, ccolor), c->rgb)) {
            st = trv_error(ctx, TRV_ERR_FORMAT, "%s:%ld: colour '%s' is not #rrggbb", path, trv_csv_line(t->csv, i),
                           trv_csv_cell(t->csv, i, ccolor));
            goto done;
        }
        if (!(c->name = strdup(trv_csv_cell(t->csv, i, t->col[0])))) {
            st = trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
            goto done;
        }
        cl->n++;
    }
done:
    geo_class_csv_free(t);
    if (st)
        geo_classes_free(cl);
    else
        *out = cl;
    return st;
}

/* ---- rasters ----------------------------------------------------------- */

trv_status geo_raster_new(trv_ctx *ctx, const geo_grid *grid, geo_type type, geo_raster **out)
{
    *out = NULL;
    if (grid->nx <= 0 || grid->ny <= 0)
        return trv_error(ctx, TRV_ERR_INTERNAL, "empty grid %d x %d", grid->nx, grid->ny);
    geo_raster *r = calloc(1, sizeof *r);
    if (!r)
        return trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
    size_t n = (size_t)grid->nx * (size_t)grid->ny;
    r->type = type;
    if (type == GEO_F32)
        r->f32 = calloc(n, sizeof *r->f32);
    else
        r->u8 = calloc(n, 1);
    if ((!r->f32 && !r->u8) || geo_grid_copy(ctx, &r->grid, grid)) {
        geo_raster_free(r);
        return trv_error(ctx, TRV_ERR_NOMEM, "out of memory for a %d x %d raster", grid->nx, grid->ny);
    }
    *out = r;
    return TRV_OK;
}

void geo_raster_free(geo_raster *r)
{
    if (!r)
        return;
    geo_grid_clear(&r->grid);
    free(r->f32);
    free(r->u8);
    free(r->desc);
    free(r->unit);
    free(r);
}

trv_status geo_raster_set_label(trv_ctx *ctx, geo_raster *r, const char *desc, const char *unit)
{
    char *d = desc ? strdup(desc) : NULL, *u = unit ? strdup(unit) : NULL;
    if ((desc && !d) || (unit && !u)) {
        free(d);
        free(u);
        return trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
    }
    free(r->desc);
    free(r->unit);
    r->desc = d;
    r->unit = u;
    return TRV_OK;
}

int geo_raster_is_nodata(const geo_raster *r, size_t i)
{
    if (r->type == GEO_F32)
        return geo_f32_is_nodata(r->f32[i], r->has_nodata, r->nodata);
    return r->has_nodata && r->u8[i] == (unsigned char)r->nodata;
}

size_t geo_raster_count_valid(const geo_raster *r)
{
    size_t n = (size_t)r->grid.nx * (size_t)r->grid.ny, valid = 0;
    for (size_t i = 0; i < n; i++)
        valid += !geo_raster_is_nodata(r, i);
    return valid;
}

int geo_raster_any_valid(const geo_raster *r)
{
    size_t n = (size_t)r->grid.nx * (size_t)r->grid.ny;
    for (size_t i = 0; i < n; i++)
        if (!geo_raster_is_nodata(r, i))
            return 1;
    return 0;
}

static trv_status open_raster(trv_ctx *ctx, const char *path, GDALDatasetH *ds, GDALRasterBandH *band)
{
    CPLErrorReset();
    *ds = GDALOpenEx(path, GDAL_OF_RASTER | GDAL_OF_READONLY, NULL, NULL, NULL);
    if (!*ds)
        return trv_error(ctx, TRV_ERR_IO, "cannot open '%s': %s", path, geo_open_msg(path));
    if (GDALGetRasterCount(*ds) < 1) {
        GDALClose(*ds);
        return trv_error(ctx, TRV_ERR_FORMAT, "'%s' has no raster band", path);
    }
    *band = GDALGetRasterBand(*ds, 1);
    return TRV_OK;
}

/* The grid of ds (size, geotransform, CRS). */
static trv_status grid_of(trv_ctx *ctx, GDALDatasetH ds, const char *path, geo_grid *g)
{
    memset(g, 0, sizeof *g);
    g->nx = GDALGetRasterXSize(ds);
    g->ny = GDALGetRasterYSize(ds);
    if (GDALGetGeoTransform(ds, g->gt) != CE_None)
        return trv_error(ctx, TRV_ERR_CRS, "'%s' has no georeferencing (geotransform)", path);
    if (g->gt[2] != 0 || g->gt[4] != 0)
        return trv_error(ctx, TRV_ERR_GRID, "'%s' is rotated; warp it north-up first (gdalwarp)", path);
    if (g->gt[1] <= 0 || g->gt[5] >= 0)
        return trv_error(ctx, TRV_ERR_GRID, "'%s' is not north-up (pixel size %g x %g)", path, g->gt[1], g->gt[5]);
    OGRSpatialReferenceH srs = GDALGetSpatialRef(ds);
    if (srs) {
        g->wkt = geo_srs_wkt(srs);
        if (!g->wkt)
            return trv_error(ctx, TRV_ERR_CRS, "cannot read the CRS of '%s'", path);
    }
    return TRV_OK;
}

trv_status geo_grid_read(trv_ctx *ctx, const char *path, geo_grid *out)
{
    GDALDatasetH ds;
    GDALRasterBandH band;
    trv_status st = open_raster(ctx, path, &ds, &band);
    if (st)
        return st;
    st = grid_of(ctx, ds, path, out);
    if (st)
        geo_grid_clear(out);
    GDALClose(ds);
    return st;
}

/* ---- reading, whole or by windows ---------------------------------------- */

struct geo_raster_src {
    GDALDatasetH ds;
    GDALRasterBandH band;
    geo_type type;
    geo_grid grid;
    int has_nd;             /* the file's nodata, as GDAL gives it */
    double nd;
    int byte;               /* 1: the band is Byte, read as it is */
    int native;             /* 1: the band's type is the one asked (its blocks can be read as they are) */
    int bx, by;             /* the band's block size */
    unsigned char *blk;     /* one block, for windows that are one block (read_one_block) */
    char *path;
};

void geo_raster_close(geo_raster_src *s)
{
    if (!s)
        return;
    if (s->ds)
        GDALClose(s->ds);
    geo_grid_clear(&s->grid);
    free(s->blk);
    free(s->path);
    free(s);
}

trv_status geo_raster_open(trv_ctx *ctx, const char *path, geo_type type, geo_raster_src **out)
{
    *out = NULL;
    geo_raster_src *s = calloc(1, sizeof *s);
    if (!s || !(s->path = strdup(path))) {
        free(s);
        return trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
    }
    trv_status st = open_raster(ctx, path, &s->ds, &s->band);
    if (st) {
        s->ds = NULL;
        geo_raster_close(s);
        return st;
    }
    if ((st = grid_of(ctx, s->ds, path, &s->grid))) {
        geo_raster_close(s);
        return st;
    }
    s->type = type;
    s->nd = GDALGetRasterNoDataValue(s->band, &s->has_nd);
    GDALDataType native = GDALGetRasterDataType(s->band);
    s->byte = native == GDT_Byte;
    s->native = (type == GEO_F32 && native == GDT_Float32) || (type == GEO_U8 && native == GDT_Byte);
    GDALGetBlockSize(s->band, &s->bx, &s->by);
    *out = s;
    return TRV_OK;
}

const geo_grid *geo_raster_src_grid(const geo_raster_src *s) { return &s->grid; }

int geo_raster_src_bands(const geo_raster_src *s) { return GDALGetRasterCount(s->ds); }

trv_status geo_raster_src_band(trv_ctx *ctx, geo_raster_src *s, int k)
{
    GDALRasterBandH b = k >= 1 && k <= GDALGetRasterCount(s->ds) ? GDALGetRasterBand(s->ds, k) : NULL;
    if (!b)
        return trv_error(ctx, TRV_ERR_INTERNAL, "'%s' has no band %d", s->path, k);
    s->band = b;
    s->nd = GDALGetRasterNoDataValue(b, &s->has_nd);
    s->byte = GDALGetRasterDataType(b) == GDT_Byte;
    return TRV_OK;
}

trv_status geo_raster_src_alloc(trv_ctx *ctx, const geo_raster_src *s, geo_raster **out)
{
    *out = NULL;
    geo_raster *r = NULL;
    trv_status st = geo_raster_new(ctx, &s->grid, s->type, &r);
    if (st)
        return st;
    const char *desc = GDALGetDescription(s->band), *unit = GDALGetRasterUnitType(s->band);
    if ((st = geo_raster_set_label(ctx, r, desc && *desc ? desc : NULL, unit && *unit ? unit : NULL))) {
        geo_raster_free(r);
        return st;
    }
    if (s->type == GEO_F32) {
        /* internally a Float32 layer always has a finite nodata value, and a
         * non-finite cell (NaN, +Inf, -Inf) is nodata */
        r->has_nodata = 1;
        r->nodata = s->has_nd && isfinite(s->nd) ? (double)(float)s->nd : -9999.0;
    } else {
        r->has_nodata = s->has_nd && s->nd >= 0 && s->nd <= 255 && s->nd == floor(s->nd);
        r->nodata = r->has_nodata ? s->nd : 0;
    }
    *out = r;
    return TRV_OK;
}

/* The same rule on an nx x ny window stored stride floats a row at f. */
static void finite_at(float *f, size_t stride, int nx, int ny, float nodata)
{
    for (int y = 0; y < ny; y++) {
        float *row = f + (size_t)y * stride;
        for (int x = 0; x < nx; x++)
            if (!isfinite(row[x]))
                row[x] = nodata;
    }
}

/* geo_raster_read's rule: a non-finite Float32 cell of the window is nodata. */
static void finite_or_nodata(geo_raster *r, int x0, int y0, int nx, int ny)
{
    if (r->type == GEO_F32)
        finite_at(r->f32 + (size_t)y0 * r->grid.nx + x0, (size_t)r->grid.nx, nx, ny, (float)r->nodata);
}

/* A Byte layer's window from a band of another type: every value an
 * integer in 0..255, checked row by row. */
static trv_status read_bytes_rows(trv_ctx *ctx, geo_raster_src *s, int x0, int y0, int nx, int ny,
                                  unsigned char *dst, size_t stride);

/* rows y0 .. y0 + ny - 1 of the band into r's rows 0 .. ny - 1 */
static trv_status read_bytes_checked_at(trv_ctx *ctx, geo_raster_src *s, geo_raster *r, int y0, int ny)
{
    return read_bytes_rows(ctx, s, 0, y0, s->grid.nx, ny, r->u8, (size_t)s->grid.nx);
}

/* cell (x0 + x, y0 + y) into dst[y stride + x] */
static trv_status read_bytes_rows(trv_ctx *ctx, geo_raster_src *s, int x0, int y0, int nx, int ny,
                                  unsigned char *dst, size_t stride)
{
    double *row = malloc((size_t)nx * sizeof *row);
    if (!row)
        return trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
    trv_status st = TRV_OK;
    for (int y = y0; y < y0 + ny && !st; y++) {
        if (GDALRasterIO(s->band, GF_Read, x0, y, nx, 1, row, nx, 1, GDT_Float64, 0, 0) != CE_None) {
            st = trv_error(ctx, TRV_ERR_FORMAT, "cannot read '%s': %s", s->path, geo_gdal_msg(NULL));
            break;
        }
        for (int x = 0; x < nx; x++) {
            double v = row[x];
            if (!(v >= 0 && v <= 255) || v != floor(v)) {
                st = trv_error(ctx, TRV_ERR_DATA, "'%s': value %g at column %d, row %d does not fit a Byte layer",
                               s->path, v, x0 + x, y);
                break;
            }
            dst[(size_t)(y - y0) * stride + x] = (unsigned char)v;
        }
    }
    free(row);
    return st;
}

/* A window that is one whole block of a band of the type asked (the last
 * column's and row's blocks cut at the grid's edge): straight from the
 * driver into s->blk (GDALReadBlock, past GDAL's block cache), then row by
 * row into r: the values GDALRasterIO gives. 0: not such a window. */
static int one_block(const geo_raster_src *s, int x0, int y0, int nx, int ny)
{
    const geo_grid *g = &s->grid;
    return s->native && s->bx > 0 && s->by > 0 && x0 % s->bx == 0 && y0 % s->by == 0 &&
           nx == (g->nx - x0 < s->bx ? g->nx - x0 : s->bx) && ny == (g->ny - y0 < s->by ? g->ny - y0 : s->by);
}

static trv_status read_one_block(trv_ctx *ctx, geo_raster_src *s, int x0, int y0, int nx, int ny, unsigned char *dst,
                                 size_t stride)
{
    size_t size = s->type == GEO_F32 ? 4 : 1;
    if (!s->blk && !(s->blk = malloc((size_t)s->bx * (size_t)s->by * size)))
        return trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
    if (GDALReadBlock(s->band, x0 / s->bx, y0 / s->by, s->blk) != CE_None)
        return trv_error(ctx, TRV_ERR_FORMAT, "cannot read '%s': %s", s->path, geo_gdal_msg(NULL));
    for (int y = 0; y < ny; y++)
        memcpy(dst + (size_t)y * stride * size, s->blk + (size_t)y * s->bx * size, (size_t)nx * size);
    return TRV_OK;
}

trv_status geo_raster_read_window(trv_ctx *ctx, geo_raster_src *s, geo_raster *r, int x0, int y0, int nx, int ny)
{
    const geo_grid *g = &s->grid;
    if (r->type != s->type || r->grid.nx != g->nx || r->grid.ny != g->ny)
        return trv_error(ctx, TRV_ERR_INTERNAL, "'%s': a raster of another grid or type", s->path);
    size_t at = x0 >= 0 && y0 >= 0 ? (size_t)y0 * g->nx + x0 : 0;
    void *dst = s->type == GEO_F32 ? (void *)(r->f32 + at) : (void *)(r->u8 + at);
    return geo_raster_read_window_to(ctx, s, x0, y0, nx, ny, dst, (size_t)g->nx, (float)r->nodata);
}

trv_status geo_raster_read_window_to(trv_ctx *ctx, geo_raster_src *s, int x0, int y0, int nx, int ny, void *dst,
                                     size_t stride, float nodata)
{
    const geo_grid *g = &s->grid;
    if (x0 < 0 || y0 < 0 || nx <= 0 || ny <= 0 || x0 + nx > g->nx || y0 + ny > g->ny || stride < (size_t)nx)
        return trv_error(ctx, TRV_ERR_INTERNAL, "'%s': window %d, %d, %d x %d outside the %d x %d grid", s->path, x0,
                         y0, nx, ny, g->nx, g->ny);
    CPLErrorReset();
    if (s->type == GEO_U8 && !s->byte)
        return read_bytes_rows(ctx, s, x0, y0, nx, ny, dst, stride);
    trv_status st = TRV_OK;
    int size = s->type == GEO_F32 ? 4 : 1;
    if (one_block(s, x0, y0, nx, ny))
        st = read_one_block(ctx, s, x0, y0, nx, ny, dst, stride);
    else if (GDALRasterIO(s->band, GF_Read, x0, y0, nx, ny, dst, nx, ny, s->type == GEO_F32 ? GDT_Float32 : GDT_Byte,
                          size, (GSpacing)size * (GSpacing)stride) != CE_None)
        st = trv_error(ctx, TRV_ERR_FORMAT, "cannot read '%s': %s", s->path, geo_gdal_msg(NULL));
    if (!st && s->type == GEO_F32) /* the rule every window follows */
        finite_at(dst, stride, nx, ny, nodata);
    return st;
}

/* The whole band where its type is r's, block by block straight from the
 * driver (GDALReadBlock, past GDAL's block cache, whose allocations cost
 * about as much as the decoding): the values one GDALRasterIO gives. */
static trv_status read_blocks(trv_ctx *ctx, geo_raster_src *s, geo_raster *r)
{
    const geo_grid *g = &s->grid;
    int bx = 0, by = 0;
    size_t size = s->type == GEO_F32 ? 4 : 1;
    GDALGetBlockSize(s->band, &bx, &by);
    unsigned char *blk = bx > 0 && by > 0 ? malloc((size_t)bx * (size_t)by * size) : NULL;
    if (!blk)
        return trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
    unsigned char *dst = s->type == GEO_F32 ? (unsigned char *)r->f32 : r->u8;
    trv_status st = TRV_OK;
    CPLErrorReset();
    for (int j = 0; j < (g->ny + by - 1) / by && !st; j++)
        for (int i = 0; i < (g->nx + bx - 1) / bx && !st; i++) {
            if (GDALReadBlock(s->band, i, j, blk) != CE_None) {
                st = trv_error(ctx, TRV_ERR_FORMAT, "cannot read '%s': %s", s->path, geo_gdal_msg(NULL));
                break;
            }
            int w = g->nx - i * bx < bx ? g->nx - i * bx : bx, h = g->ny - j * by < by ? g->ny - j * by : by;
            for (int y = 0; y < h; y++)
                memcpy(dst + ((size_t)(j * by + y) * g->nx + (size_t)i * bx) * size, blk + (size_t)y * bx * size,
                       (size_t)w * size);
        }
    free(blk);
    if (!st)
        finite_or_nodata(r, 0, 0, g->nx, g->ny);
    return st;
}

trv_status geo_raster_read(trv_ctx *ctx, const char *path, geo_type type, geo_raster **out)
{
    *out = NULL;
    geo_raster_src *s;
    geo_raster *r = NULL;
    trv_status st = geo_raster_open(ctx, path, type, &s);
    if (st)
        return st;
    GDALDataType native = GDALGetRasterDataType(s->band);
    int same = (type == GEO_F32 && native == GDT_Float32) || (type == GEO_U8 && native == GDT_Byte);
    if (!(st = geo_raster_src_alloc(ctx, s, &r)) &&
        /* a GeoTIFF with the predictor tiff_read.c undoes (the file
         * decides: band 1 is its only band) */
        (st = same && geo_tiff_read(path, s->grid.nx, s->grid.ny, type, type == GEO_F32 ? (void *)r->f32 : r->u8)
                  ? (finite_or_nodata(r, 0, 0, s->grid.nx, s->grid.ny), TRV_OK)
              : same ? read_blocks(ctx, s, r)
                     : geo_raster_read_window(ctx, s, r, 0, 0, s->grid.nx, s->grid.ny))) {
        geo_raster_free(r);
        r = NULL;
    }
    geo_raster_close(s);
    *out = r;
    return st;
}

/* ---- windowed categorical read ----------------------------------------- */

struct geo_cat_src {
    GDALDatasetH ds;
    GDALRasterBandH band;
    geo_grid g, win;        /* the file's grid; the window's (its CRS g's, not owned) */
    int c0, r0;             /* the window's first column and row in the file */
    int has_nd;
    double nd;
    double *row;            /* one row of the widest window read so far */
    int row_cap;            /* its cells */
    char *path;
};

void geo_cat_close(geo_cat_src *s)
{
    if (!s)
        return;
    if (s->ds)
        GDALClose(s->ds);
    geo_grid_clear(&s->g);
    free(s->row);
    free(s->path);
    free(s);
}

const geo_grid *geo_cat_grid(const geo_cat_src *s) { return &s->win; }

/* The window over target (plus two cells), in the file's cells. */
static trv_status cat_window(trv_ctx *ctx, geo_cat_src *s, const geo_grid *target)
{
    const char *path = s->path;
    const geo_grid *g = &s->g;
    OGRCoordinateTransformationH ct = NULL;
    trv_status st = geo_ct_new(ctx, target->wkt, g->wkt, &ct);
    if (st)
        return trv_error_prefix(ctx, st, "'%s'", path);
    /* the target's footprint in source coordinates, edges densified */
    double txmin = target->gt[0], txmax = target->gt[0] + target->nx * target->gt[1];
    double tymax = target->gt[3], tymin = target->gt[3] + target->ny * target->gt[5];
    double sxmin, symin, sxmax, symax;
    int ok = OCTTransformBounds(ct, txmin, tymin, txmax, tymax, &sxmin, &symin, &sxmax, &symax, 21);
    OCTDestroyCoordinateTransformation(ct);
    if (!ok)
        return trv_error(ctx, TRV_ERR_CRS, "'%s': cannot transform the target extent into its CRS: %s", path,
                         geo_gdal_msg(NULL));
    double c0 = floor((sxmin - g->gt[0]) / g->gt[1]) - 2, c1 = ceil((sxmax - g->gt[0]) / g->gt[1]) + 2;
    double r0 = floor((symax - g->gt[3]) / g->gt[5]) - 2, r1 = ceil((symin - g->gt[3]) / g->gt[5]) + 2;
    c0 = fmax(c0, 0);
    r0 = fmax(r0, 0);
    c1 = fmin(c1, g->nx);
    r1 = fmin(r1, g->ny);
    if (c1 <= c0 || r1 <= r0)
        return trv_error(ctx, TRV_ERR_GRID, "'%s' does not overlap the target grid", path);
    s->c0 = (int)c0, s->r0 = (int)r0;
    s->win.nx = (int)(c1 - c0);
    s->win.ny = (int)(r1 - r0);
    memcpy(s->win.gt, g->gt, sizeof s->win.gt);
    s->win.gt[0] = g->gt[0] + c0 * g->gt[1];
    s->win.gt[3] = g->gt[3] + r0 * g->gt[5];
    s->win.wkt = g->wkt;
    return TRV_OK;
}

trv_status geo_cat_open(trv_ctx *ctx, const char *path, const geo_grid *target, geo_cat_src **out)
{
    *out = NULL;
    geo_cat_src *s = calloc(1, sizeof *s);
    if (!s || !(s->path = strdup(path))) {
        free(s);
        return trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
    }
    trv_status st = open_raster(ctx, path, &s->ds, &s->band);
    if (st)
        s->ds = NULL;
    else if (!(st = grid_of(ctx, s->ds, path, &s->g)) && !s->g.wkt)
        st = trv_error(ctx, TRV_ERR_CRS, "'%s' has no CRS", path);
    if (!st)
        st = cat_window(ctx, s, target);
    if (st) {
        geo_cat_close(s);
        return st;
    }
    s->nd = GDALGetRasterNoDataValue(s->band, &s->has_nd);
    *out = s;
    return TRV_OK;
}

static int cat_nodata(const geo_cat_src *s, double v) { return s->has_nd && (v == s->nd || (isnan(s->nd) && isnan(v))); }

/* A class code: an integer 1..254 (the rule cat_code reports by). */
static int cat_class(double v) { return v >= 1 && v <= 254 && v == floor(v); }

/* A value cat_code takes without an error: nodata or a class code. */
static int cat_fine(const geo_cat_src *s, double v) { return cat_nodata(s, v) || cat_class(v); }

/* One value of the file as a class code in *code (0: nodata). */
static trv_status cat_code(trv_ctx *ctx, const geo_cat_src *s, double v, int col, int row, unsigned char *code)
{
    *code = 0;
    if (cat_nodata(s, v))
        return TRV_OK;
    if (v == 0)
        return trv_error(ctx, TRV_ERR_DATA,
                         "'%s': class code 0 at column %d, row %d, but 0 is reserved for nodata (declare it "
                         "as the nodata value, or renumber the classes from 1)",
                         s->path, col, row);
    if (!cat_class(v))
        return trv_error(ctx, TRV_ERR_DATA, "'%s': value %g at column %d, row %d is not a class code (1..254)",
                         s->path, v, col, row);
    *code = (unsigned char)v;
    return TRV_OK;
}

trv_status geo_cat_rows(trv_ctx *ctx, geo_cat_src *s, int y0, int ny, unsigned char *dst)
{
    return geo_cat_window(ctx, s, 0, y0, s->win.nx, ny, dst);
}

trv_status geo_cat_window(trv_ctx *ctx, geo_cat_src *s, int x0, int y0, int nx, int ny, unsigned char *dst)
{
    if (y0 < 0 || ny < 1 || y0 + ny > s->win.ny || x0 < 0 || nx < 1 || x0 + nx > s->win.nx)
        return trv_error(ctx, TRV_ERR_INTERNAL, "'%s': window columns %d to %d, rows %d to %d outside its %d x %d",
                         s->path, x0, x0 + nx - 1, y0, y0 + ny - 1, s->win.nx, s->win.ny);
    if (nx > s->row_cap) {
        double *row = realloc(s->row, (size_t)nx * sizeof *row);
        if (!row)
            return trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
        s->row = row, s->row_cap = nx;
    }
    CPLErrorReset();
    for (int y = y0; y < y0 + ny; y++) {
        int sy = s->r0 + y;
        if (GDALRasterIO(s->band, GF_Read, s->c0 + x0, sy, nx, 1, s->row, nx, 1, GDT_Float64, 0, 0) != CE_None)
            return trv_error(ctx, TRV_ERR_FORMAT, "cannot read '%s': %s", s->path, geo_gdal_msg(NULL));
        for (int x = 0; x < nx; x++) {
            trv_status st = cat_code(ctx, s, s->row[x], s->c0 + x0 + x, sy, dst + (size_t)(y - y0) * nx + x);
            if (st)
                return st;
        }
    }
    return TRV_OK;
}

/* The scan's first error so far: at window row `row`, column `col` (-1:
 * the row's read failed, which a whole row's read meets before its cells),
 * the value read there or GDAL's message. */
typedef struct cat_first {
    int row, col;
    double v;
    char msg[512];
} cat_first;

/* A scan tile: columns x0 .. x0 + nx - 1, rows y0 .. y0 + ny - 1 of the
 * window, into buf (one read; when it fails, row by row to find the first
 * row that does: a whole row's read fails there). Its row-major first
 * error, if before f's, goes to f; its data cells are added to *valid. */
static void cat_scan_tile(const geo_cat_src *s, int x0, int y0, int nx, int ny, double *buf, cat_first *f,
                          size_t *valid)
{
    int rows = ny;
    CPLErrorReset();
    if (GDALRasterIO(s->band, GF_Read, s->c0 + x0, s->r0 + y0, nx, ny, buf, nx, ny, GDT_Float64, 0, 0) != CE_None)
        for (int y = 0; y < rows; y++) {
            CPLErrorReset();
            if (GDALRasterIO(s->band, GF_Read, s->c0 + x0, s->r0 + y0 + y, nx, 1, buf + (size_t)y * nx, nx, 1,
                             GDT_Float64, 0, 0) == CE_None)
                continue;
            if (y0 + y < f->row || (y0 + y == f->row && f->col >= 0)) {
                f->row = y0 + y, f->col = -1;
                snprintf(f->msg, sizeof f->msg, "%s", geo_gdal_msg(NULL));
            }
            rows = y;
            break;
        }
    for (int y = 0; y < rows; y++)
        for (int x = 0; x < nx; x++) {
            double v = buf[(size_t)y * nx + x];
            if (cat_fine(s, v)) {
                *valid += !cat_nodata(s, v);
                continue;
            }
            if (y0 + y < f->row || (y0 + y == f->row && x0 + x < f->col))
                f->row = y0 + y, f->col = x0 + x, f->v = v;
            return;
        }
}

/* The next edge after p of a scan's tiles of `size` cells (edges at its
 * multiples in the file's cells, off the window's first cell `origin`),
 * at most n. */
static int cat_edge(int p, int origin, int size, int n)
{
    int e = ((origin + p) / size + 1) * size - origin;
    return e < n ? e : n;
}

void geo_cat_scan_tile(int cols, int rows, int bw, int bh, int *tw, int *th)
{
    cols = cols < 1 ? 1 : cols, rows = rows < 1 ? 1 : rows, bw = bw < 1 ? 1 : bw, bh = bh < 1 ? 1 : bh;
    *tw = bw > cols ? bw : cols / bw * bw;
    *th = bh > rows ? bh : rows / bh * bh;
    long cells = (long)cols * rows;
    if (*tw > cols && bh <= rows)
        *th = cells / *tw / bh > 1 ? (int)(cells / *tw / bh * bh) : bh;
    else if (*th > rows && bw <= cols)
        *tw = cells / *th / bw > 1 ? (int)(cells / *th / bw * bw) : bw;
}

trv_status geo_cat_scan(trv_ctx *ctx, geo_cat_src *s, int cols, int rows, size_t *valid)
{
    int bw = 0, bh = 0, tw, th;
    GDALGetBlockSize(s->band, &bw, &bh);
    geo_cat_scan_tile(cols, rows, bw, bh, &tw, &th);
    const int bx = tw < s->win.nx ? tw : s->win.nx, by = th < s->win.ny ? th : s->win.ny; /* a tile at most */
    geo_block_cache_reserve(0, 0); /* GDAL's cache bounded: each block is met by one tile's read, so no share of its own */
    double *buf = malloc((size_t)bx * by * sizeof *buf);
    *valid = 0;
    if (!buf)
        return trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
    cat_first f = {.row = s->win.ny, .col = 0};
    for (int y0 = 0, y1; y0 < s->win.ny && f.row == s->win.ny; y0 = y1) {
        y1 = cat_edge(y0, s->r0, th, s->win.ny);
        for (int x0 = 0, x1; x0 < s->win.nx; x0 = x1) {
            x1 = cat_edge(x0, s->c0, tw, s->win.nx);
            cat_scan_tile(s, x0, y0, x1 - x0, y1 - y0, buf, &f, valid);
        }
    }
    free(buf);
    if (f.row == s->win.ny)
        return TRV_OK;
    if (f.col < 0)
        return trv_error(ctx, TRV_ERR_FORMAT, "cannot read '%s': %s", s->path, f.msg);
    unsigned char code;
    return cat_code(ctx, s, f.v, s->c0 + f.col, s->r0 + f.row, &code);
}

trv_status geo_raster_read_categorical_for(trv_ctx *ctx, const char *path, const geo_grid *target,
                                           geo_raster **out)
{
    *out = NULL;
    geo_cat_src *s = NULL;
    geo_raster *r = NULL;
    trv_status st = geo_cat_open(ctx, path, target, &s);
    if (!st && !(st = geo_raster_new(ctx, geo_cat_grid(s), GEO_U8, &r))) {
        r->has_nodata = 1;
        r->nodata = 0;
        st = geo_cat_rows(ctx, s, 0, r->grid.ny, r->u8);
    }
    geo_cat_close(s);
    if (st)
        geo_raster_free(r);
    else
        *out = r;
    return st;
}

/* ---- GeoTIFF output --------------------------------------------------- */

static trv_status set_classes(trv_ctx *ctx, GDALRasterBandH band, const geo_raster *r, const char *path)
{
    const geo_classes *cl = r->classes;
    int maxcode = (int)r->nodata;
    for (int i = 0; i < cl->n; i++)
        if (cl->c[i].code > maxcode)
            maxcode = cl->c[i].code;
    GDALColorTableH ct = GDALCreateColorTable(GPI_RGB);
    char **names = NULL;
    for (int v = 0; v <= maxcode; v++) {
        int k = geo_classes_find(cl, v);
        GDALColorEntry e = {0, 0, 0, 0}; /* unused codes and nodata: transparent */
        if (k >= 0 && !(r->has_nodata && v == (int)r->nodata))
            e = (GDALColorEntry){cl->c[k].rgb[0], cl->c[k].rgb[1], cl->c[k].rgb[2], 255};
        GDALSetColorEntry(ct, v, &e);
        names = CSLAddString(names, k >= 0 ? cl->c[k].name : "");
    }
    int bad = GDALSetRasterColorTable(band, ct) != CE_None || GDALSetRasterCategoryNames(band, names) != CE_None ||
              GDALSetRasterColorInterpretation(band, GCI_PaletteIndex) != CE_None;
    GDALDestroyColorTable(ct);
    CSLDestroy(names);
    if (bad)
        return trv_error(ctx, TRV_ERR_IO, "cannot write the colour table of '%s': %s", path, geo_gdal_msg(NULL));
    return TRV_OK;
}

/* Band statistics as metadata, so that viewers (QGIS) stretch the layer
 * right without scanning it: core/moments.h's exact sums, the values
 * geo_block_writer gives the same cells. */
static void set_statistics(GDALRasterBandH band, const geo_raster *r)
{
    size_t n = (size_t)r->grid.nx * (size_t)r->grid.ny;
    trv_moments m;
    trv_moments_init(&m);
    for (size_t i = 0; i < n; i++) {
        if (geo_raster_is_nodata(r, i))
            continue;
        trv_moments_add(&m, r->type == GEO_F32 ? r->f32[i] : r->u8[i]);
    }
    if (m.count == 0)
        return;
    double mean, std;
    trv_moments_mean_std(&m, &mean, &std);
    GDALSetRasterStatistics(band, m.min, m.max, mean, std);
}

trv_status geo_raster_write(trv_ctx *ctx, const geo_raster *r, const char *path, const trv_meta *meta)
{
    return geo_raster_write_threads(ctx, r, path, meta, 1);
}

/* A GTiff at path with r's size, type and header (CRS, nodata, label,
 * metadata, colour table), creation options opts; no cell written. */
void *geo_tiff_create(trv_ctx *ctx, const geo_raster *r, const char *path, const trv_meta *meta,
                      const char *const *opts, trv_status *st)
{
    GDALDriverH drv = GDALGetDriverByName("GTiff");
    if (!drv) {
        *st = trv_error(ctx, TRV_ERR_INTERNAL, "GDAL has no GTiff driver (call geo_init first)");
        return NULL;
    }
    CPLErrorReset();
    GDALDatasetH ds = GDALCreate(drv, path, r->grid.nx, r->grid.ny, 1, r->type == GEO_F32 ? GDT_Float32 : GDT_Byte,
                                 (char **)opts);
    if (!ds) {
        *st = trv_error(ctx, TRV_ERR_IO, "cannot create '%s': %s", path, geo_gdal_msg(NULL));
        return NULL;
    }
    GDALRasterBandH band = GDALGetRasterBand(ds, 1);
    *st = TRV_OK;
    GDALSetGeoTransform(ds, (double *)r->grid.gt);
    if (r->grid.wkt && GDALSetProjection(ds, r->grid.wkt) != CE_None)
        *st = trv_error(ctx, TRV_ERR_CRS, "cannot write the CRS of '%s': %s", path, geo_gdal_msg(NULL));
    if (!*st && r->has_nodata)
        GDALSetRasterNoDataValue(band, r->nodata);
    if (!*st && r->desc)
        GDALSetDescription(band, r->desc);
    if (!*st && r->unit)
        GDALSetRasterUnitType(band, r->unit);
    if (!*st && meta)
        geo_meta_apply(ds, meta);
    if (!*st && r->type == GEO_U8 && r->classes)
        *st = set_classes(ctx, band, r, path);
    return ds;
}

trv_status geo_raster_write_threads(trv_ctx *ctx, const geo_raster *r, const char *path, const trv_meta *meta,
                                    int threads)
{
    char nthreads[32];
    snprintf(nthreads, sizeof nthreads, "NUM_THREADS=%d", threads);
    const char *opts[] = {"TILED=YES",     "BLOCKXSIZE=256", "BLOCKYSIZE=256", "COMPRESS=DEFLATE",
                          r->type == GEO_F32 ? "PREDICTOR=3" : "PREDICTOR=2", "BIGTIFF=IF_SAFER",
                          threads > 1 ? nthreads : NULL, NULL};
    trv_status st;
    GDALDatasetH ds = geo_tiff_create(ctx, r, path, meta, opts, &st);
    if (!ds)
        return st;
    GDALRasterBandH band = GDALGetRasterBand(ds, 1);
    if (!st && r->type == GEO_F32)
        set_statistics(band, r);
    if (!st) {
        void *data = r->type == GEO_F32 ? (void *)r->f32 : (void *)r->u8;
        if (GDALRasterIO(band, GF_Write, 0, 0, r->grid.nx, r->grid.ny, data, r->grid.nx, r->grid.ny,
                         r->type == GEO_F32 ? GDT_Float32 : GDT_Byte, 0, 0) != CE_None)
            st = trv_error(ctx, TRV_ERR_IO, "cannot write '%s': %s", path, geo_gdal_msg(NULL));
    }
    CPLErrorReset();
    GDALClose(ds);
    if (!st && CPLGetLastErrorType() >= CE_Failure)
        st = trv_error(ctx, TRV_ERR_IO, "cannot write '%s': %s", path, geo_gdal_msg(NULL));
    return st;
}

/* ---- rows for the block reader (block.c) ------------------------------ */

double geo_raster_src_nodata(const geo_raster_src *s, int *has_nodata)
{
    if (s->type == GEO_F32) {
        *has_nodata = 1;
        return s->has_nd && isfinite(s->nd) ? (double)(float)s->nd : -9999.0;
    }
    *has_nodata = s->has_nd && s->nd >= 0 && s->nd <= 255 && s->nd == floor(s->nd);
    return *has_nodata ? s->nd : 0;
}

trv_status geo_raster_read_rows(trv_ctx *ctx, geo_raster_src *s, int y0, int ny, void *dst)
{
    const geo_grid *g = &s->grid;
    if (y0 < 0 || ny <= 0 || y0 + ny > g->ny)
        return trv_error(ctx, TRV_ERR_INTERNAL, "'%s': rows %d to %d outside the %d rows", s->path, y0, y0 + ny - 1,
                         g->ny);
    /* a raster header over dst whose row 0 is row y0: the window readers' rules, unchanged */
    geo_raster r = {.grid = {.nx = g->nx, .ny = ny}, .type = s->type};
    int has;
    r.nodata = geo_raster_src_nodata(s, &has);
    r.has_nodata = has;
    if (s->type == GEO_F32)
        r.f32 = dst;
    else
        r.u8 = dst;
    CPLErrorReset();
    if (s->type == GEO_U8 && !s->byte)
        return read_bytes_checked_at(ctx, s, &r, y0, ny);
    if (GDALRasterIO(s->band, GF_Read, 0, y0, g->nx, ny, dst, g->nx, ny, s->type == GEO_F32 ? GDT_Float32 : GDT_Byte, 0,
                     0) != CE_None)
        return trv_error(ctx, TRV_ERR_FORMAT, "cannot read '%s': %s", s->path, geo_gdal_msg(NULL));
    finite_or_nodata(&r, 0, 0, g->nx, ny);
    return TRV_OK;
}
