/* The terrain's facts (prm.h: prm_terrain_facts) in one pass over the run
 * directory's layers by row blocks with a halo of one row (tiled.h,
 * docs/scale.md): the values prm_terrain_facts_of takes from a terrain
 * read whole by prm_terrain_load, without holding a whole layer. */
#include "tiled.h"

#include "run/blocks.h"
#include "run/run.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

enum { NO_PAIR = 0xffff };

typedef struct facts_pass {
    prm_terrain_facts *f;
    const geo_grid *g;
    const tm_model *m;      /* NULL: isotropic */
    double ew, ns;          /* cell width and height (m) */
    double top, tmax;       /* the highest GO speed (isotropic); the steepest GO gradient */
    uint16_t *map;          /* soil x 256 + land use -> pair */
    unsigned char *codes;   /* per pair: soil, land use (2 x 256 x 256) */
    size_t cap;             /* of f's runs */
    long bad_pair;          /* the first GO cell with codes the model does not know; -1 none */
    int bad_s, bad_l;
    long bad_speed;         /* the first checked GO cell whose speed the model does not give; -1 none */
    float bad_have, bad_v;
} facts_pass;

/* One more cell of class code c into f's runs (at most 65535 cells a run). */
static int run_push(facts_pass *p, unsigned char c)
{
    prm_terrain_facts *f = p->f;
    if (f->nruns && f->run_code[f->nruns - 1] == c && f->run_len[f->nruns - 1] < 65535) {
        f->run_len[f->nruns - 1]++;
        return 0;
    }
    if (f->nruns == p->cap) {
        size_t cap = p->cap ? 2 * p->cap : 4096;
        unsigned char *rc = realloc(f->run_code, cap);
        if (rc)
            f->run_code = rc;
        unsigned short *rl = rc ? realloc(f->run_len, cap * sizeof *rl) : NULL;
        if (!rl)
            return -1;
        f->run_len = rl, p->cap = cap;
    }
    f->run_code[f->nruns] = c;
    f->run_len[f->nruns++] = 1;
    return 0;
}

/* dem's row y into the seams (prm_seams_count's layout). */
static void seams_row(facts_pass *p, const float *dem, int y)
{
    int nx = p->g->nx, ny = p->g->ny;
    float *s = p->f->seams;
    if (y % PRM_TILE == PRM_TILE - 1 && y + 1 < ny)
        memcpy(s + (size_t)(y / PRM_TILE) * 2 * nx, dem, (size_t)nx * sizeof *s);
    if (y % PRM_TILE == 0 && y > 0)
        memcpy(s + ((size_t)(y / PRM_TILE - 1) * 2 + 1) * nx, dem, (size_t)nx * sizeof *s);
    size_t down = ((size_t)ny + PRM_TILE - 1) / PRM_TILE, col0 = 2 * (down - 1) * (size_t)nx;
    for (int c = PRM_TILE - 1, j = 0; c + 1 < nx; c += PRM_TILE, j++)
        for (int k = 0; k < 2; k++)
            s[col0 + ((size_t)j * 2 + k) * ny + y] = dem[c + k];
}

/* A GO cell's pair (pace.c's pairs_band), its gradient into tmax
 * (prm_aniso_grad_rect) and, every 97th cell, check_speed's test. */
static void aniso_cell(facts_pass *p, const run_blocks *b, int y, int x, size_t i)
{
    const geo_rows *dr = b->rows[RUN_DEM];
    int s = geo_rows_u8(b->rows[RUN_SOIL], y)[x], l = geo_rows_u8(b->rows[RUN_LANDUSE], y)[x];
    if (s == 0 || l == 0 || p->m->soil_index[s] < 0 || p->m->landuse_nogo[l] == 2) {
        p->bad_pair = (long)i, p->bad_s = s, p->bad_l = l;
        return;
    }
    uint16_t *q = &p->map[s * 256 + l];
    if (*q == NO_PAIR) {
        *q = (uint16_t)p->f->npairs;
        p->codes[2 * p->f->npairs] = (unsigned char)s;
        p->codes[2 * p->f->npairs + 1] = (unsigned char)l;
        p->f->npairs++;
    }
    double gx, gy;
    geo_horn_diff(geo_rows_f32(dr, y - 1), geo_rows_f32(dr, y), geo_rows_f32(dr, y + 1), p->g->nx, x,
                  dr->has_nodata, (float)dr->nodata, &gx, &gy);
    float ge = (float)(gx / (8 * p->ew)), gn = (float)(-gy / (8 * p->ns));
    p->tmax = fmax(p->tmax, hypot(ge, gn));
    if (i % 97 || p->bad_speed >= 0)
        return;
    const geo_rows *sl = b->rows[RUN_SLOPE];
    float v, have = geo_rows_f32(b->rows[RUN_SPEED], y)[x];
    unsigned char why;
    tm_row(p->m, &geo_rows_f32(sl, y)[x], (float)sl->nodata, &geo_rows_u8(b->rows[RUN_SOIL], y)[x],
           &geo_rows_u8(b->rows[RUN_LANDUSE], y)[x], 1, &v, &why, NULL);
    if (!(fabsf(v - have) <= 1e-5f * fmaxf(have, 1.0f)))
        p->bad_speed = (long)i, p->bad_have = have, p->bad_v = v;
}

/* Rows y0 .. y1 - 1 of a block: top speed, class runs, seams, pairs. */
static int facts_block(facts_pass *p, const run_blocks *b, int y0, int y1)
{
    int nx = p->g->nx;
    for (int y = y0; y < y1 && p->bad_pair < 0; y++) {
        const unsigned char *cls = geo_rows_u8(b->rows[RUN_CLASS], y), *gng = geo_rows_u8(b->rows[RUN_GONOGO], y);
        const float *spd = geo_rows_f32(b->rows[RUN_SPEED], y);
        if (p->m)
            seams_row(p, geo_rows_f32(b->rows[RUN_DEM], y), y);
        for (int x = 0; x < nx && p->bad_pair < 0; x++) {
            if (run_push(p, gng[x] ? PRM_CL_NOGO : cls[x]))
                return -1;
            if (gng[x] != 0 || cls[x] == 0)
                continue;
            if (spd[x] > p->top)
                p->top = spd[x];
            if (p->m)
                aniso_cell(p, b, y, x, (size_t)y * nx + x);
        }
    }
    return 0;
}

/* The pass over every block; the layers' nodata check after it. */
static trv_status facts_blocks(trv_ctx *ctx, const char *dir, facts_pass *p)
{
    static const run_id which[7] = {RUN_CLASS, RUN_COST, RUN_GONOGO, RUN_DEM, RUN_SLOPE, RUN_SPEED, RUN_SOIL};
    run_id w[8];
    memcpy(w, which, sizeof which);
    w[7] = RUN_LANDUSE;
    run_blocks b;
    trv_status st = run_blocks_open(ctx, dir, w, p->m ? 8 : 6, 1, &b);
    if (st) {
        run_blocks_close(&b);
        return st;
    }
    const geo_grid *g = p->g = b.grid;
    if (!g->wkt || geo_crs_is_geographic(g->wkt) != 0) {
        run_blocks_close(&b);
        return trv_error(ctx, TRV_ERR_CRS, "the terrain in '%s' must be on a projected grid", dir);
    }
    double mpu = geo_crs_metres_per_unit(g->wkt);
    p->ew = g->gt[1] * mpu, p->ns = fabs(g->gt[5]) * mpu;
    p->f->ncells = (size_t)g->nx * g->ny;
    p->f->seam_nx = g->nx, p->f->seam_ny = g->ny;
    if (p->m && !(p->f->seams = malloc(prm_seams_count(g->nx, g->ny) * sizeof *p->f->seams + 1)))
        st = trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
    int h = geo_block_rows();
    for (int y0 = 0; y0 < g->ny && !st && p->bad_pair < 0; y0 += h) {
        int y1 = y0 + h < g->ny ? y0 + h : g->ny;
        if ((st = run_blocks_read(ctx, &b, y0, y1)))
            break;
        run_blocks_add(&b, b.block);
        if (facts_block(p, &b, y0, y1))
            st = trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
    }
    if (!st && p->bad_pair < 0)
        st = run_blocks_finish(ctx, &b);
    run_blocks_close(&b);
    return st;
}

/* The pace table and top speed from the pairs and tmax (prm_aniso_table). */
static trv_status facts_table(trv_ctx *ctx, facts_pass *p)
{
    prm_terrain_facts *f = p->f;
    prm_aniso a = {0};
    prm_terrain tt = {0};
    a.m = p->m;
    a.codes = p->codes;
    a.npairs = f->npairs;
    a.tmax = f->tmax = fmax(p->tmax * (1 + 1e-6), 1e-3);
    trv_status st = prm_aniso_table(ctx, &a, &tt);
    f->pace = a.pace, f->ok = a.ok;
    f->top_speed_kmh = tt.top_speed_kmh;
    if (!st && !(f->codes = malloc(2 * (size_t)f->npairs + 1)))
        st = trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
    if (!st)
        memcpy(f->codes, p->codes, 2 * (size_t)f->npairs);
    return st;
}

trv_status prm_blocks_facts(trv_ctx *ctx, const char *dir, prm_terrain_facts *f)
{
    memset(f, 0, sizeof *f);
    prm_terrain note = {0};
    int present;
    trv_status st = prm_model_present(ctx, &note, dir, &present);
    if (st)
        return st;
    facts_pass p = {.f = f, .bad_pair = -1, .bad_speed = -1};
    tm_run_model rm;
    if (present && (st = tm_run_model_load(ctx, dir, &rm)))
        return st;
    if (present) {
        rm.model.v = rm.vehicle;
        p.m = &rm.model;
        p.map = malloc(256 * 256 * sizeof *p.map);
        p.codes = malloc(2 * 256 * 256);
        if (!p.map || !p.codes)
            st = trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
        else
            memset(p.map, 0xff, 256 * 256 * sizeof *p.map);
    }
    f->direction_aware = present;
    if (!st)
        st = facts_blocks(ctx, dir, &p);
    if (!st && p.bad_pair >= 0)
        st = trv_error(ctx, TRV_ERR_DATA,
                       "a GO cell has soil %d and land use %d, which the speed model's copies do not know: "
                       "run trv-speed again",
                       p.bad_s, p.bad_l);
    if (!st && p.bad_speed >= 0)
        st = trv_error(ctx, TRV_ERR_DATA,
                       "'%s': speed.tif (%g km/h at cell %zu) was not made with the speed model's copies in the "
                       "run directory (%g km/h): run trv-speed again",
                       dir, p.bad_have, (size_t)p.bad_speed, p.bad_v);
    if (!st && present)
        st = facts_table(ctx, &p);
    else if (!st)
        f->top_speed_kmh = p.top;
    if (!present) /* facts_of keeps no seams for an isotropic terrain */
        f->seam_nx = f->seam_ny = 0;
    if (present)
        tm_run_model_free(&rm);
    free(p.map);
    free(p.codes);
    if (st)
        prm_terrain_facts_clear(f);
    return st;
}

trv_status prm_terrain_read(trv_ctx *ctx, const char *dir, const prm_build_opts *o, prm_terrain *t,
                            prm_terrain_facts *f)
{
    memset(f, 0, sizeof *f);
    memset(t, 0, sizeof *t);
    char *path = run_path(dir, RUN_CLASS);
    geo_grid g = {0};
    trv_ctx *quiet = trv_ctx_new(); /* an unreadable class.tif: prm_terrain_load's error */
    int tiled = path && quiet && !geo_grid_read(quiet, path, &g) && prm_build_tile(o, &g) > 0;
    geo_grid_clear(&g);
    trv_ctx_free(quiet);
    free(path);
    if (!tiled)
        return prm_terrain_load(ctx, dir, t);
    trv_status st = prm_blocks_facts(ctx, dir, f);
    if (!st)
        st = prm_terrain_open(ctx, dir, f, t);
    if (st)
        prm_terrain_facts_clear(f);
    return st;
}

trv_status prm_roadmap_terrain(trv_ctx *ctx, const char *dir, const prm_build_opts *o, prm_terrain *t,
                               prm_terrain_facts *f)
{
    trv_status st = prm_terrain_read(ctx, dir, o, t, f);
    if (!st && t->lazy && ((st = prm_terrain_band_cap(ctx, t, PRM_BUILD_BAND_BYTES)) ||
                              (st = prm_terrain_class_cap(ctx, t, PRM_BUILD_CLASS_BYTES)))) {
        prm_terrain_clear(t);
        prm_terrain_facts_clear(f);
    }
    return st;
}
