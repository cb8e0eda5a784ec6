/* rnd_render: a layer as a PNG map (see render.h for the look and the
 * hillshade equation). Steps: read the layer (and its GDAL colour table
 * and category names), lay out title, map, panel and footer for the
 * requested width, colour the map row by row (area mean for continuous
 * layers, nearest for categories), shade it, draw the overlays
 * (overlay_draw.c), frame, title, north arrow, scale bar and footer
 * (frame.c), the panel's colour bar and legends (legend.c), write the PNG
 * atomically. */
#include "map_priv.h"
#include "geo/block.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void rnd_opts_init(rnd_opts *o)
{
    memset(o, 0, sizeof *o);
    o->width = RND_WIDTH_DEFAULT;
}

static void cat_clear(cat_table *t)
{
    for (int i = 0; i < 256; i++)
        free(t->name[i]);
}

/* The colour table and category names of path's band 1, and its label
 * (as geo_raster_read gives it) set on r. */
static trv_status read_categories(trv_ctx *ctx, const char *path, int *is_byte, cat_table *t, geo_raster *r)
{
    geo_raster_info info;
    trv_status st = geo_raster_info_read(ctx, path, &info);
    if (st)
        return st;
    if ((st = geo_raster_set_label(ctx, r, *info.desc ? info.desc : NULL, *info.unit ? info.unit : NULL))) {
        geo_raster_info_clear(&info);
        return st;
    }
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

/* The grid of the cells win (as rnd_window_cells) of g: the geotransform
 * moved to the window's corner. */
static geo_grid window_grid(const geo_grid *g, const int win[4])
{
    return (geo_grid){win[2] - win[0],
                      win[3] - win[1],
                      {g->gt[0] + win[0] * g->gt[1], g->gt[1], 0, g->gt[3] + win[1] * g->gt[5], 0, g->gt[5]},
                      g->wkt};
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

/* The hillshade behind a map of grid map: the DEM cells win it shades
 * and their grid hg (*hg's CRS borrowed from d). The whole map: the whole
 * DEM. A window: only the DEM cells under the window (brought into the
 * DEM's CRS), each shaded with the DEM cells round it (the shade pass
 * reads them with a halo of 1), so that Horn's 3x3 neighbourhood at the
 * window's edge sees the same cells as in the full map and the edge
 * shades alike; hg as the crop (win) of its one-cell margin's crop (wide)
 * gives it. 0 when
 * the DEM misses the window: the map is unshaded there, as the full map
 * would be. */
static int hillshade_window(trv_ctx *ctx, const geo_grid *d, const geo_grid *map, int windowed, int win[4],
                            geo_grid *hg, trv_status *st)
{
    *st = TRV_OK;
    int whole[4] = {0, 0, d->nx, d->ny}, wide[4];
    if (!windowed) {
        memcpy(win, whole, sizeof whole);
        *hg = *d;
        return 1;
    }
    double bb[4];
    grid_extent(map, bb);
    if (!geo_crs_same(map->wkt, d->wkt)) {
        geo_ct *ct = NULL;
        if ((*st = geo_ct_create(ctx, map->wkt, d->wkt, &ct)))
            return 0;
        double e[4] = {bb[0], bb[1], bb[2], bb[3]};
        geo_ct_bounds(ct, e[0], e[1], e[2], e[3], bb);
        geo_ct_free(ct);
    }
    if (!rnd_window_cells(d, bb, win))
        return 0;
    wide[0] = win[0] > 0 ? win[0] - 1 : 0, wide[1] = win[1] > 0 ? win[1] - 1 : 0;
    wide[2] = win[2] < d->nx ? win[2] + 1 : d->nx, wide[3] = win[3] < d->ny ? win[3] + 1 : d->ny;
    /* the margin's grid, then the window's inside it (the geotransform as
     * the crop of the crop gave it) */
    int inner[4] = {win[0] - wide[0], win[1] - wide[1], win[2] - wide[0], win[3] - wide[1]};
    geo_grid part = window_grid(d, wide);
    *hg = window_grid(&part, inner);
    return 1;
}

/* ---- the options, the layer, the hillshade, the overlays --------------------- */

static trv_status check_opts(trv_ctx *ctx, const rnd_opts *o, const rnd_palette **pal)
{
    if (o->palette && !(*pal = rnd_palette_find(o->palette))) {
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
    return TRV_OK;
}

/* The layer, opened to be read by row blocks; categorical when Byte
 * with a colour table. A continuous layer's colour range is taken over the
 * whole layer (a first pass over its blocks), window or not: a zoomed map
 * keeps the full map's colours and colour bar. With a window the map's
 * grid (m->r) is the window's cells'. */
static trv_status read_layer(trv_ctx *ctx, const rnd_opts *o, rnd_map *m)
{
    trv_status st;
    cat_table *cat = m->cat;
    int is_byte = 0;
    if (!(m->r = calloc(1, sizeof *m->r)))
        return trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
    geo_raster *r = m->r;
    if ((st = geo_block_reader_open(ctx, o->layer, GEO_F32, 0, &m->rd)) ||
        (st = read_categories(ctx, o->layer, &is_byte, cat, r)))
        return st;
    const int categorical = m->categorical = is_byte && cat->has_color;
    if (categorical) {
        geo_block_reader_close(m->rd);
        m->rd = NULL;
        if ((st = geo_block_reader_open(ctx, o->layer, GEO_U8, 0, &m->rd)))
            return st;
    }
    const geo_grid *g = geo_block_reader_grid(m->rd);
    r->type = categorical ? GEO_U8 : GEO_F32;
    if (!m->pal)
        m->pal = rnd_palette_auto(r->desc, r->unit);
    double lo = 0, hi = 1;
    if (!categorical) {
        double dmin, dmax;
        size_t nvalid;
        if ((st = rnd_layer_minmax(ctx, m->rd, &dmin, &dmax, &nvalid)))
            return st;
        if (!nvalid)
            dmin = 0, dmax = 1;
        rnd_layer_range(r->desc, r->unit, dmin, dmax, &lo, &hi);
    }
    m->lo = lo, m->hi = hi;
    int *win = m->win;
    win[0] = win[1] = 0, win[2] = g->nx, win[3] = g->ny;
    if (o->has_te && (st = layer_window(ctx, o, g, win)))
        return st;
    geo_grid sub = o->has_te ? window_grid(g, win) : *g;
    if ((st = geo_grid_copy(ctx, &r->grid, &sub)))
        return st;
    /* the legend lists the categories on the map */
    return categorical ? rnd_layer_counts(ctx, m->rd, win, cat->count) : TRV_OK;
}

/* The DEM, opened to be read by row blocks with the hillshade's one-row halo. */
static trv_status read_hillshade(trv_ctx *ctx, const rnd_opts *o, rnd_map *m)
{
    trv_status st;
    const geo_grid *g = &m->r->grid;
    if ((st = geo_block_reader_open(ctx, o->hillshade, GEO_F32, 1, &m->dem)))
        return st;
    if (!geo_block_reader_grid(m->dem)->wkt != !g->wkt)
        return trv_error(ctx, TRV_ERR_CRS, "'%s' and '%s' must both have a CRS", o->hillshade, o->layer);
    return TRV_OK;
}

/* route_by_file: the lines of shapes from..n-1 named after path's file
 * name without directory and extension, coloured by that name's rank
 * among stems[0..*nstems) (added when new). -1: out of memory. */
static int name_by_file(rnd_ovl_set *ov, int from, const char *path, char stems[][64], int *nstems)
{
    char stem[64];
    const char *b = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
    snprintf(stem, sizeof stem, "%s", b);
    if (strchr(stem, '.'))
        *strchr(stem, '.') = '\0';
    int rank = 0;
    while (rank < *nstems && strcmp(stems[rank], stem))
        rank++;
    if (rank == *nstems)
        snprintf(stems[(*nstems)++], 64, "%s", stem);
    for (int i = from; i < ov->n; i++) {
        rnd_ovl_shape *sh = &ov->shape[i];
        if (sh->kind != RND_OVL_ROUTE)
            continue;
        free(sh->name);
        if (!(sh->name = strdup(stem)))
            return -1;
        sh->colour = rank;
    }
    return 0;
}

/* The overlays in the layer's CRS; with a window only what reaches into
 * it is drawn and listed in the legend. */
static trv_status read_overlays(trv_ctx *ctx, const rnd_opts *o, rnd_map *m)
{
    trv_status st;
    const geo_grid *g = &m->r->grid;
    char stems[RND_MAX_OVERLAYS][64];
    int nstems = 0;
    for (int k = 0; k < o->noverlays; k++) {
        int from = m->ov.n;
        if ((st = rnd_ovl_read(ctx, o->overlays[k], g->wkt, &m->ov)))
            return st;
        if (o->route_by_file && name_by_file(&m->ov, from, o->overlays[k], stems, &nstems))
            return trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
    }
    if (o->route && rnd_ovl_keep_route(&m->ov, o->route) == 0)
        return trv_error(ctx, TRV_ERR_DATA, "no route named '%s' in the overlays", o->route);
    if (o->has_te) {
        double bb[4];
        grid_extent(g, bb);
        rnd_ovl_keep_within(&m->ov, bb, 1 / geo_crs_metres_per_unit(g->wkt));
    }
    return TRV_OK;
}

/* ---- layout: title, map, panel, footer for the requested width ------------------ */

static trv_status lay_out(trv_ctx *ctx, const rnd_opts *o, rnd_map *m)
{
    const geo_grid *g = &m->r->grid;
    const int nx = g->nx, ny = g->ny, categorical = m->categorical;
    const cat_table *cat = m->cat;
    layout L = {0};
    const double s = L.s = o->width / 1200.0;
    int nroutes = m->nroutes = rnd_map_route_names(&m->ov, m->route_list, 32, &m->has_edges, &m->has_nodes,
                                                   &m->has_markers, &m->has_areas);
    const int has_edges = m->has_edges, has_nodes = m->has_nodes, has_markers = m->has_markers,
              has_areas = m->has_areas;
    for (int k = 0; k < nroutes; k++)
        m->has_trajectory |= !strcmp(m->route_list[k], "trajectory");
    int ncat = 0;
    for (int k = 0; categorical && k < 256; k++)
        ncat += cat->count[k] > 0;
    m->ncat = ncat;
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
    if (L.mh > 4 * L.W)
        return trv_error(ctx, TRV_ERR_DATA, "'%s' is too narrow to draw (%d x %d cells)", o->layer, nx, ny);
    L.upx = ax / L.mw, L.upy = ay / L.mh;
    L.px = L.mx + L.mw + margin, L.py = L.my;
    /* the panel's height decides when it is taller than the map */
    double row_h = m->row_h = 22 * s, panel_h = 0;
    if (!categorical)
        panel_h += 40 * s + fmin(360 * s, fmax(160 * s, L.mh * 0.6)) + 20 * s;
    if (o->legend) {
        if (categorical && ncat)
            panel_h += 36 * s + ncat * row_h;
        if (nroutes || has_edges || has_markers || has_areas)
            panel_h += 46 * s + (nroutes + has_edges + has_nodes + (has_markers & 1) + (has_markers >> 1) + has_areas) * row_h;
    }
    L.H = L.my + (int)fmax(L.mh, panel_h) + foot_h;
    m->L = L;
    return rnd_cv_new(ctx, L.W, L.H, &m->c);
}

/* ---- the map, row by row: area mean (continuous) or nearest (categories), shaded -- */

/* The shade values (0: none) of the map's pixels, or NULL without a
 * hillshade or where the DEM misses the window. */
static trv_status map_shade(trv_ctx *ctx, rnd_map *m, const rnd_foot *f, float **out)
{
    *out = NULL;
    if (!m->dem)
        return TRV_OK;
    int win[4];
    geo_grid hg;
    trv_status st;
    if (!hillshade_window(ctx, f->dem, f->map, m->o->has_te, win, &hg, &st))
        return st;
    float *shade = calloc((size_t)f->mw * f->mh, sizeof(float));
    if (!shade)
        return trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
    if ((st = rnd_map_shade(ctx, m->dem, f, win, &hg, shade))) {
        free(shade);
        return st;
    }
    m->shaded = 1;
    *out = shade;
    return TRV_OK;
}

/* Pixel k's colour from its cells; 0 when it has none (nodata). */
static int pixel_rgb(const rnd_map *m, const rnd_cells *cells, size_t k, unsigned char rgb[3])
{
    if (m->categorical) {
        int code = cells->code[k];
        memcpy(rgb, m->cat->rgb[code], 3);
        return !cells->nodata[k] && m->cat->alpha[code] > 0;
    }
    if (cells->n[k])
        rnd_palette_rgb(m->pal, (cells->sum[k] / cells->n[k] - m->lo) / (m->hi - m->lo), rgb);
    return cells->n[k] > 0;
}

static trv_status draw_map(trv_ctx *ctx, rnd_map *m)
{
    trv_status st = TRV_OK;
    const layout L = m->L;
    const geo_grid *g = &m->r->grid;
    const int nx = g->nx, ny = g->ny;
    rnd_canvas *c = m->c;
    rnd_cells cells = {.categorical = m->categorical};
    float *shade = NULL;
    int *cx0 = malloc(sizeof(int) * L.mw), *cx1 = malloc(sizeof(int) * L.mw);
    int *cy0 = malloc(sizeof(int) * L.mh), *cy1 = malloc(sizeof(int) * L.mh);
    if (!cx0 || !cx1 || !cy0 || !cy1) {
        st = trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
        goto done;
    }
    footprints(L.mw, (double)nx / L.mw, nx, cx0, cx1);
    footprints(L.mh, (double)ny / L.mh, ny, cy0, cy1);
    const rnd_foot f = {L.mw, L.mh, cx0, cx1, cy0, cy1, L.upx, L.upy, g,
                        m->dem ? geo_block_reader_grid(m->dem) : NULL};
    if ((st = rnd_map_cells(ctx, m->rd, m->win, &f, &cells)) || (st = map_shade(ctx, m, &f, &shade)))
        goto done;
    const double strength = 0.6;
    for (int j = 0; j < L.mh; j++) {
        unsigned char *row = c->rgb + ((size_t)(L.my + j) * L.W + L.mx) * 3;
        for (int i = 0; i < L.mw; i++) {
            size_t k = (size_t)j * L.mw + i;
            unsigned char rgb[3];
            if (!pixel_rgb(m, &cells, k, rgb)) {
                memcpy(row + 3 * i, NODATA_RGB, 3);
                continue;
            }
            if (shade && shade[k] > 0) {
                double fs = 1 - strength * (1 - shade[k] / 255.0);
                for (int q = 0; q < 3; q++)
                    rgb[q] = (unsigned char)lround(rgb[q] * fs);
            }
            memcpy(row + 3 * i, rgb, 3);
        }
        if ((st = trv_progress(ctx, 0.8 * (j + 1) / L.mh, "render")))
            goto done;
    }
done:
    free(cx0);
    free(cx1);
    free(cy0);
    free(cy1);
    free(shade);
    rnd_cells_clear(&cells);
    return st;
}

/* The overlays, clipped to the map: anything drawn outside it is wiped
 * back to white. */
static void draw_overlays(rnd_map *m)
{
    const layout L = m->L;
    rnd_canvas *c = m->c;
    rnd_map_overlays(c, m->font, &m->ov, &L, &m->r->grid, m->m_per_unit);
    for (int y = 0; y < L.H; y++)
        for (int x = 0; x < L.W; x++)
            if (x < L.mx || x >= L.mx + L.mw || y < L.my || y >= L.my + L.mh)
                memset(c->rgb + ((size_t)y * L.W + x) * 3, 255, 3);
}

/* ---- write: the PNG, atomically ------------------------------------------------- */

static trv_status write_png(trv_ctx *ctx, const rnd_opts *o, const rnd_canvas *c)
{
    trv_status st;
    const char *tmp;
    trv_outset *set = trv_outset_new();
    if (!set || !(tmp = trv_outset_add(set, o->output))) {
        trv_outset_free(set);
        return trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
    }
    if (!(st = rnd_cv_write_png(ctx, c, tmp, o->output)) && !(st = trv_outset_commit(ctx, set)))
        st = trv_progress(ctx, 1.0, "render");
    trv_outset_free(set);
    return st;
}

trv_status rnd_render(trv_ctx *ctx, const rnd_opts *o)
{
    rnd_map m = {.o = o};
    trv_status st = check_opts(ctx, o, &m.pal);
    if (st)
        return st;
    if (!(m.cat = calloc(1, sizeof *m.cat)))
        return trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
    if ((st = read_layer(ctx, o, &m)) || (o->hillshade && (st = read_hillshade(ctx, o, &m))) ||
        (st = read_overlays(ctx, o, &m)) || (st = rnd_font_open(ctx, o->font, &m.font)) ||
        (st = lay_out(ctx, o, &m)) || (st = draw_map(ctx, &m)))
        goto done;
    m.m_per_unit = geo_crs_metres_per_unit(m.r->grid.wkt);
    if (m.ov.n)
        draw_overlays(&m);
    rnd_map_frame(&m);
    rnd_map_title(&m);
    rnd_map_north_arrow(&m);
    rnd_map_scale_bar(&m);
    /* the panel, top down */
    double py = m.L.py;
    if (!m.categorical)
        py = rnd_map_colour_bar(&m, py);
    if (o->legend && m.categorical && m.ncat)
        py = rnd_map_categories(&m, py);
    if (o->legend && (m.nroutes || m.has_edges || m.has_markers || m.has_areas))
        rnd_map_overlay_legend(&m, py);
    st = write_png(ctx, o, m.c);
done:
    rnd_cv_free(m.c);
    rnd_font_close(m.font);
    rnd_ovl_clear(&m.ov);
    cat_clear(m.cat);
    free(m.cat);
    geo_raster_free(m.r);
    geo_block_reader_close(m.rd);
    geo_block_reader_close(m.dem);
    return st;
}
