#!/bin/sh
# make bench, fleet part: trv-fleet planning 10 vehicles x 50 tasks on the
# 10 m Jacksboro terrain (one vehicle type, the UGV: every vehicle shares
# one run directory and roadmap), the plan alone (--no-routes: the files,
# each vehicle's time matrix through the roadmap, insertion + local
# search; no MILP): wall time (best of REPS) and CPU time, with the
# matrix's and the routing's share from fleet.json; goal under 5 s. Then
# the heuristic's gap to GLPK's MILP optimum on 10 seeded instances of 3
# vehicles x 8 tasks drawn from the same points.
# Points: seeded random cells of the largest 4-connected GO region
# (python3 with GDAL and SciPy; SKIPPED without them).
# Environment: TRV_BIN (tools, default bin), REPS (default 3), TRV_DATADIR,
# TRV_FLEET_TERRAIN (a 10 m run directory with its roadmap.gpkg to use as
# it is, read only; default: made here by the pipeline at 10 m).
set -eu
BIN=${TRV_BIN:-bin}
REPS=${REPS:-3}
DATA=${TRV_DATADIR:-data}
PY=/usr/bin/python3
w=$(mktemp -d /tmp/trv-fleet-bench-XXXXXX)
trap 'rm -rf "$w"' EXIT
die() { echo "fleet.sh: $*" >&2; exit 1; }
. "$(dirname "$0")/lib.sh"

machine_line
$PY -c "from osgeo import gdal; import scipy.ndimage" 2>/dev/null || { echo "SKIPPED: python3 with GDAL and SciPy"; exit 0; }
T=${TRV_FLEET_TERRAIN:-}
if [ -z "$T" ]; then
    echo "preparing the 10 m Jacksboro terrain and roadmap (trv-krige .. trv-roadmap)..."
    T=$w/t
    "$BIN/trv-krige" "$DATA/jacksboro/dem_3arcsec.tif" --tr 10 -o "$w/dem.tif" -q
    "$BIN/trv-terrain" -q --dem "$w/dem.tif" --soil "$DATA/jacksboro/soil_7p5arcsec.tif" \
        --landuse "$DATA/jacksboro/landuse_30m_utm16n.tif" --soil-classes "$DATA/classes/soils.csv" \
        --landuse-classes "$DATA/classes/landuse.csv" -o "$T"
    "$BIN/trv-speed" -q --terrain "$T" --vehicle "$DATA/vehicles/ugv_hua2022.ini" --soils "$DATA/classes/soils.csv" \
        --landuse-classes "$DATA/classes/landuse.csv"
    "$BIN/trv-cost" -q --terrain "$T"
    "$BIN/trv-roadmap" -q --terrain "$T" -o "$T/roadmap.gpkg" --seed 1
fi
[ -f "$T/roadmap.gpkg" ] || die "no $T/roadmap.gpkg"

# 60 points (10 starts, 50 tasks) in the largest GO region, 3 cells from its edge, seeded
$PY - "$T" "$w" <<'PYEOF'
import sys
import numpy as np
from osgeo import gdal
from scipy import ndimage
t, w = sys.argv[1], sys.argv[2]
g = gdal.Open(t + "/gonogo.tif")
go = (g.ReadAsArray() == 0) & (gdal.Open(t + "/class.tif").ReadAsArray() != 0)
lab, n = ndimage.label(go)
big = 1 + int(np.argmax(ndimage.sum(go, lab, range(1, n + 1))))
ys, xs = np.nonzero(ndimage.binary_erosion(lab == big, iterations=3))
gt = g.GetGeoTransform()
rng = np.random.default_rng(50)
pick = rng.choice(len(xs), 60, replace=False)
pts = [(gt[0] + (xs[i] + 0.5) * gt[1], gt[3] + (ys[i] + 0.5) * gt[5]) for i in pick]
with open(w + "/points.txt", "w") as f:
    for x, y in pts:
        f.write("%.2f %.2f\n" % (x, y))
PYEOF
fleet_file() { # FILE FIRST COUNT: vehicles from points FIRST.. (1-based)
    sed -n "$2,$(($2 + $3 - 1))p" "$w/points.txt" | awk -v run="$T" -v veh="$DATA/vehicles/ugv_hua2022.ini" \
        '{ printf "[vehicle.v%d]\nvehicle = %s\nrun = %s\nstart = %s,%s\n\n", NR, veh, run, $1, $2 }' >"$1"
}
task_file() { # FILE FIRST COUNT
    { echo "id,x,y,service_s"; sed -n "$2,$(($2 + $3 - 1))p" "$w/points.txt" | awk '{ printf "t%d,%s,%s,60\n", NR, $1, $2 }'; } >"$1"
}
fleet_file "$w/f10.ini" 1 10
task_file "$w/t50.csv" 11 50
SRS=$(gdalsrsinfo -o epsg "$T/gonogo.tif" 2>/dev/null | head -1)
case $SRS in EPSG:*) ;; *) SRS=EPSG:32616 ;; esac

run() { "$BIN/trv-fleet" -q --srs "$SRS" --no-routes "$@"; }
r=$(best "$BIN/trv-fleet" -q --srs "$SRS" --no-routes --fleet "$w/f10.ini" --tasks "$w/t50.csv" --no-exact --out "$w/o")
/usr/bin/time -f "%U %S" -o "$w/cpu" "$BIN/trv-fleet" -q --srs "$SRS" --no-routes --fleet "$w/f10.ini" \
    --tasks "$w/t50.csv" --no-exact --out "$w/o"
J=$w/o/fleet.json
num() { sed -n "s/.*\"$1\": \([0-9.e+-]*\).*/\1/p" "$2" | head -1; }
echo "10 vehicles x 50 tasks, one vehicle type: wall $(echo "$r" | cut -d' ' -f1) s (best of $REPS), CPU $(awk '{print $1 + $2}' "$w/cpu") s (user+sys), $(echo "$r" | cut -d' ' -f2) kB;" \
    "matrix $(num build_s "$J") s, routing $(num assign_s "$J") s; served $(num served "$J") of 50, total $(num total_s "$J") s, makespan $(num makespan_s "$J") s"
awk -v s="$(echo "$r" | cut -d' ' -f1)" 'BEGIN { exit !(s < 5) }' && echo "goal < 5 s: met" || echo "goal < 5 s: NOT met"

# the heuristic against GLPK's optimum: 3 vehicles x 8 tasks, 10 instances
gaps=""
for k in 0 1 2 3 4 5 6 7 8 9; do
    fleet_file "$w/f3.ini" $((1 + (k * 11) % 50)) 3
    task_file "$w/t8.csv" $((4 + (k * 11) % 50)) 8
    run --fleet "$w/f3.ini" --tasks "$w/t8.csv" --exact --out "$w/g$k" >/dev/null
    gaps="$gaps $(num gap "$w/g$k/fleet.json"):$(num solve_s "$w/g$k/fleet.json")"
done
echo "$gaps" | tr ' ' '\n' | awk -F: 'NF == 2 { n++; g = $1 * 100; s += g; if (g > m) m = g; if (g < 1e-9) z++; t += $2 }
    END { printf "heuristic vs MILP optimum, 3 vehicles x 8 tasks: %d instances, %d optimal, mean gap %.2f %%, max %.2f %%; MILP %.2f s each on average\n", n, z, s / n, m, t / n }'
