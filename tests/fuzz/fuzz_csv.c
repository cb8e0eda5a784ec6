/* CSV (trv_csv_read, every cell read as text and as a number) and the
 * class tables on it (geo_class_csv_read, as the soil and land-use tables
 * and the legends are read). */
#include "fuzz.h"
#include "geo/geo.h"

#include <string.h>

size_t cell_bytes; /* every cell read to its end (ASan sees the reads) */

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    trv_ctx *ctx = fuzz_ctx();
    const char *path = fuzz_file(data, size, ".csv");
    trv_csv *csv = NULL;
    if (!fuzz_result(trv_csv_read(ctx, path, &csv))) {
        for (size_t r = 0; r < trv_csv_nrows(csv); r++)
            for (int c = 0; c < trv_csv_ncols(csv); c++) {
                double v;
                cell_bytes += trv_csv_cell(csv, r, c) ? strlen(trv_csv_cell(csv, r, c)) : 0;
                (void)trv_csv_double(ctx, csv, r, c, &v);
            }
        (void)trv_csv_col(csv, "x");
        trv_csv_free(csv);
    }
    static const char *const cols[] = {"name", NULL};
    geo_class_csv *t = NULL;
    if (!fuzz_result(geo_class_csv_read(ctx, path, "class", cols, &t)))
        geo_class_csv_free(t);
    geo_classes *cl = NULL;
    if (!fuzz_result(geo_classes_read(ctx, path, &cl)))
        geo_classes_free(cl);
    return 0;
}
