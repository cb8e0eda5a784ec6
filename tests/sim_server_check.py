#!/usr/bin/env python3
"""Drives trv-sim --serve for tests/tool_sim_server.sh with the client
module tools/trv_sim_client.py. One line per check: "PASS name" or
"FAIL name: why".

    sim_server_check.py square SIM TERRAIN SCENARIO OUTDIR COMMANDS.csv
        errors, a second client, a square by command + step (Ackermann by
        steer, skid by wheel speeds), a scan checked against the ground,
        a plan, to the end of the run; the commands sent written to
        COMMANDS.csv for the batch replay
    sim_server_check.py disconnect SIM TERRAIN SCENARIO OUTDIR
        500 steps, then the client goes away without close
"""
import base64
import math
import os
import socket
import struct
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tools"))
from trv_sim_client import SimClient, SimError  # noqa: E402
from sim_check_lib import check, expect_error, start  # noqa: E402

results = []


def errors(sim):
    expect_error(sim, "this is not json", "malformed", "malformed")
    expect_error(sim, "[1, 2]", "malformed", "not an object")
    expect_error(sim, '{"type": "fly"}', "unknown_message", "unknown message")
    expect_error(sim, '{"id": 3}', "missing", "no type")
    expect_error(sim, '{"type": "state", "vehicle": "nobody"}', "unknown_vehicle", "unknown vehicle")
    expect_error(sim, '{"type": "command", "vehicle": "ugv", "v": 99, "steer": 0}', "out_of_range", "speed")
    expect_error(sim, '{"type": "command", "vehicle": "ugv", "v": 1, "steer": 2}', "out_of_range", "steer")
    expect_error(sim, '{"type": "command", "vehicle": "ugv", "v": 1, "yaw_rate": 0.1}', "out_of_range",
                 "yaw_rate on ackermann")
    expect_error(sim, '{"type": "command", "vehicle": "ugv", "wheels": [1, 1]}', "out_of_range",
                 "wheels on ackermann")
    expect_error(sim, '{"type": "command", "vehicle": "skid", "wheels": [1, 100]}', "out_of_range",
                 "wheels too fast")
    expect_error(sim, '{"type": "command", "vehicle": "ugv", "v": "fast", "steer": 0}', "bad_type", "bad type")
    expect_error(sim, '{"type": "step", "n": 0}', "out_of_range", "n 0")
    expect_error(sim, '{"type": "step", "n": 1.5}', "out_of_range", "n 1.5")
    expect_error(sim, '{"type": "command", "vehicle": "ugv", "path": [[0, 0], [1, 1]]}', "out_of_range",
                 "path off the map")
    expect_error(sim, '{"type": "scan", "vehicle": "skid"}', "no_lidar", "no lidar")
    expect_error(sim, "x" * (1 << 20) + "yz", "too_long", "too long")
    r = sim.request("state", id="after")
    check("session continues", r["id"] == "after" and r["t"] == 0 and len(r["vehicles"]) == 2, repr(r)[:200])


def second_client(port):
    s = socket.create_connection(("127.0.0.1", port), timeout=20)
    line = s.makefile("rb").readline()
    rest = s.recv(10)
    s.close()
    check("second client refused", b'"error":"busy"' in line and rest == b"", repr(line))


class Log:
    """The commands sent, as the CSV a batch run replays."""

    def __init__(self, sim):
        self.sim, self.rows = sim, []

    def drive(self, vid, v, steer):
        r = self.sim.command(vid, v=v, steer=steer)
        self.rows.append("%d,%s,drive,%r,%r,," % (r["step"], vid, float(v), float(steer)))

    def wheels(self, vid, wl, wr):
        r = self.sim.command(vid, wheels=[wl, wr])
        self.rows.append("%d,%s,wheels,%r,%r,," % (r["step"], vid, float(wl), float(wr)))

    def follow(self, vid, path):
        r = self.sim.command(vid, path=path)
        self.rows += ["%d,%s,follow,%r,%r,," % (r["step"], vid, float(x), float(y)) for x, y in path]

    def write(self, path):
        with open(path, "w") as f:
            f.write("step,vehicle,command,a,b,c,d\n" + "".join(r + "\n" for r in self.rows))


def ground_z(x):
    """The test terrain: dem = 100 + 0.01 column, 10 m cells from x 500005."""
    return 100 + 0.001 * (x - 500005)


def check_scan(sim):
    sc = sim.scan("ugv")
    raw = base64.b64decode(sc["ranges_f32le"])
    ranges = struct.unpack("<%df" % (len(raw) // 4), raw)
    p, lines, naz = sc["pose"], sc["lines"], sc["azimuths"]
    check("scan size", len(ranges) == lines * naz, "%d ranges, %d x %d" % (len(ranges), lines, naz))
    ch, sh, cp, sp = math.cos(p["heading"]), math.sin(p["heading"]), math.cos(p["pitch"]), math.sin(p["pitch"])
    cr, sr = math.cos(p["roll"]), math.sin(p["roll"])
    R = [[ch * cp, -sh * cr - ch * sp * sr, sh * sr - ch * sp * cr],
         [sh * cp, ch * cr - sh * sp * sr, -ch * sr - sh * sp * cr], [sp, cp * sr, cp * cr]]
    o = [p["x"] + R[0][2] * sc["mount_h_m"], p["y"] + R[1][2] * sc["mount_h_m"], p["z"] + R[2][2] * sc["mount_h_m"]]
    worst, hits, misses_down = 0.0, 0, 0
    for a in range(naz):
        az = sc["az0_rad"] + a * sc["daz_rad"]
        for l in range(lines):
            el = sc["el0_rad"] + l * sc["del_rad"]
            b = [math.cos(el) * math.cos(az), math.cos(el) * math.sin(az), math.sin(el)]
            d = [sum(R[i][j] * b[j] for j in range(3)) for i in range(3)]
            t = ranges[a * lines + l]
            if math.isnan(t):
                # a ray going down reaches the plane within range unless far
                tg = (o[2] - ground_z(o[0])) / -d[2] if d[2] < 0 else math.inf
                misses_down += tg < 0.9 * sc["range_m"]
                continue
            hits += 1
            x, z = o[0] + t * d[0], o[2] + t * d[2]
            worst = max(worst, abs(z - ground_z(x)))
    check("scan hits on the ground", hits > 100 and worst < 1e-3 and misses_down == 0,
          "%d hits, worst |z - ground| %.2e m, %d missed downward rays" % (hits, worst, misses_down))


def square(sim_bin, terrain, scenario, outdir, csv_path):
    p, port = start(sim_bin, terrain, scenario, outdir)
    with SimClient(port=port) as sim:
        h = sim.hello()
        ids = [v["id"] for v in h["vehicles"]]
        check("hello", h["protocol"] == 1 and ids == ["ugv", "skid"] and h["t"] == 0 and h["step_s"] == 0.02 and
              h["map"]["nx"] == 100 and h["vehicles"][0]["sensors"][0]["kind"] == "lidar3d", repr(h)[:300])
        errors(sim)
        second_client(port)
        log = Log(sim)
        ugv, skid = h["vehicles"][0], h["vehicles"][1]
        w = 2.0 / skid["wheel_radius_m"]
        turn = 0.25 * skid["track_m"] / skid["wheel_radius_m"]  # r (wr - wl) / track = 0.5 rad/s on the spot
        steer = ugv["max_steer_rad"]
        yaw = 3 * math.tan(steer) / ugv["wheelbase_m"]
        h0 = sim.state("skid")["heading"]
        for side in range(4):
            if side == 1:
                # the first on-the-spot turn: wr > wl turns left (counter-clockwise), at
                # slip x r (wr - wl) / track = 0.7 x 0.5 rad/s for pi s (the lag: a little less)
                dh = sim.state("skid")["heading"] - h0
                check("skid turns left", 0.9 < dh < 0.7 * math.pi / 2 + 1e-6, "heading %+.3f rad" % dh)
            log.drive("ugv", 3, 0)
            log.wheels("skid", w, w)
            sim.step(duration_s=8)
            if side == 1:
                check_scan(sim)
            log.drive("ugv", 3, steer)
            log.wheels("skid", -turn, turn)
            sim.step(n=int(round(math.pi / 2 / yaw / 0.02)))
            log.wheels("skid", -turn, turn)
            sim.step(n=int(round(math.pi / 2 / 0.5 / 0.02)) - int(round(math.pi / 2 / yaw / 0.02)))
        log.drive("ugv", 0, 0)
        s = sim.state("skid")
        # back to the built-in controller: a path twice at one step (the second counts)
        log.follow("skid", [[s["x"], s["y"]], [500905, 4000905]])
        log.rows.pop()
        log.rows.pop()
        log.follow("skid", [[s["x"], s["y"]], [500605, 4000105], [500705, 4000105]])
        sim.step(n=1)
        check("follow", sim.state("skid")["mode"] == "follow", "")
        s = sim.state("ugv")
        check("state", s["mode"] == "drive" and s["phase"] == "driving" and s["class"] == 3 and
              s["speed_limit_ms"] > 0 and s["binding_limit"] and abs(s["z"] - ground_z(s["x"])) < 0.05, repr(s))
        r = sim.plan("skid", to=[500905, 4000105])
        check("plan", r["path"][-1] == [500905, 4000105] and r["length_m"] > 0, repr(r)[:200])
        ev = sim.events(since=0)
        check("events", [e["event"] for e in ev["events"]][:2] == ["start", "start"] and ev["next"] >= 2,
              repr(ev)[:300])
        check("events since", sim.events(since=ev["next"])["events"] == [], "")
        while not sim.step(n=1000)["over"]:
            pass
        r = sim.step(n=1)
        check("over", r["over"] and r["steps"] == 0 and abs(r["t"] - 60) < 1e-9, repr(r))
        log.write(csv_path)
        sim.close()
    check("server exit", p.wait(timeout=60) == 0, "exit %s: %s" % (p.returncode, p.stderr.read()))


def disconnect(sim_bin, terrain, scenario, outdir):
    p, port = start(sim_bin, terrain, scenario, outdir)
    sim = SimClient(port=port)
    sim.command("ugv", v=2, steer=0.05)
    sim.step(n=500)
    sim.disconnect()
    check("server exit after disconnect", p.wait(timeout=60) == 0, "exit %s: %s" % (p.returncode, p.stderr.read()))


if __name__ == "__main__":
    if sys.argv[1] == "square":
        square(*sys.argv[2:7])
    else:
        disconnect(*sys.argv[2:6])
