#!/bin/sh
# trv-sim --console (docs/console.md) on a small synthetic terrain (100 x
# 100 cells of 10 m, a plane, GO everywhere) with one UGV and a 2D LiDAR:
# - the files (tests/console_check.py files): "/" is web/console.html,
#   /web/, /run/, /layers/ and Debian's Leaflet with their Content-Type,
#   the layers' PNGs one pixel per cell over the grid's extent, 404 for
#   "..", directories, unknown prefixes and missing files;
# - the TCP protocol alongside (console_check.py pace): pause, a step
#   while paused, x1 against the wall clock, x100, bad paces refused;
# - the page in headless Chromium (tests/console_browser.py live): the
#   vehicle moves, a click 30 m ahead on its route sends add_obstacle at
#   that point; with virtual obstacles in the server, the obstacle exists
#   and the vehicle passes it without a collision (over TCP); a screenshot;
#   SKIPPED without chromium, chromium-driver or python3-selenium;
# - close over TCP ends the run: exit 0, its outputs and commands.csv;
# - --replay serves that finished run under /sim/ (its page draws the
#   trajectory and the events) until SIGTERM (exit 0);
# - SIGTERM during a live run: exit 1, no outputs;
# - usage errors (exit 2): a bad --console address, --replay alone.
# Ends with "N passed, N failed, N skipped".
set -u
BIN=${TRV_BIN:-bin}
DATA=${TRV_DATADIR:-data}
SIM=$BIN/trv-sim
HERE=$(cd "$(dirname "$0")" && pwd)
WEB=$(cd "$HERE/../web" && pwd)
PY=/usr/bin/python3
tmp=$(mktemp -d /tmp/trv-console-test-XXXXXX)
pids=""
trap 'for p in $pids; do kill $p 2>/dev/null; done; rm -rf "$tmp"' EXIT
. "$HERE/lib.sh"

if [ ! -x "$PY" ]; then
    skip "$PY is missing: the console tests are Python"
    summary tool_console
    exit
fi

# ---- the terrain: a plane, GO everywhere ----
T=$tmp/t
plane_terrain "$T" "$tmp" || { echo "cannot make the terrain"; exit 1; }

UGV=$(cd "$DATA/vehicles" && pwd)/ugv_hua2022.ini
cat >"$tmp/sc.ini" <<EOS
[scenario]
time_limit_s = 300
record_s = 0.2

[vehicle.ugv]
file = $UGV
model = ackermann
start = 500205,4000505
goal = 500905,4000905
srs = map

[lidar2d.ugv]
hres_deg = 2
range_m = 40
noise_m = 0
mount_h_m = 1.0
EOS

wait_url() { # stderr-file sed-expression: the first match, once printed
    for i in $(seq 300); do
        sed -n "$2" "$1" | grep . && return
        sleep 0.1
    done
}
CONSOLE='s|^trv-sim: console on \(http://.*/\)$|\1|p'
LISTEN='s/^trv-sim: listening on .*:\([0-9]*\)$/\1/p'

# ---- a live run: files, pace, the page, close ----
"$SIM" -q --terrain "$T" --scenario "$tmp/sc.ini" -o "$tmp/s1" --serve 0 --console 0 2>"$tmp/err1" &
spid=$!
pids="$spid"
url=$(wait_url "$tmp/err1" "$CONSOLE")
port=$(wait_url "$tmp/err1" "$LISTEN")
if [ -z "$url" ] || [ -z "$port" ]; then
    bad "no console URL or port on stderr: $(cat "$tmp/err1")"
    summary tool_console
    exit
fi
case $url in http://127.0.0.1:[0-9]*/) ok ;; *) bad "the console's URL is not on the loopback: $url" ;; esac

$PY "$HERE/console_check.py" files "$url" "$WEB" "$T" >"$tmp/log" 2>&1
grep -q '^console: [0-9]* passed, 0 failed$' "$tmp/log" && ok || bad "files: $(grep -v '^console:' "$tmp/log" | head -20)"
$PY "$HERE/console_check.py" pace "$port" >"$tmp/log" 2>&1
grep -q '^console: [0-9]* passed, 0 failed$' "$tmp/log" && ok || bad "pace: $(grep -v '^console:' "$tmp/log" | head -20)"
grep '^x1' "$tmp/log"
pace_error() { # factor (JSON; none: left out) error-name: the reply to a bad pace over TCP
    $PY -c "import json, socket, sys
s = socket.create_connection(('127.0.0.1', int(sys.argv[1]))); f = s.makefile('rb')
req = {'type': 'pace'} if sys.argv[2] == 'none' else {'type': 'pace', 'factor': json.loads(sys.argv[2])}
s.sendall((json.dumps(req) + '\\n').encode()); r = json.loads(f.readline())
sys.exit(r.get('error') != sys.argv[3])" "$port" "$1" "$2" && ok || bad "pace $1: no $2 error"
}
pace_error 0.5 out_of_range
pace_error '"fast"' bad_type
pace_error none missing

# the page (restarted from t = 0, so that the vehicle is still on its way)
$PY -c "import json, socket, sys
s = socket.create_connection(('127.0.0.1', int(sys.argv[1]))); f = s.makefile('rb')
s.sendall(b'{\"type\": \"reset\"}\n'); r = json.loads(f.readline()); sys.exit(r['type'] != 'reset')" "$port" &&
    ok || bad "reset over TCP"
$PY "$HERE/console_browser.py" live "$url" "$port" "$tmp/console.png" >"$tmp/log" 2>&1
got=$?
if [ $got = 77 ]; then
    why=$(sed -n 's/^SKIPPED: //p' "$tmp/log")
    case $why in *selenium*) pkg=python3-selenium ;; *chromedriver*) pkg=chromium-driver ;; *) pkg=chromium ;; esac
    skip_pkg $pkg "$why"
else
    [ $got = 0 ] && ok || bad "the page: $(grep -v '^console:' "$tmp/log" | head -20)"
    grep "^NOTE\|^passed" "$tmp/log"
    [ -s "$tmp/console.png" ] && [ "$(wc -c <"$tmp/console.png")" -gt 20000 ] && ok ||
        bad "the screenshot is missing or blank: $(ls -l "$tmp/console.png" 2>&1)"
    [ -n "${TRV_CONSOLE_SHOT:-}" ] && cp "$tmp/console.png" "$TRV_CONSOLE_SHOT"
fi

$PY -c "import json, socket, sys
s = socket.create_connection(('127.0.0.1', int(sys.argv[1]))); f = s.makefile('rb')
s.sendall(b'{\"type\": \"close\"}\n'); r = json.loads(f.readline()); sys.exit(r['type'] != 'close')" "$port" &&
    ok || bad "close over TCP"
wait $spid
got=$?
pids=""
[ $got = 0 ] && ok || bad "the console's run after close: exit $got, $(cat "$tmp/err1")"
for f in metrics.json events.jsonl trajectory_ugv.csv commands.csv; do
    [ -s "$tmp/s1/$f" ] && ok || bad "close did not write $f: $(ls "$tmp/s1" 2>&1)"
done

# ---- the finished run replayed ----
"$SIM" -q --terrain "$T" --scenario "$tmp/sc.ini" -o "$tmp/s1" --console 0 --replay 2>"$tmp/err2" &
spid=$!
pids="$spid"
url=$(wait_url "$tmp/err2" "$CONSOLE")
$PY "$HERE/console_check.py" replay "$url" "$tmp/s1" >"$tmp/log" 2>&1
grep -q '^console: [0-9]* passed, 0 failed$' "$tmp/log" && ok || bad "replay: $(grep -v '^console:' "$tmp/log" | head)"
$PY "$HERE/console_browser.py" replay "$url" "$tmp/replay.png" >"$tmp/log" 2>&1
got=$?
if [ $got = 77 ]; then
    skip "the replay's page: $(sed -n 's/^SKIPPED: //p' "$tmp/log")"
else
    [ $got = 0 ] && ok || bad "the replay's page: $(grep -v '^console:' "$tmp/log" | head)"
fi
kill -TERM $spid
wait $spid
got=$?
pids=""
[ $got = 0 ] && ok || bad "--replay after SIGTERM: exit $got, $(cat "$tmp/err2")"

# ---- a stop signal during a live run: no outputs ----
"$SIM" -q --terrain "$T" --scenario "$tmp/sc.ini" -o "$tmp/s3" --console 0 2>"$tmp/err3" &
spid=$!
pids="$spid"
url=$(wait_url "$tmp/err3" "$CONSOLE")
sleep 1
kill -TERM $spid
wait $spid
got=$?
pids=""
[ $got = 1 ] && grep -q 'interrupted by signal' "$tmp/err3" && [ ! -e "$tmp/s3" ] && ok ||
    bad "SIGTERM during a console run: exit $got, $(cat "$tmp/err3"), $(ls "$tmp/s3" 2>&1)"

# ---- usage errors ----
expect_status() { # status message command...
    want=$1 msg=$2
    shift 2
    "$@" >"$tmp/out" 2>"$tmp/err"
    got=$?
    [ "$got" = "$want" ] && grep -qF -- "$msg" "$tmp/err" && ok || bad "$* -> exit $got ($(cat "$tmp/err")), want $want '$msg'"
}
expect_status 2 "not an IPv4 address" "$SIM" --terrain "$T" --scenario "$tmp/sc.ini" -o "$tmp/x" --console nohost:5
expect_status 2 "the port must be" "$SIM" --terrain "$T" --scenario "$tmp/sc.ini" -o "$tmp/x" --console 70000
expect_status 2 "--replay needs --console" "$SIM" --terrain "$T" --scenario "$tmp/sc.ini" -o "$tmp/x" --replay
[ ! -e "$tmp/x" ] && ok || bad "a failed run left $tmp/x"

summary tool_console
