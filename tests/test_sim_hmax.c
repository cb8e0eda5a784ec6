/* The max-height pyramid's ray march (sim_hmax_ray, heightmax.c) against
 * the plain cell-by-cell march (sim_ray_field, the reference): on a rough
 * synthetic field (131 x 97 cells of 3 x 2 m: low ground, tall sparse
 * spikes, a ridge, nodata cells and a NaN), 200 000 seeded random rays
 * (from inside and outside the grid, shallow and steep, up and down,
 * axis-aligned and vertical, tmax from 0 to 600 m and infinite) give
 * bit-identical t, with thousands of hits and misses and hits far along,
 * every hit inside the grid's extent and not above the surface there;
 * the pyramid's levels (132 x 98 patches halved to one block: 9); then
 * whole LiDAR scans (16 lines, 0.4 degree steps, range noise) over that
 * field among obstacles (a circle, a polygon, a moving one) and another
 * vehicle's box give the same points, byte for byte, with and without the
 * pyramid. */
#include "test_common.h"

#include "sim/sim.h"

#include <math.h>

#define NX 131
#define NY 97
#define NODATA -9999.0f

static float Z[NX * NY];
static sim_field F;

static void rough_field(void)
{
    trv_rng r;
    trv_rng_seed(&r, 16);
    for (int j = 0; j < NY; j++)
        for (int i = 0; i < NX; i++) {
            double z = 2 * trv_rng_uniform(&r);
            if (trv_rng_uniform(&r) < 0.03)
                z += 5 + 25 * trv_rng_uniform(&r); /* a spike */
            if (i > 60 && i < 66)
                z += 12 - 2 * abs(i - 63); /* a ridge north-south */
            Z[j * NX + i] = (float)z;
        }
    for (int k = 0; k < 40; k++)
        Z[(int)(trv_rng_uniform(&r) * NY) * NX + (int)(trv_rng_uniform(&r) * NX)] = NODATA;
    Z[50 * NX + 20] = NAN;
    F = (sim_field){Z, NX, NY, 1000.0, 2000.0, 3.0, 2.0, 1, NODATA};
}

/* One seeded random ray over the field's extent (+-60 m around it). */
static void random_ray(trv_rng *r, double o[3], double d[3], double *tmax)
{
    double w = NX * F.dx, h = NY * F.dy;
    o[0] = F.x0 - 60 + (w + 120) * trv_rng_uniform(r);
    o[1] = F.y0 + 60 - (h + 120) * trv_rng_uniform(r);
    o[2] = -5 + 45 * trv_rng_uniform(r);
    double kind = trv_rng_uniform(r), az = 2 * M_PI * trv_rng_uniform(r), dz;
    if (kind < 0.6)
        dz = -0.3 * trv_rng_uniform(r) + 0.03; /* shallow, mostly down */
    else
        dz = 2 * trv_rng_uniform(r) - 1;
    double hz = sqrt(1 - dz * dz);
    d[0] = hz * cos(az), d[1] = hz * sin(az), d[2] = dz;
    if (kind > 0.97) { /* along a grid axis, or straight down */
        int a = (int)(4 * trv_rng_uniform(r));
        d[0] = a == 0 ? hz : a == 1 ? -hz : 0, d[1] = a == 2 ? hz : a == 3 ? -hz : 0;
        if (trv_rng_uniform(r) < 0.2)
            d[0] = d[1] = 0, d[2] = -1;
    }
    double k = trv_rng_uniform(r);
    *tmax = k < 0.05 ? INFINITY : k < 0.07 ? 0 : 600 * trv_rng_uniform(r);
}

static void test_hmax_rays(void **state)
{
    (void)state;
    rough_field();
    trv_ctx *ctx = trv_ctx_new();
    sim_hmax *hm = NULL;
    assert_int_equal(sim_hmax_new(ctx, &F, &hm), TRV_OK);
    /* 132 x 98, 66 x 49, 33 x 25, 17 x 13, 9 x 7, 5 x 4, 3 x 2, 2 x 1, 1 x 1 */
    assert_int_equal(sim_hmax_levels(hm), 9);
    trv_rng r;
    trv_rng_seed(&r, 2026);
    long hits = 0, misses = 0, far = 0, diff = 0, bad = 0;
    for (int k = 0; k < 200000; k++) {
        double o[3], d[3], tmax;
        random_ray(&r, o, d, &tmax);
        double want = sim_ray_field(&F, o, d, tmax), got = sim_hmax_ray(hm, o, d, tmax);
        if (memcmp(&want, &got, sizeof want) != 0) {
            if (diff++ < 5)
                printf("  differs: o (%.17g %.17g %.17g) d (%.17g %.17g %.17g) tmax %.17g: plain %.17g pyramid %.17g\n",
                       o[0], o[1], o[2], d[0], d[1], d[2], tmax, want, got);
            continue;
        }
        if (isinf(want)) {
            misses++;
            continue;
        }
        hits++, far += want > 100;
        /* independent of both marches: a hit lies within the grid's
         * extent, and the ray there at or below the surface */
        double x = o[0] + want * d[0], y = o[1] + want * d[1], z = o[2] + want * d[2];
        double c = (x - F.x0) / F.dx, rw = (F.y0 - y) / F.dy, g = sim_height(&F, x, y);
        if (!(c >= -0.5 - 1e-9 && c <= NX - 0.5 + 1e-9 && rw >= -0.5 - 1e-9 && rw <= NY - 0.5 + 1e-9) ||
            z > g + 1e-6)
            bad++;
    }
    printf("  pyramid vs plain march: 200000 rays, %ld hits (%ld beyond 100 m), %ld misses, %ld differ, %ld hits "
           "off the grid or above the surface\n",
           hits, far, misses, diff, bad);
    assert_int_equal(diff, 0);
    assert_int_equal(bad, 0);
    assert_true(hits > 20000 && misses > 20000 && far > 5000);
    sim_hmax_free(hm);
    trv_ctx_free(ctx);
}

static void test_hmax_scan(void **state)
{
    (void)state;
    rough_field();
    trv_ctx *ctx = trv_ctx_new();
    sim_hmax *hm = NULL;
    assert_int_equal(sim_hmax_new(ctx, &F, &hm), TRV_OK);
    double px[4] = {1150, 1170, 1170, 1150}, py[4] = {1900, 1900, 1930, 1930};
    sim_obstacle obs[3] = {
        {.id = "rock", .cx = 1200, .cy = 1950, .r = 6, .height_m = 3, .base_z = 1, .disappear_s = INFINITY},
        {.id = "wall", .n = 4, .px = px, .py = py, .height_m = 2.5, .base_z = 0.5, .disappear_s = INFINITY},
        {.id = "car", .cx = 1260, .cy = 1990, .r = 2, .height_m = 1.5, .base_z = 1, .disappear_s = INFINITY,
         .vx = -1.5, .vy = 0.5}};
    sim_obb box = {1230, 1930, 0.4, 2.5, 1.2};
    double bz = 1.0, bh = 1.8;
    sim_world w = {.field = &F, .obs = obs, .nobs = 3, .boxes = &box, .box_z = &bz, .box_h = &bh, .nboxes = 1,
                   .t = 4};
    sim_sensor ls = {.kind = SIM_LIDAR3D, .lines = 16, .hfov_rad = 2 * M_PI, .vfov_rad = 30 * M_PI / 180,
                     .hres_rad = 0.4 * M_PI / 180, .range_m = 100, .mount_h_m = 1.8, .noise = 0.02};
    int nr = sim_lidar_rays(&ls);
    assert_int_equal(nr, 16 * 900);
    double *a = malloc(3 * sizeof *a * nr), *b = malloc(3 * sizeof *b * nr);
    assert_non_null(a), assert_non_null(b);
    long total = 0;
    for (int k = 0; k < 6; k++) {
        sim_state s = {.x = 1100 + 40 * k, .y = 1960 - 15 * k, .heading = 0.7 * k, .pitch = 0.05 * (k - 2),
                       .roll = -0.03 * k};
        s.z = sim_height(&F, s.x, s.y);
        if (isnan(s.z))
            s.z = 1;
        trv_rng r1, r2;
        trv_rng_seed(&r1, 7 + k), trv_rng_seed(&r2, 7 + k);
        w.hmax = NULL;
        int na = sim_lidar_scan(&ls, &w, &s, &r1, a, nr);
        w.hmax = hm;
        int nb = sim_lidar_scan(&ls, &w, &s, &r2, b, nr);
        assert_int_equal(na, nb);
        assert_memory_equal(a, b, 3 * sizeof *a * na);
        assert_true(na > nr / 4);
        total += na;
    }
    printf("  scans with and without the pyramid: 6 x %d rays, %ld points, identical bytes\n", nr, total);
    free(a), free(b);
    sim_hmax_free(hm);
    trv_ctx_free(ctx);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_hmax_rays),
        cmocka_unit_test(test_hmax_scan),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
