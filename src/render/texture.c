/* A layer as a texture (render.h, rnd_texture_png): one RGBA pixel per
 * cell, the map's colours without the shading; a DEM as its hillshade.
 * Streamed: the layer read by windows (geo/block.h: geo_block_cols() x
 * geo_strip_rows(width, 4) tiles: geo_block_rows() rows, fewer when a
 * strip of them would pass geo_strip_mem(), one at least; a DEM's with
 * its 1-cell halo all round, so Horn's window at a tile's edge sees the cells beyond it and at the
 * grid's edge the edge rule of rnd_hillshade_row), a row of tiles coloured
 * into a strip of pixels, and the strip's rows given to libpng in order
 * (rnd_png_rows): memory a strip of at most max(geo_strip_mem(), one
 * row) bytes and a tile, not O(layer) nor O(width x 256); each
 * pixel depends on its cell (and, shaded, the 3 x 3 cells round it) alone,
 * and the range of a continuous layer (min and max: any order) is a first
 * pass over the tiles, so the PNG is the whole-layer code's bytes for every
 * tile size. */
#include "render.h"
#include "map_priv.h"
#include "geo/block.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

enum { TEX_SHADE, TEX_PALETTE, TEX_TABLE };

/* What colours a tile: the kind, the palette and its range, the table. */
typedef struct tex {
    int kind;
    const geo_raster_info *gi;
    const rnd_palette *pal;
    double lo, hi;
    rnd_light light;
    float *hrow;            /* one row of the hillshade over a window's columns */
} tex;

/* The pixel of the shade v: grey lround(v), alpha 0 where v is 0. */
static void grey_px(float v, unsigned char *px)
{
    unsigned char g = (unsigned char)(v > 0 ? lround(v) : 0);
    px[0] = px[1] = px[2] = g;
    px[3] = v > 0 ? 255 : 0;
}

/* The window w's row y: tile columns x0 .. x1 - 1 into px (the strip's
 * row, pixel x at px + 4 x). */
static void colour_row(const tex *t, const geo_grid *g, const geo_window *w, int y, int x0, int x1, unsigned char *px)
{
    if (t->kind == TEX_SHADE) {
        rnd_hillshade_row(geo_window_f32(w, w->x0, y - 1), geo_window_f32(w, w->x0, y), geo_window_f32(w, w->x0, y + 1),
                          w->x1 - w->x0, w->has_nodata, (float)w->nodata, g->gt[1], g->gt[5], &t->light, t->hrow);
        for (int x = x0; x < x1; x++)
            grey_px(t->hrow[x - w->x0], px + 4 * (size_t)x);
    } else if (t->kind == TEX_PALETTE) {
        const float *z = geo_window_f32(w, x0, y);
        for (int x = x0; x < x1; x++) {
            unsigned char *p = px + 4 * (size_t)x;
            float v = z[x - x0];
            int ok = !geo_f32_is_nodata(v, w->has_nodata, w->nodata);
            if (ok)
                rnd_palette_rgb(t->pal, (v - t->lo) / (t->hi - t->lo), p);
            else
                p[0] = p[1] = p[2] = 0;
            p[3] = ok ? 255 : 0;
        }
    } else {
        const unsigned char *c = geo_window_u8(w, x0, y);
        for (int x = x0; x < x1; x++) {
            unsigned char *p = px + 4 * (size_t)x;
            int k = c[x - x0], ok = !(w->has_nodata && k == (unsigned char)w->nodata) && k < t->gi->ncolours &&
                                    t->gi->rgba[k][3] > 0;
            for (int q = 0; q < 3; q++)
                p[q] = ok ? t->gi->rgba[k][q] : 0;
            p[3] = ok ? 255 : 0;
        }
    }
}

/* The texture's rows, a row of tiles at a time, into png. */
static trv_status write_strips(trv_ctx *ctx, const tex *t, geo_block_reader *rd, rnd_png *png)
{
    const geo_grid *g = geo_block_reader_grid(rd);
    const geo_tiling tl = geo_tiling_make(g->nx, g->ny, geo_block_cols(), geo_strip_rows(g->nx, 4));
    unsigned char *px = malloc((size_t)g->nx * tl.th * 4);
    trv_status st = px ? TRV_OK : trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
    for (int i = 0; i < geo_tiling_count(&tl) && !st; i++) {
        const geo_tile k = geo_tiling_tile(&tl, i);
        const geo_window *w;
        if ((st = geo_block_read_window(ctx, rd, k.x0, k.x0 + k.nx, k.y0, k.y0 + k.ny, &w)))
            break;
        for (int y = k.y0; y < k.y0 + k.ny; y++)
            colour_row(t, g, w, y, k.x0, k.x0 + k.nx, px + (size_t)(y - k.y0) * g->nx * 4);
        if (k.x0 + k.nx == g->nx)
            st = rnd_png_rows(ctx, png, px, k.ny);
    }
    free(px);
    return st;
}

/* How the layer is coloured, and what it reads: a DEM's hillshade (the
 * default light, its reader's halo of 1), a continuous layer's palette over
 * rnd_layer_range of its data range (a first pass), a Byte layer's table. */
static trv_status set_up(trv_ctx *ctx, const char *path, int hillshade, const geo_raster_info *gi, tex *t,
                         geo_block_reader **rd, rnd_texture_info *ti)
{
    t->gi = gi;
    t->kind = hillshade ? TEX_SHADE : gi->type == GEO_BAND_BYTE && gi->ncolours > 0 ? TEX_TABLE : TEX_PALETTE;
    trv_status st = geo_block_reader_open(ctx, path, t->kind == TEX_TABLE ? GEO_U8 : GEO_F32, hillshade, rd);
    if (st)
        return st;
    if (t->kind == TEX_SHADE) {
        rnd_light_default(&t->light);
        if (!(t->hrow = malloc(((size_t)geo_block_cols() + 2) * sizeof *t->hrow)))
            return trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
        *ti = (rnd_texture_info){0, 0, 255, "greys"};
    } else if (t->kind == TEX_TABLE) {
        *ti = (rnd_texture_info){1, 0, 0, "colour table"};
    } else {
        double dmin, dmax;
        size_t nvalid;
        if ((st = rnd_layer_minmax(ctx, *rd, &dmin, &dmax, &nvalid)))
            return st;
        if (!(dmin <= dmax))
            dmin = 0, dmax = 1;
        const char *desc = *gi->desc ? gi->desc : NULL, *unit = *gi->unit ? gi->unit : NULL;
        rnd_layer_range(desc, unit, dmin, dmax, &t->lo, &t->hi);
        t->pal = rnd_palette_auto(desc, unit);
        *ti = (rnd_texture_info){0, t->lo, t->hi, t->pal->name};
    }
    return TRV_OK;
}

trv_status rnd_texture_png(trv_ctx *ctx, const char *path, int hillshade, const char *tmp, const char *name,
                           rnd_texture_info *info)
{
    geo_raster_info gi;
    geo_block_reader *rd = NULL;
    rnd_png *png = NULL;
    tex t = {0};
    trv_status st = geo_raster_info_read(ctx, path, &gi);
    if (st)
        return st;
    if (!(st = set_up(ctx, path, hillshade, &gi, &t, &rd, info)) &&
        !(st = rnd_png_open(ctx, tmp, name, gi.grid.nx, gi.grid.ny, 4, 6, NULL, &png)))
        st = write_strips(ctx, &t, rd, png);
    st = rnd_png_close(ctx, png, st);
    free(t.hrow);
    geo_block_reader_close(rd);
    geo_raster_info_clear(&gi);
    return st;
}
