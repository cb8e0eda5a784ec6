/* The dynamic model in the runner (dynamic_run.c): scenario key
 * `dynamics = dynamic` (sim.h's runner section; docs/method.md §5.11). */
#ifndef SIM_DYNAMIC_RUN_H
#define SIM_DYNAMIC_RUN_H

#include <stdio.h>

#include "sim_priv.h"

/* Vehicle k's ODE world, from its vehicle file and pose (setup.c, after
 * the obstacles are read). */
trv_status sim_dynamic_new(trv_ctx *ctx, sim_run *r, int k);
void sim_dynamic_free(struct sim_vdyn *vd);
/* Instead of sim_step (run.c): one step of vehicle k toward cmd; the
 * other vehicles' boxes placed first; collision events (with the impact
 * speed; the run goes on: the engine answered the contact), a rollover
 * event that ends the vehicle's run, the metrics' accumulators. */
void sim_dynamic_step(trv_ctx *ctx, sim_run *r, int k, const sim_cmd *cmd, double dt);
/* The pose after the last step (run.c's check instead of sim_contact): 0. */
int sim_dynamic_pose(const sim_veh *v, double *z, double *pitch, double *roll);
/* metrics.json's dynamic keys of a vehicle (one a line, each ending
 * ",\n"; nothing for a kinematic one): slip_mean, slip_max, roll_max_deg,
 * pitch_max_deg, rollover_threshold_deg, rollover_margin_deg,
 * wheel_load_min_N, wheel_load_mean_N, wheel_load_max_N (FL, FR, RL, RR). */
void sim_dynamic_metrics_write(FILE *f, const sim_veh *v);

#endif
