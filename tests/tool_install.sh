#!/bin/sh
# make install as a packager runs it (DESTDIR staging, PREFIX that does not
# exist on this machine): the file list, the installed bytes, the man pages
# (man -l, man trv-speed through MANPATH and through PATH), --version of
# every tool naming the GDAL, PROJ and LAPACK it runs with. Then the
# installed tree copied elsewhere and run with the source tree hidden
# (a private mount over it), nothing but the copy's bin/ on PATH and no
# TRV_DATADIR: the demo pipeline (trv-krige, trv-terrain, trv-speed,
# trv-cost, trv-roadmap, trv-route, trv-sim with the bundled scenario,
# trv-render, trv-project) on a piece of the installed Jacksboro rasters
# with the default data, its layers equal to those of the tools in the
# tree given the tree's data files by path. Last, make uninstall removes
# what was installed and keeps what was there before.
# Ends with "N passed, N failed, N skipped".
set -u
BIN=${TRV_BIN:-bin}
here=$(cd "$(dirname "$0")/.." && pwd)
case $BIN in /*) ;; *) BIN=$here/$BIN ;; esac
tmp=$(mktemp -d /tmp/trv-install-test-XXXXXX)
trap 'rm -rf "$tmp"' EXIT
. "$(dirname "$0")/lib.sh"

PREFIX=/opt/traverse-install-test
stage=$tmp/stage
root=$stage$PREFIX
make_in() { make -C "$here" --no-print-directory SAN="${TRV_SAN:-0}" DESTDIR="$stage" PREFIX="$PREFIX" "$@" >"$tmp/make.log" 2>&1; }
# what was there before: kept by make uninstall, with their directories
mkdir -p "$root/bin" "$root/share/man/man1"
echo "not ours" >"$root/bin/other-tool"
echo "not ours" >"$root/share/man/man1/other.1"

# ---- the file list, from the source tree -------------------------------
if make_in install; then ok; else bad "make install: $(tail -5 "$tmp/make.log")"; fi
tools=$(cd "$here/tools" && ls trv-*.c | sed 's/\.c$//')
{
    for t in $tools; do echo "bin/$t"; echo "share/man/man1/$t.1"; done
    echo lib/libtraverse.a
    (cd "$here/src" && ls */*.h | grep -v '_priv\.h$' | sed 's|^|include/traverse/|')
    (cd "$here/data" && find . -type f | sed 's|^\./|share/traverse/|')
    (cd "$here" && find web -type f \( -name '*.html' -o -name '*.js' -o -name '*.css' \) | sed 's|^|share/traverse/|')
    echo share/traverse/install-manifest.txt
    echo bin/other-tool
    echo share/man/man1/other.1
} | sort >"$tmp/want"
(cd "$root" && find . -type f | sed 's|^\./||' | sort) >"$tmp/got"
if cmp -s "$tmp/want" "$tmp/got"; then ok; else bad "installed files differ from the expected list: $(diff "$tmp/want" "$tmp/got" | grep '^[<>]' | head -5 | tr '\n' ' ')"; fi
for t in $tools; do
    [ -x "$root/bin/$t" ] && cmp -s "$BIN/$t" "$root/bin/$t" && ok || bad "bin/$t is not an executable copy of $BIN/$t"
done
differ=$(cd "$here/data" && find . -type f | while read -r f; do cmp -s "$f" "$root/share/traverse/$f" || echo "$f"; done)
[ -z "$differ" ] && ok || bad "installed data differs from data/: $differ"
# staging leaves no trace of DESTDIR in what it installs
grep -rl "$stage" "$root/share" >"$tmp/traces" 2>/dev/null
[ ! -s "$tmp/traces" ] && ok || bad "files naming the staging directory: $(cat "$tmp/traces")"

# ---- man pages -----------------------------------------------------------
if command -v groff >/dev/null 2>&1; then
    for t in $tools; do
        w=$(groff -man -ww -z "$root/share/man/man1/$t.1" 2>&1)
        [ -z "$w" ] && ok || bad "groff warns on $t.1: $w"
    done
else
    skip_pkg man-db "groff is not installed (groff-base, which man-db brings): the pages' roff is not checked for warnings"
fi
if command -v man >/dev/null 2>&1; then
    for t in $tools; do
        MANWIDTH=200 man -l "$root/share/man/man1/$t.1" >"$tmp/page" 2>"$tmp/err" || bad "man -l $t.1: $(cat "$tmp/err")"
        "$BIN/$t" --help | grep -o -- '--[a-z_-]*' | sort -u >"$tmp/opts"
        missing=$(while read -r o; do grep -q -- "$o" "$tmp/page" || echo "$o"; done <"$tmp/opts")
        [ -z "$missing" ] && ok || bad "man page of $t lacks options of its --help: $missing"
        purpose=$(sed -n '/^NAME/{n;p;}' "$tmp/page" | tr -s ' ' | sed 's/^ //')
        case $purpose in "$t - "?*) ok ;; *) bad "man page of $t: NAME is '$purpose'" ;; esac
    done
    # the page names the data directory where PREFIX puts it (not DESTDIR)
    MANWIDTH=200 man -l "$root/share/man/man1/trv-speed.1" | grep -q "^ *$PREFIX/share/traverse/\$" &&
        ok || bad "trv-speed's man page does not name the data directory $PREFIX/share/traverse/"
    f=$(MANPATH="$root/share/man" man -w trv-speed 2>&1)
    [ "$f" = "$root/share/man/man1/trv-speed.1" ] && ok || bad "MANPATH=.../share/man man -w trv-speed: $f"
    MANPATH="$root/share/man" MANWIDTH=100 man trv-speed 2>&1 | grep -q '^TRV-SPEED(1)' && ok || bad "MANPATH=.../share/man man trv-speed does not render"
    # as a user with PREFIX/bin on PATH: man finds ../share/man itself
    f=$(env -u MANPATH PATH="$root/bin:/usr/bin:/bin" man -w trv-speed 2>&1)
    [ "$f" = "$root/share/man/man1/trv-speed.1" ] && ok || bad "with PREFIX/bin on PATH, man -w trv-speed: $f"
else
    skip_pkg man-db "man is not installed (Debian man-db): the man pages are not rendered"
fi

# ---- --version: the libraries each tool runs with ------------------------
version=$(sed -n 's/^#define TRV_VERSION "\(.*\)"$/\1/p' "$here/src/core/trv.h")
gdal=$(gdal-config --version) proj=$(pkg-config --modversion proj)
lapack=$(pkg-config --modversion lapacke) openblas=$(pkg-config --modversion openblas)
for t in $tools; do
    if ! "$root/bin/$t" --version >"$tmp/v" 2>&1; then bad "$t --version failed: $(cat "$tmp/v")"; continue; fi
    [ "$(sed -n 1p "$tmp/v")" = "$t (traverse) $version" ] && ok || bad "$t --version line 1: $(sed -n 1p "$tmp/v")"
    for want in "GDAL $gdal" "PROJ $proj" "LAPACK $lapack"; do
        grep -qx "$want" "$tmp/v" && ok || bad "$t --version lacks '$want': $(tr '\n' '|' <"$tmp/v")"
    done
    grep -q "^OpenBLAS $openblas " "$tmp/v" && ok || bad "$t --version lacks 'OpenBLAS $openblas': $(tr '\n' '|' <"$tmp/v")"
done

# ---- the installed tree elsewhere, the source tree out of reach ----------
moved=$tmp/elsewhere
cp -a "$root" "$moved"
DATA=$moved/share/traverse
mkdir -p "$tmp/run/t"
gdal_translate -q -projwin -84.30 36.66 -84.18 36.54 "$DATA/jacksboro/dem_3arcsec.tif" "$tmp/run/dem.tif" ||
    { echo "cannot cut the test area"; exit 1; }
# the mission: both ends GO and joined on the roadmap (issue 14's traction
# NOGO on clayey slopes took -84.27,36.65 and cut -84.20,36.58 off)
cat >"$tmp/pipeline.sh" <<EOF
set -e
cd "$tmp/run"
trv-krige -q dem.tif --tr 60 -o t/dem_kriged.tif
trv-terrain -q --dem t/dem_kriged.tif --soil "$DATA/jacksboro/soil_7p5arcsec.tif" --landuse "$DATA/jacksboro/landuse_30m_utm16n.tif" -o t
trv-speed --terrain t --vehicle "$DATA/vehicles/ugv_hua2022.ini" >speed.txt
trv-cost -q --terrain t
trv-roadmap -q --terrain t -o t/roadmap.gpkg
trv-route -q --roadmap t/roadmap.gpkg --terrain t --from -84.2748,36.6489 --to -84.2347,36.5809 -o t/route.geojson --csv t/route.csv --stats t/route_stats.csv
trv-sim -q --terrain t --scenario "$DATA/scenarios/demo.ini" --route t/route.csv --no-timing -o t/sim
trv-render -q t/class.tif --hillshade t/dem.tif --overlay t/route.geojson --legend -o class.png
trv-project -q t -o t/project.qgs
EOF
# sanitizer runs: the suppressions file must be reachable with the tree hidden
cp "$here/tests/lsan.supp" "$tmp/lsan.supp"
run_env="PATH=$moved/bin HOME=$tmp ASAN_OPTIONS=${ASAN_OPTIONS:-} LSAN_OPTIONS=suppressions=$tmp/lsan.supp:print_suppressions=0 UBSAN_OPTIONS=${UBSAN_OPTIONS:-}"
# The source tree is hidden under an empty tmpfs in a private mount namespace:
# root makes one with unshare --mount; a user inside a user namespace of its
# own where it is root (unshare --user --map-root-user --mount), where the
# kernel allows those.
hide='mount -t tmpfs -o size=1m none "$1" && [ -z "$(ls -A "$1")" ]'
ns=""
for u in "unshare --mount" "unshare --user --map-root-user --mount"; do
    # shellcheck disable=SC2086
    if $u /bin/sh -c "$hide" sh "$here" 2>/dev/null; then ns=$u; break; fi
done
if [ -n "$ns" ]; then
    # shellcheck disable=SC2086
    $ns /bin/sh -c "$hide"' && shift && exec env -i "$@"' sh "$here" $run_env \
        /bin/sh "$tmp/pipeline.sh" >"$tmp/pipeline.log" 2>&1
    rc=$?
else
    skip "cannot hide the source tree (unshare --mount needs root, or user namespaces for a user): the pipeline ran with it in place"
    env -i $run_env /bin/sh "$tmp/pipeline.sh" >"$tmp/pipeline.log" 2>&1
    rc=$?
fi
[ "$rc" = 0 ] && ok || bad "the demo pipeline with the installed tools: $(tail -5 "$tmp/pipeline.log")"
T=$tmp/run/t
for f in dem.tif slope.tif soil.tif landuse.tif speed.tif gonogo.tif cost.tif class.tif roadmap.gpkg route.geojson \
    route.csv route_stats.csv sim/metrics.json sim/trajectory_ugv.geojson project.qgs; do
    [ -s "$T/$f" ] && ok || bad "no $f"
done
[ -s "$tmp/run/class.png" ] && ok || bad "no class.png"
# the bundled vehicle and soil table: the UGV's MI by hand is 5.2785, and
# the four soils of the paper's Table 2
grep -q '^MI 5\.28;' "$tmp/run/speed.txt" && ok || bad "trv-speed's MI: $(sed -n 2p "$tmp/run/speed.txt")"
for s in "sandy loam" "clayey soil" "lean clay" "upland sandy"; do
    grep -q "^[1-4] *$s " "$tmp/run/speed.txt" && ok || bad "trv-speed's table lacks $s"
done
awk -F, 'NR > 1 && ($10 < 1 || $10 > 3) {n++} END {exit !(NR > 2 && n == 0)}' "$T/route.csv" 2>/dev/null && ok || bad "a route vertex on NOGO, or no route"
grep -q '"reached_goal": true' "$T/sim/metrics.json" 2>/dev/null && ok || bad "the simulated vehicle did not reach the goal"

# the same layers from the tools in the tree, given the tree's data files
# by path: the installed defaults are those files
R=$tmp/ref
"$BIN/trv-terrain" -q --dem "$T/dem_kriged.tif" --soil "$here/data/jacksboro/soil_7p5arcsec.tif" \
    --landuse "$here/data/jacksboro/landuse_30m_utm16n.tif" --soil-classes "$here/data/classes/soils.csv" \
    --landuse-classes "$here/data/classes/landuse.csv" -o "$R" &&
    "$BIN/trv-speed" -q --terrain "$R" --vehicle "$here/data/vehicles/ugv_hua2022.ini" --soils "$here/data/classes/soils.csv" \
        --landuse-classes "$here/data/classes/landuse.csv" &&
    "$BIN/trv-cost" -q --terrain "$R" --rules "$here/data/fuzzy/mobility.fcl" --soils "$here/data/classes/soils.csv" ||
    bad "the reference run in the tree failed"
checksum() { gdalinfo -checksum "$1" 2>/dev/null | sed -n 's/.*Checksum=//p'; }
for l in soil landuse slope speed gonogo cost class; do
    a=$(checksum "$T/$l.tif") b=$(checksum "$R/$l.tif")
    [ -n "$a" ] && [ "$a" = "$b" ] && ok || bad "$l.tif: installed checksum '$a', in the tree '$b'"
done
# trv-sim finds the soil tables for the energy only through the data path
TRV_DATADIR=$here/data "$BIN/trv-sim" -q --terrain "$T" --scenario "$here/data/scenarios/demo.ini" --route "$T/route.csv" \
    --no-timing -o "$R/sim" || bad "the reference trv-sim failed"
energy() { sed -n 's/.*"energy_kJ": \([0-9.]*\).*/\1/p' "$1" 2>/dev/null; }
a=$(energy "$T/sim/metrics.json") b=$(energy "$R/sim/metrics.json")
[ -n "$a" ] && [ "$a" = "$b" ] && ok || bad "trv-sim energy: installed '$a' kJ, in the tree '$b' kJ"

# ---- make uninstall: what was installed, and nothing else ----------------
make_in install || bad "make install over an installation: $(tail -3 "$tmp/make.log")"
if make_in uninstall; then ok; else bad "make uninstall: $(tail -5 "$tmp/make.log")"; fi
(cd "$stage" && find . | sort) >"$tmp/left"
printf '%s\n' . ./opt "./opt/${PREFIX##*/}" "./opt/${PREFIX##*/}/bin" "./opt/${PREFIX##*/}/bin/other-tool" \
    "./opt/${PREFIX##*/}/share" "./opt/${PREFIX##*/}/share/man" "./opt/${PREFIX##*/}/share/man/man1" \
    "./opt/${PREFIX##*/}/share/man/man1/other.1" | sort >"$tmp/want_left"
cmp -s "$tmp/left" "$tmp/want_left" && ok || bad "after make uninstall: $(diff "$tmp/want_left" "$tmp/left" | grep '^[<>]' | head -5 | tr '\n' ' ')"
if make_in uninstall; then bad "a second make uninstall succeeded with nothing installed"; else
    grep -q 'no .*install-manifest.txt' "$tmp/make.log" && ok || bad "second make uninstall: $(tail -2 "$tmp/make.log")"; fi

summary
