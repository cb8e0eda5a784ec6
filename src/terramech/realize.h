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
 * nodata (-9999) in every output. Streaming: the grid is taken in blocks of
 * rows; a block reads its rows (and one above and below, for Horn) of
 * every band and keeps the N speeds of its cells, which it sorts per cell;
 * so memory is N x block x nx floats (at most TM_REAL_BLOCK_FLOATS, at least
 * one row), never N grids. The result does not depend on the block size.
 * Deterministic: no randomness here; the same SIM.tif gives the same bytes.
 * With zones (trv-speed --zones, tm_realize_zoned), each realisation's row
 * is baked as tm_run_zoned bakes speed.tif (tm_zones_bake_row) before it
 * is counted: a nogo zone's cells NOGO (reason zone) in every realisation,
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

typedef struct tm_real {
    int n;                          /* realisations: the bands of SIM.tif */
    geo_raster *out[TM_REAL_NOUT];  /* Float32, nodata -9999, on the run's grid */
    size_t cells, nodata;           /* all cells; nodata in some realisation */
    size_t always_go, always_nogo, uncertain; /* cells with data: P(NOGO) = 0, = 1, in between */
    double p_nogo_mean;             /* mean P(NOGO) over the cells with data */
} tm_real;

/* Called for every row y of every band k (0-based) with that realisation's
 * DEM row, slope row (nodata -9999), speed and reason rows (tm_row's), in
 * band order within a block of rows and the blocks top to bottom; a
 * non-zero return stops the run with that status (the callee set the
 * message). trv-cost --realizations uses it for the cost. */
typedef trv_status (*tm_real_row_fn)(void *arg, int k, int y, const float *dem, const float *slope,
                                      const float *speed, const unsigned char *reason, int nx);

/* Read DIR/soil.tif and DIR/landuse.tif, open sims (its grid must be
 * theirs: TRV_ERR_GRID naming both; geo_raster_open's errors otherwise),
 * and compute the outputs above into *out (fn may be NULL). */
trv_status tm_realize(trv_ctx *ctx, const tm_model *m, const char *dir, const char *sims, tm_real_row_fn fn,
                      void *arg, tm_real *out);
/* tm_realize with zo's zones (tm_zone_opts, terramech.h; path NULL: none)
 * read onto the run's grid (their errors before any output) and baked
 * into every realisation's rows as above. */
trv_status tm_realize_zoned(trv_ctx *ctx, const tm_model *m, const char *dir, const char *sims,
                            const tm_zone_opts *zo, tm_real_row_fn fn, void *arg, tm_real *out);
void tm_real_clear(tm_real *r);
/* Write the outputs into dir in the caller's output set (the tool adds
 * their QGIS styles). */
trv_status tm_real_write(trv_ctx *ctx, trv_outset *set, const tm_real *r, const char *dir, const trv_meta *meta);

/* One cell i of one realisation held whole in dem (Float32, on the grid
 * of soil and lu): its Horn slope (geo_slope_at: geo_slope_row's value; ew, ns:
 * cell size in metres), then tm_row: the same speed (km/h) and reason as
 * tm_realize gives that cell. trv-route --mc reads its routes' cells so. */
void tm_real_cell(const tm_model *m, const geo_raster *dem, double ew, double ns, const unsigned char *soil,
                  const unsigned char *lu, size_t i, float *speed, unsigned char *reason);

/* The p-quantile (0 <= p <= 1) of n sorted values, as above. Pure. */
double tm_quantile_sorted(const float *v, int n, double p);

#endif
