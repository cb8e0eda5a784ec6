/* trv-cost: fuzzy mobility cost (docs/method.md §3). Thin: options ->
 * fz_engine_read, then fz_map_run (--terrain) or
 * fz_eval_csv (--eval) -> exit status. */
#include "core/json.h"
#include "core/split.h"
#include "fuzzy/fuzzy.h"
#include "fuzzy/realize.h"
#include "qgis/qgis.h"
#include "run/lines.h"
#include "run/run.h"
#include "tool.h"
#ifdef TRV_MPI
#include "mpi_split.h" /* bin/mpi/trv-cost: fz_map_run's blocks over the MPI ranks, rank 0 writes */
#endif

#include <json-c/json.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* What trv-cost prints: cost.json's lines (run/lines.h, as the report
 * reads them), then the times, which the summary leaves out. */
static void report(const fz_map *m, struct json_object *doc, const char *dir)
{
    run_lines_cost(doc, tool_print_line, NULL);
    double cps = m->seconds_infer > 0 ? (double)m->cells / m->seconds_infer : 0;
    printf("time: read %.2f s, inference %.2f s (%.3g cells/s), write %.2f s\n", m->seconds_read, m->seconds_infer, cps,
           m->seconds_write);
    printf("wrote '%s/cost.tif' and '%s/class.tif'\n", dir, dir);
}

/* cost.json (docs/summaries.md): the figures report() prints but the
 * times, at full precision. */
static void summary(trv_json *js, const fz_engine *e, const fz_map *m, const char *rules, const char *soils,
                    const trv_meta *meta)
{
    const geo_grid *g = &m->grid;
    const size_t with_data = m->cells - m->nodata;
    trv_json_meta(js, meta);
    trv_json_obj(js, "inputs");
    trv_json_str(js, "rules", rules);
    trv_json_str(js, "soils", soils);
    trv_json_end(js);
    tool_json_grid(js, g);
    trv_json_int(js, "cells_with_data", (long long)with_data);
    trv_json_int(js, "nodata_cells", (long long)m->nodata);
    trv_json_end(js);
    trv_json_int(js, "rule_count", fz_nrules(e));
    trv_json_str(js, "defuzzifier", fz_defuzz_name(fz_defuzzifier(e)));
    trv_json_arr(js, "classes");
    const int T = fz_nterms(e, fz_ninputs(e));
    for (int c = 0; c <= T; c++) {
        size_t k = c == 0 ? m->count[0] - m->nodata : m->count[c];
        trv_json_obj(js, NULL);
        trv_json_int(js, "class", c);
        trv_json_str(js, "name", m->classes->c[c].name);
        trv_json_int(js, "cells", (long long)k);
        trv_json_num(js, "fraction", "%.10g", with_data ? (double)k / (double)with_data : 0.0);
        trv_json_end(js);
    }
    trv_json_end(js);
    trv_json_num(js, "cost_mean_go", "%.10g", m->cost_mean_go);
}

/* --realizations: cost_mean.tif and cost_std.tif (realize.h) with their
 * styles in the set, and cost.json's "realizations" object. */
static trv_status write_realizations(trv_ctx *ctx, trv_outset *set, const fz_engine *e, const fz_map_opts *o,
                                     const char *sims, const trv_meta *meta, trv_json *js)
{
    fz_real r;
    const char *dir = o->dir;
    trv_status st = fz_realize(ctx, set, e, dir, o->soils_path, sims, meta, o->split, &r);
    const char *const files[2] = {FZ_REAL_MEAN_TIF, FZ_REAL_STD_TIF};
    for (int k = 0; k < 2 && !st; k++) { /* the range of the data cells (none: 0..1) */
        const geo_block_stats *s = &r.stats[k];
        st = qgis_qml_stage_range(ctx, set, dir, files[k], fz_real_desc(k), NULL, s->count ? s->min : 1,
                                  s->count ? s->max : 0);
    }
    if (!st) {
        trv_json_obj(js, "realizations");
        trv_json_str(js, "file", sims);
        trv_json_int(js, "count", r.n);
        trv_json_num(js, "cost_std_mean", "%.10g", r.std_mean);
        trv_json_num(js, "cost_std_max", "%.10g", r.std_max);
        trv_json_end(js);
    }
    return st;
}

/* cost.tif, class.tif, the style of cost.tif (class.tif has its colour
 * table) and DIR/cost.json in one set: all or none. */
static trv_status write_all(trv_ctx *ctx, const fz_engine *e, const fz_map_opts *o, fz_map *m, const char *rules,
                            const char *sims, const trv_meta *meta, struct json_object **doc)
{
    const char *dir = o->dir, *soils = o->soils_path;
    tool_out out;
    trv_status st = tool_out_open(ctx, &out, trv_path_join(dir, run_other_file(RUN_O_COST_JSON)));
    out.doc = doc;
    if (!st && !(st = fz_map_run(ctx, out.set, e, o, meta, m)) &&
        !(st = qgis_qml_stage_range(ctx, out.set, dir, run_file(RUN_COST), FZ_COST_DESC, NULL, m->cost_min,
                                    m->cost_max)))
        summary(out.js, e, m, rules, soils, meta);
    if (sims && o->split) /* every rank learns whether to go on to the realisations */
        st = o->split->agree(ctx, o->split, st);
    if (!st && sims)
        st = write_realizations(ctx, out.set, e, o, sims, meta, out.js);
    return tool_out_close(ctx, &out, st);
}

/* A rank but 0: its blocks of the cost map, then (sims not NULL), once
 * every rank has agreed to go on, its blocks of the realisations. */
static trv_status other_rank(trv_ctx *ctx, const fz_engine *e, const fz_map_opts *o, fz_map *m, const char *sims)
{
    trv_status st = fz_map_run(ctx, NULL, e, o, NULL, m);
    if (sims && o->split) /* as rank 0 does */
        st = o->split->agree(ctx, o->split, st);
    fz_real r;
    return !st && sims ? fz_realize(ctx, NULL, e, o->dir, o->soils_path, sims, NULL, o->split, &r) : st;
}

int main(int argc, char **argv)
{
    const char *terrain = NULL, *rules = NULL, *eval = NULL, *out = NULL, *soils = NULL, *defuzz = NULL, *sims = NULL;
    int threads = 0, rank = 0;
#ifdef TRV_MPI
    trv_split split;
    mpi_split_start(&argc, &argv, &split);
    rank = split.rank;
#endif
    const trv_opt opts[] = {
        {"terrain", 0, TRV_ARG_STRING, &terrain, "DIR",
         "read DIR/{dem,slope,soil,speed,gonogo}.tif, write DIR/cost.tif, DIR/class.tif and the summary DIR/cost.json"},
        {"rules", 0, TRV_ARG_STRING, &rules, "FILE", "FCL rules (default: fuzzy/mobility.fcl in the data directory)"},
        {"defuzzifier", 0, TRV_ARG_CHOICE, &defuzz, "centroid|mom|som",
         "crisp mobility (default: the rules file's METHOD, centroid in the bundled files)"},
        {"soils", 0, TRV_ARG_STRING, &soils, "CSV",
         "soil table with code and ci_kPa (default: classes/soils.csv in the data directory)"},
        {"eval", 0, TRV_ARG_STRING, &eval, "INPUTS.csv",
         "evaluate the rules on a CSV whose columns include every input; adds mobility, cost, class"},
        {"output", 'o', TRV_ARG_STRING, &out, "OUT.csv", "with --eval: write here instead of standard output"},
        {"threads", 0, TRV_ARG_INT, &threads, "N", "worker threads for the map (default: all cores)"},
        {"realizations", 0, TRV_ARG_STRING, &sims, "SIM.tif", "with --terrain: also the cost's mean and standard deviation over terrain realisations (band k = realisation k of dem.tif, e.g. trv-krige --nsim's dem_sim.tif; the speed model of DIR's trv-speed copies): DIR/cost_mean.tif, DIR/cost_std.tif"},
        {NULL, 0, 0, NULL, NULL, NULL},
    };
    const trv_cli cli = {
        .tool = "trv-cost",
        .usage = "--terrain DIR [--rules FCL] [--defuzzifier centroid|mom|som] [--soils CSV] [--threads N] [-q]\n"
                 "   or: trv-cost --rules FCL --eval INPUTS.csv [-o OUT.csv]",
        .summary = "Fuzzy mobility cost (Mamdani max-min, exact centroid): from slope, elevation, soil cone index\n"
                   "and attainable speed, cost in [0, 1] (1 = worst, NOGO = 1) and the class 0 NOGO, 1 high-risk,\n"
                   "2 low-risk, 3 safe (the output term of largest strength). The rules are an IEC 61131-7 FCL file.",
        .opts = opts,
        .libraries = tool_libraries,
    };
    trv_cli_result res;
    trv_ctx *ctx = tool_start(&cli, argc, argv, &res);
    const char *usage = NULL;
    if (!terrain == !eval)
        usage = terrain ? "--terrain and --eval exclude each other" : "give --terrain DIR or --rules FCL --eval CSV";
    else if (eval && !rules)
        usage = "--eval needs --rules FCL";
    else if (out && !eval)
        usage = "-o goes with --eval (the map is written into the --terrain directory)";
    else if (soils && !terrain)
        usage = "--soils goes with --terrain";
    else if (sims && !terrain)
        usage = "--realizations goes with --terrain";
    else if (threads < 0)
        usage = "--threads must be positive";
    if (usage)
        tool_usage(&cli, ctx, usage);
    const char *const ins[4] = {eval, rules, soils, sims};
    const char *const names[5] = {run_file(RUN_COST), run_file(RUN_CLASS), run_other_file(RUN_O_COST_JSON),
                                  FZ_REAL_MEAN_TIF, FZ_REAL_STD_TIF};
    if (terrain)
        tool_outputs_check_dir(&cli, ctx, terrain, names, sims ? 5 : 3, NULL, 0, ins, 4);
    else {
        tool_outputs_check(&cli, ctx, &out, 1, ins, 4);
        tool_folders_check(&cli, ctx, &out, 1);
    }
    if (!terrain)
        trv_ctx_set_progress(ctx, NULL, NULL); /* --eval writes to stdout: keep the terminal clean */

    char *rules_default = NULL, *soils_default = NULL;
    fz_engine *e = NULL;
    fz_map m = {0};
    trv_status st = TRV_OK;
    if (!rules && !(rules = rules_default = trv_data_path(ctx, "fuzzy/mobility.fcl")))
        st = TRV_ERR_IO;
    if (!st && terrain && !soils && !(soils = soils_default = trv_data_path(ctx, "classes/soils.csv")))
        st = TRV_ERR_IO;
    if (!st)
        st = fz_engine_read(ctx, rules, &e);
    if (!st && defuzz)
        fz_set_defuzzifier(e, !strcmp(defuzz, "mom") ? FZ_MOM : !strcmp(defuzz, "som") ? FZ_SOM : FZ_COG);
    if (!st && eval) {
        st = fz_eval_csv(ctx, e, eval, out);
    } else if (!st) {
        trv_meta meta;
        trv_meta_init(&meta, cli.tool, argc, argv);
        trv_meta_add(&meta, "TRV_RULES", rules);
        trv_meta_add(&meta, "TRV_DEFUZZIFIER", fz_defuzz_name(fz_defuzzifier(e)));
        trv_meta_add(&meta, "TRV_INPUT_RULES", rules);
        trv_meta_add(&meta, "TRV_INPUT_SOILS", soils);
        fz_map_opts o;
        fz_map_opts_init(&o);
        o.dir = terrain;
        o.soils_path = soils;
        o.threads = threads;
#ifdef TRV_MPI
        o.split = &split;
#endif
        struct json_object *doc = NULL;
        st = rank ? other_rank(ctx, e, &o, &m, sims)
                  : write_all(ctx, e, &o, &m, rules, sims, &meta, res.quiet ? NULL : &doc);
        if (!st && doc)
            report(&m, doc, terrain);
        json_object_put(doc);
        fz_map_clear(&m);
    }
    fz_engine_free(e);
    free(rules_default);
    free(soils_default);
#ifdef TRV_MPI
    if (rank) /* rank 0 reports every rank's error */
        trv_ctx_free(ctx);
    return mpi_split_end(rank ? st != TRV_OK : tool_end(&cli, ctx, st));
#endif
    return tool_end(&cli, ctx, st);
}
