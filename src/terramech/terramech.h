/*
 * terramech.h — terramechanics (docs/method.md §2): the vehicle cone index from
 * the NRMM mobility index, Bekker/Bakker tyre-soil sinkage and compaction
 * resistance, attainable speed from the power balance, traction from
 * Janosi-Hanamoto, and GO/NOGO with reasons.
 *
 * Mobility index (NRMM; factors as in Wong, "Theory of Ground Vehicles",
 * 4th ed. 2008, §2.6, and Wong et al., J. Terramechanics 87 (2020) 11-20),
 * in NRMM's units (lb, in, kips, hp, short tons):
 *   wheeled: MI = (CPF WF / (TF GF) + WLF - CF) EF XF
 *     CPF = W / (n_tyres b (d/2))             W gross weight lb, b width in, d diameter in
 *     WF  = 0.553 X            (X < 2 kips per axle)
 *           0.033 X + 1.050    (2 <= X <= 13.5)
 *           0.142 X - 0.420    (13.5 < X <= 20)
 *           0.278 X - 3.115    (X > 20),      X = axle load, kips
 *     TF  = (10 + b) / 100,  GF = 1.05 with chains else 1.00
 *     WLF = W_kips / (2 axles),  CF = clearance_in / 10
 *     EF  = 1.00 if >= 10 hp per short ton else 1.05,  XF = 1.00 automatic, 1.05 manual
 *   tracked: MI = (CPF WF / (TrF GF) + BF - CF) EF XF
 *     CPF = W / (2 L_in b_in)  (both tracks' contact area),  TrF = b_in / 100
 *     WF  = 1.0 (< 50 000 lb), 1.2 (< 70 000), 1.4 (< 100 000), 1.8
 *     GF  = 1.1 if grousers >= 1.5 in high else 1.0
 *     BF  = (W / 10) / (road wheels x area of one track shoe, in^2)
 *   VCI (RCI units; kPa = 6.894757 x RCI):
 *     wheeled: VCI1 = 11.48 + 0.2 MI - 39.2 / (MI + 3.74)  (MI <= 115)
 *              VCI1 = 4.1 MI^0.446                          (MI > 115)
 *              VCI50 = 28.23 + 0.43 MI - 92.67 / (MI + 3.67)
 *     tracked: VCI1 = 7.0 + 0.2 MI - 39.2 / (MI + 5.6)
 *              VCI50 = 19.27 + 0.43 MI - 125.79 / (MI + 7.08)
 *
 * Tyre on soil (per tyre; W wheel load kN, b width m, D diameter m,
 * k = kc/b + kphi, p = k z^n in kPa):
 *   rigid:   the load carried by the pressure along the contact arc,
 *            x^2 = D (z0 - z) (Bekker's arc), W = b k sqrt(D) z0^(n+1/2) B(n+1, 1/2) / 2,
 *            hence z0 = [2W / (b k sqrt(D) B(n+1, 1/2))]^(2/(2n+1)). The usual
 *            3W / ((3-n) b k sqrt(D)) is Bekker's series approximation of
 *            the same integral (equal at n = 1, a few % apart elsewhere);
 *            we use the exact integral, which numeric integration checks.
 *   elastic: z0 = ((p_i + p_c) / k)^(1/n); flat contact length W / (b (p_i + p_c))
 *   both:    R_c = b k z0^(n+1) / (n+1)       (compaction resistance)
 *   mode:    rigid if p_i + p_c > p_gcr = k z0_rigid^n
 * Tracks: z0 = (p / k)^(1/n) with p = W / (2 b L), R_c = 2 b k z0^(n+1)/(n+1).
 * Speed: v = eta P / (R_total + W_total sin beta), clamped to the top speed.
 * Thrust (Janosi-Hanamoto, at 100 % slip): H = (A c + W tan phi)(1 - K/L (1 - e^(-L/K))).
 *
 * Ownership: tm_vehicle_read and tm_soils_read return objects freed with
 * their _free (NULL accepted); tm_model borrows both.
 */
#ifndef TERRAMECH_H
#define TERRAMECH_H

#include "geo/geo.h"
#include "terramech/limits.h"

#define TM_KPA_PER_RCI 6.894757
/* speed.tif's band description and unit */
#define TM_SPEED_DESC "attainable speed"
#define TM_SPEED_UNIT "km/h"

/* ---- vehicle ------------------------------------------------------------- */

typedef enum tm_kind { TM_WHEELED = 0, TM_TRACKED = 1 } tm_kind;

typedef struct tm_vehicle {
    char *name;
    tm_kind kind;
    double gross_mass_kg;
    int axles, tyres;
    double tyre_load_N;         /* per tyre; default weight / tyres */
    double tyre_width_m, tyre_diameter_m, tyre_section_height_m;
    double inflation_pressure_kPa, carcass_pressure_kPa;
    double track_width_m, track_length_m, track_shoe_area_m2, grouser_height_m; /* tracked */
    int road_wheels;            /* tracked: bogie (road) wheels in contact */
    double engine_power_kW, drivetrain_efficiency, top_speed_kmh, ground_clearance_m;
    int chains, manual;
    double max_pitch_deg, max_roll_deg;
    double vci1_kPa, vci50_kPa; /* overrides; NAN when absent */
    /* [body] (optional; the simulator's vehicle, docs/method.md §5). Every key
     * is optional; the default follows in brackets:
     *   length_m        [wheeled 4.0; tracked track_length_m + 1.5]  0.2..30
     *   width_m         [wheeled 2.0; tracked 2.5]                   0.1..10
     *   height_m        [2.0]                                        0.1..10
     *   wheelbase_m     axle to axle [wheeled 0.6 length_m; tracked
     *                   track_length_m]                              0.1..30
     *   track_m         wheel centre to centre across [width_m minus
     *                   tyre_width_m (tracked: track_width_m)]       0.1..10
     *   wheel_radius_m  [tyre_diameter_m / 2; tracked 0.3]           0.02..3
     *   max_steer_deg   Ackermann steering limit [30]                1..60
     *   tau_speed_s     speed lag time constant [0.5]                0..30
     *   tau_steer_s     steering / yaw-rate lag [0.2]                0..10
     *   skid_slip       skid-steer yaw-rate efficiency [wheeled 0.8;
     *                   tracked 0.7]                                 0.05..1
     *   step_m          highest step climbed [ground_clearance_m / 2] 0..3
     * Checked: wheelbase_m <= length_m, track_m <= width_m. */
    double length_m, width_m, height_m;
    double wheelbase_m, track_m, wheel_radius_m;
    double max_steer_deg, tau_speed_s, tau_steer_s, skid_slip, step_m;
    /* The speed limits' keys (docs/method.md §2.10.6), [vehicle]:
     *   rolling_resistance_coeff  the tyre's (track's) own f on firm ground
     *                   [wheeled 0.015; tracked 0.03]            0..0.5
     *   reaction_time_s perception to braking [2.5]               0..10
     *   deceleration_ms2  braking deceleration on the flat [3.4]  0.1..15
     *   lateral_accel_ms2 sidestep between stems [2.0]            0.1..15
     * [suspension], one corner (a tyre; tracked: a road wheel):
     *   unsprung_mass_kg  [0.1 x gross / corners]                 > 0
     *   sprung_mass_kg    [gross / corners - unsprung]            > 0
     *   spring_N_per_m    [sprung (2 pi 1.2 Hz)^2]
     *   damper_Ns_per_m   [2 x 0.3 sqrt(spring x sprung)]
     *   tyre_stiffness_N_per_m [10 x spring]
     *   ride_limit_rms_ms2 unweighted RMS of the sprung mass [2.0]  0.05..50
     * Checked: sprung + unsprung within TM_TYRE_LOAD_TOL of gross / corners. */
    double rolling_coeff, reaction_s, decel_ms2, lat_accel_ms2;
    double sprung_kg, unsprung_kg, spring_N_per_m, damper_Ns_per_m, tyre_N_per_m, ride_limit_ms2;
    char *path;
} tm_vehicle;

/* tyres x tyre_load_N against the gross weight (gross_mass_kg x g): the
 * per-tyre load may differ from weight / tyres (an uneven axle split; the
 * paper's UGV: 4 x 3200 N = 12.8 kN against 12.18 kN, +5 %), but by more
 * than 25 % it is a slip (kg written as N, the wrong tyre count), which
 * tm_vehicle_read refuses (TRV_ERR_DATA, naming both and their ratio). */
#define TM_TYRE_LOAD_TOL 0.25

/* Read and range-check a vehicle file (INI, [vehicle] and the optional
 * [body]); unknown keys, bad and out-of-range values are errors naming
 * file:line; tyre loads that disagree with the gross weight by more than
 * TM_TYRE_LOAD_TOL are refused. */
trv_status tm_vehicle_read(trv_ctx *ctx, const char *path, tm_vehicle **out);
void tm_vehicle_free(tm_vehicle *v);
/* The vehicle's corners for the quarter car: tyres (wheeled) or road
 * wheels (tracked). */
int tm_vehicle_corners(const tm_vehicle *v);
/* Its quarter car (one corner, [suspension]). */
void tm_vehicle_quarter_car(const tm_vehicle *v, tm_quarter_car *q);

typedef struct tm_vci {
    double mi;                  /* mobility index */
    double vci1_rci, vci50_rci; /* from the formulas */
    double vci1_kPa, vci50_kPa; /* in force: the file's overrides if given, else the formulas */
    int vci1_overridden, vci50_overridden;
} tm_vci;

/* MI and VCI of a vehicle (NRMM), with its overrides. */
void tm_vci_compute(const tm_vehicle *v, tm_vci *out);
double tm_vci1_wheeled(double mi);
double tm_vci50_wheeled(double mi);
double tm_vci1_tracked(double mi);
double tm_vci50_tracked(double mi);

/* ---- soils ----------------------------------------------------------------- */

typedef struct tm_soil {
    int code;
    char *name;
    double n, kc, kphi;         /* kN/m^(n+1), kN/m^(n+2) */
    double ci_kPa;
    int has_shear;              /* c, phi, K given */
    double c_kPa, phi_deg, K_m;
    double rolling_coeff;       /* measured motion resistance / weight on this soil; NAN: Bekker */
} tm_soil;

typedef struct tm_soils {
    tm_soil *s;
    int n;
    char *path;
} tm_soils;

/* Soil table CSV: code, name, n, kc, kphi, ci_kPa; optional c_kPa,
 * phi_deg, K_m (all three or none) for the traction check, and optional
 * rolling_resistance_coeff (0 < f <= 1; an empty cell: none): a measured
 * coefficient of motion resistance on the soil (a towing test), used
 * instead of Bekker's compaction and the tyre's own rolling resistance,
 * R = f W cos(beta), and reported as the mode "measured". Read by
 * geo_class_csv_read (its checks and messages, noun "soil"). */
trv_status tm_soils_read(trv_ctx *ctx, const char *path, tm_soils **out);
void tm_soils_free(tm_soils *s);

/* ---- one tyre (or track) on one soil -------------------------------------- */

typedef enum tm_mode { TM_RIGID = 0, TM_ELASTIC = 1, TM_TRACK = 2 } tm_mode;

typedef struct tm_contact {
    tm_mode mode;
    double sinkage_m;
    double p_gcr_kPa;           /* ground pressure under the rigid wheel at its sinkage */
    double resistance_kN;       /* compaction resistance of one tyre (or both tracks) */
    double contact_length_m;
    double thrust_kN;           /* one tyre (or both tracks); NAN without shear data */
    double deflection_m;        /* elastic: tyre deflection the flat contact implies; else 0 */
} tm_contact;

/* Bekker/Bakker for one tyre carrying load_kN (wheeled), or both tracks
 * carrying the whole weight (tracked). */
void tm_contact_compute(const tm_vehicle *v, const tm_soil *s, double load_kN, tm_contact *out);
/* The load (kN) the rigid-wheel contact pressure carries at sinkage z0:
 * b k sqrt(D) z0^(n+1/2) B(n+1, 1/2) / 2. Exposed for the tests. */
double tm_rigid_load(double b, double k, double n, double D, double z0);

/* ---- the model: per-soil results and the row kernel ------------------------ */

typedef enum tm_reason {
    TM_GO = 0, TM_NOGO_SLOPE = 1, TM_NOGO_SOIL = 2, TM_NOGO_LANDUSE = 3, TM_NOGO_TRACTION = 4, TM_NOGO_NODATA = 5,
    TM_NOGO_ZONE = 6 /* a nogo zone (trv-speed --zones; not tm_row's) */
} tm_reason;

typedef struct tm_model {
    const tm_vehicle *v;
    tm_vci vci;
    double weight_kN;           /* gross weight */
    double max_slope_deg;       /* min(max_pitch, max_roll) */
    int traction;               /* 1: every soil has shear data */
    /* per soil code 0..255 (index by code): -1 unknown */
    int soil_index[256];
    tm_contact contact[256];
    double resistance_total_kN[256];
    double thrust_total_kN[256];
    double ci_kPa[256];
    unsigned char landuse_nogo[256]; /* 1: NOGO land use; 2: code unknown */
    /* The speed limits (docs/method.md §2.10), SI units. */
    double mass_kg, weight_N, power_W;   /* power_W: eta P */
    double soil_pull_N[256];             /* per soil: compaction resistance (all tyres / both tracks) */
    double soil_hold_N[256];             /* per soil: thrust at full slip; without shear data the
                                          * brakes' m a (braking only) */
    double soil_k_over_l[256];           /* per soil: K / contact length; NAN without shear data */
    double soil_f_measured[256];         /* per soil: the table's measured coefficient; NAN (or 0): Bekker */
    double lu_ride_ms[256];              /* per land use: ride-limited speed (INFINITY: none) */
    double lu_veg_ms[256];               /* per land use: vegetation / land-use speed (INFINITY: none) */
    double lu_veg_coeff[256];            /* per land use: override resistance / weight */
    double lu_visibility_m[256];         /* per land use: sight distance (INFINITY: none) */
    char lu_name[256][48];               /* per land use: its name (truncated to 47 bytes), for reports */
} tm_model;

/* limit.tif's codes: the limit that binds (docs/method.md §2.10.5). */
typedef enum tm_limit {
    TM_LIMIT_NOGO = 0, TM_LIMIT_TOP = 1, TM_LIMIT_POWER = 2, TM_LIMIT_TRACTION = 3, TM_LIMIT_RIDE = 4,
    TM_LIMIT_VEGETATION = 5, TM_LIMIT_BRAKING = 6
} tm_limit;
#define TM_NLIMITS 7
/* limit.tif's code where a factor or max_speed zone set the speed
 * (trv-speed --zones): not a speed limit of the model (tm_speed_at never
 * gives it), so after the TM_NLIMITS limits; TM_NLIMIT_CODES codes in all. */
#define TM_LIMIT_ZONE 7
#define TM_NLIMIT_CODES 8
/* limit.tif's band description; tm_limit_name(code): "NOGO", "top speed",
 * "power", "traction", "ride", "vegetation", "visibility/braking", "zone"
 * (its category names); NULL outside 0..TM_NLIMIT_CODES-1. */
#define TM_LIMIT_DESC "binding speed limit"
const char *tm_limit_name(int code);
/* limit.tif's class of code (name and colour; NULL outside 0..TM_NLIMIT_CODES-1). */
const geo_class *tm_limit_class(int code);
/* gonogo.tif's category name of a reason ("GO", "NOGO: slope", ...,
 * "NOGO: zone"); NULL outside 0..6. */
const char *tm_reason_name(int reason);
/* Above this slip the power limit is reported as traction: the soil, not
 * the engine, takes most of the power (docs/method.md §2.10.7). */
#define TM_SLIP_TRACTION 0.2

/* One cell's speed in one direction of travel, every limit in m/s. */
typedef struct tm_speed_at_t {
    double v_ms;                 /* the attainable speed: the smallest limit; 0 when NOGO this way */
    tm_limit limit;              /* the one that binds; TM_LIMIT_NOGO when the soil cannot carry the
                                  * pull (uphill) or hold the vehicle (downhill) */
    double lim_ms[TM_NLIMITS];   /* each limit (INFINITY: does not bind); [0] unused */
    double pull_N;               /* the pull the motion needs (< 0: braking downhill) */
    double slip;                 /* the slip that pull needs (0 without shear data or pull <= 0) */
} tm_speed_at_t;

/* The attainable speed on soil s and land use l at the grade beta (radians
 * along the direction of travel, > 0 uphill), for codes the model knows and
 * a cell tm_row finds GO (slope, cone index, land use):
 *   pull     F = R_soil + f W cos(beta) + c_veg W + W sin(beta), or with a
 *            measured coefficient f_s for the soil f_s W cos(beta) + c_veg W
 *            + W sin(beta)
 *   traction NOGO this way when F > H (uphill) or -F > H (downhill), H the
 *            soil's thrust at full slip (or the brakes' m a without shear data)
 *   power    eta P (1 - i) / F for F > 0, i the slip F needs (janosi.c);
 *            reported as traction when i > TM_SLIP_TRACTION
 *   ride, vegetation: the land use's, precomputed
 *   braking  the visibility speed (braking.c) with the deceleration
 *            min(a, (H + F) / m)
 *   top      the vehicle's top speed.
 * out may be NULL. Returns out->v_ms. Pure. */
double tm_speed_at(const tm_model *m, int soil, int landuse, double beta_rad, tm_speed_at_t *out);
/* tm_speed_at with the grade's sine and cosine given: tm_row computes them
 * once for both directions (sin(-b) = -sin(b) and cos(-b) = cos(b) hold
 * exactly in floating point, so the results are the same bits). */
double tm_speed_at_sc(const tm_model *m, int soil, int landuse, double sin_beta, double cos_beta, tm_speed_at_t *out);

/* Precompute per soil; landuse: class table CSV with code and nogo (yes|no),
 * read by geo_class_csv_read (codes 1..254, none twice, at least one), and
 * the optional columns of data/classes/README.md (nogo_types,
 * roughness_gd0_m3, roughness_w, vmax_kmh, stem_spacing_m, visibility_m,
 * veg_resistance; an empty cell: the limit does not apply). Where
 * nogo_types is present it decides NOGO by the vehicle's kind, else nogo. */
trv_status tm_model_init(trv_ctx *ctx, tm_model *m, const tm_vehicle *v, const tm_soils *soils,
                         const char *landuse_csv);

/* How the soil's resistance is obtained: "rigid", "elastic" or "track"
 * (Bekker/Bakker's contact), or "measured" (the soil table's coefficient). */
const char *tm_soil_mode(const tm_model *m, int soil);

/* One row: slope (degrees, slope_nodata marks nodata), soil and land-use
 * codes (0 = nodata) in; speed (km/h, 0 where NOGO) and reason out. Soil
 * or land-use codes the tables do not know are nodata here (tm_run
 * refuses a raster holding such a code before any row is computed).
 * Pure: no I/O, no state. */
void tm_row(const tm_model *m, const float *slope, float slope_nodata, const unsigned char *soil,
            const unsigned char *landuse, int n, float *speed, unsigned char *reason, unsigned char *limit);

/* The model a run directory's speed maps were made with: trv-speed copies
 * its vehicle file and class tables into the run directory
 * (speed_vehicle.ini, speed_soils.csv, speed_landuse.csv; run.h), and the
 * stages that need the speed in a direction of travel (trv-roadmap,
 * trv-route, trv-sim) rebuild the same model from them. */
typedef struct tm_run_model {
    tm_vehicle *vehicle;
    tm_soils *soils;
    tm_model model;         /* borrows vehicle */
} tm_run_model;

/* Read the copies in dir and build the model; a missing copy is an error
 * that says to rerun trv-speed. Free with tm_run_model_free. */
trv_status tm_run_model_load(trv_ctx *ctx, const char *dir, tm_run_model *out);
void tm_run_model_free(tm_run_model *rm);

/* ---- the trv-speed stage ----------------------------------------------------- */

typedef struct tm_stats {
    size_t cells, go, nodata;
    size_t reason[7];                     /* by tm_reason */
    size_t limit[TM_NLIMIT_CODES];        /* GO cells by the limit that binds ([0]: the NOGO cells) */
    double speed_mean_kmh, speed_max_kmh; /* over GO cells */
} tm_stats;

/* Read DIR/slope.tif, soil.tif, landuse.tif (one grid), check every code
 * against the tables, compute (tm_row), and write DIR/speed.tif (the worst
 * direction of travel), DIR/gonogo.tif and DIR/limit.tif (the binding
 * limit of that direction; tm_limit codes, colour table and names, no
 * nodata value) in the caller's output set (its commit makes them appear,
 * with the rest of the run). */
trv_status tm_run(trv_ctx *ctx, trv_outset *set, const tm_model *m, const char *dir, const trv_meta *meta,
                  tm_stats *stats);

/* trv-speed --zones FILE [--crossings FILE --crossing-radius M]: the zones
 * (geo/zones.h, docs/zones.md) baked into the maps; path NULL: none. */
typedef struct tm_zone_opts {
    const char *path, *crossings;
    double radius_m;        /* the crossings' default radius; <= 0: one cell */
} tm_zone_opts;
/* tm_run with the zones read onto the slope grid (their errors before any
 * output) and applied to the cells with data, before the counts:
 *   a cell a nogo zone burns (all touched; a barrier's cells within a
 *   crossing's radius open): speed 0, reason TM_NOGO_ZONE, limit NOGO,
 *   whatever the model gave it;
 *   a GO cell whose centre lies in factor zones (product f) or max_speed
 *   zones (smallest cap c, km/h): speed v -> min(v / f, c); where that
 *   differs from v the limit is TM_LIMIT_ZONE.
 * With zones, gonogo.tif and limit.tif name the zone classes too. */
trv_status tm_run_zoned(trv_ctx *ctx, trv_outset *set, const tm_model *m, const char *dir, const trv_meta *meta,
                        const tm_zone_opts *zo, tm_stats *stats);
/* tm_run_zoned by row blocks of geo_block_rows() rows (geo/block.h;
 * stream.c, docs/scale.md; the zones burned block by block:
 * geo_zones_burn_rows), its blocks split over processes (core/split.h,
 * docs/cluster.md; sp NULL: one process, as tm_run_zoned): every process
 * reads and computes its blocks; process 0 alone writes the maps (set,
 * meta) and fills stats, the same bytes and figures whatever the block
 * height or the processes; the others pass set and meta NULL. The errors
 * of tm_run_zoned, the zones' before the blocks, the unknown codes' after
 * the last block. */
struct trv_split;
trv_status tm_run_split(trv_ctx *ctx, trv_outset *set, const tm_model *m, const char *dir, const trv_meta *meta,
                        const tm_zone_opts *zo, const struct trv_split *sp, tm_stats *stats);
/* The zones baked (zones_bake.c) into rows y0 .. y1 - 1 of g with their
 * burn (geo_zones_burn_rows: row y0 first, as speed, reason and limit, tm_row's
 * out arrays; trv-speed's row blocks, and each realisation's rows: realize.h). */
struct geo_zones;
void tm_zones_bake_rows(const struct geo_zones *z, const geo_grid *g, int y0, int y1, const unsigned char *burn,
                        float *speed, unsigned char *reason, unsigned char *limit);
/* The same for the window x0 .. x0 + nx - 1, y0 .. y0 + ny - 1 of g (its
 * burn, geo_zones_burn_window's, and the arrays row-major, rows of nx
 * cells; trv-speed's tiles). */
void tm_zones_bake_window(const struct geo_zones *z, const geo_grid *g, int x0, int y0, int nx, int ny,
                          const unsigned char *burn, float *speed, unsigned char *reason, unsigned char *limit);

/* One soil x land-use class at one grade, as the maps have it: tm_row's
 * reason, speed (km/h) and limit for a cell of slope grade_deg, and the
 * direction that gives them (the worse of up and down; on the flat, up). */
typedef struct tm_class_speed {
    unsigned char reason, limit;
    double speed_kmh;
    int downhill;                /* 1: the worse direction is downhill */
    tm_speed_at_t at;            /* that direction's limits, pull and slip */
} tm_class_speed;
void tm_class_speed_at(const tm_model *m, int soil, int landuse, double grade_deg, tm_class_speed *out);

/* The report (--report): one row per land-use class and soil (land use
 * first), every limit (km/h) on the flat and in the worse direction at
 * TM_REPORT_GRADE_DEG, the binding one named, pull and slip; columns in
 * docs/src/trv-speed.md. In the caller's output set. */
#define TM_REPORT_GRADE_DEG 10.0
trv_status tm_report_write(trv_ctx *ctx, trv_outset *set, const tm_model *m, const tm_soils *soils, const char *path);

#endif
#include "terramech/limits.h"
