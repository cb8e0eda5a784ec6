/* The run directory's layer table and the loader every stage reads through. */
#include "run.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const run_layer LAYERS[RUN_NLAYERS] = {
    {RUN_DEM_KRIGED, "dem_kriged", "dem_kriged.tif", GEO_F32, "m", 1, -9999, 0, "trv-krige", "elevation",
     "the DEM kriged onto the run's grid (trv-terrain's input)"},
    {RUN_DEM_STD, "dem_std", "dem_std.tif", GEO_F32, "m", 1, -9999, 0, "trv-krige", "kriging standard deviation",
     "the kriging standard deviation of dem_kriged"},
    {RUN_DEM, "dem", "dem.tif", GEO_F32, "m", 1, -9999, 0, "trv-terrain", "elevation", "elevation on the run's grid"},
    {RUN_SLOPE, "slope", "slope.tif", GEO_F32, "degree", 1, -9999, 0, "trv-terrain", "slope",
     "slope in degrees, Horn's method on dem"},
    {RUN_SOIL, "soil", "soil.tif", GEO_U8, NULL, 1, 0, 1, "trv-terrain", "soil type",
     "codes of the soil table (soils.csv)"},
    {RUN_LANDUSE, "landuse", "landuse.tif", GEO_U8, NULL, 1, 0, 1, "trv-terrain", "land use",
     "codes of the land-use table (landuse.csv)"},
    {RUN_SPEED, "speed", "speed.tif", GEO_F32, "km/h", 0, 0, 0, "trv-speed", "attainable speed",
     "the vehicle's attainable speed in the worse direction of travel, 0 where NOGO"},
    {RUN_GONOGO, "gonogo", "gonogo.tif", GEO_U8, NULL, 0, 0, 1, "trv-speed", "GO/NOGO reason",
     "0 GO; NOGO for 1 slope, 2 soil, 3 land use, 4 traction, 5 no data"},
    {RUN_LIMIT, "limit", "limit.tif", GEO_U8, NULL, 0, 0, 1, "trv-speed", "binding speed limit",
     "0 NOGO, 1 top speed, 2 power, 3 traction, 4 ride, 5 vegetation, 6 visibility/braking"},
    {RUN_COST, "cost", "cost.tif", GEO_F32, NULL, 0, 0, 0, "trv-cost", "mobility cost (0 best, 1 worst; NOGO 1)",
     "fuzzy mobility cost, 0 best to 1 worst"},
    {RUN_CLASS, "class", "class.tif", GEO_U8, NULL, 0, 0, 1, "trv-cost", "mobility class",
     "0 NOGO, then the rules' output terms from the riskiest"},
};

static const run_other OTHERS[RUN_NOTHERS] = {
    {RUN_O_POINTS, "points.csv", 0, 0, "trv-terrain", "the sample points of the terrain (--points)"},
    {RUN_O_POINT_CLOUD, "points", 1, 0, "trv-terrain", "the same points as an EPT dataset, points/ept.json (--ept)"},
    {RUN_O_VARIOGRAM, "variogram.csv", 0, 0, "trv-krige", "the sample variogram and the chosen model at each lag"},
    {RUN_O_SPEED_REPORT, "speed_report.csv", 0, 0, "trv-speed",
     "per land use and soil: cone index, tyre mode, sinkage, resistance, every speed limit, pass"},
    {RUN_O_ROADMAP, "roadmap.gpkg", 0, 0, "trv-roadmap", "the roadmap's nodes and edges (GeoPackage)"},
    {RUN_O_ROADMAP_CACHE, "roadmap.bin", 0, 0, "trv-roadmap",
     "the roadmap cache trv-route reads instead: the roadmap and its terrain's facts (binary)"},
    {RUN_O_ROUTE_STATS, "route_stats.csv", 0, 0, "trv-route", "per route: distance, time, slopes, speed, cost, NOGO samples"},
    {RUN_O_ROUTE_CSV, "route.csv", 0, 0, "trv-route", "the routes' vertices with their terrain values"},
    {RUN_O_ROUTE_GEOJSON, "route.geojson", 0, 0, "trv-route", "the routes as GeoJSON LineStrings (EPSG:4326)"},
    {RUN_O_ROUTE_GPX, "route.gpx", 0, 0, "trv-route", "GPX 1.1, a track per route and the start and goal waypoints"},
    {RUN_O_KRIGE_JSON, "krige.json", 0, 0, "trv-krige", "the kriging's summary"},
    {RUN_O_TERRAIN_JSON, "terrain.json", 0, 0, "trv-terrain", "the terrain's summary"},
    {RUN_O_SPEED_JSON, "speed.json", 0, 0, "trv-speed", "the speed's summary"},
    {RUN_O_COST_JSON, "cost.json", 0, 0, "trv-cost", "the mobility cost's summary"},
    {RUN_O_ROADMAP_JSON, "roadmap.json", 0, 0, "trv-roadmap", "the roadmap's summary"},
    {RUN_O_ROUTE_JSON, "route.json", 0, 0, "trv-route", "the routes' summary"},
    {RUN_O_PNG, "png", 1, 0, "trv-render", "the maps (PNG)"},
    {RUN_O_SIM_METRICS, "metrics.json", 0, 1, "trv-sim", "a simulator run's metrics"},
    {RUN_O_SIM_EVENTS, "events.jsonl", 0, 1, "trv-sim", "a simulator run's event log, one JSON object a line"},
    {RUN_O_SPEED_VEHICLE, "speed_vehicle.ini", 0, 0, "trv-speed", "a copy of the vehicle file speed.tif was computed for"},
    {RUN_O_SPEED_SOILS, "speed_soils.csv", 0, 0, "trv-speed", "a copy of the soil table it used"},
    {RUN_O_SPEED_LANDUSE, "speed_landuse.csv", 0, 0, "trv-speed", "a copy of the land-use table it used"},
};

const run_other *run_others(void) { return OTHERS; }

const run_other *run_other_of(run_oid id) { return (int)id >= 0 && id < RUN_NOTHERS ? &OTHERS[id] : NULL; }

const run_other *run_other_find(const char *s)
{
    for (int k = 0; s && k < RUN_NOTHERS; k++)
        if (!strcmp(s, OTHERS[k].file))
            return &OTHERS[k];
    return NULL;
}

const char *run_other_file(run_oid id)
{
    const run_other *o = run_other_of(id);
    return o ? o->file : NULL;
}

char *run_other_path(const char *dir, run_oid id)
{
    const char *f = run_other_file(id);
    return f ? trv_path_join(dir, f) : NULL;
}

const run_layer *run_layers(void) { return LAYERS; }

const run_layer *run_layer_of(run_id id) { return (int)id >= 0 && id < RUN_NLAYERS ? &LAYERS[id] : NULL; }

const run_layer *run_layer_find(const char *s)
{
    for (int k = 0; s && k < RUN_NLAYERS; k++)
        if (!strcmp(s, LAYERS[k].name) || !strcmp(s, LAYERS[k].file))
            return &LAYERS[k];
    return NULL;
}

const char *run_file(run_id id)
{
    const run_layer *l = run_layer_of(id);
    return l ? l->file : NULL;
}

char *run_path(const char *dir, run_id id)
{
    const char *f = run_file(id);
    return f ? trv_path_join(dir, f) : NULL;
}

int run_exists(const char *dir, run_id id)
{
    char *p = run_path(dir, id);
    int ok = p && access(p, R_OK) == 0;
    free(p);
    return ok;
}

geo_raster *run_stack_take(run_stack *s, run_id id)
{
    if (!run_layer_of(id))
        return NULL;
    geo_raster *r = s->layer[id];
    s->layer[id] = NULL;
    return r;
}

void run_stack_clear(run_stack *s)
{
    for (int k = 0; k < RUN_NLAYERS; k++) {
        geo_raster_free(s->layer[k]);
        free(s->path[k]);
    }
    memset(s, 0, sizeof *s);
}

/* Every id a layer, none twice. */
static trv_status check_which(trv_ctx *ctx, const run_id *which, int n)
{
    char seen[RUN_NLAYERS] = {0};
    for (int k = 0; k < n; k++) {
        if (!run_layer_of(which[k]))
            return trv_error(ctx, TRV_ERR_USAGE, "run_load: %d is not a layer of the run directory", (int)which[k]);
        if (seen[which[k]]++)
            return trv_error(ctx, TRV_ERR_USAGE, "run_load: layer '%s' asked twice", run_file(which[k]));
    }
    return TRV_OK;
}

/* One grid for the run: the first layer's (or the caller's) is the
 * reference, every later one is compared with it (geo_grid_compare's
 * message names both files). */
static trv_status same_grid(trv_ctx *ctx, const geo_grid **ref, const char **ref_name, const geo_grid *g,
                            const char *path)
{
    if (*ref)
        return geo_grid_compare(ctx, *ref, *ref_name, g, path);
    *ref = g;
    *ref_name = path;
    return TRV_OK;
}

/* The readers' shared state: the next index of which[] to read, each
 * layer's own context (its message), whether a read failed. */
typedef struct load_job {
    const run_id *which;
    int n;
    run_stack *out;
    trv_ctx **lctx;             /* lctx[k]: the context layer which[k] is read with */
    trv_status st[RUN_NLAYERS]; /* st[k]: its read's status */
    atomic_int next, failed;
} load_job;

/* Read layers which[k], k taken in increasing order, until none is left or
 * one failed (the ones after it are not needed: run_load reports the first
 * failing one, and every k before it was already taken). */
static void *load_worker(void *arg)
{
    load_job *J = arg;
    int k;
    while (!atomic_load(&J->failed) && (k = atomic_fetch_add(&J->next, 1)) < J->n) {
        const run_layer *l = &LAYERS[J->which[k]];
        geo_raster **r = &J->out->layer[l->id];
        if ((J->st[k] = geo_raster_read(J->lctx[k], J->out->path[l->id], l->type, r)) == TRV_OK &&
            !geo_raster_any_valid(*r))
            J->st[k] = trv_error(J->lctx[k], TRV_ERR_DATA, "'%s' holds only nodata", J->out->path[l->id]);
        if (J->st[k])
            atomic_store(&J->failed, 1);
    }
    return NULL;
}

/* The paths and contexts of the n layers, then their reads on one thread
 * per core (one GDAL dataset each; the calling thread is one of them). */
static trv_status load_all(trv_ctx *ctx, const char *dir, load_job *J)
{
    for (int k = 0; k < J->n; k++) {
        const run_layer *l = &LAYERS[J->which[k]];
        if (!(J->out->path[l->id] = trv_path_join(dir, l->file)) || !(J->lctx[k] = trv_ctx_new()))
            return trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
        J->st[k] = TRV_ERR_INTERNAL; /* not read (a failure before it) */
    }
    long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
    int nthreads = ncpu < 1 ? 1 : ncpu < J->n ? (int)ncpu : J->n;
    pthread_t th[RUN_NLAYERS];
    int started[RUN_NLAYERS] = {0};
    for (int i = 1; i < nthreads; i++)
        started[i] = pthread_create(&th[i], NULL, load_worker, J) == 0;
    load_worker(J);
    for (int i = 1; i < nthreads; i++)
        if (started[i])
            pthread_join(th[i], NULL);
    return TRV_OK;
}

trv_status run_load(trv_ctx *ctx, const char *dir, const run_id *which, int n, const run_load_opts *opts,
                    run_stack *out)
{
    memset(out, 0, sizeof *out);
    const geo_grid *ref = opts ? opts->grid : NULL;
    const char *ref_name = opts ? opts->grid_name : NULL;
    trv_ctx *lctx[RUN_NLAYERS] = {0};
    load_job J = {.which = which, .n = n, .out = out, .lctx = lctx};
    trv_status st = check_which(ctx, which, n);
    if (!st)
        st = load_all(ctx, dir, &J);
    /* the checks in which[]'s order: the first failing layer is named */
    for (int k = 0; k < n && !st; k++) {
        const run_layer *l = &LAYERS[which[k]];
        const char *p = out->path[l->id];
        if (J.st[k]) {
            st = trv_error(ctx, J.st[k], "%s", trv_errmsg(lctx[k]));
            break;
        }
        if ((st = same_grid(ctx, &ref, &ref_name, &out->layer[l->id]->grid, p)))
            break;
        if (opts && opts->progress)
            st = trv_progress(ctx, (k + 1.0) / n, opts->progress);
    }
    for (int k = 0; k < n && k < RUN_NLAYERS; k++)
        trv_ctx_free(lctx[k]);
    if (st)
        run_stack_clear(out);
    else
        out->grid = ref;
    return st;
}

void run_srcs_clear(run_srcs *s)
{
    for (int k = 0; k < RUN_NLAYERS; k++) {
        geo_raster_close(s->src[k]);
        free(s->path[k]);
    }
    memset(s, 0, sizeof *s);
}

trv_status run_open(trv_ctx *ctx, const char *dir, const run_id *which, int n, const run_load_opts *opts,
                    run_srcs *out)
{
    memset(out, 0, sizeof *out);
    const geo_grid *ref = opts ? opts->grid : NULL;
    const char *ref_name = opts ? opts->grid_name : NULL;
    trv_status st = check_which(ctx, which, n);
    for (int k = 0; k < n && !st; k++) {
        const run_layer *l = &LAYERS[which[k]];
        char *p = out->path[l->id] = trv_path_join(dir, l->file);
        if (!p) {
            st = trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
            break;
        }
        if ((st = geo_raster_open(ctx, p, l->type, &out->src[l->id])))
            break;
        if ((st = same_grid(ctx, &ref, &ref_name, geo_raster_src_grid(out->src[l->id]), p)))
            break;
    }
    if (st)
        run_srcs_clear(out);
    else
        out->grid = ref;
    return st;
}
