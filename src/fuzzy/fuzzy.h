/*
 * fuzzy.h — fuzzy mobility cost (docs/method.md §3): an IEC 61131-7 FCL reader,
 * a Mamdani inference engine and the cost/class map stage of trv-cost.
 *
 * Inference (Mamdani max–min, docs/method.md §3): each input x_i is fuzzified by
 * its terms' membership functions; a rule's strength is the AND (MIN, or
 * PROD) of its antecedents' memberships; implication clips the consequent
 * term at that strength (ACT MIN); aggregation takes, per output term, the
 * largest strength of the rules that conclude it (ACCU MAX), s_t. The
 * aggregated output set is mu(y) = max_t min(s_t, mu_t(y)) on the output
 * RANGE [y_lo, y_hi], and the crisp output is its
 *   centroid (COG)   y* = ∫ y mu(y) dy / ∫ mu(y) dy,
 *   mean of maximum  (MOM) the mean of the set where mu is largest (by
 *                    measure; the mean of its points when it has none),
 *   smallest of maximum (SOM) the smallest point of that set.
 * The centroid is exact (closed form, no sampling): by the layer-cake
 * identity ∫ mu = ∫_0^1 |{mu > l}| dl, and between consecutive sorted
 * strengths the set {mu > l} is {max over the stronger terms of mu_t > l},
 * whose pieces (precomputed once per subset of output terms, crossings
 * included) have closed-form inverses; so a cell costs its rule strengths
 * plus a few closed-form integrals, whatever the strengths.
 * cost = (y_hi − y*) / (y_hi − y_lo), i.e. 1 − mobility on [0, 1]. class =
 * the output term of largest aggregated strength, ties going to the riskier
 * term (lower on the output axis); classes are numbered 1..T from the lowest
 * term on the output axis (for mobility: 1 high-risk L, 2 low-risk M, 3
 * safe H). When no rule fires, the output is the DEFAULT value (0 when the
 * file has none) and the class is 1.
 *
 * The FCL subset read (keywords case-insensitive; comments (* ... *) and
 * // to the end of the line):
 *   FUNCTION_BLOCK [name] ... END_FUNCTION_BLOCK
 *   VAR_INPUT name : REAL; ... END_VAR        (up to FZ_MAX_INPUTS)
 *   VAR_OUTPUT name : REAL; END_VAR           (exactly one output)
 *   FUZZIFY name  RANGE := (lo .. hi);  TERM t := shape; ...  END_FUZZIFY
 *   DEFUZZIFY name  RANGE, TERMs, METHOD : COG|MOM|SOM;  ACCU : MAX;
 *                   DEFAULT := value;  END_DEFUZZIFY
 *   RULEBLOCK name  AND : MIN|PROD;  OR : MAX;  ACT : MIN;  ACCU : MAX;
 *                   RULE n : IF v IS t AND v IS t ... THEN out IS t; ...
 *                   END_RULEBLOCK                       (one rule block)
 * Shapes (parameters separated by blanks or commas, optionally in (...)):
 *   (x1, y1) (x2, y2) ...   points, x strictly increasing, y in [0, 1];
 *                           linear between, y1 / yn held beyond the ends
 *   TRIANGLE a m c          0 outside (a, c), 1 at m, linear between
 *   TRAPEZOID a b c d       0 outside (a, d), 1 on [b, c], linear between
 *   RAMP s e                0 at s, 1 at e, linear between, held beyond
 *                           (fuzzylite's Ramp: s > e gives a falling ramp)
 *   ZPOWER a b k            traverse's extension, the paper's Z-type:
 *                           1 for x < a, ((b − x)/(b − a))^k on [a, b], 0 after
 *   SPOWER a b k            the paper's S-type: 0 for x < a,
 *                           ((x − a)/(b − a))^k on [a, b], 1 after
 * MM and LM are read as MOM and SOM (fuzzylite's names). RULE keywords may
 * be lowercase (fuzzylite reads only lowercase ones). Inputs are not
 * clamped to their RANGE. Errors name file:line and the offending token.
 *
 * Ownership: fz_engine_read/_parse return an engine the caller releases
 * with fz_engine_free (NULL is fine). A built engine is read-only during
 * evaluation, so one engine may serve many threads. fz_map_build fills an
 * fz_map released with fz_map_clear.
 */
#ifndef FUZZY_H
#define FUZZY_H

#include "geo/geo.h"

enum {
    FZ_MAX_INPUTS = 16,   /* input variables */
    FZ_MAX_TERMS = 16,    /* terms of an input variable */
    FZ_MAX_OUT_TERMS = 8, /* terms of the output variable */
    FZ_MAX_POINTS = 32,   /* points of a points-list term */
    FZ_MAX_RULES = 4096
};

typedef enum fz_defuzz { FZ_COG = 0, FZ_MOM = 1, FZ_SOM = 2 } fz_defuzz;

typedef struct fz_engine fz_engine;

/* ---- reading ----------------------------------------------------------- */

/* Read an FCL file. Errors (TRV_ERR_IO, TRV_ERR_FORMAT) name path:line and
 * the token: "mobility.fcl:57: rule 12: unknown variable 'slop'". */
trv_status fz_engine_read(trv_ctx *ctx, const char *path, fz_engine **out);
/* The same from text in memory; name stands for the file in messages. */
trv_status fz_engine_parse(trv_ctx *ctx, const char *name, const char *text, fz_engine **out);
void fz_engine_free(fz_engine *e);
/* The file the engine was read from (the name given to fz_engine_parse). */
const char *fz_engine_path(const fz_engine *e);

/* ---- the engine's variables, terms and rules --------------------------- */

/* Variables are numbered 0..ninputs-1 (inputs, in VAR_INPUT order) and
 * ninputs (the output). */
int fz_ninputs(const fz_engine *e);
const char *fz_var_name(const fz_engine *e, int var);
/* Index of a variable by name (case-sensitive), or -1. */
int fz_var_index(const fz_engine *e, const char *name);
void fz_var_range(const fz_engine *e, int var, double *lo, double *hi);
int fz_nterms(const fz_engine *e, int var);
const char *fz_term_name(const fz_engine *e, int var, int term);
int fz_term_index(const fz_engine *e, int var, const char *name);
/* Membership of x in a term. */
double fz_membership(const fz_engine *e, int var, int term, double x);
/* Class number (1..T) of an output term: its rank along the output axis
 * (by the centroid of the term itself over the RANGE; 1 = lowest). */
int fz_term_class(const fz_engine *e, int term);

int fz_nrules(const fz_engine *e);
/* Rule r (file order): its number, the term of each input in its
 * antecedent (ant[ninputs], -1 where the input does not appear) and the
 * output term it concludes. */
void fz_rule(const fz_engine *e, int r, int *number, int *ant, int *consequent);

fz_defuzz fz_defuzzifier(const fz_engine *e);
void fz_set_defuzzifier(fz_engine *e, fz_defuzz d);
const char *fz_defuzz_name(fz_defuzz d); /* "centroid", "mom", "som" */
double fz_default_value(const fz_engine *e);

/* ---- inference ---------------------------------------------------------- */

typedef struct fz_result {
    double strength[FZ_MAX_OUT_TERMS]; /* aggregated strength s_t per output term (file order) */
    double crisp;                      /* defuzzified output (mobility) */
    double cost;                       /* (y_hi - crisp) / (y_hi - y_lo), in [0, 1] */
    int term;                          /* output term of largest strength (ties: riskier) */
    int cls;                           /* fz_term_class(term) */
} fz_result;

/* Aggregated strengths s_t of one input vector (in[ninputs]). Pure. */
void fz_strengths(const fz_engine *e, const double *in, double *strength);
/* Crisp output of aggregated strengths by the given method (exact). */
double fz_defuzzify(const fz_engine *e, const double *strength, fz_defuzz method);
/* Winning output term of aggregated strengths (ties: the riskier). */
int fz_winner(const fz_engine *e, const double *strength);
/* Everything above for one input vector, with the engine's defuzzifier. */
void fz_eval(const fz_engine *e, const double *in, fz_result *res);

/* Row kernel (pure, no I/O): n cells, in[i] the row of input i. Cells with
 * valid[c] == 0 (valid may be NULL: all valid) get cost 1 and class 0;
 * the others cost and class (1..T) as fz_eval. Either output may be NULL. */
void fz_eval_row(const fz_engine *e, int n, const float *const *in, const unsigned char *valid, float *cost,
                 unsigned char *cls);

/* ---- trv-cost --eval: a CSV of inputs ------------------------------------ */

/* Evaluate every row of in_path, whose columns include every input's name;
 * write its columns followed by mobility (the output), cost and class
 * (1..T) to out_path (through an atomic output set), or to stdout when
 * out_path is NULL. */
trv_status fz_eval_csv(trv_ctx *ctx, const fz_engine *e, const char *in_path, const char *out_path);

/* ---- trv-cost --terrain: the cost and class maps -------------------------- */

/* The band descriptions of cost.tif and class.tif. */
#define FZ_COST_DESC "mobility cost (0 best, 1 worst; NOGO 1)"
#define FZ_CLASS_DESC "mobility class"

typedef struct fz_map_opts {
    const char *dir;         /* reads dem.tif, slope.tif, soil.tif, speed.tif, gonogo.tif; writes cost.tif, class.tif */
    const char *soils_path;  /* soil table CSV: code, ci_kPa (data/classes/soils.csv) */
    int threads;             /* 0: all cores */
    const struct trv_split *split; /* fz_map_run: NULL one process; else its blocks over processes (core/split.h),
                                      process 0 writes; the others pass set and meta NULL */
} fz_map_opts;

typedef struct fz_map {
    geo_raster *cost;        /* Float32 in [0, 1], 1 = worst, NOGO and no data = 1, no nodata value */
    geo_raster *cls;         /* Byte: 0 NOGO or no data, 1..T (colour table, names; 0 is not nodata) */
    geo_classes *classes;    /* the legend of cls, owned */
    size_t cells;            /* all cells */
    size_t nodata;           /* cells where an input has no data (class 0) */
    size_t count[FZ_MAX_OUT_TERMS + 1]; /* cells per class 0..T (class 0: NOGO and no data) */
    double cost_mean_go;     /* mean cost over the cells of class >= 1 */
    double seconds_read, seconds_infer, seconds_write;
    geo_grid grid;           /* fz_map_run: the grid (cost and cls stay NULL) */
    double cost_min, cost_max; /* fz_map_run: cost.tif's range (its style) */
} fz_map;

/* CI (kPa) per soil code from the soil table (geo_class_csv_read); NAN for
 * codes it lacks. */
trv_status fz_soil_ci_read(trv_ctx *ctx, const char *path, double ci[256]);

void fz_map_opts_init(fz_map_opts *o);
void fz_map_clear(fz_map *m);
/* Read the five layers of opts->dir (all on dem.tif's grid: a file that
 * differs is named), look up CI per soil code, and compute cost and class.
 * The engine's inputs must be among slope, elevation, ci and speed. */
trv_status fz_map_build(trv_ctx *ctx, const fz_engine *e, const fz_map_opts *opts, fz_map *out);
/* Write cost.tif and class.tif into dir (created if missing) in the
 * caller's output set, which commits them with the rest of the run. */
trv_status fz_map_write(trv_ctx *ctx, trv_outset *set, fz_map *m, const char *dir, const trv_meta *meta);
/* fz_map_build then fz_map_write by blocks of geo_block_rows() rows
 * (geo/block.h): the five layers read block by block, cost.tif and
 * class.tif (Cloud-Optimized GeoTIFFs) written as they go into opts->dir
 * through set; the same cells, counts and errors whatever the block
 * height, memory bounded by the block. */
trv_status fz_map_run(trv_ctx *ctx, trv_outset *set, const fz_engine *e, const fz_map_opts *opts,
                      const trv_meta *meta, fz_map *out);

#endif
