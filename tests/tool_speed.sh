#!/bin/sh
# trv-speed end to end on a 90 m Jacksboro terrain: outputs, styling, the
# speed of sampled cells against the formula with the report's resistance,
# determinism, and every error path. Ends with "N passed, N failed, N skipped".
set -u
BIN=${TRV_BIN:-bin}
DATA=${TRV_DATADIR:-data}
S=$BIN/trv-speed
tmp=$(mktemp -d /tmp/trv-speed-test-XXXXXX)
trap 'rm -rf "$tmp"' EXIT
. "$(dirname "$0")/lib.sh"
expect() { # status message dir -- command...: and no speed.tif/gonogo.tif in dir
    want=$1 msg=$2 dir=$3
    shift 4
    "$@" >"$tmp/stdout" 2>"$tmp/stderr"
    got=$?
    if [ "$got" != "$want" ]; then bad "$* -> exit $got, want $want ($(cat "$tmp/stderr"))"; return; fi
    if [ -n "$msg" ] && ! grep -qF -- "$msg" "$tmp/stderr"; then bad "$* -> stderr lacks '$msg': $(cat "$tmp/stderr")"; return; fi
    if [ -n "$dir" ] && { [ -e "$dir/speed.tif" ] || [ -e "$dir/gonogo.tif" ]; }; then bad "$* left outputs in $dir"; return; fi
    ok
}

# a 90 m terrain directory
gdalwarp -q -t_srs EPSG:32616 -tr 90 90 -tap -r bilinear -ot Float32 -dstnodata -32768 "$DATA/jacksboro/dem_3arcsec.tif" "$tmp/dem90.tif"
"$BIN/trv-terrain" -q --dem "$tmp/dem90.tif" --soil "$DATA/jacksboro/soil_7p5arcsec.tif" --landuse "$DATA/jacksboro/landuse_30m_utm16n.tif" \
    --soil-classes "$DATA/classes/soils.csv" --landuse-classes "$DATA/classes/landuse.csv" -o "$tmp/t" || { echo "cannot make the terrain"; exit 1; }
cp -R "$tmp/t" "$tmp/clean"
UGV=$DATA/vehicles/ugv_hua2022.ini
T="--soils $DATA/classes/soils.csv --landuse-classes $DATA/classes/landuse.csv"

# ---- the real run ----
if "$S" --terrain "$tmp/t" --vehicle "$UGV" $T --report "$tmp/rep.csv" >"$tmp/out" 2>"$tmp/err"; then ok; else bad "run: $(cat "$tmp/err")"; fi
grep -q 'MI 5.28; VCI1 8.19 RCI = 56.5 kPa' "$tmp/out" && ok || bad "MI/VCI line: $(grep MI "$tmp/out")"
grep -q "in force: VCI1 389.4 kPa (the vehicle file's override)" "$tmp/out" && ok || bad "override not reported"
grep -q 'traction check skipped' "$tmp/out" && ok || bad "skipped traction not reported"
[ "$(head -1 "$tmp/rep.csv")" = "code,name,ci_kPa,mode,sinkage_m,resistance_per_tyre_kN,resistance_total_kN,thrust_kN,speed_flat_kmh,speed_10deg_kmh,pass" ] && ok || bad "report header"
[ "$(wc -l <"$tmp/rep.csv")" = 5 ] && ok || bad "report rows"
grep -q '^1,sandy loam,223.40,rigid,.*,no$' "$tmp/rep.csv" && ok || bad "sandy loam row: $(grep '^1,' "$tmp/rep.csv")"
info=$(gdalinfo "$tmp/t/gonogo.tif")
echo "$info" | grep -q '2: NOGO: soil strength (CI < VCI1)' && ok || bad "gonogo category names"
echo "$info" | grep -q 'Color Table' && ok || bad "gonogo colour table"
gdalinfo "$tmp/t/speed.tif" | grep -q 'Unit Type: km/h' && ok || bad "speed unit"
# sampled cells: speed = min(40, 62 / (R_total + W sin(slope)) * 3.6) where GO, else 0
W=12.1798593
checked=0
for px in "300 200" "120 90" "40 300" "250 150" "150 250" "60 60" "330 30" "200 330"; do
    set -- $px
    g=$(gdallocationinfo -valonly "$tmp/t/gonogo.tif" "$1" "$2")
    v=$(gdallocationinfo -valonly "$tmp/t/speed.tif" "$1" "$2")
    s=$(gdallocationinfo -valonly "$tmp/t/slope.tif" "$1" "$2")
    c=$(gdallocationinfo -valonly "$tmp/t/soil.tif" "$1" "$2")
    if [ "$g" = 0 ]; then
        r=$(awk -F, -v c="$c" '$1 == c {print $7}' "$tmp/rep.csv")
        want=$(awk -v r="$r" -v s="$s" -v w=$W 'BEGIN{v = 62 / (r + w * sin(s * 3.14159265358979 / 180)) * 3.6; if (v > 40) v = 40; printf "%.4f", v}')
        echo "$v $want" | awk '{exit !(($1 - $2)^2 < 1e-6)}' && ok || bad "cell $px: speed $v, want $want (slope $s, soil $c)"
        checked=$((checked + 1))
    else
        [ "$v" = 0 ] && ok || bad "cell $px: NOGO $g but speed $v"
    fi
done
[ $checked -gt 2 ] && ok || bad "too few GO cells sampled ($checked)"
# determinism
cp "$tmp/t/speed.tif" "$tmp/s1.tif"
"$S" --terrain "$tmp/t" --vehicle "$UGV" $T --report "$tmp/rep.csv" >/dev/null 2>&1
cmp -s "$tmp/t/speed.tif" "$tmp/s1.tif" && ok || bad "a rerun changed speed.tif"
# another vehicle runs too (tracked)
"$S" --terrain "$tmp/t" --vehicle "$DATA/vehicles/tracked_carrier.ini" $T -q && ok || bad "tracked vehicle"

# ---- errors: exit 1, no outputs ----
mk() { rm -rf "$tmp/e" && cp -R "$tmp/clean" "$tmp/e"; }
mk
printf '[vehicle]\nname = x\n' >"$tmp/v1.ini"
expect 1 "missing key 'gross_mass_kg' in [vehicle]" "$tmp/e" -- "$S" --terrain "$tmp/e" --vehicle "$tmp/v1.ini" $T
sed 's/^gross_mass_kg = 1242/gross_mass_kg = -1242/' "$UGV" >"$tmp/v2.ini"
expect 1 "'gross_mass_kg' = -1242 is out of range" "$tmp/e" -- "$S" --terrain "$tmp/e" --vehicle "$tmp/v2.ini" $T
mk
gdal_translate -q -scale 0 255 9 9 "$tmp/clean/soil.tif" "$tmp/e/soil.tif"
expect 1 "soil class 9 is not in the table" "$tmp/e" -- "$S" --terrain "$tmp/e" --vehicle "$UGV" $T
mk
printf 'code,name,nogo\n1,water,yes\n2,forest,yes\n3,grassland,no\n' >"$tmp/lu3.csv"
expect 1 "land-use class 4 is not in the table" "$tmp/e" -- "$S" --terrain "$tmp/e" --vehicle "$UGV" --soils "$DATA/classes/soils.csv" --landuse-classes "$tmp/lu3.csv"
mk
gdalwarp -q -overwrite -tr 180 180 "$tmp/clean/slope.tif" "$tmp/e/slope.tif"
expect 1 "does not match" "$tmp/e" -- "$S" --terrain "$tmp/e" --vehicle "$UGV" $T
mk
rm "$tmp/e/landuse.tif"
expect 1 "cannot open '$tmp/e/landuse.tif'" "$tmp/e" -- "$S" --terrain "$tmp/e" --vehicle "$UGV" $T
expect 2 "missing required option --vehicle" "" -- "$S" --terrain "$tmp/e"

summary
