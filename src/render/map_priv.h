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
    geo_raster *r, *dem, *hs;   /* the layer (the window's cells), the DEM, its hillshade or NULL */
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
