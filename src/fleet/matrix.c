/* Each vehicle's travel-time matrix through its own roadmap (fleet.h
 * fleet_matrix_build): the vehicles grouped by run directory and roadmap,
 * each group's terrain and roadmap read once (prm_plan_load) and its
 * points (its vehicles' starts, every task) joined by prm_route_matrix on
 * the time objective: one Dijkstra per source. */
#include "fleet.h"

#include "geo/geo.h"
#include "prm/prm.h"

#include <stdlib.h>
#include <string.h>

void fleet_matrix_clear(fleet_matrix *m)
{
    free(m->travel), free(m->why);
    memset(m, 0, sizeof *m);
}

/* The points in the terrain's CRS: the group's starts, then the tasks. */
static trv_status transform(trv_ctx *ctx, const char *srs, const prm_terrain *t, int n, double *xy, int *ok)
{
    char *wkt = NULL;
    geo_ct *ct = NULL;
    double *x = malloc((size_t)n * sizeof *x), *y = malloc((size_t)n * sizeof *y);
    trv_status st = !x || !y ? trv_error(ctx, TRV_ERR_NOMEM, "out of memory") : geo_crs_wkt(ctx, srs, &wkt);
    if (!st && !(st = geo_ct_create(ctx, wkt, t->grid->wkt, &ct))) {
        for (int i = 0; i < n; i++)
            x[i] = xy[2 * i], y[i] = xy[2 * i + 1];
        geo_ct_points(ct, (size_t)n, x, y, ok);
        for (int i = 0; i < n; i++)
            xy[2 * i] = x[i], xy[2 * i + 1] = y[i];
    }
    free(wkt), free(x), free(y);
    geo_ct_free(ct);
    return st;
}

/* Why point (x, y) cannot be used on t: FLEET_OK, _OUTSIDE or _NOGO. */
static int point_fault(const prm_terrain *t, int ok, double x, double y)
{
    long c = ok ? prm_cell_at(t, x, y) : -1;
    return c < 0 ? FLEET_OUTSIDE : !prm_cell_go(t, c) ? FLEET_NOGO : FLEET_OK;
}

typedef struct group {
    const fleet_vehicles *V;
    const fleet_tasks *T;
    int *veh, nveh;         /* the group's vehicles */
    int n;                  /* points: nveh starts + nt tasks */
    double *xy, *c;         /* points (map), their matrix */
    int *fault;             /* per point */
} group;

/* The matrix over the usable points (the others' rows and columns
 * INFINITY); a task that cannot be linked to the roadmap is unusable. */
static trv_status group_matrix(trv_ctx *ctx, const prm_terrain *t, const prm_roadmap *r, group *G)
{
    int *idx = malloc((size_t)G->n * sizeof *idx), m = 0, bad = -1;
    double *xy = malloc((size_t)G->n * 2 * sizeof *xy), *c = malloc((size_t)G->n * G->n * sizeof *c);
    trv_status st = !idx || !xy || !c ? trv_error(ctx, TRV_ERR_NOMEM, "out of memory") : TRV_OK;
    for (int again = 1; !st && again;) {
        m = 0;
        for (int i = 0; i < G->n; i++)
            if (G->fault[i] == FLEET_OK)
                idx[m] = i, xy[2 * m] = G->xy[2 * i], xy[2 * m++ + 1] = G->xy[2 * i + 1];
        st = prm_route_matrix(ctx, t, r, m, xy, PRM_TIME, NULL, c, &bad);
        again = st && bad >= 0 && idx[bad] >= G->nveh; /* a task with no link: unusable, try again */
        if (again)
            G->fault[idx[bad]] = FLEET_NO_ROUTE, st = TRV_OK;
    }
    if (st && bad >= 0) { /* a start with no link (a task's was handled above) */
        char msg[512];
        snprintf(msg, sizeof msg, "%s", trv_errmsg(ctx));
        const fleet_vehicle *v = &G->V->v[G->veh[idx[bad]]];
        st = trv_error(ctx, st, "%s:%ld: vehicle '%s': %s", G->V->path, v->line, v->id, msg);
    }
    for (int q = 0; !st && q < G->n * G->n; q++)
        G->c[q] = INFINITY;
    for (int a = 0; !st && a < m; a++)
        for (int b = 0; b < m; b++)
            G->c[(size_t)idx[a] * G->n + idx[b]] = c[(size_t)a * m + b];
    free(idx), free(xy), free(c);
    return st;
}

/* Vehicle G->veh[v]'s block of out: its start and the tasks. */
static void fill_vehicle(const group *G, int v, fleet_matrix *out)
{
    const int nt = G->T->n, w = nt + 1, k = G->veh[v];
    double *dst = out->travel + (size_t)k * w * w;
    for (int i = 0; i < w; i++)
        for (int j = 0; j < w; j++) {
            int a = i ? G->nveh + i - 1 : v, b = j ? G->nveh + j - 1 : v;
            dst[i * w + j] = G->c[(size_t)a * G->n + b];
        }
    for (int j = 0; j < nt; j++) {
        int f = G->fault[G->nveh + j];
        out->why[(size_t)k * nt + j] = f ? f : isfinite(dst[1 + j]) ? FLEET_OK : FLEET_NO_ROUTE;
    }
}

/* One group: load, transform, check the starts, the matrix, fill. */
static trv_status group_run(trv_ctx *ctx, const char *srs, group *G, fleet_matrix *out)
{
    const fleet_vehicle *v0 = &G->V->v[G->veh[0]];
    prm_terrain t;
    prm_roadmap *r = NULL;
    char note[1024] = "";
    int *ok = malloc((size_t)G->n * sizeof *ok);
    if (!ok)
        return trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
    trv_status st = prm_plan_load(ctx, v0->roadmap, v0->run, &t, &r, note, sizeof note);
    if (st) {
        free(ok);
        return st;
    }
    if (!geo_crs_same(r->wkt, t.grid->wkt))
        st = trv_error(ctx, TRV_ERR_CRS, "'%s' is not in the CRS of the terrain '%s'", v0->roadmap, v0->run);
    if (!st)
        st = transform(ctx, srs, &t, G->n, G->xy, ok);
    for (int i = 0; !st && i < G->n; i++)
        G->fault[i] = point_fault(&t, ok[i], G->xy[2 * i], G->xy[2 * i + 1]);
    for (int v = 0; !st && v < G->nveh; v++)
        if (G->fault[v])
            st = trv_error(ctx, TRV_ERR_DATA, "%s:%ld: vehicle '%s': its start (%.10g,%.10g) lies %s of '%s'",
                           G->V->path, G->V->v[G->veh[v]].line, G->V->v[G->veh[v]].id, G->V->v[G->veh[v]].x,
                           G->V->v[G->veh[v]].y, G->fault[v] == FLEET_NOGO ? "in a NOGO cell" : "outside the map",
                           v0->run);
    if (!st)
        st = group_matrix(ctx, &t, r, G);
    for (int v = 0; !st && v < G->nveh; v++)
        fill_vehicle(G, v, out);
    if (!st && note[0] && !out->note[0])
        snprintf(out->note, sizeof out->note, "%s", note);
    prm_roadmap_free(r);
    prm_terrain_clear(&t);
    free(ok);
    return st;
}

static int same_group(const fleet_vehicle *a, const fleet_vehicle *b)
{
    return !strcmp(a->run, b->run) && !strcmp(a->roadmap, b->roadmap);
}

trv_status fleet_matrix_build(trv_ctx *ctx, const fleet_vehicles *V, const fleet_tasks *T, const char *srs,
                              fleet_matrix *out)
{
    memset(out, 0, sizeof *out);
    const int nv = V->n, nt = T->n, w = nt + 1;
    double t0 = trv_now_s();
    out->nv = nv, out->nt = nt;
    out->travel = malloc((size_t)nv * w * w * sizeof *out->travel);
    out->why = calloc((size_t)nv * nt, sizeof *out->why);
    group G = {V, T, malloc((size_t)nv * sizeof(int)), 0, 0, malloc((size_t)(nv + nt) * 2 * sizeof(double)),
               malloc((size_t)(nv + nt) * (nv + nt) * sizeof(double)), malloc((size_t)(nv + nt) * sizeof(int))};
    char *done = calloc((size_t)nv, 1);
    trv_status st = !out->travel || !out->why || !G.veh || !G.xy || !G.c || !G.fault || !done
                        ? trv_error(ctx, TRV_ERR_NOMEM, "out of memory")
                        : TRV_OK;
    for (int k = 0; !st && k < nv; k++) {
        if (done[k])
            continue;
        G.nveh = 0;
        for (int q = k; q < nv; q++)
            if (!done[q] && same_group(&V->v[k], &V->v[q]))
                done[q] = 1, G.veh[G.nveh] = q, G.xy[2 * G.nveh] = V->v[q].x, G.xy[2 * G.nveh++ + 1] = V->v[q].y;
        G.n = G.nveh + nt;
        for (int j = 0; j < nt; j++)
            G.xy[2 * (G.nveh + j)] = T->t[j].x, G.xy[2 * (G.nveh + j) + 1] = T->t[j].y;
        st = group_run(ctx, srs, &G, out);
        out->groups++;
    }
    for (int q = 0; !st && q < nv * nt; q++)
        out->unreachable += out->why[q] != FLEET_OK;
    out->build_s = trv_now_s() - t0;
    free(G.veh), free(G.xy), free(G.c), free(G.fault), free(done);
    if (st)
        fleet_matrix_clear(out);
    return st;
}

const char *fleet_why_name(int why)
{
    static const char *const name[] = {"", "outside the map", "in NOGO", "no route on the roadmap"};
    return why >= 0 && why <= FLEET_NO_ROUTE ? name[why] : "";
}
