/* The dynamic model in the runner (dynamic_run.c): scenario key
 * `dynamics = dynamic` (sim.h's runner section; docs/method.md §5.11). */
#ifndef SIM_DYNAMIC_RUN_H
#define SIM_DYNAMIC_RUN_H

#include <stdio.h>

#include "sim_priv.h"

/* Vehicle k's model, from its vehicle file and pose, in vehicle 0's ODE
 * world (setup.c, in order, after the obstacles are read). */
trv_status sim_dynamic_new(trv_ctx *ctx, sim_run *r, int k);
void sim_dynamic_free(struct sim_vdyn *vd);
/* Instead of sim_step (run.c): vehicle k's commands, motors and own
 * contacts for the world's next step (sim_dyn_begin); its state changes
 * in sim_dynamic_flush. */
void sim_dynamic_step(trv_ctx *ctx, sim_run *r, int k, const sim_cmd *cmd, double dt);
/* After every vehicle's sim_dynamic_step of the step (run.c): the others
 * absent (not started) or parked (run over), the vehicle-vehicle
 * contacts, one step of the world, then in vehicle order each driven
 * vehicle's state, collision events (with the impact speed; the run goes
 * on: the engine answered the contact; both vehicles of a contact get
 * one), a rollover event that ends the vehicle's run, the metrics'
 * accumulators. Nothing without dynamics. Fails only without memory. */
trv_status sim_dynamic_flush(trv_ctx *ctx, sim_run *r, double dt);
/* The pose after the last step (run.c's check instead of sim_contact): 0. */
int sim_dynamic_pose(const sim_veh *v, double *z, double *pitch, double *roll);
/* metrics.json's dynamic keys of a vehicle (one a line, each ending
 * ",\n"; nothing for a kinematic one): slip_mean, slip_max, roll_max_deg,
 * pitch_max_deg, rollover_threshold_deg, rollover_margin_deg,
 * wheel_load_min_N, wheel_load_mean_N, wheel_load_max_N (FL, FR, RL, RR). */
void sim_dynamic_metrics_write(FILE *f, const sim_veh *v);

#endif
