#!/bin/sh
# trv-speed and trv-cost --realizations (issue 17) on a 90 m Jacksboro terrain: P(NOGO)
# by slope on tilted planes whose slopes are known (P = count / N, by
# hand); P(NOGO), the speed's mean, p10, p50, p90 and the cost's mean and
# standard deviation against numpy over the maps of the deterministic
# pipeline (trv-terrain + trv-speed + trv-cost) run on each band alone (the
# realisations by tiles of 7 x 7: every seam checked, Horn's halo across
# each), the summaries' means against the exact sums of the maps' cells
# (math.fsum: core/moments.h's sums, rounded once), and
# with --zones (nogo, factor, max_speed boxes applied to those runs by
# hand); a one-band stack of dem.tif gives speed.tif; the same
# stack gives the same bytes; bad stacks (another grid, a missing file, a
# band damaged mid-stream) with clear errors and no outputs. Ends with "N passed, N failed, N skipped".
set -u
BIN=$(cd "${TRV_BIN:-bin}" && pwd)
DATA=$(cd "${TRV_DATADIR:-data}" && pwd)
S=$BIN/trv-speed
PY=/usr/bin/python3
tmp=$(mktemp -d /tmp/trv-realize-test-XXXXXX)
trap 'rm -rf "$tmp"' EXIT
. "$(dirname "$0")/lib.sh"
VEH=ugv_hua2022.ini
cost() { # DIR [options]: trv-cost with the test's tables
    d=$1
    shift
    "$BIN/trv-cost" -q --terrain "$d" --soils "$DATA/classes/soils.csv" --rules "$DATA/fuzzy/mobility.fcl" "$@"
}
speed() { # DIR [options]: trv-speed with the test's tables
    d=$1
    shift
    "$S" -q --terrain "$d" --vehicle "$DATA/vehicles/$VEH" --soils "$DATA/classes/soils.csv" \
        --landuse-classes "$DATA/classes/landuse.csv" "$@"
}
if ! $PY -c 'from osgeo import gdal; import numpy' 2>/dev/null; then
    skip "python3 with osgeo and numpy is needed"
    summary tool_realize
    exit $?
fi
if ! terrain90 "$tmp/t" "$VEH"; then
    bad "cannot make the 90 m terrain"
    summary tool_realize
    exit 1
fi

# --- planes of known slope: P(NOGO by slope) = #{slope_k > 25 deg} / N ------
$PY - "$tmp/t/dem.tif" "$tmp/planes.tif" <<'EOF'
import sys, numpy as np
from osgeo import gdal
ds = gdal.Open(sys.argv[1]); gt = ds.GetGeoTransform(); nx, ny = ds.RasterXSize, ds.RasterYSize
dem = ds.GetRasterBand(1).ReadAsArray()
o = gdal.GetDriverByName('GTiff').Create(sys.argv[2], nx, ny, 6, gdal.GDT_Float32)
o.SetGeoTransform(gt); o.SetProjection(ds.GetProjection())
x = (np.arange(nx) * gt[1])[None, :].repeat(ny, 0)
for k, deg in enumerate([5, 15, 24, 26, 35, 45]):
    z = (100 + x * np.tan(np.radians(deg))).astype(np.float32)
    z[dem == -9999] = -9999
    b = o.GetRasterBand(k + 1); b.WriteArray(z); b.SetNoDataValue(-9999)
EOF
cp -r "$tmp/t" "$tmp/p"
if speed "$tmp/p" --realizations "$tmp/planes.tif"; then
    out=$($PY - "$tmp/p" <<'EOF'
import sys, numpy as np
from osgeo import gdal
d = sys.argv[1]
def rd(f):
    ds = gdal.Open(d + '/' + f)
    return ds.GetRasterBand(1).ReadAsArray()
ps, p, go = rd('p_nogo_slope.tif'), rd('p_nogo.tif'), rd('gonogo.tif')
data = ps != -9999
bad = []
if not data.any(): bad.append('no cell with data')
# cells whose neighbours on the grid all have data (Horn takes the centre
# for a nodata neighbour; off the grid it extrapolates, exact on a plane)
pad = np.pad(data, 1, mode='edge')
full = np.all([pad[1 + i:1 + i + data.shape[0], 1 + j:1 + j + data.shape[1]] for i in (-1, 0, 1) for j in (-1, 0, 1)], axis=0)
if full.sum() < 1000 or np.any(ps[full] != np.float32(3 / 6)): bad.append('P(NOGO by slope) != 0.5 at %d of %d cells' % (np.sum(ps[full] != np.float32(0.5)), full.sum()))
# soil or land-use NOGO in the flat run: NOGO in every realisation
sl = data & ((go == 2) | (go == 3))
if not sl.any() or np.any(p[sl] != 1): bad.append('P(NOGO) != 1 on soil/land-use NOGO cells')
if np.any(p[data] < ps[data]): bad.append('P(NOGO) < P(NOGO by slope)')
if np.any(ps[~data] != -9999): bad.append('nodata cells not -9999')
print('; '.join(bad) or 'OK')
EOF
)
    if [ "$out" = OK ]; then ok; else bad "planes: $out"; fi
else
    bad "trv-speed --realizations planes.tif failed"
fi

# --- against numpy over the deterministic pipeline, band by band -----------
$PY - "$tmp/t/dem.tif" "$tmp/sim.tif" "$tmp" <<'EOF'
import sys, numpy as np
from osgeo import gdal
ds = gdal.Open(sys.argv[1]); dem = ds.GetRasterBand(1).ReadAsArray()
rng = np.random.default_rng(17); N = 7
o = gdal.GetDriverByName('GTiff').Create(sys.argv[2], ds.RasterXSize, ds.RasterYSize, N, gdal.GDT_Float32,
                                         ['TILED=YES', 'COMPRESS=DEFLATE'])
o.SetGeoTransform(ds.GetGeoTransform()); o.SetProjection(ds.GetProjection())
for k in range(N):
    z = (dem + rng.normal(0, 6, dem.shape)).astype(np.float32); z[dem == -9999] = -9999
    b = o.GetRasterBand(k + 1); b.WriteArray(z); b.SetNoDataValue(-9999)
    one = gdal.GetDriverByName('GTiff').Create('%s/band%d.tif' % (sys.argv[3], k), ds.RasterXSize, ds.RasterYSize, 1,
                                               gdal.GDT_Float32)
    one.SetGeoTransform(ds.GetGeoTransform()); one.SetProjection(ds.GetProjection())
    one.GetRasterBand(1).WriteArray(z); one.GetRasterBand(1).SetNoDataValue(-9999)
EOF
refs=ok
for k in 0 1 2 3 4 5 6; do
    "$BIN/trv-terrain" -q --dem "$tmp/band$k.tif" --soil "$DATA/jacksboro/soil_7p5arcsec.tif" \
        --landuse "$DATA/jacksboro/landuse_30m_utm16n.tif" --soil-classes "$DATA/classes/soils.csv" \
        --landuse-classes "$DATA/classes/landuse.csv" -o "$tmp/b$k" && speed "$tmp/b$k" && cost "$tmp/b$k" || refs=
done
cp -r "$tmp/t" "$tmp/s"
if [ -z "$refs" ]; then
    bad "the per-band reference runs failed"
elif (export TRV_BLOCK_COLS=7 TRV_BLOCK_ROWS=7 && speed "$tmp/s" --realizations "$tmp/sim.tif" &&
    cost "$tmp/s" --realizations "$tmp/sim.tif"); then
    out=$($PY - "$tmp" <<'EOF'
import sys, numpy as np
from osgeo import gdal
d = sys.argv[1]
def rd(f):
    ds = gdal.Open(d + '/' + f)
    return ds.GetRasterBand(1).ReadAsArray()
v = np.array([rd('b%d/speed.tif' % k) for k in range(7)]).astype(np.float64)
c = np.array([rd('b%d/cost.tif' % k) for k in range(7)]).astype(np.float64)
g = np.array([rd('b%d/gonogo.tif' % k) for k in range(7)])
data = ~np.any(g == 5, axis=0)
bad = []
want = {'p_nogo.tif': np.mean((g >= 1) & (g <= 4), axis=0), 'p_nogo_slope.tif': np.mean(g == 1, axis=0),
        'speed_mean.tif': v.mean(axis=0), 'speed_p10.tif': np.percentile(v, 10, axis=0),
        'speed_p50.tif': np.percentile(v, 50, axis=0), 'speed_p90.tif': np.percentile(v, 90, axis=0),
        'cost_mean.tif': c.mean(axis=0), 'cost_std.tif': c.std(axis=0)}
for f, w in want.items():
    got = rd('s/' + f)
    err = np.abs(got[data] - w[data].astype(np.float32)).max()
    if not err <= 1e-4: bad.append('%s off numpy by %g' % (f, err))
    if np.any(got[~data] != -9999): bad.append('%s: nodata cells not -9999' % f)
if (want['cost_std.tif'][data] > 0.01).sum() < 100: bad.append('cost hardly varies: the check is weak')
u = (want['p_nogo.tif'] > 0) & (want['p_nogo.tif'] < 1) & data
if u.sum() < 100: bad.append('only %d uncertain cells: the check is weak' % u.sum())
print('; '.join(bad) or 'OK')
EOF
)
    if [ "$out" = OK ]; then ok; else bad "numpy: $out"; fi
    # speed.json's counts against the maps
    n=$($PY -c "import json,sys; r=json.load(open('$tmp/s/speed.json'))['realizations']; print(r['count'], r['always_go']+r['always_nogo']+r['uncertain']==r['cells_with_data'])")
    if [ "$n" = "7 True" ]; then ok; else bad "speed.json realizations: $n"; fi
    # speed.json's and cost.json's figures and cost_std.qml's range against
    # numpy over the maps; the means are the exact sums of the float32
    # cells (math.fsum), rounded once, divided by the count, printed %.10g
    out=$($PY - "$tmp/s" <<'EOF'
import sys, json, numpy as np
from osgeo import gdal
d = sys.argv[1]
def rd(f):
    ds = gdal.Open(d + '/' + f)
    return ds.GetRasterBand(1).ReadAsArray()
p, sd = rd('p_nogo.tif'), rd('cost_std.tif')
r = json.load(open(d + '/speed.json'))['realizations']; c = json.load(open(d + '/cost.json'))['realizations']
pd, sdd = p[p != -9999].astype(np.float64), sd[sd != -9999].astype(np.float64)
want = {'cells_with_data': pd.size, 'always_go': int((pd == 0).sum()), 'always_nogo': int((pd == 1).sum()),
        'uncertain': int(((pd > 0) & (pd < 1)).sum())}
bad = ['%s %s, numpy %s' % (k, r[k], v) for k, v in want.items() if r[k] != v]
import math
for k, got, v, npv in (('p_nogo_mean', r['p_nogo_mean'], math.fsum(pd) / pd.size, pd.mean()),
                       ('cost_std_mean', c['cost_std_mean'], math.fsum(sdd) / sdd.size, sdd.mean()),
                       ('cost_std_max', c['cost_std_max'], sdd.max(), sdd.max())):
    if got != float('%.10g' % v) or not abs(got - npv) <= 1e-9 * max(1, abs(npv)):
        bad.append('%s %r, exact %r, numpy %r' % (k, got, v, npv))
if c['count'] != 7 or sdd.size != pd.size: bad.append('cost.json count %s, %d cells' % (c['count'], sdd.size))
import re  # cost_std.qml's range: 0 to the data's largest value (rnd_layer_range for a standard deviation)
q = open(d + '/cost_std.qml').read()
lo, hi = (float(re.search(k + '="([^"]*)"', q).group(1)) for k in ('classificationMin', 'classificationMax'))
if lo != 0 or not abs(hi - sdd.max()) <= 1e-9: bad.append('cost_std.qml range %g..%g, data max %r' % (lo, hi, sdd.max()))
print('; '.join(bad) or 'OK')
EOF
)
    if [ "$out" = OK ]; then ok; else bad "summaries: $out"; fi
else
    bad "trv-speed --realizations sim.tif failed"
fi

# --- with --zones: baked into every realisation. Three boxes of 15 x 15
# cells (edges a quarter cell inside, so that "all touched" and "centre
# inside" are the same cells): nogo, factor 2, max_speed 10 km/h; the
# reference is numpy over the per-band runs above with the zones applied
# by hand (nogo: speed 0, NOGO; GO cells: v / 2, min(v, 10)) ----------------
$PY - "$tmp/t/dem.tif" "$tmp/zones.json" <<'EOF'
import sys, json
from osgeo import gdal
ds = gdal.Open(sys.argv[1]); gt = ds.GetGeoTransform(); nx, ny = ds.RasterXSize, ds.RasterYSize
feats = []
for k, (fy, fx, eff, val) in enumerate([(0.3, 0.3, 'nogo', 0), (0.5, 0.55, 'factor', 2), (0.7, 0.7, 'max_speed', 10)]):
    c0, r0 = int(fx * nx), int(fy * ny)
    x0, x1 = gt[0] + (c0 + 0.25) * gt[1], gt[0] + (c0 + 14.75) * gt[1]
    y0, y1 = gt[3] + (r0 + 14.75) * gt[5], gt[3] + (r0 + 0.25) * gt[5]
    feats.append({"type": "Feature", "id": k + 1, "properties": {"effect": eff, "value": val, "c0": c0, "r0": r0},
                  "geometry": {"type": "Polygon", "coordinates": [[[x0, y0], [x1, y0], [x1, y1], [x0, y1], [x0, y0]]]}})
json.dump({"type": "FeatureCollection", "crs": {"type": "name", "properties": {"name": "urn:ogc:def:crs:EPSG::32616"}},
           "features": feats}, open(sys.argv[2], "w"))
EOF
cp -r "$tmp/t" "$tmp/z"
if [ -z "$refs" ]; then
    bad "the per-band reference runs failed"
elif (export TRV_BLOCK_COLS=7 TRV_BLOCK_ROWS=7 && speed "$tmp/z" --realizations "$tmp/sim.tif" --zones "$tmp/zones.json"); then
    out=$($PY - "$tmp" <<'EOF'
import sys, json, numpy as np
from osgeo import gdal
d = sys.argv[1]
def rd(f):
    ds = gdal.Open(d + '/' + f)
    return ds.GetRasterBand(1).ReadAsArray()
v = np.array([rd('b%d/speed.tif' % k) for k in range(7)]).astype(np.float32)
g = np.array([rd('b%d/gonogo.tif' % k) for k in range(7)])
data = ~np.any(g == 5, axis=0)
bad = []
for f in json.load(open(d + '/zones.json'))['features']:
    p = f['properties']; box = (slice(None), slice(p['r0'], p['r0'] + 15), slice(p['c0'], p['c0'] + 15))
    go = g[box] == 0
    if go.sum() < 100: bad.append('%s: only %d GO cells in the box, the check is weak' % (p['effect'], go.sum()))
    if p['effect'] == 'nogo':
        v[box] = np.where(g[box] == 5, v[box], 0); g[box] = np.where(g[box] == 5, 5, 6)
    elif p['effect'] == 'factor':
        v[box] = np.where(go, v[box] / np.float32(p['value']), v[box])
    else:
        v[box] = np.where(go, np.minimum(v[box], np.float32(p['value'])), v[box])
        if not (v[box][go] == p['value']).any(): bad.append('the cap binds nowhere: the check is weak')
v = v.astype(np.float64)
want = {'p_nogo.tif': np.mean(((g >= 1) & (g <= 4)) | (g == 6), axis=0), 'p_nogo_slope.tif': np.mean(g == 1, axis=0),
        'speed_mean.tif': v.mean(axis=0), 'speed_p10.tif': np.percentile(v, 10, axis=0),
        'speed_p50.tif': np.percentile(v, 50, axis=0), 'speed_p90.tif': np.percentile(v, 90, axis=0)}
for f, w in want.items():
    err = np.abs(rd('z/' + f)[data] - w[data].astype(np.float32)).max()
    if not err <= 1e-4: bad.append('%s off numpy by %g' % (f, err))
print('; '.join(bad) or 'OK')
EOF
)
    if [ "$out" = OK ]; then ok; else bad "--zones: $out"; fi
else
    bad "trv-speed --realizations sim.tif --zones failed"
fi

# --- one band = dem.tif: the deterministic maps ------------------------------
cp -r "$tmp/t" "$tmp/one"
if speed "$tmp/one" --realizations "$tmp/t/dem.tif"; then
    out=$($PY - "$tmp/one" <<'EOF'
import sys, numpy as np
from osgeo import gdal
d = sys.argv[1]
def rd(f):
    ds = gdal.Open(d + '/' + f)
    return ds.GetRasterBand(1).ReadAsArray()
s, g = rd('speed.tif'), rd('gonogo.tif'); data = g != 5
bad = [f for f in ('speed_p10.tif', 'speed_p50.tif', 'speed_p90.tif', 'speed_mean.tif') if np.any(rd(f)[data] != s[data])]
if np.any(rd('p_nogo.tif')[data] != ((g[data] >= 1) & (g[data] <= 4))): bad.append('p_nogo.tif')
print(' '.join(bad) or 'OK')
EOF
)
    if [ "$out" = OK ]; then ok; else bad "one band of dem.tif: differs from speed.tif/gonogo.tif in $out"; fi
else
    bad "trv-speed --realizations dem.tif failed"
fi

# --- the same stack: the same bytes --------------------------------------------
cp -r "$tmp/t" "$tmp/s2"
mkdir -p "$tmp/x" && cp "$tmp/sim.tif" "$tmp/x/sim.tif"
if (cd "$tmp" && speed s2 --realizations x/sim.tif) && (cd "$tmp" && mv s2 s2a && cp -r t s2 && speed s2 --realizations x/sim.tif); then
    same=1
    for f in p_nogo.tif p_nogo_slope.tif speed_mean.tif speed_p10.tif speed_p50.tif speed_p90.tif p_nogo.qml; do
        cmp -s "$tmp/s2a/$f" "$tmp/s2/$f" || same=
    done
    if [ -n "$same" ]; then ok; else bad "two runs on the same stack differ"; fi
else
    bad "the determinism runs failed"
fi

# --- bad stacks ------------------------------------------------------------------
expect() { # status message dir -- command...: and no p_nogo.tif in dir
    want=$1 msg=$2 dir=$3
    shift 4
    "$@" >"$tmp/stdout" 2>"$tmp/stderr"
    got=$?
    if [ "$got" != "$want" ]; then bad "$* -> exit $got, want $want ($(cat "$tmp/stderr"))"; return; fi
    if ! grep -qF -- "$msg" "$tmp/stderr"; then bad "$* -> stderr lacks '$msg': $(cat "$tmp/stderr")"; return; fi
    if [ -e "$dir/p_nogo.tif" ]; then bad "$* left outputs in $dir"; return; fi
    ok
}
gdal_translate -q -srcwin 0 0 100 100 "$tmp/sim.tif" "$tmp/small.tif"
cp -r "$tmp/t" "$tmp/bad"
expect 1 "does not match" "$tmp/bad" -- speed "$tmp/bad" --realizations "$tmp/small.tif"
expect 1 "cannot open '$tmp/none.tif': no such file" "$tmp/bad" -- speed "$tmp/bad" --realizations "$tmp/none.tif"
: >"$tmp/empty.tif"
expect 1 "empty file" "$tmp/bad" -- speed "$tmp/bad" --realizations "$tmp/empty.tif"
# --- a band damaged mid-stream (a tile of the second row of tiles, band 3,
# its DEFLATE data zeroed: read when the blocks of 7 rows reach row 255):
# exit 1 naming the stack, and the run directory as it was (no output of
# the stage, not even the deterministic maps computed before, no temporary)
$PY - "$tmp/sim.tif" "$tmp/damaged.tif" <<'EOF'
import sys, shutil
from osgeo import gdal
shutil.copy(sys.argv[1], sys.argv[2])
ds = gdal.Open(sys.argv[2]); b = ds.GetRasterBand(3)  # ds held: a band outlives no dataset
off = int(b.GetMetadataItem('BLOCK_OFFSET_1_1', 'TIFF')); size = int(b.GetMetadataItem('BLOCK_SIZE_1_1', 'TIFF'))
ds = None
with open(sys.argv[2], 'r+b') as f:
    f.seek(off); f.write(bytes(size))
EOF
cp -r "$tmp/t" "$tmp/dm"
(cd "$tmp/dm" && ls -l --time-style=+%s . && cksum ./*) >"$tmp/before"
damaged() { # what: the run directory unchanged after a failure naming the stack
    if [ "$got" != 1 ]; then bad "$1 -> exit $got, want 1 ($(cat "$tmp/stderr"))"; return; fi
    if ! grep -qF -- "cannot read '$tmp/damaged.tif'" "$tmp/stderr"; then bad "$1 -> stderr: $(cat "$tmp/stderr")"; return; fi
    (cd "$tmp/dm" && ls -l --time-style=+%s . && cksum ./*) >"$tmp/after"
    if cmp -s "$tmp/before" "$tmp/after"; then ok; else bad "$1 changed the run directory: $(diff "$tmp/before" "$tmp/after")"; fi
}
(export TRV_BLOCK_ROWS=7 && speed "$tmp/dm" --realizations "$tmp/damaged.tif") >"$tmp/stdout" 2>"$tmp/stderr"
got=$?
damaged "trv-speed --realizations damaged.tif"
(export TRV_BLOCK_ROWS=7 && cost "$tmp/dm" --realizations "$tmp/damaged.tif") >"$tmp/stdout" 2>"$tmp/stderr"
got=$?
damaged "trv-cost --realizations damaged.tif"
summary tool_realize
