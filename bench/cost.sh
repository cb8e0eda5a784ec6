#!/bin/sh
# make bench, fuzzy cost part: trv-cost on the 10 m Jacksboro terrain
# against the I/O floor, and the same engine in fuzzylite (bench/README.md
# explains what is measured and how to read it).
# 1. the 10 m terrain: trv-krige, trv-terrain, then trv-speed when it is
#    built (else speed.tif and gonogo.tif synthesised from slope, said so);
# 2. trv-cost --terrain, best of REPS, with data/fuzzy/mobility.fcl (k = 2)
#    and mobility_linear.fcl (k = 1, the engine fuzzylite can read), against
#    the I/O floor: GDAL reading the five input rasters and writing a Float32
#    and a Byte raster with trv-cost's creation options;
# 3. per evaluation: trv-cost's inference time (its report) per evaluated
#    cell, one thread and all, against fuzzylite's own benchmark mode on a
#    100 000-tuple sample of the same cells (Centroid resolution 100, its
#    default, and 10000, the one tests/tool_cost.sh compares with); and
#    both file to file on that sample (trv-cost --eval, fuzzylite -of fld).
# Environment: TRV_BIN (bin), TRV_DATADIR (data), REPS (3), NSAMPLE (100000).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
BIN=${TRV_BIN:-$root/bin}
DATA=${TRV_DATADIR:-$root/data}
REPS=${REPS:-3}
NSAMPLE=${NSAMPLE:-100000}
CO="-co TILED=YES -co BLOCKXSIZE=256 -co BLOCKYSIZE=256 -co COMPRESS=DEFLATE"
w=$(mktemp -d /tmp/trv-cost-bench-XXXXXX)
trap 'rm -rf "$w"' EXIT
trap 'exit 130' INT TERM

. "$(dirname "$0")/lib.sh"

machine_line
flv=$(command -v fuzzylite >/dev/null 2>&1 && fuzzylite 2>/dev/null | sed -n 's/^version: //p' | head -1 || true)
echo "GDAL $(gdal-config --version 2>/dev/null || gdalinfo --version | sed 's/GDAL \([^,]*\).*/\1/'); fuzzylite ${flv:-not installed}; best of $REPS runs"

# ---- 1. the terrain --------------------------------------------------------
echo "preparing the 10 m Jacksboro terrain (trv-krige, trv-terrain, trv-speed)..."
T=$w/t
"$BIN/trv-krige" "$DATA/jacksboro/dem_3arcsec.tif" --tr 10 -o "$w/dem10.tif" -q
"$BIN/trv-terrain" -q --dem "$w/dem10.tif" --soil "$DATA/jacksboro/soil_7p5arcsec.tif" \
    --landuse "$DATA/jacksboro/landuse_30m_utm16n.tif" --soil-classes "$DATA/classes/soils.csv" \
    --landuse-classes "$DATA/classes/landuse.csv" -o "$T"
if [ -x "$BIN/trv-speed" ] && [ -r "$DATA/vehicles/ugv_hua2022.ini" ]; then
    "$BIN/trv-speed" -q --terrain "$T" --vehicle "$DATA/vehicles/ugv_hua2022.ini" --soils "$DATA/classes/soils.csv" \
        --landuse-classes "$DATA/classes/landuse.csv"
else
    echo "NOTE: no trv-speed: speed.tif = max(0, 40 - 1.5 slope) km/h, gonogo.tif = 1 where slope > 25 deg, synthesised"
    gdal_calc.py --quiet -A "$T/slope.tif" --outfile="$T/speed.tif" --type=Float32 --NoDataValue=-9999 \
        --calc="maximum(0, 40 - 1.5 * A) * (A <= 25)" $CO
    gdal_calc.py --quiet -A "$T/slope.tif" --outfile="$T/gonogo.tif" --type=Byte --calc="1 * (A > 25)" $CO
fi
cells=$(gdalinfo "$T/dem.tif" | sed -n 's/^Size is \([0-9]*\), \([0-9]*\)/\1 \2/p' | awk '{print $1 * $2}')

# ---- 2. the map against the I/O floor ----------------------------------------
map_run() { # rules threads -> "seconds maxrss inference_s evaluated_cells read_s write_s"
    t=$(best "$BIN/trv-cost" --terrain "$T" --rules "$1" --threads "$2")
    inf=$(sed -n 's/^time: read [0-9.]* s, inference \([0-9.]*\) s.*/\1/p' "$w/best.out")
    io=$(sed -n 's/^time: read \([0-9.]*\) s, .*, write \([0-9.]*\) s$/\1 \2/p' "$w/best.out")
    # evaluated cells: those of class 1..T (the others are NOGO or no data)
    ev=$(gdalinfo -hist "$T/class.tif" | awk '/buckets from/ { getline; for (i = 2; i <= NF; i++) s += $i; print s; exit }')
    echo "$t $inf $ev $io"
}
nthreads=$(nproc)
p_all=$(map_run "$DATA/fuzzy/mobility.fcl" "$nthreads")
l_all=$(map_run "$DATA/fuzzy/mobility_linear.fcl" "$nthreads")
l_one=$(map_run "$DATA/fuzzy/mobility_linear.fcl" 1)
p_one=$(map_run "$DATA/fuzzy/mobility.fcl" 1)
cat >"$w/floor.sh" <<EOC
gdal_translate -q -ot Float32 $CO -co PREDICTOR=3 "$T/slope.tif" "$w/f1.tif" &&
gdal_translate -q -ot Byte $CO -co PREDICTOR=2 "$T/gonogo.tif" "$w/f2.tif" &&
gdalinfo -checksum "$T/dem.tif" >/dev/null && gdalinfo -checksum "$T/soil.tif" >/dev/null &&
gdalinfo -checksum "$T/speed.tif" >/dev/null
EOC
floor=$(best sh "$w/floor.sh")
echo
echo "| job | traverse | memory | cells/s | I/O floor (GDAL) | memory | time ratio |"
echo "|---|---|---|---|---|---|---|"
for job in "mobility.fcl (k = 2)|$p_all" "mobility_linear.fcl (k = 1)|$l_all"; do
    name=${job%%|*}
    echo "${job#*|} $floor $cells" | awk -v n="$name" -v th="$nthreads" '{printf "| trv-cost, 10 m (%.1fM cells), %s, %d threads | %.2f s | %.0f MB | %.1fM | %.2f s | %.0f MB | %.2f |\n", $9/1e6, n, th, $1, $2/1024, $9/$1/1e6, $7, $8/1024, $1/$7}'
done
echo "$p_all" | awk '{printf "(trv-cost'"'"'s own reading and writing, from its report: %.2f s + %.2f s = %.2f s of its %.2f s; whole run / own I/O = %.2f)\n", $5, $6, $5 + $6, $1, $1 / ($5 + $6)}'
echo "goal: the whole 10 m map within 3x of the I/O floor"

# ---- 3. per evaluation, against fuzzylite --------------------------------------
if [ -z "$flv" ]; then
    echo
    echo "fuzzylite not installed (apt-get install fuzzylite): per-evaluation comparison left out"
    exit 0
fi
# a sample of NSAMPLE GO cells: a 1000 x 600 window in the middle of the
# grid, every k-th GO cell, CI through the soil table
nx=$(gdalinfo "$T/dem.tif" | sed -n 's/^Size is \([0-9]*\), .*/\1/p')
ny=$(gdalinfo "$T/dem.tif" | sed -n 's/^Size is [0-9]*, \([0-9]*\)/\1/p')
win="$(((nx - 1000) / 2)) $(((ny - 600) / 2)) 1000 600"
for f in dem slope soil speed gonogo; do
    # shellcheck disable=SC2086 # win is four numbers
    gdal_translate -q -srcwin $win -of XYZ "$T/$f.tif" "$w/$f.xyz"
done
paste -d' ' "$w/slope.xyz" "$w/dem.xyz" "$w/soil.xyz" "$w/speed.xyz" "$w/gonogo.xyz" |
    awk -v want="$NSAMPLE" 'NR == FNR { split($0, c, ","); if (FNR > 1) ci[c[1]] = c[6]; next }
        $15 == 0 && $9 > 0 && ($9 in ci) && $3 > -9999 && $6 > -9999 && $12 > -9999 { n++; s[n] = $3 " " $6 " " ci[$9] " " $12 }
        END { if (n < want) { print "only " n " GO cells in the window" > "/dev/stderr"; exit 1 }
              print "slope elevation ci speed"; for (k = 0; k < want; k++) print s[1 + int(k * n / want)] }' \
        "$DATA/classes/soils.csv" - >"$w/sample.fld"
tr ' ' ',' <"$w/sample.fld" >"$w/sample.csv"
fuzzylite -i "$DATA/fuzzy/mobility_linear.fcl" -of fll -o "$w/lin.fll" >/dev/null 2>&1
grep -q 'defuzzifier: Centroid 100$' "$w/lin.fll" || { echo "cost.sh: fuzzylite did not read mobility_linear.fcl" >&2; exit 1; }
sed 's/defuzzifier: Centroid 100$/defuzzifier: Centroid 10000/' "$w/lin.fll" >"$w/lin10k.fll"
# fuzzylite's benchmark mode times the evaluations alone (nanoseconds, one run)
flbench() { fuzzylite benchmark "$1" "$w/sample.fld" 1 2>&1 | awk '{ for (i = 1; i < NF; i++) if ($i == "nanoseconds") { print $(i + 1) / 1e9; exit } }'; }
fl100=$(flbench "$w/lin.fll")
fl10k=$(flbench "$w/lin10k.fll")
# file to file on the sample
ours_ff=$(best "$BIN/trv-cost" --rules "$DATA/fuzzy/mobility_linear.fcl" --eval "$w/sample.csv" -o "$w/ours.csv")
fl_ff=$(best fuzzylite -i "$w/lin.fll" -if fll -of fld -d "$w/sample.fld" -dheader true -dinputs false -decimals 9 -o "$w/fl.fld")
echo
echo "Per evaluation: fuzzylite $flv on $NSAMPLE GO cells of the same grid (its benchmark mode: evaluations only),"
echo "trv-cost's inference time (its report: the cells of the map, NOGO and no-data cells included in the time,"
echo "divided by the evaluated cells only). Same engine: mobility_linear.fcl."
echo
echo "| engine | per evaluation | evaluations/s | fuzzylite (Centroid 100) / this |"
echo "|---|---|---|---|"
echo "$fl100 $NSAMPLE" | awk '{printf "| fuzzylite, Centroid resolution 100 (default) | %.2f us | %.3gM | 1 |\n", $1/$2*1e6, $2/$1/1e6}'
echo "$fl10k $NSAMPLE $fl100" | awk '{printf "| fuzzylite, Centroid resolution 10000 | %.2f us | %.3gM | %.3f |\n", $1/$2*1e6, $2/$1/1e6, $3/$1}'
for job in "linear, 1 thread|$l_one" "linear, $nthreads threads|$l_all" "k = 2 (mobility.fcl), 1 thread|$p_one" "k = 2 (mobility.fcl), $nthreads threads|$p_all"; do
    name=${job%%|*}
    echo "${job#*|} $fl100 $NSAMPLE" | awk -v n="$name" '{ per = $3 / $4; printf "| trv-cost map inference, %s | %.0f ns | %.3gM | %.0f |\n", n, per * 1e9, 1 / per / 1e6, ($7 / $8) / per }'
done
echo "$l_all $fl100 $NSAMPLE $cells" | awk -v th="$nthreads" '{ per = $1 / $9; printf "| trv-cost whole run (read, inference, write), per map cell, linear, %d threads | %.0f ns | %.3gM | %.0f |\n", th, per * 1e9, 1 / per / 1e6, ($7 / $8) / per }'
echo "goal: >= 100x fuzzylite per evaluation"
echo
echo "| job ($NSAMPLE tuples, file to file) | traverse | memory | peer | time | memory | time ratio | memory ratio |"
echo "|---|---|---|---|---|---|---|---|"
echo "$ours_ff $fl_ff" | awk '{printf "| evaluate a CSV / FLD of inputs | %.2f s | %.0f MB | fuzzylite -of fld (Centroid 100) | %.2f s | %.0f MB | %.3f | %.2f |\n", $1, $2/1024, $3, $4/1024, $1/$3, $2/$4}'
