#!/bin/sh
# trv-speed end to end on a 90 m Jacksboro terrain: outputs, styling, the
# report and every cell's speed and GO/NOGO reason against an independent
# model computed here from the vehicle file and the class tables (the UGV,
# the tracked carrier, and both with shear data), determinism, and every
# error path. Ends with
# "N passed, N failed, N skipped".
set -u
BIN=${TRV_BIN:-bin}
DATA=${TRV_DATADIR:-data}
S=$BIN/trv-speed
tmp=$(mktemp -d /tmp/trv-speed-test-XXXXXX)
trap 'rm -rf "$tmp"' EXIT
. "$(dirname "$0")/lib.sh"
expect() { # status message dir -- command...: and no speed.tif/gonogo.tif in dir
    want=$1 msg=$2 dir=$3
    shift 4
    "$@" >"$tmp/stdout" 2>"$tmp/stderr"
    got=$?
    if [ "$got" != "$want" ]; then bad "$* -> exit $got, want $want ($(cat "$tmp/stderr"))"; return; fi
    if [ -n "$msg" ] && ! grep -qF -- "$msg" "$tmp/stderr"; then bad "$* -> stderr lacks '$msg': $(cat "$tmp/stderr")"; return; fi
    if [ -n "$dir" ] && { [ -e "$dir/speed.tif" ] || [ -e "$dir/gonogo.tif" ]; }; then bad "$* left outputs in $dir"; return; fi
    ok
}

# a 90 m terrain directory
gdalwarp -q -t_srs EPSG:32616 -tr 90 90 -tap -r bilinear -ot Float32 -dstnodata -32768 "$DATA/jacksboro/dem_3arcsec.tif" "$tmp/dem90.tif"
"$BIN/trv-terrain" -q --dem "$tmp/dem90.tif" --soil "$DATA/jacksboro/soil_7p5arcsec.tif" --landuse "$DATA/jacksboro/landuse_30m_utm16n.tif" \
    --soil-classes "$DATA/classes/soils.csv" --landuse-classes "$DATA/classes/landuse.csv" -o "$tmp/t" || { echo "cannot make the terrain"; exit 1; }
cp -R "$tmp/t" "$tmp/clean"
UGV=$DATA/vehicles/ugv_hua2022.ini
T="--soils $DATA/classes/soils.csv --landuse-classes $DATA/classes/landuse.csv"

# ---- the real run ----
if "$S" --terrain "$tmp/t" --vehicle "$UGV" $T --report "$tmp/rep.csv" >"$tmp/out" 2>"$tmp/err"; then ok; else bad "run: $(cat "$tmp/err")"; fi
grep -q 'MI 5.28; VCI1 8.19 RCI = 56.5 kPa' "$tmp/out" && ok || bad "MI/VCI line: $(grep MI "$tmp/out")"
grep -q "in force: VCI1 389.4 kPa (the vehicle file's override)" "$tmp/out" && ok || bad "override not reported"
grep -q 'traction check skipped' "$tmp/out" && ok || bad "skipped traction not reported"
[ "$(head -1 "$tmp/rep.csv")" = "code,name,ci_kPa,mode,sinkage_m,resistance_per_tyre_kN,resistance_total_kN,thrust_kN,speed_flat_kmh,speed_10deg_kmh,pass" ] && ok || bad "report header"
[ "$(wc -l <"$tmp/rep.csv")" = 5 ] && ok || bad "report rows"
grep -q '^1,sandy loam,223.40,rigid,.*,no$' "$tmp/rep.csv" && ok || bad "sandy loam row: $(grep '^1,' "$tmp/rep.csv")"
info=$(gdalinfo "$tmp/t/gonogo.tif")
echo "$info" | grep -q '2: NOGO: soil strength (CI < VCI1)' && ok || bad "gonogo category names"
echo "$info" | grep -q 'Color Table' && ok || bad "gonogo colour table"
gdalinfo "$tmp/t/speed.tif" | grep -q 'Unit Type: km/h' && ok || bad "speed unit"
# ---- the independent model ----
# From the vehicle file and the class tables alone (docs/method.md §2.2,
# §2.4-2.8), in awk, never from the tool's report. Units kN, kPa, m.
#   W = gross_mass_kg * 9.80665 / 1000 (kN); k = kc / b + kphi.
#   Rigid wheel: the load along the arc x^2 = D (z0 - z) is
#     W_t = b int_0^sqrt(D z0) k (z0 - x^2/D)^n dx; with x = sqrt(D z0) sin t
#     this is b k sqrt(D) z0^(n+1/2) J, J = int_0^(pi/2) cos^(2n+1) t dt
#     (Simpson, 20 000 intervals), so z0 = (W_t / (b k sqrt(D) J))^(2/(2n+1)).
#     p_gcr = k z0^n; rigid when p_i + p_c > p_gcr, else elastic:
#     z0 = ((p_i + p_c) / k)^(1/n). Per tyre R_c = b k z0^(n+1) / (n+1),
#     R = tyres R_c; contact length sqrt(D z0) (rigid), W_t / (b (p_i + p_c))
#     (elastic).
#   Tracks: p = W / (2 b L), z0 = (p / k)^(1/n), R = 2 b k z0^(n+1) / (n+1).
#   Thrust at 100 % slip (only with c_kPa, phi_deg, K_m): per contact
#     H = (A c + W_c tan phi)(1 - K/l (1 - e^(-l/K))), A = b l (tyre) or 2 b L.
#   Speed: v = min(top, eta P / (R + W sin beta) * 3.6), top when the
#     denominator is not positive.
#   Reason: 5 nodata; 1 beta > min(pitch, roll); 2 CI < VCI1; 3 land use
#     nogo; 4 H_total < R + W sin beta (with shear data); else 0.
#   VCI: the file's overrides, else NRMM (tracked only here, §2.2:
#     MI = (CPF WF / (TrF GF) + BF - CF) EF XF in lb and in).
# what=report reads the tool's report CSV and prints one line per mismatch;
# what=cells reads "slope soil landuse speed gonogo" per cell (the five
# rasters' XYZ columns) and prints the mismatches and a summary line.
cat >"$tmp/model.awk" <<'EOF'
function trim(s) { sub(/[ \t]*#.*/, "", s); gsub(/^[ \t]+|[ \t]+$/, "", s); return s }
function abs(x) { return x < 0 ? -x : x }
# report values printed with %.6f and %.3f: tolerance half the last printed
# digit plus 20 %
function d6(c, what, got, want) {
    if (abs(got - want) > max6) max6 = abs(got - want)
    if (abs(got - want) > 6e-7) printf "soil %d: %s %s, want %.9f\n", c, what, got, want
}
function d3(c, what, got, want) {
    if (abs(got - want) > max3) max3 = abs(got - want)
    if (abs(got - want) > 6e-4) printf "soil %d: %s %s, want %.6f\n", c, what, got, want
}
function speed(r, beta,   d, v) {
    d = r + W * sin(beta * PI / 180)
    if (d <= 0) return top
    v = eta * P / d * 3.6
    return v < top ? v : top
}
BEGIN {
    PI = atan2(0, -1); sec = ""
    while ((getline line < veh) > 0) {
        line = trim(line)
        if (line == "") continue
        if (line ~ /^\[/) { sec = line; continue }
        if (sec != "[vehicle]") continue
        k = line; sub(/[ \t]*=.*/, "", k); v = line; sub(/^[^=]*=[ \t]*/, "", v); V[k] = v ~ /^[-+]?[0-9.]+([eE][-+]?[0-9]+)?$/ ? v + 0 : v
    }
    tracked = V["type"] == "tracked"
    W = V["gross_mass_kg"] * 9.80665 / 1000
    eta = ("drivetrain_efficiency" in V) ? V["drivetrain_efficiency"] : 1
    P = V["engine_power_kW"]; top = V["top_speed_kmh"]
    lim = V["max_pitch_deg"] < V["max_roll_deg"] ? V["max_pitch_deg"] : V["max_roll_deg"]
    if (tracked) {
        in_ = 1 / 0.0254; lb = V["gross_mass_kg"] * 2.2046226218
        bi = V["track_width_m"] * in_; li = V["track_length_m"] * in_
        wf = lb < 50000 ? 1.0 : lb < 70000 ? 1.2 : lb < 100000 ? 1.4 : 1.8
        gf = V["grouser_height_m"] * in_ >= 1.5 ? 1.1 : 1.0
        bf = (lb / 10) / (V["road_wheels"] * V["track_shoe_area_m2"] * in_ * in_)
        ef = P / 0.745699872 / (lb / 2000) >= 10 ? 1.0 : 1.05
        xf = V["transmission"] == "manual" ? 1.05 : 1.0
        MI = (lb / (2 * li * bi) * wf / (bi / 100 * gf) + bf - V["ground_clearance_m"] * in_ / 10) * ef * xf
        vci1_rci = 7.0 + 0.2 * MI - 39.2 / (MI + 5.6); vci50_rci = 19.27 + 0.43 * MI - 125.79 / (MI + 7.08)
        vci1 = vci1_rci * 6.894757; vci50 = vci50_rci * 6.894757
    } else if (!("vci1_kPa" in V) || !("vci50_kPa" in V)) {
        print "the test's model needs vci1_kPa and vci50_kPa in a wheeled vehicle file"; exit 1
    }
    if ("vci1_kPa" in V) vci1 = V["vci1_kPa"]
    if ("vci50_kPa" in V) vci50 = V["vci50_kPa"]
    # land-use table: code -> nogo
    FS = ","
    getline line < lu; nh = split(line, h, ","); for (i = 1; i <= nh; i++) LC[h[i]] = i
    while ((getline line < lu) > 0) { split(line, f, ","); NOGO[f[LC["code"]] + 0] = f[LC["nogo"]] == "yes" }
    # soil table, per soil: mode, z0, R per tyre (both tracks), R total, H total
    getline line < soils; nh = split(line, h, ","); for (i = 1; i <= nh; i++) SC[h[i]] = i
    shear = ("c_kPa" in SC)
    while ((getline line < soils) > 0) {
        split(line, f, ","); c = f[SC["code"]] + 0
        n = f[SC["n"]]; CI[c] = f[SC["ci_kPa"]]
        if (tracked) {
            b = V["track_width_m"]; L = V["track_length_m"]; k = f[SC["kc"]] / b + f[SC["kphi"]]
            p = W / (2 * b * L); z = (p / k) ^ (1 / n); r = 2 * b * k * z ^ (n + 1) / (n + 1)
            MODE[c] = "track"; Z[c] = z; RP[c] = r; R[c] = r; l = L; A = 2 * b * L; wc = W; units = 1
        } else {
            b = V["tyre_width_m"]; D = V["tyre_diameter_m"]; k = f[SC["kc"]] / b + f[SC["kphi"]]
            pt = V["inflation_pressure_kPa"] + V["carcass_pressure_kPa"]
            wc = ("tyre_load_N" in V) ? V["tyre_load_N"] / 1000 : W / V["tyres"]; units = V["tyres"]
            m = 20000; hh = PI / 2 / m; J = 0
            for (i = 0; i <= m; i++) J += (i == 0 || i == m ? 1 : i % 2 ? 4 : 2) * cos(i * hh) ^ (2 * n + 1)
            J *= hh / 3
            z = (wc / (b * k * sqrt(D) * J)) ^ (2 / (2 * n + 1))
            if (pt > k * z ^ n) { MODE[c] = "rigid"; l = sqrt(D * z) }
            else { MODE[c] = "elastic"; z = (pt / k) ^ (1 / n); l = wc / (b * pt) }
            A = b * l; Z[c] = z; RP[c] = b * k * z ^ (n + 1) / (n + 1); R[c] = units * RP[c]
        }
        if (shear) {
            K = f[SC["K_m"]]
            H[c] = units * (A * f[SC["c_kPa"]] + wc * sin(f[SC["phi_deg"]] * PI / 180) / cos(f[SC["phi_deg"]] * PI / 180)) * (1 - K / l * (1 - exp(-l / K)))
        }
        PASS[c] = CI[c] >= vci50 ? "easy" : CI[c] >= vci1 ? "difficult" : "no"
    }
    if (what == "report") FS = ","; else FS = " "
    if (what == "vci") { printf "MI %.2f; VCI1 %.2f RCI = %.1f kPa; VCI50 %.2f RCI = %.1f kPa\n", MI, vci1_rci, vci1, vci50_rci, vci50; exit 0 }
}
# report rows: code,name,ci_kPa,mode,sinkage_m,resistance_per_tyre_kN,resistance_total_kN,thrust_kN,speed_flat_kmh,speed_10deg_kmh,pass
what == "report" && FNR > 1 {
    c = $1 + 0; rows++
    if (!(c in MODE)) { print "report row for unknown soil " c; next }
    if ($4 != MODE[c]) print "soil " c ": mode " $4 ", want " MODE[c]
    d6(c, "sinkage (m)", $5, Z[c]); d6(c, "resistance per tyre (kN)", $6, RP[c]); d6(c, "resistance (kN)", $7, R[c])
    if (shear) d6(c, "thrust (kN)", $8, H[c]); else if ($8 != "") print "soil " c ": thrust '" $8 "', want none"
    d3(c, "flat speed (km/h)", $9, speed(R[c], 0)); d3(c, "speed at 10 deg (km/h)", $10, speed(R[c], 10))
    if ($11 != PASS[c]) print "soil " c ": class " $11 ", want " PASS[c]
}
what == "report" { next }
# cells: the slope value is the exact float the tool read; speed.tif is
# float32, so the tolerance is 1e-6 relative (measured below 6e-8)
what == "cells" {
    s = $1; c = $2 + 0; u = $3 + 0; v = $4; g = $5 + 0; cells++
    if (s == -9999 || c == 0 || u == 0) want = 5
    else if (s > lim) want = 1
    else if (CI[c] < vci1) want = 2
    else if (NOGO[u]) want = 3
    else if (shear && H[c] < R[c] + W * sin(s * PI / 180)) want = 4
    else want = 0
    ws = want == 0 ? speed(R[c], s) : 0
    N[want]++
    if (g != want) { bad++; if (bad <= 5) printf "cell %d: reason %d, want %d (slope %s, soil %d, land use %d)\n", NR, g, want, s, c, u }
    d = abs(v - ws) / (ws > 0 ? ws : 1)
    if (d > maxd) maxd = d
    if (d > 1e-6) { bad++; if (bad <= 5) printf "cell %d: speed %s km/h, want %.6f (slope %s, soil %d)\n", NR, v, ws, s, c }
    if (want == 0 && ws < top) slow++
}
END {
    if (what == "report") {
        if (rows != length(MODE)) print "report has " rows " rows, the soil table " length(MODE)
        printf "summary: %d rows, max |difference| %.1e in the %%.6f columns, %.1e km/h in the speeds\n", rows, max6, max3
    }
    if (what == "cells")
        printf "summary: %d cells, reasons 0-5: %d %d %d %d %d %d, %d GO below the top speed, max relative speed difference %.2e\n", cells, N[0], N[1], N[2], N[3], N[4], N[5], slow, maxd
}
EOF
model() { # vehicle soils what [input]: the independent model
    awk -v veh="$1" -v soils="$2" -v lu="$DATA/classes/landuse.csv" -v what="$3" -f "$tmp/model.awk" ${4:+"$4"}
}
# every cell of a terrain directory against the model; N: GO cells below the top speed needed
check_cells() { # label dir vehicle soils N
    for l in slope soil landuse speed gonogo; do gdal_translate -q -of XYZ "$2/$l.tif" "$tmp/$l.xyz"; done
    paste -d' ' "$tmp/slope.xyz" "$tmp/soil.xyz" "$tmp/landuse.xyz" "$tmp/speed.xyz" "$tmp/gonogo.xyz" |
        awk '{ p = $1 "," $2 } p != $4 "," $5 || p != $7 "," $8 || p != $10 "," $11 || p != $13 "," $14 { print "grids differ"; exit 1 } { print $3, $6, $9, $12, $15 }' >"$tmp/cells"
    model "$3" "$4" cells "$tmp/cells" >"$tmp/cells.out"
    sum=$(grep '^summary:' "$tmp/cells.out")
    echo "  $1: $sum"
    if grep -qv '^summary:' "$tmp/cells.out"; then bad "$1: $(grep -v '^summary:' "$tmp/cells.out")"; else ok; fi
    slow=$(echo "$sum" | sed 's/.*, \([0-9]*\) GO below the top speed.*/\1/')
    [ "${slow:-0}" -ge "$5" ] && ok || bad "$1: only ${slow:-?} GO cells below the top speed (want >= $5)"
}
check_report() { # label report vehicle soils
    model "$3" "$4" report "$2" >"$tmp/rep.out"
    echo "  $1 report: $(grep '^summary:' "$tmp/rep.out")"
    if grep -qv '^summary:' "$tmp/rep.out"; then bad "$1 report: $(grep -v '^summary:' "$tmp/rep.out")"; else ok; fi
}
SOILS=$DATA/classes/soils.csv
check_report "UGV" "$tmp/rep.csv" "$UGV" "$SOILS"
# every cell (the UGV is at its 40 km/h clamp below about 17 deg, so only
# the steep GO cells test the power balance)
check_cells "UGV" "$tmp/t" "$UGV" "$SOILS" 100
# speed.json: its per-soil table against the model (as the report CSV's
# columns), its GO/NOGO counts and mean GO speed against the cells the
# model checked (GDAL's XYZ of the layers), the vehicle's limits against
# the vehicle file
python3 - "$tmp/t/speed.json" >"$tmp/soils.csv" <<'EOF' || bad "speed.json has no soils table"
import json, sys
s = json.load(open(sys.argv[1]))
print("code,name,ci_kPa,mode,sinkage_m,resistance_per_tyre_kN,resistance_total_kN,thrust_kN,speed_flat_kmh,speed_10deg_kmh,pass")
for r in s["soils"]:
    print("%d,%s,%.2f,%s,%.9f,%.9f,%.9f,%s,%.6f,%.6f,%s" % (r["code"], r["name"], r["ci_kPa"], r["mode"], r["sinkage_m"],
          r["resistance_per_tyre_kN"], r["resistance_total_kN"], "" if r["thrust_kN"] is None else "%.9f" % r["thrust_kN"],
          r["speed_flat_kmh"], r["speed_10deg_kmh"], r["pass"]))
EOF
check_report "UGV speed.json" "$tmp/soils.csv" "$UGV" "$SOILS"
reasons=$(sed -n 's/.*reasons 0-5: \([0-9 ]*\),.*/\1/p' "$tmp/cells.out")
gomean=$(awk '$5 == 0 { s += $4; n++ } END { printf "%.9g", s / n }' "$tmp/cells")
limits=$(awk -F' *= *' '$1 == "max_pitch_deg" { p = $2 } $1 == "max_roll_deg" { r = $2 } $1 == "top_speed_kmh" { t = $2 }
    END { print t + 0, (p < r ? p : r) + 0 }' "$UGV")
python3 - "$tmp/t/speed.json" "$reasons" "$gomean" "$limits" "$UGV" >"$tmp/check" 2>&1 <<'EOF' && ok || bad "speed.json: $(cat "$tmp/check")"
import json, sys
s = json.load(open(sys.argv[1]))
n = list(map(int, sys.argv[2].split()))
c = s["cells"]
got = [c["go"], c["nogo_slope"], c["nogo_soil"], c["nogo_landuse"], c["nogo_traction"], c["nodata"]]
assert got == n and c["all"] == sum(n) and c["with_data"] == sum(n) - n[5] and n[0] > 1000, (got, n)
assert abs(s["speed_go_kmh"]["mean"] - float(sys.argv[3])) < 1e-5, (s["speed_go_kmh"], sys.argv[3])
top, lim = map(float, sys.argv[4].split())
v = s["vehicle"]
assert (v["top_speed_kmh"], v["max_slope_deg"], v["kind"]) == (top, lim, "wheeled"), v
assert s["vci"]["vci1_kPa"] == 389.4 and s["vci"]["vci1_overridden"] is True and s["traction_check"] is False, s["vci"]
assert s["inputs"]["vehicle"] == sys.argv[5] and "seed" not in s, s["inputs"]
EOF
gdalinfo "$tmp/t/speed.tif" | grep -qxF "  TRV_INPUT_VEHICLE=$UGV" && ok || bad "speed.tif lacks TRV_INPUT_VEHICLE"
# determinism
cp "$tmp/t/speed.tif" "$tmp/s1.tif" && cp "$tmp/t/speed.json" "$tmp/s1.json"
"$S" --terrain "$tmp/t" --vehicle "$UGV" $T --report "$tmp/rep.csv" >/dev/null 2>&1
cmp -s "$tmp/t/speed.tif" "$tmp/s1.tif" && ok || bad "a rerun changed speed.tif"
cmp -s "$tmp/t/speed.json" "$tmp/s1.json" && ok || bad "a rerun changed speed.json"
# the tracked carrier: its NRMM line, its report and every cell against the
# tracked closed forms (docs/method.md §2.5; by hand in tests/test_terramech.c:
# MI 56.85, VCI1 17.74 RCI = 122.3 kPa; sandy loam z0 0.041988 m, R 1.407739 kN)
TRK=$DATA/vehicles/tracked_carrier.ini
if "$S" --terrain "$tmp/t" --vehicle "$TRK" $T --report "$tmp/rep_t.csv" >"$tmp/out_t" 2>"$tmp/err"; then ok; else bad "tracked vehicle: $(cat "$tmp/err")"; fi
want=$(model "$TRK" "$SOILS" vci </dev/null)
grep -qF "$want (NRMM formulas)" "$tmp/out_t" && ok || bad "tracked MI/VCI line: $(grep MI "$tmp/out_t"), want $want"
grep -q '^1,sandy loam,223.40,track,0.041988,1.407739,1.407739,,65.000,21.096,difficult$' "$tmp/rep_t.csv" && ok || bad "tracked sandy loam row: $(grep '^1,' "$tmp/rep_t.csv")"
check_report "tracked" "$tmp/rep_t.csv" "$TRK" "$SOILS"
check_cells "tracked" "$tmp/t" "$TRK" "$SOILS" 10000
# with shear data the traction check runs (docs/method.md §2.6): the
# thrust column and reason 4 against the model (the shear values of
# tests/test_terramech.c)
printf 'code,name,n,kc,kphi,ci_kPa,c_kPa,phi_deg,K_m\n1,sandy loam,0.30,2.79,141.11,223.40,1.72,29,0.025\n2,clayey soil,0.50,13.19,692.15,732.50,4.14,13,0.01\n3,lean clay,0.20,16.43,1724.69,1070.50,68.95,20,0.01\n4,upland sandy,1.10,74.60,2080.00,528.50,0.48,22,0.01\n' >"$tmp/shear.csv"
for veh in "$UGV" "$TRK"; do
    name=$(basename "$veh" .ini)
    if "$S" --terrain "$tmp/t" --vehicle "$veh" --soils "$tmp/shear.csv" --landuse-classes "$DATA/classes/landuse.csv" --report "$tmp/rep_s.csv" -q 2>"$tmp/err"; then ok; else bad "$name with shear data: $(cat "$tmp/err")"; fi
    check_report "$name, shear" "$tmp/rep_s.csv" "$veh" "$tmp/shear.csv"
    check_cells "$name, shear" "$tmp/t" "$veh" "$tmp/shear.csv" 0
done

# ---- errors: exit 1, no outputs ----
mk() { rm -rf "$tmp/e" && cp -R "$tmp/clean" "$tmp/e"; }
mk
printf '[vehicle]\nname = x\n' >"$tmp/v1.ini"
expect 1 "missing key 'gross_mass_kg' in [vehicle]" "$tmp/e" -- "$S" --terrain "$tmp/e" --vehicle "$tmp/v1.ini" $T
sed 's/^gross_mass_kg = 1242/gross_mass_kg = -1242/' "$UGV" >"$tmp/v2.ini"
expect 1 "'gross_mass_kg' = -1242 is out of range" "$tmp/e" -- "$S" --terrain "$tmp/e" --vehicle "$tmp/v2.ini" $T
mk
gdal_translate -q -scale 0 255 9 9 "$tmp/clean/soil.tif" "$tmp/e/soil.tif"
expect 1 "soil class 9 is not in the table" "$tmp/e" -- "$S" --terrain "$tmp/e" --vehicle "$UGV" $T
mk
printf 'code,name,nogo\n1,water,yes\n2,forest,yes\n3,grassland,no\n' >"$tmp/lu3.csv"
expect 1 "land-use class 4 is not in the table" "$tmp/e" -- "$S" --terrain "$tmp/e" --vehicle "$UGV" --soils "$DATA/classes/soils.csv" --landuse-classes "$tmp/lu3.csv"
mk
gdalwarp -q -overwrite -tr 180 180 "$tmp/clean/slope.tif" "$tmp/e/slope.tif"
expect 1 "does not match" "$tmp/e" -- "$S" --terrain "$tmp/e" --vehicle "$UGV" $T
# a layer without a cell of data (issue 15: refused as trv-terrain and
# trv-krige refuse theirs, not an all-NOGO map)
mk
gdal_translate -q -scale 0 90 -9999 -9999 "$tmp/clean/slope.tif" "$tmp/e/slope.tif"
expect 1 "'$tmp/e/slope.tif' holds only nodata" "$tmp/e" -- "$S" --terrain "$tmp/e" --vehicle "$UGV" $T
mk
gdal_translate -q -scale 0 255 0 0 "$tmp/clean/landuse.tif" "$tmp/e/landuse.tif"
expect 1 "'$tmp/e/landuse.tif' holds only nodata" "$tmp/e" -- "$S" --terrain "$tmp/e" --vehicle "$UGV" $T
mk
rm "$tmp/e/landuse.tif"
expect 1 "cannot open '$tmp/e/landuse.tif'" "$tmp/e" -- "$S" --terrain "$tmp/e" --vehicle "$UGV" $T
expect 2 "missing required option --vehicle" "" -- "$S" --terrain "$tmp/e"
# one output set: a late write that fails (the per-soil report, written
# after the layers; the summary, the last) leaves no layer, style or summary
for late in report summary; do
    mk
    rep=$tmp/e/r.csv
    if [ $late = report ]; then rep=$tmp/e/none/r.csv; else mkdir "$tmp/e/speed.json"; fi
    "$S" --terrain "$tmp/e" --vehicle "$UGV" $T --report "$rep" >/dev/null 2>"$tmp/stderr"
    rc=$?
    left=$(cd "$tmp/e" && ls -A | grep -v '^speed.json$' | grep -vxF "$(cd "$tmp/clean" && ls -A)")
    [ $rc = 1 ] && [ -z "$left" ] && ok || bad "a failing $late (exit $rc: $(cat "$tmp/stderr")) left: $left"
done

summary
