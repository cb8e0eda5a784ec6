#!/bin/sh
# make bench: traverse against its peers, side by side on this machine.
# Each job runs REPS times (default 3); the best wall time and its peak
# memory (max RSS) are kept. Ratios > 1 mean traverse is slower.
set -eu
BIN=${TRV_BIN:-bin}
REPS=${REPS:-3}
J=${TRV_JACKSBORO:-data/jacksboro}
CO="-co TILED=YES -co BLOCKXSIZE=256 -co BLOCKYSIZE=256 -co COMPRESS=DEFLATE"
w=$(mktemp -d /tmp/trv-bench-XXXXXX)
trap 'rm -rf "$w"' EXIT

. "$(dirname "$0")/lib.sh"

# the driver of the kernels, compiled here against the library (as
# route.sh does) so that a fresh clone's make bench needs nothing else
here=$(cd "$(dirname "$0")" && pwd)
LIB=${TRV_LIB:-$(dirname "$BIN")/lib/libtraverse.a}
[ -f "$LIB" ] || { echo "run.sh: no $LIB: run make first" >&2; exit 1; }
# shellcheck disable=SC2046 # pkg-config's flags are split on purpose
${CC:-cc} -std=c11 -O2 -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes -Wno-missing-field-initializers \
    -D_DEFAULT_SOURCE -pthread -I"$here/../src" $(pkg-config --cflags gdal proj) "$here/bench_terrain.c" "$LIB" \
    -o "$w/bench_terrain" $(pkg-config --libs gdal libtiff-4 proj lapacke openblas libpng freetype2 json-c) -lm -pthread ||
    { echo "run.sh: cannot build bench/bench_terrain.c" >&2; exit 1; }
BT=$w/bench_terrain

row() { # name, ours, peer-name, peer
    echo "$2 $4" | awk -v n="$1" -v p="$3" '{printf "| %-34s | %7.2f s | %7.0f MB | %-30s | %7.2f s | %7.0f MB | %5.2f | %5.2f |\n", n, $1, $2/1024, p, $3, $4/1024, $1/$3, $2/$4}'
}

machine_line
echo "GDAL $(gdal-config --version 2>/dev/null || gdalinfo --version | sed 's/GDAL \([^,]*\).*/\1/'); best of $REPS runs"
echo "preparing inputs: Jacksboro DEM warped to 30 m and 10 m UTM (EPSG:32616)..."
for r in 30 10; do
    gdalwarp -q -t_srs EPSG:32616 -tr $r $r -tap -r bilinear -ot Float32 -dstnodata -32768 $CO "$J/dem_3arcsec.tif" "$w/dem$r.tif"
    gdal_translate -q -ot Byte -scale 0 2000 1 1 -a_nodata 0 "$w/dem$r.tif" "$w/like$r.tif" # a Byte raster on the same grid
done
echo
echo "| job | traverse | memory | peer | time | memory | time ratio | memory ratio |"
echo "|---|---|---|---|---|---|---|---|"
for r in 30 10; do
    cells=$(gdalinfo "$w/dem$r.tif" | sed -n 's/^Size is \([0-9]*\), \([0-9]*\)/\1 \2/p' | awk '{printf "%.1fM", $1*$2/1e6}')
    a=$(best "$BT" slope "$w/dem$r.tif" "$w/s.tif")
    b=$(best gdaldem slope -q -compute_edges $CO -co PREDICTOR=3 "$w/dem$r.tif" "$w/g.tif")
    row "slope, $r m ($cells cells)" "$a" "gdaldem slope -compute_edges" "$b"
    a=$(best "$BT" align "$J/landuse_30m_utm16n.tif" "$w/like$r.tif" "$w/a.tif")
    ext=$(gdalinfo "$w/dem$r.tif" | awk '/^Origin/{gsub(/[(),]/," ");x=$3;y=$4} /^Size is/{gsub(/,/,"");nx=$3;ny=$4} END{printf "%s %s %s %s", x, y-ny*'$r', x+nx*'$r', y}')
    b=$(best gdalwarp -q -overwrite -r mode -te $ext -tr $r $r $CO "$J/landuse_30m_utm16n.tif" "$w/gw.tif")
    row "land use majority onto $r m" "$a" "gdalwarp -r mode" "$b"
    a=$(best "$BT" align "$J/soil_7p5arcsec.tif" "$w/like$r.tif" "$w/a.tif")
    b=$(best gdalwarp -q -overwrite -r mode -t_srs EPSG:32616 -te $ext -tr $r $r $CO "$J/soil_7p5arcsec.tif" "$w/gw.tif")
    row "soil (lon/lat) majority onto $r m" "$a" "gdalwarp -r mode -t_srs" "$b"
    # the whole stage against the GDAL command chain that makes the same four layers
    a=$(best "$BIN/trv-terrain" -q --dem "$w/dem$r.tif" --soil "$J/soil_7p5arcsec.tif" --landuse "$J/landuse_30m_utm16n.tif" \
        --soil-classes data/classes/soils.csv --landuse-classes data/classes/landuse.csv -o "$w/t")
    cat >"$w/chain.sh" <<EOC
gdal_translate -q $CO "$w/dem$r.tif" "$w/c_dem.tif" &&
gdaldem slope -q -compute_edges $CO "$w/dem$r.tif" "$w/c_slope.tif" &&
gdalwarp -q -overwrite -r mode -t_srs EPSG:32616 -te $ext -tr $r $r $CO "$J/soil_7p5arcsec.tif" "$w/c_soil.tif" &&
gdalwarp -q -overwrite -r mode -te $ext -tr $r $r $CO "$J/landuse_30m_utm16n.tif" "$w/c_lu.tif"
EOC
    b=$(best sh "$w/chain.sh")
    row "trv-terrain, $r m" "$a" "gdal_translate+gdaldem+2 gdalwarp" "$b"
done
