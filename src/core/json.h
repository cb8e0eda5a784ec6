/*
 * json.h — the stages' JSON summaries (<stage>.json), written through
 * json-c behind a small cursor so the tools repeat no json-c code.
 *
 * A trv_json is one document under construction: trv_json_new opens the
 * top-level object; trv_json_obj/trv_json_arr open a nested object/array
 * under key (inside an array the key is ignored and the value appended)
 * and trv_json_end closes the innermost one. Keys keep the order they are
 * added in. A number is written as printf(fmt, v) (e.g. "%.6g"), so the
 * same value always gives the same bytes; NaN and infinities become null.
 * Memory failures are remembered and reported by trv_json_stage.
 *
 * trv_json_stage adds path to the caller's output set and writes the
 * document to its temporary (two-space indented, '/' not escaped, one
 * newline at the end): the summary is committed with the layers, or not
 * at all.
 */
#ifndef TRV_JSON_H
#define TRV_JSON_H

#include <stdio.h>

#include "trv.h"

typedef struct trv_json trv_json;
struct json_object;

trv_json *trv_json_new(void);
void trv_json_free(trv_json *j);

void trv_json_obj(trv_json *j, const char *key);
void trv_json_arr(trv_json *j, const char *key);
void trv_json_end(trv_json *j);

void trv_json_num(trv_json *j, const char *key, const char *fmt, double v);
void trv_json_int(trv_json *j, const char *key, long long v);
void trv_json_str(trv_json *j, const char *key, const char *s); /* NULL: null */
void trv_json_bool(trv_json *j, const char *key, int b);

/* "tool", "version" and "args" of meta, then "seed" when it has one:
 * the keys every summary starts with. */
void trv_json_meta(trv_json *j, const trv_meta *meta);

trv_status trv_json_stage(trv_ctx *ctx, trv_outset *set, const trv_json *j, const char *path);

/* The document as a reader of the staged file sees it (its text parsed
 * again: numbers at the precision written), for a tool that prints its
 * summary lines from it (run/lines.h); NULL when out of memory. Release
 * with json_object_put. */
struct json_object *trv_json_doc(const trv_json *j);

/* s as a JSON string to f: in quotes, with quotes, backslashes and
 * control characters escaped (NULL: ""). Also a YAML double-quoted
 * scalar, whose escapes are JSON's. For files written line by line
 * (NDJSON, CSV beside them) rather than through a trv_json document. */
void trv_json_fputs(FILE *f, const char *s);

/* name in the directory of the file path ("out/a.tif", "krige.json" ->
 * "out/krige.json"; "a.tif" -> "krige.json"): where a tool whose -o names
 * a file puts its summary. malloc'ed; NULL when out of memory. */
char *trv_path_beside(const char *path, const char *name);

#endif
