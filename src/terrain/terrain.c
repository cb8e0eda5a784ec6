/* Terrain fusion: DEM + soil + land use on one grid, with slope. */
#include "terrain.h"
#include "core/fixed.h"
#include "run/run.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

void ter_opts_init(ter_opts *o)
{
    memset(o, 0, sizeof *o);
    o->resample = GEO_MODE;
}

void ter_layers_clear(ter_layers *t)
{
    geo_raster_free(t->dem);
    geo_raster_free(t->slope);
    geo_raster_free(t->soil);
    geo_raster_free(t->landuse);
    geo_classes_free(t->soil_classes);
    geo_classes_free(t->landuse_classes);
    memset(t, 0, sizeof *t);
}

static trv_status check_dem(trv_ctx *ctx, const char *path, const geo_raster *dem)
{
    if (!dem->grid.wkt)
        return trv_error(ctx, TRV_ERR_CRS, "'%s' has no CRS (assign one, e.g. gdal_edit.py -a_srs EPSG:...)", path);
    int geographic = geo_crs_is_geographic(dem->grid.wkt);
    if (geographic < 0)
        return trv_error(ctx, TRV_ERR_CRS, "cannot read the CRS of '%s'", path);
    if (geographic) {
        char *utm = NULL, label[64] = "its UTM zone";
        if (geo_crs_choose(ctx, &dem->grid, NULL, &utm) == TRV_OK)
            geo_crs_label(utm, label, sizeof label);
        free(utm);
        return trv_error(ctx, TRV_ERR_CRS,
                         "'%s' is in a geographic CRS (degrees) and slope needs metres: reproject it first "
                         "(trv-krige, or gdalwarp -t_srs %s)",
                         path, label);
    }
    if (geo_raster_count_valid(dem) == 0)
        return trv_error(ctx, TRV_ERR_DATA, "'%s' holds only nodata", path);
    return TRV_OK;
}

/* Align one categorical map onto the DEM grid, mask it to the DEM's data
 * cells, and check its codes against the class table. */
static trv_status fuse_classes(trv_ctx *ctx, const ter_opts *o, const char *path, const char *classes_path,
                               const geo_classes *cl, const geo_raster *dem, geo_raster **out, double *cover)
{
    geo_raster *src = NULL, *r = NULL;
    trv_status st = geo_raster_read_categorical_for(ctx, path, &dem->grid, &src);
    if (st == TRV_ERR_GRID)
        return trv_error(ctx, st, "'%s' does not overlap the DEM '%s'", path, o->dem_path);
    if (st)
        return st;
    if (geo_raster_count_valid(src) == 0) {
        geo_raster_free(src);
        return trv_error(ctx, TRV_ERR_DATA, "'%s' holds only nodata over the DEM '%s'", path, o->dem_path);
    }
    src->classes = cl;
    st = geo_align_categorical(ctx, src, &dem->grid, o->resample, &r);
    geo_raster_free(src);
    if (st)
        return st;
    size_t n = (size_t)dem->grid.nx * dem->grid.ny, covered = 0, valid = 0;
    for (size_t i = 0; i < n; i++) {
        if (geo_raster_is_nodata(dem, i)) {
            r->u8[i] = 0;
            continue;
        }
        valid++;
        if (r->u8[i] == 0)
            continue;
        covered++;
        if (geo_classes_find(cl, r->u8[i]) < 0) {
            int code = r->u8[i];
            geo_raster_free(r);
            return trv_error(ctx, TRV_ERR_DATA, "'%s': class %d is not in the class table '%s'", path, code,
                             classes_path);
        }
    }
    if (covered == 0) {
        geo_raster_free(r);
        return trv_error(ctx, TRV_ERR_GRID, "'%s' does not overlap the data of the DEM '%s'", path, o->dem_path);
    }
    *cover = (double)covered / (double)valid;
    if (covered < valid)
        trv_info(ctx, 1, "warning: '%s' covers %.2f %% of the DEM's data cells; the other %zu cells have no class",
                 path, 100.0 * *cover, valid - covered);
    *out = r;
    return TRV_OK;
}

trv_status ter_build(trv_ctx *ctx, const ter_opts *o, ter_layers *t)
{
    memset(t, 0, sizeof *t);
    trv_status st;
    if ((st = geo_classes_read(ctx, o->soil_classes_path, &t->soil_classes)) ||
        (st = geo_classes_read(ctx, o->landuse_classes_path, &t->landuse_classes)) ||
        (st = geo_raster_read(ctx, o->dem_path, GEO_F32, &t->dem)) || (st = check_dem(ctx, o->dem_path, t->dem)))
        goto fail;
    /* one nodata value for every Float32 layer traverse writes */
    size_t n = (size_t)t->dem->grid.nx * t->dem->grid.ny;
    for (size_t i = 0; i < n; i++)
        if (geo_raster_is_nodata(t->dem, i))
            t->dem->f32[i] = -9999.0f;
        else
            t->valid++;
    t->dem->nodata = -9999.0;
    if ((st = geo_raster_set_label(ctx, t->dem, "elevation", "m")))
        goto fail;
    if ((st = fuse_classes(ctx, o, o->soil_path, o->soil_classes_path, t->soil_classes, t->dem, &t->soil,
                           &t->soil_cover)) ||
        (st = fuse_classes(ctx, o, o->landuse_path, o->landuse_classes_path, t->landuse_classes, t->dem,
                           &t->landuse, &t->landuse_cover)))
        goto fail;
    if ((st = geo_raster_set_label(ctx, t->soil, "soil type", NULL)) ||
        (st = geo_raster_set_label(ctx, t->landuse, "land use", NULL)))
        goto fail;
    if ((st = geo_slope(ctx, t->dem, &t->slope))) {
        trv_error_prefix(ctx, st, "'%s'", o->dem_path);
        goto fail;
    }
    if ((st = geo_raster_set_label(ctx, t->slope, "slope", "degree")))
        goto fail;
    return TRV_OK;
fail:
    ter_layers_clear(t);
    return st;
}

void ter_points_rows(FILE *f, const ter_layers *t, int y)
{
    /* the bytes of "%.3f,%.3f,%.3f,%.4f,%d,%d\n" (core/fixed.h), a row at a time */
    const geo_grid *g = &t->dem->grid;
    char line[160];
    char ys[40], *ye = trv_fixed(ys, geo_grid_y(g, y), 3);
    for (int x = 0; x < g->nx; x++) {
        size_t i = (size_t)y * g->nx + x;
        if (geo_raster_is_nodata(t->dem, i))
            continue;
        char *p = trv_fixed(line, geo_grid_x(g, x), 3);
        *p++ = ',';
        for (const char *q = ys; q < ye;)
            *p++ = *q++;
        *p++ = ',';
        p = trv_fixed(p, t->dem->f32[i], 3);
        *p++ = ',';
        p = trv_fixed(p, t->slope->f32[i], 4);
        *p++ = ',';
        p = trv_uint(p, t->soil->u8[i]);
        *p++ = ',';
        p = trv_uint(p, t->landuse->u8[i]);
        *p++ = '\n';
        fwrite(line, 1, (size_t)(p - line), f);
    }
}

static trv_status write_points(trv_ctx *ctx, const ter_layers *t, const char *tmp, const char *final)
{
    FILE *f = fopen(tmp, "w");
    if (!f)
        return trv_error(ctx, TRV_ERR_IO, "cannot create '%s': %s", final, strerror(errno));
    fputs("x,y,z,slope,soil,landuse\n", f);
    for (int y = 0; y < t->dem->grid.ny; y++)
        ter_points_rows(f, t, y);
    int bad = ferror(f);
    if (fclose(f) != 0 || bad)
        return trv_error(ctx, TRV_ERR_IO, "cannot write '%s': %s", final, strerror(errno));
    return TRV_OK;
}

trv_status ter_write(trv_ctx *ctx, trv_outset *set, const ter_layers *t, const char *dir, const char *points_path,
                     const trv_meta *meta)
{
    const char *const names[4] = {run_file(RUN_DEM), run_file(RUN_SLOPE), run_file(RUN_SOIL), run_file(RUN_LANDUSE)};
    const geo_raster *layers[4] = {t->dem, t->slope, t->soil, t->landuse};
    trv_status st = trv_outset_mkdir(ctx, set, dir);
    for (int k = 0; k < 4 && !st; k++) {
        char *final = trv_path_join(dir, names[k]);
        const char *tmp = final ? trv_outset_add(set, final) : NULL;
        st = tmp ? geo_raster_write(ctx, layers[k], tmp, meta) : trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
        if (st == TRV_OK)
            st = trv_progress(ctx, (k + 1) / 5.0, "write");
        free(final);
    }
    if (!st && points_path) {
        const char *tmp = trv_outset_add(set, points_path);
        st = tmp ? write_points(ctx, t, tmp, points_path) : trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
    }
    if (!st)
        st = trv_progress(ctx, 1.0, "write");
    return st;
}
