#!/bin/sh
# The QGIS Processing provider (qgis/traverse) in a headless QGIS, with
# python3-qgis: tests/qgis_provider_check.py runs every algorithm on a small
# piece of Jacksboro (12 x 13 km, kriged to 120 m) against the command line,
# the pipeline model, errors, progress, cancellation and styles; then
# `make install-qgis` into a scratch profile, and the installed copy.
# Without python3-qgis it says SKIPPED. Ends with "N passed, N failed, N skipped".
set -u
. "$(dirname "$0")/lib.sh"
BIN=$(cd "${TRV_BIN:-bin}" && pwd)
DATA=$(cd "${TRV_DATADIR:-data}" && pwd)
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(dirname "$HERE")

# TRV_QGIS_PYTHON: the python to use (default: the system's, where Debian's
# python3-qgis lives, then python3 on the PATH); "none" skips
PY=""
for p in ${TRV_QGIS_PYTHON:-/usr/bin/python3 python3}; do
    [ "$p" = none ] && break
    if QT_QPA_PLATFORM=offscreen "$p" -c "import qgis.core" >/dev/null 2>&1; then
        PY=$p
        break
    fi
done
if [ -z "$PY" ]; then
    # make test does not install python3-qgis (~620 MB): a skip there; make
    # check-qgis-provider does, and adds it to TRV_TEST_PKGS (a failure under CI=true)
    if [ "${TRV_QGIS_PYTHON:-}" = none ]; then
        skip "the QGIS Processing provider: TRV_QGIS_PYTHON=none"
    else
        skip_pkg python3-qgis "python3-qgis is not installed, so the QGIS Processing provider was not tested (make check-qgis-provider installs it and runs this)"
    fi
    summary tool_qgis_provider
    exit
fi

tmp=$(mktemp -d /tmp/trv-qgis-provider-XXXXXX)
trap 'rm -rf "$tmp"' EXIT
export QT_QPA_PLATFORM=offscreen XDG_RUNTIME_DIR=$tmp HOME=$tmp/home PYTHONDONTWRITEBYTECODE=1
mkdir -p "$HOME" "$tmp/in" "$tmp/work" "$tmp/work2"

# the inputs: a piece of the lon/lat DEM; points in lon/lat for trv-krige's
# CSV input; a few cells for the rules; a 10 m DEM big enough to be caught
# writing (the cancellation check)
gdal_translate -q -projwin -84.34 36.68 -84.20 36.56 "$DATA/jacksboro/dem_3arcsec.tif" "$tmp/in/dem.tif" &&
    gdal_translate -q -of XYZ -outsize 24 24 "$tmp/in/dem.tif" "$tmp/in/pts.xyz" &&
    gdalwarp -q -t_srs EPSG:32616 -tr 10 10 -te 735000 4045000 755000 4065000 -r bilinear -ot Float32 \
        -dstnodata -32768 "$DATA/jacksboro/dem_3arcsec.tif" "$tmp/in/dem10.tif" ||
    { echo "cannot make the inputs"; exit 1; }
awk 'BEGIN { print "x,y,z" } { print $1 "," $2 "," $3 }' "$tmp/in/pts.xyz" >"$tmp/in/pts.csv"
# the demo drive, 6 s long (the cancellation check)
sed "s|^file = .*|file = $DATA/vehicles/ugv_hua2022.ini|; s|^time_limit_s = .*|time_limit_s = 6|" \
    "$DATA/scenarios/demo.ini" >"$tmp/in/short.ini"
cat >"$tmp/in/eval.csv" <<'EOF'
slope,elevation,ci,speed
2,250,650,35
9,420,480,18
14,580,300,8
30,1000,1200,40
EOF

t0=$(date +%s)
if "$PY" "$HERE/qgis_provider_check.py" "$BIN" "$DATA" "$tmp/in" "$tmp/work" >"$tmp/check.out" 2>"$tmp/check.err"; then
    ok
else
    bad "qgis_provider_check.py:"
    grep -v '^PASS' "$tmp/check.out" | head -40
    grep -v 'XDG_RUNTIME\|^$' "$tmp/check.err" | tail -20
fi
echo "qgis provider check: $(grep -c '^PASS' "$tmp/check.out") checks passed in $(($(date +%s) - t0)) s" \
    "(QGIS $("$PY" -c 'from qgis.core import Qgis; print(Qgis.QGIS_VERSION)' 2>/dev/null))"
grep '^algorithms\|^pipeline' "$tmp/check.out"

# make install-qgis: the plugin's files, and nothing else, in the profile
P=$tmp/profile
if make -C "$ROOT" --no-print-directory install-qgis QGIS_PROFILE_DIR="$P" >"$tmp/install.out" 2>&1; then ok; else bad "make install-qgis: $(cat "$tmp/install.out")"; fi
D=$P/python/plugins/traverse
(cd "$ROOT/qgis/traverse" && find . -name __pycache__ -prune -o -type f -print | sort) >"$tmp/want.lst"
(cd "$D" 2>/dev/null && find . -type f -print | sort) >"$tmp/got.lst"
cmp -s "$tmp/want.lst" "$tmp/got.lst" && ok || bad "installed files differ: $(diff "$tmp/want.lst" "$tmp/got.lst" | head -5)"
while read -r f; do cmp -s "$ROOT/qgis/traverse/$f" "$D/$f" || bad "installed $f differs"; done <"$tmp/want.lst"
[ "$(stat -c %a "$D/__init__.py" 2>/dev/null)" = 644 ] && ok || bad "installed files not mode 644"
# again over an older copy: a file the plugin no longer has goes away
touch "$D/stale.py"
make -C "$ROOT" --no-print-directory install-qgis QGIS_PROFILE_DIR="$P" >/dev/null 2>&1
[ ! -e "$D/stale.py" ] && ok || bad "install-qgis kept a stale file"
# the default profile is the user's
make -C "$ROOT" --no-print-directory -n install-qgis 2>/dev/null | grep -q "$HOME/.local/share/QGIS/QGIS3/profiles/default/python/plugins/traverse" &&
    ok || bad "install-qgis: default profile not ~/.local/share/QGIS/QGIS3/profiles/default"
# the installed copy in QGIS: not in a source tree, so the tools come from the setting
if "$PY" "$HERE/qgis_provider_check.py" --installed "$P/python/plugins" "$BIN" "$tmp/in" "$tmp/work2" >"$tmp/inst.out" 2>"$tmp/inst.err"; then
    ok
    echo "the installed plugin: $(grep -c '^PASS' "$tmp/inst.out") checks passed"
else
    bad "the installed plugin:"
    grep -v '^PASS' "$tmp/inst.out" | head -20
    grep -v 'XDG_RUNTIME\|^$' "$tmp/inst.err" | tail -10
fi

summary tool_qgis_provider
