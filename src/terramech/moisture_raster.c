/* A soil-moisture raster (%, any CRS and cell size) onto the terrain grid,
 * and each soil's moisture from it (moisture.h, tm_moisture_raster). */
#include "terramech/moisture.h"
#include "run/run.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The source cell under each target cell centre (no interpolation; cells
 * off the source or nodata there are nodata). */
static trv_status resample(trv_ctx *ctx, const geo_raster *src, const geo_grid *target, geo_raster **out)
{
    *out = NULL;
    if (!src->grid.wkt || !target->wkt)
        return trv_error(ctx, TRV_ERR_CRS, "the moisture raster and the terrain need a CRS each");
    geo_ct *ct = NULL;
    trv_status st = geo_ct_create(ctx, target->wkt, src->grid.wkt, &ct);
    const double *sg = src->grid.gt, tol = 1e-9 * fmin(sg[1], fabs(sg[5])); /* exact, as gdalwarp -et 0 */
    int nx = target->nx;
    double *xs = malloc((size_t)nx * sizeof *xs), *ys = malloc((size_t)nx * sizeof *ys);
    int *ok = malloc((size_t)nx * sizeof *ok);
    geo_raster *r = NULL;
    if (!st && (!xs || !ys || !ok))
        st = trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
    if (!st && !(st = geo_raster_new(ctx, target, GEO_F32, &r))) {
        r->has_nodata = 1;
        r->nodata = TM_MOISTURE_NODATA;
        st = geo_raster_set_label(ctx, r, "soil moisture", "%");
    }
    for (int row = 0; !st && row < target->ny; row++) {
        st = geo_ct_line(ctx, ct, target->gt[0] + 0.5 * target->gt[1], target->gt[1],
                         target->gt[3] + (row + 0.5) * target->gt[5], nx, tol, xs, ys, ok);
        for (int col = 0; !st && col < nx; col++) {
            double fc = (xs[col] - sg[0]) / sg[1], fr = (ys[col] - sg[3]) / sg[5];
            float v = TM_MOISTURE_NODATA;
            if (ok[col] && fc >= 0 && fr >= 0 && fc < src->grid.nx && fr < src->grid.ny) {
                size_t i = (size_t)fr * src->grid.nx + (size_t)fc;
                if (!geo_raster_is_nodata(src, i))
                    v = src->f32[i];
            }
            r->f32[(size_t)row * nx + col] = v;
        }
    }
    free(xs);
    free(ys);
    free(ok);
    geo_ct_free(ct);
    if (st)
        geo_raster_free(r);
    else
        *out = r;
    return st;
}

/* The median of the moisture over the cells of each soil code (the mean of
 * the two middle values for an even count), cells[code] how many; NAN for
 * a code without moisture cells. Values outside 0..100 are an error. */
static trv_status medians(trv_ctx *ctx, const geo_raster *soil, const geo_raster *m, const char *path,
                          double med[256], size_t cells[256], size_t present[256])
{
    size_t n = (size_t)soil->grid.nx * soil->grid.ny, start[257] = {0};
    memset(cells, 0, 256 * sizeof *cells);
    memset(present, 0, 256 * sizeof *present);
    for (size_t i = 0; i < n; i++) {
        float v = m->f32[i];
        present[soil->u8[i]]++;
        if (v == TM_MOISTURE_NODATA || soil->u8[i] == 0)
            continue;
        if (!(v >= 0 && v <= 100))
            return trv_error(ctx, TRV_ERR_DATA, "%s: moisture %g %% at column %zu, row %zu of the terrain grid: a "
                             "moisture raster holds percentages from 0 to 100", path, v, i % soil->grid.nx,
                             i / soil->grid.nx);
        cells[soil->u8[i]]++;
    }
    for (int c = 0; c < 256; c++)
        start[c + 1] = start[c] + cells[c];
    float *all = malloc((start[256] ? start[256] : 1) * sizeof *all);
    size_t fill[256];
    if (!all)
        return trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
    memcpy(fill, start, sizeof fill);
    for (size_t i = 0; i < n; i++)
        if (m->f32[i] != TM_MOISTURE_NODATA && soil->u8[i] != 0)
            all[fill[soil->u8[i]]++] = m->f32[i];
    for (int c = 0; c < 256; c++) {
        float *v = all + start[c];
        size_t k = cells[c];
        qsort(v, k, sizeof *v, trv_cmp_float);
        med[c] = k == 0 ? NAN : k % 2 ? v[k / 2] : 0.5 * ((double)v[k / 2 - 1] + v[k / 2]);
    }
    free(all);
    return TRV_OK;
}

trv_status tm_moisture_raster(trv_ctx *ctx, const char *path, const char *dir, geo_raster **out, double med[256],
                              size_t cells[256], size_t present[256])
{
    *out = NULL;
    char *soil_path = run_path(dir, RUN_SOIL);
    geo_raster *soil = NULL, *src = NULL, *m = NULL;
    trv_status st = soil_path ? geo_raster_read(ctx, soil_path, GEO_U8, &soil)
                              : trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
    if (!st && !(st = geo_raster_read(ctx, path, GEO_F32, &src)) && !(st = resample(ctx, src, &soil->grid, &m)))
        st = medians(ctx, soil, m, path, med, cells, present);
    geo_raster_free(soil);
    geo_raster_free(src);
    free(soil_path);
    if (st)
        geo_raster_free(m);
    else
        *out = m;
    return st;
}
