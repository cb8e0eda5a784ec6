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
#include "report/report.h"

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

/* B_LINK: a link to a file of the run (consecutive ones make one list);
 * B_OPEN, B_CLOSE: an HTML <div class="text"> around the blocks between
 * them (layout only: Markdown has nothing for them). */
typedef enum btype { B_HEADING, B_PARA, B_TABLE, B_IMAGE, B_LIST, B_LINK, B_OPEN, B_CLOSE } btype;

typedef struct block {
    btype type;
    int level;              /* heading level */
    char *text;             /* heading, paragraph, image caption, link description, div class */
    char *id;               /* HTML id attribute, or NULL */
    int ncols, nrows;       /* table: nrows data rows after the header */
    char **cells;           /* (nrows + 1) * ncols; list: nrows items in cells */
    char *align;            /* table: 'l' or 'r' per column */
    char *img_path;         /* image: the file (for HTML); link: the label */
    char *img_link;         /* image, link: the Markdown link */
    char *html_link;        /* link: the HTML link */
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

/* An HTML <div class="cls"> around the blocks up to doc_div_end. */
static void doc_div(doc *d, const char *cls)
{
    block *b = doc_add(d, B_OPEN);
    if (b)
        d->oom |= !(b->text = strdup(cls));
}

static void doc_div_end(doc *d) { doc_add(d, B_CLOSE); }

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
        free(b->html_link);
        free(b->id);
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

static void md_table(FILE *f, const block *b)
{
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
            md_table(f, b);
            break;
        case B_IMAGE:
            fputs("![", f);
            md_text(f, b->text, 1);
            fprintf(f, "](%s)\n\n", b->img_link);
            break;
        case B_LINK:
            fprintf(f, "- [%s](%s): ", b->img_path, b->img_link);
            md_text(f, b->text, 0);
            fputs(i + 1 < d->n && d->b[i + 1].type == B_LINK ? "\n" : "\n\n", f);
            break;
        case B_OPEN:
        case B_CLOSE:
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
        trv_xml_escape(f, c);
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
    "body{font-family:-apple-system,'Segoe UI',Helvetica,Arial,sans-serif;max-width:70em;margin:1.2em auto;"
    "padding:0 1em;color:#222;line-height:1.45;overflow-wrap:anywhere}\n"
    "h1{border-bottom:2px solid #1a9850;padding-bottom:.2em;margin:.2em 0 .4em}h2{border-bottom:1px solid #ddd;"
    "padding-bottom:.15em;margin-top:1.6em}h2#answer{margin-top:.4em}\n"
    "table{border-collapse:collapse;margin:.6em 0 1.2em;font-size:.92em}th,td{border:1px solid #ccc;"
    "padding:.25em .6em}th{background:#f0f3f0}tr:nth-child(even) td{background:#fafafa}td.r,th.r{text-align:right}\n"
    "code{background:#f3f3f3;padding:0 .25em;border-radius:3px;font-size:.92em}\n"
    "figure{margin:1em 0}figure img{max-width:100%;border:1px solid #ccc}figcaption{color:#555;font-size:.9em}\n"
    /* the answer: the map beside the summary, stacked on narrow screens */
    ".answer{display:flex;flex-wrap:wrap;gap:0 1.2em;align-items:flex-start}"
    ".answer figure{flex:3 1 28em;margin:0}.answer figure img{max-height:80vh}"
    ".answer .facts{flex:2 1 22em}.answer table{margin-top:0;width:100%}.answer td:first-child{white-space:nowrap}"
    ".answer p,.answer ul{margin:.3em 0}\n";

static void html_open(FILE *f, const char *tag, const block *b)
{
    fprintf(f, "<%s", tag);
    if (b->id) {
        fputs(" id=\"", f);
        trv_xml_escape(f, b->id);
        fputc('"', f);
    }
    fputc('>', f);
}

static void html_table(FILE *f, const block *b)
{
    html_open(f, "table", b);
    fputc('\n', f);
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
}

static trv_status html_image(trv_ctx *ctx, FILE *f, const block *b)
{
    size_t n = 0;
    char *png = trv_file_slurp(b->img_path, &n);
    if (!png)
        return trv_error(ctx, TRV_ERR_IO, "cannot read '%s': %s", b->img_path, strerror(errno));
    html_open(f, "figure", b);
    fputs("<img alt=\"", f);
    trv_xml_escape(f, b->text);
    fputs("\" src=\"data:image/png;base64,", f);
    base64(f, (const unsigned char *)png, n);
    fputs("\"><figcaption>", f);
    html_text(f, b->text);
    fputs("</figcaption></figure>\n", f);
    free(png);
    return TRV_OK;
}

/* Headings, paragraphs, lists, links and divs; tables and images apart. */
static void html_block(FILE *f, const doc *d, int i)
{
    const block *b = &d->b[i];
    char tag[4];
    switch (b->type) {
    case B_HEADING:
        trv_sfmt(tag, sizeof tag, "h%d", b->level);
        html_open(f, tag, b);
        html_text(f, b->text);
        fprintf(f, "</%s>\n", tag);
        break;
    case B_PARA:
        if (b->text && *b->text) {
            html_open(f, "p", b);
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
    case B_LINK:
        if (!i || d->b[i - 1].type != B_LINK)
            fputs("<ul class=\"files\">\n", f);
        fputs("<li><a href=\"", f);
        trv_xml_escape(f, b->html_link);
        fputs("\">", f);
        trv_xml_escape(f, b->img_path);
        fputs("</a>: ", f);
        html_text(f, b->text);
        fputs("</li>\n", f);
        if (i + 1 == d->n || d->b[i + 1].type != B_LINK)
            fputs("</ul>\n", f);
        break;
    case B_OPEN:
        fputs("<div class=\"", f);
        trv_xml_escape(f, b->text);
        fputs("\">\n", f);
        break;
    case B_CLOSE:
        fputs("</div>\n", f);
        break;
    default:
        break;
    }
}

static trv_status write_html(trv_ctx *ctx, FILE *f, const doc *d)
{
    fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
          "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>", f);
    html_text(f, d->n && d->b[0].type == B_HEADING ? d->b[0].text : "report");
    fprintf(f, "</title>\n<style>\n%s</style>\n</head>\n<body>\n", CSS);
    trv_status st = TRV_OK;
    for (int i = 0; i < d->n && !st; i++) {
        if (d->b[i].type == B_TABLE)
            html_table(f, &d->b[i]);
        else if (d->b[i].type == B_IMAGE)
            st = html_image(ctx, f, &d->b[i]);
        else
            html_block(f, d, i);
    }
    fputs("</body>\n</html>\n", f);
    return st;
}

/* ---- reading the run ---------------------------------------------------------- */

typedef struct run {
    const char *dir;
    char absdir[PATH_MAX];  /* dir, absolute and canonical */
    const char *md_dir;     /* the reports' directories (absolute), or NULL */
    const char *html_dir;
    char path[PATH_MAX];    /* scratch: the last path made by P() */
} run;

static const char *P(run *r, const char *name)
{
    trv_sfmt(r->path, sizeof r->path, "%s/%s", r->dir, name);
    return r->path;
}

/* The link from a report in directory from (absolute; NULL: the run
 * directory itself) to the run's file rel, bytes other than letters,
 * digits, "-._~/" percent-encoded; malloc'ed. */
static char *run_link(const run *r, const char *from, const char *rel)
{
    char reldir[PATH_MAX] = ".", link[2 * PATH_MAX];
    if (from)
        trv_relpath(from, r->absdir, reldir, sizeof reldir);
    trv_sfmt(link, sizeof link, "%s%s%s", strcmp(reldir, ".") ? reldir : "", strcmp(reldir, ".") ? "/" : "", rel);
    char *out = malloc(3 * strlen(link) + 1), *o = out;
    for (const unsigned char *c = (const unsigned char *)link; out && *c; c++) {
        if ((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') || strchr("-._~/", *c))
            *o++ = (char)*c;
        else
            o += sprintf(o, "%%%02X", *c);
    }
    if (o)
        *o = '\0';
    return out;
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

/* ---- the stages' summaries (<stage>.json, docs/summaries.md) ----------------- */

static struct json_object *json_parse(const char *text, char *why, size_t n);

/* The run's summary name, parsed (*out NULL when the file is absent); not
 * a JSON object is an error naming the file. */
static trv_status summary_read(trv_ctx *ctx, run *r, const char *name, struct json_object **out)
{
    *out = NULL;
    if (!trv_file_exists(P(r, name)))
        return TRV_OK;
    char *text = trv_file_slurp(r->path, NULL);
    if (!text)
        return trv_error(ctx, TRV_ERR_IO, "cannot read '%s': %s", r->path, strerror(errno));
    char why[128];
    struct json_object *o = json_parse(text, why, sizeof why);
    free(text);
    if (!o || json_object_get_type(o) != json_type_object) {
        json_object_put(o);
        return trv_error(ctx, TRV_ERR_FORMAT, "cannot read '%s': not a JSON object (%s)", r->path,
                         o ? "another JSON value" : why);
    }
    *out = o;
    return TRV_OK;
}

/* Member key of object o (NULL: o is not an object or has none). */
static struct json_object *jget(struct json_object *o, const char *key)
{
    struct json_object *x = NULL;
    return o && json_object_is_type(o, json_type_object) && json_object_object_get_ex(o, key, &x) ? x : NULL;
}

/* Number, integer, string and flag members; NAN, 0, "" and 0 when absent. */
static double jnum(struct json_object *o, const char *key)
{
    struct json_object *x = jget(o, key);
    return x && !json_object_is_type(x, json_type_null) ? json_object_get_double(x) : NAN;
}
static long long jint(struct json_object *o, const char *key) { return json_object_get_int64(jget(o, key)); }
static const char *jstr(struct json_object *o, const char *key)
{
    const char *s = json_object_get_string(jget(o, key));
    return s ? s : "";
}
static int jbool(struct json_object *o, const char *key) { return json_object_get_boolean(jget(o, key)); }

/* ---- sections ------------------------------------------------------------------- */

static const char *const PRODUCTS[] = {"dem_kriged.tif", "dem_std.tif", "dem.tif",   "slope.tif", "soil.tif",
                                       "landuse.tif",    "speed.tif",   "gonogo.tif", "cost.tif",  "class.tif"};

/* The sources, as the stages recorded them: the kriging's input in
 * krige.json, the others as TRV_INPUT_* metadata items of the layers; ""
 * where none is recorded. In the order of SOURCES. */
enum { NSOURCES = 7 };
static const struct {
    const char *role, *file, *key; /* file, key: the layer and its item (NULL: krige.json) */
    int raster;
} SOURCES[NSOURCES] = {{"elevation", NULL, NULL, 1},
                       {"soil map", "dem.tif", "TRV_INPUT_SOIL", 1},
                       {"land-use map", "dem.tif", "TRV_INPUT_LANDUSE", 1},
                       {"soil classes", "dem.tif", "TRV_INPUT_SOIL_CLASSES", 0},
                       {"land-use classes", "dem.tif", "TRV_INPUT_LANDUSE_CLASSES", 0},
                       {"vehicle", "speed.tif", "TRV_INPUT_VEHICLE", 0},
                       {"fuzzy rules", "cost.tif", "TRV_INPUT_RULES", 0}};

static trv_status source_paths(trv_ctx *ctx, run *r, char path[NSOURCES][PATH_MAX])
{
    struct json_object *krige;
    trv_status st = summary_read(ctx, r, "krige.json", &krige);
    if (st)
        return st;
    trv_sfmt(path[0], PATH_MAX, "%s", jstr(jget(krige, "input"), "path"));
    json_object_put(krige);
    for (int k = 1; k < NSOURCES; k++) {
        path[k][0] = '\0';
        if (!trv_file_exists(P(r, SOURCES[k].file)))
            continue;
        GDALDatasetH ds;
        if ((st = open_raster(ctx, r->path, &ds)))
            return st;
        trv_sfmt(path[k], PATH_MAX, "%s", meta(ds, SOURCES[k].key));
        GDALClose(ds);
    }
    return TRV_OK;
}

/* The table of the sources, rasters described when readable from here. */
static void source_table(doc *d, char path[NSOURCES][PATH_MAX])
{
    doc_p(d, "The sources, as the stages recorded them in their outputs' metadata (paths as given on their "
             "command lines; rasters described when readable from here):");
    block *t = doc_table(d, "llllll", "role", "file", "CRS", "size (cells)", "cell size", "note");
    for (int k = 0; k < NSOURCES; k++) {
        if (!*path[k])
            continue;
        GDALDatasetH ds = NULL;
        if (SOURCES[k].raster && trv_file_exists(path[k])) {
            CPLErrorReset();
            ds = GDALOpenEx(path[k], GDAL_OF_RASTER | GDAL_OF_READONLY, NULL, NULL, NULL);
        }
        if (ds) {
            double gt[6] = {0, 1, 0, 0, 0, 1};
            GDALGetGeoTransform(ds, gt);
            OGRSpatialReferenceH srs = GDALGetSpatialRef(ds);
            int geog = srs && OSRIsGeographic(srs);
            doc_row(d, t, strdup(SOURCES[k].role), fmt("`%s`", path[k]), crs_label(ds),
                    fmt("%d x %d", GDALGetRasterXSize(ds), GDALGetRasterYSize(ds)),
                    geog ? fmt("%.4g\" x %.4g\"", gt[1] * 3600, fabs(gt[5]) * 3600)
                         : fmt("%.4g x %.4g m", gt[1], fabs(gt[5])),
                    fmt("%s", GDALGetDataTypeName(GDALGetRasterDataType(GDALGetRasterBand(ds, 1)))));
            GDALClose(ds);
        } else {
            doc_row(d, t, strdup(SOURCES[k].role), fmt("`%s`", path[k]), strdup(""), strdup(""), strdup(""),
                    strdup(SOURCES[k].raster ? "not found from here" : ""));
        }
    }
    if (t && t->nrows == 0)
        doc_p(d, "(no source recorded: the run's metadata names none)");
}

static trv_status sec_inputs(trv_ctx *ctx, doc *d, run *r)
{
    doc_h(d, 2, "Inputs and provenance");
    if (!d->oom)
        d->oom |= !(d->b[d->n - 1].id = strdup("provenance"));
    doc_p(d, "Made by `trv-report` (traverse %s) from the files of the run directory `%s`: the terrain model, "
             "terramechanics, fuzzy mobility cost, routes and, when present, the simulation. Sections whose "
             "inputs are missing say so.",
          TRV_VERSION, r->dir);
    char (*path)[PATH_MAX] = calloc(NSOURCES, sizeof *path);
    if (!path)
        return trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
    trv_status st = source_paths(ctx, r, path);
    if (!st)
        source_table(d, path);
    free(path);
    if (st)
        return st;

    doc_p(d, "The layers of the run (`TRV_TOOL`, `TRV_ARGS` and `TRV_SEED` are the metadata items every "
             "GeoTIFF of traverse carries):");
    block *t = doc_table(d, "llllrll", "file", "layer", "CRS", "size (cells)", "cell size (m)", "made by", "seed");
    char cmds[16][2048];
    int ncmds = 0;
    for (size_t k = 0; k < sizeof PRODUCTS / sizeof PRODUCTS[0]; k++) {
        if (!trv_file_exists(P(r, PRODUCTS[k])))
            continue;
        GDALDatasetH ds;
        if ((st = open_raster(ctx, r->path, &ds)))
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
            trv_sfmt(cmds[ncmds++], sizeof cmds[0], "%s", args);
        GDALClose(ds);
    }
    /* the roadmap records its command too (GeoPackage metadata) */
    if (trv_file_exists(P(r, "roadmap.gpkg"))) {
        CPLErrorReset();
        GDALDatasetH ds = GDALOpenEx(r->path, GDAL_OF_VECTOR | GDAL_OF_READONLY, NULL, NULL, NULL);
        if (!ds)
            return trv_error(ctx, TRV_ERR_IO, "cannot open '%s': %s", r->path, geo_gdal_msg("not a format GDAL recognises"));
        const char *args = meta(ds, "TRV_ARGS");
        if (*args && ncmds < 16)
            trv_sfmt(cmds[ncmds++], sizeof cmds[0], "%s", args);
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
    doc_h(d, 3, "Terrain");
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

/* A model as trv-krige prints it: "Mat nugget 0, psill 5962.01, range 105.888, kappa 2.5". */
static void model_text(struct json_object *m, const char *type, char *out, size_t n)
{
    int k = trv_sfmt(out, n, "%s nugget %.6g, psill %.6g, range %.6g", type, jnum(m, "nugget"), jnum(m, "psill"),
                     jnum(m, "range"));
    if (jget(m, "kappa") && k >= 0 && (size_t)k < n)
        trv_sfmt(out + k, n - (size_t)k, ", kappa %g", jnum(m, "kappa"));
}

/* krige.json's summary lines (as trv-krige prints them) and its candidates. */
static void krige_lines(doc *d, struct json_object *o, const char *chosen)
{
    struct json_object *in = jget(o, "input"), *v = jget(o, "sample_variogram"), *g = jget(o, "grid"),
                       *m = jget(o, "model"), *cands = jget(o, "candidates"), *cv = jget(o, "cross_validation");
    if (!strcmp(jstr(in, "kind"), "raster"))
        doc_li(d, "input: '%s', %lld samples with data (of %lld cells)", jstr(in, "path"), jint(in, "samples"),
               jint(in, "cells"));
    else
        doc_li(d, "input: '%s', %lld points", jstr(in, "path"), jint(in, "samples"));
    doc_li(d, "working CRS: %s", jstr(o, "working_crs"));
    if (v)
        doc_li(d, "sample variogram: %lld lags to %.6g (width %.6g) from %lld points%s", jint(v, "lags"),
               jnum(v, "cutoff"), jnum(v, "width"), jint(v, "points"),
               jbool(v, "subsample") ? " (seeded subsample)" : " (all pairs)");
    doc_li(d, "model%s: %s", jbool(m, "given") ? " (given)" : "", chosen);
    doc_li(d, "grid: %lld x %lld cells of %g, %s; %lld by stencil, %lld by block systems (%lld factorised), %lld nodata",
           jint(g, "nx"), jint(g, "ny"), jnum(g, "cell"), jstr(g, "crs"), jint(g, "by_stencil"), jint(g, "by_block"),
           jint(g, "factorised"), jint(g, "nodata"));
    doc_end_list(d);
    block *t = NULL;
    size_t n = json_object_is_type(cands, json_type_array) ? json_object_array_length(cands) : 0;
    for (size_t k = 0; k < n; k++) {
        struct json_object *c = json_object_array_get_idx(cands, k);
        if (!jbool(c, "ok"))
            continue;
        if (!t) {
            doc_p(d, "Candidate models and their leave-one-out cross-validation RMSE (m); the chosen one in bold:");
            t = doc_table(d, "lllr", "model", "fit", "parameters", "LOOCV RMSE (m)");
        }
        char params[512];
        model_text(c, jstr(c, "model"), params, sizeof params);
        int is_chosen = !strcmp(params, chosen);
        doc_row(d, t, fmt(is_chosen ? "**%s**" : "%s", jstr(c, "model")), fmt(is_chosen ? "**%s**" : "%s", jstr(c, "fit")),
                fmt(is_chosen ? "**%s**" : "%s", params), fmt(is_chosen ? "**%.4f**" : "%.4f", jnum(c, "rmse")));
    }
    if (cv) /* trv-krige --cv */
        doc_p(d, "leave-one-out (%lld points): RMSE %.6g, MAE %.6g, mean error %.6g, mean squared standardised error %.6g",
              jint(cv, "points"), jnum(cv, "rmse"), jnum(cv, "mae"), jnum(cv, "mean_error"), jnum(cv, "msse"));
}

static trv_status sec_kriging(trv_ctx *ctx, doc *d, run *r)
{
    doc_h(d, 3, "Kriging: variogram and cross-validation");
    struct json_object *o;
    trv_status st = summary_read(ctx, r, "krige.json", &o);
    if (st)
        return st;
    if (!o) {
        doc_p(d, "Absent: `krige.json` is not in the run directory (the DEM was not refined by `trv-krige` here).");
        return TRV_OK;
    }
    struct json_object *model = jget(o, "model");
    if (!model || !*jstr(model, "type")) {
        json_object_put(o);
        return trv_error(ctx, TRV_ERR_FORMAT, "cannot read '%s': no \"model\" with a \"type\"", P(r, "krige.json"));
    }
    char chosen[512];
    model_text(model, jstr(model, "type"), chosen, sizeof chosen);
    krige_lines(d, o, chosen);
    json_object_put(o);

    if (!trv_file_exists(P(r, "variogram.csv"))) {
        doc_p(d, "The sample variogram (`variogram.csv`) is absent.");
        return TRV_OK;
    }
    trv_csv *csv = NULL;
    st = trv_csv_read(ctx, r->path, &csv);
    int cnp, cd, cg, cm = -1;
    if (!st && !(st = trv_csv_require(ctx, csv, "np", &cnp)) && !(st = trv_csv_require(ctx, csv, "dist", &cd)) &&
        !(st = trv_csv_require(ctx, csv, "gamma", &cg)))
        cm = trv_csv_col(csv, "model_gamma");
    if (!st) {
        doc_p(d, "The sample variogram (`variogram.csv`) and the chosen model at each lag:");
        block *t = doc_table(d, cm >= 0 ? "rrrrr" : "rrrr", "lag", "pairs", "distance (m)", "semivariance (m²)",
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

/* speed.json's lines, as trv-speed prints them. */
static void speed_lines(doc *d, struct json_object *o)
{
    struct json_object *v = jget(o, "vehicle"), *c = jget(o, "vci"), *n = jget(o, "cells"), *s = jget(o, "speed_go_kmh");
    doc_li(d, "vehicle: %s (%s, %.0f kg, %.1f kW, eta %.2f, top %.0f km/h, max slope %.1f deg)", jstr(v, "name"),
           jstr(v, "kind"), jnum(v, "gross_mass_kg"), jnum(v, "engine_power_kW"), jnum(v, "drivetrain_efficiency"),
           jnum(v, "top_speed_kmh"), jnum(v, "max_slope_deg"));
    doc_li(d, "MI %.2f; VCI1 %.2f RCI = %.1f kPa; VCI50 %.2f RCI = %.1f kPa (NRMM formulas)", jnum(c, "mi"),
           jnum(c, "vci1_rci"), jnum(c, "vci1_nrmm_kPa"), jnum(c, "vci50_rci"), jnum(c, "vci50_nrmm_kPa"));
    int o1 = jbool(c, "vci1_overridden"), o50 = jbool(c, "vci50_overridden");
    if (o1 || o50)
        doc_li(d, "in force: VCI1 %.1f kPa%s, VCI50 %.1f kPa%s", jnum(c, "vci1_kPa"),
               o1 ? " (the vehicle file's override)" : "", jnum(c, "vci50_kPa"),
               o50 ? " (the vehicle file's override)" : "");
    if (!jbool(o, "traction_check"))
        doc_li(d, "traction check skipped: the soil table has no c_kPa, phi_deg, K_m columns");
    double data = (double)jint(n, "with_data");
    doc_li(d, "GO: %.1f %% of the cells with data (%lld of %.0f); NOGO by slope %lld, soil %lld, land use %lld, "
              "traction %lld; no data %lld",
           data > 0 ? 100.0 * (double)jint(n, "go") / data : 0, jint(n, "go"), data, jint(n, "nogo_slope"),
           jint(n, "nogo_soil"), jint(n, "nogo_landuse"), jint(n, "nogo_traction"), jint(n, "nodata"));
    doc_li(d, "speed over GO cells: mean %.2f km/h, max %.2f km/h", jnum(s, "mean"), jnum(s, "max"));
    doc_end_list(d);
}

static trv_status sec_vehicle(trv_ctx *ctx, doc *d, run *r)
{
    doc_h(d, 3, "Vehicle and terramechanics");
    struct json_object *o;
    trv_status st = summary_read(ctx, r, "speed.json", &o);
    if (st)
        return st;
    if (o)
        speed_lines(d, o);
    else
        doc_p(d, "`speed.json` (the trv-speed summary) is absent.");
    json_object_put(o);
    if (!trv_file_exists(P(r, "speed_report.csv"))) {
        doc_p(d, "The per-soil table (`speed_report.csv`) is absent.");
        return TRV_OK;
    }
    trv_csv *csv = NULL;
    st = trv_csv_read(ctx, r->path, &csv);
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

/* Category names of a Byte layer's band 1 ("" where none). */
static void cat_names(GDALDatasetH ds, char names[256][64])
{
    /* GDAL's GeoTIFF driver reads the .aux.xml sidecar, where the names may
     * be, only once something asks for the georeferencing */
    double gt[6];
    GDALGetGeoTransform(ds, gt);
    char **cat = GDALGetRasterCategoryNames(GDALGetRasterBand(ds, 1));
    for (int c = 0; c < 256; c++)
        trv_sfmt(names[c], 64, "%s", cat && c < CSLCount(cat) ? cat[c] : "");
}

static trv_status class_names(trv_ctx *ctx, const char *path, char names[256][64])
{
    GDALDatasetH ds;
    trv_status st = open_raster(ctx, path, &ds);
    if (st)
        return st;
    cat_names(ds, names);
    GDALClose(ds);
    return TRV_OK;
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
    cat_names(ds, names);
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
    doc_h(d, 3, "Mobility classes and GO/NOGO");
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
    struct json_object *o;
    if ((st = summary_read(ctx, r, "cost.json", &o)))
        return st;
    if (o) {
        doc_li(d, "rules: '%s', %lld rules, %s (`cost.json`)", jstr(jget(o, "inputs"), "rules"), jint(o, "rule_count"),
               jstr(o, "defuzzifier"));
        doc_li(d, "cost: mean %.4f over the GO cells (`cost.json`)", jnum(o, "cost_mean_go"));
        doc_end_list(d);
        json_object_put(o);
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

/* route_stats.csv, the columns the report uses (v: nrows x RS_NC, column
 * RS_NAME unused: the names are the CSV's cells). */
enum { RS_NAME, RS_DIST, RS_TIME, RS_MSLOPE, RS_XSLOPE, RS_SPEED, RS_COST, RS_ELEV, RS_NOGO, RS_NC };

typedef struct rstats {
    trv_csv *csv;
    int col[RS_NC];
    size_t n;
    double *v;
} rstats;

static const char *rs_name(const rstats *rs, size_t i) { return trv_csv_cell(rs->csv, i, rs->col[RS_NAME]); }
static double rs_val(const rstats *rs, size_t i, int k) { return rs->v[i * RS_NC + (size_t)k]; }

static size_t pick_route(const rstats *rs, int *is_mmcr);
/* The map of the recommended route alone, png/route_<name>.png (the
 * Makefile draws it with trv-render --route), in rel; 1 when it exists. */
static int route_map(run *r, const rstats *rs, char *rel, size_t n);
static trv_status doc_image(trv_ctx *ctx, doc *d, run *r, const char *rel, const char *caption, const char *id,
                            int *added);

/* The row of route name, or -1. */
static long rs_find(const rstats *rs, const char *name)
{
    for (size_t i = 0; i < rs->n; i++)
        if (!strcmp(rs_name(rs, i), name))
            return (long)i;
    return -1;
}

static void rs_free(rstats *rs)
{
    trv_csv_free(rs->csv);
    free(rs->v);
    memset(rs, 0, sizeof *rs);
}

static trv_status rs_read(trv_ctx *ctx, run *r, rstats *rs)
{
    static const char *const COLS[RS_NC] = {"route",         "distance_m", "time_h",           "mean_slope_deg",
                                            "max_slope_deg", "mean_speed_kmh", "mean_cost", "mean_elevation_m",
                                            "nogo_samples"};
    memset(rs, 0, sizeof *rs);
    trv_status st = trv_csv_read(ctx, P(r, "route_stats.csv"), &rs->csv);
    for (int k = 0; k < RS_NC && !st; k++)
        st = trv_csv_require(ctx, rs->csv, COLS[k], &rs->col[k]);
    if (!st && trv_csv_nrows(rs->csv) == 0)
        st = trv_error(ctx, TRV_ERR_FORMAT, "'%s' has no route", trv_csv_path(rs->csv));
    rs->n = st ? 0 : trv_csv_nrows(rs->csv);
    rs->v = st ? NULL : calloc(rs->n * RS_NC, sizeof *rs->v);
    if (!st && !rs->v)
        st = trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
    for (size_t i = 0; i < rs->n && !st; i++)
        for (int k = 1; k < RS_NC && !st; k++)
            st = trv_csv_double(ctx, rs->csv, i, rs->col[k], &rs->v[i * RS_NC + (size_t)k]);
    if (st)
        rs_free(rs);
    return st;
}

/* Each roadmap route against the raster optimum of the same objective. */
static void routes_vs_grid(doc *d, const rstats *rs)
{
    block *g = NULL;
    int cobj = trv_csv_col(rs->csv, "objective");
    for (size_t i = 0; i < rs->n; i++) {
        const char *name = rs_name(rs, i);
        for (size_t j = 0; j < rs->n; j++) {
            const char *gname = rs_name(rs, j);
            if (strncmp(gname, "grid-", 5) || strcmp(gname + 5, name))
                continue;
            if (!g) {
                doc_p(d, "Each roadmap route against the raster optimum of the same objective (relative "
                         "difference; the objective is what both minimise):");
                g = doc_table(d, "lrrrr", "route vs raster optimum", "objective", "distance", "time", "mean cost");
            }
            double oa = NAN, ob = NAN;
            if (cobj >= 0) {
                char *e1, *e2;
                oa = strtod(trv_csv_cell(rs->csv, i, cobj), &e1);
                ob = strtod(trv_csv_cell(rs->csv, j, cobj), &e2);
                if (*e1 || *e2)
                    oa = ob = NAN;
            }
#define REL(x, y) ((y) > 0 ? fmt("%+.1f %%", 100.0 * ((x) / (y) - 1)) : strdup("-"))
            doc_row(d, g, fmt("%s / %s", name, gname), REL(oa, ob), REL(rs_val(rs, i, RS_DIST), rs_val(rs, j, RS_DIST)),
                    REL(rs_val(rs, i, RS_TIME), rs_val(rs, j, RS_TIME)), REL(rs_val(rs, i, RS_COST), rs_val(rs, j, RS_COST)));
#undef REL
        }
    }
}

static trv_status sec_routes(trv_ctx *ctx, doc *d, run *r, const rstats *rs)
{
    doc_h(d, 2, "Strategies compared");
    doc_p(d, "From `route_stats.csv`: MDR (shortest distance), MSR (smallest slope), MMCR (smallest mobility "
             "cost) and time on the roadmap; `grid-*` are the same objectives solved exactly on the raster "
             "(16-connected), the optimum each roadmap route is measured against.");
    block *t = doc_table(d, "lrrrrrrrr", "route", "distance (km)", "time (h)", "time (min)", "mean slope (°)",
                         "max slope (°)", "mean speed (km/h)", "mean cost", "NOGO samples");
    for (size_t i = 0; i < rs->n; i++)
        doc_row(d, t, fmt("%s", rs_name(rs, i)), fmt("%.2f", rs_val(rs, i, RS_DIST) / 1000),
                fmt("%.3f", rs_val(rs, i, RS_TIME)), fmt("%.1f", rs_val(rs, i, RS_TIME) * 60),
                fmt("%.2f", rs_val(rs, i, RS_MSLOPE)), fmt("%.2f", rs_val(rs, i, RS_XSLOPE)),
                fmt("%.2f", rs_val(rs, i, RS_SPEED)), fmt("%.3f", rs_val(rs, i, RS_COST)),
                fmt("%.0f", rs_val(rs, i, RS_NOGO)));
    routes_vs_grid(d, rs);
    char rel[256];
    int shown = 0;
    trv_status st = route_map(r, rs, rel, sizeof rel) /* the top shows one route: every route here */
                        ? doc_image(ctx, d, r, "png/routes.png", "Every route over the mobility cost", NULL, &shown)
                        : TRV_OK;
    struct json_object *o = NULL;
    if (!st)
        st = summary_read(ctx, r, "roadmap.json", &o);
    if (!st && o) {
        int nodes = (int)jint(o, "nodes");
        doc_p(d, "The roadmap (`roadmap.json`):");
        doc_li(d, "GO area %.1f km2; %lld LHS samples, %lld in NOGO rejected; %d nodes (seed %lld)", jnum(o, "go_area_km2"),
               jint(o, "samples"), jint(o, "rejected"), nodes, jint(o, "seed"));
        doc_li(d, "%lld edges (%s); %lld connected components, the largest with %lld nodes (%.1f %%)", jint(o, "edges"),
               jstr(o, "edge_rule"), jint(o, "components"), jint(o, "largest"),
               100.0 * (double)jint(o, "largest") / nodes);
        doc_li(d, "coverage: %.1f %% of the GO cells lie within one node spacing of a node", 100 * jnum(o, "coverage"));
        doc_end_list(d);
    }
    json_object_put(o);
    o = NULL;
    if (!st)
        st = summary_read(ctx, r, "route.json", &o);
    struct json_object *routes = jget(o, "routes");
    if (!st && json_object_is_type(routes, json_type_array)) {
        /* the smoothing's deviation only (its time is the wall clock's) */
        for (size_t k = 0; k < json_object_array_length(routes); k++) {
            struct json_object *x = json_object_array_get_idx(routes, k);
            if (!isnan(jnum(x, "max_deviation_m")))
                doc_li(d, "%s: at most %.1f m from the unsmoothed route", jstr(x, "route"), jnum(x, "max_deviation_m"));
        }
        doc_end_list(d);
    }
    json_object_put(o);
    return st;
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
            trv_sfmt(sub, sizeof sub, "%s%s%s", key, *key ? "." : "", k);
            flatten(f, sub, v, depth + 1);
        }
        return;
    }
    if (type == json_type_array && depth < 16) {
        size_t n = json_object_array_length(o);
        enum json_type first = n ? json_object_get_type(json_object_array_get_idx(o, 0)) : json_type_null;
        if (first == json_type_object || first == json_type_array) {
            for (size_t i = 0; i < n; i++) {
                trv_sfmt(sub, sizeof sub, "%s[%zu]", key, i);
                flatten(f, sub, json_object_array_get_idx(o, i), depth + 1);
            }
            return;
        }
    }
    if (type == json_type_double || type == json_type_int)
        trv_sfmt(val, sizeof val, "%.6g", json_object_get_double(o));
    else if (type == json_type_string)
        trv_sfmt(val, sizeof val, "%s", json_object_get_string(o));
    else if (type == json_type_array) { /* [a, b, c], cut after 200 characters */
        size_t n = json_object_array_length(o), k = trv_sfmt(val, sizeof val, "[");
        for (size_t i = 0; i < n && k < 200; i++)
            k += trv_sfmt(val + k, sizeof val - k, "%s%s", i ? ", " : "",
                      json_object_to_json_string_ext(json_object_array_get_idx(o, i), JSON_C_TO_STRING_PLAIN));
        if (k < 200)
            trv_sfmt(val + k, sizeof val - k, "]");
        else
            trv_sfmt(val + 200, sizeof val - 200, " ...");
    } else
        trv_sfmt(val, sizeof val, "%s", json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN));
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
        trv_sfmt(why, n, "out of memory");
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
        trv_sfmt(why, n, "%s at byte %zu", json_tokener_error_desc(e), used);
    json_tokener_free(tok);
    return o;
}

static int is_sim_run(const char *dir, const char *name)
{
    char path[PATH_MAX];
    trv_sfmt(path, sizeof path, "%s/%s/metrics.json", dir, name);
    return !strncmp(name, "sim", 3) && trv_file_exists(path);
}

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* One simulator run: DIR/<sub>/metrics.json and events.jsonl. */
static trv_status sec_sim_run(trv_ctx *ctx, doc *d, run *r, const char *sub)
{
    char rel[PATH_MAX];
    trv_sfmt(rel, sizeof rel, "%s/metrics.json", sub);
    char *text = trv_file_slurp(P(r, rel), NULL);
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
    trv_sfmt(rel, sizeof rel, "%s/events.jsonl", sub);
    if (trv_file_exists(P(r, rel))) {
        text = trv_file_slurp(r->path, NULL);
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
                trv_sfmt(types[ntypes++], sizeof types[0], "%s", name);
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

/* The run's PNG rel (e.g. "png/dem.png") as an image block; *added 0
 * when the file is absent. */
static trv_status doc_image(trv_ctx *ctx, doc *d, run *r, const char *rel, const char *caption, const char *id,
                            int *added)
{
    *added = 0;
    if (!trv_file_exists(P(r, rel)))
        return TRV_OK;
    if (!is_png(r->path))
        return trv_error(ctx, TRV_ERR_FORMAT, "'%s' is not a PNG file", r->path);
    block *b = doc_add(d, B_IMAGE);
    if (!b)
        return TRV_OK;
    b->text = strdup(caption);
    b->img_path = strdup(r->path);
    b->img_link = run_link(r, r->md_dir, rel);
    b->id = id ? strdup(id) : NULL;
    d->oom |= !b->text || !b->img_path || !b->img_link || (id && !b->id);
    *added = 1;
    return TRV_OK;
}

/* ---- the answer: the recommended route, first ----------------------------- */

/* The recommended route: MMCR when it was planned (the method's answer),
 * else the first roadmap route (not a grid-* optimum), else the first row. */
static size_t pick_route(const rstats *rs, int *is_mmcr)
{
    long k = rs_find(rs, "mmcr");
    *is_mmcr = k >= 0;
    if (k >= 0)
        return (size_t)k;
    for (size_t i = 0; i < rs->n; i++)
        if (strncmp(rs_name(rs, i), "grid-", 5))
            return i;
    return 0;
}

static int route_map(run *r, const rstats *rs, char *rel, size_t n)
{
    int is_mmcr;
    trv_sfmt(rel, n, "png/route_%s.png", rs_name(rs, pick_route(rs, &is_mmcr)));
    return trv_file_exists(P(r, rel));
}

/* How a planner calls a route: MMCR, MDR, MSR, least time, or its name. */
static const char *route_title(const char *name)
{
    static const char *const T[][2] = {{"mmcr", "MMCR"}, {"mdr", "MDR"}, {"msr", "MSR"}, {"time", "least time"}};
    for (size_t k = 0; k < sizeof T / sizeof T[0]; k++)
        if (!strcmp(name, T[k][0]))
            return T[k][1];
    return name;
}

/* One vertex of route.csv. */
typedef struct vtx {
    double d, t, speed, slope, cost; /* m and s from the start, km/h, degrees, cost */
    int cls;
} vtx;

/* The vertices of route name in route.csv (*n 0 when it has none). */
static trv_status read_vertices(trv_ctx *ctx, run *r, const char *name, vtx **out, size_t *n)
{
    static const char *const COLS[] = {"route", "cum_dist_m", "cum_time_s", "speed", "slope", "cost", "class"};
    enum { NCOL = sizeof COLS / sizeof COLS[0] };
    int col[NCOL];
    trv_csv *csv = NULL;
    *out = NULL;
    *n = 0;
    trv_status st = trv_csv_read(ctx, P(r, "route.csv"), &csv);
    for (int k = 0; k < NCOL && !st; k++)
        st = trv_csv_require(ctx, csv, COLS[k], &col[k]);
    size_t rows = st ? 0 : trv_csv_nrows(csv);
    vtx *v = st ? NULL : calloc(rows ? rows : 1, sizeof *v);
    if (!st && !v)
        st = trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
    for (size_t i = 0; i < rows && !st; i++) { /* every row read: a corrupt file is an error */
        vtx *p = &v[*n];
        double c = 0;
        if ((st = trv_csv_double(ctx, csv, i, col[1], &p->d)) || (st = trv_csv_double(ctx, csv, i, col[2], &p->t)) ||
            (st = trv_csv_double(ctx, csv, i, col[3], &p->speed)) || (st = trv_csv_double(ctx, csv, i, col[4], &p->slope)) ||
            (st = trv_csv_double(ctx, csv, i, col[5], &p->cost)) || (st = trv_csv_double(ctx, csv, i, col[6], &c)))
            break;
        if (c < 0 || c > 255 || c != floor(c))
            st = trv_error(ctx, TRV_ERR_FORMAT, "%s:%ld: class is not a code 0..255", trv_csv_path(csv), trv_csv_line(csv, i));
        if (st || strcmp(trv_csv_cell(csv, i, col[0]), name))
            continue;
        if (*n && (p->d < p[-1].d || p->t < p[-1].t))
            st = trv_error(ctx, TRV_ERR_FORMAT, "%s:%ld: cum_dist_m or cum_time_s decreases", trv_csv_path(csv),
                           trv_csv_line(csv, i));
        p->cls = (int)c;
        (*n)++;
    }
    trv_csv_free(csv);
    if (st) {
        free(v);
        *n = 0;
    } else {
        *out = v;
    }
    return st;
}

/* What the vertices say about the route. Each vertex stands for half of
 * each segment beside it (its weight, in metres and in seconds). */
typedef struct rwalk {
    double len, time;               /* m, s */
    double len_class[256], time_class[256];
    double len_top;                 /* m at the top speed (when known) */
    double max_cost;
    double slow_from, slow_to;      /* the slowest stretch of at least 1 km (m from the start) */
    double slow_kmh, slow_min_kmh, slow_max_slope;
} rwalk;

static void slowest_km(const vtx *v, size_t n, rwalk *w)
{
    size_t best_i = 0, best_j = n - 1;
    double best = INFINITY;
    for (size_t i = 0, j = 0; i < n; i++) {
        while (j < n && v[j].d - v[i].d < 1000)
            j++;
        if (j == n)
            break;
        double dt = v[j].t - v[i].t, kmh = dt > 0 ? 3.6 * (v[j].d - v[i].d) / dt : INFINITY;
        if (kmh < best)
            best = kmh, best_i = i, best_j = j;
    }
    w->slow_from = v[best_i].d;
    w->slow_to = v[best_j].d;
    double dt = v[best_j].t - v[best_i].t;
    w->slow_kmh = dt > 0 ? 3.6 * (v[best_j].d - v[best_i].d) / dt : NAN;
    w->slow_min_kmh = INFINITY;
    w->slow_max_slope = -INFINITY;
    for (size_t k = best_i; k <= best_j; k++) {
        w->slow_min_kmh = fmin(w->slow_min_kmh, v[k].speed);
        w->slow_max_slope = fmax(w->slow_max_slope, v[k].slope);
    }
}

/* top: the vehicle's top speed (km/h), NAN when unknown. n >= 2. */
static void walk(const vtx *v, size_t n, double top, rwalk *w)
{
    memset(w, 0, sizeof *w);
    w->len = v[n - 1].d - v[0].d;
    w->time = v[n - 1].t - v[0].t;
    w->max_cost = -INFINITY;
    for (size_t i = 0; i < n; i++) {
        size_t a = i ? i - 1 : 0, b = i + 1 < n ? i + 1 : n - 1;
        double wl = (v[b].d - v[a].d) / 2, wt = (v[b].t - v[a].t) / 2;
        w->len_class[v[i].cls] += wl;
        w->time_class[v[i].cls] += wt;
        if (v[i].speed >= top - 0.005) /* false when top is NAN */
            w->len_top += wl;
        w->max_cost = fmax(w->max_cost, v[i].cost);
    }
    slowest_km(v, n, w);
}

/* The vehicle the run used (speed.tif's --vehicle), for its limits. */
typedef struct vlimits {
    int known;
    double top_kmh, max_slope_deg;
    char why[PATH_MAX + 128];       /* when not known */
} vlimits;

static trv_status read_limits(trv_ctx *ctx, run *r, vlimits *vl)
{
    memset(vl, 0, sizeof *vl);
    trv_sfmt(vl->why, sizeof vl->why, "no `speed.json` in the run directory");
    struct json_object *o;
    trv_status st = summary_read(ctx, r, "speed.json", &o);
    struct json_object *v = jget(o, "vehicle");
    /* as trv-speed ran it: the smaller of the vehicle's maximum pitch and roll */
    vl->top_kmh = jnum(v, "top_speed_kmh");
    vl->max_slope_deg = jnum(v, "max_slope_deg");
    vl->known = !isnan(vl->top_kmh) && !isnan(vl->max_slope_deg);
    if (o && !vl->known)
        trv_sfmt(vl->why, sizeof vl->why, "`speed.json` has no vehicle's top_speed_kmh and max_slope_deg");
    json_object_put(o);
    return st;
}


/* Append vehicle v's drive in simulator run sim to out, when its plan was
 * the route of dist_m metres (route_stats.csv has 0.1 m). */
static void sim_drive(struct json_object *v, const char *sim, double dist_m, char *out, size_t n)
{
    if (!(fabs(jnum(v, "planned_distance_m") - dist_m) <= 0.06))
        return;
    struct json_object *x;
    int goal = json_object_object_get_ex(v, "reached_goal", &x) && json_object_get_boolean(x);
    const char *end = json_object_object_get_ex(v, "end", &x) ? json_object_get_string(x) : "unknown";
    double min = jnum(v, "time_s") / 60, replans = jnum(v, "replans"), coll = jnum(v, "collisions");
    size_t len = strlen(out);
    if (goal)
        trv_sfmt(out + len, n - len, "%s`%s`: reached the goal in %.1f min", len ? "; " : "", sim, min);
    else
        trv_sfmt(out + len, n - len, "%s`%s`: stopped (%s) after %.1f min", len ? "; " : "", sim, end, min);
    if (replans > 0 && (len = strlen(out)) < n)
        trv_sfmt(out + len, n - len, ", %.0f re-plan%s", replans, replans > 1 ? "s" : "");
    if (coll > 0 && (len = strlen(out)) < n)
        trv_sfmt(out + len, n - len, ", %.0f collision%s", coll, coll > 1 ? "s" : "");
}

/* The simulated drives of route dist_m (matched on the vehicles'
 * planned_distance_m in each simulator run's metrics.json), as one line
 * ("" if none). */
static trv_status sim_drives(trv_ctx *ctx, run *r, double dist_m, char *out, size_t n)
{
    out[0] = '\0';
    char **list = VSIReadDir(r->dir), **runs = NULL;
    for (int i = 0; list && list[i]; i++)
        if (is_sim_run(r->dir, list[i]))
            runs = CSLAddString(runs, list[i]);
    CSLDestroy(list);
    if (runs)
        qsort(runs, (size_t)CSLCount(runs), sizeof *runs, cmp_str);
    trv_status st = TRV_OK;
    for (int i = 0; runs && runs[i] && !st; i++) {
        char rel[PATH_MAX], why[128];
        trv_sfmt(rel, sizeof rel, "%s/metrics.json", runs[i]);
        char *text = trv_file_slurp(P(r, rel), NULL);
        struct json_object *o = text ? json_parse(text, why, sizeof why) : NULL, *vs = NULL;
        free(text);
        if (!o || json_object_get_type(o) != json_type_object) {
            st = trv_error(ctx, TRV_ERR_FORMAT, "cannot read '%s': not a JSON object", r->path);
        } else if (json_object_object_get_ex(o, "vehicles", &vs) && json_object_get_type(vs) == json_type_array) {
            for (size_t k = 0; k < json_object_array_length(vs); k++)
                sim_drive(json_object_array_get_idx(vs, k), runs[i], dist_m, out, n);
        }
        json_object_put(o);
    }
    CSLDestroy(runs);
    return st;
}

/* What the answer is made of. */
typedef struct answer {
    const rstats *rs;
    size_t k;                   /* the recommended route's row */
    int is_mmcr;
    vlimits vl;
    int walked;                 /* route.csv had its vertices: w is set */
    rwalk w;
    char names[256][64];        /* the mobility classes */
    char drives[1024];          /* the simulated drives of it */
} answer;

static void answer_head(doc *d, const answer *a)
{
    const rstats *rs = a->rs;
    const char *name = rs_name(rs, a->k);
    doc_h(d, 2, "Recommended route: %s", route_title(name));
    if (!d->oom)
        d->oom |= !(d->b[d->n - 1].id = strdup("answer"));
    char why[1024];
    if (a->is_mmcr)
        trv_sfmt(why, sizeof why, "Recommended: **MMCR**, because it is the method's answer: the route of least mobility cost "
                              "on the roadmap (the improved A* of Hua et al. 2022), smoothed into a path that never "
                              "enters NOGO%s.",
             *a->drives ? "; the simulated vehicle drove it" : "");
    else
        trv_sfmt(why, sizeof why, "Recommended: **%s** (`%s`), because this run planned no MMCR route (the method's answer): "
                              "the first roadmap route of `route_stats.csv`.",
             route_title(name), name);
    long f = rs_find(rs, "time");
    if (f >= 0 && (size_t)f != a->k) {
        double dd = rs_val(rs, a->k, RS_DIST) - rs_val(rs, (size_t)f, RS_DIST);
        double dt = rs_val(rs, a->k, RS_TIME) - rs_val(rs, (size_t)f, RS_TIME);
        double c0 = rs_val(rs, (size_t)f, RS_COST), c1 = rs_val(rs, a->k, RS_COST);
        size_t len = strlen(why);
        trv_sfmt(why + len, sizeof why - len, " Against the fastest route (least time): %+.2f km, %+.1f min, mean "
                                          "mobility cost %.3f instead of %.3f (%+.0f %%).",
             dd / 1000, dt * 60, c1, c0, c0 > 0 ? 100 * (c1 / c0 - 1) : 0.0);
    }
    doc_p(d, "%s", why);
}

/* "safe 60.1 %, low-risk ..." from the length per class, best class first. */
static void class_shares(const answer *a, char *out, size_t n)
{
    out[0] = '\0';
    for (int c = 255; c >= 0; c--) {
        if (a->w.len_class[c] <= 0)
            continue;
        size_t len = strlen(out);
        trv_sfmt(out + len, n - len, "%s%s %.1f %%", len ? ", " : "", *a->names[c] ? a->names[c] : "(unnamed)",
             100 * a->w.len_class[c] / a->w.len);
    }
}

static void answer_table(doc *d, const answer *a)
{
    const rstats *rs = a->rs;
    size_t k = a->k;
    block *t = doc_table(d, "ll", "route", route_title(rs_name(rs, k)));
    if (t && !(t->id = strdup("summary")))
        d->oom = 1;
    doc_row(d, t, strdup("distance"), fmt("%.2f km", rs_val(rs, k, RS_DIST) / 1000));
    doc_row(d, t, strdup("travel time"),
            fmt("%.1f min (%.3f h) at the attainable speed", rs_val(rs, k, RS_TIME) * 60, rs_val(rs, k, RS_TIME)));
    doc_row(d, t, strdup("mean speed"), fmt("%.1f km/h", rs_val(rs, k, RS_SPEED)));
    if (a->walked)
        doc_row(d, t, strdup("mobility cost"), fmt("mean %.3f, max %.3f", rs_val(rs, k, RS_COST), a->w.max_cost));
    else
        doc_row(d, t, strdup("mobility cost"), fmt("mean %.3f", rs_val(rs, k, RS_COST)));
    doc_row(d, t, strdup("NOGO exposure"), fmt("%.0f samples on NOGO cells", rs_val(rs, k, RS_NOGO)));
    if (a->vl.known)
        doc_row(d, t, strdup("max slope"), fmt("%.2f° (vehicle limit %.1f°)", rs_val(rs, k, RS_XSLOPE), a->vl.max_slope_deg));
    else
        doc_row(d, t, strdup("max slope"), fmt("%.2f°", rs_val(rs, k, RS_XSLOPE)));
    if (a->walked) {
        char shares[1024];
        class_shares(a, shares, sizeof shares);
        doc_row(d, t, strdup("length by class"), strdup(shares));
        if (a->vl.known)
            doc_row(d, t, strdup("at top speed"),
                    fmt("%.1f %% of the length (%.0f km/h)", 100 * a->w.len_top / a->w.len, a->vl.top_kmh));
        doc_row(d, t, strdup("slowest km"),
                fmt("km %.1f to %.1f: %.1f km/h", a->w.slow_from / 1000, a->w.slow_to / 1000, a->w.slow_kmh));
    }
    doc_row(d, t, strdup("simulated drive"), strdup(*a->drives ? a->drives : "not simulated in this run"));
}

static void answer_files(doc *d, run *r, const answer *a)
{
    static const char *const F[][2] = {
        {"route.gpx", "GPX 1.1, a track per route and the start and goal waypoints"},
        {"route.geojson", "the routes as GeoJSON LineStrings (EPSG:4326) with their statistics"},
        {"route.csv", "the routes' vertices with their terrain values (elevation, slope, speed, cost, class)"}};
    int any = 0;
    for (size_t k = 0; k < sizeof F / sizeof F[0]; k++) {
        if (!trv_file_exists(P(r, F[k][0])))
            continue;
        if (!any++)
            doc_p(d, "For the field (every strategy in each file; the recommended one is named `%s`):",
                  rs_name(a->rs, a->k));
        block *b = doc_add(d, B_LINK);
        if (!b)
            return;
        b->text = strdup(F[k][1]);
        b->img_path = strdup(F[k][0]);
        b->img_link = run_link(r, r->md_dir, F[k][0]);
        b->html_link = run_link(r, r->html_dir, F[k][0]);
        d->oom |= !b->text || !b->img_path || !b->img_link || !b->html_link;
    }
    if (!any)
        doc_p(d, "The route files (`route.gpx`, `route.geojson`, `route.csv`) are absent.");
}

/* What holds the route back, as far as the run's files tell. */
static void answer_limits(doc *d, const answer *a)
{
    const rstats *rs = a->rs;
    size_t k = a->k;
    doc_h(d, 3, "What limits it");
    double xs = rs_val(rs, k, RS_XSLOPE);
    if (a->vl.known)
        doc_li(d, "Slope: the steepest point is %.2f°, %.2f° under the vehicle's limit of %.1f° (the smaller of its "
                  "maximum pitch and roll; steeper cells are NOGO).",
               xs, a->vl.max_slope_deg - xs, a->vl.max_slope_deg);
    else
        doc_li(d, "Slope: the steepest point is %.2f°; the vehicle's limit is not known here (%s).", xs, a->vl.why);
    if (a->walked && a->vl.known)
        doc_li(d, "Speed: the vehicle's top speed (%.0f km/h) over %.1f %% of the length; elsewhere the climb and the "
                  "soil's rolling resistance hold it lower (attainable speed v = ηP / (R + W sin β), `trv-speed`).",
               a->vl.top_kmh, 100 * a->w.len_top / a->w.len);
    else if (!a->vl.known)
        doc_li(d, "Speed: %.1f km/h on average; the vehicle's top speed is not known here (%s).",
               rs_val(rs, k, RS_SPEED), a->vl.why);
    if (a->walked)
        doc_li(d, "The slowest stretch of at least 1 km: km %.2f to %.2f, %.1f km/h on average (%.1f km/h at its "
                  "slowest vertex), slopes up to %.2f°.",
               a->w.slow_from / 1000, a->w.slow_to / 1000, a->w.slow_kmh, a->w.slow_min_kmh, a->w.slow_max_slope);
    doc_li(d, "NOGO: %.0f of the route's samples on NOGO cells (`route_stats.csv`).", rs_val(rs, k, RS_NOGO));
    doc_li(d, "Not derived here: which limit (soil strength, traction, land use, slope, top speed) binds in each "
              "cell; the run's layers give the outcome along the route (speed, cost, class), not that reason.");
    doc_end_list(d);
    if (!a->walked) {
        doc_p(d, "The route's vertices (`route.csv`) are absent: no length by class, speed profile or slowest stretch.");
        return;
    }
    doc_p(d, "Along the route by mobility class (`route.csv`: each vertex stands for half of each segment beside it):");
    block *t = doc_table(d, "rlrrr", "class", "name", "length (km)", "share", "time (min)");
    for (int c = 255; c >= 0; c--)
        if (a->w.len_class[c] > 0)
            doc_row(d, t, fmt("%d", c), strdup(*a->names[c] ? a->names[c] : "(unnamed)"),
                    fmt("%.2f", a->w.len_class[c] / 1000), fmt("%.1f %%", 100 * a->w.len_class[c] / a->w.len),
                    fmt("%.1f", a->w.time_class[c] / 60));
}

static trv_status answer_read(trv_ctx *ctx, run *r, answer *a)
{
    const char *name = rs_name(a->rs, a->k);
    vtx *v = NULL;
    size_t nv = 0;
    trv_status st = read_limits(ctx, r, &a->vl);
    if (!st && trv_file_exists(P(r, "route.csv")))
        st = read_vertices(ctx, r, name, &v, &nv);
    if (!st)
        st = sim_drives(ctx, r, rs_val(a->rs, a->k, RS_DIST), a->drives, sizeof a->drives);
    if (!st)
        st = class_names(ctx, P(r, "class.tif"), a->names);
    a->walked = !st && nv >= 2 && v[nv - 1].d > v[0].d;
    if (a->walked)
        walk(v, nv, a->vl.known ? a->vl.top_kmh : NAN, &a->w);
    free(v);
    return st;
}

/* The answer first: the recommended route on the map, its figures, its
 * files and what limits it. */
static trv_status sec_answer(trv_ctx *ctx, doc *d, run *r, const rstats *rs)
{
    answer *a = calloc(1, sizeof *a);
    if (!a)
        return trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
    a->rs = rs;
    a->k = pick_route(rs, &a->is_mmcr);
    trv_status st = answer_read(ctx, r, a);
    int shown = 0;
    if (!st) {
        answer_head(d, a);
        doc_div(d, "answer");
        char rel[256], caption[128];
        if (route_map(r, rs, rel, sizeof rel)) {
            trv_sfmt(caption, sizeof caption, "The recommended route (%s) over the mobility cost",
                 route_title(rs_name(rs, a->k)));
        } else {
            trv_sfmt(rel, sizeof rel, "png/routes.png");
            trv_sfmt(caption, sizeof caption, "The routes over the mobility cost (the recommended one is in the legend)");
        }
        st = doc_image(ctx, d, r, rel, caption, "map", &shown);
        if (!st && !shown)
            doc_p(d, "Absent: `%s` (the map of the routes).", rel);
    }
    if (!st) {
        doc_div(d, "facts");
        answer_table(d, a);
        answer_files(d, r, a);
        doc_div_end(d);
        doc_div_end(d);
        answer_limits(d, a);
    }
    free(a);
    return st;
}

static trv_status sec_maps(trv_ctx *ctx, doc *d, run *r, const rstats *rs)
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
             {"sim", "Simulated drives against the plan"},
             {"sim_replan", "The first re-plan up close: the obstacle, the plan and the drive around it"}};
    char top[256];
    if (route_map(r, rs, top, sizeof top))
        doc_p(d, "The recommended route (`%s`) is the map at the top; every route (`png/routes.png`) is under "
                 "Strategies compared.", top);
    else if (trv_file_exists(P(r, "png/routes.png")))
        doc_p(d, "The routes by strategy (`png/routes.png`) are the map at the top.");
    char absent[512] = "";
    for (size_t k = 0; k < sizeof M / sizeof M[0]; k++) {
        char rel[64];
        trv_sfmt(rel, sizeof rel, "png/%s.png", M[k].name);
        int added;
        trv_status st = doc_image(ctx, d, r, rel, M[k].caption, NULL, &added);
        if (st)
            return st;
        if (!added) {
            size_t len = strlen(absent);
            trv_sfmt(absent + len, sizeof absent - len, "%s`%s`", len ? ", " : "", rel);
        }
    }
    if (*absent)
        doc_p(d, "Absent: %s.", absent);
    return TRV_OK;
}

/* ---- the report ------------------------------------------------------------------ */

/* The order a mission planner reads in: the answer, the strategies it
 * was chosen from, the drive, the maps; then how it was made. */
static trv_status build(trv_ctx *ctx, doc *d, run *r)
{
    static const char *const REQUIRED[] = {"route_stats.csv", "class.tif", "gonogo.tif", "dem.tif", "slope.tif"};
    for (size_t k = 0; k < sizeof REQUIRED / sizeof REQUIRED[0]; k++)
        if (!trv_file_exists(P(r, REQUIRED[k])))
            return trv_error(ctx, TRV_ERR_IO, "cannot open '%s': %s", r->path, strerror(ENOENT));
    if (!realpath(r->dir, r->absdir))
        return trv_error(ctx, TRV_ERR_IO, "cannot resolve '%s': %s", r->dir, strerror(errno));
    const char *name = strrchr(r->absdir, '/') && strrchr(r->absdir, '/')[1] ? strrchr(r->absdir, '/') + 1 : r->dir;
    doc_h(d, 1, "Mission report: %s", name);
    rstats rs;
    trv_status st = rs_read(ctx, r, &rs);
    if (st)
        return st;
    st = sec_answer(ctx, d, r, &rs);
    if (!st)
        st = sec_routes(ctx, d, r, &rs);
    if (!st)
        st = sec_sim(ctx, d, r);
    if (!st)
        st = sec_maps(ctx, d, r, &rs);
    rs_free(&rs);
    if (!st) {
        doc_h(d, 2, "Method details");
        doc_p(d, "How the answer was reached: the terrain model, the kriging of the elevation, the vehicle's "
                 "terramechanics and the mobility classes.");
        st = sec_terrain(ctx, d, r);
    }
    if (!st)
        st = sec_kriging(ctx, d, r);
    if (!st)
        st = sec_vehicle(ctx, d, r);
    if (!st)
        st = sec_classes(ctx, d, r);
    if (!st)
        st = sec_inputs(ctx, d, r);
    if (!st && d->oom)
        st = trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
    return st;
}

static trv_status parent_abs(trv_ctx *ctx, trv_outset *set, const char *path, char *abs)
{
    char dir[PATH_MAX];
    trv_sfmt(dir, sizeof dir, "%s", path);
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

trv_status rpt_write(trv_ctx *ctx, const rpt_opts *o)
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
    char md_abs[PATH_MAX], html_abs[PATH_MAX];
    run r = {.dir = o->dir, .md_dir = o->md_path ? md_abs : NULL, .html_dir = o->html_path ? html_abs : NULL};
    doc d = {0};
    trv_status st = TRV_OK;
    if (o->md_path)
        st = parent_abs(ctx, set, o->md_path, md_abs);
    if (!st && o->html_path)
        st = parent_abs(ctx, set, o->html_path, html_abs);
    if (!st)
        st = build(ctx, &d, &r);
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
