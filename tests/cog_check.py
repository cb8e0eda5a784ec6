#!/usr/bin/env python3
"""Is a GeoTIFF a Cloud-Optimized GeoTIFF? (tests/tool_scale.sh,
tests/tool_krige_scale.sh)

    cog_check.py FILE [--nodata V] [--unit U] [--described]

GDAL's validate_cloud_optimized_geotiff checks, through the TIFF metadata
domain: LAYOUT=COG, tiled 256 x 256, overviews down to one tile, every IFD
before the first tile's data, overview data before the full resolution's
(smallest overview first); and, when asked, band 1's nodata value, unit
and a non-empty description. Exit 1 with the reasons on stdout."""
import sys
from osgeo import gdal
args = sys.argv[1:]
path = args.pop(0)
want = {}
while args:
    a = args.pop(0)
    want[a] = True if a == '--described' else args.pop(0)
ds = gdal.Open(path)
b = ds.GetRasterBand(1)
err = []
if ds.GetMetadataItem('LAYOUT', 'IMAGE_STRUCTURE') != 'COG':
    err.append('LAYOUT is not COG')
if b.GetBlockSize() != [256, 256]:
    err.append('blocks %s' % b.GetBlockSize())
n = b.GetOverviewCount()
if max(ds.RasterXSize, ds.RasterYSize) > 256 and n == 0:
    err.append('no overviews')
if n and max(b.GetOverview(n - 1).XSize, b.GetOverview(n - 1).YSize) > 256:
    err.append('the smallest overview is more than one tile')
bands = [b] + [b.GetOverview(i) for i in range(n)]
ifd = [int(x.GetMetadataItem('IFD_OFFSET', 'TIFF')) for x in bands]
data = [int(x.GetMetadataItem('BLOCK_OFFSET_0_0', 'TIFF') or 0) for x in bands]
if ifd != sorted(ifd):
    err.append('IFDs out of order %s' % ifd)
if max(ifd) > min(d for d in data if d):
    err.append('an IFD after image data')
if [d for d in data if d] != sorted([d for d in data if d], reverse=True):
    err.append('overview data not before the full resolution data %s' % data)
if '--nodata' in want and b.GetNoDataValue() != float(want['--nodata']):
    err.append('nodata %s' % b.GetNoDataValue())
if '--unit' in want and b.GetUnitType() != want['--unit']:
    err.append('unit %r' % b.GetUnitType())
if '--described' in want and b.GetDescription() == '':
    err.append('no description')
if err:
    print(path, '; '.join(err))
    sys.exit(1)
