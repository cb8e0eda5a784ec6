/* Private to src/prm: what the segment measure and the raster search share. */
#ifndef PRM_PRIV_H
#define PRM_PRIV_H

#include "prm.h"

#include <math.h>
#include <stdint.h>

/* Add to p what a GO cell i crossed over len metres heading (ux, uy) (a
 * unit vector, east and north) contributes: the class lengths, the slope
 * integral and maximum, cost and elevation, and with times the time both
 * ways (time_s heading u, time_rev_s heading -u). */
void prm_piece_add_cell(const prm_terrain *t, long i, double len, double ux, double uy, int times, prm_piece *p);

/* The lengths (m) of the straight piece (x0, y0)-(x1, y1) in NOGO (by
 * GO/NOGO or class 0) and in classes 1 (high risk), 2 (low risk) and 3
 * (safe), equal to the bit to prm_piece_measure's nogo, h, l and s: the
 * same walk, the same sums in the same order, without the rest of the
 * measure (the roadmap A*'s mmcr heuristic walks one to the goal for
 * every node it reaches). codes: prm_class_codes's, one byte a cell,
 * PRM_CL_NOGO (0) where NOGO, else the class (so that the walk reads one
 * array); NULL when out of memory. */
enum { PRM_CL_NOGO = 0, PRM_CL_HIGH, PRM_CL_LOW, PRM_CL_SAFE, PRM_CLASS_LEN };
unsigned char *prm_class_codes(const prm_terrain *t);
void prm_piece_classes(const prm_terrain *t, const unsigned char *codes, double x0, double y0, double x1, double y1,
                       double out[PRM_CLASS_LEN]);

/* prm_route_grid_masked on the window of columns win[0] .. win[0] +
 * win[2] - 1 and rows win[1] .. win[1] + win[3] - 1 alone, mask one byte
 * per window cell (row-major; NULL: none): the same route and objective
 * as the whole grid with a mask that is 0 outside the window, with
 * memory and set-up for the window only (prm_refine's corridor). */
trv_status prm_route_grid_window(trv_ctx *ctx, const prm_terrain *t, const long win[4], const unsigned char *mask,
                                 double sx, double sy, double gx, double gy, prm_strategy s, const prm_weights *w,
                                 prm_path *out);

/* The pace table (pace.c): per (soil, land use) pair of the GO cells, the
 * pace 1 / tm_speed_at at PRM_PACE_NODES + 1 grades tan beta evenly over
 * [-tmax, tmax] (tmax the steepest gradient of a GO cell); a bin is
 * interpolated linearly when its ends are finite, bound by the same limit
 * and within PRM_PACE_REL of each other, else tm_speed_at answers. */
enum { PRM_PACE_NODES = 4096 };
#define PRM_PACE_REL 0.01

struct prm_aniso {
    const tm_model *m;
    tm_run_model rm;        /* the run directory's model (owns_model) */
    int owns_model;
    float *grad;            /* per cell: dz/dE, dz/dN (m/m), Horn's differences as slope.tif */
    uint16_t *pair;         /* per cell: its pair, 0xffff off the GO cells */
    int npairs;
    unsigned char *codes;   /* per pair: soil, land use */
    double tmax, dt;
    double *pace;           /* npairs x (PRM_PACE_NODES + 1), s/m */
    unsigned char *ok;      /* npairs x PRM_PACE_NODES: 1 where the bin interpolates */
};

void prm_aniso_free(prm_aniso *a);
/* 1 / tm_speed_at of the pair at grade atan(tan_beta); INFINITY where 0. */
double prm_pace_exact(const prm_aniso *a, int pair, double tan_beta);

/* Pace (s/m) of GO cell i at the grade tan_beta along the heading. */
static inline double prm_aniso_pace(const prm_aniso *a, long i, double tan_beta)
{
    int p = a->pair[i];
    double u = (tan_beta + a->tmax) / a->dt;
    if (u >= 0 && u < PRM_PACE_NODES) {
        int k = (int)u;
        if (a->ok[(size_t)p * PRM_PACE_NODES + k]) {
            const double *row = a->pace + (size_t)p * (PRM_PACE_NODES + 1) + k;
            return row[0] + (u - k) * (row[1] - row[0]);
        }
    }
    return prm_pace_exact(a, p, tan_beta);
}

/* The grade (tan beta) of cell i heading (ux, uy). */
static inline double prm_aniso_grade(const prm_aniso *a, long i, double ux, double uy)
{
    return (double)a->grad[2 * i] * ux + (double)a->grad[2 * i + 1] * uy;
}

#endif
