/* The point cloud as an EPT dataset (src/terrain/ept.h): the depth rule and
 * node indices by hand, a small grid's dataset read back file by file
 * against the cells it came from, and the directory output's commit
 * (trv_outset_add_dir: an earlier dataset replaced, anything else kept). */
#include "test_common.h"

#include <sys/stat.h>

#include "geo/block.h"
#include "terrain/ept.h"

static void test_depths(void **state)
{
    (void)state;
    assert_int_equal(ter_ept_depths(1), 0);
    assert_int_equal(ter_ept_depths(128), 0);
    assert_int_equal(ter_ept_depths(129), 1);  /* ceil(129 / 2) = 65 */
    assert_int_equal(ter_ept_depths(256), 1);
    assert_int_equal(ter_ept_depths(257), 2);
    assert_int_equal(ter_ept_depths(1090), 4); /* the demo's 30 m grid: 69 points a node side */
    assert_int_equal(ter_ept_depths(30984), 8); /* 1 m Jacksboro: ceil(30984 / 256) = 122 */
}

static void test_depth_of(void **state)
{
    (void)state;
    assert_int_equal(ter_ept_depth_of(0, 0, 4), 0);
    assert_int_equal(ter_ept_depth_of(16, 32, 4), 0);
    assert_int_equal(ter_ept_depth_of(8, 0, 4), 1);
    assert_int_equal(ter_ept_depth_of(8, 16, 4), 1);
    assert_int_equal(ter_ept_depth_of(2, 6, 4), 3);  /* tz 1 and 1 */
    assert_int_equal(ter_ept_depth_of(4, 6, 4), 3);  /* the smaller, tz(6) = 1 */
    assert_int_equal(ter_ept_depth_of(1, 0, 4), 4);
    assert_int_equal(ter_ept_depth_of(3, 5, 0), 0);
    /* on a 16 x 16 grid with D = 4 each depth halves the spacing: 1, 3, 12, 48, 192 cells */
    int count[5] = {0};
    for (long r = 0; r < 16; r++)
        for (long c = 0; c < 16; c++)
            count[ter_ept_depth_of(c, r, 4)]++;
    int want[5] = {1, 3, 12, 48, 192};
    for (int d = 0; d < 5; d++)
        assert_int_equal(count[d], want[d]);
}

static void test_index(void **state)
{
    (void)state;
    assert_int_equal(ter_ept_index(100, 100, 64, 0), 0);
    assert_int_equal(ter_ept_index(115.9, 100, 64, 2), 0); /* nodes of 16 */
    assert_int_equal(ter_ept_index(116, 100, 64, 2), 1);
    assert_int_equal(ter_ept_index(163.9, 100, 64, 2), 3);
    assert_int_equal(ter_ept_index(164, 100, 64, 2), 3); /* the far face: clamped in */
    assert_int_equal(ter_ept_index(99, 100, 64, 2), 0);
}

/* ---- a dataset written and read back --------------------------------------- */

enum { NX = 300, NY = 140 };   /* D = 2 (span ceil(300 / 4) = 75); the cube 3000 m */

/* A slope, and from column 250 a 1600 m wall on the odd columns: depth-2
 * points (odd c) in the third z slab of 750 m, whose depth-1 parent (even
 * c and r, all low) has no point: an ancestor listed with count 0. */
static float cell_z(int c, int r)
{
    return (float)(200.0 + 0.37 * c - 0.21 * r + 0.001 * ((c * 7 + r * 3) % 11) + (c >= 250 && c % 2 ? 1600 : 0));
}

static void read_all(const char *path, unsigned char **buf, size_t *n)
{
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    fseek(f, 0, SEEK_END);
    *n = (size_t)ftell(f);
    fseek(f, 0, SEEK_SET);
    *buf = malloc(*n + 1);
    assert_true(fread(*buf, 1, *n, f) == *n);
    (*buf)[*n] = 0;
    fclose(f);
}

static int32_t le32(const unsigned char *p)
{
    return (int32_t)((uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24);
}

/* Every record of node (d, x, y, z) in the hierarchy line: the cell it
 * came from, marked in seen (each once), in the node's cube and of depth d. */
static long check_node(const char *dir, int d, long x, long y, long z, long count, char *seen, double ox, double oy)
{
    char name[160];
    snprintf(name, sizeof name, "%s/ept-data/%d-%ld-%ld-%ld.bin", dir, d, x, y, z);
    unsigned char *b;
    size_t n;
    read_all(name, &b, &n);
    assert_int_equal(n, (size_t)count * TER_EPT_RECORD);
    const double x0 = 500000, y0 = 4000000 - NY * 10.0, S = NX * 10.0, s = S / (1 << d);
    long prev = -1; /* the records in row order, each row's west to east */
    for (long i = 0; i < count; i++) {
        const unsigned char *r = b + i * TER_EPT_RECORD;
        double X = ox + le32(r) * 0.001, Y = oy + le32(r + 4) * 0.001, Z = le32(r + 8) * 0.001;
        int c = (int)floor((X - 500000) / 10), row = (int)floor((4000000 - Y) / 10);
        assert_true(c >= 0 && c < NX && row >= 0 && row < NY && (c % 7 != 3 || row % 5 != 1));
        assert_true((long)row * NX + c > prev);
        prev = (long)row * NX + c;
        assert_true(fabs(X - (500000 + 10 * c + 5)) < 1e-9 && fabs(Y - (4000000 - 10 * row - 5)) < 1e-9);
        assert_true(fabs(Z - cell_z(c, row)) <= 0.0005 + 1e-9);
        float slope;
        memcpy(&slope, r + 12, 4);
        assert_true(slope == (float)(c % 45) && r[16] == c % 9 + 1 && r[18] == row % 13 + 1 && !r[17] && !r[19]);
        assert_int_equal(ter_ept_depth_of(c, row, 2), d);
        assert_true(X >= x0 + x * s && X < x0 + (x + 1) * s && Y >= y0 + y * s && Y < y0 + (y + 1) * s);
        const double z0 = floor(cell_z(0, NY - 1)); /* the lowest cell: 170.81 m */
        assert_true(Z >= z0 + z * s && Z < z0 + (z + 1) * s);
        assert_int_equal(seen[(size_t)row * NX + c], 0);
        seen[(size_t)row * NX + c] = 1;
    }
    free(b);
    return count;
}

/* The dataset of the grid into dir, by rows (tw 0: each row a tile of the
 * whole width, without ter_ept_tiles) or by tiles of tw x th
 * (ter_ept_tiles); z of cell (bad_c, bad_r) and (bad_c2, bad_r2) set to
 * huge (-1: none). The first failing call's status, else the commit's. */
static trv_status write_tiled(trv_ctx *ctx, const char *dir, int tw, int th, const int bad[4])
{
    geo_grid g = {0};
    double gt[6] = {500000, 10, 0, 4000000, 0, -10};
    memcpy(g.gt, gt, sizeof gt);
    g.nx = NX, g.ny = NY;
    g.wkt = strdup("EPSG:32616");
    trv_outset *set = trv_outset_new();
    ter_ept *e = NULL;
    static float z[NX * NY], sl[NX * NY];
    static unsigned char so[NX * NY], lu[NX * NY];
    trv_status st = ter_ept_open(ctx, set, dir, &g, &e);
    const int tiled = tw > 0;
    geo_tiling tl = geo_tiling_make(NX, NY, tiled ? tw : NX, tiled ? th : 1);
    if (!st && tiled)
        st = ter_ept_tiles(ctx, e, tl.ntx, tl.th);
    for (int i = 0; !st && i < geo_tiling_count(&tl); i++) {
        geo_tile t = geo_tiling_tile(&tl, i);
        for (int r = 0; r < t.ny; r++)
            for (int c = 0; c < t.nx; c++) {
                int cc = t.x0 + c, rr = t.y0 + r, k = r * t.nx + c;
                z[k] = cc % 7 == 3 && rr % 5 == 1 ? -9999.0f : cell_z(cc, rr); /* some nodata */
                if (bad && ((cc == bad[0] && rr == bad[1]) || (cc == bad[2] && rr == bad[3])))
                    z[k] = cc == bad[0] ? 2.5e6f : 3e6f;
                sl[k] = (float)(cc % 45), so[k] = (unsigned char)(cc % 9 + 1), lu[k] = (unsigned char)(rr % 13 + 1);
            }
        st = ter_ept_tile(ctx, e, t.x0 / tl.tw, t.x0, t.y0, t.nx, t.ny, z, -9999.0f, sl, so, lu);
    }
    if (!st)
        st = ter_ept_finish(ctx, e);
    ter_ept_free(e);
    if (!st)
        st = trv_outset_commit(ctx, set);
    trv_outset_free(set);
    geo_grid_clear(&g);
    return st;
}

static void write_dataset(trv_ctx *ctx, const char *dir, trv_status *commit)
{
    *commit = write_tiled(ctx, dir, 0, 0, NULL);
}

static void test_dataset(void **state)
{
    (void)state;
    trv_ctx *ctx = trv_ctx_new();
    char *dir = trv_path_join(tmpdir, "sub/cloud");
    trv_status st;
    write_dataset(ctx, dir, &st);
    assert_int_equal(st, TRV_OK);
    unsigned char *js, *hier;
    size_t n;
    char *p = trv_path_join(dir, "ept.json");
    read_all(p, &js, &n);
    free(p);
    long pts = NX * NY - (NX / 7 + (NX % 7 > 3)) * (NY / 5 + (NY % 5 > 1));
    char want[64];
    snprintf(want, sizeof want, "\"points\": %ld,", pts);
    assert_non_null(strstr((char *)js, want));
    assert_non_null(strstr((char *)js, "\"span\": 75,"));
    assert_non_null(strstr((char *)js, "\"bounds\": [500000.000, 3998600.000, "));
    const char *xo = strstr((char *)js, "\"name\": \"X\""), *yo = strstr((char *)js, "\"name\": \"Y\"");
    double ox = atof(strstr(xo, "\"offset\": ") + 10), oy = atof(strstr(yo, "\"offset\": ") + 10);
    assert_true(ox == 501500 && oy == 3999300);
    p = trv_path_join(dir, "ept-hierarchy/0-0-0-0.json");
    read_all(p, &hier, &n);
    free(p);
    char *seen = calloc(NX * NY, 1);
    long total = 0, nodes = 0;
    int d;
    long x, y, z, count;
    for (const char *q = (char *)hier; (q = strchr(q, '"')); nodes++) {
        assert_int_equal(sscanf(q, "\"%d-%ld-%ld-%ld\": %ld", &d, &x, &y, &z, &count), 5);
        total += check_node(dir, d, x, y, z, count, seen, ox, oy);
        if (d > 0) { /* the parent is listed */
            char par[96];
            snprintf(par, sizeof par, "\"%d-%ld-%ld-%ld\":", d - 1, x >> 1, y >> 1, z >> 1);
            assert_non_null(strstr((char *)hier, par));
        }
        q = strchr(q, '\n');
        if (!q)
            break;
    }
    assert_int_equal(total, pts);
    /* 3000 x 1400 m in a cube of 3000 m: the root, 2 x 1 nodes of 1500 m at
     * depth 1, 4 x 2 of 750 m at depth 2 on the slope; the wall's two at
     * depth 2 (x 3, z 2) and their parent (1, 1, 0, 1) without points */
    assert_int_equal(nodes, 14);
    assert_non_null(strstr((char *)hier, "\"2-3-0-2\": "));
    assert_non_null(strstr((char *)hier, "\"2-3-1-2\": "));
    assert_non_null(strstr((char *)hier, "\"1-1-0-1\": 0,"));
    free(seen);
    free(js);
    free(hier);
    free(dir);
    trv_ctx_free(ctx);
}

/* Whether dir b holds the bytes of dir a: ept.json, the hierarchy and every node it lists. */
static void assert_same_dataset(const char *a, const char *b)
{
    const char *fixed[2] = {"ept.json", "ept-hierarchy/0-0-0-0.json"};
    unsigned char *hier = NULL;
    for (int k = 0; k < 2; k++) {
        char *pa = trv_path_join(a, fixed[k]), *pb = trv_path_join(b, fixed[k]);
        unsigned char *x, *y;
        size_t nx, ny;
        read_all(pa, &x, &nx);
        read_all(pb, &y, &ny);
        assert_true(nx == ny && memcmp(x, y, nx) == 0);
        free(y);
        if (k == 1)
            hier = x;
        else
            free(x);
        free(pa);
        free(pb);
    }
    int nodes = 0;
    for (const char *q = (char *)hier; (q = strchr(q, '"')); nodes++) {
        char key[64], name[96];
        assert_int_equal(sscanf(q, "\"%63[0-9-]\"", key), 1);
        snprintf(name, sizeof name, "ept-data/%s.bin", key);
        char *pa = trv_path_join(a, name), *pb = trv_path_join(b, name);
        unsigned char *x, *y;
        size_t nx, ny;
        read_all(pa, &x, &nx);
        read_all(pb, &y, &ny);
        assert_true(nx == ny && memcmp(x, y, nx) == 0);
        free(x), free(y), free(pa), free(pb);
        q = strchr(q, '\n');
        if (!q)
            break;
    }
    assert_int_equal(nodes, 14);
    free(hier);
}

/* By tiles (rows of tiles in order, each tile's records put in row order
 * through core/rowtext.h) and with bands sorted a group of node columns at
 * a time (TRV_EPT_BAND records in memory), the bytes the rows give. */
static void test_tiles(void **state)
{
    (void)state;
    trv_ctx *ctx = trv_ctx_new();
    char *ref = trv_path_join(tmpdir, "by_rows");
    assert_int_equal(write_tiled(ctx, ref, 0, 0, NULL), TRV_OK);
    static const int tiles[][2] = {{7, 5}, {1, NY}, {64, 1}, {13, NY}, {NX, NY}, {256, 256}, {NX - 1, 3}};
    static const char *caps[] = {NULL, "1", "1000", "30000"};
    for (size_t c = 0; c < sizeof caps / sizeof *caps; c++) {
        if (caps[c])
            setenv("TRV_EPT_BAND", caps[c], 1);
        for (size_t t = 0; t < sizeof tiles / sizeof *tiles; t++) {
            char name[64];
            snprintf(name, sizeof name, "t%zu_%zu", c, t);
            char *dir = trv_path_join(tmpdir, name);
            assert_int_equal(write_tiled(ctx, dir, tiles[t][0], tiles[t][1], NULL), TRV_OK);
            assert_same_dataset(ref, dir);
            free(dir);
        }
        char *rows = trv_path_join(tmpdir, "rows_again");
        assert_int_equal(write_tiled(ctx, rows, 0, 0, NULL), TRV_OK);
        assert_same_dataset(ref, rows);
        free(rows);
    }
    unsetenv("TRV_EPT_BAND");
    free(ref);
    trv_ctx_free(ctx);
}

/* A coordinate beyond 32-bit millimetres: the row-major first such cell
 * named, by rows and by tiles alike (by tiles the later-row cell (10, 3)
 * comes first, in the second tile), and nothing written. */
static void test_beyond(void **state)
{
    (void)state;
    trv_ctx *ctx = trv_ctx_new();
    static const int tiles[][2] = {{0, 0}, {7, 5}, {64, 1}, {NX, NY}};
    const int bad[4] = {250, 2, 10, 3};
    for (size_t t = 0; t < sizeof tiles / sizeof *tiles; t++) {
        char *dir = trv_path_join(tmpdir, "beyond");
        assert_int_equal(write_tiled(ctx, dir, tiles[t][0], tiles[t][1], bad), TRV_ERR_DATA);
        assert_non_null(strstr(trv_errmsg(ctx), "a coordinate 2500000.000 m from its offset is beyond EPT's 32-bit"));
        assert_int_equal(access(dir, F_OK), -1);
        free(dir);
    }
    trv_ctx_free(ctx);
}

/* An earlier dataset is replaced; a directory with anything else is kept
 * and the commit fails before any rename; no temporary is left. */
static void test_replace(void **state)
{
    (void)state;
    trv_ctx *ctx = trv_ctx_new();
    char *dir = trv_path_join(tmpdir, "again");
    trv_status st;
    write_dataset(ctx, dir, &st);
    assert_int_equal(st, TRV_OK);
    char *stale = trv_path_join(dir, "ept-data/9-9-9-9.bin"); /* a node only the old dataset had */
    fclose(fopen(stale, "w"));
    write_dataset(ctx, dir, &st);
    assert_int_equal(st, TRV_OK);
    assert_int_equal(access(stale, F_OK), -1);
    char *mine = write_file(dir, "notes.txt", "mine");
    write_dataset(ctx, dir, &st);
    assert_int_equal(st, TRV_ERR_IO);
    assert_non_null(strstr(trv_errmsg(ctx), "holds other files"));
    assert_int_equal(access(mine, F_OK), 0);
    char *cmd = NULL;
    assert_true(asprintf(&cmd, "ls -a '%s' | grep -c tmp", tmpdir) > 0);
    FILE *f = popen(cmd, "r");
    int left = -1;
    assert_int_equal(fscanf(f, "%d", &left), 1);
    pclose(f);
    assert_int_equal(left, 0);
    free(cmd);
    free(mine);
    free(stale);
    free(dir);
    trv_ctx_free(ctx);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_depths),
        cmocka_unit_test(test_depth_of),
        cmocka_unit_test(test_index),
        cmocka_unit_test(test_dataset),
        cmocka_unit_test(test_tiles),
        cmocka_unit_test(test_beyond),
        cmocka_unit_test(test_replace),
    };
    return cmocka_run_group_tests(tests, tmpdir_setup, tmpdir_teardown);
}
