/* rnd_render: a layer as a PNG map (see render.h for the look and the
 * hillshade equation). Steps: read the layer (and its GDAL colour table
 * and category names), lay out title, map, panel and footer for the
 * requested width, colour the map row by row (area mean for continuous
 * layers, nearest for categories), shade it, draw the overlays, legend,
 * colour bar, scale bar and north arrow, write the PNG atomically. */
#include "overlay_priv.h"
#include "render_priv.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void rnd_opts_init(rnd_opts *o)
{
    memset(o, 0, sizeof *o);
    o->width = RND_WIDTH_DEFAULT;
}

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

static void cat_clear(cat_table *t)
{
    for (int i = 0; i < 256; i++)
        free(t->name[i]);
}

static trv_status read_categories(trv_ctx *ctx, const char *path, int *is_byte, cat_table *t)
{
    geo_raster_info info;
    trv_status st = geo_raster_info_read(ctx, path, &info);
    if (st)
        return st;
    *is_byte = info.nbands >= 1 && info.type == GEO_BAND_BYTE;
    if (*is_byte && info.ncolours > 0) {
        t->has_color = 1;
        for (int i = 0; i < 256 && i < info.ncolours; i++) {
            t->rgb[i][0] = info.rgba[i][0], t->rgb[i][1] = info.rgba[i][1];
            t->rgb[i][2] = info.rgba[i][2], t->alpha[i] = info.rgba[i][3];
        }
    }
    for (int i = 0; i < info.ncategories && i < 256; i++)
        if (*info.categories[i])
            t->name[i] = strdup(info.categories[i]);
    geo_raster_info_clear(&info);
    return TRV_OK;
}

/* A round scale-bar length: 1, 2 or 5 x 10^k not above max_m. */
static double round_length(double max_m)
{
    double p = pow(10, floor(log10(max_m)));
    return max_m >= 5 * p ? 5 * p : max_m >= 2 * p ? 2 * p : p;
}

static void fmt_length(char *buf, size_t n, double m)
{
    if (m >= 1000)
        snprintf(buf, n, "%g km", m / 1000);
    else
        snprintf(buf, n, "%g m", m);
}

/* Nice tick step for [lo, hi] with about n ticks. */
static double nice_step(double range, int n)
{
    double raw = range / n, p = pow(10, floor(log10(raw))), f = raw / p;
    return (f <= 1 ? 1 : f <= 2 ? 2 : f <= 2.5 ? 2.5 : f <= 5 ? 5 : 10) * p;
}

static void fmt_value(char *buf, size_t n, double v, double step)
{
    int dec = step >= 1 ? 0 : (int)ceil(-log10(step) - 1e-9);
    if (dec > 6)
        dec = 6;
    if (fabs(v) < step * 1e-9)
        v = 0;
    snprintf(buf, n, "%.*f", dec, v);
}

static const char *route_label(const char *name)
{
    static const struct {
        const char *name, *label;
    } L[] = {{"mmcr", "mmcr (min. mobility risk)"}, {"mdr", "mdr (shortest)"}, {"msr", "msr (least slope)"},
             {"time", "time (fastest)"}, {"grid-mmcr", "grid mmcr (raster optimum)"},
             {"grid-mdr", "grid mdr (raster optimum)"}, {"grid-msr", "grid msr (raster optimum)"},
             {"grid-time", "grid time (raster optimum)"}, {"trajectory", "trajectory (simulated)"},
             {"plan", "plan (before replanning)"}, {"last_plan", "last plan (after replanning)"}};
    for (size_t i = 0; i < sizeof L / sizeof L[0]; i++)
        if (!strcmp(L[i].name, name))
            return L[i].label;
    return name;
}

typedef struct layout {
    double s;               /* scale: width / 1200 */
    int W, H;
    int mx, my, mw, mh;     /* map rectangle */
    int px, py, pw;         /* panel */
    double upx, upy;        /* CRS units per pixel */
} layout;

/* Footprint [lo, hi] of each output pixel in source cells along one axis. */
static void footprints(int n_out, double cells_per_px, int n_cells, int *lo, int *hi)
{
    for (int i = 0; i < n_out; i++) {
        double a = i * cells_per_px, b = (i + 1) * cells_per_px;
        int l = (int)floor(a + 1e-9), h = (int)ceil(b - 1e-9) - 1;
        if (cells_per_px < 1) /* enlarging: nearest */
            l = h = (int)floor((i + 0.5) * cells_per_px);
        if (h < l)
            h = l;
        lo[i] = l < 0 ? 0 : l >= n_cells ? n_cells - 1 : l;
        hi[i] = h < 0 ? 0 : h >= n_cells ? n_cells - 1 : h;
    }
}

int rnd_window_cells(const geo_grid *g, const double te[4], int win[4])
{
    /* fractional column and row of each window edge; the signs of gt[1]
     * and gt[5] decide which edge comes first */
    double c0 = (te[0] - g->gt[0]) / g->gt[1], c1 = (te[2] - g->gt[0]) / g->gt[1];
    double r0 = (te[3] - g->gt[3]) / g->gt[5], r1 = (te[1] - g->gt[3]) / g->gt[5];
    double clo = fmin(c0, c1), chi = fmax(c0, c1), rlo = fmin(r0, r1), rhi = fmax(r0, r1);
    if (!isfinite(clo) || !isfinite(chi) || !isfinite(rlo) || !isfinite(rhi))
        return 0;
    /* outward to whole cells; the tolerance keeps a window drawn on cell
     * boundaries (as printed by gdalinfo) from taking in a neighbour */
    const double eps = 1e-6;
    clo = fmax(floor(clo + eps), 0), chi = fmin(ceil(chi - eps), g->nx);
    rlo = fmax(floor(rlo + eps), 0), rhi = fmin(ceil(rhi - eps), g->ny);
    if (clo >= chi || rlo >= rhi)
        return 0;
    win[0] = (int)clo, win[1] = (int)rlo, win[2] = (int)chi, win[3] = (int)rhi;
    return 1;
}

/* The cells win (as rnd_window_cells) of src as a raster of their own: the
 * geotransform moves to the window's corner; nodata, labels and classes
 * are kept. */
static trv_status crop(trv_ctx *ctx, const geo_raster *src, const int win[4], geo_raster **out)
{
    const geo_grid *g = &src->grid;
    geo_grid sub = {win[2] - win[0],
                    win[3] - win[1],
                    {g->gt[0] + win[0] * g->gt[1], g->gt[1], 0, g->gt[3] + win[1] * g->gt[5], 0, g->gt[5]},
                    g->wkt};
    geo_raster *r = NULL;
    trv_status st = geo_raster_new(ctx, &sub, src->type, &r);
    if (!st)
        st = geo_raster_set_label(ctx, r, src->desc, src->unit);
    if (st) {
        geo_raster_free(r);
        return st;
    }
    r->has_nodata = src->has_nodata, r->nodata = src->nodata, r->classes = src->classes;
    for (int y = 0; y < sub.ny; y++) {
        size_t from = (size_t)(win[1] + y) * g->nx + win[0], to = (size_t)y * sub.nx;
        if (src->type == GEO_F32)
            memcpy(r->f32 + to, src->f32 + from, sizeof(float) * (size_t)sub.nx);
        else
            memcpy(r->u8 + to, src->u8 + from, (size_t)sub.nx);
    }
    *out = r;
    return TRV_OK;
}

/* The extent {xmin, ymin, xmax, ymax} of a grid in its CRS. */
static void grid_extent(const geo_grid *g, double bb[4])
{
    double x1 = g->gt[0] + g->nx * g->gt[1], y1 = g->gt[3] + g->ny * g->gt[5];
    bb[0] = fmin(g->gt[0], x1), bb[1] = fmin(g->gt[3], y1), bb[2] = fmax(g->gt[0], x1), bb[3] = fmax(g->gt[3], y1);
}

/* The cells of the layer grid g that o->te selects: the window checked,
 * brought into g's CRS when o->te_srs names another (the bounding box of
 * its densified edges, as gdalwarp -te_srs), and snapped outward. */
static trv_status layer_window(trv_ctx *ctx, const rnd_opts *o, const geo_grid *g, int win[4])
{
    const double *te = o->te;
    for (int k = 0; k < 4; k++)
        if (!isfinite(te[k]))
            return trv_error(ctx, TRV_ERR_USAGE, "invalid window: %g is not a finite number", te[k]);
    if (te[0] >= te[2])
        return trv_error(ctx, TRV_ERR_USAGE, "invalid window: xmin %.10g is not less than xmax %.10g", te[0], te[2]);
    if (te[1] >= te[3])
        return trv_error(ctx, TRV_ERR_USAGE, "invalid window: ymin %.10g is not less than ymax %.10g", te[1], te[3]);
    double bb[4] = {te[0], te[1], te[2], te[3]};
    char srs[80] = "";
    if (o->te_srs) {
        char *wkt = NULL, label[64];
        geo_ct *ct = NULL;
        trv_status st = geo_crs_wkt(ctx, o->te_srs, &wkt);
        if (!st && !g->wkt)
            st = trv_error(ctx, TRV_ERR_CRS, "'%s' has no CRS to bring the window (%s) into", o->layer, o->te_srs);
        if (!st)
            st = geo_ct_create(ctx, wkt, g->wkt, &ct);
        if (!st) {
            size_t bad = geo_ct_bounds(ct, te[0], te[1], te[2], te[3], bb);
            if (bad == 4 * 64 || !(bb[0] < bb[2]) || !(bb[1] < bb[3]))
                st = trv_error(ctx, TRV_ERR_CRS, "cannot transform the window %.10g %.10g %.10g %.10g from %s into the CRS of '%s'",
                               te[0], te[1], te[2], te[3], geo_crs_label(wkt, label, sizeof label), o->layer);
            snprintf(srs, sizeof srs, " (%s)", geo_crs_label(wkt, label, sizeof label));
        }
        geo_ct_free(ct);
        free(wkt);
        if (st)
            return st;
    }
    if (!rnd_window_cells(g, bb, win))
        return trv_error(ctx, TRV_ERR_DATA, "the window %.10g %.10g %.10g %.10g%s does not overlap '%s'", te[0], te[1],
                         te[2], te[3], srs, o->layer);
    return TRV_OK;
}

/* The hillshade behind a map of grid map. The whole map: the DEM's own
 * hillshade. A window: only the DEM cells under the window (brought into
 * the DEM's CRS) plus one cell each side where the DEM has it, so that
 * Horn's 3x3 neighbourhood at the window's edge sees the same cells as in
 * the full map and the edge shades alike; the margin is then cut off.
 * *out stays NULL when the DEM misses the window: the map is unshaded
 * there, as the full map would be. */
static trv_status map_hillshade(trv_ctx *ctx, const geo_raster *dem, const geo_grid *map, int windowed,
                                geo_raster **out)
{
    rnd_light light;
    rnd_light_default(&light);
    *out = NULL;
    if (!windowed)
        return rnd_hillshade(ctx, dem, &light, out);
    const geo_grid *d = &dem->grid;
    double bb[4];
    grid_extent(map, bb);
    if (!geo_crs_same(map->wkt, d->wkt)) {
        geo_ct *ct = NULL;
        trv_status st = geo_ct_create(ctx, map->wkt, d->wkt, &ct);
        if (st)
            return st;
        double e[4] = {bb[0], bb[1], bb[2], bb[3]};
        geo_ct_bounds(ct, e[0], e[1], e[2], e[3], bb);
        geo_ct_free(ct);
    }
    int win[4];
    if (!rnd_window_cells(d, bb, win))
        return TRV_OK;
    int wide[4] = {win[0] > 0 ? win[0] - 1 : 0, win[1] > 0 ? win[1] - 1 : 0, win[2] < d->nx ? win[2] + 1 : d->nx,
                   win[3] < d->ny ? win[3] + 1 : d->ny};
    int inner[4] = {win[0] - wide[0], win[1] - wide[1], win[2] - wide[0], win[3] - wide[1]};
    geo_raster *part = NULL, *hs = NULL;
    trv_status st = crop(ctx, dem, wide, &part);
    if (!st)
        st = rnd_hillshade(ctx, part, &light, &hs);
    if (!st)
        st = crop(ctx, hs, inner, out);
    geo_raster_free(part);
    geo_raster_free(hs);
    return st;
}

/* Shade values (0: none) for the map pixels, from a hillshade raster. On
 * the layer's grid the footprints average it; otherwise each pixel centre
 * is transformed into the DEM's CRS and takes the nearest shade cell. */
static trv_status shade_map(trv_ctx *ctx, const geo_raster *hs, const geo_grid *lg, const layout *L, const int *cx0,
                            const int *cx1, const int *cy0, const int *cy1, float *shade)
{
    const geo_grid *g = &hs->grid;
    const int nx = g->nx;
    if (!geo_grid_compare(ctx, g, "hillshade", lg, "layer")) {
        for (int j = 0; j < L->mh; j++)
            for (int i = 0; i < L->mw; i++) {
                double sum = 0;
                int n = 0;
                for (int y = cy0[j]; y <= cy1[j]; y++)
                    for (int x = cx0[i]; x <= cx1[i]; x++) {
                        float v = hs->f32[(size_t)y * nx + x];
                        if (v > 0)
                            sum += v, n++;
                    }
                shade[(size_t)j * L->mw + i] = n ? (float)(sum / n) : 0;
            }
        return TRV_OK;
    }
    geo_ct *ct = NULL;
    trv_status st = geo_ct_create(ctx, lg->wkt, g->wkt, &ct);
    double *xs = malloc(sizeof(double) * (size_t)L->mw), *ys = malloc(sizeof(double) * (size_t)L->mw);
    int *ok = malloc(sizeof(int) * (size_t)L->mw);
    if (!st && (!xs || !ys || !ok))
        st = trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
    for (int j = 0; j < L->mh && !st; j++) {
        double y = lg->gt[3] - (j + 0.5) * L->upy;
        if ((st = geo_ct_line(ctx, ct, lg->gt[0] + 0.5 * L->upx, L->upx, y, L->mw, 0.25 * fabs(g->gt[1]), xs, ys, ok)))
            break;
        for (int i = 0; i < L->mw; i++) {
            float v = 0;
            if (ok[i]) {
                double c = (xs[i] - g->gt[0]) / g->gt[1], r = (ys[i] - g->gt[3]) / g->gt[5];
                if (c >= 0 && r >= 0 && c < nx && r < g->ny)
                    v = hs->f32[(size_t)r * nx + (size_t)c];
            }
            shade[(size_t)j * L->mw + i] = v;
        }
    }
    free(xs);
    free(ys);
    free(ok);
    geo_ct_free(ct);
    return st;
}

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

static line_style line_style_for(int trajectory, const char *name, int with_trajectory)
{
    line_style ls = {{0, 0, 0}, 3.0, 5.6, 0.85, 0, 0, 1};
    if (trajectory) {
        rnd_route_rgb("trajectory", ls.rgb);
        ls.width = 2.0, ls.casing = 3.2, ls.pass = 3;
    } else if (name && !strcmp(name, "plan")) {
        rnd_route_rgb("plan", ls.rgb);
        ls.width = 11.0, ls.casing = 13.0, ls.casing_alpha = 0.6, ls.pass = 0;
    } else if (name && !strcmp(name, "last_plan")) {
        rnd_route_rgb("last_plan", ls.rgb);
        ls.width = 6.5, ls.casing = 0, ls.dash_on = 12, ls.dash_off = 6, ls.pass = 2;
    } else {
        if (rnd_route_rgb(name, ls.rgb))
            ls.dash_on = 9, ls.dash_off = 5, ls.casing_alpha = 0.6;
        if (with_trajectory)
            ls.width = 6.0, ls.casing = 8.0;
    }
    return ls;
}

/* Draw the overlays in passes: areas, roadmap, routes, trajectories, points. */
static void draw_overlays(rnd_canvas *c, rnd_font *font, rnd_ovl_set *ov, const layout *L, const geo_grid *g,
                          double m_per_unit)
{
    const double s = L->s;
    /* map CRS -> canvas pixels */
    for (int k = 0; k < ov->n; k++) {
        rnd_ovl_shape *sh = &ov->shape[k];
        for (int i = 0; i < sh->n; i++) {
            sh->x[2 * i] = L->mx + (sh->x[2 * i] - g->gt[0]) / L->upx;
            sh->x[2 * i + 1] = L->my + (g->gt[3] - sh->x[2 * i + 1]) / L->upy;
        }
    }
    int with_trajectory = 0;
    for (int k = 0; k < ov->n; k++)
        with_trajectory |= ov->shape[k].kind == RND_OVL_TRAJECTORY;
    double *xs = NULL, *ys = NULL;
    int cap = 0;
    /* passes: roadmap; plans and routes; areas (obstacles), translucent
     * over the plans that run through them and under the trajectory that
     * went round them; trajectories; points */
    for (int pass = 0; pass < 7; pass++)
        for (int k = 0; k < ov->n; k++) {
            rnd_ovl_shape *sh = &ov->shape[k];
            int lp = line_style_for(sh->kind == RND_OVL_TRAJECTORY, sh->name, with_trajectory).pass;
            int p = sh->kind == RND_OVL_EDGE || sh->kind == RND_OVL_NODE      ? 0
                  : sh->kind == RND_OVL_POLYGON || sh->kind == RND_OVL_CIRCLE ? 4
                  : sh->kind == RND_OVL_POINT                             ? 6
                  : lp < 3                                            ? 1 + lp
                                                                      : 5;
            if (p != pass)
                continue;
            if (sh->n > cap) {
                cap = sh->n;
                double *nx = realloc(xs, sizeof(double) * cap), *ny = realloc(ys, sizeof(double) * cap);
                if (nx)
                    xs = nx;
                if (ny)
                    ys = ny;
                if (!nx || !ny) {
                    cap = 0;
                    continue;
                }
            }
            for (int i = 0; i < sh->n; i++)
                xs[i] = sh->x[2 * i], ys[i] = sh->x[2 * i + 1];
            switch (sh->kind) {
            case RND_OVL_POLYGON: {
                rnd_cv_add_polygon(c, xs, ys, sh->start, sh->nrings);
                rnd_cv_paint(c, OBSTACLE_FILL, OBSTACLE_ALPHA);
                for (int r = 0; r < sh->nrings; r++)
                    rnd_cv_add_stroke(c, xs + sh->start[r], ys + sh->start[r], sh->start[r + 1] - sh->start[r], 1,
                                  OBSTACLE_LINE_W * s, 0, 0);
                rnd_cv_paint(c, OBSTACLE_LINE, 1);
                break;
            }
            case RND_OVL_CIRCLE: {
                /* radius_m in metres; never smaller than a few pixels, so a
                 * small obstacle stays visible on a map of the whole area */
                double r = fmax(sh->radius / m_per_unit / L->upx, 3 * s);
                rnd_cv_add_disc(c, xs[0], ys[0], r);
                rnd_cv_paint(c, OBSTACLE_FILL, OBSTACLE_ALPHA);
                rnd_cv_add_ring(c, xs[0], ys[0], r, OBSTACLE_LINE_W * s);
                rnd_cv_paint(c, OBSTACLE_LINE, 1);
                break;
            }
            case RND_OVL_EDGE: {
                static const unsigned char grey[3] = {70, 70, 70};
                rnd_cv_add_stroke(c, xs, ys, sh->n, 0, 0.7 * s, 0, 0);
                rnd_cv_paint(c, grey, 0.16);
                break;
            }
            case RND_OVL_NODE: {
                static const unsigned char grey[3] = {40, 40, 40};
                rnd_cv_add_disc(c, xs[0], ys[0], 0.9 * s);
                rnd_cv_paint(c, grey, 0.55);
                break;
            }
            case RND_OVL_ROUTE:
            case RND_OVL_OBSTACLE_LAYER:
            case RND_OVL_TRAJECTORY: {
                line_style ls = line_style_for(sh->kind == RND_OVL_TRAJECTORY, sh->name, with_trajectory);
                if (ls.casing > 0) {
                    rnd_cv_add_stroke(c, xs, ys, sh->n, 0, ls.casing * s, 0, 0);
                    rnd_cv_paint(c, WHITE, ls.casing_alpha);
                }
                rnd_cv_add_stroke(c, xs, ys, sh->n, 0, ls.width * s, ls.dash_on * s, ls.dash_off * s);
                rnd_cv_paint(c, ls.rgb, 1);
                break;
            }
            case RND_OVL_POINT: {
                int start = sh->name && !strcasecmp(sh->name, "start"), goal = sh->name && !strcasecmp(sh->name, "goal");
                static const unsigned char green[3] = {26, 152, 80}, red[3] = {215, 48, 39};
                double r = (start || goal ? 6.5 : 4) * s;
                rnd_cv_add_disc(c, xs[0], ys[0], r + 2 * s);
                rnd_cv_paint(c, WHITE, 1);
                rnd_cv_add_disc(c, xs[0], ys[0], r);
                rnd_cv_paint(c, start ? green : goal ? red : INK, 1);
                if (goal) {
                    rnd_cv_add_disc(c, xs[0], ys[0], r * 0.4);
                    rnd_cv_paint(c, WHITE, 1);
                }
                if (sh->name)
                    rnd_cv_text(c, font, 1, 13 * s, xs[0] + r + 5 * s, ys[0] + 4.5 * s, sh->name, INK, 2 * s);
                break;
            }
            }
        }
    free(xs);
    free(ys);
}

/* Unique route names (in drawing order) for the legend. */
static int route_names(const rnd_ovl_set *ov, const char **names, int max, int *edges, int *nodes, int *markers,
                       int *areas)
{
    int n = 0;
    *edges = *nodes = *markers = *areas = 0;
    for (int k = 0; k < ov->n; k++) {
        const rnd_ovl_shape *sh = &ov->shape[k];
        *edges |= sh->kind == RND_OVL_EDGE;
        *nodes |= sh->kind == RND_OVL_NODE;
        *markers |= sh->kind == RND_OVL_POINT && sh->name;
        *areas |= sh->kind == RND_OVL_POLYGON || sh->kind == RND_OVL_CIRCLE;
        if (sh->kind != RND_OVL_ROUTE && sh->kind != RND_OVL_TRAJECTORY)
            continue;
        const char *nm = sh->kind == RND_OVL_TRAJECTORY ? "trajectory" : sh->name ? sh->name : "route";
        int seen = 0;
        for (int i = 0; i < n; i++)
            seen |= !strcmp(names[i], nm);
        if (!seen && n < max)
            names[n++] = nm;
    }
    return n;
}

trv_status rnd_render(trv_ctx *ctx, const rnd_opts *o)
{
    const rnd_palette *pal = NULL;
    if (o->palette && !(pal = rnd_palette_find(o->palette))) {
        char list[256] = "";
        for (int i = 0; rnd_palette_at(i); i++)
            snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s", i ? ", " : "", rnd_palette_at(i)->name);
        return trv_error(ctx, TRV_ERR_USAGE, "unknown palette '%s' (one of %s)", o->palette, list);
    }
    if (o->width < RND_WIDTH_MIN || o->width > RND_WIDTH_MAX)
        return trv_error(ctx, TRV_ERR_USAGE, "width %d is out of range (%d to %d pixels)", o->width, RND_WIDTH_MIN,
                         RND_WIDTH_MAX);
    if (o->noverlays > RND_MAX_OVERLAYS)
        return trv_error(ctx, TRV_ERR_USAGE, "at most %d overlays", RND_MAX_OVERLAYS);

    trv_status st;
    geo_raster *r = NULL, *dem = NULL, *hs = NULL;
    cat_table *cat = calloc(1, sizeof *cat);
    rnd_ovl_set ov = {0};
    rnd_font *font = NULL;
    rnd_canvas *c = NULL;
    trv_outset *set = NULL;
    int *cx0 = NULL, *cx1 = NULL, *cy0 = NULL, *cy1 = NULL;
    float *shade = NULL;
    int is_byte = 0;
    if (!cat)
        return trv_error(ctx, TRV_ERR_NOMEM, "out of memory");

    /* the layer; categorical when Byte with a colour table */
    if ((st = geo_raster_read(ctx, o->layer, GEO_F32, &r)))
        goto done;
    if ((st = read_categories(ctx, o->layer, &is_byte, cat)))
        goto done;
    const int categorical = is_byte && cat->has_color;
    if (categorical) {
        geo_raster_free(r);
        r = NULL;
        if ((st = geo_raster_read(ctx, o->layer, GEO_U8, &r)))
            goto done;
    }
    if (!pal)
        pal = rnd_palette_auto(r->desc, r->unit);
    double lo = 0, hi = 1;
    size_t nvalid = 0;
    if (!categorical) {
        /* over the whole layer, window or not: a zoomed map keeps the full
         * map's colours and colour bar */
        double dmin = INFINITY, dmax = -INFINITY;
        for (size_t i = 0; i < (size_t)r->grid.nx * r->grid.ny; i++)
            if (!geo_raster_is_nodata(r, i)) {
                double v = r->f32[i];
                dmin = v < dmin ? v : dmin, dmax = v > dmax ? v : dmax;
                nvalid++;
            }
        if (!nvalid)
            dmin = 0, dmax = 1;
        rnd_layer_range(r->desc, r->unit, dmin, dmax, &lo, &hi);
    }
    if (o->has_te) {
        /* from here on the layer is the window's cells */
        int win[4];
        geo_raster *part = NULL;
        if ((st = layer_window(ctx, o, &r->grid, win)) || (st = crop(ctx, r, win, &part)))
            goto done;
        geo_raster_free(r);
        r = part;
    }
    const geo_grid *g = &r->grid;
    const int nx = g->nx, ny = g->ny;
    if (categorical) /* the legend lists the categories on the map */
        for (size_t i = 0; i < (size_t)nx * ny; i++)
            cat->count[r->u8[i]] += !geo_raster_is_nodata(r, i);
    if (o->hillshade) {
        if ((st = geo_raster_read(ctx, o->hillshade, GEO_F32, &dem)))
            goto done;
        if (!dem->grid.wkt != !g->wkt) {
            st = trv_error(ctx, TRV_ERR_CRS, "'%s' and '%s' must both have a CRS", o->hillshade, o->layer);
            goto done;
        }
        if ((st = map_hillshade(ctx, dem, g, o->has_te, &hs)))
            goto done;
    }
    for (int k = 0; k < o->noverlays; k++)
        if ((st = rnd_ovl_read(ctx, o->overlays[k], g->wkt, &ov)))
            goto done;
    if (o->route && rnd_ovl_keep_route(&ov, o->route) == 0) {
        st = trv_error(ctx, TRV_ERR_DATA, "no route named '%s' in the overlays", o->route);
        goto done;
    }
    if (o->has_te) {
        /* only what reaches into the window is drawn and listed in the legend */
        double bb[4];
        grid_extent(g, bb);
        rnd_ovl_keep_within(&ov, bb, 1 / geo_crs_metres_per_unit(g->wkt));
    }
    if ((st = rnd_font_open(ctx, o->font, &font)))
        goto done;

    /* ---- layout ---- */
    layout L = {0};
    const double s = L.s = o->width / 1200.0;
    const char *route_list[32];
    int has_edges, has_nodes, has_markers, has_areas;
    int nroutes = route_names(&ov, route_list, 32, &has_edges, &has_nodes, &has_markers, &has_areas);
    int has_trajectory = 0;
    for (int k = 0; k < nroutes; k++)
        has_trajectory |= !strcmp(route_list[k], "trajectory");
    int ncat = 0;
    for (int k = 0; categorical && k < 256; k++)
        ncat += cat->count[k] > 0;
    const int want_panel = !categorical || (o->legend && (ncat || nroutes || has_edges || has_markers || has_areas));
    const int margin = (int)lround(24 * s), title_h = (int)lround(52 * s), foot_h = (int)lround(58 * s);
    L.W = o->width;
    L.pw = want_panel ? (int)lround(260 * s) : 0;
    L.mx = margin;
    L.my = title_h;
    L.mw = L.W - 2 * margin - (want_panel ? L.pw + margin : 0);
    double ax = nx * fabs(g->gt[1]), ay = ny * fabs(g->gt[5]);
    L.mh = (int)lround(L.mw * ay / ax);
    if (L.mh < 1)
        L.mh = 1;
    if (L.mh > 4 * L.W) {
        st = trv_error(ctx, TRV_ERR_DATA, "'%s' is too narrow to draw (%d x %d cells)", o->layer, nx, ny);
        goto done;
    }
    L.upx = ax / L.mw, L.upy = ay / L.mh;
    L.px = L.mx + L.mw + margin, L.py = L.my;
    /* the panel's height decides when it is taller than the map */
    double row_h = 22 * s, panel_h = 0;
    if (!categorical)
        panel_h += 40 * s + fmin(360 * s, fmax(160 * s, L.mh * 0.6)) + 20 * s;
    if (o->legend) {
        if (categorical && ncat)
            panel_h += 36 * s + ncat * row_h;
        if (nroutes || has_edges || has_markers || has_areas)
            panel_h += 46 * s + (nroutes + has_edges + has_nodes + 2 * has_markers + has_areas) * row_h;
    }
    L.H = L.my + (int)fmax(L.mh, panel_h) + foot_h;
    if ((st = rnd_cv_new(ctx, L.W, L.H, &c)))
        goto done;

    /* ---- the map, row by row ---- */
    cx0 = malloc(sizeof(int) * L.mw), cx1 = malloc(sizeof(int) * L.mw);
    cy0 = malloc(sizeof(int) * L.mh), cy1 = malloc(sizeof(int) * L.mh);
    shade = hs ? calloc((size_t)L.mw * L.mh, sizeof(float)) : NULL;
    if (!cx0 || !cx1 || !cy0 || !cy1 || (hs && !shade)) {
        st = trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
        goto done;
    }
    footprints(L.mw, (double)nx / L.mw, nx, cx0, cx1);
    footprints(L.mh, (double)ny / L.mh, ny, cy0, cy1);
    if (hs && (st = shade_map(ctx, hs, g, &L, cx0, cx1, cy0, cy1, shade)))
        goto done;
    const double strength = 0.6;
    for (int j = 0; j < L.mh; j++) {
        unsigned char *row = c->rgb + ((size_t)(L.my + j) * L.W + L.mx) * 3;
        for (int i = 0; i < L.mw; i++) {
            unsigned char rgb[3];
            int valid = 1;
            if (categorical) {
                size_t k = (size_t)((cy0[j] + cy1[j]) / 2) * nx + (cx0[i] + cx1[i]) / 2;
                int code = r->u8[k];
                valid = !geo_raster_is_nodata(r, k) && cat->alpha[code] > 0;
                memcpy(rgb, cat->rgb[code], 3);
            } else {
                double sum = 0;
                int n = 0;
                for (int y = cy0[j]; y <= cy1[j]; y++)
                    for (int x = cx0[i]; x <= cx1[i]; x++) {
                        size_t k = (size_t)y * nx + x;
                        if (!geo_raster_is_nodata(r, k))
                            sum += r->f32[k], n++;
                    }
                valid = n > 0;
                if (valid)
                    rnd_palette_rgb(pal, (sum / n - lo) / (hi - lo), rgb);
            }
            if (!valid) {
                memcpy(row + 3 * i, NODATA_RGB, 3);
                continue;
            }
            if (shade && shade[(size_t)j * L.mw + i] > 0) {
                double f = 1 - strength * (1 - shade[(size_t)j * L.mw + i] / 255.0);
                for (int q = 0; q < 3; q++)
                    rgb[q] = (unsigned char)lround(rgb[q] * f);
            }
            memcpy(row + 3 * i, rgb, 3);
        }
        if ((st = trv_progress(ctx, 0.8 * (j + 1) / L.mh, "render")))
            goto done;
    }

    /* ---- overlays, clipped to the map ---- */
    double m_per_unit = geo_crs_metres_per_unit(g->wkt);
    if (ov.n) {
        draw_overlays(c, font, &ov, &L, g, m_per_unit);
        /* wipe anything drawn outside the map back to white */
        for (int y = 0; y < L.H; y++)
            for (int x = 0; x < L.W; x++)
                if (x < L.mx || x >= L.mx + L.mw || y < L.my || y >= L.my + L.mh)
                    memset(c->rgb + ((size_t)y * L.W + x) * 3, 255, 3);
    }

    /* ---- frame, title, north arrow, scale bar, footer ---- */
    {
        double fx[4] = {L.mx - 0.5, L.mx + L.mw + 0.5, L.mx + L.mw + 0.5, L.mx - 0.5};
        double fy[4] = {L.my - 0.5, L.my - 0.5, L.my + L.mh + 0.5, L.my + L.mh + 0.5};
        rnd_cv_add_stroke(c, fx, fy, 4, 1, 1.0 * fmax(1, s), 0, 0);
        rnd_cv_paint(c, FRAME, 1);
    }
    {
        const char *title = o->title;
        char fallback[256];
        if (!title || !*title) {
            if (r->desc && *r->desc) {
                title = r->desc;
            } else {
                const char *b = strrchr(o->layer, '/');
                snprintf(fallback, sizeof fallback, "%s", b ? b + 1 : o->layer);
                title = fallback;
            }
        }
        char cap[256];
        snprintf(cap, sizeof cap, "%s", title);
        if (cap[0] >= 'a' && cap[0] <= 'z' && !o->title)
            cap[0] = (char)(cap[0] - 'a' + 'A');
        rnd_cv_text(c, font, 1, 22 * s, L.mx, L.my - 16 * s, cap, INK, 0);
    }
    {   /* north arrow: grid north, top right inside the map */
        double cx = L.mx + L.mw - 30 * s, cy = L.my + 30 * s;
        rnd_cv_add_disc(c, cx, cy, 20 * s);
        rnd_cv_paint(c, WHITE, 0.8);
        double lx[3] = {cx, cx - 7 * s, cx}, ly[3] = {cy - 6 * s, cy + 15 * s, cy + 9 * s};
        double rx[3] = {cx, cx + 7 * s, cx}, ry[3] = {cy - 6 * s, cy + 15 * s, cy + 9 * s};
        int st3[2] = {0, 3};
        rnd_cv_add_polygon(c, lx, ly, st3, 1);
        rnd_cv_paint(c, INK, 1);
        rnd_cv_add_polygon(c, rx, ry, st3, 1);
        rnd_cv_paint(c, GREY_TEXT, 1);
        double tw = rnd_font_text_width(font, 1, 10 * s, "N");
        rnd_cv_text(c, font, 1, 10 * s, cx - tw / 2, cy - 8 * s, "N", INK, 0);
    }
    {   /* scale bar under the map, left */
        double mpu = m_per_unit;
        if (geo_crs_is_geographic(g->wkt) == 1)
            mpu = 111320.0 * cos((g->gt[3] + g->gt[5] * ny / 2) * M_PI / 180);
        double m_per_px = L.upx * mpu, len_m = round_length(m_per_px * L.mw / 4);
        double len_px = len_m / m_per_px, x0 = L.mx, y0 = L.my + L.mh + 16 * s, hgt = 6 * s;
        for (int k = 0; k < 4; k++) {
            rnd_cv_fill_rect(c, x0 + k * len_px / 4, y0, x0 + (k + 1) * len_px / 4, y0 + hgt, k % 2 ? WHITE : INK, 1);
        }
        double bx[4] = {x0, x0 + len_px, x0 + len_px, x0}, by[4] = {y0, y0, y0 + hgt, y0 + hgt};
        rnd_cv_add_stroke(c, bx, by, 4, 1, 1.0 * fmax(1, s), 0, 0);
        rnd_cv_paint(c, INK, 1);
        char lab[32];
        fmt_length(lab, sizeof lab, len_m);
        rnd_cv_text(c, font, 0, 12 * s, x0 - rnd_font_text_width(font, 0, 12 * s, "0") / 2, y0 + hgt + 15 * s, "0", INK, 0);
        fmt_length(lab, sizeof lab, len_m / 2);
        char half[32];
        snprintf(half, sizeof half, "%g", len_m >= 1000 ? len_m / 2000 : len_m / 2);
        rnd_cv_text(c, font, 0, 12 * s, x0 + len_px / 2 - rnd_font_text_width(font, 0, 12 * s, half) / 2, y0 + hgt + 15 * s, half,
                INK, 0);
        fmt_length(lab, sizeof lab, len_m);
        rnd_cv_text(c, font, 0, 12 * s, x0 + len_px - rnd_font_text_width(font, 0, 12 * s, lab) / 2, y0 + hgt + 15 * s, lab, INK, 0);
        /* footer: CRS and cell size, right-aligned */
        char crs[64], foot[160];
        geo_crs_label(g->wkt, crs, sizeof crs);
        snprintf(foot, sizeof foot, "%s · %g m cells · %d x %d%s", g->wkt ? crs : "no CRS", fabs(g->gt[1]) * mpu, nx,
                 ny, hs ? " · hillshade az 315° alt 45°" : "");
        rnd_cv_text(c, font, 0, 11 * s, L.mx + L.mw - rnd_font_text_width(font, 0, 11 * s, foot), y0 + hgt + 15 * s, foot,
                GREY_TEXT, 0);
    }

    /* ---- panel: colour bar, categories, routes ---- */
    double py = L.py;
    const double tx = L.px, fs = 13 * s;
    if (!categorical) {
        /* the quantity (the description before any parenthesis) and its unit */
        char head[160], what[128];
        snprintf(what, sizeof what, "%s", r->desc && *r->desc ? r->desc : "value");
        char *paren = strstr(what, " (");
        if (paren)
            *paren = 0;
        if (r->unit && *r->unit)
            snprintf(head, sizeof head, "%s (%s)", what, r->unit);
        else
            snprintf(head, sizeof head, "%s", what);
        rnd_cv_text(c, font, 1, 14 * s, tx, py + 14 * s, head, INK, 0);
        double bar_top = py + 30 * s, bar_h = fmin(360 * s, fmax(160 * s, L.mh * 0.6)), bar_w = 22 * s;
        for (int k = 0; k < (int)lround(bar_h); k++) {
            unsigned char rgb[3];
            rnd_palette_rgb(pal, 1 - (k + 0.5) / bar_h, rgb);
            rnd_cv_fill_rect(c, tx, bar_top + k, tx + bar_w, fmin(bar_top + k + 1, bar_top + bar_h), rgb, 1);
        }
        double bx[4] = {tx - 0.5, tx + bar_w + 0.5, tx + bar_w + 0.5, tx - 0.5};
        double by[4] = {bar_top - 0.5, bar_top - 0.5, bar_top + bar_h + 0.5, bar_top + bar_h + 0.5};
        rnd_cv_add_stroke(c, bx, by, 4, 1, 1, 0, 0);
        rnd_cv_paint(c, FRAME, 1);
        double step = nice_step(hi - lo, 5);
        for (double v = ceil(lo / step - 1e-9) * step; v <= hi + step * 1e-9; v += step) {
            double yy = bar_top + bar_h * (1 - (v - lo) / (hi - lo));
            rnd_cv_fill_rect(c, tx + bar_w, yy - 0.5, tx + bar_w + 5 * s, yy + 0.5, INK, 1);
            char lab[32];
            fmt_value(lab, sizeof lab, v, step);
            rnd_cv_text(c, font, 0, 12 * s, tx + bar_w + 8 * s, yy + 4.5 * s, lab, INK, 0);
        }
        char range[96], a[32], b[32];
        fmt_value(a, sizeof a, lo, step / 10);
        fmt_value(b, sizeof b, hi, step / 10);
        snprintf(range, sizeof range, "range %s to %s", a, b);
        rnd_cv_text(c, font, 0, 11 * s, tx, bar_top + bar_h + 18 * s, range, GREY_TEXT, 0);
        py = bar_top + bar_h + 40 * s;
    }
    if (o->legend && categorical && ncat) {
        rnd_cv_text(c, font, 1, 14 * s, tx, py + 14 * s, "legend", INK, 0);
        py += 28 * s;
        for (int k = 0; k < 256; k++) {
            if (!cat->count[k])
                continue;
            rnd_cv_fill_rect(c, tx, py, tx + 22 * s, py + 14 * s, cat->rgb[k], 1);
            double bx[4] = {tx - 0.5, tx + 22 * s + 0.5, tx + 22 * s + 0.5, tx - 0.5};
            double by[4] = {py - 0.5, py - 0.5, py + 14 * s + 0.5, py + 14 * s + 0.5};
            rnd_cv_add_stroke(c, bx, by, 4, 1, 1, 0, 0);
            rnd_cv_paint(c, FRAME, 0.6);
            char lab[160];
            if (cat->name[k])
                snprintf(lab, sizeof lab, "%s", cat->name[k]);
            else
                snprintf(lab, sizeof lab, "%d", k);
            rnd_cv_text(c, font, 0, fs, tx + 30 * s, py + 12 * s, lab, INK, 0);
            py += row_h;
        }
        py += 14 * s;
    }
    if (o->legend && (nroutes || has_edges || has_markers || has_areas)) {
        rnd_cv_text(c, font, 1, 14 * s, tx, py + 14 * s, nroutes ? "routes" : "overlays", INK, 0);
        py += 28 * s;
        for (int k = 0; k < nroutes; k++) {
            line_style ls = line_style_for(!strcmp(route_list[k], "trajectory"), route_list[k], has_trajectory);
            double lx[2] = {tx, tx + 30 * s}, ly[2] = {py + 7 * s, py + 7 * s};
            rnd_cv_add_stroke(c, lx, ly, 2, 0, fmin(ls.width, 9) * s, ls.dash_on * s, ls.dash_off * s);
            rnd_cv_paint(c, ls.rgb, 1);
            rnd_cv_text(c, font, 0, fs, tx + 38 * s, py + 12 * s, route_label(route_list[k]), INK, 0);
            py += row_h;
        }
        if (has_edges) {
            static const unsigned char grey[3] = {70, 70, 70};
            double lx[2] = {tx, tx + 30 * s}, ly[2] = {py + 7 * s, py + 7 * s};
            rnd_cv_add_stroke(c, lx, ly, 2, 0, 1.2 * s, 0, 0);
            rnd_cv_paint(c, grey, 0.5);
            rnd_cv_text(c, font, 0, fs, tx + 38 * s, py + 12 * s, "roadmap edges", INK, 0);
            py += row_h;
        }
        if (has_nodes) {
            static const unsigned char grey[3] = {40, 40, 40};
            rnd_cv_add_disc(c, tx + 15 * s, py + 7 * s, 1.6 * s);
            rnd_cv_paint(c, grey, 0.8);
            rnd_cv_text(c, font, 0, fs, tx + 38 * s, py + 12 * s, "roadmap nodes", INK, 0);
            py += row_h;
        }
        if (has_areas) {
            rnd_cv_fill_rect(c, tx + 4 * s, py, tx + 26 * s, py + 14 * s, OBSTACLE_FILL, OBSTACLE_ALPHA);
            double bx[4] = {tx + 4 * s, tx + 26 * s, tx + 26 * s, tx + 4 * s}, by[4] = {py, py, py + 14 * s, py + 14 * s};
            rnd_cv_add_stroke(c, bx, by, 4, 1, OBSTACLE_LINE_W * s, 0, 0);
            rnd_cv_paint(c, OBSTACLE_LINE, 1);
            rnd_cv_text(c, font, 0, fs, tx + 38 * s, py + 12 * s, "obstacles", INK, 0);
            py += row_h;
        }
        if (has_markers) {
            static const unsigned char green[3] = {26, 152, 80}, red[3] = {215, 48, 39};
            for (int k = 0; k < 2; k++) {
                rnd_cv_add_disc(c, tx + 15 * s, py + 7 * s, 6.5 * s);
                rnd_cv_paint(c, k ? red : green, 1);
                if (k) {
                    rnd_cv_add_disc(c, tx + 15 * s, py + 7 * s, 2.6 * s);
                    rnd_cv_paint(c, WHITE, 1);
                }
                rnd_cv_text(c, font, 0, fs, tx + 38 * s, py + 12 * s, k ? "goal" : "start", INK, 0);
                py += row_h;
            }
        }
    }

    /* ---- write ---- */
    const char *tmp;
    if (!(set = trv_outset_new()) || !(tmp = trv_outset_add(set, o->output))) {
        st = trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
        goto done;
    }
    if (!(st = rnd_cv_write_png(ctx, c, tmp, o->output)) && !(st = trv_outset_commit(ctx, set)))
        st = trv_progress(ctx, 1.0, "render");
done:
    trv_outset_free(set);
    free(cx0);
    free(cx1);
    free(cy0);
    free(cy1);
    free(shade);
    rnd_cv_free(c);
    rnd_font_close(font);
    rnd_ovl_clear(&ov);
    cat_clear(cat);
    free(cat);
    geo_raster_free(r);
    geo_raster_free(dem);
    geo_raster_free(hs);
    return st;
}
