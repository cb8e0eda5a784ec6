#!/bin/sh
# trv-krige --nsim by tiles (docs/scale.md, sim.h): the realisations, the
# kriged DEM, its std and krige.json (but its two work counters, factorised
# and frame_blocks, which count the kriging's work per window: as
# tool_krige_scale.sh) are the same bytes for tiles (columns
# x rows: TRV_BLOCK_COLS, TRV_BLOCK_ROWS) of 64 x 1, 7 x 7, 1 x 64, 13 x all
# rows and the default 256 x 256 as for the whole target, for a DEM whose
# samples are target nodes, a projected DEM refined with a nugget (samples
# off the nodes, taller than a 256-row strip) and points from a CSV; the
# realisations honour the samples; peak memory beyond the simulation's torus
# does not grow with the target's rows; a full disk mid-stream leaves
# nothing new. Ends with "N passed, N failed, N skipped".
set -u
BIN=${TRV_BIN:-bin}
DATA=${TRV_DATADIR:-data}
K=$BIN/trv-krige
tmp=$(mktemp -d /tmp/trv-krige-sim-scale-test-XXXXXX)
trap 'rm -rf "$tmp"' EXIT
. "$(dirname "$0")/lib.sh"

find_gdal_python

# a 20 x 20 DEM of 90 m cells refined to 30 m: sample (i, j) is the centre
# of target cell (3i + 1, 3j + 1); and a projected 30 m piece of Jacksboro
gdalwarp -q -t_srs EPSG:32616 -tr 90 90 -te 740010 4050000 741810 4051800 -r bilinear -ot Float32 \
    -dstnodata -32768 "$DATA/jacksboro/dem_3arcsec.tif" "$tmp/node.tif" &&
    gdal_translate -q -srcwin 150 120 40 36 "$DATA/jacksboro/dem_3arcsec.tif" "$tmp/ll.tif" &&
    gdalwarp -q -t_srs EPSG:32616 -tr 30 30 -tap -r bilinear -ot Float32 -dstnodata -32768 "$tmp/ll.tif" \
        "$tmp/u30.tif" || { echo "cannot prepare the test DEMs"; exit 1; }

# sim KIND COLS ROWS: KIND's run into $tmp/run (always that path: the
# command line is in the files' metadata), moved to $tmp/KIND_COLSxROWS
sim() {
    kind=$1 cols=$2 rows=$3
    case $kind in
    node) set -- "$tmp/node.tif" --seed 3 --nsim 5 ;;
    utm) set -- "$tmp/u30.tif" --tr 10 --model exp --nugget 20 --psill 400 --range 500 --nmax 16 --seed 9 --nsim 4 ;;
    csv) set -- "$DATA/meuse/meuse_points.csv" --x x --y y --z elev --s_srs EPSG:28992 --tr 40 --model sph \
        --nugget 0.2 --psill 1.5 --range 900 --seed 2 --nsim 3 ;;
    esac
    rm -rf "$tmp/run" && mkdir "$tmp/run" &&
        TRV_BLOCK_COLS=$cols TRV_BLOCK_ROWS=$rows "$K" -q "$@" -o "$tmp/run/dem.tif" --std "$tmp/run/std.tif" \
            --sim "$tmp/run/sim.tif" 2>"$tmp/stderr" &&
        sed '/"factorised":/d; /"frame_blocks":/d' "$tmp/run/krige.json" >"$tmp/run/work.json" &&
        mv "$tmp/run" "$tmp/${kind}_${cols}x$rows"
}
FILES="sim.tif dem.tif std.tif work.json"

# ---- tile-size independence ----
TILES="64x1 7x7 1x64 13x1000000 256x256"
for kind in node utm csv; do
    for t in 1000000x1000000 $TILES; do
        sim $kind "${t%x*}" "${t#*x}" && ok || bad "$kind with tiles of $t failed: $(cat "$tmp/stderr")"
    done
    for t in $TILES; do
        for f in $FILES; do
            cmp -s "$tmp/${kind}_1000000x1000000/$f" "$tmp/${kind}_$t/$f" && ok ||
                bad "$kind: $f differs between tiles of $t and the whole target"
        done
    done
done
# ---- progress: the realisations' own line only (the kriging's inside them
# would interleave with it, line by line) ----
TRV_BLOCK_ROWS=7 "$K" "$tmp/u30.tif" --tr 10 --model exp --nugget 20 --psill 400 --range 500 --nmax 16 --seed 9 \
    --nsim 4 -o "$tmp/progress.tif" >/dev/null 2>"$tmp/stderr" && ok || bad "progress run: $(cat "$tmp/stderr")"
[ "$(grep -c '^realisations: 0\.\.\.10.*100 - done\.$' "$tmp/stderr")" = 1 ] && ok ||
    bad "progress: not one finished 'realisations' line: $(cat "$tmp/stderr")"
! grep -q '^krige:' "$tmp/stderr" && ok || bad "progress: the kriging's own line shows: $(cat "$tmp/stderr")"
[ "$(gdalinfo "$tmp/utm_7x7/sim.tif" | grep -c '^Band .* Type=Float32')" = 4 ] && ok || bad "utm: not 4 bands"
grep -q '"conditioned_by": "weights"' "$tmp/utm_7x7/krige.json" && ok || bad "utm: not conditioned by kept weights"
# the samples on nodes, honoured in every band at every block height
for t in 64x1 1x64; do
    for ij in "0 0" "19 19" "12 5"; do
        set -- $ij
        want=$(gdallocationinfo -valonly "$tmp/node.tif" "$1" "$2")
        for b in 1 5; do
            got=$(gdallocationinfo -valonly -b "$b" "$tmp/node_$t/sim.tif" $((3 * $1 + 1)) $((3 * $2 + 1)))
            [ "$got" = "$want" ] && ok || bad "tiles $t, sample ($1, $2), band $b: $got, the DEM $want"
        done
    done
done
# every band its own realisation (each pair drawn from its own stream):
# no two bands alike, and each differs from the kriged DEM
if [ -n "$PY" ]; then
    "$PY" - "$tmp/utm_7x7" <<'PYEOF' >"$tmp/check" 2>&1 && ok || bad "utm: bands alike: $(cat "$tmp/check")"
import sys, numpy as np
from osgeo import gdal
s = gdal.Open(sys.argv[1] + '/sim.tif').ReadAsArray(); d = gdal.Open(sys.argv[1] + '/dem.tif').ReadAsArray()
m = d != -9999
assert m.mean() > 0.8 and (s[:, ~m] == -9999).all()
for a in range(4):
    assert (s[a] != d)[m].mean() > 0.85, a  # but at the samples (1 cell in 9)
    for b in range(a):
        assert (s[a] != s[b])[m].mean() > 0.85, (a, b)
PYEOF
else
    skip "python3 with GDAL and numpy is needed to compare the bands"
fi
# the check can fail: other seeds are other bytes
cmp -s "$tmp/utm_7x7/sim.tif" "$tmp/node_7x7/sim.tif" && bad "cmp finds different files equal" || ok

# ---- memory: beyond the torus, peak RSS does not grow with the rows or
# the columns (row blocks grew with the columns: 256 rows of the width) ----
if [ -z "$PY" ] || [ ! -x /usr/bin/time ]; then
    skip "python3 with GDAL and numpy, and /usr/bin/time, are needed for the memory check"
else
    "$PY" - "$tmp" <<'PYEOF' || bad "cannot make the tall sources"
import sys, numpy as np
from osgeo import gdal, osr
srs = osr.SpatialReference(); srs.ImportFromEPSG(32616)
for name, nx, ny in (('short', 52, 200), ('tall', 52, 2000), ('wide', 2000, 52)):
    d = gdal.GetDriverByName('GTiff').Create(f'{sys.argv[1]}/{name}.tif', nx, ny, 1, gdal.GDT_Float32)
    d.SetGeoTransform([500000, 30, 0, 4000000, 0, -30]); d.SetProjection(srs.ExportToWkt())
    y, x = np.mgrid[0:ny, 0:nx]
    d.GetRasterBand(1).WriteArray((200 + 20 * np.sin(x / 5.0) * np.cos(y / 9.0) + 0.1 * y).astype(np.float32))
PYEOF
    for n in short tall wide; do
        mkdir -p "$tmp/$n" && /usr/bin/time -f "%M" -o "$tmp/rss_$n" "$K" -q "$tmp/$n.tif" --tr 3 --model sph --nugget 0 \
            --psill 400 --range 60 --nmax 16 --nsim 2 --seed 1 -o "$tmp/$n/dem.tif" --std "$tmp/$n/std.tif" ||
            bad "trv-krige --nsim 2 on the $n source"
    done
    torus() { "$PY" -c 'import json, sys; s = json.load(open(sys.argv[1]))["simulation"]; print(s["torus_columns"] * s["torus_rows"])' "$1"; }
    short=$(tail -1 "$tmp/rss_short")
    # the torus: 24 bytes a node while held whole (sim_fft.c); the whole
    # layers main held beside it: the DEM, std, realisation and kriged
    # residuals (4 bytes each), the pair and U on the lattice (8 each)
    whole=$((520 * 18000 * 40 / 1024))
    for n in tall wide; do
        big=$(tail -1 "$tmp/rss_$n")
        grown=$(($(torus "$tmp/$n/krige.json") - $(torus "$tmp/short/krige.json")))
        tor=$((grown * 24 / 1024))
        [ $((big - short - tor)) -lt $((whole / 4)) ] && ok ||
            bad "peak RSS grew by $((big - short)) KiB from 520 x 2000 cells to $n (10 400 000), the torus by $tor KiB (whole layers: $whole KiB)"
        [ "$short" -gt 0 ] && [ "$big" -gt 0 ] && [ "$grown" -gt 0 ] && ok || bad "memory check misread: $short, $big KiB, $grown nodes"
        echo "peak RSS: $short KiB (520 x 2000), $big KiB ($n: 10 400 000 cells), of which the torus's growth $tor KiB"
    done
fi

# ---- a full disk mid-stream (a private tmpfs, root only): exit 1, the cause named, nothing new ----
F=$tmp/full
mkdir "$F"
if [ "$(id -u)" != 0 ] || ! unshare --mount /bin/sh -c 'mount -t tmpfs -o size=64k tmpfs "$0"' "$F" 2>/dev/null; then
    skip "a full disk: needs root and mount namespaces for a private tmpfs"
else
    # room for the DEM, std and about half the realisations
    kb=$(($(du -sk "$tmp/utm_7x7/dem.tif" "$tmp/utm_7x7/std.tif" | awk '{s += $1} END {print s}') +
        $(du -sk "$tmp/utm_7x7/sim.tif" | cut -f1) / 2))
    unshare --mount /bin/sh -c 'mount -t tmpfs -o size="$1"k tmpfs "$0" && cp "$2" "$0/in.tif" &&
        { shift 2; "$@"; rc=$?; ls -A "$0" >"'"$tmp"'/full.after"; exit $rc; }' "$F" "$kb" "$tmp/u30.tif" "$K" -q \
        "$F/in.tif" --tr 10 --model exp --nugget 20 --psill 400 --range 500 --nmax 16 --seed 9 --nsim 4 \
        -o "$F/dem.tif" --std "$F/std.tif" >/dev/null 2>"$tmp/stderr"
    rc=$?
    [ $rc = 1 ] && ok || bad "a full disk: exit $rc, want 1 ($(cat "$tmp/stderr"))"
    grep -q "cannot write '$F/dem_sim.tif': No space left on device" "$tmp/stderr" && ok ||
        bad "a full disk: the cause not named: $(cat "$tmp/stderr")"
    [ "$(cat "$tmp/full.after")" = "in.tif" ] && ok || bad "a full disk left: $(tr '\n' ' ' <"$tmp/full.after")"
fi

summary tool_krige_sim_scale
