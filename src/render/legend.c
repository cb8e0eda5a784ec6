/* The panel beside the map (rnd_render), top down: a continuous layer's
 * colour bar with its quantity and unit, nice ticks (1, 2, 2.5 or 5 x 10^k,
 * about five) and its range; a categorical layer's categories present on
 * the map; the overlays' legend (routes by strategy, roadmap, obstacles,
 * start and goal). */
#include "map_priv.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

double rnd_nice_step(double range, int n)
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

/* The quantity (the description before any parenthesis) and its unit, the
 * bar, its ticks and the range. */
double rnd_map_colour_bar(rnd_map *m, double py)
{
    const rnd_palette *pal = m->pal;
    const geo_raster *r = m->r;
    const double lo = m->lo, hi = m->hi;
    rnd_canvas *c = m->c;
    rnd_font *font = m->font;
    const layout L = m->L;
    const double s = L.s;
    const double tx = L.px;
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
    double step = rnd_nice_step(hi - lo, 5);
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
    return py;
}

/* The categories present on the map: swatch and name (or code). */
double rnd_map_categories(rnd_map *m, double py)
{
    const cat_table *cat = m->cat;
    const double row_h = m->row_h;
    rnd_canvas *c = m->c;
    rnd_font *font = m->font;
    const layout L = m->L;
    const double s = L.s;
    const double tx = L.px, fs = 13 * s;
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
    return py;
}

/* Routes by strategy, roadmap edges and nodes, obstacles, start and goal. */
double rnd_map_overlay_legend(rnd_map *m, double py)
{
    const int nroutes = m->nroutes, has_trajectory = m->has_trajectory;
    const int has_edges = m->has_edges, has_nodes = m->has_nodes, has_areas = m->has_areas,
              has_markers = m->has_markers;
    const char *const *route_list = m->route_list;
    const double row_h = m->row_h;
    rnd_canvas *c = m->c;
    rnd_font *font = m->font;
    const layout L = m->L;
    const double s = L.s;
    const double tx = L.px, fs = 13 * s;
    rnd_cv_text(c, font, 1, 14 * s, tx, py + 14 * s, nroutes ? "routes" : "overlays", INK, 0);
    py += 28 * s;
    for (int k = 0; k < nroutes; k++) {
        line_style ls = rnd_line_style(!strcmp(route_list[k], "trajectory"), route_list[k], has_trajectory);
        for (int i = 0; i < m->ov.n; i++) /* route_by_file: the file's colour */
            if (m->ov.shape[i].colour >= 0 && !strcmp(m->ov.shape[i].name, route_list[k])) {
                rnd_cycle_rgb(m->ov.shape[i].colour, ls.rgb);
                ls.dash_on = ls.dash_off = 0;
                break;
            }
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
            if (!(has_markers >> k & 1))
                continue;
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
    return py;
}
