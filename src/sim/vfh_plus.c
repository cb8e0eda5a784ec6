/* VFH+ (Ulrich & Borenstein, ICRA 1998): candidate directions from the
 * masked polar histogram's valleys and the cost
 *   g(c) = mu1 Delta(c, k_t) + mu2 Delta(c, k_theta) + mu3 Delta(c, k_prev)
 * (local_planner.h; docs/method.md §5.12). */
#include "local_planner.h"

#include <math.h>

void sim_vfh_cfg_default(sim_vfh_cfg *c, int n, double R, double r_rs)
{
    c->polar = (sim_polar_cfg){n, R, r_rs};
    /* a point blocks its sectors within R / sqrt(2) (m = 1 + (R^2 - d^2) > R^2 / 2 + 1) */
    c->t_low = 1 + R * R / 4, c->t_high = 1 + R * R / 2;
    c->s_max = (int)lround(80.0 / (360.0 / n)); /* 80 degrees */
    c->mu[0] = 5, c->mu[1] = 2, c->mu[2] = 2;
    c->depth = 3;
    c->step_m = R / 3;
    c->lambda_d = 0.8;
    const double l[5] = {5, 3, 0.5, 3, 2};
    for (int i = 0; i < 5; i++)
        c->wu_lambda[i] = l[i];
}

double sim_vfh_cost(int n, int c, int kt, int ktheta, int kprev, const double mu[3])
{
    return mu[0] * sim_polar_delta(n, c, kt) + mu[1] * sim_polar_delta(n, c, ktheta) +
           mu[2] * sim_polar_delta(n, c, kprev);
}

/* k inside the valley [s, s + len) (circular)? */
static int in_valley(int n, int s, int len, int k) { return ((k - s) % n + n) % n < len; }

int sim_vfh_candidates(const unsigned char *mask, int n, int kt, int s_max, int *cand, int cap)
{
    int vs[SIM_POLAR_MAX], vl[SIM_POLAR_MAX];
    int nv = sim_polar_valleys(mask, n, vs, vl, SIM_POLAR_MAX), nc = 0;
    for (int i = 0; i < nv && nc < cap; i++) {
        if (vl[i] == n) { /* nothing blocked: the target itself */
            cand[nc++] = kt;
            continue;
        }
        int kr = vs[i], kl = vs[i] + vl[i] - 1; /* right and left edges (kl may pass n) */
        if (vl[i] > s_max) {
            cand[nc++] = (kr + s_max / 2) % n;
            if (nc < cap)
                cand[nc++] = ((kl - s_max / 2) % n + n) % n;
            if (nc < cap && in_valley(n, kr + s_max / 2, vl[i] - 2 * (s_max / 2), kt))
                cand[nc++] = kt;
        } else {
            cand[nc++] = ((kr + kl) / 2) % n;
        }
    }
    return nc;
}

int sim_vfh_plus(const sim_vfh_cfg *c, const sim_vfh_query *q, unsigned char *bin, double *dir)
{
    int n = c->polar.n;
    double h[SIM_POLAR_MAX];
    unsigned char mask[SIM_POLAR_MAX];
    sim_polar_primary(&c->polar, q->x, q->y, q->pts, q->npts, h);
    sim_polar_binary(h, n, c->t_low, c->t_high, bin);
    sim_polar_masked(&c->polar, bin, q->x, q->y, q->theta, q->r_turn, q->pts, q->npts, mask);
    int kt = sim_polar_sector(n, atan2(q->ty - q->y, q->tx - q->x));
    int kth = sim_polar_sector(n, q->theta), kp = sim_polar_sector(n, q->prev);
    int cand[2 * SIM_POLAR_MAX];
    int nc = sim_vfh_candidates(mask, n, kt, c->s_max, cand, 2 * SIM_POLAR_MAX);
    int best = -1;
    double gbest = INFINITY;
    for (int i = 0; i < nc; i++) {
        double g = sim_vfh_cost(n, cand[i], kt, kth, kp, c->mu);
        if (g < gbest)
            gbest = g, best = cand[i];
    }
    if (best < 0)
        return -1;
    *dir = best * 2 * M_PI / n;
    return 0;
}
