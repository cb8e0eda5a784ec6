/* Bottleneck assignment (fleet.h fleet_bottleneck): the largest matching
 * over finite entries (augmenting paths, Kuhn 1955), the least threshold
 * that keeps it that large (binary search over the sorted entries), then
 * the least sum below it (fleet_hungarian); and fleet_assign_makespan. */
#include "fleet.h"

#include <stdlib.h>
#include <string.h>

typedef struct match {
    int n, m;
    const double *c;
    double thr;
    int *row_of;            /* per column: its row, -1 */
    char *seen;             /* per column, this augmentation */
} match;

static int augment(match *M, int i)
{
    for (int j = 0; j < M->m; j++) {
        double x = M->c[(size_t)i * M->m + j];
        if (M->seen[j] || !isfinite(x) || !(x <= M->thr))
            continue;
        M->seen[j] = 1;
        if (M->row_of[j] < 0 || augment(M, M->row_of[j])) {
            M->row_of[j] = i;
            return 1;
        }
    }
    return 0;
}

/* The size of the largest matching over entries <= thr. */
static int matching(match *M, double thr)
{
    M->thr = thr;
    int size = 0;
    for (int j = 0; j < M->m; j++)
        M->row_of[j] = -1;
    for (int i = 0; i < M->n; i++) {
        memset(M->seen, 0, (size_t)M->m);
        size += augment(M, i);
    }
    return size;
}

int fleet_bottleneck(int n, int m, const double *c, int *col, double *bottleneck)
{
    *bottleneck = NAN;
    size_t nn = (size_t)n * m, nf = 0;
    double *v = malloc((nn ? nn : 1) * sizeof *v), *cut = malloc((nn ? nn : 1) * sizeof *cut);
    match M = {n, m, c, 0, malloc(((size_t)m + 1) * sizeof(int)), malloc((size_t)m + 1)};
    if (!v || !cut || !M.row_of || !M.seen) {
        free(v), free(cut), free(M.row_of), free(M.seen);
        return -1;
    }
    for (size_t q = 0; q < nn; q++)
        if (isfinite(c[q]))
            v[nf++] = c[q];
    qsort(v, nf, sizeof *v, trv_cmp_double);
    int best = matching(&M, INFINITY);
    double thr = NAN; /* the least entry that keeps the matching at best */
    if (best > 0) {
        size_t lo = 0, hi = nf - 1;
        while (lo < hi) {
            size_t mid = (lo + hi) / 2;
            if (matching(&M, v[mid]) == best)
                hi = mid;
            else
                lo = mid + 1;
        }
        thr = v[lo];
    }
    for (size_t q = 0; q < nn; q++)
        cut[q] = best && c[q] <= thr ? c[q] : INFINITY;
    int pairs = fleet_hungarian(n, m, cut, col);
    *bottleneck = best ? thr : NAN;
    free(v), free(cut), free(M.row_of), free(M.seen);
    return pairs;
}

trv_status fleet_assign_makespan(trv_ctx *ctx, const fleet_problem *P, fleet_plan *out)
{
    trv_status st = fleet_plan_init(ctx, out, P->nv, P->nt);
    size_t nn = (size_t)P->nv * P->nt;
    double *end = st ? NULL : malloc((nn ? nn : 1) * sizeof *end), *c = st ? NULL : malloc((nn ? nn : 1) * sizeof *c);
    int *col = st ? NULL : malloc((size_t)(P->nv ? P->nv : 1) * sizeof *col);
    if (!st && (!end || !c || !col))
        st = trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
    for (int k = 0; !st && k < P->nv; k++)
        for (int j = 0; j < P->nt; j++)
            end[(size_t)k * P->nt + j] = fleet_single(P, k, j, 1);
    double b;
    if (!st && fleet_bottleneck(P->nv, P->nt, end, col, &b) < 0)
        st = trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
    /* the least total among the matchings of that bottleneck: times, not ends */
    for (int k = 0; !st && k < P->nv; k++)
        for (int j = 0; j < P->nt; j++)
            c[(size_t)k * P->nt + j] = end[(size_t)k * P->nt + j] <= b ? fleet_single(P, k, j, 0) : INFINITY;
    if (!st && !isnan(b) && fleet_hungarian(P->nv, P->nt, c, col) < 0)
        st = trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
    for (int k = 0; !st && k < P->nv; k++)
        if (col[k] >= 0)
            out->seq[(size_t)k * P->nt] = col[k], out->len[k] = 1;
    if (!st) {
        snprintf(out->method, sizeof out->method, "bottleneck");
        fleet_plan_eval(P, out);
    }
    free(end), free(c), free(col);
    return st;
}
