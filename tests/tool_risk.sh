#!/bin/sh
# trv-route --risk and --mc (issue 17) on a 90 m Jacksboro terrain: a
# hand-made P(NOGO) wall with one gap across the straight way: above the
# wall's P the route is the plain one, below it the route detours through
# the gap and crosses no cell above --risk; P(passable) on hand-made
# realisations (a cliff across the whole grid in 2 of 5: 3/5 for every
# route, the three others one time); --risk 0 with no risky cell; bad
# inputs; --risk with --zones (a zone across the wall's gap: no route, both
# named), --alternatives and --via/--visit (every route and leg under both
# rules; a waypoint on a risky cell exempt). Ends with "N passed, N failed, N skipped".
set -u
BIN=$(cd "${TRV_BIN:-bin}" && pwd)
DATA=$(cd "${TRV_DATADIR:-data}" && pwd)
PY=/usr/bin/python3
tmp=$(mktemp -d /tmp/trv-risk-test-XXXXXX)
trap 'rm -rf "$tmp"' EXIT
. "$(dirname "$0")/lib.sh"
expect() { # status message -- command...: and no route written
    want=$1 msg=$2
    shift 3
    "$@" >"$tmp/stdout" 2>"$tmp/stderr"
    got=$?
    if [ "$got" != "$want" ]; then bad "$* -> exit $got, want $want ($(cat "$tmp/stderr"))"; return; fi
    if ! grep -qF -- "$msg" "$tmp/stderr"; then bad "$* -> stderr lacks '$msg': $(cat "$tmp/stderr")"; return; fi
    if [ -e "$tmp/x.geojson" ]; then bad "$* left a route behind"; return; fi
    ok
}
if ! $PY -c 'from osgeo import gdal; import numpy' 2>/dev/null; then
    skip "python3 with osgeo and numpy is needed"
    summary tool_risk
    exit $?
fi
T=$tmp/t
if ! terrain90 "$T" truck_6x6.ini "$tmp/rm.gpkg" >/dev/null; then
    bad "cannot make the 90 m terrain"
    summary tool_risk
    exit 1
fi
FROM=-84.3637,36.6957 TO=-84.1994,36.5216
route() { # NAME [options]: the mdr route into $tmp/NAME.*
    n=$1
    shift
    "$BIN/trv-route" -q --no-timing --roadmap "$tmp/rm.gpkg" --terrain "$T" --from $FROM --to $TO --strategy "${STRAT:-mdr}" \
        -o "$tmp/$n.geojson" --csv "$tmp/$n.csv" --stats "$tmp/$n.stats.csv" "$@"
}

# --- the wall: P = 0.5 on three columns across the grid where the mdr and
# the msr routes cross them farthest apart, a gap of P = 0.01 where msr
# crosses (so a way through it exists); the plain route crosses the wall --
if ! route plain; then bad "plain route failed"; fi
if ! STRAT=msr route other; then bad "msr route failed"; fi
$PY - "$T" "$tmp/plain.csv" "$tmp/other.csv" <<'EOF'
import sys, csv, numpy as np
from osgeo import gdal
d = sys.argv[1]
ds = gdal.Open(d + '/dem.tif'); gt = ds.GetGeoTransform(); nx, ny = ds.RasterXSize, ds.RasterYSize
def rows_at(path):  # per column, the rows the route crosses it in
    xy = np.array([[float(r['x']), float(r['y'])] for r in csv.DictReader(open(path))])
    out = {}
    for (x0, y0), (x1, y1) in zip(xy[:-1], xy[1:]):
        n = int(np.hypot(x1 - x0, y1 - y0)) + 2
        t = np.linspace(0, 1, n)
        for c, r in zip(((x0 + t * (x1 - x0) - gt[0]) / gt[1]).astype(int), ((y0 + t * (y1 - y0) - gt[3]) / gt[5]).astype(int)):
            out.setdefault(int(c), set()).add(int(r))
    return out
a, b = rows_at(sys.argv[2]), rows_at(sys.argv[3])
cols = [c for c in a if all(k in a and k in b for k in (c - 1, c, c + 1))]
far = lambda c: min(abs(i - j) for k in (c - 1, c, c + 1) for i in a[k] for j in b[k])
c = max(cols, key=far)
p = np.zeros((ny, nx), np.float32)
p[:, c - 1:c + 2] = 0.5
rb = sorted(b[c - 1] | b[c] | b[c + 1])
p[rb[0] - 1:rb[-1] + 2, c - 1:c + 2] = 0.01
o = gdal.GetDriverByName('GTiff').Create(d + '/p_nogo.tif', nx, ny, 1, gdal.GDT_Float32)
o.SetGeoTransform(gt); o.SetProjection(ds.GetProjection())
o.GetRasterBand(1).WriteArray(p); o.GetRasterBand(1).SetNoDataValue(-9999)
EOF
# the largest P(NOGO) a route's polyline meets (sampled every metre)
pmax() {
    $PY - "$T/p_nogo.tif" "$1" <<'EOF'
import sys, csv, numpy as np
from osgeo import gdal
ds = gdal.Open(sys.argv[1]); gt = ds.GetGeoTransform(); p = ds.GetRasterBand(1).ReadAsArray()
rows = list(csv.DictReader(open(sys.argv[2])))
xy = np.array([[float(r['x']), float(r['y'])] for r in rows])
m = 0.0
for (x0, y0), (x1, y1) in zip(xy[:-1], xy[1:]):
    n = int(np.hypot(x1 - x0, y1 - y0)) + 2
    t = np.linspace(0, 1, n)
    c = ((x0 + t * (x1 - x0) - gt[0]) / gt[1]).astype(int); r = ((y0 + t * (y1 - y0) - gt[3]) / gt[5]).astype(int)
    m = max(m, float(p[r, c].max()))
print(m)
EOF
}
dist() { sed -n 2p "$1" | cut -d, -f2; }
got=$(pmax "$tmp/plain.csv")
[ "$got" = 0.5 ] && ok || bad "the plain route does not cross the wall (max P $got): the check would be weak"
if route high --risk 0.6; then
    if cmp -s "$tmp/plain.csv" "$tmp/high.csv"; then ok; else bad "--risk 0.6 (above the wall) changed the route"; fi
else
    bad "--risk 0.6 failed: $(cat "$tmp/stderr" 2>/dev/null)"
fi
if route low --risk 0.3; then
    got=$(pmax "$tmp/low.csv") dp=$(dist "$tmp/plain.stats.csv") dl=$(dist "$tmp/low.stats.csv")
    awk -v p="$got" 'BEGIN { exit !(p <= 0.3) }' && ok || bad "--risk 0.3: the route meets P(NOGO) $got"
    awk -v a="$dp" -v b="$dl" 'BEGIN { exit !(b > a + 500) }' && ok || bad "--risk 0.3: not a detour ($dl m vs $dp m)"
    grep -q '"risk_alpha": 0.3' "$tmp/route.json" && ok || bad "route.json lacks risk_alpha"
else
    bad "--risk 0.3 failed"
fi

# --- --risk with --zones, --alternatives, --via (risk_check.py: the cells
# each route's polyline crosses, sampled every metre) --------------------------
CK="$PY $(dirname "$0")/risk_check.py"
set -- $($CK wall "$T/p_nogo.tif")
$CK rect "$T/p_nogo.tif" "$tmp/gap.json" $(($1 - 1)) $(($2 + 1)) $(($3 - 1)) $(($4 + 1)) 5
# a zone across the only low-risk corridor: either alone leaves a route, both cut it
route zgap --zones "$tmp/gap.json" && ok || bad "the gap's zone alone: no route"
expect 1 "not reachable from the start under the zones of '$tmp/gap.json' and '$T/p_nogo.tif at --risk 0.3': the nogo zone (feature 5) cuts them apart" -- \
    route x --zones "$tmp/gap.json" --risk 0.3
# a square on the low-risk route away from the wall: the route keeps out of both
# (halfway along it: at 0.6 the square closes a passage the roadmap's
# detour bridges take, and with no roadmap path left there are no
# alternatives, only the raster's route)
$CK square "$T/p_nogo.tif" "$tmp/sq.json" "$tmp/low.csv" 0.5 2
$CK meets "$T/p_nogo.tif" "$tmp/low.csv" "$tmp/sq.json" | awk '$3 > 0 { n++ } END { exit n != 1 }' && ok ||
    bad "the square misses the low-risk route: the checks below would be weak"
within() { # N CSV [ZONE [R C]]: at least N routes, every one at most P 0.3, none in ZONE
    n=$1
    shift
    out=$($CK meets "$T/p_nogo.tif" "$@")
    echo "$out" | awk -v n="$n" '$2 > 0.3 || $3 > 0 { b++ } END { exit b || NR < n }' && ok || bad "$1: $out"
}
if route zsq --zones "$tmp/sq.json" --risk 0.3; then within 1 "$tmp/zsq.csv" "$tmp/sq.json"; else bad "--zones square --risk 0.3 failed"; fi
# --alternatives: every route of the set (rank 1 unconstrained crosses P 0.5: the plain route)
ALT="--alternatives 3 --max-stretch 1.5 --max-overlap 0.9 --local-opt 0.05"
if route alt --zones "$tmp/sq.json" --risk 0.3 $ALT; then within 3 "$tmp/alt.csv" "$tmp/sq.json"; else bad "--alternatives with --risk failed"; fi
# --via a point past the wall on the plain route: every leg under the rule
W=$($CK vertex "$T/p_nogo.tif" "$tmp/plain.csv" 0.75)
if route via --via "$W" --risk 0.3; then within 1 "$tmp/via.csv"; else bad "--via with --risk failed"; fi
# a waypoint on a wall cell (P 0.5) is exempt as the start and the goal are: the route
# meets P above 0.3 in that cell alone
set -- $($CK edge "$T/p_nogo.tif" "$T/gonogo.tif")
W=$($CK cell "$T/p_nogo.tif" "$1" "$2")
if route exempt --visit "$W;$($CK vertex "$T/p_nogo.tif" "$tmp/plain.csv" 0.75)" --risk 0.3 --zones "$tmp/sq.json"; then
    within 1 "$tmp/exempt.csv" "$tmp/sq.json" "$1" "$2"
    $CK meets "$T/p_nogo.tif" "$tmp/exempt.csv" | awk '{ exit !($2 == 0.5) }' && ok || bad "the waypoint's cell is not on the route"
else
    bad "--visit through a risky waypoint's cell: $(cat "$tmp/stderr" 2>/dev/null)"
fi

# --- P(passable) on hand-made realisations ------------------------------------
$PY - "$T/dem.tif" "$T/dem_sim.tif" <<'EOF'
import sys, numpy as np
from osgeo import gdal
ds = gdal.Open(sys.argv[1]); dem = ds.GetRasterBand(1).ReadAsArray()
o = gdal.GetDriverByName('GTiff').Create(sys.argv[2], ds.RasterXSize, ds.RasterYSize, 5, gdal.GDT_Float32)
o.SetGeoTransform(ds.GetGeoTransform()); o.SetProjection(ds.GetProjection())
for k in range(5):
    z = dem.copy()
    if k in (1, 3):          # a cliff across the whole grid: NOGO by slope on its rows
        r = dem.shape[0] // 2
        z[r:r + 2, :] = np.where(dem[r:r + 2, :] == -9999, -9999, dem[r:r + 2, :] + 800)
    b = o.GetRasterBand(k + 1); b.WriteArray(z); b.SetNoDataValue(-9999)
EOF
rm -f "$T/p_nogo.tif"
if "$BIN/trv-route" -q --no-timing --roadmap "$tmp/rm.gpkg" --terrain "$T" --from $FROM --to $TO --compare \
    -o "$tmp/mc.geojson" --stats "$tmp/mc.csv" --csv "$tmp/mcv.csv" --mc 5; then
    # the passable realisations are dem.tif: their time is the sum of
    # length / speed.tif along the route (sampled every metre here)
    out=$($PY - "$tmp/mc.csv" "$tmp/mcv.csv" "$T/speed.tif" <<'EOF'
import sys, csv, numpy as np
from osgeo import gdal
ds = gdal.Open(sys.argv[3]); gt = ds.GetGeoTransform(); v = ds.GetRasterBand(1).ReadAsArray().astype(float)
verts = {}
for r in csv.DictReader(open(sys.argv[2])):
    verts.setdefault(r['route'], []).append((float(r['x']), float(r['y'])))
bad = []
for r in csv.DictReader(open(sys.argv[1])):
    if r['mc_realizations'] != '5' or r['p_passable'] != '0.6000': bad.append('%s: %s of %s' % (r['route'], r['p_passable'], r['mc_realizations']))
    q = [float(r['time_p%d0_h' % i]) for i in (1, 5, 9)]
    xy = np.array(verts[r['route']]); T = 0.0
    for (x0, y0), (x1, y1) in zip(xy[:-1], xy[1:]):
        L = np.hypot(x1 - x0, y1 - y0); n = max(int(L), 1); t = (np.arange(n) + 0.5) / n
        c = ((x0 + t * (x1 - x0) - gt[0]) / gt[1]).astype(int); w = ((y0 + t * (y1 - y0) - gt[3]) / gt[5]).astype(int)
        T += np.sum(L / n / (v[w, c] / 3.6)) / 3600
    if not (q[0] == q[1] == q[2]) or abs(q[1] - T) > 0.01 * T: bad.append('%s times %s vs %.4f' % (r['route'], q, T))
print('; '.join(bad) or 'OK')
EOF
)
    [ "$out" = OK ] && ok || bad "--mc 5: $out"
    grep -q '"p_passable": 0.6' "$tmp/route.json" && ok || bad "route.json lacks p_passable"
else
    bad "--mc 5 failed"
fi

# --- bad inputs -------------------------------------------------------------------
R="$BIN/trv-route --roadmap $tmp/rm.gpkg --terrain $T --from $FROM --to $TO -o $tmp/x.geojson"
expect 2 "--risk must be a probability >= 0 and < 1" -- $R --risk 1
expect 2 "--mc does not take --via" -- $R --mc 3 --via $FROM
expect 1 "p_nogo.tif': no such file" -- $R --risk 0.1
expect 1 "holds 5 realisations, --mc asks for 6" -- $R --mc 6
gdal_translate -q -srcwin 0 0 50 50 "$T/dem_sim.tif" "$tmp/small.tif" && mv "$tmp/small.tif" "$T/dem_sim.tif"
expect 1 "does not match" -- $R --mc 2
summary tool_risk
