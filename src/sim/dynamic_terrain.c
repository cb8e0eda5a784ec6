/*
 * The ground of the dynamic model (dynamic.h): the DEM's cell centres as
 * an ODE heightfield. ODE's heightfield lies in its local x-z plane with
 * heights along local y, centred on the geom's position, sample (i, j) at
 * local (i dx - W / 2, h, j dy - D / 2) with W = (nw - 1) dx, D = (nd -
 * 1) dy. Rotated +90 degrees about x, local (x, y, z) is world (x, -z, y):
 * heights go up and sample rows run south, as the raster's rows do; the
 * geom sits at the window's centre. Each cell is two triangles (not the
 * bilinear patch of sim_height: the same at the samples and along cell
 * edges).
 */
#include "dynamic.h"

#include <math.h>
#include <ode/ode.h>
#include <stdlib.h>

struct sim_dyn_terrain {
    dSpaceID space;
    const sim_field *f;
    double ox, oy;
    int i0, j0, nw, nd;         /* window: columns i0 .. i0 + nw - 1, rows j0 .. */
    double *h;
    dHeightfieldDataID data;
    dGeomID geom;
    void *tag;                  /* the geom's data */
};

static int clampi(int v, int lo, int hi) { return v < lo ? lo : v > hi ? hi : v; }

/* Build the window whose corner cell is (i0, j0). */
static trv_status build(trv_ctx *ctx, sim_dyn_terrain *t, int i0, int j0)
{
    const sim_field *f = t->f;
    t->i0 = i0, t->j0 = j0;
    double lo = INFINITY;
    for (int j = 0; j < t->nd; j++)
        for (int i = 0; i < t->nw; i++) {
            float z = f->z[(size_t)(j0 + j) * f->nx + i0 + i];
            int bad = isnan(z) || (f->has_nodata && z == f->nodata);
            t->h[(size_t)j * t->nw + i] = bad ? NAN : z;
            if (!bad && z < lo)
                lo = z;
        }
    if (!isfinite(lo))
        return trv_error(ctx, TRV_ERR_DATA, "dynamics: the DEM has no valid height around the vehicle");
    for (size_t k = 0; k < (size_t)t->nw * t->nd; k++)
        if (isnan(t->h[k]))
            t->h[k] = lo;
    if (t->geom)
        dGeomDestroy(t->geom);
    if (t->data)
        dGeomHeightfieldDataDestroy(t->data);
    t->data = dGeomHeightfieldDataCreate();
    double w = (t->nw - 1) * f->dx, d = (t->nd - 1) * f->dy;
    dGeomHeightfieldDataBuildDouble(t->data, t->h, 1, w, d, t->nw, t->nd, 1.0, 0.0, 10.0, 0);
    t->geom = dCreateHeightfield(t->space, t->data, 1);
    dGeomSetData(t->geom, t->tag);
    dMatrix3 R;
    dRFromAxisAndAngle(R, 1, 0, 0, M_PI / 2);
    dGeomSetRotation(t->geom, R);
    double cx = f->x0 + (i0 + 0.5 * (t->nw - 1)) * f->dx, cy = f->y0 - (j0 + 0.5 * (t->nd - 1)) * f->dy;
    dGeomSetPosition(t->geom, cx - t->ox, cy - t->oy, 0);
    return TRV_OK;
}

/* The corner of a window centred on (x, y). */
static void corner(const sim_dyn_terrain *t, double x, double y, int *i0, int *j0)
{
    const sim_field *f = t->f;
    int ci = (int)floor((x - f->x0) / f->dx), cj = (int)floor((f->y0 - y) / f->dy);
    *i0 = clampi(ci - t->nw / 2, 0, f->nx - t->nw);
    *j0 = clampi(cj - t->nd / 2, 0, f->ny - t->nd);
}

trv_status sim_dyn_terrain_new(trv_ctx *ctx, void *space, const sim_field *f, double ox, double oy, double x,
                               double y, void *tag, sim_dyn_terrain **out)
{
    *out = NULL;
    if (f->nx < 2 || f->ny < 2)
        return trv_error(ctx, TRV_ERR_DATA, "dynamics: the DEM needs at least 2 x 2 cells");
    sim_dyn_terrain *t = calloc(1, sizeof *t);
    if (!t)
        return trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
    t->space = (dSpaceID)space, t->f = f, t->ox = ox, t->oy = oy, t->tag = tag;
    t->nw = f->nx < SIM_DYN_WINDOW ? f->nx : SIM_DYN_WINDOW;
    t->nd = f->ny < SIM_DYN_WINDOW ? f->ny : SIM_DYN_WINDOW;
    t->h = malloc((size_t)t->nw * t->nd * sizeof *t->h);
    if (!t->h) {
        free(t);
        return trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
    }
    int i0, j0;
    corner(t, x, y, &i0, &j0);
    trv_status st = build(ctx, t, i0, j0);
    if (st) {
        sim_dyn_terrain_free(t);
        return st;
    }
    *out = t;
    return TRV_OK;
}

trv_status sim_dyn_terrain_follow(trv_ctx *ctx, sim_dyn_terrain *t, double x, double y)
{
    const sim_field *f = t->f;
    double ci = (x - f->x0) / f->dx - t->i0, cj = (f->y0 - y) / f->dy - t->j0;
    int qi = t->nw / 4, qj = t->nd / 4;
    int near_i = (ci < qi && t->i0 > 0) || (ci > t->nw - 1 - qi && t->i0 + t->nw < f->nx);
    int near_j = (cj < qj && t->j0 > 0) || (cj > t->nd - 1 - qj && t->j0 + t->nd < f->ny);
    if (!near_i && !near_j)
        return TRV_OK;
    int i0, j0;
    corner(t, x, y, &i0, &j0);
    return i0 == t->i0 && j0 == t->j0 ? TRV_OK : build(ctx, t, i0, j0);
}

void *sim_dyn_terrain_geom(const sim_dyn_terrain *t) { return t->geom; }

void sim_dyn_terrain_free(sim_dyn_terrain *t)
{
    if (!t)
        return;
    if (t->geom)
        dGeomDestroy(t->geom);
    if (t->data)
        dGeomHeightfieldDataDestroy(t->data);
    free(t->h);
    free(t);
}
