"""The trv-* tools as Processing algorithms: one table per tool (per mode, for
the two tools that have two), the options in the order of the tool's --help
(docs/trv-<tool>.md). A parameter's name is its option's in capitals
(--soil-classes: SOIL_CLASSES; -o: OUTPUT; the positional argument: INPUT).
tests/qgis_provider_check.py checks every table against the tool's --help:
each option mapped (or listed in `omitted` with the reason), in order, with
the tool's default."""
from .params import (Choice, Crs, Extent, File, FileOut, Flag, Folder, FolderOut, Layer, Number, Point, Raster,
                     RasterOut, Stdout, Text, Vectors)

CSV = "CSV files (*.csv)"
INI = "INI files (*.ini)"
TERRAIN_IN = "Terrain folder (made by trv-terrain)"


class Tool:
    def __init__(self, name, exe, title, group, summary, params, outputs=(), omitted=None):
        self.name, self.exe, self.title, self.group, self.summary = name, exe, title, group, summary
        self.params, self.outputs = params, list(outputs)
        self.omitted = omitted or {}  # option -> why this algorithm does not offer it

    def help(self):
        return ("%s<p>Runs <code>%s</code>; each parameter is the option of the same name, documented in "
                "docs/%s.md. Options left at the tool's default are not passed.</p>" % (
                    "".join("<p>%s</p>" % p for p in self.summary.split("\n\n")), self.exe, self.exe))


def krige_grid():
    """trv-krige's options from -o to --points, shared by both inputs."""
    return [
        RasterOut("-o", "Kriged DEM (Float32, metres)", required=True),
        RasterOut("--std", "Kriging standard deviation"),
        Crs("--t_srs", "Target CRS [default: the input's if projected, else its UTM zone]"),
        Number("--tr", "Target cell size [default: the input cell size / 3]", minimum=0),
        Raster("--like", "Take the target CRS, extent and cell size from this raster"),
        Extent("--te", "Target extent, in the target CRS [default: the input's footprint]", target="T_SRS"),
        Choice("--model", "Variogram model (auto: the best by leave-one-out error)",
               ["auto", "sph", "exp", "gau", "mat", "pow"], "auto"),
        Number("--nugget", "Fixed model: nugget (with psill, range and a model)", advanced=True),
        Number("--psill", "Fixed model: partial sill", advanced=True),
        Number("--range", "Fixed model: range (gstat's parameter; Pow: exponent)", advanced=True),
        Number("--kappa", "Matern smoothness (with model mat)", 1.5, advanced=True),
        Choice("--fit-method", "Variogram fit weights",
               [("7", "7: N/h^2"), ("2", "2: Cressie"), ("6", "6: ordinary least squares")], "7", advanced=True),
        Number("--cutoff", "Variogram cutoff [default: 1/3 of the diagonal]", minimum=0, advanced=True),
        Number("--width", "Variogram lag width [default: cutoff / 15]", minimum=0, advanced=True),
        Number("--nmax", "Neighbours per target (0: all points)", 16, integer=True, minimum=0),
        Number("--maxdist", "Targets with no sample this close are nodata", minimum=0, advanced=True),
        Number("--et", "Raster source's lattice frames: largest deviation from their affine maps, in source pixels "
               "(0: exact per block)", 0.01, minimum=0, advanced=True),
        FileOut("--variogram", "Sample variogram and model (CSV)", CSV),
        FileOut("--cv", "Leave-one-out cross-validation of every input point (CSV)", CSV),
        FileOut("--points", "Point cloud x,y,z,std (CSV)", CSV),
    ]


def krige_run():
    return [
        Number("--seed", "Seed of the variogram and LOOCV subsamples", 1, integer=True, minimum=0),
        Number("--threads", "Worker threads [default: all cores]", integer=True, minimum=1, advanced=True),
        Stdout(),
    ]


# conditional realisations: a multi-band file for the stages after kriging, not a layer to view
KRIGE_SIM_OMITTED = {o: "the realisations (a multi-band file for later stages): on the command line"
                     for o in ("--nsim", "--sim")}

KRIGE = Tool(
    "krige", "trv-krige", "Krige a DEM onto a metric grid", "Terrain",
    "Ordinary kriging of a DEM (any GDAL raster, any CRS) onto a regular metric grid: sample variogram, "
    "weighted least-squares fit (auto: the model with the lowest leave-one-out error), local "
    "neighbourhoods, kriging variance. Step 1 of the pipeline.",
    [Raster(None, "DEM (any GDAL raster, any CRS)", required=True)] + krige_grid() + krige_run(),
    [Layer("OUTPUT"), Layer("STD")],
    omitted=dict({o: "CSV input only: the algorithm 'Krige points from a CSV'" for o in ("--x", "--y", "--z", "--s_srs")},
                 **KRIGE_SIM_OMITTED))

KRIGE_POINTS = Tool(
    "krige_points", "trv-krige", "Krige points from a CSV onto a metric grid", "Terrain",
    "Ordinary kriging of points read from a CSV (x, y and value columns in a given CRS) onto a regular "
    "metric grid, as 'Krige a DEM' does for rasters.",
    [File(None, "Points (CSV)", CSV, required=True)] + krige_grid() + [
        Text("--x", "Column of x", required=True),
        Text("--y", "Column of y", required=True),
        Text("--z", "Column of the value", required=True),
        Crs("--s_srs", "CRS of x and y", required=True),
    ] + krige_run(),
    [Layer("OUTPUT"), Layer("STD")],
    omitted=KRIGE_SIM_OMITTED)

TERRAIN = Tool(
    "terrain", "trv-terrain", "Fuse the terrain (DEM, soil, land use)", "Terrain",
    "Aligns the soil and land-use maps onto the DEM's grid (majority or nearest, never interpolated), "
    "computes the slope in degrees (Horn, as gdaldem) and writes dem.tif, slope.tif, soil.tif and "
    "landuse.tif into the output folder, styled for QGIS. The DEM must be projected (metres): the "
    "kriged DEM of step 1. Step 2.",
    [
        Raster("--dem", "DEM (projected, metres)", required=True),
        Raster("--soil", "Soil-type classes (any CRS and cell size)", required=True),
        Raster("--landuse", "Land-use classes (any CRS and cell size)", required=True),
        FolderOut("-o", "Terrain folder (created if missing)", required=True),
        File("--soil-classes", "Soil class table [default: the bundled classes/soils.csv]", CSV),
        File("--landuse-classes", "Land-use class table [default: the bundled classes/landuse.csv]", CSV),
        Choice("--resampling", "Categorical resampling", [("mode", "mode (majority)"), "nearest"], "mode"),
        FileOut("--points", "Point cloud x,y,z,slope,soil,landuse (CSV)", CSV),
        FolderOut("--ept", "Point cloud as an Entwine Point Tile dataset (open its ept.json as a point cloud "
                  "layer); a new or empty folder, or an earlier dataset, which is replaced"),
        Stdout(),
    ],
    [Layer("OUTPUT", "dem.tif", output="DEM_TIF"), Layer("OUTPUT", "slope.tif", output="SLOPE_TIF"),
     Layer("OUTPUT", "soil.tif", output="SOIL_TIF"), Layer("OUTPUT", "landuse.tif", output="LANDUSE_TIF")])

SPEED = Tool(
    "speed", "trv-speed", "Attainable speed and GO/NOGO", "Mobility",
    "Vehicle cone index (NRMM), Bekker/Bakker tyre-soil sinkage and resistance per soil, attainable speed "
    "and GO/NOGO with its reason, for a vehicle file (data/vehicles/). Reads slope, soil and landuse.tif "
    "of the terrain folder and writes speed.tif, gonogo.tif and limit.tif (the limit that binds: top speed, "
    "power, traction, ride, vegetation, visibility/braking) into it. Step 3.",
    [
        File("--terrain", TERRAIN_IN, folder=True, writes=True, required=True),
        File("--vehicle", "Vehicle file (data/vehicles/*.ini)", INI, required=True),
        File("--soils", "Soil table [default: the bundled classes/soils.csv]", CSV),
        File("--landuse-classes", "Land-use table with a nogo column [default: the bundled classes/landuse.csv]", CSV),
        FileOut("--report", "Per-soil report (CSV)", CSV),
        Number("--moisture", "Every soil at this moisture content (%), between the moisture table's rows",
               minimum=0, maximum=100, advanced=True),
        Choice("--condition", "Every soil in this condition (normal: the soil table's values)",
               ["dry", "normal", "wet"], advanced=True),
        Raster("--moisture-raster", "Soil-moisture raster (%, any CRS): each soil at its median over its cells",
               advanced=True),
        Flag("--clamp-moisture", "Outside a soil's tabulated moistures take the nearest end (default: an error)",
             advanced=True),
        File("--moisture-table", "Soil values per moisture [default: the bundled classes/soils_moisture.csv]", CSV,
             advanced=True),
        File("--zones", "Zones baked into the maps: nogo, factor and max_speed polygons, nogo lines (attributes "
             "effect, value)", "Vector files (*.gpkg *.geojson *.json *.shp)", advanced=True),
        File("--crossings", "Crossings of the nogo lines: bridges, fords, gates (points, optional radius in m)",
             "Vector files (*.gpkg *.geojson *.json *.shp)", advanced=True),
        Number("--crossing-radius", "The crossings' radius without a radius attribute (m) [default: one cell]",
               minimum=0, advanced=True),
        File("--realizations", "Terrain realisations (band k = realisation k of dem.tif, trv-krige --nsim): "
             "also P(NOGO) and the speed's p10/p50/p90 per cell", "GeoTIFF (*.tif *.tiff)", advanced=True),
        Stdout(),
    ],
    [Folder("TERRAIN", "Terrain folder (with speed.tif, gonogo.tif and limit.tif)"),
     Layer("TERRAIN", "speed.tif", output="SPEED_TIF"), Layer("TERRAIN", "gonogo.tif", output="GONOGO_TIF"),
     Layer("TERRAIN", "limit.tif", output="LIMIT_TIF")])

COST = Tool(
    "cost", "trv-cost", "Fuzzy mobility cost", "Mobility",
    "Mamdani inference of the fuzzy rules (an IEC 61131-7 FCL file) on slope, elevation, soil cone index "
    "and attainable speed: cost.tif in [0, 1] (1 = worst, NOGO = 1) and class.tif (0 NOGO, 1 high-risk, "
    "2 low-risk, 3 safe), written into the terrain folder. Step 4.",
    [
        File("--terrain", TERRAIN_IN + ", with speed.tif and gonogo.tif", folder=True, writes=True, required=True),
        File("--rules", "Fuzzy rules (FCL) [default: the bundled fuzzy/mobility.fcl]", "FCL files (*.fcl)"),
        Choice("--defuzzifier", "Defuzzifier [default: the rules file's METHOD]", ["centroid", "mom", "som"]),
        File("--soils", "Soil table with code and ci_kPa [default: the bundled classes/soils.csv]", CSV),
        Number("--threads", "Worker threads [default: all cores]", integer=True, minimum=1, advanced=True),
        File("--realizations", "Terrain realisations (band k = realisation k of dem.tif, trv-krige --nsim): "
             "also the cost's mean and standard deviation per cell", "GeoTIFF (*.tif *.tiff)", advanced=True),
        Stdout(),
    ],
    [Folder("TERRAIN", "Terrain folder (with cost.tif and class.tif)"),
     Layer("TERRAIN", "cost.tif", output="COST_TIF"), Layer("TERRAIN", "class.tif", output="CLASS_TIF")],
    omitted={"--eval": "the algorithm 'Evaluate the fuzzy rules on a table'",
             "-o": "goes with --eval: the algorithm 'Evaluate the fuzzy rules on a table'"})

COST_EVAL = Tool(
    "cost_eval", "trv-cost", "Evaluate the fuzzy rules on a table", "Mobility",
    "Evaluates the fuzzy rules on a CSV whose columns include every input of the FCL file, and writes it "
    "back with the columns mobility, cost and class added.",
    [
        File("--rules", "Fuzzy rules (FCL)", "FCL files (*.fcl)", required=True),
        Choice("--defuzzifier", "Defuzzifier [default: the rules file's METHOD]", ["centroid", "mom", "som"]),
        File("--eval", "Inputs (CSV with a column per FCL input)", CSV, required=True),
        FileOut("-o", "Inputs with mobility, cost and class (CSV)", CSV, required=True),
    ],
    omitted={"--terrain": "the algorithm 'Fuzzy mobility cost'", "--soils": "goes with --terrain",
             "--threads": "goes with --terrain", "--realizations": "goes with --terrain"})

ROADMAP = Tool(
    "roadmap", "trv-roadmap", "Roadmap over the GO area", "Routes",
    "Samples the GO area by Latin hypercube (seeded) and connects each node to its nearest neighbours "
    "wherever the straight segment crosses no NOGO cell. Edges carry length, the lengths in low-risk, "
    "high-risk and safe cells, slope, traversal time and mobility cost. A GeoPackage with layers nodes and "
    "edges, styled. Step 5.",
    [
        File("--terrain", TERRAIN_IN + ", with class, cost, gonogo and speed.tif", folder=True, required=True),
        FileOut("-o", "Roadmap (GeoPackage)", "GeoPackage (*.gpkg)", required=True),
        Number("--nodes", "GO nodes [default: one per 0.02 km2 of GO area]", integer=True, minimum=0),
        Number("--k", "Connect each node to its K nearest", 14, integer=True, minimum=1, maximum=256),
        Number("--radius", "Connect each node to every node within this many metres instead of K", minimum=0),
        Number("--seed", "Seed of the Latin hypercube", 1, integer=True, minimum=0),
        Flag("--straight-only", "Straight edges alone (the paper's PRM): no raster bridges joining each GO region"),
        Number("--detour", "Also bridge two neighbouring nodes of one component where the roadmap's path between "
               "them is more than this many times the raster bridge (0: between components only; not with "
               "--tile)", 1.5, minimum=0, advanced=True),
        Number("--tile", "Build tile by tile, N x N cells a tile [default: the whole grid up to 5e7 cells, "
               "tiles of 4096 above]: the same nodes and straight edges, other bridges", integer=True, minimum=2,
               maximum=32768),
        Stdout(),
    ],
    [Layer("OUTPUT", layer="edges", output="EDGES_LAYER"),
     Layer("OUTPUT", layer="nodes", output="NODES_LAYER")])

ROUTE = Tool(
    "route", "trv-route", "Plan a route", "Routes",
    "Plans a route on the roadmap with the paper's improved A* (mmcr) or a baseline (mdr: shortest, msr: "
    "least slope, time: least traversal time), smooths it without entering NOGO, and writes it as GeoJSON "
    "(EPSG:4326, styled), GPX and CSV with its statistics. Points picked on the map are transformed into "
    "the points' CRS. Step 6.",
    [
        File("--roadmap", "Roadmap (made by trv-roadmap)", "GeoPackage (*.gpkg)", required=True),
        File("--terrain", "Terrain folder the roadmap was made from", folder=True, required=True),
        Point("--from", "Start", "SRS", required=True),
        Point("--to", "Goal (not with --return)", "SRS"),
        Crs("--srs", "CRS of the start and goal", "EPSG:4326"),
        Choice("--strategy", "Objective", [("mmcr", "mmcr (the paper's)"), ("mdr", "mdr (shortest)"),
                                           ("msr", "msr (least slope)"), ("time", "time (least traversal time)")],
               "mmcr"),
        Text("--via", "Waypoints to pass in this order: X,Y;X,Y... in the CRS of the start and goal"),
        Text("--visit", "Waypoints to visit in the order of least total objective (time unless another "
             "Objective than mmcr is chosen): X,Y;X,Y..."),
        Flag("--return", "With waypoints: end back at the start (no goal)"),
        Text("--weights", "mmcr weights kb,kh,ks,kd: low-risk, high-risk, safe, distance", "3,10,1,0.2"),
        Flag("--admissible", "mmcr with the admissible heuristic kd d instead of the paper's"),
        Flag("--flat", "Search the whole roadmap even when a tiled build's hierarchical index (.hier) is beside "
             "it (the same least cost)", advanced=True),
        Flag("--allow-no-route", "When the start or the goal is NOGO: route.json alone says why, and the run "
             "succeeds", advanced=True),
        Flag("--no-timing", "Leave the planning time out of the outputs (reruns give the same bytes)"),
        Flag("--grid", "Also solve the objective(s) on the raster, 16-connected (the optimum)"),
        Number("--grid-corridor", "--grid: search within this many metres of the roadmap route first, widened "
               "until proven the optimum [default: from the roadmap route's objective]", minimum=0, advanced=True),
        Flag("--grid-whole", "--grid: search the whole grid at once", advanced=True),
        Number("--grid-memory", "--grid: the most memory (MB) its searches may take; more is refused before it "
               "starts [default: three quarters of the machine's]", minimum=0, advanced=True),
        Flag("--compare", "Plan mdr, msr, mmcr and time"),
        Flag("--no-smooth", "Keep the node polyline (no B-spline)"),
        Number("--alternatives", "Routes of the strategy: the best and its alternatives (not with --compare or "
               "--grid)", 1, integer=True, minimum=1, maximum=8),
        Number("--max-stretch", "Alternatives: objective at most this many times the best's", 1.25, minimum=1,
               advanced=True),
        Number("--max-overlap", "Alternatives: at most this share of each one's length on any other route", 0.5,
               minimum=0, maximum=1, advanced=True),
        Number("--local-opt", "Alternatives: every piece up to this share of the best's objective is a shortest "
               "path (the T-test)", 0.25, minimum=0, maximum=1, advanced=True),
        Number("--corridor", "Refine on the raster within this many metres of the roadmap route "
               "[default: 3 cells; 0: off]", minimum=0, advanced=True),
        File("--zones", "Zones: nogo, factor and max_speed polygons, nogo lines (attributes effect, value)",
             "Vector files (*.gpkg *.geojson *.json *.shp)"),
        File("--crossings", "Crossings of the nogo lines: bridges, fords, gates (points, optional radius in m)",
             "Vector files (*.gpkg *.geojson *.json *.shp)"),
        Number("--risk", "Only cells whose P(NOGO) (p_nogo.tif of the terrain folder) is at most this", minimum=0,
               maximum=0.999999, advanced=True),
        Number("--mc", "Evaluate each route on this many realisations (dem_sim.tif of the terrain folder)",
               integer=True, minimum=1, advanced=True),
        Number("--crossing-radius", "The crossings' radius without a radius attribute (m) [default: one cell]",
               minimum=0, advanced=True),
        FileOut("-o", "Routes (GeoJSON)", "GeoJSON (*.geojson)", required=True),
        FileOut("--gpx", "Routes (GPX 1.1)", "GPX (*.gpx)"),
        FileOut("--csv", "Route vertices with terrain values (CSV)", CSV),
        FileOut("--stats", "One row of statistics per route (CSV)", CSV),
        FileOut("--profile", "Each route's profile, one row per cell crossed (CSV)", CSV),
        FileOut("--profile-png", "The strategy's route's profile picture (PNG)", "PNG (*.png)"),
        FileOut("--time-shares", "Each route's share of time per land use and binding limit (CSV)", CSV),
        Stdout(),
    ],
    [Layer("OUTPUT", name="routes", vector=True)])

SIM = Tool(
    "sim", "trv-sim", "Simulate the drive", "Simulation",
    "Drives the scenario's vehicles along their routes on the terrain: kinematic models with actuator lag, "
    "terrain contact, a path-following controller, GNSS, IMU and LiDAR, obstacles, re-planning; writes each "
    "trajectory, the events and the metrics into the output folder. Step 7.",
    [
        File("--terrain", TERRAIN_IN + ", with class, cost, gonogo and speed.tif", folder=True, required=True),
        File("--scenario", "Scenario (data/scenarios/*.ini)", INI, required=True),
        FolderOut("-o", "Output folder", required=True),
        File("--route", "Route for every vehicle (route CSV of trv-route), instead of the scenario's", CSV),
        File("--soils", "Soil table for the energy, read when the terrain has soil.tif "
             "[default: the bundled classes/soils.csv]", CSV),
        File("--landuse-classes", "Land-use table, read with the soil table "
             "[default: the bundled classes/landuse.csv]", CSV),
        Number("--seed", "Seed of the sensor noise", 1, integer=True, minimum=0),
        Number("--threads", "Threads casting the LiDAR's rays, the same outputs for any number [default: all cores]",
               integer=True, minimum=1, advanced=True),
        Flag("--realtime", "Pace the run to the wall clock"),
        Flag("--no-timing", "Leave wall_time_s and realtime_factor out of metrics.json"),
        Stdout(),
    ],
    [Layer("OUTPUT", "trajectory_*.geojson"), Layer("OUTPUT", "obstacles.geojson")],
    omitted={"--serve": "a TCP server an outside controller drives (docs/sim-protocol.md): no algorithm",
             "--commands": "replays a --serve session: goes with --serve",
             "--console": "the operator's console in a browser (docs/console.md), a live run: no algorithm",
             "--replay": "serves a finished run to the console: goes with --console"})

RENDER = Tool(
    "render", "trv-render", "Render a map (PNG)", "Maps and reports",
    "Draws a layer as a PNG map: categorical layers with their colour table and names, continuous layers "
    "with a palette and a colour bar, optionally over a hillshade, with vector overlays (each overlay "
    "layer's file is drawn: a GeoPackage layer brings its whole file), legend, scale bar, north arrow and "
    "title. With an extent: a window of the layer, in the extent's CRS. Step 8.",
    [
        Raster(None, "Layer", required=True),
        FileOut("-o", "Map (PNG)", "PNG (*.png)", required=True),
        Raster("--hillshade", "Shade with this DEM (Horn, azimuth 315, altitude 45)"),
        Choice("--palette", "Palette for a continuous layer [default: by band description]",
               ["viridis", "magma", "terrain", "ylorrd", "purples", "cost", "rdylgn", "greys"]),
        Vectors("--overlay", "Vector overlays"),
        Text("--route", "Draw only this route of the overlays (e.g. mmcr) [default: every route]"),
        Flag("--route-by-file", "Name each overlay file's lines after the file and colour them by that name "
             "(a fleet: one colour per vehicle)"),
        Flag("--legend", "Add a legend of the categories and the overlays"),
        Number("--width", "Image width in pixels", 1200, integer=True, minimum=320, maximum=10000),
        Text("--title", "Title [default: the band description]"),
        Extent("--te", "Map window [default: the whole layer]", srs_flag="--te_srs"),
    ])

PROJECT = Tool(
    "project", "trv-project", "QGIS project of a run folder", "Maps and reports",
    "Writes a QGIS 3 project of every layer a run left in the folder, styled and in order, with paths "
    "relative to the project. Step 9.",
    [
        File(None, "Run folder", folder=True, required=True),
        FileOut("-o", "Project", "QGIS projects (*.qgs)", required=True),
        Text("--title", "Project title [default: the folder's name]"),
    ])

REPORT = Tool(
    "report", "trv-report", "Mission report", "Maps and reports",
    "The mission report of a run folder as Markdown and, optionally, one self-contained HTML page: "
    "provenance, terrain, variogram, vehicle, classes, routes, simulation and maps. The folder needs "
    "route_stats.csv, class.tif, gonogo.tif, dem.tif and slope.tif; the printed reports of the other "
    "steps (krige.txt, speed.txt, ...) are read when present. Step 10.",
    [
        File(None, "Run folder", folder=True, required=True),
        FileOut("-o", "Report (Markdown)", "Markdown (*.md)", required=True),
        FileOut("--html", "Report (self-contained HTML)", "HTML (*.html)"),
    ])

TOOLS = [KRIGE, KRIGE_POINTS, TERRAIN, SPEED, COST, COST_EVAL, ROADMAP, ROUTE, SIM, RENDER, PROJECT, REPORT]
