/* The simulator's physics against closed forms: the kinematic models
 * (circle radius L / tan delta, skid yaw rate, Mecanum sideways motion and
 * round trip), the exact lag, the bilinear ground on a plane, rays against
 * planes, prisms and a bumpy field (brute force), box overlaps, the path
 * followers on a line and a circle, LiDAR ranges over a plane with and
 * without noise and against a box, obstacles in time, and the vehicle
 * file's [body] section. */
#include "test_common.h"

#include <math.h>

#include "sim/sim.h"


#define DEG (M_PI / 180.0)

/* The UGV of data/vehicles/ugv_hua2022.ini as a body. */
static sim_body ugv_body(sim_kind kind)
{
    sim_body b = {0};
    b.kind = kind;
    b.wheelbase_m = 1.9;
    b.track_m = 1.6;
    b.length_m = 3.0;
    b.width_m = 2.0;
    b.height_m = 1.5;
    b.wheel_radius_m = 0.51;
    b.max_steer_rad = 30 * DEG;
    b.tau_speed_s = 0.5;
    b.tau_steer_s = 0.2;
    b.slip = 0.8;
    b.top_speed_ms = 40 / 3.6;
    b.max_pitch_rad = 30 * DEG;
    b.max_roll_rad = 25 * DEG;
    b.step_m = 0.225;
    b.mass_kg = 1242;
    return b;
}

static double circumradius(double x1, double y1, double x2, double y2, double x3, double y3)
{
    double a = hypot(x2 - x1, y2 - y1), b = hypot(x3 - x2, y3 - y2), c = hypot(x1 - x3, y1 - y3);
    double area2 = fabs((x2 - x1) * (y3 - y1) - (x3 - x1) * (y2 - y1)); /* twice the area */
    return a * b * c / (2.0 * area2);
}

/* ---- models ------------------------------------------------------------------ */

static void test_ackermann(void **state)
{
    (void)state;
    sim_body b = ugv_body(SIM_ACKERMANN);
    const double delta = 0.3, v = 3.0, dt = 0.01;
    sim_state s = {0};
    sim_cmd c = {.v = v, .steer = delta};
    /* 20 s = 40 tau_speed: the lag's residual e^-40 ~ 4e-18 is below rounding */
    for (int k = 0; k < 2000; k++)
        sim_step(&b, &s, &c, dt);
    double p[3][2];
    for (int q = 0; q < 3; q++) {
        p[q][0] = s.x;
        p[q][1] = s.y;
        for (int k = 0; k < 50; k++)
            sim_step(&b, &s, &c, dt);
    }
    double want = b.wheelbase_m / tan(delta), got = circumradius(p[0][0], p[0][1], p[1][0], p[1][1], p[2][0], p[2][1]);
    printf("  ackermann: radius %.9f m, L / tan(delta) %.9f m, relative difference %.3g\n", got, want,
           fabs(got - want) / want);
    /* 1e-6 relative (the brief's bound): the arc integration is exact, so
     * only rounding over 2150 steps remains */
    assert_true(fabs(got - want) <= 1e-6 * want);
    assert_true(fabs(s.yaw_rate - v * tan(delta) / b.wheelbase_m) <= 1e-12);
    /* a steering command beyond the limit is clamped */
    c.steer = 1.0;
    for (int k = 0; k < 2000; k++)
        sim_step(&b, &s, &c, dt);
    assert_true(fabs(s.steer - b.max_steer_rad) <= 1e-12);

    /* straight at delta = 0: y and heading stay exactly 0 */
    sim_state l = {0};
    sim_cmd cl = {.v = v};
    for (int k = 0; k < 1000; k++)
        sim_step(&b, &l, &cl, dt);
    assert_true(l.y == 0 && l.heading == 0);
    /* x is the sum of the lagged speeds held over each step: bounded by
     * the exact integral v (T - tau (1 - e^(-T/tau))) and that plus v dt */
    double T = 10, integral = v * (T - b.tau_speed_s * (1 - exp(-T / b.tau_speed_s)));
    assert_true(l.x >= integral && l.x <= integral + v * dt);
}

/* The step is the exact arc: with no lag, v and omega constant, a start at
 * heading theta0 ends at x = (v/omega)(sin(theta0 + omega T) - sin theta0),
 * y = (v/omega)(cos theta0 - cos(theta0 + omega T)), heading theta0 + omega T,
 * whether T is taken in one step or in four (docs/method.md §5.2). The
 * circle test above cannot see a chord turned by a constant angle (the
 * polygon stays on a circle of the same radius); this one can. */
static void test_arc_exact(void **state)
{
    (void)state;
    sim_body b = ugv_body(SIM_ACKERMANN);
    b.tau_speed_s = b.tau_steer_s = 0;
    const double v = 3.0, delta = 0.3, th0 = 0.4, T = 2.0;
    const double w = v * tan(delta) / b.wheelbase_m, R = v / w;
    const double wx = R * (sin(th0 + w * T) - sin(th0)), wy = R * (cos(th0) - cos(th0 + w * T));
    for (int n = 1; n <= 4; n *= 4) {
        sim_state s = {.heading = th0, .v = v, .steer = delta};
        sim_cmd c = {.v = v, .steer = delta};
        for (int k = 0; k < n; k++)
            sim_step(&b, &s, &c, T / n);
        printf("  arc in %d step(s): (%.12f, %.12f) against (%.12f, %.12f)\n", n, s.x, s.y, wx, wy);
        assert_true(fabs(s.x - wx) <= 1e-12 && fabs(s.y - wy) <= 1e-12); /* rounding only */
        assert_true(fabs(remainder(s.heading - th0 - w * T, 2 * M_PI)) <= 1e-12);
    }
}

/* The models' names, as the scenario's `model` key spells them (written
 * to vehicles.json and the control protocol's hello). */
static void test_kind_names(void **state)
{
    (void)state;
    assert_string_equal(sim_kind_name(SIM_ACKERMANN), "ackermann");
    assert_string_equal(sim_kind_name(SIM_SKID), "skid");
    assert_string_equal(sim_kind_name(SIM_MECANUM), "mecanum");
}

static void test_skid_and_mecanum(void **state)
{
    (void)state;
    sim_body b = ugv_body(SIM_SKID);
    sim_state s = {0};
    sim_cmd c = {.v = 0, .yaw_rate = 0.5};
    for (int k = 0; k < 1000; k++) /* 10 s = 50 tau_steer: settled */
        sim_step(&b, &s, &c, 0.01);
    assert_true(fabs(s.yaw_rate - 0.8 * 0.5) <= 1e-12); /* slip x command */
    double h0 = s.heading;
    for (int k = 0; k < 100; k++)
        sim_step(&b, &s, &c, 0.01);
    assert_true(fabs(remainder(s.heading - h0 - 0.4, 2 * M_PI)) <= 1e-12); /* 1 s at 0.4 rad/s */
    assert_true(fabs(s.x) < 1e-12 && fabs(s.y) < 1e-12);                 /* turning on the spot */

    /* Mecanum sideways: vx = 0, vy = 1 moves the body along its y only */
    sim_body m = ugv_body(SIM_MECANUM);
    sim_state ms = {.heading = 0.7};
    sim_cmd mc = {.v = 0, .vy = 1, .yaw_rate = 0};
    for (int k = 0; k < 500; k++)
        sim_step(&m, &ms, &mc, 0.01);
    assert_true(ms.heading == 0.7 && ms.yaw_rate == 0);
    double along = ms.x * cos(0.7) + ms.y * sin(0.7), across = -ms.x * sin(0.7) + ms.y * cos(0.7);
    assert_true(fabs(along) < 1e-12);
    double T = 5, integral = T - m.tau_speed_s * (1 - exp(-T / m.tau_speed_s));
    assert_true(across >= integral && across <= integral + 0.01); /* as the straight line above */

    /* wheel speeds for sideways motion: FL -, FR +, RL +, RR - (X rollers) */
    double w[4];
    sim_mecanum_inverse(&m, 0, 1, 0, w);
    assert_true(w[0] < 0 && w[1] > 0 && w[2] > 0 && w[3] < 0);
    for (int k = 0; k < 4; k++)
        assert_true(fabs(fabs(w[k]) - 1 / m.wheel_radius_m) < 1e-12);
    /* inverse then forward returns the body velocity (1e-12: a few roundings
     * of numbers near 1) */
    double vx, vy, om;
    sim_mecanum_inverse(&m, 1.3, -0.4, 0.25, w);
    sim_mecanum_forward(&m, w, &vx, &vy, &om);
    assert_true(fabs(vx - 1.3) < 1e-12 && fabs(vy + 0.4) < 1e-12 && fabs(om - 0.25) < 1e-12);
    /* pure rotation: the left wheels back, the right ones forward */
    sim_mecanum_inverse(&m, 0, 0, 1, w);
    assert_true(w[0] < 0 && w[1] > 0 && w[2] < 0 && w[3] > 0);
    assert_true(fabs(w[1] - (0.95 + 0.8) / 0.51) < 1e-12);
}

static void test_lag(void **state)
{
    (void)state;
    const double tau = 0.5;
    double at_tau[2];
    const double dts[2] = {0.001, 0.02};
    for (int q = 0; q < 2; q++) {
        double y = 0;
        int n = (int)lround(tau / dts[q]);
        for (int k = 0; k < n; k++)
            y = sim_lag(y, 1.0, tau, dts[q]);
        at_tau[q] = y;
        /* exact: the product of the per-step factors is e^-1; only rounding
         * over at most 500 steps remains (1e-13) */
        assert_true(fabs(y - (1 - exp(-1))) < 1e-13);
    }
    printf("  lag at tau: %.15f (dt 0.001), %.15f (dt 0.02), 1 - 1/e = %.15f\n", at_tau[0], at_tau[1], 1 - exp(-1));
    assert_true(fabs(at_tau[0] - at_tau[1]) < 1e-13);
    assert_true(sim_lag(0.3, 2.0, 0, 0.1) == 2.0); /* no lag */
    assert_true(sim_lag(0.3, 2.0, -1, 0.1) == 2.0);
}

/* ---- ground -------------------------------------------------------------------- */

/* z = A x + B y + C on 64 x 64 cells of 2 m: values exact in float, so the
 * bilinear surface is the plane to rounding. */
#define PA 0.25
#define PB 0.125
#define PC (-58.0)
static float plane_z[64 * 64];

static sim_field plane_field(void)
{
    sim_field f = {plane_z, 64, 64, 100.0, 200.0, 2.0, 2.0, 0, 0};
    for (int j = 0; j < 64; j++)
        for (int i = 0; i < 64; i++)
            plane_z[j * 64 + i] = (float)(PA * (100.0 + 2 * i) + PB * (200.0 - 2 * j) + PC);
    return f;
}

static void test_ground_plane(void **state)
{
    (void)state;
    sim_field f = plane_field();
    sim_body b = ugv_body(SIM_ACKERMANN);
    trv_rng r;
    trv_rng_seed(&r, 11);
    /* tolerances: the plane's values are exact in float, so only double
     * rounding of heights near 40 m (1e-10) and slopes near 0.3 (1e-12) */
    for (int k = 0; k < 500; k++) {
        /* inside the outer centres: x in [100, 226], y in [74, 200] */
        double x = 104 + 118 * trv_rng_uniform(&r), y = 78 + 118 * trv_rng_uniform(&r);
        assert_true(fabs(sim_height(&f, x, y) - (PA * x + PB * y + PC)) < 1e-10);
        double gx, gy;
        sim_gradient(&f, x, y, &gx, &gy);
        assert_true(fabs(gx - PA) < 1e-12 && fabs(gy - PB) < 1e-12);
        double th = 2 * M_PI * trv_rng_uniform(&r), z, pitch, roll;
        assert_int_equal(sim_contact(&f, &b, x, y, th, &z, &pitch, &roll), 0);
        /* directional slopes: along the heading and to its left */
        assert_true(fabs(z - (PA * x + PB * y + PC)) < 1e-10);
        assert_true(fabs(pitch - atan(PA * cos(th) + PB * sin(th))) < 1e-12);
        assert_true(fabs(roll - atan(-PA * sin(th) + PB * cos(th))) < 1e-12);
    }
    /* the half cell beyond the outer centres holds the edge; beyond it, NAN */
    assert_true(fabs(sim_height(&f, 99.2, 150) - sim_height(&f, 100, 150)) < 1e-12);
    assert_true(isnan(sim_height(&f, 98.9, 150)) && isnan(sim_height(&f, 150, 201.1)));
    double z, p, ro;
    assert_int_equal(sim_contact(&f, &b, 99.5, 150, 0, &z, &p, &ro), -1);
    /* nodata */
    plane_z[10 * 64 + 10] = -9999;
    f.has_nodata = 1;
    f.nodata = -9999;
    assert_true(isnan(sim_height(&f, 100 + 2 * 10.5, 200 - 2 * 10.5)));
}

/* ---- rays ----------------------------------------------------------------------- */

static void test_ray_plane(void **state)
{
    (void)state;
    sim_field f = plane_field();
    trv_rng r;
    trv_rng_seed(&r, 5);
    double o[3] = {164, 136, 20}, worst = 0;
    for (int k = 0; k < 2000; k++) {
        double az = 2 * M_PI * trv_rng_uniform(&r), dz = -0.6 - 0.4 * trv_rng_uniform(&r), h = sqrt(1 - dz * dz);
        double d[3] = {h * cos(az), h * sin(az), dz};
        double want = (PA * o[0] + PB * o[1] + PC - o[2]) / (d[2] - PA * d[0] - PB * d[1]);
        double got = sim_ray_field(&f, o, d, 200);
        worst = fmax(worst, fabs(got - want));
    }
    printf("  ray-plane: worst |t - t_analytic| %.3g m over 2000 rays\n", worst);
    assert_true(worst < 1e-9); /* the brief's bound; rounding leaves ~1e-13 */
    /* shorter than the hit, upward, from below */
    double d[3] = {0, 0, -1};
    assert_true(isinf(sim_ray_field(&f, o, d, 5)));
    double up[3] = {0.6, 0, 0.8};
    assert_true(isinf(sim_ray_field(&f, o, up, 500)));
    double under[3] = {164, 136, -30};
    assert_true(sim_ray_field(&f, under, up, 500) == 0);
    /* a level ray from outside the grid meets the rising plane where z = 10 */
    double far[3] = {50, 136, 10}, east[3] = {1, 0, 0};
    double want = (10 - PC - PB * 136) / PA; /* x = 204, inside the grid */
    assert_true(fabs(sim_ray_field(&f, far, east, 500) - (want - 50)) < 1e-9);
}

/* The first crossing along the ray by fine sampling and bisection of
 * sim_height (brute force for a curved field). */
static double ray_brute(const sim_field *f, const double o[3], const double d[3], double tmax)
{
    double step = 0.005, prev = 0;
    for (double t = 0; t <= tmax; t += step) {
        double h = sim_height(f, o[0] + t * d[0], o[1] + t * d[1]);
        if (!isnan(h) && o[2] + t * d[2] <= h) {
            if (t == 0)
                return 0;
            double lo = prev, hi = t;
            for (int k = 0; k < 60; k++) {
                double m = 0.5 * (lo + hi), hm = sim_height(f, o[0] + m * d[0], o[1] + m * d[1]);
                if (!isnan(hm) && o[2] + m * d[2] <= hm)
                    hi = m;
                else
                    lo = m;
            }
            return hi;
        }
        prev = t;
    }
    return INFINITY;
}

static void test_ray_bumpy(void **state)
{
    (void)state;
    enum { N = 24 };
    static float z[N * N];
    trv_rng r;
    trv_rng_seed(&r, 9);
    for (int k = 0; k < N * N; k++)
        z[k] = (float)(3 * trv_rng_uniform(&r));
    sim_field f = {z, N, N, 0.0, 0.0, 1.5, 1.0, 0, 0}; /* unequal cells, rows run south */
    int hits = 0;
    double worst = 0;
    for (int k = 0; k < 300; k++) {
        double o[3] = {-3 + 40 * trv_rng_uniform(&r), 3 - 30 * trv_rng_uniform(&r), 3.5 + trv_rng_uniform(&r)};
        double az = 2 * M_PI * trv_rng_uniform(&r), dz = -0.05 - 0.5 * trv_rng_uniform(&r), h = sqrt(1 - dz * dz);
        double d[3] = {h * cos(az), h * sin(az), dz};
        double got = sim_ray_field(&f, o, d, 40), want = ray_brute(&f, o, d, 40);
        /* the sampling step (5 mm) can step over a crossing thinner than
         * itself; such grazes are rare and show as a miss in the brute force */
        if (isinf(want)) {
            /* then the ray must be at the surface where it says it hits */
            if (!isinf(got))
                assert_true(fabs(o[2] + got * d[2] - sim_height(&f, o[0] + got * d[0], o[1] + got * d[1])) < 1e-9);
            continue;
        }
        hits++;
        worst = fmax(worst, fabs(got - want));
    }
    printf("  ray-field vs brute force: %d hits, worst difference %.3g m\n", hits, worst);
    assert_true(hits > 100);
    assert_true(worst < 1e-9); /* bisection to 2^-60 of 5 mm: both exact to rounding */
}

/* Hits are exact but for rounding of distances near 10 m: 1e-12. */
static void test_ray_prism(void **state)
{
    (void)state;
    const double px[4] = {10, 12, 12, 10}, py[4] = {-1, -1, 1, 1};
    const double ex[3] = {1, 0, 0};
    double o[3] = {0, 0, 1};
    assert_true(fabs(sim_ray_prism(o, ex, px, py, 4, 0, 0, 0, 0, 3, 100) - 10) < 1e-12);  /* the face */
    assert_true(isinf(sim_ray_prism(o, ex, px, py, 4, 0, 0, 0, 0, 3, 9.5)));             /* beyond tmax */
    double above[3] = {0, 0, 4}, beside[3] = {0, 5, 1}, inside[3] = {11, 0, 1}, high[3] = {11, 0.5, 10};
    assert_true(isinf(sim_ray_prism(above, ex, px, py, 4, 0, 0, 0, 0, 3, 100)));         /* over the top */
    assert_true(isinf(sim_ray_prism(beside, ex, px, py, 4, 0, 0, 0, 0, 3, 100)));        /* beside */
    assert_true(sim_ray_prism(inside, ex, px, py, 4, 0, 0, 0, 0, 3, 100) == 0);           /* starting inside */
    const double down[3] = {0, 0, -1};
    assert_true(fabs(sim_ray_prism(high, down, px, py, 4, 0, 0, 0, 0, 3, 100) - 7) < 1e-12); /* the top */
    /* sloping down onto the top: z = 3.5 - 0.1 x reaches 3 at x = 5, not over
     * the box yet, and 2.5 at the face x = 10 */
    double n = sqrt(1.01), sl[3] = {1 / n, 0, -0.1 / n}, so[3] = {0, 0, 3.5};
    assert_true(fabs(sim_ray_prism(so, sl, px, py, 4, 0, 0, 0, 0, 3, 100) - 10 * n) < 1e-12);
    /* cylinder r = 2 at (20, 0) */
    assert_true(fabs(sim_ray_prism(o, ex, NULL, NULL, 0, 20, 0, 2, 0, 3, 100) - 18) < 1e-12);
    double off[3] = {0, 1, 1};
    assert_true(fabs(sim_ray_prism(off, ex, NULL, NULL, 0, 20, 0, 2, 0, 3, 100) - (20 - sqrt(3))) < 1e-12);
    assert_true(isinf(sim_ray_prism(above, ex, NULL, NULL, 0, 20, 0, 2, 0, 3, 100)));
    double side[3] = {0, 2.5, 1}, in_c[3] = {20.5, 0, 1}, high_c[3] = {20, 1, 10};
    assert_true(isinf(sim_ray_prism(side, ex, NULL, NULL, 0, 20, 0, 2, 0, 3, 100)));
    assert_true(sim_ray_prism(in_c, ex, NULL, NULL, 0, 20, 0, 2, 0, 3, 100) == 0);
    assert_true(fabs(sim_ray_prism(high_c, down, NULL, NULL, 0, 20, 0, 2, 0, 3, 100) - 7) < 1e-12);
    /* a ray pointing away from the prism */
    const double wx[3] = {-1, 0, 0};
    assert_true(isinf(sim_ray_prism(o, wx, px, py, 4, 0, 0, 0, 0, 3, 100)));
    assert_true(isinf(sim_ray_prism(o, wx, NULL, NULL, 0, 20, 0, 2, 0, 3, 100)));
}

static void test_obb(void **state)
{
    (void)state;
    sim_obb a = {0, 0, 0, 1, 1};
    sim_obb b = {2, 0, 0, 1, 1};
    assert_true(sim_obb_overlap(&a, &b)); /* touching faces */
    b.cx = 2 + 1e-9;
    assert_false(sim_obb_overlap(&a, &b));
    /* rotated 45 degrees: its corner reaches sqrt(2) from its centre */
    sim_obb c = {1 + sqrt(2) + 0.01, 0, M_PI / 4, 1, 1};
    assert_false(sim_obb_overlap(&a, &c));
    c.cx = 1 + sqrt(2) - 0.01;
    assert_true(sim_obb_overlap(&a, &c));
    /* the diamond's box overlaps the square's, but the diagonal separates */
    sim_obb dmd = {2.2, 2.2, M_PI / 4, 1, 1};
    assert_false(sim_obb_overlap(&a, &dmd));
    dmd.cx = dmd.cy = 1.6;
    assert_true(sim_obb_overlap(&a, &dmd));

    sim_obb box = {0, 0, 0, 2, 1};
    assert_true(sim_obb_circle(&box, 3, 0, 1));       /* touching */
    assert_false(sim_obb_circle(&box, 3, 0, 0.999));
    assert_true(sim_obb_circle(&box, 2.6, 1.8, 1.001)); /* the corner, 1 away */
    assert_false(sim_obb_circle(&box, 2.6, 1.8, 0.999));
    assert_true(sim_obb_circle(&box, 0.5, 0.2, 0.1)); /* inside */
    sim_obb rot = {0, 0, M_PI / 2, 2, 1};               /* now 2 wide in y */
    assert_true(sim_obb_circle(&rot, 0, 2.9, 1));
    assert_false(sim_obb_circle(&rot, 2.1, 0, 1));

    const double tx[3] = {3, 5, 4}, ty[3] = {0, 0, 2};
    assert_false(sim_obb_polygon(&box, tx, ty, 3));
    const double tx2[3] = {1.5, 5, 4}, ty2[3] = {0, 0, 2}; /* a vertex inside */
    assert_true(sim_obb_polygon(&box, tx2, ty2, 3));
    const double tx3[3] = {-3, 3, 0}, ty3[3] = {-0.5, -0.5, -5}; /* an edge across, no vertex inside */
    assert_true(sim_obb_polygon(&box, tx3, ty3, 3));
    const double bx[4] = {-10, 10, 10, -10}, by[4] = {-10, -10, 10, 10}; /* the box inside the polygon */
    assert_true(sim_obb_polygon(&box, bx, by, 4));
    const double sx[3] = {-0.5, 0.5, 0}, sy[3] = {-0.2, -0.2, 0.5}; /* the polygon inside the box */
    assert_true(sim_obb_polygon(&box, sx, sy, 3));
    /* a U whose notch holds the box: concave, no contact */
    const double ux[8] = {-5, 5, 5, 3, 3, -3, -3, -5}, uy[8] = {-5, -5, 5, 5, -2, -2, 5, 5};
    assert_false(sim_obb_polygon(&box, ux, uy, 8));
    sim_obb low = {0, -0.9, 0, 2, 1};
    assert_false(sim_obb_polygon(&low, ux, uy, 8));
    sim_obb tilted = {0, -0.9, 0.6, 2, 1};
    assert_true(sim_obb_polygon(&tilted, ux, uy, 8)); /* turned, a corner reaches y = -2.85 */
}

/* ---- path and controllers --------------------------------------------------------- */

static void test_path(void **state)
{
    (void)state;
    trv_ctx *ctx = trv_ctx_new();
    sim_path p = {0};
    const double x[3] = {0, 10, 10}, y[3] = {0, 0, 10};
    assert_int_equal(sim_path_set(ctx, &p, x, y, 3), TRV_OK);
    assert_true(p.s[2] == 20);
    int hint = 0;
    double s;
    assert_true(fabs(sim_path_project(&p, 4, 3, &hint, &s) - 3) < 1e-12 && s == 4); /* left: + */
    assert_true(fabs(sim_path_project(&p, 12, 5, &hint, &s) + 2) < 1e-12 && s == 15 && hint == 1);
    double px, py;
    sim_path_point(&p, 13, &px, &py);
    assert_true(px == 10 && py == 3);
    sim_path_point(&p, 99, &px, &py);
    assert_true(px == 10 && py == 10);
    assert_int_equal(sim_path_set(ctx, &p, x, y, 0), TRV_ERR_USAGE);
    assert_contains(trv_errmsg(ctx), "at least one vertex");
    /* out and back to a task 40 m away (2 m vertices; the way back 5 mm
     * north, nearer to the point): the way out, not the way back 60 m
     * ahead within the 64 segments */
    double ox[41], oy[41];
    for (int i = 0; i <= 40; i++)
        ox[i] = i <= 20 ? 2.0 * i : 2.0 * (40 - i), oy[i] = i <= 20 ? 0 : 0.005;
    assert_int_equal(sim_path_set(ctx, &p, ox, oy, 41), TRV_OK);
    hint = 0;
    sim_path_project(&p, 10, 0.01, &hint, &s);
    assert_true(fabs(s - 10) < 1e-9);
    sim_path_project(&p, 38, 0.004, &hint, &s); /* near the task the way back is in reach */
    assert_true(s > 41 && s < 43);
    sim_path_clear(&p);
    trv_ctx_free(ctx);
}

/* Drive the path at 5 m/s for T s with dt 0.01 s; the largest |error|
 * over the last half of the run, error(x, y) given by the caller. */
static double follow(const sim_ctrl *c, const sim_body *b, const sim_path *p, sim_state s, double T,
                     double (*error)(double, double))
{
    int hint = 0, n = (int)lround(T / 0.01);
    double worst = 0;
    for (int k = 0; k < n; k++) {
        sim_cmd cmd;
        sim_ctrl_command(c, b, p, &s, 5.0, &hint, &cmd);
        sim_step(b, &s, &cmd, 0.01);
        if (k >= n / 2)
            worst = fmax(worst, fabs(error(s.x, s.y)));
    }
    return worst;
}

static double line_error(double x, double y)
{
    (void)x;
    return y;
}
static double circle_error(double x, double y) { return hypot(x, y - 50) - 50; }

static void test_followers(void **state)
{
    (void)state;
    trv_ctx *ctx = trv_ctx_new();
    sim_body b = ugv_body(SIM_ACKERMANN);
    sim_ctrl c;
    sim_ctrl_default(&c);
    sim_path line = {0}, circle = {0};
    const double lx[2] = {0, 1000}, ly[2] = {0, 0};
    assert_int_equal(sim_path_set(ctx, &line, lx, ly, 2), TRV_OK);
    enum { N = 2400 }; /* 1.15 turns; chords of 0.15 m sag 6e-5 m */
    static double cx[N + 1], cy[N + 1];
    for (int k = 0; k <= N; k++) {
        double th = -M_PI / 2 + 1.15 * 2 * M_PI * k / N;
        cx[k] = 50 * cos(th);
        cy[k] = 50 + 50 * sin(th);
    }
    assert_int_equal(sim_path_set(ctx, &circle, cx, cy, N + 1), TRV_OK);

    /* start 2 m off the line, 0.3 rad off its heading */
    sim_state s0 = {.y = 2, .heading = 0.3};
    double e_line = follow(&c, &b, &line, s0, 60, line_error);
    /* on the circle of radius 50 m, from rest */
    sim_state s1 = {0};
    double e_circle = follow(&c, &b, &circle, s1, 60, circle_error);
    c.kind = SIM_STANLEY;
    sim_state s2 = {.y = 1.5, .heading = -0.2};
    double e_stanley = follow(&c, &b, &line, s2, 60, line_error);
    printf("  steady-state |cross-track| (last half of 60 s at 5 m/s): pure pursuit line %.3g m, circle %.3g m, "
           "Stanley line %.3g m\n", e_line, e_circle, e_stanley);
    /* On the line both settle to rounding (measured 2e-16 and 2e-15 m;
     * bound 1e-6 m). On the circle pure pursuit's arc is the circle itself,
     * so only the chords remain (sag 6e-5 m; measured 4.0e-5 m; bound
     * 2e-4 m). The transient is checked against the closed loop in
     * test_follower_transient. */
    assert_true(e_line < 1e-6);
    assert_true(e_circle < 2e-4);
    assert_true(e_stanley < 1e-6);
    /* skid-steer follows the circle too (yaw-rate command / slip):
     * measured 4.0e-5 m, bound 2e-4 m as above */
    sim_body sk = ugv_body(SIM_SKID);
    c.kind = SIM_PURE_PURSUIT;
    double e_skid = follow(&c, &sk, &circle, s1, 60, circle_error);
    printf("  skid-steer on the circle: %.3g m\n", e_skid);
    assert_true(e_skid < 2e-4);
    sim_path_clear(&line);
    sim_path_clear(&circle);
    trv_ctx_free(ctx);
}

/* ---- the followers' transient from an offset start, against the closed loop ----
 *
 * The vehicle starts on the line y = 0 (heading 0, along +x) at a lateral
 * offset e0 = 2 m, already at v = 5 m/s (commanded 5 m/s: the speed lag
 * never acts), with the steering lag made exactly absent (tau_steer = 0:
 * sim_lag returns the target) so that the loop is the controller and the
 * bicycle kinematics alone. Model (sim_step): the reference point midway
 * between the axles moves along the heading psi at v, psi' = v tan(delta)/L.
 * Small angles (sin psi ~ psi, tan delta ~ delta, atan x ~ x), documented
 * gains (docs/method.md §5.5: k = 1.5 /s, lookahead 0.8 s x v clamped to
 * [2, 20] m; L = 1.9 m):
 *
 * Pure pursuit (reference point's offset y): the target is l_d ahead on
 * the line, in the body frame (l_d, -y - l_d psi) to first order, so
 * kappa = 2 y_b / l_d^2 = -2 (y + l_d psi) / l_d^2 and psi' = v kappa:
 *   y'' = v psi' = -(2 v^2 / l_d^2) y - (2 v / l_d) y'
 * a second-order loop with w_n = sqrt(2) v / l_d and damping 1/sqrt(2)
 * whatever v and l_d. Its roots are (v / l_d)(-1 +- i); from y(0) = e0,
 * y'(0) = 0, with s = v t the distance along the line (the vehicle's x to
 * first order) and u = s / l_d:
 *   y(s) = e0 e^-u (cos u + sin u),  dy/du = -2 e0 e^-u sin u,
 * first zero of dy/du after 0 at u = pi: the overshoot is
 * e0 e^-pi = 4.32 % of e0 (independent of the gain); the settling
 * distance (last |y| >= 2 % of e0) is l_d u_s, u_s the root of
 * e^-u (cos u + sin u) = -0.02 on (pi, 7 pi / 4): proportional to the
 * lookahead (l_d = 4 m at 5 m/s). A lookahead +-20 % moves it +-20 %.
 *
 * Stanley (front axle's error e = y + (L/2) sin psi, psi_e = -psi):
 * delta = -psi - k e / (v + 0.5) (the code's softened speed); with
 * a = k v / (v + 0.5):
 *   e'   = v psi + (L/2) psi' = v psi + (v/2) delta = (v/2) psi - (a/2) e
 *   psi' = (v/L) delta = -(v/L) psi - (a/L) e
 * (the textbook e' = -v sin(atan(k e / v)) ~ -k e, e = e0 e^-kt, holds
 * when the front axle moves along psi + delta, i.e. for rear-axle
 * kinematics; here the point that moves along psi is midway between the
 * axles, so the loop is second order). Characteristic polynomial
 *   lambda^2 + (a/2 + v/L) lambda + a v / L,
 * at v = 5: a = 1.3636 /s, v/L = 2.6316 /s: lambda = sigma +- i w with
 * sigma = -(a/2 + v/L)/2 = -1.6567 /s, w = sqrt(a v / L - sigma^2) =
 * 0.9186 rad/s; from e(0) = e0, psi(0) = 0:
 *   e(t) = e0 e^(sigma t) (cos w t + ((v/L - a/2) / (2 w)) sin w t)
 * overshoot e0 x 0.384 % (7.7 mm), settling distance (2 % of e0) 10.45 m.
 * k +-20 % moves these to 1.03 % / 0.023 % and 8.40 / 13.95 m; k = 0.3
 * gives no overshoot and 68.7 m.
 *
 * Both closed forms are sampled at the simulation's instants t = j dt.
 * What remains is the small-angle error at 2 m (atan(k e0 / 5.5) = 0.500
 * rad against 0.545) and the zero-order hold of the 0.01 s steps. */

/* e(t) / e0 of pure pursuit, l_d the lookahead */
static double pp_closed(double v, double ld, double t)
{
    double u = v * t / ld;
    return exp(-u) * (cos(u) + sin(u));
}

/* e(t) / e0 of Stanley (front axle), gain k, wheelbase L */
static double stanley_closed(double v, double k, double L, double t)
{
    double a = k * v / (v + 0.5), sigma = -(a / 2 + v / L) / 2, w = sqrt(a * v / L - sigma * sigma);
    return exp(sigma * t) * (cos(w * t) + (v / L - a / 2) / (2 * w) * sin(w * t));
}

/* Overshoot (largest excursion past the line, m) and settling distance
 * (the distance along the line, x, at the last instant with |e| >= 2 % of
 * e0, m) of a sampled response; the closed form's x is v t. */
typedef struct transient {
    double overshoot_m, settle_m;
} transient;

static void transient_add(transient *tr, double e, double e0, double x)
{
    if (-e > tr->overshoot_m)
        tr->overshoot_m = -e;
    if (fabs(e) >= 0.02 * e0)
        tr->settle_m = x;
}

static void test_follower_transient(void **state)
{
    (void)state;
    trv_ctx *ctx = trv_ctx_new();
    sim_body b = ugv_body(SIM_ACKERMANN);
    b.tau_steer_s = 0; /* the lag made exactly absent (see above) */
    sim_path line = {0};
    const double lx[2] = {-10, 1000}, ly[2] = {0, 0};
    assert_int_equal(sim_path_set(ctx, &line, lx, ly, 2), TRV_OK);
    /* the documented gains, not the code's defaults: a changed default must show */
    const double v = 5, e0 = 2, dt = 0.01, k_doc = 1.5, ld_doc = 0.8 * v /* in [2, 20] */;
    for (int kind = 0; kind < 2; kind++) {
        sim_ctrl c;
        sim_ctrl_default(&c);
        c.kind = kind ? SIM_STANLEY : SIM_PURE_PURSUIT;
        sim_state s = {.y = e0, .v = v};
        transient sim = {0}, cf = {0};
        int hint = 0;
        for (int j = 0; j <= 3000; j++) { /* 30 s, 150 m: both settle within 25 m */
            double t = j * dt;
            /* Stanley's error is the front axle's (psi = 0 at t = 0: e(0) = e0) */
            double e = kind ? s.y + 0.5 * b.wheelbase_m * sin(s.heading) : s.y;
            double ecf = e0 * (kind ? stanley_closed(v, k_doc, b.wheelbase_m, t) : pp_closed(v, ld_doc, t));
            transient_add(&sim, e, e0, s.x);
            transient_add(&cf, ecf, e0, v * t);
            sim_cmd cmd;
            sim_ctrl_command(&c, &b, &line, &s, v, &hint, &cmd);
            sim_step(&b, &s, &cmd, dt);
        }
        printf("  %s from %.0f m off at %.0f m/s: overshoot %.2f mm (closed form %.2f mm), settling distance "
               "%.3f m (closed form %.3f m)\n",
               kind ? "Stanley" : "pure pursuit", e0, v, 1e3 * sim.overshoot_m, 1e3 * cf.overshoot_m, sim.settle_m,
               cf.settle_m);
        if (kind) {
            /* the closed form's overshoot: 7.68 mm = 0.384 % of 2 m */
            assert_true(fabs(cf.overshoot_m - 0.00768) < 0.0001);
            /* measured: overshoot 6.63 mm (1.05 mm below the closed form),
             * settling 10.53 m (0.08 m beyond); tolerances 2.5 mm and
             * 0.3 m. k 1.2 / 1.8 give 0.33 / 18.3 mm and 14.02 / 8.51 m. */
            assert_true(fabs(sim.overshoot_m - cf.overshoot_m) < 0.0025);
            assert_true(fabs(sim.settle_m - cf.settle_m) < 0.3);
        } else {
            /* e0 e^-pi = 86.4 mm, whatever the lookahead */
            assert_true(fabs(cf.overshoot_m - e0 * exp(-M_PI)) < 1e-4);
            /* measured: overshoot 79.7 mm (6.7 mm below: the 2 m offset is
             * half the lookahead), settling 16.91 m (0.06 m beyond);
             * tolerances 12 mm and 0.3 m. A lookahead of 0.64 / 0.96 s
             * settles at 13.56 / 20.25 m; a curvature 2 y / d^2 halved
             * (damping 1/2) overshoots 16 %. */
            assert_true(fabs(sim.overshoot_m - cf.overshoot_m) < 0.012);
            assert_true(fabs(sim.settle_m - cf.settle_m) < 0.3);
        }
    }
    sim_path_clear(&line);
    trv_ctx_free(ctx);
}

/* ---- obstacles and LiDAR ----------------------------------------------------------- */

static float flat_z[241 * 241];

/* z = 5 over +-120 m, 1 m cells, centred on the origin */
static sim_field flat_field(void)
{
    for (int k = 0; k < 241 * 241; k++)
        flat_z[k] = 5.0f;
    sim_field f = {flat_z, 241, 241, -120.0, 120.0, 1.0, 1.0, 0, 0};
    return f;
}

static sim_sensor lidar16(void)
{
    sim_sensor ls = {0};
    ls.kind = SIM_LIDAR3D;
    ls.rate_hz = 10;
    ls.lines = 16;
    ls.hfov_rad = 2 * M_PI;
    ls.vfov_rad = 30 * DEG; /* lines at -15, -13, ..., +15 degrees */
    ls.hres_rad = 0.2 * DEG;
    ls.range_m = 100;
    ls.mount_h_m = 2;
    return ls;
}

/* sim_world.ranges: one range per ray, the hits' distances from the
 * sensor in the order rays are cast (azimuth-major), NAN for the rays that
 * return nothing; with noise, the same draws (the same hits). */
static void test_lidar_ranges(void **state)
{
    (void)state;
    sim_field f = flat_field();
    sim_sensor ls = lidar16();
    ls.noise = 0.05;
    int nr = sim_lidar_rays(&ls);
    static float ranges[16 * 1800];
    static double xyz[3 * 16 * 1800], xyz2[3 * 16 * 1800];
    for (int i = 0; i < nr; i++)
        ranges[i] = -1;
    sim_world w = {.field = &f, .ranges = ranges};
    sim_world w2 = {.field = &f};
    sim_state s = {.x = 3, .y = -2, .z = 5, .heading = 0.3};
    trv_rng r, r2;
    trv_rng_seed(&r, 9);
    trv_rng_seed(&r2, 9);
    int n = sim_lidar_scan(&ls, &w, &s, &r, xyz, nr), n2 = sim_lidar_scan(&ls, &w2, &s, &r2, xyz2, nr);
    assert_int_equal(n, n2);
    assert_memory_equal(xyz, xyz2, 3 * n * sizeof *xyz);
    int k = 0, nan = 0;
    for (int a = 0; a < 1800; a++)
        for (int l = 0; l < 16; l++) {
            float t = ranges[a * 16 + l];
            if (isnan(t)) {
                nan++;
                assert_true(l >= 7); /* lines above -3 degrees miss the plane within 100 m */
                continue;
            }
            assert_true(l < 7);
            double dx = xyz[3 * k] - 3, dy = xyz[3 * k + 1] + 2, dz = xyz[3 * k + 2] - 7;
            assert_true(fabs(sqrt(dx * dx + dy * dy + dz * dz) - t) < 1e-5 * t); /* float32 */
            k++;
        }
    assert_int_equal(k, n);
    assert_int_equal(nan, 9 * 1800);
}

static void test_lidar_plane(void **state)
{
    (void)state;
    sim_field f = flat_field();
    sim_sensor ls = lidar16();
    assert_int_equal(sim_lidar_rays(&ls), 16 * 1800);
    sim_world w = {.field = &f};
    sim_state s = {.x = 3, .y = -2, .z = 5, .heading = 0.3};
    trv_rng r;
    trv_rng_seed(&r, 1);
    static double xyz[3 * 16 * 1800];
    int n = sim_lidar_scan(&ls, &w, &s, &r, xyz, 16 * 1800);
    /* lines -15..-3 degrees reach the ground within 100 m (2 / sin 3 deg =
     * 38 m); -1 degree reaches it at 115 m, beyond the range */
    assert_int_equal(n, 7 * 1800);
    int per_line[7] = {0};
    double worst = 0;
    for (int k = 0; k < n; k++) {
        double dx = xyz[3 * k] - 3, dy = xyz[3 * k + 1] + 2, dz = xyz[3 * k + 2] - 7;
        double range = sqrt(dx * dx + dy * dy + dz * dz);
        int best = 0;
        double bestd = INFINITY;
        for (int l = 0; l < 7; l++) {
            double want = 2 / sin((15 - 2 * l) * DEG);
            if (fabs(range - want) < bestd) {
                bestd = fabs(range - want);
                best = l;
            }
        }
        per_line[best]++;
        worst = fmax(worst, bestd / range);
        assert_true(fabs(xyz[3 * k + 2] - 5) < 1e-9);
    }
    printf("  lidar over a plane: %d hits, worst relative range error %.3g\n", n, worst);
    assert_true(worst < 1e-12); /* range = mount_h / sin(depression), to rounding */
    for (int l = 0; l < 7; l++)
        assert_int_equal(per_line[l], 1800);
    /* the cap */
    assert_int_equal(sim_lidar_scan(&ls, &w, &s, &r, xyz, 100), 100);

    /* noise: the residuals' sample sd near the configured 0.05 m */
    ls.noise = 0.05;
    trv_rng_seed(&r, 42);
    n = sim_lidar_scan(&ls, &w, &s, &r, xyz, 16 * 1800);
    assert_int_equal(n, 7 * 1800);
    double sum = 0, sum2 = 0;
    for (int k = 0; k < n; k++) {
        double dx = xyz[3 * k] - 3, dy = xyz[3 * k + 1] + 2, dz = xyz[3 * k + 2] - 7;
        double range = sqrt(dx * dx + dy * dy + dz * dz);
        /* the direction is unchanged by range noise: it names the line */
        double dep = asin(-dz / range) / DEG;
        int l = (int)lround((15 - dep) / 2);
        double res = range - 2 / sin((15 - 2 * l) * DEG);
        sum += res;
        sum2 += res * res;
    }
    double mean = sum / n, sd = sqrt((sum2 - n * mean * mean) / (n - 1));
    printf("  lidar noise: %d residuals, mean %.5f m, sd %.5f m (configured 0.05)\n", n, mean, sd);
    /* with 12600 samples the sd's standard error is 0.05 / sqrt(2 n) =
     * 0.3 mm; 5 % (2.5 mm) is 8 standard errors. The mean's standard
     * error is 0.45 mm; 2 mm is 4.5 of them. */
    assert_true(fabs(sd - 0.05) < 0.05 * 0.05);
    assert_true(fabs(mean) < 0.002);
}

static void test_lidar_obstacles(void **state)
{
    (void)state;
    sim_field f = flat_field();
    double px[4] = {10, 12, 12, 10}, py[4] = {-1, -1, 1, 1};
    sim_obstacle box = {.id = "box", .n = 4, .px = px, .py = py, .height_m = 3, .base_z = 5, .appear_s = 0,
                        .disappear_s = INFINITY};
    sim_world w = {.field = &f, .obs = &box, .nobs = 1};
    sim_state s = {.z = 5};
    trv_rng r;
    trv_rng_seed(&r, 1);
    /* 2D: the level rays at 7 m miss the ground; those within atan(1/10)
     * of the heading hit the face x = 10 at 10 / cos(az) */
    sim_sensor l2 = lidar16();
    l2.kind = SIM_LIDAR2D;
    l2.lines = 1;
    static double xyz[3 * 16 * 1800];
    int n = sim_lidar_scan(&l2, &w, &s, &r, xyz, 1800);
    assert_int_equal(n, 57); /* az = -5.6 .. 5.6 degrees in 0.2 steps */
    for (int k = 0; k < n; k++) { /* 1e-9: rounding of o + t d at 10 m */
        assert_true(fabs(xyz[3 * k] - 10) < 1e-9);
        assert_true(fabs(xyz[3 * k + 1]) <= 1 && fabs(xyz[3 * k + 2] - 7) < 1e-12);
    }
    /* the sensor turns with the body: nose up by p, the mount leans back
     * (x = -2 sin p, z = 5 + 2 cos p) and the forward ray climbs at p */
    {
        const double p = 0.1;
        box.height_m = 20;
        sim_state tilt = {.z = 5, .pitch = p};
        sim_sensor one = l2;
        one.hfov_rad = 0.01;
        one.hres_rad = 0.02; /* a single ray, straight ahead */
        assert_int_equal(sim_lidar_rays(&one), 1);
        assert_int_equal(sim_lidar_scan(&one, &w, &tilt, &r, xyz, 1), 1);
        double t = (10 + 2 * sin(p)) / cos(p);
        assert_true(fabs(xyz[0] - 10) < 1e-9 && fabs(xyz[1]) < 1e-9 && fabs(xyz[2] - (5 + 2 * cos(p) + t * sin(p))) < 1e-9);
        /* roll left side up by p: the forward ray stays level, the mast
         * leans right (y = -2 sin p, z = 5 + 2 cos p) */
        sim_state rolled = {.z = 5, .roll = p};
        assert_int_equal(sim_lidar_scan(&one, &w, &rolled, &r, xyz, 1), 1);
        assert_true(fabs(xyz[0] - 10) < 1e-9 && fabs(xyz[1] + 2 * sin(p)) < 1e-9 &&
                    fabs(xyz[2] - (5 + 2 * cos(p))) < 1e-9);
        box.height_m = 3;
    }
    /* 3D: every hit nearer than the ground ring at -15 degrees lies on the face */
    sim_sensor l3 = lidar16();
    n = sim_lidar_scan(&l3, &w, &s, &r, xyz, 16 * 1800);
    int face = 0;
    for (int k = 0; k < n; k++) {
        if (xyz[3 * k + 2] > 5 + 1e-9) {
            assert_true(fabs(xyz[3 * k] - 10) < 1e-9 || fabs(xyz[3 * k + 2] - 8) < 1e-9); /* face or top */
            face += fabs(xyz[3 * k] - 10) < 1e-9;
        }
    }
    assert_true(face > 57 * 6); /* the lines from -13 to +5 degrees see the 3 m face */
    /* the obstacle appears at t = 5 and moves 1 m/s north: at t = 4 the
     * rays pass, at t = 6 it has moved to y in [5, 7]: the rays meet its
     * west face (x = 10) or its south face (y = 5) */
    box.appear_s = 5;
    box.vy = 1;
    w.t = 4;
    assert_int_equal(sim_lidar_scan(&l2, &w, &s, &r, xyz, 1800), 0);
    w.t = 6;
    double o[3] = {0, 0, 7}, d[3] = {cos(atan2(6, 10)), sin(atan2(6, 10)), 0};
    assert_true(fabs(sim_obstacle_ray(&box, 6, o, d, 100) - hypot(10, 6)) < 1e-9);
    n = sim_lidar_scan(&l2, &w, &s, &r, xyz, 1800);
    assert_true(n > 0);
    for (int k = 0; k < n; k++)
        assert_true((fabs(xyz[3 * k] - 10) < 1e-9 && xyz[3 * k + 1] >= 5 - 1e-9 && xyz[3 * k + 1] <= 7 + 1e-9) ||
                    (fabs(xyz[3 * k + 1] - 5) < 1e-9 && xyz[3 * k] >= 10 - 1e-9 && xyz[3 * k] <= 12 + 1e-9));
    /* another vehicle's box as a prism */
    sim_obb other = {20, 0, 0, 1.5, 1};
    double bz = 5, bh = 1.5;
    sim_world wv = {.field = &f, .boxes = &other, .box_z = &bz, .box_h = &bh, .nboxes = 1};
    s.z = 4.5; /* the level rays at 6.5 m pass over the terrain and hit the box at x = 18.5 */
    n = sim_lidar_scan(&l2, &wv, &s, &r, xyz, 1800);
    assert_true(n > 0);
    for (int k = 0; k < n; k++)
        assert_true(fabs(xyz[3 * k] - 18.5) < 1e-9);
}

static void test_obstacles(void **state)
{
    (void)state;
    sim_obstacle c = {.id = "tree", .n = 0, .cx = 10, .cy = 0, .r = 1, .height_m = 5, .appear_s = 2, .disappear_s = 8,
                      .vx = -1};
    assert_false(sim_obstacle_active(&c, 1.9));
    assert_true(sim_obstacle_active(&c, 2));
    assert_false(sim_obstacle_active(&c, 8));
    double ox, oy;
    sim_obstacle_offset(&c, 3, &ox, &oy);
    assert_true(ox == -3 && oy == 0);
    sim_obb car = {4, 0, 0, 1.5, 1};
    assert_false(sim_obstacle_hits(&c, 1, &car));   /* not there yet */
    assert_false(sim_obstacle_hits(&c, 3, &car));   /* at x = 7: 1.5 apart */
    assert_true(sim_obstacle_hits(&c, 4.5, &car));  /* at x = 5.5: touching */
    assert_false(sim_obstacle_hits(&c, 8.5, &car)); /* gone */
    double o[3] = {0, 0, 1}, d[3] = {1, 0, 0};
    assert_true(fabs(sim_obstacle_ray(&c, 3, o, d, 100) - 6) < 1e-12);
    assert_true(isinf(sim_obstacle_ray(&c, 1, o, d, 100)));
}

/* ---- the vehicle file's [body] ------------------------------------------------------- */

#define BASE                                                                                                      \
    "[vehicle]\nname = x\ngross_mass_kg = 1242\naxles = 2\ntyres = 4\ntyre_width_m = 0.4\ntyre_diameter_m = 1.02\n" \
    "tyre_section_height_m = 0.25\ninflation_pressure_kPa = 100\ncarcass_pressure_kPa = 20\nengine_power_kW = 62\n"  \
    "top_speed_kmh = 40\nground_clearance_m = 0.45\nmax_pitch_deg = 30\nmax_roll_deg = 25\n"

static void expect_vehicle_error(const char *text, trv_status want, const char *msg)
{
    trv_ctx *ctx = trv_ctx_new();
    char *p = write_file(tmpdir, "v.ini", text);
    tm_vehicle *v = NULL;
    assert_int_equal(tm_vehicle_read(ctx, p, &v), want);
    assert_null(v);
    assert_contains(trv_errmsg(ctx), msg);
    free(p);
    trv_ctx_free(ctx);
}

static void test_body_section(void **state)
{
    (void)state;
    trv_ctx *ctx = trv_ctx_new();
    char *p = write_file(tmpdir, "v.ini", BASE);
    tm_vehicle *v = NULL;
    assert_int_equal(tm_vehicle_read(ctx, p, &v), TRV_OK);
    /* the documented defaults of a wheeled vehicle */
    assert_true(v->length_m == 4.0 && v->width_m == 2.0 && v->height_m == 2.0);
    assert_true(fabs(v->wheelbase_m - 2.4) < 1e-12 && fabs(v->track_m - 1.6) < 1e-12);
    assert_true(v->wheel_radius_m == 0.51 && v->max_steer_deg == 30);
    assert_true(v->tau_speed_s == 0.5 && v->tau_steer_s == 0.2 && v->skid_slip == 0.8);
    assert_true(v->step_m == 0.225);
    tm_vehicle_free(v);
    free(p);
    p = write_file(tmpdir, "v.ini", BASE "[body]\nwheelbase_m = 1.9\ntau_steer_s = 0\n");
    assert_int_equal(tm_vehicle_read(ctx, p, &v), TRV_OK);
    assert_true(v->wheelbase_m == 1.9 && v->tau_steer_s == 0 && v->length_m == 4.0);
    sim_body b;
    sim_body_from_vehicle(v, SIM_SKID, &b);
    assert_true(b.kind == SIM_SKID && b.wheelbase_m == 1.9 && b.slip == 0.8 && b.mass_kg == 1242);
    assert_true(fabs(b.max_steer_rad - M_PI / 6) < 1e-15 && fabs(b.top_speed_ms - 40 / 3.6) < 1e-15);
    assert_true(fabs(b.max_roll_rad - 25 * DEG) < 1e-15);
    tm_vehicle_free(v);
    free(p);
    trv_ctx_free(ctx);
    /* BASE is 15 lines: [body] is line 16 */
    expect_vehicle_error(BASE "[body]\nwheelbase_m = 50\n", TRV_ERR_DATA, "v.ini:17: 'wheelbase_m' = 50 is out of range");
    expect_vehicle_error(BASE "[body]\nskid_slip = 0\n", TRV_ERR_DATA, "v.ini:17: 'skid_slip' = 0 is out of range");
    expect_vehicle_error(BASE "[body]\nwheels = 4\n", TRV_ERR_FORMAT, "v.ini:17: unknown key 'wheels' in [body]");
    expect_vehicle_error(BASE "[body]\nwheelbase_m = 5\n", TRV_ERR_DATA, "[body] wheelbase_m (5) exceeds length_m (4)");
    expect_vehicle_error(BASE "[body]\ntrack_m = 2.5\n", TRV_ERR_DATA, "[body] track_m (2.5) must be in (0, width_m (2)]");
}

static void test_bundled_vehicles(void **state)
{
    (void)state;
    const char *names[3] = {"vehicles/ugv_hua2022.ini", "vehicles/truck_6x6.ini", "vehicles/tracked_carrier.ini"};
    for (int k = 0; k < 3; k++) {
        trv_ctx *ctx = trv_ctx_new();
        char *p = data_path(names[k]);
        tm_vehicle *v = NULL;
        assert_int_equal(tm_vehicle_read(ctx, p, &v), TRV_OK);
        assert_true(v->wheelbase_m <= v->length_m && v->track_m <= v->width_m && v->step_m > 0);
        if (k == 0) {
            sim_body b;
            sim_body_from_vehicle(v, SIM_ACKERMANN, &b);
            sim_body want = ugv_body(SIM_ACKERMANN);
            assert_true(b.wheelbase_m == want.wheelbase_m && b.track_m == want.track_m);
            assert_true(b.length_m == 3 && b.width_m == 2 && b.height_m == 1.5 && b.wheel_radius_m == 0.51);
            assert_true(b.tau_speed_s == 0.5 && b.tau_steer_s == 0.2 && b.step_m == 0.225);
        }
        tm_vehicle_free(v);
        free(p);
        trv_ctx_free(ctx);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ackermann),
        cmocka_unit_test(test_arc_exact),     cmocka_unit_test(test_skid_and_mecanum), cmocka_unit_test(test_kind_names),
        cmocka_unit_test(test_lag),           cmocka_unit_test(test_ground_plane),
        cmocka_unit_test(test_ray_plane),     cmocka_unit_test(test_ray_bumpy),
        cmocka_unit_test(test_ray_prism),     cmocka_unit_test(test_obb),
        cmocka_unit_test(test_path),          cmocka_unit_test(test_followers),
        cmocka_unit_test(test_follower_transient),
        cmocka_unit_test(test_lidar_plane),   cmocka_unit_test(test_lidar_ranges),   cmocka_unit_test(test_lidar_obstacles),
        cmocka_unit_test(test_obstacles),     cmocka_unit_test(test_body_section),
        cmocka_unit_test(test_bundled_vehicles),
    };
    return cmocka_run_group_tests(tests, tmpdir_setup, tmpdir_teardown);
}
