"""trv-terrain --ept against the same run's points.csv (tests/tool_terrain.sh).

    ept_check.py files DIR POINTS.csv DEM.tif   the dataset read file by file: every
        CSV row once among the nodes (x, y, z to the millimetre, slope to the
        CSV's 4 decimals, soil and land use exact), each node's points in its
        cube and of its depth (d = D - min(tz(c), tz(r), D)), every node's
        parent listed, the counts summed; the grid from gdalinfo of DEM.tif
    ept_check.py qgis DIR POINTS.csv    the same dataset in QGIS (provider
        "ept"): valid, point count, CRS, attributes, extent, identify at 12
        seeded CSV points, and the layer rendered
Prints "PASS ..." lines; exits 1 on the first failure.
"""
import csv
import json
import math
import os
import random
import struct
import subprocess
import sys


def fail(msg):
    print("FAIL: " + msg)
    sys.exit(1)


def check(cond, msg):
    if not cond:
        fail(msg)
    print("PASS " + msg)


def read_csv(path):
    with open(path) as f:
        rows = list(csv.reader(f))
    return [(float(r[0]), float(r[1]), float(r[2]), float(r[3]), int(r[4]), int(r[5])) for r in rows[1:]]


def tz(k, D):
    if k == 0:
        return D
    t = 0
    while t < D and k % 2 == 0:
        k //= 2
        t += 1
    return t


def files(root, pts):
    with open(os.path.join(root, "ept.json")) as f:
        ept = json.load(f)
    with open(os.path.join(root, "ept-hierarchy", "0-0-0-0.json")) as f:
        hier = json.load(f)
    check(ept["dataType"] == "binary" and ept["hierarchyType"] == "json" and ept["version"] == "1.0.0",
          "ept.json: binary data, json hierarchy, version 1.0.0")
    names = [(s["name"], s["type"], s["size"]) for s in ept["schema"]]
    check(names == [("X", "signed", 4), ("Y", "signed", 4), ("Z", "signed", 4), ("Slope", "float", 4),
                    ("Soil", "unsigned", 2), ("LandUse", "unsigned", 2)], "schema: %s" % names)
    off = [ept["schema"][k].get("offset", 0) for k in range(3)]
    scale = [ept["schema"][k]["scale"] for k in range(3)]
    x0, y0, z0, x1, y1, z1 = ept["bounds"]
    S = x1 - x0
    check(abs(y1 - y0 - S) < 1e-6 and abs(z1 - z0 - S) < 1e-6, "bounds: a cube of side %.1f m" % S)
    # the grid, as GDAL reads the DEM
    info = json.loads(subprocess.run(["gdalinfo", "-json", DEM], check=True, capture_output=True, text=True).stdout)
    west, cell, _, north, _, _ = info["geoTransform"]
    nx, ny = info["size"]
    D = 0
    while math.ceil(max(nx, ny) / 2 ** D) > 128:
        D += 1
    check(ept["span"] == math.ceil(max(nx, ny) / 2 ** D), "span %d for %d x %d cells, D = %d" % (ept["span"], nx, ny, D))
    check(ept["points"] == len(pts) == sum(hier.values()), "points: %d in ept.json, %d CSV rows, %d in the hierarchy"
          % (ept["points"], len(pts), sum(hier.values())))
    want = {}
    for p in pts:
        want[(round(p[0] * 1000), round(p[1] * 1000))] = p
    seen = 0
    for key, count in hier.items():
        d, ix, iy, iz = map(int, key.split("-"))
        if d > 0 and "%d-%d-%d-%d" % (d - 1, ix // 2, iy // 2, iz // 2) not in hier:
            fail("node %s without its parent" % key)
        with open(os.path.join(root, "ept-data", key + ".bin"), "rb") as f:
            data = f.read()
        if len(data) != 20 * count:
            fail("node %s: %d bytes for %d points" % (key, len(data), count))
        s = S / 2 ** d
        for X, Y, Z, sl, so, lu in struct.iter_unpack("<iiifHH", data):
            x, y, z = off[0] + X * scale[0], off[1] + Y * scale[1], off[2] + Z * scale[2]
            p = want.pop((round(x * 1000), round(y * 1000)), None)
            if p is None:
                fail("node %s: a point at (%.3f, %.3f) the CSV lacks, or twice" % (key, x, y))
            if abs(z - p[2]) > 1e-6 or abs(sl - p[3]) > 0.00005 + 1e-6 or (so, lu) != (p[4], p[5]):
                fail("node %s: %s against the CSV's %s" % (key, (x, y, z, sl, so, lu), p))
            c, r = round((x - west) / cell - 0.5), round((north - y) / cell - 0.5)
            if D - min(tz(c, D), tz(r, D), D) != d:
                fail("node %s: cell (%d, %d) belongs to another depth" % (key, c, r))
            if not (x0 + ix * s <= x < x0 + (ix + 1) * s and y0 + iy * s <= y < y0 + (iy + 1) * s and
                    z0 + iz * s <= z < z0 + (iz + 1) * s):
                fail("node %s: (%.3f, %.3f, %.3f) outside its cube" % (key, x, y, z))
            seen += 1
    check(not want and seen == len(pts), "every CSV row once among %d nodes, at its depth, in its node's cube"
          % len(hier))


def qgis(d, pts):
    from qgis.core import (QgsApplication, QgsDoubleRange, QgsGeometry, QgsMapRendererSequentialJob,
                           QgsMapSettings, QgsPointCloudLayer, QgsPointXY)
    from qgis.PyQt.QtCore import QSize
    from qgis.PyQt.QtGui import QColor
    app = QgsApplication([], False)
    app.initQgis()
    lay = QgsPointCloudLayer(os.path.join(d, "ept.json"), "points", "ept")
    check(lay.isValid(), "QGIS opens ept.json as a point cloud layer (provider ept)")
    check(lay.dataProvider().pointCount() == len(pts), "QGIS: %d points" % lay.dataProvider().pointCount())
    check(lay.crs().authid() == "EPSG:32616", "QGIS: CRS %s" % lay.crs().authid())
    names = [a.name() for a in lay.attributes().attributes()]
    check(names == ["X", "Y", "Z", "Slope", "Soil", "LandUse"], "QGIS attributes %s" % names)
    e = lay.extent()
    xs, ys = [p[0] for p in pts], [p[1] for p in pts]
    check(abs(e.xMinimum() - min(xs)) < 1e-6 and abs(e.xMaximum() - max(xs)) < 1e-6 and
          abs(e.yMinimum() - min(ys)) < 1e-6 and abs(e.yMaximum() - max(ys)) < 1e-6, "QGIS extent %s" % e.toString())
    rng = random.Random(1)
    for p in rng.sample(pts, 12):
        g = QgsGeometry.fromPointXY(QgsPointXY(p[0], p[1])).buffer(1.0, 8)
        got = lay.dataProvider().identify(0.5, g, QgsDoubleRange(), 10)
        if len(got) != 1:
            fail("QGIS identify at (%.3f, %.3f): %d points" % (p[0], p[1], len(got)))
        a = got[0]
        if (abs(a["X"] - p[0]) > 1e-6 or abs(a["Y"] - p[1]) > 1e-6 or abs(a["Z"] - p[2]) > 1e-6 or
                abs(a["Slope"] - p[3]) > 0.00005 + 1e-6 or (a["Soil"], a["LandUse"]) != (p[4], p[5])):
            fail("QGIS identify at (%.3f, %.3f): %s, the CSV %s" % (p[0], p[1], a, p))
    print("PASS QGIS identify: 12 seeded points equal to the CSV's rows")
    ms = QgsMapSettings()
    ms.setLayers([lay])
    ms.setDestinationCrs(lay.crs())
    ms.setExtent(lay.extent())
    ms.setOutputSize(QSize(300, 300))
    ms.setBackgroundColor(QColor(255, 255, 255))
    job = QgsMapRendererSequentialJob(ms)
    job.start()
    job.waitForFinished()
    img = job.renderedImage()
    drawn = sum(1 for y in range(0, 300, 3) for x in range(0, 300, 3) if img.pixelColor(x, y) != QColor(255, 255, 255))
    check(drawn > 5000, "QGIS renders the layer: %d of 10000 sampled pixels drawn" % drawn)


if __name__ == "__main__":
    mode, root_dir, csv_path = sys.argv[1], sys.argv[2], sys.argv[3]
    DEM = sys.argv[4] if len(sys.argv) > 4 else None
    points = read_csv(csv_path)
    (files if mode == "files" else qgis)(root_dir, points)
