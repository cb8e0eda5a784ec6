/* Views of a run for a live viewer (live.h). */
#include "live.h"
#include "sim_priv.h"

int sim_live_path(const sim_run *r, int k, int which, const double **x, const double **y)
{
    const sim_veh *v = &r->v[k];
    if (which == 0) {
        *x = v->plan0_x, *y = v->plan0_y;
        return v->plan0_x ? v->plan0_n : 0;
    }
    *x = v->path.x, *y = v->path.y;
    return v->path.x ? v->path.n : 0;
}

double sim_live_scan_t(const sim_run *r, int k)
{
    const sim_veh *v = &r->v[k];
    return v->nlidar && v->ext.ranges && v->ext.scanned ? v->ext.scan_t : -1;
}
