#!/bin/sh
# trv-sim end to end on a small synthetic terrain (100 x 100 cells of 10 m,
# UTM 16N, GeoTIFFs made with gdal_translate from ASCII grids: flat, GO at
# 20 km/h but for a NOGO block and a NOGO ring around an enclosed cell):
# outputs, the seed (same seed, same outputs but for wall_time_s and
# realtime_factor), an obstacle that forces a re-plan, the obstacles
# recorded in OUTDIR (obstacles.geojson), obstacles placed along the route
# (a re-plan, their resolved shapes), the route override,
# and every error path (exit 1, 2 for usage; no partial outputs).
# Ends with "N passed, N failed, N skipped".
set -u
BIN=${TRV_BIN:-bin}
DATA=${TRV_DATADIR:-data}
SIM=$BIN/trv-sim
tmp=$(mktemp -d /tmp/trv-sim-test-XXXXXX)
trap 'rm -rf "$tmp"' EXIT
. "$(dirname "$0")/lib.sh"
expect() { # status message -- command...: and no output directory $tmp/x left
    want=$1 msg=$2
    shift 3
    rm -rf "$tmp/x"
    "$@" >"$tmp/stdout" 2>"$tmp/stderr"
    got=$?
    if [ "$got" != "$want" ]; then bad "$* -> exit $got, want $want ($(cat "$tmp/stderr"))"; return; fi
    if [ -n "$msg" ] && ! grep -qF -- "$msg" "$tmp/stderr"; then bad "$* -> stderr lacks '$msg': $(cat "$tmp/stderr")"; return; fi
    if [ -e "$tmp/x" ]; then bad "$* left $tmp/x behind"; return; fi
    ok
}

# ---- the terrain ----
T=$tmp/t
mkdir -p "$T"
grid() { # name value-expression (awk, of c and r) type
    awk -v N=100 "BEGIN {
        print \"ncols 100\"; print \"nrows 100\"; print \"xllcorner 500000\"; print \"yllcorner 4000000\";
        print \"cellsize 10\";
        for (r = 0; r < N; r++) { line = \"\";
            for (c = 0; c < N; c++) {
                nogo = (c >= 40 && c < 60 && r >= 10 && r < 30) ||
                       (c >= 78 && c <= 91 && r >= 78 && r <= 91 && (c <= 79 || c >= 90 || r <= 79 || r >= 90));
                line = line \" \" ($2) }
            print line } }" >"$tmp/$1.asc"
    gdal_translate -q -a_srs EPSG:32616 -ot "$3" "$tmp/$1.asc" "$T/$1.tif"
}
grid class '(nogo ? 0 : 3)' Byte
grid gonogo '(nogo ? 1 : 0)' Byte
grid cost '0.2' Float32
grid dem '(100 + 0.01 * c)' Float32
grid slope '0.06' Float32
grid speed '(nogo ? 0 : 20)' Float32
[ -f "$T/speed.tif" ] || { echo "cannot make the terrain"; exit 1; }
# map coordinates of cell (c, r) centres
X() { echo $((500005 + 10 * $1)); }
Y() { echo $((4000995 - 10 * $1)); }

UGV=$(cd "$DATA/vehicles" && pwd)/ugv_hua2022.ini
scenario() { # name [extra scenario lines] [start c,r] [goal c,r] [vehicle file]
    s=${3:-10,49} g=${4:-90,49} v=${5:-$UGV}
    cat >"$tmp/$1" <<EOS
[scenario]
time_limit_s = 400
${2:-}
[vehicle.ugv]
file = $v
model = ackermann
start = $(X "${s%,*}"),$(Y "${s#*,}")
goal = $(X "${g%,*}"),$(Y "${g#*,}")
srs = map

[gnss.ugv]
noise_m = 0.05

[lidar2d.ugv]
range_m = 40
mount_h_m = 0.8
EOS
}

# ---- a run ----
scenario ok.ini
if "$SIM" --terrain "$T" --scenario "$tmp/ok.ini" -o "$tmp/o1" --seed 5 >"$tmp/out" 2>"$tmp/err"; then ok; else bad "run: $(cat "$tmp/err")"; fi
for f in trajectory_ugv.csv trajectory_ugv.geojson events.jsonl metrics.json; do
    [ -s "$tmp/o1/$f" ] && ok || bad "no $f"
done
head -1 "$tmp/o1/trajectory_ugv.csv" | grep -qx 't,x,y,z,heading_deg,pitch_deg,roll_deg,speed_ms,steering_deg,cross_track_m,class' &&
    ok || bad "trajectory CSV header: $(head -1 "$tmp/o1/trajectory_ugv.csv")"
grep -q '"reached_goal": true' "$tmp/o1/metrics.json" && ok || bad "goal not reached: $(cat "$tmp/o1/metrics.json")"
grep -q '"seed": 5,' "$tmp/o1/metrics.json" && ok || bad "the seed is not in metrics.json"
grep -q '"type": "goal"' "$tmp/o1/events.jsonl" && ok || bad "no goal event"
[ "$(ogrinfo -ro -al -so "$tmp/o1/trajectory_ugv.geojson" | sed -n 's/^Feature Count: //p')" = 2 ] && ok || bad "trajectory and plan features"
ogrinfo -ro -al "$tmp/o1/trajectory_ugv.geojson" | grep -q 'seed (String) = 5' && ok || bad "the seed is not in the GeoJSON"
ogrinfo -ro -al -so "$tmp/o1/trajectory_ugv.geojson" | grep -q 'WGS 84' && ok || bad "GeoJSON not in EPSG:4326"
# planned 800 m at 20 km/h = 144 s; driven within 15 %
awk -F': ' '/"time_s"/ {t = $2 + 0} /"planned_time_s"/ {p = $2 + 0} /"cross_track_rms_m"/ {x = $2 + 0}
    END {exit !(t > 0 && t <= 1.15 * p && x < 0.5)}' "$tmp/o1/metrics.json" && ok || bad "time or cross-track: $(cat "$tmp/o1/metrics.json")"

# ---- the seed: same seed, same bytes (but for the two wall-clock keys) ----
"$SIM" --terrain "$T" --scenario "$tmp/ok.ini" -o "$tmp/o2" --seed 5 -q 2>"$tmp/err" || bad "second run: $(cat "$tmp/err")"
same=1
for f in trajectory_ugv.csv trajectory_ugv.geojson events.jsonl; do cmp -s "$tmp/o1/$f" "$tmp/o2/$f" || same=0; done
grep -v -e '"wall_time_s"' -e '"realtime_factor"' "$tmp/o1/metrics.json" | sed 's|"args": .*||' >"$tmp/m1"
grep -v -e '"wall_time_s"' -e '"realtime_factor"' "$tmp/o2/metrics.json" | sed 's|"args": .*||' >"$tmp/m2"
cmp -s "$tmp/m1" "$tmp/m2" || same=0
[ $same = 1 ] && ok || bad "the same seed gave other outputs"
"$SIM" --terrain "$T" --scenario "$tmp/ok.ini" -o "$tmp/o3" --seed 6 -q --no-timing 2>"$tmp/err" || bad "third run: $(cat "$tmp/err")"
cmp -s "$tmp/o1/trajectory_ugv.csv" "$tmp/o3/trajectory_ugv.csv" && bad "another seed gave the same trajectory" || ok
grep -q wall_time_s "$tmp/o3/metrics.json" && bad "--no-timing kept wall_time_s" || ok

# ---- an obstacle on the path: seen, re-planned around, goal reached ----
cat >"$tmp/obs.geojson" <<EOS
{"type": "FeatureCollection", "crs": {"type": "name", "properties": {"name": "urn:ogc:def:crs:EPSG::32616"}},
 "features": [{"type": "Feature", "properties": {"id": "box", "height_m": 2, "appear_s": 10},
   "geometry": {"type": "Polygon", "coordinates": [[[500495, 4000480], [500505, 4000480], [500505, 4000530], [500495, 4000530], [500495, 4000480]]]}}]}
EOS
scenario obs.ini "obstacles = obs.geojson"
if "$SIM" --terrain "$T" --scenario "$tmp/obs.ini" -o "$tmp/o4" -q 2>"$tmp/err"; then ok; else bad "obstacle run: $(cat "$tmp/err")"; fi
grep -q '"type": "replan"' "$tmp/o4/events.jsonl" && ok || bad "no replan event"
grep -q '"type": "collision"' "$tmp/o4/events.jsonl" && bad "a collision" || ok
grep -q '"reached_goal": true' "$tmp/o4/metrics.json" && ok || bad "goal not reached around the obstacle"

# ---- OUTDIR/obstacles.geojson: the obstacles simulated, in EPSG:4326 ----
# Input in lon/lat (7 decimals, as a user's file): a polygon that moves and
# disappears, a static circle; both off the path. Read back with ogrinfo:
# count, ids, heights, radius and every vertex within 1e-6 deg (the input
# went to the map CRS and back).
ll() { echo "$1 $2" | gdaltransform -s_srs EPSG:32616 -t_srs EPSG:4326 -output_xy | awk '{printf "%.7f %.7f", $1, $2}'; }
set -- $(ll 500200 4000800) $(ll 500260 4000800) $(ll 500260 4000850) $(ll 500200 4000850) $(ll 500800 4000200)
printf '%s\n' "wall 2.5 - $1 $2 $3 $4 $5 $6 $7 $8" "rock 1.5 6 $9 ${10}" >"$tmp/obs_ll.expected"
cat >"$tmp/obs_ll.geojson" <<EOS
{"type": "FeatureCollection", "features": [
 {"type": "Feature", "properties": {"id": "wall", "height_m": 2.5, "appear_s": 5, "disappear_s": 50, "vx_ms": 0.5, "vy_ms": -0.25},
  "geometry": {"type": "Polygon", "coordinates": [[[$1, $2], [$3, $4], [$5, $6], [$7, $8], [$1, $2]]]}},
 {"type": "Feature", "properties": {"id": "rock", "height_m": 1.5, "radius_m": 6},
  "geometry": {"type": "Point", "coordinates": [$9, ${10}]}}]}
EOS
scenario obs_ll.ini "obstacles = obs_ll.geojson"
if "$SIM" --terrain "$T" --scenario "$tmp/obs_ll.ini" -o "$tmp/o6" -q --no-timing 2>"$tmp/err"; then ok; else bad "lon/lat obstacles run: $(cat "$tmp/err")"; fi
OG=$tmp/o6/obstacles.geojson
[ -s "$OG" ] && ok || bad "no obstacles.geojson"
ogrinfo -ro -al -so "$OG" 2>&1 | grep -q 'WGS 84' && ok || bad "obstacles.geojson not in EPSG:4326"
[ "$(ogrinfo -ro -al -so "$OG" | sed -n 's/^Feature Count: //p')" = 2 ] && ok || bad "obstacle feature count"
# obstacles.geojson ($1) against an expected file ($2): one line per
# feature "id height radius|- lon lat..." (the vertices, or the centre: a
# circle is written as a 64-gon with centre_lon, centre_lat and radius_m)
same_obstacles() {
ogrinfo -ro -al -q "$1" | awk -v exp_file="$2" '
    BEGIN { while ((getline l < exp_file) > 0) { split(l, a, " "); ne++; eid[ne] = a[1]; eh[ne] = a[2]; er[ne] = a[3]
                nv[ne] = 0; for (i = 4; i < length(a); i += 2) { nv[ne]++; ex[ne, nv[ne]] = a[i]; ey[ne, nv[ne]] = a[i + 1] } } }
    /^OGRFeature/ { n++ }
    $1 == "id" { id[n] = $NF } $1 == "height_m" { h[n] = $NF } $1 == "radius_m" { r[n] = $NF }
    $1 == "centre_lon" { clon[n] = $NF } $1 == "centre_lat" { clat[n] = $NF }
    /^  (POLYGON|POINT) / { g = $0; kind[n] = $1; sub(/^[^(]*\(+/, "", g); sub(/\)+ *$/, "", g); geom[n] = g }
    function abs(v) { return v < 0 ? -v : v }
    END {
        if (n != ne) { print "features: " n ", want " ne; exit 1 }
        for (k = 1; k <= n; k++) {
            if (id[k] != eid[k] || h[k] + 0 != eh[k] + 0) { print k ": id " id[k] " height " h[k]; exit 1 }
            if ((er[k] == "-") != (r[k] == "") || (er[k] != "-" && r[k] + 0 != er[k] + 0)) { print k ": radius " r[k]; exit 1 }
            if (kind[k] != "POLYGON") { print k ": " kind[k]; exit 1 }
            m = split(geom[k], pts, ",") - 1 # the closing vertex
            if (er[k] != "-") { # a circle
                if (m != 64) { print k ": a circle of " m " vertices, want 64"; exit 1 }
                d = abs(clon[k] - ex[k, 1]) + abs(clat[k] - ey[k, 1])
                if (d > 1e-6) { print k ": centre " clon[k] " " clat[k] " is " d " deg off"; exit 1 }
                continue
            }
            if (m != nv[k]) { print k ": " m " vertices, want " nv[k]; exit 1 }
            # every vertex near one of the input (RFC 7946 may rewind a ring)
            for (i = 1; i <= m; i++) {
                split(pts[i], c, " "); best = 1e9
                for (j = 1; j <= nv[k]; j++) { d = abs(c[1] - ex[k, j]) + abs(c[2] - ey[k, j]); if (d < best) best = d }
                if (best > 1e-6) { print k ": vertex " pts[i] " is " best " deg off"; exit 1 }
            } } }'
}
same_obstacles "$OG" "$tmp/obs_ll.expected" >"$tmp/cmp" 2>&1 && ok || bad "obstacles.geojson against the input: $(cat "$tmp/cmp")"
# disappear_s only where the obstacle disappears; the velocity kept
[ "$(grep -o '"disappear_s": [0-9.]*' "$OG")" = '"disappear_s": 50.0' ] && ok || bad "disappear_s: $(cat "$OG")"
grep -q '"vx_ms": 0.5, "vy_ms": -0.25' "$OG" && ok || bad "velocity: $(cat "$OG")"
"$SIM" --terrain "$T" --scenario "$tmp/obs_ll.ini" -o "$tmp/o7" -q --no-timing 2>"$tmp/err" || bad "second lon/lat run: $(cat "$tmp/err")"
same=1
for f in obstacles.geojson trajectory_ugv.csv trajectory_ugv.geojson events.jsonl; do cmp -s "$tmp/o6/$f" "$tmp/o7/$f" || same=0; done
[ $same = 1 ] && ok || bad "obstacles.geojson or the run is not deterministic"
[ -s "$tmp/o4/obstacles.geojson" ] && ok || bad "no obstacles.geojson with a map-CRS obstacles file"
[ -e "$tmp/o1/obstacles.geojson" ] && bad "obstacles.geojson without an obstacles file" || ok

# ---- obstacles placed along the route (geometry null) ----
# An L route (given with --route): from cell (10, 49) east 400 m to (50,
# 49), then south 400 m to (50, 89). A wall 30 m across and 4 m along at
# 600 m (the south leg, 200 m down it: (500505, 4000305), so its 30 m run
# east-west) and a rock of radius 6 m at a quarter (200 m: (500305,
# 4000505)). Both force a re-plan; obstacles.geojson holds them as placed.
printf 'x,y\n%s,%s\n%s,%s\n%s,%s\n' "$(X 10)" "$(Y 49)" "$(X 50)" "$(Y 49)" "$(X 50)" "$(Y 89)" >"$tmp/route_l.csv"
cat >"$tmp/obs_route.geojson" <<EOS
{"type": "FeatureCollection", "features": [
 {"type": "Feature", "properties": {"id": "wall", "height_m": 2, "appear_s": 5, "at_route_m": 600, "across_m": 30, "along_m": 4},
  "geometry": null},
 {"type": "Feature", "properties": {"id": "rock", "height_m": 1.5, "vehicle": "ugv", "at_route_fraction": 0.25, "radius_m": 6},
  "geometry": null}]}
EOS
set -- $(ll 500490 4000307) $(ll 500490 4000303) $(ll 500520 4000303) $(ll 500520 4000307) $(ll 500305 4000505)
printf '%s\n' "wall 2 - $1 $2 $3 $4 $5 $6 $7 $8" "rock 1.5 6 $9 ${10}" >"$tmp/obs_route.expected"
scenario obs_route.ini "obstacles = obs_route.geojson"
if "$SIM" --terrain "$T" --scenario "$tmp/obs_route.ini" --route "$tmp/route_l.csv" -o "$tmp/o8" -q --no-timing 2>"$tmp/err"; then ok; else bad "route-relative obstacles run: $(cat "$tmp/err")"; fi
[ "$(grep -c '"type": "replan"' "$tmp/o8/events.jsonl")" -ge 2 ] && ok || bad "route-relative obstacles: fewer than 2 re-plans: $(cat "$tmp/o8/events.jsonl")"
grep -q '"type": "collision"' "$tmp/o8/events.jsonl" && bad "route-relative obstacles: a collision" || ok
grep -q '"reached_goal": true' "$tmp/o8/metrics.json" && ok || bad "route-relative obstacles: goal not reached"
same_obstacles "$tmp/o8/obstacles.geojson" "$tmp/obs_route.expected" >"$tmp/cmp" 2>&1 && ok ||
    bad "route-relative obstacles.geojson: $(cat "$tmp/cmp")"
# errors: exit 1, naming the file and the feature
sed 's/"at_route_m": 600/"at_route_m": 900/' "$tmp/obs_route.geojson" >"$tmp/obs_far.geojson"
scenario obs_far.ini "obstacles = obs_far.geojson"
expect 1 "obs_far.geojson': obstacle 'wall': at_route_m 900 is outside the route of vehicle 'ugv' (0 to 800.0 m)" -- \
    "$SIM" --terrain "$T" --scenario "$tmp/obs_far.ini" --route "$tmp/route_l.csv" -o "$tmp/x"
sed 's/"vehicle": "ugv"/"vehicle": "ugv2"/' "$tmp/obs_route.geojson" >"$tmp/obs_who.geojson"
scenario obs_who.ini "obstacles = obs_who.geojson"
expect 1 "obs_who.geojson': obstacle 'rock': no vehicle 'ugv2' in the scenario" -- \
    "$SIM" --terrain "$T" --scenario "$tmp/obs_who.ini" --route "$tmp/route_l.csv" -o "$tmp/x"
sed 's/"geometry": null}]}/"geometry": {"type": "Point", "coordinates": [-87, 36.1]}}]}/' "$tmp/obs_route.geojson" >"$tmp/obs_geom.geojson"
scenario obs_geom.ini "obstacles = obs_geom.geojson"
expect 1 "obs_geom.geojson': obstacle 'rock' has both a geometry and at_route_fraction" -- \
    "$SIM" --terrain "$T" --scenario "$tmp/obs_geom.ini" --route "$tmp/route_l.csv" -o "$tmp/x"

# ---- the route override ----
printf 'x,y\n%s,%s\n%s,%s\n%s,%s\n' "$(X 10)" "$(Y 60)" "$(X 50)" "$(Y 60)" "$(X 50)" "$(Y 80)" >"$tmp/route.csv"
if "$SIM" --terrain "$T" --scenario "$tmp/ok.ini" --route "$tmp/route.csv" -o "$tmp/o5" -q 2>"$tmp/err"; then ok; else bad "--route: $(cat "$tmp/err")"; fi
grep -q '"reached_goal": true' "$tmp/o5/metrics.json" && ok || bad "--route: goal not reached"
awk -F, 'END {exit !($2 > 500450 && $2 < 500560 && $3 < 4000200)}' "$tmp/o5/trajectory_ugv.csv" && ok || bad "--route not followed"

# a route through the NOGO block (columns 40..59 of row 20): its planned
# time is infinite, and metrics.json says null (JSON has no inf), every
# file strict JSON (issue 15, defect 13: "planned_time_s": inf)
printf 'x,y\n%s,%s\n%s,%s\n' "$(X 10)" "$(Y 20)" "$(X 70)" "$(Y 20)" >"$tmp/route_nogo.csv"
"$SIM" --terrain "$T" --scenario "$tmp/ok.ini" --route "$tmp/route_nogo.csv" -o "$tmp/o9" -q 2>"$tmp/err" || true
python3 - "$tmp/o9/metrics.json" "$tmp/o9/events.jsonl" <<'EOP' >"$tmp/check" 2>&1 && ok || bad "a route through NOGO: $(cat "$tmp/check" "$tmp/err")"
import json, sys
def strict(c):
    raise ValueError("not JSON: " + c)
m = json.load(open(sys.argv[1]), parse_constant=strict)
for line in open(sys.argv[2]):
    json.loads(line, parse_constant=strict)
t = m["vehicles"][0]["planned_time_s"]
assert t is None, "planned_time_s %r, want null" % (t,)
EOP

# ---- errors: exit 1 (2 for usage), a message, no OUTDIR ----
expect 2 "--scenario" -- "$SIM" --terrain "$T" -o "$tmp/x"
expect 1 "cannot open '$tmp/none.ini'" -- "$SIM" --terrain "$T" --scenario "$tmp/none.ini" -o "$tmp/x"
scenario key.ini "stepsize = 0.1"
expect 1 "key.ini:3" -- "$SIM" --terrain "$T" --scenario "$tmp/key.ini" -o "$tmp/x"
scenario nov.ini "" 10,49 90,49 "$tmp/none_vehicle.ini"
expect 1 "vehicle 'ugv': cannot open '$tmp/none_vehicle.ini'" -- "$SIM" --terrain "$T" --scenario "$tmp/nov.ini" -o "$tmp/x"
sed 's/^top_speed_kmh = .*/top_speed_kmh = fast/' "$UGV" >"$tmp/badveh.ini"
scenario badv.ini "" 10,49 90,49 "$tmp/badveh.ini"
expect 1 "badveh.ini:" -- "$SIM" --terrain "$T" --scenario "$tmp/badv.ini" -o "$tmp/x"
expect 1 "cannot open '$tmp/none.csv'" -- "$SIM" --terrain "$T" --scenario "$tmp/ok.ini" --route "$tmp/none.csv" -o "$tmp/x"
printf 'a,b\n1,2\n3,4\n' >"$tmp/noxy.csv"
expect 1 "noxy.csv" -- "$SIM" --terrain "$T" --scenario "$tmp/ok.ini" --route "$tmp/noxy.csv" -o "$tmp/x"
printf 'x,y\n1,2\n3,4\n' >"$tmp/offroute.csv"
expect 1 "is outside the map" -- "$SIM" --terrain "$T" --scenario "$tmp/ok.ini" --route "$tmp/offroute.csv" -o "$tmp/x"
# a point between the ends far off the map (found by tests/fuzz/fuzz_route.c:
# the speed profile sampled 100 000 km of route)
printf 'x,y\n%s,%s\n50009260,%s\n%s,%s\n' "$(X 10)" "$(Y 60)" "$(Y 60)" "$(X 20)" "$(Y 60)" >"$tmp/farroute.csv"
expect 1 "point 2 of the route in '$tmp/farroute.csv' (50009260.00, $(Y 60).00) is outside the map" -- \
    "$SIM" --terrain "$T" --scenario "$tmp/ok.ini" --route "$tmp/farroute.csv" -o "$tmp/x"
scenario off.ini "" 10,49 150,49
expect 1 "outside the map" -- "$SIM" --terrain "$T" --scenario "$tmp/off.ini" -o "$tmp/x"
scenario nogo.ini "" 50,20 90,49
expect 1 "is in NOGO" -- "$SIM" --terrain "$T" --scenario "$tmp/nogo.ini" -o "$tmp/x"
scenario unreach.ini "" 10,49 85,85
expect 1 "not reachable" -- "$SIM" --terrain "$T" --scenario "$tmp/unreach.ini" -o "$tmp/x"
printf '{"type": "FeatureCollection", "features": [{"type": ' >"$tmp/corrupt.geojson"
scenario corrupt.ini "obstacles = corrupt.geojson"
expect 1 "corrupt.geojson" -- "$SIM" --terrain "$T" --scenario "$tmp/corrupt.ini" -o "$tmp/x"
scenario noobs.ini "obstacles = missing.geojson"
expect 1 "missing.geojson" -- "$SIM" --terrain "$T" --scenario "$tmp/noobs.ini" -o "$tmp/x"
: >"$tmp/file"
expect 1 "$tmp/file" -- "$SIM" --terrain "$T" --scenario "$tmp/ok.ini" -o "$tmp/file/out"
# an output that cannot be written is found before any work (issue 15):
# with a missing terrain too, the output is what the message names
expect 1 "cannot write '$tmp/file/out/metrics.json': '$tmp/file' is not a directory" -- "$SIM" --terrain "$tmp/noterrain" --scenario "$tmp/ok.ini" -o "$tmp/file/out"
mkdir -p "$tmp/ro"
if can_make_readonly "$tmp/ro"; then
    expect 1 "cannot write '$tmp/ro/out/metrics.json': '$tmp/ro' is not writable (" -- readonly_run "$tmp/ro" "$SIM" --terrain "$tmp/noterrain" --scenario "$tmp/ok.ini" -o "$tmp/ro/out"
else
    skip "no read-only directory can be made here (unshare)"
fi
# A write that fails after others were made: the temporaries go in OUTDIR
# as .NAME.tmp<pid>.EXT (src/core/outset.c); a directory squatting on
# metrics.json's temporary (the pid is the shell's, kept by exec) makes
# the fourth file fail after the trajectory CSV, GeoJSON and events were
# written. OUTDIR must then hold nothing but that directory: no
# temporary and no final file.
mkdir -p "$tmp/w"
sh -c 'mkdir "$1/.metrics.tmp$$.json" && exec "$0" --terrain "$2" --scenario "$3" -o "$1" -q' \
    "$SIM" "$tmp/w" "$T" "$tmp/ok.ini" >"$tmp/stdout" 2>"$tmp/stderr"
got=$?
left=$(find "$tmp/w" -mindepth 1 ! -name '.metrics.tmp*.json' | sort | tr '\n' ' ')
[ "$got" = 1 ] && grep -q 'metrics' "$tmp/stderr" && ok || bad "a failing metrics.json write -> exit $got: $(cat "$tmp/stderr")"
[ "$(find "$tmp/w" -mindepth 1 -name '.metrics.tmp*.json' -type d | wc -l)" = 1 ] && ok ||
    bad "the squatting directory is not the metrics temporary: $(ls -A "$tmp/w")"
[ -z "$left" ] && ok || bad "a failed write left in OUTDIR: $left"
# the QGIS style, written after metrics.json and in the same set: its
# failing write leaves neither the run's files nor the style
mkdir -p "$tmp/w2"
sh -c 'mkdir "$1/.trajectory_ugv.tmp$$.qml" && exec "$0" --terrain "$2" --scenario "$3" -o "$1" -q' \
    "$SIM" "$tmp/w2" "$T" "$tmp/ok.ini" >"$tmp/stdout" 2>"$tmp/stderr"
got=$?
left=$(find "$tmp/w2" -mindepth 1 ! -name '.trajectory_ugv.tmp*.qml' | sort | tr '\n' ' ')
[ "$got" = 1 ] && grep -q 'trajectory_ugv' "$tmp/stderr" && [ -z "$left" ] && ok ||
    bad "a failing style write (exit $got: $(cat "$tmp/stderr")) left in OUTDIR: $left"
expect 1 "cannot open" -- "$SIM" --terrain "$tmp/nowhere" --scenario "$tmp/ok.ini" -o "$tmp/x"

# ---- the speed model: soil.tif and landuse.tif in the terrain ----
# The model is rebuilt from the class tables trv-speed copies beside
# speed.tif (speed_soils.csv, speed_landuse.csv); here the bundled tables
# copied by hand. Sandy loam under grassland, 0.06 % grade: the UGV runs
# at its top speed (40 km/h), not speed.tif's flat 20 km/h, so it beats
# the plan (made on speed.tif) by far; the soil's and tyres' resistance
# raise the energy; grassland's roughness (G_d(n0) 0.01194 m^3, w 1.6)
# gives a ride. Without the copies: an error that says to rerun trv-speed;
# --soils and --landuse-classes name the tables instead.
T2=$tmp/t2
cp -R "$T" "$T2"
grid soil '1' Byte && mv "$T/soil.tif" "$T2/soil.tif"
grid landuse '3' Byte && mv "$T/landuse.tif" "$T2/landuse.tif"
cp "$DATA/classes/soils.csv" "$T2/speed_soils.csv"
cp "$DATA/classes/landuse.csv" "$T2/speed_landuse.csv"
"$SIM" --terrain "$T2" --scenario "$tmp/ok.ini" -o "$tmp/s1" --seed 5 --no-timing -q 2>"$tmp/err" || bad "model run: $(cat "$tmp/err")"
num() { sed -n "s/.*\"$1\": \([0-9.e+-]*\).*/\1/p" "$2" | head -1; }
e0=$(num energy_kJ "$tmp/o1/metrics.json") e1=$(num energy_kJ "$tmp/s1/metrics.json")
awk -v a="$e0" -v b="$e1" 'BEGIN { exit !(a > 0 && b > a) }' && ok || bad "energy with the model ($e1 kJ) not above without ($e0 kJ)"
t1=$(num time_s "$tmp/s1/metrics.json") p1=$(num planned_time_s "$tmp/s1/metrics.json")
awk -v t="$t1" -v p="$p1" 'BEGIN { exit !(t > 0 && t < 0.65 * p) }' && ok || bad "the model's top speed not used: $t1 s against $p1 s planned at 20 km/h"
r1=$(num ride_rms_ms2 "$tmp/s1/metrics.json") x1=$(num ride_max_ms2 "$tmp/s1/metrics.json") w1=$(num ride_power_W "$tmp/s1/metrics.json")
awk -v r="$r1" -v x="$x1" -v w="$w1" 'BEGIN { exit !(r > 0 && x > r && w > 0) }' && ok || bad "ride metrics: $(cat "$tmp/s1/metrics.json")"
grep -q '"ride_rms_ms2": null' "$tmp/o1/metrics.json" && ok || bad "no null ride without the model: $(cat "$tmp/o1/metrics.json")"
"$SIM" --terrain "$T2" --scenario "$tmp/ok.ini" -o "$tmp/s2" --seed 5 --no-timing -q 2>"$tmp/err" || bad "second model run: $(cat "$tmp/err")"
grep -v '"args"' "$tmp/s1/metrics.json" >"$tmp/m1" && grep -v '"args"' "$tmp/s2/metrics.json" >"$tmp/m2" &&
    cmp -s "$tmp/m1" "$tmp/m2" && cmp -s "$tmp/s1/trajectory_ugv.csv" "$tmp/s2/trajectory_ugv.csv" && ok ||
    bad "the same seed gave another ride or trajectory"
# a ride limit below what grassland gives at speed: ride_limit events
sed 's/^ride_limit_rms_ms2 = .*/ride_limit_rms_ms2 = 0.5/' "$UGV" >"$tmp/soft_veh.ini"
scenario soft.ini "" 10,49 90,49 "$tmp/soft_veh.ini"
"$SIM" --terrain "$T2" --scenario "$tmp/soft.ini" -o "$tmp/s3" --seed 5 --no-timing -q 2>"$tmp/err" || bad "soft run: $(cat "$tmp/err")"
grep -q '"type": "ride_limit"' "$tmp/s3/events.jsonl" && ok || bad "no ride_limit event: $(cat "$tmp/s3/metrics.json")"
[ "$(grep -c '"type": "ride_limit"' "$tmp/s3/events.jsonl")" = "$(num ride_limit_events "$tmp/s3/metrics.json")" ] && ok ||
    bad "ride_limit_events does not count the events"
# the copies missing: say what to do; the options name the tables instead
# (a copy of the tool with no data directory: the bundled tables are not used)
mkdir -p "$tmp/lone"
cp "$SIM" "$tmp/lone/trv-sim"
mv "$T2/speed_soils.csv" "$tmp/soils_copy.csv"
expect 1 "'$T2/speed_soils.csv' is missing: the speed model on soil.tif needs the class tables the maps were made with; run trv-speed --terrain $T2 again" -- \
    env -u TRV_DATADIR "$tmp/lone/trv-sim" --terrain "$T2" --scenario "$tmp/ok.ini" -o "$tmp/x"
expect 1 "$tmp/none_soils.csv" -- env -u TRV_DATADIR "$tmp/lone/trv-sim" --terrain "$T2" --scenario "$tmp/ok.ini" \
    --soils "$tmp/none_soils.csv" -o "$tmp/x"
mv "$T2/speed_landuse.csv" "$tmp/landuse_copy.csv"
env -u TRV_DATADIR "$tmp/lone/trv-sim" --terrain "$T2" --scenario "$tmp/ok.ini" -o "$tmp/s4" --seed 5 --no-timing -q \
    --soils "$tmp/soils_copy.csv" --landuse-classes "$tmp/landuse_copy.csv" 2>"$tmp/err" || bad "lone run: $(cat "$tmp/err")"
grep -v '"args"' "$tmp/s4/metrics.json" >"$tmp/m4" && cmp -s "$tmp/m1" "$tmp/m4" && ok ||
    bad "--soils and --landuse-classes do not give the copies' metrics"

summary
