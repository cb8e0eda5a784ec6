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

/* The speed limits' keys at the defaults tm_vehicle_read gives a file that
 * leaves them out (terramech.h, docs/method.md §2.10.6; test_vehicle_limit_keys
 * checks the reader against the same numbers): per corner a tenth of the
 * mass unsprung, a 1.2 Hz body, 0.3 damping, a tyre ten times the spring. */
static void limit_keys(tm_vehicle *v, int corners)
{
    v->rolling_coeff = v->kind == TM_TRACKED ? 0.03 : 0.015;
    v->reaction_s = 2.5;
    v->decel_ms2 = 3.4;
    v->lat_accel_ms2 = 2.0;
    double corner = v->gross_mass_kg / corners;
    v->unsprung_kg = 0.1 * corner;
    v->sprung_kg = corner - v->unsprung_kg;
    v->spring_N_per_m = v->sprung_kg * pow(2 * M_PI * 1.2, 2);
    v->damper_Ns_per_m = 2 * 0.3 * sqrt(v->spring_N_per_m * v->sprung_kg);
    v->tyre_N_per_m = 10 * v->spring_N_per_m;
    v->ride_limit_ms2 = 2.0;
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
    v.width_m = 2.0;
    limit_keys(&v, 4);
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

/* ---- tracks (docs/method.md §2.2, §2.5, §2.7) ---- */

/* data/vehicles/tracked_carrier.ini */
static tm_vehicle carrier(void)
{
    tm_vehicle v = {0};
    v.kind = TM_TRACKED;
    v.gross_mass_kg = 12000;
    v.track_width_m = 0.38;
    v.track_length_m = 2.7;
    v.track_shoe_area_m2 = 0.058;
    v.grouser_height_m = 0.03;
    v.road_wheels = 10;
    v.engine_power_kW = 160;
    v.drivetrain_efficiency = 0.8;
    v.top_speed_kmh = 65;
    v.ground_clearance_m = 0.43;
    v.max_pitch_deg = 35;
    v.max_roll_deg = 30;
    v.vci1_kPa = NAN;
    v.vci50_kPa = NAN;
    v.width_m = 2.7;
    limit_keys(&v, 10);
    return v;
}

/* Bekker's uniform-pressure track, by hand (kN, kPa, m). The carrier:
 * W = 12000 kg * 9.80665 / 1000 = 117.6798 kN on 2 b L = 2 * 0.38 * 2.7 =
 * 2.052 m2, so p = 117.6798 / 2.052 = 57.348830 kPa; z0 = (p / k)^(1/n)
 * with k = kc / b + kphi; R = 2 b k z0^(n+1) / (n+1), which is also
 * 2 b p z0 / (n+1) = W z0 / (L (n+1)) since k z0^n = p.
 *   sandy loam   (n 0.3): k = 2.79/0.38 + 141.11 = 148.452105, p/k = 0.38631200,
 *                z0 = 0.38631200^(1/0.3) = 0.041988209 m,
 *                R = 117.6798 * 0.041988209 / (2.7 * 1.3) = 1.4077390 kN
 *   clayey soil  (n 0.5): k = 13.19/0.38 + 692.15 = 726.860526, p/k = 0.078899360,
 *                z0 = 0.078899360^2 = 0.0062251090 m, R = 0.18088138 kN
 *   upland sandy (n 1.1): k = 74.6/0.38 + 2080 = 2276.315789, p/k = 0.025193706,
 *                z0 = 0.025193706^(1/1.1) = 0.035207010 m, R = 0.73071497 kN
 *   lean clay    (n 0.2): k = 1767.926842, p/k = 0.032438464, z0 = 3.5917109e-8 m,
 *                R = 1.3045427e-6 kN
 * (with the exponent 1/(n+1) instead, sandy loam would sink 0.48 m and
 * resist 33.5 kN). Speed (§2.10.7, no shear columns so no slip and no
 * traction check): uphill the pull is F = R + f W cos b + W sin b with the
 * track's own rolling coefficient f = 0.03 (the tracked default), in N:
 * f W cos 10 = 0.03 * 117679.8 * 0.98480775 = 3476.7594, W sin 10 =
 * 117679.8 * 0.17364818 = 20434.8828; f W cos 20 = 3317.4852, W sin 20 =
 * 40248.8621. The power limit eta P / F = 128 000 W / F:
 *   sandy loam:   b = 10: F = 1407.7390 + 3476.7594 + 20434.8828 = 25319.3812 N,
 *                 128 000 / 25319.3812 = 5.0554158 m/s = 18.199497 km/h;
 *                 b = 20: F = 44974.0863 N, 10.245900 km/h;
 *                 flat: F = 1407.7390 + 3530.3940 = 4938.1330 N, 93.3 km/h, so 65
 *   clayey soil:  b = 10: F = 24092.5236 N, 19.126265 km/h; b = 20: F = 43747.2286 N, 10.533239 km/h
 *   upland sandy: b = 10: F = 24642.3572 N, 18.699510 km/h; b = 20: F = 44297.0622 N, 10.402496 km/h
 *   lean clay:    b = 10: F = 23911.6435 N, 19.270946 km/h; b = 20: F = 43566.3486 N, 10.576971 km/h
 * Downhill the pull is negative (sandy loam, 20 deg: 1407.7390 + 3317.4852
 * - 40248.8621 = -35523.6378 N), below the brakes' hold m a = 12 000 * 3.4 =
 * 40 800 N, so the cell is GO; no visibility column: no braking limit, and
 * downhill runs at the 65 km/h top speed. The worse direction, uphill, is
 * speed.tif's. */
static void test_tracked_closed_forms(void **state)
{
    (void)state;
    static const struct {
        int soil;
        double z0, r, v10, v20;
    } want[4] = {
        {0, 0.041988208745, 1.4077390335, 18.199496889, 10.245900207},
        {1, 0.0062251090244, 0.18088137901, 19.126265394, 10.533238662},
        {2, 3.5917109404e-8, 1.3045426701e-6, 19.270946386, 10.576970879},
        {3, 0.035207009731, 0.73071496715, 18.699509826, 10.402495717},
    };
    tm_vehicle v = carrier();
    char *lu = write_file(tmpdir, "lu_t.csv", "code,name,nogo\n3,grassland,no\n");
    char *sp = write_file(tmpdir, "soils_t.csv",
                          "code,name,n,kc,kphi,ci_kPa\n1,sandy loam,0.30,2.79,141.11,223.40\n"
                          "2,clayey soil,0.50,13.19,692.15,732.50\n3,lean clay,0.20,16.43,1724.69,1070.50\n"
                          "4,upland sandy,1.10,74.60,2080.00,528.50\n");
    trv_ctx *ctx = trv_ctx_new();
    tm_soils *soils = NULL;
    assert_int_equal(tm_soils_read(ctx, sp, &soils), TRV_OK);
    tm_model m;
    assert_int_equal(tm_model_init(ctx, &m, &v, soils, lu), TRV_OK);
    assert_float_equal(m.weight_kN, 117.6798, 1e-9);
    for (int i = 0; i < 4; i++) {
        const tm_soil *so = &SOILS[want[i].soil];
        int code = so->code;
        const tm_contact *c = &m.contact[code];
        /* the closed form written out here too, from the table's values */
        double b = 0.38, L = 2.7, k = so->kc / b + so->kphi, p = 117.6798 / (2 * b * L);
        double z0 = pow(p / k, 1 / so->n), r = 2 * b * k * pow(z0, so->n + 1) / (so->n + 1);
        printf("  tracked, %-12s z0 %.9e m (closed form %.9e), R %.9e kN (%.9e)\n", so->name, c->sinkage_m, z0,
               m.resistance_total_kN[code], r);
        assert_int_equal(c->mode, TM_TRACK);
        /* against the hand values (11 digits written above): measured at most
         * 2.8e-11 relative, tolerance 1e-9; against the closed form evaluated
         * here: 1e-13 */
        assert_true(rel(z0, want[i].z0) <= 1e-9);
        assert_true(rel(r, want[i].r) <= 1e-9);
        assert_true(rel(c->sinkage_m, want[i].z0) <= 1e-9);
        assert_true(rel(c->sinkage_m, z0) <= 1e-13);
        assert_true(rel(m.resistance_total_kN[code], r) <= 1e-13);
        assert_true(rel(c->p_gcr_kPa, p) <= 1e-12);
        assert_true(rel(c->contact_length_m, L) <= 1e-15);
        /* both tracks are one contact: the total is the contact's resistance */
        assert_true(rel(c->resistance_kN, want[i].r) <= 1e-9);
        assert_true(rel(m.resistance_total_kN[code], want[i].r) <= 1e-9);
        assert_true(isnan(c->thrust_kN)); /* no shear columns */
        /* speeds through the row kernel: 10 and 20 degrees, and the flat clamp */
        const float slope[3] = {10, 20, 0};
        const unsigned char soil[3] = {(unsigned char)code, (unsigned char)code, (unsigned char)code},
                            land[3] = {3, 3, 3};
        float speed[3];
        unsigned char why[3];
        tm_row(&m, slope, -9999, soil, land, 3, speed, why, NULL);
        const unsigned char go[3] = {TM_GO, TM_GO, TM_GO};
        assert_memory_equal(why, go, 3);
        /* float32 speeds: measured at most 4.2e-8 relative, tolerance 1e-6 */
        assert_true(rel(speed[0], want[i].v10) <= 1e-6);
        assert_true(rel(speed[1], want[i].v20) <= 1e-6);
        assert_float_equal(speed[2], 65, 0);
    }

    /* Tracked NRMM by hand (lb, in): W = 12000 * 2.2046226218 = 26455.471 lb,
     * b = 0.38 / 0.0254 = 14.960630 in, L = 106.299213 in;
     * CPF = 26455.471 / (2 * 106.299213 * 14.960630) = 8.3177446 psi;
     * WF = 1.0 (< 50 000 lb); TrF = 0.14960630; GF = 1.0 (grousers 1.18 in < 1.5);
     * shoe 0.058 m2 = 89.900180 in2, BF = 2645.5471 / (10 * 89.900180) = 2.9427607;
     * CF = 16.929134 / 10 = 1.6929134; 214.6 hp over 13.23 short tons = 16.2: EF = 1; XF = 1;
     * MI = 8.3177446 / 0.14960630 + 2.9427607 - 1.6929134 = 56.847403;
     * VCI1 = 7 + 11.369481 - 39.2 / 62.447403 = 17.741752 RCI = 122.32507 kPa;
     * VCI50 = 19.27 + 24.444384 - 125.79 / 63.927403 = 41.746683 RCI. */
    assert_float_equal(m.vci.mi, 56.847403468, 1e-8);
    assert_float_equal(m.vci.vci1_rci, 17.741752432, 1e-8);
    assert_float_equal(m.vci.vci1_kPa, 122.32507178, 1e-7);
    assert_float_equal(m.vci.vci50_rci, 41.746682737, 1e-8);
    tm_soils_free(soils);
    free(sp);
    free(lu);
    trv_ctx_free(ctx);
}

/* ---- traction (docs/method.md §2.6) ---- */

/* Janosi-Hanamoto shear stress along a contact, integrated: prm = c, p tan phi
 * (kPa), K/i (m), l (m); x = l u. */
static double shear_integrand(double u, const double *p)
{
    double x = p[3] * u;
    return (p[0] + p[1]) * (1 - exp(-x / p[2])) * p[3];
}

/* The thrust at slip i (shear displacement j = i x) of a contact of width B
 * (both tracks: 2 b), length l and load W at uniform pressure p = W / (B l):
 *   H(i) = B * integral over [0, l] of (c + p tan phi)(1 - e^(-i x / K)) dx
 *        = (A c + W tan phi)[1 - K / (i l) (1 - e^(-i l / K))],  A = B l.
 * It depends on i and K only through K / i, so the code's 100 %-slip value
 * for a soil with K / i is H at slip i for the soil with K.
 * By hand, the carrier on sandy loam (c 1.72 kPa, phi 29 deg, K 0.025 m),
 * i = 1: A = 2.052 m2, A c = 3.52944 kN, W tan 29 = 117.6798 * 0.55430905 =
 * 65.230978 kN; 1 - (0.025 / 2.7)(1 - e^-108) = 0.99074074; H = 68.759918 *
 * 0.99074074 = 68.123748 kN. At i = 0.05 (K / i = 0.5 m): 1 - (0.5 / 2.7)
 * (1 - e^-5.4) = 0.81565122, H = 56.084519 kN; at i = 0.02: 40.598097 kN. */
static void test_thrust(void **state)
{
    (void)state;
    static const double slips[6] = {1, 0.5, 0.2, 0.1, 0.05, 0.02};
    static const struct {
        int soil;
        double c, phi, K;
    } shear[4] = {{0, 1.72, 29, 0.025}, {1, 4.14, 13, 0.01}, {2, 68.95, 20, 0.01}, {3, 0.48, 22, 0.01}};
    double maxcf = 0, maxint = 0;
    for (int veh = 0; veh < 3; veh++) {
        /* the carrier; the UGV as a rigid wheel (stiff tyre); the UGV flattened */
        tm_vehicle v = veh == 0 ? carrier() : ugv(veh == 1 ? 1900 : 1);
        if (veh)
            v.carcass_pressure_kPa = veh == 1 ? 100 : 0.01;
        double load = veh == 0 ? 117.6798 : 3.2;
        for (int s = 0; s < 4; s++)
            for (int k = 0; k < 6; k++) {
                tm_soil so = SOILS[shear[s].soil];
                so.has_shear = 1;
                so.c_kPa = shear[s].c;
                so.phi_deg = shear[s].phi;
                so.K_m = shear[s].K / slips[k];
                tm_contact c;
                tm_contact_compute(&v, &so, load, &c);
                assert_int_equal(c.mode, veh == 0 ? TM_TRACK : veh == 1 ? TM_RIGID : TM_ELASTIC);
                double l = c.contact_length_m, B = veh == 0 ? 2 * 0.38 : 0.40, A = B * l;
                double tp = load / A * tan(so.phi_deg * M_PI / 180);
                double il = slips[k] * l / shear[s].K;
                double cf = (A * so.c_kPa + load * tan(so.phi_deg * M_PI / 180)) * (1 - (1 - exp(-il)) / il);
                double pr[4] = {so.c_kPa, tp, so.K_m, l};
                double in = B * simpson(shear_integrand, pr, 20000);
                maxcf = fmax(maxcf, rel(c.thrust_kN, cf));
                maxint = fmax(maxint, rel(c.thrust_kN, in));
                if (!(rel(c.thrust_kN, cf) <= 1e-12 && rel(c.thrust_kN, in) <= 1e-9))
                    fail_msg("thrust, vehicle %d, %s, slip %g (i l / K = %g): %.12g kN, closed form %.12g, "
                             "integrated %.12g", veh, so.name, slips[k], il, c.thrust_kN, cf, in);
            }
    }
    /* measured: 1.0e-15 against the closed form (tolerance 1e-12), 1.7e-11
     * against Simpson with 20 000 intervals (tolerance 1e-9) */
    printf("  thrust: max relative difference %.2e (closed form), %.2e (integrated)\n", maxcf, maxint);
    /* the worked example */
    tm_vehicle v = carrier();
    tm_soil so = SOILS[0];
    so.has_shear = 1;
    so.c_kPa = 1.72;
    so.phi_deg = 29;
    tm_contact c;
    const double hand[3][2] = {{0.025, 68.123747773}, {0.5, 56.084518995}, {1.25, 40.598096670}};
    for (int k = 0; k < 3; k++) {
        so.K_m = hand[k][0];
        tm_contact_compute(&v, &so, 117.6798, &c);
        assert_true(rel(c.thrust_kN, hand[k][1]) <= 1e-9);
    }
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
    /* on clayey soil R = 4 tyres * R_c = 1.268739 kN (the closed form checked above) */
    double r = m.resistance_total_kN[2];
    assert_float_equal(r, 1.268739, 1e-6);

    /* The attainable speed of the GO cell below (§2.10.7), by hand. Clayey
     * soil under one tyre (rigid mode): z0 = 0.013908719 m, contact length
     * L = sqrt(D z0) = sqrt(1.02 * 0.013908719) = 0.11910875 m, so K / L =
     * 0.01 / 0.11910875 = 0.083956890; thrust at full slip of four tyres
     * 4 (0.4 * 0.11910875 * 4.14 + 3.2 tan 13)(1 - 0.083956890 (1 - e^-11.911))
     * = 4 (0.19724409 + 0.73877941) * 0.91604311 = 3.4297492 kN. Up 5 deg:
     * F = 1268.7391 + 0.015 * 12179.8593 * cos 5 + 12179.8593 * sin 5 =
     * 1268.7391 + 182.0004 + 1061.5469 = 2512.2864 N, the fraction
     * 2512.2864 / 3429.7492 = 0.73249858 of the thrust; the slip solves
     * g(i) = 0.73249858 g(1) with g(i) = 1 - K/(iL) (1 - e^(-iL/K)) (Newton
     * in Python: i = 0.240670372, above 0.2, so the power limit is reported
     * as traction): eta P (1 - i) / F = 62 000 * 0.75932963 / 2512.2864 =
     * 18.739279 m/s = 67.46 km/h, above the 40 km/h top speed, which binds.
     * Down 5 deg: F = 1268.7391 + 182.0004 - 1061.5469 = 389.1971 N (still
     * a pull), slip 0.018779929, 62 000 * 0.98122007 / 389.1971 = 156.31065
     * m/s. No visibility column: braking does not bind (INFINITY). */
    assert_true(rel(m.soil_hold_N[2], 3429.7492143) < 1e-9);
    assert_true(rel(m.soil_k_over_l[2], 0.083956890149) < 1e-10);
    assert_true(rel(m.soil_pull_N[2], 1268.7390703) < 1e-9);
    assert_true(m.mass_kg == 1242 && rel(m.weight_N, 12179.8593) < 1e-15 && m.power_W == 62000);
    tm_speed_at_t at;
    double b5 = 5 * M_PI / 180;
    assert_true(rel(tm_speed_at(&m, 2, 3, b5, &at), 40 / 3.6) < 1e-15);
    assert_int_equal(at.limit, TM_LIMIT_TOP);
    assert_true(rel(at.pull_N, 2512.286423) < 1e-9);
    assert_true(rel(at.slip, 0.240670372) < 1e-8);
    assert_true(rel(at.lim_ms[TM_LIMIT_TRACTION], 18.739279) < 1e-7);
    assert_true(isinf(at.lim_ms[TM_LIMIT_POWER]) && isinf(at.lim_ms[TM_LIMIT_BRAKING]));
    tm_speed_at(&m, 2, 3, -b5, &at);
    assert_true(rel(at.pull_N, 389.197055) < 1e-8);
    assert_true(rel(at.slip, 0.018779929) < 1e-7);
    assert_true(rel(at.lim_ms[TM_LIMIT_POWER], 156.310649) < 1e-7);
    assert_int_equal(at.limit, TM_LIMIT_TOP);

    /* one cell per reason:
     * 0 GO: clayey soil (CI 732.5 >= 389.4), grassland, 5 deg: thrust
     *   3.43 kN > the pull 2.51 kN (above); 40 km/h, the top speed
     * 1 slope: 26 deg > min(30, 25)
     * 2 soil: sandy loam, CI 223.4 < 389.4
     * 3 land use: water
     * 4 traction: upland sandy (CI 528.5 passes) at 24 deg: thrust of four tyres,
     *   with c = 0.48 kPa and phi = 22 deg, 5.05 kN, below the pull
     *   R + f W cos 24 + W sin 24 = 1.82 + 0.17 + 4.95 = 6.94 kN
     * 5 no data: slope nodata, soil 0, land use 0, unknown land use 9 */
    const float slope[9] = {5, 26, 5, 5, 24, -9999, 5, 5, 5};
    const unsigned char soil[9] = {2, 2, 1, 2, 4, 2, 0, 2, 2};
    const unsigned char land[9] = {3, 3, 3, 1, 3, 3, 3, 0, 9};
    float speed[9];
    unsigned char why[9];
    tm_row(&m, slope, -9999, soil, land, 9, speed, why, NULL);
    const unsigned char expect[9] = {0, 1, 2, 3, 4, 5, 5, 5, 5};
    tm_speed_at(&m, 4, 3, 24 * M_PI / 180, &at);
    printf("  upland sandy at 24 deg: thrust %.3f kN, needs %.3f kN\n", m.thrust_total_kN[4], at.pull_N / 1000);
    assert_true(rel(at.pull_N, 6939.299811) < 1e-9 && at.limit == TM_LIMIT_NOGO);
    assert_memory_equal(why, expect, 9);
    assert_float_equal(speed[0], 40, 0); /* the top speed (above) */
    for (int i = 1; i < 9; i++)
        assert_float_equal(speed[i], 0, 0);
    tm_soils_free(soils);
    free(lu);
    trv_ctx_free(ctx);
}

/* GO/NOGO at its thresholds (docs/method.md §2.8): each limit exactly, one
 * float (or double) step below and one above, with the reason codes. */
static void test_thresholds(void **state)
{
    (void)state;
    trv_ctx *ctx = trv_ctx_new();
    /* no shear columns: the traction check is off */
    char *sp = write_file(tmpdir, "soils_nt.csv",
                          "code,name,n,kc,kphi,ci_kPa\n1,sandy loam,0.30,2.79,141.11,223.40\n"
                          "2,clayey soil,0.50,13.19,692.15,732.50\n");
    char *lu = write_file(tmpdir, "lu_th.csv", "code,name,nogo\n1,water,yes\n3,grassland,no\n");
    tm_soils *soils = NULL;
    assert_int_equal(tm_soils_read(ctx, sp, &soils), TRV_OK);
    tm_model m;

    /* slope: the limit is min(pitch 30, roll 25) = 25; 25 itself is GO. Speed
     * there (clayey soil, R = 1268.739 N, no shear data so no slip), uphill
     * the worse way (§2.10.7): F = R + f W cos 25 + W sin 25 = 1268.739 +
     * 0.015 * 12179.8593 * 0.90630779 + 12179.8593 * 0.42261826 = 1268.739 +
     * 165.5805 + 5147.4310 = 6581.7506 N, 62 000 / 6581.7506 * 3.6 =
     * 33.911951 km/h. Downhill F = 1268.739 + 165.5805 - 5147.4310 =
     * -3713.1114 N, within the brakes' hold 1242 * 3.4 = 4222.8 N: GO. */
    tm_vehicle v = ugv(100);
    v.vci1_kPa = 389.4;
    v.vci50_kPa = 534.1;
    assert_int_equal(tm_model_init(ctx, &m, &v, soils, lu), TRV_OK);
    assert_false(m.traction);
    {
        const float slope[4] = {nextafterf(25, 0), 25, nextafterf(25, 90), 25};
        const unsigned char soil[4] = {2, 2, 2, 2}, land[4] = {3, 3, 3, 1};
        const unsigned char expect[4] = {TM_GO, TM_GO, TM_NOGO_SLOPE, TM_NOGO_LANDUSE};
        float speed[4];
        unsigned char why[4];
        tm_row(&m, slope, -9999, soil, land, 4, speed, why, NULL);
        assert_memory_equal(why, expect, 4);
        double f25 = 1268.739 + 0.015 * 12179.8593 * cos(25 * M_PI / 180) + 12179.8593 * sin(25 * M_PI / 180);
        assert_float_equal(speed[1], 62000 / f25 * 3.6, 1e-4);
        assert_float_equal(speed[1], 33.911951, 1e-5);
        assert_float_equal(speed[2], 0, 0);
    }
    /* the pitch limit when it is the smaller: min(20, 28) = 20 */
    v.max_pitch_deg = 20;
    v.max_roll_deg = 28;
    assert_int_equal(tm_model_init(ctx, &m, &v, soils, lu), TRV_OK);
    {
        const float slope[3] = {nextafterf(20, 0), 20, nextafterf(20, 90)};
        const unsigned char soil[3] = {2, 2, 2}, land[3] = {3, 3, 3};
        const unsigned char expect[3] = {TM_GO, TM_GO, TM_NOGO_SLOPE};
        float speed[3];
        unsigned char why[3];
        tm_row(&m, slope, -9999, soil, land, 3, speed, why, NULL);
        assert_memory_equal(why, expect, 3);
    }
    v.max_pitch_deg = 30;
    v.max_roll_deg = 25;

    /* soil: CI = VCI1 passes (with difficulty); NOGO only when CI < VCI1.
     * Clayey soil's CI is 732.5 kPa; VCI1 (the override in force) at 732.5,
     * one double step above it and one below. */
    const double vci1[3] = {732.5, nextafter(732.5, 1e9), nextafter(732.5, 0)};
    const unsigned char want_soil[3] = {TM_GO, TM_NOGO_SOIL, TM_GO};
    for (int k = 0; k < 3; k++) {
        v.vci1_kPa = vci1[k];
        v.vci50_kPa = 900;
        assert_int_equal(tm_model_init(ctx, &m, &v, soils, lu), TRV_OK);
        const float slope[1] = {5};
        const unsigned char soil[1] = {2}, land[1] = {3};
        float speed[1];
        unsigned char why[1];
        tm_row(&m, slope, -9999, soil, land, 1, speed, why, NULL);
        if (why[0] != want_soil[k])
            fail_msg("CI 732.5 kPa, VCI1 %.17g kPa: reason %d, want %d", vci1[k], why[0], want_soil[k]);
        assert_float_equal(speed[0], want_soil[k] == TM_GO ? 40 : 0, 0);
    }
    tm_soils_free(soils);

    /* the same with the NRMM VCI1 (no override): 8.18907418 RCI = 56.461679 kPa
     * (test_vci_formulas); soils at 56.4616 (below: NOGO) and 56.4617 (GO) */
    v.vci1_kPa = NAN;
    v.vci50_kPa = NAN;
    free(sp);
    sp = write_file(tmpdir, "soils_nrmm.csv",
                    "code,name,n,kc,kphi,ci_kPa\n1,below,0.50,13.19,692.15,56.4616\n"
                    "2,above,0.50,13.19,692.15,56.4617\n");
    assert_int_equal(tm_soils_read(ctx, sp, &soils), TRV_OK);
    assert_int_equal(tm_model_init(ctx, &m, &v, soils, lu), TRV_OK);
    {
        const float slope[2] = {5, 5};
        const unsigned char soil[2] = {1, 2}, land[2] = {3, 3};
        const unsigned char expect[2] = {TM_NOGO_SOIL, TM_GO};
        float speed[2];
        unsigned char why[2];
        tm_row(&m, slope, -9999, soil, land, 2, speed, why, NULL);
        assert_memory_equal(why, expect, 2);
    }
    tm_soils_free(soils);

    /* the report's classes: CI >= VCI50 easy, VCI1 <= CI < VCI50 difficult,
     * CI < VCI1 no; VCI1 389.4 and VCI50 534.1 (overrides), each CI exactly
     * at a limit and one double step below it ("%.17g" reads back exactly) */
    v.vci1_kPa = 389.4;
    v.vci50_kPa = 534.1;
    char text[512];
    snprintf(text, sizeof text,
             "code,name,n,kc,kphi,ci_kPa\n1,a,0.5,13.19,692.15,%.17g\n2,b,0.5,13.19,692.15,%.17g\n"
             "3,c,0.5,13.19,692.15,%.17g\n4,d,0.5,13.19,692.15,%.17g\n",
             534.1, nextafter(534.1, 0), 389.4, nextafter(389.4, 0));
    free(sp);
    sp = write_file(tmpdir, "soils_cls.csv", text);
    assert_int_equal(tm_soils_read(ctx, sp, &soils), TRV_OK);
    assert_int_equal(tm_model_init(ctx, &m, &v, soils, lu), TRV_OK);
    char *rep = NULL;
    assert_true(asprintf(&rep, "%s/report_cls.csv", tmpdir) > 0);
    trv_outset *set = trv_outset_new();
    assert_int_equal(tm_report_write(ctx, set, &m, soils, rep), TRV_OK);
    assert_int_equal(trv_outset_commit(ctx, set), TRV_OK);
    trv_outset_free(set);
    FILE *f = fopen(rep, "r");
    assert_non_null(f);
    char line[512];
    static const char *const cls[4] = {"easy", "difficult", "difficult", "no"};
    assert_non_null(fgets(line, sizeof line, f)); /* header */
    for (int k = 0; k < 4; k++) {
        assert_non_null(fgets(line, sizeof line, f));
        line[strcspn(line, "\n")] = 0;
        const char *last = strrchr(line, ',');
        assert_non_null(last);
        if (strcmp(last + 1, cls[k]))
            fail_msg("report row '%s': class '%s', want '%s'", line, last + 1, cls[k]);
    }
    fclose(f);
    free(rep);
    tm_soils_free(soils);

    /* traction (§2.10.7): NOGO when H < F = R + f W cos b + W sin b. The
     * carrier on clayey soil (c 4.14 kPa, phi 13 deg, K 0.01 m): H = (2.052 *
     * 4.14 + 117.6798 * tan 13)(1 - (0.01 / 2.7)(1 - e^-270)) = (8.49528 +
     * 27.168569) * 0.99629630 = 35.531714 kN, R = 0.18088138 kN
     * (test_tracked_closed_forms), f = 0.03. W (sin b + f cos b) =
     * W sqrt(1 + f^2) sin(b + atan f) = H - R gives the limit
     * b* = asin((35531.714 - 180.88138) / (117679.8 * 1.0004499)) - atan 0.03
     * = asin(0.30026339) - 1.7183580 = 17.473424 - 1.7183580 = 15.755066 deg,
     * below the 30 deg slope limit (downhill the soil holds up to
     * asin((H + R) / (W sqrt(1 + f^2))) + atan f = 19.376 deg, so uphill
     * binds). Cells at b* -+ 1e-4 deg (the pull moves by 0.196 kN there,
     * far above rounding). */
    tm_vehicle t = carrier();
    free(sp);
    sp = write_file(tmpdir, "soils_tr.csv",
                    "code,name,n,kc,kphi,ci_kPa,c_kPa,phi_deg,K_m\n2,clayey soil,0.50,13.19,692.15,732.50,4.14,13,0.01\n");
    assert_int_equal(tm_soils_read(ctx, sp, &soils), TRV_OK);
    assert_int_equal(tm_model_init(ctx, &m, &t, soils, lu), TRV_OK);
    assert_true(m.traction);
    double h = (2.052 * 4.14 + 117.6798 * tan(13 * M_PI / 180)) * (1 - 0.01 / 2.7 * (1 - exp(-270)));
    assert_float_equal(h, 35.531714400, 1e-8);
    assert_true(rel(m.thrust_total_kN[2], h) <= 1e-12);
    double bstar = (asin((h - 0.18088137901) / (117.6798 * sqrt(1 + 0.03 * 0.03))) - atan(0.03)) * 180 / M_PI;
    assert_float_equal(bstar, 15.755065716, 1e-8);
    {
        const float slope[2] = {(float)(bstar - 1e-4), (float)(bstar + 1e-4)};
        const unsigned char soil[2] = {2, 2}, land[2] = {3, 3};
        const unsigned char expect[2] = {TM_GO, TM_NOGO_TRACTION};
        float speed[2];
        unsigned char why[2];
        tm_row(&m, slope, -9999, soil, land, 2, speed, why, NULL);
        printf("  traction limit of the carrier on clayey soil: %.6f deg\n", bstar);
        assert_memory_equal(why, expect, 2);
    }
    tm_soils_free(soils);
    free(sp);
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
    /* tyres x tyre_load_N against the gross weight 1242 x 9.80665 = 12179.86 N, within 25 %: per tyre
     * 2283.72 .. 3806.21 N accepted (the paper's 3200 N: 1.05), outside refused (1242: kg written as N) */
    const char *load_ok[3] = {"3200", "3806", "2284"}, *load_bad[3] = {"3807", "2283", "1242"};
    for (int i = 0; i < 3; i++) {
        char text[1024];
        snprintf(text, sizeof text, BASE "tyre_load_N = %s\n", load_ok[i]);
        char *q = write_file(tmpdir, "v.ini", text);
        ctx = trv_ctx_new();
        v = NULL;
        if (tm_vehicle_read(ctx, q, &v))
            fail_msg("tyre_load_N = %s: %s", load_ok[i], trv_errmsg(ctx));
        tm_vehicle_free(v);
        trv_ctx_free(ctx);
        free(q);
        snprintf(text, sizeof text, BASE "tyre_load_N = %s\n", load_bad[i]);
        expect_vehicle_error(text, TRV_ERR_DATA, "they must agree within 25 %");
    }
    expect_vehicle_error(BASE "tyre_load_N = 1242\n", TRV_ERR_DATA, "4 x 1242 N = 4968 N is 0.41 times the gross weight 12179.9 N");
}

/* ---- the attainable speed in a direction of travel (docs/method.md §2.10.7) ---- */

/* A model built by hand with round numbers, so that every limit can be
 * worked by hand: 1000 kg, W = 10 000 N (a round g of 10: the function reads
 * the model's weight and mass, not g), eta P = 20 kW, f = 0.02, top speed
 * 36 km/h = 10 m/s, reaction 1 s, deceleration 4 m/s^2.
 * Soils (pull R at the flat, hold H, K / L):
 *   1  500 N, 4000 N = m a (no shear data), NAN
 *   2  500 N, 6000 N, 0.1
 *   3..6  6000 N, 0.1, with pulls that need the slips 0.1, 0.19, 0.21, 0.3
 *      on the flat (below)
 * Land uses: 1 no limit; 2 ride 5 m/s; 3 vegetation 4 m/s; 4 visibility
 * 20 m; 5 override resistance 0.05 W; 6 visibility 50 m; 7 ride 10 m/s (the
 * top speed: a tie); 8 ride and vegetation both 4 m/s (a tie). */
static tm_vehicle hand_vehicle(void)
{
    tm_vehicle v = {0};
    v.top_speed_kmh = 36;
    v.rolling_coeff = 0.02;
    v.reaction_s = 1.0;
    v.decel_ms2 = 4.0;
    return v;
}

/* Janosi-Hanamoto's g(x) = 1 - (1 - e^-x) / x at x = i L / K, for the pulls
 * of soils 3..6: F = H g(i / 0.1) / g(10); the pull R = F - f W = F - 200:
 *   g(10) = 1 - (1 - e^-10) / 10 = 0.900004539993
 *   i 0.10: g(1) = e^-1 = 0.367879441171, F = 6000 * 0.408752872707 = 2452.517236242 N
 *   i 0.19: g(1.9) = 0.552404536433, F = 3682.678332516 N
 *   i 0.21: g(2.1) = 0.582122108692, F = 3880.794481524 N
 *   i 0.30: g(3) = 0.683262356123, F = 4555.059396442 N */
static const double HAND_F[4] = {2452.517236242, 3682.678332516, 3880.794481524, 4555.059396442};

static void hand_model(tm_model *m, const tm_vehicle *v)
{
    memset(m, 0, sizeof *m);
    m->v = v;
    m->mass_kg = 1000;
    m->weight_N = 10000;
    m->power_W = 20000;
    m->max_slope_deg = 40;
    for (int c = 0; c < 256; c++) {
        m->soil_index[c] = -1;
        m->landuse_nogo[c] = 2;
    }
    for (int s = 1; s <= 6; s++) {
        m->soil_index[s] = s - 1;
        m->ci_kPa[s] = 1000;
        m->soil_pull_N[s] = s <= 2 ? 500 : HAND_F[s - 3] - 200;
        m->soil_hold_N[s] = s == 1 ? 4000 : 6000;
        m->soil_k_over_l[s] = s == 1 ? NAN : 0.1;
    }
    for (int l = 1; l <= 8; l++) {
        m->landuse_nogo[l] = 0;
        m->lu_ride_ms[l] = l == 2 ? 5 : l == 7 ? 10 : l == 8 ? 4 : INFINITY;
        m->lu_veg_ms[l] = l == 3 || l == 8 ? 4 : INFINITY;
        m->lu_veg_coeff[l] = l == 5 ? 0.05 : 0;
        m->lu_visibility_m[l] = l == 4 ? 20 : l == 6 ? 50 : INFINITY;
    }
}

/* tm_speed_at on the hand model: v and its limit, to 1e-11 relative */
static tm_speed_at_t speed_at(const tm_model *m, int s, int l, double beta, double want, tm_limit code)
{
    tm_speed_at_t o;
    double v = tm_speed_at(m, s, l, beta, &o);
    if (o.limit != code || !(want == 0 ? v == 0 : rel(v, want) < 1e-11) || v != o.v_ms)
        fail_msg("soil %d, land use %d, beta %.6f: %.12g m/s limit %d, want %.12g limit %d", s, l, beta, v, o.limit,
                 want, code);
    return o;
}

static void test_speed_at_limits(void **state)
{
    (void)state;
    tm_vehicle v = hand_vehicle();
    static tm_model m;
    hand_model(&m, &v);
    /* top: the flat, F = 500 + 0.02 * 10 000 = 700 N, power 20 000 / 700 =
     * 28.571428571 m/s > 10: the top speed; braking: no visibility, INFINITY */
    tm_speed_at_t o = speed_at(&m, 1, 1, 0, 10, TM_LIMIT_TOP);
    assert_true(rel(o.pull_N, 700) < 1e-15 && o.slip == 0);
    assert_true(rel(o.lim_ms[TM_LIMIT_POWER], 20000.0 / 700) < 1e-15);
    assert_true(isinf(o.lim_ms[TM_LIMIT_TRACTION]) && isinf(o.lim_ms[TM_LIMIT_RIDE]) &&
                isinf(o.lim_ms[TM_LIMIT_VEGETATION]) && isinf(o.lim_ms[TM_LIMIT_BRAKING]));
    /* power: sin b = 0.2, cos b = sqrt(0.96) = 0.979795897113: F = 500 +
     * 195.959179423 + 2000 = 2695.959179423 N, 20 000 / F = 7.418509950986 m/s */
    double b2 = asin(0.2);
    o = speed_at(&m, 1, 1, b2, 7.418509950986, TM_LIMIT_POWER);
    assert_true(rel(o.pull_N, 2695.959179423) < 1e-12);
    /* override resistance 0.05 W = 500 N more: F = 3195.959179423 N, 6.257902206252 m/s */
    speed_at(&m, 1, 5, b2, 6.257902206252, TM_LIMIT_POWER);
    /* power with slip, eta P (1 - i) / F on the flat: i 0.1: 18 000 / 2452.517236242 =
     * 7.339397959781 m/s (power); i 0.19: 16 200 / 3682.678332516 = 4.398972306912
     * (power: i <= 0.2); i 0.21: 15 800 / 3880.794481524 = 4.071331289307 (traction:
     * i > 0.2); i 0.3: 14 000 / 4555.059396442 = 3.073505476336 (traction) */
    static const double pw[4] = {7.339397959781, 4.398972306912, 4.071331289307, 3.073505476336};
    static const double slips[4] = {0.1, 0.19, 0.21, 0.3};
    for (int k = 0; k < 4; k++) {
        o = speed_at(&m, 3 + k, 1, 0, pw[k], k < 2 ? TM_LIMIT_POWER : TM_LIMIT_TRACTION);
        assert_true(fabs(o.slip - slips[k]) < 1e-11);
        assert_true(isinf(o.lim_ms[k < 2 ? TM_LIMIT_TRACTION : TM_LIMIT_POWER]));
    }
    /* traction NOGO uphill: sin b = 0.6, cos 0.8: F = 500 + 160 + 6000 =
     * 6660 N > H = 6000 N on soil 2; at sin b = 0.5 (F = 500 + 173.205080757
     * + 5000 = 5673.205080757 N < 6000) it goes, at the slip of the fraction
     * 0.945534180126, i = 0.670249655955 (Newton in Python): 20 000 (1 - i) / F =
     * 1.162483426392 m/s, traction. Soil 1 has no shear data: no traction
     * check, 20 000 / 6660 = 3.003003003003 m/s, power, no slip. */
    o = speed_at(&m, 2, 1, asin(0.6), 0, TM_LIMIT_NOGO);
    assert_true(rel(o.pull_N, 6660) < 1e-12);
    o = speed_at(&m, 2, 1, asin(0.5), 1.162483426392, TM_LIMIT_TRACTION);
    assert_true(fabs(o.slip - 0.670249655955) < 1e-11);
    o = speed_at(&m, 1, 1, asin(0.6), 20000.0 / 6660, TM_LIMIT_POWER);
    assert_true(o.slip == 0);
    /* downhill cannot hold: sin b = -0.6: F = 660 - 6000 = -5340 N, -F >
     * H = 4000 N (soil 1, the brakes' m a): NOGO; on soil 2 (H = 6000) it
     * holds, with 660 N to spare: decel (6000 - 5340) / 1000 = 0.66 m/s^2,
     * no visibility limit: the top speed */
    o = speed_at(&m, 1, 1, -asin(0.6), 0, TM_LIMIT_NOGO);
    speed_at(&m, 2, 1, -asin(0.6), 10, TM_LIMIT_TOP);
    /* braking, deceleration min(a, (H + F) / m), v = a (-t + sqrt(t^2 + 2 d / a)):
     * the flat, d = 20 m: (4000 + 700) / 1000 = 4.7 > a: 4 (sqrt(1 + 10) - 1) =
     * 9.266499161422 m/s. sin b = -0.3 (cos sqrt(0.91) = 0.953939201417):
     * F = 500 + 190.787840283 - 3000 = -2309.212159717 N; soil 1:
     * (4000 - 2309.212159717) / 1000 = 1.690787840283 m/s^2, v =
     * 1.690787840283 (sqrt(1 + 40 / 1.690787840283) - 1) = 6.705060963273 m/s;
     * soil 2: 3.690787840283 m/s^2, 9.007772254992 m/s */
    o = speed_at(&m, 1, 4, 0, 9.266499161422, TM_LIMIT_BRAKING);
    speed_at(&m, 1, 4, -asin(0.3), 6.705060963273, TM_LIMIT_BRAKING);
    speed_at(&m, 2, 4, -asin(0.3), 9.007772254992, TM_LIMIT_BRAKING);
    /* ride and vegetation: the land use's own; ties to the lower code */
    speed_at(&m, 1, 2, 0, 5, TM_LIMIT_RIDE);
    speed_at(&m, 1, 3, 0, 4, TM_LIMIT_VEGETATION);
    speed_at(&m, 1, 7, 0, 10, TM_LIMIT_TOP);
    speed_at(&m, 1, 8, 0, 4, TM_LIMIT_RIDE);
    assert_true(tm_speed_at(&m, 1, 3, 0, NULL) == 4); /* out may be NULL */
}

/* tm_row keeps the worse direction of the slope (up +b, down -b): speed.tif
 * and limit.tif; a cell is traction NOGO when either direction is. On the
 * hand model (up F = 500 + 200 cos b + 10 000 sin b, down with -sin b):
 *   10 deg, land use 1: up F = 500 + 196.961550602 + 1736.481776669 =
 *     2433.443327272 N, 8.218806567574 m/s (power); down F = -1039.520226067 N,
 *     no visibility: 10 m/s. Worse: up, 29.587703643 km/h, code 2.
 *   25 deg, land use 4 (20 m): up F = 4907.444174814 N, 4.075441163986 m/s;
 *     down F = -3544.921060000 N, decel (4000 - 3544.92106) / 1000 =
 *     0.45507894 m/s^2, v = 0.45507894 (sqrt(1 + 40 / 0.45507894) - 1) =
 *     3.835638300933 m/s (braking). Worse: down, 13.808297883 km/h, code 6.
 *   30 deg, soil 1: down F = 673.205080757 - 5000 = -4326.794919243 N,
 *     -F > 4000: NOGO downhill only, reason 4.
 *   35 deg, soil 2: up F = 500 + 163.830408 + 5735.764364 = 6399.594772 N
 *     > 6000: NOGO uphill only (down -5071.93 N holds), reason 4. */
static void test_row_directions(void **state)
{
    (void)state;
    tm_vehicle v = hand_vehicle();
    static tm_model m;
    hand_model(&m, &v);
    const float slope[5] = {10, 25, 30, 35, 45};
    const unsigned char soil[5] = {1, 1, 1, 2, 1}, land[5] = {1, 4, 1, 1, 1};
    const unsigned char want_why[5] = {TM_GO, TM_GO, TM_NOGO_TRACTION, TM_NOGO_TRACTION, TM_NOGO_SLOPE};
    const unsigned char want_lim[5] = {TM_LIMIT_POWER, TM_LIMIT_BRAKING, TM_LIMIT_NOGO, TM_LIMIT_NOGO, TM_LIMIT_NOGO};
    float speed[5];
    unsigned char why[5], lim[5];
    tm_row(&m, slope, -9999, soil, land, 5, speed, why, lim);
    assert_memory_equal(why, want_why, 5);
    assert_memory_equal(lim, want_lim, 5);
    assert_true(rel(speed[0], 29.587703643) < 1e-6);
    assert_true(rel(speed[1], 3.835638300933 * 3.6) < 1e-6);
    for (int i = 2; i < 5; i++)
        assert_true(speed[i] == 0);
    /* the limit array is optional: the same speeds and reasons without it */
    float speed2[5];
    unsigned char why2[5];
    tm_row(&m, slope, -9999, soil, land, 5, speed2, why2, NULL);
    assert_memory_equal(why2, want_why, 5);
    assert_memory_equal(speed2, speed, sizeof speed);
}

/* A symmetric hill: the same soil and land use at +b and -b. While uphill
 * is power-limited, downhill is faster; on a steep slope downhill is
 * braking-limited. With a 360 km/h top speed (the power limit alone), at
 * 2 deg: up F = 500 + 199.878165 + 348.994967 = 1048.873132 N,
 * 19.068083052 m/s; down F = 350.883198 N, 56.999024440 m/s. */
static void test_symmetric_hill(void **state)
{
    (void)state;
    tm_vehicle v = hand_vehicle();
    v.top_speed_kmh = 360;
    static tm_model m;
    hand_model(&m, &v);
    double b = 2 * M_PI / 180;
    speed_at(&m, 1, 1, b, 19.068083051843, TM_LIMIT_POWER);
    speed_at(&m, 1, 1, -b, 56.999024440059, TM_LIMIT_POWER);
    int both_power = 0;
    for (double deg = 0.5; deg <= 25; deg += 0.5) {
        tm_speed_at_t up, down;
        double r = deg * M_PI / 180;
        /* land use 1, no visibility limit: uphill power-limited, downhill faster */
        tm_speed_at(&m, 1, 1, r, &up);
        tm_speed_at(&m, 1, 1, -r, &down);
        assert_int_equal(up.limit, TM_LIMIT_POWER);
        if (!(down.v_ms > up.v_ms))
            fail_msg("%g deg: down %.6g m/s (limit %d) not faster than up %.6g m/s", deg, down.v_ms, down.limit,
                     up.v_ms);
        both_power += down.limit == TM_LIMIT_POWER;
        /* land use 4 (20 m visibility), steep: the pull is negative and takes
         * from the deceleration, braking binds (8.317 m/s at 10 deg) */
        tm_speed_at(&m, 1, 4, -r, &down);
        if (deg >= 10)
            assert_int_equal(down.limit, TM_LIMIT_BRAKING);
    }
    assert_true(both_power >= 4); /* 0.5..2 deg at least: 2 deg above */
    /* 25 deg (test_row_directions): down 3.835638 m/s < up 4.075441 m/s */
    speed_at(&m, 1, 4, -25 * M_PI / 180, 3.835638300933, TM_LIMIT_BRAKING);
}

/* The speed limits' keys (terramech.h, docs/method.md §2.10.6): defaults,
 * ranges, and the corner's mass against the gross. BASE: 1242 kg on four
 * tyres, a corner of 310.5 kg: unsprung 0.1 * 310.5 = 31.05 kg, sprung
 * 279.45 kg, spring 279.45 (2 pi 1.2)^2 = 279.45 * 56.848921 =
 * 15886.431071 N/m, damper 2 * 0.3 sqrt(15886.431071 * 279.45) =
 * 1264.2020165 N s/m, tyre 158864.31071 N/m. The tracked file: 12 000 kg on
 * 10 road wheels, 1200 kg a corner: 120 + 1080 kg, 1080 * 56.848921 =
 * 61396.835058 N/m, 4885.8048949 N s/m, rolling 0.03. */
static void test_vehicle_limit_keys(void **state)
{
    (void)state;
    trv_ctx *ctx = trv_ctx_new();
    char *p = write_file(tmpdir, "v.ini", BASE);
    tm_vehicle *v = NULL;
    assert_int_equal(tm_vehicle_read(ctx, p, &v), TRV_OK);
    assert_true(v->rolling_coeff == 0.015 && v->reaction_s == 2.5 && v->decel_ms2 == 3.4 && v->lat_accel_ms2 == 2.0);
    assert_true(v->ride_limit_ms2 == 2.0);
    assert_int_equal(tm_vehicle_corners(v), 4);
    assert_true(rel(v->unsprung_kg, 31.05) < 1e-14 && rel(v->sprung_kg, 279.45) < 1e-14);
    assert_true(rel(v->spring_N_per_m, 15886.431071334) < 1e-12);
    assert_true(rel(v->damper_Ns_per_m, 1264.2020165458) < 1e-12);
    assert_true(rel(v->tyre_N_per_m, 158864.31071334) < 1e-12);
    tm_quarter_car q;
    tm_vehicle_quarter_car(v, &q);
    assert_true(q.sprung_kg == v->sprung_kg && q.unsprung_kg == v->unsprung_kg && q.spring_N_per_m == v->spring_N_per_m &&
                q.damper_Ns_per_m == v->damper_Ns_per_m && q.tyre_N_per_m == v->tyre_N_per_m);
    tm_vehicle_free(v);
    free(p);
    /* given keys are read, and the defaults derive from them: spring 20 000
     * N/m gives the damper 0.6 sqrt(20 000 * 279.45) = 1418.4639579 N s/m */
    p = write_file(tmpdir, "v.ini", BASE "rolling_resistance_coeff = 0.05\nreaction_time_s = 1.5\ndeceleration_ms2 = 6\n"
                                        "lateral_accel_ms2 = 3\n[suspension]\nspring_N_per_m = 20000\n"
                                        "ride_limit_rms_ms2 = 10\n");
    assert_int_equal(tm_vehicle_read(ctx, p, &v), TRV_OK);
    assert_true(v->rolling_coeff == 0.05 && v->reaction_s == 1.5 && v->decel_ms2 == 6 && v->lat_accel_ms2 == 3);
    assert_true(v->spring_N_per_m == 20000 && v->ride_limit_ms2 == 10 && v->tyre_N_per_m == 200000);
    assert_true(rel(v->damper_Ns_per_m, 1418.4639579489) < 1e-12);
    tm_vehicle_free(v);
    free(p);
    /* within 25 % of the corner: 388 / 310.5 = 1.2496 accepted */
    p = write_file(tmpdir, "v.ini", BASE "[suspension]\nsprung_mass_kg = 350\nunsprung_mass_kg = 38\n");
    assert_int_equal(tm_vehicle_read(ctx, p, &v), TRV_OK);
    assert_true(v->sprung_kg == 350 && v->unsprung_kg == 38);
    tm_vehicle_free(v);
    free(p);
    p = write_file(tmpdir, "v.ini", "[vehicle]\nname = t\ntype = tracked\ngross_mass_kg = 12000\ntrack_width_m = 0.38\n"
                                    "track_length_m = 2.7\ntrack_shoe_area_m2 = 0.058\nroad_wheels = 10\n"
                                    "engine_power_kW = 160\ntop_speed_kmh = 65\nground_clearance_m = 0.43\n"
                                    "max_pitch_deg = 35\nmax_roll_deg = 30\n");
    assert_int_equal(tm_vehicle_read(ctx, p, &v), TRV_OK);
    assert_true(v->rolling_coeff == 0.03);
    assert_int_equal(tm_vehicle_corners(v), 10);
    assert_true(rel(v->unsprung_kg, 120) < 1e-14 && rel(v->sprung_kg, 1080) < 1e-14);
    assert_true(rel(v->spring_N_per_m, 61396.835058297) < 1e-12);
    assert_true(rel(v->damper_Ns_per_m, 4885.8048948628) < 1e-12);
    tm_vehicle_free(v);
    free(p);
    trv_ctx_free(ctx);
    /* ranges, naming file:line (BASE is 15 lines) */
    expect_vehicle_error(BASE "rolling_resistance_coeff = 0.6\n", TRV_ERR_DATA,
                         "v.ini:16: 'rolling_resistance_coeff' = 0.6 is out of range");
    expect_vehicle_error(BASE "deceleration_ms2 = 0.05\n", TRV_ERR_DATA, "v.ini:16: 'deceleration_ms2' = 0.05 is out of range");
    expect_vehicle_error(BASE "reaction_time_s = 11\n", TRV_ERR_DATA, "v.ini:16: 'reaction_time_s' = 11 is out of range");
    expect_vehicle_error(BASE "lateral_accel_ms2 = 16\n", TRV_ERR_DATA, "v.ini:16: 'lateral_accel_ms2' = 16 is out of range");
    expect_vehicle_error(BASE "[suspension]\nride_limit_rms_ms2 = 60\n", TRV_ERR_DATA,
                         "v.ini:17: 'ride_limit_rms_ms2' = 60 is out of range");
    expect_vehicle_error(BASE "[suspension]\nsprung_mass_kg = 0\n", TRV_ERR_DATA, "v.ini:17: 'sprung_mass_kg' = 0 is out of range");
    expect_vehicle_error(BASE "[suspension]\nroll_mass_kg = 1\n", TRV_ERR_FORMAT, "v.ini:17: unknown key 'roll_mass_kg' in [suspension]");
    /* the corner's mass: 550 / 310.5 = 1.77; 389 / 310.5 = 1.2528; an unsprung mass above the corner */
    expect_vehicle_error(BASE "[suspension]\nsprung_mass_kg = 500\nunsprung_mass_kg = 50\n", TRV_ERR_DATA,
                         "sprung + unsprung mass 550 kg is 1.77 times the corner's share of the gross mass, 310.5 kg; "
                         "they must agree within 25 %");
    expect_vehicle_error(BASE "[suspension]\nsprung_mass_kg = 350\nunsprung_mass_kg = 39\n", TRV_ERR_DATA,
                         "they must agree within 25 %");
    expect_vehicle_error(BASE "[suspension]\nunsprung_mass_kg = 400\n", TRV_ERR_DATA,
                         "[suspension] unsprung_mass_kg (400) leaves no sprung mass of the corner's 310.5 kg");
}

/* The land-use table's v2 columns (data/classes/README.md) as tm_model_init
 * reads them, for the UGV (limit keys at their defaults, width 2 m):
 *   forest: w = 2, G_d(n0) = 0.06554 m^3: the closed form (§2.10.2) with
 *     ms 279.45, mu 31.05, k 15886.431071, c 1264.2020165, kt 158864.31071:
 *     (c^2 kt + k^2 (ms + mu)) / (c ms^2) = 3365.545296 s^-3, times
 *     pi^2 0.01 * 0.06554 = 21.770160076 (m/s^2)^2 per m/s, v = 2^2 /
 *     21.770160076 = 0.183737739457 m/s; stems 3.8 m apart: (3.8^2 / 2 / 2)
 *     sqrt(2 * 2 / 2) = 3.61 * 1.414213562 = 5.105310960 m/s
 *   grass: w = 1.6, G_d(n0) = 0.01194: I_w = integral of |H_a|^2 f^-1.6 df =
 *     69905.9299488 (Python: the trapezoid in ln f over 1e-7..1e7 Hz,
 *     400 000 intervals, and 200 000 alike to 12 digits), v = (4 / (0.01194
 *     * 0.1^1.6 * 69905.9299488))^(1 / 0.6) = 0.0632270246458 m/s
 *   field: vmax 20 km/h = 5.555556 m/s below the stems' 5 m: 8.838835 m/s
 *   empty: every cell empty, no limit. */
/* A measured rolling-resistance coefficient per soil (the soil table's
 * rolling_resistance_coeff) replaces Bekker's compaction and the tyre's own
 * rolling: F = f_s W cos(beta) + W sin(beta) by hand; an empty cell keeps
 * Bekker; the mode says "measured"; a value outside (0, 1] is refused
 * naming file:line. */
static void test_measured_rolling(void **state)
{
    (void)state;
    trv_ctx *ctx = trv_ctx_new();
    char *sp = write_file(tmpdir, "soils_f.csv",
                          "code,name,n,kc,kphi,ci_kPa,rolling_resistance_coeff\n"
                          "1,sandy loam,0.30,2.79,141.11,223.40,0.08\n2,clayey soil,0.50,13.19,692.15,732.50,\n");
    char *lu = write_file(tmpdir, "lu_f.csv", "code,name,nogo\n3,grass,no\n");
    tm_soils *soils = NULL;
    assert_int_equal(tm_soils_read(ctx, sp, &soils), TRV_OK);
    tm_vehicle v = ugv(100);
    static tm_model m;
    assert_int_equal(tm_model_init(ctx, &m, &v, soils, lu), TRV_OK);
    double W = 1242 * 9.80665, b = 5 * M_PI / 180;
    assert_string_equal(tm_soil_mode(&m, 1), "measured");
    assert_string_equal(tm_soil_mode(&m, 2), "rigid");
    assert_true(rel(m.resistance_total_kN[1], 0.08 * W / 1000) < 1e-15);
    assert_true(rel(m.contact[1].resistance_kN, 0.08 * W / 1000 / 4) < 1e-15);
    tm_speed_at_t a;
    tm_speed_at(&m, 1, 3, b, &a);
    assert_true(rel(a.pull_N, 0.08 * W * cos(b) + W * sin(b)) < 1e-14);
    assert_true(rel(a.lim_ms[TM_LIMIT_POWER], 62e3 / a.pull_N) < 1e-14); /* eta P / F, no shear data: no slip */
    tm_speed_at(&m, 2, 3, b, &a); /* Bekker and the tyre's own f = 0.015 */
    assert_true(rel(a.pull_N, 1000 * m.resistance_total_kN[2] + 0.015 * W * cos(b) + W * sin(b)) < 1e-14);
    tm_soils_free(soils);
    char *bad = write_file(tmpdir, "soils_fbad.csv",
                           "code,name,n,kc,kphi,ci_kPa,rolling_resistance_coeff\n1,sand,0.3,2.79,141.11,223.4,1.5\n");
    assert_int_equal(tm_soils_read(ctx, bad, &soils), TRV_ERR_DATA);
    assert_non_null(strstr(trv_errmsg(ctx), "soils_fbad.csv:2: rolling_resistance_coeff 1.5 is outside (0, 1]"));
    free(sp);
    free(lu);
    free(bad);
    trv_ctx_free(ctx);
}

static void test_landuse_v2(void **state)
{
    (void)state;
    trv_ctx *ctx = trv_ctx_new();
    char *sp = write_file(tmpdir, "soils_v2.csv", "code,name,n,kc,kphi,ci_kPa\n2,clayey soil,0.50,13.19,692.15,732.50\n");
    tm_soils *soils = NULL;
    assert_int_equal(tm_soils_read(ctx, sp, &soils), TRV_OK);
    const char *head = "code,name,nogo,nogo_types,roughness_gd0_m3,roughness_w,vmax_kmh,stem_spacing_m,visibility_m,"
                       "veg_resistance\n";
    char text[1024];
    snprintf(text, sizeof text, "%s%s", head,
             "1,water,yes,wheeled;tracked,,,,,1000,0\n2,forest,yes,wheeled,0.06554,2,,3.8,57,0.05\n"
             "3,grass,no,,0.01194,1.6,,,,0.01\n4,field,no,,,,20,5,100,\n5,empty,no,,,,,,,\n");
    char *lu = write_file(tmpdir, "lu_v2.csv", text);
    tm_vehicle v = ugv(100);
    static tm_model m;
    assert_int_equal(tm_model_init(ctx, &m, &v, soils, lu), TRV_OK);
    /* no shear data: the soil holds what the brakes do, m a = 1242 * 3.4 N */
    assert_true(rel(m.soil_hold_N[2], 1242 * 3.4) < 1e-15 && isnan(m.soil_k_over_l[2]));
    assert_true(rel(m.soil_pull_N[2], 1000 * m.resistance_total_kN[2]) < 1e-15);
    const unsigned char nogo_w[6] = {2, 1, 1, 0, 0, 0};
    assert_memory_equal(m.landuse_nogo, nogo_w, 6);
    assert_true(rel(m.lu_ride_ms[2], 0.183737739457) < 1e-10);
    assert_true(rel(m.lu_veg_ms[2], 5.105310960167) < 1e-12);
    assert_true(m.lu_visibility_m[2] == 57 && m.lu_veg_coeff[2] == 0.05);
    assert_true(rel(m.lu_ride_ms[3], 0.0632270246458) < 1e-6);
    assert_true(isinf(m.lu_veg_ms[3]) && isinf(m.lu_visibility_m[3]) && m.lu_veg_coeff[3] == 0.01);
    assert_true(isinf(m.lu_ride_ms[4]) && rel(m.lu_veg_ms[4], 20 / 3.6) < 1e-15 && m.lu_visibility_m[4] == 100);
    assert_true(m.lu_veg_coeff[4] == 0);
    assert_true(isinf(m.lu_ride_ms[5]) && isinf(m.lu_veg_ms[5]) && isinf(m.lu_visibility_m[5]) && m.lu_veg_coeff[5] == 0);
    /* the override resistance enters the pull: 0.01 W on grass */
    tm_speed_at_t a5, a3;
    tm_speed_at(&m, 2, 5, 0, &a5);
    tm_speed_at(&m, 2, 3, 0, &a3);
    assert_true(rel(a3.pull_N - a5.pull_N, 0.01 * 1242 * 9.80665) < 1e-9);
    assert_int_equal(a3.limit, TM_LIMIT_RIDE);
    /* nogo_types by the vehicle's kind: the tracked carrier crosses the forest */
    tm_vehicle t = carrier();
    assert_int_equal(tm_model_init(ctx, &m, &t, soils, lu), TRV_OK);
    const unsigned char nogo_t[6] = {2, 1, 0, 0, 0, 0};
    assert_memory_equal(m.landuse_nogo, nogo_t, 6);
    free(lu);
    /* out of range: refused, naming file:line */
    static const struct {
        const char *row, *msg;
    } bad[6] = {
        {"3,grass,no,,0.01194,3.5,,,,0.01\n", "lu_bad.csv:2: roughness_w 3.5 is outside [1.01, 3]"},
        {"3,grass,no,,1.5,2,,,,0.01\n", "lu_bad.csv:2: roughness_gd0_m3 1.5 is outside [0, 1]"},
        {"3,grass,no,,,,0.05,,,\n", "lu_bad.csv:2: vmax_kmh 0.05 is outside [0.1, 1000]"},
        {"3,grass,no,,,,,0.001,,\n", "lu_bad.csv:2: stem_spacing_m 0.001 is outside [0.01, 10000]"},
        {"3,grass,no,,,,,,0,\n", "lu_bad.csv:2: visibility_m 0 is outside [0.1, 1e+06]"},
        {"3,grass,no,,,,,,,1.5\n", "lu_bad.csv:2: veg_resistance 1.5 is outside [0, 1]"},
    };
    for (int k = 0; k < 6; k++) {
        snprintf(text, sizeof text, "%s%s", head, bad[k].row);
        lu = write_file(tmpdir, "lu_bad.csv", text);
        assert_int_equal(tm_model_init(ctx, &m, &v, soils, lu), TRV_ERR_DATA);
        assert_contains(trv_errmsg(ctx), bad[k].msg);
        free(lu);
    }
    tm_soils_free(soils);
    free(sp);
    trv_ctx_free(ctx);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_closed_forms),       cmocka_unit_test(test_mode_boundary),
        cmocka_unit_test(test_vci_formulas),       cmocka_unit_test(test_speed_and_reasons),
        cmocka_unit_test(test_vehicle_file),       cmocka_unit_test(test_tracked_closed_forms),
        cmocka_unit_test(test_thrust),             cmocka_unit_test(test_thresholds),
        cmocka_unit_test(test_speed_at_limits),    cmocka_unit_test(test_row_directions),
        cmocka_unit_test(test_symmetric_hill),     cmocka_unit_test(test_vehicle_limit_keys),
        cmocka_unit_test(test_landuse_v2), cmocka_unit_test(test_measured_rolling),
    };
    return cmocka_run_group_tests(tests, tmpdir_setup, tmpdir_teardown);
}
