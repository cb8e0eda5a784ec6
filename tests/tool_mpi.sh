#!/bin/sh
# The MPI builds (docs/cluster.md): mpirun -np 2 and -np 4 --oversubscribe
# of bin/mpi/trv-terrain give the same bytes as the single-process
# trv-terrain (every output, blocks of 64 rows so every rank has blocks);
# a block that fails on another rank than 0 -> exit 1, the single-process
# run's message once, no output left; trv-speed (with and without --zones)
# and trv-cost --realizations the same bytes at -np 2 and 4, a realisation
# damaged on rank 1's block: the single-process message, nothing written. SKIPPED without mpirun or the MPI
# build. Ends with "N passed, N failed, N skipped".
set -u
BIN=${TRV_BIN:-bin}
DATA=${TRV_DATADIR:-data}
J=$DATA/jacksboro
CLASSES="--soil-classes data/classes/soils.csv --landuse-classes data/classes/landuse.csv"
tmp=$(mktemp -d /tmp/trv-mpi-test-XXXXXX)
trap 'rm -rf "$tmp"' EXIT
. "$(dirname "$0")/lib.sh"

if ! command -v mpirun >/dev/null 2>&1; then
    skip_pkg openmpi-bin "mpirun is not installed (openmpi-bin)"
    summary tool_mpi
    exit
fi
if [ ! -x "$BIN/mpi/trv-terrain" ]; then
    skip_pkg libopenmpi-dev "$BIN/mpi/trv-terrain is not built (libopenmpi-dev)"
    summary tool_mpi
    exit
fi
# mpirun refuses root unless told (CI runs as root)
ROOT=
[ "$(id -u)" = 0 ] && ROOT=--allow-run-as-root
export TRV_BLOCK_ROWS=64

gdalwarp -q -t_srs EPSG:32616 -tr 30 30 -tap -r bilinear -ot Float32 -dstnodata -32768 "$J/dem_3arcsec.tif" "$tmp/dem30.tif" ||
    { echo "cannot prepare the test DEM"; exit 1; }
IN="--dem $tmp/dem30.tif --soil $J/soil_7p5arcsec.tif --landuse $J/landuse_30m_utm16n.tif"

# run NAME COMMAND...: the terrain run into $tmp/o (the same argv, so the
# same metadata), then moved to $tmp/NAME
run() {
    name=$1
    shift
    if "$@" -q $IN $CLASSES --points "$tmp/o/points.csv" -o "$tmp/o" 2>"$tmp/stderr"; then ok; else bad "$name: $(cat "$tmp/stderr")"; fi
    mv "$tmp/o" "$tmp/$name"
}
run serial "$BIN/trv-terrain"
run np2 mpirun $ROOT -np 2 "$BIN/mpi/trv-terrain"
run np4 mpirun $ROOT -np 4 --oversubscribe "$BIN/mpi/trv-terrain"
n=$(ls "$tmp/serial" | wc -l)
[ "$n" -ge 9 ] && ok || bad "the serial run wrote $n files"
for np in np2 np4; do
    for f in $(ls "$tmp/serial"); do
        cmp -s "$tmp/serial/$f" "$tmp/$np/$f" && ok || bad "$np: $f differs from the single-process run's"
    done
    [ "$(ls "$tmp/$np" | wc -l)" = "$n" ] && ok || bad "$np: $(ls "$tmp/$np") against $(ls "$tmp/serial")"
done

# trv-speed and trv-cost on the serial terrain run: the same bytes at -np 2
# and -np 4 (each in $tmp/t, the same argv; every file of the directory)
SPEED="--vehicle $DATA/vehicles/ugv_hua2022.ini --soils data/classes/soils.csv --landuse-classes data/classes/landuse.csv"
COST="--rules $DATA/fuzzy/mobility.fcl --soils data/classes/soils.csv"
# chain NAME LAUNCH...: trv-speed then trv-cost (bin/mpi's with a launcher) in a copy of the serial run
chain() {
    name=$1
    shift
    rm -rf "$tmp/t" && cp -r "$tmp/serial" "$tmp/t"
    if [ $# = 0 ]; then sp="$BIN/trv-speed" co="$BIN/trv-cost"; else sp="$BIN/mpi/trv-speed" co="$BIN/mpi/trv-cost"; fi
    if "$@" "$sp" -q --terrain "$tmp/t" $SPEED 2>"$tmp/stderr" && "$@" "$co" -q --terrain "$tmp/t" $COST 2>>"$tmp/stderr"; then
        ok
    else
        bad "$name speed/cost: $(cat "$tmp/stderr")"
    fi
    mv "$tmp/t" "$tmp/$name"
}
if [ -x "$BIN/mpi/trv-speed" ] && [ -x "$BIN/mpi/trv-cost" ]; then
    chain chain1
    chain chain2 mpirun $ROOT -np 2
    chain chain4 mpirun $ROOT -np 4 --oversubscribe
    for f in speed.tif gonogo.tif limit.tif speed.json cost.tif class.tif cost.json; do
        [ -s "$tmp/chain1/$f" ] && ok || bad "the single-process speed/cost run wrote no $f"
    done
    for np in chain2 chain4; do
        for f in $(ls "$tmp/chain1"); do
            cmp -s "$tmp/chain1/$f" "$tmp/$np/$f" && ok || bad "$np: $f differs from the single-process run's"
        done
        [ "$(ls "$tmp/$np" | wc -l)" = "$(ls "$tmp/chain1" | wc -l)" ] && ok || bad "$np: $(ls "$tmp/$np")"
    done
    # trv-speed --zones (the zones burned on each rank's blocks): the same bytes
    /usr/bin/python3 tests/speed_zones_check.py make "$tmp/serial" "$tmp/z.geojson" "$tmp/zc.geojson" ||
        { echo "cannot draw the zones"; exit 1; }
    ZONES="--zones $tmp/z.geojson --crossings $tmp/zc.geojson"
    for np in 1 2 4; do
        rm -rf "$tmp/t" && cp -r "$tmp/serial" "$tmp/t"
        if [ $np = 1 ]; then
            "$BIN/trv-speed" -q --terrain "$tmp/t" $SPEED $ZONES 2>"$tmp/stderr"
        else
            mpirun $ROOT -np $np --oversubscribe "$BIN/mpi/trv-speed" -q --terrain "$tmp/t" $SPEED $ZONES 2>"$tmp/stderr"
        fi && ok || bad "-np $np trv-speed --zones: $(cat "$tmp/stderr")"
        mv "$tmp/t" "$tmp/zoned$np"
    done
    for np in 2 4; do
        for f in speed.tif gonogo.tif limit.tif speed.json; do
            cmp -s "$tmp/zoned1/$f" "$tmp/zoned$np/$f" && ok || bad "-np $np --zones: $f differs from the single-process run's"
        done
    done
    cmp -s "$tmp/zoned1/gonogo.tif" "$tmp/chain1/gonogo.tif" && bad "the zones changed nothing" || ok

    # process 0 failing before the split (speed.tif's style cannot be written:
    # the run directory on a full disk, a private tmpfs, root only): every
    # rank stops (none left waiting in the split: a 20 s timeout) with the
    # single process's message, once, exit 1, and nothing new on the disk
    F=$tmp/full
    mkdir -p "$F"
    if [ "$(id -u)" != 0 ] || ! unshare --mount /bin/sh -c 'mount -t tmpfs -o size=64k tmpfs "$0"' "$F" 2>/dev/null; then
        skip "process 0 failing before the split: needs root and mount namespaces for a private tmpfs"
    else
        kb=$(($(du -sk "$tmp/serial" | cut -f1) + 512))
        for np in 1 2; do
            if [ $np = 1 ]; then set -- "$BIN/trv-speed"; else set -- mpirun $ROOT -np 2 "$BIN/mpi/trv-speed"; fi
            unshare --mount /bin/sh -c 'mount -t tmpfs -o size="$1"k tmpfs "$0" && cp -r "$2"/. "$0"/ &&
                { dd if=/dev/zero of="$0/fill" bs=4k 2>/dev/null; out=$3; ls -A "$0" >"$out.before"; shift 3
                  timeout 20 "$@"; rc=$?; ls -A "$0" >"$out.after"; exit $rc; }' "$F" "$kb" "$tmp/serial" "$tmp/full$np" \
                "$@" -q --terrain "$F" $SPEED >/dev/null 2>"$tmp/stderr"
            rc=$?
            n=$(grep -c "^trv-speed: cannot write '$F/speed.qml': No space left on device" "$tmp/stderr")
            [ $rc = 1 ] && [ "$n" = 1 ] && cmp -s "$tmp/full$np.before" "$tmp/full$np.after" && ok ||
                bad "-np $np, process 0 failing before the split: exit $rc (124: a rank left waiting), $n messages: $(head -3 "$tmp/stderr")"
        done
    fi

    # --realizations (their tiles split over the ranks too, process 0
    # writes them and sums P(NOGO)'s and cost_std's means exactly): every
    # file the same bytes at -np 2 and -np 4, without and with --zones;
    # tiles of 100 x 50 (11 x 22 over the 1034 x 1088 cells: the last, 34 x
    # 38, is tile 241, rank 1's)
    /usr/bin/python3 - "$tmp/serial/dem.tif" "$tmp/sim.tif" <<'PY' || { echo "cannot make the realisations"; exit 1; }
import sys, numpy as np
from osgeo import gdal
src = gdal.Open(sys.argv[1]); dem = src.GetRasterBand(1).ReadAsArray()
o = gdal.GetDriverByName('GTiff').Create(sys.argv[2], src.RasterXSize, src.RasterYSize, 2, gdal.GDT_Float32, ['TILED=YES'])
o.SetGeoTransform(src.GetGeoTransform()); o.SetProjection(src.GetProjection())
rng = np.random.default_rng(3)
for k in range(2):
    z = (dem + rng.normal(0, 3, dem.shape)).astype(np.float32); z[dem == -9999] = -9999
    o.GetRasterBand(k + 1).WriteArray(z); o.GetRasterBand(k + 1).SetNoDataValue(-9999)
o = None
PY
    for np in 1 2 4; do
        for z in plain zoned; do
            rm -rf "$tmp/t" && cp -r "$tmp/serial" "$tmp/t"
            L= sp="$BIN/trv-speed" co="$BIN/trv-cost" zargs=
            [ $np != 1 ] && L="timeout -k 5 60 mpirun $ROOT -np $np --oversubscribe" sp="$BIN/mpi/trv-speed" co="$BIN/mpi/trv-cost"
            [ $z = zoned ] && zargs=$ZONES
            mv_t="mv $tmp/t $tmp/real$z$np"
            TRV_BLOCK_COLS=100 TRV_BLOCK_ROWS=50 $L "$sp" -q --terrain "$tmp/t" $SPEED $zargs \
                --realizations "$tmp/sim.tif" 2>"$tmp/stderr" &&
                TRV_BLOCK_COLS=100 TRV_BLOCK_ROWS=50 $L "$co" -q --terrain "$tmp/t" $COST \
                --realizations "$tmp/sim.tif" 2>>"$tmp/stderr" && ok ||
                { bad "-np $np $z --realizations (exit $?; 124: a rank waited for another): $(cat "$tmp/stderr")"; $mv_t; break 2; }
            $mv_t
        done
    done
    for z in plain zoned; do
        for f in p_nogo.tif p_nogo_slope.tif speed_mean.tif speed_p10.tif speed_p50.tif speed_p90.tif speed.json \
            cost_mean.tif cost_std.tif cost.json; do
            [ -s "$tmp/real${z}1/$f" ] && ok || bad "$z: the single-process --realizations run wrote no $f"
        done
        # the figures are there and not trivial (the cmp below compares them)
        /usr/bin/python3 - "$tmp/real${z}1" <<'PY' && ok || bad "$z: speed.json/cost.json's realizations figures"
import sys, json
s = json.load(open(sys.argv[1] + '/speed.json'))['realizations']
c = json.load(open(sys.argv[1] + '/cost.json'))['realizations']
assert s['count'] == 2 and s['uncertain'] > 0 and s['always_go'] > 0 and 0 < s['p_nogo_mean'] < 1, s
assert c['count'] == 2 and 0 < c['cost_std_mean'] < c['cost_std_max'], c
PY
        for np in 2 4; do
            for f in $(ls "$tmp/real${z}1"); do
                cmp -s "$tmp/real${z}1/$f" "$tmp/real$z$np/$f" && ok ||
                    bad "-np $np $z --realizations: $f differs from the single-process run's"
            done
            [ "$(ls "$tmp/real$z$np" | wc -l)" = "$(ls "$tmp/real${z}1" | wc -l)" ] && ok || bad "-np $np $z: $(ls "$tmp/real$z$np")"
        done
    done
    cmp -s "$tmp/realplain1/p_nogo.tif" "$tmp/realzoned1/p_nogo.tif" && bad "the zones changed no P(NOGO)" || ok

    # a realisation damaged mid-stream (band 2's second row of tiles, its
    # DEFLATE data zeroed: first read by tile 15 of 256 x 64, the first of
    # the fourth row of 5 tiles, rows 192..255 and the halo row 256, which
    # is rank 1's): exit 1, the single-process message once,
    # the run directory as it was
    /usr/bin/python3 - "$tmp/sim.tif" "$tmp/damaged.tif" <<'PY' || { echo "cannot damage the realisations"; exit 1; }
import sys
from osgeo import gdal
gdal.Translate(sys.argv[2], sys.argv[1], creationOptions=['TILED=YES', 'COMPRESS=DEFLATE'])
ds = gdal.Open(sys.argv[2]); b = ds.GetRasterBand(2)
assert ds.RasterYSize > 256, ds.RasterYSize
off = int(b.GetMetadataItem('BLOCK_OFFSET_0_1', 'TIFF')); size = int(b.GetMetadataItem('BLOCK_SIZE_0_1', 'TIFF'))
ds = None
with open(sys.argv[2], 'r+b') as f:
    f.seek(off); f.write(bytes(size))
PY
    rm -rf "$tmp/dm" && cp -r "$tmp/chain1" "$tmp/dm"
    (cd "$tmp/dm" && ls -l --time-style=+%s . && cksum ./*) >"$tmp/before"
    for tool in speed cost; do
        args=$COST
        [ $tool = speed ] && args=$SPEED
        "$BIN/trv-$tool" -q --terrain "$tmp/dm" $args --realizations "$tmp/damaged.tif" 2>"$tmp/dm.err"
        got=$?
        [ "$got" = 1 ] && grep -qF "cannot read '$tmp/damaged.tif'" "$tmp/dm.err" && ok ||
            bad "serial $tool, damaged realisation -> exit $got: $(cat "$tmp/dm.err")"
        timeout -k 5 60 mpirun $ROOT -np 2 "$BIN/mpi/trv-$tool" -q --terrain "$tmp/dm" $args --realizations "$tmp/damaged.tif" \
            >"$tmp/stdout" 2>"$tmp/stderr"
        got=$?
        [ "$got" = 1 ] && ok || bad "-np 2 $tool, damaged realisation -> exit $got, want 1"
        [ "$(grep -c "^trv-$tool: " "$tmp/stderr")" = 1 ] && grep -qxF "$(cat "$tmp/dm.err")" "$tmp/stderr" && ok ||
            bad "-np 2 $tool, damaged realisation: stderr is not the single-process message once: $(cat "$tmp/stderr")"
        (cd "$tmp/dm" && ls -l --time-style=+%s . && cksum ./*) >"$tmp/after"
        cmp -s "$tmp/before" "$tmp/after" && ok || bad "-np 2 $tool, damaged realisation changed the run directory: $(diff "$tmp/before" "$tmp/after")"
    done
    # slope.tif damaged in its second row of tiles, first read by a block of
    # 70 rows that is rank 1's (row 256 or 512: block 3 or 7): trv-speed
    # --realizations fails in its deterministic stage on rank 1; every rank
    # learns it before the realisations (the timeout says none waits)
    rm -rf "$tmp/ds" && cp -r "$tmp/chain1" "$tmp/ds"
    /usr/bin/python3 - "$tmp/ds/slope.tif" <<'PY' || { echo "cannot damage slope.tif"; exit 1; }
import sys
from osgeo import gdal
ds = gdal.Open(sys.argv[1]); b = ds.GetRasterBand(1)
h = b.GetBlockSize()[1]
assert h in (256, 512) and ds.RasterYSize > h and ds.GetMetadataItem('COMPRESSION', 'IMAGE_STRUCTURE'), h
off = int(b.GetMetadataItem('BLOCK_OFFSET_0_1', 'TIFF')); size = int(b.GetMetadataItem('BLOCK_SIZE_0_1', 'TIFF'))
ds = None
with open(sys.argv[1], 'r+b') as f:
    f.seek(off); f.write(bytes(size))
PY
    (cd "$tmp/ds" && ls -l --time-style=+%s . && cksum ./*) >"$tmp/before"
    TRV_BLOCK_ROWS=70 "$BIN/trv-speed" -q --terrain "$tmp/ds" $SPEED --realizations "$tmp/sim.tif" 2>"$tmp/ds.err"
    got=$?
    [ "$got" = 1 ] && grep -qF "cannot read '$tmp/ds/slope.tif'" "$tmp/ds.err" && ok ||
        bad "serial speed, damaged slope.tif -> exit $got: $(cat "$tmp/ds.err")"
    TRV_BLOCK_ROWS=70 timeout -k 5 60 mpirun $ROOT -np 2 "$BIN/mpi/trv-speed" -q --terrain "$tmp/ds" $SPEED \
        --realizations "$tmp/sim.tif" >"$tmp/stdout" 2>"$tmp/stderr"
    got=$?
    [ "$got" = 1 ] && ok || bad "-np 2 speed, damaged slope.tif -> exit $got, want 1"
    [ "$(grep -c "^trv-speed: " "$tmp/stderr")" = 1 ] && grep -qxF "$(cat "$tmp/ds.err")" "$tmp/stderr" && ok ||
        bad "-np 2 speed, damaged slope.tif: stderr is not the single-process message once: $(cat "$tmp/stderr")"
    (cd "$tmp/ds" && ls -l --time-style=+%s . && cksum ./*) >"$tmp/after"
    cmp -s "$tmp/before" "$tmp/after" && ok || bad "-np 2 speed, damaged slope.tif changed the run directory"

    # a soil code no table knows in rows 70..79 (block 1: rank 1): trv-speed
    # finds it after the last block (the codes rank 1 met, merged on rank 0),
    # trv-cost in the block; each run's message as the single process's, once,
    # and no output left; with --realizations too (every rank learns the
    # failure before the realisations: no rank waits for another, the
    # timeout says so)
    for run in speed cost speed-real cost-real; do
        tool=${run%-real}
        args=$COST
        [ $tool = speed ] && args=$SPEED
        [ $run != $tool ] && args="$args --realizations $tmp/sim.tif"
        for np in 1 2 4; do
            rm -rf "$tmp/bad" && cp -r "$tmp/chain1" "$tmp/bad" && rm -f "$tmp/bad/$tool.tif" "$tmp/bad/$tool.json"
            /usr/bin/python3 - "$tmp/bad/soil.tif" <<'PY' || { echo "cannot prepare the soil map"; exit 1; }
import sys
import numpy as np
from osgeo import gdal
ds = gdal.Open(sys.argv[1], gdal.GA_Update)
a = ds.GetRasterBand(1).ReadAsArray()
a[70:80][a[70:80] > 0] = 99
ds.GetRasterBand(1).WriteArray(a)
ds = None
PY
            if [ $np = 1 ]; then
                "$BIN/trv-$tool" -q --terrain "$tmp/bad" $args 2>"$tmp/bad.err"
                got=$?
                [ "$got" = 1 ] && grep -q "soil class 99 is not in the" "$tmp/bad.err" && ok || bad "serial $tool, soil 99 -> exit $got: $(cat "$tmp/bad.err")"
            else
                timeout -k 5 60 mpirun $ROOT -np $np --oversubscribe "$BIN/mpi/trv-$tool" -q --terrain "$tmp/bad" \
                    $args >"$tmp/stdout" 2>"$tmp/stderr"
                got=$?
                [ "$got" = 1 ] && ok || bad "-np $np $run, soil 99 -> exit $got, want 1"
                [ "$(grep -c "^trv-$tool: " "$tmp/stderr")" = 1 ] && grep -qxF "$(cat "$tmp/bad.err")" "$tmp/stderr" && ok ||
                    bad "-np $np $run: stderr is not the single-process message once: $(cat "$tmp/stderr")"
            fi
            [ ! -e "$tmp/bad/$tool.tif" ] && [ ! -e "$tmp/bad/$tool.json" ] && [ ! -e "$tmp/bad/p_nogo.tif" ] &&
                [ ! -e "$tmp/bad/cost_mean.tif" ] && ok || bad "-np $np $run left its outputs"
        done
    done
else
    skip_pkg libopenmpi-dev "$BIN/mpi/trv-speed or trv-cost is not built"
fi

# a class the table does not know, first met in rows 90..99 (block 1: rank 1)
/usr/bin/python3 - "$J/landuse_30m_utm16n.tif" "$tmp/lu.tif" <<'PY' || { echo "cannot prepare the land-use map"; exit 1; }
import sys
import numpy as np
from osgeo import gdal
src = gdal.Open(sys.argv[1])
a = src.GetRasterBand(1).ReadAsArray()
a = np.where(a > 3, 3, a)
a[90:100][a[90:100] > 0] = 4
dst = gdal.GetDriverByName("GTiff").CreateCopy(sys.argv[2], src)
dst.GetRasterBand(1).WriteArray(a)
dst = None
PY
printf 'code,name\n1,water\n2,forest\n3,grassland\n' >"$tmp/lu3.csv"
BAD="--dem $tmp/dem30.tif --soil $J/soil_7p5arcsec.tif --landuse $tmp/lu.tif --soil-classes data/classes/soils.csv --landuse-classes $tmp/lu3.csv"
"$BIN/trv-terrain" -q $BAD -o "$tmp/e1" 2>"$tmp/serial.err"
[ $? = 1 ] && grep -q "class 4 is not in the class table" "$tmp/serial.err" && ok || bad "serial bad class: $(cat "$tmp/serial.err")"
for np in 2 4; do
    mpirun $ROOT -np $np --oversubscribe "$BIN/mpi/trv-terrain" -q $BAD -o "$tmp/e$np" >"$tmp/stdout" 2>"$tmp/stderr"
    got=$?
    [ "$got" = 1 ] && ok || bad "-np $np bad class -> exit $got, want 1"
    [ "$(grep -c '^trv-terrain: ' "$tmp/stderr")" = 1 ] && grep -qxF "$(cat "$tmp/serial.err")" "$tmp/stderr" && ok ||
        bad "-np $np: stderr is not the single-process message once: $(cat "$tmp/stderr")"
    [ ! -e "$tmp/e$np" ] && ok || bad "-np $np left $tmp/e$np behind: $(ls -A "$tmp/e$np")"
done
# a missing input: every rank fails at the start, one message
mpirun $ROOT -np 2 "$BIN/mpi/trv-terrain" -q --dem "$tmp/none.tif" --soil "$J/soil_7p5arcsec.tif" \
    --landuse "$J/landuse_30m_utm16n.tif" $CLASSES -o "$tmp/e5" >"$tmp/stdout" 2>"$tmp/stderr"
got=$?
[ "$got" = 1 ] && [ "$(grep -c "none.tif" "$tmp/stderr")" = 1 ] && [ ! -e "$tmp/e5" ] && ok ||
    bad "missing DEM on 2 ranks -> exit $got: $(cat "$tmp/stderr")"
summary tool_mpi
