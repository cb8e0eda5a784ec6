/* The lazy terrain (prm.h): the run directory's layers kept open and read
 * a tile at a time, when a query first looks at one of its cells; or, from
 * the roadmap cache's mapped layers, used in place. */
#include "lru.h"
#include "prm_priv.h"
#include "core/tempfile.h"
#include "run/run.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

enum { NO_PAIR = 0xffff };
/* per tile: what is read (TS_PART: TS_ALL under layers short of
 * PRM_LAYERS_ALL, prm_terrain_layers) */
enum { TS_CLASS = 1, TS_DEM = 2, TS_ALL = 4, TS_PART = 8 };

struct prm_lazy {
    run_srcs src;           /* class, cost, gonogo, dem, slope, speed */
    run_srcs model_src;     /* soil, land use (direction-aware only) */
    unsigned char *soil, *landuse; /* one tile's (PRM_TILE^2), read for its pairs */
    int ntx, nty;           /* tiles across and down */
    unsigned char *state;   /* per tile: TS_* */
    uint16_t *pairmap;      /* soil x 256 + land use -> pair; NO_PAIR */
    float *seams;           /* the facts' (prm_seams_count); NULL: read the neighbours' dem */
    const uint64_t *seam_hash; /* the roadmap cache's, seams in seam_map (prm_seams_check); NULL: seams malloc'ed */
    void *seam_map;
    size_t seam_map_len;
    size_t nruns;           /* the facts' class code runs (0: none) */
    unsigned char *run_code;
    unsigned short *run_len;
    uint64_t runs_hash;     /* the roadmap cache's: the runs in runs_map, checked when expanded */
    void *runs_map;         /* NULL: the runs malloc'ed */
    size_t runs_map_len;
    void *map;              /* the roadmap cache's mapping, whose layers t's arrays are; NULL: none */
    size_t map_len;
    long tiles_read;
    int band_cap;           /* tile rows whose layers (beyond class) may be held at once; 0: no limit */
    long *band_used;        /* per tile row: when one of its tiles was last filled; 0 none held */
    int class_cap;          /* tile rows whose class and gonogo (and ready) may be held at once; 0: no limit */
    long *class_used;       /* per tile row: when one of its tiles' class was last read; 0 none held */
    long clock;
    int layers;             /* what a tile's read fills beyond class and gonogo (PRM_LAYER_*, prm_terrain_layers) */
    int spill_fd;           /* the spill file (prm_terrain_layers): -1 none */
    unsigned char *spilled; /* per tile: 1 once its held layers are in the spill file; NULL: no spill */
    long spill_reads;       /* tiles read back from it */
    int tile_cap;           /* tiles whose layers may be held at once (prm_terrain_tile_cap); 0: no limit */
    int tiles_held;
    prm_lru held;           /* per tile: the held tiles (lru.h; PRM_LRU_OUT not held), NULL arrays without a cap */
    trv_ctx *ctx;           /* the tile reads' errors */
    trv_ctx *ctx2;          /* those of a tile's second thread (fill_all) */
    trv_status st;          /* the first of them (sticky) */
    char msg[1024];
};

static void spill_close(prm_lazy *z);

void prm_lazy_free(prm_lazy *z)
{
    if (!z)
        return;
    spill_close(z);
    run_srcs_clear(&z->src);
    run_srcs_clear(&z->model_src);
    free(z->soil);
    free(z->landuse);
    free(z->state);
    free(z->band_used);
    free(z->class_used);
    free(z->held.prev);
    free(z->held.next);
    free(z->pairmap);
    if (z->seam_map)
        munmap(z->seam_map, z->seam_map_len);
    else
        free(z->seams);
    if (z->runs_map)
        munmap(z->runs_map, z->runs_map_len);
    else
        free(z->run_code), free(z->run_len);
    if (z->map)
        munmap(z->map, z->map_len);
    trv_ctx_free(z->ctx);
    trv_ctx_free(z->ctx2);
    free(z);
}

/* ---- filling a tile ------------------------------------------------------------ */

typedef struct tile {
    int x0, y0, nx, ny;     /* its cells */
} tile;

static tile tile_at(const prm_terrain *t, int tx, int ty)
{
    tile b = {tx * PRM_TILE, ty * PRM_TILE, PRM_TILE, PRM_TILE};
    if (b.x0 + b.nx > t->grid->nx)
        b.nx = t->grid->nx - b.x0;
    if (b.y0 + b.ny > t->grid->ny)
        b.ny = t->grid->ny - b.y0;
    return b;
}

/* The first cell of tile (tx, ty)'s block in a tile-major array (prm.h
 * tile_ntx); its cell (x0 + x, y0 + y) is x + y PRM_TILE further. */
static size_t tile_base(const prm_terrain *t, int tx, int ty)
{
    return ((size_t)ty * (size_t)t->tile_ntx + (size_t)tx) * PRM_TILE * PRM_TILE;
}

static void mark(const prm_terrain *t, int tx, int ty, unsigned char bits)
{
    t->ready[(size_t)ty * t->tile_ntx + tx] |= bits;
}

/* Keep the first error (its message from z->ctx). */
static void fail(prm_lazy *z, trv_status st)
{
    if (!z->st) {
        z->st = st;
        snprintf(z->msg, sizeof z->msg, "%s", trv_errmsg(z->ctx));
    }
}

/* Tile (tx, ty) of src into its block of r (tile-major), or into dst (a
 * tile's own buffer) when r is NULL. */
static int read_one(const prm_terrain *t, geo_raster_src *src, const geo_raster *r, int tx, int ty, void *dst)
{
    prm_lazy *z = t->lazy;
    tile b = tile_at(t, tx, ty);
    if (r)
        dst = r->type == GEO_F32 ? (void *)(r->f32 + tile_base(t, tx, ty)) : (void *)(r->u8 + tile_base(t, tx, ty));
    trv_status st = geo_raster_read_window_to(z->ctx, src, b.x0, b.y0, b.nx, b.ny, dst, PRM_TILE,
                                              r ? (float)r->nodata : 0);
    if (st)
        fail(z, st);
    return st != TRV_OK;
}

static int read_dem(const prm_terrain *t, int tx, int ty)
{
    prm_lazy *z = t->lazy;
    unsigned char *s = &z->state[(size_t)ty * z->ntx + tx];
    if (*s & TS_DEM)
        return 0;
    *s |= TS_DEM;
    return read_one(t, z->src.src[RUN_DEM], t->dem, tx, ty, NULL);
}

/* Tile b's dem (read) and one cell around it where the grid goes on, into
 * w: cell (x, y) at w[(y - y0 + 1) (PRM_TILE + 2) + x - x0 + 1]. The ring
 * from the seams (prm_seams_count's layout: the values the neighbouring
 * tiles' reads would give; the rows above and below span the corners),
 * or else from the neighbouring tiles' dem (read). */
enum { WS = PRM_TILE + 2 };
static void dem_window(const prm_terrain *t, int tx, int ty, tile b, float *w)
{
    const prm_lazy *z = t->lazy;
    const long nx = t->grid->nx, ny = t->grid->ny;
    const float *dem = t->dem->f32, *blk = dem + tile_base(t, tx, ty);
    for (int y = 0; y < b.ny; y++)
        memcpy(w + (size_t)(y + 1) * WS + 1, blk + (size_t)y * PRM_TILE, (size_t)b.nx * sizeof *w);
    long xa = b.x0 > 0 ? b.x0 - 1 : 0, xb = b.x0 + b.nx < nx ? b.x0 + b.nx + 1 : nx;
    const float *cols = z->seams ? z->seams + 2 * (size_t)(z->nty - 1) * nx : NULL;
    for (long y = b.y0 - 1; y <= b.y0 + b.ny; y++) {
        if (y < 0 || y >= ny)
            continue;
        int edge = y < b.y0 || y == b.y0 + b.ny; /* a row above or below: every column */
        for (long x = xa; x < xb; x++) {
            if (!edge && x >= b.x0 && x < b.x0 + b.nx)
                continue;
            float v;
            if (!cols)
                v = dem[prm_at(t, y * nx + x)];
            else if (y < b.y0) /* the upper side of boundary ty */
                v = z->seams[2 * (size_t)(ty - 1) * nx + x];
            else if (y == b.y0 + b.ny) /* the lower side of boundary ty + 1 */
                v = z->seams[(2 * (size_t)ty + 1) * nx + x];
            else if (x < b.x0) /* the left side of boundary tx */
                v = cols[2 * (size_t)(tx - 1) * ny + y];
            else /* the right side of boundary tx + 1 */
                v = cols[(2 * (size_t)tx + 1) * ny + y];
            w[(size_t)(y - b.y0 + 1) * WS + x - b.x0 + 1] = v;
        }
    }
}

/* The pace's gradients of tile b's GO cells (prm_aniso_grad_rect's, from
 * the window w of dem_window), into its block of grad. */
static void grad_tile(const prm_terrain *t, int tx, int ty, tile b, const float *w)
{
    const geo_grid *g = t->grid;
    const geo_raster *dem = t->dem;
    double mpu = geo_crs_metres_per_unit(g->wkt), ew = g->gt[1] * mpu, ns = fabs(g->gt[5]) * mpu;
    int left = b.x0 > 0, lw = left + b.nx + (b.x0 + b.nx < g->nx); /* the window's columns on the grid */
    float *grad = t->aniso->grad + 2 * tile_base(t, tx, ty);
    for (int y = 0; y < b.ny; y++) {
        const float *row = w + (size_t)(y + 1) * WS + 1 - left;
        long gy0 = b.y0 + y;
        for (int x = 0; x < b.nx; x++) {
            double gx = 0, gy = 0;
            if (prm_cell_go(t, gy0 * g->nx + b.x0 + x))
                geo_horn_diff(gy0 > 0 ? row - WS : NULL, row, gy0 + 1 < g->ny ? row + WS : NULL, lw, x + left,
                              dem->has_nodata, (float)dem->nodata, &gx, &gy);
            float *o = grad + 2 * ((size_t)y * PRM_TILE + x);
            o[0] = (float)(gx / (8 * ew));
            o[1] = (float)(-gy / (8 * ns)); /* gy is south minus north */
        }
    }
}

/* The direction-aware pace's data of the tile's cells: their pairs, and
 * their gradients, from dem one cell around (the seams, or else the
 * neighbouring tiles' dem). */
static int aniso_tile(const prm_terrain *t, int tx, int ty, tile b)
{
    prm_lazy *z = t->lazy;
    prm_aniso *a = t->aniso;
    int bad = read_dem(t, tx, ty);
    for (int y = ty - 1; y <= ty + 1 && !z->seams; y++)
        for (int x = tx - 1; x <= tx + 1; x++)
            if (x >= 0 && y >= 0 && x < z->ntx && y < z->nty)
                bad |= read_dem(t, x, y);
    if (bad || read_one(t, z->model_src.src[RUN_SOIL], NULL, tx, ty, z->soil) ||
        read_one(t, z->model_src.src[RUN_LANDUSE], NULL, tx, ty, z->landuse))
        return 1;
    uint16_t *pair = a->pair + tile_base(t, tx, ty);
    for (int y = 0; y < b.ny; y++)
        for (int x = 0; x < b.nx; x++) {
            size_t k = (size_t)y * PRM_TILE + x;
            pair[k] = NO_PAIR;
            if (!prm_cell_go(t, (long)(b.y0 + y) * t->grid->nx + b.x0 + x))
                continue;
            int sc = z->soil[k], lc = z->landuse[k];
            if ((pair[k] = z->pairmap[sc * 256 + lc]) == NO_PAIR) {
                fail(z, trv_error(z->ctx, TRV_ERR_DATA,
                                  "a GO cell has soil %d and land use %d, which the speed model's copies do not "
                                  "know: run trv-speed again",
                                  sc, lc));
                return 1;
            }
        }
    if (z->seam_hash && prm_seams_check(z->seams, z->seam_hash, t->grid->nx, t->grid->ny, tx, ty)) {
        fail(z, trv_error(z->ctx, TRV_ERR_DATA,
                          "the roadmap cache's dem seams beside tile (%d, %d) are damaged: run trv-roadmap again", tx,
                          ty));
        return 1;
    }
    float *w = malloc((size_t)WS * WS * sizeof *w);
    if (!w) {
        fail(z, trv_error(z->ctx, TRV_ERR_NOMEM, "out of memory"));
        return 1;
    }
    dem_window(t, tx, ty, b, w);
    grad_tile(t, tx, ty, b, w);
    free(w);
    return 0;
}

/* A tile that could not be read is NOGO: nothing is planned through it. */
static void poison(const prm_terrain *t, int tx, int ty)
{
    memset(t->cls->u8 + tile_base(t, tx, ty), 0, PRM_TILE * PRM_TILE);
    mark(t, tx, ty, PRM_HAVE_CLASS | PRM_HAVE_ALL);
}

/* A tile's layers on two cores: part 0 the dem and the pace's data (on the
 * caller's thread: only it records errors in z), part 1 cost, slope and
 * speed (its first error kept in the part). They write disjoint arrays. */
typedef struct part {
    const prm_terrain *t;
    int tx, ty, which;
    int bad, dem_bad;
    trv_status st;
} part;

static void *fill_part(void *arg)
{
    part *p = arg;
    const prm_terrain *t = p->t;
    prm_lazy *z = t->lazy;
    tile b = tile_at(t, p->tx, p->ty);
    if (p->which == 0) {
        int pace = t->aniso && (z->layers & PRM_LAYER_PACE);
        if (!(z->layers & PRM_LAYER_DEM) && !pace)
            return NULL;
        p->bad = p->dem_bad = read_dem(t, p->tx, p->ty);
        if (!p->bad && pace)
            p->bad = aniso_tile(t, p->tx, p->ty, b);
        return NULL;
    }
    geo_raster_src *src[3] = {z->src.src[RUN_COST], z->src.src[RUN_SLOPE], z->src.src[RUN_SPEED]};
    geo_raster *dst[3] = {t->cost, t->slope, t->speed};
    static const int bit[3] = {PRM_LAYER_COST, PRM_LAYER_SLOPE, PRM_LAYER_SPEED};
    for (int k = 0; k < 3 && !p->st; k++)
        if (z->layers & bit[k])
            p->st = geo_raster_read_window_to(z->ctx2, src[k], b.x0, b.y0, b.nx, b.ny,
                                              dst[k]->f32 + tile_base(t, p->tx, p->ty), PRM_TILE,
                                              (float)dst[k]->nodata);
    p->bad = p->st != TRV_OK;
    return NULL;
}

/* The tile's layers (z->layers'); 1 when one could not be read, the
 * first error in the order dem, cost, slope, speed, the pace's data (as
 * one thread reading them in turn would record it). Part 1 on its own
 * core only when it has a float layer to read. */
static int fill_all(const prm_terrain *t, int tx, int ty)
{
    prm_lazy *z = t->lazy;
    trv_status before = z->st;
    part parts[2] = {{t, tx, ty, 0, 0, 0, TRV_OK}, {t, tx, ty, 1, 0, 0, TRV_OK}};
    if (z->layers & (PRM_LAYER_COST | PRM_LAYER_SLOPE | PRM_LAYER_SPEED))
        prm_on_cores(fill_part, parts, sizeof *parts, 2);
    else
        fill_part(&parts[0]);
    if (parts[1].bad && !parts[0].dem_bad && !before) { /* cost, slope or speed failed before the pace's data */
        z->st = parts[1].st;
        snprintf(z->msg, sizeof z->msg, "%s", trv_errmsg(z->ctx2));
    }
    return parts[0].bad || parts[1].bad;
}

static void release_band(const prm_terrain *t, long ty);
static void release_class(const prm_terrain *t, long ty);

/* Under a cap of cap tile rows (used: per row, its stamp; 0 none held),
 * tile row ty about to be filled: held (its stamp renewed), the least
 * recently filled other row let go (release) when the cap is reached. */
static void lru_use(const prm_terrain *t, long *used, int cap, int ty, void (*release)(const prm_terrain *, long))
{
    prm_lazy *z = t->lazy;
    if (!cap)
        return;
    if (!used[ty]) {
        int held = 0;
        long oldest = -1;
        for (long b = 0; b < z->nty; b++)
            if (used[b] && b != ty) {
                held++;
                oldest = oldest < 0 || used[b] < used[oldest] ? b : oldest;
            }
        if (held >= cap && oldest >= 0)
            release(t, oldest);
    }
    used[ty] = ++z->clock;
}

static void tile_use(const prm_terrain *t, long k);
static void dem_let_go(const prm_terrain *t, int tx, int ty);
static void drop_block(const prm_terrain *t, void *base, size_t size, long k);
static int spill_in(const prm_terrain *t, long k);

static void fill_tile(const prm_terrain *t, int tx, int ty, int have)
{
    prm_lazy *z = t->lazy;
    unsigned char *s = &z->state[(size_t)ty * z->ntx + tx];
    if (z->tile_cap)
        tile_use(t, (long)ty * z->ntx + tx);
    if (!(*s & TS_ALL) && spill_in(t, (long)ty * z->ntx + tx))
        return;
    if (!(*s & TS_CLASS)) {
        lru_use(t, z->class_used, z->class_cap, ty, release_class);
        *s |= TS_CLASS;
        if (read_one(t, z->src.src[RUN_CLASS], t->cls, tx, ty, NULL) ||
            read_one(t, z->src.src[RUN_GONOGO], t->gonogo, tx, ty, NULL)) {
            *s |= TS_ALL;
            poison(t, tx, ty);
            return;
        }
        mark(t, tx, ty, PRM_HAVE_CLASS);
    }
    if (!(have & PRM_HAVE_ALL) || (*s & TS_ALL))
        return;
    lru_use(t, z->band_used, z->band_cap, ty, release_band);
    *s |= TS_ALL | (z->layers != PRM_LAYERS_ALL ? TS_PART : 0);
    z->tiles_read++;
    int bad = fill_all(t, tx, ty);
    if (z->tile_cap && !z->seams)
        dem_let_go(t, tx, ty);
    if (!bad && !(z->layers & PRM_LAYER_DEM) && z->seams && (*s & TS_DEM)) { /* read for the gradients alone */
        *s &= (unsigned char)~TS_DEM;
        drop_block(t, t->dem->f32, sizeof(float), (long)ty * z->ntx + tx);
    }
    if (bad) {
        poison(t, tx, ty);
        return;
    }
    mark(t, tx, ty, PRM_HAVE_ALL);
}

void prm_lazy_fill(const prm_terrain *t, long i, int have)
{
    long nx = t->grid->nx;
    fill_tile(t, (int)(i % nx / PRM_TILE), (int)(i / nx / PRM_TILE), have);
}

/* ---- opening ------------------------------------------------------------------- */

/* The direction-aware pace from the run directory's model copies and the
 * facts' pairs and range; per-cell data left for the tiles. */
static trv_status open_model(trv_ctx *ctx, prm_terrain *t, const char *dir, prm_terrain_facts *f)
{
    prm_lazy *z = t->lazy;
    int present;
    trv_status st = prm_model_present(ctx, t, dir, &present);
    if (st)
        return st;
    if (present != f->direction_aware)
        return trv_error(ctx, TRV_ERR_DATA, "'%s': the speed model's copy %s since the facts were taken", dir,
                         present ? "appeared" : "went");
    if (!present) {
        t->top_speed_kmh = f->top_speed_kmh;
        return TRV_OK;
    }
    static const run_id which[2] = {RUN_SOIL, RUN_LANDUSE};
    run_load_opts lo = {0};
    lo.grid = t->grid;
    /* mapped layers (open_mapped) hold the pairs and gradients: no soil, land use */
    if (!f->layers && (st = run_open(ctx, dir, which, 2, &lo, &z->model_src)))
        return st;
    size_t n = (size_t)z->ntx * z->nty * PRM_TILE * PRM_TILE; /* tile-major, padded */
    prm_aniso *a = calloc(1, sizeof *a);
    if (!a)
        return trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
    t->aniso = a;
    if ((!f->layers && (!(a->grad = calloc(2 * n, sizeof *a->grad)) || !(a->pair = calloc(n, sizeof *a->pair)) ||
                        !(z->soil = malloc(PRM_TILE * PRM_TILE)) || !(z->landuse = malloc(PRM_TILE * PRM_TILE)))) ||
        !(a->codes = malloc(2 * (size_t)f->npairs + 1)) || !(z->pairmap = malloc(256 * 256 * sizeof *z->pairmap)))
        return trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
    if ((st = tm_run_model_load(ctx, dir, &a->rm)))
        return st;
    a->owns_model = 1;
    a->rm.model.v = a->rm.vehicle;
    a->m = &a->rm.model;
    memcpy(a->codes, f->codes, 2 * (size_t)f->npairs);
    a->npairs = f->npairs;
    if (f->seams && (f->seam_nx != t->grid->nx || f->seam_ny != t->grid->ny))
        return trv_error(ctx, TRV_ERR_DATA, "'%s': the terrain's facts are of a %d x %d grid, its layers %d x %d", dir,
                         f->seam_nx, f->seam_ny, t->grid->nx, t->grid->ny);
    size_t ns = prm_seams_count(t->grid->nx, t->grid->ny) * sizeof *z->seams;
    if (f->seam_map) { /* the cache's, mapped: taken */
        z->seams = f->seams, z->seam_hash = f->seam_hash, z->seam_map = f->seam_map, z->seam_map_len = f->seam_map_len;
        f->seams = NULL, f->seam_hash = NULL, f->seam_map = NULL, f->seam_map_len = 0;
    }
    if (f->seams && !(z->seams = malloc(ns + 1)))
        return trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
    if (f->seams)
        memcpy(z->seams, f->seams, ns);
    a->tmax = f->tmax;
    memset(z->pairmap, 0xff, 256 * 256 * sizeof *z->pairmap);
    for (int p = 0; p < f->npairs; p++)
        z->pairmap[f->codes[2 * p] * 256 + f->codes[2 * p + 1]] = (uint16_t)p;
    if (!f->pace)
        return prm_aniso_table(ctx, a, t);
    /* the table prm_aniso_table made from the same pairs and range */
    size_t np = (size_t)f->npairs;
    if (!(a->pace = malloc(np * (PRM_PACE_NODES + 1) * sizeof *a->pace + 1)) ||
        !(a->ok = malloc(np * PRM_PACE_NODES + 1)))
        return trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
    memcpy(a->pace, f->pace, np * (PRM_PACE_NODES + 1) * sizeof *a->pace);
    memcpy(a->ok, f->ok, np * PRM_PACE_NODES);
    a->dt = 2 * a->tmax / PRM_PACE_NODES;
    t->top_speed_kmh = f->top_speed_kmh;
    return TRV_OK;
}

static trv_status open_layers(trv_ctx *ctx, prm_terrain *t, const char *dir)
{
    prm_lazy *z = t->lazy;
    static const run_id which[6] = {RUN_CLASS, RUN_COST, RUN_GONOGO, RUN_DEM, RUN_SLOPE, RUN_SPEED};
    geo_raster **dst[6] = {&t->cls, &t->cost, &t->gonogo, &t->dem, &t->slope, &t->speed};
    trv_status st = run_open(ctx, dir, which, 6, NULL, &z->src);
    for (int k = 0; k < 6 && !st; k++)
        st = geo_raster_src_alloc(ctx, z->src.src[which[k]], dst[k]);
    if (st)
        return st;
    t->grid = &t->cls->grid;
    if (!t->grid->wkt || geo_crs_is_geographic(t->grid->wkt) != 0)
        return trv_error(ctx, TRV_ERR_CRS, "the terrain in '%s' must be on a projected grid", dir);
    t->cell_m = t->grid->gt[1] * geo_crs_metres_per_unit(t->grid->wkt);
    z->ntx = (t->grid->nx + PRM_TILE - 1) / PRM_TILE;
    z->nty = (t->grid->ny + PRM_TILE - 1) / PRM_TILE;
    t->tile_ntx = z->ntx;
    size_t nt = (size_t)z->ntx * z->nty, n = nt * PRM_TILE * PRM_TILE; /* tile-major, padded */
    if (!(z->state = calloc(nt, 1)) || !(t->ready = calloc(nt, 1)))
        return trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
    for (int k = 0; k < 6; k++) { /* calloc'ed: a page costs memory once a tile is read into it */
        geo_raster *r = *dst[k];
        void *p = calloc(n, r->type == GEO_F32 ? sizeof(float) : 1);
        if (!p)
            return trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
        if (r->type == GEO_F32)
            free(r->f32), r->f32 = p;
        else
            free(r->u8), r->u8 = p;
    }
    return TRV_OK;
}

/* The facts' class code runs, when they cover the grid. */
static trv_status open_runs(trv_ctx *ctx, prm_terrain *t, const char *dir, prm_terrain_facts *f)
{
    prm_lazy *z = t->lazy;
    if (!f->nruns)
        return TRV_OK;
    if (f->ncells != (size_t)t->grid->nx * t->grid->ny)
        return trv_error(ctx, TRV_ERR_DATA, "'%s': the terrain's facts hold class codes of %zu cells, its layers %d x %d",
                         dir, f->ncells, t->grid->nx, t->grid->ny);
    z->nruns = f->nruns;
    if (f->runs_map) { /* the cache's, mapped: taken */
        z->run_code = f->run_code, z->run_len = f->run_len, z->runs_hash = f->runs_hash;
        z->runs_map = f->runs_map, z->runs_map_len = f->runs_map_len;
        f->run_code = NULL, f->run_len = NULL, f->runs_map = NULL, f->runs_map_len = 0, f->nruns = 0;
        return TRV_OK;
    }
    if (!(z->run_code = malloc(f->nruns)) || !(z->run_len = malloc(f->nruns * sizeof *z->run_len)))
        return trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
    memcpy(z->run_code, f->run_code, f->nruns);
    memcpy(z->run_len, f->run_len, f->nruns * sizeof *z->run_len);
    return TRV_OK;
}

int prm_lazy_codes(const prm_terrain *t, unsigned char *codes)
{
    prm_lazy *z = t->lazy;
    if (!z || !z->nruns)
        return 0;
    if (z->runs_map &&
        !prm_class_runs_ok(z->run_code, z->run_len, z->nruns, (size_t)t->grid->nx * t->grid->ny, z->runs_hash)) {
        fail(z, trv_error(z->ctx, TRV_ERR_DATA,
                          "the roadmap cache's class code runs are damaged: run trv-roadmap again"));
        return 1; /* the codes left NOGO */
    }
    size_t i = 0; /* the cell; codes zeroed, so NOGO's runs (0) are skipped */
    for (size_t k = 0; k < z->nruns; i += z->run_len[k], k++) {
        size_t a = i, b = i + z->run_len[k];
        unsigned v = z->run_code[k] > PRM_CL_MAX ? PRM_CL_MAX : z->run_code[k];
        if (!v)
            continue;
        if (a & 1) /* the run's first cell, in a byte's high half */
            codes[a >> 1] |= (unsigned char)(v << 4), a++;
        if (b - a >= 2) { /* whole bytes: the code twice */
            memset(codes + (a >> 1), (int)(v * 0x11), (b - a) >> 1);
            a += (b - a) & ~(size_t)1;
        }
        if (a < b) /* its last cell, in a byte's low half */
            codes[a >> 1] |= (unsigned char)v;
    }
    return 1;
}

/* The facts' mapped layers as t's arrays, taken from f: no tile to read
 * (t->ready NULL). */
static trv_status open_mapped(trv_ctx *ctx, prm_terrain *t, const char *dir, prm_terrain_facts *f)
{
    prm_lazy *z = t->lazy;
    if (!f->layers)
        return TRV_OK;
    if (f->layers_nx != t->grid->nx || f->layers_ny != t->grid->ny ||
        f->layers_n != (t->aniso ? PRM_LY_N : PRM_LY_GRAD))
        return trv_error(ctx, TRV_ERR_DATA, "'%s': the roadmap cache's layers are of a %d x %d grid, its layers %d x %d",
                         dir, f->layers_nx, f->layers_ny, t->grid->nx, t->grid->ny);
    unsigned char *base = (unsigned char *)f->map + (f->layers - (const unsigned char *)f->map);
    geo_raster *r[6] = {t->cls, t->gonogo, t->cost, t->dem, t->slope, t->speed};
    for (int k = 0; k < 6; k++) {
        unsigned char *p = base + prm_cache_layer_offset(f->layers_nx, f->layers_ny, k);
        if (r[k]->u8)
            free(r[k]->u8), r[k]->u8 = p;
        else
            free(r[k]->f32), r[k]->f32 = (float *)(void *)p;
    }
    if (t->aniso) {
        t->aniso->grad = (float *)(void *)(base + prm_cache_layer_offset(f->layers_nx, f->layers_ny, PRM_LY_GRAD));
        t->aniso->pair = (uint16_t *)(void *)(base + prm_cache_layer_offset(f->layers_nx, f->layers_ny, PRM_LY_PAIR));
    }
    z->map = f->map, z->map_len = f->map_len;
    f->map = NULL, f->map_len = 0, f->layers = NULL;
    free(t->ready);
    t->ready = NULL;
    t->tile_ntx = 0; /* the cache's layers are row-major */
    return TRV_OK;
}

void prm_lazy_release(prm_terrain *t)
{
    if (!t->lazy || !t->lazy->map)
        return;
    geo_raster *r[6] = {t->cls, t->gonogo, t->cost, t->dem, t->slope, t->speed};
    for (int k = 0; k < 6; k++)
        if (r[k])
            r[k]->u8 = NULL, r[k]->f32 = NULL;
    if (t->aniso)
        t->aniso->grad = NULL, t->aniso->pair = NULL;
}

trv_status prm_terrain_open(trv_ctx *ctx, const char *dir, prm_terrain_facts *f, prm_terrain *t)
{
    memset(t, 0, sizeof *t);
    prm_lazy *z = calloc(1, sizeof *z);
    if (!z || !(z->ctx = trv_ctx_new()) || !(z->ctx2 = trv_ctx_new())) {
        if (z)
            trv_ctx_free(z->ctx);
        free(z);
        return trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
    }
    t->lazy = z;
    z->layers = PRM_LAYERS_ALL;
    z->spill_fd = -1;
    trv_status st = open_layers(ctx, t, dir);
    if (!st)
        st = open_runs(ctx, t, dir, f);
    if (!st)
        st = open_model(ctx, t, dir, f);
    if (!st)
        st = open_mapped(ctx, t, dir, f);
    if (st)
        prm_terrain_clear(t);
    return st;
}

/* ---- what a caller needs ---------------------------------------------------------- */

trv_status prm_terrain_status(trv_ctx *ctx, const prm_terrain *t)
{
    if (t->lazy && t->lazy->st)
        return trv_error(ctx, t->lazy->st, "%s", t->lazy->msg);
    return TRV_OK;
}

trv_status prm_terrain_need(trv_ctx *ctx, const prm_terrain *t, long c0, long r0, long c1, long r1)
{
    const prm_lazy *z = t->lazy;
    if (!z || !t->ready) /* read whole, or mapped */
        return TRV_OK;
    long nx = t->grid->nx, ny = t->grid->ny;
    c0 = c0 < 0 ? 0 : c0;
    r0 = r0 < 0 ? 0 : r0;
    c1 = c1 >= nx ? nx - 1 : c1;
    r1 = r1 >= ny ? ny - 1 : r1;
    for (long ty = r0 / PRM_TILE; ty <= r1 / PRM_TILE && r0 <= r1; ty++)
        for (long tx = c0 / PRM_TILE; tx <= c1 / PRM_TILE && c0 <= c1; tx++)
            if (!(z->state[ty * z->ntx + tx] & TS_ALL))
                fill_tile(t, (int)tx, (int)ty, PRM_HAVE_ALL);
    return prm_terrain_status(ctx, t);
}

trv_status prm_terrain_need_all(trv_ctx *ctx, const prm_terrain *t)
{
    return prm_terrain_need(ctx, t, 0, 0, t->grid->nx - 1, t->grid->ny - 1);
}

trv_status prm_terrain_need_line(trv_ctx *ctx, const prm_terrain *t, const double *x, const double *y, int n,
                                 int halo)
{
    if (!t->lazy)
        return TRV_OK;
    const geo_grid *g = t->grid;
    /* points at most a quarter tile apart, each needing the box of halo
     * plus a quarter tile around it: every cell within halo of the line */
    const double step = PRM_TILE / 4.0;
    long h = halo + PRM_TILE / 4 + 1;
    trv_status st = TRV_OK;
    for (int i = 0; i < n && !st; i++) {
        double u0 = (x[i] - g->gt[0]) / g->gt[1], v0 = (y[i] - g->gt[3]) / g->gt[5];
        double u1 = u0, v1 = v0;
        if (i + 1 < n) {
            u1 = (x[i + 1] - g->gt[0]) / g->gt[1];
            v1 = (y[i + 1] - g->gt[3]) / g->gt[5];
        }
        double len = fmax(fabs(u1 - u0), fabs(v1 - v0));
        if (!isfinite(len))
            continue;
        long ns = (long)ceil(len / step);
        for (long k = 0; k <= ns && !st; k++) {
            double f = ns ? (double)k / ns : 0, u = u0 + f * (u1 - u0), v = v0 + f * (v1 - v0);
            if (u < -h || v < -h || u > g->nx + h || v > g->ny + h)
                continue;
            long c = (long)floor(u), r = (long)floor(v);
            st = prm_terrain_need(ctx, t, c - h, r - h, c + h, r + h);
        }
    }
    return st;
}

void prm_terrain_tiles(const prm_terrain *t, long *read, long *total)
{
    *read = t->lazy ? t->lazy->tiles_read : 0;
    *total = t->lazy ? (long)t->lazy->ntx * t->lazy->nty : 0;
}

/* Give back the whole pages of cells c0 .. c1 - 1 of an array of
 * size-byte cells (madvise: they read as zeros after; failing, kept). */
static void drop_cells(void *base, size_t size, size_t c0, size_t c1)
{
    if (!base || c1 <= c0)
        return;
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    uintptr_t a = (uintptr_t)base + c0 * size, b = (uintptr_t)base + c1 * size;
    a = (a + page - 1) / page * page;
    b = b / page * page;
    if (b > a)
        (void)madvise((void *)a, b - a, MADV_DONTNEED);
}

/* Cells c0 .. c1 - 1 of a byte array zeroed: drop_cells's whole pages,
 * the bytes left at either end by memset (they share a page with the
 * cells around, kept). */
static void clear_cells(unsigned char *base, size_t c0, size_t c1)
{
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    uintptr_t a = ((uintptr_t)(base + c0) + page - 1) / page * page, b = (uintptr_t)(base + c1) / page * page;
    if (b <= a) {
        memset(base + c0, 0, c1 - c0);
        return;
    }
    drop_cells(base, 1, c0, c1);
    memset(base + c0, 0, (size_t)(a - (uintptr_t)(base + c0)));
    memset((unsigned char *)b, 0, (size_t)((uintptr_t)(base + c1) - b));
}

/* Tile row ty's layers but class and gonogo let go (prm.h
 * prm_terrain_release_above): its blocks, one run of cells tile-major. */
static void release_band(const prm_terrain *t, long ty)
{
    prm_lazy *z = t->lazy;
    int any = 0;
    for (int tx = 0; tx < z->ntx; tx++) {
        unsigned char *s = &z->state[(size_t)ty * z->ntx + tx];
        t->ready[(size_t)ty * z->ntx + tx] &= (unsigned char)~PRM_HAVE_ALL;
        any |= *s & (TS_ALL | TS_DEM);
        *s &= (unsigned char)~(TS_ALL | TS_DEM);
    }
    if (z->band_used)
        z->band_used[ty] = 0;
    if (!any)
        return;
    size_t c0 = tile_base(t, 0, (int)ty), c1 = tile_base(t, 0, (int)ty + 1);
    drop_cells(t->cost->f32, sizeof(float), c0, c1);
    drop_cells(t->dem->f32, sizeof(float), c0, c1);
    drop_cells(t->slope->f32, sizeof(float), c0, c1);
    drop_cells(t->speed->f32, sizeof(float), c0, c1);
    if (t->aniso) {
        drop_cells(t->aniso->grad, 2 * sizeof(float), c0, c1);
        drop_cells(t->aniso->pair, sizeof(uint16_t), c0, c1);
    }
}

/* Tile row ty let go whole (prm.h prm_terrain_class_cap): its layers as
 * release_band, then its class and gonogo zeroed (clear_cells: the pages
 * given back) and its tiles marked unread, so the next look reads them
 * again. */
static void release_class(const prm_terrain *t, long ty)
{
    prm_lazy *z = t->lazy;
    release_band(t, ty);
    for (int tx = 0; tx < z->ntx; tx++) {
        z->state[(size_t)ty * z->ntx + tx] = 0;
        t->ready[(size_t)ty * z->ntx + tx] = 0;
    }
    z->class_used[ty] = 0;
    size_t c0 = tile_base(t, 0, (int)ty), c1 = tile_base(t, 0, (int)ty + 1);
    clear_cells(t->cls->u8, c0, c1);
    clear_cells(t->gonogo->u8, c0, c1);
}

/* ---- at most tile_cap tiles (prm_terrain_tile_cap) ------------------------------ */

/* Block k (tile-major) of an array of size-byte cells given back: its
 * whole pages, and those it shares with block k - 1 or k + 1 when that
 * block holds nothing (its state 0: it is read whole before any look). */
static void drop_block(const prm_terrain *t, void *base, size_t size, long k)
{
    const prm_lazy *z = t->lazy;
    if (!base)
        return;
    long nt = (long)z->ntx * z->nty;
    size_t page = (size_t)sysconf(_SC_PAGESIZE), cells = (size_t)PRM_TILE * PRM_TILE;
    uintptr_t a = (uintptr_t)base + (size_t)k * cells * size, b = a + cells * size;
    a = k > 0 && !z->state[k - 1] ? a / page * page : (a + page - 1) / page * page;
    b = k + 1 < nt && !z->state[k + 1] ? (b + page - 1) / page * page : b / page * page;
    if (b > a)
        (void)madvise((void *)a, b - a, MADV_DONTNEED);
}

/* ---- the spill file (prm_terrain_layers) ---------------------------------------- */

/* The arrays a tile holds when read with layers (prm_terrain_tile_bytes),
 * n of them: their bases and bytes a cell. */
static int held_arrays(const prm_terrain *t, int layers, void *base[8], size_t size[8])
{
    const prm_lazy *z = t->lazy;
    int n = 0, pace = t->aniso && (layers & PRM_LAYER_PACE);
    base[n] = t->cls->u8, size[n++] = 1;
    base[n] = t->gonogo->u8, size[n++] = 1;
    if (layers & PRM_LAYER_COST)
        base[n] = t->cost->f32, size[n++] = sizeof(float);
    if (layers & PRM_LAYER_SLOPE)
        base[n] = t->slope->f32, size[n++] = sizeof(float);
    if (layers & PRM_LAYER_SPEED)
        base[n] = t->speed->f32, size[n++] = sizeof(float);
    if (pace) {
        base[n] = t->aniso->grad, size[n++] = 2 * sizeof(float);
        base[n] = t->aniso->pair, size[n++] = sizeof(uint16_t);
    }
    if ((layers & PRM_LAYER_DEM) || (pace && !z->seams))
        base[n] = t->dem->f32, size[n++] = sizeof(float);
    return n;
}

/* Tile k's held layers to or from (out) the spill file, at k times a
 * tile's bytes; 1 when all moved. */
static int spill_move(const prm_terrain *t, long k, int out)
{
    prm_lazy *z = t->lazy;
    void *base[8];
    size_t size[8], cells = (size_t)PRM_TILE * PRM_TILE;
    int n = held_arrays(t, z->layers, base, size);
    off_t off = (off_t)k * (off_t)prm_terrain_tile_bytes(t, z->layers);
    for (int j = 0; j < n; j++) {
        size_t bytes = cells * size[j];
        if (!trv_fd_move(z->spill_fd, (unsigned char *)base[j] + (size_t)k * bytes, bytes, off, out))
            return 0;
        off += (off_t)bytes;
    }
    return 1;
}

/* Tile k, about to be let go while read in part, written to the spill
 * file once (its layers never change): a write that fails leaves it to
 * be read from the GeoTIFFs again. */
static void spill_out(const prm_terrain *t, long k)
{
    prm_lazy *z = t->lazy;
    if (!z->spilled || z->spilled[k] || (z->state[k] & (TS_ALL | TS_PART)) != (TS_ALL | TS_PART) || z->st)
        return;
    z->spilled[k] = (unsigned char)spill_move(t, k, 1);
}

/* Tile k read back from the spill file: its held layers, the tile read
 * (1); 0 when it is not there or cannot be read (then from the GeoTIFFs). */
static int spill_in(const prm_terrain *t, long k)
{
    prm_lazy *z = t->lazy;
    if (!z->spilled || !z->spilled[k])
        return 0;
    if (!spill_move(t, k, 0))
        return z->spilled[k] = 0;
    void *base[8];
    size_t size[8];
    int n = held_arrays(t, z->layers, base, size);
    z->state[k] = TS_CLASS | TS_ALL | TS_PART | (base[n - 1] == t->dem->f32 ? TS_DEM : 0); /* the dem last, held */
    t->ready[k] = PRM_HAVE_CLASS | PRM_HAVE_ALL;
    z->spill_reads++;
    return 1;
}

/* The spill file made (unlinked at once) in dir ("": $TMPDIR, else
 * /tmp); none when it cannot be (the tiles read again instead). */
static void spill_open(prm_lazy *z, const char *dir)
{
    long nt = (long)z->ntx * z->nty;
    if (!(z->spilled = calloc((size_t)nt, 1)))
        return;
    if ((z->spill_fd = trv_temp_fd(dir, "trv-tiles")) < 0) {
        free(z->spilled);
        z->spilled = NULL;
    }
}

static void spill_close(prm_lazy *z)
{
    if (z->spill_fd >= 0)
        close(z->spill_fd);
    free(z->spilled);
    z->spill_fd = -1, z->spilled = NULL;
}

/* Tile k let go whole: every layer's block given back (drop_block), class
 * and gonogo zeroed, the tile unread. */
static void release_tile(const prm_terrain *t, long k)
{
    prm_lazy *z = t->lazy;
    size_t c0 = (size_t)k * PRM_TILE * PRM_TILE, c1 = c0 + (size_t)PRM_TILE * PRM_TILE;
    spill_out(t, k);
    z->state[k] = 0;
    t->ready[k] = 0;
    clear_cells(t->cls->u8, c0, c1);
    clear_cells(t->gonogo->u8, c0, c1);
    drop_block(t, t->cls->u8, 1, k);
    drop_block(t, t->gonogo->u8, 1, k);
    drop_block(t, t->cost->f32, sizeof(float), k);
    drop_block(t, t->dem->f32, sizeof(float), k);
    drop_block(t, t->slope->f32, sizeof(float), k);
    drop_block(t, t->speed->f32, sizeof(float), k);
    if (t->aniso) {
        drop_block(t, t->aniso->grad, 2 * sizeof(float), k);
        drop_block(t, t->aniso->pair, sizeof(uint16_t), k);
    }
}

/* Tile k held and the most recent; the least recent let go first when
 * tile_cap are held. */
static void tile_use(const prm_terrain *t, long k)
{
    prm_lazy *z = t->lazy;
    if (z->held.head == k)
        return;
    if (z->held.prev[k] != PRM_LRU_OUT) {
        prm_lru_unlink(&z->held, (int32_t)k);
    } else {
        if (z->tiles_held >= z->tile_cap && z->held.tail >= 0) {
            long old = z->held.tail;
            prm_lru_unlink(&z->held, (int32_t)old);
            release_tile(t, old);
            z->tiles_held--;
        }
        z->tiles_held++;
    }
    prm_lru_front(&z->held, (int32_t)k);
}

/* Without the seams a tile's gradients read its neighbours' dem: that of
 * the neighbours not held is let go again (read again when wanted). */
static void dem_let_go(const prm_terrain *t, int tx, int ty)
{
    prm_lazy *z = t->lazy;
    for (int y = ty - 1; y <= ty + 1; y++)
        for (int x = tx - 1; x <= tx + 1; x++) {
            if (x < 0 || y < 0 || x >= z->ntx || y >= z->nty)
                continue;
            long k = (long)y * z->ntx + x;
            if (z->held.prev[k] != PRM_LRU_OUT || z->state[k] != TS_DEM)
                continue;
            z->state[k] = 0;
            drop_block(t, t->dem->f32, sizeof(float), k);
        }
}

trv_status prm_terrain_tile_cap(trv_ctx *ctx, const prm_terrain *t, int ntiles)
{
    prm_lazy *z = t->lazy;
    if (!z || !t->ready)
        return TRV_OK;
    long nt = (long)z->ntx * z->nty;
    if (ntiles <= 0 && !z->held.prev)
        return TRV_OK;
    if (!z->held.prev) {
        if (!(z->held.prev = malloc((size_t)nt * sizeof *z->held.prev)) ||
            !(z->held.next = malloc((size_t)nt * sizeof *z->held.next)))
            return trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
        for (long k = 0; k < nt; k++)
            z->held.prev[k] = z->held.next[k] = PRM_LRU_OUT;
        z->held.head = z->held.tail = -1;
    }
    if (ntiles <= 0) { /* lifted: the tiles held stay */
        for (long k = 0; k < nt; k++)
            z->held.prev[k] = z->held.next[k] = PRM_LRU_OUT;
        z->held.head = z->held.tail = -1;
        z->tiles_held = z->tile_cap = 0;
        return TRV_OK;
    }
    z->tile_cap = ntiles;
    for (long k = 0; k < nt; k++) /* the tiles read before: held, the oldest let go beyond the cap */
        if (z->state[k] && z->held.prev[k] == PRM_LRU_OUT)
            tile_use(t, k);
    return TRV_OK;
}

/* Tile k, read whole, held with z->layers alone: the others' blocks
 * given back (drop_block; the dem's kept where the gradients' neighbours
 * read it, prm_terrain_tile_bytes). */
static void trim_tile(const prm_terrain *t, long k)
{
    prm_lazy *z = t->lazy;
    int keep = z->layers, pace = t->aniso && (keep & PRM_LAYER_PACE);
    z->state[k] |= TS_PART;
    if (!(keep & PRM_LAYER_COST))
        drop_block(t, t->cost->f32, sizeof(float), k);
    if (!(keep & PRM_LAYER_SLOPE))
        drop_block(t, t->slope->f32, sizeof(float), k);
    if (!(keep & PRM_LAYER_SPEED))
        drop_block(t, t->speed->f32, sizeof(float), k);
    if (!(keep & PRM_LAYER_DEM) && !(pace && !z->seams)) {
        drop_block(t, t->dem->f32, sizeof(float), k);
        z->state[k] &= (unsigned char)~TS_DEM;
    }
    if (t->aniso && !pace) {
        drop_block(t, t->aniso->grad, 2 * sizeof(float), k);
        drop_block(t, t->aniso->pair, sizeof(uint16_t), k);
    }
}

void prm_terrain_layers(const prm_terrain *t, int layers, const char *spill)
{
    prm_lazy *z = t->lazy;
    if (!z || !t->ready)
        return;
    spill_close(z); /* its tiles hold the layers before */
    z->layers = layers & PRM_LAYERS_ALL;
    if (spill && z->layers != PRM_LAYERS_ALL)
        spill_open(z, spill);
    long nt = (long)z->ntx * z->nty;
    for (long k = 0; k < nt; k++) {
        if (z->layers != PRM_LAYERS_ALL && (z->state[k] & TS_ALL) && !(z->state[k] & TS_PART))
            trim_tile(t, k); /* read whole before: held as if read now */
        else if (z->layers == PRM_LAYERS_ALL && (z->state[k] & TS_PART)) { /* read in part: unread beyond the class */
            z->state[k] &= (unsigned char)~(TS_ALL | TS_PART);
            t->ready[k] &= (unsigned char)~PRM_HAVE_ALL;
        }
    }
}

long prm_terrain_tile_bytes(const prm_terrain *t, int layers)
{
    if (!t->lazy || !t->ready)
        return 0;
    void *base[8];
    size_t size[8], cell = 0;
    int n = held_arrays(t, layers, base, size);
    for (int j = 0; j < n; j++)
        cell += size[j];
    return (long)cell * PRM_TILE * PRM_TILE;
}

void prm_terrain_spill_reads(const prm_terrain *t, long *reads)
{
    *reads = t->lazy ? t->lazy->spill_reads : 0;
}

void prm_terrain_hold(const prm_terrain *t, long tx, long ty)
{
    prm_lazy *z = t->lazy;
    if (!z || !t->ready)
        return;
    long k = ty * z->ntx + tx;
    if (!(z->state[k] & TS_ALL))
        fill_tile(t, (int)tx, (int)ty, PRM_HAVE_ALL);
    else if (z->tile_cap)
        tile_use(t, k);
}

void prm_terrain_release_above(const prm_terrain *t, long r)
{
    prm_lazy *z = t->lazy;
    if (!z || !t->ready || z->st)
        return;
    for (long ty = 0; (ty + 1) * PRM_TILE <= r && ty < z->nty; ty++)
        release_band(t, ty);
}

trv_status prm_terrain_band_cap(trv_ctx *ctx, prm_terrain *t, size_t bytes)
{
    prm_lazy *z = t->lazy;
    if (!z || !t->ready)
        return TRV_OK;
    size_t band = (size_t)PRM_TILE * t->grid->nx * 30; /* 4 floats, gradient, pair (and two bytes to spare) */
    long cap = (long)(bytes / band);
    if (!z->band_used && !(z->band_used = calloc((size_t)z->nty, sizeof *z->band_used)))
        return trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
    z->band_cap = (int)(cap < 2 ? 2 : cap > z->nty ? z->nty : cap);
    return TRV_OK;
}

trv_status prm_terrain_class_cap(trv_ctx *ctx, prm_terrain *t, size_t bytes)
{
    prm_lazy *z = t->lazy;
    if (!z || !t->ready)
        return TRV_OK;
    size_t band = (size_t)PRM_TILE * t->grid->nx * 3; /* class, gonogo (and a byte to spare) */
    long cap = (long)(bytes / band);
    if (!z->class_used && !(z->class_used = calloc((size_t)z->nty, sizeof *z->class_used)))
        return trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
    z->class_cap = (int)(cap < 2 ? 2 : cap > z->nty ? z->nty : cap);
    return TRV_OK;
}

/* ---- the facts ------------------------------------------------------------------- */

trv_status prm_terrain_facts_of(trv_ctx *ctx, const prm_terrain *t, prm_terrain_facts *f)
{
    memset(f, 0, sizeof *f);
    if (t->lazy)
        return trv_error(ctx, TRV_ERR_INTERNAL, "the facts of a lazy terrain");
    f->top_speed_kmh = t->top_speed_kmh;
    f->direction_aware = t->aniso != NULL;
    trv_status st = prm_class_runs(ctx, t, f);
    if (st || !t->aniso)
        return st;
    const prm_aniso *a = t->aniso;
    size_t np = (size_t)a->npairs;
    f->tmax = a->tmax;
    f->npairs = a->npairs;
    if (!(f->codes = malloc(2 * np + 1)) || !(f->pace = malloc(np * (PRM_PACE_NODES + 1) * sizeof *f->pace + 1)) ||
        !(f->ok = malloc(np * PRM_PACE_NODES + 1))) {
        prm_terrain_facts_clear(f);
        return trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
    }
    memcpy(f->codes, a->codes, 2 * np);
    memcpy(f->pace, a->pace, np * (PRM_PACE_NODES + 1) * sizeof *f->pace);
    memcpy(f->ok, a->ok, np * PRM_PACE_NODES);
    int nx = t->grid->nx, ny = t->grid->ny;
    if (!(f->seams = malloc(prm_seams_count(nx, ny) * sizeof *f->seams + 1))) {
        prm_terrain_facts_clear(f);
        return trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
    }
    f->seam_nx = nx, f->seam_ny = ny;
    float *o = f->seams;
    for (int r = PRM_TILE - 1; r + 1 < ny; r += PRM_TILE, o += 2 * (size_t)nx)
        memcpy(o, t->dem->f32 + (size_t)r * nx, 2 * (size_t)nx * sizeof *o);
    for (int c = PRM_TILE - 1; c + 1 < nx; c += PRM_TILE)
        for (int k = 0; k < 2; k++)
            for (int r = 0; r < ny; r++)
                *o++ = t->dem->f32[(size_t)r * nx + c + k];
    return TRV_OK;
}

size_t prm_seams_count(int nx, int ny)
{
    size_t down = ((size_t)ny + PRM_TILE - 1) / PRM_TILE, across = ((size_t)nx + PRM_TILE - 1) / PRM_TILE;
    return 2 * (down - 1) * (size_t)nx + 2 * (across - 1) * (size_t)ny;
}

void prm_terrain_facts_clear(prm_terrain_facts *f)
{
    free(f->codes);
    free(f->pace);
    free(f->ok);
    if (f->seam_map)
        munmap(f->seam_map, f->seam_map_len);
    else
        free(f->seams);
    if (f->runs_map)
        munmap(f->runs_map, f->runs_map_len);
    else
        free(f->run_code), free(f->run_len);
    if (f->map)
        munmap(f->map, f->map_len);
    memset(f, 0, sizeof *f);
}
