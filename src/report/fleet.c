/* The report's fleet mission (report_priv.h, rpt_sec_fleet): trv-fleet's
 * plan (fleet/plan/fleet.json, `make demo`) and, when trv-sim drove it,
 * its simulation (fleet/sim/metrics.json): one row per vehicle with its
 * tasks in order, the plan's time (travel, waiting, service), the routed
 * and the simulated driving times and distances, how the drive ended;
 * the total, the makespan and the gap to GLPK's optimum; the plan's map. */
#define _POSIX_C_SOURCE 200809L
#include "report/report_priv.h"

#include <math.h>
#include <string.h>

/* The simulated vehicle id in metrics.json's vehicles; NULL: none. */
static struct json_object *sim_vehicle(struct json_object *m, const char *id)
{
    struct json_object *v = jget(m, "vehicles");
    for (size_t k = 0; json_object_is_type(v, json_type_array) && k < json_object_array_length(v); k++)
        if (!strcmp(jstr(json_object_array_get_idx(v, k), "id"), id))
            return json_object_array_get_idx(v, k);
    return NULL;
}

/* The tasks of a vehicle, "a, b, c" (malloc'ed). */
static char *task_list(struct json_object *tasks)
{
    char buf[1024];
    size_t k = 0;
    buf[0] = '\0';
    for (size_t i = 0; json_object_is_type(tasks, json_type_array) && i < json_object_array_length(tasks); i++)
        k += trv_sfmt(buf + k, sizeof buf - k, "%s%s", i ? ", " : "",
                      json_object_get_string(json_object_array_get_idx(tasks, i)));
    return strdup(buf);
}

static int isnum(struct json_object *o, const char *key)
{
    struct json_object *x = o ? jget(o, key) : NULL;
    return json_object_is_type(x, json_type_double) || json_object_is_type(x, json_type_int);
}

/* o's number key x scale in fmt; "-" when o has none (null: infinite). */
static char *num_or_dash(const char *fmt, struct json_object *o, const char *key, double scale)
{
    return isnum(o, key) ? rpt_fmt(fmt, jnum(o, key) * scale) : strdup("-");
}

static void vehicle_rows(doc *d, block *t, struct json_object *plan, struct json_object *sim)
{
    struct json_object *vs = jget(plan, "vehicles");
    for (size_t k = 0; json_object_is_type(vs, json_type_array) && k < json_object_array_length(vs); k++) {
        struct json_object *v = json_object_array_get_idx(vs, k), *s = sim_vehicle(sim, jstr(v, "id"));
        rpt_row(d, t, rpt_fmt("%s", jstr(v, "id")), task_list(jget(v, "tasks")), rpt_fmt("%.0f", jnum(v, "time_s")),
                rpt_fmt("%.0f", jnum(v, "route_time_s")), num_or_dash("%.0f", s, "time_s", 1),
                rpt_fmt("%.2f", jnum(v, "distance_m") / 1000), num_or_dash("%.2f", s, "distance_m", 1e-3),
                s ? rpt_fmt("%s", jstr(s, "end")) : strdup("-"),
                s ? rpt_fmt("%lld", jint(s, "collisions")) : strdup("-"));
    }
}

trv_status rpt_sec_fleet(trv_ctx *ctx, doc *d, run *r)
{
    if (!trv_file_exists(P(r, FLEET_JSON)))
        return TRV_OK;
    struct json_object *plan = NULL, *sim = NULL;
    trv_status st = rpt_json_object_read(ctx, r->path, &plan);
    if (!st && trv_file_exists(P(r, FLEET_SIM_JSON)))
        st = rpt_json_object_read(ctx, r->path, &sim);
    if (st) {
        json_object_put(plan);
        return st;
    }
    rpt_h(d, 2, "A fleet mission");
    rpt_p(d, "From `%s` (trv-fleet, docs/fleet.md): %lld vehicles, each on its own type's map, %lld of %lld tasks "
             "served by `%s` (%s). The plan's time holds the travel over the time matrix, the waiting and the "
             "service; the routed time is its refined route's drive; the simulated one trv-sim's (`%s`, each "
             "vehicle on its own terrain, no service stops).",
          FLEET_JSON, jint(plan, "vehicles_n"), jint(plan, "served"), jint(plan, "tasks_n"), jstr(plan, "assign"),
          jstr(plan, "method"), sim ? FLEET_SIM_JSON : "not simulated");
    block *t = rpt_table(d, "llrrrrrlr", "vehicle", "tasks in order", "plan (s)", "routed (s)", "simulated (s)",
                         "routed (km)", "simulated (km)", "end", "collisions");
    vehicle_rows(d, t, plan, sim);
    struct json_object *h = jget(plan, "heuristic"), *m = jget(plan, "milp");
    const char *ms = jstr(m, "status");
    char gap[96] = "";
    if (isnum(plan, "gap"))
        trv_sfmt(gap, sizeof gap, ", total %.0f s: the heuristic's gap %.2f %%", jnum(m, "total_s"),
                 100 * jnum(plan, "gap"));
    rpt_p(d, "Total %.0f s, makespan %.0f s. The heuristic's total %.0f s; GLPK's MILP: %s%s.", jnum(plan, "total_s"),
          jnum(plan, "makespan_s"), jnum(h, "total_s"), *ms ? ms : "not solved", gap);
    json_object_put(plan);
    json_object_put(sim);
    int added;
    return rpt_image(ctx, d, r, FLEET_PNG, "The fleet plan: each vehicle's route in its colour", NULL, &added);
}
