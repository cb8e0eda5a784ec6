/* What every trv-* tool shares beyond core's option parser: the libraries
 * that --version names. Linked into every tool, not into the library. */
#include "tool.h"

#include "geo/geo.h"
#include "kriging/krige.h"

#include <stdio.h>

void tool_libraries(char *buf, size_t n)
{
    char lapack[64];
    snprintf(buf, n, "GDAL %s\nPROJ %s\nLAPACK %s\n%s\n", geo_gdal_version(), geo_proj_version(),
             krg_lapack_version(lapack, sizeof lapack), krg_blas_version());
}
