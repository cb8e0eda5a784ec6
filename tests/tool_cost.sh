#!/bin/sh
# trv-cost end to end: --eval against hand-worked cells (the centroids
# derived below and in tests/test_fuzzy.c), the map stage on a synthetic
# terrain directory (cells against fuzzylite, NOGO and no data = cost 1
# class 0, styling seen by gdalinfo, byte-identical reruns, the same cells
# with one thread), every failure (clear message, exit 1, nothing written;
# an unwritable directory whether or not root runs the test), the FCL
# reader's errors through the command line, Jacksboro at 30 m through
# trv-terrain and trv-speed, and the cross-check against fuzzylite (Debian
# package fuzzylite, which make test installs) on both bundled rule files.
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

# ---- fuzzylite, the independent peer ----
# fuzzylite 6.0 reads FCL with its own shapes only. fl_engine makes its
# engine from one of our FCL files:
# - ZPOWER a b k and SPOWER a b k (ours, docs/method.md 3.2) become
#   fuzzylite Function terms written from their definitions,
#   max(0, min(1, (b - x)/(b - a)))^k and max(0, min(1, (x - a)/(b - a)))^k;
#   TRIANGLE becomes fuzzylite's Triangle (it reads that spelling only);
#   Ramp and Triangle (mobility_linear.fcl) are fuzzylite's own.
# - The rules that conclude the same mobility term become one rule, their
#   antecedents joined by OR (fuzzylite's Maximum): with min implication and
#   max aggregation, max_r min(a_r, mu_t(y)) = min(max_r a_r, mu_t(y)), so
#   the output is the same, while fuzzylite samples 3 clipped terms instead
#   of 81 (it evaluates a Function term far slower than a Ramp). Each of these
#   rules also concludes "sT is one" (an extra output: a constant term 1,
#   weighted sum, so exactly the rule's activation): fuzzylite's aggregated
#   strength of term T, which decides the class (docs/method.md 3.6).
# - fuzzylite's centroid is sampled: the resolution goes from 100 to 10000
#   (midpoints of 10000 cells on [0, 1]).
have_fl=0
command -v fuzzylite >/dev/null 2>&1 && have_fl=1
fl_engine() { # FCL NAME: $tmp/NAME.fll
    awk '{ if (match($0, /(ZPOWER|SPOWER) [^;]*;/)) {
               split(substr($0, RSTART, RLENGTH - 1), w, " "); a = w[2]; b = w[3]; k = w[4]
               f = w[1] == "ZPOWER" ? "((" b ")-x)" : "(x-(" a "))"
               $0 = substr($0, 1, RSTART - 1) "Function max(0,min(1," f "/((" b ")-(" a "))))^(" k ");" substr($0, RSTART + RLENGTH) }
           gsub(/TRIANGLE/, "Triangle"); print }' "$1" >"$tmp/$2.conv.fcl"
    awk 'NR == FNR { if ($1 == "RULE" && / then mobility is [A-Za-z]*;/) {
                         t = $NF; sub(/;$/, "", t); c = $0; sub(/^.*: *if /, "", c); sub(/ then .*$/, "", c)
                         if (t in cond) cond[t] = cond[t] " or (" c ")"; else { cond[t] = "(" c ")"; term[++n] = t } }
                     next }
        /^VAR_OUTPUT/ { print; for (i = 1; i <= n; i++) print "    s" term[i] " : REAL;"; next }
        /^RULEBLOCK/ { for (i = 1; i <= n; i++) { print "DEFUZZIFY s" term[i]; print "    RANGE := (0 .. 1);"
                         print "    TERM one := 1;"; print "    METHOD : COGSS;"; print "    DEFAULT := 0;"; print "END_DEFUZZIFY" }
                       print; print "    OR : MAX;"; next }
        $1 == "RULE" { if (!done) for (i = 1; i <= n; i++)
                           print "    RULE " i " : if " cond[term[i]] " then mobility is " term[i] " and s" term[i] " is one;"
                       done = 1; next }
        { print }' "$tmp/$2.conv.fcl" "$tmp/$2.conv.fcl" >"$tmp/$2.fl.fcl"
    fuzzylite -i "$tmp/$2.fl.fcl" -of fll -decimals 9 -o "$tmp/$2.100.fll" >"$tmp/fl.log" 2>&1
    # 3 rules holding the 81: 26 conclude L, 38 M, 17 H (the paper's counts)
    [ "$(grep '^  rule: if ' "$tmp/$2.100.fll" 2>/dev/null |
        awk '{ n = gsub(/\(slope is /, "&"); t = $0; sub(/.* then mobility is /, "", t); sub(/ .*/, "", t); print t, n }' |
        sort | tr '\n' ' ')" = "H 17 L 26 M 38 " ] &&
        ok || bad "fuzzylite did not load the rules of $1: $(cat "$tmp/fl.log")"
    [ "$(grep -c '^  term: [LMH] Function ' "$tmp/$2.100.fll")" = "$(grep -c 'TERM .*:= *[ZS]POWER ' "$1")" ] &&
        ok || bad "fuzzylite did not take every ZPOWER/SPOWER of $1 as a Function"
    grep -q 'defuzzifier: Centroid 100$' "$tmp/$2.100.fll" && ok || bad "unexpected fuzzylite defuzzifier: $(grep defuzzifier "$tmp/$2.100.fll")"
    sed 's/defuzzifier: Centroid 100$/defuzzifier: Centroid 10000/' "$tmp/$2.100.fll" >"$tmp/$2.fll"
}
fl_eval() { # NAME IN.csv OUT: fuzzylite on IN's rows (slope,elevation,ci,speed); OUT: "cost class margin" per row,
            # margin = the class's strength minus the next largest
    tr ',' ' ' <"$2" >"$tmp/in.fld"
    fuzzylite -i "$tmp/$1.fll" -if fll -of fld -d "$tmp/in.fld" -dheader true -dinputs true -decimals 9 \
        -o "$tmp/out.fld" >"$tmp/fl.log" 2>&1
    [ "$(wc -l <"$tmp/out.fld" 2>/dev/null)" = "$(wc -l <"$2")" ] && ok || bad "fuzzylite evaluation of $2: $(cat "$tmp/fl.log")"
    awk 'NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
        { l = $(col["sL"]); m = $(col["sM"]); h = $(col["sH"])
          # the class: the largest strength, ties to the riskier (L, then M)
          c = 1; b = l; if (m > b) { c = 2; b = m } if (h > b) { c = 3; b = h }
          second = c == 1 ? (m > h ? m : h) : c == 2 ? (l > h ? l : h) : (l > m ? l : m)
          printf "%.9f %d %.9f\n", 1 - $(col["mobility"]), c, b - second }' "$tmp/out.fld" >"$3"
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

# ---- --eval: hand-worked cells ----
# The centroids, worked by hand. Rows 1 to 3 with the linear file are
# tests/test_fuzzy.c's cells 1-3 (strengths and centroid in its comments):
# 1/2, 47/84, 5/6. Row 4, 6.5,100,300,10, linear file:
#   slope 6.5: H = (8 - 6.5)/3 = 0.5, M = (6.5 - 5)/5 = 0.3, L 0;
#   elevation 100: H 1; ci 300: L 1; speed 10: L = (15 - 10)/5 = 1, M 0.
#   H1 H2 L3 L4 -> M (rule 5): min(.5, 1, 1, 1) = 0.5
#   M1 H2 L3 L4 -> L (rule 59): min(.3, 1, 1, 1) = 0.3
#   s = (L 0.3, M 0.5, H 0): class 2 (low-risk).
#   mu(y) = max(min(.3, 1 - 2y), min(.5, M(y))), M(y) = 2y on [0, .5]:
#   0.3 on [0, .15] (clipped L, M below it), 2y on [.15, .25], 0.5 on
#   [.25, .75], 2(1 - y) on [.75, 1].
#   area   = .3(.15) + (.25^2 - .15^2) + .5(.5) + .25^2 = .045 + .04 + .25 + .0625 = 159/400
#   moment = .3(.15^2)/2 + (2/3)(.25^3 - .15^3) + .5(.75^2 - .25^2)/2 + [y^2 - 2y^3/3] from .75 to 1
#          = 27/8000 + 49/6000 + 1/8 + 5/96 = 1509/8000
#   centroid = (1509/8000)/(159/400) = 503/1060 = 0.4745283..., cost 557/1060.
printf 'slope,elevation,ci,speed\n12,450,600,18\n6,100,300,25\n3,100,800,35\n6.5,100,300,10\n' >"$tmp/hand.csv"
"$C" --rules "$LINEAR" --eval "$tmp/hand.csv" >"$tmp/lin.csv" 2>"$tmp/stderr" && ok || bad "--eval: $(cat "$tmp/stderr")"
awk 'function row(x, y, c) { printf "%s,%.9f,%.9f,%d\n", x, y, 1 - y, c }
     BEGIN { print "slope,elevation,ci,speed,mobility,cost,class"
             row("12,450,600,18", 1 / 2, 2); row("6,100,300,25", 47 / 84, 2); row("3,100,800,35", 5 / 6, 3)
             row("6.5,100,300,10", 503 / 1060, 2) }' >"$tmp/lin.want"
cmp -s "$tmp/lin.csv" "$tmp/lin.want" && ok || bad "--eval linear: $(diff "$tmp/lin.want" "$tmp/lin.csv")"
"$C" --rules "$RULES" --eval "$tmp/hand.csv" -o "$tmp/pow.csv" >"$tmp/stdout" 2>&1 && ok || bad "--eval -o: $(cat "$tmp/stdout")"
[ ! -s "$tmp/stdout" ] && ok || bad "--eval -o printed something"
# k = 2 (mobility.fcl), 6.5,100,300,10: tests/test_fuzzy.c's cell 4, s = (L 0.3,
# M 0.25, H 0), class 1; with a = (1 - sqrt(.3))/2 (where (1 - 2y)^2 = .3):
#   area   = .3a + (.3^1.5 - 1/8)/6 + .25(5/8) + 1/64
#   moment = .3a^2/2 + (1/4)((.3^1.5 - 1/8)/3 - (.09 - 1/16)/4) + .25((7/8)^2 - (1/4)^2)/2 + 11/768
# = 0.452520663...; 3,100,800,35: only rule 1, H(y) = 4(y - .5)^2: 7/8.
# The tool prints 9 decimals: within 5e-10 of the closed form.
hand_k2=$(awk 'BEGIN { a = (1 - sqrt(.3)) / 2; r = .3 ^ 1.5
    area = .3 * a + (r - 1 / 8) / 6 + .25 * 5 / 8 + 1 / 64
    moment = .3 * a * a / 2 + ((r - 1 / 8) / 3 - (.09 - 1 / 16) / 4) / 4 + .25 * (49 / 64 - 1 / 16) / 2 + 11 / 768
    printf "%.12f", moment / area }')
awk -F, -v m="$hand_k2" '$1 == 6.5 { d = $5 - m; e = $6 - (1 - m); found = (d * d <= 2.5e-19 && e * e <= 2.5e-19 && $7 == 1) }
    END { exit !found }' "$tmp/pow.csv" && ok || bad "k = 2 hand cell (mobility $hand_k2, class 1): $(cat "$tmp/pow.csv")"
awk -F, '$1 == 3 { d = $5 - 7 / 8; found = (d < 5e-10 && d > -5e-10 && $7 == 3) } END { exit !found }' "$tmp/pow.csv" && ok ||
    bad "k = 2 safe cell (7/8, class 3): $(cat "$tmp/pow.csv")"
# mom and som of row 2 (tests/test_fuzzy.c): the maximum 0.5 holds on [1/4, 1]
"$C" --rules "$LINEAR" --eval "$tmp/hand.csv" --defuzzifier mom | grep -qx '6,100,300,25,0.625000000,0.375000000,2' && ok ||
    bad "--defuzzifier mom"
"$C" --rules "$LINEAR" --eval "$tmp/hand.csv" --defuzzifier som | grep -qx '6,100,300,25,0.250000000,0.750000000,2' && ok ||
    bad "--defuzzifier som"
printf 'slope,elevation,ci\n1,2,3\n' >"$tmp/nospeed.csv"
expect 1 "$tmp/nospeed.csv: no column 'speed'" "$tmp/o1.csv" -- "$C" --rules "$RULES" --eval "$tmp/nospeed.csv" -o "$tmp/o1.csv"
expect 1 "cannot write '$tmp/none/o1.csv': the folder '$tmp/none' does not exist" "$tmp/none" -- "$C" --rules "$RULES" --eval "$tmp/hand.csv" -o "$tmp/none/o1.csv"
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
# the map's cells: NOGO and no data cost 1, class 0; every other cell against
# fuzzylite on the same inputs (CI through data/classes/soils.csv's ci_kPa)
echo "$DEMV" | tr ' ' '\n' >"$tmp/c_dem"
echo "$SLOPEV" | tr ' ' '\n' >"$tmp/c_slope"
echo "$SOILV" | tr ' ' '\n' | awk -F, 'NR == FNR { if (FNR == 1) for (i = 1; i <= NF; i++) if ($i == "ci_kPa") c = i
                                                  if (FNR > 1) ci[$1] = $c; next }
                                       { print ($1 in ci) ? ci[$1] : 0 }' "$DATA/classes/soils.csv" - >"$tmp/c_ci"
echo "$SPEEDV" | tr ' ' '\n' >"$tmp/c_speed"
{ echo "slope,elevation,ci,speed"; paste -d, "$tmp/c_slope" "$tmp/c_dem" "$tmp/c_ci" "$tmp/c_speed"; } >"$tmp/cells.csv"
gdal_translate -q -of XYZ -co DECIMAL_PRECISION=9 "$T/cost.tif" "$tmp/cost.xyz"
gdal_translate -q -of XYZ "$T/class.tif" "$tmp/class.xyz"
echo "$GOV" | tr ' ' '\n' >"$tmp/c_go"
echo "$SOILV" | tr ' ' '\n' >"$tmp/c_soil"
paste -d' ' "$tmp/cost.xyz" "$tmp/class.xyz" "$tmp/c_go" "$tmp/c_soil" "$tmp/c_dem" >"$tmp/joined"
awk '{ cost = $3; cls = $6; go = $7; soil = $8; dem = $9; n++
       if (go != 0 || soil == 0 || dem == -9999) { nogo++; if (cost != 1 || cls != 0) { print "cell " NR ": not cost 1 class 0"; bad = 1 } } }
     END { exit bad || n != 20 || nogo != 4 }' "$tmp/joined" && ok || bad "NOGO and no-data cells are not cost 1, class 0"
# cost.tif is Float32: rounding to it moves a cost in [0.5, 1) by up to 2^-25
# = 3.0e-8, and fuzzylite's sampled centroid is within 4e-8 (the
# cross-check below): tolerance 7e-8, measured 2.70e-8 over the 16 cells;
# the class equal wherever fuzzylite's top two strengths differ by > 1e-6
if [ $have_fl = 1 ]; then
    fl_engine "$RULES" pow
    fl_eval pow "$tmp/cells.csv" "$tmp/cells_fl"
    paste -d' ' "$tmp/joined" "$tmp/cells_fl" | awk '
        { cost = $3; cls = $6; go = $7; soil = $8; dem = $9; fcost = $10; fcls = $11; margin = $12
          if (go != 0 || soil == 0 || dem == -9999) next
          n++; d = cost - fcost; if (d < 0) d = -d; if (d > worst) worst = d
          if (d > 7e-8 || (margin > 1e-6 && cls != fcls)) { print "cell " NR ": map " cost " class " cls ", fuzzylite " fcost " class " fcls; bad = 1 } }
        END { printf "map cells against fuzzylite: largest cost difference %.2e over %d cells\n", worst, n; exit bad || n != 16 }' &&
        ok || bad "map cells differ from fuzzylite"
else
    skip_pkg fuzzylite "fuzzylite not installed: the map's 16 cells with data not compared with fuzzylite"
fi
# the hand-worked cell (row 4, column 3), tests/test_fuzzy.c's cell 4: cost
# 1 - 0.452520663 (the closed form above), class 1, within Float32 rounding
v=$(gdallocationinfo -valonly "$T/cost.tif" 2 3)
awk -v v="$v" -v m="$hand_k2" 'BEGIN { d = v - (1 - m); exit !(d <= 3e-8 && d >= -3e-8) }' && ok || bad "hand cell cost $v"
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
# cost.json against the layers as GDAL reads them (the cells joined above)
# and the rules file: cells with data (soil and DEM both there), each
# class's count and share among them, the mean cost of the GO classes
nrules=$(grep -c '^ *RULE [0-9]' "$RULES")
python3 - "$T/cost.json" "$tmp/joined" "$nrules" "$RULES" >"$tmp/check" 2>&1 <<'EOF' && ok || bad "cost.json: $(cat "$tmp/check")"
import json, sys
s = json.load(open(sys.argv[1]))
rows = [line.split() for line in open(sys.argv[2])]
data = [r for r in rows if r[7] != "0" and r[8] != "-9999"]
g = s["grid"]
assert (g["nx"], g["ny"], g["cell_m"], g["crs"]) == (5, 4, 10, "EPSG:32616"), g
assert g["cells_with_data"] == len(data) == 18 and g["nodata_cells"] == len(rows) - len(data), g
assert [c["class"] for c in s["classes"]] == [0, 1, 2, 3], s["classes"]
for c in s["classes"]:
    n = sum(1 for r in data if int(r[5]) == c["class"])
    assert c["cells"] == n and abs(c["fraction"] - n / len(data)) < 1e-9, (c, n)
go = [float(r[2]) for r in data if int(r[5]) >= 1]
assert abs(s["cost_mean_go"] - sum(go) / len(go)) < 1e-7, (s["cost_mean_go"], sum(go) / len(go))
assert s["rule_count"] == int(sys.argv[3]) > 0 and s["defuzzifier"] == "centroid", s
assert s["inputs"]["rules"].endswith("fuzzy/mobility.fcl") and s["inputs"]["soils"].endswith("classes/soils.csv"), s["inputs"]
EOF
gdalinfo "$T/cost.tif" | grep -q "^  TRV_INPUT_RULES=.*fuzzy/mobility.fcl$" && ok || bad "cost.tif lacks TRV_INPUT_RULES"
# same command, same bytes; one thread, the same cells
"$C" --terrain "$T" -q
cp "$T/cost.tif" "$tmp/cost1.tif"
cp "$T/class.tif" "$tmp/class1.tif"
cp "$T/cost.json" "$tmp/cost1.json"
"$C" --terrain "$T" -q
cmp -s "$T/cost.tif" "$tmp/cost1.tif" && cmp -s "$T/class.tif" "$tmp/class1.tif" && ok || bad "two identical runs differ"
cmp -s "$T/cost.json" "$tmp/cost1.json" && ok || bad "two identical runs give other cost.json"
"$C" --terrain "$T" -q --threads 1
[ "$(gdalinfo -checksum "$T/cost.tif" | grep Checksum)" = "$(gdalinfo -checksum "$tmp/cost1.tif" | grep Checksum)" ] && ok ||
    bad "--threads 1 gives other cells"
gdal_translate -q -of XYZ -co DECIMAL_PRECISION=9 "$T/cost.tif" "$tmp/cost_t1.xyz"
cmp -s "$tmp/cost.xyz" "$tmp/cost_t1.xyz" && ok || bad "--threads 1 gives other cost values"

# ---- map failures: message, exit 1, no cost.tif written ----
fresh() { rm -rf "$tmp/f" && cp -R "$tmp/pristine" "$tmp/f"; }
# a layer without a cell of data (issue 15): refused, not an all-NOGO map
fresh && gdal_translate -q -scale 0 90 -9999 -9999 "$tmp/pristine/slope.tif" "$tmp/f/slope.tif"
expect 1 "'$tmp/f/slope.tif' holds only nodata" "$tmp/f/cost.tif" -- "$C" --terrain "$tmp/f"
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
# one output set: a summary that cannot be put in place (the last of the
# set) leaves no layer and no style
fresh && mkdir "$tmp/f/cost.json"
expect 1 "cannot write '$tmp/f/cost.json': a directory is in the way" "$tmp/f/cost.tif" -- "$C" --terrain "$tmp/f"
[ ! -e "$tmp/f/class.tif" ] && [ ! -e "$tmp/f/cost.qml" ] && ok || bad "a failing summary left $(ls "$tmp/f")"
# an unwritable directory: nothing half-written. Root writes whatever the
# mode says: tests/lib.sh's readonly_run makes the directory unwritable for
# root too (a read-only bind mount), so the case runs either way.
fresh
if can_make_readonly "$tmp/f"; then
    expect 1 "'$tmp/f' is not writable (" "$tmp/f/cost.tif" -- readonly_run "$tmp/f" "$C" --terrain "$tmp/f"
else
    skip "cannot make a directory unwritable here (root without a private mount namespace): the unwritable-output case"
fi

# ---- Jacksboro at 30 m: trv-terrain, trv-speed, trv-cost ----
# make test builds every tool: a missing one is a failure, not a skip
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
else
    bad "Jacksboro run: $BIN/trv-speed or $BIN/trv-terrain not built"
fi

# ---- the cross-check against fuzzylite, both bundled rule files ----
# Seeded tuples, uniform over every input's RANGE, through --eval and
# through fuzzylite (fl_engine above: mobility.fcl's ZPOWER/SPOWER as
# fuzzylite Function terms). The cost within the tolerance; the class equal
# in every tuple whose top two strengths (fuzzylite's) differ by more than
# 1e-6. Measured largest cost differences (fuzzylite's midpoint rule on
# 10000 cells, both sides printed to 9 decimals): mobility_linear.fcl
# 1.00e-8 over 10000 tuples (1.07e-4 at fuzzylite's default resolution
# 100), mobility.fcl 1.60e-8 over 4000 tuples (fewer: its Function terms
# are slow in fuzzylite); tolerance 4e-8 for both (2.5 times the larger).
crosscheck() { # FCL NAME TUPLES SEED
    awk '/^FUZZIFY/ { v = $2 } /RANGE :=/ && v != "" { gsub(/[();]/, " "); print v, $3, $5; v = "" }' "$1" >"$tmp/ranges"
    [ "$(wc -l <"$tmp/ranges")" = 4 ] && ok || bad "cannot read the input ranges of $1: $(cat "$tmp/ranges")"
    awk -v seed="$4" -v n="$3" '{ name[NR] = $1; lo[NR] = $2; hi[NR] = $3; m = NR }
        END { srand(seed); h = name[1]; for (i = 2; i <= m; i++) h = h "," name[i]; print h
              for (k = 0; k < n; k++) { l = ""; for (i = 1; i <= m; i++) l = l (i > 1 ? "," : "") sprintf("%.6f", lo[i] + (hi[i] - lo[i]) * rand()); print l } }' \
        "$tmp/ranges" >"$tmp/tuples.csv"
    [ -f "$tmp/$2.fll" ] || fl_engine "$1" "$2" # the map's check made mobility.fcl's
    fl_eval "$2" "$tmp/tuples.csv" "$tmp/fl.out"
    "$C" --rules "$1" --eval "$tmp/tuples.csv" -o "$tmp/ours.csv" && ok || bad "--eval of the tuples"
    tail -n +2 "$tmp/ours.csv" | tr ',' ' ' | paste -d' ' - "$tmp/fl.out" | awk -v n="$3" -v f="$(basename "$1")" '
        { ocost = $6; ocls = $7; fcost = $8; fcls = $9; margin = $10
          d = ocost - fcost; if (d < 0) d = -d; if (d > worst) worst = d
          if (margin > 1e-6) { m++; if (fcls == ocls) same++; else if (bad++ < 5) print "class differs: " $0 }
          rows++ }
        END { printf "fuzzylite 6.0 on %s, Centroid resolution 10000: max |cost difference| %.2e over %d tuples; class equal in %d of the %d tuples whose top two strengths differ by more than 1e-6\n", f, worst, rows, same, m
              exit !(rows == n && worst <= 4e-8 && same == m && m > 0.99 * n) }' >"$tmp/cmp" 2>&1
    rc=$?
    cat "$tmp/cmp"
    [ $rc = 0 ] && ok || bad "cross-check of $1 against fuzzylite"
}
if [ $have_fl = 1 ]; then
    crosscheck "$LINEAR" lin 10000 61131
    crosscheck "$RULES" pow 4000 61132
else
    skip_pkg fuzzylite "fuzzylite not installed: no cross-check of mobility_linear.fcl against fuzzylite"
    skip_pkg fuzzylite "fuzzylite not installed: no cross-check of mobility.fcl against fuzzylite"
fi

summary
