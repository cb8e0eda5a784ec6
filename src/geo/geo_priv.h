/* Private to src/geo: helpers shared between its files. */
#ifndef GEO_PRIV_H
#define GEO_PRIV_H

#include "geo.h"

#include <ogr_srs_api.h>

/* Spatial reference from WKT (or any user input) with lon/lat axis order. */
OGRSpatialReferenceH geo_srs_new(const char *def);
/* Transformation between two CRSs (lon/lat order for geographic ones). */
trv_status geo_ct_new(trv_ctx *ctx, const char *from_wkt, const char *to_wkt, OGRCoordinateTransformationH *ct);

/* srs as WKT2 (2019), malloc'ed; NULL when it cannot be exported, is empty
 * or out of memory. */
char *geo_srs_wkt(OGRSpatialReferenceH srs);

/* Describe srs (geo_crs_desc); -1 when out of memory. */
int geo_crs_describe_srs(OGRSpatialReferenceH srs, geo_crs_desc *d);

/* Set the TRV_* metadata items of meta on a GDAL dataset or band:
 * TRV_TOOL, TRV_VERSION, TRV_ARGS, TRV_SEED (when seeded), the extras. */
void geo_meta_apply(void *gdal_object, const trv_meta *meta);

/* A GTiff dataset (GDALDatasetH) at path with r's size, type and header
 * (CRS, nodata, description, unit, metadata, colour table), creation
 * options opts, no cell written (geo_raster_write's and the block writer's
 * one header); NULL with *st set when it cannot be created, else *st is
 * the header's status (close the dataset either way). */
void *geo_tiff_create(trv_ctx *ctx, const geo_raster *r, const char *path, const trv_meta *meta,
                      const char *const *opts, trv_status *st);

/* The block reader's row access (raster.c): rows y0 .. y0 + ny - 1 (all
 * columns) into dst, nx * ny cells of s's type, with geo_raster_read's
 * rules and errors (the band's nodata: geo_raster_src_nodata). */
trv_status geo_raster_read_rows(trv_ctx *ctx, geo_raster_src *s, int y0, int ny, void *dst);

/* Band 1 of a single-band GeoTIFF at path, nx x ny cells, tiled, Float32
 * (type GEO_F32) with the floating-point predictor (PREDICTOR=3) or Byte
 * (GEO_U8) with the horizontal one (PREDICTOR=2), every tile present, in
 * a little-endian file on a little-endian host, into dst (row-major,
 * float or unsigned char): decompressed by libtiff, the predictor undone
 * here (tiff_read.c: the bytes GDAL gives, non-finite cells as they are).
 * 1: read; 0: not such a file, or libtiff could not read it (dst's cells
 * then undefined: read it through GDAL, whose errors name the file). */
int geo_tiff_read(const char *path, int nx, int ny, geo_type type, void *dst);
/* One row of a tile undone (tiff_read.c's equations), the first n
 * samples into out: Float32, d the 4 w bytes the file holds (w the tile's
 * width, n <= w); Byte, d the n first bytes. */
void geo_fp_row(const unsigned char *d, int w, int n, float *out);
void geo_u8_row(const unsigned char *d, int n, unsigned char *out);

#endif
