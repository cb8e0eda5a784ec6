/* Each vehicle's route through its tasks (fleet.h fleet_routes_plan):
 * a mission through waypoints of trv-route (prm_mission_run: its tasks
 * but the last as --via, the last as the goal, the time objective), so
 * that the legs are planned, refined and smoothed as trv-route's, and
 * its files into the fleet's output set. */
#include "fleet.h"

#include "prm/prm.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* dir/<id><ext> (malloc'ed). */
static char *vehicle_file(const char *dir, const char *id, const char *ext)
{
    char name[64];
    snprintf(name, sizeof name, "%s%s", id, ext);
    return trv_path_join(dir, name);
}

/* Vehicle k's mission: start, tasks as waypoints, the last the goal. */
static void mission_of(const fleet_vehicle *v, const fleet_tasks *T, const int *seq, int n, const char *srs,
                       prm_mission_opts *o)
{
    prm_mission_opts_init(o);
    o->roadmap = v->roadmap, o->terrain = v->run, o->srs = srs;
    o->strategy = PRM_TIME;
    o->from[0] = v->x, o->from[1] = v->y;
    for (int p = 0; p < n; p++) { /* the tasks' ids name the stops: "s6", not "via 1" */
        if (p + 1 < n)
            o->wp.xy[2 * p] = T->t[seq[p]].x, o->wp.xy[2 * p + 1] = T->t[seq[p]].y;
        snprintf(o->wp.label[p], sizeof o->wp.label[p], "%s", T->t[seq[p]].id);
    }
    o->wp.n = n - 1;
    o->to[0] = T->t[seq[n - 1]].x, o->to[1] = T->t[seq[n - 1]].y;
}

static trv_status plan_vehicle(trv_ctx *ctx, const fleet_vehicle *v, const fleet_tasks *T, const int *seq, int n,
                               const char *srs, int no_timing, trv_outset *set, const char *dir, fleet_route *out)
{
    prm_mission_opts o;
    mission_of(v, T, seq, n, srs, &o);
    char *gj = vehicle_file(dir, v->id, ".geojson"), *gpx = vehicle_file(dir, v->id, ".gpx");
    char *csv = vehicle_file(dir, v->id, ".csv");
    o.out = (prm_outputs){gj, gpx, csv, NULL, no_timing};
    prm_mission m;
    trv_status st = !gj || !gpx || !csv ? trv_error(ctx, TRV_ERR_NOMEM, "out of memory")
                                        : prm_mission_run(ctx, &o, set, &m);
    if (!st) {
        out->planned = 1;
        out->distance_m = m.routes[0].stats.distance_m;
        out->time_h = m.routes[0].stats.time_h;
        out->legs = m.legs ? m.legs->nlegs : 1;
        prm_mission_clear(&m);
    } else { /* name the vehicle */
        char msg[768];
        snprintf(msg, sizeof msg, "%s", trv_errmsg(ctx));
        st = trv_error(ctx, st, "vehicle '%s': its route: %s", v->id, msg);
    }
    free(gj), free(gpx), free(csv);
    return st;
}

trv_status fleet_routes_plan(trv_ctx *ctx, const fleet_vehicles *V, const fleet_tasks *T, const fleet_plan *p,
                             const char *srs, int no_timing, trv_outset *set, const char *dir, fleet_route *out)
{
    trv_status st = TRV_OK;
    memset(out, 0, (size_t)V->n * sizeof *out);
    for (int k = 0; k < V->n && !st; k++) {
        if (p->len[k] > PRM_WAYPOINTS_MAX + 1)
            return trv_error(ctx, TRV_ERR_USAGE, "vehicle '%s' has %d tasks: its route takes at most %d",
                             V->v[k].id, p->len[k], PRM_WAYPOINTS_MAX + 1);
        if (p->len[k] > 0)
            st = plan_vehicle(ctx, &V->v[k], T, p->seq + (size_t)k * p->nt, p->len[k], srs, no_timing, set, dir,
                              &out[k]);
    }
    return st;
}
