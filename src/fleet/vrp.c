/* Several tasks per vehicle (fleet.h fleet_vrp): FLEET_VRP_STARTS starts,
 * the first cheapest insertion (Rosenkrantz, Stearns & Lewis 1977, over
 * all vehicles and positions, windows and capacity respected), the others
 * each task in a seeded random order at its cheapest place; each start
 * then first-improvement local search until no move lowers the total:
 * insert a task still unserved, relocate one task anywhere (its own route
 * included), exchange two tasks, reverse a run of one route (2-opt); the
 * best start kept. A heuristic: its gap to the MILP optimum is measured
 * (tests/test_fleet.c, bench/). */
#include "fleet.h"

#include <stdlib.h>
#include <string.h>

#define EPS 1e-9

typedef struct work {
    const fleet_problem *P;
    fleet_plan *p;
    double *rt;             /* per vehicle: its time */
    char *routed;           /* per task */
    int *a, *b;             /* scratch routes (nt + 1) */
} work;

static int *route(work *W, int k)
{
    return W->p->seq + (size_t)k * W->P->nt;
}

/* Vehicle k's time with task j inserted at position pos of its route. */
static double with_insert(work *W, int k, int pos, int j)
{
    int n = W->p->len[k], *s = route(W, k);
    memcpy(W->a, s, (size_t)pos * sizeof *s);
    W->a[pos] = j;
    memcpy(W->a + pos + 1, s + pos, (size_t)(n - pos) * sizeof *s);
    return fleet_route_time(W->P, k, W->a, n + 1, NULL);
}

static void do_insert(work *W, int k, int pos, int j, double t)
{
    int *s = route(W, k);
    memmove(s + pos + 1, s + pos, (size_t)(W->p->len[k] - pos) * sizeof *s);
    s[pos] = j;
    W->p->len[k]++;
    W->rt[k] = t;
    W->routed[j] = 1;
}

static void do_remove(work *W, int k, int pos)
{
    int *s = route(W, k);
    W->routed[s[pos]] = 0;
    memmove(s + pos, s + pos + 1, (size_t)(W->p->len[k] - pos - 1) * sizeof *s);
    W->p->len[k]--;
    W->rt[k] = fleet_route_time(W->P, k, s, W->p->len[k], NULL);
}

/* The cheapest insertion of any unrouted task (only == -1) or of task
 * only; 1 if one was made. */
static int insert_best(work *W, int only)
{
    double best = INFINITY, bt = 0;
    int bj = -1, bk = -1, bp = -1;
    for (int j = 0; j < W->P->nt; j++) {
        if (W->routed[j] || (only >= 0 && j != only))
            continue;
        for (int k = 0; k < W->P->nv; k++)
            for (int pos = 0; pos <= W->p->len[k]; pos++) {
                double t = with_insert(W, k, pos, j);
                if (isfinite(t) && t - W->rt[k] < best - EPS)
                    best = t - W->rt[k], bt = t, bj = j, bk = k, bp = pos;
            }
    }
    if (bj < 0)
        return 0;
    do_insert(W, bk, bp, bj, bt);
    return 1;
}

/* Move the task at (k, p) elsewhere if that lowers the total. */
static int relocate(work *W, int k, int p)
{
    int j = route(W, k)[p];
    double before = W->rt[k];
    do_remove(W, k, p);
    double gain_out = before - W->rt[k];
    for (int k2 = 0; k2 < W->P->nv; k2++)
        for (int q = 0; q <= W->p->len[k2]; q++) {
            if (k2 == k && q == p)
                continue;
            double t = with_insert(W, k2, q, j);
            if (isfinite(t) && t - W->rt[k2] < gain_out - EPS) {
                do_insert(W, k2, q, j, t);
                return 1;
            }
        }
    do_insert(W, k, p, j, before);
    return 0;
}

/* Exchange the tasks at (k1, p1) and (k2, p2) if that lowers the total. */
static int exchange(work *W, int k1, int p1, int k2, int p2)
{
    int *s1 = route(W, k1), *s2 = route(W, k2);
    int j1 = s1[p1], j2 = s2[p2];
    s1[p1] = j2, s2[p2] = j1;
    double t1 = fleet_route_time(W->P, k1, s1, W->p->len[k1], NULL);
    double t2 = k1 == k2 ? 0 : fleet_route_time(W->P, k2, s2, W->p->len[k2], NULL);
    double old = W->rt[k1] + (k1 == k2 ? 0 : W->rt[k2]);
    if (isfinite(t1) && isfinite(t2) && t1 + t2 < old - EPS) {
        W->rt[k1] = t1;
        if (k1 != k2)
            W->rt[k2] = t2;
        return 1;
    }
    s1[p1] = j1, s2[p2] = j2;
    return 0;
}

/* Reverse positions i..j of vehicle k's route if that lowers its time. */
static int two_opt(work *W, int k, int i, int j)
{
    int *s = route(W, k), n = W->p->len[k];
    memcpy(W->a, s, (size_t)n * sizeof *s);
    for (int q = 0; q <= j - i; q++)
        W->a[i + q] = s[j - q];
    double t = fleet_route_time(W->P, k, W->a, n, NULL);
    if (isfinite(t) && t < W->rt[k] - EPS) {
        memcpy(s, W->a, (size_t)n * sizeof *s);
        W->rt[k] = t;
        return 1;
    }
    return 0;
}

/* One pass of every move; 1 if any improved. */
static int improve(work *W)
{
    const int nv = W->P->nv;
    for (int j = 0; j < W->P->nt; j++)
        if (!W->routed[j] && insert_best(W, j))
            return 1;
    for (int k = 0; k < nv; k++)
        for (int p = 0; p < W->p->len[k]; p++)
            if (relocate(W, k, p))
                return 1;
    for (int k1 = 0; k1 < nv; k1++)
        for (int p1 = 0; p1 < W->p->len[k1]; p1++)
            for (int k2 = k1; k2 < nv; k2++)
                for (int p2 = k2 == k1 ? p1 + 1 : 0; p2 < W->p->len[k2]; p2++)
                    if (exchange(W, k1, p1, k2, p2))
                        return 1;
    for (int k = 0; k < nv; k++)
        for (int i = 0; i < W->p->len[k]; i++)
            for (int j = i + 1; j < W->p->len[k]; j++)
                if (two_opt(W, k, i, j))
                    return 1;
    return 0;
}

/* Task `order[q]` after another at its cheapest feasible place (none:
 * left unserved for the local search to try again). */
static void insert_in_order(work *W, const int *order)
{
    for (int q = 0; q < W->P->nt; q++)
        insert_best(W, order[q]);
}

/* Lexicographic: more tasks served, then a lower total. */
static int plan_better(const fleet_plan *a, const fleet_plan *b)
{
    return a->served != b->served ? a->served > b->served : a->total_s < b->total_s - EPS;
}

/* One start (s 0: cheapest insertion; s > 0: insertion in a seeded random
 * order) improved to a local optimum, into W->p. */
static void one_start(work *W, int s, trv_rng *g, int *order)
{
    memset(W->p->len, 0, (size_t)W->P->nv * sizeof *W->p->len);
    memset(W->routed, 0, (size_t)W->P->nt);
    for (int k = 0; k < W->P->nv; k++)
        W->rt[k] = 0;
    if (s == 0)
        while (insert_best(W, -1))
            ;
    else {
        for (int q = 0; q < W->P->nt; q++)
            order[q] = q;
        for (int q = W->P->nt - 1; q > 0; q--) { /* Fisher-Yates */
            int r = (int)(trv_rng_uniform(g) * (q + 1)), x = order[q];
            order[q] = order[r], order[r] = x;
        }
        insert_in_order(W, order);
    }
    while (improve(W))
        ;
    fleet_plan_eval(W->P, W->p);
}

trv_status fleet_vrp(trv_ctx *ctx, const fleet_problem *P, fleet_plan *out)
{
    fleet_plan cur;
    trv_status st = fleet_plan_init(ctx, out, P->nv, P->nt);
    if (!st && (st = fleet_plan_init(ctx, &cur, P->nv, P->nt)))
        fleet_plan_clear(out);
    if (st)
        return st;
    work W = {P, &cur, calloc((size_t)(P->nv ? P->nv : 1), sizeof(double)), calloc((size_t)P->nt + 1, 1),
              malloc(((size_t)P->nt + 1) * sizeof(int)), malloc(((size_t)P->nt + 1) * sizeof(int))};
    if (!W.rt || !W.routed || !W.a || !W.b)
        st = trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
    trv_rng g;
    trv_rng_seed(&g, 1);
    for (int s = 0; !st && s < FLEET_VRP_STARTS; s++) {
        one_start(&W, s, &g, W.b);
        if (s == 0 || plan_better(&cur, out)) {
            memcpy(out->len, cur.len, (size_t)P->nv * sizeof *cur.len);
            memcpy(out->seq, cur.seq, (size_t)P->nv * (P->nt ? P->nt : 1) * sizeof *cur.seq);
            fleet_plan_eval(P, out);
        }
    }
    if (!st)
        snprintf(out->method, sizeof out->method, "insertion + local search, %d starts", FLEET_VRP_STARTS);
    else
        fleet_plan_clear(out);
    fleet_plan_clear(&cur);
    free(W.rt), free(W.routed), free(W.a), free(W.b);
    return st;
}
