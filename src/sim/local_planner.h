/*
 * local_planner.h — local obstacle avoidance for trv-sim (docs/method.md
 * §5.12): VFH+, VFH*, the improved VFH* of Wu, Dai & Yang (2020) and DWA,
 * chosen per vehicle by the scenario key local_planner (sim.h).
 *
 * Sources (read, not copied):
 *   VFH+   I. Ulrich, J. Borenstein, "VFH+: Reliable obstacle avoidance for
 *          fast mobile robots", ICRA 1998, 1572-1577.
 *   VFH*   I. Ulrich, J. Borenstein, "VFH*: Local obstacle avoidance with
 *          look-ahead verification", ICRA 2000, 2505-2511.
 *   wu2020 M. Wu, S.-L. Dai, C. Yang, "Mixed reality enhanced user
 *          interactive path planning for omnidirectional mobile robot",
 *          Appl. Sci. 10(3):1135, 2020 (improved VFH*).
 *   DWA    D. Fox, W. Burgard, S. Thrun, "The dynamic window approach to
 *          collision avoidance", IEEE Robot. Autom. Mag. 4(1):23-33, 1997.
 *
 * Scenario keys of a [vehicle.ID] section (sim.h):
 *   local_planner      none|vfh+|vfh*|vfh*-wu2020|dwa (no key: none, and
 *                      no clearance metrics; none given: the follower as
 *                      without the key, with the clearance metrics)
 *   local_window_m     R, the histograms' window and DWA's dist cap
 *                      (default max(15 m, r_rs + 3 cells); must exceed
 *                      r_rs + 1 cell: an error at the run's start)
 *   local_lookahead_m  the local goal's distance along the route, and
 *                      the look-ahead tree's reach n_g d_s (default
 *                      max(10 m, 2 cells))
 *   local_safety_m     the safety distance added to the footprint's half
 *                      diagonal and half the cell's diagonal: r_rs (0.5)
 *   local_depth        n_g of VFH* and wu2020 (3; 1 to 8)
 *   local_lambda       wu2020's l1,l2,l3,l4,l5 (5,3,0.5,3,2), checked
 *                      against the paper's conditions
 *   local_dwa_heading, local_dwa_clearance, local_dwa_velocity
 *                      DWA's weights alpha, beta, gamma of G (0.5, 1,
 *                      0.5; each 0 to 100, heading > 0; local_planner =
 *                      dwa only)
 *
 * Obstacle points: the centres of the cells the vehicle knows to be
 * impassable (its seen map's blocked cells, and its map's NOGO cells)
 * within the window. Directions are sectors of width alpha counted
 * counter-clockwise from east: sector k is centred on k alpha.
 */
#ifndef SIM_LOCAL_PLANNER_H
#define SIM_LOCAL_PLANNER_H

#include "sim_priv.h"

#define SIM_POLAR_MAX 180 /* sectors at most (alpha >= 2 degrees) */

/* ---- polar histograms (polar_histogram.c) --------------------------------- */

/* Window radius R (m) and enlargement radius r_rs = vehicle radius +
 * safety distance (+ half the cell's diagonal: the points are cell
 * centres, an obstacle anywhere in its cell), n sectors. */
typedef struct sim_polar_cfg {
    int n;
    double R, r_rs;
} sim_polar_cfg;

/* Primary polar histogram at (x, y) (VFH+ eq. 1-5): every point at
 * distance d <= R, bearing beta, adds its magnitude
 *   m = c^2 (a - b d^2),  c = 1 (a binary seen map),  b = 1 m^-2,
 *   a = 1 + b R^2  (so m = 1 at the window's edge; units m^2)
 * to every sector k with |k alpha - beta| <= gamma, the enlargement angle
 *   gamma = asin(r_rs / d)  (pi / 2 when d <= r_rs: the half plane).
 * h[0..n-1] is overwritten. */
void sim_polar_primary(const sim_polar_cfg *c, double x, double y, const double *pts, int npts, double *h);
/* Binary histogram with hysteresis (VFH+ eq. 7): bin[k] = 1 where
 * h[k] > t_high, 0 where h[k] < t_low, unchanged in between (bin holds
 * the previous one; all 0 the first time). */
void sim_polar_binary(const double *h, int n, double t_low, double t_high, unsigned char *bin);
/* Masked histogram (VFH+ §2.3): the directions the vehicle can reach
 * with its turning radius r_turn (0: none, Mecanum and skid) going
 * forward from heading theta. The trajectory circles' centres lie r_turn
 * left and right; a point closer than r_turn + r_rs to the right centre
 * (bearing right of theta) limits the right side at its bearing, the
 * left likewise; mask[k] = 1 (blocked) where bin[k] = 1 or k alpha is not
 * between the two limits (through theta). */
void sim_polar_masked(const sim_polar_cfg *c, const unsigned char *bin, double x, double y, double theta,
                      double r_turn, const double *pts, int npts, unsigned char *mask);
/* Sector of direction a (rad), and the circular sector distance
 * Delta(c1, c2) = min(|c1 - c2|, n - |c1 - c2|). */
int sim_polar_sector(int n, double a);
int sim_polar_delta(int n, int c1, int c2);
/* Free valleys of mask: runs of 0 (circular): start (right edge) and
 * length in sectors; returns their number (at most cap); a mask with no
 * blocked sector is one valley of length n starting at 0. */
int sim_polar_valleys(const unsigned char *mask, int n, int *start, int *len, int cap);

/* ---- VFH+ (vfh_plus.c) ----------------------------------------------------- */

/* Candidate directions (VFH+ §2.4): a valley wider than s_max sectors
 * gives c_r = k_r + s_max / 2, c_l = k_l - s_max / 2 and the target k_t
 * when it lies between them; a narrower one its middle (k_r + k_l) / 2.
 * Returns their number (at most cap). */
int sim_vfh_candidates(const unsigned char *mask, int n, int kt, int s_max, int *cand, int cap);
/* VFH+ cost (eq. 8): g(c) = mu1 Delta(c, k_t) + mu2 Delta(c, k_theta) + mu3 Delta(c, k_prev). */
double sim_vfh_cost(int n, int c, int kt, int ktheta, int kprev, const double mu[3]);

/* What every VFH planner is told at each decision. */
typedef struct sim_vfh_query {
    double x, y, theta;     /* pose */
    double tx, ty;          /* the local goal */
    double prev;            /* the direction chosen last (rad) */
    double r_turn;          /* 0: no mask */
    const double *pts;      /* obstacle points (2 per point) */
    int npts;
} sim_vfh_query;

typedef struct sim_vfh_cfg {
    sim_polar_cfg polar;
    double t_low, t_high;   /* VFH+ / VFH* thresholds (m^2) */
    int s_max;              /* wide valley (sectors) */
    double mu[3];           /* 5, 2, 2 */
    int depth;              /* VFH*: n_g */
    double step_m;          /* VFH*: the projection step d_s */
    double lambda_d;        /* VFH*: discount lambda (0.8) */
    double wu_lambda[5];    /* vfh*-wu2020: lambda1..5 */
} sim_vfh_cfg;

/* Default configuration for n sectors (72 for VFH+/VFH*, 180 for wu2020). */
void sim_vfh_cfg_default(sim_vfh_cfg *c, int n, double R, double r_rs);

/* VFH+: *dir the chosen direction (rad); returns 0, or -1 when every
 * direction is blocked. bin carries the hysteresis between calls. */
int sim_vfh_plus(const sim_vfh_cfg *c, const sim_vfh_query *q, unsigned char *bin, double *dir);

/* ---- VFH* (vfh_star.c) -------------------------------------------------------- */

/* VFH*: the look-ahead tree (depth n_g) of projected positions (a node at
 * depth i projects d_s along its direction c_i: x_{i+1} = x_i + d_s
 * (cos c_i, sin c_i), heading c_i), each node's candidates from its own
 * masked histogram (no history: blocked where h > t_high), searched with
 * A* on
 *   g(node_{i+1}) = g(node_i) + lambda^i (mu1 Delta(c, k_t,i) + mu2 Delta(c, theta_i) + mu3 Delta(c, c_{i-1}))
 *   h(node_i)     = lambda^i min(mu1, mu2 + mu3) Delta(k_t,i, theta_i)
 * (k_t,i the target's sector seen from the node, theta_i its heading,
 * c_{-1} the previous choice); h is admissible (triangle inequality on
 * the next step, with theta_i = c_{i-1}). The first node of depth n_g
 * popped gives the direction of its first step. Returns 0, or -1 when no
 * branch reaches depth n_g (a dead end within d_t = n_g d_s). */
int sim_vfh_star(const sim_vfh_cfg *c, const sim_vfh_query *q, unsigned char *bin, double *dir);

/* ---- vfh*-wu2020 (vfh_star_wu2020.c) ---------------------------------------- */

/* Dynamic thresholds (wu2020 eq. 5-6): T1 = t_low (1.2) when the
 * histogram's mean <= delta_p (1.6), else t_high (2);
 * T2 = max(T1, gamma d_rt^2), gamma = 0.5, d_rt (m) to the target (the
 * planner passes min(d_rt, R): T2 <= R^2 / 2, VFH+'s t_high, so that a
 * far target does not lift T2 above every magnitude). */
void sim_wu_thresholds(const double *h, int n, double d_rt, double *t1, double *t2);
/* Candidate sieving (alpha = 2 degree sectors): all passable: k_t and
 * k_t +- 20 deg; a valley wider than 80 deg: 15 deg in from each edge, and
 * k_t when it lies between those; 20 to 80 deg: its middle, and k_t when
 * it lies 10 deg or more inside; 10 to 20 deg: its middle; narrower:
 * none. Returns their number (at most cap). */
int sim_wu_candidates(const unsigned char *mask, int n, int kt, int *cand, int cap);
/* Path-tree cost (wu2020 eq. 8-9): the first direction
 *   g(c_n) = l1 Delta(c_n, d_t) + l2 Delta(c_n, d_{n-1}),
 * the following ones
 *   g(c_{n+i}) = l3 g(c_{n+i-1}) + l4 Delta(c_{n+i}, d_t) + l5 Delta(c_{n+i}, d_{n+i-1}). */
double sim_wu_cost_first(const double l[5], int n, int c, int dt, int dprev);
double sim_wu_cost_next(const double l[5], int n, double g_prev, int c, int dt, int dprev);
/* The paper's conditions on lambda: l1 > l2, l4 > l5, l3 l1 < l4,
 * l3 l2 < l5 (and all > 0): 0, or the number (1-4; 5 for a value <= 0)
 * of the first that fails. */
int sim_wu_lambda_check(const double l[5]);
/* The planner: the tree of depth n_g as for VFH*, each node's histogram
 * with its own thresholds (T1, T2) and the sieved candidates, every
 * branch to depth n_g costed by the recursion above; the first direction
 * of the cheapest. Returns 0, or -1 (a dead end). */
int sim_vfh_star_wu2020(const sim_vfh_cfg *c, const sim_vfh_query *q, unsigned char *bin, double *dir);

/* ---- DWA (dwa.c) ----------------------------------------------------------------- */

typedef struct sim_dwa_cfg {
    double v_max, acc, dec;     /* m/s, m/s^2 (speed up, brake) */
    double w_max, w_acc;        /* rad/s, rad/s^2 */
    double kappa_max;           /* curvature limit (1/m; Ackermann: tan(steer) / L; 0: none) */
    double dt;                  /* the window's time (s): one decision period */
    double horizon_s;           /* arcs simulated over this time */
    double r_rs;                /* clearance radius (m) */
    double dist_max;            /* dist is capped here (m) */
    int nv, nw;                 /* samples of the window */
    double w_heading, w_dist, w_vel; /* alpha, beta, gamma */
    double lag_s;               /* reaction: the speed's lag and the decision period */
} sim_dwa_cfg;

/* The dynamic window (Fox et al. §4.1.2): V_d = [v - dec dt, v + acc dt] x
 * [w - w_acc dt, w + w_acc dt], cut to [0, v_max] x [-w_max, w_max]. */
void sim_dwa_window(const sim_dwa_cfg *c, double v, double w, double win[4]);
/* dist(v, w): arc length along the circular arc (straight line when
 * w = 0) from (x, y, theta) before a point comes within r_rs (a point
 * already within r_rs: before the arc comes closer to it), sampled every
 * 0.1 m, the arc followed up to dist_max or one full circle (then
 * dist_max); 0 for v = 0 (standing makes no way). */
double sim_dwa_dist(const sim_dwa_cfg *c, double x, double y, double theta, double v, double w, const double *pts,
                    int npts);
/* heading(v, w) = pi - |angle between the heading after horizon_s and
 * the bearing from there to the target| (rad). */
double sim_dwa_heading(const sim_dwa_cfg *c, double x, double y, double theta, double v, double w, double tx,
                       double ty);
/* The samples: nv speeds evenly over the window, at each nw yaw rates
 * evenly over the window's yaw rates cut to |w| <= kappa_max v (when
 * kappa_max > 0). Admissible: it stops within dist,
 *   v^2 / (2 dec) + v lag_s <= dist(v, w)
 * (Fox et al.'s v <= sqrt(2 dist dec) with lag_s = 0; lag_s covers the
 * actuator lag and the decision period). The best admissible (v, w) maximises
 *   G = w_heading heading / max heading + w_dist dist / max dist + w_vel v / max v
 * (each term normalised by its maximum over the admissible samples).
 * Returns 0, or -1 when no sample is admissible or the best is to stand
 * (v = w = 0: DWA's local minimum in front of an obstacle across the
 * way; the runner treats it as a dead end). */
int sim_dwa(const sim_dwa_cfg *c, double x, double y, double theta, double v, double w, double tx, double ty,
            const double *pts, int npts, double *v_out, double *w_out);

/* ---- in the run (local_planner.c) ------------------------------------------------ */

/* Parse the scenario's local_lambda ("l1,l2,l3,l4,l5") into spec->lambda
 * and check the conditions: errors name file:line and the condition. */
trv_status sim_local_lambda_parse(trv_ctx *ctx, const char *path, long line, const char *id, const char *s,
                                  sim_local_spec *spec);
/* Check the DWA weights of spec->dwa_weights once a local_dwa_* key was
 * given: the planner must be dwa, and the heading weight > 0 (without it
 * nothing draws DWA toward its goal); errors name file:line and the key. */
trv_status sim_local_dwa_check(trv_ctx *ctx, const char *path, long line, const char *id,
                               const sim_local_spec *spec);
/* Set up / free a vehicle's planner state (none: nothing). */
trv_status sim_local_init(trv_ctx *ctx, sim_veh *v);
void sim_local_free(sim_veh *v);
/* After the path follower's command: when the way ahead is blocked, the
 * planner's command instead (see docs/method.md §5.12). */
void sim_local_command(trv_ctx *ctx, sim_run *r, int k, const sim_state *est, double want, sim_cmd *cmd);
/* After the step: the clearance metrics. */
void sim_local_clearance(sim_run *r, int k);
/* metrics.json members of the vehicle (clearance_min_m, clearance_sum_m,
 * local_planner) when its local_planner key was given. */
void sim_local_write_metrics(FILE *f, const sim_run *r, int k);
/* Vehicle k's planner: the thread CPU time of its decisions (s; not
 * deterministic: not in metrics.json), their number, and how many the
 * planner took (the way blocked) rather than the follower. Zeros without
 * a planner. */
void sim_local_cpu(const sim_run *r, int k, double *cpu_s, long *decisions, long *planned);
/* The obstacle points within R of (x, y): cell centres of blocked seen
 * cells and (nogo) NOGO cells; returns their number (*pts grown as
 * needed). */
int sim_local_points(const sim_veh *v, double x, double y, double R, int nogo, double **pts, int *cap);

#endif
