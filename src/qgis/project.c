/* QGIS 3 project (.qgs) of a run directory: see project.h. The layers come
 * from layers.c; this file writes the XML.
 *
 * The XML follows what QGIS 3.22 itself writes, cut down to what it needs
 * to read a project back: <projectCrs>, <layer-tree-group>, <mapcanvas>,
 * <ProjectViewSettings>, <projectlayers> with one <maplayer> each, and
 * <properties> asking for relative paths. A <spatialrefsys> carries the WKT
 * (WKT2 2019, which QGIS prefers because it is lossless), the PROJ string,
 * the EPSG code and name; no srsid, since that is an index into QGIS's own
 * srs.db, which QGIS then resolves from the WKT. */
#define _POSIX_C_SOURCE 200809L
#include "project_priv.h"

#include <errno.h>
#include <stdarg.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* ---- CRS ------------------------------------------------------------------- */

static void write_srs(FILE *f, const geo_crs_desc *d, const char *ind)
{
    char acr[32] = "";
    const char *p = strstr(d->proj4, "+proj=");
    if (p)
        sscanf(p + 6, "%31[^ ]", acr);
    fprintf(f, "%s<spatialrefsys nativeFormat=\"Wkt\">\n%s  <wkt>", ind, ind);
    trv_xml_escape(f, d->wkt2);
    fprintf(f, "</wkt>\n%s  <proj4>", ind);
    trv_xml_escape(f, d->proj4);
    fprintf(f, "</proj4>\n");
    if (*d->auth && !strcmp(d->auth, "EPSG"))
        fprintf(f, "%s  <srid>%s</srid>\n", ind, d->code);
    fprintf(f, "%s  <authid>", ind);
    if (*d->auth) {
        trv_xml_escape(f, d->auth);
        fputc(':', f);
        trv_xml_escape(f, d->code);
    }
    fprintf(f, "</authid>\n%s  <description>", ind);
    trv_xml_escape(f, d->name);
    fprintf(f, "</description>\n%s  <projectionacronym>", ind);
    trv_xml_escape(f, acr);
    fprintf(f, "</projectionacronym>\n%s  <ellipsoidacronym>", ind);
    fputs(d->ellps, f);
    fprintf(f, "</ellipsoidacronym>\n%s  <geographicflag>%s</geographicflag>\n%s</spatialrefsys>\n", ind,
            d->geographic ? "true" : "false", ind);
}

static void crs_label(const geo_crs_desc *d, char *buf, size_t n)
{
    if (*d->auth)
        trv_sfmt(buf, n, "%s:%s", d->auth, d->code);
    else
        trv_sfmt(buf, n, "%s", *d->name ? d->name : "unknown CRS");
}

/* ---- writing ----------------------------------------------------------------- */

static void write_extent(FILE *f, const double e[4], const char *ind)
{
    fprintf(f, "%s<extent>\n%s  <xmin>%.15g</xmin>\n%s  <ymin>%.15g</ymin>\n%s  <xmax>%.15g</xmax>\n%s  <ymax>%.15g</ymax>\n%s</extent>\n",
            ind, ind, e[0], ind, e[1], ind, e[2], ind, e[3], ind);
}

static void write_maplayer(FILE *f, const layer *y)
{
    int raster = y->kind == K_RASTER || y->kind == K_HILLSHADE;
    int cloud = y->kind == K_POINTCLOUD;
    if (raster || cloud)
        fprintf(f, "    <maplayer type=\"%s\" hasScaleBasedVisibilityFlag=\"0\" refreshOnNotifyEnabled=\"0\" "
                   "autoRefreshEnabled=\"0\" autoRefreshTime=\"0\" styleCategories=\"AllStyleCategories\" "
                   "minScale=\"1e+08\" maxScale=\"0\">\n", raster ? "raster" : "point-cloud");
    else
        fprintf(f, "    <maplayer type=\"vector\" geometry=\"%s\" wkbType=\"%s\" hasScaleBasedVisibilityFlag=\"0\" "
                   "refreshOnNotifyEnabled=\"0\" autoRefreshEnabled=\"0\" autoRefreshTime=\"0\" "
                   "styleCategories=\"AllStyleCategories\" readOnly=\"0\" simplifyDrawingHints=\"1\" "
                   "simplifyDrawingTol=\"1\" simplifyAlgorithm=\"0\" simplifyLocal=\"1\" simplifyMaxScale=\"1\" "
                   "labelsEnabled=\"0\" minScale=\"1e+08\" maxScale=\"0\">\n",
                y->geom, y->wkb);
    write_extent(f, y->ext, "      ");
    fprintf(f, "      <id>%s</id>\n      <datasource>", y->id);
    trv_xml_escape(f, y->source);
    if (*y->ogr_layer) {
        fputs("|layername=", f);
        trv_xml_escape(f, y->ogr_layer);
    }
    fprintf(f, "</datasource>\n      <layername>");
    trv_xml_escape(f, y->name);
    fprintf(f, "</layername>\n      <srs>\n");
    write_srs(f, &y->crs, "        ");
    fprintf(f, "      </srs>\n");
    if (raster) {
        fprintf(f, "      <provider>gdal</provider>\n      <noData>\n        <noDataList bandNo=\"1\" useSrcNoData=\"1\"/>\n"
                   "      </noData>\n      <pipe>\n        ");
        /* indent the renderer two more spaces: it was made for depth 4 */
        fputs(y->renderer_xml, f);
        fprintf(f, "\n        <brightnesscontrast brightness=\"0\" contrast=\"0\" gamma=\"1\"/>\n"
                   "        <huesaturation saturation=\"0\" grayscaleMode=\"0\" colorizeOn=\"0\" colorizeRed=\"255\" "
                   "colorizeGreen=\"128\" colorizeBlue=\"128\" colorizeStrength=\"100\"/>\n"
                   "        <rasterresampler maxOversampling=\"2\"/>\n"
                   "        <resamplingStage>resamplingFilter</resamplingStage>\n      </pipe>\n"
                   "      <blendMode>0</blendMode>\n");
    } else if (cloud) {
        fprintf(f, "      <provider>ept</provider>\n      ");
        fputs(y->renderer_xml, f);
        fprintf(f, "\n      <blendMode>0</blendMode>\n");
    } else {
        fprintf(f, "      <provider encoding=\"UTF-8\">ogr</provider>\n");
        qgis__renderer3d_write(f, y);
        fprintf(f, "      ");
        fputs(y->renderer_xml, f);
        fprintf(f, "\n      <blendMode>0</blendMode>\n      <featureBlendMode>0</featureBlendMode>\n");
    }
    fprintf(f, "      <layerOpacity>%g</layerOpacity>\n    </maplayer>\n", y->opacity);
}
static trv_status write_project(trv_ctx *ctx, FILE *f, layers *L, const layer *crs_of, const double ext[4],
                                const char *title)
{
    fprintf(f, "<!DOCTYPE qgis PUBLIC 'http://mrcc.com/qgis.dtd' 'SYSTEM'>\n"
               "<qgis projectname=\"");
    trv_xml_escape(f, title);
    fprintf(f, "\" version=\"3.22.16-Białowieża\">\n  <homePath path=\"\"/>\n  <title>");
    trv_xml_escape(f, title);
    fprintf(f, "</title>\n  <autotransaction active=\"0\"/>\n  <evaluateDefaultValues active=\"0\"/>\n"
               "  <trust active=\"0\"/>\n  <projectCrs>\n");
    write_srs(f, &crs_of->crs, "    ");
    fprintf(f, "  </projectCrs>\n  <layer-tree-group>\n    <customproperties/>\n");
    for (int i = 0; i < L->n; i++) {
        const layer *y = &L->l[i];
        fprintf(f, "    <layer-tree-layer id=\"%s\" name=\"", y->id);
        trv_xml_escape(f, y->name);
        fprintf(f, "\" source=\"");
        trv_xml_escape(f, y->source);
        if (*y->ogr_layer) {
            fputs("|layername=", f);
            trv_xml_escape(f, y->ogr_layer);
        }
        fprintf(f, "\" providerKey=\"%s\" checked=\"%s\" expanded=\"%d\" legend_exp=\"\">\n"
                   "      <customproperties/>\n    </layer-tree-layer>\n",
                y->kind == K_RASTER || y->kind == K_HILLSHADE ? "gdal" : y->kind == K_POINTCLOUD ? "ept" : "ogr",
                y->visible ? "Qt::Checked" : "Qt::Unchecked", y->visible && y->kind != K_HILLSHADE);
    }
    fprintf(f, "    <custom-order enabled=\"0\">\n");
    for (int i = 0; i < L->n; i++)
        fprintf(f, "      <item>%s</item>\n", L->l[i].id);
    fprintf(f, "    </custom-order>\n  </layer-tree-group>\n");
    fprintf(f, "  <mapcanvas name=\"theMapCanvas\" annotationsVisible=\"1\">\n    <units>%s</units>\n",
            crs_of->crs.geographic ? "degrees" : "meters");
    write_extent(f, ext, "    ");
    fprintf(f, "    <rotation>0</rotation>\n    <destinationsrs>\n");
    write_srs(f, &crs_of->crs, "      ");
    fprintf(f, "    </destinationsrs>\n    <rendermaptile>0</rendermaptile>\n  </mapcanvas>\n");
    fprintf(f, "  <ProjectViewSettings UseProjectScales=\"0\" rotation=\"0\">\n    <Scales/>\n"
               "    <DefaultViewExtent xmin=\"%.15g\" ymin=\"%.15g\" xmax=\"%.15g\" ymax=\"%.15g\">\n",
            ext[0], ext[1], ext[2], ext[3]);
    write_srs(f, &crs_of->crs, "      ");
    fprintf(f, "    </DefaultViewExtent>\n  </ProjectViewSettings>\n  <projectlayers>\n");
    for (int i = 0; i < L->n; i++)
        write_maplayer(f, &L->l[i]);
    fprintf(f, "  </projectlayers>\n  <layerorder>\n");
    for (int i = 0; i < L->n; i++)
        fprintf(f, "    <layer id=\"%s\"/>\n", L->l[i].id);
    fprintf(f, "  </layerorder>\n  <properties>\n    <Paths>\n      <Absolute type=\"bool\">false</Absolute>\n"
               "    </Paths>\n    <SpatialRefSys>\n      <ProjectionsEnabled type=\"int\">1</ProjectionsEnabled>\n"
               "    </SpatialRefSys>\n    <Measurement>\n      <DistanceUnits type=\"QString\">meters</DistanceUnits>\n"
               "      <AreaUnits type=\"QString\">m2</AreaUnits>\n    </Measurement>\n  </properties>\n");
    qgis__view3d_write(f, L, crs_of, ext, write_srs);
    fprintf(f, "</qgis>\n");
    if (ferror(f))
        return trv_error(ctx, TRV_ERR_IO, "write error");
    return TRV_OK;
}

/* The project CRS: the lowest raster's (every raster of a run shares one
 * grid), else the lowest layer's. */
static const layer *project_crs(const layers *L)
{
    const layer *crs_of = NULL;
    for (int i = L->n - 1; i >= 0 && !crs_of; i--)
        if (L->l[i].kind == K_RASTER)
            crs_of = &L->l[i];
    return crs_of ? crs_of : &L->l[L->n - 1];
}

/* The extent: every layer's, in the project CRS. */
static void project_extent(const layers *L, const layer *crs_of, double ext[4])
{
    ext[0] = ext[1] = INFINITY;
    ext[2] = ext[3] = -INFINITY;
    for (int i = 0; i < L->n; i++) {
        const layer *y = &L->l[i];
        double e[4] = {y->ext[0], y->ext[1], y->ext[2], y->ext[3]};
        if (e[0] == e[2] && e[1] == e[3])
            continue; /* empty layer */
        if (geo_crs_bounds(y->wkt, crs_of->wkt, y->ext, 21, e))
            continue; /* outside the projection's domain: no help for the view */
        ext[0] = fmin(ext[0], e[0]);
        ext[1] = fmin(ext[1], e[1]);
        ext[2] = fmax(ext[2], e[2]);
        ext[3] = fmax(ext[3], e[3]);
    }
    if (!isfinite(ext[0])) {
        ext[0] = ext[1] = 0;
        ext[2] = ext[3] = 1;
    }
}

/* Relative data sources: from the project's directory (made in set) to the
 * layers'. absdir: the run directory's real path. */
static trv_status relative_sources(trv_ctx *ctx, trv_outset *set, const qgis_project_opts *o, layers *L,
                                   char absdir[PATH_MAX])
{
    char outdir[PATH_MAX], absout[PATH_MAX], rel[PATH_MAX];
    trv_sfmt(outdir, sizeof outdir, "%s", o->out_path);
    char *slash = strrchr(outdir, '/');
    if (slash)
        *(slash == outdir ? slash + 1 : slash) = '\0';
    else
        strcpy(outdir, ".");
    trv_status st = trv_outset_mkdir(ctx, set, outdir);
    if (!st && (!realpath(outdir, absout) || !realpath(o->dir, absdir)))
        st = trv_error(ctx, TRV_ERR_IO, "cannot resolve '%s': %s", outdir, strerror(errno));
    if (st)
        return st;
    trv_relpath(absout, absdir, rel, sizeof rel);
    for (int i = 0; i < L->n; i++) {
        char src[PATH_MAX];
        if (!strcmp(rel, "."))
            trv_sfmt(src, sizeof src, "./%s", L->l[i].source);
        else if (!strncmp(rel, "..", 2))
            trv_sfmt(src, sizeof src, "%s/%s", rel, L->l[i].source);
        else
            trv_sfmt(src, sizeof src, "./%s/%s", rel, L->l[i].source);
        trv_sfmt(L->l[i].source, sizeof L->l[i].source, "%s", src);
    }
    return TRV_OK;
}

/* The .qgs into set, titled o->title or the run directory's name. */
static trv_status write_file(trv_ctx *ctx, trv_outset *set, const qgis_project_opts *o, layers *L,
                             const layer *crs_of, const double ext[4], const char *absdir)
{
    trv_status st;
    const char *tmp = trv_outset_add(set, o->out_path);
    FILE *f = tmp ? fopen(tmp, "w") : NULL;
    if (!f)
        return trv_error(ctx, TRV_ERR_IO, "cannot create '%s': %s", o->out_path, strerror(errno));
    const char *title = o->title;
    const char *base = strrchr(absdir, '/');
    if (!title)
        title = base && base[1] ? base + 1 : absdir;
    st = write_project(ctx, f, L, crs_of, ext, title);
    if (fclose(f) != 0 && !st)
        st = trv_error(ctx, TRV_ERR_IO, "cannot write '%s': %s", o->out_path, strerror(errno));
    if (st)
        trv_error_prefix(ctx, st, "cannot write '%s'", o->out_path);
    return st;
}

static trv_status fill_info(trv_ctx *ctx, qgis_project_info *info, const layers *L, const layer *crs_of,
                            const double ext[4])
{
    crs_label(&crs_of->crs, info->crs, sizeof info->crs);
    memcpy(info->extent, ext, sizeof info->extent);
    info->layer = calloc((size_t)L->n, sizeof *info->layer);
    if (!info->layer)
        return trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
    for (int i = 0; i < L->n; i++) {
        qgis_project_layer *p = &info->layer[i];
        trv_sfmt(p->name, sizeof p->name, "%s", L->l[i].name);
        trv_sfmt(p->source, sizeof p->source, "%s%s%s", L->l[i].source, *L->l[i].ogr_layer ? "|layername=" : "",
                 L->l[i].ogr_layer);
        trv_sfmt(p->renderer, sizeof p->renderer, "%s", L->l[i].renderer);
        trv_sfmt(p->style, sizeof p->style, "%s", L->l[i].style);
        p->visible = L->l[i].visible;
    }
    info->nlayers = L->n;
    return TRV_OK;
}

trv_status qgis_project_write(trv_ctx *ctx, const qgis_project_opts *o, qgis_project_info *info)
{
    if (info)
        memset(info, 0, sizeof *info);
    struct stat sb;
    if (!o->dir || stat(o->dir, &sb) != 0 || !S_ISDIR(sb.st_mode))
        return trv_error(ctx, TRV_ERR_IO, "cannot open '%s': %s", o->dir ? o->dir : "",
                         o->dir && stat(o->dir, &sb) != 0 ? strerror(errno) : "not a directory");
    layers L = {0};
    trv_status st = qgis__layers_read(ctx, &L, o->dir);
    if (st) {
        qgis__layers_clear(&L);
        return st;
    }
    const layer *crs_of = project_crs(&L);
    double ext[4];
    project_extent(&L, crs_of, ext);
    char absdir[PATH_MAX];
    trv_outset *set = trv_outset_new();
    if (!set)
        st = trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
    if (!st && !(st = relative_sources(ctx, set, o, &L, absdir)) &&
        !(st = write_file(ctx, set, o, &L, crs_of, ext, absdir)))
        st = trv_outset_commit(ctx, set);
    trv_outset_free(set);
    if (!st)
        st = trv_progress(ctx, 1.0, "layers");
    if (!st && info)
        st = fill_info(ctx, info, &L, crs_of, ext);
    qgis__layers_clear(&L);
    return st;
}


void qgis_project_info_clear(qgis_project_info *info)
{
    if (!info)
        return;
    free(info->layer);
    memset(info, 0, sizeof *info);
}
