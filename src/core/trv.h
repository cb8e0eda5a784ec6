/*
 * trv.h — traverse core: context, status codes, progress, command-line
 * parsing, INI and CSV readers, atomic output, output metadata.
 *
 * Every library function that can fail returns a trv_status and leaves a
 * human-readable message in its context (trv_errmsg), in the git style:
 * lowercase, no full stop, the subject quoted ("cannot open 'x.tif': ...").
 * Library code never prints errors and never exits; tools do both.
 *
 * Ownership: objects made by a _new/_read/_open function are owned by the
 * caller and released with the matching _free, which accepts NULL. Strings
 * returned by const char * getters belong to the object they came from.
 */
#ifndef TRV_H
#define TRV_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define TRV_VERSION "0.1.0"

/* ---- status codes ---------------------------------------------------- */

typedef enum trv_status {
    TRV_OK = 0,
    TRV_ERR_USAGE,    /* bad argument or option value */
    TRV_ERR_IO,       /* cannot open, read, write or rename a file */
    TRV_ERR_FORMAT,   /* file content is corrupt or not what was expected */
    TRV_ERR_CRS,      /* missing, unusable or mismatched coordinate system */
    TRV_ERR_GRID,     /* grids differ or do not overlap */
    TRV_ERR_DATA,     /* data unusable: nodata only, out of range, unknown class */
    TRV_ERR_NOMEM,    /* allocation failed */
    TRV_ERR_CANCEL,   /* the progress callback asked to stop */
    TRV_ERR_INTERNAL  /* a bug: a library invariant was broken */
} trv_status;

/* Short fixed description of a status ("i/o error"); never NULL. */
const char *trv_status_str(trv_status st);

/* ---- context --------------------------------------------------------- */

/* Progress callback: fraction in [0, 1], a short label for the current
 * step (may be NULL). Return 0 to continue, non-zero to cancel. */
typedef int (*trv_progress_fn)(double fraction, const char *label, void *user);

typedef struct trv_ctx trv_ctx;

trv_ctx *trv_ctx_new(void);
void trv_ctx_free(trv_ctx *ctx);

/* 0 quiet (errors only, printed by the tool), 1 normal (default). */
void trv_ctx_set_verbosity(trv_ctx *ctx, int level);
int trv_ctx_verbosity(const trv_ctx *ctx);
void trv_ctx_set_progress(trv_ctx *ctx, trv_progress_fn fn, void *user);
/* The callback in force (fn NULL: none), so a step may wrap it and put it back. */
void trv_ctx_progress(const trv_ctx *ctx, trv_progress_fn *fn, void **user);
/* The seed a tool runs with; recorded in output metadata when set. */
void trv_ctx_set_seed(trv_ctx *ctx, uint64_t seed);
int trv_ctx_has_seed(const trv_ctx *ctx);
uint64_t trv_ctx_seed(const trv_ctx *ctx);

/* Record an error message (printf format) and return st, so that library
 * code can write `return trv_error(ctx, TRV_ERR_IO, "cannot open '%s'", p);` */
trv_status trv_error(trv_ctx *ctx, trv_status st, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Prefix the current message: "context: previous message". */
trv_status trv_error_prefix(trv_ctx *ctx, trv_status st, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Last error message, "" if none. */
const char *trv_errmsg(const trv_ctx *ctx);

/* Report progress through the callback. Returns TRV_ERR_CANCEL (with a
 * message) if the callback asked to stop or a stop was requested (a
 * signal, see trv_stop_request), else TRV_OK. */
trv_status trv_progress(trv_ctx *ctx, double fraction, const char *label);
/* Ask every running computation to stop at its next progress report
 * (async-signal-safe: the tools' SIGTERM/SIGINT/SIGHUP handler). */
void trv_stop_request(int sig);

/* Message to stderr (warnings, notes) when the verbosity is >= level;
 * never for errors, which go through trv_error. */
void trv_info(const trv_ctx *ctx, int level, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Terminal progress printer on stderr, GDAL style ("label 0...10...20").
 * user must point to a trv_term_progress_state zeroed before first use. */
typedef struct trv_term_progress_state {
    int started;            /* 0 before the first call */
    int last_tick;          /* last printed tick in 0..40, -1 when none yet */
    char label[64];
} trv_term_progress_state;
int trv_term_progress(double fraction, const char *label, void *user);

/* ---- command-line parsing (getopt_long behind a declarative table) ---- */

typedef enum trv_argtype {
    TRV_ARG_FLAG,    /* int *: set to 1 */
    TRV_ARG_STRING,  /* const char **: points into argv */
    TRV_ARG_INT,     /* int * */
    TRV_ARG_U64,     /* uint64_t * */
    TRV_ARG_DOUBLE,  /* double * */
    TRV_ARG_CHOICE,  /* const char **: value must be one of choices ("a|b|c") */
    TRV_ARG_DOUBLES  /* double[count]: the option takes `count` numbers as separate arguments */
} trv_argtype;

typedef struct trv_opt {
    const char *name;       /* long name without "--" */
    char short_name;        /* 0 for none */
    trv_argtype type;
    void *dest;
    const char *metavar;    /* "FILE"; for CHOICE: the choices "a|b|c" */
    const char *help;
    int count;              /* TRV_ARG_DOUBLES: how many numbers */
} trv_opt;

typedef struct trv_cli {
    const char *tool;       /* "trv-terrain" */
    const char *usage;      /* synopsis after the tool name */
    const char *summary;    /* one paragraph: what the tool does */
    const trv_opt *opts;    /* terminated by an entry with name == NULL */
    const char *const *required; /* long names that must be given, NULL-terminated, or NULL */
    int min_pos, max_pos;   /* allowed number of positional arguments */
    /* Optional: what --version prints after "<tool> (traverse) <version>",
     * written into buf (n bytes): one "NAME VERSION" line per library the
     * tool runs with. NULL: the traverse version alone. */
    void (*libraries)(char *buf, size_t n);
} trv_cli;

/* Parsed result: the tool's own values are written through the table; the
 * common one (-q) and positionals land here. */
typedef struct trv_cli_result {
    int quiet;
    int npos;
    char **pos;             /* points into argv */
} trv_cli_result;

enum { TRV_CLI_CONTINUE = -1 };
/* Parse argv. Handles --help (prints to stdout) and --version (prints the
 * version and cli->libraries' lines to stdout). Returns
 * TRV_CLI_CONTINUE to go on, 0 when help/version was printed, or 2 after
 * printing a usage error to stderr ("trv-x: ...; try 'trv-x --help'"). */
int trv_cli_parse(const trv_cli *cli, int argc, char **argv, trv_cli_result *res);
void trv_cli_print_help(const trv_cli *cli, FILE *out);

/* The context a command-line tool runs with: verbosity from -q, and the
 * terminal progress printer (state in *progress) unless quiet. SIGTERM,
 * SIGINT and SIGHUP then stop the run at its next progress report, through
 * the error path that removes every output and temporary (a second signal
 * kills at once). Prints the failure and returns NULL if memory runs out. */
trv_ctx *trv_tool_ctx(const trv_cli *cli, const trv_cli_result *res, trv_term_progress_state *progress);

/* ---- INI reader ------------------------------------------------------- */

typedef struct trv_ini trv_ini;

/* Parse "[section]" and "key = value" lines; '#' or ';' start a comment
 * (full line, or after whitespace at the end of a value). Syntax errors
 * and duplicate keys are reported as "file:line: ...". */
trv_status trv_ini_read(trv_ctx *ctx, const char *path, trv_ini **out);
void trv_ini_free(trv_ini *ini);
/* The i-th section header of the file (name trimmed, as bound; a repeated
 * header counts again), its line in *line (may be NULL); NULL past the
 * last. */
const char *trv_ini_section(const trv_ini *ini, size_t i, long *line);

typedef enum trv_ini_type {
    TRV_INI_DOUBLE,  /* double *, within [min, max] */
    TRV_INI_INT,     /* int *, within [min, max] */
    TRV_INI_BOOL,    /* int *: yes/no, true/false, 1/0 */
    TRV_INI_CHOICE,  /* int *: index into choices ("a|b|c") */
    TRV_INI_STRING   /* char **: malloc'ed copy, caller frees */
} trv_ini_type;

typedef struct trv_ini_key {
    const char *section;
    const char *key;
    trv_ini_type type;
    void *dest;
    double min, max;        /* DOUBLE and INT ranges, inclusive */
    const char *choices;    /* CHOICE: "a|b|c" */
    int required;
    int *given;             /* optional: set to 1 when the key is present */
} trv_ini_key;

/* Store every key of ini through schema (n entries). Unknown sections or
 * keys, bad values and out-of-range values are errors naming file:line;
 * a missing required key names the file and the key. */
trv_status trv_ini_bind(trv_ctx *ctx, const trv_ini *ini, const trv_ini_key *schema, size_t n);

/* ---- time ------------------------------------------------------------- */

/* Seconds on the monotonic clock (for timings; differences only). */
double trv_now_s(void);

/* ---- files ------------------------------------------------------------ */

/* The whole file at path, NUL-terminated, malloc'ed; *len (may be NULL)
 * gets its length without the NUL. NULL with the error in ctx: "cannot
 * open 'x': ...", "cannot read 'x': ...", out of memory. */
char *trv_file_read(trv_ctx *ctx, const char *path, size_t *len);
/* The same without an error message (NULL, errno kept), for callers that
 * word their own. */
char *trv_file_slurp(const char *path, size_t *len);
/* 1 if path is a regular file. */
int trv_file_exists(const char *path);
/* s with & < > " ' escaped for XML and HTML text and attributes. */
void trv_xml_escape(FILE *f, const char *s);
/* Relative path from directory `from` to `to`, both absolute and canonical
 * (realpath); "." when they are the same. */
void trv_relpath(const char *from, const char *to, char *out, size_t n);
/* snprintf that truncates quietly (paths longer than PATH_MAX fail later,
 * when they are opened); returns what vsnprintf does. */
int trv_sfmt(char *buf, size_t n, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* ---- CSV reader ------------------------------------------------------- */

typedef struct trv_csv trv_csv;

/* RFC 4180 CSV with a header row: ',' separated, '"' quoting with "" as an
 * escaped quote, CRLF or LF. Every row must have the header's width. */
trv_status trv_csv_read(trv_ctx *ctx, const char *path, trv_csv **out);
void trv_csv_free(trv_csv *csv);
size_t trv_csv_nrows(const trv_csv *csv);
int trv_csv_ncols(const trv_csv *csv);
const char *trv_csv_path(const trv_csv *csv);
/* Header name of column col. */
const char *trv_csv_header(const trv_csv *csv, int col);
/* Column index by header name, or -1. */
int trv_csv_col(const trv_csv *csv, const char *name);
/* As trv_csv_col, but a missing column is an error naming the file. */
trv_status trv_csv_require(trv_ctx *ctx, const trv_csv *csv, const char *name, int *col);
const char *trv_csv_cell(const trv_csv *csv, size_t row, int col);
/* Parse a cell as a number; errors name file:line and column. */
trv_status trv_csv_double(trv_ctx *ctx, const trv_csv *csv, size_t row, int col, double *out);
/* An optional numeric column: *out = dflt when the column is absent or the
 * cell empty; else the number, which must lie in [lo, hi] ((lo, hi] with
 * lo_open); errors name file:line, the column and the range. */
trv_status trv_csv_number(trv_ctx *ctx, const trv_csv *csv, size_t row, const char *name, double lo, int lo_open,
                          double hi, double dflt, double *out);
/* File line number of a data row (for messages). */
long trv_csv_line(const trv_csv *csv, size_t row);
/* Write s as one CSV cell: as it is, or quoted (quotes doubled) when it
 * holds a comma, a quote or a line break (RFC 4180; what trv_csv_read
 * reads back). */
void trv_csv_put(FILE *f, const char *s);

/* ---- atomic output ---------------------------------------------------- */

/* A set of output files committed together. Each output is written under a
 * temporary name in its final directory (".name.tmp<pid>.ext"), and only
 * trv_outset_commit renames them into place, with any GDAL sidecar
 * (".aux.xml"). trv_outset_free without a commit removes the temporaries
 * and any directory the set created, so a failure leaves nothing behind.
 * A final path that is a directory fails the commit before any rename. */
typedef struct trv_outset trv_outset;

trv_outset *trv_outset_new(void);
void trv_outset_free(trv_outset *set);
/* Create dir (and parents) if missing; remembered for removal on abort. */
trv_status trv_outset_mkdir(trv_ctx *ctx, trv_outset *set, const char *dir);
/* Register final_path; returns the temporary path to write (owned by set). */
const char *trv_outset_add(trv_outset *set, const char *final_path);
/* Register a directory output written whole: its temporary directory
 * (".name.tmp<pid>" beside final_dir) is created here and returned (owned
 * by set; NULL with errno set on failure). The commit renames it into
 * place. An existing final_dir is replaced only when it holds nothing but
 * entries named in replaceable (NULL-terminated, kept by the caller; NULL:
 * only an empty directory), i.e. an earlier output of the same kind: it
 * is renamed aside, the new one renamed in, and the old tree removed;
 * anything else fails the commit before any rename. Without a commit the
 * temporary tree is removed. */
const char *trv_outset_add_dir(trv_outset *set, const char *final_dir, const char *const *replaceable);
/* TRV_OK when final_dir may be such a directory output (missing, empty,
 * or holding only replaceable names); else TRV_ERR_IO saying why not. */
trv_status trv_outset_dir_free(trv_ctx *ctx, const char *final_dir, const char *const *replaceable);
/* Before any rename: a final path registered twice (the same file, see
 * trv_outputs_check) fails with TRV_ERR_USAGE "output 'X' is given twice",
 * and the set's free then removes every temporary. After the renames,
 * removes the temporaries of dead processes (".name.tmp<pid>.ext" of one
 * of the set's final names, whose pid kill(pid, 0) reports ESRCH, with
 * their "-journal", "-wal", "-shm" and ".aux.xml" sidecars) from the
 * directories written into; other files are never touched. */
trv_status trv_outset_commit(trv_ctx *ctx, trv_outset *set);
/* After a failure, before trv_outset_free: the error message names each
 * output by its final path, not the hidden temporary a writer failed on
 * ("cannot write 'd/x.tif': No space left on device"). */
void trv_outset_explain(trv_ctx *ctx, const trv_outset *set);

/* The rule every tool applies right after parsing its options: outputs
 * (n paths) and inputs (m paths; NULL entries skipped) name files by
 * identity: device and inode when the file exists, else the resolved
 * path (realpath of the directory + the name). Two outputs that are one
 * file: TRV_ERR_USAGE "output 'X' is given twice"; an output that is an
 * input: TRV_ERR_USAGE "output 'X' is also an input" (X as given). Then,
 * before any work, each output's nearest existing directory (its own, or
 * the ancestor a tool that creates directories would create it in) must be
 * a directory the tool can write into: else TRV_ERR_IO "cannot write 'X':
 * 'D' is not writable (cause)" or "'D' is not a directory". */
trv_status trv_outputs_check(trv_ctx *ctx, const char *const *outputs, size_t n, const char *const *inputs,
                             size_t m);
/* Files a tool writes without making their folder (-o FILE and the like;
 * n paths, NULL entries skipped): each one's folder (the path up to its
 * last '/', "." without one) must exist, checked with trv_outputs_check
 * before any work: else TRV_ERR_IO "cannot write 'X': the folder 'D' does
 * not exist". (A tool that makes an output's directories checks that
 * output with trv_outputs_check alone.) */
trv_status trv_output_folders_check(trv_ctx *ctx, const char *const *files, size_t n);

/* ---- output metadata --------------------------------------------------- */

/* What made an output: written into every file (GeoTIFF metadata items
 * TRV_TOOL, TRV_VERSION, TRV_ARGS, TRV_SEED). No time stamps, so the same
 * inputs give the same bytes. */
typedef struct trv_meta {
    char tool[64];
    char args[2048];        /* the command line, arguments shell-quoted where needed */
    int has_seed;
    uint64_t seed;
    int nextra;             /* further items a stage records (TRV_MODEL, ...) */
    char extra_key[8][32];
    char extra_value[8][256];
} trv_meta;

void trv_meta_init(trv_meta *meta, const char *tool, int argc, char **argv);
/* Record one more metadata item (at most 8; later ones are dropped). */
void trv_meta_add(trv_meta *meta, const char *key, const char *value);

/* ---- seeded random numbers ------------------------------------------- */

/* xoshiro256** (Blackman & Vigna), seeded through splitmix64 so that every
 * 64-bit seed, 0 included, gives a well-mixed state. Deterministic on every
 * platform: the same seed gives the same stream. */
typedef struct trv_rng {
    uint64_t s[4];
} trv_rng;

void trv_rng_seed(trv_rng *r, uint64_t seed);
uint64_t trv_rng_next(trv_rng *r);
/* r as n trv_rng_next calls would leave it, in 64 matrix-vector products
 * at most (the update is linear over GF(2): its matrix's powers 2^i, 512
 * KiB made at the first call): a draw's place in a stream reached without
 * drawing the ones before it. */
void trv_rng_skip(trv_rng *r, uint64_t n);
/* Uniform in [0, 1) with 53 random bits. */
double trv_rng_uniform(trv_rng *r);
/* Uniform integer in [0, n), n > 0, without modulo bias. */
uint64_t trv_rng_below(trv_rng *r, uint64_t n);

/* ---- paths and small helpers ----------------------------------------- */

/* Locate a bundled data file (e.g. "classes/soils.csv"): $TRV_DATADIR,
 * then <exe>/../data, then <exe>/../share/traverse. Returns a malloc'ed
 * path or NULL with an error. */
char *trv_data_path(trv_ctx *ctx, const char *rel);

/* Join dir and name into a malloc'ed path. */
char *trv_path_join(const char *dir, const char *name);
/* The folder of path, allocated: "." for a bare name, "/" for a file at
 * the root (the folder the output checks name); NULL: out of memory. */
char *trv_path_folder(const char *path);

/* A byte budget from environment variable name: an integer >= 0 in
 * decimal, else (unset, empty, negative, not a number, beyond size_t)
 * dflt. The budgets TRV_BLOCK_MEM, TRV_STRIP_MEM and TRV_SIM_MEM. */
size_t trv_env_bytes(const char *name, size_t dflt);

/* qsort comparators, ascending (NaN compares equal to everything, as the
 * plain < and > do). */
int trv_cmp_double(const void *a, const void *b);
int trv_cmp_float(const void *a, const void *b);

#endif
