/* Direction-aware travel time (docs/method.md §4.3): the pace (s per metre
 * of map length) of a GO cell in a heading, from the speed model of the
 * run directory (tm_speed_at) at the grade along the heading, or from
 * speed.tif when the run directory has no copy of the model. */
#include "prm_priv.h"
#include "run/run.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

enum { NO_PAIR = 0xffff }; /* codes 1..254: at most 254 x 254 pairs */

void prm_aniso_free(prm_aniso *a)
{
    if (!a)
        return;
    if (a->owns_model)
        tm_run_model_free(&a->rm);
    free(a->grad);
    free(a->pair);
    free(a->pace);
    free(a->ok);
    free(a->codes);
    free(a);
}

double prm_pace_exact(const prm_aniso *a, int pair, double tan_beta)
{
    double v = tm_speed_at(a->m, a->codes[2 * pair], a->codes[2 * pair + 1], atan(tan_beta), NULL);
    return v > 0 ? 1.0 / v : INFINITY;
}

int prm_limit_at(const prm_terrain *t, long i, double ux, double uy)
{
    prm_need(t, i, PRM_HAVE_ALL);
    const prm_aniso *a = t->aniso;
    long k = prm_at(t, i);
    if (!a || a->pair[k] == NO_PAIR)
        return -1;
    int p = a->pair[k];
    tm_speed_at_t o;
    tm_speed_at(a->m, a->codes[2 * p], a->codes[2 * p + 1], atan(prm_aniso_grade(a, k, ux, uy)), &o);
    return (int)o.limit;
}

/* Per cell of columns x0 .. x1 - 1, rows y0 .. y1 - 1: the Horn gradient
 * of dem (dz/dE, dz/dN, m/m), the same differences slope.tif is made of
 * (geo_horn_diff), so that the grade along any heading is at most the
 * cell's slope and equals it up the fall line; 0 off the GO cells. Reads
 * dem one cell around the rectangle. */
void prm_aniso_grad_rect(const prm_terrain *t, float *grad, int x0, int y0, int x1, int y1)
{
    const geo_raster *dem = t->dem;
    const geo_grid *g = t->grid;
    int nx = g->nx, ny = g->ny, has_nd = dem->has_nodata;
    float nd = (float)dem->nodata;
    double mpu = geo_crs_metres_per_unit(g->wkt);
    double ew = g->gt[1] * mpu, ns = fabs(g->gt[5]) * mpu;
    for (int y = y0; y < y1; y++) {
        const float *row = dem->f32 + (size_t)y * nx;
        for (int x = x0; x < x1; x++) {
            size_t i = (size_t)y * nx + x;
            double gx = 0, gy = 0;
            if (prm_cell_go(t, (long)i))
                geo_horn_diff(y > 0 ? row - nx : NULL, row, y + 1 < ny ? row + nx : NULL, nx, x, has_nd, nd, &gx,
                              &gy);
            grad[2 * i] = (float)(gx / (8 * ew));
            grad[2 * i + 1] = (float)(-gy / (8 * ns)); /* gy is south minus north */
        }
    }
}

/* prm_aniso_grad_rect over the whole grid in bands of rows, one thread
 * per core (prm_cores): every cell's gradient is its own, so the values
 * do not depend on the number of threads. A lazy terrain (which reads its
 * tiles on demand) stays on the calling thread. */
typedef struct grad_band {
    const prm_terrain *t;
    float *grad;
    int y0, y1;
} grad_band;

static void *grad_rows(void *arg)
{
    const grad_band *b = arg;
    prm_aniso_grad_rect(b->t, b->grad, 0, b->y0, b->t->grid->nx, b->y1);
    return NULL;
}

static void grad_all(const prm_terrain *t, float *grad)
{
    int nt = t->ready ? 1 : prm_cores(), ny = t->grid->ny;
    grad_band band[PRM_MAX_THREADS];
    for (int i = 0; i < nt; i++)
        band[i] = (grad_band){t, grad, (int)((long)ny * i / nt), (int)((long)ny * (i + 1) / nt)};
    prm_on_cores(grad_rows, band, sizeof *band, nt);
}

/* The (soil, land use) pairs of the GO cells, each cell's pair index (in
 * the order the pairs first appear, row by row), and the steepest grade;
 * a code the model does not know is an error. The cells in bands, one per
 * core (pairs_band: each band's own numbering), then merged in band order
 * (pairs_merge), which gives the same numbering as one pass. */
typedef struct pair_band {
    prm_aniso *a;
    const prm_terrain *t;
    const geo_raster *soil, *lu;
    size_t c0, c1;          /* the band's cells */
    uint16_t *map;          /* 256 x 256: (soil, land use) -> the band's own index */
    unsigned char *codes;   /* per own index: soil, land use */
    int n;                  /* own indices */
    double tmax;
    long bad;               /* the band's first cell with codes the model does not know; -1 none */
} pair_band;

static void *pairs_band(void *arg)
{
    pair_band *b = arg;
    prm_aniso *a = b->a;
    memset(b->map, 0xff, 256 * 256 * sizeof *b->map);
    for (size_t i = b->c0; i < b->c1; i++) {
        a->pair[i] = NO_PAIR;
        if (!prm_cell_go(b->t, (long)i))
            continue;
        int s = b->soil->u8[i], l = b->lu->u8[i];
        if (s == 0 || l == 0 || a->m->soil_index[s] < 0 || a->m->landuse_nogo[l] == 2) {
            b->bad = (long)i;
            return NULL;
        }
        uint16_t *p = &b->map[s * 256 + l];
        if (*p == NO_PAIR) {
            *p = (uint16_t)b->n;
            b->codes[2 * b->n] = (unsigned char)s;
            b->codes[2 * b->n + 1] = (unsigned char)l;
            b->n++;
        }
        a->pair[i] = *p;
        b->tmax = fmax(b->tmax, hypot(a->grad[2 * i], a->grad[2 * i + 1]));
    }
    return NULL;
}

/* The bands' pairs into a's numbering, in band order; every band's cells
 * renumbered where its own numbering differs. */
static void pairs_merge(prm_aniso *a, pair_band *b, int nt, uint16_t *map)
{
    uint16_t to[256 * 256];
    memset(map, 0xff, 256 * 256 * sizeof *map);
    double tmax = 0;
    for (int k = 0; k < nt; k++) {
        int same = 1;
        for (int q = 0; q < b[k].n; q++) {
            uint16_t *p = &map[b[k].codes[2 * q] * 256 + b[k].codes[2 * q + 1]];
            if (*p == NO_PAIR) {
                *p = (uint16_t)a->npairs;
                a->codes[2 * a->npairs] = b[k].codes[2 * q];
                a->codes[2 * a->npairs + 1] = b[k].codes[2 * q + 1];
                a->npairs++;
            }
            to[q] = *p;
            same &= *p == q;
        }
        for (size_t i = b[k].c0; !same && i < b[k].c1; i++)
            if (a->pair[i] != NO_PAIR)
                a->pair[i] = to[a->pair[i]];
        tmax = fmax(tmax, b[k].tmax);
    }
    a->tmax = fmax(tmax * (1 + 1e-6), 1e-3);
}

static trv_status pairs(trv_ctx *ctx, prm_aniso *a, const prm_terrain *t, const geo_raster *soil,
                        const geo_raster *lu)
{
    size_t n = (size_t)t->grid->nx * t->grid->ny;
    int nt = t->ready ? 1 : prm_cores(), nomem = !(a->codes = malloc(2 * 256 * 256));
    pair_band b[PRM_MAX_THREADS];
    uint16_t *map = malloc(256 * 256 * sizeof *map);
    for (int k = 0; k < nt; k++) {
        b[k] = (pair_band){a,    t,    soil, lu, n * k / nt, n * (k + 1) / nt, malloc(256 * 256 * sizeof *b[k].map),
                           malloc(2 * 256 * 256), 0, 0, -1};
        nomem |= !b[k].map || !b[k].codes;
    }
    trv_status st = nomem || !map ? trv_error(ctx, TRV_ERR_NOMEM, "out of memory") : TRV_OK;
    if (!st)
        prm_on_cores(pairs_band, b, sizeof *b, nt);
    for (int k = 0; k < nt && !st; k++) /* the first such cell: in the lowest band that has one */
        if (b[k].bad >= 0)
            st = trv_error(ctx, TRV_ERR_DATA,
                           "a GO cell has soil %d and land use %d, which the speed model's copies do not know: "
                           "run trv-speed again",
                           soil->u8[b[k].bad], lu->u8[b[k].bad]);
    if (!st)
        pairs_merge(a, b, nt, map);
    for (int k = 0; k < nt; k++) {
        free(b[k].map);
        free(b[k].codes);
    }
    free(map);
    return st;
}

/* The table: per pair the pace at PRM_PACE_NODES + 1 grades evenly over
 * [-tmax, tmax]; a bin is interpolated (linearly, in tan beta) when both
 * ends are finite, bound by the same limit and within PRM_PACE_REL of each
 * other, else prm_pace_exact answers. Also the highest speed any GO cell
 * allows in any heading (for the heuristics): per pair the smallest of the
 * top, ride, vegetation limits, the power limit at the steepest downhill
 * and the braking limit at the steepest uphill (power falls and braking
 * rises with the grade). */
trv_status prm_aniso_table(trv_ctx *ctx, prm_aniso *a, prm_terrain *t)
{
    const int n = PRM_PACE_NODES;
    a->dt = 2 * a->tmax / n;
    a->pace = malloc((size_t)a->npairs * (n + 1) * sizeof *a->pace);
    a->ok = malloc((size_t)a->npairs * n);
    unsigned char *lim = malloc((size_t)n + 1);
    if (!a->pace || !a->ok || !lim) {
        free(lim);
        return trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
    }
    double vmax = 0;
    for (int p = 0; p < a->npairs; p++) {
        double *row = a->pace + (size_t)p * (n + 1);
        int s = a->codes[2 * p], l = a->codes[2 * p + 1];
        for (int k = 0; k <= n; k++) {
            tm_speed_at_t o;
            double tb = -a->tmax + k * a->dt;
            tm_speed_at(a->m, s, l, atan(tb), &o);
            row[k] = o.v_ms > 0 ? 1.0 / o.v_ms : INFINITY;
            lim[k] = (unsigned char)o.limit;
        }
        for (int k = 0; k < n; k++)
            a->ok[(size_t)p * n + k] = isfinite(row[k]) && isfinite(row[k + 1]) && lim[k] == lim[k + 1] &&
                                       fabs(row[k + 1] - row[k]) <= PRM_PACE_REL * fmin(row[k], row[k + 1]);
        tm_speed_at_t dn, up;
        tm_speed_at(a->m, s, l, atan(-a->tmax), &dn);
        tm_speed_at(a->m, s, l, atan(a->tmax), &up);
        double v = fmin(dn.lim_ms[TM_LIMIT_TOP], fmin(a->m->lu_ride_ms[l], a->m->lu_veg_ms[l]));
        if (dn.limit != TM_LIMIT_NOGO)
            v = fmin(v, fmax(dn.lim_ms[TM_LIMIT_POWER], dn.lim_ms[TM_LIMIT_TRACTION]));
        if (up.limit != TM_LIMIT_NOGO)
            v = fmin(v, up.lim_ms[TM_LIMIT_BRAKING]);
        if (dn.limit == TM_LIMIT_NOGO) /* the top speed at least binds */
            v = fmin(v, a->m->v->top_speed_kmh / 3.6);
        vmax = fmax(vmax, v);
    }
    free(lim);
    t->top_speed_kmh = vmax * 3.6;
    return TRV_OK;
}

trv_status prm_terrain_set_model(trv_ctx *ctx, prm_terrain *t, const tm_model *m, const geo_raster *soil,
                                 const geo_raster *landuse)
{
    prm_aniso_free(t->aniso);
    t->aniso = NULL;
    const geo_grid *g = t->grid;
    size_t n = (size_t)g->nx * g->ny;
    if (soil->grid.nx != g->nx || soil->grid.ny != g->ny || landuse->grid.nx != g->nx || landuse->grid.ny != g->ny)
        return trv_error(ctx, TRV_ERR_DATA, "the soil and land-use layers are not on the terrain's grid");
    prm_aniso *a = calloc(1, sizeof *a);
    if (!a || !(a->grad = malloc(2 * n * sizeof *a->grad)) || !(a->pair = malloc(n * sizeof *a->pair))) {
        prm_aniso_free(a);
        return trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
    }
    a->m = m;
    grad_all(t, a->grad);
    trv_status st = pairs(ctx, a, t, soil, landuse);
    if (!st)
        st = prm_aniso_table(ctx, a, t);
    if (st) {
        prm_aniso_free(a);
        return st;
    }
    t->aniso = a;
    t->time_note[0] = 0;
    return TRV_OK;
}

/* speed.tif made by another model than the copies: tm_row on every 97th
 * GO cell must give its speed. */
static trv_status check_speed(trv_ctx *ctx, const prm_terrain *t, const geo_raster *soil, const geo_raster *lu,
                              const char *dir)
{
    size_t n = (size_t)t->grid->nx * t->grid->ny;
    for (size_t i = 0; i < n; i += 97) {
        if (!prm_cell_go(t, (long)i))
            continue;
        float v;
        unsigned char why;
        tm_row(t->aniso->m, &t->slope->f32[i], (float)t->slope->nodata, &soil->u8[i], &lu->u8[i], 1, &v, &why, NULL);
        float have = t->speed->f32[i];
        if (!(fabsf(v - have) <= 1e-5f * fmaxf(have, 1.0f)))
            return trv_error(ctx, TRV_ERR_DATA,
                             "'%s': speed.tif (%g km/h at cell %zu) was not made with the speed model's copies in the "
                             "run directory (%g km/h): run trv-speed again",
                             dir, have, i, v);
    }
    return TRV_OK;
}

trv_status prm_model_present(trv_ctx *ctx, prm_terrain *t, const char *dir, int *present)
{
    /* the vehicle copy defines the maps' model: without it, isotropic (the
     * class tables alone may be there for trv-sim's own vehicles) */
    char *p = run_other_path(dir, RUN_O_SPEED_VEHICLE);
    if (!p)
        return trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
    *present = trv_file_exists(p);
    free(p);
    if (!*present)
        snprintf(t->time_note, sizeof t->time_note,
                 "'%s' has no copy of the speed model (an older trv-speed): travel times are isotropic, from "
                 "speed.tif (the worse of up and down the slope in every cell)",
                 dir);
    return TRV_OK;
}

trv_status prm_model_from(trv_ctx *ctx, prm_terrain *t, const char *dir, const geo_raster *soil,
                          const geo_raster *landuse)
{
    tm_run_model rm;
    trv_status st = tm_run_model_load(ctx, dir, &rm);
    if (st)
        return st;
    if ((st = prm_terrain_set_model(ctx, t, &rm.model, soil, landuse))) {
        tm_run_model_free(&rm);
        return st;
    }
    t->aniso->rm = rm;
    t->aniso->m = &t->aniso->rm.model;
    t->aniso->rm.model.v = rm.vehicle;
    t->aniso->owns_model = 1;
    return check_speed(ctx, t, soil, landuse, dir);
}

trv_status prm_terrain_model_load(trv_ctx *ctx, prm_terrain *t, const char *dir)
{
    int present;
    trv_status st = prm_model_present(ctx, t, dir, &present);
    if (st || !present)
        return st;
    static const run_id which[2] = {RUN_SOIL, RUN_LANDUSE};
    run_stack s;
    run_load_opts lo = {0};
    lo.grid = t->grid;
    st = run_load(ctx, dir, which, 2, &lo, &s);
    if (st)
        return st;
    st = prm_model_from(ctx, t, dir, s.layer[RUN_SOIL], s.layer[RUN_LANDUSE]);
    run_stack_clear(&s);
    return st;
}
