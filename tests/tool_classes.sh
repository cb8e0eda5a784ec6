#!/bin/sh
# The standard class tables of data/classes/ (nlcd.csv, worldcover.csv,
# corine.csv, soils_usda.csv): every code of each official legend present
# exactly once (the lists are written out below from the legends), every
# column in its range and every source key explained in the README, and
# every table loaded by the real tools: trv-terrain and trv-speed on a small
# synthetic raster holding each legend's codes, whose GO/NOGO must be NOGO
# by land use (3) exactly on the table's nogo=yes classes. Ends with
# "N passed, N failed, N skipped".
set -u
BIN=${TRV_BIN:-bin}
DATA=${TRV_DATADIR:-data}
C=$DATA/classes
tmp=$(mktemp -d /tmp/trv-classes-test-XXXXXX)
trap 'rm -rf "$tmp"' EXIT
. "$(dirname "$0")/lib.sh"

# ---- the official legends ----
# NLCD 2001-2021 (MRLC legend; 51, 72-74 are Alaska only)
NLCD="11 12 21 22 23 24 31 41 42 43 51 52 71 72 73 74 81 82 90 95"
# ESA WorldCover 2020 (v100) and 2021 (v200): the same 11 codes
WORLDCOVER="10 20 30 40 50 60 70 80 90 95 100"
# CORINE Land Cover level 3 (EEA legend), in grid-code order 1..44
CLC="111 112 121 122 123 124 131 132 133 141 142 211 212 213 221 222 223 231 241 242 243 244
311 312 313 321 322 323 324 331 332 333 334 335 411 412 421 422 423 511 512 521 522 523"
# the 12 USDA texture classes, in the STATSGO / CONUS-SOIL order (codes 1..12)
USDA="sand;loamy sand;sandy loam;silt loam;silt;loam;sandy clay loam;silty clay loam;clay loam;sandy clay;silty clay;clay"

if ! command -v python3 >/dev/null 2>&1; then
    skip "python3 is needed to read the tables as CSV (names hold quoted commas)"
    summary
    exit
fi

# check.py TABLE KIND EXPECTED: one line per check, "ok" or "bad MESSAGE"
cat >"$tmp/check.py" <<'EOF'
import csv, math, re, sys
path, kind, expected = sys.argv[1], sys.argv[2], sys.argv[3]
readme = open(sys.argv[4]).read()
rows = list(csv.DictReader(open(path, newline="")))
def res(cond, msg):
    print("ok" if cond else "bad %s: %s" % (path, msg))
def num(r, col):
    try:
        return float(r[col])
    except (KeyError, ValueError):
        return None
codes = [r["code"] for r in rows]
if kind == "usda":
    names = [r["name"] for r in rows]
    want = expected.split(";")
    res(names == want, "names %s, want %s" % (names, want))
    res(codes == [str(i) for i in range(1, 13)], "codes %s, want 1..12" % codes)
elif kind == "corine":
    want = expected.split()
    got = [r["clc_code"] for r in rows]
    res(sorted(got) == sorted(want) and len(set(got)) == len(got), "CLC codes %s" % got)
    res(codes == [str(i) for i in range(1, 45)], "grid codes %s, want 1..44" % codes)
    res(got == want, "grid code i is not the i-th CLC code of the legend")
else:
    want = expected.split()
    res(sorted(codes, key=int) == sorted(want, key=int) and len(set(codes)) == len(codes),
        "codes %s, want each of %s once" % (codes, want))
# every source key is explained in the README (a line "- `key`" or "- `a`, `key` ...")
keys = {kv.split(":", 1)[1] for r in rows for kv in r["source"].split(";") if kv}
for k in sorted(keys):
    res(re.search(r"^- (`[^`]+`, )*`%s`" % re.escape(k), readme, re.M), "source key '%s' not explained in the README" % k)
for r in rows:
    c = r["code"]
    res(re.fullmatch(r"#[0-9a-f]{6}", r["color"]), "code %s colour '%s'" % (c, r["color"]))
    if kind == "usda":
        n, kc, kphi, ci = num(r, "n"), num(r, "kc"), num(r, "kphi"), num(r, "ci_kPa")
        cc, phi, K = num(r, "c_kPa"), num(r, "phi_deg"), num(r, "K_m")
        res(None not in (n, kc, kphi, ci, cc, phi, K), "code %s: an empty number" % c)
        if None in (n, kc, kphi, ci, cc, phi, K):
            continue
        res(0 < n <= 3 and kc >= 0 and kphi >= 0 and kc + kphi > 0 and ci >= 0,
            "code %s Bekker/CI out of range" % c)
        res(cc >= 0 and 0 <= phi < 90 and 0 < K <= 0.1, "code %s c, phi, K out of range" % c)
        continue
    res(r["nogo"] in ("yes", "no"), "code %s nogo '%s'" % (c, r["nogo"]))
    types = [t for t in r["nogo_types"].split(";") if t]
    res(set(types) <= {"wheeled", "tracked"}, "code %s nogo_types '%s'" % (c, r["nogo_types"]))
    # the pipeline's nogo (today's, for the paper's wheeled UGV) = wheeled in nogo_types
    res((r["nogo"] == "yes") == ("wheeled" in types), "code %s nogo '%s' but nogo_types '%s'" % (c, r["nogo"], r["nogo_types"]))
    letter, gd, w = r["roughness_iso8608"], num(r, "roughness_gd0_m3"), num(r, "roughness_w")
    if letter or gd is not None:
        res(letter in list("ABCDEFGH"), "code %s roughness class '%s'" % (c, letter))
        # ISO 8608: class A below 32e-6 m^3 at n0 = 0.1 cycles/m, each next class 4 times wider
        k = 0 if gd is None or gd <= 0 else min(7, max(0, math.floor(math.log(gd / 32e-6, 4)) + 1))
        res(gd is not None and gd > 0 and "ABCDEFGH"[k] == letter,
            "code %s: Gd(n0) %s is not in ISO 8608 class %s" % (c, r["roughness_gd0_m3"], letter))
        res(w is not None and 1 <= w <= 4, "code %s waviness '%s'" % (c, r["roughness_w"]))
    else:
        res("wheeled" in types and "tracked" in types, "code %s has no roughness but is not NOGO for both" % c)
    v = num(r, "vmax_kmh")
    res(r["vmax_kmh"] == "" or (v is not None and 0 < v <= 200), "code %s vmax_kmh '%s'" % (c, r["vmax_kmh"]))
    s = num(r, "stem_spacing_m")
    res(r["stem_spacing_m"] == "" or (s is not None and 0.5 <= s <= 100), "code %s stem_spacing_m '%s'" % (c, r["stem_spacing_m"]))
    if re.search("forest|tree cover", r["name"], re.I):
        res(s is not None, "forest code %s has no stem spacing" % c)
    vis = num(r, "visibility_m")
    res(vis is not None and vis > 0, "code %s visibility_m '%s'" % (c, r["visibility_m"]))
    veg = num(r, "veg_resistance")
    res(veg is not None and 0 <= veg < 1, "code %s veg_resistance '%s'" % (c, r["veg_resistance"]))
# the measured PSDs the README cites (Wong, ch. 7: S = Csp n^-N) give these Gd(0.1)
psd = {"wong-pasture": 3.0e-4 * 10 ** 1.6, "wong-ploughed": 6.5e-4 * 10 ** 1.6,
       "wong-gravel": 4.4e-6 * 10 ** 2.1, "wong-highway": 4.8e-7 * 10 ** 2.1}
for r in rows:
    for kv in r["source"].split(";"):
        if kv.startswith("rough:wong-"):
            gd = num(r, "roughness_gd0_m3")
            ref = psd[kv.split(":")[1]]
            res(gd is not None and abs(gd / ref - 1) < 1e-3, "code %s Gd %s, the PSD gives %.4g" % (r["code"], gd, ref))
EOF

# run_check TABLE KIND EXPECTED: its lines into ok/bad
run_check() {
    python3 "$tmp/check.py" "$1" "$2" "$3" "$C/README.md" >"$tmp/res" 2>&1 || { bad "check.py $1: $(cat "$tmp/res")"; return; }
    while read -r word rest; do
        if [ "$word" = ok ]; then ok; else bad "$rest"; fi
    done <"$tmp/res"
}
run_check "$C/nlcd.csv" codes "$NLCD"
run_check "$C/worldcover.csv" codes "$WORLDCOVER"
run_check "$C/corine.csv" corine "$CLC"
run_check "$C/soils_usda.csv" usda "$USDA"

# the checks fail on a broken table: a code dropped, one repeated, a
# class letter that disagrees with its Gd(n0), an unknown source key
count_bad() { python3 "$tmp/check.py" "$1" "$2" "$3" "$C/README.md" | grep -c '^bad'; }
grep -v '^95,' "$C/nlcd.csv" >"$tmp/drop.csv"
[ "$(count_bad "$tmp/drop.csv" codes "$NLCD")" -ge 1 ] && ok || bad "a dropped NLCD code is not caught"
{ cat "$C/worldcover.csv"; grep '^30,' "$C/worldcover.csv"; } >"$tmp/twice.csv"
[ "$(count_bad "$tmp/twice.csv" codes "$WORLDCOVER")" -ge 1 ] && ok || bad "a repeated WorldCover code is not caught"
sed 's/^\(71,[^,]*,no,#[0-9a-f]*,\),F,/\1,C,/' "$C/nlcd.csv" >"$tmp/letter.csv"
cmp -s "$tmp/letter.csv" "$C/nlcd.csv" && bad "test setup: the class letter of code 71 was not changed"
[ "$(count_bad "$tmp/letter.csv" codes "$NLCD")" -ge 1 ] && ok || bad "a roughness class that disagrees with Gd(n0) is not caught"
sed 's/rough:wong-pasture/rough:nowhere/' "$C/nlcd.csv" >"$tmp/key.csv"
[ "$(count_bad "$tmp/key.csv" codes "$NLCD")" -ge 1 ] && ok || bad "an unexplained source key is not caught"

# ---- the tables in the real tools ----
# grid WIDTH HEIGHT "v v v ..." FILE.tif: a Byte (or Float32 with -f) GeoTIFF
# in UTM 16N, 30 m cells, through an ASCII grid and gdal_translate
grid() {
    ot=Byte
    if [ "$1" = -f ]; then ot=Float32; shift; fi
    {
        printf 'ncols %s\nnrows %s\nxllcorner 500000\nyllcorner 4000000\ncellsize 30\nNODATA_value 0\n' "$1" "$2"
        echo "$3" | tr ' ' '\n' | awk -v w="$1" '{ printf "%s%s", $0, (NR % w ? " " : "\n") }'
    } >"$4.asc"
    gdal_translate -q -a_srs EPSG:32616 -ot $ot "$4.asc" "$4"
}
if ! command -v gdal_translate >/dev/null 2>&1; then
    skip_pkg gdal-bin "gdal-bin is needed to build the synthetic rasters"
    summary
    exit
fi
# tools TABLE NAME CODES WIDTH HEIGHT: a land-use raster holding CODES (each
# once, row-major), a flat DEM and soil 8 (silty clay loam, CI 1070.5 kPa:
# GO for the UGV) everywhere; trv-terrain, trv-speed and trv-cost read the
# tables; GO/NOGO must be 3 (land use) on the nogo=yes codes and 0 elsewhere
tools() {
    table=$1 name=$2 codes=$3 w=$4 h=$5 d=$tmp/$2
    mkdir -p "$d"
    n=$(echo "$codes" | wc -w)
    ones=$(yes 100 | head -n "$n" | tr '\n' ' ')
    eights=$(yes 8 | head -n "$n" | tr '\n' ' ')
    grid -f "$w" "$h" "$ones" "$d/dem.tif" && grid "$w" "$h" "$codes" "$d/lu.tif" && grid "$w" "$h" "$eights" "$d/soil.tif" ||
        { bad "$name: cannot build the rasters"; return; }
    if "$BIN/trv-terrain" -q --dem "$d/dem.tif" --soil "$d/soil.tif" --landuse "$d/lu.tif" \
        --soil-classes "$C/soils_usda.csv" --landuse-classes "$table" -o "$d/t" 2>"$tmp/err"; then ok; else
        bad "$name: trv-terrain: $(cat "$tmp/err")"; return; fi
    if "$BIN/trv-speed" -q --terrain "$d/t" --vehicle "$DATA/vehicles/ugv_hua2022.ini" --soils "$C/soils_usda.csv" \
        --landuse-classes "$table" 2>"$tmp/err"; then ok; else bad "$name: trv-speed: $(cat "$tmp/err")"; return; fi
    "$BIN/trv-cost" -q --terrain "$d/t" --rules "$DATA/fuzzy/mobility.fcl" --soils "$C/soils_usda.csv" 2>"$tmp/err" &&
        ok || bad "$name: trv-cost: $(cat "$tmp/err")"
    # the expected reason per cell, from the table's nogo column
    want=$(python3 -c '
import csv, sys
nogo = {r["code"]: r["nogo"] for r in csv.DictReader(open(sys.argv[1], newline=""))}
print(" ".join("3" if nogo[c] == "yes" else "0" for c in sys.argv[2].split()))' "$table" "$codes")
    got=$(gdal_translate -q -of XYZ "$d/t/gonogo.tif" /vsistdout/ | awk '{ printf "%s%s", (NR > 1 ? " " : ""), $3 }')
    [ "$got" = "$want" ] && ok || bad "$name: gonogo.tif '$got', want '$want'"
    nyes=$(echo "$want" | tr ' ' '\n' | grep -c '^3$')
    [ "$nyes" -ge 2 ] && ok || bad "$name: only $nyes NOGO classes: the check would not see a swap"
    # the legend of landuse.tif names the classes as the table does
    first=$(python3 -c 'import csv, sys; r = next(csv.DictReader(open(sys.argv[1], newline=""))); print(r["code"] + ": " + r["name"])' "$table")
    gdalinfo "$d/t/landuse.tif" | grep -qF "$first" && ok || bad "$name: landuse.tif does not name '$first'"
}
tools "$C/nlcd.csv" nlcd "$NLCD" 5 4
# 11 codes and 1 cell more (10 again) fill 4 x 3
tools "$C/worldcover.csv" worldcover "$WORLDCOVER 10" 4 3
tools "$C/corine.csv" corine "$(seq 1 44 | tr '\n' ' ')" 11 4

summary
