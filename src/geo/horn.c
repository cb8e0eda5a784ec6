/* Horn's 3x3 window and its two differences (docs/method.md §1.8), shared
 * by slope (geo/slope.c), hillshade (render/palette.c) and the route's
 * direction-aware grades (prm/pace.c), as gdaldem -compute_edges fills it.
 * Most windows lie inside the grid with every value valid: those take a
 * short path with the same sums in the same order (the same doubles). */
#include "geo_priv.h"

#include <math.h>

/* Elevation at column xx of a row (NULL: off the grid), extrapolated
 * linearly across the left/right edge; NAN when nodata or unknown. */
static double at(const float *r, int xx, int nx, int has_nodata, float nodata)
{
    if (!r)
        return NAN;
    int a = xx, b = xx; /* value = 2 r[a] - r[b] off the grid, r[a] on it */
    if (xx < 0)
        a = 0, b = 1;
    else if (xx >= nx)
        a = nx - 1, b = nx - 2;
    if (b < 0 || b >= nx)
        return NAN;
    float fa = r[a], fb = r[b];
    if (geo_f32_is_nodata(fa, has_nodata, nodata) || geo_f32_is_nodata(fb, has_nodata, nodata))
        return NAN;
    return a == xx ? fa : 2.0 * fa - fb;
}

/* Horn's two differences of the window w[0..8] (NW N NE / W C E / SW S SE):
 * east minus west and south minus north, each weighted 1 2 1. */
static void sums(const double w[9], double *gx, double *gy)
{
    *gx = (w[2] + 2 * w[5] + w[8]) - (w[0] + 2 * w[3] + w[6]);
    *gy = (w[6] + 2 * w[7] + w[8]) - (w[0] + 2 * w[1] + w[2]);
}

/* The window off the grid's edge with neither nodata nor NaN in it: the
 * nine values as they are (the general path below then takes every one as
 * it is, so the same sums in the same order give the same doubles); 0 when
 * the window is not that simple. */
static int inner(const float *above, const float *row, const float *below, int nx, int x, int has_nodata,
                 float nodata, double *gx, double *gy)
{
    if (!above || !below || x < 1 || x + 1 >= nx)
        return 0;
    const float *a = above + x - 1, *m = row + x - 1, *b = below + x - 1;
    double w[9] = {a[0], a[1], a[2], m[0], m[1], m[2], b[0], b[1], b[2]};
    for (int k = 0; k < 9; k++)
        if (geo_f32_is_nodata((float)w[k], has_nodata, nodata))
            return 0;
    sums(w, gx, gy);
    return 1;
}

void geo_horn_diff(const float *above, const float *row, const float *below, int nx, int x, int has_nodata,
                   float nodata, double *gx, double *gy)
{
    if (inner(above, row, below, nx, x, has_nodata, nodata, gx, gy))
        return;
    const float c = row[x];
    /* w[0..8]: NW N NE / W C E / SW S SE. Off the grid, rows and
     * columns are extrapolated linearly from the two nearest; a
     * neighbour that is nodata, NaN (or cannot be extrapolated) takes c. */
    double w[9];
    for (int j = 0; j < 3; j++) {
        double m = at(row, x + j - 1, nx, has_nodata, nodata);
        double up = above ? at(above, x + j - 1, nx, has_nodata, nodata) : 2 * m - at(below, x + j - 1, nx, has_nodata, nodata);
        double dn = below ? at(below, x + j - 1, nx, has_nodata, nodata) : 2 * m - at(above, x + j - 1, nx, has_nodata, nodata);
        w[j] = up;
        w[3 + j] = m;
        w[6 + j] = dn;
    }
    for (int k = 0; k < 9; k++)
        if (isnan(w[k]))
            w[k] = c;
    sums(w, gx, gy);
}
