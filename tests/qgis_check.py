#!/usr/bin/python3
"""Load a project written by trv-project in a real, headless QGIS and check it.

usage: qgis_check.py PROJECT.qgs [--crs EPSG:xxxx] [--png OUT.png] [--min-layers N]

Checks, one PASS/FAIL line each:
  - QGIS reads the project, and its CRS is the one written (and --crs if given);
  - every <maplayer> of the file is loaded, valid, and has the CRS written
    for it; rasters and GeoPackage layers have the project's CRS;
  - every layer's renderer is the expected type: rasters 'hillshade' for the
    hillshade layer, 'paletted' for Byte bands with a colour table (with as
    many classes as the file lists), 'singlebandpseudocolor' for the other
    rasters; vectors the renderer-v2 type written in the file, one of
    categorizedSymbol / singleSymbol (categorised: at least one category);
  - each layer drawn alone is not blank (at least 2 colours);
  - the visible layers drawn together over the project's default view
    (QgsMapRendererParallelJob, 800 px wide, white background) give a PNG
    with at least 16 distinct colours and more than 50 % non-white pixels.
Exit status 0 when every check passes, 1 otherwise, 2 on usage errors.
"""
import os
import sys
import xml.etree.ElementTree as ET

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from qgis.core import (  # noqa: E402
    Qgis,
    QgsApplication,
    QgsMapRendererParallelJob,
    QgsMapSettings,
    QgsProject,
    QgsPointCloudLayer,
    QgsRasterLayer,
    QgsRectangle,
    QgsVectorLayer,
)
from qgis.PyQt.QtCore import QSize  # noqa: E402
from qgis.PyQt.QtGui import QColor  # noqa: E402

failures = 0


def check(ok, what):
    global failures
    print(("PASS: " if ok else "FAIL: ") + what)
    if not ok:
        failures += 1
    return ok


def render(layers, crs, extent, width):
    s = QgsMapSettings()
    s.setLayers(layers)
    s.setDestinationCrs(crs)
    h = max(1, int(round(width * extent.height() / extent.width())))
    s.setOutputSize(QSize(width, h))
    s.setExtent(extent)
    s.setBackgroundColor(QColor(255, 255, 255))
    job = QgsMapRendererParallelJob(s)
    job.start()
    job.waitForFinished()
    return job.renderedImage()


def colours(img, step=1):
    seen = {}
    for y in range(0, img.height(), step):
        for x in range(0, img.width(), step):
            p = img.pixel(x, y) & 0xFFFFFF
            seen[p] = seen.get(p, 0) + 1
    total = sum(seen.values())
    white = seen.get(0xFFFFFF, 0)
    return len(seen), (total - white) / total if total else 0.0


def main(argv):
    args = {"--crs": None, "--png": None, "--min-layers": "1"}
    pos = []
    i = 1
    while i < len(argv):
        if argv[i] in args and i + 1 < len(argv):
            args[argv[i]] = argv[i + 1]
            i += 2
        elif argv[i].startswith("-"):
            print(__doc__, file=sys.stderr)
            return 2
        else:
            pos.append(argv[i])
            i += 1
    if len(pos) != 1:
        print(__doc__, file=sys.stderr)
        return 2
    path = pos[0]

    # what the file says, read independently of QGIS
    root = ET.parse(path).getroot()
    written = {}
    for ml in root.iter("maplayer"):
        lid = ml.findtext("id")
        rr = ml.find("pipe/rasterrenderer")
        rv = ml.find("renderer-v2") if ml.get("type") != "point-cloud" else ml.find("renderer")
        written[lid] = {
            "type": ml.get("type"),
            "name": ml.findtext("layername"),
            "source": ml.findtext("datasource"),
            "authid": ml.findtext("srs/spatialrefsys/authid"),
            "renderer": (rr if rr is not None else rv).get("type") if (rr is not None or rv is not None) else None,
            "palette": len(rr.findall("colorPalette/paletteEntry")) if rr is not None else 0,
        }
    proj_authid = root.findtext("projectCrs/spatialrefsys/authid")

    app = QgsApplication([], False)
    app.setPrefixPath("/usr", True)
    app.initQgis()
    project = QgsProject.instance()
    if not check(project.read(path), "QGIS reads '%s'" % path):
        return 1
    pcrs = project.crs()
    check(pcrs.isValid() and pcrs.authid() == proj_authid,
          "project CRS %s (written %s)" % (pcrs.authid(), proj_authid))
    if args["--crs"]:
        check(pcrs.authid() == args["--crs"], "project CRS is %s" % args["--crs"])
    check(len(written) >= int(args["--min-layers"]),
          "%d layers in the file (at least %s)" % (len(written), args["--min-layers"]))
    check(len(project.mapLayers()) == len(written),
          "QGIS loaded %d layers of the %d written" % (len(project.mapLayers()), len(written)))

    ext = project.viewSettings().defaultViewExtent()
    if ext.isEmpty():
        ext = QgsRectangle(project.viewSettings().fullExtent())
    check(not ext.isEmpty(), "default view extent %s" % ext.toString(0))

    for lid, w in written.items():
        lyr = project.mapLayer(lid)
        name = "%s (%s)" % (w["name"], w["source"])
        if not check(lyr is not None and lyr.isValid(), "%s: loaded and valid" % name):
            continue
        check(lyr.crs().authid() == w["authid"], "%s: CRS %s (written %s)" % (name, lyr.crs().authid(), w["authid"]))
        if isinstance(lyr, QgsRasterLayer) or ".gpkg" in (w["source"] or ""):
            check(lyr.crs() == pcrs, "%s: CRS is the project's" % name)
        got = lyr.renderer().type() if lyr.renderer() else None
        if isinstance(lyr, QgsRasterLayer):
            dp = lyr.dataProvider()
            if w["name"] == "hillshade":
                want = "hillshade"
            elif dp.dataType(1) == Qgis.Byte and len(dp.colorTable(1)) > 0:
                want = "paletted"
            else:
                want = "singlebandpseudocolor"
            check(got == want == w["renderer"], "%s: renderer %s (expected %s, written %s)" % (name, got, want, w["renderer"]))
            if want == "paletted" and got == "paletted":
                n = len(lyr.renderer().classes())
                check(n == w["palette"] and n > 0, "%s: %d palette classes (written %d)" % (name, n, w["palette"]))
        elif isinstance(lyr, QgsPointCloudLayer):
            check(got == w["renderer"] == "ramp" and lyr.renderer().attribute() == "Z",
                  "%s: renderer %s on %s (written %s)" % (name, got, lyr.renderer().attribute(), w["renderer"]))
            check(lyr.dataProvider().pointCount() > 0, "%s: %d points" % (name, lyr.dataProvider().pointCount()))
            check(lyr.crs() == pcrs, "%s: CRS is the project's" % name)
        elif isinstance(lyr, QgsVectorLayer):
            ok = got == w["renderer"] and got in ("categorizedSymbol", "singleSymbol", "graduatedSymbol", "RuleRenderer")
            check(ok, "%s: renderer %s (written %s)" % (name, got, w["renderer"]))
            if got == "categorizedSymbol":
                n = len(lyr.renderer().categories())
                check(n > 0, "%s: %d categories" % (name, n))
            check(lyr.featureCount() > 0, "%s: %d features" % (name, lyr.featureCount()))
        img = render([lyr], pcrs, ext, 200)
        ncol, frac = colours(img)
        check(ncol >= 2, "%s: drawn alone, %d colours, %.1f %% not white" % (name, ncol, 100 * frac))

    visible = project.layerTreeRoot().checkedLayers()
    check(len(visible) > 0, "%d visible layers: %s" % (len(visible), ", ".join(l.name() for l in visible)))
    img = render(visible, pcrs, ext, 800)
    if args["--png"]:
        img.save(args["--png"], "PNG")
    ncol, frac = colours(img, 2)
    check(ncol >= 16 and frac > 0.5,
          "the map (%dx%d px): %d colours, %.1f %% not white (want >= 16 and > 50 %%)" %
          (img.width(), img.height(), ncol, 100 * frac))
    print("%s: %d checks failed" % (path, failures) if failures else "%s: all checks passed" % path)
    app.exitQgis()
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
