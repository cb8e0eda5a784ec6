/* trv-export: a run for other software; --nav2: the ROS 2 nav2 map_server
 * map of the mobility cost and a route's waypoints in its frame; --web3d:
 * the run's terrain for the 3D view (web/view3d.html). Thin: options ->
 * exp_nav2_run or exp_web3d_run -> export.json -> one output set -> exit
 * status. */
#include "core/json.h"
#include "export/export.h"
#include "export/web3d.h"
#include "tool.h"

#include <stdio.h>
#include <stdlib.h>

/* export.json (docs/summaries.md): the map's frame, its cells by kind,
 * the files written, the route's poses. */
static void summary(trv_json *js, const exp_nav2_opts *o, const exp_nav2_info *in, const trv_meta *meta)
{
    trv_json_meta(js, meta);
    trv_json_obj(js, "inputs");
    trv_json_str(js, "terrain", o->terrain);
    trv_json_str(js, "route", o->route);
    trv_json_end(js);
    trv_json_obj(js, "nav2");
    trv_json_str(js, "mode", "raw");
    trv_json_str(js, "crs", in->frame.crs);
    trv_json_int(js, "width", in->frame.nx);
    trv_json_int(js, "height", in->frame.ny);
    trv_json_num(js, "resolution_m", "%.10g", in->frame.resolution);
    trv_json_num(js, "origin_x", "%.10g", in->frame.origin[0]);
    trv_json_num(js, "origin_y", "%.10g", in->frame.origin[1]);
    trv_json_int(js, "graded_cells", in->counts.graded);
    trv_json_int(js, "occupied_cells", in->counts.occupied);
    trv_json_int(js, "unknown_cells", in->counts.unknown);
    trv_json_arr(js, "files");
    for (int k = 0; k < (o->route ? 4 : 3); k++)
        trv_json_str(js, NULL, exp_nav2_file(k));
    trv_json_end(js);
    trv_json_str(js, "route", o->route ? in->route : NULL);
    trv_json_int(js, "waypoints", in->nposes);
    trv_json_end(js);
}

/* export.json of --web3d: the grid, the levels and tiles, the textures. */
static void summary_web3d(trv_json *js, const char *terrain, const exp_w3d_info *in, const trv_meta *meta)
{
    trv_json_meta(js, meta);
    trv_json_obj(js, "inputs");
    trv_json_str(js, "terrain", terrain);
    trv_json_end(js);
    trv_json_obj(js, "web3d");
    trv_json_str(js, "crs", in->crs);
    trv_json_int(js, "nx", in->nx);
    trv_json_int(js, "ny", in->ny);
    trv_json_int(js, "levels", in->levels);
    trv_json_int(js, "tiles", in->tiles);
    trv_json_arr(js, "textures");
    for (int k = 0; k < in->nlayers; k++)
        trv_json_str(js, NULL, in->layers[k]);
    trv_json_end(js);
    trv_json_end(js);
}

/* trv-export --web3d: TERRAIN/web3d, all files or none. */
static int run_web3d(const trv_cli *cli, trv_ctx *ctx, const char *terrain, int quiet, int argc, char **argv)
{
    trv_meta meta;
    trv_meta_init(&meta, cli->tool, argc, argv);
    tool_out out;
    exp_w3d_info info;
    char *dir = trv_path_join(terrain, "web3d");
    trv_status st = tool_out_open(ctx, &out, dir ? trv_path_join(dir, "export.json") : NULL);
    if (!st)
        st = exp_web3d_run(ctx, terrain, out.set, &info);
    if (!st)
        summary_web3d(out.js, terrain, &info, &meta);
    st = tool_out_close(ctx, &out, st);
    if (!st && !quiet)
        printf("web3d: %d x %d cells in %s, %d levels, %d tiles, %d textures; wrote '%s'\n", info.nx, info.ny,
               info.crs, info.levels, info.tiles, info.nlayers, dir);
    free(dir);
    return tool_end(cli, ctx, st);
}

int main(int argc, char **argv)
{
    exp_nav2_opts o = {0};
    int web3d = 0;
    const trv_opt opts[] = {
        {"nav2", 0, TRV_ARG_STRING, &o.dir, "DIR", "write the nav2 map (map.pgm, map.yaml, map.prj) into DIR (created if missing)"},
        {"terrain", 0, TRV_ARG_STRING, &o.terrain, "DIR", "the run directory: its cost.tif and gonogo.tif"},
        {"route", 0, TRV_ARG_STRING, &o.route, "ROUTE.geojson", "also the route's waypoints in the map's frame (DIR/waypoints.yaml)"},
        {"route-name", 0, TRV_ARG_STRING, &o.route_name, "NAME", "the route of ROUTE to take (default: mmcr, else the first)"},
        {"web3d", 0, TRV_ARG_FLAG, &web3d, NULL, "instead of --nav2: the terrain for the 3D view, into TERRAIN/web3d (docs/view3d.md)"},
        {NULL, 0, 0, NULL, NULL, NULL},
    };
    static const char *const required[] = {"terrain", NULL};
    const trv_cli cli = {
        .tool = "trv-export",
        .usage = "--nav2 DIR --terrain DIR [--route ROUTE.geojson [--route-name NAME]] [-q]\n"
                 "       trv-export --web3d --terrain DIR [-q]",
        .summary = "Export a run for a robot's navigation stack. --nav2: the ROS 2 nav2 map_server map of the\n"
                   "mobility cost: map.pgm (8-bit PGM, one pixel per cell, north row first) and map.yaml in\n"
                   "mode raw (pixel = occupancy: round(98 cost) where GO, 100 where NOGO, 255 unknown where the\n"
                   "terrain has no data), origin the map's lower-left corner, in the terrain's metric CRS, which\n"
                   "map.prj holds; with --route the route's vertices as poses (x, y, yaw) in the same frame\n"
                   "(waypoints.yaml), and DIR/export.json, the summary. All files or none. --web3d: the terrain\n"
                   "for the 3D view in the browser (web/view3d.html): TERRAIN/web3d/ holds the DEM as 129 x 129\n"
                   "height tiles by level of detail, the hillshade, speed, cost and GO/NOGO as textures and\n"
                   "index.json (docs/formats.md).",
        .opts = opts,
        .libraries = tool_libraries,
        .required = required,
    };
    trv_cli_result res;
    trv_ctx *ctx = tool_start(&cli, argc, argv, &res);
    if (!web3d == !o.dir)
        tool_usage(&cli, ctx, web3d ? "--web3d and --nav2 are two exports: give one" : "give --nav2 DIR or --web3d");
    if (web3d && o.route)
        tool_usage(&cli, ctx, "--route goes with --nav2");
    if (web3d)
        return run_web3d(&cli, ctx, o.terrain, res.quiet, argc, argv);
    if (o.route_name && !o.route)
        tool_usage(&cli, ctx, "--route-name needs --route");
    const char *names[5] = {exp_nav2_file(0), exp_nav2_file(1), exp_nav2_file(2), exp_nav2_file(3), "export.json"};
    tool_outputs_check_dir(&cli, ctx, o.dir, names, 5, NULL, 0, &o.route, 1);
    trv_meta meta;
    trv_meta_init(&meta, cli.tool, argc, argv);
    tool_out out;
    exp_nav2_info info;
    trv_status st = tool_out_open(ctx, &out, trv_path_join(o.dir, names[4]));
    if (!st)
        st = exp_nav2_run(ctx, &o, out.set, &info);
    if (!st)
        summary(out.js, &o, &info, &meta);
    st = tool_out_close(ctx, &out, st);
    if (!st && !res.quiet) {
        printf("nav2 map %d x %d cells of %.10g m in %s: %ld graded, %ld occupied (NOGO), %ld unknown\n",
               info.frame.nx, info.frame.ny, info.frame.resolution, info.frame.crs, info.counts.graded,
               info.counts.occupied, info.counts.unknown);
        if (o.route)
            printf("route '%s': %d waypoints\n", info.route, info.nposes);
        printf("wrote '%s' (map.yaml, map.pgm, map.prj%s, export.json)\n", o.dir, o.route ? ", waypoints.yaml" : "");
    }
    return tool_end(&cli, ctx, st);
}
