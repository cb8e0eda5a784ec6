/* The route explained (profile.h): the statistics' walk row by row, the
 * time shares, and their CSV, console and JSON forms. */
#include "prm/profile.h"
#include "prm_priv.h"
#include "zones.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

void prm_profile_clear(prm_profile *p)
{
    free(p->dist_m);
    free(p->len_m);
    free(p->elev_m);
    free(p->along);
    free(p->across);
    free(p->speed_kmh);
    free(p->time_s);
    free(p->cost);
    free(p->limit);
    free(p->soil);
    free(p->landuse);
    free(p->zone);
    free(p->zone_s);
    memset(p, 0, sizeof *p);
}

/* Horn's gradient of cell i (dz/dE, dz/dN, m/m): the pace's own when the
 * times are direction-aware, else the same differences of dem.tif. */
static void cell_grad(const prm_terrain *t, long i, double *ge, double *gn)
{
    if (t->aniso) {
        long k = prm_at(t, i);
        *ge = t->aniso->grad[2 * k], *gn = t->aniso->grad[2 * k + 1];
        return;
    }
    const geo_grid *g = t->grid;
    const geo_raster *dem = t->dem;
    int nx = g->nx, ny = g->ny, x = (int)(i % nx), y = (int)(i / nx);
    /* the 3 x 3 window on the grid (wherever the layout keeps it): columns
     * x - left .. x + right, so that the edges extrapolate as on the grid */
    int left = x > 0, right = x + 1 < nx, lw = left + 1 + right;
    float w[3][3];
    for (int r = y > 0 ? -1 : 0; r <= (y + 1 < ny); r++)
        for (int c = -left; c <= right; c++) {
            long j = (long)(y + r) * nx + x + c;
            prm_need(t, j, PRM_HAVE_ALL);
            w[r + 1][c + left] = dem->f32[prm_at(t, j)];
        }
    double mpu = geo_crs_metres_per_unit(g->wkt), gx = 0, gy = 0;
    geo_horn_diff(y > 0 ? w[0] : NULL, w[1], y + 1 < ny ? w[2] : NULL, lw, left, dem->has_nodata, (float)dem->nodata,
                  &gx, &gy);
    *ge = gx / (8 * g->gt[1] * mpu);
    *gn = -gy / (8 * fabs(g->gt[5]) * mpu); /* gy is south minus north */
}

/* The zones' time in the cells of one segment (prm_zones_cells), in walk order. */
typedef struct zcells {
    int n, cap, at;         /* at: the next to match */
    long *cell;
    double *dt;
    int *zone;
} zcells;

typedef struct rows {
    const prm_terrain *t;
    prm_profile *p;
    int cap, nomem;
    double mpu, dist;
    const prm_path *path;
    int seg;                /* the segment zc holds, -1 none yet */
    zcells zc;
} rows;

static void zcell(long cell, double dt, int zone, void *user)
{
    rows *r = user;
    zcells *z = &r->zc;
    if (z->n == z->cap) {
        int cap = z->cap ? 2 * z->cap : 64;
        long *c = realloc(z->cell, (size_t)cap * sizeof *c);
        double *d = c ? realloc(z->dt, (size_t)cap * sizeof *d) : NULL;
        int *k = d ? realloc(z->zone, (size_t)cap * sizeof *k) : NULL;
        if (c)
            z->cell = c;
        if (d)
            z->dt = d;
        if (!k) {
            r->nomem = 1;
            return;
        }
        z->zone = k, z->cap = cap;
    }
    z->cell[z->n] = cell, z->dt[z->n] = dt, z->zone[z->n++] = zone;
}

/* The zones' added time in cell i of segment seg (map units) and the zone (index), -1 none. */
static double zone_time(rows *r, int seg, long i, int *zone)
{
    zcells *z = &r->zc;
    if (seg != r->seg) {
        const prm_path *p = r->path;
        z->n = z->at = 0, r->seg = seg;
        prm_zones_cells(r->t, p->x[seg], p->y[seg], p->x[seg + 1], p->y[seg + 1], zcell, r);
    }
    for (int k = z->at; k < z->n; k++)
        if (z->cell[k] == i) {
            z->at = k + 1, *zone = z->zone[k];
            return z->dt[k];
        }
    *zone = -1;
    return 0;
}

static int grow(rows *r)
{
    prm_profile *p = r->p;
    int cap = r->cap ? 2 * r->cap : 256;
    double **d[9] = {&p->dist_m, &p->len_m,     &p->elev_m, &p->along, &p->across,
                     &p->speed_kmh, &p->time_s, &p->cost,   &p->zone_s};
    long *zf = realloc(p->zone, (size_t)cap * sizeof *zf);
    if (!zf)
        return -1;
    p->zone = zf;
    for (int k = 0; k < 9; k++) {
        double *q = realloc(*d[k], (size_t)cap * sizeof **d[k]);
        if (!q)
            return -1;
        *d[k] = q;
    }
    int *l = realloc(p->limit, (size_t)cap * sizeof *l);
    if (!l)
        return -1;
    p->limit = l;
    unsigned char *s = realloc(p->soil, cap);
    if (!s)
        return -1;
    p->soil = s;
    unsigned char *u = realloc(p->landuse, cap);
    if (!u)
        return -1;
    p->landuse = u;
    r->cap = cap;
    return 0;
}

static void row_piece(const prm_path_piece *pc, void *user)
{
    rows *r = user;
    prm_profile *p = r->p;
    const prm_terrain *t = r->t;
    if (r->nomem || (p->n == r->cap && grow(r))) {
        r->nomem = 1;
        return;
    }
    long i = pc->cell, at = prm_at(t, i);
    int k = p->n++;
    double ge, gn, len = pc->len * r->mpu;
    cell_grad(t, i, &ge, &gn);
    r->dist += len;
    p->dist_m[k] = r->dist;
    p->len_m[k] = len;
    p->elev_m[k] = t->dem->f32[at];
    p->along[k] = ge * pc->ux + gn * pc->uy;
    p->across[k] = -ge * pc->uy + gn * pc->ux;
    p->speed_kmh[k] = pc->speed_kmh;
    int zk = -1;
    double dz = t->zones ? zone_time(r, pc->seg, i, &zk) : 0;
    p->zone[k] = zk >= 0 ? t->zones->z[zk].fid : -1;
    p->zone_s[k] = dz * r->mpu;
    p->time_s[k] = (pc->time + dz) * r->mpu;
    p->cost[k] = t->cost->f32[at];
    p->limit[k] = pc->speed_kmh > 0 ? prm_limit_at(t, i, pc->ux, pc->uy) : t->aniso ? TM_LIMIT_NOGO : -1;
    int pair = t->aniso ? t->aniso->pair[at] : 0xffff;
    p->soil[k] = pair != 0xffff ? t->aniso->codes[2 * pair] : 0;
    p->landuse[k] = pair != 0xffff ? t->aniso->codes[2 * pair + 1] : 0;
}

trv_status prm_profile_make(trv_ctx *ctx, const prm_terrain *t, const prm_path *path, prm_profile *out)
{
    memset(out, 0, sizeof *out);
    rows r = {t, out, 0, 0, t->cell_m / t->grid->gt[1], 0, path, -1, {0}};
    prm_path_pieces(t, path, row_piece, &r);
    free(r.zc.cell);
    free(r.zc.dt);
    free(r.zc.zone);
    if (r.nomem) {
        prm_profile_clear(out);
        return trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
    }
    return TRV_OK;
}

void prm_profile_shares(const prm_profile *p, prm_time_shares *out)
{
    memset(out, 0, sizeof *out);
    for (int k = 0; k < p->n; k++) {
        double s = p->time_s[k];
        out->total_s += s;
        out->landuse[p->landuse[k]] += s;
        out->limit[p->limit[k] >= 0 ? p->limit[k] : TM_NLIMIT_CODES] += s;
        if (p->zone[k] < 0)
            continue;
        int q = 0; /* the zone's slot; the last one takes the rest */
        while (q < out->nzones && out->zone_fid[q] != p->zone[k] && q < PRM_SHARE_ZONES - 1)
            q++;
        if (q == out->nzones)
            out->zone_fid[out->nzones++] = q < PRM_SHARE_ZONES - 1 ? p->zone[k] : -1;
        out->zone[q] += p->zone_s[k];
    }
    double T = out->total_s > 0 && isfinite(out->total_s) ? out->total_s : NAN;
    for (int c = 0; c < 256; c++)
        out->landuse[c] /= T;
    for (int c = 0; c <= TM_NLIMIT_CODES; c++)
        out->limit[c] /= T;
    for (int q = 0; q < out->nzones; q++)
        out->zone[q] /= T;
}

trv_status prm_profiles_make(trv_ctx *ctx, const prm_terrain *t, const prm_result *routes, int n,
                             prm_profiles **out)
{
    prm_profiles *P = calloc(1, sizeof *P);
    if (!P)
        return trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
    P->zoned = t->zones != NULL;
    const prm_aniso *a = t->aniso;
    for (int c = 1; a && c < 255; c++) {
        if (a->m->soil_index[c] >= 0)
            trv_sfmt(P->soil[c], sizeof P->soil[c], "%d", c);
        if (a->m->landuse_nogo[c] != 2)
            trv_sfmt(P->landuse[c], sizeof P->landuse[c], "%s", a->m->lu_name[c]);
    }
    for (int k = 0; a && a->owns_model && k < a->rm.soils->n; k++)
        if (a->rm.soils->s[k].code > 0 && a->rm.soils->s[k].code < 256)
            trv_sfmt(P->soil[a->rm.soils->s[k].code], sizeof P->soil[0], "%s", a->rm.soils->s[k].name);
    for (int k = 0; k < n && k < PRM_MISSION_MAX; k++) {
        trv_status st = prm_profile_make(ctx, t, &routes[k].path, &P->route[k]);
        if (st) {
            prm_profiles_free(P);
            return st;
        }
        snprintf(P->route[k].name, sizeof P->route[k].name, "%s", routes[k].name);
        P->n = k + 1;
    }
    *out = P;
    return TRV_OK;
}

void prm_profiles_free(prm_profiles *p)
{
    for (int k = 0; p && k < p->n; k++)
        prm_profile_clear(&p->route[k]);
    free(p);
}

static const char *limit_name(int code)
{
    const char *s = tm_limit_name(code);
    return s ? s : "";
}

trv_status prm_profiles_write_csv(trv_ctx *ctx, const prm_profiles *P, const char *tmp, const char *path)
{
    FILE *f = fopen(tmp, "w");
    if (!f)
        return trv_error(ctx, TRV_ERR_IO, "cannot create '%s': %s", path, strerror(errno));
    fprintf(f, "route,dist_m,len_m,elevation_m,grade_along_pct,grade_across_pct,soil,landuse,speed_kmh,limit,time_s,"
               "cum_time_s,cost%s\n", P->zoned ? ",zone,zone_time_s" : "");
    for (int r = 0; r < P->n; r++) {
        const prm_profile *p = &P->route[r];
        double cum = 0;
        for (int k = 0; k < p->n; k++) {
            cum += p->time_s[k];
            fprintf(f, "%s,%.3f,%.4f,%.2f,%.2f,%.2f,", p->name, p->dist_m[k], p->len_m[k], p->elev_m[k],
                    100 * p->along[k], 100 * p->across[k]);
            trv_csv_put(f, P->soil[p->soil[k]]);
            fputc(',', f);
            trv_csv_put(f, P->landuse[p->landuse[k]]);
            fprintf(f, ",%.3f,%s,%.6f,%.4f,%.4f", p->speed_kmh[k], limit_name(p->limit[k]), p->time_s[k], cum,
                    p->cost[k]);
            if (P->zoned && p->zone[k] >= 0)
                fprintf(f, ",%ld,%.6f", p->zone[k], p->zone_s[k]);
            else if (P->zoned)
                fputs(",,0", f);
            fputc('\n', f);
        }
    }
    int bad = ferror(f);
    if (fclose(f) != 0 || bad)
        return trv_error(ctx, TRV_ERR_IO, "cannot write '%s': %s", path, strerror(errno));
    return TRV_OK;
}

/* A share's name and value, to sort them largest first (ties: by code). */
typedef struct share {
    const char *name;
    int code;
    double v;
} share;

static int cmp_share(const void *a, const void *b)
{
    const share *x = a, *y = b;
    if (x->v != y->v)
        return x->v > y->v ? -1 : 1;
    return (x->code > y->code) - (x->code < y->code);
}

/* The zones' shares, largest first, named "feature N" (names: their
 * text); their count. */
static int sorted_zones(const prm_time_shares *s, share out[256], char names[PRM_SHARE_ZONES][32])
{
    int n = 0;
    for (int q = 0; q < s->nzones; q++) {
        if (s->zone_fid[q] >= 0)
            trv_sfmt(names[q], sizeof names[q], "feature %ld", s->zone_fid[q]);
        else
            trv_sfmt(names[q], sizeof names[q], "other zones");
        if (s->zone[q] != 0)
            out[n++] = (share){names[q], q, s->zone[q]};
    }
    qsort(out, n, sizeof *out, cmp_share);
    return n;
}

/* The non-zero shares of one kind (0: land use, 1: limit, 2: zone; names:
 * the zones' text), largest first; returns their count (unknown named
 * "unknown"). */
static int sorted(const prm_profiles *P, const prm_time_shares *s, int kind, share out[256],
                  char names[PRM_SHARE_ZONES][32])
{
    if (kind == 2)
        return sorted_zones(s, out, names);
    int n = 0;
    int m = kind ? TM_NLIMIT_CODES + 1 : 256;
    for (int c = 0; c < m; c++) {
        double v = kind ? s->limit[c] : s->landuse[c];
        if (!(v > 0))
            continue;
        const char *name = kind ? (c < TM_NLIMIT_CODES ? tm_limit_name(c) : "unknown") : P->landuse[c];
        out[n++] = (share){name[0] ? name : "unknown", c, v};
    }
    qsort(out, n, sizeof *out, cmp_share);
    return n;
}

trv_status prm_time_shares_write_csv(trv_ctx *ctx, const prm_profiles *P, const char *tmp, const char *path)
{
    FILE *f = fopen(tmp, "w");
    if (!f)
        return trv_error(ctx, TRV_ERR_IO, "cannot create '%s': %s", path, strerror(errno));
    fprintf(f, "route,kind,name,time_s,share\n");
    static const char *const kinds[3] = {"landuse", "limit", "zone"};
    for (int r = 0; r < P->n; r++) {
        prm_time_shares s;
        share sh[256];
        char zn[PRM_SHARE_ZONES][32];
        prm_profile_shares(&P->route[r], &s);
        for (int kind = 0; kind < 3; kind++) {
            int n = sorted(P, &s, kind, sh, zn);
            for (int k = 0; k < n; k++) {
                fprintf(f, "%s,%s,", P->route[r].name, kinds[kind]);
                trv_csv_put(f, sh[k].name);
                fprintf(f, ",%.3f,%.6f\n", sh[k].v * s.total_s, sh[k].v);
            }
        }
    }
    int bad = ferror(f);
    if (fclose(f) != 0 || bad)
        return trv_error(ctx, TRV_ERR_IO, "cannot write '%s': %s", path, strerror(errno));
    return TRV_OK;
}

void prm_time_shares_line(const prm_profiles *P, int k, char *buf, size_t len)
{
    prm_time_shares s;
    share sh[256];
    char zn[PRM_SHARE_ZONES][32];
    prm_profile_shares(&P->route[k], &s);
    size_t o = 0;
    buf[0] = 0;
    for (int kind = 0; kind < (s.nzones ? 3 : 2); kind++) {
        int n = sorted(P, &s, kind, sh, zn);
        const char *head = kind == 2 ? "; zone" : kind ? "; limit" : "land use";
        o += (size_t)trv_sfmt(buf + o, o < len ? len - o : 0, "%s%s", head, n ? "" : " -");
        for (int q = 0; q < n && o < len; q++)
            o += (size_t)trv_sfmt(buf + o, len - o, "%s %s %.1f %%", q ? "," : "", sh[q].name, 100 * sh[q].v);
    }
}

void prm_time_shares_json(trv_json *js, const prm_profiles *P, int k)
{
    static const char *const kinds[3] = {"landuse", "limit", "zone"};
    prm_time_shares s;
    share sh[256];
    char zn[PRM_SHARE_ZONES][32];
    prm_profile_shares(&P->route[k], &s);
    trv_json_obj(js, "time_shares");
    for (int kind = 0; kind < (s.nzones ? 3 : 2); kind++) {
        int n = sorted(P, &s, kind, sh, zn);
        trv_json_obj(js, kinds[kind]);
        for (int q = 0; q < n; q++)
            trv_json_num(js, sh[q].name, "%.10g", sh[q].v);
        trv_json_end(js);
    }
    trv_json_end(js);
}
