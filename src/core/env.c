/* Byte budgets from the environment (trv.h). */
#include "trv.h"

#include <stdint.h>
#include <stdlib.h>

size_t trv_env_bytes(const char *name, size_t dflt)
{
    const char *e = getenv(name);
    char *end;
    unsigned long long v = e && *e ? strtoull(e, &end, 10) : 0;
    return e && *e && *e != '-' && !*end && v <= SIZE_MAX ? (size_t)v : dflt;
}
