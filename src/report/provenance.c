/* The report's inputs and provenance (report_priv.h): the sources as the
 * stages recorded them, the layers of the run with their CRS, grid and
 * the tool and seed that made them, and the commands that made them. */
#define _POSIX_C_SOURCE 200809L
#include "report/report_priv.h"

#include <stdlib.h>
#include <string.h>

/* The sources, as the stages recorded them: the kriging's input in
 * krige.json, the others as TRV_INPUT_* metadata items of the layers; ""
 * where none is recorded. In the order of SOURCES. */
enum { NSOURCES = 7 };
static const struct {
    const char *role;
    run_id layer;           /* the layer and its item (key NULL: krige.json) */
    const char *key;
    int raster;
} SOURCES[NSOURCES] = {{"elevation", RUN_NLAYERS, NULL, 1},
                       {"soil map", RUN_DEM, "TRV_INPUT_SOIL", 1},
                       {"land-use map", RUN_DEM, "TRV_INPUT_LANDUSE", 1},
                       {"soil classes", RUN_DEM, "TRV_INPUT_SOIL_CLASSES", 0},
                       {"land-use classes", RUN_DEM, "TRV_INPUT_LANDUSE_CLASSES", 0},
                       {"vehicle", RUN_SPEED, "TRV_INPUT_VEHICLE", 0},
                       {"fuzzy rules", RUN_COST, "TRV_INPUT_RULES", 0}};

/* What raster info holds, or "" if not. */
static const char *meta(const geo_raster_info *info, const char *key)
{
    const char *v = geo_raster_info_meta(info, key);
    return v ? v : "";
}

static trv_status source_paths(trv_ctx *ctx, run *r, char path[NSOURCES][PATH_MAX])
{
    struct json_object *krige;
    trv_status st = rpt_summary(ctx, r, RUN_O_KRIGE_JSON, &krige);
    if (st)
        return st;
    trv_sfmt(path[0], PATH_MAX, "%s", jstr(jget(krige, "input"), "path"));
    json_object_put(krige);
    for (int k = 1; k < NSOURCES; k++) {
        path[k][0] = '\0';
        if (!trv_file_exists(P(r, LAYER(SOURCES[k].layer))))
            continue;
        geo_raster_info info;
        if ((st = rpt_info_read(ctx, r->path, &info)))
            return st;
        trv_sfmt(path[k], PATH_MAX, "%s", meta(&info, SOURCES[k].key));
        geo_raster_info_clear(&info);
    }
    return TRV_OK;
}

/* The table of the sources, rasters described when readable from here. */
static void source_table(trv_ctx *ctx, doc *d, char path[NSOURCES][PATH_MAX])
{
    rpt_p(d, "The sources, as the stages recorded them in their outputs' metadata (paths as given on their "
             "command lines; rasters described when readable from here):");
    block *t = rpt_table(d, "llllll", "role", "file", "CRS", "size (cells)", "cell size", "note");
    for (int k = 0; k < NSOURCES; k++) {
        if (!*path[k])
            continue;
        geo_raster_info info;
        int ok = SOURCES[k].raster && trv_file_exists(path[k]) && !geo_raster_info_read(ctx, path[k], &info);
        if (ok) {
            const double *gt = info.grid.gt;
            rpt_row(d, t, strdup(SOURCES[k].role), rpt_fmt("`%s`", path[k]), rpt_crs_label(&info),
                    rpt_fmt("%d x %d", info.grid.nx, info.grid.ny),
                    info.crs.geographic ? rpt_fmt("%.4g\" x %.4g\"", gt[1] * 3600, fabs(gt[5]) * 3600)
                                        : rpt_fmt("%.4g x %.4g m", gt[1], fabs(gt[5])),
                    rpt_fmt("%s", info.nbands ? info.type_name : "Unknown"));
            geo_raster_info_clear(&info);
        } else {
            rpt_row(d, t, strdup(SOURCES[k].role), rpt_fmt("`%s`", path[k]), strdup(""), strdup(""), strdup(""),
                    strdup(SOURCES[k].raster ? "not found from here" : ""));
        }
    }
    if (t && t->nrows == 0)
        rpt_p(d, "(no source recorded: the run's metadata names none)");
}

/* One row per layer of the run, and the commands that made them (each
 * once, at most 16) into cmds. */
static trv_status layer_rows(trv_ctx *ctx, doc *d, run *r, char cmds[16][2048], int *ncmds)
{
    block *t = rpt_table(d, "llllrll", "file", "layer", "CRS", "size (cells)", "cell size (m)", "made by", "seed");
    for (int k = 0; k < RUN_NLAYERS; k++) {
        const char *file = run_layers()[k].file;
        if (!trv_file_exists(P(r, file)))
            continue;
        geo_raster_info info;
        trv_status st = rpt_info_read(ctx, r->path, &info);
        if (st)
            return st;
        const char *desc = info.desc, *unit = info.unit, *seed = meta(&info, "TRV_SEED"), *tool = meta(&info, "TRV_TOOL");
        rpt_row(d, t, rpt_fmt("`%s`", file), rpt_fmt("%s%s%s%s", desc, *unit ? " (" : "", unit, *unit ? ")" : ""),
                rpt_crs_label(&info), rpt_fmt("%d x %d", info.grid.nx, info.grid.ny),
                rpt_fmt("%g", info.has_gt ? info.grid.gt[1] : 1.0), rpt_fmt("%s%s%s", *tool ? "`" : "", tool, *tool ? "`" : ""),
                strdup(*seed ? seed : "-"));
        const char *args = meta(&info, "TRV_ARGS");
        int dup = 0;
        for (int c = 0; c < *ncmds; c++)
            dup |= !strcmp(cmds[c], args);
        if (*args && !dup && *ncmds < 16)
            trv_sfmt(cmds[(*ncmds)++], sizeof cmds[0], "%s", args);
        geo_raster_info_clear(&info);
    }
    return TRV_OK;
}

trv_status rpt_sec_inputs(trv_ctx *ctx, doc *d, run *r)
{
    rpt_h(d, 2, "Inputs and provenance");
    if (!d->oom)
        d->oom |= !(d->b[d->n - 1].id = strdup("provenance"));
    rpt_p(d, "Made by `trv-report` (traverse %s) from the files of the run directory `%s`: the terrain model, "
             "terramechanics, fuzzy mobility cost, routes and, when present, the simulation. Sections whose "
             "inputs are missing say so.",
          TRV_VERSION, r->dir);
    char (*path)[PATH_MAX] = calloc(NSOURCES, sizeof *path);
    if (!path)
        return trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
    trv_status st = source_paths(ctx, r, path);
    if (!st)
        source_table(ctx, d, path);
    free(path);
    if (st)
        return st;

    rpt_p(d, "The layers of the run (`TRV_TOOL`, `TRV_ARGS` and `TRV_SEED` are the metadata items every "
             "GeoTIFF of traverse carries):");
    char cmds[16][2048];
    int ncmds = 0;
    if ((st = layer_rows(ctx, d, r, cmds, &ncmds)))
        return st;
    /* the roadmap records its command too (GeoPackage metadata) */
    if (trv_file_exists(P(r, OTHER(RUN_O_ROADMAP)))) {
        char *args = NULL;
        if ((st = geo_vector_meta_read(ctx, r->path, "TRV_ARGS", &args)))
            return st;
        if (args && *args && ncmds < 16)
            trv_sfmt(cmds[ncmds++], sizeof cmds[0], "%s", args);
        free(args);
    }
    if (ncmds) {
        rpt_p(d, "The commands that made them:");
        for (int c = 0; c < ncmds; c++)
            rpt_li(d, "`%s`", cmds[c]);
        rpt_end_list(d);
    }
    return TRV_OK;
}
