/* The raster optimum in a corridor (docs/scale.md, "--grid in a
 * corridor"): prm_route_grid's search on the cells within a half-width of
 * a guide route (the roadmap's route), widened until the escape bound
 * (grid.c) proves the corridor's optimum the optimum of the whole grid,
 * or until the corridor covers the grid (then the whole-grid search). */
#include "prm_priv.h"
#include "core/tempfile.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statvfs.h>
#include <unistd.h>

/* The escape bound must exceed the corridor's optimum by this much
 * (relative): the sums are rounded, and a path that merely ties is left to
 * the wider search, which then gives the whole grid's route exactly. */
#define ESCAPE_MARGIN 1e-9

/* The machine's physical memory in bytes (0: unknown). */
static double phys_bytes(void)
{
    long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    return pages > 0 && page > 0 ? (double)pages * (double)page : 0;
}

/* The memory a search may take: max_bytes, or with 0 three quarters of
 * the machine's (0: unknown, no bound), and whose bound it is, in words. */
static double grid_cap(size_t max_bytes, char *whose, size_t size)
{
    snprintf(whose, size, "--grid-memory");
    if (max_bytes)
        return (double)max_bytes;
    double phys = phys_bytes();
    if (phys == 0)
        return 0;
    snprintf(whose, size, "three quarters of this machine's %.0f MB", phys / 1e6);
    return 0.75 * phys;
}

int prm_grid_fits(double cells, size_t max_bytes)
{
    char whose[64];
    double need = cells * PRM_GRID_CELL_BYTES, cap = grid_cap(max_bytes, whose, sizeof whose);
    return cap == 0 || need <= cap;
}

/* The paged search's tiles within three quarters of its budget
 * (prm_grid_paged_budget of max_bytes; the rest for the frontier), less
 * held (the bytes it holds beside its tiles for the whole search: a paged
 * corridor's, prm_corridor.bytes), at prm_grid_paged_cell_bytes for
 * objective s: N = floor((0.75 cap - held) / tile). Refused below
 * PRM_GRID_PAGED_MIN_TILES tiles, or when the temporary file's disk has
 * less room than the grid's tiles (a byte a cell). */
static trv_status paged_plan(trv_ctx *ctx, const prm_terrain *t, prm_strategy s, size_t max_bytes, double held,
                             prm_grid_paging *pg)
{
    char whose[64], also[96] = "";
    const double cap = prm_grid_paged_budget(max_bytes, phys_bytes());
    if (cap < grid_cap(max_bytes, whose, sizeof whose)) /* whose bound: --grid-memory's, the machine's or this one */
        snprintf(whose, sizeof whose, "the paged search's default");
    const int cell = prm_grid_paged_cell_bytes(t, s);
    const double side = PRM_TILE, tile = side * side * cell;
    double ntiles = floor((0.75 * cap - held) / tile), need = (PRM_GRID_PAGED_MIN_TILES * tile + held) / 0.75;
    if (held > 0)
        snprintf(also, sizeof also, ", the corridor's guide cells and tile mask (%.2f MB)", held / 1e6);
    if (ntiles < PRM_GRID_PAGED_MIN_TILES)
        return trv_error(ctx, TRV_ERR_NOMEM,
                         "the raster search (--grid) needs at least %.1f MB even paged (%d tiles of %d x %d cells at "
                         "%d bytes a cell%s, and a quarter more for the frontier), more than %s (%.*f MB): allow more "
                         "with --grid-memory MB",
                         need / 1e6, PRM_GRID_PAGED_MIN_TILES, PRM_TILE, PRM_TILE, cell, also, whose,
                         cap < 1e5 ? 4 : 1, cap / 1e6);
    const char *dir = trv_temp_dir(NULL);
    double file = ceil(t->grid->nx / side) * ceil(t->grid->ny / side) * side * side;
    struct statvfs fs;
    if (statvfs(dir, &fs))
        return trv_error(ctx, TRV_ERR_IO, "the paged raster search (--grid) cannot use '%s' for its temporary file",
                         dir);
    double room = (double)fs.f_bavail * (double)fs.f_frsize;
    if (room < file)
        return trv_error(ctx, TRV_ERR_IO,
                         "the paged raster search (--grid) may write up to %.1f MB to a temporary file in '%s', which "
                         "has %.1f MB free: set TMPDIR to a larger disk, or allow more with --grid-memory MB",
                         file / 1e6, dir, room / 1e6);
    for (pg->shift = 0; (1L << pg->shift) < PRM_TILE; pg->shift++)
        ;
    pg->tiles = pg->terrain_tiles = ntiles > INT_MAX / 2 ? INT_MAX / 2 : (int)ntiles;
    pg->dir = NULL; /* $TMPDIR, else /tmp: dir */
    return TRV_OK;
}

int prm_grid_pass_fits(const prm_terrain *t, double cell_bytes, size_t max_bytes)
{
    return (double)t->grid->nx * t->grid->ny * cell_bytes <= prm_grid_paged_budget(max_bytes, phys_bytes());
}

size_t prm_grid_max_bytes(double grid_memory_mb)
{
    return grid_memory_mb > 0 && grid_memory_mb < 1e-6 ? 1 : (size_t)(grid_memory_mb * 1e6); /* 0: default */
}

int prm_grid_paged_cell_bytes(const prm_terrain *t, prm_strategy s)
{
    return 1 + (int)(prm_terrain_tile_bytes(t, prm_grid_layers(t, s)) / (PRM_TILE * PRM_TILE)) + 1;
}

double prm_grid_paged_budget(size_t max_bytes, double phys)
{
    if (max_bytes)
        return (double)max_bytes;
    return phys > 0 && 0.75 * phys < PRM_GRID_PAGED_DEFAULT ? 0.75 * phys : PRM_GRID_PAGED_DEFAULT;
}

trv_status prm_route_grid_bounded(trv_ctx *ctx, const prm_terrain *t, size_t max_bytes, double sx, double sy,
                                  double gx, double gy, prm_strategy s, const prm_weights *w, prm_path *out,
                                  prm_grid_paging *pg)
{
    memset(pg, 0, sizeof *pg);
    memset(out, 0, sizeof *out);
    double cells = (double)t->grid->nx * t->grid->ny;
    if (prm_grid_fits(cells, max_bytes)) {
        trv_status st = prm_terrain_need_all(ctx, t);
        return st ? st : prm_route_grid(ctx, t, sx, sy, gx, gy, s, w, out);
    }
    trv_status st = paged_plan(ctx, t, s, max_bytes, 0, pg);
    return st ? st : prm_route_grid_paged(ctx, t, pg, sx, sy, gx, gy, s, w, out);
}

/* Each cell (window column, row) of samples half a cell apart along guide
 * (prm_path_band's) that lies in win, to f. */
static void walk_samples(const prm_terrain *t, const prm_path *guide, const long win[4],
                         void (*f)(void *, long, long), void *user)
{
    const geo_grid *g = t->grid;
    double mpu = t->cell_m / g->gt[1];
    for (int i = 0; i + 1 < guide->n; i++) {
        double x0 = guide->x[i], y0 = guide->y[i], x1 = guide->x[i + 1], y1 = guide->y[i + 1];
        int ns = (int)ceil(hypot(x1 - x0, y1 - y0) * mpu / (0.5 * t->cell_m)) + 1;
        for (int k = 0; k <= ns; k++) {
            double q = (double)k / ns;
            long c = (long)floor((x0 + q * (x1 - x0) - g->gt[0]) / g->gt[1]) - win[0];
            long r = (long)floor((y0 + q * (y1 - y0) - g->gt[3]) / g->gt[5]) - win[1];
            if (c >= 0 && r >= 0 && c < win[2] && r < win[3])
                f(user, c, r);
        }
    }
}

typedef struct seed_set {
    long nx;
    unsigned char *seed;
} seed_set;

static void seed_mark(void *user, long c, long r)
{
    seed_set *q = user;
    q->seed[r * q->nx + c] = 1;
}

/* The cells of walk_samples set to 1 in seed (row-major on win). */
static void mark_samples(const prm_terrain *t, const prm_path *guide, const long win[4], unsigned char *seed)
{
    seed_set q = {win[2], seed};
    walk_samples(t, guide, win, seed_mark, &q);
}

static void seed_count(void *user, long c, long r)
{
    (void)c, (void)r;
    ++*(long *)user;
}

static void seed_add(void *user, long c, long r)
{
    prm_corridor *k = user;
    if (k->n > 0 && k->sc[k->n - 1] == c + k->win[0] && k->sr[k->n - 1] == r + k->win[1])
        return;
    k->sc[k->n] = c + k->win[0];
    k->sr[k->n++] = r + k->win[1];
}

trv_status prm_corridor_make(trv_ctx *ctx, const prm_terrain *t, const prm_path *guide, const long win[4], long r,
                             long side, prm_corridor *k)
{
    memset(k, 0, sizeof *k);
    long n = 0;
    walk_samples(t, guide, win, seed_count, &n);
    memcpy(k->win, win, sizeof k->win);
    k->r = r, k->side = side;
    k->sc = malloc((size_t)(n + 1) * sizeof *k->sc);
    k->sr = malloc((size_t)(n + 1) * sizeof *k->sr);
    k->near = malloc((size_t)(n + 1) * sizeof *k->near);
    k->diff = malloc((size_t)(side + 1) * sizeof *k->diff);
    k->tmask = malloc((size_t)side * side);
    k->bytes = (size_t)(n + 1) * (sizeof *k->sc + sizeof *k->sr + sizeof *k->near) +
               (size_t)(side + 1) * sizeof *k->diff + (size_t)side * side;
    if (!k->sc || !k->sr || !k->near || !k->diff || !k->tmask) {
        prm_corridor_free(k);
        return trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
    }
    walk_samples(t, guide, win, seed_add, k);
    return TRV_OK;
}

void prm_corridor_free(prm_corridor *k)
{
    free(k->sc);
    free(k->sr);
    free(k->near);
    free(k->diff);
    free(k->tmask);
    memset(k, 0, sizeof *k);
}

int prm_corridor_has(const prm_corridor *k, long c, long r)
{
    for (long i = 0; i < k->n; i++)
        if (labs(k->sc[i] - c) <= k->r && labs(k->sr[i] - r) <= k->r)
            return 1;
    return 0;
}

void prm_corridor_tile(prm_corridor *k, long x0, long y0)
{
    const long side = k->side, r = k->r, x1 = x0 + side - 1, y1 = y0 + side - 1;
    long nn = 0;
    int full = 0;
    memset(k->tmask, 0, (size_t)side * side);
    for (long i = 0; i < k->n; i++)
        if (k->sc[i] + r >= x0 && k->sc[i] - r <= x1 && k->sr[i] + r >= y0 && k->sr[i] - r <= y1) {
            k->near[nn++] = i;
            full |= k->sc[i] - r <= x0 && k->sc[i] + r >= x1 && k->sr[i] - r <= y0 && k->sr[i] + r >= y1;
        }
    for (long x = 0; x < side && nn > 0; x++) {
        if (full) {
            for (long y = 0; y < side; y++)
                k->tmask[y * side + x] = 1;
            continue;
        }
        memset(k->diff, 0, (size_t)(side + 1) * sizeof *k->diff);
        for (long j = 0; j < nn; j++) {
            long i = k->near[j];
            if (labs(k->sc[i] - (x0 + x)) > r)
                continue;
            long a = k->sr[i] - r < y0 ? y0 : k->sr[i] - r, b = k->sr[i] + r > y1 ? y1 : k->sr[i] + r;
            k->diff[a - y0]++;
            k->diff[b - y0 + 1]--;
        }
        for (long y = 0, m = 0; y < side; y++)
            k->tmask[y * side + x] = (m += k->diff[y]) > 0;
    }
}

/* mask = 1 on every window cell within r cells (Chebyshev) of a seed: the
 * squares prm_path_band paints, as two running counts (along the rows,
 * then down the columns), O(window cells) whatever r. */
static trv_status dilate(trv_ctx *ctx, const long win[4], const unsigned char *seed, long r, unsigned char *mask)
{
    long nx = win[2], ny = win[3];
    unsigned char *row = malloc((size_t)nx * ny);
    long *cnt = calloc((size_t)nx, sizeof *cnt);
    if (!row || !cnt) {
        free(row);
        free(cnt);
        return trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
    }
    for (long y = 0; y < ny; y++) {
        const unsigned char *s = seed + y * nx;
        long n = 0;
        for (long c = 0; c < r && c < nx; c++)
            n += s[c];
        for (long c = 0; c < nx; c++) {
            n += (c + r < nx ? s[c + r] : 0) - (c - r - 1 >= 0 ? s[c - r - 1] : 0);
            row[y * nx + c] = n > 0;
        }
    }
    for (long y = 0; y < r && y < ny; y++)
        for (long c = 0; c < nx; c++)
            cnt[c] += row[y * nx + c];
    for (long y = 0; y < ny; y++)
        for (long c = 0; c < nx; c++) {
            cnt[c] += (y + r < ny ? row[(y + r) * nx + c] : 0) - (y - r - 1 >= 0 ? row[(y - r - 1) * nx + c] : 0);
            mask[y * nx + c] = cnt[c] > 0;
        }
    free(row);
    free(cnt);
    return TRV_OK;
}

/* The corridor of r cells on the whole grid searched paged (its box,
 * win, does not fit in memory): the same route as corridor_once's in
 * memory, the mask made a tile at a time (prm_corridor_tile); the
 * corridor's own bytes (its guide cells, a tile's mask) counted in the
 * budget (paged_plan). */
static trv_status corridor_paged(trv_ctx *ctx, const prm_terrain *t, const prm_path *guide, const long win[4], long r,
                                 size_t max_bytes, const double xy[4], prm_strategy s, const prm_weights *w,
                                 prm_path *out, double *escape, prm_grid_paging *pg)
{
    memset(pg, 0, sizeof *pg);
    prm_corridor k;
    trv_status st = prm_corridor_make(ctx, t, guide, win, r, PRM_TILE, &k);
    if (st)
        return st;
    if (!(st = paged_plan(ctx, t, s, max_bytes, (double)k.bytes, pg)))
        st = prm_route_grid_escape_paged(ctx, t, &k, xy[0], xy[1], xy[2], xy[3], s, w, out, escape, pg);
    prm_corridor_free(&k);
    return st;
}

/* One search in the corridor of r cells around guide: the band's bounding
 * box grown by the 2 cells a move reaches (clamped), the band as the
 * mask; paged (pg) when that box does not fit in max_bytes. *escape: the
 * bound; TRV_ERR_DATA when the goal is not reached. */
static trv_status corridor_once(trv_ctx *ctx, const prm_terrain *t, const prm_path *guide, int r, size_t max_bytes,
                                const double xy[4], prm_strategy s, const prm_weights *w, prm_path *out,
                                double *escape, prm_grid_paging *pg)
{
    const geo_grid *g = t->grid;
    long band[4], win[4];
    prm_path_band(t, guide, r, band, NULL);
    if (band[2] < 1 || band[3] < 1)
        return trv_error(ctx, TRV_ERR_DATA, "the guide route does not cross the grid");
    win[0] = band[0] > 2 ? band[0] - 2 : 0;
    win[1] = band[1] > 2 ? band[1] - 2 : 0;
    win[2] = (band[0] + band[2] + 2 < g->nx ? band[0] + band[2] + 2 : g->nx) - win[0];
    win[3] = (band[1] + band[3] + 2 < g->ny ? band[1] + band[3] + 2 : g->ny) - win[1];
    *escape = INFINITY;
    if (!prm_grid_fits((double)win[2] * win[3], max_bytes))
        return corridor_paged(ctx, t, guide, win, r, max_bytes, xy, s, w, out, escape, pg);
    unsigned char *seed = calloc((size_t)win[2] * win[3], 1), *mask = malloc((size_t)win[2] * win[3]);
    trv_status st = seed && mask ? TRV_OK : trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
    if (!st) {
        mark_samples(t, guide, win, seed);
        st = dilate(ctx, win, seed, r, mask);
    }
    free(seed);
    if (!st)
        st = prm_terrain_need(ctx, t, win[0], win[1], win[0] + win[2] - 1, win[1] + win[3] - 1);
    if (!st)
        st = prm_route_grid_escape(ctx, t, win, mask, xy[0], xy[1], xy[2], xy[3], s, w, out, escape);
    free(mask);
    return st;
}

/* The first half-width in cells: halfwidth_m, or with 0 the ellipse's
 * half minor axis (prm.h); rmax (the whole grid) without a guide. */
static long first_cells(const prm_terrain *t, const prm_path *guide, double halfwidth_m, const double xy[4],
                        prm_strategy s, const prm_weights *w, long rmax)
{
    if (!guide || guide->n < 2)
        return rmax;
    double m = halfwidth_m;
    if (m == 0) {
        double k = prm_grid_heuristic_factor(t, s, w), U = guide->objective;
        double D = hypot(xy[2] - xy[0], xy[3] - xy[1]) * t->cell_m / t->grid->gt[1];
        double a = k > 0 ? U / (2 * k) : INFINITY, b2 = a * a - D * D / 4;
        m = b2 > 0 ? sqrt(b2) : 0;
    }
    double rc = ceil(m / t->cell_m);
    return rc < 1 ? 1 : rc < (double)rmax ? (long)rc : rmax;
}

trv_status prm_route_grid_corridor(trv_ctx *ctx, const prm_terrain *t, const prm_path *guide, double halfwidth_m,
                                   size_t max_bytes, const double xy[4], prm_strategy s, const prm_weights *w,
                                   prm_path *out, prm_corridor_info *info)
{
    memset(out, 0, sizeof *out);
    memset(info, 0, sizeof *info);
    const geo_grid *g = t->grid;
    long rmax = g->nx > g->ny ? g->nx : g->ny;
    prm_weights wdef;
    if (!w) {
        prm_weights_default(&wdef);
        w = &wdef;
    }
    long r = first_cells(t, guide, halfwidth_m, xy, s, w, rmax);
    long expanded = 0;
    trv_status st;
    for (; r < rmax; r *= 2, info->widened++) {
        double escape = INFINITY;
        prm_path p = {0};
        prm_grid_paging pg = {0};
        st = corridor_once(ctx, t, guide, (int)r, max_bytes, xy, s, w, &p, &escape, &pg);
        expanded += p.expanded;
        if (pg.paged)
            info->paging = pg;
        if (st && st != TRV_ERR_DATA)
            return st;
        info->halfwidth_m = r * t->cell_m;
        info->escape = escape;
        if (!st && escape > p.objective + ESCAPE_MARGIN * fabs(p.objective)) {
            *out = p;
            out->expanded = expanded;
            return TRV_OK;
        }
        prm_path_clear(&p);
    }
    info->whole = 1;
    info->halfwidth_m = INFINITY;
    info->escape = INFINITY;
    if ((st = prm_route_grid_bounded(ctx, t, max_bytes, xy[0], xy[1], xy[2], xy[3], s, w, out, &info->paging)))
        return st;
    out->expanded += expanded;
    return TRV_OK;
}
