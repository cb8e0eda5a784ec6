/* trv-speed: vehicle cone index, Bekker/Bakker resistance, attainable
 * speed and GO/NOGO maps. Thin: options -> tm_* -> exit status. */
#include "core/json.h"
#include "qgis/qgis.h"
#include "run/run.h"
#include "terramech/terramech.h"
#include "tool.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static void print_report(const tm_model *m, const tm_soils *soils, const tm_stats *st)
{
    const tm_vehicle *v = m->v;
    const tm_vci *c = &m->vci;
    printf("vehicle: %s (%s, %.0f kg, %.1f kW, eta %.2f, top %.0f km/h, max slope %.1f deg)\n", v->name,
           v->kind == TM_WHEELED ? "wheeled" : "tracked", v->gross_mass_kg, v->engine_power_kW, v->drivetrain_efficiency,
           v->top_speed_kmh, m->max_slope_deg);
    printf("MI %.2f; VCI1 %.2f RCI = %.1f kPa; VCI50 %.2f RCI = %.1f kPa (NRMM formulas)\n", c->mi, c->vci1_rci,
           c->vci1_rci * TM_KPA_PER_RCI, c->vci50_rci, c->vci50_rci * TM_KPA_PER_RCI);
    if (c->vci1_overridden || c->vci50_overridden)
        printf("in force: VCI1 %.1f kPa%s, VCI50 %.1f kPa%s\n", c->vci1_kPa,
               c->vci1_overridden ? " (the vehicle file's override)" : "", c->vci50_kPa,
               c->vci50_overridden ? " (the vehicle file's override)" : "");
    if (!m->traction)
        printf("traction check skipped: the soil table has no c_kPa, phi_deg, K_m columns\n");
    static const char *const modes[3] = {"rigid", "elastic", "track"};
    printf("%-4s %-16s %8s %-7s %9s %12s %11s %10s %9s %9s %s\n", "code", "soil", "CI kPa", "mode", "sinkage", "R/tyre kN",
           "R total kN", "thrust kN", "v flat", "v 10deg", "pass");
    for (int i = 0; i < soils->n; i++) {
        const tm_soil *s = &soils->s[i];
        const tm_contact *k = &m->contact[s->code];
        double r = m->resistance_total_kN[s->code];
        char thrust[32] = "-";
        if (!isnan(m->thrust_total_kN[s->code]))
            snprintf(thrust, sizeof thrust, "%.4f", m->thrust_total_kN[s->code]);
        printf("%-4d %-16s %8.1f %-7s %9.4f %12.4f %11.4f %10s %9.2f %9.2f %s\n", s->code, s->name, s->ci_kPa,
               modes[k->mode], k->sinkage_m, v->kind == TM_WHEELED ? k->resistance_kN : r, r, thrust,
               tm_speed_kmh(m, r, 0), tm_speed_kmh(m, r, 10),
               s->ci_kPa >= c->vci50_kPa ? "easy" : s->ci_kPa >= c->vci1_kPa ? "difficult" : "no");
        if (k->mode == TM_ELASTIC && k->deflection_m > v->tyre_section_height_m)
            printf("     warning: on %s the tyre would deflect %.3f m, more than its section height %.3f m\n", s->name,
                   k->deflection_m, v->tyre_section_height_m);
    }
    if (st) {
        double data = (double)(st->cells - st->nodata);
        printf("GO: %.1f %% of the cells with data (%zu of %.0f); NOGO by slope %zu, soil %zu, land use %zu, traction "
               "%zu; no data %zu\n",
               data > 0 ? 100.0 * st->go / data : 0, st->go, data, st->reason[1], st->reason[2], st->reason[3],
               st->reason[4], st->nodata);
        printf("speed over GO cells: mean %.2f km/h, max %.2f km/h\n", st->speed_mean_kmh, st->speed_max_kmh);
    }
}

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
    static const char *const modes[3] = {"rigid", "elastic", "track"};
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
        trv_json_str(js, "mode", modes[k->mode]);
        trv_json_num(js, "sinkage_m", "%.10g", k->sinkage_m);
        trv_json_num(js, "resistance_per_tyre_kN", "%.10g", m->v->kind == TM_WHEELED ? k->resistance_kN : r);
        trv_json_num(js, "resistance_total_kN", "%.10g", r);
        trv_json_num(js, "thrust_kN", "%.10g", m->thrust_total_kN[s->code]);
        trv_json_num(js, "speed_flat_kmh", "%.10g", tm_speed_kmh(m, r, 0));
        trv_json_num(js, "speed_10deg_kmh", "%.10g", tm_speed_kmh(m, r, 10));
        trv_json_str(js, "pass", s->ci_kPa >= c->vci50_kPa ? "easy" : s->ci_kPa >= c->vci1_kPa ? "difficult" : "no");
        trv_json_end(js);
    }
    trv_json_end(js);
}

/* speed.json (docs/summaries.md): the vehicle, MI/VCI, the per-soil table
 * and the GO/NOGO counts print_report prints, at full precision. */
static void summary(trv_json *js, const tm_model *m, const tm_soils *soils, const tm_stats *st,
                    const char *const in[4], const trv_meta *meta)
{
    static const char *const keys[4] = {"terrain", "vehicle", "soils", "landuse_classes"};
    trv_json_meta(js, meta);
    trv_json_obj(js, "inputs");
    for (int k = 0; k < 4; k++)
        trv_json_str(js, keys[k], in[k]);
    trv_json_end(js);
    json_vehicle(js, m);
    json_soils(js, m, soils);
    trv_json_obj(js, "cells");
    trv_json_int(js, "all", (long long)st->cells);
    trv_json_int(js, "with_data", (long long)(st->cells - st->nodata));
    trv_json_int(js, "go", (long long)st->go);
    trv_json_int(js, "nogo_slope", (long long)st->reason[1]);
    trv_json_int(js, "nogo_soil", (long long)st->reason[2]);
    trv_json_int(js, "nogo_landuse", (long long)st->reason[3]);
    trv_json_int(js, "nogo_traction", (long long)st->reason[4]);
    trv_json_int(js, "nodata", (long long)st->nodata);
    trv_json_end(js);
    trv_json_obj(js, "speed_go_kmh");
    trv_json_num(js, "mean", "%.10g", st->speed_mean_kmh);
    trv_json_num(js, "max", "%.10g", st->speed_max_kmh);
    trv_json_end(js);
}

/* speed.tif, gonogo.tif, the style of speed.tif over 0 to the vehicle's
 * top speed (gonogo.tif has its colour table), the per-soil report and
 * DIR/speed.json in one set: all or none. */
static trv_status write_all(trv_ctx *ctx, const tm_model *m, const tm_soils *soils, const char *const in[4],
                            const char *report, const trv_meta *meta, tm_stats *stats)
{
    const char *dir = in[0];
    tool_out out;
    trv_status st = tool_out_open(ctx, &out, trv_path_join(dir, run_other_file(RUN_O_SPEED_JSON)));
    char *path = run_path(dir, RUN_SPEED);
    const char *tmp = !st && path ? qgis_qml_add(ctx, out.set, path) : NULL;
    if (!st)
        st = !tmp ? trv_error(ctx, TRV_ERR_NOMEM, "out of memory")
                  : qgis_qml_raster_write(ctx, tmp, rnd_palette_auto(TM_SPEED_DESC, TM_SPEED_UNIT), 0,
                                          m->v->top_speed_kmh, TM_SPEED_UNIT, TM_SPEED_DESC);
    if (!st)
        st = tm_run(ctx, out.set, m, dir, meta, stats);
    if (!st && report)
        st = tm_report_write(ctx, out.set, m, soils, report);
    if (!st)
        summary(out.js, m, soils, stats, in, meta);
    free(path);
    return tool_out_close(ctx, &out, st);
}

int main(int argc, char **argv)
{
    const char *dir = NULL, *vehicle = NULL, *soils_path = NULL, *landuse_path = NULL, *report = NULL;
    const trv_opt opts[] = {
        {"terrain", 0, TRV_ARG_STRING, &dir, "DIR", "terrain directory: slope.tif, soil.tif, landuse.tif in, speed.tif, gonogo.tif and the summary speed.json out"},
        {"vehicle", 0, TRV_ARG_STRING, &vehicle, "VEHICLE.ini", "vehicle file (bundled: vehicles/*.ini in the data directory)"},
        {"soils", 0, TRV_ARG_STRING, &soils_path, "CSV", "soil table (default: classes/soils.csv in the data directory)"},
        {"landuse-classes", 0, TRV_ARG_STRING, &landuse_path, "CSV", "land-use table with a nogo column (default: classes/landuse.csv in the data directory)"},
        {"report", 0, TRV_ARG_STRING, &report, "REPORT.csv", "write the per-soil report"},
        {NULL, 0, 0, NULL, NULL, NULL},
    };
    static const char *const required[] = {"terrain", "vehicle", NULL};
    const trv_cli cli = {
        .tool = "trv-speed",
        .usage = "--terrain DIR --vehicle VEHICLE.ini [options]",
        .summary = "Vehicle cone index (NRMM), Bekker/Bakker tyre-soil sinkage and resistance per soil, attainable\n"
                   "speed v = eta P / (R + W sin(slope)) and GO/NOGO with its reason, from a terrain directory\n"
                   "made by trv-terrain. Writes DIR/speed.tif (km/h, 0 where NOGO) and DIR/gonogo.tif.",
        .opts = opts,
        .libraries = tool_libraries,
        .required = required,
    };
    trv_cli_result res;
    trv_ctx *ctx = tool_start(&cli, argc, argv, &res);
    char *layers[3] = {run_path(dir, RUN_SLOPE), run_path(dir, RUN_SOIL), run_path(dir, RUN_LANDUSE)};
    if (!layers[0] || !layers[1] || !layers[2])
        return tool_end(&cli, ctx, trv_error(ctx, TRV_ERR_NOMEM, "out of memory"));
    const char *const names[3] = {run_file(RUN_SPEED), run_file(RUN_GONOGO), run_other_file(RUN_O_SPEED_JSON)};
    const char *const ins[6] = {layers[0], layers[1], layers[2], vehicle, soils_path, landuse_path};
    tool_outputs_check_dir(&cli, ctx, dir, names, 3, &report, 1, ins, 6);
    for (int k = 0; k < 3; k++)
        free(layers[k]);
    trv_meta meta;
    trv_meta_init(&meta, cli.tool, argc, argv);
    char *soils_default = NULL, *landuse_default = NULL;
    tm_vehicle *v = NULL;
    tm_soils *soils = NULL;
    tm_model m;
    tm_stats stats;
    trv_status st = TRV_OK;
    if (!soils_path && !(soils_path = soils_default = trv_data_path(ctx, "classes/soils.csv")))
        st = TRV_ERR_IO;
    if (!st && !landuse_path && !(landuse_path = landuse_default = trv_data_path(ctx, "classes/landuse.csv")))
        st = TRV_ERR_IO;
    if (!st && !(st = tm_vehicle_read(ctx, vehicle, &v)) && !(st = tm_soils_read(ctx, soils_path, &soils)) &&
        !(st = tm_model_init(ctx, &m, v, soils, landuse_path))) {
        char buf[256];
        snprintf(buf, sizeof buf, "%s: MI %.3f, VCI1 %.1f kPa%s, VCI50 %.1f kPa%s", v->name, m.vci.mi, m.vci.vci1_kPa,
                 m.vci.vci1_overridden ? " (file)" : "", m.vci.vci50_kPa, m.vci.vci50_overridden ? " (file)" : "");
        trv_meta_add(&meta, "TRV_VEHICLE", buf);
        trv_meta_add(&meta, "TRV_INPUT_VEHICLE", vehicle);
        trv_meta_add(&meta, "TRV_INPUT_SOILS", soils_path);
        trv_meta_add(&meta, "TRV_INPUT_LANDUSE_CLASSES", landuse_path);
        const char *const in[4] = {dir, vehicle, soils_path, landuse_path};
        st = write_all(ctx, &m, soils, in, report, &meta, &stats);
        if (!st && !res.quiet)
            print_report(&m, soils, &stats);
    }
    tm_vehicle_free(v);
    tm_soils_free(soils);
    free(soils_default);
    free(landuse_default);
    return tool_end(&cli, ctx, st);
}
