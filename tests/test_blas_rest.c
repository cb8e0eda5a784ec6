/* krg_blas_rest (kriging/krige.h): OpenBLAS's worker threads, started when
 * the program loads, are gone after it; a BLAS call large enough for
 * threads starts them again and gives the product a plain triple loop
 * gives. */
#include "test_common.h"

#include <cblas.h>
#include <dirent.h>
#include <math.h>

#include "kriging/krige.h"

/* The threads of this process: the entries of /proc/self/task. */
static int threads_now(void)
{
    DIR *d = opendir("/proc/self/task");
    int n = 0;
    if (!d)
        return -1;
    for (struct dirent *e; (e = readdir(d));)
        n += e->d_name[0] != '.';
    closedir(d);
    return n;
}

static void test_rest_and_back(void **state)
{
    (void)state;
    int before = threads_now();
    assert_true(before >= 1);
    /* OpenBLAS starts one worker per further core unless told otherwise */
    int told = getenv("OPENBLAS_NUM_THREADS") || getenv("GOTO_NUM_THREADS") || getenv("OMP_NUM_THREADS");
    if (!told && sysconf(_SC_NPROCESSORS_ONLN) > 1)
        assert_true(before >= 2);
    krg_blas_rest();
    assert_int_equal(threads_now(), 1);
    krg_blas_rest(); /* twice: nothing left to stop */
    assert_int_equal(threads_now(), 1);

    enum { N = 384 };
    double *a = malloc(N * N * sizeof *a), *b = malloc(N * N * sizeof *b), *c = calloc(N * N, sizeof *c);
    assert_non_null(a);
    assert_non_null(b);
    assert_non_null(c);
    for (int i = 0; i < N * N; i++)
        a[i] = (double)(i % 17) - 8, b[i] = (double)(i % 13) * 0.5 - 3;
    cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, N, N, N, 1.0, a, N, b, N, 0.0, c, N);
    for (int i = 0; i < N; i += 37)
        for (int j = 0; j < N; j += 41) {
            double s = 0; /* integers and halves: every sum exact, in any order */
            for (int k = 0; k < N; k++)
                s += a[i * N + k] * b[k * N + j];
            assert_true(c[i * N + j] == s);
        }
    /* the workers are back, as many as before */
    assert_int_equal(threads_now(), before);
    free(a);
    free(b);
    free(c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rest_and_back),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
