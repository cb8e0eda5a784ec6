/* The simulation torus alone (src/kriging/sim_fft.c, docs/scale.md "The
 * simulation torus out of core"), for bench/torus.sh:
 *
 *   bench_torus N1 N2 MEM RANGE
 *
 * krg_ce_init of an exponential model (psill 1, range RANGE, dx = dy = 1)
 * on an N1 x N2 lattice with a budget of MEM bytes, one krg_ce_draw, then
 * every lattice row through krg_ce_window in blocks of 256 rows. Prints one
 * line: "torus M1 M2 DISK COLS; wall and CPU s of the init, the draw and
 * the rows; bytes read and written (rchar, wchar of /proc/self/io); the
 * fields' sum and mean square" (the last two equal for every budget: the
 * same bits). */
#include "kriging/krige.h"
#include "kriging/sim.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double clock_s(clockid_t id)
{
    struct timespec t;
    clock_gettime(id, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* rchar and wchar of this process. */
static void io_bytes(long long *r, long long *w)
{
    char key[32];
    long long v;
    *r = *w = -1;
    FILE *f = fopen("/proc/self/io", "r");
    while (f && fscanf(f, "%31s %lld", key, &v) == 2) {
        if (!strcmp(key, "rchar:"))
            *r = v;
        if (!strcmp(key, "wchar:"))
            *w = v;
    }
    if (f)
        fclose(f);
}

/* Every row of the drawn pair, 256 at a time: their sum and mean square. */
static int read_rows(trv_ctx *ctx, const krg_ce *ce, double *sum, double *msq)
{
    enum { B = 256 };
    int n1 = ce->n1, n2 = ce->n2;
    double *a = malloc((size_t)B * n1 * sizeof *a), *b = malloc((size_t)B * n1 * sizeof *b), s = 0, ss = 0;
    int st = !a || !b;
    for (int r = 0; r < n2 && !st; r += B) {
        int k = n2 - r < B ? n2 - r : B;
        st = krg_ce_window(ctx, ce, r, k, 0, ce->n1, a, b) != TRV_OK;
        for (size_t i = 0; !st && i < (size_t)k * n1; i++)
            s += a[i] + b[i], ss += a[i] * a[i] + b[i] * b[i];
    }
    free(a);
    free(b);
    *sum = s;
    *msq = ss / (2.0 * n1 * n2);
    return st;
}

int main(int argc, char **argv)
{
    if (argc != 5) {
        fprintf(stderr, "usage: bench_torus N1 N2 MEM RANGE\n");
        return 2;
    }
    int n1 = atoi(argv[1]), n2 = atoi(argv[2]);
    krg_model m = {KRG_EXP, 0, 1.0, atof(argv[4]), 0};
    trv_ctx *ctx = trv_ctx_new();
    trv_ctx_set_verbosity(ctx, 0);
    krg_ce ce;
    double t[4], c[4], sum = 0, msq = 0;
    t[0] = clock_s(CLOCK_MONOTONIC), c[0] = clock_s(CLOCK_PROCESS_CPUTIME_ID);
    int st = krg_ce_init(ctx, &ce, &m, n1, n2, 1, 1, strtoull(argv[3], NULL, 10)) != TRV_OK;
    t[1] = clock_s(CLOCK_MONOTONIC), c[1] = clock_s(CLOCK_PROCESS_CPUTIME_ID);
    st = st || krg_ce_draw(ctx, &ce, 42) != TRV_OK;
    t[2] = clock_s(CLOCK_MONOTONIC), c[2] = clock_s(CLOCK_PROCESS_CPUTIME_ID);
    st = st || read_rows(ctx, &ce, &sum, &msq);
    t[3] = clock_s(CLOCK_MONOTONIC), c[3] = clock_s(CLOCK_PROCESS_CPUTIME_ID);
    if (st) {
        fprintf(stderr, "bench_torus: %s\n", trv_errmsg(ctx));
        return 1;
    }
    long long r, w;
    io_bytes(&r, &w);
    printf("torus %d %d %d %d; init %.3f %.3f draw %.3f %.3f rows %.3f %.3f; io %lld %lld; sum %.17g %.17g\n", ce.m1,
           ce.m2, ce.disk, ce.cols, t[1] - t[0], c[1] - c[0], t[2] - t[1], c[2] - c[1], t[3] - t[2], c[3] - c[2], r, w,
           sum, msq);
    krg_ce_free(&ce);
    trv_ctx_free(ctx);
    return 0;
}
