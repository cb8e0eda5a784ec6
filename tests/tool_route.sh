#!/bin/sh
# trv-roadmap and trv-route end to end on a 90 m Jacksboro terrain made by
# the pipeline: outputs read back by GDAL's own tools, statistics, NOGO
# never crossed, determinism, and the error paths. Ends with
# "N passed, N failed, N skipped".
set -u
BIN=${TRV_BIN:-bin}
DATA=${TRV_DATADIR:-data}
tmp=$(mktemp -d /tmp/trv-route-test-XXXXXX)
trap 'rm -rf "$tmp"' EXIT
. "$(dirname "$0")/lib.sh"
expect() { # status message -- command...: and no route file left
    want=$1 msg=$2
    shift 3
    rm -f "$tmp/x.geojson"
    "$@" >"$tmp/stdout" 2>"$tmp/stderr"
    got=$?
    if [ "$got" != "$want" ]; then bad "$* -> exit $got, want $want ($(cat "$tmp/stderr"))"; return; fi
    if [ -n "$msg" ] && ! grep -qF -- "$msg" "$tmp/stderr"; then bad "$* -> stderr lacks '$msg': $(cat "$tmp/stderr")"; return; fi
    if [ -e "$tmp/x.geojson" ]; then bad "$* left a route behind"; return; fi
    ok
}

T=$tmp/t
gdalwarp -q -t_srs EPSG:32616 -tr 90 90 -tap -r bilinear -ot Float32 -dstnodata -32768 "$DATA/jacksboro/dem_3arcsec.tif" "$tmp/dem90.tif"
"$BIN/trv-terrain" -q --dem "$tmp/dem90.tif" --soil "$DATA/jacksboro/soil_7p5arcsec.tif" --landuse "$DATA/jacksboro/landuse_30m_utm16n.tif" \
    --soil-classes "$DATA/classes/soils.csv" --landuse-classes "$DATA/classes/landuse.csv" -o "$T" &&
    "$BIN/trv-speed" -q --terrain "$T" --vehicle "$DATA/vehicles/truck_6x6.ini" --soils "$DATA/classes/soils.csv" \
        --landuse-classes "$DATA/classes/landuse.csv" &&
    "$BIN/trv-cost" -q --terrain "$T" --soils "$DATA/classes/soils.csv" --rules "$DATA/fuzzy/mobility.fcl" ||
    { echo "cannot make the terrain"; exit 1; }

# ---- roadmap ----
if "$BIN/trv-roadmap" --terrain "$T" -o "$tmp/rm.gpkg" --seed 4 >"$tmp/out" 2>"$tmp/err"; then ok; else bad "roadmap: $(cat "$tmp/err")"; fi
grep -q 'nodes (seed 4)' "$tmp/out" && ok || bad "roadmap report: $(cat "$tmp/out")"
ogrinfo -ro -so "$tmp/rm.gpkg" nodes | grep -q 'Geometry: Point' && ok || bad "nodes layer"
ogrinfo -ro -so "$tmp/rm.gpkg" edges | grep -q 'time_s: Real' && ok || bad "edges layer"
ogrinfo -ro -so "$tmp/rm.gpkg" edges | grep -q 'ID\["EPSG",32616\]' && ok || bad "edges CRS"
ogrinfo -ro -so "$tmp/rm.gpkg" nodes | grep -q 'TRV_SEED=4' && ok || bad "the roadmap does not record its seed"
# no edge crosses NOGO: the mean class along every edge is not 0... checked
# exactly by the library tests; here: every node is on a GO cell
ogr2ogr -q -f CSV "$tmp/nodes.csv" "$tmp/rm.gpkg" nodes -lco GEOMETRY=AS_XY
bad_nodes=0
tail -n +2 "$tmp/nodes.csv" | head -200 | while IFS=, read -r x y id; do
    g=$(gdallocationinfo -valonly -geoloc "$T/gonogo.tif" "$x" "$y")
    [ "$g" = 0 ] || echo "node $id at ($x, $y) is NOGO $g"
done >"$tmp/badnodes"
[ ! -s "$tmp/badnodes" ] && ok || bad "$(head -3 "$tmp/badnodes")"
cp "$tmp/rm.gpkg" "$tmp/rm1.gpkg"
"$BIN/trv-roadmap" --terrain "$T" -o "$tmp/rm.gpkg" --seed 4 >/dev/null 2>&1 # the same command: it is in the metadata
cmp -s "$tmp/rm.gpkg" "$tmp/rm1.gpkg" && ok || bad "the same seed gave another roadmap"

# ---- a mission across the fault (lon, lat) ----
FROM=-84.3637,36.6957 TO=-84.1288,36.4834
if "$BIN/trv-route" --roadmap "$tmp/rm.gpkg" --terrain "$T" --from $FROM --to $TO --compare --grid \
    -o "$tmp/r.geojson" --gpx "$tmp/r.gpx" --csv "$tmp/r.csv" --stats "$tmp/s.csv" >"$tmp/out" 2>"$tmp/err"; then ok; else bad "route: $(cat "$tmp/err")"; fi
[ "$(ogrinfo -ro -al -so "$tmp/r.geojson" | sed -n 's/^Feature Count: //p')" = 8 ] && ok || bad "8 routes in the GeoJSON"
ogrinfo -ro -al "$tmp/r.geojson" | grep -q 'route (String) = mmcr' && ok || bad "mmcr feature"
[ "$(ogrinfo -ro -so "$tmp/r.gpx" waypoints | sed -n 's/^Feature Count: //p')" = 2 ] && ok || bad "GPX waypoints"
[ "$(ogrinfo -ro -so "$tmp/r.gpx" tracks | sed -n 's/^Feature Count: //p')" = 8 ] && ok || bad "GPX tracks"
head -1 "$tmp/r.csv" | grep -qx 'route,x,y,lon,lat,z,slope,speed,cost,class,cum_dist_m,cum_time_s' && ok || bad "CSV header"
# every CSV vertex is GO (class 1..3), and every route has 0 NOGO samples
awk -F, 'NR > 1 && ($10 < 1 || $10 > 3) {n++} END {exit n > 0}' "$tmp/r.csv" && ok || bad "a vertex on NOGO"
awk -F, 'NR > 1 && $9 != 0 {n++} END {exit n > 0}' "$tmp/s.csv" && ok || bad "NOGO samples: $(cut -d, -f1,9 "$tmp/s.csv")"
# MDR is the shortest roadmap route; MSR has the lowest mean slope of them
awk -F, 'NR > 1 && $1 !~ /^grid/ {d[$1] = $2; s[$1] = $4} END {exit !(d["mdr"] <= d["msr"] && d["mdr"] <= d["mmcr"] && s["msr"] <= s["mdr"] && s["msr"] <= s["mmcr"])}' "$tmp/s.csv" &&
    ok || bad "mdr shortest / msr flattest: $(cut -d, -f1,2,4 "$tmp/s.csv" | tr '\n' ' ')"
# the grid optimum is a lower bound of each objective's roadmap route (time: traversal time)
awk -F, 'NR > 1 {t[$1] = $7} END {exit !(t["grid-time"] <= t["time"] * (1 + 1e-9))}' "$tmp/s.csv" && ok || bad "grid-time above time"
# the planning time (wall clock) is in the statistics unless --no-timing;
# with it, a rerun gives the same bytes in every output
head -1 "$tmp/s.csv" | grep -q ',plan_s,' && ok || bad "no plan_s column"
grep -q '"plan_s"' "$tmp/r.geojson" && ok || bad "no plan_s property"
for k in 1 2; do
    "$BIN/trv-route" --roadmap "$tmp/rm.gpkg" --terrain "$T" --from $FROM --to $TO --compare --no-timing -q \
        -o "$tmp/n$k.geojson" --gpx "$tmp/n$k.gpx" --csv "$tmp/n$k.csv" --stats "$tmp/n$k.stats.csv" 2>"$tmp/err" ||
        bad "--no-timing run: $(cat "$tmp/err")"
done
same=1
for e in geojson gpx csv stats.csv; do cmp -s "$tmp/n1.$e" "$tmp/n2.$e" || same=0; done
[ $same = 1 ] && ok || bad "--no-timing reruns differ"
grep -q 'plan_s' "$tmp/n1.stats.csv" "$tmp/n1.geojson" && bad "plan_s written with --no-timing" || ok

# ---- errors: exit 1 (or 2 for usage), no output ----
expect 1 "the start (" -- "$BIN/trv-route" --roadmap "$tmp/rm.gpkg" --terrain "$T" --from -90,36.6 --to $TO -o "$tmp/x.geojson"
expect 1 "is outside the map" -- "$BIN/trv-route" --roadmap "$tmp/rm.gpkg" --terrain "$T" --from -90,36.6 --to $TO -o "$tmp/x.geojson"
# a start on water (land use NOGO): the first water cell of the map
W=$(gdal_translate -q -of XYZ "$T/gonogo.tif" /vsistdout/ | awk '$3 == 3 {print $1 "," $2; exit}')
expect 1 "is in NOGO (land use)" -- "$BIN/trv-route" --roadmap "$tmp/rm.gpkg" --terrain "$T" --srs EPSG:32616 --from "$W" --to $TO -o "$tmp/x.geojson"
expect 1 "cannot open '$tmp/none.gpkg'" -- "$BIN/trv-route" --roadmap "$tmp/none.gpkg" --terrain "$T" --from $FROM --to $TO -o "$tmp/x.geojson"
expect 2 "--from expects X,Y" -- "$BIN/trv-route" --roadmap "$tmp/rm.gpkg" --terrain "$T" --from 1 --to $TO -o "$tmp/x.geojson"
expect 2 "--weights expects four numbers" -- "$BIN/trv-route" --roadmap "$tmp/rm.gpkg" --terrain "$T" --from $FROM --to $TO --weights 1,2 -o "$tmp/x.geojson"
mkdir -p "$tmp/empty"
expect 1 "cannot open" -- "$BIN/trv-roadmap" --terrain "$tmp/empty" -o "$tmp/x.gpkg"

summary
