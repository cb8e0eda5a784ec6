/* The local planners in the run: every PERIOD_S the way ahead (the route
 * to the local goal, lookahead_m along it) is checked against the
 * obstacle points; free, the path follower drives; blocked, the vehicle's
 * planner (VFH+, VFH*, vfh*-wu2020, DWA) gives the command; a dead end
 * (no direction) stops it and asks the seen map's re-planning (seen.c)
 * for a way round. Also the clearance metrics. docs/method.md §5.12. */
#include "local_planner.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define PERIOD_S 0.1
#define REPLAN_GAP_S 2.0
#define MAX_DEADEND_REPLANS 500
#define CREEP_MS 0.3
#define STALL_S 10.0   /* no progress along the route for this long while the planner drives: a dead end */
#define STALL_M 1.0
#define HAND_BACK 10   /* decisions in a row with the way free before the follower drives again */

enum { MODE_FOLLOW = 0, MODE_DIR, MODE_DWA, MODE_STOP };

struct sim_local {
    sim_vfh_cfg cfg;
    sim_dwa_cfg dwa;
    unsigned char bin[SIM_POLAR_MAX];
    int mode;
    double R, look;         /* window and local goal distance (m) */
    double dir, prev, dwa_v, dwa_w, d_stop;
    double v_cap;           /* the follower's speed cap after a dead end's re-plan (INFINITY: none) */
    double next_t, next_replan_t;
    double best_s, best_t;  /* the farthest along the route so far, and when */
    double path_len;        /* the path's length then (another: a new path) */
    int free_run;           /* decisions in a row that found the way free */
    double *pts;
    int npts, cap;
    double cpu_s;           /* thread CPU time in decide() */
    long decisions, planned; /* decisions taken; of those, by the planner */
    double clear_min;       /* INFINITY until an obstacle is within the window */
    double *obs_min;        /* per obstacle of the run */
    int nobs;
};

static double wrap(double a) { return atan2(sin(a), cos(a)); }

trv_status sim_local_lambda_parse(trv_ctx *ctx, const char *path, long line, const char *id, const char *s,
                                  sim_local_spec *spec)
{
    static const char *const cond[] = {"", "lambda1 > lambda2", "lambda4 > lambda5", "lambda3 lambda1 < lambda4",
                                       "lambda3 lambda2 < lambda5", "every lambda > 0"};
    double l[5];
    char *end;
    const char *p = s;
    for (int i = 0; i < 5; i++) {
        l[i] = strtod(p, &end);
        if (end == p || !isfinite(l[i]) || (i < 4 && *end != ',') || (i == 4 && *end))
            return trv_error(ctx, TRV_ERR_FORMAT, "%s:%ld: vehicle '%s': local_lambda expects 5 numbers l1,l2,l3,l4,l5",
                             path, line, id);
        p = end + 1;
    }
    int bad = sim_wu_lambda_check(l);
    if (bad)
        return trv_error(ctx, TRV_ERR_FORMAT,
                         "%s:%ld: vehicle '%s': local_lambda breaks the condition %s (Wu et al. 2020)", path, line,
                         id, cond[bad]);
    memcpy(spec->lambda, l, sizeof l);
    return TRV_OK;
}

trv_status sim_local_dwa_check(trv_ctx *ctx, const char *path, long line, const char *id,
                               const sim_local_spec *spec)
{
    if (spec->kind != SIM_LOCAL_DWA)
        return trv_error(ctx, TRV_ERR_FORMAT,
                         "%s:%ld: vehicle '%s': local_dwa_heading, local_dwa_clearance and local_dwa_velocity are "
                         "for local_planner = dwa",
                         path, line, id);
    if (!(spec->dwa_weights[0] > 0))
        return trv_error(ctx, TRV_ERR_FORMAT,
                         "%s:%ld: vehicle '%s': local_dwa_heading must be > 0 (without it DWA is not drawn toward "
                         "its goal)",
                         path, line, id);
    return TRV_OK;
}

trv_status sim_local_init(trv_ctx *ctx, sim_veh *v)
{
    const sim_local_spec *sp = &v->spec->local;
    if (!sp->given)
        return TRV_OK;
    struct sim_local *L = calloc(1, sizeof *L);
    if (!L)
        return trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
    const sim_body *b = &v->body;
    /* the points are cell centres, an obstacle anywhere in its cell: half the cell's diagonal */
    double cell = v->t->cell_m, r_rs = hypot(b->length_m / 2, b->width_m / 2) + sp->safety_m + cell * M_SQRT1_2;
    /* unset (0): 15 m and 10 m, or enough cells on a coarse grid */
    L->R = sp->window_m > 0 ? sp->window_m : fmax(15, r_rs + 3 * cell);
    L->look = sp->lookahead_m > 0 ? sp->lookahead_m : fmax(10, 2 * cell);
    if (L->R <= r_rs + cell) {
        double R = L->R;
        free(L);
        return trv_error(ctx, TRV_ERR_FORMAT,
                         "vehicle '%s': local_window_m %g must exceed r_rs + one cell (%.2f m: half diagonal + "
                         "local_safety_m + half a cell's diagonal + one cell of %g m)",
                         v->spec->id, R, r_rs + cell, cell);
    }
    sim_vfh_cfg_default(&L->cfg, sp->kind == SIM_LOCAL_WU2020 ? 180 : 72, L->R, r_rs);
    L->cfg.depth = sp->depth;
    L->cfg.step_m = L->look / sp->depth;
    memcpy(L->cfg.wu_lambda, sp->lambda, sizeof sp->lambda);
    double w_max = b->kind == SIM_ACKERMANN ? b->top_speed_ms * tan(b->max_steer_rad) / b->wheelbase_m : 1.0;
    L->dwa = (sim_dwa_cfg){.v_max = b->top_speed_ms, .acc = 2, .dec = 2, .w_max = w_max,
                           .w_acc = w_max / fmax(b->tau_steer_s, 0.25),
                           .kappa_max = b->kind == SIM_ACKERMANN ? tan(b->max_steer_rad) / b->wheelbase_m : 0,
                           .dt = 0.5, .horizon_s = 3, .r_rs = r_rs, .dist_max = L->R, .nv = 9, .nw = 21,
                           .w_heading = sp->dwa_weights[0], .w_dist = sp->dwa_weights[1],
                           .w_vel = sp->dwa_weights[2], .lag_s = b->tau_speed_s + PERIOD_S};
    L->clear_min = INFINITY;
    L->v_cap = INFINITY;
    L->prev = NAN;
    v->local = L;
    return TRV_OK;
}

void sim_local_free(sim_veh *v)
{
    if (!v->local)
        return;
    free(v->local->pts);
    free(v->local->obs_min);
    free(v->local);
    v->local = NULL;
}

int sim_local_points(const sim_veh *v, double x, double y, double R, int nogo, double **pts, int *cap)
{
    const prm_terrain *t = v->t;
    const geo_grid *g = t->grid;
    int n = 0, k = (int)ceil(R / t->cell_m) + 1;
    long c0 = prm_cell_at(t, x, y);
    if (c0 < 0)
        return 0;
    int cc = (int)(c0 % g->nx), rc = (int)(c0 / g->nx);
    for (int r = rc - k; r <= rc + k; r++)
        for (int c = cc - k; c <= cc + k; c++) {
            if (r < 0 || r >= g->ny || c < 0 || c >= g->nx)
                continue;
            long i = (long)r * g->nx + c;
            int seen = v->has_seen && v->seen.blocked[i];
            if (!seen && (!nogo || prm_cell_go(t, i)))
                continue;
            double px = geo_grid_x(g, c), py = geo_grid_y(g, r);
            if (hypot(px - x, py - y) > R)
                continue;
            if (n == *cap) {
                int nc = *cap ? 2 * *cap : 256;
                double *p = realloc(*pts, 2 * (size_t)nc * sizeof *p);
                if (!p)
                    return n; /* out of memory: the points so far */
                *pts = p, *cap = nc;
            }
            (*pts)[2 * n] = px, (*pts)[2 * n + 1] = py;
            n++;
        }
    return n;
}

/* The smallest distance from the route ahead (s0 to s0 + look, every
 * 0.5 m, and the straight line to its start from (x, y)) to a point. */
static double way_clearance(const sim_path *p, double x, double y, double s0, double look, const double *pts,
                            int npts)
{
    double dmin = INFINITY, px, py;
    sim_path_point(p, s0, &px, &py);
    double lead = hypot(px - x, py - y);
    int nl = (int)ceil(lead / 0.5);
    for (int j = 0; j <= nl; j++) {
        double f = nl ? (double)j / nl : 0, qx = x + f * (px - x), qy = y + f * (py - y);
        for (int i = 0; i < npts; i++)
            dmin = fmin(dmin, hypot(pts[2 * i] - qx, pts[2 * i + 1] - qy));
    }
    for (double s = s0; s <= s0 + look; s += 0.5) {
        sim_path_point(p, s, &px, &py);
        for (int i = 0; i < npts; i++)
            dmin = fmin(dmin, hypot(pts[2 * i] - px, pts[2 * i + 1] - py));
    }
    return dmin;
}

/* Free distance ahead along direction a: to the first point whose
 * r_rs-disk the line from (x, y) enters (INFINITY: none); outside: only
 * the disks (x, y) is not in already. */
static double stop_distance_in(double x, double y, double a, double r_rs, const double *pts, int npts, int outside)
{
    double c = cos(a), s = sin(a), d = INFINITY;
    for (int i = 0; i < npts; i++) {
        double dx = pts[2 * i] - x, dy = pts[2 * i + 1] - y;
        double along = dx * c + dy * s, lat = -dx * s + dy * c;
        if (outside && hypot(dx, dy) < r_rs)
            continue;
        if (along > 0 && fabs(lat) < r_rs)
            d = fmin(d, fmax(0, along - sqrt(r_rs * r_rs - lat * lat)));
    }
    return d;
}

static double stop_distance(double x, double y, double a, double r_rs, const double *pts, int npts)
{
    return stop_distance_in(x, y, a, r_rs, pts, npts, 0);
}

/* The speed that stops within free length d (decel a): 0 below 0.2 m,
 * else sqrt(2 a d), at least CREEP_MS. */
static double stop_speed(double a, double d) { return d < 0.2 ? 0 : fmax(CREEP_MS, sqrt(2 * a * d)); }

/* A dead end: the vehicle stops; every REPLAN_GAP_S the seen map's
 * re-planning (local detour, else global) from where it stands. */
static void dead_end(trv_ctx *ctx, sim_run *r, int k)
{
    sim_veh *v = &r->v[k];
    struct sim_local *L = v->local;
    if (r->t_now < L->next_replan_t || !v->has_seen || !r->sc->replan)
        return;
    L->next_replan_t = r->t_now + REPLAN_GAP_S;
    prm_path np = {0};
    double wall = 0;
    int local = 0;
    trv_status st = v->m.replans >= MAX_DEADEND_REPLANS
                        ? TRV_ERR_DATA
                        : sim_replan(r->quiet, &v->seen, v->t, &v->path, v->s_along, v->s.x, v->s.y, &np, &wall,
                                     &local);
    v->m.replan_wall_s += wall;
    if (!st && !(st = sim_veh_path(ctx, v, np.x, np.y, np.n)) && !(st = sim_veh_profile(ctx, r, v))) {
        v->m.replans++;
        v->hint_ctrl = v->hint_true = 0;
        v->s_along = 0;
        char d[192];
        snprintf(d, sizeof d, "\"n\": %d, \"scope\": \"%s\", \"length_m\": %.1f, \"expanded\": %ld, \"why\": \"dead_end\"",
                 v->m.replans, local ? "local" : "global", v->path.s[v->path.n - 1], np.expanded);
        sim_run_note(r, k, SIM_EV_REPLAN, d);
        L->mode = MODE_FOLLOW;
    } else {
        sim_run_note(r, k, SIM_EV_STUCK, "\"reason\": \"dead end, no path around what was seen\"");
        sim_run_stop(r, k, "stuck");
    }
    prm_path_clear(&np);
}

/* After a dead end's re-plan the follower drives while the way may still
 * be blocked (until the next decision): its speed is capped to stop
 * before the first r_rs disk it is not in yet along the heading (else
 * each re-plan let it creep on, into the obstacle; the disks it is in
 * already, where DWA may leave it, do not hold it). */
static void follow_cap(const sim_run *r, struct sim_local *L, const sim_state *est)
{
    if (L->mode == MODE_FOLLOW)
        L->v_cap = stop_speed(r->sc->decel_ms2, stop_distance_in(est->x, est->y, est->heading, L->cfg.polar.r_rs,
                                                                 L->pts, L->npts, 1));
}

/* The decision of one period: follow, a direction, a DWA arc, or stop. */
static void decide(trv_ctx *ctx, sim_run *r, int k, const sim_state *est)
{
    sim_veh *v = &r->v[k];
    struct sim_local *L = v->local;
    const sim_local_spec *sp = &v->spec->local;
    double r_rs = L->cfg.polar.r_rs;
    double len = v->path.s[v->path.n - 1];
    if (v->s_along > L->best_s + STALL_M || len != L->path_len || v->yielding || v->gw.hold)
        L->best_s = v->s_along, L->best_t = r->t_now, L->path_len = len; /* on, a new path, or held */
    /* the way (seen obstacles only: the route keeps out of NOGO itself): the
     * route ahead, and the line along the heading over the stopping distance */
    double sv = fmax(v->s.v, 0), brake = sv * sv / (2 * r->sc->decel_ms2) + sv * (v->body.tau_speed_s + PERIOD_S) + 1;
    L->npts = sim_local_points(v, est->x, est->y, L->look + r_rs + brake, 0, &L->pts, &L->cap);
    int is_free = way_clearance(&v->path, est->x, est->y, v->s_along, L->look, L->pts, L->npts) > r_rs &&
                  stop_distance(est->x, est->y, est->heading, r_rs, L->pts, L->npts) > brake;
    L->free_run = is_free ? L->free_run + 1 : 0;
    if (is_free && (L->mode == MODE_FOLLOW || L->free_run >= HAND_BACK)) {
        L->mode = MODE_FOLLOW;
        L->prev = NAN;
        L->v_cap = INFINITY;
        return;
    }
    double reach = L->R + (sp->kind == SIM_LOCAL_VFH_PLUS ? 0 : L->look);
    L->npts = sim_local_points(v, est->x, est->y, reach, 1, &L->pts, &L->cap);
    double tx, ty;
    sim_path_point(&v->path, v->s_along + L->look, &tx, &ty);
    const sim_body *b = &v->body;
    sim_vfh_query q = {est->x, est->y, est->heading, tx, ty, isnan(L->prev) ? est->heading : L->prev,
                       b->kind == SIM_ACKERMANN ? b->wheelbase_m / tan(b->max_steer_rad) : 0, L->pts, L->npts};
    int ok;
    switch (sp->kind) {
    case SIM_LOCAL_VFH_PLUS: ok = sim_vfh_plus(&L->cfg, &q, L->bin, &L->dir); break;
    case SIM_LOCAL_VFH_STAR: ok = sim_vfh_star(&L->cfg, &q, L->bin, &L->dir); break;
    case SIM_LOCAL_WU2020: ok = sim_vfh_star_wu2020(&L->cfg, &q, L->bin, &L->dir); break;
    default:
        ok = sim_dwa(&L->dwa, est->x, est->y, est->heading, v->s.v, v->s.yaw_rate, tx, ty, L->pts, L->npts,
                     &L->dwa_v, &L->dwa_w);
        break;
    }
    if (ok) {
        L->mode = MODE_STOP;
        dead_end(ctx, r, k);
        follow_cap(r, L, est);
        return;
    }
    L->mode = sp->kind == SIM_LOCAL_DWA ? MODE_DWA : MODE_DIR;
    L->prev = L->dir;
    if (r->t_now - L->best_t > STALL_S) { /* going round without getting on: a dead end too */
        L->best_t = r->t_now;
        dead_end(ctx, r, k);
        follow_cap(r, L, est);
        return;
    }
    L->d_stop = stop_distance(est->x, est->y, L->dir, r_rs, L->pts, L->npts);
}

/* The command toward direction L->dir at no more than want, slowed to
 * stop before the first point on the line (decel). */
static void steer_to(const sim_run *r, const sim_veh *v, const sim_state *est, double want, sim_cmd *cmd)
{
    const struct sim_local *L = v->local;
    const sim_body *b = &v->body;
    double e = wrap(L->dir - est->heading);
    double spd = fmin(want, stop_speed(r->sc->decel_ms2, L->d_stop));
    cmd->vy = 0;
    if (b->kind == SIM_MECANUM) { /* holonomic: straight along the direction, heading kept */
        cmd->v = spd * cos(e), cmd->vy = spd * sin(e), cmd->yaw_rate = 0;
        return;
    }
    if (b->kind == SIM_SKID) {
        cmd->yaw_rate = fmax(-1, fmin(1, 2 * e)) / b->slip;
        cmd->v = fabs(e) > M_PI / 3 ? 0 : spd * cos(e);
        return;
    }
    double ld = fmax(r->sc->ctrl.lookahead_min_m, 2.0);
    double kappa = 2 * sin(e) / ld;
    cmd->steer = fabs(e) > M_PI / 2 ? (e > 0 ? b->max_steer_rad : -b->max_steer_rad) : atan(kappa * b->wheelbase_m);
    cmd->v = fabs(e) > M_PI / 2 ? fmin(spd, 1.0) : spd * fmax(0.3, cos(e));
}

void sim_local_command(trv_ctx *ctx, sim_run *r, int k, const sim_state *est, double want, sim_cmd *cmd)
{
    sim_veh *v = &r->v[k];
    struct sim_local *L = v->local;
    if (!L || v->spec->local.kind == SIM_LOCAL_NONE)
        return;
    if (r->t_now + 1e-9 >= L->next_t) {
        struct timespec a, b;
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &a);
        L->next_t = r->t_now + PERIOD_S;
        decide(ctx, r, k, est);
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &b);
        L->cpu_s += (b.tv_sec - a.tv_sec) + 1e-9 * (b.tv_nsec - a.tv_nsec);
        L->decisions++;
        L->planned += L->mode != MODE_FOLLOW;
    }
    if (v->phase == 2 || L->mode == MODE_STOP) {
        cmd->v = cmd->vy = cmd->yaw_rate = 0;
        return;
    }
    if (L->mode == MODE_FOLLOW && cmd->v > L->v_cap) { /* after a dead end's re-plan */
        double f = L->v_cap / cmd->v;
        cmd->v *= f, cmd->vy *= f;
    }
    if (L->mode == MODE_DIR) {
        steer_to(r, v, est, want, cmd);
    } else if (L->mode == MODE_DWA) {
        const sim_body *b = &v->body;
        double vv = fmin(L->dwa_v, want), w = L->dwa_w;
        cmd->v = vv, cmd->vy = 0;
        cmd->yaw_rate = b->kind == SIM_SKID ? w / b->slip : w;
        cmd->steer = vv > 1e-6 ? atan(w * b->wheelbase_m / vv) : 0;
    }
}

/* Distance from the box to the point (0 inside). */
static double box_point(const sim_obb *a, double x, double y)
{
    double c = cos(a->heading), s = sin(a->heading), dx = x - a->cx, dy = y - a->cy;
    double lx = fabs(dx * c + dy * s) - a->half_len, ly = fabs(-dx * s + dy * c) - a->half_wid;
    return hypot(fmax(lx, 0), fmax(ly, 0));
}

/* Distance from point (x, y) to segment (ax, ay)-(bx, by). */
static double seg_point(double ax, double ay, double bx, double by, double x, double y)
{
    double ux = bx - ax, uy = by - ay, l2 = ux * ux + uy * uy;
    double f = l2 > 0 ? fmax(0, fmin(1, ((x - ax) * ux + (y - ay) * uy) / l2)) : 0;
    return hypot(ax + f * ux - x, ay + f * uy - y);
}

/* Clearance between the footprint box and obstacle o at time t (0 when
 * they touch). */
static double obstacle_clearance(const sim_obb *box, const sim_obstacle *o, double t)
{
    double ox, oy;
    sim_obstacle_offset(o, t, &ox, &oy);
    if (o->n == 0)
        return fmax(0, box_point(box, o->cx + ox, o->cy + oy) - o->r);
    if (sim_obstacle_hits(o, t, box))
        return 0;
    double d = INFINITY, c = cos(box->heading), s = sin(box->heading), cx[4], cy[4];
    for (int q = 0; q < 4; q++) {
        double al = (q == 0 || q == 3 ? 1 : -1) * box->half_len, ac = (q < 2 ? 1 : -1) * box->half_wid;
        cx[q] = box->cx + c * al - s * ac, cy[q] = box->cy + s * al + c * ac;
    }
    for (int i = 0; i < o->n; i++) {
        int j = (i + 1) % o->n;
        d = fmin(d, box_point(box, o->px[i] + ox, o->py[i] + oy));
        for (int q = 0; q < 4; q++)
            d = fmin(d, seg_point(o->px[i] + ox, o->py[i] + oy, o->px[j] + ox, o->py[j] + oy, cx[q], cy[q]));
    }
    return d;
}

void sim_local_clearance(sim_run *r, int k)
{
    sim_veh *v = &r->v[k];
    struct sim_local *L = v->local;
    if (!L || v->phase != 1)
        return;
    if (r->nobs > L->nobs) { /* obstacles added during the run */
        double *m = realloc(L->obs_min, r->nobs * sizeof *m);
        if (!m)
            return;
        for (int j = L->nobs; j < r->nobs; j++)
            m[j] = INFINITY;
        L->obs_min = m, L->nobs = r->nobs;
    }
    sim_obb box = {v->s.x, v->s.y, v->s.heading, v->body.length_m / 2, v->body.width_m / 2};
    for (int j = 0; j < r->nobs; j++) {
        const sim_obstacle *o = &r->obs[j];
        if (!sim_obstacle_active(o, r->t_now))
            continue;
        double d = obstacle_clearance(&box, o, r->t_now);
        L->obs_min[j] = fmin(L->obs_min[j], d);
        L->clear_min = fmin(L->clear_min, d);
    }
}

void sim_local_write_metrics(FILE *f, const sim_run *r, int k)
{
    static const char *const names[] = {"none", "vfh+", "vfh*", "vfh*-wu2020", "dwa"};
    const sim_veh *v = &r->v[k];
    const struct sim_local *L = v->local;
    if (!L)
        return;
    double sum = 0;
    int passed = 0;
    for (int j = 0; j < L->nobs; j++)
        if (L->obs_min[j] <= L->R)
            sum += L->obs_min[j], passed++;
    fprintf(f, "      \"local_planner\": \"%s\",\n", names[v->spec->local.kind]);
    if (isfinite(L->clear_min))
        fprintf(f, "      \"clearance_min_m\": %.3f,\n", L->clear_min);
    else
        fprintf(f, "      \"clearance_min_m\": null,\n");
    fprintf(f, "      \"clearance_sum_m\": %.3f,\n      \"obstacles_passed\": %d,\n", sum, passed);
}

void sim_local_cpu(const sim_run *r, int k, double *cpu_s, long *decisions, long *planned)
{
    const struct sim_local *L = r->v[k].local;
    *cpu_s = L ? L->cpu_s : 0;
    *decisions = L ? L->decisions : 0;
    *planned = L ? L->planned : 0;
}
