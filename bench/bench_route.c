/* Driver for bench/route.sh: the raster optimum (prm_route_grid) on a
 * terrain directory, timed against GRASS r.cost -k + r.path.
 *   bench_route pick DIR FX0 FY0 FX1 FY1
 *       the centres of the first cells of the largest 4-connected GO region
 *       found from two fixed points, given as fractions of the extent
 *       (0 0 = north-west corner), searching square rings outward, so that
 *       the goal is reachable (a 4-connected pair is joined by straight
 *       moves, which the 16-neighbour search allows); prints
 *       "sx sy gx gy region_cells"
 *   bench_route grid DIR SX SY GX GY [time|mdr|mmcr|msr] [PATH.csv]
 *       prints "objective expanded vertices length_m search_s load_s" (the
 *       objective in the strategy's unit: seconds for time) and writes the
 *       path's vertices as x,y when PATH.csv is given
 *   bench_route measure DIR PATH.csv [time|mdr|mmcr|msr]
 *       another tool's path (x,y rows after a header) measured piece by piece
 *       with prm_piece_measure: prints "objective pieces corner_only
 *       through_nogo", the pieces that touch NOGO only at a cell corner
 *       (which prm_route_grid forbids) and those that cross it
 *   bench_route pairs DIR ROADMAP.gpkg N SEED [time|mdr|mmcr|msr] [CORRIDOR_M]
 *       the connectivity benchmark, terrain and roadmap loaded once: N
 *       seeded random pairs of points (uniform in uniform GO cells; the goal's
 *       cell uniform among the start's region's cells) planned by prm_route
 *       (and prm_refine in a corridor of CORRIDOR_M when given, as trv-route
 *       does), then 10 pairs whose goal lies in another region than the
 *       start (prm_route's failure, then the regions labelled and the point
 *       of the start's region nearest to the goal, as trv-route says it);
 *       prints "same N routed median_s max_s" and "apart M told median_s
 *       max_s", failures on stderr
 *   bench_route plan DIR ROADMAP.gpkg SX SY GX GY [time|mdr|mmcr|msr]
 *       planning alone, terrain and roadmap in memory: prm_route and the
 *       3-cell corridor as trv-route plans, 5 times; prints "best_s
 *       objective" (the best of the 5 wall times)
 *   bench_route endpoints DIR ROADMAP.gpkg N SEED
 *       N seeded random pairs of GO cell centres (cells drawn uniformly over
 *       the grid until GO) in one 4-connected GO region that the roadmap
 *       joins for every strategy (prm_route succeeds for mdr, whose graph
 *       is mmcr's and msr's, and for time, whose edges may be impassable
 *       one way); prints "sx sy gx gy" per pair, and on stderr how many
 *       candidates it drew
 *   bench_route quality DIR ROADMAP.gpkg PAIRS.txt [time|mdr|mmcr|msr]
 *       the route's quality stage by stage for each pair ("sx sy gx gy" per
 *       line, as endpoints prints): the raster optimum (prm_route_grid_corridor,
 *       exact), the roadmap route (prm_route: A* and shortcuts), after the
 *       3-cell corridor (prm_refine), after smoothing (prm_smooth; measured
 *       by prm_path_stats), and the roadmap route refined in a 10-cell
 *       corridor (where the loss is local); prints one line per pair, the
 *       objectives and their ratios to the optimum, then "mean" and "worst"
 *       of each ratio */
#define _POSIX_C_SOURCE 200809L
#include "prm/prm.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Label the 4-connected regions of GO cells (1, 2, ...; 0 NOGO) and
 * return the label of the largest (the first on ties), its size in *size. */
static int32_t regions(const prm_terrain *t, int32_t *label, long *size)
{
    long nx = t->grid->nx, n = nx * t->grid->ny, best_size = 0;
    int32_t next = 0, best = 0;
    long *stack = malloc((size_t)n * sizeof *stack);
    if (!stack)
        return -1;
    memset(label, 0, (size_t)n * sizeof *label);
    for (long i = 0; i < n; i++) {
        if (label[i] || !prm_cell_go(t, i))
            continue;
        long top = 0, count = 0;
        label[i] = ++next;
        stack[top++] = i;
        while (top > 0) {
            long j = stack[--top], c = j % nx;
            count++;
            long nb[4] = {c > 0 ? j - 1 : -1, c + 1 < nx ? j + 1 : -1, j - nx, j + nx < n ? j + nx : -1};
            for (int k = 0; k < 4; k++)
                if (nb[k] >= 0 && !label[nb[k]] && prm_cell_go(t, nb[k])) {
                    label[nb[k]] = next;
                    stack[top++] = nb[k];
                }
        }
        if (count > best_size) {
            best_size = count;
            best = next;
        }
    }
    free(stack);
    *size = best_size;
    return best;
}

/* The first cell of region `want` on square rings of growing radius round
 * (c0, r0), each ring scanned row by row: reproducible. */
static long first_in(const prm_terrain *t, const int32_t *label, int32_t want, long c0, long r0)
{
    long nx = t->grid->nx, ny = t->grid->ny;
    for (long rad = 0; rad < (nx > ny ? nx : ny); rad++)
        for (long r = r0 - rad; r <= r0 + rad; r++)
            for (long c = c0 - rad; c <= c0 + rad; c++) {
                if (labs(r - r0) != rad && labs(c - c0) != rad)
                    continue;
                if (r >= 0 && c >= 0 && r < ny && c < nx && label[r * nx + c] == want)
                    return r * nx + c;
            }
    return -1;
}

static int strategy_of(const char *s, prm_strategy *out)
{
    for (int k = PRM_MMCR; k <= PRM_TIME; k++)
        if (!strcmp(s, prm_strategy_name((prm_strategy)k))) {
            *out = (prm_strategy)k;
            return 0;
        }
    return -1;
}

/* Read "x,y" rows after a header line. */
static trv_status read_path(trv_ctx *ctx, const char *file, prm_path *p)
{
    FILE *f = fopen(file, "r");
    if (!f)
        return trv_error(ctx, TRV_ERR_IO, "cannot open '%s'", file);
    char line[256];
    int cap = 0;
    trv_status st = TRV_OK;
    if (!fgets(line, sizeof line, f))
        st = trv_error(ctx, TRV_ERR_FORMAT, "'%s' is empty", file);
    while (!st && fgets(line, sizeof line, f)) {
        double x, y;
        if (sscanf(line, "%lf,%lf", &x, &y) != 2)
            continue;
        if (p->n == cap) {
            cap = cap ? 2 * cap : 1024;
            double *nx = realloc(p->x, (size_t)cap * sizeof *nx);
            if (nx)
                p->x = nx;
            double *ny = nx ? realloc(p->y, (size_t)cap * sizeof *ny) : NULL;
            if (ny)
                p->y = ny;
            if (!nx || !ny) {
                st = trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
                break;
            }
        }
        p->x[p->n] = x;
        p->y[p->n++] = y;
    }
    fclose(f);
    if (!st && p->n < 2)
        st = trv_error(ctx, TRV_ERR_FORMAT, "'%s' holds fewer than two points", file);
    return st;
}

/* The GO cells grouped by region (counting sort): cells[start[k] .. start[k + 1]) hold region k's. */
static int by_region(const prm_regions *rg, long n, long **cells, long **start)
{
    *cells = malloc((size_t)n * sizeof **cells);
    *start = calloc((size_t)rg->n + 2, sizeof **start);
    if (!*cells || !*start)
        return -1;
    for (long i = 0; i < n; i++)
        (*start)[rg->label[i] + 1]++;
    for (int k = 0; k <= rg->n; k++)
        (*start)[k + 1] += (*start)[k];
    long *fill = malloc(((size_t)rg->n + 1) * sizeof *fill);
    if (!fill)
        return -1;
    memcpy(fill, *start, ((size_t)rg->n + 1) * sizeof *fill);
    for (long i = 0; i < n; i++)
        (*cells)[fill[rg->label[i]]++] = i;
    free(fill);
    return 0;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* A uniform point inside cell c. */
static void point_in(const prm_terrain *t, trv_rng *rng, long c, double *x, double *y)
{
    const geo_grid *g = t->grid;
    *x = g->gt[0] + (c % g->nx + trv_rng_uniform(rng)) * g->gt[1];
    *y = g->gt[3] + (c / g->nx + trv_rng_uniform(rng)) * g->gt[5];
}

/* One pair: prm_route (and the corridor) timed; 0 if routed. With
 * explain, a failure is followed by what trv-route adds (the regions). */
static int plan_pair(trv_ctx *ctx, const prm_terrain *t, const prm_roadmap *r, const double xy[4], prm_strategy s,
                     double corridor, int explain, double *secs)
{
    prm_path p;
    double t0 = trv_now_s();
    trv_status st = prm_route(ctx, t, r, xy[0], xy[1], xy[2], xy[3], s, NULL, 0, &p);
    if (!st && corridor > 0)
        st = prm_refine(ctx, t, &p, s, NULL, corridor);
    if (st && explain) {
        prm_regions rg;
        double nx, ny;
        if (!prm_regions_label(ctx, t, &rg)) {
            prm_regions_nearest(t, &rg, prm_regions_at(t, &rg, xy[0], xy[1]), xy[2], xy[3], &nx, &ny);
            prm_regions_clear(&rg);
        }
    }
    *secs = trv_now_s() - t0;
    if (!st)
        prm_path_clear(&p);
    return st != TRV_OK;
}

static trv_status pairs(trv_ctx *ctx, const prm_terrain *t, char **argv, int argc)
{
    prm_roadmap *r = NULL;
    prm_regions rg = {0};
    long n = (long)t->grid->nx * t->grid->ny, *cells = NULL, *start = NULL;
    int npairs = atoi(argv[4]);
    prm_strategy s = PRM_MMCR;
    double corridor = argc >= 8 ? atof(argv[7]) : 0, *secs = malloc(((size_t)npairs + 10) * sizeof *secs);
    trv_status st;
    if (argc >= 7 && strategy_of(argv[6], &s))
        return trv_error(ctx, TRV_ERR_USAGE, "unknown strategy '%s'", argv[6]);
    if ((st = prm_roadmap_read(ctx, argv[3], &r)) || (st = prm_regions_label(ctx, t, &rg)))
        goto done;
    if (!secs || by_region(&rg, n, &cells, &start)) {
        st = trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
        goto done;
    }
    trv_rng rng;
    trv_rng_seed(&rng, strtoull(argv[5], NULL, 10));
    long ngo = n - start[1]; /* region 0 is NOGO */
    int routed = 0, told = 0, apart = 0;
    for (int i = 0; i < npairs; i++) {
        long a = cells[start[1] + (long)trv_rng_below(&rng, (uint64_t)ngo)];
        int k = rg.label[a];
        long b = cells[start[k] + (long)trv_rng_below(&rng, (uint64_t)(start[k + 1] - start[k]))];
        double xy[4];
        point_in(t, &rng, a, &xy[0], &xy[1]);
        point_in(t, &rng, b, &xy[2], &xy[3]);
        if (plan_pair(ctx, t, r, xy, s, corridor, 0, &secs[i]))
            fprintf(stderr, "pair %d (%.1f, %.1f) -> (%.1f, %.1f), region %d of %ld cells: %s\n", i, xy[0], xy[1],
                    xy[2], xy[3], k, rg.size[k], trv_errmsg(ctx));
        else
            routed++;
    }
    qsort(secs, (size_t)npairs, sizeof *secs, cmp_double);
    printf("same %d %d %.4f %.4f\n", npairs, routed, npairs ? secs[npairs / 2] : 0, npairs ? secs[npairs - 1] : 0);
    for (int i = 0; apart < 10 && i < 100000; i++) { /* start anywhere, goal in another region */
        long a = cells[start[1] + (long)trv_rng_below(&rng, (uint64_t)ngo)];
        long b = cells[start[1] + (long)trv_rng_below(&rng, (uint64_t)ngo)];
        if (rg.label[a] == rg.label[b])
            continue;
        double xy[4];
        point_in(t, &rng, a, &xy[0], &xy[1]);
        point_in(t, &rng, b, &xy[2], &xy[3]);
        told += plan_pair(ctx, t, r, xy, s, corridor, 1, &secs[apart++]);
    }
    qsort(secs, (size_t)apart, sizeof *secs, cmp_double);
    printf("apart %d %d %.4f %.4f\n", apart, told, apart ? secs[apart / 2] : 0, apart ? secs[apart - 1] : 0);
done:
    prm_roadmap_free(r);
    prm_regions_clear(&rg);
    free(cells);
    free(start);
    free(secs);
    return st;
}

/* A GO cell drawn uniformly over the grid (-1 after 10^6 NOGO draws). */
static long random_go(const prm_terrain *t, trv_rng *rng)
{
    uint64_t n = (uint64_t)t->grid->nx * (uint64_t)t->grid->ny;
    for (int k = 0; k < 1000000; k++) {
        long c = (long)trv_rng_below(rng, n);
        if (prm_cell_go(t, c))
            return c;
    }
    return -1;
}

/* bench_route plan: see the top of the file. */
static trv_status plan_best(trv_ctx *ctx, const prm_terrain *t, char **argv, prm_strategy s)
{
    prm_roadmap *r = NULL;
    trv_status st = prm_roadmap_read(ctx, argv[3], &r);
    double xy[4] = {atof(argv[4]), atof(argv[5]), atof(argv[6]), atof(argv[7])}, best = INFINITY;
    for (int k = 0; k < 5 && !st; k++) {
        prm_path p;
        double t0 = trv_now_s();
        if (!(st = prm_route(ctx, t, r, xy[0], xy[1], xy[2], xy[3], s, NULL, 0, &p)) &&
            !(st = prm_refine(ctx, t, &p, s, NULL, 3 * t->cell_m))) {
            double secs = trv_now_s() - t0;
            best = secs < best ? secs : best;
            if (k == 4)
                printf("%.4f %.6f\n", best, p.objective);
        }
        prm_path_clear(&p);
    }
    prm_roadmap_free(r);
    return st;
}

/* bench_route endpoints: see the top of the file. */
static trv_status endpoints(trv_ctx *ctx, const prm_terrain *t, const char *roadmap, int want, uint64_t seed)
{
    prm_roadmap *r = NULL;
    prm_regions rg;
    trv_status st = prm_roadmap_read(ctx, roadmap, &r);
    if (st || (st = prm_regions_label(ctx, t, &rg))) {
        prm_roadmap_free(r);
        return st;
    }
    trv_rng rng;
    trv_rng_seed(&rng, seed);
    const geo_grid *g = t->grid;
    int got = 0, drawn = 0;
    while (got < want && drawn < 100 * want && !st) {
        long a = random_go(t, &rng), b = random_go(t, &rng);
        if (a < 0 || b < 0) {
            st = trv_error(ctx, TRV_ERR_DATA, "too few GO cells");
            break;
        }
        drawn++;
        if (rg.label[a] != rg.label[b] || a == b)
            continue;
        double xy[4] = {geo_grid_x(g, a % g->nx), geo_grid_y(g, a / g->nx), geo_grid_x(g, b % g->nx),
                        geo_grid_y(g, b / g->nx)};
        int ok = 1;
        for (int k = 0; k < 2 && ok; k++) {
            prm_path p;
            ok = !prm_route(ctx, t, r, xy[0], xy[1], xy[2], xy[3], k ? PRM_TIME : PRM_MDR, NULL, 0, &p);
            prm_path_clear(&p);
        }
        if (ok) {
            printf("%.3f %.3f %.3f %.3f\n", xy[0], xy[1], xy[2], xy[3]);
            fflush(stdout);
            got++;
        }
    }
    fprintf(stderr, "bench_route endpoints: %d of %d candidate pairs in one region joined by the roadmap\n", got, drawn);
    if (!st && got < want)
        st = trv_error(ctx, TRV_ERR_DATA, "only %d of %d pairs found", got, want);
    prm_regions_clear(&rg);
    prm_roadmap_free(r);
    return st;
}

static int path_copy(const prm_path *a, prm_path *b)
{
    *b = *a;
    b->x = malloc((size_t)a->n * sizeof *b->x);
    b->y = malloc((size_t)a->n * sizeof *b->y);
    if (!b->x || !b->y)
        return -1;
    memcpy(b->x, a->x, (size_t)a->n * sizeof *b->x);
    memcpy(b->y, a->y, (size_t)a->n * sizeof *b->y);
    return 0;
}

/* The objective of a path measured piece by piece (time: prm_path_stats). */
static double measured(const prm_terrain *t, const prm_path *p, prm_strategy s)
{
    if (s == PRM_TIME) {
        prm_stats ps;
        prm_path_stats(t, p, t->cell_m, &ps);
        return ps.time_h * 3600;
    }
    prm_weights w;
    prm_weights_default(&w);
    double sum = 0;
    for (int i = 0; i + 1 < p->n; i++) {
        prm_piece pc;
        prm_piece_measure(t, p->x[i], p->y[i], p->x[i + 1], p->y[i + 1], &pc);
        sum += prm_piece_weight(&pc, s, &w);
    }
    return sum;
}

/* bench_route quality: see the top of the file. */
#define QN 5
static trv_status quality(trv_ctx *ctx, const prm_terrain *t, char **argv, prm_strategy s)
{
    prm_roadmap *r = NULL;
    trv_status st = prm_roadmap_read(ctx, argv[3], &r);
    FILE *f = st ? NULL : fopen(argv[4], "r");
    if (!st && !f)
        st = trv_error(ctx, TRV_ERR_IO, "cannot open '%s'", argv[4]);
    double xy[4], sum[QN] = {0}, worst[QN] = {0};
    int n = 0;
    printf("pair optimum roadmap refined smoothed wide10 | ratios\n");
    while (!st && fscanf(f, "%lf %lf %lf %lf", &xy[0], &xy[1], &xy[2], &xy[3]) == 4) {
        prm_path p, q, o, wide;
        prm_corridor_info ci;
        double v[QN];
        if ((st = prm_route(ctx, t, r, xy[0], xy[1], xy[2], xy[3], s, NULL, 0, &p)))
            break;
        v[1] = measured(t, &p, s);
        if (path_copy(&p, &q) || path_copy(&p, &wide)) {
            st = trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
            break;
        }
        if (!(st = prm_route_grid_corridor(ctx, t, &p, 0, 0, xy, s, NULL, &o, &ci)) &&
            !(st = prm_refine(ctx, t, &q, s, NULL, 3 * t->cell_m)) &&
            !(st = prm_refine(ctx, t, &wide, s, NULL, 10 * t->cell_m))) {
            v[0] = o.objective;
            v[2] = measured(t, &q, s);
            v[4] = measured(t, &wide, s);
            double dev;
            if (!(st = prm_smooth(ctx, t, &q, t->cell_m, &dev)))
                v[3] = measured(t, &q, s);
        }
        prm_path_clear(&p), prm_path_clear(&q), prm_path_clear(&o), prm_path_clear(&wide);
        if (st)
            break;
        printf("%d %.1f %.1f %.1f %.1f %.1f |", n, v[0], v[1], v[2], v[3], v[4]);
        for (int k = 1; k < QN; k++) {
            double rr = v[k] / v[0];
            printf(" %.4f", rr);
            sum[k] += rr;
            worst[k] = rr > worst[k] ? rr : worst[k];
        }
        printf("\n");
        fflush(stdout);
        n++;
    }
    if (!st && n) {
        printf("mean %d pairs: roadmap %.4f refined %.4f smoothed %.4f wide10 %.4f\n", n, sum[1] / n, sum[2] / n,
               sum[3] / n, sum[4] / n);
        printf("worst: roadmap %.4f refined %.4f smoothed %.4f wide10 %.4f\n", worst[1], worst[2], worst[3], worst[4]);
    }
    if (f)
        fclose(f);
    prm_roadmap_free(r);
    return st;
}

int main(int argc, char **argv)
{
    int pick = argc == 7 && !strcmp(argv[1], "pick");
    int grid = (argc >= 7 && argc <= 9) && !strcmp(argv[1], "grid");
    int measure = (argc == 4 || argc == 5) && !strcmp(argv[1], "measure");
    int npairs = argc >= 6 && argc <= 8 && !strcmp(argv[1], "pairs");
    int nends = argc == 6 && !strcmp(argv[1], "endpoints");
    int plan = (argc == 8 || argc == 9) && !strcmp(argv[1], "plan");
    int qual = (argc == 5 || argc == 6) && !strcmp(argv[1], "quality");
    prm_strategy s = PRM_TIME;
    if ((!pick && !grid && !measure && !npairs && !nends && !plan && !qual) ||
        (grid && argc >= 8 && strategy_of(argv[7], &s)) || (qual && argc == 6 && strategy_of(argv[5], &s)) ||
        (plan && argc == 9 && strategy_of(argv[8], &s)) ||
        (measure && argc == 5 && strategy_of(argv[4], &s))) {
        fprintf(stderr, "usage: bench_route pick DIR FX0 FY0 FX1 FY1\n"
                        "       bench_route grid DIR SX SY GX GY [time|mdr|mmcr|msr] [PATH.csv]\n"
                        "       bench_route measure DIR PATH.csv [time|mdr|mmcr|msr]\n"
                        "       bench_route pairs DIR ROADMAP.gpkg N SEED [time|mdr|mmcr|msr] [CORRIDOR_M]\n"
                        "       bench_route plan DIR ROADMAP.gpkg SX SY GX GY [time|mdr|mmcr|msr]\n"
                        "       bench_route endpoints DIR ROADMAP.gpkg N SEED\n"
                        "       bench_route quality DIR ROADMAP.gpkg PAIRS.txt [time|mdr|mmcr|msr]\n");
        return 2;
    }
    geo_init();
    trv_ctx *ctx = trv_ctx_new();
    prm_terrain t;
    prm_path p = {0};
    double t0 = trv_now_s();
    trv_status st = prm_terrain_load(ctx, argv[2], &t);
    double t1 = trv_now_s();
    if (!st && npairs) {
        st = pairs(ctx, &t, argv, argc);
    } else if (!st && plan) {
        st = plan_best(ctx, &t, argv, s);
    } else if (!st && qual) {
        st = quality(ctx, &t, argv, s);
    } else if (!st && nends) {
        st = endpoints(ctx, &t, argv[3], atoi(argv[4]), strtoull(argv[5], NULL, 10));
    } else if (!st && pick) {
        const geo_grid *g = t.grid;
        int32_t *label = malloc((size_t)g->nx * g->ny * sizeof *label);
        long size = 0;
        int32_t want = label ? regions(&t, label, &size) : -1;
        long a = -1, b = -1;
        if (want > 0) {
            a = first_in(&t, label, want, (long)(atof(argv[3]) * g->nx), (long)(atof(argv[4]) * g->ny));
            b = first_in(&t, label, want, (long)(atof(argv[5]) * g->nx), (long)(atof(argv[6]) * g->ny));
        }
        free(label);
        if (want < 0)
            st = trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
        else if (a < 0 || b < 0)
            st = trv_error(ctx, TRV_ERR_DATA, "no GO cell in '%s'", argv[2]);
        else
            printf("%.3f %.3f %.3f %.3f %ld\n", geo_grid_x(g, a % g->nx), geo_grid_y(g, a / g->nx),
                   geo_grid_x(g, b % g->nx), geo_grid_y(g, b / g->nx), size);
    } else if (!st && measure) {
        prm_weights w;
        prm_weights_default(&w);
        if (!(st = read_path(ctx, argv[3], &p))) {
            double sum = 0;
            long corner = 0, through = 0;
            for (int i = 0; i + 1 < p.n; i++) {
                prm_piece pc;
                prm_piece_measure(&t, p.x[i], p.y[i], p.x[i + 1], p.y[i + 1], &pc);
                sum += prm_piece_weight(&pc, s, &w);
                corner += pc.blocked && pc.nogo == 0;
                through += pc.nogo > 0;
            }
            printf("%.6f %d %ld %ld\n", sum, p.n - 1, corner, through);
        }
    } else if (!st) {
        prm_weights w;
        prm_weights_default(&w);
        st = prm_route_grid(ctx, &t, atof(argv[3]), atof(argv[4]), atof(argv[5]), atof(argv[6]), s, &w, &p);
        double t2 = trv_now_s();
        if (!st) {
            double len = 0;
            for (int i = 0; i + 1 < p.n; i++)
                len += hypot(p.x[i + 1] - p.x[i], p.y[i + 1] - p.y[i]);
            printf("%.6f %ld %d %.1f %.3f %.3f\n", p.objective, p.expanded, p.n, len, t2 - t1, t1 - t0);
            if (argc == 9) {
                FILE *f = fopen(argv[8], "w");
                if (!f)
                    st = trv_error(ctx, TRV_ERR_IO, "cannot write '%s'", argv[8]);
                else {
                    fprintf(f, "x,y\n");
                    for (int i = 0; i < p.n; i++)
                        fprintf(f, "%.3f,%.3f\n", p.x[i], p.y[i]);
                    if (fclose(f))
                        st = trv_error(ctx, TRV_ERR_IO, "cannot write '%s'", argv[8]);
                }
            }
        }
    }
    if (st)
        fprintf(stderr, "bench_route: %s\n", trv_errmsg(ctx));
    free(p.x);
    free(p.y);
    prm_terrain_clear(&t); /* zeroed by a failed load */
    trv_ctx_free(ctx);
    return st ? 1 : 0;
}
