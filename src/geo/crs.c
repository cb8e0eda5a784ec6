/* Coordinate systems: UTM zone choice, CRS comparison and transforms. */
#include "geo_priv.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <cpl_conv.h>
#include <cpl_error.h>
#include <proj.h>

OGRSpatialReferenceH geo_srs_new(const char *def)
{
    OGRSpatialReferenceH srs = OSRNewSpatialReference(NULL);
    if (!srs)
        return NULL;
    if (OSRSetFromUserInput(srs, def) != OGRERR_NONE) {
        OSRDestroySpatialReference(srs);
        return NULL;
    }
    OSRSetAxisMappingStrategy(srs, OAMS_TRADITIONAL_GIS_ORDER);
    return srs;
}

int geo_crs_same(const char *a, const char *b)
{
    if (!a || !b)
        return !a && !b;
    if (!strcmp(a, b))
        return 1;
    OGRSpatialReferenceH sa = geo_srs_new(a), sb = geo_srs_new(b);
    int same = sa && sb && OSRIsSame(sa, sb);
    OSRDestroySpatialReference(sa);
    OSRDestroySpatialReference(sb);
    return same;
}

trv_status geo_ct_new(trv_ctx *ctx, const char *from_wkt, const char *to_wkt, OGRCoordinateTransformationH *ct)
{
    *ct = NULL;
    if (!from_wkt || !to_wkt)
        return trv_error(ctx, TRV_ERR_CRS, "no CRS");
    OGRSpatialReferenceH a = geo_srs_new(from_wkt), b = geo_srs_new(to_wkt);
    if (a && b) {
        CPLErrorReset();
        *ct = OCTNewCoordinateTransformation(a, b);
    }
    OSRDestroySpatialReference(a);
    OSRDestroySpatialReference(b);
    if (!*ct)
        return trv_error(ctx, TRV_ERR_CRS, "cannot transform between the CRSs: %s", geo_gdal_msg(NULL));
    return TRV_OK;
}

int geo_utm_epsg(double lon, double lat)
{
    lon = fmod(fmod(lon + 180.0, 360.0) + 360.0, 360.0) - 180.0; /* into [-180, 180) */
    int zone = (int)floor((lon + 180.0) / 6.0) + 1;
    if (zone > 60)
        zone = 60;
    if (lat >= 56 && lat < 64 && lon >= 3 && lon < 12)
        zone = 32; /* south-west Norway */
    if (lat >= 72 && lat < 84 && lon >= 0 && lon < 42)
        zone = lon < 9 ? 31 : lon < 21 ? 33 : lon < 33 ? 35 : 37; /* Svalbard */
    return (lat >= 0 ? 32600 : 32700) + zone;
}

int geo_crs_is_geographic(const char *wkt)
{
    OGRSpatialReferenceH s = wkt ? geo_srs_new(wkt) : NULL;
    if (!s)
        return -1;
    int geo = OSRIsGeographic(s) ? 1 : 0;
    OSRDestroySpatialReference(s);
    return geo;
}

const char *geo_crs_label(const char *wkt, char *buf, size_t n)
{
    OGRSpatialReferenceH s = wkt ? geo_srs_new(wkt) : NULL;
    snprintf(buf, n, "%s", wkt ? "unknown CRS" : "none");
    if (!s)
        return buf;
    const char *auth = OSRGetAuthorityName(s, NULL), *code = OSRGetAuthorityCode(s, NULL);
    if (auth && code)
        snprintf(buf, n, "%s:%s", auth, code);
    else if (OSRGetName(s))
        snprintf(buf, n, "'%s'", OSRGetName(s));
    OSRDestroySpatialReference(s);
    return buf;
}

double geo_crs_metres_per_unit(const char *wkt)
{
    OGRSpatialReferenceH s = wkt ? geo_srs_new(wkt) : NULL;
    if (!s)
        return 1.0;
    double m = OSRIsProjected(s) ? OSRGetLinearUnits(s, NULL) : 1.0;
    OSRDestroySpatialReference(s);
    return m > 0 ? m : 1.0;
}

char *geo_srs_wkt(OGRSpatialReferenceH srs)
{
    char *w = NULL, *out = NULL;
    const char *opts[] = {"FORMAT=WKT2_2019", NULL};
    if (OSRExportToWktEx(srs, &w, opts) == OGRERR_NONE && w && *w)
        out = strdup(w);
    CPLFree(w);
    return out;
}

static trv_status export_wkt(trv_ctx *ctx, OGRSpatialReferenceH s, char **wkt)
{
    if (!(*wkt = geo_srs_wkt(s)))
        return trv_error(ctx, TRV_ERR_CRS, "cannot export CRS: %s", geo_gdal_msg(NULL));
    return TRV_OK;
}

trv_status geo_crs_wkt(trv_ctx *ctx, const char *def, char **wkt)
{
    *wkt = NULL;
    OGRSpatialReferenceH s = geo_srs_new(def);
    if (!s)
        return trv_error(ctx, TRV_ERR_CRS, "cannot understand the CRS '%s'", def);
    trv_status st = export_wkt(ctx, s, wkt);
    OSRDestroySpatialReference(s);
    return st;
}

trv_status geo_crs_choose(trv_ctx *ctx, const geo_grid *src, const char *t_srs, char **wkt)
{
    *wkt = NULL;
    trv_status st;
    if (t_srs) {
        OGRSpatialReferenceH s = geo_srs_new(t_srs);
        if (!s)
            return trv_error(ctx, TRV_ERR_CRS, "cannot understand the CRS '%s'", t_srs);
        if (!OSRIsProjected(s)) {
            OSRDestroySpatialReference(s);
            return trv_error(ctx, TRV_ERR_CRS, "'%s' is not a projected CRS: terrain work needs metres", t_srs);
        }
        st = export_wkt(ctx, s, wkt);
        OSRDestroySpatialReference(s);
        return st;
    }
    if (!src->wkt)
        return trv_error(ctx, TRV_ERR_CRS, "the input has no CRS (assign one, e.g. gdal_edit.py -a_srs EPSG:4326)");
    int geographic = geo_crs_is_geographic(src->wkt);
    if (geographic < 0)
        return trv_error(ctx, TRV_ERR_CRS, "cannot read the input CRS");
    if (!geographic) {
        OGRSpatialReferenceH s = geo_srs_new(src->wkt);
        if (!OSRIsProjected(s)) {
            OSRDestroySpatialReference(s);
            return trv_error(ctx, TRV_ERR_CRS, "the input CRS is neither geographic nor projected; name one with --t_srs");
        }
        OSRDestroySpatialReference(s);
        return (*wkt = strdup(src->wkt)) ? TRV_OK : trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
    }
    /* the centre of the grid in WGS 84 longitude/latitude picks the zone */
    OGRCoordinateTransformationH ct;
    if ((st = geo_ct_new(ctx, src->wkt, "EPSG:4326", &ct)))
        return st;
    double x = geo_grid_x(src, (src->nx - 1) / 2.0), y = geo_grid_y(src, (src->ny - 1) / 2.0);
    int ok = OCTTransform(ct, 1, &x, &y, NULL);
    OCTDestroyCoordinateTransformation(ct);
    if (!ok || y > 84 || y < -80)
        return trv_error(ctx, TRV_ERR_CRS, "the input centre (%g, %g) has no UTM zone; name a CRS with --t_srs", x, y);
    char def[32];
    snprintf(def, sizeof def, "EPSG:%d", geo_utm_epsg(x, y));
    OGRSpatialReferenceH s = geo_srs_new(def);
    if (!s)
        return trv_error(ctx, TRV_ERR_CRS, "cannot create %s (is proj-data installed?)", def);
    st = export_wkt(ctx, s, wkt);
    OSRDestroySpatialReference(s);
    return st;
}

/* ---- geo_ct ---------------------------------------------------------- */

struct geo_ct {
    OGRCoordinateTransformationH h; /* NULL: identity */
    double *ax, *ay;                /* geo_ct_line anchors */
    int *aok;
    size_t acap;
    double *px, *py;                /* geo_ct_line_part's intervals */
    int *pok;
    size_t pcap;
};

trv_status geo_ct_create(trv_ctx *ctx, const char *from_wkt, const char *to_wkt, geo_ct **out)
{
    *out = NULL;
    geo_ct *ct = calloc(1, sizeof *ct);
    if (!ct)
        return trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
    trv_status st;
    if (!geo_crs_same(from_wkt, to_wkt) && (st = geo_ct_new(ctx, from_wkt, to_wkt, &ct->h))) {
        free(ct);
        return st;
    }
    *out = ct;
    return TRV_OK;
}

void geo_ct_free(geo_ct *ct)
{
    if (!ct)
        return;
    if (ct->h)
        OCTDestroyCoordinateTransformation(ct->h);
    free(ct->ax);
    free(ct->ay);
    free(ct->aok);
    free(ct->px);
    free(ct->py);
    free(ct->pok);
    free(ct);
}

int geo_ct_is_identity(const geo_ct *ct) { return ct->h == NULL; }

size_t geo_ct_points(geo_ct *ct, size_t n, double *x, double *y, int *ok)
{
    if (ok)
        for (size_t i = 0; i < n; i++)
            ok[i] = 1;
    if (!ct->h || n == 0)
        return 0;
    size_t bad = 0;
    /* OCTTransformEx counts in int: go in slices */
    for (size_t a = 0; a < n; a += 1 << 24) {
        int m = (int)(n - a < (1u << 24) ? n - a : 1u << 24);
        int *pok = ok ? ok + a : NULL;
        int *tmp = pok ? NULL : malloc((size_t)m * sizeof *tmp);
        int *use = pok ? pok : tmp;
        if (!use) {
            for (int i = 0; i < m; i++)
                if (!OCTTransform(ct->h, 1, x + a + i, y + a + i, NULL))
                    bad++;
            continue;
        }
        OCTTransformEx(ct->h, m, x + a, y + a, NULL, use);
        for (int i = 0; i < m; i++)
            bad += !use[i];
        free(tmp);
    }
    return bad;
}

enum { STRIDE = 32 };

/* Room for np anchors and m scratch points in ct (kept between calls). */
static trv_status line_room(trv_ctx *ctx, geo_ct *ct, int np, int m)
{
    if ((size_t)np > ct->acap) {
        free(ct->ax);
        free(ct->ay);
        free(ct->aok);
        ct->ax = malloc((size_t)np * sizeof *ct->ax);
        ct->ay = malloc((size_t)np * sizeof *ct->ay);
        ct->aok = malloc((size_t)np * sizeof *ct->aok);
        ct->acap = (size_t)np;
        if (!ct->ax || !ct->ay || !ct->aok) {
            ct->acap = 0;
            return trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
        }
    }
    if ((size_t)m > ct->pcap) {
        free(ct->px);
        free(ct->py);
        free(ct->pok);
        ct->px = malloc((size_t)m * sizeof *ct->px);
        ct->py = malloc((size_t)m * sizeof *ct->py);
        ct->pok = malloc((size_t)m * sizeof *ct->pok);
        ct->pcap = (size_t)m;
        if (!ct->px || !ct->py || !ct->pok) {
            ct->pcap = 0;
            return trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
        }
    }
    return TRV_OK;
}

/* geo_ct_line's intervals ilo .. ihi of the n-point line: its points
 * lo = ilo STRIDE .. hi into xs, ys, ok at k - lo. */
static void line_intervals(geo_ct *ct, double x0, double dx, double y, int n, double tol, int ilo,
                           int ihi, double *xs, double *ys, int *ok)
{
    const int lo = ilo * STRIDE, hi = ihi * STRIDE + STRIDE < n - 1 ? ihi * STRIDE + STRIDE : n - 1;
    for (int k = lo; k <= hi; k++) {
        xs[k - lo] = x0 + k * dx;
        ys[k - lo] = y;
        ok[k - lo] = 1;
    }
    const int nint = ihi - ilo + 1, np = 2 * nint + 1;
    double *ax = ct->ax, *ay = ct->ay;
    int *aok = ct->aok;
    for (int i = 0; i <= nint; i++) { /* anchors at even slots, middles at odd */
        int a = (ilo + i) * STRIDE < n - 1 ? (ilo + i) * STRIDE : n - 1;
        ax[2 * i] = xs[a - lo];
        if (i < nint) {
            int b = a + STRIDE < n - 1 ? a + STRIDE : n - 1;
            ax[2 * i + 1] = xs[(a + b) / 2 - lo];
        }
    }
    for (int p = 0; p < np; p++) {
        ay[p] = y;
        aok[p] = 1;
    }
    OCTTransformEx(ct->h, np, ax, ay, NULL, aok);
    int exact_to = -1; /* points 0..exact_to hold exact results already */
    for (int i = 0; i < nint; i++) {
        int a = (ilo + i) * STRIDE, b = a + STRIDE < n - 1 ? a + STRIDE : n - 1, m = (a + b) / 2;
        const double *px = ax + 2 * i, *py = ay + 2 * i;
        double t = (double)(m - a) / (b - a);
        int linear = aok[2 * i] && aok[2 * i + 1] && aok[2 * i + 2] &&
                     fabs(px[0] + t * (px[2] - px[0]) - px[1]) <= tol && fabs(py[0] + t * (py[2] - py[0]) - py[1]) <= tol;
        if (!linear) {
            /* intervals share their end points: never transform one twice */
            int from = a > exact_to ? a : exact_to + 1;
            OCTTransformEx(ct->h, b - from + 1, xs + from - lo, ys + from - lo, NULL, ok + from - lo);
            exact_to = b;
            continue;
        }
        for (int k = a; k <= b; k++) {
            double f = (double)(k - a) / (b - a);
            xs[k - lo] = px[0] + f * (px[2] - px[0]);
            ys[k - lo] = py[0] + f * (py[2] - py[0]);
            ok[k - lo] = 1;
        }
        exact_to = b;
    }
}

trv_status geo_ct_line(trv_ctx *ctx, geo_ct *ct, double x0, double dx, double y, int n, double tol, double *xs,
                       double *ys, int *ok)
{
    return geo_ct_line_part(ctx, ct, x0, dx, y, n, tol, 0, n, xs, ys, ok);
}

trv_status geo_ct_line_part(trv_ctx *ctx, geo_ct *ct, double x0, double dx, double y, int n, double tol, int k0,
                            int k1, double *xs, double *ys, int *ok)
{
    if (k0 < 0 || k1 > n || k0 > k1)
        return trv_error(ctx, TRV_ERR_INTERNAL, "line points %d to %d outside 0 to %d", k0, k1 - 1, n - 1);
    for (int k = k0; k < k1; k++) {
        xs[k - k0] = x0 + k * dx;
        ys[k - k0] = y;
        ok[k - k0] = 1;
    }
    if (!ct->h || k1 == k0)
        return TRV_OK;
    if (n <= 2 * STRIDE) {
        OCTTransformEx(ct->h, k1 - k0, xs, ys, NULL, ok);
        return TRV_OK;
    }
    /* the intervals that set points k0 .. k1 - 1 (an anchor shared by two
     * intervals is set by the first, then by the second if it is linear) */
    const int last = (n - 1 + STRIDE - 1) / STRIDE - 1;
    const int ilo = k0 / STRIDE - 1 > 0 ? k0 / STRIDE - 1 : 0;
    const int ihi = (k1 - 1) / STRIDE < last ? (k1 - 1) / STRIDE : last;
    const int lo = ilo * STRIDE, hi = ihi * STRIDE + STRIDE < n - 1 ? ihi * STRIDE + STRIDE : n - 1;
    const int direct = lo == k0 && hi == k1 - 1;
    trv_status st = line_room(ctx, ct, 2 * (ihi - ilo + 1) + 1, direct ? 0 : hi - lo + 1);
    if (st)
        return st;
    if (direct) {
        line_intervals(ct, x0, dx, y, n, tol, ilo, ihi, xs, ys, ok);
        return TRV_OK;
    }
    line_intervals(ct, x0, dx, y, n, tol, ilo, ihi, ct->px, ct->py, ct->pok);
    memcpy(xs, ct->px + (k0 - lo), (size_t)(k1 - k0) * sizeof *xs);
    memcpy(ys, ct->py + (k0 - lo), (size_t)(k1 - k0) * sizeof *ys);
    memcpy(ok, ct->pok + (k0 - lo), (size_t)(k1 - k0) * sizeof *ok);
    return TRV_OK;
}

size_t geo_ct_bounds(geo_ct *ct, double xmin, double ymin, double xmax, double ymax, double bb[4])
{
    enum { SIDE = 64 };
    double x[4 * SIDE], y[4 * SIDE];
    int ok[4 * SIDE];
    for (int i = 0; i < SIDE; i++) {
        double f = (double)i / SIDE;
        x[i] = xmin + f * (xmax - xmin), y[i] = ymin;                   /* south */
        x[SIDE + i] = xmax, y[SIDE + i] = ymin + f * (ymax - ymin);     /* east */
        x[2 * SIDE + i] = xmax - f * (xmax - xmin), y[2 * SIDE + i] = ymax; /* north */
        x[3 * SIDE + i] = xmin, y[3 * SIDE + i] = ymax - f * (ymax - ymin); /* west */
    }
    size_t bad = geo_ct_points(ct, 4 * SIDE, x, y, ok);
    bb[0] = bb[1] = INFINITY;
    bb[2] = bb[3] = -INFINITY;
    for (int i = 0; i < 4 * SIDE; i++) {
        if (!ok[i])
            continue;
        bb[0] = fmin(bb[0], x[i]);
        bb[1] = fmin(bb[1], y[i]);
        bb[2] = fmax(bb[2], x[i]);
        bb[3] = fmax(bb[3], y[i]);
    }
    return bad;
}

const char *geo_proj_version(void)
{
    return proj_info().version;
}
