/* The project's 3D map view (qgis.h): QGIS 3.22's `mapViewDocks3D`, one
 * view whose terrain is dem.tif (the DEM terrain generator), draped with
 * the layers the 2D map shows, and the routes and trajectories as 3D lines
 * on the terrain (each layer's `renderer-3d`, a line symbol clamped to the
 * terrain per vertex, 2 m above it). Written only for a run with dem.tif
 * in a projected CRS: QGIS's 3D view needs one. */
#include "project_priv.h"

#include "render/render.h"
#include "run/run.h"

#include <string.h>

/* The raster layer of dem.tif (named after run.h's RUN_DEM), or NULL. */
static const layer *dem_layer(const layers *L)
{
    for (int i = 0; i < L->n; i++)
        if (L->l[i].kind == K_RASTER && !strcmp(L->l[i].name, run_layer_of(RUN_DEM)->name))
            return &L->l[i];
    return NULL;
}

static int is_line_layer(const layer *y)
{
    return (y->kind == K_ROUTES || y->kind == K_TRAJECTORY) && y->geom && !strcmp(y->geom, "Line");
}

void qgis__renderer3d_write(FILE *f, const layer *y)
{
    if (!is_line_layer(y))
        return;
    unsigned char rgb[3];
    rnd_route_rgb(y->kind == K_ROUTES ? "mmcr" : "trajectory", rgb);
    fprintf(f, "      <renderer-3d layer=\"%s\" type=\"vector\">\n"
               "        <vector-layer-3d-tiling show-bounding-boxes=\"0\" zoom-levels-count=\"3\"/>\n"
               "        <symbol material_type=\"simpleline\" type=\"line\">\n"
               "          <data simple-lines=\"1\" height=\"2\" width=\"3\" extrusion-height=\"0\" "
               "alt-binding=\"vertex\" alt-clamping=\"terrain\"/>\n"
               "          <material ambient=\"%d,%d,%d,255\"/>\n        </symbol>\n      </renderer-3d>\n",
            y->id, rgb[0], rgb[1], rgb[2]);
}

/* The layers the view shows: the 2D map's visible ones and the 3D lines. */
static void view_layers(FILE *f, const layers *L, const char *tag)
{
    fprintf(f, "          <%s>\n", tag);
    for (int i = 0; i < L->n; i++)
        if (L->l[i].visible || is_line_layer(&L->l[i]))
            fprintf(f, "            <layer id=\"%s\"/>\n", L->l[i].id);
    fprintf(f, "          </%s>\n", tag);
}

void qgis__view3d_write(FILE *f, const layers *L, const layer *crs_of, const double ext[4],
                        void (*write_srs)(FILE *, const geo_crs_desc *, const char *))
{
    const layer *dem = dem_layer(L);
    if (!dem || crs_of->crs.geographic || dem->crs.geographic)
        return;
    double cx = (dem->ext[0] + dem->ext[2]) / 2, cy = (dem->ext[1] + dem->ext[3]) / 2;
    double w = ext[2] - ext[0] > ext[3] - ext[1] ? ext[2] - ext[0] : ext[3] - ext[1];
    fprintf(f, "  <mapViewDocks3D>\n    <view name=\"3D: terrain, routes and trajectories\" x=\"60\" y=\"60\" "
               "width=\"1000\" height=\"700\" floating=\"1\" area=\"2\">\n      <qgis3d>\n"
               "        <origin x=\"%.15g\" y=\"%.15g\" z=\"0\"/>\n"
               "        <camera field-of-view=\"45\" projection-type=\"1\" camera-navigation-mode=\"basic-navigation\" "
               "camera-movement-speed=\"5\"/>\n"
               "        <color background=\"255,255,255,255\" selection=\"255,255,0,255\"/>\n        <crs>\n",
            cx, cy);
    write_srs(f, &crs_of->crs, "          ");
    fprintf(f, "        </crs>\n        <terrain exaggeration=\"1\" texture-size=\"512\" max-terrain-error=\"3\" "
               "max-ground-error=\"1\" shading-enabled=\"0\" elevation-offset=\"0\" map-theme=\"\" show-labels=\"0\">\n");
    view_layers(f, L, "layers");
    view_layers(f, L, "terrainLayers");
    fprintf(f, "          <generator type=\"dem\" layer=\"%s\" resolution=\"16\" skirt-height=\"10\"/>\n"
               "        </terrain>\n        <point-lights/>\n        <directional-lights>\n"
               "          <directional-light x=\"-0.32\" y=\"-0.91\" z=\"-0.27\" color=\"255,255,255,255\" intensity=\"1\"/>\n"
               "        </directional-lights>\n        <renderers/>\n        <skybox skybox-enabled=\"0\"/>\n"
               "      </qgis3d>\n      <camera x=\"0\" y=\"0\" elev=\"0\" dist=\"%.6g\" pitch=\"45\" yaw=\"0\"/>\n"
               "    </view>\n  </mapViewDocks3D>\n",
            dem->id, 0.8 * w);
}
