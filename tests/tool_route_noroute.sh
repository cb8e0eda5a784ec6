#!/bin/sh
# trv-route --allow-no-route (issue 22, the wet demo) on a 90 m Jacksboro
# terrain: a goal (then a start) on a NOGO cell picked from gonogo.tif in
# python3/GDAL: without the flag the run fails and leaves nothing; with it
# route.json alone says "status": "no route", which end, its gonogo.tif
# code and name and its coordinates (checked against the cell's centre
# transformed by OSR), and no route file is written; trv-report on that
# directory says so instead of failing. Ends with "N passed, N failed,
# N skipped".
set -u
BIN=${TRV_BIN:-bin}
DATA=${TRV_DATADIR:-data}
tmp=$(mktemp -d /tmp/trv-noroute-test-XXXXXX)
trap 'rm -rf "$tmp"' EXIT
. "$(dirname "$0")/lib.sh"
PY=/usr/bin/python3
if ! $PY -c 'from osgeo import gdal, osr' 2>/dev/null; then
    skip_pkg python3-gdal "python3 with osgeo (GDAL) for the independent checks"
    summary tool_route_noroute
    exit
fi
T=$tmp/t
terrain90 "$T" truck_6x6.ini "$tmp/rm.gpkg" || { echo "cannot make the terrain"; exit 1; }
FROM=-84.3637,36.6957
# a NOGO cell (traction first, else any NOGO reason with data) near the middle: lon,lat code name x y
$PY - "$T/gonogo.tif" >"$tmp/cell" <<'PYEOF' || { echo "no NOGO cell"; exit 1; }
import sys
import numpy as np
from osgeo import gdal, osr
ds = gdal.Open(sys.argv[1]); g = ds.ReadAsArray(); gt = ds.GetGeoTransform()
names = {1: "NOGO: slope", 2: "NOGO: soil strength (CI < VCI1)", 3: "NOGO: land use", 4: "NOGO: traction"}
for code in (4, 1, 3, 2):
    rows, cols = np.nonzero(g == code)
    if len(rows):
        k = len(rows) // 2
        break
else:
    sys.exit(1)
x, y = gt[0] + (cols[k] + 0.5) * gt[1], gt[3] + (rows[k] + 0.5) * gt[5]
s = osr.SpatialReference(wkt=ds.GetProjection()); d = osr.SpatialReference(); d.ImportFromEPSG(4326)
for r in (s, d):
    r.SetAxisMappingStrategy(osr.OAMS_TRADITIONAL_GIS_ORDER)
lon, lat, _ = osr.CoordinateTransformation(s, d).TransformPoint(x, y)
print("%.9f,%.9f %d %s|%.3f %.3f" % (lon, lat, code, names[code], x, y))
PYEOF
NOGO=$(cut -d' ' -f1 "$tmp/cell"); CODE=$(cut -d' ' -f2 "$tmp/cell"); WHY=$(cut -d' ' -f3- "$tmp/cell" | cut -d'|' -f1)
XY=$(cut -d'|' -f2 "$tmp/cell")
R0="$BIN/trv-route --roadmap $tmp/rm.gpkg --terrain $T -q --no-timing"
R="$R0 --from $FROM"

# without the flag: the failure, nothing written
mkdir -p "$tmp/a"
if $R --to "$NOGO" -o "$tmp/a/route.geojson" 2>"$tmp/err"; then bad "a NOGO goal planned"; else
    grep -q "is in NOGO" "$tmp/err" && [ ! -e "$tmp/a/route.json" ] && ok || bad "NOGO goal: $(cat "$tmp/err"; ls "$tmp/a")"; fi
# with it: route.json alone
check() { # end dir
    $PY - "$2/route.json" "$1" "$CODE" "$WHY" $XY <<'PYEOF'
import json, sys
j = json.load(open(sys.argv[1]))
n = j["no_route"]
assert j["status"] == "no route", j
assert n["end"] == sys.argv[2] and n["reason"] == int(sys.argv[3]) and n["why"] == sys.argv[4], n
assert abs(n["x"] - float(sys.argv[5])) < 0.01 and abs(n["y"] - float(sys.argv[6])) < 0.01, n
assert "is in NOGO" in n["message"] and j["inputs"]["from"] and "routes" not in j, j
PYEOF
}
if $R --to "$NOGO" --allow-no-route -o "$T/route.geojson" 2>"$tmp/err"; then
    check goal "$T" && ok || bad "route.json: $(cat "$T/route.json")"
    [ ! -e "$T/route.geojson" ] && [ ! -e "$T/route_stats.csv" ] && ok || bad "a route file was written"
    grep -q "no route: the goal lies on a cell $WHY" "$tmp/err" && ok || bad "stderr: $(cat "$tmp/err")"
    if "$BIN/trv-report" -q "$T" -o "$tmp/rep/report.md" 2>"$tmp/err"; then
        grep -q "No route: the goal (.*) lies on a cell $WHY in \`gonogo.tif\`" "$tmp/rep/report.md" && ok ||
            bad "the report does not say why: $(grep -i -m3 'route' "$tmp/rep/report.md")"
    else bad "trv-report without a route: $(cat "$tmp/err")"; fi
else bad "--allow-no-route: $(cat "$tmp/err")"; fi
mkdir -p "$tmp/s"
$R0 --to "$FROM" --from "$NOGO" --allow-no-route -o "$tmp/s/route.geojson" 2>"$tmp/err" && check start "$tmp/s" && ok ||
    bad "a NOGO start: $(cat "$tmp/err" "$tmp/s/route.json")"
# a route that exists is planned as before, route.json without a status
mkdir -p "$tmp/ok"
$R --to -84.1994,36.5216 --allow-no-route -o "$tmp/ok/route.geojson" 2>"$tmp/err" && [ -s "$tmp/ok/route.geojson" ] &&
    ! grep -q '"status"' "$tmp/ok/route.json" && ok || bad "a route with --allow-no-route: $(cat "$tmp/err")"
summary tool_route_noroute
