/* A mission: terrain and roadmap loaded, start and goal into the terrain's
 * CRS, each strategy planned on the roadmap (refined, smoothed) and, as
 * the optimality reference, on the raster; the route files written. */
#include "prm.h"
#include "hier.h"
#include "profile.h"
#include "risk.h"
#include "zones.h"
#include "prm_priv.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void prm_mission_opts_init(prm_mission_opts *o)
{
    memset(o, 0, sizeof *o);
    o->srs = "EPSG:4326";
    o->strategy = PRM_MMCR;
    prm_weights_default(&o->weights);
    o->corridor = -1;
    prm_alt_opts_init(&o->alt);
    o->risk = NAN;
}

trv_status prm_mission_opts_check(trv_ctx *ctx, const prm_mission_opts *o)
{
    const double *w = &o->weights.kb;
    for (int k = 0; k < 4; k++)
        if (!isfinite(w[k]) || w[k] < 0)
            return trv_error(ctx, TRV_ERR_USAGE, "--weights expects four numbers >= 0: kb,kh,ks,kd");
    if (o->corridor < 0 && o->corridor != -1)
        return trv_error(ctx, TRV_ERR_USAGE, "--corridor must be >= 0");
    if (!(o->grid_corridor >= 0) || !isfinite(o->grid_corridor))
        return trv_error(ctx, TRV_ERR_USAGE, "--grid-corridor must be >= 0 (0: from the roadmap route)");
    if (!(o->grid_memory >= 0) || !(o->grid_memory < 1e12))
        return trv_error(ctx, TRV_ERR_USAGE, "--grid-memory must be >= 0 MB (0: three quarters of the machine's)");
    if (o->crossings && !o->zones)
        return trv_error(ctx, TRV_ERR_USAGE, "--crossings needs --zones");
    if (!(o->crossing_radius >= 0) || !isfinite(o->crossing_radius))
        return trv_error(ctx, TRV_ERR_USAGE, "--crossing-radius must be >= 0 (0: one cell)");
    trv_status st = prm_alt_opts_check(ctx, &o->alt);
    if (!st && o->alt.k > 1 && (o->compare || o->grid))
        st = trv_error(ctx, TRV_ERR_USAGE,
                       "--alternatives above 1 plans one strategy on the roadmap: not with --compare or --grid");
    if (!st && o->wp.n && (o->compare || o->grid))
        st = trv_error(ctx, TRV_ERR_USAGE, "--via and --visit plan one strategy on the roadmap: not with --compare "
                                           "or --grid");
    if (!st && o->wp.n && o->alt.k > 1)
        st = trv_error(ctx, TRV_ERR_USAGE, "--via and --visit do not take --alternatives yet");
    if (!st && !isnan(o->risk) && !(o->risk >= 0 && o->risk < 1))
        st = trv_error(ctx, TRV_ERR_USAGE, "--risk must be a probability >= 0 and < 1");
    if (!st && o->mc < 0)
        st = trv_error(ctx, TRV_ERR_USAGE, "--mc must be a count of realisations >= 1");
    if (!st && o->mc > 0 && o->wp.n)
        st = trv_error(ctx, TRV_ERR_USAGE, "--mc does not take --via or --visit yet");
    if (!st && o->wp.closed && !o->wp.n)
        st = trv_error(ctx, TRV_ERR_USAGE, "--return needs --via or --visit");
    return st;
}

void prm_mission_clear(prm_mission *m)
{
    for (int k = 0; k < m->n; k++)
        prm_path_clear(&m->routes[k].path);
    prm_profiles_free(m->profiles);
    prm_legs_free(m->legs);
    memset(m, 0, sizeof *m);
}

trv_status prm_mission_ends(trv_ctx *ctx, const prm_mission_opts *o, const geo_grid *g, double xy[4])
{
    char *wkt = NULL;
    geo_ct *ct = NULL;
    trv_status st;
    if (!(st = geo_crs_wkt(ctx, o->srs, &wkt)) && !(st = geo_ct_create(ctx, wkt, g->wkt, &ct))) {
        int ok[2];
        double xs[2] = {o->from[0], o->to[0]}, ys[2] = {o->from[1], o->to[1]};
        geo_ct_points(ct, 2, xs, ys, ok);
        if (!ok[0] || !ok[1])
            st = trv_error(ctx, TRV_ERR_CRS, "the %s cannot be transformed into the terrain's CRS",
                           ok[0] ? "goal" : "start");
        xy[0] = xs[0], xy[1] = ys[0], xy[2] = xs[1], xy[3] = ys[1];
    }
    free(wkt);
    geo_ct_free(ct);
    return st;
}

/* The last roadmap route of m: corridor, smoothing, statistics (t0: when
 * its planning began). */
static trv_status finish_roadmap(trv_ctx *ctx, const prm_mission_opts *o, const prm_terrain *t, prm_strategy s,
                                 prm_mission *m, double t0)
{
    prm_result *R = &m->routes[m->n - 1];
    trv_status st;
    double band = o->corridor < 0 ? 3 * t->cell_m : o->corridor;
    if (band > 0 && (st = prm_refine(ctx, t, &R->path, s, &o->weights, band)))
        return st;
    double t1 = trv_now_s(); /* planning: the search, shortcuts and corridor; smoothing is timed apart */
    R->max_dev_m = NAN;
    if (!o->no_smooth && (st = prm_smooth(ctx, t, &R->path, t->cell_m, &R->max_dev_m)))
        return st;
    m->smooth_s[m->n - 1] = trv_now_s() - t1;
    prm_path_stats(t, &R->path, t->cell_m, &R->stats);
    R->stats.plan_s = t1 - t0;
    return TRV_OK;
}

/* One strategy on the roadmap: search, corridor, smoothing, statistics. */
static trv_status plan_roadmap(trv_ctx *ctx, const prm_mission_opts *o, const prm_terrain *t, const prm_roadmap *r,
                               const double xy[4], prm_strategy s, prm_mission *m)
{
    prm_result *R = &m->routes[m->n];
    snprintf(R->name, sizeof R->name, "%s", prm_strategy_name(s));
    double t0 = trv_now_s();
    prm_hier_stats hs;
    trv_status st = prm_route_hier(ctx, t, r, m->hier, &hs, xy[0], xy[1], xy[2], xy[3], s, &o->weights,
                                   o->admissible, &R->path);
    m->hier_searches += hs.used;
    m->hier_edges += hs.edges_read;
    if (st == TRV_ERR_DATA && t->zones) /* the roadmap cut by the zones: the raster (zones.h) */
        st = prm_zones_raster(ctx, t, xy, s, &o->weights, prm_grid_max_bytes(o->grid_memory), &R->path, m->zones_note,
                              sizeof m->zones_note);
    if (st)
        return st;
    m->n++; /* the path is the mission's to clear from here on */
    return finish_roadmap(ctx, o, t, s, m, t0);
}

/* The alternatives of the strategy's route (ranks 2.., prm_alt_roadmap),
 * each finished as the route itself; m->alt_note when fewer were found. */
static trv_status plan_alternatives(trv_ctx *ctx, const prm_mission_opts *o, const prm_terrain *t,
                                    const prm_roadmap *r, const double xy[4], prm_mission *m)
{
    prm_path paths[PRM_ALT_MAX];
    prm_alt_set a;
    double t0 = trv_now_s();
    trv_status st = prm_alt_roadmap(ctx, t, r, xy, o->strategy, &o->weights, &o->alt, paths, &a);
    if (st == TRV_ERR_DATA && m->zones_note[0]) { /* the route itself came from the raster (zones.h) */
        snprintf(m->alt_note, sizeof m->alt_note, "no alternatives: the zones cut the roadmap between start and goal");
        m->routes[0].rank = 1, m->routes[0].overlap = 1;
        return TRV_OK;
    }
    if (st)
        return st;
    double search_s = trv_now_s() - t0; /* each alternative's plan_s: this and its own corridor */
    prm_alt_note(&a, &o->alt, m->alt_note, sizeof m->alt_note);
    m->routes[0].rank = 1, m->routes[0].overlap = 1;
    for (int k = 1; k < a.n; k++) {
        prm_result *R = &m->routes[m->n++];
        snprintf(R->name, sizeof R->name, "%s-%d", prm_strategy_name(o->strategy), k + 1);
        R->path = paths[k], R->rank = k + 1, R->overlap = a.r[k].overlap;
        paths[k] = (prm_path){0};
        if (!st)
            st = finish_roadmap(ctx, o, t, o->strategy, m, trv_now_s() - search_s);
    }
    prm_path_clear(&paths[0]); /* rank 1 is the A*'s route */
    prm_alt_set_clear(&a);
    return st;
}

/* One strategy on the raster, 16-connected: the optimum (in a corridor
 * around the strategy's roadmap route unless grid_whole, grid_corridor.c). */
static trv_status plan_grid(trv_ctx *ctx, const prm_mission_opts *o, const prm_terrain *t, const double xy[4],
                            prm_strategy s, prm_mission *m)
{
    prm_result *R = &m->routes[m->n];
    const prm_path *guide = NULL;
    for (int k = 0; k < m->n; k++)
        if (!strcmp(m->routes[k].name, prm_strategy_name(s)))
            guide = &m->routes[k].path;
    snprintf(R->name, sizeof R->name, "grid-%s", prm_strategy_name(s));
    double t0 = trv_now_s();
    prm_corridor_info ci = {0};
    size_t max_bytes = prm_grid_max_bytes(o->grid_memory);
    trv_status st = o->grid_whole ? prm_route_grid_bounded(ctx, t, max_bytes, xy[0], xy[1], xy[2], xy[3], s,
                                                           &o->weights, &R->path, &ci.paging)
                                  : prm_route_grid_corridor(ctx, t, guide, o->grid_corridor, max_bytes, xy, s,
                                                            &o->weights, &R->path, &ci);
    if (st)
        return st;
    m->n++;
    R->max_dev_m = NAN;
    R->corridor = ci;
    prm_path_stats(t, &R->path, t->cell_m, &R->stats);
    R->stats.plan_s = trv_now_s() - t0;
    return TRV_OK;
}

/* After a failed search between two GO cells: when no raster path joins
 * them at all (different GO regions, prm_regions_label), say so, with the
 * point of the start's region nearest to the goal (in --srs), instead of
 * blaming the roadmap; when they share a region and the roadmap search
 * found no way, say that the roadmap is what is too sparse. Keeps st. */
static trv_status explain_unreachable(trv_ctx *ctx, const prm_mission_opts *o, const prm_terrain *t,
                                      const double xy[4], trv_status st)
{
    long cs = prm_cell_at(t, xy[0], xy[1]), cg = prm_cell_at(t, xy[2], xy[3]);
    if (st != TRV_ERR_DATA || cs < 0 || cg < 0 || !prm_cell_go(t, cs) || !prm_cell_go(t, cg))
        return st;
    char keep[1024];
    snprintf(keep, sizeof keep, "%s", trv_errmsg(ctx));
    prm_regions rg;
    /* the regions read class and GO/NOGO alone (prm_cell_go: on a lazy
     * terrain those two layers' tiles, not the rest) */
    if (prm_regions_label(ctx, t, &rg)) {
        trv_error(ctx, st, "%s", keep);
        return st;
    }
    if (prm_terrain_status(ctx, t)) {
        prm_regions_clear(&rg);
        trv_error(ctx, st, "%s", keep);
        return st;
    }
    int a = rg.label[cs], b = rg.label[cg];
    double nx, ny;
    if (a != b && prm_regions_nearest(t, &rg, a, xy[2], xy[3], &nx, &ny)) {
        double d = hypot(nx - xy[2], ny - xy[3]), px = nx, py = ny;
        char *wkt = NULL;
        geo_ct *ct = NULL;
        int ok = 0;
        if (!geo_crs_wkt(ctx, o->srs, &wkt) && !geo_ct_create(ctx, t->grid->wkt, wkt, &ct))
            geo_ct_points(ct, 1, &px, &py, &ok);
        free(wkt);
        geo_ct_free(ct);
        trv_error(ctx, st,
                  "the start and the goal lie in different GO regions: no path on the map joins them (the start's "
                  "region holds %ld cells, the goal's %ld); the point of the start's region nearest to the goal is "
                  "%.6f,%.6f (%s), %.0f m from it",
                  rg.size[a], rg.size[b], ok ? px : nx, ok ? py : ny, ok ? o->srs : "the terrain's CRS", d);
    } else if (a == b && strstr(keep, "roadmap")) {
        trv_error(ctx, st, "%s; the start and the goal lie in one GO region (%ld cells): a raster path joins them, "
                  "the roadmap is too sparse there (or use --grid)", keep, rg.size[a]);
    } else {
        trv_error(ctx, st, "%s", keep);
    }
    prm_regions_clear(&rg);
    return st;
}

static trv_status plan_all(trv_ctx *ctx, const prm_mission_opts *o, const prm_terrain *t, const prm_roadmap *r,
                           prm_mission *m)
{
    double xy[4] = {0};
    trv_status st = prm_mission_ends(ctx, o, t->grid, xy);
    if (o->wp.n)
        return st ? st : prm_mission_legs(ctx, o, t, r, xy, m); /* legs.c */
    prm_strategy plan[4] = {o->strategy};
    int nplan = 1;
    if (o->compare) {
        plan[0] = PRM_MDR, plan[1] = PRM_MSR, plan[2] = PRM_MMCR, plan[3] = PRM_TIME;
        nplan = 4;
    }
    if (!st && t->zones)
        st = prm_zones_ends(ctx, t->zones, xy);
    int done = 0, zoned = 0;
    for (; done < nplan && !st; done++)
        st = plan_roadmap(ctx, o, t, r, xy, plan[done], m);
    if (st == TRV_ERR_DATA && t->zones && done > 0) /* which zone cuts the route */
        st = prm_zones_explain(ctx, t, r, xy, plan[done - 1], &o->weights, o->admissible,
                               prm_grid_max_bytes(o->grid_memory), st, &zoned);
    if (o->alt.k > 1 && !st)
        st = plan_alternatives(ctx, o, t, r, xy, m);
    for (int k = 0; k < nplan && o->grid && !st; k++)
        st = plan_grid(ctx, o, t, xy, plan[k], m);
    if (!zoned)
        st = explain_unreachable(ctx, o, t, xy, st);
    /* what the route files read along the routes, and any tile that could not be read */
    for (int k = 0; k < m->n && !st; k++)
        st = prm_terrain_need_line(ctx, t, m->routes[k].path.x, m->routes[k].path.y, m->routes[k].path.n, 1);
    /* a tile that could not be read (NOGO since) is the cause of any failure after it: it is named */
    trv_status ts = prm_terrain_status(ctx, t);
    return ts ? ts : st;
}

/* The hierarchical index beside the roadmap (a tiled build's, hier.h),
 * NULL without one; one that does not fit the roadmap: NULL and why in
 * m->hier_note. */
static trv_status load_hier(trv_ctx *ctx, const char *roadmap, const prm_roadmap *r, prm_hier **h, prm_mission *m)
{
    char *path = prm_hier_path(roadmap);
    if (!path)
        return trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
    trv_status st = access(path, F_OK) ? TRV_OK : prm_hier_read(ctx, path, r, h);
    free(path);
    if (st == TRV_ERR_DATA || st == TRV_ERR_IO) {
        snprintf(m->hier_note, sizeof m->hier_note, "%s: searching the whole roadmap", trv_errmsg(ctx));
        st = TRV_OK;
    }
    return st;
}

static void hier_note(prm_mission *m, const prm_mission_opts *o, const prm_hier *h, const prm_roadmap *r)
{
    if (m->hier_searches > 0)
        snprintf(m->hier_note, sizeof m->hier_note,
                 "%d search%s on the hierarchical index (%d tiles of %d cells, %d border nodes): %ld of the "
                 "roadmap's %d edges read",
                 m->hier_searches, m->hier_searches > 1 ? "es" : "", h->ntiles, h->tile, h->border_start[h->ntiles],
                 m->hier_edges, r->nedges);
    else
        snprintf(m->hier_note, sizeof m->hier_note,
                 "the hierarchical index was not used: %s searches the whole roadmap (docs/method.md §4.13)",
                 o->wp.n ? "a route with waypoints"
                 : o->alt.k > 1 ? "--alternatives"
                 : "mmcr with the paper's heuristic (or other weights)");
}

trv_status prm_mission_run(trv_ctx *ctx, const prm_mission_opts *o, trv_outset *set, prm_mission *m)
{
    memset(m, 0, sizeof *m);
    trv_status st = prm_mission_opts_check(ctx, o);
    if (st)
        return st;
    prm_terrain t;
    prm_roadmap *r = NULL;
    if ((st = prm_plan_load(ctx, o->roadmap, o->terrain, &t, &r, m->cache_note, sizeof m->cache_note))) {
        memset(m, 0, sizeof *m);
        return st;
    }
    if (!geo_crs_same(r->wkt, t.grid->wkt))
        st = trv_error(ctx, TRV_ERR_CRS, "'%s' is not in the CRS of the terrain '%s'", o->roadmap, o->terrain);
    geo_zones *z = NULL;
    prm_zone_edges ze = {0}; /* the roadmap's mask under the zones, built once for every search (zones.h) */
    if (!st && o->zones)
        st = geo_zones_read_unburnt(ctx, o->zones, o->crossings, o->crossing_radius, t.grid, &z);
    double xy[4];
    if (!st && !isnan(o->risk) && !(st = prm_mission_ends(ctx, o, t.grid, xy)))
        st = prm_risk_zones(ctx, &t, o, xy, &z); /* risk.h: P(NOGO) above --risk as nogo zones, with --zones' */
    if (!st && z) /* the burn, tiled: at most PRM_ZONE_TILES tiles held, whatever the grid (zones.h) */
        st = prm_zones_tiles(ctx, z, t.grid, PRM_ZONE_TILES);
    if (!st && z)
        st = prm_roadmap_own(ctx, r); /* the zones' masks and crossings on the roadmap's own arrays, numbered as
                                         the GeoPackage's */
    if (!st && z) {
        t.zones = z;
        t.top_speed_kmh /= z->min_factor; /* the time heuristics stay admissible (zones.h) */
        st = prm_zone_edges_make(ctx, &t, r, o->strategy == PRM_TIME || o->compare, &ze);
        if (!st && !(st = prm_zones_roadmap(ctx, &t, r, &ze))) /* the crossings as nodes */
            t.zone_edges = &ze;
    }
    prm_hier *h = NULL;
    if (!st && !z && !o->flat)
        st = load_hier(ctx, o->roadmap, r, &h, m);
    if (!st) {
        m->direction_aware = t.aniso != NULL;
        snprintf(m->time_note, sizeof m->time_note, "%s", t.time_note);
        m->hier = h;
        st = plan_all(ctx, o, &t, r, m);
        m->hier = NULL;
    }
    if (!st && h)
        hier_note(m, o, h, r);
    prm_hier_free(h);
    if (!st)
        st = prm_profiles_make(ctx, &t, m->routes, m->n, &m->profiles);
    if (!st && o->mc > 0)
        st = prm_risk_mc(ctx, &t, o->terrain, o->mc, m->routes, m->n); /* risk.h */
    if (!st && set)
        st = m->legs ? prm_legs_write(ctx, set, &t, m, &o->out) /* legs_output.c */
                     : prm_outputs_write(ctx, set, &t, m->routes, m->n, &o->out);
    if (st)
        prm_mission_clear(m);
    prm_roadmap_free(r);
    prm_terrain_clear(&t);
    geo_zones_free(z);
    prm_zone_edges_clear(&ze);
    return st;
}
