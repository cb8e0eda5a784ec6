/* The run for the 3D view (web3d.h): the DEM's height tiles by level,
 * the layers' textures and index.json, staged into the caller's set. */
#include "export/web3d.h"

#include "core/json.h"
#include "render/render.h"
#include "run/run.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

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

/* v as 4 little-endian bytes. */
static void put_le(float v, unsigned char *b)
{
    uint32_t u;
    memcpy(&u, &v, 4);
    for (int q = 0; q < 4; q++)
        b[q] = (unsigned char)(u >> (8 * q));
}

/* One tile's file, staged. */
static trv_status write_tile(trv_ctx *ctx, trv_outset *set, const char *tiles, const geo_raster *dem, int k, int tx,
                             int ty, float *h, unsigned char *buf)
{
    char leaf[48];
    snprintf(leaf, sizeof leaf, "%d_%d_%d.f32", k, tx, ty);
    char *final = trv_path_join(tiles, leaf);
    const char *tmp = final ? trv_outset_add(set, final) : NULL;
    if (!tmp) {
        free(final);
        return trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
    }
    exp_w3d_tile(dem, k, tx, ty, h);
    for (int i = 0; i < EXP_W3D_V * EXP_W3D_V; i++)
        put_le(h[i], buf + 4 * i);
    FILE *f = fopen(tmp, "wb");
    trv_status st = TRV_OK;
    if (!f || fwrite(buf, 4, (size_t)EXP_W3D_V * EXP_W3D_V, f) != (size_t)EXP_W3D_V * EXP_W3D_V || ferror(f))
        st = trv_error(ctx, TRV_ERR_IO, "cannot write '%s': %s", final, strerror(errno ? errno : EIO));
    if (f && fclose(f) != 0 && !st)
        st = trv_error(ctx, TRV_ERR_IO, "cannot write '%s': %s", final, strerror(errno));
    free(final);
    return st;
}

/* Every level's tiles into dir/tiles. */
static trv_status write_tiles(trv_ctx *ctx, trv_outset *set, const char *dir, const geo_raster *dem,
                              exp_w3d_info *info)
{
    char *tiles = trv_path_join(dir, "tiles");
    float *h = malloc(sizeof *h * EXP_W3D_V * EXP_W3D_V);
    unsigned char *buf = malloc((size_t)4 * EXP_W3D_V * EXP_W3D_V);
    trv_status st = !tiles || !h || !buf ? trv_error(ctx, TRV_ERR_NOMEM, "out of memory") : TRV_OK;
    if (!st)
        st = trv_outset_mkdir(ctx, set, tiles);
    for (int k = 0; !st && k < info->levels; k++) {
        exp_w3d_level l = exp_w3d_level_of(dem->grid.nx, dem->grid.ny, k);
        for (int ty = 0; !st && ty < l.nty; ty++)
            for (int tx = 0; !st && tx < l.ntx; tx++, info->tiles++)
                st = write_tile(ctx, set, tiles, dem, k, tx, ty, h, buf);
    }
    free(tiles);
    free(h);
    free(buf);
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
static void index_grid(trv_json *js, const geo_raster *dem, const exp_w3d_info *info)
{
    const geo_grid *g = &dem->grid;
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

/* The DEM read and checked: projected in metres, square cells. */
static trv_status read_dem(trv_ctx *ctx, const char *path, geo_raster **dem, exp_w3d_info *info)
{
    trv_status st = geo_raster_read(ctx, path, GEO_F32, dem);
    if (st)
        return st;
    const geo_grid *g = &(*dem)->grid;
    if (!g->wkt || geo_crs_is_geographic(g->wkt) != 0 || fabs(geo_crs_metres_per_unit(g->wkt) - 1) > 1e-12)
        return trv_error(ctx, TRV_ERR_CRS, "'%s' is not in a projected CRS in metres: the 3D view needs metres "
                         "(warp the terrain, e.g. trv-krige --t_srs)", path);
    if (fabs(g->gt[1] + g->gt[5]) > 1e-9 * g->gt[1] || g->gt[1] <= 0)
        return trv_error(ctx, TRV_ERR_GRID, "'%s' has cells of %.10g x %.10g m: the 3D view needs square cells, "
                         "north up (gdalwarp -tr)", path, g->gt[1], -g->gt[5]);
    geo_crs_label(g->wkt, info->crs, sizeof info->crs);
    info->nx = g->nx, info->ny = g->ny;
    info->levels = exp_w3d_levels(g->nx, g->ny);
    info->zmin = INFINITY, info->zmax = -INFINITY;
    for (size_t i = 0; i < (size_t)g->nx * g->ny; i++)
        if (!geo_raster_is_nodata(*dem, i))
            info->zmin = fmin(info->zmin, (*dem)->f32[i]), info->zmax = fmax(info->zmax, (*dem)->f32[i]);
    if (!(info->zmin <= info->zmax))
        return trv_error(ctx, TRV_ERR_DATA, "'%s' holds no data", path);
    return TRV_OK;
}

trv_status exp_web3d_run(trv_ctx *ctx, const char *terrain, trv_outset *set, exp_w3d_info *info)
{
    *info = (exp_w3d_info){0};
    geo_raster *dem = NULL;
    char *dem_path = trv_path_join(terrain, run_file(RUN_DEM)), *dir = trv_path_join(terrain, "web3d");
    char *index = dir ? trv_path_join(dir, "index.json") : NULL;
    trv_json *js = trv_json_new();
    trv_status st = !dem_path || !index || !js ? trv_error(ctx, TRV_ERR_NOMEM, "out of memory") : TRV_OK;
    if (!st)
        st = read_dem(ctx, dem_path, &dem, info);
    if (!st)
        st = trv_outset_mkdir(ctx, set, dir);
    if (!st)
        st = write_tiles(ctx, set, dir, dem, info);
    if (!st) {
        index_grid(js, dem, info);
        trv_json_arr(js, "textures");
    }
    for (int k = 0; !st && k < EXP_W3D_MAX_LAYERS; k++)
        st = write_texture(ctx, set, terrain, dir, k, &dem->grid, js, info);
    if (!st) {
        trv_json_end(js);
        st = trv_json_stage(ctx, set, js, index);
    }
    trv_json_free(js);
    geo_raster_free(dem);
    free(dem_path);
    free(dir);
    free(index);
    return st;
}
