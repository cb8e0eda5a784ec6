/* The fleet file (INI, one [vehicle.ID] section per vehicle, bound
 * through one schema built for them so that an unknown key or section is
 * an error naming file:line) and the task file (CSV); fleet.h. */
#include "fleet.h"

#include "run/run.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

void fleet_vehicles_clear(fleet_vehicles *f)
{
    for (int k = 0; f->v && k < f->n; k++)
        free(f->v[k].vehicle), free(f->v[k].run), free(f->v[k].roadmap);
    free(f->v), free(f->path);
    memset(f, 0, sizeof *f);
}

void fleet_tasks_clear(fleet_tasks *t)
{
    free(t->t), free(t->path);
    memset(t, 0, sizeof *t);
}

/* The [vehicle.ID] sections: ids and lines into f->v (n counted). */
static trv_status scan(trv_ctx *ctx, const trv_ini *ini, fleet_vehicles *f)
{
    long line;
    const char *sec;
    for (size_t i = 0; (sec = trv_ini_section(ini, i, &line)); i++) {
        if (strncmp(sec, "vehicle.", 8))
            continue; /* trv_ini_bind names it */
        const char *id = sec + 8;
        if (!*id || strlen(id) >= sizeof f->v[0].id)
            return trv_error(ctx, TRV_ERR_FORMAT, "%s:%ld: vehicle id '%s' must have 1 to 31 characters", f->path,
                             line, id);
        if (f->n >= FLEET_MAX_VEHICLES)
            return trv_error(ctx, TRV_ERR_FORMAT, "%s:%ld: more than %d vehicles", f->path, line,
                             FLEET_MAX_VEHICLES);
        for (int k = 0; k < f->n; k++)
            if (!strcmp(f->v[k].id, id))
                return trv_error(ctx, TRV_ERR_FORMAT, "%s:%ld: vehicle '%s' given twice (line %ld)", f->path, line,
                                 id, f->v[k].line);
        snprintf(f->v[f->n].id, sizeof f->v[0].id, "%s", id);
        f->v[f->n++].line = line;
    }
    return f->n ? TRV_OK : trv_error(ctx, TRV_ERR_FORMAT, "%s: no [vehicle.ID] section", f->path);
}

static int parse_pair(const char *s, double *x, double *y)
{
    char *end;
    *x = strtod(s, &end);
    if (end == s || *end != ',')
        return -1;
    const char *t = end + 1;
    *y = strtod(t, &end);
    while (isspace((unsigned char)*end))
        end++;
    return end == t || *end || !isfinite(*x) || !isfinite(*y) ? -1 : 0;
}

/* p against dir (p absolute or dir "": p itself); NULL stays NULL. */
static char *resolve(const char *dir, char *p)
{
    if (!p || p[0] == '/' || !dir[0])
        return p;
    char *q = trv_path_join(dir, p);
    free(p);
    return q;
}

/* After the bind: starts parsed, paths resolved, the default roadmap. */
static trv_status finish(trv_ctx *ctx, fleet_vehicles *f, char **start)
{
    char dir[4096];
    snprintf(dir, sizeof dir, "%s", f->path);
    char *slash = strrchr(dir, '/');
    if (slash)
        *slash = '\0';
    else
        dir[0] = '\0';
    for (int k = 0; k < f->n; k++) {
        fleet_vehicle *v = &f->v[k];
        if (parse_pair(start[k], &v->x, &v->y))
            return trv_error(ctx, TRV_ERR_FORMAT, "%s:%ld: vehicle '%s': start '%s' is not X,Y", f->path, v->line,
                             v->id, start[k]);
        v->vehicle = resolve(dir, v->vehicle), v->run = resolve(dir, v->run);
        v->roadmap = v->roadmap ? resolve(dir, v->roadmap) : v->run ? trv_path_join(v->run, run_other_file(RUN_O_ROADMAP)) : NULL;
        if (!v->vehicle || !v->run || !v->roadmap)
            return trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
    }
    return TRV_OK;
}

trv_status fleet_vehicles_read(trv_ctx *ctx, const char *path, fleet_vehicles *f)
{
    memset(f, 0, sizeof *f);
    trv_ini *ini = NULL;
    f->path = strdup(path);
    f->v = calloc(FLEET_MAX_VEHICLES, sizeof *f->v);
    char secs[FLEET_MAX_VEHICLES][48], *start[FLEET_MAX_VEHICLES] = {0};
    trv_ini_key *keys = calloc(7 * FLEET_MAX_VEHICLES, sizeof *keys);
    trv_status st = !f->path || !f->v || !keys ? trv_error(ctx, TRV_ERR_NOMEM, "out of memory") : TRV_OK;
    if (!st && !(st = trv_ini_read(ctx, path, &ini)))
        st = scan(ctx, ini, f);
    size_t n = 0;
    for (int k = 0; !st && k < f->n; k++) {
        fleet_vehicle *v = &f->v[k];
        snprintf(secs[k], sizeof secs[k], "vehicle.%s", v->id);
        keys[n++] = (trv_ini_key){secs[k], "vehicle", TRV_INI_STRING, &v->vehicle, 0, 0, NULL, 1, NULL};
        keys[n++] = (trv_ini_key){secs[k], "run", TRV_INI_STRING, &v->run, 0, 0, NULL, 1, NULL};
        keys[n++] = (trv_ini_key){secs[k], "roadmap", TRV_INI_STRING, &v->roadmap, 0, 0, NULL, 0, NULL};
        keys[n++] = (trv_ini_key){secs[k], "start", TRV_INI_STRING, &start[k], 0, 0, NULL, 1, NULL};
        keys[n++] = (trv_ini_key){secs[k], "capacity", TRV_INI_INT, &v->capacity, 0, 10000, NULL, 0, NULL};
        keys[n++] = (trv_ini_key){secs[k], "model", TRV_INI_CHOICE, &v->model, 0, 0, "ackermann|skid|mecanum", 0, NULL};
        keys[n++] = (trv_ini_key){secs[k], "available_s", TRV_INI_DOUBLE, &v->available_s, 0, 1e7, NULL, 0, NULL};
    }
    if (!st)
        st = trv_ini_bind(ctx, ini, keys, n);
    if (!st)
        st = finish(ctx, f, start);
    for (int k = 0; k < FLEET_MAX_VEHICLES; k++)
        free(start[k]);
    free(keys);
    trv_ini_free(ini);
    if (st)
        fleet_vehicles_clear(f);
    return st;
}

/* Row q of the task file into *t. */
static trv_status task_row(trv_ctx *ctx, const trv_csv *csv, size_t q, const int col[3], const fleet_tasks *ts,
                           fleet_task *t)
{
    const char *path = trv_csv_path(csv), *id = trv_csv_cell(csv, q, col[0]);
    t->line = trv_csv_line(csv, q);
    if (!*id || strlen(id) >= sizeof t->id)
        return trv_error(ctx, TRV_ERR_FORMAT, "%s:%ld: task id '%s' must have 1 to 31 characters", path, t->line, id);
    for (int k = 0; k < (int)q; k++)
        if (!strcmp(ts->t[k].id, id))
            return trv_error(ctx, TRV_ERR_FORMAT, "%s:%ld: task '%s' given twice (line %ld)", path, t->line, id,
                             ts->t[k].line);
    snprintf(t->id, sizeof t->id, "%s", id);
    trv_status st;
    if ((st = trv_csv_double(ctx, csv, q, col[1], &t->x)) || (st = trv_csv_double(ctx, csv, q, col[2], &t->y)) ||
        (st = trv_csv_number(ctx, csv, q, "service_s", 0, 0, 1e7, 0, &t->service_s)) ||
        (st = trv_csv_number(ctx, csv, q, "open_s", 0, 0, 1e7, 0, &t->open_s)) ||
        (st = trv_csv_number(ctx, csv, q, "close_s", 0, 0, 1e7, INFINITY, &t->close_s)))
        return st;
    if (!isfinite(t->x) || !isfinite(t->y))
        return trv_error(ctx, TRV_ERR_FORMAT, "%s:%ld: task '%s': x and y must be finite", path, t->line, id);
    if (t->close_s < t->open_s)
        return trv_error(ctx, TRV_ERR_FORMAT, "%s:%ld: task '%s': close_s %g is before open_s %g", path, t->line, id,
                         t->close_s, t->open_s);
    return TRV_OK;
}

trv_status fleet_tasks_read(trv_ctx *ctx, const char *path, fleet_tasks *ts)
{
    memset(ts, 0, sizeof *ts);
    trv_csv *csv = NULL;
    int col[3];
    trv_status st = trv_csv_read(ctx, path, &csv);
    for (int k = 0; k < 3 && !st; k++)
        st = trv_csv_require(ctx, csv, (const char *const[]){"id", "x", "y"}[k], &col[k]);
    size_t n = st ? 0 : trv_csv_nrows(csv);
    if (!st && n == 0)
        st = trv_error(ctx, TRV_ERR_FORMAT, "%s: no task", path);
    if (!st && n > FLEET_MAX_TASKS)
        st = trv_error(ctx, TRV_ERR_FORMAT, "%s:%ld: more than %d tasks", path,
                       trv_csv_line(csv, FLEET_MAX_TASKS), FLEET_MAX_TASKS);
    if (!st && (!(ts->t = calloc(n, sizeof *ts->t)) || !(ts->path = strdup(path))))
        st = trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
    for (size_t q = 0; !st && q < n; q++)
        st = task_row(ctx, csv, q, col, ts, &ts->t[q]);
    ts->n = st ? 0 : (int)n;
    trv_csv_free(csv);
    if (st)
        fleet_tasks_clear(ts);
    return st;
}
