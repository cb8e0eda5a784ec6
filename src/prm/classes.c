/* The class lengths of a straight piece (prm_priv.h: prm_piece_classes),
 * for the roadmap A*'s inadmissible mmcr heuristic, which walks a piece
 * to the goal from every node it reaches: prm_segment_walk's loop with
 * the same parameters, lengths and order, reading one byte of class code
 * a cell, its sums in registers and no branch on the class. */
#include "prm_priv.h"

#include "core/clip.h"

#include <math.h>
#include <stdlib.h>

unsigned char *prm_class_codes(const prm_terrain *t)
{
    size_t n = (size_t)t->grid->nx * t->grid->ny;
    unsigned char *codes = calloc((n + 1) / 2, 1);
    if (!codes || prm_lazy_codes(t, codes))
        return codes;
    /* a lazy terrain without the runs: the class and GO layers of every
     * tile (the fan of lines to the goal crosses most of them) */
    for (long r = 0; t->ready && r < t->grid->ny; r += PRM_TILE)
        for (long c = 0; c < t->grid->nx; c += PRM_TILE)
            prm_need(t, r * t->grid->nx + c, PRM_HAVE_CLASS);
    const unsigned char *gonogo = t->gonogo->u8, *cls = t->cls->u8;
    for (size_t i = 0; i < n; i++) {
        long k = prm_at(t, (long)i);
        int v = gonogo[k] ? PRM_CL_NOGO : cls[k] > PRM_CL_MAX ? PRM_CL_MAX : cls[k];
        codes[i >> 1] |= (unsigned char)(v << ((i & 1) << 2));
    }
    return codes;
}

uint64_t prm_class_runs_hash(const unsigned char *code, const unsigned short *len, size_t nruns)
{
    return prm_hash_bytes(prm_hash_bytes(PRM_FNV_SEED, code, nruns), len, nruns * sizeof *len);
}

int prm_class_runs_ok(const unsigned char *code, const unsigned short *len, size_t nruns, size_t ncells, uint64_t h)
{
    size_t sum = 0;
    for (size_t k = 0; k < nruns; k++) {
        if (!len[k])
            return 0;
        sum += len[k];
    }
    return sum == ncells && prm_class_runs_hash(code, len, nruns) == h;
}

trv_status prm_class_runs(trv_ctx *ctx, const prm_terrain *t, prm_terrain_facts *f)
{
    size_t n = (size_t)t->grid->nx * t->grid->ny, k = 0;
    unsigned char *codes = prm_class_codes(t);
    for (size_t i = 0; codes && i < n; k++) /* count the runs */
        for (size_t j = i++; i < n && prm_code_at(codes, i) == prm_code_at(codes, j) && i - j < 65535;)
            i++;
    if (!codes || !(f->run_code = malloc(k + 1)) || !(f->run_len = malloc(k * sizeof *f->run_len + 1))) {
        free(codes);
        return trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
    }
    f->ncells = n, f->nruns = k;
    k = 0;
    for (size_t i = 0; i < n; k++) {
        size_t j = i++;
        while (i < n && prm_code_at(codes, i) == prm_code_at(codes, j) && i - j < 65535)
            i++;
        f->run_code[k] = (unsigned char)prm_code_at(codes, j);
        f->run_len[k] = (unsigned short)(i - j);
    }
    free(codes);
    return TRV_OK;
}

/* prm_segment_walk from (u0, v0) over parameters t0 .. t1 of the cell-unit
 * vector (du, dv), len map units long: each cell's length into its class's
 * sum (NOGO in slot 0; classes above 3, GO without a risk class, nowhere).
 * Branch-free on the class: v x 0 = +0 and v x 1 = v, and adding +0
 * leaves a sum of lengths >= 0 unchanged. Through a corner (tc == tr) the
 * column and the row both step: the two length-0 corner cells
 * prm_segment_walk also visits add nothing. */
static void walk(const geo_grid *g, const unsigned char *codes, double u0, double v0, double du, double dv, double t0,
                 double t1, double len, double acc[PRM_CLASS_LEN])
{
    const long nx = g->nx, ny = g->ny;
    long c = (long)floor(u0 + t0 * du), r = (long)floor(v0 + t0 * dv);
    c = c >= nx ? nx - 1 : c < 0 ? 0 : c;
    r = r >= ny ? ny - 1 : r < 0 ? 0 : r;
    const long stepc = du > 0 ? 1 : du < 0 ? -1 : 0, stepr = dv > 0 ? 1 : dv < 0 ? -1 : 0;
    double tc = stepc ? ((stepc > 0 ? c + 1 : c) - u0) / du : INFINITY;
    double tr = stepr ? ((stepr > 0 ? r + 1 : r) - v0) / dv : INFINITY;
    const double dtc = stepc ? fabs(1.0 / du) : INFINITY, dtr = stepr ? fabs(1.0 / dv) : INFINITY;
    double a0 = 0, a1 = 0, a2 = 0, a3 = 0;
    for (double at = t0;;) {
        double next = tc < tr ? tc : tr;
        next = next < t1 ? next : t1;
        int k = prm_code_at(codes, (size_t)(r * nx + c));
        double v = (next - at) * len;
        a0 += v * (k == PRM_CL_NOGO);
        a1 += v * (k == PRM_CL_HIGH);
        a2 += v * (k == PRM_CL_LOW);
        a3 += v * (k == PRM_CL_SAFE);
        if (next >= t1)
            break;
        at = next;
        int sc = tc <= tr, sr = tr <= tc;
        c += sc ? stepc : 0;
        tc += sc ? dtc : 0;
        r += sr ? stepr : 0;
        tr += sr ? dtr : 0;
        if (c < 0 || r < 0 || c >= nx || r >= ny)
            break;
    }
    acc[PRM_CL_NOGO] = a0, acc[PRM_CL_HIGH] = a1, acc[PRM_CL_LOW] = a2, acc[PRM_CL_SAFE] = a3;
}

void prm_piece_classes(const prm_terrain *t, const unsigned char *codes, double x0, double y0, double x1, double y1,
                       double out[PRM_CLASS_LEN])
{
    const geo_grid *g = t->grid;
    double u0 = (x0 - g->gt[0]) / g->gt[1], v0 = (y0 - g->gt[3]) / g->gt[5];
    double u1 = (x1 - g->gt[0]) / g->gt[1], v1 = (y1 - g->gt[3]) / g->gt[5];
    double len = hypot(x1 - x0, y1 - y0), t0, t1, acc[PRM_CLASS_LEN] = {0};
    /* prm_segment_walk's clip; nothing to add off the grid or at length 0 */
    if (len > 0 && trv_clip_segment(u0, v0, u1, v1, 0, 0, g->nx, g->ny, &t0, &t1) && t0 != t1)
        walk(g, codes, u0, v0, u1 - u0, v1 - v0, t0, t1, len, acc);
    double m_per_unit = t->cell_m / g->gt[1]; /* into metres, as prm_piece_measure scales */
    for (int k = 0; k < PRM_CLASS_LEN; k++)
        out[k] = m_per_unit != 1 ? acc[k] * m_per_unit : acc[k];
}
