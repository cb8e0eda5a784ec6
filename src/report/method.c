/* The report's method details (report_priv.h): the terrain grid and its
 * ranges, the kriging (krige.json, variogram.csv), the vehicle and its
 * terramechanics (speed.json, speed_report.csv), and the mobility classes
 * and GO/NOGO reasons counted in class.tif and gonogo.tif (cost.json). */
#define _POSIX_C_SOURCE 200809L
#include "report/report_priv.h"

#include <stdlib.h>
#include <string.h>

typedef struct fstats {
    double min, max, mean;
    size_t n;
} fstats;

static trv_status float_stats(trv_ctx *ctx, const char *path, fstats *s)
{
    geo_raster *g = NULL;
    trv_status st = geo_raster_read(ctx, path, GEO_F32, &g);
    if (st)
        return st;
    s->min = INFINITY;
    s->max = -INFINITY;
    double sum = 0;
    s->n = 0;
    size_t n = (size_t)g->grid.nx * (size_t)g->grid.ny;
    for (size_t i = 0; i < n; i++) {
        if (geo_raster_is_nodata(g, i))
            continue;
        s->min = fmin(s->min, g->f32[i]);
        s->max = fmax(s->max, g->f32[i]);
        sum += g->f32[i];
        s->n++;
    }
    s->mean = s->n ? sum / (double)s->n : NAN;
    geo_raster_free(g);
    if (!s->n)
        return trv_error(ctx, TRV_ERR_DATA, "'%s' holds no data", path);
    return TRV_OK;
}

trv_status rpt_sec_terrain(trv_ctx *ctx, doc *d, run *r)
{
    rpt_h(d, 3, "Terrain");
    fstats dem, slope;
    trv_status st = float_stats(ctx, P(r, LAYER(RUN_DEM)), &dem);
    if (!st)
        st = float_stats(ctx, P(r, LAYER(RUN_SLOPE)), &slope);
    if (st)
        return st;
    geo_raster_info info;
    if ((st = rpt_info_read(ctx, P(r, LAYER(RUN_DEM)), &info)))
        return st;
    char *crs = rpt_crs_label(&info);
    rpt_p(d, "Grid: %d x %d cells of %g m, %s; %zu cells with elevation (%.1f km²).", info.grid.nx, info.grid.ny,
          info.grid.gt[1], crs ? crs : "?", dem.n, (double)dem.n * info.grid.gt[1] * fabs(info.grid.gt[5]) / 1e6);
    free(crs);
    geo_raster_info_clear(&info);
    block *t = rpt_table(d, "lrrr", "layer", "min", "mean", "max");
    rpt_row(d, t, strdup("elevation (m)"), rpt_fmt("%.1f", dem.min), rpt_fmt("%.1f", dem.mean), rpt_fmt("%.1f", dem.max));
    rpt_row(d, t, strdup("slope (°)"), rpt_fmt("%.2f", slope.min), rpt_fmt("%.2f", slope.mean), rpt_fmt("%.2f", slope.max));
    return TRV_OK;
}

/* krige.json's lines (run/lines.h: as trv-krige prints them) and its
 * candidates as a table, the chosen one in bold. */
static void krige_lines(doc *d, struct json_object *o, const char *chosen)
{
    run_lines_krige(o, RUN_LINES_HEAD, rpt_li_line, d);
    run_lines_krige(o, RUN_LINES_TAIL, rpt_li_line, d);
    rpt_end_list(d);
    struct json_object *cands = jget(o, "candidates");
    block *t = NULL;
    size_t n = json_object_is_type(cands, json_type_array) ? json_object_array_length(cands) : 0;
    for (size_t k = 0; k < n; k++) {
        struct json_object *c = json_object_array_get_idx(cands, k);
        if (!jbool(c, "ok"))
            continue;
        if (!t) {
            rpt_p(d, "Candidate models and their leave-one-out cross-validation RMSE (m); the chosen one in bold:");
            t = rpt_table(d, "lllr", "model", "fit", "parameters", "LOOCV RMSE (m)");
        }
        char params[512];
        run_lines_model(c, jstr(c, "model"), params, sizeof params);
        int is_chosen = !strcmp(params, chosen);
        rpt_row(d, t, rpt_fmt(is_chosen ? "**%s**" : "%s", jstr(c, "model")), rpt_fmt(is_chosen ? "**%s**" : "%s", jstr(c, "fit")),
                rpt_fmt(is_chosen ? "**%s**" : "%s", params), rpt_fmt(is_chosen ? "**%.4f**" : "%.4f", jnum(c, "rmse")));
    }
}

trv_status rpt_sec_kriging(trv_ctx *ctx, doc *d, run *r)
{
    rpt_h(d, 3, "Kriging: variogram and cross-validation");
    struct json_object *o;
    trv_status st = rpt_summary(ctx, r, RUN_O_KRIGE_JSON, &o);
    if (st)
        return st;
    if (!o) {
        rpt_p(d, "Absent: `%s` is not in the run directory (the DEM was not refined by `trv-krige` here).",
              OTHER(RUN_O_KRIGE_JSON));
        return TRV_OK;
    }
    struct json_object *model = jget(o, "model");
    if (!model || !*jstr(model, "type")) {
        json_object_put(o);
        return trv_error(ctx, TRV_ERR_FORMAT, "cannot read '%s': no \"model\" with a \"type\"", P(r, OTHER(RUN_O_KRIGE_JSON)));
    }
    char chosen[512];
    run_lines_model(model, jstr(model, "type"), chosen, sizeof chosen);
    krige_lines(d, o, chosen);
    json_object_put(o);

    if (!trv_file_exists(P(r, OTHER(RUN_O_VARIOGRAM)))) {
        rpt_p(d, "The sample variogram (`%s`) is absent.", OTHER(RUN_O_VARIOGRAM));
        return TRV_OK;
    }
    trv_csv *csv = NULL;
    st = trv_csv_read(ctx, r->path, &csv);
    int cnp, cd, cg, cm = -1;
    if (!st && !(st = trv_csv_require(ctx, csv, "np", &cnp)) && !(st = trv_csv_require(ctx, csv, "dist", &cd)) &&
        !(st = trv_csv_require(ctx, csv, "gamma", &cg)))
        cm = trv_csv_col(csv, "model_gamma");
    if (!st) {
        rpt_p(d, "The sample variogram (`%s`) and the chosen model at each lag:", OTHER(RUN_O_VARIOGRAM));
        block *t = rpt_table(d, cm >= 0 ? "rrrrr" : "rrrr", "lag", "pairs", "distance (m)", "semivariance (m²)",
                      cm >= 0 ? "model (m²)" : NULL);
        for (size_t i = 0; i < trv_csv_nrows(csv) && !st; i++) {
            double np, dist, g, m = NAN;
            if ((st = trv_csv_double(ctx, csv, i, cnp, &np)) || (st = trv_csv_double(ctx, csv, i, cd, &dist)) ||
                (st = trv_csv_double(ctx, csv, i, cg, &g)) || (cm >= 0 && (st = trv_csv_double(ctx, csv, i, cm, &m))))
                break;
            if (cm >= 0)
                rpt_row(d, t, rpt_fmt("%zu", i + 1), rpt_fmt("%.0f", np), rpt_fmt("%.1f", dist), rpt_fmt("%.1f", g), rpt_fmt("%.1f", m));
            else
                rpt_row(d, t, rpt_fmt("%zu", i + 1), rpt_fmt("%.0f", np), rpt_fmt("%.1f", dist), rpt_fmt("%.1f", g));
        }
    }
    trv_csv_free(csv);
    return st;
}

/* The CSV as a table: the columns named in cols (NULL-terminated) when it
 * has them all, else every column; right-aligned when the first row's
 * cell is a number. */
static void csv_table(doc *d, const trv_csv *csv, const char *const *cols)
{
    int idx[64], nc = 0;
    for (int k = 0; cols && cols[k] && nc >= 0 && nc < 64; k++)
        nc = (idx[nc] = trv_csv_col(csv, cols[k])) < 0 ? -1 : nc + 1;
    if (nc <= 0) /* the report of an older trv-speed: every column */
        for (nc = 0; nc < trv_csv_ncols(csv) && nc < 64; nc++)
            idx[nc] = nc;
    block *t = rpt_add(d, B_TABLE);
    if (!t)
        return;
    t->ncols = nc;
    t->align = calloc((size_t)nc + 1, 1);
    t->cells = calloc((size_t)nc, sizeof *t->cells);
    if (!t->align || !t->cells)
        d->oom = 1;
    for (int c = 0; c < nc && !d->oom; c++) {
        t->cells[c] = strdup(trv_csv_header(csv, idx[c]));
        char *end;
        const char *v = trv_csv_nrows(csv) ? trv_csv_cell(csv, 0, idx[c]) : "";
        strtod(v, &end);
        t->align[c] = *v && !*end ? 'r' : 'l';
    }
    for (size_t i = 0; i < trv_csv_nrows(csv) && !d->oom; i++) {
        char **cells = realloc(t->cells, (size_t)(t->nrows + 2) * (size_t)nc * sizeof *cells);
        if (!cells) {
            d->oom = 1;
            break;
        }
        t->cells = cells;
        for (int c = 0; c < nc; c++)
            cells[(size_t)(t->nrows + 1) * (size_t)nc + (size_t)c] = strdup(trv_csv_cell(csv, i, idx[c]));
        t->nrows++;
    }
}

/* speed.json's GO cells by the limit that binds (limit.tif); absent in the
 * summaries of an older trv-speed. */
static void limit_shares(doc *d, struct json_object *o)
{
    struct json_object *lg = jget(o, "limits_go");
    if (!json_object_is_type(lg, json_type_array)) {
        rpt_p(d, "`%s` has no binding limits (`limits_go`): made by an older trv-speed.", OTHER(RUN_O_SPEED_JSON));
        return;
    }
    rpt_p(d, "The speed limit that binds on the GO cells (`%s`; the worse direction of travel):", LAYER(RUN_LIMIT));
    block *t = rpt_table(d, "lrr", "limit", "GO cells", "share");
    for (size_t k = 0; k < json_object_array_length(lg); k++) {
        struct json_object *x = json_object_array_get_idx(lg, k);
        rpt_row(d, t, strdup(jstr(x, "name")), rpt_fmt("%lld", jint(x, "cells")), rpt_fmt("%.1f %%", 100 * jnum(x, "share")));
    }
}

trv_status rpt_sec_vehicle(trv_ctx *ctx, doc *d, run *r)
{
    rpt_h(d, 3, "Vehicle and terramechanics");
    struct json_object *o;
    trv_status st = rpt_summary(ctx, r, RUN_O_SPEED_JSON, &o);
    if (st)
        return st;
    if (o) {
        run_lines_speed(o, RUN_LINES_HEAD, rpt_li_line, d); /* as trv-speed prints them */
        run_lines_speed(o, RUN_LINES_TAIL, rpt_li_line, d);
        rpt_end_list(d);
        limit_shares(d, o);
    } else
        rpt_p(d, "`%s` (the trv-speed summary) is absent.", OTHER(RUN_O_SPEED_JSON));
    json_object_put(o);
    if (!trv_file_exists(P(r, OTHER(RUN_O_SPEED_REPORT)))) {
        rpt_p(d, "The per-soil table (`%s`) is absent.", OTHER(RUN_O_SPEED_REPORT));
        return TRV_OK;
    }
    trv_csv *csv = NULL;
    st = trv_csv_read(ctx, r->path, &csv);
    int ccode = 0, cname = 0;
    if (!st && !(st = trv_csv_require(ctx, csv, "code", &ccode)))
        st = trv_csv_require(ctx, csv, "name", &cname);
    static const char *const COLS[] = {"landuse", "name", "ci_kPa", "pass", "flat_speed_kmh", "flat_limit",
                                       "grade10_direction", "grade10_speed_kmh", "grade10_limit", NULL};
    if (!st) {
        rpt_p(d, "Per land use and soil (`%s`, which has every limit, pull and slip): the speed and the limit that "
                 "binds on the flat and in the worse direction at 10°:", OTHER(RUN_O_SPEED_REPORT));
        csv_table(d, csv, COLS);
    }
    trv_csv_free(csv);
    return st;
}

/* Counts of the codes of a Byte layer, and its category names. */
static trv_status byte_counts(trv_ctx *ctx, const char *path, size_t count[256], char names[256][64], double *cell_km2,
                              size_t *ncells)
{
    geo_raster_info info;
    trv_status st = rpt_info_read(ctx, path, &info);
    if (st)
        return st;
    int byte = info.type == GEO_BAND_BYTE;
    *cell_km2 = fabs(info.grid.gt[1] * info.grid.gt[5]) / 1e6;
    rpt_cat_names(&info, names);
    geo_raster_info_clear(&info);
    if (!byte)
        return trv_error(ctx, TRV_ERR_FORMAT, "'%s' is not a Byte layer", path);
    geo_raster *g = NULL;
    if ((st = geo_raster_read(ctx, path, GEO_U8, &g)))
        return st;
    size_t n = (size_t)g->grid.nx * (size_t)g->grid.ny;
    memset(count, 0, 256 * sizeof *count);
    for (size_t i = 0; i < n; i++)
        count[g->u8[i]]++;
    *ncells = n;
    geo_raster_free(g);
    return TRV_OK;
}

trv_status rpt_sec_classes(trv_ctx *ctx, doc *d, run *r)
{
    rpt_h(d, 3, "Mobility classes and GO/NOGO");
    size_t cls[256], go[256], ncls = 0, ngo = 0;
    char cls_names[256][64], go_names[256][64];
    double km2_c, km2_g;
    trv_status st = byte_counts(ctx, P(r, LAYER(RUN_CLASS)), cls, cls_names, &km2_c, &ncls);
    if (!st)
        st = byte_counts(ctx, P(r, LAYER(RUN_GONOGO)), go, go_names, &km2_g, &ngo);
    if (st)
        return st;
    if (ncls != ngo)
        return trv_error(ctx, TRV_ERR_GRID, "'%s' and '%s' differ in size", r->path, LAYER(RUN_CLASS));
    /* reason 5 is "no data" in gonogo.tif: the cells the fractions are of */
    int nodata_code = -1;
    for (int c = 0; c < 256; c++)
        if (!strcmp(go_names[c], "no data"))
            nodata_code = c;
    size_t with_data = ngo - (nodata_code >= 0 ? go[nodata_code] : 0);
    rpt_p(d, "Counted in `%s` and `%s` (%zu cells, %zu with data: those whose GO/NOGO reason is not "
             "\"no data\"); shares are of the cells with data, areas in km².",
          LAYER(RUN_CLASS), LAYER(RUN_GONOGO), ngo, with_data);
    block *t = rpt_table(d, "rlrrr", "class", "name", "cells", "share", "area (km²)");
    size_t class0_nodata = 0;
    for (int c = 0; c < 256; c++) {
        if (!cls[c] && !*cls_names[c])
            continue;
        size_t k = cls[c];
        if (c == 0 && nodata_code >= 0) {
            /* class 0 holds NOGO and no-data cells alike: split them */
            class0_nodata = go[nodata_code];
            k = k >= class0_nodata ? k - class0_nodata : 0;
        }
        rpt_row(d, t, rpt_fmt("%d", c), strdup(*cls_names[c] ? cls_names[c] : "(unnamed)"), rpt_fmt("%zu", k),
                rpt_fmt("%.2f %%", with_data ? 100.0 * (double)k / (double)with_data : 0.0), rpt_fmt("%.2f", (double)k * km2_c));
    }
    if (class0_nodata)
        rpt_p(d, "Class 0 also holds the %zu cells without data (%.2f km²), not counted above.", class0_nodata,
              (double)class0_nodata * km2_c);
    struct json_object *o;
    if ((st = rpt_summary(ctx, r, RUN_O_COST_JSON, &o)))
        return st;
    if (o) {
        rpt_li(d, "rules: '%s', %lld rules, %s (`%s`)", jstr(jget(o, "inputs"), "rules"), jint(o, "rule_count"),
               jstr(o, "defuzzifier"), OTHER(RUN_O_COST_JSON));
        rpt_li(d, "cost: mean %.4f over the GO cells (`%s`)", jnum(o, "cost_mean_go"), OTHER(RUN_O_COST_JSON));
        rpt_end_list(d);
        json_object_put(o);
    }
    t = rpt_table(d, "rlrrr", "code", "GO/NOGO reason", "cells", "share", "area (km²)");
    for (int c = 0; c < 256; c++) {
        if (!go[c] && !*go_names[c])
            continue;
        if (c == nodata_code)
            rpt_row(d, t, rpt_fmt("%d", c), strdup(go_names[c]), rpt_fmt("%zu", go[c]), strdup("-"),
                    rpt_fmt("%.2f", (double)go[c] * km2_g));
        else
            rpt_row(d, t, rpt_fmt("%d", c), strdup(*go_names[c] ? go_names[c] : "(unnamed)"), rpt_fmt("%zu", go[c]),
                    rpt_fmt("%.2f %%", with_data ? 100.0 * (double)go[c] / (double)with_data : 0.0),
                    rpt_fmt("%.2f", (double)go[c] * km2_g));
    }
    return TRV_OK;
}
