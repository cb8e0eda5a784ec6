"""The operator's console in a real browser (tests/tool_console.sh).

Usage: console_browser.py live URL TCP_PORT SHOT.png
       console_browser.py replay URL SHOT.png
       console_browser.py shot URL SHOT.png [WIDTHxHEIGHT]

live: opens the console of a live run (trv-sim --serve --console) in
headless Chromium (Debian chromium, chromium-driver, python3-selenium),
waits for the first vehicle to move, picks the vertex of its path 30 m
ahead of it, selects the obstacle tool and clicks there on the map; then
checks that the page sent add_obstacle with that point (the map's
georeferencing: the click lands within a metre of the vertex), and, when
the server knows the message (helper B's virtual obstacles), that its
reply carries an id, that the event log over the TCP protocol holds no
collision once the vehicle is 20 m past the obstacle. Saves a screenshot.
replay: the page of a finished run (--replay) draws its trajectory and
events. shot: the README's picture (the demo at x10, an obstacle clicked
ahead of the vehicle).

Prints one "FAIL: ..." line per failed check and ends with
"console: N passed, N failed"; exit 0 when all pass, 1 otherwise, 77
after a "SKIPPED: ..." line when the browser or selenium is missing.
"""
import math
import os
import sys
import time

from browser import start_chromium

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tools"))
from trv_sim_client import SimClient  # noqa: E402

passed = failed = 0


def skip(why):
    print("SKIPPED: console in a browser: " + why)
    sys.exit(77)


def check(cond, what):
    global passed, failed
    if cond:
        passed += 1
    else:
        failed += 1
        print("FAIL: " + what)
    return cond


def start_browser(size):
    return start_chromium(skip, ("--disable-gpu", "--window-size=%d,%d" % size), browser_log=True)


def wait_for(driver, script, timeout, what):
    """Poll a JS expression until it is truthy; its value, or None after timeout."""
    end = time.time() + timeout
    while time.time() < end:
        v = driver.execute_script("try { return " + script + "; } catch (e) { return null; }")
        if v:
            return v
        time.sleep(0.1)
    check(False, "timed out after %g s waiting for %s" % (timeout, what))
    return None



def ahead(path, x, y, dist):
    """The vertex of path about dist metres along it beyond its point nearest to (x, y)."""
    best = min(range(len(path)), key=lambda i: math.hypot(path[i][0] - x, path[i][1] - y))
    s = 0.0
    for i in range(best + 1, len(path)):
        s += math.hypot(path[i][0] - path[i - 1][0], path[i][1] - path[i - 1][1])
        if s >= dist:
            return path[i]
    return path[-1]


def click_map(driver, x, y):
    from selenium.webdriver.common.action_chains import ActionChains
    el = driver.find_element("id", "map")
    # zoomed in on the point (2 pixels a metre), so that a click is exact to half a metre
    driver.execute_script("trvConsole.map.setView(L.latLng(arguments[1], arguments[0]), 1, {animate: false});", x, y)
    px, py = driver.execute_script("return trvConsole.toContainer(arguments[0], arguments[1]);", x, y)
    w, h = el.size["width"], el.size["height"]
    # Selenium 4: offsets from the element's centre
    ActionChains(driver).move_to_element_with_offset(el, int(round(px - w / 2)), int(round(py - h / 2))).click().perform()


def live(driver, url, port, shot):
    driver.get(url)
    state = wait_for(driver, "trvConsole.state && trvConsole.state.vehicles[0].distance_m > 5 && trvConsole.state",
                     60, "the first vehicle to move 5 m")
    if not state:
        return
    v = state["vehicles"][0]
    path = wait_for(driver, "trvConsole.vehicles['%s'].current.getLatLngs().map(p => [p.lng, p.lat])" % v["vehicle"],
                    10, "the vehicle's route on the map")
    check(path and len(path) >= 2, "the page shows the vehicle's route")
    check(wait_for(driver, "document.querySelectorAll('#vehicles tbody tr').length", 5, "the vehicles' table"),
          "the vehicles' table has a row")
    check(wait_for(driver, "document.querySelectorAll('#events li').length", 5, "the event log"),
          "the event log shows the start")
    if not path:
        return
    cur = driver.execute_script("return trvConsole.state.vehicles[0];")
    ox, oy = ahead(path, cur["x"], cur["y"], 30.0)
    driver.find_element("css selector", "input[name=tool][value=obstacle]").click()
    r = driver.find_element("id", "radius")
    r.clear()
    r.send_keys("3")
    click_map(driver, ox, oy)
    sent = wait_for(driver, "trvConsole.sent.filter(m => m.type === 'add_obstacle')[0]", 5, "the add_obstacle request")
    if sent:
        check(sent["shape"] == "circle" and sent["radius"] == 3, "add_obstacle is a circle of radius 3: %s" % sent)
        d = math.hypot(sent["x"] - ox, sent["y"] - oy)
        check(d < 1.0, "the click at (%.1f, %.1f) was sent as (%.1f, %.1f): %.2f m off" % (ox, oy, sent["x"], sent["y"], d))
    reply = wait_for(driver, "trvConsole.replies[%d]" % (sent["id"] if sent else -1), 5, "the reply to add_obstacle")
    if reply and reply.get("error") == "unknown_message":
        print("NOTE: the server does not know add_obstacle (no virtual obstacles): checked the request only")
    elif reply:
        check("error" not in reply and isinstance(reply.get("obstacle"), int), "add_obstacle's reply: %s" % reply)
        tcp = SimClient(port=port)
        obs = [o for o in tcp.ask({"type": "obstacles"})["obstacles"] if o["obstacle"] == reply.get("obstacle")]
        check(obs and obs[0]["active"] and obs[0]["shape"] == "circle" and obs[0]["radius"] == 3 and
              math.hypot(obs[0]["x"] - sent["x"], obs[0]["y"] - sent["y"]) < 1e-6,
              "the obstacle exists where the page sent it: %s" % obs)
        drawn = wait_for(driver, "trvConsole.obstacles[%d]" % reply.get("obstacle", -1), 5, "the obstacle on the map")
        check(drawn, "the page draws the obstacle")
        t_until = time.time() + 120
        passed_it = False
        while time.time() < t_until and not passed_it:
            s = tcp.ask({"type": "state"})["vehicles"][0]
            passed_it = s["phase"] == "done" or (math.hypot(s["x"] - ox, s["y"] - oy) > 20 and
                                                 s["distance_m"] > cur["distance_m"] + 40)
            time.sleep(0.2)
        check(passed_it, "the vehicle passed the obstacle within 120 s")
        evs = tcp.ask({"type": "events", "since": 0})["events"]
        hits = [e for e in evs if e["event"] == "collision"]
        check(not hits, "no collision: %s" % hits)
        print("passed the obstacle: %s" % [e["event"] for e in evs])
    errors = [e for e in driver.get_log("browser") if e["level"] == "SEVERE"]
    check(not errors, "the page logged errors: %s" % errors[:3])
    driver.save_screenshot(shot)


def shot_only(driver, url, shot):
    """The README's picture: at x10, an obstacle clicked 60 m ahead once the
    vehicle has driven 300 m, then the view 2 km wide round it."""
    driver.get(url)
    if not wait_for(driver, "trvConsole.state && trvConsole.ws.readyState === 1", 60, "the first state"):
        return
    driver.execute_script("trvConsole.ws.send(JSON.stringify({type: 'pace', factor: 10}));")
    v = wait_for(driver, "trvConsole.state.vehicles[0].distance_m > 300 && trvConsole.state.vehicles[0]", 300,
                 "the vehicle to drive 300 m")
    path = v and wait_for(driver, "trvConsole.vehicles['%s'].current.getLatLngs().map(p => [p.lng, p.lat])"
                          % v["vehicle"], 10, "the route")
    if path:
        # paused while aiming: at x10 the vehicle would be past the point before the click lands
        driver.execute_script("trvConsole.ws.send(JSON.stringify({type: 'pause'}));")
        time.sleep(0.3)
        cur = driver.execute_script("return trvConsole.state.vehicles[0];")
        ox, oy = ahead(path, cur["x"], cur["y"], 80.0)
        driver.find_element("css selector", "input[name=tool][value=obstacle]").click()
        click_map(driver, ox, oy)
        time.sleep(0.5)
        driver.execute_script("trvConsole.ws.send(JSON.stringify({type: 'resume'}));")
        time.sleep(2.5)
        cur = driver.execute_script("return trvConsole.state.vehicles[0];")
        driver.execute_script("trvConsole.map.setView(L.latLng(arguments[1], arguments[0]), -1, {animate: false});",
                              cur["x"], cur["y"])
        driver.find_element("css selector", "input[name=tool][value=none]").click()
        time.sleep(1.5)
    driver.save_screenshot(shot)


def replay(driver, url, shot):
    """A finished run (--replay): the page draws the trajectory from /sim/
    and lists its events; the controls are disabled."""
    driver.get(url)
    n = wait_for(driver, "trvConsole.hello && trvConsole.hello.replay && trvConsole.vehicles.ugv && "
                 "trvConsole.vehicles.ugv.trail.length", 20, "the replayed trajectory")
    check(n and n > 10, "the replayed trajectory has %s points" % n)
    check(wait_for(driver, "document.querySelectorAll('#events li').length", 5, "the replayed events"),
          "the replayed events are listed")
    check(driver.execute_script("return document.getElementById('pause').disabled;"), "the controls are disabled")
    errors = [e for e in driver.get_log("browser") if e["level"] == "SEVERE"]
    check(not errors, "the page logged errors: %s" % errors[:3])
    driver.save_screenshot(shot)


def main():
    mode = sys.argv[1]
    size = (1366, 800)
    if mode == "shot" and len(sys.argv) > 4:
        size = tuple(int(v) for v in sys.argv[4].split("x"))
    driver = start_browser(size)
    try:
        if mode == "live":
            live(driver, sys.argv[2], int(sys.argv[3]), sys.argv[4])
        elif mode == "replay":
            replay(driver, sys.argv[2], sys.argv[3])
        else:
            shot_only(driver, sys.argv[2], sys.argv[3])
    finally:
        driver.quit()
    print("console: %d passed, %d failed" % (passed, failed))
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
