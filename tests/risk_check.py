#!/usr/bin/python3
"""Independent checks for tests/tool_risk.sh (GDAL/OSR, numpy; the route's
polyline sampled every metre here): nogo rectangles of whole cells, points
of a route or of a cell in lon/lat, and what P(NOGO) each route meets.

  rect P_NOGO.tif OUT C0 C1 R0 R1 FID  a nogo polygon over cells C0..C1 x R0..R1 (UTM 16N)
  square P_NOGO.tif OUT ROUTE.csv FRAC H  the cells within H of the cell of the vertex FRAC along ROUTE.csv
  vertex P_NOGO.tif ROUTE.csv FRAC     lon,lat of that vertex
  cell P_NOGO.tif R C                  lon,lat of the centre of cell (R, C)
  wall P_NOGO.tif                      "C0 C1 R0 R1": the columns where P = 0.5, the rows of their gap
  edge P_NOGO.tif GONOGO.tif           "R C": a GO cell of the wall's west column, outside the gap,
                                       whose three west neighbours of rows R-1..R+1 are GO
  meets P_NOGO.tif ROUTE.csv [ZONE [R C]]  per route of the CSV (its `route` column):
                                       "NAME PMAX INSIDE": the largest P(NOGO) of the cells
                                       its polyline crosses, cell (R, C) left out; how many
                                       samples lie inside ZONE's polygon box (0 without ZONE)
"""
import csv, json, sys
import numpy as np
from osgeo import gdal, osr

ds = gdal.Open(sys.argv[2])
gt = ds.GetGeoTransform()
P = ds.GetRasterBand(1).ReadAsArray()


def lonlat(x, y):
    s, d = osr.SpatialReference(), osr.SpatialReference()
    s.ImportFromEPSG(32616), d.ImportFromEPSG(4326)
    s.SetAxisMappingStrategy(osr.OAMS_TRADITIONAL_GIS_ORDER)
    d.SetAxisMappingStrategy(osr.OAMS_TRADITIONAL_GIS_ORDER)
    p = osr.CoordinateTransformation(s, d).TransformPoint(x, y)
    return '%.7f,%.7f' % (p[0], p[1])


def rect(out, c0, c1, r0, r1, fid):
    x0, x1 = gt[0] + c0 * gt[1], gt[0] + (c1 + 1) * gt[1]
    y0, y1 = gt[3] + (r1 + 1) * gt[5], gt[3] + r0 * gt[5]
    ring = [[x0, y0], [x1, y0], [x1, y1], [x0, y1], [x0, y0]]
    json.dump({"type": "FeatureCollection", "crs": {"type": "name", "properties": {"name": "urn:ogc:def:crs:EPSG::32616"}},
               "features": [{"type": "Feature", "id": fid, "properties": {"effect": "nogo"},
                             "geometry": {"type": "Polygon", "coordinates": [ring]}}]}, open(out, "w"))


def routes(path):
    out = {}
    for r in csv.DictReader(open(path)):
        out.setdefault(r['route'], []).append((float(r['x']), float(r['y'])))
    return out


def vertex(path, frac):
    xy = [p for v in routes(path).values() for p in v]
    return xy[int(frac * (len(xy) - 1))]


def meets(path, zone=None, skip=None):
    box = None
    if zone:
        ring = np.array(json.load(open(zone))["features"][0]["geometry"]["coordinates"][0])
        box = ring[:, 0].min(), ring[:, 0].max(), ring[:, 1].min(), ring[:, 1].max()
    for name, xy in routes(path).items():
        m, inside = 0.0, 0
        for (x0, y0), (x1, y1) in zip(xy[:-1], xy[1:]):
            t = np.linspace(0, 1, int(np.hypot(x1 - x0, y1 - y0)) + 2)
            x, y = x0 + t * (x1 - x0), y0 + t * (y1 - y0)
            c, r = ((x - gt[0]) / gt[1]).astype(int), ((y - gt[3]) / gt[5]).astype(int)
            keep = ~((r == skip[0]) & (c == skip[1])) if skip else np.ones(len(t), bool)
            if keep.any():
                m = max(m, float(P[r[keep], c[keep]].max()))
            if box:
                inside += int(np.sum((x > box[0]) & (x < box[1]) & (y > box[2]) & (y < box[3])))
        print(name, m, inside)


cmd, a = sys.argv[1], sys.argv[3:]
if cmd == 'rect':
    rect(a[0], *map(int, a[1:6]))
elif cmd == 'square':
    x, y = vertex(a[1], float(a[2]))
    h, c, r = int(a[3]), int((x - gt[0]) / gt[1]), int((y - gt[3]) / gt[5])
    rect(a[0], c - h, c + h, r - h, r + h, 3)
elif cmd == 'vertex':
    print(lonlat(*vertex(a[0], float(a[1]))))
elif cmd == 'cell':
    print(lonlat(gt[0] + (int(a[1]) + 0.5) * gt[1], gt[3] + (int(a[0]) + 0.5) * gt[5]))
elif cmd in ('wall', 'edge'):
    cols = np.where((P == 0.5).any(axis=0))[0]
    gap = np.where((P[:, cols[0]] > 0) & (P[:, cols[0]] < 0.5))[0]
    if cmd == 'wall':
        print(cols[0], cols[-1], gap[0], gap[-1])
    else:
        g = gdal.Open(a[0])
        go = g.GetRasterBand(1).ReadAsArray()
        c = cols[0]
        ok = [r for r in range(1, P.shape[0] - 1) if (r < gap[0] - 3 or r > gap[-1] + 3) and (go[r - 1:r + 2, c - 3:c + 1] == 0).all()]
        r = min(ok, key=lambda r: min(abs(r - gap[0]), abs(r - gap[-1])))
        print(r, c)
elif cmd == 'meets':
    meets(a[0], a[1] if len(a) > 1 else None, (int(a[2]), int(a[3])) if len(a) > 3 else None)
else:
    sys.exit('unknown command ' + cmd)
