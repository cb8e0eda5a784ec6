#!/bin/sh
# make bench, conditional simulation: trv-krige --nsim 100 against gstat's
# krige(nsim = 100, nmax = 16) (sequential Gaussian simulation) on the same
# grid and model (docs/method.md 1.11).
#   sh bench/krige_sim.sh [DEM]     (default data/jacksboro/dem_3arcsec.tif)
# The DEM is warped to 90 m UTM (EPSG:32616), as bench/krige.sh does, then
# 1. a 60 x 60 window (3600 samples) refined to 30 m (180 x 180 nodes):
#    both, CPU time (user + sys) of the whole trv-krige run and of gstat's
#    krige() call alone;
# 2. the whole DEM refined to 30 m (about 1.1 million nodes): trv-krige;
#    gstat within TRV_GSTAT_MAX seconds (default 600) or reported as not
#    finishing / failing.
# The model: trv-krige's choice on the window (its krige.json), given to both.
# Environment: TRV_BIN (bin), TRV_GSTAT (0: leave gstat out), TRV_GSTAT_MAX.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
BIN=${TRV_BIN:-$root/bin}
GSTAT_MAX=${TRV_GSTAT_MAX:-600}
dem=${1:-$root/data/jacksboro/dem_3arcsec.tif}
w=$(mktemp -d /tmp/trv-krige-sim-bench-XXXXXX)
trap 'rm -rf "$w"' EXIT
cpu() { awk '{printf "%.2f", $1 + $2}' "$w/t"; } # user + sys of the last timed run

gdalwarp -q -t_srs EPSG:32616 -tr 90 90 -tap -r bilinear -ot Float32 -dstnodata -32768 "$dem" "$w/dem90.tif"
gdal_translate -q -srcwin 140 150 60 60 "$w/dem90.tif" "$w/w90.tif"
"$BIN/trv-krige" -q "$w/w90.tif" --tr 30 --seed 1 -o "$w/auto.tif"
model=$(python3 -c "import json,sys; m=json.load(open(sys.argv[1]))['model']; print(m['type'], m['nugget'], m['psill'], m['range'], m.get('kappa', 0.5))" "$w/krige.json")
set -- $model
echo "model (trv-krige's choice on the window): $*; uptime: $(uptime | sed 's/.*load/load/')"
fixed="--model $(echo "$1" | tr 'A-Z' 'a-z') --nugget $2 --psill $3 --range $4"
[ "$1" = Mat ] && fixed="$fixed --kappa $5"
cat >"$w/gsim.R" <<'EOR'
args <- commandArgs(TRUE)
suppressPackageStartupMessages({library(sp); library(gstat)})
s <- read.table(args[1], col.names = c("x", "y", "z"))
coordinates(s) <- ~x + y
o <- as.numeric(args[2:6])
tg <- expand.grid(x = o[1] + (seq_len(o[4]) - 0.5) * o[3], y = o[2] - (seq_len(o[5]) - 0.5) * o[3])
coordinates(tg) <- ~x + y
m <- vgm(as.numeric(args[8]), args[7], as.numeric(args[9]), as.numeric(args[10]), kappa = as.numeric(args[11]))
set.seed(1)
t0 <- proc.time()
p <- krige(z ~ 1, s, tg, model = m, nmax = 16, nsim = as.integer(args[12]), debug.level = 0)
t1 <- proc.time() - t0
cat(sprintf("%.2f\n", t1[["user.self"]] + t1[["sys.self"]]))
EOR
gstat_ok=0
[ "${TRV_GSTAT:-1}" != 0 ] && Rscript -e 'suppressPackageStartupMessages(library(gstat))' >/dev/null 2>&1 && gstat_ok=1
echo "| job | trv-krige --nsim 100 (s CPU) | gstat krige(nsim = 100, nmax = 16) (s CPU) | ratio |"
echo "|---|---|---|---|"
for job in window full; do
    if [ $job = window ]; then in=$w/w90.tif; else in=$w/dem90.tif; fi
    # shellcheck disable=SC2086 # fixed is a list of options
    /usr/bin/time -f "%U %S" -o "$w/t" "$BIN/trv-krige" -q "$in" --tr 30 --seed 1 --threads 1 $fixed --nmax 16 --nsim 100 -o "$w/k_$job.tif"
    ours=$(cpu)
    g=$(gdalinfo "$w/k_$job.tif" | awk '/^Size is/{gsub(/,/,""); nx=$3; ny=$4} /^Origin =/{gsub(/[(),]/," "); x=$3; y=$4} END{print x, y, 30, nx, ny}')
    theirs="not run"
    ratio=""
    if [ $gstat_ok = 1 ]; then
        gdal_translate -q -of XYZ "$in" "$w/xyz.txt"
        awk '$3 + 0 != -32768' "$w/xyz.txt" >"$w/s.xyz"
        # shellcheck disable=SC2046,SC2086
        if timeout "$GSTAT_MAX" Rscript "$w/gsim.R" "$w/s.xyz" $g "$1" "$3" "$4" "$2" "$5" 100 >"$w/g.out" 2>"$w/g.err"; then
            theirs=$(cat "$w/g.out")
            ratio=$(echo "$theirs $ours" | awk '{printf "%.1fx", $1 / $2}')
        elif [ $? = 124 ]; then
            theirs="> $GSTAT_MAX (stopped)"
        else
            theirs="failed ($(grep -m1 -o 'out of dynamic memory' "$w/g.err" || echo "an error"))"
        fi
    fi
    echo "| $job ($(echo "$g" | awk '{print $4 " x " $5}') nodes) | $ours | $theirs | $ratio |"
done
echo "goal: >= 30x faster than gstat"
