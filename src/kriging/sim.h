/*
 * sim.h — conditional simulation of a kriged field (docs/method.md §1.11).
 *
 * A realisation is Z_s(x) = Z*(x) + U(x) - K[U](x): Z* the kriged DEM, U
 * an unconditional Gaussian field with the model's covariance C(h) =
 * sill - gamma(h), K the ordinary kriging of krg_refine / krg_grid_points
 * (the same neighbourhoods and weights as Z*) applied to U at the samples.
 * Then Z_s(x_i) = z_i wherever a sample is a target node, E[Z_s(x)] =
 * Z*(x) and Var[Z_s(x)] = sigma_K^2(x), the kriging variance (Journel &
 * Huijbregts 1978, ch. VII; Chiles & Delfiner 2012, 7.3: conditioning by
 * kriging).
 *
 * U is simulated on the target lattice (extended to cover the samples) by
 * circulant embedding (Dietrich & Newsam 1997; Wood & Chan 1994): the
 * structured part (nugget 0) on a torus of M1 x M2 nodes (each the least
 * 2^a 3^b 5^c at least the lattice plus the distance where C falls below
 * 1e-6 psill, or twice the lattice), eigenvalues lambda = FFT(c); one
 * complex FFT of sqrt(lambda / M1 M2) (a + ib), a, b iid N(0, 1) (the
 * ziggurat, krg_zig_normal), gives two independent realisations (its real
 * and imaginary parts). Negative eigenvalues (the embedding is not
 * positive definite) double the torus while it stays within 2^25 nodes,
 * then are set to 0 and the variance lost is reported (a larger torus is
 * not doubled: 4 times its disk and time for a share the summary states).
 *
 * Out of core (the torus above the memory budget, krg_ce_mem): the same
 * krg_fft calls on the same values, so the same bits, in passes over
 * temporary files. Eigenvalues: each covariance row computed and
 * transformed into the work file; its columns in chunks of as many as the
 * budget holds (each transformed contiguous, as in memory), written back;
 * then one pass in row order sums the least, largest and negative
 * eigenvalues in the order of the in-memory loop and writes sq's file.
 * Draw: each row's deviates (the same stream, in the same row-major
 * order) times sq's row, transformed, its columns 0..n1-1 into the work
 * file; those columns transformed in chunks, rows 0..n2-1 written back in
 * place, so krg_ce_rows reads a row range contiguously. Memory: a row of
 * the torus (24 m1 bytes), the plans (32 (m1 + m2)) and the chunk (16 m2
 * a column); disk: 24 bytes a node. The limits are then the lattice's
 * (2^20 nodes a side, sim.c), so at most 2^21 a side of torus, and the
 * disk. The nugget is white noise
 * N(0, nugget) per node and per sample. A sample that is not a lattice
 * node takes U's structured part by simple kriging from the 4 x 4 nodes
 * around it plus an independent N(0, sigma_SK^2) draw (the residuals of
 * different samples are taken independent: the nodes between them screen
 * them; exact when samples are nodes).
 *
 * Realisation k (0-based) depends only on (seed, k): pair k/2 of the FFT
 * draws from the stream seeded by (seed, k/2), the nugget and sample
 * draws from streams seeded by (seed, k); bytes are independent of the
 * number of threads. The target grid must be a grid of the working CRS.
 * Models without a sill (Pow) cannot be simulated this way: TRV_ERR_USAGE.
 */
#ifndef KRIGE_SIM_H
#define KRIGE_SIM_H

#include "krige.h"

/* ---- circulant embedding (sim_fft.c) ------------------------------------ */

/* A complex FFT of n = 2^a 3^b 5^c points (fft.c): Stockham passes of
 * radix 4, 2, 3, 5; forward, sum_j z_j e^{-2 pi i jk/n}, natural order. */
enum { KRG_FFT_MAXF = 40 };
typedef struct krg_fftp {
    int n, nf, f[KRG_FFT_MAXF]; /* the radices, in pass order */
    double *tw;             /* n complex e^{-2 pi i t/n} */
    double *buf;            /* n complex: the passes' other buffer */
} krg_fftp;
/* The least 2^a 3^b 5^c >= n (n >= 1); -1 beyond 2^30. Pure. */
int krg_fft_size(long n);
/* The plan of n points; -1 when n has another prime factor or out of
 * memory. */
int krg_fftp_init(krg_fftp *p, int n);
void krg_fftp_free(krg_fftp *p);
/* In place, n = p->n values interleaved (re, im); uses p->buf. */
void krg_fft(const krg_fftp *p, double *z);

/* Standard normal deviates by the ziggurat (Marsaglia & Tsang 2000, with
 * Doornik's 2005 correction: the layer from bits of its own): 128 layers,
 * one 64-bit draw per deviate on the fast path (top 53 bits: the uniform,
 * low 7: the layer), the tail by Marsaglia's 1964 method. */
typedef struct krg_zig {
    double x[129], r[128];
} krg_zig;
void krg_zig_init(krg_zig *z);
double krg_zig_normal(const krg_zig *z, trv_rng *r);

/* The torus's bytes held in memory by default (krg_ce_mem): 1 GiB, above
 * the 805 MB of the largest torus that could be simulated before the
 * torus went out of core (2^25 nodes), so every such run stays in memory. */
#define KRG_CE_MEM ((size_t)1 << 30)

/* The memory budget of the torus: TRV_SIM_MEM from the environment (bytes,
 * an integer >= 0; 0: always out of core) when set, else KRG_CE_MEM. */
size_t krg_ce_mem(void);

typedef struct krg_ce {
    int n1, n2;             /* the lattice: n1 columns (x), n2 rows (y) */
    int m1, m2;             /* the torus (krg_fft_size): m1 >= n1, m2 >= n2 */
    size_t mem;             /* the memory budget (krg_ce_init's) */
    int disk;               /* 1: out of core (fd_w and fd_sq open) */
    double *sq;             /* m1 * m2 (out of core: a row of m1): sqrt(max(lambda, 0) / (m1 m2)) */
    double *work;           /* 2 * m1 * m2 (out of core: a row, 2 * m1): the complex field */
    krg_fftp f1, f2;        /* the m1 and m2 transforms */
    krg_zig zig;
    int cols;               /* columns transformed together: COLS in memory, else as the budget allows */
    double *colbuf;         /* cols columns of m2 complex values, each contiguous */
    int fd_w, fd_sq;        /* out of core: the work file (m2 rows of m1, then of n1, complex) and sq's */
    double lost;            /* fraction of the variance lost to negative eigenvalues */
} krg_ce;

/* The embedding of the structured part of m (its nugget left out) on a
 * lattice of n1 x n2 nodes spaced dx (columns) and dy (rows), held in at
 * most about mem bytes (krg_ce_mem): in memory when the torus fits (24
 * bytes a node), else out of core through temporary files in $TMPDIR
 * (else /tmp; 24 bytes a node on disk, checked free before the first
 * write). */
trv_status krg_ce_init(trv_ctx *ctx, krg_ce *ce, const krg_model *m, int n1, int n2, double dx, double dy,
                       size_t mem);
void krg_ce_free(krg_ce *ce);
/* Draw two independent unconditional fields on the lattice from the
 * stream seeded by seed; krg_ce_rows then reads them. */
trv_status krg_ce_draw(trv_ctx *ctx, krg_ce *ce, uint64_t seed);
/* Rows r0 .. r0 + n - 1 of the drawn pair (0 <= r0, r0 + n <= n2): n * n1
 * values of each field, row-major, into a and b. Out of core they are read
 * from the work file through a buffer of at most a column chunk's bytes
 * and at most what a and b receive (at least one row), allocated per call:
 * callers may read from several threads. */
trv_status krg_ce_rows(trv_ctx *ctx, const krg_ce *ce, int r0, int n, double *a, double *b);

/* A standard normal deviate (Box-Muller) from r: the nugget's and the
 * off-node samples' residual draws. */
double krg_normal(trv_rng *r);

/* ---- the kriging weights of every target (sim_weights.c) ----------------- */

/* Per target cell, the ordinary-kriging weights (float) of its
 * neighbours (int32 indices; unused slots weight 0), from the same
 * neighbourhoods as the kriged DEM: with a raster source (src) the nmax
 * samples nearest to the centre of the target's block (krg_refine), else
 * the nmax nearest to the target (krg_predict); cells nodata in pred or
 * off the source raster have none. */
typedef struct krg_simw {
    int k;
    size_t cells;
    int32_t *idx;
    float *w;
} krg_simw;

/* Weights above this many bytes are not kept by default (cells x nmax x 8). */
#define KRG_SIMW_MAX_BYTES 1.0e9

/* The weights of the cells of t (a grid of the samples' CRS); *out stays
 * NULL when they would exceed max_bytes. Threaded (o->threads);
 * the same bits for any number of threads. */
trv_status krg_simw_new(trv_ctx *ctx, const krg_points *p, const krg_source *src, const krg_index *ix,
                        const krg_model *m, const krg_opts *o, const geo_grid *t, const geo_raster *pred,
                        double max_bytes, krg_simw **out);
void krg_simw_free(krg_simw *W);

/* ---- conditional simulation (sim.c) ------------------------------------- */

typedef struct krg_sim krg_sim;

/* Prepare the simulation of the kriging pred (the target grid and the
 * kriged values, borrowed) of pts (in work_wkt; borrowed; both must
 * outlive the object) with model m and options o: for a
 * raster source, *src (its pts member NULL) and *ix are taken over (set to
 * NULL); for points, src is NULL and *ix is taken. seed seeds every
 * realisation (see above). */
trv_status krg_sim_new(trv_ctx *ctx, const krg_points *pts, krg_source **src, krg_index **ix, const krg_model *m,
                       const krg_opts *o, int allow_fast, const char *work_wkt, const geo_raster *pred,
                       uint64_t seed, double max_weights, krg_sim **out);
void krg_sim_free(krg_sim *s);

/* Realisation k onto the target cells (nx * ny, nodata -9999 where the
 * kriged DEM is nodata). If field is not NULL it receives the
 * unconditional field U at the target nodes (nugget included). */
trv_status krg_sim_get(trv_ctx *ctx, krg_sim *s, int k, float *out, double *field);
/* The fraction of the structured variance lost to clipped eigenvalues (0
 * when the embedding is exact). */
double krg_sim_lost(const krg_sim *s);

/* The variance scale of the realisations: the mean squared standardised
 * error of leave-one-out kriging (krg_cv) at up to KRG_SIM_CV_POINTS
 * samples evenly spaced in the samples' order (1 if it cannot be
 * computed). Multiplying nugget and psill by it leaves the kriging weights
 * (and so the mean of the realisations) unchanged and makes the kriging
 * variance match the cross-validated squared errors on average
 * (docs/method.md §1.11). */
#define KRG_SIM_CV_POINTS 2000
trv_status krg_sim_scale(trv_ctx *ctx, const krg_points *p, const krg_index *ix, const krg_model *m,
                         const krg_opts *o, double *scale);

/* Realisations 0..n-1 into path (a trv_outset temporary): a band-
 * interleaved Float32 GeoTIFF on the target grid, band k + 1 = realisation
 * k described "realisation k + 1", nodata -9999, unit m; written band by
 * band, so memory does not grow with n. */
trv_status krg_sim_write(trv_ctx *ctx, krg_sim *s, int n, const char *path, const trv_meta *meta, int threads);

#endif
