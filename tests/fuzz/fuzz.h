/* fuzz.h — what the fuzz harnesses (tests/fuzz/fuzz_*.c) share.
 *
 * Each harness defines LLVMFuzzerTestOneInput: one input (any bytes) given
 * to one parser of user text, which must return (an error is fine) without
 * a crash, a leak or undefined behaviour. Built with clang
 * -fsanitize=fuzzer,address,undefined for `make fuzz`; built with the
 * project's compiler and driver.c (a main() that feeds it files) for the
 * corpus replay of `make test`.
 *
 * fuzz_file writes the input to a file of this process (name ending in
 * ext, e.g. ".ini"), rewritten each call, for the parsers that read a path;
 * fuzz_text returns the input NUL-terminated (malloc'ed; NULL when out of
 * memory); fuzz_ctx is a context of verbosity 0 kept for the process;
 * fuzz_terrain a 40 x 40 terrain of 10 m cells in EPSG:32616 (origin
 * 500000, 4000400), all GO at 36 km/h but for a NOGO square of 4 cells at
 * columns and rows 20..21, built once. */
#ifndef TRV_FUZZ_H
#define TRV_FUZZ_H

#include <stddef.h>
#include <stdint.h>

#include "core/trv.h"
#include "prm/prm.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

const char *fuzz_file(const uint8_t *data, size_t size, const char *ext);
/* text in a fixed file `name` of the same directory (a scenario naming the
 * input, say); its path, static. */
const char *fuzz_write(const char *name, const char *text);
char *fuzz_text(const uint8_t *data, size_t size);
trv_ctx *fuzz_ctx(void);
const prm_terrain *fuzz_terrain(void);
/* st, and with $TRV_FUZZ_VERBOSE set "ok" or the error on stderr (to see
 * what a seed reaches). */
trv_status fuzz_result(trv_status st);
/* The directory of the bundled data (FUZZ_DATADIR at build time, or
 * $TRV_DATADIR). */
const char *fuzz_datadir(void);

#endif
