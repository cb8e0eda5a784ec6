/*
 * realize.h — the fuzzy cost over terrain realisations (docs/method.md
 * §3.7): trv-cost --realizations SIM.tif.
 *
 * Each band of SIM.tif goes through tm_realize_zoned's chain (slope, speed,
 * GO/NOGO; terramech/realize.h) and then through the rules as trv-cost
 * --terrain does (fz_eval_row: inputs slope, elevation, ci, speed of that
 * realisation; cost 1 where it is NOGO). Per cell over the N realisations:
 *   cost_mean = sum_k c_k / N
 *   cost_std  = sqrt(sum_k (c_k - cost_mean)^2 / N)   (population: numpy's std)
 * accumulated in double per cell as sums of c and c^2, tile by tile of
 * tm_realize_zoned's (its sink: the sums of a tile's cells, finished when
 * the tile's last band is done, written by process 0), so memory is two
 * doubles per cell of a tile besides tm_realize_zoned's (realize.h:
 * O(tile x N), whatever the grid's size). A cell with no data in any
 * realisation is nodata (-9999). The outputs are written as the tiles
 * finish (geo_block_write_tile: Cloud-Optimized GeoTIFFs, the same bytes
 * whatever the tile size); cost_std's mean is an exact sum
 * (core/moments.h) and its max order-free, so the same figures in any
 * order. Deterministic.
 */
#ifndef FZ_REALIZE_H
#define FZ_REALIZE_H

#include "fuzzy/fuzzy.h"
#include "geo/block.h"
#include "terramech/realize.h"

#define FZ_REAL_MEAN_TIF "cost_mean.tif"
#define FZ_REAL_STD_TIF "cost_std.tif"

typedef struct fz_real {
    int n;                    /* realisations */
    size_t cells, nodata;
    double std_mean, std_max; /* over the cells with data */
    geo_block_stats stats[2]; /* the writers' of cost_mean.tif and cost_std.tif (their styles' ranges) */
} fz_real;

/* The label of cost_mean.tif (k 0) and cost_std.tif (k 1). */
const char *fz_real_desc(int k);

/* The model of dir's speed copies (tm_run_model_load), the soil table's CI
 * (soils_path), e's inputs among slope, elevation, ci, speed (else
 * TRV_ERR_DATA naming the input), then tm_realize_zoned over sims without
 * zones: dir/cost_mean.tif and dir/cost_std.tif written into set (meta:
 * their metadata) as the blocks finish; on failure abandoned (the set must
 * not be committed). sp (core/split.h; NULL: one process): the tiles
 * split over processes as tm_realize_zoned's; each tile's mean and std
 * cells travel to process 0, which alone passes set and meta, writes them
 * and fills *out (cost_std's mean an exact sum, its max); every process
 * calls it, the others with set NULL. */
struct trv_split;
trv_status fz_realize(trv_ctx *ctx, trv_outset *set, const fz_engine *e, const char *dir, const char *soils_path,
                      const char *sims, const trv_meta *meta, const struct trv_split *sp, fz_real *out);

#endif
