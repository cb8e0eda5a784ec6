/* The report's multi-stop mission (report_priv.h, rpt_visit_legs): the
 * legs of visit/route.json (trv-route --visit, `make demo`), when the run
 * has one. */
#define _POSIX_C_SOURCE 200809L
#include "report/report_priv.h"

#include <string.h>

trv_status rpt_visit_legs(trv_ctx *ctx, doc *d, run *r)
{
    char rel[64];
    trv_sfmt(rel, sizeof rel, "visit/%s", OTHER(RUN_O_ROUTE_JSON));
    if (!trv_file_exists(P(r, rel)))
        return TRV_OK;
    struct json_object *o = NULL;
    trv_status st = rpt_json_object_read(ctx, r->path, &o);
    struct json_object *L = jget(o, "legs"), *legs = jget(L, "legs"), *stops = jget(L, "stops");
    if (st || !json_object_is_type(legs, json_type_array) || !json_object_is_type(stops, json_type_array)) {
        json_object_put(o);
        return st;
    }
    size_t n = json_object_array_length(stops);
    rpt_h(d, 3, "A multi-stop mission");
    struct json_object *whole = json_object_array_get_idx(jget(o, "routes"), 0);
    rpt_p(d, "From `%s`: %zu stops in the order of the least total %s (%s order%s), one route through them; its "
             "legs:", rel, n, jstr(whole, "route"), jstr(L, "order"), jbool(L, "closed") ? ", back to the start" : "");
    block *t = rpt_table(d, "rllrrr", "leg", "from", "to", "distance (km)", "time (h)", "NOGO samples");
    double dist = 0, time = 0;
    for (size_t k = 0; k < json_object_array_length(legs); k++) {
        struct json_object *g = json_object_array_get_idx(legs, k);
        dist += jnum(g, "distance_m"), time += jnum(g, "time_h");
        rpt_row(d, t, rpt_fmt("%lld", jint(g, "leg")), rpt_fmt("%s", jstr(g, "from")), rpt_fmt("%s", jstr(g, "to")),
                rpt_fmt("%.2f", jnum(g, "distance_m") / 1000), rpt_fmt("%.3f", jnum(g, "time_h")),
                rpt_fmt("%lld", jint(g, "nogo_samples")));
    }
    rpt_row(d, t, strdup("all"), strdup(""), strdup(""), rpt_fmt("%.2f", dist / 1000), rpt_fmt("%.3f", time),
            strdup(""));
    json_object_put(o);
    return TRV_OK;
}
