/*
 * render.h — traverse maps: PNG rendering of any layer (palette or colour
 * table over a Horn hillshade, vector overlays, legend, colour bar, scale
 * bar, north arrow, title) and the QGIS styles (.qml) that give the layers
 * the same look in QGIS.
 *
 * Hillshade: Horn's 3x3 derivatives as gdaldem hillshade (defaults azimuth
 * 315, altitude 45, z factor 1), shade = 1 + 254 max(0, cos i) with
 *   cos i = (sin(alt) - z/8 cos(alt) (dzy cos(az) - dzx sin(az)))
 *           / sqrt(1 + (z/8)^2 (dzx^2 + dzy^2)),
 * dzx, dzy the Horn sums divided by the signed cell sizes gt[1], gt[5]. The
 * map colour is multiplied by 1 - s (1 - shade/255) (s the shading
 * strength), so flat ground keeps most of its colour.
 *
 * Palettes are piecewise-linear ramps in sRGB between fixed stops; the same
 * stops go into the PNG colour bar and the QML colour ramp, so a layer looks
 * alike in both. Categorical Byte layers keep their GDAL colour table.
 *
 * Determinism: the same inputs give the same PNG bytes (no tIME chunk,
 * fixed zlib level, FreeType grayscale glyphs without hinting differences:
 * the same FreeType and font give the same pixels).
 *
 * Memory: rnd_render reads the layer and the DEM by row blocks
 * (geo/block.h; map_priv.h): a first pass over the layer for its colour
 * range (or the window's categories), then each row added to the pixels
 * whose footprint holds it, the DEM's rows shaded with a one-row halo; it
 * holds O(map pixels + width x block), the same PNG bytes whatever the
 * block height.
 *
 * Layering: render is a peer of the stage modules and depends on geo and
 * core only; tools call it after a stage has written its layers.
 *
 * Ownership: strings returned by *_xml functions are malloc'ed, the caller
 * frees them. Palettes are static.
 */
#ifndef RENDER_H
#define RENDER_H

#include "geo/geo.h"

/* ---- palettes -------------------------------------------------------- */

typedef struct rnd_stop {
    double pos;             /* 0..1, increasing */
    unsigned char rgb[3];
} rnd_stop;

typedef struct rnd_palette {
    const char *name;       /* "viridis" */
    const char *about;      /* one line for --help */
    int nstops;
    const rnd_stop *stops;
} rnd_palette;

/* The palette called name, or NULL. */
const rnd_palette *rnd_palette_find(const char *name);
/* Palette number i (0..), NULL past the last: for listing. */
const rnd_palette *rnd_palette_at(int i);
/* The palette a continuous layer gets from its band description and unit:
 * elevation (or a DEM in m) -> terrain, slope -> ylorrd, speed -> viridis,
 * cost -> cost (RdYlGn reversed: 0 green), standard deviation -> purples,
 * anything else -> viridis. Never NULL. */
const rnd_palette *rnd_palette_auto(const char *desc, const char *unit);
/* Colour at t in [0, 1] (clamped; NaN gives the first stop): linear
 * interpolation between the neighbouring stops, rounded to nearest. */
void rnd_palette_rgb(const rnd_palette *p, double t, unsigned char rgb[3]);
/* The fixed range a palette/layer kind implies: cost 0..1; slope and speed
 * start at 0. Sets *lo and *hi from the data range [dmin, dmax] otherwise. */
void rnd_layer_range(const char *desc, const char *unit, double dmin, double dmax, double *lo, double *hi);

/* ---- hillshade --------------------------------------------------------- */

typedef struct rnd_light {
    double azimuth_deg;     /* 315: light from the north-west */
    double altitude_deg;    /* 45 */
    double z_factor;        /* 1 */
} rnd_light;

void rnd_light_default(rnd_light *l);

/* One output row of hillshade values in [1, 255] (0 where the centre is
 * nodata). above/below are the neighbouring rows (NULL off the grid). As
 * gdaldem -compute_edges: a neighbour off the grid is extrapolated
 * linearly from the two cells inward (2 a - b), and a nodata neighbour
 * takes the centre's value. ew/ns: the signed cell sizes gt[1], gt[5]. */
void rnd_hillshade_row(const float *above, const float *row, const float *below, int nx, int has_nodata,
                       float nodata, double ew, double ns, const rnd_light *light, float *out);

/* Hillshade of a Float32 DEM: a Float32 raster on the same grid, nodata 0. */
trv_status rnd_hillshade(trv_ctx *ctx, const geo_raster *dem, const rnd_light *light, geo_raster **out);

/* ---- rendering --------------------------------------------------------- */

enum { RND_WIDTH_DEFAULT = 1200, RND_WIDTH_MIN = 320, RND_WIDTH_MAX = 10000, RND_MAX_OVERLAYS = 16 };

typedef struct rnd_opts {
    const char *layer;          /* the raster to show (band 1) */
    const char *output;         /* the PNG, written atomically */
    const char *hillshade;      /* DEM to shade with, or NULL */
    const char *palette;        /* palette name, NULL: rnd_palette_auto */
    const char *overlays[RND_MAX_OVERLAYS]; /* GeoJSON/GPKG/any OGR file */
    int noverlays;
    const char *route;          /* draw only this route of the overlays (e.g. "mmcr"), NULL: all */
    int route_by_file;          /* each overlay file's lines named after the file (its name without
                                 * directory and extension) and drawn in the colour k of the fixed
                                 * cycle, k the rank of that name among the files (a fleet: one
                                 * colour per vehicle, ID.geojson and ID.gpx alike) */
    int legend;                 /* categories / routes legend */
    int width;                  /* PNG width in pixels */
    const char *title;          /* NULL: the band description */
    const char *font;           /* NULL: $TRV_FONT, else DejaVu Sans */
    /* A map window, as gdalwarp -te / -te_srs: with has_te the map shows
     * only the cells of the layer that te = {xmin, ymin, xmax, ymax}
     * touches (snapped outward to whole cells, clipped to the layer), at
     * the same width. te is in te_srs (any CRS OSRSetFromUserInput takes;
     * its corners are transformed and their bounding box taken), NULL:
     * the layer's CRS. The colour bar keeps the whole layer's range so
     * that a zoomed map uses the full map's colours; the hillshade uses
     * the DEM cells just outside the window, so edges shade as in the
     * full map; overlays, legend and scale bar describe the window. */
    int has_te;
    double te[4];
    const char *te_srs;
} rnd_opts;

void rnd_opts_init(rnd_opts *o);

/* Render o->layer to o->output as described at the top. Errors name the
 * file: "cannot open 'x.tif': ...", "unknown palette 'x'", "cannot read
 * overlay 'x.geojson': ...", "no route named 'x' in the overlays"
 * (TRV_ERR_DATA), "the window 0 0 10 10 does not overlap
 * 'x.tif'" (TRV_ERR_DATA), "invalid window: xmin 5 is not less than xmax
 * 1" (TRV_ERR_USAGE), an unknown te_srs (TRV_ERR_CRS); on failure no
 * output is left. */
trv_status rnd_render(trv_ctx *ctx, const rnd_opts *o);

/* The cells of g that the window te = {xmin, ymin, xmax, ymax} (g's CRS)
 * touches, snapped outward to whole cells (an edge within 1e-6 cell of a
 * cell boundary counts as on it) and clipped to the grid: columns
 * [win[0], win[2]), rows [win[1], win[3]). Returns 0 when the window and
 * the grid share no area (win is then unset), 1 otherwise. Pure. */
int rnd_window_cells(const geo_grid *g, const double te[4], int win[4]);

/* The route colour for a route or trajectory name (mmcr, mdr, msr, time,
 * grid-*: the same colour, dashed; trajectory), used by the PNG and QML
 * styles alike. Returns 1 for a dashed (grid) variant. Unknown names get
 * a colour from a fixed cycle keyed on the name. */
int rnd_route_rgb(const char *name, unsigned char rgb[3]);
/* Colour k (k mod 6) of that fixed cycle (rnd_opts.route_by_file). */
void rnd_cycle_rgb(int k, unsigned char rgb[3]);

/* ---- a route's profile (profile.c) ----------------------------------------- */

/* Elevation (filled, left axis, m) and speed (line, right axis, km/h)
 * against distance (km), each piece's value at its middle; under the
 * distance axis a band coloured per piece by its class (the class whose
 * code is band[i]; none: left white) and under it a legend of the classes
 * present. Geometry (pixels; the tests read it): distance d at
 * x = RND_PROF_LEFT + d / dist_m[n - 1] * (w - RND_PROF_LEFT - RND_PROF_RIGHT);
 * the plot from y = RND_PROF_TOP down to the axis at h - RND_PROF_AXIS;
 * the band over rows h - RND_PROF_BAND0 .. h - RND_PROF_BAND1 - 1, pixel column
 * x in the class of the piece holding the distance at x + 0.5. */
enum { RND_PROF_LEFT = 80, RND_PROF_RIGHT = 80, RND_PROF_TOP = 50, RND_PROF_AXIS = 150, RND_PROF_BAND0 = 140,
       RND_PROF_BAND1 = 114, RND_PROF_W_MIN = 400, RND_PROF_H_MIN = 300 };

typedef struct rnd_profile {
    int n;                          /* pieces, >= 1 */
    const double *dist_m;           /* cumulative distance at each piece's end, increasing */
    const double *len_m;            /* each piece's length */
    const double *elev_m, *speed_kmh;
    const int *band;                /* per piece: a class code */
    const geo_class *classes;       /* the band's classes: code, name, colour */
    int nclasses;
    const char *band_title;         /* the legend's heading ("binding limit") */
    const char *title;              /* above the plot */
    const char *font;               /* NULL: $TRV_FONT, else DejaVu Sans */
    int width, height;              /* at least RND_PROF_W_MIN x RND_PROF_H_MIN */
} rnd_profile;

/* Draw p into the PNG tmp (errors name name). TRV_ERR_USAGE for no piece, a
 * last distance <= 0 or a size below the minimum. */
trv_status rnd_profile_png(trv_ctx *ctx, const rnd_profile *p, const char *tmp, const char *name);


/* A reliability diagram: per series (e.g. a threshold), the observed
 * frequency of an event against the predicted probability, one point per
 * bin holding cells (count > 0), joined in bin order; the diagonal
 * (perfect calibration) dashed; probabilities on both axes from 0 to 1. */
typedef struct rnd_reliability_series {
    const char *name;               /* the legend's text */
    int n;                          /* bins, at most 64 */
    const double *pred, *obs;       /* per bin: mean predicted probability, observed frequency */
    const long *count;              /* per bin: cells */
} rnd_reliability_series;

typedef struct rnd_reliability {
    int nseries;
    const rnd_reliability_series *series;
    const char *title;
    const char *font;               /* NULL: $TRV_FONT, else DejaVu Sans */
    int width, height;              /* at least 300 x 300 */
} rnd_reliability;

/* Draw r into the PNG tmp (errors name name); TRV_ERR_USAGE for no series
 * or a size below the minimum. */
trv_status rnd_reliability_png(trv_ctx *ctx, const rnd_reliability *r, const char *tmp, const char *name);

/* ---- a layer as a texture (texture.c; trv-export --web3d) --------------- */

typedef struct rnd_texture_info {
    int categorical;                /* coloured by its colour table */
    double lo, hi;                  /* the palette's range (continuous layers) */
    const char *palette;            /* its name; "colour table"; "greys" for a hillshade */
} rnd_texture_info;

/* w x h 8-bit pixels, channels 3 (RGB) or 4 (RGBA), rows top down, to
 * path at zlib level; software: the tEXt "Software" value, or NULL. No
 * tIME chunk: the same pixels give the same bytes. Errors name `name`
 * (the path the user knows; path may be a temporary). png.c */
trv_status rnd_png_write(trv_ctx *ctx, const char *path, const char *name, const unsigned char *px, int w, int h,
                         int channels, int level, const char *software);
/* The same file by rows: open (the header), rows (the next `rows` rows of
 * px, top down, w * channels bytes each; libpng gets them one by one, so
 * the file is rnd_png_write's bytes however the rows are grouped), close
 * (st == TRV_OK: the file finished; else only freed; returns st or the
 * first error). A failed write leaves p to close only. */
typedef struct rnd_png rnd_png;
trv_status rnd_png_open(trv_ctx *ctx, const char *path, const char *name, int w, int h, int channels, int level,
                        const char *software, rnd_png **out);
trv_status rnd_png_rows(trv_ctx *ctx, rnd_png *p, const unsigned char *px, int rows);
trv_status rnd_png_close(trv_ctx *ctx, rnd_png *p, trv_status st);

/* The layer at path as a PNG texture written to tmp (errors name name):
 * one RGBA pixel per cell, row 0 the north, coloured as rnd_render colours
 * its map without the shading (a categorical Byte layer by its GDAL colour
 * table; else the palette rnd_palette_auto gives, over rnd_layer_range of
 * the valid cells' range), alpha 0 on nodata and on a colour of alpha 0.
 * hillshade: path is a DEM, drawn as its rnd_hillshade (default light) in
 * greys, grey = the shade value, alpha 0 where the shade is 0. */
trv_status rnd_texture_png(trv_ctx *ctx, const char *path, int hillshade, const char *tmp, const char *name,
                           rnd_texture_info *info);

/* ---- a value along a drive (margin_map.c; trv-report) ---------------------- */

/* The drive as a map on white, north up, one scale for x and y: the points
 * fitted into the box from (RND_MM_LEFT, RND_MM_TOP) to (width -
 * RND_MM_RIGHT, height - RND_MM_BOTTOM) and centred (rnd_margin_map_xy);
 * segment i (point i to i + 1) RND_MM_LINE pixels wide in point i's colour,
 * palette rdylgn from lo (red) to hi (green) (rnd_margin_map_rgb); a ring
 * of radius RND_MM_RING around each marked point, numbered from 1; the
 * colour bar right of the box, the title above. */
enum { RND_MM_LEFT = 20, RND_MM_TOP = 50, RND_MM_RIGHT = 110, RND_MM_BOTTOM = 20, RND_MM_LINE = 5,
       RND_MM_RING = 9, RND_MM_W_MIN = 400, RND_MM_H_MIN = 300 };

typedef struct rnd_margin_map {
    int n;                          /* points, >= 2 */
    const double *x, *y;            /* map coordinates (metres) */
    const double *value;            /* per point */
    double lo, hi;                  /* the colour scale's range */
    int nmarks;                     /* 0 to 9 */
    const int *mark;                /* the marked points' indices */
    const char *title, *unit;       /* above the map; above the colour bar */
    const char *font;               /* NULL: $TRV_FONT, else DejaVu Sans */
    int width, height;              /* at least RND_MM_W_MIN x RND_MM_H_MIN */
} rnd_margin_map;

/* The pixel of map point (x, y). */
void rnd_margin_map_xy(const rnd_margin_map *m, double x, double y, double *px, double *py);
/* The colour of a value. */
void rnd_margin_map_rgb(const rnd_margin_map *m, double value, unsigned char rgb[3]);
/* Draw m into the PNG tmp (errors name name); TRV_ERR_USAGE for fewer than
 * 2 points, more than 9 marks or a size below the minimum. */
trv_status rnd_margin_map_png(trv_ctx *ctx, const rnd_margin_map *m, const char *tmp, const char *name);

#endif
