/* The route explained (prm/profile.h): a hand-computed profile on a
 * synthetic tilted plane with two land uses (elevations, grades along and
 * across, speeds, binding limits and times per piece, both directions),
 * its sums against prm_path_stats, the time shares against the hand
 * times, and the CSV read back. */
#include "test_common.h"
#include "test_terrain_mem.h"

#include <math.h>

#include "prm/profile.h"

enum { NX = 12, NY = 5 };
#define CELL 100.0
#define X0 500000.0
#define Y0 4000000.0
/* gradients exact in binary: the DEM's floats and Horn's differences are exact */
#define GE 0.0625
#define GN 0.03125
#define VEG_KMH 5.0

typedef struct model {
    tm_vehicle *v;
    tm_soils *soils;
    tm_model m;
} model;

/* One soil without shear data (no slip), land use 1 "open" without limits,
 * 2 "scrub, dense" with vmax_kmh VEG_KMH; power lowered so that uphill is
 * power-limited (as test_prm's plane). */
static void model_init(trv_ctx *ctx, model *pm)
{
    char *vp = data_path("vehicles/ugv_hua2022.ini");
    char *sp = write_file(tmpdir, "prof_soils.csv", "code,name,n,kc,kphi,ci_kPa\n1,firm,1.0,1000,50000,2000\n");
    char *lp = write_file(tmpdir, "prof_landuse.csv", "code,name,nogo,vmax_kmh\n1,open,no,\n2,\"scrub, dense\",no,5\n");
    assert_int_equal(tm_vehicle_read(ctx, vp, &pm->v), TRV_OK);
    assert_int_equal(tm_soils_read(ctx, sp, &pm->soils), TRV_OK);
    assert_int_equal(tm_model_init(ctx, &pm->m, pm->v, pm->soils, lp), TRV_OK);
    pm->m.power_W = 6000;
    free(vp);
    free(sp);
    free(lp);
}

/* The speed (m/s) by hand (docs: tm_speed_at's formula for this model):
 * min(top, P / F, vegetation) with F = R + f W cos b + W sin b; *limit the
 * one that binds (tm_limit code). */
static double hand_speed(const model *pm, double tan_b, int landuse, int *limit)
{
    const tm_model *m = &pm->m;
    double b = atan(tan_b), W = m->weight_N, top = pm->v->top_speed_kmh / 3.6;
    double F = m->soil_pull_N[1] + pm->v->rolling_coeff * W * cos(b) + W * sin(b);
    double v = top, p = F > 0 ? m->power_W / F : INFINITY;
    *limit = TM_LIMIT_TOP;
    if (p < v)
        v = p, *limit = TM_LIMIT_POWER;
    if (landuse == 2 && VEG_KMH / 3.6 < v)
        v = VEG_KMH / 3.6, *limit = TM_LIMIT_VEGETATION;
    return v;
}

/* z = 500 + GE E + GN N (E, N from the grid's south-west corner); land use 1
 * west of column 6, 2 from it on; cost 0.1 x (column + 1). */
static void make_plane(trv_ctx *ctx, prm_terrain *t, const model *pm)
{
    assert_int_equal(test_terrain_new(t, NX, NY, X0, Y0, CELL), 0);
    geo_raster *soil, *lu;
    assert_int_equal(geo_raster_new(ctx, t->grid, GEO_U8, &soil), TRV_OK);
    assert_int_equal(geo_raster_new(ctx, t->grid, GEO_U8, &lu), TRV_OK);
    for (int r = 0; r < NY; r++)
        for (int c = 0; c < NX; c++) {
            long i = (long)r * NX + c;
            t->cls->u8[i] = 3;
            t->dem->f32[i] = (float)(500 + GE * CELL * c + GN * CELL * (NY - 1 - r));
            t->slope->f32[i] = (float)(atan(hypot(GE, GN)) * 180 / M_PI);
            t->speed->f32[i] = 10;
            t->cost->f32[i] = (float)(0.1 * (c + 1));
            soil->u8[i] = 1;
            lu->u8[i] = c < 6 ? 1 : 2;
        }
    assert_int_equal(prm_terrain_set_model(ctx, t, &pm->m, soil, lu), TRV_OK);
    geo_raster_free(soil);
    geo_raster_free(lu);
}

/* Row 2 from the centre of column 1 to that of column 10 (east: uphill)
 * or back: pieces of 50, 100 x 8, 50 m. */
static void check_row(trv_ctx *ctx, const prm_terrain *t, const model *pm, int east)
{
    double y = Y0 - 2.5 * CELL, xa = X0 + 1.5 * CELL, xb = X0 + 10.5 * CELL;
    double xs[2] = {east ? xa : xb, east ? xb : xa}, ys[2] = {y, y};
    prm_path path = {2, xs, ys, 0, 0};
    prm_profile p;
    assert_int_equal(prm_profile_make(ctx, t, &path, &p), TRV_OK);
    assert_int_equal(p.n, 10);
    double s = east ? 1 : -1, dist = 0, time = 0;
    for (int k = 0; k < 10; k++) {
        int col = east ? 1 + k : 10 - k, lu = col < 6 ? 1 : 2, lim;
        double len = k == 0 || k == 9 ? 50 : 100;
        double v = hand_speed(pm, s * GE, lu, &lim);
        dist += len;
        time += len / v;
        assert_float_equal(p.len_m[k], len, 1e-9);
        assert_float_equal(p.dist_m[k], dist, 1e-9);
        assert_float_equal(p.elev_m[k], 500 + GE * CELL * col + GN * CELL * 2, 1e-4);
        assert_float_equal(p.along[k], s * GE, 1e-12);
        assert_float_equal(p.across[k], s * GN, 1e-12); /* left of east is north, where the ground rises */
        assert_int_equal(p.landuse[k], lu);
        assert_int_equal(p.soil[k], 1);
        assert_int_equal(p.limit[k], lim);
        assert_float_equal(p.speed_kmh[k], v * 3.6, 1e-3 * v * 3.6);
        assert_float_equal(p.time_s[k], len / v, 1e-3 * len / v);
        assert_float_equal(p.cost[k], 0.1 * (col + 1), 1e-6);
    }
    /* the hand case's limits: power up and top speed down in the open, vegetation in the scrub */
    assert_int_equal(p.limit[east ? 0 : 9], east ? TM_LIMIT_POWER : TM_LIMIT_TOP);
    assert_int_equal(p.limit[east ? 9 : 0], TM_LIMIT_VEGETATION);
    /* the sums are the statistics' */
    prm_stats st;
    prm_path_stats(t, &path, CELL, &st);
    double ts = 0;
    for (int k = 0; k < p.n; k++)
        ts += p.time_s[k];
    assert_float_equal(ts, st.time_h * 3600, 1e-9 * ts);
    assert_float_equal(p.dist_m[p.n - 1], st.distance_m, 1e-9 * st.distance_m);
    assert_float_equal(ts, time, 1e-3 * time);
    /* shares: by hand, 450 m of each land use */
    prm_time_shares sh;
    prm_profile_shares(&p, &sh);
    int l1, l2;
    double t1 = 450 / hand_speed(pm, s * GE, 1, &l1), t2 = 450 / hand_speed(pm, s * GE, 2, &l2);
    assert_float_equal(sh.landuse[1], t1 / (t1 + t2), 1e-3);
    assert_float_equal(sh.landuse[2], t2 / (t1 + t2), 1e-3);
    assert_float_equal(sh.limit[l1], t1 / (t1 + t2), 1e-3);
    assert_float_equal(sh.limit[TM_LIMIT_VEGETATION], t2 / (t1 + t2), 1e-3);
    double sum_lu = 0, sum_lim = 0;
    for (int c = 0; c < 256; c++)
        sum_lu += sh.landuse[c];
    for (int c = 0; c <= TM_NLIMIT_CODES; c++)
        sum_lim += sh.limit[c];
    assert_float_equal(sum_lu, 1, 1e-12);
    assert_float_equal(sum_lim, 1, 1e-12);
    assert_float_equal(sh.total_s, ts, 1e-9 * ts);
    prm_profile_clear(&p);
}

static void test_profile_hand(void **state)
{
    (void)state;
    trv_ctx *ctx = trv_ctx_new();
    model pm;
    model_init(ctx, &pm);
    prm_terrain t;
    make_plane(ctx, &t, &pm);
    check_row(ctx, &t, &pm, 1);
    check_row(ctx, &t, &pm, 0);
    /* north along column 3, rows 3 to 1: along GN, across -GE (left of north is west, where the ground falls) */
    double xs[2] = {X0 + 3.5 * CELL, X0 + 3.5 * CELL}, ys[2] = {Y0 - 3.5 * CELL, Y0 - 1.5 * CELL};
    prm_path path = {2, xs, ys, 0, 0};
    prm_profile p;
    assert_int_equal(prm_profile_make(ctx, &t, &path, &p), TRV_OK);
    assert_int_equal(p.n, 3);
    int lim;
    double v = hand_speed(&pm, GN, 1, &lim);
    for (int k = 0; k < 3; k++) {
        assert_float_equal(p.along[k], GN, 1e-12);
        assert_float_equal(p.across[k], -GE, 1e-12);
        assert_float_equal(p.elev_m[k], 500 + GE * CELL * 3 + GN * CELL * (1 + k), 1e-4);
        assert_float_equal(p.speed_kmh[k], v * 3.6, 1e-3 * v * 3.6);
        assert_int_equal(p.limit[k], lim);
    }
    prm_profile_clear(&p);
    prm_terrain_clear(&t);
    tm_vehicle_free(pm.v);
    tm_soils_free(pm.soils);
    trv_ctx_free(ctx);
}

/* The CSV and the shares' CSV of two routes, read back; the console line. */
static void test_profile_files(void **state)
{
    (void)state;
    trv_ctx *ctx = trv_ctx_new();
    model pm;
    model_init(ctx, &pm);
    prm_terrain t;
    make_plane(ctx, &t, &pm);
    double y = Y0 - 2.5 * CELL, xs[2] = {X0 + 1.5 * CELL, X0 + 10.5 * CELL}, ys[2] = {y, y};
    double xr[2] = {xs[1], xs[0]};
    prm_result R[2];
    memset(R, 0, sizeof R);
    snprintf(R[0].name, sizeof R[0].name, "east");
    snprintf(R[1].name, sizeof R[1].name, "west");
    R[0].path = (prm_path){2, xs, ys, 0, 0};
    R[1].path = (prm_path){2, xr, ys, 0, 0};
    prm_profiles *P;
    assert_int_equal(prm_profiles_make(ctx, &t, R, 2, &P), TRV_OK);
    assert_int_equal(P->n, 2);
    assert_string_equal(P->landuse[1], "open");
    assert_string_equal(P->landuse[2], "scrub, dense"); /* a comma: quoted in the CSVs */
    assert_string_equal(P->soil[1], "1"); /* a borrowed model: the code */
    char *path = write_file(tmpdir, "profile.csv", "");
    assert_int_equal(prm_profiles_write_csv(ctx, P, path, path), TRV_OK);
    trv_csv *csv;
    assert_int_equal(trv_csv_read(ctx, path, &csv), TRV_OK);
    assert_int_equal(trv_csv_nrows(csv), 20);
    int cl = trv_csv_col(csv, "limit"), cu = trv_csv_col(csv, "landuse"), cd = trv_csv_col(csv, "dist_m");
    assert_string_equal(trv_csv_cell(csv, 0, cl), "power");
    assert_string_equal(trv_csv_cell(csv, 9, cl), "vegetation");
    assert_string_equal(trv_csv_cell(csv, 10, cl), "vegetation");
    assert_string_equal(trv_csv_cell(csv, 19, cl), "top speed");
    assert_string_equal(trv_csv_cell(csv, 19, cu), "open");
    assert_string_equal(trv_csv_cell(csv, 9, cu), "scrub, dense");
    assert_string_equal(trv_csv_cell(csv, 19, cd), "900.000");
    trv_csv_free(csv);
    assert_int_equal(prm_time_shares_write_csv(ctx, P, path, path), TRV_OK);
    assert_int_equal(trv_csv_read(ctx, path, &csv), TRV_OK);
    assert_int_equal(trv_csv_nrows(csv), 8); /* 2 routes x (2 land uses + 2 limits) */
    double sum = 0;
    for (size_t r = 0; r < 4; r++)
        sum += atof(trv_csv_cell(csv, r, trv_csv_col(csv, "share")));
    assert_float_equal(sum, 2, 1e-5); /* land uses and limits of the first route: 1 each */
    /* uphill: the scrub's 5 km/h takes most of the time */
    assert_string_equal(trv_csv_cell(csv, 0, trv_csv_col(csv, "name")), "scrub, dense");
    trv_csv_free(csv);
    char line[512];
    prm_time_shares_line(P, 1, line, sizeof line);
    assert_contains(line, "land use scrub, dense ");
    assert_contains(line, "; limit vegetation ");
    prm_profiles_free(P);
    free(path);
    prm_terrain_clear(&t);
    tm_vehicle_free(pm.v);
    tm_soils_free(pm.soils);
    trv_ctx_free(ctx);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_profile_hand),
        cmocka_unit_test(test_profile_files),
    };
    return cmocka_run_group_tests(tests, tmpdir_setup, tmpdir_teardown);
}
