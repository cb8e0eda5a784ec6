#!/bin/sh
# trv-terrain end to end: outputs, styling, determinism, and every error
# path (clear message, exit 1, nothing left behind). Independent checks go
# through gdalinfo. Ends with "N passed, N failed, N skipped".
set -u
BIN=${TRV_BIN:-bin}
DATA=${TRV_DATADIR:-data}
T=$BIN/trv-terrain
J=$DATA/jacksboro
CLASSES="--soil-classes data/classes/soils.csv --landuse-classes data/classes/landuse.csv"
tmp=$(mktemp -d /tmp/trv-terrain-test-XXXXXX)
trap 'rm -rf "$tmp"' EXIT
. "$(dirname "$0")/lib.sh"

# expect STATUS MESSAGE-FRAGMENT OUTDIR -- command...: exit status, the
# message on stderr, and no output directory left behind
expect() {
    want=$1 msg=$2 out=$3
    shift 4
    "$@" >"$tmp/stdout" 2>"$tmp/stderr"
    got=$?
    if [ "$got" != "$want" ]; then bad "$* -> exit $got, want $want ($(cat "$tmp/stderr"))"; return; fi
    if [ -n "$msg" ] && ! grep -qF -- "$msg" "$tmp/stderr"; then bad "$* -> stderr lacks '$msg': $(cat "$tmp/stderr")"; return; fi
    if [ -n "$out" ] && [ -e "$out" ]; then bad "$* left '$out' behind: $(ls -A "$out")"; return; fi
    ok
}

gdalwarp -q -t_srs EPSG:32616 -tr 30 30 -tap -r bilinear -ot Float32 -dstnodata -32768 "$J/dem_3arcsec.tif" "$tmp/dem30.tif" ||
    { echo "cannot prepare the test DEM"; exit 1; }

# ---- the real run ----
if "$T" -q --dem "$tmp/dem30.tif" --soil "$J/soil_7p5arcsec.tif" --landuse "$J/landuse_30m_utm16n.tif" $CLASSES \
    --points "$tmp/a/points.csv" -o "$tmp/a" >"$tmp/stdout" 2>"$tmp/stderr"; then ok; else bad "run: $(cat "$tmp/stderr")"; fi
[ ! -s "$tmp/stdout" ] && [ ! -s "$tmp/stderr" ] && ok || bad "-q printed something"
# without -q: progress on stderr, the report on stdout
"$T" --dem "$tmp/dem30.tif" --soil "$J/soil_7p5arcsec.tif" --landuse "$J/landuse_30m_utm16n.tif" $CLASSES \
    -o "$tmp/v" >"$tmp/stdout" 2>"$tmp/stderr"
grep -q 'slope: 0\.\.\.10' "$tmp/stderr" && ok || bad "no progress on stderr"
grep -q 'grid: 1034 x 1088 cells of 30 m, EPSG:32616' "$tmp/stdout" && ok || bad "report: $(cat "$tmp/stdout")"
for f in dem slope soil landuse; do
    [ -f "$tmp/a/$f.tif" ] && ok || bad "$f.tif missing"
done
ls -A "$tmp/a" | grep -q '\.tmp' && bad "temporary files left in the output" || ok
info=$(gdalinfo "$tmp/a/soil.tif")
echo "$info" | grep -q 'ID\["EPSG",32616\]' && ok || bad "soil.tif CRS is not EPSG:32616"
echo "$info" | grep -q 'Color Table' && ok || bad "soil.tif has no colour table"
echo "$info" | grep -q '1: sandy loam' && ok || bad "soil.tif lacks category names"
echo "$info" | grep -q 'Description = soil type' && ok || bad "soil.tif lacks a description"
echo "$info" | grep -q 'COMPRESSION=DEFLATE' && ok || bad "soil.tif is not compressed"
echo "$info" | grep -q 'Block=256x256' && ok || bad "soil.tif is not tiled 256x256"
sinfo=$(gdalinfo "$tmp/a/slope.tif")
echo "$sinfo" | grep -q 'Unit Type: degree' && ok || bad "slope.tif lacks its unit"
echo "$sinfo" | grep -q 'TRV_TOOL=trv-terrain' && ok || bad "slope.tif lacks TRV_TOOL metadata"
echo "$sinfo" | grep -q 'NoData Value=-9999' && ok || bad "slope.tif nodata is not -9999"
# all four on the DEM's grid
dsize=$(gdalinfo "$tmp/dem30.tif" | grep -E '^(Size is|Origin|Pixel Size)')
for f in dem slope soil landuse; do
    [ "$(gdalinfo "$tmp/a/$f.tif" | grep -E '^(Size is|Origin|Pixel Size)')" = "$dsize" ] && ok || bad "$f.tif is not on the DEM grid"
done
# point cloud: header, then x,y,z of every DEM data cell, equal to what
# GDAL's XYZ driver writes for the DEM (nodata rows dropped)
head -1 "$tmp/a/points.csv" | grep -qx 'x,y,z,slope,soil,landuse' && ok || bad "points.csv header"
gdal_translate -q -of XYZ -co COLUMN_SEPARATOR=, -co DECIMAL_PRECISION=3 "$tmp/dem30.tif" "$tmp/dem.xyz"
awk -F, '$3 != -32768' "$tmp/dem.xyz" >"$tmp/xyz.gdal"
tail -n +2 "$tmp/a/points.csv" | cut -d, -f1-3 >"$tmp/xyz.ours"
cmp -s "$tmp/xyz.gdal" "$tmp/xyz.ours" && ok || bad "points.csv x,y,z differ from gdal_translate -of XYZ"
[ "$(wc -l <"$tmp/xyz.ours")" -gt 1000000 ] && ok || bad "points.csv is too short"
# the inputs as metadata items of every layer
for f in dem slope soil landuse; do
    gdalinfo "$tmp/a/$f.tif" >"$tmp/info"
    grep -qxF "  TRV_INPUT_DEM=$tmp/dem30.tif" "$tmp/info" && grep -qxF "  TRV_INPUT_SOIL=$J/soil_7p5arcsec.tif" "$tmp/info" &&
        grep -qxF "  TRV_INPUT_LANDUSE=$J/landuse_30m_utm16n.tif" "$tmp/info" &&
        grep -qxF "  TRV_INPUT_SOIL_CLASSES=data/classes/soils.csv" "$tmp/info" &&
        grep -qxF "  TRV_INPUT_LANDUSE_CLASSES=data/classes/landuse.csv" "$tmp/info" && ok || bad "$f.tif lacks its TRV_INPUT_* items"
done
# terrain.json against GDAL: the grid (gdalinfo), the cells with data and
# each soil and land-use class among them (gdal_translate -of XYZ of
# soil.tif and landuse.tif beside the DEM's), the elevation range and the
# slope's mean and maximum (gdalinfo -stats)
gdal_translate -q -of XYZ -co COLUMN_SEPARATOR=, "$tmp/a/soil.tif" "$tmp/soil.xyz" &&
    gdal_translate -q -of XYZ -co COLUMN_SEPARATOR=, "$tmp/a/landuse.tif" "$tmp/landuse.xyz" &&
    gdalinfo -stats "$tmp/a/slope.tif" >"$tmp/slope.info" && gdalinfo -mm "$tmp/a/dem.tif" >"$tmp/dem.info" ||
    bad "cannot dump the layers"
paste -d, "$tmp/dem.xyz" "$tmp/soil.xyz" "$tmp/landuse.xyz" |
    awk -F, '$3 != -32768 { n++; s[$6]++; l[$9]++ } END { print "n", n; for (k in s) print "soil", k, s[k]; for (k in l) print "landuse", k, l[k] }' \
    >"$tmp/counts"
python3 - "$tmp/a/terrain.json" "$tmp/counts" "$tmp/slope.info" "$tmp/dem.info" >"$tmp/check" 2>&1 <<'EOF' && ok || bad "terrain.json against GDAL: $(cat "$tmp/check")"
import json, re, sys
s = json.load(open(sys.argv[1]))
n, counts = 0, {"soil": {}, "landuse": {}}
for line in open(sys.argv[2]):
    w = line.split()
    if w[0] == "n":
        n = int(w[1])
    else:
        counts[w[0]][int(w[1])] = int(w[2])
slope, dem = open(sys.argv[3]).read(), open(sys.argv[4]).read()
stat = lambda k: float(re.search(k + r"=([-0-9.e+]+)", slope).group(1))
g = s["grid"]
assert (g["nx"], g["ny"], g["cell_m"], g["crs"]) == (1034, 1088, 30, "EPSG:32616"), g
assert g["cells_with_data"] == n > 1000000, (g, n)
for what in ("soil", "landuse"):
    classes = s[what]["classes"]
    assert len(classes) >= 4, classes
    for c in classes:
        want = counts[what].get(c["code"], 0)
        assert c["cells"] == want and abs(c["fraction"] - want / n) < 1e-9, (what, c, want)
    covered = sum(v for k, v in counts[what].items() if k != 0) / n
    assert abs(s[what]["covered"] - covered) < 1e-9, (what, s[what]["covered"], covered)
lo, hi = map(float, re.search(r"Computed Min/Max=([-0-9.]+),([-0-9.]+)", dem).groups())
e = s["elevation_m"]
assert abs(e["min"] - lo) < 1e-3 and abs(e["max"] - hi) < 1e-3, (e, lo, hi)
sl = s["slope_deg"]
assert abs(sl["mean"] - stat("STATISTICS_MEAN")) < 1e-6 * sl["mean"] and abs(sl["max"] - stat("STATISTICS_MAXIMUM")) < 1e-4, sl
assert s["inputs"]["soil_classes"] == "data/classes/soils.csv" and s["tool"] == "trv-terrain", s["inputs"]
EOF

# same inputs, same bytes (the command line is in the metadata: run the same one)
cp -R "$tmp/a" "$tmp/first"
"$T" -q --dem "$tmp/dem30.tif" --soil "$J/soil_7p5arcsec.tif" --landuse "$J/landuse_30m_utm16n.tif" $CLASSES \
    --points "$tmp/a/points.csv" -o "$tmp/a" 2>/dev/null
for f in dem.tif slope.tif soil.tif soil.tif.aux.xml landuse.tif points.csv terrain.json; do
    cmp -s "$tmp/a/$f" "$tmp/first/$f" && ok || bad "$f differs between two identical runs"
done

# ---- usage ----
expect 0 "" "" -- "$T" --help
"$T" --help | grep -q -- '--landuse-classes' && ok || bad "--help does not list the options"
expect 0 "" "" -- "$T" --version
expect 2 "missing required option --soil" "$tmp/u" -- "$T" --dem x --landuse y -o "$tmp/u"
expect 2 "unknown option '--frobnicate'" "$tmp/u" -- "$T" --frobnicate
expect 2 "--resampling must be one of mode|nearest" "$tmp/u" -- "$T" --dem x --soil y --landuse z -o "$tmp/u" --resampling cubic

# ---- failures: clear message, exit 1, nothing left ----
LU="$J/landuse_30m_utm16n.tif" SO="$J/soil_7p5arcsec.tif"
expect 1 "cannot open '$tmp/none.tif'" "$tmp/e1" -- "$T" --dem "$tmp/none.tif" --soil "$SO" --landuse "$LU" $CLASSES -o "$tmp/e1"
printf 'not a raster\n' >"$tmp/corrupt.tif"
expect 1 "cannot open '$tmp/corrupt.tif'" "$tmp/e2" -- "$T" --dem "$tmp/dem30.tif" --soil "$tmp/corrupt.tif" --landuse "$LU" $CLASSES -o "$tmp/e2"
# a truncated GeoTIFF: opens, then fails to read
head -c 30000 "$tmp/a/landuse.tif" >"$tmp/truncated.tif"
expect 1 "truncated.tif" "$tmp/e3" -- "$T" --dem "$tmp/dem30.tif" --soil "$SO" --landuse "$tmp/truncated.tif" $CLASSES -o "$tmp/e3"
# a DEM without CRS (an ASCII grid without its .prj)
gdal_translate -q -of AAIGrid "$tmp/dem30.tif" "$tmp/nocrs.asc" && rm -f "$tmp/nocrs.prj"
expect 1 "'$tmp/nocrs.asc' has no CRS" "$tmp/e4" -- "$T" --dem "$tmp/nocrs.asc" --soil "$SO" --landuse "$LU" $CLASSES -o "$tmp/e4"
# a soil map without CRS
gdal_translate -q -of AAIGrid "$SO" "$tmp/soilnocrs.asc" && rm -f "$tmp/soilnocrs.prj"
expect 1 "'$tmp/soilnocrs.asc' has no CRS" "$tmp/e5" -- "$T" --dem "$tmp/dem30.tif" --soil "$tmp/soilnocrs.asc" --landuse "$LU" $CLASSES -o "$tmp/e5"
# a geographic DEM: refused, naming the UTM zone to use
expect 1 "gdalwarp -t_srs EPSG:32616" "$tmp/e6" -- "$T" --dem "$J/dem_3arcsec.tif" --soil "$SO" --landuse "$LU" $CLASSES -o "$tmp/e6"
# land use that does not overlap the DEM (moved 500 km east)
gdal_translate -q -a_ullr 1230939 4069226 1261929 4036586 "$LU" "$tmp/far.tif"
expect 1 "'$tmp/far.tif' does not overlap the DEM" "$tmp/e7" -- "$T" --dem "$tmp/dem30.tif" --soil "$SO" --landuse "$tmp/far.tif" $CLASSES -o "$tmp/e7"
# a DEM that holds only nodata
gdal_translate -q -scale 0 2000 -32768 -32768 -ot Float32 -a_nodata -32768 "$tmp/dem30.tif" "$tmp/allnd.tif"
expect 1 "'$tmp/allnd.tif' holds only nodata" "$tmp/e8" -- "$T" --dem "$tmp/allnd.tif" --soil "$SO" --landuse "$LU" $CLASSES -o "$tmp/e8"
# a soil map that holds only nodata over the DEM
gdal_translate -q -scale 0 255 0 0 -a_nodata 0 "$SO" "$tmp/soilnd.tif"
expect 1 "'$tmp/soilnd.tif' holds only nodata over the DEM" "$tmp/e9" -- "$T" --dem "$tmp/dem30.tif" --soil "$tmp/soilnd.tif" --landuse "$LU" $CLASSES -o "$tmp/e9"
# a class the table does not know
printf 'code,name\n1,water\n2,forest\n3,grassland\n' >"$tmp/lu3.csv"
expect 1 "class 4 is not in the class table '$tmp/lu3.csv'" "$tmp/e10" -- "$T" --dem "$tmp/dem30.tif" --soil "$SO" --landuse "$LU" --soil-classes data/classes/soils.csv --landuse-classes "$tmp/lu3.csv" -o "$tmp/e10"
# a cell that is not a class code, read by windows (the first scan of a class
# map, geo_cat_scan): one in the second window of a row of 256 x 256 tiles,
# then that one and a lower one in the first window: the row-major first is
# named, as the rows' scan named it, at every tile size
find_gdal_python osgeo.gdal
[ -n "$PY" ] || skip_pkg python3-gdal "the land use with bad codes (python3 with GDAL)"
[ -z "$PY" ] || "$PY" - "$LU" "$tmp" <<'PYEOF' || bad "cannot write the land use with bad codes"
import sys
from osgeo import gdal
for name, cells in (("bad1", [(900, 20)]), ("bad2", [(100, 400), (700, 300)])):
    d = gdal.Translate(f"{sys.argv[2]}/{name}.tif", sys.argv[1], creationOptions=["TILED=YES"])
    b = d.GetRasterBand(1)
    for x, y in cells:
        b.WriteRaster(x, y, 1, 1, bytes([255]))
    d = None
PYEOF
for tiles in "" "TRV_BLOCK_COLS=7 TRV_BLOCK_ROWS=5" "TRV_BLOCK_COLS=2000 TRV_BLOCK_ROWS=2000"; do
    [ -e "$tmp/bad2.tif" ] || break
    expect 1 "'$tmp/bad1.tif': value 255 at column 900, row 20 is not a class code" "$tmp/e11" -- env $tiles "$T" \
        --dem "$tmp/dem30.tif" --soil "$SO" --landuse "$tmp/bad1.tif" $CLASSES -o "$tmp/e11"
    expect 1 "'$tmp/bad2.tif': value 255 at column 700, row 300 is not a class code" "$tmp/e11" -- env $tiles "$T" \
        --dem "$tmp/dem30.tif" --soil "$SO" --landuse "$tmp/bad2.tif" $CLASSES -o "$tmp/e11"
done
# an output directory that cannot be made
expect 1 "cannot create directory" "" -- "$T" --dem "$tmp/dem30.tif" --soil "$SO" --landuse "$LU" $CLASSES -o /proc/none/out
# --points by square tiles needs a scratch file: none can be made in $TMPDIR
expect 1 "cannot make a scratch file for '$tmp/e12/points.csv' in '/proc/none'" "$tmp/e12" -- env TMPDIR=/proc/none "$T" \
    --dem "$tmp/dem30.tif" --soil "$SO" --landuse "$LU" $CLASSES --points "$tmp/e12/points.csv" -o "$tmp/e12"
# a failing run into an existing directory keeps what was there and adds nothing
mkdir -p "$tmp/keep" && echo old >"$tmp/keep/slope.tif"
expect 1 "holds only nodata" "" -- "$T" --dem "$tmp/allnd.tif" --soil "$SO" --landuse "$LU" $CLASSES -o "$tmp/keep"
[ "$(ls -A "$tmp/keep")" = "slope.tif" ] && [ "$(cat "$tmp/keep/slope.tif")" = old ] && ok || bad "a failed run changed '$tmp/keep'"
# one output set: a summary that cannot be put in place (the last of the
# set) leaves none of the layers, styles and the point cloud
mkdir -p "$tmp/late/terrain.json"
expect 1 "cannot write '$tmp/late/terrain.json': a directory is in the way" "" -- "$T" --dem "$tmp/dem30.tif" --soil "$SO" \
    --landuse "$LU" $CLASSES --points "$tmp/late/points.csv" -o "$tmp/late"
[ "$(ls -A "$tmp/late")" = terrain.json ] && ok || bad "a failing summary left $(ls -A "$tmp/late")"

# ---- non-finite elevations are nodata (geo_raster_read) ----
# +Inf and -Inf cells: dem.tif has nodata there, and slope.tif is gdaldem
# slope -compute_edges of the same DEM with those cells nodata (1e-3 degree;
# the grid's four corner cells left out, where the edge rules differ)
mkdir -p "$tmp/nf"
if nonfinite_pair "$tmp/dem30.tif" 400 400 "$tmp/nf"; then
    "$T" -q --dem "$tmp/nf/inf.tif" --soil "$SO" --landuse "$LU" $CLASSES -o "$tmp/nf/o" 2>"$tmp/err" && ok ||
        bad "a DEM with +-Inf: $(cat "$tmp/err")"
    gdal_translate -q -of XYZ "$tmp/nf/o/dem.tif" "$tmp/nf/dem.xyz" && gdal_translate -q -of XYZ "$tmp/nf/ref.tif" "$tmp/nf/ref.xyz"
    paste -d' ' "$tmp/nf/dem.xyz" "$tmp/nf/ref.xyz" | awk '{ i = NR - 1; x = i % 12; y = int(i / 12)
        inf = (x == 3 && y == 3) || (x == 8 && y == 6)
        if (inf ? $3 != -9999 : $3 != $6) { print "cell " x "," y ": " $3; exit 1 } n++ } END { if (n != 120) exit 1 }' \
        >"$tmp/cmp" && ok || bad "dem.tif where the DEM had +-Inf: $(cat "$tmp/cmp")"
    gdaldem slope -q -compute_edges "$tmp/nf/ref.tif" "$tmp/nf/gd.tif" && gdal_translate -q -of XYZ "$tmp/nf/gd.tif" "$tmp/nf/gd.xyz"
    gdal_translate -q -of XYZ "$tmp/nf/o/slope.tif" "$tmp/nf/slope.xyz"
    paste -d' ' "$tmp/nf/slope.xyz" "$tmp/nf/gd.xyz" | awk '{ i = NR - 1; x = i % 12; y = int(i / 12)
        if ((x == 0 || x == 11) && (y == 0 || y == 9)) next
        nd = $6 == -9999 || $6 < -1e30; if (nd != ($3 == -9999)) { print "cell " x "," y ": " $3 " vs " $6; exit 1 }
        d = $3 - $6; if (!nd && (d > 1e-3 || d < -1e-3)) { print "cell " x "," y ": " $3 " vs " $6; exit 1 }
        if ((x >= 2 && x <= 4 && y >= 2 && y <= 4) || (x >= 7 && x <= 9 && y >= 5 && y <= 7)) near++ }
        END { if (near != 18) { print near " cells around the Inf cells"; exit 1 } }' >"$tmp/cmp" &&
        ok || bad "slope.tif around +-Inf against gdaldem: $(cat "$tmp/cmp")"
else
    bad "cannot write the DEM with +-Inf"
fi

# ---- the point cloud as an EPT dataset (--ept; tests/ept_check.py) ----
E="$tmp/e"
if "$T" -q --dem "$tmp/dem30.tif" --soil "$J/soil_7p5arcsec.tif" --landuse "$J/landuse_30m_utm16n.tif" $CLASSES \
    --points "$E/points.csv" --ept "$E/cloud" -o "$E" 2>"$tmp/stderr"; then ok; else bad "--ept run: $(cat "$tmp/stderr")"; fi
/usr/bin/env python3 "$(dirname "$0")/ept_check.py" files "$E/cloud" "$E/points.csv" "$E/dem.tif" >"$tmp/ept.out" 2>&1 &&
    ok || bad "the EPT dataset against points.csv: $(grep -v '^PASS' "$tmp/ept.out" | head -5)"
ls -A "$E" | grep -q 'tmp' && bad "--ept left a temporary: $(ls -A "$E")" || ok
ls -A "$E/cloud" | tr '\n' ' ' | grep -qx 'ept-data ept-hierarchy ept.json ' && ok || bad "--ept: $(ls -A "$E/cloud")"
QPY=""
for p in ${TRV_QGIS_PYTHON:-/usr/bin/python3 python3}; do
    [ "$p" = none ] && break
    if QT_QPA_PLATFORM=offscreen "$p" -c "import qgis.core" >/dev/null 2>&1; then QPY=$p; break; fi
done
if [ -n "$QPY" ]; then
    QT_QPA_PLATFORM=offscreen XDG_RUNTIME_DIR=$tmp "$QPY" "$(dirname "$0")/ept_check.py" qgis "$E/cloud" "$E/points.csv" \
        >"$tmp/eptq.out" 2>&1 && ok || bad "the EPT dataset in QGIS: $(grep -v '^PASS' "$tmp/eptq.out" | grep -v XDG | head -5)"
else
    skip_pkg python3-qgis "the EPT dataset in QGIS (python3-qgis missing)"
fi
# same bytes again, into a new directory and over the earlier dataset (replaced whole: no stale node)
"$T" -q --dem "$tmp/dem30.tif" --soil "$J/soil_7p5arcsec.tif" --landuse "$J/landuse_30m_utm16n.tif" $CLASSES \
    --ept "$tmp/e2/cloud" -o "$tmp/e2" && diff -r "$E/cloud" "$tmp/e2/cloud" >/dev/null && ok || bad "--ept: two runs differ"
: >"$tmp/e2/cloud/ept-data/9-9-9-9.bin"
"$T" -q --dem "$tmp/dem30.tif" --soil "$J/soil_7p5arcsec.tif" --landuse "$J/landuse_30m_utm16n.tif" $CLASSES \
    --ept "$tmp/e2/cloud" -o "$tmp/e2" && diff -r "$E/cloud" "$tmp/e2/cloud" >/dev/null && ok ||
    bad "--ept over an earlier dataset: not replaced whole"
# refused: a directory holding anything else (kept as it was, nothing written), the output directory itself
mkdir -p "$tmp/mine" && echo keep >"$tmp/mine/notes.txt"
expect 1 "cannot write '$tmp/mine': it exists and holds other files" "$tmp/e3" -- "$T" --dem "$tmp/dem30.tif" \
    --soil "$SO" --landuse "$LU" $CLASSES --ept "$tmp/mine" -o "$tmp/e3"
[ "$(ls -A "$tmp/mine")" = notes.txt ] && ok || bad "--ept touched a directory it refused: $(ls -A "$tmp/mine")"
expect 2 "--ept '$tmp/e4/' is the output directory" "$tmp/e4" -- "$T" --dem "$tmp/dem30.tif" \
    --soil "$SO" --landuse "$LU" $CLASSES --ept "$tmp/e4/" -o "$tmp/e4"
# a failure after the rows began: neither the dataset nor its temporary left
expect 1 "class 4 is not in the class table '$tmp/lu3.csv'" "$tmp/e5" -- "$T" --dem "$tmp/dem30.tif" --soil "$SO" \
    --landuse "$LU" --soil-classes data/classes/soils.csv --landuse-classes "$tmp/lu3.csv" --ept "$tmp/e5c" -o "$tmp/e5"
ls -A "$tmp" | grep -q 'e5c' && bad "a failed --ept run left the dataset or its temporary: $(ls -A "$tmp")" || ok

summary
