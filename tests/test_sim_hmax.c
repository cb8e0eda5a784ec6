/* The max-height pyramid's ray march (sim_hmax_ray, heightmax.c) against
 * the plain cell-by-cell march (sim_ray_field, the reference): on a rough
 * synthetic field (131 x 97 cells of 3 x 2 m: low ground, tall sparse
 * spikes, a ridge, nodata cells and a NaN), 200 000 seeded random rays
 * (from inside and outside the grid, shallow and steep, up and down,
 * axis-aligned and vertical, tmax from 0 to 600 m and infinite) give
 * bit-identical t, with thousands of hits and misses and hits far along,
 * every hit inside the grid's extent and not above the surface there;
 * the pyramid's levels (132 x 98 patches halved to one block: 9); the
 * same rays through the vector lanes (sim_hmax_rays) bit-identical; then
 * whole LiDAR scans (16 lines, 0.4 degree steps, range noise) over that
 * field among obstacles (a circle, a polygon, a moving one) and another
 * vehicle's box give the same points, byte for byte, with and without the
 * pyramid; and on the run's pool of threads (2, 3, 7) as without it. */
#include "test_common.h"

#include "geo/geo.h"
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

/* The same 200 000 rays through sim_hmax_rays in one call (packets of
 * unrelated rays, some ending at once, some marching far, some missing the
 * grid), then 8 + 3 of them (a packet and a partial one): every t the
 * plain march's, bit for bit. */
static void test_hmax_lanes(void **state)
{
    (void)state;
    rough_field();
    trv_ctx *ctx = trv_ctx_new();
    sim_hmax *hm = NULL;
    assert_int_equal(sim_hmax_new(ctx, &F, &hm), TRV_OK);
    enum { N = 200000 };
    double(*o)[3] = malloc(N * sizeof *o), (*d)[3] = malloc(N * sizeof *d), *tmax = malloc(N * sizeof *tmax),
          *got = malloc(N * sizeof *got);
    assert_non_null(o), assert_non_null(d), assert_non_null(tmax), assert_non_null(got);
    trv_rng r;
    trv_rng_seed(&r, 2026);
    for (int k = 0; k < N; k++)
        random_ray(&r, o[k], d[k], &tmax[k]);
    long diff = 0, hits = 0;
    for (int pass = 0; pass < 2; pass++) {
        int n = pass == 0 ? N : 11;
        sim_hmax_rays(hm, n, (const double(*)[3])o, (const double(*)[3])d, tmax, got);
        for (int k = 0; k < n; k++) {
            double want = sim_ray_field(&F, o[k], d[k], tmax[k]);
            hits += pass == 0 && want < INFINITY;
            if (memcmp(&want, &got[k], sizeof want) != 0 && diff++ < 5)
                printf("  differs: ray %d: plain %.17g lanes %.17g\n", k, want, got[k]);
        }
    }
    printf("  %s: %d rays, %ld hits, %ld differ from the plain march\n",
           sim_hmax_lanes() ? "vector lanes" : "no vector lanes on this CPU, ray by ray", N, hits, diff);
    assert_int_equal(diff, 0);
    assert_true(hits > 20000 && N - hits > 20000);
    free(o), free(d), free(tmax), free(got);
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

/* One scan with the pool and without (w->pool NULL: the serial code),
 * points and ranges bit for bit, cap points at most; the points. */
static int pool_scan(const sim_sensor *ls, sim_world *w, sim_pool *pool, const sim_state *s, int cap, double *a,
                     double *b, float *ra, float *rb)
{
    trv_rng r1, r2;
    trv_rng_seed(&r1, 11), trv_rng_seed(&r2, 11);
    int nr = sim_lidar_rays(ls);
    for (int k = 0; k < nr; k++)
        ra[k] = rb[k] = -1; /* not a range: a range one writes and the other not differs */
    w->pool = NULL, w->ranges = ra;
    int na = sim_lidar_scan(ls, w, s, &r1, a, cap);
    w->pool = pool, w->ranges = rb;
    int nb = sim_lidar_scan(ls, w, s, &r2, b, cap);
    w->pool = NULL, w->ranges = NULL;
    assert_int_equal(na, nb);
    assert_memory_equal(a, b, 3 * sizeof *a * na);
    for (int k = 0; k < nr; k++) /* the ranges (NaN: no hit), bit for bit */
        assert_memory_equal(&ra[k], &rb[k], sizeof *ra);
    assert_true(trv_rng_uniform(&r1) == trv_rng_uniform(&r2)); /* the same noise draws */
    return na;
}

/* The chunked cast on the run's pool (ray_pool.c) against the serial cast:
 * pools of 2, 3 and 7 threads, and one of 2 whose caller casts again
 * every chunk its worker has not cast when it needs it; scans of 16 x 900 rays (29 chunks of 32 azimuths,
 * the last of 4), 3 x 13 (less than a chunk, not a multiple of the
 * packet), 1 x 1001 (a 2D line: 512 + 489 azimuths) and 100 x 37 (chunks
 * of 8 azimuths, 800 rays), with the pyramid (lanes where the CPU has
 * them) and with the plain march, full and cut at a third of the rays:
 * every point and range bit for bit. */
static void test_hmax_pool(void **state)
{
    (void)state;
    rough_field();
    trv_ctx *ctx = trv_ctx_new();
    sim_hmax *hm = NULL;
    assert_int_equal(sim_hmax_new(ctx, &F, &hm), TRV_OK);
    sim_obstacle obs = {.id = "rock", .cx = 1200, .cy = 1950, .r = 6, .height_m = 3, .base_z = 1,
                        .disappear_s = INFINITY};
    sim_obb box = {1230, 1930, 0.4, 2.5, 1.2};
    double bz = 1.0, bh = 1.8, deg = M_PI / 180;
    sim_world w = {.field = &F, .obs = &obs, .nobs = 1, .boxes = &box, .box_z = &bz, .box_h = &bh, .nboxes = 1};
    const sim_sensor ls[4] = {
        {.kind = SIM_LIDAR3D, .lines = 16, .hfov_rad = 2 * M_PI, .vfov_rad = 30 * deg, .hres_rad = 0.4 * deg,
         .range_m = 100, .mount_h_m = 1.8, .noise = 0.02},
        {.kind = SIM_LIDAR3D, .lines = 3, .hfov_rad = 12 * deg, .vfov_rad = 20 * deg, .hres_rad = deg,
         .range_m = 80, .mount_h_m = 1.8, .noise = 0.02},
        {.kind = SIM_LIDAR2D, .lines = 1, .hfov_rad = 250 * deg, .vfov_rad = 0, .hres_rad = 0.25 * deg,
         .range_m = 60, .mount_h_m = 0.5, .noise = 0.05},
        {.kind = SIM_LIDAR3D, .lines = 100, .hfov_rad = 36 * deg, .vfov_rad = 40 * deg, .hres_rad = deg,
         .range_m = 100, .mount_h_m = 2, .noise = 0.02}};
    const int want_rays[4] = {16 * 900, 3 * 13, 1001, 100 * 37};
    int nmax = 16 * 900;
    double *a = malloc(3 * sizeof *a * nmax), *b = malloc(3 * sizeof *b * nmax);
    float *ra = malloc(sizeof *ra * nmax), *rb = malloc(sizeof *rb * nmax);
    assert_true(a && b && ra && rb);
    static const int threads[3] = {2, 3, 7};
    long points = 0, scans = 0, wk = 0, cl = 0, ag = 0;
    for (int p = 0; p < 4; p++) {
        sim_pool *pool = NULL;
        assert_int_equal(sim_pool_new(ctx, threads[p % 3], &pool), TRV_OK);
        assert_int_equal(sim_pool_threads(pool), threads[p % 3]);
        if (p == 3)
            sim_pool_set_wait(pool, -1); /* the caller casts again every chunk not cast when it needs it */
        for (int k = 0; k < 4; k++) {
            assert_int_equal(sim_lidar_rays(&ls[k]), want_rays[k]);
            for (int i = 0; i < 3; i++) {
                sim_state s = {.x = 1100 + 40 * i + 7 * p, .y = 1960 - 15 * i, .heading = 0.7 * i + p,
                               .pitch = 0.05 * (i - 1), .roll = -0.03 * i};
                s.z = sim_height(&F, s.x, s.y);
                if (isnan(s.z))
                    s.z = 1;
                w.t = i;
                for (int m = 0; m < 2; m++) { /* the pyramid (and lanes), the plain march */
                    w.hmax = m ? NULL : hm;
                    int n = pool_scan(&ls[k], &w, pool, &s, want_rays[k], a, b, ra, rb);
                    assert_true(n > 0);
                    int cut = pool_scan(&ls[k], &w, pool, &s, n / 3, a, b, ra, rb);
                    assert_int_equal(cut, n / 3);
                    points += n, scans += 2;
                }
            }
        }
        long x, y, z;
        sim_pool_counts(pool, &x, &y, &z);
        wk += x, cl += y, ag += z;
        sim_pool_free(pool);
    }
    printf("  chunked casts on 2, 3, 7 threads against the serial cast: %ld scans, %ld points, identical bytes; "
           "chunks cast by workers %ld, by the caller %ld, again by the caller %ld\n", scans, points, wk, cl, ag);
    assert_true(ag > 0); /* the pool with no wait cast some chunk again */
    free(a), free(b), free(ra), free(rb);
    sim_hmax_free(hm);
    trv_ctx_free(ctx);
}

/* The pyramid's t for a ray, and the lanes' (one ray in a packet),
 * asserted bit-identical to the plain march's. */
static double both(const sim_hmax *hm, const sim_field *f, const double o[3], const double d[3], double tmax)
{
    double want = sim_ray_field(f, o, d, tmax), got = sim_hmax_ray(hm, o, d, tmax), lane;
    sim_hmax_rays(hm, 1, (const double(*)[3])o, (const double(*)[3])d, &tmax, &lane);
    assert_memory_equal(&want, &lane, sizeof want);
    if (memcmp(&want, &got, sizeof want) != 0)
        printf("  differs: o (%.17g %.17g %.17g) d (%.17g %.17g %.17g) tmax %.17g: plain %.17g pyramid %.17g\n", o[0],
               o[1], o[2], d[0], d[1], d[2], tmax, want, got);
    assert_memory_equal(&want, &got, sizeof want);
    return want;
}

static void unit(double d[3])
{
    double n = sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
    d[0] /= n, d[1] /= n, d[2] /= n;
}

#define EX 40
#define EY 30
static float E[EX * EY];

/* Flat ground at 0 on 40 x 30 cells of 2 x 3 m, a spike of 5 m at node
 * (10, 12), a plateau of 2 m over nodes (30..33, 3..6), nodata over nodes
 * (20..24, 15..19). */
static sim_field edge_field(void)
{
    for (int k = 0; k < EX * EY; k++)
        E[k] = 0;
    E[12 * EX + 10] = 5;
    for (int j = 3; j <= 6; j++)
        for (int i = 30; i <= 33; i++)
            E[j * EX + i] = 2;
    for (int j = 15; j <= 19; j++)
        for (int i = 20; i <= 24; i++)
            E[j * EX + i] = NODATA;
    return (sim_field){E, EX, EY, 500.0, 800.0, 2.0, 3.0, 1, NODATA};
}

/* Node (i, j)'s map position. */
static double node_x(const sim_field *f, double i) { return f->x0 + i * f->dx; }
static double node_y(const sim_field *f, double j) { return f->y0 - j * f->dy; }

/* Rays along the march's patch borders (the lines through the nodes, one
 * coordinate fixed) and through the nodes diagonally, onto flat ground:
 * the hit where z = 0, t = z0 / -d_z. */
static void test_hmax_edge_borders(void **state)
{
    (void)state;
    sim_field f = edge_field();
    trv_ctx *ctx = trv_ctx_new();
    sim_hmax *hm = NULL;
    assert_int_equal(sim_hmax_new(ctx, &f, &hm), TRV_OK);
    int n = 0;
    for (int i = 1; i < 8; i++) {
        double rays[4][3] = {{0, -1, -0.05}, {0, 1, -0.05}, {1, 0, -0.05}, {-1, 0, -0.05}};
        for (int k = 0; k < 4; k++) {
            double d[3] = {rays[k][0], rays[k][1], rays[k][2]};
            unit(d);
            /* on node column i (south/north) or node row i (east/west), well inside the grid */
            double o[3] = {node_x(&f, k < 2 ? i : 12), node_y(&f, k < 2 ? 15 : i), 1.0};
            double t = both(hm, &f, o, d, INFINITY), want = o[2] / -d[2];
            assert_true(fabs(t - want) < 1e-9 * want);
            n++;
        }
        /* diagonally through the nodes: dc = dr (dx = 2, dy = 3) */
        double d[3] = {2, -3, -0.4};
        unit(d);
        double o[3] = {node_x(&f, i), node_y(&f, 18 + i), 1.5};
        double t = both(hm, &f, o, d, INFINITY), want = o[2] / -d[2];
        assert_true(fabs(t - want) < 1e-9 * want);
        n++;
    }
    printf("  rays along patch borders and through nodes: %d, hits at z = 0 to 1e-9\n", n);
    sim_hmax_free(hm);
    trv_ctx_free(ctx);
}

/* Level rays at the spike's and the plateau's top, through them: the
 * spike is met at its node (t = the distance to it), the plateau at its
 * rim (ray z = 2 on the flat top: the patch entered is the hit); one ulp
 * higher they pass over the spike and over the plateau (only for the last,
 * grazing the pyramid's block maxima exactly, the hit is not over the
 * plateau's corners). */
static void test_hmax_edge_grazing(void **state)
{
    (void)state;
    sim_field f = edge_field();
    trv_ctx *ctx = trv_ctx_new();
    sim_hmax *hm = NULL;
    assert_int_equal(sim_hmax_new(ctx, &f, &hm), TRV_OK);
    double nx = node_x(&f, 10), ny = node_y(&f, 12);
    double o[3] = {nx - 13, ny - 7, 5.0}, d[3] = {13, 7, 0};
    unit(d);
    double t = both(hm, &f, o, d, INFINITY), want = hypot(13, 7);
    assert_true(fabs(t - want) < 1e-9 * want);
    o[2] = nextafter(5.0, INFINITY);
    assert_true(isinf(both(hm, &f, o, d, INFINITY)));
    /* plateau (nodes 30..33, 3..6): from the west along node row 4.5, level at 2 */
    double p[3] = {node_x(&f, 25), node_y(&f, 4.5), 2.0}, e[3] = {1, 0, 0};
    t = both(hm, &f, p, e, INFINITY);
    assert_true(t > node_x(&f, 29) - p[0] - 1e-9 && t < node_x(&f, 30) - p[0] + 1e-9);
    p[2] = nextafter(2.0, INFINITY);
    assert_true(isinf(both(hm, &f, p, e, INFINITY)));
    /* and falling onto the plateau's top from above it */
    double q[3] = {node_x(&f, 31.5), node_y(&f, 4.5), 12.0}, down[3] = {0, 0, -1};
    t = both(hm, &f, q, down, INFINITY);
    assert_true(fabs(t - 10.0) < 1e-9);
    printf("  grazing the spike and the plateau (and one ulp above): hits at the node and the rim, misses above\n");
    sim_hmax_free(hm);
    trv_ctx_free(ctx);
}

/* Rays leaving the raster, coming into it, and stopping at its edge;
 * rays through nodata (transparent: the ground beyond is met when the ray
 * is below it, at the first solid patch's entry); a field all nodata. */
static void test_hmax_edge_raster(void **state)
{
    (void)state;
    sim_field f = edge_field();
    trv_ctx *ctx = trv_ctx_new();
    sim_hmax *hm = NULL;
    assert_int_equal(sim_hmax_new(ctx, &f, &hm), TRV_OK);
    double xw = f.x0 - 0.5 * f.dx, xe = f.x0 + (EX - 0.5) * f.dx; /* the extent's west and east edges */
    /* inside, out east, rising: nothing */
    double o[3] = {node_x(&f, 36), node_y(&f, 20), 0.5}, d[3] = {1, 0, 0.01};
    unit(d);
    assert_true(isinf(both(hm, &f, o, d, INFINITY)));
    /* from 50 m west of the raster, falling: enters it and meets z = 0 */
    double w[3] = {xw - 50, node_y(&f, 25), 3.0}, e[3] = {1, 0, -0.04};
    unit(e);
    double t = both(hm, &f, w, e, INFINITY), want = 3.0 / -e[2];
    assert_true(fabs(t - want) < 1e-9 * want);
    /* ... and a tmax that ends it before the ground: nothing */
    assert_true(isinf(both(hm, &f, w, e, want - 1e-6)));
    /* falling so gently it leaves the raster east before reaching 0 */
    double g[3] = {xw - 1, node_y(&f, 25), 0.5}, h[3] = {1, 0, -0.005};
    unit(h);
    assert_true(isinf(both(hm, &f, g, h, INFINITY)));
    /* from the east, away from the raster */
    double a[3] = {xe + 5, node_y(&f, 10), 1.0}, b[3] = {1, 0.2, -0.5};
    unit(b);
    assert_true(isinf(both(hm, &f, a, b, INFINITY)));
    /* through the nodata block (nodes 20..24, 15..19; patches 19..24 transparent) along row 17: from node 15 at
     * 1.1 m falling 0.25 m a node, the ray goes below 0 inside the hole (at node 19.4) and meets the first solid
     * patch at its entry, node 25 */
    double c[3] = {node_x(&f, 15), node_y(&f, 17), 1.1}, s[3] = {f.dx, 0, -0.25};
    unit(s);
    t = both(hm, &f, c, s, INFINITY);
    want = (node_x(&f, 25) - c[0]) / s[0];
    assert_true(fabs(t - want) < 1e-9 * want);
    /* a field all nodata: nothing, ever */
    for (int k = 0; k < EX * EY; k++)
        E[k] = NODATA;
    sim_hmax *hn = NULL;
    assert_int_equal(sim_hmax_new(ctx, &f, &hn), TRV_OK);
    trv_rng r;
    trv_rng_seed(&r, 5);
    for (int k = 0; k < 2000; k++) {
        double ro[3] = {f.x0 + EX * f.dx * trv_rng_uniform(&r), f.y0 - EY * f.dy * trv_rng_uniform(&r), 1},
               rd[3] = {trv_rng_uniform(&r) - 0.5, trv_rng_uniform(&r) - 0.5, -trv_rng_uniform(&r)};
        unit(rd);
        assert_true(isinf(both(hn, &f, ro, rd, INFINITY)));
    }
    printf("  leaving, entering and stopping at the raster; through nodata to the solid ground; all nodata: "
           "nothing\n");
    sim_hmax_free(hn);
    sim_hmax_free(hm);
    trv_ctx_free(ctx);
}

/* The demo's DEM (data/jacksboro/dem_3arcsec.tif, 403 x 344 SRTM heights)
 * as a 30 m grid, three times steeper than the ground itself: 100 000 rays
 * of a LiDAR at 1.8 m over random cells (lines -15 .. 15 degrees, 100 m)
 * and 20 000 long ones (to 5 km, from 0 .. 300 m up) give the plain
 * march's t bit for bit; each hit lies on the surface (|z - h| < 1e-6 m,
 * sim_height, independent of both marches). Then scans over it from
 * random poses, with and without the pyramid, give the same bytes. */
static void test_hmax_dem(void **state)
{
    (void)state;
    geo_init();
    trv_ctx *ctx = trv_ctx_new();
    char *path = data_path("jacksboro/dem_3arcsec.tif");
    geo_raster *dem = NULL;
    assert_int_equal(geo_raster_read(ctx, path, GEO_F32, &dem), TRV_OK);
    free(path);
    sim_field f;
    sim_field_from_raster(dem, &f);
    f.dx = f.dy = 30.0, f.x0 = 600000.0, f.y0 = 4100000.0;
    sim_hmax *hm = NULL;
    assert_int_equal(sim_hmax_new(ctx, &f, &hm), TRV_OK);
    trv_rng r;
    trv_rng_seed(&r, 1616);
    long hits = 0, n = 0, off = 0, far = 0;
    for (int k = 0; k < 120000; k++) {
        double o[3], d[3], tmax;
        do {
            o[0] = f.x0 + (f.nx - 1) * f.dx * trv_rng_uniform(&r);
            o[1] = f.y0 - (f.ny - 1) * f.dy * trv_rng_uniform(&r);
            o[2] = sim_height(&f, o[0], o[1]);
        } while (!isfinite(o[2]));
        double az = 2 * M_PI * trv_rng_uniform(&r), el;
        if (k < 100000) {
            o[2] += 1.8, el = (-15 + 30 * trv_rng_uniform(&r)) * M_PI / 180, tmax = 100;
        } else {
            o[2] += 300 * trv_rng_uniform(&r), el = -0.3 * trv_rng_uniform(&r), tmax = 5000;
        }
        d[0] = cos(el) * cos(az), d[1] = cos(el) * sin(az), d[2] = sin(el);
        double t = both(hm, &f, o, d, tmax);
        n++;
        if (isinf(t))
            continue;
        hits++, far += t > 1000;
        double x = o[0] + t * d[0], y = o[1] + t * d[1], z = o[2] + t * d[2];
        off += !(fabs(z - sim_height(&f, x, y)) < 1e-6);
    }
    printf("  demo DEM at 30 m: %ld rays, %ld hits (%ld beyond 1 km), bit-identical; %ld hits off the surface\n", n,
           hits, far, off);
    assert_int_equal(off, 0);
    assert_true(hits > 30000 && n - hits > 30000 && far > 1000);
    sim_sensor ls = {.kind = SIM_LIDAR3D, .lines = 16, .hfov_rad = 2 * M_PI, .vfov_rad = 30 * M_PI / 180,
                     .hres_rad = 0.4 * M_PI / 180, .range_m = 100, .mount_h_m = 1.8, .noise = 0.02};
    int nr = sim_lidar_rays(&ls);
    double *a = malloc(3 * sizeof *a * nr), *b = malloc(3 * sizeof *b * nr);
    assert_non_null(a), assert_non_null(b);
    sim_world w = {.field = &f};
    long total = 0;
    for (int k = 0; k < 8; k++) {
        sim_state s = {.heading = 2 * M_PI * trv_rng_uniform(&r), .pitch = 0.1 * (trv_rng_uniform(&r) - 0.5),
                       .roll = 0.1 * (trv_rng_uniform(&r) - 0.5)};
        do {
            s.x = f.x0 + (f.nx - 1) * f.dx * trv_rng_uniform(&r);
            s.y = f.y0 - (f.ny - 1) * f.dy * trv_rng_uniform(&r);
            s.z = sim_height(&f, s.x, s.y);
        } while (!isfinite(s.z));
        trv_rng r1, r2;
        trv_rng_seed(&r1, 70 + k), trv_rng_seed(&r2, 70 + k);
        w.hmax = NULL;
        int na = sim_lidar_scan(&ls, &w, &s, &r1, a, nr);
        w.hmax = hm;
        int nb = sim_lidar_scan(&ls, &w, &s, &r2, b, nr);
        assert_int_equal(na, nb);
        assert_memory_equal(a, b, 3 * sizeof *a * na);
        total += na;
    }
    printf("  scans over the demo DEM with and without the pyramid: 8 x %d rays, %ld points, identical bytes\n", nr,
           total);
    assert_true(total > nr);
    free(a), free(b);
    sim_hmax_free(hm);
    geo_raster_free(dem);
    trv_ctx_free(ctx);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_hmax_rays),
        cmocka_unit_test(test_hmax_lanes),
        cmocka_unit_test(test_hmax_scan),
        cmocka_unit_test(test_hmax_pool),
        cmocka_unit_test(test_hmax_edge_borders),
        cmocka_unit_test(test_hmax_edge_grazing),
        cmocka_unit_test(test_hmax_edge_raster),
        cmocka_unit_test(test_hmax_dem),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
