/* Alternative routes (prm_alternatives, prm_alt_roadmap): overlap shares
 * and the local-optimality test by hand on tiny graphs; on random small
 * digraphs, the method against the test's own exhaustive enumeration of
 * the simple start-goal paths (Floyd-Warshall distances, the via paths,
 * the three bounds and the greedy choice in the method's order, all
 * computed here); on a synthetic terrain, the roadmap's graph against the
 * A* and the pieces measured along each route. */
#include "test_common.h"

#include <math.h>

#include "prm/prm.h"
#include "test_terrain_mem.h"

/* ---- a graph from an arc list ---- */

typedef struct arc {
    int a, b;
    double w, len;
} arc;

static void graph_of(prm_digraph *g, int n, const arc *arcs, int m)
{
    g->n = n;
    g->start = calloc((size_t)n + 1, sizeof *g->start);
    g->to = malloc(((size_t)m + 1) * sizeof *g->to);
    g->w = malloc(((size_t)m + 1) * sizeof *g->w);
    g->len = malloc(((size_t)m + 1) * sizeof *g->len);
    assert_non_null(g->start);
    int q = 0;
    for (int u = 0; u < n; u++) {
        g->start[u] = q;
        for (int k = 0; k < m; k++)
            if (arcs[k].a == u)
                g->to[q] = arcs[k].b, g->w[q] = arcs[k].w, g->len[q++] = arcs[k].len;
    }
    g->start[n] = q;
}

/* both ways, the same weight and length */
static int both(arc *out, int m, int a, int b, double w, double len)
{
    out[m++] = (arc){a, b, w, len};
    out[m++] = (arc){b, a, w, len};
    return m;
}

static void assert_nodes(const prm_alt_route *r, const int *want, int n)
{
    assert_int_equal(r->n, n);
    for (int i = 0; i < n; i++)
        assert_int_equal(r->node[i], want[i]);
}

/* s=0, a=1, b=2, c=3, t=4: best s-a-t (objective 2, 400 m), s-b-t (2.2,
 * 220 m, nothing shared), s-a-c-t (2.3, 200 m, s-a's 100 m shared with
 * the best: 0.5 of it; the best has 100 of its 400 m on it: 0.25); a spur
 * a-5 whose via route s-a-5-a-t (2.1) goes through a twice. */
static void test_alt_hand_overlap(void **state)
{
    (void)state;
    arc A[16];
    int m = 0;
    m = both(A, m, 0, 1, 1, 100);
    m = both(A, m, 1, 4, 1, 300);
    m = both(A, m, 0, 2, 1.1, 100);
    m = both(A, m, 2, 4, 1.1, 120);
    m = both(A, m, 1, 3, 0.65, 50);
    m = both(A, m, 3, 4, 0.65, 50);
    m = both(A, m, 1, 5, 0.05, 10);
    prm_digraph g;
    graph_of(&g, 6, A, m);
    trv_ctx *ctx = trv_ctx_new();
    prm_alt_opts o;
    prm_alt_opts_init(&o);
    o.k = 3, o.alpha = 0; /* T = 0: every route passes the T-test */
    prm_alt_set a;
    assert_int_equal(prm_alternatives(ctx, &g, 0, 4, &o, &a), TRV_OK);
    assert_int_equal(a.n, 3);
    assert_nodes(&a.r[0], (int[]){0, 1, 4}, 3);
    assert_nodes(&a.r[1], (int[]){0, 2, 4}, 3);
    assert_nodes(&a.r[2], (int[]){0, 1, 3, 4}, 4);
    assert_float_equal(a.r[0].objective, 2, 1e-12);
    assert_float_equal(a.r[1].objective, 2.2, 1e-12);
    assert_float_equal(a.r[2].objective, 2.3, 1e-12);
    assert_float_equal(a.r[0].length_m, 400, 1e-12);
    assert_float_equal(a.r[2].length_m, 200, 1e-12);
    assert_float_equal(a.r[0].overlap, 1, 1e-12);
    assert_float_equal(a.r[1].overlap, 0, 1e-12);
    assert_float_equal(a.r[2].overlap, 0.5, 1e-12);
    assert_float_equal(prm_alt_share(&g, &a.r[0], &a.r[2]), 0.25, 1e-12);
    assert_float_equal(prm_alt_share(&g, &a.r[2], &a.r[1]), 0, 1e-12);
    /* candidates a (the best itself), 5 (a loop), b and c within 1.25 x 2 */
    assert_int_equal(a.candidates, 4);
    assert_int_equal(a.not_simple, 1);
    assert_int_equal(a.shared, 1);
    prm_alt_set_clear(&a);
    /* 0.5 shared is over 0.4: two routes, the note says why */
    o.max_overlap = 0.4;
    assert_int_equal(prm_alternatives(ctx, &g, 0, 4, &o, &a), TRV_OK);
    assert_int_equal(a.n, 2);
    assert_int_equal(a.shared, 2);
    char note[512];
    prm_alt_note(&a, &o, note, sizeof note);
    assert_non_null(strstr(note, "2 of the 3 routes asked for"));
    assert_non_null(strstr(note, "2 one sharing more than --max-overlap 0.4"));
    prm_alt_set_clear(&a);
    /* the stretch bound: 2.1 is over 1.02 x 2; only the best */
    o.max_overlap = 0.5, o.max_stretch = 1.02;
    assert_int_equal(prm_alternatives(ctx, &g, 0, 4, &o, &a), TRV_OK);
    assert_int_equal(a.n, 1);
    assert_int_equal(a.candidates, 1);
    prm_alt_set_clear(&a);
    /* a goal that cannot be reached: one arc 0 -> 1 */
    prm_digraph one;
    graph_of(&one, 2, (arc[]){{0, 1, 1, 1}}, 1);
    assert_int_equal(prm_alternatives(ctx, &one, 1, 0, &o, &a), TRV_ERR_DATA);
    assert_int_equal(a.n, 0);
    assert_int_equal(prm_alternatives(ctx, &one, 0, 1, &o, &a), TRV_OK);
    assert_int_equal(a.n, 1);
    prm_alt_set_clear(&a);
    prm_digraph_clear(&one);
    o.k = 9;
    assert_int_equal(prm_alternatives(ctx, &g, 0, 4, &o, &a), TRV_ERR_USAGE);
    assert_non_null(strstr(trv_errmsg(ctx), "--alternatives must be 1..8"));
    prm_digraph_clear(&g);
    trv_ctx_free(ctx);
}

/* A chain s=0, 1, 2, 3, t=4 of objective 1 and 1 m a link, and a detour
 * 1-5-3 of 1.05 a link around node 2: its via path s 1 5 3 t (4.1, 0.49 of
 * its length shared) is a needless detour for T = 0.25 x 4 = 1 (v' = 1,
 * v'' = 3: 2.1 where 1-2-3 is 2) and passes with T = 0. */
static void test_alt_hand_ttest(void **state)
{
    (void)state;
    arc A[16];
    int m = 0;
    for (int i = 0; i < 4; i++)
        m = both(A, m, i, i + 1, 1, 1);
    m = both(A, m, 1, 5, 1.05, 1.05);
    m = both(A, m, 5, 3, 1.05, 1.05);
    prm_digraph g;
    graph_of(&g, 6, A, m);
    trv_ctx *ctx = trv_ctx_new();
    prm_alt_opts o;
    prm_alt_opts_init(&o);
    o.k = 2;
    prm_alt_set a;
    assert_int_equal(prm_alternatives(ctx, &g, 0, 4, &o, &a), TRV_OK);
    assert_int_equal(a.n, 1);
    assert_int_equal(a.not_local, 1);
    prm_alt_set_clear(&a);
    o.alpha = 0;
    assert_int_equal(prm_alternatives(ctx, &g, 0, 4, &o, &a), TRV_OK);
    assert_int_equal(a.n, 2);
    assert_nodes(&a.r[1], (int[]){0, 1, 5, 3, 4}, 5);
    assert_float_equal(a.r[1].overlap, 2 / 4.1, 1e-12);
    prm_alt_set_clear(&a);
    prm_digraph_clear(&g);
    trv_ctx_free(ctx);
}

/* ---- the exhaustive reference ---- */

enum { XN = 9, XMAXP = 20000 };

typedef struct ref {
    double w[XN][XN], len[XN][XN]; /* INFINITY: no arc */
    double D[XN][XN];              /* Floyd-Warshall */
    int path[XMAXP][XN], plen[XMAXP];
    double obj[XMAXP];
    int np;
} ref;

static void ref_enumerate(ref *R, int *stack, int depth, char *on, int t)
{
    int u = stack[depth - 1];
    if (u == t) {
        assert_true(R->np < XMAXP);
        memcpy(R->path[R->np], stack, (size_t)depth * sizeof *stack);
        R->plen[R->np] = depth;
        double o = 0;
        for (int i = 0; i + 1 < depth; i++)
            o += R->w[stack[i]][stack[i + 1]];
        R->obj[R->np++] = o;
        return;
    }
    for (int v = 0; v < XN; v++)
        if (isfinite(R->w[u][v]) && !on[v]) {
            on[v] = 1, stack[depth] = v;
            ref_enumerate(R, stack, depth + 1, on, t);
            on[v] = 0;
        }
}

static double ref_len(const ref *R, const int *p, int n)
{
    double l = 0;
    for (int i = 0; i + 1 < n; i++)
        l += R->len[p[i]][p[i + 1]];
    return l;
}

/* share of p's length on edges (either way) of q */
static double ref_share(const ref *R, const int *p, int n, const int *q, int nq)
{
    double s = 0, l = ref_len(R, p, n);
    for (int i = 0; i + 1 < n; i++)
        for (int j = 0; j + 1 < nq; j++)
            if ((p[i] == q[j] && p[i + 1] == q[j + 1]) || (p[i] == q[j + 1] && p[i + 1] == q[j])) {
                s += R->len[p[i]][p[i + 1]];
                break;
            }
    return l > 0 ? s / l : 0;
}

/* 1 if path p (n nodes) with via node at index i passes the T-test */
static int ref_ttest(const ref *R, const int *p, int n, int i, double T)
{
    double c[XN];
    c[0] = 0;
    for (int k = 0; k + 1 < n; k++)
        c[k + 1] = c[k] + R->w[p[k]][p[k + 1]];
    int j = i, l = i;
    while (j > 0 && c[i] - c[j] < T)
        j--;
    while (l < n - 1 && c[l] - c[i] < T)
        l++;
    return c[l] - c[j] <= R->D[p[j]][p[l]] * (1 + 1e-9) + 1e-12;
}

/* 1 if p is the via path of its node at i: shortest to it and from it */
static int ref_via(const ref *R, const int *p, int n, int i)
{
    double a = 0, b = 0;
    for (int k = 0; k < i; k++)
        a += R->w[p[k]][p[k + 1]];
    for (int k = i; k + 1 < n; k++)
        b += R->w[p[k]][p[k + 1]];
    double tol = 1e-9 * (R->D[p[0]][p[n - 1]] + 1);
    return fabs(a - R->D[p[0]][p[i]]) <= tol && fabs(b - R->D[p[i]][p[n - 1]]) <= tol;
}

typedef struct pair {
    double obj;
    int v, p, i; /* via node, path index, its position on the path */
} pair;

static int cmp_pair(const void *a, const void *b)
{
    const pair *x = a, *y = b;
    if (x->obj != y->obj)
        return x->obj < y->obj ? -1 : 1;
    return (x->v > y->v) - (x->v < y->v);
}

/* The greedy choice in the method's order over the exhaustive (path, via
 * node) pairs: chosen[] path indices, best first; returns their count. */
static int ref_choose(const ref *R, int best, const prm_alt_opts *o, int *chosen)
{
    pair *pr = malloc((size_t)R->np * XN * sizeof *pr);
    int npr = 0, nc = 0;
    for (int p = 0; p < R->np; p++)
        for (int i = 1; i + 1 < R->plen[p]; i++)
            if (ref_via(R, R->path[p], R->plen[p], i) && R->obj[p] <= o->max_stretch * R->obj[best] * (1 + 1e-9))
                pr[npr++] = (pair){R->obj[p], R->path[p][i], p, i};
    qsort(pr, (size_t)npr, sizeof *pr, cmp_pair);
    chosen[nc++] = best;
    for (int q = 0; q < npr && nc < o->k; q++) {
        const int *P = R->path[pr[q].p];
        int n = R->plen[pr[q].p], ok = 1;
        for (int c = 0; c < nc && ok; c++)
            ok = pr[q].p != chosen[c] &&
                 ref_share(R, P, n, R->path[chosen[c]], R->plen[chosen[c]]) <= o->max_overlap;
        if (ok && ref_ttest(R, P, n, pr[q].i, o->alpha * R->obj[best]))
            chosen[nc++] = pr[q].p;
    }
    free(pr);
    return nc;
}

static void ref_random(ref *R, trv_rng *rng, arc *A, int *m)
{
    *m = 0;
    for (int a = 0; a < XN; a++)
        for (int b = 0; b < XN; b++) {
            R->w[a][b] = R->len[a][b] = INFINITY;
            R->D[a][b] = a == b ? 0 : INFINITY;
        }
    for (int a = 0; a < XN; a++)
        for (int b = a + 1; b < XN; b++) {
            if (trv_rng_uniform(rng) > 0.5)
                continue;
            double len = 50 + 100 * trv_rng_uniform(rng), wab = len * (1 + trv_rng_uniform(rng)),
                   wba = len * (1 + trv_rng_uniform(rng)); /* directed weights, one length */
            R->w[a][b] = R->D[a][b] = wab, R->w[b][a] = R->D[b][a] = wba;
            R->len[a][b] = R->len[b][a] = len;
            A[(*m)++] = (arc){a, b, wab, len};
            A[(*m)++] = (arc){b, a, wba, len};
        }
    for (int k = 0; k < XN; k++)
        for (int a = 0; a < XN; a++)
            for (int b = 0; b < XN; b++)
                if (R->D[a][k] + R->D[k][b] < R->D[a][b])
                    R->D[a][b] = R->D[a][k] + R->D[k][b];
}

/* Every route the method returns is a simple start-goal path of the
 * graph, a via path, within the stretch bound, shares at most max_overlap
 * with each route before it and passes the T-test at one of its via nodes
 * (each checked here); the best is the exhaustive optimum (the A*'s with an
 * admissible heuristic); and the routes are exactly the test's own greedy
 * choice over every (simple path, via node) pair of the enumeration in
 * the method's order: so when the enumeration holds an admissible
 * alternative among the via paths, the method returns one. */
static void test_alt_exhaustive(void **state)
{
    (void)state;
    static ref R;
    trv_ctx *ctx = trv_ctx_new();
    trv_rng rng;
    trv_rng_seed(&rng, 22);
    int graphs = 0, with_alt = 0, without = 0, three = 0;
    static const double stretch[3] = {1.25, 1.5, 2}, overlap[3] = {0.5, 0.3, 0.8}, alpha[3] = {0.25, 0.1, 0.4};
    for (int trial = 0; trial < 1000; trial++) {
        arc A[XN * XN];
        int m, stack[XN];
        char on[XN] = {0};
        ref_random(&R, &rng, A, &m);
        if (!isfinite(R.D[0][XN - 1]))
            continue;
        R.np = 0;
        stack[0] = 0, on[0] = 1;
        ref_enumerate(&R, stack, 1, on, XN - 1);
        int best = 0;
        for (int p = 1; p < R.np; p++)
            if (R.obj[p] < R.obj[best])
                best = p;
        prm_digraph g;
        graph_of(&g, XN, A, m);
        prm_alt_opts o;
        prm_alt_opts_init(&o);
        o.k = 2 + trial % 3, o.max_stretch = stretch[trial % 3], o.max_overlap = overlap[(trial / 3) % 3];
        o.alpha = alpha[(trial / 9) % 3];
        prm_alt_set a;
        assert_int_equal(prm_alternatives(ctx, &g, 0, XN - 1, &o, &a), TRV_OK);
        graphs++;
        assert_float_equal(a.r[0].objective, R.obj[best], 1e-9 * R.obj[best]);
        assert_nodes(&a.r[0], R.path[best], R.plen[best]);
        for (int k = 0; k < a.n; k++) {
            const prm_alt_route *r = &a.r[k];
            int found = -1, via = 0, ttest = 0;
            for (int p = 0; p < R.np && found < 0; p++)
                if (R.plen[p] == r->n && !memcmp(R.path[p], r->node, (size_t)r->n * sizeof *r->node))
                    found = p;
            assert_true(found >= 0); /* a simple start-goal path */
            assert_float_equal(r->objective, R.obj[found], 1e-9 * R.obj[best]);
            assert_true(r->objective <= o.max_stretch * R.obj[best] * (1 + 1e-9));
            assert_float_equal(r->length_m, ref_len(&R, r->node, r->n), 1e-9 * r->length_m);
            assert_float_equal(r->overlap, ref_share(&R, r->node, r->n, R.path[best], R.plen[best]), 1e-12);
            for (int j = 0; j < k; j++)
                assert_true(ref_share(&R, r->node, r->n, a.r[j].node, a.r[j].n) <= o.max_overlap);
            for (int i = 1; k > 0 && i + 1 < r->n; i++)
                if (ref_via(&R, r->node, r->n, i)) {
                    via = 1;
                    ttest |= ref_ttest(&R, r->node, r->n, i, o.alpha * R.obj[best]);
                }
            assert_true(k == 0 || (via && ttest));
        }
        int chosen[PRM_ALT_MAX], nc = ref_choose(&R, best, &o, chosen);
        assert_int_equal(a.n, nc);
        for (int k = 0; k < nc; k++)
            assert_nodes(&a.r[k], R.path[chosen[k]], R.plen[chosen[k]]);
        with_alt += a.n > 1, without += a.n == 1, three += a.n > 2;
        prm_alt_set_clear(&a);
        prm_digraph_clear(&g);
    }
    /* both outcomes met, so that the comparison means something */
    print_message("%d graphs: %d with an alternative (%d with two), %d without\n", graphs, with_alt, three, without);
    assert_true(graphs > 900 && with_alt > 80 && without > 100 && three >= 5);
    trv_ctx_free(ctx);
}

/* ---- on a roadmap ---- */

/* The time of the A*'s arc u -> v of the roadmap's graph (S, G: the
 * ends, linked straight): an edge's time_fwd_s from a to b, time_rev_s
 * back; an end's link measured. */
static double arc_time(const prm_terrain *t, const prm_roadmap *rm, const double xy[4], int u, int v)
{
    int S = rm->nnodes, G = rm->nnodes + 1;
    double ux = u == S ? xy[0] : rm->x[u], uy = u == S ? xy[1] : rm->y[u];
    double vx = v == G ? xy[2] : rm->x[v], vy = v == G ? xy[3] : rm->y[v];
    if (u < S && v < S)
        for (int e = 0; e < rm->nedges; e++) {
            const prm_edge *ed = &rm->edges[e];
            if ((ed->a == u && ed->b == v) || (ed->a == v && ed->b == u))
                return ed->a == u ? ed->p.time_s : ed->p.time_rev_s;
        }
    prm_piece p;
    prm_piece_measure(t, ux, uy, vx, vy, &p);
    return p.time_s;
}

/* Direction-aware times by hand (each edge's time back 0.6 x its time
 * forth): every route's objective is the sum of the times the way each
 * of its edges is travelled. */
static void alt_asymmetric(trv_ctx *ctx, const prm_terrain *t, prm_roadmap *rm, const double xy[4])
{
    for (int e = 0; e < rm->nedges; e++)
        rm->edges[e].p.time_rev_s = 0.6 * rm->edges[e].p.time_s;
    prm_alt_opts o;
    prm_alt_opts_init(&o);
    o.k = 3, o.max_stretch = 2, o.max_overlap = 0.8, o.alpha = 0.1;
    prm_path paths[PRM_ALT_MAX];
    prm_alt_set a;
    assert_int_equal(prm_alt_roadmap(ctx, t, rm, xy, PRM_TIME, NULL, &o, paths, &a), TRV_OK);
    int back = 0;
    for (int k = 0; k < a.n; k++) {
        double sum = 0;
        for (int i = 0; i + 1 < a.r[k].n; i++) {
            sum += arc_time(t, rm, xy, a.r[k].node[i], a.r[k].node[i + 1]);
            back += a.r[k].node[i] > a.r[k].node[i + 1] && a.r[k].node[i] < rm->nnodes;
        }
        assert_float_equal(sum, a.r[k].objective, 1e-9 * sum);
        prm_path_clear(&paths[k]);
    }
    print_message("asymmetric: %d routes, %d edges travelled back\n", a.n, back);
    assert_true(a.n > 1 && back > 0); /* some edge travelled from b to a */
    prm_alt_set_clear(&a);
}

/* A 12 x 12 terrain of 100 m cells, speeds and classes varying, a NOGO
 * wall with two gaps between start and goal; its roadmap with k = the
 * node count (prm_route's graph then closed under its shortcuts: its
 * objective is the graph's optimum). The best of prm_alt_roadmap is the
 * A*'s objective (admissible strategies); every route's path starts and
 * ends at the exact ends, crosses no NOGO, and its pieces measured and
 * weighed along it sum to its objective (the digraph's weights are the
 * A*'s, both ways). */
static void test_alt_roadmap(void **state)
{
    (void)state;
    prm_terrain t;
    assert_int_equal(test_terrain_new(&t, 12, 12, 500000, 4000000, 100), 0);
    for (int i = 0; i < 144; i++) {
        int c = i % 12, r = i / 12;
        t.cls->u8[i] = (unsigned char)(1 + (c + 2 * r) % 3);
        t.speed->f32[i] = (float)(10 + 3 * ((c * 7 + r * 3) % 11));
        t.slope->f32[i] = (float)((c + r) % 9);
        t.cost->f32[i] = 0.1f * (float)((c * r) % 10);
        t.dem->f32[i] = (float)(200 + 10 * c + 5 * r);
        if (c == 6 && r != 2 && r != 9)
            t.gonogo->u8[i] = 1; /* the wall, gaps at rows 2 and 9 */
    }
    t.top_speed_kmh = 40;
    trv_ctx *ctx = trv_ctx_new();
    prm_build_opts bo;
    prm_build_opts_init(&bo);
    bo.nodes = 30, bo.k = 30, bo.seed = 3, bo.straight_only = 1;
    prm_roadmap *rm = NULL;
    prm_build_stats bs;
    assert_int_equal(prm_roadmap_build(ctx, &t, &bo, &rm, &bs), TRV_OK);
    const double xy[4] = {500150, 3999450, 501050, 3999350};
    static const prm_strategy strat[3] = {PRM_MDR, PRM_TIME, PRM_MSR};
    int alts = 0;
    for (int q = 0; q < 3; q++) {
        prm_alt_opts o;
        prm_alt_opts_init(&o);
        o.k = 3, o.max_stretch = 2, o.max_overlap = 0.8, o.alpha = 0.1;
        prm_path paths[PRM_ALT_MAX], best;
        prm_alt_set a;
        assert_int_equal(prm_alt_roadmap(ctx, &t, rm, xy, strat[q], NULL, &o, paths, &a), TRV_OK);
        assert_int_equal(prm_route(ctx, &t, rm, xy[0], xy[1], xy[2], xy[3], strat[q], NULL, 0, &best), TRV_OK);
        assert_float_equal(a.r[0].objective, best.objective, 1e-9 * best.objective);
        prm_weights w;
        prm_weights_default(&w);
        for (int k = 0; k < a.n; k++) {
            const prm_path *p = &paths[k];
            assert_float_equal(p->x[0], xy[0], 0), assert_float_equal(p->y[0], xy[1], 0);
            assert_float_equal(p->x[p->n - 1], xy[2], 0), assert_float_equal(p->y[p->n - 1], xy[3], 0);
            double sum = 0;
            for (int i = 0; i + 1 < p->n; i++) {
                prm_piece pc;
                prm_piece_measure(&t, p->x[i], p->y[i], p->x[i + 1], p->y[i + 1], &pc);
                assert_false(pc.blocked);
                sum += prm_piece_weight(&pc, strat[q], &w);
            }
            assert_float_equal(sum, p->objective, 1e-9 * p->objective);
            assert_float_equal(p->objective, a.r[k].objective, 0);
            prm_path_clear(&paths[k]);
        }
        alts += a.n - 1;
        prm_path_clear(&best);
        prm_alt_set_clear(&a);
    }
    assert_true(alts >= 3); /* the two gaps: an alternative each time */
    alt_asymmetric(ctx, &t, rm, xy);
    prm_roadmap_free(rm);
    prm_terrain_clear(&t);
    trv_ctx_free(ctx);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_alt_hand_overlap),
        cmocka_unit_test(test_alt_hand_ttest),
        cmocka_unit_test(test_alt_exhaustive),
        cmocka_unit_test(test_alt_roadmap),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
