#!/bin/sh
# trv-fleet on two 90 m Jacksboro terrains made by the pipeline, one per
# vehicle type (the UGV and the tracked carrier, each its own GO/NOGO map
# and roadmap): the plan's files, tasks only the carrier reaches served by
# it and named out of the UGVs' reach, a task in NOGO for all unserved;
# the heuristic against GLPK's optimum (gap >= 0); the time matrix against
# trv-route's least-time objective for the same pairs (the matrix is the
# roadmap's shortest path before the A*'s shortcuts: never below it, at
# most 5 % above); the table adds up to the summary; each route passes
# through its tasks (PROJ's gdaltransform); --assign one and makespan;
# trv-sim drives the scenario as written; every file error named with
# file:line and nothing created; the usage errors. Ends with
# "N passed, N failed, N skipped".
set -u
BIN=${TRV_BIN:-bin}
DATA=${TRV_DATADIR:-data}
tmp=$(mktemp -d /tmp/trv-fleet-test-XXXXXX)
trap 'rm -rf "$tmp"' EXIT
. "$(dirname "$0")/lib.sh"

mkdir -p "$tmp/a" "$tmp/b"
terrain90 "$tmp/a/ugv" ugv_hua2022.ini "$tmp/a/ugv/roadmap.gpkg" &&
    terrain90 "$tmp/b/trk" tracked_carrier.ini "$tmp/b/trk/roadmap.gpkg" || { echo "cannot make the terrains"; exit 1; }
S1=-84.3637,36.6957 S2=-84.1994,36.5216 S3=-84.20215,36.65064
cat >"$tmp/fleet.ini" <<EOT
[vehicle.ugv1]
vehicle = $DATA/vehicles/ugv_hua2022.ini
run = a/ugv
start = $S1

[vehicle.ugv2]
vehicle = $DATA/vehicles/ugv_hua2022.ini
run = a/ugv
start = $S2
capacity = 2

[vehicle.trk]
vehicle = $DATA/vehicles/tracked_carrier.ini
run = b/trk
start = $S3
model = skid
available_s = 600
EOT
cat >"$tmp/tasks.csv" <<EOT
id,x,y,service_s,open_s,close_s
t1,-84.36732,36.5295,60,,
t2,-84.14884,36.67695,60,,
t3,-84.30,36.60,120,,
t4,-84.25,36.55,,3600,
t5,-84.32,36.66,30,,
t6,-84.18,36.60,30,,
EOT
fleet() { "$BIN/trv-fleet" -q --fleet "$tmp/fleet.ini" --tasks "$tmp/tasks.csv" --no-timing "$@"; }
num() { sed -n "s/.*\"$1\": \([0-9.e+-]*\).*/\1/p" "$2" | head -1; }

# ---- the plan (routes; the MILP by default on 6 tasks) ----
fleet --out "$tmp/o" 2>"$tmp/err" && ok || bad "trv-fleet: $(cat "$tmp/err")"
J=$tmp/o/fleet.json
for f in fleet.json fleet.csv matrix.csv fleet.ini ugv1.geojson ugv1.gpx ugv1.csv trk.geojson trk.gpx trk.csv; do
    [ -s "$tmp/o/$f" ] && ok || bad "no $f"
done
[ "$(num served "$J")" = 5 ] && grep -q '"unserved": \[\s*"t3"\s*\]' "$J" 2>/dev/null ||
    python3 -c "import json,sys; d=json.load(open('$J')); sys.exit(not (d['served'] == 5 and d['unserved'] == ['t3']))" &&
    ok || bad "served 5, t3 unserved: $(cat "$J")"
python3 -c "
import json, sys
d = json.load(open('$J'))
u = {(x['vehicle'], x['task']): x['why'] for x in d['unreachable']}
trk = [v for v in d['vehicles'] if v['id'] == 'trk'][0]['tasks']
sys.exit(not (u[('ugv1', 't4')] == 'no route on the roadmap' and u[('ugv2', 't6')] == 'no route on the roadmap'
              and u[('trk', 't3')] == 'in NOGO' and ('trk', 't4') not in u and 't4' in trk and 't6' in trk))" &&
    ok || bad "per-type reach: t4 and t6 the carrier's alone: $(cat "$J")"
python3 -c "
import json, sys
d = json.load(open('$J'))
h, m = d['heuristic']['total_s'], d['milp']['total_s']
sys.exit(not (d['milp']['status'] == 'optimal' and d['gap'] >= 0 and abs(h / m - 1 - d['gap']) < 1e-5
              and abs(d['total_s'] - min(h, m)) < 1e-3))" && ok || bad "heuristic vs MILP: $(cat "$J")"
awk -F, -v T="$(num total_s "$J")" 'NR > 1 { s += $4 } END { exit !(s - T < 0.01 && T - s < 0.01) }' "$tmp/o/fleet.csv" &&
    ok || bad "fleet.csv's times do not add up to total_s"

# the stops are named after the tasks (the GPX's waypoints, the GeoJSON legs' from/to), in the plan's order
python3 -c "
import json, re, sys
d = json.load(open('$J'))
tasks = [v for v in d['vehicles'] if v['id'] == 'trk'][0]['tasks']
gpx = re.findall(r'<name>([^<]*)</name>', open('$tmp/o/trk.gpx').read())
legs = [f['properties'] for f in json.load(open('$tmp/o/trk.geojson'))['features'] if f['properties'].get('leg')]
sys.exit(not (tasks and [l['to'] for l in legs] == tasks and legs[0]['from'] == 'start'
              and all(t in gpx for t in tasks) and 'goal' not in gpx))" && ok || bad "trk's stops not named after its tasks"

# ---- the matrix against trv-route's least-time objective ----
for p in "ugv1 start t2 a/ugv $S1 -84.14884,36.67695" "ugv2 start t1 a/ugv $S2 -84.36732,36.5295" \
    "ugv1 t1 t5 a/ugv -84.36732,36.5295 -84.32,36.66" "trk start t4 b/trk $S3 -84.25,36.55"; do
    set -- $p
    "$BIN/trv-route" -q --roadmap "$tmp/$4/roadmap.gpkg" --terrain "$tmp/$4" --from "$5" --to "$6" --strategy time \
        --corridor 0 --no-smooth --no-timing -o "$tmp/r.geojson" 2>/dev/null
    o=$(num objective "$tmp/route.json")
    m=$(awk -F, -v v="$1" -v a="$2" -v b="$3" '$1 == v && $2 == a && $3 == b { print $4 }' "$tmp/o/matrix.csv")
    awk -v o="$o" -v m="$m" 'BEGIN { exit !(o != "" && m != "" && o <= m + 1e-3 && m <= 1.05 * o) }' &&
        ok || bad "matrix $1 $2->$3: $m s against trv-route's $o s"
done

# ---- the carrier's route passes through its tasks, in the plan's order ----
for t in $(python3 -c "import json; print(' '.join([v for v in json.load(open('$J'))['vehicles'] if v['id'] == 'trk'][0]['tasks']))"); do
    ll=$(awk -F, -v t="$t" '$1 == t { print $2, $3 }' "$tmp/tasks.csv")
    xy=$(echo "$ll" | gdaltransform -s_srs EPSG:4326 -t_srs EPSG:32616 -output_xy)
    awk -F, -v p="$xy" 'BEGIN { split(p, q, " ") } NR > 1 && ($2 - q[1]) ^ 2 + ($3 - q[2]) ^ 2 < 0.02 ^ 2 { hit = 1 }
        END { exit !hit }' "$tmp/o/trk.csv" && ok || bad "no vertex of trk's route at task $t ($xy)"
done

# ---- one task per vehicle: min total, min makespan ----
fleet --out "$tmp/one" --assign one 2>"$tmp/err" && fleet --out "$tmp/mk" --assign makespan 2>>"$tmp/err" &&
    ok || bad "--assign one/makespan: $(cat "$tmp/err")"
awk -F, 'FNR > 1 && $3 > 1 { exit 1 }' "$tmp/one/fleet.csv" "$tmp/mk/fleet.csv" && ok || bad "a vehicle with two tasks"
[ "$(num served "$tmp/one/fleet.json")" = 3 ] && [ "$(num served "$tmp/mk/fleet.json")" = 3 ] && ok || bad "one: 3 served"
awk -v a="$(num makespan_s "$tmp/mk/fleet.json")" -v b="$(num makespan_s "$tmp/one/fleet.json")" \
    -v c="$(num total_s "$tmp/mk/fleet.json")" -v d="$(num total_s "$tmp/one/fleet.json")" \
    'BEGIN { exit !(a <= b + 1e-3 && c >= d - 1e-3) }' && ok || bad "makespan: not below one's, or total below"

# ---- trv-sim drives the scenario as written (the UGVs on their terrain) ----
sed -n '1,/^\[vehicle.trk\]/p' "$tmp/fleet.ini" | sed '$d' >"$tmp/ugv.ini"
"$BIN/trv-fleet" -q --fleet "$tmp/ugv.ini" --tasks "$tmp/tasks.csv" --out "$tmp/u" --no-timing 2>"$tmp/err" &&
    "$BIN/trv-sim" -q --terrain "$tmp/a/ugv" --scenario "$tmp/u/fleet.ini" -o "$tmp/sim" --no-timing 2>>"$tmp/err" &&
    ok || bad "trv-sim on the fleet scenario: $(cat "$tmp/err")"
python3 -c "
import json, sys
v = json.load(open('$tmp/sim/metrics.json'))['vehicles']
sys.exit(not (len(v) == 2 and all(x['collisions'] == 0 for x in v)))" && ok || bad "sim: two vehicles, no collision"

# ---- a mixed fleet in one trv-sim run: each vehicle on its own type's map ----
# (the scenario's terrain key, written by trv-fleet). The carrier's tasks
# t4 and t6 are out of the UGV's reach: on the UGV's map its route would
# cross NOGO cells; on its own its planned time is finite and the one
# trv-sim gives driving it alone on the carrier's terrain.
[ "$(grep -c '^terrain = .*/b/trk$' "$tmp/o/fleet.ini")" = 1 ] && [ "$(grep -c '^terrain = .*/a/ugv$' "$tmp/o/fleet.ini")" = 2 ] &&
    ok || bad "fleet.ini: no terrain per vehicle: $(cat "$tmp/o/fleet.ini")"
"$BIN/trv-sim" -q --terrain "$tmp/a/ugv" --scenario "$tmp/o/fleet.ini" -o "$tmp/simx" --no-timing 2>"$tmp/err" &&
    ok || bad "trv-sim on the mixed fleet: $(cat "$tmp/err")"
sed -n '/^\[vehicle.trk\]/,$p' "$tmp/o/fleet.ini" | grep -v '^terrain' >"$tmp/o/trk_only.ini"
"$BIN/trv-sim" -q --terrain "$tmp/b/trk" --scenario "$tmp/o/trk_only.ini" -o "$tmp/simt" --no-timing 2>"$tmp/err" &&
    ok || bad "trv-sim, the carrier alone on its terrain: $(cat "$tmp/err")"
sed -n '/^\[vehicle.trk\]/,$p' "$tmp/o/fleet.ini" >"$tmp/o/trk_ugvmap.ini"
sed 's/^terrain = .*/terrain = ..\/a\/ugv/' "$tmp/o/trk_ugvmap.ini" >"$tmp/o/trk_on_ugv.ini"
"$BIN/trv-sim" -q --terrain "$tmp/b/trk" --scenario "$tmp/o/trk_on_ugv.ini" -o "$tmp/simu" --no-timing 2>"$tmp/err" &&
    ok || bad "trv-sim, the carrier on the UGV's map: $(cat "$tmp/err")"
python3 -c "
import json, math, sys
m = {x['id']: x for x in json.load(open('$tmp/simx/metrics.json'))['vehicles']}
t = json.load(open('$tmp/simt/metrics.json'))['vehicles'][0]
u = json.load(open('$tmp/simu/metrics.json'))['vehicles'][0]
ok = (sorted(m) == ['trk', 'ugv1', 'ugv2'] and all(x['collisions'] == 0 for x in m.values())
      and m['trk']['planned_time_s'] is not None and math.isfinite(m['trk']['planned_time_s'])
      and abs(m['trk']['planned_time_s'] - t['planned_time_s']) < 1e-3
      and u['planned_time_s'] is None)
sys.exit(not ok)" && ok || bad "mixed fleet: each on its own map: $(cat "$tmp/simx/metrics.json" "$tmp/simu/metrics.json")"
printf '[vehicle.a]\nfile = %s\nroute = %s\nterrain = %s\n' "$DATA/vehicles/ugv_hua2022.ini" "$tmp/o/ugv1.csv" \
    "$tmp" >"$tmp/bad_terrain.ini"
"$BIN/trv-sim" -q --terrain "$tmp/a/ugv" --scenario "$tmp/bad_terrain.ini" -o "$tmp/simb" 2>"$tmp/err"
[ $? = 1 ] && grep -q "vehicle 'a'" "$tmp/err" && [ ! -e "$tmp/simb" ] && ok || bad "a vehicle's missing terrain: $(cat "$tmp/err")"

# ---- issue 18's check: 5 vehicles (3 UGVs, 2 carriers) and 12 tasks on
# Jacksboro, at most 3 tasks each (so 4 vehicles at least), planned (the
# heuristic: above the MILP's 10 tasks) and driven
# in one trv-sim run, each on its own map: every vehicle with tasks at
# its last one, no collision ----
cat >"$tmp/f5.ini" <<EOT
[vehicle.u1]
vehicle = $DATA/vehicles/ugv_hua2022.ini
run = a/ugv
start = $S1
capacity = 3

[vehicle.u2]
vehicle = $DATA/vehicles/ugv_hua2022.ini
run = a/ugv
start = $S2
capacity = 3

[vehicle.u3]
vehicle = $DATA/vehicles/ugv_hua2022.ini
run = a/ugv
start = -84.38585,36.66563
capacity = 3

[vehicle.c1]
vehicle = $DATA/vehicles/tracked_carrier.ini
run = b/trk
start = $S3
capacity = 3
model = skid

[vehicle.c2]
vehicle = $DATA/vehicles/tracked_carrier.ini
run = b/trk
start = -84.22927,36.65209
capacity = 3
model = skid
EOT
{ sed -n '1,10p' "$DATA/jacksboro/tasks.csv"; sed -n '2,3p;6p' "$tmp/tasks.csv"; } >"$tmp/t12.csv"
"$BIN/trv-fleet" -q --fleet "$tmp/f5.ini" --tasks "$tmp/t12.csv" --out "$tmp/f5" --no-timing 2>"$tmp/err" &&
    "$BIN/trv-sim" -q --terrain "$tmp/a/ugv" --scenario "$tmp/f5/fleet.ini" -o "$tmp/f5sim" --no-timing 2>>"$tmp/err" &&
    ok || bad "5 vehicles, 12 tasks: $(cat "$tmp/err")"
python3 -c "
import json, sys
p = json.load(open('$tmp/f5/fleet.json'))
m = {x['id']: x for x in json.load(open('$tmp/f5sim/metrics.json'))['vehicles']}
busy = [v['id'] for v in p['vehicles'] if v['tasks']]
print('5 x 12: served', p['served'], 'by', busy, '; ends', {k: (x['end'], x['collisions']) for k, x in m.items()})
sys.exit(not (p['tasks_n'] == 12 and p['served'] >= 10 and len(busy) >= 4 and sorted(m) == sorted(busy)
              and all(x['end'] == 'goal' and x['collisions'] == 0 for x in m.values())))" &&
    ok || bad "5 x 12: every vehicle at its last task, no collision"
# every task served in the drive: its vehicle's trajectory within 5 m of it
awk -F, 'NR > 1 { print $1 }' "$tmp/t12.csv" >"$tmp/t12.id"
awk -F, 'NR > 1 { print $2, $3 }' "$tmp/t12.csv" | gdaltransform -s_srs EPSG:4326 -t_srs EPSG:32616 -output_xy |
    paste -d' ' "$tmp/t12.id" - >"$tmp/t12.xy"
python3 -c "
import csv, json, math, sys
xy = {l.split()[0]: (float(l.split()[1]), float(l.split()[2])) for l in open('$tmp/t12.xy')}
far = []
for v in json.load(open('$tmp/f5/fleet.json'))['vehicles']:
    if not v['tasks']:
        continue
    tr = [(float(r['x']), float(r['y'])) for r in csv.DictReader(open('$tmp/f5sim/trajectory_%s.csv' % v['id']))]
    for t in v['tasks']:
        d = min(math.hypot(x - xy[t][0], y - xy[t][1]) for x, y in tr)
        if d > 5:
            far.append((v['id'], t, round(d, 1)))
print('5 x 12: tasks the drive passed farther than 5 m from:', far)
sys.exit(bool(far) or len(xy) != 12)" && ok || bad "5 x 12: a task not reached in the drive"

# ---- file errors: file:line, exit 1, nothing created ----
fails() { # FRAGMENT FLEET TASKS
    "$BIN/trv-fleet" -q --fleet "$2" --tasks "$3" --out "$tmp/x" 2>"$tmp/err"
    rc=$?
    [ $rc = 1 ] && grep -qF -- "$1" "$tmp/err" && [ ! -e "$tmp/x" ] && ok || bad "want '$1' (exit 1), got $rc: $(cat "$tmp/err")"
}
F=$tmp/f.ini T=$tmp/tasks.csv
printf '[vehicle.a]\nvehicle = v.ini\nrun = r\nstart = 1,2\n[vehicle.a]\n' >"$F"
fails "f.ini:5: vehicle 'a' given twice" "$F" "$T"
printf '[vehicle.a]\nvehicle = v.ini\nrun = r\nstart = 1,2\nspeed = 3\n' >"$F"
fails "f.ini:5: unknown key 'speed'" "$F" "$T"
printf '[vehicle.a]\nvehicle = v.ini\nrun = r\nstart = 1;2\n' >"$F"
fails "f.ini:1: vehicle 'a': start '1;2' is not X,Y" "$F" "$T"
printf '[vehicle.a]\nvehicle = v.ini\nstart = 1,2\n' >"$F"
fails "f.ini: missing key 'run' in [vehicle.a]" "$F" "$T"
printf '[vehicle.a]\nvehicle = v.ini\nrun = r\nstart = 1,2\ncapacity = -1\n' >"$F"
fails "f.ini:5:" "$F" "$T"
printf '[scenario]\n' >"$F"
fails "f.ini: no [vehicle.ID] section" "$F" "$T"
printf '[vehicle.a]\nvehicle = v.ini\nrun = %s\nstart = -84.30,36.60\n' "$tmp/a/ugv" >"$F"
fails "f.ini:1: vehicle 'a': its start (-84.3,36.6) lies in a NOGO cell" "$F" "$T"
printf '[vehicle.a]\nvehicle = v.ini\nrun = %s\nstart = -80,36.6\n' "$tmp/a/ugv" >"$F"
fails "lies outside the map" "$F" "$T"
G=$tmp/t.csv
printf 'id,x\nt1,1\n' >"$G"
fails "t.csv: no column 'y'" "$tmp/fleet.ini" "$G"
printf 'id,x,y\nt1,1,abc\n' >"$G"
fails "t.csv:2" "$tmp/fleet.ini" "$G"
printf 'id,x,y\nt1,1,2\nt1,3,4\n' >"$G"
fails "t.csv:3: task 't1' given twice (line 2)" "$tmp/fleet.ini" "$G"
printf 'id,x,y,open_s,close_s\nt1,1,2,100,50\n' >"$G"
fails "t.csv:2: task 't1': close_s 50 is before open_s 100" "$tmp/fleet.ini" "$G"
printf 'id,x,y\n,1,2\n' >"$G"
fails "t.csv:2: task id '' must have 1 to 31 characters" "$tmp/fleet.ini" "$G"
printf 'id,x,y\n' >"$G"
fails "t.csv: no task" "$tmp/fleet.ini" "$G"

# ---- usage errors: exit 2 ----
usage() { # FRAGMENT ARGS...
    want=$1
    shift
    fleet --out "$tmp/x" "$@" 2>"$tmp/err"
    rc=$?
    [ $rc = 2 ] && grep -qF -- "$want" "$tmp/err" && [ ! -e "$tmp/x" ] && ok || bad "want '$want' (exit 2), got $rc"
}
usage "--exact and --no-exact go with --assign routes" --assign one --exact
usage "--exact and --no-exact exclude each other" --exact --no-exact
usage "--milp-time must be in (0, 86400] s" --milp-time 0

summary
