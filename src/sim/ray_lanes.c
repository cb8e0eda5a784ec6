/*
 * Several LiDAR rays marched at once in vector lanes (docs/method.md §5):
 * hit[k] = sim_ray_field(field, o[k], d[k], tmax[k]), bit for bit.
 *
 * Each lane is one ray's march (ray_patch.h): the same start, the same
 * accumulated steps ti += 1/|dc|, tj += 1/|dr|, the same patch test
 * (the ray's lowest z over the patch against the pyramid's level 0, the
 * patch's top corner or -inf when transparent) and the same patch solve
 * A s^2 + B s + C = 0 (both of sim_first_root's branches computed, each
 * lane keeping the one its scalar takes). GCC's vector extensions apply
 * the IEEE scalar operation lane by lane, and ISO C11 contracts nothing
 * into fused multiply-adds, so each lane computes the scalar's bits. Eight
 * rays per packet, the packet done when its last ray is; a lane whose ray
 * is done keeps stepping, its results dropped.
 *
 * Compiled for AVX-512 (F, DQ, VL: eight doubles, 64-bit integer lanes and
 * their conversions in registers) and used when the CPU has it; elsewhere,
 * where the generic vector code is slower than the scalar march, each ray
 * goes through sim_hmax_ray, which gives the same bits.
 */
#include "ray_patch.h"

#include <limits.h>
#include <math.h>

#if defined(__GNUC__) && defined(__x86_64__)
#define SIM_LANES 1
#endif

#ifdef SIM_LANES
#pragma GCC push_options
#pragma GCC target("avx512f,avx512dq,avx512vl")
/* static functions only: no ABI is exposed, whatever the vector width */
#pragma GCC diagnostic ignored "-Wpsabi"

#define NL 8
typedef double vd __attribute__((vector_size(8 * NL)));
typedef long long vl __attribute__((vector_size(8 * NL)));

/* m ? a : b, lane by lane (m: all ones or all zeros). */
static inline vd sel(vl m, vd a, vd b) { return (vd)((m & (vl)a) | (~m & (vl)b)); }
static inline vl seli(vl m, vl a, vl b) { return (m & a) | (~m & b); }
/* sim_dmin / sim_dmax lane by lane: a < b ? a : b, a > b ? a : b */
static inline vd vmin(vd a, vd b) { return sel(a < b, a, b); }
static inline int any(vl m)
{
    long long a = 0;
    for (int k = 0; k < NL; k++)
        a |= m[k];
    return a != 0;
}
static inline vd bc(double x) { return (vd){0} + x; }
static inline vl bci(long long x) { return (vl){0} + x; }

/* sim_first_root lane by lane: both branches computed, each lane keeping
 * the one its scalar would take (the same operations on the same values). */
static inline vd lanes_first_root(vd A, vd B, vd C, vd len)
{
    const vd inf = bc(INFINITY), zero = bc(0);
    vd sl = -C / B; /* A == 0 */
    vd lin = sel((B < zero) & (sl <= len), sl, inf);
    vd disc = B * B - 4.0 * A * C;
    vl real = disc >= zero; /* NaN: no root, as in the scalar */
    vd dq = sel(real, disc, zero); /* no square root of a negative: no errno call */
    vd sq;
    for (int k = 0; k < NL; k++)
        sq[k] = sqrt(dq[k]);
    vl sign = (vl)B & bci(LLONG_MIN);
    vd q = -0.5 * (B + (vd)(((vl)sq & ~bci(LLONG_MIN)) | sign));
    vd r1 = q / A, r2 = sel(q != zero, C / q, inf);
    vd best = sel((r1 >= zero) & (r1 <= len), r1, inf);
    best = sel((r2 >= zero) & (r2 <= len) & (r2 < best), r2, best);
    return sel(A == zero, lin, sel(real, best, inf));
}

/* The lanes' march states, each lane one ray (sim_march's fields). */
typedef struct lanes {
    vd c0, r0, dc, dr, tb, di, dj, ti, tj, t, oz, dz;
    vl i, j, si, sj, on; /* on: the lane marches a ray */
} lanes;

static inline vd vmax(vd a, vd b) { return sel(a > b, a, b); }
static inline vd vfabs(vd a) { return (vd)((vl)a & ~bci(LLONG_MIN)); }

/* sim_inside lane by lane. */
static inline vl lanes_inside(vd c0, vd dc, vd tmax, int n)
{
    vd ce = c0 + dc * tmax;
    return (c0 > -0.5) & (c0 < bc(n - 0.5)) & (ce > bc(-0.5 + 1e-6)) & (ce < bc(n - 0.5 - 1e-6));
}

/* sim_clip's work on one axis, lane by lane: [ta, tb] narrowed, ok cleared
 * where the ray misses. */
static inline void lanes_clip(vd c0, vd dc, int n, vd *ta, vd *tb, vl *ok)
{
    const vd zero = bc(0);
    vl flat = dc == zero;
    *ok &= ~(flat & ((c0 < -0.5) | (c0 > bc(n - 0.5))));
    vd t1 = (-0.5 - c0) / dc, t2 = (bc(n - 0.5) - c0) / dc;
    *ta = sel(flat, *ta, vmax(*ta, vmin(t1, t2)));
    *tb = sel(flat, *tb, vmin(*tb, vmax(t1, t2)));
}

/* sim_march_start for rays k0 .. k0 + NL - 1 (< n) in the lanes, lane by lane;
 * a lane whose ray misses the grid (or is beyond n) is off. */
static void lanes_start(const sim_field *f, const double (*o)[3], const double (*d)[3], const double *tmax, int k0,
                        int n, lanes *s)
{
    const vd zero = bc(0), inf = bc(INFINITY);
    vd ox, oy, dx, dy, tm;
    vl on;
    for (int k = 0; k < NL; k++) {
        int r = k0 + k < n ? k0 + k : k0;
        ox[k] = o[r][0], oy[k] = o[r][1], s->oz[k] = o[r][2];
        dx[k] = d[r][0], dy[k] = d[r][1], s->dz[k] = d[r][2], tm[k] = tmax[r];
        on[k] = k0 + k < n ? -1 : 0;
    }
    on &= tm >= zero;
    vd c0 = (ox - f->x0) / f->dx, r0 = (f->y0 - oy) / f->dy, dc = dx / f->dx, dr = -dy / f->dy;
    vl in = lanes_inside(c0, dc, tm, f->nx) & lanes_inside(r0, dr, tm, f->ny), ok = ~in;
    vd ta = zero, tb = tm;
    if (any(~in)) {
        lanes_clip(c0, dc, f->nx, &ta, &tb, &ok);
        lanes_clip(r0, dr, f->ny, &ta, &tb, &ok);
        ok &= ta <= tb;
        ta = sel(in, zero, ta), tb = sel(in, tm, tb);
    }
    on &= in | ok;
    vd x = sel(on, c0 + dc * ta, zero), y = sel(on, r0 + dr * ta, zero);
    vl i = __builtin_convertvector(x, vl), j = __builtin_convertvector(y, vl); /* sim_floori */
    i += __builtin_convertvector(i, vd) > x; /* true is -1: one down */
    j += __builtin_convertvector(j, vd) > y;
    i = seli(i < -1, bci(-1), seli(i > f->nx - 1, i - i + (f->nx - 1), i));
    j = seli(j < -1, bci(-1), seli(j > f->ny - 1, j - j + (f->ny - 1), j));
    vl up = dc > zero, down = dr > zero;
    vd ti = (__builtin_convertvector(i - up, vd) - c0) / dc, tj = (__builtin_convertvector(j - down, vd) - r0) / dr;
    *s = (lanes){.c0 = c0, .r0 = r0, .dc = dc, .dr = dr, .tb = tb, .t = ta, .oz = s->oz, .dz = s->dz, .i = i, .j = j,
                 .si = seli(up, bci(1), bci(-1)), .sj = seli(down, bci(1), bci(-1)), .di = 1.0 / vfabs(dc),
                 .dj = 1.0 / vfabs(dr), .ti = sel(dc != zero, ti, inf), .tj = sel(dr != zero, tj, inf), .on = on};
}

/* The patch test of the lanes in need (sim_patch_hit lane by lane): the
 * hit t, or INFINITY. */
static vd lanes_patch_hit(const sim_field *f, vl ci, vl cj, const lanes *s, vd tn)
{
    const vd zero = bc(0), inf = bc(INFINITY);
    vd z00 = zero, f10 = zero, f01 = zero, f11 = zero;
    for (int k = 0; k < NL; k++) { /* every lane (ci, cj: clamped to the grid): no branch */
        sim_march m = {.i = (int)ci[k], .j = (int)cj[k]};
        float c[4];
        sim_patch_corners(f, &m, c);
        z00[k] = c[0], f10[k] = c[1], f01[k] = c[2], f11[k] = c[3];
    }
    vd bx = f10 - z00, by = f01 - z00, e = z00 - f10 - f01 + f11;
    vd u0 = s->c0 + s->dc * s->t - __builtin_convertvector(s->i, vd);
    vd w0 = s->r0 + s->dr * s->t - __builtin_convertvector(s->j, vd);
    vd C = s->oz + s->dz * s->t - (z00 + bx * u0 + by * w0 + e * u0 * w0);
    vd B = s->dz - (bx * s->dc + by * s->dr + e * (u0 * s->dr + w0 * s->dc));
    vd A = -e * s->dc * s->dr;
    vd sr = lanes_first_root(A, B, C, tn - s->t);
    return sel(C <= zero, s->t, sel(sr < inf, s->t + sr, inf));
}

/* The rays in packets of NL, each packet marched until its last ray is done. */
static void lanes_march(const sim_hmax *hm, int n, const double (*o)[3], const double (*d)[3], const double *tmax,
                        double *hit)
{
    int w0;
    const float *l0 = sim_hmax_top(hm, &w0);
    const sim_field *f = sim_hmax_field(hm);
    const vd inf = bc(INFINITY), zero = bc(0);
    for (int k0 = 0; k0 < n; k0 += NL) {
        lanes s;
        lanes_start(f, o, d, tmax, k0, n, &s);
        vd res = inf;
        while (any(s.on)) {
            vd tn = vmin(vmin(s.ti, s.tj), s.tb);
            vd rz = s.oz + s.dz * sel(s.dz < zero, tn, s.t); /* the ray's lowest z over the patch */
            /* nothing here waits for the last patch's solve (a lane's own
             * on/off): the lanes' steps are independent of it, so the solves
             * of successive patches overlap; an off lane's patch, clamped
             * to the grid, is tested but its result dropped */
            vl ci = seli(s.i < -1, s.i - s.i - 1, seli(s.i > f->nx - 1, s.i - s.i + (f->nx - 1), s.i));
            vl cj = seli(s.j < -1, s.j - s.j - 1, seli(s.j > f->ny - 1, s.j - s.j + (f->ny - 1), s.j));
            vl ix = (cj + 1) * w0 + (ci + 1);
            vd top;
            for (int k = 0; k < NL; k++)
                top[k] = l0[ix[k]];
            vl need = rz <= top, done = bci(0);
            if (any(need)) {
                vd h = lanes_patch_hit(f, ci, cj, &s, tn);
                done = s.on & need & (h < inf);
                res = sel(done, h, res);
            }
            done |= tn >= s.tb;
            vl go = s.on & ~done, m = s.ti < s.tj; /* the step: a column where ti < tj, else a row */
            s.t = sel(m, s.ti, s.tj);
            s.i = s.i + (m & s.si), s.j = s.j + (~m & s.sj);
            s.ti = sel(m, s.ti + s.di, s.ti), s.tj = sel(m, s.tj, s.tj + s.dj);
            vl out = (s.i < -1) | (s.i > f->nx - 1) | (s.j < -1) | (s.j > f->ny - 1);
            s.on = go & ~out;
        }
        for (int k = 0; k < NL && k0 + k < n; k++)
            hit[k0 + k] = res[k];
    }
}
#pragma GCC pop_options
#endif

int sim_hmax_lanes(void)
{
#ifdef SIM_LANES
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq") &&
           __builtin_cpu_supports("avx512vl");
#else
    return 0;
#endif
}

void sim_hmax_rays(const sim_hmax *hm, int n, const double (*o)[3], const double (*d)[3], const double *tmax,
                   double *hit)
{
#ifdef SIM_LANES
    if (sim_hmax_lanes()) {
        lanes_march(hm, n, o, d, tmax, hit);
        return;
    }
#endif
    for (int k = 0; k < n; k++)
        hit[k] = sim_hmax_ray(hm, o[k], d[k], tmax[k]);
}
