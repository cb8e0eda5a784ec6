/* The trv-krige stage: input, target grid, model, kriging, outputs. */
#include "krige_priv.h"
#include "sim.h"

#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

void krg_job_opts_init(krg_job_opts *o)
{
    memset(o, 0, sizeof *o);
    krg_choice_opts_init(&o->choice);
    krg_opts_init(&o->krige);
    o->krige.et = KRG_ET_DEFAULT;
    o->model.kappa = 1.5;
    o->allow_fast = 1;
    o->want_std = 1;
}

trv_status krg_job_opts_check(trv_ctx *ctx, const krg_job_opts *o)
{
    const krg_model *m = &o->model;
    const char *usage = NULL;
    if (o->tr != 0 && o->like)
        usage = "--tr and --like exclude each other";
    else if (o->like && (o->t_srs || o->has_te))
        usage = "--like sets the CRS and extent: drop --t_srs and --te";
    else if (o->tr < 0)
        usage = "--tr must be positive";
    else if (o->has_te && !(o->te[2] > o->te[0] && o->te[3] > o->te[1]))
        usage = "--te needs xmin < xmax and ymin < ymax";
    else if (o->fixed && (isnan(m->nugget) || isnan(m->psill) || isnan(m->range)))
        usage = "a fixed model needs --nugget, --psill and --range together";
    else if (o->fixed && !((int)m->type >= 0 && (int)m->type < KRG_NMODELS))
        usage = "a fixed model needs its type: --model sph|exp|gau|mat|pow";
    else if (o->fixed && (m->nugget < 0 || m->psill <= 0 || m->range <= 0 || (m->type == KRG_POW && m->range > 2)))
        usage = "a fixed model needs nugget >= 0, psill > 0, range > 0 (Pow: exponent in (0, 2])";
    else if (!isnan(o->choice.kappa) && (o->choice.kappa <= 0 || o->choice.only != KRG_MAT))
        usage = "--kappa > 0 goes with --model mat";
    else if (o->krige.nmax < 0)
        usage = "--nmax must be 0 (all points) or positive";
    else if (!(o->krige.maxdist > 0))
        usage = "--maxdist must be positive";
    else if (!(o->krige.et >= 0) || !isfinite(o->krige.et))
        usage = "--et must be a finite number of source pixels >= 0 (0: exact per block)";
    else if (o->krige.threads < 0)
        usage = "--threads must be positive";
    else if (o->nsim < 0)
        usage = "--nsim must be positive";
    else if (o->choice.cutoff < 0 || o->choice.width < 0)
        usage = "--cutoff and --width must be positive";
    else if ((o->x_col || o->y_col || o->z_col || o->s_srs) && !(o->x_col && o->y_col && o->z_col && o->s_srs))
        usage = "CSV input needs --x, --y, --z and --s_srs";
    return usage ? trv_error(ctx, TRV_ERR_USAGE, "%s", usage) : TRV_OK;
}

void krg_job_clear(krg_job *j)
{
    krg_sim_free(j->sim); /* it borrows src and ix */
    if (j->src)
        j->src->pts = NULL; /* the job's points */
    krg_source_free(j->src);
    krg_index_free(j->ix);
    geo_grid_clear(&j->grid);
    krg_vgm_free(j->vgm);
    free(j->cands);
    krg_points_free(j->pts);
    free(j->work_wkt);
    free(j->input_label);
    free(j->cv_pred);
    free(j->cv_var);
    memset(j, 0, sizeof *j);
}

/* Points from a CSV: the named columns, rows with an empty z skipped. */
static trv_status read_csv_points(trv_ctx *ctx, const krg_job_opts *o, krg_points **out)
{
    *out = NULL;
    trv_csv *csv = NULL;
    trv_status st = trv_csv_read(ctx, o->input, &csv);
    if (st)
        return st;
    int cx, cy, cz;
    krg_points *p = NULL;
    if ((st = trv_csv_require(ctx, csv, o->x_col, &cx)) || (st = trv_csv_require(ctx, csv, o->y_col, &cy)) ||
        (st = trv_csv_require(ctx, csv, o->z_col, &cz)) || (st = krg_points_new(ctx, trv_csv_nrows(csv), &p)))
        goto done;
    size_t k = 0;
    for (size_t r = 0; r < trv_csv_nrows(csv); r++) {
        if (!*trv_csv_cell(csv, r, cz) || !strcmp(trv_csv_cell(csv, r, cz), "NA"))
            continue;
        if ((st = trv_csv_double(ctx, csv, r, cx, &p->x[k])) || (st = trv_csv_double(ctx, csv, r, cy, &p->y[k])) ||
            (st = trv_csv_double(ctx, csv, r, cz, &p->z[k])))
            goto done;
        if (fabs(p->z[k]) > FLT_MAX) { /* the outputs are Float32 */
            st = trv_error(ctx, TRV_ERR_DATA, "%s:%ld: column '%s': %g does not fit the Float32 output (|z| > %g)",
                           o->input, trv_csv_line(csv, r), o->z_col, p->z[k], (double)FLT_MAX);
            goto done;
        }
        k++;
    }
    p->n = k;
    if (k == 0)
        st = trv_error(ctx, TRV_ERR_DATA, "'%s' has no points (no rows with a value in column '%s')", o->input,
                       o->z_col);
done:
    trv_csv_free(csv);
    if (st)
        krg_points_free(p);
    else
        *out = p;
    return st;
}

/* The target grid: like, or CRS + cell size + extent snapped to the cell. */
static trv_status target_grid(trv_ctx *ctx, const krg_job_opts *o, const char *in_wkt, const double in_bb[4],
                              double in_cell_area, size_t in_cells, geo_grid *t)
{
    memset(t, 0, sizeof *t);
    trv_status st;
    if (o->like) {
        if ((st = geo_grid_read(ctx, o->like, t)))
            return st;
        if (!t->wkt)
            return trv_error(ctx, TRV_ERR_CRS, "'%s' has no CRS", o->like);
        geo_ct *ct = NULL;
        double bb[4];
        if ((st = geo_ct_create(ctx, in_wkt, t->wkt, &ct)))
            return st;
        geo_ct_bounds(ct, in_bb[0], in_bb[1], in_bb[2], in_bb[3], bb);
        geo_ct_free(ct);
        double ext[4] = {t->gt[0], t->gt[3] + t->ny * t->gt[5], t->gt[0] + t->nx * t->gt[1], t->gt[3]};
        if (ext[0] >= bb[2] || ext[2] <= bb[0] || ext[1] >= bb[3] || ext[3] <= bb[1])
            return trv_error(ctx, TRV_ERR_GRID, "the grid of '%s' does not overlap the input", o->like);
        return TRV_OK;
    }
    if (!(in_bb[2] > in_bb[0]) || !(in_bb[3] > in_bb[1]))
        return trv_error(ctx, TRV_ERR_DATA,
                         "the input has a zero extent (x %g to %g, y %g to %g): its points are %s; kriging needs "
                         "points spread in x and y",
                         in_bb[0], in_bb[2], in_bb[1], in_bb[3],
                         in_bb[2] > in_bb[0] || in_bb[3] > in_bb[1] ? "on one line" : "all at one place (duplicates)");
    char *wkt = NULL;
    if (o->t_srs)
        st = geo_crs_wkt(ctx, o->t_srs, &wkt);
    else {
        geo_grid in = {1, 1, {in_bb[0], in_bb[2] - in_bb[0], 0, in_bb[3], 0, -(in_bb[3] - in_bb[1])}, (char *)in_wkt};
        st = geo_crs_choose(ctx, &in, NULL, &wkt);
    }
    if (st)
        return st;
    t->wkt = wkt;
    geo_ct *ct = NULL;
    if ((st = geo_ct_create(ctx, in_wkt, wkt, &ct)))
        return st;
    double bb[4];
    size_t bad = geo_ct_bounds(ct, in_bb[0], in_bb[1], in_bb[2], in_bb[3], bb);
    geo_ct_free(ct);
    if (bad == 4 * 64 || !(bb[2] > bb[0]))
        return trv_error(ctx, TRV_ERR_CRS, "the input extent cannot be transformed into the target CRS");
    double cell = o->tr;
    if (cell <= 0) {
        if (in_cell_area <= 0)
            return trv_error(ctx, TRV_ERR_USAGE, "points input needs a cell size (--tr) or a grid (--like)");
        /* the input cell's size in target units: footprint area per cell */
        cell = sqrt((bb[2] - bb[0]) * (bb[3] - bb[1]) / (double)in_cells) / 3.0;
    }
    double ext[4] = {bb[0], bb[1], bb[2], bb[3]};
    if (o->has_te) {
        memcpy(ext, o->te, sizeof ext);
        if (!(ext[2] > ext[0] && ext[3] > ext[1]))
            return trv_error(ctx, TRV_ERR_USAGE, "--te needs xmin < xmax and ymin < ymax");
    }
    /* the footprint must meet the target */
    if (ext[0] >= bb[2] || ext[2] <= bb[0] || ext[1] >= bb[3] || ext[3] <= bb[1])
        return trv_error(ctx, TRV_ERR_GRID,
                         "the target extent (%g %g %g %g) does not overlap the input (%g %g %g %g, target CRS)",
                         ext[0], ext[1], ext[2], ext[3], bb[0], bb[1], bb[2], bb[3]);
    if (!o->has_te) { /* snap outward to the cell size, like gdalwarp -tap */
        ext[0] = floor(ext[0] / cell) * cell;
        ext[1] = floor(ext[1] / cell) * cell;
        ext[2] = ceil(ext[2] / cell) * cell;
        ext[3] = ceil(ext[3] / cell) * cell;
    }
    double nx = round((ext[2] - ext[0]) / cell), ny = round((ext[3] - ext[1]) / cell);
    if (nx < 1 || ny < 1 || nx * ny > 2e9)
        return trv_error(ctx, TRV_ERR_USAGE, "a target grid of %.0f x %.0f cells of %g is not possible", nx, ny,
                         cell);
    t->nx = (int)nx;
    t->ny = (int)ny;
    double gt[6] = {ext[0], cell, 0, ext[3], 0, -cell};
    memcpy(t->gt, gt, sizeof gt);
    return TRV_OK;
}

/* The simulation of the job's kriging on t with the model's sill scaled by
 * krg_sim_scale; it borrows the job's points, source and index. */
static trv_status sim_prepare(trv_ctx *ctx, const krg_job_opts *o, const krg_opts *ko, krg_job *j,
                              const geo_grid *t)
{
    trv_status st = krg_sim_scale(ctx, j->pts, j->ix, &j->model, ko, &j->sim_scale);
    krg_model m = j->model;
    m.nugget *= j->sim_scale;
    m.psill *= j->sim_scale;
    if (!st)
        st = krg_sim_new(ctx, j->pts, j->src, j->ix, &m, ko, o->allow_fast, j->work_wkt, t, o->sim_seed, 0,
                         &j->sim);
    return st;
}

/* Fit the model (krg_choose_model) and, with nmax_auto, choose nmax for it:
 * ko receives the kriging options to use from here. */
static trv_status choose(trv_ctx *ctx, const krg_job_opts *o, krg_job *j, const krg_index *ix, krg_opts *ko)
{
    if (o->nmax_auto)
        ko->nmax = krg_nmax_candidates[0];
    trv_status st = krg_choose_model(ctx, j->pts, ix, ko, &o->choice, &j->model, &j->vgm, &j->cands, &j->ncand);
    if (!st && o->nmax_auto && !(st = krg_choose_nmax(ctx, j->pts, ix, &j->model, ko, &o->choice, &j->nmax_choice)))
        ko->nmax = j->nmax_choice.chosen;
    return st;
}

trv_status krg_job_run(trv_ctx *ctx, const krg_job_opts *o, krg_job *j)
{
    memset(j, 0, sizeof *j);
    trv_status st = krg_job_opts_check(ctx, o);
    if (st)
        return st;
    geo_raster *dem = NULL;
    krg_source *src = NULL;
    krg_index *ix = NULL;
    geo_grid t = {0};
    char *in_wkt = NULL;
    double bb[4], cell_area = 0;
    size_t cells = 0;
    krg_opts ko = o->krige; /* nmax_auto: the nmax chosen */
    j->threads = krg_threads(o->krige.threads);
    if (!(j->input_label = strdup(o->input)))
        return trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
    if (o->x_col) {
        krg_points *raw = NULL;
        if (!o->s_srs)
            return trv_error(ctx, TRV_ERR_USAGE, "points from a CSV need their CRS (--s_srs)");
        if ((st = geo_crs_wkt(ctx, o->s_srs, &in_wkt)) || (st = read_csv_points(ctx, o, &raw)))
            goto fail;
        bb[0] = bb[1] = INFINITY;
        bb[2] = bb[3] = -INFINITY;
        for (size_t i = 0; i < raw->n; i++) {
            bb[0] = fmin(bb[0], raw->x[i]);
            bb[1] = fmin(bb[1], raw->y[i]);
            bb[2] = fmax(bb[2], raw->x[i]);
            bb[3] = fmax(bb[3], raw->y[i]);
        }
        j->pts = raw;
    } else {
        j->raster_input = 1;
        if ((st = geo_raster_read(ctx, o->input, GEO_F32, &dem)))
            goto fail;
        if (!dem->grid.wkt) {
            st = trv_error(ctx, TRV_ERR_CRS, "'%s' has no CRS", o->input);
            goto fail;
        }
        if (geo_raster_count_valid(dem) == 0) {
            st = trv_error(ctx, TRV_ERR_DATA, "'%s' holds only nodata", o->input);
            goto fail;
        }
        if (!(in_wkt = strdup(dem->grid.wkt))) {
            st = trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
            goto fail;
        }
        const double *gt = dem->grid.gt;
        bb[0] = gt[0];
        bb[2] = gt[0] + dem->grid.nx * gt[1];
        bb[3] = gt[3];
        bb[1] = gt[3] + dem->grid.ny * gt[5];
        cells = (size_t)dem->grid.nx * dem->grid.ny;
        j->input_cells = cells;
        cell_area = gt[1] * -gt[5];
    }
    if ((st = target_grid(ctx, o, in_wkt, bb, cell_area, cells, &t)))
        goto fail;
    /* kriging works in metres: the target CRS if projected, else its UTM zone */
    if ((st = geo_crs_choose(ctx, &t, NULL, &j->work_wkt)))
        goto fail;
    if (dem) {
        if ((st = krg_source_new(ctx, dem, j->work_wkt, j->threads, &src)))
            goto fail;
        j->pts = src->pts;
        src->pts = NULL; /* the job owns the points from here; src keeps borrowing them */
    } else {
        geo_ct *ct = NULL;
        if ((st = geo_ct_create(ctx, in_wkt, j->work_wkt, &ct)))
            goto fail;
        size_t bad = geo_ct_points(ct, j->pts->n, j->pts->x, j->pts->y, NULL);
        geo_ct_free(ct);
        if (bad) {
            st = trv_error(ctx, TRV_ERR_CRS, "%zu points of '%s' cannot be transformed into the working CRS", bad,
                           o->input);
            goto fail;
        }
    }
    if ((st = krg_index_new(ctx, j->pts, &ix))) {
        trv_error_prefix(ctx, st, "'%s'", o->input);
        goto fail;
    }
    if (o->fixed) {
        j->model = o->model;
        if (o->want_vgm && (st = krg_variogram(ctx, j->pts, o->choice.cutoff, o->choice.width, o->choice.vgm_points,
                                               o->choice.seed, &j->vgm))) {
            trv_error_prefix(ctx, st, "'%s'", o->input);
            goto fail;
        }
    } else if ((st = choose(ctx, o, j, ix, &ko))) {
        trv_error_prefix(ctx, st, "'%s'", o->input);
        goto fail;
    }
    j->krige = ko; /* with the nmax chosen: krg_job_write kriges with it */
    j->allow_fast = o->allow_fast;
    j->want_std = o->want_std;
    if (o->want_cv) {
        j->cv_pred = malloc(j->pts->n * sizeof *j->cv_pred);
        j->cv_var = malloc(j->pts->n * sizeof *j->cv_var);
        if (!j->cv_pred || !j->cv_var) {
            st = trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
            goto fail;
        }
        if ((st = krg_cv(ctx, j->pts, ix, &j->model, &ko, j->pts->n, NULL, j->cv_pred, j->cv_var)))
            goto fail;
        krg_cv_summary(j->pts->z, j->cv_pred, j->cv_var, j->pts->n, &j->cv);
    }
    j->nsim = o->nsim;
    if (src) /* kept: krg_job_write kriges by row blocks with them */
        src->pts = j->pts;
    j->src = src;
    j->ix = ix;
    src = NULL;
    ix = NULL;
    if (o->nsim > 0 && (st = sim_prepare(ctx, o, &ko, j, &t)))
        goto fail;
    j->grid = t; /* the job takes the grid over */
    memset(&t, 0, sizeof t);
    krg_index_free(ix);
    krg_source_free(src);
    geo_raster_free(dem);
    free(in_wkt);
    return TRV_OK;
fail:
    krg_index_free(ix);
    krg_source_free(src);
    geo_raster_free(dem);
    geo_grid_clear(&t);
    free(in_wkt);
    krg_job_clear(j);
    return st;
}

/* ---- outputs ------------------------------------------------------------ */

static trv_status write_text(trv_ctx *ctx, const char *tmp, const char *final, const krg_job *j, int what)
{
    FILE *f = fopen(tmp, "w");
    if (!f)
        return trv_error(ctx, TRV_ERR_IO, "cannot create '%s': %s", final, strerror(errno));
    if (what == 0) { /* variogram */
        fprintf(f, "np,dist,gamma,model_gamma\n");
        for (int k = 0; j->vgm && k < j->vgm->nlags; k++)
            fprintf(f, "%ld,%.10g,%.10g,%.10g\n", j->vgm->np[k], j->vgm->dist[k], j->vgm->gamma[k],
                    krg_gamma(&j->model, j->vgm->dist[k]));
    } else { /* cross-validation */
        fprintf(f, "x,y,observed,pred,var\n");
        for (size_t i = 0; i < j->pts->n; i++)
            fprintf(f, "%.3f,%.3f,%.10g,%.10g,%.10g\n", j->pts->x[i], j->pts->y[i], j->pts->z[i], j->cv_pred[i],
                    j->cv_var[i]);
    }
    int bad = ferror(f);
    if (fclose(f) != 0 || bad)
        return trv_error(ctx, TRV_ERR_IO, "cannot write '%s': %s", final, strerror(errno));
    return TRV_OK;
}

trv_status krg_job_write(trv_ctx *ctx, trv_outset *set, krg_job *j, const krg_job_paths *paths,
                         const trv_meta *meta)
{
    trv_status st = TRV_OK;
    const char *tmp;
    const char *text[2] = {paths->variogram, paths->cv};
    if (!paths->dem)
        st = trv_error(ctx, TRV_ERR_USAGE, "no output DEM named");
    else if ((paths->std || paths->points) && !j->want_std)
        st = trv_error(ctx, TRV_ERR_USAGE, "the standard deviation was not computed (want_std 0)");
    if (!st && paths->sim && !j->sim)
        st = trv_error(ctx, TRV_ERR_USAGE, "no realisations asked for (nsim 0)");
    if (!st)
        st = krg_job_stream(ctx, set, j, paths, meta);
    for (int k = 0; k < 2 && !st; k++) {
        if (!text[k] || (k == 1 && !j->cv_pred))
            continue;
        if (!(tmp = trv_outset_add(set, text[k])))
            st = trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
        else
            st = write_text(ctx, tmp, text[k], j, k);
    }
    return st;
}
