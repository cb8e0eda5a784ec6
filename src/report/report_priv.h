/*
 * report_priv.h — the report's parts (private to src/report/).
 *
 * doc.c: the document, a list of blocks (headings, paragraphs, tables,
 * images, lists, links), and its two writers (Markdown, HTML). rundir.c:
 * reading the run directory (its files by the run table of src/run/run.h,
 * the stages' JSON summaries, route_stats.csv, images and links).
 * answer.c: the recommended route, first. routes.c: the strategies
 * compared and the maps. conditions.c: the dry/normal/wet table. sim.c:
 * the simulated drives. method.c: terrain,
 * kriging, vehicle, classes. provenance.c: inputs and the commands that
 * made the layers. report.c: the order of the sections and rpt_write.
 *
 * Every section appends to a doc and returns TRV_OK or an error naming
 * the file it could not read; memory failures only set doc.oom, which
 * rpt_write turns into TRV_ERR_NOMEM at the end.
 */
#ifndef TRV_REPORT_PRIV_H
#define TRV_REPORT_PRIV_H

#include <limits.h>
#include <math.h>
#include <stdio.h>

#include <json-c/json.h>

#include "core/json_get.h"
#include "report/report.h"
#include "geo/geo.h"
#include "run/lines.h"
#include "run/run.h"

/* ---- the document (doc.c) ---------------------------------------------------- */

/* B_LINK: a link to a file of the run (consecutive ones make one list);
 * B_OPEN, B_CLOSE: an HTML <div class="text"> around the blocks between
 * them (layout only: Markdown has nothing for them). */
typedef enum btype { B_HEADING, B_PARA, B_TABLE, B_IMAGE, B_LIST, B_LINK, B_OPEN, B_CLOSE } btype;

typedef struct block {
    btype type;
    int level;              /* heading level */
    char *text;             /* heading, paragraph, image caption, link description, div class */
    char *id;               /* HTML id attribute, or NULL */
    int ncols, nrows;       /* table: nrows data rows after the header */
    char **cells;           /* (nrows + 1) * ncols; list: nrows items in cells */
    char *align;            /* table: 'l' or 'r' per column */
    char *img_path;         /* image: the file (for HTML); link: the label */
    char *img_link;         /* image, link: the Markdown link */
    char *html_link;        /* link: the HTML link */
} block;

typedef struct doc {
    block *b;
    int n, cap;
    int oom;
} doc;

/* printf into a malloc'ed string (NULL: out of memory). */
__attribute__((format(printf, 1, 2))) char *rpt_fmt(const char *f, ...);
block *rpt_add(doc *d, btype t);
__attribute__((format(printf, 3, 4))) void rpt_h(doc *d, int level, const char *f, ...);
__attribute__((format(printf, 2, 3))) void rpt_p(doc *d, const char *f, ...);
/* A table: align is a string of 'l'/'r', one per column; header names follow. */
block *rpt_table(doc *d, const char *align, ...);
/* Append a row; the cells are malloc'ed strings, taken over (NULL = oom). */
void rpt_row(doc *d, block *b, ...);
/* An item of the list the last block is, or of a new one. */
__attribute__((format(printf, 2, 3))) void rpt_li(doc *d, const char *f, ...);
/* rpt_li of one line, as run/lines.h hands them (arg: the doc). */
void rpt_li_line(void *d, const char *line);
void rpt_end_list(doc *d);
/* An HTML <div class="cls"> around the blocks up to rpt_div_end. */
void rpt_div(doc *d, const char *cls);
void rpt_div_end(doc *d);
void rpt_clear(doc *d);
void rpt_write_md(FILE *f, const doc *d);
/* Images are read from their files and embedded (data: URIs). */
trv_status rpt_write_html(trv_ctx *ctx, FILE *f, const doc *d);

/* ---- the run directory (rundir.c) -------------------------------------------- */

typedef struct run {
    const char *dir;
    char absdir[PATH_MAX];  /* dir, absolute and canonical */
    const char *md_dir;     /* the reports' directories (absolute), or NULL */
    const char *html_dir;
    char path[PATH_MAX];    /* scratch: the last path made by P() */
    trv_outset *set;        /* the report's outputs (a map it draws: rollover.c) */
} run;

/* dir/name in r->path. */
static inline const char *P(run *r, const char *name)
{
    trv_sfmt(r->path, sizeof r->path, "%s/%s", r->dir, name);
    return r->path;
}

/* The run's files by the run table (src/run/run.h). */
#define LAYER(id) run_file(id)
#define OTHER(id) run_other_file(id)
/* The map of every route in png/ (the Makefile draws it with trv-render). */
#define ROUTES_PNG "routes.png"

/* The link from a report in directory from (absolute; NULL: the run
 * directory itself) to the run's file rel, bytes other than letters,
 * digits, "-._~/" percent-encoded; malloc'ed. */
char *rpt_link(const run *r, const char *from, const char *rel);
/* The run's PNG rel (e.g. "png/dem.png") as an image block; *added 0
 * when the file is absent. */
trv_status rpt_image(trv_ctx *ctx, doc *d, run *r, const char *rel, const char *caption, const char *id, int *added);

/* The legs of a multi-stop mission, visit/route.json (visit.c), under the
 * strategies when the run has one; nothing otherwise. */
trv_status rpt_visit_legs(trv_ctx *ctx, doc *d, run *r);

/* The whole text as one JSON value (NULL: not JSON; *why says where). */
struct json_object *rpt_json_parse(const char *text, char *why, size_t n);
/* The JSON object in the file at path (a JSON value that is not an object
 * is an error naming the file). */
trv_status rpt_json_object_read(trv_ctx *ctx, const char *path, struct json_object **out);
/* The run's summary (a run table file, <stage>.json), parsed (*out NULL
 * when the file is absent); not a JSON object is an error naming the file. */
trv_status rpt_summary(trv_ctx *ctx, run *r, run_oid id, struct json_object **out);

/* The simulator runs of the run directory (folders RUN_SIM_PREFIX* holding
 * a metrics.json), sorted; NULL if none. Free with geo_names_free. */
char **rpt_sim_runs(const run *r);
/* geo_raster_info_read, and a file without a band is TRV_ERR_FORMAT. */
trv_status rpt_info_read(trv_ctx *ctx, const char *path, geo_raster_info *info);
/* "EPSG:32616" when the CRS has an authority code, else its name
 * ("unknown" if none); "none" without a CRS. malloc'ed. */
char *rpt_crs_label(const geo_raster_info *info);
/* Category names of band 1 ("" where none). */
void rpt_cat_names(const geo_raster_info *info, char names[256][64]);
/* The category names of the Byte layer path. */
trv_status rpt_class_names(trv_ctx *ctx, const char *path, char names[256][64]);

/* route_stats.csv, the columns the report uses (v: nrows x RS_NC, column
 * RS_NAME unused: the names are the CSV's cells). */
enum { RS_NAME, RS_DIST, RS_TIME, RS_MSLOPE, RS_XSLOPE, RS_SPEED, RS_COST, RS_ELEV, RS_NOGO, RS_NC };

typedef struct rstats {
    trv_csv *csv;
    int col[RS_NC];
    size_t n;
    double *v;
} rstats;

static inline const char *rs_name(const rstats *rs, size_t i) { return trv_csv_cell(rs->csv, i, rs->col[RS_NAME]); }
static inline double rs_val(const rstats *rs, size_t i, int k) { return rs->v[i * RS_NC + (size_t)k]; }
/* Read route_stats.csv: the columns above required, every value a number,
 * at least one route; errors name the file. Free with rpt_rs_free. */
trv_status rpt_rs_read(trv_ctx *ctx, run *r, rstats *rs);
void rpt_rs_free(rstats *rs);
/* The row of route name, or -1. */
long rpt_rs_find(const rstats *rs, const char *name);
/* The recommended route: MMCR when it was planned (the method's answer),
 * else the first roadmap route (not a grid-* optimum), else the first row. */
size_t rpt_pick_route(const rstats *rs, int *is_mmcr);
/* The map of the recommended route alone, png/route_<name>.png (the
 * Makefile draws it with trv-render --route), in rel; 1 when it exists. */
int rpt_route_map(run *r, const rstats *rs, char *rel, size_t n);

/* ---- the sections ------------------------------------------------------------ */

trv_status rpt_sec_answer(trv_ctx *ctx, doc *d, run *r, const rstats *rs);  /* answer.c */
/* no_route.c: route.json's "no_route" object (*nr, a reference to put)
 * when its status is "no route", else *nr NULL; the section that says so
 * in place of the answer. */
trv_status rpt_no_route_read(trv_ctx *ctx, run *r, struct json_object **nr);
trv_status rpt_sec_no_route(trv_ctx *ctx, doc *d, run *r, struct json_object *nr);
trv_status rpt_sec_routes(trv_ctx *ctx, doc *d, run *r, const rstats *rs);  /* routes.c */
/* The mission's alternatives, when the run holds RPT_ALT_DIR/route.json
 * (trv-route --alternatives): their table and map (alternatives.c). */
#define RPT_ALT_DIR "alternatives"
trv_status rpt_alternatives(trv_ctx *ctx, doc *d, run *r);
trv_status rpt_sec_profile(trv_ctx *ctx, doc *d, run *r, const rstats *rs); /* profile.c */
trv_status rpt_sec_maps(trv_ctx *ctx, doc *d, run *r, const rstats *rs);    /* routes.c */
/* make demo's mission with a river (river/route.json, png/route_river.png); nothing without it */
#define RIVER_JSON "river/route.json"
#define RIVER_PNG "png/route_river.png"
trv_status rpt_sec_river(trv_ctx *ctx, doc *d, run *r, const rstats *rs);   /* river.c */
trv_status rpt_sec_sim(trv_ctx *ctx, doc *d, run *r);                       /* sim.c */
/* make demo's uncertainty/ run (speed.json with realizations, route.json
 * with --mc, risk/route.json with --risk, png/p_nogo.png); nothing without it */
#define UNC_DIR "uncertainty"
#define UNC_PNG "png/p_nogo.png"
trv_status rpt_sec_uncertainty(trv_ctx *ctx, doc *d, run *r);               /* uncertainty.c */
#define FLEET_JSON "fleet/plan/fleet.json"
#define FLEET_SIM_JSON "fleet/sim/metrics.json"
#define FLEET_PNG "fleet/plan.png"
trv_status rpt_sec_fleet(trv_ctx *ctx, doc *d, run *r);                     /* fleet.c */
trv_status rpt_sec_terrain(trv_ctx *ctx, doc *d, run *r);                   /* method.c */
trv_status rpt_sec_kriging(trv_ctx *ctx, doc *d, run *r);                   /* method.c */
trv_status rpt_sec_vehicle(trv_ctx *ctx, doc *d, run *r);                   /* method.c */
trv_status rpt_sec_classes(trv_ctx *ctx, doc *d, run *r);                   /* method.c */
trv_status rpt_sec_inputs(trv_ctx *ctx, doc *d, run *r);                    /* provenance.c */
trv_status rpt_sec_conditions(trv_ctx *ctx, doc *d, run *r, const rstats *rs); /* conditions.c */

/* A dynamic run's rollover margin along its drive (rollover.c): for each
 * vehicle of metrics with rollover_threshold_deg, a row of t saying where
 * the margin is smallest, and its map png/<sub>_rollover_margin_<id>.png
 * beside the report (added to r->set). */
trv_status rpt_sim_rollover(trv_ctx *ctx, doc *d, run *r, const char *sub, struct json_object *metrics, block *t);

#endif
