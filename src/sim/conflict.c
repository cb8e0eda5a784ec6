/* Head-on conflicts between vehicles (sim.h "Head-on conflicts";
 * docs/method.md §5.9): found on the paths ahead, resolved by a priority
 * order (file order) and the later vehicle waiting, detouring around the
 * other's reserved cells or parking at a passing place; a deadlock guard. */
#include "sim_priv.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHECK_S 1.0       /* conflicts are looked for every CHECK_S of simulated time */
#define HORIZON_S 20.0    /* T: the reservation horizon (at the vehicle's top speed) */
#define HORIZON_MIN_M 30.0
#define WAIT_LIMIT_S 300.0 /* the deadlock guard */
#define DETOUR_FACTOR 1.5 /* a detour at most 1.5 x the stretch it replaces + 4 clearances */

static double half_diag(const sim_veh *v) { return hypot(v->body.length_m, v->body.width_m) / 2; }

/* c: the centre distance two vehicles keep (radii plus two margins) */
static double clearance(const sim_run *r, const sim_veh *a, const sim_veh *b)
{
    return half_diag(a) + half_diag(b) + 2 * r->sc->margin_m;
}

static double horizon(const sim_veh *v) { return fmax(HORIZON_MIN_M, HORIZON_S * v->body.top_speed_ms); }
static double path_len(const sim_path *p) { return p->s[p->n - 1]; }
static int moving(const sim_veh *v) { return v->phase == 1 && (v->gw.state == SIM_GW_NONE || v->gw.state == SIM_GW_DETOUR); }

void sim_giveway_clear(sim_giveway *g)
{
    sim_path_clear(&g->orig);
    sim_path_clear(&g->ret);
    memset(g, 0, sizeof *g);
}

/* The distance from (x, y) to the stretch [s0, s1] of p (exact, on its
 * segments); (*ux, *uy): the direction of the nearest segment, *sn (may
 * be NULL) the arc length of the nearest point. */
static double stretch_dist_s(const sim_path *p, double s0, double s1, double x, double y, double *ux, double *uy,
                             double *sn)
{
    double best = INFINITY;
    for (int i = 0; i + 1 < p->n; i++) {
        double len = p->s[i + 1] - p->s[i];
        if (p->s[i + 1] < s0 || p->s[i] > s1 || len <= 0)
            continue;
        double dx = (p->x[i + 1] - p->x[i]) / len, dy = (p->y[i + 1] - p->y[i]) / len;
        double u = (x - p->x[i]) * dx + (y - p->y[i]) * dy;
        u = fmin(fmax(u, fmax(s0 - p->s[i], 0)), fmin(s1 - p->s[i], len));
        double d = hypot(p->x[i] + u * dx - x, p->y[i] + u * dy - y);
        if (d < best) {
            best = d, *ux = dx, *uy = dy;
            if (sn)
                *sn = p->s[i] + u;
        }
    }
    return best;
}

static double stretch_dist(const sim_path *p, double s0, double s1, double x, double y, double *ux, double *uy)
{
    return stretch_dist_s(p, s0, s1, x, y, ux, uy, NULL);
}

/* Head-on: a point of a's stretch [a0, a1] within c of b's stretch
 * [b0, b1], the two directions there more than 120 degrees apart. */
static int opposed(const sim_path *a, double a0, double a1, const sim_path *b, double b0, double b1, double c,
                   double ds)
{
    for (double s = a0; s <= a1; s += ds) {
        double x0, y0, x1, y1, ux, uy;
        sim_path_point(a, s - 0.5, &x0, &y0);
        sim_path_point(a, s + 0.5, &x1, &y1);
        double tl = hypot(x1 - x0, y1 - y0);
        if (tl <= 0)
            continue;
        if (stretch_dist(b, b0, b1, (x0 + x1) / 2, (y0 + y1) / 2, &ux, &uy) < c &&
            ((x1 - x0) * ux + (y1 - y0) * uy) / tl < -0.5)
            return 1;
    }
    return 0;
}

static double step_ds(const sim_run *r) { return fmin(1, r->t->cell_m / 4); }

/* The paths of a and b over their horizons meet head-on. */
static int head_on(const sim_run *r, const sim_veh *a, const sim_veh *b)
{
    double ha = horizon(a), hb = horizon(b), c = clearance(r, a, b);
    if (hypot(a->s.x - b->s.x, a->s.y - b->s.y) > ha + hb + c)
        return 0;
    return opposed(&a->path, a->s_along, fmin(a->s_along + ha, path_len(&a->path)), &b->path, b->s_along,
                   fmin(b->s_along + hb, path_len(&b->path)), c, step_ds(r));
}

/* ---- the searches ------------------------------------------------------------------ */

static int allowed(const sim_run *r, const sim_veh *v, long c)
{
    (void)r;
    return c >= 0 && (v->has_seen ? v->seen.mask[c] : prm_cell_go(v->t, c)); /* its own map */
}

static void cell_xy(const prm_terrain *t, long c, double *x, double *y)
{
    const geo_grid *g = t->grid;
    *x = geo_grid_x(g, c % g->nx + 0.5), *y = geo_grid_y(g, c / g->nx + 0.5);
}

/* Window [c0, c1] x [r0, r1] of the cells around two points, padded. */
static void window(const prm_terrain *t, double xa, double ya, double xb, double yb, double pad_m, int w[4])
{
    const geo_grid *g = t->grid;
    double ca = (xa - g->gt[0]) / g->gt[1], cb = (xb - g->gt[0]) / g->gt[1];
    double ra = (ya - g->gt[3]) / g->gt[5], rb = (yb - g->gt[3]) / g->gt[5];
    int pad = (int)ceil(pad_m / t->cell_m);
    w[0] = (int)fmax(0, fmin(ca, cb) - pad), w[1] = (int)fmin(g->nx - 1, fmax(ca, cb) + pad);
    w[2] = (int)fmax(0, fmin(ra, rb) - pad), w[3] = (int)fmin(g->ny - 1, fmax(ra, rb) + pad);
}

/* A* (prm_route_grid_masked, time) for v from (x, y) to (gx, gy) in the
 * window's cells that v may use and that are at least c_res from the
 * stretch [s0, s1] of res (res NULL: none), except within keep_m of
 * (x, y) or of (gx, gy). */
static trv_status plan(sim_run *r, const sim_veh *v, const int w[4], double x, double y, double gx, double gy,
                       const sim_path *res, double s0, double s1, double c_res, double keep_m, prm_path *out)
{
    const geo_grid *g = r->t->grid;
    unsigned char *mask = calloc((size_t)g->nx * g->ny, 1);
    if (!mask)
        return trv_error(r->quiet, TRV_ERR_NOMEM, "out of memory"); /* no plan: no resolution */
    for (int row = w[2]; row <= w[3]; row++)
        for (int col = w[0]; col <= w[1]; col++) {
            long c = (long)row * g->nx + col;
            double cx, cy, ux, uy;
            cell_xy(r->t, c, &cx, &cy);
            mask[c] = allowed(r, v, c) && (!res || hypot(cx - x, cy - y) <= keep_m || hypot(cx - gx, cy - gy) <= keep_m ||
                                           stretch_dist(res, s0, s1, cx, cy, &ux, &uy) >= c_res);
        }
    prm_weights pw;
    prm_weights_default(&pw);
    memset(out, 0, sizeof *out);
    trv_status st = prm_route_grid_masked(r->quiet, v->t, mask, x, y, gx, gy, PRM_TIME, &pw, out);
    free(mask);
    return st;
}

/* v follows (x, y)[0..n) then p's vertices beyond arc length s (p NULL: none). */
static trv_status follow(trv_ctx *ctx, sim_run *r, sim_veh *v, const prm_path *a, const sim_path *p, double s)
{
    int rest = 0;
    if (p)
        while (rest < p->n && p->s[rest] <= s)
            rest++;
    int nn = a->n + (p ? p->n - rest : 0);
    double *x = malloc(nn * sizeof *x), *y = malloc(nn * sizeof *y);
    trv_status st = x && y ? TRV_OK : trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
    if (!st) {
        memcpy(x, a->x, a->n * sizeof *x), memcpy(y, a->y, a->n * sizeof *y);
        if (p && nn > a->n)
            memcpy(x + a->n, p->x + rest, (nn - a->n) * sizeof *x), memcpy(y + a->n, p->y + rest, (nn - a->n) * sizeof *y);
        st = sim_veh_path(ctx, v, x, y, nn);
    }
    if (!st)
        st = sim_veh_profile(ctx, r, v);
    if (!st)
        v->hint_ctrl = v->hint_true = 0, v->s_along = 0;
    free(x), free(y);
    return st;
}

/* Arc length of p's point nearest to (x, y) over [s0, s1]. */
static double nearest_s(const sim_path *p, double s0, double s1, double x, double y, double ds)
{
    double best = INFINITY, sb = s0;
    for (double s = s0; s <= s1; s += ds) {
        double px, py;
        sim_path_point(p, s, &px, &py);
        if (hypot(px - x, py - y) < best)
            best = hypot(px - x, py - y), sb = s;
    }
    return sb;
}

/* ---- the resolutions ------------------------------------------------------------------ */

/* Detour: y plans to its own path past p's position, around p's reserved
 * cells (p's path from its rear over its horizon, grown by c); 1 if taken. */
static int detour(trv_ctx *ctx, sim_run *r, sim_veh *y, const sim_veh *p, trv_status *st)
{
    double c = clearance(r, y, p), cell = r->t->cell_m, len = path_len(&y->path);
    double d = hypot(y->s.x - p->s.x, y->s.y - p->s.y);
    double sj = nearest_s(&y->path, y->s_along, fmin(len, y->s_along + 2 * d + c), p->s.x, p->s.y, step_ds(r));
    double sr = fmin(len, sj + c + 2 * cell), gx, gy;
    sim_path_point(&y->path, sr, &gx, &gy);
    int w[4];
    window(r->t, y->s.x, y->s.y, gx, gy, 2 * c + 20, w);
    prm_path a;
    double s0 = p->s_along - half_diag(p), s1 = fmin(p->s_along + horizon(p), path_len(&p->path));
    if (plan(r, y, w, y->s.x, y->s.y, gx, gy, &p->path, s0, s1, c, c + cell, &a))
        return 0;
    double alen = 0;
    for (int i = 0; i + 1 < a.n; i++)
        alen += hypot(a.x[i + 1] - a.x[i], a.y[i + 1] - a.y[i]);
    int ok = alen <= DETOUR_FACTOR * (sr - y->s_along) + 4 * c;
    if (ok) {
        sim_path old = {0};
        *st = sim_path_set(ctx, &old, y->path.x, y->path.y, y->path.n);
        if (!*st)
            *st = follow(ctx, r, y, &a, &old, sr);
        y->gw.s_end = alen;
        sim_path_clear(&old);
    }
    prm_path_clear(&a);
    return ok;
}

/* A cell where y parks clear of p: at least c + goal tolerance from p's
 * remaining path and beside it (its nearest point between p and p's
 * goal, not at either end: a place beyond p's goal would shut y in
 * behind p parked there), its footprint's cells all usable, clear of the
 * other vehicles and their places. */
static int fits(const sim_run *r, const sim_veh *y, const sim_veh *p, long c, double cc)
{
    const geo_grid *g = r->t->grid;
    double x, yy, ux, uy, sn, len = path_len(&p->path);
    cell_xy(r->t, c, &x, &yy);
    if (stretch_dist_s(&p->path, p->s_along - half_diag(p), len, x, yy, &ux, &uy, &sn) < cc + r->sc->goal_tol_m ||
        sn <= p->s_along || sn >= len - cc)
        return 0;
    int k = (int)ceil(half_diag(y) / r->t->cell_m), col = (int)(c % g->nx), row = (int)(c / g->nx);
    for (int dr = -k; dr <= k; dr++)
        for (int dc = -k; dc <= k; dc++) {
            int rr = row + dr, cl = col + dc;
            if (rr < 0 || cl < 0 || rr >= g->ny || cl >= g->nx || !allowed(r, y, (long)rr * g->nx + cl))
                return 0;
        }
    for (int q = 0; q < r->nv; q++) {
        const sim_veh *o = &r->v[q];
        double need = half_diag(y) + half_diag(o) + r->sc->margin_m;
        if (o != y && o->phase > 0 &&
            (hypot(o->s.x - x, o->s.y - yy) < need ||
             ((o->gw.state == SIM_GW_TO_PLACE || o->gw.state == SIM_GW_AT_PLACE) && hypot(o->gw.px - x, o->gw.py - yy) < need)))
            return 0;
    }
    return 1;
}

/* The nearest fitting cell from y's (breadth first, 8 neighbours, over
 * the cells y may use in the window around y and p, not through p's
 * footprint); -1: none. */
static long find_place(const sim_run *r, const sim_veh *y, const sim_veh *p, const int w[4])
{
    const geo_grid *g = r->t->grid;
    long start = prm_cell_at(r->t, y->s.x, y->s.y), found = -1;
    size_t n = (size_t)g->nx * g->ny;
    unsigned char *seen = calloc(n, 1);
    long *queue = malloc((size_t)(w[1] - w[0] + 1) * (w[3] - w[2] + 1) * sizeof *queue);
    long head = 0, tail = 0;
    double cc = clearance(r, y, p);
    if (seen && queue && start >= 0)
        seen[start] = 1, queue[tail++] = start;
    while (head < tail && found < 0) {
        long c = queue[head++];
        if (fits(r, y, p, c, cc)) {
            found = c;
            break;
        }
        int col = (int)(c % g->nx), row = (int)(c / g->nx);
        for (int d = 0; d < 8; d++) {
            static const int dc[8] = {1, -1, 0, 0, 1, 1, -1, -1}, dr[8] = {0, 0, 1, -1, 1, -1, 1, -1};
            int cl = col + dc[d], rr = row + dr[d];
            long nc = (long)rr * g->nx + cl;
            double x, yy;
            cell_xy(r->t, nc, &x, &yy);
            if (cl < w[0] || cl > w[1] || rr < w[2] || rr > w[3] || seen[nc] || !allowed(r, y, nc) ||
                hypot(x - p->s.x, yy - p->s.y) < half_diag(y) + half_diag(p))
                continue; /* not through p */
            seen[nc] = 1, queue[tail++] = nc;
        }
    }
    free(seen), free(queue);
    return found;
}

/* Passing place: y drives to the nearest place clear of p's path and
 * parks there; 1 if one is found and reached by a plan. */
static int passing_place(trv_ctx *ctx, sim_run *r, sim_veh *y, const sim_veh *p, trv_status *st)
{
    int w[4];
    window(r->t, y->s.x, y->s.y, p->s.x, p->s.y, 2 * clearance(r, y, p) + 20, w);
    long c = find_place(r, y, p, w);
    if (c < 0)
        return 0;
    double px, py;
    cell_xy(r->t, c, &px, &py);
    prm_path a;
    if (plan(r, y, w, y->s.x, y->s.y, px, py, NULL, 0, 0, 0, 0, &a))
        return 0;
    double s_at = y->s_along;
    *st = sim_path_set(ctx, &y->gw.orig, y->path.x, y->path.y, y->path.n);
    if (!*st)
        *st = follow(ctx, r, y, &a, NULL, 0);
    y->gw.px = px, y->gw.py = py, y->gw.s_end = s_at, y->gw.d_place = path_len(&y->path);
    prm_path_clear(&a);
    return 1;
}

/* ---- the conflict's life ---------------------------------------------------------------- */

static const char *const RESOLUTION[] = {"none", "wait", "passing_place", "passing_place", "detour"};

static void note(sim_run *r, int k, int other, const char *role, const char *what, const sim_veh *y)
{
    char d[192], id[64];
    int n = snprintf(d, sizeof d, "\"with\": \"%s\", \"role\": \"%s\", \"resolution\": \"%s\"",
                     sim_json_esc(r->v[other].spec->id, id), role, what);
    if (y && y->gw.state == SIM_GW_TO_PLACE && n > 0 && n < (int)sizeof d)
        snprintf(d + n, sizeof d - n, ", \"place\": [%.2f, %.2f]", y->gw.px, y->gw.py);
    sim_run_note(r, k, SIM_EV_CONFLICT, d);
}

/* y gives way to p: wait where it is (clear of the rest of p's path), a
 * detour, or a passing place; 0 if none, or if p's goal lies on y's way
 * (p would stand there for good). */
static int give_way(trv_ctx *ctx, sim_run *r, int ky, int kp, trv_status *st)
{
    sim_veh *y = &r->v[ky];
    const sim_veh *p = &r->v[kp];
    double ux, uy, s1 = path_len(&p->path), gx = p->path.x[p->path.n - 1], gy = p->path.y[p->path.n - 1];
    if (stretch_dist(&y->path, y->s_along, path_len(&y->path), gx, gy, &ux, &uy) < clearance(r, y, p))
        return 0; /* p stops for good on y's way */
    int state = stretch_dist(&p->path, p->s_along - half_diag(p), s1, y->s.x, y->s.y, &ux, &uy) >= clearance(r, y, p)
                    ? SIM_GW_WAIT
                : detour(ctx, r, y, p, st)        ? SIM_GW_DETOUR
                : passing_place(ctx, r, y, p, st) ? SIM_GW_TO_PLACE
                                                  : SIM_GW_NONE;
    if (state == SIM_GW_NONE || *st)
        return 0;
    y->gw.state = state, y->gw.other = kp, y->gw.t0 = r->t_now;
    return 1;
}

static void deadlock(sim_run *r, int a, int b, const char *what)
{
    note(r, a, b, "gives_way", what, NULL);
    sim_run_stop(r, a, "deadlock");
    if (r->v[b].phase == 1) {
        note(r, b, a, "priority", what, NULL);
        sim_run_stop(r, b, "deadlock");
    }
}

/* A new conflict between a and b (a first in the file): the later one
 * gives way, else the earlier; neither: both stop. */
static trv_status resolve(trv_ctx *ctx, sim_run *r, int a, int b)
{
    trv_status st = TRV_OK;
    int y = give_way(ctx, r, b, a, &st) ? b : !st && give_way(ctx, r, a, b, &st) ? a : -1;
    if (st)
        return st;
    r->v[a].m.conflicts++, r->v[b].m.conflicts++;
    if (y < 0) {
        deadlock(r, b, a, "none");
        return TRV_OK;
    }
    int p = y == a ? b : a;
    const char *what = RESOLUTION[r->v[y].gw.state];
    note(r, y, p, "gives_way", what, &r->v[y]);
    note(r, p, y, "priority", what, NULL);
    return TRV_OK;
}

/* The way back from the place: to y's old path past the place, then on it. */
static trv_status way_back(trv_ctx *ctx, sim_run *r, sim_veh *y)
{
    sim_giveway *g = &y->gw;
    double len = path_len(&g->orig), c = 2 * half_diag(y) + 2 * r->sc->margin_m, gx, gy;
    double sn = nearest_s(&g->orig, fmax(0, g->s_end - g->d_place), fmin(len, g->s_end + g->d_place), g->px, g->py,
                          step_ds(r));
    double sr = fmin(len, sn + c + 2 * r->t->cell_m);
    sim_path_point(&g->orig, sr, &gx, &gy);
    int w[4];
    window(r->t, y->s.x, y->s.y, gx, gy, c + 20, w);
    prm_path a;
    trv_status st = plan(r, y, w, y->s.x, y->s.y, gx, gy, NULL, 0, 0, 0, 0, &a);
    if (st)
        return st;
    int rest = 0;
    while (rest < g->orig.n && g->orig.s[rest] <= sr)
        rest++;
    int nn = a.n + g->orig.n - rest;
    double *x = malloc(nn * sizeof *x), *yy = malloc(nn * sizeof *yy);
    st = x && yy ? TRV_OK : trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
    if (!st) {
        memcpy(x, a.x, a.n * sizeof *x), memcpy(yy, a.y, a.n * sizeof *yy);
        memcpy(x + a.n, g->orig.x + rest, (nn - a.n) * sizeof *x);
        memcpy(yy + a.n, g->orig.y + rest, (nn - a.n) * sizeof *yy);
        st = sim_path_set(ctx, &g->ret, x, yy, nn);
    }
    free(x), free(yy);
    prm_path_clear(&a);
    return st;
}

/* y may go on: no moving vehicle's path ahead meets, head-on, the path
 * it would take (the way back from a place, or its own). */
static int clear_to_go(const sim_run *r, int ky)
{
    const sim_veh *y = &r->v[ky];
    const sim_path *mine = y->gw.state == SIM_GW_AT_PLACE ? &y->gw.ret : &y->path;
    double s0 = y->gw.state == SIM_GW_AT_PLACE ? 0 : y->s_along;
    for (int q = 0; q < r->nv; q++) {
        const sim_veh *o = &r->v[q];
        if (q == ky || !moving(o))
            continue;
        if (opposed(mine, s0, fmin(s0 + horizon(y), path_len(mine)), &o->path, o->s_along - half_diag(o),
                    fmin(o->s_along + horizon(o), path_len(&o->path)), clearance(r, y, o), step_ds(r)))
            return 0;
    }
    return 1;
}

/* y has reached its place: within the goal tolerance (it stops there). */
static int parked(const sim_run *r, const sim_veh *y)
{
    return hypot(y->s.x - y->gw.px, y->s.y - y->gw.py) <= r->sc->goal_tol_m;
}

/* One vehicle giving way, one step on: a detour done, parked, released,
 * or the guard. */
static trv_status advance(trv_ctx *ctx, sim_run *r, int k, int check)
{
    sim_veh *y = &r->v[k];
    sim_giveway *g = &y->gw;
    trv_status st = TRV_OK;
    if (g->state == SIM_GW_DETOUR) {
        if (y->s_along >= g->s_end)
            sim_giveway_clear(g);
        return TRV_OK;
    }
    if (r->t_now - g->t0 > WAIT_LIMIT_S) {
        deadlock(r, k, g->other, "deadlock");
        return TRV_OK;
    }
    if (g->state == SIM_GW_TO_PLACE && parked(r, y)) {
        if (way_back(ctx, r, y) == TRV_OK)
            g->state = SIM_GW_AT_PLACE;
        else
            deadlock(r, k, g->other, "deadlock");
    } else if (check && (g->state == SIM_GW_WAIT || g->state == SIM_GW_AT_PLACE) && clear_to_go(r, k)) {
        if (g->state == SIM_GW_AT_PLACE) {
            st = sim_path_set(ctx, &y->path, g->ret.x, g->ret.y, g->ret.n);
            if (!st)
                st = sim_veh_profile(ctx, r, y);
            y->hint_ctrl = y->hint_true = 0, y->s_along = 0;
        }
        sim_giveway_clear(g);
    }
    return st;
}

/* Who commands 0 this step: a vehicle waiting or parked, and a moving one
 * near a vehicle on its way to a passing place or near that place (within
 * 3 c + its braking distance + 2 m) until it has parked. */
static void holds(sim_run *r)
{
    for (int k = 0; k < r->nv; k++) {
        sim_veh *v = &r->v[k];
        v->gw.hold = v->gw.state == SIM_GW_WAIT || v->gw.state == SIM_GW_AT_PLACE;
        for (int q = 0; q < r->nv && moving(v) && !v->gw.hold; q++) {
            const sim_veh *y = &r->v[q];
            if (q == k || y->phase != 1 || y->gw.state != SIM_GW_TO_PLACE)
                continue;
            double d = 3 * clearance(r, v, y) + v->s.v * v->s.v / (2 * r->sc->decel_ms2) + 2;
            v->gw.hold = hypot(v->s.x - y->s.x, v->s.y - y->s.y) < d || hypot(v->s.x - y->gw.px, v->s.y - y->gw.py) < d;
        }
    }
}

static int fresh(const sim_run *r, int k) { return r->v[k].phase == 1 && r->v[k].gw.state == SIM_GW_NONE; }

trv_status sim_conflicts_step(trv_ctx *ctx, sim_run *r, long i)
{
    if (r->nv < 2)
        return TRV_OK;
    long every = lround(CHECK_S / r->sc->step_s);
    int check = i % (every < 1 ? 1 : every) == 0;
    trv_status st = TRV_OK;
    for (int k = 0; k < r->nv && !st; k++)
        if (r->v[k].phase == 1 && r->v[k].gw.state != SIM_GW_NONE)
            st = advance(ctx, r, k, check);
    for (int a = 0; check && !st && a < r->nv; a++)
        for (int b = a + 1; !st && b < r->nv; b++)
            if (fresh(r, a) && fresh(r, b) && head_on(r, &r->v[a], &r->v[b]))
                st = resolve(ctx, r, a, b);
    holds(r);
    return st;
}
