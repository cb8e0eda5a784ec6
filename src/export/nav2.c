/* The nav2 map_server map of a run (export.h): the frame, the pixels, and
 * the files map.pgm, map.yaml and map.prj staged into the caller's set. */
#include "export/export.h"

#include "run/run.h"
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

trv_status exp_nav2_pixels(trv_ctx *ctx, const geo_raster *cost, const char *cost_name, const geo_raster *gonogo,
                           const char *gonogo_name, unsigned char **pix, exp_nav2_counts *n)
{
    size_t nx = (size_t)cost->grid.nx, cells = nx * (size_t)cost->grid.ny;
    if (cost->type != GEO_F32 || gonogo->type != GEO_U8 || gonogo->grid.nx != cost->grid.nx ||
        gonogo->grid.ny != cost->grid.ny)
        return trv_error(ctx, TRV_ERR_INTERNAL, "exp_nav2_pixels: cost Float32 and gonogo Byte on one grid");
    unsigned char *p = malloc(cells ? cells : 1);
    if (!p)
        return trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
    *n = (exp_nav2_counts){0};
    for (size_t i = 0; i < cells; i++) {
        int g = gonogo->u8[i], v = exp_nav2_pixel(cost->f32[i], geo_raster_is_nodata(cost, i), g);
        if (v < 0) {
            free(p);
            int bad_g = g > 5;
            return trv_error(ctx, TRV_ERR_DATA, "'%s': cell (column %zu, row %zu) holds %.10g, %s", bad_g ? gonogo_name
                             : cost_name, i % nx, i / nx, bad_g ? (double)g : cost->f32[i],
                             bad_g ? "not a GO/NOGO code (0..5)" : "outside the cost's range 0..1");
        }
        p[i] = (unsigned char)v;
        n->unknown += v == EXP_NAV2_UNKNOWN;
        n->occupied += v == EXP_NAV2_OCCUPIED;
        n->graded += v <= EXP_NAV2_GRADED_MAX;
    }
    *pix = p;
    return TRV_OK;
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

static trv_status write_pgm(trv_ctx *ctx, trv_outset *set, const char *dir, const exp_nav2_frame *fr,
                            const unsigned char *pix)
{
    FILE *f = NULL;
    char *final = NULL;
    trv_status st = stage(ctx, set, dir, 0, &f, &final);
    if (!st) {
        fprintf(f, "P5\n%d %d\n255\n", fr->nx, fr->ny);
        fwrite(pix, 1, (size_t)fr->nx * (size_t)fr->ny, f);
        st = close_out(ctx, f, final);
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

/* The map's three files from the run's cost and gonogo. */
static trv_status write_map(trv_ctx *ctx, const run_stack *s, const char *dir, trv_outset *set,
                            exp_nav2_info *info)
{
    unsigned char *pix = NULL;
    const geo_raster *cost = s->layer[RUN_COST];
    trv_status st = exp_nav2_frame_of(ctx, &cost->grid, s->path[RUN_COST], &info->frame);
    if (!st)
        st = exp_nav2_pixels(ctx, cost, s->path[RUN_COST], s->layer[RUN_GONOGO], s->path[RUN_GONOGO], &pix,
                             &info->counts);
    if (!st)
        st = write_pgm(ctx, set, dir, &info->frame, pix);
    if (!st)
        st = write_yaml(ctx, set, dir, &info->frame);
    if (!st)
        st = write_prj(ctx, set, dir, cost->grid.wkt);
    free(pix);
    return st;
}

trv_status exp_nav2_run(trv_ctx *ctx, const exp_nav2_opts *o, trv_outset *set, exp_nav2_info *info)
{
    *info = (exp_nav2_info){0};
    static const run_id which[2] = {RUN_COST, RUN_GONOGO};
    run_stack s = {0};
    exp_route r = {0};
    trv_status st = run_load(ctx, o->terrain, which, 2, NULL, &s);
    if (!st)
        st = trv_outset_mkdir(ctx, set, o->dir);
    if (!st)
        st = write_map(ctx, &s, o->dir, set, info);
    if (!st && o->route)
        st = exp_route_read(ctx, o->route, o->route_name, s.layer[RUN_COST]->grid.wkt, &info->frame, &r);
    if (!st && o->route)
        st = write_waypoints(ctx, set, o->dir, &info->frame, &r);
    if (!st && o->route) {
        info->nposes = r.n;
        snprintf(info->route, sizeof info->route, "%s", r.name);
    }
    exp_route_clear(&r);
    run_stack_clear(&s);
    return st;
}
