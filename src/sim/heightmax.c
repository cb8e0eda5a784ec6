/*
 * The max-height pyramid of a heightfield and the ray march that uses it
 * (docs/method.md §5).
 *
 * Level 0 holds, for each bilinear patch (i, j), i in -1 .. nx-1, j in
 * -1 .. ny-1 (ray_patch.h), the highest of its four corners, or -inf
 * when the patch is transparent (nodata or NaN corner): the plain march's
 * test "the ray's lowest z over the patch <= the highest corner, and not
 * transparent" becomes one load and one comparison. Level k + 1 holds the
 * maximum of 2 x 2 blocks of level k, so level L's entry at
 * ((i + 1) >> L, (j + 1) >> L) bounds every patch of a block of 2^L x 2^L.
 *
 * The march is the plain one (same start, same accumulated steps, same
 * patch solve), except that where the ray's lowest z over a whole block
 * lies above the block's maximum it steps through the block without
 * looking at its patches; it then tries the next coarser block, and
 * descends a level when a block is not cleared. A patch of a cleared
 * block has z_ray > its top corner at the t the plain march compares, so
 * the plain march would not have solved it either: the hits are
 * bit-identical. The bound uses z_ray at the block's entry t (rising
 * ray) or at its exit t (falling ray): the smaller of the column and row
 * boundary t, with a relative margin of 1e-9 (plus 1e-9 m) over the
 * rounding of the accumulated steps, and never beyond tb; rounding is
 * monotone, so fl(z0 + dz t) at that t is <= the plain march's own.
 */
#include "ray_patch.h"

#include <math.h>
#include <stdlib.h>

#define SIM_HMAX_LEVELS 24

struct sim_hmax {
    sim_field f;             /* the field (its grid borrowed) */
    int levels;              /* 1 ..: level 0 is the patches */
    int w[SIM_HMAX_LEVELS], h[SIM_HMAX_LEVELS];
    float *lv[SIM_HMAX_LEVELS];
};

void sim_hmax_free(sim_hmax *m)
{
    if (!m)
        return;
    for (int k = 0; k < m->levels; k++)
        free(m->lv[k]);
    free(m);
}

/* Level 0: each patch's top corner, -inf when transparent. */
static void level0(const sim_field *f, float *out)
{
    sim_march m = {0};
    for (m.j = -1; m.j < f->ny; m.j++)
        for (m.i = -1; m.i < f->nx; m.i++) {
            float c[4];
            sim_patch_corners(f, &m, c);
            out[(size_t)(m.j + 1) * (f->nx + 1) + (m.i + 1)] =
                sim_patch_transparent(f, c) ? -INFINITY : (float)sim_patch_top(c);
        }
}

/* Level k from level k - 1 (2 x 2 blocks, the last row/column alone
 * where the size is odd). */
static void coarsen(const float *a, int wa, int ha, float *b, int wb, int hb)
{
    for (int J = 0; J < hb; J++)
        for (int I = 0; I < wb; I++) {
            float v = -INFINITY;
            for (int y = 2 * J; y <= 2 * J + 1 && y < ha; y++)
                for (int x = 2 * I; x <= 2 * I + 1 && x < wa; x++)
                    v = a[(size_t)y * wa + x] > v ? a[(size_t)y * wa + x] : v;
            b[(size_t)J * wb + I] = v;
        }
}

trv_status sim_hmax_new(trv_ctx *ctx, const sim_field *f, sim_hmax **out)
{
    *out = NULL;
    if (!f->z || f->nx < 1 || f->ny < 1)
        return trv_error(ctx, TRV_ERR_DATA, "max-height pyramid: empty field");
    sim_hmax *m = calloc(1, sizeof *m);
    if (!m)
        return trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
    m->f = *f;
    int w = f->nx + 1, h = f->ny + 1;
    for (int k = 0; k < SIM_HMAX_LEVELS; k++) {
        m->w[k] = w, m->h[k] = h;
        if (!(m->lv[k] = malloc((size_t)w * h * sizeof *m->lv[k]))) {
            sim_hmax_free(m);
            return trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
        }
        m->levels = k + 1;
        if (k == 0)
            level0(f, m->lv[0]);
        else
            coarsen(m->lv[k - 1], m->w[k - 1], m->h[k - 1], m->lv[k], w, h);
        if (w == 1 && h == 1)
            break;
        w = (w + 1) / 2, h = (h + 1) / 2;
    }
    *out = m;
    return TRV_OK;
}

int sim_hmax_levels(const sim_hmax *m) { return m->levels; }

const sim_field *sim_hmax_field(const sim_hmax *m) { return &m->f; }

const float *sim_hmax_top(const sim_hmax *m, int *w)
{
    *w = m->w[0];
    return m->lv[0];
}

/* Upper bound on the t at which the march leaves block (bi, bj) of level L. */
static double block_exit(const sim_march *q, int L, int bi, int bj, double idc, double idr)
{
    double te = q->tb;
    if (q->dc != 0) {
        int col = (q->dc > 0 ? bi + 1 : bi) * (1 << L) - 1; /* block columns i + 1 in [bi 2^L, (bi + 1) 2^L) */
        double tc = (col - q->c0) * idc;
        te = sim_dmin(te, tc + 1e-9 * fabs(tc) + 1e-9);
    }
    if (q->dr != 0) {
        int row = (q->dr > 0 ? bj + 1 : bj) * (1 << L) - 1;
        double tr = (row - q->r0) * idr;
        te = sim_dmin(te, tr + 1e-9 * fabs(tr) + 1e-9);
    }
    return te;
}

double sim_hmax_ray(const sim_hmax *hm, const double o[3], const double d[3], double tmax)
{
    const sim_field *f = &hm->f;
    sim_march q;
    if (!sim_march_start(f, o, d, tmax, &q))
        return INFINITY;
    const sim_v2 inv = (sim_v2){1.0, 1.0} / (sim_v2){q.dc, q.dr};
    const double idc = inv[0], idr = inv[1];
    const int top = hm->levels - 1;
    double t = q.ta;
    int L = 0;
    for (;;) {
        if (L == 0) { /* the plain march's patch */
            double tn = sim_dmin(sim_dmin(q.ti, q.tj), q.tb);
            double rz = o[2] + d[2] * (d[2] < 0 ? tn : t);
            if (rz <= hm->lv[0][(size_t)(q.j + 1) * hm->w[0] + (q.i + 1)]) {
                float c[4];
                sim_patch_corners(f, &q, c);
                double hit = sim_patch_hit(&q, o, d, c[0], c[1], c[2], c[3], t, tn);
                if (hit < INFINITY)
                    return hit;
            } else if (top > 0) {
                L = 1;
            }
            if (tn >= q.tb || !sim_march_step(f, &q, &t))
                return INFINITY;
            continue;
        }
        int bi = (q.i + 1) >> L, bj = (q.j + 1) >> L;
        double tl = d[2] < 0 ? block_exit(&q, L, bi, bj, idc, idr) : t;
        if (!(o[2] + d[2] * tl > hm->lv[L][(size_t)bj * hm->w[L] + bi])) {
            L--;
            continue;
        }
        do { /* through the cleared block, as the plain march steps */
            if (sim_dmin(sim_dmin(q.ti, q.tj), q.tb) >= q.tb || !sim_march_step(f, &q, &t))
                return INFINITY;
        } while ((q.i + 1) >> L == bi && (q.j + 1) >> L == bj);
        if (L < top)
            L++;
    }
}
