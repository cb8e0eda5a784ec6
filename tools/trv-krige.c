/* trv-krige: refine a DEM (or krige points) onto a metric grid by ordinary
 * kriging. Thin: options -> krg_job_run/krg_job_write -> exit status. */
#include "core/json.h"
#include "kriging/krige.h"
#include "kriging/sim.h"
#include "qgis/qgis.h"
#include "run/lines.h"
#include "run/run.h"
#include "tool.h"

#include <json-c/json.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* What trv-krige prints: krige.json's lines (run/lines.h, the report's
 * too), the candidate models between them, and the time. */
static void report(const krg_job *j, const krg_job_opts *o, struct json_object *doc, double seconds)
{
    run_lines_krige(doc, RUN_LINES_HEAD, tool_print_line, NULL);
    if (j->cands) {
        printf("candidates (leave-one-out RMSE on a seeded subsample of up to %zu points):\n", o->choice.cv_points);
        struct json_object *cands = json_object_object_get(doc, "candidates");
        for (int k = 0; k < j->ncand; k++) {
            const krg_candidate *c = &j->cands[k];
            printf("  %-5s %-10s ", krg_model_name(c->model.type),
                   c->exact ? "exact" : c->short_lags ? "short-lag" : "full");
            if (!c->ok) {
                printf("fit failed\n");
                continue;
            }
            char model[512];
            run_lines_model(json_object_array_get_idx(cands, (size_t)k), krg_model_name(c->model.type), model,
                            sizeof model);
            printf("%s; rmse %.6g\n", model, c->cv_rmse);
        }
    }
    run_lines_krige(doc, RUN_LINES_TAIL, tool_print_line, NULL);
    printf("time: %.2f s\n", seconds);
}

static void json_model(trv_json *js, const krg_model *m)
{
    trv_json_num(js, "nugget", "%.6g", m->nugget);
    trv_json_num(js, "psill", "%.6g", m->psill);
    trv_json_num(js, "range", "%.6g", m->range);
    if (m->type == KRG_MAT)
        trv_json_num(js, "kappa", "%g", m->kappa);
}

/* The sample variogram and the candidate models of krige.json. */
static void json_variogram(trv_json *js, const krg_job *j, const krg_job_opts *o)
{
    if (j->vgm) {
        trv_json_obj(js, "sample_variogram");
        trv_json_int(js, "lags", j->vgm->nlags);
        trv_json_num(js, "cutoff", "%.6g", j->vgm->cutoff);
        trv_json_num(js, "width", "%.6g", j->vgm->width);
        trv_json_int(js, "points", (long long)j->vgm->npoints);
        trv_json_bool(js, "subsample", j->vgm->npoints < j->pts->n);
        trv_json_arr(js, "bins");
        for (int k = 0; k < j->vgm->nlags; k++) {
            trv_json_obj(js, NULL);
            trv_json_int(js, "np", j->vgm->np[k]);
            trv_json_num(js, "dist", "%.10g", j->vgm->dist[k]);
            trv_json_num(js, "gamma", "%.10g", j->vgm->gamma[k]);
            trv_json_end(js);
        }
        trv_json_end(js);
        trv_json_end(js);
    }
    if (j->cands) {
        trv_json_int(js, "cv_points", (long long)o->choice.cv_points);
        trv_json_arr(js, "candidates");
        for (int k = 0; k < j->ncand; k++) {
            const krg_candidate *c = &j->cands[k];
            trv_json_obj(js, NULL);
            trv_json_str(js, "model", krg_model_name(c->model.type));
            trv_json_str(js, "fit", c->exact ? "exact" : c->short_lags ? "short-lag" : "full");
            trv_json_bool(js, "ok", c->ok);
            if (c->ok) {
                json_model(js, &c->model);
                trv_json_num(js, "rmse", "%.6g", c->cv_rmse);
            }
            trv_json_end(js);
        }
        trv_json_end(js);
    }
}

/* The neighbourhood of krige.json: nmax, and how it was chosen. */
static void json_nmax(trv_json *js, const krg_job *j)
{
    const krg_nmax_choice *c = &j->nmax_choice;
    trv_json_obj(js, "neighbourhood");
    trv_json_int(js, "nmax", j->krige.nmax);
    trv_json_bool(js, "chosen", c->n > 0);
    if (c->n) {
        trv_json_num(js, "tolerance", "%g", KRG_NMAX_TOL);
        trv_json_arr(js, "candidates");
        for (int k = 0; k < c->n; k++) {
            trv_json_obj(js, NULL);
            trv_json_int(js, "nmax", c->nmax[k]);
            trv_json_num(js, "rmse", "%.6g", c->cv_rmse[k]);
            trv_json_end(js);
        }
        trv_json_end(js);
    }
    trv_json_end(js);
}

/* krige.json: what report() prints, as data (docs/summaries.md), with the
 * figures at the precision printed; no time. */
static void summary(trv_json *js, const krg_job *j, const krg_job_opts *o, const trv_meta *meta)
{
    char crs[64];
    const geo_grid *g = &j->grid;
    trv_json_meta(js, meta);
    trv_json_obj(js, "input");
    trv_json_str(js, "path", j->input_label);
    trv_json_str(js, "kind", j->raster_input ? "raster" : "points");
    trv_json_int(js, "samples", (long long)j->pts->n);
    if (j->raster_input)
        trv_json_int(js, "cells", (long long)j->input_cells);
    trv_json_end(js);
    trv_json_str(js, "working_crs", geo_crs_label(j->work_wkt, crs, sizeof crs));
    json_variogram(js, j, o);
    trv_json_obj(js, "model");
    trv_json_str(js, "type", krg_model_name(j->model.type));
    trv_json_bool(js, "given", !j->cands);
    json_model(js, &j->model);
    trv_json_end(js);
    json_nmax(js, j);
    trv_json_obj(js, "grid");
    trv_json_int(js, "nx", g->nx);
    trv_json_int(js, "ny", g->ny);
    trv_json_num(js, "cell", "%g", g->gt[1]);
    trv_json_str(js, "crs", geo_crs_label(g->wkt, crs, sizeof crs));
    trv_json_int(js, "by_stencil", (long long)j->stats.stencil);
    trv_json_int(js, "by_frame", (long long)j->stats.frame);
    trv_json_int(js, "frames", (long long)j->stats.frames);
    trv_json_int(js, "frame_fallbacks", (long long)j->stats.frame_fail);
    trv_json_int(js, "frame_blocks", (long long)j->stats.frame_blocks);
    trv_json_num(js, "et", "%g", o->krige.et);
    trv_json_int(js, "by_block", (long long)j->stats.block);
    trv_json_int(js, "factorised", (long long)j->stats.systems);
    trv_json_int(js, "nodata", (long long)j->stats.nodata);
    trv_json_end(js);
    if (j->cv_pred) {
        trv_json_obj(js, "cross_validation");
        trv_json_int(js, "points", (long long)j->cv.n);
        trv_json_num(js, "rmse", "%.6g", j->cv.rmse);
        trv_json_num(js, "mae", "%.6g", j->cv.mae);
        trv_json_num(js, "mean_error", "%.6g", j->cv.me);
        trv_json_num(js, "msse", "%.6g", j->cv.msse);
        trv_json_end(js);
    }
    if (j->nsim > 0) {
        trv_json_obj(js, "simulation");
        trv_json_int(js, "realisations", j->nsim);
        trv_json_num(js, "sill_scale", "%.4g", j->sim_scale);
        int m1 = 0, m2 = 0;
        krg_sim_torus(j->sim, &m1, &m2);
        trv_json_int(js, "torus_columns", m1);
        trv_json_int(js, "torus_rows", m2);
        trv_json_str(js, "conditioned_by", krg_sim_keeps_weights(j->sim) ? "weights" : "kriging");
        trv_json_end(js);
    }
}

/* A streamed layer's QGIS style, from the range its writer saw. */
static trv_status style(trv_ctx *ctx, trv_outset *set, const char *path, const char *desc, const geo_block_stats *s)
{
    const char *tmp = qgis_qml_add(ctx, set, path);
    return tmp ? qgis_qml_raster_range(ctx, desc, "m", s->count ? s->min : INFINITY, s->count ? s->max : -INFINITY,
                                       tmp)
               : TRV_ERR_NOMEM;
}

/* The layers, their styles and krige.json (beside the DEM) in one set:
 * all of them or none. */
static trv_status write_all(trv_ctx *ctx, krg_job *j, const krg_job_opts *o, const krg_job_paths *paths,
                            const trv_meta *meta, struct json_object **doc)
{
    tool_out out;
    trv_status st = tool_out_open(ctx, &out, trv_path_beside(paths->dem, run_other_file(RUN_O_KRIGE_JSON)));
    out.doc = doc;
    if (!st)
        st = krg_job_write(ctx, out.set, j, paths, meta);
    /* QGIS styles beside the layers (qgis sits above kriging, so the tool
     * adds them) */
    if (!st)
        st = style(ctx, out.set, paths->dem, "elevation", &j->dem_stats);
    if (!st && paths->std)
        st = style(ctx, out.set, paths->std, "kriging standard deviation", &j->std_stats);
    if (!st)
        summary(out.js, j, o, meta);
    return tool_out_close(ctx, &out, st);
}

int main(int argc, char **argv)
{
    krg_job_opts o;
    krg_job_opts_init(&o);
    o.te[0] = NAN; /* NAN: --te not given */
    krg_job_paths paths = {0};
    const char *model = "auto", *fit = "7";
    double nugget = NAN, psill = NAN, range = NAN, kappa = NAN, cutoff = 0, width = 0, maxdist = NAN, tr = NAN;
    uint64_t seed = 1;
    int nmax = INT_MIN; /* INT_MIN: not given */
    const trv_opt opts[] = {
        {"output", 'o', TRV_ARG_STRING, &paths.dem, "DEM.tif", "the kriged DEM (Float32, metres); krige.json, the run's summary, beside it"},
        {"std", 0, TRV_ARG_STRING, &paths.std, "STD.tif", "also write the kriging standard deviation"},
        {"t_srs", 0, TRV_ARG_STRING, &o.t_srs, "CRS", "target CRS (default: the input's if projected, else its UTM zone)"},
        {"tr", 0, TRV_ARG_DOUBLE, &tr, "RES", "target cell size, > 0 (default: the input cell size / 3)"},
        {"like", 0, TRV_ARG_STRING, &o.like, "RASTER", "take the target CRS, extent and cell size from RASTER"},
        {"te", 0, TRV_ARG_DOUBLES, o.te, "xmin ymin xmax ymax", "target extent in the target CRS", 4},
        {"model", 0, TRV_ARG_CHOICE, &model, "auto|sph|exp|gau|mat|pow", "variogram model (default auto: best by LOOCV)"},
        {"nugget", 0, TRV_ARG_DOUBLE, &nugget, "V", "fixed model: nugget (with --psill, --range and a --model)"},
        {"psill", 0, TRV_ARG_DOUBLE, &psill, "V", "fixed model: partial sill"},
        {"range", 0, TRV_ARG_DOUBLE, &range, "V", "fixed model: range (gstat's parameter; Pow: exponent)"},
        {"kappa", 0, TRV_ARG_DOUBLE, &kappa, "V", "Matern smoothness (default 1.5)"},
        {"fit-method", 0, TRV_ARG_CHOICE, &fit, "7|2|6", "weights: 7 N/h^2 (default), 2 Cressie, 6 OLS"},
        {"cutoff", 0, TRV_ARG_DOUBLE, &cutoff, "M", "variogram cutoff (default: 1/3 of the diagonal)"},
        {"width", 0, TRV_ARG_DOUBLE, &width, "M", "variogram lag width (default: cutoff / 15)"},
        {"nmax", 0, TRV_ARG_INT, &nmax, "N", "neighbours per target, 0: all points (default: 16, 36 or 64 by leave-one-out; 16 with a given model)"},
        {"maxdist", 0, TRV_ARG_DOUBLE, &maxdist, "M", "targets with no sample this close are nodata"},
        {"et", 0, TRV_ARG_DOUBLE, &o.krige.et, "PIXELS", "a raster source's lattice frames: largest deviation from their affine maps, in source pixels (default 0.01; 0: exact per block)"},
        {"nsim", 0, TRV_ARG_INT, &o.nsim, "N", "also N conditional realisations (seeded by --seed), one band each"},
        {"sim", 0, TRV_ARG_STRING, &paths.sim, "OUT.tif", "where the realisations go (default: dem_sim.tif beside -o)"},
        {"variogram", 0, TRV_ARG_STRING, &paths.variogram, "OUT.csv", "write the sample variogram and the model"},
        {"cv", 0, TRV_ARG_STRING, &paths.cv, "OUT.csv", "leave-one-out cross-validation of every input point"},
        {"points", 0, TRV_ARG_STRING, &paths.points, "OUT.csv", "write the point cloud x,y,z,std"},
        {"x", 0, TRV_ARG_STRING, &o.x_col, "COL", "CSV input: the x column"},
        {"y", 0, TRV_ARG_STRING, &o.y_col, "COL", "CSV input: the y column"},
        {"z", 0, TRV_ARG_STRING, &o.z_col, "COL", "CSV input: the value column"},
        {"s_srs", 0, TRV_ARG_STRING, &o.s_srs, "CRS", "CSV input: the CRS of x and y"},
        {"seed", 0, TRV_ARG_U64, &seed, "N", "seed of the variogram and LOOCV subsamples (default 1)"},
        {"threads", 0, TRV_ARG_INT, &o.krige.threads, "N", "worker threads, also compressing the realisations (default: all cores)"},
        {NULL, 0, 0, NULL, NULL, NULL},
    };
    static const char *const required[] = {"output", NULL};
    const trv_cli cli = {
        .tool = "trv-krige",
        .usage = "INPUT -o DEM.tif [options]",
        .summary = "Refine a DEM (any GDAL raster, any CRS) or krige points (a CSV) onto a regular metric grid by\n"
                   "ordinary kriging: sample variogram, weighted least-squares fit (auto: the model with the\n"
                   "lowest leave-one-out error), local neighbourhoods of --nmax samples (auto: the smallest of\n"
                   "16, 36, 64 within 1 % of the lowest leave-one-out error), kriging variance.",
        .opts = opts,
        .libraries = tool_libraries,
        .required = required,
        .min_pos = 1,
        .max_pos = 1,
    };
    trv_cli_result res;
    trv_ctx *ctx = tool_start(&cli, argc, argv, &res);
    o.input = res.pos[0];
    /* the options as the library takes them; NAN: not given */
    int nfixed = !isnan(nugget) + !isnan(psill) + !isnan(range);
    o.has_te = !isnan(o.te[0]);
    if (!isnan(tr) && !(tr > 0)) /* 0 is no default: a cell size given must be one */
        tool_usage(&cli, ctx, "--tr must be positive");
    o.tr = isnan(tr) ? 0 : tr;
    if (strcmp(model, "auto"))
        o.choice.only = krg_model_parse(model);
    if (!isnan(kappa))
        o.choice.kappa = kappa;
    o.choice.method = (krg_fit_method)atoi(fit);
    o.choice.cutoff = cutoff;
    o.choice.width = width;
    o.choice.seed = seed;
    if (!isnan(maxdist))
        o.krige.maxdist = maxdist;
    if (nmax != INT_MIN)
        o.krige.nmax = nmax;
    o.nmax_auto = nmax == INT_MIN;
    if (nfixed > 0) {
        o.fixed = 1;
        o.model = (krg_model){(krg_model_type)o.choice.only, nugget, psill, range, isnan(kappa) ? 1.5 : kappa};
    }
    o.want_cv = paths.cv != NULL;
    o.want_vgm = paths.variogram != NULL;
    o.want_std = paths.std != NULL || paths.points != NULL;
    o.sim_seed = seed;
    if (paths.sim && o.nsim <= 0)
        tool_usage(&cli, ctx, "--sim goes with --nsim");
    char *sim_path = NULL;
    if (o.nsim > 0 && !paths.sim && !(paths.sim = sim_path = trv_path_beside(paths.dem, "dem_sim.tif")))
        tool_usage(&cli, ctx, "out of memory");

    /* cross-option checks are usage errors (exit 2) */
    tool_usage_check(&cli, ctx, krg_job_opts_check(ctx, &o));
    const char *const outs[6] = {paths.dem, paths.std, paths.variogram, paths.cv, paths.points, paths.sim};
    const char *const ins[2] = {o.input, o.like};
    tool_outputs_check(&cli, ctx, outs, 6, ins, 2);
    tool_folders_check(&cli, ctx, outs, 6);
    trv_ctx_set_seed(ctx, seed);
    trv_meta meta;
    trv_meta_init(&meta, cli.tool, argc, argv);
    meta.has_seed = 1;
    meta.seed = seed;
    krg_job j;
    double t0 = trv_now_s();
    trv_status st = krg_job_run(ctx, &o, &j);
    if (!st) {
        char buf[256];
        snprintf(buf, sizeof buf, "%s nugget=%.10g psill=%.10g range=%.10g kappa=%g nmax=%d",
                 krg_model_name(j.model.type), j.model.nugget, j.model.psill, j.model.range, j.model.kappa,
                 j.krige.nmax);
        trv_meta_add(&meta, "TRV_MODEL", buf);
        trv_meta_add(&meta, j.raster_input ? "TRV_INPUT_DEM" : "TRV_INPUT_POINTS", o.input);
        struct json_object *doc = NULL;
        st = write_all(ctx, &j, &o, &paths, &meta, res.quiet ? NULL : &doc);
        if (!st && !res.quiet)
            report(&j, &o, doc, trv_now_s() - t0);
        json_object_put(doc);
        krg_job_clear(&j);
    }
    free(sim_path);
    return tool_end(&cli, ctx, st);
}
