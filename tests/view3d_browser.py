"""The 3D view (web/view3d.html) in a real browser.

Usage: view3d_browser.py URL SHOT.png [--vehicles N] [--routes N] [--trajectories N] [--lidar N]
                         [--moved M] [--size WxH]

Opens URL in headless Chromium (Debian chromium, chromium-driver,
python3-selenium) with WebGL on SwiftShader, waits (60 s at most) until
window.view3dStatus reports ready (a frame drawn with terrain tiles and
the layer's texture), the vehicles, routes and trajectories asked for (and,
live, LiDAR points and the first vehicle moved M metres from where the page
first saw it), and a few more frames; then checks that the WebGL canvas is not blank: the
canvas read back through a 2D canvas holds many distinct colours and its
luminance varies (standard deviation above 8 of 255). Writes a screenshot to
SHOT.png. Prints one "FAIL: ..." line per failed check and ends with
"view3d browser: N passed, N failed"; exit 0 when all pass, 1 otherwise, and
77 after a "SKIPPED: ..." line when the browser or selenium is missing.
"""
import argparse
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
            logs = [e["message"] for e in driver.get_log("browser") if e.get("level") == "SEVERE"]
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
