/* An RGBA image to a PNG file (libpng), for the console's layers. */
#include "console_priv.h"

#include <errno.h>
#include <png.h>
#include <stdio.h>
#include <string.h>

/* libpng's error handler: keep its message (its own prints to stderr,
 * which library code must not) and return to the setjmp. */
static void on_error(png_structp png, png_const_charp msg)
{
    snprintf(png_get_error_ptr(png), 160, "%s", msg);
    png_longjmp(png, 1);
}

static void on_warning(png_structp png, png_const_charp msg) { (void)png, (void)msg; }

trv_status console_png_rgba(trv_ctx *ctx, const char *path, const unsigned char *rgba, int w, int h)
{
    FILE *f = fopen(path, "wb");
    if (!f)
        return trv_error(ctx, TRV_ERR_IO, "cannot create '%s': %s", path, strerror(errno));
    char msg[160] = "";
    png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, msg, on_error, on_warning);
    png_infop info = png ? png_create_info_struct(png) : NULL;
    if (!png || !info) {
        png_destroy_write_struct(&png, NULL);
        fclose(f);
        return trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
    }
    if (setjmp(png_jmpbuf(png))) {
        png_destroy_write_struct(&png, &info);
        fclose(f);
        return trv_error(ctx, TRV_ERR_IO, "cannot write '%s': %s", path, msg);
    }
    png_init_io(png, f);
    png_set_compression_level(png, 3); /* written at each start: speed over size */
    png_set_IHDR(png, info, (png_uint_32)w, (png_uint_32)h, 8, PNG_COLOR_TYPE_RGBA, PNG_INTERLACE_NONE,
                 PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
    png_write_info(png, info);
    for (int y = 0; y < h; y++)
        png_write_row(png, rgba + (size_t)y * w * 4);
    png_write_end(png, info);
    png_destroy_write_struct(&png, &info);
    int bad = ferror(f);
    if (fclose(f) != 0 || bad)
        return trv_error(ctx, TRV_ERR_IO, "cannot write '%s': %s", path, strerror(errno));
    return TRV_OK;
}
