#!/bin/sh
# trv-speed --zones / --crossings (issue 22, point 1; docs/zones.md) on a
# 90 m Jacksboro terrain: zones drawn on its grid (a nogo square, a factor
# 2 square, a max_speed 5 square, a nogo line in general position with a
# crossing, a nogo line along the cells' diagonals) baked into speed.tif,
# gonogo.tif and limit.tif, checked against the maps without zones and GDAL's
# own rasterizer (ALL_TOUCHED; tests/speed_zones_check.py); the diagonal
# barrier a wall for 8- and 16-neighbour moves; speed.json's record; the
# bad zone files leave no outputs. Ends with "N passed, N failed, N skipped".
set -u
BIN=${TRV_BIN:-bin}
DATA=${TRV_DATADIR:-data}
S=$BIN/trv-speed
tmp=$(mktemp -d /tmp/trv-speed-zones-test-XXXXXX)
trap 'rm -rf "$tmp"' EXIT
. "$(dirname "$0")/lib.sh"
PY=/usr/bin/python3
CHECK="$(dirname "$0")/speed_zones_check.py"
expect() { # status message dir -- command...: and no speed.tif in dir
    want=$1 msg=$2 dir=$3
    shift 4
    "$@" >"$tmp/stdout" 2>"$tmp/stderr"
    got=$?
    if [ "$got" != "$want" ]; then bad "$* -> exit $got, want $want ($(cat "$tmp/stderr"))"; return; fi
    if [ -n "$msg" ] && ! grep -qF -- "$msg" "$tmp/stderr"; then bad "$* -> stderr lacks '$msg': $(cat "$tmp/stderr")"; return; fi
    if [ -n "$dir" ] && [ -e "$dir/speed.tif" ]; then bad "$* left outputs in $dir"; return; fi
    ok
}
if ! $PY -c 'from osgeo import gdal; import numpy' 2>/dev/null; then
    skip_pkg python3-gdal "python3 with osgeo (GDAL) and numpy for the independent checks"
    summary tool_speed_zones
    exit
fi

gdalwarp -q -t_srs EPSG:32616 -tr 90 90 -tap -r bilinear -ot Float32 -dstnodata -32768 "$DATA/jacksboro/dem_3arcsec.tif" "$tmp/dem90.tif"
"$BIN/trv-terrain" -q --dem "$tmp/dem90.tif" --soil "$DATA/jacksboro/soil_7p5arcsec.tif" --landuse "$DATA/jacksboro/landuse_30m_utm16n.tif" \
    --soil-classes "$DATA/classes/soils.csv" --landuse-classes "$DATA/classes/landuse.csv" -o "$tmp/clean" || { echo "cannot make the terrain"; exit 1; }
V=$DATA/vehicles/ugv_hua2022.ini
fresh() { rm -rf "$tmp/$1"; cp -R "$tmp/clean" "$tmp/$1"; }
Z=$tmp/zones.geojson
C=$tmp/zones_cross.geojson
$PY "$CHECK" make "$tmp/clean" "$Z" "$C" && ok || bad "zones drawn"

fresh base; fresh z
"$S" -q --terrain "$tmp/base" --vehicle "$V" && ok || bad "the run without zones"
if "$S" -q --terrain "$tmp/z" --vehicle "$V" --zones "$Z" --crossings "$C" 2>"$tmp/err"; then
    $PY "$CHECK" maps "$tmp/base" "$tmp/z" "$Z" >"$tmp/out" 2>&1 && ok || bad "the maps: $(cat "$tmp/out")"
    cat "$tmp/out"
    $PY "$CHECK" wall "$tmp/z" >"$tmp/out" 2>&1 && ok || bad "the wall: $(cat "$tmp/out")"
    $PY - "$tmp/z/speed.json" "$Z" "$C" <<'PYEOF' && ok || bad "speed.json: $(cat "$tmp/z/speed.json")"
import json, sys
j = json.load(open(sys.argv[1]))
assert j["zones"] == {"file": sys.argv[2], "crossings": sys.argv[3], "crossing_radius_m": None}, j["zones"]
assert j["cells"]["nogo_zone"] > 0 and j["limits_go"][-1]["name"] == "zone" and j["limits_go"][-1]["cells"] > 0, j
PYEOF
    gdalinfo "$tmp/z/gonogo.tif" | grep -q "6: 0,0,0,255" && gdalinfo "$tmp/z/limit.tif" | grep -q "7: 240,2,127,255" &&
        ok || bad "the colour tables lack the zone classes"
    gdalinfo "$tmp/z/limit.tif" | grep -q "TRV_INPUT_ZONES=$Z" && ok || bad "limit.tif does not record the zones"
else bad "trv-speed --zones: $(cat "$tmp/err")"; fi
# a radius of 2 cells opens more cells than the default one cell
fresh z2; "$S" -q --terrain "$tmp/z2" --vehicle "$V" --zones "$Z" --crossings "$C" --crossing-radius 180 &&
    $PY -c "
import sys; from osgeo import gdal
n = [int((gdal.Open(d + '/gonogo.tif').ReadAsArray() == 6).sum()) for d in sys.argv[1:]]
sys.exit(0 if n[1] < n[0] else 'nogo cells with radius 90 and 180: %s' % n)" "$tmp/z" "$tmp/z2" && ok || bad "--crossing-radius"
# the maps without zones keep their colour tables (no zone classes)
gdalinfo "$tmp/base/gonogo.tif" | grep -q "NOGO: zone" && bad "a run without zones names the zone class" || ok

# ---- bad zone files: the errors trv-route gives, and no outputs ----
printf '{"type":"FeatureCollection","features":[]}' >"$tmp/empty.geojson"
fresh b
expect 1 "'$tmp/empty.geojson' holds no features" "$tmp/b" -- "$S" --terrain "$tmp/b" --vehicle "$V" --zones "$tmp/empty.geojson"
expect 1 "cannot open '$tmp/none.gpkg'" "$tmp/b" -- "$S" --terrain "$tmp/b" --vehicle "$V" --zones "$tmp/none.gpkg"
printf 'not a vector file' >"$tmp/junk.gpkg"
expect 1 "cannot open '$tmp/junk.gpkg'" "$tmp/b" -- "$S" --terrain "$tmp/b" --vehicle "$V" --zones "$tmp/junk.gpkg"
printf 'WKT,effect\n"POLYGON ((740000 4050000,741000 4050000,741000 4051000,740000 4050000))",nogo\n' >"$tmp/nocrs.csv"
expect 1 "has no CRS" "$tmp/b" -- "$S" --terrain "$tmp/b" --vehicle "$V" --zones "$tmp/nocrs.csv"
sed 's/"effect": "max_speed"/"effect": "swamp"/' "$Z" >"$tmp/swamp.geojson"
expect 1 "feature 3 has an unknown effect 'swamp'" "$tmp/b" -- "$S" --terrain "$tmp/b" --vehicle "$V" --zones "$tmp/swamp.geojson"
sed 's/"value": 2/"value": 0/' "$Z" >"$tmp/f0.geojson"
expect 1 "feature 2: the factor value must be a number > 0" "$tmp/b" -- "$S" --terrain "$tmp/b" --vehicle "$V" --zones "$tmp/f0.geojson"
sed 's/"value": 5/"value": -5/' "$Z" >"$tmp/m5.geojson"
expect 1 "feature 3: the max_speed value must be a number > 0" "$tmp/b" -- "$S" --terrain "$tmp/b" --vehicle "$V" --zones "$tmp/m5.geojson"
$PY - "$Z" "$tmp/bow.geojson" <<'PYEOF'
import json, sys
d = json.load(open(sys.argv[1])); r = d["features"][0]["geometry"]["coordinates"][0]
r[1], r[2] = r[2], r[1]  # a bow tie
json.dump(d, open(sys.argv[2], "w"))
PYEOF
expect 1 "feature 1 is not a valid polygon: Self-intersection" "$tmp/b" -- "$S" --terrain "$tmp/b" --vehicle "$V" --zones "$tmp/bow.geojson"
$PY - "$Z" "$tmp/fline.geojson" <<'PYEOF'
import json, sys
d = json.load(open(sys.argv[1])); d["features"][3]["properties"] = {"effect": "factor", "value": 2}
json.dump(d, open(sys.argv[2], "w"))
PYEOF
expect 1 "feature 4 is a line with effect factor" "$tmp/b" -- "$S" --terrain "$tmp/b" --vehicle "$V" --zones "$tmp/fline.geojson"
expect 1 "feature 1 is not a point: a crossing is a point" "$tmp/b" -- "$S" --terrain "$tmp/b" --vehicle "$V" --zones "$Z" --crossings "$Z"
expect 2 "--crossings needs --zones" "$tmp/b" -- "$S" --terrain "$tmp/b" --vehicle "$V" --crossings "$C"
expect 2 "--crossing-radius must be >= 0" "$tmp/b" -- "$S" --terrain "$tmp/b" --vehicle "$V" --zones "$Z" --crossing-radius -1
summary tool_speed_zones
