/*
 * risk.h — routes over terrain realisations (issue 17; docs/method.md
 * §4.12): trv-route --risk ALPHA and --mc N.
 *
 * --risk ALPHA (0 <= ALPHA < 1): the route uses only cells with
 * P(NOGO) <= ALPHA, P(NOGO) from TERRAIN/p_nogo.tif (trv-speed
 * --realizations). Applied at query time as the zones are (zones.h): each
 * row's run of cells with P(NOGO) > ALPHA becomes a nogo rectangle, the
 * run's cells inset by 1e-6 cell on every side (so that it touches no
 * other cell), and the roadmap's edges, the end links, the corridor, the
 * smoothing and --grid obey it as they obey a nogo polygon of --zones:
 * the roadmap built without the rule, the rule enforced on every piece.
 * The cells of the stops (start, goal, each --via/--visit waypoint) are
 * exempt: the mission is given there. With --zones the rectangles join
 * the file's zones (one set: one edge mask per query, zones.h), so both
 * apply to every strategy, --alternatives and every leg of --via/--visit.
 *
 * --mc N: each route evaluated on the first N realisations of
 * TERRAIN/dem_sim.tif (trv-krige --nsim; band k = realisation k on the
 * run's grid). In realisation k each cell the route crosses (its pieces,
 * prm_path_pieces) gets the speed and reason of tm_real_cell (the speed
 * model of the run's copies, speed.tif's rule: the worse direction); the
 * route is passable when every cell crossed over more than PRM_GRAZE_M is
 * GO, and then takes T_k = sum len_m / v_k. Per route:
 *   p_pass = #{passable k} / N
 *   time p10, p50, p90 (h): the quantiles of T_k over the passable
 *   realisations (realize.h's rule); NAN when none is passable.
 * These times use the worse direction's speed, so they compare routes
 * with each other, not with time_h when the terrain is direction-aware.
 */
#ifndef PRM_RISK_H
#define PRM_RISK_H

#include "prm.h"
#include "zones.h"

/* The nogo zones of o->risk on t's grid from o->terrain's p_nogo.tif (its
 * grid must be t's: TRV_ERR_GRID naming both) and gonogo.tif; the stops'
 * cells (xy: start x, y, goal x, y in t's CRS; o->wp in o->srs) exempt.
 * *z NULL (no --zones): a new set named "DIR/p_nogo.tif at --risk A", or
 * NULL when no cell is above alpha (every query as without --risk). *z
 * the --zones read: the rectangles added to it under that name
 * (added_name, geo/zones.h), its index rebuilt; the burn is the
 * caller's, once every zone is in (prm_zones_tiles). */
trv_status prm_risk_zones(trv_ctx *ctx, const prm_terrain *t, const prm_mission_opts *o, const double xy[4],
                          geo_zones **z);

/* --mc nsim for routes[0..n-1]: stats.mc_n, p_pass and time_q_h of each
 * (prm_stats). dir/dem_sim.tif must hold at least nsim bands on t's grid
 * (TRV_ERR_DATA "'DIR/dem_sim.tif' holds 5 realisations, --mc asks for 20"). */
trv_status prm_risk_mc(trv_ctx *ctx, const prm_terrain *t, const char *dir, int nsim, prm_result *routes, int n);

/* route.json's keys of a route with --mc (docs/summaries.md):
 * mc_realizations, p_passable, time_p10_h, time_p50_h, time_p90_h (null
 * without a passable realisation); nothing without --mc. */
struct trv_json;
void prm_risk_json(struct trv_json *js, const prm_stats *s);

#endif
