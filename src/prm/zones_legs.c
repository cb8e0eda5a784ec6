/* A crossing's raster legs (zones.h, prm_zones_roadmap): on each side of
 * the barrier, a way along the raster from the crossing to the nearest
 * roadmap node, through GO cells no nogo zone touches, shortened to the
 * straight pieces the zones allow and added as nodes and edges. */
#include "zones.h"

#include "prm_priv.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* the search windows: (2 half + 1) cells square around the crossing; the
 * wide one for a leg to the main roadmap when the near leg ends in a pocket */
enum { LEG_HALF = 96, LEG_HALF_WIDE = 320 };

trv_status prm_zones_add_node(trv_ctx *ctx, prm_roadmap *r, double x, double y, int *ncap)
{
    if (r->nnodes == *ncap) {
        int nc = 2 * *ncap + 16;
        double *px = realloc(r->x, (size_t)nc * sizeof *px);
        if (px)
            r->x = px;
        double *py = px ? realloc(r->y, (size_t)nc * sizeof *py) : NULL;
        if (!py)
            return trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
        r->y = py, *ncap = nc;
    }
    r->x[r->nnodes] = x, r->y[r->nnodes++] = y;
    return TRV_OK;
}

trv_status prm_zones_add_edge(trv_ctx *ctx, prm_roadmap *r, int a, int b, const prm_piece *p, int *ecap)
{
    if (r->nedges == *ecap) {
        int nc = 2 * *ecap + 16;
        prm_edge *e = realloc(r->edges, (size_t)nc * sizeof *e);
        if (!e)
            return trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
        r->edges = e, *ecap = nc;
    }
    r->edges[r->nedges++] = (prm_edge){a, b, *p};
    return TRV_OK;
}

/* The side of (x, y) of the nogo line segment nearest to the crossing
 * (+1, -1; 0 on it). */
static int side_of(const geo_zones *z, const double *s, double x, double y)
{
    double v = (s[2] - s[0]) * (y - s[1]) - (s[3] - s[1]) * (x - s[0]);
    (void)z;
    return v > 0 ? 1 : v < 0 ? -1 : 0;
}

static const double *nearest_line_seg(const geo_zones *z, double x, double y)
{
    const double *best = NULL;
    double bd = INFINITY;
    for (int s = 0; s < z->nseg; s++) {
        const geo_zone *zn = &z->z[z->seg_zone[s]];
        if (!zn->line || zn->effect != GEO_ZONE_NOGO)
            continue;
        const double *q = z->seg + 4 * (size_t)s;
        double dx = q[2] - q[0], dy = q[3] - q[1], ll = dx * dx + dy * dy;
        double u = ll > 0 ? fmax(0, fmin(1, ((x - q[0]) * dx + (y - q[1]) * dy) / ll)) : 0;
        double d = hypot(q[0] + u * dx - x, q[1] + u * dy - y);
        if (d < bd)
            bd = d, best = q;
    }
    return best;
}

typedef struct leg_win {
    long c0, r0, n, m;       /* the window: columns c0 .. c0 + n - 1, rows r0 .. r0 + m - 1 */
    int *node;               /* per window cell: a roadmap node in it, or -1 */
    int *from;               /* BFS parent (window index), -2 unseen */
    int *queue;
} leg_win;

/* Breadth-first from the seeds (window indices) over GO cells no nogo
 * zone touches, to the first cell holding a node; its window index or -1. */
static int bfs(const prm_terrain *t, const leg_win *w, const int *seeds, int ns)
{
    const geo_zones *zb = t->zones;
    long nx = t->grid->nx, n = w->n;
    int head = 0, tail = 0;
    for (int i = 0; i < ns; i++)
        w->from[seeds[i]] = -1, w->queue[tail++] = seeds[i];
    while (head < tail) {
        int cur = w->queue[head++];
        if (w->node[cur] >= 0)
            return cur;
        long c = cur % n, rr = cur / n;
        static const int d4[4][2] = {{1, 0}, {-1, 0}, {0, 1}, {0, -1}};
        for (int k = 0; k < 4; k++) {
            long cc = c + d4[k][0], r2 = rr + d4[k][1];
            if (cc < 0 || r2 < 0 || cc >= n || r2 >= w->m)
                continue;
            int nb = (int)(r2 * n + cc);
            long ti = (r2 + w->r0) * nx + cc + w->c0;
            if (w->from[nb] != -2 || !prm_cell_go(t, ti) ||
                (geo_zones_cell(zb, cc + w->c0, r2 + w->r0) & (GEO_ZB_NOGO | GEO_ZB_CROSS)))
                continue;
            w->from[nb] = cur, w->queue[tail++] = nb;
        }
    }
    return -1;
}

/* Join node a and node b by the straight piece between them (measured
 * from the lower index to the higher). */
static trv_status join(trv_ctx *ctx, const prm_terrain *t, prm_roadmap *r, int a, int b, int *ecap)
{
    int lo = a < b ? a : b, hi = a < b ? b : a;
    prm_piece p;
    prm_piece_measure(t, r->x[lo], r->y[lo], r->x[hi], r->y[hi], &p);
    return p.blocked ? TRV_OK : prm_zones_add_edge(ctx, r, lo, hi, &p, ecap);
}

/* The leg's polyline (x, y)[0..n) from crossing node q to roadmap node
 * last, shortened greedily (from each kept vertex the farthest of the
 * next 64 that a piece the zones allow reaches) into nodes and edges. */
static trv_status add_leg(trv_ctx *ctx, const prm_terrain *t, prm_roadmap *r, int q, int last, const double *x,
                          const double *y, int n, int *ncap, int *ecap)
{
    int prev = q, i = 0;
    trv_status st = TRV_OK;
    while (i < n - 1 && !st) {
        int j = i + 64 < n - 1 ? i + 64 : n - 1;
        for (; j > i + 1; j--) {
            prm_piece p;
            prm_piece_measure(t, x[i], y[i], x[j], y[j], &p);
            if (!p.blocked)
                break;
        }
        int id = j == n - 1 ? last : r->nnodes;
        if (j < n - 1)
            st = prm_zones_add_node(ctx, r, x[j], y[j], ncap);
        if (!st)
            st = join(ctx, t, r, prev, id, ecap);
        prev = id, i = j;
    }
    return st;
}

/* The leg on one side (+1, -1) of seg: seeds the untouched GO cells
 * within two cells of the crossing on that side that the crossing sees. */
static trv_status one_side(trv_ctx *ctx, const prm_terrain *t, prm_roadmap *r, int q, const double *seg, int side,
                           leg_win *w, int *ncap, int *ecap, int *reached)
{
    *reached = -1;
    const geo_grid *g = t->grid;
    const geo_zones *zb = t->zones;
    double cx = r->x[q], cy = r->y[q];
    long cc = (long)floor((cx - g->gt[0]) / g->gt[1]) - w->c0, cr = (long)floor((cy - g->gt[3]) / g->gt[5]) - w->r0;
    int seeds[25], ns = 0;
    for (long i = 0; i < w->n * w->m; i++)
        w->from[i] = -2;
    for (long rr = cr - 2; rr <= cr + 2; rr++)
        for (long c = cc - 2; c <= cc + 2; c++) {
            if (c < 0 || rr < 0 || c >= w->n || rr >= w->m)
                continue;
            long ti = (rr + w->r0) * g->nx + c + w->c0;
            double x = geo_grid_x(g, (double)(c + w->c0)), y = geo_grid_y(g, (double)(rr + w->r0));
            prm_piece p;
            if (!prm_cell_go(t, ti) || (geo_zones_cell(zb, c + w->c0, rr + w->r0) & (GEO_ZB_NOGO | GEO_ZB_CROSS)) ||
                side_of(t->zones, seg, x, y) != side)
                continue;
            prm_piece_measure(t, cx, cy, x, y, &p);
            if (!p.blocked)
                seeds[ns++] = (int)(rr * w->n + c);
        }
    int end = ns ? bfs(t, w, seeds, ns) : -1;
    if (end < 0)
        return TRV_OK;
    int len = 0;
    for (int v = end; v >= 0; v = w->from[v])
        len++;
    double *x = malloc((size_t)(len + 2) * sizeof *x), *y = malloc((size_t)(len + 2) * sizeof *y);
    if (!x || !y) {
        free(x);
        free(y);
        return trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
    }
    x[0] = cx, y[0] = cy;
    int k = len;
    for (int v = end; v >= 0; v = w->from[v], k--)
        x[k] = geo_grid_x(g, (double)(v % w->n + w->c0)), y[k] = geo_grid_y(g, (double)(v / w->n + w->r0));
    int node = w->node[end];
    *reached = node;
    x[len + 1] = r->x[node], y[len + 1] = r->y[node];
    trv_status st = add_leg(ctx, t, r, q, node, x, y, len + 2, ncap, ecap);
    free(x);
    free(y);
    return st;
}

/* The window of half around cell (c, rr), its map of the nodes i < n0
 * (only those with main[i] when main is given). */
static trv_status win_make(trv_ctx *ctx, const prm_terrain *t, const prm_roadmap *r, int n0, const unsigned char *main,
                           long c, long rr, long half, leg_win *w)
{
    const geo_grid *g = t->grid;
    *w = (leg_win){c - half < 0 ? 0 : c - half, rr - half < 0 ? 0 : rr - half, 0, 0, NULL, NULL, NULL};
    w->n = (c + half >= g->nx ? g->nx - 1 : c + half) - w->c0 + 1;
    w->m = (rr + half >= g->ny ? g->ny - 1 : rr + half) - w->r0 + 1;
    size_t nw = (size_t)(w->n * w->m);
    w->node = malloc(nw * sizeof *w->node), w->from = malloc(nw * sizeof *w->from);
    w->queue = malloc(nw * sizeof *w->queue);
    if (!w->node || !w->from || !w->queue)
        return trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
    for (size_t i = 0; i < nw; i++)
        w->node[i] = -1;
    for (int i = 0; i < n0; i++) { /* the roadmap's own nodes in the window */
        long nc = (long)floor((r->x[i] - g->gt[0]) / g->gt[1]) - w->c0;
        long nr = (long)floor((r->y[i] - g->gt[3]) / g->gt[5]) - w->r0;
        if ((!main || main[i]) && nc >= 0 && nr >= 0 && nc < w->n && nr < w->m && w->node[nr * w->n + nc] < 0)
            w->node[nr * w->n + nc] = i;
    }
    return TRV_OK;
}

static void win_free(leg_win *w)
{
    free(w->node);
    free(w->from);
    free(w->queue);
}

trv_status prm_zones_legs(trv_ctx *ctx, const prm_terrain *t, prm_roadmap *r, int n0, int q, const unsigned char *main,
                          int *ncap, int *ecap)
{
    const geo_grid *g = t->grid;
    const double *seg = nearest_line_seg(t->zones, r->x[q], r->y[q]);
    long c = (long)floor((r->x[q] - g->gt[0]) / g->gt[1]), rr = (long)floor((r->y[q] - g->gt[3]) / g->gt[5]);
    if (!seg || c < 0 || rr < 0 || c >= g->nx || rr >= g->ny)
        return TRV_OK;
    leg_win w, ww = {0};
    trv_status st = win_make(ctx, t, r, n0, NULL, c, rr, LEG_HALF, &w);
    int pocket[2] = {0, 0}; /* per side: the near leg ended off the main roadmap */
    for (int k = 0; k < 2 && !st; k++) {
        int reached;
        st = one_side(ctx, t, r, q, seg, 1 - 2 * k, &w, ncap, ecap, &reached);
        pocket[k] = main && reached >= 0 && !main[reached];
    }
    if (!st && (pocket[0] || pocket[1]))
        st = win_make(ctx, t, r, n0, main, c, rr, LEG_HALF_WIDE, &ww);
    for (int k = 0; k < 2 && !st; k++) {
        int reached;
        if (pocket[k])
            st = one_side(ctx, t, r, q, seg, 1 - 2 * k, &ww, ncap, ecap, &reached);
    }
    win_free(&w);
    win_free(&ww);
    return st;
}
