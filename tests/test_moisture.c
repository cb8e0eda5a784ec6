/* Soil strength against moisture (src/terramech/moisture.c): every row of
 * the bundled moisture table reproduced exactly at its moisture (the table
 * read here by its own parser), the rows named normal equal to soils.csv,
 * hand-checked midpoints (linear and geometric), the error outside a soil's
 * range and the clamp, the named conditions, and the table's errors. */
#include "test_common.h"

#include <math.h>
#include <stdio.h>

#include "terramech/moisture.h"

typedef struct ref_row {
    int code;
    double pct, v[TM_MP_COUNT];
    char cond[32];
} ref_row;

/* The table read without the library: code,name,moisture_pct,condition,
 * n,kc,kphi,ci_kPa,c_kPa,phi_deg,K_m,source (no quoted cells). */
static int ref_read(const char *path, ref_row *rows, int max)
{
    FILE *f = fopen(path, "r");
    char line[512], name[64];
    int n = 0;
    assert_non_null(f);
    assert_non_null(fgets(line, sizeof line, f));
    assert_string_equal(strtok(line, "\n"),
                        "code,name,moisture_pct,condition,n,kc,kphi,ci_kPa,c_kPa,phi_deg,K_m,source");
    while (n < max && fgets(line, sizeof line, f)) {
        ref_row *r = &rows[n++];
        double *v = r->v;
        assert_int_equal(sscanf(line, "%d,%63[^,],%lf,%31[^,],%lf,%lf,%lf,%lf,%lf,%lf,%lf", &r->code, name, &r->pct,
                                r->cond, &v[0], &v[1], &v[2], &v[3], &v[4], &v[5], &v[6]), 11);
    }
    fclose(f);
    return n;
}

static const tm_soil *soil_code(const tm_soils *s, int code)
{
    for (int i = 0; i < s->n; i++)
        if (s->s[i].code == code)
            return &s->s[i];
    fail_msg("no soil %d", code);
    return NULL;
}

static void values(const tm_soil *s, double v[TM_MP_COUNT])
{
    const double x[TM_MP_COUNT] = {s->n, s->kc, s->kphi, s->ci_kPa, s->c_kPa, s->phi_deg, s->K_m};
    memcpy(v, x, sizeof x);
}

/* The bundled soil table's moisture_pct per code (1..4). */
static const double BASE[5] = {NAN, 26, 38, 22, 5};

static void test_rows_reproduced(void **state)
{
    (void)state;
    trv_ctx *ctx = trv_ctx_new();
    char *mp = data_path("classes/soils_moisture.csv"), *sp = data_path("classes/soils.csv");
    ref_row ref[32];
    int nref = ref_read(mp, ref, 32);
    tm_moisture *t = NULL;
    tm_soils *soils = NULL;
    assert_int_equal(tm_moisture_read(ctx, mp, &t), TRV_OK);
    assert_int_equal(tm_soils_read(ctx, sp, &soils), TRV_OK);
    assert_int_equal(t->n, nref);
    assert_true(nref >= 7);
    for (int i = 0; i < nref; i++) {
        const tm_soil *s = soil_code(soils, ref[i].code);
        tm_soil out;
        double used, v[TM_MP_COUNT];
        int clamped = -1;
        assert_int_equal(tm_moisture_soil_at(ctx, t, s, BASE[s->code], ref[i].pct, 0, &out, &used, &clamped), TRV_OK);
        values(&out, v);
        for (int k = 0; k < TM_MP_COUNT; k++)
            assert_true(v[k] == ref[i].v[k]); /* exactly the tabulated value */
        assert_true(used == ref[i].pct);
        assert_int_equal(clamped, 0);
        if (strstr(ref[i].cond, "normal")) { /* normal: the soil table's own values */
            values(s, v);
            for (int k = 0; k < TM_MP_COUNT; k++)
                assert_true(v[k] == ref[i].v[k]);
            assert_true(ref[i].pct == BASE[s->code]);
        }
        /* the cone index of a wet row: the stated power law CI0 (w0/w)^2 */
        if (strcmp(ref[i].cond, "wet") == 0 && i > 0 && ref[i - 1].code == ref[i].code)
            assert_true(fabs(ref[i].v[TM_MP_CI] - ref[i - 1].v[TM_MP_CI] * pow(ref[i - 1].pct / ref[i].pct, 2)) <
                        0.006);
    }
    tm_moisture_free(t);
    tm_soils_free(soils);
    free(mp);
    free(sp);
    trv_ctx_free(ctx);
}

/* Lean clay (WES) 22 % and 32 %, Wong's Table 2.3: at 27 % the linear
 * parameters are the means, kc, kphi and CI the geometric means; clayey
 * soil at 42.25 % (a quarter of 38..55). */
static void test_midpoints(void **state)
{
    (void)state;
    trv_ctx *ctx = trv_ctx_new();
    char *mp = data_path("classes/soils_moisture.csv"), *sp = data_path("classes/soils.csv");
    tm_moisture *t = NULL;
    tm_soils *soils = NULL;
    assert_int_equal(tm_moisture_read(ctx, mp, &t), TRV_OK);
    assert_int_equal(tm_soils_read(ctx, sp, &soils), TRV_OK);
    tm_soil o;
    double used;
    int cl;
    assert_int_equal(tm_moisture_soil_at(ctx, t, soil_code(soils, 3), 22, 27, 0, &o, &used, &cl), TRV_OK);
    assert_float_equal(o.n, 0.175, 1e-12);
    assert_float_equal(o.c_kPa, 41.37, 1e-12);
    assert_float_equal(o.phi_deg, 15.5, 1e-12);
    assert_float_equal(o.K_m, 0.006, 1e-15);
    assert_float_equal(o.kc, 4.99735930, 1e-7);     /* sqrt(16.43 x 1.52) */
    assert_float_equal(o.kphi, 454.191778, 1e-5); /* sqrt(1724.69 x 119.61) */
    assert_float_equal(o.ci_kPa, 735.96983, 1e-4); /* sqrt(1070.50 x 505.98) */
    assert_int_equal(tm_moisture_soil_at(ctx, t, soil_code(soils, 2), 38, 42.25, 0, &o, &used, &cl), TRV_OK);
    assert_float_equal(o.n, 0.55, 1e-12);
    assert_float_equal(o.phi_deg, 12.25, 1e-12);
    assert_float_equal(o.kc, 13.19 * pow(16.03 / 13.19, 0.25), 1e-9);
    assert_float_equal(o.kphi, 692.15 * pow(1262.53 / 692.15, 0.25), 1e-9);
    assert_float_equal(used, 42.25, 0);
    tm_moisture_free(t);
    tm_soils_free(soils);
    free(mp);
    free(sp);
    trv_ctx_free(ctx);
}

/* Outside the range: the error naming the soil and its range; clamped:
 * the nearest end; one moisture: only that; the conditions. */
static void test_range_clamp_conditions(void **state)
{
    (void)state;
    trv_ctx *ctx = trv_ctx_new();
    char *mp = data_path("classes/soils_moisture.csv"), *sp = data_path("classes/soils.csv");
    tm_moisture *t = NULL;
    tm_soils *soils = NULL;
    assert_int_equal(tm_moisture_read(ctx, mp, &t), TRV_OK);
    assert_int_equal(tm_soils_read(ctx, sp, &soils), TRV_OK);
    const tm_soil *clay = soil_code(soils, 2), *upland = soil_code(soils, 4);
    tm_soil o;
    double used, pct;
    int cl;
    assert_int_equal(tm_moisture_soil_at(ctx, t, clay, 38, 60, 0, &o, &used, &cl), TRV_ERR_DATA);
    assert_contains(trv_errmsg(ctx), "moisture 60 %: soil 'clayey soil' (code 2) is tabulated from 38 to 55 %");
    assert_int_equal(tm_moisture_soil_at(ctx, t, clay, 38, 37.9, 0, &o, &used, &cl), TRV_ERR_DATA);
    assert_int_equal(tm_moisture_soil_at(ctx, t, clay, 38, 60, 1, &o, &used, &cl), TRV_OK);
    assert_int_equal(cl, 1);
    assert_true(used == 55 && o.n == 0.7 && o.kc == 16.03 && o.kphi == 1262.53 && o.ci_kPa == 349.66);
    assert_int_equal(tm_moisture_soil_at(ctx, t, clay, 38, 10, 1, &o, &used, &cl), TRV_OK);
    assert_true(used == 38 && o.kc == 13.19 && o.c_kPa == 4.14);
    assert_int_equal(tm_moisture_soil_at(ctx, t, upland, 5, 10, 0, &o, &used, &cl), TRV_ERR_DATA);
    assert_contains(trv_errmsg(ctx), "soil 'upland sandy' (code 4) is tabulated at 5 % only");
    assert_int_equal(tm_moisture_soil_at(ctx, t, upland, 5, 10, 1, &o, &used, &cl), TRV_OK);
    assert_true(used == 5 && cl == 1 && o.kphi == upland->kphi);
    assert_int_equal(tm_moisture_soil_condition(ctx, t, clay, 38, TM_COND_WET, &o, &pct), TRV_OK);
    assert_true(pct == 55 && o.ci_kPa == 349.66 && o.phi_deg == 10);
    assert_int_equal(tm_moisture_soil_condition(ctx, t, clay, 38, TM_COND_DRY, &o, &pct), TRV_OK);
    assert_true(pct == 38 && o.ci_kPa == clay->ci_kPa);
    tm_moisture_free(t);
    tm_soils_free(soils);
    free(mp);
    free(sp);
    trv_ctx_free(ctx);
}

/* Table errors, and a table that does not belong to the soil table. */
static void test_table_errors(void **state)
{
    (void)state;
    trv_ctx *ctx = trv_ctx_new();
    static const char head[] = "code,name,moisture_pct,condition,n,kc,kphi,ci_kPa,c_kPa,phi_deg,K_m\n";
    static const struct { const char *rows, *msg; } bad[] = {
        {"1,a,10,dry;normal;soggy,0.3,1,1,100,1,20,0.01\n", "condition 'dry;normal;soggy': names are dry, normal, wet"},
        {"1,a,10,dry;normal,0.3,1,1,100,1,20,0.01\n", "soil 'a' (code 1) needs one row each named dry, normal and wet"},
        {"1,a,10,dry;normal,0.3,1,1,100,1,20,0.01\n1,a,10,wet,0.3,1,1,100,1,20,0.01\n", "has 10 % moisture twice"},
        {"1,a,10,dry;normal;wet,0.3,0,1,100,1,20,0.01\n", "kc, kphi, ci_kPa > 0 (interpolated in log space)"},
        {"1,a,120,dry;normal;wet,0.3,1,1,100,1,20,0.01\n", "moisture_pct must be from 0 to 100"},
        {"1,a,10,dry;normal,0.3,1,1,100,1,20,0.01\n1,b,20,wet,0.3,1,1,100,1,20,0.01\n", "is named both 'a' and 'b'"},
    };
    char text[512];
    tm_moisture *t = NULL;
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        snprintf(text, sizeof text, "%s%s", head, bad[k].rows);
        char *p = write_file(tmpdir, "m_bad.csv", text);
        assert_int_equal(tm_moisture_read(ctx, p, &t), TRV_ERR_DATA);
        assert_contains(trv_errmsg(ctx), bad[k].msg);
        free(p);
    }
    /* the bundled soils against a table naming code 1 otherwise, or with
     * a normal row off the soil table's values */
    char *sp = data_path("classes/soils.csv");
    tm_soils *soils = NULL;
    assert_int_equal(tm_soils_read(ctx, sp, &soils), TRV_OK);
    static const struct { const char *rows, *msg; } other[] = {
        {"1,sand,26,dry;normal;wet,0.30,2.79,141.11,223.40,13.79,22,0.01\n",
         "code 1 is 'sand', the soil table's 'sandy loam'"},
        {"1,sandy loam,26,dry;normal;wet,0.30,2.79,141.11,223.41,13.79,22,0.01\n",
         "the row named normal has ci_kPa = 223.41, the soil table 223.4"},
        {"1,sandy loam,27,dry;normal;wet,0.30,2.79,141.11,223.40,13.79,22,0.01\n",
         "the row named normal is at 27 % moisture, the soil table at 26 %"},
    };
    for (size_t k = 0; k < sizeof other / sizeof other[0]; k++) {
        snprintf(text, sizeof text, "%s%s", head, other[k].rows);
        char *p = write_file(tmpdir, "m_other.csv", text);
        tm_soil o;
        double used;
        int cl;
        assert_int_equal(tm_moisture_read(ctx, p, &t), TRV_OK);
        assert_int_equal(tm_moisture_soil_at(ctx, t, &soils->s[0], 26, 26, 0, &o, &used, &cl), TRV_ERR_DATA);
        assert_contains(trv_errmsg(ctx), other[k].msg);
        tm_moisture_free(t);
        free(p);
    }
    tm_soils_free(soils);
    free(sp);
    trv_ctx_free(ctx);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rows_reproduced),
        cmocka_unit_test(test_midpoints),
        cmocka_unit_test(test_range_clamp_conditions),
        cmocka_unit_test(test_table_errors),
    };
    return cmocka_run_group_tests(tests, tmpdir_setup, tmpdir_teardown);
}
