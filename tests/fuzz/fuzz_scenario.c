/* The scenario file (INI; sim_scenario_read). */
#include "fuzz.h"
#include "sim/sim.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    sim_scenario *sc = NULL;
    if (!fuzz_result(sim_scenario_read(fuzz_ctx(), fuzz_file(data, size, ".ini"), &sc)))
        sim_scenario_free(sc);
    return 0;
}
