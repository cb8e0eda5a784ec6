#!/bin/sh
# trv-sim --threads: the LiDAR's rays cast on 1, 2, 3 and 7 threads (and 0,
# all cores) give the same bytes in every output file (metrics.json but
# for its command line). A small synthetic terrain (100 x 100 cells of
# 10 m, UTM 16N, a rolling DEM, a NOGO block), two vehicles sharing the
# run's pool of threads in turn: one with a 16-line 3D LiDAR at 10 Hz all
# round (14 400 rays a scan, recorded: lidar_ugv.ndjson) that sees a box
# appearing on its path and re-plans around it, the other with a 2D LiDAR,
# each seeing the other. Then --threads -1 is a usage error (exit 2).
# Ends with "N passed, N failed, N skipped".
set -u
BIN=${TRV_BIN:-bin}
DATA=${TRV_DATADIR:-data}
SIM=$BIN/trv-sim
tmp=$(mktemp -d /tmp/trv-sim-threads-XXXXXX)
trap 'rm -rf "$tmp"' EXIT
. "$(dirname "$0")/lib.sh"

T=$tmp/t
mkdir -p "$T"
grid() { # name value-expression (awk, of c and r) type
    awk "BEGIN {
        print \"ncols 100\"; print \"nrows 100\"; print \"xllcorner 500000\"; print \"yllcorner 4000000\";
        print \"cellsize 10\";
        for (r = 0; r < 100; r++) { line = \"\";
            for (c = 0; c < 100; c++) { nogo = c >= 40 && c < 60 && r >= 10 && r < 30; line = line \" \" ($2) }
            print line } }" >"$tmp/$1.asc"
    gdal_translate -q -a_srs EPSG:32616 -ot "$3" "$tmp/$1.asc" "$T/$1.tif"
}
grid class '(nogo ? 0 : 3)' Byte
grid gonogo '(nogo ? 1 : 0)' Byte
grid cost '0.2' Float32
grid dem '(100 + 2 * sin(c / 4) * cos(r / 6) + 0.02 * c)' Float32
grid slope '0.06' Float32
grid speed '(nogo ? 0 : 20)' Float32
[ -f "$T/speed.tif" ] || { echo "cannot make the terrain"; exit 1; }
UGV=$(cd "$DATA/vehicles" && pwd)/ugv_hua2022.ini
cat >"$tmp/obs.geojson" <<EOS
{"type": "FeatureCollection", "crs": {"type": "name", "properties": {"name": "urn:ogc:def:crs:EPSG::32616"}},
 "features": [{"type": "Feature", "properties": {"id": "box", "height_m": 2, "appear_s": 10},
   "geometry": {"type": "Polygon", "coordinates": [[[500495, 4000480], [500505, 4000480], [500505, 4000530], [500495, 4000530], [500495, 4000480]]]}}]}
EOS
cat >"$tmp/s.ini" <<EOS
[scenario]
time_limit_s = 120
obstacles = obs.geojson
lidar_record_s = 2
lidar_record_points = 500

[vehicle.ugv]
file = $UGV
model = ackermann
start = 500105,4000505
goal = 500905,4000505
srs = map

[lidar3d.ugv]
rate_hz = 10
lines = 16
vfov_deg = 30
hfov_deg = 360
hres_deg = 0.4
range_m = 100
mount_h_m = 1.8
noise_m = 0.02

[vehicle.b]
file = $UGV
model = ackermann
start = 500105,4000405
goal = 500905,4000405
srs = map
start_time_s = 5

[lidar2d.b]
range_m = 60
mount_h_m = 0.8
EOS
for n in 1 2 3 7 0; do
    if "$SIM" --terrain "$T" --scenario "$tmp/s.ini" -o "$tmp/o$n" --seed 3 --no-timing --threads $n -q 2>"$tmp/err"; then
        ok
    else
        bad "--threads $n: $(cat "$tmp/err")"
    fi
done
[ -s "$tmp/o1/lidar_ugv.ndjson" ] && ok || bad "no lidar_ugv.ndjson"
grep -q '"type": "obstacle_seen"' "$tmp/o1/events.jsonl" && ok || bad "the LiDAR saw nothing: $(cat "$tmp/o1/events.jsonl")"
grep -q '"type": "replan"' "$tmp/o1/events.jsonl" && ok || bad "no re-plan around the box"
nfiles=$(ls "$tmp/o1" | wc -l)
[ "$nfiles" -ge 8 ] && ok || bad "only $nfiles outputs: $(ls "$tmp/o1")"
for n in 2 3 7 0; do
    [ "$(ls "$tmp/o$n")" = "$(ls "$tmp/o1")" ] && ok || bad "--threads $n wrote other files: $(ls "$tmp/o$n")"
    for f in "$tmp/o1"/*; do
        b=$(basename "$f")
        if [ "$b" = metrics.json ]; then
            grep -v '"args"' "$f" >"$tmp/m1"
            grep -v '"args"' "$tmp/o$n/$b" >"$tmp/m$n"
            cmp -s "$tmp/m1" "$tmp/m$n" && ok || bad "--threads $n: metrics.json differs"
        else
            cmp -s "$f" "$tmp/o$n/$b" && ok || bad "--threads $n: $b differs from --threads 1"
        fi
    done
done
rm -rf "$tmp/x"
"$SIM" --terrain "$T" --scenario "$tmp/s.ini" -o "$tmp/x" --threads -1 >/dev/null 2>"$tmp/err"
st=$?
[ $st = 2 ] && grep -q -- '--threads must be positive' "$tmp/err" && [ ! -e "$tmp/x" ] && ok ||
    bad "--threads -1: exit $st, $(cat "$tmp/err")"
summary
