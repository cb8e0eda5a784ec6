/* prm_route_grid_paged (grid.c, grid_pages.c) against prm_route_grid, the
 * in-memory search: the same status, objective, vertices and expanded
 * count, to the bit, with tiles of 4 cells a side and 4 of them in memory
 * (every expansion evicts: the temporary file written and read back), on
 * hand-made grids (a wall with a gap, a highway, ragged last tiles, the
 * goal in the last ragged tile, an unreachable goal) and on random grids
 * for the four objectives. The open set's hash (deletion by backward
 * shift) against a brute-force list. Terrains in memory
 * (test_terrain_mem.h); and a lazy terrain of 3 x 3 tiles read from files
 * (test_prm_run.h) held to 4 tiles (its tiles let go and read again, with
 * the facts' seams and without) against the eager read's in-memory
 * search. The slot cache (slots.h) by hand; a paged corridor's own bytes
 * in its budget, at the boundary. */
#include "test_common.h"
#include "test_prm_run.h"
#include "test_terrain_mem.h"

#include <math.h>
#include <sys/mman.h>
#include <unistd.h>

#include "prm/grid_pages.h"
#include "prm/slots.h"
#include "prm/prm.h"
#include "prm/prm_priv.h"

#define X0 600000.0
#define Y0 3680000.0
#define CELL 8.0

static double cx_of(int c) { return X0 + (c + 0.5) * CELL; }
static double cy_of(int r) { return Y0 - (r + 0.5) * CELL; }

static void terrain_finish(prm_terrain *t)
{
    t->top_speed_kmh = 0;
    for (long i = 0; i < (long)t->grid->nx * t->grid->ny; i++)
        if (prm_cell_go(t, i) && t->speed->f32[i] > t->top_speed_kmh)
            t->top_speed_kmh = t->speed->f32[i];
}

static void terrain_random(prm_terrain *t, int nx, int ny, trv_rng *rng)
{
    assert_int_equal(test_terrain_plane(t, nx, ny, X0, Y0, CELL, 5, 20), 0);
    for (long i = 0; i < (long)nx * ny; i++) {
        t->cls->u8[i] = trv_rng_uniform(rng) < 0.12 ? 0 : (unsigned char)(1 + trv_rng_below(rng, 3));
        t->gonogo->u8[i] = trv_rng_uniform(rng) < 0.04 ? 1 : 0;
        t->speed->f32[i] = (float)(2 + 38 * trv_rng_uniform(rng));
        t->slope->f32[i] = (float)(30 * trv_rng_uniform(rng));
        t->cost->f32[i] = (float)trv_rng_uniform(rng);
        t->dem->f32[i] = (float)(100 + 100 * trv_rng_uniform(rng));
    }
    terrain_finish(t);
}

/* The paged search (tiles of 2^shift cells, cap of them) equals the
 * in-memory one to the bit; returns its status, *written the bytes paged
 * out. */
static trv_status same_as_memory(trv_ctx *ctx, const prm_terrain *t, const double xy[4], prm_strategy s, int shift,
                                 int cap, long long *written)
{
    prm_weights w;
    prm_weights_default(&w);
    prm_path p, q;
    prm_grid_paging pg = {.shift = shift, .tiles = cap, .terrain_tiles = 4, .dir = tmpdir};
    trv_status sp = prm_route_grid_paged(ctx, t, &pg, xy[0], xy[1], xy[2], xy[3], s, &w, &p);
    trv_status sm = prm_route_grid(ctx, t, xy[0], xy[1], xy[2], xy[3], s, &w, &q);
    assert_int_equal(sp, sm);
    if (!sp) {
        if (p.objective != q.objective)
            fail_msg("%s: paged objective %.17g, in memory %.17g", prm_strategy_name(s), p.objective, q.objective);
        assert_int_equal(p.expanded, q.expanded);
        assert_int_equal(p.n, q.n);
        assert_memory_equal(p.x, q.x, (size_t)p.n * sizeof *p.x);
        assert_memory_equal(p.y, q.y, (size_t)p.n * sizeof *p.y);
        assert_int_equal(pg.paged, 1);
        /* the tiles reached: at least the start's, at most the grid's */
        long side = 1L << shift, ntiles = ((t->grid->nx + side - 1) / side) * ((t->grid->ny + side - 1) / side);
        assert_true(pg.reached >= 1 && pg.reached <= ntiles);
        assert_true(pg.read <= pg.written);
    }
    *written = pg.written;
    prm_path_clear(&p);
    prm_path_clear(&q);
    return sp;
}

/* 61 x 43 cells (ragged tiles of 4: 15 x 10 whole and a last column and
 * row of 1 and 3), slow field at 5 km/h; a wall across at column 30 with
 * a gap in row 40 (the last ragged tile row); a 40 km/h highway along row
 * 2. Routes: across the wall (through the gap), along the highway, and
 * to the goal in the last ragged tile (60, 42). */
static void test_hand_made(void **state)
{
    (void)state;
    trv_ctx *ctx = trv_ctx_new();
    prm_terrain t;
    const int nx = 61, ny = 43;
    assert_int_equal(test_terrain_plane(&t, nx, ny, X0, Y0, CELL, 5, 5), 0);
    for (int r = 0; r < ny; r++)
        if (r != 40)
            t.gonogo->u8[r * nx + 30] = 1;
    for (int c = 0; c < nx; c++)
        t.speed->f32[2 * nx + c] = 40;
    terrain_finish(&t);
    const double ends[3][4] = {{cx_of(3), cy_of(10), cx_of(57), cy_of(12)},
                               {cx_of(1), cy_of(3), cx_of(28), cy_of(1)},
                               {cx_of(0) - 3, cy_of(0) + 2.5, cx_of(60) + 1.25, cy_of(42) - 0.5}};
    long long written;
    int paged_out = 0;
    for (int e = 0; e < 3; e++)
        for (int s = PRM_MMCR; s <= PRM_TIME; s++) {
            assert_int_equal(same_as_memory(ctx, &t, ends[e], (prm_strategy)s, 2, 4, &written), TRV_OK);
            paged_out += written > 0;
        }
    assert_true(paged_out >= 10);
    /* the wall closed: unreachable, the same error */
    t.gonogo->u8[40 * nx + 30] = 1;
    assert_int_equal(same_as_memory(ctx, &t, ends[0], PRM_TIME, 2, 4, &written), TRV_ERR_DATA);
    /* a tiles' cap that holds the whole grid: nothing written */
    t.gonogo->u8[40 * nx + 30] = 0;
    assert_int_equal(same_as_memory(ctx, &t, ends[0], PRM_TIME, 3, 1000, &written), TRV_OK);
    assert_true(written == 0);
    prm_terrain_clear(&t);
    trv_ctx_free(ctx);
}

/* Random grids and ends, four objectives, tiles of 4 and 8 cells. */
static void test_random(void **state)
{
    (void)state;
    trv_ctx *ctx = trv_ctx_new();
    trv_rng rng;
    trv_rng_seed(&rng, 11);
    int ok = 0, unreachable = 0, paged_out = 0;
    for (int map = 0; map < 6; map++) {
        const int nx = 45 + map, ny = 38 + 2 * map;
        prm_terrain t;
        terrain_random(&t, nx, ny, &rng);
        for (int pair = 0; pair < 4; pair++) {
            long a, b;
            do
                a = (long)trv_rng_below(&rng, (uint64_t)nx * ny);
            while (!prm_cell_go(&t, a));
            do
                b = (long)trv_rng_below(&rng, (uint64_t)nx * ny);
            while (!prm_cell_go(&t, b) || b == a);
            double xy[4] = {cx_of((int)(a % nx)), cy_of((int)(a / nx)), cx_of((int)(b % nx)), cy_of((int)(b / nx))};
            for (int s = PRM_MMCR; s <= PRM_TIME; s++) {
                long long written;
                trv_status st = same_as_memory(ctx, &t, xy, (prm_strategy)s, 2 + pair % 2, 4 + pair, &written);
                ok += st == TRV_OK, unreachable += st == TRV_ERR_DATA;
                paged_out += written > 0;
            }
        }
        prm_terrain_clear(&t);
    }
    print_message("paged = in memory: %d routes (%d paged out), %d unreachable\n", ok, paged_out, unreachable);
    assert_true(ok >= 60 && paged_out >= 50);
    trv_ctx_free(ctx);
}

/* The open set against a list: random puts, lowers and deletes of ids
 * that collide in a small table. */
static void test_open_set(void **state)
{
    (void)state;
    trv_rng rng;
    trv_rng_seed(&rng, 3);
    enum { N = 3000 };
    static double ref[N];
    for (int i = 0; i < N; i++)
        ref[i] = -1;
    prm_open_set o = {0};
    for (int step = 0; step < 200000; step++) {
        int32_t id = (int32_t)trv_rng_below(&rng, N);
        if (trv_rng_uniform(&rng) < 0.45) {
            prm_open_del(&o, id);
            ref[id] = -1;
        } else {
            double g = trv_rng_uniform(&rng) * 100;
            assert_int_equal(prm_open_put(&o, id, g), 0);
            ref[id] = g;
        }
        if (step % 997 == 0) {
            size_t n = 0;
            for (int i = 0; i < N; i++) {
                assert_true(prm_open_get(&o, i) == ref[i]);
                n += ref[i] >= 0;
            }
            assert_int_equal(o.n, n);
        }
    }
    prm_open_free(&o);
}

/* The first cell of region label (rg) in columns c0 .. c1 - 1, rows r0
 * .. r1 - 1, row by row from the first cell or from the last; -1: none. */
static long go_in(const prm_terrain *t, const prm_regions *rg, int label, int c0, int r0, int c1, int r1,
                  int from_end)
{
    for (int k = 0; k < (r1 - r0) * (c1 - c0); k++) {
        int j = from_end ? (r1 - r0) * (c1 - c0) - 1 - k : k;
        long i = (long)(r0 + j / (c1 - c0)) * t->grid->nx + c0 + j % (c1 - c0);
        if (rg->label[i] == label)
            return i;
    }
    return -1;
}

/* The bytes of [base, base + len) in memory (mincore: whole pages). */
static size_t resident(const void *base, size_t len)
{
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    uintptr_t a = (uintptr_t)base / page * page, b = ((uintptr_t)base + len + page - 1) / page * page;
    size_t n = (b - a) / page, k = 0;
    unsigned char *v = malloc(n);
    assert_non_null(v);
    assert_int_equal(mincore((void *)a, b - a, v), 0);
    for (size_t j = 0; j < n; j++)
        k += v[j] & 1;
    free(v);
    return k * page;
}

/* A tile's bytes under the objectives' layers, by hand (prm.h
 * prm_grid_paged_cell_bytes): class and gonogo 2 a cell; msr's slope 4;
 * the direction-aware time's gradient 8 and pair 2, and without the seams
 * the dem they are made from 4; the state's byte and one to spare. */
static int cell_bytes_by_hand(prm_strategy s, int seams)
{
    switch (s) {
    case PRM_MSR: return 1 + 2 + 4 + 1;
    case PRM_TIME: return 1 + 2 + 8 + 2 + (seams ? 0 : 4) + 1;
    default: return 1 + 2 + 1;
    }
}

/* prm_terrain_layers on tile (1, 1) read whole: narrowed to none, its
 * float layers' pages given back (but the two it may share with its
 * neighbours) and its class kept; widened back, the tile unread beyond
 * its class, and read again the eager read's values. */
static void check_narrowing(const prm_terrain *e, const prm_terrain *l)
{
    const size_t blk = (size_t)PRM_TILE * PRM_TILE, page = (size_t)sysconf(_SC_PAGESIZE);
    const long k = l->tile_ntx + 1, nx = l->grid->nx, i0 = PRM_TILE * nx + PRM_TILE; /* tile (1, 1), its first cell */
    assert_int_equal(prm_terrain_need(NULL, l, PRM_TILE, PRM_TILE, PRM_TILE, PRM_TILE), TRV_OK);
    const float *cost = l->cost->f32 + k * blk, *slope = l->slope->f32 + k * blk;
    assert_true(resident(cost, blk * sizeof *cost) >= blk * sizeof *cost);
    prm_terrain_layers(l, 0, NULL);
    assert_true(resident(cost, blk * sizeof *cost) <= 2 * page && resident(slope, blk * sizeof *slope) <= 2 * page);
    assert_true(resident(l->aniso->grad + 2 * k * blk, 2 * blk * sizeof(float)) <= 2 * page);
    assert_true(resident(l->cls->u8 + k * blk, blk) >= blk - 2 * page);
    assert_int_equal(l->ready[k], PRM_HAVE_CLASS | PRM_HAVE_ALL); /* held, for the layers asked */
    prm_terrain_layers(l, PRM_LAYERS_ALL, NULL);
    assert_int_equal(l->ready[k], PRM_HAVE_CLASS);
    assert_int_equal(prm_terrain_need(NULL, l, PRM_TILE, PRM_TILE, PRM_TILE, PRM_TILE), TRV_OK);
    for (long y = 0; y < PRM_TILE; y += 17)
        for (long x = 0; x < PRM_TILE; x += 13)
            assert_true(cell_same(e, l, (size_t)(i0 + y * nx + x)));
}

/* Cell i's class, gonogo and, GO, the pace's data (the layers the
 * direction-aware time reads) as the eager read has them. */
static int pace_same(const prm_terrain *e, const prm_terrain *l, long i)
{
    long a = prm_at(e, i), b = prm_at(l, i);
    int same = e->cls->u8[a] == l->cls->u8[b] && e->gonogo->u8[a] == l->gonogo->u8[b];
    if (same && prm_cell_go(e, i))
        same = e->aniso->grad[2 * a] == l->aniso->grad[2 * b] &&
               e->aniso->grad[2 * a + 1] == l->aniso->grad[2 * b + 1] &&
               !memcmp(&e->aniso->codes[2 * e->aniso->pair[a]], &l->aniso->codes[2 * l->aniso->pair[b]], 2);
    return same;
}

/* The spill file (prm_terrain_layers): 4 tiles held, the pace's layers
 * asked, tile 4 held before (check_narrowing's); the 9 tiles held in
 * turn, twice, by hand: the first pass reads 0 .. 3 from the GeoTIFFs,
 * lets 4 go (written), reads it back at its turn (1), then reads 5 .. 8
 * (8 reads in all); the second finds every tile let go and written
 * before (9 read back), with the eager read's values each time; lifted,
 * the spill is closed and a tile read back is read whole at the next look. */
static void check_spill(const prm_terrain *e, const prm_terrain *l)
{
    long read0, read1, total, back0, back1;
    prm_terrain_tiles(l, &read0, &total);
    prm_terrain_spill_reads(l, &back0);
    prm_terrain_layers(l, PRM_LAYER_PACE, tmpdir); /* (as the paged search: the layers, then the cap) */
    assert_int_equal(prm_terrain_tile_cap(NULL, l, 4), TRV_OK);
    const long nx = l->grid->nx, ny = l->grid->ny;
    for (int pass = 0; pass < 2; pass++)
        for (long k = 0; k < 9; k++) {
            prm_terrain_hold(l, k % 3, k / 3);
            for (long y = k / 3 * PRM_TILE; y < (k / 3 + 1) * PRM_TILE && y < ny; y += 7)
                for (long x = k % 3 * PRM_TILE; x < (k % 3 + 1) * PRM_TILE && x < nx; x += 5)
                    assert_true(pace_same(e, l, y * nx + x));
        }
    prm_terrain_tiles(l, &read1, &total);
    prm_terrain_spill_reads(l, &back1);
    assert_int_equal(read1 - read0, 8);
    assert_int_equal(back1 - back0, 1 + 9);
    prm_terrain_layers(l, PRM_LAYERS_ALL, NULL);
    assert_int_equal(prm_terrain_tile_cap(NULL, l, 0), TRV_OK);
    /* tile 8, read back last, read whole at the next look: every layer the eager read's */
    assert_int_equal(prm_terrain_need(NULL, l, 2 * PRM_TILE, 2 * PRM_TILE, nx - 1, ny - 1), TRV_OK);
    for (long y = 2 * PRM_TILE; y < ny; y += 3)
        for (long x = 2 * PRM_TILE; x < nx; x += 11)
            assert_true(cell_same(e, l, (size_t)(y * nx + x)));
}

static void test_lazy_terrain(void **state)
{
    (void)state;
    trv_ctx *ctx = trv_ctx_new();
    char *dir = run_dir("paged");
    make_run(ctx, dir);
    prm_terrain e, l;
    prm_terrain_facts f;
    if (prm_terrain_load(ctx, dir, &e))
        fail_msg("%s", trv_errmsg(ctx));
    assert_int_equal(prm_terrain_facts_of(ctx, &e, &f), TRV_OK);
    prm_regions rg;
    assert_int_equal(prm_regions_label(ctx, &e, &rg), TRV_OK);
    int big = 1; /* the largest region */
    for (int k = 2; k <= rg.n; k++)
        big = rg.size[k] > rg.size[big] ? k : big;
    const long nx = e.grid->nx, a = go_in(&e, &rg, big, 0, 0, 600, 530, 0),
               b[2] = {go_in(&e, &rg, big, 0, 0, 600, 530, 1), go_in(&e, &rg, big, 0, 265, 600, 530, 0)};
    prm_regions_clear(&rg);
    assert_true(a >= 0 && b[0] >= 512 * nx && b[1] >= 0); /* b[0] in the last, ragged tile row */ /* b[0] in the last, ragged tile */
    (void)cell_same; /* (test_prm_lazy.c's) */
    float *seams = f.seams;
    for (int v = 0; v < 2; v++) {
        f.seams = v ? NULL : seams;
        if (prm_terrain_open(ctx, dir, &f, &l))
            fail_msg("%s", trv_errmsg(ctx));
        check_narrowing(&e, &l);
        check_spill(&e, &l);
        /* a tile's bytes by hand: class and gonogo 2 a cell, the floats 4 each, the pace's 8 + 2 (+ its dem
         * 4 without the seams, counted once with the dem asked); the eager terrain holds no tile */
        const long cells = PRM_TILE * PRM_TILE;
        assert_int_equal(prm_terrain_tile_bytes(&l, PRM_LAYER_SPEED), 6 * cells);
        assert_int_equal(prm_terrain_tile_bytes(&l, PRM_LAYERS_ALL & ~PRM_LAYER_PACE), 18 * cells);
        assert_int_equal(prm_terrain_tile_bytes(&l, PRM_LAYER_PACE), (v ? 16 : 12) * cells);
        assert_int_equal(prm_terrain_tile_bytes(&l, PRM_LAYERS_ALL), 28 * cells);
        assert_int_equal(prm_terrain_tile_bytes(&e, PRM_LAYERS_ALL), 0);
        const size_t blk = (size_t)PRM_TILE * PRM_TILE * sizeof(float), page = (size_t)sysconf(_SC_PAGESIZE);
        const size_t ncell = (size_t)l.tile_ntx * 3 * PRM_TILE * PRM_TILE;
        long reads = 0, written = 0;
        for (int k = 0; k < 2; k++)
            for (int s = PRM_MMCR; s <= PRM_TIME; s++) {
                double xy[4] = {geo_grid_x(e.grid, (int)(a % nx)) + 3, geo_grid_y(e.grid, (int)(a / nx)) - 2,
                                geo_grid_x(e.grid, (int)(b[k] % nx)), geo_grid_y(e.grid, (int)(b[k] / nx))};
                prm_weights w;
                prm_weights_default(&w);
                prm_path p, q;
                prm_grid_paging pg = {.shift = 8, .tiles = 4, .terrain_tiles = 4, .dir = tmpdir};
                trv_status sq = prm_route_grid(ctx, &e, xy[0], xy[1], xy[2], xy[3], s, &w, &q);
                if (sq)
                    fail_msg("in memory: %s", trv_errmsg(ctx));
                if (prm_route_grid_paged(ctx, &l, &pg, xy[0], xy[1], xy[2], xy[3], s, &w, &p))
                    fail_msg("paged: %s", trv_errmsg(ctx));
                if (p.objective != q.objective)
                    fail_msg("%s: paged objective %.17g, in memory %.17g", prm_strategy_name(s), p.objective,
                             q.objective);
                assert_int_equal(p.expanded, q.expanded);
                assert_int_equal(p.n, q.n);
                assert_memory_equal(p.x, q.x, (size_t)p.n * sizeof *p.x);
                assert_memory_equal(p.y, q.y, (size_t)p.n * sizeof *p.y);
                print_message("lazy %s seams, %s: %ld expanded, %ld terrain tiles read, %ld from the spill, %ld "
                              "reached, %.1f kB paged out\n",
                              v ? "without" : "with", prm_strategy_name(s), p.expanded, pg.terrain_reads,
                              pg.terrain_spilled, pg.reached, pg.written / 1e3);
                reads += pg.terrain_reads, written += pg.written;
                assert_int_equal(prm_grid_paged_cell_bytes(&l, s), cell_bytes_by_hand(s, !v));
                assert_int_equal(pg.tile_bytes, (cell_bytes_by_hand(s, !v) - 2) * PRM_TILE * PRM_TILE);
                /* no objective reads the cost: only the two end tiles, read whole by the trace after the
                 * search, hold it (and pages shared at the tiles' edges: two a tile) */
                assert_true(resident(l.cost->f32, ncell * sizeof(float)) <= 2 * blk + 2 * 9 * page);
                /* with the seams the dem, read for the gradients, is let go once they are made */
                assert_true(v || resident(l.dem->f32, ncell * sizeof(float)) <= 2 * blk + 2 * 9 * page);
                assert_true(pg.reached >= 1 && pg.reached <= 9);
                prm_path_clear(&p);
                prm_path_clear(&q);
            }
        /* 8 searches on one terrain, 4 tiles held: tiles let go and read again (more reads than the 9 tiles) */
        assert_true(reads > 9 && written > 0);
        prm_terrain_clear(&l);
    }
    f.seams = seams;
    prm_terrain_facts_clear(&f);
    prm_terrain_clear(&e);
    free(dir);
    trv_ctx_free(ctx);
}

/* A random guide inside the grid: from start to goal through 1 .. 3
 * random points (cell centres shifted by up to a cell). */
static void guide_random(prm_path *g, int nx, int ny, const double xy[4], trv_rng *rng)
{
    int nv = 2 + (int)trv_rng_below(rng, 3);
    g->x = malloc((size_t)(nv + 1) * sizeof *g->x);
    g->y = malloc((size_t)(nv + 1) * sizeof *g->y);
    assert_non_null(g->x);
    assert_non_null(g->y);
    g->x[0] = xy[0], g->y[0] = xy[1];
    for (int i = 1; i < nv; i++) {
        g->x[i] = cx_of((int)trv_rng_below(rng, (unsigned)nx)) + CELL * (trv_rng_uniform(rng) - 0.5);
        g->y[i] = cy_of((int)trv_rng_below(rng, (unsigned)ny)) + CELL * (trv_rng_uniform(rng) - 0.5);
    }
    g->x[nv] = xy[2], g->y[nv] = xy[3];
    g->n = nv + 1;
}

/* corridor_once's window for half-width r: the band's box grown by 2. */
static void corridor_win(const prm_terrain *t, const prm_path *g, int r, long win[4])
{
    long band[4];
    prm_path_band(t, g, r, band, NULL);
    win[0] = band[0] > 2 ? band[0] - 2 : 0;
    win[1] = band[1] > 2 ? band[1] - 2 : 0;
    win[2] = (band[0] + band[2] + 2 < t->grid->nx ? band[0] + band[2] + 2 : t->grid->nx) - win[0];
    win[3] = (band[1] + band[3] + 2 < t->grid->ny ? band[1] + band[3] + 2 : t->grid->ny) - win[1];
}

/* The corridor paged (prm_route_grid_escape_paged, tiles of 4 cells, 4
 * held) against the in-memory corridor search (prm_route_grid_escape on
 * prm_path_band's mask, which paints the squares itself): every tile's
 * mask cell for cell (guides inside the grid: no square of a sample off
 * it), and the same status, objective, expanded count, vertices and
 * escape bound to the bit; random grids, guides, half-widths 1 .. 9 and
 * wider than a tile (whole tiles in). */
static void test_corridor_paged(void **state)
{
    (void)state;
    trv_ctx *ctx = trv_ctx_new();
    trv_rng rng;
    trv_rng_seed(&rng, 23);
    prm_weights w;
    prm_weights_default(&w);
    int ok = 0, escaped = 0, unreachable = 0, partial = 0, cutoff = 0;
    for (int map = 0; map < 5; map++) {
        const int nx = 41 + 3 * map, ny = 37 + 2 * map;
        prm_terrain t;
        terrain_random(&t, nx, ny, &rng);
        for (int pair = 0; pair < 8; pair++) {
            long a, b;
            do
                a = (long)trv_rng_below(&rng, (unsigned)(nx * ny)), b = (long)trv_rng_below(&rng, (unsigned)(nx * ny));
            while (!prm_cell_go(&t, a) || !prm_cell_go(&t, b) || a == b);
            const double xy[4] = {cx_of((int)(a % nx)), cy_of((int)(a / nx)), cx_of((int)(b % nx)), cy_of((int)(b / nx))};
            prm_path guide = {0};
            guide_random(&guide, nx, ny, xy, &rng);
            if (pair >= 4 && pair < 6) /* a guide back to the start: a narrow corridor cuts the goal off */
                guide.x[guide.n - 1] = xy[0], guide.y[guide.n - 1] = xy[1];
            int r = pair < 6 ? 1 + (int)trv_rng_below(&rng, 9) : 5 + (int)trv_rng_below(&rng, 20);
            long win[4];
            corridor_win(&t, &guide, r, win);
            unsigned char *mask = calloc((size_t)win[2] * win[3], 1);
            assert_non_null(mask);
            prm_path_band(&t, &guide, r, win, mask);
            prm_corridor k;
            assert_int_equal(prm_corridor_make(ctx, &t, &guide, win, r, 4, &k), TRV_OK);
            for (long ty = 0; ty * 4 < ny; ty++) /* the tiles' masks, cell for cell */
                for (long tx = 0; tx * 4 < nx; tx++) {
                    prm_corridor_tile(&k, tx * 4, ty * 4);
                    for (long y = 0; y < 4; y++)
                        for (long x = 0; x < 4; x++) {
                            long c = tx * 4 + x, rr = ty * 4 + y, lc = c - win[0], lr = rr - win[1];
                            if (c >= nx || rr >= ny) /* the padding past the edge: NOGO (paged_init) */
                                continue;
                            int in = lc >= 0 && lr >= 0 && lc < win[2] && lr < win[3] && mask[lr * win[2] + lc];
                            if (k.tmask[y * 4 + x] != in)
                                fail_msg("map %d pair %d r %d: cell (%ld, %ld) tile mask %d, band %d", map, pair, r, c,
                                         rr, k.tmask[y * 4 + x], in);
                            assert_int_equal(prm_corridor_has(&k, c, rr), in);
                            partial += in && (x == 0 || y == 0) && !k.tmask[0];
                        }
                }
            for (int s = PRM_MMCR; s <= PRM_TIME; s++) {
                prm_path p, q;
                double ep = INFINITY, eq = INFINITY;
                prm_grid_paging pg = {.shift = 2, .tiles = 4, .terrain_tiles = 4, .dir = tmpdir};
                trv_status sp = prm_route_grid_escape_paged(ctx, &t, &k, xy[0], xy[1], xy[2], xy[3], s, &w, &p, &ep, &pg);
                trv_status sm = prm_route_grid_escape(ctx, &t, win, mask, xy[0], xy[1], xy[2], xy[3], s, &w, &q, &eq);
                assert_int_equal(sp, sm);
                long gl = b % nx - win[0], gr = b / nx - win[1];
                cutoff += gl < 0 || gr < 0 || gl >= win[2] || gr >= win[3] || !mask[gr * win[2] + gl];
                if (memcmp(&ep, &eq, sizeof ep))
                    fail_msg("map %d pair %d r %d %s: escape paged %.17g, in memory %.17g", map, pair, r,
                             prm_strategy_name(s), ep, eq);
                escaped += isfinite(eq);
                if (sp) {
                    unreachable++;
                    continue;
                }
                if (p.objective != q.objective)
                    fail_msg("%s: paged objective %.17g, in memory %.17g", prm_strategy_name(s), p.objective, q.objective);
                assert_int_equal(p.expanded, q.expanded);
                assert_int_equal(p.n, q.n);
                assert_memory_equal(p.x, q.x, (size_t)p.n * sizeof *p.x);
                assert_memory_equal(p.y, q.y, (size_t)p.n * sizeof *p.y);
                assert_int_equal(pg.paged, 1);
                ok++;
                prm_path_clear(&p);
                prm_path_clear(&q);
            }
            prm_corridor_free(&k);
            free(mask);
            prm_path_clear(&guide);
        }
        prm_terrain_clear(&t);
    }
    print_message("corridor paged: %d routes, %d escapes, %d unreachable (%d goals cut off), %d partial\n", ok, escaped,
                  unreachable, cutoff, partial);
    /* routes found, escape bounds taken, ends cut off by a narrow corridor, tiles part in */
    assert_true(ok >= 60 && escaped >= 40 && unreachable >= 8 && cutoff >= 4 && partial >= 10);
    trv_ctx_free(ctx);
}

/* prm_route_grid_corridor in memory and under 3 MB (a corridor's box over
 * 75 000 cells at 40 bytes does not fit: paged, tiles of 256): the same
 * route, objective, expanded count and corridor facts to the bit, on a
 * 320 x 300 random grid; a wall across with its gap far off the guide
 * makes the corridor widen until it covers the grid (the whole grid). */
static void test_corridor_bounded(void **state)
{
    (void)state;
    trv_ctx *ctx = trv_ctx_new();
    trv_rng rng;
    trv_rng_seed(&rng, 5);
    const int nx = 320, ny = 300;
    prm_terrain t;
    terrain_random(&t, nx, ny, &rng);
    prm_weights w;
    prm_weights_default(&w);
    int paged = 0, whole = 0;
    for (int e = 0; e < 3; e++) {
        if (e == 2) /* a wall across row 150, its gap in the last column */
            for (int c = 0; c < nx - 1; c++)
                t.gonogo->u8[150 * nx + c] = 1;
        long a = 20L * nx + 10 + 30 * e, b = 280L * nx + 40 + 20 * e;
        t.gonogo->u8[a] = 0, t.cls->u8[a] = 1, t.gonogo->u8[b] = 0, t.cls->u8[b] = 1;
        terrain_finish(&t);
        const double xy[4] = {cx_of((int)(a % nx)), cy_of((int)(a / nx)), cx_of((int)(b % nx)), cy_of((int)(b / nx))};
        prm_path guide = {0};
        guide_random(&guide, 60, ny, xy, &rng);
        for (int s = PRM_MMCR; s <= PRM_TIME; s++) {
            prm_path p, q;
            prm_corridor_info ip, iq;
            double hw = e == 0 ? 0 : CELL * (1 + e);
            trv_status sp = prm_route_grid_corridor(ctx, &t, &guide, hw, 3000000, xy, s, &w, &p, &ip);
            trv_status sm = prm_route_grid_corridor(ctx, &t, &guide, hw, (size_t)1 << 40, xy, s, &w, &q, &iq);
            assert_int_equal(sp, TRV_OK);
            assert_int_equal(sm, TRV_OK);
            if (p.objective != q.objective)
                fail_msg("%s: paged objective %.17g, in memory %.17g", prm_strategy_name(s), p.objective, q.objective);
            assert_int_equal(p.expanded, q.expanded);
            assert_int_equal(p.n, q.n);
            assert_memory_equal(p.x, q.x, (size_t)p.n * sizeof *p.x);
            assert_memory_equal(p.y, q.y, (size_t)p.n * sizeof *p.y);
            assert_memory_equal(&ip.halfwidth_m, &iq.halfwidth_m, sizeof ip.halfwidth_m);
            assert_memory_equal(&ip.escape, &iq.escape, sizeof ip.escape);
            assert_int_equal(ip.widened, iq.widened);
            assert_int_equal(ip.whole, iq.whole);
            assert_int_equal(iq.paging.paged, 0);
            paged += ip.paging.paged && !ip.whole; /* the corridor itself paged */
            whole += ip.whole;
            prm_path_clear(&p);
            prm_path_clear(&q);
        }
        prm_path_clear(&guide);
    }
    print_message("corridor bounded: %d corridors paged, %d whole\n", paged, whole);
    assert_true(paged >= 3 && whole >= 4);
    prm_terrain_clear(&t);
    trv_ctx_free(ctx);
}

/* give_up for test_slots: the tile and its slot's first byte recorded,
 * failing while *fail is set. */
typedef struct gave {
    long tile[8];
    int n, fail;
    unsigned char first[8];
} gave;

static int give_up_rec(void *user, long tile, unsigned char *mem)
{
    gave *g = user;
    if (g->fail)
        return -1;
    g->tile[g->n] = tile, g->first[g->n++] = mem[0];
    return 0;
}

/* The slot cache (slots.h) by hand: 2 slots over 5 tiles; tiles 0 and 1
 * take the two slots, 0 used again, 2 gives up 1 (the least recently
 * used; its bytes handed to give_up, its slot PRM_SLOT_FREE), 3 gives up
 * 0; a failing give_up keeps everything and takes nothing; without
 * give_up a tile is let go unwritten. */
static void test_slots(void **state)
{
    (void)state;
    gave g = {0};
    prm_slots c;
    assert_int_equal(prm_slots_open(&c, 5, 2, 16, give_up_rec, &g), 0);
    for (long k = 0; k < 5; k++)
        assert_int_equal(c.slot[k], PRM_SLOT_FREE);
    int32_t s0 = prm_slots_take(&c, 0), s1 = prm_slots_take(&c, 1);
    assert_true(s0 >= 0 && s1 >= 0 && s0 != s1 && c.held == 2);
    prm_slots_mem(&c, s0)[0] = 100, prm_slots_mem(&c, s1)[0] = 101;
    prm_lru_touch(&c.lru, s0);
    assert_int_equal(prm_slots_take(&c, 2), s1);
    assert_true(g.n == 1 && g.tile[0] == 1 && g.first[0] == 101 && c.slot[1] == PRM_SLOT_FREE && c.slot[2] == s1);
    prm_slots_mem(&c, s1)[0] = 102;
    g.fail = 1;
    assert_int_equal(prm_slots_take(&c, 3), -1);
    assert_true(c.slot[0] == s0 && c.slot[2] == s1 && c.slot[3] == PRM_SLOT_FREE && g.n == 1);
    g.fail = 0;
    assert_int_equal(prm_slots_take(&c, 3), s0);
    assert_true(g.n == 2 && g.tile[1] == 0 && g.first[1] == 100 && c.slot[0] == PRM_SLOT_FREE && c.slot[3] == s0);
    prm_slots_close(&c);
    assert_int_equal(prm_slots_open(&c, 5, 1, 16, NULL, NULL), 0);
    assert_int_equal(prm_slots_take(&c, 4), 0);
    assert_int_equal(prm_slots_take(&c, 2), 0);
    assert_true(c.slot[4] == PRM_SLOT_FREE && c.slot[2] == 0 && c.owner[0] == 2);
    prm_slots_close(&c);
}

/* A paged corridor's own bytes, by hand: its guide's samples (half a
 * cell apart, ceil(length / half a cell) + 1 a segment, all inside the
 * window here) at 3 longs each and one more, the tile mask's column
 * counts (257 ints) and the mask (256 x 256 bytes); checked against
 * prm_corridor_make's count on the window of r cells. */
static double corridor_held(trv_ctx *ctx, const prm_terrain *t, const prm_path *g, int r, long win[4])
{
    long samples = 0;
    for (int i = 0; i + 1 < g->n; i++)
        samples += (long)ceil(hypot(g->x[i + 1] - g->x[i], g->y[i + 1] - g->y[i]) / (0.5 * CELL)) + 2;
    const double held = (double)(samples + 1) * 3 * sizeof(long) + 257.0 * sizeof(int) + 65536.0;
    corridor_win(t, g, r, win);
    prm_corridor k;
    assert_int_equal(prm_corridor_make(ctx, t, g, win, r, PRM_TILE, &k), TRV_OK);
    assert_true((double)k.bytes == held);
    prm_corridor_free(&k);
    return held;
}

/* A paged corridor's own bytes in its budget (paged_plan): the tiles get
 * floor((0.75 cap - corridor_held) / tile), at 2 bytes a cell (the
 * terrain in memory). The guide the whole grid's route, 12 cells each
 * side: at cap = (16 tiles + held) / 0.75 the corridor is searched paged
 * with 16 tiles (and proven there, but for mmcr's weak heuristic, as in
 * memory), the in-memory route; a byte less is refused with the message
 * (without the corridor's bytes counted it held 16 tiles). */
static void test_corridor_budget(void **state)
{
    (void)state;
    trv_ctx *ctx = trv_ctx_new();
    trv_rng rng;
    trv_rng_seed(&rng, 17);
    const int nx = 320, ny = 300;
    prm_terrain t;
    terrain_random(&t, nx, ny, &rng);
    long a = 5L * nx + 5, b = 294L * nx + 314;
    t.gonogo->u8[a] = 0, t.cls->u8[a] = 1, t.gonogo->u8[b] = 0, t.cls->u8[b] = 1;
    terrain_finish(&t);
    const double xy[4] = {cx_of(5), cy_of(5), cx_of(314), cy_of(294)}, tile = 65536.0 * 2;
    prm_weights w;
    prm_weights_default(&w);
    int proven = 0;
    for (int s = PRM_MMCR; s <= PRM_TIME; s++) {
        prm_path g, p, q;
        prm_corridor_info ip, iq;
        assert_int_equal(prm_route_grid(ctx, &t, xy[0], xy[1], xy[2], xy[3], s, &w, &g), TRV_OK);
        long win[4];
        const double held = corridor_held(ctx, &t, &g, 12, win);
        const size_t cap = (size_t)ceil((16 * tile + held) / 0.75);
        assert_false(prm_grid_fits((double)win[2] * win[3], cap)); /* the corridor is paged */
        assert_int_equal(prm_route_grid_corridor(ctx, &t, &g, 12 * CELL, cap, xy, s, &w, &p, &ip), TRV_OK);
        assert_int_equal(prm_route_grid_corridor(ctx, &t, &g, 12 * CELL, (size_t)1 << 40, xy, s, &w, &q, &iq), TRV_OK);
        if (!(ip.paging.paged && ip.paging.tiles == 16 && !iq.paging.paged && ip.whole == iq.whole))
            fail_msg("%s: paged %d whole %d widened %d tiles %d; in memory paged %d", prm_strategy_name(s),
                     ip.paging.paged, ip.whole, ip.widened, ip.paging.tiles, iq.paging.paged);
        proven += !ip.whole;
        assert_true(p.objective == q.objective && p.objective == g.objective && p.n == q.n && p.expanded == q.expanded);
        assert_memory_equal(p.x, q.x, (size_t)p.n * sizeof *p.x);
        prm_path_clear(&p), prm_path_clear(&q);
        assert_int_equal(prm_route_grid_corridor(ctx, &t, &g, 12 * CELL, cap - 1, xy, s, &w, &p, &ip), TRV_ERR_NOMEM);
        char want[320];
        snprintf(want, sizeof want,
                 "the raster search (--grid) needs at least %.1f MB even paged (16 tiles of 256 x 256 cells at 2 "
                 "bytes a cell, the corridor's guide cells and tile mask (%.2f MB), and a quarter more for the "
                 "frontier), more than --grid-memory (%.1f MB)",
                 cap / 1e6, held / 1e6, (cap - 1) / 1e6);
        assert_true(strncmp(trv_errmsg(ctx), want, strlen(want)) == 0);
        prm_path_clear(&g);
    }
    assert_true(proven >= 2);
    prm_terrain_clear(&t);
    trv_ctx_free(ctx);
}

/* The paged budget: a given cap as it is; without one 1.5 GB (the issue's
 * 2 GB a stage, with room), or three quarters of a smaller machine's memory. */
/* The layers each objective reads (prm_grid_layers): the isotropic time
 * the speed, msr the slope, mmcr and mdr none; on a terrain in memory a
 * paged tile is the state's byte and one to spare. */
static void test_grid_layers(void **state)
{
    (void)state;
    prm_terrain t;
    assert_int_equal(test_terrain_plane(&t, 8, 8, X0, Y0, CELL, 5, 20), 0);
    assert_int_equal(prm_grid_layers(&t, PRM_TIME), PRM_LAYER_SPEED);
    assert_int_equal(prm_grid_layers(&t, PRM_MSR), PRM_LAYER_SLOPE);
    assert_int_equal(prm_grid_layers(&t, PRM_MMCR), 0);
    assert_int_equal(prm_grid_layers(&t, PRM_MDR), 0);
    for (int s = PRM_MMCR; s <= PRM_TIME; s++)
        assert_int_equal(prm_grid_paged_cell_bytes(&t, s), 2);
    prm_terrain_clear(&t);
}

static void test_paged_budget(void **state)
{
    (void)state;
    assert_true(prm_grid_paged_budget(0, 24e9) == 1.5e9);
    assert_true(prm_grid_paged_budget(0, 1e9) == 0.75e9);
    assert_true(prm_grid_paged_budget(0, 2e9) == 1.5e9);
    assert_true(prm_grid_paged_budget(0, 0) == 1.5e9);
    assert_true(prm_grid_paged_budget(700000000, 24e9) == 7e8);
    assert_true(prm_grid_paged_budget(4000000000u, 1e9) == 4e9);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_paged_budget),
        cmocka_unit_test(test_grid_layers),
        cmocka_unit_test(test_hand_made),
        cmocka_unit_test(test_random),
        cmocka_unit_test(test_open_set),
        cmocka_unit_test(test_lazy_terrain),
        cmocka_unit_test(test_corridor_paged),
        cmocka_unit_test(test_corridor_bounded),
        cmocka_unit_test(test_corridor_budget),
        cmocka_unit_test(test_slots),
    };
    return cmocka_run_group_tests(tests, tmpdir_setup, tmpdir_teardown);
}
