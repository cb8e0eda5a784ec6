/*
 * lines.h — a stage's summary lines, from its summary (<stage>.json).
 *
 * trv-krige, trv-speed, trv-cost and trv-roadmap print a few lines that say what
 * they did (the model chosen, the GO share, the roadmap's components);
 * trv-report shows the same lines from the same run. Both make them here,
 * from the JSON document the tool writes (the tool from its document as
 * written, the report from the file), so the two cannot drift apart: a
 * figure is on screen exactly as it is in the summary.
 *
 * A stage's lines come in parts where the tool prints something else
 * between them (trv-krige's candidate models, trv-speed's soil and limit
 * tables): the caller asks for one part at a time. Each line is handed to
 * fn without a newline. A summary of an older tool simply lacks the lines
 * of keys it did not write.
 */
#ifndef TRV_RUN_LINES_H
#define TRV_RUN_LINES_H

#include <stddef.h>

struct json_object;

/* speed.json's limits_go code of the zones' limit (terramech's
 * TM_LIMIT_ZONE, which trv-speed asserts it is): counted on the zones'
 * line, not among the binding limits. */
#define RUN_LINES_LIMIT_ZONE 7

typedef void (*run_line_fn)(void *arg, const char *line);

typedef enum { RUN_LINES_HEAD, RUN_LINES_TAIL } run_lines_part;

/* krige.json. HEAD: input, working CRS, sample variogram; TAIL: model,
 * neighbourhood, grid, leave-one-out (--cv), realisations (--nsim). */
void run_lines_krige(struct json_object *o, run_lines_part part, run_line_fn fn, void *arg);
/* speed.json. HEAD: vehicle, MI and VCI, the VCI in force, the traction
 * check; TAIL: GO/NOGO counts, zones, speed over GO, binding limits. */
void run_lines_speed(struct json_object *o, run_lines_part part, run_line_fn fn, void *arg);
/* cost.json: the grid, the rules, the classes' shares, the cells without
 * data, the mean cost over the GO cells (one part). */
void run_lines_cost(struct json_object *o, run_line_fn fn, void *arg);
/* roadmap.json: nodes, edges and components, coverage, bridges (one part). */
void run_lines_roadmap(struct json_object *o, run_line_fn fn, void *arg);

/* A variogram model as the lines write it ("Mat nugget 0, psill 5962.01,
 * range 105.888, kappa 2.5"): m holds nugget, psill, range (and kappa). */
void run_lines_model(struct json_object *m, const char *type, char *out, size_t n);

#endif
