/* The run for the 3D view (web3d.h): the DEM's height tiles by level,
 * the layers' textures and index.json, staged into the caller's set. */
#include "export/web3d.h"

#include "core/json.h"
#include "core/tempfile.h"
#include "geo/block.h"
#include "render/render.h"
#include "run/run.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

exp_w3d_level exp_w3d_level_of(int nx, int ny, int k)
{
    exp_w3d_level l = {.step = 1 << k};
    l.nvx = (nx - 1) / l.step + 1;
    l.nvy = (ny - 1) / l.step + 1;
    l.ntx = l.nvx > 1 ? (l.nvx - 1 + EXP_W3D_T - 1) / EXP_W3D_T : 1;
    l.nty = l.nvy > 1 ? (l.nvy - 1 + EXP_W3D_T - 1) / EXP_W3D_T : 1;
    return l;
}

int exp_w3d_levels(int nx, int ny)
{
    int k = 0;
    for (exp_w3d_level l = exp_w3d_level_of(nx, ny, 0); l.nvx - 1 > EXP_W3D_T || l.nvy - 1 > EXP_W3D_T;)
        l = exp_w3d_level_of(nx, ny, ++k);
    return k + 1;
}

void exp_w3d_tile(const geo_raster *dem, int k, int tx, int ty, float *h)
{
    const int nx = dem->grid.nx, ny = dem->grid.ny, s = 1 << k;
    for (int j = 0; j < EXP_W3D_V; j++)
        for (int i = 0; i < EXP_W3D_V; i++) {
            long c = ((long)tx * EXP_W3D_T + i) * s, r = ((long)ty * EXP_W3D_T + j) * s;
            size_t at = (size_t)r * nx + (size_t)c;
            int in = c < nx && r < ny && !geo_raster_is_nodata(dem, at);
            h[j * EXP_W3D_V + i] = in ? dem->f32[at] : EXP_W3D_NODATA;
        }
}

trv_status exp_w3d_tile_rows(trv_ctx *ctx, const exp_w3d_rows *src, int k, int tx, int ty, float *buf, float *h)
{
    const int nx = src->nx, ny = src->ny, s = 1 << k;
    const long c0 = (long)tx * EXP_W3D_T * s, span = (long)EXP_W3D_T * s + 1;
    const int n = (int)(nx - c0 < span ? nx - c0 : span); /* c0 < nx: tx < ntx(k) */
    for (int j = 0; j < EXP_W3D_V; j++) {
        const long r = ((long)ty * EXP_W3D_T + j) * s;
        float *hj = h + (size_t)j * EXP_W3D_V;
        trv_status st = r < ny ? src->row(ctx, src->user, (int)r, (int)c0, n, buf) : TRV_OK;
        if (st)
            return st;
        for (int i = 0; i < EXP_W3D_V; i++) {
            const long at = (long)i * s; /* cell c0 + at of row r */
            int in = r < ny && at < n && !geo_f32_is_nodata(buf[at], src->has_nodata, src->nodata);
            hj[i] = in ? buf[at] : EXP_W3D_NODATA;
        }
    }
    return TRV_OK;
}

/* v as 4 little-endian bytes. */
static void put_le(float v, unsigned char *b)
{
    uint32_t u;
    memcpy(&u, &v, 4);
    for (int q = 0; q < 4; q++)
        b[q] = (unsigned char)(u >> (8 * q));
}

/* One tile's file, staged. */
static trv_status write_tile(trv_ctx *ctx, trv_outset *set, const char *tiles, const exp_w3d_rows *dem, int k,
                             int tx, int ty, float *row, float *h, unsigned char *buf)
{
    char leaf[48];
    snprintf(leaf, sizeof leaf, "%d_%d_%d.f32", k, tx, ty);
    char *final = trv_path_join(tiles, leaf);
    const char *tmp = final ? trv_outset_add(set, final) : NULL;
    if (!tmp) {
        free(final);
        return trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
    }
    trv_status st = exp_w3d_tile_rows(ctx, dem, k, tx, ty, row, h);
    if (st) {
        free(final);
        return st;
    }
    for (int i = 0; i < EXP_W3D_V * EXP_W3D_V; i++)
        put_le(h[i], buf + 4 * i);
    FILE *f = fopen(tmp, "wb");
    if (!f || fwrite(buf, 4, (size_t)EXP_W3D_V * EXP_W3D_V, f) != (size_t)EXP_W3D_V * EXP_W3D_V || ferror(f))
        st = trv_error(ctx, TRV_ERR_IO, "cannot write '%s': %s", final, strerror(errno ? errno : EIO));
    if (f && fclose(f) != 0 && !st)
        st = trv_error(ctx, TRV_ERR_IO, "cannot write '%s': %s", final, strerror(errno));
    free(final);
    return st;
}

/* exp_w3d_rows's reader on the DEM's file: one window of one row. */
static trv_status file_row(trv_ctx *ctx, void *user, int r, int c0, int n, float *dst)
{
    const exp_w3d_rows *d = user;
    return geo_raster_read_window_to(ctx, d->src, c0, r, n, 1, dst, (size_t)n, (float)d->nodata);
}

/* The cells of levels >= 1 (even rows and columns: level 1's vertices),
 * kept in a scratch file of Float32 (in $TMPDIR, unlinked when made) as
 * the range's scan reads the DEM, so the coarser levels read a quarter of
 * the cells from it instead of decoding the DEM again for each level. */
typedef struct half_grid {
    int fd;                 /* -1: none (one level) */
    int nx;                 /* its columns: (nx - 1) / 2 + 1 */
    float *tmp;             /* a window row's even cells */
} half_grid;

/* Window e's (w: e->nx cells a row) even rows' even cells into h's file. */
static trv_status half_put(trv_ctx *ctx, const half_grid *h, const geo_tile *e, const float *w)
{
    const int c = e->x0 + (e->x0 & 1), n = (e->x0 + e->nx - c + 1) / 2; /* the first even column; how many */
    for (int r = e->y0 + (e->y0 & 1); r < e->y0 + e->ny && n > 0; r += 2) {
        const float *wr = w + (size_t)(r - e->y0) * e->nx + (c - e->x0);
        for (int j = 0; j < n; j++)
            h->tmp[j] = wr[2 * j];
        errno = 0;
        if (!trv_fd_move(h->fd, h->tmp, sizeof *h->tmp * (size_t)n, ((off_t)(r / 2) * h->nx + c / 2) * 4, 1))
            return trv_error(ctx, TRV_ERR_IO, "cannot write the 3D view's scratch file in '%s': %s", trv_temp_dir(NULL),
                             strerror(errno ? errno : EIO));
    }
    return TRV_OK;
}

/* exp_w3d_rows's reader on the half grid, for levels >= 1 (r and c0 even):
 * cells c0, c0 + 2, .. of row r at dst[0], dst[2], .. (the odd places,
 * which a level >= 1 never reads, left as they are). */
static trv_status half_row(trv_ctx *ctx, void *user, int r, int c0, int n, float *dst)
{
    const half_grid *h = user;
    const int k = (n + 1) / 2;
    errno = 0;
    if (!trv_fd_move(h->fd, dst, sizeof *dst * (size_t)k, ((off_t)(r / 2) * h->nx + c0 / 2) * 4, 0))
        return trv_error(ctx, TRV_ERR_IO, "cannot read the 3D view's scratch file: %s", strerror(errno ? errno : EIO));
    for (int j = k - 1; j > 0; j--)
        dst[2 * j] = dst[j];
    return TRV_OK;
}

/* The columns of a group of tiles: a level's tiles go a group of tile
 * columns at a time, top to bottom, so the DEM's blocks under a group (two
 * 256-row strips of W3D_GROUP + 512 columns in GDAL's cache: open_dem) are
 * decoded once for level 0, whatever the DEM's width (the other levels
 * read the half grid, decoding nothing; the same order serves them). */
#define W3D_GROUP (EXP_W3D_T * 128)

/* Every level's tiles into dir/tiles, each read from the DEM's file a
 * row window at a time (exp_w3d_tile_rows): a row of at most
 * min(nx, T 2^k + 1) cells, never the DEM. */
static trv_status write_tiles(trv_ctx *ctx, trv_outset *set, const char *dir, const exp_w3d_rows *dem,
                              half_grid *hg, exp_w3d_info *info)
{
    char *tiles = trv_path_join(dir, "tiles");
    float *h = malloc(sizeof *h * EXP_W3D_V * EXP_W3D_V);
    unsigned char *buf = malloc((size_t)4 * EXP_W3D_V * EXP_W3D_V);
    exp_w3d_level top = exp_w3d_level_of(dem->nx, dem->ny, info->levels - 1);
    long span = (long)EXP_W3D_T * top.step + 1;
    float *row = malloc(sizeof *row * (size_t)(span < dem->nx ? span : dem->nx));
    trv_status st = !tiles || !h || !buf || !row ? trv_error(ctx, TRV_ERR_NOMEM, "out of memory") : TRV_OK;
    if (!st)
        st = trv_outset_mkdir(ctx, set, tiles);
    exp_w3d_rows half = *dem;
    half.row = half_row, half.user = hg;
    for (int k = 0; !st && k < info->levels; k++) {
        exp_w3d_level l = exp_w3d_level_of(dem->nx, dem->ny, k);
        const exp_w3d_rows *src = k > 0 && hg->fd >= 0 ? &half : dem;
        const int group = W3D_GROUP / (EXP_W3D_T * l.step) > 1 ? W3D_GROUP / (EXP_W3D_T * l.step) : 1;
        for (int g0 = 0; !st && g0 < l.ntx; g0 += group)
            for (int ty = 0; !st && ty < l.nty; ty++)
                for (int tx = g0; !st && tx < l.ntx && tx < g0 + group; tx++, info->tiles++)
                    st = write_tile(ctx, set, tiles, src, k, tx, ty, row, h, buf);
    }
    free(tiles);
    free(h);
    free(buf);
    free(row);
    return st;
}

/* The layers that become textures: name, layer of the run, drawn as a hillshade. */
static const struct {
    const char *name;
    run_id id;
    int hillshade;
} LAYERS[EXP_W3D_MAX_LAYERS] = {
    {"hillshade", RUN_DEM, 1}, {"speed", RUN_SPEED, 0}, {"cost", RUN_COST, 0}, {"gonogo", RUN_GONOGO, 0}};

static int same_grid(const geo_grid *a, const geo_grid *b)
{
    int same = a->nx == b->nx && a->ny == b->ny;
    for (int q = 0; q < 6; q++)
        same = same && fabs(a->gt[q] - b->gt[q]) <= 1e-6 * fabs(b->gt[1]);
    return same;
}

/* One texture, when its layer is in the run (on the DEM's grid). */
static trv_status write_texture(trv_ctx *ctx, trv_outset *set, const char *terrain, const char *dir, int k,
                                const geo_grid *dg, trv_json *js, exp_w3d_info *info)
{
    const char *file = run_file(LAYERS[k].id);
    char *in = trv_path_join(terrain, file), png[32];
    snprintf(png, sizeof png, "%s.png", LAYERS[k].name);
    char *final = trv_path_join(dir, png);
    struct stat sb;
    geo_grid g = {0};
    rnd_texture_info ti;
    trv_status st = !in || !final ? trv_error(ctx, TRV_ERR_NOMEM, "out of memory") : TRV_OK;
    if (!st && stat(in, &sb) == 0 && !(st = geo_grid_read(ctx, in, &g))) {
        if (!same_grid(&g, dg))
            st = trv_error(ctx, TRV_ERR_GRID, "'%s' is not on the grid of dem.tif (%d x %d cells): %d x %d",
                           in, dg->nx, dg->ny, g.nx, g.ny);
        const char *tmp = st ? NULL : trv_outset_add(set, final);
        if (!st && !tmp)
            st = trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
        if (!st)
            st = rnd_texture_png(ctx, in, LAYERS[k].hillshade, tmp, final, &ti);
        if (!st) {
            info->layers[info->nlayers++] = LAYERS[k].name;
            trv_json_obj(js, NULL);
            trv_json_str(js, "name", LAYERS[k].name);
            trv_json_str(js, "file", png);
            trv_json_str(js, "from", file);
            trv_json_str(js, "palette", ti.palette);
            if (!ti.categorical) {
                trv_json_num(js, "min", "%.10g", ti.lo);
                trv_json_num(js, "max", "%.10g", ti.hi);
            }
            trv_json_end(js);
        }
    }
    geo_grid_clear(&g);
    free(in);
    free(final);
    return st;
}

/* index.json's grid, levels and tiles. */
static void index_grid(trv_json *js, const geo_grid *g, const exp_w3d_info *info)
{
    trv_json_str(js, "format", "traverse-web3d");
    trv_json_int(js, "version", 1);
    trv_json_str(js, "crs", info->crs);
    trv_json_str(js, "wkt", g->wkt);
    trv_json_int(js, "nx", g->nx);
    trv_json_int(js, "ny", g->ny);
    trv_json_arr(js, "geotransform");
    for (int q = 0; q < 6; q++)
        trv_json_num(js, NULL, "%.17g", g->gt[q]);
    trv_json_end(js);
    trv_json_int(js, "tile_intervals", EXP_W3D_T);
    trv_json_num(js, "nodata", "%.1f", EXP_W3D_NODATA);
    trv_json_num(js, "height_min", "%.9g", info->zmin);
    trv_json_num(js, "height_max", "%.9g", info->zmax);
    trv_json_str(js, "tile_path", "tiles/{level}_{x}_{y}.f32");
    trv_json_arr(js, "levels");
    for (int k = 0; k < info->levels; k++) {
        exp_w3d_level l = exp_w3d_level_of(g->nx, g->ny, k);
        trv_json_obj(js, NULL);
        trv_json_int(js, "level", k);
        trv_json_int(js, "step", l.step);
        trv_json_int(js, "nvx", l.nvx);
        trv_json_int(js, "nvy", l.nvy);
        trv_json_int(js, "ntx", l.ntx);
        trv_json_int(js, "nty", l.nty);
        trv_json_end(js);
    }
    trv_json_end(js);
}

/* The DEM's data range (geo_raster_is_nodata's rule) by windows of
 * geo_block_cols() x geo_block_rows() cells: min and max are order-free,
 * so the whole DEM's range. */
static trv_status dem_range(trv_ctx *ctx, const char *path, const exp_w3d_rows *d, half_grid *hg,
                            exp_w3d_info *info)
{
    geo_tiling t = geo_tiling_make(d->nx, d->ny, geo_block_cols(), geo_block_rows());
    float *w = malloc(sizeof *w * (size_t)t.tw * (size_t)t.th);
    if (hg->fd >= 0)
        hg->tmp = malloc(sizeof *hg->tmp * ((size_t)t.tw / 2 + 1));
    trv_status st = w && (hg->fd < 0 || hg->tmp) ? TRV_OK : trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
    info->zmin = INFINITY, info->zmax = -INFINITY;
    for (int b = 0; !st && b < geo_tiling_count(&t); b++) {
        geo_tile e = geo_tiling_tile(&t, b);
        st = geo_raster_read_window_to(ctx, d->src, e.x0, e.y0, e.nx, e.ny, w, (size_t)e.nx, (float)d->nodata);
        if (!st && hg->fd >= 0)
            st = half_put(ctx, hg, &e, w);
        for (size_t i = 0; !st && i < (size_t)e.nx * e.ny; i++)
            if (!geo_f32_is_nodata(w[i], d->has_nodata, d->nodata))
                info->zmin = fmin(info->zmin, w[i]), info->zmax = fmax(info->zmax, w[i]);
    }
    free(w);
    if (!st && !(info->zmin <= info->zmax))
        st = trv_error(ctx, TRV_ERR_DATA, "'%s' holds no data", path);
    return st;
}

/* The DEM opened (no cell held) and checked: projected in metres, square
 * cells; its range. GDAL's block cache bounded (geo_block_cache_reserve):
 * two 256-row strips of a group of tiles' columns (write_tiles), 35 MB at
 * most whatever the DEM's size. */
static trv_status open_dem(trv_ctx *ctx, const char *path, exp_w3d_rows *d, half_grid *hg, exp_w3d_info *info)
{
    trv_status st = geo_raster_open(ctx, path, GEO_F32, &d->src);
    if (st)
        return st;
    const geo_grid *g = geo_raster_src_grid(d->src);
    if (!g->wkt || geo_crs_is_geographic(g->wkt) != 0 || fabs(geo_crs_metres_per_unit(g->wkt) - 1) > 1e-12)
        return trv_error(ctx, TRV_ERR_CRS, "'%s' is not in a projected CRS in metres: the 3D view needs metres "
                         "(warp the terrain, e.g. trv-krige --t_srs)", path);
    if (fabs(g->gt[1] + g->gt[5]) > 1e-9 * g->gt[1] || g->gt[1] <= 0)
        return trv_error(ctx, TRV_ERR_GRID, "'%s' has cells of %.10g x %.10g m: the 3D view needs square cells, "
                         "north up (gdalwarp -tr)", path, g->gt[1], -g->gt[5]);
    geo_crs_label(g->wkt, info->crs, sizeof info->crs);
    d->nx = info->nx = g->nx, d->ny = info->ny = g->ny;
    d->nodata = geo_raster_src_nodata(d->src, &d->has_nodata);
    d->row = file_row, d->user = d;
    info->levels = exp_w3d_levels(g->nx, g->ny);
    geo_block_cache_reserve(g->nx < W3D_GROUP + 512 ? g->nx : W3D_GROUP + 512, 2);
    if (info->levels > 1 && (hg->fd = trv_temp_fd(NULL, "trv-web3d")) < 0)
        return trv_error(ctx, TRV_ERR_IO, "cannot make a scratch file for the 3D view's tiles in '%s': %s",
                         trv_temp_dir(NULL), strerror(errno));
    hg->nx = (g->nx - 1) / 2 + 1;
    return dem_range(ctx, path, d, hg, info);
}

trv_status exp_web3d_run(trv_ctx *ctx, const char *terrain, trv_outset *set, exp_w3d_info *info)
{
    *info = (exp_w3d_info){0};
    exp_w3d_rows dem = {0};
    half_grid hg = {.fd = -1};
    char *dem_path = trv_path_join(terrain, run_file(RUN_DEM)), *dir = trv_path_join(terrain, "web3d");
    char *index = dir ? trv_path_join(dir, "index.json") : NULL;
    trv_json *js = trv_json_new();
    trv_status st = !dem_path || !index || !js ? trv_error(ctx, TRV_ERR_NOMEM, "out of memory") : TRV_OK;
    if (!st)
        st = open_dem(ctx, dem_path, &dem, &hg, info);
    if (!st)
        st = trv_outset_mkdir(ctx, set, dir);
    if (!st)
        st = write_tiles(ctx, set, dir, &dem, &hg, info);
    const geo_grid *g = st ? NULL : geo_raster_src_grid(dem.src);
    if (!st) {
        index_grid(js, g, info);
        trv_json_arr(js, "textures");
    }
    for (int k = 0; !st && k < EXP_W3D_MAX_LAYERS; k++)
        st = write_texture(ctx, set, terrain, dir, k, g, js, info);
    if (!st) {
        trv_json_end(js);
        st = trv_json_stage(ctx, set, js, index);
    }
    trv_json_free(js);
    if (dem.src)
        geo_raster_close(dem.src);
    if (hg.fd >= 0)
        close(hg.fd);
    free(hg.tmp);
    free(dem_path);
    free(dir);
    free(index);
    return st;
}
