#!/usr/bin/python3
"""The 3D map view of a project written by trv-project, in a real headless QGIS.

usage: qgis_3d_check.py PROJECT.qgs

QGIS's 3D library (qgis._3d) registered (Qgs3D.initialize) before the project
is read; then, one PASS/FAIL line each:
  - the file holds one <mapViewDocks3D><view><qgis3d> (QGIS 3.22's 3D map view);
  - Qgs3DMapSettings.readXml takes it: its CRS is the project's, its origin
    the DEM layer's centre, every layer it lists is one of the project's;
    written back (writeXml), its terrain generator is "dem" on the layer of
    dem.tif (QGIS has parsed the generator: an unknown one comes back "flat");
  - every route and trajectory layer that carries a <renderer-3d> has, once
    loaded, a 3D vector renderer whose symbol (written back by QGIS) is a line
    clamped to the terrain.
Exit status 0 when every check passes, 1 otherwise, 2 on usage errors, and 77
after a "SKIPPED: ..." line when this QGIS has no 3D library.
"""
import os
import sys

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from qgis.core import QgsApplication, QgsProject, QgsRasterLayer, QgsReadWriteContext  # noqa: E402
from qgis.PyQt.QtXml import QDomDocument  # noqa: E402

failures = 0


def check(ok, what):
    global failures
    print(("PASS: " if ok else "FAIL: ") + what)
    if not ok:
        failures += 1
    return ok


def view_element(path):
    doc = QDomDocument()
    with open(path, encoding="utf-8") as f:
        doc.setContent(f.read())
    docks = doc.documentElement().firstChildElement("mapViewDocks3D")
    return doc, docks.firstChildElement("view").firstChildElement("qgis3d")


def check_view(project, path):
    _, el = view_element(path)
    if not check(not el.isNull(), "the project holds a 3D map view (mapViewDocks3D/view/qgis3d)"):
        return
    from qgis._3d import Qgs3DMapSettings
    s = Qgs3DMapSettings()
    ctx = QgsReadWriteContext()
    s.readXml(el, ctx)
    s.resolveReferences(project)
    check(s.crs() == project.crs(), "the view's CRS %s is the project's" % s.crs().authid())
    dem = [l for l in project.mapLayers().values()
           if isinstance(l, QgsRasterLayer) and l.name() == "dem" and os.path.basename(l.source()) == "dem.tif"]
    if check(len(dem) == 1, "one raster layer 'dem' of dem.tif"):
        c = dem[0].extent().center()
        o = s.origin()
        check(abs(o.x() - c.x()) < 1e-3 and abs(o.y() - c.y()) < 1e-3,
              "the view's origin %.3f, %.3f is the DEM's centre %.3f, %.3f" % (o.x(), o.y(), c.x(), c.y()))
    listed = el.firstChildElement("terrain").firstChildElement("layers").elementsByTagName("layer")
    ids = [listed.at(i).toElement().attribute("id") for i in range(listed.count())]
    check(len(ids) > 0 and len(s.layers()) == len(ids),
          "the view's %d layers resolved (%d listed)" % (len(s.layers()), len(ids)))
    out = QDomDocument()
    out.appendChild(s.writeXml(out, ctx))
    gen = out.documentElement().firstChildElement("terrain").firstChildElement("generator")
    want = dem[0].id() if dem else None
    check(gen.attribute("type") == "dem" and gen.attribute("layer") == want,
          "QGIS's terrain generator: %s on %s (want dem on %s)" % (gen.attribute("type"), gen.attribute("layer"), want))


def check_lines(project, path):
    import xml.etree.ElementTree as ET
    root = ET.parse(path).getroot()
    n = 0
    for ml in root.iter("maplayer"):
        r3 = ml.find("renderer-3d")
        if r3 is None:
            continue
        n += 1
        lyr = project.mapLayer(ml.findtext("id"))
        r = lyr.renderer3D() if lyr is not None else None
        sym = data = None
        if r is not None:  # written back: what QGIS parsed (the Python binding does not downcast it)
            doc = QDomDocument()
            el = doc.createElement("renderer-3d")
            doc.appendChild(el)
            r.writeXml(el, QgsReadWriteContext())
            sym = el.firstChildElement("symbol")
            data = sym.firstChildElement("data")
        check(r is not None and r.type() == "vector" and sym.attribute("type") == "line"
              and data.attribute("alt-clamping") == "terrain",
              "%s: a 3D line on the terrain (%s, symbol %s, clamping %s)" % (
                  ml.findtext("layername"), r and r.type(), sym and sym.attribute("type"),
                  data and data.attribute("alt-clamping")))
    check(n > 0, "%d layers with a 3D renderer" % n)


def main(argv):
    if len(argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    app = QgsApplication([], True)
    app.setPrefixPath("/usr", True)
    app.initQgis()
    try:
        from qgis._3d import Qgs3D
    except ImportError:
        print("SKIPPED: the project's 3D view in QGIS: this QGIS has no 3D library (qgis._3d)")
        return 77
    Qgs3D.initialize()
    project = QgsProject.instance()
    if check(project.read(argv[1]), "QGIS reads '%s'" % argv[1]):
        check_view(project, argv[1])
        check_lines(project, argv[1])
    print("%s: %d 3D checks failed" % (argv[1], failures) if failures else "%s: all 3D checks passed" % argv[1])
    app.exitQgis()
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
