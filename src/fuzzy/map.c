/* trv-cost --terrain: the cost and class maps from the terrain layers.
 * Reading and checking here; the per-cell work is fz_eval_row, run over
 * bands of rows by worker threads (each row depends only on its inputs, so
 * the result does not depend on the thread count). */
#include "map_priv.h"

#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The layers it reads, in the order read (the first is the grid's reference). */
static const run_id LAYERS_READ[] = {RUN_DEM, RUN_SLOPE, RUN_SOIL, RUN_SPEED, RUN_GONOGO};
#define NLAYERS ((int)(sizeof LAYERS_READ / sizeof LAYERS_READ[0]))

/* What each engine input reads. */
enum { S_SLOPE, S_ELEVATION, S_CI, S_SPEED, NSOURCES };
static const char *const SOURCE_NAME[NSOURCES] = {"slope", "elevation", "ci", "speed"};

void fz_map_opts_init(fz_map_opts *o) { memset(o, 0, sizeof *o); }

void fz_map_clear(fz_map *m)
{
    geo_raster_free(m->cost);
    geo_raster_free(m->cls);
    geo_classes_free(m->classes);
    geo_grid_clear(&m->grid);
    memset(m, 0, sizeof *m);
}

trv_status fz_soil_ci_read(trv_ctx *ctx, const char *path, double ci[256])
{
    for (int i = 0; i < 256; i++)
        ci[i] = NAN;
    static const char *const cols[] = {"ci_kPa", NULL};
    geo_class_csv *t = NULL;
    trv_status st = geo_class_csv_read(ctx, path, "soil", cols, &t);
    for (size_t r = 0; !st && r < t->n; r++) {
        double v;
        if ((st = trv_csv_double(ctx, t->csv, r, t->col[0], &v)))
            break;
        if (v < 0)
            st = trv_error(ctx, TRV_ERR_DATA, "%s:%ld: ci_kPa %s must not be negative", path, trv_csv_line(t->csv, r),
                           trv_csv_cell(t->csv, r, t->col[0]));
        else
            ci[t->code[r]] = v;
    }
    geo_class_csv_free(t);
    return st;
}

/* The legend of class.tif: 0 NOGO (a colour of its own: it is data, not
 * nodata), then the output terms from the riskiest up. */
trv_status fz_map_classes(trv_ctx *ctx, const fz_engine *e, geo_classes **out)
{
    static const char *const names3[3] = {"high-risk", "low-risk", "safe"};
    static const unsigned char rgb3[3][3] = {{215, 48, 39}, {253, 174, 97}, {26, 152, 80}};
    const int T = fz_nterms(e, fz_ninputs(e));
    geo_classes *cl = calloc(1, sizeof *cl);
    if (!cl || !(cl->c = calloc((size_t)T + 1, sizeof *cl->c))) {
        free(cl);
        return trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
    }
    cl->n = T + 1;
    cl->c[0] = (geo_class){0, strdup("NOGO"), {64, 64, 64}};
    for (int c = 1; c <= T; c++) {
        int term = 0;
        for (int t = 0; t < T; t++)
            if (fz_term_class(e, t) == c)
                term = t;
        geo_class *k = &cl->c[c];
        k->code = c;
        if (T == 3) {
            k->name = strdup(names3[c - 1]);
            memcpy(k->rgb, rgb3[c - 1], 3);
        } else { /* red to green */
            double f = T > 1 ? (double)(c - 1) / (T - 1) : 1;
            k->name = strdup(fz_term_name(e, fz_ninputs(e), term));
            k->rgb[0] = (unsigned char)lround(215 + f * (26 - 215));
            k->rgb[1] = (unsigned char)lround(48 + f * (152 - 48));
            k->rgb[2] = (unsigned char)lround(39 + f * (80 - 39));
        }
    }
    for (int c = 0; c <= T; c++)
        if (!cl->c[c].name) {
            geo_classes_free(cl);
            return trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
        }
    *out = cl;
    return TRV_OK;
}

/* ---- the per-row work ------------------------------------------------------ */

/* geo_raster_is_nodata, inlined: it is asked six times per cell */
typedef fz_job job;

static inline int nd_f32(const fz_rows *in, int k, size_t i)
{
    float v = in->f[k][i];
    return v != v || (in->fhas[k] && v == in->fnd[k]);
}

static inline int nd_u8(const fz_rows *in, int k, size_t i) { return in->uhas[k] && in->u[k][i] == in->und[k]; }

/* An input of the cell has no data (NOGO is not "no data"). */
static inline int no_data(const fz_rows *in, size_t i)
{
    return nd_f32(in, FZ_IN_DEM, i) || nd_f32(in, FZ_IN_SLOPE, i) || in->u[FZ_IN_SOIL][i] == 0 ||
           nd_u8(in, FZ_IN_SOIL, i) || nd_f32(in, FZ_IN_SPEED, i) || nd_u8(in, FZ_IN_GONOGO, i);
}

void fz_rows_layer(fz_rows *in, run_id id, const void *cells, int has_nodata, double nodata)
{
    int k = id == RUN_DEM ? FZ_IN_DEM : id == RUN_SLOPE ? FZ_IN_SLOPE : id == RUN_SPEED ? FZ_IN_SPEED
          : id == RUN_SOIL ? FZ_IN_SOIL : FZ_IN_GONOGO;
    if (id == RUN_SOIL || id == RUN_GONOGO) {
        in->u[k] = cells, in->uhas[k] = has_nodata, in->und[k] = (unsigned char)nodata;
    } else {
        in->f[k] = cells, in->fhas[k] = has_nodata, in->fnd[k] = (float)nodata;
    }
}

static void *run_rows(void *arg)
{
    job *J = arg;
    const int nx = J->nx, n = J->e ? fz_ninputs(J->e) : 0;
    float *ci = malloc((size_t)nx * sizeof *ci);
    unsigned char *valid = malloc((size_t)nx);
    if (!ci || !valid) {
        J->nomem = 1;
        free(ci);
        free(valid);
        return NULL;
    }
    const fz_rows *L = J->in;
    for (int y = J->y0; y < J->y1; y++) {
        size_t o = (size_t)y * nx;
        for (int x = 0; x < nx; x++) {
            size_t i = o + x;
            int soil = L->u[FZ_IN_SOIL][i];
            int ok = L->u[FZ_IN_GONOGO][i] == 0 && !no_data(L, i);
            valid[x] = (unsigned char)ok;
            ci[x] = ok ? (float)J->ci_of[soil] : 0;
        }
        const float *in[FZ_MAX_INPUTS];
        for (int k = 0; k < n; k++)
            in[k] = J->src[k] == S_SLOPE       ? L->f[FZ_IN_SLOPE] + o
                    : J->src[k] == S_ELEVATION ? L->f[FZ_IN_DEM] + o
                    : J->src[k] == S_SPEED     ? L->f[FZ_IN_SPEED] + o
                                               : ci;
        fz_eval_row(J->e, nx, in, valid, J->cost + o, J->cls + o);
    }
    free(ci);
    free(valid);
    return NULL;
}

/* Rows [y0, y1) over nthreads workers. */
static trv_status run_band(trv_ctx *ctx, const job *proto, int y0, int y1, int nthreads)
{
    job jobs[64];
    pthread_t tid[64];
    int started[64] = {0};
    int rows = y1 - y0;
    if (nthreads > rows)
        nthreads = rows > 0 ? rows : 1;
    for (int k = 0; k < nthreads; k++) {
        jobs[k] = *proto;
        jobs[k].y0 = y0 + (int)((long)rows * k / nthreads);
        jobs[k].y1 = y0 + (int)((long)rows * (k + 1) / nthreads);
        jobs[k].nomem = 0;
        if (k > 0)
            started[k] = pthread_create(&tid[k], NULL, run_rows, &jobs[k]) == 0;
        if (k > 0 && !started[k]) /* no thread: do it here */
            run_rows(&jobs[k]);
    }
    run_rows(&jobs[0]);
    int nomem = jobs[0].nomem;
    for (int k = 1; k < nthreads; k++) {
        if (started[k])
            pthread_join(tid[k], NULL);
        nomem |= jobs[k].nomem;
    }
    return nomem ? trv_error(ctx, TRV_ERR_NOMEM, "out of memory") : TRV_OK;
}

trv_status fz_map_prepare(trv_ctx *ctx, const fz_engine *e, const char *soils_path, fz_job *J)
{
    memset(J, 0, sizeof *J);
    const int n = fz_ninputs(e), T = fz_nterms(e, n);
    if (T > FZ_MAX_OUT_TERMS) /* cannot happen: the reader limits it */
        return trv_error(ctx, TRV_ERR_INTERNAL, "too many output terms");
    for (int i = 0; i < n; i++) {
        J->src[i] = -1;
        for (int s = 0; s < NSOURCES; s++)
            if (!strcmp(fz_var_name(e, i), SOURCE_NAME[s]))
                J->src[i] = s;
        if (J->src[i] < 0)
            return trv_error(ctx, TRV_ERR_DATA,
                             "'%s': input '%s' is not a terrain layer (the map stage gives slope, elevation, ci and "
                             "speed)",
                             fz_engine_path(e), fz_var_name(e, i));
    }
    J->e = e;
    return fz_soil_ci_read(ctx, soils_path, J->ci_of);
}

trv_status fz_map_check_soil(trv_ctx *ctx, const fz_job *J, const fz_rows *in, size_t n, const char *soil_path,
                             const char *soils_path)
{
    for (size_t i = 0; i < n; i++) {
        int soil = in->u[FZ_IN_SOIL][i];
        if (soil != 0 && !nd_u8(in, FZ_IN_SOIL, i) && isnan(J->ci_of[soil]))
            return trv_error(ctx, TRV_ERR_DATA, "'%s': soil class %d is not in the soil table '%s'", soil_path, soil,
                             soils_path);
    }
    return TRV_OK;
}

trv_status fz_map_rows(trv_ctx *ctx, fz_job *J, const fz_rows *in, int nx, int y0, int y1, int threads, float *cost,
                       unsigned char *cls)
{
    J->in = in, J->nx = nx, J->cost = cost, J->cls = cls;
    int nthreads = threads > 0 ? threads : (int)sysconf(_SC_NPROCESSORS_ONLN);
    nthreads = nthreads < 1 ? 1 : nthreads > 64 ? 64 : nthreads;
    return run_band(ctx, J, y0, y1, nthreads);
}

void fz_map_count(fz_map *m, const fz_rows *in, const float *cost, const unsigned char *cls, size_t n, double *sum,
                  size_t *go)
{
    for (size_t i = 0; i < n; i++) {
        int c = cls[i];
        m->count[c]++;
        if (c > 0) {
            *sum += cost[i];
            (*go)++;
        }
        m->nodata += no_data(in, i);
    }
    m->cells += n;
}

trv_status fz_map_build(trv_ctx *ctx, const fz_engine *e, const fz_map_opts *o, fz_map *m)
{
    memset(m, 0, sizeof *m);
    double t0 = trv_now_s();
    run_stack in;
    memset(&in, 0, sizeof in);
    fz_job J;
    fz_rows L = {0};
    trv_status st = fz_map_prepare(ctx, e, o->soils_path, &J);
    const run_load_opts lopts = {.progress = "read"};
    if (!st)
        st = run_load(ctx, o->dir, LAYERS_READ, NLAYERS, &lopts, &in);
    const geo_grid *g = st ? NULL : in.grid;
    const size_t cells = g ? (size_t)g->nx * g->ny : 0;
    for (int k = 0; k < NLAYERS && !st; k++) {
        const geo_raster *r = in.layer[LAYERS_READ[k]];
        fz_rows_layer(&L, LAYERS_READ[k], r->type == GEO_F32 ? (const void *)r->f32 : (const void *)r->u8,
                      r->has_nodata, r->nodata);
    }
    if (!st) /* every soil code must be in the table */
        st = fz_map_check_soil(ctx, &J, &L, cells, in.path[RUN_SOIL], o->soils_path);
    if (!st && !(st = geo_raster_new(ctx, g, GEO_F32, &m->cost)) && !(st = geo_raster_new(ctx, g, GEO_U8, &m->cls)) &&
        !(st = fz_map_classes(ctx, e, &m->classes)) && !(st = geo_raster_set_label(ctx, m->cost, FZ_COST_DESC, NULL)))
        st = geo_raster_set_label(ctx, m->cls, FZ_CLASS_DESC, NULL);
    double t1 = trv_now_s();
    if (!st) {
        m->cls->classes = m->classes;
        const int band = g->ny / 50 > 16 ? g->ny / 50 : 16; /* rows between progress reports */
        for (int y = 0; y < g->ny && !st; y += band) {
            int y1 = y + band < g->ny ? y + band : g->ny;
            if (!(st = fz_map_rows(ctx, &J, &L, g->nx, y, y1, o->threads, m->cost->f32, m->cls->u8)))
                st = trv_progress(ctx, (double)y1 / g->ny, "cost");
        }
    }
    double t2 = trv_now_s();
    if (!st) {
        double sum = 0;
        size_t go = 0;
        fz_map_count(m, &L, m->cost->f32, m->cls->u8, cells, &sum, &go);
        m->cost_mean_go = go ? sum / (double)go : NAN;
        m->seconds_read = t1 - t0;
        m->seconds_infer = t2 - t1;
    }
    run_stack_clear(&in);
    if (st)
        fz_map_clear(m);
    return st;
}

trv_status fz_map_write(trv_ctx *ctx, trv_outset *set, fz_map *m, const char *dir, const trv_meta *meta)
{
    double t0 = trv_now_s();
    const char *const names[2] = {run_file(RUN_COST), run_file(RUN_CLASS)};
    const geo_raster *layers[2] = {m->cost, m->cls};
    trv_status st = trv_outset_mkdir(ctx, set, dir);
    for (int k = 0; k < 2 && !st; k++) {
        char *final = trv_path_join(dir, names[k]);
        const char *tmp = final ? trv_outset_add(set, final) : NULL;
        st = tmp ? geo_raster_write(ctx, layers[k], tmp, meta) : trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
        if (!st)
            st = trv_progress(ctx, (k + 1) / 3.0, "write");
        free(final);
    }
    if (!st)
        st = trv_progress(ctx, 1.0, "write");
    m->seconds_write = trv_now_s() - t0;
    return st;
}
