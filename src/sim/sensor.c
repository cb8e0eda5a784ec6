/*
 * LiDAR by ray casting (docs/method.md §5): 2D (one level line) and 3D
 * (lines evenly over the vertical field) scans against the heightfield,
 * the obstacles present at the scan's time and the other vehicles' boxes,
 * with Gaussian range noise.
 *
 * The sensor sits mount_h above the reference point and turns with the
 * body: a ray's body-frame direction (cos el cos az, cos el sin az,
 * sin el) is rotated by roll about x, pitch about y (nose up) and the
 * heading about z. Per scan, the obstacles and boxes are reduced to those
 * whose bounding circle lies within range, and per ray a bounding circle
 * the ray's plan view misses skips the prism test; the terrain march then
 * stops at the nearest obstacle hit, and covers only the part of the ray
 * below the highest ground within range (found per scan), through the
 * field's max-height pyramid when the world has one (bit-identical hits),
 * eight rays at a time in vector lanes where the CPU allows (ray_lanes.c):
 * the scan's rays are then cast line by line first, and their noise and
 * points follow in ray order. With the run's pool (ray_pool.c, more than
 * one thread) the rays are cast in chunks of whole azimuths (about
 * SIM_POOL_CHUNK rays, a multiple of eight azimuths) on whichever thread
 * takes them, each ray's range a pure function written to its own slot;
 * the noise and points follow on the calling thread, chunk by chunk in ray
 * order as the chunks come in: the same draws, points and bits for any
 * number of threads.
 */
#include "sim.h"

#include <math.h>
#include <stdlib.h>

static inline double dmin(double a, double b) { return a < b ? a : b; }

static int n_azimuth(const sim_sensor *ls)
{
    if (!(ls->hres_rad > 0))
        return 1;
    if (ls->hfov_rad >= 2.0 * M_PI - 1e-9) {
        int n = (int)lround(2.0 * M_PI / ls->hres_rad);
        return n < 1 ? 1 : n;
    }
    return (int)floor(ls->hfov_rad / ls->hres_rad + 1e-9) + 1;
}

int sim_lidar_rays(const sim_sensor *ls) { return (ls->lines < 1 ? 1 : ls->lines) * n_azimuth(ls); }

/* What a ray may hit: an obstacle or a box, with its plan-view bounding
 * circle at the scan's time. */
typedef struct target {
    double bx, by, br;
    const sim_obstacle *obs; /* NULL: a box */
    double px[4], py[4];     /* a box's corners */
    double zmin, zmax;
} target;

/* Standard normal by Marsaglia's polar method (no trigonometry); the
 * spare value is kept in *spare. */
static double gauss(trv_rng *rng, double *spare, int *has_spare)
{
    if (*has_spare) {
        *has_spare = 0;
        return *spare;
    }
    double u, v, q;
    do {
        u = 2.0 * trv_rng_uniform(rng) - 1.0;
        v = 2.0 * trv_rng_uniform(rng) - 1.0;
        q = u * u + v * v;
    } while (q >= 1.0 || q == 0.0);
    double k = sqrt(-2.0 * log(q) / q);
    *spare = v * k;
    *has_spare = 1;
    return u * k;
}

/* Bounding circle of an obstacle's t = 0 footprint. */
static void obstacle_circle(const sim_obstacle *o, double *cx, double *cy, double *r)
{
    if (o->n == 0) {
        *cx = o->cx;
        *cy = o->cy;
        *r = o->r;
        return;
    }
    double mx = 0, my = 0, r2 = 0;
    for (int k = 0; k < o->n; k++) {
        mx += o->px[k];
        my += o->py[k];
    }
    mx /= o->n;
    my /= o->n;
    for (int k = 0; k < o->n; k++) {
        double dx = o->px[k] - mx, dy = o->py[k] - my;
        r2 = fmax(r2, dx * dx + dy * dy);
    }
    *cx = mx;
    *cy = my;
    *r = sqrt(r2);
}

/* The targets within range of (ox, oy) at time w->t. */
static int gather_targets(const sim_world *w, double ox, double oy, double range, target *tg)
{
    int n = 0;
    for (int k = 0; k < w->nobs; k++) {
        const sim_obstacle *o = &w->obs[k];
        if (!sim_obstacle_active(o, w->t))
            continue;
        double cx, cy, r, dx, dy;
        obstacle_circle(o, &cx, &cy, &r);
        sim_obstacle_offset(o, w->t, &dx, &dy);
        cx += dx;
        cy += dy;
        if (hypot(cx - ox, cy - oy) - r > range)
            continue;
        tg[n] = (target){.bx = cx, .by = cy, .br = r, .obs = o};
        n++;
    }
    for (int k = 0; k < w->nboxes && w->boxes; k++) {
        const sim_obb *b = &w->boxes[k];
        double r = hypot(b->half_len, b->half_wid);
        if (hypot(b->cx - ox, b->cy - oy) - r > range)
            continue;
        target *t = &tg[n++];
        *t = (target){.bx = b->cx, .by = b->cy, .br = r, .obs = NULL, .zmin = w->box_z[k],
                      .zmax = w->box_z[k] + w->box_h[k]};
        double c = cos(b->heading), s = sin(b->heading);
        static const double sl[4] = {1, -1, -1, 1}, sw[4] = {1, 1, -1, -1};
        for (int q = 0; q < 4; q++) {
            t->px[q] = b->cx + sl[q] * b->half_len * c - sw[q] * b->half_wid * s;
            t->py[q] = b->cy + sl[q] * b->half_len * s + sw[q] * b->half_wid * c;
        }
    }
    return n;
}

/* Nearest hit of the ray among the targets, within tmax. */
static double ray_targets(const sim_world *w, const target *tg, int n, const double o[3], const double d[3],
                          double tmax)
{
    double best = INFINITY, h2 = d[0] * d[0] + d[1] * d[1];
    for (int k = 0; k < n; k++) {
        const target *t = &tg[k];
        double px = t->bx - o[0], py = t->by - o[1], p2 = px * px + py * py, r2 = t->br * t->br;
        if (p2 > r2) { /* outside the circle: skip it when the plan view misses */
            double proj = px * d[0] + py * d[1];
            if (proj <= 0 || h2 == 0 || p2 - proj * proj / h2 > r2)
                continue;
        }
        double lim = dmin(tmax, best);
        double hit = t->obs ? sim_obstacle_ray(t->obs, w->t, o, d, lim)
                            : sim_ray_prism(o, d, t->px, t->py, 4, 0, 0, 0, t->zmin, t->zmax, lim);
        if (hit < best)
            best = hit;
    }
    return best;
}

/* Lowest and highest ground within range of (x, y) (this scan's own
 * bound, a few cells on a DEM; NAN when no cell holds data): a ray above
 * the highest ground needs no march until it comes down to it. */
static void ground_range(const sim_field *f, double x, double y, double range, double *zlo, double *zhi)
{
    double c = (x - f->x0) / f->dx, r = (f->y0 - y) / f->dy;
    double rc = range / f->dx + 1, rr = range / f->dy + 1;
    int i0 = (int)fmax(0, floor(c - rc)), i1 = (int)fmin(f->nx - 1, ceil(c + rc));
    int j0 = (int)fmax(0, floor(r - rr)), j1 = (int)fmin(f->ny - 1, ceil(r + rr));
    float lo = INFINITY, hi = -INFINITY;
    for (int j = j0; j <= j1; j++) {
        const float *row = f->z + (size_t)j * f->nx;
        for (int i = i0; i <= i1; i++) {
            float v = row[i];
            if (geo_f32_is_nodata(v, f->has_nodata, f->nodata))
                continue;
            lo = v < lo ? v : lo;
            hi = v > hi ? v : hi;
        }
    }
    *zlo = lo <= hi ? lo : NAN;
    *zhi = lo <= hi ? hi : NAN;
}

/* The field's hit: through its pyramid when there is one. */
static double ray_field(const sim_world *w, const double o[3], const double d[3], double tmax)
{
    return w->hmax ? sim_hmax_ray(w->hmax, o, d, tmax) : sim_ray_field(w->field, o, d, tmax);
}

/* The march the ground hit within tmax needs, over only the part of the
 * ray that can lie below zhi: from p = o + t0 d over [0, *tm] (t0 = 0:
 * p = o); 0 if none (no hit). */
static int ground_march(double zhi, const double o[3], const double d[3], double tmax, double p[3], double *tm,
                        double *t0)
{
    if (isnan(zhi))
        return 0;
    *t0 = 0;
    if (o[2] > zhi) {
        if (d[2] >= 0)
            return 0;
        *t0 = (zhi - o[2]) / d[2];
        if (*t0 > tmax)
            return 0;
    } else if (d[2] > 0) {
        tmax = dmin(tmax, (zhi - o[2]) / d[2]);
    }
    if (*t0 == 0) {
        p[0] = o[0], p[1] = o[1], p[2] = o[2], *tm = tmax;
    } else {
        p[0] = o[0] + *t0 * d[0], p[1] = o[1] + *t0 * d[1], p[2] = zhi, *tm = tmax - *t0;
    }
    return 1;
}

/* The ground hit from the march's t h. */
static double ground_hit(double t0, double h) { return t0 == 0 ? h : t0 + h; }

/* The ground hit within tmax, one ray. */
static double ray_ground(const sim_world *w, double zhi, const double o[3], const double d[3], double tmax)
{
    double p[3], tm, t0;
    if (!ground_march(zhi, o, d, tmax, p, &tm, &t0))
        return INFINITY;
    return ground_hit(t0, ray_field(w, p, d, tm));
}

/* The ground marches of a scan, gathered for sim_hmax_rays. */
#define QCAP 512
typedef struct queue {
    int n, ray[QCAP];
    double p[QCAP][3], d[QCAP][3], tm[QCAP], t0[QCAP], hit[QCAP];
} queue;

/* Marches the queued rays; each ray's range (*t, the targets' hit) lowered
 * to its ground hit. */
static void queue_flush(const sim_world *w, queue *q, double *t)
{
    sim_hmax_rays(w->hmax, q->n, (const double(*)[3])q->p, (const double(*)[3])q->d, q->tm, q->hit);
    for (int k = 0; k < q->n; k++) {
        double tf = ground_hit(q->t0[k], q->hit[k]);
        if (tf < t[q->ray[k]])
            t[q->ray[k]] = tf;
    }
    q->n = 0;
}

/* Ray direction in the map frame: body (ce ca, ce sa, se) turned by R. */
static void ray_dir(const double R[3][3], double ce, double se, double ca, double sa, double d[3])
{
    double b0 = ce * ca, b1 = ce * sa, b2 = se;
    d[0] = R[0][0] * b0 + R[0][1] * b1 + R[0][2] * b2;
    d[1] = R[1][0] * b0 + R[1][1] * b1 + R[1][2] * b2;
    d[2] = R[2][0] * b0 + R[2][1] * b1 + R[2][2] * b2;
}

/* The ray's range before noise (INFINITY: no hit within range). */
static double ray_range(const sim_sensor *ls, const sim_world *w, const target *tg, int ntg, double zhi,
                        const double o[3], const double d[3])
{
    double t = ntg ? ray_targets(w, tg, ntg, o, d, ls->range_m) : INFINITY;
    if (w->field) {
        double tf = ray_ground(w, zhi, o, d, dmin(t, ls->range_m));
        if (tf < t)
            t = tf;
    }
    return t;
}

/* Ray k's range before noise into t[k] (k: the ray's index in t), its
 * ground march queued (t[k] lowered at the flush). */
static void cast(const sim_sensor *ls, const sim_world *w, const target *tg, int ntg, double zhi, const double o[3],
                 const double d[3], queue *q, int k, double *t)
{
    t[k] = ntg ? ray_targets(w, tg, ntg, o, d, ls->range_m) : INFINITY;
    int n = q->n;
    if (!ground_march(zhi, o, d, dmin(t[k], ls->range_m), q->p[n], &q->tm[n], &q->t0[n]))
        return;
    q->d[n][0] = d[0], q->d[n][1] = d[1], q->d[n][2] = d[2], q->ray[n] = k;
    if (++q->n == QCAP)
        queue_flush(w, q, t);
}

/* One scan's casts, in the job's memory (the pool's, which a worker may
 * still read after the scan: everything a cast reads is here or lives as
 * long as the run: the field, its pyramid, the obstacles). */
typedef struct scan {
    sim_sensor ls;
    sim_world w;                /* w.ranges: the caller's */
    const target *tg;
    int ntg, lines, naz, chunk_az, lanes;
    double zhi, o[3], R[3][3];
    const double *ca, *sa, *cel, *sel;
    double *tr;                 /* the ranges before noise, ray order */
    double *own;                /* the caller's: one chunk cast again */
} scan;

/* The caller's side of a scan: the noise and the points. */
typedef struct emit {
    trv_rng *rng;
    double spare, *xyz;
    int has_spare, nhit, cap;
    float *ranges;
} emit;

/* Rays of azimuths [a0, a1) cast into t (ray k at k - a0 lines), their
 * ground marches in vector lanes line by line (neighbouring azimuths in a
 * packet) when q: a pure function of the scan, the same bits for any
 * split of the azimuths. */
static void cast_azimuths(const scan *S, int a0, int a1, queue *q, double *t)
{
    const int nl = S->lines;
    if (q) {
        q->n = 0;
        for (int l = 0; l < nl; l++)
            for (int a = a0; a < a1; a++) {
                double d[3];
                ray_dir(S->R, S->cel[l], S->sel[l], S->ca[a], S->sa[a], d);
                cast(&S->ls, &S->w, S->tg, S->ntg, S->zhi, S->o, d, q, (a - a0) * nl + l, t);
            }
        if (q->n)
            queue_flush(&S->w, q, t);
        return;
    }
    for (int a = a0; a < a1; a++)
        for (int l = 0; l < nl; l++) {
            double d[3];
            ray_dir(S->R, S->cel[l], S->sel[l], S->ca[a], S->sa[a], d);
            t[(a - a0) * nl + l] = ray_range(&S->ls, &S->w, S->tg, S->ntg, S->zhi, S->o, d);
        }
}

static int chunk_end(const scan *S, int a0) { return a0 + S->chunk_az < S->naz ? a0 + S->chunk_az : S->naz; }

/* The pool's chunk c (sim_pool_fn): azimuths [c chunk_az, (c + 1)
 * chunk_az) into the scan's ranges, or into out. */
static void cast_chunk(void *job, int c, void *out)
{
    const scan *S = job;
    int a0 = c * S->chunk_az;
    queue q;
    cast_azimuths(S, a0, chunk_end(S, a0), S->lanes ? &q : NULL, out ? out : S->tr + (size_t)a0 * S->lines);
}

/* Noise and points of azimuths [a0, a1), ray by ray in ray order, from
 * their ranges t (ray k at k - a0 lines; NULL: cast here), until cap
 * points. */
static void emit_azimuths(const scan *S, emit *E, int a0, int a1, const double *t)
{
    const sim_sensor *ls = &S->ls;
    for (int a = a0; a < a1 && E->nhit < E->cap; a++)
        for (int l = 0; l < S->lines && E->nhit < E->cap; l++) {
            int k = a * S->lines + l;
            double d[3];
            ray_dir(S->R, S->cel[l], S->sel[l], S->ca[a], S->sa[a], d);
            double r = t ? t[(a - a0) * S->lines + l] : ray_range(ls, &S->w, S->tg, S->ntg, S->zhi, S->o, d);
            if (E->ranges)
                E->ranges[k] = NAN;
            if (!(r <= ls->range_m))
                continue;
            if (ls->noise > 0)
                r += ls->noise * gauss(E->rng, &E->spare, &E->has_spare);
            if (E->ranges)
                E->ranges[k] = (float)r;
            double *p = E->xyz + 3 * E->nhit;
            p[0] = S->o[0] + r * d[0];
            p[1] = S->o[1] + r * d[1];
            p[2] = S->o[2] + r * d[2];
            E->nhit++;
        }
}

/* The scan on the pool (posted): chunks cast on whichever thread takes
 * them (this one too), their noise and points here in chunk order as they
 * come in; a chunk a worker holds past the pool's short wait (descheduled)
 * cast again here into S->own. */
static void scan_pooled(sim_pool *p, const scan *S, emit *E, int nch)
{
    int fin = 0;
    while (fin < nch) {
        while (fin < nch && sim_pool_done(p, fin)) {
            int a0 = fin++ * S->chunk_az;
            emit_azimuths(S, E, a0, chunk_end(S, a0), S->tr + (size_t)a0 * S->lines);
        }
        if (fin == nch)
            break;
        int c = sim_pool_claim(p);
        if (c >= 0) {
            sim_pool_cast(p, c, NULL);
        } else if (!sim_pool_wait(p, fin)) {
            int a0 = fin++ * S->chunk_az;
            sim_pool_cast(p, fin - 1, S->own);
            emit_azimuths(S, E, a0, chunk_end(S, a0), S->own);
        }
    }
}

/* Bytes of a block of n of size, rounded to 64. */
static size_t block(size_t n, size_t size) { return (n * size + 63) / 64 * 64; }

/* The scan's memory: the pool's job (NULL: none) or its own; its parts
 * laid out in *S. */
static void *scan_memory(sim_pool *pool, scan *S, int ntg_max, int nch, int *pooled)
{
    size_t nr = (size_t)S->naz * S->lines, chunk = (size_t)S->chunk_az * S->lines;
    size_t size = block(1, sizeof *S) + block((size_t)ntg_max, sizeof(target)) + block(nr, sizeof(double)) +
                  block(2 * (size_t)S->naz + 2 * (size_t)S->lines, sizeof(double)) + block(chunk, sizeof(double));
    char *m = pool ? sim_pool_job(pool, size, nch) : NULL;
    *pooled = m != NULL;
    if (!m && !(m = malloc(size)))
        return NULL;
    char *q = m + block(1, sizeof *S);
    S->tg = (target *)q, q += block((size_t)ntg_max, sizeof(target));
    S->tr = (double *)q, q += block(nr, sizeof(double));
    S->ca = (double *)q, S->sa = S->ca + S->naz, S->cel = S->sa + S->naz, S->sel = S->cel + S->lines;
    q += block(2 * (size_t)S->naz + 2 * (size_t)S->lines, sizeof(double));
    S->own = (double *)q;
    return m;
}

/* The scan's directions: cos and sin of each azimuth and elevation. */
static void scan_angles(const sim_sensor *ls, int naz, int lines, double *ca, double *sa, double *cel, double *sel)
{
    double az0, daz;
    if (ls->hfov_rad >= 2.0 * M_PI - 1e-9) {
        az0 = -M_PI;
        daz = 2.0 * M_PI / naz;
    } else {
        daz = ls->hres_rad > 0 ? ls->hres_rad : 0;
        az0 = -0.5 * (naz - 1) * daz; /* centred on the heading */
    }
    for (int l = 0; l < lines; l++) {
        double el = lines > 1 ? -0.5 * ls->vfov_rad + l * ls->vfov_rad / (lines - 1) : 0.0;
        cel[l] = cos(el);
        sel[l] = sin(el);
    }
    for (int a = 0; a < naz; a++) {
        double az = az0 + a * daz;
        ca[a] = cos(az);
        sa[a] = sin(az);
    }
}

int sim_lidar_scan(const sim_sensor *ls, const sim_world *w, const sim_state *s, trv_rng *rng, double *xyz, int cap)
{
    int lines = ls->lines < 1 ? 1 : ls->lines, naz = n_azimuth(ls);
    /* body to map: Rz(heading) Ry(-pitch) Rx(roll) */
    double ch = cos(s->heading), sh = sin(s->heading), cp = cos(s->pitch), sp = sin(s->pitch);
    double cr = cos(s->roll), sr = sin(s->roll);
    scan T = {.ls = *ls, .w = *w, .lines = lines, .naz = naz, .zhi = NAN,
              .lanes = w->field && w->hmax && sim_hmax_lanes(),
              .R = {{ch * cp, -sh * cr - ch * sp * sr, sh * sr - ch * sp * cr},
                    {sh * cp, ch * cr - sh * sp * sr, -ch * sr - sh * sp * cr},
                    {sp, cp * sr, cp * cr}}};
    for (int i = 0; i < 3; i++)
        T.o[i] = (i == 0 ? s->x : i == 1 ? s->y : s->z) + T.R[i][2] * ls->mount_h_m;
    /* a chunk: about SIM_POOL_CHUNK rays, whole azimuths, a multiple of
     * the lanes' packet of eight azimuths */
    T.chunk_az = ((SIM_POOL_CHUNK + lines - 1) / lines + 7) / 8 * 8;
    int nch = (naz + T.chunk_az - 1) / T.chunk_az, pooled;
    int ntg_max = w->nobs + (w->boxes ? w->nboxes : 0);
    sim_pool *pool = sim_pool_threads(w->pool) > 1 ? w->pool : NULL;
    char *mem = scan_memory(pool, &T, ntg_max, nch, &pooled);
    queue *q = T.lanes && !pooled ? malloc(sizeof *q) : NULL;
    if (!mem || (T.lanes && !pooled && !q)) {
        if (!pooled)
            free(mem);
        free(q);
        return 0; /* no memory for the scan: it sees nothing */
    }
    if (ntg_max > 0)
        T.ntg = gather_targets(w, T.o[0], T.o[1], ls->range_m, (target *)T.tg);
    double zlo = NAN;
    if (w->field && w->field->z)
        ground_range(w->field, T.o[0], T.o[1], ls->range_m, &zlo, &T.zhi);
    scan_angles(ls, naz, lines, (double *)T.ca, (double *)T.sa, (double *)T.cel, (double *)T.sel);
    scan *S = (scan *)mem;
    *S = T;
    emit E = {.rng = rng, .xyz = xyz, .cap = cap, .ranges = w->ranges};
    if (pooled) {
        sim_pool_post(pool, cast_chunk, nch);
        scan_pooled(pool, S, &E, nch);
    } else {
        if (q) /* the lanes: cast line by line, neighbouring rays crossing as many patches */
            cast_azimuths(S, 0, naz, q, S->tr);
        emit_azimuths(S, &E, 0, naz, q ? S->tr : NULL);
        free(mem);
    }
    free(q);
    return E.nhit;
}
