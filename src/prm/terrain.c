/* Terrain layers, the exact segment walk and the measure of a straight piece. */
#include "prm_priv.h"
#include "zones.h"
#include "run/run.h"

#include "core/clip.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void prm_terrain_clear(prm_terrain *t)
{
    prm_lazy_release(t); /* arrays that are the roadmap cache's mapping */
    geo_raster_free(t->cls);
    geo_raster_free(t->cost);
    geo_raster_free(t->gonogo);
    geo_raster_free(t->dem);
    geo_raster_free(t->slope);
    geo_raster_free(t->speed);
    prm_aniso_free(t->aniso);
    prm_lazy_free(t->lazy);
    free(t->ready);
    memset(t, 0, sizeof *t);
}

trv_status prm_terrain_load(trv_ctx *ctx, const char *dir, prm_terrain *t)
{
    memset(t, 0, sizeof *t);
    /* the model's soil and land use read with the six layers (eight reads
     * shared by the cores: run_load), when the model is there */
    static const run_id which[8] = {RUN_CLASS, RUN_COST,  RUN_GONOGO, RUN_DEM,
                                    RUN_SLOPE, RUN_SPEED, RUN_SOIL,   RUN_LANDUSE};
    int model;
    run_stack s;
    trv_status st = prm_model_present(ctx, t, dir, &model);
    if (st || (st = run_load(ctx, dir, which, model ? 8 : 6, NULL, &s)))
        return st;
    t->cls = run_stack_take(&s, RUN_CLASS);
    t->cost = run_stack_take(&s, RUN_COST);
    t->gonogo = run_stack_take(&s, RUN_GONOGO);
    t->dem = run_stack_take(&s, RUN_DEM);
    t->slope = run_stack_take(&s, RUN_SLOPE);
    t->speed = run_stack_take(&s, RUN_SPEED);
    t->grid = &t->cls->grid;
    if (!t->grid->wkt || geo_crs_is_geographic(t->grid->wkt) != 0)
        st = trv_error(ctx, TRV_ERR_CRS, "the terrain in '%s' must be on a projected grid", dir);
    else if (model)
        st = prm_model_from(ctx, t, dir, s.layer[RUN_SOIL], s.layer[RUN_LANDUSE]);
    run_stack_clear(&s);
    if (st) {
        prm_terrain_clear(t);
        return st;
    }
    t->cell_m = t->grid->gt[1] * geo_crs_metres_per_unit(t->grid->wkt);
    /* isotropic: the fastest GO cell of speed.tif (the model's pace table
     * sets it otherwise: prm_aniso_table) */
    size_t n = (size_t)t->grid->nx * t->grid->ny;
    for (size_t i = 0; !t->aniso && i < n; i++)
        if (prm_cell_go(t, (long)i) && t->speed->f32[i] > t->top_speed_kmh)
            t->top_speed_kmh = t->speed->f32[i];
    return TRV_OK;
}

double prm_pace(const prm_terrain *t, long i, double ux, double uy)
{
    prm_need(t, i, PRM_HAVE_ALL);
    long k = prm_at(t, i);
    if (t->aniso)
        return prm_aniso_pace(t->aniso, k, prm_aniso_grade(t->aniso, k, ux, uy));
    double v = t->speed->f32[k];
    return v > 0 ? 3.6 / v : INFINITY;
}

int prm_cell_go(const prm_terrain *t, long i)
{
    prm_need(t, i, PRM_HAVE_CLASS);
    long k = prm_at(t, i);
    return t->gonogo->u8[k] == 0 && t->cls->u8[k] != 0;
}

long prm_cell_at(const prm_terrain *t, double x, double y)
{
    const geo_grid *g = t->grid;
    double c = (x - g->gt[0]) / g->gt[1], r = (y - g->gt[3]) / g->gt[5];
    if (!(c >= 0 && r >= 0 && c < g->nx && r < g->ny))
        return -1;
    return (long)r * g->nx + (long)c;
}

/* Amanatides & Woo's traversal in cell units (column u, row v), on the
 * part of the segment inside the grid. */
int prm_segment_walk(const geo_grid *g, double x0, double y0, double x1, double y1, prm_cell_fn fn, void *user)
{
    double u0 = (x0 - g->gt[0]) / g->gt[1], v0 = (y0 - g->gt[3]) / g->gt[5];
    double u1 = (x1 - g->gt[0]) / g->gt[1], v1 = (y1 - g->gt[3]) / g->gt[5];
    double du = u1 - u0, dv = v1 - v0;
    double len = hypot(x1 - x0, y1 - y0);
    /* clip to the grid (Liang-Barsky) */
    double t0, t1;
    if (!trv_clip_segment(u0, v0, u1, v1, 0, 0, g->nx, g->ny, &t0, &t1) || (t0 == t1 && len > 0))
        return 0;
    double su = u0 + t0 * du, sv = v0 + t0 * dv;
    long c = (long)floor(su), r = (long)floor(sv);
    /* a start on the far edge belongs to the last cell */
    if (c >= g->nx)
        c = g->nx - 1;
    if (r >= g->ny)
        r = g->ny - 1;
    if (c < 0)
        c = 0;
    if (r < 0)
        r = 0;
    if (len == 0)
        return fn(r * g->nx + c, 0, user) ? 1 : 0;
    int stepc = du > 0 ? 1 : du < 0 ? -1 : 0, stepr = dv > 0 ? 1 : dv < 0 ? -1 : 0;
    /* parameter t of the next column / row boundary, and the spacing between boundaries */
    double tc = stepc ? ((stepc > 0 ? c + 1 : c) - u0) / du : INFINITY;
    double tr = stepr ? ((stepr > 0 ? r + 1 : r) - v0) / dv : INFINITY;
    double dtc = stepc ? fabs(1.0 / du) : INFINITY, dtr = stepr ? fabs(1.0 / dv) : INFINITY;
    double t = t0;
    for (;;) {
        double next = fmin(fmin(tc, tr), t1);
        if (fn(r * g->nx + c, (next - t) * len, user))
            return 1;
        if (next >= t1)
            return 0;
        t = next;
        if (tc == tr) {
            /* through a corner: the two cells that meet there diagonally, at length 0 */
            long ca = c + stepc, ra = r + stepr;
            if (ca >= 0 && ca < g->nx && fn(r * g->nx + ca, 0, user))
                return 1;
            if (ra >= 0 && ra < g->ny && fn(ra * g->nx + c, 0, user))
                return 1;
            c = ca;
            r = ra;
            tc += dtc;
            tr += dtr;
        } else if (tc < tr) {
            c += stepc;
            tc += dtc;
        } else {
            r += stepr;
            tr += dtr;
        }
        if (c < 0 || r < 0 || c >= g->nx || r >= g->ny)
            return 0;
    }
}

/* A GO cell's length into its risk class (method 4.3: 1 high, 2 low, 3 safe). */
static void class_len(prm_piece *p, int cls, double len)
{
    switch (cls) {
    case 1: p->h += len; break;
    case 2: p->l += len; break;
    case 3: p->s += len; break;
    default: break;
    }
}

void prm_piece_add_cell(const prm_terrain *t, long i, double len, double ux, double uy, int times, prm_piece *p)
{
    prm_need(t, i, PRM_HAVE_ALL);
    long k = prm_at(t, i);
    class_len(p, t->cls->u8[k], len);
    double slope = t->slope->f32[k], v = t->speed->f32[k];
    p->slope_int += len * slope;
    if (slope > p->slope_max)
        p->slope_max = slope;
    if (times && len > 0 && t->aniso) {
        double tb = prm_aniso_grade(t->aniso, k, ux, uy);
        p->time_s += len * prm_aniso_pace(t->aniso, k, tb);
        p->time_rev_s += len * prm_aniso_pace(t->aniso, k, -tb);
    } else if (times && len > 0) {
        double dt = v > 0 ? len / (v / 3.6) : INFINITY; /* isotropic: the same both ways */
        p->time_s += dt;
        p->time_rev_s += dt;
    }
    p->cost_int += len * t->cost->f32[k];
    p->elev_int += len * t->dem->f32[k];
}

typedef struct measure {
    const prm_terrain *t;
    prm_piece *p;
    double ux, uy; /* the heading, east and north */
} measure;

static int measure_cell(long i, double len, void *user)
{
    measure *m = user;
    const prm_terrain *t = m->t;
    prm_piece *p = m->p;
    if (!prm_cell_go(t, i)) {
        p->blocked = 1;
        p->nogo += len;
        return 0;
    }
    prm_piece_add_cell(t, i, len, m->ux, m->uy, 1, p);
    return 0;
}

/* The class lengths alone (prm_piece_measure_classes): what prm_piece_add_cell
 * adds to them. */
static int classes_cell(long i, double len, void *user)
{
    measure *m = user;
    prm_piece *p = m->p;
    if (!prm_cell_go(m->t, i)) {
        p->blocked = 1;
        p->nogo += len;
        return 0;
    }
    class_len(p, m->t->cls->u8[prm_at(m->t, i)], len);
    return 0;
}

static void piece_walk(const prm_terrain *t, double x0, double y0, double x1, double y1, prm_cell_fn fn,
                       prm_piece *out)
{
    memset(out, 0, sizeof *out);
    double dl = hypot(x1 - x0, y1 - y0);
    measure m = {t, out, dl > 0 ? (x1 - x0) / dl : 0, dl > 0 ? (y1 - y0) / dl : 0};
    double m_per_unit = t->cell_m / t->grid->gt[1];
    prm_segment_walk(t->grid, x0, y0, x1, y1, fn, &m);
    if (t->zones)
        prm_zones_piece(t, x0, y0, x1, y1, fn == measure_cell, out);
    /* lengths came in map units: metres for the usual CRSs */
    if (m_per_unit != 1) {
        out->l *= m_per_unit;
        out->h *= m_per_unit;
        out->s *= m_per_unit;
        out->nogo *= m_per_unit;
        out->slope_int *= m_per_unit;
        out->time_s *= m_per_unit;
        out->time_rev_s *= m_per_unit;
        out->cost_int *= m_per_unit;
        out->elev_int *= m_per_unit;
    }
    out->d = hypot(x1 - x0, y1 - y0) * m_per_unit;
    /* a piece that leaves the grid is blocked too */
    if (prm_cell_at(t, x0, y0) < 0 || prm_cell_at(t, x1, y1) < 0)
        out->blocked = 1;
}

void prm_piece_measure(const prm_terrain *t, double x0, double y0, double x1, double y1, prm_piece *out)
{
    piece_walk(t, x0, y0, x1, y1, measure_cell, out);
}

/* Stops the walk at the first NOGO cell (class 0 included). */
static int first_nogo(long i, double len, void *user)
{
    (void)len;
    return !prm_cell_go(user, i);
}

int prm_piece_blocked(const prm_terrain *t, double x0, double y0, double x1, double y1)
{
    /* blocked exactly when prm_piece_measure says so: off the grid at an
     * end, or a NOGO cell (corners included) on the same walk */
    return prm_cell_at(t, x0, y0) < 0 || prm_cell_at(t, x1, y1) < 0 ||
           prm_segment_walk(t->grid, x0, y0, x1, y1, first_nogo, (void *)t);
}

void prm_edge_measure(const prm_terrain *t, double x0, double y0, double x1, double y1, prm_piece *out)
{
    if (prm_piece_blocked(t, x0, y0, x1, y1)) {
        memset(out, 0, sizeof *out);
        out->blocked = 1;
        return;
    }
    prm_piece_measure(t, x0, y0, x1, y1, out);
}

void prm_piece_measure_classes(const prm_terrain *t, double x0, double y0, double x1, double y1, prm_piece *out)
{
    piece_walk(t, x0, y0, x1, y1, classes_cell, out);
}

void prm_weights_default(prm_weights *w)
{
    w->kb = 3.0;
    w->kh = 10.0;
    w->ks = 1.0;
    w->kd = 0.2;
}

const char *prm_strategy_name(prm_strategy s)
{
    static const char *const names[4] = {"mmcr", "mdr", "msr", "time"};
    return s >= 0 && s <= PRM_TIME ? names[s] : "?";
}

double prm_piece_weight(const prm_piece *p, prm_strategy s, const prm_weights *w)
{
    switch (s) {
    case PRM_MMCR: return w->kb * p->l + w->kh * p->h + w->ks * p->s + w->kd * p->d;
    case PRM_MDR: return p->d;
    case PRM_MSR: return p->slope_int + 1e-3 * p->d;
    case PRM_TIME: return p->time_s;
    }
    return INFINITY;
}
