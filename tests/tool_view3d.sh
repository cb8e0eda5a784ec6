#!/bin/sh
# trv-export --web3d and the 3D view (web/view3d.html) on a small run: the
# synthetic terrain of tool_sim.sh (100 x 100 cells of 10 m, UTM 16N, a DEM
# rising 0.1 m per cell eastward, one NOGO block) and a short trv-sim run
# along a hand-made route.csv. The export: its files (index, 1 level of 1
# tile, the textures), the tile's heights against the DEM read back by
# gdal_translate (independent of the exporter), the same bytes twice, the
# errors (no DEM: exit 1 and no web3d/ left; --web3d with --nav2 or --route:
# exit 2). The page: headless Chromium (tests/view3d_browser.py) opens it
# through a static HTTP server laid out as the console serves it (/web,
# /run, /sim, /lib/three), waits for the first frames and checks the canvas
# is not blank and that tiles, the vehicle, the route and the trajectory
# are loaded; a screenshot is kept in $TRV_VIEW3D_SHOT when set. The run's
# record for replays: vehicles.json against the vehicle file's [body] and,
# with lidar_record_s = 2 and lidar_record_points = 300 and a 3D LiDAR,
# lidar_ugv.ndjson read back in Python (a scan every 2 s of the 10 Hz scan
# clock from t = 0, each min(hits, 300) points within the LiDAR's range of
# the mount), the same bytes twice; the page on that run at mid-run shows
# the points of the record's scan at or before its time (counted from the
# file) and draws the vehicle at the file's [body] size; on a run without
# vehicles.json (older runs) the default 4 x 2 m box. Then, where
# trv-sim has the console (--console), the page with ?live=1 on a live run:
# the vehicle seen moving over the WebSocket, its LiDAR hits drawn. SKIPPED
# when chromium, chromedriver or python3-selenium is missing.
# Ends with "N passed, N failed, N skipped".
set -u
BIN=${TRV_BIN:-bin}
DATA=${TRV_DATADIR:-data}
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/.." && pwd)
tmp=$(mktemp -d /tmp/trv-view3d-test-XXXXXX)
server=
trap '[ -n "$server" ] && kill "$server" 2>/dev/null; rm -rf "$tmp"' EXIT
. "$here/lib.sh"

# ---- the terrain (as tool_sim.sh) ----
T=$tmp/t
mkdir -p "$T"
grid() { # name value-expression (awk, of c and r) type
    awk -v N=100 "BEGIN {
        print \"ncols 100\"; print \"nrows 100\"; print \"xllcorner 500000\"; print \"yllcorner 4000000\";
        print \"cellsize 10\";
        for (r = 0; r < N; r++) { line = \"\";
            for (c = 0; c < N; c++) { nogo = (c >= 40 && c < 60 && r >= 10 && r < 30); line = line \" \" ($2) }
            print line } }" >"$tmp/$1.asc"
    gdal_translate -q -a_srs EPSG:32616 -ot "$3" "$tmp/$1.asc" "$T/$1.tif"
}
grid class '(nogo ? 0 : 3)' Byte
grid gonogo '(nogo ? 1 : 0)' Byte
grid cost '(nogo ? 1 : 0.2 + 0.005 * r)' Float32
grid dem '(100 + 0.1 * c + 0.02 * r)' Float32
grid slope '0.6' Float32
grid speed '(nogo ? 0 : 20)' Float32
[ -f "$T/speed.tif" ] || { echo "cannot make the terrain"; exit 1; }
X() { echo $((500005 + 10 * $1)); }
Y() { echo $((4000995 - 10 * $1)); }
# the planned route: west to east along row 60, then north-east
printf 'route,x,y,z\nmmcr,%s,%s,106.2\nmmcr,%s,%s,109.2\nmmcr,%s,%s,111.6\n' "$(X 10)" "$(Y 60)" "$(X 40)" "$(Y 60)" \
    "$(X 60)" "$(Y 40)" >"$T/route.csv"
cat >"$tmp/s.ini" <<EOS
[scenario]
time_limit_s = 200
[vehicle.ugv]
file = $(cd "$DATA/vehicles" && pwd)/ugv_hua2022.ini
model = ackermann
start = $(X 10),$(Y 60)
goal = $(X 60),$(Y 40)
srs = map
EOS
if "$BIN/trv-sim" --terrain "$T" --scenario "$tmp/s.ini" --route "$T/route.csv" -o "$tmp/sim" -q --no-timing \
    2>"$tmp/err"; then ok; else bad "trv-sim: $(cat "$tmp/err")"; fi

# ---- the run's record for replays: vehicles.json, lidar_ugv.ndjson ----
VEH=$(cd "$DATA/vehicles" && pwd)/ugv_hua2022.ini
sed 's/^time_limit_s = 200$/time_limit_s = 200\nlidar_record_s = 2\nlidar_record_points = 300/' "$tmp/s.ini" >"$tmp/rec.ini"
printf '[lidar3d.ugv]\nrange_m = 40\nmount_h_m = 1.5\n' >>"$tmp/rec.ini"
for o in simrec simrec2; do
    "$BIN/trv-sim" --terrain "$T" --scenario "$tmp/rec.ini" --route "$T/route.csv" -o "$tmp/$o" -q --no-timing \
        --seed 7 2>"$tmp/err" || bad "trv-sim recording the LiDAR: $(cat "$tmp/err")"
done
same=1
for f in lidar_ugv.ndjson vehicles.json trajectory_ugv.csv events.jsonl; do
    cmp -s "$tmp/simrec/$f" "$tmp/simrec2/$f" || same=0
done
[ $same = 1 ] && ok || bad "the LiDAR record or vehicles.json differ between two runs with one seed"
[ ! -e "$tmp/sim/lidar_ugv.ndjson" ] && ok || bad "a LiDAR record without lidar_record_s"
/usr/bin/python3 - "$VEH" "$tmp/sim" "$tmp/simrec" >"$tmp/rec.check" 2>&1 <<'EOP'
import configparser, json, math, sys
veh, plain, rec = sys.argv[1:]
cp = configparser.ConfigParser(inline_comment_prefixes=("#",))
cp.read(veh)
keys = ("length_m", "width_m", "height_m", "wheelbase_m", "track_m", "wheel_radius_m")
bad = []
for run, lidar in ((plain, None), (rec, "lidar_ugv.ndjson")):
    v = json.load(open(run + "/vehicles.json"))["vehicles"]
    if len(v) != 1 or v[0]["id"] != "ugv" or v[0]["model"] != "ackermann" or v[0]["lidar"] != lidar:
        bad.append("%s/vehicles.json: %s" % (run, v))
    for k in keys:
        if abs(v[0][k] - float(cp["body"][k])) > 1e-9:
            bad.append("%s/vehicles.json: %s %s, the vehicle file %s" % (run, k, v[0][k], cp["body"][k]))
scans = [json.loads(l) for l in open(rec + "/lidar_ugv.ndjson")]
t_end = float(open(rec + "/trajectory_ugv.csv").read().split()[-1].split(",")[0])
if len(scans) < 10 or scans[0]["t"] != 0:
    bad.append("%d scans, the first at %s" % (len(scans), scans and scans[0]["t"]))
for a, b in zip(scans, scans[1:]):
    if not 2 - 1e-6 <= b["t"] - a["t"] <= 2.2:  # the first of the 10 Hz clock (on 0.02 s steps) 2 s on
        bad.append("scans at %s and %s" % (a["t"], b["t"]))
for s in scans:
    if s["t"] > t_end + 1e-6 or s["n"] != min(s["hits"], 300) or len(s["xyz"]) != 3 * s["n"] or s["n"] == 0:
        bad.append("scan at %s: hits %s, n %s, %d numbers" % (s["t"], s["hits"], s["n"], len(s["xyz"])))
    far = max(math.dist(s["xyz"][i:i + 3], (0, 0, 1.5)) for i in range(0, len(s["xyz"]), 3))
    if far > 40.5:  # range 40 m from the mount 1.5 m up (noise 0.02 m, the tilt)
        bad.append("scan at %s: a point %.2f m from the mount" % (s["t"], far))
print("\n".join(bad[:5]) or "ok")
sys.exit(1 if bad else 0)
EOP
[ $? = 0 ] && ok || bad "the run's record: $(cat "$tmp/rec.check")"
# older runs: no vehicles.json
cp -r "$tmp/sim" "$tmp/simold"
rm "$tmp/simold/vehicles.json"

# ---- the export ----
if "$BIN/trv-export" --web3d --terrain "$T" >"$tmp/out" 2>"$tmp/err"; then ok; else bad "export: $(cat "$tmp/err")"; fi
grep -qx "web3d: 100 x 100 cells in EPSG:32616, 1 levels, 1 tiles, 4 textures; wrote '$T/web3d'" "$tmp/out" &&
    ok || bad "export's line: $(cat "$tmp/out")"
for f in index.json export.json tiles/0_0_0.f32 hillshade.png speed.png cost.png gonogo.png; do
    [ -s "$T/web3d/$f" ] && ok || bad "no web3d/$f"
done
[ "$(stat -c %s "$T/web3d/tiles/0_0_0.f32")" = $((129 * 129 * 4)) ] && ok || bad "tile size"
[ "$(sed -n 's/^      "name": "\(.*\)",$/\1/p' "$T/web3d/index.json" | tr '\n' ' ')" = "hillshade speed cost gonogo " ] &&
    ok || bad "the textures in index.json: $(grep '"name"' "$T/web3d/index.json")"
# the tile against the DEM: vertex (i, j) is cell (i, j), -9999 past the 100 x 100 cells
gdal_translate -q -of AAIGrid "$T/dem.tif" "$tmp/dem_back.asc"
od -An -v -t f4 -w516 "$T/web3d/tiles/0_0_0.f32" | awk -v asc="$tmp/dem_back.asc" '
    BEGIN { r = 0; while ((getline l < asc) > 0) { k = split(l, f, " "); if (k == 100 && f[1] ~ /^[0-9.]+$/) { for (c = 1; c <= 100; c++) z[r, c - 1] = f[c]; r++ } } }
    { for (i = 1; i <= NF; i++) { want = (NR - 1 < 100 && i - 1 < 100) ? z[NR - 1, i - 1] : -9999;
          if (($i - want) > 1e-4 || (want - $i) > 1e-4) { print "vertex " i - 1 "," NR - 1 ": " $i " want " want; bad++ } ; n++ } }
    END { if (n != 129 * 129 || r != 100) { print "read " n " vertices, " r " rows"; bad++ } exit bad > 0 }' >"$tmp/cmp" &&
    ok || bad "tile heights differ from the DEM: $(head -3 "$tmp/cmp")"
# the same bytes twice
cp -r "$T/web3d" "$tmp/web3d_first"
"$BIN/trv-export" --web3d --terrain "$T" -q 2>"$tmp/err" || bad "second export: $(cat "$tmp/err")"
for f in index.json tiles/0_0_0.f32 hillshade.png speed.png cost.png gonogo.png; do
    cmp -s "$T/web3d/$f" "$tmp/web3d_first/$f" || bad "web3d/$f differs between two exports"
done
ok
# errors: no partial outputs, usage exit 2
mkdir "$tmp/odd"
cp "$T/dem.tif" "$tmp/odd/"
gdal_translate -q -srcwin 0 0 99 100 "$T/speed.tif" "$tmp/odd/speed.tif"
"$BIN/trv-export" --web3d --terrain "$tmp/odd" -q 2>"$tmp/err"
[ $? = 1 ] && grep -qF "speed.tif' is not on the grid of dem.tif (100 x 100 cells): 99 x 100" "$tmp/err" &&
    [ ! -e "$tmp/odd/web3d" ] && ok || bad "a layer on another grid: $(cat "$tmp/err")"
mkdir "$tmp/empty"
"$BIN/trv-export" --web3d --terrain "$tmp/empty" -q 2>"$tmp/err"
[ $? = 1 ] && grep -qF "cannot open '$tmp/empty/dem.tif'" "$tmp/err" && [ ! -e "$tmp/empty/web3d" ] && ok ||
    bad "no DEM: $(cat "$tmp/err")"
"$BIN/trv-export" --web3d --nav2 "$tmp/n" --terrain "$T" -q 2>"$tmp/err"
[ $? = 2 ] && grep -qF -- "--web3d and --nav2 are two exports: give one" "$tmp/err" && ok || bad "--web3d with --nav2: $(cat "$tmp/err")"
"$BIN/trv-export" --web3d --route "$T/route.csv" --terrain "$T" -q 2>"$tmp/err"
[ $? = 2 ] && grep -qF -- "--route goes with --nav2" "$tmp/err" && ok || bad "--web3d with --route: $(cat "$tmp/err")"
"$BIN/trv-export" --terrain "$T" -q 2>"$tmp/err"
[ $? = 2 ] && grep -qF -- "give --nav2 DIR or --web3d" "$tmp/err" && ok || bad "neither export: $(cat "$tmp/err")"

# ---- the page in headless Chromium ----
if [ ! -x /usr/bin/chromium ] || [ ! -x /usr/bin/chromedriver ]; then
    skip_pkg chromium-driver "the 3D view in a browser: chromium or chromedriver is not installed"
elif ! /usr/bin/python3 -c "import selenium" 2>/dev/null; then
    skip_pkg python3-selenium "the 3D view in a browser: python3-selenium is not installed"
elif [ ! -f /usr/share/javascript/three/build/three.min.js ]; then
    skip_pkg libjs-three "the 3D view in a browser: libjs-three is not installed"
else
    W=$tmp/www
    mkdir -p "$W/lib"
    ln -s "$repo/web" "$W/web"
    ln -s "$T" "$W/run"
    ln -s "$tmp/sim" "$W/sim"
    ln -s "$tmp/simold" "$W/simold"
    ln -s "$tmp/simrec" "$W/simrec"
    ln -s /usr/share/javascript/three "$W/lib/three"
    (cd "$W" && exec /usr/bin/python3 -u -m http.server 0 --bind 127.0.0.1) >"$tmp/http.log" 2>&1 &
    server=$!
    port=
    for _ in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20; do
        port=$(sed -n 's/.*port \([0-9][0-9]*\).*/\1/p' "$tmp/http.log" | head -1)
        [ -n "$port" ] && break
        sleep 0.5
    done
    shot=${TRV_VIEW3D_SHOT:-$tmp/view3d.png}
    /usr/bin/python3 "$here/view3d_browser.py" "http://127.0.0.1:$port/web/view3d.html?layer=cost&sim=/simold" "$shot" \
        --vehicles 1 --routes 1 --trajectories 1 --vehicle-size ugv=default --optional vehicles.json >"$tmp/browser" 2>&1
    case $? in
    0) ok ;;
    77) skip "$(grep SKIPPED "$tmp/browser")" ;;
    *) bad "the 3D view in the browser: $(cat "$tmp/browser")" ;;
    esac
    [ -s "$shot" ] && ok || bad "no screenshot"
    # the replay of the recorded run at mid-run: its LiDAR scan, the vehicle at its size
    tmid=$(awk -F, 'END { printf "%.1f", $1 / 2 }' "$tmp/simrec/trajectory_ugv.csv")
    /usr/bin/python3 "$here/view3d_browser.py" "http://127.0.0.1:$port/web/view3d.html?sim=/simrec&t=$tmid" \
        "${shot%.png}_lidar.png" --vehicles 1 --trajectories 1 --lidar 1 --lidar-record "$tmp/simrec/lidar_ugv.ndjson" \
        --vehicle-size "ugv=$VEH" >"$tmp/browser_rec" 2>&1
    case $? in
    0) ok ;;
    77) skip "$(grep SKIPPED "$tmp/browser_rec")" ;;
    *) bad "the replay of the recorded LiDAR: $(cat "$tmp/browser_rec")" ;;
    esac
    # live: ?live=1 over the console's WebSocket (trv-sim --console, docs/console.md), where this
    # trv-sim has one: the vehicle seen moving, its LiDAR hits drawn; on the cost layer (the synthetic
    # speed is one colour: the canvas check would count only the vehicle and the lines)
    webdir=${TRV_WEBDIR:-$repo/web}
    if ! "$BIN/trv-sim" --help 2>/dev/null | grep -q -- '--console'; then
        skip "the 3D view of a live run: this trv-sim has no --console"
    elif [ ! -f "$webdir/console.html" ] || [ ! -f "$webdir/view3d.html" ]; then
        skip "the 3D view of a live run: $webdir lacks the console's page or the 3D view"
    else
        sed 's/^time_limit_s = 200$/time_limit_s = 600/' "$tmp/s.ini" >"$tmp/live.ini"
        printf '[lidar3d.ugv]\nrange_m = 40\nmount_h_m = 1.5\n' >>"$tmp/live.ini"
        TRV_WEBDIR=$webdir "$BIN/trv-sim" --terrain "$T" --scenario "$tmp/live.ini" --route "$T/route.csv" \
            -o "$tmp/live" --console 127.0.0.1:0 2>"$tmp/console.err" &
        console=$!
        url=
        for _ in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20; do
            url=$(sed -n 's|.*console on \(http://[^ ]*/\).*|\1|p' "$tmp/console.err" | head -1)
            [ -n "$url" ] && break
            sleep 0.5
        done
        if [ -z "$url" ]; then
            bad "the console did not start: $(cat "$tmp/console.err")"
        else
            /usr/bin/python3 "$here/view3d_browser.py" "${url}web/view3d.html?live=1&camera=follow&layer=cost" "${shot%.png}_live.png" \
                --vehicles 1 --lidar 1 --moved 5 --vehicle-size "ugv=$VEH" >"$tmp/browser_live" 2>&1 && ok ||
                bad "the 3D view of a live run: $(cat "$tmp/browser_live" "$tmp/console.err")"
        fi
        kill "$console" 2>/dev/null
        wait "$console" 2>/dev/null
    fi
fi
summary tool_view3d
