/* trv-terrain: fuse a DEM, a soil map and a land-use map onto one grid and
 * compute slope. Thin: options -> ter_stream -> exit status. */
#include "core/json.h"
#include "qgis/qgis.h"
#include "run/run.h"
#include "terrain/terrain.h"
#include "terrain/ept.h"
#include "tool.h"
#ifdef TRV_MPI
#include "mpi_split.h" /* bin/mpi/trv-terrain: ter_stream's blocks over the MPI ranks, rank 0 writes */
#endif

#include <stdlib.h>
#include <string.h>

static void report(const ter_result *t)
{
    const ter_result *f = t;
    const geo_grid *g = &t->grid;
    char crs[64];
    printf("grid: %d x %d cells of %g m, %s; %zu cells with data\n", g->nx, g->ny, g->gt[1],
           geo_crs_label(g->wkt, crs, sizeof crs), t->valid);
    printf("elevation: %.1f to %.1f m; slope: mean %.2f, max %.2f degrees\n", f->zmin, f->zmax, f->smean, f->smax);
    const geo_classes *tabs[2] = {t->soil_classes, t->landuse_classes};
    const double cover[2] = {t->soil_cover, t->landuse_cover};
    const char *what[2] = {"soil", "land use"};
    for (int m = 0; m < 2; m++) {
        printf("%s: %.1f %% of the cells covered;", what[m], 100 * cover[m]);
        for (int k = 0; k < tabs[m]->n; k++)
            printf(" %s %.1f %%%s", tabs[m]->c[k].name, 100.0 * f->count[m][tabs[m]->c[k].code] / t->valid,
                   k + 1 < tabs[m]->n ? "," : "\n");
    }
}

/* terrain.json (docs/summaries.md): the inputs, the grid, the ranges and
 * the class fractions of report(), at full precision. */
static void summary(trv_json *js, const ter_result *t, const ter_opts *o, const trv_meta *meta)
{
    const ter_result *f = t;
    const geo_grid *g = &t->grid;
    trv_json_meta(js, meta);
    trv_json_obj(js, "inputs");
    trv_json_str(js, "dem", o->dem_path);
    trv_json_str(js, "soil", o->soil_path);
    trv_json_str(js, "landuse", o->landuse_path);
    trv_json_str(js, "soil_classes", o->soil_classes_path);
    trv_json_str(js, "landuse_classes", o->landuse_classes_path);
    trv_json_end(js);
    tool_json_grid(js, g);
    trv_json_int(js, "cells_with_data", (long long)t->valid);
    trv_json_end(js);
    trv_json_obj(js, "elevation_m");
    trv_json_num(js, "min", "%.10g", f->zmin);
    trv_json_num(js, "max", "%.10g", f->zmax);
    trv_json_end(js);
    trv_json_obj(js, "slope_deg");
    trv_json_num(js, "mean", "%.10g", f->smean);
    trv_json_num(js, "max", "%.10g", f->smax);
    trv_json_end(js);
    const geo_classes *tabs[2] = {t->soil_classes, t->landuse_classes};
    const double cover[2] = {t->soil_cover, t->landuse_cover};
    const char *what[2] = {"soil", "landuse"};
    for (int m = 0; m < 2; m++) {
        trv_json_obj(js, what[m]);
        trv_json_num(js, "covered", "%.10g", cover[m]);
        trv_json_arr(js, "classes");
        for (int k = 0; k < tabs[m]->n; k++) {
            trv_json_obj(js, NULL);
            trv_json_int(js, "code", tabs[m]->c[k].code);
            trv_json_str(js, "name", tabs[m]->c[k].name);
            trv_json_int(js, "cells", (long long)f->count[m][tabs[m]->c[k].code]);
            trv_json_num(js, "fraction", "%.10g", (double)f->count[m][tabs[m]->c[k].code] / t->valid);
            trv_json_end(js);
        }
        trv_json_end(js);
        trv_json_end(js);
    }
}

/* The layers (streamed), the QGIS styles of the continuous ones (the
 * categorical ones carry colour tables) and DIR/terrain.json in one set:
 * all or none. */
static trv_status run_all(trv_ctx *ctx, ter_result *t, const ter_opts *o, const char *dir, const char *points,
                          const trv_meta *meta)
{
    tool_out out;
    trv_status st = tool_out_open(ctx, &out, trv_path_join(dir, run_other_file(RUN_O_TERRAIN_JSON)));
    if (!st && !(st = ter_stream(ctx, out.set, o, dir, points, meta, t)) &&
        !(st = qgis_qml_stage_range(ctx, out.set, dir, run_file(RUN_DEM), "elevation", "m", t->zmin, t->zmax)) &&
        !(st = qgis_qml_stage_range(ctx, out.set, dir, run_file(RUN_SLOPE), "slope", "degree", t->slope_min,
                                    t->slope_max)))
        summary(out.js, t, o, meta);
    return tool_out_close(ctx, &out, st);
}

/* --ept DIR: a directory of its own, new, empty or an earlier dataset
 * (checked again when the set commits). */
static void check_ept_dir(const trv_cli *cli, trv_ctx *ctx, const char *ept, const char *out_dir)
{
    if (!ept)
        return;
    size_t a = strlen(ept), b = strlen(out_dir);
    while (a > 1 && ept[a - 1] == '/')
        a--;
    while (b > 1 && out_dir[b - 1] == '/')
        b--;
    trv_status st = a == b && strncmp(ept, out_dir, a) == 0
                        ? trv_error(ctx, TRV_ERR_USAGE, "--ept '%s' is the output directory: give the point cloud a "
                                    "directory of its own (e.g. %s/points)", ept, out_dir)
                        : trv_outset_dir_free(ctx, ept, ter_ept_names);
    tool_check_end(cli, ctx, st);
}

int main(int argc, char **argv)
{
    ter_opts o;
    ter_opts_init(&o);
    int rank = 0;
#ifdef TRV_MPI
    trv_split split;
    mpi_split_start(&argc, &argv, &split);
    o.split = &split, rank = split.rank;
#endif
    const char *out_dir = NULL, *points = NULL, *resampling = "mode";
    const trv_opt opts[] = {
        {"dem", 0, TRV_ARG_STRING, &o.dem_path, "DEM.tif", "elevation, any GDAL raster on a projected grid (metres)"},
        {"soil", 0, TRV_ARG_STRING, &o.soil_path, "SOIL.tif", "soil-type classes, any CRS and cell size"},
        {"landuse", 0, TRV_ARG_STRING, &o.landuse_path, "LANDUSE.tif", "land-use classes, any CRS and cell size"},
        {"output", 'o', TRV_ARG_STRING, &out_dir, "DIR", "output directory (created if missing); DIR/terrain.json is the run's summary"},
        {"soil-classes", 0, TRV_ARG_STRING, &o.soil_classes_path, "CSV",
         "soil class table (default: classes/soils.csv in the data directory)"},
        {"landuse-classes", 0, TRV_ARG_STRING, &o.landuse_classes_path, "CSV",
         "land-use class table (default: classes/landuse.csv in the data directory)"},
        {"resampling", 'r', TRV_ARG_CHOICE, &resampling, "mode|nearest",
         "categorical resampling: majority (default) or nearest"},
        {"points", 0, TRV_ARG_STRING, &points, "FILE.csv", "also write the point cloud x,y,z,slope,soil,landuse"},
        {"ept", 0, TRV_ARG_STRING, &o.ept_dir, "DIR",
         "also write the point cloud as an Entwine Point Tile dataset DIR/ept.json (binary; QGIS and PDAL open it "
         "as a point cloud); DIR is new, empty or an earlier one, which is replaced"},
        {NULL, 0, 0, NULL, NULL, NULL},
    };
    static const char *const required[] = {"dem", "soil", "landuse", "output", NULL};
    const trv_cli cli = {
        .tool = "trv-terrain",
        .usage = "--dem DEM.tif --soil SOIL.tif --landuse LANDUSE.tif -o DIR [options]",
        .summary = "Align the soil and land-use maps onto the DEM's grid (majority or nearest, never\n"
                   "interpolated), compute slope in degrees (Horn, as gdaldem), and write DIR/dem.tif,\n"
                   "DIR/slope.tif, DIR/soil.tif and DIR/landuse.tif (styled for QGIS).",
        .opts = opts,
        .libraries = tool_libraries,
        .required = required,
    };
    trv_cli_result res;
    trv_ctx *ctx = tool_start(&cli, argc, argv, &res);
    o.resample = strcmp(resampling, "nearest") == 0 ? GEO_NEAREST : GEO_MODE;
    const char *const names[5] = {run_file(RUN_DEM), run_file(RUN_SLOPE), run_file(RUN_SOIL), run_file(RUN_LANDUSE),
                                  run_other_file(RUN_O_TERRAIN_JSON)};
    const char *const ins[5] = {o.dem_path, o.soil_path, o.landuse_path, o.soil_classes_path,
                                o.landuse_classes_path};
    tool_outputs_check_dir(&cli, ctx, out_dir, names, 5, &points, 1, ins, 5);
    check_ept_dir(&cli, ctx, o.ept_dir, out_dir);

    char *soil_tab = NULL, *landuse_tab = NULL;
    ter_result t = {0};
    trv_meta meta;
    trv_meta_init(&meta, cli.tool, argc, argv);
    trv_status st = TRV_OK;
    if (!o.soil_classes_path && !(o.soil_classes_path = soil_tab = trv_data_path(ctx, "classes/soils.csv")))
        st = TRV_ERR_IO;
    if (!st && !o.landuse_classes_path &&
        !(o.landuse_classes_path = landuse_tab = trv_data_path(ctx, "classes/landuse.csv")))
        st = TRV_ERR_IO;
    if (!st) {
        trv_meta_add(&meta, "TRV_INPUT_DEM", o.dem_path);
        trv_meta_add(&meta, "TRV_INPUT_SOIL", o.soil_path);
        trv_meta_add(&meta, "TRV_INPUT_LANDUSE", o.landuse_path);
        trv_meta_add(&meta, "TRV_INPUT_SOIL_CLASSES", o.soil_classes_path);
        trv_meta_add(&meta, "TRV_INPUT_LANDUSE_CLASSES", o.landuse_classes_path);
        st = rank ? ter_stream(ctx, NULL, &o, out_dir, points, &meta, &t) : run_all(ctx, &t, &o, out_dir, points, &meta);
    }
    if (!st && !res.quiet && rank == 0)
        report(&t);
    ter_result_clear(&t);
    free(soil_tab);
    free(landuse_tab);
#ifdef TRV_MPI
    if (rank) /* rank 0 reports every rank's error */
        trv_ctx_free(ctx);
    return mpi_split_end(rank ? st != TRV_OK : tool_end(&cli, ctx, st));
#endif
    return tool_end(&cli, ctx, st);
}
