/* Core: status codes, errors, CLI parsing, INI and CSV readers, atomic
 * output, metadata (expected values written out by hand); the shared heap,
 * bucket index and segment clip (against brute force and dense sampling). */
#include "test_common.h"

#include <math.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "core/bucket.h"
#include "core/clip.h"
#include "core/heap.h"
#include "core/fixed.h"
#include "core/json.h"
#include "core/rowtext.h"
#include "core/trv.h"

static void test_status_strings(void **state)
{
    (void)state;
    for (int a = TRV_OK; a <= TRV_ERR_INTERNAL; a++) {
        assert_true(strlen(trv_status_str((trv_status)a)) > 0);
        for (int b = TRV_OK; b < a; b++)
            assert_string_not_equal(trv_status_str((trv_status)a), trv_status_str((trv_status)b));
    }
}

static int cancel_at_half(double f, const char *label, void *user)
{
    (void)label;
    (*(int *)user)++;
    return f >= 0.5;
}

static void test_ctx_errors_progress(void **state)
{
    (void)state;
    trv_ctx *ctx = trv_ctx_new();
    assert_string_equal(trv_errmsg(ctx), "");
    assert_int_equal(trv_error(ctx, TRV_ERR_IO, "cannot open '%s': %s", "x.tif", "No such file"), TRV_ERR_IO);
    assert_string_equal(trv_errmsg(ctx), "cannot open 'x.tif': No such file");
    trv_error_prefix(ctx, TRV_ERR_IO, "reading '%s'", "dem");
    assert_string_equal(trv_errmsg(ctx), "reading 'dem': cannot open 'x.tif': No such file");
    int calls = 0;
    trv_ctx_set_progress(ctx, cancel_at_half, &calls);
    assert_int_equal(trv_progress(ctx, 0.25, "slope"), TRV_OK);
    assert_int_equal(trv_progress(ctx, 0.5, "slope"), TRV_ERR_CANCEL);
    assert_int_equal(calls, 2);
    assert_string_equal(trv_errmsg(ctx), "interrupted during slope");
    assert_false(trv_ctx_has_seed(ctx));
    trv_ctx_set_seed(ctx, 42);
    assert_true(trv_ctx_has_seed(ctx));
    assert_int_equal(trv_ctx_seed(ctx), 42);
    trv_ctx_free(ctx);
    trv_ctx_free(NULL);
}

/* The terminal printer writes GDAL's format on stderr: captured here. */
static void test_term_progress(void **state)
{
    (void)state;
    char path[] = "/tmp/trv-progress-XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    fflush(stderr);
    int saved = dup(2);
    dup2(fd, 2);
    trv_term_progress_state st = {0};
    trv_term_progress(0.0, "slope", &st);
    trv_term_progress(0.26, "slope", &st);
    trv_term_progress(1.0, "slope", &st);
    trv_term_progress(0.5, "write", &st);
    trv_term_progress(1.0, "write", &st);
    fflush(stderr);
    dup2(saved, 2);
    close(saved);
    char buf[512] = {0};
    assert_true(pread(fd, buf, sizeof buf - 1, 0) > 0);
    close(fd);
    unlink(path);
    assert_string_equal(buf, "slope: 0...10...20...30...40...50...60...70...80...90...100 - done.\n"
                             "write: 0...10...20...30...40...50...60...70...80...90...100 - done.\n");
}

/* ---- CLI ---- */

typedef struct cli_vals {
    const char *file, *mode;
    int flag, n;
    double x;
    uint64_t seed;
} cli_vals;

static int parse(cli_vals *v, trv_cli_result *res, int argc, const char **argv)
{
    static const char *const required[] = {"file", NULL};
    const trv_opt opts[] = {
        {"file", 'f', TRV_ARG_STRING, &v->file, "FILE", "a file"},
        {"flag", 0, TRV_ARG_FLAG, &v->flag, NULL, "a flag"},
        {"count", 'n', TRV_ARG_INT, &v->n, "N", "a count"},
        {"x", 0, TRV_ARG_DOUBLE, &v->x, "X", "a number"},
        {"seed", 0, TRV_ARG_U64, &v->seed, "S", "a seed"},
        {"mode", 0, TRV_ARG_CHOICE, &v->mode, "fast|exact", "a choice"},
        {NULL, 0, 0, NULL, NULL, NULL},
    };
    const trv_cli cli = {"trv-test", "--file FILE [IN]", "Test tool.", opts, required, 0, 1};
    memset(v, 0, sizeof *v);
    /* getopt permutes argv: hand it a copy */
    static char *copy[16]; /* res->pos points into it */
    for (int i = 0; i < argc; i++)
        copy[i] = (char *)argv[i];
    copy[argc] = NULL;
    int rc = trv_cli_parse(&cli, argc, copy, res);
    return rc;
}

static void test_cli(void **state)
{
    (void)state;
    cli_vals v;
    trv_cli_result res;
    const char *ok[] = {"trv-test", "in.tif", "-f", "a.tif", "--flag", "-n", "7", "--x=2.5", "--seed", "123",
                        "--mode", "exact", "-q"};
    assert_int_equal(parse(&v, &res, 13, ok), TRV_CLI_CONTINUE);
    assert_string_equal(v.file, "a.tif");
    assert_int_equal(v.flag, 1);
    assert_int_equal(v.n, 7);
    assert_float_equal(v.x, 2.5, 0);
    assert_int_equal(v.seed, 123);
    assert_string_equal(v.mode, "exact");
    assert_int_equal(res.quiet, 1);
    assert_int_equal(res.npos, 1);
    assert_string_equal(res.pos[0], "in.tif");

    /* usage errors exit 2, help and version exit 0 */
    const char *missing[] = {"trv-test"};
    assert_int_equal(parse(&v, &res, 1, missing), 2);
    const char *badint[] = {"trv-test", "-f", "a", "-n", "7x"};
    assert_int_equal(parse(&v, &res, 5, badint), 2);
    const char *badnum[] = {"trv-test", "-f", "a", "--x", "nan"};
    assert_int_equal(parse(&v, &res, 5, badnum), 2);
    const char *negseed[] = {"trv-test", "-f", "a", "--seed", "-1"};
    assert_int_equal(parse(&v, &res, 5, negseed), 2);
    const char *badchoice[] = {"trv-test", "-f", "a", "--mode", "slow"};
    assert_int_equal(parse(&v, &res, 5, badchoice), 2);
    const char *unknown[] = {"trv-test", "-f", "a", "--nope"};
    assert_int_equal(parse(&v, &res, 4, unknown), 2);
    const char *noval[] = {"trv-test", "-f"};
    assert_int_equal(parse(&v, &res, 2, noval), 2);
    const char *twice[] = {"trv-test", "-f", "a", "-f", "b"};
    assert_int_equal(parse(&v, &res, 5, twice), 2);
    const char *toomany[] = {"trv-test", "-f", "a", "x", "y"};
    assert_int_equal(parse(&v, &res, 5, toomany), 2);
    FILE *saved = stdout;
    stdout = fopen("/dev/null", "w");
    const char *help[] = {"trv-test", "--help"};
    int rh = parse(&v, &res, 2, help);
    const char *version[] = {"trv-test", "--version"};
    int rv = parse(&v, &res, 2, version);
    fclose(stdout);
    stdout = saved;
    assert_int_equal(rh, 0);
    assert_int_equal(rv, 0);
}

/* --version prints the traverse version, then the lines of the tool's
 * libraries hook; --help says so */
static void fake_libraries(char *buf, size_t n)
{
    snprintf(buf, n, "LIBA 1.2.3\nLIBB 4.5\n");
}

static void test_cli_version(void **state)
{
    (void)state;
    const trv_opt opts[] = {{NULL, 0, 0, NULL, NULL, NULL}};
    const trv_cli cli = {.tool = "trv-test", .usage = "", .summary = "Test.", .opts = opts, .libraries = fake_libraries};
    char *argv[] = {"trv-test", "--version", NULL};
    char *help[] = {"trv-test", "--help", NULL};
    trv_cli_result res;
    char out[2][512] = {"", ""};
    FILE *saved = stdout;
    for (int k = 0; k < 2; k++) {
        stdout = tmpfile();
        assert_non_null(stdout);
        assert_int_equal(trv_cli_parse(&cli, 2, k ? help : argv, &res), 0);
        rewind(stdout);
        out[k][fread(out[k], 1, sizeof out[k] - 1, stdout)] = '\0';
        fclose(stdout);
    }
    stdout = saved;
    assert_string_equal(out[0], "trv-test (traverse) " TRV_VERSION "\nLIBA 1.2.3\nLIBB 4.5\n");
    assert_contains(out[1], "print the versions of traverse and of the libraries it runs with");
}

/* ---- INI ---- */

typedef struct veh {
    double mass;
    int axles, chains, type;
    char *name;
    int mass_given, axles_given;
} veh;

static trv_status bind_vehicle(trv_ctx *ctx, const char *path, veh *v)
{
    const trv_ini_key schema[] = {
        {"vehicle", "name", TRV_INI_STRING, &v->name, 0, 0, NULL, 1, NULL},
        {"vehicle", "gross_mass_kg", TRV_INI_DOUBLE, &v->mass, 1, 1e6, NULL, 1, &v->mass_given},
        {"vehicle", "axles", TRV_INI_INT, &v->axles, 1, 10, NULL, 0, &v->axles_given},
        {"vehicle", "chains", TRV_INI_BOOL, &v->chains, 0, 0, NULL, 0, NULL},
        {"vehicle", "type", TRV_INI_CHOICE, &v->type, 0, 0, "wheeled|tracked", 0, NULL},
    };
    memset(v, 0, sizeof *v);
    trv_ini *ini = NULL;
    trv_status st = trv_ini_read(ctx, path, &ini);
    if (!st)
        st = trv_ini_bind(ctx, ini, schema, sizeof schema / sizeof schema[0]);
    trv_ini_free(ini);
    return st;
}

static void expect_ini_error(const char *dir, const char *text, trv_status want, const char *msg)
{
    trv_ctx *ctx = trv_ctx_new();
    char *p = write_file(dir, "v.ini", text);
    veh v;
    assert_int_equal(bind_vehicle(ctx, p, &v), want);
    assert_contains(trv_errmsg(ctx), msg);
    free(v.name);
    free(p);
    trv_ctx_free(ctx);
}

static void test_ini(void **state)
{
    (void)state;
    char *dir = make_tmpdir();
    trv_ctx *ctx = trv_ctx_new();
    char *p = write_file(dir, "v.ini",
                         "# a vehicle\n[vehicle]\nname = UGV one  # inline comment\ngross_mass_kg = 1242\n"
                         "chains = yes\n; another comment\ntype = tracked\n");
    veh v;
    assert_int_equal(bind_vehicle(ctx, p, &v), TRV_OK);
    assert_string_equal(v.name, "UGV one");
    assert_float_equal(v.mass, 1242, 0);
    assert_int_equal(v.mass_given, 1);
    assert_int_equal(v.axles_given, 0);
    assert_int_equal(v.chains, 1);
    assert_int_equal(v.type, 1);
    free(v.name);
    free(p);
    char path[512];
    snprintf(path, sizeof path, "%s/v.ini", dir);
    char want[600];
    snprintf(want, sizeof want, "%s:3: unknown key 'wheels' in [vehicle]", path);
    expect_ini_error(dir, "[vehicle]\nname = a\nwheels = 4\ngross_mass_kg = 1\n", TRV_ERR_FORMAT, want);
    snprintf(want, sizeof want, "%s:2: 'gross_mass_kg' = -5 is out of range [1, 1e+06]", path);
    expect_ini_error(dir, "[vehicle]\ngross_mass_kg = -5\nname = a\n", TRV_ERR_DATA, want);
    snprintf(want, sizeof want, "%s:2: 'gross_mass_kg' must be a number, not '12 kg'", path);
    expect_ini_error(dir, "[vehicle]\ngross_mass_kg = 12 kg\n", TRV_ERR_FORMAT, want);
    snprintf(want, sizeof want, "%s: missing key 'gross_mass_kg' in [vehicle]", path);
    expect_ini_error(dir, "[vehicle]\nname = a\n", TRV_ERR_FORMAT, want);
    snprintf(want, sizeof want, "%s:3: key 'name' repeated (first at line 2)", path);
    expect_ini_error(dir, "[vehicle]\nname = a\nname = b\n", TRV_ERR_FORMAT, want);
    snprintf(want, sizeof want, "%s:1: unknown section '[engine]'", path);
    expect_ini_error(dir, "[engine]\npower = 1\n", TRV_ERR_FORMAT, want);
    snprintf(want, sizeof want, "%s:2: expected 'key = value', got 'just words'", path);
    expect_ini_error(dir, "[vehicle]\njust words\n", TRV_ERR_FORMAT, want);
    snprintf(want, sizeof want, "%s:2: 'type' must be one of wheeled|tracked, not 'hover'", path);
    expect_ini_error(dir, "[vehicle]\ntype = hover\n", TRV_ERR_FORMAT, want);
    snprintf(want, sizeof want, "%s:2: 'chains' must be yes or no, not 'maybe'", path);
    expect_ini_error(dir, "[vehicle]\nchains = maybe\n", TRV_ERR_FORMAT, want);
    snprintf(want, sizeof want, "cannot open '%s/none.ini'", dir);
    char none[512];
    snprintf(none, sizeof none, "%s/none.ini", dir);
    assert_int_equal(bind_vehicle(ctx, none, &v), TRV_ERR_IO);
    assert_contains(trv_errmsg(ctx), want);
    /* the section headers in file order, trimmed, with their lines; a
     * header repeated and one with no keys counted; none in comments */
    char *q = write_file(dir, "s.ini", "# [x.ghost]\n[ a ]\nk = 1\n\n[b.c]\n   [a]\nj = 2\n");
    trv_ini *ini = NULL;
    assert_int_equal(trv_ini_read(ctx, q, &ini), TRV_OK);
    const char *names[3] = {"a", "b.c", "a"};
    long lines[3] = {2, 5, 6}, line = 0;
    for (size_t i = 0; i < 3; i++) {
        assert_string_equal(trv_ini_section(ini, i, &line), names[i]);
        assert_int_equal(line, lines[i]);
    }
    assert_null(trv_ini_section(ini, 3, NULL));
    trv_ini_free(ini);
    free(q);
    trv_ctx_free(ctx);
    rm_rf(dir);
    free(dir);
}

/* ---- CSV ---- */

static void test_csv(void **state)
{
    (void)state;
    char *dir = make_tmpdir();
    trv_ctx *ctx = trv_ctx_new();
    char *p = write_file(dir, "t.csv",
                         "\xEF\xBB\xBF" "code,name,ci_kPa\r\n1,\"sandy, loam\",223.4\r\n\n2,\"say \"\"hi\"\"\",7e2\r\n"
                         "3,\"two\nlines\",1\n");
    trv_csv *csv = NULL;
    assert_int_equal(trv_csv_read(ctx, p, &csv), TRV_OK);
    assert_int_equal(trv_csv_nrows(csv), 3);
    assert_int_equal(trv_csv_ncols(csv), 3);
    assert_int_equal(trv_csv_col(csv, "code"), 0);
    assert_int_equal(trv_csv_col(csv, "ci_kPa"), 2);
    assert_int_equal(trv_csv_col(csv, "nope"), -1);
    assert_string_equal(trv_csv_cell(csv, 0, 1), "sandy, loam");
    assert_string_equal(trv_csv_cell(csv, 1, 1), "say \"hi\"");
    assert_string_equal(trv_csv_cell(csv, 2, 1), "two\nlines");
    assert_int_equal(trv_csv_line(csv, 0), 2);
    assert_int_equal(trv_csv_line(csv, 1), 4);
    assert_int_equal(trv_csv_line(csv, 2), 5);
    double d;
    assert_int_equal(trv_csv_double(ctx, csv, 1, 2, &d), TRV_OK);
    assert_float_equal(d, 700, 0);
    assert_int_equal(trv_csv_double(ctx, csv, 1, 1, &d), TRV_ERR_FORMAT);
    char want[600];
    snprintf(want, sizeof want, "%s:4: column 'name': 'say \"hi\"' is not a number", p);
    assert_string_equal(trv_errmsg(ctx), want);
    int col;
    assert_int_equal(trv_csv_require(ctx, csv, "kc", &col), TRV_ERR_FORMAT);
    assert_contains(trv_errmsg(ctx), "no column 'kc'");
    trv_csv_free(csv);
    free(p);

    /* an optional numeric column: absent or empty gives the default; the range, open or closed at lo */
    p = write_file(dir, "opt.csv", "code,f\n1,\n2,0\n3,1\n4,1.5\n5,x\n");
    assert_int_equal(trv_csv_read(ctx, p, &csv), TRV_OK);
    assert_int_equal(trv_csv_number(ctx, csv, 0, "g", 0, 0, 1, 7, &d), TRV_OK); /* no column */
    assert_float_equal(d, 7, 0);
    assert_int_equal(trv_csv_number(ctx, csv, 0, "f", 0, 0, 1, 8, &d), TRV_OK); /* empty cell */
    assert_float_equal(d, 8, 0);
    assert_int_equal(trv_csv_number(ctx, csv, 1, "f", 0, 0, 1, 8, &d), TRV_OK); /* lo, closed */
    assert_float_equal(d, 0, 0);
    assert_int_equal(trv_csv_number(ctx, csv, 2, "f", 0, 1, 1, 8, &d), TRV_OK); /* hi */
    assert_float_equal(d, 1, 0);
    assert_int_equal(trv_csv_number(ctx, csv, 1, "f", 0, 1, 1, 8, &d), TRV_ERR_DATA); /* lo, open */
    snprintf(want, sizeof want, "%s:3: f 0 is outside (0, 1]", p);
    assert_string_equal(trv_errmsg(ctx), want);
    assert_int_equal(trv_csv_number(ctx, csv, 3, "f", 0, 0, 1, 8, &d), TRV_ERR_DATA);
    snprintf(want, sizeof want, "%s:5: f 1.5 is outside [0, 1]", p);
    assert_string_equal(trv_errmsg(ctx), want);
    assert_int_equal(trv_csv_number(ctx, csv, 4, "f", 0, 0, 1, 8, &d), TRV_ERR_FORMAT);
    trv_csv_free(csv);
    free(p);

    p = write_file(dir, "bad.csv", "a,b\n1,2\n3\n");
    assert_int_equal(trv_csv_read(ctx, p, &csv), TRV_ERR_FORMAT);
    snprintf(want, sizeof want, "%s:3: 1 fields, the header has 2", p);
    assert_string_equal(trv_errmsg(ctx), want);
    free(p);
    p = write_file(dir, "q.csv", "a,b\n1,\"open\n");
    assert_int_equal(trv_csv_read(ctx, p, &csv), TRV_ERR_FORMAT);
    assert_contains(trv_errmsg(ctx), ":2: unterminated quoted field");
    free(p);
    p = write_file(dir, "e.csv", "");
    assert_int_equal(trv_csv_read(ctx, p, &csv), TRV_ERR_FORMAT);
    assert_contains(trv_errmsg(ctx), "is empty");
    free(p);
    trv_csv_free(NULL);
    trv_ctx_free(ctx);
    rm_rf(dir);
    free(dir);
}

/* ---- atomic output ---- */

static int exists(const char *dir, const char *name)
{
    char p[2048];
    snprintf(p, sizeof p, "%s/%s", dir, name);
    return access(p, F_OK) == 0;
}

static int count_entries(const char *dir)
{
    char cmd[600];
    snprintf(cmd, sizeof cmd, "ls -A '%s' | wc -l", dir);
    FILE *f = popen(cmd, "r");
    int n = -1;
    if (f) {
        if (fscanf(f, "%d", &n) != 1)
            n = -1;
        pclose(f);
    }
    return n;
}

static void write_text(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

/* The summaries' writer: keys in the order added, nesting, arrays, the
 * number format asked for, NaN as null, the meta keys, committed with a
 * set; the bytes written out by hand. */
static void test_json(void **state)
{
    (void)state;
    char *dir = make_tmpdir();
    trv_ctx *ctx = trv_ctx_new();
    trv_meta meta;
    char *argv[] = {"trv-x", "--in", "a b/c.tif", NULL};
    trv_meta_init(&meta, "trv-x", 3, argv);
    meta.has_seed = 1;
    meta.seed = 7;
    trv_json *j = trv_json_new();
    trv_json_meta(j, &meta);
    trv_json_obj(j, "grid");
    trv_json_int(j, "nx", 1033);
    trv_json_num(j, "cell", "%.10g", 30.0);
    trv_json_end(j);
    trv_json_num(j, "zebra", "%.6g", 2.0 / 3.0);
    trv_json_num(j, "alpha", "%.3f", NAN);
    trv_json_arr(j, "rows");
    trv_json_obj(j, "ignored");
    trv_json_str(j, "name", "a \"b\"/c");
    trv_json_bool(j, "ok", 1);
    trv_json_end(j);
    trv_json_int(j, NULL, -2);
    trv_json_end(j);
    trv_json_arr(j, "none");
    trv_json_end(j);
    trv_json_str(j, "null", NULL);
    char *path = trv_path_join(dir, "s.json");
    trv_outset *set = trv_outset_new();
    assert_int_equal(trv_json_stage(ctx, set, j, path), TRV_OK);
    assert_false(exists(dir, "s.json")); /* not before the commit */
    assert_int_equal(trv_outset_commit(ctx, set), TRV_OK);
    trv_outset_free(set);
    trv_json_free(j);
    char *text = trv_file_slurp(path, NULL);
    assert_non_null(text);
    assert_string_equal(text, "{\n"
                              "  \"tool\": \"trv-x\",\n"
                              "  \"version\": \"" TRV_VERSION "\",\n"
                              "  \"args\": \"trv-x --in 'a b/c.tif'\",\n"
                              "  \"seed\": 7,\n"
                              "  \"grid\": {\n"
                              "    \"nx\": 1033,\n"
                              "    \"cell\": 30\n"
                              "  },\n"
                              "  \"zebra\": 0.666667,\n"
                              "  \"alpha\": null,\n"
                              "  \"rows\": [\n"
                              "    {\n"
                              "      \"name\": \"a \\\"b\\\"/c\",\n"
                              "      \"ok\": true\n"
                              "    },\n"
                              "    -2\n"
                              "  ],\n"
                              "  \"none\": [\n"
                              "  ],\n"
                              "  \"null\": null\n"
                              "}\n");
    free(text);
    char *beside = trv_path_beside("out/a/dem.tif", "krige.json");
    assert_string_equal(beside, "out/a/krige.json");
    free(beside);
    beside = trv_path_beside("dem.tif", "krige.json");
    assert_string_equal(beside, "krige.json");
    free(beside);
    /* A string written line by line: quotes, backslashes and control
     * characters escaped as RFC 8259 says (by hand), "/" and UTF-8 kept;
     * NULL is the empty string. */
    char *buf = NULL;
    size_t len = 0;
    FILE *mf = open_memstream(&buf, &len);
    assert_non_null(mf);
    trv_json_fputs(mf, "a\"b\\c/\n\x01\xc3\xa9");
    trv_json_fputs(mf, NULL);
    fclose(mf);
    assert_string_equal(buf, "\"a\\\"b\\\\c/\\u000a\\u0001\xc3\xa9\"\"\"");
    free(buf);
    free(path);
    trv_ctx_free(ctx);
    rm_rf(dir);
    free(dir);
}

static void test_outset(void **state)
{
    (void)state;
    char *dir = make_tmpdir();
    trv_ctx *ctx = trv_ctx_new();
    char out[600], final[700], aux[720];
    snprintf(out, sizeof out, "%s/a/b", dir);

    /* abort: temporaries and the directories the set created disappear */
    trv_outset *set = trv_outset_new();
    assert_int_equal(trv_outset_mkdir(ctx, set, out), TRV_OK);
    snprintf(final, sizeof final, "%s/x.tif", out);
    const char *tmp = trv_outset_add(set, final);
    assert_non_null(strstr(tmp, "/.x.tmp"));
    assert_non_null(strstr(tmp, ".tif"));
    write_text(tmp, "data");
    snprintf(aux, sizeof aux, "%s.aux.xml", tmp);
    write_text(aux, "<PAMDataset/>");
    trv_outset_free(set);
    assert_int_equal(count_entries(dir), 0);

    /* commit: files and their sidecars appear under the final names, and a
     * stale sidecar of an older file goes */
    set = trv_outset_new();
    assert_int_equal(trv_outset_mkdir(ctx, set, out), TRV_OK);
    tmp = trv_outset_add(set, final);
    write_text(tmp, "data");
    snprintf(aux, sizeof aux, "%s.aux.xml", tmp);
    write_text(aux, "<PAMDataset/>");
    char final2[700];
    snprintf(final2, sizeof final2, "%s/y.csv", out);
    snprintf(aux, sizeof aux, "%s.aux.xml", final2);
    write_text(aux, "stale");
    write_text(trv_outset_add(set, final2), "x,y\n");
    assert_int_equal(trv_outset_commit(ctx, set), TRV_OK);
    trv_outset_free(set);
    assert_true(exists(out, "x.tif"));
    assert_true(exists(out, "x.tif.aux.xml"));
    assert_true(exists(out, "y.csv"));
    assert_false(exists(out, "y.csv.aux.xml"));
    assert_int_equal(count_entries(out), 3);

    /* an output that was never written is a bug, reported, and nothing moves */
    set = trv_outset_new();
    snprintf(final, sizeof final, "%s/never.tif", out);
    trv_outset_add(set, final);
    assert_int_equal(trv_outset_commit(ctx, set), TRV_ERR_INTERNAL);
    trv_outset_free(set);
    assert_false(exists(out, "never.tif"));

    /* a file where a directory should be */
    set = trv_outset_new();
    snprintf(final, sizeof final, "%s/x.tif/sub", out);
    assert_int_equal(trv_outset_mkdir(ctx, set, final), TRV_ERR_IO);
    assert_contains(trv_errmsg(ctx), "is not a directory");
    trv_outset_free(set);
    trv_outset_free(NULL);

    /* a directory where an output goes: the commit fails before any rename */
    set = trv_outset_new();
    snprintf(final, sizeof final, "%s/first.csv", out);
    write_text(trv_outset_add(set, final), "1\n");
    snprintf(final2, sizeof final2, "%s/d", out);
    assert_int_equal(mkdir(final2, 0777), 0);
    write_text(trv_outset_add(set, final2), "2\n");
    assert_int_equal(trv_outset_commit(ctx, set), TRV_ERR_IO);
    assert_contains(trv_errmsg(ctx), "a directory is in the way");
    trv_outset_free(set);
    assert_false(exists(out, "first.csv"));
    assert_int_equal(count_entries(out), 4); /* x.tif, its sidecar, y.csv, d */
    trv_ctx_free(ctx);
    rm_rf(dir);
    free(dir);
}

/* A pid that no longer exists: a child that exited and was reaped. */
static pid_t dead_pid(void)
{
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0)
        _exit(0);
    assert_int_equal(waitpid(pid, NULL, 0), pid);
    return pid;
}

/* The output set refuses a final path given twice (also spelt otherwise)
 * before any rename and leaves nothing; a commit removes the temporaries
 * of dead processes for its own names only. */
/* trv_fixed against printf itself: exact ties of the binary value (which
 * printf rounds to even), values just off a tie, negatives that round to
 * -0, huge and non-finite values (printf's own text), and a million
 * seeded values of the magnitudes the point cloud writes and beyond
 * (1e11 x 10^3: products whose rounding error the fma must correct). */
static void test_fixed(void **state)
{
    (void)state;
    static const double special[] = {0.0005, 0.0015, 1.0625, 2.5, -2.5, 0.125, -0.0004, -0.0, 0.0, 1e15, -3e17,
                                     123456.78949999999, 9.9995, 0.9999999, 1e-300, 4503599627370497.0};
    char a[64], b[64];
    for (size_t k = 0; k < sizeof special / sizeof special[0]; k++)
        for (int d = 0; d <= 9; d++) {
            *trv_fixed(a, special[k], d) = 0;
            snprintf(b, sizeof b, "%.*f", d, special[k]);
            assert_string_equal(a, b);
        }
    const double nonfinite[] = {NAN, INFINITY, -INFINITY};
    for (int k = 0; k < 3; k++) {
        *trv_fixed(a, nonfinite[k], 3) = 0;
        snprintf(b, sizeof b, "%.3f", nonfinite[k]);
        assert_string_equal(a, b);
    }
    trv_rng rng;
    trv_rng_seed(&rng, 42);
    for (int k = 0; k < 1000000; k++) {
        double v = (trv_rng_uniform(&rng) - 0.3) * (k % 4 == 0 ? 4e6 : k % 4 == 1 ? 3000 : k % 4 == 2 ? 90 : 1e11);
        if (k % 7 == 0)
            v = (float)v; /* the layers are Float32 */
        int d = 3 + k % 2;
        *trv_fixed(a, v, d) = 0;
        snprintf(b, sizeof b, "%.*f", d, v);
        assert_string_equal(a, b);
    }
    for (unsigned v = 0; v < 300; v++) {
        *trv_uint(a, v) = 0;
        snprintf(b, sizeof b, "%u", v);
        assert_string_equal(a, b);
    }
}

/* A writer's failure on a temporary is reported under the final name:
 * every occurrence replaced, other text kept. */
static void test_outset_explain(void **state)
{
    (void)state;
    trv_ctx *ctx = trv_ctx_new();
    trv_outset *set = trv_outset_new();
    const char *t1 = trv_outset_add(set, "/d/x.tif"), *t2 = trv_outset_add(set, "/d/long_name.csv");
    char want[512];
    trv_error(ctx, TRV_ERR_IO, "cannot write '%s': No space left on device ('%s', then '%s')", t1, t1, t2);
    trv_outset_explain(ctx, set);
    snprintf(want, sizeof want, "cannot write '/d/x.tif': No space left on device ('/d/x.tif', then '/d/long_name.csv')");
    assert_string_equal(trv_errmsg(ctx), want);
    trv_error(ctx, TRV_ERR_IO, "nothing to do with it");
    trv_outset_explain(ctx, set);
    assert_string_equal(trv_errmsg(ctx), "nothing to do with it");
    trv_outset_free(set);
    trv_ctx_free(ctx);
}

static void test_outset_twice_and_stale(void **state)
{
    (void)state;
    char *dir = make_tmpdir();
    trv_ctx *ctx = trv_ctx_new();
    char a[1400], b[700], name[64];
    snprintf(a, sizeof a, "%s/x.tif", dir);
    snprintf(b, sizeof b, "%s/./x.tif", dir);
    trv_outset *set = trv_outset_new();
    write_text(trv_outset_add(set, a), "first");
    write_text(trv_outset_add(set, b), "second");
    assert_int_equal(trv_outset_commit(ctx, set), TRV_ERR_USAGE);
    assert_contains(trv_errmsg(ctx), "is given twice");
    trv_outset_free(set);
    assert_int_equal(count_entries(dir), 0);

    /* stale: a dead pid's temporary of x.tif with its GeoPackage-style and
     * GDAL sidecars goes; a live process's (pid 1: init), another name's,
     * another extension's and a non-number's stay */
    long dead = (long)dead_pid();
    const char *go[] = {".x.tmp%ld.tif", ".x.tmp%ld.tif-journal", ".x.tmp%ld.tif-wal", ".x.tmp%ld.tif.aux.xml"};
    const char *stay[] = {".x.tmp1.tif", ".xy.tmp%ld.tif", ".x.tmp%ld.png", ".x.tmp%ldz.tif", "x.tmp%ld.tif"};
    for (int i = 0; i < 4; i++) {
        snprintf(name, sizeof name, go[i], dead);
        snprintf(a, sizeof a, "%s/%s", dir, name);
        write_text(a, "stale");
    }
    for (int i = 0; i < 5; i++) {
        snprintf(name, sizeof name, stay[i], dead);
        snprintf(a, sizeof a, "%s/%s", dir, name);
        write_text(a, "keep");
    }
    assert_int_equal(count_entries(dir), 9);
    set = trv_outset_new();
    snprintf(a, sizeof a, "%s/x.tif", dir);
    write_text(trv_outset_add(set, a), "new");
    assert_int_equal(trv_outset_commit(ctx, set), TRV_OK);
    trv_outset_free(set);
    assert_true(exists(dir, "x.tif"));
    for (int i = 0; i < 4; i++) {
        snprintf(name, sizeof name, go[i], dead);
        assert_false(exists(dir, name));
    }
    for (int i = 0; i < 5; i++) {
        snprintf(name, sizeof name, stay[i], dead);
        assert_true(exists(dir, name));
    }
    trv_ctx_free(ctx);
    rm_rf(dir);
    free(dir);
}

/* Outputs against outputs and inputs: by inode (a hard link), by resolved
 * path for files not yet there, NULL entries skipped. */
/* The outputs' destinations, before any work: a file in the way of the
 * directory is named; missing directories under a writable one pass (a
 * tool that makes directories makes them); "." for a bare name. */
static void test_outputs_destination(void **state)
{
    (void)state;
    char *dir = make_tmpdir();
    trv_ctx *ctx = trv_ctx_new();
    char file[700], under[720], deep[760], want[1600];
    snprintf(file, sizeof file, "%s/plain", dir);
    write_text(file, "x");
    snprintf(under, sizeof under, "%s/x.tif", file);
    const char *o1[1] = {under};
    assert_int_equal(trv_outputs_check(ctx, o1, 1, NULL, 0), TRV_ERR_IO);
    snprintf(want, sizeof want, "cannot write '%s': '%s' is not a directory", under, file);
    assert_string_equal(trv_errmsg(ctx), want);
    snprintf(deep, sizeof deep, "%s/new/x.tif", file); /* climbs past the missing folder to the file */
    const char *o3[1] = {deep};
    assert_int_equal(trv_outputs_check(ctx, o3, 1, NULL, 0), TRV_ERR_IO);
    snprintf(want, sizeof want, "cannot write '%s': '%s' is not a directory", deep, file);
    assert_string_equal(trv_errmsg(ctx), want);
    snprintf(deep, sizeof deep, "%s/new/deeper/x.tif", dir);
    const char *o2[2] = {deep, "bare.tif"};
    assert_int_equal(trv_outputs_check(ctx, o2, 2, NULL, 0), TRV_OK);
    unlink(file);
    rmdir(dir);
    free(dir);
    trv_ctx_free(ctx);
}

/* Files whose folder the tool does not make: a missing folder is named
 * (the path up to the last '/'; "/" and "." for a file at the root and a
 * bare name); existing folders and NULL entries pass. */
static void test_output_folders(void **state)
{
    (void)state;
    char *dir = make_tmpdir();
    trv_ctx *ctx = trv_ctx_new();
    char deep[760], here[720], want[1600];
    snprintf(deep, sizeof deep, "%s/new/x.tif", dir);
    snprintf(here, sizeof here, "%s/x.tif", dir);
    const char *ok[4] = {here, NULL, "bare.tif", "/x.tif"};
    assert_int_equal(trv_output_folders_check(ctx, ok, 4), TRV_OK);
    const char *bad[3] = {here, NULL, deep};
    assert_int_equal(trv_output_folders_check(ctx, bad, 3), TRV_ERR_IO);
    snprintf(want, sizeof want, "cannot write '%s': the folder '%s/new' does not exist", deep, dir);
    assert_string_equal(trv_errmsg(ctx), want);
    const char *paths[5][2] = {{"a/b/c.tif", "a/b"}, {"c.tif", "."}, {"/c.tif", "/"}, {"a/b/", "a/b"}, {"", "."}};
    for (int k = 0; k < 5; k++) { /* the folder a path's file goes into, as the checks name it */
        char *f = trv_path_folder(paths[k][0]);
        assert_non_null(f);
        assert_string_equal(f, paths[k][1]);
        free(f);
    }
    const char *rel[1] = {"no-such-folder-here/x.tif"};
    assert_int_equal(trv_output_folders_check(ctx, rel, 1), TRV_ERR_IO);
    assert_string_equal(trv_errmsg(ctx),
                        "cannot write 'no-such-folder-here/x.tif': the folder 'no-such-folder-here' does not exist");
    rmdir(dir);
    free(dir);
    trv_ctx_free(ctx);
}

static void test_outputs_check(void **state)
{
    (void)state;
    char *dir = make_tmpdir();
    trv_ctx *ctx = trv_ctx_new();
    char in[700], link_[700], other[700], new1[700], new2[700], sub[700];
    snprintf(in, sizeof in, "%s/in.tif", dir);
    snprintf(link_, sizeof link_, "%s/link.tif", dir);
    snprintf(other, sizeof other, "%s/other.tif", dir);
    snprintf(new1, sizeof new1, "%s/new.tif", dir);
    snprintf(sub, sizeof sub, "%s/sub", dir);
    snprintf(new2, sizeof new2, "%s/sub/../new.tif", dir);
    write_text(in, "dem");
    write_text(other, "dem"); /* the same bytes, another file */
    assert_int_equal(link(in, link_), 0);
    assert_int_equal(mkdir(sub, 0777), 0);
    const char *ins[3] = {NULL, in, NULL};

    const char *ok1[3] = {new1, NULL, other};
    assert_int_equal(trv_outputs_check(ctx, ok1, 3, ins, 3), TRV_OK);
    assert_int_equal(trv_outputs_check(ctx, NULL, 0, ins, 3), TRV_OK);

    const char *same[2] = {new1, in};
    assert_int_equal(trv_outputs_check(ctx, same, 2, ins, 3), TRV_ERR_USAGE);
    char want[800];
    snprintf(want, sizeof want, "output '%s' is also an input", in);
    assert_string_equal(trv_errmsg(ctx), want);

    const char *hard[1] = {link_};
    assert_int_equal(trv_outputs_check(ctx, hard, 1, ins, 3), TRV_ERR_USAGE);
    assert_contains(trv_errmsg(ctx), "link.tif' is also an input");

    const char *twice[3] = {new1, NULL, new2};
    assert_int_equal(trv_outputs_check(ctx, twice, 3, NULL, 0), TRV_ERR_USAGE);
    assert_contains(trv_errmsg(ctx), "sub/../new.tif' is given twice");

    const char *existing_twice[2] = {other, link_};
    assert_int_equal(trv_outputs_check(ctx, existing_twice, 2, NULL, 0), TRV_OK);
    const char *linked_twice[2] = {in, link_};
    assert_int_equal(trv_outputs_check(ctx, linked_twice, 2, NULL, 0), TRV_ERR_USAGE);
    trv_ctx_free(ctx);
    rm_rf(dir);
    free(dir);
}

static void test_meta_and_paths(void **state)
{
    (void)state;
    trv_meta m;
    const char *argv[] = {"./bin/trv-terrain", "--dem", "my dem.tif", "-o", "out/x", "it's"};
    trv_meta_init(&m, "trv-terrain", 6, (char **)argv);
    assert_string_equal(m.tool, "trv-terrain");
    assert_string_equal(m.args, "trv-terrain --dem 'my dem.tif' -o out/x 'it'\\''s'");
    assert_false(m.has_seed);
    char *p = trv_path_join("out/", "dem.tif");
    assert_string_equal(p, "out/dem.tif");
    free(p);
    p = trv_path_join("out", "dem.tif");
    assert_string_equal(p, "out/dem.tif");
    free(p);
    trv_ctx *ctx = trv_ctx_new();
    setenv("TRV_DATADIR", "/nonexistent", 1);
    assert_null(trv_data_path(ctx, "classes/none.csv"));
    assert_contains(trv_errmsg(ctx), "cannot find data file 'classes/none.csv'");
    trv_ctx_free(ctx);
}

/* ---- added for make mutants (docs/testing.md) ---- */

/* An inline comment starts only at '#' or ';' after whitespace: the
 * characters inside a value are kept (the comment rule in src/core/ini.c). */
static void test_ini_comment_chars_in_value(void **state)
{
    (void)state;
    char *dir = make_tmpdir();
    trv_ctx *ctx = trv_ctx_new();
    char *p = write_file(dir, "v.ini", "[vehicle]\nname = UGV#2;b ; comment\ngross_mass_kg = 1242 # kg\n");
    veh v;
    assert_int_equal(bind_vehicle(ctx, p, &v), TRV_OK);
    assert_string_equal(v.name, "UGV#2;b");
    assert_float_equal(v.mass, 1242, 0);
    free(v.name);
    free(p);
    trv_ctx_free(ctx);
    rm_rf(dir);
    free(dir);
}

/* The generator is the one trv.h names, checked against published values,
 * not against its own output: splitmix64 from seed 1234567 gives
 * 6457827717110365317, 3203168211198807973, 9817491932198370423,
 * 4593380528125082431 (the Rosetta Code task "Pseudo-random
 * numbers/Splitmix64"), which trv_rng_seed must put in the state; from the
 * state {1, 2, 3, 4} xoshiro256** gives the ten values below (Blackman and
 * Vigna's reference xoshiro256starstar.c, as the rand_xoshiro crate's
 * reference test lists them). The uniform draw is the top 53 bits times
 * 2^-53, written out here from those values. */
static void test_rng_reference(void **state)
{
    (void)state;
    static const uint64_t split[4] = {6457827717110365317ull, 3203168211198807973ull, 9817491932198370423ull,
                                      4593380528125082431ull};
    static const uint64_t xo[10] = {11520ull,
                                    0ull,
                                    1509978240ull,
                                    1215971899390074240ull,
                                    1216172134540287360ull,
                                    607988272756665600ull,
                                    16172922978634559625ull,
                                    8476171486693032832ull,
                                    10595114339597558777ull,
                                    2904607092377533576ull};
    trv_rng r;
    trv_rng_seed(&r, 1234567);
    for (int i = 0; i < 4; i++)
        assert_true(r.s[i] == split[i]);
    r = (trv_rng){{1, 2, 3, 4}};
    for (int i = 0; i < 10; i++)
        assert_true(trv_rng_next(&r) == xo[i]);
    r = (trv_rng){{1, 2, 3, 4}};
    for (int i = 0; i < 10; i++) {
        double u = trv_rng_uniform(&r);
        assert_true(u == (double)(xo[i] >> 11) / 9007199254740992.0); /* 2^53 */
        assert_true(u >= 0 && u < 1);
    }
}

/* The skip against stepping (n draws by trv_rng_next, 0 to 3, the powers
 * of 2 round 64, 10^6 + 12 345 from a seeded state), and skips composed:
 * a then b is a + b for large a and b (2^40 twice is 2^41). */
static void test_rng_skip(void **state)
{
    (void)state;
    static const uint64_t ns[] = {0, 1, 2, 3, 63, 64, 65, 127, 128, 1000, 1000000 + 12345};
    for (size_t k = 0; k < sizeof ns / sizeof *ns; k++) {
        trv_rng a, b;
        trv_rng_seed(&a, 99 + k);
        b = a;
        for (uint64_t i = 0; i < ns[k]; i++)
            trv_rng_next(&a);
        trv_rng_skip(&b, ns[k]);
        assert_memory_equal(a.s, b.s, sizeof a.s);
        assert_true(trv_rng_next(&a) == trv_rng_next(&b));
    }
    static const uint64_t ab[][2] = {{(uint64_t)1 << 40, (uint64_t)1 << 40}, {0x123456789abcdull, 0xfedcba987654ull},
                                     {((uint64_t)1 << 63) - 1, 1}};
    for (size_t k = 0; k < sizeof ab / sizeof *ab; k++) {
        trv_rng a, b;
        trv_rng_seed(&a, 7);
        b = a;
        trv_rng_skip(&a, ab[k][0]);
        trv_rng_skip(&a, ab[k][1]);
        trv_rng_skip(&b, ab[k][0] + ab[k][1]);
        assert_memory_equal(a.s, b.s, sizeof a.s);
    }
}

/* ---- the shared heap, bucket index and clip (heap.h, bucket.h, clip.h) ---- */

static int cmp_item(const void *a, const void *b)
{
    const trv_heap_item *p = a, *q = b;
    if (p->key != q->key)
        return p->key < q->key ? -1 : 1;
    if (p->tie != q->tie)
        return p->tie > q->tie ? -1 : 1;
    return (p->id > q->id) - (p->id < q->id);
}

/* Lazy mode pops every pushed item in (key up, tie down, id up) order, as
 * qsort of the same items gives; decrease-key mode pops each id once, with
 * its last (lowest) key, in that order, and marks it popped. Keys and ties
 * from small sets, so that ties at every level occur. */
static void test_heap_order(void **state)
{
    (void)state;
    enum { N = 3000, IDS = 500 };
    trv_rng r;
    trv_rng_seed(&r, 7);
    trv_heap h = {0};
    static trv_heap_item in[N]; /* what the heap holds, in no order */
    size_t n = 0;
    for (int i = 0; i < 2 * N; i++) {
        if (i % 3 == 2 || i >= N) { /* interleaved pops, then the rest */
            if (n == 0)
                continue;
            size_t least = 0;
            for (size_t j = 1; j < n; j++)
                if (cmp_item(&in[j], &in[least]) < 0)
                    least = j;
            trv_heap_item top = trv_heap_pop(&h);
            assert_int_equal(cmp_item(&top, &in[least]), 0);
            in[least] = in[--n];
            assert_int_equal(h.n, n);
            continue;
        }
        in[n] = (trv_heap_item){(double)trv_rng_below(&r, 20), (double)trv_rng_below(&r, 3),
                                (int32_t)trv_rng_below(&r, IDS)};
        assert_int_equal(trv_heap_push(&h, in[n].id, in[n].key, in[n].tie), 0);
        n++;
    }
    assert_int_equal(h.n, 0);
    trv_heap_free(&h);

    /* decrease-key */
    int32_t pos[IDS];
    static trv_heap_item last[IDS];
    for (int i = 0; i < IDS; i++) {
        pos[i] = TRV_HEAP_UNSEEN;
        last[i] = (trv_heap_item){INFINITY, 0, i};
    }
    trv_heap d = {.pos = pos};
    for (int i = 0; i < 4 * IDS; i++) {
        int32_t id = (int32_t)trv_rng_below(&r, IDS);
        double key = (double)trv_rng_below(&r, 40), tie = (double)trv_rng_below(&r, 3);
        trv_heap_item e = {key, tie, id};
        if (cmp_item(&e, &last[id]) >= 0)
            continue; /* only decreases are allowed */
        last[id] = e;
        assert_int_equal(trv_heap_push(&d, id, key, tie), 0);
        assert_true(pos[id] >= 0 && d.e[pos[id]].id == id);
    }
    int seen = 0;
    for (int i = 0; i < IDS; i++)
        seen += isfinite(last[i].key);
    assert_int_equal(d.n, seen);
    qsort(last, IDS, sizeof *last, cmp_item);
    for (int i = 0; i < seen; i++) {
        trv_heap_item top = trv_heap_pop(&d);
        assert_int_equal(cmp_item(&top, &last[i]), 0);
        assert_int_equal(pos[top.id], TRV_HEAP_POPPED);
    }
    trv_heap_free(&d);
}

typedef struct near_ref {
    double d2;
    long i;
    int later_first;
} near_ref;

static int cmp_near_ref(const void *a, const void *b)
{
    const near_ref *p = a, *q = b;
    if (p->d2 != q->d2)
        return p->d2 < q->d2 ? -1 : 1;
    return p->later_first ? (p->i < q->i) - (p->i > q->i) : (p->i > q->i) - (p->i < q->i);
}

/* The k nearest against sorting every point by (d^2, index): points on a
 * lattice (many equal distances) and at random, queries inside and off the
 * box, with and without maxdist and skip, in both tie orders. */
static void test_bucket_nearest(void **state)
{
    (void)state;
    enum { N = 400, K = 12 };
    static double x[N], y[N];
    static near_ref all[N];
    trv_rng r;
    trv_rng_seed(&r, 11);
    for (int i = 0; i < N; i++) {
        if (i < N / 2) {
            x[i] = (double)(i % 10) * 5;
            y[i] = (double)(i / 10) * 5 + (i % 2) * 0.5;
        } else {
            x[i] = 60 * trv_rng_uniform(&r) - 5;
            y[i] = 120 * trv_rng_uniform(&r);
        }
    }
    for (int lf = 0; lf <= 1; lf++) {
        trv_bucket *b = trv_bucket_new(x, y, N, lf);
        assert_non_null(b);
        size_t total = 0, nb = trv_bucket_count(b);
        for (size_t k = 0; k < nb; k++) {
            size_t m;
            const long *it = trv_bucket_items(b, k, &m);
            for (size_t j = 1; j < m; j++)
                assert_true(it[j - 1] < it[j]);
            total += m;
        }
        assert_int_equal(total, N);
        for (int q = 0; q < 300; q++) {
            double qx = q % 3 == 0 ? (double)(q % 11) * 5 : 100 * trv_rng_uniform(&r) - 20;
            double qy = q % 3 == 0 ? (double)(q % 23) * 5 : 160 * trv_rng_uniform(&r) - 20;
            double maxd = q % 4 == 1 ? 7.5 : INFINITY;
            long skip = q % 5 == 2 ? (long)trv_rng_below(&r, N) : -1;
            int k = 1 + q % K, n = 0;
            for (int i = 0; i < N; i++) {
                double dx = x[i] - qx, dy = y[i] - qy, dd = dx * dx + dy * dy;
                if (i != skip && !(dd > maxd * maxd))
                    all[n++] = (near_ref){dd, i, lf};
            }
            qsort(all, (size_t)n, sizeof *all, cmp_near_ref);
            long idx[K];
            double d2[K];
            int got = trv_bucket_nearest(b, qx, qy, k, maxd, skip, idx, d2);
            assert_int_equal(got, n < k ? n : k);
            for (int j = 0; j < got; j++) {
                assert_int_equal(idx[j], all[j].i);
                assert_true(d2[j] == all[j].d2);
            }
        }
        trv_bucket_free(b);
    }
}

/* Hand-worked clips of the unit box, then random segments against dense
 * sampling: every sample inside lies within [t0, t1], and the ends of
 * [t0, t1] are inside (to rounding). */
static void test_clip_segment(void **state)
{
    (void)state;
    double t0, t1;
    assert_int_equal(trv_clip_segment(-1, 0.5, 2, 0.5, 0, 0, 1, 1, &t0, &t1), 1);
    assert_true(fabs(t0 - 1.0 / 3) < 1e-15);
    assert_true(fabs(t1 - 2.0 / 3) < 1e-15);
    assert_int_equal(trv_clip_segment(0.25, 0.25, 0.75, 0.5, 0, 0, 1, 1, &t0, &t1), 1); /* inside */
    assert_true(t0 == 0 && t1 == 1);
    assert_int_equal(trv_clip_segment(-1, 2, 2, 2, 0, 0, 1, 1, &t0, &t1), 0);  /* parallel, above */
    assert_int_equal(trv_clip_segment(-1, 1, 1, 3, 0, 0, 1, 1, &t0, &t1), 0);  /* passes the corner's outside */
    assert_int_equal(trv_clip_segment(0, 2, 2, 0, 0, 0, 1, 1, &t0, &t1), 1);   /* touches the corner (1, 1) */
    assert_true(t0 == 0.5 && t1 == 0.5);
    assert_int_equal(trv_clip_segment(1, 1, 1, 1, 0, 0, 1, 1, &t0, &t1), 1);   /* a point on the edge */
    assert_int_equal(trv_clip_segment(2, 2, 2, 2, 0, 0, 1, 1, &t0, &t1), 0);   /* a point outside */
    trv_rng r;
    trv_rng_seed(&r, 5);
    for (int s = 0; s < 2000; s++) {
        double p[4];
        for (int j = 0; j < 4; j++)
            p[j] = 6 * trv_rng_uniform(&r) - 2;
        const double bx0 = -0.5, by0 = 0.25, bx1 = 2.5, by1 = 3;
        int hit = trv_clip_segment(p[0], p[1], p[2], p[3], bx0, by0, bx1, by1, &t0, &t1);
        int any = 0;
        for (int i = 0; i <= 1000; i++) {
            double t = i / 1000.0, x = p[0] + t * (p[2] - p[0]), y = p[1] + t * (p[3] - p[1]);
            if (x >= bx0 && x <= bx1 && y >= by0 && y <= by1) {
                any = 1;
                assert_true(hit && t >= t0 - 1e-12 && t <= t1 + 1e-12);
            }
        }
        if (any)
            assert_int_equal(hit, 1);
        if (hit) {
            assert_true(0 <= t0 && t0 <= t1 && t1 <= 1);
            for (int e = 0; e < 2; e++) {
                double t = e ? t1 : t0, x = p[0] + t * (p[2] - p[0]), y = p[1] + t * (p[3] - p[1]);
                assert_true(x >= bx0 - 1e-9 && x <= bx1 + 1e-9 && y >= by0 - 1e-9 && y <= by1 + 1e-9);
            }
        }
    }
}

/* One line per cell of an nx x ny grid ("r,c" then as many '#' as
 * (r * 7 + c) % 5: lines of unequal lengths), written by tiles of tw x th
 * through trv_rowtext (tiles row-major, rows of a tile in order) into out. */
static void rowtext_write(FILE *out, int nx, int ny, int tw, int th, trv_ctx *ctx)
{
    int ntx = (nx + tw - 1) / tw;
    trv_rowtext *rt = NULL;
    assert_int_equal(trv_rowtext_open(ctx, out, "points.csv", ntx, th, &rt), TRV_OK);
    for (int y0 = 0; y0 < ny; y0 += th)
        for (int tx = 0; tx < ntx; tx++) {
            int x0 = tx * tw, w = nx - x0 < tw ? nx - x0 : tw, h = ny - y0 < th ? ny - y0 : th;
            for (int r = 0; r < h; r++) {
                FILE *f = trv_rowtext_row(rt, tx, r);
                assert_true(ntx > 1 ? f != out : f == out); /* one tile across: straight out */
                for (int c = x0; c < x0 + w; c++)
                    fprintf(f, "%d,%d%.*s\n", y0 + r, c, ((y0 + r) * 7 + c) % 5, "####");
            }
            assert_int_equal(trv_rowtext_tile_end(ctx, rt, tx, h), TRV_OK);
        }
    trv_rowtext_close(rt);
}

/* trv_rowtext: the lines in row order (each row's tiles' pieces in column
 * order) for any tiling, clipped last rows and columns of tiles included,
 * the same bytes as writing the grid row by row; no scratch file left. */
static void test_rowtext(void **state)
{
    (void)state;
    char *dir = make_tmpdir();
    setenv("TMPDIR", dir, 1);
    trv_ctx *ctx = trv_ctx_new();
    static const int tiles[][2] = {{13, 9}, {1, 1}, {5, 4}, {4, 5}, {13, 1}, {1, 9}, {6, 20}, {20, 20}};
    char *want = NULL, *got = NULL;
    size_t nwant = 0, ngot = 0;
    FILE *f = open_memstream(&want, &nwant);
    for (int r = 0; r < 9; r++)
        for (int c = 0; c < 13; c++)
            fprintf(f, "%d,%d%.*s\n", r, c, (r * 7 + c) % 5, "####");
    fclose(f);
    for (size_t k = 0; k < sizeof tiles / sizeof tiles[0]; k++) {
        f = open_memstream(&got, &ngot);
        rowtext_write(f, 13, 9, tiles[k][0], tiles[k][1], ctx);
        fclose(f);
        if (ngot != nwant || memcmp(got, want, nwant) != 0)
            fail_msg("tiles %d x %d: the lines out of row order", tiles[k][0], tiles[k][1]);
        free(got);
        assert_int_equal(count_entries(dir), 0);
    }
    setenv("TMPDIR", "/nonexistent-trv-dir", 1); /* no scratch file: the folder named */
    trv_rowtext *rt = NULL;
    assert_int_equal(trv_rowtext_open(ctx, stdout, "points.csv", 2, 4, &rt), TRV_ERR_IO);
    assert_contains(trv_errmsg(ctx), "cannot make a scratch file for 'points.csv' in '/nonexistent-trv-dir'");
    trv_rowtext_close(rt);
    assert_int_equal(trv_rowtext_open(ctx, stdout, "points.csv", 1, 4, &rt), TRV_OK); /* none needed */
    trv_rowtext_close(rt);
    unsetenv("TMPDIR");
    free(want);
    trv_ctx_free(ctx);
    rm_rf(dir);
    free(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_status_strings), cmocka_unit_test(test_ctx_errors_progress),
        cmocka_unit_test(test_term_progress), cmocka_unit_test(test_cli), cmocka_unit_test(test_cli_version),
        cmocka_unit_test(test_ini),            cmocka_unit_test(test_csv),                 cmocka_unit_test(test_outset),
        cmocka_unit_test(test_outset_twice_and_stale), cmocka_unit_test(test_outset_explain), cmocka_unit_test(test_fixed),
        cmocka_unit_test(test_output_folders),
        cmocka_unit_test(test_outputs_check), cmocka_unit_test(test_outputs_destination), cmocka_unit_test(test_json),
        cmocka_unit_test(test_meta_and_paths),
        cmocka_unit_test(test_ini_comment_chars_in_value), cmocka_unit_test(test_rng_reference), cmocka_unit_test(test_rng_skip),
        cmocka_unit_test(test_heap_order), cmocka_unit_test(test_bucket_nearest), cmocka_unit_test(test_clip_segment),
        cmocka_unit_test(test_rowtext),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
