/*
 * The cell-by-cell heightfield march shared by sim_ray_field (geometry.c,
 * the plain march) and sim_hmax_ray (heightmax.c, the same march skipping
 * blocks of the max-height pyramid): one code for the march's start, its
 * step and the exact test of one bilinear patch, so both give bit-identical
 * hits.
 *
 * In cell coordinates along the ray, col = c0 + dc t, row = r0 + dr t
 * (Amanatides & Woo 1987). Patch (i, j) spans col [i, i+1], row [j, j+1],
 * i in -1 .. nx-1, j in -1 .. ny-1 (the border patches clamp their outer
 * corners to the edge cells). ti, tj: the t of the next column and row
 * boundary, accumulated by di = 1/|dc|, dj = 1/|dr| per step.
 */
#ifndef SIM_RAY_PATCH_H
#define SIM_RAY_PATCH_H

#include "sim.h"

#include <math.h>

typedef struct sim_march {
    double c0, r0, dc, dr; /* cell coordinates of the origin, per unit t */
    double ta, tb;         /* the ray clipped to the grid's extent [-0.5, n - 0.5] and [0, tmax] */
    double di, dj, ti, tj;
    int i, j, si, sj;      /* the patch, the steps */
} sim_march;

static inline int sim_clampi(int v, int lo, int hi) { return v < lo ? lo : v > hi ? hi : v; }
/* plain comparisons: libm's fmin/fmax are calls, and no NaN reaches these */
static inline double sim_dmin(double a, double b) { return a < b ? a : b; }
static inline double sim_dmax(double a, double b) { return a > b ? a : b; }

/* The march's start (patch at t = ta); 0 if the ray misses the grid's
 * extent within [0, tmax] (or the field is empty). */
/* Two lanes: the column and the row quantities divide together (IEEE
 * division per lane, so each is the scalar quotient). */
typedef double sim_v2 __attribute__((vector_size(16)));

/* floor(x) as an int for |x| < 2^31 (truncation, then down for x < 0). */
static inline int sim_floori(double x)
{
    int k = (int)x;
    return k > x ? k - 1 : k;
}

/* 1 if both c0 and c0 + dc tmax lie inside (-0.5, n - 0.5) by 1e-6 cells:
 * the grid then leaves [0, tmax] as it is (the clip's quotients, whose
 * rounding is far below that margin, would give ta = 0 and tb = tmax). */
static inline int sim_inside(double c0, double dc, double tmax, int n)
{
    double ce = c0 + dc * tmax;
    return c0 > -0.5 && c0 < n - 0.5 && ce > -0.5 + 1e-6 && ce < n - 0.5 - 1e-6;
}

/* [ta, tb]: [0, tmax] clipped to the grid's extent [-0.5, n - 0.5] on
 * both axes; 0 if nothing is left. */
static inline int sim_clip(const sim_field *f, double c0, double r0, double dc, double dr, double *ta, double *tb)
{
    const int nx = f->nx, ny = f->ny;
    if (dc == 0) {
        if (c0 < -0.5 || c0 > nx - 0.5)
            return 0;
    } else {
        double t1 = (-0.5 - c0) / dc, t2 = (nx - 0.5 - c0) / dc;
        *ta = sim_dmax(*ta, sim_dmin(t1, t2));
        *tb = sim_dmin(*tb, sim_dmax(t1, t2));
    }
    if (dr == 0) {
        if (r0 < -0.5 || r0 > ny - 0.5)
            return 0;
    } else {
        double t1 = (-0.5 - r0) / dr, t2 = (ny - 0.5 - r0) / dr;
        *ta = sim_dmax(*ta, sim_dmin(t1, t2));
        *tb = sim_dmin(*tb, sim_dmax(t1, t2));
    }
    return *ta <= *tb;
}

/* The march's start (patch at t = ta); 0 if the ray misses the grid's
 * extent within [0, tmax] (or the field is empty). */
static inline int sim_march_start(const sim_field *f, const double o[3], const double d[3], double tmax,
                                  sim_march *m)
{
    const int nx = f->nx, ny = f->ny;
    if (!f->z || nx < 1 || ny < 1 || !(tmax >= 0))
        return 0;
    sim_v2 cr = ((sim_v2){o[0], f->y0} - (sim_v2){f->x0, o[1]}) / (sim_v2){f->dx, f->dy};
    sim_v2 dcr = (sim_v2){d[0], -d[1]} / (sim_v2){f->dx, f->dy};
    const double c0 = cr[0], r0 = cr[1], dc = dcr[0], dr = dcr[1];
    double ta = 0, tb = tmax;
    if (!(sim_inside(c0, dc, tmax, nx) && sim_inside(r0, dr, tmax, ny)) && !sim_clip(f, c0, r0, dc, dr, &ta, &tb))
        return 0;
    int i = sim_clampi(sim_floori(c0 + dc * ta), -1, nx - 1), j = sim_clampi(sim_floori(r0 + dr * ta), -1, ny - 1);
    sim_v2 dij = (sim_v2){1.0, 1.0} / (sim_v2){fabs(dc), fabs(dr)}; /* 1 / 0 = inf */
    sim_v2 tij = (sim_v2){(double)(dc > 0 ? i + 1 : i) - c0, (double)(dr > 0 ? j + 1 : j) - r0} / dcr;
    *m = (sim_march){.c0 = c0, .r0 = r0, .dc = dc, .dr = dr, .ta = ta, .tb = tb, .i = i, .j = j,
                     .si = dc > 0 ? 1 : -1, .sj = dr > 0 ? 1 : -1, .di = dij[0], .dj = dij[1],
                     .ti = dc != 0 ? tij[0] : INFINITY, .tj = dr != 0 ? tij[1] : INFINITY};
    return 1;
}

/* One step to the next patch, *t its entry; 0 when it leaves the grid. */
static inline int sim_march_step(const sim_field *f, sim_march *m, double *t)
{
    if (m->ti < m->tj) {
        m->i += m->si;
        *t = m->ti;
        m->ti += m->di;
    } else {
        m->j += m->sj;
        *t = m->tj;
        m->tj += m->dj;
    }
    return !(m->i < -1 || m->i > f->nx - 1 || m->j < -1 || m->j > f->ny - 1);
}

/* Smallest s in [0, len] with A s^2 + B s + C = 0, C > 0 (the ray starts
 * above the patch); INFINITY if none. */
static inline double sim_first_root(double A, double B, double C, double len)
{
    if (A == 0) {
        if (B >= 0)
            return INFINITY;
        double s = -C / B;
        return s <= len ? s : INFINITY;
    }
    double disc = B * B - 4.0 * A * C;
    if (disc < 0)
        return INFINITY;
    double q = -0.5 * (B + copysign(sqrt(disc), B));
    sim_v2 r = (sim_v2){q, C} / (sim_v2){A, q}; /* the roots q / A and C / q */
    double r1 = r[0], r2 = q != 0 ? r[1] : INFINITY, best = INFINITY;
    if (r1 >= 0 && r1 <= len)
        best = r1;
    if (r2 >= 0 && r2 <= len && r2 < best)
        best = r2;
    return best;
}

/* The ray against patch (m->i, m->j) with corners f00 (i, j), f10 (i+1, j),
 * f01 (i, j+1), f11, entered at t and left at tn: along the ray u and w
 * are linear in t, so ray z - h(u, w) = A s^2 + B s + C (s = t' - t);
 * the hit t' or INFINITY. */
static inline double sim_patch_hit(const sim_march *m, const double o[3], const double d[3], float f00, float f10,
                                   float f01, float f11, double t, double tn)
{
    const double dc = m->dc, dr = m->dr;
    double z00 = f00, bx = (double)f10 - z00, by = (double)f01 - z00, e = z00 - f10 - f01 + (double)f11;
    double u0 = m->c0 + dc * t - m->i, w0 = m->r0 + dr * t - m->j;
    /* clamped border patches: the clamped corner makes the patch flat
     * across the border, so u0/w0 beyond [0, 1] are harmless */
    double C = o[2] + d[2] * t - (z00 + bx * u0 + by * w0 + e * u0 * w0);
    if (C <= 0)
        return t;
    double B = d[2] - (bx * dc + by * dr + e * (u0 * dr + w0 * dc));
    double A = -e * dc * dr;
    double s = sim_first_root(A, B, C, tn - t);
    return s < INFINITY ? t + s : INFINITY;
}

/* The four corners of patch (m->i, m->j) (clamped to the grid). */
static inline void sim_patch_corners(const sim_field *f, const sim_march *m, float c[4])
{
    const int nx = f->nx, ny = f->ny;
    if ((unsigned)m->i < (unsigned)(nx - 1) && (unsigned)m->j < (unsigned)(ny - 1)) { /* inside: no clamping */
        const float *ra = f->z + (size_t)m->j * nx + m->i;
        c[0] = ra[0], c[1] = ra[1], c[2] = ra[nx], c[3] = ra[nx + 1];
        return;
    }
    int ia = sim_clampi(m->i, 0, nx - 1), ib = sim_clampi(m->i + 1, 0, nx - 1);
    int ja = sim_clampi(m->j, 0, ny - 1), jb = sim_clampi(m->j + 1, 0, ny - 1);
    const float *ra = f->z + (size_t)ja * nx, *rb = f->z + (size_t)jb * nx;
    c[0] = ra[ia], c[1] = ra[ib], c[2] = rb[ia], c[3] = rb[ib];
}

/* 1 if the patch is transparent: a corner on nodata, or NaN among them
 * (or +inf with -inf). */
static inline int sim_patch_transparent(const sim_field *f, const float c[4])
{
    return (f->has_nodata && (c[0] == f->nodata || c[1] == f->nodata || c[2] == f->nodata || c[3] == f->nodata)) ||
           isnan(c[0] + c[1] + c[2] + c[3]);
}

/* The pyramid's field, and its level 0 (w entries a row: patch (i, j) at
 * (j + 1) w + i + 1) for ray_lanes.c. */
const sim_field *sim_hmax_field(const sim_hmax *m);
const float *sim_hmax_top(const sim_hmax *m, int *w);

/* The patch's highest corner (as a double). */
static inline double sim_patch_top(const float c[4]) { return sim_dmax(sim_dmax(c[0], c[1]), sim_dmax(c[2], c[3])); }

#endif
