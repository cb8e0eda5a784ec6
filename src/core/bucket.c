/* The shared bucket-grid index (bucket.h): a counting sort of the points
 * by bucket, and the ring search of the k nearest. */
#include "bucket.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

struct trv_bucket {
    const double *x, *y;
    int later_first;        /* equal distances: the higher index first */
    double x0, y0, cell;    /* bucket grid origin and size */
    int nx, ny;
    size_t *start;          /* nx*ny + 1 offsets into order */
    long *order;            /* point indices sorted by bucket, index order within one */
};

static int bucket_of(const trv_bucket *b, double v, double v0, int n)
{
    long k = (long)floor((v - v0) / b->cell);
    return k < 0 ? 0 : k >= n ? n - 1 : (int)k;
}

trv_bucket *trv_bucket_new(const double *x, const double *y, size_t n, int later_first)
{
    trv_bucket *b = calloc(1, sizeof *b);
    if (!b)
        return NULL;
    double xmin = INFINITY, xmax = -INFINITY, ymin = INFINITY, ymax = -INFINITY;
    for (size_t i = 0; i < n; i++) {
        xmin = fmin(xmin, x[i]);
        xmax = fmax(xmax, x[i]);
        ymin = fmin(ymin, y[i]);
        ymax = fmax(ymax, y[i]);
    }
    if (n == 0)
        xmin = xmax = ymin = ymax = 0;
    b->x = x;
    b->y = y;
    b->later_first = later_first;
    /* about two points per bucket */
    double w = fmax(xmax - xmin, 1e-9), h = fmax(ymax - ymin, 1e-9);
    b->cell = fmax(sqrt(2.0 * w * h / (double)(n ? n : 1)), 1e-9 * fmax(w, h));
    b->nx = (int)fmin(ceil(w / b->cell) + 1, 1 << 15);
    b->ny = (int)fmin(ceil(h / b->cell) + 1, 1 << 15);
    b->cell = fmax(b->cell, fmax(w / (b->nx - 1 > 0 ? b->nx - 1 : 1), h / (b->ny - 1 > 0 ? b->ny - 1 : 1)));
    b->x0 = xmin;
    b->y0 = ymin;
    size_t nb = (size_t)b->nx * b->ny;
    b->start = calloc(nb + 1, sizeof *b->start);
    b->order = malloc((n ? n : 1) * sizeof *b->order);
    int *bk = malloc((n ? n : 1) * sizeof *bk);
    size_t *fill = malloc(nb * sizeof *fill);
    if (!b->start || !b->order || !bk || !fill) {
        free(bk);
        free(fill);
        trv_bucket_free(b);
        return NULL;
    }
    for (size_t i = 0; i < n; i++) {
        bk[i] = bucket_of(b, y[i], b->y0, b->ny) * b->nx + bucket_of(b, x[i], b->x0, b->nx);
        b->start[bk[i] + 1]++;
    }
    for (size_t k = 0; k < nb; k++)
        b->start[k + 1] += b->start[k];
    memcpy(fill, b->start, nb * sizeof *fill);
    for (size_t i = 0; i < n; i++) /* in index order: each bucket stays sorted */
        b->order[fill[bk[i]]++] = (long)i;
    free(fill);
    free(bk);
    return b;
}

void trv_bucket_free(trv_bucket *b)
{
    if (!b)
        return;
    free(b->start);
    free(b->order);
    free(b);
}

size_t trv_bucket_count(const trv_bucket *b) { return (size_t)b->nx * b->ny; }

const long *trv_bucket_items(const trv_bucket *b, size_t bucket, size_t *n)
{
    *n = b->start[bucket + 1] - b->start[bucket];
    return b->order + b->start[bucket];
}

/* (d2, idx) ordering: nearer first; among equally near points the lower
 * index first, or with later_first the higher, as gstat's neighbour
 * search returns them (checked against its nmax = 20 kriging of Meuse,
 * where three grid nodes have a tie at the 20th neighbour). */
static int before(const trv_bucket *b, double da, long ia, double db, long ib)
{
    return da < db || (da == db && (b->later_first ? ia > ib : ia < ib));
}

/* Insert point i at squared distance dd into the sorted (d2, idx) of
 * *found entries, keeping at most k. */
static void insert(const trv_bucket *b, int k, long i, double dd, long *idx, double *d2, int *found)
{
    if (*found == k && !before(b, dd, i, d2[k - 1], idx[k - 1]))
        return;
    int j = *found < k ? (*found)++ : k - 1;
    while (j > 0 && before(b, dd, i, d2[j - 1], idx[j - 1])) {
        d2[j] = d2[j - 1];
        idx[j] = idx[j - 1];
        j--;
    }
    d2[j] = dd;
    idx[j] = i;
}

int trv_bucket_nearest(const trv_bucket *b, double x, double y, int k, double maxdist, long skip, long *idx,
                       double *d2)
{
    if (k <= 0)
        return 0;
    double max2 = isfinite(maxdist) ? maxdist * maxdist : INFINITY;
    int found = 0;
    int cx = bucket_of(b, x, b->x0, b->nx), cy = bucket_of(b, y, b->y0, b->ny);
    /* the corner of the bucket (x, y) maps to (it may lie off the grid) */
    double bx0 = b->x0 + cx * b->cell, by0 = b->y0 + cy * b->cell;
    for (int ring = 0;; ring++) {
        /* every point outside rings 0..ring-1 lies in the buckets left of,
         * right of, below or above them: at least this far from (x, y),
         * over the sides where the grid still has buckets */
        double inner = 0;
        if (ring > 0) {
            inner = INFINITY;
            if (cx - ring >= 0)
                inner = fmin(inner, x - (bx0 - (ring - 1) * b->cell));
            if (cx + ring < b->nx)
                inner = fmin(inner, (bx0 + ring * b->cell) - x);
            if (cy - ring >= 0)
                inner = fmin(inner, y - (by0 - (ring - 1) * b->cell));
            if (cy + ring < b->ny)
                inner = fmin(inner, (by0 + ring * b->cell) - y);
            inner = fmax(0, inner);
        }
        if (ring > 0 && ((found == k && inner * inner > d2[k - 1]) || inner * inner > max2))
            break;
        if (ring > 0 && cx - ring < 0 && cy - ring < 0 && cx + ring >= b->nx && cy + ring >= b->ny)
            break;
        for (int by = cy - ring; by <= cy + ring; by++) {
            if (by < 0 || by >= b->ny)
                continue;
            int step = (by == cy - ring || by == cy + ring) ? 1 : 2 * ring;
            for (int bx = cx - ring; bx <= cx + ring; bx += step ? step : 1) {
                if (bx < 0 || bx >= b->nx)
                    continue;
                size_t q0 = b->start[(size_t)by * b->nx + bx], q1 = b->start[(size_t)by * b->nx + bx + 1];
                for (size_t q = q0; q < q1; q++) {
                    long i = b->order[q];
                    if (i == skip)
                        continue;
                    double dx = b->x[i] - x, dy = b->y[i] - y, dd = dx * dx + dy * dy;
                    if (dd > max2)
                        continue;
                    insert(b, k, i, dd, idx, d2, &found);
                }
                if (ring == 0)
                    break;
            }
        }
    }
    return found;
}
