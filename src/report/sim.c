/* The report's simulation section (report_priv.h): each simulator run's
 * metrics.json, flattened into a table, and its event log counted by
 * type. */
#define _POSIX_C_SOURCE 200809L
#include "report/report_priv.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* ---- the simulator's metrics, flattened ---- */

typedef struct flat {
    doc *d;
    block *t;
    int skipped;            /* wall-clock items left out */
} flat;

/* One table row per scalar: nested keys joined with dots, items of lists
 * of objects numbered (key[i]); lists of values shown as JSON. */
static void flatten(flat *f, const char *key, struct json_object *o, int depth)
{
    char sub[256], val[256];
    enum json_type type = json_object_get_type(o);
    if (type == json_type_object && depth < 16) {
        json_object_object_foreach(o, k, v) {
            trv_sfmt(sub, sizeof sub, "%s%s%s", key, *key ? "." : "", k);
            flatten(f, sub, v, depth + 1);
        }
        return;
    }
    if (type == json_type_array && depth < 16) {
        size_t n = json_object_array_length(o);
        enum json_type first = n ? json_object_get_type(json_object_array_get_idx(o, 0)) : json_type_null;
        if (first == json_type_object || first == json_type_array) {
            for (size_t i = 0; i < n; i++) {
                trv_sfmt(sub, sizeof sub, "%s[%zu]", key, i);
                flatten(f, sub, json_object_array_get_idx(o, i), depth + 1);
            }
            return;
        }
    }
    if (type == json_type_double || type == json_type_int)
        trv_sfmt(val, sizeof val, "%.6g", json_object_get_double(o));
    else if (type == json_type_string)
        trv_sfmt(val, sizeof val, "%s", json_object_get_string(o));
    else if (type == json_type_array) { /* [a, b, c], cut after 200 characters */
        size_t n = json_object_array_length(o), k = trv_sfmt(val, sizeof val, "[");
        for (size_t i = 0; i < n && k < 200; i++)
            k += trv_sfmt(val + k, sizeof val - k, "%s%s", i ? ", " : "",
                      json_object_to_json_string_ext(json_object_array_get_idx(o, i), JSON_C_TO_STRING_PLAIN));
        if (k < 200)
            trv_sfmt(val + k, sizeof val - k, "]");
        else
            trv_sfmt(val + 200, sizeof val - 200, " ...");
    } else
        trv_sfmt(val, sizeof val, "%s", json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN));
    /* wall-clock measures differ from run to run: left out, so that the
     * report depends on the simulation only */
    const char *last = strrchr(key, '.') ? strrchr(key, '.') + 1 : key;
    if (!strcmp(last, "wall_time_s") || !strcmp(last, "realtime_factor")) {
        f->skipped++;
        return;
    }
    rpt_row(f->d, f->t, strdup(*key ? key : "(value)"), strdup(val));
}

/* The event log rel (r->path): its lines, and the number of each "type". */
static trv_status events(trv_ctx *ctx, doc *d, run *r, const char *rel)
{
    char why[128];
    char *text = trv_file_slurp(r->path, NULL);
    if (!text)
        return trv_error(ctx, TRV_ERR_IO, "cannot read '%s': %s", r->path, strerror(errno));
    char types[32][64];
    size_t counts[32] = {0}, lines = 0;
    int ntypes = 0;
    for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
        struct json_object *ev = rpt_json_parse(line, why, sizeof why), *type = NULL;
        if (!ev || !json_object_object_get_ex(ev, "type", &type)) {
            json_object_put(ev);
            trv_status st = trv_error(ctx, TRV_ERR_FORMAT, "cannot read '%s': event %zu is not a JSON object with a type%s%s",
                                      r->path, lines + 1, ev ? "" : ": ", ev ? "" : why);
            free(text);
            return st;
        }
        lines++;
        const char *name = json_object_get_string(type);
        int k = 0;
        while (k < ntypes && strcmp(types[k], name))
            k++;
        if (k == ntypes && ntypes < 32)
            trv_sfmt(types[ntypes++], sizeof types[0], "%s", name);
        if (k < ntypes)
            counts[k]++;
        json_object_put(ev);
    }
    free(text);
    rpt_p(d, "Events (`%s`): %zu.", rel, lines);
    if (ntypes) {
        block *t = rpt_table(d, "lr", "event type", "count");
        for (int k = 0; k < ntypes; k++)
            rpt_row(d, t, strdup(types[k]), rpt_fmt("%zu", counts[k]));
    }
    return TRV_OK;
}

/* One simulator run: DIR/<sub>/metrics.json and events.jsonl. */
static trv_status sec_sim_run(trv_ctx *ctx, doc *d, run *r, const char *sub)
{
    char rel[PATH_MAX];
    trv_sfmt(rel, sizeof rel, "%s/%s", sub, OTHER(RUN_O_SIM_METRICS));
    struct json_object *o;
    trv_status st = rpt_json_object_read(ctx, P(r, rel), &o);
    if (st)
        return st;
    rpt_h(d, 3, "%s", sub);
    rpt_p(d, "From `%s` (nested keys joined with dots, list items numbered from 0):", rel);
    flat f = {.d = d};
    f.t = rpt_table(d, "lr", "metric", "value");
    flatten(&f, "", o, 0);
    st = rpt_sim_rollover(ctx, d, r, sub, o, f.t); /* rollover.c: dynamic runs */
    json_object_put(o);
    if (st)
        return st;
    if (f.skipped)
        rpt_p(d, "(%d wall-clock item%s, which differ from run to run, left out.)", f.skipped, f.skipped > 1 ? "s" : "");
    /* the event log: lines, and the number of each "type" */
    trv_sfmt(rel, sizeof rel, "%s/%s", sub, OTHER(RUN_O_SIM_EVENTS));
    return trv_file_exists(P(r, rel)) ? events(ctx, d, r, rel) : TRV_OK;
}

trv_status rpt_sec_sim(trv_ctx *ctx, doc *d, run *r)
{
    rpt_h(d, 2, "Simulation");
    char **runs = rpt_sim_runs(r);
    if (!runs) {
        rpt_p(d, "Absent: no `%s*/%s` in the run directory (the simulator has not run on it).", RUN_SIM_PREFIX,
              OTHER(RUN_O_SIM_METRICS));
        return TRV_OK;
    }
    trv_status st = TRV_OK;
    for (int i = 0; runs[i] && !st; i++)
        st = sec_sim_run(ctx, d, r, runs[i]);
    geo_names_free(runs);
    return st;
}
