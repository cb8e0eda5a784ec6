/* QGIS 3 styles (.qml) with the PNG's palettes and route colours; the
 * GeoPackage layer_styles table. The documents follow what QGIS 3.22
 * writes, trimmed to what it reads back (3.22 to 3.34): symbol layer
 * properties both as <Option type="Map"> and as the older <prop k v>. */
#include "qgis/qgis.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- a small string builder over open_memstream ------------------------ */

typedef struct sb {
    FILE *f;
    char *buf;
    size_t len;
} sb;

static int sb_open(sb *b)
{
    b->buf = NULL, b->len = 0;
    b->f = open_memstream(&b->buf, &b->len);
    return b->f ? 0 : -1;
}

static char *sb_close(sb *b)
{
    if (fclose(b->f) != 0) {
        free(b->buf);
        return NULL;
    }
    return b->buf;
}

char *qgis_qml_document(const char *inner)
{
    sb b;
    if (!inner || sb_open(&b))
        return NULL;
    fputs("<!DOCTYPE qgis PUBLIC 'http://mrcc.com/qgis.dtd' 'SYSTEM'>\n"
          "<qgis version=\"3.22.0\" styleCategories=\"AllStyleCategories\" hasScaleBasedVisibilityFlag=\"0\" "
          "minScale=\"1e+08\" maxScale=\"0\">\n",
          b.f);
    fputs(inner, b.f);
    fputs("</qgis>\n", b.f);
    return sb_close(&b);
}

/* ---- raster ------------------------------------------------------------- */

static int label_decimals(double range)
{
    int d = range > 0 ? (int)ceil(2 - log10(range)) : 2;
    return d < 0 ? 0 : d > 6 ? 6 : d;
}

char *qgis_qml_raster_xml(const rnd_palette *p, double min, double max, const char *unit, const char *desc)
{
    sb b;
    if (!p || sb_open(&b))
        return NULL;
    FILE *f = b.f;
    const int dec = label_decimals(max - min);
    const rnd_stop *s = p->stops;
    const int n = p->nstops;
    fputs("  <pipe>\n"
          "    <provider>\n"
          "      <resampling enabled=\"false\" maxOversampling=\"2\" zoomedInResamplingMethod=\"nearestNeighbour\" "
          "zoomedOutResamplingMethod=\"nearestNeighbour\"/>\n"
          "    </provider>\n",
          f);
    fprintf(f,
            "    <rasterrenderer type=\"singlebandpseudocolor\" band=\"1\" opacity=\"1\" alphaBand=\"-1\" "
            "nodataColor=\"\" classificationMin=\"%.10g\" classificationMax=\"%.10g\">\n",
            min, max);
    fputs("      <rasterTransparency/>\n"
          "      <minMaxOrigin>\n"
          "        <limits>None</limits>\n"
          "        <extent>WholeRaster</extent>\n"
          "        <statAccuracy>Estimated</statAccuracy>\n"
          "        <cumulativeCutLower>0.02</cumulativeCutLower>\n"
          "        <cumulativeCutUpper>0.98</cumulativeCutUpper>\n"
          "        <stdDevFactor>2</stdDevFactor>\n"
          "      </minMaxOrigin>\n"
          "      <rastershader>\n",
          f);
    fprintf(f,
            "        <colorrampshader colorRampType=\"INTERPOLATED\" classificationMode=\"1\" clip=\"0\" "
            "minimumValue=\"%.10g\" maximumValue=\"%.10g\" labelPrecision=\"%d\">\n",
            min, max, dec);
    /* the palette as a QGIS gradient ramp: color1, color2 and inner stops */
    char stops[1024] = "";
    for (int k = 1; k < n - 1; k++)
        snprintf(stops + strlen(stops), sizeof stops - strlen(stops), "%s%.6g;%d,%d,%d,255", k > 1 ? ":" : "",
                 s[k].pos, s[k].rgb[0], s[k].rgb[1], s[k].rgb[2]);
    char c1[32], c2[32];
    snprintf(c1, sizeof c1, "%d,%d,%d,255", s[0].rgb[0], s[0].rgb[1], s[0].rgb[2]);
    snprintf(c2, sizeof c2, "%d,%d,%d,255", s[n - 1].rgb[0], s[n - 1].rgb[1], s[n - 1].rgb[2]);
    fprintf(f,
            "          <colorramp type=\"gradient\" name=\"[source]\">\n"
            "            <Option type=\"Map\">\n"
            "              <Option type=\"QString\" name=\"color1\" value=\"%s\"/>\n"
            "              <Option type=\"QString\" name=\"color2\" value=\"%s\"/>\n"
            "              <Option type=\"QString\" name=\"discrete\" value=\"0\"/>\n"
            "              <Option type=\"QString\" name=\"rampType\" value=\"gradient\"/>\n"
            "              <Option type=\"QString\" name=\"stops\" value=\"%s\"/>\n"
            "            </Option>\n"
            "            <prop k=\"color1\" v=\"%s\"/>\n"
            "            <prop k=\"color2\" v=\"%s\"/>\n"
            "            <prop k=\"discrete\" v=\"0\"/>\n"
            "            <prop k=\"rampType\" v=\"gradient\"/>\n"
            "            <prop k=\"stops\" v=\"%s\"/>\n"
            "          </colorramp>\n",
            c1, c2, stops, c1, c2, stops);
    for (int k = 0; k < n; k++) {
        double v = min + s[k].pos * (max - min);
        fprintf(f, "          <item alpha=\"255\" value=\"%.10g\" label=\"%.*f", v, dec, v);
        if (unit && *unit) {
            fputc(' ', f);
            trv_xml_escape(f, unit);
        }
        fprintf(f, "\" color=\"#%02x%02x%02x\"/>\n", s[k].rgb[0], s[k].rgb[1], s[k].rgb[2]);
    }
    fputs("        </colorrampshader>\n"
          "      </rastershader>\n"
          "    </rasterrenderer>\n"
          "    <brightnesscontrast brightness=\"0\" contrast=\"0\" gamma=\"1\"/>\n"
          "    <huesaturation saturation=\"0\" grayscaleMode=\"0\" invertColors=\"0\" colorizeOn=\"0\" "
          "colorizeRed=\"255\" colorizeGreen=\"128\" colorizeBlue=\"128\" colorizeStrength=\"100\"/>\n"
          "    <rasterresampler maxOversampling=\"2\"/>\n"
          "    <resamplingStage>resamplingFilter</resamplingStage>\n"
          "  </pipe>\n"
          "  <blendMode>0</blendMode>\n",
          f);
    if (desc && *desc) { /* what the style is for, where QGIS keeps a layer's notes */
        fputs("  <customproperties>\n    <Option type=\"Map\">\n"
              "      <Option type=\"QString\" name=\"traverse/layer\" value=\"",
              f);
        trv_xml_escape(f, desc);
        fprintf(f, "\"/>\n      <Option type=\"QString\" name=\"traverse/palette\" value=\"%s\"/>\n"
                   "    </Option>\n  </customproperties>\n",
                p->name);
    }
    return sb_close(&b);
}

/* ---- vector symbols ----------------------------------------------------- */

typedef struct kv {
    const char *k, *v;
} kv;

static void layer_xml(FILE *f, const char *cls, const kv *props, int n, const char *ddp, const char *indent)
{
    fprintf(f, "%s<layer class=\"%s\" pass=\"0\" locked=\"0\" enabled=\"1\">\n", indent, cls);
    fprintf(f, "%s  <Option type=\"Map\">\n", indent);
    for (int i = 0; i < n; i++) {
        fprintf(f, "%s    <Option type=\"QString\" name=\"%s\" value=\"", indent, props[i].k);
        trv_xml_escape(f, props[i].v);
        fputs("\"/>\n", f);
    }
    fprintf(f, "%s  </Option>\n", indent);
    for (int i = 0; i < n; i++) {
        fprintf(f, "%s  <prop k=\"%s\" v=\"", indent, props[i].k);
        trv_xml_escape(f, props[i].v);
        fputs("\"/>\n", f);
    }
    if (ddp)
        fputs(ddp, f);
    fprintf(f, "%s</layer>\n", indent);
}

static void line_layer(FILE *f, const unsigned char rgb[3], int alpha, double width_mm, int dashed, const char *indent)
{
    char color[32], width[32];
    snprintf(color, sizeof color, "%d,%d,%d,%d", rgb[0], rgb[1], rgb[2], alpha);
    snprintf(width, sizeof width, "%g", width_mm);
    const kv p[] = {
        {"align_dash_pattern", "0"},
        {"capstyle", "round"},
        {"customdash", "3;1.6"},
        {"customdash_map_unit_scale", "3x:0,0,0,0,0,0"},
        {"customdash_unit", "MM"},
        {"dash_pattern_offset", "0"},
        {"dash_pattern_offset_unit", "MM"},
        {"draw_inside_polygon", "0"},
        {"joinstyle", "round"},
        {"line_color", color},
        {"line_style", "solid"},
        {"line_width", width},
        {"line_width_unit", "MM"},
        {"offset", "0"},
        {"offset_map_unit_scale", "3x:0,0,0,0,0,0"},
        {"offset_unit", "MM"},
        {"ring_filter", "0"},
        {"tweak_dash_pattern_on_corners", "0"},
        {"use_custom_dash", dashed ? "1" : "0"},
        {"width_map_unit_scale", "3x:0,0,0,0,0,0"},
    };
    layer_xml(f, "SimpleLine", p, (int)(sizeof p / sizeof p[0]), NULL, indent);
}

static void symbol_open(FILE *f, const char *type, int name)
{
    fprintf(f, "      <symbol type=\"%s\" name=\"%d\" alpha=\"1\" clip_to_extent=\"1\" force_rhr=\"0\">\n", type, name);
}

static void vector_tail(FILE *f, int geometry_type)
{
    fprintf(f,
            "  <blendMode>0</blendMode>\n"
            "  <featureBlendMode>0</featureBlendMode>\n"
            "  <layerOpacity>1</layerOpacity>\n"
            "  <layerGeometryType>%d</layerGeometryType>\n",
            geometry_type);
}

static const char *const ROUTES[] = {"mmcr", "mdr", "msr", "time", "grid-mmcr", "grid-mdr", "grid-msr", "grid-time",
                                     "trajectory"};
enum { NROUTES = sizeof ROUTES / sizeof ROUTES[0] };

char *qgis_qml_route_xml(const char *field)
{
    sb b;
    if (sb_open(&b))
        return NULL;
    FILE *f = b.f;
    fputs("  <renderer-v2 type=\"categorizedSymbol\" attr=\"", f);
    trv_xml_escape(f, field && *field ? field : "route");
    fputs("\" symbollevels=\"0\" enableorderby=\"0\" forceraster=\"0\" referencescale=\"-1\">\n"
          "    <categories>\n",
          f);
    for (int k = 0; k < NROUTES; k++)
        fprintf(f, "      <category render=\"true\" symbol=\"%d\" value=\"%s\" label=\"%s\"/>\n", k, ROUTES[k],
                ROUTES[k]);
    fprintf(f, "      <category render=\"true\" symbol=\"%d\" value=\"\" label=\"other\"/>\n", NROUTES);
    fputs("    </categories>\n    <symbols>\n", f);
    static const unsigned char white[3] = {255, 255, 255}, grey[3] = {120, 120, 120};
    for (int k = 0; k <= NROUTES; k++) {
        unsigned char rgb[3];
        int dashed = k < NROUTES ? rnd_route_rgb(ROUTES[k], rgb) : 0;
        if (k == NROUTES)
            memcpy(rgb, grey, 3);
        symbol_open(f, "line", k);
        line_layer(f, white, 200, k == NROUTES - 1 ? 1.1 : 1.4, 0, "        "); /* casing */
        line_layer(f, rgb, 255, k == NROUTES - 1 ? 0.5 : 0.8, dashed, "        ");
        fputs("      </symbol>\n", f);
    }
    fputs("    </symbols>\n    <rotation/>\n    <sizescale/>\n  </renderer-v2>\n", f);
    vector_tail(f, 1);
    return sb_close(&b);
}

static char *single_line(const unsigned char rgb[3], int alpha, double width_mm, int casing)
{
    sb b;
    if (sb_open(&b))
        return NULL;
    FILE *f = b.f;
    fputs("  <renderer-v2 type=\"singleSymbol\" symbollevels=\"0\" enableorderby=\"0\" forceraster=\"0\" "
          "referencescale=\"-1\">\n    <symbols>\n",
          f);
    symbol_open(f, "line", 0);
    static const unsigned char white[3] = {255, 255, 255};
    if (casing)
        line_layer(f, white, 200, width_mm + 0.6, 0, "        ");
    line_layer(f, rgb, alpha, width_mm, 0, "        ");
    fputs("      </symbol>\n    </symbols>\n    <rotation/>\n    <sizescale/>\n  </renderer-v2>\n", f);
    vector_tail(f, 1);
    return sb_close(&b);
}

char *qgis_qml_roadmap_edges_xml(void)
{
    static const unsigned char grey[3] = {70, 70, 70};
    return single_line(grey, 60, 0.1, 0);
}

char *qgis_qml_trajectory_xml(void)
{
    /* trv-sim's trajectory files: the drive and the plans, told apart by
     * `feature` as in the PNG maps: the first plan a wide blue band under
     * the drive, the last plan purple dashed, the drive thin near-black */
    static const struct {
        const char *value;
        double width_mm;
        int dashed;
    } F[] = {{"plan", 2.0, 0}, {"last_plan", 1.0, 1}, {"trajectory", 0.4, 0}};
    enum { NF = sizeof F / sizeof F[0] };
    sb b;
    if (sb_open(&b))
        return NULL;
    FILE *f = b.f;
    fputs("  <renderer-v2 type=\"categorizedSymbol\" attr=\"feature\" symbollevels=\"0\" enableorderby=\"1\" "
          "forceraster=\"0\" referencescale=\"-1\">\n    <categories>\n",
          f);
    for (int k = 0; k < NF; k++)
        fprintf(f, "      <category render=\"true\" symbol=\"%d\" value=\"%s\" label=\"%s\"/>\n", k, F[k].value,
                F[k].value);
    fputs("    </categories>\n    <symbols>\n", f);
    static const unsigned char white[3] = {255, 255, 255};
    for (int k = 0; k < NF; k++) {
        unsigned char rgb[3];
        rnd_route_rgb(F[k].value, rgb);
        symbol_open(f, "line", k);
        if (!F[k].dashed)
            line_layer(f, white, 200, F[k].width_mm + 0.4, 0, "        "); /* casing */
        line_layer(f, rgb, 255, F[k].width_mm, F[k].dashed, "        ");
        fputs("      </symbol>\n", f);
    }
    /* drawn in this order whatever the file's: the plans under the drive */
    fputs("    </symbols>\n    <rotation/>\n    <sizescale/>\n    <orderby>\n"
          "      <orderByClause asc=\"1\" nullsFirst=\"0\">CASE WHEN \"feature\" = 'plan' THEN 0 "
          "WHEN \"feature\" = 'last_plan' THEN 1 ELSE 2 END</orderByClause>\n    </orderby>\n  </renderer-v2>\n",
          f);
    vector_tail(f, 1);
    return sb_close(&b);
}

static void marker_layer(FILE *f, const unsigned char fill[3], int alpha, const unsigned char *outline, double size,
                         const char *size_unit, const char *ddp)
{
    char color[32], ocolor[32], sz[32];
    snprintf(color, sizeof color, "%d,%d,%d,%d", fill[0], fill[1], fill[2], alpha);
    snprintf(ocolor, sizeof ocolor, "%d,%d,%d,255", outline ? outline[0] : 0, outline ? outline[1] : 0,
             outline ? outline[2] : 0);
    snprintf(sz, sizeof sz, "%g", size);
    const kv p[] = {
        {"angle", "0"},
        {"cap_style", "square"},
        {"color", color},
        {"horizontal_anchor_point", "1"},
        {"joinstyle", "bevel"},
        {"name", "circle"},
        {"offset", "0,0"},
        {"offset_map_unit_scale", "3x:0,0,0,0,0,0"},
        {"offset_unit", "MM"},
        {"outline_color", ocolor},
        {"outline_style", outline ? "solid" : "no"},
        {"outline_width", outline ? "0.4" : "0"},
        {"outline_width_map_unit_scale", "3x:0,0,0,0,0,0"},
        {"outline_width_unit", "MM"},
        {"scale_method", "diameter"},
        {"size", sz},
        {"size_map_unit_scale", "3x:0,0,0,0,0,0"},
        {"size_unit", size_unit},
        {"vertical_anchor_point", "1"},
    };
    layer_xml(f, "SimpleMarker", p, (int)(sizeof p / sizeof p[0]), ddp, "        ");
}

char *qgis_qml_roadmap_nodes_xml(void)
{
    sb b;
    if (sb_open(&b))
        return NULL;
    FILE *f = b.f;
    static const unsigned char grey[3] = {40, 40, 40};
    fputs("  <renderer-v2 type=\"singleSymbol\" symbollevels=\"0\" enableorderby=\"0\" forceraster=\"0\" "
          "referencescale=\"-1\">\n    <symbols>\n",
          f);
    symbol_open(f, "marker", 0);
    marker_layer(f, grey, 150, NULL, 0.6, "MM", NULL);
    fputs("      </symbol>\n    </symbols>\n    <rotation/>\n    <sizescale/>\n  </renderer-v2>\n", f);
    vector_tail(f, 0);
    return sb_close(&b);
}

char *qgis_qml_obstacles_xml(const char *radius_field)
{
    sb b;
    if (sb_open(&b))
        return NULL;
    FILE *f = b.f;
    static const unsigned char fill[3] = {228, 26, 28}, line[3] = {153, 0, 13};
    fputs("  <renderer-v2 type=\"singleSymbol\" symbollevels=\"0\" enableorderby=\"0\" forceraster=\"0\" "
          "referencescale=\"-1\">\n    <symbols>\n",
          f);
    if (radius_field && *radius_field) {
        /* circles of the obstacle's radius: the marker's diameter, data-defined, in map units */
        sb d;
        if (sb_open(&d)) {
            fclose(f);
            free(b.buf);
            return NULL;
        }
        fputs("          <data_defined_properties>\n            <Option type=\"Map\">\n"
              "              <Option type=\"QString\" name=\"name\" value=\"\"/>\n"
              "              <Option type=\"Map\" name=\"properties\">\n"
              "                <Option type=\"Map\" name=\"size\">\n"
              "                  <Option type=\"bool\" name=\"active\" value=\"true\"/>\n"
              "                  <Option type=\"QString\" name=\"expression\" value=\"2 * &quot;",
              d.f);
        trv_xml_escape(d.f, radius_field);
        fputs("&quot;\"/>\n"
              "                  <Option type=\"int\" name=\"type\" value=\"3\"/>\n"
              "                </Option>\n"
              "              </Option>\n"
              "              <Option type=\"QString\" name=\"type\" value=\"collection\"/>\n"
              "            </Option>\n          </data_defined_properties>\n",
              d.f);
        char *ddp = sb_close(&d);
        symbol_open(f, "marker", 0);
        marker_layer(f, fill, 77, line, 10, "MapUnit", ddp);
        free(ddp);
        fputs("      </symbol>\n    </symbols>\n    <rotation/>\n    <sizescale/>\n  </renderer-v2>\n", f);
        vector_tail(f, 0);
        return sb_close(&b);
    }
    symbol_open(f, "fill", 0);
    const kv p[] = {
        {"border_width_map_unit_scale", "3x:0,0,0,0,0,0"},
        {"color", "228,26,28,77"},
        {"joinstyle", "bevel"},
        {"offset", "0,0"},
        {"offset_map_unit_scale", "3x:0,0,0,0,0,0"},
        {"offset_unit", "MM"},
        {"outline_color", "153,0,13,255"},
        {"outline_style", "solid"},
        {"outline_width", "0.4"},
        {"outline_width_unit", "MM"},
        {"style", "solid"},
    };
    (void)fill, (void)line;
    layer_xml(f, "SimpleFill", p, (int)(sizeof p / sizeof p[0]), NULL, "        ");
    fputs("      </symbol>\n    </symbols>\n    <rotation/>\n    <sizescale/>\n  </renderer-v2>\n", f);
    vector_tail(f, 2);
    return sb_close(&b);
}

/* ---- writing -------------------------------------------------------------- */

trv_status qgis_qml_write(trv_ctx *ctx, const char *path, const char *inner)
{
    if (!inner)
        return trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
    char *doc = qgis_qml_document(inner);
    if (!doc)
        return trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
    FILE *f = fopen(path, "w");
    trv_status st = TRV_OK;
    if (!f) {
        st = trv_error(ctx, TRV_ERR_IO, "cannot create '%s': %s", path, strerror(errno));
    } else {
        int bad = fputs(doc, f) < 0;
        if (fclose(f) != 0 || bad)
            st = trv_error(ctx, TRV_ERR_IO, "cannot write '%s': %s", path, strerror(errno));
    }
    free(doc);
    return st;
}

static trv_status write_owned(trv_ctx *ctx, const char *path, char *inner)
{
    trv_status st = qgis_qml_write(ctx, path, inner);
    free(inner);
    return st;
}

trv_status qgis_qml_raster_write(trv_ctx *ctx, const char *path, const rnd_palette *p, double min, double max,
                                const char *unit, const char *desc)
{
    return write_owned(ctx, path, qgis_qml_raster_xml(p, min, max, unit, desc));
}

trv_status qgis_qml_route_write(trv_ctx *ctx, const char *path, const char *field)
{
    return write_owned(ctx, path, qgis_qml_route_xml(field));
}

trv_status qgis_qml_roadmap_edges_write(trv_ctx *ctx, const char *path)
{
    return write_owned(ctx, path, qgis_qml_roadmap_edges_xml());
}

trv_status qgis_qml_roadmap_nodes_write(trv_ctx *ctx, const char *path)
{
    return write_owned(ctx, path, qgis_qml_roadmap_nodes_xml());
}

trv_status qgis_qml_trajectory_write(trv_ctx *ctx, const char *path)
{
    return write_owned(ctx, path, qgis_qml_trajectory_xml());
}

trv_status qgis_qml_obstacles_write(trv_ctx *ctx, const char *path, const char *radius_field)
{
    return write_owned(ctx, path, qgis_qml_obstacles_xml(radius_field));
}

char *qgis_qml_path(const char *layer_path)
{
    size_t n = strlen(layer_path);
    const char *slash = strrchr(layer_path, '/'), *dot = strrchr(layer_path, '.');
    if (dot && (!slash || dot > slash + 1))
        n = (size_t)(dot - layer_path);
    char *p = malloc(n + 5);
    if (p) {
        memcpy(p, layer_path, n);
        strcpy(p + n, ".qml");
    }
    return p;
}

trv_status qgis_qml_raster_mem(trv_ctx *ctx, const geo_raster *r, const char *qml_path)
{
    double dmin = INFINITY, dmax = -INFINITY;
    for (size_t i = 0; i < (size_t)r->grid.nx * r->grid.ny; i++)
        if (!geo_raster_is_nodata(r, i)) {
            double v = r->f32[i];
            dmin = v < dmin ? v : dmin, dmax = v > dmax ? v : dmax;
        }
    return qgis_qml_raster_range(ctx, r->desc, r->unit, dmin, dmax, qml_path);
}

trv_status qgis_qml_raster_range(trv_ctx *ctx, const char *desc, const char *unit, double dmin, double dmax,
                                 const char *qml_path)
{
    double lo, hi;
    if (dmin > dmax)
        dmin = 0, dmax = 1;
    rnd_layer_range(desc, unit, dmin, dmax, &lo, &hi);
    return qgis_qml_raster_write(ctx, qml_path, rnd_palette_auto(desc, unit), lo, hi, unit, desc);
}

const char *qgis_qml_add(trv_ctx *ctx, trv_outset *set, const char *layer_path)
{
    char *qml = qgis_qml_path(layer_path);
    const char *tmp = qml ? trv_outset_add(set, qml) : NULL;
    free(qml);
    if (!tmp)
        trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
    return tmp;
}

trv_status qgis_qml_stage(trv_ctx *ctx, trv_outset *set, const char *dir, const char *name, const geo_raster *r)
{
    char *path = dir ? trv_path_join(dir, name) : NULL;
    if (dir && !path)
        return trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
    const char *tmp = qgis_qml_add(ctx, set, dir ? path : name);
    free(path);
    return tmp ? qgis_qml_raster_mem(ctx, r, tmp) : TRV_ERR_NOMEM;
}

trv_status qgis_qml_stage_range(trv_ctx *ctx, trv_outset *set, const char *dir, const char *name, const char *desc,
                                const char *unit, double dmin, double dmax)
{
    char *path = trv_path_join(dir, name);
    const char *tmp = path ? qgis_qml_add(ctx, set, path) : NULL;
    free(path);
    return tmp ? qgis_qml_raster_range(ctx, desc, unit, dmin, dmax, tmp) : trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
}

/* ---- GeoPackage layer_styles --------------------------------------------- */

trv_status qgis_gpkg_styles_write(trv_ctx *ctx, const char *gpkg_path, const char *const *layers,
                                 const char *const *inner, int n)
{
    char **docs = n > 0 ? calloc((size_t)n, sizeof *docs) : NULL;
    trv_status st = n > 0 && !docs ? trv_error(ctx, TRV_ERR_NOMEM, "out of memory") : TRV_OK;
    for (int i = 0; i < n && !st; i++)
        if (!(docs[i] = qgis_qml_document(inner[i])))
            st = trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
    if (!st)
        st = geo_gpkg_styles_write(ctx, gpkg_path, layers, (const char *const *)docs, n);
    for (int i = 0; docs && i < n; i++)
        free(docs[i]);
    free(docs);
    return st;
}
