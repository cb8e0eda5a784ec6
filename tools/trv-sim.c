/* trv-sim: drive the vehicles of a scenario over the terrain (kinematic
 * models, terrain contact, sensors, obstacles, re-planning) and write the
 * trajectories, events and metrics. Thin: options -> sim -> status. */
#include "console/console.h"
#include "qgis/qgis.h"
#include "run/run.h"
#include "sim/server.h"
#include "tool.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The run's files (metrics.json is its summary), the QGIS styles beside
 * its vector layers (trajectory_<id>.qml, obstacles.qml) and, served, the
 * client's commands (commands.csv, for --commands) in one set: all or
 * none. */
static trv_status write_all(trv_ctx *ctx, const sim_run *run, const sim_scenario *sc, const sim_commands *log,
                            const char *outdir, const trv_meta *meta, int timing)
{
    trv_outset *set = trv_outset_new();
    trv_status st = set ? TRV_OK : trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
    if (!st)
        st = sim_run_write(ctx, set, run, outdir, meta, timing);
    if (!st && log) {
        char *path = trv_path_join(outdir, "commands.csv");
        const char *tmp = path ? trv_outset_add(set, path) : NULL;
        st = tmp ? sim_commands_write(ctx, tmp, sc, log) : trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
        free(path);
    }
    char name[64];
    for (int k = 0; !st && k <= sim_run_nvehicles(run); k++) {
        int obstacles = k == sim_run_nvehicles(run);
        if (obstacles && !sc->obstacles)
            break;
        if (!obstacles)
            snprintf(name, sizeof name, "trajectory_%s.qml", sim_run_metrics(run, k)->id);
        char *path = trv_path_join(outdir, obstacles ? "obstacles.qml" : name);
        const char *tmp = path ? trv_outset_add(set, path) : NULL;
        if (!tmp)
            st = trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
        else
            st = obstacles ? qgis_qml_obstacles_write(ctx, tmp, NULL) : qgis_qml_trajectory_write(ctx, tmp);
        free(path);
    }
    if (!st)
        st = trv_outset_commit(ctx, set);
    if (st)
        trv_outset_explain(ctx, set);
    trv_outset_free(set);
    return st;
}

/* The class table OPT names, else the run directory's copy (trv-speed
 * writes it beside speed.tif: the tables the maps were made with); NULL
 * with the error set. No fallback to the bundled tables: a model from
 * other tables than speed.tif's would disagree with the maps unseen. */
static char *table_path(trv_ctx *ctx, const char *opt, const char *dir, run_oid copy, const char *option)
{
    char *p = opt ? strdup(opt) : run_other_path(dir, copy);
    if (!p)
        trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
    else if (!opt && !trv_file_exists(p)) {
        trv_error(ctx, TRV_ERR_IO, "'%s' is missing: the speed model on %s needs the class tables the maps were "
                  "made with; run trv-speed --terrain %s again (it copies them there), or name the table with %s",
                  p, run_file(RUN_SOIL), dir, option);
        free(p);
        p = NULL;
    }
    return p;
}

/* --serve: listen (the port on stderr: "trv-sim: listening on ADDR:PORT");
 * connections wait in the queue until the run is loaded. A bad address is
 * a usage error (exit 2). */
static sim_server *tool_listen(const trv_cli *cli, trv_ctx *ctx, const char *addr, trv_status *st)
{
    sim_server *srv = NULL;
    *st = sim_server_open(ctx, addr, &srv);
    tool_usage_check(cli, ctx, *st);
    if (*st)
        return NULL;
    if (!sim_server_loopback(srv))
        fprintf(stderr, "trv-sim: warning: serving on a non-loopback address (%s): anyone who reaches it drives "
                "the run\n", addr);
    const char *colon = strrchr(addr, ':');
    fprintf(stderr, "trv-sim: listening on %.*s:%d\n", colon ? (int)(colon - addr) : 9, colon ? addr : "127.0.0.1",
            sim_server_port(srv));
    fflush(stderr);
    return srv;
}

/* --console: the operator's console (docs/console.md; the URL on stderr:
 * "trv-sim: console on http://ADDR:PORT/"). A bad address is a usage
 * error (exit 2). */
static console *tool_console(const trv_cli *cli, trv_ctx *ctx, const char *addr, const char *dir, const char *outdir,
                             trv_status *st)
{
    console *con = NULL;
    *st = console_open(ctx, addr, dir, outdir, &con);
    tool_usage_check(cli, ctx, *st);
    if (*st)
        return NULL;
    if (!console_loopback(con))
        fprintf(stderr, "trv-sim: warning: the console is served on a non-loopback address (%s): anyone who "
                "reaches it drives the run\n", addr);
    const char *colon = strrchr(addr, ':');
    fprintf(stderr, "trv-sim: console on http://%.*s:%d/\n", colon ? (int)(colon - addr) : 9,
            colon ? addr : "127.0.0.1", console_port(con));
    fflush(stderr);
    return con;
}

int main(int argc, char **argv)
{
    const char *dir = NULL, *scenario = NULL, *outdir = NULL, *route = NULL, *soils_opt = NULL, *landuse_opt = NULL;
    const char *serve = NULL, *commands = NULL, *console_addr = NULL;
    uint64_t seed = 1;
    int realtime = 0, no_timing = 0, replay = 0, threads = 0;
    const trv_opt opts[] = {
        {"terrain", 0, TRV_ARG_STRING, &dir, "DIR", "the terrain directory (class, cost, gonogo, dem, slope, speed.tif; with soil.tif and landuse.tif, the speed model in the direction of travel and the ride)"},
        {"scenario", 0, TRV_ARG_STRING, &scenario, "SCENARIO.ini", "vehicles, sensors, obstacles, step and time limit (bundled: scenarios/*.ini in the data directory)"},
        {"output", 'o', TRV_ARG_STRING, &outdir, "OUTDIR", "trajectory_<id>.csv/.geojson, events.jsonl, metrics.json, obstacles.geojson (with an obstacles file or virtual obstacles), vehicles.json, lidar_<id>.ndjson (lidar_record_s), commands.csv (served)"},
        {"route", 0, TRV_ARG_STRING, &route, "ROUTE.csv", "route file for every vehicle, instead of the scenario's"},
        {"soils", 0, TRV_ARG_STRING, &soils_opt, "CSV", "soil table of the speed model, read when the terrain has soil.tif (default: the terrain's speed_soils.csv, trv-speed's copy)"},
        {"landuse-classes", 0, TRV_ARG_STRING, &landuse_opt, "CSV", "land-use table of the speed model and the ride (default: the terrain's speed_landuse.csv)"},
        {"seed", 0, TRV_ARG_U64, &seed, "S", "seed of the sensor noise (default 1)"},
        {"threads", 0, TRV_ARG_INT, &threads, "N", "threads casting the LiDAR's rays, the same outputs for any number (default: all cores)"},
        {"realtime", 0, TRV_ARG_FLAG, &realtime, NULL, "pace the run to the wall clock"},
        {"no-timing", 0, TRV_ARG_FLAG, &no_timing, NULL, "leave wall_time_s and realtime_factor out of metrics.json"},
        {"serve", 0, TRV_ARG_STRING, &serve, "[ADDR:]PORT", "lock-step server: a client drives the run over TCP (docs/sim-protocol.md; 127.0.0.1 unless ADDR; port 0: any, printed on stderr)"},
        {"console", 0, TRV_ARG_STRING, &console_addr, "[ADDR:]PORT", "the operator's console in a browser: HTTP + WebSocket, the run paced x1..x100 or max (docs/console.md; 127.0.0.1 unless ADDR; port 0: any; the URL on stderr)"},
        {"replay", 0, TRV_ARG_FLAG, &replay, NULL, "with --console: serve the finished run in OUTDIR to the console's pages instead of running (until stopped)"},
        {"commands", 0, TRV_ARG_STRING, &commands, "CSV", "replay a client's commands (step, vehicle, command, a, b, c, d: a served run's commands.csv) in a batch run"},
        {NULL, 0, 0, NULL, NULL, NULL},
    };
    static const char *const required[] = {"terrain", "scenario", "output", NULL};
    const trv_cli cli = {
        .tool = "trv-sim",
        .usage = "--terrain DIR --scenario SCENARIO.ini -o OUTDIR [--route ROUTE.csv] [--seed S] [--threads N] [--realtime]\n"
                 "       [--serve [ADDR:]PORT | --commands CSV] [--console [ADDR:]PORT [--replay]]",
        .summary = "Drive the scenario's vehicles along their routes on the terrain: kinematic models with actuator\n"
                   "lag, terrain contact, a path-following controller, GNSS/IMU/LiDAR, static, appearing and moving\n"
                   "obstacles, re-planning around what the LiDAR saw; write each trajectory, the events and the metrics.",
        .opts = opts,
        .libraries = tool_libraries,
        .required = required,
    };
    trv_cli_result res;
    trv_ctx *ctx = tool_start(&cli, argc, argv, &res);
    if (serve && commands)
        tool_usage(&cli, ctx, "--serve and --commands exclude each other (a client sends its commands)");
    if (threads < 0)
        tool_usage(&cli, ctx, "--threads must be positive");
    if (replay && (!console_addr || serve || commands))
        tool_usage(&cli, ctx, "--replay needs --console and excludes --serve and --commands");
    const char *const names[2] = {run_other_file(RUN_O_SIM_METRICS), run_other_file(RUN_O_SIM_EVENTS)};
    const char *const ins[5] = {scenario, route, soils_opt, landuse_opt, commands};
    tool_outputs_check_dir(&cli, ctx, outdir, names, 2, NULL, 0, ins, 5);
    trv_ctx_set_seed(ctx, seed);
    trv_meta meta;
    trv_meta_init(&meta, cli.tool, argc, argv);
    meta.has_seed = 1;
    meta.seed = seed;
    prm_terrain t;
    sim_scenario *sc = NULL;
    sim_run *run = NULL;
    geo_raster *soil = NULL, *landuse = NULL;
    tm_soils *soils = NULL;
    char *soils_path = NULL, *landuse_path = NULL;
    trv_status st = TRV_OK;
    sim_server *srv = serve ? tool_listen(&cli, ctx, serve, &st) : NULL;
    console *con = console_addr && !st ? tool_console(&cli, ctx, console_addr, dir, outdir, &st) : NULL;
    if (replay) {
        st = st ? st : console_serve_files(ctx, con);
        console_free(con);
        return tool_end(&cli, ctx, st);
    }
    if (!st)
        st = sim_scenario_read(ctx, scenario, &sc);
    int loaded = 0;
    if (!st)
        loaded = (st = prm_terrain_load(ctx, dir, &t)) == TRV_OK;
    /* the speed model, when the terrain has the soil layer trv-speed read
     * (and so the land-use layer): its layers and tables are then required */
    if (!st && run_exists(dir, RUN_SOIL)) {
        static const run_id which[2] = {RUN_SOIL, RUN_LANDUSE};
        const run_load_opts on_terrain = {.grid = t.grid, .grid_name = run_file(RUN_CLASS)};
        run_stack s;
        if (!(soils_path = table_path(ctx, soils_opt, dir, RUN_O_SPEED_SOILS, "--soils")) ||
            !(landuse_path = table_path(ctx, landuse_opt, dir, RUN_O_SPEED_LANDUSE, "--landuse-classes")))
            st = TRV_ERR_IO;
        if (!st && (st = run_load(ctx, dir, which, 2, &on_terrain, &s)) == TRV_OK) {
            soil = run_stack_take(&s, RUN_SOIL);
            landuse = run_stack_take(&s, RUN_LANDUSE);
            run_stack_clear(&s);
        }
        if (!st)
            st = tm_soils_read(ctx, soils_path, &soils);
    }
    sim_env env = {.route_path = route, .soil = soils ? soil : NULL, .landuse = soils ? landuse : NULL,
                   .soils = soils, .landuse_csv = landuse_path, .seed = seed, .realtime = realtime, .threads = threads};
    sim_commands *cmds = NULL, *log = NULL;
    if (!st && commands && !(st = sim_commands_read(ctx, commands, sc, &cmds)))
        env.commands = cmds;
    if (!st)
        st = sim_run_new(ctx, sc, &t, &env, &run);
    if (!st && cmds)
        st = sim_commands_check(ctx, run, cmds);
    if (!st)
        st = con ? console_run(ctx, con, srv, sc, &t, &env, &run, &log)
             : srv ? sim_server_run(ctx, srv, sc, &t, &env, &run, &log) : sim_run_go(ctx, run);
    if (!st)
        st = write_all(ctx, run, sc, log, outdir, &meta, !no_timing);
    if (!st && !res.quiet) {
        double wall = sim_run_wall_s(run);
        printf("%-12s %5s %-10s %9s %9s %9s %8s %8s %7s %5s %5s %9s %9s\n", "vehicle", "goal", "end", "time s",
               "planned s", "dist m", "xte rms", "xte max", "replans", "coll", "stops", "energy kJ", "ride m/s2");
        for (int k = 0; k < sim_run_nvehicles(run); k++) {
            const sim_metrics *m = sim_run_metrics(run, k);
            char ride[16] = "-";
            if (isfinite(m->ride_rms_ms2))
                snprintf(ride, sizeof ride, "%.3f", m->ride_rms_ms2);
            printf("%-12s %5s %-10s %9.1f %9.1f %9.1f %8.3f %8.3f %7d %5d %5d %9.1f %9s\n", m->id,
                   m->reached_goal ? "yes" : "no", m->end, m->time_s, m->planned_time_s, m->distance_m,
                   m->cross_track_rms_m, m->cross_track_max_m, m->replans, m->collisions, m->stops, m->energy_kJ, ride);
        }
        for (int k = 0; k < sim_run_nvehicles(run); k++) {
            const sim_metrics *m = sim_run_metrics(run, k);
            if (m->replans)
                printf("%s: %d re-plans, %.4f s wall each on average\n", m->id, m->replans,
                       m->replan_wall_s / m->replans);
        }
        const sim_metrics *m0 = sim_run_metrics(run, 0);
        printf("simulated %.1f s in %.3f s wall: %.0fx real time (seed %llu)\n", m0->sim_time_s, wall,
               wall > 0 ? m0->sim_time_s / wall : 0, (unsigned long long)seed);
    }
    sim_run_free(run);
    sim_scenario_free(sc);
    geo_raster_free(soil);
    geo_raster_free(landuse);
    tm_soils_free(soils);
    sim_commands_free(cmds);
    sim_commands_free(log);
    sim_server_free(srv);
    console_free(con);
    free(soils_path), free(landuse_path);
    if (loaded)
        prm_terrain_clear(&t);
    return tool_end(&cli, ctx, st);
}
