/* Kriging onto regular grids: DEM refinement with block neighbourhoods
 * and the regular-grid stencil, and scattered points onto a grid. The
 * DEM's samples (krg_source) come from source.c. */
#include "krige_priv.h"

#include <limits.h>
#include <math.h>
#include <pthread.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif
#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define HAVE_AVX_DIST 1
#endif
#include <stdlib.h>
#include <string.h>

#define NODATA (-9999.0f)

/* ---- the regular-grid stencil ------------------------------------------- */

enum { MAX_OFFSETS = 64 };

typedef struct stencil {
    int on;
    int n;                  /* neighbours: the pattern's size */
    int *di, *dj;           /* pattern cells relative to the block's top-left sample */
    int *col_q, *row_q;     /* per target column/row: block column/row */
    char *col_in, *row_in;  /* per target column/row: inside the raster's footprint */
    int *col_o, *row_o;     /* per target column/row: offset index */
    double du[MAX_OFFSETS], dv[MAX_OFFSETS];
    int ndu, ndv;
    double *w;              /* [ndv][ndu][n + 1]: weights, then the variance */
    char *done;             /* [ndv][ndu] */
    pthread_mutex_t lock;
} stencil;

static int offset_index(double *list, int *count, double d)
{
    for (int k = 0; k < *count; k++)
        if (fabs(list[k] - d) < 1e-9)
            return k;
    if (*count == MAX_OFFSETS)
        return -1;
    list[*count] = d;
    return (*count)++;
}

int krg_cand_nearest(const void *a, const void *b)
{
    const krg_cand *p = a, *q = b;
    if (p->d2 != q->d2)
        return p->d2 < q->d2 ? -1 : 1;
    if (p->di != q->di) /* among equals the later point first, as the index does */
        return p->di > q->di ? -1 : 1;
    return (p->dj < q->dj) - (p->dj > q->dj);
}

int krg_cand_rowmajor(const void *a, const void *b)
{
    const krg_cand *p = a, *q = b;
    if (p->di != q->di)
        return p->di < q->di ? -1 : 1;
    return (p->dj > q->dj) - (p->dj < q->dj);
}

static void stencil_free(stencil *S)
{
    free(S->di);
    free(S->dj);
    free(S->col_q);
    free(S->row_q);
    free(S->col_o);
    free(S->row_o);
    free(S->col_in);
    free(S->row_in);
    free(S->w);
    free(S->done);
    if (S->on)
        pthread_mutex_destroy(&S->lock);
}

/* Set up the stencil if this refinement allows it: source and target are
 * grids of the working CRS, no maxdist, no tie at the neighbour cut, and
 * few distinct offsets. Leaves S->on = 0 otherwise. */
static trv_status stencil_init(trv_ctx *ctx, stencil *S, const krg_source *src, const geo_grid *t, int nmax,
                               double maxdist, int allow)
{
    memset(S, 0, sizeof *S);
    const geo_grid *g = &src->grid;
    if (!allow || !src->regular || !geo_crs_same(t->wkt, src->work_wkt) || isfinite(maxdist) || g->nx < 2 ||
        g->ny < 2 || nmax < 1 || (size_t)nmax >= src->pts->n)
        return TRV_OK;
    double dxm = g->gt[1], dym = fabs(g->gt[5]);
    int R = (int)ceil(sqrt((double)nmax)) + 2, nc = (2 * R + 2) * (2 * R + 2), k = 0;
    krg_cand *c = malloc((size_t)nc * sizeof *c);
    if (!c)
        return trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
    for (int di = -R; di <= R + 1; di++)
        for (int dj = -R; dj <= R + 1; dj++) {
            double ex = (dj - 0.5) * dxm, ey = (di - 0.5) * dym;
            c[k++] = (krg_cand){ex * ex + ey * ey, di, dj};
        }
    qsort(c, (size_t)nc, sizeof *c, krg_cand_nearest);
    if (c[nmax].d2 - c[nmax - 1].d2 <= 1e-9 * c[nmax].d2) { /* a tie at the cut: sets would be ambiguous */
        free(c);
        return TRV_OK;
    }
    S->n = nmax;
    S->di = malloc((size_t)nmax * sizeof *S->di);
    S->dj = malloc((size_t)nmax * sizeof *S->dj);
    S->col_q = malloc((size_t)t->nx * sizeof(int));
    S->col_o = malloc((size_t)t->nx * sizeof(int));
    S->row_q = malloc((size_t)t->ny * sizeof(int));
    S->row_o = malloc((size_t)t->ny * sizeof(int));
    S->col_in = malloc((size_t)t->nx);
    S->row_in = malloc((size_t)t->ny);
    if (!S->di || !S->dj || !S->col_q || !S->col_o || !S->row_q || !S->row_o || !S->col_in || !S->row_in) {
        free(c);
        stencil_free(S);
        return trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
    }
    /* the pattern in point-index order (row-major), as sorted neighbour sets are */
    qsort(c, (size_t)nmax, sizeof *c, krg_cand_rowmajor);
    for (int i = 0; i < nmax; i++) {
        S->di[i] = c[i].di;
        S->dj[i] = c[i].dj;
    }
    free(c);
    for (int col = 0; col < t->nx; col++) {
        double u = (geo_grid_x(t, col) - g->gt[0]) / g->gt[1] - 0.5;
        S->col_in[col] = u >= -0.5 && u <= g->nx - 0.5;
        int q = (int)floor(u);
        q = q < 0 ? 0 : q > g->nx - 2 ? g->nx - 2 : q;
        S->col_q[col] = q;
        if ((S->col_o[col] = offset_index(S->du, &S->ndu, u - q)) < 0)
            goto off;
    }
    for (int row = 0; row < t->ny; row++) {
        double v = (geo_grid_y(t, row) - g->gt[3]) / g->gt[5] - 0.5;
        S->row_in[row] = v >= -0.5 && v <= g->ny - 0.5;
        int q = (int)floor(v);
        q = q < 0 ? 0 : q > g->ny - 2 ? g->ny - 2 : q;
        S->row_q[row] = q;
        if ((S->row_o[row] = offset_index(S->dv, &S->ndv, v - q)) < 0)
            goto off;
    }
    S->w = malloc((size_t)S->ndu * S->ndv * (nmax + 1) * sizeof *S->w);
    S->done = calloc((size_t)S->ndu * S->ndv, 1);
    if (!S->w || !S->done) {
        stencil_free(S);
        return trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
    }
    pthread_mutex_init(&S->lock, NULL);
    S->on = 1;
    return TRV_OK;
off:
    stencil_free(S);
    memset(S, 0, sizeof *S);
    return TRV_OK;
}

/* Weights and variance for offset (iu, iv), solved once in the block's
 * own frame (metres from its top-left sample). */
static const double *stencil_weights(stencil *S, const krg_source *src, const krg_model *m, krg_sys *sys,
                                     krg_points *local, int iu, int iv)
{
    size_t e = (size_t)iv * S->ndu + iu;
    double *w = S->w + e * (S->n + 1);
    pthread_mutex_lock(&S->lock);
    if (!S->done[e]) {
        const geo_grid *g = &src->grid;
        long idx[S->n];
        for (int k = 0; k < S->n; k++) {
            local->x[k] = S->dj[k] * g->gt[1];
            local->y[k] = S->di[k] * g->gt[5];
            idx[k] = k;
        }
        if (krg_sys_factor(sys, local, m, idx, S->n) == 0) {
            w[S->n] = krg_sys_solve(sys, local, m, S->du[iu] * g->gt[1], S->dv[iv] * g->gt[5]);
            memcpy(w, sys->rhs, (size_t)S->n * sizeof *w);
        } else {
            w[S->n] = NAN;
        }
        S->done[e] = 1;
        sys->n = -1; /* the factors belong to the local frame, not to source points */
    }
    pthread_mutex_unlock(&S->lock);
    return w;
}

/* ---- block systems ------------------------------------------------------- */

/* A block's system in one of two forms (docs/method.md §1.7):
 * covariance form (cov = 1), for models with a sill s = nugget + psill:
 *   C = s 11' - G (C_ii = s) factorised C = L L' by Cholesky (krg_chol,
 *   L column-major), u = L^-1 1 (krg_chol_fwd),
 *   s11 = 1'C^-1 1, beta = 1'C^-1 z / s11, alpha = C^-1 (z - beta 1); then
 *   z* = beta - alpha'g0 (1'alpha = 0) and, with c0 = s - g0, y = L^-1 c0,
 *   sigma^2 = s - y'y + (1 - u'y)^2 / s11;
 * inverse form (cov = 0), for Pow and for C that Cholesky finds not
 * positive definite: the bordered variogram matrix K inverted from its
 * LDL' factors (LAPACK), b = K^-1 [z; 0], z* = b'[g0; 1],
 * sigma^2 = [g0; 1]' K^-1 [g0; 1]. Both are ordinary kriging, equal but
 * for rounding. */
typedef struct block {
    long key;               /* -1: empty */
    int n;
    long *idx;
    int cov;                /* 1: covariance form */
    double *kinv;           /* cov: L (n x n column-major, lower), u (n), 1/L_ii (n); else (n+1)^2 K^-1 */
    const double *fac;      /* cov: L, u, 1/L_ii: kinv, or the frame's */
    const krg_frame *frame; /* solved in this frame's factor (NULL: its own system) */
    int fresh;              /* framed with an earlier block of its row, not used yet */
    double *b;              /* cov: alpha (n); else n+1: K^-1 [z; 0] */
    const double *px, *py;  /* n: the points' coordinates, in idx order: own, or the frame's */
    double *ownx, *owny;    /* nmax each: the own ones (a block with its own system) */
    double beta, s11, sill; /* cov only */
    int singular;
} block;

/* The covariance matrix of the block built last in a band: neighbouring
 * blocks share most samples, and the same two samples give the same bits. */
typedef struct cmemo {
    int n, cap;
    long *idx;              /* cap: ascending */
    double *c;              /* cap x cap, column-major, lower triangle */
    int avx;                /* krg_chol_avx() */
} cmemo;

/* C's lower triangle for the n samples idx (ascending) into W (n x n,
 * column-major): pairs the memo holds copied, the others evaluated; then
 * the memo holds this matrix. */
static void cov_fill(double *W, const long *idx, int n, const krg_points *p, const krg_model *m, double sill,
                     cmemo *memo)
{
    int pos[n];
    for (int i = 0, k = 0; i < n; i++) { /* both lists ascend: one merge */
        while (k < memo->n && memo->idx[k] < idx[i])
            k++;
        pos[i] = k < memo->n && memo->idx[k] == idx[i] ? k : -1;
    }
    for (int j = 0; j < n; j++) {
        double xj = p->x[idx[j]], yj = p->y[idx[j]];
        double *wj = W + (size_t)j * n;
        wj[j] = sill;
        for (int i = j + 1; i < n; i++) {
            if (pos[i] >= 0 && pos[j] >= 0) {
                wj[i] = memo->c[(size_t)pos[j] * memo->cap + pos[i]];
            } else {
                double dx = xj - p->x[idx[i]], dy = yj - p->y[idx[i]];
                wj[i] = sill - krg_gamma(m, sqrt(dx * dx + dy * dy));
            }
        }
    }
    for (int j = 0; j < n; j++) {
        memo->idx[j] = idx[j];
        memcpy(memo->c + (size_t)j * memo->cap + j, W + (size_t)j * n + j, (size_t)(n - j) * sizeof *W);
    }
    memo->n = n;
}

/* The covariance form of block B over its n points B->idx (see block):
 * 0, or -1 when Cholesky meets a pivot <= 1e-12 s (left to the inverse
 * form, which pivots). */
static int block_cov(block *B, const krg_points *p, const krg_model *m, double sill, cmemo *memo)
{
    int n = B->n;
    double *L = B->kinv, *u = B->kinv + (size_t)n * n, *r = u + n, *a = B->b;
    cov_fill(L, B->idx, n, p, m, sill, memo);
    if (krg_chol(L, n, 1e-12 * sill, r, memo->avx) != 0)
        return -1;
    /* u = L^-1 1 and v = L^-1 z (v in a), forward */
    for (int i = 0; i < n; i++) {
        u[i] = 1;
        a[i] = p->z[B->idx[i]];
    }
    krg_chol_fwd(L, n, r, u, memo->avx);
    krg_chol_fwd(L, n, r, a, memo->avx);
    double s11 = 0, s1z = 0;
    for (int i = 0; i < n; i++) {
        s11 += u[i] * u[i];
        s1z += u[i] * a[i];
    }
    B->s11 = s11;
    B->beta = s1z / s11;
    B->sill = sill;
    /* alpha = L'^-1 (v - beta u), backward */
    for (int i = 0; i < n; i++)
        a[i] -= B->beta * u[i];
    for (int i = n - 1; i >= 0; i--) {
        const double *li = L + (size_t)i * n; /* column i: L_ki, k > i */
        double acc = a[i];
        for (int k = i + 1; k < n; k++)
            acc -= li[k] * a[k];
        a[i] = acc * r[i];
    }
    B->cov = 1;
    B->fac = B->kinv;
    return 0;
}

typedef struct band {
    /* shared */
    const krg_source *src;
    const krg_index *ix;
    const krg_model *m;
    const krg_opts *o;
    const geo_grid *t;
    stencil *S;
    krg_frames *F;          /* lattice frames (F->on: in use) */
    const krg_gtab *gt;     /* gamma for the right-hand sides */
    float *pred, *std;      /* this call's window: row-major, wnx wide, its cell (x0, base) first */
    int base, x0, wnx;      /* the window's first row, first column, width */
    struct band_ws *w;      /* the band's workspace, kept from call to call */
    int nmax;
    int avx;                /* have_avx(): block_dist may use AVX, the table AVX2 */
    pthread_mutex_t *lock;
    size_t *cells_done;
    int *failed;
    trv_ctx *ctx;           /* progress: only band 0 reports */
    /* own */
    int r0, r1, first;
    int id, nt, chunk;      /* rows of chunk k (chunk rows) go to band k % nt */
    trv_status st;
    char msg[256];
    krg_refine_stats stats;
} band;

static int block_compute(block *B, const band *J, krg_sys *sys, cmemo *memo, long *idx, double *d2, int qr, int qc)
{
    const krg_source *src = J->src;
    const geo_grid *g = &src->grid;
    int nx = g->nx;
    /* the block's centre in working coordinates: the mean of its corners */
    int r1 = qr + 1 < g->ny ? qr + 1 : qr, c1 = qc + 1 < nx ? qc + 1 : qc;
    double ax = 0.25 * (src->wx[(size_t)qr * nx + qc] + src->wx[(size_t)qr * nx + c1] +
                        src->wx[(size_t)r1 * nx + qc] + src->wx[(size_t)r1 * nx + c1]);
    double ay = 0.25 * (src->wy[(size_t)qr * nx + qc] + src->wy[(size_t)qr * nx + c1] +
                        src->wy[(size_t)r1 * nx + qc] + src->wy[(size_t)r1 * nx + c1]);
    int n = krg_index_nearest(J->ix, ax, ay, J->nmax, J->o->maxdist, -1, idx, d2);
    B->n = n;
    B->frame = NULL;
    B->fresh = 0;
    B->singular = 0;
    B->px = B->ownx;
    B->py = B->owny;
    if (n == 0)
        return 0;
    /* canonical order */
    for (int i = 1; i < n; i++) { /* insertion, the element held: no pairwise swaps */
        long v = idx[i];
        int j = i;
        for (; j > 0 && idx[j - 1] > v; j--)
            idx[j] = idx[j - 1];
        idx[j] = v;
    }
    memcpy(B->idx, idx, (size_t)n * sizeof *idx);
    for (int i = 0; i < n; i++) {
        B->ownx[i] = src->pts->x[idx[i]];
        B->owny[i] = src->pts->y[idx[i]];
    }
    const krg_model *m = J->m;
    double sill = m->nugget + m->psill;
    B->cov = 0;
    if (m->type != KRG_POW && isfinite(sill) && sill > 0 && block_cov(B, src->pts, m, sill, memo) == 0)
        return 0;
    if (krg_sys_factor(sys, src->pts, J->m, idx, n) != 0) {
        B->singular = 1;
        return -1;
    }
    int N = n + 1;
    /* K^-1 column by column from the factors (one column per solve: the
     * bits of the earlier releases); then b = K^-1 [z; 0] */
    for (int j = 0; j < N; j++) {
        double *col = B->kinv + (size_t)j * N;
        memset(col, 0, (size_t)N * sizeof *col);
        col[j] = 1;
        LAPACKE_dsytrs_work(LAPACK_COL_MAJOR, 'L', N, 1, sys->a, N, sys->ipiv, col, N);
    }
    for (int i = 0; i < N; i++) {
        double acc = 0;
        for (int k = 0; k < n; k++)
            acc += B->kinv[(size_t)k * N + i] * src->pts->z[idx[k]];
        B->b[i] = acc;
    }
    return 0;
}

/* ---- one band of rows, run by one thread ------------------------------------ */

/* A band's workspace: the block cache, the row buffers, and the thread's
 * own transforms, kriging system and error context. */
typedef struct band_ws {
    int ready;              /* ws_init done */
    block *cache;
    size_t half;            /* cache slots per parity of source row: 2 half in all */
    double *store;
    long *idxstore;
    int lcap;               /* the line buffers' length: the widest window so far */
    double *sx, *sy;        /* a window's row of targets in the raster's CRS */
    double *wx, *wy;        /* and in the working CRS */
    int *ok1, *ok2;         /* transformed */
    long *idx;
    double *d2, *gv;
    krg_points *local;
    geo_ct *to_src, *to_work;
    krg_srcline line;       /* the targets' source cells, cheaply */
    krg_sys sys;
    cmemo memo;
    trv_ctx *scratch;
} band_ws;

static void ws_free(band_ws *w)
{
    free(w->cache);
    free(w->store);
    free(w->idxstore);
    free(w->sx);
    free(w->sy);
    free(w->wx);
    free(w->wy);
    free(w->ok1);
    free(w->ok2);
    free(w->idx);
    free(w->d2);
    free(w->gv);
    krg_points_free(w->local);
    krg_sys_free(&w->sys);
    krg_srcline_free(&w->line);
    free(w->memo.idx);
    free(w->memo.c);
    geo_ct_free(w->to_src);
    geo_ct_free(w->to_work);
    trv_ctx_free(w->scratch);
}

/* The line buffers for a window nx wide (grown when wider than before).
 * On failure J->st and J->msg say why. */
static int ws_lines(band *J, band_ws *w, int nx)
{
    if (nx <= w->lcap)
        return 0;
    double **d[4] = {&w->sx, &w->sy, &w->wx, &w->wy};
    int **o[2] = {&w->ok1, &w->ok2};
    int bad = 0;
    for (int k = 0; k < 4; k++) {
        free(*d[k]);
        bad |= !(*d[k] = malloc((size_t)nx * sizeof **d[k]));
    }
    for (int k = 0; k < 2; k++) {
        free(*o[k]);
        bad |= !(*o[k] = malloc((size_t)nx * sizeof **o[k]));
    }
    w->lcap = bad ? 0 : nx;
    if (bad) {
        J->st = TRV_ERR_NOMEM;
        snprintf(J->msg, sizeof J->msg, "out of memory for kriging");
        return -1;
    }
    return 0;
}

/* The block cache: block (qr, qc) in slot (qr mod 2) half + qc mod half
 * (slot), so two source rows of a stretch of half columns never meet;
 * half is as wide as the widest stretch of source columns a window's row
 * has reached (ws_cache_fit), at most the raster's width and 64 MB in
 * all. A block's system is the same bits cached or built again: the
 * slots change the work (the "factorised" count), never a value. */
static size_t slot(const band_ws *w, int qr, int qc)
{
    return (size_t)(qr & 1) * w->half + (size_t)qc % w->half;
}

/* A cache entry's doubles. */
static size_t ws_entry(const band *J)
{
    const size_t N = (size_t)J->nmax + 1;
    return N * N + N + 2 * (size_t)J->nmax;
}

/* The cache made anew with `half` slots per row parity. On failure J->st
 * and J->msg say why. */
static int ws_cache(band *J, band_ws *w, size_t half)
{
    const int nmax = J->nmax, N = nmax + 1;
    const size_t entry = ws_entry(J);
    free(w->cache);
    free(w->store);
    free(w->idxstore);
    w->half = half;
    w->cache = calloc(2 * half, sizeof *w->cache);
    w->store = malloc(2 * half * entry * sizeof *w->store);
    w->idxstore = malloc(2 * half * (size_t)nmax * sizeof *w->idxstore);
    if (!w->cache || !w->store || !w->idxstore) {
        w->half = 0;
        J->st = TRV_ERR_NOMEM;
        snprintf(J->msg, sizeof J->msg, "out of memory for kriging");
        return -1;
    }
    for (size_t k = 0; k < 2 * half; k++) {
        w->cache[k].key = -1;
        w->cache[k].kinv = w->store + k * entry;
        w->cache[k].b = w->cache[k].kinv + (size_t)N * N;
        w->cache[k].ownx = w->cache[k].b + N;
        w->cache[k].owny = w->cache[k].ownx + nmax;
        w->cache[k].idx = w->idxstore + k * (size_t)nmax;
    }
    return 0;
}

/* Allocate the workspace; the block cache comes with the first row
 * (ws_cache_fit), the line buffers with the first window (ws_lines). On
 * failure J->st and J->msg say why. */
static int ws_init(band *J, band_ws *w)
{
    const geo_grid *g = &J->src->grid, *t = J->t;
    int nmax = J->nmax, N = nmax + 1;
    memset(w, 0, sizeof *w);
    w->idx = malloc((size_t)nmax * sizeof *w->idx);
    w->d2 = malloc((size_t)nmax * sizeof *w->d2), w->gv = malloc((size_t)N * sizeof *w->gv);
    w->memo = (cmemo){0, nmax, malloc((size_t)nmax * sizeof(long)), malloc((size_t)nmax * nmax * sizeof(double)),
                      krg_chol_avx()};
    w->scratch = trv_ctx_new();
    if (!w->idx || !w->d2 || !w->gv || !w->memo.idx || !w->memo.c || !w->scratch) {
        J->st = TRV_ERR_NOMEM;
        snprintf(J->msg, sizeof J->msg, "out of memory for kriging");
        return -1;
    }
    if ((J->st = krg_sys_init(w->scratch, &w->sys, nmax)) ||
        (J->st = krg_points_new(w->scratch, (size_t)nmax, &w->local)) ||
        (J->st = krg_srcline_init(w->scratch, &w->line, 1)) ||
        (J->st = geo_ct_create(w->scratch, t->wkt, g->wkt, &w->to_src)) ||
        (J->st = geo_ct_create(w->scratch, t->wkt, J->src->work_wkt, &w->to_work))) {
        snprintf(J->msg, sizeof J->msg, "%s", trv_errmsg(w->scratch));
        return -1;
    }
    w->ready = 1;
    return 0;
}

/* The source cell (qr, qc) of target (row, col) (col: the target's
 * column, w's line buffers at col - J->x0): with the stencil its
 * quadrant, else the raster cell whose centre is up and left of the
 * target (clamped to a whole block). 0 when the target is outside the
 * stencil's rows and columns or off the raster (no extrapolation). */
static int source_cell(const band *J, const band_ws *w, int row, int col, int *qr, int *qc)
{
    const geo_grid *g = &J->src->grid;
    const stencil *S = J->S;
    if (S->on) {
        if (!S->row_in[row] || !S->col_in[col])
            return 0;
        *qr = S->row_q[row];
        *qc = S->col_q[col];
        return 1;
    }
    const int k = col - J->x0;
    double u = (w->sx[k] - g->gt[0]) / g->gt[1] - 0.5, v = (w->sy[k] - g->gt[3]) / g->gt[5] - 0.5;
    if (u < -0.5 || v < -0.5 || u > g->nx - 0.5 || v > g->ny - 0.5)
        return 0;
    int r = (int)floor(v), c = (int)floor(u);
    *qr = r < 0 ? 0 : r > g->ny - 2 ? (g->ny >= 2 ? g->ny - 2 : 0) : r;
    *qc = c < 0 ? 0 : c > g->nx - 2 ? (g->nx >= 2 ? g->nx - 2 : 0) : c;
    return 1;
}

/* The stencil's estimate, where the whole pattern around (qr, qc) holds
 * data and its system is regular: 1 when P (and D) are set (the window's
 * row: column col at col - J->x0; likewise in frame_cell, block_cell). */
static int stencil_cell(band *J, band_ws *w, int row, int col, int qr, int qc, float *P, float *D)
{
    const krg_source *src = J->src;
    const geo_grid *g = &src->grid;
    stencil *S = J->S;
    for (int k = 0; k < S->n; k++) {
        int r = qr + S->di[k], c = qc + S->dj[k];
        if (r < 0 || c < 0 || r >= g->ny || c >= g->nx || src->point_of_cell[(size_t)r * g->nx + c] < 0)
            return 0;
    }
    const double *wt = stencil_weights(S, src, J->m, &w->sys, w->local, S->col_o[col], S->row_o[row]);
    if (!isfinite(wt[S->n]))
        return 0;
    double z = 0;
    for (int k = 0; k < S->n; k++)
        z += wt[k] * src->pts->z[src->point_of_cell[(size_t)(qr + S->di[k]) * g->nx + qc + S->dj[k]]];
    P[col - J->x0] = (float)z;
    if (D)
        D[col - J->x0] = (float)sqrt(fmax(wt[S->n], 0));
    return 1;
}

/* One target from a block in covariance form (see block), g0 in gv. */
static void cell_cov(const block *B, int avx, double *gv, float *P, float *D)
{
    int n = B->n;
    double z = B->beta;
    if (B->frame) { /* a framed block: four partial sums (independent chains), i mod 4 */
        z -= krg_dot4(B->b, gv, n, avx);
    } else {
        for (int i = 0; i < n; i++)
            z -= B->b[i] * gv[i];
    }
    *P = (float)z;
    if (!D)
        return;
    const double *L = B->fac, *u = B->fac + (size_t)n * n, *r = u + n;
    for (int i = 0; i < n; i++) /* y = L^-1 (s - g0), overwriting gv */
        gv[i] = B->sill - gv[i];
    krg_chol_fwd(L, n, r, gv, avx);
    double q = 0, t = 0;
    for (int i = 0; i < n; i++) {
        q += gv[i] * gv[i];
        t += u[i] * gv[i];
    }
    double var = B->sill - q + (1 - t) * (1 - t) / B->s11;
    *D = (float)sqrt(fmax(var, 0));
}

/* 2 when the processor has AVX2, 1 AVX, 0 neither (or this build lacks
 * the code for them). */
static int have_avx(void)
{
#ifdef HAVE_AVX_DIST
    return __builtin_cpu_supports("avx2") ? 2 : __builtin_cpu_supports("avx") ? 1 : 0;
#else
    return 0;
#endif
}

#ifdef HAVE_AVX_DIST
/* krg_gtab_eval four at a time with AVX2 over h[0..n-1] into g; returns
 * how many it did (a multiple of 4). The same operations in the same
 * order (multiply, truncate, subtract, the Horner sums; no fused
 * multiply-add), so the same bits; a group with a distance off the table
 * goes through krg_gtab_eval. */
__attribute__((target("avx2"))) static int gtab_eval_avx2(const krg_gtab *t, const double *h, double *g, int n)
{
    if (t->n == 0)
        return 0;
    const __m256d inv = _mm256_set1_pd(t->inv_d), zero = _mm256_setzero_pd(), top = _mm256_set1_pd((double)t->n);
    int i = 0;
    for (; i + 4 <= n; i += 4) {
        __m256d vh = _mm256_loadu_pd(h + i), r = _mm256_mul_pd(vh, inv);
        __m256d in = _mm256_and_pd(_mm256_cmp_pd(vh, zero, _CMP_GT_OQ), _mm256_cmp_pd(r, top, _CMP_LT_OQ));
        if (_mm256_movemask_pd(in) != 15) {
            for (int k = i; k < i + 4; k++)
                g[k] = krg_gtab_eval(t, h[k]);
            continue;
        }
        __m128i k = _mm256_cvttpd_epi32(r);
        __m256d u = _mm256_sub_pd(r, _mm256_cvtepi32_pd(k));
        /* each lane's four coefficients are contiguous: four loads and a
         * 4 x 4 transpose instead of four gathers (the same values) */
        int ki[4];
        _mm_storeu_si128((__m128i *)ki, k);
        __m256d q0 = _mm256_loadu_pd(t->c + 4 * (size_t)ki[0]), q1 = _mm256_loadu_pd(t->c + 4 * (size_t)ki[1]);
        __m256d q2 = _mm256_loadu_pd(t->c + 4 * (size_t)ki[2]), q3 = _mm256_loadu_pd(t->c + 4 * (size_t)ki[3]);
        __m256d t0 = _mm256_unpacklo_pd(q0, q1), t1 = _mm256_unpackhi_pd(q0, q1);
        __m256d t2 = _mm256_unpacklo_pd(q2, q3), t3 = _mm256_unpackhi_pd(q2, q3);
        __m256d c0 = _mm256_permute2f128_pd(t0, t2, 0x20), c2 = _mm256_permute2f128_pd(t0, t2, 0x31);
        __m256d c1 = _mm256_permute2f128_pd(t1, t3, 0x20), c3 = _mm256_permute2f128_pd(t1, t3, 0x31);
        __m256d v = _mm256_add_pd(c2, _mm256_mul_pd(u, c3));
        v = _mm256_add_pd(c1, _mm256_mul_pd(u, v));
        _mm256_storeu_pd(g + i, _mm256_add_pd(c0, _mm256_mul_pd(u, v)));
    }
    return i;
}
#endif

#ifdef HAVE_AVX_DIST
/* block_dist four at a time, on processors with AVX (the same operations,
 * so the same bits); the points from i on are left to the caller. */
__attribute__((target("avx"))) static double block_dist_avx(const block *B, double x, double y, double *h, int *i)
{
    __m256d vx = _mm256_set1_pd(x), vy = _mm256_set1_pd(y), vm = _mm256_set1_pd(INFINITY);
    for (; *i + 4 <= B->n; *i += 4) {
        __m256d dx = _mm256_sub_pd(_mm256_loadu_pd(B->px + *i), vx);
        __m256d dy = _mm256_sub_pd(_mm256_loadu_pd(B->py + *i), vy);
        __m256d dd = _mm256_add_pd(_mm256_mul_pd(dx, dx), _mm256_mul_pd(dy, dy));
        vm = _mm256_min_pd(vm, dd);
        _mm256_storeu_pd(h + *i, _mm256_sqrt_pd(dd));
    }
    double m4[4];
    _mm256_storeu_pd(m4, vm);
    return fmin(fmin(m4[0], m4[1]), fmin(m4[2], m4[3]));
}
#endif

/* The distances from (x, y) to the block's points into h; returns the
 * least squared one. Four at a time with AVX where the processor has it,
 * else two at a time with SSE2: the same IEEE operations (subtract,
 * multiply, add, square root: correctly rounded, no fused multiply-add),
 * so the same bits as one at a time. */
static double block_dist(const block *B, int avx, double x, double y, double *h)
{
    int n = B->n, i = 0;
    double near2 = INFINITY;
#ifdef HAVE_AVX_DIST
    if (avx)
        near2 = block_dist_avx(B, x, y, h, &i);
#else
    (void)avx;
#endif
#ifdef __SSE2__
    __m128d vx = _mm_set1_pd(x), vy = _mm_set1_pd(y), vm = _mm_set1_pd(INFINITY);
    for (; i + 2 <= n; i += 2) {
        __m128d dx = _mm_sub_pd(_mm_loadu_pd(B->px + i), vx), dy = _mm_sub_pd(_mm_loadu_pd(B->py + i), vy);
        __m128d dd = _mm_add_pd(_mm_mul_pd(dx, dx), _mm_mul_pd(dy, dy));
        vm = _mm_min_pd(vm, dd);
        _mm_storeu_pd(h + i, _mm_sqrt_pd(dd));
    }
    double m2[2];
    _mm_storeu_pd(m2, vm);
    near2 = fmin(near2, fmin(m2[0], m2[1]));
#endif
    for (; i < n; i++) {
        double dx = B->px[i] - x, dy = B->py[i] - y, dd = dx * dx + dy * dy;
        near2 = dd < near2 ? dd : near2;
        h[i] = sqrt(dd);
    }
    return near2;
}

/* The values of block (qr, qc)'s pattern in frame f into a[0], a[stride],
 * ...: 0 when a pattern cell is off the raster or nodata. */
static int frame_values(const krg_frame *f, const krg_source *src, int qr, int qc, double *a, int stride)
{
    const geo_grid *g = &src->grid;
    for (int k = 0; k < f->n; k++) {
        int r = qr + f->di[k], c = qc + f->dj[k];
        long p = r < 0 || c < 0 || r >= g->ny || c >= g->nx ? -1 : src->point_of_cell[(size_t)r * g->nx + c];
        if (p < 0)
            return 0;
        a[(size_t)k * stride] = src->pts->z[p];
    }
    return 1;
}

/* Block B in frame f, its alpha already in B->b (krg_frame_alpha): the
 * pattern's positions relative to the block's top-left sample, and the
 * frame's factor. */
static void frame_set(block *B, const krg_frame *f, double beta)
{
    B->px = f->px; /* relative to the block's top-left sample: the same for its blocks */
    B->py = f->py;
    B->n = f->n;
    B->beta = beta;
    B->cov = 1;
    B->fac = f->L;
    B->frame = f;
    B->s11 = f->s11;
    B->sill = f->sill;
    B->singular = 0;
}

/* Block key = (qr, qc) in frame f (krige_priv.h krg_frames), when its
 * whole pattern holds data, into the cache, with the next blocks of its
 * row in f that are neither cached nor short of data, up to four in all:
 * with L, u and s11 of the frame, v = L^-1 z, beta = u'v / s11, alpha =
 * L'^-1 (v - beta u) (krg_frame_alpha; four at once: krg_frame_alpha4,
 * the same bits). The others are marked fresh: counted when first used,
 * so that the count is the blocks used, as one at a time. 0 when block
 * (qr, qc) lacks data. */
static int frame_blocks(band_ws *w, const krg_frame *f, const krg_source *src, long key, int qr, int qc)
{
    int n = f->n, m = 0;
    const double *L = f->L, *u = L + (size_t)n * n, *r = u + n;
    double X[4 * n], beta[4];
    block *Bs[4];
    for (; m < 4 && qc + m < f->c0 + f->size; m++) {
        block *B = &w->cache[slot(w, qr, qc + m)];
        if ((m > 0 && B->key == key + m) || !frame_values(f, src, qr, qc + m, X + m, 4))
            break;
        Bs[m] = B;
    }
    if (m == 0)
        return 0;
    if (m == 1) {
        for (int k = 0; k < n; k++)
            Bs[0]->b[k] = X[4 * k];
        beta[0] = krg_frame_alpha(L, u, r, f->s11, n, Bs[0]->b, w->memo.avx);
    } else {
        for (int k = 0; k < n; k++)
            for (int l = m; l < 4; l++)
                X[4 * k + l] = 0; /* lanes without a block */
        krg_frame_alpha4(L, u, r, f->s11, n, X, beta, w->memo.avx);
        for (int l = 0; l < m; l++)
            for (int k = 0; k < n; k++)
                Bs[l]->b[k] = X[4 * k + l];
    }
    for (int l = 0; l < m; l++) {
        frame_set(Bs[l], f, beta[l]);
        Bs[l]->key = key + l;
        Bs[l]->fresh = l > 0;
    }
    return 1;
}

/* The right-hand side g0 of the target at (x, y): its distances to block
 * B's samples into h, their semivariances (the gamma table) into gv;
 * returns the least squared distance. */
static double target_gammas(const band *J, const block *B, double x, double y, double *h, double *gv)
{
    double near2 = block_dist(B, J->avx, x, y, h);
    int done = 0;
#ifdef HAVE_AVX_DIST
    if (J->avx == 2)
        done = gtab_eval_avx2(J->gt, h, gv, B->n);
#endif
    for (int i = done; i < B->n; i++)
        gv[i] = krg_gtab_eval(J->gt, h[i]);
    return near2;
}

/* Target col by its block's frame: its position relative to the block's
 * top-left sample from its fractional source index (a, b), x = Jc a + Jr
 * b, then distances, the gamma table and cell_cov as block_cell. 1 when P
 * (and D) are set; 0: the block takes its own system (block_cell). */
static int frame_cell(band *J, band_ws *w, int col, int qr, int qc, float *P, float *D)
{
    const krg_source *src = J->src;
    const geo_grid *g = &src->grid;
    long key = (long)qr * g->nx + qc;
    block *B = &w->cache[slot(w, qr, qc)];
    if (B->key != key) {
        const krg_frame *f = krg_frame_of(J->F, qr, qc);
        if (!f || !frame_blocks(w, f, src, key, qr, qc)) {
            B->key = -1;
            return 0;
        }
        J->stats.frame_blocks++;
    } else if (!B->frame) {
        return 0;
    } else if (B->fresh) {
        B->fresh = 0;
        J->stats.frame_blocks++;
    }
    const double *Jm = B->frame->J;
    const int k = col - J->x0;
    double a = (w->sx[k] - g->gt[0]) / g->gt[1] - 0.5 - qc, b = (w->sy[k] - g->gt[3]) / g->gt[5] - 0.5 - qr;
    double x = Jm[0] * a + Jm[2] * b, y = Jm[1] * a + Jm[3] * b;
    target_gammas(J, B, x, y, w->d2, w->gv);
    cell_cov(B, J->avx >= 1, w->gv, P + k, D ? D + k : NULL);
    return 1;
}

/* Block kriging of target col from the cached system of block (qr, qc):
 * 1 when P (and D) are set, 0 when no sample lies within maxdist, -1 when
 * the block's system is singular (J->st and J->msg set). */
static int block_cell(band *J, band_ws *w, int col, int qr, int qc, float *P, float *D)
{
    const krg_source *src = J->src;
    const geo_grid *g = &src->grid;
    const int k = col - J->x0;
    long key = (long)qr * g->nx + qc;
    block *B = &w->cache[slot(w, qr, qc)];
    if (B->key != key) {
        B->key = key;
        if (block_compute(B, J, &w->sys, &w->memo, w->idx, w->d2, qr, qc) != 0) {
            J->st = TRV_ERR_DATA;
            snprintf(J->msg, sizeof J->msg,
                     "singular kriging system near (%.3f, %.3f): coincident samples, or a model without "
                     "structure",
                     w->wx[k], w->wy[k]);
            return -1;
        }
        J->stats.systems++;
        J->stats.cov += (size_t)B->cov;
    }
    int n = B->n, NN = n + 1;
    if (n == 0)
        return 0;
    double *gv = w->gv, near2 = target_gammas(J, B, w->wx[k], w->wy[k], w->d2, gv);
    const double max2 = isfinite(J->o->maxdist) ? J->o->maxdist * J->o->maxdist : INFINITY;
    if (near2 > max2)
        return 0;
    if (B->cov) {
        cell_cov(B, J->avx >= 1, gv, P + k, D ? D + k : NULL);
        return 1;
    }
    gv[n] = 1;
    double z = 0;
    for (int i = 0; i < NN; i++)
        z += B->b[i] * gv[i];
    P[k] = (float)z;
    if (D) { /* the variance g'K^-1 g only when it is written */
        double var = 0;
        for (int i = 0; i < NN; i++) {
            const double *ki = B->kinv + (size_t)i * NN;
            double acc = 0;
            for (int j = 0; j < NN; j++)
                acc += ki[j] * gv[j];
            var += gv[i] * acc;
        }
        D[k] = (float)sqrt(fmax(var, 0));
    }
    return 1;
}

/* Count a finished row of the window; band 0 reports progress (the share
 * of the target's cells done). Non-zero: stop (another band failed, or
 * the callback cancelled: J->st set). */
static int row_done(band *J, int row)
{
    pthread_mutex_lock(J->lock);
    *J->cells_done += (size_t)J->wnx;
    int stop = *J->failed;
    size_t done = *J->cells_done;
    pthread_mutex_unlock(J->lock);
    if (stop)
        return 1;
    if (J->first && (row & 15) == 0 &&
        trv_progress(J->ctx, (double)done / ((double)J->t->nx * J->t->ny), "krige") != TRV_OK) {
        J->st = TRV_ERR_CANCEL; /* the message says why: the callback or a signal */
        snprintf(J->msg, sizeof J->msg, "%s", trv_errmsg(J->ctx));
        return 1;
    }
    return 0;
}

/* The block cache wide enough for the source columns the window's row
 * reaches (its blocks, and the three a frame solves after one: 4 more),
 * at most the raster's width and 64 MB in all; made anew when a row
 * reaches more, with half as much again to spare (a few remakes, not one
 * per column a row gains). On failure J->st and J->msg say why. */
static int ws_cache_fit(band *J, band_ws *w, int row)
{
    int lo = INT_MAX, hi = -1, qr, qc;
    for (int col = J->x0; col < J->x0 + J->wnx; col++)
        if (w->ok1[col - J->x0] && w->ok2[col - J->x0] && source_cell(J, w, row, col, &qr, &qc)) {
            lo = qc < lo ? qc : lo;
            hi = qc > hi ? qc : hi;
        }
    size_t need = hi < lo ? 1 : (size_t)(hi - lo) + 5, most = (size_t)J->src->grid.nx + 1;
    const size_t budget = ((size_t)64 << 20 >> 3) / ws_entry(J) / 2 + 1;
    most = most < budget ? most : budget;
    need = need < most ? need : most;
    if (need <= w->half)
        return 0;
    need += need / 2;
    return ws_cache(J, w, need < most ? need : most);
}

/* Band J's rows among r0..r1-1 of the window's columns x0 .. x0 + wnx -
 * 1: each target by the stencil where it applies, else by a frame or
 * block kriging; nodata off the raster, beyond maxdist or
 * untransformable. Each row's targets in the DEM's and the working CRS
 * come from the whole row's line transforms (krg_srcline_part,
 * geo_ct_line_part: the bits of the whole row's, whatever the window).
 * Its rows: chunk k of GEO_BLOCK_ROWS / nt rows goes to band k % nt,
 * whatever window the caller asks, so a window of the default height
 * gives each band one run of rows. The block cache's misses (the
 * "factorised" count) depend on the windows; the values do not. */
static void *band_run(void *arg)
{
    band *J = arg;
    const geo_grid *t = J->t;
    const int nx = J->wnx, x1 = J->x0 + J->wnx;
    band_ws *w = J->w;
    if ((!w->ready && ws_init(J, w)) || ws_lines(J, w, nx))
        goto done;
    const double tol_src = 1e-4 * fmin(J->src->grid.gt[1], fabs(J->src->grid.gt[5]));
    const double tol_work = 1e-4 * fabs(t->gt[1]);
    for (int row = J->r0; row < J->r1; row++) {
        if ((row / J->chunk) % J->nt != J->id)
            continue;
        float *P = J->pred + (size_t)(row - J->base) * nx, *D = J->std ? J->std + (size_t)(row - J->base) * nx : NULL;
        double y = geo_grid_y(t, row);
        double x0 = geo_grid_x(t, 0);
        if ((J->st = krg_srcline_part(w->scratch, &w->line, w->to_src, &J->src->grid, x0, t->gt[1], y, t->nx,
                                      tol_src, J->x0, x1, w->sx, w->sy, w->ok1)) ||
            (J->st = geo_ct_line_part(w->scratch, w->to_work, x0, t->gt[1], y, t->nx, tol_work, J->x0, x1, w->wx,
                                      w->wy, w->ok2))) {
            snprintf(J->msg, sizeof J->msg, "%s", trv_errmsg(w->scratch));
            goto done;
        }
        if (ws_cache_fit(J, w, row))
            goto done;
        for (int col = J->x0; col < x1; col++) {
            const int k = col - J->x0;
            P[k] = NODATA;
            if (D)
                D[k] = NODATA;
            int qr, qc, r;
            if (!w->ok1[k] || !w->ok2[k] || !source_cell(J, w, row, col, &qr, &qc)) {
                J->stats.nodata++;
            } else if (J->S->on && stencil_cell(J, w, row, col, qr, qc, P, D)) {
                J->stats.stencil++;
            } else if (J->F->on && frame_cell(J, w, col, qr, qc, P, D)) {
                J->stats.frame++;
            } else if ((r = block_cell(J, w, col, qr, qc, P, D)) < 0) {
                goto done;
            } else if (r == 0) {
                J->stats.nodata++;
            } else {
                J->stats.block++;
            }
        }
        if (row_done(J, row))
            break;
    }
done:
    if (J->st) {
        pthread_mutex_lock(J->lock);
        *J->failed = 1;
        pthread_mutex_unlock(J->lock);
    }
    return NULL;
}

/* Every cell of the window of nx x nrows cells at column x0, row y0 (v:
 * its cell (x0, y0) first, row-major) finite: a value beyond Float32's
 * range (+-3.4e38) became +-Inf when stored, and the output would carry
 * it. */
static trv_status check_fits(trv_ctx *ctx, const float *v, int x0, int nx, int y0, int nrows, const char *desc)
{
    size_t n = v ? (size_t)nx * nrows : 0;
    for (size_t i = 0; i < n; i++)
        if (!isfinite(v[i]))
            return trv_error(ctx, TRV_ERR_DATA,
                             "the %s at column %zu, row %zu is beyond Float32's range (|value| > 3.4e38): the "
                             "values or the model's sill are too large",
                             desc, x0 + i % (size_t)nx, y0 + i / (size_t)nx);
    return TRV_OK;
}

static trv_status check_window(trv_ctx *ctx, const float *P, const float *D, int x0, int nx, int y0, int nrows)
{
    trv_status st = check_fits(ctx, P, x0, nx, y0, nrows, "elevation");
    return st ? st : check_fits(ctx, D, x0, nx, y0, nrows, "kriging standard deviation");
}

/* Give the caller both outputs on success, neither on failure. */
static trv_status hand_over(trv_status st, geo_raster *P, geo_raster *D, geo_raster **pred, geo_raster **std)
{
    if (st) {
        geo_raster_free(P);
        geo_raster_free(D);
        return st;
    }
    *pred = P;
    if (std)
        *std = D;
    return TRV_OK;
}

/* How far a target's neighbours reach: (sqrt(nmax) + 3) times the longest
 * side of the DEM's middle cell in the working CRS, with half again for
 * slack (farther distances are computed exactly, not tabulated). */
static double table_reach(const krg_source *src, int nmax)
{
    const geo_grid *g = &src->grid;
    if (g->nx < 2 || g->ny < 2)
        return 0;
    size_t c = (size_t)(g->ny / 2) * g->nx + g->nx / 2;
    c -= (size_t)(g->nx / 2 + 1 >= g->nx) + (size_t)(g->ny / 2 + 1 >= g->ny) * g->nx;
    double ex = hypot(src->wx[c + 1] - src->wx[c], src->wy[c + 1] - src->wy[c]);
    double ey = hypot(src->wx[c + g->nx] - src->wx[c], src->wy[c + g->nx] - src->wy[c]);
    return 1.5 * (sqrt(nmax) + 3) * fmax(ex, ey);
}

static trv_status new_output(trv_ctx *ctx, const geo_grid *t, const char *desc, geo_raster **out)
{
    trv_status st = geo_raster_new(ctx, t, GEO_F32, out);
    if (!st) {
        (*out)->has_nodata = 1;
        (*out)->nodata = NODATA;
        st = geo_raster_set_label(ctx, *out, desc, "m");
    }
    return st;
}

/* ---- the refinement by row ranges (krg_refiner) ------------------------------ */

struct krg_refiner {
    krg_model m;
    krg_opts o;
    stencil S;
    krg_frames F;
    krg_gtab gt;
    pthread_mutex_t lock;
    size_t cells_done;
    int failed, nt;
    band J[64];
    band_ws ws[64];         /* thread i's workspace, made on its first rows */
};

void krg_refiner_free(krg_refiner *R)
{
    if (!R)
        return;
    for (int i = 0; i < R->nt; i++)
        if (R->J[i].w)
            ws_free(&R->ws[i]);
    stencil_free(&R->S);
    krg_frames_free(&R->F);
    krg_gtab_free(&R->gt);
    pthread_mutex_destroy(&R->lock);
    free(R);
}

trv_status krg_refiner_new(trv_ctx *ctx, const krg_source *src, const krg_index *ix, const krg_model *m,
                           const krg_opts *o, const geo_grid *target, int allow_fast, krg_refiner **out)
{
    *out = NULL;
    if (src->pts->n == 0)
        return trv_error(ctx, TRV_ERR_DATA, "the DEM holds only nodata");
    int nmax = o->nmax <= 0 || (size_t)o->nmax > src->pts->n ? (int)src->pts->n : o->nmax;
    if (nmax > 2000)
        return trv_error(ctx, TRV_ERR_USAGE,
                         "a kriging system of %d samples per block is too large for a DEM; limit --nmax", nmax);
    krg_refiner *R = calloc(1, sizeof *R);
    if (!R)
        return trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
    R->m = *m;
    R->o = *o;
    pthread_mutex_init(&R->lock, NULL);
    trv_status st = stencil_init(ctx, &R->S, src, target, nmax, o->maxdist, allow_fast);
    if (!st && (st = krg_frames_init(ctx, &R->F, src, &R->m, nmax, o->maxdist, o->et, allow_fast)))
        stencil_free(&R->S);
    else if (!st && (st = krg_gtab_init(ctx, &R->gt, &R->m, table_reach(src, nmax)))) {
        stencil_free(&R->S);
        krg_frames_free(&R->F);
    }
    if (st) {
        pthread_mutex_destroy(&R->lock);
        free(R);
        return st;
    }
    int nt = krg_threads(o->threads);
    R->nt = nt < 1 ? 1 : nt > 64 ? 64 : nt;
    for (int i = 0; i < R->nt; i++)
        R->J[i] = (band){.src = src, .ix = ix, .m = &R->m, .o = &R->o, .t = target, .S = &R->S, .F = &R->F, .gt = &R->gt,
                         .w = &R->ws[i], .nmax = nmax, .avx = have_avx(), .lock = &R->lock,
                         .cells_done = &R->cells_done, .failed = &R->failed, .ctx = ctx, .first = i == 0,
                         .id = i, .nt = R->nt, .chunk = GEO_BLOCK_ROWS / R->nt > 0 ? GEO_BLOCK_ROWS / R->nt : 1};
    *out = R;
    return TRV_OK;
}

trv_status krg_refiner_window(trv_ctx *ctx, krg_refiner *R, int x0, int y0, int nx, int ny, float *pred,
                              float *std)
{
    const geo_grid *t = R->J[0].t;
    if (R->failed)
        return trv_error(ctx, TRV_ERR_USAGE, "krg_refiner_window after a failure");
    if (x0 < 0 || y0 < 0 || nx < 1 || ny < 1 || nx > t->nx - x0 || ny > t->ny - y0)
        return trv_error(ctx, TRV_ERR_INTERNAL, "kriging window %d x %d at (%d, %d) outside the %d x %d target", nx,
                         ny, x0, y0, t->nx, t->ny);
    const int y1 = y0 + ny, nt = R->nt, c0 = y0 / R->J[0].chunk, c1 = (y1 - 1) / R->J[0].chunk;
    pthread_t th[64];
    int running[64] = {0};
    for (int i = 0; i < nt; i++) {
        band *J = &R->J[i];
        J->pred = pred, J->std = std, J->base = y0, J->x0 = x0, J->wnx = nx, J->ctx = ctx, J->r0 = y0, J->r1 = y1;
    }
    for (int i = 1; i < nt && i <= c1 - c0; i++) /* the threads that own a chunk here */
        running[i] = pthread_create(&th[(c0 + i) % nt], NULL, band_run, &R->J[(c0 + i) % nt]) == 0;
    band_run(&R->J[c0 % nt]);
    for (int i = 1; i < nt && i <= c1 - c0; i++)
        if (running[i])
            pthread_join(th[(c0 + i) % nt], NULL);
        else
            band_run(&R->J[(c0 + i) % nt]); /* a thread that could not start: its rows here */
    for (int i = 0; i < nt; i++)
        if (R->J[i].st)
            return trv_error(ctx, R->J[i].st, "%s", R->J[i].msg);
    return check_window(ctx, pred, std, x0, nx, y0, ny);
}

trv_status krg_refiner_rows(trv_ctx *ctx, krg_refiner *R, int y0, int y1, float *pred, float *std)
{
    return krg_refiner_window(ctx, R, 0, y0, R->J[0].t->nx, y1 - y0, pred, std);
}

void krg_refiner_stats(const krg_refiner *R, krg_refine_stats *stats)
{
    memset(stats, 0, sizeof *stats);
    for (int i = 0; i < R->nt; i++) {
        stats->stencil += R->J[i].stats.stencil;
        stats->block += R->J[i].stats.block;
        stats->nodata += R->J[i].stats.nodata;
        stats->systems += R->J[i].stats.systems;
        stats->cov += R->J[i].stats.cov;
        stats->frame += R->J[i].stats.frame;
        stats->frame_blocks += R->J[i].stats.frame_blocks;
    }
    stats->frames = R->F.frames;
    stats->frame_fail = R->F.fail;
}

trv_status krg_refine(trv_ctx *ctx, const krg_source *src, const krg_index *ix, const krg_model *m,
                      const krg_opts *o, const geo_grid *target, int allow_fast, geo_raster **pred,
                      geo_raster **std, krg_refine_stats *stats)
{
    *pred = NULL;
    if (std)
        *std = NULL;
    if (stats)
        memset(stats, 0, sizeof *stats);
    krg_refiner *R = NULL;
    geo_raster *P = NULL, *D = NULL;
    trv_status st = krg_refiner_new(ctx, src, ix, m, o, target, allow_fast, &R);
    if (!st)
        st = new_output(ctx, target, "elevation", &P);
    if (!st && std)
        st = new_output(ctx, target, "kriging standard deviation", &D);
    if (!st)
        st = krg_refiner_rows(ctx, R, 0, target->ny, P->f32, D ? D->f32 : NULL);
    if (!st)
        st = trv_progress(ctx, 1.0, "krige");
    if (R && stats)
        krg_refiner_stats(R, stats);
    krg_refiner_free(R);
    return hand_over(st, P, D, pred, std);
}

/* ---- scattered points onto a grid ------------------------------------------- */

trv_status krg_grid_points_window(trv_ctx *ctx, const krg_points *p, const krg_index *ix, const krg_model *m,
                                  const krg_opts *o, geo_ct *ct, const geo_grid *target, int x0, int y0, int nx,
                                  int ny, float *pred, float *std)
{
    if (x0 < 0 || y0 < 0 || nx < 1 || ny < 1 || nx > target->nx - x0 || ny > target->ny - y0)
        return trv_error(ctx, TRV_ERR_INTERNAL, "kriging window %d x %d at (%d, %d) outside the %d x %d target", nx,
                         ny, x0, y0, target->nx, target->ny);
    const int y1 = y0 + ny, rows = 64;
    size_t nb = (size_t)nx * (ny < rows ? ny : rows);
    double *x = malloc(nb * sizeof *x), *y = malloc(nb * sizeof *y), *zp = malloc(nb * sizeof *zp),
           *zv = malloc(nb * sizeof *zv);
    int *ok = malloc(nb * sizeof *ok);
    trv_status st = (!x || !y || !zp || !zv || !ok) ? trv_error(ctx, TRV_ERR_NOMEM, "out of memory") : TRV_OK;
    for (int r0 = y0; !st && r0 < y1; r0 += rows) {
        int r1 = r0 + rows < y1 ? r0 + rows : y1;
        size_t n = (size_t)(r1 - r0) * nx;
        for (size_t k = 0; k < n; k++) {
            x[k] = geo_grid_x(target, (double)(x0 + (int)(k % nx)));
            y[k] = geo_grid_y(target, (double)(r0 + (int)(k / nx)));
        }
        geo_ct_points(ct, n, x, y, ok);
        if ((st = krg_predict(ctx, p, ix, m, o, n, x, y, zp, zv)))
            break;
        for (size_t k = 0; k < n; k++) {
            size_t i = (size_t)(r0 - y0) * nx + k;
            int good = ok[k] && isfinite(zp[k]);
            pred[i] = good ? (float)zp[k] : NODATA;
            if (std)
                std[i] = good ? (float)sqrt(fmax(zv[k], 0)) : NODATA;
        }
        /* the share of the target before the window's last cell done, in row order */
        st = trv_progress(ctx, ((double)(r1 - 1) * target->nx + x0 + nx) / ((double)target->nx * target->ny),
                          "krige");
    }
    free(x);
    free(y);
    free(zp);
    free(zv);
    free(ok);
    return st ? st : check_window(ctx, pred, std, x0, nx, y0, ny);
}

trv_status krg_grid_points_rows(trv_ctx *ctx, const krg_points *p, const krg_index *ix, const krg_model *m,
                                const krg_opts *o, geo_ct *ct, const geo_grid *target, int y0, int y1, float *pred,
                                float *std)
{
    return krg_grid_points_window(ctx, p, ix, m, o, ct, target, 0, y0, target->nx, y1 - y0, pred, std);
}

trv_status krg_grid_points(trv_ctx *ctx, const krg_points *p, const krg_index *ix, const krg_model *m,
                           const krg_opts *o, const char *work_wkt, const geo_grid *target, geo_raster **pred,
                           geo_raster **std)
{
    *pred = NULL;
    if (std)
        *std = NULL;
    geo_raster *P = NULL, *D = NULL;
    geo_ct *ct = NULL;
    trv_status st = new_output(ctx, target, "elevation", &P);
    if (!st && std)
        st = new_output(ctx, target, "kriging standard deviation", &D);
    if (!st)
        st = geo_ct_create(ctx, target->wkt, work_wkt, &ct);
    if (!st)
        st = krg_grid_points_rows(ctx, p, ix, m, o, ct, target, 0, target->ny, P->f32, D ? D->f32 : NULL);
    geo_ct_free(ct);
    return hand_over(st, P, D, pred, std);
}
