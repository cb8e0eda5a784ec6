#!/bin/sh
# trv-report end to end on a 180 m Jacksboro run made by the pipeline
# (krige, terrain, speed, cost, roadmap, route, the routes map) plus
# fabricated simulator output and PNGs: every section in the order a
# mission planner reads (the recommended route first, provenance last),
# numbers checked against the inputs and against counts made by GDAL itself
# (gdalinfo -hist), a self-contained HTML page, relative links, byte-identical
# reruns, the error paths (exit 1, nothing written), and the first screen in
# a real browser (tests/report_browser.py; "SKIPPED: ..." without one).
# Ends with "N passed, N failed, N skipped".
set -u
BIN=${TRV_BIN:-bin}
DATA=${TRV_DATADIR:-data}
tmp=$(mktemp -d /tmp/trv-report-test-XXXXXX)
trap 'rm -rf "$tmp"' EXIT
. "$(dirname "$0")/lib.sh"
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
"$BIN/trv-krige" "$tmp/dem180.tif" --tr 180 --seed 3 -o "$T/dem_kriged.tif" --std "$T/dem_std.tif" --variogram "$T/variogram.csv" >"$tmp/krige.txt" 2>/dev/null &&
    "$BIN/trv-terrain" -q --dem "$T/dem_kriged.tif" --soil "$DATA/jacksboro/soil_7p5arcsec.tif" --landuse "$DATA/jacksboro/landuse_30m_utm16n.tif" \
        --soil-classes "$DATA/classes/soils.csv" --landuse-classes "$DATA/classes/landuse.csv" -o "$T" &&
    "$BIN/trv-speed" --terrain "$T" --vehicle "$DATA/vehicles/truck_6x6.ini" --soils "$DATA/classes/soils.csv" \
        --landuse-classes "$DATA/classes/landuse.csv" --report "$T/speed_report.csv" >"$tmp/speed.txt" 2>/dev/null &&
    "$BIN/trv-cost" --terrain "$T" --soils "$DATA/classes/soils.csv" --rules "$DATA/fuzzy/mobility.fcl" >"$tmp/cost.txt" 2>/dev/null &&
    "$BIN/trv-roadmap" --terrain "$T" -o "$T/roadmap.gpkg" --seed 2 >"$tmp/roadmap.txt" 2>/dev/null &&
    "$BIN/trv-route" --roadmap "$T/roadmap.gpkg" --terrain "$T" --from -84.3637,36.6957 --to -84.1820,36.6405 --compare --grid \
        -o "$T/route.geojson" --stats "$T/route_stats.csv" --csv "$T/route.csv" --gpx "$T/route.gpx" >"$tmp/route.txt" 2>/dev/null &&
    mkdir -p "$T/png" && "$BIN/trv-render" -q "$T/cost.tif" --hillshade "$T/dem.tif" --overlay "$T/route.geojson" --legend \
        -o "$T/png/routes.png" ||
    { echo "cannot make the run directory"; exit 1; }
# what the simulator and the renderer would add: the drives are matched
# to the recommended route (MMCR) by their planned distance
mmcr_m=$(awk -F, '$1 == "mmcr" { print $2 }' "$T/route_stats.csv")
other_m=$(awk -v m="$mmcr_m" 'BEGIN { printf "%.1f", m + 0.5 }')
mkdir -p "$T/sim"
cat >"$T/sim/metrics.json" <<EOF
{"scenario": "demo", "vehicles": [{"id": "ugv1", "distance_m": 41234.5, "time_s": 3900.25, "collisions": 0,
 "planned_distance_m": $mmcr_m, "reached_goal": true,
 "wall_time_s": 0.731, "realtime_factor": 5335.2}], "replans": 2, "reached_goal": true, "waypoints": [1, 2, 3]}
EOF
mkdir -p "$T/sim_blocked"
echo '{"scenario": "blocked", "vehicles": [{"id": "ugv1", "replans": 3, "planned_distance_m": '"$mmcr_m"', "reached_goal": false,
 "end": "time_limit", "time_s": 7200, "collisions": 1}, {"id": "ugv2", "replans": 0, "planned_distance_m": '"$other_m"'}]}' \
    >"$T/sim_blocked/metrics.json"
printf '%s\n' '{"t": 0.0, "type": "start", "vehicle": "ugv1"}' '{"t": 12.5, "type": "replan"}' \
    '{"t": 40.0, "type": "replan"}' '{"t": 3900.25, "type": "goal"}' >"$T/sim/events.jsonl"
gdal_translate -q -of PNG "$T/class.tif" "$T/png/class.png" && gdal_translate -q -of PNG "$T/gonogo.tif" "$T/png/gonogo.png" &&
    gdal_translate -q -of PNG "$T/limit.tif" "$T/png/limit.png" ||
    { echo "cannot make the PNGs"; exit 1; }
rm -f "$T"/png/*.aux.xml

# ---- the report ----
if "$BIN/trv-report" "$T" -o "$T/report.md" --html "$T/report.html" >"$tmp/out" 2>"$tmp/err"; then ok; else bad "trv-report: $(cat "$tmp/err")"; fi
R=$T/report.md
H=$T/report.html
# every section, in this order: the answer first, provenance last
last=0
for s in "# Mission report: run" "## Recommended route: MMCR" "### What limits it" "## Strategies compared" \
    "## Simulation" "## Maps" "## Method details" "### Terrain" "### Kriging: variogram and cross-validation" \
    "### Vehicle and terramechanics" "### Mobility classes and GO/NOGO" "## Inputs and provenance"; do
    at=$(grep -nxF "$s" "$R" | head -1 | cut -d: -f1)
    [ -n "$at" ] && [ "$at" -gt "$last" ] && ok || bad "section '$s' absent or out of order (line ${at:-none}, after $last)"
    last=${at:-$last}
done
grep -q "wrote '$R' and '$H'" "$tmp/out" && ok || bad "tool output: $(cat "$tmp/out")"

# the answer: MMCR, its figures from route_stats.csv, what route.csv and
# the vehicle file say along it, computed here again from those files
stat() { awk -F, -v r="$1" -v col="$2" 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
    $1 == r { print $c[col] }' "$T/route_stats.csv"; }
grep -qF 'Recommended: **MMCR**, because it is the method'"'"'s answer' "$R" && ok || bad "the recommendation and its reason"
section() { sed -n "/^## $1/,/^## $2/p" "$R"; }
section "Recommended route" "Strategies compared" >"$tmp/answer"
km=$(awk -v d="$(stat mmcr distance_m)" 'BEGIN { printf "%.2f", d / 1000 }')
grep -qxF "| distance | $km km |" "$tmp/answer" && ok || bad "distance $km km: $(grep '^| distance' "$tmp/answer")"
th=$(stat mmcr time_h)
tmin=$(awk -v t="$th" 'BEGIN { printf "%.1f", t * 60 }')
grep -qxF "| travel time | $tmin min ($(printf '%.3f' "$th") h) at the attainable speed |" "$tmp/answer" && ok ||
    bad "travel time $tmin min: $(grep '^| travel time' "$tmp/answer")"
grep -qxF "| NOGO exposure | $(stat mmcr nogo_samples) samples on NOGO cells |" "$tmp/answer" && ok || bad "NOGO exposure"
limit=$(awk -F' *= *' '$1 == "max_pitch_deg" { p = $2 } $1 == "max_roll_deg" { r = $2 }
    END { printf "%.1f", p < r ? p : r }' "$DATA/vehicles/truck_6x6.ini")
top=$(awk -F' *= *' '$1 == "top_speed_kmh" { print $2 + 0 }' "$DATA/vehicles/truck_6x6.ini")
grep -qxF "| max slope | $(stat mmcr max_slope_deg)° (vehicle limit $limit°) |" "$tmp/answer" && ok ||
    bad "max slope and the vehicle's limit $limit: $(grep '^| max slope' "$tmp/answer")"
# against the fastest route
awk -v d1="$(stat mmcr distance_m)" -v d0="$(stat time distance_m)" -v t1="$th" -v t0="$(stat time time_h)" \
    -v c1="$(stat mmcr mean_cost)" -v c0="$(stat time mean_cost)" 'BEGIN {
    printf "Against the fastest route (least time): %+.2f km, %+.1f min, mean mobility cost %.3f instead of %.3f (%+.0f %%).",
        (d1 - d0) / 1000, (t1 - t0) * 60, c1, c0, 100 * (c1 / c0 - 1) }' >"$tmp/vs"
grep -qF -- "$(cat "$tmp/vs")" "$tmp/answer" && ok || bad "against the fastest: want '$(cat "$tmp/vs")'"
# along the route: each vertex of route.csv stands for half of each segment beside it
names=$(gdalinfo "$T/class.tif" | sed -n 's/^ *\([0-9][0-9]*\): \([A-Za-z][A-Za-z -]*\)$/\1=\2/p' | tr '\n' ';')
awk -F, -v top="$top" -v names="$names" 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
$c["route"] == "mmcr" { n++; d[n] = $c["cum_dist_m"]; t[n] = $c["cum_time_s"]; v[n] = $c["speed"]; k[n] = $c["class"]
    s[n] = $c["slope"]; if (n == 1 || $c["cost"] > mc) mc = $c["cost"] }
END {
    split(names, kv, ";"); for (i in kv) if (split(kv[i], p, "=") == 2) name[p[1]] = p[2]
    for (i = 1; i <= n; i++) {
        a = i > 1 ? i - 1 : 1; b = i < n ? i + 1 : n
        L[k[i]] += (d[b] - d[a]) / 2; T[k[i]] += (t[b] - t[a]) / 2
        if (v[i] >= top - 0.005) fast += (d[b] - d[a]) / 2
    }
    len = d[n] - d[1]
    printf "mobility cost|mean %.3f, max %.3f\n", '"$(stat mmcr mean_cost)"', mc
    out = ""
    for (cl = 255; cl >= 0; cl--) if (L[cl] > 0) {
        out = out (out == "" ? "" : ", ") sprintf("%s %.1f %%", name[cl], 100 * L[cl] / len)
        printf "class row|| %d | %s | %.2f | %.1f %% | %.1f |\n", cl, name[cl], L[cl] / 1000, 100 * L[cl] / len, T[cl] / 60
    }
    printf "length by class|%s\n", out
    printf "at top speed|%.1f %% of the length (%.0f km/h)\n", 100 * fast / len, top
    best = -1; j = 1
    for (i = 1; i <= n; i++) {
        while (j <= n && d[j] - d[i] < 1000) j++
        if (j > n) break
        kmh = t[j] > t[i] ? 3.6 * (d[j] - d[i]) / (t[j] - t[i]) : 1e300
        if (best < 0 || kmh < best) { best = kmh; bi = i; bj = j }
    }
    printf "slowest km|km %.1f to %.1f: %.1f km/h\n", d[bi] / 1000, d[bj] / 1000, best
}' "$T/route.csv" >"$tmp/along"
[ "$(wc -l <"$tmp/along")" -ge 5 ] && ok || bad "route.csv has no mmcr vertices: $(cat "$tmp/along")"
while IFS='|' read -r key want; do
    case $key in
    "class row") grep -qxF "$want" "$tmp/answer" && ok || bad "class along the route: want '$want'" ;;
    *) grep -qxF "| $key | $want |" "$tmp/answer" && ok || bad "$key: want '$want', got '$(grep "^| $key |" "$tmp/answer")'" ;;
    esac
done <"$tmp/along"
# the drives: sim's vehicle planned MMCR; in sim_blocked ugv1 did, ugv2 (0.5 m longer) did not
grep -qxF '| simulated drive | `sim`: reached the goal in 65.0 min; `sim_blocked`: stopped (time_limit) after 120.0 min, 3 re-plans, 1 collision |' \
    "$tmp/answer" && ok || bad "simulated drives: $(grep '^| simulated drive' "$tmp/answer")"
for f in route.gpx route.geojson route.csv; do
    grep -qF -- "- [$f]($f): " "$tmp/answer" && ok || bad "no link to $f"
    grep -qF "<li><a href=\"$f\">$f</a>: " "$H" && ok || bad "no HTML link to $f"
done
grep -qF -- "- Slope: the steepest point is $(stat mmcr max_slope_deg)°" "$tmp/answer" && ok || bad "the slope limit"
grep -qF '](png/routes.png)' "$tmp/answer" && ok || bad "the routes map in the answer"

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
model=$(sed -n 's/^model: //p' "$tmp/krige.txt")
grep -qF "**$model**" "$R" && ok || bad "chosen model '$model' not marked"
np1=$(sed -n 2p "$T/variogram.csv" | cut -d, -f1)
grep -q "^| 1 | $np1 | " "$R" && ok || bad "variogram lag 1 with $np1 pairs"
[ "$(grep -c '^| [0-9]* | [0-9]* | [0-9.]* | [0-9.]* | [0-9.]* |$' "$R")" = "$(($(wc -l <"$T/variogram.csv") - 1))" ] && ok || bad "one row per lag"

# vehicle: the lines of speed.txt, the report's rows (land use, soil, CI,
# pass, the speed and binding limit on the flat and at 10 deg) as written
grep -qF -- "- $(grep '^MI ' "$tmp/speed.txt")" "$R" && ok || bad "MI/VCI line"
awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
    { print "| " $c["landuse"] " | " $c["name"] " | " $c["ci_kPa"] " | " $c["pass"] " | " $c["flat_speed_kmh"] " | " $c["flat_limit"] \
        " | " $c["grade10_direction"] " | " $c["grade10_speed_kmh"] " | " $c["grade10_limit"] " |" }' "$T/speed_report.csv" >"$tmp/rows"
[ "$(wc -l <"$tmp/rows")" = 16 ] && ok || bad "report rows: $(wc -l <"$tmp/rows"), want 4 land uses x 4 soils"
while IFS= read -r row; do grep -qF -- "$row" "$R" || echo "missing: $row"; done <"$tmp/rows" >"$tmp/soilrows"
[ ! -s "$tmp/soilrows" ] && ok || bad "per land use and soil rows: $(head -2 "$tmp/soilrows")"
# the share of the GO cells each limit binds: counted here in limit.tif
# over the GO cells of gonogo.tif (GDAL's XYZ)
gdal_translate -q -of XYZ "$T/gonogo.tif" "$tmp/g.xyz" && gdal_translate -q -of XYZ "$T/limit.tif" "$tmp/l.xyz"
paste -d' ' "$tmp/g.xyz" "$tmp/l.xyz" | awk '$3 == 0 { n[$6]++; go++ }
    END { split("top speed|power|traction|ride|vegetation|visibility/braking", nm, "|")
          for (k = 1; k <= 6; k++) printf "| %s | %d | %.1f %% |\n", nm[k], n[k], 100 * n[k] / go }' >"$tmp/shares"
while IFS= read -r row; do grep -qxF -- "$row" "$R" || echo "missing: $row"; done <"$tmp/shares" >"$tmp/sharerows"
[ ! -s "$tmp/sharerows" ] && ok || bad "limit shares: $(head -2 "$tmp/sharerows")"

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
go=$(sed -n 's/^GO: \([0-9.]*\) %.*/\1/p' "$tmp/speed.txt")
mine=$(sed -n 's/^| 0 | GO | [0-9]* | \([0-9.]*\) % |.*/\1/p' "$R")
awk -v a="$go" -v b="$mine" 'BEGIN { d = a - b; exit !(d < 0.051 && d > -0.051) }' && ok || bad "GO share $mine %, speed.txt $go %"

# routes: every row of route_stats.csv, distance in km
tail -n +2 "$T/route_stats.csv" | while IFS=, read -r route dist elev slope speed cost time rest; do
    km=$(awk -v d="$dist" 'BEGIN { printf "%.2f", d / 1000 }')
    grep -q "^| $route | $km | $(printf '%.3f' "$time") | " "$R" || echo "route $route: $km km, $time h"
done >"$tmp/routes"
[ ! -s "$tmp/routes" ] && ok || bad "route rows: $(cat "$tmp/routes")"
grep -q '^| mdr / grid-mdr | ' "$R" && ok || bad "roadmap vs raster optimum"
grep -qF -- "- $(head -1 "$tmp/roadmap.txt")" "$R" && ok || bad "roadmap lines"
# the stages' summaries (*.json) give the report the very lines the tools
# printed (their console output, kept outside the run directory)
{
    grep -E '^(input|working CRS|sample variogram|model|neighbourhood|grid): ' "$tmp/krige.txt"
    grep -E '^(vehicle: |MI |in force: |traction check|GO: |speed over)' "$tmp/speed.txt"
    cat "$tmp/roadmap.txt"
    sed -n 's/^\([a-z-]*\): smoothed in [0-9.]* s, \(at most .*\)/\1: \2/p' "$tmp/route.txt"
} >"$tmp/printed"
[ "$(wc -l <"$tmp/printed")" -ge 14 ] && ok || bad "too few printed lines: $(cat "$tmp/printed")"
while IFS= read -r line; do grep -qxF -- "- $line" "$R" || echo "$line"; done <"$tmp/printed" >"$tmp/missing"
[ ! -s "$tmp/missing" ] && ok || bad "printed lines not in the report: $(head -3 "$tmp/missing")"
for k in rules cost; do
    line=$(grep "^$k: " "$tmp/cost.txt")
    grep -qxF -- "- $line (\`cost.json\`)" "$R" && ok || bad "cost.txt's '$line' not in the report"
done

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

# maps: the three PNGs linked, the routes map said to be at the top (once), the others said absent
grep -qF '](png/class.png)' "$R" && ok || bad "class.png link"
grep -qF '](png/gonogo.png)' "$R" && ok || bad "gonogo.png link"
grep -qF '![The speed limit that binds](png/limit.png)' "$R" && ok || bad "limit.png link"
[ "$(grep -c '](png/routes.png)' "$R")" = 1 ] && grep -qxF 'The routes by strategy (`png/routes.png`) are the map at the top.' "$R" && ok ||
    bad "routes.png shown once, at the top"
grep -qF 'Absent: `png/dem.png`, `png/slope.png`, `png/speed.png`, `png/cost.png`, `png/sim.png`, `png/sim_replan.png`.' "$R" && ok ||
    bad "absent maps: $(grep '^Absent: `png' "$R")"

# HTML: self-contained, the same numbers, images embedded
grep -qi 'http:\|https:\|<link\|<script' "$H" && bad "the HTML refers to something outside itself" || ok
[ "$(grep -o 'src="[^"]*"' "$H" | grep -vc '^src="data:image/png;base64,')" = 0 ] && ok || bad "a src= that is not data:"
[ "$(grep -o 'src="data:image/png;base64,' "$H" | wc -l)" = 4 ] && ok || bad "4 embedded images (routes, class, limit, gonogo)"
for png in class routes; do
    base64 -w0 "$T/png/$png.png" >"$tmp/b64" && grep -qFf "$tmp/b64" "$H" && ok || bad "$png.png not embedded byte for byte"
done
grep -q '<figure id="map"><img alt="The routes over the mobility cost' "$H" && ok || bad "the map of the answer"
grep -q '<table id="summary">' "$H" && grep -q '<h2 id="provenance">' "$H" && ok || bad "the ids the browser check finds"
grep -q "<td class=\"r\">$n0</td>" "$H" && ok || bad "HTML class 0 count"
grep -q '<h2>Strategies compared</h2>' "$H" && ok || bad "HTML headings"
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
"$BIN/trv-report" -q "$T" -o "$tmp/else/r.md" --html "$tmp/else/sub/r.html" && grep -qF '](../run/png/class.png)' "$tmp/else/r.md" &&
    grep -qF -- '- [route.csv](../run/route.csv): ' "$tmp/else/r.md" && grep -qF '<a href="../../run/route.csv">' "$tmp/else/sub/r.html" &&
    ok || bad "relative links from elsewhere"
# with the map of the recommended route alone (png/route_mmcr.png, as make
# demo draws it): that map at the top, every route under the comparison
cp -R "$T" "$tmp/one"
"$BIN/trv-render" -q "$T/cost.tif" --hillshade "$T/dem.tif" --overlay "$T/route.geojson" --route mmcr --legend \
    -o "$tmp/one/png/route_mmcr.png" && "$BIN/trv-report" -q "$tmp/one" -o "$tmp/one/report.md" --html "$tmp/one/report.html" ||
    bad "report with route_mmcr.png"
O=$tmp/one/report.md
sed -n '/^## Recommended route/,/^## Strategies compared/p' "$O" >"$tmp/one_answer"
sed -n '/^## Strategies compared/,/^## Simulation/p' "$O" >"$tmp/one_routes"
grep -qF '![The recommended route (MMCR) over the mobility cost](png/route_mmcr.png)' "$tmp/one_answer" && ok ||
    bad "the recommended route's map at the top: $(grep -F '](png/' "$tmp/one_answer")"
grep -qF '](png/routes.png)' "$tmp/one_answer" && bad "every route at the top too" || ok
grep -qF '![Every route over the mobility cost](png/routes.png)' "$tmp/one_routes" && ok || bad "every route under the comparison"
grep -qxF 'The recommended route (`png/route_mmcr.png`) is the map at the top; every route (`png/routes.png`) is under Strategies compared.' "$O" &&
    ok || bad "the maps section's pointer"
base64 -w0 "$tmp/one/png/route_mmcr.png" >"$tmp/b64" && grep -q '<figure id="map"><img alt="The recommended route (MMCR)' "$tmp/one/report.html" &&
    grep -qFf "$tmp/b64" "$tmp/one/report.html" && ok || bad "route_mmcr.png is the HTML's map"
# Markdown alone; absent optional inputs are reported, not errors
mkdir -p "$tmp/min"
cp "$T/route_stats.csv" "$T/class.tif" "$T/gonogo.tif" "$T/dem.tif" "$T/slope.tif" "$tmp/min/"
"$BIN/trv-report" -q "$tmp/min" -o "$tmp/min/report.md" && ok || bad "minimal directory"
grep -q 'Absent: `krige.json` is not in the run directory' "$tmp/min/report.md" && ok || bad "absent kriging said"
# a model (its parameters too) and nmax given, with realisations: the report's lines are the
# ones trv-krige printed (the neighbourhood's "given" wording, realisations)
mkdir -p "$tmp/kg"
cp "$tmp/min/"* "$tmp/kg/"
"$BIN/trv-krige" "$tmp/dem180.tif" --tr 360 --seed 3 --model sph --nugget 0 --psill 5000 --range 3000 --nmax 9 --nsim 2 \
    -o "$tmp/kg/dem_kriged.tif" >"$tmp/kg.txt" 2>/dev/null && "$BIN/trv-report" -q "$tmp/kg" -o "$tmp/kg/report.md" && ok || bad "given model's run"
grep -E '^(model \(given\)|neighbourhood|realisations): ' "$tmp/kg.txt" >"$tmp/kg.lines"
[ "$(wc -l <"$tmp/kg.lines")" = 3 ] && ok || bad "trv-krige's given-model lines: $(cat "$tmp/kg.txt")"
while IFS= read -r line; do grep -qxF -- "- $line" "$tmp/kg/report.md" || grep -qxF -- "$line" "$tmp/kg/report.md" || echo "$line"; done \
    <"$tmp/kg.lines" >"$tmp/kg.missing"
[ ! -s "$tmp/kg.missing" ] && ok || bad "given-model lines not in the report: $(cat "$tmp/kg.missing")"
grep -q 'Absent: no `sim\*/metrics.json`' "$tmp/min/report.md" && ok || bad "absent simulation said"
grep -qxF '| simulated drive | not simulated in this run |' "$tmp/min/report.md" && ok || bad "no drive in the answer"
grep -qF 'the vehicle'"'"'s limit is not known here (no `speed.json` in the run directory)' "$tmp/min/report.md" && ok || bad "no vehicle said"
grep -qF 'The route'"'"'s vertices (`route.csv`) are absent' "$tmp/min/report.md" && ok || bad "no route.csv said"
grep -qxF 'Absent: `png/routes.png` (the map of the routes).' "$tmp/min/report.md" && ok || bad "no routes map said"
# without an MMCR route, the first roadmap route is the answer, and says why
mkdir -p "$tmp/nommcr"
cp "$tmp/min/"*.tif "$tmp/nommcr/" && grep -v '^mmcr,' "$T/route_stats.csv" >"$tmp/nommcr/route_stats.csv"
first=$(sed -n '2s/,.*//p' "$tmp/nommcr/route_stats.csv")
"$BIN/trv-report" -q "$tmp/nommcr" -o "$tmp/nommcr/report.md" && grep -q "^## Recommended route: " "$tmp/nommcr/report.md" &&
    grep -qF "(\`$first\`), because this run planned no MMCR route" "$tmp/nommcr/report.md" && ok ||
    bad "the answer without MMCR: $(grep -m1 '^Recommended' "$tmp/nommcr/report.md")"
[ ! -e "$tmp/min/report.html" ] && ok || bad "HTML without --html"
# a fleet mission (trv-fleet's fleet.json, trv-sim's metrics.json): one row
# per vehicle, the simulated columns from metrics.json by id, "-" where a
# vehicle was not simulated, the totals and GLPK's gap
mkdir -p "$tmp/fl/fleet/plan" "$tmp/fl/fleet/sim"
cp "$tmp/min/"*.tif "$tmp/min/route_stats.csv" "$tmp/fl/"
cat >"$tmp/fl/fleet/plan/fleet.json" <<'EOT'
{"assign": "routes", "method": "milp (glpk 5.0)", "vehicles_n": 2, "tasks_n": 4, "served": 3, "total_s": 1500.6,
 "makespan_s": 1000.25, "heuristic": {"total_s": 1530.6}, "milp": {"status": "optimal", "total_s": 1500.6},
 "gap": 0.019994,
 "vehicles": [{"id": "u1", "tasks": ["t2", "t1"], "time_s": 1000.25, "route_time_s": 900.4, "distance_m": 5432.1},
              {"id": "k9", "tasks": ["t3"], "time_s": 500.25, "route_time_s": 400.6, "distance_m": 2100}]}
EOT
cat >"$tmp/fl/fleet/sim/metrics.json" <<'EOT'
{"vehicles": [{"id": "u1", "time_s": 950.7, "distance_m": 5501.9, "end": "goal", "collisions": 0}]}
EOT
"$BIN/trv-report" -q "$tmp/fl" -o "$tmp/fl/report.md" 2>"$tmp/err" && ok || bad "fleet report: $(cat "$tmp/err")"
sed -n '/^## A fleet mission/,/^## /p' "$tmp/fl/report.md" >"$tmp/fl/sec"
grep -qF '2 vehicles, each on its own type'"'"'s map, 3 of 4 tasks served by `routes` (milp (glpk 5.0))' "$tmp/fl/sec" &&
    grep -qxF '| u1 | t2, t1 | 1000 | 900 | 951 | 5.43 | 5.50 | goal | 0 |' "$tmp/fl/sec" &&
    grep -qxF '| k9 | t3 | 500 | 401 | - | 2.10 | - | - | - |' "$tmp/fl/sec" &&
    grep -qF 'Total 1501 s, makespan 1000 s. The heuristic'"'"'s total 1531 s; GLPK'"'"'s MILP: optimal, total 1501 s: the heuristic'"'"'s gap 2.00 %.' "$tmp/fl/sec" &&
    ok || bad "the fleet table: $(cat "$tmp/fl/sec")"
! grep -q '^## A fleet mission' "$tmp/min/report.md" && ok || bad "a fleet section without fleet.json"

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
sed '3s/,[0-9.]*$/,x/' "$T/route.csv" >"$tmp/e/route.csv"
expect 1 "$tmp/e/route.csv:" -- "$BIN/trv-report" "$tmp/e" -o "$tmp/x.md" --html "$tmp/x.html"
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
cp "$T/krige.json" "$tmp/e/"
expect 1 "variogram.csv:2" -- "$BIN/trv-report" "$tmp/e" -o "$tmp/x.md"
mk
sed 's/"model": {/"chosen": {/' "$T/krige.json" >"$tmp/e/krige.json"
expect 1 "cannot read '$tmp/e/krige.json': no \"model\" with a \"type\"" -- "$BIN/trv-report" "$tmp/e" -o "$tmp/x.md"
for s in krige speed cost roadmap route; do
    mk
    head -c 200 "$T/$s.json" >"$tmp/e/$s.json"
    expect 1 "cannot read '$tmp/e/$s.json': not a JSON object" -- "$BIN/trv-report" "$tmp/e" -o "$tmp/x.md" --html "$tmp/x.html"
done
mk
mkdir -p "$tmp/e/png" && echo "not a png" >"$tmp/e/png/dem.png"
expect 1 "'$tmp/e/png/dem.png' is not a PNG file" -- "$BIN/trv-report" "$tmp/e" -o "$tmp/x.md" --html "$tmp/x.html"
expect 2 "" -- "$BIN/trv-report" "$T"
expect 2 "" -- "$BIN/trv-report" -o "$tmp/x.md"
expect 2 "" -- "$BIN/trv-report" "$T" "$T" -o "$tmp/x.md"
"$BIN/trv-report" --help | grep -q 'Required in DIR: route_stats.csv' && ok || bad "--help names the required inputs"

# ---- a dynamic run (rollover_threshold_deg): the rollover margin along the drive ----
D=$tmp/dyn
cp -r "$T" "$D" && mkdir -p "$D/sim_dynamic" &&
    echo '{"scenario": "dyn", "vehicles": [{"id": "ugv", "reached_goal": true, "rollover_threshold_deg": 40.0}]}' \
        >"$D/sim_dynamic/metrics.json" &&
    printf '%s\n' t,x,y,z,heading_deg,pitch_deg,roll_deg 0,500000,4000000,1,0,0,5 1,500100,4000050,1,0,0,-30 \
        2,500200,4000000,1,0,0,10 3,500300,4000080,1,0,0,12 4,500400,4000020,1,0,0,25 5,500500,4000040,1,0,0,-2 \
        >"$D/sim_dynamic/trajectory_ugv.csv" &&
    "$BIN/trv-report" -q "$D" -o "$D/report.md" --html "$D/report.html" || bad "report of a dynamic run"
# margins 40 - |roll|: 35 10 30 28 15 38; the smallest at row 1, 111.8 m along (t = 1 s)
grep -qxF '| smallest rollover margin along the drive (ugv, trajectory rows) | 10.00 deg at 0.11 km, t = 1 s (x 500100.0, y 4000050.0) |' \
    "$D/report.md" && ok || bad "the smallest margin's row: $(grep 'smallest rollover' "$D/report.md")"
grep -qF '](png/sim_dynamic_rollover_margin_ugv.png)' "$D/report.md" && ok || bad "the margin map's link"
[ "$(grep -o 'src="data:image/png;base64,' "$D/report.html" | wc -l)" = 5 ] && ok || bad "the margin map embedded"
# the map: each point's pixel (render.h's geometry) in the colour bar's colour of its margin
/usr/bin/python3 - "$D/png/sim_dynamic_rollover_margin_ugv.png" <<'PY' && ok || bad "the margin map's colours"
import sys
from osgeo import gdal
ds = gdal.Open(sys.argv[1])
assert (ds.RasterXSize, ds.RasterYSize) == (900, 700), (ds.RasterXSize, ds.RasterYSize)
px = [ds.GetRasterBand(b + 1).ReadAsArray() for b in range(3)]
x = [0, 100, 200, 300, 400, 500]; y = [0, 50, 0, 80, 20, 40]; m = [35, 10, 30, 28, 15, 38]
bx0, by0, bx1, by1 = 20, 50, 900 - 110, 700 - 20
s = min((bx1 - bx0) / 500, (by1 - by0) / 80)
for i in (1, 3, 4):
    cx = (bx0 + bx1) / 2 + (x[i] - 250) * s; cy = (by0 + by1) / 2 - (y[i] - 40) * s
    yb = 680 - m[i] / 40 * (680 - 70)  # the bar's row of that margin
    got = [int(p[int(cy), int(cx)]) for p in px]; want = [int(p[int(yb), 829]) for p in px]
    assert max(abs(a - b) for a, b in zip(got, want)) <= 12, (i, got, want)
PY

# ---- the first screen in a real browser: the map and the summary, provenance below the fold ----
here=$(cd "$(dirname "$0")" && pwd)
/usr/bin/python3 "$here/report_browser.py" "$H" "$tmp/first_screen.png" 1366x768 >"$tmp/browser" 2>&1
brc=$?
grep -v '^SKIPPED: ' "$tmp/browser"
if [ "$brc" = 77 ]; then
    # the script says what is missing in its "SKIPPED: ..." line
    why=$(sed -n 's/^SKIPPED: //p' "$tmp/browser")
    case $why in *selenium*) pkg=python3-selenium ;; *chromedriver*) pkg=chromium-driver ;; *) pkg=chromium ;; esac
    skip_pkg "$pkg" "$why"
elif [ "$brc" = 0 ] || [ "$brc" = 1 ]; then
    pass=$((pass + $(sed -n 's/^browser: \([0-9]*\) passed.*/\1/p' "$tmp/browser")))
    fail=$((fail + $(sed -n 's/^browser: [0-9]* passed, \([0-9]*\) failed$/\1/p' "$tmp/browser")))
    # the screenshot is a 1366 x 768 picture, not a blank page: GDAL reads it, the shades vary
    gdalinfo -stats "$tmp/first_screen.png" >"$tmp/shot.txt" 2>&1
    grep -q '^Size is 1366, 768' "$tmp/shot.txt" && ok || bad "screenshot size: $(grep '^Size' "$tmp/shot.txt")"
    sd=$(sed -n 's/.*STATISTICS_STDDEV=//p' "$tmp/shot.txt" | head -1)
    awk -v s="${sd:-0}" 'BEGIN { exit !(s > 20) }' && ok || bad "the screenshot looks blank (band 1 standard deviation ${sd:-none})"
else
    bad "the browser check did not run (exit $brc)"
fi

summary tool_report
