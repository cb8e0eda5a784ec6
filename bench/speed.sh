#!/bin/sh
# make bench, terramechanics part: trv-speed on the 10 m Jacksboro terrain
# (kriged DEM + trv-terrain), cells per second, and its wall time against
# the I/O floor: GDAL reading the same three input rasters and writing
# three outputs of the same types and creation options, as trv-speed does
# (speed.tif, gonogo.tif, limit.tif: gdal_translate slope -> Float32, land
# use -> Byte, soil -> Byte).
set -eu
BIN=${TRV_BIN:-bin}
REPS=${REPS:-3}
DATA=${TRV_DATADIR:-data}
CO="-co TILED=YES -co BLOCKXSIZE=256 -co BLOCKYSIZE=256 -co COMPRESS=DEFLATE"
w=$(mktemp -d /tmp/trv-speed-bench-XXXXXX)
trap 'rm -rf "$w"' EXIT
. "$(dirname "$0")/lib.sh"
machine_line
echo "preparing the 10 m Jacksboro terrain (trv-krige, trv-terrain)..."
"$BIN/trv-krige" "$DATA/jacksboro/dem_3arcsec.tif" --tr 10 -o "$w/dem10.tif" -q
"$BIN/trv-terrain" -q --dem "$w/dem10.tif" --soil "$DATA/jacksboro/soil_7p5arcsec.tif" \
    --landuse "$DATA/jacksboro/landuse_30m_utm16n.tif" --soil-classes "$DATA/classes/soils.csv" \
    --landuse-classes "$DATA/classes/landuse.csv" -o "$w/t"
cells=$(gdalinfo "$w/t/slope.tif" | sed -n 's/^Size is \([0-9]*\), \([0-9]*\)/\1 \2/p' | awk '{print $1 * $2}')
a=$(best "$BIN/trv-speed" --terrain "$w/t" --vehicle "$DATA/vehicles/ugv_hua2022.ini" --soils "$DATA/classes/soils.csv" \
    --landuse-classes "$DATA/classes/landuse.csv" -q)
cat >"$w/floor.sh" <<EOC
gdal_translate -q -ot Float32 $CO "$w/t/slope.tif" "$w/f1.tif" &&
gdal_translate -q -ot Byte $CO "$w/t/landuse.tif" "$w/f2.tif" &&
gdal_translate -q -ot Byte $CO "$w/t/soil.tif" "$w/f3.tif"
EOC
b=$(best sh "$w/floor.sh")
echo
echo "| job | traverse | memory | cells/s | I/O floor (GDAL) | memory | time ratio |"
echo "|---|---|---|---|---|---|---|"
echo "$a $b $cells" | awk '{printf "| trv-speed, 10 m (%.1fM cells) | %.2f s | %.0f MB | %.1fM | %.2f s | %.0f MB | %.2f |\n", $5/1e6, $1, $2/1024, $5/$1/1e6, $3, $4/1024, $1/$3}'
echo "goal: within 2x of the I/O floor"
