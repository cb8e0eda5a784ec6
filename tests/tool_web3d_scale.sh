#!/bin/sh
# trv-export --web3d without the whole DEM (issue 20, docs/scale.md "The
# 3D view's height tiles by row windows"): on a 128 x 2000 DEM (tiled
# 256, a NaN and nodata cells, one on the grid's last cell) and a 16700 x
# 3 one (level 0's tiles in two groups of tile columns) every tile of
# every level against the rule of src/export/web3d.h computed here in
# numpy from the file (vertex (i, j) of tile (tx, ty) of level k is cell
# ((tx T + i) 2^k, (ty T + j) 2^k), -9999 off the grid and on nodata) and
# index.json's height range against numpy's; web3d/ the same bytes at
# windows of 1 x 64, 7 x 7, 64 x 1, 13 x the height and the whole grid
# (TRV_BLOCK_COLS x TRV_BLOCK_ROWS: the range's scan) as at the default;
# peak RSS on a 128 x 40000 DEM against the 128 x 2000 one: the 38000
# more rows may cost less than half the DEM (4 bytes a cell; GDAL's cache,
# bounded, fills on the tall one), which
# the export held whole before. Ends with "N passed, N failed, N skipped".
set -u
BIN=${TRV_BIN:-bin}
tmp=$(mktemp -d /tmp/trv-web3d-scale-test-XXXXXX)
trap 'rm -rf "$tmp"' EXIT
. "$(dirname "$0")/lib.sh"

find_gdal_python
if [ -z "$PY" ]; then
    skip "python3 with GDAL and numpy is needed for trv-export --web3d's scale checks"
    summary tool_web3d_scale
    exit $?
fi

"$PY" - "$tmp" <<'PYEOF'
import sys, os
import numpy as np
from osgeo import gdal, osr
srs = osr.SpatialReference(); srs.ImportFromEPSG(32616)
for name, ny in (('short', 2000), ('tall', 40000)):
    os.makedirs(f'{sys.argv[1]}/{name}')
    d = gdal.GetDriverByName('GTiff').Create(f'{sys.argv[1]}/{name}/dem.tif', 128, ny, 1, gdal.GDT_Float32,
                                             ['TILED=YES', 'COMPRESS=DEFLATE'])
    d.SetGeoTransform([500000, 10, 0, 4000000, 0, -10]); d.SetProjection(srs.ExportToWkt())
    b = d.GetRasterBand(1); b.SetNoDataValue(-32768)
    for y0 in range(0, ny, 2000):
        r = np.arange(y0, y0 + 2000)[:, None]; c = np.arange(128)[None, :]
        a = (100 + 0.25 * r + np.sin(c / 7.0) * 5).astype(np.float32)
        a[(c * 7 + r * 3) % 23 == 0] = -32768
        a[(c + 2 * r) % 29 == 0] = np.nan
        if y0 + 2000 == ny:
            a[-1, -1] = np.nan
        b.WriteArray(a, 0, y0)
# wider than a group of tiles (16384 columns): level 0 in two groups
os.makedirs(f'{sys.argv[1]}/wide')
d = gdal.GetDriverByName('GTiff').Create(f'{sys.argv[1]}/wide/dem.tif', 16700, 3, 1, gdal.GDT_Float32,
                                         ['TILED=YES', 'COMPRESS=DEFLATE'])
d.SetGeoTransform([500000, 10, 0, 4000000, 0, -10]); d.SetProjection(srs.ExportToWkt())
r = np.arange(3)[:, None]; c = np.arange(16700)[None, :]
a = (50 + 0.01 * c - r).astype(np.float32)
a[(c + r) % 31 == 0] = np.nan
d.GetRasterBand(1).WriteArray(a, 0, 0)
d = None
PYEOF
[ -f "$tmp/tall/dem.tif" ] || { echo "cannot make the test DEMs"; exit 1; }

# every tile of every level, and the range, against numpy's reading
"$BIN/trv-export" -q --web3d --terrain "$tmp/short" 2>"$tmp/err" && ok || bad "export: $(cat "$tmp/err")"
"$BIN/trv-export" -q --web3d --terrain "$tmp/wide" 2>"$tmp/err" && ok || bad "export (wide): $(cat "$tmp/err")"
for d in short:31 wide:267; do
    if "$PY" - "$tmp/${d%:*}" "${d#*:}" <<'PYEOF'; then ok; else bad "${d%:*}: the tiles or the range differ from the rule"; fi
import sys, json
import numpy as np
from osgeo import gdal
a = gdal.Open(sys.argv[1] + '/dem.tif').ReadAsArray().astype(np.float32)
ny, nx = a.shape
data = np.isfinite(a) & (a != -32768)
ix = json.load(open(sys.argv[1] + '/web3d/index.json'))
assert ix['height_min'] == float('%.9g' % a[data].min()) and ix['height_max'] == float('%.9g' % a[data].max())
T, V, n = 128, 129, 0
for lv in ix['levels']:
    s = lv['step']
    for ty in range(lv['nty']):
        for tx in range(lv['ntx']):
            r = (ty * T + np.arange(V)) * s
            c = (tx * T + np.arange(V)) * s
            on = (r < ny)[:, None] & (c < nx)[None, :]
            rr, cc = np.minimum(r, ny - 1), np.minimum(c, nx - 1)
            want = np.where(on & data[np.ix_(rr, cc)], a[np.ix_(rr, cc)], np.float32(-9999)).astype(np.float32)
            got = np.fromfile('%s/web3d/tiles/%d_%d_%d.f32' % (sys.argv[1], lv['level'], tx, ty), '<f4').reshape(V, V)
            assert np.array_equal(got, want), (lv['level'], tx, ty)
            n += 1
assert n == int(sys.argv[2]), n
PYEOF
done

# the same bytes whatever the range scan's windows
for b in 64x1 7x7 1x64 "2000x13" 2000x128; do
    rm -rf "$tmp/b" && mkdir "$tmp/b" && cp "$tmp/short/dem.tif" "$tmp/b/"
    TRV_BLOCK_ROWS=${b%x*} TRV_BLOCK_COLS=${b#*x} "$BIN/trv-export" -q --web3d --terrain "$tmp/b" 2>"$tmp/err" ||
        bad "export at windows $b: $(cat "$tmp/err")"
    same=1
    for f in $(cd "$tmp/short/web3d" && find . -type f ! -name export.json); do
        cmp -s "$tmp/short/web3d/$f" "$tmp/b/web3d/$f" || { same=0; bad "web3d/$f differs at windows $b"; }
    done
    [ "$same" = 1 ] && ok
done

# peak RSS: 40000 rows against 2000
if [ "${TRV_SAN:-0}" = 1 ]; then
    skip "peak RSS under ASan (its shadow memory and quarantine) is not the export's"
elif [ -x /usr/bin/time ]; then
    rm -rf "$tmp/short/web3d"
    for n in short tall; do
        /usr/bin/time -f "%M" -o "$tmp/rss_$n" "$BIN/trv-export" -q --web3d --terrain "$tmp/$n" 2>"$tmp/err" ||
            bad "export of the $n DEM: $(cat "$tmp/err")"
    done
    short=$(tail -1 "$tmp/rss_short") tall=$(tail -1 "$tmp/rss_tall")
    echo "trv-export --web3d peak RSS: $short KiB (128 x 2000), $tall KiB (128 x 40000)"
    whole=$((128 * 40000 * 4 / 1024))
    [ "$short" -gt 0 ] && [ "$tall" -gt 0 ] && ok || bad "memory check misread: $short, $tall KiB"
    [ $((tall - short)) -lt $((whole / 2)) ] && ok ||
        bad "peak RSS grew by $((tall - short)) KiB from 2000 to 40000 rows (the whole DEM: $whole KiB)"
else
    skip "/usr/bin/time is needed for trv-export --web3d's memory check"
fi
summary tool_web3d_scale
