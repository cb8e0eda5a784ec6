/* Reading the run directory for the report (report_priv.h): links and
 * images of its files, the stages' JSON summaries, the simulator runs,
 * raster information through geo, and route_stats.csv. */
#define _POSIX_C_SOURCE 200809L
#include "report/report_priv.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* ---- links and images ---- */

char *rpt_link(const run *r, const char *from, const char *rel)
{
    char reldir[PATH_MAX] = ".", link[2 * PATH_MAX];
    if (from)
        trv_relpath(from, r->absdir, reldir, sizeof reldir);
    trv_sfmt(link, sizeof link, "%s%s%s", strcmp(reldir, ".") ? reldir : "", strcmp(reldir, ".") ? "/" : "", rel);
    char *out = malloc(3 * strlen(link) + 1), *o = out;
    for (const unsigned char *c = (const unsigned char *)link; out && *c; c++) {
        if ((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') || strchr("-._~/", *c))
            *o++ = (char)*c;
        else
            o += sprintf(o, "%%%02X", *c);
    }
    if (o)
        *o = '\0';
    return out;
}

static int is_png(const char *path)
{
    FILE *f = fopen(path, "rb");
    unsigned char sig[8] = {0};
    size_t n = f ? fread(sig, 1, 8, f) : 0;
    if (f)
        fclose(f);
    return n == 8 && !memcmp(sig, "\x89PNG\r\n\x1a\n", 8);
}

trv_status rpt_image(trv_ctx *ctx, doc *d, run *r, const char *rel, const char *caption, const char *id, int *added)
{
    *added = 0;
    if (!trv_file_exists(P(r, rel)))
        return TRV_OK;
    if (!is_png(r->path))
        return trv_error(ctx, TRV_ERR_FORMAT, "'%s' is not a PNG file", r->path);
    block *b = rpt_add(d, B_IMAGE);
    if (!b)
        return TRV_OK;
    b->text = strdup(caption);
    b->img_path = strdup(r->path);
    b->img_link = rpt_link(r, r->md_dir, rel);
    b->id = id ? strdup(id) : NULL;
    d->oom |= !b->text || !b->img_path || !b->img_link || (id && !b->id);
    *added = 1;
    return TRV_OK;
}

/* ---- JSON: the stages' summaries (<stage>.json, docs/summaries.md) ---- */

/* JSON through json-c (Debian libjson-c-dev, which GDAL itself uses): a
 * well-kept parser rather than one of our own. */
struct json_object *rpt_json_parse(const char *text, char *why, size_t n)
{
    struct json_tokener *tok = json_tokener_new();
    if (!tok) {
        trv_sfmt(why, n, "out of memory");
        return NULL;
    }
    size_t len = strlen(text);
    struct json_object *o = json_tokener_parse_ex(tok, text, (int)len);
    enum json_tokener_error e = json_tokener_get_error(tok);
    size_t used = json_tokener_get_parse_end(tok);
    if (o && e == json_tokener_success) {
        while (used < len && isspace((unsigned char)text[used]))
            used++;
        if (used < len) { /* something after the value */
            json_object_put(o);
            o = NULL;
            e = json_tokener_error_parse_unexpected;
        }
    } else if (!o && e == json_tokener_continue) {
        e = json_tokener_error_parse_eof; /* the text ended inside the value */
    }
    if (!o)
        trv_sfmt(why, n, "%s at byte %zu", json_tokener_error_desc(e), used);
    json_tokener_free(tok);
    return o;
}

trv_status rpt_json_object_read(trv_ctx *ctx, const char *path, struct json_object **out)
{
    *out = NULL;
    char *text = trv_file_slurp(path, NULL);
    if (!text)
        return trv_error(ctx, TRV_ERR_IO, "cannot read '%s': %s", path, strerror(errno));
    char why[128];
    struct json_object *o = rpt_json_parse(text, why, sizeof why);
    free(text);
    if (!o || json_object_get_type(o) != json_type_object) {
        json_object_put(o);
        return trv_error(ctx, TRV_ERR_FORMAT, "cannot read '%s': not a JSON object (%s)", path,
                         o ? "another JSON value" : why);
    }
    *out = o;
    return TRV_OK;
}

trv_status rpt_summary(trv_ctx *ctx, run *r, run_oid id, struct json_object **out)
{
    *out = NULL;
    if (!trv_file_exists(P(r, OTHER(id))))
        return TRV_OK;
    return rpt_json_object_read(ctx, r->path, out);
}

/* ---- simulator runs ---- */

static int is_sim_run(const char *dir, const char *name)
{
    char path[PATH_MAX];
    trv_sfmt(path, sizeof path, "%s/%s/%s", dir, name, OTHER(RUN_O_SIM_METRICS));
    return !strncmp(name, RUN_SIM_PREFIX, strlen(RUN_SIM_PREFIX)) && trv_file_exists(path);
}

char **rpt_sim_runs(const run *r)
{
    char **names = geo_dir_names(r->dir); /* sorted */
    int n = 0;
    for (int i = 0; names && names[i]; i++) {
        if (is_sim_run(r->dir, names[i]))
            names[n++] = names[i];
        else
            free(names[i]);
    }
    if (names)
        names[n] = NULL;
    if (names && !n) {
        free(names);
        names = NULL;
    }
    return names;
}

/* ---- rasters ---- */

trv_status rpt_info_read(trv_ctx *ctx, const char *path, geo_raster_info *info)
{
    trv_status st = geo_raster_info_read(ctx, path, info);
    if (!st && info->nbands < 1) {
        geo_raster_info_clear(info);
        st = trv_error(ctx, TRV_ERR_FORMAT, "cannot open '%s': no band", path);
    }
    return st;
}

char *rpt_crs_label(const geo_raster_info *info)
{
    if (!info->grid.wkt)
        return strdup("none");
    if (*info->crs.auth && *info->crs.code)
        return rpt_fmt("%s:%s", info->crs.auth, info->crs.code);
    return strdup(*info->crs.name ? info->crs.name : "unknown");
}

void rpt_cat_names(const geo_raster_info *info, char names[256][64])
{
    for (int c = 0; c < 256; c++)
        trv_sfmt(names[c], 64, "%s", c < info->ncategories ? info->categories[c] : "");
}

trv_status rpt_class_names(trv_ctx *ctx, const char *path, char names[256][64])
{
    geo_raster_info info;
    trv_status st = rpt_info_read(ctx, path, &info);
    if (st)
        return st;
    rpt_cat_names(&info, names);
    geo_raster_info_clear(&info);
    return TRV_OK;
}

/* ---- route_stats.csv ---- */

long rpt_rs_find(const rstats *rs, const char *name)
{
    for (size_t i = 0; i < rs->n; i++)
        if (!strcmp(rs_name(rs, i), name))
            return (long)i;
    return -1;
}

void rpt_rs_free(rstats *rs)
{
    trv_csv_free(rs->csv);
    free(rs->v);
    memset(rs, 0, sizeof *rs);
}

trv_status rpt_rs_read(trv_ctx *ctx, run *r, rstats *rs)
{
    static const char *const COLS[RS_NC] = {"route",         "distance_m", "time_h",           "mean_slope_deg",
                                            "max_slope_deg", "mean_speed_kmh", "mean_cost", "mean_elevation_m",
                                            "nogo_samples"};
    memset(rs, 0, sizeof *rs);
    trv_status st = trv_csv_read(ctx, P(r, OTHER(RUN_O_ROUTE_STATS)), &rs->csv);
    for (int k = 0; k < RS_NC && !st; k++)
        st = trv_csv_require(ctx, rs->csv, COLS[k], &rs->col[k]);
    if (!st && trv_csv_nrows(rs->csv) == 0)
        st = trv_error(ctx, TRV_ERR_FORMAT, "'%s' has no route", trv_csv_path(rs->csv));
    rs->n = st ? 0 : trv_csv_nrows(rs->csv);
    rs->v = st ? NULL : calloc(rs->n * RS_NC, sizeof *rs->v);
    if (!st && !rs->v)
        st = trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
    for (size_t i = 0; i < rs->n && !st; i++)
        for (int k = 1; k < RS_NC && !st; k++)
            st = trv_csv_double(ctx, rs->csv, i, rs->col[k], &rs->v[i * RS_NC + (size_t)k]);
    if (st)
        rpt_rs_free(rs);
    return st;
}

size_t rpt_pick_route(const rstats *rs, int *is_mmcr)
{
    long k = rpt_rs_find(rs, "mmcr");
    *is_mmcr = k >= 0;
    if (k >= 0)
        return (size_t)k;
    for (size_t i = 0; i < rs->n; i++)
        if (strncmp(rs_name(rs, i), "grid-", 5))
            return i;
    return 0;
}

int rpt_route_map(run *r, const rstats *rs, char *rel, size_t n)
{
    int is_mmcr;
    trv_sfmt(rel, n, "%s/route_%s.png", OTHER(RUN_O_PNG), rs_name(rs, rpt_pick_route(rs, &is_mmcr)));
    return trv_file_exists(P(r, rel));
}

