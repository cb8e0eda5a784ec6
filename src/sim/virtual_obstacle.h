/*
 * virtual_obstacle.h — obstacles added and removed while a run goes
 * (docs/sim-protocol.md: add_obstacle, remove_obstacle; a commands file's
 * add_obstacle / circle / vertex / remove_obstacle rows), applied between
 * two steps like the other commands (server.h), so that a batch replay of
 * the server's commands.csv gives the same bytes.
 *
 * An obstacle added at time t0 (the step's start, i x step_s) is a
 * sim_obstacle appended to the run's (so collisions and the LiDAR treat it
 * as a scenario obstacle): named "virtual-N", N = 1, 2, ... in the order
 * added (its number), present from t0 (appear_s) until removed
 * (disappear_s = the removal's time), moving at (vx, vy) from where it was
 * added (its t = 0 footprint is that one moved back by (vx, vy) t0), its
 * base the terrain at its centre there (the polygon's vertex mean).
 *
 * Known (a[3] = 1) or sensed (0): a known obstacle is written at once into
 * the seen map of every vehicle not done (created for a vehicle without
 * LiDAR): every terrain cell whose square overlaps the footprint where it
 * was added is blocked (the paper's cost-map injection; inflated as the
 * LiDAR's cells are), and a vehicle whose path from where it is now
 * crosses a blocked cell re-plans as after a scan (sim.h: re-planning;
 * a "replan" event with "cause": "known_obstacle", or "stuck"), unless it
 * has a local planner (local_planner.h), which steers round it. A sensed
 * one is found by the LiDAR like any obstacle. Removing an obstacle takes
 * it out of the world; the seen maps keep what they hold (they only
 * accumulate).
 *
 * Events (vehicle null, x, y its centre then): obstacle_added
 * ("obstacle": N, "shape", "radius_m" or "vertices", "height_m", "vx_ms",
 * "vy_ms", "known") and obstacle_removed ("obstacle": N). obstacles.geojson
 * holds every obstacle with its whole geometry (at t = 0) and times.
 */
#ifndef SIM_VIRTUAL_OBSTACLE_H
#define SIM_VIRTUAL_OBSTACLE_H

#include "server.h"

#define SIM_VOBS_MAX_VERTICES 10000

/* 0 if the obstacle command c (SIM_CMD_ADD_*, SIM_CMD_REMOVE_OBSTACLE)
 * can be applied to r now, else TRV_ERR_DATA with the message and, when
 * name is not NULL, the protocol's error name in *name:
 *   over              the run is over
 *   not_finite        a coordinate, the radius, height or a velocity is
 *                     not a finite number
 *   out_of_range      radius or height <= 0; more than
 *                     SIM_VOBS_MAX_VERTICES vertices; known not 0 or 1
 *   too_few_vertices  a polygon of fewer than 3 (a closing vertex equal
 *                     to the first is not counted)
 *   self_intersecting two edges of the polygon meet other than at their
 *                     shared vertex (touching, crossing, an edge of
 *                     length 0, or folding back on the next), or it
 *                     has no area
 *   outside_map       the circle's centre or a vertex is off the terrain
 *                     (or where its DEM has no height)
 *   unknown_obstacle  remove: no obstacle of that number was added
 *   already_removed   remove: it was removed before */
trv_status sim_vobs_check(trv_ctx *ctx, const sim_run *r, const sim_command *c, const char **name);
/* Check, then apply c at the run's time (*num, may be NULL: the number of
 * the obstacle added or removed). */
trv_status sim_vobs_apply(trv_ctx *ctx, sim_run *r, const sim_command *c, int *num);
/* The virtual obstacles added so far, and number n's (1-based; NULL when
 * there is none). */
int sim_vobs_count(const sim_run *r);
const sim_obstacle *sim_vobs_get(const sim_run *r, int n);

/* 1 if the polygon (n >= 3 distinct vertices, not closed) is simple and
 * has an area: no two edges meet but adjacent ones at their shared
 * vertex, without folding back. */
int sim_polygon_simple(const double *x, const double *y, int n);

/* The protocol's requests (protocol_obstacles.c, json-c): add_obstacle,
 * remove_obstacle, obstacles. A reply's members, or NULL with *name and
 * msg (cap bytes) the error. */
struct json_object;
struct json_object *sim_proto_add_obstacle(sim_session *ss, struct json_object *req, const char **name, char *msg,
                                           size_t cap);
struct json_object *sim_proto_remove_obstacle(sim_session *ss, struct json_object *req, const char **name, char *msg,
                                              size_t cap);
struct json_object *sim_proto_obstacles(sim_session *ss, struct json_object *req, const char **name, char *msg,
                                        size_t cap);

#endif
