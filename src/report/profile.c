/* The recommended route explained (report_priv.h): its profile picture
 * (png/profile.png, trv-route --profile-png) and where its time goes (the
 * time_shares of route.json, docs/summaries.md). Absent from a run whose
 * trv-route wrote neither. */
#include "report/report_priv.h"

#include <string.h>

/* The picture trv-route --profile-png draws in the demo (the Makefile). */
#define PROFILE_PNG "profile.png"

/* One kind of shares ("landuse", "limit") as a table, largest first as route.json holds them. */
static void shares_table(doc *d, struct json_object *ts, const char *kind, const char *head)
{
    struct json_object *o = jget(ts, kind);
    if (!o || !json_object_is_type(o, json_type_object))
        return;
    block *t = rpt_table(d, "lr", head, "share of the time");
    json_object_object_foreach(o, key, val)
        rpt_row(d, t, rpt_fmt("%s", key), rpt_fmt("%.1f %%", 100 * json_object_get_double(val)));
}

trv_status rpt_sec_profile(trv_ctx *ctx, doc *d, run *r, const rstats *rs)
{
    int is_mmcr;
    const char *name = rs_name(rs, rpt_pick_route(rs, &is_mmcr));
    struct json_object *o = NULL, *ts = NULL;
    trv_status st = rpt_summary(ctx, r, RUN_O_ROUTE_JSON, &o);
    struct json_object *routes = st ? NULL : jget(o, "routes");
    size_t n = routes && json_object_is_type(routes, json_type_array) ? json_object_array_length(routes) : 0;
    for (size_t k = 0; k < n && !ts; k++) {
        struct json_object *R = json_object_array_get_idx(routes, k);
        if (!strcmp(jstr(R, "route"), name))
            ts = jget(R, "time_shares");
    }
    char rel[64];
    trv_sfmt(rel, sizeof rel, "%s/%s", OTHER(RUN_O_PNG), PROFILE_PNG);
    if (!st && (ts || trv_file_exists(P(r, rel)))) {
        rpt_h(d, 2, "The recommended route explained");
        rpt_p(d, "Elevation and speed along the route `%s`, the speed limit that binds as the band under the "
                 "distance axis; then the share of its time spent in each land use and under each limit "
                 "(`%s`).",
              name, OTHER(RUN_O_ROUTE_JSON));
        int shown;
        st = rpt_image(ctx, d, r, rel, "The recommended route's profile", "profile", &shown);
        shares_table(d, ts, "landuse", "land use");
        shares_table(d, ts, "limit", "binding limit");
    }
    json_object_put(o);
    return st;
}
