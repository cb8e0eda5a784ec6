#!/usr/bin/python3
"""Independent checks for tests/tool_speed_zones.sh (GDAL's own rasterizer,
numpy): zones drawn on a terrain's grid, and trv-speed's maps with them
against the maps without them.

  make DIR OUT.geojson CROSS.geojson   zones on DIR's grid (its CRS): a nogo square,
                                       a factor 2 square, a max_speed 5 square, a nogo
                                       line in general position and one along the cells'
                                       diagonals (through their corners), one crossing on it
  maps BASE ZONED ZONES.geojson        ZONED's maps against BASE's and GDAL's rasterizer (the
                                       crossing read from ZONES_cross.geojson beside it)
  wall DIR                             DIR's NOGO cells from the diagonal line: no 8- or
                                       16-neighbour move gets from one side to the other
"""
import json, sys
import numpy as np
from osgeo import gdal, ogr, osr

gdal.UseExceptions()

def grid(d):
    ds = gdal.Open(d + "/slope.tif")
    return ds.GetGeoTransform(), ds.RasterXSize, ds.RasterYSize, ds.GetProjection()

def xy(gt, c, r):  # cell units (col, row) -> map
    return gt[0] + c * gt[1], gt[3] + r * gt[5]

def feature(fid, geom, props):
    return {"type": "Feature", "id": fid, "properties": props, "geometry": geom}

def sq(gt, c0, r0, n):
    p = [xy(gt, c0, r0), xy(gt, c0 + n, r0), xy(gt, c0 + n, r0 + n), xy(gt, c0, r0 + n), xy(gt, c0, r0)]
    return {"type": "Polygon", "coordinates": [p]}

def crs_of(wkt):
    s = osr.SpatialReference(wkt=wkt)
    return {"type": "name", "properties": {"name": "urn:ogc:def:crs:EPSG::%s" % s.GetAuthorityCode(None)}}

def make(d, out, cross):
    gt, nx, ny, wkt = grid(d)
    c, r = nx // 2, ny // 2  # the squares and lines around the middle, off the cell lattice
    fs = [feature(1, sq(gt, c - 40.3, r - 40.6, 12.4), {"effect": "nogo"}),
          feature(2, sq(gt, c - 20.2, r - 40.7, 12.3), {"effect": "factor", "value": 2}),
          feature(3, sq(gt, c + 0.35, r - 40.45, 12.2), {"effect": "max_speed", "value": 5}),
          feature(4, {"type": "LineString", "coordinates": [xy(gt, c - 45.3, r - 10.2), xy(gt, c + 25.7, r + 3.9)]},
                  {"effect": "nogo"}),
          # along the diagonals, through the cells' corners, from edge to edge of a band of rows
          feature(5, {"type": "LineString", "coordinates": [xy(gt, c - 30, r + 10), xy(gt, c + 10, r + 50)]},
                  {"effect": "nogo"})]
    json.dump({"type": "FeatureCollection", "crs": crs_of(wkt), "features": fs}, open(out, "w"))
    t = 35.3 / 71.0  # on line 4, at column c - 10
    json.dump({"type": "FeatureCollection", "crs": crs_of(wkt), "features": [
        feature(1, {"type": "Point", "coordinates": xy(gt, c - 10.0, r - 10.2 + t * 14.1)}, {"name": "ford"})]},
        open(cross, "w"))

def touched(line, gt, nx, ny):
    """Cells whose closed square the segment meets (Liang-Barsky per cell, in cell units)."""
    (x0, y0), (x1, y1) = [((x - gt[0]) / gt[1], (y - gt[3]) / gt[5]) for x, y in line]
    out = np.zeros((ny, nx), bool)
    for r in range(max(0, int(min(y0, y1)) - 1), min(ny, int(max(y0, y1)) + 2)):
        for c in range(max(0, int(min(x0, x1)) - 1), min(nx, int(max(x0, x1)) + 2)):
            t0, t1, ok = 0.0, 1.0, True
            for p, q in ((-(x1 - x0), x0 - c), (x1 - x0, c + 1 - x0), (-(y1 - y0), y0 - r), (y1 - y0, r + 1 - y0)):
                if p == 0:
                    ok = ok and q >= 0
                elif p < 0:
                    t0 = max(t0, q / p)
                else:
                    t1 = min(t1, q / p)
            out[r, c] = ok and t0 <= t1
    return out

def band(path, k=1):
    ds = gdal.Open(path)
    return ds.GetRasterBand(k).ReadAsArray()

def rasterize(zones, fid, like, touched):
    """GDAL's rasterizer (GDALRasterizeLayers) on feature fid: ALL_TOUCHED, or by cell centre."""
    ds = gdal.GetDriverByName("MEM").Create("", like.RasterXSize, like.RasterYSize, 1, gdal.GDT_Byte)
    ds.SetGeoTransform(like.GetGeoTransform()), ds.SetProjection(like.GetProjection())
    src = ogr.Open(zones)
    lyr = src.GetLayer(0)
    mem = ogr.GetDriverByName("Memory").CreateDataSource("m")
    ml = mem.CreateLayer("z", lyr.GetSpatialRef(), ogr.wkbUnknown)
    for f in lyr:
        if f.GetFID() == fid:
            g = ogr.Feature(ml.GetLayerDefn()); g.SetGeometry(f.GetGeometryRef().Clone()); ml.CreateFeature(g)
    gdal.RasterizeLayer(ds, [1], ml, burn_values=[1], options=["ALL_TOUCHED=TRUE"] if touched else [])
    return ds.GetRasterBand(1).ReadAsArray().astype(bool)

def maps(base, zoned, zones):
    like = gdal.Open(zoned + "/speed.tif")
    s0, g0, l0 = band(base + "/speed.tif"), band(base + "/gonogo.tif"), band(base + "/limit.tif")
    s1, g1, l1 = band(zoned + "/speed.tif"), band(zoned + "/gonogo.tif"), band(zoned + "/limit.tif")
    data = g0 != 5
    # GDAL's all touched on the square and the line in general position; the diagonal through
    # the cells' corners by the closed-square rule, with GDAL's difference there reported
    gt5 = like.GetGeoTransform()
    line5 = [f for f in json.load(open(zones))["features"] if f["id"] == 5][0]["geometry"]["coordinates"]
    diag = touched(line5, gt5, like.RasterXSize, like.RasterYSize)
    gdal5 = rasterize(zones, 5, like, True)
    nogo = rasterize(zones, 1, like, True) | rasterize(zones, 4, like, True) | diag
    fac, cap = rasterize(zones, 2, like, False), rasterize(zones, 3, like, False)
    errs = []
    def check(what, cond):
        n = int(np.count_nonzero(~cond))
        if n:
            errs.append("%s: %d cells" % (what, n))
    # the crossing: the cells of line 4 within one cell of it stay open (trv-speed's rule; not GDAL's)
    gt = like.GetGeoTransform()
    cr = json.load(open(zones.replace(".geojson", "_cross.geojson")))["features"][0]["geometry"]["coordinates"]
    cols, rows = np.meshgrid(np.arange(like.RasterXSize), np.arange(like.RasterYSize))
    cx, cy = gt[0] + (cols + 0.5) * gt[1], gt[3] + (rows + 0.5) * gt[5]
    near = np.hypot(cx - cr[0], cy - cr[1]) <= gt[1]
    only4 = rasterize(zones, 4, like, True) & ~rasterize(zones, 1, like, True) & ~rasterize(zones, 5, like, True)
    opened = only4 & near
    want_nogo = nogo & data & ~opened
    check("nogo cells (GDAL all touched) not NOGO: zone", (g1 == 6) | ~want_nogo)
    check("NOGO: zone outside GDAL's all touched", want_nogo | (g1 != 6))
    check("nogo cells with speed > 0 or limit != NOGO", ((s1 == 0) & (l1 == 0)) | ~want_nogo)
    if not opened.any():
        errs.append("the crossing opened no cell")
    check("crossing cells changed", ((s1 == s0) & (g1 == g0)) | ~opened)
    go = (g0 == 0) & ~want_nogo
    f_want = np.where(fac & go, (s0.astype(np.float64) / 2).astype(np.float32), s0)
    f_want = np.where(cap & go, np.minimum(f_want, 5).astype(np.float32), f_want)
    rest = ~want_nogo
    check("speed outside the nogo cells != base / factor, min(., cap)", (s1 == f_want) | ~rest)
    changed = rest & (f_want != s0)
    check("limit not zone where a zone changed the speed", (l1 == 7) | ~changed)
    check("limit or reason changed where no zone changed the speed", ((l1 == l0) & (g1 == g0)) | ~rest | changed)
    if not (fac & go).any() or not (cap & go & (s0 > 5)).any():
        errs.append("the factor or max_speed square holds no GO cell to test")
    if errs:
        sys.exit("; ".join(errs))
    print("nogo %d cells, opened %d, factor %d, capped %d; the diagonal: %d cells, GDAL's all touched %d "
          "(%d only touched at a corner not burned by GDAL, %d burned by GDAL alone)" % (
              want_nogo.sum(), opened.sum(), (fac & go).sum(), (cap & go & (s0 > 5)).sum(), diag.sum(), gdal5.sum(),
              (diag & ~gdal5).sum(), (gdal5 & ~diag).sum()))

def moves(k):
    """The cells (dc, dr) the segment between the centres of a move passes with a length > 0."""
    dc, dr = k
    cells = set()
    for t in np.linspace(0, 1, 4001)[1:-1]:
        x, y = 0.5 + t * dc, 0.5 + t * dr
        if abs(x - round(x)) < 1e-9 and abs(y - round(y)) < 1e-9:
            continue  # a corner: no length
        cells.add((int(np.floor(x)), int(np.floor(y))))
    return cells | {(dc, dr)}

def wall(d):
    g = band(d + "/gonogo.tif")
    gt, nx, ny, _ = grid(d)
    c, r = nx // 2, ny // 2
    block = g == 6
    # the band of rows the diagonal line crosses from edge to edge: cells right of it (above the
    # line) start, cells left of it must stay out of reach; the band's outside is walled off
    r0, r1 = r + 10, r + 50
    open_ = ~block
    open_[:r0, :] = False
    open_[r1:, :] = False
    open_[:, :c - 31] = False
    open_[:, c + 12:] = False
    for name, ks in (("8", [(1, 0), (0, 1), (1, 1), (1, -1)]),
                     ("16", [(1, 0), (0, 1), (1, 1), (1, -1), (1, 2), (2, 1), (1, -2), (2, -1)])):
        steps = [(k, moves(k)) for k in ks] + [((-k[0], -k[1]), {(-a, -b) for a, b in moves(k)}) for k in ks]
        seen = np.zeros_like(open_)
        start = (r0 + 5, c - 30 + 5 + 3)  # row, col: right of the line (col - c + 30 > row - r - 10)
        assert open_[start], "start"
        seen[start] = True
        todo = [start]
        while todo:
            y, x = todo.pop()
            for (dc, dr), cells in steps:
                ty, tx = y + dr, x + dc
                if not (0 <= ty < ny and 0 <= tx < nx) or seen[ty, tx] or not open_[ty, tx]:
                    continue
                if all(0 <= y + b < ny and 0 <= x + a < nx and open_[y + b, x + a] for a, b in cells):
                    seen[ty, tx] = True
                    todo.append((ty, tx))
        left = [(y, x) for y in range(r0, r1) for x in range(c - 31, c + 12) if seen[y, x] and (x - c + 30) < (y - r - 10)]
        if left:
            sys.exit("%s-neighbour moves cross the diagonal barrier: %s" % (name, left[:5]))
        if seen.sum() < 50:
            sys.exit("%s-neighbour: the start side is too small (%d cells)" % (name, seen.sum()))
    print("wall holds")

if __name__ == "__main__":
    {"make": make, "maps": maps, "wall": wall}[sys.argv[1]](*sys.argv[2:])
