/* The terrain's layers as PNGs of one pixel per cell (console.h): what the
 * console's map lays over the grid's extent exactly. The run's PNG maps (png/)
 * are figures (frame, title, legend, scale bar) whose map rectangle is not
 * recorded, so they cannot be placed on a map; these can. */
#include "console_priv.h"
#include "geo/geo.h"
#include "render/render.h"
#include "run/run.h"

#include <json-c/json.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const run_id shown[] = {RUN_DEM, RUN_CLASS, RUN_SPEED, RUN_GONOGO, RUN_SLOPE, RUN_COST};

/* A Byte layer through its colour table (code 0 and codes past the
 * table transparent). */
static void colour_u8(const geo_raster *r, const geo_raster_info *info, unsigned char *px)
{
    size_t n = (size_t)r->grid.nx * r->grid.ny;
    for (size_t i = 0; i < n; i++) {
        int v = r->u8[i];
        int on = !geo_raster_is_nodata(r, i) && v < info->ncolours && v > 0;
        for (int j = 0; j < 3; j++)
            px[4 * i + j] = on ? info->rgba[v][j] : 0;
        px[4 * i + 3] = (unsigned char)(255 * on);
    }
}

/* A Float32 layer through its palette over rnd_layer_range; shaded by
 * hs (a hillshade, 1..255) when given: rgb x (0.45 + 0.55 hs / 255). */
static void colour_f32(const geo_raster *r, const geo_raster *hs, unsigned char *px)
{
    size_t n = (size_t)r->grid.nx * r->grid.ny;
    double mn = INFINITY, mx = -INFINITY, lo, hi;
    for (size_t i = 0; i < n; i++)
        if (!geo_raster_is_nodata(r, i))
            mn = fmin(mn, r->f32[i]), mx = fmax(mx, r->f32[i]);
    rnd_layer_range(r->desc, r->unit, mn, mx, &lo, &hi);
    const rnd_palette *p = rnd_palette_auto(r->desc, r->unit);
    for (size_t i = 0; i < n; i++) {
        int on = !geo_raster_is_nodata(r, i);
        unsigned char rgb[3] = {0, 0, 0};
        if (on)
            rnd_palette_rgb(p, hi > lo ? (r->f32[i] - lo) / (hi - lo) : 0.5, rgb);
        double k = hs && on ? 0.45 + 0.55 * hs->f32[i] / 255.0 : 1;
        for (int j = 0; j < 3; j++)
            px[4 * i + j] = (unsigned char)lround(rgb[j] * k);
        px[4 * i + 3] = on ? 255 : 0;
    }
}

/* One layer to outdir/NAME.png; its entry added to list. */
static trv_status one_layer(trv_ctx *ctx, const char *terrain, const char *outdir, run_id id, json_object *list)
{
    const run_layer *L = run_layer_of(id);
    char *src = run_path(terrain, id), png[4096];
    geo_raster *r = NULL, *hs = NULL;
    geo_raster_info info;
    memset(&info, 0, sizeof info);
    trv_status st = src ? geo_raster_read(ctx, src, L->type, &r) : trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
    if (!st && L->type == GEO_U8)
        st = geo_raster_info_read(ctx, src, &info);
    if (!st && id == RUN_DEM) {
        rnd_light light;
        rnd_light_default(&light);
        st = rnd_hillshade(ctx, r, &light, &hs);
    }
    unsigned char *px = st ? NULL : malloc((size_t)r->grid.nx * r->grid.ny * 4);
    if (!st && !px)
        st = trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
    if (!st) {
        if (L->type == GEO_U8)
            colour_u8(r, &info, px);
        else
            colour_f32(r, hs, px);
        snprintf(png, sizeof png, "%s/%s.png", outdir, L->name);
        st = rnd_png_write(ctx, png, png, px, r->grid.nx, r->grid.ny, 4, 3, NULL); /* level 3: written at each start */
    }
    if (!st) {
        const double *gt = r->grid.gt;
        double e[4] = {gt[0], gt[3] + r->grid.ny * gt[5], gt[0] + r->grid.nx * gt[1], gt[3]};
        json_object *o = json_object_new_object(), *ext = json_object_new_array();
        json_object_object_add(o, "name", json_object_new_string(L->name));
        snprintf(png, sizeof png, "%s.png", L->name);
        json_object_object_add(o, "file", json_object_new_string(png));
        json_object_object_add(o, "title", json_object_new_string(L->desc));
        for (int i = 0; i < 4; i++)
            json_object_array_add(ext, json_object_new_double(e[i]));
        json_object_object_add(o, "extent", ext);
        json_object_object_add(o, "nx", json_object_new_int(r->grid.nx));
        json_object_object_add(o, "ny", json_object_new_int(r->grid.ny));
        json_object_array_add(list, o);
    }
    free(px), free(src);
    geo_raster_free(r), geo_raster_free(hs);
    if (L->type == GEO_U8)
        geo_raster_info_clear(&info);
    return st;
}

trv_status console_layers_write(trv_ctx *ctx, const char *terrain, const char *outdir)
{
    json_object *top = json_object_new_object(), *list = json_object_new_array();
    json_object_object_add(top, "layers", list);
    trv_status st = TRV_OK;
    for (size_t i = 0; !st && i < sizeof shown / sizeof *shown; i++)
        if (run_exists(terrain, shown[i]))
            st = one_layer(ctx, terrain, outdir, shown[i], list);
    char *path = st ? NULL : trv_path_join(outdir, "index.json");
    if (!st && (!path || json_object_to_file_ext(path, top, JSON_C_TO_STRING_PLAIN)))
        st = trv_error(ctx, TRV_ERR_IO, "cannot write '%s'", path ? path : "index.json");
    free(path);
    json_object_put(top);
    return st;
}
