/* Private to src/kriging: the kriging system shared by krige.c and grid.c. */
#ifndef KRIGE_PRIV_H
#define KRIGE_PRIV_H

#include "krige.h"

#include <lapacke.h>

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
/* exp(x) K_nu(x), the scaled modified Bessel function of the second kind
 * (bessel.c; for the Matern model in variogram.c, and exposed for its tests). */
double krg_bessel_k_scaled(double nu, double x);
/* Worker threads to use for a request (0: all cores). */
int krg_threads(int requested);

#endif
