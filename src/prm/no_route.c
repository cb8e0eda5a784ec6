/* Why a mission has no route: its ends in gonogo.tif (no_route.h). */
#include "no_route.h"

#include "run/run.h"
#include "terramech/terramech.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

trv_status prm_no_route_find(trv_ctx *ctx, const prm_mission_opts *o, prm_no_route *out, int *found)
{
    *found = 0;
    if (o->wp.n > 0)
        return TRV_OK;
    char *path = run_path(o->terrain, RUN_GONOGO);
    geo_raster *r = NULL;
    double xy[4];
    trv_status st = path ? geo_raster_read(ctx, path, GEO_U8, &r) : trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
    if (!st)
        st = prm_mission_ends(ctx, o, &r->grid, xy);
    for (int e = 0; !st && e < 2 && !*found; e++) {
        const geo_grid *g = &r->grid;
        double c = floor((xy[2 * e] - g->gt[0]) / g->gt[1]), w = floor((xy[2 * e + 1] - g->gt[3]) / g->gt[5]);
        int off = !(c >= 0 && w >= 0 && c < g->nx && w < g->ny);
        int code = off ? TM_GO : r->u8[(size_t)w * g->nx + (size_t)c];
        if (!off && code == TM_GO)
            continue;
        const char *name = off ? "outside the map" : tm_reason_name(code);
        *out = (prm_no_route){e ? "goal" : "start", xy[2 * e], xy[2 * e + 1], code, ""};
        snprintf(out->why, sizeof out->why, "%s", name ? name : "NOGO");
        *found = 1;
    }
    geo_raster_free(r);
    free(path);
    return st;
}

void prm_no_route_json(trv_json *js, const prm_no_route *nr, const char *message)
{
    trv_json_str(js, "status", "no route");
    trv_json_obj(js, "no_route");
    trv_json_str(js, "end", nr->end);
    trv_json_num(js, "x", "%.10g", nr->x);
    trv_json_num(js, "y", "%.10g", nr->y);
    trv_json_int(js, "reason", nr->reason);
    trv_json_str(js, "why", nr->why);
    trv_json_str(js, "message", message);
    trv_json_end(js);
}
