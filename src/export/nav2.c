/* The nav2 map_server map of a run (export.h): the frame, the pixels, and
 * the files map.pgm, map.yaml and map.prj staged into the caller's set,
 * the layers read by tiles and map.pgm written a row of tiles at a time
 * (docs/scale.md): tiles of geo_block_cols() x geo_strip_rows(nx, 1), so
 * the strip of pixels holds at most max(geo_strip_mem(), one row) bytes. */
#include "export/export.h"

#include "run/blocks.h"
#include "core/json.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int exp_nav2_pixel(double cost, int cost_nodata, int gonogo)
{
    if (gonogo < 0 || gonogo > 5)
        return -1;
    if (gonogo == 5)
        return EXP_NAV2_UNKNOWN;
    if (gonogo > 0)
        return EXP_NAV2_OCCUPIED;
    if (cost_nodata || !isfinite(cost))
        return EXP_NAV2_UNKNOWN;
    if (cost < 0 || cost > 1)
        return -1;
    return (int)lround(EXP_NAV2_GRADED_MAX * cost);
}

trv_status exp_nav2_frame_of(trv_ctx *ctx, const geo_grid *g, const char *name, exp_nav2_frame *f)
{
    if (!g->wkt)
        return trv_error(ctx, TRV_ERR_CRS, "'%s' has no CRS: a nav2 map needs a projected CRS in metres", name);
    char crs[64];
    geo_crs_label(g->wkt, crs, sizeof crs);
    if (geo_crs_is_geographic(g->wkt) != 0 || fabs(geo_crs_metres_per_unit(g->wkt) - 1) > 1e-12)
        return trv_error(ctx, TRV_ERR_CRS, "'%s' is in %s, not a projected CRS in metres: a nav2 map needs metres "
                         "(warp the terrain, e.g. trv-krige --t_srs)", name, crs);
    double w = g->gt[1], h = -g->gt[5];
    if (w <= 0 || h <= 0 || fabs(w - h) > 1e-9 * w)
        return trv_error(ctx, TRV_ERR_GRID, "'%s' has cells of %.10g x %.10g m: a nav2 map needs square cells, "
                         "north up (gdalwarp -tr)", name, w, h);
    *f = (exp_nav2_frame){.nx = g->nx, .ny = g->ny, .resolution = w};
    snprintf(f->crs, sizeof f->crs, "%s", crs);
    f->origin[0] = g->gt[0];
    f->origin[1] = g->gt[3] + g->ny * g->gt[5];
    f->extent[0] = f->origin[0];
    f->extent[1] = f->origin[1];
    f->extent[2] = g->gt[0] + g->nx * g->gt[1];
    f->extent[3] = g->gt[3];
    return TRV_OK;
}

exp_nav2_bad exp_nav2_piece(const exp_nav2_strip *s, unsigned char *pix, size_t pstride, exp_nav2_counts *n)
{
    exp_nav2_counts c = {0};
    for (int r = 0; r < s->rows; r++)
        for (int x = 0; x < s->nx; x++) {
            size_t i = (size_t)r * (size_t)s->nx + (size_t)x;
            float cv = s->cost[i];
            int g = s->gonogo[i], nd = geo_f32_is_nodata(cv, s->has_nodata, s->nodata);
            int v = exp_nav2_pixel(cv, nd, g);
            if (v < 0)
                return (exp_nav2_bad){(long)s->x0 + x, (long)s->y0 + r, g > 5, g > 5 ? (double)g : cv};
            pix[(size_t)r * pstride + (size_t)x] = (unsigned char)v;
            c.unknown += v == EXP_NAV2_UNKNOWN;
            c.occupied += v == EXP_NAV2_OCCUPIED;
            c.graded += v <= EXP_NAV2_GRADED_MAX;
        }
    n->unknown += c.unknown;
    n->occupied += c.occupied;
    n->graded += c.graded;
    return (exp_nav2_bad){.row = -1};
}

int exp_nav2_bad_first(const exp_nav2_bad *a, const exp_nav2_bad *b)
{
    return a->row >= 0 && (b->row < 0 || a->row < b->row || (a->row == b->row && a->col < b->col));
}

trv_status exp_nav2_bad_error(trv_ctx *ctx, const exp_nav2_bad *b, const char *cost_name, const char *gonogo_name)
{
    return trv_error(ctx, TRV_ERR_DATA, "'%s': cell (column %ld, row %ld) holds %.10g, %s",
                     b->in_gonogo ? gonogo_name : cost_name, b->col, b->row, b->v,
                     b->in_gonogo ? "not a GO/NOGO code (0..5)" : "outside the cost's range 0..1");
}

static const char *const FILES[] = {"map.pgm", "map.yaml", "map.prj", "waypoints.yaml"};

const char *exp_nav2_file(int k) { return k >= 0 && k < 4 ? FILES[k] : NULL; }

/* fopen the temporary tmp of final, for a writer, into *f. */
static trv_status open_out(trv_ctx *ctx, const char *tmp, const char *final, FILE **f)
{
    if (!tmp)
        return trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
    *f = fopen(tmp, "wb");
    return *f ? TRV_OK : trv_error(ctx, TRV_ERR_IO, "cannot write '%s': %s", final, strerror(errno));
}

static trv_status close_out(trv_ctx *ctx, FILE *f, const char *final)
{
    int bad = ferror(f);
    if (fclose(f) != 0 || bad)
        return trv_error(ctx, TRV_ERR_IO, "cannot write '%s': %s", final, strerror(errno ? errno : EIO));
    return TRV_OK;
}

/* Stage dir/FILES[k]: *f opened on its temporary. */
static trv_status stage(trv_ctx *ctx, trv_outset *set, const char *dir, int k, FILE **f, char **final)
{
    *final = trv_path_join(dir, FILES[k]);
    if (!*final)
        return trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
    return open_out(ctx, trv_outset_add(set, *final), *final, f);
}

/* The pass over the tiles (geo_tiling): the layers, the next tile, a
 * row of tiles' pixels. */
typedef struct nav2_pass {
    run_blocks b;
    geo_tiling tl;
    int i;
    unsigned char *pix;     /* th x nx */
} nav2_pass;

/* Tile p->i of both layers read into p->b.win as *k, its data cells added. */
static trv_status next_tile(trv_ctx *ctx, nav2_pass *p, geo_tile *k)
{
    *k = geo_tiling_tile(&p->tl, p->i++);
    trv_status st = run_blocks_read_window(ctx, &p->b, k->x0, k->x0 + k->nx, k->y0, k->y0 + k->ny);
    if (!st)
        run_blocks_add(&p->b, p->b.block);
    return st;
}

/* A row of tiles' pixels into p->pix, its rows' count into *rows; its
 * first bad cell (row-major over the row of tiles) TRV_ERR_DATA. */
static trv_status row_of_tiles(trv_ctx *ctx, nav2_pass *p, exp_nav2_counts *n, int *rows)
{
    exp_nav2_bad bad = {.row = -1};
    geo_tile k;
    do {
        trv_status st = next_tile(ctx, p, &k);
        if (st)
            return st;
        const geo_window *c = p->b.win[RUN_COST], *g = p->b.win[RUN_GONOGO];
        const exp_nav2_strip s = {.nx = k.nx, .x0 = k.x0, .y0 = k.y0, .rows = k.ny, .cost = geo_window_f32(c, k.x0, k.y0),
                                  .gonogo = geo_window_u8(g, k.x0, k.y0), .has_nodata = c->has_nodata,
                                  .nodata = c->nodata};
        exp_nav2_bad b = exp_nav2_piece(&s, p->pix + k.x0, (size_t)p->tl.nx, n);
        if (exp_nav2_bad_first(&b, &bad))
            bad = b;
    } while (k.x0 + k.nx < p->tl.nx);
    *rows = k.ny;
    return bad.row >= 0 ? exp_nav2_bad_error(ctx, &bad, p->b.path[RUN_COST], p->b.path[RUN_GONOGO]) : TRV_OK;
}

/* map.pgm: its header, then each row of tiles' pixels as it is read. */
static trv_status write_pgm(trv_ctx *ctx, trv_outset *set, const char *dir, nav2_pass *p, exp_nav2_info *info)
{
    FILE *f = NULL;
    char *final = NULL;
    const exp_nav2_frame *fr = &info->frame;
    trv_status st = stage(ctx, set, dir, 0, &f, &final);
    if (!st) {
        fprintf(f, "P5\n%d %d\n255\n", fr->nx, fr->ny);
        int rows;
        while (!st && p->i < geo_tiling_count(&p->tl))
            if (!(st = row_of_tiles(ctx, p, &info->counts, &rows)))
                fwrite(p->pix, 1, (size_t)rows * (size_t)fr->nx, f);
        trv_status cs = close_out(ctx, f, final);
        st = st ? st : cs;
    }
    free(final);
    return st;
}

/* map.yaml: the keys nav2's map_io reads, the frame in comments. */
static trv_status write_yaml(trv_ctx *ctx, trv_outset *set, const char *dir, const exp_nav2_frame *fr)
{
    FILE *f = NULL;
    char *final = NULL;
    trv_status st = stage(ctx, set, dir, 1, &f, &final);
    if (!st) {
        fprintf(f, "# traverse mobility cost for nav2's map_server (docs/nav2.md): mode raw, each pixel the\n"
                   "# occupancy: 0..98 the cost (round(98 cost)), 100 NOGO, 255 unknown (no data)\n"
                   "# frame: %s (map.prj), x east and y north in metres; origin: the lower-left corner\n"
                   "image: %s\nmode: raw\nresolution: %.17g\norigin: [%.17g, %.17g, 0]\nnegate: 0\n"
                   "occupied_thresh: 0.65\nfree_thresh: 0.25\n",
                fr->crs, FILES[0], fr->resolution, fr->origin[0], fr->origin[1]);
        st = close_out(ctx, f, final);
    }
    free(final);
    return st;
}

static trv_status write_prj(trv_ctx *ctx, trv_outset *set, const char *dir, const char *wkt)
{
    FILE *f = NULL;
    char *final = NULL;
    trv_status st = stage(ctx, set, dir, 2, &f, &final);
    if (!st) {
        fprintf(f, "%s\n", wkt);
        st = close_out(ctx, f, final);
    }
    free(final);
    return st;
}

static trv_status write_waypoints(trv_ctx *ctx, trv_outset *set, const char *dir, const exp_nav2_frame *fr,
                                  const exp_route *r)
{
    FILE *f = NULL;
    char *final = NULL;
    trv_status st = stage(ctx, set, dir, 3, &f, &final);
    if (!st) {
        fprintf(f, "# traverse route in the frame of map.yaml (docs/nav2.md): x east and y north in metres\n"
                   "# (%s, map.prj); yaw in radians counter-clockwise from east, towards the next vertex\n"
                   "frame_id: map\nroute: ", fr->crs);
        trv_json_fputs(f, r->name);
        fprintf(f, "\nposes:\n");
        for (int k = 0; k < r->n; k++)
            fprintf(f, "  - {x: %.4f, y: %.4f, yaw: %.9f}\n", r->p[k].x, r->p[k].y, r->p[k].yaw);
        st = close_out(ctx, f, final);
    }
    free(final);
    return st;
}

/* st, an error found with tiles 0 .. p->i - 1 read, unless a layer holds
 * only nodata (run_load's order, export.h): the tiles read on until
 * every layer has shown a data cell or the tiles end, then the check. */
static trv_status nodata_first(trv_ctx *ctx, nav2_pass *p, trv_status st)
{
    char *msg = strdup(trv_errmsg(ctx));
    if (!msg)
        return st;
    trv_status rs = TRV_OK;
    while (!rs && p->i < geo_tiling_count(&p->tl) && !(p->b.data[RUN_COST] && p->b.data[RUN_GONOGO])) {
        geo_tile k;
        rs = next_tile(ctx, p, &k);
    }
    if (!rs && !(rs = run_blocks_finish(ctx, &p->b)))
        rs = trv_error(ctx, st, "%s", msg);
    free(msg);
    return rs;
}

/* The map's three files from the run's cost and gonogo, read by tiles. */
static trv_status write_map(trv_ctx *ctx, nav2_pass *p, const char *dir, trv_outset *set, exp_nav2_info *info)
{
    const geo_grid *g = p->b.grid;
    p->tl = geo_tiling_make(g->nx, g->ny, geo_block_cols(), geo_strip_rows(g->nx, 1));
    trv_status st = trv_outset_mkdir(ctx, set, dir);
    if (!st)
        st = exp_nav2_frame_of(ctx, g, p->b.path[RUN_COST], &info->frame);
    if (!st && !(p->pix = malloc((size_t)p->tl.th * (size_t)g->nx)))
        st = trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
    if (!st)
        st = write_pgm(ctx, set, dir, p, info);
    st = st ? nodata_first(ctx, p, st) : run_blocks_finish(ctx, &p->b);
    if (!st)
        st = write_yaml(ctx, set, dir, &info->frame);
    if (!st)
        st = write_prj(ctx, set, dir, g->wkt);
    return st;
}

trv_status exp_nav2_run(trv_ctx *ctx, const exp_nav2_opts *o, trv_outset *set, exp_nav2_info *info)
{
    *info = (exp_nav2_info){0};
    static const run_id which[2] = {RUN_COST, RUN_GONOGO};
    nav2_pass p = {0};
    exp_route r = {0};
    trv_status st = run_blocks_open(ctx, o->terrain, which, 2, 0, &p.b);
    if (!st)
        st = write_map(ctx, &p, o->dir, set, info);
    if (!st && o->route)
        st = exp_route_read(ctx, o->route, o->route_name, p.b.grid->wkt, &info->frame, &r);
    if (!st && o->route)
        st = write_waypoints(ctx, set, o->dir, &info->frame, &r);
    if (!st && o->route) {
        info->nposes = r.n;
        snprintf(info->route, sizeof info->route, "%s", r.name);
    }
    exp_route_clear(&r);
    free(p.pix);
    run_blocks_close(&p.b);
    return st;
}
