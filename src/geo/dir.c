/* Directory listings through GDAL's virtual file system (geo.h). */
#define _POSIX_C_SOURCE 200809L
#include "geo_priv.h"

#include <stdlib.h>
#include <string.h>

#include <cpl_string.h>
#include <cpl_vsi.h>

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

char **geo_dir_names(const char *dir)
{
    char **list = VSIReadDir(dir);
    int n = list ? CSLCount(list) : 0;
    char **out = n > 0 ? calloc((size_t)n + 1, sizeof *out) : NULL;
    for (int i = 0; out && i < n; i++)
        if (!(out[i] = strdup(list[i]))) {
            geo_names_free(out);
            out = NULL;
        }
    CSLDestroy(list);
    if (out)
        qsort(out, (size_t)n, sizeof *out, cmp_str);
    return out;
}

void geo_names_free(char **names)
{
    for (int i = 0; names && names[i]; i++)
        free(names[i]);
    free(names);
}
