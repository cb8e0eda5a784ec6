/* Private to src/prm: what the segment measure and the raster search share. */
#ifndef PRM_PRIV_H
#define PRM_PRIV_H

#include "prm.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>

/* Where cell i (= y nx + x) of t's layers is stored (prm.h tile_ntx):
 * i itself when row-major; tile-major, the tile's block, then y and x
 * within it:
 *   ((ty ntx + tx) PRM_TILE + y % PRM_TILE) PRM_TILE + x % PRM_TILE,
 *   tx = x / PRM_TILE, ty = y / PRM_TILE. */
static inline long prm_at(const prm_terrain *t, long i)
{
    if (!t->tile_ntx)
        return i;
    unsigned long nx = (unsigned long)t->grid->nx, y = (unsigned long)i / nx, x = (unsigned long)i - y * nx;
    return (long)((((y / PRM_TILE) * (unsigned long)t->tile_ntx + x / PRM_TILE) * PRM_TILE + y % PRM_TILE) * PRM_TILE +
                  x % PRM_TILE);
}

/* Lazy terrain (terrain_lazy.c): t->ready's bits per tile (prm_ready:
 * those of cell i's); prm_need fills the cell's tile when what it asks
 * for is not read yet. */
enum { PRM_HAVE_CLASS = 1, PRM_HAVE_ALL = 2 };
void prm_lazy_fill(const prm_terrain *t, long i, int have);
typedef struct prm_lazy prm_lazy;
void prm_lazy_free(prm_lazy *z);
static inline int prm_ready(const prm_terrain *t, long i)
{
    long nx = t->grid->nx;
    return t->ready[(i / nx / PRM_TILE) * t->tile_ntx + i % nx / PRM_TILE];
}
static inline void prm_need(const prm_terrain *t, long i, int have)
{
    if (t->ready && !(prm_ready(t, i) & have))
        prm_lazy_fill(t, i, have);
}

/* The roadmap cache's layers (cache_layers.c; prm.h prm_terrain_facts):
 * a header {nx, ny, nlayers, 0} (uint32), zeros up to the next multiple of
 * PRM_CACHE_ALIGN bytes of the file (at: the header's offset in it), then
 * each layer as prm_terrain_load has it in memory, row-major, followed by
 * zeros up to a multiple of PRM_CACHE_ALIGN: class, gonogo (1 byte a
 * cell), cost, dem, slope, speed (float) and, direction-aware, the pace's
 * gradients (2 floats) and pairs (uint16). prm_cache_layers_write writes
 * it from t (read whole; path for messages); layer k's place is
 * prm_cache_layer_offset after the padding, prm_cache_layers_bytes all. */
enum { PRM_LY_CLASS, PRM_LY_GONOGO, PRM_LY_COST, PRM_LY_DEM, PRM_LY_SLOPE, PRM_LY_SPEED, PRM_LY_GRAD, PRM_LY_PAIR,
       PRM_LY_N };
enum { PRM_CACHE_ALIGN = 4096 };
size_t prm_cache_layer_cell(int k);
size_t prm_cache_layer_offset(int nx, int ny, int k);
size_t prm_cache_layers_bytes(int nx, int ny, int nlayers);
size_t prm_cache_layers_pad(size_t at);
/* layers 0: the header alone, nlayers 0 (a cache without the layers, whose
 * reader reads the GeoTIFFs' tiles instead). */
trv_status prm_cache_layers_write(trv_ctx *ctx, FILE *fp, size_t at, const prm_terrain *t, const char *path,
                                  int layers);
/* Layer k of f's mapped layers. */
const void *prm_cache_layer(const prm_terrain_facts *f, int k);
/* Before t's layers are freed: the mapped ones let go (terrain_lazy.c). */
void prm_lazy_release(prm_terrain *t);

/* Union-find over the roadmap's nodes (the build's components, the
 * bridges, the route's early answer): the root of i, halving the path. */
static inline int prm_uf_find(int *parent, int i)
{
    while (parent[i] != i)
        i = parent[i] = parent[parent[i]];
    return i;
}
/* Per roadmap node: its component's root, union-find over the edges not
 * off (off NULL: every edge); malloc'ed, NULL when out of memory
 * (astar.c; the cache stores them, roadmap_cache.c). */
int *prm_components(const prm_roadmap *r, const unsigned char *off);

/* Add to p what a GO cell i crossed over len metres heading (ux, uy) (a
 * unit vector, east and north) contributes: the class lengths, the slope
 * integral and maximum, cost and elevation, and with times the time both
 * ways (time_s heading u, time_rev_s heading -u). */
void prm_piece_add_cell(const prm_terrain *t, long i, double len, double ux, double uy, int times, prm_piece *p);

/* r's CSR adjacency (adj_start, adj: allocated here) from its edges. */
trv_status prm_roadmap_adjacency(trv_ctx *ctx, prm_roadmap *r);

/* The lengths (m) of the straight piece (x0, y0)-(x1, y1) in NOGO (by
 * GO/NOGO or class 0) and in classes 1 (high risk), 2 (low risk) and 3
 * (safe), equal to the bit to prm_piece_measure's nogo, h, l and s: the
 * same walk, the same sums in the same order, without the rest of the
 * measure (the roadmap A*'s mmcr heuristic walks one to the goal for
 * every node it reaches). codes: prm_class_codes's, four bits a cell
 * (prm_code_at; two cells a byte, the first in the low bits: at 1 m the
 * codes of 10^9 cells take 500 MB, not 1 GB), PRM_CL_NOGO (0) where NOGO,
 * else the class, PRM_CL_MAX for any class above it (like every class
 * above 3, a GO cell counted in no risk class); NULL when out of memory. */
enum { PRM_CL_NOGO = 0, PRM_CL_HIGH, PRM_CL_LOW, PRM_CL_SAFE, PRM_CLASS_LEN, PRM_CL_MAX = 15 };
unsigned char *prm_class_codes(const prm_terrain *t);
static inline int prm_code_at(const unsigned char *codes, size_t i)
{
    return (codes[i >> 1] >> ((i & 1) << 2)) & 15;
}
/* The codes of t (read whole) run-length coded into f (prm_terrain_facts). */
trv_status prm_class_runs(trv_ctx *ctx, const prm_terrain *t, prm_terrain_facts *f);
/* The runs' hash (the roadmap cache's: prm_hash_bytes over the codes, then
 * the lengths), and whether runs whose lengths are all 1 .. 65535 and sum
 * to ncells have hash h: 1, else 0 (a damaged cache's). */
uint64_t prm_class_runs_hash(const unsigned char *code, const unsigned short *len, size_t nruns);
int prm_class_runs_ok(const unsigned char *code, const unsigned short *len, size_t nruns, size_t ncells, uint64_t h);
/* A lazy terrain's codes from its facts' runs into codes (prm_class_codes'
 * layout, zeroed): 1, or 0 when it has none (then the tiles are read). */
int prm_lazy_codes(const prm_terrain *t, unsigned char *codes);
void prm_piece_classes(const prm_terrain *t, const unsigned char *codes, double x0, double y0, double x1, double y1,
                       double out[PRM_CLASS_LEN]);

/* prm_route_grid_masked on the window of columns win[0] .. win[0] +
 * win[2] - 1 and rows win[1] .. win[1] + win[3] - 1 alone, mask one byte
 * per window cell (row-major; NULL: none): the same route and objective
 * as the whole grid with a mask that is 0 outside the window, with
 * memory and set-up for the window only. */
trv_status prm_route_grid_window(trv_ctx *ctx, const prm_terrain *t, const long win[4], const unsigned char *mask,
                                 double sx, double sy, double gx, double gy, prm_strategy s, const prm_weights *w,
                                 prm_path *out);
/* The same, the mask (malloc'ed) taken: freed once the search's state
 * holds its cells (before that state grows), or at the end; prm_refine's
 * corridor (at 1 m a 30 km corridor's mask is 78 MB). */
/* Does a pass over the whole grid at cell_bytes a cell fit within the
 * paged search's budget (prm_grid_paged_budget of max_bytes: 1.5 GB by
 * default)? The zones' floods ask (zones.h). */
int prm_grid_pass_fits(const prm_terrain *t, double cell_bytes, size_t max_bytes);
/* --grid-memory MB in bytes (0: the default; a positive value below a
 * byte: 1). */
size_t prm_grid_max_bytes(double grid_memory_mb);
trv_status prm_route_grid_taking(trv_ctx *ctx, const prm_terrain *t, const long win[4], unsigned char *mask,
                                 double sx, double sy, double gx, double gy, prm_strategy s, const prm_weights *w,
                                 prm_path *out);
/* prm_route_grid_window that also lowers *escape (set it to INFINITY
 * first) to the bound on every path leaving the mask (grid.c's header):
 * the window must hold every cell a move from a mask cell reaches (2
 * cells around the mask, or the grid's edge). */
trv_status prm_route_grid_escape(trv_ctx *ctx, const prm_terrain *t, const long win[4], const unsigned char *mask,
                                 double sx, double sy, double gx, double gy, prm_strategy s, const prm_weights *w,
                                 prm_path *out, double *escape);
/* A corridor for the paged search (grid_corridor.c), its mask never made
 * whole: the cells of mark_samples (samples half a cell apart along the
 * guide, those in win), consecutive repeats dropped; a cell is in the
 * corridor when within r cells (Chebyshev) of one, as dilate() gives on
 * win (win holds every such cell: prm_path_band's box, grown by 2 and
 * clamped, as corridor_once makes it). near, diff, tmask:
 * prm_corridor_tile's room. */
typedef struct prm_corridor {
    long win[4], r;             /* c0, r0, nx, ny on the grid; the half-width in cells */
    long n, *sc, *sr;           /* the seed cells (grid columns, rows) */
    long side, *near;           /* the tiles' side; the seeds near one tile */
    int *diff;                  /* side + 1 */
    unsigned char *tmask;       /* side x side: the last tile's mask */
    size_t bytes;               /* what it holds (sc, sr, near: 3 longs a sample walked and one more; diff;
                                   tmask): counted in the paged search's budget (paged_plan) */
} prm_corridor;
trv_status prm_corridor_make(trv_ctx *ctx, const prm_terrain *t, const prm_path *guide, const long win[4], long r,
                             long side, prm_corridor *k);
void prm_corridor_free(prm_corridor *k);
/* Is grid cell (c, r) in the corridor? (a scan of the seeds) */
int prm_corridor_has(const prm_corridor *k, long c, long r);
/* k->tmask (row-major, k->side a row) = the corridor on the tile of
 * k->side cells a side from grid cell (x0, y0) (cells past the grid's
 * edge as well: paged_init makes them NOGO): per column, the seeds near the tile add their rows' span
 * (sr +- r) as a difference array; O(side (side + seeds near)). */
void prm_corridor_tile(prm_corridor *k, long x0, long y0);
/* prm_route_grid_escape on the whole grid paged (pg as for
 * prm_route_grid_paged), its mask corridor k: the same route, objective,
 * expanded count and *escape. */
trv_status prm_route_grid_escape_paged(trv_ctx *ctx, const prm_terrain *t, prm_corridor *k, double sx, double sy,
                                       double gx, double gy, prm_strategy s, const prm_weights *w, prm_path *out,
                                       double *escape, prm_grid_paging *pg);
/* k_h: the raster search's heuristic is k_h times the straight-line
 * distance in metres, and every move weighs at least k_h times its length
 * (grid.c's header); w not NULL. */
double prm_grid_heuristic_factor(const prm_terrain *t, prm_strategy s, const prm_weights *w);
/* The cells within r cells of samples half a cell apart along path (a
 * square around each): with mask NULL their bounding box into win (c0,
 * r0, nx, ny; nx < 1 when none); else mask's bytes (row-major on win) set
 * to 1 on them (astar.c). */
void prm_path_band(const prm_terrain *t, const prm_path *path, int r, long win[4], unsigned char *mask);

/* The pace table (pace.c): per (soil, land use) pair of the GO cells, the
 * pace 1 / tm_speed_at at PRM_PACE_NODES + 1 grades tan beta evenly over
 * [-tmax, tmax] (tmax the steepest gradient of a GO cell); a bin is
 * interpolated linearly when its ends are finite, bound by the same limit
 * and within PRM_PACE_REL of each other, else tm_speed_at answers. */
enum { PRM_PACE_NODES = 4096 };
#define PRM_PACE_REL 0.01

struct prm_aniso {
    const tm_model *m;
    tm_run_model rm;        /* the run directory's model (owns_model) */
    int owns_model;
    float *grad;            /* per cell: dz/dE, dz/dN (m/m), Horn's differences as slope.tif */
    uint16_t *pair;         /* per cell: its pair, 0xffff off the GO cells */
    int npairs;
    unsigned char *codes;   /* per pair: soil, land use */
    double tmax, dt;
    double *pace;           /* npairs x (PRM_PACE_NODES + 1), s/m */
    unsigned char *ok;      /* npairs x PRM_PACE_NODES: 1 where the bin interpolates */
};

void prm_aniso_free(prm_aniso *a);
/* The gradient of the cells of columns x0 .. x1 - 1, rows y0 .. y1 - 1
 * into grad (2 per cell, 0 off the GO cells); reads dem one cell around. */
void prm_aniso_grad_rect(const prm_terrain *t, float *grad, int x0, int y0, int x1, int y1);
/* a's pace table from its pairs (codes, npairs) and tmax, and the
 * terrain's top_speed_kmh from them (prm_terrain_set_model). */
trv_status prm_aniso_table(trv_ctx *ctx, prm_aniso *a, prm_terrain *t);
/* *present: 1 if dir holds trv-speed's copy of the vehicle (the model's
 * copies define the direction-aware pace); else t->time_note says why the
 * times are isotropic. */
trv_status prm_model_present(trv_ctx *ctx, prm_terrain *t, const char *dir, int *present);
/* prm_terrain_model_load's second half, the model present and soil and
 * land use read (prm_terrain_load reads them with the six layers): the
 * run directory's model copies, prm_terrain_set_model, the speed.tif
 * check. */
trv_status prm_model_from(trv_ctx *ctx, prm_terrain *t, const char *dir, const geo_raster *soil,
                          const geo_raster *landuse);
/* 1 / tm_speed_at of the pair at grade atan(tan_beta); INFINITY where 0. */
double prm_pace_exact(const prm_aniso *a, int pair, double tan_beta);

/* Pace (s/m) of cell i at the grade tan_beta along the heading; INFINITY
 * off the GO cells (no pair: a NOGO cell has no speed, as speed.tif's 0),
 * so a path through a NOGO cell (a route file, another vehicle's route)
 * takes an infinite time rather than reading past the table. */
static inline double prm_aniso_pace(const prm_aniso *a, long i, double tan_beta)
{
    int p = a->pair[i];
    if (p == 0xffff)
        return INFINITY;
    double u = (tan_beta + a->tmax) / a->dt;
    if (u >= 0 && u < PRM_PACE_NODES) {
        int k = (int)u;
        if (a->ok[(size_t)p * PRM_PACE_NODES + k]) {
            const double *row = a->pace + (size_t)p * (PRM_PACE_NODES + 1) + k;
            return row[0] + (u - k) * (row[1] - row[0]);
        }
    }
    return prm_pace_exact(a, p, tan_beta);
}

/* The grade (tan beta) of cell i heading (ux, uy). */
static inline double prm_aniso_grade(const prm_aniso *a, long i, double ux, double uy)
{
    return (double)a->grad[2 * i] * ux + (double)a->grad[2 * i + 1] * uy;
}

/* ---- raster paths into straight pieces (bridge.c) ---- */

/* 1 if the straight piece (x0, y0)-(x1, y1) crosses no NOGO cell, touches
 * none at a corner and stays on the grid: !blocked of prm_piece_measure,
 * without measuring, and the same for the piece shifted sideways by
 * PRM_FREE_MARGIN cells either way: a piece between cell centres that
 * runs exactly through a cell corner (rounding may let the walk miss the
 * corner's diagonal cells) is then seen from both sides. */
#define PRM_FREE_MARGIN 1e-6
int prm_piece_free(const prm_terrain *t, double x0, double y0, double x1, double y1);
/* Greedy simplification of a polyline whose consecutive vertices are
 * joined by free pieces (a cell path: a point, its cell's centre, the
 * centres of 4-neighbour cells): from vertex i, the farthest j (at most
 * PRM_SIMPLIFY_AHEAD on) with every i -> i+1 .. j free. keep (n) receives
 * the kept indices, 0 and n - 1 included; returns their count, -1 if a
 * consecutive piece is blocked. */
enum { PRM_SIMPLIFY_AHEAD = 64 };
int prm_polyline_simplify(const prm_terrain *t, const double *x, const double *y, int n, int *keep);
/* Threads (cores.c): prm_cores is the number of jobs to split work into
 * (the online cores, 1 .. PRM_MAX_THREADS); prm_on_cores runs fn on
 * jobs[0 .. nt - 1] (each size bytes, nt <= PRM_MAX_THREADS), one thread
 * each, jobs[0] on the calling thread, a job whose thread cannot start
 * there too. Every job must write only its own results. */
enum { PRM_MAX_THREADS = 16 };
int prm_cores(void);
void prm_on_cores(void *(*fn)(void *), void *jobs, size_t size, int nt);
/* prm_piece_measure's blocked flag alone: an end off the grid, or a NOGO
 * cell on the same walk (corners included), found by a walk that stops at
 * its first NOGO cell. */
int prm_piece_blocked(const prm_terrain *t, double x0, double y0, double x1, double y1);
/* A roadmap edge's candidate: prm_piece_measure's piece when it is not
 * blocked (prm_piece_blocked); a blocked one comes back with blocked = 1
 * and every other field 0 (most candidates are blocked: the build
 * measures only the rest). */
void prm_edge_measure(const prm_terrain *t, double x0, double y0, double x1, double y1, prm_piece *out);
/* The edge a-b (measured from the lower index to the higher) appended to
 * r->edges unless blocked, r->edges grown past *ecap (its room) when
 * full, and a's and b's components joined in parent: *added says which. */
trv_status prm_edge_add(trv_ctx *ctx, const prm_terrain *t, prm_roadmap *r, int *parent, size_t *ecap, int a, int b,
                        int *added);
/* The raster bridging pass (bridge.c's head comment): every GO region
 * gets a node, every region's components are joined by bridges (nodes and
 * edges appended; the edges' order is the caller's to restore); with
 * rho > 0 also the detour bridges of stretch rho (detour.h). parent:
 * the union-find over the nodes (nnodes of room in ncap, grown with the
 * nodes), ecap: the room in r->edges. Fills the stats' regions,
 * regions_with_nodes, region_nodes, bridges, bridge_nodes, bridge_edges,
 * bridge_failed, detours, detour_nodes, detour_edges. */
trv_status prm_bridge_raster(trv_ctx *ctx, const prm_terrain *t, prm_roadmap *r, int **parent, size_t *ecap,
                             size_t ncap, double rho, prm_build_stats *stats);
/* The end leg of a route end that sees no node in a straight line: a
 * breadth-first search over 4-connected GO cells from the cell of (x, y)
 * (its region, nothing else) to the nearest cell holding a node, the cell
 * path simplified (prm_polyline_simplify) from (x, y) to that node's
 * point. *xs, *ys (*n vertices, the caller frees) and *node; *node = -1
 * when the region holds no node. */
trv_status prm_raster_leg(trv_ctx *ctx, const prm_terrain *t, const prm_roadmap *r, double x, double y, int *node,
                          double **xs, double **ys, int *n);

/* ---- the ends of a roadmap route (astar.c) ---- */

/* An end's link to a roadmap node: a straight piece, or (lx, ly, ln
 * vertices, from the end to the node) a raster leg with its pieces summed
 * in p. */
typedef struct prm_link {
    int node;
    prm_piece p;
    double *lx, *ly;        /* NULL for a straight link */
    int ln;
} prm_link;

/* The start's (xy[0], xy[1]) and goal's (xy[2], xy[3]) links exactly as
 * prm_route makes them, with its errors (an end outside the map, in NOGO,
 * with no connection); measured from the end to the node. Freed with
 * prm_links_free. */
trv_status prm_route_ends(trv_ctx *ctx, const prm_terrain *t, const prm_roadmap *r, const double xy[4], prm_link **ls,
                          int *ns, prm_link **lg, int *ng);
void prm_links_free(prm_link *l, int n);

#endif
