/*
 * profile.h — the route explained (issue 22 §3): a route's profile, one
 * row per piece of the walk its statistics sum (prm_path_pieces, prm.h),
 * and where its time goes.
 *
 * A piece is cell c crossed over len metres heading u = (ux, uy):
 *   dist_m        cumulative distance at the piece's end (m)
 *   elev_m        dem.tif of c (m)
 *   along         grad_c . u, the grade along the track (m/m, > 0 uphill)
 *   across        grad_c . (-uy, ux), the grade across it (m/m, > 0: the
 *                 ground rises to the left of the direction of travel)
 *                 grad_c = (dz/dE, dz/dN): Horn's differences of dem.tif,
 *                 the gradient the direction-aware pace uses (prm.h)
 *   soil, landuse codes of c (0: unknown, the times isotropic)
 *   speed_kmh     in the direction of travel (prm_path_pieces)
 *   limit         the binding limit there (prm_limit_at: tm_limit code,
 *                 limit.tif's; -1 unknown, the times isotropic)
 *   time_s        len / speed (s; 0 for a speed-0 cell only grazed)
 *   cost          cost.tif of c (mobility cost, 0 best .. 1 worst)
 *   zone, zone_s  with zones (trv-route --zones, zones.h): the factor or
 *                 max_speed zone holding most of the piece (its feature
 *                 id; -1 none) and the time the zones add there (s, < 0
 *                 in a zone of factor < 1: prm_zones_cells); time_s
 *                 includes it, speed_kmh is the terrain's
 * Sums: time_s sums to the route's time_h x 3600 and len_m to its
 * distance_m (prm_path_stats: the same walk, and the same per-cell zone
 * deltas; the distance of a route on the grid), both to rounding (1e-9
 * relative; with zones 1e-6).
 *
 * Soil, land use and limit are known only when the times are
 * direction-aware (the run directory holds trv-speed's copies of the speed
 * model: prm_terrain_model_load); isotropic times come from speed.tif
 * alone (an older run directory, a hand-made terrain), without the class
 * tables that name the codes nor the model that says which limit binds in
 * the direction of travel, so the columns stay empty (docs/src/trv-route.md).
 *
 * Time shares: per land-use code and per binding limit, the time of the
 * pieces holding it over the route's time (they sum to 1; unknown codes
 * and limits in their own share; NAN for a route of zero or infinite
 * time); per zone (at most PRM_SHARE_ZONES, the rest under feature id -1),
 * the time it adds over the route's time (negative for a factor < 1; not
 * part of the sum to 1).
 */
#ifndef PRM_PROFILE_H
#define PRM_PROFILE_H

#include "core/json.h"
#include "prm/prm.h"

typedef struct prm_profile {
    char name[32];          /* the route's */
    int n;                  /* pieces */
    double *dist_m, *len_m, *elev_m, *along, *across, *speed_kmh, *time_s, *cost;
    int *limit;
    unsigned char *soil, *landuse;
    long *zone;             /* feature id, -1 none */
    double *zone_s;
} prm_profile;

enum { PRM_SHARE_ZONES = 32 };

typedef struct prm_time_shares {
    double landuse[256];    /* by land-use code; [0] unknown */
    double limit[TM_NLIMIT_CODES + 1]; /* by limit.tif code (TM_LIMIT_ZONE included); [TM_NLIMIT_CODES] unknown */
    double total_s;
    int nzones;
    long zone_fid[PRM_SHARE_ZONES]; /* -1: the zones beyond the first PRM_SHARE_ZONES - 1 */
    double zone[PRM_SHARE_ZONES];
} prm_time_shares;

typedef struct prm_profiles {
    int n;
    int zoned;              /* the terrain had zones: the CSV's zone columns */
    prm_profile route[PRM_MISSION_MAX];
    char soil[256][48], landuse[256][48]; /* names by code (the run directory's tables); "" unknown */
} prm_profiles;

/* The profile of path on t. *out is the caller's (prm_profile_clear). */
trv_status prm_profile_make(trv_ctx *ctx, const prm_terrain *t, const prm_path *path, prm_profile *out);
void prm_profile_clear(prm_profile *p);
/* The shares of p's time (above). */
void prm_profile_shares(const prm_profile *p, prm_time_shares *out);

/* Every route's profile with the soil and land-use names: the soil
 * table's names when the terrain read the run directory's copies, else the
 * code; the land use's from the model. *out malloc'ed (prm_profiles_free). */
trv_status prm_profiles_make(trv_ctx *ctx, const prm_terrain *t, const prm_result *routes, int n,
                             prm_profiles **out);
void prm_profiles_free(prm_profiles *p);

/* CSV, one row per piece of each route: route, dist_m, len_m, elevation_m,
 * grade_along_pct, grade_across_pct, soil, landuse, speed_kmh, limit,
 * time_s, cum_time_s, cost (names for soil, land use and limit, empty when
 * unknown), and when zoned: zone (feature id, empty for none), zone_time_s.
 * Written to tmp, errors naming path. */
trv_status prm_profiles_write_csv(trv_ctx *ctx, const prm_profiles *p, const char *tmp, const char *path);
/* CSV of the time shares: route, kind (landuse | limit | zone), name,
 * time_s, share; one row per land use, limit and zone ("feature N") with
 * time, largest first. */
trv_status prm_time_shares_write_csv(trv_ctx *ctx, const prm_profiles *p, const char *tmp, const char *path);
/* Route k's shares as one line: "land use forest 52.1 %, open 47.9 %;
 * limit power 60.0 %, top speed 40.0 %" (largest first), and with zones
 * "; zone feature 3 12.0 %". */
void prm_time_shares_line(const prm_profiles *p, int k, char *buf, size_t len);
/* Route k's shares into js as "time_shares": {"landuse": {name: share},
 * "limit": {name: share}}, and with zones "zone": {"feature N": share}
 * (docs/summaries.md). */
void prm_time_shares_json(trv_json *js, const prm_profiles *p, int k);

#endif
