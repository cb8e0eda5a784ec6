/* The lazy terrain and the roadmap cache (trv-route reads only what a query
 * needs): a direction-aware run directory of 3 x 3 tiles (partial ones at
 * the east and south edges) written to files and read both ways. The
 * references are prm_terrain_load's arrays (read whole, eager): a window
 * fills exactly its tiles, each cell as the eager read has it (the six
 * layers, the gradient and the pair); segment measures are the same bytes;
 * top_speed_kmh bounds every GO cell's speed in every heading. The cache
 * gives back exactly what prm_roadmap_read gives from the GeoPackage, and
 * a missing, foreign, stale or truncated cache, or a changed terrain, is
 * told apart. */
#include "test_common.h"
#include "test_prm_run.h"

#include <math.h>
#include <sys/stat.h>
#include <unistd.h>

#include "prm/prm_priv.h"
#include "prm/hier.h"
#include "prm/roadmap_pieces.h"
#include "run/run.h"

enum { NX = PRM_RUN_NX, NY = PRM_RUN_NY }; /* 3 x 3 tiles of 256 */

static void open_lazy(trv_ctx *ctx, const char *dir, prm_terrain_facts *f, prm_terrain *l)
{
    if (prm_terrain_open(ctx, dir, f, l))
        fail_msg("%s", trv_errmsg(ctx));
}

/* The straight route from cell (c0, row) to (c1, row) refined in a
 * corridor of three cells (least time). */
static prm_path refined(trv_ctx *ctx, const prm_terrain *t, int c0, int c1, int row)
{
    prm_path p = {0};
    p.n = 2;
    p.x = malloc(2 * sizeof *p.x);
    p.y = malloc(2 * sizeof *p.y);
    assert_true(p.x && p.y);
    p.x[0] = geo_grid_x(t->grid, c0), p.x[1] = geo_grid_x(t->grid, c1);
    p.y[0] = p.y[1] = geo_grid_y(t->grid, row);
    p.objective = INFINITY;
    assert_int_equal(prm_refine(ctx, t, &p, PRM_TIME, NULL, 3 * t->cell_m), TRV_OK);
    return p;
}

static void test_lazy_window(void **state)
{
    (void)state;
    trv_ctx *ctx = trv_ctx_new();
    char *dir = run_dir("win");
    make_run(ctx, dir);
    prm_terrain e, l;
    prm_terrain_facts f;
    if (prm_terrain_load(ctx, dir, &e))
        fail_msg("%s", trv_errmsg(ctx));
    assert_non_null(e.aniso);
    assert_int_equal(prm_terrain_facts_of(ctx, &e, &f), TRV_OK);
    /* the pace table from the facts' pairs and range, made again or copied: the eager one */
    double *table = f.pace;
    f.pace = NULL;
    for (int k = 0; k < 2; k++) {
        open_lazy(ctx, dir, &f, &l);
        assert_non_null(l.aniso);
        assert_true(l.top_speed_kmh == e.top_speed_kmh && l.aniso->tmax == e.aniso->tmax);
        assert_true(l.aniso->npairs == e.aniso->npairs && l.aniso->npairs > 4 && l.aniso->dt == e.aniso->dt);
        assert_memory_equal(l.aniso->pace, e.aniso->pace, (size_t)e.aniso->npairs * (PRM_PACE_NODES + 1) * sizeof(double));
        assert_memory_equal(l.aniso->ok, e.aniso->ok, (size_t)e.aniso->npairs * PRM_PACE_NODES);
        f.pace = table;
        if (k == 0)
            prm_terrain_clear(&l);
    }
    long got, total;
    prm_terrain_tiles(&l, &got, &total);
    assert_int_equal(got, 0);
    assert_int_equal(total, 9);
    /* a window across the tiles' corner (columns 250..262, rows 240..300):
     * tiles (0..1, 0..1) read, every cell of them as the eager read has it;
     * tile (2, 2) not read at all */
    assert_int_equal(prm_terrain_need(ctx, &l, 250, 240, 262, 300), TRV_OK);
    prm_terrain_tiles(&l, &got, &total);
    assert_int_equal(got, 4);
    long bad = 0, go = 0;
    for (int r = 0; r < 512; r++)
        for (int c = 0; c < 512; c++) {
            size_t i = (size_t)r * NX + c;
            bad += !cell_same(&e, &l, i) || prm_ready(&l, (long)i) != (PRM_HAVE_CLASS | PRM_HAVE_ALL);
            go += prm_cell_go(&e, (long)i);
        }
    printf("  window: 4 of 9 tiles read, %ld GO cells of 262144 compared, %ld differ\n", go, bad);
    assert_int_equal(bad, 0);
    assert_true(go > 100000 && go < 262144); /* the lake is NOGO */
    long unread = 0, nonzero = 0;
    for (int r = 512; r < NY; r++)
        for (int c = 512; c < NX; c++) {
            size_t i = (size_t)r * NX + c;
            long k = prm_at(&l, (long)i);
            unread += prm_ready(&l, (long)i) == 0 && l.cls->u8[k] == 0 && l.cost->f32[k] == 0 && l.dem->f32[k] == 0;
            nonzero += e.cls->u8[i] != 0;
        }
    assert_int_equal(unread, (NY - 512) * (NX - 512));
    assert_true(nonzero > 0);
    /* the gradients along the window's tiles' edges from the facts' seams,
     * in a window of the tile's own: no dem of tile (2, 2), not even its
     * corner cell next to tile (1, 1); tile-major, tile (2, 2)'s block
     * (the last, 8) untouched, padding and all */
    long dem_read = 0;
    for (size_t k = 8 * 256 * 256; k < 9 * 256 * 256; k++)
        dem_read += l.dem->f32[k] != 0 || l.cost->f32[k] != 0 || l.cls->u8[k] != 0;
    assert_int_equal(dem_read, 0);
    prm_terrain_clear(&l);
    /* the mmcr heuristic's class codes from the facts' runs: the eager
     * terrain's codes, and no class or GO tile read for them */
    open_lazy(ctx, dir, &f, &l);
    unsigned char *ce = prm_class_codes(&e), *cl = prm_class_codes(&l);
    assert_true(ce && cl && f.nruns > 100 && f.nruns < (size_t)NX * NY / 4 && f.ncells == (size_t)NX * NY);
    assert_memory_equal(ce, cl, ((size_t)NX * NY + 1) / 2);
    /* four bits a cell (prm_code_at), each the eager terrain's class, 0 where NOGO */
    long coded = 0;
    for (size_t i = 0; i < (size_t)NX * NY; i++) {
        int want = e.gonogo->u8[i] ? PRM_CL_NOGO : e.cls->u8[i];
        assert_int_equal(prm_code_at(cl, i), want);
        coded += want != PRM_CL_NOGO;
    }
    assert_true(coded > 0 && coded < (long)NX * NY);
    long touched = 0;
    for (size_t i = 0; i < (size_t)NX * NY; i++)
        touched += prm_ready(&l, (long)i) != 0 || l.cls->u8[prm_at(&l, (long)i)] != 0;
    assert_int_equal(touched, 0);
    free(cl);
    prm_terrain_clear(&l);
    /* without the runs: every tile's class and GO read, the same codes */
    size_t nruns = f.nruns;
    f.nruns = 0;
    open_lazy(ctx, dir, &f, &l);
    f.nruns = nruns;
    cl = prm_class_codes(&l);
    assert_non_null(cl);
    assert_memory_equal(ce, cl, ((size_t)NX * NY + 1) / 2);
    assert_true(prm_ready(&l, (long)NX * NY - 1) == PRM_HAVE_CLASS);
    free(cl);
    free(ce);
    prm_terrain_clear(&l);
    /* without the seams: the neighbouring tiles' dem read, the same cells */
    float *seams = f.seams;
    f.seams = NULL;
    open_lazy(ctx, dir, &f, &l);
    f.seams = seams;
    assert_int_equal(prm_terrain_need(ctx, &l, 250, 240, 262, 300), TRV_OK);
    for (int r = 0; r < 512; r++)
        for (int c = 0; c < 512; c++)
            bad += !cell_same(&e, &l, (size_t)r * NX + c);
    assert_int_equal(bad, 0);
    assert_true(l.dem->f32[prm_at(&l, (long)NY * NX - 1)] == e.dem->f32[(size_t)(NY - 1) * NX + NX - 1]);
    prm_terrain_clear(&l);
    /* segment measures on a fresh lazy terrain: the eager bytes */
    open_lazy(ctx, dir, &f, &l);
    uint64_t s = 7;
    for (int k = 0; k < 300; k++) {
        double p[4];
        for (int j = 0; j < 4; j++) {
            s = s * 6364136223846793005ULL + 1442695040888963407ULL;
            p[j] = (j % 2 ? 4000000 - NY * 30.0 : 500000) + (double)(s >> 11) / 9007199254740992.0 * (j % 2 ? NY : NX) * 30;
        }
        prm_piece a, b;
        memset(&a, 0, sizeof a);
        memset(&b, 0, sizeof b);
        prm_piece_measure(&e, p[0], p[1], p[2], p[3], &a);
        prm_piece_measure(&l, p[0], p[1], p[2], p[3], &b);
        assert_memory_equal(&a, &b, sizeof a);
        prm_piece_measure_classes(&l, p[0], p[1], p[2], p[3], &b);
        assert_true(a.blocked == b.blocked && a.nogo == b.nogo && a.l == b.l && a.h == b.h && a.s == b.s);
    }
    prm_terrain_tiles(&l, &got, &total);
    printf("  300 random segments measured the same; %ld tiles read\n", got);
    prm_terrain_clear(&l);
    /* the corridor search reads the arrays itself: prm_refine reads the
     * corridor's tiles first, here those of a route two rows below the
     * tiles' boundary (row 256), and refines it as on the eager terrain */
    open_lazy(ctx, dir, &f, &l);
    int c0 = 10, c1 = 500;
    while (!prm_cell_go(&e, 258L * NX + c0))
        c0++;
    while (!prm_cell_go(&e, 258L * NX + c1))
        c1--;
    prm_path pe = refined(ctx, &e, c0, c1, 258), pl = refined(ctx, &l, c0, c1, 258);
    assert_int_equal(pe.n, pl.n);
    assert_memory_equal(pe.x, pl.x, (size_t)pe.n * sizeof(double));
    assert_memory_equal(pe.y, pl.y, (size_t)pe.n * sizeof(double));
    assert_true(prm_ready(&l, 255L * NX + (c0 + c1) / 2) & PRM_HAVE_ALL);
    printf("  a corridor along a tile boundary, columns %d..%d: %d vertices, as on the eager terrain\n", c0, c1, pe.n);
    prm_path_clear(&pe);
    prm_path_clear(&pl);
    prm_terrain_clear(&l);
    open_lazy(ctx, dir, &f, &l);
    /* the whole: every cell; the heuristics' bound above every speed */
    assert_int_equal(prm_terrain_need_all(ctx, &l), TRV_OK);
    for (size_t i = 0; i < (size_t)NX * NY; i++)
        bad += !cell_same(&e, &l, i);
    assert_int_equal(bad, 0);
    double vmax = 0;
    for (size_t i = 0; i < (size_t)NX * NY; i += 3)
        for (int h = 0; h < 16 && prm_cell_go(&l, (long)i); h++) {
            double pace = prm_pace(&l, (long)i, cos(h * M_PI / 8), sin(h * M_PI / 8));
            vmax = fmax(vmax, isfinite(pace) ? 3.6 / pace : 0);
        }
    printf("  fastest %.3f km/h in any heading, the bound %.3f km/h\n", vmax, l.top_speed_kmh);
    assert_true(vmax > 5 && vmax <= l.top_speed_kmh * (1 + 1e-12));
    assert_int_equal(prm_terrain_status(ctx, &l), TRV_OK);
    prm_terrain_clear(&l);
    /* a layer gone is named at open, as prm_terrain_load names it */
    char *slope = run_path(dir, RUN_SLOPE), *moved = NULL;
    assert_true(asprintf(&moved, "%s.away", slope) > 0);
    assert_int_equal(rename(slope, moved), 0);
    assert_int_equal(prm_terrain_open(ctx, dir, &f, &l), TRV_ERR_IO);
    char want[700];
    snprintf(want, sizeof want, "cannot open '%s': no such file", slope);
    assert_string_equal(trv_errmsg(ctx), want);
    assert_int_equal(rename(moved, slope), 0);
    free(slope);
    free(moved);
    prm_terrain_facts_clear(&f);
    prm_terrain_clear(&e);
    free(dir);
    trv_ctx_free(ctx);
}

/* Tile (1, 1) of layer id in dir damaged: 64 bytes of 0xff over the start
 * of its compressed data (its offset from GDAL's TIFF metadata). */
static void damage_tile(const char *dir, run_id id)
{
    char *p = run_path(dir, id);
    GDALDatasetH ds = GDALOpen(p, GA_ReadOnly);
    assert_non_null(ds);
    const char *off = GDALGetMetadataItem(GDALGetRasterBand(ds, 1), "BLOCK_OFFSET_1_1", "TIFF");
    assert_non_null(off);
    long at = atol(off);
    GDALClose(ds);
    FILE *fp = fopen(p, "r+b");
    assert_non_null(fp);
    unsigned char junk[64];
    memset(junk, 0xff, sizeof junk);
    assert_int_equal(fseek(fp, at, SEEK_SET), 0);
    assert_int_equal(fwrite(junk, 1, sizeof junk, fp), sizeof junk);
    fclose(fp);
    free(p);
}

/* The lazy terrain's tile-major layout (prm.h tile_ntx, prm_priv.h
 * prm_at): where cells go, by hand; one tile read alone fills its own
 * block and no other, every cell as the eager read has it (gradients from
 * the seams or the neighbours' dem), for the grid's ragged last column and
 * row of tiles (88 columns, 18 rows) and along the seams; the blocks'
 * padding stays zero. */
static long block_nonzero(const prm_terrain *l, int b)
{
    long n = 0;
    for (size_t k = (size_t)b * 65536; k < (size_t)(b + 1) * 65536; k++)
        n += l->cls->u8[k] != 0 || l->cost->f32[k] != 0 || l->dem->f32[k] != 0 || l->aniso->grad[2 * k] != 0;
    return n;
}

static void one_tile(trv_ctx *ctx, const char *dir, prm_terrain_facts *f, const prm_terrain *e, int tx, int ty)
{
    prm_terrain l;
    open_lazy(ctx, dir, f, &l);
    int x0 = 256 * tx, y0 = 256 * ty, w = x0 + 256 > NX ? NX - x0 : 256, h = y0 + 256 > NY ? NY - y0 : 256;
    assert_int_equal(prm_terrain_need(ctx, &l, x0, y0, x0, y0), TRV_OK);
    long bad = 0, pad = 0, go = 0;
    for (int y = 0; y < 256; y++)
        for (int x = 0; x < 256; x++) {
            size_t k = (size_t)(3 * ty + tx) * 65536 + (size_t)y * 256 + x;
            if (x >= w || y >= h) { /* padding */
                pad += l.cls->u8[k] != 0 || l.cost->f32[k] != 0 || l.dem->f32[k] != 0 || l.aniso->pair[k] != 0;
                continue;
            }
            long i = (long)(y0 + y) * NX + x0 + x;
            assert_int_equal(prm_at(&l, i), (long)k);
            bad += !cell_same(e, &l, (size_t)i);
            go += prm_cell_go(e, i);
        }
    long others = 0;
    for (int b = 0; b < 9; b++)
        others += b != 3 * ty + tx ? block_nonzero(&l, b) : 0;
    printf("  tile (%d, %d) alone, %d x %d cells (%ld GO), seams %s: %ld differ, padding %ld, other blocks %ld\n", tx,
           ty, w, h, go, f->seams ? "from the facts" : "from the neighbours", bad, pad, others);
    assert_true(bad == 0 && pad == 0 && go > 0);
    if (f->seams) /* nothing outside its block */
        assert_int_equal(others, 0);
    prm_terrain_clear(&l);
}

static void test_lazy_layout(void **state)
{
    (void)state;
    trv_ctx *ctx = trv_ctx_new();
    char *dir = run_dir("layout");
    make_run(ctx, dir);
    prm_terrain e, l;
    prm_terrain_facts f;
    if (prm_terrain_load(ctx, dir, &e))
        fail_msg("%s", trv_errmsg(ctx));
    assert_int_equal(prm_terrain_facts_of(ctx, &e, &f), TRV_OK);
    open_lazy(ctx, dir, &f, &l);
    assert_int_equal(l.tile_ntx, 3);
    assert_int_equal(e.tile_ntx, 0);
    static const long cell[][3] = {/* column, row, place */
                                   {0, 0, 0},
                                   {255, 0, 255},
                                   {256, 0, 65536},
                                   {0, 1, 256},
                                   {1, 1, 257},
                                   {511, 255, 65536 + 255 * 256 + 255},
                                   {512, 255, 2 * 65536 + 255 * 256},
                                   {0, 256, 3 * 65536},
                                   {599, 0, 2 * 65536 + 87},
                                   {0, 529, 6 * 65536 + 17 * 256},
                                   {599, 529, 8 * 65536 + 17 * 256 + 87},
                                   {300, 400, 4 * 65536 + 144 * 256 + 44}};
    for (size_t k = 0; k < sizeof cell / sizeof *cell; k++) {
        assert_int_equal(prm_at(&l, cell[k][1] * NX + cell[k][0]), cell[k][2]);
        assert_int_equal(prm_at(&e, cell[k][1] * NX + cell[k][0]), cell[k][1] * NX + cell[k][0]);
    }
    prm_terrain_clear(&l);
    static const int tiles[][2] = {{2, 2}, {2, 0}, {0, 2}, {1, 1}, {2, 1}};
    for (int s = 0; s < 2; s++) {
        float *seams = f.seams;
        if (s)
            f.seams = NULL;
        for (size_t k = 0; k < sizeof tiles / sizeof *tiles; k++)
            one_tile(ctx, dir, &f, &e, tiles[k][0], tiles[k][1]);
        f.seams = seams;
    }
    prm_terrain_facts_clear(&f);
    prm_terrain_clear(&e);
    free(dir);
    trv_ctx_free(ctx);
}

/* A tile that cannot be read (its layers read on two threads, fill_all):
 * it reads as NOGO, the others as the eager read has them, and the error
 * names the first layer of the order dem, cost, slope, speed, soil / land
 * use that failed, whichever thread met which first. */
static void test_tile_errors(void **state)
{
    (void)state;
    trv_ctx *ctx = trv_ctx_new();
    char *good = run_dir("err");
    make_run(ctx, good);
    prm_terrain e;
    prm_terrain_facts f;
    if (prm_terrain_load(ctx, good, &e))
        fail_msg("%s", trv_errmsg(ctx));
    assert_int_equal(prm_terrain_facts_of(ctx, &e, &f), TRV_OK);
    static const struct {
        run_id bad[2];
        run_id named;
    } cases[] = {
        {{RUN_SPEED, RUN_SPEED}, RUN_SPEED}, /* the second thread's alone */
        {{RUN_SOIL, RUN_SOIL}, RUN_SOIL},    /* the first thread's alone */
        {{RUN_SPEED, RUN_SOIL}, RUN_SPEED},  /* both: speed comes before soil */
        {{RUN_DEM, RUN_COST}, RUN_DEM},      /* both: dem comes first */
        {{RUN_SLOPE, RUN_LANDUSE}, RUN_SLOPE},
    };
    for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
        char *dir = NULL, *cmd = NULL;
        assert_true(asprintf(&dir, "%s%zu", good, k) > 0 && asprintf(&cmd, "cp -R '%s' '%s'", good, dir) > 0);
        assert_int_equal(system(cmd), 0);
        damage_tile(dir, cases[k].bad[0]);
        if (cases[k].bad[1] != cases[k].bad[0])
            damage_tile(dir, cases[k].bad[1]);
        prm_terrain l;
        open_lazy(ctx, dir, &f, &l);
        /* tile (0, 0) first: read as the eager read has it, no error yet */
        assert_int_equal(prm_terrain_need(ctx, &l, 10, 10, 20, 20), TRV_OK);
        assert_int_equal(prm_terrain_need(ctx, &l, 300, 300, 310, 310), TRV_ERR_FORMAT);
        char *named = run_path(dir, cases[k].named), want[800];
        snprintf(want, sizeof want, "cannot read '%s'", named);
        if (strncmp(trv_errmsg(ctx), want, strlen(want)))
            fail_msg("case %zu: '%s', want '%s...'", k, trv_errmsg(ctx), want);
        long bad = 0, nogo = 0;
        for (int r = 0; r < 512; r++)
            for (int c = 0; c < 512; c++) {
                size_t i = (size_t)r * NX + c;
                if (r >= 256 && c >= 256)
                    nogo += !prm_cell_go(&l, (long)i);
                else if (r < 256 && c < 256)
                    bad += !cell_same(&e, &l, i);
            }
        assert_int_equal(bad, 0);
        if (nogo != 256 * 256)
            fail_msg("case %zu: %ld NOGO cells in the damaged tile", k, nogo);
        /* the error stays (the first one) */
        assert_int_equal(prm_terrain_status(ctx, &l), TRV_ERR_FORMAT);
        assert_true(!strncmp(trv_errmsg(ctx), want, strlen(want)));
        prm_terrain_clear(&l);
        free(named);
        free(cmd);
        free(dir);
    }
    prm_terrain_facts_clear(&f);
    prm_terrain_clear(&e);
    free(good);
    trv_ctx_free(ctx);
}

/* The class code runs of a 300 x 300 grid all class 3 but its last cell
 * NOGO: runs of at most 65535 cells (a 16-bit length), in order. */
static void test_class_runs(void **state)
{
    (void)state;
    trv_ctx *ctx = trv_ctx_new();
    geo_grid g = {300, 300, {500000, 30, 0, 4000000, 0, -30}, NULL};
    prm_terrain t;
    memset(&t, 0, sizeof t);
    assert_int_equal(geo_raster_new(ctx, &g, GEO_U8, &t.cls), TRV_OK);
    assert_int_equal(geo_raster_new(ctx, &g, GEO_U8, &t.gonogo), TRV_OK);
    t.grid = &t.cls->grid;
    memset(t.cls->u8, 3, 90000);
    t.gonogo->u8[89999] = 1;
    prm_terrain_facts f;
    memset(&f, 0, sizeof f);
    assert_int_equal(prm_class_runs(ctx, &t, &f), TRV_OK);
    assert_true(f.ncells == 90000 && f.nruns == 3);
    assert_true(f.run_code[0] == 3 && f.run_len[0] == 65535 && f.run_code[1] == 3 && f.run_len[1] == 24464);
    assert_true(f.run_code[2] == PRM_CL_NOGO && f.run_len[2] == 1);
    /* their check (the roadmap cache's mapped runs, prm_lazy_codes): the
     * hash of the codes then the lengths, by hand, and the lengths' sum */
    uint64_t h = prm_hash_bytes(prm_hash_bytes(PRM_FNV_SEED, f.run_code, 3), f.run_len, 6);
    assert_true(prm_class_runs_hash(f.run_code, f.run_len, 3) == h);
    assert_true(prm_class_runs_ok(f.run_code, f.run_len, 3, 90000, h));
    assert_false(prm_class_runs_ok(f.run_code, f.run_len, 3, 90000, h + 1));
    assert_false(prm_class_runs_ok(f.run_code, f.run_len, 3, 90001, h));
    f.run_len[1]--, f.run_len[2]++; /* the same sum, another hash */
    assert_false(prm_class_runs_ok(f.run_code, f.run_len, 3, 90000, h));
    f.run_len[1] = 24465, f.run_len[2] = 0; /* a zero length, the same sum */
    assert_true(f.run_len[0] + f.run_len[1] + f.run_len[2] == 90000);
    assert_false(prm_class_runs_ok(f.run_code, f.run_len, 3, 90000,
                                   prm_class_runs_hash(f.run_code, f.run_len, 3)));
    prm_terrain_facts_clear(&f);
    prm_terrain_clear(&t);
    trv_ctx_free(ctx);
}

/* The cache against the GeoPackage, and every way it cannot be used. */
/* The seam cells tile (tx, ty)'s gradients read (terrain_lazy.c
 * dem_window: the ring one cell around the tile, the rows above and below
 * over every column of the ring, the columns left and right over the
 * tile's rows), as indices into prm_seams_count's layout, written from
 * the layout's description (prm.h) and not from seams.c: marked 1. */
static void ring_mark(int nx, int ny, int tx, int ty, unsigned char *mark)
{
    int nty = (ny + PRM_TILE - 1) / PRM_TILE;
    int x0 = tx * PRM_TILE, y0 = ty * PRM_TILE;
    int w = x0 + PRM_TILE > nx ? nx - x0 : PRM_TILE, h = y0 + PRM_TILE > ny ? ny - y0 : PRM_TILE;
    size_t cols = 2 * (size_t)(nty - 1) * nx;
    for (int y = y0 - 1; y <= y0 + h; y++)
        for (int x = x0 - 1; x <= x0 + w; x++) {
            if (x < 0 || y < 0 || x >= nx || y >= ny || (x >= x0 && x < x0 + w && y >= y0 && y < y0 + h))
                continue;
            if (y < y0) /* row y0 - 1: the first line of boundary ty (lines 2 (ty - 1), 2 (ty - 1) + 1) */
                mark[2 * (size_t)(ty - 1) * nx + x] = 1;
            else if (y == y0 + h) /* row y0 + h: the second line of boundary ty + 1 */
                mark[(2 * (size_t)ty + 1) * nx + x] = 1;
            else if (x < x0)
                mark[cols + 2 * (size_t)(tx - 1) * ny + y] = 1;
            else
                mark[cols + (2 * (size_t)tx + 1) * ny + y] = 1;
        }
}

/* The piece (seams.c) of seam cell k, from the layout: the row lines cut
 * every PRM_TILE columns, then the column lines every PRM_TILE rows;
 * pieces numbered in that order. */
static size_t piece_of(int nx, int ny, size_t k)
{
    size_t ntx = ((size_t)nx + PRM_TILE - 1) / PRM_TILE, nty = ((size_t)ny + PRM_TILE - 1) / PRM_TILE;
    size_t rows = 2 * (nty - 1) * (size_t)nx;
    if (k < rows)
        return k / (size_t)nx * ntx + k % (size_t)nx / PRM_TILE;
    k -= rows;
    return 2 * (nty - 1) * ntx + k / (size_t)ny * nty + k % (size_t)ny / PRM_TILE;
}

/* The seams' pieces on grids of 3 x 3 tiles (600 x 530: the last column
 * and row of tiles 88 and 18 cells), 2 x 1 and 1 x 1: their count by
 * hand; every cell of the seams changed in turn (one ulp), prm_seams_check
 * fails for every tile whose gradients read it (ring_mark), and for no
 * tile but those whose checked pieces hold it: the pieces of the cells it
 * reads (a whole piece hashed, 256 cells) and, along a row line, their
 * neighbours (the ring's corner cells reach one cell into them). */
static void test_seams_pieces(void **state)
{
    (void)state;
    static const int grids[3][2] = {{NX, NY}, {300, 200}, {100, 90}};
    static const size_t want[3] = {4 * 3 + 4 * 3, 0 + 2 * 1, 0};
    for (int g = 0; g < 3; g++) {
        int nx = grids[g][0], ny = grids[g][1];
        int ntx = (nx + PRM_TILE - 1) / PRM_TILE, nty = (ny + PRM_TILE - 1) / PRM_TILE;
        size_t n = prm_seams_count(nx, ny), np = prm_seams_pieces(nx, ny), rows = 2 * (size_t)(nty - 1) * nx;
        assert_int_equal(np, want[g]);
        float *s = malloc(n * sizeof *s + 1);
        uint64_t *h = malloc(np * sizeof *h + 1);
        unsigned char *reads = calloc((size_t)ntx * nty * n + 1, 1), *may = calloc((size_t)ntx * nty * np + 1, 1);
        assert_true(s && h && reads && may);
        for (size_t k = 0; k < n; k++)
            s[k] = (float)(k % 977) * 0.25f - 7;
        prm_seams_hash(s, nx, ny, h);
        for (int t = 0; t < ntx * nty; t++) {
            unsigned char *r = reads + (size_t)t * n, *m = may + (size_t)t * np;
            ring_mark(nx, ny, t % ntx, t / ntx, r);
            for (size_t q = 0; q < n; q++)
                if (r[q]) {
                    size_t p = piece_of(nx, ny, q);
                    m[p] = 1;
                    if (q < rows && q % nx / PRM_TILE > 0)
                        m[p - 1] = 1;
                    if (q < rows && q % nx / PRM_TILE + 1 < (size_t)ntx)
                        m[p + 1] = 1;
                }
            assert_int_equal(prm_seams_check(s, h, nx, ny, t % ntx, t / ntx), 0);
        }
        long failed = 0, wrong = 0, read = 0;
        for (size_t k = 0; k < n; k++) {
            float keep = s[k];
            s[k] = nextafterf(keep, INFINITY);
            for (int t = 0; t < ntx * nty; t++) {
                int bad = prm_seams_check(s, h, nx, ny, t % ntx, t / ntx) != 0;
                int r = reads[(size_t)t * n + k], m = may[(size_t)t * np + piece_of(nx, ny, k)];
                failed += bad, read += r;
                wrong += (r && !bad) || (bad && !m);
            }
            s[k] = keep;
        }
        printf("  %d x %d: %zu seam cells in %zu pieces; one changed: %ld tile checks fail, %ld reads, %ld wrong\n",
               nx, ny, n, np, failed, read, wrong);
        assert_int_equal(wrong, 0);
        assert_true(n == 0 || (read > 0 && failed >= read));
        free(s);
        free(h);
        free(reads);
        free(may);
    }
}

/* One byte of path at off changed. */
static void flip_byte(const char *path, long off)
{
    FILE *f = fopen(path, "r+b");
    assert_non_null(f);
    assert_int_equal(fseek(f, off, SEEK_SET), 0);
    int c = fgetc(f);
    assert_true(c != EOF);
    assert_int_equal(fseek(f, off, SEEK_SET), 0);
    assert_int_equal(fputc(c ^ 0x41, f), c ^ 0x41);
    fclose(f);
}

/* The piece of edge e from the table (eb's b with eb[b] <= e < eb[b+1]). */
static int piece_of_edge(const int64_t *eb, int nb, int e)
{
    for (int b = 0; b < nb; b++)
        if (eb[b] <= e && e < eb[b + 1])
            return b;
    return -1;
}

/* The pieces' pages asked of the disk ahead (roadmap_pieces.c), counted
 * in the map: none on reading; a node's pieces when first needed, each
 * from the start of the page holding its first edge to its last edge's
 * end (a node whose edges lie in two pieces, worked out here from the
 * table); every edge at once (from the page holding the first) when a
 * reader of them all first needs them; nothing more when asked again;
 * madvise never refusing. */
static void ahead_asked(trv_ctx *ctx, const prm_roadmap *c, const int64_t *eb, const int *start, const int *adj)
{
    const prm_roadmap_map *m = c->map;
    uint64_t pg = (uint64_t)sysconf(_SC_PAGESIZE), at = (uint64_t)(uintptr_t)c->edges, want = 0;
    int u = -1;
    for (int v = 0; v < c->nnodes && u < 0; v++)
        for (int j = start[v] + 1; j < start[v + 1]; j++)
            if (piece_of_edge(eb, m->nb, adj[j]) != piece_of_edge(eb, m->nb, adj[start[v]]))
                u = v;
    assert_true(u >= 0 && m->ahead_bytes == 0 && m->ahead_refused == 0);
    char *seen = calloc((size_t)m->nb, 1);
    for (int j = start[u]; j < start[u + 1]; j++) {
        int b = piece_of_edge(eb, m->nb, adj[j]);
        if (b < 0 || b >= m->nb)
            fail_msg("edge %d in no piece", adj[j]);
        uint64_t a = at + (uint64_t)eb[b] * sizeof(prm_edge), z = at + (uint64_t)eb[b + 1] * sizeof(prm_edge);
        want += seen[b]++ ? 0 : z - a / pg * pg;
    }
    free(seen);
    assert_int_equal(prm_roadmap_need(ctx, c, u), TRV_OK);
    assert_true(m->ahead_bytes == want && want > 0);
    assert_int_equal(prm_roadmap_need(ctx, c, u), TRV_OK);
    assert_true(m->ahead_bytes == want);
    want += at + (uint64_t)c->nedges * sizeof(prm_edge) - at / pg * pg;
    assert_int_equal(prm_roadmap_need_all(ctx, c), TRV_OK);
    assert_true(m->ahead_bytes == want);
    assert_int_equal(prm_roadmap_need_all(ctx, c), TRV_OK);
    assert_true(m->ahead_bytes == want && m->ahead_refused == 0);
    printf("  pages asked ahead: node %d's pieces, then every edge: %llu bytes\n", u, (unsigned long long)want);
}

/* Version 6's roadmap by pieces (roadmap_pieces.h): the components'
 * labels equal where a union-find over the GeoPackage's edges (back) joins
 * the nodes; every edge of piece b has its first end in tile b of the
 * table's grid (the tile worked out here from the layout's formula) and
 * the edges of a piece keep the GeoPackage's order of (a, b); each piece
 * damaged in turn (one byte of its first edge) in a copy of the cache
 * (keep): read without a note, prm_roadmap_need(u) fails, naming the
 * cache, for exactly the nodes one of whose edges lies in the damaged
 * piece (found from the cache's adjacency and the table by a linear
 * scan), and prm_roadmap_need_all fails. */
static void pieces_damaged(trv_ctx *ctx, const char *gpkg, const char *dir, const char *bin, const char *keep,
                           const prm_roadmap *back, long at_pieces)
{
    prm_roadmap *c = NULL;
    prm_terrain_facts f;
    int same;
    char note[1200];
    copy_file(keep, bin);
    assert_int_equal(prm_roadmap_cache_read(ctx, gpkg, dir, &c, &f, &same, note, sizeof note), TRV_OK);
    assert_true(c && c->map && c->comp && note[0] == 0 && c->map->renumbered);
    int n = back->nnodes, ne = back->nedges, nb = c->map->nb, *root = malloc((size_t)n * sizeof *root);
    for (int i = 0; i < n; i++)
        root[i] = i;
    for (int e = 0; e < ne; e++)
        root[prm_uf_find(root, back->edges[e].a)] = prm_uf_find(root, back->edges[e].b);
    for (int i = 0; i < n; i++)
        for (int j = i + 1; j < n; j += 7)
            assert_int_equal(c->comp[i] == c->comp[j], prm_uf_find(root, i) == prm_uf_find(root, j));
    free(root);
    int64_t *eb = malloc(((size_t)nb + 1) * sizeof *eb);
    int *adj = malloc(2 * (size_t)ne * sizeof *adj), *start = malloc(((size_t)n + 1) * sizeof *start);
    memcpy(eb, c->map->eb, ((size_t)nb + 1) * sizeof *eb);
    memcpy(adj, c->adj, 2 * (size_t)ne * sizeof *adj);
    memcpy(start, c->adj_start, ((size_t)n + 1) * sizeof *start);
    const prm_roadmap_map *m = c->map;
    int tiles = 0;
    for (int b = 0; b < nb; b++) {
        tiles += eb[b] < eb[b + 1];
        for (int64_t e = eb[b]; e < eb[b + 1]; e++) {
            const prm_edge *ed = &c->edges[e];
            double cx = floor((c->x[ed->a] - m->x0) / m->side), cy = floor((c->y[ed->a] - m->y0) / m->side);
            int tx = cx < 0 ? 0 : cx > m->ntx - 1 ? m->ntx - 1 : (int)cx;
            int ty = cy < 0 ? 0 : cy > m->nty - 1 ? m->nty - 1 : (int)cy;
            assert_int_equal(ty * m->ntx + tx, b);
            if (e > eb[b])
                assert_true(ed[-1].a < ed->a || (ed[-1].a == ed->a && ed[-1].b < ed->b));
        }
    }
    long at_edges = at_pieces + 48 + 16L * nb + 8;
    printf("  the roadmap's edges in %d tiles of %d x %d (%d with edges)\n", nb, m->ntx, m->nty, tiles);
    ahead_asked(ctx, c, eb, start, adj);
    /* taken as its own (the zones change it): the GeoPackage's edges, numbering and adjacency again */
    assert_int_equal(prm_roadmap_own(ctx, c), TRV_OK);
    assert_true(c->map == NULL && c->comp == NULL && c->nedges == ne);
    assert_memory_equal(c->edges, back->edges, (size_t)ne * sizeof *c->edges);
    assert_memory_equal(c->adj_start, back->adj_start, ((size_t)n + 1) * sizeof *c->adj_start);
    assert_memory_equal(c->adj, back->adj, 2 * (size_t)ne * sizeof *c->adj);
    assert_true(tiles >= 4);
    prm_terrain_facts_clear(&f);
    prm_roadmap_free(c);
    for (int d = 0; d < nb; d++) {
        if (eb[d] == eb[d + 1])
            continue;
        copy_file(keep, bin);
        flip_byte(bin, at_edges + (long)eb[d] * (long)sizeof(prm_edge) + 17);
        assert_int_equal(prm_roadmap_cache_read(ctx, gpkg, dir, &c, &f, &same, note, sizeof note), TRV_OK);
        assert_true(c && note[0] == 0);
        long fails = 0, wrong = 0;
        for (int u = 0; u < n; u++) {
            int want = 0;
            for (int j = start[u]; j < start[u + 1]; j++)
                want |= piece_of_edge(eb, nb, adj[j]) == d;
            trv_status st = prm_roadmap_need(ctx, c, u);
            fails += st != TRV_OK;
            wrong += (st != TRV_OK) != want;
            char msg[1200];
            snprintf(msg, sizeof msg, "the roadmap cache '%s' is damaged (its edges", bin);
            if (st && (st != TRV_ERR_DATA || strncmp(trv_errmsg(ctx), msg, strlen(msg))))
                fail_msg("piece %d, node %d: %s", d, u, trv_errmsg(ctx));
        }
        if (fails && d == piece_of_edge(eb, nb, 0))
            printf("  piece %d damaged: %ld of %d nodes fail (%s)\n", d, fails, n, trv_errmsg(ctx));
        assert_true(fails > 0 && wrong == 0);
        assert_int_equal(prm_roadmap_need_all(ctx, c), TRV_ERR_DATA);
        prm_terrain_facts_clear(&f);
        prm_roadmap_free(c);
    }
    free(eb);
    free(adj);
    free(start);
    copy_file(keep, bin);
}

static void test_roadmap_cache(void **state)
{
    (void)state;
    trv_ctx *ctx = trv_ctx_new();
    char *dir = run_dir("cache");
    make_run(ctx, dir);
    prm_terrain e;
    if (prm_terrain_load(ctx, dir, &e))
        fail_msg("%s", trv_errmsg(ctx));
    prm_build_opts o;
    prm_build_opts_init(&o);
    o.nodes = 400;
    prm_roadmap *r = NULL, *back = NULL, *c = NULL;
    prm_build_stats bs;
    assert_int_equal(prm_roadmap_build(ctx, &e, &o, &r, &bs), TRV_OK);
    char *gpkg = NULL, *bin = NULL, *other = NULL;
    assert_true(asprintf(&gpkg, "%s/roadmap.gpkg", dir) > 0 && asprintf(&other, "%s/other.gpkg", dir) > 0);
    bin = prm_roadmap_cache_path(gpkg);
    char *want_bin = NULL;
    assert_true(asprintf(&want_bin, "%s/roadmap.bin", dir) > 0);
    assert_string_equal(bin, want_bin);
    assert_int_equal(prm_roadmap_write(ctx, r, gpkg, NULL), TRV_OK);
    assert_int_equal(prm_roadmap_cache_write(ctx, r, &e, dir, gpkg, bin), TRV_OK);
    assert_int_equal(prm_roadmap_read(ctx, gpkg, &back), TRV_OK);
    prm_terrain_facts f;
    int same = -1;
    char note[1200];
    assert_int_equal(prm_roadmap_cache_read(ctx, gpkg, dir, &c, &f, &same, note, sizeof note), TRV_OK);
    assert_non_null(c);
    assert_string_equal(note, "");
    assert_int_equal(same, 1);
    /* exactly the GeoPackage's roadmap */
    assert_true(c->nnodes == back->nnodes && c->nedges == back->nedges && c->nedges > 1000);
    assert_true(c->k == back->k && c->radius == back->radius && c->seed == back->seed);
    assert_memory_equal(c->x, back->x, (size_t)c->nnodes * sizeof *c->x);
    assert_memory_equal(c->y, back->y, (size_t)c->nnodes * sizeof *c->y);
    /* the edges renumbered by tile (roadmap_pieces.h): each node's adjacency the GeoPackage's, edge for edge */
    assert_memory_equal(c->adj_start, back->adj_start, ((size_t)c->nnodes + 1) * sizeof(int));
    for (long j = 0; j < 2L * c->nedges; j++)
        assert_memory_equal(&c->edges[c->adj[j]], &back->edges[back->adj[j]], sizeof(prm_edge));
    assert_true(geo_crs_same(c->wkt, back->wkt));
    assert_true(f.direction_aware && f.tmax == e.aniso->tmax && f.top_speed_kmh == e.top_speed_kmh &&
                f.npairs == e.aniso->npairs && !memcmp(f.codes, e.aniso->codes, 2 * (size_t)f.npairs));
    assert_memory_equal(f.pace, e.aniso->pace, (size_t)f.npairs * (PRM_PACE_NODES + 1) * sizeof(double));
    assert_memory_equal(f.ok, e.aniso->ok, (size_t)f.npairs * PRM_PACE_NODES);
    /* the seams: dem's rows 255, 256, 511, 512, then its columns 255, 256, 511, 512 */
    assert_true(f.seam_nx == NX && f.seam_ny == NY && prm_seams_count(NX, NY) == 4 * NX + 4 * NY);
    assert_memory_equal(f.seams + 3 * NX, e.dem->f32 + 512 * NX, NX * sizeof(float));
    for (int y = 0; y < NY; y++)
        assert_true(f.seams[4 * NX + 2 * NY + y] == e.dem->f32[(size_t)y * NX + 511]);
    /* where they lie in the file (its layout, roadmap_cache.c): for the damaged case below */
    long at_grid = 8 + 16 + 16 + 11 * 16 + 8 + 8 + 8 + 2 * f.npairs +
                   (long)f.npairs * (PRM_PACE_NODES + 1) * 8 + (long)f.npairs * PRM_PACE_NODES + 8;
    /* zeros to a multiple of 8, each piece's hash (a 3 x 3 grid of tiles: 4 lines of 3 pieces each way), the cells */
    assert_int_equal(prm_seams_pieces(NX, NY), 4 * 3 + 4 * 3);
    long at_seams = (at_grid + 7) / 8 * 8 + 8 * 24;
    assert_true(f.seam_map != NULL && f.seam_hash != NULL &&
                (const unsigned char *)f.seam_hash + 8 * 24 == (const unsigned char *)f.seams);
    float first;
    FILE *fp = fopen(bin, "rb");
    assert_non_null(fp);
    assert_int_equal(fseek(fp, at_seams, SEEK_SET), 0);
    assert_int_equal(fread(&first, sizeof first, 1, fp), 1);
    fclose(fp);
    assert_true(first == e.dem->f32[255 * NX]);
    /* the class code runs after them: counts, hash, lengths, codes */
    long at_runs = at_seams + (long)prm_seams_count(NX, NY) * 4;
    long nruns = (long)f.nruns;
    assert_true(f.runs_map != NULL && (const unsigned char *)f.run_len + 2 * nruns == f.run_code);
    uint64_t nr[2];
    fp = fopen(bin, "rb");
    assert_non_null(fp);
    assert_int_equal(fseek(fp, at_runs, SEEK_SET), 0);
    assert_int_equal(fread(nr, sizeof nr, 1, fp), 1);
    fclose(fp);
    assert_true(nr[0] == (uint64_t)NX * NY && nr[1] == f.nruns && f.nruns > 100);
    /* the roadmap after the runs (version 6: counts and CRS, zeros to 8, x, y, adj_start, the components'
     * labels, zeros to 8, their hash; B and nb, nb + 1 edge starts, nb hashes, the edges, the adjacency),
     * then the layers' header, {NX, NY, 8, 0} */
    long at_nodes = (at_runs + 16 + 3 * (long)f.nruns + 8 + 32 + (long)strlen(c->wkt) + 7) / 8 * 8;
    long at_pieces =
        (at_nodes + 16L * c->nnodes + 4L * (c->nnodes + 1) + 4L * c->nnodes + 8L * c->nedges + 7) / 8 * 8 + 8;
    int nb = c->map ? c->map->nb : -1;
    assert_true(nb >= 1 && nb == c->map->ntx * c->map->nty);
    long at_layers = at_pieces + 48 + 8L * (nb + 1) + 8L * nb + (long)c->nedges * (long)sizeof(prm_edge);
    assert_true((const unsigned char *)c->edges == (const unsigned char *)c->map->base + at_pieces % 4096 + 48 +
                                                       16L * nb + 8);
    assert_true(c->map->hier_hash == prm_hier_hash(back)); /* an index is matched without reading every edge */
    uint32_t lh[4];
    fp = fopen(bin, "rb");
    assert_non_null(fp);
    assert_int_equal(fseek(fp, at_layers, SEEK_SET), 0);
    assert_int_equal(fread(lh, sizeof lh, 1, fp), 1);
    fclose(fp);
    assert_true(lh[0] == NX && lh[1] == NY && lh[2] == PRM_LY_N && lh[3] == 0);
    /* mapped, page-aligned, each layer the eager terrain's array */
    assert_true(f.layers && f.layers_nx == NX && f.layers_ny == NY && f.layers_n == PRM_LY_N);
    const void *want_ly[PRM_LY_N] = {e.cls->u8, e.gonogo->u8, e.cost->f32, e.dem->f32,
                                     e.slope->f32, e.speed->f32, e.aniso->grad, e.aniso->pair};
    for (int k = 0; k < PRM_LY_N; k++) {
        assert_true((uintptr_t)prm_cache_layer(&f, k) % PRM_CACHE_ALIGN == 0);
        assert_memory_equal(prm_cache_layer(&f, k), want_ly[k], (size_t)NX * NY * prm_cache_layer_cell(k));
    }
    /* opened on them: nothing left to read, every cell as the eager terrain's */
    prm_terrain l;
    open_lazy(ctx, dir, &f, &l);
    assert_true(l.ready == NULL && f.map == NULL);
    int differ = 0;
    for (size_t i = 0; i < (size_t)NX * NY; i++)
        differ += !cell_same(&e, &l, i);
    assert_int_equal(differ, 0);
    assert_true(f.runs_map == NULL && f.run_code == NULL); /* taken */
    /* the mmcr heuristic's codes from the cache's mapped runs: the eager terrain's */
    unsigned char *ce = prm_class_codes(&e), *cl = prm_class_codes(&l);
    assert_true(ce && cl);
    assert_memory_equal(ce, cl, ((size_t)NX * NY + 1) / 2);
    assert_int_equal(prm_terrain_status(ctx, &l), TRV_OK);
    free(cl);
    prm_terrain_clear(&l);
    prm_roadmap_free(c);
    prm_terrain_facts_clear(&f);
    c = NULL;
    /* each way a cache cannot be used: no roadmap, a note saying why */
    struct {
        const char *what, *cmd, *note;
    } bad[] = {
        {"truncated", "truncate -s 100000 '%s/roadmap.bin'", "is truncated or damaged"},
        {"one byte short", "cp '%s/keep.bin' '%s/roadmap.bin' && truncate -s -1 '%s/roadmap.bin'", "is truncated"},
        {"one byte long", "cp '%s/keep.bin' '%s/roadmap.bin' && printf x >> '%s/roadmap.bin'", "is truncated or damaged"},
        {"damaged nodes", "cp '%s/keep.bin' '%s/roadmap.bin' && printf '\\7' | dd of='%s/roadmap.bin' "
                          "bs=1 seek=$(( %ld + 3 )) conv=notrunc 2>/dev/null",
         "is truncated or damaged"},
        {"damaged edge starts", "cp '%s/keep.bin' '%s/roadmap.bin' && printf '\\377\\377' | dd of='%s/roadmap.bin' "
                                "bs=1 seek=$(( %ld + 48 + 8 + 2 )) conv=notrunc 2>/dev/null",
         "is truncated or damaged"},
        {"damaged layers' header", "cp '%s/keep.bin' '%s/roadmap.bin' && printf '\\7' | dd of='%s/roadmap.bin' bs=1 "
                                   "seek=$(( %ld + 8 )) conv=notrunc 2>/dev/null",
         "is truncated or damaged"},
        {"foreign", "printf 'not a cache at all' > '%s/roadmap.bin'", "is not a roadmap cache of this build"},
        {"runs' count", "cp '%s/keep.bin' '%s/roadmap.bin' && printf '\\377' | dd of='%s/roadmap.bin' bs=1 "
                        "seek=$(( %ld + 8 + 5 )) conv=notrunc 2>/dev/null",
         "is truncated or damaged"},
        {"older version", "cp '%s/keep.bin' '%s/roadmap.bin' && printf '\\4' | dd of='%s/roadmap.bin' bs=1 "
                          "seek=8 conv=notrunc 2>/dev/null",
         "is of an older version"},
        {"another roadmap's", "cp '%s/other.bin' '%s/roadmap.bin'", "is stale"},
        {"missing", "rm '%s/roadmap.bin'", "does not exist"},
    };
    char *keep = NULL;
    assert_true(asprintf(&keep, "%s/keep.bin", dir) > 0);
    copy_file(bin, keep);
    o.seed = 9;
    prm_roadmap *r2 = NULL;
    assert_int_equal(prm_roadmap_build(ctx, &e, &o, &r2, &bs), TRV_OK);
    char *other_bin = prm_roadmap_cache_path(other);
    assert_int_equal(prm_roadmap_write(ctx, r2, other, NULL), TRV_OK);
    assert_int_equal(prm_roadmap_cache_write(ctx, r2, &e, dir, other, other_bin), TRV_OK);
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        copy_file(keep, bin);
        char cmd[2000];
        if (strstr(bad[k].what, "runs"))
            snprintf(cmd, sizeof cmd, bad[k].cmd, dir, dir, dir, at_runs);
        else if (strstr(bad[k].what, "layers"))
            snprintf(cmd, sizeof cmd, bad[k].cmd, dir, dir, dir, at_layers);
        else if (strstr(bad[k].what, "nodes"))
            snprintf(cmd, sizeof cmd, bad[k].cmd, dir, dir, dir, at_nodes);
        else if (strstr(bad[k].what, "edge starts"))
            snprintf(cmd, sizeof cmd, bad[k].cmd, dir, dir, dir, at_pieces);
        else
            snprintf(cmd, sizeof cmd, bad[k].cmd, dir, dir, dir, dir);
        assert_int_equal(system(cmd), 0);
        assert_int_equal(prm_roadmap_cache_read(ctx, gpkg, dir, &c, &f, &same, note, sizeof note), TRV_OK);
        printf("  %s: %s\n", bad[k].what, note);
        assert_null(c);
        if (!strstr(note, bad[k].note) || !strstr(note, "reading the GeoPackage"))
            fail_msg("%s: note '%s' lacks '%s'", bad[k].what, note, bad[k].note);
    }
    /* a run's code or length damaged: the cache is read (its runs are not),
     * and found damaged when the codes are expanded: all NOGO, the error kept */
    for (int k = 0; k < 2; k++) {
        copy_file(keep, bin);
        long at = at_runs + 24 + (k ? 2 * nruns + 5 : 3);
        char cmd[2000];
        snprintf(cmd, sizeof cmd, "printf '\\7' | dd of='%s' bs=1 seek=%ld conv=notrunc 2>/dev/null", bin, at);
        assert_int_equal(system(cmd), 0);
        assert_int_equal(prm_roadmap_cache_read(ctx, gpkg, dir, &c, &f, &same, note, sizeof note), TRV_OK);
        assert_true(c && note[0] == 0);
        prm_terrain l2;
        open_lazy(ctx, dir, &f, &l2);
        assert_int_equal(prm_terrain_status(ctx, &l2), TRV_OK);
        unsigned char *cd = prm_class_codes(&l2);
        size_t nonzero = 0;
        for (size_t i = 0; cd && i < ((size_t)NX * NY + 1) / 2; i++)
            nonzero += cd[i] != 0;
        assert_true(cd && nonzero == 0);
        assert_int_equal(prm_terrain_status(ctx, &l2), TRV_ERR_DATA);
        printf("  damaged runs (%s): %s\n", k ? "a code" : "a length", trv_errmsg(ctx));
        assert_non_null(strstr(trv_errmsg(ctx), "the roadmap cache's class code runs are damaged"));
        free(cd);
        prm_terrain_clear(&l2);
        prm_terrain_facts_clear(&f);
        prm_roadmap_free(c);
        c = NULL;
    }
    free(ce);
    pieces_damaged(ctx, gpkg, dir, bin, keep, back, at_pieces);
    /* the GeoPackage rewritten after the cache: stale */
    copy_file(keep, bin);
    assert_int_equal(prm_roadmap_write(ctx, r2, gpkg, NULL), TRV_OK);
    assert_int_equal(prm_roadmap_cache_read(ctx, gpkg, dir, &c, &f, &same, note, sizeof note), TRV_OK);
    assert_null(c);
    assert_non_null(strstr(note, "is stale"));
    /* the terrain changed since the roadmap: the roadmap, but not the facts */
    assert_int_equal(prm_roadmap_write(ctx, r, gpkg, NULL), TRV_OK);
    assert_int_equal(prm_roadmap_cache_write(ctx, r, &e, dir, gpkg, bin), TRV_OK);
    e.cost->f32[12345] += 0.5f;
    write_layer(ctx, dir, RUN_COST, e.cost);
    assert_int_equal(prm_roadmap_cache_read(ctx, gpkg, dir, &c, &f, &same, note, sizeof note), TRV_OK);
    assert_non_null(c);
    assert_int_equal(same, 0);
    prm_roadmap_free(c);
    prm_terrain_facts_clear(&f);
    prm_roadmap_free(r);
    prm_roadmap_free(r2);
    prm_roadmap_free(back);
    prm_terrain_clear(&e);
    free(gpkg);
    free(bin);
    free(other);
    free(other_bin);
    free(want_bin);
    free(keep);
    free(dir);
    trv_ctx_free(ctx);
}

/* prm_terrain_set_model's pairs (numbered in bands of cells on every
 * core, then merged) against the test's own single pass: numbered as they
 * first appear row by row, the same codes, every GO cell's pair (0xffff
 * elsewhere); the second half of the cells meets the pairs in another
 * order than the first (a band of its own there is renumbered). */
static void test_pair_order(void **state)
{
    (void)state;
    trv_ctx *ctx = trv_ctx_new();
    char *dir = run_dir("pairs");
    make_run(ctx, dir);
    prm_terrain e;
    if (prm_terrain_load(ctx, dir, &e))
        fail_msg("%s", trv_errmsg(ctx));
    char *ps = run_path(dir, RUN_SOIL), *pl = run_path(dir, RUN_LANDUSE);
    geo_raster *soil, *lu;
    assert_int_equal(geo_raster_read(ctx, ps, GEO_U8, &soil), TRV_OK);
    assert_int_equal(geo_raster_read(ctx, pl, GEO_U8, &lu), TRV_OK);
    static int num[256 * 256];
    unsigned char codes[2 * 64];
    int np = 0, seen2[64] = {0}, n2 = 0, renumbered = 0;
    memset(num, 0xff, sizeof num);
    for (size_t i = 0; i < (size_t)NX * NY; i++) {
        if (!prm_cell_go(&e, (long)i)) {
            assert_int_equal(e.aniso->pair[i], 0xffff);
            continue;
        }
        int key = soil->u8[i] * 256 + lu->u8[i];
        if (num[key] < 0) {
            assert_true(np < 64);
            num[key] = np;
            codes[2 * np] = soil->u8[i], codes[2 * np + 1] = lu->u8[i];
            np++;
        }
        if (e.aniso->pair[i] != num[key])
            fail_msg("cell %zu: pair %d, want %d", i, e.aniso->pair[i], num[key]);
        if (i >= (size_t)NX * NY / 2 && !seen2[num[key]]) { /* the second half's own order */
            seen2[num[key]] = 1;
            renumbered |= num[key] != n2++;
        }
    }
    assert_int_equal(e.aniso->npairs, np);
    assert_memory_equal(e.aniso->codes, codes, 2 * (size_t)np);
    if (!(np > 4 && renumbered))
        fail_msg("%d pairs; the second half meets them in their own order: it tests no renumbering", np);
    geo_raster_free(soil);
    geo_raster_free(lu);
    free(ps);
    free(pl);
    prm_terrain_clear(&e);
    free(dir);
    trv_ctx_free(ctx);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_lazy_window),
        cmocka_unit_test(test_lazy_layout),
        cmocka_unit_test(test_tile_errors),
        cmocka_unit_test(test_seams_pieces),
        cmocka_unit_test(test_roadmap_cache),
        cmocka_unit_test(test_class_runs),
        cmocka_unit_test(test_pair_order),
    };
    return cmocka_run_group_tests(tests, tmpdir_setup, tmpdir_teardown);
}
