/*
 * The optimality reference (docs/method.md §4.8): the roadmap search's
 * objective solved on the raster itself. A* over cell centres, 16
 * neighbours (8 adjacent, 8 knight moves); a move weighs
 * prm_piece_weight of the straight segment between the two centres, from
 * the exact cells it crosses with the length in each, as prm_piece_measure
 * would measure it. A move that touches a NOGO cell (the length-0 corner
 * cells of a diagonal included) or leaves the grid is forbidden, so a
 * route never squeezes between two NOGO cells that meet at a corner. Like
 * r.cost -k, but with the exact per-cell lengths of the roadmap's edges
 * instead of r.cost's half-and-half averaging.
 *
 * Heuristics (admissible and consistent, since every move weighs at least
 * k times its length and k times the straight-line distance obeys the
 * triangle inequality): mdr: distance; time: distance / top speed;
 * mmcr: kd distance; msr: 1e-3 distance (slopes are >= 0).
 *
 * Memory: per cell one int32 (heap position, or unseen / closed) and one
 * byte (the move that reached it); g lives in the heap entries only (as
 * their tie: among equal f the deeper cell first, core/heap.h),
 * because a closed cell is never relaxed again under a consistent
 * heuristic. 5 bytes a cell: 50 MB for the 10 M cells of a 10 m grid;
 * a corridor search (prm_route_grid_window) keeps them for its window.
 * Paged (prm_route_grid_paged, whole grid): one byte a cell (a status and
 * the move) in tiles, at most N in memory and the rest in a temporary
 * file (grid_pages.h), the open cells' g in a hash, the heap an item per
 * push (lazy deletion); the same pops in the same order (search_paged).
 * A corridor paged (prm_route_grid_escape_paged) keeps the whole grid's
 * ids (their order is the window's) and makes its mask a tile at a time
 * as the tile is first held (prm_corridor_tile), GO cells out of it
 * PS_OUT as CELL_OUT below: the same route, expansions and escape bound.
 * A lazy terrain's tiles then hold only the layers the objective weighs
 * (prm_grid_layers: the moves' weights below read nothing else), those let
 * go spilled to a file and read back from it (prm_terrain_layers).
 *
 * Escape bound (prm_route_grid_escape, for grid_corridor.c): a move from a
 * closed cell p that touches a GO cell outside the mask is not pushed;
 * escape = min over such moves of g(p) + w(move) + h(destination), taken
 * until the goal is closed. Every path that touches a cell outside the
 * mask has a first such move, after a prefix inside the mask costing at
 * least g(p); its rest costs at least h (admissible). Cells closed after
 * the goal have f >= C (consistent h), so escape >= C, the masked
 * optimum, proves C the optimum of the whole grid.
 */
#include "grid_pages.h"
#include "prm_priv.h"
#include "zones.h"

#include "core/heap.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

enum { NMOVES = 16, MAXCROSS = 4, NO_MOVE = 255 };

/* One of the 16 moves: the cells its segment crosses relative to the
 * start cell, in walk order, with the fraction of its length inside each. */
typedef struct move {
    int dc, dr;
    int ncross;
    int cc[MAXCROSS], cr[MAXCROSS];
    double frac[MAXCROSS];
    long off[MAXCROSS];     /* row-major offsets on the terrain's grid */
    long loff[MAXCROSS];    /* the same on the searched window */
    long step;              /* row-major offset of the destination cell on the window */
    double len_m;
    double ux, uy;          /* the heading (east, north), for the direction-aware time */
} move;

typedef struct stencil_walk {
    move *m;
    int overflow;
} stencil_walk;

static int stencil_cell(long cell, double len, void *user)
{
    stencil_walk *s = user;
    move *m = s->m;
    if (m->ncross == MAXCROSS) {
        s->overflow = 1;
        return 1;
    }
    /* the unit grid is 5 x 5 and the move starts in its middle cell (2, 2) */
    m->cc[m->ncross] = (int)(cell % 5) - 2;
    m->cr[m->ncross] = (int)(cell / 5) - 2;
    m->frac[m->ncross] = len / hypot(m->dc, m->dr);
    m->ncross++;
    return 0;
}

/* The cells each move crosses come from the same walk prm_piece_measure
 * uses, run once per move on a unit grid whose coordinates are exact in
 * binary, so that a diagonal hits its corner exactly and reports both
 * corner cells (on real coordinates rounding could slip past one side).
 * The crossing pattern does not depend on the cell size or aspect; the
 * lengths are fractions of the move, scaled by its length in metres. */
static int stencil_build(const prm_terrain *t, long wnx, move moves[NMOVES])
{
    static const int d[NMOVES][2] = {{1, 0},  {0, 1},  {-1, 0}, {0, -1}, {1, 1},   {-1, 1},  {-1, -1}, {1, -1},
                                     {2, 1},  {1, 2},  {-1, 2}, {-2, 1}, {-2, -1}, {-1, -2}, {1, -2},  {2, -1}};
    const geo_grid unit = {.nx = 5, .ny = 5, .gt = {0, 1, 0, 0, 0, 1}, .wkt = NULL};
    const geo_grid *g = t->grid;
    double m_per_unit = t->cell_m / g->gt[1];
    for (int k = 0; k < NMOVES; k++) {
        move *m = &moves[k];
        memset(m, 0, sizeof *m);
        m->dc = d[k][0];
        m->dr = d[k][1];
        stencil_walk s = {m, 0};
        prm_segment_walk(&unit, 2.5, 2.5, 2.5 + m->dc, 2.5 + m->dr, stencil_cell, &s);
        if (s.overflow || m->ncross < 2)
            return -1;
        for (int j = 0; j < m->ncross; j++) {
            m->off[j] = (long)m->cr[j] * g->nx + m->cc[j];
            m->loff[j] = (long)m->cr[j] * wnx + m->cc[j];
        }
        m->step = (long)m->dr * wnx + m->dc;
        m->len_m = hypot(m->dc * g->gt[1], m->dr * g->gt[5]) * m_per_unit;
        m->ux = m->dc * g->gt[1] * m_per_unit / m->len_m;
        m->uy = m->dr * g->gt[5] * m_per_unit / m->len_m;
    }
    return 0;
}

static double sq(double v) { return v * v; }

/* The search's per-cell state (the heap's pos) marks, besides unseen,
 * queued and closed, the cells a move may not touch: NOGO (prm_cell_go),
 * or outside the corridor mask. Set once before the search, so that the
 * innermost test reads the one array the search reads anyway. */
enum { CELL_NOGO = -3, CELL_OUT = -4 };

/* ---- the search ------------------------------------------------------------------ */

/* Check one end: on the map and in a GO cell. */
static trv_status check_end(trv_ctx *ctx, const prm_terrain *t, const char *which, double x, double y, long *cell)
{
    *cell = prm_cell_at(t, x, y);
    if (*cell < 0)
        return trv_error(ctx, TRV_ERR_USAGE, "the %s (%.2f, %.2f) is outside the map", which, x, y);
    if (!prm_cell_go(t, *cell))
        return trv_error(ctx, TRV_ERR_DATA, "the %s (%.2f, %.2f) is in NOGO", which, x, y);
    return TRV_OK;
}

/* The leg between an exact end point and its cell centre lies inside
 * that GO cell (cells are convex and prm_cell_at and the walk floor the
 * same way), so it cannot cross NOGO; it is measured like any move for
 * the objective, and a blocked leg (degenerate input only) is an error. */
static trv_status leg_weight(trv_ctx *ctx, const prm_terrain *t, const char *which, double px, double py, double x0,
                             double y0, double x1, double y1, prm_strategy s, const prm_weights *w, double *weight)
{
    *weight = 0;
    if (x0 == x1 && y0 == y1)
        return TRV_OK;
    prm_piece p;
    prm_piece_measure(t, x0, y0, x1, y1, &p);
    double wt = prm_piece_weight(&p, s, w);
    if (p.blocked || !isfinite(wt))
        return trv_error(ctx, TRV_ERR_DATA, "the %s (%.2f, %.2f) cannot leave its cell", which, px, py);
    *weight = wt;
    return TRV_OK;
}

trv_status prm_route_grid(trv_ctx *ctx, const prm_terrain *t, double sx, double sy, double gx, double gy,
                          prm_strategy s, const prm_weights *w, prm_path *out)
{
    return prm_route_grid_masked(ctx, t, NULL, sx, sy, gx, gy, s, w, out);
}

/* Start and goal in one convex GO cell: the straight piece is the optimum. */
static trv_status one_cell(trv_ctx *ctx, const prm_terrain *t, double sx, double sy, double gx, double gy,
                           prm_strategy s, const prm_weights *w, prm_path *out)
{
    double wt;
    trv_status st;
    if ((st = leg_weight(ctx, t, "start", sx, sy, sx, sy, gx, gy, s, w, &wt)))
        return st;
    out->x = malloc(2 * sizeof *out->x);
    out->y = malloc(2 * sizeof *out->y);
    if (!out->x || !out->y) {
        free(out->x);
        free(out->y);
        memset(out, 0, sizeof *out);
        return trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
    }
    out->x[0] = sx, out->y[0] = sy, out->x[1] = gx, out->y[1] = gy;
    out->n = 2;
    out->objective = wt;
    out->expanded = 1;
    return TRV_OK;
}

/* The heuristic is k_h times the straight-line distance in metres (the
 * factors of the header's list). */
double prm_grid_heuristic_factor(const prm_terrain *t, prm_strategy s, const prm_weights *w)
{
    double k_h;
    switch (s) {
    case PRM_MDR: k_h = 1; break;
    case PRM_TIME: k_h = t->top_speed_kmh > 0 ? 3.6 / t->top_speed_kmh : 0; break;
    case PRM_MMCR: k_h = w->kd; break;
    default: k_h = 1e-3; break;
    }
    return k_h;
}

/* The searched part of the grid: columns c0 .. c0 + nx - 1, rows r0 ..
 * r0 + ny - 1; the search's cell ids (heap, via, mask) are row-major on
 * it, which keeps the order of the terrain's ids (the heap's ties). */
typedef struct grid_window {
    long c0, r0, nx, ny;
} grid_window;

/* One A* over the cells: its inputs, and what it leaves for the trace. */
typedef struct grid_search {
    const prm_terrain *t;
    grid_window win;
    const unsigned char *mask; /* NULL, or per window cell 0 where it counts as NOGO */
    prm_strategy s;
    const prm_weights *w;
    const move *moves;
    long start, goal;          /* window ids */
    double k_h;
    trv_heap h;                /* with pos: one int32 per window cell */
    unsigned char *via;        /* per window cell: the move that reached it */
    double goal_g;             /* the goal's g, -1 until reached */
    long expanded;
    const geo_zones *zb;       /* the zones, whose burn (geo_zones_cell) the cells read; NULL without zones */
    double *escape;            /* NULL, or the escape bound (prm_route_grid_escape): GO cells outside the mask CELL_OUT */
    prm_pages *pg;             /* paged (search_paged): the state, one byte a cell; NULL: h.pos and via */
    prm_corridor *corr;        /* paged: NULL, or the mask a tile at a time (its cells out PS_OUT) */
    unsigned char zn[25];      /* with zones: the burn's bytes of the 5 x 5 cells around the expanded cell */
    unsigned zany;             /* and their OR (0 without zones): zones_around */
} grid_search;

/* The zones' bytes of the 5 x 5 cells around grid cell (c, r), the cells
 * a move from it may cross, into S->zn (row-major, (c, r) the middle),
 * their OR into S->zany: one read of the burn an expansion, not one a
 * crossed cell of each move. */
static void zones_around(grid_search *S, long c, long r)
{
    const long w[4] = {c - 2, r - 2, 5, 5};
    S->zany = geo_zones_block(S->zb, w, 5, S->zn);
}

/* Does move m from window cell l0 touch a cell outside the mask (CELL_OUT)? */
static int move_out(const grid_search *S, const move *m, long l0)
{
    for (int j = 0; j < m->ncross; j++)
        if (S->h.pos[l0 + m->loff[j]] == CELL_OUT)
            return 1;
    return 0;
}

/* A move through a cell that a crossing opens or a factor zone touches
 * (zones.h): *wt INFINITY where it meets a nogo line away from the
 * crossings, else for the time its exact time; 0 for the usual weight. */
static int zone_move(const grid_search *S, const move *m, long i0, double *wt)
{
    int any = 0;
    for (int j = 0; j < m->ncross; j++)
        any |= S->zn[(m->cr[j] + 2) * 5 + m->cc[j] + 2];
    if (!(any & (GEO_ZB_CROSS | GEO_ZB_FACTOR)))
        return 0;
    const geo_grid *g = S->t->grid;
    long c = i0 % g->nx, r = i0 / g->nx;
    double x0 = geo_grid_x(g, (double)c), y0 = geo_grid_y(g, (double)r);
    double x1 = geo_grid_x(g, (double)(c + m->dc)), y1 = geo_grid_y(g, (double)(r + m->dr));
    if ((any & GEO_ZB_CROSS) && geo_zones_blocking(S->t->zones, x0, y0, x1, y1) >= 0) {
        *wt = INFINITY;
        return 1;
    }
    if (!(any & GEO_ZB_FACTOR) || S->s != PRM_TIME)
        return 0;
    prm_piece p;
    prm_piece_measure(S->t, x0, y0, x1, y1, &p);
    *wt = p.blocked ? INFINITY : p.time_s;
    return 1;
}

/* The weight of move m from terrain cell i0, every cell it crosses GO
 * (and in the mask; with zones, zones_around read around i0). The time objective adds only the time in the move's
 * heading (the innermost loop of the --grid time optimum); the others
 * measure the whole piece. */
static inline double move_cost(const grid_search *S, const move *m, long i0)
{
    const prm_terrain *t = S->t;
    double zw;
    if ((S->zany & (GEO_ZB_CROSS | GEO_ZB_FACTOR)) && zone_move(S, m, i0, &zw))
        return zw;
    if (S->s == PRM_TIME) {
        const prm_aniso *a = t->aniso;
        double time = 0;
        for (int j = 0; j < m->ncross; j++) {
            long i = prm_at(t, i0 + m->off[j]);
            double len = m->frac[j] * m->len_m, v;
            if (!(len > 0))
                continue;
            if (a)
                time += len * prm_aniso_pace(a, i, prm_aniso_grade(a, i, m->ux, m->uy));
            else
                time += (v = t->speed->f32[i]) > 0 ? len / (v / 3.6) : INFINITY;
        }
        return time;
    }
    /* prm_piece_add_cell's sums of what the objective weighs alone (the
     * same sums in the same order: the same bits), so that the layers it
     * does not weigh are never read (prm_grid_layers) */
    prm_piece p = {0};
    for (int j = 0; j < m->ncross; j++) {
        long i = i0 + m->off[j];
        double len = m->frac[j] * m->len_m;
        prm_need(t, i, PRM_HAVE_ALL);
        if (S->s == PRM_MMCR)
            switch (t->cls->u8[prm_at(t, i)]) {
            case 1: p.h += len; break;
            case 2: p.l += len; break;
            case 3: p.s += len; break;
            default: break;
            }
        else if (S->s == PRM_MSR)
            p.slope_int += len * t->slope->f32[prm_at(t, i)];
    }
    p.d = m->len_m;
    return prm_piece_weight(&p, S->s, S->w);
}

int prm_grid_layers(const prm_terrain *t, prm_strategy s)
{
    switch (s) {
    case PRM_TIME: return t->aniso ? PRM_LAYER_PACE : PRM_LAYER_SPEED;
    case PRM_MSR: return PRM_LAYER_SLOPE;
    default: return 0; /* mmcr: the class; mdr: the lengths */
    }
}

/* The weight of move m from terrain cell i0 (window cell l0): INFINITY
 * where it touches a non-GO cell (or one outside the mask); every cell GO
 * is checked first (a blocked move costs no measure). */
static inline double move_weight(const grid_search *S, const move *m, long i0, long l0)
{
    const int32_t *pos = S->h.pos;
    for (int j = 0; j < m->ncross; j++)
        if (pos[l0 + m->loff[j]] == CELL_NOGO)
            return INFINITY;
    return move_cost(S, m, i0);
}

/* A* from start to goal over the 16 moves; a move is relaxed only where
 * every cell it crosses is GO (and in the mask). */
static trv_status search(trv_ctx *ctx, grid_search *S)
{
    const prm_terrain *t = S->t;
    const geo_grid *g = t->grid;
    const move *moves = S->moves;
    const double k_h = S->k_h, m_per_unit = t->cell_m / g->gt[1];
    const long nx = S->win.nx, ny = S->win.ny, tnx = g->nx, c0 = S->win.c0, r0 = S->win.r0;
    const long start = S->start, goal = S->goal;
    const long goal_c = goal % nx, goal_r = goal / nx;
    const double ex = g->gt[1] * m_per_unit, ey = fabs(g->gt[5]) * m_per_unit;
    /* sqrt rather than hypot: no overflow is possible here and it is several times faster */
#define HEUR(c, r) (k_h * sqrt(sq((double)((c) - goal_c) * ex) + sq((double)((r) - goal_r) * ey)))
    trv_heap *h = &S->h;
    unsigned char *via = S->via;
    trv_status st;
    via[start] = NO_MOVE;
    double h0 = HEUR(start % nx, start / nx), hmin = h0;
    if (trv_heap_push(h, (int32_t)start, h0, 0))
        return trv_error(ctx, TRV_ERR_NOMEM, "out of memory for the grid search");
    long expanded = 0;
    while (h->n > 0) {
        trv_heap_item cur = trv_heap_pop(h);
        expanded++;
        long cell = cur.id, c = cell % nx, r = cell / nx, tcell = (r + r0) * tnx + c + c0;
        if (cell == goal) {
            S->goal_g = cur.tie;
            break;
        }
        /* progress: how far the closest expanded cell has come toward the goal */
        double hc = cur.key - cur.tie;
        if (hc < hmin)
            hmin = hc;
        if (S->zb)
            zones_around(S, c + c0, r + r0);
        if ((expanded & 0xffff) == 0 && (st = trv_progress(ctx, h0 > 0 ? 1 - hmin / h0 : 0, "grid search"))) {
            S->expanded = expanded;
            return st;
        }
        for (int k = 0; k < NMOVES; k++) {
            const move *m = &moves[k];
            long nc = c + m->dc, nr = r + m->dr;
            if (nc < 0 || nr < 0 || nc >= nx || nr >= ny)
                continue;
            long next = nr * nx + nc;
            if (h->pos[next] == TRV_HEAP_POPPED)
                continue;
            double wt = move_weight(S, m, tcell, cell);
            if (!isfinite(wt))
                continue;
            double ng = cur.tie + wt;
            if (S->escape && move_out(S, m, cell)) { /* a way out of the mask: its bound, not a push */
                double f = ng + HEUR(nc, nr);
                if (f < *S->escape)
                    *S->escape = f;
                continue;
            }
            int32_t pos = h->pos[next];
            if (pos >= 0 && !(ng < h->e[pos].tie))
                continue;
            if (trv_heap_push(h, (int32_t)next, ng + HEUR(nc, nr), ng)) {
                S->expanded = expanded;
                return trv_error(ctx, TRV_ERR_NOMEM, "out of memory for the grid search");
            }
            via[next] = (unsigned char)k;
        }
    }
#undef HEUR
    S->expanded = expanded;
    if (S->goal_g < 0)
        return trv_error(ctx, TRV_ERR_DATA, "the goal is not reachable from the start");
    return trv_progress(ctx, 1, "grid search");
}

/* The map x and y of window cell i's centre. */
static double win_x(const grid_search *S, long i) { return geo_grid_x(S->t->grid, (int)(S->win.c0 + i % S->win.nx)); }
static double win_y(const grid_search *S, long i) { return geo_grid_y(S->t->grid, (int)(S->win.r0 + i / S->win.nx)); }

/* The move that reached window cell i; paged, from its tile (held): -1
 * when the tile cannot be read back. */
static int via_at(const grid_search *S, long i)
{
    if (!S->pg)
        return S->via[i];
    long c = i % S->win.nx, r = i / S->win.nx;
    if (!prm_pages_hold(S->pg, c >> S->pg->shift, r >> S->pg->shift))
        return -1;
    return *prm_pages_cell(S->pg, c, r) & 15;
}

/* The cells of the route back from the goal: their count into *ncell,
 * and with x, y (room for *ncell, filled from index last down) their
 * centres; -1 when a paged tile cannot be read back. */
static int trace_cells(const grid_search *S, int *ncell, double *x, double *y, int last)
{
    int n = 1;
    for (long i = S->goal;; n++) {
        if (x)
            x[last] = win_x(S, i), y[last--] = win_y(S, i);
        if (i == S->start)
            break;
        int v = via_at(S, i);
        if (v < 0)
            return -1;
        i -= S->moves[v].step;
    }
    *ncell = n;
    return 0;
}

/* The route: the start, the cell centres of the moves back from the goal,
 * the goal (an end at its cell's centre is not repeated); its objective
 * the two legs' weights plus the goal's g. */
static trv_status trace(trv_ctx *ctx, const grid_search *S, double sx, double sy, double gx, double gy, prm_path *out)
{
    const prm_terrain *t = S->t;
    const long start = S->start, goal = S->goal;
    int ncell = 0;
    if (trace_cells(S, &ncell, NULL, NULL, 0))
        return trv_error(ctx, S->pg->st, "%s", S->pg->msg);
    double cx0 = win_x(S, start), cy0 = win_y(S, start);
    double cx1 = win_x(S, goal), cy1 = win_y(S, goal);
    double w0, w1;
    trv_status st;
    if ((st = leg_weight(ctx, t, "start", sx, sy, sx, sy, cx0, cy0, S->s, S->w, &w0)) ||
        (st = leg_weight(ctx, t, "goal", gx, gy, cx1, cy1, gx, gy, S->s, S->w, &w1)))
        return st;
    int lead = !(sx == cx0 && sy == cy0), tail = !(gx == cx1 && gy == cy1);
    int n = ncell + lead + tail;
    out->x = malloc((size_t)n * sizeof *out->x);
    out->y = malloc((size_t)n * sizeof *out->y);
    if (!out->x || !out->y) {
        free(out->x);
        free(out->y);
        memset(out, 0, sizeof *out);
        return trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
    }
    if (tail)
        out->x[n - 1] = gx, out->y[n - 1] = gy;
    if (trace_cells(S, &ncell, out->x, out->y, n - 1 - tail)) {
        prm_path_clear(out);
        return trv_error(ctx, S->pg->st, "%s", S->pg->msg);
    }
    if (lead)
        out->x[0] = sx, out->y[0] = sy;
    out->n = n;
    out->objective = w0 + S->goal_g + w1;
    out->expanded = S->expanded;
    return TRV_OK;
}

/* Columns [lo[r], hi[r]] of each window row r: the mask's cells in rows
 * r-2 .. r+2, widened by 2 (lo > hi: none). A move reaches at most two
 * cells from a pushed cell, and only mask cells are pushed, so the search
 * reads no window cell outside them: cells_mark writes only these, and the
 * state of a corridor search takes pages along the corridor, not over its
 * bounding box (at 1 m a 30 km route's box is 3·10⁸ cells). */
static void mask_rows(const unsigned char *mask, long nx, long ny, long *lo, long *hi)
{
    for (long r = 0; r < ny; r++)
        lo[r] = nx, hi[r] = -1;
    for (long r = 0; r < ny; r++) {
        const unsigned char *row = mask + r * nx;
        long a = 0, b = nx - 1;
        while (a < nx && !row[a])
            a++;
        if (a == nx)
            continue;
        while (!row[b])
            b--;
        for (long q = r - 2 < 0 ? 0 : r - 2; q <= r + 2 && q < ny; q++) {
            lo[q] = a - 2 < lo[q] ? a - 2 : lo[q];
            hi[q] = b + 2 > hi[q] ? b + 2 : hi[q];
        }
    }
    for (long r = 0; r < ny; r++)
        lo[r] = lo[r] < 0 ? 0 : lo[r], hi[r] = hi[r] >= nx ? nx - 1 : hi[r];
}

/* Every window cell TRV_HEAP_UNSEEN, or CELL_NOGO where NOGO or masked
 * out (CELL_OUT instead where masked out but GO, with an escape bound);
 * with a mask, only the cells mask_rows gives. The zones' burn read a
 * row's span at a time (geo_zones_block) into zrow. */
static trv_status cells_mark(trv_ctx *ctx, grid_search *S)
{
    const unsigned char *gonogo = S->t->gonogo->u8, *cls = S->t->cls->u8, *mask = S->mask;
    const long tnx = S->t->grid->nx, nx = S->win.nx, ny = S->win.ny;
    long *lo = mask ? malloc((size_t)ny * sizeof *lo) : NULL, *hi = mask ? malloc((size_t)ny * sizeof *hi) : NULL;
    unsigned char *zrow = calloc((size_t)nx, 1);
    if ((mask && (!lo || !hi)) || !zrow) {
        free(lo), free(hi), free(zrow);
        return trv_error(ctx, TRV_ERR_NOMEM, "out of memory for the grid search");
    }
    if (mask)
        mask_rows(mask, nx, ny, lo, hi);
    for (long r = 0; r < ny; r++) {
        const long l = r * nx, i = (r + S->win.r0) * tnx + S->win.c0;
        const long ca = mask ? lo[r] : 0, cb = mask ? hi[r] : nx - 1;
        const long zw[4] = {S->win.c0 + ca, r + S->win.r0, cb - ca + 1, 1};
        if (S->zb && ca <= cb)
            geo_zones_block(S->zb, zw, zw[2], zrow);
        for (long c = ca; c <= cb; c++) {
            long k = prm_at(S->t, i + c); /* the layers' place of terrain cell i + c */
            int go = gonogo[k] == 0 && cls[k] != 0 && !(zrow[c - ca] & GEO_ZB_NOGO);
            S->h.pos[l + c] = !go ? CELL_NOGO : !mask || mask[l + c] ? TRV_HEAP_UNSEEN : S->escape ? CELL_OUT : CELL_NOGO;
        }
    }
    free(lo), free(hi), free(zrow);
    return TRV_OK;
}

/* The search on window win (the whole grid, or a corridor's bounding box)
 * with its mask (per window cell; NULL: none). With own (NULL: none)
 * *own the mask itself, malloc'ed: freed (and *own NULL) once the cells
 * are marked, the search's state holding what it says. */
static trv_status route_paged(trv_ctx *ctx, grid_search *S, prm_grid_paging *pg, double sx, double sy, double gx,
                              double gy, prm_path *out);

static trv_status route_window(trv_ctx *ctx, const prm_terrain *t, grid_window win, const unsigned char *mask,
                               double sx, double sy, double gx, double gy, prm_strategy s, const prm_weights *w,
                               prm_path *out, double *escape, unsigned char **own, prm_grid_paging *pg,
                               prm_corridor *corr)
{
    memset(out, 0, sizeof *out);
    prm_weights wdef;
    if (!w) {
        prm_weights_default(&wdef);
        w = &wdef;
    }
    if (s < PRM_MMCR || s > PRM_TIME)
        return trv_error(ctx, TRV_ERR_USAGE, "unknown strategy %d", (int)s);
    /* negative weights would make the heuristic inadmissible and the search wrong */
    if (s == PRM_MMCR && !(w->kb >= 0 && w->kh >= 0 && w->ks >= 0 && w->kd >= 0))
        return trv_error(ctx, TRV_ERR_USAGE, "the mmcr weights must be >= 0 (kb %g, kh %g, ks %g, kd %g)", w->kb,
                         w->kh, w->ks, w->kd);
    const geo_grid *g = t->grid;
    size_t ncells = (size_t)win.nx * win.ny;
    if (ncells > INT32_MAX)
        return trv_error(ctx, TRV_ERR_DATA, "the grid is too large for the grid search (%d x %d cells)", g->nx, g->ny);
    long start, goal;
    trv_status st;
    if ((st = check_end(ctx, t, "start", sx, sy, &start)) || (st = check_end(ctx, t, "goal", gx, gy, &goal)))
        return st;
    if (start == goal)
        return one_cell(ctx, t, sx, sy, gx, gy, s, w, out);
    /* the ends as window cells; one outside the window (or the mask) is cut off */
    long ends[2] = {start, goal};
    for (int e = 0; e < 2; e++) {
        long c = ends[e] % g->nx - win.c0, r = ends[e] / g->nx - win.r0;
        if (c < 0 || r < 0 || c >= win.nx || r >= win.ny || (mask && !mask[r * win.nx + c]) ||
            (corr && !prm_corridor_has(corr, c + win.c0, r + win.r0)))
            return trv_error(ctx, TRV_ERR_DATA, "the goal is not reachable from the start");
        ends[e] = r * win.nx + c;
    }
    move moves[NMOVES];
    if (stencil_build(t, win.nx, moves))
        return trv_error(ctx, TRV_ERR_INTERNAL, "cannot build the 16-neighbour move stencil");
    grid_search S = {t, win, mask, s, w, moves, ends[0], ends[1], prm_grid_heuristic_factor(t, s, w), {0}, NULL, -1, 0,
                     t->zones, escape, NULL, corr};
    if (pg)
        return route_paged(ctx, &S, pg, sx, sy, gx, gy, out);
    S.via = malloc(ncells);
    S.h.pos = malloc(ncells * sizeof *S.h.pos);
    if (!S.via || !S.h.pos) {
        free(S.via);
        free(S.h.pos);
        return trv_error(ctx, TRV_ERR_NOMEM, "out of memory for the grid search (%ld x %ld cells)", win.nx, win.ny);
    }
    if (!(st = cells_mark(ctx, &S)) && own) { /* (at 1 m a 30 km corridor's mask: 78 MB) */
        free(*own);
        *own = NULL;
        S.mask = NULL;
    }
    if (!st && !(st = search(ctx, &S)))
        st = trace(ctx, &S, sx, sy, gx, gy, out);
    trv_heap_free(&S.h);
    free(S.h.pos);
    free(S.via);
    return st;
}

trv_status prm_route_grid_masked(trv_ctx *ctx, const prm_terrain *t, const unsigned char *mask, double sx, double sy,
                                 double gx, double gy, prm_strategy s, const prm_weights *w, prm_path *out)
{
    grid_window all = {0, 0, t->grid->nx, t->grid->ny};
    return route_window(ctx, t, all, mask, sx, sy, gx, gy, s, w, out, NULL, NULL, NULL, NULL);
}

static trv_status window_search(trv_ctx *ctx, const prm_terrain *t, const long win[4], const unsigned char *mask,
                                double sx, double sy, double gx, double gy, prm_strategy s, const prm_weights *w,
                                prm_path *out, double *escape, unsigned char **own)
{
    grid_window wd = {win[0], win[1], win[2], win[3]};
    if (wd.c0 < 0 || wd.r0 < 0 || wd.nx < 1 || wd.ny < 1 || wd.c0 + wd.nx > t->grid->nx || wd.r0 + wd.ny > t->grid->ny) {
        memset(out, 0, sizeof *out);
        return trv_error(ctx, TRV_ERR_INTERNAL, "the grid search's window is not inside the grid");
    }
    return route_window(ctx, t, wd, mask, sx, sy, gx, gy, s, w, out, escape, own, NULL, NULL);
}

trv_status prm_route_grid_escape(trv_ctx *ctx, const prm_terrain *t, const long win[4], const unsigned char *mask,
                                 double sx, double sy, double gx, double gy, prm_strategy s, const prm_weights *w,
                                 prm_path *out, double *escape)
{
    return window_search(ctx, t, win, mask, sx, sy, gx, gy, s, w, out, escape, NULL);
}

trv_status prm_route_grid_window(trv_ctx *ctx, const prm_terrain *t, const long win[4], const unsigned char *mask,
                                 double sx, double sy, double gx, double gy, prm_strategy s, const prm_weights *w,
                                 prm_path *out)
{
    return window_search(ctx, t, win, mask, sx, sy, gx, gy, s, w, out, NULL, NULL);
}

trv_status prm_route_grid_taking(trv_ctx *ctx, const prm_terrain *t, const long win[4], unsigned char *mask,
                                 double sx, double sy, double gx, double gy, prm_strategy s, const prm_weights *w,
                                 prm_path *out)
{
    trv_status st = window_search(ctx, t, win, mask, sx, sy, gx, gy, s, w, out, NULL, &mask);
    free(mask); /* (NULL when the search freed it) */
    return st;
}

/* ---- the paged search (prm_route_grid_paged) ---------------------------------------- */

/* A paged cell's byte: its status in the high bits, the move that reached
 * it (0 .. 15; the start's is never read) in the low four. */
enum { PS_UNSEEN = 0x00, PS_NOGO = 0x10, PS_OPEN = 0x20, PS_CLOSED = 0x30, PS_OUT = 0x40, PS_STATUS = 0x70, PS_VIA = 0x0f };

/* A tile's cells never seen before: PS_NOGO where a move may not touch
 * them (cells_mark's test on the whole grid; and the padding past the
 * grid's edge), else PS_UNSEEN; with a corridor, its mask made for the
 * tile, GO cells out of it PS_OUT (CELL_OUT: with an escape bound) or
 * PS_NOGO. The zones' burn read for the tile at once (geo_zones_block)
 * into cells, each cell's byte read before its status is written. */
static void paged_init(void *user, long tx, long ty, unsigned char *cells)
{
    const grid_search *S = user;
    const prm_terrain *t = S->t;
    const long side = 1L << S->pg->shift, tnx = t->grid->nx, zw[4] = {tx * side, ty * side, side, side};
    if (S->corr)
        prm_corridor_tile(S->corr, tx * side, ty * side);
    if (S->zb)
        geo_zones_block(S->zb, zw, side, cells);
    else
        memset(cells, 0, (size_t)(side * side));
    for (long y = 0; y < side; y++)
        for (long x = 0; x < side; x++) {
            long c = tx * side + x, r = ty * side + y, i = r * tnx + c;
            unsigned char v = PS_NOGO;
            if (c < S->win.nx && r < S->win.ny) {
                prm_need(t, i, PRM_HAVE_CLASS);
                long k = prm_at(t, i);
                if (t->gonogo->u8[k] == 0 && t->cls->u8[k] != 0 && !(cells[y * side + x] & GEO_ZB_NOGO))
                    v = !S->corr || S->corr->tmask[y * side + x] ? PS_UNSEEN : S->escape ? PS_OUT : PS_NOGO;
            }
            cells[y * side + x] = v;
        }
}

/* The tiles a move from cell (c, r) reads (its 5 x 5 cells): the lazy
 * terrain's first, then the state's (whose new tiles read the class of
 * terrain tiles just held). */
static trv_status hold_around(trv_ctx *ctx, const grid_search *S, long c, long r)
{
    const prm_pages *P = S->pg;
    long ca = c > 2 ? c - 2 : 0, ra = r > 2 ? r - 2 : 0;
    long cb = c + 2 < S->win.nx ? c + 2 : S->win.nx - 1, rb = r + 2 < S->win.ny ? r + 2 : S->win.ny - 1;
    if (S->t->ready)
        for (long ty = ra / PRM_TILE; ty <= rb / PRM_TILE; ty++)
            for (long tx = ca / PRM_TILE; tx <= cb / PRM_TILE; tx++)
                prm_terrain_hold(S->t, tx, ty);
    for (long ty = ra >> P->shift; ty <= rb >> P->shift; ty++)
        for (long tx = ca >> P->shift; tx <= cb >> P->shift; tx++)
            if (!prm_pages_hold(S->pg, tx, ty))
                return trv_error(ctx, P->st, "%s", P->msg);
    return TRV_OK;
}

/* Does move m from cell (c, r) touch a PS_NOGO cell? */
static inline int paged_blocked(const prm_pages *P, const move *m, long c, long r)
{
    for (int j = 0; j < m->ncross; j++)
        if ((*prm_pages_cell(P, c + m->cc[j], r + m->cr[j]) & PS_STATUS) == PS_NOGO)
            return 1;
    return 0;
}

/* Does move m from cell (c, r) touch a PS_OUT cell (move_out)? */
static inline int paged_out(const prm_pages *P, const move *m, long c, long r)
{
    for (int j = 0; j < m->ncross; j++)
        if ((*prm_pages_cell(P, c + m->cc[j], r + m->cr[j]) & PS_STATUS) == PS_OUT)
            return 1;
    return 0;
}

/* One expansion of cell (c, r) at g: its moves relaxed as search()
 * relaxes them (a move out of the corridor lowering the escape bound), the open cells' g in open, their items in the heap h
 * (lazy deletion: an item whose g is no longer its cell's is stale). */
static int paged_relax(grid_search *S, trv_heap *h, prm_open_set *open, long c, long r, double g,
                       double k_h, double ex, double ey)
{
    const long nx = S->win.nx, ny = S->win.ny, tcell = r * S->t->grid->nx + c;
    const long goal_c = S->goal % nx, goal_r = S->goal / nx;
    if (S->zb)
        zones_around(S, c, r);
    for (int k = 0; k < NMOVES; k++) {
        const move *m = &S->moves[k];
        long nc = c + m->dc, nr = r + m->dr;
        if (nc < 0 || nr < 0 || nc >= nx || nr >= ny)
            continue;
        unsigned char *nb = prm_pages_cell(S->pg, nc, nr);
        if ((*nb & PS_STATUS) == PS_CLOSED || paged_blocked(S->pg, m, c, r))
            continue;
        double wt = move_cost(S, m, tcell);
        if (!isfinite(wt))
            continue;
        double ng = g + wt;
        double hn = k_h * sqrt(sq((double)(nc - goal_c) * ex) + sq((double)(nr - goal_r) * ey));
        if (S->corr && S->escape && paged_out(S->pg, m, c, r)) {
            if (ng + hn < *S->escape)
                *S->escape = ng + hn;
            continue;
        }
        int32_t next = (int32_t)(nr * nx + nc);
        if ((*nb & PS_STATUS) == PS_OPEN && !(ng < prm_open_get(open, next)))
            continue;
        if (prm_open_put(open, next, ng) || trv_heap_push(h, next, ng + hn, ng))
            return -1;
        *nb = (unsigned char)(PS_OPEN | k);
    }
    return 0;
}

/* search() on paged state: the same pops in the same order (the heap's
 * order is total on items, and the live items are the same), the same
 * relaxations, the same expanded count. */
static trv_status search_paged(trv_ctx *ctx, grid_search *S, trv_heap *h, prm_open_set *open)
{
    const geo_grid *g = S->t->grid;
    const double m_per_unit = S->t->cell_m / g->gt[1], k_h = S->k_h;
    const double ex = g->gt[1] * m_per_unit, ey = fabs(g->gt[5]) * m_per_unit;
    const long nx = S->win.nx, start = S->start, goal = S->goal;
    const double h0 = k_h * sqrt(sq((double)(start % nx - goal % nx) * ex) + sq((double)(start / nx - goal / nx) * ey));
    double hmin = h0;
    trv_status st;
    if ((st = hold_around(ctx, S, start % nx, start / nx)))
        return st;
    *prm_pages_cell(S->pg, start % nx, start / nx) = PS_OPEN;
    if (prm_open_put(open, (int32_t)start, 0) || trv_heap_push(h, (int32_t)start, h0, 0))
        return trv_error(ctx, TRV_ERR_NOMEM, "out of memory for the grid search");
    long expanded = 0;
    while (h->n > 0) {
        trv_heap_item cur = trv_heap_pop(h);
        if (prm_open_get(open, cur.id) != cur.tie)
            continue; /* stale: its cell was reached cheaper, or is closed */
        prm_open_del(open, cur.id);
        expanded++;
        long cell = cur.id, c = cell % nx, r = cell / nx;
        S->expanded = expanded;
        if ((st = hold_around(ctx, S, c, r)))
            return st;
        unsigned char *me = prm_pages_cell(S->pg, c, r);
        *me = (unsigned char)((*me & PS_VIA) | PS_CLOSED);
        if (cell == goal) {
            S->goal_g = cur.tie;
            break;
        }
        double hc = cur.key - cur.tie;
        if (hc < hmin)
            hmin = hc;
        if ((expanded & 0xffff) == 0 && (st = trv_progress(ctx, h0 > 0 ? 1 - hmin / h0 : 0, "grid search")))
            return st;
        if (paged_relax(S, h, open, c, r, cur.tie, k_h, ex, ey))
            return trv_error(ctx, TRV_ERR_NOMEM, "out of memory for the grid search");
    }
    if ((st = prm_terrain_status(ctx, S->t)))
        return st;
    if (S->goal_g < 0)
        return trv_error(ctx, TRV_ERR_DATA, "the goal is not reachable from the start");
    return trv_progress(ctx, 1, "grid search");
}

/* The paged search's set-up around search_paged: the tiles' store, the
 * terrain's cap (lifted after), the trace, the counts into pg. */
static trv_status route_paged(trv_ctx *ctx, grid_search *S, prm_grid_paging *pg, double sx, double sy, double gx,
                              double gy, prm_path *out)
{
    const prm_terrain *t = S->t;
    if (t->ready && (1L << pg->shift) != PRM_TILE)
        return trv_error(ctx, TRV_ERR_INTERNAL, "the paged search's tiles must be the lazy terrain's (%d cells)",
                         (int)PRM_TILE);
    prm_pages P;
    trv_status st = prm_pages_open(ctx, &P, S->win.nx, S->win.ny, pg->shift, pg->tiles, pg->dir, paged_init, S);
    if (st)
        return st;
    S->pg = &P;
    long read0, read1, total;
    prm_terrain_tiles(t, &read0, &total);
    trv_heap h = {0};
    prm_open_set open = {0};
    /* the layers first: the tiles read before trimmed to them, and those the cap lets go spilled */
    int layers = prm_grid_layers(t, S->s);
    pg->tile_bytes = prm_terrain_tile_bytes(t, layers);
    long spilled0, spilled1;
    prm_terrain_spill_reads(t, &spilled0);
    prm_terrain_layers(t, layers, pg->dir ? pg->dir : "");
    st = prm_terrain_tile_cap(ctx, t, pg->terrain_tiles < 4 ? 4 : pg->terrain_tiles);
    if (!st)
        st = search_paged(ctx, S, &h, &open);
    prm_terrain_spill_reads(t, &spilled1);
    prm_terrain_layers(t, PRM_LAYERS_ALL, NULL); /* the trace's ends read every layer */
    trv_heap_free(&h);
    prm_open_free(&open);
    if (!st)
        st = trace(ctx, S, sx, sy, gx, gy, out);
    (void)prm_terrain_tile_cap(ctx, t, 0); /* lifting allocates nothing */
    prm_terrain_tiles(t, &read1, &total);
    pg->paged = 1;
    pg->written = P.written, pg->read = P.read, pg->file_bytes = P.file_bytes;
    pg->terrain_reads = read1 - read0;
    pg->terrain_spilled = spilled1 - spilled0;
    pg->reached = P.made;
    prm_pages_close(&P);
    return st;
}

trv_status prm_route_grid_paged(trv_ctx *ctx, const prm_terrain *t, prm_grid_paging *pg, double sx, double sy,
                                double gx, double gy, prm_strategy s, const prm_weights *w, prm_path *out)
{
    grid_window all = {0, 0, t->grid->nx, t->grid->ny};
    return route_window(ctx, t, all, NULL, sx, sy, gx, gy, s, w, out, NULL, NULL, pg, NULL);
}

trv_status prm_route_grid_escape_paged(trv_ctx *ctx, const prm_terrain *t, prm_corridor *k, double sx, double sy,
                                       double gx, double gy, prm_strategy s, const prm_weights *w, prm_path *out,
                                       double *escape, prm_grid_paging *pg)
{
    grid_window all = {0, 0, t->grid->nx, t->grid->ny};
    return route_window(ctx, t, all, NULL, sx, sy, gx, gy, s, w, out, escape, NULL, pg, k);
}
