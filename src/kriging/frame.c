/* Lattice frames (docs/method.md §1.7, krige_priv.h krg_frames): a raster's
 * samples projected into the working CRS are locally an affine lattice
 * p(i, j) ~ o + Jc j + Jr i. Blocks of a frame whose whole neighbour
 * pattern holds data share one pattern and one covariance matrix, so the
 * matrix is factorised once per frame. */
#include "krige_priv.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

enum { TILE = 32, TILE_MIN = 4, LEAVES = (TILE / TILE_MIN) * (TILE / TILE_MIN) };

/* A tile of TILE x TILE blocks split into leaf frames (a quadtree); map:
 * per TILE_MIN x TILE_MIN square of blocks, its leaf. */
typedef struct ftile {
    int nleaf;
    krg_frame leaf[LEAVES];
    unsigned char map[LEAVES];
} ftile;

/* The affine map from the four corner samples (r0, c0) .. (r1, c1): the
 * mean of the two edges' steps per column (Jc) and per row (Jr), and the
 * origin putting the corners' mean on the map. Exact for an affine
 * lattice; for a smooth one the steps are the derivatives at the middle
 * to second order. */
static void fit_affine(const krg_source *src, int r0, int c0, int r1, int c1, double *o, double *Jm)
{
    const int nx = src->grid.nx;
    const double *wx = src->wx, *wy = src->wy;
    size_t a = (size_t)r0 * nx + c0, b = (size_t)r0 * nx + c1, c = (size_t)r1 * nx + c0, d = (size_t)r1 * nx + c1;
    Jm[0] = 0.5 * ((wx[b] - wx[a]) + (wx[d] - wx[c])) / (c1 - c0);
    Jm[1] = 0.5 * ((wy[b] - wy[a]) + (wy[d] - wy[c])) / (c1 - c0);
    Jm[2] = 0.5 * ((wx[c] - wx[a]) + (wx[d] - wx[b])) / (r1 - r0);
    Jm[3] = 0.5 * ((wy[c] - wy[a]) + (wy[d] - wy[b])) / (r1 - r0);
    double mx = 0.25 * (wx[a] + wx[b] + wx[c] + wx[d]), my = 0.25 * (wy[a] + wy[b] + wy[c] + wy[d]);
    o[0] = mx - Jm[0] * 0.5 * (c0 + c1) - Jm[2] * 0.5 * (r0 + r1);
    o[1] = my - Jm[1] * 0.5 * (c0 + c1) - Jm[3] * 0.5 * (r0 + r1);
}

/* The pattern of frame f: the nmax lattice offsets nearest to the block's
 * centre (0.5, 0.5) under the metric of Jm, in row-major order. 0, or -1
 * when the cut between the nmax-th and the next is within 4 e metres
 * (margin: every distance moves by at most 2 e) or the window is too
 * small. */
static int frame_pattern(krg_frame *f, int nmax, double e)
{
    const double *Jm = f->J;
    double a = Jm[0] * Jm[0] + Jm[1] * Jm[1], b = Jm[0] * Jm[2] + Jm[1] * Jm[3], c = Jm[2] * Jm[2] + Jm[3] * Jm[3];
    double disc = sqrt(fmax(0.25 * (a - c) * (a - c) + b * b, 0)), lmin = 0.5 * (a + c) - disc;
    double lmax = 0.5 * (a + c) + disc;
    if (!(lmin > 0))
        return -1;
    double smin = sqrt(lmin), smax = sqrt(lmax);
    int R = (int)ceil(sqrt((double)nmax) * smax / smin) + 2;
    if (R > 64)
        return -1;
    int nc = (2 * R + 2) * (2 * R + 2), k = 0;
    krg_cand *cd = malloc((size_t)nc * sizeof *cd);
    if (!cd)
        return -1;
    for (int di = -R; di <= R + 1; di++)
        for (int dj = -R; dj <= R + 1; dj++) {
            double ex = Jm[0] * (dj - 0.5) + Jm[2] * (di - 0.5), ey = Jm[1] * (dj - 0.5) + Jm[3] * (di - 0.5);
            cd[k++] = (krg_cand){ex * ex + ey * ey, di, dj};
        }
    qsort(cd, (size_t)nc, sizeof *cd, krg_cand_nearest);
    double dn = sqrt(cd[nmax - 1].d2), dn1 = sqrt(cd[nmax].d2);
    /* any offset outside the window lies at least smin (R + 0.5) away */
    if (!(dn1 - dn > 4 * e + 1e-9 * dn1) || !(smin * (R + 0.5) > dn1 + 2 * e)) {
        free(cd);
        return -1;
    }
    qsort(cd, (size_t)nmax, sizeof *cd, krg_cand_rowmajor);
    f->dimin = f->djmin = 1 << 20;
    f->dimax = f->djmax = -(1 << 20);
    for (int i = 0; i < nmax; i++) {
        f->di[i] = cd[i].di;
        f->dj[i] = cd[i].dj;
        f->dimin = cd[i].di < f->dimin ? cd[i].di : f->dimin;
        f->dimax = cd[i].di > f->dimax ? cd[i].di : f->dimax;
        f->djmin = cd[i].dj < f->djmin ? cd[i].dj : f->djmin;
        f->djmax = cd[i].dj > f->djmax ? cd[i].dj : f->djmax;
    }
    free(cd);
    return 0;
}

/* The largest distance, in metres, between a sample the frame's blocks
 * (rows r0..r1, columns c0..c1) or their patterns use and the affine map,
 * after moving the origin o to the middle of the residuals' x and y ranges
 * (a bow's sagitta then splits both ways: half the deviation). */
static double frame_dev(const krg_source *src, const krg_frame *f, double *o, int r0, int c0, int r1, int c1)
{
    const geo_grid *g = &src->grid;
    int i0 = r0 + f->dimin, i1 = r1 + f->dimax, j0 = c0 + f->djmin, j1 = c1 + f->djmax;
    i0 = i0 < 0 ? 0 : i0, j0 = j0 < 0 ? 0 : j0;
    i1 = i1 > g->ny - 1 ? g->ny - 1 : i1, j1 = j1 > g->nx - 1 ? g->nx - 1 : j1;
    double lo[2] = {INFINITY, INFINITY}, hi[2] = {-INFINITY, -INFINITY}, dev2 = 0;
    for (int pass = 0; pass < 2; pass++) {
        for (int i = i0; i <= i1; i++)
            for (int j = j0; j <= j1; j++) {
                size_t c = (size_t)i * g->nx + j;
                double dx = src->wx[c] - (o[0] + f->J[0] * j + f->J[2] * i);
                double dy = src->wy[c] - (o[1] + f->J[1] * j + f->J[3] * i);
                if (pass == 0) {
                    lo[0] = fmin(lo[0], dx), hi[0] = fmax(hi[0], dx);
                    lo[1] = fmin(lo[1], dy), hi[1] = fmax(hi[1], dy);
                } else {
                    double d2 = dx * dx + dy * dy;
                    dev2 = d2 > dev2 ? d2 : dev2;
                }
            }
        if (pass == 0) {
            o[0] += 0.5 * (lo[0] + hi[0]);
            o[1] += 0.5 * (lo[1] + hi[1]);
        }
    }
    return sqrt(dev2);
}

/* The frame's covariance matrix over its pattern, C_kl = s - gamma(|p_k -
 * p_l|) with p = Jc dj + Jr di, its Cholesky factor, u = L^-1 1 and s11 =
 * u'u. 0, or -1 (not positive definite, or no memory). */
static int frame_factor(krg_frame *f, const krg_model *m, double sill, int avx)
{
    int n = f->n;
    double *L = f->L, *u = L + (size_t)n * n, *r = u + n;
    for (int k = 0; k < n; k++) {
        f->px[k] = f->J[0] * f->dj[k] + f->J[2] * f->di[k];
        f->py[k] = f->J[1] * f->dj[k] + f->J[3] * f->di[k];
    }
    for (int j = 0; j < n; j++) {
        double *wj = L + (size_t)j * n;
        wj[j] = sill;
        for (int i = j + 1; i < n; i++) {
            double dx = f->px[j] - f->px[i], dy = f->py[j] - f->py[i];
            wj[i] = sill - krg_gamma(m, sqrt(dx * dx + dy * dy));
        }
    }
    if (krg_chol(L, n, 1e-12 * sill, r, avx) != 0)
        return -1;
    for (int i = 0; i < n; i++)
        u[i] = 1;
    krg_chol_fwd(L, n, r, u, avx);
    double s11 = 0;
    for (int i = 0; i < n; i++)
        s11 += u[i] * u[i];
    f->s11 = s11;
    f->sill = sill;
    return 0;
}

static void leaf_free(krg_frame *f)
{
    free(f->di);
    free(f->L);
    memset(f, 0, sizeof *f);
}

/* Leaf (r0, c0, size) of tile t: the frame if the lattice holds within
 * e metres, else split in four down to TILE_MIN blocks, else a failed
 * leaf (its blocks take the exact path). */
static void tile_node(krg_frames *F, ftile *t, int tr0, int tc0, int r0, int c0, int size)
{
    const geo_grid *g = &F->src->grid;
    int r1 = r0 + size < g->ny - 1 ? r0 + size : g->ny - 1, c1 = c0 + size < g->nx - 1 ? c0 + size : g->nx - 1;
    if (r0 >= g->ny - 1 || c0 >= g->nx - 1)
        return;
    krg_frame tmp = {0}, *f = &tmp;
    double *o = f->o;
    int n = F->nmax, ok = 0;
    fit_affine(F->src, r0, c0, r1, c1, o, f->J);
    double pmin = fmin(hypot(f->J[0], f->J[1]), hypot(f->J[2], f->J[3])), e = F->et * pmin;
    f->n = n;
    f->di = malloc((size_t)2 * n * sizeof *f->di);
    f->dj = f->di ? f->di + n : NULL;
    if (f->di && frame_pattern(f, n, e) == 0)
        ok = frame_dev(F->src, f, o, r0, c0, r1 - 1, c1 - 1) <= e ? 1 : -1; /* blocks r0 .. r1 - 1 */
    else
        ok = -2; /* no pattern: splitting would not help much, but try */
    if (ok != 1 && size > TILE_MIN) {
        free(f->di);
        int h = size / 2;
        for (int q = 0; q < 4; q++)
            tile_node(F, t, tr0, tc0, r0 + (q / 2) * h, c0 + (q % 2) * h, h);
        return;
    }
    size_t bytes = ((size_t)n * n + 4 * (size_t)n) * sizeof(double);
    if (ok == 1 && F->bytes + bytes <= F->budget) {
        f->L = malloc(bytes);
        f->px = f->L ? f->L + (size_t)n * n + 2 * (size_t)n : NULL;
        f->py = f->px ? f->px + n : NULL;
        if (!f->L || frame_factor(f, F->m, F->sill, F->avx) != 0)
            ok = 0;
        else
            F->bytes += bytes;
    } else {
        ok = 0;
    }
    if (ok != 1) {
        leaf_free(f);
        F->fail++;
    } else {
        F->frames++;
    }
    f->ok = ok == 1;
    f->r0 = r0, f->c0 = c0, f->size = size;
    int id = t->nleaf++;
    t->leaf[id] = *f;
    for (int i = r0; i < r0 + size; i += TILE_MIN)
        for (int j = c0; j < c0 + size; j += TILE_MIN)
            t->map[((i - tr0) / TILE_MIN) * (TILE / TILE_MIN) + (j - tc0) / TILE_MIN] = (unsigned char)id;
}

trv_status krg_frames_init(trv_ctx *ctx, krg_frames *F, const krg_source *src, const krg_model *m, int nmax,
                           double maxdist, double et, int allow)
{
    memset(F, 0, sizeof *F);
    const geo_grid *g = &src->grid;
    double sill = m->nugget + m->psill;
    if (!allow || !(et > 0) || isfinite(maxdist) || m->type == KRG_POW || !isfinite(sill) || !(sill > 0) ||
        g->nx < 2 || g->ny < 2 || nmax < 1 || (size_t)nmax >= src->pts->n)
        return TRV_OK;
    F->ntx = (g->nx - 1 + TILE - 1) / TILE;
    F->nty = (g->ny - 1 + TILE - 1) / TILE;
    F->tiles = calloc((size_t)F->ntx * F->nty, sizeof *F->tiles);
    if (!F->tiles)
        return trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
    F->src = src, F->m = m, F->nmax = nmax, F->et = et, F->sill = sill;
    F->avx = krg_chol_avx();
    F->budget = (size_t)256 << 20;
    pthread_mutex_init(&F->lock, NULL);
    F->on = 1;
    return TRV_OK;
}

void krg_frames_free(krg_frames *F)
{
    if (!F->on)
        return;
    for (size_t k = 0; k < (size_t)F->ntx * F->nty; k++) {
        ftile *t = F->tiles[k];
        if (!t)
            continue;
        for (int i = 0; i < t->nleaf; i++)
            leaf_free(&t->leaf[i]);
        free(t);
    }
    free(F->tiles);
    pthread_mutex_destroy(&F->lock);
    memset(F, 0, sizeof *F);
}

const krg_frame *krg_frame_of(krg_frames *F, int qr, int qc)
{
    int tr = qr / TILE, tc = qc / TILE;
    size_t k = (size_t)tr * F->ntx + tc;
    pthread_mutex_lock(&F->lock);
    ftile *t = F->tiles[k];
    if (!t && (t = calloc(1, sizeof *t))) {
        tile_node(F, t, tr * TILE, tc * TILE, tr * TILE, tc * TILE, TILE);
        F->tiles[k] = t;
    }
    pthread_mutex_unlock(&F->lock);
    if (!t)
        return NULL;
    const krg_frame *f = &t->leaf[t->map[((qr % TILE) / TILE_MIN) * (TILE / TILE_MIN) + (qc % TILE) / TILE_MIN]];
    return f->ok ? f : NULL;
}
