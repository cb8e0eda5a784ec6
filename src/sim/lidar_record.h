/* The run's record for replays (docs/summaries.md, "A simulator run"):
 *
 * vehicles.json   every vehicle's id, model and dimensions (sim_body:
 *                 length, width, height, wheelbase, track, wheel radius,
 *                 metres) and the name of its LiDAR record or null, so
 *                 that a replay draws each vehicle at its size.
 * lidar_ID.ndjson with [scenario] lidar_record_s > 0, per vehicle with a
 *                 LiDAR: its first LiDAR's scans, one JSON object a line,
 *                 the first scan at or after the start and then the first
 *                 at or after lidar_record_s since the last recorded:
 *                 {"t", "x", "y", "z" (the vehicle's reference point, map
 *                 CRS), "heading_deg", "hits" (the scan's hits), "n" (the
 *                 points kept), "xyz": [dx, dy, dz, ...] (each point minus
 *                 (x, y, z), metres, 2 decimals)}. A scan of more hits than
 *                 lidar_record_points keeps B = lidar_record_points of them,
 *                 evenly spread: hit floor(j hits / B) for j = 0 .. B - 1
 *                 (sim_lidrec_pick). Memory: 12 bytes a point kept. */
#ifndef SIM_LIDAR_RECORD_H
#define SIM_LIDAR_RECORD_H

#include "sim_priv.h"

typedef struct sim_lidrec sim_lidrec;

/* The index of the j-th point kept of n hits under a budget of b points:
 * j itself when n <= b, else floor(j n / b) (0 <= j < min(n, b)). */
long sim_lidrec_pick(long n, long b, long j);

/* A scan taken at t from pose s (hits: n points, 3 a point, map CRS),
 * recorded into *rec (created on the first) when the scenario records and
 * one is due. Out of memory: the record is marked failed (its writing
 * then fails), the run goes on. */
void sim_lidrec_scan(sim_lidrec **rec, const sim_scenario *sc, double t, const sim_state *s, const double *hits,
                     int n);

/* The record as NDJSON (above) into path. */
trv_status sim_lidrec_write(trv_ctx *ctx, const sim_lidrec *rec, const char *path);

/* The number of scans recorded (0 for NULL). */
long sim_lidrec_scans(const sim_lidrec *rec);

void sim_lidrec_free(sim_lidrec *rec);

/* OUTDIR's lidar_ID.ndjson (vehicles with a record) and vehicles.json,
 * added to set (output.c's sim_run_write). */
trv_status sim_lidrec_write_run(trv_ctx *ctx, trv_outset *set, const sim_run *r, const char *outdir);

#endif
