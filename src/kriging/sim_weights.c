/* The ordinary-kriging weights of a window of target cells, solved once for
 * the realisations of a pair (sim.h: the kriging error of U, krg_simw). */
#include "krige_priv.h"
#include "sim.h"

#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#define NODATA (-9999.0f)

typedef struct wband {
    const krg_simw *W;
    const krg_points *p;
    const krg_source *src;  /* NULL: per-target neighbourhoods */
    const krg_index *ix;
    const krg_model *m;
    const krg_opts *o;
    const geo_grid *t;
    const float *pred;      /* W's window */
    int r0, r1;
    krg_sys sys;
    geo_ct *ct;             /* target -> source CRS */
    double *sx, *sy;        /* a row's targets in the source CRS */
    int *ok;
    int failed;
} wband;

static int cmp_long(const void *a, const void *b)
{
    long x = *(const long *)a, y = *(const long *)b;
    return (x > y) - (x < y);
}

/* The block (source cell (qr, qc), as krg_refine picks it) of the target
 * at (sx, sy) in the source CRS: its key qr * nx + qc, or -1 off the raster. */
static long block_of(const krg_source *src, double sx, double sy)
{
    const geo_grid *g = &src->grid;
    double u = (sx - g->gt[0]) / g->gt[1] - 0.5, v = (sy - g->gt[3]) / g->gt[5] - 0.5;
    if (!(u >= -0.5 && v >= -0.5 && u <= g->nx - 0.5 && v <= g->ny - 0.5))
        return -1;
    int r = (int)floor(v), c = (int)floor(u);
    r = r < 0 ? 0 : r > g->ny - 2 ? (g->ny >= 2 ? g->ny - 2 : 0) : r;
    c = c < 0 ? 0 : c > g->nx - 2 ? (g->nx >= 2 ? g->nx - 2 : 0) : c;
    return (long)r * g->nx + c;
}

/* The neighbours of a target: for a raster source the nmax samples
 * nearest to its block's centre (the mean of the block's four corners, as
 * krg_refine), else the nmax nearest to the target (krg_predict);
 * ascending. Returns how many. */
static int neighbours(const wband *B, long key, double x, double y, long *idx, double *d2)
{
    double ax = x, ay = y;
    if (B->src) {
        const krg_source *src = B->src;
        int nx = src->grid.nx, qr = (int)(key / nx), qc = (int)(key % nx);
        int r1 = qr + 1 < src->grid.ny ? qr + 1 : qr, c1 = qc + 1 < nx ? qc + 1 : qc;
        ax = 0.25 * (src->wx[(size_t)qr * nx + qc] + src->wx[(size_t)qr * nx + c1] + src->wx[(size_t)r1 * nx + qc] +
                     src->wx[(size_t)r1 * nx + c1]);
        ay = 0.25 * (src->wy[(size_t)qr * nx + qc] + src->wy[(size_t)qr * nx + c1] + src->wy[(size_t)r1 * nx + qc] +
                     src->wy[(size_t)r1 * nx + c1]);
    }
    int n = krg_index_nearest(B->ix, ax, ay, B->W->k, B->o->maxdist, -1, idx, d2);
    qsort(idx, (size_t)n, sizeof *idx, cmp_long);
    return n;
}

/* Rows r0..r1-1 of W's window: each data cell's neighbours, one
 * factorisation per distinct set met in a row, the weights as floats. */
static void *wband_run(void *arg)
{
    wband *B = arg;
    const krg_simw *W = B->W;
    int k = W->k, nx = W->nx, x0 = W->x0;
    long idx[k], last = -2;
    double d2[k];
    for (int row = B->r0; row < B->r1 && !B->failed; row++) {
        double y = geo_grid_y(B->t, row);
        for (int c = 0; c < nx; c++) {
            B->sx[c] = geo_grid_x(B->t, x0 + c);
            B->sy[c] = y;
        }
        if (B->ct)
            geo_ct_points(B->ct, (size_t)nx, B->sx, B->sy, B->ok);
        for (int c = 0; c < nx; c++) {
            size_t cell = (size_t)(row - W->y0) * nx + c;
            int32_t *ci = W->idx + cell * k;
            float *cw = W->w + cell * k;
            memset(ci, 0, (size_t)k * sizeof *ci);
            memset(cw, 0, (size_t)k * sizeof *cw);
            long key = B->src ? (B->ok[c] ? block_of(B->src, B->sx[c], B->sy[c]) : -1) : 0;
            if (B->pred[cell] == NODATA || key < 0)
                continue;
            double x = geo_grid_x(B->t, x0 + c);
            if (key != last || !B->src) {
                int n = neighbours(B, key, x, y, idx, d2);
                if (n == 0)
                    continue;
                if ((B->sys.n != n || memcmp(B->sys.idx, idx, (size_t)n * sizeof *idx)) &&
                    krg_sys_factor(&B->sys, B->p, B->m, idx, n) != 0) {
                    B->failed = 1;
                    break;
                }
                last = key;
            }
            krg_sys_solve(&B->sys, B->p, B->m, x, y);
            for (int i = 0; i < B->sys.n; i++) {
                ci[i] = (int32_t)B->sys.idx[i];
                cw[i] = (float)B->sys.rhs[i];
            }
        }
    }
    return NULL;
}

int krg_simw_k(const krg_points *p, const krg_opts *o)
{
    return o->nmax <= 0 || (size_t)o->nmax > p->n ? (int)p->n : o->nmax;
}

int krg_simw_fits(const krg_points *p, const krg_opts *o, const geo_grid *t, double max_bytes)
{
    return p->n <= INT32_MAX && (double)t->nx * t->ny * krg_simw_k(p, o) * 8 <= max_bytes;
}

trv_status krg_simw_room(trv_ctx *ctx, krg_simw *W, int k, int x0, int nx, int y0, int y1)
{
    size_t cells = (size_t)nx * (y1 - y0), n = cells * k;
    W->k = k;
    W->x0 = x0;
    W->nx = nx;
    W->y0 = W->y1 = y0;
    if (n > W->cap) {
        free(W->idx);
        free(W->w);
        W->w = NULL;
        W->cap = 0;
        if (!(W->idx = malloc(n * sizeof *W->idx)) || !(W->w = malloc(n * sizeof *W->w)))
            return trv_error(ctx, TRV_ERR_NOMEM, "out of memory (kriging weights of %zu cells)", cells);
        W->cap = n;
    }
    W->cells = cells;
    return TRV_OK;
}

trv_status krg_simw_window(trv_ctx *ctx, const krg_points *p, const krg_source *src, const krg_index *ix,
                           const krg_model *m, const krg_opts *o, const geo_grid *t, int x0, int nx, int y0, int y1,
                           const float *pred, krg_simw *W)
{
    int k = krg_simw_k(p, o);
    trv_status st = krg_simw_room(ctx, W, k, x0, nx, y0, y1); /* wband_run's cells are relative to W's window */
    if (st)
        return st;
    int nt = krg_threads(o->threads);
    nt = nt > 64 ? 64 : nt > y1 - y0 ? y1 - y0 : nt;
    wband B[64];
    pthread_t th[64];
    int running[64] = {0};
    for (int i = 0; i < nt; i++) {
        B[i] = (wband){.W = W, .p = p, .src = src, .ix = ix, .m = m, .o = o, .t = t, .pred = pred,
                       .r0 = y0 + (int)((long)(y1 - y0) * i / nt), .r1 = y0 + (int)((long)(y1 - y0) * (i + 1) / nt)};
        if (!st)
            st = krg_sys_init(ctx, &B[i].sys, k);
        B[i].sx = malloc((size_t)nx * sizeof *B[i].sx);
        B[i].sy = malloc((size_t)nx * sizeof *B[i].sy);
        B[i].ok = malloc((size_t)nx * sizeof *B[i].ok);
        if (!st && (!B[i].sx || !B[i].sy || !B[i].ok))
            st = trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
        if (!st && src)
            st = geo_ct_create(ctx, t->wkt, src->grid.wkt, &B[i].ct);
    }
    if (!st) {
        for (int i = 1; i < nt; i++)
            running[i] = pthread_create(&th[i], NULL, wband_run, &B[i]) == 0;
        wband_run(&B[0]);
        for (int i = 1; i < nt; i++)
            if (running[i])
                pthread_join(th[i], NULL);
            else
                wband_run(&B[i]);
        for (int i = 0; i < nt && !st; i++)
            if (B[i].failed)
                st = trv_error(ctx, TRV_ERR_DATA, "singular kriging system while weighting the realisations");
    }
    for (int i = 0; i < nt; i++) {
        krg_sys_free(&B[i].sys);
        geo_ct_free(B[i].ct);
        free(B[i].sx);
        free(B[i].sy);
        free(B[i].ok);
    }
    if (!st)
        W->y1 = y1; /* else W holds no rows */
    return st;
}

void krg_simw_clear(krg_simw *W)
{
    free(W->idx);
    free(W->w);
    memset(W, 0, sizeof *W);
}
