#!/bin/sh
# trv-speed end to end on a 90 m Jacksboro terrain: outputs, styling, the
# report, speed.json and every cell's speed, GO/NOGO reason and binding
# limit (limit.tif) against an independent model of every speed limit
# computed here from the vehicle file and the class tables (the UGV, the
# tracked carrier, both without shear data, and a land-use table where
# vegetation and braking bind), the run directory's copies of the inputs
# (and given back as inputs), determinism, and every error path. Ends with
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
! grep -q 'traction check skipped' "$tmp/out" && ok || bad "traction reported skipped with shear data in the soil table"
H=code,name,ci_kPa,mode,sinkage_m,resistance_per_tyre_kN,resistance_total_kN,thrust_kN
for g in flat grade10; do
    [ $g = grade10 ] && H=$H,${g}_direction
    H=$H,${g}_pull_kN,${g}_slip,${g}_top_kmh,${g}_power_kmh,${g}_traction_kmh,${g}_ride_kmh,${g}_vegetation_kmh,${g}_braking_kmh,${g}_speed_kmh,${g}_limit
done
[ "$(head -1 "$tmp/rep.csv")" = "landuse_code,landuse,$H,pass" ] && ok || bad "report header: $(head -1 "$tmp/rep.csv")"
[ "$(wc -l <"$tmp/rep.csv")" = 17 ] && ok || bad "report rows: $(wc -l <"$tmp/rep.csv"), want 4 land uses x 4 soils + 1"
grep -q '^3,grassland,1,sandy loam,223.40,rigid,.*,NOGO: soil strength (CI < VCI1),no$' "$tmp/rep.csv" && ok || bad "sandy loam row: $(grep '^3,grassland,1,' "$tmp/rep.csv")"
info=$(gdalinfo "$tmp/t/gonogo.tif")
echo "$info" | grep -q '2: NOGO: soil strength (CI < VCI1)' && ok || bad "gonogo category names"
echo "$info" | grep -q 'Color Table' && ok || bad "gonogo colour table"
gdalinfo "$tmp/t/speed.tif" | grep -q 'Unit Type: km/h' && ok || bad "speed unit"
# limit.tif: Byte, its band description, the seven names in order, a
# colour table, no nodata value (0 is NOGO and shows)
info=$(gdalinfo "$tmp/t/limit.tif")
names=$(echo "$info" | sed -n '/Categories:/,/Color Table/p' | sed -n 's/^ *\([0-9]*\): \(.*\)$/\1=\2/p' | tr '\n' '|')
[ "$names" = "0=NOGO|1=top speed|2=power|3=traction|4=ride|5=vegetation|6=visibility/braking|" ] && ok || bad "limit.tif names: $names"
echo "$info" | grep -q 'Type=Byte, ColorInterp=Palette' && echo "$info" | grep -q 'Color Table' && ok || bad "limit.tif colour table"
echo "$info" | grep -q 'Description = binding speed limit' && ok || bad "limit.tif band description"
! echo "$info" | grep -q 'NoData Value' && ok || bad "limit.tif declares a nodata value"
# the copies of the model's inputs, byte for byte
cmp -s "$tmp/t/speed_vehicle.ini" "$UGV" && cmp -s "$tmp/t/speed_soils.csv" "$DATA/classes/soils.csv" &&
    cmp -s "$tmp/t/speed_landuse.csv" "$DATA/classes/landuse.csv" && ok || bad "the run directory's copies differ from the inputs"
# ---- the independent model ----
# From the vehicle file and the class tables alone (docs/method.md §2.2,
# §2.4-2.6, §2.10), in awk, never from the tool's report or the library.
# Contact (units kN, kPa, m):
#   W = gross_mass_kg * 9.80665 / 1000 (kN); k = kc / b + kphi.
#   Rigid wheel: the load along the arc x^2 = D (z0 - z) is
#     W_t = b int_0^sqrt(D z0) k (z0 - x^2/D)^n dx; with x = sqrt(D z0) sin t
#     this is b k sqrt(D) z0^(n+1/2) J, J = int_0^(pi/2) cos^(2n+1) t dt
#     (Simpson, 20 000 intervals), so z0 = (W_t / (b k sqrt(D) J))^(2/(2n+1)).
#     p_gcr = k z0^n; rigid when p_i + p_c > p_gcr, else elastic:
#     z0 = ((p_i + p_c) / k)^(1/n). Per tyre R_c = b k z0^(n+1) / (n+1),
#     R = tyres R_c; contact length l = sqrt(D z0) (rigid), W_t / (b (p_i +
#     p_c)) (elastic).
#   Tracks: p = W / (2 b L), z0 = (p / k)^(1/n), R = 2 b k z0^(n+1) / (n+1), l = L.
#   Thrust at full slip (soils with c_kPa, phi_deg, K_m): per contact
#     H = (A c + W_c tan phi)(1 - K/l (1 - e^(-l/K))), A = b l (tyre) or 2 b L.
# The speed in one direction at grade beta (> 0 uphill), SI (N, m/s):
#   pull F = 1000 R + f W cos(beta) + veg_resistance W + W sin(beta)
#   hold H = 1000 H_thrust, or m a (the brakes) without shear data
#   NOGO this way when F > H (uphill, with shear data) or -F > H (downhill)
#   top   top_speed_kmh / 3.6
#   power eta P (1 - i) / F for F > 0, the slip i solving
#         g(i L/K) = (F / H) g(L/K), g(x) = 1 - (1 - e^-x) / x, by bisection
#         (0 without shear data); called traction when i > 0.2
#   ride  a_lim^2 / (sigma^2 / v) with the quarter car's closed form at w = 2,
#         sigma^2 / v = pi^2 n0^2 G_d (c^2 kt + k^2 (ms + mu)) / (c ms^2);
#         at w != 2 (a_lim^2 / (G_d n0^w I_w))^(1/(w-1)), I_w = int |H_a|^2
#         f^-w df integrated here (Simpson in ln f, 1e-5..1e5 Hz, 40 000
#         intervals; another grid than the library's), |H_a|^2 from the
#         equations of motion: kt^2 w^4 (c^2 w^2 + k^2) / |D(i w)|^2,
#         D = ms mu w^4 - (k (ms + mu) + kt ms) w^2 + k kt + i (c kt w - c (ms + mu) w^3);
#         the same integral at w = 2 must give the closed form (checked)
#   vegetation min(vmax_kmh / 3.6, (s^2 / B) / (2 sqrt((B / 2) / a_y))), 0 when s <= B
#   braking  a' (-t_r + sqrt(t_r^2 + 2 d / a')), a' = min(a, (H + F) / m), d the visibility
#   the speed: the smallest, ties to the lower code (1 top .. 6 braking).
# The cell (tm_row): reason 5 nodata; 1 slope > min(pitch, roll); 2 CI <
# VCI1; 3 land use NOGO (nogo_types by the vehicle's kind where the column
# exists, else nogo); 4 when up (+slope) or down (-slope) is NOGO; else GO
# with speed.tif = the slower direction (up on a tie) in km/h and limit.tif
# its binding limit (0 where NOGO). Vehicle defaults (docs/method.md
# §2.10.6): f 0.015 wheeled / 0.03 tracked, t_r 2.5 s, a 3.4, a_y 2.0,
# corners tyres / road wheels, unsprung 0.1 of a corner's mass, sprung the
# rest, spring sprung (2 pi 1.2)^2, damper 0.6 sqrt(spring sprung), tyre 10
# spring, a_lim 2.0; width_m 2.0 wheeled / 2.5 tracked.
#   VCI: the file's overrides, else NRMM (tracked only here, §2.2:
#     MI = (CPF WF / (TrF GF) + BF - CF) EF XF in lb and in).
# what=report reads the tool's report CSV and prints one line per mismatch;
# what=cells reads "slope soil landuse speed gonogo limit" per cell (the six
# rasters' XYZ columns) and prints the mismatches and a summary line.
cat >"$tmp/model.awk" <<'EOF'
function trim(s) { sub(/[ \t]*#.*/, "", s); gsub(/^[ \t]+|[ \t]+$/, "", s); return s }
function abs(x) { return x < 0 ? -x : x }
function min(a, b) { return a < b ? a : b }
# report values printed with %.6f and %.3f: tolerance half the last printed
# digit plus 20 %
function d6(r, what, got, want) {
    if (abs(got - want) > max6) max6 = abs(got - want)
    if (got == "" || abs(got - want) > 6e-7) printf "row %s: %s %s, want %.9f\n", r, what, got, want
}
function d3(r, what, got, want) {
    if (want >= INF) { if (got != "") printf "row %s: %s %s, want none\n", r, what, got; return }
    if (abs(got - want) > max3) max3 = abs(got - want)
    if (got == "" || abs(got - want) > 6e-4) printf "row %s: %s '%s', want %.6f\n", r, what, got, want
}
function num(x, dflt) { return x == "" ? dflt : x + 0 }
function g(x) { return x < 1e-4 ? x / 2 - x * x / 6 : 1 - (1 - exp(-x)) / x }
function slip_for(ratio, kl,   want, lo, hi, mid, it) {
    want = ratio * g(1 / kl); lo = 0; hi = 1
    for (it = 0; it < 200 && hi - lo > 1e-15; it++) { mid = (lo + hi) / 2; if (g(mid / kl) < want) lo = mid; else hi = mid }
    return (lo + hi) / 2
}
function gain2(f,   w, re, im) {
    w = 2 * PI * f
    re = MS * MU * w ^ 4 - (KS * (MS + MU) + KT * MS) * w ^ 2 + KS * KT
    im = CD * KT * w - CD * (MS + MU) * w ^ 3
    return KT * KT * w ^ 4 * (CD * CD * w * w + KS * KS) / (re * re + im * im)
}
function ride_integral(wv,   n, a, b, h, i, f, s) {
    n = 40000; a = log(1e-5); b = log(1e5); h = (b - a) / n; s = 0
    for (i = 0; i <= n; i++) { f = exp(a + i * h); s += (i == 0 || i == n ? 1 : i % 2 ? 4 : 2) * gain2(f) * f ^ (1 - wv) }
    return s * h / 3
}
function ride_speed(gd, wv,   per) {
    if (!(gd > 0)) return INF
    if (wv == 2) return ALIM * ALIM / (PI * PI * 0.01 * gd * (CD * CD * KT + KS * KS * (MS + MU)) / (CD * MS * MS))
    return (ALIM * ALIM / (gd * 0.1 ^ wv * ride_integral(wv))) ^ (1 / (wv - 1))
}
function vis_speed(d, a) { if (!(d > 0) || !(a > 0)) return 0; if (d >= INF) return INF; return a * (-TR + sqrt(TR * TR + 2 * d / a)) }
# one direction: sets SV (m/s), SL (limit code), SP (pull N), SS (slip), LM[1..6]
function speed_at(c, u, beta,   k, vp, dec, code, ok) {
    SP = RSN[c] + FR * WN * cos(beta) + VEG[u] * WN + WN * sin(beta); SS = 0
    for (k = 1; k <= 6; k++) LM[k] = INF
    if (SP > 0 ? (SHEAR[c] && SP > HOLD[c]) : (-SP > HOLD[c])) { SV = 0; SL = 0; return }
    LM[1] = top / 3.6
    if (SP > 0) {
        if (SHEAR[c]) SS = slip_for(SP / HOLD[c], KL[c])
        LM[SS > 0.2 ? 3 : 2] = eta * P * 1000 * (1 - SS) / SP
    }
    LM[4] = RIDE[u]; LM[5] = VEGV[u]
    dec = min(DEC, (HOLD[c] + SP) / MASS); LM[6] = vis_speed(VIS[u], dec)
    SV = LM[1]; SL = 1
    for (k = 2; k <= 6; k++) if (LM[k] < SV) { SV = LM[k]; SL = k }
}
# the cell: sets CR (reason), CV (km/h), CL (limit), CD_ (1 downhill), and
# the chosen direction's SP, SS, LM; OKL: the limits within 1e-9 of the
# binding one in a direction within 1e-9 of the chosen (ties), as " k "
function cell(s, c, u,   b, upv, upl, dnv, dnl, k, keep, upm, dnm) {
    CR = 0; CV = 0; CL = 0; CD_ = 0; OKL = ""
    b = s * PI / 180
    speed_at(c, u, -b); dnv = SV; dnl = SL; dnm = ""; for (k = 1; k <= 6; k++) if (LM[k] <= SV * (1 + 1e-9)) dnm = dnm " " k " "
    speed_at(c, u, b); upv = SV; upl = SL; upm = ""; for (k = 1; k <= 6; k++) if (LM[k] <= SV * (1 + 1e-9)) upm = upm " " k " "
    if (!(upv <= dnv)) { CD_ = 1; speed_at(c, u, -b) }
    if (s == -9999 || c == 0 || u == 0) CR = 5
    else if (s > lim) CR = 1
    else if (CI[c] < vci1) CR = 2
    else if (NOGO[u]) CR = 3
    else if (upl == 0 || dnl == 0) CR = 4
    if (CR == 0) {
        CV = (CD_ ? dnv : upv) * 3.6; CL = CD_ ? dnl : upl
        OKL = CD_ ? dnm : upm
        if (abs(upv - dnv) <= 1e-9 * upv) OKL = upm dnm
    }
}
BEGIN {
    PI = atan2(0, -1); INF = 1e300; sec = ""
    split("NOGO|top speed|power|traction|ride|vegetation|visibility/braking", LN, "|")
    split("GO|NOGO: slope|NOGO: soil strength (CI < VCI1)|NOGO: land use|NOGO: traction|no data", RN, "|")
    while ((getline line < veh) > 0) {
        line = trim(line)
        if (line == "") continue
        if (line ~ /^\[/) { sec = line; continue }
        if (sec != "[vehicle]" && sec != "[suspension]" && sec != "[body]") continue
        k = line; sub(/[ \t]*=.*/, "", k); v = line; sub(/^[^=]*=[ \t]*/, "", v); V[k] = v ~ /^[-+]?[0-9.]+([eE][-+]?[0-9]+)?$/ ? v + 0 : v
    }
    tracked = V["type"] == "tracked"
    W = V["gross_mass_kg"] * 9.80665 / 1000; MASS = V["gross_mass_kg"]; WN = MASS * 9.80665
    eta = ("drivetrain_efficiency" in V) ? V["drivetrain_efficiency"] : 1
    P = V["engine_power_kW"]; top = V["top_speed_kmh"]
    lim = V["max_pitch_deg"] < V["max_roll_deg"] ? V["max_pitch_deg"] : V["max_roll_deg"]
    FR = num(V["rolling_resistance_coeff"], tracked ? 0.03 : 0.015); TR = num(V["reaction_time_s"], 2.5)
    DEC = num(V["deceleration_ms2"], 3.4); AY = num(V["lateral_accel_ms2"], 2.0); BW = num(V["width_m"], tracked ? 2.5 : 2.0)
    corner = MASS / (tracked ? V["road_wheels"] : V["tyres"])
    MU = num(V["unsprung_mass_kg"], 0.1 * corner); MS = num(V["sprung_mass_kg"], corner - MU)
    KS = num(V["spring_N_per_m"], MS * (2 * PI * 1.2) ^ 2); CD = num(V["damper_Ns_per_m"], 0.6 * sqrt(KS * MS))
    KT = num(V["tyre_stiffness_N_per_m"], 10 * KS); ALIM = num(V["ride_limit_rms_ms2"], 2.0)
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
    # the ride integral against the closed form at w = 2 (1e-7 relative)
    if (what == "cells") {
        r2 = ALIM * ALIM / (0.01 * ride_integral(2)); ALIM2 = ride_speed(1, 2)
        if (abs(r2 - ALIM2) > 1e-7 * ALIM2) printf "ride integral at w = 2: %.12g m/s, the closed form %.12g\n", r2, ALIM2
    }
    # land-use table: code -> NOGO and the limits
    FS = ","
    getline line < lu; nh = split(line, h, ","); for (i = 1; i <= nh; i++) LC[h[i]] = i
    kind = tracked ? "tracked" : "wheeled"
    while ((getline line < lu) > 0) {
        split(line, f, ","); u = f[LC["code"]] + 0
        if ("nogo_types" in LC) { nt = split(f[LC["nogo_types"]], t, ";"); NOGO[u] = 0; for (i = 1; i <= nt; i++) if (t[i] == kind) NOGO[u] = 1 }
        else NOGO[u] = f[LC["nogo"]] == "yes"
        gd = ("roughness_gd0_m3" in LC) ? num(f[LC["roughness_gd0_m3"]], 0) : 0
        wv = ("roughness_w" in LC) ? num(f[LC["roughness_w"]], 2) : 2
        RIDE[u] = ride_speed(gd, wv)
        vm = ("vmax_kmh" in LC) ? num(f[LC["vmax_kmh"]], INF) : INF; VEGV[u] = vm < INF ? vm / 3.6 : INF
        st = ("stem_spacing_m" in LC) ? num(f[LC["stem_spacing_m"]], INF) : INF
        if (st < INF) VEGV[u] = min(VEGV[u], st <= BW ? 0 : (st * st / BW) / (2 * sqrt(BW / 2 / AY)))
        VIS[u] = ("visibility_m" in LC) ? num(f[LC["visibility_m"]], INF) : INF
        VEG[u] = ("veg_resistance" in LC) ? num(f[LC["veg_resistance"]], 0) : 0
    }
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
        SHEAR[c] = shear; RSN[c] = 1000 * R[c]; HOLD[c] = MASS * DEC
        if (shear) {
            K = f[SC["K_m"]]
            H[c] = units * (A * f[SC["c_kPa"]] + wc * sin(f[SC["phi_deg"]] * PI / 180) / cos(f[SC["phi_deg"]] * PI / 180)) * (1 - K / l * (1 - exp(-l / K)))
            HOLD[c] = 1000 * H[c]; KL[c] = K / l
        }
        PASS[c] = CI[c] >= vci50 ? "easy" : CI[c] >= vci1 ? "difficult" : "no"
    }
    if (what == "report") FS = ","; else FS = " "
    if (what == "vci") { printf "MI %.2f; VCI1 %.2f RCI = %.1f kPa; VCI50 %.2f RCI = %.1f kPa\n", MI, vci1_rci, vci1, vci50_rci, vci50; exit 0 }
}
# one grade of a report row from column i on: [direction,] pull, slip, six limits, speed, limit
function grade(r, i, s, c, u, label, dir,   k) {
    cell(s, c, u)
    if (dir) { if ($i != (CD_ ? "down" : "up")) printf "row %s: %s direction %s, want %s\n", r, label, $i, CD_ ? "down" : "up"; i++ }
    d6(r, label " pull (kN)", $i, SP / 1000); d6(r, label " slip", $(i + 1), SS)
    for (k = 1; k <= 6; k++) d3(r, label " " LN[k + 1] " (km/h)", $(i + 1 + k), LM[k] < INF ? LM[k] * 3.6 : INF)
    d3(r, label " speed (km/h)", $(i + 8), CV)
    want = CR ? RN[CR + 1] : LN[CL + 1]
    if ($(i + 9) != want && !(CR == 0 && index(OKL, " " (LN_CODE[$(i + 9)]) " ")))
        printf "row %s: %s limit '%s', want '%s'\n", r, label, $(i + 9), want
    return i + 10
}
# report rows: landuse_code,landuse,code,name,ci_kPa,mode,sinkage_m,resistance_per_tyre_kN,
# resistance_total_kN,thrust_kN, flat_{pull_kN,slip,top,power,traction,ride,vegetation,braking,speed,limit},
# grade10_{direction,pull_kN,...,limit},pass
what == "report" && FNR == 1 { for (k = 1; k <= 7; k++) LN_CODE[LN[k]] = k - 1 }
what == "report" && FNR > 1 {
    u = $1 + 0; c = $3 + 0; rows++; r = u "/" c; SEEN[r] = 1
    if (!(c in MODE) || !(u in NOGO)) { print "report row for unknown land use / soil " r; next }
    if ($6 != MODE[c]) print "row " r ": mode " $6 ", want " MODE[c]
    d6(r, "sinkage (m)", $7, Z[c]); d6(r, "resistance per tyre (kN)", $8, RP[c]); d6(r, "resistance (kN)", $9, R[c])
    if (shear) d6(r, "thrust (kN)", $10, H[c]); else if ($10 != "") print "row " r ": thrust '" $10 "', want none"
    i = grade(r, 11, 0, c, u, "flat", 0)
    i = grade(r, i, 10, c, u, "10 deg", 1)
    if ($i != PASS[c]) print "row " r ": class " $i ", want " PASS[c]
}
what == "report" { next }
# cells: the slope value is the exact float the tool read; speed.tif is
# float32, so the tolerance is 1e-6 relative (measured below 6e-8)
what == "cells" {
    s = $1; c = $2 + 0; u = $3 + 0; v = $4; gg = $5 + 0; gl = $6 + 0; cells++
    if (s == -9999 || c == 0 || u == 0) { CR = 5; CV = 0; CL = 0 } else cell(s, c, u)
    N[CR]++; NL[CL]++
    if (gg != CR) { bad++; if (bad <= 5) printf "cell %d: reason %d, want %d (slope %s, soil %d, land use %d)\n", NR, gg, CR, s, c, u }
    d = abs(v - CV) / (CV > 0 ? CV : 1)
    if (d > maxd) maxd = d
    if (d > 1e-6) { bad++; if (bad <= 5) printf "cell %d: speed %s km/h, want %.6f (slope %s, soil %d, land use %d)\n", NR, v, CV, s, c, u }
    if (gl != CL && !(CR == 0 && index(OKL, " " gl " "))) { bad++; if (bad <= 5) printf "cell %d: limit %d, want %d (slope %s, soil %d, land use %d)\n", NR, gl, CL, s, c, u }
    if (gl != CL) ties++
    if (CR == 0 && CV < top) slow++
}
END {
    if (what == "report") {
        nw = 0; for (u in NOGO) for (c in MODE) { nw++; if (!((u "/" c) in SEEN)) print "no report row for land use / soil " u "/" c }
        if (rows != nw) print "report has " rows " rows, the tables " nw " land use x soil classes"
        printf "summary: %d rows, max |difference| %.1e in the %%.6f columns, %.1e km/h in the speeds\n", rows, max6, max3
    }
    if (what == "cells")
        printf "summary: %d cells, reasons 0-5: %d %d %d %d %d %d, limits 0-6: %d %d %d %d %d %d %d, %d GO below the top speed, %d limit ties, max relative speed difference %.2e\n", cells, N[0], N[1], N[2], N[3], N[4], N[5], NL[0], NL[1], NL[2], NL[3], NL[4], NL[5], NL[6], slow, ties, maxd
}
EOF
model() { # vehicle soils what [input]: the independent model
    awk -v veh="$1" -v soils="$2" -v lu="${LU:-$DATA/classes/landuse.csv}" -v what="$3" -f "$tmp/model.awk" ${4:+"$4"}
}
check_cells() { # label dir vehicle soils N
    for l in slope soil landuse speed gonogo limit; do gdal_translate -q -of XYZ "$2/$l.tif" "$tmp/$l.xyz"; done
    paste -d' ' "$tmp/slope.xyz" "$tmp/soil.xyz" "$tmp/landuse.xyz" "$tmp/speed.xyz" "$tmp/gonogo.xyz" "$tmp/limit.xyz" |
        awk '{ p = $1 "," $2 } p != $4 "," $5 || p != $7 "," $8 || p != $10 "," $11 || p != $13 "," $14 || p != $16 "," $17 { print "grids differ"; exit 1 }
            { print $3, $6, $9, $12, $15, $18 }' >"$tmp/cells"
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
# every cell (the UGV is at its 40 km/h top speed on most flat GO cells;
# ride on cultivated land, power and traction on the climbs hold it lower)
check_cells "UGV" "$tmp/t" "$UGV" "$SOILS" 1000
grep -q 'limits 0-6: [0-9]* [1-9][0-9]* [1-9][0-9]* [1-9][0-9]* [1-9][0-9]* ' "$tmp/cells.out" && ok || bad "UGV: top speed, power, traction and ride do not all bind: $(cat "$tmp/cells.out")"
# the console's shares of the GO cells by binding limit, from the model's counts
want=$(sed -n 's/.*reasons 0-5: \([0-9]*\) .*limits 0-6: \([0-9 ]*\),.*/\1 \2/p' "$tmp/cells.out" |
    awk '{ split("top speed|power|traction|ride|vegetation|visibility/braking", n, "|"); s = "binding limit over the GO cells:"
           for (k = 1; k <= 6; k++) s = s sprintf("%s %s %.1f %%", k > 1 ? "," : "", n[k], 100 * $(k + 2) / $1); print s }')
grep -qxF "$want" "$tmp/out" && ok || bad "console shares: $(grep 'binding limit' "$tmp/out"), want $want"
# the console's GO line, from the model's counts cell by cell
want=$(sed -n 's/.*reasons 0-5: \([0-9 ]*\), limits.*/\1/p' "$tmp/cells.out" |
    awk '{ d = $1 + $2 + $3 + $4 + $5; printf "GO: %.1f %% of the cells with data (%d of %d); NOGO by slope %d, soil %d, land use %d, traction %d; no data %d\n", 100 * $1 / d, $1, d, $2, $3, $4, $5, $6 }')
grep -qxF "$want" "$tmp/out" && ok || bad "console GO line: $(grep '^GO: ' "$tmp/out"), want $want"
# speed.json: its per land use x soil table against the model (in the
# report CSV's columns), its GO/NOGO counts, GO cells by limit and mean GO
# speed against the cells the model checked (GDAL's XYZ of the layers),
# the vehicle's limits against the vehicle file
python3 - "$tmp/t/speed.json" >"$tmp/classes.csv" <<'EOF' || bad "speed.json has no classes table"
import json, sys
s = json.load(open(sys.argv[1]))
soils = {r["code"]: r for r in s["soils"]}
keys = ["top speed", "power", "traction", "ride", "vegetation", "visibility/braking"]
def n(x, f):
    return "" if x is None else f % x
print("header")
for c in s["classes"]:
    r = soils[c["soil_code"]]
    row = [c["landuse_code"], c["landuse"], r["code"], r["name"], "%.2f" % r["ci_kPa"], r["mode"], "%.9f" % r["sinkage_m"],
           "%.9f" % r["resistance_per_tyre_kN"], "%.9f" % r["resistance_total_kN"], n(r["thrust_kN"], "%.9f")]
    for g in ("flat", "grade"):
        x = c[g]
        assert x["grade_deg"] == (0 if g == "flat" else 10), x
        if g == "grade":
            row.append(x["direction"])
        row += ["%.9f" % x["pull_kN"], "%.9f" % x["slip"]] + [n(x["limits_kmh"][k], "%.6f") for k in keys]
        row += ["%.6f" % x["speed_kmh"], x["binds"]]
    row.append(r["pass"])
    print(",".join(map(str, row)))
EOF
check_report "UGV speed.json" "$tmp/classes.csv" "$UGV" "$SOILS"
counts=$(sed -n 's/.*reasons 0-5: \([0-9 ]*\), limits 0-6: \([0-9 ]*\),.*/\1|\2/p' "$tmp/cells.out")
gomean=$(awk '$5 == 0 { s += $4; n++ } END { printf "%.9g", s / n }' "$tmp/cells")
limits=$(awk -F' *= *' '$1 == "max_pitch_deg" { p = $2 } $1 == "max_roll_deg" { r = $2 } $1 == "top_speed_kmh" { t = $2 }
    END { print t + 0, (p < r ? p : r) + 0 }' "$UGV")
python3 - "$tmp/t/speed.json" "$counts" "$gomean" "$limits" "$UGV" >"$tmp/check" 2>&1 <<'EOF' && ok || bad "speed.json: $(cat "$tmp/check")"
import json, sys
s = json.load(open(sys.argv[1]))
reasons, lims = sys.argv[2].split("|")
n = list(map(int, reasons.split()))
nl = list(map(int, lims.split()))
c = s["cells"]
got = [c["go"], c["nogo_slope"], c["nogo_soil"], c["nogo_landuse"], c["nogo_traction"], c["nodata"]]
assert got == n and c["all"] == sum(n) and c["with_data"] == sum(n) - n[5] and n[0] > 1000, (got, n)
assert sum(nl[1:]) == n[0], (nl, n)
names = ["top speed", "power", "traction", "ride", "vegetation", "visibility/braking"]
lg = s["limits_go"]
assert [(x["code"], x["name"], x["cells"]) for x in lg] == list(zip(range(1, 7), names, nl[1:])), (lg, nl)
assert all(abs(x["share"] - x["cells"] / n[0]) < 1e-9 for x in lg), lg
assert sum(1 for x in nl[1:] if x > 0) >= 3, nl  # top speed, power or traction, ride at least
assert abs(s["speed_go_kmh"]["mean"] - float(sys.argv[3])) < 1e-5, (s["speed_go_kmh"], sys.argv[3])
top, lim = map(float, sys.argv[4].split())
v = s["vehicle"]
assert (v["top_speed_kmh"], v["max_slope_deg"], v["kind"]) == (top, lim, "wheeled"), v
assert s["vci"]["vci1_kPa"] == 389.4 and s["vci"]["vci1_overridden"] is True and s["traction_check"] is True, s["vci"]
assert s["inputs"]["vehicle"] == sys.argv[5] and "seed" not in s, s["inputs"]
EOF
gdalinfo "$tmp/t/speed.tif" | grep -qxF "  TRV_INPUT_VEHICLE=$UGV" && ok || bad "speed.tif lacks TRV_INPUT_VEHICLE"
# determinism
cp "$tmp/t/speed.tif" "$tmp/s1.tif" && cp "$tmp/t/limit.tif" "$tmp/l1.tif" && cp "$tmp/t/speed.json" "$tmp/s1.json"
"$S" --terrain "$tmp/t" --vehicle "$UGV" $T --report "$tmp/rep.csv" >/dev/null 2>&1
cmp -s "$tmp/t/speed.tif" "$tmp/s1.tif" && cmp -s "$tmp/t/limit.tif" "$tmp/l1.tif" && ok || bad "a rerun changed speed.tif or limit.tif"
cmp -s "$tmp/t/speed.json" "$tmp/s1.json" && ok || bad "a rerun changed speed.json"
# the run directory's own copies as the inputs (rerunning with the model a
# run was made with): accepted, the copies left as they are (same inode,
# same bytes), the same maps; a copy given for another input is still an
# output that is an input
ino() { ls -i "$1" | cut -d' ' -f1; }
pixels() { gdal_translate -q -of XYZ "$1" "$tmp/px.xyz" && cksum <"$tmp/px.xyz"; }
i1=$(ino "$tmp/t/speed_vehicle.ini") i2=$(ino "$tmp/t/speed_soils.csv") i3=$(ino "$tmp/t/speed_landuse.csv")
if "$S" -q --terrain "$tmp/t" --vehicle "$tmp/t/speed_vehicle.ini" --soils "$tmp/t/speed_soils.csv" \
    --landuse-classes "$tmp/t/speed_landuse.csv" 2>"$tmp/err"; then ok; else bad "the copies as inputs: $(cat "$tmp/err")"; fi
[ "$i1 $i2 $i3" = "$(ino "$tmp/t/speed_vehicle.ini") $(ino "$tmp/t/speed_soils.csv") $(ino "$tmp/t/speed_landuse.csv")" ] &&
    cmp -s "$tmp/t/speed_vehicle.ini" "$UGV" && cmp -s "$tmp/t/speed_soils.csv" "$SOILS" &&
    cmp -s "$tmp/t/speed_landuse.csv" "$DATA/classes/landuse.csv" && ok || bad "the copies given as inputs were rewritten or changed"
[ "$(pixels "$tmp/t/speed.tif")" = "$(pixels "$tmp/s1.tif")" ] && [ "$(pixels "$tmp/t/limit.tif")" = "$(pixels "$tmp/l1.tif")" ] &&
    ok || bad "the copies as inputs gave other speed.tif or limit.tif pixels"
i2=$(ino "$tmp/t/speed_soils.csv")
if "$S" -q --terrain "$tmp/t" --vehicle "$tmp/t/speed_vehicle.ini" $T 2>"$tmp/err"; then ok; else bad "the vehicle's copy as input: $(cat "$tmp/err")"; fi
[ "$i1" = "$(ino "$tmp/t/speed_vehicle.ini")" ] && [ "$i2" != "$(ino "$tmp/t/speed_soils.csv")" ] && cmp -s "$tmp/t/speed_soils.csv" "$SOILS" &&
    ok || bad "the vehicle's copy rewritten, or the soil table's not"
cp "$tmp/t/speed_vehicle.ini" "$tmp/veh_before.ini"
expect 2 "output '$tmp/t/speed_vehicle.ini' is also an input" "" -- "$S" --terrain "$tmp/t" --vehicle "$UGV" \
    --soils "$tmp/t/speed_vehicle.ini" --landuse-classes "$DATA/classes/landuse.csv"
cmp -s "$tmp/t/speed_vehicle.ini" "$tmp/veh_before.ini" && ok || bad "a refused run changed the vehicle's copy"
# the tracked carrier: its NRMM line, its report and every cell against the
# tracked closed forms (docs/method.md §2.5; by hand in tests/test_terramech.c:
# MI 56.85, VCI1 17.74 RCI = 122.3 kPa; sandy loam z0 0.041988 m, R 1.407739 kN);
# forest is GO for it (nogo_types: wheeled): ride at w = 2, vegetation
TRK=$DATA/vehicles/tracked_carrier.ini
if "$S" --terrain "$tmp/t" --vehicle "$TRK" $T --report "$tmp/rep_t.csv" >"$tmp/out_t" 2>"$tmp/err"; then ok; else bad "tracked vehicle: $(cat "$tmp/err")"; fi
want=$(model "$TRK" "$SOILS" vci </dev/null)
grep -qF "$want (NRMM formulas)" "$tmp/out_t" && ok || bad "tracked MI/VCI line: $(grep MI "$tmp/out_t"), want $want"
grep -q '^3,grassland,1,sandy loam,223.40,track,0.041988,1.407739,1.407739,' "$tmp/rep_t.csv" && ok || bad "tracked sandy loam row: $(grep '^3,grassland,1,' "$tmp/rep_t.csv")"
check_report "tracked" "$tmp/rep_t.csv" "$TRK" "$SOILS"
check_cells "tracked" "$tmp/t" "$TRK" "$SOILS" 10000
grep -q 'limits 0-6: [0-9]* [0-9]* [0-9]* [0-9]* [1-9][0-9]* ' "$tmp/cells.out" && ok || bad "tracked: no ride-bound cell: $(cat "$tmp/cells.out")"
# a land-use table where traction, ride, vegetation and braking bind (top
# speed, power and traction bind in the runs above): forest GO for both
# kinds (stems 3.8 m apart, ride at w = 2), grassland with a 25 km/h
# ceiling, cultivated land rougher at w = 2.5 with 20 m of sight
awk -F, -v OFS=, 'NR > 1 && $2 == "forest" { $3 = "no"; $5 = "" } NR > 1 && $2 == "grassland" { $9 = 25 }
    NR > 1 && $2 == "cultivated land" { $8 = 2.5; $11 = 20 } { print }' "$DATA/classes/landuse.csv" >"$tmp/lu_all.csv"
if "$S" -q --terrain "$tmp/t" --vehicle "$UGV" --soils "$SOILS" --landuse-classes "$tmp/lu_all.csv" --report "$tmp/rep_a.csv" 2>"$tmp/err"; then ok; else bad "every limit: $(cat "$tmp/err")"; fi
LU=$tmp/lu_all.csv check_report "UGV, every limit" "$tmp/rep_a.csv" "$UGV" "$SOILS"
LU=$tmp/lu_all.csv check_cells "UGV, every limit" "$tmp/t" "$UGV" "$SOILS" 1000
grep -q 'limits 0-6: [0-9]* [0-9]* [0-9]* [1-9][0-9]* [1-9][0-9]* [1-9][0-9]* [1-9][0-9]*,' "$tmp/cells.out" && ok || bad "every limit: traction, ride, vegetation and braking do not all bind: $(cat "$tmp/cells.out")"
# without shear data (the soil table's c_kPa, phi_deg, K_m left out): no
# traction limit, the brakes (m a) hold the vehicle downhill, reason 4 where
# they cannot
cut -d, -f1-6 "$SOILS" >"$tmp/noshear.csv"
for veh in "$UGV" "$TRK"; do
    name=$(basename "$veh" .ini)
    if "$S" --terrain "$tmp/t" --vehicle "$veh" --soils "$tmp/noshear.csv" --landuse-classes "$DATA/classes/landuse.csv" --report "$tmp/rep_s.csv" >"$tmp/out_s" 2>"$tmp/err"; then ok; else bad "$name without shear data: $(cat "$tmp/err")"; fi
    grep -q 'traction check skipped' "$tmp/out_s" && ok || bad "$name: skipped traction not reported"
    check_report "$name, no shear data" "$tmp/rep_s.csv" "$veh" "$tmp/noshear.csv"
    check_cells "$name, no shear data" "$tmp/t" "$veh" "$tmp/noshear.csv" 0
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
# one output set: a write that fails leaves no layer, style or summary:
# the per-soil report into a missing folder (found before any work, its
# folder named) and the summary, the last output put in place
for late in report summary; do
    mk
    rep=$tmp/e/r.csv
    if [ $late = report ]; then rep=$tmp/e/none/r.csv; else mkdir "$tmp/e/speed.json"; fi
    "$S" --terrain "$tmp/e" --vehicle "$UGV" $T --report "$rep" >/dev/null 2>"$tmp/stderr"
    rc=$?
    left=$(cd "$tmp/e" && ls -A | grep -v '^speed.json$' | grep -vxF "$(cd "$tmp/clean" && ls -A)")
    why="the folder '$tmp/e/none' does not exist"
    [ $late = report ] || why=""
    [ $rc = 1 ] && [ -z "$left" ] && grep -qF -- "$why" "$tmp/stderr" && ok ||
        bad "a failing $late (exit $rc: $(cat "$tmp/stderr")) left: $left"
done

summary
