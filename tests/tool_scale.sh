#!/bin/sh
# The streamed raster stages (docs/scale.md): trv-terrain, trv-speed and
# trv-cost by tiles. For each: the same bytes for block
# heights 1, 7, 64 and the whole raster (TRV_BLOCK_ROWS); trv-terrain, trv-speed and
# trv-cost the same bytes for tiles of 1 x 64, 7 x 7, 64 x 1, 13 x the
# height and 256 x 256 as one tile (TRV_BLOCK_COLS), and their peak memory
# on a 40000 x 300 raster against a 2000 x 300 one; the slope at every row (so at
# every block seam) equal to gdaldem's; every layer a valid Cloud-Optimized
# GeoTIFF (checked with GDAL through python3: layout, tiles, overviews, IFDs
# before the image data, overview data before the full resolution's);
# trv-speed --zones the same bytes for every block height and against
# GDAL's rasterizer at blocks of 7 rows; peak memory on a 512 x 40000
# raster against a 512 x 2000 one (trv-terrain; trv-speed with and without
# --zones); trv-speed and trv-cost --realizations, with and without
# --zones: the same bytes for every tile, and their peak memory on the
# tall raster against the short one and on the wide raster against the
# narrow one; trv-render the same PNG bytes for every tile (TRV_BLOCK_COLS
# x TRV_BLOCK_ROWS) and its peak memory on the 40000 x 300 raster against
# the 2000 x 300 one. Ends with
# "N passed, N failed, N skipped".
set -u
BIN=${TRV_BIN:-bin}
DATA=${TRV_DATADIR:-data}
J=$DATA/jacksboro
CLASSES="--soil-classes $DATA/classes/soils.csv --landuse-classes $DATA/classes/landuse.csv"
tmp=$(mktemp -d /tmp/trv-scale-test-XXXXXX)
trap 'rm -rf "$tmp"' EXIT
. "$(dirname "$0")/lib.sh"

find_gdal_python

gdalwarp -q -t_srs EPSG:32616 -tr 30 30 -tap -r bilinear -ot Float32 -dstnodata -32768 "$J/dem_3arcsec.tif" "$tmp/dem30.tif" ||
    { echo "cannot prepare the test DEM"; exit 1; }

# stages ROWS: the three stages into $tmp/run (always that path: the
# command line is in the files' metadata), moved to $tmp/rROWS
stages() {
    rm -rf "$tmp/run"
    TRV_BLOCK_ROWS=$1 "$BIN/trv-terrain" -q --dem "$tmp/dem30.tif" --soil "$J/soil_7p5arcsec.tif" \
        --landuse "$J/landuse_30m_utm16n.tif" $CLASSES --points "$tmp/run/points.csv" -o "$tmp/run" &&
    TRV_BLOCK_ROWS=$1 "$BIN/trv-speed" -q --terrain "$tmp/run" --vehicle "$DATA/vehicles/ugv_hua2022.ini" \
        --soils "$DATA/classes/soils.csv" --landuse-classes "$DATA/classes/landuse.csv" &&
    TRV_BLOCK_ROWS=$1 "$BIN/trv-cost" -q --terrain "$tmp/run" --rules "$DATA/fuzzy/mobility.fcl" \
        --soils "$DATA/classes/soils.csv" && mv "$tmp/run" "$tmp/r$1"
}
FILES="dem.tif slope.tif soil.tif landuse.tif points.csv terrain.json dem.qml slope.qml speed.tif gonogo.tif limit.tif
speed.json cost.tif class.tif cost.json cost.qml"

# ---- block-size independence ----
for rows in 1000000 1 7 64; do
    stages $rows && ok || bad "the stages with TRV_BLOCK_ROWS=$rows failed"
done
for rows in 1 7 64; do
    for f in $FILES; do
        cmp -s "$tmp/r1000000/$f" "$tmp/r$rows/$f" && ok || bad "$f differs between block heights $rows and the whole raster"
    done
done
# the check can fail: another input gives other bytes
cmp -s "$tmp/r1000000/slope.tif" "$tmp/r7/dem.tif" && bad "cmp finds different layers equal" || ok

# ---- trv-terrain by tiles (TRV_BLOCK_COLS x TRV_BLOCK_ROWS): every
# output the same bytes for tiles of 1 x 64, 7 x 7, 64 x 1, 13 x the
# height and 256 x 256 as for the whole raster as one tile; with --points
# and --ept at 7 x 7 (the EPT's records put in row order through scratch
# files, its bands sorted by groups of node columns: TRV_EPT_BAND=1000
# records) every output the same as one tile's, and the points as the
# runs above (the layers' metadata hold the command line, so only the
# points compare across these runs) ----
TER_FILES="dem.tif slope.tif soil.tif landuse.tif terrain.json dem.qml slope.qml soil.tif.aux.xml landuse.tif.aux.xml"
ter_tiles() { # ter_tiles COLS ROWS [options]
    c=$1 r=$2
    shift 2
    rm -rf "$tmp/run" && TRV_BLOCK_COLS=$c TRV_BLOCK_ROWS=$r "$BIN/trv-terrain" -q --dem "$tmp/dem30.tif"         --soil "$J/soil_7p5arcsec.tif" --landuse "$J/landuse_30m_utm16n.tif" $CLASSES "$@" -o "$tmp/run" &&
        rm -rf "$tmp/t${c}x$r" && mv "$tmp/run" "$tmp/t${c}x$r"
}
ter_tiles 1000000 1000000 && ok || bad "trv-terrain as one tile failed"
for t in 1x64 7x7 64x1 13x1000000 256x256; do
    ter_tiles "${t%x*}" "${t#*x}" || bad "trv-terrain by tiles of $t failed"
    for f in $TER_FILES; do
        cmp -s "$tmp/t1000000x1000000/$f" "$tmp/t$t/$f" && ok || bad "trv-terrain: $f differs between tiles of $t and one tile"
    done
done
ter_tiles 1000000 1000000 --points "$tmp/run/points.csv" --ept "$tmp/run/ept" && mv "$tmp/t1000000x1000000" "$tmp/tp_whole" &&
    TRV_EPT_BAND=1000 ter_tiles 7 7 --points "$tmp/run/points.csv" --ept "$tmp/run/ept" &&
    diff -r "$tmp/tp_whole" "$tmp/t7x7" >/dev/null && ok ||
    bad "trv-terrain --points --ept differ between tiles of 7 x 7 and one tile"
cmp -s "$tmp/tp_whole/points.csv" "$tmp/r1000000/points.csv" && ok || bad "trv-terrain: points.csv differs from the stages' run"
# --points alone runs by square tiles (each tile's lines through a scratch
# file, a row of tiles copied out row by row): every output the same bytes
# at tiles of 1 x 64, 7 x 7, 64 x 1, 13 x the height and 256 x 256 as one
# tile's (and its points as the stages' run above)
ter_tiles 1000000 1000000 --points "$tmp/run/points.csv" && mv "$tmp/t1000000x1000000" "$tmp/tq_whole" ||
    bad "trv-terrain --points as one tile failed"
cmp -s "$tmp/tq_whole/points.csv" "$tmp/r1000000/points.csv" && ok || bad "trv-terrain: points.csv differs from the stages' run"
for t in 1x64 7x7 64x1 13x1000000 256x256; do
    ter_tiles "${t%x*}" "${t#*x}" --points "$tmp/run/points.csv" && diff -r "$tmp/tq_whole" "$tmp/t$t" >/dev/null && ok ||
        bad "trv-terrain --points differs between tiles of $t and one tile"
done

# ---- trv-speed and trv-cost by tiles (TRV_BLOCK_COLS x TRV_BLOCK_ROWS):
# the same bytes for tiles of 1 x 64, 7 x 7, 64 x 1, 13 x the whole height
# and the default 256 x 256 as for the whole raster as one tile (and as
# the runs above) ----
SPEED_COST="speed.tif gonogo.tif limit.tif speed.json speed.qml gonogo.tif.aux.xml limit.tif.aux.xml cost.tif class.tif
cost.json cost.qml class.tif.aux.xml"
cost_tiles() {
    rm -rf "$tmp/run" && cp -r "$tmp/r1000000" "$tmp/run" &&
    TRV_BLOCK_COLS=$1 TRV_BLOCK_ROWS=$2 "$BIN/trv-speed" -q --terrain "$tmp/run" --vehicle "$DATA/vehicles/ugv_hua2022.ini" \
        --soils "$DATA/classes/soils.csv" --landuse-classes "$DATA/classes/landuse.csv" &&
    TRV_BLOCK_COLS=$1 TRV_BLOCK_ROWS=$2 "$BIN/trv-cost" -q --terrain "$tmp/run" --rules "$DATA/fuzzy/mobility.fcl" \
        --soils "$DATA/classes/soils.csv" && rm -rf "$tmp/c$1x$2" && mv "$tmp/run" "$tmp/c$1x$2"
}
cost_tiles 1000000 1000000 && ok || bad "trv-speed and trv-cost as one tile failed"
for t in 1x64 7x7 64x1 13x1000000 256x256; do
    cost_tiles "${t%x*}" "${t#*x}" || bad "trv-speed and trv-cost by tiles of $t failed"
    for f in $SPEED_COST; do
        cmp -s "$tmp/c1000000x1000000/$f" "$tmp/c$t/$f" && ok || bad "$f differs between tiles of $t and one tile"
    done
done
for f in speed.tif gonogo.tif speed.json cost.tif class.tif cost.json; do
    cmp -s "$tmp/c1000000x1000000/$f" "$tmp/r1000000/$f" && ok || bad "$f differs between one tile and the stages' run"
done

# ---- trv-speed --zones: the zones burned tile by tile (all touched) ----
# the same bytes for every tile (TRV_BLOCK_COLS x TRV_BLOCK_ROWS: 256 x 1,
# 256 x 7, 256 x 64, 7 x 7 and 64 x 1) as for the whole raster as one tile
# (one burn of the whole grid), and at tiles of 7 x 7 the maps against
# GDAL's rasterizer (tests/speed_zones_check.py; the zones cross many seams)
ZCHECK="$(dirname "$0")/speed_zones_check.py"
zoned() { # zoned NAME COLS ROWS
    rm -rf "$tmp/run" && cp -r "$tmp/r1000000" "$tmp/run" &&
    TRV_BLOCK_COLS=$2 TRV_BLOCK_ROWS=$3 "$BIN/trv-speed" -q --terrain "$tmp/run" --vehicle "$DATA/vehicles/ugv_hua2022.ini" \
        --soils "$DATA/classes/soils.csv" --landuse-classes "$DATA/classes/landuse.csv" \
        --zones "$tmp/zones.geojson" --crossings "$tmp/zones_cross.geojson" && mv "$tmp/run" "$tmp/z$1"
}
if [ -z "$PY" ]; then
    skip_pkg python3-gdal "python3 with GDAL and numpy is needed to draw the zones"
elif "$PY" "$ZCHECK" make "$tmp/r1000000" "$tmp/zones.geojson" "$tmp/zones_cross.geojson"; then
    for t in 1000000:1000000:1000000 1:256:1 7:256:7 64:256:64 7x7:7:7 64x1:64:1; do
        name=${t%%:*} rest=${t#*:}
        zoned "$name" "${rest%:*}" "${rest#*:}" && ok || bad "trv-speed --zones with tiles $rest failed"
    done
    for name in 1 7 64 7x7 64x1; do
        for f in speed.tif gonogo.tif limit.tif speed.json; do
            cmp -s "$tmp/z1000000/$f" "$tmp/z$name/$f" && ok || bad "--zones: $f differs between tiles $name and the whole raster"
        done
    done
    "$PY" "$ZCHECK" maps "$tmp/r7" "$tmp/z7x7" "$tmp/zones.geojson" >"$tmp/zmaps" 2>&1 && ok ||
        bad "--zones at tiles of 7 x 7 against GDAL's rasterizer: $(cat "$tmp/zmaps")"
else
    bad "cannot draw the zones"
fi

# ---- trv-speed and trv-cost --realizations by tiles (TRV_BLOCK_COLS x
# TRV_BLOCK_ROWS): the same bytes for tiles of 1 x 64, 7 x 7, 64 x 1, 13 x
# the height, 256 x 256 and full-width blocks of 1, 7 and 64 rows as for
# the whole raster as one tile, with and without --zones (a stack of 4
# noisy copies of the DEM: realisations that differ at every seam, Horn's
# halo across each; the values against numpy: tests/tool_realize.sh) ----
# mksim DEM OUT N: N bands, band k the DEM plus seeded noise of 3 m (its
# nodata cells kept), written by blocks of 1000 rows
mksim() {
    "$PY" - "$@" <<'PYEOF'
import sys, numpy as np
from osgeo import gdal
src = gdal.Open(sys.argv[1]); nx, ny, n = src.RasterXSize, src.RasterYSize, int(sys.argv[3])
o = gdal.GetDriverByName('GTiff').Create(sys.argv[2], nx, ny, n, gdal.GDT_Float32, ['TILED=YES', 'COMPRESS=DEFLATE'])
o.SetGeoTransform(src.GetGeoTransform()); o.SetProjection(src.GetProjection())
rng = np.random.default_rng(5)
for y0 in range(0, ny, 1000):
    dem = src.GetRasterBand(1).ReadAsArray(0, y0, nx, min(1000, ny - y0))
    for k in range(n):
        z = (dem + rng.normal(0, 3, dem.shape)).astype(np.float32); z[dem == -9999] = -9999
        o.GetRasterBand(k + 1).WriteArray(z, 0, y0)
for k in range(n):
    o.GetRasterBand(k + 1).SetNoDataValue(-9999)
PYEOF
}
REAL_FILES="p_nogo.tif p_nogo_slope.tif speed_mean.tif speed_p10.tif speed_p50.tif speed_p90.tif speed.json p_nogo.qml
speed_p50.qml cost_mean.tif cost_std.tif cost.json cost_mean.qml cost_std.qml"
# realized COLSxROWS NAME [trv-speed options]: both tools' --realizations
# in a copy of r1000000 by tiles of COLS x ROWS, moved to $tmp/NAME
realized() {
    cols=${1%x*} rows=${1#*x} name=$2
    shift 2
    rm -rf "$tmp/run" && cp -r "$tmp/r1000000" "$tmp/run" &&
    TRV_BLOCK_COLS=$cols TRV_BLOCK_ROWS=$rows "$BIN/trv-speed" -q --terrain "$tmp/run" \
        --vehicle "$DATA/vehicles/ugv_hua2022.ini" --soils "$DATA/classes/soils.csv" \
        --landuse-classes "$DATA/classes/landuse.csv" --realizations "$tmp/sim.tif" "$@" &&
    TRV_BLOCK_COLS=$cols TRV_BLOCK_ROWS=$rows "$BIN/trv-cost" -q --terrain "$tmp/run" --rules "$DATA/fuzzy/mobility.fcl" \
        --soils "$DATA/classes/soils.csv" --realizations "$tmp/sim.tif" && mv "$tmp/run" "$tmp/$name"
}
REAL_TILES="1x64 7x7 64x1 13x1000000 256x256 1000000x1 1000000x7 1000000x64"
if [ -z "$PY" ]; then
    skip_pkg python3-gdal "python3 with GDAL and numpy is needed to make the realisations"
elif mksim "$tmp/r1000000/dem.tif" "$tmp/sim.tif" 4; then
    for t in 1000000x1000000 $REAL_TILES; do
        realized $t q$t && ok || bad "--realizations by tiles of $t failed"
        if [ -f "$tmp/zones.geojson" ]; then
            realized $t qz$t --zones "$tmp/zones.geojson" --crossings "$tmp/zones_cross.geojson" && ok ||
                bad "--realizations --zones by tiles of $t failed"
        fi
    done
    for t in $REAL_TILES; do
        for f in $REAL_FILES; do
            cmp -s "$tmp/q1000000x1000000/$f" "$tmp/q$t/$f" && ok ||
                bad "--realizations: $f differs between tiles of $t and the whole raster"
            [ -f "$tmp/zones.geojson" ] || continue
            cmp -s "$tmp/qz1000000x1000000/$f" "$tmp/qz$t/$f" && ok ||
                bad "--realizations --zones: $f differs between tiles of $t and the whole raster"
        done
    done
    # the zones changed the realisations (the check compares different maps)
    cmp -s "$tmp/q7x7/p_nogo.tif" "$tmp/qz7x7/p_nogo.tif" && bad "--zones left p_nogo.tif unchanged" || ok
    for f in p_nogo speed_p50 cost_std; do
        "$PY" "$(dirname "$0")/cog_check.py" "$tmp/q7x7/$f.tif" >"$tmp/cogres" 2>&1 && ok || bad "$f.tif: $(cat "$tmp/cogres")"
    done
else
    bad "cannot make the realisations"
fi

# ---- seams: slope at every row equals gdaldem's (Horn), blocks of 7 rows ----
if [ -z "$PY" ]; then
    skip_pkg python3-gdal "python3 with GDAL and numpy is needed to compare the slope with gdaldem's"
else
    gdaldem slope -q -compute_edges "$tmp/dem30.tif" "$tmp/gdaldem_slope.tif"
    "$PY" - "$tmp/r7/slope.tif" "$tmp/gdaldem_slope.tif" >"$tmp/seam" 2>&1 <<'PYEOF' && ok || bad "slope vs gdaldem at block seams: $(cat "$tmp/seam")"
import sys, numpy as np
from osgeo import gdal
da, db = gdal.Open(sys.argv[1]), gdal.Open(sys.argv[2])  # held: a band outlives no dataset
a = da.GetRasterBand(1).ReadAsArray().astype(float)
b = db.GetRasterBand(1).ReadAsArray().astype(float)
ok = (a != -9999) & (b != -9999) & np.isfinite(b)
rows = np.arange(a.shape[0])
bad = []
for seam in (rows[(rows % 7 == 0) | (rows % 7 == 6)]):
    d = np.abs(a[seam][ok[seam]] - b[seam][ok[seam]])
    if d.size and d.max() > 1e-3:
        bad.append((int(seam), float(d.max())))
if bad or ok.sum() < 0.9 * a.size:
    print("rows differ:", bad[:5], "cells compared", int(ok.sum()))
    sys.exit(1)
PYEOF
fi

# ---- Cloud-Optimized GeoTIFF validity ----
if [ -z "$PY" ]; then
    skip_pkg python3-gdal "python3 with GDAL is needed to check the COG structure"
else
    for f in dem slope soil landuse speed gonogo limit cost class; do
        "$PY" "$(dirname "$0")/cog_check.py" "$tmp/r64/$f.tif" >"$tmp/cogres" 2>&1 && ok || bad "$f.tif: $(cat "$tmp/cogres")"
    done
    # the overviews streamed: level 1 the mean of each 2 x 2 cells' data cells (Float32), the top-left cell (Byte)
    "$PY" - "$tmp/r64/slope.tif" "$tmp/r64/soil.tif" >"$tmp/ovr" 2>&1 <<'PYEOF' && ok || bad "overviews: $(cat "$tmp/ovr")"
import sys, numpy as np
from osgeo import gdal
ds, dc = gdal.Open(sys.argv[1]), gdal.Open(sys.argv[2])
a = ds.GetRasterBand(1).ReadAsArray().astype(float)
o = ds.GetRasterBand(1).GetOverview(0).ReadAsArray().astype(float)
h, w = a.shape
p = np.full(((h + 1) // 2 * 2, (w + 1) // 2 * 2), np.nan)
p[:h, :w] = np.where(a == -9999, np.nan, a)
q = p.reshape(p.shape[0] // 2, 2, p.shape[1] // 2, 2)
with np.errstate(invalid='ignore'):
    ref = np.nanmean(q, axis=(1, 3))
ref = np.where(np.isnan(ref), -9999, ref)
c = dc.GetRasterBand(1).ReadAsArray()
oc = dc.GetRasterBand(1).GetOverview(0).ReadAsArray()
if o.shape != ref.shape or np.abs(o - ref).max() > 1e-3 * max(1, np.abs(ref).max()) or not np.array_equal(oc, c[::2, ::2]):
    print("overview 1 is not the 2 x 2 mean / top-left cell", o.shape, ref.shape)
    sys.exit(1)
PYEOF
    # the check can fail: a plain tiled GeoTIFF is no COG
    gdal_translate -q -co TILED=YES "$tmp/r64/slope.tif" "$tmp/plain.tif"
    "$PY" "$(dirname "$0")/cog_check.py" "$tmp/plain.tif" >/dev/null 2>&1 && bad "the COG check passes a plain GeoTIFF" || ok
fi

# ---- memory: peak RSS of a 512 x 40000 raster against 512 x 2000 ----
if [ -z "$PY" ] || [ ! -x /usr/bin/time ]; then
    skip "python3 with GDAL and numpy, and /usr/bin/time, are needed for the memory check"
else
    "$PY" - "$tmp" <<'PYEOF' || bad "cannot make the tall rasters"
import sys, numpy as np
from osgeo import gdal, osr
srs = osr.SpatialReference(); srs.ImportFromEPSG(32616)
def mk(path, w, h, cell, typ, fill):
    d = gdal.GetDriverByName('GTiff').Create(path, w, h, 1, typ, ['TILED=YES', 'COMPRESS=DEFLATE'])
    d.SetGeoTransform([500000, cell, 0, 4000000, 0, -cell]); d.SetProjection(srs.ExportToWkt())
    for y0 in range(0, h, 1000):
        n = min(1000, h - y0)
        d.GetRasterBand(1).WriteArray(fill(y0, n, w), 0, y0)
for name, ny in (('short', 2000), ('tall', 40000)):
    mk(f'{sys.argv[1]}/{name}_dem.tif', 512, ny, 10, gdal.GDT_Float32,
       lambda y0, n, w: np.add.outer(np.arange(y0, y0 + n) * 0.3, np.sin(np.arange(w) / 7.0) * 5).astype(np.float32))
    mk(f'{sys.argv[1]}/{name}_soil.tif', 54, ny // 10 + 2, 100, gdal.GDT_Byte,
       lambda y0, n, w: (1 + (np.add.outer(np.arange(y0, y0 + n), np.arange(w)) // 3) % 3).astype(np.uint8))
    mk(f'{sys.argv[1]}/{name}_lu.tif', 174, ny // 3 + 2, 30, gdal.GDT_Byte, lambda y0, n, w: np.full((n, w), 3, np.uint8))
PYEOF
    for n in short tall; do
        TRV_BLOCK_ROWS=16 /usr/bin/time -f "%M" -o "$tmp/rss_$n" "$BIN/trv-terrain" -q --dem "$tmp/${n}_dem.tif" \
            --soil "$tmp/${n}_soil.tif" --landuse "$tmp/${n}_lu.tif" $CLASSES -o "$tmp/m_$n" || bad "trv-terrain on the $n raster"
    done
    short=$(tail -1 "$tmp/rss_short") tall=$(tail -1 "$tmp/rss_tall")
    # whole layers: DEM and slope Float32, soil and land use Byte: 10 bytes a
    # cell; what may grow is bounded (GDAL's cache) or grows as the log of
    # the height (one compressor per overview level and file)
    whole=$((512 * 40000 * 10 / 1024))
    [ $((tall - short)) -lt $((whole / 4)) ] && ok ||
        bad "peak RSS grew by $((tall - short)) KiB from 2000 to 40000 rows (the whole layers: $whole KiB)"
    [ "$short" -gt 0 ] && [ "$tall" -gt 0 ] && ok || bad "memory check misread: $short, $tall KiB"
    # trv-speed with and without --zones on both: the zones add no memory that
    # grows with the height (their burn of the whole raster: 1 byte a cell)
    for n in short tall; do
        "$PY" "$ZCHECK" make "$tmp/m_$n" "$tmp/z_$n.geojson" "$tmp/z_${n}_cross.geojson" || bad "cannot draw the $n zones"
        for z in plain zones; do
            ZO=
            [ $z = zones ] && ZO="--zones $tmp/z_$n.geojson --crossings $tmp/z_${n}_cross.geojson"
            TRV_BLOCK_ROWS=16 /usr/bin/time -f "%M" -o "$tmp/rss_${z}_$n" "$BIN/trv-speed" -q --terrain "$tmp/m_$n" \
                --vehicle "$DATA/vehicles/ugv_hua2022.ini" --soils "$DATA/classes/soils.csv" \
                --landuse-classes "$DATA/classes/landuse.csv" $ZO || bad "trv-speed ($z) on the $n raster"
        done
    done
    zs=$(tail -1 "$tmp/rss_zones_short") zt=$(tail -1 "$tmp/rss_zones_tall") pt=$(tail -1 "$tmp/rss_plain_tall")
    echo "trv-speed peak RSS: --zones $zs KiB (512 x 2000), $zt KiB (512 x 40000); without zones $pt KiB (512 x 40000)"
    burn=$((512 * 40000 / 1024))
    [ $((zt - zs)) -lt $((512 * 40000 * 12 / 1024 / 4)) ] && [ $((zt - pt)) -lt $((burn / 2)) ] && ok ||
        bad "trv-speed --zones: peak RSS $zs -> $zt KiB from 2000 to 40000 rows, $pt KiB without zones (a whole burn: $burn KiB)"
    # --realizations (2 bands) on both: trv-speed's and trv-cost's peak RSS
    # may not grow with the height (the six speed outputs held whole: 24
    # bytes a cell)
    for n in short tall; do
        mksim "$tmp/m_$n/dem.tif" "$tmp/sim_$n.tif" 2 || bad "cannot make the $n realisations"
        TRV_BLOCK_ROWS=16 /usr/bin/time -f "%M" -o "$tmp/rss_rs_$n" "$BIN/trv-speed" -q --terrain "$tmp/m_$n" \
            --vehicle "$DATA/vehicles/ugv_hua2022.ini" --soils "$DATA/classes/soils.csv" \
            --landuse-classes "$DATA/classes/landuse.csv" --realizations "$tmp/sim_$n.tif" ||
            bad "trv-speed --realizations on the $n raster"
        TRV_BLOCK_ROWS=16 /usr/bin/time -f "%M" -o "$tmp/rss_rc_$n" "$BIN/trv-cost" -q --terrain "$tmp/m_$n" \
            --rules "$DATA/fuzzy/mobility.fcl" --soils "$DATA/classes/soils.csv" --realizations "$tmp/sim_$n.tif" ||
            bad "trv-cost --realizations on the $n raster"
    done
    whole=$((512 * 40000 * 24 / 1024))
    for t in rs rc; do
        short=$(tail -1 "$tmp/rss_${t}_short") tall=$(tail -1 "$tmp/rss_${t}_tall")
        echo "--realizations ($t) peak RSS: $short KiB (512 x 2000), $tall KiB (512 x 40000)"
        [ "$short" -gt 0 ] && [ $((tall - short)) -lt $((whole / 4)) ] && ok ||
            bad "--realizations ($t): peak RSS $short -> $tall KiB from 2000 to 40000 rows (whole outputs: $whole KiB)"
    done
    # trv-terrain, trv-speed and trv-cost by tiles: their peak RSS on a
    # 40000 x 300 raster against a 2000 x 300 one grows by less than a fifth
    # of the whole layers (trv-cost: five inputs and two outputs, 19 bytes a
    # cell; trv-speed: three and three, 15; trv-terrain: its four outputs,
    # 10); what grows is bounded (GDAL's cache,
    # the compressors), not the width: trv-cost measured 67 -> 95 MiB,
    # 98 MiB at 200000 x 300 (by row blocks 96 -> 723 MiB, 2.6 GiB at
    # 200000); trv-speed 67 -> 83 MiB, 87 MiB at 200000 (by row blocks
    # 87 -> 536 MiB, 2.0 GiB). Temporaries on disk (TRV_BLOCK_MEM=0): those
    # kept in memory below 16 MiB would count.
    "$PY" - "$tmp" <<'PYEOF' || bad "cannot make the wide rasters"
import sys, numpy as np
from osgeo import gdal, osr
srs = osr.SpatialReference(); srs.ImportFromEPSG(32616)
def mk(path, w, h, cell, typ, a):
    d = gdal.GetDriverByName('GTiff').Create(path, w, h, 1, typ, ['TILED=YES', 'COMPRESS=DEFLATE'])
    d.SetGeoTransform([500000, cell, 0, 4000000, 0, -cell]); d.SetProjection(srs.ExportToWkt())
    d.GetRasterBand(1).WriteArray(a)
for name, nx in (('narrow', 2000), ('wide', 40000)):
    mk(f'{sys.argv[1]}/{name}_dem.tif', nx, 300, 10, gdal.GDT_Float32,
       np.add.outer(np.arange(300) * 0.3, np.sin(np.arange(nx) / 7.0) * 5).astype(np.float32))
    mk(f'{sys.argv[1]}/{name}_soil.tif', nx // 10 + 2, 32, 100, gdal.GDT_Byte,
       (1 + (np.add.outer(np.arange(32), np.arange(nx // 10 + 2)) // 3) % 3).astype(np.uint8))
    mk(f'{sys.argv[1]}/{name}_lu.tif', nx // 3 + 2, 102, 30, gdal.GDT_Byte, np.full((102, nx // 3 + 2), 3, np.uint8))
PYEOF
    for n in narrow wide; do
        TRV_BLOCK_MEM=0 /usr/bin/time -f "%M" -o "$tmp/rss_terrain_$n" "$BIN/trv-terrain" -q --dem "$tmp/${n}_dem.tif" \
            --soil "$tmp/${n}_soil.tif" --landuse "$tmp/${n}_lu.tif" $CLASSES -o "$tmp/m_$n" &&
        TRV_BLOCK_MEM=0 /usr/bin/time -f "%M" -o "$tmp/rss_speed_$n" "$BIN/trv-speed" -q --terrain "$tmp/m_$n" \
            --vehicle "$DATA/vehicles/ugv_hua2022.ini" \
            --soils "$DATA/classes/soils.csv" --landuse-classes "$DATA/classes/landuse.csv" &&
        TRV_BLOCK_MEM=0 /usr/bin/time -f "%M" -o "$tmp/rss_cost_$n" "$BIN/trv-cost" -q --terrain "$tmp/m_$n" \
            --rules "$DATA/fuzzy/mobility.fcl" --soils "$DATA/classes/soils.csv" || bad "the stages on the $n raster"
    done
    for t in terrain:10 speed:15 cost:19; do
        narrow=$(tail -1 "$tmp/rss_${t%:*}_narrow") wide=$(tail -1 "$tmp/rss_${t%:*}_wide")
        echo "trv-${t%:*} peak RSS: $narrow KiB (2000 x 300), $wide KiB (40000 x 300)"
        whole=$((40000 * 300 * ${t#*:} / 1024))
        [ "$narrow" -gt 0 ] && [ $((wide - narrow)) -lt $((whole / 5)) ] && ok ||
            bad "trv-${t%:*}: peak RSS $narrow -> $wide KiB from 2000 to 40000 columns (the whole layers: $whole KiB)"
    done
    # trv-terrain --ept by tiles: the same growth bound (the EPT's records
    # through scratch files, its bands sorted a group of node columns at a
    # time); measured 71 -> 84 MiB (tiles spanning the width and whole
    # bands: 89 -> 534 MiB)
    for n in narrow wide; do
        TRV_BLOCK_MEM=0 /usr/bin/time -f "%M" -o "$tmp/rss_ept_$n" "$BIN/trv-terrain" -q --dem "$tmp/${n}_dem.tif" \
            --soil "$tmp/${n}_soil.tif" --landuse "$tmp/${n}_lu.tif" $CLASSES --ept "$tmp/e_$n/ept" -o "$tmp/e_$n" ||
            bad "trv-terrain --ept on the $n raster"
    done
    narrow=$(tail -1 "$tmp/rss_ept_narrow") wide=$(tail -1 "$tmp/rss_ept_wide") whole=$((40000 * 300 * 10 / 1024))
    echo "trv-terrain --ept peak RSS: $narrow KiB (2000 x 300), $wide KiB (40000 x 300)"
    [ "$narrow" -gt 0 ] && [ $((wide - narrow)) -lt $((whole / 5)) ] && ok ||
        bad "trv-terrain --ept: peak RSS $narrow -> $wide KiB from 2000 to 40000 columns (the whole layers: $whole KiB)"
    # trv-render by windows: its peak RSS on the 40000 x 300 DEM shaded by
    # itself against the 2000 x 300 one grows by less than a fifth of the
    # whole layers (the layer and the DEM, Float32: 8 bytes a cell);
    # measured 67 -> 66 MiB (by row blocks 70 -> 291 MiB)
    for n in narrow wide; do
        /usr/bin/time -f "%M" -o "$tmp/rss_render_$n" "$BIN/trv-render" -q "$tmp/${n}_dem.tif" \
            --hillshade "$tmp/${n}_dem.tif" -o "$tmp/$n.png" || bad "trv-render on the $n raster"
    done
    narrow=$(tail -1 "$tmp/rss_render_narrow") wide=$(tail -1 "$tmp/rss_render_wide")
    echo "trv-render peak RSS: $narrow KiB (2000 x 300), $wide KiB (40000 x 300)"
    whole=$((40000 * 300 * 8 / 1024))
    [ "$narrow" -gt 0 ] && [ $((wide - narrow)) -lt $((whole / 5)) ] && ok ||
        bad "trv-render: peak RSS $narrow -> $wide KiB from 2000 to 40000 columns (the whole layers: $whole KiB)"
    # --realizations by tiles (2 bands) on both: peak RSS grows by less than
    # a fifth of the six speed outputs held whole (24 bytes a cell) from 2000
    # to 40000 columns (measured 85 -> 108 MiB and 76 -> 112 MiB; by
    # full-width row blocks trv-speed's grew 115 -> 994 MiB, trv-cost's
    # 107 -> 947 MiB: docs/scale.md)
    for n in narrow wide; do
        mksim "$tmp/m_$n/dem.tif" "$tmp/wsim_$n.tif" 2 || bad "cannot make the $n realisations"
        TRV_BLOCK_MEM=0 /usr/bin/time -f "%M" -o "$tmp/rss_wrs_$n" "$BIN/trv-speed" -q --terrain "$tmp/m_$n" \
            --vehicle "$DATA/vehicles/ugv_hua2022.ini" --soils "$DATA/classes/soils.csv" \
            --landuse-classes "$DATA/classes/landuse.csv" --realizations "$tmp/wsim_$n.tif" &&
        TRV_BLOCK_MEM=0 /usr/bin/time -f "%M" -o "$tmp/rss_wrc_$n" "$BIN/trv-cost" -q --terrain "$tmp/m_$n" \
            --rules "$DATA/fuzzy/mobility.fcl" --soils "$DATA/classes/soils.csv" --realizations "$tmp/wsim_$n.tif" ||
            bad "--realizations on the $n raster"
    done
    for t in wrs wrc; do
        narrow=$(tail -1 "$tmp/rss_${t}_narrow") wide=$(tail -1 "$tmp/rss_${t}_wide") whole=$((40000 * 300 * 24 / 1024))
        echo "--realizations ($t) peak RSS: $narrow KiB (2000 x 300), $wide KiB (40000 x 300)"
        [ "$narrow" -gt 0 ] && [ $((wide - narrow)) -lt $((whole / 5)) ] && ok ||
            bad "--realizations ($t): peak RSS $narrow -> $wide KiB from 2000 to 40000 columns (the six outputs whole: $whole KiB)"
    done
fi

# ---- trv-terrain's class maps read by windows (the aligner fetches the
# cells its lattice points fall in): a map finer than the DEM and one
# coarser, both in other CRSs, the same bytes for every block height and
# every tile ----
gdalwarp -q -t_srs EPSG:32617 -tr 10 10 -r near "$J/landuse_30m_utm16n.tif" "$tmp/lu_fine.tif" &&
gdalwarp -q -t_srs EPSG:5070 -tr 300 300 -r near "$J/soil_7p5arcsec.tif" "$tmp/soil_coarse.tif" ||
    bad "cannot prepare the reprojected class maps"
for rows in 1000000 1 7 64; do
    rm -rf "$tmp/cm"
    TRV_BLOCK_ROWS=$rows "$BIN/trv-terrain" -q --dem "$tmp/dem30.tif" --soil "$tmp/soil_coarse.tif" \
        --landuse "$tmp/lu_fine.tif" $CLASSES -o "$tmp/cm" && mv "$tmp/cm" "$tmp/cm$rows" ||
        bad "trv-terrain with reprojected class maps, TRV_BLOCK_ROWS=$rows"
done
for t in 1x64 7x7 64x1 13x1000000 256x256; do
    rm -rf "$tmp/cm"
    TRV_BLOCK_COLS=${t%x*} TRV_BLOCK_ROWS=${t#*x} "$BIN/trv-terrain" -q --dem "$tmp/dem30.tif" --soil "$tmp/soil_coarse.tif" \
        --landuse "$tmp/lu_fine.tif" $CLASSES -o "$tmp/cm" && mv "$tmp/cm" "$tmp/cm$t" ||
        bad "trv-terrain with reprojected class maps, tiles of $t"
done
for rows in 1 7 64 1x64 7x7 64x1 13x1000000 256x256; do
    for f in soil.tif landuse.tif terrain.json; do
        cmp -s "$tmp/cm1000000/$f" "$tmp/cm$rows/$f" && ok || bad "$f (reprojected class maps) differs between blocks or tiles $rows and the whole raster"
    done
done
# the maps were used: classes on most of the DEM's cells
if [ -n "$PY" ]; then
    "$PY" - "$tmp/cm1000000" <<'PYEOF' && ok || bad "the reprojected class maps left most cells unclassified"
import sys
from osgeo import gdal
for f in ('soil', 'landuse'):
    a = gdal.Open(f'{sys.argv[1]}/{f}.tif').ReadAsArray()
    assert (a > 0).mean() > 0.5, (f, (a > 0).mean())
PYEOF
fi

# ---- trv-render by windows: the same PNG bytes for every tile
# (TRV_BLOCK_COLS x TRV_BLOCK_ROWS: the whole raster as one, 1 x 1000000,
# 1 x 64, 7 x 7, 64 x 1, 13 x the whole height, 256 x 256; and block
# heights 1, 7, 64 at the default width) of a continuous layer over its
# own hillshade, a categorical one, a window, and a DEM in another CRS:
# shaded by nearest cell ----
gdalwarp -q -t_srs EPSG:32617 -tr 30 30 -r bilinear "$tmp/dem30.tif" "$tmp/dem17.tif" || bad "cannot prepare the UTM 17 DEM"
R=$tmp/r1000000
renders() { # renders NAME COLS ROWS
    export TRV_BLOCK_COLS=$2 TRV_BLOCK_ROWS=$3
    "$BIN/trv-render" -q "$R/slope.tif" --hillshade "$R/dem.tif" --legend -o "$tmp/png$1_slope.png" &&
    "$BIN/trv-render" -q "$R/class.tif" --hillshade "$R/dem.tif" --legend -o "$tmp/png$1_class.png" &&
    "$BIN/trv-render" -q "$R/dem.tif" --hillshade "$R/dem.tif" --te 740000 4045000 750000 4055000 \
        -o "$tmp/png$1_window.png" &&
    "$BIN/trv-render" -q "$R/soil.tif" --hillshade "$tmp/dem17.tif" -o "$tmp/png$1_crs.png"
    st=$?
    unset TRV_BLOCK_COLS TRV_BLOCK_ROWS
    return $st
}
TILES="1x1000000 1x64 7x7 64x1 13x1000000 256x256 256x1 256x7 256x64"
for t in 1000000x1000000 $TILES; do
    renders "$t" "${t%x*}" "${t#*x}" && ok || bad "trv-render by tiles of $t failed"
done
for t in $TILES; do
    for f in slope class window crs; do
        cmp -s "$tmp/png1000000x1000000_$f.png" "$tmp/png${t}_$f.png" && ok || bad "$f.png differs between tiles of $t and the whole raster"
    done
done
cmp -s "$tmp/png1000000x1000000_slope.png" "$tmp/png1000000x1000000_crs.png" && bad "cmp finds different maps equal" || ok

# peak RSS: a 512 x 2000 window at the top of the 512 x 40000 raster (a
# first pass over the whole layer for its colour range, then the window's
# rows) against the whole 512 x 2000 raster: the same map size, so the
# 38000 more rows may cost no more than a quarter of the whole layers
# (the layer and the DEM, Float32: 8 bytes a cell)
if [ -n "$PY" ] && [ -x /usr/bin/time ] && [ -f "$tmp/tall_dem.tif" ]; then
    TRV_BLOCK_ROWS=16 /usr/bin/time -f "%M" -o "$tmp/rss_render_short" "$BIN/trv-render" -q "$tmp/short_dem.tif" \
        --hillshade "$tmp/short_dem.tif" -o "$tmp/short.png" || bad "trv-render on the short raster"
    TRV_BLOCK_ROWS=16 /usr/bin/time -f "%M" -o "$tmp/rss_render_tall" "$BIN/trv-render" -q "$tmp/tall_dem.tif" \
        --hillshade "$tmp/tall_dem.tif" --te 500000 3980000 505120 4000000 -o "$tmp/tall.png" || bad "trv-render on the tall raster"
    short=$(tail -1 "$tmp/rss_render_short") tall=$(tail -1 "$tmp/rss_render_tall")
    echo "trv-render peak RSS: $short KiB (512 x 2000), $tall KiB (512 x 2000 window of 512 x 40000)"
    whole=$((512 * 40000 * 8 / 1024))
    [ $((tall - short)) -lt $((whole / 4)) ] && ok ||
        bad "trv-render: peak RSS grew by $((tall - short)) KiB from 2000 to 40000 rows (the whole layers: $whole KiB)"
else
    skip "python3 with GDAL and numpy, and /usr/bin/time, are needed for trv-render's memory check"
fi
summary tool_scale
