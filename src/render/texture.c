/* A layer as a texture (render.h, rnd_texture_png): one RGBA pixel per
 * cell, the map's colours without the shading; a DEM as its hillshade. */
#include "render.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The hillshade's greys. */
static trv_status shade_px(trv_ctx *ctx, const geo_raster *dem, unsigned char *px, rnd_texture_info *ti)
{
    rnd_light light;
    rnd_light_default(&light);
    geo_raster *hs = NULL;
    trv_status st = rnd_hillshade(ctx, dem, &light, &hs);
    if (st)
        return st;
    size_t n = (size_t)dem->grid.nx * dem->grid.ny;
    for (size_t i = 0; i < n; i++) {
        float v = hs->f32[i];
        unsigned char g = (unsigned char)(v > 0 ? lround(v) : 0);
        px[4 * i] = px[4 * i + 1] = px[4 * i + 2] = g;
        px[4 * i + 3] = v > 0 ? 255 : 0;
    }
    geo_raster_free(hs);
    *ti = (rnd_texture_info){0, 0, 255, "greys"};
    return TRV_OK;
}

/* A continuous layer through its auto palette over its range. */
static void palette_px(const geo_raster *r, unsigned char *px, rnd_texture_info *ti)
{
    size_t n = (size_t)r->grid.nx * r->grid.ny;
    double dmin = INFINITY, dmax = -INFINITY, lo, hi;
    for (size_t i = 0; i < n; i++)
        if (!geo_raster_is_nodata(r, i))
            dmin = fmin(dmin, r->f32[i]), dmax = fmax(dmax, r->f32[i]);
    if (!(dmin <= dmax))
        dmin = 0, dmax = 1;
    rnd_layer_range(r->desc, r->unit, dmin, dmax, &lo, &hi);
    const rnd_palette *pal = rnd_palette_auto(r->desc, r->unit);
    for (size_t i = 0; i < n; i++) {
        int ok = !geo_raster_is_nodata(r, i);
        if (ok)
            rnd_palette_rgb(pal, (r->f32[i] - lo) / (hi - lo), px + 4 * i);
        else
            px[4 * i] = px[4 * i + 1] = px[4 * i + 2] = 0;
        px[4 * i + 3] = ok ? 255 : 0;
    }
    *ti = (rnd_texture_info){0, lo, hi, pal->name};
}

/* A categorical layer through its colour table. */
static trv_status table_px(trv_ctx *ctx, const char *path, const geo_raster_info *gi, unsigned char *px,
                           rnd_texture_info *ti)
{
    geo_raster *r = NULL;
    trv_status st = geo_raster_read(ctx, path, GEO_U8, &r);
    if (st)
        return st;
    size_t n = (size_t)r->grid.nx * r->grid.ny;
    for (size_t i = 0; i < n; i++) {
        int c = r->u8[i], ok = !geo_raster_is_nodata(r, i) && c < gi->ncolours && gi->rgba[c][3] > 0;
        for (int q = 0; q < 3; q++)
            px[4 * i + q] = ok ? gi->rgba[c][q] : 0;
        px[4 * i + 3] = ok ? 255 : 0;
    }
    geo_raster_free(r);
    *ti = (rnd_texture_info){1, 0, 0, "colour table"};
    return TRV_OK;
}

trv_status rnd_texture_png(trv_ctx *ctx, const char *path, int hillshade, const char *tmp, const char *name,
                           rnd_texture_info *info)
{
    geo_raster_info gi;
    geo_raster *r = NULL;
    unsigned char *px = NULL;
    trv_status st = geo_raster_info_read(ctx, path, &gi);
    if (st)
        return st;
    int table = !hillshade && gi.type == GEO_BAND_BYTE && gi.ncolours > 0;
    if (!table)
        st = geo_raster_read(ctx, path, GEO_F32, &r);
    if (!st && !(px = malloc((size_t)gi.grid.nx * gi.grid.ny * 4)))
        st = trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
    if (!st && hillshade)
        st = shade_px(ctx, r, px, info);
    else if (!st && table)
        st = table_px(ctx, path, &gi, px, info);
    else if (!st)
        palette_px(r, px, info);
    if (!st)
        st = rnd_png_write(ctx, tmp, name, px, gi.grid.nx, gi.grid.ny, 4, 6, NULL);
    free(px);
    geo_raster_free(r);
    geo_raster_info_clear(&gi);
    return st;
}
