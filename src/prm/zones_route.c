/* The zones in the roadmap search (zones.h): the per-query edge mask and
 * re-measured weights, and why a route is cut. */
#include "zones.h"

#include "prm_priv.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void prm_zone_edges_clear(prm_zone_edges *e)
{
    free(e->off);
    free(e->alt);
    free(e->pc);
    memset(e, 0, sizeof *e);
}

/* 1 if a factor or max_speed zone's box meets the box of the edge. */
static int near_factor(const geo_zones *z, const double b[4])
{
    for (int k = 0; k < z->n; k++) {
        const geo_zone *zn = &z->z[k];
        if (k != z->skip && zn->effect != GEO_ZONE_NOGO &&
            !(b[2] < zn->box[0] || b[0] > zn->box[2] || b[3] < zn->box[1] || b[1] > zn->box[3]))
            return 1;
    }
    return 0;
}

/* Edge e re-measured under the zones into out->pc (grown by doubling). */
static int remeasure(const prm_terrain *t, const double q[4], int e, int *cap, prm_zone_edges *out)
{
    if (out->nalt == *cap) {
        int nc = *cap ? 2 * *cap : 256;
        prm_piece *p = realloc(out->pc, (size_t)nc * sizeof *p);
        if (!p)
            return -1;
        out->pc = p, *cap = nc;
    }
    prm_piece_measure(t, q[0], q[1], q[2], q[3], &out->pc[out->nalt]);
    out->alt[e] = out->nalt++;
    return 0;
}

trv_status prm_zone_edges_make(trv_ctx *ctx, const prm_terrain *t, const prm_roadmap *r, int times,
                               prm_zone_edges *out)
{
    memset(out, 0, sizeof *out);
    const geo_zones *z = t->zones;
    int cap = 0;
    trv_status need = prm_roadmap_need_all(ctx, r); /* every edge is masked */
    if (need)
        return need;
    out->nedges = r->nedges, out->times = times;
    out->off = calloc((size_t)r->nedges + 1, 1);
    out->alt = malloc(((size_t)r->nedges + 1) * sizeof *out->alt);
    if (!out->off || !out->alt) {
        prm_zone_edges_clear(out);
        return trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
    }
    double zb[4] = {z->bx0, z->by0, z->bx0 + z->bnx * z->bsize, z->by0 + z->bny * z->bsize};
    for (int e = 0; e < r->nedges; e++) {
        out->alt[e] = -1;
        int a = r->edges[e].a, b = r->edges[e].b;
        const double q[4] = {r->x[a], r->y[a], r->x[b], r->y[b]};
        double bb[4] = {fmin(q[0], q[2]), fmin(q[1], q[3]), fmax(q[0], q[2]), fmax(q[1], q[3])};
        if (bb[2] < zb[0] || bb[0] > zb[2] || bb[3] < zb[1] || bb[1] > zb[3])
            continue;
        if (geo_zones_blocking(z, q[0], q[1], q[2], q[3]) >= 0) {
            out->off[e] = 1;
            continue;
        }
        if (times && near_factor(z, bb) && remeasure(t, q, e, &cap, out)) {
            prm_zone_edges_clear(out);
            return trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
        }
    }
    return TRV_OK;
}

trv_status prm_zone_edges_get(trv_ctx *ctx, const prm_terrain *t, const prm_roadmap *r, prm_strategy s,
                              prm_zone_edges *own, const prm_zone_edges **out)
{
    const prm_zone_edges *ze = t->zone_edges;
    memset(own, 0, sizeof *own);
    *out = NULL;
    if (ze && ze->nedges == r->nedges && (ze->times || s != PRM_TIME)) {
        *out = ze;
        return TRV_OK;
    }
    trv_status st = prm_zone_edges_make(ctx, t, r, s == PRM_TIME, own);
    if (!st)
        *out = own;
    return st;
}

const prm_piece *prm_zone_edge_piece(const prm_zone_edges *ze, const prm_roadmap *r, int e, prm_strategy s)
{
    return s == PRM_TIME && ze->alt[e] >= 0 ? &ze->pc[ze->alt[e]] : &r->edges[e].p;
}

/* 1 if prm_route finds a route on t (with its zones). */
static int route_exists(trv_ctx *ctx, const prm_terrain *t, const prm_roadmap *r, const double xy[4], prm_strategy s,
                        const prm_weights *w, int admissible)
{
    prm_path p;
    trv_status st = prm_route(ctx, t, r, xy[0], xy[1], xy[2], xy[3], s, w, admissible, &p);
    prm_path_clear(&p);
    return st == TRV_OK;
}

enum { EXPLAIN_MAX = 16 };

/* The zones' sources quoted: 'path', or 'path' and 'added' (geo_zone_source). */
static void zones_names(const geo_zones *z, char *buf, size_t len)
{
    if (z->added_name && z->added_from > 0)
        snprintf(buf, len, "'%s' and '%s'", z->path, z->added_name);
    else
        snprintf(buf, len, "'%s'", geo_zone_source(z, 0));
}

/* The nogo zones (indices into cut, at most EXPLAIN_MAX tried) whose
 * removal alone lets prm_route find a route: -1 when it finds none
 * without the zones either, else how many. One roadmap search each. */
static int cut_on_roadmap(trv_ctx *ctx, const prm_terrain *t, const prm_roadmap *r, const double xy[4],
                          prm_strategy s, const prm_weights *w, int admissible, int *cut)
{
    prm_terrain t0 = *t;
    t0.zones = NULL;
    if (!route_exists(ctx, &t0, r, xy, s, w, admissible))
        return -1;
    const geo_zones *z = t->zones;
    int nogo = 0, ncut = 0;
    geo_zones zk = *z;
    t0.zone_edges = NULL; /* the query's mask has every zone */
    t0.zones = &zk;
    for (int k = 0; k < z->n; k++) {
        if (z->z[k].effect != GEO_ZONE_NOGO || nogo++ >= EXPLAIN_MAX)
            continue;
        zk.skip = k;
        if (route_exists(ctx, &t0, r, xy, s, w, admissible))
            cut[ncut++] = k;
    }
    return ncut;
}

trv_status prm_zones_explain(trv_ctx *ctx, const prm_terrain *t, const prm_roadmap *r, const double xy[4],
                             prm_strategy s, const prm_weights *w, int admissible, size_t max_bytes, trv_status st,
                             int *explained)
{
    *explained = 0;
    const geo_zones *z = t->zones;
    char keep[1024], ids[512] = "";
    snprintf(keep, sizeof keep, "%s", trv_errmsg(ctx));
    int cut[EXPLAIN_MAX], ncut = 0, nogo = 0, how = PRM_CUT_NONE;
    if (st == TRV_ERR_DATA && !prm_grid_pass_fits(t, PRM_ZONES_FLOOD_BYTES, max_bytes)) {
        how = PRM_CUT_JOINED; /* floods that do not fit: the roadmap tells */
        for (int k = 0; k < z->n; k++)
            nogo += z->z[k].effect == GEO_ZONE_NOGO;
    } else if (st == TRV_ERR_DATA) { /* the raster first (zones_reach.c); the roadmap when it cannot tell */
        trv_status s2 = prm_zones_cutting(ctx, t, xy, EXPLAIN_MAX, cut, &ncut, &nogo, &how);
        if (s2)
            return s2;
        if (how == PRM_CUT_JOINED && (ncut = cut_on_roadmap(ctx, t, r, xy, s, w, admissible, cut)) < 0)
            how = PRM_CUT_NONE;
    }
    if (how == PRM_CUT_NONE) {
        trv_error(ctx, st, "%s", keep);
        return st;
    }
    for (int j = 0; j < ncut && strlen(ids) + 24 < sizeof ids; j++)
        snprintf(ids + strlen(ids), sizeof ids - strlen(ids), "%s%ld", j ? ", " : "", z->z[cut[j]].fid);
    *explained = 1;
    char names[2200];
    zones_names(z, names, sizeof names);
    if (ncut)
        return trv_error(ctx, st, "the goal is not reachable from the start under the zones of %s: %s nogo zone "
                         "(feature %s) cuts them apart (without %s a route exists)", names, ncut > 1 ? "each" : "the",
                         ids, ncut > 1 ? "any one of them" : "it");
    return trv_error(ctx, st, "the goal is not reachable from the start under the zones of %s: without the zones a "
                     "route exists, but no nogo zone alone cuts it (%s%d nogo zones tried one by one): they do "
                     "together", names, nogo > EXPLAIN_MAX ? "the first " : "", nogo > EXPLAIN_MAX ? EXPLAIN_MAX : nogo);
}

trv_status prm_zones_ends(trv_ctx *ctx, const geo_zones *z, const double xy[4])
{
    for (int e = 0; e < 2; e++) {
        int k = geo_zones_at(z, xy[2 * e], xy[2 * e + 1]);
        if (k >= 0)
            return trv_error(ctx, TRV_ERR_DATA, "the %s (%.1f, %.1f) lies in the nogo zone (feature %ld) of '%s'",
                             e ? "goal" : "start", xy[2 * e], xy[2 * e + 1], z->z[k].fid, geo_zone_source(z, k));
    }
    return TRV_OK;
}

/* The m nodes nearest to (x, y) into near[] (nearest first); their count. */
static int nearest(const prm_roadmap *r, double x, double y, int m, int *near, double *d)
{
    int n = 0;
    for (int i = 0; i < r->nnodes; i++) {
        double di = hypot(r->x[i] - x, r->y[i] - y);
        if (n == m && di >= d[n - 1])
            continue;
        int j = n < m ? n++ : n - 1;
        for (; j > 0 && d[j - 1] > di; j--)
            d[j] = d[j - 1], near[j] = near[j - 1];
        d[j] = di, near[j] = i;
    }
    return n;
}

/* Crossing c as node r->nnodes (room made by the caller) with its edges:
 * to every one of its 4 k nearest nodes that a straight piece allowed by
 * the terrain and the zones reaches (the barrier's two sides: the nearest
 * k may all lie on one), and its raster legs. */
static trv_status add_crossing(trv_ctx *ctx, const prm_terrain *t, prm_roadmap *r, int n0, const geo_crossing *c,
                               int k, const unsigned char *main, int *ncap, int *ecap)
{
    int near[1024], q = r->nnodes;
    double d[1024];
    int n = nearest(r, c->x, c->y, 4 * k, near, d);
    trv_status st = prm_zones_add_node(ctx, r, c->x, c->y, ncap);
    for (int j = 0; j < n && !st; j++) {
        prm_piece p;
        prm_piece_measure(t, r->x[near[j]], r->y[near[j]], c->x, c->y, &p);
        if (!p.blocked)
            st = prm_zones_add_edge(ctx, r, near[j], q, &p, ecap);
    }
    return st ? st : prm_zones_legs(ctx, t, r, n0, q, main, ncap, ecap);
}

static int root(int *up, int a)
{
    while (up[a] != a)
        a = up[a] = up[up[a]];
    return a;
}

/* Per node of r: 1 when its component under the mask holds at least
 * max(64, nnodes / 50) nodes (the main roadmap), 0 in a pocket; NULL when
 * out of memory. */
static unsigned char *main_nodes(const prm_roadmap *r, const unsigned char *off)
{
    int n = r->nnodes, *up = malloc(((size_t)n + 1) * sizeof *up), *size = calloc((size_t)n + 1, sizeof *size);
    unsigned char *main = malloc((size_t)n + 1);
    if (!up || !size || !main) {
        free(up), free(size), free(main);
        return NULL;
    }
    for (int i = 0; i < n; i++)
        up[i] = i;
    for (int e = 0; e < r->nedges; e++)
        if (!off[e]) {
            int a = root(up, r->edges[e].a), b = root(up, r->edges[e].b);
            if (a != b)
                up[a] = b;
        }
    for (int i = 0; i < n; i++)
        size[root(up, i)]++;
    int big = n / 50 > 64 ? n / 50 : 64;
    for (int i = 0; i < n; i++)
        main[i] = size[root(up, i)] >= big;
    free(up), free(size);
    return main;
}

/* ze grown to the edges r has now: the crossings' edges, allowed by
 * construction and measured under the zones (nothing to re-measure). */
static trv_status mask_grow(trv_ctx *ctx, const prm_roadmap *r, prm_zone_edges *ze)
{
    unsigned char *off = realloc(ze->off, (size_t)r->nedges + 1);
    if (off)
        ze->off = off;
    int *alt = off ? realloc(ze->alt, ((size_t)r->nedges + 1) * sizeof *alt) : NULL;
    if (!alt)
        return trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
    ze->alt = alt;
    for (int e = ze->nedges; e < r->nedges; e++)
        ze->off[e] = 0, ze->alt[e] = -1;
    ze->nedges = r->nedges;
    return TRV_OK;
}

trv_status prm_zones_roadmap(trv_ctx *ctx, const prm_terrain *t, prm_roadmap *r, prm_zone_edges *ze)
{
    const geo_zones *z = t->zones;
    if (z->nc == 0 || r->nnodes == 0)
        return TRV_OK;
    trv_status own = prm_roadmap_own(ctx, r); /* the crossings' nodes and edges are added to it */
    if (own)
        return own;
    int k = r->k > 0 ? r->k : 10, ecap = r->nedges, ncap = r->nnodes, n0 = r->nnodes;
    k = k > 256 ? 256 : k;
    unsigned char *main = main_nodes(r, ze->off);
    if (!main)
        return trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
    trv_status st = TRV_OK;
    for (int i = 0; i < z->nc && !st; i++)
        st = add_crossing(ctx, t, r, n0, &z->c[i], k, main, &ncap, &ecap);
    free(main);
    free(r->adj_start);
    free(r->adj);
    r->adj_start = NULL, r->adj = NULL;
    if (!st)
        st = mask_grow(ctx, r, ze);
    return st ? st : prm_roadmap_adjacency(ctx, r);
}

trv_status prm_zones_raster(trv_ctx *ctx, const prm_terrain *t, const double xy[4], prm_strategy s,
                            const prm_weights *w, size_t max_bytes, prm_path *out, char *note, size_t note_len)
{
    char keep[1024];
    snprintf(keep, sizeof keep, "%s", trv_errmsg(ctx));
    /* the raster joins them at all (zones_reach.c)? else no search of the whole terrain;
     * a flood that does not fit is left to the search (bounded) to tell */
    int joined = 1;
    trv_status st = TRV_OK;
    if (prm_grid_pass_fits(t, PRM_ZONES_FLOOD_BYTES, max_bytes)) {
        unsigned char *codes = prm_class_codes(t);
        st = codes ? prm_zones_joined(ctx, t, codes, t->zones, xy, &joined)
                   : trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
        free(codes);
    }
    if (st)
        return st;
    if (!joined) {
        trv_error(ctx, TRV_ERR_DATA, "%s", keep);
        return TRV_ERR_DATA;
    }
    prm_grid_paging pg;
    st = prm_route_grid_bounded(ctx, t, max_bytes, xy[0], xy[1], xy[2], xy[3], s, w, out, &pg);
    if (st == TRV_ERR_NOMEM || st == TRV_ERR_CANCEL || st == TRV_ERR_IO)
        return st;
    if (st) {
        trv_error(ctx, TRV_ERR_DATA, "%s", keep);
        return TRV_ERR_DATA;
    }
    size_t len = strlen(note);
    snprintf(note + len, note_len - len, "%s%s", len ? ", " : "the zones cut the roadmap between start and goal: "
             "planned on the raster instead: ", prm_strategy_name(s));
    return TRV_OK;
}
