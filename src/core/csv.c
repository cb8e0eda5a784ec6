/* RFC 4180 CSV reader with a header row. */
#include "trv.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

struct trv_csv {
    char *path;
    int ncols;
    char **header;      /* ncols */
    char **cells;       /* nrows * ncols */
    long *lines;        /* file line of each row */
    size_t nrows, cap;
};

void trv_csv_free(trv_csv *csv)
{
    if (!csv)
        return;
    for (int c = 0; c < csv->ncols; c++)
        free(csv->header[c]);
    for (size_t i = 0; i < csv->nrows * (size_t)csv->ncols; i++)
        free(csv->cells[i]);
    free(csv->header);
    free(csv->cells);
    free(csv->lines);
    free(csv->path);
    free(csv);
}

/* Growable list of the fields of one record. */
typedef struct rec {
    char **f;
    int n, cap;
    char *buf;
    size_t len, bcap;
} rec;

static int rec_putc(rec *r, char c)
{
    if (r->len + 1 >= r->bcap) {
        size_t cap = r->bcap ? 2 * r->bcap : 64;
        char *b = realloc(r->buf, cap);
        if (!b)
            return -1;
        r->buf = b;
        r->bcap = cap;
    }
    r->buf[r->len++] = c;
    return 0;
}

static int rec_end_field(rec *r)
{
    if (rec_putc(r, '\0'))
        return -1;
    if (r->n == r->cap) {
        int cap = r->cap ? 2 * r->cap : 8;
        char **f = realloc(r->f, (size_t)cap * sizeof *f);
        if (!f)
            return -1;
        r->f = f;
        r->cap = cap;
    }
    if (!(r->f[r->n] = strdup(r->buf)))
        return -1;
    r->n++;
    r->len = 0;
    return 0;
}

static void rec_clear(rec *r)
{
    for (int i = 0; i < r->n; i++)
        free(r->f[i]);
    r->n = 0;
    r->len = 0;
}

/* Read one record starting at *p; advances *p and *line. Returns 1 on a
 * record, 0 at end of input, -1 on error (message in ctx). */
static int read_record(trv_ctx *ctx, const char *path, const char **p, const char *end, long *line, rec *r)
{
    const char *s = *p;
    if (s >= end)
        return 0;
    long start = *line;
    int quoted = 0, was_quoted = 0;
    for (;;) {
        if (s >= end) {
            if (quoted) {
                trv_error(ctx, TRV_ERR_FORMAT, "%s:%ld: unterminated quoted field", path, start);
                return -1;
            }
            break;
        }
        char c = *s++;
        if (quoted) {
            if (c == '"') {
                if (s < end && *s == '"') {
                    s++;
                    if (rec_putc(r, '"'))
                        goto nomem;
                } else {
                    quoted = 0;
                }
            } else {
                if (c == '\n')
                    (*line)++;
                if (rec_putc(r, c))
                    goto nomem;
            }
            continue;
        }
        if (c == '"') {
            if (r->len != 0 || was_quoted) {
                trv_error(ctx, TRV_ERR_FORMAT, "%s:%ld: stray quote in field", path, *line);
                return -1;
            }
            quoted = was_quoted = 1;
        } else if (c == ',') {
            if (rec_end_field(r))
                goto nomem;
            was_quoted = 0;
        } else if (c == '\r' && s < end && *s == '\n') {
            continue;
        } else if (c == '\n') {
            (*line)++;
            break;
        } else {
            if (was_quoted) {
                trv_error(ctx, TRV_ERR_FORMAT, "%s:%ld: text after closing quote", path, *line);
                return -1;
            }
            if (rec_putc(r, c))
                goto nomem;
        }
    }
    if (rec_end_field(r))
        goto nomem;
    *p = s;
    return 1;
nomem:
    trv_error(ctx, TRV_ERR_NOMEM, "out of memory reading '%s'", path);
    return -1;
}

trv_status trv_csv_read(trv_ctx *ctx, const char *path, trv_csv **out)
{
    *out = NULL;
    size_t len;
    char *text = trv_file_read(ctx, path, &len);
    if (!text)
        return TRV_ERR_IO;
    trv_status st = TRV_OK;
    rec r = {0};
    trv_csv *csv = calloc(1, sizeof *csv);
    const char *p = text, *end = text + len;
    long line = 1;
    if (!csv || !(csv->path = strdup(path))) {
        st = trv_error(ctx, TRV_ERR_NOMEM, "out of memory reading '%s'", path);
        goto done;
    }
    if (len >= 3 && !memcmp(p, "\xEF\xBB\xBF", 3))
        p += 3; /* UTF-8 byte order mark, as spreadsheets write it */
    int got = read_record(ctx, path, &p, end, &line, &r);
    if (got <= 0) {
        st = got < 0 ? TRV_ERR_FORMAT : trv_error(ctx, TRV_ERR_FORMAT, "'%s' is empty (no header row)", path);
        goto done;
    }
    csv->ncols = r.n;
    csv->header = r.f;
    r.f = NULL;
    r.n = r.cap = 0;
    for (int c = 0; c < csv->ncols; c++)
        for (int d = 0; d < c; d++)
            if (!strcmp(csv->header[c], csv->header[d])) {
                st = trv_error(ctx, TRV_ERR_FORMAT, "%s:1: column '%s' repeated", path, csv->header[c]);
                goto done;
            }
    for (;;) {
        long start = line;
        got = read_record(ctx, path, &p, end, &line, &r);
        if (got < 0) {
            st = TRV_ERR_FORMAT;
            goto done;
        }
        if (got == 0)
            break;
        if (r.n == 1 && r.f[0][0] == '\0') { /* blank line */
            rec_clear(&r);
            continue;
        }
        if (r.n != csv->ncols) {
            st = trv_error(ctx, TRV_ERR_FORMAT, "%s:%ld: %d fields, the header has %d", path, start, r.n,
                           csv->ncols);
            goto done;
        }
        if (csv->nrows == csv->cap) {
            size_t cap = csv->cap ? 2 * csv->cap : 64;
            char **cells = realloc(csv->cells, cap * (size_t)csv->ncols * sizeof *cells);
            long *lines = cells ? realloc(csv->lines, cap * sizeof *lines) : NULL;
            if (cells)
                csv->cells = cells;
            if (!lines) {
                st = trv_error(ctx, TRV_ERR_NOMEM, "out of memory reading '%s'", path);
                goto done;
            }
            csv->lines = lines;
            csv->cap = cap;
        }
        memcpy(csv->cells + csv->nrows * (size_t)csv->ncols, r.f, (size_t)r.n * sizeof *r.f);
        csv->lines[csv->nrows++] = start;
        r.n = 0;
        r.len = 0;
    }
done:
    rec_clear(&r);
    free(r.f);
    free(r.buf);
    free(text);
    if (st != TRV_OK)
        trv_csv_free(csv);
    else
        *out = csv;
    return st;
}

size_t trv_csv_nrows(const trv_csv *csv) { return csv->nrows; }
int trv_csv_ncols(const trv_csv *csv) { return csv->ncols; }
const char *trv_csv_path(const trv_csv *csv) { return csv->path; }
long trv_csv_line(const trv_csv *csv, size_t row) { return csv->lines[row]; }

const char *trv_csv_header(const trv_csv *csv, int col) { return csv->header[col]; }

int trv_csv_col(const trv_csv *csv, const char *name)
{
    for (int c = 0; c < csv->ncols; c++)
        if (!strcmp(csv->header[c], name))
            return c;
    return -1;
}

trv_status trv_csv_require(trv_ctx *ctx, const trv_csv *csv, const char *name, int *col)
{
    *col = trv_csv_col(csv, name);
    if (*col < 0)
        return trv_error(ctx, TRV_ERR_FORMAT, "%s: no column '%s'", csv->path, name);
    return TRV_OK;
}

const char *trv_csv_cell(const trv_csv *csv, size_t row, int col)
{
    return csv->cells[row * (size_t)csv->ncols + (size_t)col];
}

trv_status trv_csv_double(trv_ctx *ctx, const trv_csv *csv, size_t row, int col, double *out)
{
    const char *s = trv_csv_cell(csv, row, col);
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    while (*end == ' ')
        end++;
    if (!*s || *end || errno || !isfinite(v))
        return trv_error(ctx, TRV_ERR_FORMAT, "%s:%ld: column '%s': '%s' is not a number", csv->path,
                         csv->lines[row], csv->header[col], s);
    *out = v;
    return TRV_OK;
}

trv_status trv_csv_number(trv_ctx *ctx, const trv_csv *csv, size_t row, const char *name, double lo, int lo_open,
                          double hi, double dflt, double *out)
{
    int col = trv_csv_col(csv, name);
    *out = dflt;
    if (col < 0 || !*trv_csv_cell(csv, row, col))
        return TRV_OK;
    trv_status st = trv_csv_double(ctx, csv, row, col, out);
    if (!st && !((lo_open ? *out > lo : *out >= lo) && *out <= hi))
        st = trv_error(ctx, TRV_ERR_DATA, "%s:%ld: %s %g is outside %c%g, %g]", csv->path, csv->lines[row], name, *out,
                       lo_open ? '(' : '[', lo, hi);
    return st;
}

void trv_csv_put(FILE *f, const char *s)
{
    if (!strpbrk(s, ",\"\r\n")) {
        fputs(s, f);
        return;
    }
    fputc('"', f);
    for (; *s; s++) {
        if (*s == '"')
            fputc('"', f);
        fputc(*s, f);
    }
    fputc('"', f);
}
