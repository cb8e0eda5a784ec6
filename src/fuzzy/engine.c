/* The Mamdani engine (docs/method.md §3): membership functions as pieces,
 * rule strengths, inference; the exact defuzzifiers are in centroid.c.
 *
 * Rule strengths. At a cell each input has one or two terms above 0, so
 * most rules are 0. A complete rule table (every rule names every input,
 * as the paper's 81) is indexed by the combination of terms: a cell walks
 * only the products of its inputs' non-zero terms (16 of 81 at most for
 * the paper's rules), carrying the running AND. Any other rule base is
 * split into ANDs over the first and second half of the inputs (factors)
 * and a table of the factor pairs that rules join; a cell visits only the
 * pairs of non-zero factors. Both give exactly the rule-by-rule result
 * (tests/test_fuzzy.c checks them against it). */
#include "fuzzy_priv.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- membership functions --------------------------------------------------- */

static void set_piece(fz_piece *p, double x0, double x1, double u0, double u1, double k)
{
    p->x0 = x0;
    p->x1 = x1;
    p->k = k;
    if (u0 == u1) {
        p->kind = FZ_CONST;
        p->c = pow(u0, k);
        return;
    }
    p->kind = k == 1 ? FZ_LINEAR : k == 2 ? FZ_SQUARE : FZ_POWER;
    p->a0 = u0;
    p->b = (u1 - u0) / (x1 - x0);
}

void fz__term_compile(fz_term *t)
{
    const double *q = t->param;
    int n = 0;
    switch (t->shape) {
    case FZ_POINTS:
        t->left = q[1];
        t->right = q[t->nparam - 1];
        for (int i = 0; i + 2 < t->nparam; i += 2)
            set_piece(&t->pc[n++], q[i], q[i + 2], q[i + 1], q[i + 3], 1);
        break;
    case FZ_TRIANGLE:
        t->left = t->right = 0;
        if (q[1] > q[0])
            set_piece(&t->pc[n++], q[0], q[1], 0, 1, 1);
        if (q[2] > q[1])
            set_piece(&t->pc[n++], q[1], q[2], 1, 0, 1);
        break;
    case FZ_TRAPEZOID:
        t->left = t->right = 0;
        if (q[1] > q[0])
            set_piece(&t->pc[n++], q[0], q[1], 0, 1, 1);
        if (q[2] > q[1])
            set_piece(&t->pc[n++], q[1], q[2], 1, 1, 1);
        if (q[3] > q[2])
            set_piece(&t->pc[n++], q[2], q[3], 1, 0, 1);
        break;
    case FZ_RAMP:
        if (q[0] < q[1]) {
            t->left = 0, t->right = 1;
            set_piece(&t->pc[n++], q[0], q[1], 0, 1, 1);
        } else {
            t->left = 1, t->right = 0;
            set_piece(&t->pc[n++], q[1], q[0], 1, 0, 1);
        }
        break;
    case FZ_ZPOWER:
        t->left = 1, t->right = 0;
        set_piece(&t->pc[n++], q[0], q[1], 1, 0, q[2]);
        break;
    case FZ_SPOWER:
        t->left = 0, t->right = 1;
        set_piece(&t->pc[n++], q[0], q[1], 0, 1, q[2]);
        break;
    }
    t->npieces = n;
}

/* ---- accessors ---------------------------------------------------------------- */

void fz_engine_free(fz_engine *e)
{
    if (!e)
        return;
    free(e->rule);
    free(e->fac[0]);
    free(e->fac[1]);
    free(e->pair);
    free(e->grid);
    if (e->subset) {
        int T = e->var[e->ninputs].nterms;
        for (int m = 0; m < (1 << T); m++)
            free(e->subset[m].p);
        free(e->subset);
    }
    free(e);
}

const char *fz_engine_path(const fz_engine *e) { return e->path; }

int fz_ninputs(const fz_engine *e) { return e->ninputs; }

static int var_ok(const fz_engine *e, int var) { return var >= 0 && var <= e->ninputs; }

const char *fz_var_name(const fz_engine *e, int var) { return var_ok(e, var) ? e->var[var].name : NULL; }

int fz_var_index(const fz_engine *e, const char *name)
{
    for (int i = 0; i <= e->ninputs; i++)
        if (!strcmp(e->var[i].name, name))
            return i;
    return -1;
}

void fz_var_range(const fz_engine *e, int var, double *lo, double *hi)
{
    *lo = var_ok(e, var) ? e->var[var].lo : NAN;
    *hi = var_ok(e, var) ? e->var[var].hi : NAN;
}

int fz_nterms(const fz_engine *e, int var) { return var_ok(e, var) ? e->var[var].nterms : 0; }

const char *fz_term_name(const fz_engine *e, int var, int term)
{
    return var_ok(e, var) && term >= 0 && term < e->var[var].nterms ? e->var[var].term[term].name : NULL;
}

int fz_term_index(const fz_engine *e, int var, const char *name)
{
    if (!var_ok(e, var))
        return -1;
    for (int t = 0; t < e->var[var].nterms; t++)
        if (!strcmp(e->var[var].term[t].name, name))
            return t;
    return -1;
}

double fz_membership(const fz_engine *e, int var, int term, double x)
{
    if (!var_ok(e, var) || term < 0 || term >= e->var[var].nterms)
        return NAN;
    return term_mu(&e->var[var].term[term], x);
}

int fz_term_class(const fz_engine *e, int term)
{
    return term >= 0 && term < e->var[e->ninputs].nterms ? e->cls[term] : 0;
}

int fz_nrules(const fz_engine *e) { return e->nrules; }

void fz_rule(const fz_engine *e, int r, int *number, int *ant, int *consequent)
{
    const fz_ruledef *f = &e->rule[r];
    if (number)
        *number = f->number;
    for (int i = 0; ant && i < e->ninputs; i++)
        ant[i] = f->ant[i];
    if (consequent)
        *consequent = f->out;
}

fz_defuzz fz_defuzzifier(const fz_engine *e) { return e->method; }
void fz_set_defuzzifier(fz_engine *e, fz_defuzz d) { e->method = d; }
double fz_default_value(const fz_engine *e) { return e->defval; }

const char *fz_defuzz_name(fz_defuzz d)
{
    return d == FZ_COG ? "centroid" : d == FZ_MOM ? "mom" : d == FZ_SOM ? "som" : "?";
}


int fz_winner(const fz_engine *e, const double *s)
{
    const int T = e->var[e->ninputs].nterms;
    int w = e->by_class[0];
    for (int c = 1; c < T; c++) /* riskier classes first: a tie keeps the riskier */
        if (s[e->by_class[c]] > s[w])
            w = e->by_class[c];
    return w;
}

/* ---- compiling the engine --------------------------------------------------------- */

static int factor_index(fz_factor *f, int *n, const fz_factor *key)
{
    for (int i = 0; i < *n; i++)
        if (f[i].n == key->n && !memcmp(f[i].var, key->var, (size_t)key->n) &&
            !memcmp(f[i].term, key->term, (size_t)key->n))
            return i;
    f[*n] = *key;
    return (*n)++;
}

/* Any other rule base: the AND over the first half of the inputs and over the
 * second (factors), and a table of the pairs of factors that rules
 * join (at most FZ_MAX_RULES^2 bytes): a cell visits only the pairs
 * of non-zero factors (each input has one or two terms above 0). */
static trv_status compile_factors(trv_ctx *ctx, fz_engine *e)
{
    const int R = e->nrules;
    const int half = e->ninputs / 2;
    int *rf[2] = {calloc((size_t)R, sizeof(int)), calloc((size_t)R, sizeof(int))};
    e->fac[0] = calloc((size_t)R, sizeof *e->fac[0]);
    e->fac[1] = calloc((size_t)R, sizeof *e->fac[1]);
    if (!rf[0] || !rf[1] || !e->fac[0] || !e->fac[1]) {
        free(rf[0]);
        free(rf[1]);
        return trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
    }
    for (int r = 0; r < R; r++)
        for (int h = 0; h < 2; h++) {
            fz_factor key = {0};
            for (int i = h ? half : 0; i < (h ? e->ninputs : half); i++)
                if (e->rule[r].ant[i] >= 0) {
                    key.var[key.n] = (unsigned char)i;
                    key.term[key.n] = (unsigned char)e->rule[r].ant[i];
                    key.off[key.n] = (unsigned short)(i * FZ_MAX_TERMS + e->rule[r].ant[i]);
                    key.n++;
                }
            rf[h][r] = factor_index(e->fac[h], &e->nfac[h], &key);
        }
    if ((e->pair = calloc((size_t)e->nfac[0] * (size_t)e->nfac[1], 1)))
        for (int r = 0; r < R; r++)
            e->pair[(size_t)rf[0][r] * (size_t)e->nfac[1] + (size_t)rf[1][r]] |=
                (unsigned char)(1u << e->rule[r].out);
    free(rf[0]);
    free(rf[1]);
    if (!e->pair)
        return trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
    return TRV_OK;
}

trv_status fz__compile(trv_ctx *ctx, fz_engine *e)
{
    const int R = e->nrules;
    /* A complete table of rules (each names every input) is indexed by the
     * terms' combination: a cell then visits only its non-zero combinations. */
    size_t combos = 1;
    int complete = 1;
    for (int i = 0; i < e->ninputs && complete; i++) {
        e->stride[i] = (int)combos;
        combos *= (size_t)e->var[i].nterms;
        complete = combos <= ((size_t)1 << 20);
    }
    for (int r = 0; r < R && complete; r++)
        for (int i = 0; i < e->ninputs; i++)
            complete &= e->rule[r].ant[i] >= 0;
    if (complete) {
        if (!(e->grid = calloc(combos, 1)))
            return trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
        for (int r = 0; r < R; r++) {
            size_t id = 0;
            for (int i = 0; i < e->ninputs; i++)
                id += (size_t)e->rule[r].ant[i] * (size_t)e->stride[i];
            e->grid[id] |= (unsigned char)(1u << e->rule[r].out);
        }
    } else {
        trv_status st = compile_factors(ctx, e);
        if (st)
            return st;
    }
    return fz__subsets_compile(ctx, e);
}

/* ---- inference ------------------------------------------------------------------- */

/* The complete-table path: depth-first over the inputs' non-zero terms,
 * the running AND carried down, the table read at the leaves. */
static inline void aggregate_grid(const fz_engine *e, const double *mu, double *s)
{
    const int n = e->ninputs, T = e->var[n].nterms;
    double val[FZ_MAX_INPUTS][FZ_MAX_TERMS], part[FZ_MAX_INPUTS + 1];
    int off[FZ_MAX_INPUTS][FZ_MAX_TERMS], nn[FZ_MAX_INPUTS], pos[FZ_MAX_INPUTS], idx[FZ_MAX_INPUTS + 1];
    for (int t = 0; t < T; t++)
        s[t] = 0;
    for (int i = 0; i < n; i++) {
        int k = 0;
        for (int t = 0; t < e->var[i].nterms; t++) {
            double v = mu[i * FZ_MAX_TERMS + t];
            if (v > 0) {
                val[i][k] = v;
                off[i][k++] = t * e->stride[i];
            }
        }
        if (k == 0)
            return; /* an input in no term: no rule fires */
        nn[i] = k;
    }
    int d = 0;
    pos[0] = 0;
    part[0] = 1;
    idx[0] = 0;
    for (;;) {
        if (pos[d] == nn[d]) {
            if (d == 0)
                break;
            d--;
            continue;
        }
        double v = val[d][pos[d]], p = part[d];
        v = e->and_prod ? p * v : (v < p ? v : p);
        int id = idx[d] + off[d][pos[d]];
        pos[d]++;
        if (d + 1 < n) {
            d++;
            part[d] = v;
            idx[d] = id;
            pos[d] = 0;
            continue;
        }
        for (unsigned m = e->grid[id]; m; m &= m - 1) {
            int t = __builtin_ctz(m);
            s[t] = v > s[t] ? v : s[t];
        }
    }
}

static inline void aggregate(const fz_engine *e, const double *mu, double *s)
{
    if (e->grid) {
        aggregate_grid(e, mu, s);
        return;
    }
    double fv[2][FZ_MAX_RULES];
    int nz[2][FZ_MAX_RULES], nnz[2] = {0, 0};
    for (int h = 0; h < 2; h++)
        for (int f = 0; f < e->nfac[h]; f++) {
            const fz_factor *F = &e->fac[h][f];
            double v = 1;
            if (e->and_prod)
                for (int j = 0; j < F->n; j++)
                    v *= mu[F->off[j]];
            else
                for (int j = 0; j < F->n; j++) {
                    double m = mu[F->off[j]];
                    v = m < v ? m : v;
                }
            fv[h][f] = v;
            if (v > 0)
                nz[h][nnz[h]++] = f;
        }
    const int T = e->var[e->ninputs].nterms, n1 = e->nfac[1];
    for (int t = 0; t < T; t++)
        s[t] = 0;
    for (int i = 0; i < nnz[0]; i++) { /* only the pairs of factors above 0 */
        const int a = nz[0][i];
        const double pa = fv[0][a];
        const unsigned char *row = e->pair + (size_t)a * n1;
        for (int j = 0; j < nnz[1]; j++) {
            unsigned m = row[nz[1][j]];
            if (!m)
                continue;
            double qb = fv[1][nz[1][j]];
            double v = e->and_prod ? pa * qb : (pa < qb ? pa : qb);
            for (; m; m &= m - 1) {
                int t = __builtin_ctz(m);
                s[t] = v > s[t] ? v : s[t];
            }
        }
    }
}

/* mu[var * FZ_MAX_TERMS + term] */
static inline void memberships(const fz_engine *e, const double *in, double *mu)
{
    for (int i = 0; i < e->ninputs; i++) {
        const fz_var *v = &e->var[i];
        for (int t = 0; t < v->nterms; t++)
            mu[i * FZ_MAX_TERMS + t] = term_mu(&v->term[t], in[i]);
    }
}

void fz_strengths(const fz_engine *e, const double *in, double *strength)
{
    double mu[FZ_MAX_INPUTS * FZ_MAX_TERMS];
    memberships(e, in, mu);
    aggregate(e, mu, strength);
}

static inline double to_cost(const fz_engine *e, double crisp)
{
    const fz_var *o = &e->var[e->ninputs];
    return o->lo == 0 && o->hi == 1 ? clamp01(1 - crisp) : clamp01((o->hi - crisp) / (o->hi - o->lo));
}

void fz_eval(const fz_engine *e, const double *in, fz_result *res)
{
    memset(res, 0, sizeof *res);
    fz_strengths(e, in, res->strength);
    res->crisp = fz_defuzzify(e, res->strength, e->method);
    res->cost = to_cost(e, res->crisp);
    res->term = fz_winner(e, res->strength);
    res->cls = e->cls[res->term];
}

void fz_eval_row(const fz_engine *e, int n, const float *const *in, const unsigned char *valid, float *cost,
                 unsigned char *cls)
{
    double mu[FZ_MAX_INPUTS * FZ_MAX_TERMS], s[FZ_MAX_OUT_TERMS], x[FZ_MAX_INPUTS];
    for (int i = 0; i < FZ_MAX_INPUTS; i++)
        x[i] = NAN; /* no last cell: NaN equals nothing */
    for (int c = 0; c < n; c++) {
        if (valid && !valid[c]) {
            if (cost)
                cost[c] = 1;
            if (cls)
                cls[c] = 0;
            continue;
        }
        /* neighbouring cells often share an input (CI is constant over a soil
         * patch): its memberships are kept from the last cell */
        for (int i = 0; i < e->ninputs; i++) {
            double v = in[i][c];
            if (v == x[i])
                continue;
            x[i] = v;
            const fz_var *var = &e->var[i];
            for (int t = 0; t < var->nterms; t++)
                mu[i * FZ_MAX_TERMS + t] = term_mu(&var->term[t], v);
        }
        aggregate(e, mu, s);
        if (cost)
            cost[c] = (float)to_cost(e, fz_defuzzify(e, s, e->method));
        if (cls)
            cls[c] = (unsigned char)e->cls[fz_winner(e, s)];
    }
}
