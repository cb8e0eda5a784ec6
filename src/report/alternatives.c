/* The report's alternative routes (report_priv.h): the mission's
 * alternatives that `make demo` plans with trv-route --alternatives into
 * alternatives/ (their route.json: rank, time, distance, objective and
 * share with the best of each), as a table, and their map
 * (png/route_alternatives.png). */
#define _POSIX_C_SOURCE 200809L
#include "report/report_priv.h"

#include <stdlib.h>
#include <string.h>

/* The table of alternatives/route.json's routes and what was asked. */
static void alt_table(doc *d, struct json_object *o, const char *rel)
{
    struct json_object *routes = jget(o, "routes"), *alt = jget(o, "alternatives");
    rpt_h(d, 3, "Alternative routes");
    rpt_p(d, "From `%s`: %lld of the %lld routes asked for by the via-node method (docs/method.md §4.11): each "
             "within %g × the best's objective, at most %.0f %% of its length on the roadmap edges of any other, "
             "every piece of it up to %.0f %% of the best's objective a shortest path (the T-test: no needless "
             "detour).",
          rel, jint(alt, "found"), jint(alt, "asked"), jnum(alt, "max_stretch"), 100 * jnum(alt, "max_overlap"),
          100 * jnum(alt, "alpha"));
    block *t = rpt_table(d, "rlrrrrr", "rank", "route", "time (h)", "time (min)", "distance (km)", "objective",
                         "shared with the best");
    for (size_t k = 0; k < json_object_array_length(routes); k++) {
        struct json_object *x = json_object_array_get_idx(routes, k);
        rpt_row(d, t, rpt_fmt("%lld", jint(x, "rank")), rpt_fmt("%s", jstr(x, "route")),
                rpt_fmt("%.3f", jnum(x, "time_h")), rpt_fmt("%.1f", 60 * jnum(x, "time_h")),
                rpt_fmt("%.2f", jnum(x, "distance_m") / 1000), rpt_fmt("%.6g", jnum(x, "objective")),
                rpt_fmt("%.0f %%", 100 * jnum(x, "overlap_best")));
    }
    if (*jstr(alt, "note"))
        rpt_p(d, "Fewer than asked: %s.", jstr(alt, "note"));
}

trv_status rpt_alternatives(trv_ctx *ctx, doc *d, run *r)
{
    char rel[128];
    trv_sfmt(rel, sizeof rel, "%s/%s", RPT_ALT_DIR, OTHER(RUN_O_ROUTE_JSON));
    if (!trv_file_exists(P(r, rel)))
        return TRV_OK;
    struct json_object *o = NULL;
    trv_status st = rpt_json_object_read(ctx, r->path, &o);
    if (!st && json_object_is_type(jget(o, "routes"), json_type_array) && jget(o, "alternatives")) {
        int shown;
        alt_table(d, o, rel);
        st = rpt_image(ctx, d, r, "png/route_alternatives.png", "The alternative routes over the mobility cost",
                       NULL, &shown);
    }
    json_object_put(o);
    return st;
}
