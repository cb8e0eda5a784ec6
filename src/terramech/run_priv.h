/* Private to src/terramech: the trv-speed stage's two runs, whole layers
 * (model.c, with zones) and by row blocks (stream.c, without). */
#ifndef TM_RUN_PRIV_H
#define TM_RUN_PRIV_H

#include "terramech.h"

/* The colour tables of gonogo.tif (limit 0) and limit.tif (limit 1),
 * with the zone classes named when zoned. */
const geo_classes *tm_out_classes(int limit, int zoned);

/* tm_run without zones by blocks of geo_block_rows() rows (geo/block.h):
 * the same maps (as Cloud-Optimized GeoTIFFs), figures and errors. */
trv_status tm_run_stream(trv_ctx *ctx, trv_outset *set, const tm_model *m, const char *dir, const trv_meta *meta,
                         tm_stats *stats);

#endif
