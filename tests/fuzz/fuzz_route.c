/* The route file trv-sim drives (CSV with x, y and route columns; the
 * route's reading in sim_run_new) on fuzz_terrain, with the bundled UGV
 * and a scenario naming the input. */
#include "fuzz.h"
#include "sim/sim.h"

#include <stdio.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    trv_ctx *ctx = fuzz_ctx();
    const prm_terrain *t = fuzz_terrain();
    static sim_scenario *sc;
    if (!sc) {
        char text[1024];
        snprintf(text, sizeof text,
                 "[scenario]\nstep_s = 0.05\ntime_limit_s = 60\n\n[vehicle.ugv]\nfile = %s/vehicles/ugv_hua2022.ini\n"
                 "model = ackermann\nroute = input.csv\n",
                 fuzz_datadir());
        if (sim_scenario_read(ctx, fuzz_write("scenario.ini", text), &sc)) {
            fprintf(stderr, "fuzz_route: %s\n", trv_errmsg(ctx));
            abort();
        }
    }
    fuzz_file(data, size, ".csv");
    sim_env env = {.seed = 1};
    sim_run *r = NULL;
    if (!fuzz_result(sim_run_new(ctx, sc, t, &env, &r)))
        sim_run_free(r);
    return 0;
}
