#!/bin/sh
# trv-krige end to end: the CSV path against gstat through the command line,
# the raster path, determinism, and every error path (clear message,
# exit 1, no output). Ends with "N passed, N failed, N skipped".
set -u
BIN=${TRV_BIN:-bin}
DATA=${TRV_DATADIR:-data}
TESTDATA=${TRV_TESTDATA:-tests/data}
K=$BIN/trv-krige
M=$DATA/meuse/meuse_points.csv
tmp=$(mktemp -d /tmp/trv-krige-test-XXXXXX)
trap 'rm -rf "$tmp"' EXIT
. "$(dirname "$0")/lib.sh"

# expect STATUS MESSAGE -- command...: exit status, message, and no file
# named *.tif or *.csv left in $tmp/out
expect() {
    want=$1 msg=$2
    shift 3
    rm -rf "$tmp/out" && mkdir -p "$tmp/out"
    "$@" >"$tmp/stdout" 2>"$tmp/stderr"
    got=$?
    if [ "$got" != "$want" ]; then bad "$* -> exit $got, want $want ($(cat "$tmp/stderr"))"; return; fi
    if [ -n "$msg" ] && ! grep -qF -- "$msg" "$tmp/stderr"; then bad "$* -> stderr lacks '$msg': $(cat "$tmp/stderr")"; return; fi
    if [ -n "$(ls -A "$tmp/out")" ]; then bad "$* left $(ls -A "$tmp/out")"; return; fi
    ok
}

# ---- points from a CSV, gstat's model: equal to gstat's kriging ----
# gstat's fitted elev model (tests/data/gstat/meuse_elev_fit.csv), all points
NUG=0.626920040716518 PSILL=0.860249988030606 RANGE=1573.27746947146
# a 40 m grid whose cell centres are the Meuse grid nodes (x = 178460 + 40 k)
if "$K" "$M" --x x --y y --z elev --s_srs EPSG:28992 --tr 40 --te 178440 329600 181560 333760 \
    --model sph --nugget $NUG --psill $PSILL --range $RANGE --nmax 0 \
    -o "$tmp/m.tif" --std "$tmp/ms.tif" --cv "$tmp/cv.csv" --variogram "$tmp/v.csv" >"$tmp/report" 2>"$tmp/stderr"; then ok; else bad "meuse run: $(cat "$tmp/stderr")"; fi
# five nodes of the reference grid: prediction and variance (Float32: 1e-6 relative)
for row in 2 500 1200 2000 3100; do
    line=$(sed -n "$((row + 1))p" "$TESTDATA/gstat/meuse_elev_ok_nmaxall.csv")
    x=$(echo "$line" | cut -d, -f1) y=$(echo "$line" | cut -d, -f2) pred=$(echo "$line" | cut -d, -f3) var=$(echo "$line" | cut -d, -f4)
    got=$(gdallocationinfo -valonly -geoloc "$tmp/m.tif" "$x" "$y")
    gots=$(gdallocationinfo -valonly -geoloc "$tmp/ms.tif" "$x" "$y")
    echo "$got $pred $gots $var" | awk '{ if (($1-$2)^2 > (1e-6*$2)^2 || ($3*$3-$4)^2 > (2e-6*$4)^2) exit 1 }' && ok ||
        bad "node ($x, $y): ours $got (std $gots), gstat $pred (var $var)"
done
grep -q 'leave-one-out (155 points): RMSE 0.7934' "$tmp/report" && ok || bad "LOOCV RMSE: $(grep leave "$tmp/report")"
[ "$(sed -n 2p "$tmp/v.csv" | cut -d, -f1)" = 57 ] && ok || bad "variogram first lag: $(sed -n 2p "$tmp/v.csv")"
[ "$(wc -l <"$tmp/cv.csv")" = 156 ] && ok || bad "cv.csv rows"
gdalinfo "$tmp/m.tif" | grep -q 'TRV_MODEL=Sph nugget=0.6269200407' && ok || bad "TRV_MODEL metadata"
gdalinfo "$tmp/m.tif" | grep -qxF "  TRV_INPUT_POINTS=$M" && ok || bad "TRV_INPUT_POINTS metadata"
# its summary, krige.json beside m.tif, against gstat: the sample
# variogram lag by lag (np exact, distance and semivariance to 1e-6), the
# model given (to the 6 digits printed), the leave-one-out statistics
# computed here from gstat's krige.cv (to 1e-5, the 6 digits)
cp "$tmp/krige.json" "$tmp/meuse.json"
python3 - "$tmp/meuse.json" "$TESTDATA/gstat/meuse_elev_variogram.csv" "$TESTDATA/gstat/meuse_elev_loocv.csv" \
    "$NUG" "$PSILL" "$RANGE" >"$tmp/check" 2>&1 <<'EOF' && ok || bad "krige.json against gstat: $(cat "$tmp/check")"
import csv, json, math, sys
s = json.load(open(sys.argv[1]))
vgm = list(csv.DictReader(open(sys.argv[2])))
cv = list(csv.DictReader(open(sys.argv[3])))
nug, psill, rng = map(float, sys.argv[4:7])
rel = lambda a, b, tol: abs(a - b) <= tol * abs(b)
bins = s["sample_variogram"]["bins"]
assert s["sample_variogram"]["lags"] == len(bins) == len(vgm) == 15, len(bins)
for b, r in zip(bins, vgm):
    assert b["np"] == int(r["np"]), (b, r)
    assert rel(b["dist"], float(r["dist"]), 1e-6) and rel(b["gamma"], float(r["gamma"]), 1e-6), (b, r)
m = s["model"]
assert m["type"] == "Sph" and m["given"] is True, m
assert rel(m["nugget"], nug, 1e-5) and rel(m["psill"], psill, 1e-5) and rel(m["range"], rng, 1e-5), m
assert "candidates" not in s
err = [float(r["pred"]) - float(r["observed"]) for r in cv]
ref = {"rmse": math.sqrt(sum(e * e for e in err) / len(err)), "mae": sum(abs(e) for e in err) / len(err),
       "mean_error": sum(err) / len(err)}
got = s["cross_validation"]
assert got["points"] == len(cv) == 155, got
for k, v in ref.items():
    assert rel(got[k], v, 1e-5), (k, got[k], v)
assert s["input"]["kind"] == "points" and s["input"]["samples"] == 155, s["input"]
assert (s["grid"]["nx"], s["grid"]["ny"], s["grid"]["cell"], s["grid"]["crs"]) == (78, 104, 40, "EPSG:28992"), s["grid"]
EOF

# ---- a raster: the Jacksboro DEM (lon/lat) to 90 m UTM, auto model ----
if "$K" "$DATA/jacksboro/dem_3arcsec.tif" --tr 90 -o "$tmp/j.tif" --std "$tmp/js.tif" --points "$tmp/p.csv" --seed 7 >"$tmp/report" 2>"$tmp/stderr"; then ok; else bad "jacksboro run: $(cat "$tmp/stderr")"; fi
info=$(gdalinfo "$tmp/j.tif")
echo "$info" | grep -q 'ID\["EPSG",32616\]' && ok || bad "not EPSG:32616"
echo "$info" | grep -q 'Pixel Size = (90.000000000000000,-90.000000000000000)' && ok || bad "not 90 m"
echo "$info" | grep -q 'TRV_SEED=7' && ok || bad "no TRV_SEED"
grep -q '^model: ' "$tmp/report" && ok || bad "no model in the report"
# krige.json: the chosen model is the candidate of least leave-one-out
# RMSE, with its parameters, as the tool printed it
python3 - "$tmp/krige.json" "$(sed -n 's/^model: //p' "$tmp/report")" >"$tmp/check" 2>&1 <<'EOF' && ok || bad "krige.json's choice: $(cat "$tmp/check")"
import json, sys
s = json.load(open(sys.argv[1]))
ok = [c for c in s["candidates"] if c["ok"]]
best = min(ok, key=lambda c: c["rmse"])
m = s["model"]
assert len(s["candidates"]) == 18 and m["given"] is False and m["type"] == best["model"], (m, best)
for k in ("nugget", "psill", "range", "kappa"):
    assert m.get(k) == best.get(k), (k, m, best)
text = "%s nugget %g, psill %g, range %g" % (m["type"], m["nugget"], m["psill"], m["range"])
text += ", kappa %g" % m["kappa"] if "kappa" in m else ""
assert text == sys.argv[2], (text, sys.argv[2])
assert s["seed"] == 7 and s["input"]["kind"] == "raster" and s["input"]["samples"] == s["input"]["cells"] == 138632, s["input"]
EOF
head -1 "$tmp/p.csv" | grep -qx 'x,y,z,std' && ok || bad "points.csv header"
# elevations stay in the DEM's range (236-1076 m) give or take the kriging overshoot
gdalinfo -stats "$tmp/j.tif" | awk -F= '/STATISTICS_MINIMUM/{mn=$2} /STATISTICS_MAXIMUM/{mx=$2} END{exit !(mn > 200 && mx < 1120)}' && ok || bad "elevation range"
# same command, same bytes; another thread count, same cells
cp "$tmp/j.tif" "$tmp/j1.tif" && cp "$tmp/p.csv" "$tmp/p1.csv" && cp "$tmp/krige.json" "$tmp/k1.json"
"$K" "$DATA/jacksboro/dem_3arcsec.tif" --tr 90 -o "$tmp/j.tif" --std "$tmp/js.tif" --points "$tmp/p.csv" --seed 7 >/dev/null 2>&1
cmp -s "$tmp/j.tif" "$tmp/j1.tif" && cmp -s "$tmp/p.csv" "$tmp/p1.csv" && ok || bad "a rerun changed the outputs"
cmp -s "$tmp/krige.json" "$tmp/k1.json" && ok || bad "a rerun changed krige.json"
"$K" "$DATA/jacksboro/dem_3arcsec.tif" --tr 90 -o "$tmp/j3.tif" --seed 7 --threads 3 -q
[ "$(gdalinfo -checksum "$tmp/j3.tif" | grep Checksum)" = "$(gdalinfo -checksum "$tmp/j1.tif" | grep Checksum)" ] && ok || bad "3 threads give other cells"
# the blocks counted are the blocks used (framed ones are solved four at a
# time along a row, the others counted when first used): at 150 m no two
# targets share a source cell (its diagonal is about 119 m), so every
# block serves one target
mkdir -p "$tmp/c150"
"$K" "$DATA/jacksboro/dem_3arcsec.tif" --tr 150 -o "$tmp/c150/j.tif" --model mat --kappa 2.5 --nugget 0 --psill 6000 \
    --range 106 --nmax 64 -q && python3 - "$tmp/c150/krige.json" <<'EOF' && ok || bad "blocks counted at 150 m"
import json, sys
g = json.load(open(sys.argv[1]))["grid"]
assert g["by_frame"] > 30000 and g["frame_blocks"] == g["by_frame"] and g["factorised"] == g["by_block"] > 0, g
EOF

# lattice frames (docs/method.md 1.7): the default --et 0.01 predicts most
# cells by frames; --et 0 none (the exact per-block path). The two point
# clouds (x,y,z,std of every cell) agree within 0.01 m and 1e-3 m of std
# (test_krige_frame derives the bound: 4 S e' is ~0.05 m here, measured
# 1.4 mm at 30 m), and differ somewhere (the frames were used)
mkdir -p "$tmp/e0"
"$K" "$DATA/jacksboro/dem_3arcsec.tif" --tr 90 -o "$tmp/e0/j.tif" --points "$tmp/e0/p.csv" --seed 7 --et 0 -q &&
    ok || bad "--et 0 run"
python3 - "$tmp/k1.json" "$tmp/e0/krige.json" "$tmp/p1.csv" "$tmp/e0/p.csv" >"$tmp/check" 2>&1 <<'EOF' && ok || bad "frames: $(cat "$tmp/check")"
import csv, json, sys
a, b = (json.load(open(f))["grid"] for f in sys.argv[1:3])
data = a["nx"] * a["ny"] - a["nodata"]
assert a["et"] == 0.01 and a["by_frame"] > 0.9 * data and a["frames"] > 0 and a["frame_blocks"] > 0, a
assert a["by_frame"] + a["by_block"] + a["by_stencil"] == data, a
assert b["et"] == 0 and b["by_frame"] == b["frames"] == b["frame_blocks"] == 0 and b["by_block"] == data, b
p, q = (list(csv.DictReader(open(f))) for f in sys.argv[3:5])
assert len(p) == len(q) == data, (len(p), len(q))
dz = max(abs(float(r["z"]) - float(s["z"])) for r, s in zip(p, q))
ds = max(abs(float(r["std"]) - float(s["std"])) for r, s in zip(p, q))
assert 0 < dz <= 0.01 and ds <= 1e-3, (dz, ds)
EOF

# the neighbourhood (docs/method.md 1.12): krige.json lists 16, 36 and 64
# with their leave-one-out RMSE; the choice, recomputed here from them, is
# the cheapest within 0.1 % of the least; TRV_MODEL and the report say the
# same. With --nmax 16: the same model and candidates (the model is chosen
# with 16 neighbours either way), nmax 16 given, not chosen. The RMSE at 16
# is the chosen model's in the model choice: the same subsample.
mkdir -p "$tmp/n16"
"$K" "$DATA/jacksboro/dem_3arcsec.tif" --tr 90 -o "$tmp/n16/j.tif" --seed 7 --nmax 16 >"$tmp/n16/report" 2>"$tmp/stderr" && ok ||
    bad "--nmax 16: $(cat "$tmp/stderr")"
python3 - "$tmp/k1.json" "$tmp/n16/krige.json" "$(sed -n 's/^neighbourhood: //p' "$tmp/report")" \
    "$(gdalinfo "$tmp/j1.tif" | sed -n 's/.*TRV_MODEL=.* nmax=//p')" "$(gdalinfo "$tmp/n16/j.tif" | sed -n 's/.*TRV_MODEL=.* nmax=//p')" \
    "$(sed -n 's/^neighbourhood: //p' "$tmp/n16/report")" >"$tmp/check" 2>&1 <<'EOF' && ok || bad "the neighbourhood: $(cat "$tmp/check")"
import json, math, sys
a, b = (json.load(open(f)) for f in sys.argv[1:3])
n = a["neighbourhood"]
c = n["candidates"]
assert n["chosen"] is True and n["tolerance"] == 0.001 and [x["nmax"] for x in c] == [16, 36, 64], n
best = min(x["rmse"] for x in c)
want = next(x["nmax"] for x in c if x["rmse"] <= 1.001 * best)
assert n["nmax"] == want and sys.argv[4] == str(want), (n, sys.argv[4])
text = "nmax %d, the smallest within 0.1 %% of the least leave-one-out RMSE (same subsample): " % want
text += ", ".join("nmax %d rmse %g" % (x["nmax"], x["rmse"]) for x in c)
assert sys.argv[3] == text, (sys.argv[3], text)
assert b["neighbourhood"] == {"nmax": 16, "chosen": False}, b["neighbourhood"]
assert sys.argv[5] == "16" and sys.argv[6] == "nmax 16 (given)", sys.argv[5:]
assert a["model"] == b["model"] and a["candidates"] == b["candidates"], (a["model"], b["model"])
# the same subsample as the model choice: at nmax 16 the chosen model's RMSE there
assert c[0]["rmse"] == min(x["rmse"] for x in a["candidates"] if x["ok"]), (c[0], a["model"])
EOF

# ---- usage (exit 2) ----
expect 0 "" -- "$K" --help
expect 2 "missing required option --output" -- "$K" "$M"
expect 2 "a fixed model needs --nugget, --psill and --range together" -- "$K" "$M" -o "$tmp/out/x.tif" --nugget 1
expect 2 "--tr and --like exclude each other" -- "$K" "$M" -o "$tmp/out/x.tif" --tr 10 --like "$tmp/j.tif"
expect 2 "CSV input needs --x, --y, --z and --s_srs" -- "$K" "$M" -o "$tmp/out/x.tif" --x x
expect 2 "--te expects xmin ymin xmax ymax numbers" -- "$K" "$M" -o "$tmp/out/x.tif" --te 1 2 3
expect 2 "--et must be a finite number of source pixels >= 0 (0: exact per block)" -- "$K" "$DATA/jacksboro/dem_3arcsec.tif" -o "$tmp/out/x.tif" --et -0.5
expect 2 "--et expects a number, not 'nan'" -- "$K" "$DATA/jacksboro/dem_3arcsec.tif" -o "$tmp/out/x.tif" --et nan
expect 2 "--et expects a number, not 'inf'" -- "$K" "$DATA/jacksboro/dem_3arcsec.tif" -o "$tmp/out/x.tif" --et inf
expect 2 "--et expects a number, not 'fast'" -- "$K" "$DATA/jacksboro/dem_3arcsec.tif" -o "$tmp/out/x.tif" --et fast
# issue 15: a cell size given must be one (0 is no default), an inverted --te is a usage error
expect 2 "--tr must be positive" -- "$K" "$M" --x x --y y --z elev --s_srs EPSG:28992 --tr 0 -o "$tmp/out/x.tif"
expect 2 "--tr must be positive" -- "$K" "$M" --x x --y y --z elev --s_srs EPSG:28992 --tr -5 -o "$tmp/out/x.tif"
expect 2 "--te needs xmin < xmax and ymin < ymax" -- "$K" "$M" --x x --y y --z elev --s_srs EPSG:28992 --tr 40 --te 181000 330000 179000 334000 -o "$tmp/out/x.tif"
expect 2 "--te needs xmin < xmax and ymin < ymax" -- "$K" "$M" --x x --y y --z elev --s_srs EPSG:28992 --tr 40 --te 179000 334000 181000 330000 -o "$tmp/out/x.tif"

# ---- failures (exit 1, nothing written) ----
printf 'x,y,elev\n' >"$tmp/empty.csv"
expect 1 "has no points" -- "$K" "$tmp/empty.csv" --x x --y y --z elev --s_srs EPSG:28992 --tr 40 -o "$tmp/out/x.tif"
gdal_translate -q -scale 0 2000 -32768 -32768 -a_nodata -32768 "$DATA/jacksboro/dem_3arcsec.tif" "$tmp/allnd.tif"
expect 1 "holds only nodata" -- "$K" "$tmp/allnd.tif" -o "$tmp/out/x.tif"
expect 1 "no column 'height'" -- "$K" "$M" --x x --y y --z height --s_srs EPSG:28992 --tr 40 -o "$tmp/out/x.tif"
expect 1 "cannot understand the CRS 'EPSG:999999'" -- "$K" "$M" --x x --y y --z elev --s_srs EPSG:999999 --tr 40 -o "$tmp/out/x.tif"
expect 1 "cannot understand the CRS 'nowhere'" -- "$K" "$DATA/jacksboro/dem_3arcsec.tif" --t_srs nowhere -o "$tmp/out/x.tif"
expect 1 "does not overlap the input" -- "$K" "$M" --x x --y y --z elev --s_srs EPSG:28992 --tr 40 --te 0 0 4000 4000 -o "$tmp/out/x.tif"
{ head -3 "$M"; sed -n 3p "$M"; } >"$tmp/dup.csv"
expect 1 "duplicate points 1 and 2" -- "$K" "$tmp/dup.csv" --x x --y y --z elev --s_srs EPSG:28992 --tr 40 --model sph --nugget 0 --psill 1 --range 500 -o "$tmp/out/x.tif"
# six identical points: the zero extent named, not a CRS failure (issue 15)
{ head -1 "$M"; for i in 1 2 3 4 5 6; do sed -n 2p "$M"; done; } >"$tmp/six.csv"
expect 1 "its points are all at one place (duplicates)" -- "$K" "$tmp/six.csv" --x x --y y --z elev --s_srs EPSG:28992 --tr 40 -o "$tmp/out/x.tif"
# a missing or empty input: the cause, not "unknown GDAL error"
expect 1 "cannot open '$tmp/none.tif': no such file" -- "$K" "$tmp/none.tif" -o "$tmp/out/x.tif"
: >"$tmp/zero.tif"
expect 1 "cannot open '$tmp/zero.tif': empty file" -- "$K" "$tmp/zero.tif" -o "$tmp/out/x.tif"
printf 'not a raster\n' >"$tmp/junk.tif"
expect 1 "cannot open '$tmp/junk.tif'" -- "$K" "$tmp/junk.tif" -o "$tmp/out/x.tif"
gdal_translate -q -of AAIGrid "$DATA/jacksboro/dem_3arcsec.tif" "$tmp/nocrs.asc" && rm -f "$tmp/nocrs.prj"
expect 1 "has no CRS" -- "$K" "$tmp/nocrs.asc" -o "$tmp/out/x.tif"
# an output whose folder does not exist: found before any work, each output named
expect 1 "cannot write '/nonexistent/x.tif': the folder '/nonexistent' does not exist" -- "$K" "$M" --x x --y y --z elev --s_srs EPSG:28992 --tr 40 --model sph --nugget 0 --psill 1 --range 500 -o /nonexistent/x.tif
expect 1 "cannot write '$tmp/out/none/v.csv': the folder '$tmp/out/none' does not exist" -- "$K" "$M" --x x --y y --z elev --s_srs EPSG:28992 --tr 40 --model sph --nugget 0 --psill 1 --range 500 -o "$tmp/out/x.tif" --variogram "$tmp/out/none/v.csv"
# one output set: when the last of them, the summary, cannot be put in
# place, none of the layers, styles and CSVs appears either
rm -rf "$tmp/late" && mkdir -p "$tmp/late/krige.json"
"$K" "$M" --x x --y y --z elev --s_srs EPSG:28992 --tr 40 --model sph --nugget 0 --psill 1 --range 500 \
    -o "$tmp/late/x.tif" --std "$tmp/late/s.tif" --variogram "$tmp/late/v.csv" >/dev/null 2>"$tmp/stderr"
[ $? = 1 ] && grep -qF "cannot write '$tmp/late/krige.json': a directory is in the way" "$tmp/stderr" &&
    [ "$(ls -A "$tmp/late")" = krige.json ] && ok || bad "a failing summary left $(ls -A "$tmp/late") ($(cat "$tmp/stderr"))"

# ---- non-finite and out-of-range values (issue 15) ----
# a DEM with +Inf and -Inf cells: those cells are nodata (geo_raster_read),
# so the kriging is the one of the same DEM with nodata there: the same
# sample points (none infinite) and the same cells
gdal_translate -q -ot Float32 -a_nodata -32768 "$DATA/jacksboro/dem_3arcsec.tif" "$tmp/f32.tif"
mkdir -p "$tmp/nf"
if nonfinite_pair "$tmp/f32.tif" 200 150 "$tmp/nf"; then
    "$K" -q "$tmp/nf/inf.tif" -o "$tmp/nf/ki.tif" --std "$tmp/nf/kis.tif" --points "$tmp/nf/pi.csv" 2>"$tmp/err" && ok ||
        bad "a DEM with +-Inf: $(cat "$tmp/err")"
    "$K" -q "$tmp/nf/ref.tif" -o "$tmp/nf/kr.tif" --std "$tmp/nf/krs.tif" --points "$tmp/nf/pr.csv" 2>"$tmp/err" && ok ||
        bad "the DEM with nodata for +-Inf: $(cat "$tmp/err")"
    cmp -s "$tmp/nf/pi.csv" "$tmp/nf/pr.csv" && ! grep -qi inf "$tmp/nf/pi.csv" && ok || bad "points of a DEM with +-Inf"
    for f in ki:kr kis:krs; do
        [ "$(gdalinfo -checksum "$tmp/nf/${f%:*}.tif" | grep Checksum)" = \
            "$(gdalinfo -checksum "$tmp/nf/${f#*:}.tif" | grep Checksum)" ] && ok || bad "$f: +-Inf cells are not nodata"
    done
else
    bad "cannot write the DEM with +-Inf"
fi
# a value that does not fit the Float32 outputs: refused, its line named
awk -F, -v OFS=, 'NR == 5 { $3 = "1e308" } { print }' "$M" >"$tmp/big.csv"
expect 1 "$tmp/big.csv:5: column 'elev': 1e+308 does not fit the Float32 output" -- "$K" "$tmp/big.csv" --x x --y y --z elev \
    --s_srs EPSG:28992 --tr 40 -o "$tmp/out/x.tif"
# a standard deviation beyond Float32 (a sill of 1e78): refused, the cell named
expect 1 "the kriging standard deviation at column 0, row 0 is beyond Float32's range" -- "$K" "$M" --x x --y y --z elev \
    --s_srs EPSG:28992 --tr 40 --model sph --nugget 0 --psill 1e78 --range 500 -o "$tmp/out/x.tif" --std "$tmp/out/s.tif"

summary
