#!/usr/bin/env python3
"""Client of trv-sim --serve (docs/sim-protocol.md), standard library only.

As a module:
    from trv_sim_client import SimClient
    with SimClient(port=P) as sim:
        hello = sim.hello()
        sim.command("ugv", v=2.0, steer=0.1)
        sim.step(50)
        print(sim.state("ugv"))

As a program, an example: it drives the first vehicle of the scenario along
a route CSV (x, y columns, as trv-route --csv writes; the rows of route
"mmcr" when it has a route column) with its own controller, not the
simulator's: a heading controller toward a carrot 8 m beyond its
projection on the route,
at the speed limit the server reports at the vehicle (at most --speed),
slowing to stop at the end. It prints a line per simulated 10 s and the
events at the end:
    trv-sim --terrain out/jacksboro --scenario data/scenarios/demo.ini \\
        --route out/jacksboro/route.csv -o /tmp/sim --serve 0 &
    python3 tools/trv_sim_client.py --port PORT --route out/jacksboro/route.csv
"""
import argparse
import base64
import csv
import json
import math
import socket
import struct


class SimError(Exception):
    """An error reply: .name (malformed, unknown_message, ...) and .message."""

    def __init__(self, reply):
        super().__init__("%s: %s" % (reply.get("error"), reply.get("message")))
        self.name = reply.get("error")
        self.message = reply.get("message")
        self.reply = reply


class SimClient:
    def __init__(self, host="127.0.0.1", port=0, timeout=60.0):
        self.sock = socket.create_connection((host, port), timeout=timeout)
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.file = self.sock.makefile("rb")

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.disconnect()

    def disconnect(self):
        try:
            self.file.close()
            self.sock.close()
        except OSError:
            pass

    def send_line(self, line):
        """Send one raw line (bytes or str, newline added); return the reply."""
        if isinstance(line, str):
            line = line.encode()
        self.sock.sendall(line + b"\n")
        return self.read_reply()

    def read_reply(self):
        line = self.file.readline()
        if not line:
            raise ConnectionError("the server closed the connection")
        return json.loads(line)

    def ask(self, msg):
        """Send the dict msg as it is; the reply, an error reply included."""
        return self.send_line(json.dumps(msg))

    def request(self, type_, **fields):
        """Send {"type": type_, **fields}; the reply, or SimError."""
        msg = dict(type=type_, **fields)
        reply = self.send_line(json.dumps(msg, separators=(",", ":")))
        if reply.get("type") == "error":
            raise SimError(reply)
        return reply

    def hello(self):
        return self.request("hello")

    def step(self, n=1, duration_s=None):
        if duration_s is not None:
            return self.request("step", duration_s=duration_s)
        return self.request("step", n=n)

    def command(self, vehicle, **fields):
        """v= with steer= (ackermann) or yaw_rate= (skid, mecanum) [vy=],
        or wheels=[...], or path=[[x, y], ...]."""
        return self.request("command", vehicle=vehicle, **fields)

    def state(self, vehicle=None):
        r = self.request("state", **({"vehicle": vehicle} if vehicle else {}))
        return r["vehicles"][0] if vehicle else r["vehicles"]

    def scan(self, vehicle):
        """The reply with "ranges": the float32 ranges decoded (NaN: no return)."""
        r = self.request("scan", vehicle=vehicle)
        raw = base64.b64decode(r["ranges_f32le"])
        r["ranges"] = list(struct.unpack("<%df" % (len(raw) // 4), raw))
        return r

    def plan(self, vehicle, to, follow=False):
        return self.request("plan", vehicle=vehicle, to=list(to), follow=follow)

    def events(self, since=0):
        return self.request("events", since=since)

    def reset(self):
        return self.request("reset")

    def add_obstacle(self, height, circle=None, polygon=None, vx=0.0, vy=0.0, known=True):
        """A virtual obstacle: circle=(x, y, radius) or polygon=[[x, y], ...],
        height (m), velocity (m/s); known: written into the vehicles' seen
        maps at once (else only once sensed). Returns its number."""
        if (circle is None) == (polygon is None):
            raise ValueError("give circle=(x, y, radius) or polygon=[[x, y], ...]")
        f = dict(height=height, vx=vx, vy=vy, known=known)
        if circle is not None:
            f.update(shape="circle", x=circle[0], y=circle[1], radius=circle[2])
        else:
            f.update(shape="polygon", xy=[list(p) for p in polygon])
        return self.request("add_obstacle", **f)["obstacle"]

    def remove_obstacle(self, number):
        return self.request("remove_obstacle", obstacle=number)

    def obstacles(self):
        """Every obstacle (scenario and virtual) where it is now."""
        return self.request("obstacles")["obstacles"]

    def close(self):
        """Ask the server to end the run (outputs written) and disconnect."""
        r = self.request("close")
        self.disconnect()
        return r


# ---- the example: the client's own controller ----------------------------------------

def read_route(path):
    with open(path, newline="") as f:
        rows = list(csv.DictReader(f))
    if rows and "route" in rows[0]:
        rows = [r for r in rows if r["route"] == "mmcr"] or rows
    return [(float(r["x"]), float(r["y"])) for r in rows]


def carrot(route, x, y, start, ahead):
    """The segment nearest (x, y) from segment start on (a window of 200),
    and the point `ahead` metres along the route beyond (x, y)'s projection
    on it."""
    best, bi, bf = float("inf"), start, 0.0
    for i in range(start, min(len(route) - 1, start + 200)):
        (ax, ay), (bx, by) = route[i], route[i + 1]
        L2 = (bx - ax) ** 2 + (by - ay) ** 2
        f = 0.0 if L2 == 0 else max(0.0, min(1.0, ((x - ax) * (bx - ax) + (y - ay) * (by - ay)) / L2))
        d = math.hypot(ax + f * (bx - ax) - x, ay + f * (by - ay) - y)
        if d < best:
            best, bi, bf = d, i, f
    j, left = bi, ahead + bf * math.hypot(route[bi + 1][0] - route[bi][0], route[bi + 1][1] - route[bi][1])
    while j + 1 < len(route):
        seg = math.hypot(route[j + 1][0] - route[j][0], route[j + 1][1] - route[j][1])
        if seg >= left:
            f = left / seg
            return bi, (route[j][0] + f * (route[j + 1][0] - route[j][0]),
                        route[j][1] + f * (route[j + 1][1] - route[j][1]))
        left -= seg
        j += 1
    return bi, route[-1]


def drive(sim, route, max_speed, gain, limit_s):
    hello = sim.hello()
    veh = hello["vehicles"][0]
    vid, dt = veh["id"], hello["step_s"]
    n = int(round(0.1 / dt)) or 1  # the controller runs at 10 Hz
    i, t = 0, 0.0
    while t < limit_s:
        s = sim.state(vid)
        if s["phase"] == "done":
            break
        i, (cx, cy) = carrot(route, s["x"], s["y"], i, 8.0)
        err = math.atan2(cy - s["y"], cx - s["x"]) - s["heading"]
        err = math.atan2(math.sin(err), math.cos(err))
        to_end = math.hypot(route[-1][0] - s["x"], route[-1][1] - s["y"])
        v = min(max_speed, s["speed_limit_ms"] or max_speed, veh["top_speed_ms"], 0.5 * to_end)
        if veh["model"] == "ackermann":
            steer = max(-veh["max_steer_rad"], min(veh["max_steer_rad"], gain * err))
            sim.command(vid, v=v, steer=steer)
        else:
            sim.command(vid, v=v, yaw_rate=max(-1.0, min(1.0, gain * err)))
        r = sim.step(n)
        t = r["t"]
        if int(t / 10) != int((t - n * dt) / 10):
            print("t %7.1f s  x %.1f y %.1f  v %.2f m/s  limit %.2f m/s (%s)" %
                  (t, s["x"], s["y"], s["v"], s["speed_limit_ms"], s["binding_limit"]))
        if r["over"] or to_end < 2.0:
            break
    for e in sim.events()["events"]:
        print("%8.2f %s %s %s" % (e["t"], e["vehicle"], e["event"], json.dumps(e["details"])))
    sim.close()


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--host", default="127.0.0.1")
    ap.add_argument("--port", type=int, required=True)
    ap.add_argument("--route", required=True, help="route CSV (x, y in the map CRS)")
    ap.add_argument("--speed", type=float, default=5.0, help="the controller's highest speed, m/s")
    ap.add_argument("--gain", type=float, default=1.0, help="steering per radian of heading error")
    ap.add_argument("--limit", type=float, default=3600.0, help="simulated seconds at most")
    a = ap.parse_args()
    with SimClient(a.host, a.port) as sim:
        drive(sim, read_route(a.route), a.speed, a.gain, a.limit)


if __name__ == "__main__":
    main()
