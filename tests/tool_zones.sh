#!/bin/sh
# trv-route --zones / --crossings end to end on a 90 m Jacksboro terrain
# made by the pipeline: a river line drawn across the start-goal line with
# one bridge where the unzoned route crossed it; every route (roadmap,
# smoothed, unsmoothed, --grid) crosses the river only within the bridge's
# radius, checked by an independent segment intersection in python3/GDAL
# (tests/zones_check.py); without the bridge "not reachable" naming the
# zone; a nogo square around the middle of the route moves every route out
# of it; route.json records the zones; the bad zone files. Ends with
# "N passed, N failed, N skipped".
set -u
BIN=${TRV_BIN:-bin}
DATA=${TRV_DATADIR:-data}
tmp=$(mktemp -d /tmp/trv-zones-test-XXXXXX)
trap 'rm -rf "$tmp"' EXIT
. "$(dirname "$0")/lib.sh"
PY=/usr/bin/python3
CHECK="$(dirname "$0")/zones_check.py"
expect() { # status message -- command...: and no route file left
    want=$1 msg=$2
    shift 3
    rm -f "$tmp/x.geojson"
    "$@" >"$tmp/stdout" 2>"$tmp/stderr"
    got=$?
    if [ "$got" != "$want" ]; then bad "$* -> exit $got, want $want ($(cat "$tmp/stderr"))"; return; fi
    if [ -n "$msg" ] && ! grep -qF -- "$msg" "$tmp/stderr"; then bad "$* -> stderr lacks '$msg': $(cat "$tmp/stderr")"; return; fi
    if [ -e "$tmp/x.geojson" ]; then bad "$* left a route behind"; return; fi
    ok
}
if ! $PY -c 'from osgeo import osr' 2>/dev/null; then
    skip_pkg python3-gdal "python3 with osgeo (GDAL) for the independent checks"
    summary tool_zones
    exit
fi

T=$tmp/t
terrain90 "$T" truck_6x6.ini "$tmp/rm.gpkg" || { echo "cannot make the terrain"; exit 1; }
R0="$BIN/trv-route --roadmap $tmp/rm.gpkg --terrain $T --from -84.3637,36.6957 -q --no-timing"
R="$R0 --to -84.1994,36.5216"

# ---- the river and its bridge ----
$R -o "$tmp/r0.geojson" && $PY "$CHECK" river "$tmp/river.geojson" && $PY "$CHECK" bridge "$tmp/r0.geojson" "$tmp/river.geojson" "$tmp/bridge.geojson" &&
    ok || bad "unzoned route, river and bridge"
if $R --compare --grid -o "$tmp/r1.geojson" --zones "$tmp/river.geojson" --crossings "$tmp/bridge.geojson" 2>"$tmp/err"; then
    $PY "$CHECK" crossings "$tmp/r1.geojson" "$tmp/river.geojson" "$tmp/bridge.geojson" 90 >"$tmp/out" 2>&1 && grep -q '^8 routes' "$tmp/out" &&
        ok || bad "smoothed and grid routes: $(cat "$tmp/out")"
else bad "route with the river: $(cat "$tmp/err")"; fi
if $R --compare --no-smooth -o "$tmp/r2.geojson" --zones "$tmp/river.geojson" --crossings "$tmp/bridge.geojson" --corridor 0 2>"$tmp/err"; then
    $PY "$CHECK" crossings "$tmp/r2.geojson" "$tmp/river.geojson" "$tmp/bridge.geojson" 90 >"$tmp/out" 2>&1 && grep -q '^4 routes' "$tmp/out" &&
        ok || bad "roadmap polylines: $(cat "$tmp/out")"
else bad "roadmap routes with the river: $(cat "$tmp/err")"; fi
# a bridge radius given in the file, and one a crossing's radius cannot reach: the bridge 2 km off the river
sed 's/"name": "bridge"/"name": "bridge", "radius": 45/' "$tmp/bridge.geojson" >"$tmp/bridge45.geojson"
$R -o "$tmp/r3.geojson" --zones "$tmp/river.geojson" --crossings "$tmp/bridge45.geojson" --grid 2>"$tmp/err" &&
    $PY "$CHECK" crossings "$tmp/r3.geojson" "$tmp/river.geojson" "$tmp/bridge.geojson" 45 >"$tmp/out" 2>&1 && ok || bad "radius 45: $(cat "$tmp/err" "$tmp/out")"
# route.json records what was used
$PY - "$tmp/route.json" "$tmp/river.geojson" "$tmp/bridge45.geojson" <<'PYEOF' && ok || bad "route.json: $(cat "$tmp/route.json")"
import json, sys
i = json.load(open(sys.argv[1]))["inputs"]
assert i["zones"] == sys.argv[2] and i["crossings"] == sys.argv[3] and i["crossing_radius_m"] == 0, i
PYEOF
# without the bridge: not reachable, the river named
expect 1 "not reachable from the start under the zones of '$tmp/river.geojson': the nogo zone (feature 7) cuts them apart" -- \
    $R -o "$tmp/x.geojson" --zones "$tmp/river.geojson"

# ---- a nogo square around the middle of the route ----
$PY "$CHECK" square "$tmp/r0.geojson" 400 "$tmp/square.geojson" && ok || bad "square"
if $R --compare --grid -o "$tmp/r4.geojson" --zones "$tmp/square.geojson" 2>"$tmp/err"; then
    $PY "$CHECK" outside "$tmp/r4.geojson" "$tmp/square.geojson" >"$tmp/out" 2>&1 && ok || bad "square: $(cat "$tmp/out")"
    $PY "$CHECK" outside "$tmp/r0.geojson" "$tmp/square.geojson" >/dev/null 2>&1 && bad "the unzoned route missed the square" || ok
else bad "route around the square: $(cat "$tmp/err")"; fi
# an end inside it
MID=$($PY -c "
import json; c = json.load(open('$tmp/r0.geojson'))['features'][0]['geometry']['coordinates']; p = c[len(c) // 2]; print('%.7f,%.7f' % (p[0], p[1]))")
expect 1 "the goal (" -- $R0 -o "$tmp/x.geojson" --to "$MID" --zones "$tmp/square.geojson"
grep -qF "lies in the nogo zone (feature 3) of '$tmp/square.geojson'" "$tmp/stderr" && ok || bad "goal in the square: $(cat "$tmp/stderr")"

# ---- bad zone files ----
printf '{"type":"FeatureCollection","features":[]}' >"$tmp/empty.geojson"
expect 1 "'$tmp/empty.geojson' holds no features" -- $R -o "$tmp/x.geojson" --zones "$tmp/empty.geojson"
expect 1 "cannot open '$tmp/none.gpkg'" -- $R -o "$tmp/x.geojson" --zones "$tmp/none.gpkg"
printf 'not a vector file' >"$tmp/junk.gpkg"
expect 1 "cannot open '$tmp/junk.gpkg'" -- $R -o "$tmp/x.geojson" --zones "$tmp/junk.gpkg"
printf 'WKT,effect\n"POLYGON ((740000 4050000,741000 4050000,741000 4051000,740000 4050000))",nogo\n' >"$tmp/nocrs.csv"
expect 1 "has no CRS" -- $R -o "$tmp/x.geojson" --zones "$tmp/nocrs.csv"
sed 's/"nogo"/"swamp"/' "$tmp/square.geojson" >"$tmp/swamp.geojson"
expect 1 "feature 3 has an unknown effect 'swamp'" -- $R -o "$tmp/x.geojson" --zones "$tmp/swamp.geojson"
sed 's/"effect": "nogo"/"effect": "factor", "value": 0/' "$tmp/square.geojson" >"$tmp/f0.geojson"
expect 1 "feature 3: the factor value must be a number > 0" -- $R -o "$tmp/x.geojson" --zones "$tmp/f0.geojson"
sed 's/"effect": "nogo"/"effect": "max_speed", "value": -5/' "$tmp/square.geojson" >"$tmp/m5.geojson"
expect 1 "feature 3: the max_speed value must be a number > 0" -- $R -o "$tmp/x.geojson" --zones "$tmp/m5.geojson"
$PY - "$tmp/square.geojson" "$tmp/bow.geojson" <<'PYEOF'
import json, sys
d = json.load(open(sys.argv[1])); r = d["features"][0]["geometry"]["coordinates"][0]
r[1], r[2] = r[2], r[1]  # a bow tie
json.dump(d, open(sys.argv[2], "w"))
PYEOF
expect 1 "feature 3 is not a valid polygon: Self-intersection" -- $R -o "$tmp/x.geojson" --zones "$tmp/bow.geojson"
sed 's/"effect": "nogo"/"effect": "factor", "value": 2/' "$tmp/river.geojson" >"$tmp/fline.geojson"
expect 1 "feature 7 is a line with effect factor" -- $R -o "$tmp/x.geojson" --zones "$tmp/fline.geojson"
expect 1 "feature 7 is not a point: a crossing is a point" -- $R -o "$tmp/x.geojson" --zones "$tmp/river.geojson" --crossings "$tmp/river.geojson"
expect 2 "--crossings needs --zones" -- $R -o "$tmp/x.geojson" --crossings "$tmp/bridge.geojson"
expect 2 "--crossing-radius must be >= 0" -- $R -o "$tmp/x.geojson" --zones "$tmp/river.geojson" --crossing-radius -1
summary tool_zones
