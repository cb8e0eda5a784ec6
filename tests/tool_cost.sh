#!/bin/sh
# trv-cost end to end: --eval against hand-worked cells, the map stage on a
# synthetic terrain directory (cells equal --eval, NOGO and no data = cost 1
# class 0, styling seen by gdalinfo, byte-identical reruns, the same cells
# with one thread), every failure (clear message, exit 1, nothing written),
# the FCL reader's errors through the command line, Jacksboro at 30 m
# through trv-terrain and trv-speed, and the cross-check against fuzzylite
# (Debian package fuzzylite, which make test installs).
# Ends with "N passed, N failed, N skipped".
set -u
BIN=${TRV_BIN:-bin}
DATA=${TRV_DATADIR:-data}
C=$BIN/trv-cost
RULES=$DATA/fuzzy/mobility.fcl
LINEAR=$DATA/fuzzy/mobility_linear.fcl
tmp=$(mktemp -d /tmp/trv-cost-test-XXXXXX)
trap 'rm -rf "$tmp"' EXIT
. "$(dirname "$0")/lib.sh"

# expect STATUS MESSAGE-FRAGMENT PATH-THAT-MUST-NOT-EXIST -- command...
expect() {
    want=$1 msg=$2 out=$3
    shift 4
    "$@" >"$tmp/stdout" 2>"$tmp/stderr"
    got=$?
    if [ "$got" != "$want" ]; then bad "$* -> exit $got, want $want ($(cat "$tmp/stderr"))"; return; fi
    if [ -n "$msg" ] && ! grep -qF -- "$msg" "$tmp/stderr"; then bad "$* -> stderr lacks '$msg': $(cat "$tmp/stderr")"; return; fi
    if [ -n "$out" ] && [ -e "$out" ]; then bad "$* left '$out' behind"; return; fi
    ok
}

# ---- usage ----
expect 0 "" "" -- "$C" --help
"$C" --help | grep -q -- '--defuzzifier centroid|mom|som' && ok || bad "--help does not list --defuzzifier"
expect 0 "" "" -- "$C" --version
expect 2 "give --terrain DIR or --rules FCL --eval CSV" "" -- "$C"
expect 2 "--terrain and --eval exclude each other" "" -- "$C" --terrain x --eval y --rules z
expect 2 "--eval needs --rules FCL" "" -- "$C" --eval x.csv
expect 2 "-o goes with --eval" "" -- "$C" --terrain x -o y.csv
expect 2 "--defuzzifier must be one of centroid|mom|som" "" -- "$C" --terrain x --defuzzifier cog
expect 2 "unknown option '--frobnicate'" "" -- "$C" --frobnicate

# ---- --eval: hand-worked cells (tests/test_fuzzy.c shows the arithmetic) ----
printf 'slope,elevation,ci,speed\n12,450,600,18\n6,100,300,25\n3,100,800,35\n6.5,100,300,10\n' >"$tmp/hand.csv"
"$C" --rules "$LINEAR" --eval "$tmp/hand.csv" >"$tmp/lin.csv" 2>"$tmp/stderr" && ok || bad "--eval: $(cat "$tmp/stderr")"
cat >"$tmp/lin.want" <<'EOF'
slope,elevation,ci,speed,mobility,cost,class
12,450,600,18,0.500000000,0.500000000,2
6,100,300,25,0.559523810,0.440476190,2
3,100,800,35,0.833333333,0.166666667,3
6.5,100,300,10,0.474528302,0.525471698,2
EOF
cmp -s "$tmp/lin.csv" "$tmp/lin.want" && ok || bad "--eval linear: $(diff "$tmp/lin.want" "$tmp/lin.csv")"
"$C" --rules "$RULES" --eval "$tmp/hand.csv" -o "$tmp/pow.csv" >"$tmp/stdout" 2>&1 && ok || bad "--eval -o: $(cat "$tmp/stdout")"
[ ! -s "$tmp/stdout" ] && ok || bad "--eval -o printed something"
# 6.5,100,300,10 with k = 2: 0.452521 by hand; 3,100,800,35: 7/8
grep -qx '6.5,100,300,10,0.452520663,0.547479337,1' "$tmp/pow.csv" && ok || bad "k = 2 hand cell: $(cat "$tmp/pow.csv")"
grep -qx '3,100,800,35,0.875000000,0.125000000,3' "$tmp/pow.csv" && ok || bad "k = 2 safe cell: $(cat "$tmp/pow.csv")"
"$C" --rules "$LINEAR" --eval "$tmp/hand.csv" --defuzzifier mom | grep -qx '6,100,300,25,0.625000000,0.375000000,2' && ok ||
    bad "--defuzzifier mom"
"$C" --rules "$LINEAR" --eval "$tmp/hand.csv" --defuzzifier som | grep -qx '6,100,300,25,0.250000000,0.750000000,2' && ok ||
    bad "--defuzzifier som"
printf 'slope,elevation,ci\n1,2,3\n' >"$tmp/nospeed.csv"
expect 1 "$tmp/nospeed.csv: no column 'speed'" "$tmp/o1.csv" -- "$C" --rules "$RULES" --eval "$tmp/nospeed.csv" -o "$tmp/o1.csv"
printf 'slope,elevation,ci,speed\n1,2,3,4\n1,2,x,4\n' >"$tmp/badnum.csv"
expect 1 "$tmp/badnum.csv:3: column 'ci': 'x' is not a number" "$tmp/o2.csv" -- "$C" --rules "$RULES" --eval "$tmp/badnum.csv" -o "$tmp/o2.csv"
expect 1 "cannot open '$tmp/none.fcl'" "$tmp/o3.csv" -- "$C" --rules "$tmp/none.fcl" --eval "$tmp/hand.csv" -o "$tmp/o3.csv"

# ---- the FCL reader's errors, through the command line ----
lineof() { grep -nF -- "$1" "$RULES" | head -1 | cut -d: -f1; }
n=$(lineof '    RULE 40 ')
head -n "$n" "$RULES" >"$tmp/truncated.fcl"
expect 1 "$tmp/truncated.fcl:$n: unexpected end of file in RULEBLOCK" "$tmp/e1.csv" -- \
    "$C" --rules "$tmp/truncated.fcl" --eval "$tmp/hand.csv" -o "$tmp/e1.csv"
sed 's/ci is H and speed is H then mobility is H;/ci is VH and speed is H then mobility is H;/' "$RULES" >"$tmp/term.fcl"
expect 1 "$tmp/term.fcl:$(lineof 'RULE 1 :'): rule 1: unknown term 'VH' of 'ci'" "$tmp/e2.csv" -- \
    "$C" --rules "$tmp/term.fcl" --eval "$tmp/hand.csv" -o "$tmp/e2.csv"
sed 's/RULE 5 : if slope is/RULE 5 : if gradient is/' "$RULES" >"$tmp/var.fcl"
expect 1 "$tmp/var.fcl:$(lineof 'RULE 5 :'): rule 5: unknown variable 'gradient'" "$tmp/e3.csv" -- \
    "$C" --rules "$tmp/var.fcl" --eval "$tmp/hand.csv" -o "$tmp/e3.csv"
sed 's/RULE 7 :/RULE 6 :/' "$RULES" >"$tmp/dup.fcl"
expect 1 "$tmp/dup.fcl:$(lineof 'RULE 7 :'): duplicate rule number 6 (first on line $(lineof 'RULE 6 :'))" "$tmp/e4.csv" -- \
    "$C" --rules "$tmp/dup.fcl" --eval "$tmp/hand.csv" -o "$tmp/e4.csv"
sed 's/RANGE := (0 \.\. 1200);/RANGE := (1200 .. 0);/' "$RULES" >"$tmp/range.fcl"
expect 1 "$tmp/range.fcl:$(lineof 'RANGE := (0 .. 1200);'): RANGE (1200 .. 0) of 'ci' is inverted" "$tmp/e5.csv" -- \
    "$C" --rules "$tmp/range.fcl" --eval "$tmp/hand.csv" -o "$tmp/e5.csv"

# ---- the map stage on a synthetic terrain directory (5 x 4 cells of 10 m) ----
# cell 0: DEM nodata; 5: NOGO (gonogo 2); 7: soil nodata; 18: NOGO (gonogo 1);
# 17: the hand-worked cell 6.5 deg, 100 m, sandy loam (223.4 kPa: ci L = 1), 10 km/h
grid() { # name type nodata values...
    name=$1 type=$2 nd=$3
    shift 3
    {
        printf 'ncols 5\nnrows 4\nxllcorner 500000\nyllcorner 3999960\ncellsize 10\n'
        [ "$nd" = none ] || printf 'NODATA_value %s\n' "$nd"
        echo "$@" | tr ' ' '\n' | paste -d' ' - - - - -
    } >"$tmp/$name.asc"
    gdal_translate -q -a_srs EPSG:32616 -ot "$type" "$tmp/$name.asc" "$T/$name.tif"
}
T=$tmp/terrain
mkdir -p "$T"
DEMV="-9999 150 250 350 450 550 650 750 120 220 320 420 100 100 100 450 250 100 700 300"
SLOPEV="3 6 7 9 12 14 20 2 4.5 10.5 16 6.5 3 6 12 12 7 6.5 25 0"
SOILV="1 2 3 4 1 2 3 0 4 3 2 1 2 1 1 4 1 1 3 2"
SPEEDV="10 12 18 25 30 0 14 33 22 11 19 27 35 25 10 18 12 10 5 40"
GOV="0 0 0 0 0 2 0 0 0 0 0 0 0 0 0 0 0 0 1 0"
grid dem Float32 -9999 $DEMV
grid slope Float32 -9999 $SLOPEV
grid soil Byte 0 $SOILV
grid speed Float32 -9999 $SPEEDV
grid gonogo Byte none $GOV
cp -R "$T" "$tmp/pristine"
if "$C" -q --terrain "$T" >"$tmp/stdout" 2>"$tmp/stderr"; then ok; else bad "map run: $(cat "$tmp/stderr")"; fi
[ ! -s "$tmp/stdout" ] && [ ! -s "$tmp/stderr" ] && ok || bad "-q printed something"
[ -f "$T/cost.tif" ] && [ -f "$T/class.tif" ] && ok || bad "cost.tif or class.tif missing"
ls -A "$T" | grep -q '\.tmp' && bad "temporary files left in the output" || ok
# every cell against --eval on the same inputs (CI through data/classes/soils.csv)
echo "$DEMV" | tr ' ' '\n' >"$tmp/c_dem"
echo "$SLOPEV" | tr ' ' '\n' >"$tmp/c_slope"
echo "$SOILV" | tr ' ' '\n' | awk -F, 'NR == FNR { if (FNR > 1) ci[$1] = $6; next } { print ($1 in ci) ? ci[$1] : 0 }' \
    "$DATA/classes/soils.csv" - >"$tmp/c_ci"
echo "$SPEEDV" | tr ' ' '\n' >"$tmp/c_speed"
{ echo "slope,elevation,ci,speed"; paste -d, "$tmp/c_slope" "$tmp/c_dem" "$tmp/c_ci" "$tmp/c_speed"; } >"$tmp/cells.csv"
"$C" --rules "$RULES" --eval "$tmp/cells.csv" -o "$tmp/cells_out.csv" && ok || bad "--eval of the cells"
gdal_translate -q -of XYZ -co DECIMAL_PRECISION=9 "$T/cost.tif" "$tmp/cost.xyz"
gdal_translate -q -of XYZ "$T/class.tif" "$tmp/class.xyz"
echo "$GOV" | tr ' ' '\n' >"$tmp/c_go"
echo "$SOILV" | tr ' ' '\n' >"$tmp/c_soil"
paste -d' ' "$tmp/cost.xyz" "$tmp/class.xyz" "$tmp/c_go" "$tmp/c_soil" "$tmp/c_dem" >"$tmp/joined"
tail -n +2 "$tmp/cells_out.csv" | tr ',' ' ' | paste -d' ' "$tmp/joined" - | awk '
    { cost = $3; cls = $6; go = $7; soil = $8; dem = $9; ecost = $15; ecls = $16
      if (go != 0 || soil == 0 || dem == -9999) { if (cost != 1 || cls != 0) { print "cell " NR ": not cost 1 class 0"; bad = 1 } ; next }
      d = cost - ecost; if (d < 0) d = -d
      if (d > 1e-6 || cls != ecls) { print "cell " NR ": map " cost " " cls ", eval " ecost " " ecls; bad = 1 } }
    END { exit bad }' && ok || bad "map cells differ from --eval"
# the hand-worked cell (row 4, column 3): cost 1 - 0.452521, class 1
v=$(gdallocationinfo -valonly "$T/cost.tif" 2 3)
awk -v v="$v" 'BEGIN { d = v - 0.547479337; exit !(d < 1e-7 && d > -1e-7) }' && ok || bad "hand cell cost $v"
[ "$(gdallocationinfo -valonly "$T/class.tif" 2 3)" = 1 ] && ok || bad "hand cell class"
info=$(gdalinfo "$T/class.tif")
echo "$info" | grep -q 'Type=Byte, ColorInterp=Palette' && ok || bad "class.tif is not a Byte palette raster"
echo "$info" | grep -q 'NoData' && bad "class.tif declares nodata (0 is NOGO, not nodata)" || ok
echo "$info" | grep -q '0: 64,64,64,255' && ok || bad "NOGO has no visible colour"
for c in '0: NOGO' '1: high-risk' '2: low-risk' '3: safe'; do
    echo "$info" | grep -q "$c" && ok || bad "class.tif lacks category '$c'"
done
echo "$info" | grep -q 'TRV_TOOL=trv-cost' && ok || bad "class.tif lacks TRV_TOOL"
cinfo=$(gdalinfo "$T/cost.tif")
echo "$cinfo" | grep -q 'Type=Float32' && ok || bad "cost.tif is not Float32"
echo "$cinfo" | grep -q 'NoData' && bad "cost.tif declares nodata" || ok
echo "$cinfo" | grep -q 'TRV_DEFUZZIFIER=centroid' && ok || bad "cost.tif lacks TRV_DEFUZZIFIER"
echo "$cinfo" | grep -q 'STATISTICS_MAXIMUM=1' && ok || bad "cost.tif maximum is not 1"
# the report: grid, shares of the classes, time
"$C" --terrain "$T" >"$tmp/stdout" 2>"$tmp/stderr"
grep -q 'grid: 5 x 4 cells of 10 m, EPSG:32616; 18 cells with data' "$tmp/stdout" && ok || bad "report: $(cat "$tmp/stdout")"
grep -q 'classes (share of the cells with data): NOGO 11.11 %, high-risk' "$tmp/stdout" && ok || bad "report shares: $(cat "$tmp/stdout")"
grep -q 'cost: 0\.\.\.10' "$tmp/stderr" && ok || bad "no progress on stderr"
# same command, same bytes; one thread, the same cells
"$C" --terrain "$T" -q
cp "$T/cost.tif" "$tmp/cost1.tif"
cp "$T/class.tif" "$tmp/class1.tif"
"$C" --terrain "$T" -q
cmp -s "$T/cost.tif" "$tmp/cost1.tif" && cmp -s "$T/class.tif" "$tmp/class1.tif" && ok || bad "two identical runs differ"
"$C" --terrain "$T" -q --threads 1
[ "$(gdalinfo -checksum "$T/cost.tif" | grep Checksum)" = "$(gdalinfo -checksum "$tmp/cost1.tif" | grep Checksum)" ] && ok ||
    bad "--threads 1 gives other cells"
gdal_translate -q -of XYZ -co DECIMAL_PRECISION=9 "$T/cost.tif" "$tmp/cost_t1.xyz"
cmp -s "$tmp/cost.xyz" "$tmp/cost_t1.xyz" && ok || bad "--threads 1 gives other cost values"

# ---- map failures: message, exit 1, no cost.tif written ----
fresh() { rm -rf "$tmp/f" && cp -R "$tmp/pristine" "$tmp/f"; }
fresh && rm "$tmp/f/gonogo.tif"
expect 1 "cannot open '$tmp/f/gonogo.tif'" "$tmp/f/cost.tif" -- "$C" --terrain "$tmp/f"
fresh && gdal_translate -q -a_ullr 500010 4000000 500060 3999960 "$tmp/pristine/speed.tif" "$tmp/f/speed.tif"
expect 1 "'$tmp/f/speed.tif' does not match '$tmp/f/dem.tif': origin" "$tmp/f/cost.tif" -- "$C" --terrain "$tmp/f"
fresh && gdal_translate -q -tr 5 5 "$tmp/pristine/slope.tif" "$tmp/f/slope.tif"
expect 1 "'$tmp/f/slope.tif' does not match '$tmp/f/dem.tif': cell size" "$tmp/f/cost.tif" -- "$C" --terrain "$tmp/f"
fresh && gdal_translate -q -a_srs EPSG:32617 "$tmp/pristine/soil.tif" "$tmp/f/soil.tif"
expect 1 "'$tmp/f/soil.tif' does not match '$tmp/f/dem.tif': CRS" "$tmp/f/cost.tif" -- "$C" --terrain "$tmp/f"
fresh && printf 'code,name,ci_kPa\n1,a,200\n2,b,700\n3,c,1000\n' >"$tmp/soils3.csv"
expect 1 "'$tmp/f/soil.tif': soil class 4 is not in the soil table '$tmp/soils3.csv'" "$tmp/f/cost.tif" -- \
    "$C" --terrain "$tmp/f" --soils "$tmp/soils3.csv"
printf 'code,name\n1,a\n' >"$tmp/soils_noci.csv"
expect 1 "$tmp/soils_noci.csv: no column 'ci_kPa'" "$tmp/f/cost.tif" -- "$C" --terrain "$tmp/f" --soils "$tmp/soils_noci.csv"
sed 's/\bspeed\b/roughness/g' "$RULES" >"$tmp/rough.fcl"
expect 1 "input 'roughness' is not a terrain layer" "$tmp/f/cost.tif" -- "$C" --terrain "$tmp/f" --rules "$tmp/rough.fcl"
printf 'not a raster\n' >"$tmp/f/dem.tif"
expect 1 "cannot open '$tmp/f/dem.tif'" "$tmp/f/cost.tif" -- "$C" --terrain "$tmp/f"
expect 1 "cannot open '$tmp/nodir/dem.tif'" "" -- "$C" --terrain "$tmp/nodir"
# a failing run keeps what was there
fresh && echo old >"$tmp/f/cost.tif" && rm "$tmp/f/speed.tif"
expect 1 "speed.tif" "" -- "$C" --terrain "$tmp/f"
[ "$(cat "$tmp/f/cost.tif")" = old ] && [ ! -e "$tmp/f/class.tif" ] && ok || bad "a failed run changed the directory"
# an unwritable directory: nothing half-written. Root writes whatever the
# mode says: tests/lib.sh's readonly_run makes the directory unwritable for
# root too (a read-only bind mount), so the case runs either way.
fresh
if can_make_readonly "$tmp/f"; then
    expect 1 "cannot create" "$tmp/f/cost.tif" -- readonly_run "$tmp/f" "$C" --terrain "$tmp/f"
    [ -z "$(ls -A "$tmp/f" | grep -v -x -e dem.tif -e slope.tif -e soil.tif -e speed.tif -e gonogo.tif)" ] && ok ||
        bad "the unwritable run left files: $(ls -A "$tmp/f")"
else
    skip "cannot make a directory unwritable here (root without a private mount namespace): the unwritable-output case"
fi

# ---- Jacksboro at 30 m: trv-terrain, trv-speed, trv-cost ----
if [ -x "$BIN/trv-speed" ] && [ -x "$BIN/trv-terrain" ]; then
    J=$DATA/jacksboro
    gdalwarp -q -t_srs EPSG:32616 -tr 30 30 -tap -r bilinear -ot Float32 -dstnodata -32768 "$J/dem_3arcsec.tif" "$tmp/dem30.tif" &&
        "$BIN/trv-terrain" -q --dem "$tmp/dem30.tif" --soil "$J/soil_7p5arcsec.tif" --landuse "$J/landuse_30m_utm16n.tif" \
            --soil-classes "$DATA/classes/soils.csv" --landuse-classes "$DATA/classes/landuse.csv" -o "$tmp/j" &&
        "$BIN/trv-speed" -q --terrain "$tmp/j" --vehicle "$DATA/vehicles/ugv_hua2022.ini" \
            --soils "$DATA/classes/soils.csv" --landuse-classes "$DATA/classes/landuse.csv" 2>"$tmp/stderr" ||
        bad "Jacksboro terrain and speed: $(cat "$tmp/stderr")"
    if "$C" --terrain "$tmp/j" >"$tmp/stdout" 2>"$tmp/stderr"; then ok; else bad "Jacksboro: $(cat "$tmp/stderr")"; fi
    # the shares add up to 100 %, every class is present, cost is in [0, 1]
    sed -n 's/^classes (share of the cells with data)://p' "$tmp/stdout" | tr ',' '\n' |
        awk '{ s += $(NF - 1); if ($(NF - 1) <= 0) zero = 1 } END { exit !(s > 99.98 && s < 100.02 && !zero) }' && ok ||
        bad "Jacksboro shares: $(cat "$tmp/stdout")"
    gdalinfo -stats "$tmp/j/cost.tif" | grep -q 'Minimum=0\.[0-9]*, Maximum=1\.000' && ok || bad "Jacksboro cost range"
    [ "$(gdalinfo "$tmp/j/class.tif" | grep -E '^(Size is|Origin|Pixel Size)')" = \
        "$(gdalinfo "$tmp/j/dem.tif" | grep -E '^(Size is|Origin|Pixel Size)')" ] && ok || bad "Jacksboro class.tif off the DEM grid"
else # make test builds every tool: a missing one is a failure, not a skip
    bad "Jacksboro run: $BIN/trv-speed or $BIN/trv-terrain not built"
fi

# ---- the cross-check against fuzzylite ----
# 10 000 tuples, seeded, uniform over every input's RANGE in
# mobility_linear.fcl. fuzzylite imports the same FCL; its centroid is
# sampled, so the engine goes through its FLL form with the Centroid
# resolution raised from 100 to 10000 (midpoints of 10000 cells on [0, 1]).
# One extra output per rule (WeightedSum of a constant 1, so exactly the
# rule's activation) gives fuzzylite's own rule strengths; their maximum per
# mobility term is the aggregated strength that decides the class.
if command -v fuzzylite >/dev/null 2>&1; then
    awk '/^FUZZIFY/ { v = $2 } /RANGE :=/ && v != "" { gsub(/[();]/, " "); print v, $3, $5; v = "" }' "$LINEAR" >"$tmp/ranges"
    [ "$(wc -l <"$tmp/ranges")" = 4 ] && ok || bad "cannot read the input ranges: $(cat "$tmp/ranges")"
    awk -v seed=61131 '{ name[NR] = $1; lo[NR] = $2; hi[NR] = $3; n = NR }
        END { srand(seed); h = name[1]; for (i = 2; i <= n; i++) h = h "," name[i]; print h
              for (k = 0; k < 10000; k++) { l = ""; for (i = 1; i <= n; i++) l = l (i > 1 ? "," : "") sprintf("%.6f", lo[i] + (hi[i] - lo[i]) * rand()); print l } }' \
        "$tmp/ranges" >"$tmp/tuples.csv"
    tr ',' ' ' <"$tmp/tuples.csv" >"$tmp/tuples.fld"
    awk 'NR == FNR { if ($1 == "RULE") num[++n] = $2; next }
        /^VAR_OUTPUT/ { print; for (i = 1; i <= n; i++) print "    r" num[i] " : REAL;"; next }
        /^RULEBLOCK/ { for (i = 1; i <= n; i++) { print "DEFUZZIFY r" num[i]; print "    RANGE := (0 .. 1);"
                         print "    TERM one := 1;"; print "    METHOD : COGSS;"; print "    DEFAULT := 0;"; print "END_DEFUZZIFY" } }
        $1 == "RULE" && /then mobility is/ { t = $NF; sub(/;$/, "", t); print $2, t >"/dev/stderr"; sub(/;$/, " and r" $2 " is one;") }
        { print }' "$LINEAR" "$LINEAR" >"$tmp/strengths.fcl" 2>"$tmp/rules.map"
    fuzzylite -i "$tmp/strengths.fcl" -of fll -o "$tmp/fl.fll" >"$tmp/fl.log" 2>&1
    [ "$(grep -c 'rule: if.* then mobility is [LMH] and r[0-9]* is one$' "$tmp/fl.fll" 2>/dev/null)" = 81 ] && ok ||
        bad "fuzzylite did not load 81 rules: $(cat "$tmp/fl.log")"
    grep -q 'defuzzifier: Centroid 100$' "$tmp/fl.fll" && ok || bad "unexpected fuzzylite defuzzifier: $(grep defuzzifier "$tmp/fl.fll")"
    sed 's/defuzzifier: Centroid 100$/defuzzifier: Centroid 10000/' "$tmp/fl.fll" >"$tmp/fl10k.fll"
    fuzzylite -i "$tmp/fl10k.fll" -if fll -of fld -d "$tmp/tuples.fld" -dheader true -dinputs true -decimals 9 \
        -o "$tmp/fl.fld" >"$tmp/fl.log" 2>&1
    [ "$(wc -l <"$tmp/fl.fld" 2>/dev/null)" = 10001 ] && ok || bad "fuzzylite evaluation: $(cat "$tmp/fl.log")"
    "$C" --rules "$LINEAR" --eval "$tmp/tuples.csv" -o "$tmp/ours.csv" && ok || bad "--eval of the tuples"
    tail -n +2 "$tmp/fl.fld" >"$tmp/fl.body"
    tail -n +2 "$tmp/ours.csv" | tr ',' ' ' | paste -d' ' - "$tmp/fl.body" | awk -v header="$(head -1 "$tmp/fl.fld")" '
        NR == FNR { term[$1] = $2; next }                # rule number -> mobility term
        FNR == 1 { nh = split(header, h, " "); for (i = 1; i <= nh; i++) col[h[i]] = i + 7 }   # fuzzylite after our 7
        { ocost = $6; ocls = $7; mob = $(col["mobility"])
          d = ocost - (1 - mob); if (d < 0) d = -d; if (d > worst) worst = d
          # fuzzylite strengths per term: the largest activation of its rules
          s["L"] = s["M"] = s["H"] = 0
          for (r in term) { v = $(col["r" r]) + 0; if (v > s[term[r]]) s[term[r]] = v }
          # the class: the largest, ties to the riskier (L, then M)
          c = 1; b = s["L"]; if (s["M"] > b) { c = 2; b = s["M"] } if (s["H"] > b) { c = 3; b = s["H"] }
          second = -1; if (c != 1 && s["L"] > second) second = s["L"]; if (c != 2 && s["M"] > second) second = s["M"]
          if (c != 3 && s["H"] > second) second = s["H"]
          if (b - second > 1e-6) { n++; if (c == ocls) same++; else if (bad++ < 5) print "class differs: " $0 }
          rows++ }
        END { printf "fuzzylite 6.0, Centroid resolution 10000: max |cost difference| %.3g over %d tuples; class equal in %d of the %d tuples whose top two strengths differ by more than 1e-6\n", worst, rows, same, n
              exit !(rows == 10000 && worst <= 1e-3 && same == n && n > 9000) }' "$tmp/rules.map" - >"$tmp/cmp" 2>&1
    rc=$?
    cat "$tmp/cmp"
    [ $rc = 0 ] && ok || bad "cross-check against fuzzylite"
else
    skip_pkg fuzzylite "fuzzylite not installed: no cross-check against fuzzylite"
fi

summary
