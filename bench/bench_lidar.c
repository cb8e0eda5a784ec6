/* The LiDAR's ray casting alone, for bench/sim.sh: the scans of a drive
 * replayed from its trajectory (trv-sim's trajectory_*.csv: t, x, y, z,
 * heading_deg, pitch_deg, roll_deg, ...) over a DEM, once with the plain
 * cell-by-cell march (sim_ray_field) and once through the max-height
 * pyramid (sim_hmax_ray), the sensor of data/scenarios/blocked.ini without
 * noise (16 lines over 30 degrees, all round in 0.4 degree steps, 100 m,
 * 1.8 m up), scan by scan in turn. Prints the CPU time per ray of each and
 * checks that every range is the same bit for bit (exit 1 if not).
 *
 *   bench_lidar DEM.tif TRAJECTORY.csv [MAX_SCANS]
 */
#include "geo/geo.h"
#include "sim/sim.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double cpu_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

/* The poses of the trajectory (at most cap); their count. */
static int read_poses(const char *path, sim_state *s, int cap)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return -1;
    char line[512];
    int n = 0;
    const double k = M_PI / 180;
    while (n < cap && fgets(line, sizeof line, f)) {
        double t, x, y, z, h, p, r;
        if (sscanf(line, "%lf,%lf,%lf,%lf,%lf,%lf,%lf", &t, &x, &y, &z, &h, &p, &r) == 7)
            s[n++] = (sim_state){.x = x, .y = y, .z = z, .heading = h * k, .pitch = p * k, .roll = r * k};
    }
    fclose(f);
    return n;
}

/* One scan's ranges into out; the CPU seconds it took. */
static double scan(const sim_sensor *ls, sim_world *w, const sim_hmax *hm, const sim_state *s, trv_rng *rng,
                   float *out, double *xyz, long *hits)
{
    w->hmax = hm, w->ranges = out;
    double t0 = cpu_s();
    *hits += sim_lidar_scan(ls, w, s, rng, xyz, sim_lidar_rays(ls));
    return cpu_s() - t0;
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: bench_lidar DEM.tif TRAJECTORY.csv [MAX_SCANS]\n");
        return 2;
    }
    int cap = argc > 3 ? atoi(argv[3]) : 3000;
    geo_init();
    trv_ctx *ctx = trv_ctx_new();
    geo_raster *dem = NULL;
    sim_hmax *hm = NULL;
    sim_field f;
    if (geo_raster_read(ctx, argv[1], GEO_F32, &dem) == TRV_OK) {
        sim_field_from_raster(dem, &f);
        sim_hmax_new(ctx, &f, &hm);
    }
    sim_state *s = malloc((size_t)cap * sizeof *s);
    int n = s ? read_poses(argv[2], s, cap) : -1;
    if (!hm || n < 1) {
        fprintf(stderr, "bench_lidar: %s\n", !hm ? trv_errmsg(ctx) : "no poses in the trajectory");
        return 1;
    }
    sim_sensor ls = {.kind = SIM_LIDAR3D, .rate_hz = 10, .lines = 16, .hfov_rad = 2 * M_PI,
                     .vfov_rad = 30 * M_PI / 180, .hres_rad = 0.4 * M_PI / 180, .range_m = 100, .mount_h_m = 1.8};
    int nr = sim_lidar_rays(&ls);
    float *a = malloc((size_t)nr * sizeof *a), *b = malloc((size_t)nr * sizeof *b);
    double *xyz = malloc(3 * sizeof *xyz * nr);
    if (!a || !b || !xyz) {
        fprintf(stderr, "bench_lidar: out of memory\n");
        return 1;
    }
    sim_world w = {.field = &f};
    trv_rng ra, rb;
    trv_rng_seed(&ra, 1), trv_rng_seed(&rb, 1);
    long ha = 0, hb = 0;
    double ta = 0, tb = 0;
    int same = 1;
    for (int k = 0; k < n; k++) { /* each scan both ways, in turn: the same load on both */
        ta += scan(&ls, &w, NULL, &s[k], &ra, a, xyz, &ha);
        tb += scan(&ls, &w, hm, &s[k], &rb, b, xyz, &hb);
        same = same && memcmp(a, b, (size_t)nr * sizeof *a) == 0;
    }
    same = same && ha == hb;
    double rays = (double)n * nr;
    printf("LiDAR rays alone, %d scans of %d rays (%ld hits) replayed: plain march %.1f ns/ray, pyramid %.1f ns/ray "
           "(CPU; %.2fx), ranges %s\n",
           n, nr, hb, 1e9 * ta / rays, 1e9 * tb / rays, ta / tb, same ? "identical" : "DIFFER");
    free(a), free(b), free(xyz), free(s);
    sim_hmax_free(hm);
    geo_raster_free(dem);
    trv_ctx_free(ctx);
    return same ? 0 : 1;
}
