/* trv-fleet: plan a fleet's tasks (docs/fleet.md). Thin: the fleet and
 * task files -> each vehicle's matrix over its roadmap -> the assignment
 * or routing (and GLPK's optimum on small instances) -> each vehicle's
 * route with the mission's legs -> the fleet's files, all in one set. */
#include "core/json.h"
#include "fleet/fleet.h"
#include "tool.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* routes: the MILP runs by default up to this many tasks */
enum { MILP_DEFAULT_TASKS = 10 };

typedef struct run {
    const char *fleet, *tasks, *out, *srs, *assign;
    int exact, no_exact, no_routes, no_timing;
    double milp_s;
    fleet_vehicles V;
    fleet_tasks T;
    fleet_matrix M;
    fleet_plan plan, heur, milp;
    fleet_milp_result mr;
    int has_milp;
    double assign_s, plan_s;
    fleet_route *routes;
} run;

/* The problem of the matrix and the files. */
static fleet_problem problem(const run *R, double *avail, int *cap, double *svc, double *open, double *close)
{
    for (int k = 0; k < R->V.n; k++)
        avail[k] = R->V.v[k].available_s, cap[k] = R->V.v[k].capacity;
    for (int j = 0; j < R->T.n; j++)
        svc[j] = R->T.t[j].service_s, open[j] = R->T.t[j].open_s, close[j] = R->T.t[j].close_s;
    return (fleet_problem){R->V.n, R->T.n, R->M.travel, avail, cap, svc, open, close};
}

static void plan_copy(fleet_plan *dst, const fleet_plan *src)
{
    memcpy(dst->len, src->len, (size_t)src->nv * sizeof *src->len);
    memcpy(dst->seq, src->seq, (size_t)src->nv * (src->nt ? src->nt : 1) * sizeof *src->seq);
    memcpy(dst->time_s, src->time_s, (size_t)src->nv * sizeof *src->time_s);
    dst->total_s = src->total_s, dst->makespan_s = src->makespan_s, dst->served = src->served;
    memcpy(dst->method, src->method, sizeof dst->method);
}

/* routes: the heuristic, and the MILP when asked or small; the plan kept
 * is the MILP's when it serves more or costs less. */
static trv_status route_all(trv_ctx *ctx, run *R, const fleet_problem *P)
{
    trv_status st = fleet_vrp(ctx, P, &R->heur);
    R->has_milp = !R->no_exact && (R->exact || P->nt <= MILP_DEFAULT_TASKS);
    if (!st && R->has_milp)
        st = fleet_milp(ctx, P, R->milp_s, &R->milp, &R->mr);
    if (!st)
        st = fleet_plan_init(ctx, &R->plan, P->nv, P->nt);
    if (st)
        return st;
    const fleet_plan *best = &R->heur;
    if (R->has_milp && R->mr.found &&
        (R->milp.served > R->heur.served ||
         (R->milp.served == R->heur.served && R->milp.total_s < R->heur.total_s - 1e-6)))
        best = &R->milp;
    plan_copy(&R->plan, best);
    return TRV_OK;
}

static trv_status plan(trv_ctx *ctx, run *R)
{
    int nv = R->V.n, nt = R->T.n;
    double *avail = malloc((size_t)nv * sizeof *avail), *svc = malloc((size_t)nt * sizeof *svc);
    double *open = malloc((size_t)nt * sizeof *open), *close = malloc((size_t)nt * sizeof *close);
    int *cap = malloc((size_t)nv * sizeof *cap);
    trv_status st = !avail || !svc || !open || !close || !cap ? trv_error(ctx, TRV_ERR_NOMEM, "out of memory") : 0;
    double t0 = trv_now_s();
    if (!st) {
        fleet_problem P = problem(R, avail, cap, svc, open, close);
        st = !strcmp(R->assign, "one")        ? fleet_assign_one(ctx, &P, &R->plan)
             : !strcmp(R->assign, "makespan") ? fleet_assign_makespan(ctx, &P, &R->plan)
                                              : route_all(ctx, R, &P);
    }
    R->assign_s = trv_now_s() - t0;
    free(avail), free(svc), free(open), free(close), free(cap);
    return st;
}

static void vehicles_json(trv_json *js, const run *R)
{
    trv_json_arr(js, "vehicles");
    for (int k = 0; k < R->V.n; k++) {
        trv_json_obj(js, NULL);
        trv_json_str(js, "id", R->V.v[k].id);
        trv_json_arr(js, "tasks");
        for (int q = 0; q < R->plan.len[k]; q++)
            trv_json_str(js, NULL, R->T.t[R->plan.seq[(size_t)k * R->plan.nt + q]].id);
        trv_json_end(js);
        trv_json_num(js, "time_s", "%.3f", R->plan.time_s[k]);
        trv_json_num(js, "end_s", "%.3f", R->plan.len[k] ? R->V.v[k].available_s + R->plan.time_s[k] : NAN);
        if (R->routes && R->routes[k].planned) {
            trv_json_num(js, "route_time_s", "%.3f", R->routes[k].time_h * 3600);
            trv_json_num(js, "distance_m", "%.3f", R->routes[k].distance_m);
        }
        trv_json_end(js);
    }
    trv_json_end(js);
}

/* The pairs out of reach and the tasks nobody serves. */
static void reach_json(trv_json *js, const run *R)
{
    trv_json_arr(js, "unreachable");
    for (int k = 0; k < R->V.n; k++)
        for (int j = 0; j < R->T.n; j++)
            if (R->M.why[(size_t)k * R->T.n + j]) {
                trv_json_obj(js, NULL);
                trv_json_str(js, "vehicle", R->V.v[k].id);
                trv_json_str(js, "task", R->T.t[j].id);
                trv_json_str(js, "why", fleet_why_name(R->M.why[(size_t)k * R->T.n + j]));
                trv_json_end(js);
            }
    trv_json_end(js);
    char *served = calloc((size_t)R->T.n, 1);
    for (int k = 0; served && k < R->V.n; k++)
        for (int q = 0; q < R->plan.len[k]; q++)
            served[R->plan.seq[(size_t)k * R->plan.nt + q]] = 1;
    trv_json_arr(js, "unserved");
    for (int j = 0; served && j < R->T.n; j++)
        if (!served[j])
            trv_json_str(js, NULL, R->T.t[j].id);
    trv_json_end(js);
    free(served);
}

/* The heuristic and the MILP side by side (routes). */
static void compare_json(trv_json *js, const run *R)
{
    trv_json_obj(js, "heuristic");
    trv_json_str(js, "method", R->heur.method);
    trv_json_int(js, "served", R->heur.served);
    trv_json_num(js, "total_s", "%.3f", R->heur.total_s);
    trv_json_num(js, "makespan_s", "%.3f", R->heur.makespan_s);
    trv_json_end(js);
    if (!R->has_milp)
        return;
    trv_json_obj(js, "milp");
    trv_json_str(js, "status", R->mr.optimal ? "optimal" : R->mr.found ? "time limit (best found)" : "time limit");
    trv_json_int(js, "variables", R->mr.nvars);
    trv_json_int(js, "rows", R->mr.nrows);
    if (R->mr.found) {
        trv_json_int(js, "served", R->milp.served);
        trv_json_num(js, "total_s", "%.3f", R->milp.total_s);
        trv_json_num(js, "makespan_s", "%.3f", R->milp.makespan_s);
    }
    if (!R->no_timing)
        trv_json_num(js, "solve_s", "%.3f", R->mr.solve_s);
    trv_json_end(js);
    /* the heuristic's gap to the proved optimum */
    if (R->mr.optimal && R->milp.served == R->heur.served)
        trv_json_num(js, "gap", "%.6f", R->milp.total_s > 0 ? R->heur.total_s / R->milp.total_s - 1 : 0);
}

/* fleet.json (docs/summaries.md). */
static void summary(trv_json *js, const run *R, const trv_meta *meta)
{
    trv_json_meta(js, meta);
    trv_json_obj(js, "inputs");
    trv_json_str(js, "fleet", R->fleet);
    trv_json_str(js, "tasks", R->tasks);
    trv_json_str(js, "srs", R->srs);
    trv_json_end(js);
    trv_json_str(js, "assign", R->assign);
    trv_json_str(js, "method", R->plan.method);
    trv_json_int(js, "vehicles_n", R->V.n);
    trv_json_int(js, "tasks_n", R->T.n);
    trv_json_int(js, "served", R->plan.served);
    trv_json_num(js, "total_s", "%.3f", R->plan.total_s);
    trv_json_num(js, "makespan_s", "%.3f", R->plan.makespan_s);
    if (!strcmp(R->assign, "routes"))
        compare_json(js, R);
    trv_json_obj(js, "matrix");
    trv_json_str(js, "objective", "time");
    trv_json_int(js, "roadmaps", R->M.groups);
    trv_json_int(js, "unreachable_pairs", R->M.unreachable);
    if (!R->no_timing)
        trv_json_num(js, "build_s", "%.3f", R->M.build_s);
    trv_json_end(js);
    if (!R->no_timing) {
        trv_json_num(js, "assign_s", "%.3f", R->assign_s);
        trv_json_num(js, "plan_s", "%.3f", R->plan_s);
    }
    reach_json(js, R);
    vehicles_json(js, R);
}

/* The routes, the table and the scenario into the set. */
static trv_status files(trv_ctx *ctx, run *R, trv_outset *set)
{
    static const char *const names[3] = {"fleet.csv", "matrix.csv", "fleet.ini"};
    trv_status st = trv_outset_mkdir(ctx, set, R->out);
    if (!st && !R->no_routes) {
        R->routes = calloc((size_t)R->V.n, sizeof *R->routes);
        st = R->routes ? fleet_routes_plan(ctx, &R->V, &R->T, &R->plan, R->srs, R->no_timing, set, R->out, R->routes)
                       : trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
    }
    for (int q = 0; q < 3 && !st; q++) {
        if (q == 2 && R->no_routes)
            break;
        char *path = trv_path_join(R->out, names[q]);
        const char *tmp = path ? trv_outset_add(set, path) : NULL;
        st = !tmp ? trv_error(ctx, TRV_ERR_NOMEM, "out of memory")
             : q == 0 ? fleet_table_write(ctx, &R->V, &R->T, &R->plan, R->routes, tmp, path)
             : q == 1 ? fleet_matrix_write(ctx, &R->V, &R->T, &R->M, tmp, path)
                      : fleet_scenario_write(ctx, &R->V, &R->plan, R->out, tmp, path);
        free(path);
    }
    return st;
}

static trv_status run_all(trv_ctx *ctx, run *R, const trv_meta *meta)
{
    tool_out out;
    trv_status st = tool_out_open(ctx, &out, trv_path_join(R->out, "fleet.json"));
    double t0 = trv_now_s();
    if (!st && !(st = fleet_vehicles_read(ctx, R->fleet, &R->V)) && !(st = fleet_tasks_read(ctx, R->tasks, &R->T)) &&
        !(st = fleet_matrix_build(ctx, &R->V, &R->T, R->srs, &R->M)) && !(st = plan(ctx, R))) {
        R->plan_s = trv_now_s() - t0;
        st = files(ctx, R, out.set);
    }
    if (!st)
        summary(out.js, R, meta);
    return tool_out_close(ctx, &out, st);
}

static void print_plan(const run *R)
{
    printf("%-12s %6s %10s %10s  %s\n", "vehicle", "tasks", "time s", "route km", "order");
    for (int k = 0; k < R->V.n; k++) {
        printf("%-12s %6d %10.1f ", R->V.v[k].id, R->plan.len[k], R->plan.time_s[k]);
        if (R->routes && R->routes[k].planned)
            printf("%10.2f  ", R->routes[k].distance_m / 1000);
        else
            printf("%10s  ", "-");
        for (int q = 0; q < R->plan.len[k]; q++)
            printf("%s%s", q ? " " : "", R->T.t[R->plan.seq[(size_t)k * R->plan.nt + q]].id);
        printf("\n");
    }
    printf("%s: %d of %d tasks, total %.1f s, makespan %.1f s\n", R->plan.method, R->plan.served, R->T.n,
           R->plan.total_s, R->plan.makespan_s);
    if (R->has_milp && R->mr.optimal && R->milp.served == R->heur.served)
        printf("heuristic %.1f s vs MILP optimum %.1f s: gap %.2f %%\n", R->heur.total_s, R->milp.total_s,
               R->milp.total_s > 0 ? 100 * (R->heur.total_s / R->milp.total_s - 1) : 0);
    else if (R->has_milp)
        printf("MILP: %s\n", R->mr.found ? "the time limit came first (best found)" : "the time limit came first");
    if (R->M.unreachable)
        printf("%d (vehicle, task) pairs out of reach: fleet.json names them\n", R->M.unreachable);
}

int main(int argc, char **argv)
{
    run R = {.srs = "EPSG:4326", .assign = "routes", .milp_s = 60};
    const trv_opt opts[] = {
        {"fleet", 0, TRV_ARG_STRING, &R.fleet, "FLEET.ini", "the vehicles: [vehicle.ID] vehicle, run, start, optional roadmap, capacity, available_s, model"},
        {"tasks", 0, TRV_ARG_STRING, &R.tasks, "TASKS.csv", "the tasks: id, x, y, optional service_s, open_s, close_s"},
        {"out", 0, TRV_ARG_STRING, &R.out, "DIR", "the fleet's files: fleet.json, fleet.csv, matrix.csv, fleet.ini, ID.geojson/.gpx/.csv per vehicle"},
        {"srs", 0, TRV_ARG_STRING, &R.srs, "CRS", "CRS of the starts and tasks (default EPSG:4326)"},
        {"assign", 0, TRV_ARG_CHOICE, &R.assign, "one|makespan|routes", "one task per vehicle (min total, Hungarian), one per vehicle (min latest end), or several (routing; default)"},
        {"exact", 0, TRV_ARG_FLAG, &R.exact, NULL, "routes: also GLPK's MILP optimum whatever the size (up to 20 tasks; default: up to 10)"},
        {"no-exact", 0, TRV_ARG_FLAG, &R.no_exact, NULL, "routes: the heuristic alone"},
        {"milp-time", 0, TRV_ARG_DOUBLE, &R.milp_s, "S", "the MILP's time limit (default 60 s)"},
        {"no-routes", 0, TRV_ARG_FLAG, &R.no_routes, NULL, "the plan alone (fleet.json, fleet.csv, matrix.csv): no route files, no scenario"},
        {"no-timing", 0, TRV_ARG_FLAG, &R.no_timing, NULL, "leave wall-clock times out of the files, so that reruns give the same bytes"},
        {NULL, 0, 0, NULL, NULL, NULL},
    };
    static const char *const required[] = {"fleet", "tasks", "out", NULL};
    const trv_cli cli = {
        .tool = "trv-fleet",
        .usage = "--fleet FLEET.ini --tasks TASKS.csv --out DIR [options]",
        .summary = "Plan a fleet's tasks: each vehicle's travel times over its own roadmap, then one task per\n"
                   "vehicle (Hungarian, or least makespan) or several (insertion + local search, checked against\n"
                   "GLPK's MILP optimum on small instances), and each vehicle's route through its tasks.",
        .opts = opts,
        .libraries = tool_libraries,
        .required = required,
    };
    trv_cli_result res;
    trv_ctx *ctx = tool_start(&cli, argc, argv, &res);
    if (R.exact && R.no_exact)
        tool_usage(&cli, ctx, "--exact and --no-exact exclude each other");
    if (!(R.milp_s > 0 && R.milp_s <= 86400))
        tool_usage(&cli, ctx, "--milp-time must be in (0, 86400] s");
    if ((R.exact || R.no_exact) && strcmp(R.assign, "routes"))
        tool_usage(&cli, ctx, "--exact and --no-exact go with --assign routes");
    const char *const ins[2] = {R.fleet, R.tasks};
    const char *const outs[1] = {R.out};
    tool_outputs_check(&cli, ctx, outs, 1, ins, 2);
    trv_meta meta;
    trv_meta_init(&meta, cli.tool, argc, argv);
    trv_status st = run_all(ctx, &R, &meta);
    if (!st && R.M.note[0])
        fprintf(stderr, "%s: note: %s\n", cli.tool, R.M.note);
    if (!st && !res.quiet)
        print_plan(&R);
    free(R.routes);
    fleet_plan_clear(&R.plan), fleet_plan_clear(&R.heur), fleet_plan_clear(&R.milp);
    fleet_matrix_clear(&R.M);
    fleet_vehicles_clear(&R.V);
    fleet_tasks_clear(&R.T);
    return tool_end(&cli, ctx, st);
}
