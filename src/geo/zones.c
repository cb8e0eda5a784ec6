/* Zones and crossings read and checked (zones.h): the features into
 * segments, the segments' bucket index, the burn raster. */
#define _POSIX_C_SOURCE 200809L
#include "zones.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

void geo_zones_free(geo_zones *z)
{
    if (!z)
        return;
    free(z->path);
    free(z->crossings_path);
    free(z->z);
    free(z->seg);
    free(z->seg_zone);
    free(z->c);
    free(z->bstart);
    free(z->bseg);
    free(z->burn);
    if (z->tiles_free)
        z->tiles_free(z->tiles);
    free(z->added_name);
    free(z);
}

const char *geo_zone_source(const geo_zones *z, int k)
{
    return z->added_name && k >= z->added_from ? z->added_name : z->path;
}

int geo_zones_push_seg(geo_zones *z, int *cap, int zone, double x0, double y0, double x1, double y1)
{
    if (z->nseg == *cap) {
        int nc = *cap ? 2 * *cap : 256;
        double *s = realloc(z->seg, (size_t)nc * 4 * sizeof *s);
        if (s)
            z->seg = s;
        int *sz = s ? realloc(z->seg_zone, (size_t)nc * sizeof *sz) : NULL;
        if (!sz)
            return -1;
        z->seg_zone = sz, *cap = nc;
    }
    double *s = z->seg + 4 * (size_t)z->nseg;
    s[0] = x0, s[1] = y0, s[2] = x1, s[3] = y1;
    z->seg_zone[z->nseg++] = zone;
    return 0;
}

/* The effect and value of feature f, checked. */
static trv_status zone_attrs(trv_ctx *ctx, const char *path, const geo_vlayer *l, const geo_feature *f, int line,
                             geo_zone *zn)
{
    int fe = geo_vlayer_field(l, "effect"), fv = geo_vlayer_field(l, "value");
    const char *e = fe >= 0 ? f->str[fe] : NULL;
    if (!e)
        return trv_error(ctx, TRV_ERR_DATA, "'%s': feature %ld has no effect (nogo, factor or max_speed)", path,
                         f->fid);
    zn->effect = !strcasecmp(e, "nogo") ? GEO_ZONE_NOGO : !strcasecmp(e, "factor") ? GEO_ZONE_FACTOR
               : !strcasecmp(e, "max_speed") ? GEO_ZONE_MAX_SPEED : 0;
    if (!zn->effect)
        return trv_error(ctx, TRV_ERR_DATA, "'%s': feature %ld has an unknown effect '%s' (nogo, factor or max_speed)",
                         path, f->fid, e);
    if (zn->effect == GEO_ZONE_NOGO)
        return TRV_OK;
    if (line)
        return trv_error(ctx, TRV_ERR_DATA, "'%s': feature %ld is a line with effect %s: a line has no inside, only "
                         "nogo (a barrier) applies to lines", path, f->fid, e);
    zn->value = fv >= 0 ? f->num[fv] : NAN;
    if (!isfinite(zn->value) || zn->value <= 0)
        return trv_error(ctx, TRV_ERR_DATA, "'%s': feature %ld: the %s value must be a number > 0 (%s)", path, f->fid,
                         e, fv >= 0 && f->str[fv] ? f->str[fv] : "none");
    return TRV_OK;
}

/* Feature f as one zone: its kind, validity, segments and box. */
static trv_status add_zone(trv_ctx *ctx, const char *path, const geo_vlayer *l, const geo_feature *f, geo_zones *z,
                           int *cap)
{
    if (!f->has_geom || f->nshapes == 0)
        return trv_error(ctx, TRV_ERR_DATA, "'%s': feature %ld has no geometry", path, f->fid);
    int line = f->shapes[0].kind == GEO_LINE;
    geo_zone *zn = &z->z[z->n];
    memset(zn, 0, sizeof *zn);
    zn->fid = f->fid, zn->line = line, zn->s0 = z->nseg;
    zn->box[0] = zn->box[1] = INFINITY, zn->box[2] = zn->box[3] = -INFINITY;
    for (int p = 0; p < f->nshapes; p++) {
        const geo_shape *s = &f->shapes[p];
        char why[256];
        if (s->kind == GEO_POINT || (s->kind == GEO_LINE) != line)
            return trv_error(ctx, TRV_ERR_DATA, "'%s': feature %ld is %s: a zone is a polygon or a line", path,
                             f->fid, s->kind == GEO_POINT ? "a point" : "a mix of lines and polygons");
        int v = geo_shape_valid(s, why, sizeof why);
        if (v < 0)
            return trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
        if (!v)
            return trv_error(ctx, TRV_ERR_DATA, "'%s': feature %ld is not a valid polygon: %s", path, f->fid, why);
        int nr = line ? 1 : s->nrings;
        for (int r = 0; r < nr; r++) {
            int a = line ? 0 : s->start[r], b = line ? s->n : s->start[r + 1];
            for (int k = a; k < b; k++) {
                double x = s->xy[2 * k], y = s->xy[2 * k + 1];
                zn->box[0] = fmin(zn->box[0], x), zn->box[1] = fmin(zn->box[1], y);
                zn->box[2] = fmax(zn->box[2], x), zn->box[3] = fmax(zn->box[3], y);
                if (k + 1 < b && geo_zones_push_seg(z, cap, z->n, x, y, s->xy[2 * k + 2], s->xy[2 * k + 3]))
                    return trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
            }
        }
        if (line && s->n < 2)
            return trv_error(ctx, TRV_ERR_DATA, "'%s': feature %ld is a line of one vertex", path, f->fid);
    }
    zn->s1 = z->nseg;
    trv_status st = zone_attrs(ctx, path, l, f, line, zn);
    if (!st)
        z->n++;
    return st;
}

/* Every layer's features of a file read into wkt, checked: a CRS, some features. */
static trv_status read_file(trv_ctx *ctx, const char *path, const char *wkt, geo_vfile **v, long *nf)
{
    trv_status st = geo_vector_read(ctx, path, NULL, wkt, GEO_VREAD_FEATURES, v);
    if (st)
        return st;
    *nf = 0;
    for (int i = 0; i < (*v)->nlayers; i++) {
        if (!(*v)->layers[i].has_geom) /* a table (a GeoPackage's layer_styles) */
            continue;
        if (!(*v)->layers[i].wkt && (*v)->layers[i].n > 0)
            return trv_error(ctx, TRV_ERR_CRS, "'%s' (layer %s) has no CRS: give the file one", path,
                             (*v)->layers[i].name);
        *nf += (*v)->layers[i].n;
    }
    if (*nf == 0)
        return trv_error(ctx, TRV_ERR_DATA, "'%s' holds no features", path);
    return TRV_OK;
}

static trv_status read_zones(trv_ctx *ctx, const char *path, const char *wkt, geo_zones *z)
{
    geo_vfile *v = NULL;
    long nf;
    trv_status st = read_file(ctx, path, wkt, &v, &nf);
    if (!st && !(z->z = calloc((size_t)nf, sizeof *z->z)))
        st = trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
    int cap = 0;
    for (int i = 0; !st && i < v->nlayers; i++)
        for (long k = 0; !st && v->layers[i].has_geom && k < v->layers[i].n; k++)
            st = add_zone(ctx, path, &v->layers[i], &v->layers[i].f[k], z, &cap);
    geo_vfile_free(v);
    return st;
}

static trv_status read_crossings(trv_ctx *ctx, const char *path, const char *wkt, double r_map, double mpu,
                                 geo_zones *z)
{
    geo_vfile *v = NULL;
    long nf;
    trv_status st = read_file(ctx, path, wkt, &v, &nf);
    if (!st && !(z->c = calloc((size_t)nf, sizeof *z->c)))
        st = trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
    for (int i = 0; !st && i < v->nlayers; i++) {
        const geo_vlayer *l = &v->layers[i];
        int fr = geo_vlayer_field(l, "radius");
        for (long k = 0; !st && l->has_geom && k < l->n; k++) {
            const geo_feature *f = &l->f[k];
            double r = fr >= 0 && f->str[fr] ? f->num[fr] / mpu : r_map;
            if (f->geom != GEO_POINT || f->nshapes != 1)
                st = trv_error(ctx, TRV_ERR_DATA, "'%s': feature %ld is not a point: a crossing is a point", path,
                               f->fid);
            else if (!isfinite(r) || r <= 0)
                st = trv_error(ctx, TRV_ERR_DATA, "'%s': feature %ld: the radius must be a number > 0 (%s)", path,
                               f->fid, fr >= 0 && f->str[fr] ? f->str[fr] : "none");
            else
                z->c[z->nc++] = (geo_crossing){f->fid, f->shapes[0].xy[0], f->shapes[0].xy[1], r};
        }
    }
    geo_vfile_free(v);
    return st;
}

/* The buckets: the segments' box cut into at most 256 x 256 squares. */
trv_status geo_zones_index(trv_ctx *ctx, geo_zones *z)
{
    double b[4] = {INFINITY, INFINITY, -INFINITY, -INFINITY};
    for (int k = 0; k < z->n; k++)
        b[0] = fmin(b[0], z->z[k].box[0]), b[1] = fmin(b[1], z->z[k].box[1]),
        b[2] = fmax(b[2], z->z[k].box[2]), b[3] = fmax(b[3], z->z[k].box[3]);
    double ext = fmax(b[2] - b[0], b[3] - b[1]);
    z->bx0 = b[0], z->by0 = b[1], z->bsize = ext > 0 ? ext / 256 : 1;
    z->bnx = (int)((b[2] - b[0]) / z->bsize) + 1, z->bny = (int)((b[3] - b[1]) / z->bsize) + 1;
    size_t nb = (size_t)z->bnx * z->bny;
    free(z->bstart), free(z->bseg), z->bseg = NULL;
    z->bstart = calloc(nb + 1, sizeof *z->bstart);
    if (!z->bstart)
        return trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
    for (int pass = 0; pass < 2; pass++) {
        for (int s = 0; s < z->nseg; s++) {
            const double *q = z->seg + 4 * (size_t)s;
            int c0 = (int)((fmin(q[0], q[2]) - z->bx0) / z->bsize), c1 = (int)((fmax(q[0], q[2]) - z->bx0) / z->bsize);
            int r0 = (int)((fmin(q[1], q[3]) - z->by0) / z->bsize), r1 = (int)((fmax(q[1], q[3]) - z->by0) / z->bsize);
            for (int r = r0; r <= r1; r++)
                for (int c = c0; c <= c1; c++) {
                    size_t k = (size_t)r * z->bnx + c;
                    if (pass == 0)
                        z->bstart[k + 1]++;
                    else
                        z->bseg[z->bstart[k]++] = s;
                }
        }
        if (pass == 0) {
            for (size_t k = 0; k < nb; k++)
                z->bstart[k + 1] += z->bstart[k];
            if (!(z->bseg = malloc(((size_t)z->bstart[nb] + 1) * sizeof *z->bseg)))
                return trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
        } else { /* the second pass moved each start to the next bucket's */
            memmove(z->bstart + 1, z->bstart, nb * sizeof *z->bstart);
            z->bstart[0] = 0;
        }
    }
    return TRV_OK;
}

static trv_status zones_read(trv_ctx *ctx, const char *path, const char *crossings, double radius_m, const geo_grid *g,
                             int burn, geo_zones **out)
{
    *out = NULL;
    geo_zones *z = calloc(1, sizeof *z);
    if (!z || !(z->path = strdup(path)) || (crossings && !(z->crossings_path = strdup(crossings)))) {
        geo_zones_free(z);
        return trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
    }
    z->skip = -1;
    double mpu = geo_crs_metres_per_unit(g->wkt);
    trv_status st = read_zones(ctx, path, g->wkt, z);
    if (!st && crossings)
        st = read_crossings(ctx, crossings, g->wkt, radius_m > 0 ? radius_m / mpu : g->gt[1], mpu, z);
    if (!st)
        st = geo_zones_index(ctx, z);
    z->min_factor = 1;
    for (int k = 0; k < z->n; k++)
        if (z->z[k].effect == GEO_ZONE_FACTOR && z->z[k].value < z->min_factor)
            z->min_factor = z->z[k].value;
    if (!st && burn)
        st = geo_zones_burn(ctx, g, z);
    if (st) {
        geo_zones_free(z);
        return st;
    }
    *out = z;
    return TRV_OK;
}

trv_status geo_zones_read(trv_ctx *ctx, const char *path, const char *crossings, double radius_m, const geo_grid *g,
                          geo_zones **out)
{
    return zones_read(ctx, path, crossings, radius_m, g, 1, out);
}

trv_status geo_zones_read_unburnt(trv_ctx *ctx, const char *path, const char *crossings, double radius_m,
                                  const geo_grid *g, geo_zones **out)
{
    return zones_read(ctx, path, crossings, radius_m, g, 0, out);
}
