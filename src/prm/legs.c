/* A mission through waypoints (prm.h, prm_mission_legs): the waypoints
 * checked, their order (as given, or prm_tour_order over the roadmap's leg
 * matrix), each leg planned as a one-leg mission is, the legs joined. */
#include "prm.h"
#include "prm_priv.h"
#include "zones.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

trv_status prm_waypoints_parse(trv_ctx *ctx, const char *opt, const char *s, prm_waypoints *w)
{
    const char *p = s;
    for (;;) {
        char *end;
        double x = strtod(p, &end);
        if (end == p || *end != ',')
            break;
        const char *q = end + 1;
        double y = strtod(q, &end);
        if (end == q || (*end && *end != ';') || !isfinite(x) || !isfinite(y))
            break;
        if (w->n >= PRM_WAYPOINTS_MAX)
            return trv_error(ctx, TRV_ERR_USAGE, "at most %d waypoints", PRM_WAYPOINTS_MAX);
        w->xy[2 * w->n] = x, w->xy[2 * w->n + 1] = y, w->n++;
        if (!*end)
            return TRV_OK;
        p = end + 1;
    }
    return trv_error(ctx, TRV_ERR_USAGE, "%s expects X,Y[;X,Y...]", opt);
}

void prm_legs_free(prm_legs *l)
{
    if (!l)
        return;
    for (int k = 0; k < l->nlegs; k++)
        prm_path_clear(&l->leg[k].r.path);
    free(l->x), free(l->y), free(l->name), free(l->leg);
    free(l);
}

/* The stops in the terrain's CRS: start, waypoints, goal (unless closed). */
static trv_status stops_make(trv_ctx *ctx, const prm_mission_opts *o, const prm_terrain *t, const double xy[4],
                             prm_legs *L)
{
    int n = o->wp.n;
    L->nstops = n + 1 + !o->wp.closed;
    L->x = malloc((size_t)L->nstops * sizeof *L->x), L->y = malloc((size_t)L->nstops * sizeof *L->y);
    L->name = calloc((size_t)L->nstops, sizeof *L->name);
    int *ok = malloc((size_t)(n ? n : 1) * sizeof *ok);
    if (!L->x || !L->y || !L->name || !ok) {
        free(ok);
        return trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
    }
    for (int k = 0; k < n; k++) {
        L->x[1 + k] = o->wp.xy[2 * k], L->y[1 + k] = o->wp.xy[2 * k + 1];
        if (o->wp.label[k][0])
            snprintf(L->name[1 + k], sizeof L->name[0], "%s", o->wp.label[k]);
        else
            snprintf(L->name[1 + k], sizeof L->name[0], "%s %d", o->wp.visit ? "visit" : "via", k + 1);
    }
    char *wkt = NULL;
    geo_ct *ct = NULL;
    trv_status st = geo_crs_wkt(ctx, o->srs, &wkt);
    if (!st && !(st = geo_ct_create(ctx, wkt, t->grid->wkt, &ct)))
        geo_ct_points(ct, (size_t)n, L->x + 1, L->y + 1, ok);
    for (int k = 0; k < n && !st; k++)
        if (!ok[k])
            st = trv_error(ctx, TRV_ERR_CRS, "waypoint %d (%.10g,%.10g) cannot be transformed into the terrain's CRS",
                           k + 1, o->wp.xy[2 * k], o->wp.xy[2 * k + 1]);
    free(wkt), free(ok);
    geo_ct_free(ct);
    L->x[0] = xy[0], L->y[0] = xy[1];
    snprintf(L->name[0], sizeof L->name[0], "start");
    if (!o->wp.closed) {
        L->x[n + 1] = xy[2], L->y[n + 1] = xy[3];
        snprintf(L->name[n + 1], sizeof L->name[0], "%s", o->wp.label[n][0] ? o->wp.label[n] : "goal");
    }
    return st;
}

/* What is wrong with the stop at (x, y) (NULL: nothing): off the terrain,
 * NOGO, in a nogo zone (named in buf). */
static const char *stop_fault(const prm_terrain *t, double x, double y, char *buf, size_t len)
{
    long c = prm_cell_at(t, x, y);
    if (c < 0 || !prm_cell_go(t, c))
        return c < 0 ? "lies outside the terrain" : "lies in a NOGO cell";
    int k = t->zones ? geo_zones_at(t->zones, x, y) : -1;
    if (k < 0)
        return NULL;
    snprintf(buf, len, "lies in the nogo zone (feature %ld) of '%s'", t->zones->z[k].fid, geo_zone_source(t->zones, k));
    return buf;
}

/* The start and the goal, then each waypoint: on the terrain, in GO, in a
 * cell of its own. */
static trv_status stops_check(trv_ctx *ctx, const prm_mission_opts *o, const prm_terrain *t, const prm_legs *L)
{
    int goal = o->wp.closed ? -1 : L->nstops - 1;
    char zb[1024];
    const char *why = stop_fault(t, L->x[0], L->y[0], zb, sizeof zb);
    if (why)
        return trv_error(ctx, TRV_ERR_DATA, "the start (%.10g,%.10g) %s", o->from[0], o->from[1], why);
    if (goal > 0 && (why = stop_fault(t, L->x[goal], L->y[goal], zb, sizeof zb)))
        return trv_error(ctx, TRV_ERR_DATA, "the goal (%.10g,%.10g) %s", o->to[0], o->to[1], why);
    for (int k = 1; k <= o->wp.n; k++) {
        long c = prm_cell_at(t, L->x[k], L->y[k]);
        char dup[64] = "";
        why = stop_fault(t, L->x[k], L->y[k], zb, sizeof zb);
        for (int j = 0; j < L->nstops && !why; j++)
            if (j != k && (j < k || j == goal) && prm_cell_at(t, L->x[j], L->y[j]) == c) {
                snprintf(dup, sizeof dup, "is a duplicate of the %s (the same cell)", L->name[j]);
                why = dup;
            }
        if (why)
            return trv_error(ctx, TRV_ERR_DATA, "waypoint %d (%.10g,%.10g) %s", k, o->wp.xy[2 * k - 2],
                             o->wp.xy[2 * k - 1], why);
    }
    return TRV_OK;
}

/* prm_route from stop i to stop j (on the raster when the zones cut the
 * roadmap there, counted in L->raster: zones.h prm_zones_raster); an error
 * names the waypoint it fails to reach. */
static trv_status leg_route(trv_ctx *ctx, const prm_mission_opts *o, const prm_terrain *t, const prm_roadmap *r,
                            prm_legs *L, int i, int j, prm_path *out)
{
    trv_status st = prm_route(ctx, t, r, L->x[i], L->y[i], L->x[j], L->y[j], o->strategy, &o->weights,
                              o->admissible, out);
    if (st == TRV_ERR_DATA && t->zones) {
        char note[256] = "";
        const double xy[4] = {L->x[i], L->y[i], L->x[j], L->y[j]};
        if (!(st = prm_zones_raster(ctx, t, xy, o->strategy, &o->weights, prm_grid_max_bytes(o->grid_memory), out, note,
                                    sizeof note)))
            L->raster++;
    }
    if (st && st != TRV_ERR_NOMEM) {
        char keep[1024];
        snprintf(keep, sizeof keep, "%s", trv_errmsg(ctx));
        int w = j >= 1 && j <= o->wp.n ? j : i; /* the waypoint of the leg */
        if (w >= 1 && w <= o->wp.n)
            trv_error(ctx, st, "waypoint %d (%.10g,%.10g) is not reachable from %s: %s", w,
                      o->wp.xy[2 * w - 2], o->wp.xy[2 * w - 1], L->name[w == j ? i : j], keep);
    }
    return st;
}

/* --visit: c[i][j] over the roadmap for every leg an order may take. */
static trv_status leg_matrix(trv_ctx *ctx, const prm_mission_opts *o, const prm_terrain *t, const prm_roadmap *r,
                             prm_legs *L, double *c)
{
    int n = L->nstops, last = o->wp.closed ? -1 : n - 1;
    trv_status st = TRV_OK;
    for (int i = 0; i < n && !st; i++)
        for (int j = 0; j < n && !st; j++) {
            c[i * n + j] = i == j ? 0 : INFINITY;
            if (i == j || i == last || (j == 0 && !o->wp.closed))
                continue; /* nothing leaves the goal nor returns to the start of an open path */
            prm_path p = {0};
            if (!(st = leg_route(ctx, o, t, r, L, i, j, &p)))
                c[i * n + j] = p.objective;
            prm_path_clear(&p);
            L->searches++;
        }
    return st;
}

/* One leg as a one-leg mission plans its route: search, corridor,
 * smoothing, statistics (mission.c's plan_roadmap). */
static trv_status leg_plan(trv_ctx *ctx, const prm_mission_opts *o, const prm_terrain *t, const prm_roadmap *r,
                           prm_legs *L, int i, int j, prm_result *R, double *smooth_s)
{
    double t0 = trv_now_s();
    trv_status st = leg_route(ctx, o, t, r, L, i, j, &R->path);
    double band = o->corridor < 0 ? 3 * t->cell_m : o->corridor;
    if (!st && band > 0)
        st = prm_refine(ctx, t, &R->path, o->strategy, &o->weights, band);
    double t1 = trv_now_s();
    R->max_dev_m = NAN;
    if (!st && !o->no_smooth)
        st = prm_smooth(ctx, t, &R->path, t->cell_m, &R->max_dev_m);
    *smooth_s = trv_now_s() - t1;
    if (!st)
        prm_path_stats(t, &R->path, t->cell_m, &R->stats);
    R->stats.plan_s = t1 - t0;
    return st;
}

/* The legs' paths one after the other, each shared stop once, into W. */
static trv_status join(trv_ctx *ctx, prm_legs *L, prm_result *W)
{
    int n = 1;
    for (int k = 0; k < L->nlegs; k++)
        n += L->leg[k].r.path.n - 1;
    W->path.x = malloc((size_t)n * sizeof *W->path.x), W->path.y = malloc((size_t)n * sizeof *W->path.y);
    if (!W->path.x || !W->path.y)
        return trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
    int q = 0;
    W->max_dev_m = NAN;
    for (int k = 0; k < L->nlegs; k++) {
        const prm_path *p = &L->leg[k].r.path;
        L->leg[k].v0 = q ? q - 1 : 0;
        for (int v = q ? 1 : 0; v < p->n; v++)
            W->path.x[q] = p->x[v], W->path.y[q] = p->y[v], q++;
        L->leg[k].v1 = q - 1;
        W->path.objective += p->objective, W->path.expanded += p->expanded;
        W->stats.plan_s += L->leg[k].r.stats.plan_s;
        if (!isnan(L->leg[k].r.max_dev_m))
            W->max_dev_m = isnan(W->max_dev_m) ? L->leg[k].r.max_dev_m : fmax(W->max_dev_m, L->leg[k].r.max_dev_m);
    }
    W->path.n = q;
    return TRV_OK;
}

/* The travel order of the stops into ord (nstops entries; closed: the
 * return to ord[0] implied). */
static trv_status stops_order(trv_ctx *ctx, const prm_mission_opts *o, const prm_terrain *t, const prm_roadmap *r,
                              prm_legs *L, int *ord)
{
    int n = L->nstops;
    for (int k = 0; k < n; k++)
        ord[k] = k;
    if (!o->wp.visit)
        return TRV_OK;
    double *c = malloc((size_t)n * n * sizeof *c), t0 = trv_now_s();
    if (!c)
        return trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
    trv_status st = leg_matrix(ctx, o, t, r, L, c);
    double t1 = trv_now_s();
    if (!st)
        st = prm_tour_order(ctx, n, c, o->wp.closed, ord, &L->order_cost, &L->exact);
    L->matrix_s = t1 - t0, L->order_s = trv_now_s() - t1;
    free(c);
    return st;
}

static trv_status legs_plan(trv_ctx *ctx, const prm_mission_opts *o, const prm_terrain *t, const prm_roadmap *r,
                            prm_legs *L, prm_result *W)
{
    int n = L->nstops, *ord = malloc((size_t)n * sizeof *ord);
    L->nlegs = 0;
    L->leg = calloc((size_t)n, sizeof *L->leg);
    if (!ord || !L->leg) {
        free(ord);
        return trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
    }
    trv_status st = stops_order(ctx, o, t, r, L, ord);
    int legs = o->wp.closed ? n : n - 1;
    for (int k = 0; k < legs && !st; k++) {
        prm_leg *g = &L->leg[L->nlegs++];
        g->from = ord[k], g->to = ord[(k + 1) % n];
        snprintf(g->r.name, sizeof g->r.name, "%s leg %d", prm_strategy_name(o->strategy), k + 1);
        st = leg_plan(ctx, o, t, r, L, g->from, g->to, &g->r, &g->smooth_s);
    }
    free(ord);
    if (!st)
        st = join(ctx, L, W);
    W->stats.plan_s += L->matrix_s + L->order_s;
    return st;
}

trv_status prm_mission_legs(trv_ctx *ctx, const prm_mission_opts *o, const prm_terrain *t, const prm_roadmap *r,
                            const double xy[4], prm_mission *m)
{
    prm_legs *L = calloc(1, sizeof *L);
    if (!L)
        return trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
    m->legs = L, L->visit = o->wp.visit, L->closed = o->wp.closed;
    prm_result *W = &m->routes[0];
    snprintf(W->name, sizeof W->name, "%s", prm_strategy_name(o->strategy));
    m->n = 1; /* the whole route is the mission's to clear from here on */
    trv_status st = stops_make(ctx, o, t, xy, L);
    if (!st)
        st = stops_check(ctx, o, t, L);
    if (!st)
        st = legs_plan(ctx, o, t, r, L, W);
    if (st)
        return st;
    if (L->raster) /* the zones cut the roadmap between some stops (zones.h) */
        snprintf(m->zones_note, sizeof m->zones_note, "the zones cut the roadmap between stops: %d of the %d searches "
                 "(legs and --visit matrix) planned on the raster instead", L->raster, L->searches + L->nlegs);
    for (int k = 0; k < L->nlegs; k++)
        m->smooth_s[0] += L->leg[k].smooth_s;
    double plan_s = W->stats.plan_s;
    prm_path_stats(t, &W->path, t->cell_m, &W->stats);
    W->stats.plan_s = plan_s;
    st = prm_terrain_need_line(ctx, t, W->path.x, W->path.y, W->path.n, 1);
    return st ? st : prm_terrain_status(ctx, t);
}
