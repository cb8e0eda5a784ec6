/* The fuzzy rules (FCL; fz_engine_parse), then one evaluation at the
 * middle of every input's range. */
#include "fuzz.h"
#include "fuzzy/fuzzy.h"

#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = fuzz_text(data, size);
    fz_engine *e = NULL;
    if (text && !fuzz_result(fz_engine_parse(fuzz_ctx(), "input.fcl", text, &e))) {
        double in[64];
        int n = fz_ninputs(e);
        for (int i = 0; i < n && i < 64; i++) {
            double lo, hi;
            fz_var_range(e, i, &lo, &hi);
            in[i] = (lo + hi) / 2;
        }
        fz_result res;
        if (n <= 64)
            fz_eval(e, in, &res);
        fz_engine_free(e);
    }
    free(text);
    return 0;
}
