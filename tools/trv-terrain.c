/* trv-terrain: fuse a DEM, a soil map and a land-use map onto one grid and
 * compute slope. Thin: options -> ter_build/ter_write -> exit status. */
#include "qgis/qgis.h"
#include "terrain/terrain.h"
#include "tool.h"

#include <stdlib.h>
#include <string.h>

static void report(const ter_layers *t)
{
    const geo_grid *g = &t->dem->grid;
    char crs[64];
    double zmin = 1e300, zmax = -1e300, smean = 0, smax = 0;
    size_t n = (size_t)g->nx * g->ny;
    for (size_t i = 0; i < n; i++) {
        if (geo_raster_is_nodata(t->dem, i))
            continue;
        double z = t->dem->f32[i], s = t->slope->f32[i];
        zmin = z < zmin ? z : zmin;
        zmax = z > zmax ? z : zmax;
        smax = s > smax ? s : smax;
        smean += s;
    }
    printf("grid: %d x %d cells of %g m, %s; %zu cells with data\n", g->nx, g->ny, g->gt[1],
           geo_crs_label(g->wkt, crs, sizeof crs), t->valid);
    printf("elevation: %.1f to %.1f m; slope: mean %.2f, max %.2f degrees\n", zmin, zmax, smean / t->valid, smax);
    const geo_raster *maps[2] = {t->soil, t->landuse};
    const geo_classes *tabs[2] = {t->soil_classes, t->landuse_classes};
    const double cover[2] = {t->soil_cover, t->landuse_cover};
    const char *what[2] = {"soil", "land use"};
    for (int m = 0; m < 2; m++) {
        size_t count[256] = {0};
        for (size_t i = 0; i < n; i++)
            if (!geo_raster_is_nodata(t->dem, i))
                count[maps[m]->u8[i]]++;
        printf("%s: %.1f %% of the cells covered;", what[m], 100 * cover[m]);
        for (int k = 0; k < tabs[m]->n; k++)
            printf(" %s %.1f %%%s", tabs[m]->c[k].name, 100.0 * count[tabs[m]->c[k].code] / t->valid,
                   k + 1 < tabs[m]->n ? "," : "\n");
    }
}

int main(int argc, char **argv)
{
    ter_opts o;
    ter_opts_init(&o);
    const char *out_dir = NULL, *points = NULL, *resampling = "mode";
    const trv_opt opts[] = {
        {"dem", 0, TRV_ARG_STRING, &o.dem_path, "DEM.tif", "elevation, any GDAL raster on a projected grid (metres)"},
        {"soil", 0, TRV_ARG_STRING, &o.soil_path, "SOIL.tif", "soil-type classes, any CRS and cell size"},
        {"landuse", 0, TRV_ARG_STRING, &o.landuse_path, "LANDUSE.tif", "land-use classes, any CRS and cell size"},
        {"output", 'o', TRV_ARG_STRING, &out_dir, "DIR", "output directory (created if missing)"},
        {"soil-classes", 0, TRV_ARG_STRING, &o.soil_classes_path, "CSV",
         "soil class table (default: classes/soils.csv in the data directory)"},
        {"landuse-classes", 0, TRV_ARG_STRING, &o.landuse_classes_path, "CSV",
         "land-use class table (default: classes/landuse.csv in the data directory)"},
        {"resampling", 'r', TRV_ARG_CHOICE, &resampling, "mode|nearest",
         "categorical resampling: majority (default) or nearest"},
        {"points", 0, TRV_ARG_STRING, &points, "FILE.csv", "also write the point cloud x,y,z,slope,soil,landuse"},
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
    int rc = trv_cli_parse(&cli, argc, argv, &res);
    if (rc != TRV_CLI_CONTINUE)
        return rc;
    o.resample = strcmp(resampling, "nearest") == 0 ? GEO_NEAREST : GEO_MODE;

    trv_term_progress_state progress;
    trv_ctx *ctx = trv_tool_ctx(&cli, &res, &progress);
    if (!ctx)
        return 1;
    geo_init();

    char *soil_tab = NULL, *landuse_tab = NULL;
    ter_layers t = {0};
    trv_meta meta;
    trv_meta_init(&meta, cli.tool, argc, argv);
    trv_status st = TRV_OK;
    if (!o.soil_classes_path && !(o.soil_classes_path = soil_tab = trv_data_path(ctx, "classes/soils.csv")))
        st = TRV_ERR_IO;
    if (!st && !o.landuse_classes_path &&
        !(o.landuse_classes_path = landuse_tab = trv_data_path(ctx, "classes/landuse.csv")))
        st = TRV_ERR_IO;
    /* QGIS styles for the continuous layers (the categorical ones carry
     * colour tables): written before the stage commits its layers,
     * committed right after */
    trv_outset *styles = trv_outset_new();
    if (!st && !styles)
        st = trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
    if (!st && !(st = ter_build(ctx, &o, &t)) && !(st = trv_outset_mkdir(ctx, styles, out_dir)) &&
        !(st = qgis_qml_stage(ctx, styles, out_dir, "dem.tif", t.dem)) &&
        !(st = qgis_qml_stage(ctx, styles, out_dir, "slope.tif", t.slope)) &&
        !(st = ter_write(ctx, &t, out_dir, points, &meta)))
        st = trv_outset_commit(ctx, styles);
    trv_outset_free(styles);
    if (!st && !res.quiet)
        report(&t);
    if (st)
        fprintf(stderr, "trv-terrain: %s\n", trv_errmsg(ctx));
    ter_layers_clear(&t);
    free(soil_tab);
    free(landuse_tab);
    trv_ctx_free(ctx);
    return st ? 1 : 0;
}
