/* The map's cells streamed (map_priv.h, rnd_map_cells and rnd_map_shade):
 * the layer and the DEM read by row blocks (geo/block.h), each row added
 * to the map pixels whose footprint holds it as it goes by, so memory is
 * O(output pixels + width x block), whatever the layer's height. Every
 * pixel's sum takes its cells in the order the whole-layer loops took them
 * (rows down, then columns across), so the sums, and the PNG, are the
 * same bytes for every block height. */
#include "map_priv.h"
#include "geo/block.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef void (*row_fn)(void *user, const geo_rows *rows, int y);

/* fn on rows y0 .. y1 - 1 of rd, read by blocks of geo_block_rows() rows. */
static trv_status each_row(trv_ctx *ctx, geo_block_reader *rd, int y0, int y1, row_fn fn, void *user)
{
    const int step = geo_block_rows();
    for (int a = y0; a < y1; a += step) {
        int b = y1 - a < step ? y1 : a + step;
        const geo_rows *rows;
        trv_status st = geo_block_read(ctx, rd, a, b, &rows);
        if (st)
            return st;
        for (int y = a; y < b; y++)
            fn(user, rows, y);
    }
    return TRV_OK;
}

/* geo_raster_is_nodata's rule for cell x of row y of rows. */
static int rows_nodata(const geo_rows *b, int y, int x)
{
    if (b->type == GEO_F32) {
        float v = geo_rows_f32(b, y)[x];
        return isnan(v) || (b->has_nodata && v == (float)b->nodata);
    }
    return b->has_nodata && geo_rows_u8(b, y)[x] == (unsigned char)b->nodata;
}

/* ---- the layer's first pass: its range, or the categories in the window -- */

typedef struct range_acc {
    double dmin, dmax;
    size_t nvalid;
} range_acc;

static void range_row(void *u, const geo_rows *b, int y)
{
    range_acc *a = u;
    const float *row = geo_rows_f32(b, y);
    for (int x = 0; x < b->nx; x++)
        if (!rows_nodata(b, y, x)) {
            double v = row[x];
            a->dmin = v < a->dmin ? v : a->dmin, a->dmax = v > a->dmax ? v : a->dmax;
            a->nvalid++;
        }
}

trv_status rnd_layer_minmax(trv_ctx *ctx, geo_block_reader *rd, double *dmin, double *dmax, size_t *nvalid)
{
    range_acc a = {INFINITY, -INFINITY, 0};
    trv_status st = each_row(ctx, rd, 0, geo_block_reader_grid(rd)->ny, range_row, &a);
    *dmin = a.dmin, *dmax = a.dmax, *nvalid = a.nvalid;
    return st;
}

typedef struct count_acc {
    const int *win;
    size_t *count;
} count_acc;

static void count_row(void *u, const geo_rows *b, int y)
{
    count_acc *a = u;
    const unsigned char *row = geo_rows_u8(b, y);
    for (int x = a->win[0]; x < a->win[2]; x++)
        a->count[row[x]] += !rows_nodata(b, y, x);
}

trv_status rnd_layer_counts(trv_ctx *ctx, geo_block_reader *rd, const int win[4], size_t count[256])
{
    count_acc a = {win, count};
    return each_row(ctx, rd, win[1], win[3], count_row, &a);
}

/* ---- the map's pixels: area mean or nearest, as the rows go by ------------- */

/* The pixels whose footprint rows cy0[j] .. cy1[j] hold the map's row ly:
 * j from *jlo (moved on past the rows done) while cy0[j] <= ly. */
static int first_pixel_row(const rnd_foot *f, int ly, int *jlo)
{
    while (*jlo < f->mh && f->cy1[*jlo] < ly)
        (*jlo)++;
    return *jlo;
}

typedef struct cell_acc {
    const rnd_foot *f;
    rnd_cells *c;
    int x0, y0, jlo;        /* the map's first column and row in the file */
} cell_acc;

static void cell_row(void *u, const geo_rows *b, int y)
{
    cell_acc *a = u;
    const rnd_foot *f = a->f;
    const int ly = y - a->y0, mw = f->mw;
    for (int j = first_pixel_row(f, ly, &a->jlo); j < f->mh && f->cy0[j] <= ly; j++) {
        if (a->c->categorical) {
            if (ly != (f->cy0[j] + f->cy1[j]) / 2)
                continue;
            const unsigned char *row = geo_rows_u8(b, y) + a->x0;
            for (int i = 0; i < mw; i++) {
                int x = (f->cx0[i] + f->cx1[i]) / 2;
                a->c->code[(size_t)j * mw + i] = row[x];
                a->c->nodata[(size_t)j * mw + i] = (unsigned char)rows_nodata(b, y, a->x0 + x);
            }
            continue;
        }
        const float *row = geo_rows_f32(b, y) + a->x0;
        for (int i = 0; i < mw; i++) {
            double *sum = a->c->sum + (size_t)j * mw + i;
            int *n = a->c->n + (size_t)j * mw + i;
            for (int x = f->cx0[i]; x <= f->cx1[i]; x++)
                if (!rows_nodata(b, y, a->x0 + x))
                    *sum += row[x], (*n)++;
        }
    }
}

trv_status rnd_map_cells(trv_ctx *ctx, geo_block_reader *rd, const int win[4], const rnd_foot *f, rnd_cells *c)
{
    size_t np = (size_t)f->mw * f->mh;
    if (c->categorical ? !(c->code = calloc(np, 1)) || !(c->nodata = calloc(np, 1))
                       : !(c->sum = calloc(np, sizeof *c->sum)) || !(c->n = calloc(np, sizeof *c->n)))
        return trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
    cell_acc a = {f, c, win[0], win[1], 0};
    return each_row(ctx, rd, win[1], win[3], cell_row, &a);
}

void rnd_cells_clear(rnd_cells *c)
{
    free(c->sum);
    free(c->n);
    free(c->code);
    free(c->nodata);
}

/* ---- the hillshade under the map ----------------------------------------- */

/* What the shade pass shares: the hillshade's cells are the DEM's
 * columns win[0] .. win[2] - 1 of rows win[1] .. win[3] - 1, each row
 * shaded over the columns wide[0] .. wide[2] - 1 (Horn's window at the
 * window's edge sees the DEM cells beyond it). */
typedef struct shade_acc {
    const rnd_foot *f;
    int win[4], wide[4], ny;  /* ny: the DEM's rows */
    rnd_light light;
    float *hrow;              /* one row of hillshade over wide's columns */
    float *shade;             /* mw * mh */
    /* same grid: the footprints' sums of the shade cells > 0 */
    double *sum;
    int *n, jlo;
    /* otherwise: each pixel's shade cell, pixels in order of their cell's row */
    int *pr, *pc;
    size_t *order, next, np;
} shade_acc;

/* Row y of the DEM shaded: hrow[c + win[0] - wide[0]] is cell c of the hillshade row. */
static void shade_row(shade_acc *a, const geo_rows *b, int y)
{
    const int off = a->wide[0], nx = a->wide[2] - a->wide[0];
    const float *above = y > 0 ? geo_rows_f32(b, y - 1) + off : NULL;
    const float *below = y + 1 < a->ny ? geo_rows_f32(b, y + 1) + off : NULL;
    const geo_grid *d = a->f->dem;
    rnd_hillshade_row(above, geo_rows_f32(b, y) + off, below, nx, b->has_nodata, (float)b->nodata, d->gt[1], d->gt[5],
                      &a->light, a->hrow);
}

static void shade_mean_row(void *u, const geo_rows *b, int y)
{
    shade_acc *a = u;
    const rnd_foot *f = a->f;
    const int ly = y - a->win[1], mw = f->mw;
    const float *h = a->hrow + (a->win[0] - a->wide[0]);
    int j = first_pixel_row(f, ly, &a->jlo);
    if (j < f->mh && f->cy0[j] <= ly)
        shade_row(a, b, y);
    for (; j < f->mh && f->cy0[j] <= ly; j++)
        for (int i = 0; i < mw; i++)
            for (int x = f->cx0[i]; x <= f->cx1[i]; x++) {
                float v = h[x];
                if (v > 0)
                    a->sum[(size_t)j * mw + i] += v, a->n[(size_t)j * mw + i]++;
            }
}

static void shade_nearest_row(void *u, const geo_rows *b, int y)
{
    shade_acc *a = u;
    const int r = y - a->win[1];
    const float *h = a->hrow + a->win[0] - a->wide[0]; /* win == wide: the whole DEM */
    if (a->next < a->np && a->pr[a->order[a->next]] == r)
        shade_row(a, b, y);
    for (; a->next < a->np && a->pr[a->order[a->next]] == r; a->next++)
        a->shade[a->order[a->next]] = h[a->pc[a->order[a->next]]];
}

static const int *sort_rows;
static int by_row(const void *p, const void *q)
{
    size_t i = *(const size_t *)p, j = *(const size_t *)q;
    int a = sort_rows[i], b = sort_rows[j];
    return a != b ? (a > b) - (a < b) : (i > j) - (i < j);
}

/* Each pixel centre brought into the hillshade grid hg (the DEM's CRS):
 * its cell (pr, pc), or pr = -1 off the grid; the pixels with a cell
 * sorted by its row. */
static trv_status pixel_cells(trv_ctx *ctx, const rnd_foot *f, const geo_grid *hg, shade_acc *a)
{
    const geo_grid *lg = f->map;
    const int mw = f->mw;
    geo_ct *ct = NULL;
    trv_status st = geo_ct_create(ctx, lg->wkt, hg->wkt, &ct);
    size_t np = (size_t)mw * f->mh;
    double *xs = malloc(sizeof(double) * (size_t)mw), *ys = malloc(sizeof(double) * (size_t)mw);
    int *ok = malloc(sizeof(int) * (size_t)mw);
    if (!st && (!xs || !ys || !ok || !(a->pr = malloc(np * sizeof *a->pr)) || !(a->pc = malloc(np * sizeof *a->pc)) ||
                !(a->order = malloc(np * sizeof *a->order))))
        st = trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
    for (int j = 0; j < f->mh && !st; j++) {
        double y = lg->gt[3] - (j + 0.5) * f->upy;
        if ((st = geo_ct_line(ctx, ct, lg->gt[0] + 0.5 * f->upx, f->upx, y, mw, 0.25 * fabs(hg->gt[1]), xs, ys, ok)))
            break;
        for (int i = 0; i < mw; i++) {
            size_t k = (size_t)j * mw + i;
            a->pr[k] = -1;
            if (ok[i]) {
                double c = (xs[i] - hg->gt[0]) / hg->gt[1], r = (ys[i] - hg->gt[3]) / hg->gt[5];
                if (c >= 0 && r >= 0 && c < hg->nx && r < hg->ny)
                    a->pr[k] = (int)(size_t)r, a->pc[k] = (int)(size_t)c, a->order[a->np++] = k;
            }
        }
    }
    free(xs);
    free(ys);
    free(ok);
    geo_ct_free(ct);
    if (!st) {
        sort_rows = a->pr;
        qsort(a->order, a->np, sizeof *a->order, by_row);
    }
    return st;
}

trv_status rnd_map_shade(trv_ctx *ctx, geo_block_reader *dem, const rnd_foot *f, const int win[4], const int wide[4],
                         const geo_grid *hg, float *shade)
{
    shade_acc a = {.f = f, .ny = f->dem->ny, .shade = shade};
    memcpy(a.win, win, sizeof a.win);
    memcpy(a.wide, wide, sizeof a.wide);
    rnd_light_default(&a.light);
    size_t np = (size_t)f->mw * f->mh;
    trv_status st = TRV_OK;
    if (!(a.hrow = malloc(sizeof(float) * (size_t)(wide[2] - wide[0]))))
        st = trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
    else if (!geo_grid_compare(ctx, hg, "hillshade", f->map, "layer")) {
        if (!(a.sum = calloc(np, sizeof *a.sum)) || !(a.n = calloc(np, sizeof *a.n)))
            st = trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
        else if (!(st = each_row(ctx, dem, win[1], win[3], shade_mean_row, &a)))
            for (size_t k = 0; k < np; k++)
                shade[k] = a.n[k] ? (float)(a.sum[k] / a.n[k]) : 0;
    } else if (!(st = pixel_cells(ctx, f, hg, &a)) && a.np) {
        int r0 = a.pr[a.order[0]], r1 = a.pr[a.order[a.np - 1]];
        st = each_row(ctx, dem, win[1] + r0, win[1] + r1 + 1, shade_nearest_row, &a);
    }
    free(a.hrow);
    free(a.sum);
    free(a.n);
    free(a.pr);
    free(a.pc);
    free(a.order);
    return st;
}
