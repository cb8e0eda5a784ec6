/* The mission report of a run directory: see report.h; its parts in
 * report_priv.h.
 *
 * The report is built once as a list of blocks (headings, paragraphs,
 * tables, images) from the run's own files, then written twice: as
 * GitHub-flavoured Markdown (images linked relative to the report) and as
 * one self-contained HTML page (images as data: URIs, inline CSS, no
 * external resource). Text may hold `code` spans, the only inline markup.
 * Nothing in it depends on the time or the host: the same directory gives
 * the same bytes. */
#define _POSIX_C_SOURCE 200809L
#include "report/report_priv.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* ---- the report ------------------------------------------------------------------ */

/* The route's sections: the answer, the strategies it was chosen from,
 * the drive, the maps. */
static trv_status route_sections(trv_ctx *ctx, doc *d, run *r)
{
    rstats rs;
    trv_status st = rpt_rs_read(ctx, r, &rs);
    if (st)
        return st;
    st = rpt_sec_answer(ctx, d, r, &rs);
    if (!st)
        st = rpt_sec_profile(ctx, d, r, &rs);
    if (!st)
        st = rpt_sec_routes(ctx, d, r, &rs);
    if (!st)
        st = rpt_sec_conditions(ctx, d, r, &rs);
    if (!st)
        st = rpt_sec_river(ctx, d, r, &rs);
    if (!st)
        st = rpt_sec_uncertainty(ctx, d, r);
    if (!st)
        st = rpt_sec_sim(ctx, d, r);
    if (!st)
        st = rpt_sec_fleet(ctx, d, r);
    if (!st)
        st = rpt_sec_maps(ctx, d, r, &rs);
    rpt_rs_free(&rs);
    return st;
}

/* How the answer was reached. */
static trv_status method_details(trv_ctx *ctx, doc *d, run *r)
{
    rpt_h(d, 2, "Method details");
    rpt_p(d, "How the answer was reached: the terrain model, the kriging of the elevation, the vehicle's "
             "terramechanics and the mobility classes.");
    trv_status st = rpt_sec_terrain(ctx, d, r);
    if (!st)
        st = rpt_sec_kriging(ctx, d, r);
    if (!st)
        st = rpt_sec_vehicle(ctx, d, r);
    if (!st)
        st = rpt_sec_classes(ctx, d, r);
    if (!st)
        st = rpt_sec_inputs(ctx, d, r);
    return st;
}

/* The order a mission planner reads in: the answer (or why there is no
 * route: route.json's status, and then no route file is needed), then how
 * it was made. */
static trv_status build(trv_ctx *ctx, doc *d, run *r)
{
    const char *const REQUIRED[] = {OTHER(RUN_O_ROUTE_STATS), LAYER(RUN_CLASS), LAYER(RUN_GONOGO), LAYER(RUN_DEM),
                                    LAYER(RUN_SLOPE)};
    struct json_object *nr = NULL;
    trv_status st = rpt_no_route_read(ctx, r, &nr);
    for (size_t k = nr ? 1 : 0; !st && k < sizeof REQUIRED / sizeof REQUIRED[0]; k++)
        if (!trv_file_exists(P(r, REQUIRED[k])))
            st = trv_error(ctx, TRV_ERR_IO, "cannot open '%s': %s", r->path, strerror(ENOENT));
    if (!st && !realpath(r->dir, r->absdir))
        st = trv_error(ctx, TRV_ERR_IO, "cannot resolve '%s': %s", r->dir, strerror(errno));
    if (!st) {
        const char *name = strrchr(r->absdir, '/') && strrchr(r->absdir, '/')[1] ? strrchr(r->absdir, '/') + 1 : r->dir;
        rpt_h(d, 1, "Mission report: %s", name);
        st = nr ? rpt_sec_no_route(ctx, d, r, nr) : route_sections(ctx, d, r);
    }
    if (!st && nr)
        st = rpt_sec_maps(ctx, d, r, NULL);
    json_object_put(nr);
    if (!st)
        st = method_details(ctx, d, r);
    if (!st && d->oom)
        st = trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
    return st;
}

static trv_status parent_abs(trv_ctx *ctx, trv_outset *set, const char *path, char *abs)
{
    char dir[PATH_MAX];
    trv_sfmt(dir, sizeof dir, "%s", path);
    char *slash = strrchr(dir, '/');
    if (slash)
        *(slash == dir ? slash + 1 : slash) = '\0';
    else
        strcpy(dir, ".");
    trv_status st = trv_outset_mkdir(ctx, set, dir);
    if (!st && !realpath(dir, abs))
        st = trv_error(ctx, TRV_ERR_IO, "cannot resolve '%s': %s", dir, strerror(errno));
    return st;
}

trv_status rpt_write(trv_ctx *ctx, const rpt_opts *o)
{
    struct stat sb;
    if (!o->dir || stat(o->dir, &sb) != 0)
        return trv_error(ctx, TRV_ERR_IO, "cannot open '%s': %s", o->dir ? o->dir : "", strerror(errno));
    if (!S_ISDIR(sb.st_mode))
        return trv_error(ctx, TRV_ERR_IO, "cannot open '%s': not a directory", o->dir);
    if (!o->md_path && !o->html_path)
        return trv_error(ctx, TRV_ERR_USAGE, "no output");
    trv_outset *set = trv_outset_new();
    if (!set)
        return trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
    char md_abs[PATH_MAX], html_abs[PATH_MAX];
    run r = {.dir = o->dir, .md_dir = o->md_path ? md_abs : NULL, .html_dir = o->html_path ? html_abs : NULL,
             .set = set};
    doc d = {0};
    trv_status st = TRV_OK;
    if (o->md_path)
        st = parent_abs(ctx, set, o->md_path, md_abs);
    if (!st && o->html_path)
        st = parent_abs(ctx, set, o->html_path, html_abs);
    if (!st)
        st = build(ctx, &d, &r);
    if (!st)
        st = trv_progress(ctx, 0.5, "report");
    for (int k = 0; k < 2 && !st; k++) {
        const char *final = k ? o->html_path : o->md_path;
        if (!final)
            continue;
        const char *tmp = trv_outset_add(set, final);
        FILE *f = tmp ? fopen(tmp, "w") : NULL;
        if (!f) {
            st = trv_error(ctx, TRV_ERR_IO, "cannot create '%s': %s", final, strerror(errno));
            break;
        }
        if (k)
            st = rpt_write_html(ctx, f, &d);
        else
            rpt_write_md(f, &d);
        if (!st && ferror(f))
            st = trv_error(ctx, TRV_ERR_IO, "cannot write '%s'", final);
        if (fclose(f) != 0 && !st)
            st = trv_error(ctx, TRV_ERR_IO, "cannot write '%s': %s", final, strerror(errno));
    }
    if (!st)
        st = trv_outset_commit(ctx, set);
    trv_outset_free(set);
    rpt_clear(&d);
    if (!st)
        st = trv_progress(ctx, 1.0, "report");
    return st;
}
