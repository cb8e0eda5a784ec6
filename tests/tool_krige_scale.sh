#!/bin/sh
# trv-krige by tiles (docs/scale.md): the kriged DEM, its standard
# deviation, krige.json (but its two work counters, factorised and
# frame_blocks, which depend on the tiles) and the styles are the same
# bytes for tiles (TRV_BLOCK_COLS x TRV_BLOCK_ROWS) of 1 x 64, 7 x 7,
# 64 x 1, 13 x the height, 256 x 256, 256 x 7 and the whole target; with
# the point cloud (whole-width tiles: rows) the same and the point cloud
# too for block heights 1, 7, 64 and the whole; and with
# the writers' temporaries in memory or on disk (TRV_BLOCK_MEM), for a
# lon/lat DEM (block systems), a projected DEM (the regular-grid stencil)
# and points from a CSV; the streamed DEM equals, cell for cell, the whole
# layer krg_refine kriges for the realisations (--nsim); the layers are
# Cloud-Optimized GeoTIFFs; peak memory on a 520 x 40000 target against a
# 520 x 2000 one. Ends with "N passed, N failed, N skipped".
set -u
BIN=${TRV_BIN:-bin}
DATA=${TRV_DATADIR:-data}
J=$DATA/jacksboro
K=$BIN/trv-krige
tmp=$(mktemp -d /tmp/trv-krige-scale-test-XXXXXX)
trap 'rm -rf "$tmp"' EXIT
. "$(dirname "$0")/lib.sh"

find_gdal_python

# a lon/lat piece of Jacksboro's 3" DEM, and a projected 30 m one
gdal_translate -q -srcwin 150 120 40 36 "$J/dem_3arcsec.tif" "$tmp/ll.tif" &&
gdalwarp -q -t_srs EPSG:32616 -tr 30 30 -tap -r bilinear -ot Float32 -dstnodata -32768 "$tmp/ll.tif" "$tmp/u30.tif" ||
    { echo "cannot prepare the test DEMs"; exit 1; }

# krige KIND TILES [options]: KIND's run by tiles of TILES = COLSxROWS
# (TRV_BLOCK_COLS, TRV_BLOCK_ROWS) into $tmp/run (always that path: the
# command line is in the files' metadata), with the point cloud when POINTS
# is set, moved to $tmp/KIND_TILES$SUFFIX; work.json: krige.json without
# its work counters
krige() {
    kind=$1 tiles=$2
    shift 2
    case $kind in
    ll) set -- "$tmp/ll.tif" --t_srs EPSG:32616 --tr 30 "$@" ;;
    # --nmax 16: the regular-grid stencil needs a neighbourhood with no tie at
    # its cut; 36 and 64, which leave-one-out may choose, have one (grid.c)
    utm) set -- "$tmp/u30.tif" --tr 10 --model exp --nmax 16 "$@" ;;
    csv) set -- "$DATA/meuse/meuse_points.csv" --x x --y y --z elev --s_srs EPSG:28992 --tr 40 --model sph "$@" ;;
    esac
    rm -rf "$tmp/run" && mkdir "$tmp/run" &&
    TRV_BLOCK_COLS=${tiles%x*} TRV_BLOCK_ROWS=${tiles#*x} "$K" -q "$@" -o "$tmp/run/dem.tif" \
        --std "$tmp/run/std.tif" ${POINTS:+--points "$tmp/run/p.csv"} 2>"$tmp/stderr" &&
        sed '/"factorised":/d; /"frame_blocks":/d' "$tmp/run/krige.json" >"$tmp/run/work.json" &&
        mv "$tmp/run" "$tmp/${kind}_$tiles${SUFFIX:-}"
}
W=1000000
FILES="dem.tif std.tif work.json dem.qml std.qml"

# ---- tile-size independence ----
for kind in ll utm csv; do
    for tiles in ${W}x$W 1x64 7x7 64x1 13x$W 256x256 256x7; do
        krige $kind $tiles && ok || bad "$kind with tiles $tiles failed: $(cat "$tmp/stderr")"
    done
    for tiles in 1x64 7x7 64x1 13x$W 256x256 256x7; do
        for f in $FILES; do
            cmp -s "$tmp/${kind}_${W}x$W/$f" "$tmp/${kind}_$tiles/$f" && ok ||
                bad "$kind: $f differs between tiles $tiles and the whole target"
        done
    done
    # the point cloud: its lines in row order from any tiles (core/rowtext.h)
    for tiles in ${W}x$W 1x64 7x7 64x1 13x$W 256x7; do
        POINTS=1 SUFFIX=_p krige $kind $tiles && ok || bad "$kind --points, tiles $tiles failed: $(cat "$tmp/stderr")"
    done
    for tiles in 1x64 7x7 64x1 13x$W 256x7; do
        for f in $FILES p.csv; do
            cmp -s "$tmp/${kind}_${W}x${W}_p/$f" "$tmp/${kind}_${tiles}_p/$f" && ok ||
                bad "$kind --points: $f differs between tiles $tiles and the whole target"
        done
    done
    [ "$(wc -l <"$tmp/${kind}_${W}x${W}_p/p.csv")" -gt 1000 ] && ok || bad "$kind: a point cloud of few lines"
    # in row order: y never rises down the file, x rises along each row
    awk -F, 'NR > 2 && ($2 > py || ($2 == py && $1 <= px)) { bad = 1 } { px = $1; py = $2 } END { exit bad }' \
        "$tmp/${kind}_7x7_p/p.csv" && ok || bad "$kind: the point cloud's lines are not in row order"
done
# the work counters are still there (only left out of the comparison)
grep -q '"factorised": [1-9]' "$tmp/ll_7x7/krige.json" && grep -q '"frame_blocks": [0-9]' "$tmp/ll_7x7/krige.json" &&
    ! grep -q '"factorised"' "$tmp/ll_7x7/work.json" && ok || bad "krige.json's work counters"
# one thread against two (the bands of a block split otherwise)
# (the cells: the files name the command line, --threads 1 in it)
SUFFIX=_t1 krige ll 7x7 --threads 1 && ok || bad "one thread failed: $(cat "$tmp/stderr")"
if [ -z "$PY" ]; then
    skip "python3 with GDAL and numpy is needed to compare one thread's cells with two's"
else
    "$PY" - "$tmp/ll_${W}x$W" "$tmp/ll_7x7_t1" >"$tmp/cmp" 2>&1 <<'PYEOF' && ok || bad "one thread differs from two: $(cat "$tmp/cmp")"
import sys, numpy as np
from osgeo import gdal
for f in ('dem.tif', 'std.tif'):
    a, b = (gdal.Open(f'{d}/{f}').ReadAsArray() for d in sys.argv[1:3])
    assert a.tobytes() == b.tobytes(), f
    assert (a != -9999).sum() > 100, f
PYEOF
fi
# the writers' temporaries on disk (TRV_BLOCK_MEM=0) instead of in memory
# (block.h): the same files
for kind in ll utm; do
    TRV_BLOCK_MEM=0 SUFFIX=_disk krige $kind 7x7 && ok || bad "$kind with TRV_BLOCK_MEM=0 failed: $(cat "$tmp/stderr")"
    for f in $FILES; do
        cmp -s "$tmp/${kind}_7x7/$f" "$tmp/${kind}_7x7_disk/$f" && ok || bad "$kind: $f differs with the temporary on disk"
    done
done
grep -q '"by_block": [1-9]' "$tmp/ll_7x7/krige.json" && grep -q '"by_stencil": [1-9]' "$tmp/utm_7x7/krige.json" && ok ||
    bad "the runs did not take the block and stencil paths"
# the check can fail: other layers are other bytes
cmp -s "$tmp/ll_7x7/dem.tif" "$tmp/ll_7x7/std.tif" && bad "cmp finds different layers equal" || ok

# ---- streamed against the whole layer (krg_refine, as --nsim kriges it) ----
if [ -z "$PY" ]; then
    skip_pkg python3-gdal "python3 with GDAL and numpy is needed to compare the layers' cells"
else
    for kind in ll utm; do
        krige $kind 256x5 --nsim 1 && ok || bad "$kind --nsim 1: $(cat "$tmp/stderr")"
        "$PY" - "$tmp/${kind}_${W}x$W" "$tmp/${kind}_256x5" >"$tmp/cmp" 2>&1 <<'PYEOF' && ok || bad "$kind: streamed vs whole: $(cat "$tmp/cmp")"
import sys, numpy as np
from osgeo import gdal
for f in ('dem.tif', 'std.tif'):
    a, b = (gdal.Open(d + '/' + f).ReadAsArray() for d in sys.argv[1:3])
    if a.shape != b.shape or not np.array_equal(a, b) or (a != -9999).sum() < a.size // 2:
        print(f, 'differs or is mostly nodata'); sys.exit(1)
PYEOF
    done
    for f in dem std; do
        "$PY" "$(dirname "$0")/cog_check.py" "$tmp/utm_64x1/$f.tif" --nodata -9999 --unit m --described >"$tmp/cogres" 2>&1 && ok || bad "$f.tif: $(cat "$tmp/cogres")"
    done
    gdal_translate -q -co TILED=YES "$tmp/utm_64x1/dem.tif" "$tmp/plain.tif"
    "$PY" "$(dirname "$0")/cog_check.py" "$tmp/plain.tif" >/dev/null 2>&1 && bad "the COG check passes a plain GeoTIFF" || ok
fi

# ---- memory: peak RSS of a 520 x 40000 target and of a 40000 x 520 one
# (by tiles: memory independent of the width) against 520 x 2000 ----
if [ -z "$PY" ] || [ ! -x /usr/bin/time ]; then
    skip "python3 with GDAL and numpy, and /usr/bin/time, are needed for the memory check"
else
    "$PY" - "$tmp" <<'PYEOF' || bad "cannot make the tall sources"
import sys, numpy as np
from osgeo import gdal, osr
srs = osr.SpatialReference(); srs.ImportFromEPSG(32616)
for name, nx, ny in (('short', 52, 200), ('tall', 52, 4000), ('wide', 4000, 52)):
    d = gdal.GetDriverByName('GTiff').Create(f'{sys.argv[1]}/{name}.tif', nx, ny, 1, gdal.GDT_Float32)
    d.SetGeoTransform([500000, 30, 0, 4000000, 0, -30]); d.SetProjection(srs.ExportToWkt())
    y, x = np.mgrid[0:ny, 0:nx]
    d.GetRasterBand(1).WriteArray((200 + 20 * np.sin(x / 5.0) * np.cos(y / 9.0) + 0.1 * y).astype(np.float32))
PYEOF
    for n in short tall wide; do
        mkdir -p "$tmp/$n" && TRV_BLOCK_ROWS=64 /usr/bin/time -f "%M" -o "$tmp/rss_$n" "$K" -q "$tmp/$n.tif" --tr 3 --model exp \
            --nugget 0 --psill 400 --range 300 -o "$tmp/$n/dem.tif" --std "$tmp/$n/std.tif" || bad "trv-krige on the $n source"
    done
    short=$(tail -1 "$tmp/rss_short") tall=$(tail -1 "$tmp/rss_tall") wide=$(tail -1 "$tmp/rss_wide")
    # whole layers: the DEM and its std, Float32: 8 bytes a cell; the
    # samples (52 x 4000, about 50 bytes each) may grow
    whole=$((520 * 40000 * 8 / 1024))
    [ $((tall - short)) -lt $((whole / 4)) ] && ok ||
        bad "peak RSS grew by $((tall - short)) KiB from 2000 to 40000 rows (the whole layers: $whole KiB)"
    [ $((wide - short)) -lt $((whole / 4)) ] && ok ||
        bad "peak RSS grew by $((wide - short)) KiB from 520 to 40000 columns (the whole layers: $whole KiB)"
    [ "$short" -gt 0 ] && [ "$tall" -gt 0 ] && [ "$wide" -gt 0 ] && ok ||
        bad "memory check misread: $short, $tall, $wide KiB"
    echo "peak RSS: $short KiB (520 x 2000), $tall KiB (520 x 40000), $wide KiB (40000 x 520)"
fi
summary tool_krige_scale
