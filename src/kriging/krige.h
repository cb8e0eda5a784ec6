/*
 * krige.h — ordinary kriging (METHOD.md §1.1–1.4): sample variogram,
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

/* gstat's sample variogram: cutoff <= 0 means one third of the bounding-box
 * diagonal, width <= 0 means cutoff / 15; a pair at distance d goes to lag
 * floor(d / width) and counts when d <= cutoff, exactly as gstat assigns
 * pairs. Lags without pairs are dropped (as gstat does). If max_points > 0
 * and the input has more points, a subsample of max_points points drawn
 * with seed is used (npoints says so). */
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
 * model) or is NULL for automatic ones. nugget and psill are kept >= 0.
 * *wsse receives the weighted sum of squared errors. */
trv_status krg_fit(trv_ctx *ctx, const krg_vgm *v, krg_model_type type, krg_fit_method method,
                   const krg_model *init, krg_model *out, double *wsse);

/* ---- neighbour index ------------------------------------------------------ */

typedef struct krg_index krg_index;

/* A bucket grid over the points for nearest-neighbour queries. Duplicate
 * points (same x and y) are TRV_ERR_DATA: they make the kriging system
 * singular. */
trv_status krg_index_new(trv_ctx *ctx, const krg_points *p, krg_index **out);
void krg_index_free(krg_index *ix);

/* The k points nearest to (x, y) within maxdist (inf: no limit), nearest
 * first, ties broken by index, skipping point `skip` (-1: none). Returns
 * how many were found (<= k). */
int krg_index_nearest(const krg_index *ix, double x, double y, int k, double maxdist, long skip, long *idx,
                      double *d2);

/* ---- kriging -------------------------------------------------------------- */

typedef struct krg_opts {
    int nmax;               /* neighbours per target; 0 = all points (global) */
    double maxdist;         /* INFINITY = no limit; targets with no point within it are NaN */
    int threads;            /* 0 = all cores */
} krg_opts;

void krg_opts_init(krg_opts *o); /* nmax 16, maxdist INFINITY, threads 0 */

/* Ordinary kriging at n targets (per-target nmax nearest neighbours, as
 * gstat's krige with nmax). pred and var receive NaN where no neighbour
 * lies within maxdist. var may be NULL. */
trv_status krg_predict(trv_ctx *ctx, const krg_points *p, const krg_index *ix, const krg_model *m,
                       const krg_opts *o, size_t n, const double *tx, const double *ty, double *pred, double *var);

/* Leave-one-out cross-validation at the points listed in which (n of
 * them; which NULL: all points): each is predicted from the others. */
trv_status krg_cv(trv_ctx *ctx, const krg_points *p, const krg_index *ix, const krg_model *m, const krg_opts *o,
                  size_t n, const long *which, double *pred, double *var);

#endif
