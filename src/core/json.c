/* The stages' JSON summaries through json-c (json.h). */
#include "json.h"

#include <errno.h>
#include <json-c/json.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

enum { DEPTH = 16 };

struct trv_json {
    struct json_object *stack[DEPTH]; /* stack[0]: the document */
    int depth, oom;
};

trv_json *trv_json_new(void)
{
    trv_json *j = calloc(1, sizeof *j);
    if (j && !(j->stack[0] = json_object_new_object())) {
        free(j);
        return NULL;
    }
    return j;
}

void trv_json_free(trv_json *j)
{
    if (j)
        json_object_put(j->stack[0]);
    free(j);
}

/* Put v under key in the innermost open container (owns v). */
static void put(trv_json *j, const char *key, struct json_object *v, int null_ok)
{
    if (!j)
        return;
    if (!v && !null_ok) {
        j->oom = 1;
        return;
    }
    struct json_object *top = j->stack[j->depth];
    int bad = json_object_is_type(top, json_type_array) ? json_object_array_add(top, v)
                                                        : json_object_object_add(top, key ? key : "", v);
    if (bad) {
        json_object_put(v);
        j->oom = 1;
    }
}

static void open_node(trv_json *j, const char *key, struct json_object *v)
{
    if (!j)
        return;
    if (j->depth + 1 >= DEPTH) {
        json_object_put(v);
        j->oom = 1; /* deeper than any summary: a bug, reported as a failure */
        return;
    }
    put(j, key, v, 0);
    if (v && !j->oom)
        j->stack[++j->depth] = v;
}

void trv_json_obj(trv_json *j, const char *key) { open_node(j, key, json_object_new_object()); }
void trv_json_arr(trv_json *j, const char *key) { open_node(j, key, json_object_new_array()); }

void trv_json_end(trv_json *j)
{
    if (j && j->depth > 0)
        j->depth--;
}

void trv_json_num(trv_json *j, const char *key, const char *fmt, double v)
{
    if (!isfinite(v)) {
        put(j, key, NULL, 1);
        return;
    }
    char buf[64];
    snprintf(buf, sizeof buf, fmt, v);
    put(j, key, json_object_new_double_s(v, buf), 0);
}

void trv_json_int(trv_json *j, const char *key, long long v) { put(j, key, json_object_new_int64(v), 0); }
void trv_json_str(trv_json *j, const char *key, const char *s) { put(j, key, s ? json_object_new_string(s) : NULL, !s); }
void trv_json_bool(trv_json *j, const char *key, int b) { put(j, key, json_object_new_boolean(b != 0), 0); }

void trv_json_meta(trv_json *j, const trv_meta *meta)
{
    trv_json_str(j, "tool", meta->tool);
    trv_json_str(j, "version", TRV_VERSION);
    trv_json_str(j, "args", meta->args);
    if (meta->has_seed)
        trv_json_int(j, "seed", (long long)meta->seed);
}

/* The document's text as the summary file holds it (owned by the document). */
static const char *text_of(const trv_json *j)
{
    return json_object_to_json_string_ext(j->stack[0], JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED |
                                                           JSON_C_TO_STRING_NOSLASHESCAPE);
}

struct json_object *trv_json_doc(const trv_json *j)
{
    const char *text = j && !j->oom ? text_of(j) : NULL;
    return text ? json_tokener_parse(text) : NULL;
}

trv_status trv_json_stage(trv_ctx *ctx, trv_outset *set, const trv_json *j, const char *path)
{
    const char *tmp = j && !j->oom && path ? trv_outset_add(set, path) : NULL;
    if (!tmp)
        return trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
    const char *text = text_of(j);
    FILE *f = fopen(tmp, "w");
    if (!f)
        return trv_error(ctx, TRV_ERR_IO, "cannot create '%s': %s", path, strerror(errno));
    int bad = !text || fputs(text, f) == EOF || fputc('\n', f) == EOF;
    if (fclose(f) != 0 || bad)
        return trv_error(ctx, TRV_ERR_IO, "cannot write '%s': %s", path, errno ? strerror(errno) : "short write");
    return TRV_OK;
}

char *trv_path_beside(const char *path, const char *name)
{
    const char *slash = strrchr(path, '/');
    size_t dir = slash ? (size_t)(slash - path) + 1 : 0, n = dir + strlen(name) + 1;
    char *p = malloc(n);
    if (p)
        snprintf(p, n, "%.*s%s", (int)dir, path, name);
    return p;
}

void trv_json_fputs(FILE *f, const char *s)
{
    fputc('"', f);
    for (; s && *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\')
            fprintf(f, "\\%c", c);
        else if (c < 0x20)
            fprintf(f, "\\u%04x", c);
        else
            fputc(c, f);
    }
    fputc('"', f);
}
