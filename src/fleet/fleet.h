/*
 * fleet.h — a fleet of vehicles and a set of tasks (docs/fleet.md):
 * the fleet and task files, each vehicle's cost matrix over its own
 * roadmap, and who serves which task in which order.
 *
 * The problem (fleet_problem): vehicles k = 0..nv-1, tasks j = 0..nt-1;
 * per vehicle a travel-time matrix over nt + 1 points (0: the vehicle's
 * start, 1 + j: task j), INFINITY where its roadmap has no route. A
 * vehicle's route is its tasks in order; it leaves its start at its
 * availability time a_k and, for each task j in turn,
 *     arrive = previous end + travel;  infeasible if arrive > close_j;
 *     begin  = max(arrive, open_j);    end = begin + service_j,
 * so it waits for a window to open and must arrive before it closes. Its
 * time is the last end - a_k (0 with no task): travel, waiting and
 * service. Capacity: at most cap_k tasks (0: no limit). A plan's total
 * is the sum of its vehicles' times, its makespan the latest end.
 * Every solver first serves as many tasks as it can, then minimises its
 * objective; tasks no vehicle can serve are the plan's unserved.
 *
 * Solvers:
 *   fleet_assign_one       one task per vehicle at most, min total
 *                          (Hungarian method, Kuhn 1955 / Munkres 1957,
 *                          O(n^2 m) with potentials);
 *   fleet_assign_makespan  one task per vehicle, min of the latest end
 *                          (bottleneck assignment: threshold search over
 *                          the sorted ends with a bipartite matching),
 *                          then min total among those;
 *   fleet_vrp              several tasks per vehicle: cheapest insertion
 *                          and seeded random-order insertions, each then
 *                          local search (relocate, exchange, 2-opt within
 *                          a route) to a local optimum; the best, min total;
 *   fleet_milp             the same problem's exact optimum as a MILP
 *                          (GLPK's branch and cut; docs/fleet.md gives
 *                          the formulation).
 * Ownership: *_free frees what the matching reader or solver made.
 */
#ifndef FLEET_H
#define FLEET_H

#include "core/trv.h"

#include <math.h>

/* ---- the files (fleet_file.c) ------------------------------------------------ */

typedef struct fleet_vehicle {
    char id[32];
    char *vehicle;          /* the vehicle INI (for trv-sim), resolved against the fleet file's directory */
    char *run;              /* the run directory holding its speed, cost and GO/NOGO maps */
    char *roadmap;          /* its roadmap (default run/roadmap.gpkg) */
    double x, y;            /* start, in the fleet's srs */
    int capacity;           /* most tasks it takes; 0: no limit */
    double available_s;     /* when it may leave (s) */
    int model;              /* trv-sim's kinematics: 0 ackermann (default), 1 skid, 2 mecanum */
    long line;              /* its section's line */
} fleet_vehicle;

typedef struct fleet_task {
    char id[32];
    double x, y;            /* in the fleet's srs */
    double service_s;       /* time spent at the task (default 0) */
    double open_s, close_s; /* time window (default 0, INFINITY) */
    long line;
} fleet_task;

typedef struct fleet_vehicles {
    int n;
    fleet_vehicle *v;
    char *path;
} fleet_vehicles;

typedef struct fleet_tasks {
    int n;
    fleet_task *t;
    char *path;
} fleet_tasks;

/* The fleet file: INI, one [vehicle.ID] section per vehicle (ID 1..31
 * characters), keys vehicle (required), run (required), roadmap, start
 * (required: X,Y in the fleet's srs), capacity (0..10000), available_s
 * (0..1e7), model (ackermann|skid|mecanum: trv-sim's). Relative paths are resolved against the file's directory.
 * Errors name file:line: syntax, an unknown key, a bad value, a repeated
 * vehicle, no vehicle, more than FLEET_MAX_VEHICLES. */
enum { FLEET_MAX_VEHICLES = 64, FLEET_MAX_TASKS = 1000 };
trv_status fleet_vehicles_read(trv_ctx *ctx, const char *path, fleet_vehicles *out);
void fleet_vehicles_clear(fleet_vehicles *f);
/* The task file: CSV with columns id, x, y (required) and service_s,
 * open_s, close_s (optional; empty cells take the defaults). Errors name
 * file:line: a missing column, a bad number, an empty or repeated id, an
 * id of 32 characters or more, a window that closes before it opens, no
 * task, more than FLEET_MAX_TASKS. */
trv_status fleet_tasks_read(trv_ctx *ctx, const char *path, fleet_tasks *out);
void fleet_tasks_clear(fleet_tasks *t);

/* ---- each vehicle's matrix (matrix.c) ---------------------------------------- */

/* Why vehicle k cannot serve task j alone (fleet_matrix's why). */
enum { FLEET_OK = 0, FLEET_OUTSIDE, FLEET_NOGO, FLEET_NO_ROUTE };

typedef struct fleet_matrix {
    int nv, nt;
    double *travel;         /* fleet_problem's: per vehicle (nt + 1)^2, s */
    unsigned char *why;     /* nv x nt: FLEET_OK, or why task j is out of vehicle k's reach from its start */
    int unreachable;        /* (vehicle, task) pairs not FLEET_OK */
    int groups;             /* terrains and roadmaps read (vehicles sharing both share one) */
    double build_s;         /* wall clock */
    char note[1024];        /* why a roadmap cache was not used ("" else) */
} fleet_matrix;

/* Per vehicle, the least travel times (the time objective, direction-
 * aware where its terrain is) between its start and every task and
 * between tasks, over its own roadmap and terrain (prm_route_matrix):
 * vehicles with the same run directory and roadmap share one read and one
 * set of searches. Points are in srs. A task outside a vehicle's map, in
 * its NOGO or not joined to its roadmap is INFINITY for it (why says
 * which); a vehicle's start that is so is an error naming the fleet file's
 * line. */
trv_status fleet_matrix_build(trv_ctx *ctx, const fleet_vehicles *V, const fleet_tasks *T, const char *srs,
                              fleet_matrix *out);
void fleet_matrix_clear(fleet_matrix *m);
/* "outside the map", "in NOGO", "no route on the roadmap" ("" for FLEET_OK). */
const char *fleet_why_name(int why);

/* ---- the problem and its plans --------------------------------------------- */

typedef struct fleet_problem {
    int nv, nt;
    const double *travel;   /* nv blocks of (nt + 1)^2: travel[k (nt+1)^2 + i (nt+1) + j], s */
    const double *avail;    /* nv: a_k */
    const int *cap;         /* nv: cap_k, 0 no limit (NULL: none) */
    const double *service, *open, *close; /* nt each (NULL: 0, 0, INFINITY) */
} fleet_problem;

typedef struct fleet_plan {
    int nv, nt;
    int *len;               /* nv: tasks of each vehicle */
    int *seq;               /* nv x nt: vehicle k's tasks in order, seq[k nt + p] */
    double *time_s;         /* nv: each vehicle's time (its last end - a_k) */
    double total_s, makespan_s;
    int served;
    char method[64];
} fleet_plan;

trv_status fleet_plan_init(trv_ctx *ctx, fleet_plan *p, int nv, int nt);
void fleet_plan_clear(fleet_plan *p);
/* The time of vehicle k serving seq[0..n) in order (above): INFINITY when
 * infeasible (no route, a window missed, over capacity); *end (may be
 * NULL) its last end (a_k with no task). */
double fleet_route_time(const fleet_problem *P, int k, const int *seq, int n, double *end);
/* Vehicle k's time serving task j alone (absolute: its end instead). */
double fleet_single(const fleet_problem *P, int k, int j, int absolute);
/* time_s, total_s, makespan_s and served of p from its sequences. */
void fleet_plan_eval(const fleet_problem *P, fleet_plan *p);

/* ---- solvers (hungarian.c, bottleneck.c, vrp.c, milp.c) -------------------- */

/* Min-cost assignment of rows to columns on an n x m matrix (c[i m + j],
 * INFINITY: forbidden): as many pairs as possible, then the least sum.
 * col[i] receives row i's column or -1. Returns the number of pairs. */
int fleet_hungarian(int n, int m, const double *c, int *col);
trv_status fleet_assign_one(trv_ctx *ctx, const fleet_problem *P, fleet_plan *out);
/* Bottleneck: the largest matching of rows to columns over finite
 * entries, among those the least largest entry (*bottleneck), then the
 * least sum (fleet_hungarian over the entries <= it). */
int fleet_bottleneck(int n, int m, const double *c, int *col, double *bottleneck);
trv_status fleet_assign_makespan(trv_ctx *ctx, const fleet_problem *P, fleet_plan *out);
/* The starts of fleet_vrp: cheapest insertion, then seeded random orders. */
enum { FLEET_VRP_STARTS = 16 };
trv_status fleet_vrp(trv_ctx *ctx, const fleet_problem *P, fleet_plan *out);

typedef struct fleet_milp_result {
    int optimal;            /* 1: proved optimal; 0: the time limit came first (plan: the best found, if any) */
    int found;              /* 1: the plan holds a solution */
    double bound_s;         /* proved lower bound of the total (NAN if unknown) */
    double solve_s;         /* wall clock */
    int nvars, nrows;
} fleet_milp_result;

/* The exact optimum (lexicographic: served tasks, then total) within
 * time_limit_s (> 0). Instances up to FLEET_MILP_MAX_TASKS tasks. */
enum { FLEET_MILP_MAX_TASKS = 20 };
trv_status fleet_milp(trv_ctx *ctx, const fleet_problem *P, double time_limit_s, fleet_plan *out,
                      fleet_milp_result *res);

/* ---- outputs (routes.c, output.c) ------------------------------------------ */

typedef struct fleet_route {
    int planned;            /* 1: its files were written (a vehicle with no task has none) */
    double distance_m, time_h; /* the planned route's (prm_path_stats: driving only) */
    int legs;
} fleet_route;

/* Per vehicle with tasks, its route from its start through its tasks in
 * the plan's order (prm_mission_run with the tasks as waypoints, the last
 * as the goal, the time objective: each leg planned, refined and smoothed
 * as trv-route's) into set as dir/ID.geojson, dir/ID.gpx and dir/ID.csv
 * (trv-route's files; the CSV's route "time" is what trv-sim drives).
 * At most PRM_WAYPOINTS_MAX + 1 tasks per vehicle. */
trv_status fleet_routes_plan(trv_ctx *ctx, const fleet_vehicles *V, const fleet_tasks *T, const fleet_plan *p,
                             const char *srs, int no_timing, trv_outset *set, const char *dir, fleet_route *out);
/* The fleet table (CSV): vehicle, tasks (ids in order, space-separated),
 * ntasks, time_s (the plan's: travel, waiting, service), route_time_s
 * (the planned routes' driving time), distance_m; written to tmp (path:
 * its name in messages). */
trv_status fleet_table_write(trv_ctx *ctx, const fleet_vehicles *V, const fleet_tasks *T, const fleet_plan *p,
                             const fleet_route *r, const char *tmp, const char *path);
/* Each vehicle's matrix (CSV): vehicle, from ("start" or a task id), to
 * (a task id), time_s (empty: out of reach). */
trv_status fleet_matrix_write(trv_ctx *ctx, const fleet_vehicles *V, const fleet_tasks *T, const fleet_matrix *M,
                              const char *tmp, const char *path);
/* The trv-sim scenario (INI): [scenario] with time_limit_s, then one
 * [vehicle.ID] per vehicle with a route: file (the vehicle INI), model,
 * terrain (its run directory: each drives on its own type's map), route
 * (ID.csv beside it), route_name time, start_time_s (its availability).
 * A relative vehicle or run path is made relative to dir. */
trv_status fleet_scenario_write(trv_ctx *ctx, const fleet_vehicles *V, const fleet_plan *p, const char *dir,
                                const char *tmp, const char *path);

#endif
