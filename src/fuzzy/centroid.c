/* The exact centroid (docs/method.md §3.6) and the other defuzzifiers of the
 * Mamdani engine (engine.c), from the pieces of nu_A compiled here.
 *
 * With the aggregated set mu(y) = max_t min(s_t, mu_t(y)) and the
 * strengths sorted s_(1) >= ... >= s_(T) >= s_(T+1) = 0, the layer-cake
 * identity gives
 *   ∫ mu dy   = Σ_j ∫_{s_(j+1)}^{s_(j)} |{y : nu_j(y) > l}| dl,
 *   ∫ y mu dy = Σ_j ∫_{s_(j+1)}^{s_(j)} ∫_{nu_j > l} y dy dl,
 * where nu_j = max of the j strongest terms' memberships (for l between
 * s_(j+1) and s_(j), exactly those terms are clipped above l). nu_A for
 * every subset A of output terms is precomputed as pieces u^k, u linear in
 * y (crossings between terms found exactly or, between powers of different
 * k, by bisection where the difference is provably monotone), so the inner
 * integrals have closed forms in l: on a rising piece {nu > l} = [y0 + g(l),
 * y1], on a falling one [y0, y0 + g(l)], g(l) = (l^(1/k) - a0) / b.
 * Per evaluation: sort T strengths, then at most T * (pieces) closed-form
 * terms, each one root (identity, sqrt, or pow for other k). */
#include "fuzzy_priv.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- compiling: functions on an interval, crossings, subsets -------------------- */

/* What a term is on an interval free of its breakpoints: c, or (A + B y)^k. */
typedef struct fn {
    int is_const;
    double c, A, B, k;
    const fz_piece *piece; /* NULL for the constants beyond the ends */
} fn;

static fn term_fn_at(const fz_term *t, double y)
{
    fn f = {1, 0, 0, 0, 1, NULL};
    const fz_piece *p = t->pc;
    int last = t->npieces - 1;
    if (y < p[0].x0) {
        f.c = t->left;
        return f;
    }
    if (y > p[last].x1) {
        f.c = t->right;
        return f;
    }
    while (y > p->x1)
        p++;
    f.piece = p;
    if (p->kind == FZ_CONST) {
        f.c = p->c;
        return f;
    }
    f.is_const = 0;
    f.A = p->a0 - p->b * p->x0;
    f.B = p->b;
    f.k = p->k;
    return f;
}

static double fn_value(const fn *f, double y)
{
    if (f->is_const)
        return f->c;
    double u = f->A + f->B * y;
    u = u > 0 ? u : 0;
    return f->k == 1 ? u : f->k == 2 ? u * u : pow(u, f->k);
}

typedef struct dlist {
    double *v;
    int n, cap;
} dlist;

static int dlist_add(dlist *d, double v)
{
    if (d->n == d->cap) {
        int cap = d->cap ? 2 * d->cap : 64;
        double *n = realloc(d->v, (size_t)cap * sizeof *n);
        if (!n)
            return -1;
        d->v = n;
        d->cap = cap;
    }
    d->v[d->n++] = v;
    return 0;
}

static void dlist_sort_unique(dlist *d)
{
    qsort(d->v, (size_t)d->n, sizeof *d->v, trv_cmp_double);
    int m = 0;
    for (int i = 0; i < d->n; i++)
        if (m == 0 || d->v[i] != d->v[m - 1])
            d->v[m++] = d->v[i];
    d->n = m;
}

/* A root of f1 - f2 in (l, r), where the difference changes sign at most
 * once: by bisection to adjacent doubles. */
static int bisect(const fn *f1, const fn *f2, double l, double r, double *root)
{
    double dl = fn_value(f1, l) - fn_value(f2, l), dr = fn_value(f1, r) - fn_value(f2, r);
    if (dl == 0 || dr == 0 || (dl < 0) == (dr < 0))
        return 0;
    for (int i = 0; i < 200; i++) {
        double m = 0.5 * (l + r);
        if (m <= l || m >= r)
            break;
        double dm = fn_value(f1, m) - fn_value(f2, m);
        if (dm == 0) {
            l = r = m;
            break;
        }
        if ((dm < 0) == (dl < 0))
            l = m, dl = dm;
        else
            r = m;
    }
    *root = 0.5 * (l + r);
    return 1;
}

/* Every y in (p, q) where f1 and f2 cross, appended to out. */
static int crossings(const fn *f1, const fn *f2, double p, double q, dlist *out)
{
    if (f1->is_const && f2->is_const)
        return 0;
    double y[2];
    int n = 0;
    if (f1->is_const || f2->is_const) {
        const fn *f = f1->is_const ? f2 : f1;
        double c = f1->is_const ? f1->c : f2->c;
        if (c >= 0)
            y[n++] = (pow(c, 1 / f->k) - f->A) / f->B; /* u^k = c */
    } else if (f1->k == f2->k) {
        if (f1->B != f2->B)
            y[n++] = (f2->A - f1->A) / (f1->B - f2->B); /* u1 = u2 */
    } else {
        /* g = k1 ln u1 - k2 ln u2 has g' = 0 at most once (its numerator is
         * linear in y): split there, then each side has at most one root */
        double den = f1->B * f2->B * (f1->k - f2->k);
        double ys = den != 0 ? (f2->k * f2->B * f1->A - f1->k * f1->B * f2->A) / den : NAN;
        double cuts[3] = {p, q, q};
        int nc = 2;
        if (ys > p && ys < q) {
            cuts[1] = ys;
            cuts[2] = q;
            nc = 3;
            if (dlist_add(out, ys))
                return -1;
        }
        for (int i = 0; i + 1 < nc; i++)
            if (bisect(f1, f2, cuts[i], cuts[i + 1], &y[n]))
                n++;
    }
    for (int i = 0; i < n; i++)
        if (y[i] > p && y[i] < q && dlist_add(out, y[i]))
            return -1;
    return 0;
}

static int same_fn(const fn *a, const fn *b)
{
    return a->is_const == b->is_const && a->c == b->c && a->A == b->A && a->B == b->B && a->k == b->k;
}

/* Where nu_A may change its function: the terms' breakpoints inside the
 * RANGE, its ends, and the crossings of every two terms between them,
 * sorted, into *all. Nonzero when out of memory. */
static int subset_breaks(const fz_var *o, unsigned mask, dlist *all)
{
    const int T = o->nterms;
    dlist br = {0};
    int bad = 0;
    bad |= dlist_add(&br, o->lo) | dlist_add(&br, o->hi);
    for (int t = 0; t < T; t++) {
        if (!(mask & (1u << t)))
            continue;
        const fz_term *tm = &o->term[t];
        for (int i = 0; i < tm->npieces; i++) {
            if (tm->pc[i].x0 > o->lo && tm->pc[i].x0 < o->hi)
                bad |= dlist_add(&br, tm->pc[i].x0);
            if (tm->pc[i].x1 > o->lo && tm->pc[i].x1 < o->hi)
                bad |= dlist_add(&br, tm->pc[i].x1);
        }
    }
    if (bad)
        goto nomem;
    dlist_sort_unique(&br);
    for (int i = 0; i < br.n; i++)
        if (dlist_add(all, br.v[i]))
            goto nomem;
    for (int i = 0; i + 1 < br.n; i++) {
        double p = br.v[i], q = br.v[i + 1], m = 0.5 * (p + q);
        for (int t = 0; t < T; t++)
            for (int u = t + 1; u < T; u++) {
                if (!(mask & (1u << t)) || !(mask & (1u << u)))
                    continue;
                fn f1 = term_fn_at(&o->term[t], m), f2 = term_fn_at(&o->term[u], m);
                if (crossings(&f1, &f2, p, q, all))
                    goto nomem;
            }
    }
    free(br.v);
    dlist_sort_unique(all);
    return 0;
nomem:
    free(br.v);
    return 1;
}

/* A piece of nu_A on [p, q] where it is f, valued vp at p and vq at q. */
static void set_lpiece(fz_lpiece *L, const fn *f, double p, double q, double vp, double vq)
{
    memset(L, 0, sizeof *L);
    L->y0 = p;
    L->y1 = q;
    if (f->is_const || vp == vq) {
        L->kind = FZ_CONST;
        L->c = f->is_const ? f->c : vp;
    } else {
        L->kind = f->k == 1 ? FZ_LINEAR : f->k == 2 ? FZ_SQUARE : FZ_POWER;
        L->a0 = f->A + f->B * p;
        L->a0 = L->a0 > 0 ? L->a0 : 0;
        L->b = f->B;
        L->k = f->k;
        L->r = 1 / f->k;
        L->inv_b = 1 / L->b;
        L->inv_b2 = 1 / (L->b * L->b);
        L->inv_r1 = 1 / (L->r + 1);
        L->inv_2r1 = 1 / (2 * L->r + 1);
        L->rising = vq > vp;
        L->vlo = L->rising ? vp : vq;
        L->vhi = L->rising ? vq : vp;
    }
}

/* nu_A = max over the output terms in mask, as pieces over the RANGE. */
static trv_status build_subset(trv_ctx *ctx, const fz_engine *e, unsigned mask, fz_subset *S)
{
    const fz_var *o = &e->var[e->ninputs];
    const int T = o->nterms;
    dlist all = {0};
    fz_lpiece *pc = NULL;
    int npc = 0, cap = 0, last_term = -1;
    fn last_fn = {0};
    if (subset_breaks(o, mask, &all))
        goto nomem;
    for (int i = 0; i + 1 < all.n; i++) {
        double p = all.v[i], q = all.v[i + 1], m = 0.5 * (p + q);
        if (!(q > p))
            continue;
        int w = -1;
        double best = -1;
        for (int t = 0; t < T; t++) {
            if (!(mask & (1u << t)))
                continue;
            double v = term_mu(&o->term[t], m);
            if (v > best)
                best = v, w = t;
        }
        fn f = term_fn_at(&o->term[w], m);
        if (f.is_const && !(f.c > 0)) {
            last_term = -1;
            continue;
        }
        double vp = fn_value(&f, p), vq = fn_value(&f, q);
        if (w == last_term && same_fn(&f, &last_fn) && npc > 0 && pc[npc - 1].y1 == p) {
            fz_lpiece *L = &pc[npc - 1]; /* the same function goes on: extend */
            L->y1 = q;
            if (L->kind != FZ_CONST) {
                if (L->rising)
                    L->vhi = vq;
                else
                    L->vlo = vq;
            }
            continue;
        }
        if (npc == cap) {
            cap = cap ? 2 * cap : 16;
            fz_lpiece *n = realloc(pc, (size_t)cap * sizeof *n);
            if (!n)
                goto nomem;
            pc = n;
        }
        set_lpiece(&pc[npc++], &f, p, q, vp, vq);
        last_term = w;
        last_fn = f;
    }
    free(all.v);
    S->p = pc;
    S->n = npc;
    return TRV_OK;
nomem:
    free(all.v);
    free(pc);
    return trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
}

/* ∫ g and ∫ g^2 from 0 to l, g(l) = (l^r - a0) / b. */
static inline void antiderivatives(const fz_lpiece *P, double l, double *F1, double *F2)
{
    double lr = P->kind == FZ_LINEAR ? l : P->kind == FZ_SQUARE ? sqrt(l) : pow(l, P->r);
    double l1 = l * lr * P->inv_r1; /* ∫ l^r */
    *F1 = (l1 - P->a0 * l) * P->inv_b;
    *F2 = (l * lr * lr * P->inv_2r1 - 2 * P->a0 * l1 + P->a0 * P->a0 * l) * P->inv_b2;
}

/* Add ∫_{la}^{lb} |{nu > l}| dl and ∫_{la}^{lb} ∫_{nu > l} y dy dl. */
static inline void cake(const fz_subset *S, double la, double lb, double *area, double *moment)
{
    double A = 0, M = 0;
    for (int i = 0; i < S->n; i++) {
        const fz_lpiece *P = &S->p[i];
        double L = P->y1 - P->y0, mid = P->y0 + 0.5 * L;
        double full = (P->kind == FZ_CONST ? (lb < P->c ? lb : P->c) : (lb < P->vlo ? lb : P->vlo)) - la;
        if (full > 0) {
            A += L * full;
            M += L * full * mid;
        }
        if (P->kind == FZ_CONST)
            continue;
        double l0 = la > P->vlo ? la : P->vlo, l1 = lb < P->vhi ? lb : P->vhi;
        if (!(l1 > l0))
            continue;
        double F1a, F2a, F1b, F2b;
        antiderivatives(P, l0, &F1a, &F2a);
        antiderivatives(P, l1, &F1b, &F2b);
        double I1 = F1b - F1a, I2 = F2b - F2a, a, m;
        if (P->rising) { /* {nu > l} = [y0 + g, y1] */
            a = L * (l1 - l0) - I1;
            m = 0.5 * (L * L * (l1 - l0) - I2);
        } else { /* [y0, y0 + g] */
            a = I1;
            m = 0.5 * I2;
        }
        A += a;
        M += m + P->y0 * a;
    }
    *area += A;
    *moment += M;
}


static double centroid(const fz_engine *e, const double *s)
{
    const int T = e->var[e->ninputs].nterms;
    int ord[FZ_MAX_OUT_TERMS];
    double v[FZ_MAX_OUT_TERMS];
    for (int t = 0; t < T; t++) { /* insertion sort, strongest first */
        double x = clamp01(s[t]);
        int j = t;
        while (j > 0 && v[j - 1] < x) {
            v[j] = v[j - 1];
            ord[j] = ord[j - 1];
            j--;
        }
        v[j] = x;
        ord[j] = t;
    }
    double area = 0, moment = 0;
    unsigned mask = 0;
    for (int j = 0; j < T && v[j] > 0; j++) {
        mask |= 1u << ord[j];
        double la = j + 1 < T ? v[j + 1] : 0;
        if (v[j] > la)
            cake(&e->subset[mask], la, v[j], &area, &moment);
    }
    return area > 0 ? moment / area : e->defval;
}

/* MOM and SOM: the set where mu reaches its largest value h, from the
 * pieces of each term whose clipped height is h. */
static double maximum_of(const fz_engine *e, const double *s, fz_defuzz method)
{
    const int T = e->var[e->ninputs].nterms;
    double h = 0;
    for (int t = 0; t < T; t++) {
        double c = clamp01(s[t]) < e->sup[t] ? clamp01(s[t]) : e->sup[t];
        h = c > h ? c : h;
    }
    if (!(h > 0))
        return e->defval;
    double iv[FZ_MAX_OUT_TERMS * 4 * FZ_MAX_PIECES][2];
    int n = 0;
    for (int t = 0; t < T; t++) {
        double c = clamp01(s[t]) < e->sup[t] ? clamp01(s[t]) : e->sup[t];
        if (c < h)
            continue;
        const fz_subset *S = &e->subset[1u << t];
        for (int i = 0; i < S->n && n < (int)(sizeof iv / sizeof iv[0]); i++) {
            const fz_lpiece *P = &S->p[i];
            double L = P->y1 - P->y0;
            if (P->kind == FZ_CONST) {
                if (P->c >= h)
                    iv[n][0] = P->y0, iv[n][1] = P->y1, n++;
                continue;
            }
            if (P->vhi < h)
                continue;
            double lr = P->kind == FZ_LINEAR ? h : P->kind == FZ_SQUARE ? sqrt(h) : pow(h, P->r);
            double g = (lr - P->a0) / P->b;
            g = g > 0 ? (g < L ? g : L) : 0;
            if (P->vlo >= h)
                g = P->rising ? 0 : L;
            if (P->rising)
                iv[n][0] = P->y0 + g, iv[n][1] = P->y1;
            else
                iv[n][0] = P->y0, iv[n][1] = P->y0 + g;
            n++;
        }
    }
    if (n == 0)
        return e->defval;
    for (int i = 1; i < n; i++) { /* sort by start */
        double a = iv[i][0], b = iv[i][1];
        int j = i;
        while (j > 0 && iv[j - 1][0] > a) {
            iv[j][0] = iv[j - 1][0];
            iv[j][1] = iv[j - 1][1];
            j--;
        }
        iv[j][0] = a;
        iv[j][1] = b;
    }
    if (method == FZ_SOM)
        return iv[0][0];
    /* union, then the mean by measure (or of the points when it has none) */
    double len = 0, mom = 0, pts = 0;
    int npts = 0;
    double cl = iv[0][0], cr = iv[0][1];
    for (int i = 1; i <= n; i++) {
        if (i < n && iv[i][0] <= cr) {
            cr = iv[i][1] > cr ? iv[i][1] : cr;
            continue;
        }
        len += cr - cl;
        mom += (cr - cl) * 0.5 * (cl + cr);
        pts += 0.5 * (cl + cr);
        npts++;
        if (i < n)
            cl = iv[i][0], cr = iv[i][1];
    }
    double span = e->var[e->ninputs].hi - e->var[e->ninputs].lo;
    return len > 1e-12 * span ? mom / len : pts / npts;
}

double fz_defuzzify(const fz_engine *e, const double *strength, fz_defuzz method)
{
    return method == FZ_COG ? centroid(e, strength) : maximum_of(e, strength, method);
}

/* ---- compiling: nu_A for every subset, the classes ------------------------------- */

trv_status fz__subsets_compile(trv_ctx *ctx, fz_engine *e)
{
    const fz_var *o = &e->var[e->ninputs];
    const int T = o->nterms;
    /* nu_A for every non-empty subset of output terms */
    if (!(e->subset = calloc((size_t)1 << T, sizeof *e->subset)))
        return trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
    for (unsigned m = 1; m < (1u << T); m++) {
        trv_status st = build_subset(ctx, e, m, &e->subset[m]);
        if (st)
            return st;
    }
    /* classes: output terms ranked by their own centroid over the RANGE */
    double pos[FZ_MAX_OUT_TERMS];
    for (int t = 0; t < T; t++) {
        const fz_subset *S = &e->subset[1u << t];
        double area = 0, moment = 0;
        cake(S, 0, 1, &area, &moment);
        if (!(area > 0))
            return trv_error(ctx, TRV_ERR_FORMAT, "%s:%d: term '%s' of '%s' is 0 everywhere on its RANGE", e->path,
                             o->term[t].line, o->term[t].name, o->name);
        pos[t] = moment / area;
        e->sup[t] = 0;
        for (int i = 0; i < S->n; i++) {
            double v = S->p[i].kind == FZ_CONST ? S->p[i].c : S->p[i].vhi;
            e->sup[t] = v > e->sup[t] ? v : e->sup[t];
        }
    }
    for (int t = 0; t < T; t++) {
        int rank = 0;
        for (int u = 0; u < T; u++)
            rank += pos[u] < pos[t] || (pos[u] == pos[t] && u < t);
        e->cls[t] = rank + 1;
        e->by_class[rank] = t;
    }
    return TRV_OK;
}
