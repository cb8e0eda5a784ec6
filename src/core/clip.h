/*
 * clip.h — Liang–Barsky clipping of a segment to an axis-aligned box, the
 * one copy the stages share (prm's segment walk clips to the grid in cell
 * units, sim's box tests clip a polygon edge to a vehicle's box; core,
 * because core is the only module below both).
 *
 * The segment P(t) = (x0, y0) + t (x1 - x0, y1 - y0), t in [0, 1]; the
 * box [xmin, xmax] x [ymin, ymax] (edges included). For each of the four
 * edges k, p_k = (-dx, dx, -dy, dy), q_k = (x0 - xmin, xmax - x0,
 * y0 - ymin, ymax - y0); P(t) is inside edge k when t p_k <= q_k. A
 * segment parallel to an edge (p_k = 0) outside it (q_k < 0) misses; else
 * t0 = max(0, q_k / p_k over p_k < 0), t1 = min(1, q_k / p_k over p_k > 0).
 */
#ifndef TRV_CLIP_H
#define TRV_CLIP_H

/* 1 when the segment meets the box (t0 <= t1, a single touching point
 * included), with the part inside from t0 to t1; 0 when it misses (t0
 * and t1 then undefined). */
int trv_clip_segment(double x0, double y0, double x1, double y1, double xmin, double ymin, double xmax, double ymax,
                     double *t0, double *t1);

#endif
