"""The 3D view (web/view3d.html) in a real browser.

Usage: view3d_browser.py URL SHOT.png [--vehicles N] [--routes N] [--trajectories N] [--lidar N]
                         [--moved M] [--size WxH] [--lidar-record NDJSON] [--vehicle-size ID=INI | ID=default]
                         [--optional NAME]

Opens URL in headless Chromium (Debian chromium, chromium-driver,
python3-selenium) with WebGL on SwiftShader, waits (60 s at most) until
window.view3dStatus reports ready (a frame drawn with terrain tiles and
the layer's texture), the vehicles, routes and trajectories asked for (and,
live, LiDAR points and the first vehicle moved M metres from where the page
first saw it), and a few more frames; then checks that the WebGL canvas is not blank: the
canvas read back through a 2D canvas holds many distinct colours and its
luminance varies (standard deviation above 8 of 255). Writes a screenshot to
SHOT.png. A replay with --lidar-record (a run's lidar_ID.ndjson, read
here line by line): the page's lidarPoints must equal the "n" of the
record's last scan at or before the page's time t, and be above 0. With
--vehicle-size ID=INI the model the page drew for vehicle ID (its
vehicleSizes, read back from the meshes) must have the vehicle file's
[body] length_m, width_m, height_m, wheelbase_m, track_m and
wheel_radius_m; ID=default: the 4 x 2 m box of a run without
vehicles.json (2.25 m high, wheels 2.8 m and 2.2 m apart, radius 0.45 m).
A 404 of a file named by --optional (one the page may ask for and do
without, as vehicles.json of an older run) is not counted among the
console's severe messages. Prints one "FAIL: ..." line per failed check and ends with
"view3d browser: N passed, N failed"; exit 0 when all pass, 1 otherwise, and
77 after a "SKIPPED: ..." line when the browser or selenium is missing.
"""
import argparse
import configparser
import json
import sys
import time

from browser import start_chromium


def skip(why):
    print("SKIPPED: the 3D view in a browser: " + why)
    sys.exit(77)


def start_browser(w, h):
    return start_chromium(skip, ("--use-angle=swiftshader", "--enable-unsafe-swiftshader", "--ignore-gpu-blocklist",
                                 "--window-size=%d,%d" % (w, h)))


# The WebGL canvas read back: distinct colours and the luminance's spread.
PIXELS = """
const c = document.querySelector('#view canvas');
if (!c) return null;
const w = Math.min(c.width, 400), h = Math.round(c.height * w / c.width);
const d = document.createElement('canvas');
d.width = w; d.height = h;
const g = d.getContext('2d');
g.drawImage(c, 0, 0, w, h);
const px = g.getImageData(0, 0, w, h).data, seen = new Set();
let s = 0, s2 = 0, n = 0;
for (let i = 0; i < px.length; i += 4) {
    const y = 0.299 * px[i] + 0.587 * px[i + 1] + 0.114 * px[i + 2];
    s += y; s2 += y * y; n++;
    seen.add((px[i] >> 3) << 10 | (px[i + 1] >> 3) << 5 | px[i + 2] >> 3);
}
const m = s / n;
return {colours: seen.size, std: Math.sqrt(Math.max(0, s2 / n - m * m)), w: c.width, h: c.height};
"""


# How far the first vehicle is from where the page first saw it (metres).
MOVED = """
const v = typeof V !== "undefined" && V.vehicles && V.vehicles.values().next().value;
if (!v || !v.rows.length || !v.pose) return 0;
return Math.hypot(v.pose.x - v.rows[0].x, v.pose.y - v.rows[0].y);
"""


def moved(driver):
    return driver.execute_script(MOVED) or 0


def wait_status(driver, args, limit=60):
    """The status once ready with what was asked for, or the last one seen at the time limit."""
    t0, st = time.time(), None
    while time.time() - t0 < limit:
        st = driver.execute_script("return window.view3dStatus || null;")
        if st and st.get("error"):
            return st
        if (st and st.get("ready") and st["vehicles"] >= args.vehicles and st["routes"] >= args.routes
                and st["trajectories"] >= args.trajectories and st["lidarPoints"] >= args.lidar
                and moved(driver) >= args.moved):
            frames = st["frames"]
            while time.time() - t0 < limit and driver.execute_script("return view3dStatus.frames") < frames + 5:
                time.sleep(0.2)
            return driver.execute_script("return window.view3dStatus;")
        time.sleep(0.3)
    return st


SIZE_KEYS = ("length_m", "width_m", "height_m", "wheelbase_m", "track_m", "wheel_radius_m")
DEFAULT_SIZE = dict(zip(SIZE_KEYS, (4, 2, 2.25, 2.8, 2.2, 0.45)))


def body_of(ini):
    """The [body] dimensions of a vehicle file (inline # comments dropped)."""
    cp = configparser.ConfigParser(inline_comment_prefixes=("#",))
    cp.read(ini)
    return {k: float(cp["body"][k]) for k in SIZE_KEYS}


def scan_points_at(path, t):
    """The n of the last scan of a LiDAR record at or before t (0 before the first), and its t."""
    best = (0, None)
    with open(path) as f:
        for line in f:
            if line.strip():
                s = json.loads(line)
                assert len(s["xyz"]) == 3 * s["n"], "a scan's xyz is not 3 n long"
                if s["t"] <= t + 1e-9:
                    best = (s["n"], s["t"])
    return best


def size_checks(st, spec):
    vid, src = spec.split("=", 1)
    want = DEFAULT_SIZE if src == "default" else body_of(src)
    got = (st.get("vehicleSizes") or {}).get(vid) or {}
    return [(abs(got.get(k, -1) - want[k]) <= 1e-6, "vehicle %s's %s drawn %s, want %s (%s)"
             % (vid, k, got.get(k), want[k], src)) for k in SIZE_KEYS]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("url")
    ap.add_argument("shot")
    ap.add_argument("--vehicles", type=int, default=0)
    ap.add_argument("--routes", type=int, default=0)
    ap.add_argument("--trajectories", type=int, default=0)
    ap.add_argument("--lidar", type=int, default=0)
    ap.add_argument("--moved", type=float, default=0)
    ap.add_argument("--size", default="1200x800")
    ap.add_argument("--lidar-record")
    ap.add_argument("--vehicle-size", action="append", default=[])
    ap.add_argument("--optional", action="append", default=[])
    args = ap.parse_args()
    w, h = (int(v) for v in args.size.split("x"))
    driver = start_browser(w, h)
    checks = []
    try:
        driver.get(args.url)
        st = wait_status(driver, args) or {}
        st["moved"] = moved(driver)
        px = driver.execute_script(PIXELS) or {}
        driver.save_screenshot(args.shot)
        logs = []
        try:
            logs = [e["message"] for e in driver.get_log("browser") if e.get("level") == "SEVERE"
                    and not any("/%s - Failed to load resource" % n in e["message"] and " 404 " in e["message"]
                                for n in args.optional)]
        except Exception:
            pass
    finally:
        driver.quit()
    checks.append((not st.get("error"), "no error on the page: %s" % st.get("error")))
    checks.append((st.get("ready") is True, "the page is ready (terrain tiles and texture drawn): %s" % st))
    checks.append((st.get("tilesVisible", 0) > 0, "terrain tiles shown: %s" % st.get("tilesVisible")))
    for key in ("vehicles", "routes", "trajectories"):
        want = getattr(args, key)
        checks.append((st.get(key, 0) >= want, "%s: %s, want at least %d" % (key, st.get(key), want)))
    checks.append((px.get("colours", 0) >= 50, "the canvas holds many colours (%s)" % px))
    checks.append((px.get("std", 0) > 8, "the canvas's luminance varies (std %s)" % px.get("std")))
    if args.lidar:
        checks.append((st.get("lidarPoints", 0) >= args.lidar, "LiDAR points: %s, want at least %d"
                       % (st.get("lidarPoints"), args.lidar)))
    if args.lidar_record:
        n, ts = scan_points_at(args.lidar_record, st.get("t", -1))
        checks.append((n > 0 and st.get("lidarPoints") == n, "LiDAR points at t = %s: %s, want %d (the scan of t = %s in %s)"
                       % (st.get("t"), st.get("lidarPoints"), n, ts, args.lidar_record)))
    for spec in args.vehicle_size:
        checks += size_checks(st, spec)
    if args.moved:
        checks.append((st.get("moved", 0) >= args.moved, "the vehicle moved %.1f m, want %g" % (st.get("moved", 0), args.moved)))
    checks.append((not logs, "no severe console messages: %s" % logs[:3]))
    failed = 0
    for ok, msg in checks:
        if not ok:
            failed += 1
            print("FAIL: " + msg)
    print("status: %s" % st)
    print("view3d browser: %d passed, %d failed" % (len(checks) - failed, failed))
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
