/*
 * json_get.h — reading the stages' JSON summaries (json-c objects): a
 * member, a number, an integer, a string or a flag, with a fixed answer
 * when it is absent, so that a reader of an older summary needs no test
 * per key. Shared by trv-report and the summary lines (run/lines.h).
 */
#ifndef TRV_JSON_GET_H
#define TRV_JSON_GET_H

#include <math.h>

#include <json-c/json.h>

/* Member key of object o (NULL: o is not an object or has none). */
static inline struct json_object *jget(struct json_object *o, const char *key)
{
    struct json_object *x = NULL;
    return o && json_object_is_type(o, json_type_object) && json_object_object_get_ex(o, key, &x) ? x : NULL;
}
/* Number, integer, string and flag members; NAN, 0, "" and 0 when absent. */
static inline double jnum(struct json_object *o, const char *key)
{
    struct json_object *x = jget(o, key);
    return x && !json_object_is_type(x, json_type_null) ? json_object_get_double(x) : NAN;
}
static inline long long jint(struct json_object *o, const char *key) { return json_object_get_int64(jget(o, key)); }
static inline const char *jstr(struct json_object *o, const char *key)
{
    const char *s = json_object_get_string(jget(o, key));
    return s ? s : "";
}
static inline int jbool(struct json_object *o, const char *key) { return json_object_get_boolean(jget(o, key)); }

#endif
