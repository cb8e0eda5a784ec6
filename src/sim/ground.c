/*
 * The ground (docs/method.md §5): the reconstructed DEM as a bilinear surface
 * through the cell centres, its gradient, and the height, pitch and roll
 * of a vehicle standing on its four wheel contact points.
 *
 * In cell coordinates col = (x - x0) / dx, row = (y0 - y) / dy, the
 * surface over the patch with corners (i, j) .. (i+1, j+1) is
 *   h = z00 + (z10 - z00) u + (z01 - z00) w + (z00 - z10 - z01 + z11) u w,
 *   u = col - i, w = row - j,
 * which reproduces a plane exactly. Beyond the outer cell centres (half a
 * cell to the grid's edge) the edge values are held (clamped).
 */
#include "sim.h"

#include <math.h>

void sim_field_from_raster(const geo_raster *dem, sim_field *out)
{
    const double *gt = dem->grid.gt;
    out->z = dem->f32;
    out->nx = dem->grid.nx;
    out->ny = dem->grid.ny;
    out->dx = gt[1];
    out->dy = -gt[5];
    out->x0 = gt[0] + 0.5 * gt[1];
    out->y0 = gt[3] + 0.5 * gt[5];
    out->has_nodata = dem->has_nodata;
    out->nodata = (float)dem->nodata;
}

/* The patch under (x, y): corner indices and the offsets inside it. 0 off
 * the grid's extent. */
static int locate(const sim_field *f, double x, double y, size_t idx[4], double *u, double *w)
{
    double col = (x - f->x0) / f->dx, row = (f->y0 - y) / f->dy;
    if (!f->z || !(col >= -0.5 && col <= f->nx - 0.5 && row >= -0.5 && row <= f->ny - 0.5))
        return 0;
    /* clamping the coordinate to the outer centres holds the edge values */
    col = col < 0 ? 0 : col > f->nx - 1 ? f->nx - 1 : col;
    row = row < 0 ? 0 : row > f->ny - 1 ? f->ny - 1 : row;
    int i = (int)col, j = (int)row;
    if (i > f->nx - 2)
        i = f->nx > 1 ? f->nx - 2 : 0;
    if (j > f->ny - 2)
        j = f->ny > 1 ? f->ny - 2 : 0;
    int i1 = f->nx > 1 ? i + 1 : i, j1 = f->ny > 1 ? j + 1 : j;
    *u = col - i;
    *w = row - j;
    idx[0] = (size_t)j * f->nx + i;
    idx[1] = (size_t)j * f->nx + i1;
    idx[2] = (size_t)j1 * f->nx + i;
    idx[3] = (size_t)j1 * f->nx + i1;
    return 1;
}

static int corners(const sim_field *f, const size_t idx[4], double z[4])
{
    for (int k = 0; k < 4; k++) {
        float v = f->z[idx[k]];
        if (geo_f32_is_nodata(v, f->has_nodata, f->nodata))
            return 0;
        z[k] = v;
    }
    return 1;
}

double sim_height(const sim_field *f, double x, double y)
{
    size_t idx[4];
    double u, w, z[4];
    if (!locate(f, x, y, idx, &u, &w) || !corners(f, idx, z))
        return NAN;
    return z[0] + (z[1] - z[0]) * u + (z[2] - z[0]) * w + (z[0] - z[1] - z[2] + z[3]) * u * w;
}

void sim_gradient(const sim_field *f, double x, double y, double *gx, double *gy)
{
    size_t idx[4];
    double u, w, z[4];
    if (!locate(f, x, y, idx, &u, &w) || !corners(f, idx, z)) {
        *gx = *gy = NAN;
        return;
    }
    double e = z[0] - z[1] - z[2] + z[3];
    double dcol = z[1] - z[0] + e * w, drow = z[2] - z[0] + e * u;
    double col = (x - f->x0) / f->dx, row = (f->y0 - y) / f->dy;
    /* held edge values: no slope across the clamped half cell */
    if (col < 0 || col > f->nx - 1 || f->nx < 2)
        dcol = 0;
    if (row < 0 || row > f->ny - 1 || f->ny < 2)
        drow = 0;
    *gx = dcol / f->dx;
    *gy = -drow / f->dy; /* rows run south */
}

int sim_contact(const sim_field *f, const sim_body *b, double x, double y, double heading, double *z, double *pitch,
                double *roll)
{
    double c = cos(heading), s = sin(heading);
    double ax = 0.5 * b->wheelbase_m * c, ay = 0.5 * b->wheelbase_m * s;   /* half the wheelbase, along */
    double lx = -0.5 * b->track_m * s, ly = 0.5 * b->track_m * c;          /* half the track, to the left */
    double fl = sim_height(f, x + ax + lx, y + ay + ly), fr = sim_height(f, x + ax - lx, y + ay - ly);
    double rl = sim_height(f, x - ax + lx, y - ay + ly), rr = sim_height(f, x - ax - lx, y - ay - ly);
    if (isnan(fl) || isnan(fr) || isnan(rl) || isnan(rr))
        return -1;
    *z = 0.25 * (fl + fr + rl + rr);
    *pitch = b->wheelbase_m > 0 ? atan(0.5 * ((fl + fr) - (rl + rr)) / b->wheelbase_m) : 0;
    *roll = b->track_m > 0 ? atan(0.5 * ((fl + rl) - (fr + rr)) / b->track_m) : 0;
    return 0;
}
