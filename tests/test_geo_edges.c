/* Geo boundary cases that `make mutants` found untested (docs/testing.md):
 * the UTM hemisphere on the equator, grids that differ in one origin
 * coordinate only, and the majority of a cell that covers source cells
 * unequally (the mode lattice's density). Expected values are worked by
 * hand in the comments. */
#include "test_common.h"

#include <math.h>

#include "geo/geo.h"

static char *wkt_of(const char *def)
{
    trv_ctx *ctx = trv_ctx_new();
    char *wkt = NULL;
    assert_int_equal(geo_crs_wkt(ctx, def, &wkt), TRV_OK);
    trv_ctx_free(ctx);
    return wkt;
}

/* nx x ny cells of size cell, north-west corner (x0, y0). */
static geo_grid grid(int nx, int ny, double x0, double y0, double cell, char *wkt)
{
    geo_grid g = {nx, ny, {x0, cell, 0, y0, 0, -cell}, wkt};
    return g;
}

/* UTM's northern zones (EPSG 326zz, false northing 0) start at the
 * equator itself; the southern ones (327zz, false northing 10 000 km) are
 * for latitudes below it. 10 E is in zone floor(190 / 6) + 1 = 32;
 * -78.5 (Quito's longitude) in floor(101.5 / 6) + 1 = 17. */
static void test_utm_equator(void **state)
{
    (void)state;
    assert_int_equal(geo_utm_epsg(10.0, 0.0), 32632);
    assert_int_equal(geo_utm_epsg(10.0, -1e-9), 32732);
    assert_int_equal(geo_utm_epsg(-78.5, 0.0), 32617);
    assert_int_equal(geo_utm_epsg(-78.5, -0.2), 32717);
}

/* Two grids equal but for the northing of their origin are different
 * grids, as are two equal but for the easting (each coordinate alone). */
static void test_grid_compare_one_origin_coordinate(void **state)
{
    (void)state;
    trv_ctx *ctx = trv_ctx_new();
    char *utm = wkt_of("EPSG:32616");
    geo_grid a = grid(100, 80, 730000, 4069000, 30, utm), b = a;
    b.gt[3] -= 15;
    assert_int_equal(geo_grid_compare(ctx, &a, "a.tif", &b, "b.tif"), TRV_ERR_GRID);
    assert_string_equal(trv_errmsg(ctx), "'b.tif' does not match 'a.tif': origin (730000.000000, 4068985.000000) vs "
                                         "(730000.000000, 4069000.000000)");
    b = a;
    b.gt[0] += 15;
    assert_int_equal(geo_grid_compare(ctx, &a, "a.tif", &b, "b.tif"), TRV_ERR_GRID);
    assert_contains(trv_errmsg(ctx), "origin (730015.000000, 4069000.000000)");
    free(utm);
    trv_ctx_free(ctx);
}

/* One 16 m target cell over 10 m source cells, covering them unequally.
 * Source (3 x 3 at (1000, 2000), rows north to south):
 *     2 2 1
 *     1 3 3
 *     1 2 3
 * The target cell spans x 1002..1018 and y 1981..1997: 8 m of column 0
 * and 8 m of column 1, 7 m of row 0 (1990..1997) and 9 m of row 1
 * (1981..1990). Areas (m^2): code 2 (row 0, both columns) 56 + 56 = 112,
 * code 1 (row 1, column 0) 72, code 3 (row 1, column 1) 72, of 256. By
 * covered area the cell is code 2 (43.75 %, against 28.1 % each).
 * method.md 1.9 samples about three points per source cell across it:
 * span 1.6 source cells, s = ceil(4.8) = 5, a 5 x 5 lattice 3.2 m apart;
 * one point per source cell (s = 3) would give 3 or 1, not 2. */
static void test_mode_by_area(void **state)
{
    (void)state;
    trv_ctx *ctx = trv_ctx_new();
    char *utm = wkt_of("EPSG:32616");
    geo_grid sg = grid(3, 3, 1000, 2000, 10, utm);
    geo_raster *src = NULL, *out = NULL;
    assert_int_equal(geo_raster_new(ctx, &sg, GEO_U8, &src), TRV_OK);
    memcpy(src->u8, (const unsigned char[9]){2, 2, 1, 1, 3, 3, 1, 2, 3}, 9);
    src->has_nodata = 1;
    src->nodata = 0;
    geo_grid one = grid(1, 1, 1002, 1997, 16, utm);
    assert_int_equal(geo_align_categorical(ctx, src, &one, GEO_MODE, &out), TRV_OK);
    assert_int_equal(out->u8[0], 2);
    geo_raster_free(out);
    geo_raster_free(src);
    free(utm);
    trv_ctx_free(ctx);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_utm_equator),
        cmocka_unit_test(test_grid_compare_one_origin_coordinate),
        cmocka_unit_test(test_mode_by_area),
    };
    return cmocka_run_group_tests(tests, tmpdir_setup, tmpdir_teardown);
}
