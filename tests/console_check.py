"""The console's server without a browser (tests/tool_console.sh).

Usage: console_check.py files URL WEBDIR TERRAIN
       console_check.py pace TCP_PORT
       console_check.py replay URL SIMDIR

files: the URL layout of docs/console.md: "/" is web/console.html byte for
byte, /web/, /run/ and /layers/ files with their Content-Type, Leaflet
from Debian (skipped without libjs-leaflet), the layers' index (the grid's
extent and size, the test's terrain: 100 x 100 cells of 10 m from
(500000, 4000000)) and PNG size; 404 for an unknown prefix, a missing
file, a directory, "..", an escaped "..", and /sim/ before the run ends
(libwebsockets itself folds "/./" and "//" before the server sees the
path; console_resolve's refusal of them is tests/test_console.c's).
pace: over the TCP protocol beside the console: hello answers; paused,
the simulation time stands still; at x1 it follows the wall clock; at x100
it runs far faster; bad paces are refused with named errors.
replay: /sim/ serves the finished run's files.

Prints one "FAIL: ..." line per failed check and ends with
"console: N passed, N failed"; exit 0 when all pass, else 1.
"""
import http.client
import json
import os
import struct
import sys
import time
import urllib.parse

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tools"))
from trv_sim_client import SimClient  # noqa: E402

passed = failed = 0


def check(cond, what):
    global passed, failed
    if cond:
        passed += 1
    else:
        failed += 1
        print("FAIL: " + what)
    return cond


def get(url, path):
    """(status, content type, body) of GET path sent as is (no normalisation)."""
    u = urllib.parse.urlparse(url)
    c = http.client.HTTPConnection(u.hostname, u.port, timeout=30)
    c.request("GET", path)
    r = c.getresponse()
    body = r.read()
    c.close()
    return r.status, r.getheader("Content-Type"), body


def files(url, web, terrain):
    with open(os.path.join(web, "console.html"), "rb") as f:
        page = f.read()
    st, ct, body = get(url, "/")
    check(st == 200 and ct.startswith("text/html") and body == page, "/ is web/console.html: %s %s" % (st, ct))
    for path, want in (("/web/js/console.js", "application/javascript"), ("/web/css/console.css", "text/css"),
                       ("/web/console.html", "text/html")):
        st, ct, body = get(url, path)
        with open(os.path.join(web, path[len("/web/"):]), "rb") as f:
            check(st == 200 and ct.startswith(want) and body == f.read(), "%s: %s %s, want 200 %s" % (path, st, ct, want))
    st, ct, body = get(url, "/run/dem.tif")
    with open(os.path.join(terrain, "dem.tif"), "rb") as f:
        check(st == 200 and ct == "image/tiff" and body == f.read(), "/run/dem.tif: %s %s" % (st, ct))
    if os.path.exists("/usr/share/javascript/leaflet/leaflet.js"):
        st, ct, body = get(url, "/lib/leaflet/leaflet.js")
        check(st == 200 and ct == "application/javascript" and b"Leaflet" in body[:2000], "/lib/leaflet/leaflet.js: %s %s" % (st, ct))
    else:
        print("SKIPPED: Leaflet is not installed (Debian libjs-leaflet)")
    st, ct, body = get(url, "/layers/index.json")
    index = json.loads(body) if st == 200 else {"layers": []}
    check(ct == "application/json", "/layers/index.json's type: %s" % ct)
    names = [l["name"] for l in index["layers"]]
    check(names == ["dem", "class", "speed", "gonogo", "slope", "cost"], "the layers: %s" % names)
    for l in index["layers"]:
        check(l["extent"] == [500000, 4000000, 501000, 4001000] and l["nx"] == 100 and l["ny"] == 100,
              "%s's extent and size: %s %s x %s" % (l["name"], l["extent"], l["nx"], l["ny"]))
        st, ct, png = get(url, "/layers/" + l["file"])
        ok = st == 200 and ct == "image/png" and png[:8] == b"\x89PNG\r\n\x1a\n"
        # IHDR: width, height, bit depth 8, colour type 6 (RGBA)
        check(ok and struct.unpack(">IIBB", png[16:26]) == (100, 100, 8, 6),
              "%s.png is 100 x 100 RGBA: %s %s" % (l["name"], st, ct))
    for path in ("/nothing", "/web/../Makefile", "/run/../x.ini", "/run/%2e%2e/x.ini", "/run/", "/run/missing.tif", "/sim/metrics.json", "/web", "/layers/"):
        st, ct, body = get(url, path)
        check(st == 404, "%s: %s, want 404" % (path, st))



def pace(port):
    c = SimClient(port=port)
    h = c.ask({"type": "hello"})
    check(h.get("protocol") == 1 and h["vehicles"], "hello over TCP beside the console: %s" % str(h)[:200])
    r = c.ask({"type": "pause", "id": 1})
    check(r == {"type": "pause", "t": r["t"], "id": 1, "pace": 1.0, "paused": True}, "pause: %s" % r)
    t0 = c.ask({"type": "state"})["t"]
    time.sleep(0.5)
    t1 = c.ask({"type": "state"})["t"]
    check(t1 == t0, "paused, the time stands still: %g then %g" % (t0, t1))
    r = c.ask({"type": "step", "n": 5})
    check(r.get("steps") == 5 and abs(r["t"] - t0 - 5 * h["step_s"]) < 1e-9, "a step while paused: %s" % r)
    t0 = r["t"]
    c.ask({"type": "resume"})
    w0 = time.monotonic()
    time.sleep(2.0)
    t1, w1 = c.ask({"type": "state"})["t"], time.monotonic()
    ratio = (t1 - t0) / (w1 - w0)
    check(0.3 < ratio < 1.2, "at x1 the run follows the clock: %.2f simulated s a wall s" % ratio)
    print("x1: %.2f simulated s a wall s" % ratio)
    c.ask({"type": "pace", "factor": 100})
    t0, w0 = c.ask({"type": "state"})["t"], time.monotonic()
    time.sleep(0.5)
    t1, w1 = c.ask({"type": "state"})["t"], time.monotonic()
    ratio = (t1 - t0) / (w1 - w0)
    check(ratio > 10 or c.ask({"type": "state"})["vehicles"][0]["phase"] == "done",
          "at x100 the run is at least 10 times faster than the clock: %.1f" % ratio)
    print("x100: %.1f simulated s a wall s" % ratio)
    for bad, name in (({"factor": 0.5}, "out_of_range"), ({"factor": 101}, "out_of_range"), ({"factor": "fast"}, "bad_type"),
                      ({}, "missing")):
        r = c.ask(dict({"type": "pace"}, **bad))
        check(r.get("type") == "error" and r.get("error") == name, "pace %s: %s, want %s" % (bad, r, name))
    r = c.ask({"type": "pace", "factor": "max"})
    check(r.get("pace") == 0 and r.get("paused") is False, "pace max: %s" % r)
    c.ask({"type": "pace", "factor": 1})


def replay(url, simdir):
    for name in ("metrics.json", "events.jsonl", "trajectory_ugv.csv"):
        st, ct, body = get(url, "/sim/" + name)
        with open(os.path.join(simdir, name), "rb") as f:
            check(st == 200 and body == f.read(), "replay: /sim/%s: %s" % (name, st))


def main():
    mode = sys.argv[1]
    if mode == "files":
        files(sys.argv[2], sys.argv[3], sys.argv[4])
    elif mode == "pace":
        pace(int(sys.argv[2]))
    else:
        replay(sys.argv[2], sys.argv[3])
    print("console: %d passed, %d failed" % (passed, failed))
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
