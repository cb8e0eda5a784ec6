/* Driver for bench/hier.sh: the roadmap query flat and on the
 * hierarchical index (src/prm/hier*.c, docs/scale.md), terrain, roadmap
 * and index loaded once as trv-route loads them (prm_plan_load,
 * prm_hier_read).
 *   bench_hier DIR ROADMAP.gpkg N SEED [mdr|msr|time|mmcr]
 *       N seeded random pairs of GO cell centres (cells drawn uniformly
 *       over the grid until GO), each planned by prm_route_hier flat (no
 *       index) and on the index, mmcr with the admissible heuristic; per
 *       pair the CPU time of each (CLOCK_PROCESS_CPUTIME_ID, the faster of
 *       two runs), the roadmap edges and matrix entries each read (counted,
 *       prm_hier_stats) and the two search costs; prints one line per pair
 *       "pair ok cost_flat cost_hier cpu_flat cpu_hier edges_flat
 *       edges_hier matrix_hier" and a summary line "summary pairs routed
 *       equal median_cpu_flat median_cpu_hier median_edges_flat
 *       median_edges_hier median_matrix_hier nnodes nedges sizeof_edge
 *       ntiles border_nodes index_bytes build_cpu_s" (equal: costs within 1e-9
 *       relative; a failing pair must fail both ways with one message;
 *       build_cpu_s: prm_hier_build again in memory) */
#define _POSIX_C_SOURCE 200809L
#include "prm/hier.h"
#include "prm/prm.h"

#include <gdal.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

static double cpu_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n ? v[n / 2] : 0;
}

/* One query, the faster CPU time of two runs; st, cost, stats of the last. */
static trv_status query(trv_ctx *ctx, const prm_terrain *t, const prm_roadmap *r, const prm_hier *h,
                        const double xy[4], prm_strategy s, double *cost, double *cpu, prm_hier_stats *hs)
{
    trv_status st = TRV_OK;
    *cpu = INFINITY;
    for (int rep = 0; rep < 2; rep++) {
        prm_path p;
        double t0 = cpu_s();
        st = prm_route_hier(ctx, t, r, h, hs, xy[0], xy[1], xy[2], xy[3], s, NULL, 1, &p);
        double dt = cpu_s() - t0;
        *cpu = dt < *cpu ? dt : *cpu;
        *cost = st ? NAN : p.searched;
        if (!st)
            prm_path_clear(&p);
    }
    return st;
}

static void go_cell(const prm_terrain *t, uint64_t *state, double xy[2])
{
    const geo_grid *g = t->grid;
    for (;;) {
        *state = *state * 6364136223846793005ULL + 1442695040888963407ULL;
        uint64_t v = *state >> 11;
        long c = (long)(v % (uint64_t)g->nx), row = (long)((v / (uint64_t)g->nx) % (uint64_t)g->ny);
        long i = row * g->nx + c;
        if (!prm_cell_go(t, i))
            continue;
        xy[0] = g->gt[0] + (c + 0.5) * g->gt[1];
        xy[1] = g->gt[3] + (row + 0.5) * g->gt[5];
        return;
    }
}

int main(int argc, char **argv)
{
    if (argc < 5) {
        fprintf(stderr, "usage: bench_hier DIR ROADMAP.gpkg N SEED [mdr|msr|time|mmcr]\n");
        return 2;
    }
    prm_strategy s = PRM_TIME;
    if (argc > 5)
        s = !strcmp(argv[5], "mdr") ? PRM_MDR : !strcmp(argv[5], "msr") ? PRM_MSR
          : !strcmp(argv[5], "mmcr") ? PRM_MMCR : PRM_TIME;
    GDALAllRegister();
    trv_ctx *ctx = trv_ctx_new();
    prm_terrain t;
    prm_roadmap *r = NULL;
    prm_hier *h = NULL;
    char note[1024] = "", *hp = prm_hier_path(argv[2]);
    if (prm_plan_load(ctx, argv[2], argv[1], &t, &r, note, sizeof note) || prm_hier_read(ctx, hp, r, &h)) {
        fprintf(stderr, "bench_hier: %s\n", trv_errmsg(ctx));
        return 1;
    }
    double b0 = cpu_s(); /* the index built again in memory: its CPU time */
    prm_hier *h2 = NULL;
    if (prm_hier_build(ctx, r, t.grid, h->tile, &h2)) {
        fprintf(stderr, "bench_hier: %s\n", trv_errmsg(ctx));
        return 1;
    }
    double build_s = cpu_s() - b0;
    prm_hier_free(h2);
    struct stat sb;
    long ibytes = stat(hp, &sb) ? -1 : (long)sb.st_size;
    int n = atoi(argv[3]), routed = 0, equal = 0;
    uint64_t state = strtoull(argv[4], NULL, 10);
    double *v[5];
    for (int k = 0; k < 5; k++)
        v[k] = calloc((size_t)n + 1, sizeof *v[k]);
    for (int i = 0; i < n; i++) {
        double xy[4], cf, ch, tf, th;
        go_cell(&t, &state, xy);
        go_cell(&t, &state, xy + 2);
        prm_hier_stats sf, sh;
        trv_status a = query(ctx, &t, r, NULL, xy, s, &cf, &tf, &sf);
        char ef[1024];
        snprintf(ef, sizeof ef, "%s", a ? trv_errmsg(ctx) : "");
        trv_status b = query(ctx, &t, r, h, xy, s, &ch, &th, &sh);
        int ok = a == b && (a ? !strcmp(ef, trv_errmsg(ctx)) : fabs(cf - ch) <= 1e-9 * fabs(cf));
        equal += ok;
        if (!a) {
            v[0][routed] = tf, v[1][routed] = th, v[2][routed] = (double)sf.edges_read;
            v[3][routed] = (double)sh.edges_read, v[4][routed] = (double)sh.matrix_read;
            routed++;
        }
        printf("pair %d %.17g %.17g %.6f %.6f %ld %ld %ld\n", ok, cf, ch, tf, th, sf.edges_read, sh.edges_read,
               sh.matrix_read);
    }
    printf("summary %d %d %d %.6f %.6f %.0f %.0f %.0f %d %d %zu %d %d %ld %.3f\n", n, routed, equal,
           median(v[0], routed), median(v[1], routed), median(v[2], routed), median(v[3], routed),
           median(v[4], routed), r->nnodes, r->nedges, sizeof(prm_edge), h->ntiles, h->border_start[h->ntiles],
           ibytes, build_s);
    for (int k = 0; k < 5; k++)
        free(v[k]);
    free(hp);
    prm_hier_free(h);
    prm_roadmap_free(r);
    prm_terrain_clear(&t);
    trv_ctx_free(ctx);
    return equal == n ? 0 : 1;
}
