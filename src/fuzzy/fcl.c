/* The FCL reader: the IEC 61131-7 subset listed in fuzzy.h, by recursive
 * descent over a small tokenizer. Names are resolved after the whole file
 * is read, so blocks may come in any order. Every error names file:line
 * and the token found. */
#include "fuzzy_priv.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

typedef enum tkind {
    T_EOF, T_IDENT, T_NUM, T_ASSIGN /* := */, T_COLON, T_SEMI, T_LPAR, T_RPAR, T_COMMA, T_DOTDOT /* .. */, T_OTHER
} tkind;

typedef struct tok {
    tkind kind;
    int line;
    const char *s; /* into the text */
    int len;
    double num;
} tok;

/* A rule as written, resolved once every variable and term is known. */
typedef struct rawcond {
    char var[FZ_NAME_MAX], term[FZ_NAME_MAX];
    int line;
} rawcond;

typedef struct rawrule {
    int number, line, ncond;
    rawcond cond[FZ_MAX_INPUTS + 1];
    rawcond then;
} rawrule;

typedef struct parser {
    trv_ctx *ctx;
    const char *name;   /* the file, for messages */
    const char *p;      /* next character */
    int line;
    tok cur;            /* current token */
    fz_engine *e;
    int noutputs, nblocks, resolved;
    int last_line;      /* line of the last token read */
    int fb_line;        /* line of FUNCTION_BLOCK */
    rawrule *rules;
    int nrules, cap;
} parser;

/* ---- messages ------------------------------------------------------------ */

/* The token as it reads in a message: 'text', or "end of file". */
static const char *tok_text(const tok *t, char *buf, size_t n)
{
    if (t->kind == T_EOF)
        return "end of file";
    int len = t->len < 40 ? t->len : 40;
    snprintf(buf, n, "'%.*s%s'", len, t->s, t->len > 40 ? "..." : "");
    return buf;
}

static trv_status fail_at(parser *P, int line, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static trv_status fail_at(parser *P, int line, const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return trv_error(P->ctx, TRV_ERR_FORMAT, "%s:%d: %s", P->name, line, msg);
}

/* "expected WHAT, found 'token'" at the current token. */
static trv_status expected(parser *P, const char *what)
{
    char buf[64];
    return fail_at(P, P->cur.line, "expected %s, found %s", what, tok_text(&P->cur, buf, sizeof buf));
}

/* ---- tokenizer ------------------------------------------------------------ */

static trv_status next(parser *P)
{
    const char *p = P->p;
    for (;;) {
        while (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n' || *p == '\f' || *p == '\v') {
            if (*p == '\n')
                P->line++;
            p++;
        }
        if (p[0] == '/' && p[1] == '/') {
            while (*p && *p != '\n')
                p++;
            continue;
        }
        if (p[0] == '(' && p[1] == '*') {
            int start = P->line;
            p += 2;
            while (*p && !(p[0] == '*' && p[1] == ')')) {
                if (*p == '\n')
                    P->line++;
                p++;
            }
            if (!*p)
                return fail_at(P, start, "comment '(*' is never closed");
            p += 2;
            continue;
        }
        break;
    }
    tok t = {T_EOF, P->line, p, 0, 0};
    if (!*p) {
        t.line = P->last_line; /* the end of file is on the last line read */
        P->cur = t;
        P->p = p;
        return TRV_OK;
    }
    const char *q = p;
    if (isalpha((unsigned char)*q) || *q == '_') {
        while (isalnum((unsigned char)*q) || *q == '_')
            q++;
        t.kind = T_IDENT;
    } else if (isdigit((unsigned char)*q) ||
               ((*q == '-' || *q == '+' || *q == '.') && q[1] != '.' &&
                (isdigit((unsigned char)q[1]) || (q[1] == '.' && isdigit((unsigned char)q[2]))))) {
        /* a number; a '.' followed by '.' is the range operator, not a decimal point */
        if (*q == '-' || *q == '+')
            q++;
        while (isdigit((unsigned char)*q))
            q++;
        if (*q == '.' && q[1] != '.') {
            q++;
            while (isdigit((unsigned char)*q))
                q++;
        }
        if ((*q == 'e' || *q == 'E') &&
            (isdigit((unsigned char)q[1]) || ((q[1] == '-' || q[1] == '+') && isdigit((unsigned char)q[2])))) {
            q += 2;
            while (isdigit((unsigned char)*q))
                q++;
        }
        char buf[64];
        int len = (int)(q - p);
        if (len >= (int)sizeof buf)
            return fail_at(P, P->line, "number '%.20s...' is too long", p);
        memcpy(buf, p, (size_t)len);
        buf[len] = '\0';
        errno = 0;
        char *end;
        t.num = strtod(buf, &end);
        if (*end || errno || !isfinite(t.num))
            return fail_at(P, P->line, "'%s' is not a number", buf);
        t.kind = T_NUM;
    } else if (q[0] == ':' && q[1] == '=') {
        q += 2;
        t.kind = T_ASSIGN;
    } else if (q[0] == '.' && q[1] == '.') {
        q += 2;
        t.kind = T_DOTDOT;
    } else {
        t.kind = *q == ':' ? T_COLON : *q == ';' ? T_SEMI : *q == '(' ? T_LPAR : *q == ')' ? T_RPAR
                 : *q == ',' ? T_COMMA : T_OTHER;
        q++;
        if (t.kind == T_OTHER) /* a whole UTF-8 sequence, for the message */
            while ((*q & 0xC0) == 0x80)
                q++;
    }
    t.len = (int)(q - p);
    P->p = q;
    P->cur = t;
    P->last_line = t.line;
    return TRV_OK;
}

static int is_kw(const tok *t, const char *kw)
{
    return t->kind == T_IDENT && (size_t)t->len == strlen(kw) && strncasecmp(t->s, kw, (size_t)t->len) == 0;
}

/* Expect keyword kw (any case) and move past it. */
static trv_status want_kw(parser *P, const char *kw)
{
    if (!is_kw(&P->cur, kw)) {
        char what[64];
        snprintf(what, sizeof what, "'%s'", kw);
        return expected(P, what);
    }
    return next(P);
}

static trv_status want(parser *P, tkind k, const char *what)
{
    if (P->cur.kind != k)
        return expected(P, what);
    return next(P);
}

static const char *const RESERVED[] = {"IF", "IS", "AND", "OR", "NOT", "THEN", "WITH", "RULE", "TERM", "RANGE",
                                       "METHOD", "ACCU", "ACT", "DEFAULT", NULL};

/* An identifier naming a variable or term: copied into out. */
static trv_status want_name(parser *P, const char *what, char out[FZ_NAME_MAX], int *line)
{
    if (P->cur.kind != T_IDENT)
        return expected(P, what);
    for (int i = 0; RESERVED[i]; i++)
        if (is_kw(&P->cur, RESERVED[i]))
            return expected(P, what);
    if (P->cur.len >= FZ_NAME_MAX)
        return fail_at(P, P->cur.line, "name '%.40s...' is longer than %d characters", P->cur.s, FZ_NAME_MAX - 1);
    memcpy(out, P->cur.s, (size_t)P->cur.len);
    out[P->cur.len] = '\0';
    if (line)
        *line = P->cur.line;
    return next(P);
}

static trv_status want_num(parser *P, const char *what, double *v)
{
    if (P->cur.kind != T_NUM)
        return expected(P, what);
    *v = P->cur.num;
    return next(P);
}

/* ---- blocks ---------------------------------------------------------------- */

/* While reading, the output lives at var[FZ_MAX_INPUTS] (the inputs may
 * be declared after it); resolve() moves it to var[ninputs]. */
static fz_var *find_var(parser *P, const char *name)
{
    fz_engine *e = P->e;
    for (int i = 0; i < e->ninputs; i++)
        if (!strcmp(e->var[i].name, name))
            return &e->var[i];
    fz_var *out = P->resolved ? &e->var[e->ninputs] : P->noutputs ? &e->var[FZ_MAX_INPUTS] : NULL;
    return out && !strcmp(out->name, name) ? out : NULL;
}

/* VAR_INPUT / VAR_OUTPUT: name : REAL; ... END_VAR */
static trv_status var_block(parser *P, int output)
{
    const char *block = output ? "VAR_OUTPUT" : "VAR_INPUT";
    int open_line = P->cur.line;
    trv_status st = next(P);
    fz_engine *e = P->e;
    while (!st && !is_kw(&P->cur, "END_VAR")) {
        if (P->cur.kind == T_EOF)
            return fail_at(P, P->cur.line, "unexpected end of file in %s (opened on line %d): expected 'END_VAR'",
                           block, open_line);
        char name[FZ_NAME_MAX];
        int line;
        if ((st = want_name(P, "a variable name or 'END_VAR'", name, &line)))
            return st;
        if (find_var(P, name))
            return fail_at(P, line, "variable '%s' is declared twice", name);
        if (output && P->noutputs == 1)
            return fail_at(P, line, "'%s' would be a second output variable: only one is supported", name);
        if (!output && e->ninputs == FZ_MAX_INPUTS)
            return fail_at(P, line, "more than %d input variables", FZ_MAX_INPUTS);
        fz_var *v = &e->var[output ? FZ_MAX_INPUTS : e->ninputs];
        memset(v, 0, sizeof *v);
        snprintf(v->name, sizeof v->name, "%s", name);
        v->line = line;
        if (output)
            P->noutputs = 1;
        else
            e->ninputs++;
        if ((st = want(P, T_COLON, "':'")))
            return st;
        if (!is_kw(&P->cur, "REAL"))
            return expected(P, "the type 'REAL'");
        if ((st = next(P)) || (st = want(P, T_SEMI, "';'")))
            return st;
    }
    return st ? st : next(P);
}

static trv_status range_item(parser *P, fz_var *v)
{
    int line = P->cur.line;
    double lo = 0, hi = 0;
    trv_status st;
    if ((st = next(P)) || (st = want(P, T_ASSIGN, "':='")) || (st = want(P, T_LPAR, "'('")) ||
        (st = want_num(P, "a number", &lo)) || (st = want(P, T_DOTDOT, "'..'")) ||
        (st = want_num(P, "a number", &hi)) || (st = want(P, T_RPAR, "')'")) || (st = want(P, T_SEMI, "';'")))
        return st;
    if (v->has_range)
        return fail_at(P, line, "second RANGE for '%s'", v->name);
    if (lo > hi)
        return fail_at(P, line, "RANGE (%g .. %g) of '%s' is inverted", lo, hi, v->name);
    if (lo == hi)
        return fail_at(P, line, "RANGE (%g .. %g) of '%s' is empty", lo, hi, v->name);
    v->has_range = 1;
    v->lo = lo;
    v->hi = hi;
    return TRV_OK;
}

/* Numbers of a shape: blanks or commas between, optionally in (...). */
static trv_status shape_numbers(parser *P, const char *shape, int n, double *out)
{
    int paren = P->cur.kind == T_LPAR;
    trv_status st = paren ? next(P) : TRV_OK;
    for (int i = 0; i < n && !st; i++) {
        if (i > 0 && P->cur.kind == T_COMMA && (st = next(P)))
            return st;
        if (P->cur.kind != T_NUM) {
            char what[64];
            snprintf(what, sizeof what, "%s's %d numbers", shape, n);
            return expected(P, what);
        }
        out[i] = P->cur.num;
        st = next(P);
    }
    if (!st && paren)
        st = want(P, T_RPAR, "')'");
    return st;
}

static trv_status term_item(parser *P, fz_var *v, int output)
{
    trv_status st = next(P);
    char name[FZ_NAME_MAX];
    int line;
    if (st || (st = want_name(P, "a term name", name, &line)))
        return st;
    for (int i = 0; i < v->nterms; i++)
        if (!strcmp(v->term[i].name, name))
            return fail_at(P, line, "term '%s' of '%s' is defined twice", name, v->name);
    int max = output ? FZ_MAX_OUT_TERMS : FZ_MAX_TERMS;
    if (v->nterms == max)
        return fail_at(P, line, "'%s' has more than %d terms", v->name, max);
    fz_term *t = &v->term[v->nterms];
    memset(t, 0, sizeof *t);
    snprintf(t->name, sizeof t->name, "%s", name);
    t->line = line;
    if ((st = want(P, T_ASSIGN, "':='")))
        return st;
    if (P->cur.kind == T_LPAR) { /* points: (x, y) (x, y) ... */
        t->shape = FZ_POINTS;
        while (P->cur.kind == T_LPAR) {
            if (t->nparam == 2 * FZ_MAX_POINTS)
                return fail_at(P, P->cur.line, "term '%s' of '%s' has more than %d points", name, v->name,
                               FZ_MAX_POINTS);
            double *xy = &t->param[t->nparam];
            if ((st = next(P)) || (st = want_num(P, "a number (the point's x)", &xy[0])) ||
                (st = want(P, T_COMMA, "','")) || (st = want_num(P, "a number (the point's y)", &xy[1])) ||
                (st = want(P, T_RPAR, "')'")))
                return st;
            t->nparam += 2;
        }
    } else if (P->cur.kind == T_IDENT) {
        static const struct {
            const char *kw;
            fz_shape shape;
            int n;
        } shapes[] = {{"TRIANGLE", FZ_TRIANGLE, 3}, {"TRAPEZOID", FZ_TRAPEZOID, 4}, {"RAMP", FZ_RAMP, 2},
                      {"ZPOWER", FZ_ZPOWER, 3},     {"SPOWER", FZ_SPOWER, 3}};
        int k = -1;
        for (int i = 0; i < (int)(sizeof shapes / sizeof shapes[0]); i++)
            if (is_kw(&P->cur, shapes[i].kw))
                k = i;
        if (k < 0) {
            char buf[64];
            return fail_at(P, P->cur.line,
                           "unknown shape %s for term '%s' (points, TRIANGLE, TRAPEZOID, RAMP, ZPOWER, SPOWER)",
                           tok_text(&P->cur, buf, sizeof buf), name);
        }
        t->shape = shapes[k].shape;
        t->nparam = shapes[k].n;
        if ((st = next(P)) || (st = shape_numbers(P, shapes[k].kw, shapes[k].n, t->param)))
            return st;
    } else {
        return expected(P, "a shape: points '(x, y) ...', TRIANGLE, TRAPEZOID, RAMP, ZPOWER or SPOWER");
    }
    if ((st = want(P, T_SEMI, "';'")))
        return st;
    /* the shape's parameters */
    const double *q = t->param;
    const char *bad = NULL;
    switch (t->shape) {
    case FZ_POINTS:
        if (t->nparam < 4)
            bad = "a points list needs at least two points";
        for (int i = 0; !bad && i < t->nparam; i += 2) {
            if (!(q[i + 1] >= 0 && q[i + 1] <= 1))
                bad = "a point's membership must be in [0, 1]";
            else if (i > 0 && !(q[i] > q[i - 2]))
                bad = "the points' x must increase strictly";
        }
        break;
    case FZ_TRIANGLE:
        if (!(q[0] <= q[1] && q[1] <= q[2] && q[0] < q[2]))
            bad = "TRIANGLE a m c needs a <= m <= c and a < c";
        break;
    case FZ_TRAPEZOID:
        if (!(q[0] <= q[1] && q[1] <= q[2] && q[2] <= q[3] && q[0] < q[3]))
            bad = "TRAPEZOID a b c d needs a <= b <= c <= d and a < d";
        break;
    case FZ_RAMP:
        if (q[0] == q[1])
            bad = "RAMP s e needs s != e";
        break;
    case FZ_ZPOWER:
    case FZ_SPOWER:
        if (!(q[0] < q[1]))
            bad = t->shape == FZ_ZPOWER ? "ZPOWER a b k needs a < b" : "SPOWER a b k needs a < b";
        else if (!(q[2] > 0))
            bad = t->shape == FZ_ZPOWER ? "ZPOWER a b k needs k > 0" : "SPOWER a b k needs k > 0";
        break;
    }
    if (bad)
        return fail_at(P, line, "term '%s' of '%s': %s", name, v->name, bad);
    fz__term_compile(t);
    v->nterms++;
    return TRV_OK;
}

/* "KEY : VALUE ;" where VALUE is one of a '|'-separated list; *index gets
 * its position. */
static trv_status choice_item(parser *P, const char *key, const char *choices, int *index)
{
    trv_status st = next(P);
    if (st || (st = want(P, T_COLON, "':'")))
        return st;
    if (P->cur.kind == T_IDENT) {
        int i = 0;
        for (const char *c = choices; *c; i++) {
            const char *bar = strchr(c, '|');
            size_t n = bar ? (size_t)(bar - c) : strlen(c);
            if ((size_t)P->cur.len == n && !strncasecmp(P->cur.s, c, n)) {
                *index = i;
                if ((st = next(P)))
                    return st;
                return want(P, T_SEMI, "';'");
            }
            c += n + (bar ? 1 : 0);
        }
        char buf[64];
        return fail_at(P, P->cur.line, "unsupported %s %s (this reader knows %s)", key,
                       tok_text(&P->cur, buf, sizeof buf), choices);
    }
    char what[96];
    snprintf(what, sizeof what, "one of %s", choices);
    return expected(P, what);
}

/* FUZZIFY / DEFUZZIFY name ... END_(DE)FUZZIFY */
static trv_status fuzzify_block(parser *P, int output)
{
    const char *block = output ? "DEFUZZIFY" : "FUZZIFY", *end = output ? "END_DEFUZZIFY" : "END_FUZZIFY";
    int open_line = P->cur.line;
    char name[FZ_NAME_MAX];
    int line;
    trv_status st = next(P);
    if (st || (st = want_name(P, output ? "the output variable's name" : "an input variable's name", name, &line)))
        return st;
    fz_engine *e = P->e;
    fz_var *v = find_var(P, name);
    if (!v)
        return fail_at(P, line, "%s '%s': no such variable (declare it in %s)", block, name,
                       output ? "VAR_OUTPUT" : "VAR_INPUT");
    int is_output = v == &e->var[FZ_MAX_INPUTS];
    if (is_output != output)
        return fail_at(P, line, "%s '%s': '%s' is an %s variable", block, name, name, is_output ? "output" : "input");
    if (v->has_block)
        return fail_at(P, line, "second %s block for '%s'", block, name);
    v->has_block = 1;
    while (!is_kw(&P->cur, end)) {
        const tok *t = &P->cur;
        int unused;
        if (t->kind == T_EOF)
            return fail_at(P, t->line, "unexpected end of file in %s '%s' (opened on line %d): expected '%s'", block,
                           name, open_line, end);
        if (is_kw(t, "RANGE"))
            st = range_item(P, v);
        else if (is_kw(t, "TERM"))
            st = term_item(P, v, output);
        else if (output && is_kw(t, "METHOD")) {
            int m;
            if (!(st = choice_item(P, "METHOD", "COG|MOM|SOM|MM|LM", &m)))
                e->method = m == 0 ? FZ_COG : (m == 1 || m == 3) ? FZ_MOM : FZ_SOM;
        } else if (output && is_kw(t, "ACCU"))
            st = choice_item(P, "ACCU", "MAX", &unused);
        else if (output && is_kw(t, "DEFAULT")) {
            if (!(st = next(P)) && !(st = want(P, T_ASSIGN, "':='")) &&
                !(st = want_num(P, "a number (NC is not supported)", &e->defval)))
                st = want(P, T_SEMI, "';'");
        } else {
            char what[128];
            snprintf(what, sizeof what, "%s or '%s'",
                     output ? "RANGE, TERM, METHOD, ACCU, DEFAULT" : "RANGE, TERM", end);
            return expected(P, what);
        }
        if (st)
            return st;
    }
    return next(P);
}

static trv_status add_rule(parser *P, const rawrule *r)
{
    for (int i = 0; i < P->nrules; i++)
        if (P->rules[i].number == r->number)
            return fail_at(P, r->line, "duplicate rule number %d (first on line %d)", r->number, P->rules[i].line);
    if (P->nrules == FZ_MAX_RULES)
        return fail_at(P, r->line, "more than %d rules", FZ_MAX_RULES);
    if (P->nrules == P->cap) {
        int cap = P->cap ? 2 * P->cap : 128;
        rawrule *n = realloc(P->rules, (size_t)cap * sizeof *n);
        if (!n)
            return trv_error(P->ctx, TRV_ERR_NOMEM, "out of memory");
        P->rules = n;
        P->cap = cap;
    }
    P->rules[P->nrules++] = *r;
    return TRV_OK;
}

/* RULE n : IF v IS t { AND v IS t } THEN v IS t ; */
static trv_status rule_item(parser *P)
{
    rawrule r;
    memset(&r, 0, sizeof r);
    r.line = P->cur.line;
    trv_status st = next(P);
    if (st)
        return st;
    if (P->cur.kind != T_NUM || P->cur.num != floor(P->cur.num) || P->cur.num < 0 || P->cur.num > 1e9)
        return expected(P, "a rule number (a whole number)");
    r.number = (int)P->cur.num;
    r.line = P->cur.line;
    if ((st = next(P)) || (st = want(P, T_COLON, "':'")) || (st = want_kw(P, "IF")))
        return st;
    for (;;) {
        if (r.ncond == FZ_MAX_INPUTS + 1)
            return fail_at(P, P->cur.line, "rule %d has more than %d conditions", r.number, FZ_MAX_INPUTS);
        rawcond *c = &r.cond[r.ncond++];
        if (is_kw(&P->cur, "NOT") || P->cur.kind == T_LPAR) {
            char buf[64];
            return fail_at(P, P->cur.line,
                           "rule %d: %s is not supported (conditions are 'variable IS term' joined by AND)", r.number,
                           tok_text(&P->cur, buf, sizeof buf));
        }
        if ((st = want_name(P, "a variable name", c->var, &c->line)) || (st = want_kw(P, "IS")))
            return st;
        if (is_kw(&P->cur, "NOT"))
            return fail_at(P, P->cur.line, "rule %d: 'NOT' is not supported", r.number);
        if ((st = want_name(P, "a term name", c->term, NULL)))
            return st;
        if (is_kw(&P->cur, "AND")) {
            if ((st = next(P)))
                return st;
            continue;
        }
        if (is_kw(&P->cur, "OR"))
            return fail_at(P, P->cur.line, "rule %d: 'OR' is not supported (write one rule per alternative)", r.number);
        if (is_kw(&P->cur, "THEN"))
            break;
        return expected(P, "'AND' or 'THEN'");
    }
    if ((st = want_kw(P, "THEN")) || (st = want_name(P, "the output variable's name", r.then.var, &r.then.line)) ||
        (st = want_kw(P, "IS")) || (st = want_name(P, "a term name", r.then.term, NULL)))
        return st;
    if (is_kw(&P->cur, "WITH") || is_kw(&P->cur, "AND"))
        return fail_at(P, P->cur.line, "rule %d: one conclusion without weight is supported ('%.*s' follows it)",
                       r.number, P->cur.len, P->cur.s);
    if ((st = want(P, T_SEMI, "';'")))
        return st;
    return add_rule(P, &r);
}

static trv_status ruleblock(parser *P)
{
    int open_line = P->cur.line;
    char name[FZ_NAME_MAX];
    trv_status st = next(P);
    if (st)
        return st;
    if (P->nblocks++)
        return fail_at(P, open_line, "a second RULEBLOCK: only one is supported");
    if (P->cur.kind == T_IDENT && !is_kw(&P->cur, "RULE") && !is_kw(&P->cur, "AND") && !is_kw(&P->cur, "ACT") &&
        !is_kw(&P->cur, "ACCU") && !is_kw(&P->cur, "OR") && !is_kw(&P->cur, "END_RULEBLOCK") &&
        (st = want_name(P, "a rule block name", name, NULL)))
        return st;
    while (!is_kw(&P->cur, "END_RULEBLOCK")) {
        const tok *t = &P->cur;
        int m;
        if (t->kind == T_EOF)
            return fail_at(P, t->line,
                           "unexpected end of file in RULEBLOCK (opened on line %d): expected 'END_RULEBLOCK'",
                           open_line);
        if (is_kw(t, "AND")) {
            if (!(st = choice_item(P, "AND", "MIN|PROD", &m)))
                P->e->and_prod = m == 1;
        } else if (is_kw(t, "OR"))
            st = choice_item(P, "OR", "MAX", &m);
        else if (is_kw(t, "ACT"))
            st = choice_item(P, "ACT", "MIN", &m);
        else if (is_kw(t, "ACCU"))
            st = choice_item(P, "ACCU", "MAX", &m);
        else if (is_kw(t, "RULE"))
            st = rule_item(P);
        else
            return expected(P, "RULE, AND, OR, ACT, ACCU or 'END_RULEBLOCK'");
        if (st)
            return st;
    }
    return next(P);
}

/* ---- names, then the whole file ------------------------------------------ */

static trv_status resolve(parser *P)
{
    fz_engine *e = P->e;
    if (e->ninputs == 0)
        return fail_at(P, P->fb_line, "no input variables (VAR_INPUT)");
    if (!P->noutputs)
        return fail_at(P, P->fb_line, "no output variable (VAR_OUTPUT)");
    for (int i = 0; i <= e->ninputs; i++) {
        fz_var *v = &e->var[i < e->ninputs ? i : FZ_MAX_INPUTS];
        const char *block = i < e->ninputs ? "FUZZIFY" : "DEFUZZIFY";
        if (!v->has_block)
            return fail_at(P, v->line, "'%s' has no %s block", v->name, block);
        if (!v->has_range)
            return fail_at(P, v->line, "'%s' has no RANGE (give one in its %s block)", v->name, block);
        if (v->nterms == 0)
            return fail_at(P, v->line, "'%s' has no TERM", v->name);
    }
    if (P->nrules == 0)
        return fail_at(P, P->fb_line, "no rules (RULEBLOCK ... RULE n : IF ... THEN ...; END_RULEBLOCK)");
    if (e->ninputs < FZ_MAX_INPUTS) {
        e->var[e->ninputs] = e->var[FZ_MAX_INPUTS];
        memset(&e->var[FZ_MAX_INPUTS], 0, sizeof e->var[FZ_MAX_INPUTS]);
    }
    P->resolved = 1; /* the output is at var[ninputs] from here on */
    const fz_var *out = &e->var[e->ninputs];
    if (!(e->rule = calloc((size_t)P->nrules, sizeof *e->rule)))
        return trv_error(P->ctx, TRV_ERR_NOMEM, "out of memory");
    for (int k = 0; k < P->nrules; k++) {
        const rawrule *r = &P->rules[k];
        fz_ruledef *f = &e->rule[k];
        f->number = r->number;
        f->line = r->line;
        memset(f->ant, -1, sizeof f->ant);
        for (int c = 0; c < r->ncond; c++) {
            const rawcond *rc = &r->cond[c];
            fz_var *v = find_var(P, rc->var);
            if (!v)
                return fail_at(P, rc->line, "rule %d: unknown variable '%s'", r->number, rc->var);
            int vi = (int)(v - e->var);
            if (vi == e->ninputs)
                return fail_at(P, rc->line, "rule %d: '%s' is the output, not an input", r->number, rc->var);
            if (f->ant[vi] >= 0)
                return fail_at(P, rc->line, "rule %d: '%s' appears twice", r->number, rc->var);
            int ti = fz_term_index(e, vi, rc->term);
            if (ti < 0)
                return fail_at(P, rc->line, "rule %d: unknown term '%s' of '%s'", r->number, rc->term, rc->var);
            f->ant[vi] = (signed char)ti;
        }
        if (strcmp(r->then.var, out->name)) {
            if (!find_var(P, r->then.var))
                return fail_at(P, r->then.line, "rule %d: unknown variable '%s'", r->number, r->then.var);
            return fail_at(P, r->then.line, "rule %d: THEN names '%s', not the output '%s'", r->number, r->then.var,
                           out->name);
        }
        f->out = fz_term_index(e, e->ninputs, r->then.term);
        if (f->out < 0)
            return fail_at(P, r->then.line, "rule %d: unknown term '%s' of '%s'", r->number, r->then.term, out->name);
    }
    e->nrules = P->nrules;
    return TRV_OK;
}

static trv_status parse(parser *P)
{
    trv_status st = next(P);
    if (st)
        return st;
    if (!is_kw(&P->cur, "FUNCTION_BLOCK"))
        return expected(P, "'FUNCTION_BLOCK'");
    int fb_line = P->fb_line = P->cur.line;
    if ((st = next(P)))
        return st;
    if (P->cur.kind == T_IDENT && !is_kw(&P->cur, "VAR_INPUT") && !is_kw(&P->cur, "VAR_OUTPUT") &&
        !is_kw(&P->cur, "FUZZIFY") && !is_kw(&P->cur, "DEFUZZIFY") && !is_kw(&P->cur, "RULEBLOCK") &&
        !is_kw(&P->cur, "END_FUNCTION_BLOCK")) {
        if ((st = want_name(P, "the function block's name", P->e->name, NULL)))
            return st;
    }
    for (;;) {
        const tok *t = &P->cur;
        if (is_kw(t, "VAR_INPUT"))
            st = var_block(P, 0);
        else if (is_kw(t, "VAR_OUTPUT"))
            st = var_block(P, 1);
        else if (is_kw(t, "FUZZIFY"))
            st = fuzzify_block(P, 0);
        else if (is_kw(t, "DEFUZZIFY"))
            st = fuzzify_block(P, 1);
        else if (is_kw(t, "RULEBLOCK"))
            st = ruleblock(P);
        else if (is_kw(t, "END_FUNCTION_BLOCK")) {
            if ((st = next(P)))
                return st;
            if (P->cur.kind != T_EOF)
                return expected(P, "nothing after 'END_FUNCTION_BLOCK'");
            break;
        } else if (t->kind == T_EOF)
            return fail_at(P, t->line,
                           "unexpected end of file: expected 'END_FUNCTION_BLOCK' (FUNCTION_BLOCK on line %d)",
                           fb_line);
        else
            return expected(P, "VAR_INPUT, VAR_OUTPUT, FUZZIFY, DEFUZZIFY, RULEBLOCK or 'END_FUNCTION_BLOCK'");
        if (st)
            return st;
    }
    return resolve(P);
}

trv_status fz_engine_parse(trv_ctx *ctx, const char *name, const char *text, fz_engine **out)
{
    *out = NULL;
    fz_engine *e = calloc(1, sizeof *e);
    if (!e)
        return trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
    snprintf(e->path, sizeof e->path, "%s", name);
    e->method = FZ_COG;
    parser P = {.ctx = ctx, .name = name, .p = text, .line = 1, .e = e, .last_line = 1};
    trv_status st = parse(&P);
    free(P.rules);
    if (!st)
        st = fz__compile(ctx, e);
    if (st) {
        fz_engine_free(e);
        return st;
    }
    *out = e;
    return TRV_OK;
}

trv_status fz_engine_read(trv_ctx *ctx, const char *path, fz_engine **out)
{
    *out = NULL;
    size_t n = 0;
    char *text = trv_file_read(ctx, path, &n);
    trv_status st = text ? TRV_OK : TRV_ERR_IO;
    if (!st && n > ((size_t)64 << 20))
        st = trv_error(ctx, TRV_ERR_FORMAT, "'%s' is too large for a rules file", path);
    if (!st && memchr(text, '\0', n))
        st = trv_error(ctx, TRV_ERR_FORMAT, "'%s' is not a text file", path);
    if (!st)
        st = fz_engine_parse(ctx, path, text, out);
    free(text);
    return st;
}
