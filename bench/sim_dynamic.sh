#!/bin/sh
# make bench, the dynamic model (dynamics = dynamic, docs/method.md 5.11) on
# the demo terrain (out/jacksboro, made by `make demo`) along the demo's
# MMCR route, with the UGV, no LiDAR:
#   1. real-time factor, one vehicle (goal >= 100x), the whole route or
#      until it ends
#   2. real-time factor, four vehicles 20 s apart, 600 s simulated
#   3. the route driven kinematic and dynamic side by side: how it ended,
#      time, distance, cross-track RMS and largest, slip, largest roll,
#      rollover margin
# The factor is trv-sim's (simulated time / the run loop's wall time);
# CPU time (user + sys) of the whole process beside it.
# Environment: TRV_BIN (tools, default bin), TRV_OUT (terrain, default
# out/jacksboro), REPS (default 1).
set -eu
BIN=${TRV_BIN:-bin}
OUT=${TRV_OUT:-out/jacksboro}
REPS=${REPS:-1}
here=$(cd "$(dirname "$0")/.." && pwd)
w=$(mktemp -d /tmp/trv-simdyn-bench-XXXXXX)
trap 'rm -rf "$w"' EXIT
die() { echo "sim_dynamic.sh: $*" >&2; exit 1; }
. "$(dirname "$0")/lib.sh"
[ -f "$OUT/route.csv" ] || die "no $OUT/route.csv: run make demo first"
[ -x "$BIN/trv-sim" ] || die "no $BIN/trv-sim: run make first"
machine_line
echo "load: $(cut -d' ' -f1-3 /proc/loadavg)"
UGV=$here/data/vehicles/ugv_hua2022.ini
scn_head() { # time limit, dynamics
    printf '[scenario]\nstep_s = 0.02\ntime_limit_s = %s\nrecord_s = 1\ngoal_tolerance_m = 3\ndynamics = %s\n' "$1" "$2"
}
veh() { # id start_time
    printf '[vehicle.%s]\nfile = %s\nmodel = ackermann\nroute_name = mmcr\nstart_time_s = %s\n' "$1" "$UGV" "$2"
    printf '[gnss.%s]\nnoise_m = 0.05\n[imu.%s]\nnoise_deg = 0.1\n' "$1" "$1"
}
{ scn_head 7200 kinematic; veh ugv 0; } >"$w/kin.ini"
{ scn_head 7200 dynamic; veh ugv 0; } >"$w/dyn.ini"
{ scn_head 600 dynamic; for k in 0 1 2 3; do veh "v$k" $((20 * k)); done; } >"$w/four.ini"

rtf() { # tag label scenario: prints "label: sim s, wall s, factor, cpu s"
    /usr/bin/time -f "%U %S" -o "$w/cpu" "$BIN/trv-sim" --terrain "$OUT" --scenario "$3" --route "$OUT/route.csv" \
        -o "$w/o_$1" >"$w/run.out" 2>&1 || { cat "$w/run.out" >&2; die "trv-sim failed"; }
    line=$(grep '^simulated' "$w/run.out")
    sim=$(echo "$line" | awk '{print $2}') wall=$(echo "$line" | awk '{print $5}') f=$(echo "$line" | awk '{print $8}')
    cpu=$(awk '{printf "%.2f", $1 + $2}' "$w/cpu")
    printf '%-30s %9s s simulated in %8s s wall: %8s real time (process CPU %s s)\n' "$2" "$sim" "$wall" "$f" "$cpu"
}
rtf kin "one vehicle, kinematic" "$w/kin.ini"
rtf dyn "one vehicle, dynamic" "$w/dyn.ini"
rtf four "four vehicles, dynamic" "$w/four.ini"
echo "the demo route, kinematic and dynamic:"
echo "| model | end | time s | distance m | cross-track RMS m | max m | slip mean | slip max | max roll deg | rollover margin deg |"
echo "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"
for m in kin dyn; do
    awk -F': ' -v m="$m" '{gsub(/[",]/, "", $2)} /"end"/ {e = $2} /"time_s"/ && !t {t = $2} /"distance_m"/ && !d {d = $2}
        /"cross_track_rms_m"/ {x = $2} /"cross_track_max_m"/ {xm = $2} /"slip_mean"/ {s = $2} /"slip_max"/ {sm = $2}
        /"roll_max_deg"/ {r = $2} /"rollover_margin_deg"/ {g = $2}
        END {printf "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", m == "kin" ? "kinematic" : "dynamic", e, t, d, x, xm,
             s == "" ? "-" : s, sm == "" ? "-" : sm, r == "" ? "-" : r, g == "" ? "-" : g}' "$w/o_$m/metrics.json"
done
grep '"rollover"' "$w/o_dyn/events.jsonl" | sed 's/^/  /' || true
