/* Private to src/prm: what the segment measure and the raster search share. */
#ifndef PRM_PRIV_H
#define PRM_PRIV_H

#include "prm.h"

/* Add to p what a GO cell i crossed over len metres contributes: the class
 * lengths, the slope integral and maximum, time, cost and elevation. */
void prm_piece_add_cell(const prm_terrain *t, long i, double len, prm_piece *p);

#endif
