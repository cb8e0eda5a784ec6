/*
 * geo.h — traverse geo layer, the only door to GDAL/OGR/PROJ: raster grids
 * and layers, raster I/O and information, CRS choice (auto UTM) and
 * description, categorical alignment, Horn's window (slope, hillshade),
 * vector output and input, GeoPackage layer styles.
 *
 * A grid is north-up (no rotation terms in the geotransform) and carries
 * its CRS as WKT. A raster is one band on a grid, held in memory as
 * Float32 (continuous layers: elevation, slope, speed, cost) or Byte
 * (categorical layers: soil, land use, GO/NOGO, class), row-major from the
 * north-west corner.
 *
 * Equations: slope is Horn's 3x3 method (docs/method.md §1.8), as gdaldem.
 * Categorical alignment never interpolates (docs/method.md §1.9).
 *
 * Ownership: geo_raster_new/_read return rasters the caller frees with
 * geo_raster_free; a raster owns its grid WKT, description and unit, and
 * borrows its class table (r->classes), which must outlive it.
 */
#ifndef GEO_H
#define GEO_H

#include "core/trv.h"

#include <math.h>

/* GDAL's last error message on one line, without a final full stop, or
 * fallback when GDAL said nothing (a per-thread buffer): for messages like
 * "cannot open 'x.tif': <this>". */
const char *geo_gdal_msg(const char *fallback);
/* Why GDAL could not open path, for "cannot open 'path': <why>": "no such
 * file", "empty file", "is a directory", the system's reason it cannot be
 * read, else GDAL's message (fallback "not a format GDAL recognises"). */
const char *geo_open_msg(const char *path);

/* ---- grids ------------------------------------------------------------ */

typedef struct geo_grid {
    int nx, ny;             /* columns, rows */
    double gt[6];           /* GDAL geotransform; gt[2] == gt[4] == 0 */
    char *wkt;              /* CRS as WKT (owned), NULL if the source had none */
} geo_grid;

trv_status geo_grid_copy(trv_ctx *ctx, geo_grid *dst, const geo_grid *src);
void geo_grid_clear(geo_grid *g);
/* Centre of column col / row row in CRS units. */
double geo_grid_x(const geo_grid *g, double col);
double geo_grid_y(const geo_grid *g, double row);

/* TRV_OK if a and b are the same grid (same CRS, origin and cell size to
 * 1e-6 of a cell, same size); otherwise TRV_ERR_GRID with a message naming
 * what differs: "'b.tif' does not match 'a.tif': cell size 10 x 10 vs 30 x 30". */
trv_status geo_grid_compare(trv_ctx *ctx, const geo_grid *a, const char *name_a, const geo_grid *b,
                            const char *name_b);

/* ---- class tables (categorical legends) ------------------------------- */

typedef struct geo_class {
    int code;               /* 1..254; 0 is nodata in Byte layers, 255 reserved */
    char *name;
    unsigned char rgb[3];
} geo_class;

typedef struct geo_classes {
    geo_class *c;
    int n;
} geo_classes;

/* The one reader of class tables (soils.csv, landuse.csv and any legend
 * CSV): every stage that reads one (geo_classes_read for the legends,
 * terramech's soil and land-use tables, fuzzy's soil CI) goes through it,
 * so a table means the same to all of them. It lives in geo, beside
 * geo_classes_read, because a class code is a value of a Byte layer, which
 * geo defines (1..254; 0 is nodata): geo_classes_read uses it, and geo
 * depends on nothing but core.
 *
 * Checks, in this order, with these messages (noun e.g. "soil"):
 *   the file reads as CSV            trv_csv_read's errors
 *   a column code and each of cols   "<path>: no column '<name>'" (trv_csv_require)
 *   at least one row                 "<path>: no <noun>s" ("classes" after an s)
 *   each code an integer in 1..254   "<path>:<line>: <noun> code <cell> must be an integer in 1..254"
 *   no code twice                    "<path>:<line>: <noun> code <code> repeated"
 * all TRV_ERR_FORMAT. The caller then reads the other cells of row r with
 * trv_csv_cell/trv_csv_double on t->csv, columns t->col[k] in the order of
 * cols, and checks their ranges itself. */
typedef struct geo_class_csv {
    trv_csv *csv;           /* the table (owned) */
    size_t n;               /* rows, >= 1 */
    int *code;              /* per row: its class code, checked */
    int col[8];             /* column index of cols[k] */
} geo_class_csv;

/* cols: up to 8 required column names besides code, NULL-terminated (cols
 * itself may be NULL). */
trv_status geo_class_csv_read(trv_ctx *ctx, const char *path, const char *noun, const char *const *cols,
                              geo_class_csv **out);
void geo_class_csv_free(geo_class_csv *t);

/* Read a class table CSV with columns code, name and optionally color
 * (#rrggbb); classes without a colour get one from a fixed palette
 * (geo_class_csv_read with noun "class"). */
trv_status geo_classes_read(trv_ctx *ctx, const char *path, geo_classes **out);
void geo_classes_free(geo_classes *cl);
/* Index of code in the table, or -1. */
int geo_classes_find(const geo_classes *cl, int code);

/* ---- rasters ---------------------------------------------------------- */

typedef enum geo_type { GEO_F32 = 1, GEO_U8 = 2 } geo_type;

typedef struct geo_raster {
    geo_grid grid;
    geo_type type;
    float *f32;             /* nx * ny when type == GEO_F32, else NULL */
    unsigned char *u8;      /* nx * ny when type == GEO_U8, else NULL */
    int has_nodata;
    double nodata;
    char *desc;             /* band description, e.g. "slope" */
    char *unit;             /* unit, e.g. "degree", "m" */
    const geo_classes *classes; /* borrowed; Byte layers: legend and colours */
} geo_raster;

/* A raster of the given type on a copy of grid, zero-filled, no nodata. */
trv_status geo_raster_new(trv_ctx *ctx, const geo_grid *grid, geo_type type, geo_raster **out);
void geo_raster_free(geo_raster *r);
/* Set description and unit (copied; either may be NULL). */
trv_status geo_raster_set_label(trv_ctx *ctx, geo_raster *r, const char *desc, const char *unit);
int geo_raster_is_nodata(const geo_raster *r, size_t i);
/* A Float32 value is nodata: NaN, or nodata itself when has_nodata (the
 * Float32 rule of geo_raster_is_nodata, for cells read into plain arrays;
 * inline: the stages' cell loops call it for every cell). */
static inline int geo_f32_is_nodata(float v, int has_nodata, double nodata)
{
    return isnan(v) || (has_nodata && v == (float)nodata);
}
/* Number of cells holding data. */
size_t geo_raster_count_valid(const geo_raster *r);
/* 1 if some cell holds data (geo_raster_count_valid > 0, stopping at the
 * first one), else 0. */
int geo_raster_any_valid(const geo_raster *r);

/* The grid (size, geotransform, CRS) of any GDAL raster, without reading
 * its cells. */
trv_status geo_grid_read(trv_ctx *ctx, const char *path, geo_grid *out);

/* Read band 1 of any GDAL raster. Float32 keeps the source nodata value
 * (a non-finite one becomes -9999) and every non-finite cell (NaN, +Inf,
 * -Inf) becomes nodata: the one rule for non-finite values, so no stage
 * sees them; Byte requires integer values in 0..255 apart
 * from nodata, which becomes 0. Errors name the file. */
trv_status geo_raster_read(trv_ctx *ctx, const char *path, geo_type type, geo_raster **out);

/* Band 1 of a raster file kept open to be read by windows (trv-route's
 * lazy terrain reads only the tiles a query needs). geo_raster_read is
 * open + alloc + one window over the whole grid + close (where the band's
 * type is the one asked, its blocks read past GDAL's block cache: the same
 * values), so a window gives exactly the values geo_raster_read gives
 * those cells. */
typedef struct geo_raster_src geo_raster_src;

/* Open path to be read as type: the grid (geo_grid_read's errors), no cell
 * read. geo_raster_close it. */
trv_status geo_raster_open(trv_ctx *ctx, const char *path, geo_type type, geo_raster_src **out);
void geo_raster_close(geo_raster_src *s);
const geo_grid *geo_raster_src_grid(const geo_raster_src *s);
/* The bands of s's file (at least 1: geo_raster_open refuses none), and
 * the band later reads come from (1-based; geo_raster_open: band 1): its
 * nodata and type as geo_raster_open takes band 1's. */
int geo_raster_src_bands(const geo_raster_src *s);
trv_status geo_raster_src_band(trv_ctx *ctx, geo_raster_src *s, int k);
/* The nodata value geo_raster_src_alloc gives the current band's layer
 * (Float32: always one, -9999 when the band has none or a non-finite one). */
double geo_raster_src_nodata(const geo_raster_src *s, int *has_nodata);
/* A raster of s's type on its grid with the description, unit and nodata
 * geo_raster_read sets, every cell 0 (calloc'ed: pages never read cost no
 * memory). */
trv_status geo_raster_src_alloc(trv_ctx *ctx, const geo_raster_src *s, geo_raster **out);
/* Read columns x0 .. x0 + nx - 1 of rows y0 .. y0 + ny - 1 into r (from
 * geo_raster_src_alloc) at their places, with geo_raster_read's rules and
 * errors (a non-finite Float32 cell becomes nodata; a Byte layer from a
 * band of another type must hold integers 0..255); the other cells of r
 * are left as they are. TRV_ERR_INTERNAL for a window off the grid. A
 * window that is one whole block of a band of the type asked (the lazy
 * terrain's tiles) is read past GDAL's block cache, into one block buffer
 * the source keeps: the same values. */
trv_status geo_raster_read_window(trv_ctx *ctx, geo_raster_src *s, geo_raster *r, int x0, int y0, int nx, int ny);
/* The same window into a buffer of its own: cell (x0 + x, y0 + y) at
 * dst[y stride + x] (floats for a Float32 source, bytes for a Byte one;
 * stride >= nx), a non-finite Float32 cell as nodata (the lazy terrain's
 * tile-major tiles, src/prm/terrain_lazy.c). */
trv_status geo_raster_read_window_to(trv_ctx *ctx, geo_raster_src *s, int x0, int y0, int nx, int ny, void *dst,
                                     size_t stride, float nodata);

/* Read the part of band 1 of path that covers target (whose CRS may
 * differ), plus a margin of two cells, as an integer-valued categorical
 * layer: Byte with 0 = nodata (the source nodata value maps to 0, a source
 * value 0 that is not nodata, or a value outside 0..254, is an error).
 * TRV_ERR_GRID if the source does not overlap target. */
trv_status geo_raster_read_categorical_for(trv_ctx *ctx, const char *path, const geo_grid *target,
                                           geo_raster **out);
/* The same window read by rows (trv-terrain's class maps, streamed): open
 * computes the window (geo_raster_read_categorical_for's errors before any
 * cell is read), geo_cat_grid is its grid, geo_cat_rows reads its rows
 * y0 .. y0 + ny - 1 (window rows) into dst (ny * nx codes) with the same
 * codes and errors: geo_raster_read_categorical_for is open, rows 0 .. ny - 1
 * and close. */
typedef struct geo_cat_src geo_cat_src;
trv_status geo_cat_open(trv_ctx *ctx, const char *path, const geo_grid *target, geo_cat_src **out);
const geo_grid *geo_cat_grid(const geo_cat_src *s);
trv_status geo_cat_rows(trv_ctx *ctx, geo_cat_src *s, int y0, int ny, unsigned char *dst);
/* Its window columns x0 .. x0 + nx - 1 of rows y0 .. y0 + ny - 1 (ny * nx
 * codes), with geo_cat_rows's codes and errors. */
trv_status geo_cat_window(trv_ctx *ctx, geo_cat_src *s, int x0, int y0, int nx, int ny, unsigned char *dst);
/* Every cell of the window checked, by tiles of about cols x rows cells
 * (geo_cat_scan_tile: whole blocks of the file, so each block is decoded
 * once; a row of tiles at a time, its tiles left to right), *valid its
 * cells with a class code: the errors geo_cat_rows over all the rows gives,
 * the row-major first (a row whose read fails before that row's cells),
 * in O(tile) memory whatever the width. */
trv_status geo_cat_scan(trv_ctx *ctx, geo_cat_src *s, int cols, int rows, size_t *valid);
/* geo_cat_scan's tile *tw x *th for cols x rows asked and the file's
 * blocks of bw x bh: whole blocks, so each is decoded once, by one tile's
 * read, with GDAL's cache bounded (geo_block_cache_reserve); along each
 * axis the most blocks within the size asked, or one block where a block
 * is larger (GDAL decodes it whole anyway); with blocks wider (taller)
 * than asked, as few of them down (across) as keep the tile within cols x
 * rows cells, at least one (a striped file: strips across the width, one
 * strip high when it is wide). The tiles' edges fall on the multiples of
 * *tw and *th in the file's cells. */
void geo_cat_scan_tile(int cols, int rows, int bw, int bh, int *tw, int *th);
void geo_cat_close(geo_cat_src *s);

/* Write a tiled (256x256), DEFLATE-compressed GeoTIFF with CRS, nodata,
 * band description, unit, metadata (TRV_TOOL, TRV_VERSION, TRV_ARGS,
 * TRV_SEED) and, for Byte layers with classes, a colour table (nodata
 * transparent) and category names. path is written as given: pass a
 * trv_outset temporary. meta may be NULL. */
trv_status geo_raster_write(trv_ctx *ctx, const geo_raster *r, const char *path, const trv_meta *meta);
/* geo_raster_write with the tiles compressed by `threads` threads (GDAL's
 * NUM_THREADS; <= 1: one): the same file, byte for byte, sooner. */
trv_status geo_raster_write_threads(trv_ctx *ctx, const geo_raster *r, const char *path, const trv_meta *meta,
                                    int threads);

/* ---- coordinate systems ------------------------------------------------ */

/* EPSG code of the WGS 84 UTM zone holding (lon, lat): 326zz north of the
 * equator, 327zz south, with the Norway (32V) and Svalbard (31X-37X)
 * exceptions. */
int geo_utm_epsg(double lon_deg, double lat_deg);

/* The CRS a stage works in, as malloc'ed WKT in *wkt: t_srs if given (any
 * string OSRSetFromUserInput accepts: "EPSG:32616", WKT, PROJ string);
 * else the grid's CRS if projected; else, for a geographic grid, the UTM
 * zone of the grid's centre. A grid without CRS is TRV_ERR_CRS. */
trv_status geo_crs_choose(trv_ctx *ctx, const geo_grid *src, const char *t_srs, char **wkt);

/* WKT (malloc'ed) of any CRS definition OSRSetFromUserInput accepts
 * ("EPSG:32616", WKT, PROJ string); TRV_ERR_CRS naming def if unknown. */
trv_status geo_crs_wkt(trv_ctx *ctx, const char *def, char **wkt);
/* 1 if both WKTs name the same CRS (both NULL counts as the same). */
int geo_crs_same(const char *a, const char *b);
/* 1 if wkt is a geographic (lon/lat) CRS, 0 if not, -1 if unreadable. */
int geo_crs_is_geographic(const char *wkt);
/* A short name for messages: "EPSG:32616" when it has one, else the CRS
 * name. Writes at most n bytes into buf and returns buf. */
const char *geo_crs_label(const char *wkt, char *buf, size_t n);
/* Size of the CRS's linear unit in metres (1 for metre, 0.3048 for foot). */
double geo_crs_metres_per_unit(const char *wkt);

/* ---- coordinate transformations ---------------------------------------- */

/* A transformation between two CRSs, x = easting/longitude and
 * y = northing/latitude whatever the CRS's axis order. Between identical
 * CRSs it is the identity and costs nothing. */
typedef struct geo_ct geo_ct;

trv_status geo_ct_create(trv_ctx *ctx, const char *from_wkt, const char *to_wkt, geo_ct **out);
void geo_ct_free(geo_ct *ct);
int geo_ct_is_identity(const geo_ct *ct);
/* Transform n points in place; ok[i] = 0 where a point failed (ok may be
 * NULL). Returns the number of failures. */
size_t geo_ct_points(geo_ct *ct, size_t n, double *x, double *y, int *ok);
/* Transform the n points (x0 + k dx, y), k = 0..n-1, into xs, ys, ok, as
 * GDAL's approximate transformer does: exact transforms every 32 points
 * and at each interval's middle (in one PROJ call: its per-call cost
 * dominates), linear interpolation in between, and an exact transform of
 * every point of an interval whose middle is more than tol off. Returns
 * TRV_ERR_NOMEM on allocation failure. */
trv_status geo_ct_line(trv_ctx *ctx, geo_ct *ct, double x0, double dx, double y, int n, double tol, double *xs,
                       double *ys, int *ok);
/* Points k0 .. k1 - 1 of geo_ct_line's n-point line, into xs, ys, ok
 * (k1 - k0 each), the same bits: the same anchors (points 0, 32, 64, ...
 * of the whole line, and the middles), the same linear test and
 * interpolation, only the intervals that set those points transformed (a
 * tile's columns of a row, whatever the tile). TRV_ERR_INTERNAL when
 * 0 <= k0 <= k1 <= n fails. */
trv_status geo_ct_line_part(trv_ctx *ctx, geo_ct *ct, double x0, double dx, double y, int n, double tol, int k0,
                            int k1, double *xs, double *ys, int *ok);
/* Bounding box of the rectangle [xmin, xmax] x [ymin, ymax] after the
 * transformation (edges densified, 64 points a side). bb: xmin ymin xmax
 * ymax. Returns the number of points that failed to transform. */
size_t geo_ct_bounds(geo_ct *ct, double xmin, double ymin, double xmax, double ymax, double bb[4]);

/* ---- categorical alignment -------------------------------------------- */

typedef enum geo_resample { GEO_NEAREST = 0, GEO_MODE = 1 } geo_resample;

/* Project the Byte layer src (any CRS and cell size) onto target, never
 * interpolating. GEO_NEAREST takes the source cell under each target cell
 * centre. GEO_MODE samples each target cell on an s x s lattice (s odd,
 * about 3 samples per source cell across, 1 <= s <= 15) and keeps the most
 * frequent code, nodata counted like a class, so that class areas are
 * preserved; ties go to the code under the cell centre, then to the
 * smaller code. When target cells are smaller than a third of a source
 * cell, s = 1 and both methods agree. Target cells outside src are nodata
 * (0). The result is Byte with nodata 0 and src's classes. */
trv_status geo_align_categorical(trv_ctx *ctx, const geo_raster *src, const geo_grid *target,
                                 geo_resample method, geo_raster **out);
/* geo_align_categorical by row ranges (streamed stages, geo/block.h): an
 * aligner holds the transformation and the lattice size, both taken from
 * the whole target (so rows are the same bytes whatever the ranges), and
 * borrows src and target. geo_aligner_rows writes target rows
 * row0 .. row1 - 1 to out ((row1 - row0) * nx codes). */
typedef struct geo_aligner geo_aligner;
trv_status geo_aligner_new(trv_ctx *ctx, const geo_raster *src, const geo_grid *target, geo_resample method,
                           geo_aligner **out);
/* An aligner whose source cells are fetched when a target row first needs
 * them (src_grid's columns x0 .. x0 + nx - 1 of rows y0 .. y0 + ny - 1
 * into dst, ny * nx codes, nodata 0): it holds only the source rows the
 * current target row's lattice points fall in, and of them the columns
 * they fall in (rows it held for the previous row are kept, not read
 * again, while the columns stay; sliding down, the columns held are kept
 * and grown), so its memory grows with neither the source's height nor,
 * by geo_aligner_window, its width. The sampled positions are those of
 * geo_aligner_new on the whole src_grid, so the codes are the same bytes.
 * Borrows src_grid, target and user. */
typedef trv_status (*geo_align_fetch)(trv_ctx *ctx, void *user, int x0, int y0, int nx, int ny, unsigned char *dst);
trv_status geo_aligner_new_lazy(trv_ctx *ctx, const geo_grid *src_grid, geo_align_fetch fetch, void *user,
                                const geo_grid *target, geo_resample method, geo_aligner **out);
trv_status geo_aligner_rows(trv_ctx *ctx, geo_aligner *a, int row0, int row1, unsigned char *out);
/* Target cells of columns col0 .. col1 - 1 of rows row0 .. row1 - 1 into
 * out ((row1 - row0) (col1 - col0) codes, row after row): the same bytes
 * as those cells of geo_aligner_rows, whatever the window (the lattice
 * points by geo_ct_line_part over the whole row). The aligner's lattice
 * buffers grow with the widest window asked for, not with the target. */
trv_status geo_aligner_window(trv_ctx *ctx, geo_aligner *a, int col0, int col1, int row0, int row1,
                              unsigned char *out);
void geo_aligner_free(geo_aligner *a);

/* ---- terrain kernels --------------------------------------------------- */

/* Horn's 3x3 window at column x of row (docs/method.md §1.8), as gdaldem
 * -compute_edges fills it: above/below are the neighbouring rows (NULL off
 * the grid); off the grid a neighbour is extrapolated linearly (2 a - b,
 * from the two cells inward, a corner from the extrapolated row), and a
 * neighbour that is nodata, NaN or extrapolated from one takes the centre
 * cell's value. With w = NW N NE / W C E / SW S SE:
 *   gx = (NE + 2E + SE) - (NW + 2W + SW)   (east minus west)
 *   gy = (SW + 2S + SE) - (NW + 2N + NE)   (south minus north)
 * so dz/dx = gx / (8 gt[1]) and dz/dy = -gy / (8 gt[5]) in CRS units
 * (slope divides by the positive cell sizes, hillshade by the signed
 * ones). Pure: no I/O, no state. */
void geo_horn_diff(const float *above, const float *row, const float *below, int nx, int x, int has_nodata,
                   float nodata, double *gx, double *gy);

/* One output row of Horn slope in degrees (docs/method.md §1.8). above/below
 * are the neighbouring rows (NULL off the grid). A neighbour that is off
 * the grid or nodata takes the centre cell's value (gdaldem
 * -compute_edges does the same); a nodata centre gives out_nodata.
 * ew_m/ns_m: cell width/height in metres. Pure: no I/O, no state. */
void geo_slope_row(const float *above, const float *row, const float *below, int nx, int has_nodata,
                   float nodata, double ew_m, double ns_m, float out_nodata, float *out);
/* The same for the one cell x of row (geo_slope_row's value there). */
float geo_slope_at(const float *above, const float *row, const float *below, int nx, int x, int has_nodata,
                   float nodata, double ew_m, double ns_m, float out_nodata);

/* Slope in degrees of a DEM on a projected grid (Float32, nodata -9999).
 * A geographic grid is TRV_ERR_CRS: slope needs metres. */
trv_status geo_slope(trv_ctx *ctx, const geo_raster *dem, geo_raster **out);

/* ---- vector output (OGR) ----------------------------------------------- */

/* Writes GeoJSON (.geojson/.json: RFC 7946, EPSG:4326 lon/lat, one layer),
 * GPX (.gpx: EPSG:4326; layers "waypoints", "routes" or "tracks", added in
 * that order, with no fields but an optional string "name") or GeoPackage
 * (.gpkg: the source CRS, any number of layers). Coordinates are given in
 * the source CRS and transformed as the format needs; z (heights) is never
 * transformed. A GeoPackage layer is 3D if its first feature has z, and
 * mixing 2D and 3D features in one layer is TRV_ERR_USAGE. Coordinates
 * already in EPSG:4326 go to GeoJSON and GPX untransformed. src_wkt NULL is
 * TRV_ERR_CRS for GeoJSON and GPX, a layer without CRS for GeoPackage.
 * GeoPackage output is byte-reproducible (OGR_CURRENT_DATE is pinned while
 * a file is open), so writers must not be opened or closed from several
 * threads at once. */
typedef struct geo_vec geo_vec;

typedef enum geo_geom { GEO_POINT = 1, GEO_LINE = 2, GEO_POLYGON = 3 } geo_geom;
typedef enum geo_field_type { GEO_FIELD_INT = 1, GEO_FIELD_REAL = 2, GEO_FIELD_STRING = 3 } geo_field_type;

typedef struct geo_field {
    const char *name;
    geo_field_type type;
} geo_field;

typedef struct geo_value {
    long long i;
    double r;
    const char *s;
    int unset;              /* 1: leave the field unset (GeoJSON omits the property) */
} geo_value;

/* Create path (format from the extension), coordinates in src_wkt. */
trv_status geo_vec_create(trv_ctx *ctx, const char *path, const char *src_wkt, geo_vec **out);
/* Add a layer; *layer receives its index. GPX takes no extra fields. */
trv_status geo_vec_add_layer(trv_ctx *ctx, geo_vec *v, const char *name, geo_geom geom, const geo_field *fields,
                             int nfields, int *layer);
/* GeoPackage: record what made the file (TRV_TOOL, TRV_VERSION, TRV_ARGS,
 * TRV_SEED, extras) as dataset metadata at close; meta is copied. GeoJSON
 * and GPX have no place for it and ignore it. */
void geo_vec_set_meta(geo_vec *v, const trv_meta *meta);
/* GeoPackage: do not build a spatial index for this layer (by default
 * every layer gets one, built once at close). For large layers that are
 * read whole, the index costs more than it saves. */
void geo_vec_no_index(geo_vec *v, int layer);
/* Add a feature: a point (n == 1), a line of n >= 2 vertices or a
 * polygon of one ring of n >= 3 vertices (given open: the ring is closed
 * by repeating the first vertex); z may be NULL. values has one entry per
 * field of the layer (the member its type names, or unset). */
trv_status geo_vec_add(trv_ctx *ctx, geo_vec *v, int layer, const double *x, const double *y, const double *z,
                       int n, const geo_value *values);
/* Flush and close; returns the first write error. Frees v. */
trv_status geo_vec_close(trv_ctx *ctx, geo_vec *v);
/* Close without reporting errors (after a failure; the file stays for
 * the caller's trv_outset to remove; an open transaction is rolled back). */
void geo_vec_free(geo_vec *v);

/* A vector layer read back: each feature's first vertex and numeric fields. */
typedef struct geo_table {
    long n;
    int nfields;
    double *x, *y;          /* first vertex of each feature's geometry (NAN without one) */
    double *v;              /* n * nfields: field values (NAN where null) */
    char *wkt;              /* the layer's CRS, NULL if none */
} geo_table;

/* Read layer `layer` of a vector file, the named fields (all numeric; a
 * missing field is an error naming the file and layer), in feature order. */
trv_status geo_table_read(trv_ctx *ctx, const char *path, const char *layer, const char *const *fields, int nfields,
                          geo_table **out);
void geo_table_free(geo_table *t);

/* ---- vector input (OGR) ------------------------------------------------ */

/* A CRS as GIS project files describe it (QGIS <spatialrefsys>). */
typedef struct geo_crs_desc {
    char *wkt2;             /* WKT2 2019, one line */
    char *proj4;            /* PROJ.4 string */
    char auth[32], code[32]; /* authority and code ("EPSG", "32616"), "" if none */
    char ellps[64];         /* the ellipsoid's authority:code, "" if none */
    char name[256];         /* the CRS's name */
    int geographic;         /* 1 for a lon/lat CRS */
} geo_crs_desc;


/* One simple part of a feature's geometry, read back. */
typedef struct geo_shape {
    geo_geom kind;          /* GEO_POINT, GEO_LINE or GEO_POLYGON */
    int n;                  /* vertices (a polygon: of all its rings, each as stored, closed) */
    double *xy;             /* 2n: x, y pairs */
    int nrings;             /* GEO_POLYGON: rings, the outer one first; else 0 */
    int *start;             /* GEO_POLYGON: nrings + 1 offsets into the vertices; else NULL */
} geo_shape;

typedef struct geo_feature {
    long fid;
    int has_geom;           /* the geometry is not null */
    geo_geom geom;          /* a single point, line or polygon; 0 for a multi-part
                             * geometry, a collection, a curve or an empty one */
    int nshapes;            /* its simple parts: multi-geometries and collections */
    geo_shape *shapes;      /* flattened in order; empty parts and curves left out */
    char **str;             /* per field: the value as text, NULL where unset or null */
    double *num;            /* per field: the value as a number (OGR's conversion of
                             * text), NAN where unset or null */
} geo_feature;

typedef struct geo_vlayer {
    char *name;
    int has_geom;           /* 0: a table without geometry (GeoPackage layer_styles) */
    geo_geom geom;          /* declared geometry type (Multi* counted as the single
                             * type), 0 if unknown or mixed */
    int multi;              /* declared Multi* */
    char *wkt;              /* CRS as WKT2 2019, NULL if none */
    geo_crs_desc crs;       /* the CRS described as the file holds it (all zero if none) */
    int has_extent;         /* 0 for a layer without features */
    double extent[4];       /* xmin ymin xmax ymax in the layer's CRS */
    int nfields;
    char **fields;          /* field names */
    long n;                 /* features read (0 without GEO_VREAD_FEATURES) */
    geo_feature *f;
} geo_vlayer;

typedef struct geo_vfile {
    int nlayers;
    geo_vlayer *layers;
} geo_vfile;

enum { GEO_VREAD_INFO = 0, GEO_VREAD_FEATURES = 1 };

/* Read a vector file (any format OGR opens): the layer named `layer`
 * (TRV_ERR_FORMAT "cannot open 'f': no layer 'x'" if there is none), or
 * every layer when layer is NULL; with what = GEO_VREAD_FEATURES also
 * every feature in order. With to_wkt, geometries come transformed into
 * that CRS (a layer without a CRS is taken to be in it); the extent stays
 * in the layer's CRS. Errors: TRV_ERR_IO "cannot open 'f': <why>",
 * TRV_ERR_CRS when to_wkt is unreadable or a layer or feature cannot be
 * transformed. Free with geo_vfile_free. */
trv_status geo_vector_read(trv_ctx *ctx, const char *path, const char *layer, const char *to_wkt, int what,
                           geo_vfile **out);
void geo_vfile_free(geo_vfile *v);
/* The dataset metadata item key (default domain) of a vector file, such
 * as the TRV_ARGS a GeoPackage records (geo_vec_set_meta), malloc'ed in
 * *value; *value NULL when the file has no such item. TRV_ERR_IO "cannot
 * open 'f': <why>" when OGR cannot open it. */
trv_status geo_vector_meta_read(trv_ctx *ctx, const char *path, const char *key, char **value);
/* 1 if shape s is valid as OGR_G_IsValid (GEOS) judges it (rings closed,
 * simple, not crossing each other; a point or line is 1), 0 if not, with
 * OGR's reason ("Self-intersection at or near point x y") in why; -1 when
 * out of memory. */
int geo_shape_valid(const geo_shape *s, char *why, size_t why_len);
/* Index of the field named name (case-insensitive, as OGR), or -1. */
int geo_vlayer_field(const geo_vlayer *l, const char *name);

/* The default style (styleQML) a GeoPackage keeps for a layer in its
 * layer_styles table as QGIS stores it (useAsDefault first, then the
 * lowest id), as a malloc'ed string; NULL when there is none or it cannot
 * be read. A table without QGIS's id column (as GDAL, and so
 * geo_gpkg_styles_write, creates it: its key is fid) reads as none. */
char *geo_gpkg_style_read(const char *path, const char *layer);

/* One style for each of the n named layers of an existing GeoPackage,
 * added to its layer_styles table (created as QGIS creates it when
 * missing): styleQML docs[i], styleName the layer's name, default for
 * its layer, dated 2000-01-01 so that the file is reproducible. Written
 * as geo_vec writes a GeoPackage, without a rollback journal or syncs: for
 * a file the caller has just made under a temporary name (an output set's),
 * which a crash leaves unusable either way. A layer the file lacks is
 * TRV_ERR_INTERNAL; a failed write TRV_ERR_IO. */
trv_status geo_gpkg_styles_write(trv_ctx *ctx, const char *path, const char *const *layers,
                                 const char *const *docs, int n);

/* ---- raster information ----------------------------------------------- */

typedef enum geo_band_type { GEO_BAND_BYTE = 1, GEO_BAND_OTHER = 2 } geo_band_type;

/* What a raster file says about itself and its band 1, without its cells. */
typedef struct geo_raster_info {
    geo_grid grid;          /* size, geotransform (unset if none: has_gt 0), CRS as WKT2 */
    geo_crs_desc crs;       /* the CRS described as the file holds it (all zero if none) */
    int has_gt;
    int nbands;
    geo_band_type type;     /* band 1: Byte or any other type */
    char type_name[16];     /* band 1's GDAL type name: "Byte", "Int16", "Float32" */
    char *desc, *unit;      /* band description and unit ("" when unset) */
    int has_nodata;
    double nodata;
    int ncolours;           /* colour table entries (0: no colour table) */
    unsigned char rgba[256][4]; /* the first 256 entries */
    int ncategories;        /* category names (0: none) */
    char **categories;      /* names by code, "" where unnamed */
    int nmeta;
    char **meta;            /* dataset metadata, default domain: "KEY=value" items */
} geo_raster_info;

/* Read the information of path (any GDAL raster). TRV_ERR_IO "cannot open
 * 'f': <why>" when GDAL cannot open it. Free with geo_raster_info_clear. */
trv_status geo_raster_info_read(trv_ctx *ctx, const char *path, geo_raster_info *info);
void geo_raster_info_clear(geo_raster_info *info);
/* The value of metadata item key, or NULL. */
const char *geo_raster_info_meta(const geo_raster_info *info, const char *key);

/* Exact minimum and maximum of band 1's valid cells (GDAL's
 * ComputeRasterMinMax). Returns TRV_OK and sets *any = 0 when every cell
 * is nodata; TRV_ERR_FORMAT "cannot read 'f': <why>" on a read error. */
trv_status geo_raster_minmax(trv_ctx *ctx, const char *path, double mm[2], int *any);

/* Which of the values 0..255 band 1 holds, read as Byte (GDAL converts
 * other types): present[v] = 1 for each. TRV_ERR_FORMAT "cannot read
 * 'f': <why>" on a read error. */
trv_status geo_raster_codes(trv_ctx *ctx, const char *path, unsigned char present[256]);

/* ---- CRS description ---------------------------------------------------- */

/* Describe the CRS def (any definition geo_crs_wkt accepts). WKT2 names
 * the authority of the CRS only, not of its parts: an ellipsoid's code
 * comes with "EPSG:n" definitions, WKT1, and the descriptions
 * geo_raster_info_read and geo_vector_read make from the file's own CRS.
 * TRV_ERR_CRS if unreadable. Free with geo_crs_desc_clear. */
trv_status geo_crs_describe(trv_ctx *ctx, const char *def, geo_crs_desc *d);
void geo_crs_desc_clear(geo_crs_desc *d);

/* The bounding box of [xmin, xmax] x [ymin, ymax] in from_wkt after the
 * transformation into to_wkt, with densify points along each edge (PROJ's
 * proj_trans_bounds, as GDAL's OCTTransformBounds); identical CRSs give
 * the box back. Returns 0 on success, -1 when the box cannot be
 * transformed (outside the CRS's domain). */
int geo_crs_bounds(const char *from_wkt, const char *to_wkt, const double in[4], int densify, double out[4]);

/* The names of the entries of directory dir, sorted (strcmp), as a
 * malloc'ed NULL-terminated array (free with geo_names_free); NULL when
 * the directory cannot be read or is empty. Through GDAL's virtual file
 * system, so /vsizip/ and the like work. */
char **geo_dir_names(const char *dir);
void geo_names_free(char **names);

/* Call once before using GDAL through this module (registers drivers,
 * quiets GDAL's own error printing: errors come back through trv_ctx). */
void geo_init(void);

/* The GDAL and the PROJ this process runs with, as the libraries report
 * them at run time ("3.6.2", "9.1.1"); strings owned by the libraries. No
 * geo_init needed. */
const char *geo_gdal_version(void);
const char *geo_proj_version(void);

/* ---- multi-band Float32 GeoTIFFs, written by windows (raster_bands.c) --- */

typedef struct geo_bands geo_bands;

/* Create path (a trv_outset temporary) as a tiled (256 x 256), DEFLATE-compressed
 * (level 1), band-interleaved Float32 GeoTIFF of nbands bands on grid, every
 * band with nodata and unit (NULL: none), the file with meta (may be NULL);
 * tiles compressed by `threads` threads. The bands are then written by
 * windows (geo_bands_put_tile). */
trv_status geo_bands_open(trv_ctx *ctx, const char *path, const geo_grid *grid, int nbands, double nodata,
                          const char *unit, const trv_meta *meta, int threads, geo_bands **out);
/* Bands k .. k + nk - 1 (1-based, a "group"), window (x0, y0, nx, ny):
 * cells[i] holds its nx * ny cells of band k + i, row-major; desc[i] band
 * k + i's description (desc NULL: none), taken from the group's first call.
 * A group is put by windows that cover the raster exactly once, in any
 * order and any tiling, before the next group (any bands not yet put)
 * starts. Refused (TRV_ERR_INTERNAL, nothing taken): a window outside the
 * raster, a band outside the file or already written, cells already put,
 * another group while this one is incomplete.
 *
 * The file is the same bytes whatever the windows and their order: its
 * tiles go in one canonical order. A "unit" is 16 tiles of a 256-row strip
 * (256 rows x 4096 columns, clipped to the raster; a raster at most 4096
 * columns wide has one unit per strip); the units are written in row-major
 * order, each as soon as the group has put all its cells and every earlier
 * unit is written: band by band, its tiles flushed at once (the file's
 * tiles thus unit by unit, and within a unit band by band). Memory: the
 * units put to but not yet written (4 MiB a band each, less at the
 * raster's edges), plus a bit per cell: O(unit) per band for windows
 * aligned to 256 x 256 (the default tiling, geo_block_cols x
 * geo_block_rows) put row-major; windows across units, or put out of
 * row-major order, keep more units waiting (at worst the whole band
 * group, a window per group). GDAL's block cache is bounded
 * (geo_block_cache_reserve: two bands' units). */
trv_status geo_bands_put_tile(trv_ctx *ctx, geo_bands *b, int k, int nk, int x0, int y0, int nx, int ny,
                              const float *const *cells, const char *const *desc);
/* Close (the first write error, if any); frees b. NULL accepted. */
trv_status geo_bands_close(trv_ctx *ctx, geo_bands *b);

#endif
