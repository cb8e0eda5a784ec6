/* render_priv.h — the drawing surface behind rnd_render: an RGB canvas with
 * anti-aliased strokes, discs and polygon fills (coverage accumulated in a
 * scratch buffer, composited once per shape so joints do not double-blend),
 * FreeType text, and the PNG writer. Private to src/render. */
#ifndef RENDER_PRIV_H
#define RENDER_PRIV_H

#include "render.h"

typedef struct rnd_canvas {
    int w, h;
    unsigned char *rgb;     /* w * h * 3, row-major from the top */
    float *cov;             /* w * h scratch coverage, kept zero between shapes */
    int bx0, by0, bx1, by1; /* dirty box of cov (inclusive-exclusive), empty when bx0 >= bx1 */
} rnd_canvas;

trv_status rnd_cv_new(trv_ctx *ctx, int w, int h, rnd_canvas **out);
void rnd_cv_free(rnd_canvas *c);
void rnd_cv_fill_rect(rnd_canvas *c, double x0, double y0, double x1, double y1, const unsigned char rgb[3], double alpha);
/* Accumulate shapes into the coverage buffer ... */
void rnd_cv_add_stroke(rnd_canvas *c, const double *x, const double *y, int n, int closed, double width, double dash_on,
                   double dash_off);
void rnd_cv_add_disc(rnd_canvas *c, double cx, double cy, double r);
void rnd_cv_add_ring(rnd_canvas *c, double cx, double cy, double r, double width);
/* Even-odd fill of rings (ring k has vertices start[k]..start[k+1]-1). */
void rnd_cv_add_polygon(rnd_canvas *c, const double *x, const double *y, const int *start, int nrings);
/* ... then paint them in one colour and clear the buffer. */
void rnd_cv_paint(rnd_canvas *c, const unsigned char rgb[3], double alpha);
trv_status rnd_cv_write_png(trv_ctx *ctx, const rnd_canvas *c, const char *path, const char *name);

typedef struct rnd_font rnd_font;
/* Open the regular face (path, else $TRV_FONT, else DejaVu Sans) and its
 * bold sibling when there is one. */
trv_status rnd_font_open(trv_ctx *ctx, const char *path, rnd_font **out);
void rnd_font_close(rnd_font *f);
/* Advance width of UTF-8 text at px pixels. */
double rnd_font_text_width(rnd_font *f, int bold, double px, const char *s);
/* Draw text with its baseline at y starting at x; halo > 0 draws a white
 * outline of that radius first (map labels). */
void rnd_cv_text(rnd_canvas *c, rnd_font *f, int bold, double px, double x, double y, const char *s,
             const unsigned char rgb[3], double halo);

/* Nice tick step (1, 2, 2.5 or 5 x 10^k) for a range with about n ticks
 * (legend.c; the colour bar's and the profile's axes). */
double rnd_nice_step(double range, int n);

#endif
