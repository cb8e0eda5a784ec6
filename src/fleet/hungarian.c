/* Min-cost assignment (fleet.h fleet_hungarian): the Hungarian method with
 * potentials (Kuhn 1955, Munkres 1957; the O(n^2 m) shortest augmenting
 * path form), forbidden entries priced above any sum of allowed ones so
 * that the most pairs come first; and fleet_assign_one over it. */
#include "fleet.h"

#include <stdlib.h>
#include <string.h>

/* Rows 1..n onto columns 1..m, n <= m, of the 1-indexed cost a(i, j);
 * p[j]: the row of column j (0: none). */
static void solve(int n, int m, const double *a, int *p)
{
    double *u = calloc((size_t)n + 1, sizeof *u), *v = calloc((size_t)m + 1, sizeof *v);
    double *minv = malloc(((size_t)m + 1) * sizeof *minv);
    int *way = calloc((size_t)m + 1, sizeof *way);
    char *used = malloc((size_t)m + 1);
    for (int j = 0; j <= m; j++)
        p[j] = 0;
    for (int i = 1; i <= n; i++) {
        p[0] = i;
        int j0 = 0;
        for (int j = 0; j <= m; j++)
            minv[j] = INFINITY, used[j] = 0;
        do {
            used[j0] = 1;
            int i0 = p[j0], j1 = 0;
            double delta = INFINITY;
            for (int j = 1; j <= m; j++)
                if (!used[j]) {
                    double cur = a[(size_t)(i0 - 1) * m + (j - 1)] - u[i0] - v[j];
                    if (cur < minv[j])
                        minv[j] = cur, way[j] = j0;
                    if (minv[j] < delta)
                        delta = minv[j], j1 = j;
                }
            for (int j = 0; j <= m; j++)
                if (used[j])
                    u[p[j]] += delta, v[j] -= delta;
                else
                    minv[j] -= delta;
            j0 = j1;
        } while (p[j0] != 0);
        do {
            int j1 = way[j0];
            p[j0] = p[j1];
            j0 = j1;
        } while (j0);
    }
    free(u), free(v), free(minv), free(way), free(used);
}

int fleet_hungarian(int n, int m, const double *c, int *col)
{
    for (int i = 0; i < n; i++)
        col[i] = -1;
    if (n == 0 || m == 0)
        return 0;
    int tr = n > m, R = tr ? m : n, C = tr ? n : m;
    double big = 0;
    for (size_t q = 0; q < (size_t)n * m; q++)
        if (isfinite(c[q]) && fabs(c[q]) > big)
            big = fabs(c[q]);
    big = (big + 1) * (R + 1) * 4; /* above any R allowed entries, and their spread */
    double *a = malloc((size_t)R * C * sizeof *a);
    int *p = malloc(((size_t)C + 1) * sizeof *p);
    if (!a || !p) {
        free(a), free(p);
        return -1;
    }
    for (int i = 0; i < R; i++)
        for (int j = 0; j < C; j++) {
            double x = tr ? c[(size_t)j * m + i] : c[(size_t)i * m + j];
            a[(size_t)i * C + j] = isfinite(x) ? x : big;
        }
    solve(R, C, a, p);
    int pairs = 0;
    for (int j = 1; j <= C; j++) {
        int i = p[j] - 1;
        if (i < 0 || !isfinite(tr ? c[(size_t)(j - 1) * m + i] : c[(size_t)i * m + (j - 1)]))
            continue;
        if (tr)
            col[j - 1] = i;
        else
            col[i] = j - 1;
        pairs++;
    }
    free(a), free(p);
    return pairs;
}

double fleet_single(const fleet_problem *P, int k, int j, int absolute)
{
    double end, t = fleet_route_time(P, k, &j, 1, &end);
    return absolute && isfinite(t) ? end : t;
}

trv_status fleet_assign_one(trv_ctx *ctx, const fleet_problem *P, fleet_plan *out)
{
    trv_status st = fleet_plan_init(ctx, out, P->nv, P->nt);
    double *c = st ? NULL : malloc((size_t)P->nv * (P->nt ? P->nt : 1) * sizeof *c);
    int *col = st ? NULL : malloc((size_t)(P->nv ? P->nv : 1) * sizeof *col);
    if (!st && (!c || !col))
        st = trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
    for (int k = 0; !st && k < P->nv; k++)
        for (int j = 0; j < P->nt; j++)
            c[(size_t)k * P->nt + j] = fleet_single(P, k, j, 0);
    if (!st && fleet_hungarian(P->nv, P->nt, c, col) < 0)
        st = trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
    for (int k = 0; !st && k < P->nv; k++)
        if (col[k] >= 0)
            out->seq[(size_t)k * P->nt] = col[k], out->len[k] = 1;
    if (!st) {
        snprintf(out->method, sizeof out->method, "hungarian");
        fleet_plan_eval(P, out);
    }
    free(c), free(col);
    return st;
}
