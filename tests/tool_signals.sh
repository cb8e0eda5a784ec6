#!/bin/sh
# A tool stopped by SIGTERM, SIGINT or SIGHUP (what QGIS's Cancel, a job
# scheduler or Ctrl-C send) ends through its error path: exit 1, a message
# naming the signal, and no output and no temporary left. Tried on a long
# kriging (quiet and with progress) and on a simulation paced to the wall
# clock (--realtime). Ends with "N passed, N failed, N skipped".
set -u
BIN=${TRV_BIN:-bin}
DATA=${TRV_DATADIR:-data}
tmp=$(mktemp -d /tmp/trv-signals-test-XXXXXX)
trap 'rm -rf "$tmp"' EXIT
. "$(dirname "$0")/lib.sh"

# stopped SIGNAL WHEN OUTDIR -- command...: start it, send the signal when
# its progress on stderr shows WHEN (a stage's label; a number: after that
# many seconds), and require exit 1, the message and an empty OUTDIR
stopped() {
    sig=$1 when=$2 dir=$3
    shift 4
    rm -rf "$dir" && mkdir -p "$dir"
    "$@" >"$tmp/stdout" 2>"$tmp/stderr" &
    pid=$!
    case "$when" in
    [0-9]*) sleep "$when" ;;
    *) n=0
       while [ $n -lt 600 ] && kill -0 "$pid" 2>/dev/null && ! grep -q "$when" "$tmp/stderr"; do sleep 0.05; n=$((n + 1)); done
       sleep 0.2 ;;
    esac
    if ! kill -0 "$pid" 2>/dev/null; then
        wait "$pid"
        bad "$* ended (exit $?) before SIG$sig was sent: the job is too short to test"
        return
    fi
    kill -s "$sig" "$pid"
    wait "$pid"
    got=$?
    [ "$got" = 1 ] && ok || bad "SIG$sig: exit $got, want 1 ($(cat "$tmp/stderr"))"
    grep -q "interrupted by signal [0-9]* (" "$tmp/stderr" && ok || bad "SIG$sig: no message naming the signal: $(tail -c 300 "$tmp/stderr")"
    left=$(find "$dir" -mindepth 1 | head -5)
    [ -z "$left" ] && ok || bad "SIG$sig left: $left"
}

# a kriging of the whole Jacksboro DEM onto a 10 m grid (seconds of work)
K="$BIN/trv-krige $DATA/jacksboro/dem_3arcsec.tif --tr 10"
stopped TERM 1 "$tmp/k" -- $K -o "$tmp/k/dem.tif" --std "$tmp/k/std.tif" -q
# in the model fit (one thread) and in the kriging proper (worker threads)
stopped INT "fit: " "$tmp/k" -- $K -o "$tmp/k/dem.tif" --variogram "$tmp/k/v.csv"
stopped HUP "krige: " "$tmp/k" -- $K -o "$tmp/k/dem.tif"

# a drive paced to the wall clock on a flat 1 km square (GO at 20 km/h)
T=$tmp/t
mkdir -p "$T"
grid() { # name value type
    awk -v v="$2" 'BEGIN { print "ncols 100"; print "nrows 100"; print "xllcorner 500000"; print "yllcorner 4000000";
        print "cellsize 10"; for (r = 0; r < 100; r++) { l = ""; for (c = 0; c < 100; c++) l = l " " v; print l } }' >"$tmp/$1.asc"
    gdal_translate -q -a_srs EPSG:32616 -ot "$3" "$tmp/$1.asc" "$T/$1.tif"
}
grid class 3 Byte && grid gonogo 0 Byte && grid cost 0.2 Float32 && grid dem 100 Float32 && grid slope 0 Float32 &&
    grid speed 20 Float32 || { echo "cannot make the terrain"; exit 1; }
cat >"$tmp/drive.ini" <<EOS
[scenario]
time_limit_s = 400

[vehicle.ugv]
file = $(cd "$DATA/vehicles" && pwd)/ugv_hua2022.ini
model = ackermann
start = 500105,4000505
goal = 500895,4000505
srs = map
EOS
stopped TERM 1 "$tmp/s" -- "$BIN/trv-sim" --terrain "$T" --scenario "$tmp/drive.ini" -o "$tmp/s/run" --realtime
# the same drive unpaced finishes: the stop above was the signal's doing
"$BIN/trv-sim" --terrain "$T" --scenario "$tmp/drive.ini" -o "$tmp/s/run" -q && [ -f "$tmp/s/run/metrics.json" ] && ok ||
    bad "the drive does not run without the signal"

summary tool_signals
