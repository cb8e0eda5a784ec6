/* The order of a mission's stops over a cost matrix (prm.h, "tour"):
 * Held-Karp's dynamic programme (exact) up to PRM_TOUR_EXACT_MAX stops to
 * order, cheapest insertion + 2-opt + Or-opt beyond. Pure: no terrain. */
#include "prm.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

double prm_tour_cost(int n, const double *c, int closed, const int *order)
{
    double sum = 0;
    for (int k = 0; k + 1 < n; k++)
        sum += c[order[k] * n + order[k + 1]];
    if (closed && n > 1)
        sum += c[order[n - 1] * n + order[0]];
    return sum;
}

/* The stops to order: 1..n-2 (open: 0 and n-1 are fixed), 1..n-1 (closed:
 * 0 is fixed and the tour returns to it). *end is the fixed last stop. */
static int middle(int n, int closed, int *end)
{
    *end = closed ? 0 : n - 1;
    return closed ? n - 1 : n - 2;
}

trv_status prm_tour_exact(trv_ctx *ctx, int n, const double *c, int closed, int *order, double *total)
{
    int e, m = middle(n, closed, &e);
    if (n < (closed ? 1 : 2) || m > PRM_TOUR_EXACT_MAX)
        return trv_error(ctx, TRV_ERR_INTERNAL, "Held-Karp takes 0 to %d stops to order (%d given)",
                         PRM_TOUR_EXACT_MAX, m);
    size_t full = (size_t)1 << m, cells = full * (size_t)(m ? m : 1);
    double *dp = malloc(cells * sizeof *dp);
    int *from = malloc(cells * sizeof *from);
    if (!dp || !from) {
        free(dp), free(from);
        return trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
    }
    /* dp[S][j]: the least cost from stop 0 through the set S of middle stops
     * (bit j: stop 1 + j), ending at stop 1 + j in S */
    for (size_t i = 0; i < cells; i++)
        dp[i] = INFINITY, from[i] = -1;
    for (int j = 0; j < m; j++)
        dp[((size_t)1 << j) * m + j] = c[0 * n + 1 + j];
    for (size_t S = 1; S < full; S++)
        for (int j = 0; j < m; j++) {
            if (!(S >> j & 1) || !(dp[S * m + j] < INFINITY))
                continue;
            for (int k = 0; k < m; k++) {
                if (S >> k & 1)
                    continue;
                size_t T = S | (size_t)1 << k;
                double v = dp[S * m + j] + c[(1 + j) * n + 1 + k];
                if (v < dp[T * m + k])
                    dp[T * m + k] = v, from[T * m + k] = j;
            }
        }
    double best = m ? INFINITY : c[0 * n + e];
    int last = -1;
    for (int j = 0; j < m; j++) {
        double v = dp[(full - 1) * m + j] + c[(1 + j) * n + e];
        if (v < best)
            best = v, last = j;
    }
    order[0] = 0;
    if (!closed)
        order[n - 1] = n - 1;
    size_t S = full - 1;
    for (int pos = m; pos >= 1 && last >= 0; pos--) {
        order[pos] = 1 + last;
        int prev = from[S * m + last];
        S &= ~((size_t)1 << last);
        last = prev;
    }
    free(dp), free(from);
    if (m && !(best < INFINITY))
        return trv_error(ctx, TRV_ERR_DATA, "no order of the stops joins them all (a leg is unreachable)");
    *total = best;
    return TRV_OK;
}

static double path_cost(const double *c, int n, const int *p, int len)
{
    double sum = 0;
    for (int k = 0; k + 1 < len; k++)
        sum += c[p[k] * n + p[k + 1]];
    return sum;
}

/* Cheapest insertion (Rosenkrantz, Stearns & Lewis 1977): p[0..1] the
 * fixed ends; each step inserts the stop, at the place, that adds least. */
static void insertion(int n, const double *c, int m, int *p, unsigned char *in)
{
    int len = 2;
    for (int step = 0; step < m; step++) {
        double best = INFINITY;
        int bv = -1, bi = 0;
        for (int v = 1; v <= m; v++) {
            if (in[v])
                continue;
            for (int i = 0; i + 1 < len; i++) {
                double d = c[p[i] * n + v] + c[v * n + p[i + 1]] - c[p[i] * n + p[i + 1]];
                if (bv < 0 || d < best)
                    best = d, bv = v, bi = i;
            }
        }
        memmove(&p[bi + 2], &p[bi + 1], (size_t)(len - bi - 1) * sizeof *p);
        p[bi + 1] = bv, len++;
        in[bv] = 1;
    }
}

/* 2-opt (Croes 1958), directed: reverse p[i..j] (the legs inside it then
 * run the other way, so the whole path is measured again). 1 if better. */
static int two_opt(int n, const double *c, int *p, int len, int *tmp)
{
    double cur = path_cost(c, n, p, len);
    for (int i = 1; i < len - 1; i++)
        for (int j = i + 1; j < len - 1; j++) {
            memcpy(tmp, p, (size_t)len * sizeof *p);
            for (int a = i, b = j; a < b; a++, b--)
                tmp[a] = p[b], tmp[b] = p[a];
            if (path_cost(c, n, tmp, len) < cur - 1e-9 * (1 + fabs(cur))) {
                memcpy(p, tmp, (size_t)len * sizeof *p);
                return 1;
            }
        }
    return 0;
}

/* Or-opt (Or 1976): move a run of 1 to 3 consecutive stops to another
 * place of the path, in its direction or reversed. 1 if better. */
static int or_opt(int n, const double *c, int *p, int len, int *tmp)
{
    double cur = path_cost(c, n, p, len);
    for (int L = 1; L <= 3; L++)
        for (int i = 1; i + L < len; i++) /* the run p[i..i+L) */
            for (int k = 0; k + 1 < len; k++) /* between p[k] and p[k+1] */
                for (int rev = 0; rev <= (L > 1); rev++) {
                if (k >= i - 1 && k < i + L && !rev)
                    continue;
                if (k >= i && k < i + L)
                    continue;
                int q = 0;
                for (int a = 0; a < len; a++) {
                    if (a >= i && a < i + L)
                        continue;
                    tmp[q++] = p[a];
                    if (a == k)
                        for (int b = 0; b < L; b++)
                            tmp[q++] = p[rev ? i + L - 1 - b : i + b];
                }
                if (path_cost(c, n, tmp, len) < cur - 1e-9 * (1 + fabs(cur))) {
                    memcpy(p, tmp, (size_t)len * sizeof *p);
                    return 1;
                }
            }
    return 0;
}

/* Nearest neighbour from p[0], its first step forced to stop `first`: p
 * of m + 2 entries with the fixed end last. */
static void nearest(int n, const double *c, int m, int e, int first, int *p, unsigned char *in)
{
    memset(in, 0, (size_t)n);
    p[0] = 0, p[1] = first, in[first] = 1;
    for (int k = 2; k <= m; k++) {
        int bv = -1;
        for (int v = 1; v <= m; v++)
            if (!in[v] && (bv < 0 || c[p[k - 1] * n + v] < c[p[k - 1] * n + bv]))
                bv = v;
        p[k] = bv, in[bv] = 1;
    }
    p[m + 1] = e;
}

static void improve(int n, const double *c, int *p, int len, int *tmp)
{
    while (two_opt(n, c, p, len, tmp) || or_opt(n, c, p, len, tmp))
        ;
}

enum { TOUR_STARTS = 8 };

trv_status prm_tour_heuristic(trv_ctx *ctx, int n, const double *c, int closed, int *order, double *total)
{
    int e, m = middle(n, closed, &e);
    if (n < (closed ? 1 : 2))
        return trv_error(ctx, TRV_ERR_INTERNAL, "a tour needs its start%s", closed ? "" : " and its end");
    int len = m + 2, *p = malloc((size_t)len * sizeof *p), *tmp = malloc((size_t)len * sizeof *tmp);
    int *best = malloc((size_t)len * sizeof *best);
    unsigned char *in = calloc((size_t)n, 1);
    if (!p || !tmp || !in || !best) {
        free(p), free(tmp), free(in), free(best);
        return trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
    }
    best[0] = 0, best[1] = e;
    insertion(n, c, m, best, in);
    improve(n, c, best, len, tmp);
    double bc = path_cost(c, n, best, len);
    /* restarts: nearest neighbour with each of the TOUR_STARTS cheapest first legs */
    for (int s = 0; s < TOUR_STARTS && s < m; s++) {
        int first = -1;
        for (int v = 1; v <= m; v++) { /* the s-th cheapest leg from 0 (ties: lower index) */
            int rank = 0;
            for (int u = 1; u <= m; u++)
                rank += c[u] < c[v] || (c[u] == c[v] && u < v);
            if (rank == s)
                first = v;
        }
        nearest(n, c, m, e, first, p, in);
        improve(n, c, p, len, tmp);
        double pc = path_cost(c, n, p, len);
        if (pc < bc)
            bc = pc, memcpy(best, p, (size_t)len * sizeof *p);
    }
    memcpy(order, best, (size_t)(closed ? len - 1 : len) * sizeof *order);
    free(p), free(tmp), free(in), free(best);
    if (!(bc < INFINITY))
        return trv_error(ctx, TRV_ERR_DATA, "no order of the stops joins them all (a leg is unreachable)");
    *total = bc;
    return TRV_OK;
}

trv_status prm_tour_order(trv_ctx *ctx, int n, const double *c, int closed, int *order, double *total, int *exact)
{
    int e, m = middle(n, closed, &e);
    *exact = m <= PRM_TOUR_EXACT_MAX;
    return *exact ? prm_tour_exact(ctx, n, c, closed, order, total)
                  : prm_tour_heuristic(ctx, n, c, closed, order, total);
}
