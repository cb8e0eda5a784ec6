#!/bin/sh
# Direction-aware travel times end to end (docs/method.md §4.3) on a tilted
# plane z = 200 + gE E + gN N made by the pipeline (trv-terrain, trv-speed,
# trv-cost) with one soil without shear data and one land use without ride,
# vegetation or visibility limits, and a vehicle of 6 kW: there
# tm_speed_at is v(b) = min(top, P / F) for F > 0, top for F <= 0, 0 (NOGO
# this way) for -F > m a, F = R + f W cos b + W sin b, with b = atan(grade)
# and the grade along a heading u the plane's gradient . u. Every edge's
# time_fwd_s and time_rev_s read back by ogr2ogr against that formula in
# awk (R from trv-speed's report); a mission both ways on the roadmap and
# on the raster against the same hand value; the raster's excess over the
# straight line at a heading between two of its 16 moves (the bound
# tool_route.sh allows); the isotropic fallback and its note; the errors.
# Ends with "N passed, N failed, N skipped".
set -u
BIN=${TRV_BIN:-bin}
DATA=${TRV_DATADIR:-data}
tmp=$(mktemp -d /tmp/trv-roadmap-test-XXXXXX)
trap 'rm -rf "$tmp"' EXIT
. "$(dirname "$0")/lib.sh"

# ---- the plane: 60 x 40 cells of 30 m in UTM 16N; gradients exact in binary ----
GE=0.0625 GN=0.03125 NXP=60 NYP=40 X0=600000 Y0=4000000 RES=30
asc() { # value expression of (c, r) -> ESRI ASCII grid
    awk -v nx=$NXP -v ny=$NYP -v x0=$X0 -v y0=$Y0 -v res=$RES -v ge=$GE -v gn=$GN -v what="$1" 'BEGIN {
        printf "ncols %d\nnrows %d\nxllcorner %d\nyllcorner %d\ncellsize %d\nNODATA_value -9999\n", nx, ny, x0, y0 - ny * res, res
        for (r = 0; r < ny; r++) {
            for (c = 0; c < nx; c++)
                printf "%s%s", c ? " " : "", what == "z" ? sprintf("%.6f", 200 + ge * res * c - gn * res * r) : "1"
            printf "\n"
        }
    }'
}
asc z >"$tmp/dem.asc" && asc one >"$tmp/one.asc" &&
    gdal_translate -q -a_srs EPSG:32616 -ot Float32 "$tmp/dem.asc" "$tmp/dem.tif" &&
    gdal_translate -q -a_srs EPSG:32616 -ot Byte -a_nodata 0 "$tmp/one.asc" "$tmp/one.tif" || { echo "cannot make the plane"; exit 1; }
printf 'code,name,n,kc,kphi,ci_kPa\n1,firm,1.0,1000,50000,2000\n' >"$tmp/soils.csv"
printf 'code,name,nogo\n1,open,no\n' >"$tmp/landuse.csv"
sed 's/^engine_power_kW = .*/engine_power_kW = 6/' "$DATA/vehicles/ugv_hua2022.ini" >"$tmp/v.ini"
T=$tmp/t
"$BIN/trv-terrain" -q --dem "$tmp/dem.tif" --soil "$tmp/one.tif" --landuse "$tmp/one.tif" \
    --soil-classes "$tmp/soils.csv" --landuse-classes "$tmp/landuse.csv" -o "$T" &&
    "$BIN/trv-speed" -q --terrain "$T" --vehicle "$tmp/v.ini" --soils "$tmp/soils.csv" --landuse-classes "$tmp/landuse.csv" \
        --report "$tmp/report.csv" &&
    "$BIN/trv-cost" -q --terrain "$T" --soils "$tmp/soils.csv" --rules "$DATA/fuzzy/mobility.fcl" ||
    { echo "cannot make the terrain"; exit 1; }
# the speed model's copies, as trv-speed leaves them beside its maps
cp "$tmp/v.ini" "$T/speed_vehicle.ini" && cp "$tmp/soils.csv" "$T/speed_soils.csv" && cp "$tmp/landuse.csv" "$T/speed_landuse.csv"
# every cell GO (a class other than 0), so that the plane is all there
gdalinfo -stats "$T/class.tif" | grep -q 'STATISTICS_MINIMUM=[123]' && gdalinfo -stats "$T/gonogo.tif" | grep -q 'STATISTICS_MAXIMUM=0' &&
    ok || bad "the plane is not GO everywhere"
R=$(awk -F, 'NR == 1 {for (k = 1; k <= NF; k++) if ($k == "resistance_total_kN") c = k} NR == 2 {print $c * 1000}' \
    "$tmp/report.csv") # N, every tyre (by the column's name: the report has one row per land use x soil)
# v(tan b) of the header, m/s (0: NOGO this way); the vehicle's keys from its file
HAND='function v(tb,   b, F) {
        b = atan2(tb, 1); F = R + 0.015 * W * cos(b) + W * sin(b)
        if (-F > 1242 * 3.4) return 0
        return F > 0 ? (P / F < top ? P / F : top) : top
    }
    function abs(x) { return x < 0 ? -x : x }
    BEGIN { W = 1242 * 9.80665; P = 6000; top = 40 / 3.6 }'

# ---- the roadmap: every edge both ways ----
# (first: -o in a folder that does not exist fails before any work, nothing written)
"$BIN/trv-roadmap" --terrain "$T" -q -o "$tmp/none/rm.gpkg" --nodes 400 --seed 3 2>"$tmp/err"
rc=$?
[ $rc = 1 ] && grep -qF "cannot write '$tmp/none/rm.gpkg': the folder '$tmp/none' does not exist" "$tmp/err" &&
    [ ! -e "$tmp/none" ] && [ ! -e "$tmp/roadmap.json" ] && ok || bad "roadmap -o in a missing folder: exit $rc, $(cat "$tmp/err")"
"$BIN/trv-roadmap" --terrain "$T" -q -o "$tmp/rm.gpkg" --nodes 400 --seed 3 2>"$tmp/err" && ok || bad "roadmap: $(cat "$tmp/err")"
[ ! -s "$tmp/err" ] && ok || bad "roadmap with the model's copies says: $(cat "$tmp/err")"
grep -q '"travel_time": "direction-aware"' "$tmp/roadmap.json" && ! grep -q travel_time_note "$tmp/roadmap.json" &&
    ok || bad "roadmap.json: $(grep travel_time "$tmp/roadmap.json")"
ogrinfo -ro -so "$tmp/rm.gpkg" edges | grep -q 'time_fwd_s: Real' && ogrinfo -ro -so "$tmp/rm.gpkg" edges | grep -q 'time_rev_s: Real' &&
    ok || bad "no time_fwd_s, time_rev_s in the edges layer"
ogr2ogr -q -f CSV "$tmp/nodes.csv" "$tmp/rm.gpkg" nodes -lco GEOMETRY=AS_XY
ogr2ogr -q -f CSV "$tmp/edges.csv" "$tmp/rm.gpkg" edges -select a,b,d_m,time_fwd_s,time_rev_s
awk -F, -v R="$R" -v ge=$GE -v gn=$GN "$HAND"'
    { gsub(/"/, "") } # OGR quotes the integer fields
    FNR == 1 { next }
    FNR == NR { x[$3] = $1; y[$3] = $2; next }
    {
        dx = x[$2] - x[$1]; dy = y[$2] - y[$1]; d = sqrt(dx * dx + dy * dy); tb = (ge * dx + gn * dy) / d
        n++
        if (abs(d - $3) > 1e-6 * d) { printf "edge %d-%d: d_m %s, from the nodes %.6f\n", $1, $2, $3, d; bad++ }
        f = v(tb); r = v(-tb)
        if (f == 0 || r == 0) { printf "edge %d-%d: NOGO one way on this gentle plane\n", $1, $2; bad++; next }
        ef = abs($4 * f / d - 1); er = abs($5 * r / d - 1)
        if (ef > worst) worst = ef
        if (er > worst) worst = er
        if (ef > 1e-5 || er > 1e-5) { printf "edge %d-%d: times %s, %s; by hand %.6f, %.6f\n", $1, $2, $4, $5, d / f, d / r; bad++ }
        if (abs($4 - $5) > 0.05 * $4) aniso++
    }
    END {
        printf "edges: %d (%d differing by > 5 %% between the directions); worst relative %.2g\n", n, aniso, worst
        exit !(n > 1000 && aniso > n / 2 && bad == 0)
    }' "$tmp/nodes.csv" "$tmp/edges.csv" >"$tmp/cmp" && ok || bad "$(cat "$tmp/cmp")"
head -1 "$tmp/cmp"

# ---- a mission both ways: the straight line is the optimum on a plane ----
# E (the first) along row 20 between cell centres 1200 m apart, and a
# heading of 13.28 degrees (half way between the raster's moves (1, 0) and
# (2, 1)): 1500 m
mission() { # name fx fy tx ty
    "$BIN/trv-route" --roadmap "$tmp/rm.gpkg" --terrain "$T" --srs EPSG:32616 --from "$2,$3" --to "$4,$5" --strategy time \
        --grid --no-timing -q -o "$tmp/$1.geojson" --stats "$tmp/$1.csv" 2>"$tmp/err" || bad "route $1: $(cat "$tmp/err")"
    grep -q '"travel_time": "direction-aware"' "$tmp/route.json" && ok || bad "route.json $1: $(grep travel_time "$tmp/route.json")"
}
YR=$((Y0 - 20 * RES - RES / 2))
mission east $((X0 + 5 * RES + 15)) $YR $((X0 + 45 * RES + 15)) $YR
mission west $((X0 + 45 * RES + 15)) $YR $((X0 + 5 * RES + 15)) $YR
A=$(awk 'BEGIN { a = atan2(1, 2) / 2; printf "%.6f %.6f", 1500 * cos(a), 1500 * sin(a) }')
set -- $A
mission slant $((X0 + 5 * RES + 15)) $((YR - 300)) "$(awk -v a=$1 -v x=$((X0 + 5 * RES + 15)) 'BEGIN {printf "%.6f", x + a}')" \
    "$(awk -v b=$2 -v y=$((YR - 300)) 'BEGIN {printf "%.6f", y + b}')"
for run in east:1200:1:0 west:1200:-1:0 slant:1500:0.973249:0.229753; do
    IFS=: read -r name L ux uy <<EOF
$run
EOF
    awk -F, -v R="$R" -v ge=$GE -v gn=$GN -v L="$L" -v ux="$ux" -v uy="$uy" -v name="$name" "$HAND"'
        NR > 1 { t[$1] = $7 * 3600; o[$1] = $10 }
        END {
            want = L / v(ge * ux + gn * uy)
            et = abs(o["time"] / want - 1); eh = abs(t["time"] / want - 1); eg = o["grid-time"] / want - 1
            printf "%s: by hand %.3f s; time route %.3f s (objective %.3f), grid-time %.3f s (%+.2g)\n", name, want, t["time"],
                o["time"], o["grid-time"], eg
            # time_h is printed to 3 decimals (1.8 s); the objective to 6 digits
            exit !(et < 1e-5 && abs(t["time"] - want) <= 1.8 && eg > -1e-5 && (name == "slant" ? eg < 0.03 : eg < 1e-5))
        }' "$tmp/$name.csv" >"$tmp/cmp" && ok || bad "$(cat "$tmp/cmp")"
    cat "$tmp/cmp"
done

# ---- the isotropic fallback: no copies, a note on stderr and in the summaries ----
cp -R "$T" "$tmp/iso" && rm "$tmp/iso/speed_vehicle.ini" "$tmp/iso/speed_soils.csv" "$tmp/iso/speed_landuse.csv"
"$BIN/trv-roadmap" --terrain "$tmp/iso" -q -o "$tmp/iso/rm.gpkg" --nodes 400 --seed 3 2>"$tmp/err" && ok || bad "isotropic roadmap failed"
grep -q "has no copy of the speed model" "$tmp/err" && ok || bad "no note on stderr: $(cat "$tmp/err")"
grep -q '"travel_time": "isotropic"' "$tmp/iso/roadmap.json" && grep -q '"travel_time_note": ".*no copy of the speed model' "$tmp/iso/roadmap.json" &&
    ok || bad "roadmap.json without the copies: $(grep travel_time "$tmp/iso/roadmap.json")"
# both ways the same: the worse direction's speed.tif
ogr2ogr -q -f CSV "$tmp/iso.csv" "$tmp/iso/rm.gpkg" edges -select d_m,time_fwd_s,time_rev_s
awk -F, -v R="$R" -v ge=$GE -v gn=$GN "$HAND"'
    NR > 1 { n++; want = $1 / v(sqrt(ge * ge + gn * gn)); if (abs($2 / want - 1) > 1e-5 || $2 != $3) bad++ }
    END { exit !(n > 1000 && bad == 0) }' "$tmp/iso.csv" && ok || bad "isotropic edge times are not the worse direction's"
"$BIN/trv-route" --roadmap "$tmp/iso/rm.gpkg" --terrain "$tmp/iso" --srs EPSG:32616 --from "$((X0 + 615)),$YR" --to "$((X0 + 1515)),$YR" -q \
    -o "$tmp/iso/r.geojson" 2>"$tmp/err" || true
grep -q '"travel_time": "isotropic"' "$tmp/iso/route.json" && grep -q "has no copy of the speed model" "$tmp/err" &&
    ok || bad "route without the copies: $(cat "$tmp/err")"

# ---- errors: one copy missing; a speed.tif the copies did not make ----
cp -R "$T" "$tmp/one" && rm "$tmp/one/speed_soils.csv"
"$BIN/trv-roadmap" --terrain "$tmp/one" -q -o "$tmp/one/rm.gpkg" 2>"$tmp/err"
[ $? = 1 ] && grep -q "speed_soils.csv' is missing" "$tmp/err" && [ ! -e "$tmp/one/rm.gpkg" ] && ok || bad "one copy missing: $(cat "$tmp/err")"
cp -R "$T" "$tmp/other" && sed -i 's/^engine_power_kW = .*/engine_power_kW = 7/' "$tmp/other/speed_vehicle.ini"
"$BIN/trv-roadmap" --terrain "$tmp/other" -q -o "$tmp/other/rm.gpkg" 2>"$tmp/err"
[ $? = 1 ] && grep -q "was not made with the speed model's copies" "$tmp/err" && ok || bad "another vehicle's copy: $(cat "$tmp/err")"

# ---- --tile: the raster bridging tile by tile (docs/scale.md) ----
# the plane is one GO region the straight edges join already: tiles of 16
# cells (4 x 3 of them, partial ones at the east and south) change nothing
# (against the whole build without detour bridges, which the tiled one
# does not make)
mkdir -p "$tmp/whole" "$tmp/tiled"
"$BIN/trv-roadmap" --terrain "$T" -q -o "$tmp/whole/rm.gpkg" --nodes 300 --seed 5 --detour 0 &&
    "$BIN/trv-roadmap" --terrain "$T" -q -o "$tmp/tiled/rm.gpkg" --nodes 300 --seed 5 --tile 16 && ok || bad "--tile 16 failed"
ogr2ogr -q -f CSV "$tmp/whole.csv" "$tmp/whole/rm.gpkg" edges && ogr2ogr -q -f CSV "$tmp/tiled.csv" "$tmp/tiled/rm.gpkg" edges &&
    cmp -s "$tmp/whole.csv" "$tmp/tiled.csv" && ok || bad "--tile 16 changed the edges of a roadmap that needs no bridge"
# a tiled build reads GO area, samples and coverage by row blocks (tiled_nodes.c): the same nodes and summary,
# whatever the blocks' height
mkdir -p "$tmp/tiled5"
TRV_BLOCK_ROWS=5 "$BIN/trv-roadmap" --terrain "$T" -q -o "$tmp/tiled5/rm.gpkg" --nodes 300 --seed 5 --tile 16 ||
    bad "--tile 16 with blocks of 5 rows failed"
ogr2ogr -q -f CSV -lco GEOMETRY=AS_XY "$tmp/whole_n.csv" "$tmp/whole/rm.gpkg" nodes
for d in tiled tiled5; do
    ogr2ogr -q -f CSV -lco GEOMETRY=AS_XY "$tmp/${d}_n.csv" "$tmp/$d/rm.gpkg" nodes &&
        cmp -s "$tmp/whole_n.csv" "$tmp/${d}_n.csv" && ok || bad "$d: other nodes than the whole build's"
    for k in samples rejected coverage; do
        [ "$(grep "\"$k\"" "$tmp/whole/roadmap.json")" = "$(grep "\"$k\"" "$tmp/$d/roadmap.json")" ] && ok ||
            bad "$d: another $k than the whole build's"
    done
done
grep -q '"go_regions": 1,' "$tmp/tiled/roadmap.json" && grep -q '"components": 1,' "$tmp/tiled/roadmap.json" &&
    grep -q '"bridges": 0,' "$tmp/tiled/roadmap.json" && ok || bad "--tile 16 summary: $(cat "$tmp/tiled/roadmap.json")"
for v in 1 -3 32769; do
    "$BIN/trv-roadmap" --terrain "$T" -q -o "$tmp/tiled/bad.gpkg" --tile "$v" 2>"$tmp/err"
    [ $? = 2 ] && grep -q -- "--tile must be 2..32768" "$tmp/err" && [ ! -e "$tmp/tiled/bad.gpkg" ] && ok || bad "--tile $v: $(cat "$tmp/err")"
done

# ---- the hierarchical index (docs/method.md §4.13): a tiled build's rm.hier beside it, none for a whole build;
# trv-route's four strategies on it (mmcr admissible) give the routes --flat gives (the table but the plan time:
# the same least costs, no tie on this plane), and say so; a damaged index: a note and the flat search ----
[ -s "$tmp/tiled/rm.hier" ] && [ ! -e "$tmp/whole/rm.hier" ] && ok || bad "rm.hier: a tiled build's alone"
hroute() { # dir output [options]
    d=$1 o=$2
    shift 2
    "$BIN/trv-route" --roadmap "$tmp/$d/rm.gpkg" --terrain "$T" --srs EPSG:32616 --from "$((X0 + 100)),$((Y0 - 100))" \
        --to "$((X0 + 1700)),$((Y0 - 1100))" --compare --admissible --corridor 0 --no-smooth -o "$tmp/$o.geojson" "$@" \
        2>"$tmp/$o.err" | awk '{ NF--; print }' >"$tmp/$o.out"
}
hroute tiled hier && hroute tiled flat --flat && [ -s "$tmp/hier.out" ] && cmp -s "$tmp/hier.out" "$tmp/flat.out" && ok ||
    bad "the index's routes differ from --flat's: $(cat "$tmp/hier.out" "$tmp/flat.out" "$tmp/hier.err")"
grep -q "4 searches on the hierarchical index (12 tiles of 16 cells" "$tmp/hier.err" &&
    ! grep -q "hierarchical" "$tmp/flat.err" && ok || bad "the index's note: $(cat "$tmp/hier.err" "$tmp/flat.err")"
cp -r "$tmp/tiled" "$tmp/tiledbad" && head -c 100 "$tmp/tiled/rm.hier" >"$tmp/tiledbad/rm.hier" &&
    hroute tiledbad bad && cmp -s "$tmp/bad.out" "$tmp/flat.out" &&
    grep -q "rm.hier is not the hierarchical index of this roadmap.*searching the whole roadmap" "$tmp/bad.err" && ok ||
    bad "a damaged index: $(cat "$tmp/bad.err")"

summary
