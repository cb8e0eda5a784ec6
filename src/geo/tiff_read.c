/* A Float32 GeoTIFF with the floating-point predictor, or a Byte one with
 * the horizontal predictor, read through libtiff, the predictor undone
 * here (geo_priv.h: geo_tiff_read).
 *
 * The horizontal predictor (PREDICTOR=2; libtiff's horAcc8), one byte a
 * sample: every byte of a tile's row after the first as its difference
 * from the byte before it, modulo 256; undone, b[k] = sum_{q <= k} d[q]
 * (libtiff adds in memory, byte after byte; here in a register).
 *
 * The predictor (TIFF Technical Note 3, PREDICTOR=3; libtiff's fpAcc), per
 * row of a tile, w samples (the tile's width) of 4 bytes: the row is held
 * as four planes of w bytes, the most significant bytes first (p0 .. p3),
 * and every byte after the row's first as its difference from the byte
 * before it, modulo 256. Undone:
 *   b[m] = sum_{q <= m} d[q] (mod 256) over the row's 4 w bytes, and
 *   sample k = b[k] << 24 | b[w + k] << 16 | b[2 w + k] << 8 | b[3 w + k].
 * Here the four planes run side by side: plane j starts from the sum of
 * the planes before it (c_j = sum of d over planes 0 .. j - 1, mod 256),
 * so that sample k's four bytes come out together in one pass (the same
 * sums, in another order). libtiff's own fpAcc makes a copy of every row
 * and moves it back byte by byte: at 10 m on the Jacksboro terrain it was
 * about half of prm_terrain_load's time, horAcc8 a tenth of the rest
 * (perf, 2026-11-27). */
#include "geo_priv.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <tiffio.h>

/* libtiff's messages for a file it cannot read are not ours to print: the
 * caller reads such a file through GDAL, whose errors name it. */
static int quiet(TIFF *tif, void *user, const char *module, const char *fmt, va_list ap)
{
    (void)tif, (void)user, (void)module, (void)fmt, (void)ap;
    return 1;
}

void geo_fp_row(const unsigned char *d, int w, int n, float *out)
{
    const unsigned char *p0 = d, *p1 = d + w, *p2 = d + 2 * (size_t)w, *p3 = d + 3 * (size_t)w;
    unsigned s0 = 0, s1 = 0, s2 = 0;
    for (int k = 0; k < w; k++) {
        s0 += p0[k];
        s1 += p1[k];
        s2 += p2[k];
    }
    /* the planes' starting sums: c1 = s0, c2 = s0 + s1, c3 = s0 + s1 + s2 */
    unsigned char a0 = 0, a1 = (unsigned char)s0, a2 = (unsigned char)(s0 + s1), a3 = (unsigned char)(s0 + s1 + s2);
    for (int k = 0; k < n; k++) {
        a0 = (unsigned char)(a0 + p0[k]);
        a1 = (unsigned char)(a1 + p1[k]);
        a2 = (unsigned char)(a2 + p2[k]);
        a3 = (unsigned char)(a3 + p3[k]);
        uint32_t bits = (uint32_t)a0 << 24 | (uint32_t)a1 << 16 | (uint32_t)a2 << 8 | a3;
        memcpy(&out[k], &bits, sizeof bits);
    }
}

void geo_u8_row(const unsigned char *d, int n, unsigned char *out)
{
    unsigned char a = 0;
    for (int k = 0; k < n; k++)
        out[k] = a = (unsigned char)(a + d[k]);
}

/* The file is what geo_tiff_read reads as fp (1: Float32) or not (Byte):
 * tiled, nx x ny, samples of 32 or 8 bits, the floating-point or
 * horizontal predictor, in the host's byte order on a little-endian host
 * (the planes' order above); one sample a pixel is read_tiles' check (a
 * tile of 4 or 1 bytes a cell). The sample format is GDAL's to check: the caller
 * asks for the type GDAL sees (and libtiff decodes the floating-point
 * predictor only for IEEE floats). A sparse tile (GDAL fills it) is no
 * tile to libtiff: its read fails, and so does ours. */
static int readable(TIFF *tif, int nx, int ny, int fp, uint32_t *tw, uint32_t *th)
{
    const uint16_t one = 1;
    unsigned char host_le;
    memcpy(&host_le, &one, 1);
    uint32_t w = 0, h = 0;
    uint16_t bps = 0, pred = 0;
    if (!host_le || TIFFIsByteSwapped(tif) || !TIFFGetField(tif, TIFFTAG_IMAGEWIDTH, &w) ||
        !TIFFGetField(tif, TIFFTAG_IMAGELENGTH, &h) || !TIFFGetField(tif, TIFFTAG_TILEWIDTH, tw) ||
        !TIFFGetField(tif, TIFFTAG_TILELENGTH, th) ||
        !TIFFGetFieldDefaulted(tif, TIFFTAG_BITSPERSAMPLE, &bps) ||
        !TIFFGetFieldDefaulted(tif, TIFFTAG_PREDICTOR, &pred))
        return 0;
    return w == (uint32_t)nx && h == (uint32_t)ny && *tw > 0 && *th > 0 && bps == (fp ? 32 : 8) &&
           pred == (fp ? PREDICTOR_FLOATINGPOINT : PREDICTOR_HORIZONTAL);
}

/* Every tile: decompressed by libtiff with its predictor turned off
 * (libtiff sets its decoder up at the first tile read), undone here into
 * dst's rows (float or unsigned char). */
static int read_tiles(TIFF *tif, int nx, int ny, int fp, uint32_t tw, uint32_t th, void *dst)
{
    size_t cell = fp ? 4 : 1;
    tmsize_t size = TIFFTileSize(tif);
    unsigned char *buf = size == (tmsize_t)((size_t)tw * th * cell) ? malloc((size_t)size) : NULL;
    int ok = buf && TIFFSetField(tif, TIFFTAG_PREDICTOR, PREDICTOR_NONE);
    for (uint32_t y = 0; ok && y < (uint32_t)ny; y += th)
        for (uint32_t x = 0; ok && x < (uint32_t)nx; x += tw) {
            if (TIFFReadEncodedTile(tif, TIFFComputeTile(tif, x, y, 0, 0), buf, size) != size) {
                ok = 0;
                break;
            }
            int n = nx - (int)x < (int)tw ? nx - (int)x : (int)tw, rows = ny - (int)y < (int)th ? ny - (int)y : (int)th;
            for (int r = 0; r < rows; r++) {
                const unsigned char *d = buf + (size_t)r * tw * cell;
                size_t at = (size_t)(y + r) * nx + x;
                if (fp)
                    geo_fp_row(d, (int)tw, n, (float *)dst + at);
                else
                    geo_u8_row(d, n, (unsigned char *)dst + at);
            }
        }
    free(buf);
    return ok;
}

int geo_tiff_read(const char *path, int nx, int ny, geo_type type, void *dst)
{
    TIFFOpenOptions *o = TIFFOpenOptionsAlloc();
    if (!o)
        return 0;
    TIFFOpenOptionsSetErrorHandlerExtR(o, quiet, NULL);
    TIFFOpenOptionsSetWarningHandlerExtR(o, quiet, NULL);
    TIFF *tif = TIFFOpenExt(path, "r", o);
    TIFFOpenOptionsFree(o);
    if (!tif)
        return 0;
    uint32_t tw = 0, th = 0;
    int fp = type == GEO_F32;
    int ok = readable(tif, nx, ny, fp, &tw, &th) && read_tiles(tif, nx, ny, fp, tw, th, dst);
    TIFFClose(tif);
    return ok;
}
