/* PNG files (render.h, rnd_png_write): the one libpng writer the maps, the
 * 3D view's textures and the console's layers share. Fixed settings and no
 * tIME chunk, so that the same pixels give the same bytes. */
#include "render.h"

#include <errno.h>
#include <png.h>
#include <stdio.h>
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

trv_status rnd_png_write(trv_ctx *ctx, const char *path, const char *name, const unsigned char *px, int w, int h,
                         int channels, int level, const char *software)
{
    FILE *f = fopen(path, "wb");
    if (!f)
        return trv_error(ctx, TRV_ERR_IO, "cannot create '%s': %s", name, strerror(errno));
    png_err e = {"", 0};
    errno = 0;
    png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, &e, on_error, on_warning);
    png_infop info = png ? png_create_info_struct(png) : NULL;
    if (!png || !info) {
        png_destroy_write_struct(&png, NULL);
        fclose(f);
        return trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
    }
    if (setjmp(png_jmpbuf(png))) {
        png_destroy_write_struct(&png, &info);
        fclose(f);
        return trv_error(ctx, TRV_ERR_IO, "cannot write '%s': %s", name, e.err ? strerror(e.err) : e.msg);
    }
    png_init_io(png, f);
    png_set_compression_level(png, level);
    png_set_IHDR(png, info, (png_uint_32)w, (png_uint_32)h, 8, channels == 4 ? PNG_COLOR_TYPE_RGBA : PNG_COLOR_TYPE_RGB,
                 PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
    if (software) {
        png_text txt = {0};
        txt.compression = PNG_TEXT_COMPRESSION_NONE;
        txt.key = (png_charp) "Software";
        txt.text = (png_charp)software;
        png_set_text(png, info, &txt, 1);
    }
    png_write_info(png, info);
    for (int y = 0; y < h; y++)
        png_write_row(png, px + (size_t)y * w * channels);
    png_write_end(png, info);
    png_destroy_write_struct(&png, &info);
    int bad = ferror(f);
    if (fclose(f) != 0 || bad)
        return trv_error(ctx, TRV_ERR_IO, "cannot write '%s': %s", name, strerror(errno ? errno : EIO));
    return TRV_OK;
}
