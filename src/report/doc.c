/* The report's document (report_priv.h): a list of blocks built once, and
 * its two writers. GitHub-flavoured Markdown links the images relative to
 * the report; the HTML page is self-contained (images as data: URIs,
 * inline CSS, no external resource). Text may hold `code` spans, the only
 * inline markup. Nothing in it depends on the time or the host: the same
 * document gives the same bytes. */
#define _POSIX_C_SOURCE 200809L
#include "report/report_priv.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

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

char *rpt_fmt(const char *f, ...)
{
    va_list ap;
    va_start(ap, f);
    char *s = vfmt(f, ap);
    va_end(ap);
    return s;
}

block *rpt_add(doc *d, btype t)
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

void rpt_h(doc *d, int level, const char *f, ...)
{
    block *b = rpt_add(d, B_HEADING);
    if (!b)
        return;
    va_list ap;
    va_start(ap, f);
    b->text = vfmt(f, ap);
    va_end(ap);
    b->level = level;
    d->oom |= !b->text;
}

void rpt_p(doc *d, const char *f, ...)
{
    block *b = rpt_add(d, B_PARA);
    if (!b)
        return;
    va_list ap;
    va_start(ap, f);
    b->text = vfmt(f, ap);
    va_end(ap);
    d->oom |= !b->text;
}

block *rpt_table(doc *d, const char *align, ...)
{
    block *b = rpt_add(d, B_TABLE);
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

void rpt_row(doc *d, block *b, ...)
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

void rpt_li_line(void *d, const char *line) { rpt_li(d, "%s", line); }

void rpt_li(doc *d, const char *f, ...)
{
    block *b = d->n && d->b[d->n - 1].type == B_LIST ? &d->b[d->n - 1] : rpt_add(d, B_LIST);
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

void rpt_end_list(doc *d) { rpt_add(d, B_PARA); } /* an empty paragraph separates lists */

/* An HTML <div class="cls"> around the blocks up to rpt_div_end. */
void rpt_div(doc *d, const char *cls)
{
    block *b = rpt_add(d, B_OPEN);
    if (b)
        d->oom |= !(b->text = strdup(cls));
}

void rpt_div_end(doc *d) { rpt_add(d, B_CLOSE); }

void rpt_clear(doc *d)
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

void rpt_write_md(FILE *f, const doc *d)
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

trv_status rpt_write_html(trv_ctx *ctx, FILE *f, const doc *d)
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

