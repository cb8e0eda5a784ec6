/* The one reader of class tables: code column checked, other columns named. */
#include "geo.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void geo_class_csv_free(geo_class_csv *t)
{
    if (!t)
        return;
    trv_csv_free(t->csv);
    free(t->code);
    free(t);
}

/* The code column: integers in 1..254, none twice. */
static trv_status read_codes(trv_ctx *ctx, geo_class_csv *t, int ccode, const char *noun)
{
    const char *path = trv_csv_path(t->csv);
    for (size_t r = 0; r < t->n; r++) {
        double code;
        trv_status st = trv_csv_double(ctx, t->csv, r, ccode, &code);
        if (st)
            return st;
        if (code != floor(code) || code < 1 || code > 254)
            return trv_error(ctx, TRV_ERR_FORMAT, "%s:%ld: %s code %s must be an integer in 1..254", path,
                             trv_csv_line(t->csv, r), noun, trv_csv_cell(t->csv, r, ccode));
        for (size_t q = 0; q < r; q++)
            if (t->code[q] == (int)code)
                return trv_error(ctx, TRV_ERR_FORMAT, "%s:%ld: %s code %d repeated", path, trv_csv_line(t->csv, r),
                                 noun, (int)code);
        t->code[r] = (int)code;
    }
    return TRV_OK;
}

trv_status geo_class_csv_read(trv_ctx *ctx, const char *path, const char *noun, const char *const *cols,
                              geo_class_csv **out)
{
    *out = NULL;
    geo_class_csv *t = calloc(1, sizeof *t);
    if (!t)
        return trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
    int ccode, ncols = 0;
    trv_status st = trv_csv_read(ctx, path, &t->csv);
    if (!st)
        st = trv_csv_require(ctx, t->csv, "code", &ccode);
    for (; !st && cols && cols[ncols]; ncols++)
        st = ncols < 8 ? trv_csv_require(ctx, t->csv, cols[ncols], &t->col[ncols])
                       : trv_error(ctx, TRV_ERR_INTERNAL, "more than 8 columns asked of a class table");
    if (!st && (t->n = trv_csv_nrows(t->csv)) == 0) {
        size_t len = strlen(noun);
        st = trv_error(ctx, TRV_ERR_FORMAT, "%s: no %s%s", path, noun, len && noun[len - 1] == 's' ? "es" : "s");
    }
    if (!st && !(t->code = calloc(t->n, sizeof *t->code)))
        st = trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
    if (!st)
        st = read_codes(ctx, t, ccode, noun);
    if (st)
        geo_class_csv_free(t);
    else
        *out = t;
    return st;
}
