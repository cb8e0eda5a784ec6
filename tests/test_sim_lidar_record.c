/* The run's LiDAR record (src/sim/lidar_record.c, lidar_record.h): which
 * scans are kept (the first, then the first at or after lidar_record_s
 * since the last kept: on a 10 Hz scan clock with 0.25 s, t = 0, 0.3,
 * 0.6, ...), which points of a scan (hit floor(j n / B) of n hits under a
 * budget of B, all of them in order when n <= B; checked point by point
 * on hits whose coordinates encode their index), and the NDJSON line: the
 * pose (heading in degrees), hits, n and the points less the vehicle's
 * position, read back from the file. */
#include "test_common.h"

#include <math.h>

#include "sim/lidar_record.h"

/* |a - b| <= tol, the values shown when not */
#define assert_near(a, b, tol) \
    do { \
        double a_ = (a), b_ = (b); \
        if (!(fabs(a_ - b_) <= (tol))) \
            fail_msg("%s = %.9g, want %.9g within %g", #a, a_, b_, (double)(tol)); \
    } while (0)

/* One scan line read back: its numbers and up to cap points (3 a point). */
typedef struct scan_line {
    double t, x, y, z, heading_deg;
    long hits, n, nxyz;
    double xyz[3 * 1200];
} scan_line;

/* The record's lines (at most max) into out; returns their number. */
static int read_record(const char *path, scan_line *out, int max)
{
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    static char line[1 << 20];
    int k = 0;
    while (k < max && fgets(line, sizeof line, f)) {
        scan_line *s = &out[k++];
        int used = 0;
        assert_int_equal(sscanf(line, "{\"t\": %lf, \"x\": %lf, \"y\": %lf, \"z\": %lf, \"heading_deg\": %lf, "
                                      "\"hits\": %ld, \"n\": %ld, \"xyz\": [%n",
                                &s->t, &s->x, &s->y, &s->z, &s->heading_deg, &s->hits, &s->n, &used),
                         7);
        assert_true(used > 0);
        char *p = line + used, *end;
        s->nxyz = 0;
        while (*p != ']') {
            assert_true(s->nxyz < 3 * 1200);
            s->xyz[s->nxyz++] = strtod(p, &end);
            assert_true(end > p);
            p = *end == ',' ? end + 1 : end;
        }
        assert_string_equal(p, "]}\n");
    }
    fclose(f);
    return k;
}

/* n hits about (x0, y0, z0): hit i at + (i / 4, -i, i / 2), exact in binary. */
static double *hits_of(long n, double x0, double y0, double z0)
{
    double *h = malloc(3 * n * sizeof *h);
    for (long i = 0; i < n; i++)
        h[3 * i] = x0 + i * 0.25, h[3 * i + 1] = y0 - i, h[3 * i + 2] = z0 + i * 0.5;
    return h;
}

/* The points of a line are hits idx(j): offsets (idx / 4, -idx, idx / 2). */
static void check_points(const scan_line *s, long n, long b)
{
    long k = n < b ? n : b;
    assert_int_equal(s->hits, n);
    assert_int_equal(s->n, k);
    assert_int_equal(s->nxyz, 3 * k);
    for (long j = 0; j < k; j++) {
        long idx = n <= b ? j : (long)floor((double)j * n / b); /* floor(j n / B) */
        if (n > b) /* the same as integer division */
            assert_int_equal(idx, j * n / b);
        assert_near(s->xyz[3 * j], idx * 0.25, 0.006);
        assert_near(s->xyz[3 * j + 1], -(double)idx, 0.006);
        assert_near(s->xyz[3 * j + 2], idx * 0.5, 0.006);
    }
}

static scan_line lines[40];

static void test_points_and_line(void **state)
{
    (void)state;
    sim_scenario sc = {0};
    sc.lidar_record_s = 1, sc.lidar_record_points = 300;
    sim_lidrec *rec = NULL;
    sim_state s = {.x = 500123.5, .y = 4000456.25, .z = 101.75, .heading = M_PI / 6};
    double *h = hits_of(1000, s.x, s.y, s.z);
    sim_lidrec_scan(&rec, &sc, 0, &s, h, 1000); /* decimated: 300 of 1000 */
    sim_lidrec_scan(&rec, &sc, 1, &s, h, 50);   /* under the budget: all 50 */
    sim_lidrec_scan(&rec, &sc, 2, &s, h, 300);  /* exactly the budget */
    sim_lidrec_scan(&rec, &sc, 3, &s, h, 0);    /* no hit */
    assert_int_equal(sim_lidrec_scans(rec), 4);
    char *dir = make_tmpdir(), *path = NULL;
    assert_true(asprintf(&path, "%s/lidar.ndjson", dir) > 0);
    trv_ctx *ctx = trv_ctx_new();
    assert_int_equal(sim_lidrec_write(ctx, rec, path), TRV_OK);
    assert_int_equal(read_record(path, lines, 40), 4);
    assert_near(lines[0].t, 0, 1e-9);
    assert_near(lines[0].x, 500123.5, 1e-6);
    assert_near(lines[0].y, 4000456.25, 1e-6);
    assert_near(lines[0].z, 101.75, 1e-6);
    assert_near(lines[0].heading_deg, 30, 1e-3);
    check_points(&lines[0], 1000, 300);
    /* by hand: the last point kept of 1000 under 300 is hit 996 (floor(299000 / 300)) */
    assert_near(lines[0].xyz[3 * 299 + 1], -996, 1e-9);
    assert_near(lines[1].t, 1, 1e-9);
    check_points(&lines[1], 50, 300);
    check_points(&lines[2], 300, 300);
    check_points(&lines[3], 0, 300);
    trv_ctx_free(ctx);
    sim_lidrec_free(rec);
    free(h);
    free(path);
    rm_rf(dir);
    free(dir);
}

/* A 10 Hz scan clock (t = i / 10) recorded every 0.25 s keeps t = 0, 0.3,
 * 0.6, ... (each the first at or after the last kept + 0.25); 0 keeps none. */
static void test_interval(void **state)
{
    (void)state;
    sim_scenario sc = {0};
    sc.lidar_record_s = 0.25, sc.lidar_record_points = 10;
    sim_lidrec *rec = NULL;
    sim_state s = {.x = 10, .y = 20, .z = 30};
    double *h = hits_of(5, s.x, s.y, s.z);
    for (int i = 0; i <= 20; i++)
        sim_lidrec_scan(&rec, &sc, i * 0.1, &s, h, 5);
    assert_int_equal(sim_lidrec_scans(rec), 7);
    char *dir = make_tmpdir(), *path = NULL;
    assert_true(asprintf(&path, "%s/lidar.ndjson", dir) > 0);
    trv_ctx *ctx = trv_ctx_new();
    assert_int_equal(sim_lidrec_write(ctx, rec, path), TRV_OK);
    assert_int_equal(read_record(path, lines, 40), 7);
    for (int k = 0; k < 7; k++) {
        assert_near(lines[k].t, 0.3 * k, 1e-6);
        check_points(&lines[k], 5, 10);
    }
    sim_lidrec_free(rec);
    /* off: nothing recorded, no record made */
    sc.lidar_record_s = 0;
    rec = NULL;
    for (int i = 0; i <= 20; i++)
        sim_lidrec_scan(&rec, &sc, i * 0.1, &s, h, 5);
    assert_null(rec);
    assert_int_equal(sim_lidrec_scans(rec), 0);
    /* the pick itself */
    assert_int_equal(sim_lidrec_pick(10, 20, 7), 7);
    assert_int_equal(sim_lidrec_pick(10, 4, 3), 7); /* floor(30 / 4) */
    assert_int_equal(sim_lidrec_pick(7, 3, 2), 4);  /* floor(14 / 3) */
    trv_ctx_free(ctx);
    free(h);
    free(path);
    rm_rf(dir);
    free(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_points_and_line),
        cmocka_unit_test(test_interval),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
