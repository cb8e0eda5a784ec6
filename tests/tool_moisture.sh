#!/bin/sh
# trv-speed at a soil moisture (issue 22, point 4) on a 90 m Jacksboro
# terrain: --condition normal gives the default maps; the NOGO share never
# falls as the moisture rises (eight moistures, clamped); speed_soils.csv
# holds the values used, so that a rerun from it (as the route and the
# simulator read it) gives the same maps; speed.json records the moisture;
# every bad moisture input. Ends with "N passed, N failed, N skipped".
set -u
BIN=${TRV_BIN:-bin}
DATA=${TRV_DATADIR:-data}
S=$BIN/trv-speed
tmp=$(mktemp -d /tmp/trv-moisture-test-XXXXXX)
trap 'rm -rf "$tmp"' EXIT
. "$(dirname "$0")/lib.sh"
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
# the pixels of two GeoTIFFs are equal (metadata aside): raw bytes
same_pixels() {
    gdal_translate -q -of ENVI "$1" "$tmp/a.bin" && gdal_translate -q -of ENVI "$2" "$tmp/b.bin" && cmp -s "$tmp/a.bin" "$tmp/b.bin"
}
# NOGO share of the cells with data, from speed.json
nogo_share() {
    python3 -c "
import json, sys
c = json.load(open(sys.argv[1]))['cells']
print('%.9f' % (1 - c['go'] / c['with_data']))" "$1"
}

gdalwarp -q -t_srs EPSG:32616 -tr 90 90 -tap -r bilinear -ot Float32 -dstnodata -32768 "$DATA/jacksboro/dem_3arcsec.tif" "$tmp/dem90.tif"
"$BIN/trv-terrain" -q --dem "$tmp/dem90.tif" --soil "$DATA/jacksboro/soil_7p5arcsec.tif" --landuse "$DATA/jacksboro/landuse_30m_utm16n.tif" \
    --soil-classes "$DATA/classes/soils.csv" --landuse-classes "$DATA/classes/landuse.csv" -o "$tmp/clean" || { echo "cannot make the terrain"; exit 1; }
UGV=$DATA/vehicles/ugv_hua2022.ini
fresh() { rm -rf "$tmp/$1"; cp -R "$tmp/clean" "$tmp/$1"; }

# ---- normal = the default run ----
fresh def; fresh normal
"$S" -q --terrain "$tmp/def" --vehicle "$UGV" && ok || bad "default run"
"$S" -q --terrain "$tmp/normal" --vehicle "$UGV" --condition normal && ok || bad "--condition normal"
for f in speed gonogo limit; do
    same_pixels "$tmp/def/$f.tif" "$tmp/normal/$f.tif" && ok || bad "--condition normal changes $f.tif"
done
python3 -c "
import json, sys
m = json.load(open(sys.argv[1]))['moisture']
assert m['mode'] == 'condition' and m['condition'] == 'normal', m
assert [(s['code'], s['moisture_pct']) for s in m['soils']] == [(1, 26), (2, 38), (3, 22), (4, 5)], m
" "$tmp/normal/speed.json" && ok || bad "speed.json moisture record (normal)"
python3 -c "import json, sys; sys.exit('moisture' in json.load(open(sys.argv[1])))" "$tmp/def/speed.json" && ok || bad "a default run records a moisture"

# ---- the NOGO share never falls as the moisture rises ----
prev=
for w in 0 20 26 30 32 38 45 55 70; do
    fresh m$w
    "$S" -q --terrain "$tmp/m$w" --vehicle "$UGV" --moisture $w --clamp-moisture || { bad "--moisture $w"; continue; }
    share=$(nogo_share "$tmp/m$w/speed.json")
    echo "moisture $w %: NOGO share $share" >>"$tmp/shares"
    if [ -n "$prev" ]; then
        awk -v a="$prev" -v b="$share" 'BEGIN { exit !(b >= a) }' && ok || bad "NOGO share falls from $prev to $share at $w %"
    fi
    prev=$share
done
# and it rises at all: the wet end against the dry end
awk -v a="$(nogo_share "$tmp/m0/speed.json")" -v b="$prev" 'BEGIN { exit !(b > a + 0.05) }' && ok || bad "NOGO share barely moves: $(cat "$tmp/shares")"

# ---- speed_soils.csv holds the values used: a rerun from it agrees ----
fresh wet; fresh again
"$S" -q --terrain "$tmp/wet" --vehicle "$UGV" --condition wet && ok || bad "--condition wet"
grep -q '^2,clayey soil,0.69999999999999996,16.030000000000001,1262.53,349.66000000000003,55,' "$tmp/wet/speed_soils.csv" && ok \
    || bad "speed_soils.csv wet clayey soil: $(grep '^2,' "$tmp/wet/speed_soils.csv")"
cp "$tmp/wet/speed_soils.csv" "$tmp/wet_soils.csv"
"$S" -q --terrain "$tmp/again" --vehicle "$UGV" --soils "$tmp/wet_soils.csv" && ok || bad "rerun from speed_soils.csv"
for f in speed gonogo limit; do
    same_pixels "$tmp/wet/$f.tif" "$tmp/again/$f.tif" && ok || bad "speed_soils.csv does not give the wet $f.tif back"
done
# a moisture between the rows gives the interpolated values, in full
fresh m27
"$S" -q --terrain "$tmp/m27" --vehicle "$UGV" --moisture 27 --clamp-moisture && ok || bad "--moisture 27"
awk -F, '$1 == 3 { exit !($3 == 0.175 && $5 + 0 > 454.1917 && $5 + 0 < 454.1918 && $7 == 27) }' "$tmp/m27/speed_soils.csv" && ok \
    || bad "lean clay at 27 %: $(grep '^3,' "$tmp/m27/speed_soils.csv")"

# ---- bad inputs ----
fresh b
expect 2 "--condition must be one of dry|normal|wet" "$tmp/b" -- "$S" --terrain "$tmp/b" --vehicle "$UGV" --condition soggy
expect 2 "--moisture expects a number, not 'damp'" "$tmp/b" -- "$S" --terrain "$tmp/b" --vehicle "$UGV" --moisture damp
expect 2 "--moisture must be a percentage from 0 to 100" "$tmp/b" -- "$S" --terrain "$tmp/b" --vehicle "$UGV" --moisture -5
expect 2 "--moisture must be a percentage from 0 to 100" "$tmp/b" -- "$S" --terrain "$tmp/b" --vehicle "$UGV" --moisture 101
expect 2 "--moisture and --condition exclude each other" "$tmp/b" -- "$S" --terrain "$tmp/b" --vehicle "$UGV" --moisture 30 --condition wet
expect 2 "--clamp-moisture and --moisture-table go with --moisture or --condition" "$tmp/b" -- "$S" --terrain "$tmp/b" --vehicle "$UGV" --clamp-moisture
expect 1 "moisture 30 %: soil 'clayey soil' (code 2) is tabulated from 38 to 55 %" "$tmp/b" -- "$S" --terrain "$tmp/b" --vehicle "$UGV" --moisture 30
expect 1 "cannot open '$tmp/none.csv'" "$tmp/b" -- "$S" --terrain "$tmp/b" --vehicle "$UGV" --condition wet --moisture-table "$tmp/none.csv"
expect 1 "code 1 is 'sandy loam', the soil table's 'sand'" "$tmp/b" -- "$S" --terrain "$tmp/b" --vehicle "$UGV" --condition wet --soils "$DATA/classes/soils_usda.csv"

summary
