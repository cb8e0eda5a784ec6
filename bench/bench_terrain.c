/* File-to-file drivers for the geo kernels, so that make bench times them
 * against gdaldem and gdalwarp doing the same job:
 *   bench_terrain slope DEM.tif OUT.tif           (read, Horn slope, write)
 *   bench_terrain align SRC.tif LIKE.tif OUT.tif  (majority onto LIKE's grid) */
#include "geo/geo.h"

#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
    if (argc < 4 || (strcmp(argv[1], "slope") && strcmp(argv[1], "align")) || (!strcmp(argv[1], "align") && argc < 5)) {
        fprintf(stderr, "usage: bench_terrain slope DEM OUT | align SRC LIKE OUT\n");
        return 2;
    }
    geo_init();
    trv_ctx *ctx = trv_ctx_new();
    geo_raster *in = NULL, *like = NULL, *src = NULL, *out = NULL;
    trv_status st;
    if (!strcmp(argv[1], "slope")) {
        if (!(st = geo_raster_read(ctx, argv[2], GEO_F32, &in)) && !(st = geo_slope(ctx, in, &out)))
            st = geo_raster_write(ctx, out, argv[3], NULL);
    } else {
        if (!(st = geo_raster_read(ctx, argv[3], GEO_U8, &like)) &&
            !(st = geo_raster_read_categorical_for(ctx, argv[2], &like->grid, &src)) &&
            !(st = geo_align_categorical(ctx, src, &like->grid, GEO_MODE, &out)))
            st = geo_raster_write(ctx, out, argv[4], NULL);
    }
    if (st)
        fprintf(stderr, "bench_terrain: %s\n", trv_errmsg(ctx));
    geo_raster_free(in);
    geo_raster_free(like);
    geo_raster_free(src);
    geo_raster_free(out);
    trv_ctx_free(ctx);
    return st ? 1 : 0;
}
