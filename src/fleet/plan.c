/* A fleet plan (fleet.h): a vehicle's route time with its windows and
 * capacity, the plan's total and makespan. */
#include "fleet.h"

#include <stdlib.h>
#include <string.h>

trv_status fleet_plan_init(trv_ctx *ctx, fleet_plan *p, int nv, int nt)
{
    memset(p, 0, sizeof *p);
    p->nv = nv, p->nt = nt;
    p->len = calloc((size_t)nv, sizeof *p->len);
    p->seq = calloc((size_t)nv * (size_t)(nt ? nt : 1), sizeof *p->seq);
    p->time_s = calloc((size_t)nv, sizeof *p->time_s);
    if (!p->len || !p->seq || !p->time_s) {
        fleet_plan_clear(p);
        return trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
    }
    return TRV_OK;
}

void fleet_plan_clear(fleet_plan *p)
{
    free(p->len), free(p->seq), free(p->time_s);
    memset(p, 0, sizeof *p);
}

double fleet_route_time(const fleet_problem *P, int k, const int *seq, int n, double *end)
{
    const int w = P->nt + 1;
    const double *c = P->travel + (size_t)k * w * w;
    double t = P->avail[k];
    if (end)
        *end = t;
    if (P->cap && P->cap[k] > 0 && n > P->cap[k])
        return INFINITY;
    int at = 0;
    for (int p = 0; p < n; p++) {
        int j = seq[p];
        t += c[at * w + 1 + j];
        if (!(t <= (P->close ? P->close[j] : INFINITY)) || isinf(t))
            return INFINITY;
        if (P->open && t < P->open[j])
            t = P->open[j];
        t += P->service ? P->service[j] : 0;
        at = 1 + j;
    }
    if (end)
        *end = t;
    return t - P->avail[k];
}

void fleet_plan_eval(const fleet_problem *P, fleet_plan *p)
{
    p->total_s = 0, p->makespan_s = 0, p->served = 0;
    for (int k = 0; k < p->nv; k++) {
        double end;
        p->time_s[k] = fleet_route_time(P, k, p->seq + (size_t)k * p->nt, p->len[k], &end);
        p->total_s += p->time_s[k];
        p->served += p->len[k];
        if (p->len[k] && end > p->makespan_s)
            p->makespan_s = end;
    }
}
