#!/usr/bin/python3
"""Write qgis/traverse/models/traverse_pipeline.model3: the `make demo`
chain as a Processing model of the traverse algorithms (krige, terrain,
speed, cost, roadmap, route, sim, the maps, the QGIS project and the report),
every file in one run folder under the names `make demo` gives them.

usage: QT_QPA_PLATFORM=offscreen /usr/bin/python3 qgis/make_pipeline_model.py [OUT.model3]
tests/tool_qgis_provider.sh checks that the committed model is what this
script writes."""
import os
import sys

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
os.environ["QT_HASH_SEED"] = "0"  # the XML attributes in one order, so that the file diffs well
HERE = os.path.dirname(os.path.abspath(__file__))

from headless import start_qgis  # noqa: E402 (qgis/headless.py, beside this script)
from qgis.core import (  # noqa: E402
    QgsProcessingModelAlgorithm,
    QgsProcessingModelChildAlgorithm,
    QgsProcessingModelChildDependency,
    QgsProcessingModelChildParameterSource as Source,
    QgsProcessingModelParameter,
    QgsProcessingParameterFile,
    QgsProcessingParameterNumber,
    QgsProcessingParameterPoint,
    QgsProcessingParameterRasterLayer,
)
from qgis.PyQt.QtCore import QPointF  # noqa: E402

FOLDER = QgsProcessingParameterFile.Folder


def inputs():
    """The model's parameters: make demo's variables."""
    def file(name, label, filt, optional=False):
        p = QgsProcessingParameterFile(name, label, QgsProcessingParameterFile.File, "", None, optional, filt)
        return p
    return [
        QgsProcessingParameterRasterLayer("DEM", "DEM (any GDAL raster, any CRS)"),
        QgsProcessingParameterRasterLayer("SOIL", "Soil classes"),
        QgsProcessingParameterRasterLayer("LANDUSE", "Land-use classes"),
        QgsProcessingParameterNumber("RES", "Cell size of the kriged DEM (m)", QgsProcessingParameterNumber.Double,
                                     30, False, 0),
        QgsProcessingParameterNumber("SEED", "Seed (kriging subsamples, roadmap, sensor noise)",
                                     QgsProcessingParameterNumber.Integer, 1, False, 0),
        file("VEHICLE", "Vehicle file (data/vehicles/*.ini)", "INI files (*.ini)"),
        file("RULES", "Fuzzy rules (FCL) [default: the bundled fuzzy/mobility.fcl]", "FCL files (*.fcl)", True),
        QgsProcessingParameterPoint("FROM", "Start"),
        QgsProcessingParameterPoint("TO", "Goal"),
        file("SCENARIO", "Simulation scenario (data/scenarios/demo.ini)", "INI files (*.ini)"),
        QgsProcessingParameterFile("RUN", "Run folder (every output goes here, under make demo's names)", FOLDER),
    ]


def run_file(name):
    return Source.fromExpression("@RUN || '/%s'" % name)


def model_param(name):
    return Source.fromModelParameter(name)


def child_output(child, output):
    return Source.fromChildOutput(child, output)


def static(v):
    return Source.fromStaticValue(v)


# (child id, algorithm, description, {parameter: source or [sources]}, extra dependencies)
MAPS = ["dem", "slope", "speed", "limit", "gonogo", "cost", "class"]
MAP_SOURCE = {"dem": ("terrain", "DEM_TIF"), "slope": ("terrain", "SLOPE_TIF"), "speed": ("speed", "SPEED_TIF"),
              "limit": ("speed", "LIMIT_TIF"), "gonogo": ("speed", "GONOGO_TIF"), "cost": ("cost", "COST_TIF"),
              "class": ("cost", "CLASS_TIF")}
STEPS = [
    ("krige", "traverse:krige", "1 krige the DEM", {
        "INPUT": model_param("DEM"), "TR": model_param("RES"), "SEED": model_param("SEED"),
        "OUTPUT": run_file("dem_kriged.tif"), "STD": run_file("dem_std.tif"),
        "VARIOGRAM": run_file("variogram.csv"), "STDOUT": run_file("krige.txt")}, []),
    ("terrain", "traverse:terrain", "2 terrain", {
        "DEM": child_output("krige", "OUTPUT"), "SOIL": model_param("SOIL"), "LANDUSE": model_param("LANDUSE"),
        "OUTPUT": Source.fromExpression("@RUN"), "POINTS": run_file("points.csv")}, []),
    ("speed", "traverse:speed", "3 speed and GO/NOGO", {
        "TERRAIN": child_output("terrain", "OUTPUT"), "VEHICLE": model_param("VEHICLE"),
        "REPORT": run_file("speed_report.csv"), "STDOUT": run_file("speed.txt")}, []),
    ("cost", "traverse:cost", "4 fuzzy cost", {
        "TERRAIN": child_output("speed", "OUTPUT"), "RULES": model_param("RULES"),
        "STDOUT": run_file("cost.txt")}, []),
    ("roadmap", "traverse:roadmap", "5 roadmap", {
        "TERRAIN": child_output("cost", "OUTPUT"), "OUTPUT": run_file("roadmap.gpkg"), "SEED": model_param("SEED"),
        "STDOUT": run_file("roadmap.txt")}, []),
    ("route", "traverse:route", "6 routes", {
        "ROADMAP": child_output("roadmap", "OUTPUT"), "TERRAIN": child_output("cost", "OUTPUT"),
        "FROM": model_param("FROM"), "TO": model_param("TO"), "NO_TIMING": static(True), "GRID": static(True),
        "COMPARE": static(True), "OUTPUT": run_file("route.geojson"), "GPX": run_file("route.gpx"),
        "CSV": run_file("route.csv"), "STATS": run_file("route_stats.csv"), "STDOUT": run_file("route.txt")}, []),
    ("sim", "traverse:sim", "7 simulated drive", {
        "TERRAIN": child_output("cost", "OUTPUT"), "SCENARIO": model_param("SCENARIO"),
        "ROUTE": child_output("route", "CSV"), "SEED": model_param("SEED"), "NO_TIMING": static(True),
        "OUTPUT": run_file("sim"), "STDOUT": run_file("sim.txt")}, []),
] + [
    ("map_" + m, "traverse:render", "8 map: " + m, {
        "INPUT": child_output(*MAP_SOURCE[m]), "HILLSHADE": child_output("terrain", "DEM_TIF"), "LEGEND": static(True),
        "OUTPUT": run_file("png/%s.png" % m)}, []) for m in MAPS
] + [
    ("map_routes", "traverse:render", "8 map: routes", {
        "INPUT": child_output("cost", "COST_TIF"), "HILLSHADE": child_output("terrain", "DEM_TIF"),
        "OVERLAY": [child_output("roadmap", "OUTPUT"), child_output("route", "OUTPUT"), child_output("route", "GPX")],
        "LEGEND": static(True), "TITLE": static("Routes over mobility cost"),
        "OUTPUT": run_file("png/routes.png")}, []),
    ("map_route_mmcr", "traverse:render", "8 map: the recommended route", {
        "INPUT": child_output("cost", "COST_TIF"), "HILLSHADE": child_output("terrain", "DEM_TIF"),
        "OVERLAY": [child_output("route", "OUTPUT"), child_output("route", "GPX")], "ROUTE": static("mmcr"),
        "LEGEND": static(True), "TITLE": static("Recommended route: MMCR over mobility cost"),
        "OUTPUT": run_file("png/route_mmcr.png")}, []),
    ("project", "traverse:project", "9 QGIS project", {
        "INPUT": Source.fromExpression("@RUN"), "OUTPUT": run_file("project.qgs")},
     ["sim", "map_routes", "map_route_mmcr"] + ["map_" + m for m in MAPS]),
    ("report", "traverse:report", "10 report", {
        "INPUT": Source.fromExpression("@RUN"), "OUTPUT": run_file("report.md"), "HTML": run_file("report.html")},
     ["sim", "project"]),
]


def build():
    m = QgsProcessingModelAlgorithm("traverse_pipeline", "Pipeline")
    m.setHelpContent({
        "ALG_DESC": "The whole traverse pipeline, as make demo runs it: kriging, terrain fusion, speed and "
                    "GO/NOGO, fuzzy cost, roadmap, routes (all four strategies and their raster optima), the "
                    "simulated drive, the maps, the QGIS project and the mission report, every file in the run "
                    "folder under the names make demo gives them (out/<area>/ there).",
        "RUN": "An existing folder; the outputs go into it (png/ and sim/ below it).",
    })
    for i, p in enumerate(inputs()):
        mp = QgsProcessingModelParameter(p.name())
        mp.setPosition(QPointF(120 + 220 * (i % 4), 60 + 60 * (i // 4)))
        m.addModelParameter(p, mp)
    for i, (cid, alg, desc, params, deps) in enumerate(STEPS):
        c = QgsProcessingModelChildAlgorithm(alg)
        c.setChildId(cid)
        c.setDescription(desc)
        c.setPosition(QPointF(200 + 260 * (i % 3), 280 + 110 * i))
        for name, src in params.items():
            c.addParameterSources(name, src if isinstance(src, list) else [src])
        c.setDependencies([QgsProcessingModelChildDependency(d) for d in deps])
        m.addChildAlgorithm(c)
    return m


def main(argv):
    out = argv[1] if len(argv) > 1 else os.path.join(HERE, "traverse", "models", "traverse_pipeline.model3")
    app, plugin = start_qgis(HERE)  # noqa: F841 (the application must outlive the model)
    m = build()
    problems = [c.childId() for c in m.childAlgorithms().values() if c.algorithm() is None]
    if problems:
        print("unknown algorithms in %s" % problems, file=sys.stderr)
        return 1
    ok = m.toFile(out)
    plugin.unload()
    print("wrote %s" % out if ok else "cannot write %s" % out)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
