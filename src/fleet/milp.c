/* The exact optimum of a fleet problem (fleet.h fleet_milp) as a mixed
 * integer programme solved by GLPK (glp_intopt: branch and cut after the
 * LP relaxation; Makhorin, GNU Linear Programming Kit). Formulation
 * (docs/fleet.md "The MILP"): binaries x_kij for vehicle k going from i
 * (its start 0 or a task) to j (a task or its end E), u_j for task j
 * unserved; times t_j (begin of service, open_j <= t_j <= close_j) and
 * T_k (vehicle k's last end, >= a_k);
 *   min  sum_k (T_k - a_k) + B sum_j u_j
 *   sum_k sum_i x_kij + u_j = 1                  every task once (or unserved)
 *   sum_i x_kij = sum_l x_kjl                    in = out, per vehicle and task
 *   sum_l x_k0l = 1                              every vehicle leaves (maybe to E)
 *   sum_{i, j task} x_kij <= cap_k               capacity
 *   t_j >= t_i + s_i + c_kij - M_ij (1 - x_kij)  times along a route (t_0 = a_k,
 *   T_k >= t_i + s_i - M_iE (1 - x_kiE)           s_0 = 0): no subtour either
 *   T_k - a_k >= sum_ij (c_kij + s_j) x_kij       valid (a vehicle's time holds its
 *                                                travel and service): a tighter LP
 * with B above any total and M_ij the least that frees the row when x is
 * 0: t_i at its latest (close_i, or M above any time of an earliest
 * schedule) and t_j at its earliest (open_j; a_k for T_k). */
#include "fleet.h"

#include <glpk.h>
#include <stdlib.h>
#include <string.h>

#define TIME_EPS 1e-3 /* s: keeps two tasks at one place with no service from a subtour */

typedef struct model {
    glp_prob *lp;
    int *ia, *ja;
    double *ar;
    int nz, cap;
    int *x;                 /* column of x_kij: k (nt+1)(nt+2) + i (nt+2) + j, 0: none; j = nt+1: E */
    int t0, T0, u0;         /* first columns of t_j, T_k, u_j */
} model;

static int put(model *m, int row, int col, double v)
{
    if (m->nz + 1 >= m->cap) {
        int c = m->cap ? 2 * m->cap : 1024;
        int *ia = realloc(m->ia, (size_t)c * sizeof *ia), *ja = ia ? realloc(m->ja, (size_t)c * sizeof *ja) : NULL;
        double *ar = ja ? realloc(m->ar, (size_t)c * sizeof *ar) : NULL;
        if (ia)
            m->ia = ia;
        if (ja)
            m->ja = ja;
        if (!ar)
            return -1;
        m->ar = ar, m->cap = c;
    }
    m->nz++;
    m->ia[m->nz] = row, m->ja[m->nz] = col, m->ar[m->nz] = v;
    return 0;
}

static int row_new(model *m, int type, double lo, double hi)
{
    int r = glp_add_rows(m->lp, 1);
    glp_set_row_bnds(m->lp, r, type, lo, hi);
    return r;
}

static double svc(const fleet_problem *P, int j) { return P->service ? P->service[j] : 0; }
static double opn(const fleet_problem *P, int j) { return P->open ? P->open[j] : 0; }
static double cls(const fleet_problem *P, int j) { return P->close ? P->close[j] : INFINITY; }

/* M: above every time of an earliest schedule. */
static double horizon(const fleet_problem *P)
{
    const int w = P->nt + 1;
    double h = 1, amax = 0, omax = 0;
    for (int k = 0; k < P->nv; k++)
        amax = fmax(amax, P->avail[k]);
    for (int j = 0; j < P->nt; j++) {
        double in = 0;
        for (int k = 0; k < P->nv; k++)
            for (int i = 0; i < w; i++)
                if (isfinite(P->travel[(size_t)k * w * w + (size_t)i * w + 1 + j]))
                    in = fmax(in, P->travel[(size_t)k * w * w + (size_t)i * w + 1 + j]);
        h += in + svc(P, j) + TIME_EPS;
        omax = fmax(omax, opn(P, j));
    }
    return h + amax + omax;
}

/* The columns: x, then t, T, u. */
static void columns(model *m, const fleet_problem *P, double B)
{
    const int nt = P->nt, w = nt + 1, W = nt + 2;
    for (int k = 0; k < P->nv; k++)
        for (int i = 0; i < w; i++)
            for (int j = 1; j <= w; j++) {
                double c = j == w ? 0 : P->travel[(size_t)k * w * w + (size_t)i * w + j];
                if (i == j || !isfinite(c) || (i == 0 && j < w && P->avail[k] + c > cls(P, j - 1)))
                    continue;
                int col = glp_add_cols(m->lp, 1);
                glp_set_col_kind(m->lp, col, GLP_BV);
                m->x[(size_t)k * w * W + (size_t)i * W + j] = col;
            }
    m->t0 = glp_add_cols(m->lp, nt > 0 ? nt : 1);
    for (int j = 0; j < nt; j++)
        if (isfinite(cls(P, j)))
            glp_set_col_bnds(m->lp, m->t0 + j, GLP_DB, opn(P, j), cls(P, j));
        else
            glp_set_col_bnds(m->lp, m->t0 + j, GLP_LO, opn(P, j), 0);
    m->T0 = glp_add_cols(m->lp, P->nv);
    for (int k = 0; k < P->nv; k++) {
        glp_set_col_bnds(m->lp, m->T0 + k, GLP_LO, P->avail[k], 0);
        glp_set_obj_coef(m->lp, m->T0 + k, 1);
    }
    m->u0 = glp_add_cols(m->lp, nt > 0 ? nt : 1);
    for (int j = 0; j < nt; j++) {
        glp_set_col_kind(m->lp, m->u0 + j, GLP_BV);
        glp_set_obj_coef(m->lp, m->u0 + j, B);
    }
}

/* The rows above; -1 when out of memory. */
static int rows(model *m, const fleet_problem *P, double M)
{
    const int nt = P->nt, w = nt + 1, W = nt + 2;
    int e = 0;
    for (int j = 1; j <= nt; j++) { /* served once */
        int r = row_new(m, GLP_FX, 1, 1);
        e |= put(m, r, m->u0 + j - 1, 1);
        for (int k = 0; k < P->nv; k++)
            for (int i = 0; i < w; i++)
                if (m->x[(size_t)k * w * W + (size_t)i * W + j])
                    e |= put(m, r, m->x[(size_t)k * w * W + (size_t)i * W + j], 1);
    }
    for (int k = 0; k < P->nv; k++) {
        const int *x = m->x + (size_t)k * w * W;
        const double *c = P->travel + (size_t)k * w * w;
        int r = row_new(m, GLP_FX, 1, 1), rc = P->cap && P->cap[k] > 0 ? row_new(m, GLP_UP, 0, P->cap[k]) : 0;
        for (int l = 1; l <= w; l++)
            if (x[l])
                e |= put(m, r, x[l], 1);
        for (int j = 1; j <= nt; j++) {
            int rf = row_new(m, GLP_FX, 0, 0);
            for (int i = 0; i < w; i++)
                if (x[i * W + j]) {
                    e |= put(m, rf, x[i * W + j], 1);
                    if (rc)
                        e |= put(m, rc, x[i * W + j], 1);
                }
            for (int l = 1; l <= w; l++)
                if (x[j * W + l])
                    e |= put(m, rf, x[j * W + l], -1);
        }
        int rt = row_new(m, GLP_LO, P->avail[k], 0); /* T_k - sum (c + s_j) x >= a_k */
        e |= put(m, rt, m->T0 + k, 1);
        for (int i = 0; i < w; i++)
            for (int j = 1; j < w; j++)
                if (x[i * W + j])
                    e |= put(m, rt, x[i * W + j], -(c[i * w + j] + svc(P, j - 1)));
        for (int i = 0; i < w; i++) /* times: t_j - t_i - M x >= s_i + c - M (t_0 = a_k) */
            for (int j = 1; j <= w; j++) {
                int col = x[i * W + j];
                if (!col)
                    continue;
                if (i == 0 && j == w)
                    continue; /* T_k >= a_k is its bound */
                double d = (i ? svc(P, i - 1) : P->avail[k]) + (j < w ? c[i * w + j] + TIME_EPS : 0);
                /* the least big-M that frees the row when x = 0: t_i at most its close (or M) */
                double Mij = fmax(0, (i && isfinite(cls(P, i - 1)) ? cls(P, i - 1) : i ? M : 0) + d -
                                         (j < w ? opn(P, j - 1) : P->avail[k]));
                int r2 = row_new(m, GLP_LO, d - Mij, 0);
                e |= put(m, r2, j < w ? m->t0 + j - 1 : m->T0 + k, 1);
                if (i)
                    e |= put(m, r2, m->t0 + i - 1, -1);
                e |= put(m, r2, col, -Mij);
            }
    }
    return e ? -1 : 0;
}

/* The plan from the solution: each vehicle's arcs followed from its start. */
static void extract(const model *m, const fleet_problem *P, fleet_plan *out)
{
    const int nt = P->nt, w = nt + 1, W = nt + 2;
    for (int k = 0; k < P->nv; k++) {
        const int *x = m->x + (size_t)k * w * W;
        int at = 0;
        out->len[k] = 0;
        while (out->len[k] < nt) {
            int next = -1;
            for (int j = 1; j <= w && next < 0; j++)
                if (x[at * W + j] && glp_mip_col_val(m->lp, x[at * W + j]) > 0.5)
                    next = j;
            if (next < 0 || next == w)
                break;
            out->seq[(size_t)k * nt + out->len[k]++] = next - 1;
            at = next;
        }
    }
}

trv_status fleet_milp(trv_ctx *ctx, const fleet_problem *P, double time_limit_s, fleet_plan *out,
                      fleet_milp_result *res)
{
    memset(res, 0, sizeof *res);
    res->bound_s = NAN;
    if (P->nt > FLEET_MILP_MAX_TASKS)
        return trv_error(ctx, TRV_ERR_USAGE, "the MILP takes at most %d tasks (%d given)", FLEET_MILP_MAX_TASKS,
                         P->nt);
    trv_status st = fleet_plan_init(ctx, out, P->nv, P->nt);
    if (st)
        return st;
    const size_t nx = (size_t)P->nv * (P->nt + 1) * (P->nt + 2);
    model m = {0};
    m.x = calloc(nx, sizeof *m.x);
    if (!m.x) {
        fleet_plan_clear(out);
        return trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
    }
    glp_term_out(GLP_OFF);
    m.lp = glp_create_prob();
    glp_set_obj_dir(m.lp, GLP_MIN);
    double M = horizon(P);
    columns(&m, P, P->nv * M + 1);
    if (rows(&m, P, M))
        st = trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
    double t0 = trv_now_s();
    if (!st) {
        glp_load_matrix(m.lp, m.nz, m.ia, m.ja, m.ar);
        glp_iocp parm;
        glp_init_iocp(&parm);
        parm.presolve = GLP_ON;
        parm.msg_lev = GLP_MSG_OFF;
        parm.tm_lim = (int)fmin(time_limit_s * 1000, 2e9);
        int rc = glp_intopt(m.lp, &parm), ms = glp_mip_status(m.lp);
        res->optimal = rc == 0 && ms == GLP_OPT;
        res->found = ms == GLP_OPT || ms == GLP_FEAS;
        if (rc && rc != GLP_ETMLIM && rc != GLP_EMIPGAP)
            st = trv_error(ctx, TRV_ERR_DATA, "GLPK could not solve the fleet MILP (glp_intopt code %d)", rc);
    }
    res->solve_s = trv_now_s() - t0;
    res->nvars = glp_get_num_cols(m.lp), res->nrows = glp_get_num_rows(m.lp);
    if (!st && res->found)
        extract(&m, P, out);
    if (!st) {
        snprintf(out->method, sizeof out->method, "milp (glpk %s)", glp_version());
        fleet_plan_eval(P, out);
        if (res->optimal)
            res->bound_s = out->total_s;
    }
    glp_delete_prob(m.lp);
    free(m.x), free(m.ia), free(m.ja), free(m.ar);
    if (st)
        fleet_plan_clear(out);
    return st;
}
