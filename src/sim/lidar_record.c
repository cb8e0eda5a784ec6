/* The run's record for replays: vehicles.json and the LiDAR scans
 * (lidar_record.h, docs/summaries.md). */
#include "lidar_record.h"
#include "core/json.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct lidrec_scan {
    double t, x, y, z, heading;
    long hits, first, n; /* first: its points' start in pts (3 floats a point) */
} lidrec_scan;

struct sim_lidrec {
    lidrec_scan *scan;
    long nscan, capscan;
    float *pts;
    long npts, cappts; /* points */
    double next_t;
    int failed;
};

/* The record of a vehicle whose record could not be allocated: its
 * writing fails (shared, never freed). */
static sim_lidrec lost = {.failed = 1};

long sim_lidrec_pick(long n, long b, long j) { return n <= b ? j : (long)((double)j * n / b); }

long sim_lidrec_scans(const sim_lidrec *rec) { return rec ? rec->nscan : 0; }

void sim_lidrec_free(sim_lidrec *rec)
{
    if (!rec || rec == &lost)
        return;
    free(rec->scan);
    free(rec->pts);
    free(rec);
}

/* Room for one more scan of k points; 0 when out of memory. */
static int reserve(sim_lidrec *rec, long k)
{
    if (rec->nscan == rec->capscan) {
        long cap = rec->capscan ? 2 * rec->capscan : 64;
        lidrec_scan *s = realloc(rec->scan, cap * sizeof *s);
        if (!s)
            return 0;
        rec->scan = s, rec->capscan = cap;
    }
    if (rec->npts + k > rec->cappts) {
        long cap = rec->cappts ? 2 * rec->cappts : 4096;
        while (cap < rec->npts + k)
            cap *= 2;
        float *p = realloc(rec->pts, 3 * (size_t)cap * sizeof *p);
        if (!p)
            return 0;
        rec->pts = p, rec->cappts = cap;
    }
    return 1;
}

void sim_lidrec_scan(sim_lidrec **prec, const sim_scenario *sc, double t, const sim_state *s, const double *hits,
                     int n)
{
    if (!(sc->lidar_record_s > 0))
        return;
    if (!*prec && !(*prec = calloc(1, sizeof **prec)))
        *prec = &lost;
    sim_lidrec *rec = *prec;
    if (rec->failed || t < rec->next_t - 1e-9)
        return;
    long b = sc->lidar_record_points, k = n < b ? n : b;
    if (!reserve(rec, k)) {
        rec->failed = 1;
        return;
    }
    rec->next_t = t + sc->lidar_record_s;
    rec->scan[rec->nscan++] = (lidrec_scan){t, s->x, s->y, s->z, s->heading, n, rec->npts, k};
    float *p = rec->pts + 3 * rec->npts;
    for (long j = 0; j < k; j++) {
        const double *h = hits + 3 * sim_lidrec_pick(n, b, j);
        p[3 * j] = (float)(h[0] - s->x), p[3 * j + 1] = (float)(h[1] - s->y), p[3 * j + 2] = (float)(h[2] - s->z);
    }
    rec->npts += k;
}

trv_status sim_lidrec_write(trv_ctx *ctx, const sim_lidrec *rec, const char *path)
{
    if (rec && rec->failed)
        return trv_error(ctx, TRV_ERR_NOMEM, "out of memory recording the LiDAR scans for '%s'", path);
    FILE *f = fopen(path, "w");
    if (!f)
        return trv_error(ctx, TRV_ERR_IO, "cannot write '%s'", path);
    for (long i = 0; rec && i < rec->nscan; i++) {
        const lidrec_scan *s = &rec->scan[i];
        fprintf(f, "{\"t\": %.3f, \"x\": %.3f, \"y\": %.3f, \"z\": %.3f, \"heading_deg\": %.3f, \"hits\": %ld, "
                   "\"n\": %ld, \"xyz\": [",
                s->t, s->x, s->y, s->z, s->heading * 180 / M_PI, s->hits, s->n);
        const float *p = rec->pts + 3 * s->first;
        for (long j = 0; j < 3 * s->n; j++)
            fprintf(f, j ? ",%.2f" : "%.2f", (double)p[j]);
        fputs("]}\n", f);
    }
    return fclose(f) ? trv_error(ctx, TRV_ERR_IO, "cannot write '%s'", path) : TRV_OK;
}

/* lidar_ID.ndjson: the file name of vehicle v's record (buf[96]); NULL
 * when it has none (no LiDAR, or the scenario does not record). */
static const char *lidar_name(const sim_run *r, const sim_veh *v, char buf[96])
{
    if (!(r->sc->lidar_record_s > 0) || v->nlidar == 0)
        return NULL;
    snprintf(buf, 96, "lidar_%s.ndjson", v->spec->id);
    return buf;
}

static trv_status write_vehicles(trv_ctx *ctx, const sim_run *r, const char *path)
{
    FILE *f = fopen(path, "w");
    if (!f)
        return trv_error(ctx, TRV_ERR_IO, "cannot write '%s'", path);
    fputs("{\n  \"vehicles\": [\n", f);
    for (int k = 0; k < r->nv; k++) {
        const sim_veh *v = &r->v[k];
        const sim_body *b = &v->body;
        char buf[96];
        const char *lidar = lidar_name(r, v, buf);
        fputs("    {\"id\": ", f);
        trv_json_fputs(f, v->spec->id);
        fprintf(f, ", \"model\": \"%s\", \"length_m\": %.3f, \"width_m\": %.3f, \"height_m\": %.3f, "
                   "\"wheelbase_m\": %.3f, \"track_m\": %.3f, \"wheel_radius_m\": %.3f, \"lidar\": ",
                sim_kind_name(b->kind), b->length_m, b->width_m, b->height_m, b->wheelbase_m, b->track_m, b->wheel_radius_m);
        if (lidar)
            trv_json_fputs(f, lidar);
        else
            fputs("null", f);
        fprintf(f, "}%s\n", k + 1 < r->nv ? "," : "");
    }
    fputs("  ]\n}\n", f);
    return fclose(f) ? trv_error(ctx, TRV_ERR_IO, "cannot write '%s'", path) : TRV_OK;
}

/* outdir/name added to set: *tmp the path to write. */
static trv_status add_file(trv_ctx *ctx, trv_outset *set, const char *outdir, const char *name, const char **tmp)
{
    char *p = trv_path_join(outdir, name);
    *tmp = p ? trv_outset_add(set, p) : NULL;
    free(p);
    return *tmp ? TRV_OK : trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
}

trv_status sim_lidrec_write_run(trv_ctx *ctx, trv_outset *set, const sim_run *r, const char *outdir)
{
    trv_status st = TRV_OK;
    const char *tmp;
    for (int k = 0; k < r->nv && !st; k++) {
        char buf[96];
        const char *name = lidar_name(r, &r->v[k], buf);
        if (name && !(st = add_file(ctx, set, outdir, name, &tmp)))
            st = sim_lidrec_write(ctx, r->v[k].lidrec, tmp);
    }
    if (!st && !(st = add_file(ctx, set, outdir, "vehicles.json", &tmp)))
        st = write_vehicles(ctx, r, tmp);
    return st;
}
