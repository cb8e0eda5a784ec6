/* The control protocol's virtual obstacles (docs/sim-protocol.md;
 * virtual_obstacle.h): add_obstacle, remove_obstacle and obstacles, as
 * json-c replies for protocol.c's handler table. */
#include "sim_priv.h"
#include "virtual_obstacle.h"

#include <json-c/json.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef json_object jo;

typedef struct req_err {
    const char **name;
    char *msg;
    size_t cap;
} req_err;

static jo *fail(req_err *e, const char *name, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static jo *fail(req_err *e, const char *name, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(e->msg, e->cap, fmt, ap);
    va_end(ap);
    *e->name = name;
    return NULL;
}

static int is_num(jo *f) { return json_object_is_type(f, json_type_double) || json_object_is_type(f, json_type_int); }
static jo *num(double v) { return isfinite(v) ? json_object_new_double(v) : NULL; }
static void put(jo *o, const char *k, jo *v) { json_object_object_add(o, k, v); }

/* Number field key into *v (dflt when absent and not required); 0, or -1
 * with e set (missing, bad_type). */
static int field(jo *req, const char *key, int required, double dflt, double *v, req_err *e)
{
    jo *f;
    *v = dflt;
    if (!json_object_object_get_ex(req, key, &f))
        return required ? (fail(e, "missing", "'%s' is missing", key), -1) : 0;
    if (!is_num(f))
        return fail(e, "bad_type", "'%s' must be a number", key), -1;
    *v = json_object_get_double(f);
    return 0;
}

/* "xy": [[x, y], ...] into c (malloc'ed; a closing vertex equal to the
 * first dropped). */
static int polygon(jo *req, sim_command *c, req_err *e)
{
    jo *p;
    if (!json_object_object_get_ex(req, "xy", &p))
        return fail(e, "missing", "a polygon needs 'xy': [[x, y], ...]"), -1;
    if (!json_object_is_type(p, json_type_array))
        return fail(e, "bad_type", "'xy' must be an array of [x, y] vertices"), -1;
    int n = (int)json_object_array_length(p);
    if (n > SIM_VOBS_MAX_VERTICES + 1)
        return fail(e, "out_of_range", "%d vertices, more than %d", n, SIM_VOBS_MAX_VERTICES), -1;
    c->x = malloc((n + 1) * sizeof *c->x), c->y = malloc((n + 1) * sizeof *c->y);
    if (!c->x || !c->y)
        return fail(e, "failed", "out of memory"), -1;
    for (int i = 0; i < n; i++) {
        jo *pt = json_object_array_get_idx(p, i);
        jo *px = json_object_array_get_idx(pt, 0), *py = json_object_array_get_idx(pt, 1);
        if (!json_object_is_type(pt, json_type_array) || json_object_array_length(pt) != 2 || !is_num(px) ||
            !is_num(py))
            return fail(e, "bad_type", "vertex %d of 'xy' is not [x, y]", i + 1), -1;
        c->x[i] = json_object_get_double(px), c->y[i] = json_object_get_double(py);
    }
    if (n >= 2 && c->x[0] == c->x[n - 1] && c->y[0] == c->y[n - 1])
        n--; /* closed as GeoJSON closes rings */
    c->n = n;
    return 0;
}

/* The obstacle of the request into c; 0, or -1 with e set. */
static int request(jo *req, sim_command *c, req_err *e)
{
    jo *f;
    if (!json_object_object_get_ex(req, "shape", &f))
        return fail(e, "missing", "'shape' is missing (circle or polygon)"), -1;
    const char *shape = json_object_is_type(f, json_type_string) ? json_object_get_string(f) : NULL;
    if (!shape || (strcmp(shape, "circle") && strcmp(shape, "polygon")))
        return fail(e, shape ? "out_of_range" : "bad_type", "'shape' must be \"circle\" or \"polygon\""), -1;
    if (field(req, "height", 1, 0, &c->a[0], e) || field(req, "vx", 0, 0, &c->a[1], e) ||
        field(req, "vy", 0, 0, &c->a[2], e))
        return -1;
    c->a[3] = 1;
    if (json_object_object_get_ex(req, "known", &f)) {
        if (!json_object_is_type(f, json_type_boolean))
            return fail(e, "bad_type", "'known' must be true or false"), -1;
        c->a[3] = json_object_get_boolean(f);
    }
    if (!strcmp(shape, "polygon")) {
        c->kind = SIM_CMD_ADD_POLYGON;
        return polygon(req, c, e);
    }
    c->kind = SIM_CMD_ADD_CIRCLE;
    if (!(c->x = malloc(sizeof *c->x)) || !(c->y = malloc(sizeof *c->y)))
        return fail(e, "failed", "out of memory"), -1;
    c->n = 1;
    return field(req, "x", 1, 0, &c->x[0], e) || field(req, "y", 1, 0, &c->y[0], e) ||
                   field(req, "radius", 1, 0, &c->r, e)
               ? -1
               : 0;
}

/* Check c, apply it and log it: the obstacle's number, or 0 with e set. */
static int apply(sim_session *ss, const sim_command *c, req_err *e)
{
    int n = 0;
    if (sim_vobs_check(ss->quiet, ss->run, c, e->name))
        return fail(e, *e->name, "%s", trv_errmsg(ss->quiet)), 0;
    if (sim_vobs_apply(ss->quiet, ss->run, c, &n) || sim_commands_add(ss->quiet, ss->log, c))
        return fail(e, "failed", "%s", trv_errmsg(ss->quiet)), 0;
    return n;
}

jo *sim_proto_add_obstacle(sim_session *ss, jo *req, const char **name, char *msg, size_t cap)
{
    req_err e = {name, msg, cap};
    sim_command c = {.step = ss->run->step_i, .vehicle = -1};
    int n = request(req, &c, &e) ? 0 : apply(ss, &c, &e);
    free(c.x), free(c.y);
    if (!n)
        return NULL;
    jo *o = json_object_new_object();
    char id[32];
    snprintf(id, sizeof id, "virtual-%d", n);
    put(o, "obstacle", json_object_new_int(n));
    put(o, "name", json_object_new_string(id));
    put(o, "known", json_object_new_boolean(c.a[3] != 0));
    put(o, "step", json_object_new_int64(c.step));
    return o;
}

jo *sim_proto_remove_obstacle(sim_session *ss, jo *req, const char **name, char *msg, size_t cap)
{
    req_err e = {name, msg, cap};
    sim_command c = {.step = ss->run->step_i, .vehicle = -1, .kind = SIM_CMD_REMOVE_OBSTACLE};
    if (field(req, "obstacle", 1, 0, &c.a[0], &e))
        return NULL;
    if (!isfinite(c.a[0]))
        return fail(&e, "not_finite", "'obstacle' is not a finite number");
    int n = apply(ss, &c, &e);
    if (!n)
        return NULL;
    jo *o = json_object_new_object();
    put(o, "obstacle", json_object_new_int(n));
    put(o, "step", json_object_new_int64(c.step));
    return o;
}

/* One obstacle where it is at time t. */
static jo *obstacle_json(const sim_obstacle *ob, int number, double t)
{
    jo *o = json_object_new_object();
    double ox, oy;
    sim_obstacle_offset(ob, t, &ox, &oy);
    put(o, "obstacle", number ? json_object_new_int(number) : NULL);
    put(o, "name", json_object_new_string(ob->id));
    put(o, "shape", json_object_new_string(ob->n ? "polygon" : "circle"));
    put(o, "x", num(ob->cx + ox)), put(o, "y", num(ob->cy + oy));
    if (ob->n) {
        jo *xy = json_object_new_array();
        for (int i = 0; i < ob->n; i++) {
            jo *pt = json_object_new_array();
            json_object_array_add(pt, num(ob->px[i] + ox));
            json_object_array_add(pt, num(ob->py[i] + oy));
            json_object_array_add(xy, pt);
        }
        put(o, "xy", xy);
    } else {
        put(o, "radius", num(ob->r));
    }
    put(o, "height", num(ob->height_m));
    put(o, "vx", num(ob->vx)), put(o, "vy", num(ob->vy));
    put(o, "appear_s", num(ob->appear_s)), put(o, "disappear_s", num(ob->disappear_s));
    put(o, "active", json_object_new_boolean(sim_obstacle_active(ob, t)));
    return o;
}

jo *sim_proto_obstacles(sim_session *ss, jo *req, const char **name, char *msg, size_t cap)
{
    (void)req, (void)name, (void)msg, (void)cap;
    const sim_run *r = ss->run;
    int first = r->nobs - r->nvobs;
    jo *o = json_object_new_object(), *all = json_object_new_array();
    for (int k = 0; k < r->nobs; k++)
        json_object_array_add(all, obstacle_json(&r->obs[k], k >= first ? k - first + 1 : 0, sim_run_time(r)));
    put(o, "obstacles", all);
    return o;
}
