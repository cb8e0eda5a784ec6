/* The layers of a QGIS project of a run directory (project.c writes the
 * XML): which files of the directory are layers and in which order, each
 * opened for its CRS, extent and geometry, and its renderer, from its .qml
 * sidecar or GeoPackage layer_styles when there is one, else a default
 * one (pseudocolour, paletted, hillshade, vector). */
#define _POSIX_C_SOURCE 200809L
#include "project_priv.h"
#include "run/run.h"

#include <errno.h>
#include <json-c/json.h>
#include <stdarg.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* ---- layers -------------------------------------------------------------- */

static layer *layer_add(layers *L, kind k, const char *name, const char *path)
{
    if (L->n == L->cap) {
        int cap = L->cap ? 2 * L->cap : 32;
        layer *l = realloc(L->l, (size_t)cap * sizeof *l);
        if (!l)
            return NULL;
        L->l = l;
        L->cap = cap;
    }
    layer *y = &L->l[L->n++];
    memset(y, 0, sizeof *y);
    y->kind = k;
    y->opacity = 1.0;
    trv_sfmt(y->name, sizeof y->name, "%s", name);
    trv_sfmt(y->path, sizeof y->path, "%s", path);
    return y;
}

void qgis__layers_clear(layers *L)
{
    for (int i = 0; i < L->n; i++) {
        geo_crs_desc_clear(&L->l[i].crs);
        free(L->l[i].wkt);
        free(L->l[i].renderer_xml);
    }
    free(L->l);
    memset(L, 0, sizeof *L);
}

/* ---- styles ---------------------------------------------------------------- */

/* The first <tag ...>...</tag> (or <tag .../>) element of xml, nesting
 * counted, as a malloc'ed string; NULL if there is none. */
static char *xml_element(const char *xml, const char *tag)
{
    size_t tl = strlen(tag);
    const char *start = NULL;
    for (const char *p = strchr(xml, '<'); p; p = strchr(p + 1, '<'))
        if (!strncmp(p + 1, tag, tl) && strchr(" \t\r\n/>", p[1 + tl])) {
            start = p;
            break;
        }
    if (!start)
        return NULL;
    int depth = 0;
    for (const char *p = start; p; p = strchr(p + 1, '<')) {
        const char *gt = strchr(p, '>');
        if (!gt)
            return NULL;
        if (p[1] == '/' && !strncmp(p + 2, tag, tl) && strchr(" \t\r\n>", p[2 + tl])) {
            if (--depth == 0)
                return strndup(start, (size_t)(gt + 1 - start));
        } else if (!strncmp(p + 1, tag, tl) && strchr(" \t\r\n/>", p[1 + tl])) {
            if (gt[-1] != '/')
                depth++;
            else if (depth == 0)
                return strndup(start, (size_t)(gt + 1 - start));
        }
        p = gt - 1 > p ? gt - 1 : p;
    }
    return NULL;
}

/* The renderer of a .qml sidecar, if there is a usable one. */
static char *qml_renderer(const char *qml, const char *tag, char *type, size_t n)
{
    if (!trv_file_exists(qml))
        return NULL;
    char *text = trv_file_slurp(qml, NULL);
    char *el = text ? xml_element(text, tag) : NULL;
    free(text);
    if (!el)
        return NULL;
    const char *t = strstr(el, " type=\"");
    if (!t || t > strchr(el, '>')) {
        free(el);
        return NULL;
    }
    sscanf(t + 7, "%31[^\"]", type);
    (void)n;
    return el;
}

static const char MINMAX[] =
    "      <minMaxOrigin>\n        <limits>None</limits>\n        <extent>WholeRaster</extent>\n"
    "        <statAccuracy>Exact</statAccuracy>\n        <cumulativeCutLower>0.02</cumulativeCutLower>\n"
    "        <cumulativeCutUpper>0.98</cumulativeCutUpper>\n        <stdDevFactor>2</stdDevFactor>\n"
    "      </minMaxOrigin>\n";

/* The element `name` of the style a continuous layer's sidecar would hold
 * (palette and range as trv-render and the tools' sidecars choose them,
 * the range in lo, hi); NULL when out of memory. */
static char *style_element(const char *desc, const char *unit, double dmin, double dmax, const char *name, double *lo,
                           double *hi)
{
    rnd_layer_range(desc, unit, dmin, dmax, lo, hi);
    char *inner = qgis_qml_raster_xml(rnd_palette_auto(desc, unit), *lo, *hi, unit, desc);
    char *el = inner ? xml_element(inner, name) : NULL;
    free(inner);
    return el;
}

/* The renderer a continuous raster without a .qml gets: its sidecar's. */
static char *pseudocolor_xml(const char *desc, const char *unit, double dmin, double dmax)
{
    double lo, hi;
    return style_element(desc, unit, dmin, dmax, "rasterrenderer", &lo, &hi);
}

/* Paletted renderer: one entry per code that has a category name or occurs
 * in the data (category names live in the .aux.xml beside a GeoTIFF, which
 * a copy may have lost; the colour table is in the file itself); present
 * flags the codes the cells hold. NULL when out of memory. */
static char *paletted_xml(const geo_raster_info *info, const unsigned char present[256])
{
    const int has_nodata = info->has_nodata;
    const double nodata = info->nodata;
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f)
        return NULL;
    fprintf(f, "<rasterrenderer type=\"paletted\" band=\"1\" opacity=\"1\" alphaBand=\"-1\" nodataColor=\"\">\n"
               "      <rasterTransparency/>\n%s      <colorPalette>\n",
            MINMAX);
    for (int v = 0; v < info->ncolours && v < 256; v++) {
        const char *label = v < info->ncategories ? info->categories[v] : "";
        if ((!*label && !present[v]) || (has_nodata && v == (int)nodata))
            continue;
        char code[8];
        if (!*label) {
            trv_sfmt(code, sizeof code, "%d", v);
            label = code;
        }
        const unsigned char *e = info->rgba[v];
        fprintf(f, "        <paletteEntry value=\"%d\" color=\"#%02x%02x%02x\" alpha=\"%d\" label=\"", v, e[0], e[1],
                e[2], e[3]);
        trv_xml_escape(f, label);
        fprintf(f, "\"/>\n");
    }
    fprintf(f, "      </colorPalette>\n    </rasterrenderer>");
    fclose(f);
    return buf;
}

static char *hillshade_xml(void)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f)
        return NULL;
    fprintf(f,
            "<rasterrenderer type=\"hillshade\" band=\"1\" opacity=\"1\" alphaBand=\"-1\" nodataColor=\"\" "
            "zfactor=\"1\" azimuth=\"315\" angle=\"45\" multidirection=\"0\">\n      <rasterTransparency/>\n%s"
            "    </rasterrenderer>",
            MINMAX);
    fclose(f);
    return buf;
}

/* The renderer a vector layer without a .qml or a stored style gets: the
 * one trv-route, trv-roadmap and trv-sim write beside their layers (the
 * PNG maps' colours), taken out of the style document; *type receives the
 * renderer's type. */
static char *vector_default_xml(int has_radius_field, const layer *y, char *type)
{
    char *inner = NULL;
    switch (y->kind) {
    case K_ROUTES: inner = qgis_qml_route_xml("route"); break;
    case K_TRAJECTORY: inner = qgis_qml_trajectory_xml(); break;
    case K_NODES: inner = qgis_qml_roadmap_nodes_xml(); break;
    case K_EDGES: inner = qgis_qml_roadmap_edges_xml(); break;
    default: {
        int radius = has_radius_field && !strcmp(y->geom, "Point");
        inner = qgis_qml_obstacles_xml(radius ? "radius_m" : NULL);
    }
    }
    char *el = inner ? xml_element(inner, "renderer-v2") : NULL;
    free(inner);
    const char *t = el ? strstr(el, " type=\"") : NULL;
    if (t)
        sscanf(t + 7, "%31[^\"]", type);
    return el;
}

/* The default style a GeoPackage keeps for a layer in its layer_styles
 * table (as QGIS and trv-render store it), if any. */
static char *gpkg_renderer(const char *path, const char *layer_name, char *type)
{
    char *qml = geo_gpkg_style_read(path, layer_name);
    char *el = qml ? xml_element(qml, "renderer-v2") : NULL;
    free(qml);
    const char *t = el ? strstr(el, " type=\"") : NULL;
    if (t && t < strchr(el, '>'))
        sscanf(t + 7, "%31[^\"]", type);
    else {
        free(el);
        el = NULL;
    }
    return el;
}

/* ---- reading the layers ---------------------------------------------------- */

/* The layer's CRS: its WKT (for transformations) and its description (for
 * <spatialrefsys>), taken over from the reader's (*crs is left empty). */
static trv_status set_crs(trv_ctx *ctx, layer *y, const char *wkt, geo_crs_desc *crs)
{
    if (!(y->wkt = strdup(wkt)))
        return trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
    y->crs = *crs;
    memset(crs, 0, sizeof *crs);
    return TRV_OK;
}

/* The renderer of a raster: hillshade, the colour table of a categorical
 * layer, its .qml sidecar, else the pseudocolour ramp of its range. */
static trv_status raster_renderer(trv_ctx *ctx, layer *y, const geo_raster_info *info)
{
    trv_status st = TRV_OK;
    if (y->kind == K_HILLSHADE) {
        y->renderer_xml = hillshade_xml();
        strcpy(y->renderer, "hillshade");
        strcpy(y->style, "default");
    } else if (y->categorical) {
        unsigned char present[256];
        if (!(st = geo_raster_codes(ctx, y->path, present)))
            y->renderer_xml = paletted_xml(info, present);
        strcpy(y->renderer, "paletted");
        strcpy(y->style, "colour table");
    } else if ((y->renderer_xml = qml_renderer(y->qml, "rasterrenderer", y->renderer, sizeof y->renderer))) {
        strcpy(y->style, "qml");
    } else {
        double mm[2];
        int any;
        if (!(st = geo_raster_minmax(ctx, y->path, mm, &any)) && !any)
            mm[0] = 0, mm[1] = 1; /* nodata only: any ramp will do */
        if (!st)
            y->renderer_xml = pseudocolor_xml(info->desc, info->unit, mm[0], mm[1]);
        strcpy(y->renderer, "singlebandpseudocolor");
        strcpy(y->style, "default");
    }
    if (!st && !y->renderer_xml)
        st = trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
    return st;
}

/* A point cloud's renderer: its elevation (Z) on the ramp dem.tif's default
 * style has, over the same range (EPT's boundsConforming). */
static char *pointcloud_xml(double zmin, double zmax)
{
    double lo, hi;
    char *ramp = style_element("elevation", "m", zmin, zmax, "colorrampshader", &lo, &hi);
    size_t n = ramp ? strlen(ramp) + 320 : 0;
    char *xml = ramp ? malloc(n) : NULL;
    if (xml)
        snprintf(xml, n, "<renderer type=\"ramp\" attribute=\"Z\" min=\"%.17g\" max=\"%.17g\" pointSize=\"1\" "
                 "pointSizeUnit=\"MM\" pointSymbol=\"0\" maximumScreenError=\"0.3\" maximumScreenErrorUnit=\"MM\" "
                 "drawOrder2d=\"0\">%s</renderer>", lo, hi, ramp);
    free(ramp);
    return xml;
}

/* An EPT dataset (trv-terrain --ept): its CRS and extent from ept.json. */
static trv_status open_pointcloud(trv_ctx *ctx, layer *y)
{
    json_object *j = json_object_from_file(y->path), *b = NULL, *srs = NULL, *wkt = NULL;
    int ok = j && json_object_object_get_ex(j, "boundsConforming", &b) && json_object_is_type(b, json_type_array) &&
             json_object_array_length(b) == 6 && json_object_object_get_ex(j, "srs", &srs) &&
             json_object_object_get_ex(srs, "wkt", &wkt) && json_object_is_type(wkt, json_type_string);
    trv_status st = ok ? TRV_OK : trv_error(ctx, TRV_ERR_FORMAT, "cannot read the point cloud '%s' (EPT's ept.json)", y->path);
    geo_crs_desc crs = {0};
    if (!st && !(st = geo_crs_describe(ctx, json_object_get_string(wkt), &crs)))
        st = set_crs(ctx, y, json_object_get_string(wkt), &crs);
    if (!st) {
        double v[6];
        for (int k = 0; k < 6; k++)
            v[k] = json_object_get_double(json_object_array_get_idx(b, (size_t)k));
        y->ext[0] = v[0], y->ext[1] = v[1], y->ext[2] = v[3], y->ext[3] = v[4];
        if (!(y->renderer_xml = pointcloud_xml(v[2], v[5])))
            st = trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
        strcpy(y->renderer, "ramp");
        strcpy(y->style, "default");
    }
    geo_crs_desc_clear(&crs);
    json_object_put(j);
    return st;
}

static trv_status open_raster(trv_ctx *ctx, layer *y)
{
    geo_raster_info info;
    trv_status st = geo_raster_info_read(ctx, y->path, &info);
    if (st)
        return st;
    const double *gt = info.grid.gt;
    if (info.nbands < 1 || !info.has_gt)
        st = trv_error(ctx, TRV_ERR_FORMAT, "cannot open '%s': no band or no geotransform", y->path);
    else if (!info.grid.wkt)
        st = trv_error(ctx, TRV_ERR_CRS, "'%s' has no CRS", y->path);
    else
        st = set_crs(ctx, y, info.grid.wkt, &info.crs);
    if (!st) {
        int nx = info.grid.nx, ny = info.grid.ny;
        double xs[2] = {gt[0], gt[0] + nx * gt[1] + ny * gt[2]}, ys[2] = {gt[3], gt[3] + nx * gt[4] + ny * gt[5]};
        y->ext[0] = fmin(xs[0], xs[1]);
        y->ext[2] = fmax(xs[0], xs[1]);
        y->ext[1] = fmin(ys[0], ys[1]);
        y->ext[3] = fmax(ys[0], ys[1]);
        y->categorical = info.type == GEO_BAND_BYTE && info.ncolours > 0;
        st = raster_renderer(ctx, y, &info);
    }
    geo_raster_info_clear(&info);
    return st;
}

static void set_geom(layer *y, const geo_vlayer *l)
{
    switch (l->geom) {
    case GEO_POINT: y->geom = "Point"; y->wkb = l->multi ? "MultiPoint" : "Point"; break;
    case GEO_LINE: y->geom = "Line"; y->wkb = l->multi ? "MultiLineString" : "LineString"; break;
    case GEO_POLYGON: y->geom = "Polygon"; y->wkb = l->multi ? "MultiPolygon" : "Polygon"; break;
    default: y->geom = "Line"; y->wkb = "Unknown"; break;
    }
}

static trv_status open_vector(trv_ctx *ctx, layer *y)
{
    geo_vfile *v;
    trv_status st = geo_vector_read(ctx, y->path, *y->ogr_layer ? y->ogr_layer : NULL, NULL, GEO_VREAD_INFO, &v);
    if (st)
        return st;
    const geo_vlayer *l = v->nlayers > 0 ? &v->layers[0] : NULL;
    if (!l)
        st = trv_error(ctx, TRV_ERR_FORMAT, "cannot open '%s': no layer '%s'", y->path, "0");
    else if (!l->wkt)
        st = trv_error(ctx, TRV_ERR_CRS, "'%s' has no CRS", y->path);
    else
        st = set_crs(ctx, y, l->wkt, &v->layers[0].crs);
    if (!st) {
        if (l->has_extent)
            memcpy(y->ext, l->extent, sizeof y->ext);
        else
            y->ext[0] = y->ext[1] = y->ext[2] = y->ext[3] = 0; /* empty layer */
        set_geom(y, l);
        if ((y->renderer_xml = qml_renderer(y->qml, "renderer-v2", y->renderer, sizeof y->renderer)))
            strcpy(y->style, "qml");
        else if (*y->ogr_layer && (y->renderer_xml = gpkg_renderer(y->path, y->ogr_layer, y->renderer)))
            strcpy(y->style, "gpkg");
        else if ((y->renderer_xml = vector_default_xml(geo_vlayer_field(l, "radius_m") >= 0, y, y->renderer)))
            strcpy(y->style, "default");
        else
            st = trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
    }
    geo_vfile_free(v);
    return st;
}

/* The names in directory dir that pass keep(), sorted (a NULL-terminated
 * array the caller frees with geo_names_free; NULL when there are none). */
static char **dir_names(const char *dir, int (*keep)(const char *dir, const char *name))
{
    char **all = geo_dir_names(dir);
    int n = 0;
    for (int i = 0; all && all[i]; i++) {
        if (keep(dir, all[i]))
            all[n++] = all[i];
        else
            free(all[i]);
    }
    if (all)
        all[n] = NULL;
    if (all && n == 0) {
        free(all);
        all = NULL;
    }
    return all;
}

static int ends_with(const char *s, const char *end)
{
    size_t n = strlen(s), m = strlen(end);
    return n >= m && !strcmp(s + n - m, end);
}

static int is_sim_dir(const char *dir, const char *name)
{
    char path[PATH_MAX];
    struct stat sb;
    trv_sfmt(path, sizeof path, "%s/%s", dir, name);
    return !strncmp(name, "sim", 3) && stat(path, &sb) == 0 && S_ISDIR(sb.st_mode);
}

static int is_trajectory(const char *dir, const char *name)
{
    (void)dir;
    return !strncmp(name, "trajectory_", 11) && ends_with(name, ".geojson");
}

static int is_obstacles(const char *dir, const char *name)
{
    (void)dir;
    return !strncmp(name, "obstacles", 9) && ends_with(name, ".geojson");
}

/* What the simulator leaves in DIR/sim* (one directory per run, sorted):
 * trajectory_<vehicle>.geojson, and obstacles*.geojson when a run keeps its
 * obstacles beside them (also looked for in DIR itself). Trajectories come
 * first, then every obstacle layer. */
static trv_status add_sim_layers(trv_ctx *ctx, layers *L, const char *dir)
{
    char **sims = dir_names(dir, is_sim_dir);
    trv_status st = TRV_OK;
    for (int pass = 0; pass < 2 && !st; pass++) {
        kind k = pass ? K_OBSTACLES : K_TRAJECTORY;
        int (*keep)(const char *, const char *) = pass ? is_obstacles : is_trajectory;
        int nsims = 0;
        while (sims && sims[nsims])
            nsims++;
        for (int s = -1; s < nsims && !st; s++) {
            if (s < 0 && !pass)
                continue; /* trajectories only in the sim* directories */
            char sub[PATH_MAX];
            if (s < 0)
                trv_sfmt(sub, sizeof sub, "%s", dir);
            else
                trv_sfmt(sub, sizeof sub, "%s/%s", dir, sims[s]);
            char **names = dir_names(sub, keep);
            for (int i = 0; names && names[i] && !st; i++) {
                char path[PATH_MAX], name[64], rel[PATH_MAX];
                trv_sfmt(path, sizeof path, "%s/%s", sub, names[i]);
                if (!trv_file_exists(path))
                    continue;
                trv_sfmt(name, sizeof name, "%s%s%.*s", s < 0 ? "" : sims[s], s < 0 ? "" : "/",
                     (int)(strlen(names[i]) - 8), names[i]);
                trv_sfmt(rel, sizeof rel, "%s%s%s", s < 0 ? "" : sims[s], s < 0 ? "" : "/", names[i]);
                layer *y = layer_add(L, k, name, path);
                if (!y) {
                    st = trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
                    break;
                }
                trv_sfmt(y->source, sizeof y->source, "%s", rel);
                trv_sfmt(y->qml, sizeof y->qml, "%.*s.qml", (int)(strlen(path) - 8), path);
                y->visible = 1;
            }
            geo_names_free(names);
        }
    }
    geo_names_free(sims);
    return st;
}

static trv_status collect(trv_ctx *ctx, layers *L, const char *dir)
{
    char path[PATH_MAX];
    trv_status st = TRV_OK;
#define ADD(k, name, rel, vis)                                                                                         \
    do {                                                                                                               \
        trv_sfmt(path, sizeof path, "%s/%s", dir, rel);                                                                \
        if (trv_file_exists(path)) {                                                                                        \
            y = layer_add(L, k, name, path);                                                                           \
            if (!y)                                                                                                    \
                return trv_error(ctx, TRV_ERR_NOMEM, "out of memory");                                                 \
            trv_sfmt(y->source, sizeof y->source, "%s", rel);                                                          \
            y->visible = vis;                                                                                          \
        }                                                                                                              \
    } while (0)
    layer *y = NULL;
    ADD(K_ROUTES, "routes", run_other_file(RUN_O_ROUTE_GEOJSON), 1);
    if (y && y->kind == K_ROUTES)
        trv_sfmt(y->qml, sizeof y->qml, "%s/route.qml", dir);
    if ((st = add_sim_layers(ctx, L, dir)))
        return st;
    static const char *const GPKG_LAYERS[2] = {"nodes", "edges"};
    for (int k = 0; k < 2; k++) {
        y = NULL;
        char name[32];
        trv_sfmt(name, sizeof name, "roadmap %s", GPKG_LAYERS[k]);
        ADD(k ? K_EDGES : K_NODES, name, run_other_file(RUN_O_ROADMAP), 0);
        if (y) {
            trv_sfmt(y->ogr_layer, sizeof y->ogr_layer, "%s", GPKG_LAYERS[k]);
            trv_sfmt(y->qml, sizeof y->qml, "%s/roadmap_%s.qml", dir, GPKG_LAYERS[k]);
            if (!trv_file_exists(y->qml))
                trv_sfmt(y->qml, sizeof y->qml, "%s/%s.qml", dir, GPKG_LAYERS[k]);
        }
    }
    /* the point cloud (trv-terrain --ept), off: the rasters say the same at a glance */
    y = NULL;
    char ept[64];
    trv_sfmt(ept, sizeof ept, "%s/ept.json", run_other_file(RUN_O_POINT_CLOUD));
    ADD(K_POINTCLOUD, "points", ept, 0);
    /* the rasters of the run directory (run.h), top of the layer list first */
    static const run_id RASTERS[] = {RUN_CLASS, RUN_COST, RUN_GONOGO, RUN_LIMIT, RUN_SPEED, RUN_SLOPE,
                                     RUN_LANDUSE, RUN_SOIL, RUN_DEM_STD, RUN_DEM};
    for (size_t k = 0; k < sizeof RASTERS / sizeof RASTERS[0]; k++) {
        const run_layer *rl = run_layer_of(RASTERS[k]);
        y = NULL;
        ADD(K_RASTER, rl->name, rl->file, RASTERS[k] == RUN_CLASS || RASTERS[k] == RUN_DEM);
        if (y) {
            trv_sfmt(y->qml, sizeof y->qml, "%s/%s.qml", dir, rl->name);
            if (RASTERS[k] == RUN_CLASS)
                y->opacity = 0.6; /* the hillshade shows through */
            if (RASTERS[k] == RUN_DEM)
                y->opacity = 0.5;
        }
    }
    y = NULL;
    ADD(K_HILLSHADE, "hillshade", run_file(RUN_DEM), 1);
#undef ADD
    return TRV_OK;
}


/* The raster renderer keeps its own opacity attribute; set it to y->opacity
 * in the XML (QGIS reads a raster layer's opacity from its renderer). */
static trv_status set_raster_opacity(trv_ctx *ctx, layer *y)
{
    if (y->opacity == 1.0 || !y->renderer_xml)
        return TRV_OK;
    char *p = strstr(y->renderer_xml, "opacity=\"");
    char *gt = strchr(y->renderer_xml, '>');
    if (!p || p > gt)
        return TRV_OK;
    char *q = strchr(p + 9, '"');
    if (!q)
        return TRV_OK;
    char val[32];
    trv_sfmt(val, sizeof val, "%g", y->opacity);
    size_t head = (size_t)(p + 9 - y->renderer_xml), tail = strlen(q);
    char *s = malloc(head + strlen(val) + tail + 1);
    if (!s)
        return trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
    memcpy(s, y->renderer_xml, head);
    strcpy(s + head, val);
    strcat(s + head, q);
    free(y->renderer_xml);
    y->renderer_xml = s;
    return TRV_OK;
}

trv_status qgis__layers_read(trv_ctx *ctx, layers *L, const char *dir)
{
    trv_status st = collect(ctx, L, dir);
    if (!st && L->n == 0)
        st = trv_error(ctx, TRV_ERR_IO, "no layers in '%s' (route.geojson, roadmap.gpkg, class.tif ... dem.tif)",
                       dir);
    for (int i = 0; i < L->n && !st; i++) {
        layer *y = &L->l[i];
        /* ids: "trv_" and the name with non-identifier characters as '_'
         * (QGIS replaces ids of 10 characters or fewer by new UUIDs) */
        trv_sfmt(y->id, sizeof y->id, "trv_layer_%s", y->name);
        for (char *p = y->id; *p; p++)
            if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9')))
                *p = '_';
        st = y->kind == K_RASTER || y->kind == K_HILLSHADE ? open_raster(ctx, y)
             : y->kind == K_POINTCLOUD                   ? open_pointcloud(ctx, y)
                                                         : open_vector(ctx, y);
        if (!st && (y->kind == K_RASTER || y->kind == K_HILLSHADE))
            st = set_raster_opacity(ctx, y);
        if (!st)
            st = trv_progress(ctx, (i + 1.0) / (L->n + 1.0), "layers");
    }
    return st;
}
