#!/usr/bin/env python3
"""The local planners' study (issue 23 point 4; bench/local_planners.sh),
Python standard library only.

    local_planners.py SIM TERRAIN ROUTE.csv VEHICLE.ini WORKDIR [N [SEED]]
    local_planners.py --table WORKDIR    (the table of a study kept so far)

N scenarios (default 100) from SEED (default 1), generated into WORKDIR:
each a stretch of LENGTH_M of ROUTE's mmcr route (its start drawn along the
route), driven by the UGV with a 3D LiDAR, with 1 to 3 circular obstacles
(radius 1 to 3 m, 1.5 m high) centred on the stretch (route-relative:
at_route_m, at least GAP_M apart) that appear at random times: each at
most when the vehicle, in a free run of the stretch (planner none, no
obstacles; a run with obstacles only arrives later), is still its stopping
distance (top speed^2 / (2 decel) + half its length) plus the obstacle's
radius and FREE_M before it. Each scenario is run with every local
planner (local_window_m 60, local_lookahead_m 40: WINDOW_M below); per planner: the share that reach the goal, collisions, mean
path length and time (of the runs that reach the goal, and over the
scenarios every planner finished), mean minimum and summed clearance
(metrics.json's clearance_min_m, clearance_sum_m), re-plans, and the CPU
time per simulated step: the process's (user + sys, os.wait4) less a
one-step run's (loading the terrain), over its steps; the planner's share
is that less planner none's. Prints a markdown table and one line per
planner it could not run (its scenario key refused).
"""
import concurrent.futures
import json
import math
import os
import random
import subprocess
import sys

PLANNERS = ["none", "vfh+", "vfh*", "vfh*-wu2020", "dwa"]
LENGTH_M = 500.0
GAP_M = 80.0
FREE_M = 10.0
STEP_S = 0.02
DECEL = 2.0  # the scenario's decel_ms2 (default)
# the planners' window and look-ahead (m): the UGV at 40 km/h stops in
# 32 m, beyond local_planner.h's defaults (15, 10 m: walking pace); the
# window must hold the stopping distance and exceed the enlargement r_rs
# (half a 30 m cell's diagonal + the vehicle's radius + safety: 23.5 m)
# by a cell (53.5 m). "default": the keys left out.
WINDOW_M = os.environ.get("LOCAL_WINDOW_M", "60")
LOOKAHEAD_M = os.environ.get("LOCAL_LOOKAHEAD_M", "40")


def read_route(path):
    with open(path) as f:
        head = f.readline().strip().split(",")
        ix, iy, ir = head.index("x"), head.index("y"), head.index("route") if "route" in head else -1
        pts = []
        for line in f:
            c = line.strip().split(",")
            if ir < 0 or c[ir] == "mmcr":
                pts.append((float(c[ix]), float(c[iy])))
    return pts


def cumulative(pts):
    s = [0.0]
    for (ax, ay), (bx, by) in zip(pts, pts[1:]):
        s.append(s[-1] + math.hypot(bx - ax, by - ay))
    return s


def point_at(pts, s, d):
    i = max(0, min(len(pts) - 2, next((k for k in range(1, len(s)) if s[k] >= d), len(s) - 1) - 1))
    f = 0.0 if s[i + 1] == s[i] else (d - s[i]) / (s[i + 1] - s[i])
    return (pts[i][0] + f * (pts[i + 1][0] - pts[i][0]), pts[i][1] + f * (pts[i + 1][1] - pts[i][1]))


def stretch(pts, s, d0, d1):
    out = [point_at(pts, s, d0)] + [p for p, sk in zip(pts, s) if d0 < sk < d1] + [point_at(pts, s, d1)]
    return out


def vehicle_numbers(path):
    v = {}
    for line in open(path):
        if "=" in line and not line.lstrip().startswith(("#", ";")):
            k, val = line.split("=", 1)
            try:
                v[k.strip()] = float(val.split("#")[0])
            except ValueError:
                pass
    return v["top_speed_kmh"] / 3.6, v["length_m"]


def scenario_ini(vehicle, route, obstacles, planner, time_limit):
    s = "[scenario]\nstep_s = %g\ntime_limit_s = %g\nrecord_s = 0.5\ngoal_tolerance_m = 3\n" % (STEP_S, time_limit)
    if obstacles:
        s += "obstacles = %s\n" % obstacles
    s += "\n[vehicle.ugv]\nfile = %s\nmodel = ackermann\nroute = %s\nlocal_planner = %s\n" % (vehicle, route, planner)
    for key, val in (("local_window_m", WINDOW_M), ("local_lookahead_m", LOOKAHEAD_M)):
        if val != "default":
            s += "%s = %s\n" % (key, val)
    s += ("\n[lidar3d.ugv]\nrate_hz = 10\nlines = 8\nvfov_deg = 20\nhfov_deg = 360\nhres_deg = 2\n"
          "range_m = 60\nnoise_m = 0\nmount_h_m = 1.8\n")
    return s


def run(sim, terrain, ini, outdir):
    """trv-sim once: (exit status, CPU s user + sys, metrics of the vehicle or None)."""
    p = subprocess.Popen([sim, "--terrain", terrain, "--scenario", ini, "-o", outdir, "--no-timing", "-q",
                          "--seed", "1"], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    err = p.stderr.read()
    _, status, ru = os.wait4(p.pid, 0)
    p.returncode = os.waitstatus_to_exitcode(status)
    m = None
    if p.returncode == 0:
        m = json.load(open(os.path.join(outdir, "metrics.json")))["vehicles"][0]
    return p.returncode, ru.ru_utime + ru.ru_stime, m, err.decode(errors="replace")


def free_times(traj_csv):
    """(arc length, time) of a trajectory CSV."""
    out, s, last = [], 0.0, None
    with open(traj_csv) as f:
        f.readline()
        for line in f:
            c = line.split(",")
            t, x, y = float(c[0]), float(c[1]), float(c[2])
            if last:
                s += math.hypot(x - last[0], y - last[1])
            out.append((s, t))
            last = (x, y)
    return out


def generate(i, rng, pts, s, args, d_stop):
    """Scenario i: its stretch, free run, obstacles; the ini of each planner."""
    sim, terrain, _, vehicle, work = args
    d0 = rng.uniform(0, s[-1] - LENGTH_M)
    sub = stretch(pts, s, d0, d0 + LENGTH_M)
    dir_ = os.path.join(work, "s%03d" % i)
    os.makedirs(dir_, exist_ok=True)
    route = os.path.join(dir_, "route.csv")
    with open(route, "w") as f:
        f.write("x,y\n" + "".join("%.3f,%.3f\n" % p for p in sub))
    free_ini = os.path.join(dir_, "free.ini")
    open(free_ini, "w").write(scenario_ini(vehicle, route, None, "none", 1200))
    st, _, m, err = run(sim, terrain, free_ini, os.path.join(dir_, "free"))
    if st or not m["reached_goal"]:
        return None  # the stretch itself is not drivable: drawn again
    ft = free_times(os.path.join(dir_, "free", "trajectory_ugv.csv"))
    n = rng.randint(1, 3)
    feats = []
    at = []
    while len(at) < n:
        r = rng.uniform(1.0, 3.0)
        a = rng.uniform(d_stop + r + FREE_M + 5, LENGTH_M - 30)
        if all(abs(a - b) >= GAP_M for b, _ in at):
            at.append((a, r))
    for k, (a, r) in enumerate(sorted(at)):
        latest = max(t for sk, t in ft if sk <= a - r - d_stop - FREE_M)
        feats.append({"type": "Feature", "geometry": None,
                      "properties": {"id": "o%d" % (k + 1), "height_m": 1.5, "radius_m": round(r, 2),
                                     "at_route_m": round(a, 1), "appear_s": round(rng.uniform(0, latest), 2)}})
    obs = os.path.join(dir_, "obstacles.geojson")
    json.dump({"type": "FeatureCollection", "features": feats}, open(obs, "w"), indent=1)
    limit = 3 * m["time_s"] + 60
    for p in PLANNERS:
        open(os.path.join(dir_, "%s.ini" % p.replace("*", "star")), "w").write(
            scenario_ini(vehicle, route, obs, p, limit))
    return dir_, len(feats)


def table(res, nscn, base_cpu, could_not):
    ok = [p for p in PLANNERS if p not in could_not]
    common = [i for i in range(nscn) if all(res[p][i] and res[p][i]["reached_goal"] for p in ok)]
    print("| planner | goal | collisions | length m | time s | length m (common) | time s (common) | "
          "clearance min m | clearance sum m | re-plans | CPU/step us | planner CPU/step us |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    none_cpu = None
    for p in ok:
        rs = [r for r in res[p] if r]
        g = [r for r in rs if r["reached_goal"]]
        mean = lambda xs: sum(xs) / len(xs) if xs else float("nan")  # noqa: E731
        cpu = mean([(r["cpu"] - base_cpu) / max(1, r["sim_time_s"] / STEP_S) * 1e6 for r in rs]) \
            if base_cpu is not None and all("cpu" in r for r in rs) else float("nan")
        if p == "none":
            none_cpu = cpu
        cmin = [r["clearance_min_m"] for r in rs if r.get("clearance_min_m") is not None]
        print("| %s | %d / %d (%.0f %%) | %d | %.1f | %.1f | %.1f | %.1f | %.2f | %.2f | %.2f | %.1f | %s |" % (
            p, len(g), len(rs), 100.0 * len(g) / max(1, len(rs)), sum(r["collisions"] for r in rs),
            mean([r["distance_m"] for r in g]), mean([r["time_s"] for r in g]),
            mean([res[p][i]["distance_m"] for i in common]), mean([res[p][i]["time_s"] for i in common]),
            mean(cmin), mean([r["clearance_sum_m"] for r in rs]), mean([r["replans"] for r in rs]), cpu,
            "-" if p == "none" or none_cpu is None or math.isnan(cpu) else "%.1f" % (cpu - none_cpu)))
    print("\n%d scenarios, %d obstacles; %d reached by every planner (the common columns)" % (
        nscn, sum(res["_n"]), len(common)))
    for p in could_not:
        print("could not run %s: %s" % (p, could_not[p]))


def tabulate(work):
    """The table of a kept study (LP_KEEP): the scenarios every planner has
    finished (a study cut short: those done so far)."""
    res = {p: [] for p in PLANNERS}
    res["_n"] = []
    for d in sorted(x for x in os.listdir(work) if x.startswith("s")):
        runs = {}
        for p in PLANNERS:
            o = os.path.join(work, d, "o_" + p.replace("*", "star"))
            if os.path.exists(os.path.join(o, "metrics.json")):
                runs[p] = json.load(open(os.path.join(o, "metrics.json")))["vehicles"][0]
                if os.path.exists(os.path.join(o, "cpu.txt")):
                    runs[p]["cpu"] = float(open(os.path.join(o, "cpu.txt")).read())
        if len(runs) == len(PLANNERS):
            for p in PLANNERS:
                res[p].append(runs[p])
            res["_n"].append(len(json.load(open(os.path.join(work, d, "obstacles.geojson")))["features"]))
    base = os.path.join(work, "one", "cpu.txt")
    table(res, len(res["_n"]), float(open(base).read()) if os.path.exists(base) else None, {})


def main():
    if len(sys.argv) == 3 and sys.argv[1] == "--table":
        return tabulate(sys.argv[2])
    if len(sys.argv) < 6:
        sys.exit(__doc__)
    args = sys.argv[1:6]
    sim, terrain, route_csv, vehicle, work = args
    nscn = int(sys.argv[6]) if len(sys.argv) > 6 else 100
    seed = int(sys.argv[7]) if len(sys.argv) > 7 else 1
    pts = read_route(route_csv)
    s = cumulative(pts)
    vmax, length = vehicle_numbers(vehicle)
    d_stop = vmax * vmax / (2 * DECEL) + length / 2
    rng = random.Random(seed)
    # a one-step run: the CPU of loading the terrain, taken off every run's
    one = os.path.join(work, "one.ini")
    open(one, "w").write(scenario_ini(vehicle, route_csv, None, "none", STEP_S))
    base = min(run(sim, terrain, one, os.path.join(work, "one"))[1] for _ in range(3))
    open(os.path.join(work, "one", "cpu.txt"), "w").write("%.6f\n" % base)
    scn = []
    drawn = 0
    while len(scn) < nscn and drawn < 3 * nscn:
        drawn += 1
        g = generate(len(scn), rng, pts, s, args, d_stop)
        if g:
            scn.append(g)
    res = {p: [None] * len(scn) for p in PLANNERS}
    res["_n"] = [n for _, n in scn]
    could_not = {}

    def job(ip):
        i, p = ip
        tag = p.replace("*", "star")
        st, cpu, m, err = run(sim, terrain, os.path.join(scn[i][0], tag + ".ini"), os.path.join(scn[i][0], "o_" + tag))
        if st:
            could_not[p] = err.strip().splitlines()[-1] if err.strip() else "exit %d" % st
            return
        m["cpu"] = cpu
        open(os.path.join(scn[i][0], "o_" + tag, "cpu.txt"), "w").write("%.6f\n" % cpu)
        res[p][i] = m

    jobs = [(i, p) for i in range(len(scn)) for p in PLANNERS]
    with concurrent.futures.ThreadPoolExecutor(max_workers=int(os.environ.get("JOBS", "2"))) as ex:
        list(ex.map(job, jobs))
    for i in range(len(scn)):
        print("scenario %d: %d obstacles: %s" % (i + 1, scn[i][1], " ".join(
            "%s=%s" % (p, res[p][i]["end"] if res[p][i] else "-") for p in PLANNERS)), file=sys.stderr)
    print("base CPU (terrain loading, one step): %.3f s; stopping distance %.1f m; local_window_m %s, "
          "local_lookahead_m %s" % (base, d_stop, WINDOW_M, LOOKAHEAD_M))
    table(res, len(scn), base, could_not)


if __name__ == "__main__":
    main()
