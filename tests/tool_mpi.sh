#!/bin/sh
# The MPI builds (docs/cluster.md): mpirun -np 2 and -np 4 --oversubscribe
# of bin/mpi/trv-terrain give the same bytes as the single-process
# trv-terrain (every output, blocks of 64 rows so every rank has blocks);
# a block that fails on another rank than 0 -> exit 1, the single-process
# run's message once, no output left; trv-speed and trv-cost
# --realizations (computed on process 0) the same bytes at -np 2. SKIPPED without mpirun or the MPI
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

    # --realizations (process 0 computes them alone, after the split
    # deterministic stage: docs/scale.md): the same bytes at -np 2
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
    for np in 1 2; do
        rm -rf "$tmp/t" && cp -r "$tmp/serial" "$tmp/t"
        L= sp="$BIN/trv-speed" co="$BIN/trv-cost"
        [ $np = 2 ] && L="mpirun $ROOT -np 2" sp="$BIN/mpi/trv-speed" co="$BIN/mpi/trv-cost"
        $L "$sp" -q --terrain "$tmp/t" $SPEED --realizations "$tmp/sim.tif" 2>"$tmp/stderr" &&
            $L "$co" -q --terrain "$tmp/t" $COST --realizations "$tmp/sim.tif" 2>>"$tmp/stderr" && ok ||
            bad "-np $np --realizations: $(cat "$tmp/stderr")"
        mv "$tmp/t" "$tmp/real$np"
    done
    for f in p_nogo.tif speed_p50.tif speed.json cost_mean.tif cost_std.tif cost.json; do
        [ -s "$tmp/real1/$f" ] && cmp -s "$tmp/real1/$f" "$tmp/real2/$f" && ok ||
            bad "-np 2 --realizations: $f differs from the single-process run's"
    done

    # a soil code no table knows in rows 70..79 (block 1: rank 1): trv-speed
    # finds it after the last block (the codes rank 1 met, merged on rank 0),
    # trv-cost in the block; each run's message as the single process's, once,
    # and no output left
    for tool in speed cost; do
        args=$COST
        [ $tool = speed ] && args=$SPEED
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
                mpirun $ROOT -np $np --oversubscribe "$BIN/mpi/trv-$tool" -q --terrain "$tmp/bad" \
                    $args >"$tmp/stdout" 2>"$tmp/stderr"
                got=$?
                [ "$got" = 1 ] && ok || bad "-np $np $tool, soil 99 -> exit $got, want 1"
                [ "$(grep -c "^trv-$tool: " "$tmp/stderr")" = 1 ] && grep -qxF "$(cat "$tmp/bad.err")" "$tmp/stderr" && ok ||
                    bad "-np $np $tool: stderr is not the single-process message once: $(cat "$tmp/stderr")"
            fi
            [ ! -e "$tmp/bad/$tool.tif" ] && [ ! -e "$tmp/bad/$tool.json" ] && ok || bad "-np $np $tool left its outputs"
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
