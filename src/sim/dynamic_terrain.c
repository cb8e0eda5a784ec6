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
            int bad = geo_f32_is_nodata(z, f->has_nodata, f->nodata);
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

static double dot3(const double a[3], const double b[3]) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }

/* q = a + u (b - a) + v (c - a) */
static void bary(const double a[3], const double b[3], const double c[3], double u, double v, double q[3])
{
    for (int k = 0; k < 3; k++)
        q[k] = a[k] + u * (b[k] - a[k]) + v * (c[k] - a[k]);
}

/* The point of triangle abc nearest p: the Voronoi regions of its
 * vertices, edges and face in turn (Ericson 2005, Real-Time Collision
 * Detection, 5.1.5). */
static void nearest_on_triangle(const double p[3], const double a[3], const double b[3], const double c[3],
                                double q[3])
{
    double ab[3], ac[3], ap[3], bp[3], cp[3];
    for (int k = 0; k < 3; k++)
        ab[k] = b[k] - a[k], ac[k] = c[k] - a[k], ap[k] = p[k] - a[k], bp[k] = p[k] - b[k], cp[k] = p[k] - c[k];
    double d1 = dot3(ab, ap), d2 = dot3(ac, ap), d3 = dot3(ab, bp), d4 = dot3(ac, bp);
    double d5 = dot3(ab, cp), d6 = dot3(ac, cp);
    double va = d3 * d6 - d5 * d4, vb = d5 * d2 - d1 * d6, vc = d1 * d4 - d3 * d2;
    if (d1 <= 0 && d2 <= 0)
        bary(a, b, c, 0, 0, q);
    else if (d3 >= 0 && d4 <= d3)
        bary(a, b, c, 1, 0, q);
    else if (d6 >= 0 && d5 <= d6)
        bary(a, b, c, 0, 1, q);
    else if (vc <= 0 && d1 >= 0 && d3 <= 0)
        bary(a, b, c, d1 / (d1 - d3), 0, q);
    else if (vb <= 0 && d2 >= 0 && d6 <= 0)
        bary(a, b, c, 0, d2 / (d2 - d6), q);
    else if (va <= 0 && d4 - d3 >= 0 && d5 - d6 >= 0) {
        double w = (d4 - d3) / ((d4 - d3) + (d5 - d6));
        bary(a, b, c, 1 - w, w, q);
    } else {
        double s = 1 / (va + vb + vc);
        bary(a, b, c, vb * s, vc * s, q);
    }
}

/* Sample (i, j) of the window in the world frame. */
static void vertex(const sim_dyn_terrain *t, int i, int j, double v[3])
{
    const sim_field *f = t->f;
    v[0] = f->x0 + (t->i0 + i) * f->dx - t->ox;
    v[1] = f->y0 - (t->j0 + j) * f->dy - t->oy;
    v[2] = t->h[(size_t)j * t->nw + i];
}

/* The upward unit normal of triangle abc. */
static void up_normal(const double a[3], const double b[3], const double c[3], double n[3])
{
    double u[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]}, w[3] = {c[0] - a[0], c[1] - a[1], c[2] - a[2]};
    n[0] = u[1] * w[2] - u[2] * w[1], n[1] = u[2] * w[0] - u[0] * w[2], n[2] = u[0] * w[1] - u[1] * w[0];
    double l = sqrt(dot3(n, n)) * (n[2] < 0 ? -1 : 1);
    for (int k = 0; k < 3; k++)
        n[k] /= l;
}

/* The surface's triangle under map (x, y) of the window's cell (i, j)
 * (cell coordinates col, row): ODE's A B C above the diagonal B-C, D B C
 * below it. */
static void triangle_at(const sim_dyn_terrain *t, double col, double row, double tri[3][3])
{
    int i = (int)floor(col), j = (int)floor(row);
    if ((col - i) + (row - j) <= 1)
        vertex(t, i, j, tri[0]);
    else
        vertex(t, i + 1, j + 1, tri[0]);
    vertex(t, i + 1, j, tri[1]), vertex(t, i, j + 1, tri[2]);
}

int sim_dyn_terrain_sphere(const sim_dyn_terrain *t, const double c[3], double r, double pos[3], double n[3],
                           double *depth)
{
    const sim_field *f = t->f;
    double col = (c[0] + t->ox - f->x0) / f->dx - t->i0, row = (f->y0 - c[1] - t->oy) / f->dy - t->j0;
    if (!(col >= 0 && row >= 0 && col < t->nw - 1 && row < t->nd - 1))
        return 0;
    double tri[3][3], up[3];
    triangle_at(t, col, row, tri);
    up_normal(tri[0], tri[1], tri[2], up);
    double below = (tri[0][0] - c[0]) * up[0] + (tri[0][1] - c[1]) * up[1] + (tri[0][2] - c[2]) * up[2];
    if (below >= 0) { /* the centre under the face: out along its normal */
        for (int k = 0; k < 3; k++)
            n[k] = up[k], pos[k] = c[k] - r * up[k];
        *depth = r + below;
        return 1;
    }
    int ia = clampi((int)floor(col - r / f->dx), 0, t->nw - 2), ib = clampi((int)floor(col + r / f->dx), 0, t->nw - 2);
    int ja = clampi((int)floor(row - r / f->dy), 0, t->nd - 2), jb = clampi((int)floor(row + r / f->dy), 0, t->nd - 2);
    double best = r;
    for (int j = ja; j <= jb; j++)
        for (int i = ia; i <= ib; i++) {
            double A[3], B[3], C[3], D[3];
            vertex(t, i, j, A), vertex(t, i + 1, j, B), vertex(t, i, j + 1, C), vertex(t, i + 1, j + 1, D);
            const double *tr[2][3] = {{A, B, C}, {D, B, C}};
            for (int k = 0; k < 2; k++) {
                double q[3];
                nearest_on_triangle(c, tr[k][0], tr[k][1], tr[k][2], q);
                double dq[3] = {c[0] - q[0], c[1] - q[1], c[2] - q[2]}, dist = sqrt(dot3(dq, dq));
                if (dist < best && dist > 1e-12) {
                    best = dist;
                    for (int m = 0; m < 3; m++)
                        n[m] = dq[m] / dist;
                }
            }
        }
    if (!(best < r))
        return 0;
    for (int k = 0; k < 3; k++)
        pos[k] = c[k] - r * n[k];
    *depth = r - best;
    return 1;
}
