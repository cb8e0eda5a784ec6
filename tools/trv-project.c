/* trv-project: the QGIS project of a run directory. Thin: options ->
 * qgis_project_write -> exit status. */
#include "geo/geo.h"
#include "qgis/qgis.h"
#include "tool.h"

#include <stdio.h>

int main(int argc, char **argv)
{
    const char *out = NULL, *title = NULL;
    const trv_opt opts[] = {
        {"output", 'o', TRV_ARG_STRING, &out, "FILE.qgs", "the project to write (data sources relative to it)"},
        {"title", 0, TRV_ARG_STRING, &title, "T", "project title (default: the directory's name)"},
        {NULL, 0, 0, NULL, NULL, NULL},
    };
    static const char *const required[] = {"output", NULL};
    const trv_cli cli = {
        .tool = "trv-project",
        .usage = "DIR -o DIR/project.qgs [--title T] [-q]",
        .summary =
            "QGIS 3 project (.qgs, QGIS 3.22 and later) of every layer a run left in DIR, top to bottom:\n"
            "route.geojson (routes), the simulator's sim*/trajectory_*.geojson, obstacles*.geojson (in DIR\n"
            "or sim*/), roadmap.gpkg (nodes, edges), class, cost, gonogo, limit, speed, slope, landuse, soil,\n"
            "dem_std, dem and its hillshade (the .tif files); absent files are skipped. Data sources are\n"
            "relative to the project, so the directory can be moved; the project CRS is the rasters'.\n"
            "Styles: a continuous raster takes the renderer of the .qml beside it (slope.qml), else a colour\n"
            "ramp over its minimum and maximum; Byte rasters with a colour table a paletted legend from it\n"
            "and their category names; vectors the renderer of their .qml (route.qml), else of the\n"
            "GeoPackage's layer_styles, else routes coloured by strategy and trajectories by feature.\n"
            "Visible: routes, trajectories, obstacles, class, dem and hillshade. The same DIR gives the same\n"
            "bytes.",
        .opts = opts,
        .libraries = tool_libraries,
        .required = required,
        .min_pos = 1,
        .max_pos = 1,
    };
    trv_cli_result res;
    trv_ctx *ctx = tool_start(&cli, argc, argv, &res);
    qgis_project_opts o = {.dir = res.pos[0], .out_path = out, .title = title};
    tool_outputs_run_dir(&cli, ctx, &out, 1, o.dir, 1, NULL, 0);
    qgis_project_info info;
    trv_status st = qgis_project_write(ctx, &o, &info);
    if (!st && !res.quiet) {
        printf("project CRS %s, extent %.3f %.3f %.3f %.3f\n", info.crs, info.extent[0], info.extent[1],
               info.extent[2], info.extent[3]);
        for (int i = 0; i < info.nlayers; i++)
            printf("  %-3s %-22s %-40s %s (%s)\n", info.layer[i].visible ? "on" : "off", info.layer[i].name,
                   info.layer[i].source, info.layer[i].renderer, info.layer[i].style);
        printf("wrote '%s' (%d layers)\n", out, info.nlayers);
    }
    qgis_project_info_clear(&info);
    return tool_end(&cli, ctx, st);
}
