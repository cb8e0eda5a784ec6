/* The rollover margin along a dynamic run's drive (report_priv.h,
 * rpt_sim_rollover): per vehicle of <sub>/metrics.json that has
 * rollover_threshold_deg (dynamics = dynamic), its trajectory
 * <sub>/trajectory_<id>.csv row by row: margin = threshold - |roll_deg|
 * (the metrics' rollover_margin_deg at each recorded row); a table row
 * saying where it is smallest, and the map png/<sub>_rollover_margin_<id>.png
 * beside the report (render.h, rnd_margin_map_png): the drive coloured
 * by the margin, its three smallest places (at least 100 m apart) marked. */
#define _POSIX_C_SOURCE 200809L
#include "report/report_priv.h"
#include "render/render.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define NMARK 3
#define MARK_APART_M 100.0

typedef struct drive {
    size_t n;
    double *t, *x, *y, *s, *margin; /* s: distance along the rows (m) */
} drive;

static void drive_free(drive *dr)
{
    free(dr->t), free(dr->x), free(dr->y), free(dr->s), free(dr->margin);
}

/* The trajectory's rows with their margin against threshold (degrees). */
static trv_status drive_read(trv_ctx *ctx, const char *path, double threshold, drive *dr)
{
    trv_csv *csv = NULL;
    memset(dr, 0, sizeof *dr);
    trv_status st = trv_csv_read(ctx, path, &csv);
    int ct, cx, cy, cr;
    if (!st && !(st = trv_csv_require(ctx, csv, "t", &ct)) && !(st = trv_csv_require(ctx, csv, "x", &cx)) &&
        !(st = trv_csv_require(ctx, csv, "y", &cy)))
        st = trv_csv_require(ctx, csv, "roll_deg", &cr);
    size_t n = st ? 0 : trv_csv_nrows(csv), size = (n + 1) * sizeof(double);
    if (!st) {
        dr->t = malloc(size), dr->x = malloc(size), dr->y = malloc(size), dr->s = malloc(size);
        dr->margin = malloc(size);
        if (!dr->t || !dr->x || !dr->y || !dr->s || !dr->margin)
            st = trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
    }
    for (size_t i = 0; i < n && !st; i++) {
        double roll;
        if (!(st = trv_csv_double(ctx, csv, i, ct, &dr->t[i])) && !(st = trv_csv_double(ctx, csv, i, cx, &dr->x[i])) &&
            !(st = trv_csv_double(ctx, csv, i, cy, &dr->y[i])) && !(st = trv_csv_double(ctx, csv, i, cr, &roll))) {
            dr->margin[i] = threshold - fabs(roll);
            dr->s[i] = i ? dr->s[i - 1] + hypot(dr->x[i] - dr->x[i - 1], dr->y[i] - dr->y[i - 1]) : 0;
            dr->n = i + 1;
        }
    }
    trv_csv_free(csv);
    if (st)
        drive_free(dr);
    return st;
}

/* The rows of the NMARK smallest margins, each at least MARK_APART_M along
 * the drive from those before (ties: the earlier row); returns how many. */
static int smallest(const drive *dr, int mark[NMARK])
{
    int k = 0;
    for (; k < NMARK; k++) {
        long best = -1;
        for (size_t i = 0; i < dr->n; i++) {
            int near = 0;
            for (int j = 0; j < k && !near; j++)
                near = fabs(dr->s[i] - dr->s[mark[j]]) < MARK_APART_M;
            if (!near && (best < 0 || dr->margin[i] < dr->margin[best]))
                best = (long)i;
        }
        if (best < 0)
            break;
        mark[k] = (int)best;
    }
    return k;
}

/* The map into the report's set, as an image block. */
static trv_status map(trv_ctx *ctx, doc *d, run *r, const char *rel, const drive *dr, const int *mark, int nmark,
                      double threshold, const char *id)
{
    const char *dir = r->md_dir ? r->md_dir : r->html_dir;
    char pngdir[PATH_MAX], final[PATH_MAX];
    trv_sfmt(pngdir, sizeof pngdir, "%s/png", dir);
    trv_sfmt(final, sizeof final, "%s/%s", dir, rel);
    trv_status st = trv_outset_mkdir(ctx, r->set, pngdir);
    const char *tmp = st ? NULL : trv_outset_add(r->set, final);
    if (!st && !tmp)
        st = trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
    char title[160];
    trv_sfmt(title, sizeof title, "%s: rollover margin along the drive (threshold %.1f deg)", id, threshold);
    rnd_margin_map m = {.n = (int)dr->n, .x = dr->x, .y = dr->y, .value = dr->margin, .lo = 0, .hi = threshold,
                        .nmarks = nmark, .mark = mark, .title = title, .unit = "deg", .width = 900, .height = 700};
    if (!st)
        st = rnd_margin_map_png(ctx, &m, tmp, final);
    block *b = st ? NULL : rpt_add(d, B_IMAGE);
    if (b) {
        b->text = rpt_fmt("%s's rollover margin (threshold - |roll|) along the drive; 1 to %d: its smallest", id, nmark);
        b->img_path = strdup(tmp);
        b->img_link = strdup(rel);
        d->oom |= !b->text || !b->img_path || !b->img_link;
    }
    return st;
}

trv_status rpt_sim_rollover(trv_ctx *ctx, doc *d, run *r, const char *sub, struct json_object *metrics, block *t)
{
    struct json_object *vs = NULL;
    if (!json_object_object_get_ex(metrics, "vehicles", &vs) || json_object_get_type(vs) != json_type_array)
        return TRV_OK;
    trv_status st = TRV_OK;
    for (size_t k = 0; k < json_object_array_length(vs) && !st; k++) {
        struct json_object *v = json_object_array_get_idx(vs, k), *th = NULL, *id = NULL;
        if (!json_object_object_get_ex(v, "rollover_threshold_deg", &th) || !json_object_object_get_ex(v, "id", &id))
            continue;
        double threshold = json_object_get_double(th);
        const char *name = json_object_get_string(id);
        char rel[PATH_MAX];
        trv_sfmt(rel, sizeof rel, "%s/trajectory_%s.csv", sub, name);
        drive dr;
        if (!trv_file_exists(P(r, rel)) || (st = drive_read(ctx, r->path, threshold, &dr)))
            continue;
        int mark[NMARK], nmark = smallest(&dr, mark);
        if (nmark > 0) {
            size_t i = (size_t)mark[0];
            rpt_row(d, t, rpt_fmt("smallest rollover margin along the drive (%s, trajectory rows)", name),
                    rpt_fmt("%.2f deg at %.2f km, t = %.0f s (x %.1f, y %.1f)", dr.margin[i], dr.s[i] / 1000,
                            dr.t[i], dr.x[i], dr.y[i]));
        }
        trv_sfmt(rel, sizeof rel, "png/%s_rollover_margin_%s.png", sub, name);
        if (dr.n >= 2 && (r->md_dir || r->html_dir))
            st = map(ctx, d, r, rel, &dr, mark, nmark, threshold, name);
        drive_free(&dr);
    }
    return st;
}
