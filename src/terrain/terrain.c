/* Terrain fusion: the options (the run itself streams: stream.c). */
#include "terrain.h"

#include <string.h>

void ter_opts_init(ter_opts *o)
{
    memset(o, 0, sizeof *o);
    o->resample = GEO_MODE;
}
