/*
 * run.h — traverse run directory: the contract between the stages.
 *
 * A run directory holds one area's layers, every one on the same grid
 * (same CRS, origin, cell size and size). trv-terrain -o DIR makes it;
 * trv-speed and trv-cost --terrain DIR read it and add to it; trv-roadmap,
 * trv-route, trv-sim, trv-render, trv-project and trv-report read it. The
 * stages find each other's layers only through this table: a file name,
 * type or nodata value is written here once, and every reader loads the
 * layers it needs with run_load, which opens each once and checks that they
 * share one grid.
 *
 * The layers (this comment is the schema; run_layers() is the same table
 * in code, and tests/test_run.c checks that each row here matches it):
 *
 *   file            type     unit    nodata  classes  written by   band description / content
 *   dem_kriged.tif  Float32  m       -9999   no       trv-krige    "elevation": the DEM kriged onto the run's grid
 *   dem_std.tif     Float32  m       -9999   no       trv-krige    "kriging standard deviation" of dem_kriged
 *   dem.tif         Float32  m       -9999   no       trv-terrain  "elevation" on the run's grid
 *   slope.tif       Float32  degree  -9999   no       trv-terrain  "slope", Horn's method on dem
 *   soil.tif        Byte     -       0       yes      trv-terrain  "soil type": codes of the soil table (soils.csv)
 *   landuse.tif     Byte     -       0       yes      trv-terrain  "land use": codes of the land-use table (landuse.csv)
 *   speed.tif       Float32  km/h    none    no       trv-speed    "attainable speed" of the vehicle in the worse direction of travel, 0 where NOGO
 *   gonogo.tif      Byte     -       none    yes      trv-speed    "GO/NOGO reason": 0 GO, 1 slope, 2 soil, 3 land use, 4 traction, 5 no data
 *   limit.tif       Byte     -       none    yes      trv-speed    "binding speed limit": 0 NOGO, 1 top speed, 2 power, 3 traction, 4 ride, 5 vegetation, 6 visibility/braking
 *   cost.tif        Float32  -       none    no       trv-cost     "mobility cost (0 best, 1 worst; NOGO 1)", fuzzy inference
 *   class.tif       Byte     -       none    yes      trv-cost     "mobility class": 0 NOGO, then the rules' output terms from the riskiest
 *
 * "classes: yes" means a colour table and category names (nodata
 * transparent); "nodata: none" means the layer declares no nodata value
 * (0 is data in gonogo.tif and class.tif). trv-krige writes dem_kriged.tif
 * and dem_std.tif where -o and --std say; the demo (make demo) puts them in
 * the run directory, where trv-report and trv-project look for them. Every
 * layer also carries the TRV_TOOL, TRV_VERSION, TRV_ARGS and TRV_SEED
 * metadata items of the run that wrote it (geo_raster_write).
 *
 * The other files the stages leave there (run_others() is the same table
 * in code, checked against these rows by tests/test_run.c; SIM stands for
 * each simulator run's folder, whose name starts with RUN_SIM_PREFIX:
 * sim, sim_blocked):
 *
 *   file               written by   content
 *   points.csv         trv-terrain  the sample points of the terrain (--points)
 *   points/            trv-terrain  the same points as an EPT dataset, points/ept.json (--ept; terrain/ept.h)
 *   variogram.csv      trv-krige    the sample variogram and the chosen model at each lag
 *   speed_report.csv   trv-speed    per land use and soil: cone index, tyre mode, sinkage, resistance, every speed limit, pass
 *   roadmap.gpkg       trv-roadmap  the roadmap's nodes and edges (GeoPackage, TRV_ARGS in its metadata)
 *   roadmap.bin        trv-roadmap  the roadmap cache trv-route reads instead: the roadmap and its terrain's facts (binary)
 *   route_stats.csv    trv-route    per route: distance, time, slopes, speed, cost, NOGO samples
 *   route.csv          trv-route    the routes' vertices with their terrain values
 *   route.geojson      trv-route    the routes as GeoJSON LineStrings (EPSG:4326) with their statistics
 *   route.gpx          trv-route    GPX 1.1, a track per route and the start and goal waypoints
 *   krige.json         trv-krige    the kriging's summary (docs/summaries.md), as every *.json here
 *   terrain.json       trv-terrain  the terrain's summary
 *   speed.json         trv-speed    the speed's summary
 *   cost.json          trv-cost     the mobility cost's summary
 *   roadmap.json       trv-roadmap  the roadmap's summary
 *   route.json         trv-route    the routes' summary
 *   png/               trv-render   the maps (PNG), e.g. png/class.png
 *   SIM/metrics.json   trv-sim      a simulator run's metrics
 *   SIM/events.jsonl   trv-sim      a simulator run's event log, one JSON object a line
 *   speed_vehicle.ini  trv-speed    a copy of the vehicle file speed.tif was computed for
 *   speed_soils.csv    trv-speed    a copy of the soil table it used
 *   speed_landuse.csv  trv-speed    a copy of the land-use table it used
 *
 * The class tables the layers' codes refer to (soils.csv, landuse.csv) are
 * read by one reader, geo_class_csv_read (geo.h).
 *
 * Ownership: run_load fills a run_stack whose layers and paths it owns
 * until run_stack_clear; run_stack_take hands one layer to the caller.
 * The table is static: run_layer pointers are valid for the program's
 * life.
 */
#ifndef RUN_H
#define RUN_H

#include "geo/geo.h"

/* The layers, in the table's order (the order the pipeline makes them). */
typedef enum run_id {
    RUN_DEM_KRIGED, RUN_DEM_STD, RUN_DEM, RUN_SLOPE, RUN_SOIL, RUN_LANDUSE, RUN_SPEED, RUN_GONOGO, RUN_LIMIT, RUN_COST,
    RUN_CLASS, RUN_NLAYERS
} run_id;

typedef struct run_layer {
    run_id id;
    const char *name;       /* the id in text: "slope" */
    const char *file;       /* the file in the run directory: "slope.tif" */
    geo_type type;          /* GEO_F32 (Float32) or GEO_U8 (Byte) */
    const char *unit;       /* band unit as written ("m", "degree", "km/h"); NULL: none */
    int has_nodata;         /* 0: no nodata value declared */
    double nodata;
    int classes;            /* 1: colour table and category names */
    const char *stage;      /* the tool that writes it: "trv-terrain" */
    const char *band;       /* band description as written: "slope" */
    const char *desc;       /* one line for people */
} run_layer;

/* The table: RUN_NLAYERS rows, row k has id k. */
const run_layer *run_layers(void);
/* The row of id; NULL if id is not a layer. */
const run_layer *run_layer_of(run_id id);
/* The row whose name ("slope") or file ("slope.tif") is s; NULL if none. */
const run_layer *run_layer_find(const char *s);
/* The layer's file name ("slope.tif"); NULL if id is not a layer. */
const char *run_file(run_id id);
/* dir/file of the layer, malloc'ed; NULL out of memory or for a bad id. */
char *run_path(const char *dir, run_id id);
/* 1 if dir holds the layer's file and it is readable (an optional layer). */
int run_exists(const char *dir, run_id id);

/* ---- the other files ------------------------------------------------------ */

/* The other files, in the table's order. */
typedef enum run_oid {
    RUN_O_POINTS, RUN_O_POINT_CLOUD, RUN_O_VARIOGRAM, RUN_O_SPEED_REPORT, RUN_O_ROADMAP, RUN_O_ROADMAP_CACHE, RUN_O_ROUTE_STATS,
    RUN_O_ROUTE_CSV, RUN_O_ROUTE_GEOJSON, RUN_O_ROUTE_GPX, RUN_O_KRIGE_JSON, RUN_O_TERRAIN_JSON, RUN_O_SPEED_JSON, RUN_O_COST_JSON,
    RUN_O_ROADMAP_JSON, RUN_O_ROUTE_JSON, RUN_O_PNG, RUN_O_SIM_METRICS, RUN_O_SIM_EVENTS, RUN_O_SPEED_VEHICLE,
    RUN_O_SPEED_SOILS, RUN_O_SPEED_LANDUSE, RUN_NOTHERS
} run_oid;

/* The folders of simulator runs start with this ("sim", "sim_blocked"). */
#define RUN_SIM_PREFIX "sim"

typedef struct run_other {
    run_oid id;
    const char *file;       /* its name: "route_stats.csv"; a folder: "png" */
    int folder;             /* 1: a folder */
    int in_sim;             /* 1: in each simulator run's folder (SIM above), not in the run directory */
    const char *stage;      /* the tool that writes it: "trv-route" */
    const char *desc;       /* one line for people */
} run_other;

/* The table: RUN_NOTHERS rows, row k has id k. */
const run_other *run_others(void);
/* The row of id; NULL if id is not one. */
const run_other *run_other_of(run_oid id);
/* The row whose file is s; NULL if none. */
const run_other *run_other_find(const char *s);
/* Its file name ("route_stats.csv", "png", "metrics.json"); NULL for a bad id. */
const char *run_other_file(run_oid id);
/* dir/file, malloc'ed (dir: a simulator run's folder for in_sim files);
 * NULL out of memory or for a bad id. */
char *run_other_path(const char *dir, run_oid id);

/* ---- loading ------------------------------------------------------------ */

typedef struct run_stack {
    geo_raster *layer[RUN_NLAYERS]; /* by id; NULL where not loaded */
    char *path[RUN_NLAYERS];        /* dir/file of each loaded layer, for messages */
    const geo_grid *grid;           /* the grid they share (borrowed: the first
                                     * layer's, or opts->grid) */
} run_stack;

typedef struct run_load_opts {
    const geo_grid *grid;   /* the grid the layers must share (e.g. of layers loaded
                             * before); NULL: the first layer's */
    const char *grid_name;  /* grid's name in messages */
    const char *progress;   /* label of a trv_progress report after each layer
                             * ((k + 1) / n); NULL: none */
} run_load_opts;

/* Read the n layers which[0..n-1] of dir (on one thread per core, one
 * GDAL dataset each; every check and message in which[]'s order), each with its
 * table type (geo_raster_read: "cannot open 'DIR/soil.tif': ..." names a
 * missing file; non-finite cells are nodata), refuse a layer without a
 * cell of data (TRV_ERR_DATA "'DIR/slope.tif' holds only nodata", the rule
 * trv-krige and trv-terrain apply to their inputs), and check each against
 * the first (or opts->grid) with
 * geo_grid_compare: TRV_ERR_GRID "'DIR/b.tif' does not match 'DIR/a.tif':
 * cell size 10 x 10 vs 30 x 30" names both files and what differs. Stops
 * at the first error, which *out is then cleared of. An id that is not a
 * layer, or asked twice, is TRV_ERR_USAGE. opts may be NULL. */
trv_status run_load(trv_ctx *ctx, const char *dir, const run_id *which, int n, const run_load_opts *opts,
                    run_stack *out);
/* The layers kept open to be read by windows (run_open): trv-route reads
 * only the tiles a query needs. */
typedef struct run_srcs {
    geo_raster_src *src[RUN_NLAYERS]; /* by id; NULL where not opened */
    char *path[RUN_NLAYERS];          /* dir/file of each, for messages */
    const geo_grid *grid;             /* the grid they share (borrowed, as run_stack's) */
} run_srcs;

/* run_load without reading the cells: each of the n layers opened with its
 * table type (geo_raster_open: "cannot open 'DIR/soil.tif': ..."), and its
 * grid checked against the first (or opts->grid) with run_load's
 * messages; whether a layer holds data is not checked (that takes its
 * cells). Stops at the first error, *out then cleared. */
trv_status run_open(trv_ctx *ctx, const char *dir, const run_id *which, int n, const run_load_opts *opts,
                    run_srcs *out);
void run_srcs_clear(run_srcs *s);

/* The layer of id, now the caller's (geo_raster_free); NULL if not loaded.
 * s->grid may point into it: take the first layer last, or not use grid. */
geo_raster *run_stack_take(run_stack *s, run_id id);
/* Free what s still holds and zero it. */
void run_stack_clear(run_stack *s);

#endif
