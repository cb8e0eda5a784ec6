/* Interpolation accuracy helpers for bench/krige.sh (plain GDAL, no traverse
 * code, so that the baselines and the scoring are independent of what they
 * judge):
 *
 *   bench_interp decimate IN.tif K OUT.tif
 *       keep samples (K*i, K*j) of band 1, as a raster whose cell centres are
 *       exactly those samples: cell size K times IN's, origin moved by
 *       (K - 1) / 2 cells up and left; same CRS, data type and nodata
 *   bench_interp baseline bilinear|spline DECIMATED.tif FULL.tif OUT.tif
 *       interpolate DECIMATED back onto FULL's grid (Float32), in the
 *       decimated grid's index space: FULL's cell centre (x, y) sits at
 *       decimated index ((x - gt0) / gt1 - 0.5, (y - gt3) / gt5 - 0.5).
 *       bilinear: the 2 x 2 samples around it. spline: separable natural
 *       cubic spline (rows, then columns) through the samples. Nodata: a cell
 *       outside the samples' hull, or whose stencil (the bilinear 2 x 2; for
 *       the spline, the run of valid samples it lies in, along each axis)
 *       touches nodata
 *   bench_interp score ORIGINAL.tif PRED.tif K [MASK.tif]
 *       error PRED - ORIGINAL over the cells not kept by decimate
 *       (r % K != 0 or c % K != 0) where both have data (and MASK too, when
 *       given); prints one line "rmse mae max n"
 */
#include <gdal.h>
#include <cpl_conv.h>
#include <cpl_error.h>

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct grid {
    int nx, ny;
    double gt[6];
    char *wkt;          /* owned, "" if none */
    GDALDataType type;  /* band 1's type */
    int has_nodata;
    double nodata;
    double *v;          /* nx * ny, row-major from the north-west corner */
} grid;

static void die(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));

static void die(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("bench_interp: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    exit(1);
}

static void *xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p)
        die("out of memory (%zu bytes)", n);
    return p;
}

static int is_nodata(const grid *g, double v)
{
    return isnan(v) || (g->has_nodata && v == g->nodata);
}

static void grid_read(const char *path, grid *g)
{
    GDALDatasetH ds = GDALOpen(path, GA_ReadOnly);
    if (!ds)
        die("cannot open '%s': %s", path, CPLGetLastErrorMsg());
    GDALRasterBandH b = GDALGetRasterBand(ds, 1);
    if (!b)
        die("'%s' has no band 1", path);
    g->nx = GDALGetRasterXSize(ds);
    g->ny = GDALGetRasterYSize(ds);
    if (GDALGetGeoTransform(ds, g->gt) != CE_None)
        die("'%s' has no geotransform", path);
    if (g->gt[2] != 0 || g->gt[4] != 0)
        die("'%s' is rotated; only north-up grids are supported", path);
    const char *wkt = GDALGetProjectionRef(ds);
    g->wkt = CPLStrdup(wkt ? wkt : "");
    g->type = GDALGetRasterDataType(b);
    g->nodata = GDALGetRasterNoDataValue(b, &g->has_nodata);
    g->v = xmalloc((size_t)g->nx * (size_t)g->ny * sizeof *g->v);
    if (GDALRasterIO(b, GF_Read, 0, 0, g->nx, g->ny, g->v, g->nx, g->ny, GDT_Float64, 0, 0) != CE_None)
        die("cannot read '%s': %s", path, CPLGetLastErrorMsg());
    GDALClose(ds);
}

static void grid_free(grid *g)
{
    CPLFree(g->wkt);
    free(g->v);
}

static void grid_write(const char *path, const grid *g)
{
    GDALDriverH drv = GDALGetDriverByName("GTiff");
    if (!drv)
        die("the GTiff driver is missing");
    char *opts[] = {"COMPRESS=DEFLATE", "TILED=YES", NULL};
    GDALDatasetH ds = GDALCreate(drv, path, g->nx, g->ny, 1, g->type, opts);
    if (!ds)
        die("cannot create '%s': %s", path, CPLGetLastErrorMsg());
    double gt[6];
    memcpy(gt, g->gt, sizeof gt);
    GDALSetGeoTransform(ds, gt);
    if (g->wkt[0])
        GDALSetProjection(ds, g->wkt);
    GDALRasterBandH b = GDALGetRasterBand(ds, 1);
    if (g->has_nodata)
        GDALSetRasterNoDataValue(b, g->nodata);
    if (GDALRasterIO(b, GF_Write, 0, 0, g->nx, g->ny, g->v, g->nx, g->ny, GDT_Float64, 0, 0) != CE_None)
        die("cannot write '%s': %s", path, CPLGetLastErrorMsg());
    GDALClose(ds);
    if (CPLGetLastErrorType() >= CE_Failure)
        die("cannot write '%s': %s", path, CPLGetLastErrorMsg());
}

static int parse_k(const char *s)
{
    char *end;
    long k = strtol(s, &end, 10);
    if (*s == '\0' || *end != '\0' || k < 1 || k > 1000)
        die("K must be an integer in 1..1000, not '%s'", s);
    return (int)k;
}

/* ---- decimate ------------------------------------------------------------ */

static int cmd_decimate(const char *in, int k, const char *out)
{
    grid s, d;
    grid_read(in, &s);
    d = s;
    d.nx = (s.nx + k - 1) / k;
    d.ny = (s.ny + k - 1) / k;
    /* centre of decimated cell i = centre of source cell K*i:
     * x0' + (i + 0.5) K dx = x0 + (K i + 0.5) dx  =>  x0' = x0 - (K - 1) / 2 dx */
    d.gt[0] = s.gt[0] - 0.5 * (k - 1) * s.gt[1];
    d.gt[1] = s.gt[1] * k;
    d.gt[3] = s.gt[3] - 0.5 * (k - 1) * s.gt[5];
    d.gt[5] = s.gt[5] * k;
    d.v = xmalloc((size_t)d.nx * (size_t)d.ny * sizeof *d.v);
    for (int j = 0; j < d.ny; j++)
        for (int i = 0; i < d.nx; i++)
            d.v[(size_t)j * d.nx + i] = s.v[(size_t)j * k * s.nx + (size_t)i * k];
    grid_write(out, &d);
    free(d.v);
    grid_free(&s);
    return 0;
}

/* ---- baselines ------------------------------------------------------------- */

/* Position t in index space snapped to an integer when within 1e-9 of one,
 * so that cells on a sample row/column do not fall off the last sample. */
static double snap(double t)
{
    double r = nearbyint(t);
    return fabs(t - r) < 1e-9 ? r : t;
}

/* Natural cubic spline through y[0..n-1] at abscissae 0..n-1 (unit spacing):
 * second derivatives m[] from the tridiagonal system
 *   m[i-1] + 4 m[i] + m[i+1] = 6 (y[i+1] - 2 y[i] + y[i-1]),  i = 1..n-2,
 *   m[0] = m[n-1] = 0,
 * solved by forward elimination and back substitution (Thomas algorithm);
 * work holds n doubles. */
static void spline_setup(const double *y, int n, double *m, double *work)
{
    m[0] = 0;
    m[n - 1] = 0;
    if (n < 3)
        return;
    /* unknowns m[1..n-2]; diagonal 4, off-diagonals 1 */
    double *c = work; /* modified super-diagonal */
    for (int i = 1; i <= n - 2; i++) {
        double rhs = 6 * (y[i + 1] - 2 * y[i] + y[i - 1]);
        double diag = 4;
        if (i > 1) {
            diag -= c[i - 1];
            rhs -= m[i - 1];
        }
        c[i] = 1 / diag;
        m[i] = rhs / diag;
    }
    for (int i = n - 3; i >= 1; i--)
        m[i] -= c[i] * m[i + 1];
}

/* Spline value at t in [0, n-1] (y, m from spline_setup). */
static double spline_eval(const double *y, const double *m, int n, double t)
{
    if (n == 1)
        return y[0];
    int i = (int)floor(t);
    if (i >= n - 1)
        i = n - 2;
    if (i < 0)
        i = 0;
    double s = t - i, u = 1 - s;
    return u * y[i] + s * y[i + 1] + ((u * u * u - u) * m[i] + (s * s * s - s) * m[i + 1]) / 6;
}

/* Interpolate the line in[0..n-1] (stride istride, nodata marked by nd[]
 * with the same stride) at positions t[0..nt-1] into out (stride ostride,
 * NAN for nodata). Each maximal run of valid samples gets its own natural
 * spline (spline != 0) or linear pieces. */
static void line_interp(const double *in, const unsigned char *nd, size_t istride, int n, const double *t, int nt,
                        double *out, size_t ostride, int spline, double *y, double *m, double *work, int *run_of,
                        int *run_end)
{
    /* run_of[i] / run_end[i]: first / last index of the run of valid samples
     * holding sample i; run_of[i] = -1 if sample i is nodata */
    int start = -1;
    for (int i = 0; i < n; i++) {
        if (nd[i * istride]) {
            run_of[i] = -1;
            start = -1;
            continue;
        }
        if (start < 0)
            start = i;
        run_of[i] = start;
        y[i] = in[i * istride];
    }
    for (int i = n - 1, end = -1; i >= 0; i--) {
        if (run_of[i] < 0)
            end = -1;
        else if (end < 0)
            end = i;
        run_end[i] = end;
    }
    if (spline)
        for (int i = 0; i < n; i = run_of[i] < 0 ? i + 1 : run_end[i] + 1)
            if (run_of[i] >= 0)
                spline_setup(y + i, run_end[i] - i + 1, m + i, work);
    for (int k = 0; k < nt; k++) {
        double p = snap(t[k]);
        double v = NAN;
        if (p >= 0 && p <= n - 1) {
            int i0 = (int)floor(p);
            int i1 = p > i0 ? i0 + 1 : i0;
            if (run_of[i0] >= 0 && run_of[i1] >= 0) {
                if (spline) {
                    int s0 = run_of[i0];
                    v = spline_eval(y + s0, m + s0, run_end[i0] - s0 + 1, p - s0);
                } else {
                    double f = p - i0;
                    v = (1 - f) * y[i0] + f * y[i1];
                }
            }
        }
        out[k * ostride] = v;
    }
}

static int cmd_baseline(const char *method, const char *dec_path, const char *full_path, const char *out)
{
    int spline;
    if (!strcmp(method, "bilinear"))
        spline = 0;
    else if (!strcmp(method, "spline"))
        spline = 1;
    else
        die("unknown method '%s' (bilinear or spline)", method);
    grid d, f;
    grid_read(dec_path, &d);
    grid_read(full_path, &f);
    free(f.v);
    /* full-grid cell centres in the decimated grid's index space */
    double *u = xmalloc((size_t)f.nx * sizeof *u), *v = xmalloc((size_t)f.ny * sizeof *v);
    for (int c = 0; c < f.nx; c++)
        u[c] = (f.gt[0] + (c + 0.5) * f.gt[1] - d.gt[0]) / d.gt[1] - 0.5;
    for (int r = 0; r < f.ny; r++)
        v[r] = (f.gt[3] + (r + 0.5) * f.gt[5] - d.gt[3]) / d.gt[5] - 0.5;

    size_t nd_cells = (size_t)d.nx * (size_t)d.ny, nmid = (size_t)d.ny * (size_t)f.nx;
    unsigned char *nd = xmalloc(nd_cells), *ndmid = xmalloc(nmid);
    for (size_t i = 0; i < nd_cells; i++)
        nd[i] = (unsigned char)is_nodata(&d, d.v[i]);
    int nmax = d.nx > d.ny ? d.nx : d.ny;
    double *y = xmalloc((size_t)nmax * sizeof *y), *m = xmalloc((size_t)nmax * sizeof *m);
    double *work = xmalloc((size_t)nmax * sizeof *work);
    int *run_of = xmalloc((size_t)nmax * sizeof *run_of), *run_end = xmalloc((size_t)nmax * sizeof *run_end);

    /* pass 1: along each decimated row onto the full grid's columns */
    double *mid = xmalloc(nmid * sizeof *mid);
    for (int j = 0; j < d.ny; j++)
        line_interp(d.v + (size_t)j * d.nx, nd + (size_t)j * d.nx, 1, d.nx, u, f.nx, mid + (size_t)j * f.nx, 1, spline,
                    y, m, work, run_of, run_end);
    for (size_t i = 0; i < nmid; i++)
        ndmid[i] = (unsigned char)isnan(mid[i]);
    /* pass 2: along each full-grid column onto the full grid's rows */
    grid o = f;
    o.type = GDT_Float32;
    o.has_nodata = 1;
    o.nodata = d.has_nodata ? d.nodata : -32768;
    o.v = xmalloc((size_t)f.nx * (size_t)f.ny * sizeof *o.v);
    for (int c = 0; c < f.nx; c++)
        line_interp(mid + c, ndmid + c, (size_t)f.nx, d.ny, v, f.ny, o.v + c, (size_t)f.nx, spline, y, m, work,
                    run_of, run_end);
    for (size_t i = 0; i < (size_t)f.nx * (size_t)f.ny; i++)
        if (isnan(o.v[i]))
            o.v[i] = o.nodata;
    grid_write(out, &o);
    free(o.v);
    free(mid);
    free(run_end);
    free(run_of);
    free(work);
    free(m);
    free(y);
    free(ndmid);
    free(nd);
    free(v);
    free(u);
    f.v = NULL;
    grid_free(&f);
    grid_free(&d);
    return 0;
}

/* ---- score ----------------------------------------------------------------- */

static void same_grid(const grid *a, const char *pa, const grid *b, const char *pb)
{
    if (a->nx != b->nx || a->ny != b->ny)
        die("'%s' is %d x %d but '%s' is %d x %d", pb, b->nx, b->ny, pa, a->nx, a->ny);
    double tol[6] = {1e-6 * fabs(a->gt[1]), 1e-9 * fabs(a->gt[1]), 0, 1e-6 * fabs(a->gt[5]), 0,
                     1e-9 * fabs(a->gt[5])};
    for (int i = 0; i < 6; i++)
        if (fabs(a->gt[i] - b->gt[i]) > tol[i])
            die("'%s' is not on the grid of '%s' (geotransform term %d: %.12g vs %.12g)", pb, pa, i, b->gt[i],
                a->gt[i]);
}

static int cmd_score(const char *orig_path, const char *pred_path, int k, const char *mask_path)
{
    grid o, p, mk;
    grid_read(orig_path, &o);
    grid_read(pred_path, &p);
    same_grid(&o, orig_path, &p, pred_path);
    if (mask_path) {
        grid_read(mask_path, &mk);
        same_grid(&o, orig_path, &mk, mask_path);
    }
    double sse = 0, sae = 0, emax = 0;
    size_t n = 0;
    for (int r = 0; r < o.ny; r++)
        for (int c = 0; c < o.nx; c++) {
            if (r % k == 0 && c % k == 0)
                continue;
            size_t i = (size_t)r * o.nx + c;
            if (is_nodata(&o, o.v[i]) || is_nodata(&p, p.v[i]) || (mask_path && is_nodata(&mk, mk.v[i])))
                continue;
            double e = fabs(p.v[i] - o.v[i]);
            sse += e * e;
            sae += e;
            if (e > emax)
                emax = e;
            n++;
        }
    if (n == 0)
        die("no scored cells: '%s' and '%s' have no dropped cell with data in common", orig_path, pred_path);
    printf("%.4f %.4f %.4f %zu\n", sqrt(sse / n), sae / n, emax, n);
    if (mask_path)
        grid_free(&mk);
    grid_free(&p);
    grid_free(&o);
    return 0;
}

int main(int argc, char **argv)
{
    const char *usage = "usage: bench_interp decimate IN.tif K OUT.tif\n"
                        "       bench_interp baseline bilinear|spline DECIMATED.tif FULL.tif OUT.tif\n"
                        "       bench_interp score ORIGINAL.tif PRED.tif K [MASK.tif]\n";
    if (argc < 2) {
        fputs(usage, stderr);
        return 2;
    }
    GDALAllRegister();
    if (!strcmp(argv[1], "decimate") && argc == 5)
        return cmd_decimate(argv[2], parse_k(argv[3]), argv[4]);
    if (!strcmp(argv[1], "baseline") && argc == 6)
        return cmd_baseline(argv[2], argv[3], argv[4], argv[5]);
    if (!strcmp(argv[1], "score") && (argc == 5 || argc == 6))
        return cmd_score(argv[2], argv[3], parse_k(argv[4]), argc == 6 ? argv[5] : NULL);
    fputs(usage, stderr);
    return 2;
}
