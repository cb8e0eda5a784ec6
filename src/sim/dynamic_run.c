/*
 * The dynamic model in the runner (dynamic_run.h): the vehicles in one
 * ODE world (dynamic.h), each from its vehicle file, the soil under its
 * wheels from its speed model; the world stepped once a step for all
 * (sim_dynamic_flush), vehicle against vehicle two-sided; the events and
 * metrics.
 *
 * Soil (with the speed model, on a cell whose soil code it knows and
 * that has shear data): mu = the soil's thrust at full slip over the
 * weight (tm_model soil_hold_N / weight_N), K / L its soil_k_over_l,
 * f_rr = the measured coefficient if the table has one, else the soil's
 * compaction resistance over the weight plus the tyre's own
 * rolling_resistance_coeff; elsewhere sim_dyn_params_default's soil.
 */
#include "dynamic_run.h"
#include "dynamic.h"

#include <math.h>
#include <stdlib.h>

struct sim_vdyn {
    sim_dyn *d;
    sim_dyn_out o;              /* this step's (sim_dynamic_step to sim_dynamic_flush) */
    int begun;                  /* sim_dyn_begin done this step */
    sim_dyn **all;              /* vehicle 0's: every vehicle's model, their outs (NULL: not driven) */
    sim_dyn_out **outs;
    const sim_run *r;
    const sim_veh *v;
    sim_dyn_soil soil0;
    double z, pitch, roll;
    double threshold;
    double slip_sum, slip_max, roll_max, pitch_max;
    double load_min[4], load_max[4], load_sum[4];
    long n;
};

static void soil_at(void *user, double x, double y, sim_dyn_soil *out)
{
    const struct sim_vdyn *vd = user;
    const sim_veh *v = vd->v;
    const sim_run *r = vd->r;
    *out = vd->soil0;
    long c = v->has_tm ? prm_cell_at(v->t, x, y) : -1;
    int s = c >= 0 ? r->env.soil->u8[c] : 0;
    if (s == 0 || v->tm.soil_index[s] < 0 || !(v->tm.soil_k_over_l[s] > 0))
        return;
    out->mu = v->tm.soil_hold_N[s] / v->tm.weight_N;
    out->k_over_l = v->tm.soil_k_over_l[s];
    double fm = v->tm.soil_f_measured[s];
    out->f_rr = fm > 0 ? fm : v->tm.soil_pull_N[s] / v->tm.weight_N + v->tv->rolling_coeff;
}

trv_status sim_dynamic_new(trv_ctx *ctx, sim_run *r, int k)
{
    sim_veh *v = &r->v[k];
    struct sim_vdyn *vd = calloc(1, sizeof *vd);
    if (!vd)
        return trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
    v->dyn = vd;
    vd->r = r, vd->v = v;
    sim_dyn_params p;
    sim_dyn_params_default(v->tv, &v->body, &p);
    vd->soil0 = p.soil;
    p.soil_fn = soil_at, p.soil_user = vd;
    vd->threshold = sim_dyn_rollover_threshold(&v->body, &p);
    vd->z = v->s.z, vd->pitch = v->s.pitch, vd->roll = v->s.roll;
    for (int w = 0; w < 4; w++)
        vd->load_min[w] = INFINITY;
    sim_dyn *with = k > 0 ? r->v[0].dyn->d : NULL; /* one world for all */
    trv_status st = sim_dyn_new_in(ctx, with, &v->body, &p, &r->field, &v->s, r->sc->step_s, &vd->d);
    if (!st)
        st = sim_dyn_set_obstacles(ctx, vd->d, r->obs, r->nobs);
    if (!st && k == 0) {
        vd->all = calloc(r->nv, sizeof *vd->all), vd->outs = calloc(r->nv, sizeof *vd->outs);
        st = vd->all && vd->outs ? TRV_OK : trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
    }
    if (st) {
        char msg[256];
        snprintf(msg, sizeof msg, "%s", trv_errmsg(ctx));
        return trv_error(ctx, st, "vehicle '%s': %s", v->spec->id, msg);
    }
    return TRV_OK;
}

void sim_dynamic_free(struct sim_vdyn *vd)
{
    if (!vd)
        return;
    sim_dyn_free(vd->d);
    free(vd->all), free(vd->outs);
    free(vd);
}

static void accumulate(struct sim_vdyn *vd, const sim_dyn_out *o)
{
    for (int w = 0; w < 4; w++) {
        vd->slip_sum += fabs(o->slip[w]) / 4;
        vd->slip_max = fmax(vd->slip_max, fabs(o->slip[w]));
        vd->load_min[w] = fmin(vd->load_min[w], o->load_N[w]);
        vd->load_max[w] = fmax(vd->load_max[w], o->load_N[w]);
        vd->load_sum[w] += o->load_N[w];
    }
    vd->roll_max = fmax(vd->roll_max, fabs(vd->roll));
    vd->pitch_max = fmax(vd->pitch_max, fabs(vd->pitch));
    vd->n++;
}

void sim_dynamic_step(trv_ctx *ctx, sim_run *r, int k, const sim_cmd *cmd, double dt)
{
    (void)ctx;
    struct sim_vdyn *vd = r->v[k].dyn;
    sim_dyn_set_mode(vd->d, SIM_DYN_DRIVEN);
    sim_dyn_begin(vd->d, cmd, r->t_now, dt, &vd->o);
    vd->begun = 1;
}

/* After the world's step: vehicle k's state, metrics and events. */
static void finish_step(trv_ctx *ctx, sim_run *r, int k, double dt)
{
    sim_veh *v = &r->v[k];
    struct sim_vdyn *vd = v->dyn;
    sim_state s = v->s;
    sim_dyn_out o = vd->o;
    if (sim_dyn_end(ctx, vd->d, dt, &s, &o)) {
        sim_run_note(r, k, SIM_EV_OFF_MAP, "");
        sim_run_stop(r, k, "off_map");
        return;
    }
    vd->z = s.z, vd->pitch = s.pitch, vd->roll = s.roll;
    s.z = v->s.z, s.pitch = v->s.pitch, s.roll = v->s.roll; /* check() takes them from sim_dynamic_pose */
    v->s = s;
    accumulate(vd, &o);
    char buf[256], esc[64];
    for (int i = 0; i < o.nhits; i++) {
        int t = o.hit[i].tag, q = -1 - t; /* vehicle q of the run */
        const char *id = t >= 0 ? r->obs[t].id : r->v[q].spec->id;
        snprintf(buf, sizeof buf, "\"with\": \"%s\", \"id\": \"%s\", \"impact_speed_ms\": %.3f",
                 t >= 0 ? "obstacle" : "vehicle", sim_json_esc(id, esc), o.hit[i].speed);
        v->m.collisions++;
        sim_run_note(r, k, SIM_EV_COLLISION, buf);
    }
    if (o.rollover) {
        snprintf(buf, sizeof buf, "\"reason\": \"%s\", \"roll_deg\": %.2f, \"pitch_deg\": %.2f",
                 o.rollover == 1 ? "angle" : "wheels_off_ground", vd->roll * 180 / M_PI, vd->pitch * 180 / M_PI);
        sim_run_note(r, k, SIM_EV_ROLLOVER, buf);
        sim_run_stop(r, k, "rollover");
    }
}

trv_status sim_dynamic_flush(trv_ctx *ctx, sim_run *r, double dt)
{
    if (r->nv < 1 || !r->v[0].dyn)
        return TRV_OK;
    struct sim_vdyn *v0 = r->v[0].dyn;
    int driven = 0;
    for (int k = 0; k < r->nv; k++) {
        struct sim_vdyn *vd = r->v[k].dyn;
        if (!vd->begun) /* not started yet, or its run is over */
            sim_dyn_set_mode(vd->d, r->v[k].phase == 0 ? SIM_DYN_ABSENT : SIM_DYN_PARKED);
        v0->all[k] = vd->d, v0->outs[k] = vd->begun ? &vd->o : NULL;
        driven += vd->begun;
    }
    if (!driven)
        return TRV_OK;
    trv_status st = sim_dyn_collide_vehicles(ctx, v0->all, r->nv, v0->outs);
    if (st)
        return st;
    sim_dyn_world_step(v0->d, dt);
    for (int k = 0; k < r->nv; k++)
        if (r->v[k].dyn->begun) {
            r->v[k].dyn->begun = 0;
            finish_step(ctx, r, k, dt);
        }
    return TRV_OK;
}

int sim_dynamic_pose(const sim_veh *v, double *z, double *pitch, double *roll)
{
    *z = v->dyn->z, *pitch = v->dyn->pitch, *roll = v->dyn->roll;
    return 0;
}

static void array4(FILE *f, const char *key, const double a[4], double scale)
{
    fprintf(f, "      \"%s\": [%.1f, %.1f, %.1f, %.1f],\n", key, a[0] * scale, a[1] * scale, a[2] * scale,
            a[3] * scale);
}

void sim_dynamic_metrics_write(FILE *f, const sim_veh *v)
{
    const struct sim_vdyn *vd = v->dyn;
    if (!vd)
        return;
    double n = vd->n > 0 ? (double)vd->n : 1, mn[4];
    for (int w = 0; w < 4; w++)
        mn[w] = vd->n > 0 ? vd->load_min[w] : 0;
    fprintf(f, "      \"slip_mean\": %.4f,\n      \"slip_max\": %.4f,\n", vd->slip_sum / n, vd->slip_max);
    fprintf(f, "      \"roll_max_deg\": %.3f,\n      \"pitch_max_deg\": %.3f,\n", vd->roll_max * 180 / M_PI,
            vd->pitch_max * 180 / M_PI);
    fprintf(f, "      \"rollover_threshold_deg\": %.3f,\n      \"rollover_margin_deg\": %.3f,\n",
            vd->threshold * 180 / M_PI, (vd->threshold - vd->roll_max) * 180 / M_PI);
    array4(f, "wheel_load_min_N", mn, 1);
    array4(f, "wheel_load_mean_N", vd->load_sum, 1 / n);
    array4(f, "wheel_load_max_N", vd->load_max, 1);
}
