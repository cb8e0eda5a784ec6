/* Latin hypercube sampling (docs/method.md §4.2): n points in the box
 * [x0, x1) x [y0, y1), one in each of n columns and one in each of n rows,
 * the rows paired with the columns by a seeded Fisher-Yates permutation,
 * each point uniform within its cell. */
#include "prm.h"

#include <stdlib.h>

void prm_lhs(uint64_t seed, int n, double x0, double y0, double x1, double y1, double *xs, double *ys)
{
    trv_rng r;
    trv_rng_seed(&r, seed);
    int *perm = malloc((size_t)n * sizeof *perm);
    for (int i = 0; i < n && perm; i++)
        perm[i] = i;
    for (int i = n - 1; i > 0 && perm; i--) { /* Fisher-Yates: pairs columns with rows */
        int j = (int)trv_rng_below(&r, (uint64_t)i + 1);
        int t = perm[i];
        perm[i] = perm[j];
        perm[j] = t;
    }
    double w = (x1 - x0) / n, h = (y1 - y0) / n;
    for (int i = 0; i < n; i++) {
        int row = perm ? perm[i] : (int)((int64_t)i * 7919 % n); /* without memory, still one per stratum */
        xs[i] = x0 + (i + trv_rng_uniform(&r)) * w;
        ys[i] = y0 + (row + trv_rng_uniform(&r)) * h;
    }
    free(perm);
}
