/* The obstacles file (GeoJSON; sim_obstacles_read) on fuzz_terrain, with
 * one route along row 10 for the route-relative obstacles. */
#include "fuzz.h"
#include "sim/sim.h"

#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    trv_ctx *ctx = fuzz_ctx();
    const prm_terrain *t = fuzz_terrain();
    static sim_path route;
    if (!route.n) {
        const double x[3] = {500055, 500200, 500355}, y[3] = {4000295, 4000295, 4000295};
        if (sim_path_set(ctx, &route, x, y, 3))
            abort();
    }
    const sim_route_ref ref = {"ugv", &route};
    sim_obstacle *o = NULL;
    int n = 0;
    if (!fuzz_result(sim_obstacles_read(ctx, fuzz_file(data, size, ".geojson"), t, &ref, 1, &o, &n)))
        sim_obstacles_free(o, n);
    return 0;
}
