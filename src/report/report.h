/*
 * report.h — traverse report: the mission report of a run directory.
 *
 * rpt_write builds the report once, as a structure, and writes it both as
 * GitHub-flavoured Markdown and as a self-contained HTML page (images
 * embedded as data: URIs). It answers first (the recommended route, its
 * time and where it is slow), then shows how the answer was reached
 * (inputs, kriging, terrain, vehicle, classes, routes, simulated drives,
 * maps).
 *
 * Layering: report reads what the stages leave in a run directory; it
 * depends on run (the run directory's tables), geo (the only door to
 * GDAL) and core.
 *
 * Ownership: options are borrowed.
 */
#ifndef TRV_REPORT_H
#define TRV_REPORT_H

#include "core/trv.h"

/* ---- report ---------------------------------------------------------- */

typedef struct rpt_opts {
    const char *dir;        /* the run directory */
    const char *md_path;    /* Markdown output; NULL: none */
    const char *html_path;  /* HTML output; NULL: none */
} rpt_opts;

/* Read the run directory and write the report(s), atomically (both or
 * neither). Required: route_stats.csv, class.tif, gonogo.tif and the
 * terrain layers dem.tif and slope.tif; every other input is reported
 * as absent when missing, and is an error (naming the file) when present
 * but unreadable. */
trv_status rpt_write(trv_ctx *ctx, const rpt_opts *opts);

#endif
