/* trv-cost --eval: the engine on every row of a CSV of inputs. */
#include "fuzzy.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* The header names of a CSV, read again from the file (trv_csv keeps them
 * private): the first RFC 4180 record, quotes honoured. */
static trv_status header_names(trv_ctx *ctx, const char *path, int ncols, char ***out)
{
    *out = NULL;
    FILE *f = fopen(path, "rb");
    if (!f)
        return trv_error(ctx, TRV_ERR_IO, "cannot open '%s': %s", path, strerror(errno));
    char **names = calloc((size_t)ncols, sizeof *names);
    size_t cap = 256, len = 0;
    char *buf = malloc(cap);
    int n = 0, quoted = 0, c, at_start = 1, first = 1;
    trv_status st = names && buf ? TRV_OK : trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
    while (!st && (c = fgetc(f)) != EOF) {
        if (first && c == 0xEF) { /* UTF-8 byte order mark */
            int c2 = fgetc(f), c3 = fgetc(f);
            first = 0;
            if (c2 == 0xBB && c3 == 0xBF)
                continue;
            st = trv_error(ctx, TRV_ERR_FORMAT, "%s:1: unreadable header", path);
            break;
        }
        first = 0;
        int end_field = 0, end_rec = 0;
        if (quoted) {
            if (c == '"') {
                int d = fgetc(f);
                if (d == '"')
                    c = '"';
                else {
                    quoted = 0;
                    if (d != EOF)
                        ungetc(d, f);
                    continue;
                }
            }
        } else if (c == '"' && at_start) {
            quoted = 1;
            at_start = 0;
            continue;
        } else if (c == ',')
            end_field = 1;
        else if (c == '\n')
            end_field = end_rec = 1;
        else if (c == '\r')
            continue;
        if (!end_field) {
            if (len + 2 > cap) {
                char *b = realloc(buf, cap *= 2);
                if (!b) {
                    st = trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
                    break;
                }
                buf = b;
            }
            buf[len++] = (char)c;
            at_start = 0;
            continue;
        }
        buf[len] = '\0';
        if (n >= ncols || !(names[n++] = strdup(buf)))
            st = n > ncols ? trv_error(ctx, TRV_ERR_FORMAT, "%s:1: the header changed while reading", path)
                           : trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
        len = 0;
        at_start = 1;
        if (end_rec)
            break;
    }
    if (!st && n < ncols) { /* a header without a final newline */
        buf[len] = '\0';
        if (!(names[n++] = strdup(buf)))
            st = trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
    }
    if (!st && n != ncols)
        st = trv_error(ctx, TRV_ERR_FORMAT, "%s:1: the header changed while reading", path);
    fclose(f);
    free(buf);
    if (st) {
        for (int i = 0; names && i < ncols; i++)
            free(names[i]);
        free(names);
        return st;
    }
    *out = names;
    return TRV_OK;
}

static void put_cell(FILE *f, const char *s)
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

trv_status fz_eval_csv(trv_ctx *ctx, const fz_engine *e, const char *in_path, const char *out_path)
{
    trv_csv *csv = NULL;
    char **names = NULL;
    trv_outset *set = NULL;
    FILE *f = NULL;
    const int n = fz_ninputs(e);
    int col[FZ_MAX_INPUTS];
    const char *outname = fz_var_name(e, n);
    trv_status st = trv_csv_read(ctx, in_path, &csv);
    if (st)
        return st;
    for (int i = 0; i < n && !st; i++)
        st = trv_csv_require(ctx, csv, fz_var_name(e, i), &col[i]);
    const char *extra[3] = {outname, "cost", "class"};
    for (int k = 0; k < 3 && !st; k++)
        if (trv_csv_col(csv, extra[k]) >= 0)
            st = trv_error(ctx, TRV_ERR_FORMAT, "%s: already has a column '%s', which the output adds", in_path,
                           extra[k]);
    const int ncols = trv_csv_ncols(csv);
    const size_t rows = trv_csv_nrows(csv);
    double *in = NULL;
    /* every number first, so that a bad cell leaves no partial output */
    if (!st && !(in = malloc((rows ? rows : 1) * (size_t)(n ? n : 1) * sizeof *in)))
        st = trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
    for (size_t r = 0; r < rows && !st; r++)
        for (int i = 0; i < n && !st; i++)
            st = trv_csv_double(ctx, csv, r, col[i], &in[r * (size_t)n + (size_t)i]);
    if (!st)
        st = header_names(ctx, in_path, ncols, &names);
    if (!st && out_path) {
        const char *tmp;
        if (!(set = trv_outset_new()) || !(tmp = trv_outset_add(set, out_path)))
            st = trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
        else if (!(f = fopen(tmp, "w")))
            st = trv_error(ctx, TRV_ERR_IO, "cannot create '%s': %s", out_path, strerror(errno));
    } else if (!st) {
        f = stdout;
    }
    if (!st) {
        for (int c = 0; c < ncols; c++) {
            put_cell(f, names[c]);
            fputc(',', f);
        }
        put_cell(f, outname);
        fputs(",cost,class\n", f);
    }
    for (size_t r = 0; r < rows && !st; r++) {
        fz_result res;
        fz_eval(e, &in[r * (size_t)n], &res);
        for (int c = 0; c < ncols; c++) {
            put_cell(f, trv_csv_cell(csv, r, c));
            fputc(',', f);
        }
        fprintf(f, "%.9f,%.9f,%d\n", res.crisp, res.cost, res.cls);
    }
    if (f && f != stdout) {
        int bad = ferror(f);
        if (fclose(f) != 0 || bad)
            st = st ? st : trv_error(ctx, TRV_ERR_IO, "cannot write '%s': %s", out_path, strerror(errno));
    } else if (f && fflush(f) != 0 && !st) {
        st = trv_error(ctx, TRV_ERR_IO, "cannot write the output: %s", strerror(errno));
    }
    if (!st && set)
        st = trv_outset_commit(ctx, set);
    trv_outset_free(set);
    free(in);
    for (int c = 0; names && c < ncols; c++)
        free(names[c]);
    free(names);
    trv_csv_free(csv);
    return st;
}
