/*
 * bucket.h — the bucket-grid spatial index the stages share (kriging's
 * neighbour search over its points, prm's over its roadmap nodes; core,
 * because core is the only module below both, and public, because no
 * stage includes another's private header).
 *
 * Points fall into square buckets of side c over their bounding box,
 * c ~ sqrt(2 w h / n) (about two points a bucket), at most 2^15 buckets a
 * side; each bucket lists its points in index order. A query visits
 * square rings of buckets around the query's bucket and stops when the
 * ring's inner distance exceeds the k-th distance found (or maxdist), so
 * the answer is exact: the k points with the least squared distance
 * (dx^2 + dy^2, computed in that order), ties by index, the lower first or
 * with later_first the higher first (gstat's neighbour order).
 *
 * The index keeps pointers to x and y (not copies): they must stay
 * unchanged while it lives. Coordinates must be finite.
 */
#ifndef TRV_BUCKET_H
#define TRV_BUCKET_H

#include <stddef.h>

typedef struct trv_bucket trv_bucket;

/* NULL when out of memory. */
trv_bucket *trv_bucket_new(const double *x, const double *y, size_t n, int later_first);
void trv_bucket_free(trv_bucket *b);

/* The k nearest points to (x, y) within maxdist (INFINITY: any distance;
 * a point at exactly maxdist counts), leaving out index skip (-1: none),
 * nearest first, into idx and their squared distances into d2 (both of
 * size k). Returns how many were found (<= k). */
int trv_bucket_nearest(const trv_bucket *b, double x, double y, int k, double maxdist, long skip, long *idx,
                       double *d2);

/* The buckets, in row-major order, and the points of one (index order). */
size_t trv_bucket_count(const trv_bucket *b);
const long *trv_bucket_items(const trv_bucket *b, size_t bucket, size_t *n);

#endif
