#!/usr/bin/env python3
"""Virtual obstacles on trv-sim --serve, for tests/tool_sim_virtual.sh
(client: tools/trv_sim_client.py). One line per check: "PASS name" or
"FAIL name: why".

    sim_virtual_check.py SIM TERRAIN SCENARIO OUTDIR

The scenario: "ugv" (2D LiDAR) drives east along y = 4000505, "blind"
(no LiDAR) along y = 4000305, both from x = 500105 to 500905 on a plane.
The session: every bad obstacle gets its named error and changes nothing;
at t = 2 s a known circle on blind's way (it re-plans at once) and a
sensed circle on ugv's (its LiDAR finds it); a moving circle (where the
obstacles list puts it 2 s later); a polygon added then removed; once
blind is past its circle a sensed one in front of it (a collision); then
to the end, and close. What the outputs hold is checked by the shell
script, with the batch replay of OUTDIR/commands.csv.
"""
import math
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tools"))
from trv_sim_client import SimClient, SimError  # noqa: E402
from sim_check_lib import check, expect_error, start  # noqa: E402

Y_UGV, Y_BLIND = 4000505.0, 4000305.0


def errors(sim):
    c = '{"type": "add_obstacle", "shape": "circle", "x": 500400, "y": 4000505, "height": 2, '
    p = '{"type": "add_obstacle", "shape": "polygon", "height": 2, "xy": '
    expect_error(sim, p + '[[500300, 4000400], [500330, 4000420], [500330, 4000400], [500300, 4000410]]}',
                 "self_intersecting", "bow tie")
    expect_error(sim, p + '[[500300, 4000400], [500320, 4000400], [500310, 4000400]]}', "self_intersecting",
                 "no area")
    expect_error(sim, p + '[[500300, 4000400], [500320, 4000400]]}', "too_few_vertices", "two vertices")
    expect_error(sim, p + '[[500300, 4000400], [500320, 4000400], [500300, 4000400]]}', "too_few_vertices",
                 "two vertices closed")
    expect_error(sim, c + '"radius": 0}', "out_of_range", "radius 0")
    expect_error(sim, c + '"radius": -2}', "out_of_range", "negative radius")
    expect_error(sim, c.replace('"height": 2', '"height": 0') + '"radius": 2}', "out_of_range", "height 0")
    expect_error(sim, c.replace("500400", "NaN") + '"radius": 2}', "not_finite", "NaN centre")
    expect_error(sim, c + '"radius": 1e999}', "not_finite", "infinite radius")
    expect_error(sim, p + '[[500300, 4000400], [500320, Infinity], [500300, 4000420]]}', "not_finite",
                 "infinite vertex")
    expect_error(sim, c.replace("500400", "499990") + '"radius": 2}', "outside_map", "centre off the map")
    expect_error(sim, p + '[[500300, 4000400], [501020, 4000400], [500300, 4000420]]}', "outside_map",
                 "vertex off the map")
    expect_error(sim, c + '"radius": 2, "known": "yes"}', "bad_type", "known not boolean")
    expect_error(sim, '{"type": "add_obstacle", "x": 500400, "y": 4000505, "radius": 2, "height": 2}', "missing",
                 "no shape")
    expect_error(sim, c.replace('"circle"', '"square"') + '"radius": 2}', "out_of_range", "unknown shape")
    expect_error(sim, c.replace('"height": 2, ', '') + '"radius": 2}', "missing", "no height")
    expect_error(sim, '{"type": "remove_obstacle", "obstacle": 99}', "unknown_obstacle", "unknown number")
    expect_error(sim, '{"type": "remove_obstacle"}', "missing", "remove without number")
    check("errors left no obstacle", sim.obstacles() == [] and sim.events()["next"] == 0, repr(sim.obstacles()))


def state(sim, vid):
    return sim.state(vid)


def session(sim_bin, terrain, scenario, outdir):
    p, port = start(sim_bin, terrain, scenario, outdir)
    with SimClient(port=port) as sim:
        errors(sim)
        sim.step(100)  # t = 2 s
        n1 = sim.add_obstacle(2.0, circle=(500400.0, Y_BLIND, 3.0))  # known: blind re-plans now
        ev = sim.events()["events"]
        check("add: number 1", n1 == 1, n1)
        check("known: blind re-plans at once",
              any(e["event"] == "replan" and e["vehicle"] == "blind" and e["t"] == 2.0 and
                  e["details"].get("cause") == "known_obstacle" for e in ev), ev)
        check("add: event with no vehicle",
              any(e["event"] == "obstacle_added" and e["vehicle"] is None and e["details"]["obstacle"] == 1 and
                  e["details"]["known"] is True and abs(e["x"] - 500400) < 1e-6 for e in ev), ev)
        n2 = sim.add_obstacle(2.0, circle=(500400.0, Y_UGV, 3.0), known=False)  # ugv's LiDAR finds it
        check("sensed: ugv does not re-plan yet", not any(e["event"] == "replan" and e["vehicle"] == "ugv"
                                                          for e in sim.events()["events"]))
        n3 = sim.add_obstacle(1.0, circle=(500200.0, 4000800.0, 1.0), vx=1.5, vy=-0.5, known=False)
        n4 = sim.add_obstacle(1.0, polygon=[[500700, 4000700], [500720, 4000700], [500710, 4000720],
                                            [500700, 4000700]])
        check("numbers in order", (n2, n3, n4) == (2, 3, 4), (n2, n3, n4))
        sim.step(100)  # t = 4 s
        obs = {o["obstacle"]: o for o in sim.obstacles()}
        m = obs.get(3, {})
        check("moving obstacle 2 s on", abs(m.get("x", 0) - 500203.0) < 1e-6 and
              abs(m.get("y", 0) - 4000799.0) < 1e-6 and m.get("appear_s") == 2.0, m)
        check("polygon listed closed once", len(obs.get(4, {}).get("xy", [])) == 3, obs.get(4))
        r = sim.remove_obstacle(4)
        check("remove: reply", r.get("obstacle") == 4 and r.get("step") == 200, r)
        expect_error(sim, '{"type": "remove_obstacle", "obstacle": 4}', "already_removed", "removed twice")
        o4 = [o for o in sim.obstacles() if o["obstacle"] == 4]
        check("removed: inactive", o4 and o4[0]["active"] is False and o4[0]["disappear_s"] == 4.0, o4)
        # blind drives until it is past its circle, then meets one it cannot know of
        for _ in range(400):
            if state(sim, "blind")["x"] > 500450:
                break
            sim.step(25)
        s = state(sim, "blind")
        check("blind passed the known circle", s["x"] > 500450 and s["phase"] == "driving", s)
        n5 = sim.add_obstacle(2.0, circle=(s["x"] + 40, s["y"], 3.0), known=False)
        check("fifth", n5 == 5, n5)
        for _ in range(2000):
            if sim.step(250)["over"]:
                break
        ev = sim.events()["events"]
        coll = [e for e in ev if e["event"] == "collision"]
        check("blind hit the sensed circle", len(coll) == 1 and coll[0]["vehicle"] == "blind" and
              coll[0]["details"].get("id") == "virtual-5", coll)
        check("ugv sensed and re-planned", any(e["event"] == "replan" and e["vehicle"] == "ugv" for e in ev), ev)
        check("ugv reached its goal", state(sim, "ugv")["end"] == "goal", state(sim, "ugv"))
        expect_error(sim, '{"type": "add_obstacle", "shape": "circle", "x": 500400, "y": 4000505, "radius": 1, '
                          '"height": 1}', "over", "after the end")
        sim.close()
    check("server exit", p.wait(timeout=60) == 0, "exit %s: %s" % (p.returncode, p.stderr.read()))


def reset(sim_bin, terrain, scenario, outdir):
    p, port = start(sim_bin, terrain, scenario, outdir)
    with SimClient(port=port) as sim:
        sim.add_obstacle(2.0, circle=(500400.0, Y_UGV, 3.0))
        sim.reset()
        check("reset: no obstacle", sim.obstacles() == [], sim.obstacles())
        check("reset: numbers restart", sim.add_obstacle(2.0, circle=(500400.0, Y_UGV, 3.0)) == 1)
        sim.close()
    check("server exit after reset", p.wait(timeout=60) == 0, p.stderr.read())


if __name__ == "__main__":
    try:
        session(*sys.argv[1:5])
        reset(sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4] + "-reset")
    except (SimError, ConnectionError, OSError) as e:
        print("FAIL session: %s" % e)
