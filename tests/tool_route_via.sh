#!/bin/sh
# trv-route through waypoints (--via, --visit, --return) on a 90 m
# Jacksboro terrain made by the pipeline: the legs' statistics add up to
# the whole route's; the route passes through each waypoint (a vertex at
# its coordinates, PROJ's cs2cs transforming them) and the CSV's leg column
# changes there; the GeoJSON's features and GPX's named waypoints read back
# by OGR; --visit's order against every --via permutation of its stops
# (corridor off, so that a leg's objective is the matrix entry); --return
# ends at the start; the usage errors, and every waypoint error naming its
# number (outside, NOGO, duplicate, unreachable: cells found by GDAL's
# Python bindings, SKIPPED without them). Ends with
# "N passed, N failed, N skipped".
set -u
BIN=${TRV_BIN:-bin}
DATA=${TRV_DATADIR:-data}
tmp=$(mktemp -d /tmp/trv-via-test-XXXXXX)
trap 'rm -rf "$tmp"' EXIT
. "$(dirname "$0")/lib.sh"
PY=/usr/bin/python3

T=$tmp/t
terrain90 "$T" truck_6x6.ini "$tmp/rm.gpkg" || { echo "cannot make the terrain"; exit 1; }
FROM=-84.3637,36.6957 TO=-84.1994,36.5216
W1=-84.20215,36.65064 W2=-84.36732,36.5295 W3=-84.14884,36.67695 # GO, in the start's region
route() { "$BIN/trv-route" --roadmap "$tmp/rm.gpkg" --terrain "$T" --from $FROM --no-timing -q "$@"; }

# ---- --via: legs add up, the route passes through each waypoint ----
if route --to $TO --via "$W1;$W2" -o "$tmp/v.geojson" --gpx "$tmp/v.gpx" --csv "$tmp/v.csv" --stats "$tmp/v_stats.csv" \
    2>"$tmp/err"; then ok; else bad "--via: $(cat "$tmp/err")"; fi
awk -F, 'NR > 1 && $1 ~ / leg / { d += $2; t += $7; n++ } NR > 1 && $1 == "mmcr" { D = $2; Tt = $7 }
    END { e = (d - D) < 0 ? D - d : d - D; f = (t - Tt) < 0 ? Tt - t : t - Tt
          exit !(n == 3 && e <= 0.05 * n + 1e-9 && f <= 0.0005 * n + 1e-9) }' "$tmp/v_stats.csv" &&
    ok || bad "the legs' distance and time do not add up to the route's: $(cat "$tmp/v_stats.csv")"
grep -q '^mmcr leg 3,' "$tmp/v_stats.csv" && [ "$(tail -1 "$tmp/v_stats.csv" | cut -d, -f1)" = mmcr ] &&
    ok || bad "stats rows: $(cut -d, -f1 "$tmp/v_stats.csv" | tr '\n' ' ')"
for w in "$W1" "$W2"; do
    xy=$(echo "${w%,*} ${w#*,}" | gdaltransform -s_srs EPSG:4326 -t_srs EPSG:32616 -output_xy)
    awk -F, -v p="$xy" 'BEGIN { split(p, q, " ") } NR > 1 { d = ($2 - q[1]) ^ 2 + ($3 - q[2]) ^ 2
        if (d < 0.02 ^ 2) { hit = NR; leg = $13; getline; nxt = $13 } } END { exit !(hit && nxt == leg) }' "$tmp/v.csv" &&
        ok || bad "no vertex of the route at waypoint $w ($xy, PROJ) starting its leg"
done
[ "$(awk -F, 'NR > 1 { print $13 }' "$tmp/v.csv" | uniq | tr '\n' ' ')" = "1 2 3 " ] && ok || bad "CSV leg column"
ogrinfo -ro -al -q "$tmp/v.geojson" | grep -c 'leg (Integer) = ' | grep -qx 4 && ok || bad "GeoJSON: 4 features (whole + 3 legs)"
ogrinfo -ro -al -q "$tmp/v.geojson" | grep -q 'from (String) = via 1' && ok || bad "GeoJSON from/to"
[ "$(ogrinfo -ro -q "$tmp/v.gpx" waypoints | sed -n 's/.*name (String) = //p' | tr '\n' ',')" = "start,via 1,via 2,goal," ] &&
    ok || bad "GPX waypoints: $(ogrinfo -ro -q "$tmp/v.gpx" waypoints | grep name)"
grep -q '"order": "given"' "$tmp/route.json" && ok || bad "route.json legs"

# ---- --visit: the order of least objective, against every --via permutation ----
route --to $TO --visit "$W1;$W2;$W3" --corridor 0 -o "$tmp/w.geojson" --stats "$tmp/w_stats.csv" 2>"$tmp/err" &&
    ok || bad "--visit: $(cat "$tmp/err")"
best=$(sed -n 's/.*"order_objective": \([0-9.e+-]*\).*/\1/p' "$tmp/route.json")
grep -q '"order": "held-karp"' "$tmp/route.json" && [ -n "$best" ] && ok || bad "--visit route.json"
min=
for p in "$W1;$W2;$W3" "$W1;$W3;$W2" "$W2;$W1;$W3" "$W2;$W3;$W1" "$W3;$W1;$W2" "$W3;$W2;$W1"; do
    route --to $TO --via "$p" --corridor 0 --strategy time -o "$tmp/p.geojson" --stats "$tmp/p.csv" 2>/dev/null
    o=$(sed -n 's/.*"objective": \([0-9.e+-]*\).*/\1/p' "$tmp/route.json" | head -1)
    min=$(awk -v a="$min" -v b="$o" 'BEGIN { print (a == "" || b + 0 < a + 0) ? b : a }')
done
awk -v a="$best" -v b="$min" 'BEGIN { exit !(a - b < 1e-6 * b && b - a < 1e-6 * b) }' &&
    ok || bad "--visit's order costs $best, the best --via permutation $min"
tot=$(awk -F, '$1 == "time" { print $10 }' "$tmp/w_stats.csv")
awk -v a="$best" -v b="$tot" 'BEGIN { exit !(a - b < 1e-4 * b && b - a < 1e-4 * b) }' && ok || bad "--visit objective $tot vs $best"

# ---- --return: a closed tour ----
route --return --visit "$W1;$W2" -o "$tmp/r.geojson" --csv "$tmp/r.csv" --gpx "$tmp/r.gpx" 2>"$tmp/err" &&
    ok || bad "--return: $(cat "$tmp/err")"
[ "$(sed -n 2p "$tmp/r.csv" | cut -d, -f2,3)" = "$(tail -1 "$tmp/r.csv" | cut -d, -f2,3)" ] && ok || bad "--return does not end at the start"
[ "$(ogrinfo -ro -q "$tmp/r.gpx" waypoints | grep -c 'name (String)')" = 3 ] && ok || bad "--return GPX: the start once"
[ "$(awk -F, 'NR > 1 { print $13 }' "$tmp/r.csv" | uniq | wc -l)" = 3 ] && ok || bad "--return: 3 legs"

# ---- usage errors ----
use() { # message -- args
    msg=$1
    shift 2
    route "$@" -o "$tmp/u.geojson" >/dev/null 2>"$tmp/err"
    [ $? = 2 ] && grep -qF -- "$msg" "$tmp/err" && [ ! -e "$tmp/u.geojson" ] && ok || bad "$* -> $(cat "$tmp/err")"
}
use "not with --compare or --grid" -- --to $TO --via "$W1" --compare
use "not with --compare or --grid" -- --to $TO --visit "$W1" --grid
use "do not take --alternatives yet" -- --to $TO --via "$W1" --alternatives 2
use "exclude each other" -- --to $TO --via "$W1" --visit "$W2"
use "--return needs --via or --visit" -- --return
use "no --to" -- --return --to $TO --via "$W1"
use "--to is required" -- --via "$W1"
use "--via expects X,Y[;X,Y...]" -- --to $TO --via "$W1;x"
use "--visit expects X,Y[;X,Y...]" -- --to $TO --visit "$W1;"

# ---- waypoint errors, each naming its number ----
fail1() { # message -- args: exit 1, nothing written
    msg=$1
    shift 2
    route "$@" -o "$tmp/e.geojson" >/dev/null 2>"$tmp/err"
    [ $? = 1 ] && grep -qF -- "$msg" "$tmp/err" && [ ! -e "$tmp/e.geojson" ] &&
        ok || bad "$* -> $(cat "$tmp/err")"
}
fail1 "waypoint 2 (-80,36.6) lies outside the terrain" -- --to $TO --via "$W1;-80,36.6"
fail1 "waypoint 2 ($W1) is a duplicate of the via 1 (the same cell)" -- --to $TO --via "$W1;$W1"
fail1 "waypoint 1 ($FROM) is a duplicate of the start" -- --to $TO --visit "$FROM"
if "$PY" -c 'from osgeo import gdal' 2>/dev/null; then
    "$PY" - "$T" >"$tmp/cells" <<'EOF'
import sys
import numpy as np
from osgeo import gdal, osr
from collections import deque
d = sys.argv[1]
c = gdal.Open(d + '/class.tif'); g = gdal.Open(d + '/gonogo.tif')
go = (c.ReadAsArray() > 0) & (g.ReadAsArray() == 0)
gt = c.GetGeoTransform()
src = osr.SpatialReference(); src.ImportFromWkt(c.GetProjection())
dst = osr.SpatialReference(); dst.ImportFromEPSG(4326)
for s in (src, dst): s.SetAxisMappingStrategy(osr.OAMS_TRADITIONAL_GIS_ORDER)
ct = osr.CoordinateTransformation(src, dst)
def lonlat(r, k):
    x, y, _ = ct.TransformPoint(gt[0] + (k + .5) * gt[1], gt[3] + (r + .5) * gt[5])
    return "%.10g,%.10g" % (round(x, 6), round(y, 6))
r, k = np.argwhere(~go)[len(np.argwhere(~go)) // 2]
print(lonlat(r, k))
def label(go):  # 4-connected regions, as prm_regions_label (numbered from 1 in row-major order of first cell)
    lab = np.zeros(go.shape, dtype=np.int32); ny, nx = go.shape; n = 0
    for r0, k0 in np.argwhere(go):
        if lab[r0, k0]:
            continue
        n += 1; lab[r0, k0] = n; q = deque([(r0, k0)])
        while q:
            r, k = q.popleft()
            for rr, kk in ((r - 1, k), (r + 1, k), (r, k - 1), (r, k + 1)):
                if 0 <= rr < ny and 0 <= kk < nx and go[rr, kk] and not lab[rr, kk]:
                    lab[rr, kk] = n; q.append((rr, kk))
    return lab, n
lab, n = label(go)
sizes = np.bincount(lab.ravel()); sizes[0] = 0
small = [i for i in range(1, n + 1) if i != sizes.argmax()]
r, k = np.argwhere(lab == small[0])[0]
print(lonlat(r, k))
EOF
    NOGO=$(sed -n 1p "$tmp/cells") OTHER=$(sed -n 2p "$tmp/cells")
    fail1 "waypoint 3 ($NOGO) lies in a NOGO cell" -- --to $TO --via "$W1;$W2;$NOGO"
    fail1 "waypoint 2 ($OTHER) is not reachable from via 1" -- --to $TO --via "$W1;$OTHER"
    fail1 "waypoint 1 ($OTHER) is not reachable from start" -- --to $TO --visit "$OTHER;$W2"
else
    skip "python3 with GDAL (python3-gdal): NOGO and unreachable waypoints"
fi

summary
