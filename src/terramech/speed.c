/* The speed and go/no-go row kernel (docs/method.md §2.8, §2.10.7): each
 * cell's attainable speed in its worse direction, the limit that binds,
 * and its GO or reason for NOGO. */
#include "terramech.h"

#include <math.h>

void tm_row(const tm_model *m, const float *slope, float slope_nodata, const unsigned char *soil,
            const unsigned char *landuse, int n, float *speed, unsigned char *reason, unsigned char *limit)
{
    for (int i = 0; i < n; i++) {
        int s = soil[i], l = landuse[i];
        float b = slope[i];
        unsigned char why = TM_GO;
        tm_speed_at_t up = {0}, down = {0};
        if (b == slope_nodata || isnan(b) || s == 0 || l == 0 || m->soil_index[s] < 0 || m->landuse_nogo[l] == 2)
            why = TM_NOGO_NODATA;
        else if (b > m->max_slope_deg)
            why = TM_NOGO_SLOPE;
        else if (m->ci_kPa[s] < m->vci.vci1_kPa)
            why = TM_NOGO_SOIL;
        else if (m->landuse_nogo[l])
            why = TM_NOGO_LANDUSE;
        else {
            double beta = b * M_PI / 180.0, sb = sin(beta), cb = cos(beta);
            tm_speed_at_sc(m, s, l, sb, cb, &up);
            tm_speed_at_sc(m, s, l, -sb, cb, &down);
            if (up.limit == TM_LIMIT_NOGO || down.limit == TM_LIMIT_NOGO) /* GO: crossable every way */
                why = TM_NOGO_TRACTION;
        }
        const tm_speed_at_t *worst = up.v_ms <= down.v_ms ? &up : &down; /* the worst direction */
        reason[i] = why;
        speed[i] = why == TM_GO ? (float)(worst->v_ms * 3.6) : 0.0f;
        if (limit)
            limit[i] = why == TM_GO ? (unsigned char)worst->limit : TM_LIMIT_NOGO;
    }
}

void tm_class_speed_at(const tm_model *m, int soil, int landuse, double grade_deg, tm_class_speed *out)
{
    const float slope = (float)grade_deg;
    const unsigned char s = (unsigned char)soil, l = (unsigned char)landuse;
    float v;
    tm_row(m, &slope, NAN, &s, &l, 1, &v, &out->reason, &out->limit);
    out->speed_kmh = v;
    /* the direction tm_row keeps: the slower, up on a tie */
    tm_speed_at_t up, down;
    double beta = slope * M_PI / 180.0;
    tm_speed_at(m, soil, landuse, beta, &up);
    tm_speed_at(m, soil, landuse, -beta, &down);
    out->downhill = !(up.v_ms <= down.v_ms);
    out->at = out->downhill ? down : up;
}
