#!/bin/sh
# make demo on a user's own area: a 13 x 13 km piece of Jacksboro cut out
# of the bundled rasters (DEM and soil in lon/lat, land use re-gridded to
# lon/lat, so no input shares the others' grid), a mission inside it and a
# copy of the vehicle file. Checks that every stage's outputs appear, that
# a second run does nothing, and that touching only the vehicle file
# re-runs trv-speed and the stages after it and nothing before (the
# Makefile's dependencies are real), and that a second run from nothing
# writes the same bytes. Ends with "N passed, N failed, N skipped".
set -u
DATA=${TRV_DATADIR:-data}
here=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d /tmp/trv-pipeline-test-XXXXXX)
trap 'rm -rf "$tmp"' EXIT
. "$(dirname "$0")/lib.sh"

gdal_translate -q -projwin -84.30 36.66 -84.18 36.54 "$DATA/jacksboro/dem_3arcsec.tif" "$tmp/dem.tif" &&
    gdal_translate -q -projwin -84.31 36.67 -84.17 36.53 "$DATA/jacksboro/soil_7p5arcsec.tif" "$tmp/soil.tif" &&
    gdalwarp -q -t_srs EPSG:4326 -te -84.31 36.53 -84.17 36.67 -tr 0.0003 0.0003 -r near \
        "$DATA/jacksboro/landuse_30m_utm16n.tif" "$tmp/landuse.tif" || { echo "cannot cut the test area"; exit 1; }
cp "$DATA/vehicles/ugv_hua2022.ini" "$tmp/ugv.ini"
demo() {
    make -C "$here" --no-print-directory demo SAN="${TRV_SAN:-0}" AREA=piece OUT="$tmp/out" DEM="$tmp/dem.tif" \
        SOIL="$tmp/soil.tif" LANDUSE="$tmp/landuse.tif" VEHICLE="$tmp/ugv.ini" FROM=-84.28,36.64 TO=-84.20,36.58 \
        >"$tmp/log" 2>&1
}
ran() { grep -c "^[^ ]*/trv-$1 " "$tmp/log"; }

if demo; then ok; else bad "make demo on the piece: $(tail -5 "$tmp/log")"; fi
for f in dem_kriged.tif dem_std.tif dem.tif slope.tif soil.tif landuse.tif speed.tif gonogo.tif cost.tif class.tif \
    roadmap.gpkg route.geojson route.gpx route.csv route_stats.csv sim/metrics.json sim/trajectory_ugv.geojson \
    png/routes.png png/route_mmcr.png png/sim.png project.qgs report.md report.html slope.qml route.qml; do
    [ -s "$tmp/out/$f" ] && ok || bad "no $f"
done
grep -q '"reached_goal": true' "$tmp/out/sim/metrics.json" && ok || bad "the vehicle did not reach the goal"
# the blocked scenario's obstacles are placed along this area's route: seen, driven around
[ -s "$tmp/out/png/sim_replan.png" ] && ok || bad "no png/sim_replan.png"
[ "$(grep -c '"type": "replan"' "$tmp/out/sim_blocked/events.jsonl")" -ge 2 ] && ok ||
    bad "fewer than 2 re-plans around the blocked scenario's obstacles"
grep -q '"collision"' "$tmp/out/sim_blocked/events.jsonl" && bad "a collision in the blocked scenario" || ok
grep -q "^## Recommended route: " "$tmp/out/report.md" && grep -q "^## Strategies compared" "$tmp/out/report.md" && ok ||
    bad "report without its answer or route sections"

# the same pipeline run again from nothing gives the same bytes in every
# file but the printed reports (*.txt: they carry timings)
mv "$tmp/out" "$tmp/first"
demo || bad "make demo from nothing again failed: $(tail -3 "$tmp/log")"
differ=$(cd "$tmp/first" && find . -type f ! -name '*.txt' | sort | while read -r f; do cmp -s "$f" "$tmp/out/$f" || echo "$f"; done)
[ -z "$differ" ] && ok || bad "files that differ between two runs: $differ"

# nothing to do the second time
demo || bad "second make demo failed"
n=$(grep -c "^[^ ]*/trv-" "$tmp/log")
[ "$n" = 0 ] && ok || bad "a second make demo re-ran $n stages: $(grep '/trv-' "$tmp/log" | cut -c1-60)"

# the vehicle file: trv-speed and what follows, never kriging or fusion
sleep 1
touch "$tmp/ugv.ini"
demo || bad "make demo after touching the vehicle failed: $(tail -3 "$tmp/log")"
for t in krige terrain; do [ "$(ran $t)" = 0 ] && ok || bad "touching the vehicle re-ran trv-$t"; done
for t in speed cost roadmap route sim render project report; do
    [ "$(ran $t)" -ge 1 ] && ok || bad "touching the vehicle did not re-run trv-$t"
done
summary
