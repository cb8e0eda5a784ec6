/* Tests for src/geo/vector.c: GeoJSON, GPX and GeoPackage output, read back
 * with OGR and checked against an independent PROJ transform; and for
 * src/geo/vector_read.c and gpkg_styles.c: what geo writes and what
 * ogr2ogr converts, read back through geo_vector_read; layer styles. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cpl_conv.h>
#include <cpl_error.h>
#include <gdal.h>
#include <ogr_api.h>
#include <ogr_srs_api.h>
#include <proj.h>

#include "geo/geo.h"

/* Shared by every test: a scratch directory, the UTM 16N WKT the
 * features are given in, and the reference transform. */
static char tmpdir[64];
static char *utm_wkt;
static PJ *utm_to_lonlat;

static char *tmp_path(const char *name)
{
    char *p = trv_path_join(tmpdir, name);
    assert_non_null(p);
    return p;
}

static int setup(void **state)
{
    (void)state;
    GDALAllRegister();
    CPLSetErrorHandler(CPLQuietErrorHandler);
    snprintf(tmpdir, sizeof tmpdir, "/tmp/test_vector.XXXXXX");
    if (!mkdtemp(tmpdir))
        return -1;
    OGRSpatialReferenceH srs = OSRNewSpatialReference(NULL);
    if (!srs || OSRImportFromEPSG(srs, 32616) != OGRERR_NONE)
        return -1;
    char *wkt = NULL;
    if (OSRExportToWkt(srs, &wkt) != OGRERR_NONE)
        return -1;
    utm_wkt = strdup(wkt);
    CPLFree(wkt);
    OSRDestroySpatialReference(srs);
    PJ *p = proj_create_crs_to_crs(PJ_DEFAULT_CTX, "EPSG:32616", "EPSG:4326", NULL);
    if (!p)
        return -1;
    utm_to_lonlat = proj_normalize_for_visualization(PJ_DEFAULT_CTX, p);
    proj_destroy(p);
    return utm_wkt && utm_to_lonlat ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    DIR *d = opendir(tmpdir);
    if (d) {
        struct dirent *e;
        while ((e = readdir(d)) != NULL) {
            if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
                continue;
            char *p = trv_path_join(tmpdir, e->d_name);
            if (p)
                unlink(p);
            free(p);
        }
        closedir(d);
    }
    rmdir(tmpdir);
    free(utm_wkt);
    proj_destroy(utm_to_lonlat);
    proj_cleanup();
    GDALDestroyDriverManager();
    OSRCleanup();
    return 0;
}

static void ref_lonlat(double x, double y, double *lon, double *lat)
{
    PJ_COORD c = proj_trans(utm_to_lonlat, PJ_FWD, proj_coord(x, y, 0, 0));
    *lon = c.v[0];
    *lat = c.v[1];
}

static char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    size_t cap = 4096, n = 0;
    char *buf = malloc(cap + 1);
    assert_non_null(buf);
    size_t got;
    while ((got = fread(buf + n, 1, cap - n, f)) > 0) {
        n += got;
        if (n == cap) {
            cap *= 2;
            buf = realloc(buf, cap + 1);
            assert_non_null(buf);
        }
    }
    fclose(f);
    buf[n] = '\0';
    if (len)
        *len = n;
    return buf;
}

static GDALDatasetH open_vector(const char *path)
{
    GDALDatasetH ds = GDALOpenEx(path, GDAL_OF_VECTOR | GDAL_OF_READONLY, NULL, NULL, NULL);
    if (!ds)
        fail_msg("cannot open '%s': %s", path, CPLGetLastErrorMsg());
    return ds;
}

static OGRLayerH layer_by_name(GDALDatasetH ds, const char *name)
{
    OGRLayerH l = GDALDatasetGetLayerByName(ds, name);
    if (!l)
        fail_msg("no layer '%s'", name);
    return l;
}

static const char *field_str(OGRFeatureH f, const char *name)
{
    int i = OGR_F_GetFieldIndex(f, name);
    assert_true(i >= 0);
    return OGR_F_GetFieldAsString(f, i);
}

/* ---- GeoJSON ---------------------------------------------------------- */

static const double line1_x[] = {750000.0, 750512.5, 751020.25};
static const double line1_y[] = {4050000.0, 4050410.0, 4050905.5};
static const double line2_x[] = {749000.0, 748100.0};
static const double line2_y[] = {4051000.0, 4052250.0};

static void test_geojson(void **state)
{
    (void)state;
    char *path = tmp_path("lines.geojson");
    trv_ctx *ctx = trv_ctx_new();
    assert_non_null(ctx);
    geo_vec *v = NULL;
    assert_int_equal(geo_vec_create(ctx, path, utm_wkt, &v), TRV_OK);
    const geo_field fields[] = {{"id", GEO_FIELD_INT}, {"speed", GEO_FIELD_REAL}, {"name", GEO_FIELD_STRING}};
    int layer = -1;
    assert_int_equal(geo_vec_add_layer(ctx, v, "routes", GEO_LINE, fields, 3, &layer), TRV_OK);
    assert_int_equal(layer, 0);
    const geo_value val1[] = {{.i = 1234567890123LL}, {.r = 12.345678901234567}, {.s = "ridge \"road\" \xc3\xa9"}};
    const geo_value val2[] = {{.i = -7}, {.r = 0.1}, {.s = NULL}};
    assert_int_equal(geo_vec_add(ctx, v, layer, line1_x, line1_y, NULL, 3, val1), TRV_OK);
    assert_int_equal(geo_vec_add(ctx, v, layer, line2_x, line2_y, NULL, 2, val2), TRV_OK);

    /* one layer only */
    int second = -1;
    assert_int_equal(geo_vec_add_layer(ctx, v, "more", GEO_POINT, NULL, 0, &second), TRV_ERR_USAGE);
    assert_non_null(strstr(trv_errmsg(ctx), path));
    assert_int_equal(geo_vec_close(ctx, v), TRV_OK);

    char *text = slurp(path, NULL);
    assert_null(strstr(text, "\"crs\""));
    assert_non_null(strstr(text, "\"FeatureCollection\""));
    free(text);

    GDALDatasetH ds = open_vector(path);
    assert_int_equal(GDALDatasetGetLayerCount(ds), 1);
    OGRLayerH l = GDALDatasetGetLayer(ds, 0);
    assert_int_equal(OGR_L_GetFeatureCount(l, TRUE), 2);
    const double *xs[] = {line1_x, line2_x}, *ys[] = {line1_y, line2_y};
    const int ns[] = {3, 2};
    const geo_value *vals[] = {val1, val2};
    OGR_L_ResetReading(l);
    for (int k = 0; k < 2; k++) {
        OGRFeatureH f = OGR_L_GetNextFeature(l);
        assert_non_null(f);
        OGRGeometryH g = OGR_F_GetGeometryRef(f);
        assert_non_null(g);
        assert_int_equal(wkbFlatten(OGR_G_GetGeometryType(g)), wkbLineString);
        assert_int_equal(OGR_G_GetPointCount(g), ns[k]);
        for (int i = 0; i < ns[k]; i++) {
            double lon, lat;
            ref_lonlat(xs[k][i], ys[k][i], &lon, &lat);
            /* near Jacksboro, TN: lon about -84, lat about 36.5 */
            assert_true(lon > -85 && lon < -83 && lat > 36 && lat < 37);
            assert_true(fabs(OGR_G_GetX(g, i) - lon) <= 1e-7);
            assert_true(fabs(OGR_G_GetY(g, i) - lat) <= 1e-7);
        }
        int fi = OGR_F_GetFieldIndex(f, "id");
        assert_true(fi >= 0);
        assert_true(OGR_F_GetFieldAsInteger64(f, fi) == vals[k][0].i);
        fi = OGR_F_GetFieldIndex(f, "speed");
        assert_true(fi >= 0);
        assert_true(OGR_F_GetFieldAsDouble(f, fi) == vals[k][1].r);
        fi = OGR_F_GetFieldIndex(f, "name");
        assert_true(fi >= 0);
        if (vals[k][2].s)
            assert_string_equal(OGR_F_GetFieldAsString(f, fi), vals[k][2].s);
        else
            assert_false(OGR_F_IsFieldSetAndNotNull(f, fi));
        OGR_F_Destroy(f);
    }
    GDALClose(ds);
    trv_ctx_free(ctx);
    free(path);
}

/* ---- GPX -------------------------------------------------------------- */

static void test_gpx(void **state)
{
    (void)state;
    char *path = tmp_path("trip.gpx");
    trv_ctx *ctx = trv_ctx_new();
    assert_non_null(ctx);
    geo_vec *v = NULL;
    assert_int_equal(geo_vec_create(ctx, path, utm_wkt, &v), TRV_OK);
    const geo_field name_field[] = {{"name", GEO_FIELD_STRING}};
    int rte = -1, wpt = -1, trk = -1;
    assert_int_equal(geo_vec_add_layer(ctx, v, "routes", GEO_LINE, name_field, 1, &rte), TRV_OK);
    assert_int_equal(geo_vec_add_layer(ctx, v, "waypoints", GEO_POINT, NULL, 0, &wpt), TRV_OK);
    assert_int_equal(geo_vec_add_layer(ctx, v, "tracks", GEO_LINE, NULL, 0, &trk), TRV_OK);

    const double wz[] = {312.5, 298.25};
    assert_int_equal(geo_vec_add(ctx, v, wpt, &line1_x[0], &line1_y[0], &wz[0], 1, NULL), TRV_OK);
    assert_int_equal(geo_vec_add(ctx, v, wpt, &line1_x[2], &line1_y[2], &wz[1], 1, NULL), TRV_OK);
    const double rz[] = {310.0, 305.5, 299.75};
    const geo_value rname[] = {{.s = "to the ridge"}};
    assert_int_equal(geo_vec_add(ctx, v, rte, line1_x, line1_y, rz, 3, rname), TRV_OK);
    /* GPX order: no waypoint after a route */
    assert_int_equal(geo_vec_add(ctx, v, wpt, &line1_x[1], &line1_y[1], NULL, 1, NULL), TRV_ERR_USAGE);
    assert_non_null(strstr(trv_errmsg(ctx), path));
    const double tz[] = {400.0, 410.0};
    assert_int_equal(geo_vec_add(ctx, v, trk, line2_x, line2_y, tz, 2, NULL), TRV_OK);
    assert_int_equal(geo_vec_close(ctx, v), TRV_OK);

    char *text = slurp(path, NULL);
    assert_non_null(strstr(text, "<ele>"));
    assert_null(strstr(text, "<time>"));
    free(text);

    /* GDAL 3.6 reads <ele> into z only when asked */
    CPLSetConfigOption("GPX_ELE_AS_25D", "YES");
    GDALDatasetH ds = open_vector(path);
    CPLSetConfigOption("GPX_ELE_AS_25D", NULL);
    double lon, lat;

    OGRLayerH l = layer_by_name(ds, "waypoints");
    assert_int_equal(OGR_L_GetFeatureCount(l, TRUE), 2);
    OGR_L_ResetReading(l);
    for (int k = 0; k < 2; k++) {
        int i = k == 0 ? 0 : 2;
        OGRFeatureH f = OGR_L_GetNextFeature(l);
        assert_non_null(f);
        OGRGeometryH g = OGR_F_GetGeometryRef(f);
        assert_non_null(g);
        ref_lonlat(line1_x[i], line1_y[i], &lon, &lat);
        assert_true(fabs(OGR_G_GetX(g, 0) - lon) <= 1e-7);
        assert_true(fabs(OGR_G_GetY(g, 0) - lat) <= 1e-7);
        assert_true(fabs(atof(field_str(f, "ele")) - wz[k]) <= 1e-9);
        assert_true(fabs(OGR_G_GetZ(g, 0) - wz[k]) <= 1e-9);
        OGR_F_Destroy(f);
    }

    l = layer_by_name(ds, "routes");
    assert_int_equal(OGR_L_GetFeatureCount(l, TRUE), 1);
    OGR_L_ResetReading(l);
    OGRFeatureH f = OGR_L_GetNextFeature(l);
    assert_non_null(f);
    assert_string_equal(field_str(f, "name"), "to the ridge");
    OGRGeometryH g = OGR_F_GetGeometryRef(f);
    assert_non_null(g);
    assert_int_equal(wkbFlatten(OGR_G_GetGeometryType(g)), wkbLineString);
    assert_int_equal(OGR_G_GetPointCount(g), 3);
    for (int i = 0; i < 3; i++) {
        ref_lonlat(line1_x[i], line1_y[i], &lon, &lat);
        assert_true(fabs(OGR_G_GetX(g, i) - lon) <= 1e-7);
        assert_true(fabs(OGR_G_GetY(g, i) - lat) <= 1e-7);
        assert_true(fabs(OGR_G_GetZ(g, i) - rz[i]) <= 1e-9);
    }
    OGR_F_Destroy(f);

    l = layer_by_name(ds, "route_points");
    assert_int_equal(OGR_L_GetFeatureCount(l, TRUE), 3);
    OGR_L_ResetReading(l);
    for (int i = 0; i < 3; i++) {
        f = OGR_L_GetNextFeature(l);
        assert_non_null(f);
        assert_true(fabs(atof(field_str(f, "ele")) - rz[i]) <= 1e-9);
        OGR_F_Destroy(f);
    }

    l = layer_by_name(ds, "tracks");
    assert_int_equal(OGR_L_GetFeatureCount(l, TRUE), 1);
    OGR_L_ResetReading(l);
    f = OGR_L_GetNextFeature(l);
    assert_non_null(f);
    g = OGR_F_GetGeometryRef(f);
    assert_non_null(g);
    assert_int_equal(wkbFlatten(OGR_G_GetGeometryType(g)), wkbMultiLineString);
    assert_int_equal(OGR_G_GetGeometryCount(g), 1);
    OGRGeometryH part = OGR_G_GetGeometryRef(g, 0);
    assert_int_equal(OGR_G_GetPointCount(part), 2);
    for (int i = 0; i < 2; i++) {
        ref_lonlat(line2_x[i], line2_y[i], &lon, &lat);
        assert_true(fabs(OGR_G_GetX(part, i) - lon) <= 1e-7);
        assert_true(fabs(OGR_G_GetY(part, i) - lat) <= 1e-7);
        assert_true(fabs(OGR_G_GetZ(part, i) - tz[i]) <= 1e-9);
    }
    OGR_F_Destroy(f);

    GDALClose(ds);
    trv_ctx_free(ctx);
    free(path);
}

/* ---- GeoPackage ------------------------------------------------------- */

static const double node_x[] = {750000.0, 750512.5, 751020.25};
static const double node_y[] = {4050000.0, 4050410.0, 4050905.5};
static const double node_z[] = {300.5, 310.0, 320.25};

static void write_gpkg(const char *path)
{
    trv_ctx *ctx = trv_ctx_new();
    assert_non_null(ctx);
    geo_vec *v = NULL;
    assert_int_equal(geo_vec_create(ctx, path, utm_wkt, &v), TRV_OK);
    const geo_field nf[] = {{"id", GEO_FIELD_INT}, {"elev", GEO_FIELD_REAL}, {"label", GEO_FIELD_STRING}};
    const geo_field ef[] = {{"src", GEO_FIELD_INT}, {"dst", GEO_FIELD_INT}, {"cost", GEO_FIELD_REAL}};
    int nodes = -1, edges = -1;
    assert_int_equal(geo_vec_add_layer(ctx, v, "nodes", GEO_POINT, nf, 3, &nodes), TRV_OK);
    for (int i = 0; i < 3; i++) {
        char label[16];
        snprintf(label, sizeof label, "n%d", i);
        const geo_value val[] = {{.i = i + 1}, {.r = node_z[i]}, {.s = label}};
        assert_int_equal(geo_vec_add(ctx, v, nodes, &node_x[i], &node_y[i], NULL, 1, val), TRV_OK);
    }
    assert_int_equal(geo_vec_add_layer(ctx, v, "edges", GEO_LINE, ef, 3, &edges), TRV_OK);
    assert_int_equal(edges, 1);
    for (int i = 0; i < 2; i++) {
        const geo_value val[] = {{.i = i + 1}, {.i = i + 2}, {.r = 10.5 * (i + 1)}};
        assert_int_equal(geo_vec_add(ctx, v, edges, &node_x[i], &node_y[i], NULL, 2, val), TRV_OK);
    }
    assert_int_equal(geo_vec_close(ctx, v), TRV_OK);
    trv_ctx_free(ctx);
}

static void test_gpkg(void **state)
{
    (void)state;
    char *a = tmp_path("net_a.gpkg"), *b = tmp_path("net_b.gpkg");

    /* the time stamp and SQLite options are set only while writing */
    CPLSetConfigOption("OGR_CURRENT_DATE", NULL);
    write_gpkg(a);
    assert_null(CPLGetConfigOption("OGR_CURRENT_DATE", NULL));
    assert_null(CPLGetConfigOption("OGR_SQLITE_JOURNAL", NULL));
    assert_null(CPLGetConfigOption("OGR_SQLITE_SYNCHRONOUS", NULL));
    CPLSetConfigOption("OGR_CURRENT_DATE", "1999-12-31T00:00:00.000Z");
    CPLSetConfigOption("OGR_SQLITE_JOURNAL", "DELETE");
    write_gpkg(b);
    assert_string_equal(CPLGetConfigOption("OGR_CURRENT_DATE", ""), "1999-12-31T00:00:00.000Z");
    assert_string_equal(CPLGetConfigOption("OGR_SQLITE_JOURNAL", ""), "DELETE");
    CPLSetConfigOption("OGR_CURRENT_DATE", NULL);
    CPLSetConfigOption("OGR_SQLITE_JOURNAL", NULL);
    {
        trv_ctx *ctx = trv_ctx_new();
        char *c = tmp_path("net_c.gpkg");
        geo_vec *v = NULL;
        assert_int_equal(geo_vec_create(ctx, c, utm_wkt, &v), TRV_OK);
        assert_string_equal(CPLGetConfigOption("OGR_SQLITE_JOURNAL", ""), "OFF");
        assert_string_equal(CPLGetConfigOption("OGR_SQLITE_SYNCHRONOUS", ""), "OFF");
        geo_vec_free(v);
        assert_null(CPLGetConfigOption("OGR_SQLITE_JOURNAL", NULL));
        unlink(c);
        free(c);
        trv_ctx_free(ctx);
    }

    size_t na, nb;
    char *ba = slurp(a, &na), *bb = slurp(b, &nb);
    assert_int_equal(na, nb);
    assert_memory_equal(ba, bb, na);
    free(bb);
    /* writing over an existing file gives the same bytes too */
    write_gpkg(b);
    bb = slurp(b, &nb);
    assert_int_equal(na, nb);
    assert_memory_equal(ba, bb, na);
    free(ba);
    free(bb);

    GDALDatasetH ds = open_vector(a);
    assert_int_equal(GDALDatasetGetLayerCount(ds), 2);

    OGRLayerH l = layer_by_name(ds, "nodes");
    OGRSpatialReferenceH srs = OGR_L_GetSpatialRef(l);
    assert_non_null(srs);
    assert_string_equal(OSRGetAuthorityName(srs, NULL), "EPSG");
    assert_string_equal(OSRGetAuthorityCode(srs, NULL), "32616");
    assert_int_equal(OGR_L_GetGeomType(l), wkbPoint);
    assert_int_equal(OGR_L_GetFeatureCount(l, TRUE), 3);
    OGR_L_ResetReading(l);
    for (int i = 0; i < 3; i++) {
        OGRFeatureH f = OGR_L_GetNextFeature(l);
        assert_non_null(f);
        OGRGeometryH g = OGR_F_GetGeometryRef(f);
        assert_non_null(g);
        assert_true(OGR_G_GetX(g, 0) == node_x[i]);
        assert_true(OGR_G_GetY(g, 0) == node_y[i]);
        assert_true(OGR_F_GetFieldAsInteger64(f, OGR_F_GetFieldIndex(f, "id")) == i + 1);
        assert_true(OGR_F_GetFieldAsDouble(f, OGR_F_GetFieldIndex(f, "elev")) == node_z[i]);
        char label[16];
        snprintf(label, sizeof label, "n%d", i);
        assert_string_equal(field_str(f, "label"), label);
        OGR_F_Destroy(f);
    }

    l = layer_by_name(ds, "edges");
    srs = OGR_L_GetSpatialRef(l);
    assert_non_null(srs);
    assert_string_equal(OSRGetAuthorityCode(srs, NULL), "32616");
    assert_int_equal(OGR_L_GetGeomType(l), wkbLineString);
    assert_int_equal(OGR_L_GetFeatureCount(l, TRUE), 2);
    OGR_L_ResetReading(l);
    for (int i = 0; i < 2; i++) {
        OGRFeatureH f = OGR_L_GetNextFeature(l);
        assert_non_null(f);
        OGRGeometryH g = OGR_F_GetGeometryRef(f);
        assert_non_null(g);
        assert_int_equal(OGR_G_GetPointCount(g), 2);
        for (int j = 0; j < 2; j++) {
            assert_true(OGR_G_GetX(g, j) == node_x[i + j]);
            assert_true(OGR_G_GetY(g, j) == node_y[i + j]);
        }
        assert_true(OGR_F_GetFieldAsInteger64(f, OGR_F_GetFieldIndex(f, "src")) == i + 1);
        assert_true(OGR_F_GetFieldAsInteger64(f, OGR_F_GetFieldIndex(f, "dst")) == i + 2);
        assert_true(OGR_F_GetFieldAsDouble(f, OGR_F_GetFieldIndex(f, "cost")) == 10.5 * (i + 1));
        OGR_F_Destroy(f);
    }

    OGRLayerH sql =
        GDALDatasetExecuteSQL(ds, "SELECT DISTINCT CAST(last_change AS TEXT) FROM gpkg_contents", NULL, NULL);
    assert_non_null(sql);
    assert_int_equal(OGR_L_GetFeatureCount(sql, TRUE), 1);
    OGRFeatureH f = OGR_L_GetNextFeature(sql);
    assert_non_null(f);
    assert_string_equal(OGR_F_GetFieldAsString(f, 0), "2000-01-01T00:00:00.000Z");
    OGR_F_Destroy(f);
    GDALDatasetReleaseResultSet(ds, sql);
    GDALClose(ds);
    free(a);
    free(b);
}

static void assert_names(const trv_ctx *ctx, const char *what)
{
    const char *m = trv_errmsg(ctx);
    if (!strstr(m, what))
        fail_msg("message '%s' does not name '%s'", m, what);
    size_t n = strlen(m);
    assert_true(n > 0);
    if (m[n - 1] == '.' || m[n - 1] == '\n')
        fail_msg("message '%s' ends in a full stop or newline", m);
}

/* A 3D feature in a GeoPackage keeps its z. */
static void test_gpkg_z(void **state)
{
    (void)state;
    char *path = tmp_path("z.gpkg");
    trv_ctx *ctx = trv_ctx_new();
    assert_non_null(ctx);
    geo_vec *v = NULL;
    assert_int_equal(geo_vec_create(ctx, path, utm_wkt, &v), TRV_OK);
    int l = -1;
    assert_int_equal(geo_vec_add_layer(ctx, v, "profile", GEO_LINE, NULL, 0, &l), TRV_OK);
    assert_int_equal(geo_vec_add(ctx, v, l, node_x, node_y, node_z, 3, NULL), TRV_OK);
    /* the first feature made the layer 3D; a GeoPackage layer cannot mix */
    assert_int_equal(geo_vec_add(ctx, v, l, node_x, node_y, NULL, 3, NULL), TRV_ERR_USAGE);
    assert_names(ctx, path);
    int empty = -1;
    const geo_field ef[] = {{"note", GEO_FIELD_STRING}};
    assert_int_equal(geo_vec_add_layer(ctx, v, "empty", GEO_POINT, ef, 1, &empty), TRV_OK);
    assert_int_equal(geo_vec_close(ctx, v), TRV_OK);

    GDALDatasetH ds = open_vector(path);
    assert_int_equal(GDALDatasetGetLayerCount(ds), 2);
    OGRLayerH h = layer_by_name(ds, "empty");
    assert_int_equal(OGR_L_GetFeatureCount(h, TRUE), 0);
    assert_true(OGR_FD_GetFieldIndex(OGR_L_GetLayerDefn(h), "note") >= 0);
    h = layer_by_name(ds, "profile");
    /* gpkg_geometry_columns says z, so readers know */
    assert_true(OGR_GT_HasZ(OGR_L_GetGeomType(h)));
    OGR_L_ResetReading(h);
    OGRFeatureH f = OGR_L_GetNextFeature(h);
    assert_non_null(f);
    OGRGeometryH g = OGR_F_GetGeometryRef(f);
    assert_non_null(g);
    assert_int_equal(OGR_G_GetPointCount(g), 3);
    for (int i = 0; i < 3; i++)
        assert_true(OGR_G_GetZ(g, i) == node_z[i]);
    OGR_F_Destroy(f);
    GDALClose(ds);
    trv_ctx_free(ctx);
    free(path);
}

/* A point feature with z keeps its z, as a line does (added for make
 * mutants: docs/testing.md). */
static void test_gpkg_point_z(void **state)
{
    (void)state;
    char *path = tmp_path("pz.gpkg");
    trv_ctx *ctx = trv_ctx_new();
    assert_non_null(ctx);
    geo_vec *v = NULL;
    assert_int_equal(geo_vec_create(ctx, path, utm_wkt, &v), TRV_OK);
    int l = -1;
    assert_int_equal(geo_vec_add_layer(ctx, v, "spots", GEO_POINT, NULL, 0, &l), TRV_OK);
    for (int i = 0; i < 3; i++)
        assert_int_equal(geo_vec_add(ctx, v, l, &node_x[i], &node_y[i], &node_z[i], 1, NULL), TRV_OK);
    assert_int_equal(geo_vec_close(ctx, v), TRV_OK);

    GDALDatasetH ds = open_vector(path);
    OGRLayerH h = layer_by_name(ds, "spots");
    assert_true(OGR_GT_HasZ(OGR_L_GetGeomType(h)));
    assert_int_equal(OGR_L_GetFeatureCount(h, TRUE), 3);
    OGR_L_ResetReading(h);
    for (int i = 0; i < 3; i++) {
        OGRFeatureH f = OGR_L_GetNextFeature(h);
        assert_non_null(f);
        OGRGeometryH g = OGR_F_GetGeometryRef(f);
        assert_non_null(g);
        assert_true(OGR_G_GetCoordinateDimension(g) == 3);
        assert_true(OGR_G_GetX(g, 0) == node_x[i]);
        assert_true(OGR_G_GetY(g, 0) == node_y[i]);
        assert_true(OGR_G_GetZ(g, 0) == node_z[i]);
        OGR_F_Destroy(f);
    }
    GDALClose(ds);
    trv_ctx_free(ctx);
    free(path);
}

/* ---- errors ----------------------------------------------------------- */

static void test_errors(void **state)
{
    (void)state;
    trv_ctx *ctx = trv_ctx_new();
    assert_non_null(ctx);
    geo_vec *v = (geo_vec *)1;
    int l = -1;

    char *foo = tmp_path("x.foo");
    assert_int_equal(geo_vec_create(ctx, foo, utm_wkt, &v), TRV_ERR_USAGE);
    assert_null(v);
    assert_names(ctx, foo);
    assert_non_null(strstr(trv_errmsg(ctx), "cannot tell the vector format of"));
    assert_int_equal(access(foo, F_OK), -1);
    free(foo);

    char *noext = tmp_path("noext");
    assert_int_equal(geo_vec_create(ctx, noext, utm_wkt, &v), TRV_ERR_USAGE);
    assert_names(ctx, noext);
    free(noext);

    /* GeoJSON needs a CRS to transform from */
    char *gj = tmp_path("nocrs.geojson");
    assert_int_equal(geo_vec_create(ctx, gj, NULL, &v), TRV_ERR_CRS);
    assert_names(ctx, gj);
    assert_int_equal(geo_vec_create(ctx, gj, "not a crs", &v), TRV_ERR_CRS);
    assert_names(ctx, gj);
    free(gj);

    char *gpx = tmp_path("bad.gpx");
    assert_int_equal(geo_vec_create(ctx, gpx, utm_wkt, &v), TRV_OK);
    assert_int_equal(geo_vec_add_layer(ctx, v, "points", GEO_POINT, NULL, 0, &l), TRV_ERR_USAGE);
    assert_names(ctx, gpx);
    assert_names(ctx, "points");
    assert_int_equal(geo_vec_add_layer(ctx, v, "waypoints", GEO_LINE, NULL, 0, &l), TRV_ERR_USAGE);
    assert_names(ctx, gpx);
    const geo_field speed[] = {{"speed", GEO_FIELD_REAL}};
    assert_int_equal(geo_vec_add_layer(ctx, v, "routes", GEO_LINE, speed, 1, &l), TRV_ERR_USAGE);
    assert_names(ctx, "speed");
    const geo_field name_int[] = {{"name", GEO_FIELD_INT}};
    assert_int_equal(geo_vec_add_layer(ctx, v, "routes", GEO_LINE, name_int, 1, &l), TRV_ERR_USAGE);
    assert_int_equal(geo_vec_add_layer(ctx, v, "waypoints", GEO_POINT, NULL, 0, &l), TRV_OK);
    assert_int_equal(geo_vec_add_layer(ctx, v, "waypoints", GEO_POINT, NULL, 0, &l), TRV_ERR_USAGE);
    assert_names(ctx, gpx);

    /* a point is one vertex, a line at least two */
    assert_int_equal(geo_vec_add(ctx, v, l, line1_x, line1_y, NULL, 2, NULL), TRV_ERR_USAGE);
    assert_names(ctx, gpx);
    assert_int_equal(geo_vec_add(ctx, v, l, line1_x, line1_y, NULL, 0, NULL), TRV_ERR_USAGE);
    assert_int_equal(geo_vec_add(ctx, v, 7, line1_x, line1_y, NULL, 1, NULL), TRV_ERR_USAGE);
    assert_names(ctx, gpx);
    const double bad[] = {NAN};
    assert_int_equal(geo_vec_add(ctx, v, l, bad, line1_y, NULL, 1, NULL), TRV_ERR_DATA);
    assert_names(ctx, gpx);
    /* rejected features leave the file good */
    assert_int_equal(geo_vec_add(ctx, v, l, line1_x, line1_y, NULL, 1, NULL), TRV_OK);
    assert_int_equal(geo_vec_close(ctx, v), TRV_OK);
    free(gpx);

    char *lines = tmp_path("lines.gpkg");
    assert_int_equal(geo_vec_create(ctx, lines, utm_wkt, &v), TRV_OK);
    assert_int_equal(geo_vec_add_layer(ctx, v, "edges", GEO_LINE, NULL, 0, &l), TRV_OK);
    assert_int_equal(geo_vec_add(ctx, v, l, line1_x, line1_y, NULL, 1, NULL), TRV_ERR_USAGE);
    assert_names(ctx, lines);
    assert_names(ctx, "edges");
    geo_vec_free(v);
    free(lines);

    /* a GDAL failure while writing: the GeoPackage FID column is an integer */
    char *fid = tmp_path("fid.gpkg");
    assert_int_equal(geo_vec_create(ctx, fid, utm_wkt, &v), TRV_OK);
    const geo_field fid_str[] = {{"fid", GEO_FIELD_STRING}};
    assert_int_equal(geo_vec_add_layer(ctx, v, "nodes", GEO_POINT, fid_str, 1, &l), TRV_OK);
    const geo_value sval[] = {{.s = "a"}};
    assert_int_equal(geo_vec_add(ctx, v, l, line1_x, line1_y, NULL, 1, sval), TRV_ERR_IO);
    assert_names(ctx, fid);
    assert_names(ctx, "'fid'");
    char first[512];
    snprintf(first, sizeof first, "%s", trv_errmsg(ctx));
    assert_int_equal(geo_vec_add(ctx, v, l, line1_x, line1_y, NULL, 1, sval), TRV_ERR_IO);
    /* close reports the first failure again */
    assert_int_equal(geo_vec_close(ctx, v), TRV_ERR_IO);
    assert_string_equal(trv_errmsg(ctx), first);
    free(fid);

    const char *const unwritable[] = {"/nonexistent/x.gpkg", "/nonexistent/x.geojson", "/nonexistent/x.gpx"};
    for (int i = 0; i < 3; i++) {
        v = (geo_vec *)1;
        assert_int_equal(geo_vec_create(ctx, unwritable[i], utm_wkt, &v), TRV_ERR_IO);
        assert_null(v);
        assert_names(ctx, unwritable[i]);
        assert_true(strncmp(trv_errmsg(ctx), "cannot create '", 15) == 0);
    }
    /* the time stamp option is restored after a failed create too */
    assert_null(CPLGetConfigOption("OGR_CURRENT_DATE", NULL));

    geo_vec_free(NULL);
    trv_ctx_free(ctx);
}

/* ---- reading back (geo_vector_read), polygons, styles ----------------- */

/* A square obstacle and a circle-like triangle written as polygons, with
 * an unset field; read back in EPSG:4326 (as written) and in UTM (the
 * transform undone). */
static void test_polygon_roundtrip(void **state)
{
    (void)state;
    trv_ctx *ctx = trv_ctx_new();
    char *path = tmp_path("poly.geojson");
    const geo_field fields[] = {{"id", GEO_FIELD_STRING}, {"r", GEO_FIELD_REAL}};
    const double sx[] = {750000, 750100, 750100, 750000}, sy[] = {4050000, 4050000, 4050100, 4050100};
    geo_vec *v;
    int l;
    assert_int_equal(geo_vec_create(ctx, path, utm_wkt, &v), TRV_OK);
    assert_int_equal(geo_vec_add_layer(ctx, v, "obstacles", GEO_POLYGON, fields, 2, &l), TRV_OK);
    geo_value a[2] = {{.s = "sq"}, {.unset = 1}}, b[2] = {{.s = "tri"}, {.r = 2.5}};
    assert_int_equal(geo_vec_add(ctx, v, l, sx, sy, NULL, 4, a), TRV_OK);
    assert_int_equal(geo_vec_add(ctx, v, l, sx, sy, NULL, 2, b), TRV_ERR_USAGE); /* 2 vertices */
    assert_int_equal(geo_vec_add(ctx, v, l, sx, sy, NULL, 3, b), TRV_OK);
    assert_int_equal(geo_vec_close(ctx, v), TRV_OK);
    /* the unset field is omitted, not null */
    char *text = slurp(path, NULL);
    assert_null(strstr(text, "\"r\": null"));
    assert_non_null(strstr(text, "\"r\": 2.5"));
    free(text);

    geo_vfile *f;
    assert_int_equal(geo_vector_read(ctx, path, NULL, NULL, GEO_VREAD_FEATURES, &f), TRV_OK);
    assert_int_equal(f->nlayers, 1);
    const geo_vlayer *ly = &f->layers[0];
    assert_string_equal(ly->name, "obstacles");
    assert_int_equal(ly->geom, GEO_POLYGON);
    assert_int_equal(ly->multi, 0);
    char label[64];
    assert_string_equal(geo_crs_label(ly->wkt, label, sizeof label), "EPSG:4326");
    assert_int_equal(ly->nfields, 2);
    assert_int_equal(geo_vlayer_field(ly, "R"), 1);
    assert_int_equal(geo_vlayer_field(ly, "none"), -1);
    assert_int_equal(ly->n, 2);
    const geo_feature *q = &ly->f[0];
    assert_string_equal(q->str[0], "sq");
    assert_null(q->str[1]);
    assert_true(isnan(q->num[1]));
    assert_float_equal(ly->f[1].num[1], 2.5, 0);
    assert_int_equal(q->geom, GEO_POLYGON);
    assert_int_equal(q->nshapes, 1);
    const geo_shape *sh = &q->shapes[0];
    assert_int_equal(sh->nrings, 1);
    assert_int_equal(sh->n, 5); /* closed */
    assert_int_equal(sh->start[0], 0);
    assert_int_equal(sh->start[1], 5);
    double ext[4] = {INFINITY, INFINITY, -INFINITY, -INFINITY};
    for (int i = 0; i < 5; i++) {
        double lon, lat;
        ref_lonlat(sx[i % 4], sy[i % 4], &lon, &lat);
        assert_float_equal(sh->xy[2 * i], lon, 0.6e-7);
        assert_float_equal(sh->xy[2 * i + 1], lat, 0.6e-7);
        ext[0] = fmin(ext[0], sh->xy[2 * i]), ext[2] = fmax(ext[2], sh->xy[2 * i]);
        ext[1] = fmin(ext[1], sh->xy[2 * i + 1]), ext[3] = fmax(ext[3], sh->xy[2 * i + 1]);
    }
    assert_int_equal(ly->has_extent, 1);
    for (int k = 0; k < 4; k++) /* the triangle lies inside the square */
        assert_float_equal(ly->extent[k], ext[k], 1e-12);
    assert_int_equal(ly->f[1].shapes[0].n, 4);
    geo_vfile_free(f);

    /* into UTM: the square comes back to within the 7 decimals (~1 cm) */
    assert_int_equal(geo_vector_read(ctx, path, "obstacles", utm_wkt, GEO_VREAD_FEATURES, &f), TRV_OK);
    sh = &f->layers[0].f[0].shapes[0];
    for (int i = 0; i < 5; i++) {
        assert_float_equal(sh->xy[2 * i], sx[i % 4], 0.01);
        assert_float_equal(sh->xy[2 * i + 1], sy[i % 4], 0.01);
    }
    geo_vfile_free(f);
    assert_int_equal(geo_vector_read(ctx, path, "other", NULL, GEO_VREAD_INFO, &f), TRV_ERR_FORMAT);
    assert_non_null(strstr(trv_errmsg(ctx), "no layer 'other'"));
    char *none = tmp_path("none.geojson");
    assert_int_equal(geo_vector_read(ctx, none, NULL, NULL, GEO_VREAD_INFO, &f), TRV_ERR_IO);
    assert_non_null(strstr(trv_errmsg(ctx), "cannot open '"));
    free(none);
    free(path);
    trv_ctx_free(ctx);
}

/* A file geo did not write: GeoJSON by hand (a multipolygon with a hole,
 * a point, a null geometry), converted to a GeoPackage by the ogr2ogr CLI,
 * read back part by part. */
static void test_read_foreign(void **state)
{
    (void)state;
    if (system("ogr2ogr --version > /dev/null 2>&1") != 0)
        skip();
    char *src = tmp_path("hand.geojson"), *dst = tmp_path("hand.gpkg");
    FILE *fp = fopen(src, "w");
    assert_non_null(fp);
    fputs("{\"type\": \"FeatureCollection\", \"features\": [\n"
          "{\"type\": \"Feature\", \"properties\": {\"name\": \"lake\", \"depth\": 3},\n"
          " \"geometry\": {\"type\": \"MultiPolygon\", \"coordinates\": [\n"
          "  [[[0, 0], [4, 0], [4, 4], [0, 4], [0, 0]], [[1, 1], [2, 1], [2, 2], [1, 1]]],\n"
          "  [[[10, 10], [11, 10], [11, 11], [10, 10]]]]}},\n"
          "{\"type\": \"Feature\", \"properties\": {\"name\": \"well\", \"depth\": 12.5},\n"
          " \"geometry\": {\"type\": \"Point\", \"coordinates\": [-1, 2]}},\n"
          "{\"type\": \"Feature\", \"properties\": {\"name\": null, \"depth\": 1},\n"
          " \"geometry\": null}]}\n",
          fp);
    fclose(fp);
    char cmd[512];
    snprintf(cmd, sizeof cmd, "ogr2ogr -f GPKG -nln water -nlt GEOMETRY '%s' '%s' > /dev/null 2>&1", dst, src);
    assert_int_equal(system(cmd), 0);
    trv_ctx *ctx = trv_ctx_new();
    geo_vfile *f;
    assert_int_equal(geo_vector_read(ctx, dst, NULL, NULL, GEO_VREAD_FEATURES, &f), TRV_OK);
    assert_int_equal(f->nlayers, 1);
    const geo_vlayer *l = &f->layers[0];
    assert_string_equal(l->name, "water");
    assert_int_equal(l->geom, 0); /* declared GEOMETRY: mixed */
    assert_int_equal(l->n, 3);
    assert_int_equal(l->has_extent, 1);
    const double ext[4] = {-1, 0, 11, 11};
    for (int k = 0; k < 4; k++)
        assert_float_equal(l->extent[k], ext[k], 0);
    int name = geo_vlayer_field(l, "name"), depth = geo_vlayer_field(l, "depth");
    assert_true(name >= 0 && depth >= 0);
    const geo_feature *lake = &l->f[0], *well = &l->f[1], *none = &l->f[2];
    assert_string_equal(lake->str[name], "lake");
    assert_float_equal(well->num[depth], 12.5, 0);
    assert_int_equal(lake->geom, 0); /* multi-part */
    assert_int_equal(lake->nshapes, 2);
    const geo_shape *p = &lake->shapes[0];
    assert_int_equal(p->kind, GEO_POLYGON);
    assert_int_equal(p->nrings, 2);
    assert_int_equal(p->n, 9);
    assert_int_equal(p->start[1], 5);
    assert_int_equal(p->start[2], 9);
    assert_float_equal(p->xy[2 * 5], 1, 0);     /* the hole's first vertex */
    assert_float_equal(p->xy[2 * 7 + 1], 2, 0); /* its third */
    assert_int_equal(lake->shapes[1].n, 4);
    assert_float_equal(lake->shapes[1].xy[0], 10, 0);
    assert_int_equal(well->geom, GEO_POINT);
    assert_int_equal(well->nshapes, 1);
    assert_float_equal(well->shapes[0].xy[0], -1, 0);
    assert_float_equal(well->shapes[0].xy[1], 2, 0);
    assert_int_equal(none->has_geom, 0);
    assert_int_equal(none->nshapes, 0);
    assert_null(none->str[name]);
    geo_vfile_free(f);
    trv_ctx_free(ctx);
    free(src);
    free(dst);
}

/* Styles stored in a GeoPackage's layer_styles, read back by geo and by
 * OGR's SQL directly. */
static void test_gpkg_styles(void **state)
{
    (void)state;
    trv_ctx *ctx = trv_ctx_new();
    char *path = tmp_path("styled.gpkg");
    geo_vec *v;
    int a, b;
    assert_int_equal(geo_vec_create(ctx, path, utm_wkt, &v), TRV_OK);
    assert_int_equal(geo_vec_add_layer(ctx, v, "nodes", GEO_POINT, NULL, 0, &a), TRV_OK);
    assert_int_equal(geo_vec_add_layer(ctx, v, "edges", GEO_LINE, NULL, 0, &b), TRV_OK);
    assert_int_equal(geo_vec_add(ctx, v, a, line1_x, line1_y, NULL, 1, NULL), TRV_OK);
    assert_int_equal(geo_vec_close(ctx, v), TRV_OK);
    assert_null(geo_gpkg_style_read(path, "nodes")); /* no table yet */
    const char *layers[] = {"nodes"}, *docs[] = {"<qgis>dots</qgis>"};
    /* the writer's options (date, journal, syncs) are the caller's again after it */
    CPLSetConfigOption("OGR_SQLITE_JOURNAL", "DELETE");
    assert_int_equal(geo_gpkg_styles_write(ctx, path, layers, docs, 1), TRV_OK);
    assert_string_equal(CPLGetConfigOption("OGR_SQLITE_JOURNAL", ""), "DELETE");
    assert_null(CPLGetConfigOption("OGR_SQLITE_SYNCHRONOUS", NULL));
    assert_null(CPLGetConfigOption("OGR_CURRENT_DATE", NULL));
    CPLSetConfigOption("OGR_SQLITE_JOURNAL", NULL);
    const char *bad[] = {"none"};
    assert_int_equal(geo_gpkg_styles_write(ctx, path, bad, docs, 1), TRV_ERR_INTERNAL);
    assert_null(geo_gpkg_style_read(path, "x'y"));
    GDALDatasetH ds = open_vector(path);
    OGRLayerH res = GDALDatasetExecuteSQL(
        ds, "SELECT f_table_name, f_geometry_column, styleName, useAsDefault, update_time FROM layer_styles", NULL,
        NULL);
    assert_non_null(res);
    OGRFeatureH ft = OGR_L_GetNextFeature(res);
    assert_non_null(ft);
    assert_string_equal(OGR_F_GetFieldAsString(ft, 0), "nodes");
    assert_string_equal(OGR_F_GetFieldAsString(ft, 1), "geom");
    assert_string_equal(OGR_F_GetFieldAsString(ft, 2), "nodes");
    assert_int_equal(OGR_F_GetFieldAsInteger(ft, 3), 1);
    assert_non_null(strstr(OGR_F_GetFieldAsString(ft, 4), "2000"));
    OGR_F_Destroy(ft);
    assert_null(OGR_L_GetNextFeature(res)); /* the failed write added nothing */
    GDALDatasetReleaseResultSet(ds, res);
    GDALClose(ds);

    /* a table as QGIS keeps it (with an id column), made by ogr2ogr: the
     * default style wins over an older one */
    if (system("ogr2ogr --version > /dev/null 2>&1") == 0) {
        char *csv = tmp_path("layer_styles.csv"), *q = tmp_path("qgis.gpkg");
        FILE *fp = fopen(csv, "w");
        assert_non_null(fp);
        fputs("id,f_table_name,styleQML,useAsDefault\n1,roads,<a/>,0\n2,roads,<b/>,1\n3,rivers,<c/>,1\n", fp);
        fclose(fp);
        char cmd[600];
        snprintf(cmd, sizeof cmd, "ogr2ogr -f GPKG -nln layer_styles '%s' '%s' > /dev/null 2>&1", q, csv);
        assert_int_equal(system(cmd), 0);
        char *got = geo_gpkg_style_read(q, "roads");
        assert_non_null(got);
        assert_string_equal(got, "<b/>");
        free(got);
        assert_null(geo_gpkg_style_read(q, "lakes"));
        free(csv);
        free(q);
    }
    free(path);
    trv_ctx_free(ctx);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_geojson),
        cmocka_unit_test(test_gpx),
        cmocka_unit_test(test_gpkg),
        cmocka_unit_test(test_gpkg_z),
        cmocka_unit_test(test_gpkg_point_z),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_polygon_roundtrip),
        cmocka_unit_test(test_read_foreign),
        cmocka_unit_test(test_gpkg_styles),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
