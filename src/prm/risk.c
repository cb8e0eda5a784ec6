/* trv-route --risk and --mc (risk.h): P(NOGO) above alpha as nogo zones;
 * each route's cells through N realisations. */
#include "risk.h"
#include "core/json.h"
#include "run/run.h"
#include "terramech/realize.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define RISK_SIMS "dem_sim.tif"
#define RISK_INSET 1e-6 /* cells */

/* Room for one more zone in z (zcap: the array's room, grown here); -1 out
 * of memory. */
static int room(geo_zones *z, int *zcap)
{
    if (z->n == *zcap) {
        int nc = *zcap ? 2 * *zcap : 256;
        geo_zone *nz = realloc(z->z, (size_t)nc * sizeof *nz);
        if (!nz)
            return -1;
        z->z = nz, *zcap = nc;
    }
    return 0;
}

/* One nogo rectangle: columns c0 .. c1 - 1 of row r, inset; its feature
 * id its rank among the rectangles. */
static int add_run(geo_zones *z, int cap[2], const geo_grid *g, int r, int c0, int c1)
{
    double e = RISK_INSET * g->gt[1], f = RISK_INSET * -g->gt[5];
    double x0 = g->gt[0] + c0 * g->gt[1] + e, x1 = g->gt[0] + c1 * g->gt[1] - e;
    double y1 = g->gt[3] + r * g->gt[5] - f, y0 = g->gt[3] + (r + 1) * g->gt[5] + f;
    if (room(z, &cap[0]))
        return -1;
    const double v[5][2] = {{x0, y0}, {x1, y0}, {x1, y1}, {x0, y1}, {x0, y0}};
    for (int k = 0; k < 4; k++)
        if (geo_zones_push_seg(z, &cap[1], z->n, v[k][0], v[k][1], v[k + 1][0], v[k + 1][1]))
            return -1;
    geo_zone *zn = &z->z[z->n];
    *zn = (geo_zone){.fid = z->n - z->added_from, .effect = GEO_ZONE_NOGO, .s0 = z->nseg - 4, .s1 = z->nseg,
                     .box = {x0, y0, x1, y1}};
    z->n++;
    return 0;
}

/* The risk's inputs: P(NOGO), the terrain's GO/NOGO, alpha, the ends' cells. */
typedef struct risk_in {
    const geo_raster *p, *go;
    double alpha;
    const long *ends;       /* the stops' cells */
    int nends;
} risk_in;

/* Cell i is GO in the terrain, above alpha, and not a stop's. */
static int risky(const risk_in *R, size_t i)
{
    if (R->go->u8[i] != TM_GO || !(R->p->f32[i] > R->alpha) || geo_raster_is_nodata(R->p, i))
        return 0;
    for (int k = 0; k < R->nends; k++)
        if ((long)i == R->ends[k])
            return 0;
    return 1;
}

/* The runs of risky cells, row by row (the terrain's NOGO cells are
 * avoided already: no zone for them). */
static trv_status make_runs(trv_ctx *ctx, const risk_in *R, geo_zones *z)
{
    const geo_grid *g = &R->p->grid;
    int cap[2] = {z->n, z->nseg};
    for (int r = 0; r < g->ny; r++) {
        size_t at = (size_t)r * g->nx;
        for (int c = 0; c < g->nx;) {
            if (!risky(R, at + c)) {
                c++;
                continue;
            }
            int c1 = c + 1;
            while (c1 < g->nx && risky(R, at + c1))
                c1++;
            if (add_run(z, cap, g, r, c, c1))
                return trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
            c = c1;
        }
    }
    return TRV_OK;
}

/* The cells of the mission's stops: start, goal, each waypoint (one that
 * cannot be transformed is left out: legs.c names it); their count. */
static int stop_cells(trv_ctx *ctx, const prm_mission_opts *o, const prm_terrain *t, const double xy[4], long *cell)
{
    double x[PRM_WAYPOINTS_MAX], y[PRM_WAYPOINTS_MAX];
    int ok[PRM_WAYPOINTS_MAX], n = 0;
    cell[n++] = prm_cell_at(t, xy[0], xy[1]);
    cell[n++] = prm_cell_at(t, xy[2], xy[3]);
    for (int k = 0; k < o->wp.n; k++)
        x[k] = o->wp.xy[2 * k], y[k] = o->wp.xy[2 * k + 1], ok[k] = 0;
    char *wkt = NULL;
    geo_ct *ct = NULL;
    if (o->wp.n && !geo_crs_wkt(ctx, o->srs, &wkt) && !geo_ct_create(ctx, wkt, t->grid->wkt, &ct))
        geo_ct_points(ct, (size_t)o->wp.n, x, y, ok);
    for (int k = 0; k < o->wp.n; k++)
        if (ok[k])
            cell[n++] = prm_cell_at(t, x[k], y[k]);
    free(wkt);
    geo_ct_free(ct);
    return n;
}

/* P(NOGO) (path: its file) and GO/NOGO of dir, both on t's grid. */
static trv_status risk_read(trv_ctx *ctx, const prm_terrain *t, const char *dir, char **path, geo_raster **p,
                            geo_raster **go)
{
    char *gpath = trv_path_join(dir, run_file(RUN_GONOGO));
    *path = trv_path_join(dir, tm_real_file(TM_REAL_P_NOGO));
    trv_status st = *path && gpath ? geo_raster_read(ctx, *path, GEO_F32, p) : trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
    if (!st)
        st = geo_grid_compare(ctx, &(*p)->grid, *path, t->grid, "the terrain");
    if (!st)
        st = geo_raster_read(ctx, gpath, GEO_U8, go);
    if (!st)
        st = geo_grid_compare(ctx, &(*go)->grid, gpath, t->grid, "the terrain");
    free(gpath);
    return st;
}

/* "DIR/p_nogo.tif at --risk A": the rectangles' name in messages. */
static char *risk_name(const char *path, double alpha)
{
    char tail[64];
    snprintf(tail, sizeof tail, " at --risk %g", alpha);
    size_t len = strlen(path) + strlen(tail) + 1;
    char *name = malloc(len);
    if (name)
        snprintf(name, len, "%s%s", path, tail);
    return name;
}

/* The rectangles into zz (own: zz is the rule's alone, named by name). */
static trv_status add_rule(trv_ctx *ctx, const prm_mission_opts *o, const prm_terrain *t, const double xy[4],
                           const geo_raster *p, const geo_raster *go, geo_zones *zz, int own, char *name)
{
    int n0 = zz->n;
    if (own)
        zz->path = name, zz->skip = -1, zz->min_factor = 1;
    else
        zz->added_name = name, zz->added_from = n0;
    long ends[PRM_WAYPOINTS_MAX + 2];
    risk_in R = {p, go, o->risk, ends, stop_cells(ctx, o, t, xy, ends)};
    trv_status st = make_runs(ctx, &R, zz);
    if (!st && zz->n > n0)
        st = geo_zones_index(ctx, zz); /* (burned once every zone is in: mission.c, prm_zones_tiles) */
    if (!own && zz->n == n0) /* nothing added: the zones as read */
        free(zz->added_name), zz->added_name = NULL;
    return st;
}

trv_status prm_risk_zones(trv_ctx *ctx, const prm_terrain *t, const prm_mission_opts *o, const double xy[4],
                          geo_zones **z)
{
    geo_raster *p = NULL, *go = NULL;
    char *path = NULL, *name = NULL;
    geo_zones *own = NULL;
    trv_status st = risk_read(ctx, t, o->terrain, &path, &p, &go);
    if (!st && (!(name = risk_name(path, o->risk)) || (!*z && !(own = calloc(1, sizeof *own)))))
        st = trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
    if (!st) {
        st = add_rule(ctx, o, t, xy, p, go, own ? own : *z, own != NULL, name);
        name = NULL; /* the zones' now */
    }
    if (!st && own && own->n > 0)
        *z = own, own = NULL;
    geo_zones_free(own);
    geo_raster_free(p);
    geo_raster_free(go);
    free(path);
    free(name);
    return st;
}

/* ---- --mc ------------------------------------------------------------------ */

/* The routes' pieces: cell and length (m), route by route. */
typedef struct mc_pieces {
    long *cell;
    double *len_m;
    int *route;
    size_t n, cap;
    int k;                  /* the route being walked */
    double mpu;
    int nomem;
} mc_pieces;

static void add_piece(const prm_path_piece *pc, void *user)
{
    mc_pieces *P = user;
    if (P->n == P->cap) {
        size_t nc = P->cap ? 2 * P->cap : 1024;
        long *c = realloc(P->cell, nc * sizeof *c);
        if (c)
            P->cell = c;
        double *l = c ? realloc(P->len_m, nc * sizeof *l) : NULL;
        if (l)
            P->len_m = l;
        int *r = l ? realloc(P->route, nc * sizeof *r) : NULL;
        if (!r) {
            P->nomem = 1;
            return;
        }
        P->route = r, P->cap = nc;
    }
    P->cell[P->n] = pc->cell, P->len_m[P->n] = pc->len * P->mpu, P->route[P->n++] = P->k;
}

/* The stack, its grid t's, at least nsim bands, and the run's soil, land use and model. */
typedef struct mc_inputs {
    geo_raster_src *src;
    geo_raster *dem;
    run_stack in;
    tm_run_model rm;
    int have_rm;
    char *path;
} mc_inputs;

static trv_status mc_open(trv_ctx *ctx, const prm_terrain *t, const char *dir, int nsim, mc_inputs *I)
{
    static const run_id which[2] = {RUN_SOIL, RUN_LANDUSE};
    trv_status st = (I->path = trv_path_join(dir, RISK_SIMS)) ? TRV_OK : trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
    if (!st)
        st = geo_raster_open(ctx, I->path, GEO_F32, &I->src);
    if (!st)
        st = geo_grid_compare(ctx, geo_raster_src_grid(I->src), I->path, t->grid, "the terrain");
    if (!st && geo_raster_src_bands(I->src) < nsim)
        st = trv_error(ctx, TRV_ERR_DATA, "'%s' holds %d realisations, --mc asks for %d", I->path,
                       geo_raster_src_bands(I->src), nsim);
    if (!st)
        st = geo_raster_src_alloc(ctx, I->src, &I->dem);
    if (!st)
        st = run_load(ctx, dir, which, 2, NULL, &I->in);
    if (!st && !(st = tm_run_model_load(ctx, dir, &I->rm)))
        I->have_rm = 1;
    return st;
}

static void mc_close(mc_inputs *I)
{
    if (I->src)
        geo_raster_close(I->src);
    geo_raster_free(I->dem);
    run_stack_clear(&I->in);
    if (I->have_rm)
        tm_run_model_free(&I->rm);
    free(I->path);
}

/* Realisation k: each route's time T (h), INFINITY where not passable. */
static trv_status mc_band(trv_ctx *ctx, mc_inputs *I, const mc_pieces *P, int k, double ew, double ns, double *T)
{
    const geo_grid *g = geo_raster_src_grid(I->src);
    trv_status st = geo_raster_src_band(ctx, I->src, k + 1);
    if (!st)
        st = geo_raster_read_window(ctx, I->src, I->dem, 0, 0, g->nx, g->ny);
    for (size_t i = 0; i < P->n && !st; i++) {
        float v;
        unsigned char why;
        tm_real_cell(&I->rm.model, I->dem, ew, ns, I->in.layer[RUN_SOIL]->u8, I->in.layer[RUN_LANDUSE]->u8,
                     (size_t)P->cell[i], &v, &why);
        if (why != TM_GO || !(v > 0))
            T[P->route[i]] += P->len_m[i] > PRM_GRAZE_M ? INFINITY : 0;
        else
            T[P->route[i]] += P->len_m[i] / (v / 3.6) / 3600;
    }
    return st;
}

/* The passable times of each route into its statistics. */
static void mc_finish(prm_result *routes, int n, int nsim, const double *T, float *buf)
{
    for (int r = 0; r < n; r++) {
        prm_stats *s = &routes[r].stats;
        int m = 0;
        for (int k = 0; k < nsim; k++)
            if (isfinite(T[(size_t)k * n + r]))
                buf[m++] = (float)T[(size_t)k * n + r];
        qsort(buf, (size_t)m, sizeof *buf, trv_cmp_float);
        s->mc_n = nsim;
        s->p_pass = (double)m / nsim;
        for (int q = 0; q < 3; q++)
            s->time_q_h[q] = m ? tm_quantile_sorted(buf, m, q == 0 ? 0.1 : q == 1 ? 0.5 : 0.9) : NAN;
    }
}

trv_status prm_risk_mc(trv_ctx *ctx, const prm_terrain *t, const char *dir, int nsim, prm_result *routes, int n)
{
    mc_inputs I;
    memset(&I, 0, sizeof I);
    double mpu = geo_crs_metres_per_unit(t->grid->wkt);
    mc_pieces P = {.mpu = t->cell_m / t->grid->gt[1]};
    double *T = calloc((size_t)nsim * (n > 0 ? n : 1), sizeof *T);
    float *buf = malloc((size_t)nsim * sizeof *buf);
    trv_status st = T && buf ? mc_open(ctx, t, dir, nsim, &I) : trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
    for (P.k = 0; P.k < n && !st; P.k++)
        prm_path_pieces(t, &routes[P.k].path, add_piece, &P);
    if (!st && P.nomem)
        st = trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
    for (int k = 0; k < nsim && !st; k++)
        if (!(st = mc_band(ctx, &I, &P, k, t->grid->gt[1] * mpu, -t->grid->gt[5] * mpu, T + (size_t)k * n)))
            st = trv_progress(ctx, (k + 1.0) / nsim, "realizations");
    if (!st)
        mc_finish(routes, n, nsim, T, buf);
    free(P.cell);
    free(P.len_m);
    free(P.route);
    free(T);
    free(buf);
    mc_close(&I);
    return st;
}

void prm_risk_json(struct trv_json *js, const prm_stats *s)
{
    if (s->mc_n <= 0)
        return;
    static const char *const keys[3] = {"time_p10_h", "time_p50_h", "time_p90_h"};
    trv_json_int(js, "mc_realizations", s->mc_n);
    trv_json_num(js, "p_passable", "%.10g", s->p_pass);
    for (int q = 0; q < 3; q++)
        if (isnan(s->time_q_h[q]))
            trv_json_str(js, keys[q], NULL);
        else
            trv_json_num(js, keys[q], "%.10g", s->time_q_h[q]);
}
