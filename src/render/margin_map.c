/* A value along a drive as a map (render.h, rnd_margin_map_png): the
 * rollover margin along a simulated run, the smallest places marked. */
#include "render_priv.h"

#include <math.h>
#include <stdio.h>

static const unsigned char INK[3] = {34, 34, 34}, FRAME[3] = {190, 190, 190}, WHITE[3] = {255, 255, 255};

/* The map's box in pixels (render.h: RND_MM_*). */
static void box(const rnd_margin_map *m, double *x0, double *y0, double *x1, double *y1)
{
    *x0 = RND_MM_LEFT, *y0 = RND_MM_TOP, *x1 = m->width - RND_MM_RIGHT, *y1 = m->height - RND_MM_BOTTOM;
}

void rnd_margin_map_xy(const rnd_margin_map *m, double x, double y, double *px, double *py)
{
    double xmin = INFINITY, xmax = -INFINITY, ymin = INFINITY, ymax = -INFINITY, bx0, by0, bx1, by1;
    for (int i = 0; i < m->n; i++) {
        xmin = fmin(xmin, m->x[i]), xmax = fmax(xmax, m->x[i]);
        ymin = fmin(ymin, m->y[i]), ymax = fmax(ymax, m->y[i]);
    }
    box(m, &bx0, &by0, &bx1, &by1);
    double span = fmax(fmax(xmax - xmin, ymax - ymin), 1e-9);
    double s = fmin((bx1 - bx0) / fmax(xmax - xmin, span * 1e-3), (by1 - by0) / fmax(ymax - ymin, span * 1e-3));
    *px = (bx0 + bx1) / 2 + (x - (xmin + xmax) / 2) * s;
    *py = (by0 + by1) / 2 - (y - (ymin + ymax) / 2) * s;
}

void rnd_margin_map_rgb(const rnd_margin_map *m, double value, unsigned char rgb[3])
{
    double t = m->hi > m->lo ? (value - m->lo) / (m->hi - m->lo) : 0.5;
    rnd_palette_rgb(rnd_palette_find("rdylgn"), t, rgb);
}

/* The drive: segment i from point i to i + 1 in point i's colour. */
static void drive(rnd_canvas *c, const rnd_margin_map *m)
{
    for (int i = 0; i + 1 < m->n; i++) {
        double x[2], y[2];
        unsigned char rgb[3];
        rnd_margin_map_xy(m, m->x[i], m->y[i], &x[0], &y[0]);
        rnd_margin_map_xy(m, m->x[i + 1], m->y[i + 1], &x[1], &y[1]);
        rnd_cv_add_stroke(c, x, y, 2, 0, RND_MM_LINE, 0, 0);
        rnd_margin_map_rgb(m, m->value[i], rgb);
        rnd_cv_paint(c, rgb, 1);
    }
}

/* The marks: a ring around each place, numbered from 1. */
static void marks(rnd_canvas *c, rnd_font *font, const rnd_margin_map *m)
{
    for (int k = 0; k < m->nmarks; k++) {
        double px, py;
        char lab[16];
        rnd_margin_map_xy(m, m->x[m->mark[k]], m->y[m->mark[k]], &px, &py);
        rnd_cv_add_ring(c, px, py, RND_MM_RING, 2);
        rnd_cv_paint(c, INK, 1);
        snprintf(lab, sizeof lab, "%d", k + 1);
        rnd_cv_text(c, font, 1, 14, px + RND_MM_RING + 3, py - RND_MM_RING, lab, INK, 2);
    }
}

/* The colour bar on the right: lo at the bottom, hi at the top, ticks. */
static void colour_bar(rnd_canvas *c, rnd_font *font, const rnd_margin_map *m)
{
    double x0 = m->width - RND_MM_RIGHT + 30, x1 = x0 + 18, y0 = RND_MM_TOP + 20, y1 = m->height - RND_MM_BOTTOM;
    for (double y = y0; y < y1; y++) {
        unsigned char rgb[3];
        rnd_margin_map_rgb(m, m->hi - (y + 0.5 - y0) / (y1 - y0) * (m->hi - m->lo), rgb);
        rnd_cv_fill_rect(c, x0, y, x1, y + 1, rgb, 1);
    }
    double step = rnd_nice_step(m->hi - m->lo > 0 ? m->hi - m->lo : 1, 5);
    for (double v = ceil(m->lo / step) * step; v <= m->hi + 1e-9 && m->hi > m->lo; v += step) {
        char lab[32];
        double y = y1 - (v - m->lo) / (m->hi - m->lo) * (y1 - y0);
        snprintf(lab, sizeof lab, "%g", v);
        rnd_cv_fill_rect(c, x1, y - 0.5, x1 + 5, y + 0.5, INK, 1);
        rnd_cv_text(c, font, 0, 12, x1 + 8, y + 4, lab, INK, 0);
    }
    rnd_cv_text(c, font, 0, 12, x0 - 10, y0 - 8, m->unit ? m->unit : "", INK, 0);
}

trv_status rnd_margin_map_png(trv_ctx *ctx, const rnd_margin_map *m, const char *tmp, const char *name)
{
    if (m->n < 2 || m->width < RND_MM_W_MIN || m->height < RND_MM_H_MIN || m->nmarks < 0 || m->nmarks > 9)
        return trv_error(ctx, TRV_ERR_USAGE, "'%s': a margin map needs 2 points, at most 9 marks and at least %d x %d "
                         "pixels", name, RND_MM_W_MIN, RND_MM_H_MIN);
    rnd_canvas *c = NULL;
    rnd_font *font = NULL;
    trv_status st = rnd_cv_new(ctx, m->width, m->height, &c);
    if (!st)
        st = rnd_font_open(ctx, m->font, &font);
    if (!st) {
        double x0, y0, x1, y1;
        box(m, &x0, &y0, &x1, &y1);
        rnd_cv_fill_rect(c, 0, 0, m->width, m->height, WHITE, 1);
        double fx[5] = {x0, x1, x1, x0, x0}, fy[5] = {y0, y0, y1, y1, y0};
        rnd_cv_add_stroke(c, fx, fy, 5, 1, 1, 0, 0);
        rnd_cv_paint(c, FRAME, 1);
        drive(c, m);
        marks(c, font, m);
        colour_bar(c, font, m);
        rnd_cv_text(c, font, 1, 16, RND_MM_LEFT, 30, m->title ? m->title : "", INK, 0);
        st = rnd_cv_write_png(ctx, c, tmp, name);
    }
    rnd_font_close(font);
    rnd_cv_free(c);
    return st;
}
