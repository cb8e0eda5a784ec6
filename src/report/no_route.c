/* A mission without a route (trv-route --allow-no-route): route.json's
 * "status": "no route" read, and the report's answer says why instead of
 * a route (report_priv.h). */
#include "report/report_priv.h"

#include <string.h>

trv_status rpt_no_route_read(trv_ctx *ctx, run *r, struct json_object **nr)
{
    *nr = NULL;
    struct json_object *o = NULL;
    trv_status st = rpt_summary(ctx, r, RUN_O_ROUTE_JSON, &o);
    const char *s = o ? jstr(o, "status") : NULL;
    if (!st && s && !strcmp(s, "no route") && jget(o, "no_route"))
        *nr = json_object_get(jget(o, "no_route"));
    json_object_put(o);
    return st;
}

trv_status rpt_sec_no_route(trv_ctx *ctx, doc *d, run *r, struct json_object *nr)
{
    (void)ctx, (void)r;
    rpt_h(d, 2, "No route");
    rpt_div(d, "answer");
    rpt_p(d, "No route: the %s (%.1f, %.1f in the terrain's CRS) lies %s%s in `%s`, so trv-route planned "
             "nothing (`%s`: status `no route`).",
          jstr(nr, "end"), jnum(nr, "x"), jnum(nr, "y"), jint(nr, "reason") ? "on a cell " : "",
          jstr(nr, "why"), LAYER(RUN_GONOGO), OTHER(RUN_O_ROUTE_JSON));
    rpt_p(d, "The planner said: %s.", jstr(nr, "message"));
    rpt_div_end(d);
    return TRV_OK;
}
