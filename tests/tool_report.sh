#!/bin/sh
# trv-report end to end on a 180 m Jacksboro run made by the pipeline
# (krige, terrain, speed, cost, roadmap, route) plus fabricated simulator
# output and PNGs: every section, numbers checked against the inputs and
# against counts made by GDAL itself (gdalinfo -hist), a self-contained
# HTML page, relative image links, byte-identical reruns, and the error
# paths (exit 1, nothing written). Ends with "N passed, N failed".
set -u
BIN=${TRV_BIN:-bin}
DATA=${TRV_DATADIR:-data}
tmp=$(mktemp -d /tmp/trv-report-test-XXXXXX)
trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }
expect() { # status message -- command...: and no report left at $tmp/x.md / x.html
    want=$1 msg=$2
    shift 3
    rm -f "$tmp/x.md" "$tmp/x.html"
    "$@" >"$tmp/stdout" 2>"$tmp/stderr"
    got=$?
    if [ "$got" != "$want" ]; then bad "$* -> exit $got, want $want ($(cat "$tmp/stderr"))"; return; fi
    if [ -n "$msg" ] && ! grep -qF -- "$msg" "$tmp/stderr"; then bad "$* -> stderr lacks '$msg': $(cat "$tmp/stderr")"; return; fi
    if [ -e "$tmp/x.md" ] || [ -e "$tmp/x.html" ]; then bad "$* left a report behind"; return; fi
    ok
}

T=$tmp/run
mkdir -p "$T"
gdalwarp -q -t_srs EPSG:32616 -tr 180 180 -tap -r bilinear -ot Float32 -dstnodata -32768 "$DATA/jacksboro/dem_3arcsec.tif" "$tmp/dem180.tif"
"$BIN/trv-krige" "$tmp/dem180.tif" --tr 180 --seed 3 -o "$T/dem_kriged.tif" --std "$T/dem_std.tif" --variogram "$T/variogram.csv" >"$T/krige.txt" 2>/dev/null &&
    "$BIN/trv-terrain" -q --dem "$T/dem_kriged.tif" --soil "$DATA/jacksboro/soil_7p5arcsec.tif" --landuse "$DATA/jacksboro/landuse_30m_utm16n.tif" \
        --soil-classes "$DATA/classes/soils.csv" --landuse-classes "$DATA/classes/landuse.csv" -o "$T" &&
    "$BIN/trv-speed" --terrain "$T" --vehicle "$DATA/vehicles/truck_6x6.ini" --soils "$DATA/classes/soils.csv" \
        --landuse-classes "$DATA/classes/landuse.csv" --report "$T/speed_report.csv" >"$T/speed.txt" 2>/dev/null &&
    "$BIN/trv-cost" --terrain "$T" --soils "$DATA/classes/soils.csv" --rules "$DATA/fuzzy/mobility.fcl" >"$T/cost.txt" 2>/dev/null &&
    "$BIN/trv-roadmap" --terrain "$T" -o "$T/roadmap.gpkg" --seed 2 >"$T/roadmap.txt" 2>/dev/null &&
    "$BIN/trv-route" --roadmap "$T/roadmap.gpkg" --terrain "$T" --from -84.3637,36.6957 --to -84.1288,36.4834 --compare --grid \
        -o "$T/route.geojson" --stats "$T/route_stats.csv" >"$T/route.txt" 2>/dev/null ||
    { echo "cannot make the run directory"; exit 1; }
# what the simulator and the renderer would add
mkdir -p "$T/sim" "$T/png"
cat >"$T/sim/metrics.json" <<'EOF'
{"scenario": "demo", "vehicles": [{"id": "ugv1", "distance_m": 41234.5, "time_s": 3900.25, "collisions": 0,
 "wall_time_s": 0.731, "realtime_factor": 5335.2}], "replans": 2, "reached_goal": true, "waypoints": [1, 2, 3]}
EOF
mkdir -p "$T/sim_blocked"
echo '{"scenario": "blocked", "vehicles": [{"id": "ugv1", "replans": 3}, {"id": "ugv2", "replans": 0}]}' >"$T/sim_blocked/metrics.json"
printf '%s\n' '{"t": 0.0, "type": "start", "vehicle": "ugv1"}' '{"t": 12.5, "type": "replan"}' \
    '{"t": 40.0, "type": "replan"}' '{"t": 3900.25, "type": "goal"}' >"$T/sim/events.jsonl"
gdal_translate -q -of PNG "$T/class.tif" "$T/png/class.png" && gdal_translate -q -of PNG "$T/gonogo.tif" "$T/png/gonogo.png" ||
    { echo "cannot make the PNGs"; exit 1; }
rm -f "$T"/png/*.aux.xml

# ---- the report ----
if "$BIN/trv-report" "$T" -o "$T/report.md" --html "$T/report.html" >"$tmp/out" 2>"$tmp/err"; then ok; else bad "trv-report: $(cat "$tmp/err")"; fi
R=$T/report.md
H=$T/report.html
for s in "# Mission report: run" "## Inputs and provenance" "## Terrain" "## Kriging: variogram and cross-validation" \
    "## Vehicle and terramechanics" "## Mobility classes and GO/NOGO" "## Routes" "## Simulation" "## Maps"; do
    grep -qxF "$s" "$R" && ok || bad "no section '$s'"
done
grep -q "wrote '$R' and '$H'" "$tmp/out" && ok || bad "tool output: $(cat "$tmp/out")"

# provenance: sources, every layer's tool, the seed, the commands
grep -qF '| elevation | `'"$tmp/dem180.tif"'` | EPSG:32616 |' "$R" && ok || bad "the DEM source"
grep -qF '| soil map | `'"$DATA/jacksboro/soil_7p5arcsec.tif"'` | EPSG:4326 | 161 x 138 | 7.5" x 7.5" | Byte |' "$R" && ok || bad "the soil source"
grep -qF '| `dem_kriged.tif` | elevation (m) | EPSG:32616 |' "$R" && ok || bad "dem_kriged row"
grep -qF '| 180 | `trv-krige` | 3 |' "$R" && ok || bad "trv-krige and its seed"
grep -qF '| `class.tif` | mobility class |' "$R" && ok || bad "class row"
grep -qF -- "$(gdalinfo "$T/slope.tif" | sed -n 's/^  TRV_ARGS=//p')" "$R" && ok || bad "trv-terrain's command"
grep -qF "trv-roadmap --terrain $T -o $T/roadmap.gpkg --seed 2" "$R" && ok || bad "the roadmap's command"

# terrain: the elevation range as GDAL computes it
mm=$(gdalinfo -mm "$T/dem.tif" | sed -n 's/.*Computed Min\/Max=\([-0-9.]*\),\([-0-9.]*\).*/\1 \2/p')
lo=$(printf '%.1f' "$(echo "$mm" | cut -d' ' -f1)") hi=$(printf '%.1f' "$(echo "$mm" | cut -d' ' -f2)")
grep -q "^| elevation (m) | $lo | [0-9.]* | $hi |$" "$R" && ok || bad "elevation range $lo $hi: $(grep '^| elevation (m)' "$R")"

# kriging: the chosen model in bold, and the variogram's first lag
model=$(sed -n 's/^model: //p' "$T/krige.txt")
grep -qF "**$model**" "$R" && ok || bad "chosen model '$model' not marked"
np1=$(sed -n 2p "$T/variogram.csv" | cut -d, -f1)
grep -q "^| 1 | $np1 | " "$R" && ok || bad "variogram lag 1 with $np1 pairs"
[ "$(grep -c '^| [0-9]* | [0-9]* | [0-9.]* | [0-9.]* | [0-9.]* |$' "$R")" = "$(($(wc -l <"$T/variogram.csv") - 1))" ] && ok || bad "one row per lag"

# vehicle: the lines of speed.txt, the per-soil table as written
grep -qF -- "- $(grep '^MI ' "$T/speed.txt")" "$R" && ok || bad "MI/VCI line"
tail -n +2 "$T/speed_report.csv" | while IFS= read -r line; do
    row="| $(echo "$line" | sed 's/,/ | /g') |"
    grep -qF -- "$row" "$R" || echo "missing: $row"
done >"$tmp/soilrows"
[ ! -s "$tmp/soilrows" ] && ok || bad "per-soil rows: $(head -2 "$tmp/soilrows")"

# class fractions against gdalinfo -hist (256 buckets from -0.5: bucket k = code k)
cp "$T/class.tif" "$T/gonogo.tif" "$tmp/"
hc=$(gdalinfo -hist "$tmp/class.tif" | grep -A1 'buckets from -0.5' | tail -1)
hg=$(gdalinfo -hist "$tmp/gonogo.tif" | grep -A1 'buckets from -0.5' | tail -1)
bucket() { echo "$1" | tr -s ' ' '\n' | grep -v '^$' | sed -n "$(($2 + 1))p"; }
nodata=$(bucket "$hg" 5)
total=0
for k in 0 1 2 3 4 5; do total=$((total + $(bucket "$hg" "$k"))); done
with=$((total - nodata))
for k in 1 2 3; do
    n=$(bucket "$hc" $k)
    share=$(awk -v n="$n" -v w="$with" 'BEGIN { printf "%.2f", 100 * n / w }')
    grep -q "^| $k | [a-z-]* | $n | $share % |" "$R" && ok || bad "class $k: $n cells, $share %: $(grep "^| $k | " "$R" | head -1)"
done
n0=$(($(bucket "$hc" 0) - nodata))
grep -q "^| 0 | NOGO | $n0 | " "$R" && ok || bad "class 0 without the no-data cells: $n0"
grep -q "also holds the $nodata cells without data" "$R" && ok || bad "no-data cells $nodata"
for k in 0 1 2 3; do
    n=$(bucket "$hg" $k)
    grep -q "^| $k | [A-Za-z:() <1-9-]* | $n | " "$R" && ok || bad "gonogo reason $k: $n"
done
# and the GO share agrees with trv-speed's own report
go=$(sed -n 's/^GO: \([0-9.]*\) %.*/\1/p' "$T/speed.txt")
mine=$(sed -n 's/^| 0 | GO | [0-9]* | \([0-9.]*\) % |.*/\1/p' "$R")
awk -v a="$go" -v b="$mine" 'BEGIN { d = a - b; exit !(d < 0.051 && d > -0.051) }' && ok || bad "GO share $mine %, speed.txt $go %"

# routes: every row of route_stats.csv, distance in km
tail -n +2 "$T/route_stats.csv" | while IFS=, read -r route dist elev slope speed cost time rest; do
    km=$(awk -v d="$dist" 'BEGIN { printf "%.2f", d / 1000 }')
    grep -q "^| $route | $km | $(printf '%.3f' "$time") | " "$R" || echo "route $route: $km km, $time h"
done >"$tmp/routes"
[ ! -s "$tmp/routes" ] && ok || bad "route rows: $(cat "$tmp/routes")"
grep -q '^| mdr / grid-mdr | ' "$R" && ok || bad "roadmap vs raster optimum"
grep -qF -- "- $(head -1 "$T/roadmap.txt")" "$R" && ok || bad "roadmap lines"

# simulation
grep -q '^| vehicles\[0\].distance_m | 41234.5 |$' "$R" && ok || bad "nested metric"
grep -q '^| vehicles\[0\].id | ugv1 |$' "$R" && ok || bad "vehicle id"
grep -q 'wall_time\|realtime_factor' "$R" && bad "wall-clock items in the report" || ok
grep -q '^(2 wall-clock items, which differ from run to run, left out.)$' "$R" && ok || bad "wall-clock items said"
grep -q '^| waypoints | \[1, 2, 3\] |$' "$R" && ok || bad "a list of values"
grep -qx '### sim' "$R" && grep -qx '### sim_blocked' "$R" && ok || bad "one subsection per simulator run"
grep -q '^| vehicles\[1\].id | ugv2 |$' "$R" && ok || bad "second vehicle of sim_blocked"
grep -q '^| replans | 2 |$' "$R" && ok || bad "metric replans"
grep -q '^| reached_goal | true |$' "$R" && ok || bad "boolean metric"
grep -q 'Events (`sim/events.jsonl`): 4.' "$R" && ok || bad "event count"
grep -q '^| replan | 2 |$' "$R" && ok || bad "events by type"

# maps: the two PNGs linked, the others said absent
grep -qF '](png/class.png)' "$R" && ok || bad "class.png link"
grep -qF '](png/gonogo.png)' "$R" && ok || bad "gonogo.png link"
grep -qF 'Absent: `png/dem.png`, `png/slope.png`, `png/speed.png`, `png/cost.png`, `png/routes.png`, `png/sim.png`, `png/sim_replan.png`.' "$R" && ok ||
    bad "absent maps: $(grep '^Absent: `png' "$R")"

# HTML: self-contained, the same numbers, images embedded
grep -qi 'http:\|https:\|<link\|<script' "$H" && bad "the HTML refers to something outside itself" || ok
[ "$(grep -o 'src="[^"]*"' "$H" | grep -vc '^src="data:image/png;base64,')" = 0 ] && ok || bad "a src= that is not data:"
[ "$(grep -o 'src="data:image/png;base64,' "$H" | wc -l)" = 2 ] && ok || bad "2 embedded images"
b64=$(base64 -w0 "$T/png/class.png")
grep -qF "$b64" "$H" && ok || bad "class.png not embedded byte for byte"
grep -q "<td class=\"r\">$n0</td>" "$H" && ok || bad "HTML class 0 count"
grep -q '<h2>Routes</h2>' "$H" && ok || bad "HTML headings"
/usr/bin/python3 -c "
import sys, html.parser
class P(html.parser.HTMLParser):
    def __init__(s): super().__init__(); s.stack = []
    def handle_starttag(s, t, a):
        if t not in ('meta', 'img', 'br'): s.stack.append(t)
    def handle_endtag(s, t):
        if not s.stack or s.stack.pop() != t: sys.exit('unbalanced </%s>' % t)
p = P(); p.feed(open(sys.argv[1]).read())
sys.exit('unclosed ' + ' '.join(p.stack) if p.stack else 0)" "$H" && ok || bad "HTML tags do not balance"

# byte-identical reruns
cp "$R" "$tmp/r1.md"
cp "$H" "$tmp/r1.html"
"$BIN/trv-report" -q "$T" -o "$R" --html "$H" && cmp -s "$R" "$tmp/r1.md" && cmp -s "$H" "$tmp/r1.html" && ok || bad "a rerun gave other bytes"
# a report elsewhere links back to the run's PNGs
mkdir -p "$tmp/else"
"$BIN/trv-report" -q "$T" -o "$tmp/else/r.md" && grep -qF '](../run/png/class.png)' "$tmp/else/r.md" && ok || bad "relative link from elsewhere"
# Markdown alone; absent optional inputs are reported, not errors
mkdir -p "$tmp/min"
cp "$T/route_stats.csv" "$T/class.tif" "$T/gonogo.tif" "$T/dem.tif" "$T/slope.tif" "$tmp/min/"
"$BIN/trv-report" -q "$tmp/min" -o "$tmp/min/report.md" && ok || bad "minimal directory"
grep -q 'Absent: `krige.txt` is not in the run directory' "$tmp/min/report.md" && ok || bad "absent kriging said"
grep -q 'Absent: no `sim\*/metrics.json`' "$tmp/min/report.md" && ok || bad "absent simulation said"
[ ! -e "$tmp/min/report.html" ] && ok || bad "HTML without --html"

# ---- errors: exit 1 and nothing written ----
expect 1 "cannot open '$tmp/none'" -- "$BIN/trv-report" "$tmp/none" -o "$tmp/x.md" --html "$tmp/x.html"
mk() { rm -rf "$tmp/e" && cp -R "$tmp/min" "$tmp/e" && rm -f "$tmp/e/report.md"; }
mk
rm "$tmp/e/route_stats.csv"
expect 1 "cannot open '$tmp/e/route_stats.csv'" -- "$BIN/trv-report" "$tmp/e" -o "$tmp/x.md" --html "$tmp/x.html"
mk
rm "$tmp/e/class.tif"
expect 1 "cannot open '$tmp/e/class.tif'" -- "$BIN/trv-report" "$tmp/e" -o "$tmp/x.md"
mk
sed -i '2s/,[0-9.]*,/,4x2,/' "$tmp/e/route_stats.csv"
expect 1 "$tmp/e/route_stats.csv:2" -- "$BIN/trv-report" "$tmp/e" -o "$tmp/x.md" --html "$tmp/x.html"
mk
sed -i '1s/distance_m/dist/' "$tmp/e/route_stats.csv"
expect 1 "distance_m" -- "$BIN/trv-report" "$tmp/e" -o "$tmp/x.md"
mk
echo "not a raster" >"$tmp/e/gonogo.tif"
expect 1 "cannot open '$tmp/e/gonogo.tif'" -- "$BIN/trv-report" "$tmp/e" -o "$tmp/x.md" --html "$tmp/x.html"
mk
head -c 2000 "$T/slope.tif" >"$tmp/e/slope.tif"
expect 1 "slope.tif" -- "$BIN/trv-report" "$tmp/e" -o "$tmp/x.md"
mk
mkdir -p "$tmp/e/sim" && echo '{"a": 1,' >"$tmp/e/sim/metrics.json"
expect 1 "cannot read '$tmp/e/sim/metrics.json': not a JSON object" -- "$BIN/trv-report" "$tmp/e" -o "$tmp/x.md" --html "$tmp/x.html"
mk
mkdir -p "$tmp/e/sim" && echo '{"a": 1} trailing' >"$tmp/e/sim/metrics.json"
expect 1 "cannot read '$tmp/e/sim/metrics.json': not a JSON object" -- "$BIN/trv-report" "$tmp/e" -o "$tmp/x.md"
mk
mkdir -p "$tmp/e/sim" && echo '{"a": 1}' >"$tmp/e/sim/metrics.json" &&
    printf '{"t": 0, "type": "start"}\n{"t": 1}\n' >"$tmp/e/sim/events.jsonl"
expect 1 "events.jsonl': event 2 is not a JSON object with a type" -- "$BIN/trv-report" "$tmp/e" -o "$tmp/x.md"
mk
printf 'np,dist,gamma\n10,abc,3\n' >"$tmp/e/variogram.csv"
cp "$T/krige.txt" "$tmp/e/"
expect 1 "variogram.csv:2" -- "$BIN/trv-report" "$tmp/e" -o "$tmp/x.md"
mk
grep -v '^model:' "$T/krige.txt" >"$tmp/e/krige.txt"
expect 1 "no 'model:' line" -- "$BIN/trv-report" "$tmp/e" -o "$tmp/x.md"
mk
mkdir -p "$tmp/e/png" && echo "not a png" >"$tmp/e/png/dem.png"
expect 1 "'$tmp/e/png/dem.png' is not a PNG file" -- "$BIN/trv-report" "$tmp/e" -o "$tmp/x.md" --html "$tmp/x.html"
expect 2 "" -- "$BIN/trv-report" "$T"
expect 2 "" -- "$BIN/trv-report" -o "$tmp/x.md"
expect 2 "" -- "$BIN/trv-report" "$T" "$T" -o "$tmp/x.md"
"$BIN/trv-report" --help | grep -q 'Required in DIR: route_stats.csv' && ok || bad "--help names the required inputs"

echo "tool_report: $pass passed, $fail failed"
[ "$fail" = 0 ]
