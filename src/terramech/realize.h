/*
 * realize.h — the speed model over terrain realisations (docs/method.md
 * §2.12): trv-speed --realizations SIM.tif.
 *
 * SIM.tif holds N realisations of the run's DEM, band k = realisation k,
 * on the run's grid (trv-krige --nsim writes dem_sim.tif). Each band goes
 * through the deterministic chain: Horn slope (geo_slope_row, as
 * trv-terrain), then tm_row (speed in the worse direction, 0 where NOGO,
 * and the reason), with the run's soil and land use. Per cell, over the N
 * realisations:
 *   P(NOGO)        = #{k : reason_k in {slope, soil, land use, traction, zone}} / N
 *   P(NOGO, slope) = #{k : reason_k = slope} / N
 *   speed mean     = sum_k v_k / N        (v_k = 0 where realisation k is NOGO)
 *   speed p10, p50, p90: exact quantiles of the N values v_k, linear
 *                  between order statistics as numpy.percentile's default:
 *                  h = (N - 1) p, q = v_(floor h) + (h - floor h)(v_(floor h + 1) - v_(floor h))
 * A cell that is no data in any realisation (DEM, soil or land use) is
 * nodata (-9999) in every output. Streaming (docs/scale.md): the grid is
 * taken in square tiles, row-major (geo_block_cols() columns,
 * tm_real_block_rows rows); a tile reads its window of soil.tif and land
 * use (run_blocks: run_load's checks and messages, "holds only nodata"
 * after the last tile) and, band by band, its window of SIM.tif with one
 * cell more on each side (Horn; clipped at the grid's edges, where Horn's
 * own edge rule applies, so every cell's slope is the whole grid's); it
 * keeps the N speeds of its cells, sorts them per cell and writes its
 * cells of the six outputs (geo_block_write_tile: Cloud-Optimized
 * GeoTIFFs). Memory: N x tile floats for the speeds (a tile at most
 * TM_REAL_BLOCK_FLOATS / (N cols) rows, at least one), GDAL's cache of
 * three 256-row strips of (tile width + 514) columns of each band of
 * SIM.tif: O(tile x N), whatever the grid's width and height. The bytes
 * do not depend on the tile size, nor on the processes the tiles are split
 * over (tm_realize_zoned's sp, core/split.h); P(NOGO)'s mean is an exact
 * sum (core/moments.h), the same in any order. Deterministic: no
 * randomness here; the same SIM.tif gives the same bytes.
 * With zones (trv-speed --zones, tm_realize_zoned), each realisation's row
 * is baked as trv-speed bakes speed.tif (geo_zones_burn_window, tm_zones_bake_window)
 * before it is counted: a nogo zone's cells NOGO (reason zone) in every realisation,
 * so P(NOGO) = 1 there; speed v -> min(v / f, c) in factor and max_speed
 * zones. trv-route --mc (tm_real_cell) takes the model alone: its zones
 * are the route's own (--zones), as for its deterministic time.
 */
#ifndef TM_REALIZE_H
#define TM_REALIZE_H

#include "terramech/terramech.h"

/* The outputs in the run directory, in tm_real's order. */
enum { TM_REAL_P_NOGO, TM_REAL_P_NOGO_SLOPE, TM_REAL_SPEED_MEAN, TM_REAL_SPEED_P10, TM_REAL_SPEED_P50,
       TM_REAL_SPEED_P90, TM_REAL_NOUT };
/* "p_nogo.tif", "p_nogo_slope.tif", "speed_mean.tif", "speed_p10.tif",
 * "speed_p50.tif", "speed_p90.tif"; NULL outside 0..TM_REAL_NOUT-1. */
const char *tm_real_file(int k);
#define TM_REAL_BLOCK_FLOATS (16u << 20)

/* The label of output k (as tm_real_file); NULL outside 0..TM_REAL_NOUT-1. */
const char *tm_real_desc(int k);

/* Rows per tile for tiles of nx columns and n realisations: geo_block_rows(), at
 * most TM_REAL_BLOCK_FLOATS / (n nx) (the speeds held), at least 1. */
int tm_real_block_rows(int nx, int n);

typedef struct tm_real {
    int n;                          /* realisations: the bands of SIM.tif */
    int cols, rows;                 /* a tile's columns (geo_block_cols) and rows (tm_real_block_rows;
                                       each at most the grid's) */
    const geo_grid *grid;           /* the run's (valid during the run) */
    size_t cells, nodata;           /* all cells; nodata in some realisation */
    size_t always_go, always_nogo, uncertain; /* cells with data: P(NOGO) = 0, = 1, in between */
    double p_nogo_mean;             /* mean P(NOGO) over the cells with data */
} tm_real;

/* What a caller sees of the run (every member may be NULL), on every
 * process (core/split.h): start once the inputs are open and r's n, cols,
 * rows, grid and cells are set, before the first tile; then for each tile
 * x0 .. x0 + nx - 1, y0 .. y0 + ny - 1 (x0 a multiple of r->cols, y0 of
 * r->rows; nx, ny at most those) that this process computes: row for every
 * row y of the tile of every band k (0-based) with the tile's nx cells of
 * that row: that realisation's DEM, slope (nodata -9999), soil, speed and
 * reason (tm_row's), in band order; block after its last band (the tile's
 * own cells from them); parts: the buffers those cells are in (at most
 * TRV_SPLIT_PARTS - 2; the same places on every process), sent to process 0
 * with the tile's; on process 0 alone, in tile order, write: the cells
 * folded and written. A non-zero return stops the run with that status (the
 * callee set the message). trv-cost --realizations sums the cost so. */
struct trv_part;
typedef struct tm_real_sink {
    trv_status (*start)(trv_ctx *ctx, void *arg, const tm_real *r);
    trv_status (*row)(trv_ctx *ctx, void *arg, int k, int y, const float *dem, const float *slope,
                      const unsigned char *soil, const float *speed, const unsigned char *reason, int nx);
    trv_status (*block)(trv_ctx *ctx, void *arg, int x0, int y0, int nx, int ny);
    int (*parts)(void *arg, int x0, int y0, int nx, int ny, struct trv_part *p);
    trv_status (*write)(trv_ctx *ctx, void *arg, int x0, int y0, int nx, int ny);
    void *arg;
} tm_real_sink;

/* Open DIR/soil.tif and DIR/landuse.tif, zo's zones (tm_zone_opts,
 * terramech.h; zo NULL or its path NULL: none; their errors before any
 * output) and sims (its grid must be theirs: TRV_ERR_GRID naming both;
 * geo_raster_open's errors otherwise), then run the blocks: the zones
 * baked into every realisation's rows as above, the counts into *out.
 * set not NULL: the six outputs written into dir in the caller's output
 * set (meta: their metadata; the tool adds their QGIS styles); NULL: none
 * written (trv-cost). sink may be NULL. On failure the outputs are
 * abandoned (the set must not be committed).
 * sp (core/split.h, docs/cluster.md; NULL: one process): the tiles split
 * over processes, tile b computed on process b % size; each sends its
 * tile's six outputs (all six, whatever set), its integer tallies and the
 * sink's parts to process 0, which alone passes set and meta, writes the
 * tiles in tile order and fills *out: the tallies added, P(NOGO)'s mean
 * summed exactly from the tiles' cells, so the same bytes and figures
 * whatever the processes; a tile's error comes back as process 0's (the
 * one process's message). Every process calls it, the others with set and
 * meta NULL. */
struct trv_split;
trv_status tm_realize_zoned(trv_ctx *ctx, trv_outset *set, const tm_model *m, const char *dir, const char *sims,
                            const tm_zone_opts *zo, const trv_meta *meta, const tm_real_sink *sink,
                            const struct trv_split *sp, tm_real *out);

/* One cell i of one realisation held whole in dem (Float32, on the grid
 * of soil and lu): its Horn slope (geo_slope_at: geo_slope_row's value; ew, ns:
 * cell size in metres), then tm_row: the same speed (km/h) and reason as
 * tm_realize_zoned gives that cell. trv-route --mc reads its routes' cells so. */
void tm_real_cell(const tm_model *m, const geo_raster *dem, double ew, double ns, const unsigned char *soil,
                  const unsigned char *lu, size_t i, float *speed, unsigned char *reason);

/* The p-quantile (0 <= p <= 1) of n sorted values, as above. Pure. */
double tm_quantile_sorted(const float *v, int n, double p);

#endif
