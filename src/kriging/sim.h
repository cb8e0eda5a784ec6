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
 * place, so krg_ce_window reads a row range contiguously. Memory: a row of
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
 * draws from the stream seeded by (seed, k/2), the nugget's noise from the
 * stream (seed, k, 1) node by node in row-major order (two draws a node:
 * a node reached by trv_rng_skip), the off-node
 * samples' residual and nugget draws from (seed, k, 2) in sample order;
 * bytes are independent of the number of threads. The target grid must be
 * a grid of the working CRS.
 *
 * By tiles (docs/scale.md): krg_sim_pair draws a pair and takes U at
 * every sample from the lattice by tiles (pass A); krg_sim_tile then makes
 * any window of the pair's realisations from that window of the kriged DEM
 * (pass B). Every deviate comes from its stream at its place (the
 * nugget's reached by trv_rng_skip) and every sum is taken in the same
 * order whatever the windows, so the bits do not depend on the tiles.
 * Memory beyond the samples (about 250 bytes each) and the torus: a tile
 * of the lattice, a window's weights (a run of its rows).
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
 * stream seeded by seed; krg_ce_window then reads them. */
trv_status krg_ce_draw(trv_ctx *ctx, krg_ce *ce, uint64_t seed);
/* Rows r0 .. r0 + n - 1, columns c0 .. c0 + m - 1 of the drawn pair (a
 * window of the n1 x n2 lattice): n * m values of each field, row-major,
 * into a and b. Out of core they are read from the work file, whole rows
 * through a buffer of at most a column chunk's bytes and at most what a
 * and b receive, a narrower window row by row (a buffer of one window
 * row), allocated per call: callers may read from several threads. */
trv_status krg_ce_window(trv_ctx *ctx, const krg_ce *ce, int r0, int n, int c0, int m, double *a, double *b);

/* A standard normal deviate (Box-Muller) from r: the nugget's and the
 * off-node samples' residual draws. */
double krg_normal(trv_rng *r);

/* ---- the kriging weights of a window of targets (sim_weights.c) --------- */

/* Per target cell of a window (rows y0 .. y1 - 1, columns x0 .. x0 + nx -
 * 1), the ordinary-kriging weights
 * (float) of its neighbours (int32 indices; unused slots weight 0), from
 * the same neighbourhoods as the kriged DEM: with a raster source (src)
 * the nmax samples nearest to the centre of the target's block
 * (krg_refine), else the nmax nearest to the target (krg_predict); cells
 * nodata in pred or off the source raster have none. Cell (y, c) is slot
 * ((y - y0) nx + c - x0) k. */
typedef struct krg_simw {
    int k, x0, nx, y0, y1;  /* y0 == y1: no rows held */
    size_t cells, cap;      /* the rows' cells; the room, in weights */
    int32_t *idx;
    float *w;
} krg_simw;

/* The realisations are conditioned by kept weights (cells x nmax x 8 bytes
 * for the whole target at most this many), else by kriging each one. */
#define KRG_SIMW_MAX_BYTES 1.0e9

/* The weights per cell: nmax, or every sample when nmax is 0 or more. Pure. */
int krg_simw_k(const krg_points *p, const krg_opts *o);
/* Whether the whole target t's weights fit in max_bytes (and the samples'
 * indices in int32). Pure. */
int krg_simw_fits(const krg_points *p, const krg_opts *o, const geo_grid *t, double max_bytes);
/* W sized for the window of rows y0 .. y1 - 1 and columns x0 .. x0 + nx -
 * 1, k weights a cell (grown, never shrunk), holding none yet (W->y1 =
 * W->y0 = y0). */
trv_status krg_simw_room(trv_ctx *ctx, krg_simw *W, int k, int x0, int nx, int y0, int y1);
/* The weights of the window of rows y0 .. y1 - 1 and columns x0 .. x0 +
 * nx - 1 of t (a grid of the samples' CRS) into W (zeroed at first, then
 * grown as needed), pred the window's cells of the kriged DEM. Threaded
 * (o->threads, the window's rows shared); a cell's weights are its own:
 * the same bits for any number of threads and any window. */
trv_status krg_simw_window(trv_ctx *ctx, const krg_points *p, const krg_source *src, const krg_index *ix,
                           const krg_model *m, const krg_opts *o, const geo_grid *t, int x0, int nx, int y0, int y1,
                           const float *pred, krg_simw *W);
void krg_simw_clear(krg_simw *W);

/* ---- conditional simulation by tiles (sim.c) ----------------------------- */

typedef struct krg_sim krg_sim;

/* Prepare the simulation on the grid target of the kriging of pts (in
 * work_wkt) with model m and options o; pts, src (a raster source, its pts
 * member set by the caller as it pleases: restored after each use; NULL
 * for points) and ix are borrowed and must outlive the object. seed seeds
 * every realisation (see above). The realisations are conditioned by kept
 * weights when the whole target's fit in max_weights (0: KRG_SIMW_MAX_BYTES;
 * krg_simw_fits), else by kriging z - U per realisation; kept weights are
 * held a run of a window's rows at a time, at most a sixteenth of max_weights (or one
 * row). */
trv_status krg_sim_new(trv_ctx *ctx, const krg_points *pts, krg_source *src, const krg_index *ix, const krg_model *m,
                       const krg_opts *o, int allow_fast, const char *work_wkt, const geo_grid *target,
                       uint64_t seed, double max_weights, krg_sim **out);
void krg_sim_free(krg_sim *s);

/* Draw pair p (realisations 2p and 2p + 1; n = 1: the first only) and
 * take U at every sample (pass A: the lattice read by tiles of
 * geo_block_cols() x geo_block_rows() nodes plus the 4 x 4 stencils'
 * reach, 3 nodes, tiles without samples skipped). Memory O(samples +
 * tile). */
trv_status krg_sim_pair(trv_ctx *ctx, krg_sim *s, long p, int n);
/* The window of columns x0 .. x0 + nx - 1 and rows y0 .. y0 + ny - 1 of
 * the pair's realisations (pass B) into out[0] and out[1] (nx ny values
 * each, row-major; NULL: not wanted), pred the window's cells of the
 * kriged DEM (nodata -9999): Z_s = Z* + (U - K[U]) by the kept weights of
 * these cells (krg_simw_window, by runs of rows; reused while the window
 * is the same), or U + K[z - U] kriged for these cells; nodata where pred
 * is. Any windows in any order; the same bits whatever the windows asked.
 * Memory O(window). */
trv_status krg_sim_tile(trv_ctx *ctx, krg_sim *s, int x0, int y0, int nx, int ny, const float *pred, float *out[2]);
/* Keep the first pass's tiles for the later pairs: from here krg_sim_tile
 * stores the tiles of tl (a tiling of the target) it is given in tl's
 * order from tile 0 (each cell's kept weights, 8 nmax bytes, and its
 * kriged value, 4) in a scratch file in dir (unlinked at once: nothing is
 * left behind, whatever happens), and takes the weights of stored tiles
 * from it instead of solving them again; the caller takes their kriged
 * values back with krg_sim_pred_tile. Disk: (8 nmax + 4) bytes a target
 * cell with kept weights, else 4. */
trv_status krg_sim_cache(trv_ctx *ctx, krg_sim *s, const char *dir, const geo_tiling *tl);
/* Tile (x0, y0, nx, ny) of the kriged DEM as krg_sim_tile was given it
 * (stored since krg_sim_cache): TRV_ERR_USAGE for a window that is not a
 * stored tile. */
trv_status krg_sim_pred_tile(trv_ctx *ctx, krg_sim *s, int x0, int y0, int nx, int ny, float *pred);
/* Realisation k (0-based) on the whole target: krg_sim_pair(k / 2) unless
 * drawn, then krg_sim_tile over the whole target (pred: the whole kriged
 * DEM). */
trv_status krg_sim_get(trv_ctx *ctx, krg_sim *s, int k, const float *pred, float *out);
/* The fraction of the structured variance lost to clipped eigenvalues (0
 * when the embedding is exact). */
double krg_sim_lost(const krg_sim *s);
/* The torus's columns and rows (krg_ce: m1, m2). */
void krg_sim_torus(const krg_sim *s, int *m1, int *m2);
/* 1 when the realisations are conditioned by kept weights, 0 by kriging. */
int krg_sim_keeps_weights(const krg_sim *s);

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

#endif
