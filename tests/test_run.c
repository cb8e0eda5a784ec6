/* The run-directory contract (src/run/run.h): the layer table against an
 * independent list written out here and against the schema in run.h's
 * header comment and docs/library.md, and so the table of the directory's
 * other files; run_load on small GeoTIFFs written
 * here (values read back, a missing layer named, a layer on another grid
 * named with both grids and what differs, the caller's reference grid,
 * progress and cancellation, bad requests); and the one class-table reader
 * (geo_class_csv_read) that the soil and land-use tables go through. */
#include "test_common.h"

#include <errno.h>
#include <math.h>
#include <sys/stat.h>

#include "run/run.h"
#include "terramech/terramech.h"

/* ---- the table ---- */

/* The run directory as docs/library.md describes it, written out
 * independently of src/run/run.c. */
static const struct {
    run_id id;
    const char *file;
    geo_type type;
    const char *unit;
    const char *nodata; /* "none" or the value */
    int classes;
    const char *stage;
} WANT[] = {
    {RUN_DEM_KRIGED, "dem_kriged.tif", GEO_F32, "m", "-9999", 0, "trv-krige"},
    {RUN_DEM_STD, "dem_std.tif", GEO_F32, "m", "-9999", 0, "trv-krige"},
    {RUN_DEM, "dem.tif", GEO_F32, "m", "-9999", 0, "trv-terrain"},
    {RUN_SLOPE, "slope.tif", GEO_F32, "degree", "-9999", 0, "trv-terrain"},
    {RUN_SOIL, "soil.tif", GEO_U8, NULL, "0", 1, "trv-terrain"},
    {RUN_LANDUSE, "landuse.tif", GEO_U8, NULL, "0", 1, "trv-terrain"},
    {RUN_SPEED, "speed.tif", GEO_F32, "km/h", "none", 0, "trv-speed"},
    {RUN_GONOGO, "gonogo.tif", GEO_U8, NULL, "none", 1, "trv-speed"},
    {RUN_LIMIT, "limit.tif", GEO_U8, NULL, "none", 1, "trv-speed"},
    {RUN_COST, "cost.tif", GEO_F32, NULL, "none", 0, "trv-cost"},
    {RUN_CLASS, "class.tif", GEO_U8, NULL, "none", 1, "trv-cost"},
};
#define NWANT ((int)(sizeof WANT / sizeof WANT[0]))

/* The run directory's other files as docs/library.md and run.h describe
 * them, written out independently of src/run/run.c. */
static const struct {
    run_oid id;
    const char *file;
    int folder, in_sim;
    const char *stage;
} WANT_OTHER[] = {
    {RUN_O_POINTS, "points.csv", 0, 0, "trv-terrain"},
    {RUN_O_POINT_CLOUD, "points", 1, 0, "trv-terrain"},
    {RUN_O_VARIOGRAM, "variogram.csv", 0, 0, "trv-krige"},
    {RUN_O_SPEED_REPORT, "speed_report.csv", 0, 0, "trv-speed"},
    {RUN_O_ROADMAP, "roadmap.gpkg", 0, 0, "trv-roadmap"},
    {RUN_O_ROADMAP_CACHE, "roadmap.bin", 0, 0, "trv-roadmap"},
    {RUN_O_ROUTE_STATS, "route_stats.csv", 0, 0, "trv-route"},
    {RUN_O_ROUTE_CSV, "route.csv", 0, 0, "trv-route"},
    {RUN_O_ROUTE_GEOJSON, "route.geojson", 0, 0, "trv-route"},
    {RUN_O_ROUTE_GPX, "route.gpx", 0, 0, "trv-route"},
    {RUN_O_KRIGE_JSON, "krige.json", 0, 0, "trv-krige"},
    {RUN_O_TERRAIN_JSON, "terrain.json", 0, 0, "trv-terrain"},
    {RUN_O_SPEED_JSON, "speed.json", 0, 0, "trv-speed"},
    {RUN_O_COST_JSON, "cost.json", 0, 0, "trv-cost"},
    {RUN_O_ROADMAP_JSON, "roadmap.json", 0, 0, "trv-roadmap"},
    {RUN_O_ROUTE_JSON, "route.json", 0, 0, "trv-route"},
    {RUN_O_PNG, "png", 1, 0, "trv-render"},
    {RUN_O_SIM_METRICS, "metrics.json", 0, 1, "trv-sim"},
    {RUN_O_SIM_EVENTS, "events.jsonl", 0, 1, "trv-sim"},
    {RUN_O_SPEED_VEHICLE, "speed_vehicle.ini", 0, 0, "trv-speed"},
    {RUN_O_SPEED_SOILS, "speed_soils.csv", 0, 0, "trv-speed"},
    {RUN_O_SPEED_LANDUSE, "speed_landuse.csv", 0, 0, "trv-speed"},
};
#define NWANT_OTHER ((int)(sizeof WANT_OTHER / sizeof WANT_OTHER[0]))

static const char *nodata_text(const run_layer *l, char *buf, size_t n)
{
    if (!l->has_nodata)
        return "none";
    snprintf(buf, n, "%g", l->nodata);
    return buf;
}

static void test_table(void **state)
{
    (void)state;
    const run_layer *T = run_layers();
    assert_int_equal(RUN_NLAYERS, NWANT);
    for (int k = 0; k < RUN_NLAYERS; k++) {
        const run_layer *l = &T[k];
        char buf[32];
        assert_int_equal(l->id, k);
        assert_ptr_equal(run_layer_of(WANT[k].id), l);
        assert_string_equal(l->file, WANT[k].file);
        assert_int_equal(l->type, WANT[k].type);
        if (WANT[k].unit)
            assert_string_equal(l->unit, WANT[k].unit);
        else
            assert_null(l->unit);
        assert_string_equal(nodata_text(l, buf, sizeof buf), WANT[k].nodata);
        assert_int_equal(l->classes, WANT[k].classes);
        assert_string_equal(l->stage, WANT[k].stage);
        assert_true(l->band && *l->band && l->desc && *l->desc);
        /* the name is the file without .tif */
        assert_int_equal(strlen(l->file), strlen(l->name) + 4);
        assert_memory_equal(l->file, l->name, strlen(l->name));
        /* lookups by name and by file */
        assert_ptr_equal(run_layer_find(l->name), l);
        assert_ptr_equal(run_layer_find(l->file), l);
        assert_string_equal(run_file(l->id), l->file);
        for (int j = 0; j < k; j++) {
            assert_string_not_equal(T[j].name, l->name);
            assert_string_not_equal(T[j].file, l->file);
        }
    }
    assert_null(run_layer_find("nope.tif"));
    assert_null(run_layer_find(NULL));
    assert_null(run_layer_of(RUN_NLAYERS));
    assert_null(run_layer_of((run_id)-1));
    assert_null(run_file(RUN_NLAYERS));
    assert_null(run_path("d", RUN_NLAYERS));
    char *p = run_path("some/dir", RUN_GONOGO);
    assert_string_equal(p, "some/dir/gonogo.tif");
    free(p);
    /* the writers' own constants agree with the table */
    assert_string_equal(run_layer_of(RUN_SPEED)->band, TM_SPEED_DESC);
    assert_string_equal(run_layer_of(RUN_SPEED)->unit, TM_SPEED_UNIT);
}

static void test_others(void **state)
{
    (void)state;
    const run_other *T = run_others();
    assert_int_equal(RUN_NOTHERS, NWANT_OTHER);
    for (int k = 0; k < RUN_NOTHERS; k++) {
        const run_other *o = &T[k];
        assert_int_equal(o->id, k);
        assert_ptr_equal(run_other_of(WANT_OTHER[k].id), o);
        assert_string_equal(o->file, WANT_OTHER[k].file);
        assert_int_equal(o->folder, WANT_OTHER[k].folder);
        assert_int_equal(o->in_sim, WANT_OTHER[k].in_sim);
        assert_string_equal(o->stage, WANT_OTHER[k].stage);
        assert_true(o->desc && *o->desc);
        assert_ptr_equal(run_other_find(o->file), o);
        assert_string_equal(run_other_file(o->id), o->file);
        assert_null(run_layer_find(o->file)); /* not a layer's name */
    }
    assert_null(run_other_find("nope.csv"));
    assert_null(run_other_find(NULL));
    assert_null(run_other_find("slope.tif"));
    assert_null(run_other_of(RUN_NOTHERS));
    assert_null(run_other_of((run_oid)-1));
    assert_null(run_other_file(RUN_NOTHERS));
    assert_null(run_other_path("d", RUN_NOTHERS));
    char *p = run_other_path("some/dir", RUN_O_ROUTE_STATS);
    assert_string_equal(p, "some/dir/route_stats.csv");
    free(p);
    assert_string_equal(RUN_SIM_PREFIX, "sim");
}

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        fail_msg("cannot open %s (make test runs in the repository)", path);
    char *s = calloc(1 << 20, 1);
    assert_non_null(s);
    size_t n = fread(s, 1, (1 << 20) - 1, f);
    s[n] = 0;
    fclose(f);
    return s;
}

/* run.h's header comment is the schema: one row per layer, its columns
 * "file type unit nodata classes stage" as the table has them. */
static void test_header_schema(void **state)
{
    (void)state;
    char *path = env_path("TRV_SRCDIR", ".", "src/run/run.h");
    char *text = slurp(path);
    char *end = strstr(text, "*/");
    assert_non_null(end);
    *end = 0; /* only the header comment */
    int rows = 0;
    for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
        char file[64], type[16], unit[16], nodata[16], classes[8], stage[32];
        if (sscanf(line, " * %63s %15s %15s %15s %7s %31s", file, type, unit, nodata, classes, stage) != 6 ||
            !strstr(file, ".tif"))
            continue;
        const run_layer *l = run_layer_find(file);
        if (!l)
            fail_msg("run.h lists '%s', which the table lacks", file);
        char buf[32];
        assert_string_equal(type, l->type == GEO_F32 ? "Float32" : "Byte");
        assert_string_equal(unit, l->unit ? l->unit : "-");
        assert_string_equal(nodata, nodata_text(l, buf, sizeof buf));
        assert_string_equal(classes, l->classes ? "yes" : "no");
        assert_string_equal(stage, l->stage);
        /* the band description, quoted, follows */
        char quoted[128];
        snprintf(quoted, sizeof quoted, "\"%s\"", l->band);
        assert_non_null(strstr(line, quoted));
        rows++;
    }
    assert_int_equal(rows, RUN_NLAYERS);
    free(text);
    /* the other files: "file stage content" rows, a folder as "png/", a
     * file of a simulator run as "SIM/metrics.json" */
    text = slurp(path);
    *strstr(text, "*/") = 0;
    rows = 0;
    for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
        char shown[64], stage[32], file[64];
        if (strncmp(line, " *   ", 5) || sscanf(line, " * %63s %31s", shown, stage) != 2 || strncmp(stage, "trv-", 4) ||
            strstr(shown, ".tif"))
            continue; /* not a row of the table (indented, then file and stage) */
        const char *name = strncmp(shown, "SIM/", 4) ? shown : shown + 4;
        snprintf(file, sizeof file, "%s", name);
        size_t n = strlen(file);
        int slash = n && file[n - 1] == '/';
        if (slash)
            file[n - 1] = 0;
        const run_other *o = run_other_find(file);
        if (!o)
            fail_msg("run.h lists '%s', which the table of other files lacks", shown);
        assert_int_equal(o->in_sim, name != shown);
        assert_int_equal(o->folder, slash);
        assert_string_equal(stage, o->stage);
        rows++;
    }
    assert_int_equal(rows, RUN_NOTHERS);
    free(text);
    free(path);
    /* docs/library.md names every layer file */
    path = env_path("TRV_SRCDIR", ".", "docs/library.md");
    text = slurp(path);
    for (int k = 0; k < RUN_NLAYERS; k++) {
        char want[64];
        snprintf(want, sizeof want, "`%s`", run_layers()[k].file);
        if (!strstr(text, want))
            fail_msg("docs/library.md does not name %s", want);
    }
    for (int k = 0; k < RUN_NOTHERS; k++) {
        char want[64];
        snprintf(want, sizeof want, "`%s`", run_others()[k].file);
        if (!strstr(text, want))
            fail_msg("docs/library.md does not name %s", want);
    }
    free(text);
    free(path);
}

/* ---- run_load ---- */

static char *utm16(void)
{
    trv_ctx *ctx = trv_ctx_new();
    char *wkt = NULL;
    assert_int_equal(geo_crs_wkt(ctx, "EPSG:32616", &wkt), TRV_OK);
    trv_ctx_free(ctx);
    return wkt;
}

/* Write dir/file: 3 x 2 cells of the given size at (730000, 4069000),
 * cell i holding base + i. */
static void write_layer(const char *dir, const char *file, geo_type type, double cell, double base)
{
    trv_ctx *ctx = trv_ctx_new();
    geo_grid g = {3, 2, {730000, cell, 0, 4069000, 0, -cell}, utm16()};
    geo_raster *r = NULL;
    assert_int_equal(geo_raster_new(ctx, &g, type, &r), TRV_OK);
    for (int i = 0; i < 6; i++) {
        if (type == GEO_F32)
            r->f32[i] = (float)(base + i);
        else
            r->u8[i] = (unsigned char)(base + i);
    }
    char *p = NULL;
    assert_true(asprintf(&p, "%s/%s", dir, file) > 0);
    assert_int_equal(geo_raster_write(ctx, r, p, NULL), TRV_OK);
    free(p);
    geo_raster_free(r);
    free(g.wkt);
    trv_ctx_free(ctx);
}

static char *rundir;

static int make_run(void **state)
{
    (void)state;
    if (asprintf(&rundir, "%s/run", tmpdir) < 0 || (mkdir(rundir, 0755) != 0 && errno != EEXIST))
        return -1;
    write_layer(rundir, "dem.tif", GEO_F32, 30, 300.5);
    write_layer(rundir, "slope.tif", GEO_F32, 30, 10);
    write_layer(rundir, "soil.tif", GEO_U8, 30, 1);
    write_layer(rundir, "landuse.tif", GEO_U8, 10, 2); /* on a 10 m grid: another grid */
    return 0;
}

static int free_run(void **state)
{
    (void)state;
    free(rundir);
    return 0;
}

static void assert_empty(const run_stack *s)
{
    for (int k = 0; k < RUN_NLAYERS; k++) {
        assert_null(s->layer[k]);
        assert_null(s->path[k]);
    }
    assert_null(s->grid);
}

static void test_load(void **state)
{
    (void)state;
    trv_ctx *ctx = trv_ctx_new();
    run_stack s;
    static const run_id which[3] = {RUN_SLOPE, RUN_DEM, RUN_SOIL};
    assert_int_equal(run_load(ctx, rundir, which, 3, NULL, &s), TRV_OK);
    assert_non_null(s.layer[RUN_DEM]);
    assert_null(s.layer[RUN_SPEED]);
    assert_int_equal(s.layer[RUN_DEM]->type, GEO_F32);
    assert_int_equal(s.layer[RUN_SOIL]->type, GEO_U8);
    for (int i = 0; i < 6; i++) {
        assert_float_equal(s.layer[RUN_DEM]->f32[i], 300.5 + i, 0);
        assert_float_equal(s.layer[RUN_SLOPE]->f32[i], 10 + i, 0);
        assert_int_equal(s.layer[RUN_SOIL]->u8[i], 1 + i);
    }
    /* the grid is the first layer's */
    assert_ptr_equal(s.grid, &s.layer[RUN_SLOPE]->grid);
    assert_int_equal(s.grid->nx, 3);
    assert_int_equal(s.grid->ny, 2);
    char want[512];
    snprintf(want, sizeof want, "%s/soil.tif", rundir);
    assert_string_equal(s.path[RUN_SOIL], want);
    geo_raster *soil = run_stack_take(&s, RUN_SOIL);
    assert_non_null(soil);
    assert_null(s.layer[RUN_SOIL]);
    assert_null(run_stack_take(&s, RUN_SOIL));
    geo_raster_free(soil);
    run_stack_clear(&s);
    assert_empty(&s);
    assert_true(run_exists(rundir, RUN_DEM));
    assert_false(run_exists(rundir, RUN_SPEED));
    trv_ctx_free(ctx);
}

static void test_load_errors(void **state)
{
    (void)state;
    trv_ctx *ctx = trv_ctx_new();
    run_stack s;
    char want[1024];
    /* a missing layer, named, after two good ones: nothing kept */
    static const run_id missing[3] = {RUN_DEM, RUN_SLOPE, RUN_SPEED};
    assert_int_equal(run_load(ctx, rundir, missing, 3, NULL, &s), TRV_ERR_IO);
    snprintf(want, sizeof want, "cannot open '%s/speed.tif'", rundir);
    assert_contains(trv_errmsg(ctx), want);
    assert_empty(&s);
    /* a layer on another grid: both files named, and what differs */
    static const run_id other[3] = {RUN_DEM, RUN_SOIL, RUN_LANDUSE};
    assert_int_equal(run_load(ctx, rundir, other, 3, NULL, &s), TRV_ERR_GRID);
    snprintf(want, sizeof want, "'%s/landuse.tif' does not match '%s/dem.tif': cell size 10 x 10 vs 30 x 30", rundir,
             rundir);
    assert_string_equal(trv_errmsg(ctx), want);
    assert_empty(&s);
    /* the first layer asked is the reference */
    static const run_id lu_first[2] = {RUN_LANDUSE, RUN_SLOPE};
    assert_int_equal(run_load(ctx, rundir, lu_first, 2, NULL, &s), TRV_ERR_GRID);
    snprintf(want, sizeof want, "'%s/slope.tif' does not match '%s/landuse.tif': cell size 30 x 30 vs 10 x 10", rundir,
             rundir);
    assert_string_equal(trv_errmsg(ctx), want);
    /* the caller's grid (layers loaded before) as the reference */
    char *wkt = utm16();
    geo_grid shifted = {3, 2, {730030, 30, 0, 4069000, 0, -30}, wkt};
    run_load_opts on = {.grid = &shifted, .grid_name = "class.tif"};
    static const run_id soil[1] = {RUN_SOIL};
    assert_int_equal(run_load(ctx, rundir, soil, 1, &on, &s), TRV_ERR_GRID);
    snprintf(want, sizeof want, "'%s/soil.tif' does not match 'class.tif': origin", rundir);
    assert_contains(trv_errmsg(ctx), want);
    shifted.gt[0] = 730000;
    assert_int_equal(run_load(ctx, rundir, soil, 1, &on, &s), TRV_OK);
    assert_ptr_equal(s.grid, &shifted);
    run_stack_clear(&s);
    free(wkt);
    /* bad requests */
    static const run_id twice[2] = {RUN_DEM, RUN_DEM};
    assert_int_equal(run_load(ctx, rundir, twice, 2, NULL, &s), TRV_ERR_USAGE);
    assert_contains(trv_errmsg(ctx), "'dem.tif' asked twice");
    static const run_id bad[1] = {RUN_NLAYERS};
    assert_int_equal(run_load(ctx, rundir, bad, 1, NULL, &s), TRV_ERR_USAGE);
    assert_empty(&s);
    trv_ctx_free(ctx);
}

/* Read on several threads, the layers still fail in which[]'s order: the
 * first failing one is named, whatever fails after it (a corrupt file, a
 * missing one, another grid). */
static void test_load_first_error(void **state)
{
    (void)state;
    trv_ctx *ctx = trv_ctx_new();
    run_stack s;
    char want[1024], *p = NULL;
    assert_true(asprintf(&p, "%s/gonogo.tif", rundir) > 0);
    FILE *f = fopen(p, "w"); /* corrupt: not a GeoTIFF */
    assert_non_null(f);
    fputs("not a GeoTIFF\n", f);
    fclose(f);
    static const run_id corrupt_first[6] = {RUN_DEM, RUN_SLOPE, RUN_GONOGO, RUN_SOIL, RUN_SPEED, RUN_LANDUSE};
    assert_int_equal(run_load(ctx, rundir, corrupt_first, 6, NULL, &s), TRV_ERR_IO);
    snprintf(want, sizeof want, "cannot open '%s/gonogo.tif': ", rundir);
    assert_contains(trv_errmsg(ctx), want);
    assert_null(strstr(trv_errmsg(ctx), "speed.tif"));
    assert_empty(&s);
    static const run_id missing_first[5] = {RUN_SOIL, RUN_DEM, RUN_SPEED, RUN_SLOPE, RUN_GONOGO};
    assert_int_equal(run_load(ctx, rundir, missing_first, 5, NULL, &s), TRV_ERR_IO);
    snprintf(want, sizeof want, "cannot open '%s/speed.tif': no such file", rundir);
    assert_string_equal(trv_errmsg(ctx), want);
    assert_empty(&s);
    /* another grid before a missing file: the grid is named */
    static const run_id grid_first[4] = {RUN_DEM, RUN_SLOPE, RUN_LANDUSE, RUN_SPEED};
    assert_int_equal(run_load(ctx, rundir, grid_first, 4, NULL, &s), TRV_ERR_GRID);
    snprintf(want, sizeof want, "'%s/landuse.tif' does not match '%s/dem.tif': cell size 10 x 10 vs 30 x 30", rundir,
             rundir);
    assert_string_equal(trv_errmsg(ctx), want);
    assert_empty(&s);
    /* a missing file before another grid: the file is named */
    static const run_id file_first[4] = {RUN_DEM, RUN_SPEED, RUN_SLOPE, RUN_LANDUSE};
    assert_int_equal(run_load(ctx, rundir, file_first, 4, NULL, &s), TRV_ERR_IO);
    snprintf(want, sizeof want, "cannot open '%s/speed.tif': no such file", rundir);
    assert_string_equal(trv_errmsg(ctx), want);
    assert_empty(&s);
    unlink(p);
    free(p);
    trv_ctx_free(ctx);
}

typedef struct seen {
    int n, stop_at;
    double f[8];
    char label[16];
} seen;

static int record(double fraction, const char *label, void *user)
{
    seen *s = user;
    if (s->n < 8)
        s->f[s->n] = fraction;
    snprintf(s->label, sizeof s->label, "%s", label ? label : "");
    return ++s->n == s->stop_at;
}

static void test_load_progress(void **state)
{
    (void)state;
    trv_ctx *ctx = trv_ctx_new();
    seen rec = {0};
    trv_ctx_set_progress(ctx, record, &rec);
    run_stack s;
    static const run_id which[3] = {RUN_DEM, RUN_SLOPE, RUN_SOIL};
    /* no label: no reports */
    assert_int_equal(run_load(ctx, rundir, which, 3, NULL, &s), TRV_OK);
    run_stack_clear(&s);
    assert_int_equal(rec.n, 0);
    run_load_opts o = {.progress = "read"};
    assert_int_equal(run_load(ctx, rundir, which, 3, &o, &s), TRV_OK);
    run_stack_clear(&s);
    assert_int_equal(rec.n, 3);
    assert_float_equal(rec.f[0], 1.0 / 3, 1e-12);
    assert_float_equal(rec.f[1], 2.0 / 3, 1e-12);
    assert_float_equal(rec.f[2], 1.0, 0);
    assert_string_equal(rec.label, "read");
    /* cancelled after the second layer: nothing kept */
    rec = (seen){.stop_at = 2};
    assert_int_equal(run_load(ctx, rundir, which, 3, &o, &s), TRV_ERR_CANCEL);
    assert_int_equal(rec.n, 2);
    assert_empty(&s);
    trv_ctx_free(ctx);
}

/* ---- the one class-table reader ---- */

static void expect_table_error(const char *text, const char *noun, const char *const *cols, trv_status want,
                               const char *msg)
{
    trv_ctx *ctx = trv_ctx_new();
    char *p = write_file(tmpdir, "t.csv", text);
    geo_class_csv *t = (geo_class_csv *)1;
    assert_int_equal(geo_class_csv_read(ctx, p, noun, cols, &t), want);
    assert_null(t);
    char full[512];
    snprintf(full, sizeof full, "%s%s", msg[0] == ':' ? p : "", msg);
    assert_contains(trv_errmsg(ctx), full);
    free(p);
    trv_ctx_free(ctx);
}

static void test_class_csv(void **state)
{
    (void)state;
    static const char *const ci[] = {"ci_kPa", NULL};
    expect_table_error("code,ci_kPa\n1,200\n0,300\n", "soil", ci, TRV_ERR_FORMAT,
                       ":3: soil code 0 must be an integer in 1..254");
    expect_table_error("code,ci_kPa\n1.5,200\n", "soil", ci, TRV_ERR_FORMAT,
                       ":2: soil code 1.5 must be an integer in 1..254");
    expect_table_error("code,ci_kPa\n255,200\n", "soil", ci, TRV_ERR_FORMAT,
                       ":2: soil code 255 must be an integer in 1..254");
    expect_table_error("code,ci_kPa\n4,200\n7,1\n4,300\n", "soil", ci, TRV_ERR_FORMAT, ":4: soil code 4 repeated");
    expect_table_error("code,ci_kPa\n", "soil", ci, TRV_ERR_FORMAT, ": no soils");
    expect_table_error("code,name\n", "class", NULL, TRV_ERR_FORMAT, ": no classes");
    expect_table_error("code,name\n1,x\n", "soil", ci, TRV_ERR_FORMAT, ": no column 'ci_kPa'");
    expect_table_error("name,ci_kPa\nx,1\n", "soil", ci, TRV_ERR_FORMAT, ": no column 'code'");
    expect_table_error("code,ci_kPa\nx,1\n", "soil", ci, TRV_ERR_FORMAT, "t.csv:2");

    trv_ctx *ctx = trv_ctx_new();
    static const char *const cols[] = {"nogo", "name", NULL};
    char *p = write_file(tmpdir, "t.csv", "name,code,nogo\nwater,9,yes\nfield,3,no\n");
    geo_class_csv *t = NULL;
    assert_int_equal(geo_class_csv_read(ctx, p, "land-use class", cols, &t), TRV_OK);
    assert_int_equal(t->n, 2);
    assert_int_equal(t->code[0], 9);
    assert_int_equal(t->code[1], 3);
    assert_string_equal(trv_csv_cell(t->csv, 0, t->col[0]), "yes");
    assert_string_equal(trv_csv_cell(t->csv, 1, t->col[1]), "field");
    geo_class_csv_free(t);
    geo_class_csv_free(NULL);
    free(p);

    /* the soil table through the reader: the same codes for its users */
    char *soils = data_path("classes/soils.csv");
    tm_soils *ts = NULL;
    geo_classes *legend = NULL;
    assert_int_equal(geo_class_csv_read(ctx, soils, "soil", ci, &t), TRV_OK);
    assert_int_equal(tm_soils_read(ctx, soils, &ts), TRV_OK);
    assert_int_equal(geo_classes_read(ctx, soils, &legend), TRV_OK);
    assert_int_equal(ts->n, (int)t->n);
    assert_int_equal(legend->n, (int)t->n);
    for (size_t r = 0; r < t->n; r++) {
        double v;
        assert_int_equal(trv_csv_double(ctx, t->csv, r, t->col[0], &v), TRV_OK);
        assert_int_equal(ts->s[r].code, t->code[r]);
        assert_int_equal(legend->c[r].code, t->code[r]);
        assert_float_equal(ts->s[r].ci_kPa, v, 0);
    }
    geo_class_csv_free(t);
    tm_soils_free(ts);
    geo_classes_free(legend);
    free(soils);
    trv_ctx_free(ctx);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_table),
        cmocka_unit_test(test_others),
        cmocka_unit_test(test_header_schema),
        cmocka_unit_test_setup_teardown(test_load, make_run, free_run),
        cmocka_unit_test_setup_teardown(test_load_errors, make_run, free_run),
        cmocka_unit_test_setup_teardown(test_load_first_error, make_run, free_run),
        cmocka_unit_test_setup_teardown(test_load_progress, make_run, free_run),
        cmocka_unit_test(test_class_csv),
    };
    return cmocka_run_group_tests(tests, tmpdir_setup, tmpdir_teardown);
}
