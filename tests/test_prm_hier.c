/* The hierarchical roadmap query (src/prm/hier*.c, docs/method.md §4.13):
 * on seeded speckle terrains (NOGO islands, random speeds and slopes) with
 * a tiled roadmap build (its edges' reverse times made to differ from the
 * forward ones), the index's search gives, for every strategy it
 * applies to, the least cost of the flat A* (admissible heuristics: a
 * least-cost search) to 1e-9 relative, on 150 random seeded GO pairs per
 * tile size, among them pairs in one tile, in neighbouring tiles and
 * unreachable ones (the same error then); the tiles and border nodes by
 * brute force over the edges, the matrix entries against a Bellman-Ford
 * inside the tile; the strategies the index does
 * not apply to searched flat. */
#include "test_common.h"
#include "test_terrain_mem.h"

#include "prm/hier.h"
#include "prm/prm.h"

/* nx x ny cells of 100 m in EPSG:32616, NOGO with probability p, speeds
 * 5..40 km/h and slopes 0..20 deg at random. */
static void speckle(prm_terrain *t, int nx, int ny, double p, uint64_t seed)
{
    assert_int_equal(test_terrain_new(t, nx, ny, 500000, 4000000, 100), 0);
    trv_rng rng;
    trv_rng_seed(&rng, seed);
    for (int i = 0; i < nx * ny; i++) {
        t->cls->u8[i] = 3;
        t->speed->f32[i] = (float)(5 + 35 * trv_rng_uniform(&rng));
        t->dem->f32[i] = 300;
        t->slope->f32[i] = (float)(20 * trv_rng_uniform(&rng));
        t->cost->f32[i] = 0.2f;
        t->gonogo->u8[i] = trv_rng_uniform(&rng) < p;
    }
    t->top_speed_kmh = 40;
}

static prm_roadmap *build(trv_ctx *ctx, const prm_terrain *t, int tile)
{
    prm_build_opts o;
    prm_build_opts_init(&o);
    o.nodes = 800;
    o.k = 8;
    o.seed = 7;
    o.tile = tile;
    prm_roadmap *rm = NULL;
    prm_build_stats bs;
    if (prm_roadmap_build(ctx, t, &o, &rm, &bs))
        fail_msg("%s", trv_errmsg(ctx));
    /* direction-aware times (the terrain's are not): each edge's reverse
     * time its forward one times 1 .. 1.8, seeded: slower, the
     * time heuristic stays admissible) */
    trv_rng rng;
    trv_rng_seed(&rng, 99);
    for (int e = 0; e < rm->nedges; e++)
        rm->edges[e].p.time_rev_s = rm->edges[e].p.time_s * (1 + 0.8 * trv_rng_uniform(&rng));
    return rm;
}

/* A random GO cell's centre. */
static void go_point(const prm_terrain *t, trv_rng *rng, double *x, double *y)
{
    const geo_grid *g = t->grid;
    for (;;) {
        int c = (int)(trv_rng_uniform(rng) * g->nx), r = (int)(trv_rng_uniform(rng) * g->ny);
        if (t->gonogo->u8[(long)r * g->nx + c])
            continue;
        *x = g->gt[0] + (c + 0.5) * g->gt[1];
        *y = g->gt[3] + (r + 0.5) * g->gt[5];
        return;
    }
}

/* Brute force: Bellman-Ford from border node b inside tile T (edges with
 * both ends in T), every entry of its matrix row to 1e-12 relative. */
static void check_row(const prm_hier *h, const prm_roadmap *r, int T, int bi, prm_strategy s)
{
    prm_weights w;
    prm_weights_default(&w);
    double *d = malloc((size_t)r->nnodes * sizeof *d);
    for (int i = 0; i < r->nnodes; i++)
        d[i] = INFINITY;
    d[h->border[h->border_start[T] + bi]] = 0;
    for (int changed = 1; changed;) {
        changed = 0;
        for (int e = 0; e < r->nedges; e++) {
            const prm_edge *ed = &r->edges[e];
            if (h->node_tile[ed->a] != T || h->node_tile[ed->b] != T)
                continue;
            double wf = prm_piece_weight(&ed->p, s, &w), wb = s == PRM_TIME ? ed->p.time_rev_s : wf;
            if (d[ed->a] + wf < d[ed->b] * (1 - 1e-14))
                d[ed->b] = d[ed->a] + wf, changed = 1;
            if (d[ed->b] + wb < d[ed->a] * (1 - 1e-14))
                d[ed->a] = d[ed->b] + wb, changed = 1;
        }
    }
    int nb = h->border_start[T + 1] - h->border_start[T];
    for (int k = 0; k < nb; k++) {
        double m = h->mat[s][h->mat_start[T] + (long)bi * nb + k], ref = d[h->border[h->border_start[T] + k]];
        if (isinf(ref))
            assert_true(isinf(m));
        else
            assert_true(fabs(m - ref) <= 1e-12 * (ref > 1 ? ref : 1));
    }
    free(d);
}

/* Every node's tile from its cell (row and column over the tile side),
 * and the border nodes exactly the ends of edges between two tiles, by
 * brute force over the edges. */
static void check_border(const prm_hier *h, const prm_roadmap *r, const prm_terrain *t)
{
    const geo_grid *g = t->grid;
    char *isb = calloc((size_t)r->nnodes, 1);
    for (int i = 0; i < r->nnodes; i++) {
        int c = (int)floor((r->x[i] - g->gt[0]) / g->gt[1]), row = (int)floor((r->y[i] - g->gt[3]) / g->gt[5]);
        assert_int_equal(h->node_tile[i], row / h->tile * h->ntx + c / h->tile);
    }
    for (int e = 0; e < r->nedges; e++)
        if (h->node_tile[r->edges[e].a] != h->node_tile[r->edges[e].b])
            isb[r->edges[e].a] = isb[r->edges[e].b] = 1;
    long n = 0;
    for (int i = 0; i < r->nnodes; i++) {
        n += isb[i];
        assert_int_equal(h->border_pos[i] >= 0, isb[i]);
    }
    assert_int_equal(h->border_start[h->ntiles], n);
    free(isb);
}

static void check_matrices(const prm_hier *h, const prm_roadmap *r)
{
    long rows = 0;
    for (int T = 0; T < h->ntiles; T++)
        for (int bi = 0; bi < h->border_start[T + 1] - h->border_start[T] && bi < 3; bi++, rows++)
            for (int s = 0; s < PRM_HIER_NSTRAT; s++)
                check_row(h, r, T, bi, (prm_strategy)s);
    assert_true(rows > 10);
}

static void same_ints(const int *a, const int *b, size_t n) { assert_memory_equal(a, b, n * sizeof *a); }

/* h through its file and back (the same arrays, byte for byte); a file
 * cut short, one bit changed in its header's hash, or read against
 * another roadmap (one edge fewer, one weight changed): TRV_ERR_DATA. The copy read replaces h. */
static prm_hier *round_trip(trv_ctx *ctx, prm_hier *h, prm_roadmap *r)
{
    char *dir = make_tmpdir(), *path = NULL, *p2 = NULL;
    assert_true(asprintf(&path, "%s/r.hier", dir) > 0 && asprintf(&p2, "%s/r2.hier", dir) > 0);
    assert_int_equal(prm_hier_write(ctx, h, path), TRV_OK);
    prm_hier *b = NULL;
    assert_int_equal(prm_hier_read(ctx, path, r, &b), TRV_OK);
    size_t nn = (size_t)r->nnodes, nt = (size_t)h->ntiles;
    assert_true(b->tile == h->tile && b->ntiles == h->ntiles && b->x0 == h->x0 && b->th == h->th);
    same_ints(b->node_tile, h->node_tile, nn);
    same_ints(b->comp, h->comp, nn);
    same_ints(b->border_pos, h->border_pos, nn);
    same_ints(b->border_start, h->border_start, nt + 1);
    same_ints(b->border, h->border, (size_t)h->border_start[nt]);
    for (int s = 0; s < PRM_HIER_NSTRAT; s++)
        assert_memory_equal(b->mat[s], h->mat[s], (size_t)h->mat_start[nt] * sizeof(double));
    prm_hier_free(h);
    /* b's matrices are mapped from path (a file never rewritten under a reader: trv-roadmap renames its
     * outputs into place): the damaged copies are another file's */
    assert_int_equal(prm_hier_write(ctx, b, p2), TRV_OK);
    FILE *f = fopen(p2, "r+b");
    fseek(f, 0, SEEK_END);
    long size = ftell(f);
    assert_int_equal(ftruncate(fileno(f), size - 1), 0);
    fclose(f);
    prm_hier *c = NULL;
    assert_int_equal(prm_hier_read(ctx, p2, r, &c), TRV_ERR_DATA);
    assert_null(c);
    assert_int_equal(prm_hier_write(ctx, b, p2), TRV_OK);
    f = fopen(p2, "r+b");
    fseek(f, 8 + 7 * 4 + 4 * 8, SEEK_SET); /* the hash's first byte */
    int byte = fgetc(f);
    fseek(f, 8 + 7 * 4 + 4 * 8, SEEK_SET);
    fputc(byte ^ 1, f);
    fclose(f);
    assert_int_equal(prm_hier_read(ctx, p2, r, &c), TRV_ERR_DATA);
    assert_int_equal(prm_hier_write(ctx, b, p2), TRV_OK);
    prm_roadmap other = *r;
    other.nedges--; /* another roadmap: one edge fewer */
    assert_int_equal(prm_hier_read(ctx, p2, &other, &c), TRV_ERR_DATA);
    double keep = r->edges[r->nedges - 1].p.time_rev_s; /* the same graph, one weight changed */
    r->edges[r->nedges - 1].p.time_rev_s = keep * (1 + 1e-15) + 1e-300;
    assert_int_equal(prm_hier_read(ctx, p2, r, &c), TRV_ERR_DATA);
    r->edges[r->nedges - 1].p.time_rev_s = keep;
    assert_int_equal(prm_hier_read(ctx, p2, r, &c), TRV_OK);
    prm_hier_free(c);
    unlink(p2);
    unlink(path);
    rmdir(dir);
    free(p2);
    free(path);
    free(dir);
    return b;
}

/* The tiles of (x0, y0) and (x1, y1): 0 same, 1 neighbours (8-way), 2 farther. */
static int tile_gap(const prm_hier *h, double x0, double y0, double x1, double y1)
{
    int a = prm_hier_tile_at(h, x0, y0), b = prm_hier_tile_at(h, x1, y1);
    if (a == b)
        return 0;
    int dx = abs(a % h->ntx - b % h->ntx), dy = abs(a / h->ntx - b / h->ntx);
    return dx <= 1 && dy <= 1 ? 1 : 2;
}

static void pairs(int tile)
{
    trv_ctx *ctx = trv_ctx_new();
    prm_terrain t;
    speckle(&t, 128, 128, 0.3, 11);
    prm_roadmap *rm = build(ctx, &t, tile);
    prm_hier *h = NULL;
    assert_int_equal(prm_hier_build(ctx, rm, t.grid, tile, &h), TRV_OK);
    assert_true(h->border_start[h->ntiles] > 0 && h->border_start[h->ntiles] < rm->nnodes);
    check_border(h, rm, &t);
    check_matrices(h, rm);
    h = round_trip(ctx, h, rm);
    trv_rng rng;
    trv_rng_seed(&rng, 2026);
    int kind[3] = {0}, unreachable = 0, compared = 0;
    long read_h = 0, read_far = 0;
    for (int q = 0; q < 150; q++) {
        double sx, sy, gx, gy;
        go_point(&t, &rng, &sx, &sy);
        if (q % 3 == 0) { /* near pairs: one tile or the next */
            do
                go_point(&t, &rng, &gx, &gy);
            while (hypot(gx - sx, gy - sy) > 1.5 * tile * 100);
        } else {
            go_point(&t, &rng, &gx, &gy);
        }
        int gap = tile_gap(h, sx, sy, gx, gy);
        kind[gap]++;
        for (int s = 0; s < PRM_HIER_NSTRAT; s++) {
            prm_path pf, ph;
            prm_hier_stats hs;
            trv_status sf = prm_route(ctx, &t, rm, sx, sy, gx, gy, (prm_strategy)s, NULL, 1, &pf);
            char ef[512];
            snprintf(ef, sizeof ef, "%s", sf ? trv_errmsg(ctx) : "");
            trv_status sh = prm_route_hier(ctx, &t, rm, h, &hs, sx, sy, gx, gy, (prm_strategy)s, NULL, 1, &ph);
            assert_int_equal(sf, sh);
            assert_int_equal(hs.used, 1);
            if (sf) {
                assert_string_equal(ef, trv_errmsg(ctx));
                unreachable += s == 0;
                continue;
            }
            double tol = 1e-9 * fabs(pf.searched);
            if (fabs(pf.searched - ph.searched) > tol)
                fail_msg("pair %d strategy %d: flat %.17g hierarchical %.17g", q, s, pf.searched, ph.searched);
            /* the refined path is a real one: shortcut, its objective no more than its searched cost (not
             * for time: the pieces shortcutting measures are the terrain's, isotropic) */
            assert_true(s == PRM_TIME || ph.objective <= ph.searched * (1 + 1e-12));
            compared++;
            read_h += hs.edges_read;
            if (gap == 2)
                read_far += hs.edges_read;
            prm_path_clear(&pf);
            prm_path_clear(&ph);
        }
    }
    print_message("tile %d: %d tiles, %d border nodes of %d, pairs same/neighbour/farther %d/%d/%d, unreachable %d, "
                  "%d costs equal, edges read per query %.0f (roadmap %d)\n",
                  tile, h->ntiles, h->border_start[h->ntiles], rm->nnodes, kind[0], kind[1], kind[2], unreachable,
                  compared, compared ? (double)read_h / compared : 0, rm->nedges);
    assert_true(kind[0] > 0 && kind[1] > 0 && kind[2] > 0 && unreachable > 0 && compared > 300);
    (void)read_far;
    prm_hier_free(h);
    prm_roadmap_free(rm);
    prm_terrain_clear(&t);
    trv_ctx_free(ctx);
}

static void test_pairs_24(void **state)
{
    (void)state;
    pairs(24);
}

static void test_pairs_32(void **state)
{
    (void)state;
    pairs(32);
}

/* An index whose matrices start 4 bytes past a multiple of 8 in a version
 * 1 layout (header 76 bytes, 3 nnodes + ntiles + 1 + borders ints,
 * ntiles + 1 longs; the tile size searched from 16 up until one is): the
 * zeros version 2 puts before them, and the matrices mapped from there,
 * byte for byte (round_trip). */
static void test_round_trip_padded(void **state)
{
    (void)state;
    trv_ctx *ctx = trv_ctx_new();
    prm_terrain t;
    speckle(&t, 128, 128, 0.3, 11);
    prm_roadmap *rm = build(ctx, &t, 24);
    int found = 0;
    for (int tile = 16; tile <= 48 && !found; tile++) {
        prm_hier *h = NULL;
        assert_int_equal(prm_hier_build(ctx, rm, t.grid, tile, &h), TRV_OK);
        long at = 76 + 12L * rm->nnodes + 4L * (h->ntiles + 1) + 4L * h->border_start[h->ntiles] + 8L * (h->ntiles + 1);
        if (at % 8 == 4 && h->mat_start[h->ntiles] > 0) {
            found = tile;
            h = round_trip(ctx, h, rm);
        }
        prm_hier_free(h);
    }
    printf("  matrices after a 4-byte pad with tiles of %d cells\n", found);
    assert_true(found > 0);
    prm_roadmap_free(rm);
    prm_terrain_clear(&t);
    trv_ctx_free(ctx);
}

/* The strategies the index does not apply to: flat (hs.used 0). */
static void test_applies(void **state)
{
    (void)state;
    prm_weights w;
    prm_weights_default(&w);
    assert_true(prm_hier_applies(PRM_MDR, &w, 0, 0));
    assert_true(prm_hier_applies(PRM_TIME, &w, 0, 0));
    assert_true(prm_hier_applies(PRM_MSR, NULL, 0, 0));
    assert_true(prm_hier_applies(PRM_MMCR, &w, 1, 0));
    assert_false(prm_hier_applies(PRM_MMCR, &w, 0, 0));
    assert_false(prm_hier_applies(PRM_MDR, &w, 0, 1));
    w.kd *= 2;
    assert_false(prm_hier_applies(PRM_MMCR, &w, 1, 0));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_applies),
        cmocka_unit_test(test_pairs_24),
        cmocka_unit_test(test_pairs_32),
        cmocka_unit_test(test_round_trip_padded),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
