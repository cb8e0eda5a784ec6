#!/bin/sh
# trv-sim --serve (docs/sim-protocol.md) on a small synthetic terrain (100 x
# 100 cells of 10 m, UTM 16N, a plane rising 0.01 m per column, all GO at
# 20 km/h), driven by tests/sim_server_check.py with the client module
# tools/trv_sim_client.py:
# - a client drives an Ackermann vehicle (steer) and a skid-steer one
#   (wheel speeds) around squares by command and step to the time limit;
#   the batch replay of the commands it sent (--commands) writes the same
#   trajectories, events and metrics, byte for byte (metrics but for args),
#   and so does the replay of the server's own log (OUTDIR/commands.csv);
#   a path sent twice at one step is logged once (the second);
# - malformed, unknown, wrong-vehicle, out-of-range, wrong-type and
#   too-long requests each get their named error and the session goes on;
# - a second client is refused ("busy": one client at a time);
# - a scan's ranges, cast from the pose and geometry the reply gives, end
#   on the plane (z within 1 mm; noise 0), and every ray aimed at the plane
#   within 0.9 x range returns;
# - a plan reaches the point asked; events since a cursor;
# - a client that disconnects mid-run leaves complete outputs (a "closed"
#   event, end "closed" in metrics.json, the trajectory up to then);
# - SIGTERM while waiting for a client or with one connected: exit 1,
#   "interrupted by signal", no outputs (as a batch run interrupted);
# - usage errors (exit 2): a bad --serve address, --serve with --commands;
#   a commands file with an unknown vehicle or an out-of-range value (exit 1).
# The C client example (examples/sim_client.c) drives the same server.
# Ends with "N passed, N failed, N skipped".
set -u
BIN=${TRV_BIN:-bin}
DATA=${TRV_DATADIR:-data}
SIM=$BIN/trv-sim
HERE=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d /tmp/trv-sim-server-XXXXXX)
trap 'rm -rf "$tmp"' EXIT
. "$HERE/lib.sh"

if ! command -v python3 >/dev/null; then
    skip "python3 is missing: the server tests need the Python client"
    summary tool_sim_server
    exit
fi

# ---- the terrain: a plane, GO everywhere ----
T=$tmp/t
plane_terrain "$T" "$tmp" || { echo "cannot make the terrain"; exit 1; }

UGV=$(cd "$DATA/vehicles" && pwd)/ugv_hua2022.ini
TRACKED=$(cd "$DATA/vehicles" && pwd)/tracked_carrier.ini
cat >"$tmp/sq.ini" <<EOS
[scenario]
time_limit_s = 60
record_s = 0.2

[vehicle.ugv]
file = $UGV
model = ackermann
start = 500205,4000505
goal = 500905,4000905
srs = map

[lidar3d.ugv]
lines = 8
hres_deg = 2
range_m = 40
noise_m = 0
mount_h_m = 1.5

[vehicle.skid]
file = $TRACKED
model = skid
start = 500205,4000205
goal = 500905,4000105
srs = map
EOS

# ---- the square, the errors, the second client, the scan, the plan ----
python3 "$HERE/sim_server_check.py" square "$SIM" "$T" "$tmp/sq.ini" "$tmp/s1" "$tmp/cmds.csv" >"$tmp/log" 2>&1
grep -q '^PASS server exit$' "$tmp/log" || bad "the square session: $(tail -5 "$tmp/log")"
while read -r word rest; do
    case $word in PASS) ok ;; FAIL) bad "$rest" ;; *) bad "square: $word $rest" ;; esac
done <"$tmp/log"

# every error of docs/bad-inputs.md's server row was asked for and answered
for name in malformed unknown_message unknown_vehicle out_of_range bad_type too_long; do
    grep -q "^PASS error .* ($name)\$" "$tmp/log" && ok || bad "no passed check of the error $name"
done

# ---- the batch replay of the commands: the same bytes ----
if "$SIM" --terrain "$T" --scenario "$tmp/sq.ini" -o "$tmp/b1" --no-timing -q --commands "$tmp/cmds.csv" \
    2>"$tmp/err"; then ok; else bad "batch replay: $(cat "$tmp/err")"; fi
[ "$(wc -l <"$tmp/cmds.csv")" -gt 20 ] && ok || bad "few commands logged: $(cat "$tmp/cmds.csv")"
for f in trajectory_ugv.csv trajectory_skid.csv trajectory_ugv.geojson trajectory_skid.geojson events.jsonl; do
    cmp -s "$tmp/s1/$f" "$tmp/b1/$f" && ok || bad "server and batch replay differ in $f"
done
sed '/"args":/d' "$tmp/s1/metrics.json" >"$tmp/m1"
sed '/"args":/d' "$tmp/b1/metrics.json" >"$tmp/m2"
cmp -s "$tmp/m1" "$tmp/m2" && ok || bad "server and batch replay differ in metrics.json: $(diff "$tmp/m1" "$tmp/m2" | head -5)"
# it went round: the ugv's trajectory spans a square of some 20 m a side and
# comes back near its start (an independent check on the CSV, not the server)
awk -F, 'NR > 1 && $1 <= 46 {if (!n++) {x0 = $2; y0 = $3}; if ($2 < a || !a) a = $2; if ($2 > b) b = $2;
    if ($3 < c || !c) c = $3; if ($3 > d) d = $3; x = $2; y = $3}
    END {exit !(b - a > 15 && d - c > 15 && sqrt((x - x0)^2 + (y - y0)^2) < 0.5 * (b - a))}' "$tmp/s1/trajectory_ugv.csv" &&
    ok || bad "the ugv did not drive a square: $(sed -n '2p;$p' "$tmp/s1/trajectory_ugv.csv")"
# the server's own log of the commands (commands.csv) replays the same way
if "$SIM" --terrain "$T" --scenario "$tmp/sq.ini" -o "$tmp/b3" --no-timing -q --commands "$tmp/s1/commands.csv" \
    2>"$tmp/err"; then ok; else bad "batch replay of commands.csv: $(cat "$tmp/err")"; fi
for f in trajectory_ugv.csv trajectory_skid.csv events.jsonl; do
    cmp -s "$tmp/s1/$f" "$tmp/b3/$f" && ok || bad "server and the replay of its commands.csv differ in $f"
done
[ "$(grep -c ',follow,' "$tmp/s1/commands.csv")" = 3 ] && ok || bad "the follow rows of commands.csv: $(cat "$tmp/s1/commands.csv")"
# without the commands, the batch run follows its plans: other trajectories
"$SIM" --terrain "$T" --scenario "$tmp/sq.ini" -o "$tmp/b2" --no-timing -q 2>"$tmp/err" || bad "plain run: $(cat "$tmp/err")"
cmp -s "$tmp/s1/trajectory_ugv.csv" "$tmp/b2/trajectory_ugv.csv" && bad "the commands changed nothing" || ok

# ---- a client that disconnects mid-run ----
python3 "$HERE/sim_server_check.py" disconnect "$SIM" "$T" "$tmp/sq.ini" "$tmp/s2" >"$tmp/log" 2>&1
while read -r word rest; do
    case $word in PASS) ok ;; FAIL) bad "$rest" ;; *) bad "disconnect: $word $rest" ;; esac
done <"$tmp/log"
for f in trajectory_ugv.csv trajectory_skid.csv events.jsonl metrics.json commands.csv obstacles.geojson; do
    case $f in obstacles.geojson) [ ! -e "$tmp/s2/$f" ] && ok || bad "obstacles.geojson without obstacles" ;;
    *) [ -s "$tmp/s2/$f" ] && ok || bad "no $f after a disconnect" ;; esac
done
[ "$(grep -c '"type": "closed"' "$tmp/s2/events.jsonl")" = 2 ] && ok || bad "closed events: $(cat "$tmp/s2/events.jsonl")"
grep -q '"end": "closed"' "$tmp/s2/metrics.json" && ok || bad "metrics end: $(cat "$tmp/s2/metrics.json")"
tail -1 "$tmp/s2/trajectory_ugv.csv" | grep -q '^10.000,' && ok || bad "trajectory end: $(tail -1 "$tmp/s2/trajectory_ugv.csv")"
python3 -c "import json,sys; json.load(open(sys.argv[1]))" "$tmp/s2/metrics.json" && ok || bad "metrics.json is not JSON"

# ---- the C client example: a square, then close ----
EXC=${TRV_EXAMPLES:-build/rel/examples}/sim_client
if [ -x "$EXC" ]; then
    "$SIM" --terrain "$T" --scenario "$tmp/sq.ini" -o "$tmp/s3" --no-timing -q --serve 0 2>"$tmp/err3" &
    spid=$!
    port=
    for i in $(seq 100); do
        port=$(sed -n 's/^trv-sim: listening on .*:\([0-9]*\)$/\1/p' "$tmp/err3")
        [ -n "$port" ] && break
        sleep 0.1
    done
    if "$EXC" "$port" >"$tmp/c.out" 2>&1; then ok; else bad "the C example: $(cat "$tmp/c.out")"; fi
    wait $spid && ok || bad "the server after the C example: $(cat "$tmp/err3")"
    [ "$(grep -c '^t ' "$tmp/c.out")" = 4 ] && ok || bad "the C example's states: $(cat "$tmp/c.out")"
    # four quarter turns timed from the commanded yaw rate (the steering
    # lags): back near its start (5 m), heading as it started (20 degrees)
    awk -F, 'NR == 2 {x0 = $2; y0 = $3; h0 = $5} NR > 2 {x = $2; y = $3; h = $5}
        END {d = (h - h0) % 360; if (d < 0) d += 360; exit !(sqrt((x - x0)^2 + (y - y0)^2) < 5 && (d < 20 || d > 340))}' \
        "$tmp/s3/trajectory_ugv.csv" && ok || bad "the C example's square: $(sed -n '2p;$p' "$tmp/s3/trajectory_ugv.csv")"
else
    skip "no $EXC (make builds it)"
fi

# ---- a stop signal: waiting for a client, and with one connected ----
wait_port() { # stderr-file: the port, once listening
    for i in $(seq 100); do
        sed -n 's/^trv-sim: listening on .*:\([0-9]*\)$/\1/p' "$1" | grep . && return
        sleep 0.1
    done
}
for case in waiting connected; do
    rm -rf "$tmp/s4"
    "$SIM" --terrain "$T" --scenario "$tmp/sq.ini" -o "$tmp/s4" -q --serve 0 2>"$tmp/err4" &
    spid=$!
    port=$(wait_port "$tmp/err4")
    if [ $case = connected ]; then
        python3 -c "import socket, sys, time; s = socket.create_connection(('127.0.0.1', int(sys.argv[1])));
s.sendall(b'{\"type\": \"step\", \"n\": 10}\n'); s.recv(999); time.sleep(3)" "$port" &
        cpid=$!
        sleep 1
    fi
    kill -TERM $spid
    wait $spid
    got=$?
    [ $case = connected ] && wait $cpid
    [ $got = 1 ] && grep -q 'interrupted by signal' "$tmp/err4" && [ ! -e "$tmp/s4" ] && ok ||
        bad "SIGTERM $case: exit $got, $(cat "$tmp/err4"), $(ls "$tmp/s4" 2>&1)"
done

# ---- usage and file errors ----
expect_status() { # status message command...
    want=$1 msg=$2
    shift 2
    "$@" >"$tmp/out" 2>"$tmp/err"
    got=$?
    [ "$got" = "$want" ] && grep -qF -- "$msg" "$tmp/err" && ok || bad "$* -> exit $got ($(cat "$tmp/err")), want $want '$msg'"
}
expect_status 2 "not an IPv4 address" "$SIM" --terrain "$T" --scenario "$tmp/sq.ini" -o "$tmp/x" --serve nohost:5
expect_status 2 "the port must be" "$SIM" --terrain "$T" --scenario "$tmp/sq.ini" -o "$tmp/x" --serve 99999
expect_status 2 "exclude each other" "$SIM" --terrain "$T" --scenario "$tmp/sq.ini" -o "$tmp/x" --serve 0 \
    --commands "$tmp/cmds.csv"
printf 'step,vehicle,command,a,b\n0,nobody,drive,1,0\n' >"$tmp/c1.csv"
expect_status 1 "no vehicle 'nobody'" "$SIM" --terrain "$T" --scenario "$tmp/sq.ini" -o "$tmp/x" --commands "$tmp/c1.csv"
printf 'step,vehicle,command,a,b\n0,ugv,drive,1,0\n5,ugv,drive,50,0\n' >"$tmp/c2.csv"
expect_status 1 "line 3: speed 50 m/s" "$SIM" --terrain "$T" --scenario "$tmp/sq.ini" -o "$tmp/x" --commands "$tmp/c2.csv"
printf 'step,vehicle,command,a,b\n5,ugv,drive,1,0\n4,ugv,drive,1,0\n' >"$tmp/c3.csv"
expect_status 1 "the steps go back" "$SIM" --terrain "$T" --scenario "$tmp/sq.ini" -o "$tmp/x" --commands "$tmp/c3.csv"
[ ! -e "$tmp/x" ] && ok || bad "a failed run left $tmp/x"

summary tool_sim_server
