/* Private to src/kriging: the kriging system shared by krige.c and grid.c. */
#ifndef KRIGE_PRIV_H
#define KRIGE_PRIV_H

#include "krige.h"

#include <lapacke.h>
#include <pthread.h>

/* One factorised ordinary-kriging system over the points idx[0..n-1]. */
typedef struct krg_sys {
    int cap, n;             /* n = -1: nothing factorised */
    long *idx;              /* cap */
    double *a;              /* (cap+1)^2, column-major LDL' factors */
    lapack_int *ipiv;       /* cap+1 */
    double *rhs;            /* cap+1: weights and mu after krg_sys_solve */
    double *g;              /* cap+1: the right-hand side before solving */
    double *work;           /* lwork: dsytrf's workspace, sized once for cap */
    lapack_int lwork;
} krg_sys;

trv_status krg_sys_init(trv_ctx *ctx, krg_sys *s, int cap);
void krg_sys_free(krg_sys *s);
int krg_sys_factor(krg_sys *s, const krg_points *p, const krg_model *m, const long *idx, int n);
double krg_sys_solve(krg_sys *s, const krg_points *p, const krg_model *m, double x, double y);
/* Cholesky C = L L' of the n x n symmetric matrix in W (column-major,
 * lower triangle read: W[k n + i] = C_ik, i >= k), in place, column by
 * column (left-looking):
 *   L_jj = sqrt(C_jj - sum_{k<j} L_jk^2),  r_j = 1 / L_jj,
 *   L_ij = (C_ij - sum_{k<j} L_ik L_jk) r_j   (i > j),
 * each sum in k order by separate multiplies and subtracts, so every entry
 * has the bits of the scalar row-by-row form; the rows of a column go
 * eight or four at a time with AVX (avx: krg_chol_avx()), else two with
 * SSE2. Returns 0, or -1 when a pivot C_jj - sum L_jk^2 is not above tiny
 * (W then partly factorised). */
int krg_chol(double *W, int n, double tiny, double *r, int avx);
int krg_chol_avx(void); /* 1 when the processor has AVX (and the build the code) */
/* Forward substitution x := L^-1 x with krg_chol's factor (column-major)
 * and r_i = 1 / L_ii, by columns (right-looking):
 *   x_k := x_k r_k, then x_i -= L_ik x_k for i > k,
 * so each x_i = (x_i - sum_{k<i} L_ik x_k) r_i with its sum in k order:
 * the bits of the row-by-row form; with AVX four columns at a time, each
 * group of four rows below them loaded once. */
void krg_chol_fwd(const double *L, int n, const double *r, double *x, int avx);
/* The dot product a'b of n terms in four partial sums, the framed blocks'
 * (frame.c, grid.c) independent chains:
 *   s_l = sum_q a_{4q+l} b_{4q+l} over the whole groups of four (q order),
 *   the r = n mod 4 last terms then added to s_0 in order,
 *   a'b = (s_0 + s_1) + (s_2 + s_3);
 * with AVX (avx: krg_chol_avx()) one accumulator whose lane l is s_l:
 * the same operations, so the same bits. */
double krg_dot4(const double *a, const double *b, int n, int avx);
/* A framed block's weights (frame.c's L, u = L^-1 1, r_i = 1 / L_ii,
 * s11 = u'u; docs/method.md 1.7) for its samples' values z, in a (n), in
 * place: v = L^-1 z (krg_chol_fwd), beta = u'v / s11 (a sum in i order),
 * alpha = L'^-1 (v - beta u) by rows i = n-1 .. 0, each
 *   alpha_i = ((v - beta u)_i - krg_dot4(L_{i+1..n-1, i}, alpha_{i+1..n-1})) r_i;
 * a receives alpha; returns beta. The same bits with and without avx. */
double krg_frame_alpha(const double *L, const double *u, const double *r, double s11, int n, double *a, int avx);
/* krg_frame_alpha for four blocks of one frame at once: X (4 n) holds
 * their values interleaved, X[4 i + l] = z_i of block l, and receives
 * their alphas; beta (4) their betas. With AVX the four lanes go
 * together: every lane the bits of krg_frame_alpha, four times the work
 * per dependent step (the backward rows are a chain of sums). */
void krg_frame_alpha4(const double *L, const double *u, const double *r, double s11, int n, double *X, double *beta,
                      int avx);
/* Leave-one-out neighbour sets, searched once for the many krg_cv runs of
 * a model choice (they differ only in the model): set t holds the nmax
 * points nearest to which[t] (which NULL: point t) but itself, ascending,
 * as krg_cv would find and sort them. krg_cv_sets_new leaves *out NULL
 * (no error) when nmax is 0 or above 64: searching per run then. */
typedef struct krg_cv_sets {
    int k;                  /* the resolved nmax */
    size_t n;               /* sets */
    long *idx;              /* n x k */
    int *cnt;               /* n: points in each set */
    double *h;              /* NULL, or n x (k + k (k - 1) / 2): krg_cv_sets_dist's distances */
} krg_cv_sets;

trv_status krg_cv_sets_new(trv_ctx *ctx, const krg_points *p, const krg_index *ix, const krg_opts *o, size_t n,
                           const long *which, krg_cv_sets **out);
/* The distances the covariance form of every set needs, for the many runs
 * that share the sets (a model choice): set t's from its points to the
 * point left out, |s_i - s_t| for i < cnt, then between its points,
 * |s_i - s_j| for j < cnt, i = j + 1 .. cnt - 1 (column by column),
 * each computed as loo_cov computes it (sqrt(dx dx + dy dy), dx = x_i -
 * x_j): krg_cv_with then reads them instead, the same bits. which as for
 * krg_cv_sets_new. */
trv_status krg_cv_sets_dist(trv_ctx *ctx, const krg_points *p, krg_cv_sets *s, const long *which);
void krg_cv_sets_free(krg_cv_sets *s);
/* krg_cv with the sets (NULL: krg_cv itself). With sets and a model with
 * a sill (not Pow) each point's system goes through the covariance form
 * (Cholesky, krige.c loo_cov; docs/method.md 1.5), krg_cv's LDL' only
 * where a pivot is <= 1e-8 s: the same kriging, different last bits. */
trv_status krg_cv_with(trv_ctx *ctx, const krg_points *p, const krg_index *ix, const krg_model *m,
                       const krg_opts *o, size_t n, const long *which, const krg_cv_sets *sets, double *pred,
                       double *var);
/* krg_choose_nmax's rule on the RMSEs of candidates ordered cheapest first:
 * the index of the first within (1 + KRG_NMAX_TOL) of the least finite
 * one; -1 when none is finite. */
int krg_nmax_pick(const double *rmse, int n);
/* The semivariance of a model tabulated for the many right-hand sides of
 * block kriging: on [0, hmax] a piecewise cubic Hermite through gamma and
 * its derivative at knots every range / 256 (so Sph's kink at the range is
 * a knot and its cubic pieces are reproduced). For Sph, Exp, Gau and Mat
 * with kappa 0.5, 1.5, 2.5, whose derivatives have closed forms; other
 * models, h = 0 and h beyond the table call krg_gamma. Error bound
 * (Hermite): d^4 / 384 max|gamma''''| with d = 1/256 in units of the range,
 * i.e. 6.0e-13 psill max|f''''| (f the unit model: 1 for Exp, Mat 0.5;
 * 12 for Gau; at most 3 for Mat 1.5 and 2.5; 0 for Sph): below 1e-11 psill. */
typedef struct krg_gtab {
    const krg_model *m;
    int n;                  /* intervals (0: no table) */
    double inv_d;           /* intervals per metre */
    double *c;              /* 4 per interval: c0 + u (c1 + u (c2 + u c3)) */
} krg_gtab;

trv_status krg_gtab_init(trv_ctx *ctx, krg_gtab *t, const krg_model *m, double hmax);
void krg_gtab_free(krg_gtab *t);

static inline double krg_gtab_eval(const krg_gtab *t, double h)
{
    double r = h * t->inv_d;
    if (!(h > 0) || !(r < t->n))
        return krg_gamma(t->m, h);
    int i = (int)r;
    double u = r - i;
    const double *c = t->c + 4 * (size_t)i;
    return c[0] + u * (c[1] + u * (c[2] + u * c[3]));
}

/* A row of targets (x0 + k dx, y), k = 0..n-1, in the DEM's CRS, for
 * krg_refine's choice of each target's source cell (srcline.c): the same
 * choices as from geo_ct_line(ct, x0, dx, y, n, tol) for a grid g, with a
 * fraction of its exact transforms. Its coordinates are geo_ct_line's to
 * the bit where that interpolates; in the intervals it transforms point
 * by point they come from the quadratic through the interval's ends and
 * middle (exact, with geo_ct_line's anchors), trusted only when its error
 * at the interval's two quarter points (exact too) is e <= 1e-3 cells:
 * the quadratic's error elsewhere is then at most about 1.03 e (a cubic
 * remainder; margin: 4 e + 1e-7 cells). A target whose u = (x - gt[0]) /
 * gt[1] - 0.5 or v (likewise) lies within that margin of an integer, of
 * -0.5 or of nx - 0.5 (ny - 0.5), where the source cell changes, is
 * transformed exactly. Identity transforms and rows of at most 64
 * targets: geo_ct_line itself. approx and exact count targets.
 *
 * krg_srcline_part gives targets k0 .. k1 - 1 of the n-target row (into
 * xs, ys, ok, k1 - k0 each) with the bits krg_srcline_run gives them over
 * the whole row: the whole row's intervals (anchors every 32 targets and
 * middles, as geo_ct_line_part), only those that set those targets run
 * (from the one before the first target's), each with the same linear
 * test, quadratic, margin and exact list; so a window of a raster's
 * columns makes the same source-cell choices as its whole rows. Work and
 * memory: O(k1 - k0 + 64), whatever n. TRV_ERR_INTERNAL unless
 * 0 <= k0 <= k1 <= n. The buffers grow to the longest stretch asked
 * (cap: its points). */
typedef struct krg_srcline {
    int cap, ntodo;
    double *ax, *ay;        /* anchors, middles, quarter points */
    int *aok, *todo;        /* todo: targets transformed exactly */
    double *ex, *ey;
    int *eok;
    char *linear;           /* per interval: geo_ct_line interpolates it */
    double *px, *py;        /* a part's stretch of whole intervals */
    int *pok;
    size_t approx, exact;
} krg_srcline;

trv_status krg_srcline_init(trv_ctx *ctx, krg_srcline *s, int cap);
void krg_srcline_free(krg_srcline *s);
trv_status krg_srcline_run(trv_ctx *ctx, krg_srcline *s, geo_ct *ct, const geo_grid *g, double x0, double dx,
                           double y, int n, double tol, double *xs, double *ys, int *ok);
trv_status krg_srcline_part(trv_ctx *ctx, krg_srcline *s, geo_ct *ct, const geo_grid *g, double x0, double dx,
                            double y, int n, double tol, int k0, int k1, double *xs, double *ys, int *ok);

/* krg_job_write's rasters and point cloud (job_stream.c): paths->dem, and
 * paths->std and paths->points when named, by row blocks. */
trv_status krg_job_stream(trv_ctx *ctx, trv_outset *set, krg_job *j, const krg_job_paths *paths,
                          const trv_meta *meta);
/* exp(x) K_nu(x), the scaled modified Bessel function of the second kind
 * (bessel.c; for the Matern model in variogram.c, and exposed for its tests). */
double krg_bessel_k_scaled(double nu, double x);
/* Worker threads to use for a request (0: all cores). */
int krg_threads(int requested);

/* A lattice offset (di rows, dj columns) from a block's top-left sample
 * and its squared distance from the block's centre: the candidates of the
 * regular-grid stencil (grid.c) and of a lattice frame's pattern (frame.c).
 * krg_cand_nearest orders them nearest first, among equals the later point
 * first, as the neighbour index picks them (krg_index_nearest);
 * krg_cand_rowmajor in point-index order (row-major), as sorted neighbour
 * sets are. */
typedef struct krg_cand {
    double d2;
    int di, dj;
} krg_cand;
int krg_cand_nearest(const void *a, const void *b);
int krg_cand_rowmajor(const void *a, const void *b);

/* Lattice frames (frame.c; docs/method.md §1.7): the blocks (source cells)
 * of a raster source, in tiles of 32 x 32 split into quarters down to 4 x 4
 * while the lattice deviates from its frame's affine map p(i, j) = o +
 * Jc j + Jr i (fitted on the frame's corner samples) by more than et source
 * pixels (et times the shorter of |Jc|, |Jr|: e metres) at any sample the
 * frame's blocks or their patterns use. A frame's pattern: the nmax offsets
 * (di, dj) nearest to the block's centre (0.5, 0.5) in that metric (the
 * index's tie rule), refused when the next one is within 4 e + 1e-9 d of
 * the cut (every distance moves at most 2 e, so the exact neighbour set is
 * the pattern). Its covariance C_kl = s - gamma(|J (dj_k - dj_l, di_k -
 * di_l)|) is factorised once (krg_chol, L column-major, then u = L^-1 1,
 * 1 / L_ii, and the positions px, py = J (dj, di)); s11 = u'u. Off when et
 * is not above 0, maxdist is finite, the model has no sill (Pow), or the
 * raster has fewer than 2 x 2 samples. Factors are kept to a budget of
 * 256 MB; frames beyond it fail (their blocks: the exact path). */
typedef struct krg_frame {
    int ok;
    int n;                  /* the pattern's size (nmax) */
    double o[2];            /* the map's origin: p(i, j) ~ o + Jc j + Jr i */
    double J[4];            /* Jc (x, y), Jr (x, y): metres per column, per row */
    int *di, *dj;           /* n each: offsets from the block's top-left sample, row-major */
    int dimin, dimax, djmin, djmax;
    double *L;              /* n x n factor, u (n), 1/L_ii (n), px (n), py (n) */
    double *px, *py;
    double s11, sill;
    int r0, c0, size;       /* its blocks */
} krg_frame;

typedef struct krg_frames {
    int on;
    const krg_source *src;
    const krg_model *m;
    int nmax, avx, ntx, nty;
    double et, sill;
    struct ftile **tiles;   /* ntx x nty, built on first use */
    pthread_mutex_t lock;
    size_t bytes, budget;
    size_t frames, fail;    /* leaves built, leaves failed */
} krg_frames;

trv_status krg_frames_init(trv_ctx *ctx, krg_frames *F, const krg_source *src, const krg_model *m, int nmax,
                           double maxdist, double et, int allow);
void krg_frames_free(krg_frames *F);
/* The frame of block (qr, qc), NULL when its leaf failed. Thread-safe. */
const krg_frame *krg_frame_of(krg_frames *F, int qr, int qc);

#endif
