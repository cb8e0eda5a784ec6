#!/bin/sh
# trv-render end to end on a 90 m Jacksboro terrain (trv-terrain, trv-speed,
# trv-cost): the QGIS sidecars those tools now write, PNG maps of every
# layer kind with overlays, size and determinism, pixels read back with
# GDAL against the colour table and against gdaldem color-relief with the
# palette's stops, and every error path
# (exit status, message, no output left). Ends with "N passed, N failed, N skipped".
set -u
BIN=${TRV_BIN:-bin}
DATA=${TRV_DATADIR:-data}
R=$BIN/trv-render
tmp=$(mktemp -d /tmp/trv-render-test-XXXXXX)
trap 'rm -rf "$tmp"' EXIT
. "$(dirname "$0")/lib.sh"
expect() { # status message output -- command...: and no output file, no temporaries
    want=$1 msg=$2 out=$3
    shift 4
    "$@" >"$tmp/stdout" 2>"$tmp/stderr"
    got=$?
    if [ "$got" != "$want" ]; then bad "$* -> exit $got, want $want ($(cat "$tmp/stderr"))"; return; fi
    if [ -n "$msg" ] && ! grep -qF -- "$msg" "$tmp/stderr"; then bad "$* -> stderr lacks '$msg': $(cat "$tmp/stderr")"; return; fi
    if [ -n "$out" ] && [ -e "$out" ]; then bad "$* left $out"; return; fi
    if ls -a "$tmp/e" | grep -q '\.tmp'; then bad "$* left a temporary: $(ls -a "$tmp/e")"; return; fi
    ok
}
png_size() { gdalinfo "$1" 2>/dev/null | sed -n 's/^Size is \([0-9]*\), \([0-9]*\)$/\1 \2/p'; }
is_png() { [ "$(head -c 8 "$1" | od -An -tx1 | tr -d ' \n')" = "89504e470d0a1a0a" ]; }

# ---- a 90 m terrain: dem, slope, soil, landuse, speed, gonogo, cost, class ----
gdalwarp -q -t_srs EPSG:32616 -tr 90 90 -tap -r bilinear -ot Float32 -dstnodata -32768 "$DATA/jacksboro/dem_3arcsec.tif" "$tmp/dem90.tif"
"$BIN/trv-terrain" -q --dem "$tmp/dem90.tif" --soil "$DATA/jacksboro/soil_7p5arcsec.tif" --landuse "$DATA/jacksboro/landuse_30m_utm16n.tif" \
    --soil-classes "$DATA/classes/soils.csv" --landuse-classes "$DATA/classes/landuse.csv" -o "$tmp/t" || { echo "cannot make the terrain"; exit 1; }
"$BIN/trv-speed" -q --terrain "$tmp/t" --vehicle "$DATA/vehicles/ugv_hua2022.ini" --soils "$DATA/classes/soils.csv" \
    --landuse-classes "$DATA/classes/landuse.csv" || { echo "cannot make speed"; exit 1; }
"$BIN/trv-cost" -q --terrain "$tmp/t" --soils "$DATA/classes/soils.csv" || { echo "cannot make cost"; exit 1; }
T=$tmp/t

# ---- the QGIS sidecars of the continuous layers ----
for l in dem slope speed cost; do
    [ -f "$T/$l.qml" ] && ok || bad "no $l.qml beside $l.tif"
    grep -q '<rasterrenderer type="singlebandpseudocolor" band="1"' "$T/$l.qml" && ok || bad "$l.qml: no pseudocolour renderer"
    if command -v xmllint >/dev/null 2>&1; then xmllint --noout "$T/$l.qml" && ok || bad "$l.qml is not well-formed XML"; else skip_pkg libxml2-utils "xmllint (libxml2-utils) not installed: $l.qml not validated"; fi
done
for l in soil landuse gonogo class; do [ ! -e "$T/$l.qml" ] && ok || bad "$l.qml written for a paletted layer"; done
grep -q 'classificationMin="0" classificationMax="1"' "$T/cost.qml" && ok || bad "cost.qml range is not 0..1"
grep -q 'color="#006837"' "$T/cost.qml" && ok || bad "cost.qml does not start green"
grep -q 'color="#ffffcc"' "$T/slope.qml" && ok || bad "slope.qml is not the ylorrd ramp"
grep -q 'label="[0-9.]* km/h"' "$T/speed.qml" && ok || bad "speed.qml items lack the unit"

# ---- maps ----
"$R" "$T/slope.tif" -o "$tmp/slope.png" --hillshade "$T/dem.tif" 2>"$tmp/err" && ok || bad "slope map: $(cat "$tmp/err")"
is_png "$tmp/slope.png" && ok || bad "slope.png is not a PNG"
set -- $(png_size "$tmp/slope.png")
[ "${1:-0}" = 1200 ] && ok || bad "default width: ${1:-?}"
# the map keeps the layer's aspect: 345 x 363 cells on an 868 px map -> 913 px plus title and footer
[ "${2:-0}" -gt 900 ] && [ "${2:-0}" -lt 1100 ] && ok || bad "height ${2:-?}"
"$R" -q "$T/speed.tif" -o "$tmp/speed800.png" --width 800 --palette magma --title "UGV speed" 2>"$tmp/err" && ok || bad "speed map: $(cat "$tmp/err")"
[ ! -s "$tmp/err" ] && ok || bad "-q printed: $(cat "$tmp/err")"
set -- $(png_size "$tmp/speed800.png")
[ "${1:-0}" = 800 ] && ok || bad "--width 800 gave ${1:-?}"
for l in gonogo class soil landuse; do
    "$R" -q "$T/$l.tif" -o "$tmp/$l.png" --hillshade "$T/dem.tif" --legend && is_png "$tmp/$l.png" && ok || bad "$l map"
done
# overlays: a route (lon/lat GeoJSON, reprojected), start/goal points, an obstacle, a roadmap GeoPackage
cat >"$tmp/route.geojson" <<'JSON'
{"type": "FeatureCollection", "features": [
 {"type": "Feature", "properties": {"route": "mmcr"}, "geometry": {"type": "LineString", "coordinates": [[-84.30, 36.65], [-84.25, 36.60], [-84.20, 36.55]]}},
 {"type": "Feature", "properties": {"route": "grid-mdr"}, "geometry": {"type": "LineString", "coordinates": [[-84.30, 36.65], [-84.20, 36.55]]}},
 {"type": "Feature", "properties": {"name": "start"}, "geometry": {"type": "Point", "coordinates": [-84.30, 36.65]}},
 {"type": "Feature", "properties": {"name": "goal"}, "geometry": {"type": "Point", "coordinates": [-84.20, 36.55]}},
 {"type": "Feature", "properties": {"name": "pond"}, "geometry": {"type": "Polygon", "coordinates": [[[-84.26, 36.62], [-84.24, 36.62], [-84.24, 36.63], [-84.26, 36.62]]]}}
]}
JSON
ogr2ogr -q -f GPKG -t_srs EPSG:32616 -nln edges "$tmp/rm.gpkg" "$tmp/route.geojson" -where "route = 'mmcr'" &&
    ogr2ogr -q -update -f GPKG -t_srs EPSG:32616 -nln nodes "$tmp/rm.gpkg" "$tmp/route.geojson" -where "name = 'start'" ||
    bad "cannot make the roadmap GeoPackage"
"$R" -q "$T/cost.tif" -o "$tmp/routes.png" --hillshade "$T/dem.tif" --overlay "$tmp/rm.gpkg" --overlay "$tmp/route.geojson" --legend \
    2>"$tmp/err" && ok || bad "routes map: $(cat "$tmp/err")"
# determinism: the same inputs give the same bytes
"$R" -q "$T/cost.tif" -o "$tmp/routes2.png" --hillshade "$T/dem.tif" --overlay "$tmp/rm.gpkg" --overlay "$tmp/route.geojson" --legend
cmp -s "$tmp/routes.png" "$tmp/routes2.png" && ok || bad "two renders differ"
# the overlays change the picture
"$R" -q "$T/cost.tif" -o "$tmp/noroutes.png" --hillshade "$T/dem.tif" --legend
cmp -s "$tmp/routes.png" "$tmp/noroutes.png" && bad "overlays drew nothing" || ok
# --route NAME: exactly the map of an overlay that holds only that route
# (ogr2ogr's filter keeps it and every feature that is not a route)
ogr2ogr -q -f GeoJSON "$tmp/only_mmcr.geojson" "$tmp/route.geojson" -where "route = 'mmcr' OR route IS NULL" ||
    bad "cannot filter the routes"
"$R" -q "$T/cost.tif" -o "$tmp/mmcr.png" --hillshade "$T/dem.tif" --overlay "$tmp/rm.gpkg" --overlay "$tmp/route.geojson" \
    --route mmcr --legend 2>"$tmp/err" || bad "--route mmcr: $(cat "$tmp/err")"
"$R" -q "$T/cost.tif" -o "$tmp/mmcr_ref.png" --hillshade "$T/dem.tif" --overlay "$tmp/rm.gpkg" --overlay "$tmp/only_mmcr.geojson" \
    --legend 2>"$tmp/err" || bad "the filtered overlay: $(cat "$tmp/err")"
cmp -s "$tmp/mmcr.png" "$tmp/mmcr_ref.png" && ok || bad "--route mmcr differs from the overlay filtered by ogr2ogr"
cmp -s "$tmp/mmcr.png" "$tmp/routes.png" && bad "--route mmcr drew every route" || ok

# ---- pixels against the layers' values, read back with GDAL ----
# Maps without hillshade, so that a pixel is its cell's colour. Layout at
# width 1200 (render.c): the map at (24, 52), 1152 pixels wide without a
# panel (a categorical layer without --legend), 868 with one (the colour bar
# of a continuous layer), its height in proportion to the layer; enlarging,
# each pixel shows the cell under its centre. Cells sampled every 23
# columns and 29 rows; the pixel at each cell's centre; the pixels under
# the north arrow (a 20 px disc 30 px inside the map's top right corner)
# left out.
set -- $(gdalinfo "$T/class.tif" | sed -n 's/^Size is \([0-9]*\), \([0-9]*\)$/\1 \2/p')
nx=${1:-1} ny=${2:-1}
awk -v nx="$nx" -v ny="$ny" 'BEGIN { for (r = 7; r < ny; r += 29) for (c = 5; c < nx; c += 23) print c, r }' >"$tmp/cells"
cell_pixels() { # mw (the map's width) name: the sampled cells off the north arrow in name.cells, their pixels in name.pixels
    awk -v mw="$1" -v nx="$nx" -v ny="$ny" -v cf="$tmp/$2.cells" -v pf="$tmp/$2.pixels" 'BEGIN { mh = int(mw * ny / nx + 0.5) }
        { i = 24 + int(($1 + 0.5) * mw / nx); j = 52 + int(($2 + 0.5) * mh / ny)
          if (!(i >= 24 + mw - 55 && j < 52 + 55)) { print $1, $2 >cf; print i, j >pf } }' <"$tmp/cells"
}
rgb_at() { gdallocationinfo -valonly "$1" | paste -d' ' - - -; } # "i j" lines -> "r g b" lines (3 bands)
# class.png: every sampled pixel is the colour table's entry for its cell's
# code (gdalinfo's "Color Table")
"$R" -q "$T/class.tif" -o "$tmp/class_flat.png" 2>"$tmp/err" || bad "class map without hillshade: $(cat "$tmp/err")"
cell_pixels 1152 class
gdallocationinfo -valonly "$T/class.tif" <"$tmp/class.cells" >"$tmp/class_values"
gdalinfo "$T/class.tif" | sed -n 's/^ *\([0-9]*\): \([0-9]*\),\([0-9]*\),\([0-9]*\),[0-9]*$/\1 \2 \3 \4/p' >"$tmp/class_table"
rgb_at "$tmp/class_flat.png" <"$tmp/class.pixels" >"$tmp/class_rgb"
paste -d' ' "$tmp/class_values" "$tmp/class_rgb" | awk -v tf="$tmp/class_table" '
    BEGIN { while ((getline l < tf) > 0) { split(l, a, " "); col[a[1]] = a[2] " " a[3] " " a[4] } }
    { n++; seen[$1] = 1; if ($2 " " $3 " " $4 != col[$1]) { print "code " $1 ": " $2 " " $3 " " $4 ", want " col[$1]; exit 1 } }
    END { k = 0; for (c in seen) k++; if (n < 150 || k < 3) { print n " cells, " k " codes"; exit 1 } }' >"$tmp/cmp" &&
    ok || bad "class.png against class.tif's colour table: $(cat "$tmp/cmp")"
# nodata wins over the colour table: landuse.tif with its nodata code 0
# given an opaque magenta entry (a VRT edit, as a user's table might have
# it; a VRT, since a GeoTIFF stores that entry transparent) still shows
# every nodata cell in the nodata grey 214
gdal_translate -q -of VRT "$T/landuse.tif" "$tmp/lu.vrt" &&
    sed -i '0,/<Entry c1="0" c2="0" c3="0" c4="0" \/>/s//<Entry c1="255" c2="0" c3="255" c4="255" \/>/' "$tmp/lu.vrt" &&
    gdalinfo "$tmp/lu.vrt" | grep -q '^ *0: 255,0,255,255$' ||
    bad "cannot make a land-use layer with an opaque nodata colour"
"$R" -q "$tmp/lu.vrt" -o "$tmp/lu_opaque.png" 2>"$tmp/err" || bad "opaque-nodata map: $(cat "$tmp/err")"
cell_pixels 1152 lu
gdallocationinfo -valonly "$tmp/lu.vrt" <"$tmp/lu.cells" >"$tmp/lu_values"
rgb_at "$tmp/lu_opaque.png" <"$tmp/lu.pixels" >"$tmp/lu_rgb"
paste -d' ' "$tmp/lu_values" "$tmp/lu_rgb" | awk '$1 == 0 { n++; if ($2 " " $3 " " $4 != "214 214 214") { print "nodata cell shown " $2 " " $3 " " $4; exit 1 } }
    END { if (n < 5) { print n " nodata cells sampled"; exit 1 } }' >"$tmp/cmp" && ok || bad "nodata with an opaque colour entry: $(cat "$tmp/cmp")"
# relief NAME LO HI STOPS: NAME.png (no hillshade) against gdaldem
# color-relief given the palette's STOPS ("pos,r,g,b ...", pos in 0..1)
# stretched over LO .. HI, nodata grey 214; gdaldem interpolates linearly,
# as render.c does: each sampled pixel within 1 of it per channel (two
# roundings; measured 1)
relief() {
    "$R" -q "$T/$1.tif" -o "$tmp/$1_flat.png" 2>"$tmp/err" || bad "$1 map without hillshade: $(cat "$tmp/err")"
    awk -v lo="$2" -v hi="$3" -v stops="$4" 'BEGIN { print "nv 214 214 214"
        n = split(stops, c, " ")
        for (k = 1; k <= n; k++) { split(c[k], v, ","); printf "%.9g %d %d %d\n", lo + (hi - lo) * v[1], v[2], v[3], v[4] } }' \
        >"$tmp/$1_ramp.txt"
    if ! gdaldem color-relief -q "$T/$1.tif" "$tmp/$1_ramp.txt" "$tmp/$1_relief.tif"; then
        bad "gdaldem color-relief failed on $1.tif"
        return
    fi
    cell_pixels 868 "$1"
    rgb_at "$tmp/$1_relief.tif" <"$tmp/$1.cells" >"$tmp/$1_ref"
    rgb_at "$tmp/$1_flat.png" <"$tmp/$1.pixels" >"$tmp/$1_rgb"
    paste -d' ' "$tmp/$1_ref" "$tmp/$1_rgb" | awk '
        { n++; for (q = 1; q <= 3; q++) { d = $q - $(q + 3); d = d < 0 ? -d : d; if (d > w) w = d }
          if (w > 1) { print "pixel " $4 " " $5 " " $6 ", gdaldem " $1 " " $2 " " $3; exit 1 } }
        END { if (n < 150) { print n " cells"; exit 1 } }' >"$tmp/cmp" &&
        ok || bad "$1.png against gdaldem color-relief: $(cat "$tmp/cmp")"
}
minmax() { gdalinfo -mm "$T/$1.tif" | sed -n 's/.*Computed Min\/Max=\([-0-9.]*\),\([-0-9.]*\)$/\1 \2/p'; }
# slope.png: the ylorrd palette (ColorBrewer YlOrRd, 9 classes) over 0 ..
# the layer's maximum (gdalinfo -mm)
set -- $(minmax slope)
relief slope 0 "${2:-0}" "0,255,255,204 .125,255,237,160 .25,254,217,118 .375,254,178,76 .5,253,141,60 .625,252,78,42 .75,227,26,28 .875,189,0,38 1,128,0,38"
# dem.png: the terrain palette (hypsometric, render/palette.c) over the
# layer's minimum .. maximum: a scale that starts at the minimum, not at 0
set -- $(minmax dem)
relief dem "${1:-0}" "${2:-0}" "0,47,122,61 .2,110,165,88 .4,196,212,137 .6,230,207,148 .8,176,138,95 .92,156,138,124 1,244,241,236"

# ---- map windows: --te (layer CRS), --te_srs ----
set -- $(gdalinfo "$T/slope.tif" | sed -n 's/^Origin = (\([-0-9.]*\),\([-0-9.]*\))$/\1 \2/p')
ox=${1%.*} oy=${2%.*}
# cells 100..159 x 100..139 (a window inset 10 m from those cell edges snaps out to them)
wx0=$((ox + 100 * 90 + 10)) wx1=$((ox + 160 * 90 - 10)) wy1=$((oy - 100 * 90 - 10)) wy0=$((oy - 140 * 90 + 10))
"$R" -q "$T/slope.tif" -o "$tmp/win.png" --hillshade "$T/dem.tif" --overlay "$tmp/route.geojson" --legend \
    --te $wx0 $wy0 $wx1 $wy1 2>"$tmp/err" && is_png "$tmp/win.png" && ok || bad "window map: $(cat "$tmp/err")"
set -- $(png_size "$tmp/win.png")
# the same width; 60 x 40 cells on an 868 px map -> 579 px plus title and footer
[ "${1:-0}" = 1200 ] && ok || bad "window width ${1:-?}"
[ "${2:-0}" -gt 660 ] && [ "${2:-0}" -lt 720 ] && ok || bad "window height ${2:-?}"
"$R" -q "$T/slope.tif" -o "$tmp/win2.png" --hillshade "$T/dem.tif" --overlay "$tmp/route.geojson" --legend --te $wx0 $wy0 $wx1 $wy1
cmp -s "$tmp/win.png" "$tmp/win2.png" && ok || bad "two window renders differ"
cmp -s "$tmp/win.png" "$tmp/slope.png" && bad "the window drew the whole layer" || ok
# the window on exact cell edges gives the same map
"$R" -q "$T/slope.tif" -o "$tmp/win3.png" --hillshade "$T/dem.tif" --overlay "$tmp/route.geojson" --legend \
    --te $((wx0 - 10)) $((wy0 - 10)) $((wx1 + 10)) $((wy1 + 10))
cmp -s "$tmp/win.png" "$tmp/win3.png" && ok || bad "cell-edge window differs from the inset one"
# --te_srs naming the layer's own CRS changes nothing; in lon/lat: the window the lon/lat box covers
"$R" -q "$T/slope.tif" -o "$tmp/win4.png" --hillshade "$T/dem.tif" --overlay "$tmp/route.geojson" --legend \
    --te $wx0 $wy0 $wx1 $wy1 --te_srs EPSG:32616
cmp -s "$tmp/win.png" "$tmp/win4.png" && ok || bad "--te_srs EPSG:32616 differs from --te alone"
"$R" -q "$T/slope.tif" -o "$tmp/winll.png" --te -84.30 36.60 -84.25 36.65 --te_srs EPSG:4326 2>"$tmp/err" &&
    is_png "$tmp/winll.png" && ok || bad "lon/lat window: $(cat "$tmp/err")"

# ---- help, usage and errors: exit status, message, no output ----
"$R" --help >"$tmp/help" 2>&1 && ok || bad "--help exit status"
grep -q 'viridis' "$tmp/help" && grep -q 'terrain' "$tmp/help" && grep -q -- '--overlay' "$tmp/help" && ok || bad "--help lacks palettes/options"
grep -q -- '--te XMIN YMIN XMAX YMAX' "$tmp/help" && grep -q -- '--te_srs' "$tmp/help" && grep -q "whole layer's range" "$tmp/help" &&
    ok || bad "--help lacks --te/--te_srs or the colour range rule"
mkdir "$tmp/e"
O=$tmp/e/map.png
expect 1 "trv-render: cannot open '$tmp/none.tif': no such file" "$O" -- "$R" "$tmp/none.tif" -o "$O"
: >"$tmp/empty.tif"
expect 1 "trv-render: cannot open '$tmp/empty.tif': empty file" "$O" -- "$R" "$tmp/empty.tif" -o "$O"
expect 2 "unknown palette 'rainbow'" "$O" -- "$R" "$T/slope.tif" -o "$O" --palette rainbow
# option values out of range are usage errors (exit 2), found by the library or not (issue 15)
expect 2 "width 0 is out of range" "$O" -- "$R" "$T/slope.tif" -o "$O" --width 0
expect 2 "width 100 is out of range" "$O" -- "$R" "$T/slope.tif" -o "$O" --width 100
expect 2 "width 20000 is out of range" "$O" -- "$R" "$T/slope.tif" -o "$O" --width 20000
expect 1 "no route named 'nope' in the overlays" "$O" -- "$R" "$T/cost.tif" -o "$O" --overlay "$tmp/route.geojson" --route nope
printf '{ not json' >"$tmp/bad.geojson"
expect 1 "cannot read overlay '$tmp/bad.geojson'" "$O" -- "$R" "$T/slope.tif" -o "$O" --overlay "$tmp/bad.geojson"
expect 1 "cannot read overlay '$tmp/none.gpkg'" "$O" -- "$R" "$T/slope.tif" -o "$O" --overlay "$tmp/none.gpkg"
expect 1 "cannot open '$tmp/none.tif'" "$O" -- "$R" "$T/slope.tif" -o "$O" --hillshade "$tmp/none.tif"
expect 1 "cannot open font" "$O" -- env TRV_FONT=/nonexistent.ttf "$R" "$T/slope.tif" -o "$O"
expect 1 "cannot write '$tmp/nodir/map.png': the folder '$tmp/nodir' does not exist" "" -- "$R" "$T/slope.tif" -o "$tmp/nodir/map.png"
expect 2 "missing required option --output" "$O" -- "$R" "$T/slope.tif"
expect 2 "" "$O" -- "$R" -o "$O"
expect 2 "" "$O" -- "$R" "$T/slope.tif" -o "$O" --width abc
# windows: failures exit 1, malformed or inverted windows exit 2
expect 1 "does not overlap '$T/slope.tif'" "$O" -- "$R" "$T/slope.tif" -o "$O" --te 0 0 1000 1000
expect 1 "does not overlap" "$O" -- "$R" "$T/slope.tif" -o "$O" --te 2 48 3 49 --te_srs EPSG:4326
expect 2 "invalid window: xmin 700000 is not less than xmax 690000" "$O" -- "$R" "$T/slope.tif" -o "$O" --te 700000 4000000 690000 4010000
expect 2 "invalid window: ymin" "$O" -- "$R" "$T/slope.tif" -o "$O" --te $wx0 $wy1 $wx1 $wy0
expect 1 "cannot understand the CRS 'EPSG:999999'" "$O" -- "$R" "$T/slope.tif" -o "$O" --te 0 0 1 1 --te_srs EPSG:999999
expect 2 "--te expects" "$O" -- "$R" "$T/slope.tif" -o "$O" --te 1 2 3
expect 2 "--te expects" "$O" -- "$R" "$T/slope.tif" -o "$O" --te 1 2 3 abc
expect 2 "--te_srs needs --te" "$O" -- "$R" "$T/slope.tif" -o "$O" --te_srs EPSG:4326
[ -z "$(ls -A "$tmp/e")" ] && ok || bad "error runs left files: $(ls -A "$tmp/e")"

# ---- non-finite cells (issue 15): nodata, out of the colour range ----
# a 12 x 10 DEM with +Inf at cell (3, 3) and -Inf at (8, 6) draws as the
# same DEM with nodata there (the same bytes, colour bar included); the
# greys palette spans its finite minimum (black) to maximum (white); the
# +Inf cell is nodata grey 214 (map 868 x 723 at (24, 52), 12 x 10 cells)
mkdir -p "$tmp/nf"
if nonfinite_pair "$tmp/dem90.tif" 100 100 "$tmp/nf"; then
    "$R" -q "$tmp/nf/inf.tif" -o "$tmp/nf/inf.png" --palette greys --legend 2>"$tmp/err" && ok || bad "a layer with +-Inf: $(cat "$tmp/err")"
    "$R" -q "$tmp/nf/ref.tif" -o "$tmp/nf/ref.png" --palette greys --legend 2>"$tmp/err"
    cmp -s "$tmp/nf/inf.png" "$tmp/nf/ref.png" && ok || bad "a layer with +-Inf is not drawn as with nodata there"
    gdal_translate -q -of XYZ "$tmp/nf/ref.tif" "$tmp/nf/ref.xyz"
    { echo 3 3 0; awk '{ i = NR - 1; if ($3 > -32768) print i % 12, int(i / 12), $3 }' "$tmp/nf/ref.xyz" | sort -k3 -g | sed -n '1p;$p'; } |
        awk '{ print 24 + int((2 * $1 + 1) * 868 / 24), 52 + int((2 * $2 + 1) * 723 / 20) }' |
        gdallocationinfo -valonly "$tmp/nf/inf.png" | paste -d' ' - - - | tr '\n' ';' >"$tmp/nf/rgb"
    [ "$(cat "$tmp/nf/rgb")" = "214 214 214;0 0 0;255 255 255;" ] && ok ||
        bad "+Inf cell, minimum, maximum: $(cat "$tmp/nf/rgb"), want nodata grey, black, white"
else
    bad "cannot write the layer with +-Inf"
fi

# ---- --route-by-file: each file's lines its colour (a fleet), read back ----
# two vehicles' routes, both route "time"; ugv's again from another
# directory (the same name: the same colour). Colours 0 and 1 of the cycle
# (palette.c): #6a3d9a, #b15928; without the option neither is drawn.
mkdir -p "$tmp/fl/again"
line() { printf '{"type": "FeatureCollection", "features": [{"type": "Feature", "properties": {"route": "time"}, "geometry": {"type": "LineString", "coordinates": [[%s, %s], [%s, %s]]}}]}\n' "$@"; }
line -84.30 36.61 -84.26 36.61 >"$tmp/fl/ugv.geojson"
line -84.30 36.64 -84.26 36.64 >"$tmp/fl/truck.geojson"
line -84.29 36.60 -84.29 36.65 >"$tmp/fl/again/ugv.geojson"
"$R" -q "$T/slope.tif" -o "$tmp/fleet.png" --overlay "$tmp/fl/ugv.geojson" --overlay "$tmp/fl/truck.geojson" \
    --overlay "$tmp/fl/again/ugv.geojson" --route-by-file --te -84.30 36.60 -84.25 36.65 --te_srs EPSG:4326 &&
    "$R" -q "$T/slope.tif" -o "$tmp/fleet0.png" --overlay "$tmp/fl/ugv.geojson" --overlay "$tmp/fl/truck.geojson" \
        --overlay "$tmp/fl/again/ugv.geojson" --te -84.30 36.60 -84.25 36.65 --te_srs EPSG:4326 2>"$tmp/err" &&
    ok || bad "--route-by-file: $(cat "$tmp/err")"
if /usr/bin/python3 -c 'from osgeo import gdal; import numpy' 2>/dev/null; then
    /usr/bin/python3 - "$tmp/fleet.png" "$tmp/fleet0.png" <<'EOF2' && ok || bad "--route-by-file: the files' colours"
import sys
import numpy as np
from osgeo import gdal
def count(path, hexes):
    a = gdal.Open(path).ReadAsArray()[:3].astype(int)
    rgb = (a[0] << 16) | (a[1] << 8) | a[2]
    return [int((rgb == h).sum()) for h in hexes]
pu, br = 0x6a3d9a, 0xb15928
a, b = count(sys.argv[1], [pu, br]), count(sys.argv[2], [pu, br])
# ugv: two lines (a horizontal and a vertical one) in purple, truck one in brown
print("purple, brown pixels:", a, "without the option:", b)
sys.exit(not (a[0] > 1.5 * a[1] > 0 and a[1] > 100 and b == [0, 0]))
EOF2
else
    skip_pkg python3-gdal "python3 with osgeo: the fleet colours not read back"
fi

# ---- the legend's start and goal rows: only for the markers drawn ----
# (a fleet's plan names its last stop after its task: no "goal" point, no
# goal row). Red #d73027 is the goal marker's; the greys palette has none.
pt() { printf '{"type": "Feature", "properties": {"name": "%s"}, "geometry": {"type": "Point", "coordinates": [%s, %s]}}' "$@"; }
printf '{"type": "FeatureCollection", "features": [%s, %s]}\n' "$(pt start -84.30 36.61)" "$(pt s1 -84.26 36.61)" >"$tmp/fl/s1.geojson"
printf '{"type": "FeatureCollection", "features": [%s, %s]}\n' "$(pt start -84.30 36.61)" "$(pt goal -84.26 36.61)" >"$tmp/fl/goal.geojson"
for f in s1 goal; do
    "$R" -q "$T/slope.tif" -o "$tmp/leg_$f.png" --palette greys --overlay "$tmp/fl/$f.geojson" --legend \
        --te -84.31 36.60 -84.25 36.65 --te_srs EPSG:4326 2>"$tmp/err" || bad "legend map $f: $(cat "$tmp/err")"
done
if /usr/bin/python3 -c 'from osgeo import gdal; import numpy' 2>/dev/null; then
    /usr/bin/python3 - "$tmp/leg_s1.png" "$tmp/leg_goal.png" <<'EOF2' && ok || bad "the legend's goal row"
import sys
from osgeo import gdal
def red_in_panel(path):  # the panel: right of the map (24 + 868 px wide)
    a = gdal.Open(path).ReadAsArray()[:3, :, 24 + 868:].astype(int)
    return int((((a[0] << 16) | (a[1] << 8) | a[2]) == 0xd73027).sum())
s1, goal = red_in_panel(sys.argv[1]), red_in_panel(sys.argv[2])
print("red pixels in the legend, without and with a goal point:", s1, goal)
sys.exit(not (s1 == 0 and goal > 50))
EOF2
else
    skip_pkg python3-gdal "python3 with osgeo: the legend's goal row not read back"
fi

summary
