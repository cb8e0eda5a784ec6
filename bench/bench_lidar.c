/* The LiDAR's ray casting alone, for bench/sim.sh: the scans of a drive
 * replayed from its trajectory (trv-sim's trajectory_*.csv: t, x, y, z,
 * heading_deg, pitch_deg, roll_deg, ...) over a DEM, once with the plain
 * cell-by-cell march (sim_ray_field) and once through the max-height
 * pyramid (sim_hmax_ray), the sensor of data/scenarios/blocked.ini without
 * noise (16 lines over 30 degrees, all round in 0.4 degree steps, 100 m,
 * 1.8 m up), scan by scan in turn. Prints the CPU time per ray of each and
 * checks that every range is the same bit for bit (exit 1 if not).
 *
 * With "paths" after MAX_SCANS it measures instead whether the 16 lines of
 * an azimuth could share one march (docs/benchmarks.md, issue 16): per
 * pose and azimuth, whether the lines' patch sequences (the march's,
 * within 100 m) agree as far as both go.
 *
 *   bench_lidar DEM.tif TRAJECTORY.csv [MAX_SCANS [paths]]
 */
#include "geo/geo.h"
#include "sim/ray_patch.h"
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

/* The patches the march of a ray visits (at most cap): their count. */
static int patches(const sim_field *f, const double o[3], const double d[3], double tmax, int *pi, int *pj, int cap)
{
    sim_march m;
    if (!sim_march_start(f, o, d, tmax, &m))
        return 0;
    int n = 0;
    double t = m.ta;
    for (;;) {
        if (n < cap)
            pi[n] = m.i, pj[n] = m.j, n++;
        if (sim_dmin(sim_dmin(m.ti, m.tj), m.tb) >= m.tb || !sim_march_step(f, &m, &t))
            return n;
    }
}

/* The sensor's rays of azimuth a from pose s (sensor.c's formulas). */
static void rays(const sim_sensor *ls, const sim_state *s, int a, double o[3], double d[][3])
{
    double ch = cos(s->heading), sh = sin(s->heading), cp = cos(s->pitch), sp = sin(s->pitch);
    double cr = cos(s->roll), sr = sin(s->roll);
    double R[3][3] = {{ch * cp, -sh * cr - ch * sp * sr, sh * sr - ch * sp * cr},
                      {sh * cp, ch * cr - sh * sp * sr, -ch * sr - sh * sp * cr},
                      {sp, cp * sr, cp * cr}};
    o[0] = s->x + R[0][2] * ls->mount_h_m, o[1] = s->y + R[1][2] * ls->mount_h_m;
    o[2] = s->z + R[2][2] * ls->mount_h_m;
    int naz = sim_lidar_rays(ls) / ls->lines;
    double az = -M_PI + a * (2.0 * M_PI / naz), ca = cos(az), sa = sin(az);
    for (int l = 0; l < ls->lines; l++) {
        double el = -0.5 * ls->vfov_rad + l * ls->vfov_rad / (ls->lines - 1), b0 = cos(el) * ca,
               b1 = cos(el) * sa, b2 = sin(el);
        for (int r = 0; r < 3; r++)
            d[l][r] = R[r][0] * b0 + R[r][1] * b1 + R[r][2] * b2;
    }
}

/* How many azimuths have two lines whose patch sequences differ. */
static void paths(const sim_sensor *ls, const sim_field *f, const sim_state *s, int n)
{
    long naz = 0, differ = 0, tilted = 0;
    enum { CAP = 64 };
    for (int k = 0; k < n; k++) {
        tilted += s[k].pitch != 0 || s[k].roll != 0;
        for (int a = 0; a < sim_lidar_rays(ls) / ls->lines; a++) {
            double o[3], d[16][3];
            int pi[16][CAP], pj[16][CAP], np[16], same = 1;
            rays(ls, &s[k], a, o, d);
            for (int l = 0; l < 16; l++)
                np[l] = patches(f, o, d[l], ls->range_m, pi[l], pj[l], CAP);
            for (int l = 1; l < 16 && same; l++) {
                int m = np[l] < np[0] ? np[l] : np[0];
                same = !memcmp(pi[l], pi[0], m * sizeof(int)) && !memcmp(pj[l], pj[0], m * sizeof(int));
            }
            naz++, differ += !same;
        }
    }
    printf("LiDAR lines of one azimuth: %d poses (%ld tilted), %ld azimuths, %ld (%.1f %%) with two lines whose "
           "patches differ within %.0f m\n",
           n, tilted, naz, differ, 100.0 * differ / naz, ls->range_m);
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
    if (argc > 4 && strcmp(argv[4], "paths") == 0) {
        paths(&ls, &f, s, n);
        free(s);
        sim_hmax_free(hm);
        geo_raster_free(dem);
        trv_ctx_free(ctx);
        return 0;
    }
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
