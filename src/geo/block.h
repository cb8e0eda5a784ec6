/*
 * block.h — streamed raster I/O by row blocks and tiles (docs/scale.md).
 *
 * A stage that streams processes its grid in row ranges [y0, y1) (a range
 * per call, so a later split over processes takes any ranges): the reader
 * gives rows y0 - halo .. y1 + halo - 1 of a layer (clipped at the grid's
 * edges: the 3x3 slope window needs halo 1), read through GDAL's windowed
 * I/O with geo_raster_read's rules (a non-finite Float32 cell is nodata, a
 * Byte layer from another type must hold integers 0..255), so a row holds
 * exactly the values geo_raster_read gives it. The writer takes the rows in
 * order (buffering one 256-row strip of the layer) or tiles in any order
 * (straight into the temporary through GDAL's windowed I/O), and writes a
 * Cloud-Optimized GeoTIFF (GDAL's COG driver: 256 x 256 tiles, DEFLATE
 * with predictor, overviews AVERAGE for Float32, NEAREST for Byte) with
 * the header geo_raster_write gives (CRS, nodata, label, metadata, colour
 * table, statistics). The COG driver copies from a finished dataset, so
 * the cells go to a tiled temporary GTiff first, removed after the copy: in
 * GDAL's memory files, uncompressed, when the layer and its overviews hold
 * at most geo_block_mem() bytes (the copy then only compresses: trv-krige
 * at 30 m Jacksboro 0.02-0.03 s of CPU less), else beside path
 * (path.part.tif, ZSTD level 1); path itself is a trv_outset temporary, so
 * nothing partial is ever visible. After the last cell the overviews are
 * made tile by tile: level k's 256 x 256 tile from level k - 1's 512 x 512
 * window read back (Float32: the mean of each 2 x 2's data cells, nodata
 * where none; Byte: the top-left cell; a last odd row or column pairs
 * single). The COG is the same file either way, whatever the block heights
 * or tiles the cells came in.
 *
 * Memory: the reader holds (rows + 2 halo) x nx cells; the writer by rows
 * a 256 x nx strip, by tiles none of its own; the overview pass a 512 x
 * 512 window and a 256 x 256 tile; the temporary, when in memory, at most
 * geo_block_mem() bytes. GDAL's block cache is bounded (4 MiB, plus two
 * 256-row strips of the grid's width per reader that has read rows, plus
 * three 256-row strips of its widest window's width + 512 per reader that
 * has read windows), so peak memory is O(nx x block) by rows whatever the
 * grid's height, and O(tile) by tiles and windows whatever its width.
 *
 * Statistics: min, max, mean and standard deviation of the data cells,
 * their sums exact (core/moments.h), so the same values whatever the
 * order the cells come in, and geo_raster_write's values for the same
 * cells.
 */
#ifndef GEO_BLOCK_H
#define GEO_BLOCK_H

#include "geo.h"

/* The default rows per block (geo_block_rows). */
#define GEO_BLOCK_ROWS 256

/* Rows per block: TRV_BLOCK_ROWS from the environment (an integer >= 1)
 * when set, else GEO_BLOCK_ROWS. */
int geo_block_rows(void);

/* The default columns per tile (geo_block_cols). */
#define GEO_BLOCK_COLS 256

/* Columns per tile of a stage that runs by tiles (geo_block_rows rows
 * each): TRV_BLOCK_COLS from the environment (an integer >= 1) when set,
 * else GEO_BLOCK_COLS. */
int geo_block_cols(void);

/* A raster of nx x ny cells cut into tiles of tw x th (each at least 1 and
 * at most the raster's size), row-major: tile i's first column is
 * (i mod ntx) tw, its first row (i div ntx) th; the last column and row of
 * tiles are clipped to the raster. The stages that run by tiles (trv-speed,
 * trv-cost, trv-terrain, --realizations) and MPI's blocks share it:
 * block b = tile b. */
typedef struct geo_tiling {
    int nx, ny;             /* the raster */
    int tw, th;             /* a whole tile */
    int ntx, nty;           /* tiles across, down */
} geo_tiling;

/* One tile: its first column and row, its size. */
typedef struct geo_tile {
    int x0, y0, nx, ny;
} geo_tile;

/* The tiling of nx x ny cells (both >= 1) by cols x rows, each clipped to
 * [1, the raster's size]. */
geo_tiling geo_tiling_make(int nx, int ny, int cols, int rows);
/* Tiles in all: ntx nty. */
int geo_tiling_count(const geo_tiling *t);
/* Tile i, 0 <= i < geo_tiling_count(t). */
geo_tile geo_tiling_tile(const geo_tiling *t, int i);

/* The default bytes of a layer's temporary kept in memory (geo_block_mem). */
#define GEO_BLOCK_MEM ((size_t)16 << 20)

/* The largest layer (its cells and overviews' cells, in bytes) whose
 * temporary GTiff the writer keeps in memory: TRV_BLOCK_MEM from the
 * environment (an integer >= 0; 0: always on disk) when set, else
 * GEO_BLOCK_MEM. */
size_t geo_block_mem(void);

/* The default bytes of a row-major output's strip (geo_strip_mem): 64
 * MiB, so that strips are cut (and their input blocks decoded more than
 * once: GDAL's cache is bounded) only beyond 65 536 RGBA or 262 144 grey
 * columns. */
#define GEO_STRIP_MEM ((size_t)64 << 20)

/* The bytes a row-major output (a PNG texture, nav2's map.pgm: formats
 * written a whole row at a time) may hold in one strip: TRV_STRIP_MEM
 * from the environment (an integer >= 0, for tests that want the strips
 * cut at small widths) when set, else GEO_STRIP_MEM. */
size_t geo_strip_mem(void);

/* The rows of such a strip, width pixels of `bytes` bytes each (both >=
 * 1): rows = clamp(geo_strip_mem() / (width bytes), 1, geo_block_rows()),
 * so a strip holds at most max(geo_strip_mem(), one row) bytes whatever
 * the width. The stage's tiles take this height; its output is the same
 * bytes whatever the tiles. */
int geo_strip_rows(int width, int bytes);

/* Rows y0 .. y1 - 1 of a layer, all nx columns, row-major. */
typedef struct geo_rows {
    int nx, y0, y1;
    geo_type type;
    float *f32;             /* (y1 - y0) * nx cells when type == GEO_F32 */
    unsigned char *u8;      /* (y1 - y0) * nx cells when type == GEO_U8 */
    int has_nodata;
    double nodata;          /* geo_raster_read's nodata for this layer */
} geo_rows;

/* Row y of b (y0 <= y < y1), or NULL when b does not hold it (off the grid). */
const float *geo_rows_f32(const geo_rows *b, int y);
const unsigned char *geo_rows_u8(const geo_rows *b, int y);

typedef struct geo_block_reader geo_block_reader;

/* GDAL's block cache grown by `strips` 256-row Float32 strips of nx
 * columns (a reader reserves two at its first rows, three of its window's
 * width + 512 at its first window; a stage reading a multi-band file by
 * windows reserves its own), never above GDAL's own default. */
void geo_block_cache_reserve(int nx, int strips);

/* Open band 1 of path to be read as type with halo rows above and below
 * each block (geo_raster_open's errors). */
trv_status geo_block_reader_open(trv_ctx *ctx, const char *path, geo_type type, int halo, geo_block_reader **out);
void geo_block_reader_close(geo_block_reader *r);
const geo_grid *geo_block_reader_grid(const geo_block_reader *r);
/* Rows max(0, y0 - halo) .. min(ny, y1 + halo) - 1 into *rows (held by the
 * reader until its next read or close). */
trv_status geo_block_read(trv_ctx *ctx, geo_block_reader *r, int y0, int y1, const geo_rows **rows);

/* Columns x0 .. x1 - 1, rows y0 .. y1 - 1 of a layer, row-major. */
typedef struct geo_window {
    int x0, x1, y0, y1;
    geo_type type;
    float *f32;             /* (x1 - x0) * (y1 - y0) cells when type == GEO_F32 */
    unsigned char *u8;      /* the same when type == GEO_U8 */
    int has_nodata;
    double nodata;          /* geo_raster_read's nodata for this layer */
} geo_window;

/* The cell (x, y) of w and the cells after it on its row, or NULL when w
 * does not hold it (off the grid). */
const float *geo_window_f32(const geo_window *w, int x, int y);
const unsigned char *geo_window_u8(const geo_window *w, int x, int y);

/* The window x0 .. x1 - 1, y0 .. y1 - 1 with the reader's halo on all
 * four sides: columns max(0, x0 - halo) .. min(nx, x1 + halo) - 1, rows
 * likewise, into *win (held by the reader until its next window read or
 * close), with geo_block_read's rules. */
trv_status geo_block_read_window(trv_ctx *ctx, geo_block_reader *r, int x0, int x1, int y0, int y1,
                                 const geo_window **win);

/* What the writer saw: the data cells' count, min, max, mean, std (Float32
 * layers; count 0 and the rest 0 for Byte layers or none). */
typedef struct geo_block_stats {
    size_t count;
    double min, max, mean, std;
} geo_block_stats;

typedef struct geo_block_writer geo_block_writer;

/* Start path (a trv_outset temporary) for a layer like `like`: its grid,
 * type, nodata, description, unit and classes (its cells are not used);
 * meta may be NULL. */
trv_status geo_block_writer_open(trv_ctx *ctx, const geo_raster *like, const char *path, const trv_meta *meta,
                                 geo_block_writer **out);
/* geo_block_writer_open onto a temporary of set for the final path (the
 * caller's; trv_outset_add: committed with the set); final NULL (the
 * caller's allocation failed) or no room in the set: TRV_ERR_NOMEM. */
trv_status geo_block_writer_open_set(trv_ctx *ctx, trv_outset *set, const geo_raster *like, const char *final,
                                     const trv_meta *meta, geo_block_writer **out);
/* The DEFLATE level (1..12, libdeflate's scale) of the COG copy; 0, the
 * default, leaves GDAL's (6). The cells are the same at every level. */
void geo_block_writer_set_level(geo_block_writer *w, int zlevel);
/* Rows y0 .. y0 + ny - 1 of the layer (nx * ny cells of its type); y0 must
 * be the first row not yet written. */
trv_status geo_block_write(trv_ctx *ctx, geo_block_writer *w, int y0, int ny, const void *cells);
/* The tile x0 .. x0 + nx - 1, y0 .. y0 + ny - 1 of the layer (nx * ny
 * cells of its type, row-major), straight into the temporary's layer
 * through GDAL's windowed I/O: tiles in any order, each cell written once
 * (the writer checks the tile lies inside the grid and the count of cells
 * at close). A writer takes rows (geo_block_write) or tiles, not both. */
trv_status geo_block_write_tile(trv_ctx *ctx, geo_block_writer *w, int x0, int y0, int nx, int ny,
                                const void *cells);
/* st == TRV_OK: after the last row or tile, write the statistics and make path the
 * COG (stats, if not NULL, gets them); else abandon it. Frees w, removes
 * the temporary GTiff, returns the first error. */
trv_status geo_block_writer_close(trv_ctx *ctx, geo_block_writer *w, trv_status st, geo_block_stats *stats);
/* geo_block_writer_close of w[0 .. n - 1] in turn (NULL entries skipped),
 * each told the first error so far, so a failure abandons the ones after
 * it; stats NULL or n entries (entry k gets w[k]'s). Returns the first
 * error. */
trv_status geo_block_writers_close(trv_ctx *ctx, geo_block_writer *const *w, int n, trv_status st,
                                   geo_block_stats *stats);
/* GDAL_NUM_THREADS = n for this thread's later GDAL calls (the COG copy
 * of geo_block_writer_close compresses its tiles on n threads: the same
 * file in less wall time), unless the user set it or n <= 1. Returns
 * whether it set it; geo_block_threads_end(set) undoes it. */
int geo_block_threads_begin(int n);
void geo_block_threads_end(int set);

#endif
