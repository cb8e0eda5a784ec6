/* The report's ground-conditions section (report_priv.h): for each of the
 * dry, normal and wet runs of trv-speed in conditions/<c>/ (make demo),
 * the soils' moistures, the share of NOGO cells and the recommended route
 * of the normal run driven on that condition's speed map.
 *
 * The route's time on a map: over route.csv's vertices of the route,
 * t = sum of L_i / v_i, L_i the length of segment i and v_i speed.tif at
 * its midpoint (the worse direction of travel: the same rule for every
 * condition, so the times compare; trv-route's own time uses the speed in
 * the direction of travel and is shorter). A segment whose midpoint is on
 * a NOGO cell (speed 0) or off the map blocks the route: its length is
 * reported instead of a time. And whether the route's start and goal are
 * GO in that condition (gonogo.tif's cell, or its NOGO reason). */
#define _POSIX_C_SOURCE 200809L
#include "report/report_priv.h"

#include <stdlib.h>
#include <string.h>

static const char *const CONDITIONS[3] = {"dry", "normal", "wet"};

typedef struct drive {
    double time_s, dist_m, blocked_m;
} drive;

/* The route's vertices (x, y in the map's CRS) from route.csv; *n of them. */
static trv_status route_xy(trv_ctx *ctx, run *r, const char *name, double **xy, size_t *n)
{
    trv_csv *csv = NULL;
    int c[3];
    *xy = NULL;
    *n = 0;
    trv_status st = trv_csv_read(ctx, P(r, OTHER(RUN_O_ROUTE_CSV)), &csv);
    for (int k = 0; k < 3 && !st; k++)
        st = trv_csv_require(ctx, csv, (const char *const[]){"route", "x", "y"}[k], &c[k]);
    size_t rows = st ? 0 : trv_csv_nrows(csv);
    if (!st && !(*xy = malloc((rows ? rows : 1) * 2 * sizeof **xy)))
        st = trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
    for (size_t i = 0; i < rows && !st; i++)
        if (strcmp(trv_csv_cell(csv, i, c[0]), name) == 0) {
            st = trv_csv_double(ctx, csv, i, c[1], &(*xy)[2 * *n]);
            if (!st)
                st = trv_csv_double(ctx, csv, i, c[2], &(*xy)[2 * *n + 1]);
            (*n)++;
        }
    trv_csv_free(csv);
    return st;
}

/* The route driven on speed (km/h, 0 NOGO). */
static void drive_on(const geo_raster *speed, const double *xy, size_t n, drive *dv)
{
    const double *gt = speed->grid.gt;
    memset(dv, 0, sizeof *dv);
    for (size_t i = 0; i + 1 < n; i++) {
        double x0 = xy[2 * i], y0 = xy[2 * i + 1], x1 = xy[2 * i + 2], y1 = xy[2 * i + 3];
        double len = hypot(x1 - x0, y1 - y0), fc = (0.5 * (x0 + x1) - gt[0]) / gt[1],
               fr = (0.5 * (y0 + y1) - gt[3]) / gt[5];
        double v = 0;
        if (fc >= 0 && fr >= 0 && fc < speed->grid.nx && fr < speed->grid.ny) {
            size_t k = (size_t)fr * speed->grid.nx + (size_t)fc;
            v = geo_raster_is_nodata(speed, k) ? 0 : speed->f32[k];
        }
        dv->dist_m += len;
        if (v > 0)
            dv->time_s += len / (v / 3.6);
        else
            dv->blocked_m += len;
    }
}

/* "GO" or the NOGO reason of gonogo.tif's cell under (x, y). */
static char *cell_state(const geo_raster *g, char names[256][64], double x, double y)
{
    double fc = (x - g->grid.gt[0]) / g->grid.gt[1], fr = (y - g->grid.gt[3]) / g->grid.gt[5];
    if (!(fc >= 0 && fr >= 0 && fc < g->grid.nx && fr < g->grid.ny))
        return rpt_fmt("off the map");
    int v = g->u8[(size_t)fr * g->grid.nx + (size_t)fc];
    return v == 0 ? rpt_fmt("GO") : rpt_fmt("%s", *names[v] ? names[v] : "NOGO");
}

/* The soils' moistures of a condition's speed.json, "sandy loam 32 %, ...". */
static char *moistures(struct json_object *sum)
{
    struct json_object *soils = jget(jget(sum, "moisture"), "soils");
    size_t n = soils ? json_object_array_length(soils) : 0, k = 0;
    char buf[512] = "";
    for (size_t i = 0; i < n && k < sizeof buf - 64; i++) {
        struct json_object *s = json_object_array_get_idx(soils, i);
        k += (size_t)trv_sfmt(buf + k, sizeof buf - k, "%s%s %.4g %%", i ? ", " : "", jstr(s, "name"),
                              jnum(s, "moisture_pct"));
    }
    return rpt_fmt("%s", buf);
}

/* One condition's row. */
static trv_status row(trv_ctx *ctx, doc *d, block *t, run *r, const char *c, const double *xy, size_t n)
{
    char rel[64], names[256][64];
    struct json_object *sum = NULL;
    geo_raster *speed = NULL, *gonogo = NULL;
    trv_sfmt(rel, sizeof rel, "conditions/%s/%s", c, OTHER(RUN_O_SPEED_JSON));
    trv_status st = rpt_json_object_read(ctx, P(r, rel), &sum);
    trv_sfmt(rel, sizeof rel, "conditions/%s/%s", c, LAYER(RUN_SPEED));
    if (!st)
        st = geo_raster_read(ctx, P(r, rel), GEO_F32, &speed);
    trv_sfmt(rel, sizeof rel, "conditions/%s/%s", c, LAYER(RUN_GONOGO));
    if (!st && !(st = rpt_class_names(ctx, P(r, rel), names)))
        st = geo_raster_read(ctx, P(r, rel), GEO_U8, &gonogo);
    if (!st && n == 0)
        st = trv_error(ctx, TRV_ERR_DATA, "'%s' holds no vertex of the recommended route",
                       P(r, OTHER(RUN_O_ROUTE_CSV)));
    if (!st) {
        struct json_object *cells = jget(sum, "cells");
        double data = jnum(cells, "with_data"), go = jnum(cells, "go");
        drive dv;
        drive_on(speed, xy, n, &dv);
        rpt_row(d, t, rpt_fmt("%s", c), moistures(sum), rpt_fmt("%.1f %%", data > 0 ? 100 * (1 - go / data) : 0),
                dv.blocked_m > 0 ? rpt_fmt("blocked") : rpt_fmt("%.3f", dv.time_s / 3600),
                dv.blocked_m > 0 ? rpt_fmt("no: %.0f m on NOGO cells", dv.blocked_m) : rpt_fmt("yes"),
                cell_state(gonogo, names, xy[0], xy[1]), cell_state(gonogo, names, xy[2 * n - 2], xy[2 * n - 1]));
    }
    geo_raster_free(speed);
    geo_raster_free(gonogo);
    json_object_put(sum);
    return st;
}

trv_status rpt_sec_conditions(trv_ctx *ctx, doc *d, run *r, const rstats *rs)
{
    char rel[64];
    trv_sfmt(rel, sizeof rel, "conditions/normal/%s", OTHER(RUN_O_SPEED_JSON));
    if (!trv_file_exists(P(r, rel)))
        return TRV_OK; /* no conditions run (make demo makes them) */
    int is_mmcr;
    const char *name = rs_name(rs, rpt_pick_route(rs, &is_mmcr));
    double *xy = NULL;
    size_t n = 0;
    trv_status st = route_xy(ctx, r, name, &xy, &n);
    rpt_h(d, 2, "Ground conditions");
    rpt_p(d, "The soils dry, as the soil table has them (normal) and wet (trv-speed --condition; the soils' values "
             "at each moisture from Wong's measured terrain values, docs/method.md 2.11). The route is the "
             "recommended %s route of the normal run, driven on each condition's speed map: time over the map's "
             "speed (the worse direction of travel) at the middle of each segment, so the three compare; a route "
             "that crosses a NOGO cell is blocked. Start and goal: GO, or why their cell is NOGO in that "
             "condition (a planner then needs other points).", name);
    block *t = rpt_table(d, "llrrlll", "condition", "soil moisture", "NOGO cells", "route time (h)", "passes", "start",
                         "goal");
    for (int k = 0; k < 3 && !st; k++)
        st = row(ctx, d, t, r, CONDITIONS[k], xy, n);
    free(xy);
    return st;
}
