/* Terrain uncertainty (make demo's uncertainty/ run; issue 17, docs/method.md
 * §2.12, §4.12): how many realisations, how much of the map they make
 * uncertain, the P(NOGO) map with the routes, and each strategy's
 * P(passable) and time range without and with --risk. */
#include "report_priv.h"

#include <math.h>
#include <string.h>

/* A time quantile for the table ("-" when no realisation is passable). */
static char *hours(struct json_object *x, const char *key)
{
    double v = jnum(x, key);
    return isnan(v) ? strdup("-") : rpt_fmt("%.3f", v);
}

/* The rows of one route.json (label: "-" or the --risk alpha). */
static trv_status rows(trv_ctx *ctx, doc *d, run *r, block *t, const char *rel)
{
    if (!trv_file_exists(P(r, rel)))
        return TRV_OK;
    struct json_object *o = NULL;
    trv_status st = rpt_json_object_read(ctx, r->path, &o);
    if (st)
        return st;
    struct json_object *routes = jget(o, "routes");
    double a = jnum(o, "risk_alpha");
    for (size_t k = 0; json_object_is_type(routes, json_type_array) && k < json_object_array_length(routes); k++) {
        struct json_object *x = json_object_array_get_idx(routes, k);
        rpt_row(d, t, rpt_fmt("%s", jstr(x, "route")), isnan(a) ? strdup("-") : rpt_fmt("%g", a),
                rpt_fmt("%.2f", jnum(x, "distance_m") / 1000), rpt_fmt("%.0f %%", 100 * jnum(x, "p_passable")),
                hours(x, "time_p10_h"), hours(x, "time_p50_h"), hours(x, "time_p90_h"));
    }
    json_object_put(o);
    return TRV_OK;
}

trv_status rpt_sec_uncertainty(trv_ctx *ctx, doc *d, run *r)
{
    if (!trv_file_exists(P(r, UNC_DIR "/speed.json")))
        return TRV_OK;
    struct json_object *o = NULL;
    trv_status st = rpt_json_object_read(ctx, r->path, &o);
    if (st)
        return st;
    struct json_object *re = jget(o, "realizations");
    double data = jnum(re, "cells_with_data");
    rpt_h(d, 2, "Terrain uncertainty");
    rpt_p(d, "The kriged elevation is uncertain; %lld conditional realisations of it (`%s/dem_sim.tif`, trv-krige "
             "--nsim) went through the slope, speed and GO/NOGO model (`%s/p_nogo.tif`, `speed_p10.tif` ... "
             "`speed_p90.tif`; docs/method.md §2.12). %.1f %% of the cells with data are GO in every realisation, "
             "%.1f %% NOGO in every one, and %.1f %% change with the realisation.",
          jint(re, "count"), UNC_DIR, UNC_DIR, data > 0 ? 100 * jnum(re, "always_go") / data : 0,
          data > 0 ? 100 * jnum(re, "always_nogo") / data : 0, data > 0 ? 100 * jnum(re, "uncertain") / data : 0);
    json_object_put(o);
    rpt_p(d, "Each route evaluated on the realisations (trv-route --mc): the share in which it is passable end to "
             "end and its time over those (the worse direction's speed, so comparable between routes); with "
             "--risk α the routes use only cells with P(NOGO) <= α (docs/method.md §4.12).");
    block *t = rpt_table(d, "llrrrrr", "route", "--risk", "distance (km)", "P(passable)", "time p10 (h)", "p50 (h)",
                         "p90 (h)");
    if (!(st = rows(ctx, d, r, t, UNC_DIR "/route.json")))
        st = rows(ctx, d, r, t, UNC_DIR "/risk/route.json");
    int added;
    return st ? st : rpt_image(ctx, d, r, UNC_PNG, "P(NOGO) over the realisations, with the MMCR route without and "
                                                   "with --risk", NULL, &added);
}
