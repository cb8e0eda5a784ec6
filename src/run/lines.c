/* The stages' summary lines from their summaries (lines.h). */
#include "lines.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "core/json_get.h"

/* One line, formatted (a longer one is cut at the buffer's end). */
__attribute__((format(printf, 3, 4))) static void emit(run_line_fn fn, void *arg, const char *fmt, ...)
{
    char line[8192];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    fn(arg, line);
}

static size_t array_len(struct json_object *a)
{
    return json_object_is_type(a, json_type_array) ? json_object_array_length(a) : 0;
}

/* ---- krige.json ---- */

void run_lines_model(struct json_object *m, const char *type, char *out, size_t n)
{
    int k = snprintf(out, n, "%s nugget %.6g, psill %.6g, range %.6g", type, jnum(m, "nugget"), jnum(m, "psill"),
                     jnum(m, "range"));
    if (jget(m, "kappa") && k >= 0 && (size_t)k < n)
        snprintf(out + k, n - (size_t)k, ", kappa %g", jnum(m, "kappa"));
}

/* "neighbourhood: ...": nmax given, or chosen among candidates (method 1.12). */
static void nmax_line(struct json_object *nb, int model_given, run_line_fn fn, void *arg)
{
    struct json_object *c = jget(nb, "candidates");
    size_t n = jbool(nb, "chosen") ? array_len(c) : 0;
    if (!n) {
        emit(fn, arg, "neighbourhood: nmax %lld (%s)", jint(nb, "nmax"),
             model_given ? "given, or the default with a given model" : "given");
        return;
    }
    char list[1024] = "";
    size_t len = 0;
    for (size_t k = 0; k < n && len < sizeof list; k++) {
        struct json_object *x = json_object_array_get_idx(c, k);
        int w = snprintf(list + len, sizeof list - len, "%s nmax %lld rmse %.6g", k ? "," : "", jint(x, "nmax"),
                         jnum(x, "rmse"));
        len = w < 0 ? sizeof list : len + (size_t)w;
    }
    emit(fn, arg, "neighbourhood: nmax %lld, the smallest within %g %% of the least leave-one-out RMSE (same subsample):%s",
         jint(nb, "nmax"), 100 * jnum(nb, "tolerance"), list);
}

static void krige_head(struct json_object *o, run_line_fn fn, void *arg)
{
    struct json_object *in = jget(o, "input"), *v = jget(o, "sample_variogram");
    if (!strcmp(jstr(in, "kind"), "raster"))
        emit(fn, arg, "input: '%s', %lld samples with data (of %lld cells)", jstr(in, "path"), jint(in, "samples"),
             jint(in, "cells"));
    else
        emit(fn, arg, "input: '%s', %lld points", jstr(in, "path"), jint(in, "samples"));
    emit(fn, arg, "working CRS: %s", jstr(o, "working_crs"));
    if (v)
        emit(fn, arg, "sample variogram: %lld lags to %.6g (width %.6g) from %lld points%s", jint(v, "lags"),
             jnum(v, "cutoff"), jnum(v, "width"), jint(v, "points"),
             jbool(v, "subsample") ? " (seeded subsample)" : " (all pairs)");
}

static void krige_tail(struct json_object *o, run_line_fn fn, void *arg)
{
    struct json_object *m = jget(o, "model"), *g = jget(o, "grid"), *nb = jget(o, "neighbourhood"),
                       *cv = jget(o, "cross_validation"), *sim = jget(o, "simulation");
    char model[512];
    run_lines_model(m, jstr(m, "type"), model, sizeof model);
    emit(fn, arg, "model%s: %s", jbool(m, "given") ? " (given)" : "", model);
    if (nb) /* absent before the nmax choice */
        nmax_line(nb, jbool(m, "given"), fn, arg);
    emit(fn, arg,
         "grid: %lld x %lld cells of %g, %s; %lld by stencil, %lld by lattice frames (%lld frames, %lld fell back), "
         "%lld by block systems (%lld factorised), %lld nodata",
         jint(g, "nx"), jint(g, "ny"), jnum(g, "cell"), jstr(g, "crs"), jint(g, "by_stencil"), jint(g, "by_frame"),
         jint(g, "frames"), jint(g, "frame_fallbacks"), jint(g, "by_block"), jint(g, "factorised"), jint(g, "nodata"));
    if (cv)
        emit(fn, arg,
             "leave-one-out (%lld points): RMSE %.6g, MAE %.6g, mean error %.6g, mean squared standardised error %.6g",
             jint(cv, "points"), jnum(cv, "rmse"), jnum(cv, "mae"), jnum(cv, "mean_error"), jnum(cv, "msse"));
    if (sim)
        emit(fn, arg, "realisations: %lld (seeded), sill scaled by the leave-one-out MSSE %.4g (docs/method.md 1.11)",
             jint(sim, "realisations"), jnum(sim, "sill_scale"));
}

void run_lines_krige(struct json_object *o, run_lines_part part, run_line_fn fn, void *arg)
{
    if (part == RUN_LINES_HEAD)
        krige_head(o, fn, arg);
    else
        krige_tail(o, fn, arg);
}

/* ---- speed.json ---- */

static void speed_head(struct json_object *o, run_line_fn fn, void *arg)
{
    struct json_object *v = jget(o, "vehicle"), *c = jget(o, "vci");
    emit(fn, arg, "vehicle: %s (%s, %.0f kg, %.1f kW, eta %.2f, top %.0f km/h, max slope %.1f deg)", jstr(v, "name"),
         jstr(v, "kind"), jnum(v, "gross_mass_kg"), jnum(v, "engine_power_kW"), jnum(v, "drivetrain_efficiency"),
         jnum(v, "top_speed_kmh"), jnum(v, "max_slope_deg"));
    emit(fn, arg, "MI %.2f; VCI1 %.2f RCI = %.1f kPa; VCI50 %.2f RCI = %.1f kPa (NRMM formulas)", jnum(c, "mi"),
         jnum(c, "vci1_rci"), jnum(c, "vci1_nrmm_kPa"), jnum(c, "vci50_rci"), jnum(c, "vci50_nrmm_kPa"));
    int o1 = jbool(c, "vci1_overridden"), o50 = jbool(c, "vci50_overridden");
    if (o1 || o50)
        emit(fn, arg, "in force: VCI1 %.1f kPa%s, VCI50 %.1f kPa%s", jnum(c, "vci1_kPa"),
             o1 ? " (the vehicle file's override)" : "", jnum(c, "vci50_kPa"),
             o50 ? " (the vehicle file's override)" : "");
    if (!jbool(o, "traction_check"))
        emit(fn, arg, "traction check skipped: the soil table has no c_kPa, phi_deg, K_m columns");
}

static void speed_tail(struct json_object *o, run_line_fn fn, void *arg)
{
    struct json_object *n = jget(o, "cells"), *s = jget(o, "speed_go_kmh"), *lg = jget(o, "limits_go");
    double data = (double)jint(n, "with_data");
    long long go = jint(n, "go"), zone_limited = 0;
    emit(fn, arg,
         "GO: %.1f %% of the cells with data (%lld of %.0f); NOGO by slope %lld, soil %lld, land use %lld, traction "
         "%lld; no data %lld",
         data > 0 ? 100.0 * (double)go / data : 0, go, data, jint(n, "nogo_slope"), jint(n, "nogo_soil"),
         jint(n, "nogo_landuse"), jint(n, "nogo_traction"), jint(n, "nodata"));
    char limits[1024] = "";
    size_t len = 0;
    for (size_t k = 0; k < array_len(lg); k++) {
        struct json_object *x = json_object_array_get_idx(lg, k);
        if (jint(x, "code") == RUN_LINES_LIMIT_ZONE) {
            zone_limited = jint(x, "cells");
            continue;
        }
        int w = snprintf(limits + len, len < sizeof limits ? sizeof limits - len : 0, "%s %s %.1f %%", len ? "," : "",
                         jstr(x, "name"), go ? 100.0 * (double)jint(x, "cells") / (double)go : 0);
        len = w < 0 ? sizeof limits : len + (size_t)w;
    }
    if (jint(n, "nogo_zone") || zone_limited)
        emit(fn, arg, "zones: %lld cells NOGO, %lld GO cells slowed or capped", jint(n, "nogo_zone"), zone_limited);
    emit(fn, arg, "speed over GO cells: mean %.2f km/h, max %.2f km/h", jnum(s, "mean"), jnum(s, "max"));
    if (lg) /* absent before the binding limits */
        emit(fn, arg, "binding limit over the GO cells:%s", limits);
}

void run_lines_speed(struct json_object *o, run_lines_part part, run_line_fn fn, void *arg)
{
    if (part == RUN_LINES_HEAD)
        speed_head(o, fn, arg);
    else
        speed_tail(o, fn, arg);
}

/* ---- cost.json ---- */

void run_lines_cost(struct json_object *o, run_line_fn fn, void *arg)
{
    struct json_object *g = jget(o, "grid"), *cls = jget(o, "classes");
    long long with_data = jint(g, "cells_with_data"), nodata = jint(g, "nodata_cells");
    emit(fn, arg, "grid: %lld x %lld cells of %g m, %s; %lld cells with data", jint(g, "nx"), jint(g, "ny"),
         jnum(g, "cell_m"), jstr(g, "crs"), with_data);
    emit(fn, arg, "rules: '%s', %lld rules, %s", jstr(jget(o, "inputs"), "rules"), jint(o, "rule_count"),
         jstr(o, "defuzzifier"));
    char line[4096];
    size_t n = (size_t)snprintf(line, sizeof line, "classes (share of the cells with data):");
    for (size_t c = 0, nc = array_len(cls); c < nc && n < sizeof line; c++) {
        struct json_object *k = json_object_array_get_idx(cls, c);
        n += (size_t)snprintf(line + n, sizeof line - n, " %s %.2f %%%s", jstr(k, "name"), 100.0 * jnum(k, "fraction"),
                              c + 1 < nc ? "," : "");
    }
    fn(arg, line);
    if (nodata)
        emit(fn, arg, "no data: %lld cells (class 0, cost 1)", nodata);
    emit(fn, arg, "cost: mean %.4f over the GO cells", jnum(o, "cost_mean_go"));
}

/* ---- roadmap.json ---- */

void run_lines_roadmap(struct json_object *o, run_line_fn fn, void *arg)
{
    long long nodes = jint(o, "nodes");
    /* the seed is written as a signed 64-bit integer (core/json.c) */
    emit(fn, arg, "GO area %.1f km2; %lld LHS samples, %lld in NOGO rejected; %lld nodes (seed %llu)",
         jnum(o, "go_area_km2"), jint(o, "samples"), jint(o, "rejected"), nodes, (unsigned long long)jint(o, "seed"));
    emit(fn, arg, "%lld edges (%s); %lld connected components, the largest with %lld nodes (%.1f %%)", jint(o, "edges"),
         jstr(o, "edge_rule"), jint(o, "components"), jint(o, "largest"),
         100.0 * (double)jint(o, "largest") / (double)nodes);
    emit(fn, arg, "coverage: %.1f %% of the GO cells lie within one node spacing of a node", 100 * jnum(o, "coverage"));
    if (jget(o, "go_regions")) /* the raster bridges (absent with --straight-only) */
        emit(fn, arg,
             "GO regions: %lld (4-connected), %lld of them held a sampled node, %lld got one; straight edges left %lld "
             "components, %lld raster bridges (%lld nodes, %lld edges) joined them to %lld",
             jint(o, "go_regions"), jint(o, "go_regions_with_nodes"), jint(o, "region_nodes"),
             jint(o, "components_straight"), jint(o, "bridges"), jint(o, "bridge_nodes"), jint(o, "bridge_edges"),
             jint(o, "components"));
    if (jnum(o, "detour_stretch") > 0) /* the detour bridges (docs/method.md 4.4) */
        emit(fn, arg, "detour bridges (stretch %g): %lld (%lld nodes, %lld edges)", jnum(o, "detour_stretch"),
             jint(o, "detour_bridges"), jint(o, "detour_nodes"), jint(o, "detour_edges"));
}
