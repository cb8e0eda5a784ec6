/* The drawing surface: coverage-based anti-aliasing, FreeType text, PNG. */
#include "render_priv.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <ft2build.h>
#include FT_FREETYPE_H

trv_status rnd_cv_new(trv_ctx *ctx, int w, int h, rnd_canvas **out)
{
    *out = NULL;
    rnd_canvas *c = calloc(1, sizeof *c);
    if (c) {
        c->w = w, c->h = h;
        c->rgb = malloc((size_t)w * h * 3);
        c->cov = calloc((size_t)w * h, sizeof(float));
    }
    if (!c || !c->rgb || !c->cov) {
        rnd_cv_free(c);
        return trv_error(ctx, TRV_ERR_NOMEM, "out of memory for a %d x %d image", w, h);
    }
    memset(c->rgb, 255, (size_t)w * h * 3);
    c->bx0 = w, c->by0 = h;
    *out = c;
    return TRV_OK;
}

void rnd_cv_free(rnd_canvas *c)
{
    if (!c)
        return;
    free(c->rgb);
    free(c->cov);
    free(c);
}

static inline void blend(unsigned char *p, const unsigned char rgb[3], double a)
{
    for (int k = 0; k < 3; k++)
        p[k] = (unsigned char)lround(p[k] + a * (rgb[k] - p[k]));
}

void rnd_cv_fill_rect(rnd_canvas *c, double x0, double y0, double x1, double y1, const unsigned char rgb[3], double alpha)
{
    int ix0 = (int)fmax(0, floor(x0)), iy0 = (int)fmax(0, floor(y0));
    int ix1 = (int)fmin(c->w, ceil(x1)), iy1 = (int)fmin(c->h, ceil(y1));
    for (int y = iy0; y < iy1; y++) {
        double fy = fmin(y + 1, y1) - fmax(y, y0);
        for (int x = ix0; x < ix1; x++) {
            double fx = fmin(x + 1, x1) - fmax(x, x0);
            if (fx > 0 && fy > 0)
                blend(c->rgb + ((size_t)y * c->w + x) * 3, rgb, alpha * fx * fy);
        }
    }
}

/* Clip a box to the canvas and grow the dirty box; returns 0 when empty. */
static int box(rnd_canvas *c, double x0, double y0, double x1, double y1, int b[4])
{
    b[0] = (int)fmax(0, floor(x0)), b[1] = (int)fmax(0, floor(y0));
    b[2] = (int)fmin(c->w, ceil(x1) + 1), b[3] = (int)fmin(c->h, ceil(y1) + 1);
    if (b[0] >= b[2] || b[1] >= b[3])
        return 0;
    if (b[0] < c->bx0) c->bx0 = b[0];
    if (b[1] < c->by0) c->by0 = b[1];
    if (b[2] > c->bx1) c->bx1 = b[2];
    if (b[3] > c->by1) c->by1 = b[3];
    return 1;
}

static inline void cov_max(rnd_canvas *c, int x, int y, float v)
{
    float *p = c->cov + (size_t)y * c->w + x;
    if (v > *p)
        *p = v;
}

void rnd_cv_add_stroke(rnd_canvas *c, const double *x, const double *y, int n, int closed, double width, double dash_on,
                   double dash_off)
{
    const double hw = width / 2, period = dash_on + dash_off;
    double along = 0;
    int nseg = closed ? n : n - 1;
    if (n == 1) { /* a lone vertex: a dot */
        rnd_cv_add_disc(c, x[0], y[0], hw);
        return;
    }
    for (int s = 0; s < nseg; s++) {
        double ax = x[s], ay = y[s], bx = x[(s + 1) % n], by = y[(s + 1) % n];
        double dx = bx - ax, dy = by - ay, len2 = dx * dx + dy * dy, len = sqrt(len2);
        int b[4];
        if (!isfinite(len) ||
            !box(c, fmin(ax, bx) - hw - 1, fmin(ay, by) - hw - 1, fmax(ax, bx) + hw + 1, fmax(ay, by) + hw + 1, b)) {
            along += isfinite(len) ? len : 0;
            continue;
        }
        for (int py = b[1]; py < b[3]; py++)
            for (int px = b[0]; px < b[2]; px++) {
                double qx = px + 0.5 - ax, qy = py + 0.5 - ay;
                double t = len2 > 0 ? (qx * dx + qy * dy) / len2 : 0;
                t = t < 0 ? 0 : t > 1 ? 1 : t;
                double ex = qx - t * dx, ey = qy - t * dy, d = sqrt(ex * ex + ey * ey);
                double v = hw + 0.5 - d;
                if (v <= 0)
                    continue;
                if (period > 0 && fmod(along + t * len, period) >= dash_on)
                    continue;
                cov_max(c, px, py, (float)(v > 1 ? 1 : v));
            }
        along += len;
    }
}

void rnd_cv_add_disc(rnd_canvas *c, double cx, double cy, double r)
{
    int b[4];
    if (!box(c, cx - r - 1, cy - r - 1, cx + r + 1, cy + r + 1, b))
        return;
    for (int py = b[1]; py < b[3]; py++)
        for (int px = b[0]; px < b[2]; px++) {
            double d = hypot(px + 0.5 - cx, py + 0.5 - cy), v = r + 0.5 - d;
            if (v > 0)
                cov_max(c, px, py, (float)(v > 1 ? 1 : v));
        }
}

void rnd_cv_add_ring(rnd_canvas *c, double cx, double cy, double r, double width)
{
    int b[4];
    double hw = width / 2;
    if (!box(c, cx - r - hw - 1, cy - r - hw - 1, cx + r + hw + 1, cy + r + hw + 1, b))
        return;
    for (int py = b[1]; py < b[3]; py++)
        for (int px = b[0]; px < b[2]; px++) {
            double d = fabs(hypot(px + 0.5 - cx, py + 0.5 - cy) - r), v = hw + 0.5 - d;
            if (v > 0)
                cov_max(c, px, py, (float)(v > 1 ? 1 : v));
        }
}

void rnd_cv_add_polygon(rnd_canvas *c, const double *x, const double *y, const int *start, int nrings)
{
    enum { SUB = 4 };
    int n = start[nrings];
    if (n < 3)
        return;
    double ymin = y[0], ymax = y[0], xmin = x[0], xmax = x[0];
    for (int i = 1; i < n; i++) {
        ymin = fmin(ymin, y[i]), ymax = fmax(ymax, y[i]);
        xmin = fmin(xmin, x[i]), xmax = fmax(xmax, x[i]);
    }
    int b[4];
    if (!box(c, xmin, ymin, xmax, ymax, b))
        return;
    double *xs = malloc(sizeof(double) * (size_t)n);
    float *acc = calloc((size_t)(b[2] - b[0]), sizeof(float));
    if (!xs || !acc) {
        free(xs);
        free(acc);
        return;
    }
    for (int py = b[1]; py < b[3]; py++) {
        memset(acc, 0, sizeof(float) * (size_t)(b[2] - b[0]));
        for (int s = 0; s < SUB; s++) {
            double sy = py + (s + 0.5) / SUB;
            int m = 0;
            for (int r = 0; r < nrings; r++)
                for (int i = start[r]; i < start[r + 1]; i++) {
                    int j = i + 1 < start[r + 1] ? i + 1 : start[r];
                    double y0 = y[i], y1 = y[j];
                    if ((y0 <= sy) != (y1 <= sy))
                        xs[m++] = x[i] + (sy - y0) / (y1 - y0) * (x[j] - x[i]);
                }
            qsort(xs, (size_t)m, sizeof(double), trv_cmp_double);
            for (int k = 0; k + 1 < m; k += 2) {
                double a = fmax(xs[k], b[0]), e = fmin(xs[k + 1], b[2]);
                for (int px = (int)floor(a); px < e && px < b[2]; px++) {
                    double f = fmin(px + 1, e) - fmax(px, a);
                    if (f > 0)
                        acc[px - b[0]] += (float)(f / SUB);
                }
            }
        }
        for (int px = b[0]; px < b[2]; px++)
            if (acc[px - b[0]] > 0)
                cov_max(c, px, py, acc[px - b[0]] > 1 ? 1 : acc[px - b[0]]);
    }
    free(xs);
    free(acc);
}

void rnd_cv_paint(rnd_canvas *c, const unsigned char rgb[3], double alpha)
{
    for (int y = c->by0; y < c->by1; y++) {
        float *cv = c->cov + (size_t)y * c->w;
        unsigned char *p = c->rgb + (size_t)y * c->w * 3;
        for (int x = c->bx0; x < c->bx1; x++)
            if (cv[x] > 0) {
                blend(p + 3 * x, rgb, alpha * cv[x]);
                cv[x] = 0;
            }
    }
    c->bx0 = c->w, c->by0 = c->h, c->bx1 = c->by1 = 0;
}

/* ---- PNG ------------------------------------------------------------------ */

trv_status rnd_cv_write_png(trv_ctx *ctx, const rnd_canvas *c, const char *path, const char *name)
{
    return rnd_png_write(ctx, path, name, c->rgb, c->w, c->h, 3, 6, "traverse " TRV_VERSION " trv-render");
}

/* ---- text ------------------------------------------------------------------ */

struct rnd_font {
    FT_Library lib;
    FT_Face face[2]; /* regular, bold (may equal regular) */
    double px[2];
};

#define DEJAVU "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"

trv_status rnd_font_open(trv_ctx *ctx, const char *path, rnd_font **out)
{
    *out = NULL;
    if (!path)
        path = getenv("TRV_FONT");
    if (!path || !*path)
        path = DEJAVU;
    rnd_font *f = calloc(1, sizeof *f);
    if (!f)
        return trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
    if (FT_Init_FreeType(&f->lib)) {
        free(f);
        return trv_error(ctx, TRV_ERR_INTERNAL, "cannot initialise FreeType");
    }
    if (FT_New_Face(f->lib, path, 0, &f->face[0])) {
        FT_Done_FreeType(f->lib);
        free(f);
        return trv_error(ctx, TRV_ERR_IO, "cannot open font '%s' (install fonts-dejavu-core or set TRV_FONT)", path);
    }
    /* the bold sibling: DejaVuSans.ttf -> DejaVuSans-Bold.ttf */
    size_t n = strlen(path);
    char *bold = malloc(n + 8);
    if (bold && n > 4 && !strcmp(path + n - 4, ".ttf")) {
        memcpy(bold, path, n - 4);
        strcpy(bold + n - 4, "-Bold.ttf");
        if (access(bold, R_OK) != 0 || FT_New_Face(f->lib, bold, 0, &f->face[1]))
            f->face[1] = NULL;
    }
    free(bold);
    *out = f;
    return TRV_OK;
}

void rnd_font_close(rnd_font *f)
{
    if (!f)
        return;
    if (f->face[1])
        FT_Done_Face(f->face[1]);
    FT_Done_Face(f->face[0]);
    FT_Done_FreeType(f->lib);
    free(f);
}

static FT_Face face_at(rnd_font *f, int bold, double px)
{
    int k = bold && f->face[1] ? 1 : 0;
    if (f->px[k] != px) {
        FT_Set_Char_Size(f->face[k], 0, (FT_F26Dot6)lround(px * 64), 72, 72);
        f->px[k] = px;
    }
    return f->face[k];
}

/* Next code point of UTF-8 text (malformed bytes read as Latin-1). */
static unsigned next_cp(const char **s)
{
    const unsigned char *p = (const unsigned char *)*s;
    unsigned c = *p++;
    int more = c >= 0xf0 ? 3 : c >= 0xe0 ? 2 : c >= 0xc0 ? 1 : 0;
    if (more) {
        unsigned v = c & (0x3f >> more);
        int k = 0;
        for (; k < more && (p[k] & 0xc0) == 0x80; k++)
            v = v << 6 | (p[k] & 0x3f);
        if (k == more) {
            c = v;
            p += more;
        }
    }
    *s = (const char *)p;
    return c;
}

double rnd_font_text_width(rnd_font *f, int bold, double px, const char *s)
{
    FT_Face face = face_at(f, bold, px);
    long pen = 0;
    FT_UInt prev = 0;
    while (*s) {
        FT_UInt gi = FT_Get_Char_Index(face, next_cp(&s));
        if (prev && gi && FT_HAS_KERNING(face)) {
            FT_Vector k;
            if (!FT_Get_Kerning(face, prev, gi, FT_KERNING_DEFAULT, &k))
                pen += k.x;
        }
        if (!FT_Load_Glyph(face, gi, FT_LOAD_DEFAULT))
            pen += face->glyph->advance.x;
        prev = gi;
    }
    return pen / 64.0;
}

static void glyphs(rnd_canvas *c, FT_Face face, double x, double y, const char *s, double ox, double oy)
{
    long pen = (long)lround(x * 64);
    FT_UInt prev = 0;
    while (*s) {
        FT_UInt gi = FT_Get_Char_Index(face, next_cp(&s));
        if (prev && gi && FT_HAS_KERNING(face)) {
            FT_Vector k;
            if (!FT_Get_Kerning(face, prev, gi, FT_KERNING_DEFAULT, &k))
                pen += k.x;
        }
        prev = gi;
        if (FT_Load_Glyph(face, gi, FT_LOAD_RENDER))
            continue;
        FT_GlyphSlot g = face->glyph;
        const FT_Bitmap *bm = &g->bitmap;
        int gx = (int)(pen >> 6) + g->bitmap_left + (int)lround(ox), gy = (int)lround(y + oy) - g->bitmap_top;
        int b[4];
        if (bm->pixel_mode == FT_PIXEL_MODE_GRAY &&
            box(c, gx, gy, gx + (double)bm->width - 1, gy + (double)bm->rows - 1, b))
            for (unsigned r = 0; r < bm->rows; r++)
                for (unsigned q = 0; q < bm->width; q++) {
                    int px = gx + (int)q, py = gy + (int)r;
                    unsigned char v = bm->buffer[r * (unsigned)bm->pitch + q];
                    if (v && px >= 0 && py >= 0 && px < c->w && py < c->h)
                        cov_max(c, px, py, v / 255.0f);
                }
        pen += g->advance.x;
    }
}

void rnd_cv_text(rnd_canvas *c, rnd_font *f, int bold, double px, double x, double y, const char *s,
             const unsigned char rgb[3], double halo)
{
    FT_Face face = face_at(f, bold, px);
    if (halo > 0) {
        static const unsigned char white[3] = {255, 255, 255};
        for (int k = 0; k < 16; k++)
            glyphs(c, face, x, y, s, halo * cos(k * M_PI / 8), halo * sin(k * M_PI / 8));
        rnd_cv_paint(c, white, 0.85);
    }
    glyphs(c, face, x, y, s, 0, 0);
    rnd_cv_paint(c, rgb, 1);
}
