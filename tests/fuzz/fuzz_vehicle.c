/* The vehicle file (INI; tm_vehicle_read). */
#include "fuzz.h"
#include "terramech/terramech.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    tm_vehicle *v = NULL;
    if (!fuzz_result(tm_vehicle_read(fuzz_ctx(), fuzz_file(data, size, ".ini"), &v)))
        tm_vehicle_free(v);
    return 0;
}
