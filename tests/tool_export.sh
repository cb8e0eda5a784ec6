#!/bin/sh
# trv-export --nav2 end to end: a 3 x 3 run computed by hand (the PGM's
# bytes, the YAML's keys, the CRS beside it, export.json); a 90 m
# Jacksboro terrain (trv-terrain, trv-speed, trv-cost) whose map is checked
# against cost.tif and gonogo.tif read independently with python3 + GDAL
# (size, origin, resolution, every pixel, occupied exactly where NOGO), with
# a route whose waypoints must equal its GeoJSON vertices transformed with
# osgeo.osr; the same inputs give the same bytes; every bad input (exit
# status, message, nothing left on disk). Ends with "N passed, N failed, N skipped".
set -u
BIN=${TRV_BIN:-bin}
DATA=${TRV_DATADIR:-data}
X=$BIN/trv-export
tmp=$(mktemp -d /tmp/trv-export-test-XXXXXX)
trap 'rm -rf "$tmp"' EXIT
. "$(dirname "$0")/lib.sh"
# expect STATUS MESSAGE GONE -- command...: the exit status, the message on
# stderr, GONE (a path) not created, and no temporary left in $tmp/e
expect() {
    want=$1 msg=$2 gone=$3
    shift 4
    "$@" >"$tmp/stdout" 2>"$tmp/stderr"
    got=$?
    if [ "$got" != "$want" ]; then bad "$* -> exit $got, want $want ($(cat "$tmp/stderr"))"; return; fi
    if [ -n "$msg" ] && ! grep -qF -- "$msg" "$tmp/stderr"; then bad "$* -> stderr lacks '$msg': $(cat "$tmp/stderr")"; return; fi
    if [ -n "$gone" ] && [ -e "$gone" ]; then bad "$* left $gone"; return; fi
    if ls -a "$tmp/e" | grep -q '\.tmp'; then bad "$* left a temporary: $(ls -a "$tmp/e")"; return; fi
    ok
}
# a python3 with GDAL (osgeo) and numpy: the independent reader
find_gdal_python "osgeo.gdal, osgeo.osr, numpy"

# asc NAME TYPE NODATA ROWS...: a 3 x 3 GeoTIFF of 10 m cells, lower-left
# corner (1000, 1970), in UTM 16N (SRS: another CRS, CELL: cellsize line)
asc() {
    name=$1 type=$2 nd=$3
    shift 3
    { echo "ncols 3"; echo "nrows 3"; echo "xllcorner 1000"; echo "yllcorner 1970"; echo "${CELL:-cellsize 10}"
      [ -n "$nd" ] && echo "NODATA_value $nd"; for r in "$@"; do echo "$r"; done; } >"$tmp/$name.asc"
    gdal_translate -q -a_srs "${SRS:-EPSG:32616}" -ot "$type" "$tmp/$name.asc" "$RUN/$name.tif"
}
mkdir -p "$tmp/e"

# ---- 3 x 3 by hand (export.h's table) ----
# cost 0 .25 .5 / .75 1 nodata / .1 .3 .9, gonogo 0 0 0 / 0 0 0 / 1 5 0:
# round(98 c): 0 25 49 / 74 98 255 / NOGO 100, no data 255, 88
RUN=$tmp/r3
mkdir -p "$RUN"
asc cost Float32 -9999 "0 0.25 0.5" "0.75 1 -9999" "0.1 0.3 0.9"
asc gonogo Byte "" "0 0 0" "0 0 0" "1 5 0"
"$X" -q --nav2 "$tmp/n3" --terrain "$RUN" 2>"$tmp/err" && ok || bad "3x3 export: $(cat "$tmp/err")"
want=$(printf 'P5\n3 3\n255\n\000\031\061\112\142\377\144\377\130' | od -An -tx1 | tr -d ' \n')
got=$(od -An -tx1 "$tmp/n3/map.pgm" | tr -d ' \n')
[ "$got" = "$want" ] && ok || bad "3x3 map.pgm: $got, want $want"
# the YAML: a strict reading of its lines (key: value, nothing else but comments), then the values
yaml_keys() {
    grep -v '^#' "$1" | awk -F': ' 'NF != 2 || $1 !~ /^[a-z_]+$/ { print "bad line: " $0; next } { print $1 "=" $2 }'
}
yaml_keys "$tmp/n3/map.yaml" >"$tmp/keys"
grep -q '^bad line' "$tmp/keys" && bad "map.yaml: $(grep '^bad line' "$tmp/keys")" || ok
for kv in "image=map.pgm" "mode=raw" "resolution=10" "origin=[1000, 1970, 0]" "negate=0" "occupied_thresh=0.65" \
    "free_thresh=0.25"; do
    grep -qxF "$kv" "$tmp/keys" && ok || bad "map.yaml lacks $kv: $(cat "$tmp/keys")"
done
[ "$(wc -l <"$tmp/keys")" = 7 ] && ok || bad "map.yaml has other keys: $(cat "$tmp/keys")"
grep -q '^# frame: EPSG:32616 (map.prj)' "$tmp/n3/map.yaml" && ok || bad "map.yaml does not name the CRS"
grep -q 'UTM zone 16N' "$tmp/n3/map.prj" && grep -q '"EPSG",32616' "$tmp/n3/map.prj" && ok || bad "map.prj: $(cat "$tmp/n3/map.prj")"
[ ! -e "$tmp/n3/waypoints.yaml" ] && ok || bad "waypoints.yaml without --route"
for kv in '"width": 3' '"height": 3' '"graded_cells": 6' '"occupied_cells": 1' '"unknown_cells": 2' '"origin_y": 1970' \
    '"route": null' '"waypoints": 0' '"tool": "trv-export"'; do
    grep -qF "$kv" "$tmp/n3/export.json" && ok || bad "export.json lacks $kv"
done
if [ -n "$PY" ] && "$PY" -c 'import yaml' 2>/dev/null; then
    "$PY" -c 'import sys, yaml; d = yaml.safe_load(open(sys.argv[1])); assert d == {"image": "map.pgm", "mode": "raw",
"resolution": 10, "origin": [1000, 1970, 0], "negate": 0, "occupied_thresh": 0.65, "free_thresh": 0.25}, d' \
        "$tmp/n3/map.yaml" 2>"$tmp/err" && ok || bad "map.yaml through PyYAML: $(cat "$tmp/err")"
else
    skip_pkg python3-yaml "python3 yaml not installed: map.yaml read only by the strict line reader"
fi
# the same inputs give the same bytes
"$X" -q --nav2 "$tmp/n3b" --terrain "$RUN" && for f in map.pgm map.yaml map.prj; do
    cmp -s "$tmp/n3/$f" "$tmp/n3b/$f" && ok || bad "$f differs between two runs"
done
# an existing directory is written into; DIR may be the run itself (no name is one of its files)
"$X" -q --nav2 "$RUN" --terrain "$RUN" && [ -f "$RUN/map.pgm" ] && [ -f "$RUN/cost.tif" ] && ok || bad "--nav2 the run directory"
rm -f "$RUN/map.pgm" "$RUN/map.yaml" "$RUN/map.prj" "$RUN/export.json"

# ---- bad inputs ----
expect 0 "" "" -- "$X" --help
expect 0 "" "" -- "$X" --version
expect 2 "--nav2" "$tmp/e/x" -- "$X" --terrain "$RUN"
expect 2 "--terrain" "$tmp/e/x" -- "$X" --nav2 "$tmp/e/x"
expect 2 "--route-name needs --route" "$tmp/e/x" -- "$X" --nav2 "$tmp/e/x" --terrain "$RUN" --route-name mmcr
mkdir -p "$tmp/nocost"
cp "$RUN/gonogo.tif" "$tmp/nocost/"
expect 1 "cannot open '$tmp/nocost/cost.tif'" "$tmp/e/x" -- "$X" --nav2 "$tmp/e/x" --terrain "$tmp/nocost"
touch "$tmp/e/file"
expect 1 "is not a directory" "$tmp/e/file/x" -- "$X" --nav2 "$tmp/e/file" --terrain "$RUN"
expect 1 "is not a directory" "$tmp/e/file/x" -- "$X" --nav2 "$tmp/e/file/x" --terrain "$RUN"
# an output that is an input: the route is DIR/waypoints.yaml
mkdir -p "$tmp/e/in"
echo '{}' >"$tmp/e/in/waypoints.yaml"
expect 2 "is also an input" "$tmp/e/in/map.pgm" -- "$X" --nav2 "$tmp/e/in" --terrain "$RUN" --route "$tmp/e/in/waypoints.yaml"
grep -qx '{}' "$tmp/e/in/waypoints.yaml" && ok || bad "the input was overwritten"
# routes: none at all, a name it lacks, a vertex off the map (lon/lat files, as trv-route writes them)
cat >"$tmp/points.geojson" <<'JSON'
{"type": "FeatureCollection", "features": [
 {"type": "Feature", "properties": {"name": "start"}, "geometry": {"type": "Point", "coordinates": [-91.4797403, 0.0178135]}}]}
JSON
expect 1 "holds no LineString" "$tmp/e/x" -- "$X" --nav2 "$tmp/e/x" --terrain "$RUN" --route "$tmp/points.geojson"
expect 1 "cannot open '$tmp/none.geojson'" "$tmp/e/x" -- "$X" --nav2 "$tmp/e/x" --terrain "$RUN" --route "$tmp/none.geojson"
# the 3x3 map: (1005, 1975) is in it, (1040, 1990) 10 m east of it
cat >"$tmp/r3.geojson" <<'JSON'
{"type": "FeatureCollection", "features": [
 {"type": "Feature", "properties": {"route": "far"}, "geometry": {"type": "LineString", "coordinates": [[-91.4797403, 0.0178135], [-91.4794264, 0.0179488]]}}]}
JSON
expect 1 "has no route 'mmcr' (its routes: far)" "$tmp/e/x" -- "$X" --nav2 "$tmp/e/x" --terrain "$RUN" --route "$tmp/r3.geojson" --route-name mmcr
expect 1 "vertex 2 (" "$tmp/e/x" -- "$X" --nav2 "$tmp/e/x" --terrain "$RUN" --route "$tmp/r3.geojson"
grep -qF "is outside the map (x 1000.000..1030.000, y 1970.000..2000.000)" "$tmp/stderr" && ok || bad "outside: $(cat "$tmp/stderr")"
# a grid the map cannot have: lon/lat, feet, non-square cells; data out of range
for case in "EPSG:4326|cellsize 10|not a projected CRS in metres" "EPSG:2264|cellsize 10|not a projected CRS in metres" \
    "EPSG:32616|dx 10@dy 20|needs square cells"; do
    SRS=${case%%|*} rest=${case#*|}
    CELL=$(echo "${rest%%|*}" | tr '@' '\n') msg=${rest#*|}
    RUN=$tmp/bad_$(echo "$SRS" | tr -d ':')_${CELL%% *}
    mkdir -p "$RUN"
    asc cost Float32 -9999 "0 0 0" "0 0 0" "0 0 0"
    asc gonogo Byte "" "0 0 0" "0 0 0" "0 0 0"
    expect 1 "$msg" "$tmp/e/x" -- "$X" --nav2 "$tmp/e/x" --terrain "$RUN"
done
unset SRS CELL
RUN=$tmp/bad_range
mkdir -p "$RUN"
asc cost Float32 -9999 "0 0 0" "0 1.5 0" "0 0 0"
asc gonogo Byte "" "0 0 0" "0 0 0" "0 0 0"
expect 1 "cell (column 1, row 1) holds 1.5, outside the cost's range 0..1" "$tmp/e/x" -- "$X" --nav2 "$tmp/e/x" --terrain "$RUN"
asc cost Float32 -9999 "0 0 0" "0 0 0" "0 0 0"
asc gonogo Byte "" "0 0 9" "0 0 0" "0 0 0"
expect 1 "holds 9, not a GO/NOGO code (0..5)" "$tmp/e/x" -- "$X" --nav2 "$tmp/e/x" --terrain "$RUN"
# a gonogo on another grid than the cost
CELL="cellsize 20" asc gonogo Byte "" "0 0 0" "0 0 0" "0 0 0"
expect 1 "does not match" "$tmp/e/x" -- "$X" --nav2 "$tmp/e/x" --terrain "$RUN"
# by strips of one row (TRV_BLOCK_ROWS=1): a bad cell in the last strip
# named, nothing written; "holds only nodata" (known after the last strip)
# wins over a bad cell, as when the layers were loaded whole: a cost of
# nodata only, or a gonogo of its nodata (255) only, with a bad code in
# row 0; a cost whose data is in its last row only is read to that row,
# then the bad code is named; and over the frame's refusal (lon/lat)
asc cost Float32 -9999 "0 0 0" "0 0 0" "0 0 1.25"
asc gonogo Byte "" "0 0 0" "0 0 0" "0 0 0"
expect 1 "cost.tif': cell (column 2, row 2) holds 1.25, outside the cost's range 0..1" "$tmp/e/x" -- \
    env TRV_BLOCK_ROWS=1 "$X" --nav2 "$tmp/e/x" --terrain "$RUN"
asc cost Float32 -9999 "-9999 -9999 -9999" "-9999 -9999 -9999" "-9999 -9999 -9999"
asc gonogo Byte "" "9 0 0" "0 0 0" "0 0 0"
expect 1 "'$RUN/cost.tif' holds only nodata" "$tmp/e/x" -- env TRV_BLOCK_ROWS=1 "$X" --nav2 "$tmp/e/x" --terrain "$RUN"
asc cost Float32 -9999 "-9999 -9999 -9999" "-9999 -9999 -9999" "-9999 0.5 -9999"
expect 1 "gonogo.tif': cell (column 0, row 0) holds 9, not a GO/NOGO code (0..5)" "$tmp/e/x" -- \
    env TRV_BLOCK_ROWS=1 "$X" --nav2 "$tmp/e/x" --terrain "$RUN"
asc gonogo Byte 255 "255 255 255" "255 255 255" "255 255 255"
expect 1 "'$RUN/gonogo.tif' holds only nodata" "$tmp/e/x" -- env TRV_BLOCK_ROWS=1 "$X" --nav2 "$tmp/e/x" --terrain "$RUN"
# by tiles of 2 x 2: of two bad cells in the first row of tiles, the one
# first in row-major order (row 0, in the second tile) named, not the
# first tile's (row 1)
asc cost Float32 -9999 "0 0 0" "0 1.25 0" "0 0 0"
asc gonogo Byte "" "0 0 9" "0 0 0" "0 0 0"
expect 1 "gonogo.tif': cell (column 2, row 0) holds 9, not a GO/NOGO code (0..5)" "$tmp/e/x" -- \
    env TRV_BLOCK_COLS=2 TRV_BLOCK_ROWS=2 "$X" --nav2 "$tmp/e/x" --terrain "$RUN"
# and the first tile's when the second tile's is later (row 1)
asc cost Float32 -9999 "1.25 0 0" "0 0 0" "0 0 0"
asc gonogo Byte "" "0 0 0" "0 0 9" "0 0 0"
expect 1 "cost.tif': cell (column 0, row 0) holds 1.25, outside the cost's range 0..1" "$tmp/e/x" -- \
    env TRV_BLOCK_COLS=2 TRV_BLOCK_ROWS=2 "$X" --nav2 "$tmp/e/x" --terrain "$RUN"
RUN=$tmp/bad_lonlat_nodata
mkdir -p "$RUN"
SRS=EPSG:4326 asc cost Float32 -9999 "-9999 -9999 -9999" "-9999 -9999 -9999" "-9999 -9999 -9999"
SRS=EPSG:4326 asc gonogo Byte "" "0 0 0" "0 0 0" "0 0 0"
expect 1 "'$RUN/cost.tif' holds only nodata" "$tmp/e/x" -- env TRV_BLOCK_ROWS=1 "$X" --nav2 "$tmp/e/x" --terrain "$RUN"

# ---- a 90 m Jacksboro terrain against GDAL ----
T=$tmp/t
terrain90 "$T" ugv_hua2022.ini || { bad "cannot make the 90 m terrain"; summary tool_export; exit 1; }
cat >"$tmp/route.geojson" <<'JSON'
{"type": "FeatureCollection", "features": [
 {"type": "Feature", "properties": {"route": "mdr"}, "geometry": {"type": "LineString", "coordinates": [[-84.30, 36.65], [-84.20, 36.55]]}},
 {"type": "Feature", "properties": {"route": "mmcr"}, "geometry": {"type": "LineString", "coordinates": [[-84.30, 36.65], [-84.25, 36.60], [-84.25, 36.60], [-84.2213, 36.5987], [-84.20, 36.55]]}},
 {"type": "Feature", "properties": {"name": "start"}, "geometry": {"type": "Point", "coordinates": [-84.30, 36.65]}}
]}
JSON
"$X" --nav2 "$tmp/n90" --terrain "$T" --route "$tmp/route.geojson" >"$tmp/out" 2>"$tmp/err" && ok || bad "90 m export: $(cat "$tmp/err")"
grep -q "^route 'mmcr': 5 waypoints" "$tmp/out" && ok || bad "console: $(cat "$tmp/out")"
grep -qx 'route: "mmcr"' "$tmp/n90/waypoints.yaml" && grep -qx 'frame_id: map' "$tmp/n90/waypoints.yaml" && ok ||
    bad "waypoints.yaml header: $(head -5 "$tmp/n90/waypoints.yaml")"
if [ -z "$PY" ]; then
    skip_pkg gdal-bin "no python3 with osgeo (GDAL) and numpy: the 90 m map and the waypoints not checked against GDAL"
else
    "$PY" - "$T" "$tmp/n90" "$tmp/route.geojson" >"$tmp/check" 2>&1 <<'EOF' && ok || bad "90 m map against GDAL: $(cat "$tmp/check")"
import math, sys, json
import numpy as np
from osgeo import gdal, osr, ogr
run, out, route = sys.argv[1:4]
c = gdal.Open(run + "/cost.tif")
cost = c.GetRasterBand(1).ReadAsArray().astype(np.float64)
nd = c.GetRasterBand(1).GetNoDataValue()
g = gdal.Open(run + "/gonogo.tif")  # kept: a band outlives no dataset
go = g.GetRasterBand(1).ReadAsArray().astype(int)
gt = c.GetGeoTransform()
ny, nx = cost.shape
# the PGM: header, then ny rows of nx bytes, north row first
b = open(out + "/map.pgm", "rb").read()
head = b"P5\n%d %d\n255\n" % (nx, ny)
assert b.startswith(head), b[:20]
pix = np.frombuffer(b[len(head):], dtype=np.uint8)
assert pix.size == nx * ny, (pix.size, nx * ny)
pix = pix.reshape(ny, nx)
unknown_cost = ~np.isfinite(cost) if nd is None else (~np.isfinite(cost) | (cost == nd))
want = np.where(go == 5, 255, np.where(go > 0, 100, np.where(unknown_cost, 255, np.floor(98 * np.where(unknown_cost, 0, cost) + 0.5))))
assert (pix == want).all(), "pixels differ at %d cells, first %s" % ((pix != want).sum(), np.argwhere(pix != want)[:3])
assert ((pix == 100) == ((go >= 1) & (go <= 4))).all(), "occupied is not exactly NOGO"
assert (go == 0).sum() > 1000 and ((go >= 1) & (go <= 4)).sum() > 100, "a terrain without GO or NOGO"
assert len(np.unique(pix[pix < 100])) > 20, "the cost is not graded"
# the YAML: origin the lower-left corner, resolution the cell
y = {}
for line in open(out + "/map.yaml"):
    if not line.startswith("#"):
        k, v = line.rstrip("\n").split(": ")
        y[k] = v
org = [float(s) for s in y["origin"].strip("[]").split(",")]
assert abs(org[0] - gt[0]) < 1e-6 and abs(org[1] - (gt[3] + ny * gt[5])) < 1e-6 and org[2] == 0, (org, gt)
assert float(y["resolution"]) == gt[1] == -gt[5], (y, gt)
assert y["mode"] == "raw" and y["negate"] == "0" and y["image"] == "map.pgm", y
# map.prj: the cost's CRS
a, p = osr.SpatialReference(), osr.SpatialReference()
a.ImportFromWkt(c.GetProjection())
p.ImportFromWkt(open(out + "/map.prj").read())
assert a.IsSame(p), "map.prj is not cost.tif's CRS"
# the waypoints: mmcr's vertices transformed independently, yaw towards the next vertex that moved
src = osr.SpatialReference()
src.ImportFromEPSG(4326)
src.SetAxisMappingStrategy(osr.OAMS_TRADITIONAL_GIS_ORDER)
a.SetAxisMappingStrategy(osr.OAMS_TRADITIONAL_GIS_ORDER)
ct = osr.CoordinateTransformation(src, a)
feats = json.load(open(route))["features"]
ll = [f for f in feats if f["properties"].get("route") == "mmcr"][0]["geometry"]["coordinates"]
xy = [ct.TransformPoint(lon, lat)[:2] for lon, lat in ll]
poses = []
for line in open(out + "/waypoints.yaml"):
    if line.startswith("  - {"):
        d = dict(kv.split(": ") for kv in line.strip()[3:-1].split(", "))
        poses.append((float(d["x"]), float(d["y"]), float(d["yaw"])))
assert len(poses) == len(xy), (len(poses), len(xy))
for k, ((x, y0), (px, py, yaw)) in enumerate(zip(xy, poses)):
    assert abs(x - px) < 1e-3 and abs(y0 - py) < 1e-3, (k, x, y0, px, py)
    nxt = [q for q in xy[k + 1:] if q != (x, y0)]
    prv = [q for q in xy[:k] if q != (x, y0)]
    w = math.atan2(nxt[0][1] - y0, nxt[0][0] - x) if nxt else math.atan2(y0 - prv[-1][1], x - prv[-1][0])
    assert abs(yaw - w) < 1e-8, (k, yaw, w)
s = json.load(open(out + "/export.json"))["nav2"]
assert s["occupied_cells"] == int(((go >= 1) & (go <= 4)).sum()) and s["waypoints"] == len(xy) and s["route"] == "mmcr", s
assert s["unknown_cells"] == int((want == 255).sum()) and s["graded_cells"] == int((want < 100).sum()), s
print("ok", nx, ny, len(poses))
EOF
fi
# --route-name picks another; the first without mmcr is the default
"$X" -q --nav2 "$tmp/n90b" --terrain "$T" --route "$tmp/route.geojson" --route-name mdr &&
    [ "$(grep -c '^  - {' "$tmp/n90b/waypoints.yaml")" = 2 ] && grep -q '"route": "mdr"' "$tmp/n90b/export.json" && ok ||
    bad "--route-name mdr"
cmp -s "$tmp/n90/map.pgm" "$tmp/n90b/map.pgm" && ok || bad "the map depends on the route"

# ---- by tiles (docs/scale.md): the same files at tiles of 1 x 64, 7 x 7,
# 64 x 1, 13 x the height, 1 x 1000000 and the whole grid as at the
# default 256 x 256 (the 90 m grid, 345 x 363: its last tiles are
# short); a cost out of range in the last row refused, nothing written;
# peak memory on a 512 x 40000 map against a 512 x 2000 one, and on a
# 40000 x 300 one against a 2000 x 300 one ----
for t in 1x64 7x7 64x1 13x1000000 1x1000000 1000000x1000000; do
    TRV_BLOCK_COLS=${t%x*} TRV_BLOCK_ROWS=${t#*x} "$X" -q --nav2 "$tmp/n90_$t" --terrain "$T" \
        --route "$tmp/route.geojson" || bad "the 90 m export at tiles of $t"
    for f in map.pgm map.yaml map.prj waypoints.yaml; do
        cmp -s "$tmp/n90/$f" "$tmp/n90_$t/$f" && ok || bad "$f differs between tiles of $t and of 256 x 256"
    done
    grep -v '"args"' "$tmp/n90/export.json" >"$tmp/j1"
    grep -v '"args"' "$tmp/n90_$t/export.json" >"$tmp/j2"
    cmp -s "$tmp/j1" "$tmp/j2" && ok || bad "export.json differs between tiles of $t and of 256 x 256"
done
# strips cut by the budget (TRV_STRIP_MEM, geo_strip_rows: 345 pixels of a
# byte a row; 2000 bytes: strips of 5 rows, 0: of one, 40000: of 115) at
# tiles of 7 x 64 and the default: the same files
for t in 7x64:2000 256x256:0 256x256:40000; do
    c=${t%:*}
    TRV_STRIP_MEM=${t#*:} TRV_BLOCK_COLS=${c%x*} TRV_BLOCK_ROWS=${c#*x} "$X" -q --nav2 "$tmp/n90_s$t" --terrain "$T" \
        --route "$tmp/route.geojson" || bad "the 90 m export at tiles of $c, TRV_STRIP_MEM ${t#*:}"
    for f in map.pgm map.yaml map.prj waypoints.yaml; do
        cmp -s "$tmp/n90/$f" "$tmp/n90_s$t/$f" && ok || bad "$f differs at TRV_STRIP_MEM ${t#*:} (tiles $c)"
    done
done
if [ -z "$PY" ] || [ ! -x /usr/bin/time ]; then
    skip "python3 with GDAL and numpy, and /usr/bin/time, are needed for the strips' errors and memory"
else
    mkdir -p "$tmp/tbad" && cp "$T/gonogo.tif" "$tmp/tbad/"
    # the last row's first GO cell (the cost is read where GO only) made 1.5
    at=$("$PY" - "$T/cost.tif" "$tmp/tbad/cost.tif" "$T/gonogo.tif" <<'PYEOF'
import sys, numpy as np
from osgeo import gdal
d = gdal.Translate(sys.argv[2], sys.argv[1], format='GTiff')
y = d.RasterYSize - 1
g = gdal.Open(sys.argv[3])  # kept: a band outlives no dataset
row = g.GetRasterBand(1).ReadAsArray()[y]
x = int(np.argmax(row == 0))
assert row[x] == 0, "no GO cell in the last row"
d.GetRasterBand(1).WriteArray(np.array([[1.5]], np.float32), x, y)
print("column %d, row %d" % (x, y))
PYEOF
)
    expect 1 "cost.tif': cell ($at) holds 1.5, outside" "$tmp/e/x" -- \
        env TRV_BLOCK_ROWS=7 "$X" --nav2 "$tmp/e/x" --terrain "$tmp/tbad" --route "$tmp/route.geojson"
    "$PY" - "$tmp" <<'PYEOF' || bad "cannot make the tall maps"
import os, sys, numpy as np
from osgeo import gdal, osr
srs = osr.SpatialReference(); srs.ImportFromEPSG(32616)
def mk(path, w, h, typ, fill):
    d = gdal.GetDriverByName('GTiff').Create(path, w, h, 1, typ, ['TILED=YES', 'COMPRESS=DEFLATE'])
    d.SetGeoTransform([500000, 10, 0, 4000000, 0, -10]); d.SetProjection(srs.ExportToWkt())
    if typ == gdal.GDT_Float32:
        d.GetRasterBand(1).SetNoDataValue(-9999)
    for y0 in range(0, h, 1000):
        n = min(1000, h - y0)
        d.GetRasterBand(1).WriteArray(fill(np.add.outer(np.arange(y0, y0 + n), np.arange(w))), 0, y0)
for name, nx, ny in (('short', 512, 2000), ('tall', 512, 40000), ('narrow', 2000, 300), ('wide', 40000, 300),
                     ('vwide', 200000, 300)):
    os.makedirs(f'{sys.argv[1]}/m_{name}')
    mk(f'{sys.argv[1]}/m_{name}/cost.tif', nx, ny, gdal.GDT_Float32, lambda i: ((i % 101) / 100.0).astype(np.float32))
    mk(f'{sys.argv[1]}/m_{name}/gonogo.tif', nx, ny, gdal.GDT_Byte, lambda i: (i % 13 == 0).astype(np.uint8))
PYEOF
    for n in short tall narrow wide; do
        /usr/bin/time -f "%M" -o "$tmp/rss_$n" "$X" -q --nav2 "$tmp/nm_$n" --terrain "$tmp/m_$n" || bad "the $n map"
    done
    # a fifth of the layers and map held whole (6 bytes a cell): the
    # growth allowed (measured: 2000 -> 40000 rows 53 -> 53 MiB; 2000 ->
    # 40000 columns 53 -> 61 MiB, the map's 256-row strip 10 MB of it;
    # with the layers and map held whole 58 -> 169 and 56 -> 121 MiB)
    whole=$((512 * 40000 * 6 / 1024))
    for p in short:tall narrow:wide; do
        a=$(tail -1 "$tmp/rss_${p%:*}") b=$(tail -1 "$tmp/rss_${p#*:}")
        echo "trv-export --nav2 peak RSS: $a KiB (${p%:*}), $b KiB (${p#*:})"
        [ "$a" -gt 0 ] && [ $((b - a)) -lt $((whole / 5)) ] && ok ||
            bad "peak RSS grew by $((b - a)) KiB from the ${p%:*} map to the ${p#*:} one (whole layers and map: $whole KiB)"
    done
    [ "$(wc -c <"$tmp/nm_tall/map.pgm")" = $((512 * 40000 + 17)) ] && ok || bad "the tall map.pgm's size"
    # the strip bounded by the budget (geo_strip_rows): a 200000 x 300 map
    # at a budget of 16 MiB (TRV_STRIP_MEM; strips of 83 rows: the default
    # 64 MiB cuts grey strips only beyond 262 144 columns) against
    # TRV_STRIP_MEM=51200000 (256 rows, as before the budget: a 48.8 MiB
    # strip), the same bytes in less memory by more than 16 MiB of the
    # strips' 33 (measured: 100 -> 78 MiB; GDAL's cache, bounded, fills the rest)
    /usr/bin/time -f "%M" -o "$tmp/rss_vw" env TRV_STRIP_MEM=16777216 "$X" -q --nav2 "$tmp/nm_vw" --terrain "$tmp/m_vwide" ||
        bad "the 200000-wide map at TRV_STRIP_MEM=16777216"
    /usr/bin/time -f "%M" -o "$tmp/rss_vw256" env TRV_STRIP_MEM=51200000 "$X" -q --nav2 "$tmp/nm_vw256" --terrain "$tmp/m_vwide" ||
        bad "the 200000-wide map at TRV_STRIP_MEM=51200000"
    cmp -s "$tmp/nm_vw/map.pgm" "$tmp/nm_vw256/map.pgm" && ok || bad "the 200000-wide map.pgm differs at 256-row strips"
    a=$(tail -1 "$tmp/rss_vw") b=$(tail -1 "$tmp/rss_vw256")
    echo "trv-export --nav2 peak RSS, 200000 x 300: $a KiB (16 MiB strips: 83 rows), $b KiB (256 rows)"
    [ "$a" -gt 0 ] && [ $((b - a)) -gt 16384 ] && ok ||
        bad "peak RSS $a KiB at 16 MiB strips, $b KiB at 256 rows: less by $((b - a)) KiB, not > 16384"
fi

summary tool_export
