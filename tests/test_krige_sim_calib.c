/* Calibration of the conditional simulation on Jacksboro (docs/method.md
 * §1.11): the DEM on its 90 m UTM grid (the bundled 3 arc-second DEM
 * kriged onto EPSG:32616 at 90 m: "the full DEM"), one sample in three
 * per axis kept (270 m, every kept sample the centre of a full cell),
 * N = 100 realisations at 90 m from those (model chosen as trv-krige
 * does), and per cell the predicted P(slope > s) (the share of
 * realisations whose Horn slope exceeds s) against the slope of the full
 * DEM, for s = 5, 10, 15 and 20 degrees. Cells binned by predicted
 * probability (ten bins of 0.1); in every bin with at least 200 cells the
 * observed frequency lies within 0.1 of the bin's mean predicted
 * probability for s = 10, 15 and 20 degrees (the binomial standard error
 * of a bin is at most 0.035 with 200 cells; slope exceedances of
 * neighbouring cells are correlated, so the bound allows about three times
 * that), and within 0.25 for 5 degrees: a stationary variogram gives the
 * flat valley floors the hills' roughness, so P(slope > 5) is
 * over-predicted there (measured: by up to 0.22). With TRV_CALIB_PNG set, the
 * reliability diagram is drawn there (docs/img/calibration.png:
 * TRV_CALIB_PNG=docs/img/calibration.png build/rel/tests/test_krige_sim_calib). */
#include "test_common.h"

#include <math.h>

#include "kriging/krige.h"
#include "kriging/sim.h"
#include "render/render.h"

enum { NSIM = 100, NT = 4, NB = 10 };
static const double THRESH[NT] = {5, 10, 15, 20};

/* The full DEM: the bundled DEM kriged onto 90 m UTM with the demo's
 * model (krg_job_write kriges it by row blocks into dir/kriged.tif). */
static geo_raster *full_dem(trv_ctx *ctx, const char *dir)
{
    krg_job_opts o;
    krg_job_opts_init(&o);
    char *in = data_path("jacksboro/dem_3arcsec.tif");
    o.input = in;
    o.t_srs = "EPSG:32616";
    o.tr = 90;
    o.fixed = 1;
    o.model = (krg_model){KRG_MAT, 0, 5962.01, 105.888, 2.5};
    o.want_std = 0;
    krg_job j;
    if (krg_job_run(ctx, &o, &j) != TRV_OK)
        fail_msg("%s", trv_errmsg(ctx));
    char *path = write_file(dir, "kriged.tif", "");
    krg_job_paths paths = {.dem = path};
    trv_outset *set = trv_outset_new();
    if (krg_job_write(ctx, set, &j, &paths, NULL) != TRV_OK || trv_outset_commit(ctx, set) != TRV_OK)
        fail_msg("%s", trv_errmsg(ctx));
    trv_outset_free(set);
    geo_raster *r = NULL;
    assert_int_equal(geo_raster_read(ctx, path, GEO_F32, &r), TRV_OK);
    krg_job_clear(&j);
    free(path);
    free(in);
    return r;
}

/* Every third cell per axis, starting at cell (1, 1): a 270 m DEM. */
static geo_raster *subsample(trv_ctx *ctx, const geo_raster *f)
{
    geo_grid g = f->grid;
    g.nx = f->grid.nx / 3;
    g.ny = f->grid.ny / 3;
    g.gt[1] *= 3;
    g.gt[5] *= 3;
    geo_raster *s = NULL;
    assert_int_equal(geo_raster_new(ctx, &g, GEO_F32, &s), TRV_OK);
    s->has_nodata = 1;
    s->nodata = f->nodata;
    for (int r = 0; r < g.ny; r++)
        for (int c = 0; c < g.nx; c++)
            s->f32[(size_t)r * g.nx + c] = f->f32[(size_t)(3 * r + 1) * f->grid.nx + 3 * c + 1];
    return s;
}

static void test_calibration(void **state)
{
    (void)state;
    trv_ctx *ctx = trv_ctx_new();
    char *dir = make_tmpdir();
    geo_raster *full = full_dem(ctx, dir), *sub = subsample(ctx, full), *truth = NULL;
    char *fpath = write_file(dir, "full.tif", ""), *spath = write_file(dir, "sub.tif", "");
    assert_int_equal(geo_raster_write(ctx, full, fpath, NULL), TRV_OK);
    assert_int_equal(geo_raster_write(ctx, sub, spath, NULL), TRV_OK);
    assert_int_equal(geo_slope(ctx, full, &truth), TRV_OK);
    krg_job_opts o;
    krg_job_opts_init(&o);
    o.input = spath;
    o.like = fpath;
    o.want_std = 0;
    o.nsim = NSIM;
    o.sim_seed = 1;
    krg_job j;
    if (krg_job_run(ctx, &o, &j) != TRV_OK)
        fail_msg("%s", trv_errmsg(ctx));
    printf("  model from the 270 m samples: %s nugget %g, psill %g, range %g, kappa %g\n", krg_model_name(j.model.type),
           j.model.nugget, j.model.psill, j.model.range, j.model.kappa);
    size_t nc = (size_t)full->grid.nx * full->grid.ny;
    int *hits = calloc(nc * NT, sizeof *hits);
    char *valid = malloc(nc);
    memset(valid, 1, nc);
    geo_raster *real = NULL, *slope = NULL, *kriged = NULL; /* the kriged DEM the realisations are conditioned on */
    assert_int_equal(krg_refine(ctx, j.src, j.ix, &j.model, &j.krige, &j.grid, j.allow_fast, &kriged, NULL, NULL), TRV_OK);
    assert_int_equal(geo_raster_new(ctx, &full->grid, GEO_F32, &real), TRV_OK);
    real->has_nodata = 1;
    real->nodata = -9999;
    for (int k = 0; k < NSIM; k++) {
        assert_int_equal(krg_sim_get(ctx, j.sim, k, kriged->f32, real->f32), TRV_OK);
        assert_int_equal(geo_slope(ctx, real, &slope), TRV_OK);
        for (size_t i = 0; i < nc; i++) {
            if (geo_raster_is_nodata(slope, i) || geo_raster_is_nodata(truth, i)) {
                valid[i] = 0;
                continue;
            }
            for (int t = 0; t < NT; t++)
                hits[i * NT + t] += slope->f32[i] > THRESH[t];
        }
        geo_raster_free(slope);
    }
    double pred[NT][NB] = {{0}}, obs[NT][NB] = {{0}};
    long cnt[NT][NB] = {{0}};
    for (size_t i = 0; i < nc; i++)
        for (int t = 0; valid[i] && t < NT; t++) {
            double p = (double)hits[i * NT + t] / NSIM;
            int b = p >= 1 ? NB - 1 : (int)(p * NB);
            pred[t][b] += p;
            obs[t][b] += truth->f32[i] > THRESH[t];
            cnt[t][b]++;
        }
    rnd_reliability_series ser[NT];
    char names[NT][32];
    double worst = 0, worst5 = 0;
    for (int t = 0; t < NT; t++) {
        printf("  slope > %g deg:", THRESH[t]);
        for (int b = 0; b < NB; b++) {
            if (cnt[t][b] == 0)
                continue;
            pred[t][b] /= cnt[t][b];
            obs[t][b] /= cnt[t][b];
            printf(" [%.2f %.2f %ld]", pred[t][b], obs[t][b], cnt[t][b]);
            if (cnt[t][b] >= 200 && THRESH[t] >= 10)
                worst = fmax(worst, fabs(obs[t][b] - pred[t][b]));
            if (cnt[t][b] >= 200 && THRESH[t] < 10)
                worst5 = fmax(worst5, fabs(obs[t][b] - pred[t][b]));
        }
        printf("\n");
        snprintf(names[t], sizeof names[t], "slope > %g\xc2\xb0", THRESH[t]);
        ser[t] = (rnd_reliability_series){names[t], NB, pred[t], obs[t], cnt[t]};
    }
    printf("  largest |observed - predicted| in bins of >= 200 cells: %.3f for 10-20 degrees (limit 0.1), %.3f for 5 "
           "(limit 0.25); sill scale %.3f\n",
           worst, worst5, j.sim_scale);
    assert_true(worst <= 0.1);
    assert_true(worst5 <= 0.25);
    const char *png = getenv("TRV_CALIB_PNG");
    if (png) {
        rnd_reliability r = {NT, ser, "Jacksboro: P(slope > s), 100 realisations, 1 sample in 3", NULL,
                             720, 640};
        assert_int_equal(rnd_reliability_png(ctx, &r, png, png), TRV_OK);
    }
    free(hits);
    free(valid);
    geo_raster_free(real);
    geo_raster_free(kriged);
    geo_raster_free(truth);
    geo_raster_free(full);
    geo_raster_free(sub);
    krg_job_clear(&j);
    free(fpath);
    free(spath);
    rm_rf(dir);
    free(dir);
    trv_ctx_free(ctx);
}

static int setup(void **state)
{
    (void)state;
    geo_init();
    return 0;
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_calibration)};
    return cmocka_run_group_tests(tests, setup, NULL);
}
