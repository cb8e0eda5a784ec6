/* The stages' summary lines (src/run/lines.h), which trv-krige, trv-speed
 * trv-cost and trv-roadmap print and trv-report shows: hand-written summaries whose
 * every figure differs from the others, and the lines written out by hand
 * from the tools' documented wording (docs/summaries.md), so that a field
 * read in the wrong place, a share over the wrong total or a condition
 * turned round changes a line. */
#include "test_common.h"

#include <json-c/json.h>

#include "run/lines.h"

typedef struct {
    char line[16][1024];
    int n;
} lines;

static void collect(void *arg, const char *line)
{
    lines *l = arg;
    assert_true(l->n < 16);
    snprintf(l->line[l->n++], sizeof l->line[0], "%s", line);
}

static struct json_object *parse(const char *text)
{
    struct json_object *o = json_tokener_parse(text);
    assert_non_null(o);
    return o;
}

static void expect(const lines *l, const char *const *want)
{
    int n = 0;
    for (; want[n]; n++) {
        assert_true(n < l->n);
        assert_string_equal(l->line[n], want[n]);
    }
    assert_int_equal(l->n, n);
}

static const char KRIGE_CHOSEN[] =
    "{\"input\": {\"path\": \"dem.tif\", \"kind\": \"raster\", \"samples\": 901, \"cells\": 1000},"
    " \"working_crs\": \"EPSG:32616\","
    " \"sample_variogram\": {\"lags\": 15, \"cutoff\": 14963.4, \"width\": 997.56, \"points\": 900, \"subsample\": true},"
    " \"model\": {\"type\": \"Mat\", \"given\": false, \"nugget\": 0.5, \"psill\": 5962.01, \"range\": 105.888, \"kappa\": 2.5},"
    " \"neighbourhood\": {\"nmax\": 36, \"chosen\": true, \"tolerance\": 0.001, \"candidates\": [{\"nmax\": 16, \"rmse\": 2.32637},"
    " {\"nmax\": 36, \"rmse\": 2.26841}]},"
    " \"grid\": {\"nx\": 11, \"ny\": 12, \"cell\": 30, \"crs\": \"EPSG:32616\", \"by_stencil\": 1, \"by_frame\": 2, \"frames\": 3,"
    " \"frame_fallbacks\": 4, \"by_block\": 5, \"factorised\": 6, \"nodata\": 7},"
    " \"cross_validation\": {\"points\": 8, \"rmse\": 1.5, \"mae\": 1.25, \"mean_error\": -0.125, \"msse\": 0.975},"
    " \"simulation\": {\"realisations\": 9, \"sill_scale\": 1.283}}";

static void test_krige_chosen(void **state)
{
    (void)state;
    struct json_object *o = parse(KRIGE_CHOSEN);
    lines head = {0}, tail = {0};
    run_lines_krige(o, RUN_LINES_HEAD, collect, &head);
    run_lines_krige(o, RUN_LINES_TAIL, collect, &tail);
    expect(&head, (const char *const[]){"input: 'dem.tif', 901 samples with data (of 1000 cells)", "working CRS: EPSG:32616",
                                        "sample variogram: 15 lags to 14963.4 (width 997.56) from 900 points (seeded subsample)",
                                        NULL});
    expect(&tail,
           (const char *const[]){
               "model: Mat nugget 0.5, psill 5962.01, range 105.888, kappa 2.5",
               "neighbourhood: nmax 36, the smallest within 0.1 % of the least leave-one-out RMSE (same subsample): nmax 16 "
               "rmse 2.32637, nmax 36 rmse 2.26841",
               "grid: 11 x 12 cells of 30, EPSG:32616; 1 by stencil, 2 by lattice frames (3 frames, 4 fell back), 5 by block "
               "systems (6 factorised), 7 nodata",
               "leave-one-out (8 points): RMSE 1.5, MAE 1.25, mean error -0.125, mean squared standardised error 0.975",
               "realisations: 9 (seeded), sill scaled by the leave-one-out MSSE 1.283 (docs/method.md 1.11)", NULL});
    json_object_put(o);
}

/* Points, all pairs, a given model (no kappa), nmax given; and nmax given
 * with a chosen model, its candidates listed but not chosen from. */
static void test_krige_given(void **state)
{
    (void)state;
    struct json_object *o = parse("{\"input\": {\"path\": \"p.csv\", \"kind\": \"points\", \"samples\": 155},"
                                  " \"working_crs\": \"EPSG:28992\","
                                  " \"sample_variogram\": {\"lags\": 9, \"cutoff\": 1500, \"width\": 100, \"points\": 155,"
                                  " \"subsample\": false},"
                                  " \"model\": {\"type\": \"Sph\", \"given\": true, \"nugget\": 1, \"psill\": 4000, \"range\": 2500},"
                                  " \"neighbourhood\": {\"nmax\": 9, \"chosen\": false},"
                                  " \"grid\": {\"nx\": 6, \"ny\": 9, \"cell\": 500, \"crs\": \"EPSG:28992\"}}");
    lines head = {0}, tail = {0};
    run_lines_krige(o, RUN_LINES_HEAD, collect, &head);
    run_lines_krige(o, RUN_LINES_TAIL, collect, &tail);
    expect(&head, (const char *const[]){"input: 'p.csv', 155 points", "working CRS: EPSG:28992",
                                        "sample variogram: 9 lags to 1500 (width 100) from 155 points (all pairs)", NULL});
    expect(&tail, (const char *const[]){"model (given): Sph nugget 1, psill 4000, range 2500",
                                        "neighbourhood: nmax 9 (given, or the default with a given model)",
                                        "grid: 6 x 9 cells of 500, EPSG:28992; 0 by stencil, 0 by lattice frames (0 frames, 0 "
                                        "fell back), 0 by block systems (0 factorised), 0 nodata",
                                        NULL});
    json_object_put(o);
    o = parse("{\"model\": {\"type\": \"Exp\", \"given\": false, \"nugget\": 0, \"psill\": 2, \"range\": 3},"
              " \"neighbourhood\": {\"nmax\": 16, \"chosen\": false, \"candidates\": [{\"nmax\": 16, \"rmse\": 1}]}}");
    lines t2 = {0};
    run_lines_krige(o, RUN_LINES_TAIL, collect, &t2);
    assert_string_equal(t2.line[1], "neighbourhood: nmax 16 (given)");
    json_object_put(o);
}

static const char SPEED[] =
    "{\"vehicle\": {\"name\": \"UGV\", \"kind\": \"wheeled\", \"gross_mass_kg\": 2500.4, \"engine_power_kW\": 60.25,"
    " \"drivetrain_efficiency\": 0.85, \"top_speed_kmh\": 40, \"max_slope_deg\": 30.5},"
    " \"vci\": {\"mi\": 11.234, \"vci1_rci\": 21.5, \"vci50_rci\": 47.125, \"vci1_nrmm_kPa\": 148.24, \"vci50_nrmm_kPa\": 324.9,"
    " \"vci1_kPa\": 389.4, \"vci50_kPa\": 534.1, \"vci1_overridden\": true, \"vci50_overridden\": false},"
    " \"traction_check\": false,"
    " \"cells\": {\"all\": 1200, \"with_data\": 1000, \"go\": 600, \"nogo_slope\": 10, \"nogo_soil\": 20, \"nogo_landuse\": 30,"
    " \"nogo_traction\": 40, \"nogo_zone\": 300, \"nodata\": 200},"
    " \"speed_go_kmh\": {\"mean\": 35.333, \"max\": 40},"
    " \"limits_go\": [{\"code\": 1, \"name\": \"top speed\", \"cells\": 300}, {\"code\": 2, \"name\": \"power\", \"cells\": 150},"
    " {\"code\": 3, \"name\": \"traction\", \"cells\": 3}, {\"code\": 7, \"name\": \"zone\", \"cells\": 147}]}";

static void test_speed(void **state)
{
    (void)state;
    struct json_object *o = parse(SPEED);
    lines head = {0}, tail = {0};
    run_lines_speed(o, RUN_LINES_HEAD, collect, &head);
    run_lines_speed(o, RUN_LINES_TAIL, collect, &tail);
    expect(&head, (const char *const[]){
                      "vehicle: UGV (wheeled, 2500 kg, 60.2 kW, eta 0.85, top 40 km/h, max slope 30.5 deg)",
                      "MI 11.23; VCI1 21.50 RCI = 148.2 kPa; VCI50 47.12 RCI = 324.9 kPa (NRMM formulas)",
                      "in force: VCI1 389.4 kPa (the vehicle file's override), VCI50 534.1 kPa",
                      "traction check skipped: the soil table has no c_kPa, phi_deg, K_m columns", NULL});
    expect(&tail, (const char *const[]){
                      "GO: 60.0 % of the cells with data (600 of 1000); NOGO by slope 10, soil 20, land use 30, traction 40; "
                      "no data 200",
                      "zones: 300 cells NOGO, 147 GO cells slowed or capped", "speed over GO cells: mean 35.33 km/h, max 40.00 km/h",
                      "binding limit over the GO cells: top speed 50.0 %, power 25.0 %, traction 0.5 %", NULL});
    json_object_put(o);
    /* no override, the traction check made, no zones */
    o = parse("{\"vci\": {\"vci1_overridden\": false, \"vci50_overridden\": false}, \"traction_check\": true,"
              " \"cells\": {\"with_data\": 0, \"go\": 0}, \"limits_go\": [{\"code\": 1, \"name\": \"top speed\", \"cells\": 0}]}");
    lines h2 = {0}, t2 = {0};
    run_lines_speed(o, RUN_LINES_HEAD, collect, &h2);
    run_lines_speed(o, RUN_LINES_TAIL, collect, &t2);
    assert_int_equal(h2.n, 2);
    assert_int_equal(t2.n, 3);
    assert_string_equal(t2.line[2], "binding limit over the GO cells: top speed 0.0 %");
    json_object_put(o);
}

static void test_roadmap(void **state)
{
    (void)state;
    struct json_object *o = parse("{\"seed\": -1, \"go_area_km2\": 584.34, \"samples\": 48910, \"rejected\": 19697,"
                                  " \"nodes\": 400, \"edges\": 1000, \"edge_rule\": \"k nearest\", \"components\": 13,"
                                  " \"largest\": 300, \"coverage\": 0.894, \"go_regions\": 21, \"go_regions_with_nodes\": 22,"
                                  " \"region_nodes\": 23, \"components_straight\": 24, \"bridges\": 25, \"bridge_nodes\": 26,"
                                  " \"bridge_edges\": 27, \"detour_stretch\": 1.5, \"detour_bridges\": 28, \"detour_nodes\": 29,"
                                  " \"detour_edges\": 30}");
    lines l = {0};
    run_lines_roadmap(o, collect, &l);
    expect(&l, (const char *const[]){
                   "GO area 584.3 km2; 48910 LHS samples, 19697 in NOGO rejected; 400 nodes (seed 18446744073709551615)",
                   "1000 edges (k nearest); 13 connected components, the largest with 300 nodes (75.0 %)",
                   "coverage: 89.4 % of the GO cells lie within one node spacing of a node",
                   "GO regions: 21 (4-connected), 22 of them held a sampled node, 23 got one; straight edges left 24 components, "
                   "25 raster bridges (26 nodes, 27 edges) joined them to 13",
                   "detour bridges (stretch 1.5): 28 (29 nodes, 30 edges)", NULL});
    json_object_put(o);
    /* --straight-only, no detours */
    o = parse("{\"seed\": 1, \"nodes\": 4, \"largest\": 1, \"detour_stretch\": 0}");
    lines s = {0};
    run_lines_roadmap(o, collect, &s);
    assert_int_equal(s.n, 3);
    json_object_put(o);
}

/* cost.json: every figure distinct; the shares as fractions x 100 at two
 * decimals; the no-data line only when there are such cells. */
static void test_cost(void **state)
{
    (void)state;
    struct json_object *o = parse(
        "{\"inputs\": {\"rules\": \"mobility.fcl\", \"soils\": \"soils.csv\"},"
        " \"grid\": {\"nx\": 11, \"ny\": 12, \"cell_m\": 30, \"crs\": \"EPSG:32616\", \"cells_with_data\": 120,"
        " \"nodata_cells\": 12}, \"rule_count\": 27, \"defuzzifier\": \"centroid\","
        " \"classes\": [{\"class\": 0, \"name\": \"NOGO\", \"cells\": 6, \"fraction\": 0.05},"
        " {\"class\": 1, \"name\": \"high-risk\", \"cells\": 30, \"fraction\": 0.25},"
        " {\"class\": 2, \"name\": \"low-risk\", \"cells\": 39, \"fraction\": 0.325},"
        " {\"class\": 3, \"name\": \"safe\", \"cells\": 45, \"fraction\": 0.375}], \"cost_mean_go\": 0.41234}");
    lines l = {0};
    run_lines_cost(o, collect, &l);
    expect(&l, (const char *const[]){
                   "grid: 11 x 12 cells of 30 m, EPSG:32616; 120 cells with data",
                   "rules: 'mobility.fcl', 27 rules, centroid",
                   "classes (share of the cells with data): NOGO 5.00 %, high-risk 25.00 %, low-risk 32.50 %, safe 37.50 %",
                   "no data: 12 cells (class 0, cost 1)", "cost: mean 0.4123 over the GO cells", NULL});
    json_object_put(o);
    o = parse("{\"grid\": {\"nodata_cells\": 0}, \"classes\": [{\"name\": \"NOGO\", \"fraction\": 1}]}");
    lines s = {0};
    run_lines_cost(o, collect, &s);
    assert_int_equal(s.n, 4); /* no "no data" line */
    assert_string_equal(s.line[2], "classes (share of the cells with data): NOGO 100.00 %");
    json_object_put(o);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_krige_chosen),
        cmocka_unit_test(test_krige_given),
        cmocka_unit_test(test_speed),
        cmocka_unit_test(test_roadmap),
        cmocka_unit_test(test_cost),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
