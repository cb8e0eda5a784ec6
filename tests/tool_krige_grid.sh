#!/bin/sh
# trv-krige's default target grid (docs/method.md 1.1), worked by hand: a
# third of the input's cell, the footprint snapped outward to multiples of
# it, and no extrapolation past the footprint. Added for make mutants
# (docs/testing.md). Ends with "N passed, N failed, N skipped".
set -u
BIN=${TRV_BIN:-bin}
DATA=${TRV_DATADIR:-data}
tmp=$(mktemp -d /tmp/trv-krige-grid-test-XXXXXX)
trap 'rm -rf "$tmp"' EXIT
. "$(dirname "$0")/lib.sh"

# A 20 x 20 DEM of 90 m cells in EPSG:32616 whose edges are not multiples
# of 30 m: x 740005..741805, y 4050005..4051805 (every cell has data).
gdalwarp -q -t_srs EPSG:32616 -tr 90 90 -te 740005 4050005 741805 4051805 -r bilinear -ot Float32 \
    -dstnodata -32768 "$DATA/jacksboro/dem_3arcsec.tif" "$tmp/dem.tif" || { echo "cannot make the DEM"; exit 1; }
if "$BIN/trv-krige" -q "$tmp/dem.tif" --seed 1 -o "$tmp/k.tif" 2>"$tmp/err"; then ok; else bad "run: $(cat "$tmp/err")"; fi

# Cell: sqrt(footprint area / cells) / 3 = sqrt(1800 * 1800 / 400) / 3 = 30 m.
# Extent snapped outward: x floor(740005 / 30) * 30 = 739980 to
# ceil(741805 / 30) * 30 = 741810, y 4050000 to 4051830: 61 x 61 cells,
# the north-west corner at (739980, 4051830).
info=$(gdalinfo "$tmp/k.tif")
echo "$info" | grep -q 'Pixel Size = (30.000000000000000,-30.000000000000000)' && ok || bad "cell: $(echo "$info" | grep Pixel)"
echo "$info" | grep -q 'Size is 61, 61' && ok || bad "size: $(echo "$info" | grep 'Size is')"
echo "$info" | grep -q 'Origin = (739980.000000000000000,4051830.000000000000000)' && ok ||
    bad "origin: $(echo "$info" | grep Origin)"
# The first cell's centre (739995, 4051815) lies outside the footprint: no
# data. The next one on the diagonal, (740025, 4051785), is inside.
nd=$(gdalinfo "$tmp/k.tif" | sed -n 's/.*NoData Value=//p')
v00=$(gdallocationinfo -valonly "$tmp/k.tif" 0 0)
v11=$(gdallocationinfo -valonly "$tmp/k.tif" 1 1)
[ -n "$nd" ] && [ "$v00" = "$nd" ] && ok || bad "cell (0, 0) = '$v00', nodata '$nd'"
[ -n "$v11" ] && [ "$v11" != "$nd" ] && ok || bad "cell (1, 1) = '$v11' (nodata '$nd')"

summary tool_krige_grid
