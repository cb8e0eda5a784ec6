/* The server's messages (docs/sim-protocol.md): one JSON request line in,
 * one JSON reply out, with json-c. Every reply carries "type" (the
 * request's, or "error"), "t" (the simulation time, s) and the request's
 * "id" when it had one. */
#include "server.h"
#include "rollover_limit.h"
#include "sim_priv.h"
#include "virtual_obstacle.h"

#include <json-c/json.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef json_object jo;

/* A handler's outcome: NULL, or the error name with its message in msg. */
typedef struct reply_err {
    const char *name;
    char msg[512];
} reply_err;

static void fail(reply_err *e, const char *name, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void fail(reply_err *e, const char *name, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(e->msg, sizeof e->msg, fmt, ap);
    va_end(ap);
    e->name = name;
}

static void append(const char *s, char **out, size_t *len, size_t *cap)
{
    size_t n = strlen(s);
    if (*len + n + 2 > *cap) {
        size_t c = (*len + n + 2) * 2;
        char *p = realloc(*out, c);
        if (!p)
            return; /* the reply is lost to memory exhaustion; the client times out */
        *out = p, *cap = c;
    }
    memcpy(*out + *len, s, n);
    *len += n;
    (*out)[*len] = '\0';
}

static jo *num(double v) { return isfinite(v) ? json_object_new_double(v) : NULL; }
static void put(jo *o, const char *k, jo *v) { json_object_object_add(o, k, v); }

static void emit(jo *o, char **out, size_t *len, size_t *cap)
{
    append(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN), out, len, cap);
    append("\n", out, len, cap);
    json_object_put(o);
}

static double now(const sim_session *ss) { return ss->run ? sim_run_time(ss->run) : 0; }

void sim_protocol_error(sim_session *ss, const char *name, const char *message, char **out, size_t *len,
                        size_t *cap)
{
    jo *o = json_object_new_object();
    put(o, "type", json_object_new_string("error"));
    put(o, "t", json_object_new_double(now(ss)));
    put(o, "error", json_object_new_string(name));
    put(o, "message", json_object_new_string(message));
    emit(o, out, len, cap);
}

/* ---- fields ---------------------------------------------------------------------- */

/* A number field: 1 found, 0 absent, -1 not a number (e set). */
static int get_num(jo *req, const char *key, double *v, reply_err *e)
{
    jo *f;
    if (!json_object_object_get_ex(req, key, &f))
        return 0;
    if (!json_object_is_type(f, json_type_double) && !json_object_is_type(f, json_type_int)) {
        fail(e, "bad_type", "'%s' must be a number", key);
        return -1;
    }
    *v = json_object_get_double(f);
    return 1;
}

/* The vehicle the request names ("vehicle": its id); -1 with e set. */
static int get_vehicle(const sim_session *ss, jo *req, reply_err *e)
{
    jo *f;
    if (!json_object_object_get_ex(req, "vehicle", &f)) {
        fail(e, "missing", "'vehicle' is missing");
        return -1;
    }
    const char *id = json_object_get_string(f);
    for (int k = 0; k < ss->sc->nveh; k++)
        if (json_object_is_type(f, json_type_string) && !strcmp(ss->sc->veh[k].id, id))
            return k;
    fail(e, "unknown_vehicle", "no vehicle '%s' in the scenario", id ? id : "null");
    return -1;
}

static const char *sensor_name(sim_sensor_kind k)
{
    static const char *const n[] = {"gnss", "imu", "lidar2d", "lidar3d"};
    return n[k];
}

/* ---- hello ------------------------------------------------------------------------ */

static jo *sensor_json(const sim_sensor *s)
{
    jo *o = json_object_new_object();
    put(o, "kind", json_object_new_string(sensor_name(s->kind)));
    put(o, "rate_hz", num(s->rate_hz));
    put(o, "noise", num(s->noise));
    if (s->kind >= SIM_LIDAR2D) {
        put(o, "lines", json_object_new_int(s->lines < 1 ? 1 : s->lines));
        put(o, "rays", json_object_new_int(sim_lidar_rays(s)));
        put(o, "hfov_deg", num(s->hfov_rad * 180 / M_PI));
        put(o, "vfov_deg", num(s->vfov_rad * 180 / M_PI));
        put(o, "hres_deg", num(s->hres_rad * 180 / M_PI));
        put(o, "range_m", num(s->range_m));
        put(o, "mount_h_m", num(s->mount_h_m));
    }
    return o;
}

static jo *vehicle_json(const sim_veh *v)
{
    jo *o = json_object_new_object(), *ss = json_object_new_array();
    put(o, "id", json_object_new_string(v->spec->id));
    put(o, "model", json_object_new_string(sim_kind_name(v->body.kind)));
    put(o, "top_speed_ms", num(v->body.top_speed_ms));
    put(o, "max_steer_rad", num(v->body.max_steer_rad));
    put(o, "wheelbase_m", num(v->body.wheelbase_m));
    put(o, "track_m", num(v->body.track_m));
    put(o, "wheel_radius_m", num(v->body.wheel_radius_m));
    put(o, "length_m", num(v->body.length_m));
    put(o, "width_m", num(v->body.width_m));
    put(o, "height_m", num(v->body.height_m)); /* the 3D view draws the vehicle at its size */
    put(o, "start_time_s", num(v->spec->start_time_s));
    jo *g = json_object_new_array();
    json_object_array_add(g, num(v->goal_x));
    json_object_array_add(g, num(v->goal_y));
    put(o, "goal", g);
    for (int j = 0; j < v->spec->nsensors; j++)
        json_object_array_add(ss, sensor_json(&v->spec->sensors[j]));
    put(o, "sensors", ss);
    return o;
}

static jo *map_json(const prm_terrain *t)
{
    const geo_grid *g = t->grid;
    jo *o = json_object_new_object(), *ext = json_object_new_array();
    put(o, "crs_wkt", g->wkt ? json_object_new_string(g->wkt) : NULL);
    put(o, "nx", json_object_new_int(g->nx));
    put(o, "ny", json_object_new_int(g->ny));
    put(o, "cell_m", num(t->cell_m));
    double e[4] = {g->gt[0], g->gt[3] + g->ny * g->gt[5], g->gt[0] + g->nx * g->gt[1], g->gt[3]};
    for (int i = 0; i < 4; i++)
        json_object_array_add(ext, num(e[i]));
    put(o, "extent", ext); /* xmin, ymin, xmax, ymax */
    return o;
}

static jo *do_hello(sim_session *ss, jo *req, reply_err *e)
{
    (void)req, (void)e;
    const sim_run *r = ss->run;
    jo *o = json_object_new_object(), *vs = json_object_new_array();
    put(o, "protocol", json_object_new_int(SIM_PROTOCOL_VERSION));
    put(o, "step_s", num(ss->sc->step_s));
    put(o, "time_limit_s", num(ss->sc->time_limit_s));
    for (int k = 0; k < r->nv; k++)
        json_object_array_add(vs, vehicle_json(&r->v[k]));
    put(o, "vehicles", vs);
    put(o, "map", map_json(ss->t));
    return o;
}

/* ---- step, command ---------------------------------------------------------------- */

static jo *do_step(sim_session *ss, jo *req, reply_err *e)
{
    double n = 1, d;
    int hn = get_num(req, "n", &n, e), hd = hn < 0 ? -1 : get_num(req, "duration_s", &d, e);
    if (hn < 0 || hd < 0)
        return NULL;
    if (hn && hd)
        return fail(e, "out_of_range", "give n or duration_s, not both"), NULL;
    if (hd) {
        if (!(d > 0 && d <= 1e6))
            return fail(e, "out_of_range", "duration_s %g is out of range (0, 1e6]", d), NULL;
        n = fmax(1, round(d / ss->sc->step_s));
    }
    if (!(n >= 1 && n <= 1e8 && n == floor(n)))
        return fail(e, "out_of_range", "n %g is out of range (a whole number in [1, 1e8])", n), NULL;
    double t0 = sim_run_time(ss->run);
    int over = sim_run_advance(ss->quiet, ss->run, (long)n);
    if (over < 0)
        return fail(e, "failed", "the step failed: %s", trv_errmsg(ss->quiet)), NULL;
    jo *o = json_object_new_object();
    put(o, "steps", json_object_new_int64(llround((sim_run_time(ss->run) - t0) / ss->sc->step_s)));
    put(o, "over", json_object_new_boolean(over));
    return o;
}

/* The path of a command: "path": [[x, y], ...] into c (malloc'ed x, y). */
static int get_path(jo *req, sim_command *c, reply_err *e)
{
    jo *p;
    if (!json_object_object_get_ex(req, "path", &p))
        return 0;
    int n = json_object_is_type(p, json_type_array) ? (int)json_object_array_length(p) : -1;
    if (n < 2 || n > 100000)
        return fail(e, "out_of_range", "'path' must be an array of 2 to 100000 [x, y] points"), -1;
    c->x = malloc(n * sizeof *c->x), c->y = malloc(n * sizeof *c->y), c->n = n;
    for (int i = 0; i < n; i++) {
        jo *pt = json_object_array_get_idx(p, i);
        jo *px = json_object_array_get_idx(pt, 0), *py = json_object_array_get_idx(pt, 1);
        if (!c->x || !c->y || !json_object_is_type(pt, json_type_array) || json_object_array_length(pt) != 2 ||
            !(json_object_is_type(px, json_type_double) || json_object_is_type(px, json_type_int)) ||
            !(json_object_is_type(py, json_type_double) || json_object_is_type(py, json_type_int)))
            return fail(e, "bad_type", "point %d of 'path' is not [x, y]", i + 1), -1;
        c->x[i] = json_object_get_double(px), c->y[i] = json_object_get_double(py);
    }
    c->kind = SIM_CMD_FOLLOW;
    return 1;
}

static int get_wheels(jo *req, sim_command *c, reply_err *e)
{
    jo *w;
    if (!json_object_object_get_ex(req, "wheels", &w))
        return 0;
    int n = json_object_is_type(w, json_type_array) ? (int)json_object_array_length(w) : -1;
    if (n != 2 && n != 4)
        return fail(e, "bad_type", "'wheels' must be [left, right] (skid) or four speeds (mecanum)"), -1;
    for (int i = 0; i < n; i++) {
        jo *x = json_object_array_get_idx(w, i);
        if (!json_object_is_type(x, json_type_double) && !json_object_is_type(x, json_type_int))
            return fail(e, "bad_type", "wheel speed %d is not a number", i + 1), -1;
        c->a[i] = json_object_get_double(x);
    }
    c->kind = SIM_CMD_WHEELS;
    c->n = n;
    return 1;
}

/* Apply c and log it: an error of the run's check is out_of_range. */
static int apply(sim_session *ss, const sim_command *c, reply_err *e)
{
    trv_ctx *q = ss->quiet;
    if (!sim_command_apply(q, ss->run, c)) {
        if (!sim_commands_add(q, ss->log, c))
            return 0;
        fail(e, "failed", "%s", trv_errmsg(q));
    } else {
        fail(e, "out_of_range", "%s", trv_errmsg(q));
    }
    return -1;
}

static jo *do_command(sim_session *ss, jo *req, reply_err *e)
{
    sim_command c = {.step = ss->run->step_i};
    if ((c.vehicle = get_vehicle(ss, req, e)) < 0)
        return NULL;
    int hp = get_path(req, &c, e), hw = hp < 0 ? -1 : get_wheels(req, &c, e), bad = hp < 0 || hw < 0;
    int hv = 0, hs = 0, hy = 0, hl = 0;
    if (!bad && !hp && !hw) {
        c.kind = SIM_CMD_DRIVE;
        bad = (hv = get_num(req, "v", &c.a[0], e)) < 0 || (hs = get_num(req, "steer", &c.a[1], e)) < 0 ||
              (hy = get_num(req, "yaw_rate", &c.a[1], e)) < 0 || (hl = get_num(req, "vy", &c.a[2], e)) < 0;
        if (!bad && (!hv || hs + hy > 1)) {
            fail(e, "missing", "a command is v with steer (ackermann) or yaw_rate (skid, mecanum) [and vy], "
                               "or wheels, or path");
            bad = 1;
        }
        if (!bad && hs != (ss->run->v[c.vehicle].body.kind == SIM_ACKERMANN) && hs + hy) {
            fail(e, "out_of_range", "'%s' is %s: %s", ss->sc->veh[c.vehicle].id,
                 sim_kind_name(ss->run->v[c.vehicle].body.kind), hs ? "yaw_rate, not steer" : "steer, not yaw_rate");
            bad = 1;
        }
    }
    if (!bad && hw && c.n == 4 && ss->run->v[c.vehicle].body.kind != SIM_MECANUM)
        bad = (fail(e, "out_of_range", "four wheel speeds are for mecanum vehicles"), 1);
    if (!bad)
        bad = apply(ss, &c, e) < 0;
    if (hp > 0)
        free(c.x), free(c.y);
    if (bad)
        return NULL;
    jo *o = json_object_new_object();
    put(o, "vehicle", json_object_new_string(ss->sc->veh[c.vehicle].id));
    put(o, "mode", json_object_new_string(sim_command_name(c.kind)));
    put(o, "step", json_object_new_int64(c.step));
    return o;
}

/* ---- state, scan, events, plan ------------------------------------------------------ */

static jo *state_json(const sim_run *r, int k)
{
    const sim_veh *v = &r->v[k];
    const sim_state *s = &v->s;
    jo *o = json_object_new_object();
    put(o, "vehicle", json_object_new_string(v->spec->id));
    put(o, "phase", json_object_new_string(v->phase == 0 ? "waiting" : v->phase == 1 ? "driving" : "done"));
    put(o, "end", v->phase == 2 ? json_object_new_string(v->m.end) : NULL);
    put(o, "mode", json_object_new_string(v->ext.direct ? "drive" : "follow"));
    put(o, "x", num(s->x)), put(o, "y", num(s->y)), put(o, "z", num(s->z));
    put(o, "heading", num(s->heading)), put(o, "pitch", num(s->pitch)), put(o, "roll", num(s->roll));
    put(o, "v", num(s->v)), put(o, "vy", num(s->vy)), put(o, "yaw_rate", num(s->yaw_rate));
    put(o, "steer", num(s->steer));
    long c = prm_cell_at(v->t, s->x, s->y);
    put(o, "class", json_object_new_int(c >= 0 ? v->t->cls->u8[c] : 0));
    int limit;
    double lim = sim_veh_speed(r, v, s->x, s->y, s->pitch, NULL, &limit);
    const char *why = limit >= 0 ? tm_limit_name(limit) : "speed map";
    if (v->body.top_speed_ms < lim)
        lim = v->body.top_speed_ms, why = "top speed";
    if (sim_rollover_speed_now(r, v) < lim) /* rollover_limit.h */
        lim = sim_rollover_speed_now(r, v), why = "rollover";
    put(o, "speed_limit_ms", num(lim));
    put(o, "binding_limit", json_object_new_string(why));
    put(o, "distance_m", num(v->m.distance_m));
    return o;
}

static jo *do_state(sim_session *ss, jo *req, reply_err *e)
{
    int k0 = 0, k1 = ss->run->nv;
    if (json_object_object_get_ex(req, "vehicle", NULL)) {
        if ((k0 = get_vehicle(ss, req, e)) < 0)
            return NULL;
        k1 = k0 + 1;
    }
    jo *o = json_object_new_object(), *vs = json_object_new_array();
    for (int k = k0; k < k1; k++)
        json_object_array_add(vs, state_json(ss->run, k));
    put(o, "vehicles", vs);
    return o;
}

static char *base64(const unsigned char *p, size_t n)
{
    static const char tab[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    char *s = malloc(4 * ((n + 2) / 3) + 1), *q = s;
    if (!s)
        return NULL;
    for (size_t i = 0; i < n; i += 3) {
        unsigned v = p[i] << 16 | (i + 1 < n ? p[i + 1] << 8 : 0) | (i + 2 < n ? p[i + 2] : 0);
        *q++ = tab[v >> 18 & 63], *q++ = tab[v >> 12 & 63];
        *q++ = i + 1 < n ? tab[v >> 6 & 63] : '=';
        *q++ = i + 2 < n ? tab[v & 63] : '=';
    }
    *q = '\0';
    return s;
}

/* The scan's geometry (sim_lidar_scan's): azimuth a x daz + az0 from the
 * heading, elevation el0 + l x del. */
static void scan_geometry(jo *o, const sim_sensor *ls)
{
    int lines = ls->lines < 1 ? 1 : ls->lines, naz = sim_lidar_rays(ls) / lines;
    int round = ls->hfov_rad >= 2.0 * M_PI - 1e-9;
    double daz = round ? 2.0 * M_PI / naz : ls->hres_rad > 0 ? ls->hres_rad : 0;
    put(o, "lines", json_object_new_int(lines));
    put(o, "azimuths", json_object_new_int(naz));
    put(o, "az0_rad", num(round ? -M_PI : -0.5 * (naz - 1) * daz));
    put(o, "daz_rad", num(daz));
    put(o, "el0_rad", num(lines > 1 ? -0.5 * ls->vfov_rad : 0));
    put(o, "del_rad", num(lines > 1 ? ls->vfov_rad / (lines - 1) : 0));
    put(o, "range_m", num(ls->range_m));
    put(o, "mount_h_m", num(ls->mount_h_m));
}

static jo *do_scan(sim_session *ss, jo *req, reply_err *e)
{
    int k = get_vehicle(ss, req, e);
    if (k < 0)
        return NULL;
    const sim_veh *v = &ss->run->v[k];
    if (!v->nlidar)
        return fail(e, "no_lidar", "'%s' has no LiDAR", v->spec->id), NULL;
    if (!v->ext.scanned)
        return fail(e, "no_scan", "'%s' has not scanned yet (step first)", v->spec->id), NULL;
    jo *o = json_object_new_object(), *pose = json_object_new_object();
    put(o, "vehicle", json_object_new_string(v->spec->id));
    put(o, "sensor", json_object_new_string(sensor_name(v->lidar[0]->kind)));
    put(o, "scan_t", num(v->ext.scan_t));
    const sim_state *p = &v->ext.scan_pose;
    put(pose, "x", num(p->x)), put(pose, "y", num(p->y)), put(pose, "z", num(p->z));
    put(pose, "heading", num(p->heading)), put(pose, "pitch", num(p->pitch)), put(pose, "roll", num(p->roll));
    put(o, "pose", pose);
    scan_geometry(o, v->lidar[0]);
    put(o, "order", json_object_new_string("azimuth-major: index a * lines + l; NaN: no return"));
    char *b = base64((const unsigned char *)v->ext.ranges, (size_t)v->ext.nranges * sizeof(float));
    put(o, "ranges_f32le", b ? json_object_new_string(b) : NULL);
    free(b);
    return o;
}

static jo *do_events(sim_session *ss, jo *req, reply_err *e)
{
    double since = 0;
    if (get_num(req, "since", &since, e) < 0)
        return NULL;
    int n = sim_run_nevents(ss->run);
    if (!(since >= 0 && since == floor(since)))
        return fail(e, "out_of_range", "since %g is not a whole number >= 0", since), NULL;
    jo *o = json_object_new_object(), *evs = json_object_new_array();
    for (int i = (int)fmin(since, n); i < n; i++) {
        const sim_event *ev = sim_run_event(ss->run, i);
        jo *x = json_object_new_object();
        char buf[256];
        snprintf(buf, sizeof buf, "{%s}", ev->details);
        put(x, "t", num(ev->t));
        put(x, "vehicle", ev->vehicle >= 0 ? json_object_new_string(ss->sc->veh[ev->vehicle].id) : NULL);
        put(x, "event", json_object_new_string(sim_event_name(ev->type)));
        put(x, "x", num(ev->x)), put(x, "y", num(ev->y));
        put(x, "details", json_tokener_parse(buf));
        json_object_array_add(evs, x);
    }
    put(o, "events", evs);
    put(o, "next", json_object_new_int(n));
    return o;
}

/* A* on the terrain grid (strategy time) from the vehicle to "to", with
 * what its LiDAR saw blocked (the seen map's inflated mask; its start and
 * goal cells open); "follow": true makes it the vehicle's path. */
static jo *do_plan(sim_session *ss, jo *req, reply_err *e)
{
    int k = get_vehicle(ss, req, e);
    jo *to, *fo;
    if (k < 0)
        return NULL;
    if (!json_object_object_get_ex(req, "to", &to) || !json_object_is_type(to, json_type_array) ||
        json_object_array_length(to) != 2)
        return fail(e, "missing", "'to' must be [x, y] (map CRS)"), NULL;
    double gx = json_object_get_double(json_object_array_get_idx(to, 0));
    double gy = json_object_get_double(json_object_array_get_idx(to, 1));
    sim_run *r = ss->run;
    sim_veh *v = &r->v[k];
    long cs = prm_cell_at(r->t, v->s.x, v->s.y), cg = prm_cell_at(r->t, gx, gy);
    if (cg < 0)
        return fail(e, "out_of_range", "'to' (%g, %g) is outside the map", gx, gy), NULL;
    size_t n = (size_t)r->t->grid->nx * r->t->grid->ny;
    unsigned char *mask = v->has_seen ? malloc(n) : NULL;
    if (mask) {
        memcpy(mask, v->seen.mask, n);
        if (cs >= 0)
            mask[cs] = 1;
        mask[cg] = 1;
    }
    prm_weights w;
    prm_weights_default(&w);
    prm_path p = {0};
    trv_status st = prm_route_grid_masked(ss->quiet, v->t, mask, v->s.x, v->s.y, gx, gy, PRM_TIME, &w, &p);
    free(mask);
    if (st)
        return fail(e, "no_path", "%s", trv_errmsg(ss->quiet)), NULL;
    jo *o = json_object_new_object(), *pts = json_object_new_array();
    double len = 0;
    for (int i = 0; i < p.n; i++) {
        jo *pt = json_object_new_array();
        json_object_array_add(pt, num(p.x[i]));
        json_object_array_add(pt, num(p.y[i]));
        json_object_array_add(pts, pt);
        len += i ? hypot(p.x[i] - p.x[i - 1], p.y[i] - p.y[i - 1]) : 0;
    }
    put(o, "vehicle", json_object_new_string(v->spec->id));
    put(o, "path", pts);
    put(o, "length_m", num(len));
    put(o, "time_s", num(p.objective));
    if (json_object_object_get_ex(req, "follow", &fo) && json_object_get_boolean(fo) && p.n >= 2) {
        sim_command c = {.step = r->step_i, .vehicle = k, .kind = SIM_CMD_FOLLOW, .n = p.n, .x = p.x, .y = p.y};
        if (apply(ss, &c, e) < 0)
            json_object_put(o), o = NULL;
    }
    prm_path_clear(&p);
    return o;
}

static jo *do_reset(sim_session *ss, jo *req, reply_err *e)
{
    (void)req;
    sim_run *nr = NULL;
    sim_commands *log = sim_commands_new();
    if (!log || sim_run_new(ss->quiet, ss->sc, ss->t, ss->env, &nr) || sim_ext_scan_enable(ss->quiet, nr)) {
        sim_run_free(nr);
        sim_commands_free(log);
        return fail(e, "failed", "reset: %s", log ? trv_errmsg(ss->quiet) : "out of memory"), NULL;
    }
    sim_run_free(ss->run);
    sim_commands_free(ss->log);
    ss->run = nr, ss->log = log;
    return json_object_new_object();
}

static jo *do_close(sim_session *ss, jo *req, reply_err *e)
{
    (void)req, (void)e;
    ss->closing = 1;
    return json_object_new_object();
}

/* Virtual obstacles: protocol_obstacles.c. */
static jo *do_add_obstacle(sim_session *ss, jo *req, reply_err *e)
{
    return sim_proto_add_obstacle(ss, req, &e->name, e->msg, sizeof e->msg);
}
static jo *do_remove_obstacle(sim_session *ss, jo *req, reply_err *e)
{
    return sim_proto_remove_obstacle(ss, req, &e->name, e->msg, sizeof e->msg);
}
static jo *do_obstacles(sim_session *ss, jo *req, reply_err *e)
{
    return sim_proto_obstacles(ss, req, &e->name, e->msg, sizeof e->msg);
}

typedef jo *(*handler)(sim_session *, jo *, reply_err *);

static const struct {
    const char *type;
    handler fn;
} handlers[] = {
    {"hello", do_hello}, {"step", do_step},     {"command", do_command}, {"state", do_state}, {"scan", do_scan},
    {"plan", do_plan},   {"events", do_events}, {"reset", do_reset},     {"close", do_close},
    {"add_obstacle", do_add_obstacle}, {"remove_obstacle", do_remove_obstacle}, {"obstacles", do_obstacles},
};

trv_status sim_protocol_handle(trv_ctx *ctx, sim_session *ss, const char *line, char **out, size_t *len,
                               size_t *cap)
{
    (void)ctx;
    jo *req = json_tokener_parse(line), *type = NULL, *id = NULL;
    if (!req || !json_object_is_type(req, json_type_object)) {
        json_object_put(req);
        sim_protocol_error(ss, "malformed", "the line is not a JSON object", out, len, cap);
        return TRV_OK;
    }
    json_object_object_get_ex(req, "id", &id);
    const char *name = json_object_object_get_ex(req, "type", &type) ? json_object_get_string(type) : NULL;
    handler fn = NULL;
    for (size_t i = 0; name && i < sizeof handlers / sizeof *handlers && !fn; i++)
        if (!strcmp(handlers[i].type, name))
            fn = handlers[i].fn;
    reply_err e = {NULL, ""};
    jo *body = NULL, *o = json_object_new_object();
    if (!name)
        fail(&e, "missing", "'type' is missing");
    else if (!fn)
        fail(&e, "unknown_message", "unknown message type '%s' (hello, step, command, state, scan, plan, events, "
                                    "reset, close, add_obstacle, remove_obstacle, obstacles)", name);
    else
        body = fn(ss, req, &e);
    /* type, t and id first, then the handler's members */
    put(o, "type", json_object_new_string(body ? name : "error"));
    put(o, "t", json_object_new_double(now(ss)));
    if (id)
        put(o, "id", json_object_get(id));
    if (!body) {
        put(o, "error", json_object_new_string(e.name ? e.name : "failed"));
        put(o, "message", json_object_new_string(e.msg));
    } else {
        json_object_object_foreach(body, k, v) put(o, k, json_object_get(v));
        json_object_put(body);
    }
    json_object_put(req);
    emit(o, out, len, cap);
    return TRV_OK;
}
