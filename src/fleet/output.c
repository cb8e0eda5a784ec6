/* The fleet table (CSV) and the trv-sim scenario of a plan (fleet.h). */
#include "fleet.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

trv_status fleet_table_write(trv_ctx *ctx, const fleet_vehicles *V, const fleet_tasks *T, const fleet_plan *p,
                             const fleet_route *r, const char *tmp, const char *path)
{
    FILE *f = fopen(tmp, "w");
    if (!f)
        return trv_error(ctx, TRV_ERR_IO, "cannot write '%s'", path);
    fprintf(f, "vehicle,tasks,ntasks,time_s,route_time_s,distance_m\n");
    for (int k = 0; k < V->n; k++) {
        trv_csv_put(f, V->v[k].id);
        fputc(',', f);
        char tasks[4096] = "";
        size_t used = 0;
        for (int q = 0; q < p->len[k] && used < sizeof tasks; q++)
            used += (size_t)snprintf(tasks + used, sizeof tasks - used, "%s%s", q ? " " : "",
                                     T->t[p->seq[(size_t)k * p->nt + q]].id);
        trv_csv_put(f, tasks);
        fprintf(f, ",%d,%.3f,", p->len[k], p->time_s[k]);
        if (r && r[k].planned)
            fprintf(f, "%.3f,%.3f\n", r[k].time_h * 3600, r[k].distance_m);
        else
            fprintf(f, ",\n");
    }
    return fclose(f) ? trv_error(ctx, TRV_ERR_IO, "cannot write '%s'", path) : TRV_OK;
}

trv_status fleet_matrix_write(trv_ctx *ctx, const fleet_vehicles *V, const fleet_tasks *T, const fleet_matrix *M,
                              const char *tmp, const char *path)
{
    FILE *f = fopen(tmp, "w");
    if (!f)
        return trv_error(ctx, TRV_ERR_IO, "cannot write '%s'", path);
    fprintf(f, "vehicle,from,to,time_s\n");
    const int w = T->n + 1;
    for (int k = 0; k < V->n; k++)
        for (int i = 0; i < w; i++)
            for (int j = 1; j < w; j++) {
                double c = M->travel[(size_t)k * w * w + (size_t)i * w + j];
                if (i == j)
                    continue;
                trv_csv_put(f, V->v[k].id);
                fputc(',', f);
                trv_csv_put(f, i ? T->t[i - 1].id : "start");
                fputc(',', f);
                trv_csv_put(f, T->t[j - 1].id);
                if (isfinite(c))
                    fprintf(f, ",%.3f\n", c);
                else
                    fprintf(f, ",\n");
            }
    return fclose(f) ? trv_error(ctx, TRV_ERR_IO, "cannot write '%s'", path) : TRV_OK;
}

/* A relative file relative to dir (both made absolute); file itself when
 * it is absolute or either cannot be resolved. */
static void relative(const char *dir, const char *file, char *out, size_t n)
{
    char a[PATH_MAX], b[PATH_MAX];
    if (file[0] != '/' && realpath(dir, a) && realpath(file, b))
        trv_relpath(a, b, out, n);
    else
        snprintf(out, n, "%s", file);
}

trv_status fleet_scenario_write(trv_ctx *ctx, const fleet_vehicles *V, const fleet_plan *p, const char *dir,
                                const char *tmp, const char *path)
{
    static const char *const model[3] = {"ackermann", "skid", "mecanum"};
    FILE *f = fopen(tmp, "w");
    if (!f)
        return trv_error(ctx, TRV_ERR_IO, "cannot write '%s'", path);
    double limit = 600;
    for (int k = 0; k < V->n; k++)
        if (p->len[k])
            limit = fmax(limit, 3 * (V->v[k].available_s + p->time_s[k]));
    fprintf(f, "# the fleet plan for trv-sim (written by trv-fleet): each vehicle drives its route\n"
               "# through its tasks from its availability time (no service stops)\n"
               "[scenario]\ntime_limit_s = %.0f\n",
            fmin(ceil(limit), 1e7));
    for (int k = 0; k < V->n; k++) {
        if (!p->len[k])
            continue;
        const fleet_vehicle *v = &V->v[k];
        char rel[PATH_MAX], run[PATH_MAX];
        relative(dir, v->vehicle, rel, sizeof rel);
        relative(dir, v->run, run, sizeof run);
        fprintf(f, "\n[vehicle.%s]\nfile = %s\nmodel = %s\nterrain = %s\nroute = %s.csv\nroute_name = time\n"
                   "start_time_s = %.10g\n",
                v->id, rel, model[v->model], run, v->id, v->available_s);
    }
    return fclose(f) ? trv_error(ctx, TRV_ERR_IO, "cannot write '%s'", path) : TRV_OK;
}
