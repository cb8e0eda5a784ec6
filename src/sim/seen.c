/* The seen map (what a vehicle's LiDAR hit, above the terrain model, per
 * terrain cell) and re-planning around it: A* on the terrain grid with the
 * blocked cells (inflated) masked out. See sim.h, runner section. */
#include "sim.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

trv_status sim_seen_init(trv_ctx *ctx, sim_seen *m, const prm_terrain *t, double inflate_m)
{
    memset(m, 0, sizeof *m);
    m->nx = t->grid->nx, m->ny = t->grid->ny;
    size_t n = (size_t)m->nx * m->ny;
    m->hmin = malloc(n * sizeof *m->hmin);
    m->hmax = malloc(n * sizeof *m->hmax);
    m->blocked = calloc(n, 1);
    m->mask = malloc(n);
    if (!m->hmin || !m->hmax || !m->blocked || !m->mask) {
        sim_seen_clear(m);
        return trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
    }
    for (size_t i = 0; i < n; i++) {
        m->hmin[i] = m->hmax[i] = NAN;
        m->mask[i] = (unsigned char)prm_cell_go(t, (long)i);
    }
    m->inflate = inflate_m > 0 ? (int)ceil(inflate_m / t->cell_m) : 0;
    return TRV_OK;
}

void sim_seen_clear(sim_seen *m)
{
    free(m->hmin);
    free(m->hmax);
    free(m->blocked);
    free(m->mask);
    memset(m, 0, sizeof *m);
}

static void block(sim_seen *m, long i)
{
    m->blocked[i] = 1;
    m->nblocked++;
    int c = (int)(i % m->nx), r = (int)(i / m->nx), k = m->inflate;
    for (int rr = r - k; rr <= r + k; rr++)
        for (int cc = c - k; cc <= c + k; cc++)
            if (rr >= 0 && rr < m->ny && cc >= 0 && cc < m->nx)
                m->mask[(long)rr * m->nx + cc] = 0;
}

int sim_seen_block(sim_seen *m, long i)
{
    if (m->blocked[i])
        return 0;
    block(m, i);
    return 1;
}

long sim_seen_add(sim_seen *m, const prm_terrain *t, const sim_field *f, const double *xyz, int n, double step_m)
{
    long fresh = 0;
    for (int k = 0; k < n; k++) {
        double x = xyz[3 * k], y = xyz[3 * k + 1], z = xyz[3 * k + 2];
        long i = prm_cell_at(t, x, y);
        if (i < 0)
            continue;
        double g = sim_height(f, x, y);
        if (!isfinite(g))
            continue;
        float h = (float)(z - g);
        if (isnan(m->hmin[i]) || h < m->hmin[i])
            m->hmin[i] = h;
        if (isnan(m->hmax[i]) || h > m->hmax[i])
            m->hmax[i] = h;
        if (!m->blocked[i] && (m->hmax[i] > step_m || m->hmin[i] < -step_m)) {
            block(m, i);
            fresh++;
        }
    }
    return fresh;
}

typedef struct walk_ctx {
    const sim_seen *m;
    const prm_terrain *t;
    int hit;
} walk_ctx;

static int walk_cell(long cell, double len, void *user)
{
    (void)len;
    walk_ctx *w = user;
    if (!w->m->mask[cell] && prm_cell_go(w->t, cell) && w->m->blocked[cell]) {
        w->hit = 1;
        return 1;
    }
    return 0;
}

int sim_seen_path_blocked(const sim_seen *m, const prm_terrain *t, const sim_path *p, double s0)
{
    if (m->nblocked == 0 || p->n < 2)
        return 0;
    walk_ctx w = {m, t, 0};
    int i = 0;
    while (i < p->n - 2 && p->s[i + 1] <= s0)
        i++;
    double x0, y0;
    sim_path_point(p, s0, &x0, &y0);
    for (; i < p->n - 1 && !w.hit; i++) {
        prm_segment_walk(t->grid, x0, y0, p->x[i + 1], p->y[i + 1], walk_cell, &w);
        x0 = p->x[i + 1], y0 = p->y[i + 1];
    }
    return w.hit;
}

/* 1 if the polyline enters a cell the mask forbids (other than its ends'). */
typedef struct mask_ctx {
    const unsigned char *mask;
    long c0, c1;
} mask_ctx;

static int mask_cell(long cell, double len, void *user)
{
    (void)len;
    const mask_ctx *w = user;
    return cell != w->c0 && cell != w->c1 && !w->mask[cell];
}

static int path_in_mask(const prm_terrain *t, const unsigned char *mask, const prm_path *p, long c0, long c1)
{
    mask_ctx w = {mask, c0, c1};
    for (int i = 0; i + 1 < p->n; i++)
        if (prm_segment_walk(t->grid, p->x[i], p->y[i], p->x[i + 1], p->y[i + 1], mask_cell, &w))
            return 0;
    return 1;
}

/* One A* with the mask (inflated, or the blocked cells only), the ends'
 * cells kept open, restricted to the window [c0, c1] x [r0, r1] when
 * given; smoothed when the curve stays inside the mask. */
static trv_status search(trv_ctx *ctx, const sim_seen *m, const prm_terrain *t, unsigned char *mask, const int *win,
                         double x, double y, double gx, double gy, prm_path *out)
{
    size_t n = (size_t)m->nx * m->ny;
    long cs = prm_cell_at(t, x, y), cg = prm_cell_at(t, gx, gy);
    prm_weights w;
    prm_weights_default(&w);
    trv_status st = TRV_ERR_DATA;
    for (int pass = 0; pass < 2 && st; pass++) {
        for (size_t i = 0; i < n; i++)
            mask[i] = pass == 0 ? m->mask[i] : (unsigned char)!m->blocked[i];
        if (win)
            for (int r = 0; r < m->ny; r++)
                for (int c = 0; c < m->nx; c++)
                    if (c < win[0] || c > win[1] || r < win[2] || r > win[3])
                        mask[(size_t)r * m->nx + c] = 0;
        if (cs >= 0)
            mask[cs] = 1;
        if (cg >= 0)
            mask[cg] = 1;
        prm_path_clear(out);
        st = prm_route_grid_masked(ctx, t, mask, x, y, gx, gy, PRM_TIME, &w, out);
    }
    if (st)
        return st;
    prm_path smooth = {0};
    double dev;
    smooth.n = out->n;
    smooth.x = malloc(out->n * sizeof *smooth.x);
    smooth.y = malloc(out->n * sizeof *smooth.y);
    if (smooth.x && smooth.y) {
        memcpy(smooth.x, out->x, out->n * sizeof *smooth.x);
        memcpy(smooth.y, out->y, out->n * sizeof *smooth.y);
        if (prm_smooth(ctx, t, &smooth, t->cell_m, &dev) == TRV_OK && path_in_mask(t, mask, &smooth, cs, cg)) {
            prm_path tmp = *out;
            *out = smooth;
            out->objective = tmp.objective, out->expanded = tmp.expanded;
            smooth = tmp;
        }
    }
    prm_path_clear(&smooth);
    return TRV_OK;
}

static int cell_forbidden(const sim_seen *m, const prm_terrain *t, double x, double y)
{
    long c = prm_cell_at(t, x, y);
    return c >= 0 && !m->mask[c] && prm_cell_go(t, c);
}

trv_status sim_replan(trv_ctx *ctx, const sim_seen *m, const prm_terrain *t, const sim_path *p, double s0, double x,
                      double y, prm_path *out, double *wall_s, int *local)
{
    double t0 = trv_now_s();
    memset(out, 0, sizeof *out);
    *local = 0;
    size_t n = (size_t)m->nx * m->ny;
    unsigned char *mask = malloc(n);
    if (!mask)
        return trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
    double len = p->s[p->n - 1], ds = t->cell_m / 4, gap = 3 * t->cell_m;
    /* the first blocked stretch of the rest of the path (gaps under 3 cells join) */
    double sb1 = -1, sb2 = -1;
    for (double s = s0; s <= len; s += ds) {
        double px, py;
        sim_path_point(p, s, &px, &py);
        if (cell_forbidden(m, t, px, py)) {
            if (sb1 < 0)
                sb1 = s;
            sb2 = s;
        } else if (sb1 >= 0 && s > sb2 + gap)
            break;
    }
    trv_status st = TRV_ERR_DATA;
    double sr = sb2 + gap;
    if (sb1 >= 0 && sr < len) {
        /* local: to the first open point past the stretch, in a window around both */
        double gx, gy;
        sim_path_point(p, sr, &gx, &gy);
        while (sr < len && cell_forbidden(m, t, gx, gy))
            sr += ds, sim_path_point(p, sr, &gx, &gy);
        if (sr < len) {
            const geo_grid *g = t->grid;
            double cx[2] = {(x - g->gt[0]) / g->gt[1], (gx - g->gt[0]) / g->gt[1]};
            double ry[2] = {(y - g->gt[3]) / g->gt[5], (gy - g->gt[3]) / g->gt[5]};
            double span = fmax(fabs(cx[1] - cx[0]), fabs(ry[1] - ry[0]));
            int pad = (int)fmax(20, span);
            int win[4] = {(int)fmin(cx[0], cx[1]) - pad, (int)fmax(cx[0], cx[1]) + pad,
                          (int)fmin(ry[0], ry[1]) - pad, (int)fmax(ry[0], ry[1]) + pad};
            prm_path piece = {0};
            if (search(ctx, m, t, mask, win, x, y, gx, gy, &piece) == TRV_OK) {
                /* the detour, then the rest of the old path */
                int rest = 0;
                while (rest < p->n && p->s[rest] <= sr)
                    rest++;
                int nn = piece.n + (p->n - rest);
                double *nx = malloc(nn * sizeof *nx), *ny = malloc(nn * sizeof *ny);
                if (nx && ny) {
                    memcpy(nx, piece.x, piece.n * sizeof *nx);
                    memcpy(ny, piece.y, piece.n * sizeof *ny);
                    memcpy(nx + piece.n, p->x + rest, (p->n - rest) * sizeof *nx);
                    memcpy(ny + piece.n, p->y + rest, (p->n - rest) * sizeof *ny);
                    *out = (prm_path){nn, nx, ny, piece.objective, piece.expanded};
                    *local = 1;
                    st = TRV_OK;
                } else {
                    free(nx), free(ny);
                }
            }
            prm_path_clear(&piece);
        }
    }
    if (st) /* global: the whole grid, to the goal */
        st = search(ctx, m, t, mask, NULL, x, y, p->x[p->n - 1], p->y[p->n - 1], out);
    free(mask);
    if (wall_s)
        *wall_s = trv_now_s() - t0;
    return st;
}
