/* Terramechanics: closed forms against numeric integration, the mode
 * boundary, NRMM formulas at hand-computed points, speeds at hand-computed
 * cells, every NOGO reason on a tiny synthetic row, and vehicle-file errors. */
#include "test_common.h"

#include <math.h>

#include "terramech/terramech.h"


static double rel(double a, double b) { return fabs(a - b) / fabs(b); }

/* Composite Simpson on [0, 1] with n (even) intervals. */
static double simpson(double (*f)(double, const double *), const double *prm, int n)
{
    double h = 1.0 / n, s = f(0, prm) + f(1, prm);
    for (int i = 1; i < n; i++)
        s += (i % 2 ? 4 : 2) * f(i * h, prm);
    return s * h / 3;
}

/* The load under a rigid wheel: b * integral of k (z0 - x^2/D)^n over the
 * contact arc x in [0, sqrt(D z0)]. Near the arc's end the integrand has an
 * infinite slope; x = x0 (1 - v^M) makes it smooth for Simpson.
 * prm: b, k, n, D, z0. */
enum { M = 10 };
static double load_integrand(double v, const double *p)
{
    double b = p[0], k = p[1], n = p[2], D = p[3], z0 = p[4], x0 = sqrt(D * z0);
    double x = x0 * (1 - pow(v, M)), dxdv = x0 * M * pow(v, M - 1);
    double z = z0 - x * x / D;
    return b * k * pow(fmax(z, 0), n) * dxdv;
}

/* Compaction resistance: b * integral of k z^n dz over [0, z0], with
 * z = z0 u^M for the same reason at z = 0. prm: b, k, n, z0. */
static double resistance_integrand(double u, const double *p)
{
    double b = p[0], k = p[1], n = p[2], z0 = p[3];
    double z = z0 * pow(u, M), dzdu = z0 * M * pow(u, M - 1);
    return b * k * pow(z, n) * dzdu;
}

static tm_vehicle ugv(double inflation_kPa)
{
    tm_vehicle v = {0};
    v.kind = TM_WHEELED;
    v.gross_mass_kg = 1242;
    v.axles = 2;
    v.tyres = 4;
    v.tyre_load_N = 3200;
    v.tyre_width_m = 0.40;
    v.tyre_diameter_m = 1.02;
    v.tyre_section_height_m = 0.25;
    v.inflation_pressure_kPa = inflation_kPa;
    v.carcass_pressure_kPa = 20;
    v.engine_power_kW = 62;
    v.drivetrain_efficiency = 1.0;
    v.top_speed_kmh = 40;
    v.ground_clearance_m = 0.45;
    v.max_pitch_deg = 30;
    v.max_roll_deg = 25;
    v.vci1_kPa = NAN;
    v.vci50_kPa = NAN;
    return v;
}

/* Table 2 of the paper (n, kc, kphi, CI) */
static const tm_soil SOILS[4] = {
    {1, "sandy loam", 0.30, 2.79, 141.11, 223.40, 0, 0, 0, 0},
    {2, "clayey soil", 0.50, 13.19, 692.15, 732.50, 0, 0, 0, 0},
    {3, "lean clay", 0.20, 16.43, 1724.69, 1070.50, 0, 0, 0, 0},
    {4, "upland sandy", 1.10, 74.60, 2080.00, 528.50, 0, 0, 0, 0},
};

static void test_closed_forms(void **state)
{
    (void)state;
    for (int s = 0; s < 4; s++) {
        const tm_soil *so = &SOILS[s];
        for (int mode = 0; mode < 2; mode++) {
            /* a stiff tyre rolls as a rigid wheel; a soft one flattens */
            tm_vehicle v = ugv(mode == 0 ? 1900 : 1);
            v.carcass_pressure_kPa = mode == 0 ? 100 : 0.01;
            tm_contact c;
            double load = 3.2;
            tm_contact_compute(&v, so, load, &c);
            assert_int_equal(c.mode, mode == 0 ? TM_RIGID : TM_ELASTIC);
            double b = v.tyre_width_m, D = v.tyre_diameter_m, k = so->kc / b + so->kphi, n = so->n;
            double pr[4] = {b, k, n, c.sinkage_m};
            double rc = simpson(resistance_integrand, pr, 20000);
            double w;
            if (mode == 0) {
                double pl[5] = {b, k, n, D, c.sinkage_m};
                w = simpson(load_integrand, pl, 20000);
                assert_true(rel(tm_rigid_load(b, k, n, D, c.sinkage_m), w) <= 1e-6);
            } else {
                /* the flat part at p_i + p_c carries the load */
                w = b * c.contact_length_m * (v.inflation_pressure_kPa + v.carcass_pressure_kPa);
            }
            printf("  %-13s %-7s z0 %.6e m: load %.9f kN (integrated) vs %.9f, R_c %.9e vs %.9e kN\n", so->name,
                   mode ? "elastic" : "rigid", c.sinkage_m, w, load, rc, c.resistance_kN);
            assert_true(rel(w, load) <= 1e-6);
            assert_true(rel(rc, c.resistance_kN) <= 1e-6);
        }
    }
}

/* At p_i + p_c = p_gcr the two modes describe the same tyre: equal sinkage. */
static void test_mode_boundary(void **state)
{
    (void)state;
    for (int s = 0; s < 4; s++) {
        tm_vehicle v = ugv(100);
        tm_contact c;
        tm_contact_compute(&v, &SOILS[s], 3.2, &c);
        double pgcr = c.p_gcr_kPa;
        tm_contact above, below;
        v.carcass_pressure_kPa = 0;
        v.inflation_pressure_kPa = pgcr * (1 + 1e-12);
        tm_contact_compute(&v, &SOILS[s], 3.2, &above);
        v.inflation_pressure_kPa = pgcr * (1 - 1e-12);
        tm_contact_compute(&v, &SOILS[s], 3.2, &below);
        assert_int_equal(above.mode, TM_RIGID);
        assert_int_equal(below.mode, TM_ELASTIC);
        assert_true(rel(below.sinkage_m, above.sinkage_m) <= 1e-9);
        assert_true(rel(below.resistance_kN, above.resistance_kN) <= 1e-9);
    }
}

static void test_vci_formulas(void **state)
{
    (void)state;
    /* 11.48 + 0 - 39.2/3.74 = 0.9987166 */
    assert_float_equal(tm_vci1_wheeled(0), 0.99871658, 1e-7);
    /* MI = 115: 11.48 + 23 - 39.2/118.74 = 34.1498669; just above: 4.1 * 115^0.446 = 34.0294628 */
    assert_float_equal(tm_vci1_wheeled(115), 34.14986694, 1e-7);
    assert_float_equal(tm_vci1_wheeled(115.000001), 4.1 * pow(115.000001, 0.446), 1e-12);
    assert_float_equal(tm_vci1_wheeled(115.000001), 34.0294628, 1e-6);
    assert_float_equal(tm_vci1_wheeled(200), 4.1 * pow(200, 0.446), 1e-12);
    /* 28.23 + 21.5 - 92.67/53.67 = 48.0033371 */
    assert_float_equal(tm_vci50_wheeled(50), 48.00333706, 1e-7);
    /* tracked: 7 + 10 - 39.2/55.6 = 16.2949640; 19.27 + 21.5 - 125.79/57.08 = 38.5662509 */
    assert_float_equal(tm_vci1_tracked(50), 16.29496403, 1e-7);
    assert_float_equal(tm_vci50_tracked(50), 38.56625088, 1e-7);
    assert_float_equal(TM_KPA_PER_RCI, 6.894757, 0);

    /* The paper's UGV by hand (lb, in): W = 1242 * 2.2046226 = 2738.1413 lb,
     * b = 15.748031 in, d = 40.157480 in, clearance 17.716535 in;
     * CPF = 2738.1413 / (4 * 15.748031 * 20.078740) = 2.1648765;
     * axle load 1.3690706 kips -> WF = 0.553 * 1.3690706 = 0.7570961;
     * TF = 0.2574803; GF = 1; WLF = 2.7381413 / 4 = 0.6845353; CF = 1.7716535;
     * 62 kW = 83.14 hp over 1.369 short tons: EF = 1; automatic: XF = 1;
     * MI = 2.1648765 * 0.7570961 / 0.2574803 + 0.6845353 - 1.7716535 = 5.2784927;
     * VCI1 = 11.48 + 1.0556985 - 39.2 / 9.0184927 = 8.1890742 RCI = 56.461 kPa. */
    tm_vehicle v = ugv(100);
    tm_vci c;
    tm_vci_compute(&v, &c);
    assert_float_equal(c.mi, 5.27849268, 1e-7);
    assert_float_equal(c.vci1_rci, 8.18907418, 1e-7);
    assert_float_equal(c.vci1_kPa, 8.18907418 * 6.894757, 1e-5);
    assert_false(c.vci1_overridden);
    v.vci1_kPa = 389.4;
    v.vci50_kPa = 534.1;
    tm_vci_compute(&v, &c);
    assert_true(c.vci1_overridden && c.vci50_overridden);
    assert_float_equal(c.vci1_kPa, 389.4, 0);
    assert_float_equal(c.vci1_rci, 8.18907418, 1e-7); /* the formula value is still reported */
}

static tm_soils *soils_with_shear(void)
{
    char *p = write_file(tmpdir, "soils.csv",
                         "code,name,n,kc,kphi,ci_kPa,c_kPa,phi_deg,K_m\n"
                         "1,sandy loam,0.30,2.79,141.11,223.40,1.72,29,0.025\n"
                         "2,clayey soil,0.50,13.19,692.15,732.50,4.14,13,0.01\n"
                         "3,lean clay,0.20,16.43,1724.69,1070.50,68.95,20,0.01\n"
                         "4,upland sandy,1.10,74.60,2080.00,528.50,0.48,22,0.01\n");
    trv_ctx *ctx = trv_ctx_new();
    tm_soils *s = NULL;
    assert_int_equal(tm_soils_read(ctx, p, &s), TRV_OK);
    trv_ctx_free(ctx);
    free(p);
    return s;
}

static void test_speed_and_reasons(void **state)
{
    (void)state;
    trv_ctx *ctx = trv_ctx_new();
    tm_vehicle v = ugv(100);
    v.vci1_kPa = 389.4;
    v.vci50_kPa = 534.1;
    tm_soils *soils = soils_with_shear();
    char *lu = write_file(tmpdir, "lu.csv", "code,name,nogo\n1,water,yes\n2,forest,yes\n3,grassland,no\n");
    tm_model m;
    assert_int_equal(tm_model_init(ctx, &m, &v, soils, lu), TRV_OK);
    assert_true(m.traction);
    /* speed by hand: W = 1242 * 9.80665 / 1000 = 12.17986 kN; on clayey soil
     * R = 4 tyres * R_c = 1.268739 kN (the closed form checked above); at 24
     * degrees: 62 / (1.268739 + 12.17986 * sin 24) * 3.6 = 62 / 6.222686 * 3.6
     * = 35.869 km/h, below the 40 km/h top speed */
    double r = m.resistance_total_kN[2];
    assert_float_equal(r, 1.268739, 1e-6);
    double want = 62.0 / (r + 12.1798593 * sin(24 * M_PI / 180)) * 3.6;
    printf("  clayey soil: R = %.6f kN, v(24 deg) = %.4f km/h\n", r, want);
    assert_float_equal(want, 35.869, 1e-3);
    assert_float_equal(tm_speed_kmh(&m, r, 24), want, 1e-9);
    assert_float_equal(tm_speed_kmh(&m, r, 0), 40, 0); /* 176 km/h on the flat: clamped */
    v.drivetrain_efficiency = 0.5;
    assert_float_equal(tm_speed_kmh(&m, r, 24), want / 2, 1e-9);
    v.drivetrain_efficiency = 1.0;

    /* one cell per reason:
     * 0 GO: clayey soil (CI 732.5 >= 389.4), grassland, 5 deg: thrust about
     *   4 (1 - 0.084)(0.0476 m2 * 4.14 kPa + 3.045 kN tan 13) = 3.3 kN > R + W sin 5 = 2.33 kN
     * 1 slope: 26 deg > min(30, 25)
     * 2 soil: sandy loam, CI 223.4 < 389.4
     * 3 land use: water
     * 4 traction: upland sandy (CI 528.5 passes) at 24 deg: thrust of four tyres,
     *   with c = 0.48 kPa and phi = 22 deg, is about W tan 22 = 4.92 kN, below
     *   R + W sin 24 = 1.82 + 4.95 kN
     * 5 no data: slope nodata, soil 0, land use 0, unknown land use 9 */
    const float slope[9] = {5, 26, 5, 5, 24, -9999, 5, 5, 5};
    const unsigned char soil[9] = {2, 2, 1, 2, 4, 2, 0, 2, 2};
    const unsigned char land[9] = {3, 3, 3, 1, 3, 3, 3, 0, 9};
    float speed[9];
    unsigned char why[9];
    tm_row(&m, slope, -9999, soil, land, 9, speed, why);
    const unsigned char expect[9] = {0, 1, 2, 3, 4, 5, 5, 5, 5};
    printf("  upland sandy at 24 deg: thrust %.3f kN, needs %.3f kN\n", m.thrust_total_kN[4],
           m.resistance_total_kN[4] + m.weight_kN * sin(24 * M_PI / 180));
    assert_memory_equal(why, expect, 9);
    assert_float_equal(speed[0], 40, 0); /* 62 / 2.33 * 3.6 = 96 km/h: the top speed */
    for (int i = 1; i < 9; i++)
        assert_float_equal(speed[i], 0, 0);
    tm_soils_free(soils);
    free(lu);
    trv_ctx_free(ctx);
}

static void expect_vehicle_error(const char *text, trv_status want, const char *msg)
{
    trv_ctx *ctx = trv_ctx_new();
    char *p = write_file(tmpdir, "v.ini", text);
    tm_vehicle *v = NULL;
    assert_int_equal(tm_vehicle_read(ctx, p, &v), want);
    assert_null(v);
    assert_contains(trv_errmsg(ctx), msg);
    free(p);
    trv_ctx_free(ctx);
}

#define BASE                                                                                                      \
    "[vehicle]\nname = x\ngross_mass_kg = 1242\naxles = 2\ntyres = 4\ntyre_width_m = 0.4\ntyre_diameter_m = 1.02\n" \
    "tyre_section_height_m = 0.25\ninflation_pressure_kPa = 100\ncarcass_pressure_kPa = 20\nengine_power_kW = 62\n"  \
    "top_speed_kmh = 40\nground_clearance_m = 0.45\nmax_pitch_deg = 30\nmax_roll_deg = 25\n"

static void test_vehicle_file(void **state)
{
    (void)state;
    trv_ctx *ctx = trv_ctx_new();
    char *p = write_file(tmpdir, "v.ini", BASE);
    tm_vehicle *v = NULL;
    assert_int_equal(tm_vehicle_read(ctx, p, &v), TRV_OK);
    assert_float_equal(v->tyre_load_N, 1242 * 9.80665 / 4, 1e-9); /* default: weight / tyres */
    assert_float_equal(v->drivetrain_efficiency, 1.0, 0);
    assert_true(isnan(v->vci1_kPa));
    tm_vehicle_free(v);
    tm_vehicle_free(NULL);
    free(p);
    trv_ctx_free(ctx);
    expect_vehicle_error("[vehicle]\nname = x\n", TRV_ERR_FORMAT, "missing key 'gross_mass_kg' in [vehicle]");
    expect_vehicle_error(BASE "gross_mass_kg = -5\n", TRV_ERR_FORMAT, "repeated");
    expect_vehicle_error("[vehicle]\ngross_mass_kg = -5\n", TRV_ERR_DATA, "v.ini:2: 'gross_mass_kg' = -5 is out of range");
    expect_vehicle_error(BASE "wheels = 4\n", TRV_ERR_FORMAT, "v.ini:16: unknown key 'wheels' in [vehicle]");
    expect_vehicle_error(BASE "drivetrain_efficiency = 1.5\n", TRV_ERR_DATA, "'drivetrain_efficiency' = 1.5 is out of range");
    expect_vehicle_error(BASE "transmission = cvt\n", TRV_ERR_FORMAT, "must be one of automatic|manual");
    expect_vehicle_error(BASE "vci1_kPa = 500\nvci50_kPa = 400\n", TRV_ERR_DATA, "vci50_kPa (400) is below vci1_kPa (500)");
    /* one override against the other's formula (BASE's NRMM VCI1 and VCI50 are a few hundred kPa at most) */
    expect_vehicle_error(BASE "vci1_kPa = 9000\n", TRV_ERR_DATA, ", from the NRMM formula) is below vci1_kPa (9000)");
    expect_vehicle_error(BASE "vci50_kPa = 1\n", TRV_ERR_DATA, "vci50_kPa (1) is below vci1_kPa (");
    expect_vehicle_error("[vehicle]\nname = t\ntype = tracked\ngross_mass_kg = 12000\nengine_power_kW = 100\n"
                         "top_speed_kmh = 60\nground_clearance_m = 0.4\nmax_pitch_deg = 30\nmax_roll_deg = 30\n",
                         TRV_ERR_FORMAT, "missing key 'track_width_m' in [vehicle] (needed by a tracked vehicle)");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_closed_forms),       cmocka_unit_test(test_mode_boundary),
        cmocka_unit_test(test_vci_formulas),       cmocka_unit_test(test_speed_and_reasons),
        cmocka_unit_test(test_vehicle_file),
    };
    return cmocka_run_group_tests(tests, tmpdir_setup, tmpdir_teardown);
}
