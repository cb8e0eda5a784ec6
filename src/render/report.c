/* The mission report of a run directory: see project.h.
 *
 * The report is built once as a list of blocks (headings, paragraphs,
 * tables, images) from the run's own files, then written twice: as
 * GitHub-flavoured Markdown (images linked relative to the report) and as
 * one self-contained HTML page (images as data: URIs, inline CSS, no
 * external resource). Text may hold `code` spans, the only inline markup.
 * Nothing in it depends on the time or the host: the same directory gives
 * the same bytes. */
#define _POSIX_C_SOURCE 200809L
#include "geo/geo.h"
#include "render/project.h"
#include "render/project_priv.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <cpl_conv.h>
#include <cpl_error.h>
#include <cpl_string.h>
#include <gdal.h>
#include <json-c/json.h>
#include <ogr_srs_api.h>


/* ---- the document ---------------------------------------------------------- */

typedef enum btype { B_HEADING, B_PARA, B_TABLE, B_IMAGE, B_LIST } btype;

typedef struct block {
    btype type;
    int level;              /* heading level */
    char *text;             /* heading, paragraph, image caption */
    int ncols, nrows;       /* table: nrows data rows after the header */
    char **cells;           /* (nrows + 1) * ncols; list: nrows items in cells */
    char *align;            /* table: 'l' or 'r' per column */
    char *img_path;         /* image: the file (for HTML) */
    char *img_link;         /* image: the Markdown link */
} block;

typedef struct doc {
    block *b;
    int n, cap;
    int oom;
} doc;

static char *vfmt(const char *fmt, va_list ap)
{
    va_list aq;
    va_copy(aq, ap);
    int n = vsnprintf(NULL, 0, fmt, aq);
    va_end(aq);
    char *s = n >= 0 ? malloc((size_t)n + 1) : NULL;
    if (s)
        vsnprintf(s, (size_t)n + 1, fmt, ap);
    return s;
}

__attribute__((format(printf, 1, 2))) static char *fmt(const char *f, ...)
{
    va_list ap;
    va_start(ap, f);
    char *s = vfmt(f, ap);
    va_end(ap);
    return s;
}

static block *doc_add(doc *d, btype t)
{
    if (d->n == d->cap) {
        int cap = d->cap ? 2 * d->cap : 64;
        block *b = realloc(d->b, (size_t)cap * sizeof *b);
        if (!b) {
            d->oom = 1;
            return NULL;
        }
        d->b = b;
        d->cap = cap;
    }
    block *b = &d->b[d->n++];
    memset(b, 0, sizeof *b);
    b->type = t;
    return b;
}

__attribute__((format(printf, 3, 4))) static void doc_h(doc *d, int level, const char *f, ...)
{
    block *b = doc_add(d, B_HEADING);
    if (!b)
        return;
    va_list ap;
    va_start(ap, f);
    b->text = vfmt(f, ap);
    va_end(ap);
    b->level = level;
    d->oom |= !b->text;
}

__attribute__((format(printf, 2, 3))) static void doc_p(doc *d, const char *f, ...)
{
    block *b = doc_add(d, B_PARA);
    if (!b)
        return;
    va_list ap;
    va_start(ap, f);
    b->text = vfmt(f, ap);
    va_end(ap);
    d->oom |= !b->text;
}

/* A table: align is a string of 'l'/'r', one per column; header names follow. */
static block *doc_table(doc *d, const char *align, ...)
{
    block *b = doc_add(d, B_TABLE);
    if (!b)
        return NULL;
    b->ncols = (int)strlen(align);
    b->align = strdup(align);
    b->cells = calloc((size_t)b->ncols, sizeof *b->cells);
    if (!b->align || !b->cells) {
        d->oom = 1;
        return b;
    }
    va_list ap;
    va_start(ap, align);
    for (int c = 0; c < b->ncols; c++) {
        b->cells[c] = strdup(va_arg(ap, const char *));
        d->oom |= !b->cells[c];
    }
    va_end(ap);
    return b;
}

/* Append a row; the cells are malloc'ed strings, taken over (NULL = oom). */
static void doc_row(doc *d, block *b, ...)
{
    if (!b || !b->cells)
        return;
    char **cells = realloc(b->cells, (size_t)(b->nrows + 2) * (size_t)b->ncols * sizeof *cells);
    va_list ap;
    va_start(ap, b);
    for (int c = 0; c < b->ncols; c++) {
        char *s = va_arg(ap, char *);
        if (cells)
            cells[(size_t)(b->nrows + 1) * (size_t)b->ncols + (size_t)c] = s;
        else
            free(s);
        d->oom |= !s;
    }
    va_end(ap);
    if (!cells) {
        d->oom = 1;
        return;
    }
    b->cells = cells;
    b->nrows++;
}

__attribute__((format(printf, 2, 3))) static void doc_li(doc *d, const char *f, ...)
{
    block *b = d->n && d->b[d->n - 1].type == B_LIST ? &d->b[d->n - 1] : doc_add(d, B_LIST);
    if (!b)
        return;
    char **cells = realloc(b->cells, (size_t)(b->nrows + 1) * sizeof *cells);
    if (!cells) {
        d->oom = 1;
        return;
    }
    b->cells = cells;
    va_list ap;
    va_start(ap, f);
    b->cells[b->nrows] = vfmt(f, ap);
    va_end(ap);
    d->oom |= !b->cells[b->nrows];
    b->nrows++;
}

static void doc_end_list(doc *d) { doc_add(d, B_PARA); } /* an empty paragraph separates lists */

static void doc_clear(doc *d)
{
    for (int i = 0; i < d->n; i++) {
        block *b = &d->b[i];
        free(b->text);
        size_t ncells = b->type == B_TABLE ? (size_t)(b->nrows + 1) * (size_t)b->ncols
                        : b->type == B_LIST ? (size_t)b->nrows
                                            : 0;
        for (size_t k = 0; b->cells && k < ncells; k++)
            free(b->cells[k]);
        free(b->cells);
        free(b->align);
        free(b->img_path);
        free(b->img_link);
    }
    free(d->b);
    memset(d, 0, sizeof *d);
}

/* ---- writers ------------------------------------------------------------------ */

static void md_text(FILE *f, const char *s, int in_table)
{
    for (; s && *s; s++) {
        if (in_table && *s == '|')
            fputs("\\|", f);
        else if (in_table && *s == '\n')
            fputc(' ', f);
        else
            fputc(*s, f);
    }
}

static void write_md(FILE *f, const doc *d)
{
    for (int i = 0; i < d->n; i++) {
        const block *b = &d->b[i];
        switch (b->type) {
        case B_HEADING:
            for (int k = 0; k < b->level; k++)
                fputc('#', f);
            fputc(' ', f);
            md_text(f, b->text, 0);
            fputs("\n\n", f);
            break;
        case B_PARA:
            if (b->text && *b->text) {
                md_text(f, b->text, 0);
                fputs("\n\n", f);
            }
            break;
        case B_LIST:
            for (int k = 0; k < b->nrows; k++) {
                fputs("- ", f);
                md_text(f, b->cells[k], 0);
                fputc('\n', f);
            }
            fputc('\n', f);
            break;
        case B_TABLE:
            for (int r = 0; r <= b->nrows; r++) {
                fputc('|', f);
                for (int c = 0; c < b->ncols; c++) {
                    fputc(' ', f);
                    md_text(f, b->cells[(size_t)r * (size_t)b->ncols + (size_t)c], 1);
                    fputs(" |", f);
                }
                fputc('\n', f);
                if (r == 0) {
                    fputc('|', f);
                    for (int c = 0; c < b->ncols; c++)
                        fputs(b->align[c] == 'r' ? " ---: |" : " --- |", f);
                    fputc('\n', f);
                }
            }
            fputc('\n', f);
            break;
        case B_IMAGE:
            fputs("![", f);
            md_text(f, b->text, 1);
            fputs("](", f);
            fputs(b->img_link, f);
            fputs(")\n\n", f);
            break;
        }
    }
}

/* Escaped text with `code` spans as <code> and **bold** as <strong>. */
static void html_text(FILE *f, const char *s)
{
    int code = 0, bold = 0;
    for (; s && *s; s++) {
        if (*s == '`') {
            fputs(code ? "</code>" : "<code>", f);
            code = !code;
            continue;
        }
        if (!code && s[0] == '*' && s[1] == '*') {
            fputs(bold ? "</strong>" : "<strong>", f);
            bold = !bold;
            s++;
            continue;
        }
        char c[2] = {*s, 0};
        rnd_prj_xml_escape(f, c);
    }
    if (code)
        fputs("</code>", f);
    if (bold)
        fputs("</strong>", f);
}

static const char B64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

static void base64(FILE *f, const unsigned char *p, size_t n)
{
    size_t i = 0;
    for (; i + 2 < n; i += 3) {
        unsigned v = (unsigned)p[i] << 16 | (unsigned)p[i + 1] << 8 | p[i + 2];
        fputc(B64[v >> 18], f);
        fputc(B64[(v >> 12) & 63], f);
        fputc(B64[(v >> 6) & 63], f);
        fputc(B64[v & 63], f);
    }
    if (i < n) {
        unsigned v = (unsigned)p[i] << 16 | (i + 1 < n ? (unsigned)p[i + 1] << 8 : 0);
        fputc(B64[v >> 18], f);
        fputc(B64[(v >> 12) & 63], f);
        fputc(i + 1 < n ? B64[(v >> 6) & 63] : '=', f);
        fputc('=', f);
    }
}

static const char CSS[] =
    "body{font-family:-apple-system,'Segoe UI',Helvetica,Arial,sans-serif;max-width:60em;margin:2em auto;"
    "padding:0 1em;color:#222;line-height:1.45}\n"
    "h1{border-bottom:2px solid #1a9850;padding-bottom:.2em}h2{border-bottom:1px solid #ddd;padding-bottom:.15em;"
    "margin-top:1.6em}\n"
    "table{border-collapse:collapse;margin:.6em 0 1.2em;font-size:.92em}th,td{border:1px solid #ccc;"
    "padding:.25em .6em}th{background:#f0f3f0}tr:nth-child(even) td{background:#fafafa}td.r,th.r{text-align:right}\n"
    "code{background:#f3f3f3;padding:0 .25em;border-radius:3px;font-size:.92em}\n"
    "figure{margin:1em 0}figure img{max-width:100%;border:1px solid #ccc}figcaption{color:#555;font-size:.9em}\n";

static trv_status write_html(trv_ctx *ctx, FILE *f, const doc *d)
{
    fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>", f);
    html_text(f, d->n && d->b[0].type == B_HEADING ? d->b[0].text : "report");
    fprintf(f, "</title>\n<style>\n%s</style>\n</head>\n<body>\n", CSS);
    for (int i = 0; i < d->n; i++) {
        const block *b = &d->b[i];
        switch (b->type) {
        case B_HEADING:
            fprintf(f, "<h%d>", b->level);
            html_text(f, b->text);
            fprintf(f, "</h%d>\n", b->level);
            break;
        case B_PARA:
            if (b->text && *b->text) {
                fputs("<p>", f);
                html_text(f, b->text);
                fputs("</p>\n", f);
            }
            break;
        case B_LIST:
            fputs("<ul>\n", f);
            for (int k = 0; k < b->nrows; k++) {
                fputs("<li>", f);
                html_text(f, b->cells[k]);
                fputs("</li>\n", f);
            }
            fputs("</ul>\n", f);
            break;
        case B_TABLE:
            fputs("<table>\n", f);
            for (int r = 0; r <= b->nrows; r++) {
                fputs(r ? "<tr>" : "<thead><tr>", f);
                for (int c = 0; c < b->ncols; c++) {
                    const char *tag = r ? "td" : "th";
                    fprintf(f, b->align[c] == 'r' ? "<%s class=\"r\">" : "<%s>", tag);
                    html_text(f, b->cells[(size_t)r * (size_t)b->ncols + (size_t)c]);
                    fprintf(f, "</%s>", tag);
                }
                fputs(r ? "</tr>\n" : "</tr></thead>\n", f);
            }
            fputs("</table>\n", f);
            break;
        case B_IMAGE: {
            size_t n = 0;
            char *png = rnd_prj_read_file(b->img_path, &n);
            if (!png)
                return trv_error(ctx, TRV_ERR_IO, "cannot read '%s': %s", b->img_path, strerror(errno));
            fputs("<figure><img alt=\"", f);
            rnd_prj_xml_escape(f, b->text);
            fputs("\" src=\"data:image/png;base64,", f);
            base64(f, (const unsigned char *)png, n);
            fputs("\"><figcaption>", f);
            html_text(f, b->text);
            fputs("</figcaption></figure>\n", f);
            free(png);
            break;
        }
        }
    }
    fputs("</body>\n</html>\n", f);
    return TRV_OK;
}

/* ---- reading the run ---------------------------------------------------------- */

typedef struct run {
    const char *dir;
    char path[PATH_MAX];    /* scratch: the last path made by P() */
} run;

static const char *P(run *r, const char *name)
{
    sfmt(r->path, sizeof r->path, "%s/%s", r->dir, name);
    return r->path;
}

static int is_png(const char *path)
{
    FILE *f = fopen(path, "rb");
    unsigned char sig[8] = {0};
    size_t n = f ? fread(sig, 1, 8, f) : 0;
    if (f)
        fclose(f);
    return n == 8 && !memcmp(sig, "\x89PNG\r\n\x1a\n", 8);
}

static const char *meta(GDALDatasetH ds, const char *key)
{
    const char *v = GDALGetMetadataItem(ds, key, NULL);
    return v ? v : "";
}

static char *crs_label(GDALDatasetH ds)
{
    OGRSpatialReferenceH srs = GDALGetSpatialRef(ds);
    if (!srs)
        return strdup("none");
    const char *a = OSRGetAuthorityName(srs, NULL), *c = OSRGetAuthorityCode(srs, NULL);
    if (a && c)
        return fmt("%s:%s", a, c);
    return strdup(OSRGetName(srs) ? OSRGetName(srs) : "unknown");
}

static trv_status open_raster(trv_ctx *ctx, const char *path, GDALDatasetH *out)
{
    CPLErrorReset();
    *out = GDALOpenEx(path, GDAL_OF_RASTER | GDAL_OF_READONLY, NULL, NULL, NULL);
    if (!*out)
        return trv_error(ctx, TRV_ERR_IO, "cannot open '%s': %s", path, geo_gdal_msg("not a format GDAL recognises"));
    if (GDALGetRasterCount(*out) < 1) {
        GDALClose(*out);
        *out = NULL;
        return trv_error(ctx, TRV_ERR_FORMAT, "cannot open '%s': no band", path);
    }
    return TRV_OK;
}

/* Band 1, whole, as type t (GDT_Byte or GDT_Float32); malloc'ed. */
static trv_status read_band(trv_ctx *ctx, GDALDatasetH ds, const char *path, GDALDataType t, void **buf)
{
    int nx = GDALGetRasterXSize(ds), ny = GDALGetRasterYSize(ds);
    *buf = malloc((size_t)nx * (size_t)ny * (size_t)GDALGetDataTypeSizeBytes(t));
    if (!*buf)
        return trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
    CPLErrorReset();
    if (GDALRasterIO(GDALGetRasterBand(ds, 1), GF_Read, 0, 0, nx, ny, *buf, nx, ny, t, 0, 0) != CE_None) {
        free(*buf);
        *buf = NULL;
        return trv_error(ctx, TRV_ERR_FORMAT, "cannot read '%s': %s", path, geo_gdal_msg("not a format GDAL recognises"));
    }
    return TRV_OK;
}

/* The value of option opt in a TRV_ARGS command line ("--soil x.tif"),
 * single quotes removed; "" if absent. */
static void arg_value(const char *args, const char *opt, char *out, size_t n)
{
    out[0] = '\0';
    size_t ol = strlen(opt);
    for (const char *p = args; (p = strstr(p, opt)); p += ol) {
        if ((p != args && p[-1] != ' ') || p[ol] != ' ')
            continue;
        const char *v = p + ol + 1;
        size_t k = 0;
        int q = 0;
        for (; *v && (q || *v != ' ') && k + 1 < n; v++) {
            if (*v == '\'') {
                q = !q;
                continue;
            }
            out[k++] = *v;
        }
        out[k] = '\0';
        return;
    }
}

/* ---- sections ------------------------------------------------------------------- */

static const char *const PRODUCTS[] = {"dem_kriged.tif", "dem_std.tif", "dem.tif",   "slope.tif", "soil.tif",
                                       "landuse.tif",    "speed.tif",   "gonogo.tif", "cost.tif",  "class.tif"};

static trv_status sec_inputs(trv_ctx *ctx, doc *d, run *r)
{
    doc_h(d, 2, "Inputs and provenance");
    /* the sources, as the stages recorded them */
    char dem_in[PATH_MAX] = "", soil[PATH_MAX] = "", landuse[PATH_MAX] = "", vehicle[PATH_MAX] = "",
                          rules[PATH_MAX] = "", soils[PATH_MAX] = "", lu_classes[PATH_MAX] = "";
    if (rnd_prj_exists(P(r, "krige.txt"))) {
        char *t = rnd_prj_read_file(r->path, NULL);
        const char *p = t ? strstr(t, "input: '") : NULL;
        if (p)
            sscanf(p + 8, "%4095[^']", dem_in);
        free(t);
    }
    struct {
        const char *file, *opt;
        char *dst;
    } A[] = {{"dem.tif", "--soil", soil},         {"dem.tif", "--landuse", landuse},
             {"dem.tif", "--soil-classes", soils}, {"dem.tif", "--landuse-classes", lu_classes},
             {"speed.tif", "--vehicle", vehicle},  {"cost.tif", "--rules", rules}};
    for (size_t k = 0; k < sizeof A / sizeof A[0]; k++) {
        if (!rnd_prj_exists(P(r, A[k].file)))
            continue;
        GDALDatasetH ds;
        trv_status st = open_raster(ctx, r->path, &ds);
        if (st)
            return st;
        arg_value(meta(ds, "TRV_ARGS"), A[k].opt, A[k].dst, PATH_MAX);
        GDALClose(ds);
    }
    doc_p(d, "The sources, as the stages recorded them in their outputs' metadata (paths as given on their "
             "command lines; rasters described when readable from here):");
    block *t = doc_table(d, "llllll", "role", "file", "CRS", "size (cells)", "cell size", "note");
    struct {
        const char *role, *path;
        int raster;
    } S[] = {{"elevation", dem_in, 1},        {"soil map", soil, 1},      {"land-use map", landuse, 1},
             {"soil classes", soils, 0},      {"land-use classes", lu_classes, 0}, {"vehicle", vehicle, 0},
             {"fuzzy rules", rules, 0}};
    for (size_t k = 0; k < sizeof S / sizeof S[0]; k++) {
        if (!*S[k].path)
            continue;
        GDALDatasetH ds = NULL;
        if (S[k].raster && rnd_prj_exists(S[k].path)) {
            CPLErrorReset();
            ds = GDALOpenEx(S[k].path, GDAL_OF_RASTER | GDAL_OF_READONLY, NULL, NULL, NULL);
        }
        if (ds) {
            double gt[6] = {0, 1, 0, 0, 0, 1};
            GDALGetGeoTransform(ds, gt);
            OGRSpatialReferenceH srs = GDALGetSpatialRef(ds);
            int geog = srs && OSRIsGeographic(srs);
            doc_row(d, t, strdup(S[k].role), fmt("`%s`", S[k].path), crs_label(ds),
                    fmt("%d x %d", GDALGetRasterXSize(ds), GDALGetRasterYSize(ds)),
                    geog ? fmt("%.4g\" x %.4g\"", gt[1] * 3600, fabs(gt[5]) * 3600)
                         : fmt("%.4g x %.4g m", gt[1], fabs(gt[5])),
                    fmt("%s", GDALGetDataTypeName(GDALGetRasterDataType(GDALGetRasterBand(ds, 1)))));
            GDALClose(ds);
        } else {
            doc_row(d, t, strdup(S[k].role), fmt("`%s`", S[k].path), strdup(""), strdup(""), strdup(""),
                    strdup(S[k].raster ? "not found from here" : ""));
        }
    }
    if (t && t->nrows == 0)
        doc_p(d, "(no source recorded: the run's metadata names none)");

    doc_p(d, "The layers of the run (`TRV_TOOL`, `TRV_ARGS` and `TRV_SEED` are the metadata items every "
             "GeoTIFF of traverse carries):");
    t = doc_table(d, "llllrll", "file", "layer", "CRS", "size (cells)", "cell size (m)", "made by", "seed");
    char cmds[16][2048];
    int ncmds = 0;
    for (size_t k = 0; k < sizeof PRODUCTS / sizeof PRODUCTS[0]; k++) {
        if (!rnd_prj_exists(P(r, PRODUCTS[k])))
            continue;
        GDALDatasetH ds;
        trv_status st = open_raster(ctx, r->path, &ds);
        if (st)
            return st;
        double gt[6] = {0, 1, 0, 0, 0, 1};
        GDALGetGeoTransform(ds, gt);
        GDALRasterBandH band = GDALGetRasterBand(ds, 1);
        const char *desc = GDALGetDescription(band), *unit = GDALGetRasterUnitType(band);
        const char *seed = meta(ds, "TRV_SEED");
        doc_row(d, t, fmt("`%s`", PRODUCTS[k]),
                fmt("%s%s%s%s", desc ? desc : "", unit && *unit ? " (" : "", unit ? unit : "", unit && *unit ? ")" : ""),
                crs_label(ds), fmt("%d x %d", GDALGetRasterXSize(ds), GDALGetRasterYSize(ds)), fmt("%g", gt[1]),
                fmt("%s%s%s", *meta(ds, "TRV_TOOL") ? "`" : "", meta(ds, "TRV_TOOL"), *meta(ds, "TRV_TOOL") ? "`" : ""),
                strdup(*seed ? seed : "-"));
        const char *args = meta(ds, "TRV_ARGS");
        int dup = 0;
        for (int c = 0; c < ncmds; c++)
            dup |= !strcmp(cmds[c], args);
        if (*args && !dup && ncmds < 16)
            sfmt(cmds[ncmds++], sizeof cmds[0], "%s", args);
        GDALClose(ds);
    }
    /* the roadmap records its command too (GeoPackage metadata) */
    if (rnd_prj_exists(P(r, "roadmap.gpkg"))) {
        CPLErrorReset();
        GDALDatasetH ds = GDALOpenEx(r->path, GDAL_OF_VECTOR | GDAL_OF_READONLY, NULL, NULL, NULL);
        if (!ds)
            return trv_error(ctx, TRV_ERR_IO, "cannot open '%s': %s", r->path, geo_gdal_msg("not a format GDAL recognises"));
        const char *args = meta(ds, "TRV_ARGS");
        if (*args && ncmds < 16)
            sfmt(cmds[ncmds++], sizeof cmds[0], "%s", args);
        GDALClose(ds);
    }
    if (ncmds) {
        doc_p(d, "The commands that made them:");
        for (int c = 0; c < ncmds; c++)
            doc_li(d, "`%s`", cmds[c]);
        doc_end_list(d);
    }
    return TRV_OK;
}

typedef struct fstats {
    double min, max, mean;
    size_t n;
} fstats;

static trv_status float_stats(trv_ctx *ctx, const char *path, fstats *s)
{
    GDALDatasetH ds;
    trv_status st = open_raster(ctx, path, &ds);
    if (st)
        return st;
    float *v = NULL;
    st = read_band(ctx, ds, path, GDT_Float32, (void **)&v);
    int has_nd = 0;
    double nd = GDALGetRasterNoDataValue(GDALGetRasterBand(ds, 1), &has_nd);
    size_t n = (size_t)GDALGetRasterXSize(ds) * (size_t)GDALGetRasterYSize(ds);
    GDALClose(ds);
    if (st)
        return st;
    s->min = INFINITY;
    s->max = -INFINITY;
    double sum = 0;
    s->n = 0;
    for (size_t i = 0; i < n; i++) {
        if (isnan(v[i]) || (has_nd && v[i] == (float)nd))
            continue;
        s->min = fmin(s->min, v[i]);
        s->max = fmax(s->max, v[i]);
        sum += v[i];
        s->n++;
    }
    s->mean = s->n ? sum / (double)s->n : NAN;
    free(v);
    if (!s->n)
        return trv_error(ctx, TRV_ERR_DATA, "'%s' holds no data", path);
    return TRV_OK;
}

static trv_status sec_terrain(trv_ctx *ctx, doc *d, run *r)
{
    doc_h(d, 2, "Terrain");
    fstats dem, slope;
    trv_status st = float_stats(ctx, P(r, "dem.tif"), &dem);
    if (!st)
        st = float_stats(ctx, P(r, "slope.tif"), &slope);
    if (st)
        return st;
    GDALDatasetH ds;
    if ((st = open_raster(ctx, P(r, "dem.tif"), &ds)))
        return st;
    double gt[6] = {0, 1, 0, 0, 0, 1};
    GDALGetGeoTransform(ds, gt);
    char *crs = crs_label(ds);
    doc_p(d, "Grid: %d x %d cells of %g m, %s; %zu cells with elevation (%.1f km²).", GDALGetRasterXSize(ds),
          GDALGetRasterYSize(ds), gt[1], crs ? crs : "?", dem.n, (double)dem.n * gt[1] * fabs(gt[5]) / 1e6);
    free(crs);
    GDALClose(ds);
    block *t = doc_table(d, "lrrr", "layer", "min", "mean", "max");
    doc_row(d, t, strdup("elevation (m)"), fmt("%.1f", dem.min), fmt("%.1f", dem.mean), fmt("%.1f", dem.max));
    doc_row(d, t, strdup("slope (°)"), fmt("%.2f", slope.min), fmt("%.2f", slope.mean), fmt("%.2f", slope.max));
    return TRV_OK;
}

static trv_status sec_kriging(trv_ctx *ctx, doc *d, run *r)
{
    doc_h(d, 2, "Kriging: variogram and cross-validation");
    if (!rnd_prj_exists(P(r, "krige.txt"))) {
        doc_p(d, "Absent: `krige.txt` is not in the run directory (the DEM was not refined by `trv-krige` here).");
        return TRV_OK;
    }
    char *text = rnd_prj_read_file(r->path, NULL);
    if (!text)
        return trv_error(ctx, TRV_ERR_IO, "cannot read '%s': %s", r->path, strerror(errno));
    const char *model = strstr(text, "\nmodel: ");
    if (!model) {
        free(text);
        return trv_error(ctx, TRV_ERR_FORMAT, "cannot read '%s': no 'model:' line", r->path);
    }
    char chosen[512] = "";
    sscanf(model + 8, "%511[^\n]", chosen);
    /* the summary lines, as trv-krige printed them */
    /* not "time:": wall-clock measures change from run to run (so do
     * route_stats.csv's plan_s and the simulator's wall_time_s, also left out) */
    static const char *const KEYS[] = {"input: ", "working CRS: ", "sample variogram: ", "model: ", "grid: "};
    for (size_t k = 0; k < sizeof KEYS / sizeof KEYS[0]; k++) {
        for (const char *p = text; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL) {
            if (strncmp(p, KEYS[k], strlen(KEYS[k])))
                continue;
            int len = (int)strcspn(p, "\n");
            doc_li(d, "%.*s", len, p);
            break;
        }
    }
    doc_end_list(d);
    /* candidates: "  Sph   full       Sph nugget ..., psill ..., range ...; rmse X" */
    block *t = NULL;
    for (const char *p = text; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL) {
        char mname[16], variant[32], params[512];
        double rmse;
        if (p[0] != ' ' || sscanf(p, " %15s %31s %511[^;]; rmse %lf", mname, variant, params, &rmse) != 4)
            continue;
        if (!t) {
            doc_p(d, "Candidate models and their leave-one-out cross-validation RMSE (m); the chosen one in bold:");
            t = doc_table(d, "lllr", "model", "fit", "parameters", "LOOCV RMSE (m)");
        }
        int is_chosen = !strcmp(params, chosen);
        doc_row(d, t, fmt(is_chosen ? "**%s**" : "%s", mname), fmt(is_chosen ? "**%s**" : "%s", variant),
                fmt(is_chosen ? "**%s**" : "%s", params), fmt(is_chosen ? "**%.4f**" : "%.4f", rmse));
    }
    /* any cross-validation summary trv-krige --cv added */
    for (const char *p = text; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL) {
        int len = (int)strcspn(p, "\n");
        if (len > 0 && p[0] != ' ' && strncmp(p, "candidates", 10) && (strstr(p, "RMSE") || strstr(p, "cross-validation")) &&
            (size_t)(strstr(p, "RMSE") ? strstr(p, "RMSE") - p : 0) < (size_t)len)
            doc_p(d, "%.*s", len, p);
    }
    free(text);

    if (!rnd_prj_exists(P(r, "variogram.csv"))) {
        doc_p(d, "The sample variogram (`variogram.csv`) is absent.");
        return TRV_OK;
    }
    trv_csv *csv = NULL;
    trv_status st = trv_csv_read(ctx, r->path, &csv);
    int cnp, cd, cg, cm = -1;
    if (!st && !(st = trv_csv_require(ctx, csv, "np", &cnp)) && !(st = trv_csv_require(ctx, csv, "dist", &cd)) &&
        !(st = trv_csv_require(ctx, csv, "gamma", &cg)))
        cm = trv_csv_col(csv, "model_gamma");
    if (!st) {
        doc_p(d, "The sample variogram (`variogram.csv`) and the chosen model at each lag:");
        t = doc_table(d, cm >= 0 ? "rrrrr" : "rrrr", "lag", "pairs", "distance (m)", "semivariance (m²)",
                      cm >= 0 ? "model (m²)" : NULL);
        for (size_t i = 0; i < trv_csv_nrows(csv) && !st; i++) {
            double np, dist, g, m = NAN;
            if ((st = trv_csv_double(ctx, csv, i, cnp, &np)) || (st = trv_csv_double(ctx, csv, i, cd, &dist)) ||
                (st = trv_csv_double(ctx, csv, i, cg, &g)) || (cm >= 0 && (st = trv_csv_double(ctx, csv, i, cm, &m))))
                break;
            if (cm >= 0)
                doc_row(d, t, fmt("%zu", i + 1), fmt("%.0f", np), fmt("%.1f", dist), fmt("%.1f", g), fmt("%.1f", m));
            else
                doc_row(d, t, fmt("%zu", i + 1), fmt("%.0f", np), fmt("%.1f", dist), fmt("%.1f", g));
        }
    }
    trv_csv_free(csv);
    return st;
}

static trv_status sec_vehicle(trv_ctx *ctx, doc *d, run *r)
{
    doc_h(d, 2, "Vehicle and terramechanics");
    if (rnd_prj_exists(P(r, "speed.txt"))) {
        char *text = rnd_prj_read_file(r->path, NULL);
        if (!text)
            return trv_error(ctx, TRV_ERR_IO, "cannot read '%s': %s", r->path, strerror(errno));
        static const char *const KEYS[] = {"vehicle: ", "MI ", "in force: ", "traction check", "GO: ", "speed over"};
        for (size_t k = 0; k < sizeof KEYS / sizeof KEYS[0]; k++)
            for (const char *p = text; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL)
                if (!strncmp(p, KEYS[k], strlen(KEYS[k]))) {
                    doc_li(d, "%.*s", (int)strcspn(p, "\n"), p);
                    break;
                }
        doc_end_list(d);
        free(text);
    } else {
        doc_p(d, "`speed.txt` (the trv-speed report) is absent.");
    }
    if (!rnd_prj_exists(P(r, "speed_report.csv"))) {
        doc_p(d, "The per-soil table (`speed_report.csv`) is absent.");
        return TRV_OK;
    }
    trv_csv *csv = NULL;
    trv_status st = trv_csv_read(ctx, r->path, &csv);
    int ccode = 0, cname = 0;
    if (!st && !(st = trv_csv_require(ctx, csv, "code", &ccode)))
        st = trv_csv_require(ctx, csv, "name", &cname);
    if (!st) {
        doc_p(d, "Per soil (`speed_report.csv`: cone index, tyre mode, sinkage, resistance, speeds, pass):");
        int nc = trv_csv_ncols(csv);
        block *t = doc_add(d, B_TABLE);
        if (t) {
            t->ncols = nc;
            t->align = calloc((size_t)nc + 1, 1);
            t->cells = calloc((size_t)nc, sizeof *t->cells);
            if (!t->align || !t->cells)
                d->oom = 1;
            for (int c = 0; c < nc && !d->oom; c++) {
                t->cells[c] = strdup(trv_csv_header(csv, c));
                char *end;
                const char *v = trv_csv_nrows(csv) ? trv_csv_cell(csv, 0, c) : "";
                strtod(v, &end);
                t->align[c] = *v && !*end ? 'r' : 'l';
            }
            for (size_t i = 0; i < trv_csv_nrows(csv) && !d->oom; i++) {
                char **cells = realloc(t->cells, (size_t)(t->nrows + 2) * (size_t)nc * sizeof *cells);
                if (!cells) {
                    d->oom = 1;
                    break;
                }
                t->cells = cells;
                for (int c = 0; c < nc; c++)
                    cells[(size_t)(t->nrows + 1) * (size_t)nc + (size_t)c] = strdup(trv_csv_cell(csv, i, c));
                t->nrows++;
            }
        }
    }
    trv_csv_free(csv);
    return st;
}

/* Counts of the codes of a Byte layer, and its category names. */
static trv_status byte_counts(trv_ctx *ctx, const char *path, size_t count[256], char names[256][64], double *cell_km2,
                              size_t *ncells)
{
    GDALDatasetH ds;
    trv_status st = open_raster(ctx, path, &ds);
    if (st)
        return st;
    if (GDALGetRasterDataType(GDALGetRasterBand(ds, 1)) != GDT_Byte) {
        GDALClose(ds);
        return trv_error(ctx, TRV_ERR_FORMAT, "'%s' is not a Byte layer", path);
    }
    unsigned char *v = NULL;
    st = read_band(ctx, ds, path, GDT_Byte, (void **)&v);
    size_t n = (size_t)GDALGetRasterXSize(ds) * (size_t)GDALGetRasterYSize(ds);
    double gt[6] = {0, 1, 0, 0, 0, 1};
    GDALGetGeoTransform(ds, gt);
    *cell_km2 = fabs(gt[1] * gt[5]) / 1e6;
    char **cat = GDALGetRasterCategoryNames(GDALGetRasterBand(ds, 1));
    for (int c = 0; c < 256; c++)
        sfmt(names[c], 64, "%s", cat && c < CSLCount(cat) ? cat[c] : "");
    GDALClose(ds);
    if (st)
        return st;
    memset(count, 0, 256 * sizeof *count);
    for (size_t i = 0; i < n; i++)
        count[v[i]]++;
    *ncells = n;
    free(v);
    return TRV_OK;
}

static trv_status sec_classes(trv_ctx *ctx, doc *d, run *r)
{
    doc_h(d, 2, "Mobility classes and GO/NOGO");
    size_t cls[256], go[256], ncls = 0, ngo = 0;
    char cls_names[256][64], go_names[256][64];
    double km2_c, km2_g;
    trv_status st = byte_counts(ctx, P(r, "class.tif"), cls, cls_names, &km2_c, &ncls);
    if (!st)
        st = byte_counts(ctx, P(r, "gonogo.tif"), go, go_names, &km2_g, &ngo);
    if (st)
        return st;
    if (ncls != ngo)
        return trv_error(ctx, TRV_ERR_GRID, "'%s' and 'class.tif' differ in size", r->path);
    /* reason 5 is "no data" in gonogo.tif: the cells the fractions are of */
    int nodata_code = -1;
    for (int c = 0; c < 256; c++)
        if (!strcmp(go_names[c], "no data"))
            nodata_code = c;
    size_t with_data = ngo - (nodata_code >= 0 ? go[nodata_code] : 0);
    doc_p(d, "Counted in `class.tif` and `gonogo.tif` (%zu cells, %zu with data: those whose GO/NOGO reason is not "
             "\"no data\"); shares are of the cells with data, areas in km².",
          ngo, with_data);
    block *t = doc_table(d, "rlrrr", "class", "name", "cells", "share", "area (km²)");
    size_t class0_nodata = 0;
    for (int c = 0; c < 256; c++) {
        if (!cls[c] && !*cls_names[c])
            continue;
        size_t k = cls[c];
        if (c == 0 && nodata_code >= 0) {
            /* class 0 holds NOGO and no-data cells alike: split them */
            class0_nodata = go[nodata_code];
            k = k >= class0_nodata ? k - class0_nodata : 0;
        }
        doc_row(d, t, fmt("%d", c), strdup(*cls_names[c] ? cls_names[c] : "(unnamed)"), fmt("%zu", k),
                fmt("%.2f %%", with_data ? 100.0 * (double)k / (double)with_data : 0.0), fmt("%.2f", (double)k * km2_c));
    }
    if (class0_nodata)
        doc_p(d, "Class 0 also holds the %zu cells without data (%.2f km²), not counted above.", class0_nodata,
              (double)class0_nodata * km2_c);
    if (rnd_prj_exists(P(r, "cost.txt"))) {
        char *text = rnd_prj_read_file(r->path, NULL);
        if (!text)
            return trv_error(ctx, TRV_ERR_IO, "cannot read '%s': %s", r->path, strerror(errno));
        static const char *const KEYS[] = {"rules: ", "cost: "};
        for (size_t k = 0; k < sizeof KEYS / sizeof KEYS[0]; k++)
            for (const char *p = text; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL)
                if (!strncmp(p, KEYS[k], strlen(KEYS[k]))) {
                    doc_li(d, "%.*s (`cost.txt`)", (int)strcspn(p, "\n"), p);
                    break;
                }
        doc_end_list(d);
        free(text);
    }
    t = doc_table(d, "rlrrr", "code", "GO/NOGO reason", "cells", "share", "area (km²)");
    for (int c = 0; c < 256; c++) {
        if (!go[c] && !*go_names[c])
            continue;
        if (c == nodata_code)
            doc_row(d, t, fmt("%d", c), strdup(go_names[c]), fmt("%zu", go[c]), strdup("-"),
                    fmt("%.2f", (double)go[c] * km2_g));
        else
            doc_row(d, t, fmt("%d", c), strdup(*go_names[c] ? go_names[c] : "(unnamed)"), fmt("%zu", go[c]),
                    fmt("%.2f %%", with_data ? 100.0 * (double)go[c] / (double)with_data : 0.0),
                    fmt("%.2f", (double)go[c] * km2_g));
    }
    return TRV_OK;
}

static trv_status sec_routes(trv_ctx *ctx, doc *d, run *r)
{
    doc_h(d, 2, "Routes");
    trv_csv *csv = NULL;
    trv_status st = trv_csv_read(ctx, P(r, "route_stats.csv"), &csv);
    static const char *const COLS[] = {"route",       "distance_m", "time_h",       "mean_slope_deg", "max_slope_deg",
                                       "mean_speed_kmh", "mean_cost", "mean_elevation_m", "nogo_samples"};
    enum { NC = sizeof COLS / sizeof COLS[0] };
    int col[NC];
    for (int k = 0; k < NC && !st; k++)
        st = trv_csv_require(ctx, csv, COLS[k], &col[k]);
    if (!st && trv_csv_nrows(csv) == 0)
        st = trv_error(ctx, TRV_ERR_FORMAT, "'%s' has no route", trv_csv_path(csv));
    size_t n = st ? 0 : trv_csv_nrows(csv);
    double *v = st ? NULL : calloc(n * NC, sizeof *v);
    if (!st && !v)
        st = trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
    for (size_t i = 0; i < n && !st; i++)
        for (int k = 1; k < NC && !st; k++)
            st = trv_csv_double(ctx, csv, i, col[k], &v[i * NC + (size_t)k]);
    if (!st) {
        doc_p(d, "From `route_stats.csv`: MDR (shortest distance), MSR (smallest slope), MMCR (smallest mobility "
                 "cost) and time on the roadmap; `grid-*` are the same objectives solved exactly on the raster "
                 "(16-connected), the optimum each roadmap route is measured against.");
        block *t = doc_table(d, "lrrrrrrrr", "route", "distance (km)", "time (h)", "time (min)", "mean slope (°)",
                             "max slope (°)", "mean speed (km/h)", "mean cost", "NOGO samples");
        for (size_t i = 0; i < n; i++) {
            const double *x = &v[i * NC];
            doc_row(d, t, fmt("%s", trv_csv_cell(csv, i, col[0])), fmt("%.2f", x[1] / 1000), fmt("%.3f", x[2]),
                    fmt("%.1f", x[2] * 60), fmt("%.2f", x[3]), fmt("%.2f", x[4]), fmt("%.2f", x[5]), fmt("%.3f", x[6]),
                    fmt("%.0f", x[8]));
        }
        /* each roadmap route against its raster optimum */
        block *g = NULL;
        int cobj = trv_csv_col(csv, "objective");
        for (size_t i = 0; i < n; i++) {
            const char *name = trv_csv_cell(csv, i, col[0]);
            for (size_t j = 0; j < n; j++) {
                const char *gname = trv_csv_cell(csv, j, col[0]);
                if (strncmp(gname, "grid-", 5) || strcmp(gname + 5, name))
                    continue;
                if (!g) {
                    doc_p(d, "Each roadmap route against the raster optimum of the same objective (relative "
                             "difference; the objective is what both minimise):");
                    g = doc_table(d, "lrrrr", "route vs raster optimum", "objective", "distance", "time", "mean cost");
                }
                const double *a = &v[i * NC], *b = &v[j * NC];
                double oa = NAN, ob = NAN;
                if (cobj >= 0) {
                    char *e1, *e2;
                    oa = strtod(trv_csv_cell(csv, i, cobj), &e1);
                    ob = strtod(trv_csv_cell(csv, j, cobj), &e2);
                    if (*e1 || *e2)
                        oa = ob = NAN;
                }
#define REL(x, y) ((y) > 0 ? fmt("%+.1f %%", 100.0 * ((x) / (y) - 1)) : strdup("-"))
                doc_row(d, g, fmt("%s / %s", name, gname), REL(oa, ob), REL(a[1], b[1]), REL(a[2], b[2]),
                        REL(a[6], b[6]));
#undef REL
            }
        }
    }
    free(v);
    trv_csv_free(csv);
    if (st)
        return st;
    if (rnd_prj_exists(P(r, "roadmap.txt"))) {
        char *text = rnd_prj_read_file(r->path, NULL);
        if (!text)
            return trv_error(ctx, TRV_ERR_IO, "cannot read '%s': %s", r->path, strerror(errno));
        doc_p(d, "The roadmap (`roadmap.txt`):");
        for (const char *p = text; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL)
            if (*p != '\n')
                doc_li(d, "%.*s", (int)strcspn(p, "\n"), p);
        doc_end_list(d);
        free(text);
    }
    if (rnd_prj_exists(P(r, "route.txt"))) {
        char *text = rnd_prj_read_file(r->path, NULL);
        if (!text)
            return trv_error(ctx, TRV_ERR_IO, "cannot read '%s': %s", r->path, strerror(errno));
        /* "mmcr: smoothed in 0.004 s, at most 19.9 m from the unsmoothed
         * route": the deviation only (the time is the wall clock's) */
        for (const char *p = text; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL) {
            char name[32];
            double dev;
            if (sscanf(p, "%31[^:\n]: smoothed in %*f s, at most %lf m", name, &dev) == 2)
                doc_li(d, "%s: at most %.1f m from the unsmoothed route", name, dev);
        }
        doc_end_list(d);
        free(text);
    }
    return TRV_OK;
}

/* ---- the simulator's metrics, flattened ------------------------------------ */

/* JSON through json-c (Debian libjson-c-dev, which GDAL itself uses): a
 * well-kept parser rather than one of our own. */
typedef struct flat {
    doc *d;
    block *t;
    int skipped;            /* wall-clock items left out */
} flat;

/* One table row per scalar: nested keys joined with dots, items of lists
 * of objects numbered (key[i]); lists of values shown as JSON. */
static void flatten(flat *f, const char *key, struct json_object *o, int depth)
{
    char sub[256], val[256];
    enum json_type type = json_object_get_type(o);
    if (type == json_type_object && depth < 16) {
        json_object_object_foreach(o, k, v) {
            sfmt(sub, sizeof sub, "%s%s%s", key, *key ? "." : "", k);
            flatten(f, sub, v, depth + 1);
        }
        return;
    }
    if (type == json_type_array && depth < 16) {
        size_t n = json_object_array_length(o);
        enum json_type first = n ? json_object_get_type(json_object_array_get_idx(o, 0)) : json_type_null;
        if (first == json_type_object || first == json_type_array) {
            for (size_t i = 0; i < n; i++) {
                sfmt(sub, sizeof sub, "%s[%zu]", key, i);
                flatten(f, sub, json_object_array_get_idx(o, i), depth + 1);
            }
            return;
        }
    }
    if (type == json_type_double || type == json_type_int)
        sfmt(val, sizeof val, "%.6g", json_object_get_double(o));
    else if (type == json_type_string)
        sfmt(val, sizeof val, "%s", json_object_get_string(o));
    else if (type == json_type_array) { /* [a, b, c], cut after 200 characters */
        size_t n = json_object_array_length(o), k = sfmt(val, sizeof val, "[");
        for (size_t i = 0; i < n && k < 200; i++)
            k += sfmt(val + k, sizeof val - k, "%s%s", i ? ", " : "",
                      json_object_to_json_string_ext(json_object_array_get_idx(o, i), JSON_C_TO_STRING_PLAIN));
        if (k < 200)
            sfmt(val + k, sizeof val - k, "]");
        else
            sfmt(val + 200, sizeof val - 200, " ...");
    } else
        sfmt(val, sizeof val, "%s", json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN));
    /* wall-clock measures differ from run to run: left out, so that the
     * report depends on the simulation only */
    const char *last = strrchr(key, '.') ? strrchr(key, '.') + 1 : key;
    if (!strcmp(last, "wall_time_s") || !strcmp(last, "realtime_factor")) {
        f->skipped++;
        return;
    }
    doc_row(f->d, f->t, strdup(*key ? key : "(value)"), strdup(val));
}

/* The whole text as one JSON value (NULL: not JSON; *why says where). */
static struct json_object *json_parse(const char *text, char *why, size_t n)
{
    struct json_tokener *tok = json_tokener_new();
    if (!tok) {
        sfmt(why, n, "out of memory");
        return NULL;
    }
    size_t len = strlen(text);
    struct json_object *o = json_tokener_parse_ex(tok, text, (int)len);
    enum json_tokener_error e = json_tokener_get_error(tok);
    size_t used = json_tokener_get_parse_end(tok);
    if (o && e == json_tokener_success) {
        while (used < len && isspace((unsigned char)text[used]))
            used++;
        if (used < len) { /* something after the value */
            json_object_put(o);
            o = NULL;
            e = json_tokener_error_parse_unexpected;
        }
    } else if (!o && e == json_tokener_continue) {
        e = json_tokener_error_parse_eof; /* the text ended inside the value */
    }
    if (!o)
        sfmt(why, n, "%s at byte %zu", json_tokener_error_desc(e), used);
    json_tokener_free(tok);
    return o;
}

static int is_sim_run(const char *dir, const char *name)
{
    char path[PATH_MAX];
    sfmt(path, sizeof path, "%s/%s/metrics.json", dir, name);
    return !strncmp(name, "sim", 3) && rnd_prj_exists(path);
}

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* One simulator run: DIR/<sub>/metrics.json and events.jsonl. */
static trv_status sec_sim_run(trv_ctx *ctx, doc *d, run *r, const char *sub)
{
    char rel[PATH_MAX];
    sfmt(rel, sizeof rel, "%s/metrics.json", sub);
    char *text = rnd_prj_read_file(P(r, rel), NULL);
    if (!text)
        return trv_error(ctx, TRV_ERR_IO, "cannot read '%s': %s", r->path, strerror(errno));
    doc_h(d, 3, "%s", sub);
    doc_p(d, "From `%s` (nested keys joined with dots, list items numbered from 0):", rel);
    flat f = {.d = d};
    f.t = doc_table(d, "lr", "metric", "value");
    char why[128];
    struct json_object *o = json_parse(text, why, sizeof why);
    free(text);
    if (!o || json_object_get_type(o) != json_type_object) {
        json_object_put(o);
        return trv_error(ctx, TRV_ERR_FORMAT, "cannot read '%s': not a JSON object (%s)", r->path,
                         o ? "another JSON value" : why);
    }
    flatten(&f, "", o, 0);
    json_object_put(o);
    if (f.skipped)
        doc_p(d, "(%d wall-clock item%s, which differ from run to run, left out.)", f.skipped, f.skipped > 1 ? "s" : "");
    /* the event log: lines, and the number of each "type" */
    sfmt(rel, sizeof rel, "%s/events.jsonl", sub);
    if (rnd_prj_exists(P(r, rel))) {
        text = rnd_prj_read_file(r->path, NULL);
        if (!text)
            return trv_error(ctx, TRV_ERR_IO, "cannot read '%s': %s", r->path, strerror(errno));
        char types[32][64];
        size_t counts[32] = {0}, lines = 0;
        int ntypes = 0;
        for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
            struct json_object *ev = json_parse(line, why, sizeof why), *type = NULL;
            if (!ev || !json_object_object_get_ex(ev, "type", &type)) {
                json_object_put(ev);
                trv_status st = trv_error(ctx, TRV_ERR_FORMAT, "cannot read '%s': event %zu is not a JSON object with a type%s%s",
                                          r->path, lines + 1, ev ? "" : ": ", ev ? "" : why);
                free(text);
                return st;
            }
            lines++;
            const char *name = json_object_get_string(type);
            int k = 0;
            while (k < ntypes && strcmp(types[k], name))
                k++;
            if (k == ntypes && ntypes < 32)
                sfmt(types[ntypes++], sizeof types[0], "%s", name);
            if (k < ntypes)
                counts[k]++;
            json_object_put(ev);
        }
        free(text);
        doc_p(d, "Events (`%s`): %zu.", rel, lines);
        if (ntypes) {
            block *t = doc_table(d, "lr", "event type", "count");
            for (int k = 0; k < ntypes; k++)
                doc_row(d, t, strdup(types[k]), fmt("%zu", counts[k]));
        }
    }
    return TRV_OK;
}

static trv_status sec_sim(trv_ctx *ctx, doc *d, run *r)
{
    doc_h(d, 2, "Simulation");
    char **list = VSIReadDir(r->dir), **runs = NULL;
    for (int i = 0; list && list[i]; i++)
        if (is_sim_run(r->dir, list[i]))
            runs = CSLAddString(runs, list[i]);
    CSLDestroy(list);
    if (!runs) {
        doc_p(d, "Absent: no `sim*/metrics.json` in the run directory (the simulator has not run on it).");
        return TRV_OK;
    }
    qsort(runs, (size_t)CSLCount(runs), sizeof *runs, cmp_str);
    trv_status st = TRV_OK;
    for (int i = 0; runs[i] && !st; i++)
        st = sec_sim_run(ctx, d, r, runs[i]);
    CSLDestroy(runs);
    return st;
}

static trv_status sec_maps(trv_ctx *ctx, doc *d, run *r, const char *md_dir_abs)
{
    doc_h(d, 2, "Maps");
    static const struct {
        const char *name, *caption;
    } M[] = {{"dem", "Terrain: elevation with hillshade"},
             {"slope", "Slope (degrees)"},
             {"speed", "Attainable speed (km/h)"},
             {"gonogo", "GO/NOGO and the NOGO reasons"},
             {"cost", "Fuzzy mobility cost"},
             {"class", "Mobility classes"},
             {"routes", "Routes by strategy, with the roadmap"},
             {"sim", "Simulated drives against the plan"},
             {"sim_replan", "The first re-plan up close: the obstacle, the plan and the drive around it"}};
    char absent[512] = "";
    char absdir[PATH_MAX];
    if (!realpath(r->dir, absdir))
        return trv_error(ctx, TRV_ERR_IO, "cannot resolve '%s': %s", r->dir, strerror(errno));
    for (size_t k = 0; k < sizeof M / sizeof M[0]; k++) {
        char rel[64];
        sfmt(rel, sizeof rel, "png/%s.png", M[k].name);
        if (!rnd_prj_exists(P(r, rel))) {
            size_t len = strlen(absent);
            sfmt(absent + len, sizeof absent - len, "%s`%s`", len ? ", " : "", rel);
            continue;
        }
        if (!is_png(r->path))
            return trv_error(ctx, TRV_ERR_FORMAT, "'%s' is not a PNG file", r->path);
        block *b = doc_add(d, B_IMAGE);
        if (!b)
            break;
        char link[PATH_MAX], reldir[PATH_MAX];
        if (md_dir_abs) {
            rnd_prj_relpath(md_dir_abs, absdir, reldir, sizeof reldir);
            sfmt(link, sizeof link, "%s%s%s", strcmp(reldir, ".") ? reldir : "", strcmp(reldir, ".") ? "/" : "",
                     rel);
        } else {
            sfmt(link, sizeof link, "%s", rel);
        }
        b->text = strdup(M[k].caption);
        b->img_path = strdup(r->path);
        b->img_link = strdup(link);
        d->oom |= !b->text || !b->img_path || !b->img_link;
    }
    if (*absent)
        doc_p(d, "Absent: %s.", absent);
    return TRV_OK;
}

/* ---- the report ------------------------------------------------------------------ */

static trv_status build(trv_ctx *ctx, doc *d, run *r, const char *md_dir_abs)
{
    static const char *const REQUIRED[] = {"route_stats.csv", "class.tif", "gonogo.tif", "dem.tif", "slope.tif"};
    for (size_t k = 0; k < sizeof REQUIRED / sizeof REQUIRED[0]; k++)
        if (!rnd_prj_exists(P(r, REQUIRED[k])))
            return trv_error(ctx, TRV_ERR_IO, "cannot open '%s': %s", r->path, strerror(ENOENT));
    char absdir[PATH_MAX];
    const char *name = r->dir;
    if (realpath(r->dir, absdir) && strrchr(absdir, '/') && strrchr(absdir, '/')[1])
        name = strrchr(absdir, '/') + 1;
    doc_h(d, 1, "Mission report: %s", name);
    doc_p(d, "Made by `trv-report` (traverse %s) from the files of the run directory `%s`: the terrain model, "
             "terramechanics, fuzzy mobility cost, routes and, when present, the simulation. Sections whose "
             "inputs are missing say so.",
          TRV_VERSION, r->dir);
    trv_status st = sec_inputs(ctx, d, r);
    if (!st)
        st = sec_terrain(ctx, d, r);
    if (!st)
        st = sec_kriging(ctx, d, r);
    if (!st)
        st = sec_vehicle(ctx, d, r);
    if (!st)
        st = sec_classes(ctx, d, r);
    if (!st)
        st = sec_routes(ctx, d, r);
    if (!st)
        st = sec_sim(ctx, d, r);
    if (!st)
        st = sec_maps(ctx, d, r, md_dir_abs);
    if (!st && d->oom)
        st = trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
    return st;
}

static trv_status parent_abs(trv_ctx *ctx, trv_outset *set, const char *path, char *abs)
{
    char dir[PATH_MAX];
    sfmt(dir, sizeof dir, "%s", path);
    char *slash = strrchr(dir, '/');
    if (slash)
        *(slash == dir ? slash + 1 : slash) = '\0';
    else
        strcpy(dir, ".");
    trv_status st = trv_outset_mkdir(ctx, set, dir);
    if (!st && !realpath(dir, abs))
        st = trv_error(ctx, TRV_ERR_IO, "cannot resolve '%s': %s", dir, strerror(errno));
    return st;
}

trv_status rnd_report_write(trv_ctx *ctx, const rnd_report_opts *o)
{
    struct stat sb;
    if (!o->dir || stat(o->dir, &sb) != 0)
        return trv_error(ctx, TRV_ERR_IO, "cannot open '%s': %s", o->dir ? o->dir : "", strerror(errno));
    if (!S_ISDIR(sb.st_mode))
        return trv_error(ctx, TRV_ERR_IO, "cannot open '%s': not a directory", o->dir);
    if (!o->md_path && !o->html_path)
        return trv_error(ctx, TRV_ERR_USAGE, "no output");
    trv_outset *set = trv_outset_new();
    if (!set)
        return trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
    run r = {.dir = o->dir};
    doc d = {0};
    char md_abs[PATH_MAX], html_abs[PATH_MAX];
    trv_status st = TRV_OK;
    if (o->md_path)
        st = parent_abs(ctx, set, o->md_path, md_abs);
    if (!st && o->html_path)
        st = parent_abs(ctx, set, o->html_path, html_abs);
    if (!st)
        st = build(ctx, &d, &r, o->md_path ? md_abs : NULL);
    if (!st)
        st = trv_progress(ctx, 0.5, "report");
    for (int k = 0; k < 2 && !st; k++) {
        const char *final = k ? o->html_path : o->md_path;
        if (!final)
            continue;
        const char *tmp = trv_outset_add(set, final);
        FILE *f = tmp ? fopen(tmp, "w") : NULL;
        if (!f) {
            st = trv_error(ctx, TRV_ERR_IO, "cannot create '%s': %s", final, strerror(errno));
            break;
        }
        if (k)
            st = write_html(ctx, f, &d);
        else
            write_md(f, &d);
        if (!st && ferror(f))
            st = trv_error(ctx, TRV_ERR_IO, "cannot write '%s'", final);
        if (fclose(f) != 0 && !st)
            st = trv_error(ctx, TRV_ERR_IO, "cannot write '%s': %s", final, strerror(errno));
    }
    if (!st)
        st = trv_outset_commit(ctx, set);
    trv_outset_free(set);
    doc_clear(&d);
    if (!st)
        st = trv_progress(ctx, 1.0, "report");
    return st;
}
