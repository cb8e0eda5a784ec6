/* The report's answer, first (report_priv.h): the recommended route on
 * the map, its figures (route_stats.csv, and along its vertices in
 * route.csv), the simulated drives of it, its files for the field, and
 * what limits it. */
#define _POSIX_C_SOURCE 200809L
#include "report/report_priv.h"

#include <stdlib.h>
#include <string.h>

/* How a planner calls a route: MMCR, MDR, MSR, least time, or its name. */
static const char *route_title(const char *name)
{
    static const char *const T[][2] = {{"mmcr", "MMCR"}, {"mdr", "MDR"}, {"msr", "MSR"}, {"time", "least time"}};
    for (size_t k = 0; k < sizeof T / sizeof T[0]; k++)
        if (!strcmp(name, T[k][0]))
            return T[k][1];
    return name;
}

/* One vertex of route.csv. */
typedef struct vtx {
    double d, t, speed, slope, cost; /* m and s from the start, km/h, degrees, cost */
    int cls;
} vtx;

/* The vertices of route name in route.csv (*n 0 when it has none). */
static trv_status read_vertices(trv_ctx *ctx, run *r, const char *name, vtx **out, size_t *n)
{
    static const char *const COLS[] = {"route", "cum_dist_m", "cum_time_s", "speed", "slope", "cost", "class"};
    enum { NCOL = sizeof COLS / sizeof COLS[0] };
    int col[NCOL];
    trv_csv *csv = NULL;
    *out = NULL;
    *n = 0;
    trv_status st = trv_csv_read(ctx, P(r, OTHER(RUN_O_ROUTE_CSV)), &csv);
    for (int k = 0; k < NCOL && !st; k++)
        st = trv_csv_require(ctx, csv, COLS[k], &col[k]);
    size_t rows = st ? 0 : trv_csv_nrows(csv);
    vtx *v = st ? NULL : calloc(rows ? rows : 1, sizeof *v);
    if (!st && !v)
        st = trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
    for (size_t i = 0; i < rows && !st; i++) { /* every row read: a corrupt file is an error */
        vtx *p = &v[*n];
        double c = 0;
        if ((st = trv_csv_double(ctx, csv, i, col[1], &p->d)) || (st = trv_csv_double(ctx, csv, i, col[2], &p->t)) ||
            (st = trv_csv_double(ctx, csv, i, col[3], &p->speed)) || (st = trv_csv_double(ctx, csv, i, col[4], &p->slope)) ||
            (st = trv_csv_double(ctx, csv, i, col[5], &p->cost)) || (st = trv_csv_double(ctx, csv, i, col[6], &c)))
            break;
        if (c < 0 || c > 255 || c != floor(c))
            st = trv_error(ctx, TRV_ERR_FORMAT, "%s:%ld: class is not a code 0..255", trv_csv_path(csv), trv_csv_line(csv, i));
        if (st || strcmp(trv_csv_cell(csv, i, col[0]), name))
            continue;
        if (*n && (p->d < p[-1].d || p->t < p[-1].t))
            st = trv_error(ctx, TRV_ERR_FORMAT, "%s:%ld: cum_dist_m or cum_time_s decreases", trv_csv_path(csv),
                           trv_csv_line(csv, i));
        p->cls = (int)c;
        (*n)++;
    }
    trv_csv_free(csv);
    if (st) {
        free(v);
        *n = 0;
    } else {
        *out = v;
    }
    return st;
}

/* What the vertices say about the route. Each vertex stands for half of
 * each segment beside it (its weight, in metres and in seconds). */
typedef struct rwalk {
    double len, time;               /* m, s */
    double len_class[256], time_class[256];
    double len_top;                 /* m at the top speed (when known) */
    double max_cost;
    double slow_from, slow_to;      /* the slowest stretch of at least 1 km (m from the start) */
    double slow_kmh, slow_min_kmh, slow_max_slope;
} rwalk;

static void slowest_km(const vtx *v, size_t n, rwalk *w)
{
    size_t best_i = 0, best_j = n - 1;
    double best = INFINITY;
    for (size_t i = 0, j = 0; i < n; i++) {
        while (j < n && v[j].d - v[i].d < 1000)
            j++;
        if (j == n)
            break;
        double dt = v[j].t - v[i].t, kmh = dt > 0 ? 3.6 * (v[j].d - v[i].d) / dt : INFINITY;
        if (kmh < best)
            best = kmh, best_i = i, best_j = j;
    }
    w->slow_from = v[best_i].d;
    w->slow_to = v[best_j].d;
    double dt = v[best_j].t - v[best_i].t;
    w->slow_kmh = dt > 0 ? 3.6 * (v[best_j].d - v[best_i].d) / dt : NAN;
    w->slow_min_kmh = INFINITY;
    w->slow_max_slope = -INFINITY;
    for (size_t k = best_i; k <= best_j; k++) {
        w->slow_min_kmh = fmin(w->slow_min_kmh, v[k].speed);
        w->slow_max_slope = fmax(w->slow_max_slope, v[k].slope);
    }
}

/* top: the vehicle's top speed (km/h), NAN when unknown. n >= 2. */
static void walk(const vtx *v, size_t n, double top, rwalk *w)
{
    memset(w, 0, sizeof *w);
    w->len = v[n - 1].d - v[0].d;
    w->time = v[n - 1].t - v[0].t;
    w->max_cost = -INFINITY;
    for (size_t i = 0; i < n; i++) {
        size_t a = i ? i - 1 : 0, b = i + 1 < n ? i + 1 : n - 1;
        double wl = (v[b].d - v[a].d) / 2, wt = (v[b].t - v[a].t) / 2;
        w->len_class[v[i].cls] += wl;
        w->time_class[v[i].cls] += wt;
        if (v[i].speed >= top - 0.005) /* false when top is NAN */
            w->len_top += wl;
        w->max_cost = fmax(w->max_cost, v[i].cost);
    }
    slowest_km(v, n, w);
}

/* The vehicle the run used (speed.tif's --vehicle), for its limits. */
typedef struct vlimits {
    int known;
    double top_kmh, max_slope_deg;
    char why[PATH_MAX + 128];       /* when not known */
} vlimits;

static trv_status read_limits(trv_ctx *ctx, run *r, vlimits *vl)
{
    memset(vl, 0, sizeof *vl);
    trv_sfmt(vl->why, sizeof vl->why, "no `%s` in the run directory", OTHER(RUN_O_SPEED_JSON));
    struct json_object *o;
    trv_status st = rpt_summary(ctx, r, RUN_O_SPEED_JSON, &o);
    struct json_object *v = jget(o, "vehicle");
    /* as trv-speed ran it: the smaller of the vehicle's maximum pitch and roll */
    vl->top_kmh = jnum(v, "top_speed_kmh");
    vl->max_slope_deg = jnum(v, "max_slope_deg");
    vl->known = !isnan(vl->top_kmh) && !isnan(vl->max_slope_deg);
    if (o && !vl->known)
        trv_sfmt(vl->why, sizeof vl->why, "`%s` has no vehicle's top_speed_kmh and max_slope_deg",
                 OTHER(RUN_O_SPEED_JSON));
    json_object_put(o);
    return st;
}


/* Append vehicle v's drive in simulator run sim to out, when its plan was
 * the route of dist_m metres (route_stats.csv has 0.1 m). */
static void sim_drive(struct json_object *v, const char *sim, double dist_m, char *out, size_t n)
{
    if (!(fabs(jnum(v, "planned_distance_m") - dist_m) <= 0.06))
        return;
    struct json_object *x;
    int goal = json_object_object_get_ex(v, "reached_goal", &x) && json_object_get_boolean(x);
    const char *end = json_object_object_get_ex(v, "end", &x) ? json_object_get_string(x) : "unknown";
    double min = jnum(v, "time_s") / 60, replans = jnum(v, "replans"), coll = jnum(v, "collisions");
    size_t len = strlen(out);
    if (goal)
        trv_sfmt(out + len, n - len, "%s`%s`: reached the goal in %.1f min", len ? "; " : "", sim, min);
    else
        trv_sfmt(out + len, n - len, "%s`%s`: stopped (%s) after %.1f min", len ? "; " : "", sim, end, min);
    if (replans > 0 && (len = strlen(out)) < n)
        trv_sfmt(out + len, n - len, ", %.0f re-plan%s", replans, replans > 1 ? "s" : "");
    if (coll > 0 && (len = strlen(out)) < n)
        trv_sfmt(out + len, n - len, ", %.0f collision%s", coll, coll > 1 ? "s" : "");
}

/* The simulated drives of route dist_m (matched on the vehicles'
 * planned_distance_m in each simulator run's metrics.json), as one line
 * ("" if none). */
static trv_status sim_drives(trv_ctx *ctx, run *r, double dist_m, char *out, size_t n)
{
    out[0] = '\0';
    char **runs = rpt_sim_runs(r);
    trv_status st = TRV_OK;
    for (int i = 0; runs && runs[i] && !st; i++) {
        char rel[PATH_MAX], why[128];
        trv_sfmt(rel, sizeof rel, "%s/%s", runs[i], OTHER(RUN_O_SIM_METRICS));
        char *text = trv_file_slurp(P(r, rel), NULL);
        struct json_object *o = text ? rpt_json_parse(text, why, sizeof why) : NULL, *vs = NULL;
        free(text);
        if (!o || json_object_get_type(o) != json_type_object) {
            st = trv_error(ctx, TRV_ERR_FORMAT, "cannot read '%s': not a JSON object", r->path);
        } else if (json_object_object_get_ex(o, "vehicles", &vs) && json_object_get_type(vs) == json_type_array) {
            for (size_t k = 0; k < json_object_array_length(vs); k++)
                sim_drive(json_object_array_get_idx(vs, k), runs[i], dist_m, out, n);
        }
        json_object_put(o);
    }
    geo_names_free(runs);
    return st;
}

/* What the answer is made of. */
typedef struct answer {
    const rstats *rs;
    size_t k;                   /* the recommended route's row */
    int is_mmcr;
    vlimits vl;
    int walked;                 /* route.csv had its vertices: w is set */
    rwalk w;
    char names[256][64];        /* the mobility classes */
    char drives[1024];          /* the simulated drives of it */
} answer;

static void answer_head(doc *d, const answer *a)
{
    const rstats *rs = a->rs;
    const char *name = rs_name(rs, a->k);
    rpt_h(d, 2, "Recommended route: %s", route_title(name));
    if (!d->oom)
        d->oom |= !(d->b[d->n - 1].id = strdup("answer"));
    char why[1024];
    if (a->is_mmcr)
        trv_sfmt(why, sizeof why, "Recommended: **MMCR**, because it is the method's answer: the route of least mobility cost "
                              "on the roadmap (the improved A* of Hua et al. 2022), smoothed into a path that never "
                              "enters NOGO%s.",
             *a->drives ? "; the simulated vehicle drove it" : "");
    else
        trv_sfmt(why, sizeof why, "Recommended: **%s** (`%s`), because this run planned no MMCR route (the method's answer): "
                              "the first roadmap route of `%s`.",
             route_title(name), name, OTHER(RUN_O_ROUTE_STATS));
    long f = rpt_rs_find(rs, "time");
    if (f >= 0 && (size_t)f != a->k) {
        double dd = rs_val(rs, a->k, RS_DIST) - rs_val(rs, (size_t)f, RS_DIST);
        double dt = rs_val(rs, a->k, RS_TIME) - rs_val(rs, (size_t)f, RS_TIME);
        double c0 = rs_val(rs, (size_t)f, RS_COST), c1 = rs_val(rs, a->k, RS_COST);
        size_t len = strlen(why);
        trv_sfmt(why + len, sizeof why - len, " Against the fastest route (least time): %+.2f km, %+.1f min, mean "
                                          "mobility cost %.3f instead of %.3f (%+.0f %%).",
             dd / 1000, dt * 60, c1, c0, c0 > 0 ? 100 * (c1 / c0 - 1) : 0.0);
    }
    rpt_p(d, "%s", why);
}

/* "safe 60.1 %, low-risk ..." from the length per class, best class first. */
static void class_shares(const answer *a, char *out, size_t n)
{
    out[0] = '\0';
    for (int c = 255; c >= 0; c--) {
        if (a->w.len_class[c] <= 0)
            continue;
        size_t len = strlen(out);
        trv_sfmt(out + len, n - len, "%s%s %.1f %%", len ? ", " : "", *a->names[c] ? a->names[c] : "(unnamed)",
             100 * a->w.len_class[c] / a->w.len);
    }
}

static void answer_table(doc *d, const answer *a)
{
    const rstats *rs = a->rs;
    size_t k = a->k;
    block *t = rpt_table(d, "ll", "route", route_title(rs_name(rs, k)));
    if (t && !(t->id = strdup("summary")))
        d->oom = 1;
    rpt_row(d, t, strdup("distance"), rpt_fmt("%.2f km", rs_val(rs, k, RS_DIST) / 1000));
    rpt_row(d, t, strdup("travel time"),
            rpt_fmt("%.1f min (%.3f h) at the attainable speed", rs_val(rs, k, RS_TIME) * 60, rs_val(rs, k, RS_TIME)));
    rpt_row(d, t, strdup("mean speed"), rpt_fmt("%.1f km/h", rs_val(rs, k, RS_SPEED)));
    if (a->walked)
        rpt_row(d, t, strdup("mobility cost"), rpt_fmt("mean %.3f, max %.3f", rs_val(rs, k, RS_COST), a->w.max_cost));
    else
        rpt_row(d, t, strdup("mobility cost"), rpt_fmt("mean %.3f", rs_val(rs, k, RS_COST)));
    rpt_row(d, t, strdup("NOGO exposure"), rpt_fmt("%.0f samples on NOGO cells", rs_val(rs, k, RS_NOGO)));
    if (a->vl.known)
        rpt_row(d, t, strdup("max slope"), rpt_fmt("%.2f° (vehicle limit %.1f°)", rs_val(rs, k, RS_XSLOPE), a->vl.max_slope_deg));
    else
        rpt_row(d, t, strdup("max slope"), rpt_fmt("%.2f°", rs_val(rs, k, RS_XSLOPE)));
    if (a->walked) {
        char shares[1024];
        class_shares(a, shares, sizeof shares);
        rpt_row(d, t, strdup("length by class"), strdup(shares));
        if (a->vl.known)
            rpt_row(d, t, strdup("at top speed"),
                    rpt_fmt("%.1f %% of the length (%.0f km/h)", 100 * a->w.len_top / a->w.len, a->vl.top_kmh));
        rpt_row(d, t, strdup("slowest km"),
                rpt_fmt("km %.1f to %.1f: %.1f km/h", a->w.slow_from / 1000, a->w.slow_to / 1000, a->w.slow_kmh));
    }
    rpt_row(d, t, strdup("simulated drive"), strdup(*a->drives ? a->drives : "not simulated in this run"));
}

static void answer_files(doc *d, run *r, const answer *a)
{
    static const struct {
        run_oid id;
        const char *what;
    } F[] = {{RUN_O_ROUTE_GPX, "GPX 1.1, a track per route and the start and goal waypoints"},
             {RUN_O_ROUTE_GEOJSON, "the routes as GeoJSON LineStrings (EPSG:4326) with their statistics"},
             {RUN_O_ROUTE_CSV, "the routes' vertices with their terrain values (elevation, slope, speed, cost, class)"}};
    int any = 0;
    for (size_t k = 0; k < sizeof F / sizeof F[0]; k++) {
        const char *file = OTHER(F[k].id);
        if (!trv_file_exists(P(r, file)))
            continue;
        if (!any++)
            rpt_p(d, "For the field (every strategy in each file; the recommended one is named `%s`):",
                  rs_name(a->rs, a->k));
        block *b = rpt_add(d, B_LINK);
        if (!b)
            return;
        b->text = strdup(F[k].what);
        b->img_path = strdup(file);
        b->img_link = rpt_link(r, r->md_dir, file);
        b->html_link = rpt_link(r, r->html_dir, file);
        d->oom |= !b->text || !b->img_path || !b->img_link || !b->html_link;
    }
    if (!any)
        rpt_p(d, "The route files (`%s`, `%s`, `%s`) are absent.", OTHER(F[0].id), OTHER(F[1].id), OTHER(F[2].id));
}

/* What holds the route back, as far as the run's files tell. */
static void answer_limits(doc *d, const answer *a)
{
    const rstats *rs = a->rs;
    size_t k = a->k;
    rpt_h(d, 3, "What limits it");
    double xs = rs_val(rs, k, RS_XSLOPE);
    if (a->vl.known)
        rpt_li(d, "Slope: the steepest point is %.2f°, %.2f° under the vehicle's limit of %.1f° (the smaller of its "
                  "maximum pitch and roll; steeper cells are NOGO).",
               xs, a->vl.max_slope_deg - xs, a->vl.max_slope_deg);
    else
        rpt_li(d, "Slope: the steepest point is %.2f°; the vehicle's limit is not known here (%s).", xs, a->vl.why);
    if (a->walked && a->vl.known)
        rpt_li(d, "Speed: the vehicle's top speed (%.0f km/h) over %.1f %% of the length; elsewhere a lower limit "
                  "binds (power, traction, ride, vegetation or braking; `limit.tif`, `trv-speed`).",
               a->vl.top_kmh, 100 * a->w.len_top / a->w.len);
    else if (!a->vl.known)
        rpt_li(d, "Speed: %.1f km/h on average; the vehicle's top speed is not known here (%s).",
               rs_val(rs, k, RS_SPEED), a->vl.why);
    if (a->walked)
        rpt_li(d, "The slowest stretch of at least 1 km: km %.2f to %.2f, %.1f km/h on average (%.1f km/h at its "
                  "slowest vertex), slopes up to %.2f°.",
               a->w.slow_from / 1000, a->w.slow_to / 1000, a->w.slow_kmh, a->w.slow_min_kmh, a->w.slow_max_slope);
    rpt_li(d, "NOGO: %.0f of the route's samples on NOGO cells (`%s`).", rs_val(rs, k, RS_NOGO), OTHER(RUN_O_ROUTE_STATS));
    rpt_li(d, "Not derived here: which limit binds at each point of the route; `limit.tif` maps it per cell, the "
              "route's vertices carry the outcome (speed, cost, class), not that limit.");
    rpt_end_list(d);
    if (!a->walked) {
        rpt_p(d, "The route's vertices (`%s`) are absent: no length by class, speed profile or slowest stretch.",
              OTHER(RUN_O_ROUTE_CSV));
        return;
    }
    rpt_p(d, "Along the route by mobility class (`%s`: each vertex stands for half of each segment beside it):",
          OTHER(RUN_O_ROUTE_CSV));
    block *t = rpt_table(d, "rlrrr", "class", "name", "length (km)", "share", "time (min)");
    for (int c = 255; c >= 0; c--)
        if (a->w.len_class[c] > 0)
            rpt_row(d, t, rpt_fmt("%d", c), strdup(*a->names[c] ? a->names[c] : "(unnamed)"),
                    rpt_fmt("%.2f", a->w.len_class[c] / 1000), rpt_fmt("%.1f %%", 100 * a->w.len_class[c] / a->w.len),
                    rpt_fmt("%.1f", a->w.time_class[c] / 60));
}

static trv_status answer_read(trv_ctx *ctx, run *r, answer *a)
{
    const char *name = rs_name(a->rs, a->k);
    vtx *v = NULL;
    size_t nv = 0;
    trv_status st = read_limits(ctx, r, &a->vl);
    if (!st && trv_file_exists(P(r, OTHER(RUN_O_ROUTE_CSV))))
        st = read_vertices(ctx, r, name, &v, &nv);
    if (!st)
        st = sim_drives(ctx, r, rs_val(a->rs, a->k, RS_DIST), a->drives, sizeof a->drives);
    if (!st)
        st = rpt_class_names(ctx, P(r, LAYER(RUN_CLASS)), a->names);
    a->walked = !st && nv >= 2 && v[nv - 1].d > v[0].d;
    if (a->walked)
        walk(v, nv, a->vl.known ? a->vl.top_kmh : NAN, &a->w);
    free(v);
    return st;
}

/* The answer first: the recommended route on the map, its figures, its
 * files and what limits it. */
trv_status rpt_sec_answer(trv_ctx *ctx, doc *d, run *r, const rstats *rs)
{
    answer *a = calloc(1, sizeof *a);
    if (!a)
        return trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
    a->rs = rs;
    a->k = rpt_pick_route(rs, &a->is_mmcr);
    trv_status st = answer_read(ctx, r, a);
    int shown = 0;
    if (!st) {
        answer_head(d, a);
        rpt_div(d, "answer");
        char rel[256], caption[128];
        if (rpt_route_map(r, rs, rel, sizeof rel)) {
            trv_sfmt(caption, sizeof caption, "The recommended route (%s) over the mobility cost",
                 route_title(rs_name(rs, a->k)));
        } else {
            trv_sfmt(rel, sizeof rel, "%s/%s", OTHER(RUN_O_PNG), ROUTES_PNG);
            trv_sfmt(caption, sizeof caption, "The routes over the mobility cost (the recommended one is in the legend)");
        }
        st = rpt_image(ctx, d, r, rel, caption, "map", &shown);
        if (!st && !shown)
            rpt_p(d, "Absent: `%s` (the map of the routes).", rel);
    }
    if (!st) {
        rpt_div(d, "facts");
        answer_table(d, a);
        answer_files(d, r, a);
        rpt_div_end(d);
        rpt_div_end(d);
        answer_limits(d, a);
    }
    free(a);
    return st;
}

