/* trv-cost --eval: the engine on every row of a CSV of inputs. */
#include "fuzzy.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

trv_status fz_eval_csv(trv_ctx *ctx, const fz_engine *e, const char *in_path, const char *out_path)
{
    trv_csv *csv = NULL;
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
            trv_csv_put(f, trv_csv_header(csv, c));
            fputc(',', f);
        }
        trv_csv_put(f, outname);
        fputs(",cost,class\n", f);
    }
    for (size_t r = 0; r < rows && !st; r++) {
        fz_result res;
        fz_eval(e, &in[r * (size_t)n], &res);
        for (int c = 0; c < ncols; c++) {
            trv_csv_put(f, trv_csv_cell(csv, r, c));
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
    trv_csv_free(csv);
    return st;
}
