#!/bin/sh
# make bench, simulator part: trv-sim's real-time factor (simulated time /
# wall time, the run loop only: trv-sim reports it without the terrain
# loading) on the demo terrain (out/jacksboro, made by `make demo`) along
# the demo's MMCR route, with the UGV:
#   1. one vehicle, GNSS + IMU, no LiDAR (goal >= 1000x), the whole route
#   2. one vehicle with a 16-line 3D LiDAR at 10 Hz, 360 x 30 degrees,
#      0.4 degree steps (14 400 rays a scan; goal >= 50x), 600 s simulated
#   3. ten vehicles on the route, 20 s apart, no LiDAR (they yield to the
#      one ahead), 1200 s simulated
#   4. wall time per re-plan: data/scenarios/blocked.ini cut at 1000 s (the
#      first obstacle appears on the route and is driven around)
#   5. the demo's blocked scenario whole (make demo's sim_blocked: the same
#      command), the process's wall time with the terrain's loading (goal
#      < 30 s)
#   6. the LiDAR's rays alone (bench/bench_lidar.c): row 5's drive replayed
#      scan by scan, the plain march against the max-height pyramid, CPU
#      time per ray, every range the same bit for bit
# Rows 2 and 5 also give the process's CPU time (user + sys, one more run),
# the figure that holds on a machine shared with other work. Rows 2 and 5
# run once per thread count of THREADS (trv-sim --threads: the LiDAR's
# rays on the run's pool), each with its CPU time, then the speed-up of
# the last count over the first (wall, of the run loop for row 2 and the
# whole process for row 5) and its parallel efficiency (speed-up / ratio
# of thread counts); the outputs of every count are compared (cmp).
# Environment: TRV_BIN (tools, default bin), TRV_OUT (terrain, default
# out/jacksboro), REPS (default 1), THREADS (default "1 2"), LIDAR_ONLY=1
# (rows 2 and 5 only: the threads' measurement).
set -eu
BIN=${TRV_BIN:-bin}
OUT=${TRV_OUT:-out/jacksboro}
REPS=${REPS:-1}
THREADS=${THREADS:-1 2}
LIDAR_ONLY=${LIDAR_ONLY:-0}
here=$(cd "$(dirname "$0")/.." && pwd)
w=$(mktemp -d /tmp/trv-sim-bench-XXXXXX)
trap 'rm -rf "$w"' EXIT
die() { echo "sim.sh: $*" >&2; exit 1; }
. "$(dirname "$0")/lib.sh"
[ -f "$OUT/route.csv" ] || die "no $OUT/route.csv: run make demo first"
[ -x "$BIN/trv-sim" ] || die "no $BIN/trv-sim: run make first"
machine_line
UGV=$here/data/vehicles/ugv_hua2022.ini
scn_head() { # time limit
    printf '[scenario]\nstep_s = 0.02\ntime_limit_s = %s\nrecord_s = 1\ngoal_tolerance_m = 3\n' "$1"
}
veh() { # id start_time
    printf '[vehicle.%s]\nfile = %s\nmodel = ackermann\nroute_name = mmcr\nstart_time_s = %s\n' "$1" "$UGV" "$2"
    printf '[gnss.%s]\nnoise_m = 0.05\n[imu.%s]\nnoise_deg = 0.1\n' "$1" "$1"
}
{ scn_head 7200; veh ugv 0; } >"$w/one.ini"
{ scn_head 600; veh ugv 0; printf '[lidar3d.ugv]\nrate_hz = 10\nlines = 16\nvfov_deg = 30\nhfov_deg = 360\nhres_deg = 0.4\nrange_m = 100\nmount_h_m = 1.8\n'; } >"$w/lidar.ini"
{ scn_head 1200; for k in 0 1 2 3 4 5 6 7 8 9; do veh "v$k" $((20 * k)); done; } >"$w/ten.ini"
sed -e 's/^time_limit_s = .*/time_limit_s = 1000/' -e "s|^obstacles = .*|obstacles = $here/data/scenarios/blocked_obstacles.geojson|" \
    -e "s|^file = .*|file = $UGV|" "$here/data/scenarios/blocked.ini" >"$w/blocked.ini"

cpu() { # command: prints its CPU time (user + sys) of one run
    /usr/bin/time -f "%U %S" -o "$w/cpu" "$@" >/dev/null 2>&1 || die "failed: $*"
    awk '{printf "  process CPU time (user + sys): %.2f s\n", $1 + $2}' "$w/cpu"
}
rtf() { # tag label scenario [options]: prints "label: sim s, wall s, factor"
    tag=$1 label=$2 scn=$3
    shift 3
    best "$BIN/trv-sim" --terrain "$OUT" --scenario "$scn" --route "$OUT/route.csv" -o "$w/o_$tag" "$@" >/dev/null
    line=$(grep '^simulated' "$w/best.out")
    sim=$(echo "$line" | awk '{print $2}') wall=$(echo "$line" | awk '{print $5}') f=$(echo "$line" | awk '{print $8}')
    printf '%-34s %9s s simulated in %8s s wall: %8s real time\n' "$label" "$sim" "$wall" "$f"
}
speedup() { # label wall_first wall_last threads_first threads_last
    echo "$2 $3 $4 $5" | awk -v l="$1" '{s = $1 / $2; printf "  %s: %s threads against %s: wall %.2f s against %.2f s, speed-up %.2f, parallel efficiency %.0f %%\n", l, $4, $3, $2, $1, s, 100 * s / ($4 / $3)}'
}
same_outputs() { # dir_a dir_b label: every file the same (metrics.json but its command line and timing)
    for f in "$1"/*; do
        nm=$(basename "$f")
        if [ "$nm" = metrics.json ]; then
            grep -v -e '"args"' -e '"wall_time_s"' -e '"realtime_factor"' "$f" >"$w/ma"
            grep -v -e '"args"' -e '"wall_time_s"' -e '"realtime_factor"' "$2/$nm" >"$w/mb"
            cmp -s "$w/ma" "$w/mb" || die "$3: metrics.json differs"
        else
            cmp -s "$f" "$2/$nm" || die "$3: $nm differs"
        fi
    done
    echo "  $3: every output the same bytes"
}
lidar_rows() { # row 2 for each thread count of THREADS
    first="" wfirst=""
    for n in $THREADS; do
        rtf "lidar_$n" "one vehicle, 16-line LiDAR, --threads $n" "$w/lidar.ini" --threads "$n"
        cpu "$BIN/trv-sim" --terrain "$OUT" --scenario "$w/lidar.ini" --route "$OUT/route.csv" -o "$w/o_lidar_c$n" \
            --threads "$n"
        [ -n "$first" ] || { first=$n wfirst=$wall; }
        [ "$n" = "$first" ] || same_outputs "$w/o_lidar_$first" "$w/o_lidar_$n" "row 2, --threads $n against $first"
    done
    [ "$n" = "$first" ] || speedup "row 2 (run loop)" "$wfirst" "$wall" "$first" "$n"
}
blocked_rows() { # row 5 for each thread count of THREADS
    first="" wfirst=""
    for n in $THREADS; do
        b=$(best "$BIN/trv-sim" --terrain "$OUT" --scenario "$here/data/scenarios/blocked.ini" --route "$OUT/route.csv" \
            --seed 1 --no-timing --threads "$n" -o "$w/o_demo_blk_$n")
        sim=$(grep '^simulated' "$w/best.out" | awk '{print $2}')
        printf '%-34s %9s s simulated in %8s s wall (whole process, %s kB)\n' "demo blocked, --threads $n" "$sim" \
            "${b% *}" "${b#* }"
        cpu "$BIN/trv-sim" --terrain "$OUT" --scenario "$here/data/scenarios/blocked.ini" --route "$OUT/route.csv" \
            --seed 1 --no-timing --threads "$n" -o "$w/o_demo_blk_c$n"
        [ -n "$first" ] || { first=$n wfirst=${b% *}; }
        [ "$n" = "$first" ] || same_outputs "$w/o_demo_blk_$first" "$w/o_demo_blk_$n" "row 5, --threads $n against $first"
    done
    [ "$n" = "$first" ] || speedup "row 5 (whole process)" "$wfirst" "${b% *}" "$first" "$n"
    rm -rf "$w/o_demo_blk"
    cp -r "$w/o_demo_blk_$first" "$w/o_demo_blk"
}
if [ "$LIDAR_ONLY" = 1 ]; then
    echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
    lidar_rows
    blocked_rows
    echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
    exit 0
fi
rtf one "one vehicle, no LiDAR" "$w/one.ini"
awk -F': ' '/"reached_goal"/ {g = $2} /"time_s"/ && !t {t = $2} /"planned_time_s"/ {p = $2} /"cross_track_rms_m"/ {x = $2}
    END {printf "  demo route: reached_goal %s time %.1f s, planned %.1f s (%+.1f %%), cross-track RMS %.3f m\n", g, t, p, 100 * (t / p - 1), x}' \
    "$w/o_one/metrics.json"
lidar_rows
rtf ten "ten vehicles, no LiDAR" "$w/ten.ini"
best "$BIN/trv-sim" --terrain "$OUT" --scenario "$w/blocked.ini" --route "$OUT/route.csv" -o "$w/o_blk" >/dev/null
grep 're-plans' "$w/best.out" | sed 's/^/re-planning (blocked.ini, 1000 s): /' || echo "re-planning: none happened"
grep '"type": "replan"' "$w/o_blk/events.jsonl" | sed 's/^/  /'
blocked_rows
LIB=${TRV_LIB:-$(dirname "$BIN")/lib/libtraverse.a}
# shellcheck disable=SC2046 # pkg-config's flags are split on purpose
${CC:-cc} -std=c11 -O2 -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes -Wno-missing-field-initializers \
    -D_DEFAULT_SOURCE -pthread -I"$here/src" $(pkg-config --cflags gdal proj) "$here/bench/bench_lidar.c" "$LIB" \
    -o "$w/bench_lidar" $(pkg-config --libs gdal libtiff-4 proj lapacke openblas libpng freetype2 json-c libwebsockets ode) \
    -lglpk -lm -pthread || die "cannot build bench/bench_lidar.c"
"$w/bench_lidar" "$OUT/dem.tif" "$w/o_demo_blk/trajectory_ugv.csv"
