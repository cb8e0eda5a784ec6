/* Private to src/terramech: what the trv-speed stage's run by row blocks
 * (stream.c, tm_run_split) takes from model.c. */
#ifndef TM_RUN_PRIV_H
#define TM_RUN_PRIV_H

#include "terramech.h"

/* The colour tables of gonogo.tif (limit 0) and limit.tif (limit 1),
 * with the zone classes named when zoned. */
const geo_classes *tm_out_classes(int limit, int zoned);

#endif
