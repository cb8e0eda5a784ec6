/* map_priv.h — the map rnd_render is drawing, shared by its steps: render.c
 * (the layer, the layout, the map raster with its hillshade, the PNG),
 * overlay_draw.c (routes, roadmap, obstacles and markers over the map),
 * frame.c (frame, title, north arrow, scale bar and footer) and legend.c
 * (the panel: colour bar, categories, overlay legend). Private to
 * src/render. */
#ifndef RENDER_MAP_PRIV_H
#define RENDER_MAP_PRIV_H

#include "overlay_priv.h"
#include "render_priv.h"

static const unsigned char INK[3] = {34, 34, 34}, GREY_TEXT[3] = {110, 110, 110}, WHITE[3] = {255, 255, 255},
                           NODATA_RGB[3] = {214, 214, 214}, FRAME[3] = {90, 90, 90};
/* Obstacles: red, half transparent so the ground under them still shows,
 * with a dark red outline that holds on red (no-go) ground too. */
static const unsigned char OBSTACLE_FILL[3] = {228, 26, 28}, OBSTACLE_LINE[3] = {153, 0, 13};
static const double OBSTACLE_ALPHA = 0.45, OBSTACLE_LINE_W = 2.0;

/* The categorical look of a Byte layer: colours and names by code. */
typedef struct cat_table {
    int has_color;
    unsigned char rgb[256][3];
    unsigned char alpha[256];
    char *name[256];
    size_t count[256];
} cat_table;

typedef struct layout {
    double s;               /* scale: width / 1200 */
    int W, H;
    int mx, my, mw, mh;     /* map rectangle */
    int px, py, pw;         /* panel */
    double upx, upy;        /* CRS units per pixel */
} layout;

/* How a line is drawn (widths in pixels at scale 1). A driven trajectory
 * lies on the plans it followed, so it is drawn last and thinnest: where
 * they coincide each shows as a band around the next, where they part
 * each stays recognisable. trv-sim's original plan ("plan") is the widest
 * band (blue), its last plan after replanning ("last_plan") narrower and
 * dashed (purple), the trajectory a near-black line on a thin white
 * casing. Other routes keep their strategy colour, widened when a
 * trajectory is drawn over them so that its casing does not hide them. */
typedef struct line_style {
    unsigned char rgb[3];
    double width, casing;   /* casing: total width of the white casing, 0 none */
    double casing_alpha;
    double dash_on, dash_off;
    int pass;               /* drawing order among lines: 0 first */
} line_style;

/* What the steps of rnd_render share. */
typedef struct rnd_map {
    const rnd_opts *o;
    const rnd_palette *pal;
    geo_raster *r;              /* the layer's header, no cells: the map's grid (the window's), label, nodata */
    struct geo_block_reader *rd, *dem; /* the layer and the DEM (or NULL), read by row blocks */
    int win[4];                 /* the map's cells in the layer: columns win[0] .. win[2] - 1, rows win[1] .. */
    int shaded;                 /* a hillshade is drawn under the map */
    cat_table *cat;
    int categorical;            /* Byte with a colour table: drawn by category */
    double lo, hi;              /* continuous: the colour range over the whole layer */
    rnd_ovl_set ov;
    rnd_font *font;
    rnd_canvas *c;
    layout L;
    const char *route_list[32]; /* unique route names in drawing order */
    int nroutes, has_edges, has_nodes, has_areas, has_trajectory;
    int has_markers; /* bit 0: a "start" point, bit 1: a "goal" point */
    int ncat;                   /* categories present on the map */
    double row_h;               /* legend row height */
    double m_per_unit;          /* metres per CRS unit */
} rnd_map;

/* map_rows.c: the map's cells streamed by windows (geo/block.h). The
 * map's pixel footprints: pixel (i, j) covers the map's columns
 * cx0[i] .. cx1[i] and rows cy0[j] .. cy1[j] (both nondecreasing in i, j). */
typedef struct rnd_foot {
    int mw, mh;
    const int *cx0, *cx1, *cy0, *cy1;
    double upx, upy;            /* the map's CRS units per pixel */
    const geo_grid *map, *dem;  /* the map's grid (the window's), the DEM's */
} rnd_foot;

/* Per map pixel: continuous, the sum and count of the data cells of its
 * footprint (added rows down, then across: the whole-layer loop's order);
 * categorical, the code of its footprint's middle cell and whether it is
 * nodata. */
typedef struct rnd_cells {
    int categorical;
    double *sum;
    int *n;
    unsigned char *code, *nodata;
} rnd_cells;

/* The whole layer's data range (geo_raster_is_nodata's rule), Float32 reader. */
trv_status rnd_layer_minmax(trv_ctx *ctx, struct geo_block_reader *rd, double *dmin, double *dmax, size_t *nvalid);
/* count[code] += the window's data cells of each code (Byte reader). */
trv_status rnd_layer_counts(trv_ctx *ctx, struct geo_block_reader *rd, const int win[4], size_t count[256]);
/* c's arrays for the pixels of f, from the window win of the layer. */
trv_status rnd_map_cells(trv_ctx *ctx, struct geo_block_reader *rd, const int win[4], const rnd_foot *f, rnd_cells *c);
void rnd_cells_clear(rnd_cells *c);
/* shade (mw * mh, zeroed) from the hillshade of the DEM cells win (each
 * shaded with the DEM cells round it: dem's halo of 1), whose grid is hg:
 * on the map's grid the footprints' mean of the shade cells > 0, otherwise
 * each pixel centre's nearest shade cell. */
trv_status rnd_map_shade(trv_ctx *ctx, struct geo_block_reader *dem, const rnd_foot *f, const int win[4],
                         const geo_grid *hg, float *shade);

/* overlay_draw.c: a line's look; the overlays in passes (areas, roadmap,
 * routes, trajectories, points) in canvas pixels; unique route names (in
 * drawing order) for the legend and which kinds of shapes are present. */
line_style rnd_line_style(int trajectory, const char *name, int with_trajectory);
void rnd_map_overlays(rnd_canvas *c, rnd_font *font, rnd_ovl_set *ov, const layout *L, const geo_grid *g,
                      double m_per_unit);
int rnd_map_route_names(const rnd_ovl_set *ov, const char **names, int max, int *edges, int *nodes, int *markers,
                        int *areas);

/* frame.c: the frame round the map, the title above it, the north arrow
 * in it and the scale bar and footer under it. */
void rnd_map_frame(rnd_map *m);
void rnd_map_title(rnd_map *m);
void rnd_map_north_arrow(rnd_map *m);
void rnd_map_scale_bar(rnd_map *m);

/* legend.c: the panel beside the map, top down; each returns the next
 * free y. */
double rnd_map_colour_bar(rnd_map *m, double py);
double rnd_map_categories(rnd_map *m, double py);
double rnd_map_overlay_legend(rnd_map *m, double py);

#endif
