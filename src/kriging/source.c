/* The samples of a raster DEM (krg_source, krige.h; docs/method.md §1.1):
 * every cell centre transformed into the metric working CRS, the data
 * cells as kriging points in row-major order, and the map from cells to
 * points (-1 for nodata). */
#include "krige_priv.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

void krg_source_free(krg_source *s)
{
    if (!s)
        return;
    krg_points_free(s->pts);
    free(s->point_of_cell);
    free(s->wx);
    free(s->wy);
    geo_grid_clear(&s->grid);
    free(s->work_wkt);
    free(s);
}

/* One thread's share of the cell centres, with a transformation of its own. */
typedef struct proj_part {
    geo_ct *ct;
    size_t n, bad;
    double *x, *y;
    pthread_t th;
    int started;
} proj_part;

static void *proj_run(void *arg)
{
    proj_part *p = arg;
    p->bad = geo_ct_points(p->ct, p->n, p->x, p->y, NULL);
    return NULL;
}

/* The n centres (x, y) transformed by ct, the last parts on up to threads
 * - 1 more threads (a part each, each with its own transformation from
 * `from` to `to`; a part whose thread cannot start goes to ct): each point
 * transformed on its own, so the values are the same for every thread
 * count. Returns the points that failed. */
static size_t project_centres(const char *from, const char *to, geo_ct *ct, size_t n, double *x, double *y,
                              int threads)
{
    enum { MAXPART = 16, MINPART = 4096 };
    int np = threads < MAXPART ? threads : MAXPART;
    while (np > 1 && n / (size_t)np < MINPART)
        np--;
    proj_part p[MAXPART] = {{0}};
    trv_ctx *scratch = np > 1 ? trv_ctx_new() : NULL; /* a failed transformation's message: not the caller's */
    if (!scratch)
        np = 1;
    size_t own = n; /* the centres 0 .. own - 1 stay on this thread */
    for (int k = np - 1; k >= 1; k--) {
        size_t a = n * (size_t)k / (size_t)np, b = own;
        p[k] = (proj_part){.n = b - a, .x = x + a, .y = y + a};
        if (geo_ct_create(scratch, from, to, &p[k].ct) != TRV_OK)
            break; /* the rest on this thread: the same values */
        p[k].started = pthread_create(&p[k].th, NULL, proj_run, &p[k]) == 0;
        if (!p[k].started)
            break;
        own = a;
    }
    size_t bad = geo_ct_points(ct, own, x, y, NULL);
    for (int k = 1; k < np; k++) {
        if (p[k].started) {
            pthread_join(p[k].th, NULL);
            bad += p[k].bad;
        }
        geo_ct_free(p[k].ct);
    }
    trv_ctx_free(scratch);
    return bad;
}

trv_status krg_source_new(trv_ctx *ctx, const geo_raster *dem, const char *work_wkt, int threads, krg_source **out)
{
    *out = NULL;
    krg_source *s = calloc(1, sizeof *s);
    if (!s)
        return trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
    trv_status st = geo_grid_copy(ctx, &s->grid, &dem->grid);
    geo_ct *ct = NULL;
    size_t ncell = (size_t)dem->grid.nx * dem->grid.ny, nvalid = geo_raster_count_valid(dem);
    if (!st && !(s->work_wkt = strdup(work_wkt)))
        st = trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
    if (!st)
        st = geo_ct_create(ctx, dem->grid.wkt, work_wkt, &ct);
    if (!st) {
        s->regular = geo_ct_is_identity(ct);
        s->point_of_cell = malloc(ncell * sizeof *s->point_of_cell);
        s->wx = malloc(ncell * sizeof *s->wx);
        s->wy = malloc(ncell * sizeof *s->wy);
        if (!s->point_of_cell || !s->wx || !s->wy)
            st = trv_error(ctx, TRV_ERR_NOMEM, "out of memory for %zu samples", ncell);
    }
    if (!st)
        st = krg_points_new(ctx, nvalid, &s->pts);
    if (!st) {
        int nx = dem->grid.nx;
        for (size_t i = 0; i < ncell; i++) {
            s->wx[i] = geo_grid_x(&dem->grid, (double)(i % nx));
            s->wy[i] = geo_grid_y(&dem->grid, (double)(i / nx));
        }
        /* every cell centre, data or not: blocks need their corners */
        size_t bad = project_centres(dem->grid.wkt, work_wkt, ct, ncell, s->wx, s->wy,
                                     s->regular ? 1 : krg_threads(threads));
        if (bad)
            st = trv_error(ctx, TRV_ERR_CRS, "%zu cell centres of the DEM cannot be transformed into the working CRS",
                           bad);
    }
    if (!st) {
        size_t k = 0;
        for (size_t i = 0; i < ncell; i++) {
            if (geo_raster_is_nodata(dem, i)) {
                s->point_of_cell[i] = -1;
                continue;
            }
            s->pts->x[k] = s->wx[i];
            s->pts->y[k] = s->wy[i];
            s->pts->z[k] = dem->f32[i];
            s->point_of_cell[i] = (long)k++;
        }
    }
    geo_ct_free(ct);
    if (st)
        krg_source_free(s);
    else
        *out = s;
    return st;
}
