#!/bin/sh
# trv-terrain's slope in the DEM's linear unit (docs/method.md §1.8: cell
# sizes are map units x metres per unit; elevations are metres, as
# trv-terrain's --dem says). The same Jacksboro DEM (90 m cells):
#   - in UTM 16N metres, against gdaldem slope -compute_edges;
#   - in UTM 16N US survey feet (the same array, the corner coordinates
#     divided by 1200/3937 m per ftUS): cell for cell equal to the metre
#     result, and against gdaldem -s 0.3048006096 (metres per ftUS: gdaldem's
#     -s is the horizontal unit in vertical units);
#   - in Tennessee State Plane, US survey feet (EPSG:2274, warped to
#     300 ftUS cells): against gdaldem -s 0.3048006096;
#   - in lon/lat (its own CRS): refused with the message that says how to
#     reproject, and no output written.
# Ends with "N passed, N failed, N skipped".
set -u
BIN=${TRV_BIN:-bin}
DATA=${TRV_DATADIR:-data}
tmp=$(mktemp -d /tmp/trv-slope-units-test-XXXXXX)
trap 'rm -rf "$tmp"' EXIT
. "$(dirname "$0")/lib.sh"
FT=0.3048006096012192 # metres per US survey foot, 1200/3937
DEM=$DATA/jacksboro/dem_3arcsec.tif

terrain() { # dem outdir
    "$BIN/trv-terrain" -q --dem "$1" --soil "$DATA/jacksboro/soil_7p5arcsec.tif" \
        --landuse "$DATA/jacksboro/landuse_30m_utm16n.tif" -o "$2" 2>"$tmp/err"
}
# max |a - b| over the cells where both have data; the nodata cells must be
# the same (-9999 in both: trv-terrain's slope nodata and gdaldem's default)
compare() { # label a.tif b.tif tolerance_deg min_cells
    gdal_translate -q -of XYZ "$2" "$tmp/a.xyz" && gdal_translate -q -of XYZ "$3" "$tmp/b.xyz" || { bad "$1: cannot read"; return; }
    r=$(paste -d' ' "$tmp/a.xyz" "$tmp/b.xyz" | awk -v tol="$4" -v min="$5" '
        $1 != $4 || $2 != $5 { print "grids differ at line " NR; bad = 1; exit }
        ($3 == -9999) != ($6 == -9999) { nd++; next }
        $3 == -9999 { next }
        { n++; d = $3 - $6; if (d < 0) d = -d; if (d > max) max = d }
        END { if (bad) exit 1
              printf "%d cells, max |diff| %.2e deg, %d nodata mismatches", n, max, nd
              exit !(nd == 0 && n >= min && max <= tol) }')
    st=$?
    echo "  $1: $r"
    [ $st = 0 ] && ok || bad "$1: $r (tolerance $4 deg, at least $5 cells)"
}

if ! gdalsrsinfo EPSG:2274 >/dev/null 2>&1; then
    skip "this PROJ database lacks EPSG:2274 (NAD83 / Tennessee ftUS): slope units not checked"
    summary tool_slope_units
    exit
fi

# ---- metres ----
gdalwarp -q -t_srs EPSG:32616 -tr 90 90 -tap -r bilinear -ot Float32 -dstnodata -32768 "$DEM" "$tmp/dem_m.tif"
if terrain "$tmp/dem_m.tif" "$tmp/m"; then ok; else bad "metre DEM: $(cat "$tmp/err")"; fi
gdaldem slope -q -compute_edges "$tmp/dem_m.tif" "$tmp/g_m.tif"
# measured 4.9e-5 deg (float32 rounding in the two programs): tolerance 5e-4
compare "metres vs gdaldem" "$tmp/m/slope.tif" "$tmp/g_m.tif" 0.0005 100000

# ---- the same array in UTM 16N US survey feet ----
set -- $(gdalinfo "$tmp/dem_m.tif" | awk -v f=$FT '
    /^Origin/ { gsub(/[(),]/, " "); x0 = $3; y0 = $4 }
    /^Pixel Size/ { gsub(/[(),]/, " "); dx = $4; dy = $5 }
    /^Size is/ { gsub(/,/, " "); nx = $3; ny = $4 }
    END { printf "%.10f %.10f %.10f %.10f\n", x0 / f, y0 / f, (x0 + nx * dx) / f, (y0 + ny * dy) / f }')
gdal_translate -q -a_srs "+proj=utm +zone=16 +datum=WGS84 +units=us-ft +no_defs" -a_ullr "$1" "$2" "$3" "$4" \
    "$tmp/dem_m.tif" "$tmp/dem_ft.tif"
gdalinfo "$tmp/dem_ft.tif" | grep -q 'LENGTHUNIT\["US survey foot",0.304800609601219' && ok || bad "the ftUS DEM's CRS unit: $(gdalinfo "$tmp/dem_ft.tif" | grep LENGTHUNIT | head -1)"
if terrain "$tmp/dem_ft.tif" "$tmp/ft"; then ok; else bad "ftUS DEM: $(cat "$tmp/err")"; fi
gdaldem slope -q -compute_edges -s $FT "$tmp/dem_ft.tif" "$tmp/g_ft.tif"
# the grids differ in units only, so compare the values, not the coordinates
gdal_translate -q -a_ullr "$1" "$2" "$3" "$4" "$tmp/m/slope.tif" "$tmp/slope_m_as_ft.tif"
# measured 0 (the cell sizes in metres agree to rounding): tolerance 1e-5
# deg, a few float32 steps at 30 deg
compare "ftUS vs metres, cell for cell" "$tmp/ft/slope.tif" "$tmp/slope_m_as_ft.tif" 0.00001 100000
# measured 4.9e-5 deg: tolerance 5e-4
compare "ftUS vs gdaldem -s $FT" "$tmp/ft/slope.tif" "$tmp/g_ft.tif" 0.0005 100000

# ---- Tennessee State Plane, US survey feet ----
gdalwarp -q -t_srs EPSG:2274 -tr 300 300 -tap -r bilinear -ot Float32 -dstnodata -32768 "$DEM" "$tmp/dem_sp.tif"
if terrain "$tmp/dem_sp.tif" "$tmp/sp"; then ok; else bad "State Plane DEM: $(cat "$tmp/err")"; fi
gdaldem slope -q -compute_edges -s $FT "$tmp/dem_sp.tif" "$tmp/g_sp.tif"
# measured 5.2e-5 deg: tolerance 5e-4
compare "State Plane ftUS vs gdaldem -s $FT" "$tmp/sp/slope.tif" "$tmp/g_sp.tif" 0.0005 100000

# ---- lon/lat: refused ----
"$BIN/trv-terrain" -q --dem "$DEM" --soil "$DATA/jacksboro/soil_7p5arcsec.tif" \
    --landuse "$DATA/jacksboro/landuse_30m_utm16n.tif" -o "$tmp/ll" >"$tmp/out" 2>"$tmp/err"
st=$?
[ $st = 1 ] && ok || bad "lon/lat DEM: exit $st, want 1"
grep -qF "'$DEM' is in a geographic CRS (degrees) and slope needs metres: reproject it first (trv-krige, or gdalwarp -t_srs EPSG:32616)" "$tmp/err" \
    && ok || bad "lon/lat DEM: message $(cat "$tmp/err")"
[ ! -e "$tmp/ll/slope.tif" ] && [ ! -e "$tmp/ll/dem.tif" ] && ok || bad "lon/lat DEM: outputs written"

summary tool_slope_units
