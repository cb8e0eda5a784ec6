#!/bin/sh
# make bench, routing part: the raster optimum (prm_route_grid, 16-connected
# least-time A*) on the Jacksboro terrain at ROUTE_RES m (default 10; a list
# such as "10 5 3" runs the script once per size) against GRASS GIS r.cost -k
# (16-connected least cost) + r.path on the same travel-time surface, for one
# start/goal pair; then (marked below, at 10 m only) the roadmap build and
# route query, the connectivity benchmark (TRV_PAIRS seeded random pairs in
# one GO region, default 1000) and a route query's whole process over 19
# seeded random pairs, with the least-time route's mean and worst ratio to
# the raster optimum over those pairs.
# Each job runs REPS times (default 3); the best wall time and its peak
# memory (max RSS, /usr/bin/time) are kept. Ratio > 1: traverse is slower.
#
# Environment: TRV_BIN (tools, default bin), TRV_LIB (the library
# bench_route links, default lib/libtraverse.a beside TRV_BIN), REPS,
# TRV_DATADIR (data), TRV_GRASS=0 (leave GRASS out), TRV_GRASS_MEM (MB that
# r.cost may keep in memory, default 60 bytes a cell and at least 2000:
# enough for the whole grid, so that it does not page segments to disk),
# ROUTE_RES (the cell size in metres, or a list of them).
# shellcheck disable=SC2046,SC2086 # lists of numbers and flags are split on purpose
set -eu
case ${ROUTE_RES:-10} in
*" "*) for r in $ROUTE_RES; do ROUTE_RES=$r sh "$0" || exit 1; echo; done; exit 0 ;;
esac
RES=${ROUTE_RES:-10}
BIN=${TRV_BIN:-bin}
LIB=${TRV_LIB:-$(dirname "$BIN")/lib/libtraverse.a}
REPS=${REPS:-3}
DATA=${TRV_DATADIR:-data}
here=$(cd "$(dirname "$0")" && pwd)
w=$(mktemp -d /tmp/trv-route-bench-XXXXXX)
trap 'rm -rf "$w"' EXIT
die() { echo "route.sh: $*" >&2; exit 1; }

. "$(dirname "$0")/lib.sh"

machine_line
echo "best of $REPS runs"

# the driver, compiled here against the library so that it always matches it
[ -f "$LIB" ] || die "no $LIB: run make first"
${CC:-cc} -std=c11 -O2 -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes -Wno-missing-field-initializers \
    -D_DEFAULT_SOURCE -pthread -I"$here/../src" $(pkg-config --cflags gdal proj) "$here/bench_route.c" "$LIB" \
    -o "$w/bench_route" $(pkg-config --libs gdal libtiff-4 proj lapacke openblas libpng freetype2 json-c) -lm -pthread ||
    die "cannot build bench/bench_route.c"
BR=$w/bench_route

echo "preparing the $RES m Jacksboro terrain (trv-krige, trv-terrain, trv-speed, trv-cost)..."
T=$w/t
"$BIN/trv-krige" "$DATA/jacksboro/dem_3arcsec.tif" --tr "$RES" -o "$w/dem.tif" -q
"$BIN/trv-terrain" -q --dem "$w/dem.tif" --soil "$DATA/jacksboro/soil_7p5arcsec.tif" \
    --landuse "$DATA/jacksboro/landuse_30m_utm16n.tif" --soil-classes "$DATA/classes/soils.csv" \
    --landuse-classes "$DATA/classes/landuse.csv" -o "$T"
"$BIN/trv-speed" --terrain "$T" --vehicle "$DATA/vehicles/ugv_hua2022.ini" --soils "$DATA/classes/soils.csv" \
    --landuse-classes "$DATA/classes/landuse.csv" -q
if [ -x "$BIN/trv-cost" ]; then
    "$BIN/trv-cost" --terrain "$T" -q
else
    # STAND-IN until trv-cost is built: class 3 (safe) where GO, 0 where
    # NOGO (gonogo 0 -> 3, 1 and above -> 0 after clipping to Byte), and
    # cost = 1 - speed / 40. The least-time route below reads only speed
    # and GO, so its numbers do not depend on the stand-in.
    echo "NOTE: $BIN/trv-cost not built: class.tif and cost.tif are a STAND-IN made with gdal_translate"
    gdal_translate -q -ot Byte -scale 0 1 3 0 "$T/gonogo.tif" "$T/class.tif"
    gdal_translate -q -ot Float32 -scale 0 40 1 0 "$T/speed.tif" "$T/cost.tif"
fi
size=$(gdalinfo "$T/speed.tif" | sed -n 's/^Size is \([0-9]*\), \([0-9]*\)/\1 x \2/p')
res=$(gdalinfo "$T/speed.tif" | sed -n 's/^Pixel Size = (\([0-9.]*\),.*/\1/p' | awk '{printf "%g", $1}')
GMEM=${TRV_GRASS_MEM:-$(echo "$size" | awk '{m = int($1 * $3 * 60 / 1e6); print m < 2000 ? 2000 : m}')}

# the pair: the first cells of the largest 4-connected GO region found from
# fixed points at 10 % and 90 % of the extent (north-west, south-east)
set -- $("$BR" pick "$T" 0.1 0.1 0.9 0.9)
SX=$1 SY=$2 GX=$3 GY=$4 REGION=$5
dist=$(echo "$SX $SY $GX $GY" | awk '{printf "%.0f", sqrt(($3-$1)^2 + ($4-$2)^2)}')
echo "grid: $size cells of $res m; largest 4-connected GO region: $REGION cells"
echo "start ($SX, $SY), goal ($GX, $GY): $dist m apart (cell centres, so no end legs)"
[ "$dist" -ge 15000 ] || die "the pair is only $dist m apart (want >= 15 km)"

# ---- prm_route_grid: reads the six layers, searches (time strategy) ----
a=$(best "$BR" grid "$T" "$SX" "$SY" "$GX" "$GY" time "$w/ours.csv")
set -- $(cat "$w/best.out")
OURS_S=$1 OURS_EXP=$2 OURS_N=$3 OURS_LEN=$4 OURS_SEARCH=$5 OURS_LOAD=$6
# the same search on speed.tif alone (a copy without the speed model's
# vehicle: isotropic times), which is what r.cost's friction holds
cp -R "$T" "$T.iso" && rm -f "$T.iso/speed_vehicle.ini"
"$BR" grid "$T.iso" "$SX" "$SY" "$GX" "$GY" time "$w/iso.csv" >"$w/iso.out" 2>/dev/null || die "isotropic grid search failed"
ISO_S=$(awk '{print $1; exit}' "$w/iso.out")

# ---- GRASS r.cost -k + r.path ----
grass_ok=0
if [ "${TRV_GRASS:-1}" = 0 ]; then
    gskip="TRV_GRASS=0"
elif ! command -v grass >/dev/null 2>&1; then
    gskip="grass not installed (Debian package grass-core)"
else
    # Friction: seconds per metre, 3.6 / speed, where GO (gonogo 0, class
    # not 0); NOGO is null, which r.cost never enters. Double precision so
    # that the cumulative cost map is DCELL. r.cost counts distance in cells
    # (a move's cost = mean friction of its cells x its length in cells), so
    # seconds = its cost x the cell size. It stops at the goal (as the A*
    # does); r.path then traces the path back from the goal.
    cat >"$w/grass.sh" <<EOG
set -e
g.gisenv set="OVERWRITE=1"
r.external input="$T/speed.tif" output=speed --q -o
r.external input="$T/gonogo.tif" output=gonogo --q -o
r.external input="$T/class.tif" output=class --q -o
r.external input="$T/dem.tif" output=dem --q -o
g.region raster=speed
r.mapcalc "friction = if(gonogo == 0 && class != 0 && speed > 0, 3.6 / double(speed), null())" --q
i=0
while [ \$i -lt $REPS ]; do
    /usr/bin/time -f "%e %M" -a -o "$w/g_cost.time" r.cost -k input=friction output=cost outdir=dir \
        start_coordinates=$SX,$SY stop_coordinates=$GX,$GY memory=$GMEM --q
    if command -v r.path >/dev/null 2>&1; then
        /usr/bin/time -f "%e %M" -a -o "$w/g_path.time" r.path input=dir format=auto \
            start_coordinates=$GX,$GY raster_path=rpath vector_path=vpath --q
    else # GRASS < 7.2
        /usr/bin/time -f "%e %M" -a -o "$w/g_path.time" r.drain -d input=cost direction=dir \
            start_coordinates=$GX,$GY output=rpath drain=vpath --q
    fi
    # the anisotropic peer: r.walk (Naismith/Langmuir walking time from the
    # DEM's grade along each move, plus lambda x friction) + r.path; for the
    # roadmap rows, so at 10 m only
    [ $RES = 10 ] || { i=\$((i + 1)); continue; }
    /usr/bin/time -f "%e %M" -a -o "$w/g_walk.time" r.walk -k elevation=dem friction=friction output=wcost \
        outdir=wdir start_coordinates=$SX,$SY stop_coordinates=$GX,$GY lambda=1 memory=$GMEM --q
    if command -v r.path >/dev/null 2>&1; then
        /usr/bin/time -f "%e %M" -a -o "$w/g_wpath.time" r.path input=wdir format=auto \
            start_coordinates=$GX,$GY raster_path=wpath --q
    else
        /usr/bin/time -f "%e %M" -a -o "$w/g_wpath.time" r.drain -d input=wcost direction=wdir \
            start_coordinates=$GX,$GY output=wpath --q
    fi
    i=\$((i + 1))
done
r.what map=cost coordinates=$GX,$GY | cut -d'|' -f4 >"$w/g_cost.txt"
v.out.ascii input=vpath format=wkt --q >"$w/g_path.wkt"
EOG
    # headless: a throw-away location in the terrain's CRS, removed on exit;
    # GRASS older than 7.8 has no --tmp-location: make one with -c instead
    if grass --tmp-location EPSG:32616 --exec sh "$w/grass.sh" >"$w/grass.log" 2>&1 ||
        { rm -f "$w"/g_*.time && grass -c EPSG:32616 -e "$w/gdb/loc" >>"$w/grass.log" 2>&1 &&
            grass "$w/gdb/loc/PERMANENT" --exec sh "$w/grass.sh" >>"$w/grass.log" 2>&1; }; then
        grass_ok=1
    else
        tail -5 "$w/grass.log" >&2
        gskip="grass failed (see above)"
    fi
fi

# best-of-REPS of r.cost + r.path (run in pairs); memory: the larger peak
pair_best() {
    paste -d' ' "$w/${1:-g_cost}.time" "$w/${2:-g_path}.time" |
        awk 'NR == 1 || $1 + $3 < b {b = $1 + $3; m = ($2 > $4 ? $2 : $4); c = $1; p = $3}
             END {printf "%s %s %s %s\n", b, m, c, p}'
}

echo
echo "| job | traverse | memory | peer | time | memory | time ratio | memory ratio |"
echo "|---|---|---|---|---|---|---|---|"
if [ $grass_ok = 1 ]; then
    g=$(pair_best)
    echo "$a $g" | awk '{printf "| prm_route_grid, time, %s m (load + search) | %.2f s | %.0f MB | GRASS r.cost -k + r.path | %.2f s | %.0f MB | %.2f | %.2f |\n", r, $1, $2/1024, $3, $4/1024, $1/$3, $2/$4}' r="$RES"
    # the search alone (reading the layers apart), against the same pair
    echo "$OURS_SEARCH $g" | awk '{printf "| prm_route_grid, time, %s m (search alone) | %.2f s | | GRASS r.cost -k + r.path | %.2f s | | %.2f | |\n", r, $1, $2, $1/$2}' r="$RES"
else
    echo "$a" | awk -v why="$gskip" '{printf "| prm_route_grid, time, %s m (load + search) | %.2f s | %.0f MB | GRASS: skipped (%s) | | | | |\n", r, $1, $2/1024, why}' r="$RES"
fi
echo
echo "prm_route_grid: search $OURS_SEARCH s (reading the six layers $OURS_LOAD s), $OURS_EXP cells expanded, $OURS_N vertices, $OURS_LEN m"
printf "prm_route_grid travel time: %.3f s (%.3f h)\n" "$OURS_S" "$(echo "$OURS_S" | awk '{print $1/3600}')"
if [ $grass_ok = 1 ]; then
    set -- $g
    echo "GRASS: r.cost -k $3 s, r.path $4 s (best pair)"
    GS=$(awk -v r="$res" '{printf "%.6f", $1 * r}' "$w/g_cost.txt")
    printf "GRASS r.cost travel time:   %.3f s (%.3f h)\n" "$GS" "$(echo "$GS" | awk '{print $1/3600}')"
    printf "prm_route_grid on speed.tif alone (isotropic, as r.cost's friction): %.3f s\n" "$ISO_S"
    echo "$ISO_S $GS" | awk '{printf "difference (isotropic prm_route_grid - GRASS): %.3f s (%.4f %%)\n", $1 - $2, 100 * ($1 - $2) / $2}'
    echo "$OURS_S $ISO_S" | awk '{printf "direction of travel: %.3f s against the isotropic %.3f s (%+.2f %%)\n", $1, $2, 100 * ($1 - $2) / $2}'
    # why they differ: GRASS's own path measured cell by cell as prm_route_grid measures moves
    sed 's/^LINESTRING *(//; s/)$//' "$w/g_path.wkt" | tr ',' '\n' | awk 'BEGIN {print "x,y"} NF == 2 {print $1 "," $2}' >"$w/g_path.csv"
    set -- $("$BR" measure "$T" "$w/g_path.csv" time)
    printf "GRASS's path measured by prm_piece_measure: %.3f s over %s moves; %s of them touch NOGO only at a cell corner, %s cross NOGO\n" "$1" "$2" "$3" "$4"
    echo "reading it: both searches are exact 16-connected least-time searches with the same move costs (a"
    echo "straight or diagonal move costs half its length in each end cell, a knight's move a quarter in each"
    echo "of the four cells it crosses). r.cost drops a move only when a cell it sums is null: the two end"
    echo "cells of a diagonal, so it slips between two NOGO cells that meet at a corner; prm_route_grid"
    echo "forbids any move touching NOGO, corners included. Its graph is r.cost's minus those moves, with the"
    echo "same weights: its time can only be equal or longer, by the price of the corner moves."
    echo "(GRASS's time is counted from r.cost's output: cost x cell size, r.cost measuring in cells; its"
    echo "row leaves out importing the layers and making the friction map, ours includes reading them.)"
fi

# ==== ROADMAP ROWS (trv-roadmap build, trv-route query) ======================
echo
if [ "$RES" != 10 ]; then
    echo "roadmap build / route query: at 10 m only (ROUTE_RES=$RES)"
elif [ -x "$BIN/trv-roadmap" ] && [ -x "$BIN/trv-route" ]; then
    rb=$(best "$BIN/trv-roadmap" --terrain "$T" -o "$w/rm.gpkg" -q)
    # the default roadmap joins every GO region's nodes (raster bridges, issue 16)
    "$BIN/trv-route" --roadmap "$w/rm.gpkg" --terrain "$T" --srs EPSG:32616 --from "$SX,$SY" --to "$GX,$GY" \
        --strategy time -o "$w/r.geojson" -q 2>"$w/route.err" || die "the roadmap does not join the pair: $(cat "$w/route.err")"
    rq=$(best "$BIN/trv-route" --roadmap "$w/rm.gpkg" --terrain "$T" --srs EPSG:32616 --from "$SX,$SY" --to "$GX,$GY" \
        --strategy time -o "$w/r.geojson" --stats "$w/rs.csv" -q)
    # trv-route --grid --grid-whole (issue 16's --grid): the same raster
    # optimum as the first row, as a whole trv-route process reading the
    # roadmap cache, whose terrain arrays it maps (no GeoTIFF decoded),
    # with the roadmap route beside it; its grid-time row must equal the
    # first row's objective (to the 0.01 s it prints)
    rg=$(best "$BIN/trv-route" --roadmap "$w/rm.gpkg" --terrain "$T" --srs EPSG:32616 --from "$SX,$SY" --to "$GX,$GY" \
        --strategy time --grid --grid-whole -o "$w/g.geojson" --stats "$w/gs.csv" -q)
    gobj=$(awk -F, '$1 == "grid-time" {print $11}' "$w/gs.csv")
    echo "$gobj $OURS_S" | awk '{d = $1 - $2; if (d < 0) d = -d; if (d > 0.006) {print "route.sh: trv-route --grid " $1 " s, bench_route grid " $2 " s" > "/dev/stderr"; exit 1}}' ||
        die "trv-route --grid does not give the raster optimum"
    # planning alone (terrain and roadmap in memory: the route's search,
    # shortcuts and corridor, best of 5 in one process); trv-route's own
    # plan_s also counts the pages of the mapped cache it reads on the way
    plan=$("$BR" plan "$T" "$w/rm.gpkg" "$SX" "$SY" "$GX" "$GY" time | awk '{print $1}')
    rt=$(awk -F, 'NR == 2 {printf "%.3f", $7 * 3600}' "$w/rs.csv")
    echo "| job | traverse | memory | peer | time | memory | time ratio |"
    echo "|---|---|---|---|---|---|---|"
    if [ $grass_ok = 1 ]; then
        set -- $(pair_best)
        echo "$rb $3" | awk '{printf "| trv-roadmap build, 10 m | %.2f s | %.0f MB | GRASS r.cost -k | %.2f s | | %.2f (goal <= 1) |\n", $1, $2/1024, $3, $1/$3}'
        echo "$plan $1" | awk '{printf "| trv-route planning alone (A*, shortcuts, corridor; in memory) | %.3f s | | GRASS r.cost -k + r.path | %.2f s | | %.4f |\n", $1, $2, $1/$2}'
        echo "$rq $1" | awk '{printf "| trv-route run (reading the terrain and roadmap + query) | %.2f s | %.0f MB | GRASS r.cost -k + r.path | %.2f s | | %.2f |\n", $1, $2/1024, $3, $1/$3}'
        echo "$rg $1" | awk '{printf "| trv-route --grid --grid-whole run (roadmap cache; roadmap route + raster optimum) | %.2f s | %.0f MB | GRASS r.cost -k + r.path | %.2f s | | %.2f |\n", $1, $2/1024, $3, $1/$3}'
        set -- $(pair_best g_walk g_wpath)
        echo "$plan $1" | awk '{printf "| trv-route planning alone (A*, shortcuts, corridor; in memory) | %.3f s | | GRASS r.walk -k + r.path (anisotropic) | %.2f s | | %.4f (goal <= 0.05) |\n", $1, $2, $1/$2}'
        echo "$rq $1" | awk '{printf "| trv-route run (reading the terrain and roadmap + query) | %.2f s | %.0f MB | GRASS r.walk -k + r.path (anisotropic) | %.2f s | | %.2f |\n", $1, $2/1024, $3, $1/$3}'
    else
        echo "$rb" | awk '{printf "| trv-roadmap build, 10 m | %.2f s | %.0f MB | GRASS: skipped | | | |\n", $1, $2/1024}'
        echo "$plan" | awk '{printf "| trv-route planning alone (A*, shortcuts, corridor; in memory) | %.3f s | | GRASS: skipped | | | |\n", $1}'
    fi
    echo "$rt $OURS_S" | awk '{printf "roadmap route travel time %.1f s vs the 16-connected optimum %.1f s: %+.1f %% (goal: within 5 %%)\n", $1, $2, 100 * ($1 - $2) / $2}'
    sed -n 's/.*"go_regions": *\([0-9]*\).*/GO regions (4-connected): \1/p; s/.*"components": *\([0-9]*\).*/roadmap components: \1/p;
        s/.*"components_straight": *\([0-9]*\).*/components after the straight edges alone: \1/p' "$w/roadmap.json"
    # connectivity (issue 16): seeded random pairs of GO points in one GO
    # region, planned in-process on the default roadmap (load once, plan
    # many: prm_route and the corridor as trv-route plans), then pairs in
    # two regions, told so (prm_route's failure and the region check)
    NPAIRS=${TRV_PAIRS:-1000}
    echo
    echo "connectivity: $NPAIRS seeded random GO pairs in one region (bench_route pairs, seed 1, corridor 3 cells)"
    echo "| strategy | routed | planning median | max | pairs in two regions | told so | time median | max |"
    echo "|---|---|---|---|---|---|---|---|"
    for s in mmcr time; do
        "$BR" pairs "$T" "$w/rm.gpkg" "$NPAIRS" 1 $s "$(awk -v r="$res" 'BEGIN {print 3 * r}')" >"$w/pairs.out" 2>"$w/pairs.err" ||
            die "bench_route pairs $s: $(tail -3 "$w/pairs.err")"
        awk -v s=$s '$1 == "same" {r = $3; n = $2; m = $4; x = $5} $1 == "apart" {printf "| %s | %d of %d (%.1f %%) | %.3f s | %.3f s | %d | %d | %.3f s | %.3f s |\n", s, r, n, 100 * r / n, m, x, $2, $3, $4, $5}' "$w/pairs.out"
        head -3 "$w/pairs.err"
    done
    # ---- a route query, whole process (issue 16): 19 seeded random pairs of
    # GO cells the roadmap joins (bench_route endpoints), each planned by a
    # fresh trv-route (best of REPS) reading the roadmap cache, whose
    # terrain arrays it maps (only the pages the query touches are read);
    # median and max over the pairs ----
    # The CPU time (user + system) of each pair's best run is printed too:
    # on a shared machine it is the figure that does not move with the load.
    # One row per strategy; the last: mmcr with the demo's river (a nogo
    # line) and its bridge as query-time zones (issue 22: the same goal with
    # --zones), the pairs the river cuts apart in a row of their own (told
    # which zone: goal <= 0.5 s).
    "$BR" endpoints "$T" "$w/rm.gpkg" 19 1 >"$w/pairs.txt" 2>"$w/pairs.err" || die "endpoints: $(cat "$w/pairs.err")"
    echo
    cat "$w/pairs.err"
    # the least-time route's quality over the same pairs (bench_route
    # quality): its travel time over the raster optimum's, after the A* and
    # shortcuts, the 3-cell corridor and the smoothing (the route trv-route
    # writes); mean and worst ratio
    "$BR" quality "$T" "$w/rm.gpkg" "$w/pairs.txt" time >"$w/quality.out" 2>"$w/quality.err" ||
        die "quality: $(cat "$w/quality.err")"
    awk '$1 == "mean" {n = $2; for (i = 4; i < NF; i += 2) m[$i] = $(i + 1)} $1 == "worst:" {for (i = 2; i < NF; i += 2) x[$i] = $(i + 1)}
        END {printf "least-time route against the raster optimum over these %d pairs: mean %+.1f %%, worst %+.1f %% (goal: within 5 %%); the roadmap A* alone %+.1f / %+.1f %%, after the corridor %+.1f / %+.1f %%\n",
             n, 100 * (m["smoothed"] - 1), 100 * (x["smoothed"] - 1), 100 * (m["roadmap"] - 1), 100 * (x["roadmap"] - 1), 100 * (m["refined"] - 1), 100 * (x["refined"] - 1)}' "$w/quality.out"
    echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
    echo "| job | wall median | wall max | CPU median | CPU max | pairs | goal (wall) |"
    echo "|---|---|---|---|---|---|---|"
    RIVER=$DATA/jacksboro/river.geojson BRIDGE=$DATA/jacksboro/bridge.geojson
    for S in mmcr mdr msr time zones; do
        case $S in
        zones) [ -f "$RIVER" ] && [ -f "$BRIDGE" ] || { echo "| route query with --zones | skipped: no $RIVER | | | | | |"; continue; }
            args="--strategy mmcr --zones $RIVER --crossings $BRIDGE" label="mmcr --zones (river, bridge)" ;;
        *) args="--strategy $S" label=$S ;;
        esac
        : >"$w/q.$S"
        while read -r sx sy gx gy; do
            b=""
            i=0
            routed=1
            while [ $i -lt "$REPS" ]; do
                # with the river, a pair it cuts off is told so (and counted)
                /usr/bin/time -f "%e %U %S" -o "$w/time" "$BIN/trv-route" --roadmap "$w/rm.gpkg" --terrain "$T" \
                    --srs EPSG:32616 --from "$sx,$sy" --to "$gx,$gy" $args -o "$w/q.geojson" -q 2>"$w/err" ||
                    { [ $S = zones ] && grep -q "zone" "$w/err" && routed=0 || die "trv-route failed: $(cat "$w/err")"; }
                r=$(tail -1 "$w/time" | awk '{printf "%s %.3f", $1, $2 + $3}') # (after "Command exited ...")
                if [ -z "$b" ] || [ "$(echo "$r $b" | awk '{print ($1 < $3)}')" = 1 ]; then b=$r; fi
                i=$((i + 1))
            done
            echo "$b $routed" >>"$w/q.$S"
        done <"$w/pairs.txt"
        for ok in 1 0; do
            awk -v ok=$ok '$3 == ok' "$w/q.$S" >"$w/q.sel"
            [ -s "$w/q.sel" ] || continue
            goal="median <= 0.3 s, max <= 1 s"
            [ $ok = 1 ] || { label="$label: the pairs it cuts apart, told which zone"; goal="<= 0.5 s"; }
            { sort -n -k1 "$w/q.sel" | awk '{a[NR] = $1} END {printf "%s %s %d", a[int((NR + 1) / 2)], a[NR], NR}'
              echo; sort -n -k2 "$w/q.sel" | awk '{a[NR] = $2} END {printf "%s %s\n", a[int((NR + 1) / 2)], a[NR]}'; } |
                paste -d' ' - - | awk -v s="$label" -v goal="$goal" '{
                printf "| route query, whole process (trv-route run), %s, 10 m | %.2f s | %.2f s | %.2f s | %.2f s | %d | %s |\n", s, $1, $2, $4, $5, $3, goal}'
        done
    done
    echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
else
    echo "roadmap build / route query: skipped ($BIN/trv-roadmap or $BIN/trv-route not built)"
fi
# ==== END OF ROADMAP ROWS ======================================================
