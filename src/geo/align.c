/* Categorical alignment: nearest and majority (mode), never interpolation
 * (docs/method.md §1.9). */
#include "geo_priv.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Lattice size s (odd, 1..15) for GEO_MODE: about three samples across
 * each source cell that a target cell covers, measured at the target's
 * centre cell in source pixels. */
static int lattice_size(const geo_grid *sg, const geo_grid *t, geo_ct *ct)
{
    double cx = geo_grid_x(t, t->nx / 2), cy = geo_grid_y(t, t->ny / 2);
    double hx = 0.5 * t->gt[1], hy = 0.5 * t->gt[5];
    double xs[4] = {cx - hx, cx + hx, cx - hx, cx + hx}, ys[4] = {cy - hy, cy - hy, cy + hy, cy + hy};
    if (geo_ct_points(ct, 4, xs, ys, NULL))
        return 1;
    double w = fmax(fabs(xs[1] - xs[0]), fabs(xs[3] - xs[2])) / sg->gt[1];
    double h = fmax(fabs(ys[2] - ys[0]), fabs(ys[3] - ys[1])) / fabs(sg->gt[5]);
    double span = fmax(w, h);
    int s = (int)ceil(3.0 * span - 1e-9);
    if (s < 1)
        s = 1;
    if (s > 15)
        s = 15;
    return s | 1;
}

struct geo_aligner {
    const geo_grid *sg;     /* the source's grid */
    const geo_grid *target;
    geo_ct *ct;
    int s;                  /* lattice size */
    double tol;             /* interpolation error allowed */
    double *xs, *ys;        /* the lattice points of the cells being aligned */
    int *ok;
    size_t npts;            /* points xs, ys and ok hold */
    /* the source cells held: rows b0 .. b1 - 1, columns c0 .. c1 - 1 in
     * buf (the whole source when fetch is NULL) */
    const unsigned char *buf;
    int b0, b1, c0, c1;
    geo_align_fetch fetch;  /* NULL: a whole raster */
    void *user;
    unsigned char *own[2];  /* lazy: the rows held, and the spare for the next rows */
    size_t cap[2];
};

void geo_aligner_free(geo_aligner *a)
{
    if (!a)
        return;
    free(a->xs);
    free(a->ys);
    free(a->ok);
    free(a->own[0]);
    free(a->own[1]);
    geo_ct_free(a->ct);
    free(a);
}

static trv_status aligner_new(trv_ctx *ctx, const geo_grid *sg, const geo_grid *target, geo_resample method,
                              geo_aligner **out)
{
    *out = NULL;
    if (!sg->wkt || !target->wkt)
        return trv_error(ctx, TRV_ERR_CRS, "categorical alignment needs a CRS on both grids");
    geo_aligner *a = calloc(1, sizeof *a);
    if (!a)
        return trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
    a->sg = sg;
    a->target = target;
    trv_status st = geo_ct_create(ctx, target->wkt, sg->wkt, &a->ct);
    if (st) {
        geo_aligner_free(a);
        return st;
    }
    a->s = method == GEO_MODE ? lattice_size(sg, target, a->ct) : 1;
    /* interpolation error allowed: a thousandth of a source cell */
    a->tol = 1e-3 * fmin(sg->gt[1], fabs(sg->gt[5]));
    *out = a;
    return TRV_OK;
}

trv_status geo_aligner_new(trv_ctx *ctx, const geo_raster *src, const geo_grid *target, geo_resample method,
                           geo_aligner **out)
{
    *out = NULL;
    if (src->type != GEO_U8)
        return trv_error(ctx, TRV_ERR_INTERNAL, "categorical alignment needs a Byte layer");
    trv_status st = aligner_new(ctx, &src->grid, target, method, out);
    if (!st)
        (*out)->buf = src->u8, (*out)->b0 = 0, (*out)->b1 = src->grid.ny, (*out)->c0 = 0, (*out)->c1 = src->grid.nx;
    return st;
}

trv_status geo_aligner_new_lazy(trv_ctx *ctx, const geo_grid *src_grid, geo_align_fetch fetch, void *user,
                                const geo_grid *target, geo_resample method, geo_aligner **out)
{
    trv_status st = aligner_new(ctx, src_grid, target, method, out);
    if (!st)
        (*out)->fetch = fetch, (*out)->user = user;
    return st;
}

/* The source cell of lattice point p (its column and row): 1, or 0 when
 * it has none (off the source, or not transformed). */
static int point_cell(const geo_aligner *a, size_t p, int *col, int *row)
{
    const double *sg = a->sg->gt;
    double fc = (a->xs[p] - sg[0]) / sg[1], fr = (a->ys[p] - sg[3]) / sg[5];
    if (!(a->ok[p] && fc >= 0 && fr >= 0 && fc < a->sg->nx && fr < a->sg->ny))
        return 0;
    *col = (int)fc, *row = (int)fr;
    return 1;
}

/* Room for the lattice points of n target cells. */
static trv_status lattice_room(trv_ctx *ctx, geo_aligner *a, int n)
{
    size_t need = (size_t)n * a->s * a->s;
    if (need <= a->npts)
        return TRV_OK;
    free(a->xs);
    free(a->ys);
    free(a->ok);
    a->xs = malloc(need * sizeof *a->xs), a->ys = malloc(need * sizeof *a->ys), a->ok = malloc(need * sizeof *a->ok);
    a->npts = a->xs && a->ys && a->ok ? need : 0;
    return a->npts ? TRV_OK : trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
}

/* nx cells of one target row: the majority of each one's s x s lattice
 * points (sub-row i of the cells at xs + i nx s). */
static void align_row(const geo_aligner *a, int nx, unsigned char *out)
{
    const int s = a->s, line = nx * s;
    const int centre = (s / 2) * s + s / 2; /* the lattice point at the cell centre */
    const size_t held = (size_t)(a->c1 - a->c0);
    int counts[256] = {0};                     /* reset after each cell, not re-zeroed */
    unsigned char codes[225] = {0};
    for (int col = 0; col < nx; col++) {
        for (int i = 0, k = 0; i < s; i++)
            for (int j = 0; j < s; j++, k++) {
                int sc, sr;
                unsigned char v = point_cell(a, (size_t)i * line + (size_t)col * s + j, &sc, &sr)
                                      ? a->buf[(size_t)(sr - a->b0) * held + (size_t)(sc - a->c0)]
                                      : 0;
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

/* A row held, at dst (columns c0 .. c1 - 1 of row y, the held columns
 * inside them): the held part copied, the columns beside it fetched. */
static trv_status keep_row(trv_ctx *ctx, geo_aligner *a, int y, int c0, int c1, unsigned char *dst)
{
    const size_t hw = (size_t)(a->c1 - a->c0);
    memcpy(dst + (a->c0 - c0), a->buf + (size_t)(y - a->b0) * hw, hw);
    trv_status st = a->c0 > c0 ? a->fetch(ctx, a->user, c0, y, a->c0 - c0, 1, dst) : TRV_OK;
    if (!st && c1 > a->c1)
        st = a->fetch(ctx, a->user, a->c1, y, c1 - a->c1, 1, dst + (a->c1 - c0));
    return st;
}

/* Lazy source: rows lo .. hi - 1 of columns c0 .. c1 - 1 held in buf;
 * of the rows already held (when their columns lie inside c0 .. c1) the
 * cells held copied, the others fetched (runs of consecutive rows at
 * once). */
static trv_status hold_cells(trv_ctx *ctx, geo_aligner *a, int lo, int hi, int c0, int c1)
{
    const int keep = a->c0 >= c0 && a->c1 <= c1;
    const size_t w = (size_t)(c1 - c0), need = (size_t)(hi - lo) * w;
    if (need > a->cap[1]) {
        unsigned char *p = realloc(a->own[1], need);
        if (!p)
            return trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
        a->own[1] = p, a->cap[1] = need;
    }
    unsigned char *dst = a->own[1];
    for (int y = lo; y < hi;) {
        trv_status st;
        if (keep && y >= a->b0 && y < a->b1) {
            if ((st = keep_row(ctx, a, y, c0, c1, dst + (size_t)(y - lo) * w)))
                return st;
            y++;
            continue;
        }
        int e = y + 1;
        while (e < hi && !(keep && e >= a->b0 && e < a->b1))
            e++;
        if ((st = a->fetch(ctx, a->user, c0, y, c1 - c0, e - y, dst + (size_t)(y - lo) * w)))
            return st;
        y = e;
    }
    unsigned char *t = a->own[0];
    size_t tc = a->cap[0];
    a->own[0] = a->own[1], a->cap[0] = a->cap[1];
    a->own[1] = t, a->cap[1] = tc;
    a->buf = a->own[0], a->b0 = lo, a->b1 = hi, a->c0 = c0, a->c1 = c1;
    return TRV_OK;
}

/* Lazy source: the cells the lattice points of nx cells fall in. While
 * the rows slide down over rows held, the columns held are kept as well
 * (a tile's rows then read each source cell about once). */
static trv_status hold_row_points(trv_ctx *ctx, geo_aligner *a, int nx)
{
    size_t n = (size_t)nx * a->s * a->s;
    int lo = a->sg->ny, hi = -1, c0 = a->sg->nx, c1 = -1;
    for (size_t p = 0; p < n; p++) {
        int col, row;
        if (point_cell(a, p, &col, &row))
            lo = row < lo ? row : lo, hi = row > hi ? row : hi, c0 = col < c0 ? col : c0, c1 = col > c1 ? col : c1;
    }
    if (hi < lo)
        return TRV_OK;
    hi++, c1++;
    if (lo >= a->b0 && hi <= a->b1 && c0 >= a->c0 && c1 <= a->c1)
        return TRV_OK;
    if (lo >= a->b0 && lo < a->b1)
        c0 = c0 < a->c0 ? c0 : a->c0, c1 = c1 > a->c1 ? c1 : a->c1;
    return hold_cells(ctx, a, lo, hi, c0, c1);
}

trv_status geo_aligner_rows(trv_ctx *ctx, geo_aligner *a, int row0, int row1, unsigned char *out)
{
    return geo_aligner_window(ctx, a, 0, a->target->nx, row0, row1, out);
}

trv_status geo_aligner_window(trv_ctx *ctx, geo_aligner *a, int col0, int col1, int row0, int row1,
                              unsigned char *out)
{
    const geo_grid *t = a->target;
    const int s = a->s, nx = col1 - col0, line = nx * s;
    if (col0 < 0 || col1 > t->nx || nx < 1)
        return trv_error(ctx, TRV_ERR_INTERNAL, "alignment columns %d to %d outside 0 to %d", col0, col1 - 1,
                         t->nx - 1);
    trv_status st = lattice_room(ctx, a, nx);
    for (int row = row0; row < row1 && !st; row++) {
        /* sub-row i holds the points x = x0 + (k + 0.5) / s cells of the
         * whole row's t->nx s points, k = col0 s .. col1 s - 1 */
        for (int i = 0; i < s && !st; i++)
            st = geo_ct_line_part(ctx, a->ct, t->gt[0] + 0.5 / s * t->gt[1], t->gt[1] / s,
                                  t->gt[3] + (row + (i + 0.5) / s) * t->gt[5], t->nx * s, a->tol, col0 * s,
                                  col1 * s, a->xs + (size_t)i * line, a->ys + (size_t)i * line,
                                  a->ok + (size_t)i * line);
        if (!st && a->fetch)
            st = hold_row_points(ctx, a, nx);
        if (!st)
            align_row(a, nx, out + (size_t)(row - row0) * nx);
    }
    return st;
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
