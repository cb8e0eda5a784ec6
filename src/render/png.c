/* PNG files (render.h, rnd_png_write, and by rows rnd_png_open, _rows,
 * _close): the one libpng writer the maps, the 3D view's textures and the
 * console's layers share. Fixed settings and no
 * tIME chunk, so that the same pixels give the same bytes. */
#include "render.h"

#include <errno.h>
#include <png.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* libpng's error and warning handlers: keep its message (libpng's own
 * handlers print to stderr, which library code must not) and errno at
 * the failure, then return to the setjmp. */
typedef struct png_err {
    char msg[160];
    int err;
} png_err;

static void on_error(png_structp png, png_const_charp msg)
{
    png_err *e = png_get_error_ptr(png);
    e->err = errno;
    snprintf(e->msg, sizeof e->msg, "%s", msg);
    png_longjmp(png, 1);
}

static void on_warning(png_structp png, png_const_charp msg)
{
    (void)png;
    (void)msg;
}

struct rnd_png {
    FILE *f;
    png_structp png;
    png_infop info;
    png_err e;
    const char *name;
    int w, channels, failed;
};

/* A libpng failure in p (its message, or errno's): p is spent. */
static trv_status png_failed(trv_ctx *ctx, rnd_png *p)
{
    p->failed = 1;
    return trv_error(ctx, TRV_ERR_IO, "cannot write '%s': %s", p->name, p->e.err ? strerror(p->e.err) : p->e.msg);
}

/* Done with p: freed, its file closed. */
static void png_done(rnd_png *p)
{
    png_destroy_write_struct(&p->png, &p->info);
    if (p->f)
        fclose(p->f);
    free(p);
}

trv_status rnd_png_open(trv_ctx *ctx, const char *path, const char *name, int w, int h, int channels, int level,
                        const char *software, rnd_png **out)
{
    *out = NULL;
    rnd_png *p = calloc(1, sizeof *p);
    if (!p)
        return trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
    p->name = name, p->w = w, p->channels = channels;
    if (!(p->f = fopen(path, "wb"))) {
        trv_status st = trv_error(ctx, TRV_ERR_IO, "cannot create '%s': %s", name, strerror(errno));
        free(p);
        return st;
    }
    errno = 0;
    p->png = png_create_write_struct(PNG_LIBPNG_VER_STRING, &p->e, on_error, on_warning);
    p->info = p->png ? png_create_info_struct(p->png) : NULL;
    if (!p->png || !p->info) {
        png_done(p);
        return trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
    }
    if (setjmp(png_jmpbuf(p->png))) {
        trv_status st = png_failed(ctx, p);
        png_done(p);
        return st;
    }
    png_init_io(p->png, p->f);
    png_set_compression_level(p->png, level);
    png_set_IHDR(p->png, p->info, (png_uint_32)w, (png_uint_32)h, 8,
                 channels == 4 ? PNG_COLOR_TYPE_RGBA : PNG_COLOR_TYPE_RGB, PNG_INTERLACE_NONE,
                 PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
    if (software) {
        png_text txt = {0};
        txt.compression = PNG_TEXT_COMPRESSION_NONE;
        txt.key = (png_charp) "Software";
        txt.text = (png_charp)software;
        png_set_text(p->png, p->info, &txt, 1);
    }
    png_write_info(p->png, p->info);
    *out = p;
    return TRV_OK;
}

trv_status rnd_png_rows(trv_ctx *ctx, rnd_png *p, const unsigned char *px, int rows)
{
    if (p->failed)
        return trv_error(ctx, TRV_ERR_INTERNAL, "'%s': rows after a failed write", p->name);
    if (setjmp(png_jmpbuf(p->png)))
        return png_failed(ctx, p);
    for (int y = 0; y < rows; y++)
        png_write_row(p->png, px + (size_t)y * p->w * p->channels);
    return TRV_OK;
}

/* The file's end written (libpng's failures caught here). */
static trv_status png_end(trv_ctx *ctx, rnd_png *p)
{
    if (setjmp(png_jmpbuf(p->png)))
        return png_failed(ctx, p);
    png_write_end(p->png, p->info);
    return TRV_OK;
}

trv_status rnd_png_close(trv_ctx *ctx, rnd_png *p, trv_status st)
{
    if (!p)
        return st;
    if (!st && !p->failed && (st = png_end(ctx, p))) {
        png_done(p);
        return st;
    }
    png_destroy_write_struct(&p->png, &p->info);
    int bad = ferror(p->f), closed = fclose(p->f);
    p->f = NULL;
    if (!st && (closed != 0 || bad))
        st = trv_error(ctx, TRV_ERR_IO, "cannot write '%s': %s", p->name, strerror(errno ? errno : EIO));
    png_done(p);
    return st;
}

trv_status rnd_png_write(trv_ctx *ctx, const char *path, const char *name, const unsigned char *px, int w, int h,
                         int channels, int level, const char *software)
{
    rnd_png *p;
    trv_status st = rnd_png_open(ctx, path, name, w, h, channels, level, software, &p);
    if (!st)
        st = rnd_png_rows(ctx, p, px, h);
    return rnd_png_close(ctx, p, st);
}
