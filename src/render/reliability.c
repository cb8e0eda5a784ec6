/* A reliability diagram as a PNG (render.h, rnd_reliability_png). */
#include "render_priv.h"

#include <math.h>
#include <stdio.h>

static const unsigned char INK[3] = {34, 34, 34}, GRID[3] = {225, 225, 225}, DIAG[3] = {150, 150, 150};
static const unsigned char SERIES[6][3] = {{33, 102, 172}, {178, 24, 43}, {27, 120, 55},
                                           {118, 42, 131}, {230, 97, 1},  {84, 84, 84}};

typedef struct plot {
    double x0, y0, size;    /* top-left corner and side of the square (pixels) */
} plot;

static double px(const plot *p, double v) { return p->x0 + v * p->size; }
static double py(const plot *p, double v) { return p->y0 + (1 - v) * p->size; }

/* Grid, ticks every 0.2, the diagonal, the frame and the axes' names. */
static void axes(rnd_canvas *c, rnd_font *font, const plot *p, const char *title)
{
    for (int k = 0; k <= 5; k++) {
        double v = k / 5.0, x = px(p, v), y = py(p, v);
        char lab[8];
        snprintf(lab, sizeof lab, "%.1f", v);
        rnd_cv_fill_rect(c, p->x0, y - 0.5, p->x0 + p->size, y + 0.5, GRID, 1);
        rnd_cv_fill_rect(c, x - 0.5, p->y0, x + 0.5, p->y0 + p->size, GRID, 1);
        double w = rnd_font_text_width(font, 0, 12, lab);
        rnd_cv_text(c, font, 0, 12, x - w / 2, p->y0 + p->size + 18, lab, INK, 0);
        rnd_cv_text(c, font, 0, 12, p->x0 - 8 - w, y + 4, lab, INK, 0);
    }
    double dx[2] = {px(p, 0), px(p, 1)}, dy[2] = {py(p, 0), py(p, 1)};
    rnd_cv_add_stroke(c, dx, dy, 2, 0, 1.5, 6, 4);
    rnd_cv_paint(c, DIAG, 1);
    double fx[5] = {p->x0, p->x0 + p->size, p->x0 + p->size, p->x0, p->x0};
    double fy[5] = {p->y0, p->y0, p->y0 + p->size, p->y0 + p->size, p->y0};
    rnd_cv_add_stroke(c, fx, fy, 5, 1, 1, 0, 0);
    rnd_cv_paint(c, INK, 1);
    rnd_cv_text(c, font, 1, 16, p->x0, 30, title ? title : "reliability", INK, 0);
    const char *xl = "predicted probability", *yl = "observed frequency";
    rnd_cv_text(c, font, 0, 13, px(p, 0.5) - rnd_font_text_width(font, 0, 13, xl) / 2, p->y0 + p->size + 40, xl, INK,
                0);
    rnd_cv_text(c, font, 0, 13, p->x0 - 45, p->y0 - 12, yl, INK, 0);
}

/* One series: its line, a disc per bin, its name in the legend (row k). */
static void series(rnd_canvas *c, rnd_font *font, const plot *p, const rnd_reliability_series *s, int k)
{
    const unsigned char *rgb = SERIES[k % 6];
    double x[64], y[64];
    int n = 0;
    for (int b = 0; b < s->n && n < 64; b++) {
        if (s->count[b] <= 0)
            continue;
        x[n] = px(p, s->pred[b]);
        y[n] = py(p, s->obs[b]);
        n++;
    }
    if (n > 1) {
        rnd_cv_add_stroke(c, x, y, n, 0, 2, 0, 0);
        rnd_cv_paint(c, rgb, 0.9);
    }
    for (int i = 0; i < n; i++)
        rnd_cv_add_disc(c, x[i], y[i], 4);
    rnd_cv_paint(c, rgb, 1);
    double lx = p->x0 + 14, ly = p->y0 + 22 + 20 * k;
    rnd_cv_fill_rect(c, lx, ly - 6, lx + 22, ly - 3, rgb, 1);
    rnd_cv_text(c, font, 0, 13, lx + 30, ly, s->name, INK, 0);
}

trv_status rnd_reliability_png(trv_ctx *ctx, const rnd_reliability *r, const char *tmp, const char *name)
{
    if (r->nseries < 1 || r->width < 300 || r->height < 300)
        return trv_error(ctx, TRV_ERR_USAGE, "'%s': a reliability diagram needs a series and at least 300 x 300 pixels",
                         name);
    rnd_canvas *c = NULL;
    rnd_font *font = NULL;
    trv_status st = rnd_cv_new(ctx, r->width, r->height, &c);
    if (!st)
        st = rnd_font_open(ctx, r->font, &font);
    if (!st) {
        double size = fmin(r->width - 110.0, r->height - 130.0);
        plot p = {80, 60, size};
        axes(c, font, &p, r->title);
        for (int k = 0; k < r->nseries; k++)
            series(c, font, &p, &r->series[k], k);
        st = rnd_cv_write_png(ctx, c, tmp, name);
    }
    rnd_font_close(font);
    rnd_cv_free(c);
    return st;
}
