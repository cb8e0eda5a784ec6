/* fuzzy_priv.h — what the FCL reader (fcl.c), the engine (engine.c) and
 * the defuzzifiers (centroid.c) share: the engine's layout. Not installed;
 * other modules use fuzzy.h. */
#ifndef FUZZY_PRIV_H
#define FUZZY_PRIV_H

#include "fuzzy.h"

#include <math.h>

enum { FZ_NAME_MAX = 64, FZ_MAX_PIECES = FZ_MAX_POINTS + 2 };

typedef enum fz_shape { FZ_POINTS, FZ_TRIANGLE, FZ_TRAPEZOID, FZ_RAMP, FZ_ZPOWER, FZ_SPOWER } fz_shape;

/* How a piece is evaluated: constant c, or u^k with u = a0 + b (x - x0). */
typedef enum fz_kind { FZ_CONST, FZ_LINEAR, FZ_SQUARE, FZ_POWER } fz_kind;

typedef struct fz_piece {
    double x0, x1;    /* the piece's interval */
    fz_kind kind;
    double c;         /* FZ_CONST: the value */
    double a0, b, k;  /* otherwise: u(x) = a0 + b (x - x0) >= 0 on [x0, x1], value u^k (k = 1, 2 or any > 0) */
} fz_piece;

typedef struct fz_term {
    char name[FZ_NAME_MAX];
    int line;
    fz_shape shape;
    int nparam;
    double param[2 * FZ_MAX_POINTS];  /* as written: shape parameters, or x1 y1 x2 y2 ... */
    /* compiled: membership = left for x <= pc[0].x0, right for x >= pc[n-1].x1, else the piece holding x */
    int npieces;
    fz_piece pc[FZ_MAX_PIECES];
    double left, right;
} fz_term;

typedef struct fz_var {
    char name[FZ_NAME_MAX];
    int line;
    int has_range, has_block;
    double lo, hi;
    int nterms;
    fz_term term[FZ_MAX_TERMS];
} fz_var;

typedef struct fz_ruledef {
    int number, line;
    signed char ant[FZ_MAX_INPUTS]; /* term per input, -1 when absent */
    int out;                        /* output term */
} fz_ruledef;

/* One factor of the rule strengths: the AND of a few (input, term) pairs. */
typedef struct fz_factor {
    int n;
    unsigned char var[FZ_MAX_INPUTS], term[FZ_MAX_INPUTS];
    unsigned short off[FZ_MAX_INPUTS]; /* var * FZ_MAX_TERMS + term: into the memberships */
} fz_factor;

/* A piece of nu_A(y) = max over a subset A of output terms of mu_t(y), in
 * coordinates local to its start: value u^k, u = a0 + b (y - y0), or c. */
typedef struct fz_lpiece {
    double y0, y1;
    fz_kind kind;
    double c, a0, b, k, r; /* r = 1/k */
    double inv_b, inv_b2, inv_r1, inv_2r1; /* 1/b, 1/b^2, 1/(r+1), 1/(2r+1) */
    double vlo, vhi;       /* the piece's value range */
    int rising;            /* 1 if the value rises with y */
} fz_lpiece;

typedef struct fz_subset {
    int n;
    fz_lpiece *p;
} fz_subset;

struct fz_engine {
    char path[512];
    char name[FZ_NAME_MAX];
    int ninputs;
    fz_var var[FZ_MAX_INPUTS + 1];   /* inputs, then the output at [ninputs] */
    int and_prod;                    /* AND : PROD (else MIN) */
    fz_defuzz method;
    double defval;
    int nrules;
    fz_ruledef *rule;
    /* compiled */
    int cls[FZ_MAX_OUT_TERMS];       /* class (1..T) of each output term */
    int by_class[FZ_MAX_OUT_TERMS];  /* output term of class c + 1 */
    double sup[FZ_MAX_OUT_TERMS];    /* largest membership of each output term over the RANGE */
    /* rule strengths: either ... */
    unsigned char *grid;             /* when every rule names every input: [Π nterms], bit t set if the rule
                                        with that combination of terms concludes term t; else NULL and: */
    int stride[FZ_MAX_INPUTS];       /* mixed-radix index into grid */
    int nfac[2];
    fz_factor *fac[2];               /* factors: ANDs over the first and the second half of the inputs */
    unsigned char *pair;             /* [nfac[0] * nfac[1]]: bit t set if a rule joins the two factors into t */
    fz_subset *subset;               /* [1 << T]: pieces of nu_A for every non-empty A */
};

/* engine.c: compile the parsed engine (term pieces, factors, subsets).
 * Errors name e->path. */
trv_status fz__compile(trv_ctx *ctx, fz_engine *e);
/* centroid.c: the pieces of nu_A for every non-empty subset of output
 * terms, each term's largest membership, and the classes (terms ranked by
 * their own centroid over the RANGE). Errors name e->path. */
trv_status fz__subsets_compile(trv_ctx *ctx, fz_engine *e);
/* engine.c: compile one term's pieces from its shape and parameters. */
void fz__term_compile(fz_term *t);

static inline double clamp01(double v) { return v > 0 ? (v < 1 ? v : 1) : 0; }

/* A compiled piece's value at x (engine.c and centroid.c). */
static inline double piece_value(const fz_piece *p, double x)
{
    if (p->kind == FZ_CONST)
        return p->c;
    double u = p->a0 + p->b * (x - p->x0);
    u = u > 0 ? u : 0;
    return p->kind == FZ_LINEAR ? u : p->kind == FZ_SQUARE ? u * u : pow(u, p->k);
}

/* Membership of x: left of the first piece, right of the last, else the
 * first piece whose interval holds x. NaN belongs to no term. */
static inline double term_mu(const fz_term *t, double x)
{
    const fz_piece *p = t->pc;
    if (x < p[0].x0)
        return t->left;
    int last = t->npieces - 1;
    if (x > p[last].x1)
        return t->right;
    if (x != x)
        return 0;
    while (x > p->x1)
        p++;
    return piece_value(p, x);
}

#endif
