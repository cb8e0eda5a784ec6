#!/bin/sh
# The MPI builds (docs/cluster.md): mpirun -np 2 and -np 4 --oversubscribe
# of bin/mpi/trv-terrain give the same bytes as the single-process
# trv-terrain (every output, blocks of 64 rows so every rank has blocks);
# a block that fails on another rank than 0 -> exit 1, the single-process
# run's message once, no output left. SKIPPED without mpirun or the MPI
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
