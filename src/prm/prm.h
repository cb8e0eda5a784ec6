/*
 * prm.h — roadmap and routes (docs/method.md §4): Latin-hypercube sampling of
 * the GO area, a probabilistic roadmap whose edges cross no NOGO cell,
 * the paper's improved A* and its baselines, the same objectives solved on
 * the raster itself (16-connected) as the optimality reference, clamped
 * cubic B-spline smoothing that never enters NOGO, route statistics.
 *
 * Terrain: the layers of one grid made by the earlier stages: class.tif
 * (0 NOGO, 1 high-risk, 2 low-risk, 3 safe), cost.tif (mobility cost in
 * [0, 1]), gonogo.tif (0 GO), dem.tif (m), slope.tif (deg), speed.tif
 * (km/h). A cell is GO when gonogo is 0 and class is not 0.
 *
 * Costs of a straight piece of path (edge or move), from the exact cells
 * it crosses with the length inside each (docs/method.md §4.3; lengths in m):
 *   d = length; l, h, s = length in low-risk, high-risk, safe cells;
 *   slope integral = sum len x slope (deg m); time = sum len x pace (s),
 *   in the direction of travel (the reverse direction in time_rev_s).
 *
 * Pace (s per metre of map length) of GO cell c heading along the unit
 * vector u (east, north):
 *   direction-aware (the run directory holds trv-speed's copies of the
 *   speed model, tm_run_model_load): 1 / tm_speed_at(soil_c, landuse_c,
 *   atan(grad_c . u)), grad_c = (dz/dE, dz/dN) from Horn's differences of
 *   dem.tif (the same as slope.tif's, so |grade| <= tan slope_c, with
 *   equality up and down the fall line); tabulated per (soil, land use)
 *   pair over the grade (prm_priv.h; within 1e-4 of tm_speed_at, tested);
 *   infinite where the speed that way is 0 (NOGO this way);
 *   isotropic (no copies: older run directories, or a hand-made terrain
 *   with no model): 3.6 / speed.tif, either way.
 * Objectives (edge weight; heuristic toward the goal along the straight
 * segment):
 *   mmcr: kb l + kh h + ks s + kd d;  kb w + kd d + ks s (the paper's, not
 *         admissible; w = length in NOGO, low- or high-risk cells), or
 *         kd d with admissible
 *   mdr:  d;  d
 *   msr:  the slope integral + 1e-3 d (ties to the shorter);  1e-3 d
 *   time: time in the direction of travel;  d / (the highest speed any GO
 *         cell allows in any heading: top_speed_kmh)
 *
 * Ownership: _load/_build/_new return objects freed by the matching
 * _free/_clear (NULL accepted). Functions taking a prm_terrain borrow it.
 */
#ifndef PRM_H
#define PRM_H

#include "geo/geo.h"
#include "terramech/terramech.h"

/* ---- terrain ---------------------------------------------------------------- */

typedef struct prm_aniso prm_aniso; /* the direction-aware pace (pace.c, prm_priv.h) */

typedef struct prm_terrain {
    geo_raster *cls, *cost, *gonogo, *dem, *slope, *speed;
    const geo_grid *grid;   /* cls's grid; every layer shares it */
    double top_speed_kmh;   /* the highest speed any GO cell allows in any heading */
    double cell_m;          /* cell size (m) */
    prm_aniso *aniso;       /* NULL: isotropic times from speed.tif */
    char time_note[512];    /* why the times are isotropic ("" when direction-aware or
                             * a hand-made terrain): for the tools' stderr and summaries */
    unsigned char *ready;   /* lazy (prm_terrain_open): per tile, what is read (terrain_lazy.c;
                             * prm_priv.h prm_ready); NULL: everything (prm_terrain_load, a
                             * hand-made terrain, the cache's mapped layers) */
    int tile_ntx;           /* 0: the layers (and the pace's gradients and pairs) are row-major,
                             * cell i = y nx + x at [i]; else tile-major (a lazy terrain): tile
                             * (tx, ty) = (x / PRM_TILE, y / PRM_TILE) is the (ty tile_ntx +
                             * tx)-th block of PRM_TILE^2 cells, row-major within (prm_priv.h
                             * prm_at): a tile's pages are its own */
    struct prm_lazy *lazy;  /* lazy: the open layers; NULL otherwise */
    const struct geo_zones *zones; /* NULL, or the query's zones (zones.h; borrowed): every piece and move obeys them */
    const struct prm_zone_edges *zone_edges; /* NULL, or the query's roadmap edge mask under the zones
                                              * (prm_zone_edges_get, zones.h) */
} prm_terrain;

/* Read class, cost, gonogo, dem, slope and speed of the run directory dir
 * (run_load, run/run.h: one grid, errors naming the file), then the speed
 * model (prm_terrain_model_load). */
trv_status prm_terrain_load(trv_ctx *ctx, const char *dir, prm_terrain *t);
/* The direction-aware pace from the run directory's copies of the speed
 * model (tm_run_model_load) with its soil.tif and land-use.tif. Without
 * the vehicle's copy (a run directory of an older trv-speed; the class
 * tables alone may be there for trv-sim's vehicles) the times stay
 * isotropic and time_note says so; the vehicle's copy without a class
 * table, a GO cell whose codes the model does not know, or a speed.tif
 * that tm_row with the model does not reproduce (every 97th GO cell,
 * 1e-5 relative) is an error saying to run trv-speed again. */
trv_status prm_terrain_model_load(trv_ctx *ctx, prm_terrain *t, const char *dir);
/* The same from a model the caller keeps (borrowed until prm_terrain_clear)
 * and soil and land-use layers on the terrain's grid (read only here).
 * Sets top_speed_kmh to the highest speed any GO cell allows in any
 * heading within the terrain's steepest grade: per (soil, land use) pair
 * the smallest of the top, ride and vegetation limits, the power limit at
 * the steepest downhill grade and the braking limit at the steepest uphill
 * one (power falls, braking rises with the grade). */
trv_status prm_terrain_set_model(trv_ctx *ctx, prm_terrain *t, const tm_model *m, const geo_raster *soil,
                                 const geo_raster *landuse);
void prm_terrain_clear(prm_terrain *t);
/* ---- lazy terrain (terrain_lazy.c): read only what a query needs ----------------
 *
 * prm_terrain_open opens the same layers as prm_terrain_load (the same
 * errors naming a missing file or a grid that differs, the same CRS
 * check) and the speed model's copies, but reads no cell: the layers are
 * calloc'ed whole (pages never read cost nothing) and filled a tile
 * (PRM_TILE x PRM_TILE cells, aligned to the grid's origin: the GeoTIFFs'
 * blocks) at a time, every layer of a tile at once, with the direction-
 * aware pace's per-cell data (gradient: dem one cell around; pair: soil
 * and land use) for it. A tile's cells are exactly what prm_terrain_load
 * gives them, so every result is the same.
 * Who reads what: prm_cell_go, prm_piece_add_cell, prm_pace and the
 * segment measures fill the tile of the cell they look at themselves; a
 * search that reads the arrays directly (prm_route_grid, regions) needs
 * prm_terrain_need / _need_all first.
 * What needs every cell, prm_terrain_load computes and prm_terrain_open
 * takes from facts instead: top_speed_kmh, and the pace table (its range,
 * the steepest GO gradient, and (soil, land use) pairs); the checks that
 * need every cell (a layer holding only nodata, a GO cell with codes the
 * model does not know, speed.tif made by another model) are not made:
 * facts must come from prm_terrain_load of the same files (the roadmap
 * cache, prm_roadmap_cache_read, makes sure of that).
 * With the cache's mapped layers in the facts (prm_terrain_facts.layers),
 * no tile is read at all: the six layers' arrays and the pace's gradients
 * and pairs are the mapping itself (t->ready NULL, as a terrain read
 * whole), and the system reads the pages a query touches.
 * Layout: a lazy terrain's arrays are tile-major (t->tile_ntx), each tile
 * PRM_TILE^2 cells (the last column's and row's padded), so a tile read
 * touches its own pages alone (row-major, a 256-column tile's row took a
 * page of each layer to itself: about 5x the bytes at 1 m); every reader
 * takes a cell's place from prm_at. The mapped layers stay row-major. */
enum { PRM_TILE = 256 };

typedef struct prm_terrain_facts {
    double top_speed_kmh;   /* prm_terrain_load's */
    int direction_aware;    /* 1: it had the speed model (t->aniso) */
    double tmax;            /* the pace table's range (steepest GO gradient, m/m) */
    int npairs;             /* the (soil, land use) pairs of the GO cells */
    unsigned char *codes;   /* 2 npairs: soil, land use (malloc'ed) */
    double *pace;           /* the pace table computed from them (prm_priv.h; malloc'ed) */
    unsigned char *ok;
    /* direction-aware: dem's cells on both sides of every tile boundary
     * (prm_seams_count), so that a lazy terrain's gradients along a tile's
     * edge need no neighbouring tile's dem; NULL: prm_terrain_open reads
     * the neighbours' dem instead (the same values) */
    int seam_nx, seam_ny;   /* the grid they were taken from */
    float *seams;           /* (malloc'ed, or in seam_map) */
    /* the roadmap cache's seams (prm_roadmap_cache_read) are not read:
     * seams and seam_hash point into seam_map, a read-only mapping of the
     * file that prm_terrain_open takes; a lazy tile checks the pieces it
     * reads against their hashes (prm_seams_check) when it reads them, so a
     * query reads the seams of its tiles alone. NULL: seams malloc'ed */
    const uint64_t *seam_hash; /* one per piece (prm_seams_pieces) */
    void *seam_map;
    size_t seam_map_len;
    /* the mmcr heuristic's class codes (prm_priv.h: prm_class_codes) of
     * every cell, row-major, run-length coded: run_code[k] run_len[k]
     * (1 .. 65535) times, ncells in all; a lazy terrain expands them
     * instead of reading every tile's class and GO layers (nruns 0: it
     * reads them) */
    size_t ncells, nruns;
    unsigned char *run_code; /* (malloc'ed, or in runs_map) */
    unsigned short *run_len; /* (malloc'ed, or in runs_map) */
    /* the roadmap cache's runs (prm_roadmap_cache_read) are not read:
     * run_code and run_len point into runs_map, a read-only mapping that
     * prm_terrain_open takes; their hash and lengths are checked when the
     * codes are first expanded (prm_lazy_codes: the mmcr heuristic, the
     * zones), so a query that needs no codes reads none. NULL: malloc'ed */
    uint64_t runs_hash;      /* prm_class_runs_hash's, with runs_map */
    void *runs_map;
    size_t runs_map_len;
    /* the roadmap cache's layers (cache_layers.c, prm_priv.h), mapped:
     * class, gonogo, cost, dem, slope, speed and, direction-aware, the
     * pace's gradients and pairs, each whole as prm_terrain_load has it in
     * memory; prm_terrain_open uses them in place (no tile read, no copy:
     * the pages a query touches are read). NULL: it reads the GeoTIFFs'
     * tiles instead (the same values) */
    const unsigned char *layers;
    int layers_nx, layers_ny, layers_n;
    void *map;              /* the mapping (prm_terrain_facts_clear unmaps it; prm_terrain_open takes it) */
    size_t map_len;
} prm_terrain_facts;

/* The seams of an nx x ny grid: for each boundary between tile rows
 * (rows k PRM_TILE - 1 and k PRM_TILE, k = 1 .. tiles down - 1) those two
 * rows, nx cells each, then for each boundary between tile columns those
 * two columns, ny cells each, top to bottom. */
size_t prm_seams_count(int nx, int ny);
/* The seams' pieces (seams.c): each line of prm_seams_count's layout cut
 * at the tiles' edges, PRM_TILE cells (the last of a line ragged), the
 * row boundaries' lines first, each line's pieces in order: a tile's
 * gradients read the pieces beside it alone (prm_seams_check). */
size_t prm_seams_pieces(int nx, int ny);
/* FNV-1a over 64-bit words, the tail bytes one by one (the roadmap
 * cache's hashes; h starts at PRM_FNV_SEED). */
#define PRM_FNV_SEED 0xcbf29ce484222325ULL
uint64_t prm_hash_bytes(uint64_t h, const void *p, size_t n);
/* The hash of each piece of seams, into hash (prm_seams_pieces of them). */
void prm_seams_hash(const float *seams, int nx, int ny, uint64_t *hash);
/* The pieces tile (tx, ty)'s gradients read (the lines above and below it
 * over its columns and one more either side, the lines left and right of
 * it over its rows) against their hashes: 0, or -1 when one differs. */
int prm_seams_check(const float *seams, const uint64_t *hash, int nx, int ny, int tx, int ty);

/* The facts of a terrain from prm_terrain_load (not a lazy one). */
trv_status prm_terrain_facts_of(trv_ctx *ctx, const prm_terrain *t, prm_terrain_facts *f);
void prm_terrain_facts_clear(prm_terrain_facts *f);
/* Open dir lazily (above); prm_terrain_clear closes it. A direction_aware
 * that does not match the run directory (its vehicle copy gone or come) is
 * TRV_ERR_DATA; mapped layers of another grid, TRV_ERR_DATA. t takes f's
 * mapped layers (f->map NULL after) and reads no tile. */
trv_status prm_terrain_open(trv_ctx *ctx, const char *dir, prm_terrain_facts *f, prm_terrain *t);
/* Read every tile holding a cell of columns c0..c1, rows r0..r1 (clamped
 * to the grid); the error of any tile read so far (prm_terrain_status).
 * TRV_OK at once for a terrain read whole. */
trv_status prm_terrain_need(trv_ctx *ctx, const prm_terrain *t, long c0, long r0, long c1, long r1);
trv_status prm_terrain_need_all(trv_ctx *ctx, const prm_terrain *t);
/* Every tile within halo cells of the polyline (x, y)[0..n) (map
 * coordinates). */
trv_status prm_terrain_need_line(trv_ctx *ctx, const prm_terrain *t, const double *x, const double *y, int n,
                                 int halo);
/* The first error met reading a tile (a file that became unreadable after
 * it was opened): its tile reads as NOGO meanwhile, so nothing is planned
 * through it, and whoever plans reports it before writing a result. */
trv_status prm_terrain_status(trv_ctx *ctx, const prm_terrain *t);
/* Tiles read so far and the grid's tiles (a lazy terrain; 0 and 0 else). */
void prm_terrain_tiles(const prm_terrain *t, long *read, long *total);
/* A lazy terrain's memory of every tile row wholly above row r let go
 * (rows 0 .. r - 1; a no-op for a terrain read whole or mapped): all but
 * class and gonogo, whose tiles stay read; the pages of the other layers
 * (cost, dem, slope, speed, the pace's gradients and pairs, soil and land
 * use) given back to the system (madvise), the tiles marked unread, so a
 * later look reads them again (the same values). For a pass that moves
 * down the grid (the roadmap's edge measures in the order of their first
 * row). */
void prm_terrain_release_above(const prm_terrain *t, long r);
/* From now on hold at most bytes of a lazy terrain's layers beyond class
 * and gonogo (about 30 a cell; at least two tile rows): filling a tile of
 * a tile row not held lets go of the row filled least recently (as
 * prm_terrain_release_above). Only for callers that read the layers
 * through prm_need's users (the measures, prm_pace, prm_cell_go), never
 * the arrays directly after prm_terrain_need. TRV_OK at once for a
 * terrain read whole or mapped. */
trv_status prm_terrain_band_cap(trv_ctx *ctx, prm_terrain *t, size_t bytes);
/* From now on hold the layers (all of them, class and gonogo included) of
 * at most ntiles of a lazy terrain's tiles (the tiles read before
 * included): filling a tile when ntiles are held lets go of the one held
 * (filled or passed to prm_terrain_hold) least recently, its pages given
 * back and the tile marked unread, so the next look reads it again (the
 * same values). ntiles 0 lifts the cap (the tiles held stay). For the
 * paged raster search (grid.c), which holds the tiles it reads before it
 * reads them. TRV_OK at once for a terrain read whole or mapped. */
trv_status prm_terrain_tile_cap(trv_ctx *ctx, const prm_terrain *t, int ntiles);
/* What a lazy terrain's tile read fills besides class and gonogo (read
 * always): cost, dem, slope, speed, and the direction-aware pace's
 * gradients and pairs (from dem, soil and land use: a dem read for them
 * alone is let go again when the facts give the seams). */
enum { PRM_LAYER_COST = 1, PRM_LAYER_DEM = 2, PRM_LAYER_SLOPE = 4, PRM_LAYER_SPEED = 8, PRM_LAYER_PACE = 16,
       PRM_LAYERS_ALL = 31 };
/* From now on a lazy terrain's tile read fills only layers (PRM_LAYER_*;
 * a no-op for a terrain read whole or mapped): the other layers of the
 * tiles read from now on are left unread (their cells read as 0: only for
 * callers whose results do not depend on them, such as the paged raster
 * search, prm_grid_layers), those of the tiles read before given back.
 * With spill (a directory; "": $TMPDIR, else /tmp) and layers short of
 * PRM_LAYERS_ALL, a tile let go under prm_terrain_tile_cap is first
 * written (once: the layers never change) to an unlinked file there, its
 * held layers uncompressed (prm_terrain_tile_bytes), and read back from
 * it when wanted again instead of from the GeoTIFFs (a failed write or
 * read falls back to the GeoTIFFs: the same values). PRM_LAYERS_ALL (the
 * default) lifts it, the file closed: the tiles read in part are marked
 * unread beyond their class (the next look reads them whole, the same
 * values). */
void prm_terrain_layers(const prm_terrain *t, int layers, const char *spill);
/* The tiles a lazy terrain read back from its spill files so far. */
void prm_terrain_spill_reads(const prm_terrain *t, long *reads);
/* The bytes a tile of a lazy terrain holds when read with layers (0 for a
 * terrain read whole or mapped): PRM_TILE^2 cells of class and gonogo (1
 * byte each), cost, slope, speed (4 each, where asked), the pace's
 * gradient and pair (8 + 2; direction-aware only) with the dem (4) it is
 * made from where there are no seams, or the dem where asked (4). */
long prm_terrain_tile_bytes(const prm_terrain *t, int layers);
/* Tile (tx, ty) of a lazy terrain read whole (as prm_terrain_need) and,
 * under prm_terrain_tile_cap, the most recently held; a no-op else. */
void prm_terrain_hold(const prm_terrain *t, long tx, long ty);
/* From now on hold the class, gonogo and ready (3 bytes a cell) of at
 * most bytes' worth of a lazy terrain's tile rows (at least two):
 * reading the class of a tile in a tile row not held lets go of the row
 * whose class was read least recently, whole (its other layers as above,
 * then class, gonogo and ready: pages given back, its tiles read again
 * at the next look, the same values). The same callers as
 * prm_terrain_band_cap's: through prm_cell_go, prm_need's users, never
 * the arrays directly (nor prm_class_codes without the facts' runs). */
trv_status prm_terrain_class_cap(trv_ctx *ctx, prm_terrain *t, size_t bytes);

/* Pace (s per metre of map length) of GO cell i heading along the unit
 * vector (ux, uy) (east, north); INFINITY where the speed that way is 0. */
double prm_pace(const prm_terrain *t, long i, double ux, double uy);
/* The speed limit that binds in GO cell i heading (ux, uy): tm_speed_at's
 * limit (tm_limit code: limit.tif's) for the cell's soil and land use at
 * the grade along the heading, the grade prm_pace uses; -1 when the times
 * are isotropic (no model). */
int prm_limit_at(const prm_terrain *t, long i, double ux, double uy);
/* 1 if cell i (row-major index) is GO. */
int prm_cell_go(const prm_terrain *t, long i);
/* Cell index of map point (x, y), or -1 off the grid. */
long prm_cell_at(const prm_terrain *t, double x, double y);

/* ---- GO regions (regions.c) -------------------------------------------------- */

/* The map's 4-connected GO regions (prm_cell_go): a route exists between
 * two points only inside one region, since a move never touches NOGO,
 * corners included. label[i] is cell i's region, 1..n, 0 for NOGO;
 * size[k] its cell count (size[0] = 0). */
typedef struct prm_regions {
    int *label;
    long *size;
    int n;
} prm_regions;

trv_status prm_regions_label(trv_ctx *ctx, const prm_terrain *t, prm_regions *out);
void prm_regions_clear(prm_regions *r);
/* The region of the cell holding map point (x, y); 0 off the grid or NOGO. */
int prm_regions_at(const prm_terrain *t, const prm_regions *r, double x, double y);
/* The centre of region's cell nearest to (x, y) (ties: the first in row
 * order) into *nx, *ny; 0 if the region has no cell. */
int prm_regions_nearest(const prm_terrain *t, const prm_regions *r, int region, double x, double y, double *nx,
                        double *ny);

/* ---- exact segment traversal ----------------------------------------------- */

/* Called for each cell the segment crosses, in order, with the length of
 * the segment inside it (m). A segment through a cell corner also visits,
 * with length 0, the two cells that meet there diagonally, so that a NOGO
 * check cannot slip through a corner. Return non-zero to stop. */
typedef int (*prm_cell_fn)(long cell, double len, void *user);
/* Walk the segment (x0, y0)-(x1, y1) (map coordinates) through the cells
 * of g (Amanatides-Woo). Parts off the grid are skipped. Returns 1 if fn
 * stopped the walk, else 0. */
int prm_segment_walk(const geo_grid *g, double x0, double y0, double x1, double y1, prm_cell_fn fn, void *user);

/* Everything the objectives need about one straight piece. */
typedef struct prm_piece {
    double d, l, h, s;      /* m */
    double nogo;            /* m in NOGO (a piece with nogo > 0, or touching a NOGO corner, is blocked) */
    int blocked;
    double slope_int;       /* deg m */
    double slope_max;       /* deg */
    double time_s;          /* s from (x0, y0) to (x1, y1); INFINITY through a cell with speed 0 that way */
    double time_rev_s;      /* s from (x1, y1) to (x0, y0) */
    double cost_int;        /* mobility cost x m */
    double elev_int;        /* m x m */
} prm_piece;

void prm_piece_measure(const prm_terrain *t, double x0, double y0, double x1, double y1, prm_piece *out);
/* d, l, h, s, nogo and blocked alone, exactly as prm_piece_measure gives
 * them (the rest 0): reads class and gonogo only (a lazy terrain's
 * cheapest layers), for the blocked test of the direct start-goal line
 * (the mmcr heuristic walks prm_class_codes instead, prm_priv.h). */
void prm_piece_measure_classes(const prm_terrain *t, double x0, double y0, double x1, double y1, prm_piece *out);

/* ---- Latin hypercube sampling --------------------------------------------------- */

/* n points over [x0, x1) x [y0, y1): each of the n rows and n columns of
 * the extent holds exactly one (a random permutation pairs them), placed
 * uniformly inside its stratum cell; seeded. xs, ys: n each. */
void prm_lhs(uint64_t seed, int n, double x0, double y0, double x1, double y1, double *xs, double *ys);

/* ---- roadmap -------------------------------------------------------------------- */

typedef struct prm_edge {
    int a, b;               /* node indices, a < b */
    prm_piece p;
} prm_edge;

typedef struct prm_roadmap {
    int nnodes, nedges;
    double *x, *y;          /* node coordinates (map CRS) */
    prm_edge *edges;
    int *adj_start, *adj;   /* CSR adjacency: edges of node i are adj[adj_start[i] .. adj_start[i+1]) */
    char *wkt;              /* CRS */
    uint64_t seed;
    int k;                  /* k-nearest (0 when radius was used) */
    double radius;          /* m (0 when k was used) */
    int *comp;              /* per node: a label of its component over every edge (the cache's), NULL: unknown */
    struct prm_roadmap_map *map; /* NULL: the arrays are the roadmap's own; else edges point into the cache's
                               mapping, renumbered by tile and checked tile by tile when first needed
                               (roadmap_pieces.h) */
} prm_roadmap;

/* A roadmap read from its cache (prm_roadmap_cache_read) has its edges
 * mapped, not read, in order of the square tile of their first end (each
 * node's adjacency, read whole, lists them in the GeoPackage's order): a
 * tile's edges are checked (its hash, their ends) when a search first
 * needs one of them, its pages asked of the disk at once (MADV_WILLNEED:
 * the mapping reads no more than that; every edge's at once for
 * prm_roadmap_need_all). These say TRV_ERR_DATA naming the cache when a tile
 * is damaged, TRV_OK at once for a roadmap that is not mapped.
 * prm_roadmap_need: the tiles of node u's edges;
 * prm_roadmap_need_all: every tile (a reader of the whole roadmap);
 * prm_roadmap_own: every tile, then the edges copied into the roadmap's
 * own in the GeoPackage's numbering, its adjacency rebuilt (a caller that
 * changes the roadmap or numbers its edges: the zones). */
trv_status prm_roadmap_need(trv_ctx *ctx, const prm_roadmap *r, int u);
trv_status prm_roadmap_need_all(trv_ctx *ctx, const prm_roadmap *r);
trv_status prm_roadmap_own(trv_ctx *ctx, prm_roadmap *r);

#define PRM_DETOUR_DEFAULT 1.5
typedef struct prm_build_opts {
    int nodes;              /* GO nodes wanted; 0: one per 0.02 km2 of GO area (about 140 m apart), within
                               [200, 100000]: dense enough to thread the narrow GO corridors of a
                               ridge-and-valley area (Jacksboro: least-time route within 5 % of the
                               raster optimum; at 0.05 km2 it was 2x longer) */
    int k;                  /* neighbours per node (default 14) */
    double radius;          /* > 0: connect within this radius instead of k nearest */
    uint64_t seed;          /* default 1 */
    int straight_only;      /* 1: the straight edges and their bridging pass alone (the paper's PRM), no raster
                               bridging (bridge.c): GO regions may stay split into components or hold no node */
    double detour;          /* the detour bridges' stretch rho (docs/method.md §4.4): a bridge also between two
                               nodes of one component whose flood areas touch when the roadmap's path between
                               them is more than rho times the bridge; 0 off; default PRM_DETOUR_DEFAULT; the
                               whole raster bridging only (not tile) */
    int tile;               /* the raster bridging's flood per tile of this many cells a side (tiled_bridge.c,
                               docs/scale.md): 0 automatic (whole up to 5e7 cells, tiles of 4096 above), 2..32768 */
    const char *blocks_dir; /* NULL, or the run directory the terrain was read from: when the build is tiled, its
                               GO area, LHS acceptance and coverage read class and gonogo there by row blocks
                               (tiled_nodes.c; the same nodes and numbers) */
} prm_build_opts;

void prm_build_opts_init(prm_build_opts *o);
/* At most 10^6 nodes (10x the automatic maximum): node and edge indices are
 * int, and the candidate edges (nodes x k, k <= 256, both directions) must
 * stay below 2^31 (10^6 x 256 x 2 = 5.1e8); memory (some 100 bytes per
 * candidate) is the practical limit long before. */
#define PRM_MAX_NODES 1000000
/* LHS samples drawn in one batch (16 bytes each): a sparse GO area needs
 * nodes / GO fraction samples, which is capped here and drawn over more
 * batches instead of overflowing an int. */
#define PRM_MAX_BATCH (1 << 24)
/* nodes in 0..PRM_MAX_NODES, k in 1..256, radius >= 0, as trv-roadmap reports them (the
 * message names its options); TRV_ERR_USAGE otherwise. prm_roadmap_build
 * checks them first. */
trv_status prm_build_opts_check(trv_ctx *ctx, const prm_build_opts *o);

typedef struct prm_build_stats {
    int samples;            /* LHS samples drawn */
    int rejected;           /* of them in NOGO */
    double go_area_km2;
    double coverage;        /* fraction of GO cells within one node spacing of a node */
    int components;         /* connected components of the roadmap */
    int largest;            /* nodes in the largest one */
    int components_straight;/* components after the straight edges, before the raster bridging */
    int regions;            /* 4-connected GO regions (prm_regions_label's count) */
    int regions_with_nodes; /* of them holding a sampled node */
    int region_nodes;       /* nodes added, one in each region without one (its first cell's centre) */
    int bridges;            /* raster bridges added between components */
    int bridge_nodes, bridge_edges; /* the nodes and edges they added */
    int bridge_failed;      /* bridges that could not be made straight (0 unless a bug) */
    double detour;          /* the detour bridges' stretch applied (0: none, as in a tiled build) */
    int detours;            /* detour bridges added inside components (detour.h) */
    int detour_nodes, detour_edges; /* the nodes and edges they added */
} prm_build_stats;

/* Nodes (LHS), straight edges to the k nearest (or within the radius)
 * that cross no NOGO cell, a pass over the 4k nearest between components,
 * then (unless straight_only) the raster bridges (docs/method.md §4.4):
 * every 4-connected GO region holds a node and is one component, so two
 * points of one region always have a roadmap route. */
trv_status prm_roadmap_build(trv_ctx *ctx, const prm_terrain *t, const prm_build_opts *o, prm_roadmap **out,
                             prm_build_stats *stats);
/* The terrain of run directory dir for a build with options o: read whole
 * (prm_terrain_load; f zeroed) unless the build is tiled (o->tile, or
 * above 5e7 cells: tiled.h); then f the facts by row blocks (tiled.h
 * prm_blocks_facts: the same values as prm_terrain_facts_of of the whole)
 * and t opened lazily on them (prm_terrain_open: a tile read when a
 * measure first looks at it), so that the cache is written from f
 * (prm_roadmap_cache_write_facts, without layers); its layers beyond
 * class and gonogo held within PRM_BUILD_BAND_BYTES (prm_terrain_band_cap),
 * class, gonogo and ready within PRM_BUILD_CLASS_BYTES
 * (prm_terrain_class_cap). Clear both after. */
/* The terrain as a query reads it without a usable roadmap cache: as
 * prm_roadmap_terrain, without the build's caps (whole, f zeroed; or
 * above 5e7 cells the facts by row blocks and t lazily on them, so that
 * a 10^9-cell terrain is not read whole). Clear both after. */
trv_status prm_terrain_read(trv_ctx *ctx, const char *dir, const prm_build_opts *o, prm_terrain *t,
                            prm_terrain_facts *f);
#define PRM_BUILD_BAND_BYTES ((size_t)256 << 20)
#define PRM_BUILD_CLASS_BYTES ((size_t)768 << 20)
trv_status prm_roadmap_terrain(trv_ctx *ctx, const char *dir, const prm_build_opts *o, prm_terrain *t,
                               prm_terrain_facts *f);
void prm_roadmap_free(prm_roadmap *r);
/* GeoPackage with layers `nodes` (id; spatial index) and `edges` (a, b,
 * d_m, low_m, high_m, safe_m, slope_mean_deg, slope_max_deg, time_fwd_s
 * (the time from a to b), time_rev_s (from b to a), cost_mean, slope_int,
 * elev_mean_m; no spatial index), in the terrain's
 * CRS, with meta's TRV_* items (seed included) as dataset metadata (meta
 * may be NULL). */
trv_status prm_roadmap_write(trv_ctx *ctx, const prm_roadmap *r, const char *path, const trv_meta *meta);
trv_status prm_roadmap_read(trv_ctx *ctx, const char *path, prm_roadmap **out);

/* The roadmap cache (roadmap_cache.c), the GeoPackage's path with ".bin"
 * for its extension (roadmap.gpkg -> roadmap.bin; malloc'ed): the roadmap
 * exactly as prm_roadmap_read gives it (with its adjacency, which
 * prm_roadmap_build and prm_roadmap_read make alike), the
 * GeoPackage's identity (its size and a hash of its first and last 64 KiB),
 * and the terrain it was built from: the identity of each file a route
 * reads (the six layers, soil, land use, the speed model's copies) and
 * prm_terrain_facts_of it. trv-roadmap writes it in the same output set as
 * the GeoPackage, after it (path: the set's temporary; gpkg: the finished
 * GeoPackage's temporary). */
char *prm_roadmap_cache_path(const char *gpkg);
trv_status prm_roadmap_cache_write(trv_ctx *ctx, const prm_roadmap *r, const prm_terrain *t, const char *terrain_dir,
                                   const char *gpkg, const char *path);
/* The same with the terrain's layers (layers 1) or without them (0: a
 * route reads the GeoTIFFs' tiles instead); prm_roadmap_cache_write writes
 * them up to 5e7 cells (tiled.h PRM_TILED_CELLS), none above. */
trv_status prm_roadmap_cache_write_layers(trv_ctx *ctx, const prm_roadmap *r, const prm_terrain *t,
                                          const char *terrain_dir, const char *gpkg, const char *path, int layers);
/* The same with the facts given (prm_terrain_facts_of's, or prm_blocks_facts'
 * of the same files: tiled.h), so that t may be a lazy terrain (layers 0). */
trv_status prm_roadmap_cache_write_facts(trv_ctx *ctx, const prm_roadmap *r, const prm_terrain *t,
                                         const prm_terrain_facts *f, const char *terrain_dir, const char *gpkg,
                                         const char *path, int layers);
/* Read gpkg's cache: *out the roadmap and *facts the terrain's facts, with
 * *terrain_same 1 when terrain_dir's files are still the ones it was built
 * from (then prm_terrain_open may use the facts). A cache that cannot be
 * used (missing, of another build or version, stale: made with another
 * GeoPackage or the GeoPackage changed since; truncated or damaged: its
 * checksum) leaves *out NULL and says why in note (for stderr: the caller
 * then reads the GeoPackage, prm_roadmap_read); errors are only for
 * memory. *out and *facts are the caller's. */
trv_status prm_roadmap_cache_read(trv_ctx *ctx, const char *gpkg, const char *terrain_dir, prm_roadmap **out,
                                  prm_terrain_facts *facts, int *terrain_same, char *note, size_t note_len);

/* ---- search -------------------------------------------------------------------- */

typedef enum prm_strategy { PRM_MMCR = 0, PRM_MDR, PRM_MSR, PRM_TIME } prm_strategy;

typedef struct prm_weights {
    double kb, kh, ks, kd;  /* low-risk (and barrier), high-risk, safe, distance */
} prm_weights;

void prm_weights_default(prm_weights *w);
const char *prm_strategy_name(prm_strategy s);

/* The weight of a piece under a strategy (the objective above). */
double prm_piece_weight(const prm_piece *p, prm_strategy s, const prm_weights *w);

typedef struct prm_path {
    int n;
    double *x, *y;          /* vertices, start to goal */
    double objective;       /* the strategy's total */
    long expanded;          /* nodes (or cells) expanded */
    double searched;        /* prm_route's search cost, before shortcutting (the objective's sum over the
                               roadmap path found; 0 from other searches) */
} prm_path;

void prm_path_clear(prm_path *p);

/* A* on the roadmap from start to goal (map coordinates), both inserted as
 * nodes and connected like the others (an end that sees none of its 4k
 * nearest nodes in a straight line: a raster leg to its region's nearest
 * node, prm_priv.h prm_raster_leg), then greedy shortcutting (a vertex
 * jumps to the farthest of the next 32 whose straight piece avoids NOGO
 * and weighs no more than the path it replaces, under the same objective).
 * *out is overwritten (clear a used one first). Errors name which end: outside the
 * map, in NOGO, no connection to the roadmap (its region holds no node);
 * or "the goal ... is not reachable from the start ... on the roadmap",
 * said before any search when the ends' nodes lie in different components
 * ("... lie in different components of it"). */
trv_status prm_route(trv_ctx *ctx, const prm_terrain *t, const prm_roadmap *r, double sx, double sy, double gx,
                     double gy, prm_strategy s, const prm_weights *w, int admissible, prm_path *out);

/* The same objective on the raster: A* over cell centres with 16
 * neighbours (8 adjacent, 8 knight moves), each move weighed by
 * prm_piece_weight of its straight segment; a move touching NOGO, even at
 * a corner, is forbidden (r.cost -k lets a path slip between two NOGO
 * cells that meet at a corner; otherwise the same). The exact start and
 * goal join their cell centres by measured legs. The optimality reference.
 * Errors: an end outside the map or in NOGO, an unreachable goal. *out is
 * overwritten. */
trv_status prm_route_grid(trv_ctx *ctx, const prm_terrain *t, double sx, double sy, double gx, double gy,
                          prm_strategy s, const prm_weights *w, prm_path *out);

/* prm_route_grid restricted to the cells where mask is non-zero (NULL: all;
 * the mask has one byte per cell): the corridor search that refines a
 * roadmap route, and the simulator's re-planning around what it saw. */
trv_status prm_route_grid_masked(trv_ctx *ctx, const prm_terrain *t, const unsigned char *mask, double sx, double sy,
                                 double gx, double gy, prm_strategy s, const prm_weights *w, prm_path *out);

/* A paged whole-grid search (grid.c, prm_route_grid_paged; docs/scale.md
 * "A bounded-memory --grid"): its tiles and what it wrote. */
typedef struct prm_grid_paging {
    int paged;              /* 1: the search ran paged */
    int shift;              /* tiles of 2^shift cells a side (PRM_TILE on a lazy terrain) */
    int tiles;              /* the search state's tiles in memory at most (>= 4) */
    int terrain_tiles;      /* a lazy terrain's tiles held at most (>= 4; ignored else) */
    const char *dir;        /* the temporary file's directory; NULL: $TMPDIR, else /tmp */
    long long written, read;/* bytes written to and read back from the temporary file */
    long long file_bytes;   /* the file's extent at the end */
    long terrain_reads;     /* tiles of the lazy terrain read during the search (again, after a let-go) */
    long reached;           /* the distinct tiles the search held (more terrain_reads: tiles read again) */
    long tile_bytes;        /* a lazy terrain's bytes a tile held (prm_terrain_tile_bytes of prm_grid_layers) */
    long terrain_spilled;   /* its tiles read back from the spill file instead (prm_terrain_layers) */
} prm_grid_paging;

/* The layers the raster search's objective s reads beyond class and
 * gonogo (prm_terrain_layers): time the pace's gradients and pairs
 * (direction-aware) or the speed, msr the slope, mmcr and mdr none (the
 * class, the lengths). --zones' factor zones, measured for the time, read
 * the same. */
int prm_grid_layers(const prm_terrain *t, prm_strategy s);

/* What prm_route_grid_corridor did: the last corridor's half-width (m;
 * INFINITY for the whole grid), the widenings (each doubles it), whether
 * the whole grid was searched, and the escape bound of the last corridor
 * (the least objective of a path leaving it). */
typedef struct prm_corridor_info {
    double halfwidth_m, escape;
    int widened, whole;
    prm_grid_paging paging;  /* the whole grid's search paged (paging.paged): how */
} prm_corridor_info;

/* prm_route_grid's optimum from (xy[0], xy[1]) to (xy[2], xy[3]), searched
 * (each corridor first checked by prm_grid_fits against max_bytes: one
 * that does not fit searched paged, its mask made a tile at a time,
 * grid_corridor.c, its guide cells and a tile's mask counted in the
 * budget with the paged tiles) in the corridor of halfwidth_m
 * metres around guide (the roadmap's route;
 * NULL: the whole grid), doubled until the corridor's optimum C is proven
 * the whole grid's: every path that leaves the corridor costs more than
 * C (grid.c, "escape bound"), or the corridor covers the grid, when the
 * whole grid is searched. The same objective as prm_route_grid always;
 * the same route, as a path that only ties with C widens the corridor.
 * halfwidth_m 0: b = sqrt(a^2 - D^2 / 4) with a = U / (2 k_h), U the
 * guide's objective, D the ends' distance: the half minor axis of the
 * ellipse k_h (d(start, x) + d(x, goal)) <= U, outside which every path
 * costs more than U (the heuristic's bound, grid.c), at least one cell. */
trv_status prm_route_grid_corridor(trv_ctx *ctx, const prm_terrain *t, const prm_path *guide, double halfwidth_m,
                                   size_t max_bytes, const double xy[4], prm_strategy s, const prm_weights *w,
                                   prm_path *out, prm_corridor_info *info);

/* The raster search's memory: about this many bytes a cell of its window
 * (the lazy terrain's layers, 31, read over the window; the search's
 * state and the corridor's masks, 8). */
#define PRM_GRID_CELL_BYTES 40
/* 1 when a raster search over cells cells (a corridor's box, or the
 * whole grid) fits in memory within max_bytes (0: three quarters of the
 * machine's physical memory; no bound when that is unknown) at
 * PRM_GRID_CELL_BYTES a cell; else 0, and the search runs paged (at 1 m
 * a corridor wide enough to prove the optimum is 10^8-10^9 cells: tens
 * of GB). */
int prm_grid_fits(double cells, size_t max_bytes);

/* prm_route_grid (the whole grid, no mask), its per-cell state (1 byte: a
 * status and the move that reached the cell) in tiles of 2^pg->shift
 * cells a side, at most pg->tiles in memory, the rest in an unlinked
 * temporary file in pg->dir (grid_pages.h); the open cells' g in a hash
 * and the heap (the frontier) in memory; a lazy terrain held to at most
 * pg->terrain_tiles of its tiles (prm_terrain_tile_cap, lifted after),
 * every tile read where the search looks (nothing need be read before).
 * The same route, objective and expanded count as prm_route_grid, to the
 * bit: the same pops in the same order. pg's counts filled. */
trv_status prm_route_grid_paged(trv_ctx *ctx, const prm_terrain *t, prm_grid_paging *pg, double sx, double sy,
                                double gx, double gy, prm_strategy s, const prm_weights *w, prm_path *out);
/* Bytes a tile of the paged search takes in memory, per cell, for
 * objective s: the state's byte, a lazy terrain's layers that s reads
 * (prm_terrain_tile_bytes of prm_grid_layers: 2 for mmcr and mdr, 6 for
 * msr and the isotropic time, 12 for the direction-aware time with the
 * seams, 16 without; 0 for a terrain read whole or mapped, which the
 * search does not hold), and one to spare; and the fewest tiles it runs
 * with. */
int prm_grid_paged_cell_bytes(const prm_terrain *t, prm_strategy s);
enum { PRM_GRID_PAGED_MIN_TILES = 16 };
/* The paged search's budget when no cap is given: at most this much (the
 * issue's 2 GB a stage with room for the process; at 1 m the search then
 * holds every tile it works on: docs/scale.md), or three quarters of the
 * machine's memory when that is less. */
#define PRM_GRID_PAGED_DEFAULT 1.5e9
/* The budget the whole grid's search pages within: max_bytes, or with 0
 * the lesser of PRM_GRID_PAGED_DEFAULT and three quarters of phys bytes
 * of memory (0: unknown, PRM_GRID_PAGED_DEFAULT). */
double prm_grid_paged_budget(size_t max_bytes, double phys);
/* The whole grid's search within max_bytes (0: three quarters of the
 * machine's memory, as prm_grid_fits): in memory (prm_terrain_need_all,
 * prm_route_grid) when it fits, else paged (prm_route_grid_paged, the
 * tiles' budget three quarters of prm_grid_paged_budget, the rest left to
 * the frontier), refused (TRV_ERR_NOMEM) only when max_bytes holds fewer than
 * PRM_GRID_PAGED_MIN_TILES tiles, or (TRV_ERR_IO) when the temporary
 * file's disk has less room than the grid's cells (a byte each). *pg
 * says which ran (pg->paged). */
trv_status prm_route_grid_bounded(trv_ctx *ctx, const prm_terrain *t, size_t max_bytes, double sx, double sy,
                                  double gx, double gy, prm_strategy s, const prm_weights *w, prm_path *out,
                                  prm_grid_paging *pg);

/* Refine a roadmap route: the same objective solved on the raster inside
 * a corridor of halfwidth_m metres around it (16-connected, NOGO and
 * NOGO corners forbidden), shortcut likewise; the refined route replaces
 * the roadmap's when its objective is lower. The roadmap gives the
 * topology (which valleys and passes), the corridor the precision that
 * straight edges between nodes ~140 m apart cannot have. */
trv_status prm_refine(trv_ctx *ctx, const prm_terrain *t, prm_path *path, prm_strategy s, const prm_weights *w,
                      double halfwidth_m);

/* ---- smoothing ------------------------------------------------------------------- */

/* Replace path by a clamped cubic B-spline with the path's vertices as
 * control points, sampled every `step` metres (the cell size). Where the
 * curve would enter NOGO (checked cell by cell between samples), the
 * control points around the offending span are repeated (the curve is
 * pulled onto the polyline) until it does not; at worst the polyline
 * piece itself stays. *max_dev receives the largest distance of the
 * curve's samples from the polyline (m). The path's objective and
 * expanded are left as the search set them. */
trv_status prm_smooth(trv_ctx *ctx, const prm_terrain *t, prm_path *path, double step, double *max_dev);

/* Points of the clamped uniform cubic B-spline with control points
 * (cx, cy)[0..n) at parameter u in [0, 1]. Pure; for the tests. */
void prm_bspline_point(const double *cx, const double *cy, int n, double u, double *x, double *y);

/* ---- statistics ---------------------------------------------------------------------- */

typedef struct prm_stats {
    double distance_m, elev_mean_m, slope_mean_deg, slope_max_deg, speed_mean_kmh, cost_mean, time_h;
    long nogo_samples;
    double plan_s;          /* planning time (s) */
    int mc_n;               /* --mc: realisations (0: none), P(passable), time p10/p50/p90 (h) (risk.h) */
    double p_pass, time_q_h[3];
} prm_stats;

/* Statistics of a path sampled at `step` metres (cell-weighted means along
 * its length; time = sum of length x pace in the direction of travel, the
 * mean speed that of the speed in the direction of travel, speed.tif's
 * when isotropic). A speed-0 cell crossed
 * over PRM_GRAZE_M or less adds no time (it is only grazed: a route read
 * back from route.csv, whose centimetres move a vertex by up to 7 mm, cuts
 * the corner or edge of a cell the route passed by 5 cm or less unless it
 * meets that edge at under ~8 degrees; it measures as the route did);
 * longer, the time is +inf. */
#define PRM_GRAZE_M 0.05
void prm_path_stats(const prm_terrain *t, const prm_path *p, double step, prm_stats *out);
/* The walk prm_path_stats sums: each segment of p through its cells
 * (prm_segment_walk; pieces of length 0 skipped), fn called per piece, in
 * order. The route's profile (profile.h) is the same walk. */
typedef struct prm_path_piece {
    int seg;                /* the segment: vertices seg, seg + 1 */
    long cell;              /* the cell (row-major) */
    double len;             /* length inside it, map units (x metres per unit: m) */
    double ux, uy;          /* the segment's heading (unit vector east, north) */
    double speed_kmh;       /* in the direction of travel (isotropic: speed.tif's) */
    double time;            /* len / speed (in map units: x metres per unit gives s); 0 for a speed-0
                             * cell grazed over PRM_GRAZE_M or less, else INFINITY there */
} prm_path_piece;
typedef void (*prm_path_piece_fn)(const prm_path_piece *pc, void *user);
void prm_path_pieces(const prm_terrain *t, const prm_path *p, prm_path_piece_fn fn, void *user);

/* ---- outputs ------------------------------------------------------------------------ */

typedef struct prm_result {
    char name[32];          /* "mmcr", "mdr", ..., "grid-time" */
    prm_path path;
    prm_stats stats;
    double max_dev_m;       /* smoothing: largest distance from the polyline; NAN if not smoothed */
    int rank;               /* with --alternatives: 1 the best, 2.. the alternatives; 0 without (the outputs
                               then have no rank or overlap) */
    double overlap;         /* with rank: share of its roadmap route's length on the best's (prm_alt_share) */
    prm_corridor_info corridor; /* a --grid route: its corridor (halfwidth_m 0 with grid_whole) */
} prm_result;

typedef struct prm_outputs {
    const char *geojson;    /* LineStrings in EPSG:4326, one per route, statistics as properties */
    const char *gpx;        /* GPX 1.1: start and goal waypoints, one track per route (with elevations) */
    const char *csv;        /* vertices: route, x, y, lon, lat, z, slope, speed, cost, class, cum_dist_m, cum_time_s */
    const char *stats;      /* one row per route, the paper's Table 3 columns and more */
    int no_timing;          /* 1: leave the planning time (plan_s, wall clock) out of the GeoJSON and the
                               statistics, so that the same inputs give the same bytes */
} prm_outputs;

/* Write every output named (NULL: skipped) in the caller's output set,
 * which commits them with the rest of its run (all or none). */
trv_status prm_outputs_write(trv_ctx *ctx, trv_outset *set, const prm_terrain *t, const prm_result *routes, int n,
                             const prm_outputs *o);
/* The vertices CSV (prm_outputs' csv) of routes[0..n) into tmp (path:
 * its name in messages); with legs (routes[0] then the whole route through
 * them, n 1), a last column leg: the leg (1..) a vertex starts (the last
 * vertex: the last leg's). */
struct prm_legs;
trv_status prm_route_csv_write(trv_ctx *ctx, const prm_terrain *t, const prm_result *routes, int n,
                               const struct prm_legs *legs, const char *tmp, const char *path);
/* The statistics CSV's header and one row (for printing as well); without
 * the plan_s column when no_timing; rank and overlap_best last when ranked
 * (the row: when r->rank > 0). */
void prm_stats_header(FILE *f, int no_timing, int ranked, int mc);
void prm_stats_row(FILE *f, const prm_result *r, int no_timing);

/* ---- alternative routes (alternatives.c, alternatives_roadmap.c; docs/method.md §4.11) ----
 *
 * The via-node method of Abraham, Delling, Goldberg and Werneck
 * ("Alternative routes in road networks", SEA 2010; ACM JEA 18, 2013) on a
 * directed graph with non-negative arc weights w (the objective) and
 * lengths len (m): forward and backward shortest-path trees from s and t
 * (Dijkstra, ties to the lower node); the best route P0 is the tree path
 * s -> t, of objective d(s, t). Every node v with d(s, v) + d(v, t) <=
 * max_stretch x d(s, t) is a candidate, P_v = the tree path s -> v and
 * then v -> t; candidates are taken in order of their objective (ties:
 * the lower v) and P_v is chosen when it is
 *   - simple (no node twice) and not a route already chosen,
 *   - of limited sharing: for every route Q already chosen (P0 first),
 *     share(P_v, Q) = (length of P_v's arcs whose ends are joined by an
 *     arc of Q, either way) / length(P_v) <= max_overlap,
 *   - locally optimal by the paper's T-test, T = alpha x d(s, t): with v'
 *     the node of P_v before v nearest to v with objective(v' .. v) >= T
 *     (s when none is) and v'' the one after v likewise (t when none),
 *     the part v' .. v'' of P_v is a shortest path (its objective equals
 *     d(v', v'') within 1e-9 relative);
 * until k routes (P0 included) are chosen. Stretch bound on the whole
 * route (the paper bounds every sub-path's: uniformly bounded stretch);
 * sharing over the alternative's length (the paper's over the best's). */
typedef struct prm_digraph {
    int n;                  /* nodes */
    int *start;             /* CSR: the arcs out of u are start[u] .. start[u + 1] - 1 */
    int *to;                /* per arc: its head */
    double *w, *len;        /* per arc: weight (objective), length (m) */
} prm_digraph;

void prm_digraph_clear(prm_digraph *g);

enum { PRM_ALT_MAX = 8 };   /* the most routes asked for (--alternatives) */

typedef struct prm_alt_opts {
    int k;                  /* routes wanted, the best included: 1 .. PRM_ALT_MAX (default 1) */
    double max_stretch;     /* >= 1 (default 1.25) */
    double max_overlap;     /* in [0, 1] (default 0.5) */
    double alpha;           /* T-test's T / d(s, t), in [0, 1] (default 0.25, the paper's) */
} prm_alt_opts;

void prm_alt_opts_init(prm_alt_opts *o);
/* TRV_ERR_USAGE naming the option: "--alternatives must be 1..8",
 * "--max-stretch must be a number >= 1", "--max-overlap must be in [0, 1]",
 * "--local-opt must be in [0, 1]" (alpha). */
trv_status prm_alt_opts_check(trv_ctx *ctx, const prm_alt_opts *o);

typedef struct prm_alt_route {
    int n, *node;           /* s .. t */
    double objective, length_m;
    double overlap;         /* share(this, P0) */
} prm_alt_route;

typedef struct prm_alt_set {
    prm_alt_route r[PRM_ALT_MAX]; /* r[0] = P0, then the alternatives in the order chosen */
    int n;
    long candidates;        /* via nodes within the stretch bound (s and t not counted) */
    long not_simple, shared, not_local; /* of them, rejected by each test in turn */
} prm_alt_set;

/* The routes above from s to t; TRV_ERR_DATA when t is not reachable.
 * *out is the caller's on TRV_OK (prm_alt_set_clear). */
trv_status prm_alternatives(trv_ctx *ctx, const prm_digraph *g, int s, int t, const prm_alt_opts *o,
                            prm_alt_set *out);
void prm_alt_set_clear(prm_alt_set *a);
/* share(a, b) above; 0 for a route of length 0. */
double prm_alt_share(const prm_digraph *g, const prm_alt_route *a, const prm_alt_route *b);
/* Why fewer than o->k routes were found (for stderr; "" when all were). */
void prm_alt_note(const prm_alt_set *a, const prm_alt_opts *o, char *buf, size_t len);

/* The graph prm_route searches, arc for arc: the roadmap's edges both ways
 * (weighed as the A* weighs them: prm_piece_weight, time backwards on the
 * way back), the start S = r->nnodes and goal G = r->nnodes + 1 linked
 * as prm_route links them (the same errors), the direct S-G piece when
 * unblocked; then prm_alternatives from S to G, each route as a path
 * (raster legs of the ends included, objective the graph's, not
 * shortcut): paths[0 .. *n) (the caller clears them) with the set's
 * figures in *a (its node lists the caller's: prm_alt_set_clear). */
trv_status prm_alt_roadmap(trv_ctx *ctx, const prm_terrain *t, const prm_roadmap *r, const double xy[4],
                           prm_strategy s, const prm_weights *w, const prm_alt_opts *o, prm_path paths[PRM_ALT_MAX],
                           prm_alt_set *a);

/* ---- tour: the order of a mission's stops (tour.c) ----------------------------------
 *
 * On an n x n cost matrix c (c[i n + j]: the cost from stop i to stop j;
 * asymmetric allowed, INFINITY: no leg), stop 0 the start:
 *   open (closed 0): a path 0 -> (1..n-2 in some order) -> n-1;
 *   closed (closed 1): a tour 0 -> (1..n-1 in some order) -> back to 0.
 * order[] receives the stops in travel order (open: n entries, order[0] = 0,
 * order[n-1] = n-1; closed: n entries from 0, the return implied), *total
 * its cost, prm_tour_cost(order).
 * Exact: Held-Karp's dynamic programme (Held & Karp 1962; Bellman 1962),
 *   O(2^m m^2) time for the m stops to order, m <= PRM_TOUR_EXACT_MAX.
 * Heuristic (any m; no optimality claim, its gap is measured in the tests,
 *   docs/tests.md): cheapest insertion (Rosenkrantz, Stearns & Lewis 1977)
 *   and nearest neighbour with each of the 8 cheapest first legs forced
 *   (restarts), each improved by first-improvement local search until
 *   neither move applies: directed 2-opt (Croes 1958: reverse a run, the
 *   whole path measured again since its legs change direction) and Or-opt
 *   (Or 1976: move a run of 1-3 stops elsewhere, as it is or reversed);
 *   the best of the 9 kept. O(m^3) per improving pass.
 * An order of infinite cost is TRV_ERR_DATA ("no order ... joins them"). */
enum { PRM_TOUR_EXACT_MAX = 12 };
double prm_tour_cost(int n, const double *c, int closed, const int *order);
trv_status prm_tour_exact(trv_ctx *ctx, int n, const double *c, int closed, int *order, double *total);
trv_status prm_tour_heuristic(trv_ctx *ctx, int n, const double *c, int closed, int *order, double *total);
/* Exact when the stops to order are at most PRM_TOUR_EXACT_MAX (*exact 1),
 * else the heuristic (*exact 0). */
trv_status prm_tour_order(trv_ctx *ctx, int n, const double *c, int closed, int *order, double *total, int *exact);

/* ---- mission: what trv-route plans ------------------------------------------------ */

enum { PRM_MISSION_MAX = 8 }; /* 4 strategies on the roadmap and 4 on the raster; or PRM_ALT_MAX alternatives */

/* Waypoints of a mission (trv-route --via / --visit, legs.c). */
enum { PRM_WAYPOINTS_MAX = 32 };

typedef struct prm_waypoints {
    int n;                  /* 0: a plain start-goal mission */
    double xy[2 * PRM_WAYPOINTS_MAX]; /* (x, y) in the mission's srs, numbered 1..n as given */
    int visit;              /* 1: any order, the one of least total leg cost (prm_tour_order); 0: as given */
    int closed;             /* 1: back to the start (no goal: the mission's `to` is ignored) */
    char label[PRM_WAYPOINTS_MAX + 1][32]; /* optional names of waypoints 1..n and, at [n], of the goal
                                            * (trv-fleet: task ids); "" = "via k" / "visit k" / "goal" */
} prm_waypoints;

/* "X,Y[;X,Y...]" into w->xy (appended; w->n counted); TRV_ERR_USAGE naming
 * opt ("--via expects X,Y[;X,Y...]") or the limit PRM_WAYPOINTS_MAX. */
trv_status prm_waypoints_parse(trv_ctx *ctx, const char *opt, const char *s, prm_waypoints *w);

typedef struct prm_leg {
    int from, to;           /* stops (prm_legs' x, y, name) */
    prm_result r;           /* the leg as a route of its own (name "<strategy> leg <k>") */
    int v0, v1;             /* its vertices in the whole route: v0..v1 (v1 the next leg's v0) */
    double smooth_s;        /* smoothing wall-clock time (s; plan_s is the search and corridor's) */
} prm_leg;

typedef struct prm_legs {
    int nstops;             /* start, the waypoints (given order), goal unless closed */
    double *x, *y;          /* stops in the terrain's CRS */
    char (*name)[32];       /* "start", "via 1".. or "visit 1"..(numbered as given), "goal"; or wp.label */
    int nlegs;              /* legs in travel order (closed: the last returns to the start) */
    prm_leg *leg;
    int visit, closed, exact; /* exact: --visit ordered by Held-Karp (0: the heuristic) */
    double order_cost;      /* --visit: the order's total over the matrix (the roadmap's objective) */
    double matrix_s, order_s; /* --visit: wall-clock time of the leg matrix and of the order */
    int searches;           /* roadmap searches made for the matrix */
    int raster;             /* searches planned on the raster because the zones cut the roadmap (zones.h) */
} prm_legs;

void prm_legs_free(prm_legs *l);

typedef struct prm_mission_opts {
    const char *roadmap;    /* the roadmap GeoPackage (prm_roadmap_write) */
    const char *terrain;    /* the run directory the roadmap was built from */
    const char *srs;        /* CRS of from and to (default "EPSG:4326") */
    double from[2], to[2];  /* start and goal (x, y) in srs */
    prm_strategy strategy;  /* default PRM_MMCR */
    prm_weights weights;    /* default prm_weights_default; each >= 0 and finite */
    int admissible;         /* mmcr with the admissible heuristic */
    int compare;            /* plan mdr, msr, mmcr and time (in that order) instead of strategy */
    int grid;               /* also each strategy on the raster ("grid-<name>": the optimum) */
    int grid_whole;         /* grid: search the whole grid, not a corridor around the roadmap route */
    double grid_corridor;   /* grid: the corridor's first half-width (m); 0 (default): from the roadmap route */
    double grid_memory;     /* grid: the most memory (MB) its searches may take (prm_grid_fits); 0 (default): 3/4 of the machine's */
    int no_smooth;          /* keep the node polyline */
    double corridor;        /* m: refine within it; -1 (default): three cells; 0: off */
    prm_alt_opts alt;       /* alt.k > 1: the strategy's alternatives (prm_alt_roadmap), not with compare or grid */
    const char *zones, *crossings; /* zones and crossings files (zones.h), NULL: none */
    double crossing_radius; /* m: the crossings' default radius; 0 (default): one cell */
    prm_outputs out;        /* the route files (prm_outputs_write); all NULL by default */
    prm_waypoints wp;       /* waypoints (legs.c; none by default): with them, one strategy, no grid */
    double risk;            /* --risk: only cells with P(NOGO) <= risk (risk.h); NAN (default): off */
    int mc;                 /* --mc: each route on this many realisations (risk.h); 0 (default): off */
    int flat;               /* --flat: search the whole roadmap even beside its hierarchical index (hier.h) */
} prm_mission_opts;

typedef struct prm_mission {
    prm_result routes[PRM_MISSION_MAX]; /* the roadmap's routes in planning order, then the raster's */
    double smooth_s[PRM_MISSION_MAX];   /* smoothing wall-clock time (s); 0 for the raster's */
    int n;
    int direction_aware;                /* 1: the terrain's times were direction-aware */
    char time_note[512];                /* else why (prm_terrain's time_note) */
    char cache_note[1024];              /* why the roadmap cache was not used ("" when it was) */
    char alt_note[512];                 /* fewer alternatives than asked: why (prm_alt_note; "" else) */
    struct prm_profiles *profiles;      /* the routes' profiles and time shares (profile.h) */
    char zones_note[256];               /* routes planned on the raster because the zones cut the roadmap */
    prm_legs *legs;                     /* with waypoints: routes[0] is the whole route, these its legs */
    const struct prm_hier *hier;        /* during prm_mission_run: the roadmap's hierarchical index, NULL none */
    char hier_note[512];                /* the searches on it and the edges they read, or why it was not used */
    int hier_searches;                  /* searches on it */
    long hier_edges;                    /* roadmap edges they read */
} prm_mission;

void prm_mission_opts_init(prm_mission_opts *o);
/* o->from and o->to (in o->srs) in the CRS of g: xy start x, y, goal x, y. */
trv_status prm_mission_ends(trv_ctx *ctx, const prm_mission_opts *o, const geo_grid *g, double xy[4]);
/* The checks that parse nothing, as trv-route reports them (TRV_ERR_USAGE):
 * "--weights expects four numbers >= 0: kb,kh,ks,kd" for a negative or
 * non-finite weight, then "--corridor must be >= 0" for a corridor below 0
 * other than -1, "--crossings needs --zones", "--crossing-radius must be
 * >= 0 (0: one cell)", prm_alt_opts_check's, then "--alternatives above 1
 * plans one strategy on the roadmap: not with --compare or --grid"; with
 * waypoints "--via and --visit plan one strategy on the roadmap: not with
 * --compare or --grid", "--via and --visit do not take --alternatives
 * yet"; "--return needs --via or --visit". prm_mission_run checks them
 * first. */
trv_status prm_mission_opts_check(trv_ctx *ctx, const prm_mission_opts *o);
/* Load the roadmap and the terrain (same CRS, else TRV_ERR_CRS): the
 * roadmap's cache (prm_roadmap_cache_read) and the terrain lazily
 * (prm_terrain_open: only the tiles the plans and route files read) when
 * the cache fits the GeoPackage and the terrain's files; else the
 * GeoPackage (prm_roadmap_read) and the whole terrain (prm_terrain_load),
 * cache_note saying why; the same routes and files either way. Transform
 * from/to from srs into the terrain's CRS, and for
 * each strategy: prm_route, prm_refine in the corridor, prm_smooth (unless
 * no_smooth; max_dev_m NAN when not smoothed), prm_path_stats at the cell
 * size (and the routes' profiles, prm_profiles_make); plan_s is the search and corridor's wall-clock time, smoothing is
 * timed apart in smooth_s. With grid, prm_route_grid of each strategy
 * after them. With alt.k > 1: rank 1 is the strategy's route as above,
 * ranks 2.. the alternatives of prm_alt_roadmap (named "<strategy>-<rank>"),
 * each refined, smoothed and measured the same way (their plan_s: the
 * alternatives' search and their own corridor). Then o->out is written into set by prm_outputs_write (set
 * NULL: nothing written); the caller commits it. *m is the caller's on
 * TRV_OK (prm_mission_clear) and empty otherwise. */
trv_status prm_mission_run(trv_ctx *ctx, const prm_mission_opts *o, trv_outset *set, prm_mission *m);
void prm_mission_clear(prm_mission *m);

/* The roadmap (*r) and its terrain (t) as prm_mission_run reads them
 * (plan_load.c): the roadmap's cache and the terrain lazily when the cache
 * fits the GeoPackage and the terrain's files, else the GeoPackage and the
 * whole terrain, note (note_len bytes; "" when the cache was used) saying
 * why. Both the caller's on TRV_OK; nothing on error. */
trv_status prm_plan_load(trv_ctx *ctx, const char *roadmap, const char *terrain, prm_terrain *t, prm_roadmap **r,
                         char *note, size_t note_len);
/* The leg matrix between n points xy[2 i], xy[2 i + 1] (the terrain's
 * CRS; route_matrix.c): c[i n + j] = the least objective of a route from
 * point i to point j over the graph prm_route searches (the roadmap's
 * edges both ways, each point linked to the roadmap as prm_route links an
 * end, the straight piece between two points when it is unblocked), no
 * route passing through a third point; 0 on the diagonal, INFINITY when
 * j cannot be reached. One Dijkstra per source point (on the cores), not
 * one search per pair: the roadmap A*'s objective before its shortcuts.
 * An error linking a point (prm_route's, naming it "start") sets *bad to
 * its index (-1 else). */
trv_status prm_route_matrix(trv_ctx *ctx, const prm_terrain *t, const prm_roadmap *r, int n, const double *xy,
                            prm_strategy s, const prm_weights *w, double *c, int *bad);

/* ---- a mission through waypoints (legs.c, legs_output.c) ------------------------
 *
 * prm_mission_legs (prm_mission_run's plan when o->wp.n > 0; xy the start and
 * goal in the terrain's CRS): each waypoint transformed and checked, the
 * error naming it by its number and its coordinates as given ("waypoint 3
 * (-98.2,33.2) lies in a NOGO cell"): off the terrain, in NOGO, in the cell
 * of the start, the goal or another waypoint ("is a duplicate of ..."),
 * not reachable (prm_route's error for the leg that reaches it, prefixed).
 * The stops' order: as given (--via), or (--visit) prm_tour_order over the
 * leg matrix, c[i][j] = the objective of prm_route from stop i to stop j
 * (the strategy's; the roadmap A* and its shortcuts, before the corridor),
 * one search per ordered pair (n (n - 1) at most). Each leg in that order
 * is planned as a one-leg mission is (prm_route, prm_refine, prm_smooth,
 * prm_path_stats) and the legs joined (the shared stop once) into
 * m->routes[0] (name: the strategy's; objective: the legs' sum; plan_s:
 * the legs' plus the matrix and order time; smooth_s[0] the legs' sum), m->legs recording them. */
trv_status prm_mission_legs(trv_ctx *ctx, const prm_mission_opts *o, const prm_terrain *t, const prm_roadmap *r,
                            const double xy[4], prm_mission *m);
/* The route files of a mission through waypoints (instead of
 * prm_outputs_write; docs/trv-route.md "Waypoints"): GeoJSON: the whole
 * route as the plain mission writes it, then one feature per leg (route
 * "<strategy> leg <k>") with the fields leg (0 for the whole), from and to
 * (stop names) added to every feature; GPX: the stops as named waypoints
 * in travel order and one track; CSV: a leg column (the leg a vertex ends,
 * 0 for the first vertex); stats: a row per leg then the whole route. */
trv_status prm_legs_write(trv_ctx *ctx, trv_outset *set, const prm_terrain *t, const prm_mission *m,
                          const prm_outputs *o);
/* route.json's "legs" object (docs/summaries.md): order (given, held-karp,
 * heuristic), closed, stops in travel order, --visit's order_objective,
 * matrix_searches (and matrix_s, order_s when timing), and per leg: leg,
 * from, to, distance_m, time_h, objective, nogo_samples (plan_s). */
struct trv_json;
void prm_legs_json(struct trv_json *js, const prm_legs *L, int timing);

#endif
