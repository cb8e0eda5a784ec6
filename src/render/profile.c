/* A route's profile as a PNG (render.h, rnd_profile_png): elevation and
 * speed against distance, the band of a per-piece class (the binding
 * limit) under the distance axis, its legend under the band. */
#include "render_priv.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const unsigned char INK[3] = {34, 34, 34}, GRID[3] = {225, 225, 225}, ELEV_FILL[3] = {214, 196, 160},
                           ELEV_LINE[3] = {120, 90, 50}, SPEED[3] = {33, 102, 172};

typedef struct frame {
    double x0, x1, y0, y1;  /* the plot (pixels; y1 the axis) */
    double dmax, elo, ehi, vhi;
} frame;

static double fx(const frame *f, double d) { return f->x0 + d / f->dmax * (f->x1 - f->x0); }
static double fy(const frame *f, double v, double lo, double hi) { return f->y1 - (v - lo) / (hi - lo) * (f->y1 - f->y0); }

/* The axes' ranges: elevation padded to nice ticks, speed from 0. */
static void ranges(const rnd_profile *p, frame *f)
{
    double lo = INFINITY, hi = -INFINITY, v = 0;
    for (int k = 0; k < p->n; k++) {
        lo = fmin(lo, p->elev_m[k]), hi = fmax(hi, p->elev_m[k]);
        if (isfinite(p->speed_kmh[k]))
            v = fmax(v, p->speed_kmh[k]);
    }
    if (!(hi - lo >= 1))
        lo -= 0.5, hi += 0.5;
    double st = rnd_nice_step(hi - lo, 5);
    f->elo = floor(lo / st) * st, f->ehi = ceil(hi / st) * st;
    v = v > 0 ? 1.05 * v : 1; /* the top speed below the frame */
    double sv = rnd_nice_step(v, 5);
    f->vhi = ceil(v / sv) * sv;
    f->dmax = p->dist_m[p->n - 1];
}

/* Ticks of one axis: grid lines and labels (side 0 left, 1 right, 2 bottom). */
static void ticks(rnd_canvas *c, rnd_font *font, const frame *f, int side, double lo, double hi, double scale)
{
    double st = rnd_nice_step(hi - lo, 5);
    for (double v = ceil(lo / st - 1e-9) * st; v <= hi + st * 1e-9; v += st) {
        char lab[32];
        if (fabs(v) < st * 1e-9)
            v = 0; /* not "-0" */
        snprintf(lab, sizeof lab, st * scale >= 1 ? "%.0f" : "%.1f", v * scale);
        double w = rnd_font_text_width(font, 0, 12, lab);
        if (side == 2) {
            double x = fx(f, v);
            rnd_cv_fill_rect(c, x - 0.5, f->y1, x + 0.5, f->y1 + 5, INK, 1);
            rnd_cv_text(c, font, 0, 12, x - w / 2, f->y1 + RND_PROF_BAND0 - RND_PROF_BAND1 + 30, lab, INK, 0);
            continue;
        }
        double y = fy(f, v, lo, hi);
        if (side == 0)
            rnd_cv_fill_rect(c, f->x0, y - 0.5, f->x1, y + 0.5, GRID, 1);
        rnd_cv_text(c, font, 0, 12, side ? f->x1 + 6 : f->x0 - 6 - w, y + 4, lab, side ? SPEED : ELEV_LINE, 0);
    }
}

/* Elevation filled to the axis, its line, and the speed's line. */
static void curves(rnd_canvas *c, const rnd_profile *p, const frame *f, double *x, double *y)
{
    int n = p->n;
    for (int k = 0; k < n; k++) {
        x[k] = fx(f, p->dist_m[k] - p->len_m[k] / 2);
        y[k] = fy(f, p->elev_m[k], f->elo, f->ehi);
    }
    x[n] = x[n - 1], y[n] = f->y1, x[n + 1] = x[0], y[n + 1] = f->y1;
    int start[2] = {0, n + 2};
    rnd_cv_add_polygon(c, x, y, start, 1);
    rnd_cv_paint(c, ELEV_FILL, 1);
    rnd_cv_add_stroke(c, x, y, n, 0, 1.5, 0, 0);
    rnd_cv_paint(c, ELEV_LINE, 1);
    for (int k = 0; k < n; k++)
        y[k] = fy(f, isfinite(p->speed_kmh[k]) ? p->speed_kmh[k] : 0, 0, f->vhi);
    rnd_cv_add_stroke(c, x, y, n, 0, 1.5, 0, 0);
    rnd_cv_paint(c, SPEED, 1);
}

static const geo_class *class_of(const rnd_profile *p, int code)
{
    for (int k = 0; k < p->nclasses; k++)
        if (p->classes[k].code == code)
            return &p->classes[k];
    return NULL;
}

/* The band under the axis and the legend of the classes present. */
static void band(rnd_canvas *c, rnd_font *font, const rnd_profile *p, const frame *f)
{
    /* per pixel column, the class of the piece at the column's middle: crisp where pieces are thinner than a pixel */
    double b0 = c->h - RND_PROF_BAND0, b1 = c->h - RND_PROF_BAND1;
    int k = 0;
    for (int px = (int)f->x0; px < (int)f->x1; px++) {
        double d = (px + 0.5 - f->x0) / (f->x1 - f->x0) * f->dmax;
        while (k + 1 < p->n && p->dist_m[k] < d)
            k++;
        const geo_class *g = class_of(p, p->band[k]);
        if (g)
            rnd_cv_fill_rect(c, px, b0, px + 1, b1, g->rgb, 1);
    }
    double x = f->x0, y = c->h - 30;
    rnd_cv_text(c, font, 1, 13, x, y, p->band_title ? p->band_title : "", INK, 0);
    x += rnd_font_text_width(font, 1, 13, p->band_title ? p->band_title : "") + 14;
    for (int q = 0; q < p->nclasses; q++) {
        int used = 0;
        for (int i = 0; i < p->n && !used; i++)
            used = p->band[i] == p->classes[q].code;
        if (!used)
            continue;
        rnd_cv_fill_rect(c, x, y - 11, x + 14, y + 1, p->classes[q].rgb, 1);
        rnd_cv_text(c, font, 0, 12, x + 19, y, p->classes[q].name, INK, 0);
        x += 19 + rnd_font_text_width(font, 0, 12, p->classes[q].name) + 16;
    }
}

/* Frame, titles and the axes' names. */
static void labels(rnd_canvas *c, rnd_font *font, const rnd_profile *p, const frame *f)
{
    double xs[5] = {f->x0, f->x1, f->x1, f->x0, f->x0}, ys[5] = {f->y0, f->y0, f->y1, f->y1, f->y0};
    rnd_cv_add_stroke(c, xs, ys, 5, 1, 1, 0, 0);
    rnd_cv_paint(c, INK, 1);
    rnd_cv_text(c, font, 1, 16, f->x0, 30, p->title ? p->title : "route profile", INK, 0);
    rnd_cv_text(c, font, 0, 12, f->x0 - 60, f->y0 - 10, "elevation (m)", ELEV_LINE, 0);
    const char *sp = "speed (km/h)";
    rnd_cv_text(c, font, 0, 12, f->x1 + 60 - rnd_font_text_width(font, 0, 12, sp), f->y0 - 10, sp, SPEED, 0);
    const char *dk = "distance (km)";
    rnd_cv_text(c, font, 0, 12, (f->x0 + f->x1) / 2 - rnd_font_text_width(font, 0, 12, dk) / 2, c->h - 58, dk, INK,
                0);
}

trv_status rnd_profile_png(trv_ctx *ctx, const rnd_profile *p, const char *tmp, const char *name)
{
    if (p->n < 1 || !(p->dist_m[p->n - 1] > 0) || p->width < RND_PROF_W_MIN || p->height < RND_PROF_H_MIN)
        return trv_error(ctx, TRV_ERR_USAGE, "'%s': a profile needs a route of length > 0 and at least %d x %d pixels",
                         name, RND_PROF_W_MIN, RND_PROF_H_MIN);
    rnd_canvas *c = NULL;
    rnd_font *font = NULL;
    double *x = malloc((size_t)(p->n + 2) * 2 * sizeof *x);
    trv_status st = x ? rnd_cv_new(ctx, p->width, p->height, &c) : trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
    if (!st)
        st = rnd_font_open(ctx, p->font, &font);
    if (!st) {
        frame f = {RND_PROF_LEFT, p->width - RND_PROF_RIGHT, RND_PROF_TOP, p->height - RND_PROF_AXIS, 0, 0, 0, 0};
        ranges(p, &f);
        ticks(c, font, &f, 0, f.elo, f.ehi, 1);
        curves(c, p, &f, x, x + p->n + 2);
        ticks(c, font, &f, 1, 0, f.vhi, 1);
        ticks(c, font, &f, 2, 0, f.dmax, 1e-3);
        band(c, font, p, &f);
        labels(c, font, p, &f);
        st = rnd_cv_write_png(ctx, c, tmp, name);
    }
    rnd_font_close(font);
    rnd_cv_free(c);
    free(x);
    return st;
}
