/* trv-render: a layer as a PNG map over a hillshade, with vector overlays,
 * legend, colour bar, scale bar and north arrow. Thin: options ->
 * rnd_render -> exit status. */
#include "render/render.h"
#include "tool.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
    rnd_opts o;
    rnd_opts_init(&o);
    const char *overlay = NULL;
    /* NaN until --te is given: the table parser has no "was it seen" */
    o.te[0] = o.te[1] = o.te[2] = o.te[3] = NAN;
    static char summary[2048];
    const trv_opt opts[] = {
        {"output", 'o', TRV_ARG_STRING, &o.output, "MAP.png", "the PNG to write"},
        {"hillshade", 0, TRV_ARG_STRING, &o.hillshade, "DEM.tif", "shade with this DEM (Horn, azimuth 315, altitude 45)"},
        {"palette", 0, TRV_ARG_STRING, &o.palette, "NAME", "palette for a continuous layer (default: by band description)"},
        {"overlay", 0, TRV_ARG_STRING, &overlay, "FILE", "vector overlay (GeoJSON, GPKG, any OGR file); repeatable"},
        {"route", 0, TRV_ARG_STRING, &o.route, "NAME", "draw only the route NAME of the overlays (e.g. mmcr; others and raster optima left out)"},
        {"route-by-file", 0, TRV_ARG_FLAG, &o.route_by_file, NULL, "name each overlay file's lines after the file (without directory and extension) and colour them by that name, one colour per name in file order (a fleet: one per vehicle)"},
        {"legend", 0, TRV_ARG_FLAG, &o.legend, NULL, "add a legend of the categories and the overlays"},
        {"width", 0, TRV_ARG_INT, &o.width, "PX", "image width in pixels (default 1200, 320..10000)"},
        {"title", 0, TRV_ARG_STRING, &o.title, "TEXT", "title (default: the band description)"},
        {"te", 0, TRV_ARG_DOUBLES, o.te, "XMIN YMIN XMAX YMAX",
         "map window in the layer's CRS, as gdalwarp -te (colour bar: the whole layer's range)", 4},
        {"te_srs", 0, TRV_ARG_STRING, &o.te_srs, "CRS", "CRS of the --te numbers, e.g. EPSG:4326"},
        {NULL, 0, 0, NULL, NULL, NULL},
    };
    static const char *const required[] = {"output", NULL};
    snprintf(summary, sizeof summary,
             "Draw a layer as a PNG map: categorical Byte layers with their colour table and category names,\n"
             "continuous layers with a palette and a colour bar (value range and unit), optionally over a\n"
             "hillshade, with vector overlays reprojected to the layer's CRS (routes coloured by strategy,\n"
             "roadmap edges and nodes, obstacles, start/goal points), a scale bar, a north arrow and a\n"
             "title. Text: DejaVu Sans (TRV_FONT overrides). The same inputs give the same bytes.\n"
             "--te shows a window of the layer (as gdalwarp -te), hillshaded with the cells around it so its\n"
             "edges look as in the full map, with the overlays clipped to it and the scale bar for its size;\n"
             "the colour bar keeps the whole layer's range, so zoomed maps use the same colours.\n"
             "Palettes:");
    for (int i = 0; rnd_palette_at(i); i++)
        snprintf(summary + strlen(summary), sizeof summary - strlen(summary), "\n  %-9s %s", rnd_palette_at(i)->name,
                 rnd_palette_at(i)->about);
    const trv_cli cli = {
        .tool = "trv-render",
        .usage = "LAYER.tif -o MAP.png [--hillshade DEM.tif] [--palette NAME] [--overlay FILE ...] [--route NAME] [--legend]\n"
                 "       [--width PX] [--title TEXT] [--te XMIN YMIN XMAX YMAX [--te_srs CRS]] [-q]",
        .summary = summary,
        .opts = opts,
        .libraries = tool_libraries,
        .required = required,
        .min_pos = 1,
        .max_pos = 1,
    };
    /* --overlay repeats, which the option table does not allow: take every
     * occurrence out of argv before the table parser sees it */
    char **args = malloc(sizeof(char *) * (size_t)(argc + 1)), msg[64];
    if (!args)
        return 1;
    int nargs = 0;
    for (int i = 0; i < argc; i++) {
        const char *v = NULL;
        int after_dashes = 0;
        for (int k = 1; k < i; k++)
            after_dashes |= !strcmp(argv[k], "--");
        if (i > 0 && !after_dashes && !strcmp(argv[i], "--overlay") && i + 1 < argc)
            v = argv[++i];
        else if (i > 0 && !after_dashes && !strncmp(argv[i], "--overlay=", 10))
            v = argv[i] + 10;
        if (!v) {
            args[nargs++] = argv[i];
            continue;
        }
        if (o.noverlays == RND_MAX_OVERLAYS) {
            snprintf(msg, sizeof msg, "at most %d overlays", RND_MAX_OVERLAYS);
            free(args);
            tool_usage(&cli, NULL, msg);
        }
        o.overlays[o.noverlays++] = v;
    }
    args[nargs] = NULL;
    trv_cli_result res;
    trv_ctx *ctx = tool_start(&cli, nargs, args, &res);
    (void)overlay;
    o.has_te = !isnan(o.te[0]);
    if (o.te_srs && !o.has_te) {
        free(args);
        tool_usage(&cli, ctx, "--te_srs needs --te");
    }
    o.layer = res.pos[0];
    const char *ins[2 + RND_MAX_OVERLAYS] = {o.layer, o.hillshade};
    for (int i = 0; i < o.noverlays; i++)
        ins[2 + i] = o.overlays[i];
    trv_status chk = trv_outputs_check(ctx, &o.output, 1, ins, 2 + (size_t)o.noverlays);
    if (!chk)
        chk = trv_output_folders_check(ctx, &o.output, 1);
    if (chk) {
        free(args);
        tool_check_end(&cli, ctx, chk);
    }
    trv_status st = rnd_render(ctx, &o);
    free(args);
    /* rnd_render's usage errors are all about the options (width, palette, window, -o's format): exit 2 */
    tool_usage_check(&cli, ctx, st);
    return tool_end(&cli, ctx, st);
}
