#!/bin/sh
# trv-route --zones / --crossings end to end on a 90 m Jacksboro terrain
# made by the pipeline: a river line drawn across the start-goal line with
# one bridge where the unzoned route crossed it; every route (roadmap,
# smoothed, unsmoothed, --grid) crosses the river only within the bridge's
# radius, checked by an independent segment intersection in python3/GDAL
# (tests/zones_check.py); without the bridge "not reachable" naming the
# zone; a nogo square around the middle of the route moves every route out
# of it, and out of every --alternatives route; the profile in factor zones
# sums to the statistics; --via legs cross a river
# only at its bridge; a nogo square turns the --visit order on a flat field
# (by hand); route.json records the zones; the bad zone files. Ends with
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
# (200 m: since the detour bridges the route's middle vertex lies in a
# passage that a square of 400 or 300 m closes; see docs/benchmarks.md)
$PY "$CHECK" square "$tmp/r0.geojson" 200 "$tmp/square.geojson" && ok || bad "square"
if $R --compare --grid -o "$tmp/r4.geojson" --zones "$tmp/square.geojson" 2>"$tmp/err"; then
    $PY "$CHECK" outside "$tmp/r4.geojson" "$tmp/square.geojson" >"$tmp/out" 2>&1 && ok || bad "square: $(cat "$tmp/out")"
    $PY "$CHECK" outside "$tmp/r0.geojson" "$tmp/square.geojson" >/dev/null 2>&1 && bad "the unzoned route missed the square" || ok
else bad "route around the square: $(cat "$tmp/err")"; fi
# an end inside it
MID=$($PY -c "
import json; c = json.load(open('$tmp/r0.geojson'))['features'][0]['geometry']['coordinates']; p = c[len(c) // 2]; print('%.7f,%.7f' % (p[0], p[1]))")
expect 1 "the goal (" -- $R0 -o "$tmp/x.geojson" --to "$MID" --zones "$tmp/square.geojson"
grep -qF "lies in the nogo zone (feature 3) of '$tmp/square.geojson'" "$tmp/stderr" && ok || bad "goal in the square: $(cat "$tmp/stderr")"

# ---- --alternatives: no route of the set enters the square (the unzoned set does) ----
ALT="--alternatives 3 --max-stretch 1.5 --max-overlap 0.9 --local-opt 0.05"
$R $ALT -o "$tmp/a0.geojson" 2>/dev/null && ! $PY "$CHECK" outside "$tmp/a0.geojson" "$tmp/square.geojson" >/dev/null 2>&1 &&
    ok || bad "the unzoned alternatives missed the square"
if $R $ALT -o "$tmp/a1.geojson" --stats "$tmp/a1.csv" --zones "$tmp/square.geojson" 2>"$tmp/err"; then
    [ "$(tail -n +2 "$tmp/a1.csv" | wc -l)" -ge 2 ] && $PY "$CHECK" outside "$tmp/a1.geojson" "$tmp/square.geojson" >"$tmp/out" 2>&1 &&
        ok || bad "alternatives with the square: $(cat "$tmp/a1.csv" "$tmp/out")"
else bad "alternatives with the square: $(cat "$tmp/err")"; fi

# ---- --profile inside factor zones (3: slower, 0.5: faster): each route's rows sum to its statistics
# (time 1e-6 relative, with the zone's added time in time_s), the rows in the zone name it and carry
# that time, the time shares have a zone share of that time ----
for f in 3 0.5; do
    sed "s/\"effect\": \"nogo\"/\"effect\": \"factor\", \"value\": $f/" "$tmp/square.geojson" >"$tmp/f.geojson"
    if $R --compare --zones "$tmp/f.geojson" -o "$tmp/p.geojson" --profile "$tmp/p.csv" --time-shares "$tmp/ts.csv" 2>"$tmp/err"; then
        $PY - "$tmp/p.geojson" "$tmp/p.csv" "$tmp/ts.csv" "$f" <<'PYEOF' >"$tmp/out" 2>&1 && ok || bad "profile with factor $f: $(cat "$tmp/out")"
import csv, json, sys
rows, shares, f = list(csv.DictReader(open(sys.argv[2]))), list(csv.DictReader(open(sys.argv[3]))), float(sys.argv[4])
zoned = 0
for ft in json.load(open(sys.argv[1]))["features"]:
    p = ft["properties"]
    mine = [r for r in rows if r["route"] == p["route"]]
    t, d = sum(float(r["time_s"]) for r in mine), sum(float(r["len_m"]) for r in mine)
    assert abs(t - 3600 * p["time_h"]) <= 1e-6 * t, (p["route"], t, 3600 * p["time_h"])
    assert abs(d - p["distance_m"]) <= 1e-6 * d, (p["route"], d, p["distance_m"])
    zt = sum(float(r["zone_time_s"]) for r in mine)
    assert all(r["zone"] in ("", "3") and (r["zone"] == "3" or float(r["zone_time_s"]) == 0) for r in mine)
    if zt != 0:
        zoned += 1
        assert (zt > 0) == (f > 1), (p["route"], zt)
        sh = [s for s in shares if s["route"] == p["route"] and s["kind"] == "zone"]
        assert len(sh) == 1 and sh[0]["name"] == "feature 3" and abs(float(sh[0]["time_s"]) - zt) < 2e-3, (sh, zt)
assert zoned >= 2, "only %d routes cross the zone" % zoned
PYEOF
    else bad "profile with factor $f: $(cat "$tmp/err")"; fi
done

# ---- --via through the river: a bridge 1 km along the river from where the unzoned route crosses;
# via points on either side (on that route); every leg crosses only within the bridge's radius ----
$PY "$CHECK" shift "$tmp/r0.geojson" "$tmp/river.geojson" 1000 "$tmp/bridge2.geojson" && ok || bad "bridge 2"
V="$($PY "$CHECK" vertex "$tmp/r0.geojson" 0.3);$($PY "$CHECK" vertex "$tmp/r0.geojson" 0.7)"
$R --via "$V" -o "$tmp/v0.geojson" 2>/dev/null && ! $PY "$CHECK" legs "$tmp/v0.geojson" "$tmp/river.geojson" "$tmp/bridge2.geojson" 90 >/dev/null 2>&1 &&
    ok || bad "the unzoned --via route crosses at the second bridge"
if $R --via "$V" -o "$tmp/v1.geojson" --zones "$tmp/river.geojson" --crossings "$tmp/bridge2.geojson" 2>"$tmp/err"; then
    $PY "$CHECK" legs "$tmp/v1.geojson" "$tmp/river.geojson" "$tmp/bridge2.geojson" 90 >"$tmp/out" 2>&1 && ok || bad "--via legs: $(cat "$tmp/out")"
else bad "--via with the river: $(cat "$tmp/err")"; fi
# a waypoint in a nogo zone is named
expect 1 "lies in the nogo zone (feature 3) of '$tmp/square.geojson'" -- \
    $R -o "$tmp/x.geojson" --via "$MID" --zones "$tmp/square.geojson"
grep -qF "trv-route: waypoint 1 (" "$tmp/stderr" && ok || bad "waypoint in the square not named: $(cat "$tmp/stderr")"

# ---- --visit on a flat field (3 km square, 30 m cells, all GO; mdr: the legs are straight lines),
# km from (600000, 3700000) UTM 16N: start (1.5, 0.3), goal (1.5, 2.7), visit 1 A (0.6, 1.45),
# visit 2 B (2.4, 1.55). By hand: start A B goal 1.460 + 1.803 + 1.460 = 4.723 km, start B A goal
# 1.540 + 1.803 + 1.540 = 4.883 km. A nogo square [0.7, 1.4] x [0.525, 1.225] km lies across the
# start-A leg alone: around a corner 0.831 + 0.930 = 1.761 km, so start A B goal >= 5.024 km and the
# order turns to start B A goal, 4.883 km ----
F=$tmp/flat
mkdir -p "$F"
$PY - "$F" <<'PYEOF'
import sys
import numpy as np
from osgeo import gdal, osr
s = osr.SpatialReference(); s.ImportFromEPSG(32616)
for name, val, t in (("dem", 100, gdal.GDT_Float32), ("soil", 8, gdal.GDT_Byte), ("lu", 71, gdal.GDT_Byte)):
    r = gdal.GetDriverByName("GTiff").Create("%s/%s.tif" % (sys.argv[1], name), 100, 100, 1, t)
    r.SetGeoTransform((600000, 30, 0, 3703000, 0, -30)); r.SetProjection(s.ExportToWkt())
    r.GetRasterBand(1).WriteArray(np.full((100, 100), val))
PYEOF
C=$DATA/classes
"$BIN/trv-terrain" -q --dem "$F/dem.tif" --soil "$F/soil.tif" --landuse "$F/lu.tif" --soil-classes "$C/soils_usda.csv" \
    --landuse-classes "$C/nlcd.csv" -o "$F/t" &&
    "$BIN/trv-speed" -q --terrain "$F/t" --vehicle "$DATA/vehicles/ugv_hua2022.ini" --soils "$C/soils_usda.csv" --landuse-classes "$C/nlcd.csv" &&
    "$BIN/trv-cost" -q --terrain "$F/t" --rules "$DATA/fuzzy/mobility.fcl" --soils "$C/soils_usda.csv" &&
    "$BIN/trv-roadmap" -q --terrain "$F/t" -o "$F/rm.gpkg" --seed 4 && ok || bad "the flat field"
printf '%s' '{"type":"FeatureCollection","crs":{"type":"name","properties":{"name":"urn:ogc:def:crs:EPSG::32616"}},"features":[{"type":"Feature","id":5,"properties":{"effect":"nogo"},"geometry":{"type":"Polygon","coordinates":[[[600700,3700525],[601400,3700525],[601400,3701225],[600700,3701225],[600700,3700525]]]}}]}' >"$F/sq.geojson"
RF="$BIN/trv-route --roadmap $F/rm.gpkg --terrain $F/t --srs EPSG:32616 --from 601500,3700300 --to 601500,3702700 --strategy mdr -q --no-timing"
order() { # ROUTE.geojson: the legs' stops in travel order and the whole route's distance (km)
    $PY -c 'import json, sys
f = json.load(open(sys.argv[1]))["features"]
print(",".join([f[1]["properties"]["from"]] + [g["properties"]["to"] for g in f[1:]]), "%.3f" % (f[0]["properties"]["distance_m"] / 1000))' "$1"
}
for z in 0 1; do
    zarg=
    [ $z = 1 ] && zarg="--zones $F/sq.geojson"
    $RF --visit "600600,3701450;602400,3701550" -o "$F/o$z.geojson" $zarg 2>"$tmp/err" || bad "--visit $z: $(cat "$tmp/err")"
done
[ "$(order "$F/o0.geojson")" = "start,visit 1,visit 2,goal 4.723" ] && ok || bad "--visit without zones: $(order "$F/o0.geojson")"
[ "$(order "$F/o1.geojson")" = "start,visit 2,visit 1,goal 4.883" ] && ok || bad "--visit with the square: $(order "$F/o1.geojson")"

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
