/*
 * moisture.h — soil strength as a function of moisture (issue 22, point 4).
 *
 * The moisture table (data/classes/soils_moisture.csv; provenance in
 * data/classes/README.md) holds, per soil code of a soil table, the values
 * a published source tabulates at each moisture content: n, kc, kphi,
 * ci_kPa, c_kPa, phi_deg, K_m at moisture_pct, and which row is the soil's
 * dry, normal and wet condition (`condition`: names joined by ';').
 *
 * Between two tabulated moistures w0 < w < w1, with t = (w - w0)/(w1 - w0)
 * (docs/method.md, "Soil moisture"):
 *   n, c, phi, K:   p(w) = p0 + t (p1 - p0)              (linear)
 *   kc, kphi, CI:   p(w) = exp(ln p0 + t (ln p1 - ln p0)) (linear in log)
 * At a tabulated moisture the tabulated values exactly. Outside the
 * tabulated range (or away from the one moisture of a soil with one row, or
 * without rows: the soil table's own moisture_pct) is an error naming the
 * soil and its range, unless clamped (the nearest end's values).
 *
 * The row named normal must hold the soil table's own values (so that
 * --condition normal changes nothing); a soil without rows keeps its
 * values in every condition.
 */
#ifndef TM_MOISTURE_H
#define TM_MOISTURE_H

#include "geo/geo.h"
#include "terramech/terramech.h"

enum { TM_MP_N, TM_MP_KC, TM_MP_KPHI, TM_MP_CI, TM_MP_C, TM_MP_PHI, TM_MP_K, TM_MP_COUNT };
enum { TM_COND_DRY = 1, TM_COND_NORMAL = 2, TM_COND_WET = 4 };

typedef struct tm_moist_row {
    int code;
    char *name;
    double pct;
    unsigned cond;             /* TM_COND_* bits */
    double v[TM_MP_COUNT];
} tm_moist_row;

typedef struct tm_moisture {
    tm_moist_row *r;           /* sorted by code, then moisture */
    int n;
    char *path;
} tm_moisture;

/* Read and check a moisture table (columns above; errors name file:line). */
trv_status tm_moisture_read(trv_ctx *ctx, const char *path, tm_moisture **out);
void tm_moisture_free(tm_moisture *t);

/* The values of soil s (its soil table row; base_pct its moisture_pct,
 * NAN if none) at moisture pct, into out (a copy of s with n, kc, kphi,
 * ci_kPa and, when s has them, c_kPa, phi_deg, K_m replaced); *used the
 * moisture whose values those are (NAN: a clamped soil without any), and
 * *clamped = 1 when pct lay outside the tabulated range and clamp took the
 * nearest end. */
trv_status tm_moisture_soil_at(trv_ctx *ctx, const tm_moisture *t, const tm_soil *s, double base_pct, double pct,
                               int clamp, tm_soil *out, double *used, int *clamped);

/* The row of soil s named cond (TM_COND_*), into out; *pct its moisture
 * (base_pct for a soil without rows, whose values stay). */
trv_status tm_moisture_soil_condition(trv_ctx *ctx, const tm_moisture *t, const tm_soil *s, double base_pct,
                                      unsigned cond, tm_soil *out, double *pct);

/* The bundled moisture table, relative to the data directory (trv_data_path). */
#define TM_MOISTURE_TABLE "classes/soils_moisture.csv"

/* What trv-speed was asked for: at most one of pct (finite), condition and
 * raster; table NULL: the data directory's TM_MOISTURE_TABLE. */
typedef struct tm_moisture_opts {
    double pct;                /* NAN: not given */
    const char *condition;     /* "dry" | "normal" | "wet" | NULL */
    const char *raster;        /* a soil-moisture raster in %, or NULL */
    const char *table;
    int clamp;
} tm_moisture_opts;

/* What was used, per soil code: for speed.json and speed_soils.csv. */
typedef struct tm_moisture_used {
    int active;                /* 0: no option, the soil table as it is */
    char mode[12];             /* "moisture" | "condition" | "raster" */
    tm_moisture_opts opts;
    char *table;               /* the moisture table read */
    double soil_pct[256];      /* NAN: none */
    int clamped[256];
    geo_raster *map;           /* raster: the moisture on the terrain grid (DIR/moisture.tif) */
    size_t raster_cells[256];  /* raster: the soil's cells with a moisture */
} tm_moisture_used;

/* The moisture raster on the terrain grid: its nodata and its file in the
 * terrain directory. */
#define TM_MOISTURE_NODATA -9999.0f
#define TM_MOISTURE_TIF "moisture.tif"

/* The soil-moisture raster path (%, any CRS and cell size) onto the grid of
 * DIR/soil.tif: each cell takes the source cell under its centre (nearest
 * neighbour, no interpolation; off the source or nodata: nodata), into
 * *out; per soil code the median moisture over its cells (the mean of the
 * two middle values for an even count; NAN without any), cells[code] how
 * many cells had one, present[code] how many the soil has. A value outside
 * 0..100 is an error naming the cell. */
trv_status tm_moisture_raster(trv_ctx *ctx, const char *path, const char *dir, geo_raster **out, double med[256],
                              size_t cells[256], size_t present[256]);

/* Replace the soils' values by those at the chosen moisture (nothing when
 * no option is given); with a raster, each soil at its median moisture over
 * its cells of DIR's grid (tm_moisture_raster; a soil on the map without a
 * moisture cell is an error). Free with tm_moisture_used_clear. */
trv_status tm_moisture_apply(trv_ctx *ctx, const tm_moisture_opts *o, const char *dir, tm_soils *soils,
                             tm_moisture_used *used);
void tm_moisture_used_clear(tm_moisture_used *u);

/* The soil table as used: soils->path's rows and columns, with n, kc, kphi,
 * ci_kPa (c_kPa, phi_deg, K_m) and moisture_pct (added if absent) holding
 * the values in force, in the caller's output set (tm_soils_read reads it
 * back to the same numbers). */
trv_status tm_moisture_soils_write(trv_ctx *ctx, trv_outset *set, const tm_soils *soils, const tm_moisture_used *u,
                                   const char *path);

#endif
