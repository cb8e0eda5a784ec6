/* The map's cells streamed (map_priv.h, rnd_map_cells and rnd_map_shade):
 * the layer and the DEM read by windows (geo/block.h: geo_block_cols() x
 * geo_block_rows() tiles, the DEM's with its 1-cell halo all round), each
 * tile's cells added to the map pixels whose footprint holds them, so
 * memory is O(output pixels + tile), whatever the layer's width and
 * height. Every pixel's sum takes its cells in the order the whole-layer
 * loops took them (rows down, then columns across): the map's pixel
 * columns go in strips, a strip's tiles spanning the footprints of its
 * pixels (geo_block_cols() columns, or one footprint when that is wider),
 * so no pixel's footprint is cut between two tiles side by side, and a
 * strip's tiles go down in order. The sums, and the PNG, are then the
 * same bits for every tile (not just the same value rounded alike: an
 * exact sum would need some 5 times the memory per pixel). A tile is
 * wider than geo_block_cols() only by a footprint: the layer's width over
 * the map's pixels (~170 columns for 200 000 columns on a 1200-pixel
 * map). The range, the category counts, the middle cells and the nearest
 * shade cells take no sums: any order of tiles gives them alike. */
#include "map_priv.h"
#include "geo/block.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int u8_nodata(const geo_window *w, unsigned char v)
{
    return w->has_nodata && v == (unsigned char)w->nodata;
}

typedef void (*tile_fn)(void *user, const geo_window *w);

/* fn on the tiles of columns x0 .. x1 - 1, rows y0 .. y1 - 1 of rd
 * (geo_block_cols() x geo_block_rows(), in any order: fn takes no sums). */
static trv_status each_tile(trv_ctx *ctx, geo_block_reader *rd, const int box[4], tile_fn fn, void *user)
{
    const int rows = geo_block_rows(), cols = geo_block_cols();
    for (int a = box[1]; a < box[3]; a += rows)
        for (int c = box[0]; c < box[2]; c += cols) {
            const geo_window *w;
            trv_status st = geo_block_read_window(ctx, rd, c, box[2] - c < cols ? box[2] : c + cols, a,
                                                  box[3] - a < rows ? box[3] : a + rows, &w);
            if (st)
                return st;
            fn(user, w);
        }
    return TRV_OK;
}

/* ---- the layer's first pass: its range, or the categories in the window -- */

typedef struct range_acc {
    double dmin, dmax;
    size_t nvalid;
} range_acc;

static void range_tile(void *u, const geo_window *w)
{
    range_acc *a = u;
    for (int y = w->y0; y < w->y1; y++) {
        const float *row = geo_window_f32(w, w->x0, y);
        for (int x = 0; x < w->x1 - w->x0; x++)
            if (!geo_f32_is_nodata(row[x], w->has_nodata, w->nodata)) {
                double v = row[x];
                a->dmin = v < a->dmin ? v : a->dmin, a->dmax = v > a->dmax ? v : a->dmax;
                a->nvalid++;
            }
    }
}

trv_status rnd_layer_minmax(trv_ctx *ctx, geo_block_reader *rd, double *dmin, double *dmax, size_t *nvalid)
{
    range_acc a = {INFINITY, -INFINITY, 0};
    const geo_grid *g = geo_block_reader_grid(rd);
    const int all[4] = {0, 0, g->nx, g->ny};
    trv_status st = each_tile(ctx, rd, all, range_tile, &a);
    *dmin = a.dmin, *dmax = a.dmax, *nvalid = a.nvalid;
    return st;
}

static void count_tile(void *u, const geo_window *w)
{
    size_t *count = u;
    for (int y = w->y0; y < w->y1; y++) {
        const unsigned char *row = geo_window_u8(w, w->x0, y);
        for (int x = 0, nx = w->x1 - w->x0; x < nx; x++)
            count[row[x]] += !u8_nodata(w, row[x]);
    }
}

trv_status rnd_layer_counts(trv_ctx *ctx, geo_block_reader *rd, const int win[4], size_t count[256])
{
    return each_tile(ctx, rd, win, count_tile, count);
}

/* ---- the map's pixels by strips of pixel columns ------------------------- */

/* The first pixel row whose footprint rows cy0[j] .. cy1[j] reach the
 * map's row ly (cy1 nondecreasing): the least j with cy1[j] >= ly. */
static int first_pixel_row(const rnd_foot *f, int ly)
{
    int lo = 0, hi = f->mh;
    while (lo < hi) {
        int mid = lo + (hi - lo) / 2;
        if (f->cy1[mid] < ly)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* The end of the strip of pixel columns from ia: the pixels after ia
 * while their footprints and ia's span at most cols cells (ia alone when
 * its own is wider). */
static int strip_end(const rnd_foot *f, int ia, int cols)
{
    int ib = ia + 1;
    while (ib < f->mw && f->cx1[ib] - f->cx0[ia] < cols)
        ib++;
    return ib;
}

/* fn(user, w, y, ia, ib) on each row y of the file's rows win[1] ..
 * win[3] - 1 for each strip of pixel columns ia .. ib - 1, w the window of
 * the strip's footprints (the map's columns cx0[ia] .. cx1[ib - 1], offset
 * by win[0]) and of geo_block_rows() rows holding y. Rows go by blocks,
 * each block's rows down. down == 0: the strips across a block, then the
 * next block (a reader without a halo decodes each file tile once); down
 * == 1: a strip's blocks down, then the next strip (with a halo of rows,
 * the tile rows above and below a block are still in GDAL's cache when
 * the next block needs them: by blocks across, they would be decoded
 * three times). Either way each pixel's rows come down in order. */
typedef void (*strip_fn)(void *user, const geo_window *w, int y, int ia, int ib);

static trv_status strip_block(trv_ctx *ctx, geo_block_reader *rd, const int win[4], const rnd_foot *f, int ia, int ib,
                              int a, strip_fn fn, void *user)
{
    const int rows = geo_block_rows(), b = win[3] - a < rows ? win[3] : a + rows;
    const geo_window *w;
    trv_status st = geo_block_read_window(ctx, rd, win[0] + f->cx0[ia], win[0] + f->cx1[ib - 1] + 1, a, b, &w);
    for (int y = a; y < b && !st; y++)
        fn(user, w, y, ia, ib);
    return st;
}

static trv_status each_strip_row(trv_ctx *ctx, geo_block_reader *rd, const int win[4], const rnd_foot *f, int down,
                                 strip_fn fn, void *user)
{
    const int rows = geo_block_rows(), cols = geo_block_cols();
    trv_status st = TRV_OK;
    if (down)
        for (int ia = 0, ib; ia < f->mw && !st; ia = ib) {
            ib = strip_end(f, ia, cols);
            for (int a = win[1]; a < win[3] && !st; a += rows)
                st = strip_block(ctx, rd, win, f, ia, ib, a, fn, user);
        }
    else
        for (int a = win[1]; a < win[3] && !st; a += rows)
            for (int ia = 0, ib; ia < f->mw && !st; ia = ib) {
                ib = strip_end(f, ia, cols);
                st = strip_block(ctx, rd, win, f, ia, ib, a, fn, user);
            }
    return st;
}

/* ---- the map's pixels: area mean or nearest, strip by strip --------------- */

typedef struct cell_acc {
    const rnd_foot *f;
    rnd_cells *c;
    int x0, y0;             /* the map's first column and row in the file */
} cell_acc;

static void cell_row(void *u, const geo_window *w, int y, int ia, int ib)
{
    cell_acc *a = u;
    const rnd_foot *f = a->f;
    const int ly = y - a->y0, mw = f->mw;
    for (int j = first_pixel_row(f, ly); j < f->mh && f->cy0[j] <= ly; j++) {
        if (a->c->categorical) {
            if (ly != (f->cy0[j] + f->cy1[j]) / 2)
                continue;
            for (int i = ia; i < ib; i++) {
                unsigned char v = *geo_window_u8(w, a->x0 + (f->cx0[i] + f->cx1[i]) / 2, y);
                a->c->code[(size_t)j * mw + i] = v;
                a->c->nodata[(size_t)j * mw + i] = (unsigned char)u8_nodata(w, v);
            }
            continue;
        }
        for (int i = ia; i < ib; i++) {
            const float *row = geo_window_f32(w, a->x0 + f->cx0[i], y);
            double *sum = a->c->sum + (size_t)j * mw + i;
            int *n = a->c->n + (size_t)j * mw + i;
            for (int x = 0; x <= f->cx1[i] - f->cx0[i]; x++)
                if (!geo_f32_is_nodata(row[x], w->has_nodata, w->nodata))
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
    cell_acc a = {f, c, win[0], win[1]};
    return each_strip_row(ctx, rd, win, f, 0, cell_row, &a);
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
 * columns win[0] .. win[2] - 1 of rows win[1] .. win[3] - 1, each shaded
 * in a window read with the DEM reader's halo of 1 (Horn's window at a
 * tile's edge sees the DEM cells beyond it; at the DEM's edge, the edge
 * rule of rnd_hillshade_row). */
typedef struct shade_acc {
    const rnd_foot *f;
    int win[4];
    rnd_light light;
    float *hrow;              /* one row of hillshade over a window's columns */
    float *shade;             /* mw * mh */
    /* same grid: the footprints' sums of the shade cells > 0 */
    double *sum;
    int *n;
    /* otherwise: each pixel's shade cell, pixels in order of their cell's tile, then row */
    int *pr, *pc;
    size_t *order, np;
} shade_acc;

/* Row y of the DEM shaded over w's columns: hrow[x - w->x0] is the shade of column x. */
static void shade_row(shade_acc *a, const geo_window *w, int y)
{
    const geo_grid *d = a->f->dem;
    rnd_hillshade_row(geo_window_f32(w, w->x0, y - 1), geo_window_f32(w, w->x0, y), geo_window_f32(w, w->x0, y + 1),
                      w->x1 - w->x0, w->has_nodata, (float)w->nodata, d->gt[1], d->gt[5], &a->light, a->hrow);
}

static void shade_mean_row(void *u, const geo_window *w, int y, int ia, int ib)
{
    shade_acc *a = u;
    const rnd_foot *f = a->f;
    const int ly = y - a->win[1], mw = f->mw;
    int j = first_pixel_row(f, ly);
    if (j < f->mh && f->cy0[j] <= ly)
        shade_row(a, w, y);
    for (; j < f->mh && f->cy0[j] <= ly; j++)
        for (int i = ia; i < ib; i++) {
            const float *h = a->hrow + (a->win[0] + f->cx0[i] - w->x0);
            for (int x = 0; x <= f->cx1[i] - f->cx0[i]; x++) {
                float v = h[x];
                if (v > 0)
                    a->sum[(size_t)j * mw + i] += v, a->n[(size_t)j * mw + i]++;
            }
        }
}

/* The tile of geo_block_cols() x geo_block_rows() hillshade cells holding cell (r, c). */
static void cell_tile(int r, int c, int t[2])
{
    t[0] = r / geo_block_rows(), t[1] = c / geo_block_cols();
}

static const int *sort_pr, *sort_pc;
static int by_tile(const void *p, const void *q)
{
    size_t i = *(const size_t *)p, j = *(const size_t *)q;
    int ti[2], tj[2];
    cell_tile(sort_pr[i], sort_pc[i], ti), cell_tile(sort_pr[j], sort_pc[j], tj);
    /* down each column of tiles (each_strip_row's down == 1), then by row */
    const int ki[3] = {ti[1], ti[0], sort_pr[i]}, kj[3] = {tj[1], tj[0], sort_pr[j]};
    for (int k = 0; k < 3; k++)
        if (ki[k] != kj[k])
            return (ki[k] > kj[k]) - (ki[k] < kj[k]);
    return (i > j) - (i < j);
}

/* Each pixel centre brought into the hillshade grid hg (the DEM's CRS):
 * its cell (pr, pc), or pr = -1 off the grid; the pixels with a cell
 * sorted by its tile (down each column of tiles), then its row. */
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
        sort_pr = a->pr, sort_pc = a->pc;
        qsort(a->order, a->np, sizeof *a->order, by_tile);
    }
    return st;
}

/* The nearest shade cells, tile by tile: each tile holding a pixel's cell
 * read once (the pixels sorted by tile), its rows holding one shaded. */
static trv_status shade_nearest(trv_ctx *ctx, geo_block_reader *dem, shade_acc *a)
{
    const int rows = geo_block_rows(), cols = geo_block_cols();
    for (size_t s = 0; s < a->np;) {
        int t[2], u[2];
        cell_tile(a->pr[a->order[s]], a->pc[a->order[s]], t);
        int x0 = a->win[0] + t[1] * cols, y0 = a->win[1] + t[0] * rows;
        const geo_window *w;
        trv_status st = geo_block_read_window(ctx, dem, x0, a->win[2] - x0 < cols ? a->win[2] : x0 + cols, y0,
                                              a->win[3] - y0 < rows ? a->win[3] : y0 + rows, &w);
        if (st)
            return st;
        for (int r = -1; s < a->np; s++) {
            size_t k = a->order[s];
            cell_tile(a->pr[k], a->pc[k], u);
            if (u[0] != t[0] || u[1] != t[1])
                break;
            if (a->pr[k] != r)
                shade_row(a, w, a->win[1] + (r = a->pr[k]));
            a->shade[k] = a->hrow[a->win[0] + a->pc[k] - w->x0];
        }
    }
    return TRV_OK;
}

/* The widest window a shade pass reads: a strip's footprints (same grid)
 * or a tile, each with its halo. */
static int widest_window(const rnd_foot *f, int same)
{
    int cols = geo_block_cols(), most = cols;
    for (int ia = 0, ib; same && ia < f->mw; ia = ib) {
        ib = strip_end(f, ia, cols);
        most = f->cx1[ib - 1] - f->cx0[ia] + 1 > most ? f->cx1[ib - 1] - f->cx0[ia] + 1 : most;
    }
    return most + 2;
}

trv_status rnd_map_shade(trv_ctx *ctx, geo_block_reader *dem, const rnd_foot *f, const int win[4], const geo_grid *hg,
                         float *shade)
{
    shade_acc a = {.f = f, .shade = shade};
    memcpy(a.win, win, sizeof a.win);
    rnd_light_default(&a.light);
    size_t np = (size_t)f->mw * f->mh;
    int same = !geo_grid_compare(ctx, hg, "hillshade", f->map, "layer");
    trv_status st = TRV_OK;
    if (!(a.hrow = malloc(sizeof(float) * (size_t)widest_window(f, same))))
        st = trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
    else if (same) {
        if (!(a.sum = calloc(np, sizeof *a.sum)) || !(a.n = calloc(np, sizeof *a.n)))
            st = trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
        else if (!(st = each_strip_row(ctx, dem, win, f, 1, shade_mean_row, &a)))
            for (size_t k = 0; k < np; k++)
                shade[k] = a.n[k] ? (float)(a.sum[k] / a.n[k]) : 0;
    } else if (!(st = pixel_cells(ctx, f, hg, &a)))
        st = shade_nearest(ctx, dem, &a);
    free(a.hrow);
    free(a.sum);
    free(a.n);
    free(a.pr);
    free(a.pc);
    free(a.order);
    return st;
}
