/*
 * no_route.h — why a mission has no route when one of its ends cannot be
 * driven on (trv-route --allow-no-route; route.json's "no_route",
 * docs/summaries.md): the end's cell in the terrain's gonogo.tif, read
 * from the run directory, not from any message.
 */
#ifndef PRM_NO_ROUTE_H
#define PRM_NO_ROUTE_H

#include "core/json.h"
#include "prm.h"

typedef struct prm_no_route {
    const char *end;        /* "start" or "goal" */
    double x, y;            /* the end in the terrain's CRS */
    int reason;             /* gonogo.tif's code there (tm_reason; TM_GO for a cell off the map) */
    char why[64];           /* its category name ("NOGO: traction", tm_reason_name), or "outside the map" */
} prm_no_route;

/* The first of start and goal (o->from, o->to in o->srs; without
 * waypoints) that lies off the terrain's grid or on a cell gonogo.tif
 * does not call GO: *found 1 and out filled; 0 when both are GO (or the
 * mission has waypoints). Errors: the terrain's gonogo.tif unreadable,
 * the CRS. */
trv_status prm_no_route_find(trv_ctx *ctx, const prm_mission_opts *o, prm_no_route *out, int *found);
/* route.json's "status": "no route" and "no_route" object: end, x, y
 * (the terrain's CRS), reason (the gonogo.tif code), why, and message (the
 * planner's error, for people). */
void prm_no_route_json(trv_json *js, const prm_no_route *nr, const char *message);

#endif
