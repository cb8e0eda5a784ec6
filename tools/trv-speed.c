/* trv-speed: vehicle cone index, Bekker/Bakker resistance, attainable
 * speed and GO/NOGO maps. Thin: options -> tm_* -> exit status. */
#include "core/json.h"
#include "core/split.h"
#include "qgis/qgis.h"
#include "run/lines.h"
#include "run/run.h"
#include "terramech/moisture.h"
#include "terramech/realize.h"
#include "terramech/terramech.h"
#include "tool.h"
#ifdef TRV_MPI
#include "mpi_split.h" /* bin/mpi/trv-speed: tm_run_split's blocks over the MPI ranks, rank 0 writes */
#endif

#include <json-c/json.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* The copies of the model's inputs in the run directory (run.h), in the
 * order of main's inputs: vehicle, soils, land-use classes. */
static const run_oid COPIES[3] = {RUN_O_SPEED_VEHICLE, RUN_O_SPEED_SOILS, RUN_O_SPEED_LANDUSE};

/* 1 when path is the run directory's copy itself (one device and inode:
 * the user passed the copy back, e.g. to rerun with the model a run was
 * made with); that copy is left as it is. */
static int is_copy(const char *dir, run_oid id, const char *path)
{
    char *c = path ? run_other_path(dir, id) : NULL;
    struct stat a, b;
    int same = c && stat(c, &a) == 0 && stat(path, &b) == 0 && a.st_dev == b.st_dev && a.st_ino == b.st_ino;
    free(c);
    return same;
}

/* Byte copies of the model's inputs into the run directory, in the set;
 * an input that is its copy already is not rewritten. At a moisture the
 * soil table is written as used instead (tm_moisture_soils_write). */
static trv_status write_copies(trv_ctx *ctx, trv_outset *set, const char *dir, const char *const src[3],
                               const tm_soils *soils, const tm_moisture_used *mu)
{
    trv_status st = TRV_OK;
    for (int k = 0; k < 3 && !st; k++) {
        if (k == 1 && mu->active) {
            char *path = run_other_path(dir, COPIES[k]);
            st = path ? tm_moisture_soils_write(ctx, set, soils, mu, path)
                      : trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
            free(path);
            continue;
        }
        if (is_copy(dir, COPIES[k], src[k]))
            continue;
        size_t len = 0;
        char *bytes = trv_file_read(ctx, src[k], &len), *path = run_other_path(dir, COPIES[k]);
        const char *tmp = bytes && path ? trv_outset_add(set, path) : NULL;
        FILE *f = tmp ? fopen(tmp, "wb") : NULL;
        if (!bytes)
            st = TRV_ERR_IO; /* trv_file_read's message */
        else if (!tmp)
            st = trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
        else if (!f || fwrite(bytes, 1, len, f) != len)
            st = trv_error(ctx, TRV_ERR_IO, "cannot write '%s'", path);
        if (f && fclose(f) != 0 && !st)
            st = trv_error(ctx, TRV_ERR_IO, "cannot write '%s'", path);
        free(bytes);
        free(path);
    }
    return st;
}

/* DIR/moisture.tif: the moisture raster on the terrain grid, in the set. */
static trv_status write_moisture_map(trv_ctx *ctx, trv_outset *set, const char *dir, const geo_raster *map,
                                     const trv_meta *meta)
{
    char *path = trv_path_join(dir, TM_MOISTURE_TIF);
    const char *tmp = path ? trv_outset_add(set, path) : NULL;
    trv_status st = tmp ? geo_raster_write(ctx, map, tmp, meta) : trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
    free(path);
    return st;
}

/* One grade's line of the limits table. */
static void print_grade(const tm_model *m, const char *lu, const char *soil, int s, int l, double grade)
{
    tm_class_speed cs;
    tm_class_speed_at(m, s, l, grade, &cs);
    char g[32], lim[TM_NLIMITS][16];
    if (grade == 0)
        snprintf(g, sizeof g, "flat");
    else
        snprintf(g, sizeof g, "%g %s", grade, cs.downhill ? "down" : "up");
    for (int k = 1; k < TM_NLIMITS; k++)
        if (isinf(cs.at.lim_ms[k]))
            snprintf(lim[k], sizeof lim[k], "-");
        else
            snprintf(lim[k], sizeof lim[k], "%.1f", cs.at.lim_ms[k] * 3.6);
    printf("%-18.18s %-14.14s %-8s %8.3f %6.3f %6s %6s %6s %6s %6s %6s %6.1f  %s\n", lu, soil, g, cs.at.pull_N / 1000,
           cs.at.slip, lim[1], lim[2], lim[3], lim[4], lim[5], lim[6], cs.speed_kmh,
           cs.reason == TM_GO ? tm_limit_name(cs.limit) : tm_reason_name(cs.reason));
}

/* Every limit per land use and soil, on the flat and in the worse
 * direction at TM_REPORT_GRADE_DEG (the report's rows). */
static void print_limits(const tm_model *m, const tm_soils *soils)
{
    printf("speed limits per land use and soil, km/h ('-': does not bind), on the flat and in the worse direction at "
           "%g deg:\n", TM_REPORT_GRADE_DEG);
    printf("%-18s %-14s %-8s %8s %6s %6s %6s %6s %6s %6s %6s %6s  %s\n", "land use", "soil", "grade", "pull kN", "slip",
           "top", "power", "tract", "ride", "veg", "brake", "speed", "binds");
    for (int l = 1; l < 256; l++)
        for (int i = 0; i < soils->n && m->landuse_nogo[l] != 2; i++) {
            print_grade(m, m->lu_name[l], soils->s[i].name, soils->s[i].code, l, 0);
            print_grade(m, "", "", soils->s[i].code, l, TM_REPORT_GRADE_DEG);
        }
}

/* What trv-speed prints: speed.json's lines (run/lines.h, the report's
 * too) around the per-soil and per-class tables. */
static void print_report(const tm_model *m, const tm_soils *soils, struct json_object *doc)
{
    const tm_vehicle *v = m->v;
    const tm_vci *c = &m->vci;
    run_lines_speed(doc, RUN_LINES_HEAD, tool_print_line, NULL);
    printf("%-4s %-16s %8s %-7s %9s %12s %11s %10s %s\n", "code", "soil", "CI kPa", "mode", "sinkage", "R/tyre kN",
           "R total kN", "thrust kN", "pass");
    for (int i = 0; i < soils->n; i++) {
        const tm_soil *s = &soils->s[i];
        const tm_contact *k = &m->contact[s->code];
        double r = m->resistance_total_kN[s->code];
        char thrust[32] = "-";
        if (!isnan(m->thrust_total_kN[s->code]))
            snprintf(thrust, sizeof thrust, "%.4f", m->thrust_total_kN[s->code]);
        printf("%-4d %-16s %8.1f %-7s %9.4f %12.4f %11.4f %10s %s\n", s->code, s->name, s->ci_kPa, tm_soil_mode(m, s->code),
               k->sinkage_m, v->kind == TM_WHEELED ? k->resistance_kN : r, r, thrust,
               s->ci_kPa >= c->vci50_kPa ? "easy" : s->ci_kPa >= c->vci1_kPa ? "difficult" : "no");
        if (k->mode == TM_ELASTIC && k->deflection_m > v->tyre_section_height_m)
            printf("     warning: on %s the tyre would deflect %.3f m, more than its section height %.3f m\n", s->name,
                   k->deflection_m, v->tyre_section_height_m);
    }
    print_limits(m, soils);
    run_lines_speed(doc, RUN_LINES_TAIL, tool_print_line, NULL);
}

_Static_assert(TM_LIMIT_ZONE == RUN_LINES_LIMIT_ZONE, "speed.json's zone limit code, as run/lines.c reads it");

static void json_vehicle(trv_json *js, const tm_model *m)
{
    const tm_vehicle *v = m->v;
    const tm_vci *c = &m->vci;
    trv_json_obj(js, "vehicle");
    trv_json_str(js, "name", v->name);
    trv_json_str(js, "kind", v->kind == TM_WHEELED ? "wheeled" : "tracked");
    trv_json_num(js, "gross_mass_kg", "%.10g", v->gross_mass_kg);
    trv_json_num(js, "engine_power_kW", "%.10g", v->engine_power_kW);
    trv_json_num(js, "drivetrain_efficiency", "%.10g", v->drivetrain_efficiency);
    trv_json_num(js, "top_speed_kmh", "%.10g", v->top_speed_kmh);
    trv_json_num(js, "max_slope_deg", "%.10g", m->max_slope_deg);
    trv_json_end(js);
    trv_json_obj(js, "vci");
    trv_json_num(js, "mi", "%.10g", c->mi);
    trv_json_num(js, "vci1_rci", "%.10g", c->vci1_rci);
    trv_json_num(js, "vci50_rci", "%.10g", c->vci50_rci);
    trv_json_num(js, "vci1_nrmm_kPa", "%.10g", c->vci1_rci * TM_KPA_PER_RCI);
    trv_json_num(js, "vci50_nrmm_kPa", "%.10g", c->vci50_rci * TM_KPA_PER_RCI);
    trv_json_num(js, "vci1_kPa", "%.10g", c->vci1_kPa);
    trv_json_num(js, "vci50_kPa", "%.10g", c->vci50_kPa);
    trv_json_bool(js, "vci1_overridden", c->vci1_overridden);
    trv_json_bool(js, "vci50_overridden", c->vci50_overridden);
    trv_json_end(js);
    trv_json_bool(js, "traction_check", m->traction);
}

static void json_soils(trv_json *js, const tm_model *m, const tm_soils *soils)
{
    const tm_vci *c = &m->vci;
    trv_json_arr(js, "soils");
    for (int i = 0; i < soils->n; i++) {
        const tm_soil *s = &soils->s[i];
        const tm_contact *k = &m->contact[s->code];
        double r = m->resistance_total_kN[s->code];
        trv_json_obj(js, NULL);
        trv_json_int(js, "code", s->code);
        trv_json_str(js, "name", s->name);
        trv_json_num(js, "ci_kPa", "%.10g", s->ci_kPa);
        trv_json_str(js, "mode", tm_soil_mode(m, s->code));
        trv_json_num(js, "sinkage_m", "%.10g", k->sinkage_m);
        trv_json_num(js, "resistance_per_tyre_kN", "%.10g", m->v->kind == TM_WHEELED ? k->resistance_kN : r);
        trv_json_num(js, "resistance_total_kN", "%.10g", r);
        trv_json_num(js, "thrust_kN", "%.10g", m->thrust_total_kN[s->code]);
        trv_json_str(js, "pass", s->ci_kPa >= c->vci50_kPa ? "easy" : s->ci_kPa >= c->vci1_kPa ? "difficult" : "no");
        trv_json_end(js);
    }
    trv_json_end(js);
}

/* One grade of one class in speed.json. */
static void json_grade(trv_json *js, const char *key, const tm_model *m, int s, int l, double grade)
{
    tm_class_speed cs;
    tm_class_speed_at(m, s, l, grade, &cs);
    trv_json_obj(js, key);
    trv_json_num(js, "grade_deg", "%.10g", grade);
    trv_json_str(js, "direction", cs.downhill ? "down" : "up");
    trv_json_num(js, "pull_kN", "%.10g", cs.at.pull_N / 1000);
    trv_json_num(js, "slip", "%.10g", cs.at.slip);
    trv_json_obj(js, "limits_kmh");
    for (int k = 1; k < TM_NLIMITS; k++)
        trv_json_num(js, tm_limit_name(k), "%.10g", cs.at.lim_ms[k] * 3.6);
    trv_json_end(js);
    trv_json_num(js, "speed_kmh", "%.10g", cs.speed_kmh);
    trv_json_int(js, "gonogo", cs.reason);
    trv_json_int(js, "limit", cs.limit);
    trv_json_str(js, "binds", cs.reason == TM_GO ? tm_limit_name(cs.limit) : tm_reason_name(cs.reason));
    trv_json_end(js);
}

/* The table of print_limits and the report, per land use and soil. */
static void json_classes(trv_json *js, const tm_model *m, const tm_soils *soils)
{
    trv_json_arr(js, "classes");
    for (int l = 1; l < 256; l++)
        for (int i = 0; i < soils->n && m->landuse_nogo[l] != 2; i++) {
            const tm_soil *s = &soils->s[i];
            trv_json_obj(js, NULL);
            trv_json_int(js, "landuse_code", l);
            trv_json_str(js, "landuse", m->lu_name[l]);
            trv_json_int(js, "soil_code", s->code);
            trv_json_str(js, "soil", s->name);
            json_grade(js, "flat", m, s->code, l, 0);
            json_grade(js, "grade", m, s->code, l, TM_REPORT_GRADE_DEG);
            trv_json_end(js);
        }
    trv_json_end(js);
}

/* The GO cells by the limit that binds, counts and shares. */
static void json_limits(trv_json *js, const tm_stats *st, int zoned)
{
    trv_json_arr(js, "limits_go");
    for (int k = 1; k < (zoned ? TM_NLIMIT_CODES : TM_NLIMITS); k++) {
        trv_json_obj(js, NULL);
        trv_json_int(js, "code", k);
        trv_json_str(js, "name", tm_limit_name(k));
        trv_json_int(js, "cells", (long long)st->limit[k]);
        trv_json_num(js, "share", "%.10g", st->go ? (double)st->limit[k] / (double)st->go : 0);
        trv_json_end(js);
    }
    trv_json_end(js);
}

/* speed.json's "zones" object (docs/summaries.md): the files as given. */
static void json_zones(trv_json *js, const tm_zone_opts *zo)
{
    trv_json_obj(js, "zones");
    trv_json_str(js, "file", zo->path);
    trv_json_str(js, "crossings", zo->crossings);
    if (zo->crossings && zo->radius_m > 0)
        trv_json_num(js, "crossing_radius_m", "%.10g", zo->radius_m);
    else
        trv_json_str(js, "crossing_radius_m", NULL);
    trv_json_end(js);
}

/* speed.json's "moisture" object (docs/summaries.md): the moisture each
 * soil was taken at. */
static void json_moisture(trv_json *js, const tm_soils *soils, const tm_moisture_used *u)
{
    trv_json_obj(js, "moisture");
    trv_json_str(js, "mode", u->mode);
    trv_json_str(js, "condition", u->opts.condition);
    if (isnan(u->opts.pct))
        trv_json_str(js, "moisture_pct", NULL);
    else
        trv_json_num(js, "moisture_pct", "%.10g", u->opts.pct);
    trv_json_str(js, "raster", u->opts.raster);
    trv_json_bool(js, "clamp", u->opts.clamp);
    trv_json_str(js, "table", u->opts.table ? u->opts.table : TM_MOISTURE_TABLE); /* as given: no clone path */
    trv_json_arr(js, "soils");
    for (int i = 0; i < soils->n; i++) {
        const tm_soil *s = &soils->s[i];
        trv_json_obj(js, NULL);
        trv_json_int(js, "code", s->code);
        trv_json_str(js, "name", s->name);
        if (isnan(u->soil_pct[s->code]))
            trv_json_str(js, "moisture_pct", NULL);
        else
            trv_json_num(js, "moisture_pct", "%.10g", u->soil_pct[s->code]);
        trv_json_bool(js, "clamped", u->clamped[s->code]);
        if (u->opts.raster)
            trv_json_int(js, "raster_cells", (long long)u->raster_cells[s->code]);
        trv_json_end(js);
    }
    trv_json_end(js);
    trv_json_end(js);
}

/* speed.json (docs/summaries.md): the vehicle, MI/VCI, the per-soil table
 * and the GO/NOGO counts print_report prints, at full precision. */
static void summary(trv_json *js, const tm_model *m, const tm_soils *soils, const tm_stats *st,
                    const char *const in[4], const trv_meta *meta, const tm_moisture_used *mu, const tm_zone_opts *zo)
{
    static const char *const keys[4] = {"terrain", "vehicle", "soils", "landuse_classes"};
    trv_json_meta(js, meta);
    trv_json_obj(js, "inputs");
    for (int k = 0; k < 4; k++)
        trv_json_str(js, keys[k], in[k]);
    trv_json_end(js);
    json_vehicle(js, m);
    if (mu->active)
        json_moisture(js, soils, mu);
    if (zo->path)
        json_zones(js, zo);
    json_soils(js, m, soils);
    trv_json_obj(js, "cells");
    trv_json_int(js, "all", (long long)st->cells);
    trv_json_int(js, "with_data", (long long)(st->cells - st->nodata));
    trv_json_int(js, "go", (long long)st->go);
    trv_json_int(js, "nogo_slope", (long long)st->reason[1]);
    trv_json_int(js, "nogo_soil", (long long)st->reason[2]);
    trv_json_int(js, "nogo_landuse", (long long)st->reason[3]);
    trv_json_int(js, "nogo_traction", (long long)st->reason[4]);
    if (zo->path)
        trv_json_int(js, "nogo_zone", (long long)st->reason[TM_NOGO_ZONE]);
    trv_json_int(js, "nodata", (long long)st->nodata);
    trv_json_end(js);
    trv_json_obj(js, "speed_go_kmh");
    trv_json_num(js, "mean", "%.10g", st->speed_mean_kmh);
    trv_json_num(js, "max", "%.10g", st->speed_max_kmh);
    trv_json_end(js);
    json_limits(js, st, zo->path != NULL);
    json_classes(js, m, soils);
}

/* --realizations: the per-cell statistics over SIM.tif (realize.h),
 * streamed into the set, and their styles (P(NOGO) 0..1 on ylorrd, speeds
 * 0..top speed); speed.json's "realizations" object (docs/summaries.md). */
static trv_status write_realizations(trv_ctx *ctx, trv_outset *set, const tm_model *m, const char *dir,
                                     const char *sims, const tm_zone_opts *zo, const trv_meta *meta,
                                     const struct trv_split *sp, trv_json *js)
{
    tm_real r;
    trv_status st = tm_realize_zoned(ctx, set, m, dir, sims, zo, meta, NULL, sp, &r); /* the zones in every realisation */
    for (int k = 0; k < TM_REAL_NOUT && !st; k++) {
        char *path = trv_path_join(dir, tm_real_file(k));
        const char *tmp = path ? qgis_qml_add(ctx, set, path) : NULL;
        int p = k < TM_REAL_SPEED_MEAN;
        st = !tmp ? trv_error(ctx, TRV_ERR_NOMEM, "out of memory")
                  : qgis_qml_raster_write(ctx, tmp, rnd_palette_find(p ? "ylorrd" : "viridis"), 0,
                                          p ? 1 : m->v->top_speed_kmh, p ? NULL : TM_SPEED_UNIT, tm_real_desc(k));
        free(path);
    }
    if (!st) {
        trv_json_obj(js, "realizations");
        trv_json_str(js, "file", sims);
        trv_json_int(js, "count", r.n);
        trv_json_int(js, "cells_with_data", (long long)(r.cells - r.nodata));
        trv_json_int(js, "always_go", (long long)r.always_go);
        trv_json_int(js, "always_nogo", (long long)r.always_nogo);
        trv_json_int(js, "uncertain", (long long)r.uncertain);
        trv_json_num(js, "p_nogo_mean", "%.10g", r.p_nogo_mean);
        trv_json_end(js);
    }
    return st;
}

/* speed.tif, gonogo.tif, limit.tif, the style of speed.tif over 0 to the
 * vehicle's top speed (gonogo.tif and limit.tif have their colour
 * tables), the report, the copies of the model's inputs and
 * DIR/speed.json in one set: all or none. */
static trv_status write_all(trv_ctx *ctx, const tm_model *m, const tm_soils *soils, const char *const in[5],
                            const char *report, const trv_meta *meta, tm_stats *stats, const tm_moisture_used *mu,
                            const tm_zone_opts *zo, const struct trv_split *sp, struct json_object **doc)
{
    const char *dir = in[0];
    tool_out out;
    trv_status st = tool_out_open(ctx, &out, trv_path_join(dir, run_other_file(RUN_O_SPEED_JSON)));
    out.doc = doc;
    char *path = run_path(dir, RUN_SPEED);
    const char *tmp = !st && path ? qgis_qml_add(ctx, out.set, path) : NULL;
    if (!st)
        st = !tmp ? trv_error(ctx, TRV_ERR_NOMEM, "out of memory")
                  : qgis_qml_raster_write(ctx, tmp, rnd_palette_auto(TM_SPEED_DESC, TM_SPEED_UNIT), 0,
                                          m->v->top_speed_kmh, TM_SPEED_UNIT, TM_SPEED_DESC);
    if (!st)
        st = tm_run_split(ctx, out.set, m, dir, meta, zo, sp, stats);
    else if (sp) /* the other ranks wait in the split's first agreement: they learn of the failure there */
        st = sp->agree(ctx, sp, st);
    if (!st && report)
        st = tm_report_write(ctx, out.set, m, soils, report);
    if (!st)
        st = write_copies(ctx, out.set, dir, in + 1, soils, mu);
    if (!st && mu->map)
        st = write_moisture_map(ctx, out.set, dir, mu->map, meta);
    if (!st)
        summary(out.js, m, soils, stats, in, meta, mu, zo);
    if (in[4] && sp) /* every rank learns whether to go on to the realisations */
        st = sp->agree(ctx, sp, st);
    if (!st && in[4])
        st = write_realizations(ctx, out.set, m, dir, in[4], zo, meta, sp, out.js);
    free(path);
    return tool_out_close(ctx, &out, st);
}

/* A rank but 0: its blocks of the speed maps, then (sims not NULL), once
 * every rank has agreed to go on, its blocks of the realisations. */
static trv_status other_rank(trv_ctx *ctx, const tm_model *m, const char *dir, const char *sims,
                             const tm_zone_opts *zo, const struct trv_split *sp, tm_stats *stats)
{
    trv_status st = tm_run_split(ctx, NULL, m, dir, NULL, zo, sp, stats);
    if (sims && sp) /* as rank 0 does */
        st = sp->agree(ctx, sp, st);
    tm_real r;
    return !st && sims ? tm_realize_zoned(ctx, NULL, m, dir, sims, zo, NULL, NULL, sp, &r) : st;
}

/* The moisture options: a percentage from 0 to 100, at most one of the
 * three; NULL when they are right, else the usage message. */
static const char *moisture_usage(const tm_moisture_opts *mo)
{
    int given = !isnan(mo->pct) + !!mo->condition + !!mo->raster;
    if (given > 1)
        return "--moisture, --condition and --moisture-raster exclude each other";
    if (!isnan(mo->pct) && !(mo->pct >= 0 && mo->pct <= 100))
        return "--moisture must be a percentage from 0 to 100";
    if (!given && (mo->clamp || mo->table))
        return "--clamp-moisture and --moisture-table go with --moisture, --condition or --moisture-raster";
    return NULL;
}

int main(int argc, char **argv)
{
    const char *dir = NULL, *vehicle = NULL, *soils_path = NULL, *landuse_path = NULL, *report = NULL, *sims = NULL;
    tm_moisture_opts mo = {.pct = NAN};
    tm_zone_opts zo = {NULL, NULL, 0};
    const struct trv_split *sp = NULL;
    int rank = 0;
#ifdef TRV_MPI
    trv_split split;
    mpi_split_start(&argc, &argv, &split);
    sp = &split, rank = split.rank;
#endif
    const trv_opt opts[] = {
        {"terrain", 0, TRV_ARG_STRING, &dir, "DIR", "terrain directory: slope.tif, soil.tif, landuse.tif in; speed.tif, gonogo.tif, limit.tif, the summary speed.json and copies of the vehicle file and tables (speed_vehicle.ini, speed_soils.csv, speed_landuse.csv) out"},
        {"vehicle", 0, TRV_ARG_STRING, &vehicle, "VEHICLE.ini", "vehicle file (bundled: vehicles/*.ini in the data directory)"},
        {"soils", 0, TRV_ARG_STRING, &soils_path, "CSV", "soil table (default: classes/soils.csv in the data directory)"},
        {"landuse-classes", 0, TRV_ARG_STRING, &landuse_path, "CSV", "land-use table with a nogo column (default: classes/landuse.csv in the data directory)"},
        {"report", 0, TRV_ARG_STRING, &report, "REPORT.csv", "write the report: every speed limit per land use and soil, on the flat and at 10 deg"},
        {"moisture", 0, TRV_ARG_DOUBLE, &mo.pct, "PCT", "every soil at this moisture content (%, 0 to 100), interpolated between the moisture table's rows (docs/method.md)"},
        {"condition", 0, TRV_ARG_CHOICE, &mo.condition, "dry|normal|wet", "every soil in this condition: the moisture table's row of that name (normal: the soil table's values)"},
        {"moisture-raster", 0, TRV_ARG_STRING, &mo.raster, "FILE", "a soil-moisture raster (%, any CRS; nearest cell onto the terrain grid, written as DIR/moisture.tif): each soil at its median moisture over its cells"},
        {"clamp-moisture", 0, TRV_ARG_FLAG, &mo.clamp, NULL, "outside a soil's tabulated moistures use the nearest end's values (default: an error naming the soil and its range)"},
        {"moisture-table", 0, TRV_ARG_STRING, &mo.table, "CSV", "soil values per moisture (default: classes/soils_moisture.csv in the data directory; its codes and names those of --soils)"},
        {"zones", 0, TRV_ARG_STRING, &zo.path, "FILE", "no-go and preference zones baked into the maps (any OGR vector, any CRS; effect nogo|factor|max_speed, value; docs/zones.md): nogo cells all touched NOGO (reason zone), speed / factor and min(speed, max_speed) by cell centre"},
        {"crossings", 0, TRV_ARG_STRING, &zo.crossings, "FILE", "with --zones: points (bridges, fords, gates) where a nogo line stays open within a radius (attribute radius, m)"},
        {"crossing-radius", 0, TRV_ARG_DOUBLE, &zo.radius_m, "M", "the crossings' radius without a radius attribute (default: one cell)"},
        {"realizations", 0, TRV_ARG_STRING, &sims, "SIM.tif", "also the statistics over terrain realisations (band k = realisation k of dem.tif, e.g. trv-krige --nsim's dem_sim.tif): per cell P(NOGO) (p_nogo.tif; by slope: p_nogo_slope.tif) and the speed's mean, p10, p50, p90 (speed_mean.tif, speed_p10.tif, ...) in DIR; --zones are baked into every realisation (P(NOGO) 1 in nogo zones)"},
        {NULL, 0, 0, NULL, NULL, NULL},
    };
    static const char *const required[] = {"terrain", "vehicle", NULL};
    const trv_cli cli = {
        .tool = "trv-speed",
        .usage = "--terrain DIR --vehicle VEHICLE.ini [options]",
        .summary = "Vehicle cone index (NRMM), Bekker/Bakker tyre-soil sinkage and resistance per soil, the attainable\n"
                   "speed as the smallest of the speed limits (top speed, power, traction, ride, vegetation,\n"
                   "visibility/braking) and GO/NOGO with its reason, from a terrain directory made by trv-terrain.\n"
                   "Writes DIR/speed.tif (km/h, the worse direction of travel, 0 where NOGO), DIR/gonogo.tif and\n"
                   "DIR/limit.tif (the limit that binds).",
        .opts = opts,
        .libraries = tool_libraries,
        .required = required,
    };
    trv_cli_result res;
    trv_ctx *ctx = tool_start(&cli, argc, argv, &res);
    if (moisture_usage(&mo))
        tool_usage(&cli, ctx, moisture_usage(&mo));
    if (zo.crossings && !zo.path)
        tool_usage(&cli, ctx, "--crossings needs --zones");
    if (!(zo.radius_m >= 0))
        tool_usage(&cli, ctx, "--crossing-radius must be >= 0 (0: one cell)");
    char *layers[3] = {run_path(dir, RUN_SLOPE), run_path(dir, RUN_SOIL), run_path(dir, RUN_LANDUSE)};
    if (!layers[0] || !layers[1] || !layers[2])
        return tool_end(&cli, ctx, trv_error(ctx, TRV_ERR_NOMEM, "out of memory"));
    /* the copies are outputs, unless an input is its copy already */
    const char *names[8 + TM_REAL_NOUT] = {run_file(RUN_SPEED), run_file(RUN_GONOGO), run_file(RUN_LIMIT),
                            run_other_file(RUN_O_SPEED_JSON)};
    size_t nn = 4;
    const char *const ins[9] = {layers[0],  layers[1],    layers[2], vehicle,
                                soils_path, landuse_path, mo.table,  mo.raster, sims};
    for (int k = 0; k < 3; k++)
        if (!is_copy(dir, COPIES[k], ins[3 + k]))
            names[nn++] = run_other_file(COPIES[k]);
    if (mo.raster)
        names[nn++] = TM_MOISTURE_TIF;
    for (int k = 0; k < TM_REAL_NOUT && sims; k++)
        names[nn++] = tm_real_file(k);
    tool_outputs_check_dir(&cli, ctx, dir, names, nn, &report, 1, ins, 9);
    tool_folders_check(&cli, ctx, &report, 1);
    for (int k = 0; k < 3; k++)
        free(layers[k]);
    trv_meta meta;
    trv_meta_init(&meta, cli.tool, argc, argv);
    char *soils_default = NULL, *landuse_default = NULL;
    tm_vehicle *v = NULL;
    tm_soils *soils = NULL;
    tm_model m;
    tm_stats stats;
    tm_moisture_used mu = {0};
    trv_status st = TRV_OK;
    if (!soils_path && !(soils_path = soils_default = trv_data_path(ctx, "classes/soils.csv")))
        st = TRV_ERR_IO;
    if (!st && !landuse_path && !(landuse_path = landuse_default = trv_data_path(ctx, "classes/landuse.csv")))
        st = TRV_ERR_IO;
    if (!st && !(st = tm_vehicle_read(ctx, vehicle, &v)) && !(st = tm_soils_read(ctx, soils_path, &soils)) &&
        !(st = tm_moisture_apply(ctx, &mo, dir, soils, &mu)) &&
        !(st = tm_model_init(ctx, &m, v, soils, landuse_path))) {
        char buf[256];
        snprintf(buf, sizeof buf, "%s: MI %.3f, VCI1 %.1f kPa%s, VCI50 %.1f kPa%s", v->name, m.vci.mi, m.vci.vci1_kPa,
                 m.vci.vci1_overridden ? " (file)" : "", m.vci.vci50_kPa, m.vci.vci50_overridden ? " (file)" : "");
        trv_meta_add(&meta, "TRV_VEHICLE", buf);
        trv_meta_add(&meta, "TRV_INPUT_VEHICLE", vehicle);
        trv_meta_add(&meta, "TRV_INPUT_SOILS", soils_path);
        trv_meta_add(&meta, "TRV_INPUT_LANDUSE_CLASSES", landuse_path);
        const char *const in[5] = {dir, vehicle, soils_path, landuse_path, sims};
        if (zo.path)
            trv_meta_add(&meta, "TRV_INPUT_ZONES", zo.path);
        struct json_object *doc = NULL;
        if (rank == 0)
            st = write_all(ctx, &m, soils, in, report, &meta, &stats, &mu, &zo, sp, res.quiet ? NULL : &doc);
        else /* the other ranks compute their blocks */
            st = other_rank(ctx, &m, dir, sims, &zo, sp, &stats);
        if (!st && !res.quiet && rank == 0)
            print_report(&m, soils, doc);
        json_object_put(doc);
    }
    tm_moisture_used_clear(&mu);
    tm_vehicle_free(v);
    tm_soils_free(soils);
    free(soils_default);
    free(landuse_default);
#ifdef TRV_MPI
    if (rank) /* rank 0 reports every rank's error */
        trv_ctx_free(ctx);
    return mpi_split_end(rank ? st != TRV_OK : tool_end(&cli, ctx, st));
#endif
    return tool_end(&cli, ctx, st);
}
