/* Fuzzy: membership shapes at hand-computed points, the bundled rules
 * against the paper's table, hand-worked cells (strengths and centroid
 * computed by hand below), the exact centroid against fine numeric
 * integration, ties, the row kernel, the FCL reader's errors, the CSV
 * evaluation and the map stage on a synthetic terrain directory. */
#include "test_common.h"

#include <math.h>
#include <sys/stat.h>

#include <gdal.h>

#include "fuzzy/fuzzy.h"


/* cmocka's assert_float_equal compares floats: this compares doubles */
#define assert_near(a, b, tol)                                                                             \
    do {                                                                                                   \
        double a_ = (a), b_ = (b), t_ = (tol);                                                             \
        if (!(fabs(a_ - b_) <= t_))                                                                        \
            fail_msg("%s = %.17g, expected %.17g (tolerance %g)", #a, a_, b_, t_);                         \
    } while (0)

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *s = malloc((size_t)n + 1);
    if (s && fread(s, 1, (size_t)n, f) != (size_t)n) {
        free(s);
        s = NULL;
    }
    if (s)
        s[n] = '\0';
    fclose(f);
    return s;
}

static fz_engine *read_engine(const char *rel)
{
    char *path = data_path(rel);
    trv_ctx *ctx = trv_ctx_new();
    fz_engine *e = NULL;
    if (fz_engine_read(ctx, path, &e) != TRV_OK)
        fail_msg("%s", trv_errmsg(ctx));
    trv_ctx_free(ctx);
    free(path);
    return e;
}

static fz_engine *parse_ok(const char *text)
{
    trv_ctx *ctx = trv_ctx_new();
    fz_engine *e = NULL;
    if (fz_engine_parse(ctx, "t.fcl", text, &e) != TRV_OK)
        fail_msg("%s", trv_errmsg(ctx));
    trv_ctx_free(ctx);
    return e;
}

/* ---- membership shapes ---------------------------------------------------- */

static const char *SHAPES = "FUNCTION_BLOCK shapes\n"
                            "VAR_INPUT x : REAL; END_VAR\n"
                            "VAR_OUTPUT y : REAL; END_VAR\n"
                            "FUZZIFY x\n"
                            "  RANGE := (0 .. 10);\n"
                            "  TERM Z1 := ZPOWER 2 6 1;\n"
                            "  TERM Z2 := ZPOWER 2 6 2;\n"
                            "  TERM T := TRIANGLE 1 4 9;\n"
                            "  TERM S1 := SPOWER 2 6 1;\n"
                            "  TERM S2 := SPOWER(2, 6, 2);\n"
                            "  TERM RD := RAMP 8 3;       (* falling: fuzzylite's Ramp with start > end *)\n"
                            "  TERM RU := Ramp 3 8;\n"
                            "  TERM TZ := TRAPEZOID 1 2 5 9;\n"
                            "  TERM P := (1, 0.2) (3, 1) (6, 0.5);\n"
                            "  TERM TP := triangle (1, 4, 9); // the same triangle, other spelling\n"
                            "END_FUZZIFY\n"
                            "DEFUZZIFY y RANGE := (0 .. 1); TERM a := TRIANGLE 0 0.5 1; END_DEFUZZIFY\n"
                            "RULEBLOCK r RULE 1 : IF x IS T THEN y IS a; END_RULEBLOCK\n"
                            "END_FUNCTION_BLOCK\n";

static double mu(const fz_engine *e, const char *term, double x)
{
    int t = fz_term_index(e, 0, term);
    assert_true(t >= 0);
    return fz_membership(e, 0, t, x);
}

static void test_shapes(void **state)
{
    (void)state;
    fz_engine *e = parse_ok(SHAPES);
    const double eps = 1e-15;
    /* Z with k = 1: 1 below a = 2, (6 - x)/4 on [2, 6], 0 above */
    assert_near(mu(e, "Z1", 1), 1, eps);
    assert_near(mu(e, "Z1", 2), 1, eps);
    assert_near(mu(e, "Z1", 3), 0.75, eps);
    assert_near(mu(e, "Z1", 5), 0.25, eps);
    assert_near(mu(e, "Z1", 6), 0, eps);
    assert_near(mu(e, "Z1", 7), 0, eps);
    /* Z with k = 2: ((6 - x)/4)^2 */
    assert_near(mu(e, "Z2", 3), 0.5625, eps);
    assert_near(mu(e, "Z2", 4), 0.25, eps);
    assert_near(mu(e, "Z2", 5), 0.0625, eps);
    assert_near(mu(e, "Z2", 0), 1, eps);
    /* triangle 1 4 9: (x - 1)/3 rising, (9 - x)/5 falling */
    assert_near(mu(e, "T", 0), 0, eps);
    assert_near(mu(e, "T", 1), 0, eps);
    assert_near(mu(e, "T", 2.5), 0.5, eps);
    assert_near(mu(e, "T", 4), 1, eps);
    assert_near(mu(e, "T", 6.5), 0.5, eps);
    assert_near(mu(e, "T", 9), 0, eps);
    assert_near(mu(e, "T", 10), 0, eps);
    /* S with k = 1: (x - 2)/4; k = 2: its square */
    assert_near(mu(e, "S1", 1), 0, eps);
    assert_near(mu(e, "S1", 3), 0.25, eps);
    assert_near(mu(e, "S1", 5), 0.75, eps);
    assert_near(mu(e, "S1", 6), 1, eps);
    assert_near(mu(e, "S1", 8), 1, eps);
    assert_near(mu(e, "S2", 3), 0.0625, eps);
    assert_near(mu(e, "S2", 4), 0.25, eps);
    assert_near(mu(e, "S2", 5), 0.5625, eps);
    /* ramps as fuzzylite: RAMP 8 3 falls from 1 at 3 to 0 at 8 */
    assert_near(mu(e, "RD", 2), 1, eps);
    assert_near(mu(e, "RD", 5.5), 0.5, eps);
    assert_near(mu(e, "RD", 9), 0, eps);
    assert_near(mu(e, "RU", 2), 0, eps);
    assert_near(mu(e, "RU", 5.5), 0.5, eps);
    assert_near(mu(e, "RU", 9), 1, eps);
    /* trapezoid 1 2 5 9 */
    assert_near(mu(e, "TZ", 1.5), 0.5, eps);
    assert_near(mu(e, "TZ", 3), 1, eps);
    assert_near(mu(e, "TZ", 7), 0.5, eps);
    assert_near(mu(e, "TZ", 9.5), 0, eps);
    /* points: linear between, the end values held beyond */
    assert_near(mu(e, "P", 0), 0.2, eps);
    assert_near(mu(e, "P", 2), 0.6, eps);
    assert_near(mu(e, "P", 3), 1, eps);
    assert_near(mu(e, "P", 4.5), 0.75, eps);
    assert_near(mu(e, "P", 6), 0.5, eps);
    assert_near(mu(e, "P", 8), 0.5, eps);
    /* k = 2 is the square of k = 1 everywhere; spellings agree; NaN is in no term */
    for (double x = -1; x <= 11; x += 0.01) {
        assert_near(mu(e, "Z2", x), mu(e, "Z1", x) * mu(e, "Z1", x), 1e-15);
        assert_near(mu(e, "S2", x), mu(e, "S1", x) * mu(e, "S1", x), 1e-15);
        assert_near(mu(e, "TP", x), mu(e, "T", x), 0);
    }
    assert_near(mu(e, "T", NAN), 0, 0);
    fz_engine_free(e);
    fz_engine_free(NULL);
}

/* ---- the bundled rules ------------------------------------------------------ */

static const char *const INPUTS[4] = {"slope", "elevation", "ci", "speed"};

static void check_paper_rules(const fz_engine *e)
{
    char *path = data_path("paper/fuzzy_rules.txt");
    FILE *f = fopen(path, "r");
    if (!f)
        fail_msg("cannot open %s: the rules are checked against this file only", path);
    char line[256];
    int r = 0, count[3] = {0, 0, 0};
    const int out = fz_ninputs(e);
    while (fgets(line, sizeof line, f)) {
        char a[4][3], then[3];
        if (line[0] == '#' || line[0] == '\n') /* comments and blank lines: every other line is a rule */
            continue;
        /* "If H1 and H2 and H3 and L4 then H": state letter, input number */
        assert_int_equal(sscanf(line, "If %2s and %2s and %2s and %2s then %2s", a[0], a[1], a[2], a[3], then), 5);
        assert_true(r < fz_nrules(e));
        int number, ant[FZ_MAX_INPUTS], cons;
        fz_rule(e, r, &number, ant, &cons);
        assert_int_equal(number, r + 1);
        for (int i = 0; i < 4; i++) {
            assert_int_equal(a[i][1], '1' + i);
            char state[2] = {a[i][0], 0};
            assert_int_equal(ant[i], fz_term_index(e, i, state));
        }
        assert_string_equal(fz_term_name(e, out, cons), then);
        count[then[0] == 'L' ? 0 : then[0] == 'M' ? 1 : 2]++;
        r++;
    }
    fclose(f);
    free(path);
    assert_int_equal(r, 81);
    assert_int_equal(fz_nrules(e), 81);
    /* the paper's counts */
    assert_int_equal(count[0], 26);
    assert_int_equal(count[1], 38);
    assert_int_equal(count[2], 17);
}

static void test_bundled_rules(void **state)
{
    (void)state;
    fz_engine *p = read_engine("fuzzy/mobility.fcl"), *l = read_engine("fuzzy/mobility_linear.fcl");
    for (int k = 0; k < 2; k++) {
        const fz_engine *e = k ? l : p;
        assert_int_equal(fz_ninputs(e), 4);
        for (int i = 0; i < 4; i++) {
            assert_string_equal(fz_var_name(e, i), INPUTS[i]);
            assert_int_equal(fz_nterms(e, i), 3);
        }
        assert_string_equal(fz_var_name(e, 4), "mobility");
        assert_int_equal(fz_term_class(e, fz_term_index(e, 4, "L")), 1);
        assert_int_equal(fz_term_class(e, fz_term_index(e, 4, "M")), 2);
        assert_int_equal(fz_term_class(e, fz_term_index(e, 4, "H")), 3);
        assert_int_equal(fz_defuzzifier(e), FZ_COG);
        assert_near(fz_default_value(e), 0, 0);
        check_paper_rules(e);
    }
    /* the linear file is the power file with k = 1: on every axis a Z or S
     * term of mobility.fcl (k = 2) is the square of the linear file's, and
     * the triangles are the same */
    for (int v = 0; v <= 4; v++) {
        double lo, hi;
        fz_var_range(p, v, &lo, &hi);
        for (int t = 0; t < 3; t++) {
            const char *name = fz_term_name(p, v, t);
            int tl = fz_term_index(l, v, name);
            int triangle = !strcmp(name, "M");
            for (int s = 0; s <= 2000; s++) {
                double x = lo - 0.1 * (hi - lo) + 1.2 * (hi - lo) * s / 2000;
                double a = fz_membership(p, v, t, x), b = fz_membership(l, v, tl, x);
                assert_near(a, triangle ? b : b * b, 1e-14);
            }
        }
    }
    fz_engine_free(p);
    fz_engine_free(l);
}

/* ---- hand-worked cells ----------------------------------------------------------- */

static void check_cell(const fz_engine *e, const double in[4], const double want_s[3], double want_cog, int want_cls)
{
    fz_result r;
    fz_eval(e, in, &r);
    const char *names[3] = {"L", "M", "H"};
    for (int k = 0; k < 3; k++)
        assert_near(r.strength[fz_term_index(e, 4, names[k])], want_s[k], 1e-15);
    assert_near(r.crisp, want_cog, 1e-12);
    assert_near(r.cost, 1 - want_cog, 1e-12);
    assert_int_equal(r.cls, want_cls);
}

static void test_hand_cells(void **state)
{
    (void)state;
    fz_engine *lin = read_engine("fuzzy/mobility_linear.fcl"), *pow2 = read_engine("fuzzy/mobility.fcl");
    double s[3];

    /* Cell 1, linear file: slope 12, elevation 450, ci 600, speed 18.
     * slope: H 0 (> 8), M = (15-12)/5 = 0.6, L = (12-10)/5 = 0.4
     * elevation: H 0, M = (600-450)/200 = 0.75, L 0 (< 500)
     * ci: L 0, M = (700-600)/150 = 2/3, H = (600-550)/150 = 1/3
     * speed: L 0, M = (18-10)/10 = 0.8, H 0 (< 20)
     * Rules with all four antecedents above 0 (min of the four):
     *   M1 M2 M3 M4 -> M: min(.6, .75, 2/3, .8) = 0.6
     *   M1 M2 H3 M4 -> M: 1/3;  L1 M2 M3 M4 -> M: 0.4;  L1 M2 H3 M4 -> M: 1/3
     * s = (L 0, M 0.6, H 0). The aggregated set is M = triangle(0, .5, 1)
     * clipped at 0.6, symmetric about 0.5: centroid 0.5, cost 0.5, class 2
     * (low-risk). Its maximum 0.6 holds on [0.3, 0.7]: MOM 0.5, SOM 0.3. */
    check_cell(lin, (double[4]){12, 450, 600, 18}, (double[3]){0, 0.6, 0}, 0.5, 2);
    fz_strengths(lin, (double[4]){12, 450, 600, 18}, s);
    assert_near(fz_defuzzify(lin, s, FZ_MOM), 0.5, 1e-15);
    assert_near(fz_defuzzify(lin, s, FZ_SOM), 0.3, 1e-15);

    /* Cell 2, linear file: slope 6, elevation 100, ci 300, speed 25.
     * slope: H = (8-6)/3 = 2/3, M = (6-5)/5 = 0.2; elevation: H 1 (< 200);
     * ci: L 1 (< 400); speed: M = (30-25)/10 = 0.5, H = (25-20)/10 = 0.5.
     *   H1 H2 L3 M4 -> M (rule 6): min(2/3, 1, 1, .5) = 0.5
     *   H1 H2 L3 H4 -> H (rule 4): 0.5
     *   M1 H2 L3 M4 -> M: 0.2;  M1 H2 L3 H4 -> M: 0.2
     * s = (L 0, M 0.5, H 0.5): a tie, so the class is the riskier, M (2).
     * mu(y) = max(min(.5, M(y)), min(.5, H(y))), M(y) = 2y on [0, .5],
     * 2(1-y) on [.5, 1]; H(y) = 2(y - .5) on [.5, 1]:
     *   2y on [0, 1/4], then 0.5 on [1/4, 1] (clipped M to 3/4, clipped H after).
     * area   = ∫0^1/4 2y dy + .5 (3/4)        = 1/16 + 3/8       = 7/16
     * moment = ∫0^1/4 2y^2 dy + .5 ∫1/4^1 y dy = 1/96 + 15/64      = 47/192
     * centroid = (47/192) / (7/16) = 47/84 = 0.559523809..., cost 37/84.
     * The maximum 0.5 holds on [1/4, 1]: MOM 5/8, SOM 1/4. */
    check_cell(lin, (double[4]){6, 100, 300, 25}, (double[3]){0, 0.5, 0.5}, 47.0 / 84, 2);
    fz_strengths(lin, (double[4]){6, 100, 300, 25}, s);
    assert_near(fz_defuzzify(lin, s, FZ_MOM), 0.625, 1e-15);
    assert_near(fz_defuzzify(lin, s, FZ_SOM), 0.25, 1e-15);

    /* Cell 3, both files: slope 3, elevation 100, ci 800, speed 35: every
     * input fully favourable (H = 1, the others 0), so only rule 1 fires,
     * H1 H2 H3 H4 -> H with strength 1: s = (0, 0, 1), class 3 (safe).
     * Linear: H(y) = 2(y - .5) on [.5, 1]: area ∫ 2(y-.5) = 1/4, moment
     *   ∫ 2y(y-.5) dy = [2y^3/3 - y^2/2] from .5 to 1 = 5/24: centroid 5/6.
     * k = 2: H(y) = 4(y - .5)^2: area 1/6, moment ∫ 4(u+.5)u^2 du (u from
     *   0 to .5) = 4 (u^4/4 + u^3/6) = 7/48: centroid 7/8. */
    check_cell(lin, (double[4]){3, 100, 800, 35}, (double[3]){0, 0, 1}, 5.0 / 6, 3);
    check_cell(pow2, (double[4]){3, 100, 800, 35}, (double[3]){0, 0, 1}, 7.0 / 8, 3);

    /* Cell 4, mobility.fcl (k = 2): slope 6.5, elevation 100, ci 300, speed 10.
     * slope: H = ((8-6.5)/3)^2 = 0.25, M = (6.5-5)/5 = 0.3; elevation: H 1;
     * ci: L 1; speed: L = ((15-10)/5)^2 = 1, M = (10-10)/10 = 0.
     *   H1 H2 L3 L4 -> M (rule 5): min(.25, 1, 1, 1) = 0.25
     *   M1 H2 L3 L4 -> L:           min(.3, 1, 1, 1)  = 0.3
     * s = (L 0.3, M 0.25, H 0): class 1 (high-risk).
     * Output terms: L(y) = (1-2y)^2 on [0, .5], M the triangle.
     * L >= .3 for y <= a = (1 - sqrt(.3))/2 = 0.22613872...; L meets the
     * level .25 at y = 1/4, where clipped M (>= .25 on [1/8, 7/8]) takes over:
     *   0.3 on [0, a], (1-2y)^2 on [a, 1/4], 0.25 on [1/4, 7/8], 2(1-y) on [7/8, 1].
     * area: .3a + ((1-2a)^3 - 1/8)/6 + .25 (5/8) + (1/8)^2,
     *   (1-2a)^3 = .3^1.5 = 0.16431677; = 0.06784162 + 0.00655280 + 0.15625 + 0.015625
     *   = 0.24626942
     * moment: .3 a^2/2 + (1/4) [(.3^1.5 - 1/8)/3 - (.09 - 1/16)/4]
     *   + .25 ((7/8)^2 - (1/4)^2)/2 + ∫7/8^1 2y(1-y) dy (= 11/768)
     *   = 0.00767081 + 0.00155765 + 0.08789063 + 0.01432292 = 0.11144200
     * centroid = 0.11144200 / 0.24626942 = 0.452521 (to 6 places).
     * The maximum 0.3 holds on [0, a]: SOM 0, MOM a/2 = 0.11306936. */
    {
        double a = (1 - sqrt(0.3)) / 2;
        double area = 0.3 * a + (pow(0.3, 1.5) - 0.125) / 6 + 0.25 * 0.625 + 0.015625;
        double moment = 0.15 * a * a + 0.25 * ((pow(0.3, 1.5) - 0.125) / 3 - (0.09 - 0.0625) / 4) +
                        0.125 * (0.765625 - 0.0625) + 11.0 / 768;
        assert_near(moment / area, 0.452521, 1e-6);
        check_cell(pow2, (double[4]){6.5, 100, 300, 10}, (double[3]){0.3, 0.25, 0}, moment / area, 1);
        fz_strengths(pow2, (double[4]){6.5, 100, 300, 10}, s);
        assert_near(fz_defuzzify(pow2, s, FZ_MOM), a / 2, 1e-15);
        assert_near(fz_defuzzify(pow2, s, FZ_SOM), 0, 1e-15);
    }
    fz_engine_free(lin);
    fz_engine_free(pow2);
}

/* ---- the exact centroid against numeric integration ---------------------------- */

static uint64_t rng_state = 0x9E3779B97F4A7C15ull;
static double uniform(void)
{
    rng_state ^= rng_state << 13; /* xorshift64 */
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return (double)(rng_state >> 11) / 9007199254740992.0;
}

/* Midpoint rule with n cells over the output range, mu from fz_membership:
 * independent of the engine's pieces. Also the maximum set, sampled. */
static void numeric(const fz_engine *e, const double *s, int n, double *cog, double *som, double *mom)
{
    double lo, hi;
    const int out = fz_ninputs(e), T = fz_nterms(e, out);
    fz_var_range(e, out, &lo, &hi);
    double h = (hi - lo) / n, area = 0, moment = 0, best = -1;
    double *m = malloc((size_t)n * sizeof *m);
    assert_non_null(m);
    for (int i = 0; i < n; i++) {
        double y = lo + (i + 0.5) * h, v = 0;
        for (int t = 0; t < T; t++) {
            double c = fz_membership(e, out, t, y);
            c = c < s[t] ? c : s[t];
            v = c > v ? c : v;
        }
        m[i] = v;
        area += v;
        moment += v * y;
        best = v > best ? v : best;
    }
    *cog = moment / area;
    double sum = 0;
    int cnt = 0;
    *som = NAN;
    for (int i = 0; i < n; i++)
        if (m[i] >= best - 1e-12) {
            if (cnt == 0)
                *som = lo + (i + 0.5) * h;
            sum += lo + (i + 0.5) * h;
            cnt++;
        }
    *mom = sum / cnt;
    free(m);
}

static void test_centroid_exact(void **state)
{
    (void)state;
    const char *files[2] = {"fuzzy/mobility_linear.fcl", "fuzzy/mobility.fcl"};
    const int N = 1 << 18;
    double worst = 0, worst_mx = 0;
    for (int k = 0; k < 2; k++) {
        fz_engine *e = read_engine(files[k]);
        /* special levels: the clip points of the terms' crossings (L and M
         * cross at 1/3 for k = 1, at (3 - sqrt 5)/2 = 0.381966 for k = 2),
         * ties, 0 and 1; then random strengths */
        const double special[] = {0, 1, 0.5, 1.0 / 3, (3 - sqrt(5)) / 2, 0.25, 1e-9};
        const int ns = (int)(sizeof special / sizeof special[0]);
        for (int trial = 0; trial < 160; trial++) {
            double s[3];
            for (int t = 0; t < 3; t++)
                s[t] = trial < 80 && uniform() < 0.5 ? special[(int)(uniform() * ns)] : uniform();
            if (trial < 8) /* a few with two strengths exactly equal */
                s[trial % 3] = s[(trial + 1) % 3];
            if (s[0] + s[1] + s[2] == 0)
                s[trial % 3] = 0.7;
            double cog, som, mom;
            numeric(e, s, N, &cog, &som, &mom);
            double d = fabs(fz_defuzzify(e, s, FZ_COG) - cog);
            worst = d > worst ? d : worst;
            if (d > 1e-9)
                fail_msg("%s: strengths %.17g %.17g %.17g: centroid %.12f, numeric %.12f", files[k], s[0], s[1], s[2],
                         fz_defuzzify(e, s, FZ_COG), cog);
            /* the sampled maximum set is exact to a cell where it is an interval */
            if (s[0] < 0.999 && s[1] < 0.999 && s[2] < 0.999 && s[0] != s[1] && s[1] != s[2] && s[0] != s[2]) {
                double dm = fabs(fz_defuzzify(e, s, FZ_SOM) - som), dn = fabs(fz_defuzzify(e, s, FZ_MOM) - mom);
                worst_mx = dm > worst_mx ? dm : worst_mx;
                worst_mx = dn > worst_mx ? dn : worst_mx;
                assert_true(dm <= 1.5 / N && dn <= 1.5 / N);
            }
        }
        fz_engine_free(e);
    }
    print_message("centroid: max |exact - midpoint rule (2^18 cells)| = %.2e; MOM/SOM max difference %.2e "
                  "(sampling step %.2e)\n",
                  worst, worst_mx, 1.0 / N);
}

/* ---- winner and ties ---------------------------------------------------------------- */

static void test_winner_ties(void **state)
{
    (void)state;
    fz_engine *e = read_engine("fuzzy/mobility_linear.fcl");
    int L = fz_term_index(e, 4, "L"), M = fz_term_index(e, 4, "M"), H = fz_term_index(e, 4, "H");
    double s[3];
    s[L] = 0.5, s[M] = 0.5, s[H] = 0.2;
    assert_int_equal(fz_winner(e, s), L);
    s[L] = 0, s[M] = 0.5, s[H] = 0.5;
    assert_int_equal(fz_winner(e, s), M);
    s[L] = 0.2, s[M] = 0.2, s[H] = 0.2;
    assert_int_equal(fz_winner(e, s), L);
    s[L] = 0.1, s[M] = 0.2, s[H] = 0.2000001;
    assert_int_equal(fz_winner(e, s), H);
    /* no rule fires: DEFAULT (0), class 1 */
    s[L] = s[M] = s[H] = 0;
    assert_int_equal(fz_winner(e, s), L);
    assert_near(fz_defuzzify(e, s, FZ_COG), 0, 0);
    assert_near(fz_defuzzify(e, s, FZ_MOM), 0, 0);
    fz_engine_free(e);
    /* DEFAULT from the file */
    fz_engine *d = parse_ok("FUNCTION_BLOCK d VAR_INPUT x : REAL; END_VAR VAR_OUTPUT y : REAL; END_VAR\n"
                            "FUZZIFY x RANGE := (0 .. 1); TERM a := TRIANGLE 0 0.5 1; END_FUZZIFY\n"
                            "DEFUZZIFY y RANGE := (0 .. 1); TERM lo := RAMP 1 0; TERM hi := RAMP 0 1;\n"
                            "  DEFAULT := 0.25; METHOD : MM; END_DEFUZZIFY\n"
                            "RULEBLOCK AND : PROD; RULE 1 : IF x IS a THEN y IS hi; END_RULEBLOCK\n"
                            "END_FUNCTION_BLOCK\n");
    fz_result r;
    fz_eval(d, (double[1]){2}, &r);
    assert_near(r.crisp, 0.25, 0);
    assert_near(r.cost, 0.75, 0);
    assert_int_equal(fz_defuzzifier(d), FZ_MOM);
    fz_eval(d, (double[1]){0.25}, &r); /* hi clipped at 0.5: maximum on [0.5, 1] */
    assert_near(r.crisp, 0.75, 1e-15);
    fz_engine_free(d);
}

/* ---- rule strengths against the rules one by one ------------------------------------------ */

static void brute_strengths(const fz_engine *e, const double *in, int and_prod, double *s)
{
    const int n = fz_ninputs(e), T = fz_nterms(e, n);
    for (int t = 0; t < T; t++)
        s[t] = 0;
    for (int r = 0; r < fz_nrules(e); r++) {
        int number, ant[FZ_MAX_INPUTS], cons;
        fz_rule(e, r, &number, ant, &cons);
        double v = 1;
        for (int i = 0; i < n; i++)
            if (ant[i] >= 0) {
                double m = fz_membership(e, i, ant[i], in[i]);
                v = and_prod ? v * m : (m < v ? m : v);
            }
        s[cons] = v > s[cons] ? v : s[cons];
    }
}

/* A rule base that is not a complete table: rules with one to three
 * antecedents, two rules on the same antecedents, AND as MIN or PROD. */
static const char *PARTIAL = "FUNCTION_BLOCK p\n"
                             "VAR_INPUT a : REAL; b : REAL; c : REAL; END_VAR\n"
                             "VAR_OUTPUT y : REAL; END_VAR\n"
                             "FUZZIFY a RANGE := (0 .. 10); TERM lo := RAMP 6 2; TERM mid := TRIANGLE 2 5 8; "
                             "TERM hi := RAMP 4 8; END_FUZZIFY\n"
                             "FUZZIFY b RANGE := (0 .. 1); TERM lo := ZPOWER 0.2 0.6 2; TERM hi := SPOWER 0.4 0.9 3;\n"
                             "  END_FUZZIFY\n"
                             "FUZZIFY c RANGE := (-5 .. 5); TERM neg := (-5, 1) (0, 0);\n"
                             "  TERM pos := (0, 0) (2, 0.7) (5, 1); END_FUZZIFY\n"
                             "DEFUZZIFY y RANGE := (0 .. 10); TERM bad := TRAPEZOID 0 0 2 5;\n"
                             "  TERM fair := TRIANGLE 2 5 8;\n"
                             "  TERM good := ZPOWER 3 9 1.5; TERM best := SPOWER 6 10 0.5; END_DEFUZZIFY\n"
                             "RULEBLOCK r AND : %s;\n"
                             "  RULE 1 : IF a IS lo THEN y IS bad;\n"
                             "  RULE 2 : IF a IS mid AND b IS hi THEN y IS fair;\n"
                             "  RULE 3 : IF a IS hi AND b IS hi AND c IS pos THEN y IS best;\n"
                             "  RULE 4 : IF b IS lo AND c IS neg THEN y IS bad;\n"
                             "  RULE 5 : IF c IS pos THEN y IS good;\n"
                             "  RULE 6 : IF c IS pos THEN y IS fair;\n"
                             "  RULE 7 : IF a IS hi AND c IS neg THEN y IS fair;\n"
                             "END_RULEBLOCK END_FUNCTION_BLOCK\n";

static void test_rules_general(void **state)
{
    (void)state;
    char text[4096];
    for (int prod = 0; prod < 3; prod++) {
        fz_engine *e;
        double lo[3] = {-1, -0.1, -6}, hi[3] = {11, 1.1, 6};
        if (prod < 2) {
            snprintf(text, sizeof text, PARTIAL, prod ? "PROD" : "MIN");
            e = parse_ok(text);
        } else { /* the complete table of the bundled rules */
            e = read_engine("fuzzy/mobility.fcl");
            lo[0] = 0, hi[0] = 35;
        }
        const int n = fz_ninputs(e), T = fz_nterms(e, n);
        for (int k = 0; k < 3000; k++) {
            double in[4] = {0, 0, 0, 0}, s[FZ_MAX_OUT_TERMS], b[FZ_MAX_OUT_TERMS];
            for (int i = 0; i < n; i++)
                in[i] = prod < 2 ? lo[i] + (hi[i] - lo[i]) * uniform() : 1300 * uniform();
            if (prod == 2)
                in[0] = 35 * uniform(), in[3] = 45 * uniform();
            fz_strengths(e, in, s);
            brute_strengths(e, in, prod == 1, b);
            for (int t = 0; t < T; t++)
                assert_near(s[t], b[t], 1e-15);
        }
        /* the centroid of the 4-term output with powers k = 1.5 and 0.5 too */
        if (prod < 2)
            for (int k = 0; k < 100; k++) {
                double s[4] = {uniform(), uniform(), uniform(), uniform()}, cog, som, mom;
                numeric(e, s, 1 << 18, &cog, &som, &mom);
                assert_near(fz_defuzzify(e, s, FZ_COG), cog, 1e-9);
            }
        fz_engine_free(e);
    }
}

/* ---- the row kernel -------------------------------------------------------------------- */

static void test_eval_row(void **state)
{
    (void)state;
    fz_engine *e = read_engine("fuzzy/mobility.fcl");
    enum { N = 5000 };
    static float in[4][N], cost[N];
    static unsigned char cls[N], valid[N];
    const double range[4] = {35, 1100, 1300, 45};
    for (int c = 0; c < N; c++) {
        for (int i = 0; i < 4; i++)
            in[i][c] = (float)(range[i] * uniform());
        valid[c] = c % 7 != 3;
    }
    const float *rows[4] = {in[0], in[1], in[2], in[3]};
    fz_eval_row(e, N, rows, valid, cost, cls);
    for (int c = 0; c < N; c++) {
        if (!valid[c]) {
            assert_near(cost[c], 1, 0);
            assert_int_equal(cls[c], 0);
            continue;
        }
        fz_result r;
        fz_eval(e, (double[4]){in[0][c], in[1][c], in[2][c], in[3][c]}, &r);
        assert_near(cost[c], (float)r.cost, 0);
        assert_int_equal(cls[c], r.cls);
        assert_true(cls[c] >= 1 && cls[c] <= 3 && cost[c] >= 0 && cost[c] <= 1);
    }
    fz_engine_free(e);
}

/* ---- the reader's errors --------------------------------------------------------------- */

static int line_of(const char *text, const char *needle)
{
    const char *p = strstr(text, needle);
    assert_non_null(p);
    int line = 1;
    for (const char *q = text; q < p; q++)
        line += *q == '\n';
    return line;
}

/* text with the first `from` replaced by `to` */
static char *replaced(const char *text, const char *from, const char *to)
{
    const char *p = strstr(text, from);
    assert_non_null(p);
    size_t n = strlen(text) - strlen(from) + strlen(to);
    char *s = malloc(n + 1);
    memcpy(s, text, (size_t)(p - text));
    strcpy(s + (p - text), to);
    strcat(s, p + strlen(from));
    return s;
}

static void expect_error(const char *text, trv_status want, const char *msg)
{
    trv_ctx *ctx = trv_ctx_new();
    fz_engine *e = NULL;
    trv_status st = fz_engine_parse(ctx, "t.fcl", text, &e);
    if (st != want)
        fail_msg("expecting '%s': status %d (%s), want %d; message '%s'", msg, st, trv_status_str(st), want,
                 trv_errmsg(ctx));
    assert_null(e);
    assert_contains(trv_errmsg(ctx), msg);
    trv_ctx_free(ctx);
}

static void test_parser_errors(void **state)
{
    (void)state;
    char *path = data_path("fuzzy/mobility.fcl");
    char *good = slurp(path), *t, msg[256];
    assert_non_null(good);
    fz_engine_free(parse_ok(good));

    /* truncated in the middle of the rule block: the end of file is
     * reported on the last line read */
    t = strdup(good);
    t[strstr(t, "    RULE 41 ") - t] = '\0';
    snprintf(msg, sizeof msg,
             "t.fcl:%d: unexpected end of file in RULEBLOCK (opened on line %d): expected 'END_RULEBLOCK'",
             line_of(good, "    RULE 40 "), line_of(good, "RULEBLOCK paper"));
    expect_error(t, TRV_ERR_FORMAT, msg);
    free(t);
    /* truncated inside a term */
    t = strdup(good);
    t[strstr(t, "ZPOWER 200 300") - t + 10] = '\0';
    expect_error(t, TRV_ERR_FORMAT, "expected ZPOWER's 3 numbers, found end of file");
    free(t);
    /* unknown term */
    t = replaced(good, "ci is H and speed is H then", "ci is X and speed is H then");
    snprintf(msg, sizeof msg, "t.fcl:%d: rule 1: unknown term 'X' of 'ci'", line_of(good, "RULE 1 :"));
    expect_error(t, TRV_ERR_FORMAT, msg);
    free(t);
    /* a rule naming an unknown variable */
    t = replaced(good, "RULE 5 : if slope is", "RULE 5 : if slop is");
    snprintf(msg, sizeof msg, "t.fcl:%d: rule 5: unknown variable 'slop'", line_of(good, "RULE 5 :"));
    expect_error(t, TRV_ERR_FORMAT, msg);
    free(t);
    /* duplicate rule number */
    t = replaced(good, "RULE 7 :", "RULE 6 :");
    snprintf(msg, sizeof msg, "t.fcl:%d: duplicate rule number 6 (first on line %d)", line_of(good, "RULE 7 :"),
             line_of(good, "RULE 6 :"));
    expect_error(t, TRV_ERR_FORMAT, msg);
    free(t);
    /* inverted range */
    t = replaced(good, "RANGE := (0 .. 30);", "RANGE := (30 .. 0);");
    snprintf(msg, sizeof msg, "t.fcl:%d: RANGE (30 .. 0) of 'slope' is inverted", line_of(good, "RANGE := (0 .. 30);"));
    expect_error(t, TRV_ERR_FORMAT, msg);
    free(t);
    /* and more */
    struct {
        const char *from, *to, *msg;
    } cases[] = {
        {"RANGE := (0 .. 30);", "RANGE := (5 .. 5);", "RANGE (5 .. 5) of 'slope' is empty"},
        {"TERM M := TRIANGLE 5 10 15;", "TERM M := GAUSS 10 2;", "unknown shape 'GAUSS' for term 'M'"},
        {"TERM M := TRIANGLE 5 10 15;", "TERM M := TRIANGLE 5 15 10;", "term 'M' of 'slope': TRIANGLE a m c needs"},
        {"TERM M := TRIANGLE 5 10 15;", "TERM H := TRIANGLE 5 10 15;", "term 'H' of 'slope' is defined twice"},
        {"TERM H := ZPOWER 5 8 2;", "TERM H := ZPOWER 5 8 0;", "ZPOWER a b k needs k > 0"},
        {"TERM H := ZPOWER 5 8 2;", "TERM H := ZPOWER 5 8 2", "expected ';', found 'TERM'"},
        {"METHOD : COG;", "METHOD : COA;", "unsupported METHOD 'COA'"},
        {"ACCU : MAX;", "ACCU : BSUM;", "unsupported ACCU 'BSUM'"},
        {"AND : MIN;", "AND : BDIF;", "unsupported AND 'BDIF'"},
        {"ACT : MIN;", "ACT : PROD;", "unsupported ACT 'PROD'"},
        {"mobility : REAL;", "mobility : REAL; risk : REAL;", "'risk' would be a second output variable"},
        {"speed : REAL;", "speed : INT;", "expected the type 'REAL', found 'INT'"},
        {"speed : REAL;", "speed : REAL; slope : REAL;", "variable 'slope' is declared twice"},
        {"FUZZIFY speed", "FUZZIFY sped", "FUZZIFY 'sped': no such variable"},
        {"DEFUZZIFY mobility", "DEFUZZIFY speed", "DEFUZZIFY 'speed': 'speed' is an input variable"},
        {"RULE 1 : if slope is H and", "RULE 1 : if slope is H or", "rule 1: 'OR' is not supported"},
        {"then mobility is H;", "then speed is H;", "rule 1: THEN names 'speed', not the output 'mobility'"},
        {"then mobility is H;", "then mobility is VH;", "rule 1: unknown term 'VH' of 'mobility'"},
        {"RULE 1 : if slope is H and elevation", "RULE 1 : if slope is H and slope", "rule 1: 'slope' appears twice"},
        {"RULE 1 :", "RULE 1.5 :", "expected a rule number (a whole number), found '1.5'"},
        {"END_FUNCTION_BLOCK", "END_FUNCTION_BLOCK x", "expected nothing after 'END_FUNCTION_BLOCK', found 'x'"},
        {"FUNCTION_BLOCK mobility", "(* never closed", "comment '(*' is never closed"},
        {"DEFAULT := 0;", "DEFAULT := NC;", "expected a number (NC is not supported), found 'NC'"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        t = replaced(good, cases[i].from, cases[i].to);
        expect_error(t, TRV_ERR_FORMAT, cases[i].msg);
        free(t);
    }
    expect_error("", TRV_ERR_FORMAT, "t.fcl:1: expected 'FUNCTION_BLOCK', found end of file");
    expect_error("FUNCTION_BLOCK f VAR_INPUT x : REAL; END_VAR VAR_OUTPUT y : REAL; END_VAR\n"
                 "FUZZIFY x TERM a := RAMP 0 1; END_FUZZIFY\n"
                 "DEFUZZIFY y RANGE := (0 .. 1); TERM b := RAMP 0 1; END_DEFUZZIFY\n"
                 "RULEBLOCK RULE 1 : IF x IS a THEN y IS b; END_RULEBLOCK END_FUNCTION_BLOCK\n",
                 TRV_ERR_FORMAT, "t.fcl:1: 'x' has no RANGE");
    expect_error("FUNCTION_BLOCK f VAR_INPUT x : REAL; END_VAR VAR_OUTPUT y : REAL; END_VAR\n"
                 "FUZZIFY x RANGE := (0 .. 1); TERM a := RAMP 0 1; END_FUZZIFY\n"
                 "DEFUZZIFY y RANGE := (0 .. 1); TERM b := (2, 0) (3, 1); END_DEFUZZIFY\n"
                 "RULEBLOCK RULE 1 : IF x IS a THEN y IS b; END_RULEBLOCK END_FUNCTION_BLOCK\n",
                 TRV_ERR_FORMAT, "t.fcl:3: term 'b' of 'y' is 0 everywhere on its RANGE");
    expect_error("FUNCTION_BLOCK f VAR_INPUT x : REAL; END_VAR VAR_OUTPUT y : REAL; END_VAR\n"
                 "FUZZIFY x RANGE := (0 .. 1); TERM a := RAMP 0 1; END_FUZZIFY\n"
                 "DEFUZZIFY y RANGE := (0 .. 1); TERM b := RAMP 0 1; END_DEFUZZIFY\n"
                 "END_FUNCTION_BLOCK\n",
                 TRV_ERR_FORMAT, "no rules");
    /* through a file: the message names the file */
    char *f = write_file(tmpdir, "bad.fcl", "FUNCTION_BLOCK f\nVAR_INPUT\n  x : REAL\nEND_VAR\n");
    trv_ctx *ctx = trv_ctx_new();
    fz_engine *e = NULL;
    assert_int_equal(fz_engine_read(ctx, f, &e), TRV_ERR_FORMAT);
    snprintf(msg, sizeof msg, "%s:4: expected ';', found 'END_VAR'", f);
    assert_string_equal(trv_errmsg(ctx), msg);
    char *none = data_path("fuzzy/none.fcl");
    assert_int_equal(fz_engine_read(ctx, none, &e), TRV_ERR_IO);
    assert_contains(trv_errmsg(ctx), "cannot open '");
    assert_null(e);
    trv_ctx_free(ctx);
    /* rules may come before the terms they name; keywords in any case */
    t = strdup("function_block f\nvar_output y : real; end_var\nvar_input x : real; end_var\n"
               "ruleblock r\n  rule 2 : IF x IS a THEN y IS b;\nend_ruleblock\n"
               "defuzzify y range := (0 .. 1); term b := ramp 0 1; end_defuzzify\n"
               "fuzzify x range := (0 .. 1); term a := ramp 0 1; end_fuzzify\nend_function_block\n");
    e = parse_ok(t);
    assert_int_equal(fz_ninputs(e), 1);
    assert_string_equal(fz_var_name(e, 1), "y");
    fz_engine_free(e);
    free(t);
    free(f);
    free(none);
    free(good);
    free(path);
}

/* ---- trv-cost --eval ------------------------------------------------------------------------- */

static void test_eval_csv(void **state)
{
    (void)state;
    fz_engine *e = read_engine("fuzzy/mobility_linear.fcl");
    trv_ctx *ctx = trv_ctx_new();
    char *in = write_file(tmpdir, "in.csv",
                          "id,speed,ci,elevation,slope,note\n"
                          "a,18,600,450,12,plain\n"
                          "b,25,300,100,6,\"with, comma\"\n");
    char *out = NULL, *out2 = NULL;
    assert_true(asprintf(&out, "%s/out.csv", tmpdir) > 0 && asprintf(&out2, "%s/out2.csv", tmpdir) > 0);
    assert_int_equal(fz_eval_csv(ctx, e, in, out), TRV_OK);
    char *got = slurp(out);
    assert_string_equal(got, "id,speed,ci,elevation,slope,note,mobility,cost,class\n"
                             "a,18,600,450,12,plain,0.500000000,0.500000000,2\n"
                             "b,25,300,100,6,\"with, comma\",0.559523810,0.440476190,2\n");
    free(got);
    char *bad = write_file(tmpdir, "bad.csv", "slope,elevation,ci\n1,2,3\n");
    assert_int_equal(fz_eval_csv(ctx, e, bad, out), TRV_ERR_FORMAT);
    assert_contains(trv_errmsg(ctx), "no column 'speed'");
    char *nan = write_file(tmpdir, "nan.csv", "slope,elevation,ci,speed\n1,2,3,4\n1,2,,4\n");
    assert_int_equal(fz_eval_csv(ctx, e, nan, out2), TRV_ERR_FORMAT);
    assert_contains(trv_errmsg(ctx), ":3: column 'ci': '' is not a number");
    assert_int_equal(access(out2, F_OK), -1); /* nothing written */
    trv_ctx_free(ctx);
    fz_engine_free(e);
    free(in);
    free(out);
    free(out2);
    free(bad);
    free(nan);
}

/* ---- the map stage on a synthetic terrain directory -------------------------------------------- */

enum { NX = 4, NY = 3 };

static char *utm_wkt(void)
{
    trv_ctx *ctx = trv_ctx_new();
    char *w = NULL;
    assert_int_equal(geo_crs_wkt(ctx, "EPSG:32616", &w), TRV_OK);
    trv_ctx_free(ctx);
    return w;
}

static void write_layer(const char *dir, const char *name, geo_type type, const double *v, int nodata, double nd,
                        double x0)
{
    trv_ctx *ctx = trv_ctx_new();
    char *wkt = utm_wkt();
    geo_grid g = {NX, NY, {x0, 10, 0, 4000000, 0, -10}, wkt};
    geo_raster *r = NULL;
    assert_int_equal(geo_raster_new(ctx, &g, type, &r), TRV_OK);
    for (int i = 0; i < NX * NY; i++)
        if (type == GEO_F32)
            r->f32[i] = (float)v[i];
        else
            r->u8[i] = (unsigned char)v[i];
    r->has_nodata = nodata;
    r->nodata = nd;
    char *p = NULL;
    assert_true(asprintf(&p, "%s/%s", dir, name) > 0);
    if (geo_raster_write(ctx, r, p, NULL) != TRV_OK)
        fail_msg("%s", trv_errmsg(ctx));
    free(p);
    geo_raster_free(r);
    free(wkt);
    trv_ctx_free(ctx);
}

/* cells: 0 nodata DEM, 5 NOGO (gonogo 2), 7 soil 0, the others valid */
static const double DEM[NX * NY] = {-9999, 150, 250, 350, 450, 550, 650, 750, 120, 220, 320, 420};
static const double SLOPE[NX * NY] = {3, 6, 7, 9, 12, 14, 20, 2, 4.5, 10.5, 16, 6.5};
static const double SOIL[NX * NY] = {1, 2, 3, 4, 1, 2, 3, 0, 4, 3, 2, 1};
static const double SPEED[NX * NY] = {10, 12, 18, 25, 30, 0, 14, 33, 22, 11, 19, 27};
static const double GONOGO[NX * NY] = {0, 0, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0};
static const double CI[5] = {0, 223.40, 732.50, 1070.50, 528.50}; /* data/classes/soils.csv */

static char *make_terrain(const char *name)
{
    char *dir = NULL;
    assert_true(asprintf(&dir, "%s/%s", tmpdir, name) > 0);
    assert_int_equal(mkdir(dir, 0755), 0);
    write_layer(dir, "dem.tif", GEO_F32, DEM, 1, -9999, 500000);
    write_layer(dir, "slope.tif", GEO_F32, SLOPE, 1, -9999, 500000);
    write_layer(dir, "soil.tif", GEO_U8, SOIL, 1, 0, 500000);
    write_layer(dir, "speed.tif", GEO_F32, SPEED, 1, -9999, 500000);
    write_layer(dir, "gonogo.tif", GEO_U8, GONOGO, 0, 0, 500000);
    return dir;
}

static void test_map(void **state)
{
    (void)state;
    fz_engine *e = read_engine("fuzzy/mobility.fcl");
    char *dir = make_terrain("terrain");
    char *soils = data_path("classes/soils.csv");
    trv_ctx *ctx = trv_ctx_new();
    fz_map_opts o;
    fz_map_opts_init(&o);
    o.dir = dir;
    o.soils_path = soils;
    fz_map m, m1;
    assert_int_equal(fz_map_build(ctx, e, &o, &m), TRV_OK);
    size_t count[4] = {0};
    for (int i = 0; i < NX * NY; i++) {
        int c = m.cls->u8[i];
        count[c]++;
        if (i == 0 || i == 5 || i == 7) { /* nodata DEM, NOGO, no soil */
            assert_near(m.cost->f32[i], 1, 0);
            assert_int_equal(c, 0);
            continue;
        }
        fz_result r;
        fz_eval(e, (double[4]){(float)SLOPE[i], (float)DEM[i], (float)CI[(int)SOIL[i]], (float)SPEED[i]}, &r);
        assert_near(m.cost->f32[i], (float)r.cost, 0);
        assert_int_equal(c, r.cls);
    }
    assert_int_equal(m.cells, NX * NY);
    assert_int_equal(m.nodata, 2);
    for (int c = 0; c < 4; c++)
        assert_int_equal(m.count[c], count[c]);
    /* the same with one thread */
    o.threads = 1;
    assert_int_equal(fz_map_build(ctx, e, &o, &m1), TRV_OK);
    assert_memory_equal(m.cost->f32, m1.cost->f32, sizeof(float) * NX * NY);
    assert_memory_equal(m.cls->u8, m1.cls->u8, NX * NY);
    fz_map_clear(&m1);
    /* written: class 0 is data (NOGO) with a colour, no nodata anywhere */
    trv_outset *set = trv_outset_new();
    assert_int_equal(fz_map_write(ctx, set, &m, dir, NULL), TRV_OK);
    assert_int_equal(trv_outset_commit(ctx, set), TRV_OK);
    trv_outset_free(set);
    fz_map_clear(&m);
    char *cls_path = NULL, *cost_path = NULL;
    assert_true(asprintf(&cls_path, "%s/class.tif", dir) > 0 && asprintf(&cost_path, "%s/cost.tif", dir) > 0);
    GDALDatasetH ds = GDALOpen(cls_path, GA_ReadOnly);
    assert_non_null(ds);
    GDALRasterBandH b = GDALGetRasterBand(ds, 1);
    int has_nd = 1;
    GDALGetRasterNoDataValue(b, &has_nd);
    assert_int_equal(has_nd, 0);
    GDALColorTableH ct = GDALGetRasterColorTable(b);
    assert_non_null(ct);
    const GDALColorEntry *c0 = GDALGetColorEntry(ct, 0), *c3 = GDALGetColorEntry(ct, 3);
    assert_int_equal(c0->c1, 64);
    assert_int_equal(c0->c4, 255);
    assert_int_equal(c3->c2, 152);
    char **names = GDALGetRasterCategoryNames(b);
    assert_string_equal(names[0], "NOGO");
    assert_string_equal(names[1], "high-risk");
    assert_string_equal(names[2], "low-risk");
    assert_string_equal(names[3], "safe");
    GDALClose(ds);
    ds = GDALOpen(cost_path, GA_ReadOnly);
    assert_non_null(ds);
    GDALGetRasterNoDataValue(GDALGetRasterBand(ds, 1), &has_nd);
    assert_int_equal(has_nd, 0);
    assert_int_equal(GDALGetRasterDataType(GDALGetRasterBand(ds, 1)), GDT_Float32);
    GDALClose(ds);

    /* errors: a layer on another grid, a soil the table lacks, an input
     * that is not a terrain layer, a missing layer */
    char *shifted = make_terrain("shifted");
    write_layer(shifted, "slope.tif", GEO_F32, SLOPE, 1, -9999, 500010);
    o.dir = shifted;
    assert_int_equal(fz_map_build(ctx, e, &o, &m), TRV_ERR_GRID);
    char msg[512];
    snprintf(msg, sizeof msg, "'%s/slope.tif' does not match '%s/dem.tif': origin", shifted, shifted);
    assert_contains(trv_errmsg(ctx), msg);
    o.dir = dir;
    char *three = write_file(tmpdir, "soils3.csv", "code,name,ci_kPa\n1,a,200\n2,b,700\n3,c,1000\n");
    o.soils_path = three;
    assert_int_equal(fz_map_build(ctx, e, &o, &m), TRV_ERR_DATA);
    snprintf(msg, sizeof msg, "'%s/soil.tif': soil class 4 is not in the soil table '%s'", dir, three);
    assert_string_equal(trv_errmsg(ctx), msg);
    o.soils_path = soils;
    fz_engine *x = parse_ok("FUNCTION_BLOCK f VAR_INPUT slope : REAL; roughness : REAL; END_VAR\n"
                            "VAR_OUTPUT mobility : REAL; END_VAR\n"
                            "FUZZIFY slope RANGE := (0 .. 30); TERM a := RAMP 30 0; END_FUZZIFY\n"
                            "FUZZIFY roughness RANGE := (0 .. 1); TERM a := RAMP 1 0; END_FUZZIFY\n"
                            "DEFUZZIFY mobility RANGE := (0 .. 1); TERM b := RAMP 0 1; END_DEFUZZIFY\n"
                            "RULEBLOCK RULE 1 : IF slope IS a THEN mobility IS b; END_RULEBLOCK END_FUNCTION_BLOCK\n");
    assert_int_equal(fz_map_build(ctx, x, &o, &m), TRV_ERR_DATA);
    assert_contains(trv_errmsg(ctx), "input 'roughness' is not a terrain layer");
    fz_engine_free(x);
    char *gpath = NULL;
    assert_true(asprintf(&gpath, "%s/gonogo.tif", shifted) > 0);
    assert_int_equal(unlink(gpath), 0);
    write_layer(shifted, "slope.tif", GEO_F32, SLOPE, 1, -9999, 500000);
    o.dir = shifted;
    assert_int_equal(fz_map_build(ctx, e, &o, &m), TRV_ERR_IO);
    snprintf(msg, sizeof msg, "cannot open '%s'", gpath);
    assert_contains(trv_errmsg(ctx), msg);

    trv_ctx_free(ctx);
    fz_engine_free(e);
    free(gpath);
    free(three);
    free(shifted);
    free(cls_path);
    free(cost_path);
    free(soils);
    free(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_shapes),         cmocka_unit_test(test_bundled_rules),
        cmocka_unit_test(test_hand_cells),     cmocka_unit_test(test_centroid_exact),
        cmocka_unit_test(test_winner_ties),    cmocka_unit_test(test_rules_general),
        cmocka_unit_test(test_eval_row),       cmocka_unit_test(test_parser_errors),
        cmocka_unit_test(test_eval_csv),       cmocka_unit_test(test_map),
    };
    return cmocka_run_group_tests(tests, tmpdir_setup, tmpdir_teardown);
}
