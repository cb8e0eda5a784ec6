/* Categorical alignment: nearest and majority (mode), never interpolation
 * (docs/method.md §1.9). */
#include "geo_priv.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Lattice size s (odd, 1..15) for GEO_MODE: about three samples across
 * each source cell that a target cell covers, measured at the target's
 * centre cell in source pixels. */
static int lattice_size(const geo_raster *src, const geo_grid *t, geo_ct *ct)
{
    double cx = geo_grid_x(t, t->nx / 2), cy = geo_grid_y(t, t->ny / 2);
    double hx = 0.5 * t->gt[1], hy = 0.5 * t->gt[5];
    double xs[4] = {cx - hx, cx + hx, cx - hx, cx + hx}, ys[4] = {cy - hy, cy - hy, cy + hy, cy + hy};
    if (geo_ct_points(ct, 4, xs, ys, NULL))
        return 1;
    double w = fmax(fabs(xs[1] - xs[0]), fabs(xs[3] - xs[2])) / src->grid.gt[1];
    double h = fmax(fabs(ys[2] - ys[0]), fabs(ys[3] - ys[1])) / fabs(src->grid.gt[5]);
    double span = fmax(w, h);
    int s = (int)ceil(3.0 * span - 1e-9);
    if (s < 1)
        s = 1;
    if (s > 15)
        s = 15;
    return s | 1;
}

struct geo_aligner {
    const geo_raster *src;
    const geo_grid *target;
    geo_ct *ct;
    int s;                  /* lattice size */
    double tol;             /* interpolation error allowed */
    double *xs, *ys;
    int *ok;
};

void geo_aligner_free(geo_aligner *a)
{
    if (!a)
        return;
    free(a->xs);
    free(a->ys);
    free(a->ok);
    geo_ct_free(a->ct);
    free(a);
}

trv_status geo_aligner_new(trv_ctx *ctx, const geo_raster *src, const geo_grid *target, geo_resample method,
                           geo_aligner **out)
{
    *out = NULL;
    if (src->type != GEO_U8)
        return trv_error(ctx, TRV_ERR_INTERNAL, "categorical alignment needs a Byte layer");
    if (!src->grid.wkt || !target->wkt)
        return trv_error(ctx, TRV_ERR_CRS, "categorical alignment needs a CRS on both grids");
    geo_aligner *a = calloc(1, sizeof *a);
    if (!a)
        return trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
    a->src = src;
    a->target = target;
    trv_status st = geo_ct_create(ctx, target->wkt, src->grid.wkt, &a->ct);
    if (st) {
        geo_aligner_free(a);
        return st;
    }
    a->s = method == GEO_MODE ? lattice_size(src, target, a->ct) : 1;
    /* interpolation error allowed: a thousandth of a source cell */
    a->tol = 1e-3 * fmin(src->grid.gt[1], fabs(src->grid.gt[5]));
    size_t n = (size_t)target->nx * a->s * a->s;
    if (!(a->xs = malloc(n * sizeof *a->xs)) || !(a->ys = malloc(n * sizeof *a->ys)) ||
        !(a->ok = malloc(n * sizeof *a->ok))) {
        geo_aligner_free(a);
        return trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
    }
    *out = a;
    return TRV_OK;
}

/* One target row's cells: the majority of its s x s lattice points. */
static void align_row(const geo_aligner *a, unsigned char *out)
{
    const geo_raster *src = a->src;
    const double *sg = src->grid.gt;
    const int s = a->s, nx = a->target->nx, line = nx * s;
    const int centre = (s / 2) * s + s / 2; /* the lattice point at the cell centre */
    int counts[256] = {0};                     /* reset after each cell, not re-zeroed */
    unsigned char codes[225] = {0};
    for (int col = 0; col < nx; col++) {
        for (int i = 0, k = 0; i < s; i++)
            for (int j = 0; j < s; j++, k++) {
                size_t p = (size_t)i * line + (size_t)col * s + j;
                double fc = (a->xs[p] - sg[0]) / sg[1], fr = (a->ys[p] - sg[3]) / sg[5];
                unsigned char v = 0;
                if (a->ok[p] && fc >= 0 && fr >= 0 && fc < src->grid.nx && fr < src->grid.ny)
                    v = src->u8[(size_t)fr * src->grid.nx + (size_t)fc];
                codes[k] = v;
                counts[v]++;
            }
        /* majority; ties to the centre's code, then to the smaller code */
        unsigned char best = codes[centre];
        for (int k = 0; k < s * s; k++) {
            unsigned char v = codes[k];
            if (counts[v] > counts[best] || (counts[v] == counts[best] && v < best && best != codes[centre]))
                best = v;
        }
        out[col] = best;
        for (int k = 0; k < s * s; k++)
            counts[codes[k]] = 0;
    }
}

trv_status geo_aligner_rows(trv_ctx *ctx, geo_aligner *a, int row0, int row1, unsigned char *out)
{
    const geo_grid *t = a->target;
    const int s = a->s, line = t->nx * s;
    for (int row = row0; row < row1; row++) {
        /* sub-row i holds the points x = x0 + (k + 0.5) / s cells, k = 0..line-1 */
        for (int i = 0; i < s; i++) {
            trv_status st = geo_ct_line(ctx, a->ct, t->gt[0] + 0.5 / s * t->gt[1], t->gt[1] / s,
                                        t->gt[3] + (row + (i + 0.5) / s) * t->gt[5], line, a->tol,
                                        a->xs + (size_t)i * line, a->ys + (size_t)i * line, a->ok + (size_t)i * line);
            if (st)
                return st;
        }
        align_row(a, out + (size_t)(row - row0) * t->nx);
    }
    return TRV_OK;
}

trv_status geo_align_categorical(trv_ctx *ctx, const geo_raster *src, const geo_grid *target,
                                 geo_resample method, geo_raster **out)
{
    *out = NULL;
    geo_aligner *a = NULL;
    geo_raster *r = NULL;
    trv_status st = geo_aligner_new(ctx, src, target, method, &a);
    if (!st && !(st = geo_raster_new(ctx, target, GEO_U8, &r))) {
        r->has_nodata = 1;
        r->nodata = 0;
        r->classes = src->classes;
    }
    for (int row = 0; row < target->ny && !st; row++) {
        st = geo_aligner_rows(ctx, a, row, row + 1, r->u8 + (size_t)row * target->nx);
        if (!st && (row & 63) == 0)
            st = trv_progress(ctx, (double)row / target->ny, "align");
    }
    if (!st)
        st = trv_progress(ctx, 1.0, "align");
    geo_aligner_free(a);
    if (st)
        geo_raster_free(r);
    else
        *out = r;
    return st;
}
