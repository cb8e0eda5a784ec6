/* tool.h — what every trv-* tool shares beyond core's option parser. */
#ifndef TOOL_H
#define TOOL_H

#include <stddef.h>

/* The trv_cli libraries hook: the libraries a tool runs with, as they
 * report themselves at run time, one "NAME VERSION" line each:
 *   GDAL 3.6.2
 *   PROJ 9.1.1
 *   LAPACK 3.11.0
 *   OpenBLAS 0.3.21 DYNAMIC_ARCH ... */
void tool_libraries(char *buf, size_t n);

#endif
