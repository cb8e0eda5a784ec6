/* The roadmap nodes nearest a point, ring by ring of cells (nearest.h). */
#include "nearest.h"

#include <math.h>
#include <stdlib.h>

enum { PER_CELL = 8 };

/* The cell column (or row) of coordinate v, clamped into 0..n-1. */
static int cell_of(double v, double v0, double cw, int n)
{
    double c = floor((v - v0) / cw);
    return c < 0 ? 0 : c >= n ? n - 1 : (int)c;
}

trv_status prm_near_grid_build(trv_ctx *ctx, const double *x, const double *y, int n, prm_near_grid *g)
{
    *g = (prm_near_grid){0};
    double x0 = n ? x[0] : 0, x1 = x0, y0 = n ? y[0] : 0, y1 = y0;
    for (int i = 1; i < n; i++) {
        x0 = x[i] < x0 ? x[i] : x0, x1 = x[i] > x1 ? x[i] : x1;
        y0 = y[i] < y0 ? y[i] : y0, y1 = y[i] > y1 ? y[i] : y1;
    }
    double w = x1 - x0, h = y1 - y0, cw = sqrt(w * h * PER_CELL / (n > 0 ? n : 1));
    if (!(cw > 0)) /* nodes on a line or one point */
        cw = (w > h ? w : h) / (n / PER_CELL + 1);
    if (!(cw > 0))
        cw = 1;
    while (w / cw >= 4096 || h / cw >= 4096) /* at most 4096 cells a side */
        cw *= 2;
    g->x0 = x0, g->y0 = y0, g->cw = cw;
    g->nx = (int)floor(w / cw) + 1, g->ny = (int)floor(h / cw) + 1;
    size_t nc = (size_t)g->nx * g->ny;
    g->start = calloc(nc + 1, sizeof *g->start);
    g->id = malloc(((size_t)n + 1) * sizeof *g->id);
    int *fill = malloc((nc + 1) * sizeof *fill);
    if (!g->start || !g->id || !fill) {
        free(fill);
        prm_near_grid_clear(g);
        return trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
    }
    for (int i = 0; i < n; i++)
        g->start[(size_t)cell_of(y[i], y0, cw, g->ny) * g->nx + cell_of(x[i], x0, cw, g->nx) + 1]++;
    for (size_t c = 0; c < nc; c++)
        g->start[c + 1] += g->start[c];
    for (size_t c = 0; c <= nc; c++)
        fill[c] = g->start[c];
    for (int i = 0; i < n; i++) /* ids ascending in each cell */
        g->id[fill[(size_t)cell_of(y[i], y0, cw, g->ny) * g->nx + cell_of(x[i], x0, cw, g->nx)]++] = i;
    free(fill);
    return TRV_OK;
}

void prm_near_grid_clear(prm_near_grid *g)
{
    free(g->start);
    free(g->id);
    *g = (prm_near_grid){0};
}

typedef struct cand {
    double d;
    int id;
} cand;

/* c into best (sorted by (d, id), m of at most k held): a candidate
 * behind the k-th of those seen is never among the k nearest. */
static void keep(cand *best, int *m, int k, cand c)
{
    if (*m == k && (best[k - 1].d < c.d || (best[k - 1].d == c.d && best[k - 1].id < c.id)))
        return;
    int j = *m < k ? (*m)++ : k - 1;
    while (j > 0 && (best[j - 1].d > c.d || (best[j - 1].d == c.d && best[j - 1].id > c.id))) {
        best[j] = best[j - 1];
        j--;
    }
    best[j] = c;
}

/* Cell (c, r)'s nodes offered to best. */
static void take_cell(const prm_near_grid *g, const double *x, const double *y, const double p[2], long c, long r,
                      cand *best, int *m, int k)
{
    if (c < 0 || r < 0 || c >= g->nx || r >= g->ny)
        return;
    size_t cell = (size_t)r * g->nx + c;
    for (int q = g->start[cell]; q < g->start[cell + 1]; q++) {
        int i = g->id[q];
        keep(best, m, k, (cand){hypot(x[i] - p[0], y[i] - p[1]), i});
    }
}

static long clampl(long v, long lo, long hi) { return v < lo ? lo : v > hi ? hi : v; }

/* Ring q's cells (Chebyshev distance q from (pc, pr)) on the grid offered
 * to best. */
static void take_ring(const prm_near_grid *g, const double *x, const double *y, const double p[2], long pc, long pr,
                      long q, cand *best, int *m, int k)
{
    for (long c = clampl(pc - q, 0, g->nx), c1 = clampl(pc + q, -1, g->nx - 1); c <= c1; c++) {
        take_cell(g, x, y, p, c, pr - q, best, m, k);
        if (q > 0)
            take_cell(g, x, y, p, c, pr + q, best, m, k);
    }
    for (long r = clampl(pr - q + 1, 0, g->ny), r1 = clampl(pr + q - 1, -1, g->ny - 1); r <= r1; r++) {
        take_cell(g, x, y, p, pc - q, r, best, m, k);
        take_cell(g, x, y, p, pc + q, r, best, m, k);
    }
}

int prm_near_k(const prm_near_grid *g, const double *x, const double *y, double px, double py, int k, int *out)
{
    if (k <= 0)
        return 0;
    /* p's cell, unclamped (within a range the rings can reach) */
    double fc = floor((px - g->x0) / g->cw), fr = floor((py - g->y0) / g->cw), lim = 1 << 20, p[2] = {px, py};
    long pc = (long)fmax(-lim, fmin(lim, fc)), pr = (long)fmax(-lim, fmin(lim, fr));
    long dc = pc < 0 ? -pc : pc >= g->nx ? pc - g->nx + 1 : 0, dr = pr < 0 ? -pr : pr >= g->ny ? pr - g->ny + 1 : 0;
    cand *best = malloc((size_t)k * sizeof *best);
    int m = 0;
    if (!best)
        return -1;
    for (long q = dc > dr ? dc : dr;; q++) { /* from the first ring that holds a cell of the grid */
        take_ring(g, x, y, p, pc, pr, q, best, &m, k);
        if (pc - q <= 0 && pr - q <= 0 && pc + q >= g->nx - 1 && pr + q >= g->ny - 1)
            break; /* every cell seen */
        /* how far p is from the outside of the square of cells searched */
        double left = px - (g->x0 + (double)(pc - q) * g->cw), right = g->x0 + (double)(pc + q + 1) * g->cw - px;
        double low = py - (g->y0 + (double)(pr - q) * g->cw), high = g->y0 + (double)(pr + q + 1) * g->cw - py;
        double bound = fmin(fmin(left, right), fmin(low, high)) - 1e-7 * g->cw;
        if (m == k && best[k - 1].d < bound)
            break;
    }
    for (int i = 0; i < m; i++)
        out[i] = best[i].id;
    free(best);
    return m;
}
