/* The map's frame and what sits on and round it (rnd_render): the frame,
 * the title above the map, the north arrow (grid north) in its top right
 * corner, the scale bar under it (a round length, 1, 2 or 5 x 10^k, about
 * a quarter of the map) and the footer (CRS, cell size, grid, hillshade). */
#include "map_priv.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

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

/* The frame round the map. */
void rnd_map_frame(rnd_map *m)
{
    rnd_canvas *c = m->c;
    const layout L = m->L;
    const double s = L.s;
    double fx[4] = {L.mx - 0.5, L.mx + L.mw + 0.5, L.mx + L.mw + 0.5, L.mx - 0.5};
    double fy[4] = {L.my - 0.5, L.my - 0.5, L.my + L.mh + 0.5, L.my + L.mh + 0.5};
    rnd_cv_add_stroke(c, fx, fy, 4, 1, 1.0 * fmax(1, s), 0, 0);
    rnd_cv_paint(c, FRAME, 1);
}

/* The title: --title, else the layer's description, else its file name. */
void rnd_map_title(rnd_map *m)
{
    const rnd_opts *o = m->o;
    const geo_raster *r = m->r;
    rnd_canvas *c = m->c;
    rnd_font *font = m->font;
    const layout L = m->L;
    const double s = L.s;
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

/* North arrow: grid north, top right inside the map. */
void rnd_map_north_arrow(rnd_map *m)
{
    rnd_canvas *c = m->c;
    rnd_font *font = m->font;
    const layout L = m->L;
    const double s = L.s;
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

/* Scale bar under the map, left; the footer under the map, right. */
void rnd_map_scale_bar(rnd_map *m)
{
    rnd_canvas *c = m->c;
    rnd_font *font = m->font;
    const layout L = m->L;
    const double s = L.s;
    const geo_grid *g = &m->r->grid;
    const int nx = g->nx, ny = g->ny;
    const int hs = m->shaded;
    const double m_per_unit = m->m_per_unit;
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
