/* Head-on conflicts in the simulator (sim.h, src/sim/conflict.c) on
 * synthetic terrains built in memory (200 x 200 cells of 2 m, flat,
 * 15 km/h): two UGVs driving toward each other along one line
 *   - in an 8 m corridor with one bay: the later one parks in the bay
 *     (a "passing_place" conflict), both reach their goals;
 *   - on open ground: the later one detours around the other's reserved
 *     cells ("detour");
 *   - three vehicles (two driving east one after the other, one west) in
 *     the corridor: the west-bound one parks until both have passed;
 *   - a corridor without a bay: no resolution, both stop ("deadlock")
 *     without a collision, well before the time limit;
 *   - a T junction: the one coming up the side branch, clear of the
 *     other's path, waits there ("wait") until the other has passed;
 *   - a vehicle that has finished keeps no right of way (the yield rule):
 *     the one driving toward it stops behind it;
 * each checked independently from the trajectory CSVs: the smallest
 * distance between the vehicles' centres at the same instants is at
 * least the sum of their radii (half diagonals of the 3 x 2 m body); and
 * the same seed gives the same bytes. */
#include "test_common.h"
#include "test_terrain_mem.h"

#include "sim/sim.h"

#include <math.h>

#define NXY 200
#define CELL 2.0
#define X0 500000.0
#define Y0 4000400.0 /* north edge; the map spans y in [Y0 - 400, Y0] */
#define RADIUS 1.8028 /* half the diagonal of the UGV's 3 x 2 m body */

static prm_terrain T;
static char *tmp, *vehicle;

static double mx(double x) { return X0 + x; }
static double my(double y) { return Y0 - 400 + y; }

/* GO where (relative) x0 <= x <= x1 and y0 <= y <= y1 for one of the
 * boxes (n 0: everywhere), NOGO elsewhere. */
static void paint(int n, const double (*box)[4])
{
    for (int r = 0; r < NXY; r++)
        for (int c = 0; c < NXY; c++) {
            double x = (c + 0.5) * CELL, y = 400 - (r + 0.5) * CELL;
            int go = n == 0;
            for (int k = 0; k < n && !go; k++)
                go = x >= box[k][0] && x <= box[k][2] && y >= box[k][1] && y <= box[k][3];
            long i = (long)r * NXY + c;
            T.cls->u8[i] = go ? 3 : 0;
            T.gonogo->u8[i] = !go;
            T.speed->f32[i] = go ? 15 : 0;
        }
}

static int setup(void **state)
{
    (void)state;
    geo_init();
    if (test_terrain_new(&T, NXY, NXY, X0, Y0, CELL))
        return -1;
    for (long i = 0; i < (long)NXY * NXY; i++) {
        T.cost->f32[i] = 0.2f;
        T.dem->f32[i] = 100;
        T.slope->f32[i] = 0;
    }
    T.top_speed_kmh = 15;
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

/* A scenario of n vehicles: id, from x to x along y = 200, start time. */
typedef struct veh {
    const char *id;
    double x0, x1, start_s;
} veh;

static char *scenario(int n, const veh *v)
{
    char *text = NULL;
    assert_true(asprintf(&text, "[scenario]\ntime_limit_s = 400\nrecord_s = 0.02\n") >= 0);
    for (int k = 0; k < n; k++) {
        char *t = NULL;
        assert_true(asprintf(&t,
                             "%s[vehicle.%s]\nfile = %s\nmodel = ackermann\nstart = %.2f,%.2f\ngoal = %.2f,%.2f\n"
                             "srs = map\nstart_time_s = %g\n",
                             text, v[k].id, vehicle, mx(v[k].x0), my(200), mx(v[k].x1), my(200), v[k].start_s) >= 0);
        free(text);
        text = t;
    }
    return text;
}

/* Run it, write the outputs into tmp/out; the run is returned. */
static sim_run *run(trv_ctx *ctx, const char *name, const char *text, const char *out, sim_scenario **sc)
{
    char *p = write_file(tmp, name, text), *dir = NULL;
    sim_env env = {.seed = 5};
    sim_run *r = NULL;
    assert_int_equal(sim_scenario_read(ctx, p, sc), TRV_OK);
    assert_int_equal(sim_run_new(ctx, *sc, &T, &env, &r), TRV_OK);
    assert_int_equal(sim_run_go(ctx, r), TRV_OK);
    assert_true(asprintf(&dir, "%s/%s", tmp, out) >= 0);
    trv_outset *set = trv_outset_new();
    assert_int_equal(sim_run_write(ctx, set, r, dir, NULL, 0), TRV_OK);
    assert_int_equal(trv_outset_commit(ctx, set), TRV_OK);
    trv_outset_free(set);
    for (int i = 0; getenv("TRV_SIM_DEBUG") && i < sim_run_nevents(r); i++) {
        const sim_event *e = sim_run_event(r, i);
        printf("    %.2f %d %s (%.1f, %.1f) %s\n", e->t, e->vehicle, sim_event_name(e->type), e->x - X0,
               e->y - Y0 + 400, e->details);
    }
    if (getenv("TRV_SIM_DEBUG")) {
        char *cmd = NULL;
        assert_true(asprintf(&cmd, "for f in %s/trajectory_*.csv; do echo $f; awk -F, 'NR%%100==2' $f | cut -d, -f1-3,5,8,9,10 | tail -40; done", dir) >= 0);
        assert_int_equal(system(cmd), 0);
        free(cmd);
    }
    free(p), free(dir);
    return r;
}

typedef struct traj {
    int n;
    double *t, *x, *y;
} traj;

/* trajectory_<id>.csv of tmp/out, read back (t, x, y: its first columns) */
static void traj_read(const char *out, const char *id, traj *tr)
{
    char *path = NULL, line[512];
    assert_true(asprintf(&path, "%s/%s/trajectory_%s.csv", tmp, out, id) >= 0);
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    memset(tr, 0, sizeof *tr);
    int cap = 0;
    assert_non_null(fgets(line, sizeof line, f));
    assert_true(strncmp(line, "t,x,y,", 6) == 0);
    while (fgets(line, sizeof line, f)) {
        if (tr->n == cap) {
            cap = cap ? 2 * cap : 4096;
            tr->t = realloc(tr->t, cap * sizeof *tr->t);
            tr->x = realloc(tr->x, cap * sizeof *tr->x);
            tr->y = realloc(tr->y, cap * sizeof *tr->y);
            assert_true(tr->t && tr->x && tr->y);
        }
        assert_int_equal(sscanf(line, "%lf,%lf,%lf", &tr->t[tr->n], &tr->x[tr->n], &tr->y[tr->n]), 3);
        tr->n++;
    }
    fclose(f);
    free(path);
}

static void traj_free(traj *t) { free(t->t), free(t->x), free(t->y); }

/* The smallest centre distance over the instants both recorded. */
static double min_dist(const traj *a, const traj *b, int *pairs)
{
    double d = INFINITY;
    *pairs = 0;
    for (int i = 0, j = 0; i < a->n; i++) {
        while (j < b->n && b->t[j] < a->t[i] - 1e-6)
            j++;
        if (j == b->n || fabs(b->t[j] - a->t[i]) > 1e-6)
            continue;
        ++*pairs;
        d = fmin(d, hypot(a->x[i] - b->x[j], a->y[i] - b->y[j]));
    }
    return d;
}

/* Every pair of the n vehicles keeps the sum of the radii; returns the
 * smallest distance. */
static double check_distances(const char *out, int n, const veh *v)
{
    traj tr[3];
    double least = INFINITY;
    for (int k = 0; k < n; k++)
        traj_read(out, v[k].id, &tr[k]);
    for (int a = 0; a < n; a++)
        for (int b = a + 1; b < n; b++) {
            int pairs;
            double d = min_dist(&tr[a], &tr[b], &pairs);
            printf("  %s: %s - %s closest %.3f m over %d instants\n", out, v[a].id, v[b].id, d, pairs);
            assert_true(pairs > 1000);
            assert_true(d >= 2 * RADIUS);
            least = fmin(least, d);
        }
    for (int k = 0; k < n; k++)
        traj_free(&tr[k]);
    return least;
}

static char *slurp(const char *out, const char *name)
{
    char *path = NULL;
    assert_true(asprintf(&path, "%s/%s/%s", tmp, out, name) >= 0);
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *s = calloc(n + 1, 1);
    assert_true(s && fread(s, 1, n, f) == (size_t)n);
    fclose(f);
    free(path);
    return s;
}

/* n vehicles all at their goals, no collision; the events hold a conflict
 * with this resolution. */
static void check_goals(const sim_run *r, const char *out, const char *resolution)
{
    int conflicts = 0;
    for (int k = 0; k < sim_run_nvehicles(r); k++) {
        const sim_metrics *m = sim_run_metrics(r, k);
        printf("  %s %s: %s after %.1f s, conflicts %d, yields %d\n", out, m->id, m->end, m->time_s, m->conflicts,
               m->yields);
        assert_int_equal(m->collisions, 0);
        assert_int_equal(m->reached_goal, 1);
        conflicts += m->conflicts;
    }
    assert_true(conflicts >= 2); /* both sides count it */
    char *ev = slurp(out, "events.jsonl"), *want = NULL;
    assert_true(asprintf(&want, "\"type\": \"conflict\"") >= 0);
    assert_non_null(strstr(ev, want));
    free(want);
    assert_true(asprintf(&want, "\"role\": \"gives_way\", \"resolution\": \"%s\"", resolution) >= 0);
    assert_non_null(strstr(ev, want));
    free(want), free(ev);
}

static const double CORRIDOR[2][4] = {{4, 196, 396, 204}, {110, 204, 130, 222}};

static void test_corridor(void **state)
{
    (void)state;
    paint(2, CORRIDOR);
    static const veh v[2] = {{"east", 20, 380, 0}, {"west", 360, 40, 0}};
    char *text = scenario(2, v);
    trv_ctx *ctx = trv_ctx_new();
    sim_scenario *sc;
    sim_run *r = run(ctx, "corridor.ini", text, "corridor", &sc);
    check_goals(r, "corridor", "passing_place");
    check_distances("corridor", 2, v);
    /* the later one (west) gave way: it parked in the bay (y > 204) */
    traj w;
    traj_read("corridor", "west", &w);
    double ymax = -INFINITY;
    for (int i = 0; i < w.n; i++)
        ymax = fmax(ymax, w.y[i] - my(0));
    printf("  corridor: west reached y = %.2f (the bay's mouth at 204)\n", ymax);
    assert_true(ymax > 208);
    traj_free(&w);
    /* the same seed: the same bytes */
    sim_run *r2;
    sim_scenario *sc2;
    r2 = run(ctx, "corridor.ini", text, "corridor2", &sc2);
    static const char *const files[] = {"events.jsonl", "metrics.json", "trajectory_east.csv", "trajectory_west.csv"};
    for (int i = 0; i < 4; i++) {
        char *a = slurp("corridor", files[i]), *b = slurp("corridor2", files[i]);
        assert_string_equal(a, b);
        free(a), free(b);
    }
    sim_run_free(r), sim_run_free(r2);
    sim_scenario_free(sc), sim_scenario_free(sc2);
    free(text);
    trv_ctx_free(ctx);
}

static void test_open_ground(void **state)
{
    (void)state;
    paint(0, NULL);
    static const veh v[2] = {{"east", 20, 380, 0}, {"west", 360, 40, 0}};
    char *text = scenario(2, v);
    trv_ctx *ctx = trv_ctx_new();
    sim_scenario *sc;
    sim_run *r = run(ctx, "open.ini", text, "open", &sc);
    check_goals(r, "open", "detour");
    check_distances("open", 2, v);
    sim_run_free(r);
    sim_scenario_free(sc);
    free(text);
    trv_ctx_free(ctx);
}

static void test_three(void **state)
{
    (void)state;
    paint(2, CORRIDOR);
    static const veh v[3] = {{"east1", 20, 380, 0}, {"east2", 20, 350, 12}, {"west", 360, 40, 0}};
    char *text = scenario(3, v);
    trv_ctx *ctx = trv_ctx_new();
    sim_scenario *sc;
    sim_run *r = run(ctx, "three.ini", text, "three", &sc);
    check_goals(r, "three", "passing_place");
    check_distances("three", 3, v);
    /* west left the bay (back below its mouth, y 204) only after east2
     * had passed the bay (x > 130 + the two radii) */
    traj w, e2;
    traj_read("three", "west", &w);
    traj_read("three", "east2", &e2);
    int i = 0, j = 0;
    while (i < w.n && w.y[i] - my(0) < 206)
        i++;
    while (i < w.n && w.y[i] - my(0) >= 204)
        i++;
    while (j < e2.n && e2.x[j] - mx(0) <= 130 + 2 * RADIUS)
        j++;
    assert_true(i < w.n && j < e2.n);
    printf("  three: west leaves the bay at %.1f s, east2 past it at %.1f s\n", w.t[i], e2.t[j]);
    assert_true(w.t[i] > e2.t[j]);
    /* one conflict for it: it waited in the bay for both */
    assert_int_equal(sim_run_metrics(r, 2)->conflicts, 1);
    traj_free(&w), traj_free(&e2);
    sim_run_free(r);
    sim_scenario_free(sc);
    free(text);
    trv_ctx_free(ctx);
}

static void test_deadlock(void **state)
{
    (void)state;
    paint(1, CORRIDOR);
    static const veh v[2] = {{"east", 20, 380, 0}, {"west", 360, 40, 0}};
    char *text = scenario(2, v);
    trv_ctx *ctx = trv_ctx_new();
    sim_scenario *sc;
    sim_run *r = run(ctx, "deadlock.ini", text, "deadlock", &sc);
    for (int k = 0; k < 2; k++) {
        const sim_metrics *m = sim_run_metrics(r, k);
        printf("  deadlock %s: %s after %.1f s of %.0f\n", m->id, m->end, m->time_s, m->sim_time_s);
        assert_int_equal(m->collisions, 0);
        assert_string_equal(m->end, "deadlock");
        assert_true(m->sim_time_s < 100);
    }
    char *ev = slurp("deadlock", "events.jsonl");
    assert_non_null(strstr(ev, "\"resolution\": \"none\""));
    free(ev);
    sim_run_free(r);
    sim_scenario_free(sc);
    free(text);
    trv_ctx_free(ctx);
}

/* A T junction: "east" drives along the corridor, "south" comes up a
 * spur at x = 200 and turns west, toward it: their ways meet head-on west
 * of the junction. south, clear of east's path, waits at the foot of the
 * spur ("wait") until east has passed the junction. */
static void test_wait(void **state)
{
    (void)state;
    static const double t_junction[2][4] = {{4, 196, 396, 204}, {196, 100, 204, 204}};
    paint(2, t_junction);
    char *text = NULL;
    assert_true(asprintf(&text,
                         "[scenario]\ntime_limit_s = 400\nrecord_s = 0.02\n"
                         "[vehicle.east]\nfile = %s\nmodel = ackermann\nstart = %.2f,%.2f\ngoal = %.2f,%.2f\nsrs = map\n"
                         "[vehicle.south]\nfile = %s\nmodel = ackermann\nstart = %.2f,%.2f\ngoal = %.2f,%.2f\nsrs = map\n",
                         vehicle, mx(20), my(200), mx(380), my(200), vehicle, mx(200), my(120), mx(40), my(200)) >= 0);
    trv_ctx *ctx = trv_ctx_new();
    sim_scenario *sc;
    sim_run *r = run(ctx, "wait.ini", text, "wait", &sc);
    check_goals(r, "wait", "wait");
    static const veh v[2] = {{"east", 0, 0, 0}, {"south", 0, 0, 0}};
    check_distances("wait", 2, v);
    /* south entered the corridor (y > 190) only once east was past x = 200 + the radii */
    traj so, ea;
    traj_read("wait", "south", &so);
    traj_read("wait", "east", &ea);
    int i = 0, j = 0;
    while (i < so.n && so.y[i] - my(0) <= 190)
        i++;
    while (j < ea.n && ea.x[j] - mx(0) <= 200 + 2 * RADIUS)
        j++;
    assert_true(i < so.n && j < ea.n);
    printf("  wait: south enters the corridor at %.1f s, east past the junction at %.1f s\n", so.t[i], ea.t[j]);
    assert_true(so.t[i] > ea.t[j]);
    traj_free(&so), traj_free(&ea);
    sim_run_free(r);
    sim_scenario_free(sc);
    free(text);
    trv_ctx_free(ctx);
}

/* A vehicle that has finished keeps no right of way: "late" (first in
 * the file) drives east through the spot where "early" stopped, facing it,
 * at its goal; it yields behind it (to the time limit) instead of driving
 * into it. */
static void test_finished(void **state)
{
    (void)state;
    paint(0, NULL);
    static const veh v[2] = {{"late", 20, 300, 60}, {"early", 200, 100, 0}};
    char *text = scenario(2, v);
    trv_ctx *ctx = trv_ctx_new();
    sim_scenario *sc;
    sim_run *r = run(ctx, "finished.ini", text, "finished", &sc);
    const sim_metrics *late = sim_run_metrics(r, 0), *early = sim_run_metrics(r, 1);
    printf("  finished: early %s after %.1f s; late %s, collisions %d, yields %d\n", early->end, early->time_s,
           late->end, late->collisions, late->yields);
    assert_int_equal(early->reached_goal, 1);
    assert_int_equal(late->collisions, 0);
    assert_string_equal(late->end, "time_limit");
    assert_true(late->yields >= 1);
    sim_run_free(r);
    sim_scenario_free(sc);
    free(text);
    trv_ctx_free(ctx);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_corridor),
        cmocka_unit_test(test_open_ground),
        cmocka_unit_test(test_three),
        cmocka_unit_test(test_deadlock),
        cmocka_unit_test(test_wait),
        cmocka_unit_test(test_finished),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
