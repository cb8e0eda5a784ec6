/*
 * krige.h — ordinary kriging (docs/method.md §1.1–1.7): sample variogram,
 * variogram models and their weighted least-squares fit, ordinary kriging
 * of points and of regular grids, leave-one-out cross-validation.
 *
 * Parameterisation follows R gstat, so that results compare one to one
 * with it: a model is a nugget plus one structure with partial sill
 * `psill` and distance parameter `range` (for Exp the practical range is
 * about 3 x range, for Gau about sqrt(3) x range; for Pow, `range` is the
 * exponent in (0, 2]).
 *
 *   Nug  gamma(h) = nugget                                   (h > 0)
 *   Sph  psill * (1.5 h/a - 0.5 (h/a)^3) for h < a, psill otherwise
 *   Exp  psill * (1 - exp(-h/a))
 *   Gau  psill * (1 - exp(-(h/a)^2))
 *   Mat  psill * (1 - 2^(1-k)/Gamma(k) (h/a)^k K_k(h/a))     (K_k: modified Bessel, 2nd kind)
 *   Pow  psill * h^a
 * and gamma(0) = 0 always.
 *
 * Ordinary kriging solves, for the n neighbours of a target s0,
 *   [ G  1 ] [ w  ]   [ g0 ]
 *   [ 1' 0 ] [ mu ] = [ 1  ],  G_ij = gamma(s_i - s_j), g0_i = gamma(s0 - s_i)
 * with prediction sum w_i z_i and kriging variance w'g0 + mu.
 *
 * Ownership: _new/_read functions return objects the caller frees with the
 * matching _free (NULL accepted). Arrays passed in are borrowed.
 */
#ifndef KRIGE_H
#define KRIGE_H

#include "geo/block.h"
#include "geo/geo.h"

/* ---- points ------------------------------------------------------------ */

typedef struct krg_points {
    size_t n;
    double *x, *y, *z;      /* n each, owned */
} krg_points;

trv_status krg_points_new(trv_ctx *ctx, size_t n, krg_points **out);
void krg_points_free(krg_points *p);

/* ---- variogram models ------------------------------------------------- */

typedef enum krg_model_type {
    KRG_SPH = 0, KRG_EXP, KRG_GAU, KRG_MAT, KRG_POW, KRG_NMODELS
} krg_model_type;

typedef struct krg_model {
    krg_model_type type;
    double nugget;          /* >= 0 */
    double psill;           /* > 0 */
    double range;           /* > 0; Pow: exponent in (0, 2] */
    double kappa;           /* Mat only: smoothness > 0 (gstat's kappa) */
} krg_model;

/* gstat's three-letter names: "Sph", "Exp", "Gau", "Mat", "Pow"; parse is
 * case-insensitive and returns -1 for an unknown name. */
const char *krg_model_name(krg_model_type t);
int krg_model_parse(const char *name);

/* Semivariance at distance h >= 0 (nugget included; 0 at h == 0). */
double krg_gamma(const krg_model *m, double h);

/* ---- sample variogram --------------------------------------------------- */

typedef struct krg_vgm {
    int nlags;
    double cutoff, width;
    long *np;               /* pairs per lag */
    double *dist;           /* mean pair distance per lag */
    double *gamma;          /* semivariance per lag */
    size_t npoints;         /* points used (fewer than the input when subsampled) */
} krg_vgm;

/* gstat's sample variogram: cutoff <= 0 means gstat's 0.33333 of the
 * bounding-box diagonal (of all points, also when subsampling), width <= 0
 * means cutoff / 15; lag k holds the pairs with k w < d <= (k+1) w (d = 0
 * goes to the first lag), exactly as gstat assigns them. Lags without pairs
 * are dropped (as gstat does). If max_points > 0 and the input has more
 * points, a subsample of max_points points drawn with seed is used
 * (npoints says so). O(n^2) in the points used. */
trv_status krg_variogram(trv_ctx *ctx, const krg_points *p, double cutoff, double width, size_t max_points,
                         uint64_t seed, krg_vgm **out);
void krg_vgm_free(krg_vgm *v);

/* ---- fitting ------------------------------------------------------------- */

typedef enum krg_fit_method {
    KRG_FIT_CRESSIE = 2,    /* weights N_h / gamma_model(h)^2 */
    KRG_FIT_OLS = 6,        /* weights 1 */
    KRG_FIT_NH_H2 = 7       /* weights N_h / h^2 (gstat's default) */
} krg_fit_method;

/* Fit nugget, psill and range of model type `type` (kappa fixed at
 * init->kappa for Mat) to v by weighted least squares, as gstat's
 * fit.variogram does; init gives the starting values (gstat's initial
 * model; range 0 means "choose the start", so that an init may carry only
 * kappa) or is NULL for automatic ones. Method 2's weights come from the
 * initial model once, as gstat computes them. nugget and psill are kept
 * >= 0; psill 0 (a pure nugget fits best) is returned as such and callers
 * should treat it as no structure. A range at the end of the searched
 * interval is reported through trv_info. *wsse receives the weighted sum
 * of squared errors. */
trv_status krg_fit(trv_ctx *ctx, const krg_vgm *v, krg_model_type type, krg_fit_method method,
                   const krg_model *init, krg_model *out, double *wsse);

/* ---- neighbour index ------------------------------------------------------ */

typedef struct krg_index krg_index;

/* A bucket grid (core/bucket.h) over the points for nearest-neighbour queries. Duplicate
 * points (same x and y) are TRV_ERR_DATA: they make the kriging system
 * singular. */
trv_status krg_index_new(trv_ctx *ctx, const krg_points *p, krg_index **out);
void krg_index_free(krg_index *ix);

/* The k points nearest to (x, y) within maxdist (inf: no limit), nearest
 * first, equally near points the later (higher index) first as gstat
 * picks them, skipping point `skip` (-1: none). Returns
 * how many were found (<= k). */
int krg_index_nearest(const krg_index *ix, double x, double y, int k, double maxdist, long skip, long *idx,
                      double *d2);

/* ---- kriging -------------------------------------------------------------- */

typedef struct krg_opts {
    int nmax;               /* neighbours per target; 0 = all points (global) */
    double maxdist;         /* INFINITY = no limit; targets with no point within it are NaN */
    int threads;            /* 0 = all cores */
    double et;              /* DEM refinement: lattice frames' tolerance, source pixels; 0 = exact per block */
} krg_opts;

void krg_opts_init(krg_opts *o); /* nmax 16, maxdist INFINITY, threads 0, et 0 */
/* trv-krige's --et default (docs/method.md §1.7). */
#define KRG_ET_DEFAULT 1e-2

/* Ordinary kriging at n targets (per-target nmax nearest neighbours, as
 * gstat's krige with nmax). pred and var receive NaN where no neighbour
 * lies within maxdist. var may be NULL. */
trv_status krg_predict(trv_ctx *ctx, const krg_points *p, const krg_index *ix, const krg_model *m,
                       const krg_opts *o, size_t n, const double *tx, const double *ty, double *pred, double *var);

/* Leave-one-out cross-validation at the points listed in which (n of
 * them; which NULL: all points): each is predicted from the others. */
trv_status krg_cv(trv_ctx *ctx, const krg_points *p, const krg_index *ix, const krg_model *m, const krg_opts *o,
                  size_t n, const long *which, double *pred, double *var);

/* ---- model choice ------------------------------------------------------- */

typedef struct krg_candidate {
    krg_model model;
    int short_lags;         /* 1: fitted to the short-lag variogram */
    int exact;              /* 1: nugget 0, range (Pow: exponent) tuned by LOOCV */
    double wsse;            /* weighted SSE of the fit */
    double cv_rmse;         /* leave-one-out RMSE on the CV subsample; NAN if not evaluated */
    int ok;                 /* 0: the fit failed (skipped) */
} krg_candidate;

typedef struct krg_choice_opts {
    krg_fit_method method;
    double cutoff, width;   /* <= 0: gstat's defaults */
    size_t vgm_points;      /* variogram subsample size (0: all points) */
    size_t cv_points;       /* LOOCV subsample size (0: all points) */
    uint64_t seed;
    int only;               /* -1: every model (auto), else one krg_model_type */
    double kappa;           /* with only == KRG_MAT: its kappa (NAN, the default: 1.5) */
} krg_choice_opts;

void krg_choice_opts_init(krg_choice_opts *o); /* method 7, default cutoff, 3000 / 1000 points, seed 1, auto, kappa NAN */

/* Fit the candidate models and keep the one with the lowest leave-one-out
 * RMSE. Candidates: each model (Mat with kappa 1.5 and 2.5) fitted by
 * weighted least squares to the sample variogram (gstat's cutoff) and, for
 * dense data whose first lag spans several sample spacings, to a short-lag
 * variogram (cutoff 8 times the median nearest-neighbour spacing, 15 lags,
 * every pair between the CV subsample and all points), because the
 * behaviour near the origin decides how well kriging interpolates; and,
 * for each model, its exact-interpolator variant: nugget 0 and the range
 * (Pow: the exponent) tuned by LOOCV from the short-lag (else the full)
 * fit. With only >= 0, that model's candidates alone. A candidate whose
 * fit or LOOCV RMSE is not finite is never chosen (none left: TRV_ERR_DATA;
 * values beyond about 1e77 cannot be fitted). *vgm receives the
 * full sample variogram, *cands (ncand) every candidate; the caller frees
 * both. */
trv_status krg_choose_model(trv_ctx *ctx, const krg_points *p, const krg_index *ix, const krg_opts *ko,
                            const krg_choice_opts *co, krg_model *best, krg_vgm **vgm, krg_candidate **cands,
                            int *ncand);

/* ---- neighbourhood choice -------------------------------------------------- */

/* The neighbourhood sizes a fitted model is kriged with when no nmax is
 * given (trv-krige without --nmax): on a lattice of samples, the 4 x 4,
 * 6 x 6 and 8 x 8 samples around a block. */
enum { KRG_NMAX_NCAND = 3 };
extern const int krg_nmax_candidates[KRG_NMAX_NCAND]; /* 16, 36, 64 */
#define KRG_NMAX_TOL 0.001 /* the relative RMSE a smaller neighbourhood may lose */

typedef struct krg_nmax_choice {
    int n;                  /* candidates evaluated; 0: no choice made (nmax given, or the model fixed) */
    int nmax[KRG_NMAX_NCAND];
    double cv_rmse[KRG_NMAX_NCAND]; /* leave-one-out RMSE; NAN: a system could not be solved */
    int chosen;             /* the nmax kept */
} krg_nmax_choice;

/* The neighbourhood of model m by leave-one-out: r_k, the LOOCV RMSE of m
 * with nmax_k = krg_nmax_candidates[k] neighbours at the points of
 * krg_choose_model's CV subsample (co->cv_points drawn with co->seed: the
 * same points), r* = min r_k over the finite ones, and the choice is the
 * smallest nmax_k with r_k <= (1 + KRG_NMAX_TOL) r*: the cheapest
 * neighbourhood not worse than the best by more than 1 %. ko gives maxdist
 * and threads (its nmax is ignored). Cost: three LOOCV runs on at most
 * cv_points points (about 0.1 s of CPU for 1000 points); the kriging that
 * follows costs about nmax times more per target with a stencil, nmax^3
 * with per-block systems. No finite r_k: TRV_ERR_DATA. */
trv_status krg_choose_nmax(trv_ctx *ctx, const krg_points *p, const krg_index *ix, const krg_model *m,
                           const krg_opts *ko, const krg_choice_opts *co, krg_nmax_choice *out);

/* Summary of leave-one-out results against the observed values. */
typedef struct krg_cv_stats {
    size_t n;
    double rmse, mae, me, msse; /* msse: mean of (error^2 / variance) */
} krg_cv_stats;

void krg_cv_summary(const double *obs, const double *pred, const double *var, size_t n, krg_cv_stats *out);

/* ---- regular grids: refinement of a DEM ---------------------------------- */

/* The samples of a raster DEM: every data cell's centre, transformed into
 * the metric working CRS (docs/method.md §1.1), with the map back to cells. */
typedef struct krg_source {
    krg_points *pts;        /* data cells, row-major order; owned */
    long *point_of_cell;    /* nx * ny: index into pts, -1 for nodata */
    double *wx, *wy;        /* nx * ny: every cell centre in the working CRS */
    geo_grid grid;          /* the raster's own grid and CRS */
    char *work_wkt;         /* the metric CRS kriging works in */
    int regular;            /* 1: the raster is a grid of the working CRS itself */
} krg_source;

/* threads: the centres transformed on up to that many threads (<= 0: all
 * cores, as krg_opts.threads); the same values for every count. */
trv_status krg_source_new(trv_ctx *ctx, const geo_raster *dem, const char *work_wkt, int threads, krg_source **out);
void krg_source_free(krg_source *s);

typedef struct krg_refine_stats {
    size_t stencil;         /* targets done by the regular-grid stencil */
    size_t block;           /* targets done by per-block systems */
    size_t nodata;          /* targets left nodata */
    size_t systems;         /* kriging systems factorised */
    size_t cov;             /* of those, solved in the covariance form */
    size_t frame;           /* targets done by lattice frames (o->et > 0) */
    size_t frame_blocks;    /* blocks solved in a frame's factor */
    size_t frames;          /* frames factorised */
    size_t frame_fail;      /* frames whose lattice missed the tolerance (or pattern, or budget) */
} krg_refine_stats;

/* Krige the source onto target (any CRS: its cell centres are transformed
 * into the working CRS), writing Float32 rasters *pred (elevation) and,
 * unless std is NULL, *std (kriging standard deviation), nodata -9999.
 *
 * Neighbourhood: a raster's samples sit on a lattice, so every target in
 * the cell between four samples (a "block") shares one neighbour set: the
 * o->nmax data samples nearest to the block's centre (for nmax 16 on a
 * complete lattice, the 4 x 4 samples around it). One factorisation per
 * block serves all its targets (dual kriging: the prediction is b'g with b
 * solved once per block; the variance g'K^-1 g): for models with a sill in
 * the covariance form (Cholesky of s 11' - G), else (Pow, or C not
 * positive definite) from K's LDL' factors; the targets' semivariances
 * come from a cubic Hermite table (error below 1e-11 psill; docs/method.md
 * §1.7). Targets whose nearest neighbour is beyond o->maxdist are nodata.
 *
 * Fast path (allow_fast): when the raster is a grid of the working CRS and
 * the target is too, a target's weights depend only on its offset inside
 * its block, so they are solved once per offset and applied as a stencil;
 * blocks at the border or touching nodata fall back to their own system.
 * Both paths agree to rounding (tested to 1e-9).
 *
 * Lattice frames (o->et > 0, no maxdist, a model with a sill; krige_priv.h
 * krg_frames, docs/method.md §1.7): blocks grouped into frames where the
 * projected samples stay within o->et source pixels of an affine lattice
 * share one neighbour pattern and one covariance factor; per block only
 * beta = u'L^-1 z / s11 and alpha = C^-1 (z - beta 1), per target its
 * position J (a, b) from its fractional source index. Positions move by at
 * most e = et p (p the shorter pixel side), distances by 2 e: the same
 * neighbour sets, values within about 4 S e of the exact path (S the
 * steepest slope). o->et = 0: the exact per-block path, unchanged. A kriged value or
 * standard deviation beyond Float32's range is TRV_ERR_DATA naming the
 * cell (here and in krg_grid_points): no output holds +-Inf. */
trv_status krg_refine(trv_ctx *ctx, const krg_source *src, const krg_index *ix, const krg_model *m,
                      const krg_opts *o, const geo_grid *target, int allow_fast, geo_raster **pred,
                      geo_raster **std, krg_refine_stats *stats);

/* Krige scattered points (in work_wkt) onto target cell centres, target
 * nmax nearest per cell (krg_predict), row block by row block. */
trv_status krg_grid_points(trv_ctx *ctx, const krg_points *p, const krg_index *ix, const krg_model *m,
                           const krg_opts *o, const char *work_wkt, const geo_grid *target, geo_raster **pred,
                           geo_raster **std);

/* krg_refine by row ranges (docs/scale.md), for a stage that streams its
 * output: krg_refiner_rows writes target rows y0 .. y1 - 1 into pred (and
 * std unless NULL), (y1 - y0) x nx Float32 cells each, nodata -9999, with
 * krg_refine's values to the bit whatever the ranges (a cell's value
 * depends on the cell alone); the rows are shared by o->threads threads.
 * The refiner holds the stencil, the gamma table and each thread's
 * workspace (its block cache, two raster rows of blocks): its memory
 * depends on the widths and nmax, not on the target's height. It borrows
 * src, ix and target. A range after a failure is refused. Progress
 * ("krige") counts the rows done of the whole target. */
typedef struct krg_refiner krg_refiner;

trv_status krg_refiner_new(trv_ctx *ctx, const krg_source *src, const krg_index *ix, const krg_model *m,
                           const krg_opts *o, const geo_grid *target, int allow_fast, krg_refiner **out);
trv_status krg_refiner_rows(trv_ctx *ctx, krg_refiner *R, int y0, int y1, float *pred, float *std);
/* The window of nx x ny target cells at column x0, row y0 into pred (and
 * std unless NULL), row-major, nx wide: krg_refine's values to the bit
 * whatever the window (each row's targets transformed as parts of the
 * whole row's line transforms: krg_srcline_part, geo_ct_line_part);
 * krg_refiner_rows is the window of whole rows. The window's rows are
 * shared among the threads as krg_refiner_rows shares rows (chunks of
 * GEO_BLOCK_ROWS / threads rows by their number in the target). The
 * workspaces' line buffers are the widest window's (not the target's
 * width). The block caches' misses, so the `systems` and `frame_blocks`
 * counts, depend on the windows taken; every other count does not. A
 * window off the target: TRV_ERR_INTERNAL. A value beyond Float32's range
 * is reported naming its column and row in the target. */
trv_status krg_refiner_window(trv_ctx *ctx, krg_refiner *R, int x0, int y0, int nx, int ny, float *pred,
                              float *std);
/* The counts of the rows done so far. */
void krg_refiner_stats(const krg_refiner *R, krg_refine_stats *stats);
void krg_refiner_free(krg_refiner *R);

/* krg_grid_points' rows y0 .. y1 - 1 into pred (and std unless NULL), as
 * krg_refiner_rows does; ct transforms target coordinates into the
 * points' CRS. The same values whatever the ranges. */
trv_status krg_grid_points_rows(trv_ctx *ctx, const krg_points *p, const krg_index *ix, const krg_model *m,
                                const krg_opts *o, geo_ct *ct, const geo_grid *target, int y0, int y1, float *pred,
                                float *std);
/* krg_grid_points' window of nx x ny cells at column x0, row y0 (as
 * krg_refiner_window): each cell by krg_predict alone, so the same values
 * whatever the window. */
trv_status krg_grid_points_window(trv_ctx *ctx, const krg_points *p, const krg_index *ix, const krg_model *m,
                                  const krg_opts *o, geo_ct *ct, const geo_grid *target, int x0, int y0, int nx,
                                  int ny, float *pred, float *std);

/* ---- the trv-krige stage ----------------------------------------------- */

typedef struct krg_job_opts {
    const char *input;      /* a GDAL raster (DEM), or a CSV of points when x_col is set */
    const char *x_col, *y_col, *z_col, *s_srs; /* CSV columns and their CRS */
    const char *t_srs;      /* target CRS; NULL: the input's if projected, else its UTM zone */
    double tr;              /* target cell size; <= 0: input cell size / 3 (rasters) */
    const char *like;       /* take CRS, extent and cell size from this raster */
    int has_te;
    double te[4];           /* target extent xmin ymin xmax ymax, in the target CRS */
    krg_choice_opts choice; /* fitting and model choice */
    int nmax_auto;          /* 1 (and the model fitted, not fixed): the model is chosen with nmax
                               krg_nmax_candidates[0], then krige.nmax by krg_choose_nmax (default 0) */
    int fixed;              /* 1: use `model` as given, fit nothing */
    krg_model model;
    krg_opts krige;
    int want_cv;            /* leave-one-out over every input point */
    int want_vgm;           /* the sample variogram even when the model is fixed */
    int allow_fast;         /* the regular-grid stencil (default 1) */
    int want_std;           /* the kriging standard deviation (default 1; 0: none written) */
    int nsim;               /* > 0: that many conditional realisations (sim.h), seeded by sim_seed, of
                               the model with its sill scaled by krg_sim_scale */
    uint64_t sim_seed;
} krg_job_opts;

void krg_job_opts_init(krg_job_opts *o);

/* The options' conflicts and ranges, as trv-krige reports them (the
 * messages name its options): --tr with --like; --like with --t_srs or
 * --te; tr < 0; a fixed model without all of nugget, psill and range (NAN:
 * not given), without a type, or with nugget < 0, psill <= 0, range <= 0
 * (Pow: exponent in (0, 2]); a choice.kappa (NAN: not given) <= 0 or
 * without only == KRG_MAT; nmax < 0; maxdist <= 0; threads < 0; cutoff or
 * width < 0; nsim < 0; an inverted te (has_te: xmin >= xmax or ymin >= ymax); some
 * but not all of the CSV columns and s_srs.
 * TRV_ERR_USAGE on the first found; krg_job_run checks them first. */
trv_status krg_job_opts_check(trv_ctx *ctx, const krg_job_opts *o);

typedef struct krg_job {
    geo_grid grid;          /* the target grid: its rows are kriged block by block as krg_job_write writes them */
    struct krg_source *src; /* raster input: the samples, kept for krg_job_write (pts borrowed) */
    krg_index *ix;          /* the neighbour index, kept for krg_job_write */
    krg_opts krige;         /* the kriging options (nmax: the one given or chosen), for krg_job_write */
    int allow_fast, want_std; /* the stencil switch and the std, as asked */
    geo_block_stats dem_stats, std_stats; /* set by krg_job_write: the written layers' statistics */
    krg_model model;
    krg_vgm *vgm;           /* the sample variogram (NULL: model fixed and want_vgm 0) */
    krg_candidate *cands;
    int ncand;
    krg_nmax_choice nmax_choice; /* nmax_auto with a fitted model: how nmax was chosen */
    krg_points *pts;        /* the input points in the working CRS */
    char *work_wkt, *input_label;
    int raster_input;
    size_t input_cells;     /* raster: cells in all (data and nodata) */
    double *cv_pred, *cv_var; /* want_cv: per input point */
    krg_cv_stats cv;
    krg_refine_stats stats;
    int threads;            /* the resolved krige.threads: the writers compress with as many */
    int nsim;
    double sim_scale;       /* nsim > 0: the realisations' variance scale (krg_sim_scale) */
    struct krg_sim *sim;    /* nsim > 0: the simulation, run as krg_job_write writes paths->sim (sim.h) */
} krg_job;

/* Check the options (krg_job_opts_check), read the input, choose the
 * target grid, fit or take the model, (nmax_auto) choose nmax,
 * (want_cv) cross-validate, and with nsim > 0 prepare the realisations;
 * the kriging (and the realisations) are left to krg_job_write, which
 * streams them (docs/scale.md). The cross-validation,
 * the kriging and the realisations use the nmax chosen. Errors name the
 * input. */
trv_status krg_job_run(trv_ctx *ctx, const krg_job_opts *o, krg_job *out);
void krg_job_clear(krg_job *j);

typedef struct krg_job_paths {
    const char *dem, *std, *variogram, *cv, *points; /* NULL: not written (dem required) */
    const char *sim;        /* the realisations (job run with nsim > 0), band by band */
} krg_job_paths;

/* Write the outputs into the caller's output set (std and points need a
 * job run with want_std: TRV_ERR_USAGE otherwise) (committed by the caller,
 * with whatever else the run writes: all or none). The DEM and std are
 * Cloud-Optimized GeoTIFFs written by row blocks (geo/block.h; job_stream.c):
 * kriged block by block (krg_refiner, krg_grid_points_rows); the same bytes
 * for every block height (TRV_BLOCK_ROWS), peak memory O(target width x
 * block) beside the samples (and with realisations the simulation's torus). It sets
 * j->stats, j->dem_stats and j->std_stats. The variogram CSV has
 * np, dist, gamma and the model's gamma at dist; the CV CSV x, y, observed,
 * pred, var (in the working CRS); the point cloud x, y, z, std of every
 * target cell with data (target CRS); the realisations a band-interleaved
 * Float32 GeoTIFF on the target grid, band k + 1 = realisation k described
 * "realisation k + 1", nodata -9999, unit m, made pair by pair and written
 * by tiles (krg_sim_pair, krg_sim_tile, geo_bands_put_tile): the file the
 * same for every tile size. */
trv_status krg_job_write(trv_ctx *ctx, trv_outset *set, krg_job *j, const krg_job_paths *paths,
                         const trv_meta *meta);

/* ---- the linear algebra it runs with ---------------------------------- */

/* The LAPACK version the solves run with, as LAPACKE reports it at run time
 * (ILAVER: "3.11.0"), into buf (n bytes); returns buf. */
const char *krg_lapack_version(char *buf, size_t n);
/* The BLAS under it: OpenBLAS's own description of its build ("OpenBLAS
 * 0.3.21 DYNAMIC_ARCH ... Haswell MAX_THREADS=64"); owned by OpenBLAS. */
const char *krg_blas_version(void);
/* Stop the BLAS's worker threads, which OpenBLAS starts when the program
 * loads and which spin for about 0.1 s of CPU before they sleep; a later
 * BLAS call that runs on threads starts them again, with the same number
 * of threads (so the same results). Every tool calls it at its start. */
void krg_blas_rest(void);

#endif
