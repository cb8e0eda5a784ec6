#!/bin/sh
# Virtual obstacles on trv-sim's control protocol (docs/sim-protocol.md:
# add_obstacle, remove_obstacle, obstacles; src/sim/virtual_obstacle.h) on
# a plane of 100 x 100 cells of 10 m, driven by tests/sim_virtual_check.py:
# - each bad obstacle gets its named error (self_intersecting, no area,
#   too_few_vertices, out_of_range radius/height/shape, not_finite,
#   outside_map, unknown_obstacle, already_removed, missing, bad_type,
#   over) and leaves the run as it was;
# - a known obstacle makes the vehicle without LiDAR re-plan at once and
#   pass it; a sensed one is found by the other vehicle's LiDAR (re-plan,
#   goal) and hit by the blind one (a collision naming it); a moving one
#   is where its velocity puts it; a removed one is inactive;
# - the server's outputs: the events with vehicle null, obstacles.geojson
#   with the virtual obstacles; the ugv kept clear of its circle (from
#   the trajectory CSV); the batch replay of OUTDIR/commands.csv writes the
#   same trajectories, events, metrics (but for args) and obstacles;
# - commands files with bad obstacle rows are refused naming the line.
# Ends with "N passed, N failed, N skipped".
set -u
BIN=${TRV_BIN:-bin}
DATA=${TRV_DATADIR:-data}
SIM=$BIN/trv-sim
HERE=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d /tmp/trv-sim-virtual-XXXXXX)
trap '[ -n "${KEEP:-}" ] || rm -rf "$tmp"' EXIT
. "$HERE/lib.sh"

if ! command -v python3 >/dev/null; then
    skip "python3 is missing: the server tests need the Python client"
    summary tool_sim_virtual
    exit
fi

T=$tmp/t
plane_terrain "$T" "$tmp" || { echo "cannot make the terrain"; exit 1; }

UGV=$(cd "$DATA/vehicles" && pwd)/ugv_hua2022.ini
cat >"$tmp/v.ini" <<EOS
[scenario]
time_limit_s = 300
record_s = 0.2

[vehicle.ugv]
file = $UGV
model = ackermann
start = 500105,4000505
goal = 500905,4000505
srs = map

[lidar2d.ugv]
hres_deg = 1
range_m = 40
noise_m = 0
mount_h_m = 0.8

[vehicle.blind]
file = $UGV
model = ackermann
start = 500105,4000305
goal = 500905,4000305
srs = map
EOS

python3 "$HERE/sim_virtual_check.py" "$SIM" "$T" "$tmp/v.ini" "$tmp/s1" >"$tmp/log" 2>&1
grep -q '^PASS server exit$' "$tmp/log" || bad "the session: $(tail -5 "$tmp/log")"
while read -r word rest; do
    case $word in PASS) ok ;; FAIL) bad "$rest" ;; *) bad "session: $word $rest" ;; esac
done <"$tmp/log"

# ---- the outputs ----
E=$tmp/s1/events.jsonl
[ "$(grep -c '"vehicle": null, "type": "obstacle_added"' "$E")" = 5 ] && ok || bad "obstacle_added events: $(grep obstacle_ "$E")"
[ "$(grep -c '"vehicle": null, "type": "obstacle_removed".*"obstacle": 4' "$E")" = 1 ] && ok || bad "obstacle_removed: $(grep obstacle_ "$E")"
python3 - "$tmp/s1/obstacles.geojson" <<'EOF' && ok || bad "obstacles.geojson: $(head -c 600 "$tmp/s1/obstacles.geojson")"
import json, sys
f = json.load(open(sys.argv[1]))["features"]
p = {x["properties"]["id"]: x["properties"] for x in f}
assert len(f) == 5, len(f)
assert p["virtual-4"]["appear_s"] == 2 and p["virtual-4"]["disappear_s"] == 4, p["virtual-4"]
assert "disappear_s" not in p["virtual-1"] and p["virtual-3"]["vx_ms"] == 1.5, p
EOF
# the ugv kept its footprint (2 m wide, 3 m long: half diagonal 1.8 m) off
# the circle of 3 m at (500400, 4000505): centre at least 3 + 1 m away
awk -F, 'NR > 1 {d = sqrt(($2 - 500400)^2 + ($3 - 4000505)^2); if (!m || d < m) m = d} END {print m; exit !(m > 4)}' \
    "$tmp/s1/trajectory_ugv.csv" >"$tmp/mind" && ok || bad "the ugv came within $(cat "$tmp/mind") m of its circle's centre"
grep -q '"end": "collision"' "$tmp/s1/metrics.json" && grep -q '"end": "goal"' "$tmp/s1/metrics.json" && ok ||
    bad "metrics: $(grep '"end"' "$tmp/s1/metrics.json")"
grep -q ',,circle,' "$tmp/s1/commands.csv" && [ "$(grep -c ',,vertex,' "$tmp/s1/commands.csv")" = 3 ] &&
    grep -q '^200,,remove_obstacle,4,' "$tmp/s1/commands.csv" && ok || bad "commands.csv: $(cat "$tmp/s1/commands.csv")"

# ---- the batch replay of the server's log: the same bytes ----
if "$SIM" --terrain "$T" --scenario "$tmp/v.ini" -o "$tmp/b1" --no-timing -q --commands "$tmp/s1/commands.csv" \
    2>"$tmp/err"; then ok; else bad "batch replay: $(cat "$tmp/err")"; fi
for f in trajectory_ugv.csv trajectory_blind.csv trajectory_ugv.geojson events.jsonl obstacles.geojson; do
    cmp -s "$tmp/s1/$f" "$tmp/b1/$f" && ok || bad "server and batch replay differ in $f"
done
sed '/"args":/d' "$tmp/s1/metrics.json" >"$tmp/m1"
sed '/"args":/d' "$tmp/b1/metrics.json" >"$tmp/m2"
cmp -s "$tmp/m1" "$tmp/m2" && ok || bad "server and batch replay differ in metrics.json: $(diff "$tmp/m1" "$tmp/m2" | head -5)"
# without the obstacles the blind one reaches its goal: they did change the run
"$SIM" --terrain "$T" --scenario "$tmp/v.ini" -o "$tmp/b2" --no-timing -q 2>"$tmp/err" || bad "plain run: $(cat "$tmp/err")"
[ "$(grep -c '"end": "goal"' "$tmp/b2/metrics.json")" = 2 ] && ok || bad "plain run: $(grep '"end"' "$tmp/b2/metrics.json")"

# ---- bad obstacle rows in a commands file ----
expect_status() { # status message command...
    want=$1 msg=$2
    shift 2
    "$@" >"$tmp/out" 2>"$tmp/err"
    got=$?
    [ "$got" = "$want" ] && grep -qF -- "$msg" "$tmp/err" && ok || bad "$* -> exit $got ($(cat "$tmp/err")), want $want '$msg'"
}
row() { printf 'step,vehicle,command,a,b,c,d\n%s\n' "$1" >"$tmp/c.csv"; }
run() { expect_status 1 "$1" "$SIM" --terrain "$T" --scenario "$tmp/v.ini" -o "$tmp/x" --commands "$tmp/c.csv"; }
row '5,,vertex,500300,4000400,,'
run "line 2: a vertex row belongs after the add_obstacle row"
row "$(printf '5,,add_obstacle,2,0,0,1\n5,,circle,500300,4000400,3,\n9,,remove_obstacle,2,,,')"
run "line 4: no virtual obstacle 2"
row "$(printf '5,,add_obstacle,2,0,0,1\n5,,circle,500300,4000400,3,\n9,,remove_obstacle,1,,,\n9,,remove_obstacle,1,,,')"
run "line 5: virtual obstacle 1 was removed before"
row "$(printf '5,,add_obstacle,2,0,0,1\n5,,vertex,500300,4000400,,\n5,,vertex,500330,4000420,,\n5,,vertex,500330,4000400,,\n5,,vertex,500300,4000410,,')"
run "line 2: the polygon's edges meet"
row "$(printf '5,,add_obstacle,2,0,0,1\n5,,circle,500300,4000400,-1,')"
run "line 2: radius -1 m"
row "$(printf '5,,add_obstacle,2,0,0,1')"
run "line 2: a polygon needs 3 vertices"
[ ! -e "$tmp/x" ] && ok || bad "a failed run left $tmp/x"

summary tool_sim_virtual
