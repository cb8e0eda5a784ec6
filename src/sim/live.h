/*
 * live.h — what a live viewer of a run (the console, src/console) reads
 * beyond the control protocol's messages: the path each vehicle follows
 * now and the first one it was given, and when its first LiDAR last
 * scanned. Read-only views into the run: valid until its next step,
 * command or reset.
 */
#ifndef SIM_LIVE_H
#define SIM_LIVE_H

#include "sim.h"

/* Vehicle k's path: which 0 the first plan (the scenario's route, or its
 * first plan), 1 the path it follows now (after re-plans, commands).
 * Returns the number of vertices (0: none), *x and *y the vertices. */
int sim_live_path(const sim_run *r, int k, int which, const double **x, const double **y);
/* The time of vehicle k's first LiDAR's last scan kept for scan requests
 * (sim_ext_scan_enable), or -1 when there is none yet. */
double sim_live_scan_t(const sim_run *r, int k);

#endif
