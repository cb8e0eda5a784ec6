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
assert m['table'] == 'classes/soils_moisture.csv', m['table']
" "$tmp/normal/speed.json" && ok || bad "speed.json moisture record (normal)"
# the table as given, and a second clone (its own bin/ and data/) writes the same speed.json
fresh given; "$S" -q --terrain "$tmp/given" --vehicle "$UGV" --condition wet --moisture-table "$DATA/classes/soils_moisture.csv" &&
python3 -c "import json, sys; t = json.load(open(sys.argv[1]))['moisture']['table']; sys.exit(t != sys.argv[2] and t)" \
    "$tmp/given/speed.json" "$DATA/classes/soils_moisture.csv" && ok || bad "moisture.table not as given"
mkdir -p "$tmp/clone/bin" && cp "$S" "$tmp/clone/bin/" && ln -s "$(cd "$DATA" && pwd)" "$tmp/clone/data"
SL="--soils $DATA/classes/soils.csv --landuse-classes $DATA/classes/landuse.csv" # as the demo gives them
fresh w; "$S" -q --terrain "$tmp/w" --vehicle "$UGV" $SL --condition wet && cp "$tmp/w/speed.json" "$tmp/w1.json" &&
fresh w && TRV_DATADIR= "$tmp/clone/bin/trv-speed" -q --terrain "$tmp/w" --vehicle "$UGV" $SL --condition wet &&
    cmp -s "$tmp/w1.json" "$tmp/w/speed.json" && ok || bad "two clones give different speed.json"
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

# ---- --moisture-raster: a raster in EPSG:4326 (0.003 deg cells, a nodata
# corner), cell by cell against gdalwarp's nearest neighbour without
# approximation, and each soil at its median moisture ----
awk 'BEGIN { nx = 130; ny = 110
    printf "ncols %d\nnrows %d\nxllcorner -84.43\nyllcorner %.3f\ncellsize 0.003\nNODATA_value -1\n", nx, ny, 36.76 - ny * 0.003
    for (i = 0; i < ny; i++) { for (j = 0; j < nx; j++) printf "%s ", (i < 10 && j < 10) ? "-1" : sprintf("%.4f", 20 + 40 * j / nx + 3 * sin(i * 0.7)); printf "\n" } }' >"$tmp/m.asc"
gdal_translate -q -a_srs EPSG:4326 -ot Float32 "$tmp/m.asc" "$tmp/m4326.tif"
fresh r
"$S" -q --terrain "$tmp/r" --vehicle "$UGV" --moisture-raster "$tmp/m4326.tif" --clamp-moisture && ok || bad "--moisture-raster"
ext=$(gdalinfo "$tmp/clean/soil.tif" | awk '/^Size is/ { gsub(",", ""); nx = $3; ny = $4 } /^Origin/ { gsub("[(),]", " "); x = $3; y = $4 }
    END { printf "%s %s %s %s", x, y - 90 * ny, x + 90 * nx, y }')
gdalwarp -q -t_srs EPSG:32616 -te $ext -tr 90 90 -r near -et 0 -dstnodata -9999 "$tmp/m4326.tif" "$tmp/ref.tif"
same_pixels "$tmp/r/moisture.tif" "$tmp/ref.tif" && ok || bad "moisture.tif differs from gdalwarp -r near -et 0"
# the median per soil from the reference raster (sort, then the middle)
gdal_translate -q -of XYZ "$tmp/clean/soil.tif" "$tmp/soil.xyz"
gdal_translate -q -of XYZ "$tmp/ref.tif" "$tmp/ref.xyz"
paste -d' ' "$tmp/soil.xyz" "$tmp/ref.xyz" | awk '$3 > 0 && $6 != -9999 { print $3, $6 }' | sort -k1,1n -k2,2g |
    awk '{ v[$1, ++n[$1]] = $2 } END { for (c in n) { k = n[c]; m = k % 2 ? v[c, (k + 1) / 2] : (v[c, k / 2] + v[c, k / 2 + 1]) / 2; printf "%d %d %.6f\n", c, k, m } }' |
    sort -n >"$tmp/medians"
python3 -c "
import json, sys
for s in json.load(open(sys.argv[1]))['moisture']['soils']:
    print(s['code'], s['raster_cells'], s['moisture_pct'], 'true' if s['clamped'] else 'false')" "$tmp/r/speed.json" >"$tmp/got"
[ "$(wc -l <"$tmp/got")" = 4 ] && ok || bad "speed.json's raster soils: $(cat "$tmp/got")"
# clayey soil (38..55 %) lies in range: its median; the others clamped to an end
awk 'NR == FNR { n[$1] = $2; m[$1] = $3; next }
    { if ($2 != n[$1]) exit 1; if ($4 == "false" && ($3 - m[$1] > 1e-4 || m[$1] - $3 > 1e-4)) exit 1; if ($1 == 2 && $4 != "false") exit 1 }' \
    "$tmp/medians" "$tmp/got" && ok || bad "raster medians: $(cat "$tmp/medians") against $(cat "$tmp/got")"

# ---- the report's ground-conditions table on a 90 m run: the NOGO shares
# from each condition's speed.json and the route driven on each
# speed.tif, recomputed here (awk over route.csv and the XYZ cells) ----
fresh rep
R=$tmp/rep
"$S" -q --terrain "$R" --vehicle "$UGV" && "$BIN/trv-cost" -q --terrain "$R" &&
    "$BIN/trv-roadmap" -q --terrain "$R" -o "$R/roadmap.gpkg" --seed 1 &&
    "$BIN/trv-route" -q --roadmap "$R/roadmap.gpkg" --terrain "$R" --from -84.3637,36.6957 --to -84.1994,36.5216 --no-timing \
        -o "$R/route.geojson" --csv "$R/route.csv" --stats "$R/route_stats.csv" && ok || bad "the 90 m run for the report"
"$BIN/trv-report" -q "$R" -o "$tmp/no_cond.md" && ! grep -q '## Ground conditions' "$tmp/no_cond.md" && ok || bad "a report without conditions/ has the section"
for c in dry normal wet; do
    mkdir -p "$R/conditions/$c" && ln -sf ../../slope.tif ../../soil.tif ../../landuse.tif "$R/conditions/$c/" &&
        "$S" -q --terrain "$R/conditions/$c" --vehicle "$UGV" --condition $c || bad "--condition $c in conditions/"
done
"$BIN/trv-report" -q "$R" -o "$R/report.md" && ok || bad "trv-report with conditions/"
for c in dry normal wet; do
    want=$(python3 -c "
import json, sys
c = json.load(open(sys.argv[1]))['cells']
print('%.1f %%' % (100 * (1 - c['go'] / c['with_data'])))" "$R/conditions/$c/speed.json")
    gi=$(gdalinfo "$R/conditions/$c/speed.tif")
    x0=$(echo "$gi" | sed -n 's/^Origin = (\([-0-9.]*\),\([-0-9.]*\)).*/\1/p'); y0=$(echo "$gi" | sed -n 's/^Origin = (\([-0-9.]*\),\([-0-9.]*\)).*/\2/p')
    nx=$(echo "$gi" | sed -n 's/^Size is \([0-9]*\), .*/\1/p')
    gdal_translate -q -of XYZ "$R/conditions/$c/speed.tif" "$tmp/speed.xyz"
    drive=$(awk -F'[ ,]' -v x0="$x0" -v y0="$y0" -v nx="$nx" '
        FILENAME ~ /xyz$/ { v[n++] = $3; next }
        FNR == 1 { next }
        $1 == "mmcr" { if (have) { mx = (px + $2) / 2; my = (py + $3) / 2; c = int((mx - x0) / 90); r = int((y0 - my) / 90)
                           L = sqrt(($2 - px) ^ 2 + ($3 - py) ^ 2); s = v[r * nx + c]
                           if (s > 0) t += L / (s / 3.6); else blocked += L }
                       px = $2; py = $3; have = 1 }
        END { if (blocked > 0) printf "blocked | no: %.0f m on NOGO cells", blocked; else printf "%.3f | yes", t / 3600 }' \
        "$tmp/speed.xyz" "$R/route.csv")
    # the goal's cell in this condition: GO, or its NOGO reason (gdallocationinfo)
    goal=$(awk -F, '$1 == "mmcr" { x = $2; y = $3 } END { print x, y }' "$R/route.csv")
    code=$(gdallocationinfo -valonly -geoloc "$R/conditions/$c/gonogo.tif" $goal)
    state=GO
    [ "$code" = 0 ] || state=$(gdalinfo "$R/conditions/$c/gonogo.tif" | sed -n "s/^ *$code: //p")
    grep -q "^| $c | .* | $want | $drive | [^|]* | $state |\$" "$R/report.md" && ok ||
        bad "report's $c row: $(grep "^| $c |" "$R/report.md"), want $want | $drive | … | $state"
done
grep -q '^| wet | .* | blocked | no: ' "$R/report.md" && ok || bad "the normal route still passes when wet: $(grep '^| wet |' "$R/report.md")"

# ---- bad inputs ----
fresh b
expect 2 "--condition must be one of dry|normal|wet" "$tmp/b" -- "$S" --terrain "$tmp/b" --vehicle "$UGV" --condition soggy
expect 2 "--moisture expects a number, not 'damp'" "$tmp/b" -- "$S" --terrain "$tmp/b" --vehicle "$UGV" --moisture damp
expect 2 "--moisture must be a percentage from 0 to 100" "$tmp/b" -- "$S" --terrain "$tmp/b" --vehicle "$UGV" --moisture -5
expect 2 "--moisture must be a percentage from 0 to 100" "$tmp/b" -- "$S" --terrain "$tmp/b" --vehicle "$UGV" --moisture 101
expect 2 "--moisture, --condition and --moisture-raster exclude each other" "$tmp/b" -- "$S" --terrain "$tmp/b" --vehicle "$UGV" --moisture 30 --condition wet
expect 2 "--moisture, --condition and --moisture-raster exclude each other" "$tmp/b" -- "$S" --terrain "$tmp/b" --vehicle "$UGV" --condition wet --moisture-raster "$tmp/m4326.tif"
expect 2 "--clamp-moisture and --moisture-table go with --moisture, --condition or --moisture-raster" "$tmp/b" -- "$S" --terrain "$tmp/b" --vehicle "$UGV" --clamp-moisture
expect 1 "cannot open '$tmp/nothere.tif'" "$tmp/b" -- "$S" --terrain "$tmp/b" --vehicle "$UGV" --moisture-raster "$tmp/nothere.tif"
printf 'not a raster\n' >"$tmp/junk.tif"
expect 1 "cannot open '$tmp/junk.tif'" "$tmp/b" -- "$S" --terrain "$tmp/b" --vehicle "$UGV" --moisture-raster "$tmp/junk.tif"
gdal_translate -q -scale 0 1 0 2 "$tmp/m4326.tif" "$tmp/m200.tif"
expect 1 "a moisture raster holds percentages from 0 to 100" "$tmp/b" -- "$S" --terrain "$tmp/b" --vehicle "$UGV" --moisture-raster "$tmp/m200.tif" --clamp-moisture
gdal_translate -q -srcwin 0 0 10 10 "$tmp/m4326.tif" "$tmp/corner.tif"
expect 1 "covers none of the" "$tmp/b" -- "$S" --terrain "$tmp/b" --vehicle "$UGV" --moisture-raster "$tmp/corner.tif" --clamp-moisture
expect 1 "moisture 30 %: soil 'clayey soil' (code 2) is tabulated from 38 to 55 %" "$tmp/b" -- "$S" --terrain "$tmp/b" --vehicle "$UGV" --moisture 30
expect 1 "cannot open '$tmp/none.csv'" "$tmp/b" -- "$S" --terrain "$tmp/b" --vehicle "$UGV" --condition wet --moisture-table "$tmp/none.csv"
expect 1 "code 1 is 'sandy loam', the soil table's 'sand'" "$tmp/b" -- "$S" --terrain "$tmp/b" --vehicle "$UGV" --condition wet --soils "$DATA/classes/soils_usda.csv"

summary
