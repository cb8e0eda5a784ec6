/* The mission with a river and one bridge (make demo's river/ run,
 * trv-route --zones --crossings; docs/zones.md): its routes against the
 * same strategies without the river, and its map. */
#include "report_priv.h"

#include <math.h>
#include <string.h>

trv_status rpt_sec_river(trv_ctx *ctx, doc *d, run *r, const rstats *rs)
{
    if (!trv_file_exists(P(r, RIVER_JSON)))
        return TRV_OK;
    struct json_object *o = NULL;
    trv_status st = rpt_json_object_read(ctx, r->path, &o);
    if (st)
        return st;
    struct json_object *in = jget(o, "inputs"), *routes = jget(o, "routes");
    rpt_h(d, 2, "A river and one bridge");
    rpt_p(d, "The mission planned once more with the zones of `%s` and the crossings of `%s` (`%s`): no route "
             "crosses the river except within a crossing's radius (docs/zones.md).",
          jstr(in, "zones"), *jstr(in, "crossings") ? jstr(in, "crossings") : "none", RIVER_JSON);
    block *t = rpt_table(d, "lrrrr", "route", "distance (km)", "time (h)", "without the river: distance (km)",
                         "time (h)");
    for (size_t k = 0; json_object_is_type(routes, json_type_array) && k < json_object_array_length(routes); k++) {
        struct json_object *x = json_object_array_get_idx(routes, k);
        long i = rpt_rs_find(rs, jstr(x, "route"));
        rpt_row(d, t, rpt_fmt("%s", jstr(x, "route")), rpt_fmt("%.2f", jnum(x, "distance_m") / 1000),
                rpt_fmt("%.3f", jnum(x, "time_h")),
                i >= 0 ? rpt_fmt("%.2f", rs_val(rs, (size_t)i, RS_DIST) / 1000) : strdup("-"),
                i >= 0 ? rpt_fmt("%.3f", rs_val(rs, (size_t)i, RS_TIME)) : strdup("-"));
    }
    json_object_put(o);
    int added;
    return rpt_image(ctx, d, r, RIVER_PNG, "The routes with the river and the bridge", NULL, &added);
}
