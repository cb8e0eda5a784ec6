#!/bin/sh
# make bench, simulator server part: trv-sim --serve on the demo terrain
# (out/jacksboro, made by `make demo`) along the demo's MMCR route, the UGV,
# driven by the C client examples/sim_client (bench mode: one step per
# request, the vehicle driving straight on), on loopback:
#   1. one vehicle, no LiDAR: the round trip of a one-step request (goal
#      median < 100 us) and steps per second (goal >= 10 000 x 20 ms steps)
#   2. one vehicle with a 16-line 3D LiDAR at 10 Hz (360 x 30 degrees, 1
#      degree steps: 5 760 rays) and a scan requested every 5th step (each
#      new scan: 23 kB of float32 ranges, base64)
# and the CPU time (user + sys) of the server and of the client.
# Environment: TRV_BIN (tools, default bin), TRV_EXAMPLES (default
# build/rel/examples), TRV_OUT (terrain, default out/jacksboro), STEPS
# (default 20000).
set -eu
BIN=${TRV_BIN:-bin}
EX=${TRV_EXAMPLES:-build/rel/examples}
OUT=${TRV_OUT:-out/jacksboro}
STEPS=${STEPS:-20000}
here=$(cd "$(dirname "$0")/.." && pwd)
w=$(mktemp -d /tmp/trv-sim-server-bench-XXXXXX)
trap 'rm -rf "$w"' EXIT
die() { echo "sim_server.sh: $*" >&2; exit 1; }
. "$(dirname "$0")/lib.sh"
[ -f "$OUT/route.csv" ] || die "no $OUT/route.csv: run make demo first"
[ -x "$BIN/trv-sim" ] && [ -x "$EX/sim_client" ] || die "no $BIN/trv-sim or $EX/sim_client: run make first"
machine_line
echo "load: $(uptime | sed 's/.*load average/load average/')"
UGV=$here/data/vehicles/ugv_hua2022.ini
printf '[scenario]\nstep_s = 0.02\ntime_limit_s = 7200\nrecord_s = 1\n[vehicle.ugv]\nfile = %s\nmodel = ackermann\nroute_name = mmcr\n' \
    "$UGV" >"$w/one.ini"
{ cat "$w/one.ini"; printf '[lidar3d.ugv]\nrate_hz = 10\nlines = 16\nvfov_deg = 30\nhfov_deg = 360\nhres_deg = 1\nrange_m = 100\nmount_h_m = 1.8\n'; } >"$w/lidar.ini"

serve() { # label scenario [scan_every]
    rm -f "$w/err"
    /usr/bin/time -f "%U %S" -o "$w/srv_time" "$BIN/trv-sim" --terrain "$OUT" --scenario "$2" --route "$OUT/route.csv" \
        -o "$w/o" -q --no-timing --serve 0 2>"$w/err" &
    pid=$!
    port=
    for i in $(seq 600); do
        port=$(sed -n 's/^trv-sim: listening on .*:\([0-9]*\)$/\1/p' "$w/err")
        [ -n "$port" ] && break
        sleep 0.1
    done
    [ -n "$port" ] || die "the server did not start: $(cat "$w/err")"
    /usr/bin/time -f "%U %S" -o "$w/cl_time" "$EX/sim_client" "$port" bench "$STEPS" ${3:-} >"$w/cl_out"
    wait $pid || die "the server failed: $(cat "$w/err")"
    printf '%-30s %s\n' "$1" "$(cat "$w/cl_out")"
    printf '%-30s server CPU %s s (user + sys, with the terrain loading), client CPU %s s\n' "" \
        "$(awk '{print $1 + $2}' "$w/srv_time")" "$(awk '{print $1 + $2}' "$w/cl_time")"
}
serve "one vehicle, no LiDAR" "$w/one.ini"
serve "16-line LiDAR, scan every 5th" "$w/lidar.ini" 5
