/* Commands from outside the run (server.h): checked, applied between two
 * steps, read from a commands file and replayed at their steps; the range
 * buffer of the scans a client asks for. */
#include "server.h"
#include "sim_priv.h"
#include "virtual_obstacle.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct sim_commands {
    sim_command *c;
    long *line;         /* each command's first line in the file */
    int n, cap;
};

const char *sim_command_name(sim_command_kind k)
{
    static const char *const names[] = {"drive", "wheels", "follow", "add_obstacle", "add_obstacle",
                                        "remove_obstacle"};
    return (unsigned)k < 6 ? names[k] : "unknown";
}

static trv_status check_drive(trv_ctx *ctx, const sim_veh *v, const sim_command *c)
{
    const sim_body *b = &v->body;
    const char *id = v->spec->id;
    double yaw_max = 2 * b->top_speed_ms / b->track_m;
    if (fabs(c->a[0]) > b->top_speed_ms)
        return trv_error(ctx, TRV_ERR_DATA, "speed %g m/s of '%s' is beyond its top speed %g m/s", c->a[0], id,
                         b->top_speed_ms);
    if (b->kind == SIM_ACKERMANN && fabs(c->a[1]) > b->max_steer_rad)
        return trv_error(ctx, TRV_ERR_DATA, "steer %g rad of '%s' is beyond its limit %g rad", c->a[1], id,
                         b->max_steer_rad);
    if (b->kind != SIM_ACKERMANN && fabs(c->a[1]) > yaw_max)
        return trv_error(ctx, TRV_ERR_DATA, "yaw_rate %g rad/s of '%s' is beyond 2 x top speed / track = %g rad/s",
                         c->a[1], id, yaw_max);
    if (b->kind != SIM_MECANUM ? c->a[2] != 0 : fabs(c->a[2]) > b->top_speed_ms)
        return trv_error(ctx, TRV_ERR_DATA, "lateral speed %g m/s of '%s' is out of range (%s)", c->a[2], id,
                         b->kind == SIM_MECANUM ? "beyond its top speed" : "Mecanum only");
    return TRV_OK;
}

/* The sim_cmd of a wheels command (its kind checked). */
static sim_cmd wheels_cmd(const sim_body *b, const double *w)
{
    sim_cmd cmd = {0};
    if (b->kind == SIM_SKID) {
        cmd.v = b->wheel_radius_m * (w[0] + w[1]) / 2;
        cmd.yaw_rate = b->wheel_radius_m * (w[1] - w[0]) / b->track_m;
    } else {
        sim_mecanum_forward(b, w, &cmd.v, &cmd.vy, &cmd.yaw_rate);
    }
    return cmd;
}

trv_status sim_command_check(trv_ctx *ctx, const sim_run *r, const sim_command *c)
{
    if (c->kind >= SIM_CMD_ADD_CIRCLE)
        return sim_vobs_check(ctx, r, c, NULL);
    if (c->vehicle < 0 || c->vehicle >= r->nv)
        return trv_error(ctx, TRV_ERR_DATA, "no vehicle %d", c->vehicle);
    const sim_veh *v = &r->v[c->vehicle];
    for (int i = 0; i < 4; i++)
        if (!isfinite(c->a[i]))
            return trv_error(ctx, TRV_ERR_DATA, "value %d of the command is not a finite number", i + 1);
    if (c->kind == SIM_CMD_DRIVE)
        return check_drive(ctx, v, c);
    if (c->kind == SIM_CMD_WHEELS) {
        if (v->body.kind == SIM_ACKERMANN)
            return trv_error(ctx, TRV_ERR_DATA, "wheel speeds are for skid and mecanum vehicles, '%s' is ackermann",
                             v->spec->id);
        for (int i = 0; i < (v->body.kind == SIM_SKID ? 2 : 4); i++)
            if (fabs(c->a[i]) * v->body.wheel_radius_m > v->body.top_speed_ms)
                return trv_error(ctx, TRV_ERR_DATA, "wheel %d at %g rad/s runs at %g m/s, beyond the top speed %g m/s "
                                 "of '%s'", i + 1, c->a[i], fabs(c->a[i]) * v->body.wheel_radius_m,
                                 v->body.top_speed_ms, v->spec->id);
        if (v->body.kind == SIM_SKID && (c->a[2] != 0 || c->a[3] != 0))
            return trv_error(ctx, TRV_ERR_DATA, "'%s' is skid: two wheel speeds (left, right)", v->spec->id);
        return TRV_OK;
    }
    if (c->n < 2)
        return trv_error(ctx, TRV_ERR_DATA, "a path to follow needs two points or more");
    for (int i = 0; i < c->n; i++)
        if (!isfinite(c->x[i]) || !isfinite(c->y[i]) || prm_cell_at(r->t, c->x[i], c->y[i]) < 0)
            return trv_error(ctx, TRV_ERR_DATA, "point %d of the path (%g, %g) is outside the map", i + 1, c->x[i],
                             c->y[i]);
    return TRV_OK;
}

trv_status sim_command_apply(trv_ctx *ctx, sim_run *r, const sim_command *c)
{
    if (c->kind >= SIM_CMD_ADD_CIRCLE)
        return sim_vobs_apply(ctx, r, c, NULL);
    trv_status st = sim_command_check(ctx, r, c);
    if (st)
        return st;
    sim_veh *v = &r->v[c->vehicle];
    if (c->kind == SIM_CMD_FOLLOW) {
        if ((st = sim_veh_path(ctx, v, c->x, c->y, c->n)) || (st = sim_veh_profile(ctx, r, v)))
            return st;
        v->hint_ctrl = v->hint_true = 0;
        v->s_along = 0;
        v->goal_x = v->path.x[v->path.n - 1], v->goal_y = v->path.y[v->path.n - 1];
        v->ext.direct = 0;
        return TRV_OK;
    }
    v->ext.direct = 1;
    if (c->kind == SIM_CMD_WHEELS) {
        v->ext.cmd = wheels_cmd(&v->body, c->a);
    } else {
        int ack = v->body.kind == SIM_ACKERMANN;
        v->ext.cmd = (sim_cmd){c->a[0], c->a[2], ack ? c->a[1] : 0, ack ? 0 : c->a[1]};
    }
    return TRV_OK;
}

void sim_commands_due(trv_ctx *ctx, sim_run *r, long i)
{
    const sim_commands *cs = r->env.commands;
    while (r->cmd_next < cs->n && cs->c[r->cmd_next].step <= i)
        sim_command_apply(ctx, r, &cs->c[r->cmd_next++]); /* checked before the run (sim_commands_check) */
}

trv_status sim_ext_scan_enable(trv_ctx *ctx, sim_run *r)
{
    for (int k = 0; k < r->nv; k++) {
        sim_veh *v = &r->v[k];
        if (!v->nlidar || v->ext.ranges)
            continue;
        v->ext.nranges = sim_lidar_rays(v->lidar[0]);
        if (!(v->ext.ranges = malloc((size_t)v->ext.nranges * sizeof *v->ext.ranges)))
            return trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
    }
    return TRV_OK;
}

void sim_ext_scan_begin(sim_veh *v, sim_world *w, double t)
{
    if (!v->ext.ranges)
        return;
    for (int i = 0; i < v->ext.nranges; i++)
        v->ext.ranges[i] = NAN;
    w->ranges = v->ext.ranges;
    v->ext.scanned = 1;
    v->ext.scan_t = t;
    v->ext.scan_pose = v->s;
}

/* ---- the commands file ------------------------------------------------------------ */

void sim_commands_free(sim_commands *cs)
{
    if (!cs)
        return;
    for (int i = 0; i < cs->n; i++)
        free(cs->c[i].x), free(cs->c[i].y);
    free(cs->c), free(cs->line), free(cs);
}

/* Room for one more command (zeroed) at cs->c[cs->n]. */
static trv_status grow(trv_ctx *ctx, sim_commands *cs)
{
    if (cs->n == cs->cap) {
        int cap = cs->cap ? 2 * cs->cap : 64;
        sim_command *c = realloc(cs->c, cap * sizeof *c);
        if (c)
            cs->c = c;
        long *l = c ? realloc(cs->line, cap * sizeof *l) : NULL;
        if (!l)
            return trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
        cs->line = l, cs->cap = cap;
    }
    memset(&cs->c[cs->n], 0, sizeof cs->c[cs->n]);
    return TRV_OK;
}

/* Append vertex (x, y) to the follow command c. */
static trv_status add_vertex(trv_ctx *ctx, sim_command *c, double x, double y)
{
    double *nx = realloc(c->x, (c->n + 1) * sizeof *nx);
    if (nx)
        c->x = nx;
    double *ny = nx ? realloc(c->y, (c->n + 1) * sizeof *ny) : NULL;
    if (!ny)
        return trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
    c->y = ny;
    c->x[c->n] = x, c->y[c->n] = y, c->n++;
    return TRV_OK;
}

static int vehicle_index(const sim_scenario *sc, const char *id)
{
    for (int k = 0; k < sc->nveh; k++)
        if (!strcmp(sc->veh[k].id, id))
            return k;
    return -1;
}

/* A virtual obstacle's row (virtual_obstacle.h): add_obstacle (a height,
 * b, c velocity, d known), then its shape: one circle row (a, b centre, c
 * radius) or vertex rows (a, b); remove_obstacle (a its number). */
static int obstacle_row(const char *name)
{
    return !strcmp(name, "add_obstacle") || !strcmp(name, "circle") || !strcmp(name, "vertex") ||
           !strcmp(name, "remove_obstacle");
}

/* Row i's values a..d (columns col[3..6]) into a; an absent column or an
 * empty cell leaves its 0. */
static trv_status row_values(trv_ctx *ctx, const trv_csv *csv, size_t i, const int *col, double a[4])
{
    trv_status st = TRV_OK;
    for (int j = 0; j < 4 && !st; j++)
        if (col[3 + j] >= 0 && *trv_csv_cell(csv, i, col[3 + j]))
            st = trv_csv_double(ctx, csv, i, col[3 + j], &a[j]);
    return st;
}

static trv_status read_obstacle_row(trv_ctx *ctx, const trv_csv *csv, size_t i, const int *col, long step,
                                    const char *name, sim_commands *cs)
{
    double a[4] = {0};
    trv_status st = row_values(ctx, csv, i, col, a);
    if (st)
        return st;
    sim_command *last = cs->n ? &cs->c[cs->n - 1] : NULL;
    int circle = !strcmp(name, "circle");
    if (circle || !strcmp(name, "vertex")) {
        if (!last || last->step != step || last->kind != SIM_CMD_ADD_POLYGON || (circle && last->n))
            return trv_error(ctx, TRV_ERR_DATA, "'%s' line %ld: a %s row belongs after the add_obstacle row of its "
                             "step%s", trv_csv_path(csv), trv_csv_line(csv, i), name, circle ? ", alone" : "");
        if (circle)
            last->kind = SIM_CMD_ADD_CIRCLE, last->r = a[2];
        return add_vertex(ctx, last, a[0], a[1]);
    }
    if ((st = grow(ctx, cs)))
        return st;
    sim_command *c = &cs->c[cs->n];
    c->step = step, c->vehicle = -1;
    c->kind = !strcmp(name, "add_obstacle") ? SIM_CMD_ADD_POLYGON : SIM_CMD_REMOVE_OBSTACLE;
    memcpy(c->a, a, sizeof a);
    cs->line[cs->n++] = trv_csv_line(csv, i);
    return TRV_OK;
}

/* Row i of the file into cs (a new command, or a vertex of the last follow). */
static trv_status read_row(trv_ctx *ctx, const trv_csv *csv, size_t i, const int *col, const sim_scenario *sc,
                           sim_commands *cs)
{
    const char *path = trv_csv_path(csv);
    long line = trv_csv_line(csv, i);
    double step, a[4] = {0};
    trv_status st = trv_csv_double(ctx, csv, i, col[0], &step);
    if (st)
        return st;
    if (!(step >= 0 && step <= 1e12 && step == floor(step)))
        return trv_error(ctx, TRV_ERR_DATA, "'%s' line %ld: step %g is not a whole number >= 0", path, line, step);
    if (cs->n && step < cs->c[cs->n - 1].step)
        return trv_error(ctx, TRV_ERR_DATA, "'%s' line %ld: the steps go back (%g after %ld)", path, line, step,
                         cs->c[cs->n - 1].step);
    if (obstacle_row(trv_csv_cell(csv, i, col[2])))
        return read_obstacle_row(ctx, csv, i, col, (long)step, trv_csv_cell(csv, i, col[2]), cs);
    int k = vehicle_index(sc, trv_csv_cell(csv, i, col[1]));
    if (k < 0)
        return trv_error(ctx, TRV_ERR_DATA, "'%s' line %ld: no vehicle '%s' in the scenario", path, line,
                         trv_csv_cell(csv, i, col[1]));
    const char *name = trv_csv_cell(csv, i, col[2]);
    int kind = !strcmp(name, "drive") ? SIM_CMD_DRIVE : !strcmp(name, "wheels") ? SIM_CMD_WHEELS
             : !strcmp(name, "follow") ? SIM_CMD_FOLLOW : -1;
    if (kind < 0)
        return trv_error(ctx, TRV_ERR_DATA, "'%s' line %ld: unknown command '%s' (drive, wheels, follow, "
                         "add_obstacle, circle, vertex or remove_obstacle)", path, line, name);
    if ((st = row_values(ctx, csv, i, col, a)))
        return st;
    sim_command *last = cs->n ? &cs->c[cs->n - 1] : NULL;
    if (kind == SIM_CMD_FOLLOW && last && last->kind == SIM_CMD_FOLLOW && last->step == (long)step &&
        last->vehicle == k)
        return add_vertex(ctx, last, a[0], a[1]);
    if ((st = grow(ctx, cs)))
        return st;
    sim_command *c = &cs->c[cs->n];
    c->step = (long)step, c->vehicle = k, c->kind = kind;
    cs->line[cs->n++] = line;
    if (kind == SIM_CMD_FOLLOW)
        return add_vertex(ctx, c, a[0], a[1]);
    memcpy(c->a, a, sizeof a);
    return TRV_OK;
}

trv_status sim_commands_read(trv_ctx *ctx, const char *path, const sim_scenario *sc, sim_commands **out)
{
    *out = NULL;
    trv_csv *csv = NULL;
    trv_status st = trv_csv_read(ctx, path, &csv);
    static const char *const names[7] = {"step", "vehicle", "command", "a", "b", "c", "d"};
    int col[7];
    for (int j = 0; j < 7 && !st; j++)
        col[j] = trv_csv_col(csv, names[j]);
    for (int j = 0; j < 3 && !st; j++)
        st = trv_csv_require(ctx, csv, names[j], &col[j]);
    sim_commands *cs = st ? NULL : calloc(1, sizeof *cs);
    if (!st && !cs)
        st = trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
    for (size_t i = 0; !st && i < trv_csv_nrows(csv); i++)
        st = read_row(ctx, csv, i, col, sc, cs);
    trv_csv_free(csv);
    if (st)
        sim_commands_free(cs);
    else
        *out = cs;
    return st;
}

sim_commands *sim_commands_new(void) { return calloc(1, sizeof(sim_commands)); }

trv_status sim_commands_add(trv_ctx *ctx, sim_commands *cs, const sim_command *c)
{
    sim_command *last = cs->n ? &cs->c[cs->n - 1] : NULL;
    trv_status st = TRV_OK;
    if (c->kind == SIM_CMD_FOLLOW && last && last->kind == SIM_CMD_FOLLOW && last->step == c->step &&
        last->vehicle == c->vehicle) {
        /* the later path replaces the earlier entirely: one path in the file */
        free(last->x), free(last->y);
        last->x = last->y = NULL, last->n = 0;
        cs->n--;
    } else if ((st = grow(ctx, cs))) {
        return st;
    }
    sim_command *d = &cs->c[cs->n];
    *d = *c;
    int xy = c->kind == SIM_CMD_FOLLOW || c->kind == SIM_CMD_ADD_CIRCLE || c->kind == SIM_CMD_ADD_POLYGON;
    d->x = d->y = NULL, d->n = xy ? 0 : c->n;
    for (int i = 0; xy && i < c->n && !st; i++)
        st = add_vertex(ctx, d, c->x[i], c->y[i]);
    cs->line[cs->n++] = 0;
    return st;
}

/* A virtual obstacle's rows (read_obstacle_row). */
static void write_obstacle(FILE *f, const sim_command *c)
{
    if (c->kind == SIM_CMD_REMOVE_OBSTACLE) {
        fprintf(f, "%ld,,remove_obstacle,%.17g,,,\n", c->step, c->a[0]);
        return;
    }
    fprintf(f, "%ld,,add_obstacle,%.17g,%.17g,%.17g,%.17g\n", c->step, c->a[0], c->a[1], c->a[2], c->a[3]);
    if (c->kind == SIM_CMD_ADD_CIRCLE)
        fprintf(f, "%ld,,circle,%.17g,%.17g,%.17g,\n", c->step, c->x[0], c->y[0], c->r);
    else
        for (int j = 0; j < c->n; j++)
            fprintf(f, "%ld,,vertex,%.17g,%.17g,,\n", c->step, c->x[j], c->y[j]);
}

trv_status sim_commands_write(trv_ctx *ctx, const char *path, const sim_scenario *sc, const sim_commands *cs)
{
    FILE *f = fopen(path, "w");
    if (!f)
        return trv_error(ctx, TRV_ERR_IO, "cannot write '%s'", path);
    fputs("step,vehicle,command,a,b,c,d\n", f);
    for (int i = 0; i < cs->n; i++) {
        const sim_command *c = &cs->c[i];
        if (c->vehicle < 0)
            write_obstacle(f, c);
        for (int j = 0; c->vehicle >= 0 && j < (c->kind == SIM_CMD_FOLLOW ? c->n : 1); j++) {
            fprintf(f, "%ld,", c->step);
            trv_csv_put(f, sc->veh[c->vehicle].id);
            fprintf(f, ",%s", sim_command_name(c->kind));
            if (c->kind == SIM_CMD_FOLLOW)
                fprintf(f, ",%.17g,%.17g,,\n", c->x[j], c->y[j]);
            else
                fprintf(f, ",%.17g,%.17g,%.17g,%.17g\n", c->a[0], c->a[1], c->a[2], c->a[3]);
        }
    }
    int bad = ferror(f);
    if (fclose(f) || bad)
        return trv_error(ctx, TRV_ERR_IO, "cannot write '%s'", path);
    return TRV_OK;
}

/* Remove command i of the file: the number of an obstacle added before it
 * and not removed since. */
static trv_status check_remove(trv_ctx *ctx, const sim_commands *cs, int i)
{
    double n = cs->c[i].a[0];
    int added = 0, removed = 0;
    for (int j = 0; j < i; j++) {
        added += cs->c[j].kind == SIM_CMD_ADD_CIRCLE || cs->c[j].kind == SIM_CMD_ADD_POLYGON;
        removed += cs->c[j].kind == SIM_CMD_REMOVE_OBSTACLE && cs->c[j].a[0] == n;
    }
    if (!(n >= 1 && n <= added && n == floor(n)))
        return trv_error(ctx, TRV_ERR_DATA, "no virtual obstacle %g (%d added before)", n, added);
    return removed ? trv_error(ctx, TRV_ERR_DATA, "virtual obstacle %g was removed before", n) : TRV_OK;
}

trv_status sim_commands_check(trv_ctx *ctx, const sim_run *r, const sim_commands *cs)
{
    for (int i = 0; i < cs->n; i++) {
        trv_status st = cs->c[i].kind == SIM_CMD_REMOVE_OBSTACLE ? check_remove(ctx, cs, i)
                                                                 : sim_command_check(ctx, r, &cs->c[i]);
        if (st) {
            char msg[512];
            snprintf(msg, sizeof msg, "%s", trv_errmsg(ctx));
            return trv_error(ctx, st, "commands file line %ld: %s", cs->line[i], msg);
        }
    }
    return TRV_OK;
}
