"""The first screen of a mission report in a real browser.

Usage: report_browser.py REPORT.html SHOT.png [WIDTHxHEIGHT]

Opens REPORT.html in headless Chromium through chromedriver (Debian
chromium, chromium-driver, python3-selenium) at a laptop's viewport
(default 1366x768) and checks that the first screen answers the mission:
the map of the routes has loaded (naturalWidth > 0) and at least half of it
is on the first screen, the summary's distance and travel time rows are
wholly on it, and the provenance section is below the fold. Writes a
screenshot of the first screen to SHOT.png (the caller checks it is not
blank). Prints one "FAIL: ..." line per failed check and ends with
"browser: N passed, N failed"; exit 0 when all pass, 1 otherwise, and 77
after a "SKIPPED: ..." line when the browser or selenium is missing.
"""
import os
import sys

from browser import start_chromium


def skip(why):
    print("SKIPPED: browser check of the report: " + why)
    sys.exit(77)


def start_browser():
    return start_chromium(skip, ("--disable-gpu", "--allow-file-access-from-files"))


# Everything measured in the page at once: rectangles in CSS pixels.
MEASURE = """
const box = e => { if (!e) return null; const r = e.getBoundingClientRect();
                   return {top: r.top, bottom: r.bottom, height: r.height, width: r.width}; };
const row = name => [...document.querySelectorAll('#summary tr')]
                    .find(tr => tr.cells.length && tr.cells[0].textContent.trim() === name);
const img = document.querySelector('#map img');
return {inner: window.innerHeight, width: window.innerWidth, scroll: window.scrollY,
        map: box(img), natural: img ? img.naturalWidth : 0, complete: img ? img.complete : false,
        distance: box(row('distance')), time: box(row('travel time')),
        distance_text: row('distance') ? row('distance').cells[1].textContent : '',
        answer: box(document.getElementById('answer')),
        provenance: box(document.getElementById('provenance'))};
"""


def check(m):
    """(ok, message) for each check of the first screen."""
    inner = m["inner"]
    out = [(m["scroll"] == 0, "the page opens at its top (scrollY %s)" % m["scroll"])]
    out.append((m["answer"] is not None and m["answer"]["top"] < inner / 2,
                "the recommended route's heading is in the upper half of the first screen: %s" % m["answer"]))
    mp = m["map"]
    out.append((mp is not None and m["complete"] and m["natural"] > 0,
                "the map <img> has loaded (naturalWidth %s)" % m["natural"]))
    out.append((mp is not None and mp["top"] < inner and mp["height"] > 0
                and min(mp["bottom"], inner) - max(mp["top"], 0) >= 0.5 * mp["height"],
                "at least half of the map on the first screen (map %s, viewport height %s)" % (mp, inner)))
    for key in ("distance", "time"):
        b = m[key]
        out.append((b is not None and 0 <= b["top"] and b["bottom"] <= inner and b["height"] > 0,
                    "the summary's %s row wholly on the first screen: %s (viewport height %s)" % (key, b, inner)))
    out.append((m["distance_text"].strip().endswith(" km"), "the distance reads in km: %r" % m["distance_text"]))
    p = m["provenance"]
    out.append((p is not None and p["top"] >= inner, "the provenance section below the fold: %s" % p))
    return out


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    html, shot = os.path.abspath(sys.argv[1]), sys.argv[2]
    w, h = (int(x) for x in (sys.argv[3] if len(sys.argv) > 3 else "1366x768").split("x"))
    browser = start_browser()
    try:
        # the viewport itself (not the window around it) is w x h
        browser.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                                {"width": w, "height": h, "deviceScaleFactor": 1, "mobile": False})
        browser.get("file://" + html)
        browser.execute_async_script(
            "const done = arguments[arguments.length - 1];"
            "Promise.all([...document.images].map(i => i.decode().catch(() => null))).then(() => done());")
        results = check(browser.execute_script(MEASURE))
        browser.save_screenshot(shot)
    finally:
        browser.quit()
    failed = [msg for ok, msg in results if not ok]
    for msg in failed:
        print("FAIL: " + msg)
    print("browser: %d passed, %d failed" % (len(results) - len(failed), len(failed)))
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
