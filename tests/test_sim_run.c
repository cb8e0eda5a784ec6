/* The simulator's runner on a synthetic flat terrain built in memory (200 x
 * 200 cells of 2 m, UTM 16N, GO everywhere, 15 km/h): an obstacle that
 * appears on the path forces a re-plan and the vehicle still reaches its
 * goal without a collision, its recorded trajectory passing the wall's end
 * clear of it; without a LiDAR it collides (by design); a U-shaped dead
 * end is escaped; two vehicles on crossing routes would collide alone
 * (their footprints overlap, brute force from the trajectories) and
 * together keep the yield rule's margin (one yields); the same seed gives
 * byte-identical outputs;
 * obstacles placed along a route (at_route_m / at_route_fraction) land
 * where the hand-worked coordinates say, on a straight and an L-shaped
 * route, and one of them forces a re-plan; and the scenario / obstacles
 * errors. */
#include "test_common.h"
#include "test_terrain_mem.h"

#include "sim/sim.h"

#include <math.h>

#define NXY 200
#define CELL 2.0
#define X0 500000.0
#define Y0 4000400.0 /* north edge; the map spans y in [Y0 - 400, Y0] */

static prm_terrain T;
static char *tmp, *vehicle;

static int setup(void **state)
{
    (void)state;
    geo_init();
    if (test_terrain_flat(&T, NXY, NXY, X0, Y0, CELL))
        return -1;
    tmp = make_tmpdir();
    vehicle = data_path("vehicles/ugv_hua2022.ini");
    return tmp && vehicle ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    prm_terrain_clear(&T);
    rm_rf(tmp);
    free(tmp);
    free(vehicle);
    return 0;
}

/* map coordinates of a point given relative to the south-west corner */
static double mx(double x) { return X0 + x; }
static double my(double y) { return Y0 - 400 + y; }

/* A GeoJSON in the map CRS with polygons given as "x0 y0 x1 y1" boxes
 * (relative coordinates), each with height, appear_s. */
static char *obstacles_file(const char *name, int n, const double (*box)[4], const double *appear)
{
    char *text = NULL, *feats = calloc(1, 1);
    for (int k = 0; k < n; k++) {
        double a = mx(box[k][0]), b = my(box[k][1]), c = mx(box[k][2]), d = my(box[k][3]);
        char *f = NULL;
        assert_true(asprintf(&f,
                             "%s%s{\"type\": \"Feature\", \"properties\": {\"id\": \"o%d\", \"height_m\": 2, "
                             "\"appear_s\": %g}, \"geometry\": {\"type\": \"Polygon\", \"coordinates\": [[[%.2f, %.2f], "
                             "[%.2f, %.2f], [%.2f, %.2f], [%.2f, %.2f], [%.2f, %.2f]]]}}\n",
                             feats, k ? "," : "", k, appear[k], a, b, c, b, c, d, a, d, a, b) >= 0);
        free(feats);
        feats = f;
    }
    assert_true(asprintf(&text,
                         "{\"type\": \"FeatureCollection\", \"crs\": {\"type\": \"name\", \"properties\": {\"name\": "
                         "\"urn:ogc:def:crs:EPSG::32616\"}},\n\"features\": [\n%s]}\n",
                         feats) >= 0);
    char *p = write_file(tmp, name, text);
    free(text);
    free(feats);
    return p;
}

static const char *LIDAR2D = "[lidar2d.%s]\nrate_hz = 10\nhres_deg = 1\nrange_m = %g\nmount_h_m = 0.8\n";

/* A vehicle section driving from (x0, y0) to (x1, y1) (relative). */
static char *vehicle_sec(const char *id, double x0, double y0, double x1, double y1, double lidar_range)
{
    char *s = NULL, *l = NULL;
    if (lidar_range > 0)
        assert_true(asprintf(&l, LIDAR2D, id, lidar_range) >= 0);
    assert_true(asprintf(&s,
                         "[vehicle.%s]\nfile = %s\nmodel = ackermann\nstart = %.2f,%.2f\ngoal = %.2f,%.2f\n"
                         "srs = map\n[gnss.%s]\nnoise_m = 0.02\n%s",
                         id, vehicle, mx(x0), my(y0), mx(x1), my(y1), id, l ? l : "") >= 0);
    free(l);
    return s;
}

typedef struct result {
    sim_run *run;
    sim_scenario *sc;
} result;

static trv_status run_scenario(const char *name, const char *text, uint64_t seed, result *res, trv_ctx *ctx)
{
    char *p = write_file(tmp, name, text);
    memset(res, 0, sizeof *res);
    trv_status st = sim_scenario_read(ctx, p, &res->sc);
    sim_env env = {.seed = seed};
    if (!st)
        st = sim_run_new(ctx, res->sc, &T, &env, &res->run);
    if (!st)
        st = sim_run_go(ctx, res->run);
    free(p);
    return st;
}

static void result_free(result *r)
{
    sim_run_free(r->run);
    sim_scenario_free(r->sc);
}

static void print_metrics(const char *what, const sim_run *r)
{
    for (int k = 0; k < sim_run_nvehicles(r); k++) {
        const sim_metrics *m = sim_run_metrics(r, k);
        printf("  %s %s: goal %d (%s) time %.1f s (planned %.1f) xte rms %.3f max %.3f replans %d "
               "collisions %d stops %d yields %d, %.0fx real time\n",
               what, m->id, m->reached_goal, m->end, m->time_s, m->planned_time_s, m->cross_track_rms_m,
               m->cross_track_max_m, m->replans, m->collisions, m->stops, m->yields,
               m->sim_time_s / fmax(sim_run_wall_s(r), 1e-9));
    }
}

/* A vehicle's recorded trajectory (t, x, y, heading), read back from the
 * trajectory_<id>.csv that sim_run_write makes in tmp/DIR. */
/* sim_run_write into a set of its own, committed. */
static trv_status write_run(trv_ctx *ctx, const sim_run *run, const char *out, const trv_meta *meta, int timing)
{
    trv_outset *set = trv_outset_new();
    trv_status st = set ? sim_run_write(ctx, set, run, out, meta, timing) : TRV_ERR_NOMEM;
    if (!st)
        st = trv_outset_commit(ctx, set);
    trv_outset_free(set);
    return st;
}

typedef struct traj {
    int n;
    double *t, *x, *y, *h;
} traj;

static void traj_read(trv_ctx *ctx, const sim_run *run, const char *dir, const char *id, traj *tr)
{
    char *out = NULL, *path = NULL;
    assert_true(asprintf(&out, "%s/%s", tmp, dir) >= 0);
    assert_int_equal(write_run(ctx, run, out, NULL, 0), TRV_OK);
    assert_true(asprintf(&path, "%s/trajectory_%s.csv", out, id) >= 0);
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    memset(tr, 0, sizeof *tr);
    char line[512];
    int cap = 0;
    assert_non_null(fgets(line, sizeof line, f)); /* the header */
    assert_true(strncmp(line, "t,x,y,z,heading_deg,", 20) == 0);
    while (fgets(line, sizeof line, f)) {
        if (tr->n == cap) {
            cap = cap ? 2 * cap : 1024;
            tr->t = realloc(tr->t, cap * sizeof *tr->t);
            tr->x = realloc(tr->x, cap * sizeof *tr->x);
            tr->y = realloc(tr->y, cap * sizeof *tr->y);
            tr->h = realloc(tr->h, cap * sizeof *tr->h);
            assert_true(tr->t && tr->x && tr->y && tr->h);
        }
        double z, hd;
        assert_int_equal(sscanf(line, "%lf,%lf,%lf,%lf,%lf", &tr->t[tr->n], &tr->x[tr->n], &tr->y[tr->n], &z, &hd),
                         5);
        tr->h[tr->n++] = hd * M_PI / 180;
    }
    fclose(f);
    free(path), free(out);
}

static void traj_free(traj *tr)
{
    free(tr->t), free(tr->x), free(tr->y), free(tr->h);
}

/* The footprint of the UGV (data/vehicles/ugv_hua2022.ini [body]:
 * length 3 m, width 2 m, centred on the reference point). */
#define UGV_LEN 3.0
#define UGV_WID 2.0

/* Points every ~2 cm along the perimeter of a length x width box centred
 * on (x, y) with heading h; returns the count (at most cap). */
static int box_perimeter(double x, double y, double h, double len, double wid, double *px, double *py, int cap)
{
    double c = cos(h), s = sin(h), u[4] = {-len / 2, len / 2, len / 2, -len / 2}, w[4] = {-wid / 2, -wid / 2, wid / 2, wid / 2};
    int n = 0;
    for (int e = 0; e < 4; e++) {
        double u0 = u[e], w0 = w[e], u1 = u[(e + 1) % 4], w1 = w[(e + 1) % 4];
        int m = (int)ceil(hypot(u1 - u0, w1 - w0) / 0.02);
        for (int i = 0; i < m && n < cap; i++, n++) {
            double a = u0 + (u1 - u0) * i / m, b = w0 + (w1 - w0) * i / m;
            px[n] = x + a * c - b * s;
            py[n] = y + a * s + b * c;
        }
    }
    return n;
}

/* 1 if (qx, qy) lies inside the box (as above). */
static int in_box(double qx, double qy, double x, double y, double h, double len, double wid)
{
    double dx = qx - x, dy = qy - y, a = dx * cos(h) + dy * sin(h), b = -dx * sin(h) + dy * cos(h);
    return fabs(a) <= len / 2 && fabs(b) <= wid / 2;
}

/* The gap between two footprints by brute force: the smallest distance
 * between their perimeter points (within 2 cm), 0 when a point of one lies
 * inside the other. */
static double footprint_gap(double x1, double y1, double h1, double x2, double y2, double h2)
{
    enum { CAP = 600 };
    double ax[CAP], ay[CAP], bx[CAP], by[CAP];
    int na = box_perimeter(x1, y1, h1, UGV_LEN, UGV_WID, ax, ay, CAP);
    int nb = box_perimeter(x2, y2, h2, UGV_LEN, UGV_WID, bx, by, CAP);
    double best = INFINITY;
    for (int i = 0; i < na; i++) {
        if (in_box(ax[i], ay[i], x2, y2, h2, UGV_LEN, UGV_WID))
            return 0;
        for (int j = 0; j < nb; j++)
            best = fmin(best, hypot(ax[i] - bx[j], ay[i] - by[j]));
    }
    for (int j = 0; j < nb; j++)
        if (in_box(bx[j], by[j], x1, y1, h1, UGV_LEN, UGV_WID))
            return 0;
    return best;
}

/* A 4 m x 20 m wall across the straight path appears at t = 5 s. */
static void appear_scenario(char **text, double lidar_range, const char *obs)
{
    char *v = vehicle_sec("a", 20, 200, 380, 200, lidar_range);
    assert_true(asprintf(text, "[scenario]\ntime_limit_s = 300\nobstacles = %s\n%s", obs, v) >= 0);
    free(v);
}

static void test_appearing_obstacle_replan(void **state)
{
    (void)state;
    static const double box[1][4] = {{150, 190, 154, 210}};
    static const double appear[1] = {5};
    char *obs = obstacles_file("wall.geojson", 1, box, appear);
    char *text;
    appear_scenario(&text, 30, obs);
    trv_ctx *ctx = trv_ctx_new();
    result r;
    assert_int_equal(run_scenario("appear.ini", text, 1, &r, ctx), TRV_OK);
    print_metrics("appear", r.run);
    const sim_metrics *m = sim_run_metrics(r.run, 0);
    assert_int_equal(m->reached_goal, 1);
    assert_int_equal(m->collisions, 0);
    assert_true(m->replans >= 1);
    assert_true(sim_run_count(r.run, 0, SIM_EV_OBSTACLE_SEEN) >= 1);
    assert_true(m->cross_track_max_m < 4.0); /* against the plan it follows */
    /* the detour: the trajectory left the straight line (y = 200) by more
     * than the wall's half length (10 m), and while abreast of the wall
     * (x in [150, 154]) by more than that plus the UGV's half width (11 m:
     * its side clears the wall's end). Measured: 15.08 m at most, 14.96 m
     * abreast. */
    traj tr;
    traj_read(ctx, r.run, "appear_out", "a", &tr);
    double off_max = 0, abreast_min = INFINITY;
    for (int i = 0; i < tr.n; i++) {
        double off = fabs(tr.y[i] - my(200));
        off_max = fmax(off_max, off);
        if (tr.x[i] >= mx(150) && tr.x[i] <= mx(154))
            abreast_min = fmin(abreast_min, off);
    }
    printf("  appear: largest offset from the line %.3f m, abreast of the wall %.3f m\n", off_max, abreast_min);
    assert_true(off_max > 10);
    assert_true(abreast_min > 10 + UGV_WID / 2);
    traj_free(&tr);
    result_free(&r);

    /* the same without a LiDAR: it cannot see the wall and runs into it */
    free(text);
    appear_scenario(&text, 0, obs);
    assert_int_equal(run_scenario("blind.ini", text, 1, &r, ctx), TRV_OK);
    print_metrics("blind", r.run);
    m = sim_run_metrics(r.run, 0);
    assert_int_equal(m->reached_goal, 0);
    assert_int_equal(m->collisions, 1);
    assert_string_equal(m->end, "collision");
    const sim_event *last = sim_run_event(r.run, sim_run_nevents(r.run) - 1);
    assert_int_equal(last->type, SIM_EV_COLLISION);
    assert_true(fabs(last->x - mx(150)) < 3);
    result_free(&r);
    free(text);
    free(obs);
    trv_ctx_free(ctx);
}

static void test_dead_end(void **state)
{
    (void)state;
    /* a U open toward the start (west): inside 30 m wide and 30 m deep; a
     * LiDAR of 12 m sees its back only from inside */
    static const double box[3][4] = {{230, 183, 233, 217}, {200, 183, 233, 185}, {200, 215, 233, 217}};
    static const double appear[3] = {0, 0, 0};
    char *obs = obstacles_file("u.geojson", 3, box, appear);
    char *v = vehicle_sec("u", 20, 200, 380, 200, 12), *text = NULL;
    assert_true(asprintf(&text, "[scenario]\ntime_limit_s = 400\nobstacles = %s\n%s", obs, v) >= 0);
    trv_ctx *ctx = trv_ctx_new();
    result r;
    assert_int_equal(run_scenario("deadend.ini", text, 3, &r, ctx), TRV_OK);
    print_metrics("dead end", r.run);
    if (getenv("TRV_SIM_DEBUG"))
        write_run(ctx, r.run, getenv("TRV_SIM_DEBUG"), NULL, 0);
    if (getenv("TRV_SIM_DEBUG"))
        for (int i = 0; i < sim_run_nevents(r.run); i++) {
            const sim_event *e = sim_run_event(r.run, i);
            printf("    %.2f %s (%.1f, %.1f) %s\n", e->t, sim_event_name(e->type), e->x - X0, e->y - Y0 + 400, e->details);
        }
    const sim_metrics *m = sim_run_metrics(r.run, 0);
    assert_int_equal(m->collisions, 0);
    assert_true(m->replans >= 1);
    assert_int_equal(m->reached_goal, 1);
    /* it did go into the U before it turned back */
    int inside = 0;
    for (int i = 0; i < sim_run_nevents(r.run); i++) {
        const sim_event *e = sim_run_event(r.run, i);
        if (e->type == SIM_EV_REPLAN && e->x > mx(200))
            inside = 1;
    }
    assert_true(inside);
    result_free(&r);
    free(v), free(text), free(obs);
    trv_ctx_free(ctx);
}

/* The smallest footprint gap between two trajectories over the instants
 * both recorded (every step: record_s below the step); *pairs counted. */
static double traj_gap(const traj *ta, const traj *tb, int *pairs)
{
    double gap = INFINITY;
    *pairs = 0;
    for (int i = 0, j = 0; i < ta->n; i++) {
        while (j < tb->n && tb->t[j] < ta->t[i] - 1e-6)
            j++;
        if (j == tb->n || fabs(tb->t[j] - ta->t[i]) > 1e-6)
            continue;
        ++*pairs;
        double d = hypot(ta->x[i] - tb->x[j], ta->y[i] - tb->y[j]);
        gap = fmin(gap, d < 8 ? footprint_gap(ta->x[i], ta->y[i], ta->h[i], tb->x[j], tb->y[j], tb->h[j])
                              : d - hypot(UGV_LEN, UGV_WID)); /* beyond the two half diagonals */
    }
    return gap;
}

/* Two UGVs 180 m from the crossing (200, 200), one driving east, one
 * north, started together. Each alone: the footprints, brute force from
 * the recorded trajectories at the same instants, overlap (they would
 * collide without the yield rule). Together: one yields and the
 * footprints never come within the yield rule's safety margin (1 m). */
static void test_crossing(void **state)
{
    (void)state;
    char *a = vehicle_sec("east", 20, 200, 380, 200, 0), *b = vehicle_sec("north", 200, 20, 200, 380, 0);
    char *text = NULL;
    trv_ctx *ctx = trv_ctx_new();
    result r;
    /* each alone */
    traj solo[2];
    for (int k = 0; k < 2; k++) {
        assert_true(asprintf(&text, "[scenario]\ntime_limit_s = 300\nrecord_s = 0.01\n%s", k ? b : a) >= 0);
        assert_int_equal(run_scenario("solo.ini", text, 1, &r, ctx), TRV_OK);
        assert_int_equal(sim_run_metrics(r.run, 0)->reached_goal, 1);
        traj_read(ctx, r.run, k ? "solo_north" : "solo_east", k ? "north" : "east", &solo[k]);
        result_free(&r);
        free(text);
    }
    int pairs;
    double solo_gap = traj_gap(&solo[0], &solo[1], &pairs);
    printf("  crossing, each alone: smallest footprint gap %.3f m over %d instants\n", solo_gap, pairs);
    assert_true(pairs > 4000); /* ~87 s each at 0.02 s */
    assert_true(solo_gap == 0);
    traj_free(&solo[0]), traj_free(&solo[1]);

    assert_true(asprintf(&text, "[scenario]\ntime_limit_s = 300\nrecord_s = 0.01\n%s%s", a, b) >= 0);
    assert_int_equal(run_scenario("cross.ini", text, 1, &r, ctx), TRV_OK);
    print_metrics("crossing", r.run);
    for (int k = 0; k < 2; k++) {
        assert_int_equal(sim_run_metrics(r.run, k)->collisions, 0);
        assert_int_equal(sim_run_metrics(r.run, k)->reached_goal, 1);
    }
    /* the footprints, brute force: measured 1.95 m at the closest; the
     * yield rule inflates the other's box by safety_margin_m (1 m) */
    traj te, tn;
    traj_read(ctx, r.run, "cross_out", "east", &te);
    traj_read(ctx, r.run, "cross_out", "north", &tn);
    double gap = traj_gap(&te, &tn, &pairs);
    printf("  crossing together: smallest footprint gap %.3f m over %d instants\n", gap, pairs);
    assert_true(pairs > 4000);
    assert_true(gap >= 1.0);
    traj_free(&te), traj_free(&tn);
    /* one of them yields (the one that has the other ahead) and stops */
    assert_true(sim_run_count(r.run, -1, SIM_EV_YIELD) >= 1);
    assert_true(sim_run_metrics(r.run, 0)->stops + sim_run_metrics(r.run, 1)->stops >= 1);
    result_free(&r);
    free(text);
    free(a), free(b);
    trv_ctx_free(ctx);
}

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *s = malloc(n + 1);
    if (s && fread(s, 1, n, f) != (size_t)n) {
        free(s);
        s = NULL;
    }
    if (s)
        s[n] = '\0';
    fclose(f);
    return s;
}

static void test_same_seed_same_outputs(void **state)
{
    (void)state;
    static const double box[1][4] = {{150, 190, 154, 210}};
    static const double appear[1] = {5};
    char *obs = obstacles_file("wall2.geojson", 1, box, appear);
    char *text;
    appear_scenario(&text, 30, obs);
    trv_ctx *ctx = trv_ctx_new();
    trv_meta meta;
    char *argv[] = {"test", NULL};
    trv_meta_init(&meta, "test_sim_run", 1, argv);
    static const char *const files[] = {"trajectory_a.csv", "trajectory_a.geojson", "events.jsonl", "metrics.json",
                                        "obstacles.geojson"};
    enum { NFILES = sizeof files / sizeof *files };
    char *got[3][NFILES];
    for (int run = 0; run < 3; run++) {
        result r;
        uint64_t seed = run < 2 ? 7 : 8;
        assert_int_equal(run_scenario("seed.ini", text, seed, &r, ctx), TRV_OK);
        char *out = NULL;
        assert_true(asprintf(&out, "%s/out%d", tmp, run) >= 0);
        assert_int_equal(write_run(ctx, r.run, out, &meta, 0), TRV_OK);
        for (int j = 0; j < NFILES; j++) {
            char *p = trv_path_join(out, files[j]);
            got[run][j] = slurp(p);
            assert_non_null(got[run][j]);
            free(p);
        }
        free(out);
        result_free(&r);
    }
    for (int j = 0; j < NFILES; j++)
        assert_string_equal(got[0][j], got[1][j]);
    assert_true(strstr(got[0][3], "\"seed\": 7"));
    assert_null(strstr(got[0][3], "wall_time_s"));
    assert_true(strstr(got[0][1], "\"seed\": \"7\""));
    assert_true(strstr(got[0][2], "\"type\": \"replan\""));
    /* the obstacle simulated, recorded with the run: a polygon in lon/lat */
    assert_true(strstr(got[0][4], "\"id\": \"o0\", \"height_m\": 2.0, \"appear_s\": 5.0"));
    assert_true(strstr(got[0][4], "\"type\": \"Polygon\""));
    assert_null(strstr(got[0][4], "disappear_s"));
    /* another seed: other GNSS errors, another trajectory */
    assert_string_not_equal(got[0][0], got[2][0]);
    for (int run = 0; run < 3; run++)
        for (int j = 0; j < NFILES; j++)
            free(got[run][j]);
    free(text), free(obs);
    trv_ctx_free(ctx);
}

static void expect_error(const char *name, const char *text, const char *msg)
{
    trv_ctx *ctx = trv_ctx_new();
    result r;
    trv_status st = run_scenario(name, text, 1, &r, ctx);
    assert_int_not_equal(st, TRV_OK);
    assert_contains(trv_errmsg(ctx), msg);
    result_free(&r);
    trv_ctx_free(ctx);
}

static void test_errors(void **state)
{
    (void)state;
    char *v = vehicle_sec("a", 20, 200, 380, 200, 0), *text = NULL;
    assert_true(asprintf(&text, "[scenario]\nstep = 0.1\n%s", v) >= 0);
    expect_error("e1.ini", text, "e1.ini:2");
    free(text);
    expect_error("e2.ini", "[scenario]\nstep_s = 0.1\n", "names no vehicle");
    assert_true(asprintf(&text, "%s[lidar3d.b]\nlines = 4\n", v) >= 0);
    expect_error("e3.ini", text, "e3.ini:");
    free(text);
    char *bad = write_file(tmp, "bad.geojson", "{\"type\": \"FeatureCollection\", \"features\": [");
    assert_true(asprintf(&text, "[scenario]\nobstacles = bad.geojson\n%s", v) >= 0);
    expect_error("e4.ini", text, "bad.geojson");
    free(text);
    char *noh = write_file(tmp, "noh.geojson",
                           "{\"type\": \"FeatureCollection\", \"features\": [{\"type\": \"Feature\", \"properties\": "
                           "{}, \"geometry\": {\"type\": \"Point\", \"coordinates\": [-87, 36.1]}}]}");
    assert_true(asprintf(&text, "[scenario]\nobstacles = noh.geojson\n%s", v) >= 0);
    expect_error("e5.ini", text, "height_m");
    free(text);
    char *off = vehicle_sec("a", 20, 200, 900, 200, 0);
    expect_error("e6.ini", off, "outside the map");
    free(off);
    free(bad), free(noh), free(v);
}

/* The [vehicle.ID] sections come from the INI reader's own parse (issue
 * 15): a 1023-character comment ending in "[vehicle.ghost]" (the old
 * 1024-byte pre-scan split it there) is one comment, and headers with
 * blanks inside the brackets are trimmed as the reader trims them. */
static void test_scenario_sections(void **state)
{
    (void)state;
    char *v = vehicle_sec("a", 20, 200, 380, 200, 0), *text = NULL, comment[1024];
    comment[0] = '#';
    memset(comment + 1, 'x', 1022);
    comment[1023] = '\0';
    const char *head[3] = {"[vehicle.a]", "[vehicle.a ]", "[ vehicle.a]"};
    for (int c = 0; c < 4; c++) {
        char *t = strdup(v);
        assert_non_null(t);
        if (c < 3) { /* the header written three ways */
            assert_true(asprintf(&text, "[scenario]\nstep_s = 0.1\n%s%s", head[c], strchr(t, ']') + 1) >= 0);
        } else
            assert_true(asprintf(&text, "[scenario]\nstep_s = 0.1\n%s[vehicle.ghost]\n%s", comment, t) >= 0);
        char *p = write_file(tmp, "sections.ini", text);
        trv_ctx *ctx = trv_ctx_new();
        sim_scenario *sc = NULL;
        trv_status st = sim_scenario_read(ctx, p, &sc);
        if (st)
            fail_msg("case %d: %s", c, trv_errmsg(ctx));
        assert_int_equal(sc->nveh, 1);
        assert_string_equal(sc->veh[0].id, "a");
        sim_scenario_free(sc);
        trv_ctx_free(ctx);
        free(p), free(text), free(t);
    }
    free(v);
}

/* ---- route-relative obstacles ----------------------------------------------- */

/* A FeatureCollection (no CRS: route-relative features need none) of the
 * given features (comma-separated JSON objects). */
static char *features_file(const char *name, const char *features)
{
    char *text = NULL;
    assert_true(asprintf(&text, "{\"type\": \"FeatureCollection\", \"features\": [\n%s]}\n", features) >= 0);
    char *p = write_file(tmp, name, text);
    free(text);
    return p;
}

/* Straight: (20, 200) east to (380, 200), 360 m. L: (20, 100) east to
 * (220, 100), then north to (220, 300), 400 m. Relative coordinates. */
static void two_routes(sim_path *straight, sim_path *ell)
{
    trv_ctx *ctx = trv_ctx_new();
    double sx[2] = {mx(20), mx(380)}, sy[2] = {my(200), my(200)};
    double lx[3] = {mx(20), mx(220), mx(220)}, ly[3] = {my(100), my(100), my(300)};
    memset(straight, 0, sizeof *straight);
    memset(ell, 0, sizeof *ell);
    assert_int_equal(sim_path_set(ctx, straight, sx, sy, 2), TRV_OK);
    assert_int_equal(sim_path_set(ctx, ell, lx, ly, 3), TRV_OK);
    trv_ctx_free(ctx);
}

static void assert_polygon(const sim_obstacle *o, const double (*want)[2])
{
    assert_int_equal(o->n, 4);
    for (int i = 0; i < 4; i++) {
        if (fabs(o->px[i] - mx(want[i][0])) > 1e-9 || fabs(o->py[i] - my(want[i][1])) > 1e-9)
            fail_msg("obstacle '%s' vertex %d: (%.9f, %.9f), want (%.9f, %.9f)", o->id, i, o->px[i] - X0,
                     o->py[i] - (Y0 - 400), want[i][0], want[i][1]);
    }
}

static void test_route_relative_placement(void **state)
{
    (void)state;
    sim_path straight, ell;
    two_routes(&straight, &ell);
    sim_route_ref routes[2] = {{"a", &straight}, {"l", &ell}};
    /* rectangles: across_m 10 (across the route), along_m 4 (along it) */
    char *p = features_file(
        "route_rel.geojson",
        "{\"type\": \"Feature\", \"properties\": {\"id\": \"c1\", \"height_m\": 2, \"at_route_m\": 100, "
        "\"radius_m\": 5, \"appear_s\": 3}, \"geometry\": null},\n"
        "{\"type\": \"Feature\", \"properties\": {\"id\": \"r1\", \"height_m\": 1.5, \"at_route_fraction\": 0.5, "
        "\"vehicle\": \"a\", \"across_m\": 10, \"along_m\": 4, \"vx_ms\": 1}, \"geometry\": null},\n"
        "{\"type\": \"Feature\", \"properties\": {\"id\": \"c2\", \"height_m\": 2, \"at_route_fraction\": 0.75, "
        "\"vehicle\": \"l\", \"radius_m\": 3}, \"geometry\": null},\n"
        "{\"type\": \"Feature\", \"properties\": {\"id\": \"r2\", \"height_m\": 2, \"at_route_m\": 300, "
        "\"vehicle\": \"l\", \"across_m\": 10, \"along_m\": 4}, \"geometry\": null},\n"
        "{\"type\": \"Feature\", \"properties\": {\"id\": \"r3\", \"height_m\": 2, \"at_route_m\": 200, "
        "\"vehicle\": \"l\", \"across_m\": 10, \"along_m\": 4}, \"geometry\": null},\n"
        "{\"type\": \"Feature\", \"properties\": {\"height_m\": 2, \"at_route_fraction\": 1, \"radius_m\": 2}, "
        "\"geometry\": null}\n");
    trv_ctx *ctx = trv_ctx_new();
    sim_obstacle *o = NULL;
    int n = 0;
    assert_int_equal(sim_obstacles_read(ctx, p, &T, routes, 2, &o, &n), TRV_OK);
    assert_int_equal(n, 6);
    /* c1: the default route (the first vehicle's), 100 m in: (120, 200) */
    assert_string_equal(o[0].id, "c1");
    assert_int_equal(o[0].n, 0);
    assert_true(fabs(o[0].cx - mx(120)) < 1e-9 && fabs(o[0].cy - my(200)) < 1e-9);
    assert_true(o[0].r == 5 && o[0].height_m == 2 && o[0].appear_s == 3 && o[0].base_z == 100);
    /* r1: half of 360 m: (200, 200), heading east; counter-clockwise from
     * the back right corner: back = west, right = south */
    static const double r1[4][2] = {{198, 195}, {202, 195}, {202, 205}, {198, 205}};
    assert_polygon(&o[1], r1);
    assert_true(fabs(o[1].cx - mx(200)) < 1e-9 && fabs(o[1].cy - my(200)) < 1e-9);
    assert_true(o[1].vx == 1 && o[1].height_m == 1.5);
    /* c2: 0.75 of the L's 400 m = 300 m: 100 m up its north leg */
    assert_int_equal(o[2].n, 0);
    assert_true(fabs(o[2].cx - mx(220)) < 1e-9 && fabs(o[2].cy - my(200)) < 1e-9 && o[2].r == 3);
    /* r2: the same point, heading north: back = south, right = east */
    static const double r2[4][2] = {{225, 198}, {225, 202}, {215, 202}, {215, 198}};
    assert_polygon(&o[3], r2);
    /* r3: on the corner (220, 100); the chord from (215, 100) to (220, 105)
     * heads north-east: along u = (1, 1) / sqrt 2, across (left) n = (-1, 1)
     * / sqrt 2; corners c -+ 2 u -+ 5 n */
    const double h = M_SQRT1_2;
    const double r3[4][2] = {{220 - 2 * h + 5 * h, 100 - 2 * h - 5 * h},
                             {220 + 2 * h + 5 * h, 100 + 2 * h - 5 * h},
                             {220 + 2 * h - 5 * h, 100 + 2 * h + 5 * h},
                             {220 - 2 * h - 5 * h, 100 - 2 * h + 5 * h}};
    assert_polygon(&o[4], r3);
    /* no id: named by its index; at the end of the default route */
    assert_string_equal(o[5].id, "6");
    assert_true(fabs(o[5].cx - mx(380)) < 1e-9 && fabs(o[5].cy - my(200)) < 1e-9);
    sim_obstacles_free(o, n);
    free(p);
    trv_ctx_free(ctx);
    sim_path_clear(&straight);
    sim_path_clear(&ell);
}

/* One route-relative feature (properties and geometry given) against the
 * two routes: the error names the file and the feature. */
static void expect_route_error(const char *props, const char *geometry, const char *msg)
{
    sim_path straight, ell;
    two_routes(&straight, &ell);
    sim_route_ref routes[2] = {{"a", &straight}, {"l", &ell}};
    char *feat = NULL;
    assert_true(asprintf(&feat,
                         "{\"type\": \"Feature\", \"properties\": {\"id\": \"ok\", \"height_m\": 1, "
                         "\"at_route_m\": 10, \"radius_m\": 1}, \"geometry\": null},\n"
                         "{\"type\": \"Feature\", \"properties\": {%s}, \"geometry\": %s}\n",
                         props, geometry) >= 0);
    char *p = features_file("route_err.geojson", feat);
    trv_ctx *ctx = trv_ctx_new();
    sim_obstacle *o = NULL;
    int n = 0;
    assert_int_not_equal(sim_obstacles_read(ctx, p, &T, routes, 2, &o, &n), TRV_OK);
    assert_null(o);
    assert_contains(trv_errmsg(ctx), "route_err.geojson");
    assert_contains(trv_errmsg(ctx), msg);
    trv_ctx_free(ctx);
    free(p), free(feat);
    sim_path_clear(&straight);
    sim_path_clear(&ell);
}

static void test_route_relative_errors(void **state)
{
    (void)state;
    const char *pt = "{\"type\": \"Point\", \"coordinates\": [-87, 36.1]}";
    expect_route_error("\"id\": \"g\", \"height_m\": 1, \"at_route_m\": 10, \"radius_m\": 1", pt,
                       "obstacle 'g' has both a geometry and at_route_m");
    expect_route_error("\"id\": \"g\", \"height_m\": 1, \"at_route_fraction\": 0.1, \"radius_m\": 1", pt,
                       "obstacle 'g' has both a geometry and at_route_fraction");
    expect_route_error("\"id\": \"mf\", \"height_m\": 1, \"at_route_m\": 10, \"at_route_fraction\": 0.1, "
                       "\"radius_m\": 1",
                       "null", "obstacle 'mf' has both at_route_m and at_route_fraction");
    expect_route_error("\"id\": \"far\", \"height_m\": 1, \"at_route_m\": 360.5, \"radius_m\": 1", "null",
                       "obstacle 'far': at_route_m 360.5 is outside the route of vehicle 'a' (0 to 360.0 m)");
    expect_route_error("\"id\": \"far\", \"height_m\": 1, \"at_route_m\": 400.5, \"vehicle\": \"l\", "
                       "\"radius_m\": 1",
                       "null", "at_route_m 400.5 is outside the route of vehicle 'l' (0 to 400.0 m)");
    expect_route_error("\"id\": \"neg\", \"height_m\": 1, \"at_route_m\": -1, \"radius_m\": 1", "null",
                       "obstacle 'neg': at_route_m -1 is outside the route");
    expect_route_error("\"id\": \"fr\", \"height_m\": 1, \"at_route_fraction\": 1.5, \"radius_m\": 1", "null",
                       "obstacle 'fr': at_route_fraction 1.5 is outside [0, 1]");
    expect_route_error("\"id\": \"fr\", \"height_m\": 1, \"at_route_fraction\": -0.1, \"radius_m\": 1", "null",
                       "at_route_fraction -0.1 is outside [0, 1]");
    expect_route_error("\"id\": \"who\", \"height_m\": 1, \"at_route_m\": 5, \"vehicle\": \"zz\", "
                       "\"radius_m\": 1",
                       "null", "obstacle 'who': no vehicle 'zz' in the scenario");
    expect_route_error("\"id\": \"none\", \"height_m\": 1, \"at_route_m\": 5", "null",
                       "obstacle 'none' on the route needs a shape: radius_m, or across_m and along_m");
    expect_route_error("\"id\": \"two\", \"height_m\": 1, \"at_route_m\": 5, \"radius_m\": 1, \"across_m\": 3, "
                       "\"along_m\": 1",
                       "null", "obstacle 'two' has two shapes: radius_m and across_m / along_m");
    expect_route_error("\"id\": \"half\", \"height_m\": 1, \"at_route_m\": 5, \"across_m\": 3", "null",
                       "obstacle 'half' needs both across_m > 0 and along_m > 0");
    expect_route_error("\"id\": \"zero\", \"height_m\": 1, \"at_route_m\": 5, \"radius_m\": 0", "null",
                       "obstacle 'zero' needs a radius_m > 0");
    /* no id: the feature's 1-based index */
    expect_route_error("\"height_m\": 1, \"at_route_fraction\": 2, \"radius_m\": 1", "null",
                       "obstacle '2': at_route_fraction 2 is outside [0, 1]");
    expect_route_error("\"id\": \"nothing\", \"height_m\": 1", "null",
                       "obstacle 'nothing' has no geometry (nor at_route_m / at_route_fraction)");

    /* through the runner: placed once the routes are loaded, errors pass on */
    char *v = vehicle_sec("a", 20, 200, 380, 200, 0), *text = NULL;
    char *obs = features_file("who.geojson", "{\"type\": \"Feature\", \"properties\": {\"id\": \"w\", "
                                             "\"height_m\": 1, \"at_route_m\": 5, \"vehicle\": \"b\", "
                                             "\"radius_m\": 1}, \"geometry\": null}\n");
    assert_true(asprintf(&text, "[scenario]\nobstacles = %s\n%s", obs, v) >= 0);
    expect_error("e7.ini", text, "who.geojson': obstacle 'w': no vehicle 'b' in the scenario");
    free(text), free(obs), free(v);
}

/* A wall across the planned route at half its length, appearing at 5 s,
 * and a rock on it 80 % in: both seen and re-planned around. */
static void test_route_relative_replan(void **state)
{
    (void)state;
    char *obs = features_file(
        "route_wall.geojson",
        "{\"type\": \"Feature\", \"properties\": {\"id\": \"wall\", \"height_m\": 2, \"appear_s\": 5, "
        "\"at_route_fraction\": 0.5, \"across_m\": 20, \"along_m\": 3}, \"geometry\": null},\n"
        "{\"type\": \"Feature\", \"properties\": {\"id\": \"rock\", \"height_m\": 2, \"vehicle\": \"a\", "
        "\"at_route_fraction\": 0.8, \"radius_m\": 4}, \"geometry\": null}\n");
    char *text;
    appear_scenario(&text, 30, obs);
    trv_ctx *ctx = trv_ctx_new();
    result r;
    assert_int_equal(run_scenario("route_wall.ini", text, 1, &r, ctx), TRV_OK);
    print_metrics("route-relative", r.run);
    const sim_metrics *m = sim_run_metrics(r.run, 0);
    assert_int_equal(m->reached_goal, 1);
    assert_int_equal(m->collisions, 0);
    assert_true(m->replans >= 2);
    result_free(&r);
    free(text), free(obs);
    trv_ctx_free(ctx);
}

/* The speed profile's bend limit (docs/method.md §5.4): on a circle of
 * radius R the lateral acceleration a bounds the speed to sqrt(a R). A half
 * circle of R = 60 m (a route file, 1° vertices), a = 0.1 m/s²: sqrt(6) =
 * 2.449 m/s, below the map's 15 km/h (4.167 m/s), which a/kappa (6 m/s)
 * would not bind. In the middle third of the drive, far from the ends'
 * braking and the start's acceleration, the speed (distance between
 * recorded positions over their time) stays within 3 % of sqrt(a R)
 * (measured 2.1 %: the follower's lag and the chords' curvature estimate). */
static void test_bend_speed(void **state)
{
    (void)state;
    trv_ctx *ctx = trv_ctx_new();
    const double R = 60, a = 0.1, cx = X0 + 200, cy = Y0 - 200;
    char *csv = NULL, *line = NULL;
    assert_true(asprintf(&csv, "x,y\n") >= 0);
    for (int d = -90; d <= 90; d++) {
        double t = d * M_PI / 180;
        assert_true(asprintf(&line, "%s%.4f,%.4f\n", csv, cx + R * cos(t), cy + R * sin(t)) >= 0);
        free(csv);
        csv = line;
    }
    char *route = write_file(tmp, "arc.csv", csv), *text = NULL;
    free(csv);
    assert_true(asprintf(&text, "[scenario]\ntime_limit_s = 300\nlateral_acc_ms2 = %g\n"
                                "[vehicle.arc]\nfile = %s\nmodel = ackermann\nroute = %s\n",
                         a, vehicle, route) >= 0);
    result r;
    assert_int_equal(run_scenario("bend.ini", text, 1, &r, ctx), TRV_OK);
    print_metrics("bend", r.run);
    assert_true(sim_run_metrics(r.run, 0)->reached_goal);
    traj tr;
    traj_read(ctx, r.run, "bend_out", "arc", &tr);
    const double t_end = tr.t[tr.n - 1], want = sqrt(a * R);
    double lo = INFINITY, hi = 0;
    for (int i = 1; i < tr.n; i++)
        if (tr.t[i - 1] > t_end / 3 && tr.t[i] < 2 * t_end / 3 && tr.t[i] > tr.t[i - 1]) {
            double v = hypot(tr.x[i] - tr.x[i - 1], tr.y[i] - tr.y[i - 1]) / (tr.t[i] - tr.t[i - 1]);
            lo = fmin(lo, v), hi = fmax(hi, v);
        }
    printf("  bend: speed %.3f .. %.3f m/s on the arc, sqrt(a R) = %.3f m/s\n", lo, hi, want);
    assert_true(lo >= 0.97 * want && hi <= 1.03 * want);
    traj_free(&tr);
    result_free(&r);
    free(route), free(text);
    trv_ctx_free(ctx);
}

/* The seen map (docs/method.md §5.8) on the flat terrain (ground 100 m, 2 m
 * cells), step 0.3 m: a return more than a step above the ground (a rock)
 * or more than a step below it (a ditch) makes its cell impassable and
 * masks the cells within the inflation (2 m: one cell around); returns
 * within a step of the ground block nothing. Cell (c, r) has its centre at
 * (X0 + 2c + 1, Y0 - 2r - 1). */
static void test_seen_map(void **state)
{
    (void)state;
    trv_ctx *ctx = trv_ctx_new();
    sim_seen m;
    sim_field f;
    sim_field_from_raster(T.dem, &f);
    assert_int_equal(sim_seen_init(ctx, &m, &T, 2.0), TRV_OK);
    const double step = 0.3;
    /* within a step, above and below: nothing */
    double flat[6] = {X0 + 21, Y0 - 21, 100.29, X0 + 41, Y0 - 41, 99.71};
    assert_int_equal(sim_seen_add(&m, &T, &f, flat, 2, step), 0);
    assert_int_equal(m.nblocked, 0);
    /* a rock at cell (10, 10) and a ditch at cell (50, 50) */
    double rock[3] = {X0 + 21, Y0 - 21, 100.31}, ditch[3] = {X0 + 101, Y0 - 101, 99.69};
    assert_int_equal(sim_seen_add(&m, &T, &f, rock, 1, step), 1);
    assert_int_equal(sim_seen_add(&m, &T, &f, ditch, 1, step), 1);
    assert_int_equal(m.nblocked, 2);
    assert_int_equal(m.blocked[10 * NXY + 10], 1);
    assert_int_equal(m.blocked[50 * NXY + 50], 1);
    /* the inflation: the 3 x 3 cells around each masked, the next ring open */
    assert_int_equal(m.mask[49 * NXY + 51], 0);
    assert_int_equal(m.mask[48 * NXY + 50], 1);
    /* a cell already blocked is not counted again */
    assert_int_equal(sim_seen_add(&m, &T, &f, ditch, 1, step), 0);
    sim_seen_clear(&m);
    trv_ctx_free(ctx);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_appearing_obstacle_replan),
        cmocka_unit_test(test_dead_end),
        cmocka_unit_test(test_crossing),
        cmocka_unit_test(test_seen_map),
        cmocka_unit_test(test_bend_speed),
        cmocka_unit_test(test_same_seed_same_outputs),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_scenario_sections),
        cmocka_unit_test(test_route_relative_placement),
        cmocka_unit_test(test_route_relative_errors),
        cmocka_unit_test(test_route_relative_replan),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
