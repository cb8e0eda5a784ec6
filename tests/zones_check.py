#!/usr/bin/python3
"""Independent checks for tests/tool_zones.sh (GDAL/OSR for the CRS, plain
segment intersection here): make the river across the start-goal line,
put a bridge where a route crosses it, and check that every route of a
GeoJSON crosses the river only within the bridge's radius, or keeps out
of a polygon.

  river OUT.geojson                      a nogo line (feature 7, lon/lat)
  bridge ROUTE.geojson RIVER OUT          a point where ROUTE's first route crosses it (UTM 16N)
  crossings ROUTE.geojson RIVER BRIDGE R  every route crosses the river, only within R m of BRIDGE
  square ROUTE.geojson HALF OUT           a nogo square of HALF m around the middle vertex of the first route
  outside ROUTE.geojson SQUARE            no route meets the square
  shift ROUTE.geojson RIVER DS OUT        a bridge DS m along the river from where ROUTE's first route crosses it
  legs ROUTE.geojson RIVER BRIDGE R       some route crosses the river; every crossing of every feature (the
                                          whole route and its legs) within R m of BRIDGE
  vertex ROUTE.geojson FRAC               lon,lat of the vertex FRAC of the way along the first route's vertices
"""
import json, math, sys
from osgeo import osr

def ct(a, b):
    s, d = osr.SpatialReference(), osr.SpatialReference()
    s.ImportFromEPSG(a), d.ImportFromEPSG(b)
    s.SetAxisMappingStrategy(osr.OAMS_TRADITIONAL_GIS_ORDER)
    d.SetAxisMappingStrategy(osr.OAMS_TRADITIONAL_GIS_ORDER)
    return osr.CoordinateTransformation(s, d)

TO_UTM, TO_LL = ct(4326, 32616), ct(32616, 4326)
# start and goal of the test (UTM 16N) and the river's line across them
S, G = (735523.0, 4064355.4), (750768.2, 4045453.1)

def utm(coords): return [TO_UTM.TransformPoint(x, y)[:2] for x, y in coords]
def routes(path): return [(f["properties"]["route"], utm(f["geometry"]["coordinates"])) for f in json.load(open(path))["features"]]
def first(path): return json.load(open(path))["features"][0]["geometry"]["coordinates"]

def meet(a, b, c, d):
    rx, ry, sx, sy = b[0] - a[0], b[1] - a[1], d[0] - c[0], d[1] - c[1]
    den = rx * sy - ry * sx
    if den == 0:
        return None
    qx, qy = c[0] - a[0], c[1] - a[1]
    t, u = (qx * sy - qy * sx) / den, (qx * ry - qy * rx) / den
    return (a[0] + t * rx, a[1] + t * ry) if 0 <= t <= 1 and 0 <= u <= 1 else None

def hits(p, q): return [h for i in range(len(p) - 1) for j in range(len(q) - 1) for h in [meet(p[i], p[i + 1], q[j], q[j + 1])] if h]

def fc(crs, feats):
    return {"type": "FeatureCollection", "crs": {"type": "name", "properties": {"name": crs}}, "features": feats}

def river(out):
    L = math.hypot(G[0] - S[0], G[1] - S[1])
    ux, uy = (G[0] - S[0]) / L, (G[1] - S[1]) / L
    mx, my = (S[0] + G[0]) / 2, (S[1] + G[1]) / 2
    pts = [(mx - uy * 1000 * k + ux * 300 * math.sin(0.7 * k), my + ux * 1000 * k + uy * 300 * math.sin(0.7 * k)) for k in range(-40, 41)]
    ll = [TO_LL.TransformPoint(x, y)[:2] for x, y in pts]
    json.dump(fc("urn:ogc:def:crs:OGC:1.3:CRS84", [{"type": "Feature", "id": 7, "properties": {"effect": "nogo", "name": "river"},
               "geometry": {"type": "LineString", "coordinates": ll}}]), open(out, "w"))

def bridge(route, riv, out):
    h = hits(utm(first(route)), utm(first(riv)))
    assert h, "the route does not cross the river"
    json.dump(fc("urn:ogc:def:crs:EPSG::32616", [{"type": "Feature", "id": 1, "properties": {"name": "bridge"},
               "geometry": {"type": "Point", "coordinates": list(h[0])}}]), open(out, "w"))

def crossings(route, riv, br, r):
    R = utm(first(riv))
    b = first(br)
    if "32616" not in json.load(open(br))["crs"]["properties"]["name"]:
        b = utm([b])[0]
    rs = routes(route)
    assert rs
    for name, p in rs:
        h = hits(p, R)
        assert h, name + ": no crossing"
        far = [math.hypot(x - b[0], y - b[1]) for x, y in h if math.hypot(x - b[0], y - b[1]) > float(r)]
        assert not far, "%s crosses %.1f m from the bridge" % (name, far[0])
    print(len(rs), "routes cross only at the bridge")

def square(route, half, out):
    p = utm(first(route))
    c = p[len(p) // 2]
    h = float(half)
    ring = [(c[0] - h, c[1] - h), (c[0] + h, c[1] - h), (c[0] + h, c[1] + h), (c[0] - h, c[1] + h), (c[0] - h, c[1] - h)]
    json.dump(fc("urn:ogc:def:crs:EPSG::32616", [{"type": "Feature", "id": 3, "properties": {"effect": "nogo"},
               "geometry": {"type": "Polygon", "coordinates": [ring]}}]), open(out, "w"))

def outside(route, sq):
    ring = first(sq)[0]
    for name, p in routes(route):
        assert not hits(p, ring), name + " meets the square"
        x0, x1, y0, y1 = ring[0][0], ring[1][0], ring[0][1], ring[2][1]
        assert not any(x0 < x < x1 and y0 < y < y1 for x, y in p), name + " inside the square"
    print("outside")

def shift(route, riv, ds, out):
    R = utm(first(riv))
    h = hits(utm(first(route)), R)
    assert h, "the route does not cross the river"
    left = float(ds)  # walk the river from the crossing: find its segment, then go ds along
    i = next(i for i in range(len(R) - 1) if meet(R[i], R[i + 1], *[(h[0][0] - 1e-3 * (R[i + 1][1] - R[i][1]), h[0][1] + 1e-3 * (R[i + 1][0] - R[i][0])),
                                                                       (h[0][0] + 1e-3 * (R[i + 1][1] - R[i][1]), h[0][1] - 1e-3 * (R[i + 1][0] - R[i][0]))]))
    p, step = h[0], 1 if left > 0 else -1
    left = abs(left)
    j = i + 1 if step > 0 else i
    while True:
        d = math.hypot(R[j][0] - p[0], R[j][1] - p[1])
        if d >= left:
            p = (p[0] + (R[j][0] - p[0]) * left / d, p[1] + (R[j][1] - p[1]) * left / d)
            break
        left -= d
        p, j = R[j], j + step
    json.dump(fc("urn:ogc:def:crs:EPSG::32616", [{"type": "Feature", "id": 1, "properties": {"name": "bridge"},
               "geometry": {"type": "Point", "coordinates": list(p)}}]), open(out, "w"))

def legs(route, riv, br, r):
    R, b = utm(first(riv)), first(br)
    n = 0
    for name, p in routes(route):
        for x, y in hits(p, R):
            d = math.hypot(x - b[0], y - b[1])
            assert d <= float(r), "%s crosses %.1f m from the bridge" % (name, d)
            n += 1
    assert n, "no route crosses the river"
    print(n, "crossings, all at the bridge")

def vertex(route, frac):
    c = first(route)
    print("%.7f,%.7f" % tuple(c[int(float(frac) * (len(c) - 1))][:2]))

{"river": river, "bridge": bridge, "crossings": crossings, "square": square, "outside": outside, "shift": shift,
 "legs": legs, "vertex": vertex}[sys.argv[1]](*sys.argv[2:])
