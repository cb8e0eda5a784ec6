/*
 * realize.h — the fuzzy cost over terrain realisations (docs/method.md
 * §3.7): trv-cost --realizations SIM.tif.
 *
 * Each band of SIM.tif goes through tm_realize's chain (slope, speed,
 * GO/NOGO; terramech/realize.h) and then through the rules as trv-cost
 * --terrain does (fz_eval_row: inputs slope, elevation, ci, speed of that
 * realisation; cost 1 where it is NOGO). Per cell over the N realisations:
 *   cost_mean = sum_k c_k / N
 *   cost_std  = sqrt(sum_k (c_k - cost_mean)^2 / N)   (population: numpy's std)
 * accumulated in double per cell as sums of c and c^2 (so memory is two
 * doubles per cell besides tm_realize's blocks). A cell with no data in any
 * realisation is nodata (-9999). Deterministic.
 */
#ifndef FZ_REALIZE_H
#define FZ_REALIZE_H

#include "fuzzy/fuzzy.h"
#include "terramech/realize.h"

#define FZ_REAL_MEAN_TIF "cost_mean.tif"
#define FZ_REAL_STD_TIF "cost_std.tif"

typedef struct fz_real {
    int n;                  /* realisations */
    geo_raster *mean, *std; /* Float32, nodata -9999 */
    size_t cells, nodata;
    double std_mean, std_max; /* over the cells with data */
} fz_real;

/* The model of dir's speed copies (tm_run_model_load), the soil table's CI
 * (soils_path), e's inputs among slope, elevation, ci, speed (else
 * TRV_ERR_DATA naming the input), then tm_realize over sims. */
trv_status fz_realize(trv_ctx *ctx, const fz_engine *e, const char *dir, const char *soils_path, const char *sims,
                      fz_real *out);
void fz_real_clear(fz_real *r);

#endif
