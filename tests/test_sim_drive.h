/* A simulator run the tests drive whole (sim/sim.h): the scenario TEXT
 * written to DIR/NAME, read, run over the terrain T with seed 7 and driven
 * to its end; each step must succeed (sim_run_new's message printed when it
 * does not). test_sim_rollover.c and test_sim_dynamic.c. */
#ifndef TEST_SIM_DRIVE_H
#define TEST_SIM_DRIVE_H

#include "test_common.h"

#include "sim/sim.h"

#include <stdio.h>
#include <stdlib.h>

static inline void test_sim_drive(const char *dir, const char *name, const char *text, const prm_terrain *T,
                                  sim_run **run, sim_scenario **sc)
{
    trv_ctx *ctx = trv_ctx_new();
    char *p = write_file(dir, name, text);
    assert_int_equal(sim_scenario_read(ctx, p, sc), TRV_OK);
    sim_env env = {.seed = 7};
    trv_status st = sim_run_new(ctx, *sc, T, &env, run);
    if (st)
        printf("  %s\n", trv_errmsg(ctx));
    assert_int_equal(st, TRV_OK);
    assert_int_equal(sim_run_go(ctx, *run), TRV_OK);
    free(p);
    trv_ctx_free(ctx);
}

#endif
