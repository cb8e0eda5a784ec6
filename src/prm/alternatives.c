/* Alternative routes by the via-node method (prm.h, docs/method.md §4.11):
 * Abraham, Delling, Goldberg & Werneck, "Alternative routes in road
 * networks" (SEA 2010; ACM JEA 18, 2013), on a directed graph. */
#include "prm.h"

#include "core/heap.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define ALT_REL 1e-9 /* relative tolerance of the objective comparisons */

void prm_digraph_clear(prm_digraph *g)
{
    free(g->start);
    free(g->to);
    free(g->w);
    free(g->len);
    memset(g, 0, sizeof *g);
}

void prm_alt_opts_init(prm_alt_opts *o)
{
    *o = (prm_alt_opts){1, 1.25, 0.5, 0.25};
}

trv_status prm_alt_opts_check(trv_ctx *ctx, const prm_alt_opts *o)
{
    if (o->k < 1 || o->k > PRM_ALT_MAX)
        return trv_error(ctx, TRV_ERR_USAGE, "--alternatives must be 1..%d", PRM_ALT_MAX);
    if (!isfinite(o->max_stretch) || !(o->max_stretch >= 1))
        return trv_error(ctx, TRV_ERR_USAGE, "--max-stretch must be a number >= 1");
    if (!(o->max_overlap >= 0 && o->max_overlap <= 1))
        return trv_error(ctx, TRV_ERR_USAGE, "--max-overlap must be in [0, 1]");
    if (!(o->alpha >= 0 && o->alpha <= 1))
        return trv_error(ctx, TRV_ERR_USAGE, "--local-opt must be in [0, 1]");
    return TRV_OK;
}

void prm_alt_set_clear(prm_alt_set *a)
{
    for (int k = 0; k < a->n; k++)
        free(a->r[k].node);
    memset(a, 0, sizeof *a);
}

/* ---- shortest-path trees ---- */

/* The reverse graph: an arc v -> u of the same weight and length for every
 * arc u -> v. */
static int transpose(const prm_digraph *g, prm_digraph *rv)
{
    int m = g->start[g->n];
    rv->n = g->n;
    rv->start = calloc((size_t)g->n + 1, sizeof *rv->start);
    rv->to = malloc(((size_t)m + 1) * sizeof *rv->to);
    rv->w = malloc(((size_t)m + 1) * sizeof *rv->w);
    rv->len = malloc(((size_t)m + 1) * sizeof *rv->len);
    if (!rv->start || !rv->to || !rv->w || !rv->len)
        return -1;
    for (int a = 0; a < m; a++)
        rv->start[g->to[a] + 1]++;
    for (int u = 0; u < g->n; u++)
        rv->start[u + 1] += rv->start[u];
    int *fill = malloc(((size_t)g->n + 1) * sizeof *fill);
    if (!fill)
        return -1;
    memcpy(fill, rv->start, ((size_t)g->n + 1) * sizeof *fill);
    for (int u = 0; u < g->n; u++)
        for (int a = g->start[u]; a < g->start[u + 1]; a++) {
            int q = fill[g->to[a]]++;
            rv->to[q] = u, rv->w[q] = g->w[a], rv->len[q] = g->len[a];
        }
    free(fill);
    return 0;
}

/* Dijkstra from src over g into dist and parent (parent[src] = -1, -1
 * where unreached), stopping at stop (-1: none) once it is settled or
 * when the smallest key exceeds bound; touched (n of room, may be NULL)
 * receives the nodes given a distance, *ntouched their count. dist must
 * be INFINITY and parent -1 everywhere touched on entry. */
static int dijkstra(const prm_digraph *g, int src, int stop, double bound, double *dist, int *parent, int *touched,
                    int *ntouched)
{
    trv_heap h = {0};
    int nt = 0, bad = 0;
    dist[src] = 0;
    if (touched)
        touched[nt++] = src;
    if (trv_heap_push(&h, src, 0, 0))
        return -1;
    while (h.n > 0 && !bad) {
        trv_heap_item it = trv_heap_pop(&h);
        int u = it.id;
        if (it.key > dist[u])
            continue; /* stale */
        if (u == stop || it.key > bound)
            break;
        for (int a = g->start[u]; a < g->start[u + 1]; a++) {
            int v = g->to[a];
            double d = dist[u] + g->w[a];
            if (!(d < dist[v]))
                continue;
            if (touched && isinf(dist[v]))
                touched[nt++] = v;
            dist[v] = d, parent[v] = u;
            bad = trv_heap_push(&h, v, d, 0);
        }
    }
    trv_heap_free(&h);
    if (ntouched)
        *ntouched = nt;
    return bad;
}

/* ---- routes ---- */

/* The lightest arc a -> b (the one a search relaxes along); -1 if none. */
static int arc_of(const prm_digraph *g, int a, int b)
{
    int best = -1;
    for (int q = g->start[a]; q < g->start[a + 1]; q++)
        if (g->to[q] == b && (best < 0 || g->w[q] < g->w[best]))
            best = q;
    return best;
}

/* P_v: the forward tree's path s -> v, then the backward tree's v -> t,
 * into node (room for g->n + 1); returns its node count. */
static int via_path(const int *pf, const int *pb, int v, int *node)
{
    int n = 0;
    for (int u = v; u >= 0; u = pf[u])
        node[n++] = u;
    for (int i = 0; i < n / 2; i++) {
        int x = node[i];
        node[i] = node[n - 1 - i], node[n - 1 - i] = x;
    }
    for (int u = pb[v]; u >= 0; u = pb[u])
        node[n++] = u;
    return n;
}

/* The edge key of nodes a, b: the same either way. */
static uint64_t edge_key(int a, int b)
{
    uint64_t lo = (uint32_t)(a < b ? a : b), hi = (uint32_t)(a < b ? b : a);
    return lo << 32 | hi;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

/* The sorted edge keys of a route (n - 1 of them, room given). */
static void route_keys(const int *node, int n, uint64_t *keys)
{
    for (int i = 0; i + 1 < n; i++)
        keys[i] = edge_key(node[i], node[i + 1]);
    qsort(keys, (size_t)(n > 1 ? n - 1 : 0), sizeof *keys, cmp_u64);
}

/* The length of the route's arcs whose edge is among keys (nk). */
static double shared_len(const prm_digraph *g, const int *node, int n, const uint64_t *keys, int nk)
{
    double s = 0;
    for (int i = 0; i + 1 < n; i++) {
        uint64_t k = edge_key(node[i], node[i + 1]);
        if (bsearch(&k, keys, (size_t)nk, sizeof k, cmp_u64))
            s += g->len[arc_of(g, node[i], node[i + 1])];
    }
    return s;
}

double prm_alt_share(const prm_digraph *g, const prm_alt_route *a, const prm_alt_route *b)
{
    uint64_t *keys = malloc(((size_t)b->n + 1) * sizeof *keys);
    if (!keys || !(a->length_m > 0)) {
        free(keys);
        return 0;
    }
    route_keys(b->node, b->n, keys);
    double s = shared_len(g, a->node, a->n, keys, b->n - 1) / a->length_m;
    free(keys);
    return s;
}

/* ---- the choice ---- */

typedef struct work {
    const prm_digraph *g;
    prm_digraph rv;              /* the reverse graph (the backward tree) */
    double *df, *db, *dt;        /* forward, backward, T-test distances */
    int *pf, *pb, *pt, *touched; /* their parents; the T-test's touched nodes */
    int *node, *mark, stamp;     /* the candidate's nodes; stamps for the simple test */
    double *cum;                 /* its objective from s at each node */
    uint64_t *keys[PRM_ALT_MAX]; /* the chosen routes' sorted edge keys */
} work;

static void work_free(work *w)
{
    prm_digraph_clear(&w->rv);
    free(w->df), free(w->db), free(w->dt);
    free(w->pf), free(w->pb), free(w->pt), free(w->touched);
    free(w->node), free(w->mark), free(w->cum);
    for (int k = 0; k < PRM_ALT_MAX; k++)
        free(w->keys[k]);
}

static int work_init(work *w, const prm_digraph *g)
{
    memset(w, 0, sizeof *w);
    w->g = g;
    size_t n = (size_t)g->n + 1;
    w->df = malloc(n * sizeof *w->df), w->db = malloc(n * sizeof *w->db), w->dt = malloc(n * sizeof *w->dt);
    w->pf = malloc(n * sizeof *w->pf), w->pb = malloc(n * sizeof *w->pb), w->pt = malloc(n * sizeof *w->pt);
    w->touched = malloc(n * sizeof *w->touched), w->node = malloc(2 * n * sizeof *w->node);
    w->mark = calloc(n, sizeof *w->mark), w->cum = malloc(2 * n * sizeof *w->cum);
    if (!w->df || !w->db || !w->dt || !w->pf || !w->pb || !w->pt || !w->touched || !w->node || !w->mark || !w->cum)
        return -1;
    for (int i = 0; i < g->n; i++) {
        w->df[i] = w->db[i] = w->dt[i] = INFINITY;
        w->pf[i] = w->pb[i] = w->pt[i] = -1;
    }
    return transpose(g, &w->rv);
}

/* The candidate in w->node (n nodes): cum, objective and length. */
static void measure(work *w, int n, double *obj, double *len)
{
    *obj = *len = 0;
    w->cum[0] = 0;
    for (int i = 0; i + 1 < n; i++) {
        int a = arc_of(w->g, w->node[i], w->node[i + 1]);
        *obj += w->g->w[a], *len += w->g->len[a];
        w->cum[i + 1] = *obj;
    }
}

/* The T-test of the candidate (n nodes, v at index i; T in objective
 * units, best = d(s, t)): 1 if it passes. -1 when out of memory. */
static int t_test(work *w, int n, int i, double T, double best)
{
    const double *c = w->cum;
    int j = i, l = i;
    while (j > 0 && c[i] - c[j] < T)
        j--;
    while (l < n - 1 && c[l] - c[i] < T)
        l++;
    double sub = c[l] - c[j], tol = ALT_REL * (best > 0 ? best : 1);
    if (j == l)
        return 1;
    int nt = 0, a = w->node[j], b = w->node[l];
    if (dijkstra(w->g, a, b, sub + tol, w->dt, w->pt, w->touched, &nt))
        return -1;
    int pass = !(w->dt[b] < sub - tol);
    for (int q = 0; q < nt; q++)
        w->dt[w->touched[q]] = INFINITY, w->pt[w->touched[q]] = -1;
    return pass;
}

enum { ALT_OK = 0, ALT_NOT_SIMPLE, ALT_SHARED, ALT_NOT_LOCAL, ALT_NOMEM };

/* Candidate v against the tests, in prm.h's order; *n its node count. */
static int consider(work *w, const prm_alt_set *out, const prm_alt_opts *o, int v, double best, int *n)
{
    int m = *n = via_path(w->pf, w->pb, v, w->node), i = 0;
    w->stamp++;
    for (int q = 0; q < m; q++) {
        if (w->mark[w->node[q]] == w->stamp)
            return ALT_NOT_SIMPLE;
        w->mark[w->node[q]] = w->stamp;
        if (w->node[q] == v)
            i = q;
    }
    double obj, len;
    measure(w, m, &obj, &len);
    for (int k = 0; k < out->n; k++) {
        const prm_alt_route *Q = &out->r[k];
        int same = Q->n == m && !memcmp(Q->node, w->node, (size_t)m * sizeof *w->node);
        double sh = len > 0 ? shared_len(w->g, w->node, m, w->keys[k], Q->n - 1) / len : 0;
        if (same || sh > o->max_overlap)
            return ALT_SHARED;
    }
    int t = t_test(w, m, i, o->alpha * best, best);
    return t < 0 ? ALT_NOMEM : t ? ALT_OK : ALT_NOT_LOCAL;
}

/* The candidate in w->node (n nodes) as out's next route. */
static int choose(work *w, prm_alt_set *out, int n)
{
    prm_alt_route *R = &out->r[out->n];
    R->node = malloc((size_t)n * sizeof *R->node);
    w->keys[out->n] = malloc(((size_t)n + 1) * sizeof **w->keys);
    if (!R->node || !w->keys[out->n]) {
        free(R->node);
        R->node = NULL;
        return -1;
    }
    memcpy(R->node, w->node, (size_t)n * sizeof *R->node);
    R->n = n;
    measure(w, n, &R->objective, &R->length_m);
    route_keys(R->node, n, w->keys[out->n]);
    out->n++;
    R->overlap = R->length_m > 0 ? shared_len(w->g, R->node, n, w->keys[0], out->r[0].n - 1) / R->length_m : 0;
    return 0;
}

typedef struct cand {
    double key;
    int v;
} cand;

static int cmp_cand(const void *a, const void *b)
{
    const cand *x = a, *y = b;
    if (x->key != y->key)
        return x->key < y->key ? -1 : 1;
    return (x->v > y->v) - (x->v < y->v);
}

/* The via nodes within the stretch bound, in order; *nc their count. */
static cand *candidates(const work *w, int s, int t, double bound, long *nc)
{
    cand *c = malloc(((size_t)w->g->n + 1) * sizeof *c);
    long n = 0;
    for (int v = 0; c && v < w->g->n; v++)
        if (v != s && v != t && w->df[v] + w->db[v] <= bound)
            c[n++] = (cand){w->df[v] + w->db[v], v};
    if (c)
        qsort(c, (size_t)n, sizeof *c, cmp_cand);
    *nc = n;
    return c;
}

static trv_status select_routes(trv_ctx *ctx, work *w, int s, int t, const prm_alt_opts *o, prm_alt_set *out)
{
    double best = w->df[t];
    int n = via_path(w->pf, w->pb, t, w->node);
    if (choose(w, out, n))
        return trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
    cand *c = candidates(w, s, t, o->max_stretch * best * (1 + ALT_REL), &out->candidates);
    if (!c)
        return trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
    int bad = 0;
    for (long q = 0; q < out->candidates && out->n < o->k && !bad; q++) {
        int why = consider(w, out, o, c[q].v, best, &n);
        out->not_simple += why == ALT_NOT_SIMPLE;
        out->shared += why == ALT_SHARED;
        out->not_local += why == ALT_NOT_LOCAL;
        bad = why == ALT_NOMEM || (why == ALT_OK && choose(w, out, n));
    }
    free(c);
    return bad ? trv_error(ctx, TRV_ERR_NOMEM, "out of memory") : TRV_OK;
}

trv_status prm_alternatives(trv_ctx *ctx, const prm_digraph *g, int s, int t, const prm_alt_opts *o,
                            prm_alt_set *out)
{
    memset(out, 0, sizeof *out);
    trv_status st = prm_alt_opts_check(ctx, o);
    if (st)
        return st;
    if (s < 0 || s >= g->n || t < 0 || t >= g->n)
        return trv_error(ctx, TRV_ERR_INTERNAL, "alternatives: start or goal is not a node");
    work w;
    if (work_init(&w, g) || dijkstra(g, s, -1, INFINITY, w.df, w.pf, NULL, NULL) ||
        dijkstra(&w.rv, t, -1, INFINITY, w.db, w.pb, NULL, NULL))
        st = trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
    else if (isinf(w.df[t]))
        st = trv_error(ctx, TRV_ERR_DATA, "the goal is not reachable from the start");
    else
        st = select_routes(ctx, &w, s, t, o, out);
    work_free(&w);
    if (st)
        prm_alt_set_clear(out);
    return st;
}

void prm_alt_note(const prm_alt_set *a, const prm_alt_opts *o, char *buf, size_t len)
{
    if (a->n >= o->k) {
        snprintf(buf, len, "%s", "");
        return;
    }
    snprintf(buf, len,
             "%d of the %d routes asked for: of the %ld via nodes within the stretch bound (--max-stretch %g), %ld "
             "gave a route with a loop, %ld one sharing more than --max-overlap %g with a route already chosen, "
             "%ld one with a needless detour (the local-optimality T-test, --local-opt %g); the stretch bound excludes "
             "every other",
             a->n, o->k, a->candidates, o->max_stretch, a->not_simple, a->shared, o->max_overlap, a->not_local,
             o->alpha);
}
