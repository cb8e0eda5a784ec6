/* Liang–Barsky segment clipping (clip.h). */
#include "clip.h"

int trv_clip_segment(double x0, double y0, double x1, double y1, double xmin, double ymin, double xmax, double ymax,
                     double *t0, double *t1)
{
    double a = 0, b = 1, dx = x1 - x0, dy = y1 - y0;
    const double p[4] = {-dx, dx, -dy, dy}, q[4] = {x0 - xmin, xmax - x0, y0 - ymin, ymax - y0};
    for (int k = 0; k < 4; k++) {
        if (p[k] == 0) {
            if (q[k] < 0)
                return 0;
            continue;
        }
        double r = q[k] / p[k];
        if (p[k] < 0 && r > a)
            a = r;
        if (p[k] > 0 && r < b)
            b = r;
        if (a > b)
            return 0;
    }
    *t0 = a;
    *t1 = b;
    return 1;
}
