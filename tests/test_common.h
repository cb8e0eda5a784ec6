/* Shared helpers for the cmocka test programs. */
#ifndef TEST_COMMON_H
#define TEST_COMMON_H

#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>
#include <gdal.h>
#include <math.h>

#include "core/trv.h"
#include "geo/geo.h"

/* Write text to dir/name; returns the malloc'ed path. */
static inline char *write_file(const char *dir, const char *name, const char *text)
{
    char *p = NULL;
    if (asprintf(&p, "%s/%s", dir, name) < 0)
        return NULL;
    FILE *f = fopen(p, "w");
    if (f) {
        fputs(text, f);
        fclose(f);
    }
    return p;
}

/* A fresh temporary directory (removed by rm_rf). */
static inline char *make_tmpdir(void)
{
    char *d = strdup("/tmp/trv-test-XXXXXX");
    return d && mkdtemp(d) ? d : NULL;
}

static inline void rm_rf(const char *dir)
{
    char *cmd = NULL;
    if (asprintf(&cmd, "rm -rf '%s'", dir) >= 0 && system(cmd) != 0)
        fprintf(stderr, "warning: cannot remove %s\n", dir);
    free(cmd);
}

/* Path of a file under $VAR, or under FALLBACK (relative to the
 * repository, where make test runs) when VAR is unset. */
static inline char *env_path(const char *var, const char *fallback, const char *rel)
{
    const char *base = getenv(var);
    char *p = NULL;
    if (asprintf(&p, "%s/%s", base ? base : fallback, rel) < 0)
        return NULL;
    return p;
}

/* A bundled data file (data/, TRV_DATADIR) and an independent reference
 * result (tests/data/, TRV_TESTDATA; provenance in tests/data/README.md). */
static inline char *data_path(const char *rel) { return env_path("TRV_DATADIR", "data", rel); }
static inline char *testdata_path(const char *rel) { return env_path("TRV_TESTDATA", "tests/data", rel); }

/* Checks that cannot run here. Each prints one "SKIPPED: WHY" line on
 * stdout, which tests/run.sh counts as a skipped check (cmocka's own
 * summary counts tests, and does not see a check skipped inside a test that
 * goes on). PKG is the Debian package whose absence stops the check (NULL
 * if none would help): under CI (CI=true) a package that make test installs
 * itself (the Makefile's TEST_PKGS, passed as TRV_TEST_PKGS) must be there,
 * so its absence fails the test instead.
 *   skip_check(PKG, WHY)  one check inside a test; the test goes on
 *   skip_test(PKG, WHY)   the whole test (cmocka's skip(): not counted passed) */
static inline int have_command(const char *name)
{
    char *cmd = NULL;
    int found = asprintf(&cmd, "command -v '%s' >/dev/null 2>&1", name) > 0 && system(cmd) == 0;
    free(cmd);
    return found;
}

static inline int installed_by_make_test(const char *pkg)
{
    const char *list = getenv("TRV_TEST_PKGS");
    size_t n = strlen(pkg);
    for (const char *s = list ? list : ""; *s;) {
        s += strspn(s, " \t");
        size_t w = strcspn(s, " \t");
        if (w == n && !strncmp(s, pkg, n))
            return 1;
        s += w;
    }
    return 0;
}

/* 1 (and the message on stderr) when the skip is a failure, else 0 after
 * the SKIPPED line */
static inline int skip_note(const char *pkg, const char *why)
{
    const char *ci = getenv("CI");
    if (pkg && ci && !strcmp(ci, "true") && installed_by_make_test(pkg)) {
        fprintf(stderr, "%s (CI=true: the make target running this installs %s, so its absence is a failure)\n", why, pkg);
        return 1;
    }
    printf("SKIPPED: %s\n", why);
    fflush(stdout);
    return 0;
}

#define skip_check(pkg, why)                                                                                 \
    do {                                                                                                     \
        if (skip_note((pkg), (why)))                                                                         \
            fail();                                                                                          \
    } while (0)

#define skip_test(pkg, why)                                                                                  \
    do {                                                                                                     \
        skip_check((pkg), (why));                                                                            \
        skip();                                                                                              \
    } while (0)

#define assert_contains(haystack, needle)                                                                   \
    do {                                                                                                     \
        if (!strstr((haystack), (needle)))                                                                   \
            fail_msg("'%s' does not contain '%s'", (haystack), (needle));                                    \
    } while (0)


/* A CSV of test data read whole (path p freed); the test fails with the
 * reader's message when it cannot be read. */
static inline trv_csv *test_csv_load(char *p)
{
    trv_ctx *ctx = trv_ctx_new();
    trv_csv *c = NULL;
    if (trv_csv_read(ctx, p, &c) != TRV_OK)
        fail_msg("%s", trv_errmsg(ctx));
    free(p);
    trv_ctx_free(ctx);
    return c;
}

/* Row r's number in column col (which must exist). */
static inline double test_csv_num(const trv_csv *c, size_t r, const char *col)
{
    double v = NAN;
    trv_ctx *ctx = trv_ctx_new();
    int k = trv_csv_col(c, col);
    assert_true(k >= 0);
    assert_int_equal(trv_csv_double(ctx, c, r, k, &v), TRV_OK);
    trv_ctx_free(ctx);
    return v;
}

/* The temporary directory of a test program, made by tmpdir_setup (the
 * cmocka group setup, which also initialises GDAL) and removed by
 * tmpdir_teardown (which also shuts GDAL down, so that the sanitizer's
 * leak check sees only what the tests left). */
static char *tmpdir;

static inline int tmpdir_setup(void **state)
{
    (void)state;
    geo_init();
    tmpdir = make_tmpdir();
    return tmpdir ? 0 : -1;
}

static inline int tmpdir_teardown(void **state)
{
    (void)state;
    rm_rf(tmpdir);
    free(tmpdir);
    GDALDestroy();
    return 0;
}

#endif
